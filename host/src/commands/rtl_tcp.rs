//! `airwaves rtl-tcp`: serve a recording, a dongle or the emulator to one
//! rtl_tcp client at a time.

use crate::cli::{DongleArgs, bounded, parse_seconds_or_zero};
use crate::error::CommandError;
use crate::rtltcp;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Most buffers in the queue to the client.
const MAX_BUFFERS: usize = 4096;
/// Largest buffer, bytes (4 MiB).
const MAX_BUFFER_SIZE: usize = 4 << 20;
/// Largest queue in all, bytes (256 MiB).
const MAX_QUEUE: usize = 256 << 20;

/// Options of `airwaves rtl-tcp`.
#[derive(clap::Args, Debug, Clone)]
#[command(
    mut_arg("device", |a| a.help(
        "Serve this dongle: index (0, 1, …) or serial number (the default source when neither \
         --ifile nor --fake-device is given: dongle 0)"
    )),
    mut_arg("fake_device", |a| a.conflicts_with("ifile").help(
        "Serve the built-in RTL2832U emulator: `r820t|r828d[,file=PATH][,…]` (see `airwaves \
         record --help`); with no file it streams mid-scale noise, or its byte counter once a \
         client turns test mode on"
    )),
)]
pub struct RtlTcpArgs {
    /// Address to listen on.
    #[arg(short = 'a', long, default_value = "127.0.0.1")]
    pub address: String,
    /// TCP port (0 picks a free one, printed at start).
    #[arg(short = 'p', long, default_value_t = 1234)]
    pub port: u16,
    /// Serve this .cu8 recording (interleaved u8 I/Q), paced at the sample rate.
    #[arg(long, value_name = "FILE.cu8")]
    pub ifile: Option<PathBuf>,
    /// Initial sample rate, Hz (clients change it with command 0x02).
    #[arg(short = 's', long, default_value_t = 2_048_000)]
    pub rate: u32,
    /// At the end of the file start again instead of ending the session.
    #[arg(long = "loop")]
    pub looping: bool,
    /// The dongle or emulator to serve when --ifile is not given.
    #[command(flatten)]
    pub dongle: DongleArgs,
    /// Buffers in the queue to the client (2 to 4096).
    #[arg(long, default_value_t = 64, value_parser = bounded(2, MAX_BUFFERS))]
    pub buffers: usize,
    /// Bytes per buffer, even (512 to 4 MiB); the queue holds at most
    /// 256 MiB in all.
    #[arg(long, default_value_t = 65_536, value_parser = bounded(512, MAX_BUFFER_SIZE))]
    pub buffer_size: usize,
    /// Stop after this many seconds and print the totals (0: run until killed).
    #[arg(long, default_value_t = 0.0, value_parser = parse_seconds_or_zero, allow_negative_numbers = true)]
    pub seconds: f64,
}

/// Run `airwaves rtl-tcp` until killed or `--seconds` have passed.
///
/// # Errors
/// A recording or dongle that cannot open, a port that cannot be bound, a
/// bad `--seconds`, a server failure.
pub fn run_cli(args: &RtlTcpArgs) -> Result<(), CommandError> {
    if args.buffer_size % 2 != 0 {
        return Err(CommandError::Invalid(
            "--buffer-size must be even (whole I/Q pairs)",
        ));
    }
    if args.buffers * args.buffer_size > MAX_QUEUE {
        return Err(CommandError::Invalid(
            "--buffers × --buffer-size must stay within 256 MiB",
        ));
    }
    let config = rtltcp::server::ServerConfig {
        buffers: args.buffers,
        buffer_len: args.buffer_size,
    };
    if let Some(path) = &args.ifile {
        let (source, control) =
            rtltcp::file::open(path, args.rate, args.looping).map_err(CommandError::ServeFile)?;
        let what = format!(
            "{} at {} Hz ({} at its end)",
            path.display(),
            args.rate,
            if args.looping { "restart" } else { "close" }
        );
        return serve(args, config, control, source, &what, |c| {
            eprintln!("rtl-tcp: settings: {:?}", c.settings());
        });
    }
    let opened = args.dongle.open_device().and_then(|(mut dev, selector)| {
        // rtl_tcp's start-up state: 100 MHz, the given rate, tuner AGC.
        let tuning = crate::source::Tuning {
            freq: Some(100_000_000),
            rate: args.rate,
            gain: None,
            ppm: 0,
            bias_tee: false,
            test_mode: false,
        };
        crate::source::tune_device(&mut dev, &tuning).map_err(crate::source::SourceError::Rtl)?;
        let what = crate::source::describe(&dev);
        let live = crate::rtl::stream::LiveDongle::start(
            dev,
            &selector,
            crate::rtl::stream::StreamOptions::default(),
            crate::rtl::stream::ReopenPolicy::default(),
        )
        .map_err(crate::source::SourceError::Rtl)?;
        Ok((live, what))
    });
    let (live, what) = opened?;
    let (control, source) = rtltcp::serve::serve_parts(live);
    serve(args, config, control, source, &what, |c| {
        let s = c.stats();
        eprintln!("rtl-tcp: settings: {:?}", c.settings());
        eprintln!(
            "rtl-tcp: dongle: {} bytes, {} gaps after device loss, {} stalls recovered, {} bytes dropped in its ring",
            s.bytes, s.gaps, s.stalls, s.ring_dropped_bytes
        );
    })
}

/// Bind, announce, run until stopped, print the totals.
fn serve<C: rtltcp::device::Control + 'static, S: crate::source::SampleSource + 'static>(
    args: &RtlTcpArgs,
    config: rtltcp::server::ServerConfig,
    control: C,
    source: S,
    what: &str,
    report: impl FnOnce(&mut C),
) -> Result<(), CommandError> {
    let server =
        rtltcp::server::Server::bind((args.address.as_str(), args.port), config, control, source)
            .map_err(|source| CommandError::Listen {
            addr: format!("{}:{}", args.address, args.port),
            source,
        })?;
    match server.local_addr() {
        Ok(addr) => eprintln!(
            "rtl-tcp: listening on {addr}, serving {what}, queue {} x {} bytes",
            args.buffers, args.buffer_size
        ),
        Err(e) => eprintln!("rtl-tcp: listening (address unknown: {e})"),
    }
    // Stop after --seconds, or on a signal (the totals are printed).
    let after = if args.seconds > 0.0 {
        Some(
            Duration::try_from_secs_f64(args.seconds)
                .map_err(|_| CommandError::Seconds(args.seconds))?,
        )
    } else {
        None
    };
    let stop = server.stop_flag();
    let t0 = std::time::Instant::now();
    std::thread::spawn(move || {
        while !crate::stop::requested() && after.is_none_or(|a| t0.elapsed() < a) {
            std::thread::sleep(Duration::from_millis(50));
        }
        stop.store(true, Ordering::Relaxed);
    });
    let mut stopped = server.run().map_err(CommandError::Server)?;
    let t = stopped.stats;
    eprintln!(
        "rtl-tcp: stopped: {} sessions, {} refused, sent {} bytes, {} commands ({} failed), dropped {} buffers ({} bytes)",
        t.sessions,
        t.refused,
        t.bytes_sent,
        t.commands,
        t.commands_failed,
        t.buffers_dropped,
        t.bytes_dropped
    );
    report(&mut stopped.control);
    Ok(())
}
