//! A built-in emulator of an RTL2832U with an R820T or R828D (or another
//! tuner, for probe tests) behind the USB seam.
//!
//! It models what the driver relies on: demod pages and USB/SYS register
//! files; an I2C bridge with the tuner's register file (status bytes
//! bit-reversed on the wire, PLL lock bit, filter-calibration code), a
//! 256-byte EEPROM holding the string descriptors, and NAK (`Pipe`) for
//! absent addresses; the bulk endpoint, stalled while USB_EPA_CTL holds
//! the stall bit, streaming the chip's test-mode byte counter (or a `.cu8`
//! file) paced at the programmed sample rate, with bytes lost, as on the
//! real chip, when the reader falls behind by more than the FIFO holds.
//!
//! Faults can be injected: a stall (Pipe until `clear_halt`), a timeout,
//! NoDevice from a given bulk read on, a failing first control write (until
//! `reset`), short bulk reads, and a PLL that never locks.
//!
//! Spec syntax (`--fake-device`): `KIND[,OPTION]…` with KIND `r820t`,
//! `r828d` (an RTL-SDR Blog V4), `r828d-plain`, `e4000`, `fc0012`, `fc0013`,
//! `fc2580` or `none`, and options `file=PATH`, `loop`, `serial=TEXT`,
//! `fast` (no pacing), `sky=NAME` (stream what an [`Antenna`] made by
//! the caller for NAME receives, at the programmed rate and with the tuner
//! gain the driver wrote into the R82xx registers: LNA index in 0x05,
//! mixer index in 0x07, manual when 0x05 bit 4 is set, the tuner AGC
//! otherwise; the command line makes the demo sky's physical front end
//! for `airport`, `rural` and `mixed`), `speed=N` (a clock N times faster than real time:
//! data paced at N × the programmed rate, and a FIFO N times larger so
//! that it holds the same 53 ms of stream time), `fault=stall@N`, `fault=timeout@N`,
//! `fault=nodevice@N` (N = 0-based bulk read), `fault=firstwrite`,
//! `fault=short`, `fault=nolock`.
//!
//! [`SharedFake`] is the emulator as the driver opens it: one dongle shared
//! by the control path and a streaming thread ([`FakeBulkReader`]), like the
//! libusb handle of a real stick.

use super::r82xx::{Gain, gain_from_indices};
use super::usb::{BulkReader, UsbError, UsbStrings, UsbTransport};
use super::{Error, Result};
use crate::recording::Recording;
use crate::usb_async::{Flow, Sink, StopReason, StreamConfig, StreamError, StreamStats};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// What the emulated dongle's antenna receives: `cu8` samples at the
/// rate it was made for, at the tuner gain the driver programmed.
pub trait Antenna: Send {
    /// Write the next `buf.len() / 2` samples received at `gain`.
    fn fill(&mut self, gain: Gain, buf: &mut [u8]);
    /// The gain applied now, tenths of a dB, if it models one.
    fn gain_tenths(&self) -> Option<i32>;
}

/// Makes an [`Antenna`] for a sample rate (Hz); `None` if it cannot.
#[derive(Clone)]
pub struct AntennaMaker(pub Arc<dyn Fn(f64) -> Option<Box<dyn Antenna>> + Send + Sync>);

impl std::fmt::Debug for AntennaMaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AntennaMaker")
    }
}

/// Makers compare equal when they are the same one.
impl PartialEq for AntennaMaker {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for AntennaMaker {}

/// The tuner chip (and board) the emulator presents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FakeTuner {
    /// R820T at I2C 0x34, strings "Realtek" / "RTL2838UHIDIR" (an RTL-SDR Blog V3 alike).
    R820t,
    /// R828D at 0x74 with strings "RTLSDRBlog" / "Blog V4".
    R828dBlogV4,
    /// R828D at 0x74 with generic strings (e.g. a DVB-T2 stick, 16 MHz tuner crystal).
    R828dPlain,
    /// Elonics E4000 at 0xc8 (reg 0x02 = 0x40).
    E4000,
    /// Fitipower FC0012 at 0xc6 (reg 0x00 = 0xa1).
    Fc0012,
    /// Fitipower FC0013 at 0xc6 (reg 0x00 = 0xa3).
    Fc0013,
    /// FCI FC2580 at 0xac (reg 0x01 = 0x56).
    Fc2580,
    /// No tuner on the I2C bus.
    None,
}

/// An injectable fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Bulk read number N (0-based) stalls; reads fail with Pipe until `clear_halt`.
    Stall(u64),
    /// Bulk read number N fails with Timeout.
    Timeout(u64),
    /// From bulk read number N on, every operation fails with NoDevice.
    NoDevice(u64),
    /// The first control write fails with Pipe; `reset` clears it.
    FirstWrite,
    /// Every bulk read returns half of what was asked (a multiple of 512).
    ShortReads,
    /// The tuner PLL never reports lock.
    NoLock,
}

