//! The `devices`, `record` and `test-mode` commands.
//!
//! Reading is a simple synchronous bulk loop (one 256 KiB transfer at a
//! time); the asynchronous multi-transfer engine is a later step.

use super::device::{Device, Selector};
use super::fake::FakeConfig;
use super::r82xx;
use super::usb::{self, UsbError};
use super::{Error, TunerKind};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Bytes per bulk read: 16 × 16384, like rtl_sdr's default block.
const BLOCK: usize = 16 * 16384;
/// Consecutive bulk timeouts tolerated before giving up.
const MAX_TIMEOUTS: u32 = 5;

/// Options shared by every command that opens a dongle.
#[derive(clap::Args, Debug)]
pub struct DongleArgs {
    /// Dongle index (0, 1, …) or serial number.
    #[arg(short = 'd', long = "device", default_value = "0")]
    pub device: String,
    /// Use the built-in emulator instead of a dongle:
    /// `r820t|r828d[,file=PATH][,loop][,serial=S][,fast][,fault=stall@N|timeout@N|nodevice@N|firstwrite|short|nolock]`.
    #[arg(long, value_name = "SPEC")]
    pub fake_device: Option<String>,
    /// Write every USB control transfer to FILE (fakeusb.c's text format).
    #[arg(long, value_name = "FILE")]
    pub usb_trace: Option<PathBuf>,
}

impl DongleArgs {
    fn open(&self) -> Result<Device, Error> {
        let selector = match &self.fake_device {
            Some(spec) => Selector::Fake(FakeConfig::parse(spec)?),
            None => match self.device.parse::<usize>() {
                Ok(i) => Selector::Index(i),
                Err(_) => Selector::Serial(self.device.clone()),
            },
        };
        let trace: Option<Box<dyn Write + Send>> = match &self.usb_trace {
            Some(p) => Some(Box::new(std::io::BufWriter::new(
                std::fs::File::create(p).map_err(Error::Io)?,
            ))),
            None => None,
        };
        Device::open(&selector, trace)
    }
}

/// `airwaves devices` arguments.
#[derive(clap::Args, Debug)]
pub struct DevicesArgs {
    /// List the emulator described by SPEC instead of the USB bus.
    #[arg(long, value_name = "SPEC")]
    pub fake_device: Option<String>,
    /// Write the USB control transfers of the tuner probe to FILE.
    #[arg(long, value_name = "FILE")]
    pub usb_trace: Option<PathBuf>,
}

/// `airwaves record` arguments (like rtl_sdr).
#[derive(clap::Args, Debug)]
pub struct RecordArgs {
    /// Centre frequency, Hz (suffixes k, M, G allowed: 1090M).
    #[arg(short = 'f', long = "freq", value_parser = parse_hz)]
    pub freq: u64,
    /// Sample rate, Hz (225001–300000 or 900001–3200000).
    #[arg(short = 's', long = "rate", default_value = "2048000", value_parser = parse_hz)]
    pub rate: u64,
    /// Tuner gain in dB (nearest listed gain is used), or "auto".
    #[arg(short = 'g', long = "gain", default_value = "auto")]
    pub gain: String,
    /// Frequency correction, ppm.
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    pub ppm: i32,
    /// Turn the bias tee (antenna power, GPIO0) on.
    #[arg(long)]
    pub bias_tee: bool,
    /// Number of I/Q samples to record (0 = until stopped).
    #[arg(short = 'n', long = "samples", default_value_t = 0)]
    pub samples: u64,
    /// Dongle selection, emulator and trace.
    #[command(flatten)]
    pub dongle: DongleArgs,
    /// Output .cu8 file, or - for standard output.
    pub out: PathBuf,
}

/// `airwaves test-mode` arguments (like rtl_test).
#[derive(clap::Args, Debug)]
pub struct TestModeArgs {
    /// Sample rate, Hz.
    #[arg(short = 's', long = "rate", default_value = "2048000", value_parser = parse_hz)]
    pub rate: u64,
    /// How long to stream, seconds.
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Dongle selection, emulator and trace.
    #[command(flatten)]
    pub dongle: DongleArgs,
}

/// Parse "1090000000", "1090M", "2.4M", "100k" into Hz.
pub fn parse_hz(s: &str) -> Result<u64, String> {
    let (num, mult) = match s.chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1e3),
        Some('M') => (&s[..s.len() - 1], 1e6),
        Some('G') => (&s[..s.len() - 1], 1e9),
        _ => (s, 1.0),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a frequency (e.g. 1090000000 or 1090M)"))?;
    let hz = (v * mult).round();
    if !(0.0..=1e12).contains(&hz) {
        return Err(format!("{s:?} is out of range"));
    }
    Ok(hz as u64)
}

/// Parse a gain argument: "auto" or dB (e.g. 49.6) into tenths of a dB.
pub fn parse_gain(s: &str) -> Result<Option<i32>, String> {
    if s == "auto" {
        return Ok(None);
    }
    let db: f64 = s
        .parse()
        .map_err(|_| format!("gain {s:?}: use dB (e.g. 49.6) or auto"))?;
    if !(-10.0..=100.0).contains(&db) {
        return Err(format!("gain {s:?} dB out of range"));
    }
    Ok(Some((db * 10.0).round() as i32))
}

