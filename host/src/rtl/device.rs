//! The public driver API: one open RTL2832U + R82xx dongle.
//!
//! Typical use: [`Device::open`], [`Device::set_sample_rate`],
//! [`Device::set_center_freq`], [`Device::set_gain`] (or
//! [`Device::set_gain_auto`]), [`Device::reset_buffer`], then
//! [`Device::read_sync`] in a loop, and [`Device::close`].

use super::fake::{FakeConfig, FakeRtl, SharedFake};
use super::r82xx::{self, Board, Gain, R82xx, R82xxConfig};
use super::regs::{self, Regs};
use super::rtl2832u::{self as demod, XTAL_HZ};
use super::trace::TracingTransport;
use super::usb::{self, BULK_ENDPOINT, UsbError, UsbStrings, UsbTransport};
use super::{Error, Result, TunerKind};
use std::io::Write;
use std::time::Duration;

/// Which dongle to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// The n-th known stick on the bus (0-based).
    Index(usize),
    /// The stick with this serial-number string.
    Serial(String),
    /// The built-in emulator.
    Fake(FakeConfig),
}

/// Timeout of one synchronous bulk read (lets callers poll for shutdown).
pub const BULK_TIMEOUT: Duration = Duration::from_secs(1);

/// I2C address of the configuration EEPROM.
const EEPROM_ADDR: u8 = 0xa0;
/// EEPROM size, bytes.
pub const EEPROM_LEN: usize = 256;

/// Explicit permission to rewrite the EEPROM (a wrong image can make the
/// stick enumerate differently; changes apply after a replug).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EepromWrite {
    /// I really mean to rewrite the dongle's EEPROM.
    Allowed,
}

/// What [`Device::settings`] captures and [`Device::apply`] restores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Sample rate, Hz, if set.
    pub sample_rate: Option<u32>,
    /// Centre frequency, Hz, if set.
    pub center_freq: Option<u64>,
    /// Tuner gain.
    pub gain: Gain,
    /// Frequency correction, ppm.
    pub ppm: i32,
    /// Bias tee on.
    pub bias_tee: bool,
    /// RTL digital AGC on.
    pub digital_agc: bool,
    /// Counter test mode on.
    pub test_mode: bool,
    /// Direct-sampling mode (0 off, 1 I, 2 Q).
    pub direct_sampling: u8,
}

/// An open dongle. Closing (or dropping) puts the tuner in standby, powers
/// the demod down and releases the interface (re-attaching the kernel driver).
pub struct Device {
    regs: Regs,
    tuner: R82xx,
    tuner_kind: TunerKind,
    strings: UsbStrings,
    rate: u32,
    freq: Option<u64>,
    ppm: i32,
    gain: Gain,
    manual_gain: i32,
    direct_sampling: u8,
    digital_agc: bool,
    test_mode: bool,
    bias_tee: bool,
    open: bool,
    stalls_recovered: u64,
}

/// Identify the tuner (the caller holds the I2C repeater on). Probe reads
/// that NAK count as "not there".
fn probe(r: &mut Regs) -> Result<TunerKind> {
    let is = |r: &mut Regs, addr, reg, want: u8| r.i2c_read_reg(addr, reg).ok() == Some(want);
    if is(r, 0xc8, 0x02, 0x40) {
        return Err(Error::UnsupportedTuner(TunerKind::E4000));
    }
    if is(r, 0xc6, 0x00, 0xa3) {
        return Err(Error::UnsupportedTuner(TunerKind::Fc0013));
    }
    if is(r, 0x34, 0x00, 0x69) {
        return Ok(TunerKind::R820t);
    }
    if is(r, 0x74, 0x00, 0x69) {
        return Ok(TunerKind::R828d);
    }
    // Reset the remaining tuner kinds with a GPIO4 pulse, then probe them.
    r.gpio_output(4)?;
    r.gpio_set(4, true)?;
    r.gpio_set(4, false)?;
    if r.i2c_read_reg(0xac, 0x01).ok().map(|v| v & 0x7f) == Some(0x56) {
        return Err(Error::UnsupportedTuner(TunerKind::Fc2580));
    }
    if is(r, 0xc6, 0x00, 0xa1) {
        return Err(Error::UnsupportedTuner(TunerKind::Fc0012));
    }
    Err(Error::NoTuner)
}