/// Emulator configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeConfig {
    /// Tuner and board.
    pub tuner: FakeTuner,
    /// Bulk data from this `.cu8` file instead of the counter / mid-scale.
    pub file: Option<PathBuf>,
    /// Rewind the file at its end instead of reporting NoDevice.
    pub looped: bool,
    /// Serial-number string.
    pub serial: String,
    /// Pace bulk data at the programmed sample rate (default true).
    pub paced: bool,
    /// Clock speed-up of the pacing (1 = real time; N: N × the rate, N × the FIFO).
    pub speed: u32,
    /// Stream what this antenna receives instead of the counter /
    /// mid-scale: the `sky=` name, and the maker the caller attached.
    pub sky: Option<(String, Option<AntennaMaker>)>,
    /// Injected faults.
    pub faults: Vec<Fault>,
}

impl Default for FakeConfig {
    fn default() -> Self {
        FakeConfig {
            tuner: FakeTuner::R820t,
            file: None,
            looped: false,
            serial: "00000001".to_string(),
            paced: true,
            speed: 1,
            sky: None,
            faults: Vec::new(),
        }
    }
}

impl FakeConfig {
    /// Parse a `--fake-device` spec (syntax in the module docs).
    pub fn parse(spec: &str) -> Result<FakeConfig> {
        let bad = |why: String| Error::FakeSpec(why);
        let mut parts = spec.split(',');
        let tuner = match parts.next().unwrap_or("") {
            "r820t" => FakeTuner::R820t,
            "r828d" => FakeTuner::R828dBlogV4,
            "r828d-plain" => FakeTuner::R828dPlain,
            "e4000" => FakeTuner::E4000,
            "fc0012" => FakeTuner::Fc0012,
            "fc0013" => FakeTuner::Fc0013,
            "fc2580" => FakeTuner::Fc2580,
            "none" => FakeTuner::None,
            other => {
                return Err(bad(format!(
                    "unknown tuner {other:?} (use r820t, r828d, r828d-plain, e4000, fc0012, fc0013, fc2580 or none)"
                )));
            }
        };
        let mut cfg = FakeConfig {
            tuner,
            ..FakeConfig::default()
        };
        for opt in parts {
            let (key, value) = opt.split_once('=').unwrap_or((opt, ""));
            match key {
                "file" if !value.is_empty() => cfg.file = Some(PathBuf::from(value)),
                "serial" if !value.is_empty() => cfg.serial = value.to_string(),
                "loop" if value.is_empty() => cfg.looped = true,
                "fast" if value.is_empty() => cfg.paced = false,
                "sky" if !value.is_empty() => cfg.sky = Some((value.to_string(), None)),
                "speed" => {
                    cfg.speed = value
                        .parse()
                        .ok()
                        .filter(|n| (1..=1000).contains(n))
                        .ok_or_else(|| bad(format!("speed={value:?}: use 1 to 1000")))?;
                }
                "fault" => cfg.faults.push(parse_fault(value).ok_or_else(|| {
                    bad(format!(
                        "unknown fault {value:?} (use stall@N, timeout@N, nodevice@N, firstwrite, short or nolock)"
                    ))
                })?),
                _ => return Err(bad(format!("unknown option {opt:?}"))),
            }
        }
        Ok(cfg)
    }
}

fn parse_fault(s: &str) -> Option<Fault> {
    let at = |p: &str| s.strip_prefix(p).and_then(|n| n.parse::<u64>().ok());
    match s {
        "firstwrite" => Some(Fault::FirstWrite),
        "short" => Some(Fault::ShortReads),
        "nolock" => Some(Fault::NoLock),
        _ => at("stall@")
            .map(Fault::Stall)
            .or_else(|| at("timeout@").map(Fault::Timeout))
            .or_else(|| at("nodevice@").map(Fault::NoDevice)),
    }
}

/// How far (bytes) the emulated stream may run ahead of the reader before
/// data is lost: the chip's FIFO plus the host's buffering, an emulator
/// choice (256 KiB, about 53 ms at 2.4 MS/s). A streaming reader
/// ([`FakeBulkReader`]) adds its transfers in flight (15 × 256 KiB by
/// default), as libusb's queue of submitted transfers does on a real stick.
pub const FIFO_BYTES: u64 = 256 * 1024;

