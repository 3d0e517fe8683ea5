//! The `devices`, `record` and `test-mode` commands.
//!
//! `record` and `test-mode` read through [`crate::source::Source`]: a dongle
//! streams on its own reader thread (libusb asynchronous transfers, the
//! buffer ring, reopen after a loss); `--rtl-tcp` and `--ifile` work the same.

use crate::cli::{DongleArgs, TuningArgs, parse_dongle_rate, parse_hz, parse_seconds};
use crate::error::CommandError;
use crate::rtl::device::{Device, Selector};
use crate::rtl::{r82xx, usb};
use crate::source::{
    CHUNK, SampleSource, Source, SourceArgs, SourceStats, Tuning, count_stream, describe,
};
use std::io::Write;
use std::path::PathBuf;
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
    #[arg(short = 's', long = "rate", default_value = "2048000", value_parser = parse_dongle_rate)]
    pub rate: u32,
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
    /// Sample rate, Hz (225001–300000 or 900001–3200000).
    #[arg(short = 's', long = "rate", default_value = "2048000", value_parser = parse_dongle_rate)]
    pub rate: u32,
    /// How long to stream, seconds.
    #[arg(long, default_value_t = 10.0, value_parser = parse_seconds, allow_negative_numbers = true)]
    pub seconds: f64,
    /// Where the counter comes from (a dongle, --fake-device or --rtl-tcp).
    #[command(flatten)]
    pub source: SourceArgs,
}

/// `airwaves devices`: list dongles with index, serial, tuner and strings.
/// Fails with "no RTL-SDR found" when there is none (as rtl_test does).
///
/// # Errors
/// [`CommandError::NoDongle`], or the emulator or USB bus failing.
pub fn devices(args: &DevicesArgs) -> Result<(), CommandError> {
    if let Some(spec) = &args.fake_device {
        let dongle = DongleArgs {
            device: "0".into(),
            fake_device: Some(spec.clone()),
            usb_trace: args.usb_trace.clone(),
        };
        let (dev, _) = dongle.open_device()?;
        println!("0: emulator, {}", describe(&dev));
        return Ok(());
    }
    let list = usb::rusb_impl::list().map_err(CommandError::Usb)?;
    if list.is_empty() {
        return Err(CommandError::NoDongle);
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
    Ok(())
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
///
/// # Errors
/// A bad gain or rate, an output file that cannot be created, a source
/// that fails or ends early.
pub fn record(args: &RecordArgs) -> Result<(), CommandError> {
    let tuning = Tuning::new(&args.tuning, Some(args.freq), args.rate);
    // The source first: a run that cannot start leaves an existing output
    // file as it was.
    let mut source = Source::open(&args.source, &tuning)?;
    let mut out: Box<dyn Write> = if args.out.as_os_str() == "-" {
        Box::new(std::io::stdout().lock())
    } else {
        let f = std::fs::File::create(&args.out).map_err(|source| CommandError::Create {
            path: args.out.clone(),
            source,
        })?;
        Box::new(std::io::BufWriter::new(f))
    };
    eprintln!("airwaves record: {}", source.description());
    if let Some(g) = tuning.gain {
        eprintln!(
            "airwaves record: tuner gain {:.1} dB",
            f64::from(r82xx::nearest_gain(g)) / 10.0
        );
    }
    let write_error = |source| CommandError::Write {
        path: args.out.clone(),
        source,
    };
    let mut run = |source: &mut Source| -> Result<u64, CommandError> {
        let mut remaining = args.samples.saturating_mul(2);
        let mut written = 0u64;
        let mut buf = vec![0u8; CHUNK];
        while (args.samples == 0 || remaining > 0) && !crate::stop::requested() {
            // Read no more than is wanted: the source delivers (and counts)
            // exactly what is written.
            let want = if args.samples == 0 {
                CHUNK
            } else {
                CHUNK.min(usize::try_from(remaining).unwrap_or(CHUNK))
            };
            let n = source.read(&mut buf[..want])?;
            if n == 0 {
                if args.samples == 0 {
                    break;
                }
                return Err(CommandError::SourceEnded {
                    written: written / 2,
                    wanted: args.samples,
                });
            }
            match out.write_all(&buf[..n]) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
                Err(e) => return Err(write_error(e)),
            }
            written += n as u64;
            remaining = remaining.saturating_sub(n as u64);
        }
        out.flush().map_err(write_error)?;
        Ok(written / 2)
    };
    let result = run(&mut source);
    let closed = source.close();
    let samples = result?;
    let stats = closed?;
    eprintln!("airwaves record: {samples} samples; {}", summary(&stats));
    Ok(())
}

/// `airwaves test-mode`: stream the chip's counter and count lost bytes.
///
/// # Errors
/// [`CommandError::CheckFailed`] if any bytes were lost after the first
/// buffer; bad options; a source that fails.
pub fn test_mode(args: &TestModeArgs) -> Result<(), CommandError> {
    let rate = args.rate;
    if !(args.seconds > 0.0 && args.seconds < 1e6) {
        return Err(CommandError::Invalid("--seconds must be positive"));
    }
    if args.source.ifile.is_some() {
        return Err(CommandError::Invalid(
            "needs a receiver (a dongle, --fake-device or --rtl-tcp), not --ifile",
        ));
    }
    let tuning = Tuning {
        freq: None,
        rate,
        gain: None,
        ppm: 0,
        bias_tee: false,
        test_mode: true,
    };
    let mut source = Source::open(&args.source, &tuning)?;
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
    let (c, secs) = result?;
    let stats = closed?;
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
        Ok(())
    } else {
        Err(CommandError::CheckFailed)
    }
}

/// What `test-mode --rtl-tcp` discards before counting.
pub const RTL_TCP_WARM_UP: Duration = Duration::from_millis(500);