fn fail(cmd: &str, e: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("airwaves {cmd}: {e}");
    ExitCode::FAILURE
}

fn describe(dev: &Device) -> String {
    let s = dev.strings();
    format!(
        "serial {}, tuner {}{}, {} / {}",
        s.serial.as_deref().unwrap_or("-"),
        dev.tuner_kind(),
        if dev.board() == r82xx::Board::BlogV4 {
            " (RTL-SDR Blog V4)"
        } else {
            ""
        },
        s.manufacturer.as_deref().unwrap_or("-"),
        s.product.as_deref().unwrap_or("-"),
    )
}

/// `airwaves devices`: list dongles with index, serial, tuner and strings.
/// Exits 1 with "no RTL-SDR found" when there is none (as rtl_test does).
pub fn devices(args: &DevicesArgs) -> ExitCode {
    if let Some(spec) = &args.fake_device {
        let dongle = DongleArgs {
            device: "0".into(),
            fake_device: Some(spec.clone()),
            usb_trace: args.usb_trace.clone(),
        };
        return match dongle.open() {
            Ok(dev) => {
                println!("0: emulator, {}", describe(&dev));
                ExitCode::SUCCESS
            }
            Err(e) => fail("devices", &e),
        };
    }
    let list = match usb::rusb_impl::list() {
        Ok(l) => l,
        Err(e) => return fail("devices", &e),
    };
    if list.is_empty() {
        eprintln!("airwaves devices: no RTL-SDR found");
        return ExitCode::FAILURE;
    }
    for info in list {
        let head = format!(
            "{}: {:04x}:{:04x} {} (bus {} address {})",
            info.index,
            info.vendor_id,
            info.product_id,
            info.name,
            info.bus_address.0,
            info.bus_address.1
        );
        if let Some(e) = info.open_error {
            println!("{head}: cannot open: {e}");
            continue;
        }
        match Device::open(&Selector::Index(info.index), None) {
            Ok(dev) => println!("{head}: {}", describe(&dev)),
            Err(e) => println!(
                "{head}: serial {}, {} / {}: {e}",
                info.strings.serial.as_deref().unwrap_or("-"),
                info.strings.manufacturer.as_deref().unwrap_or("-"),
                info.strings.product.as_deref().unwrap_or("-"),
            ),
        }
    }
    ExitCode::SUCCESS
}

/// Read into `buf` until it is full or a non-recoverable error; tolerates
/// a few timeouts in a row.
fn read_block(dev: &mut Device, buf: &mut [u8]) -> Result<usize, Error> {
    let mut timeouts = 0;
    loop {
        match dev.read_sync(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.usb_kind() == Some(UsbError::Timeout) && timeouts < MAX_TIMEOUTS => {
                timeouts += 1;
                eprintln!("airwaves: bulk read timed out, retrying");
            }
            Err(e) => return Err(e),
        }
    }
}

/// `airwaves record`: tune, then write `-n` samples of u8 I/Q to a file or stdout.
pub fn record(args: &RecordArgs) -> ExitCode {
    let gain = match parse_gain(&args.gain) {
        Ok(g) => g,
        Err(e) => return fail("record", &e),
    };
    let rate = match u32::try_from(args.rate) {
        Ok(r) => r,
        Err(_) => return fail("record", &Error::SampleRate(u32::MAX)),
    };
    let mut out: Box<dyn Write> = if args.out.as_os_str() == "-" {
        Box::new(std::io::stdout().lock())
    } else {
        match std::fs::File::create(&args.out) {
            Ok(f) => Box::new(std::io::BufWriter::new(f)),
            Err(e) => return fail("record", &format!("{}: {e}", args.out.display())),
        }
    };
    let mut dev = match args.dongle.open() {
        Ok(d) => d,
        Err(e) => return fail("record", &e),
    };
    eprintln!("airwaves record: {}", describe(&dev));
    let mut run = |dev: &mut Device| -> Result<u64, Error> {
        dev.set_sample_rate(rate)?;
        dev.set_center_freq(args.freq)?;
        // rtl_sdr's order (manual mode while picking the gain, manual mode
        // again, then the gain), so that --usb-trace diffs line for line
        // against rtl_sdr under fakeusb.
        match gain {
            None => dev.set_gain_auto()?,
            Some(tenths) => {
                dev.set_gain_manual()?;
                let g = r82xx::nearest_gain(tenths);
                dev.set_gain_manual()?;
                dev.set_gain(g)?;
                eprintln!("airwaves record: tuner gain {:.1} dB", f64::from(g) / 10.0);
            }
        }
        if args.ppm != 0 {
            dev.set_ppm(args.ppm)?;
        }
        if args.bias_tee {
            dev.set_bias_tee(true)?;
        }
        if !dev.pll_locked() {
            eprintln!("airwaves record: warning: tuner PLL not locked");
        }
        dev.reset_buffer()?;
        let mut buf = vec![0u8; BLOCK];
        let mut remaining = args.samples.saturating_mul(2);
        let mut written = 0u64;
        while args.samples == 0 || remaining > 0 {
            let n = read_block(dev, &mut buf)?;
            let take = if args.samples == 0 {
                n
            } else {
                n.min(remaining as usize)
            };
            match out.write_all(&buf[..take]) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
                Err(e) => return Err(Error::Io(e)),
            }
            written += take as u64;
            remaining -= take as u64;
        }
        out.flush().map_err(Error::Io)?;
        Ok(written / 2)
    };
    let result = run(&mut dev);
    let stalls = dev.stalls_recovered();
    let closed = dev.close();
    match result.and_then(|samples| closed.map(|()| samples)) {
        Ok(samples) => {
            eprintln!("airwaves record: {samples} samples, {stalls} stalls recovered");
            ExitCode::SUCCESS
        }
        Err(e) => fail("record", &e),
    }
}