/// Build the 256-byte EEPROM image: magic, VID/PID, flags, three string descriptors.
pub fn eeprom_image(manufacturer: &str, product: &str, serial: &str) -> [u8; 256] {
    let mut e = [0xffu8; 256];
    e[..9].copy_from_slice(&[0x28, 0x32, 0xda, 0x0b, 0x38, 0x28, 0xa5, 0x16, 0x02]);
    let mut pos = 9;
    for s in [manufacturer, product, serial] {
        let len = 2 + 2 * s.len();
        e[pos] = len as u8;
        e[pos + 1] = 0x03;
        for (i, c) in s.bytes().enumerate() {
            e[pos + 2 + 2 * i] = c;
            e[pos + 3 + 2 * i] = 0;
        }
        pos += len;
    }
    e[78] = 0;
    e
}

/// The emulated dongle. Implements [`UsbTransport`].
pub struct FakeRtl {
    cfg: FakeConfig,
    strings: UsbStrings,
    demod: Vec<[u8; 256]>,
    blocks: HashMap<(u8, u16), u8>,
    i2c_regs: HashMap<u8, [u8; 256]>,
    i2c_ptr: [u8; 256],
    eeprom: [u8; 256],
    tuner_addr: Option<u8>,
    file: Option<Recording>,
    file_error: Option<String>,
    counter: u8,
    bulk_reads: u64,
    halted: bool,
    gone: bool,
    first_write_pending: bool,
    stream_start: Option<Instant>,
    stream_bytes: u64,
    /// Bytes the emulated FIFO dropped because the reader fell behind.
    pub dropped_bytes: u64,
    /// Number of `reset` calls.
    pub resets: u32,
    /// Host-side buffering of the streaming reader (transfers in flight ×
    /// their length, bytes): how much further the stream may run ahead of
    /// a late reader before the FIFO loses data, as with libusb's queue.
    in_flight_bytes: u64,
    /// The antenna being streamed and the rate it was made for (made at
    /// the first read, again when the programmed rate changes).
    antenna: Option<(Box<dyn Antenna>, f64)>,
}

impl FakeRtl {
    /// A powered-up dongle.
    pub fn new(cfg: FakeConfig) -> Self {
        let (manufacturer, product) = match cfg.tuner {
            FakeTuner::R828dBlogV4 => ("RTLSDRBlog", "Blog V4"),
            _ => ("Realtek", "RTL2838UHIDIR"),
        };
        let mut i2c_regs = HashMap::new();
        let mut reg = |addr: u8, r: usize, v: u8| {
            i2c_regs.entry(addr).or_insert([0u8; 256])[r] = v;
        };
        let tuner_addr = match cfg.tuner {
            FakeTuner::R820t => Some(0x34),
            FakeTuner::R828dBlogV4 | FakeTuner::R828dPlain => Some(0x74),
            FakeTuner::E4000 => {
                reg(0xc8, 0x02, 0x40);
                None
            }
            FakeTuner::Fc0012 => {
                reg(0xc6, 0x00, 0xa1);
                None
            }
            FakeTuner::Fc0013 => {
                reg(0xc6, 0x00, 0xa3);
                None
            }
            FakeTuner::Fc2580 => {
                reg(0xac, 0x01, 0x56);
                None
            }
            FakeTuner::None => None,
        };
        if let Some(a) = tuner_addr {
            reg(a, 0, 0x69);
        }
        let first_write_pending = cfg.faults.contains(&Fault::FirstWrite);
        let (file, file_error) = match &cfg.file {
            Some(p) => match Recording::open(p, cfg.looped) {
                Ok(f) => (Some(f), None),
                Err(e) => (None, Some(format!("{}: {e}", p.display()))),
            },
            None => (None, None),
        };
        FakeRtl {
            strings: UsbStrings {
                manufacturer: Some(manufacturer.to_string()),
                product: Some(product.to_string()),
                serial: Some(cfg.serial.clone()),
            },
            eeprom: eeprom_image(manufacturer, product, &cfg.serial),
            cfg,
            demod: vec![[0u8; 256]; 16],
            blocks: HashMap::new(),
            i2c_regs,
            i2c_ptr: [0; 256],
            tuner_addr,
            file,
            file_error,
            counter: 0,
            bulk_reads: 0,
            halted: false,
            gone: false,
            first_write_pending,
            stream_start: None,
            stream_bytes: 0,
            dropped_bytes: 0,
            resets: 0,
            in_flight_bytes: 0,
            antenna: None,
        }
    }

    /// The tuner gain the driver programmed: manual (LNA 0x05 bit 4 set)
    /// from the LNA and mixer indices, else the tuner's AGC.
    pub fn tuner_gain(&self) -> Gain {
        let Some(regs) = self.tuner_addr.and_then(|a| self.i2c_regs.get(&a)) else {
            return Gain::Auto;
        };
        if regs[0x05] & 0x10 == 0 {
            return Gain::Auto;
        }
        Gain::Manual(gain_from_indices(regs[0x05] & 0x0f, regs[0x07] & 0x0f))
    }

