//! The rtl_tcp protocol: wire format, a server for any [`device::Control`] +
//! [`device::SampleSource`], a client, and the `airwaves rtl-tcp` command.
//!
//! Written from the protocol facts in `rtl2832u.md` §2; nothing is taken
//! from rtl_tcp.c.

pub mod client;
pub mod device;
pub mod file;
pub mod protocol;
pub mod server;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Options of `airwaves rtl-tcp`.
#[derive(clap::Args, Debug, Clone)]
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
    /// Serve the built-in RTL2832U emulator (arrives with the USB driver).
    #[arg(long)]
    pub fake_device: bool,
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
    if args.fake_device {
        eprintln!(
            "airwaves rtl-tcp: --fake-device is coming with the USB driver (host/src/rtl/); \
             serve a recording with --ifile FILE.cu8 for now"
        );
        return ExitCode::FAILURE;
    }
    let Some(path) = &args.ifile else {
        eprintln!(
            "airwaves rtl-tcp: no sample source: give --ifile FILE.cu8 \
             (serving an RTL-SDR dongle, or --fake-device, comes with the USB driver)"
        );
        return ExitCode::FAILURE;
    };
    let (source, control) = match file::open(path, args.rate, args.looping) {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("airwaves rtl-tcp: {e}");
            return ExitCode::FAILURE;
        }
    };
    let config = server::ServerConfig {
        buffers: args.buffers,
        buffer_len: args.buffer_size,
    };
    let server =
        match server::Server::bind((args.address.as_str(), args.port), config, control, source) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("airwaves rtl-tcp: {}:{}: {e}", args.address, args.port);
                return ExitCode::FAILURE;
            }
        };
    match server.local_addr() {
        Ok(addr) => eprintln!(
            "rtl-tcp: listening on {addr}, serving {} at {} Hz ({} at its end), queue {} x {} bytes",
            path.display(),
            args.rate,
            if args.looping { "restart" } else { "close" },
            args.buffers,
            args.buffer_size
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
        Ok(stopped) => {
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
            eprintln!("rtl-tcp: settings: {:?}", stopped.control.settings());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("airwaves rtl-tcp: {e}");
            ExitCode::FAILURE
        }
    }
}