impl Device {
    /// Open and initialise a dongle; with `trace`, every control transfer is
    /// logged there in fakeusb.c's text format.
    pub fn open(selector: &Selector, trace: Option<Box<dyn Write + Send>>) -> Result<Device> {
        let transport: Box<dyn UsbTransport> = match selector {
            Selector::Index(i) => Box::new(
                usb::rusb_impl::RusbTransport::open(&usb::rusb_impl::Selector::Index(*i))
                    .map_err(Error::usb("open"))?,
            ),
            Selector::Serial(s) => Box::new(
                usb::rusb_impl::RusbTransport::open(&usb::rusb_impl::Selector::Serial(s.clone()))
                    .map_err(Error::usb("open"))?,
            ),
            Selector::Fake(cfg) => {
                let fake = FakeRtl::new(cfg.clone());
                if let Some(e) = fake.file_error() {
                    return Err(Error::FakeSpec(format!("cannot open file: {e}")));
                }
                Box::new(SharedFake::new(fake))
            }
        };
        let transport = match trace {
            Some(out) => Box::new(TracingTransport::new(transport, out)),
            None => transport,
        };
        Device::from_transport(transport)
    }

    /// Initialise a dongle behind any transport (claims interface 0 first).
    pub fn from_transport(mut transport: Box<dyn UsbTransport>) -> Result<Device> {
        transport.claim().map_err(Error::usb("claim interface 0"))?;
        let mut regs = Regs::new(transport);
        match Device::init(&mut regs) {
            Ok((tuner, tuner_kind, strings)) => Ok(Device {
                regs,
                tuner,
                tuner_kind,
                strings,
                rate: 0,
                freq: None,
                ppm: 0,
                gain: Gain::Auto,
                manual_gain: 0,
                direct_sampling: 0,
                digital_agc: false,
                test_mode: false,
                bias_tee: false,
                open: true,
                stalls_recovered: 0,
            }),
            Err(e) => {
                // Leave the stick as we found it; the first error is the one to report.
                let _ = regs.set_i2c_repeater(false);
                let _ = regs.usb().release();
                Err(e)
            }
        }
    }

    fn init(regs: &mut Regs) -> Result<(R82xx, TunerKind, UsbStrings)> {
        // Dummy write: a failure here means the stick needs a USB reset.
        if regs
            .block_write(regs::Block::Usb, regs::USB_SYSCTL, &[0x09])
            .is_err()
        {
            regs.usb().reset().map_err(Error::usb("USB reset"))?;
        }
        demod::init_baseband(regs)?;
        let strings = regs.usb().strings().unwrap_or_default();
        let board = if strings.manufacturer.as_deref() == Some("RTLSDRBlog")
            && strings.product.as_deref() == Some("Blog V4")
        {
            Board::BlogV4
        } else {
            Board::Generic
        };
        regs.set_i2c_repeater(true)?;
        let kind = probe(regs)?;
        let cfg = match kind {
            TunerKind::R828d => R82xxConfig {
                chip: kind,
                i2c_addr: 0x74,
                // Blog V4 shares the RTL's 28.8 MHz reference; other R828D boards use 16 MHz.
                xtal_hz: if board == Board::BlogV4 {
                    XTAL_HZ
                } else {
                    16_000_000
                },
                board,
            },
            _ => R82xxConfig {
                chip: kind,
                i2c_addr: 0x34,
                xtal_hz: XTAL_HZ,
                board: Board::Generic,
            },
        };
        demod::setup_low_if(regs, f64::from(XTAL_HZ))?;
        let mut tuner = R82xx::new(cfg);
        tuner.init(regs)?;
        regs.set_i2c_repeater(false)?;
        Ok((tuner, kind, strings))
    }