    /// The antenna's tuner gain now, tenths of a dB (`None` without an
    /// antenna or before the first read).
    pub fn antenna_gain(&self) -> Option<i32> {
        self.antenna.as_ref().and_then(|(a, _)| a.gain_tenths())
    }

    /// Why the configured `.cu8` file could not be opened, if it could not.
    pub fn file_error(&self) -> Option<&str> {
        self.file_error.as_deref()
    }

    /// A SYS/USB block register (block, address).
    pub fn block_reg(&self, block: u8, addr: u16) -> u8 {
        self.blocks.get(&(block, addr)).copied().unwrap_or(0)
    }

    fn has_fault(&self, f: Fault) -> bool {
        self.cfg.faults.contains(&f)
    }

    /// Sample rate the resampler is programmed for, Hz (0 if not set).
    pub fn sample_rate(&self) -> f64 {
        let p = &self.demod[1];
        let ratio = u32::from_be_bytes([p[0x9f], p[0xa0], p[0xa1], p[0xa2]]);
        if ratio == 0 {
            return 0.0;
        }
        28.8e6 * f64::from(1u32 << 22) / f64::from(ratio)
    }

    fn test_mode(&self) -> bool {
        self.demod[0][0x19] == 0x03
    }

    /// Tuner bytes as they appear on the wire from register 0: status bytes
    /// 0–4 as the chip sends them, registers 5+ bit-reversed like all reads.
    fn tuner_wire(&self, addr: u8, i: usize) -> u8 {
        let regs = &self.i2c_regs[&addr];
        let locked = !self.has_fault(Fault::NoLock);
        match i {
            0 => regs[0],
            2 => (if locked { 0x40u8 } else { 0 }).reverse_bits(),
            // VCO fine tune 2 (bits 5:4), filter calibration code 8.
            4 => 0x28u8.reverse_bits(),
            1 | 3 => 0,
            _ => regs[i].reverse_bits(),
        }
    }

    fn fill(&mut self, buf: &mut [u8]) -> std::result::Result<usize, UsbError> {
        if let Some(f) = &mut self.file {
            let mut n = 0;
            while n < buf.len() {
                // Whole I/Q pairs, again from the start when looping.
                match f.read(&mut buf[n..]) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(_) => return Err(UsbError::Other("cannot read the .cu8 file")),
                }
            }
            if n == 0 {
                // End of the recording: the device "goes away", like fakeusb.c.
                self.gone = true;
                return Err(UsbError::NoDevice);
            }
            return Ok(n);
        }
        if self.cfg.file.is_some() {
            return Err(UsbError::NoDevice);
        }
        if let (Some((_, maker)), false) = (&self.cfg.sky, self.test_mode()) {
            let gain = self.tuner_gain();
            let rate = match self.sample_rate() {
                r if r > 0.0 => r,
                _ => 2.4e6,
            };
            if self.antenna.as_ref().is_none_or(|(_, r)| *r != rate) {
                let maker = maker
                    .as_ref()
                    .ok_or(UsbError::Other("sky= without an antenna attached"))?;
                let antenna = (maker.0)(rate)
                    .ok_or(UsbError::Other("the antenna refuses this sample rate"))?;
                self.antenna = Some((antenna, rate));
            }
            if let Some((a, _)) = &mut self.antenna {
                a.fill(gain, buf);
            }
            return Ok(buf.len() & !1);
        }
        if self.test_mode() {
            for b in buf.iter_mut() {
                *b = self.counter;
                self.counter = self.counter.wrapping_add(1);
            }
        } else {
            // Mid-scale, no signal.
            for (i, b) in buf.iter_mut().enumerate() {
                *b = if i % 2 == 0 { 128 } else { 127 };
            }
        }
        Ok(buf.len())
    }

    /// Account for `n` more bytes of stream at the programmed rate and
    /// return how long to wait until they are due; if the reader fell more
    /// than a FIFO behind, drop the excess first.
    fn pace(&mut self, n: usize) -> Duration {
        let rate = self.sample_rate();
        if !self.cfg.paced || rate <= 0.0 {
            return Duration::ZERO;
        }
        let speed = u64::from(self.cfg.speed.max(1));
        let bytes_per_s = 2.0 * rate * speed as f64;
        let fifo = (FIFO_BYTES + self.in_flight_bytes) * speed;
        let start = *self.stream_start.get_or_insert_with(Instant::now);
        let produced = (start.elapsed().as_secs_f64() * bytes_per_s) as u64;
        if produced > self.stream_bytes + fifo {
            let lost = produced - self.stream_bytes - fifo;
            self.dropped_bytes += lost;
            self.stream_bytes += lost;
            if self.test_mode() && self.file.is_none() {
                self.counter = self.counter.wrapping_add(lost as u8);
            } else if let Some(f) = &mut self.file {
                let _ = f.skip(lost);
            }
        }
        let due = Duration::from_secs_f64((self.stream_bytes + n as u64) as f64 / bytes_per_s);
        self.stream_bytes += n as u64;
        due.saturating_sub(start.elapsed())
    }

    /// The first half of a bulk read of `len` bytes: fault checks and
    /// pacing. Returns the bytes to fill and how long until they are due.
    fn bulk_begin(&mut self, len: usize) -> std::result::Result<(usize, Duration), UsbError> {
        let n = self.bulk_reads;
        self.bulk_reads += 1;
        if self.has_fault(Fault::NoDevice(n)) {
            self.gone = true;
        }
        self.check_gone()?;
        if self.has_fault(Fault::Stall(n)) {
            self.halted = true;
        }
        if self.halted {
            return Err(UsbError::Pipe);
        }
        if self.has_fault(Fault::Timeout(n)) {
            return Err(UsbError::Timeout);
        }
        let want = if self.has_fault(Fault::ShortReads) {
            (len / 2 / 512 * 512).max(512).min(len)
        } else {
            len
        };
        Ok((want, self.pace(want)))
    }

    fn check_gone(&self) -> std::result::Result<(), UsbError> {
        if self.gone {
            Err(UsbError::NoDevice)
        } else {
            Ok(())
        }
    }
}