/// Counter continuity: how many bytes are missing between consecutive counter bytes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CounterCheck {
    next: Option<u8>,
    /// Bytes checked.
    pub bytes: u64,
    /// Discontinuities seen.
    pub gaps: u64,
    /// Lower bound of lost bytes (each gap counts its distance mod 256).
    pub lost: u64,
}

impl CounterCheck {
    /// Check a block of counter bytes.
    pub fn feed(&mut self, data: &[u8]) {
        for &b in data {
            if let Some(want) = self.next {
                if b != want {
                    self.gaps += 1;
                    self.lost += u64::from(b.wrapping_sub(want));
                }
            }
            self.next = Some(b.wrapping_add(1));
        }
        self.bytes += data.len() as u64;
    }
}

/// `airwaves test-mode`: stream the chip's counter and count lost bytes.
/// Exits 1 if any bytes were lost after the first block.
pub fn test_mode(args: &TestModeArgs) -> ExitCode {
    let Ok(rate) = u32::try_from(args.rate) else {
        return fail("test-mode", &Error::SampleRate(u32::MAX));
    };
    if !(args.seconds > 0.0 && args.seconds < 1e6) {
        return fail("test-mode", &"--seconds must be positive");
    }
    let mut dev = match args.dongle.open() {
        Ok(d) => d,
        Err(e) => return fail("test-mode", &e),
    };
    if dev.tuner_kind() != TunerKind::R820t && dev.tuner_kind() != TunerKind::R828d {
        return fail("test-mode", &Error::UnsupportedTuner(dev.tuner_kind()));
    }
    eprintln!("airwaves test-mode: {}", describe(&dev));
    let run = |dev: &mut Device| -> Result<(CounterCheck, f64), Error> {
        dev.set_sample_rate(rate)?;
        dev.set_test_mode(true)?;
        dev.reset_buffer()?;
        let mut buf = vec![0u8; BLOCK];
        let mut check = CounterCheck::default();
        // The first block may start with a jump (stale FIFO); count from its end.
        let n = read_block(dev, &mut buf)?;
        check.next = buf[..n].last().map(|b| b.wrapping_add(1));
        let start = Instant::now();
        let limit = Duration::from_secs_f64(args.seconds);
        while start.elapsed() < limit {
            let n = read_block(dev, &mut buf)?;
            check.feed(&buf[..n]);
        }
        Ok((check, start.elapsed().as_secs_f64()))
    };
    let result = run(&mut dev);
    let closed = dev.close();
    match result.and_then(|r| closed.map(|()| r)) {
        Ok((c, secs)) => {
            println!(
                "test-mode: {} bytes in {:.2} s ({:.3} MS/s), {} gaps, lost at least {} bytes",
                c.bytes,
                secs,
                c.bytes as f64 / 2.0 / secs / 1e6,
                c.gaps,
                c.lost
            );
            if c.lost == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => fail("test-mode", &e),
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_parse_hz() {
        assert_eq!(parse_hz("1090000000"), Ok(1_090_000_000));
        assert_eq!(parse_hz("1090M"), Ok(1_090_000_000));
        assert_eq!(parse_hz("2.4M"), Ok(2_400_000));
        assert_eq!(parse_hz("100k"), Ok(100_000));
        assert!(parse_hz("abc").is_err());
        assert!(parse_hz("-5").is_err());
    }

    #[test]
    fn test_parse_gain() {
        assert_eq!(parse_gain("auto"), Ok(None));
        assert_eq!(parse_gain("49.6"), Ok(Some(496)));
        assert_eq!(parse_gain("0"), Ok(Some(0)));
        assert!(parse_gain("loud").is_err());
        assert!(parse_gain("500").is_err());
    }

    #[test]
    fn test_counter_check() {
        let mut c = CounterCheck::default();
        c.feed(&[250, 251, 252, 253, 254, 255, 0, 1]);
        assert_eq!((c.gaps, c.lost), (0, 0));
        c.feed(&[5, 6]);
        assert_eq!((c.gaps, c.lost, c.bytes), (1, 3, 10));
    }
}
