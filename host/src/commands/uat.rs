//! `airwaves uat`: a 978 MHz UAT receiver: a dongle, rtl_tcp or a
//! recording through the core demodulator ([`crate::uat`]) into
//! dump978-fa's raw lines, on stdout and (with `--raw-port`) to TCP
//! clients, as dump978-fa serves them on 30978 to piaware, readsb and
//! skyaware978.

use crate::cli::{SourceArgs, TuningArgs, parse_hz};
use crate::error::CommandError;
use crate::net::fanout::Hub;
use crate::net::listener::listen;
use crate::source::{CHUNK, SampleSource, Source, Tuning};
use crate::uat::{RATES, RawLines};
use std::io::{BufWriter, ErrorKind, Write};
use std::net::{Ipv4Addr, SocketAddr};
use std::time::{SystemTime, UNIX_EPOCH};

/// `airwaves uat` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct UatArgs {
    /// Where the samples come from: a dongle (default), --fake-device,
    /// --rtl-tcp HOST:PORT, or --ifile F.cu8 (- for stdin).
    #[command(flatten)]
    pub source: SourceArgs,
    /// Gain, frequency correction and bias tee.
    #[command(flatten)]
    pub tuning: TuningArgs,
    /// Centre frequency, Hz (suffixes k, M, G allowed).
    #[arg(short = 'f', long = "freq", default_value = "978M", value_parser = parse_hz)]
    pub freq: u64,
    /// Sample rate, Hz: two samples per UAT bit (2083334, or 2083333).
    #[arg(long, default_value_t = 2_083_334)]
    pub rate: u32,
    /// Serve the raw lines on this TCP port too (dump978-fa's is 30978;
    /// 0: off).
    #[arg(long, default_value_t = 0)]
    pub raw_port: u16,
    /// Serve every downlink message as dump978-fa's JSON on this TCP port
    /// (dump978-fa's is 30979; 0: off).
    #[arg(long, default_value_t = 0)]
    pub json_port: u16,
    /// Listen on this address (with --raw-port, --json-port).
    #[arg(long, default_value_t = Ipv4Addr::LOCALHOST.into(), value_name = "IP")]
    pub bind: std::net::IpAddr,
    /// Do not print the raw lines on stdout.
    #[arg(long)]
    pub quiet: bool,
}

/// Bytes a slow raw-line client may fall behind before it is dropped.
const CLIENT_BUFFER: usize = 256 * 1024;

/// `airwaves uat`: open the source, stream it through the UAT
/// demodulator, one raw line per message to stdout and the raw port; a
/// summary on stderr at the end. A closed stdout pipe ends it without an
/// error; Ctrl-C ends a live source.
///
/// # Errors
/// A rate other than two samples per bit, a source that cannot be opened
/// or fails, a port that cannot be bound, a failing write.
pub fn run(args: &UatArgs) -> Result<(), CommandError> {
    if !RATES.contains(&args.rate) {
        return Err(CommandError::Invalid(
            "--rate: the UAT demodulator reads 2083334 (or 2083333) samples/s, two per bit",
        ));
    }
    let hub = Hub::new("uat-raw-out", CLIENT_BUFFER);
    let json_hub = Hub::new("uat-json-out", CLIENT_BUFFER);
    let mut listeners = Vec::new();
    for (port, h, what) in [
        (args.raw_port, &hub, "raw lines"),
        (args.json_port, &json_hub, "JSON"),
    ] {
        if port != 0 {
            let l =
                listen(SocketAddr::new(args.bind, port), h.clone()).map_err(CommandError::Io)?;
            eprintln!("airwaves uat: {what} on {}", l.local_addr());
            listeners.push(l);
        }
    }
    let tuning = Tuning::new(&args.tuning, Some(args.freq), args.rate);
    let mut source = Source::open(&args.source, &tuning)?;
    eprintln!("airwaves uat: {}", source.description());
    // A recording's times are its own (seconds from its first sample);
    // a live source's are the time of day, as dump978-fa writes them.
    let live = args.source.ifile.is_none();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut sink = Sink {
        out: if args.quiet { None } else { Some(&mut out) },
        hub: &hub,
    };
    let started = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let mut json_sink = Sink::<std::io::Sink> {
        out: None,
        hub: &json_hub,
    };
    let mut lines = RawLines::new(&mut sink, if live { Some(started) } else { None });
    if args.json_port != 0 {
        lines = lines.with_json(&mut json_sink);
    }
    let result = stream(&mut source, &mut lines);
    let stats = lines.finish();
    for l in listeners {
        l.shutdown();
    }
    for h in [&hub, &json_hub] {
        h.flush(std::time::Duration::from_secs(1));
        h.disconnect_all();
    }
    let _ = out.flush();
    // What was decoded is reported whatever ended the stream (a file's
    // end, Ctrl-C, an unplugged dongle: that error follows).
    let result = match stats {
        Ok(st) => {
            eprintln!(
                "airwaves uat: {} samples, {} downlink, {} uplink messages ({} sync candidates, {} searched)",
                st.samples, st.downlink, st.uplink, st.candidates, st.searched
            );
            result
        }
        Err(e) => result.and(Err(CommandError::Io(e))),
    };
    match result {
        Err(CommandError::Io(e)) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// Read the source to its end (or Ctrl-C) into the demodulator.
fn stream<W: Write>(source: &mut Source, lines: &mut RawLines<'_, W>) -> Result<(), CommandError> {
    let mut buf = vec![0u8; CHUNK];
    while !crate::stop::requested() {
        let n = source.read(&mut buf)?;
        if n == 0 {
            break;
        }
        lines.feed(&buf[..n]).map_err(CommandError::Io)?;
        lines.flush().map_err(CommandError::Io)?;
    }
    Ok(())
}

/// Where the lines go: stdout (unless quiet) and the raw port's clients.
struct Sink<'a, W: Write> {
    out: Option<&'a mut W>,
    hub: &'a Hub,
}

impl<W: Write> Write for Sink<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.hub.publish(buf);
        match &mut self.out {
            Some(o) => o.write_all(buf),
            None => Ok(()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.out {
            Some(o) => o.flush(),
            None => Ok(()),
        }
    }
}