impl UsbTransport for FakeRtl {
    fn control_in(
        &mut self,
        _rt: u8,
        _req: u8,
        value: u16,
        index: u16,
        buf: &mut [u8],
        _t: Duration,
    ) -> std::result::Result<usize, UsbError> {
        self.check_gone()?;
        if value & 0xff == 0x20 && index & 0xff00 == 0 {
            let (page, addr) = (usize::from(index & 0x0f), (value >> 8) as u8);
            for (i, b) in buf.iter_mut().enumerate() {
                *b = self.demod[page][usize::from(addr.wrapping_add(i as u8))];
            }
            return Ok(buf.len());
        }
        let block = (index >> 8) as u8;
        if block == 6 {
            let a = value as u8;
            if a == 0xa0 {
                for b in buf.iter_mut() {
                    *b = self.eeprom[usize::from(self.i2c_ptr[0xa0])];
                    self.i2c_ptr[0xa0] = self.i2c_ptr[0xa0].wrapping_add(1);
                }
                return Ok(buf.len());
            }
            if Some(a) == self.tuner_addr {
                // R82xx reads always start at register 0.
                for (i, b) in buf.iter_mut().enumerate() {
                    *b = self.tuner_wire(a, i);
                }
                return Ok(buf.len());
            }
            let Some(regs) = self.i2c_regs.get(&a) else {
                return Err(UsbError::Pipe);
            };
            let ptr = self.i2c_ptr[usize::from(a)];
            for (i, b) in buf.iter_mut().enumerate() {
                *b = regs[usize::from(ptr.wrapping_add(i as u8))];
            }
            return Ok(buf.len());
        }
        for (i, b) in buf.iter_mut().enumerate() {
            *b = self.block_reg(block, value.wrapping_add(i as u16));
        }
        Ok(buf.len())
    }

    fn control_out(
        &mut self,
        _rt: u8,
        _req: u8,
        value: u16,
        index: u16,
        data: &[u8],
        _t: Duration,
    ) -> std::result::Result<usize, UsbError> {
        self.check_gone()?;
        if self.first_write_pending {
            return Err(UsbError::Pipe);
        }
        if value & 0xff == 0x20 && index & 0xff00 == 0 {
            let (page, addr) = (usize::from(index & 0x0f), (value >> 8) as u8);
            for (i, b) in data.iter().enumerate() {
                self.demod[page][usize::from(addr.wrapping_add(i as u8))] = *b;
            }
            // A new resampler ratio (page 1, 0x9f-0xa2) is a new byte rate:
            // restart the pacing clock so the change neither floods nor
            // starves a running stream.
            let end = usize::from(addr) + data.len();
            if page == 1 && usize::from(addr) <= 0xa2 && end > 0x9f {
                self.stream_start = None;
                self.stream_bytes = 0;
            }
            return Ok(data.len());
        }
        let block = (index >> 8) as u8;
        if block == 6 {
            let a = value as u8;
            let Some(&reg) = data.first() else {
                return Err(UsbError::Pipe);
            };
            let present = a == 0xa0 || self.i2c_regs.contains_key(&a);
            if !present {
                return Err(UsbError::Pipe);
            }
            self.i2c_ptr[usize::from(a)] = reg;
            for (i, b) in data[1..].iter().enumerate() {
                let r = usize::from(reg.wrapping_add(i as u8));
                if a == 0xa0 {
                    self.eeprom[r] = *b;
                } else if r >= 5 {
                    if let Some(regs) = self.i2c_regs.get_mut(&a) {
                        regs[r] = *b;
                    }
                }
            }
            if a == 0xa0 {
                self.i2c_ptr[0xa0] = reg.wrapping_add((data.len() - 1) as u8);
            }
            return Ok(data.len());
        }
        for (i, b) in data.iter().enumerate() {
            self.blocks
                .insert((block, value.wrapping_add(i as u16)), *b);
        }
        if block == 1 && value == super::regs::USB_EPA_CTL {
            // Wire byte 0 bit 4 (register bit 12): endpoint stall + FIFO reset.
            let stall = data.first().is_some_and(|b| b & 0x10 != 0);
            if !stall {
                self.stream_start = None;
                self.stream_bytes = 0;
            }
            self.halted = stall;
        }
        Ok(data.len())
    }