    /// Run `f` with the I2C repeater on, and always turn it off afterwards.
    fn with_repeater<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.regs.set_i2c_repeater(true)?;
        let r = f(self);
        let off = self.regs.set_i2c_repeater(false);
        let v = r?;
        off?;
        Ok(v)
    }

    fn xtal(&self) -> f64 {
        demod::corrected_xtal(XTAL_HZ, self.ppm)
    }

    /// Tune the tuner to the stored frequency (if any) and apply board GPIOs.
    fn retune(&mut self) -> Result<()> {
        self.with_repeater(|d| {
            if let Some(f) = d.freq {
                let out = d.tuner.set_freq(&mut d.regs, f)?;
                if let Some(level) = out.gpio5 {
                    d.regs.gpio_output(5)?;
                    d.regs.gpio_set(5, level)?;
                }
            }
            Ok(())
        })
    }

    /// The tuner found by the probe.
    pub fn tuner_kind(&self) -> TunerKind {
        self.tuner_kind
    }

    /// The board variant (Blog V4 or generic).
    pub fn board(&self) -> Board {
        self.tuner.config().board
    }

    /// USB string descriptors read at open.
    pub fn strings(&self) -> &UsbStrings {
        &self.strings
    }

    /// Whether the tuner PLL reported lock after the last tune.
    pub fn pll_locked(&self) -> bool {
        self.tuner.pll_locked()
    }

    /// The tuner's shadow registers (0x00–0x22).
    pub fn tuner_registers(&self) -> &[u8] {
        self.tuner.shadow()
    }

    /// Programmed sample rate, Hz (0 before [`Device::set_sample_rate`]).
    pub fn sample_rate(&self) -> u32 {
        self.rate
    }

    /// Centre frequency, Hz, if set.
    pub fn center_freq(&self) -> Option<u64> {
        self.freq
    }

    /// Bulk stalls recovered by [`Device::read_sync`] (each loses the FIFO's contents).
    pub fn stalls_recovered(&self) -> u64 {
        self.stalls_recovered
    }

    /// Set the sample rate (225 001–300 000 or 900 001–3 200 000 Hz); the
    /// tuner bandwidth follows the rate. Returns the exact rate obtained, Hz.
    pub fn set_sample_rate(&mut self, rate: u32) -> Result<f64> {
        let (ratio, real) = demod::resampler_ratio(rate)?;
        if self.direct_sampling == 0 {
            self.with_repeater(|d| {
                let if_hz = d.tuner.set_bandwidth(&mut d.regs, rate)?;
                let x = d.xtal();
                demod::set_if(&mut d.regs, if_hz, x)?;
                d.retune()
            })?;
        }
        demod::set_ratio(&mut self.regs, ratio)?;
        demod::set_ppm_regs(&mut self.regs, self.ppm)?;
        demod::soft_reset(&mut self.regs)?;
        self.rate = rate;
        Ok(real)
    }

    /// Tune to `hz`. Below 28.8 MHz only on a Blog V4 (upconverter) or with
    /// direct sampling; the tuner reaches about 24–1766 MHz otherwise.
    pub fn set_center_freq(&mut self, hz: u64) -> Result<()> {
        if self.direct_sampling != 0 {
            let if_hz = u32::try_from(hz)
                .ok()
                .filter(|&f| f <= XTAL_HZ)
                .ok_or(Error::Frequency(hz))?;
            let x = self.xtal();
            demod::set_if(&mut self.regs, if_hz, x)?;
            self.freq = Some(hz);
            return Ok(());
        }
        let old = self.freq.replace(hz);
        let r = self.retune();
        if r.is_err() {
            self.freq = old;
        }
        r
    }

    /// The tuner gains, tenths of a dB.
    pub fn gains(&self) -> &'static [i32] {
        &r82xx::GAINS_TENTH_DB
    }

    /// Manual tuner gain in tenths of a dB (the LNA/mixer walk reaches the
    /// first step at or above it; [`r82xx::nearest_gain`] gives list values).
    pub fn set_gain(&mut self, tenths: i32) -> Result<()> {
        self.manual_gain = tenths;
        self.apply_gain(Gain::Manual(tenths))
    }

    /// Manual gain mode at the last manual gain (0 dB if none was set).
    pub fn set_gain_manual(&mut self) -> Result<()> {
        self.apply_gain(Gain::Manual(self.manual_gain))
    }

    /// Tuner AGC.
    pub fn set_gain_auto(&mut self) -> Result<()> {
        self.apply_gain(Gain::Auto)
    }

    fn apply_gain(&mut self, gain: Gain) -> Result<()> {
        self.with_repeater(|d| d.tuner.set_gain(&mut d.regs, gain))?;
        self.gain = gain;
        Ok(())
    }

    /// Frequency correction in ppm (−1000..=1000): demod sample clock, tuner
    /// reference and IF; retunes.
    pub fn set_ppm(&mut self, ppm: i32) -> Result<()> {
        if !(-1000..=1000).contains(&ppm) {
            return Err(Error::Ppm(ppm));
        }
        if ppm == self.ppm {
            return Ok(());
        }
        self.ppm = ppm;
        demod::set_ppm_regs(&mut self.regs, ppm)?;
        self.tuner.set_ppm(ppm);
        if self.direct_sampling == 0 {
            self.with_repeater(|d| {
                let x = d.xtal();
                demod::set_if(&mut d.regs, d.tuner.if_hz(), x)?;
                d.retune()
            })?;
        }
        Ok(())
    }

    /// Bias tee (GPIO0) on or off.
    pub fn set_bias_tee(&mut self, on: bool) -> Result<()> {
        self.regs.gpio_output(0)?;
        self.regs.gpio_set(0, on)?;
        self.bias_tee = on;
        Ok(())
    }

    /// The user-visible settings, to re-apply after reopening ([`Device::apply`]).
    pub fn settings(&self) -> Settings {
        Settings {
            sample_rate: (self.rate != 0).then_some(self.rate),
            center_freq: self.freq,
            gain: self.gain,
            ppm: self.ppm,
            bias_tee: self.bias_tee,
            digital_agc: self.digital_agc,
            test_mode: self.test_mode,
            direct_sampling: self.direct_sampling,
        }
    }

    /// Apply `s` to a freshly opened device, in a safe order, then reset the FIFO.
    pub fn apply(&mut self, s: &Settings) -> Result<()> {
        if s.ppm != 0 {
            self.set_ppm(s.ppm)?;
        }
        if s.direct_sampling != 0 {
            self.set_direct_sampling(s.direct_sampling)?;
        }
        if let Some(rate) = s.sample_rate {
            self.set_sample_rate(rate)?;
        }
        if let Some(f) = s.center_freq {
            self.set_center_freq(f)?;
        }
        match s.gain {
            Gain::Auto => self.set_gain_auto()?,
            Gain::Manual(g) => self.set_gain(g)?,
        }
        if s.bias_tee {
            self.set_bias_tee(true)?;
        }
        if s.digital_agc {
            self.set_agc_mode(true)?;
        }
        if s.test_mode {
            self.set_test_mode(true)?;
        }
        self.reset_buffer()
    }

    fn write_mode(&mut self) -> Result<()> {
        let v = if self.test_mode {
            demod::mode::TEST_COUNTER
        } else if self.digital_agc {
            demod::mode::DIGITAL_AGC
        } else {
            demod::mode::NORMAL
        };
        self.regs.demod_write(0, 0x19, &[v])
    }

    /// RTL2832 digital AGC (p0 0x19 ← 0x25 / 0x05).
    pub fn set_agc_mode(&mut self, on: bool) -> Result<()> {
        self.digital_agc = on;
        self.write_mode()
    }

    /// Test mode: the bulk stream becomes an 8-bit counter (p0 0x19 ← 0x03).
    pub fn set_test_mode(&mut self, on: bool) -> Result<()> {
        self.test_mode = on;
        self.write_mode()
    }

    /// Direct sampling: 0 off, 1 I input, 2 Q input (RTL-SDR Blog V3 HF).
    pub fn set_direct_sampling(&mut self, mode: u8) -> Result<()> {
        if mode > 2 {
            return Err(Error::DirectSampling(mode));
        }
        if mode == self.direct_sampling {
            return Ok(());
        }
        if mode != 0 {
            self.with_repeater(|d| d.tuner.standby(&mut d.regs))?;
            self.regs.demod_write(1, 0xb1, &[0x1a])?;
            self.regs.demod_write(1, 0x15, &[0x00])?;
            self.regs.demod_write(0, 0x08, &[0x4d])?;
            self.regs
                .demod_write(0, 0x06, &[if mode == 1 { 0x80 } else { 0x90 }])?;
            self.direct_sampling = mode;
            if let Some(f) = self.freq.filter(|&f| f <= u64::from(XTAL_HZ)) {
                self.set_center_freq(f)?;
            }
        } else {
            self.direct_sampling = 0;
            let gain = self.gain;
            let rate = self.rate;
            self.with_repeater(|d| d.tuner.init(&mut d.regs))?;
            let x = self.xtal();
            demod::set_if(&mut self.regs, 3_570_000, x)?;
            self.regs.demod_write(1, 0x15, &[0x01])?;
            self.regs.demod_write(0, 0x06, &[0x80])?;
            self.apply_gain(gain)?;
            // Tune back to the frequency if the tuner can reach it; an HF
            // frequency from direct sampling is dropped (set a new one).
            let freq = self.freq.take();
            if rate != 0 {
                self.set_sample_rate(rate)?;
            }
            if let Some(f) = freq {
                match self.set_center_freq(f) {
                    Ok(()) | Err(Error::Frequency(_)) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    /// Reset the bulk FIFO; required before the first read.
    pub fn reset_buffer(&mut self) -> Result<()> {
        demod::reset_fifo(&mut self.regs)
    }

    /// One synchronous bulk read of interleaved u8 I/Q into `buf` (length a
    /// multiple of 512). Returns bytes read (may be fewer). A stall is
    /// recovered once (clear halt + FIFO reset, counted in
    /// [`Device::stalls_recovered`]); NoDevice and other failures are errors.
    pub fn read_sync(&mut self, buf: &mut [u8]) -> Result<usize> {
        match self.regs.usb().bulk_in(BULK_ENDPOINT, buf, BULK_TIMEOUT) {
            Ok(n) => Ok(n),
            Err(UsbError::Pipe) => {
                self.regs
                    .usb()
                    .clear_halt(BULK_ENDPOINT)
                    .map_err(Error::usb("clear halt"))?;
                demod::reset_fifo(&mut self.regs)?;
                self.stalls_recovered += 1;
                self.regs
                    .usb()
                    .bulk_in(BULK_ENDPOINT, buf, BULK_TIMEOUT)
                    .map_err(Error::usb("bulk read"))
            }
            Err(e) => Err(Error::Usb {
                op: "bulk read",
                source: e,
            }),
        }
    }

    /// The bulk half of the dongle, for a streaming thread (see
    /// [`super::stream::DongleStream`], which is how to use it). Reset the
    /// FIFO ([`Device::reset_buffer`]) before running it.
    pub fn bulk_reader(
        &mut self,
        config: &crate::usb_async::StreamConfig,
    ) -> Result<Box<dyn usb::BulkReader>> {
        self.regs
            .usb()
            .bulk_reader(config)
            .map_err(Error::usb("start streaming"))
    }

    /// Read `buf.len()` EEPROM bytes from `offset`.
    pub fn read_eeprom(&mut self, offset: usize, buf: &mut [u8]) -> Result<()> {
        if offset + buf.len() > EEPROM_LEN {
            return Err(Error::EepromRange {
                offset,
                len: buf.len(),
            });
        }
        self.regs.i2c_write(EEPROM_ADDR, offset as u8, &[])?;
        for b in buf.iter_mut() {
            let mut one = [0u8];
            self.regs.i2c_read(EEPROM_ADDR, &mut one)?;
            *b = one[0];
        }
        Ok(())
    }

    /// Write `data` to the EEPROM at `offset`: only bytes that differ, 5 ms
    /// apart, then read everything back and compare.
    pub fn write_eeprom(&mut self, offset: usize, data: &[u8], _allow: EepromWrite) -> Result<()> {
        let mut current = vec![0u8; data.len()];
        self.read_eeprom(offset, &mut current)?;
        for (i, (&want, &have)) in data.iter().zip(&current).enumerate() {
            if want != have {
                self.regs
                    .i2c_write(EEPROM_ADDR, (offset + i) as u8, &[want])?;
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        self.read_eeprom(offset, &mut current)?;
        for (i, (&want, &got)) in data.iter().zip(&current).enumerate() {
            if want != got {
                return Err(Error::EepromVerify {
                    offset: (offset + i) as u8,
                    wrote: want,
                    read: got,
                });
            }
        }
        Ok(())
    }

    fn shutdown(&mut self) -> Result<()> {
        if !self.open {
            return Ok(());
        }
        self.open = false;
        let standby = self.with_repeater(|d| d.tuner.standby(&mut d.regs));
        let power = self.regs.sys_write(regs::DEMOD_CTL, 0x20);
        let release = self.regs.usb().release().map_err(Error::usb("release"));
        standby.and(power).and(release)
    }

    /// Tuner standby, demod power-down, release the interface.
    pub fn close(mut self) -> Result<()> {
        self.shutdown()
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::rtl::fake::Fault;
    use crate::rtl::trace::{SharedLog, TraceLine};

    fn fake(spec: &str) -> (Result<Device>, SharedLog) {
        let log = SharedLog::default();
        let cfg = FakeConfig::parse(spec).unwrap();
        let dev = Device::open(&Selector::Fake(cfg), Some(Box::new(log.clone())));
        (dev, log)
    }

    fn lines(log: &SharedLog) -> Vec<String> {
        log.text().lines().map(str::to_string).collect()
    }

    #[test]
    fn test_unsupported_tuners_refused() {
        for (spec, kind) in [
            ("e4000", TunerKind::E4000),
            ("fc0013", TunerKind::Fc0013),
            ("fc0012", TunerKind::Fc0012),
            ("fc2580", TunerKind::Fc2580),
        ] {
            let (dev, log) = fake(spec);
            match dev {
                Err(e @ Error::UnsupportedTuner(k)) => {
                    assert_eq!(k, kind);
                    assert!(e.to_string().starts_with("unsupported tuner"), "{e}");
                }
                Err(e) => panic!("{spec}: wrong error {e}"),
                Ok(_) => panic!("{spec}: opened"),
            }
            assert!(
                log.text().contains("# release 0"),
                "{spec}: interface not released"
            );
        }
        assert!(matches!(fake("none").0, Err(Error::NoTuner)));
        // FC2580/FC0012 are probed only after the GPIO4 reset pulse.
        let (_, log) = fake("fc2580");
        let t = log.text();
        let pulse = t.find("W sys 3001 <- 10").expect("GPIO4 high");
        assert!(pulse < t.find("R i2c ac").expect("FC2580 probe"));
    }

    #[test]
    fn test_first_write_failure_resets() {
        let (dev, log) = fake("r820t,fast,fault=firstwrite");
        let dev = dev.expect("open must recover through a USB reset");
        assert_eq!(dev.tuner_kind(), TunerKind::R820t);
        let l = lines(&log);
        let reset = l.iter().position(|x| x == "# reset").expect("reset");
        assert!(
            l[reset - 1].starts_with("# failed: W usb 2000 <- 09"),
            "{:?}",
            &l[..reset]
        );
        assert_eq!(l[reset + 1], "W usb 2000 <- 09");
    }

    #[test]
    fn test_invalid_settings_are_errors() {
        let mut dev = fake("r820t,fast").0.unwrap();
        assert!(matches!(
            dev.set_sample_rate(1_000),
            Err(Error::SampleRate(1_000))
        ));
        assert!(matches!(
            dev.set_sample_rate(3_200_001),
            Err(Error::SampleRate(_))
        ));
        dev.set_sample_rate(2_048_000).unwrap();
        assert!(matches!(
            dev.set_center_freq(10_000_000),
            Err(Error::Frequency(_))
        ));
        assert!(matches!(
            dev.set_center_freq(2_000_000_000),
            Err(Error::Frequency(_))
        ));
        assert_eq!(dev.center_freq(), None, "failed tune must not stick");
        assert!(matches!(dev.set_ppm(5000), Err(Error::Ppm(5000))));
        assert!(matches!(
            dev.set_direct_sampling(3),
            Err(Error::DirectSampling(3))
        ));
        dev.set_center_freq(100_000_000).unwrap();
        assert!(dev.pll_locked());
        assert_eq!(dev.center_freq(), Some(100_000_000));
    }

    #[test]
    fn test_pll_lock_state_exposed() {
        let mut dev = fake("r820t,fast,fault=nolock").0.unwrap();
        dev.set_sample_rate(2_400_000).unwrap();
        dev.set_center_freq(1_090_000_000).unwrap();
        assert!(!dev.pll_locked());
    }

    #[test]
    fn test_stall_recovered_and_short_reads() {
        let (dev, log) = fake("r820t,fast,fault=stall@1,fault=short");
        let mut dev = dev.unwrap();
        dev.set_sample_rate(2_400_000).unwrap();
        dev.set_test_mode(true).unwrap();
        dev.reset_buffer().unwrap();
        let mut buf = vec![0u8; 16384];
        assert_eq!(dev.read_sync(&mut buf).unwrap(), 8192, "short read");
        let n = dev.read_sync(&mut buf).unwrap();
        assert_eq!(n, 8192);
        assert_eq!(dev.stalls_recovered(), 1);
        let t = log.text();
        let stall = t.find("# bulk ep=81 failed").unwrap();
        let after = &t[stall..];
        assert!(
            after.find("# clear halt 81").unwrap() < after.find("W usb 2148 <- 10 02").unwrap()
        );
        assert!(after.contains("W usb 2148 <- 00 00"));
    }

    #[test]
    fn test_no_device_mid_stream_and_timeout() {
        let mut dev = fake("r820t,fast,fault=timeout@1,fault=nodevice@3")
            .0
            .unwrap();
        dev.set_sample_rate(2_400_000).unwrap();
        dev.reset_buffer().unwrap();
        let mut buf = vec![0u8; 4096];
        assert_eq!(dev.read_sync(&mut buf).unwrap(), 4096);
        assert_eq!(
            dev.read_sync(&mut buf).unwrap_err().usb_kind(),
            Some(UsbError::Timeout)
        );
        assert_eq!(dev.read_sync(&mut buf).unwrap(), 4096);
        let e = dev.read_sync(&mut buf).unwrap_err();
        assert_eq!(e.usb_kind(), Some(UsbError::NoDevice));
        assert!(e.to_string().contains("gone"), "{e}");
        // Closing a vanished device reports it instead of hanging or panicking.
        assert!(dev.close().is_err());
    }

    #[test]
    fn test_counter_stream_is_continuous() {
        let mut dev = fake("r820t,fast").0.unwrap();
        dev.set_sample_rate(2_400_000).unwrap();
        dev.set_test_mode(true).unwrap();
        dev.reset_buffer().unwrap();
        let mut buf = vec![0u8; 65536];
        let mut next: Option<u8> = None;
        for _ in 0..8 {
            let n = dev.read_sync(&mut buf).unwrap();
            for &b in &buf[..n] {
                if let Some(w) = next {
                    assert_eq!(b, w);
                }
                next = Some(b.wrapping_add(1));
            }
        }
    }

    #[test]
    fn test_bias_tee_and_modes() {
        let (dev, log) = fake("r820t,fast");
        let mut dev = dev.unwrap();
        log.clear();
        dev.set_bias_tee(true).unwrap();
        dev.set_agc_mode(true).unwrap();
        dev.set_test_mode(true).unwrap();
        dev.set_test_mode(false).unwrap();
        assert_eq!(
            log.text(),
            "R sys 3004 -> 00\nW sys 3004 <- 00\nR sys 3003 -> 00\nW sys 3003 <- 01\n\
             R sys 3001 -> 00\nW sys 3001 <- 01\n\
             W demod p0 19 <- 25\nR demod pa 01 -> 00\n\
             W demod p0 19 <- 03\nR demod pa 01 -> 00\n\
             W demod p0 19 <- 25\nR demod pa 01 -> 00\n"
        );
    }

    #[test]
    fn test_eeprom_read_and_verified_write() {
        let mut dev = fake("r820t,fast,serial=ADSB0001").0.unwrap();
        let mut e = [0u8; 64];
        dev.read_eeprom(0, &mut e).unwrap();
        assert_eq!(&e[..2], &[0x28, 0x32]);
        assert_eq!(&e[2..6], &[0xda, 0x0b, 0x38, 0x28], "VID/PID little-endian");
        let serial_at = 9 + 16 + 28;
        assert_eq!(e[serial_at], 18);
        assert_eq!(e[serial_at + 2], b'A');
        dev.write_eeprom(serial_at + 2, b"F", EepromWrite::Allowed)
            .unwrap();
        let mut one = [0u8];
        dev.read_eeprom(serial_at + 2, &mut one).unwrap();
        assert_eq!(one, [b'F']);
        assert!(matches!(
            dev.read_eeprom(250, &mut [0u8; 10]),
            Err(Error::EepromRange {
                offset: 250,
                len: 10
            })
        ));
    }

    #[test]
    fn test_direct_sampling_round_trip() {
        let (dev, log) = fake("r820t,fast");
        let mut dev = dev.unwrap();
        dev.set_sample_rate(2_048_000).unwrap();
        log.clear();
        dev.set_direct_sampling(2).unwrap();
        let t = log.text();
        assert!(t.contains("W i2c 34 @06 <- b1"), "tuner standby");
        assert!(t.contains("W demod p0 06 <- 90"), "Q input");
        dev.set_center_freq(7_100_000).unwrap();
        let want = crate::rtl::rtl2832u::if_bytes(7_100_000, 28.8e6);
        assert!(
            log.text()
                .contains(&format!("W demod p1 1b <- {:02x}", want[2]))
        );
        dev.set_direct_sampling(0).unwrap();
        assert!(log.text().contains("W demod p1 15 <- 01"));
        // Back on the tuner, 7.1 MHz is out of range for an R820T.
        assert!(dev.set_center_freq(7_100_000).is_err());
        dev.set_center_freq(100_000_000).unwrap();
    }

    /// Replay the I2C writes to `addr` in a trace into a register file.
    fn tuner_state(text: &str, addr: u8) -> [u8; 256] {
        let mut regs = [0u8; 256];
        for l in TraceLine::parse_all(text).unwrap() {
            if let TraceLine::I2c {
                dir: crate::rtl::trace::Dir::Write,
                addr: a,
                reg,
                data,
            } = l
            {
                if a == addr {
                    for (i, b) in data.iter().enumerate() {
                        regs[usize::from(reg) + i] = *b;
                    }
                }
            }
        }
        regs
    }

    #[test]
    fn test_blog_v4_paths() {
        let (dev, log) = fake("r828d,fast");
        let mut dev = dev.unwrap();
        assert_eq!(dev.tuner_kind(), TunerKind::R828d);
        assert_eq!(dev.board(), Board::BlogV4);
        dev.set_sample_rate(2_400_000).unwrap();
        // HF 7.1 MHz: upconverted by 28.8 MHz, tracking filter bypassed,
        // notch on, cable-2 input, GPIO5 low.
        log.clear();
        dev.set_center_freq(7_100_000).unwrap();
        let t = log.text();
        let regs = tuner_state(&t, 0x74);
        let lo = 7_100_000 + 28_800_000 + 1_815_000u64;
        let (mix, _) = r82xx::mixer_divider(lo).unwrap();
        let (nint, sdm) = r82xx::pll_nint_sdm(lo * u64::from(mix), 28_800_000);
        assert_eq!(regs[0x14], r82xx::nint_reg(nint));
        assert_eq!((regs[0x16], regs[0x15]), ((sdm >> 8) as u8, sdm as u8));
        assert_eq!(regs[0x1b], 0x00, "tracking filter bypass");
        assert_eq!(dev.tuner_registers()[0x1a] & 0xc3, 0x40);
        assert_eq!(dev.tuner_registers()[0x17] & 0x08, 0x08, "notch on");
        assert_eq!(dev.tuner_registers()[0x06] & 0x08, 0x08, "cable-2");
        assert_eq!(
            dev.tuner_registers()[0x05] & 0x60,
            0x20,
            "cable-1 off, air-in off"
        );
        assert!(
            t.ends_with(
                "R sys 3004 -> 00\nW sys 3004 <- 00\nR sys 3003 -> 00\nW sys 3003 <- 20\n\
             R sys 3001 -> 00\nW sys 3001 <- 00\nW demod p1 01 <- 10\nR demod pa 01 -> 00\n"
            ),
            "{t}"
        );
        // Same band again: no triplexer/GPIO writes.
        log.clear();
        dev.set_center_freq(14_200_000).unwrap();
        assert!(!log.text().contains("sys 3001"));
        // VHF 100 MHz (FM broadcast): notch off, cable-1, GPIO5 high, no upconversion.
        log.clear();
        dev.set_center_freq(100_000_000).unwrap();
        let t = log.text();
        let (mix, _) = r82xx::mixer_divider(101_815_000).unwrap();
        assert_eq!(mix, 32);
        assert_eq!(dev.tuner_registers()[0x17] & 0x08, 0x00, "notch off");
        assert_eq!(dev.tuner_registers()[0x06] & 0x08, 0x00);
        assert_eq!(
            dev.tuner_registers()[0x05] & 0x60,
            0x60,
            "cable-1 on, air-in off"
        );
        assert!(t.contains("W sys 3001 <- 20"), "GPIO5 high: {t}");
        // UHF 1090 MHz: air input, notch on, GPIO5 stays high.
        dev.set_center_freq(1_090_000_000).unwrap();
        assert_eq!(dev.tuner_registers()[0x05] & 0x60, 0x00, "air-in on");
        assert_eq!(dev.tuner_registers()[0x17] & 0x08, 0x08);
    }

    #[test]
    fn test_plain_r828d_uses_16mhz_and_input_switch() {
        let mut dev = fake("r828d-plain,fast").0.unwrap();
        assert_eq!(dev.board(), Board::Generic);
        dev.set_sample_rate(2_400_000).unwrap();
        dev.set_center_freq(1_090_000_000).unwrap();
        let (nint, sdm) = r82xx::pll_nint_sdm((1_090_000_000 + 1_815_000) * 2, 16_000_000);
        assert_eq!(dev.tuner_registers()[0x14], r82xx::nint_reg(nint));
        assert_eq!(dev.tuner_registers()[0x15], sdm as u8);
        assert_eq!(
            dev.tuner_registers()[0x05] & 0x60,
            0x00,
            "air-in above 345 MHz"
        );
        dev.set_center_freq(144_000_000).unwrap();
        assert_eq!(
            dev.tuner_registers()[0x05] & 0x60,
            0x60,
            "cable-1 at or below 345 MHz"
        );
    }

    #[test]
    fn test_ppm_applies_to_clock_if_and_tuner() {
        let (dev, log) = fake("r820t,fast");
        let mut dev = dev.unwrap();
        dev.set_sample_rate(2_400_000).unwrap();
        dev.set_center_freq(1_090_000_000).unwrap();
        log.clear();
        dev.set_ppm(50).unwrap();
        let t = log.text();
        let l: Vec<&str> = t.lines().collect();
        assert_eq!(
            &l[..4],
            &[
                "W demod p1 3f <- ba",
                "R demod pa 01 -> 00",
                "W demod p1 3e <- 3c",
                "R demod pa 01 -> 00"
            ]
        );
        let x = demod::corrected_xtal(XTAL_HZ, 50);
        let b = demod::if_bytes(1_815_000, x);
        assert_ne!(b, demod::if_bytes(1_815_000, f64::from(XTAL_HZ)));
        for (addr, v) in [(0x19, b[0]), (0x1a, b[1]), (0x1b, b[2])] {
            assert!(
                t.contains(&format!("W demod p1 {addr:02x} <- {v:02x}")),
                "IF byte {addr:#x}"
            );
        }
        let (nint, sdm) = r82xx::pll_nint_sdm((1_090_000_000 + 1_815_000) * 2, 28_801_440);
        let regs = dev.tuner_registers();
        assert_eq!(regs[0x14], r82xx::nint_reg(nint));
        assert_eq!(((regs[0x16] as u16) << 8) | regs[0x15] as u16, sdm);
        assert_ne!(sdm, 0xe906, "the corrected reference changes the SDM");
        log.clear();
        dev.set_ppm(50).unwrap();
        assert_eq!(log.text(), "", "same ppm again is a no-op");
    }

    #[test]
    fn test_fault_kinds_parse_into_config() {
        let c = FakeConfig::parse("r820t,fault=nodevice@7").unwrap();
        assert_eq!(c.faults, vec![Fault::NoDevice(7)]);
    }
}
