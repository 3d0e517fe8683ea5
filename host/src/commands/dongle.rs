//! The `devices`, `record` and `test-mode` commands.
//!
//! `record` and `test-mode` read through [`crate::source::Source`]: a dongle
//! streams on its own reader thread (libusb asynchronous transfers, the
//! buffer ring, reopen after a loss); `--rtl-tcp` and `--ifile` work the same.

use crate::cli::{DongleArgs, TuningArgs, parse_hz};
use crate::rtl::device::{Device, Selector};
use crate::rtl::{Error, r82xx, usb};
use crate::source::{Source, SourceArgs, SourceError, SourceStats, Tuning, count_stream, describe};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

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
#[command(
    mut_arg("gain", |a| a.help("Tuner gain in dB (nearest listed gain is used), or \"auto\"")),
    mut_arg("bias_tee", |a| a.help("Turn the bias tee (antenna power, GPIO0) on")),
)]
pub struct RecordArgs {
    /// Centre frequency, Hz (suffixes k, M, G allowed: 1090M).
    #[arg(short = 'f', long = "freq", value_parser = parse_hz)]
    pub freq: u64,
    /// Sample rate, Hz (225001–300000 or 900001–3200000).
    #[arg(short = 's', long = "rate", default_value = "2048000", value_parser = parse_hz)]
    pub rate: u64,
    /// Gain, frequency correction and bias tee.
    #[command(flatten)]
    pub tuning: TuningArgs,
    /// Number of I/Q samples to record (0 = until stopped).
    #[arg(short = 'n', long = "samples", default_value_t = 0)]
    pub samples: u64,
    /// Where the samples come from.
    #[command(flatten)]
    pub source: SourceArgs,
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
    /// Where the counter comes from (a dongle, --fake-device or --rtl-tcp).
    #[command(flatten)]
    pub source: SourceArgs,
}

fn fail(cmd: &str, e: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("airwaves {cmd}: {e}");
    ExitCode::FAILURE
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
        return match dongle.open_device() {
            Ok((dev, _)) => {
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

/// One line of streaming counters for the end-of-run report.
fn summary(s: &SourceStats) -> String {
    let d = &s.dongle;
    format!(
        "{} bytes; {} gaps ({:.2} s, about {} bytes lost) after device loss; \
         {} bytes ({} buffers) dropped by a slow consumer; {} stalls recovered, {} timeouts",
        s.bytes,
        d.gaps,
        d.gap_seconds,
        d.gap_bytes,
        d.ring_dropped_bytes,
        d.ring_dropped_buffers,
        d.stalls,
        d.timeouts
    )
}

/// `airwaves record`: tune, then write `-n` samples of u8 I/Q to a file or stdout.
pub fn record(args: &RecordArgs) -> ExitCode {
    let rate = u32::try_from(args.rate).unwrap_or(u32::MAX);
    let tuning = match Tuning::from_args(&args.tuning, Some(args.freq), rate) {
        Ok(t) => t,
        Err(e) => return fail("record", &e),
    };
    if u64::from(rate) != args.rate {
        return fail("record", &Error::SampleRate(u32::MAX));
    }
    let mut out: Box<dyn Write> = if args.out.as_os_str() == "-" {
        Box::new(std::io::stdout().lock())
    } else {
        match std::fs::File::create(&args.out) {
            Ok(f) => Box::new(std::io::BufWriter::new(f)),
            Err(e) => return fail("record", &format!("{}: {e}", args.out.display())),
        }
    };
    let mut source = match Source::open(&args.source, &tuning) {
        Ok(s) => s,
        Err(e) => return fail("record", &e),
    };
    eprintln!("airwaves record: {}", source.description());
    if let Some(g) = tuning.gain {
        eprintln!(
            "airwaves record: tuner gain {:.1} dB",
            f64::from(r82xx::nearest_gain(g)) / 10.0
        );
    }
    let mut run = |source: &mut Source| -> Result<u64, SourceError> {
        let mut remaining = args.samples.saturating_mul(2);
        let mut written = 0u64;
        while args.samples == 0 || remaining > 0 {
            let Some(buf) = source.next_buffer()? else {
                if args.samples == 0 {
                    break;
                }
                return Err(SourceError::Io(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!(
                        "the source ended after {} of {} samples",
                        written / 2,
                        args.samples
                    ),
                )));
            };
            let take = if args.samples == 0 {
                buf.len()
            } else {
                buf.len().min(remaining as usize)
            };
            match out.write_all(&buf[..take]) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
                Err(e) => return Err(SourceError::Io(e)),
            }
            written += take as u64;
            remaining -= take as u64;
        }
        out.flush().map_err(SourceError::Io)?;
        Ok(written / 2)
    };
    let result = run(&mut source);
    let closed = source.close();
    match (result, closed) {
        (Ok(samples), Ok(stats)) => {
            eprintln!("airwaves record: {samples} samples; {}", summary(&stats));
            ExitCode::SUCCESS
        }
        (Err(e), _) | (Ok(_), Err(e)) => fail("record", &e),
    }
}

/// `airwaves test-mode`: stream the chip's counter and count lost bytes.
/// Exits 1 if any bytes were lost after the first buffer.
pub fn test_mode(args: &TestModeArgs) -> ExitCode {
    let Ok(rate) = u32::try_from(args.rate) else {
        return fail("test-mode", &Error::SampleRate(u32::MAX));
    };
    if !(args.seconds > 0.0 && args.seconds < 1e6) {
        return fail("test-mode", &"--seconds must be positive");
    }
    if args.source.ifile.is_some() {
        return fail(
            "test-mode",
            &"needs a receiver (a dongle, --fake-device or --rtl-tcp), not --ifile",
        );
    }
    let tuning = Tuning {
        freq: None,
        rate,
        gain: None,
        ppm: 0,
        bias_tee: false,
        test_mode: true,
    };
    let mut source = match Source::open(&args.source, &tuning) {
        Ok(s) => s,
        Err(e) => return fail("test-mode", &e),
    };
    eprintln!("airwaves test-mode: {}", source.description());
    let limit = Duration::from_secs_f64(args.seconds);
    // Over rtl_tcp the server streamed samples before our test-mode command
    // reached it, and those are still in the socket: skip them.
    let warm_up = if args.source.rtl_tcp.is_some() {
        RTL_TCP_WARM_UP
    } else {
        Duration::ZERO
    };
    let result = count_stream(&mut source, warm_up, limit);
    let closed = source.close();
    match (result, closed) {
        (Ok((c, secs)), Ok(stats)) => {
            println!(
                "test-mode: {} bytes in {:.2} s ({:.3} MS/s), {} gaps, lost at least {} bytes",
                c.bytes,
                secs,
                c.bytes as f64 / 2.0 / secs / 1e6,
                c.gaps,
                c.lost
            );
            eprintln!("airwaves test-mode: {}", summary(&stats));
            if c.lost == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        (Err(e), _) | (Ok(_), Err(e)) => fail("test-mode", &e),
    }
}

/// What `test-mode --rtl-tcp` discards before counting.
pub const RTL_TCP_WARM_UP: Duration = Duration::from_millis(500);