    fn bulk_in(
        &mut self,
        _ep: u8,
        buf: &mut [u8],
        _t: Duration,
    ) -> std::result::Result<usize, UsbError> {
        let (want, wait) = self.bulk_begin(buf.len())?;
        std::thread::sleep(wait);
        self.fill(&mut buf[..want])
    }

    fn clear_halt(&mut self, _ep: u8) -> std::result::Result<(), UsbError> {
        self.check_gone()?;
        self.halted = false;
        Ok(())
    }

    fn reset(&mut self) -> std::result::Result<(), UsbError> {
        self.check_gone()?;
        self.resets += 1;
        self.first_write_pending = false;
        Ok(())
    }

    fn strings(&mut self) -> std::result::Result<UsbStrings, UsbError> {
        self.check_gone()?;
        Ok(self.strings.clone())
    }

    fn claim(&mut self) -> std::result::Result<(), UsbError> {
        self.check_gone()
    }

    fn release(&mut self) -> std::result::Result<(), UsbError> {
        self.check_gone()
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_parse_spec() {
        let c = FakeConfig::parse("r828d,file=/tmp/x.cu8,fault=stall@3,fault=short,fast,serial=42")
            .unwrap();
        assert_eq!(c.tuner, FakeTuner::R828dBlogV4);
        assert_eq!(c.file, Some(PathBuf::from("/tmp/x.cu8")));
        assert_eq!(c.faults, vec![Fault::Stall(3), Fault::ShortReads]);
        assert!(!c.paced);
        assert_eq!(c.serial, "42");
        assert_eq!(FakeConfig::parse("r820t").unwrap(), FakeConfig::default());
        for bad in [
            "",
            "r999",
            "r820t,fault=melt",
            "r820t,file=",
            "r820t,fault=stall@x",
            "r820t,wat",
        ] {
            assert!(FakeConfig::parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn test_eeprom_image() {
        let e = eeprom_image("Realtek", "RTL2838UHIDIR", "00000001");
        assert_eq!(
            &e[..9],
            &[0x28, 0x32, 0xda, 0x0b, 0x38, 0x28, 0xa5, 0x16, 0x02]
        );
        assert_eq!(&e[9..13], &[16, 3, b'R', 0]);
        assert_eq!(e[9 + 16], 2 + 2 * 13);
    }

    const T: Duration = Duration::from_millis(10);

    /// Program the resampler for `ratio` and release the FIFO, as the driver does.
    fn start(f: &mut FakeRtl, ratio: u32, test_mode: bool) {
        let r = ratio.to_be_bytes();
        f.control_out(0x40, 0, 0x9f20, 0x0011, &r[..2], T).unwrap();
        f.control_out(0x40, 0, 0xa120, 0x0011, &r[2..], T).unwrap();
        if test_mode {
            f.control_out(0x40, 0, 0x1920, 0x0010, &[0x03], T).unwrap();
        }
        f.control_out(0x40, 0, 0x2148, 0x0110, &[0x10, 0x02], T)
            .unwrap();
        f.control_out(0x40, 0, 0x2148, 0x0110, &[0x00, 0x00], T)
            .unwrap();
    }

    #[test]
    fn test_paced_counter_and_slow_consumer_drops() {
        let mut f = FakeRtl::new(FakeConfig::default());
        start(&mut f, 0x0300_0000, true);
        assert!((f.sample_rate() - 2.4e6).abs() < 1e-6);
        let mut buf = vec![0u8; 16384];
        let t0 = Instant::now();
        for _ in 0..8 {
            assert_eq!(f.bulk_in(0x81, &mut buf, T), Ok(16384));
        }
        // 8 × 16 KiB at 4.8 MB/s take about 27 ms.
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        assert!((20.0..60.0).contains(&ms), "pacing: {ms} ms");
        assert_eq!(f.dropped_bytes, 0);
        let last = buf[16383];
        // A consumer that stalls 120 ms (576 KB at 2.4 MS/s) loses the excess.
        std::thread::sleep(Duration::from_millis(120));
        f.bulk_in(0x81, &mut buf, T).unwrap();
        assert!(f.dropped_bytes > 200_000, "dropped {}", f.dropped_bytes);
        let gap = buf[0].wrapping_sub(last.wrapping_add(1));
        assert_eq!(
            u64::from(gap),
            f.dropped_bytes % 256,
            "counter jumps by the loss"
        );
    }

    #[test]
    fn test_file_source_byte_exact_then_unplugged() {
        let path = std::env::temp_dir().join(format!("airwaves-fake-{}.cu8", std::process::id()));
        let data: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let spec = format!("r820t,fast,file={}", path.display());
        let mut f = FakeRtl::new(FakeConfig::parse(&spec).unwrap());
        start(&mut f, 0x0300_0000, false);
        let mut got = Vec::new();
        let mut buf = [0u8; 1024];
        loop {
            match f.bulk_in(0x81, &mut buf, T) {
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) => {
                    assert_eq!(e, UsbError::NoDevice);
                    break;
                }
            }
        }
        assert_eq!(got, data);
        assert_eq!(
            f.strings(),
            Err(UsbError::NoDevice),
            "device is gone after the file"
        );
        let mut looped = FakeRtl::new(FakeConfig::parse(&format!("{spec},loop")).unwrap());
        start(&mut looped, 0x0300_0000, false);
        let mut big = vec![0u8; 4096];
        assert_eq!(looped.bulk_in(0x81, &mut big, T), Ok(4096));
        assert_eq!(&big[3000..4096], &data[..1096]);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn test_looped_odd_file_keeps_i_and_q() {
        // 7 bytes: three I/Q pairs and a stray byte, left out of every pass.
        let path = std::env::temp_dir().join(format!("fake-odd-{}.cu8", std::process::id()));
        std::fs::write(&path, [1u8, 2, 3, 4, 5, 6, 7]).unwrap();
        let spec = format!("r820t,file={},loop,fast", path.display());
        let mut f = FakeRtl::new(FakeConfig::parse(&spec).unwrap());
        start(&mut f, 0x0300_0000, false);
        let mut got = Vec::new();
        let mut buf = [0u8; 512];
        while got.len() < 4096 {
            let n = f.bulk_in(0x81, &mut buf, T).unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        std::fs::remove_file(&path).unwrap();
        for (k, pair) in got.chunks_exact(2).enumerate() {
            let want = [1 + 2 * (k % 3) as u8, 2 + 2 * (k % 3) as u8];
            assert_eq!(pair, want, "pair {k}");
        }
    }

    #[test]
    fn test_bulk_stall_until_clear_halt() {
        let mut f = FakeRtl::new(FakeConfig {
            paced: false,
            faults: vec![Fault::Stall(1)],
            ..FakeConfig::default()
        });
        let t = Duration::from_millis(10);
        let mut buf = [0u8; 512];
        // Not yet unstalled by a FIFO reset: Pipe.
        f.control_out(0x40, 0, 0x2148, 0x0110, &[0x10, 0x02], t)
            .unwrap();
        assert_eq!(f.bulk_in(0x81, &mut buf, t), Err(UsbError::Pipe));
        f.control_out(0x40, 0, 0x2148, 0x0110, &[0x00, 0x00], t)
            .unwrap();
        assert_eq!(
            f.bulk_in(0x81, &mut buf, t),
            Err(UsbError::Pipe),
            "read 1 stalls"
        );
        assert_eq!(
            f.bulk_in(0x81, &mut buf, t),
            Err(UsbError::Pipe),
            "until clear_halt"
        );
        f.clear_halt(0x81).unwrap();
        assert_eq!(f.bulk_in(0x81, &mut buf, t), Ok(512));
    }
}

/// The emulator as one shared dongle: the control path (this
/// [`UsbTransport`]) and a streaming thread ([`FakeBulkReader`]) both reach
/// the same [`FakeRtl`], the way both halves of a real stick share one
/// libusb handle. Clones share the dongle.
#[derive(Clone)]
pub struct SharedFake {
    inner: Arc<Mutex<FakeRtl>>,
}

impl SharedFake {
    /// Share `fake`.
    pub fn new(fake: FakeRtl) -> Self {
        SharedFake {
            inner: Arc::new(Mutex::new(fake)),
        }
    }

    /// Lock the dongle (a panic elsewhere does not make it unusable).
    pub fn lock(&self) -> MutexGuard<'_, FakeRtl> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl UsbTransport for SharedFake {
    fn control_in(
        &mut self,
        rt: u8,
        req: u8,
        value: u16,
        index: u16,
        buf: &mut [u8],
        t: Duration,
    ) -> std::result::Result<usize, UsbError> {
        self.lock().control_in(rt, req, value, index, buf, t)
    }
    fn control_out(
        &mut self,
        rt: u8,
        req: u8,
        value: u16,
        index: u16,
        data: &[u8],
        t: Duration,
    ) -> std::result::Result<usize, UsbError> {
        self.lock().control_out(rt, req, value, index, data, t)
    }
    /// Paced like the real endpoint; the lock is not held while waiting.
    fn bulk_in(
        &mut self,
        _ep: u8,
        buf: &mut [u8],
        _t: Duration,
    ) -> std::result::Result<usize, UsbError> {
        let (want, wait) = self.lock().bulk_begin(buf.len())?;
        std::thread::sleep(wait);
        self.lock().fill(&mut buf[..want])
    }
    fn clear_halt(&mut self, ep: u8) -> std::result::Result<(), UsbError> {
        self.lock().clear_halt(ep)
    }
    fn reset(&mut self) -> std::result::Result<(), UsbError> {
        self.lock().reset()
    }
    fn strings(&mut self) -> std::result::Result<UsbStrings, UsbError> {
        self.lock().strings()
    }
    fn claim(&mut self) -> std::result::Result<(), UsbError> {
        self.lock().claim()
    }
    fn release(&mut self) -> std::result::Result<(), UsbError> {
        self.lock().release()
    }
    fn bulk_reader(
        &mut self,
        config: &StreamConfig,
    ) -> std::result::Result<Box<dyn BulkReader>, UsbError> {
        config
            .validate()
            .map_err(|_| UsbError::Other("invalid stream configuration"))?;
        self.lock().in_flight_bytes = (config.transfers * config.transfer_len) as u64;
        Ok(Box::new(FakeBulkReader {
            fake: self.clone(),
            buf: vec![0u8; config.transfer_len].into_boxed_slice(),
            stats: StreamStats::default(),
        }))
    }
}

/// Longest single sleep of [`FakeBulkReader`] (bounds how late a stop is seen).
const STOP_SLICE: Duration = Duration::from_millis(50);

/// The emulator's bulk half: reads transfer-sized blocks from the shared
/// dongle at its paced rate and applies the async engine's policy: a stall
/// is cleared and the read repeated (a second stall in a row ends the
/// stream), a timeout is counted and the stream goes on, NoDevice ends it.
pub struct FakeBulkReader {
    fake: SharedFake,
    buf: Box<[u8]>,
    stats: StreamStats,
}

impl BulkReader for FakeBulkReader {
    fn run(
        &mut self,
        stop: &AtomicBool,
        sink: &mut dyn Sink,
    ) -> std::result::Result<StopReason, StreamError> {
        let mut stalled = false;
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(StopReason::Requested);
            }
            let begun = self.fake.lock().bulk_begin(self.buf.len());
            let (want, mut wait) = match begun {
                Ok(plan) => plan,
                Err(UsbError::Pipe) => {
                    self.stats.transfers += 1;
                    self.stats.stalls += 1;
                    if stalled {
                        return Err(StreamError::Stall);
                    }
                    stalled = true;
                    match self.fake.lock().clear_halt(0x81) {
                        Ok(()) => continue,
                        Err(UsbError::NoDevice) => return Err(StreamError::NoDevice),
                        Err(_) => return Err(StreamError::Stall),
                    }
                }
                Err(UsbError::Timeout) => {
                    self.stats.transfers += 1;
                    self.stats.timeouts += 1;
                    continue;
                }
                Err(UsbError::NoDevice) => return Err(StreamError::NoDevice),
                Err(_) => {
                    self.stats.errors += 1;
                    return Err(StreamError::Io { consecutive: 1 });
                }
            };
            while !wait.is_zero() {
                if stop.load(Ordering::Relaxed) {
                    return Ok(StopReason::Requested);
                }
                let nap = wait.min(STOP_SLICE);
                std::thread::sleep(nap);
                wait -= nap;
            }
            let filled = self.fake.lock().fill(&mut self.buf[..want]);
            let n = match filled {
                Ok(n) => n,
                Err(UsbError::NoDevice) => return Err(StreamError::NoDevice),
                Err(_) => {
                    self.stats.errors += 1;
                    return Err(StreamError::Io { consecutive: 1 });
                }
            };
            stalled = false;
            self.stats.transfers += 1;
            self.stats.bytes += n as u64;
            if n < self.buf.len() {
                self.stats.short_transfers += 1;
            }
            if n > 0 && sink.deliver(&self.buf[..n]) == Flow::Stop {
                return Ok(StopReason::Sink);
            }
        }
    }

    fn stats(&self) -> StreamStats {
        self.stats
    }
}
