//! `airwaves rtl-tcp`: serve a recording, a dongle or the emulator to one
//! rtl_tcp client at a time.

use crate::cli::DongleArgs;
use crate::rtltcp;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

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
    /// Buffers in the queue to the client.
    #[arg(long, default_value_t = 64)]
    pub buffers: usize,
    /// Bytes per buffer (even).
    #[arg(long, default_value_t = 65_536)]
    pub buffer_size: usize,
    /// Stop after this many seconds and print the totals (0: run until killed).
    #[arg(long, default_value_t = 0.0)]
    pub seconds: f64,
}

/// Run `airwaves rtl-tcp` until killed or `--seconds` have passed.
pub fn run_cli(args: &RtlTcpArgs) -> ExitCode {
    let config = rtltcp::server::ServerConfig {
        buffers: args.buffers,
        buffer_len: args.buffer_size,
    };
    if let Some(path) = &args.ifile {
        let (source, control) = match rtltcp::file::open(path, args.rate, args.looping) {
            Ok(pair) => pair,
            Err(e) => {
                eprintln!("airwaves rtl-tcp: {e}");
                return ExitCode::FAILURE;
            }
        };
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
    let (live, what) = match opened {
        Ok(x) => x,
        Err(e) => {
            eprintln!("airwaves rtl-tcp: {e}");
            return ExitCode::FAILURE;
        }
    };
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
fn serve<C: rtltcp::device::Control + 'static, S: rtltcp::device::SampleSource + 'static>(
    args: &RtlTcpArgs,
    config: rtltcp::server::ServerConfig,
    control: C,
    source: S,
    what: &str,
    report: impl FnOnce(&mut C),
) -> ExitCode {
    let server = match rtltcp::server::Server::bind(
        (args.address.as_str(), args.port),
        config,
        control,
        source,
    ) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("airwaves rtl-tcp: {}:{}: {e}", args.address, args.port);
            return ExitCode::FAILURE;
        }
    };
    match server.local_addr() {
        Ok(addr) => eprintln!(
            "rtl-tcp: listening on {addr}, serving {what}, queue {} x {} bytes",
            args.buffers, args.buffer_size
        ),
        Err(e) => eprintln!("rtl-tcp: listening (address unknown: {e})"),
    }
    if args.seconds > 0.0 {
        let stop = server.stop_flag();
        let Ok(after) = Duration::try_from_secs_f64(args.seconds) else {
            eprintln!(
                "airwaves rtl-tcp: --seconds {} is not a duration",
                args.seconds
            );
            return ExitCode::FAILURE;
        };
        std::thread::spawn(move || {
            std::thread::sleep(after);
            stop.store(true, Ordering::Relaxed);
        });
    }
    match server.run() {
        Ok(mut stopped) => {
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
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("airwaves rtl-tcp: {e}");
            ExitCode::FAILURE
        }
    }
}
