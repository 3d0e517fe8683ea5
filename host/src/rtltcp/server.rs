//! An rtl_tcp server: one client at a time, I/Q through a fixed ring.
//!
//! [`Server::run`] polls a non-blocking listener. The first client gets a
//! session; any client that arrives while a session runs is refused: its
//! connection is closed at once and a line is logged. A session has three
//! threads:
//!
//! - the **producer** reads the [`SampleSource`] into the ring's empty
//!   buffers; when the client is slow and none is free it reads into a
//!   scratch buffer and counts the loss (the server's memory never grows);
//! - the **command reader** reassembles 5-byte commands from whatever the
//!   socket delivers (partial commands across reads are fine, any bytes are
//!   a valid command or an ignored unknown one) and applies them through the
//!   [`Control`];
//! - the **writer** (the session thread) sends the 12-byte header, then
//!   every filled buffer in order.
//!
//! A client that connects in the instant after the previous one left (before
//! the server has noticed, at most ~50 ms) is refused like any second
//! client; clients reconnect.
//!
//! The session ends when the client closes, the source ends (after the
//! queued data is sent) or fails, or the server is stopped. The source,
//! control and ring then go back to the listener for the next client.
//! Everything is logged to stderr as `rtl-tcp: …` lines.

use super::device::{ApplyError, Control, apply};
use super::protocol::{CommandDecoder, Header};
use crate::log_limit::LogLimit;
use crate::ring::{Consumer, PopError, Producer, RingError, ring};
use crate::source::{SampleSource, read_into_ring};
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How often blocked threads look at the stop flags.
const POLL: Duration = Duration::from_millis(50);
/// How long a client may take to close after the end of the source.
const LINGER: Duration = Duration::from_secs(2);

/// Ring dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerConfig {
    /// Buffers in the ring (≥ 1).
    pub buffers: usize,
    /// Bytes per buffer (≥ 2, even: whole I/Q pairs).
    pub buffer_len: usize,
}

impl Default for ServerConfig {
    /// 64 buffers of 64 KiB: 4 MiB, 0.87 s at 2.4 Msps.
    fn default() -> Self {
        ServerConfig {
            buffers: 64,
            buffer_len: 64 * 1024,
        }
    }
}

/// Why the server could not start or went down.
#[derive(Debug)]
pub enum ServerError {
    /// Binding or polling the listener failed.
    Io(io::Error),
    /// Bad ring dimensions.
    Ring(RingError),
    /// `buffer_len` is odd (I/Q pairs would be split across buffers).
    OddBufferLen(usize),
    /// A session thread panicked; its source and control are lost.
    SessionPanicked,
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::Io(e) => write!(f, "rtl_tcp listener: {e}"),
            ServerError::Ring(e) => e.fmt(f),
            ServerError::OddBufferLen(n) => write!(f, "buffer length {n} is odd"),
            ServerError::SessionPanicked => f.write_str("an rtl_tcp session thread panicked"),
        }
    }
}

impl std::error::Error for ServerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServerError::Io(e) => Some(e),
            ServerError::Ring(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for ServerError {
    fn from(e: io::Error) -> Self {
        ServerError::Io(e)
    }
}

/// How a session ended.
#[derive(Debug)]
pub enum SessionEnd {
    /// The client closed the connection (or it broke).
    ClientClosed,
    /// The source reached its end and everything queued was sent.
    SourceEnded,
    /// The source failed.
    SourceFailed(Box<dyn std::error::Error + Send + Sync>),
    /// [`Server::stop_flag`] was set.
    ServerStopped,
}

impl fmt::Display for SessionEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionEnd::ClientClosed => f.write_str("client closed"),
            SessionEnd::SourceEnded => f.write_str("end of source"),
            SessionEnd::SourceFailed(e) => write!(f, "source failed: {e}"),
            SessionEnd::ServerStopped => f.write_str("server stopped"),
        }
    }
}

/// Counters of one session.
#[derive(Debug)]
pub struct SessionReport {
    /// The client.
    pub peer: SocketAddr,
    /// I/Q bytes sent (the 12-byte header not included).
    pub bytes_sent: u64,
    /// Commands received (unknown ones included).
    pub commands: u64,
    /// Commands the control refused, plus unknown ones.
    pub commands_failed: u64,
    /// Buffers dropped because the client did not keep up.
    pub buffers_dropped: u64,
    /// Bytes in those buffers.
    pub bytes_dropped: u64,
    /// Why it ended.
    pub end: SessionEnd,
}

impl fmt::Display for SessionReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "session {} ended ({}): sent {} bytes, {} commands ({} failed), dropped {} buffers ({} bytes)",
            self.peer,
            self.end,
            self.bytes_sent,
            self.commands,
            self.commands_failed,
            self.buffers_dropped,
            self.bytes_dropped
        )
    }
}

/// Totals over the server's life.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Sessions served to their end.
    pub sessions: u64,
    /// Clients refused because a session was running.
    pub refused: u64,
    /// I/Q bytes sent.
    pub bytes_sent: u64,
    /// Commands received.
    pub commands: u64,
    /// Commands refused by the control or unknown.
    pub commands_failed: u64,
    /// Buffers dropped because clients did not keep up.
    pub buffers_dropped: u64,
    /// Bytes in those buffers.
    pub bytes_dropped: u64,
}

impl ServerStats {
    fn add(&mut self, r: &SessionReport) {
        self.sessions += 1;
        self.bytes_sent += r.bytes_sent;
        self.commands += r.commands;
        self.commands_failed += r.commands_failed;
        self.buffers_dropped += r.buffers_dropped;
        self.bytes_dropped += r.bytes_dropped;
    }
}

/// What [`Server::run`] gives back when stopped.
pub struct Stopped<C, S> {
    /// The control, with the settings clients made.
    pub control: C,
    /// The source, handed back so that a device can be reused or closed.
    pub source: S,
    /// Totals.
    pub stats: ServerStats,
}

/// Command lines logged per second of a session (the rest are counted).
const COMMAND_LOG_LINES: u32 = 10;

/// What a session borrows and gives back.
struct Parts<C, S> {
    control: C,
    source: S,
    producer: Producer,
    consumer: Consumer,
    /// Where the producer reads data it has no free buffer for.
    scratch: Box<[u8]>,
}

/// An rtl_tcp server for one control + source pair.
pub struct Server<C, S> {
    listener: TcpListener,
    parts: Parts<C, S>,
    stop: Arc<AtomicBool>,
}

impl<C, S> Server<C, S>
where
    C: Control + 'static,
    S: SampleSource + 'static,
{
    /// Bind `addr` and allocate the ring (the only allocation of its size).
    pub fn bind(
        addr: impl ToSocketAddrs,
        config: ServerConfig,
        control: C,
        source: S,
    ) -> Result<Self, ServerError> {
        if config.buffer_len % 2 != 0 {
            return Err(ServerError::OddBufferLen(config.buffer_len));
        }
        let (producer, consumer) =
            ring(config.buffers, config.buffer_len).map_err(ServerError::Ring)?;
        let listener = TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        Ok(Server {
            listener,
            parts: Parts {
                control,
                source,
                producer,
                consumer,
                scratch: vec![0u8; config.buffer_len].into_boxed_slice(),
            },
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The bound address (useful after binding port 0).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Set it to `true` to end [`Server::run`] (a running session ends too).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Serve clients until the stop flag is set; returns the control, the
    /// source and the totals.
    pub fn run(self) -> Result<Stopped<C, S>, ServerError> {
        let Server {
            listener,
            parts,
            stop,
        } = self;
        let mut idle = Some(parts);
        let mut stats = ServerStats::default();
        let mut active: Option<JoinHandle<(Parts<C, S>, SessionReport)>> = None;
        loop {
            if active.as_ref().is_some_and(JoinHandle::is_finished)
                && let Some(handle) = active.take()
            {
                let (parts, report) = handle.join().map_err(|_| ServerError::SessionPanicked)?;
                eprintln!("rtl-tcp: {report}");
                stats.add(&report);
                idle = Some(parts);
            }
            if stop.load(Ordering::Relaxed) {
                if let Some(handle) = active.take() {
                    let (parts, report) =
                        handle.join().map_err(|_| ServerError::SessionPanicked)?;
                    eprintln!("rtl-tcp: {report}");
                    stats.add(&report);
                    idle = Some(parts);
                }
                let parts = idle.take().ok_or(ServerError::SessionPanicked)?;
                return Ok(Stopped {
                    control: parts.control,
                    source: parts.source,
                    stats,
                });
            }
            match listener.accept() {
                Ok((stream, peer)) => match idle.take() {
                    Some(parts) => {
                        eprintln!("rtl-tcp: client {peer} connected");
                        let stop = stop.clone();
                        active = Some(thread::spawn(move || session(parts, stream, peer, &stop)));
                    }
                    None => {
                        stats.refused += 1;
                        eprintln!("rtl-tcp: refused {peer}: a client is already being served");
                        let _ = stream.shutdown(Shutdown::Both);
                    }
                },
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => thread::sleep(POLL / 2),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    // Out of descriptors, aborted handshake…: log and go on.
                    eprintln!("rtl-tcp: accept failed: {e}");
                    thread::sleep(POLL);
                }
            }
        }
    }
}

/// Flags shared by the three threads of a session.
struct Flags<'a> {
    server_stop: &'a AtomicBool,
    session_stop: AtomicBool,
    source_done: AtomicBool,
}

impl Flags<'_> {
    fn stopping(&self) -> bool {
        self.session_stop.load(Ordering::Relaxed) || self.server_stop.load(Ordering::Relaxed)
    }
}

/// Run one client; never panics on client input.
fn session<C: Control, S: SampleSource>(
    mut parts: Parts<C, S>,
    stream: TcpStream,
    peer: SocketAddr,
    server_stop: &AtomicBool,
) -> (Parts<C, S>, SessionReport) {
    let mut report = SessionReport {
        peer,
        bytes_sent: 0,
        commands: 0,
        commands_failed: 0,
        buffers_dropped: 0,
        bytes_dropped: 0,
        end: SessionEnd::ClientClosed,
    };
    parts.consumer.discard_all();
    let before = parts.consumer.stats();
    let flags = Flags {
        server_stop,
        session_stop: AtomicBool::new(false),
        source_done: AtomicBool::new(false),
    };
    let reader = match prepare(&stream) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rtl-tcp: client {peer}: socket setup failed: {e}");
            return (parts, report);
        }
    };
    if let Err(e) = parts.source.start() {
        report.end = SessionEnd::SourceFailed(Box::new(e));
        let _ = stream.shutdown(Shutdown::Both);
        return (parts, report);
    }
    let header = parts.control.header();
    let Parts {
        control,
        source,
        producer,
        consumer,
        scratch,
    } = &mut parts;
    let (source_end, (commands, failed), writer_end) = thread::scope(|s| {
        let producing = s.spawn(|| produce(source, producer, scratch, &flags));
        let commanding = s.spawn(|| read_commands(reader, control, &flags));
        let writer_end = write_stream(&stream, &header, consumer, &flags, &mut report.bytes_sent);
        if matches!(writer_end, SessionEnd::SourceEnded) {
            // Send FIN after the last byte and let the client close: closing
            // with its commands unread would reset the connection and could
            // cost it the end of the stream.
            let _ = stream.shutdown(Shutdown::Write);
            let t0 = std::time::Instant::now();
            while !commanding.is_finished() && t0.elapsed() < LINGER {
                thread::sleep(POLL / 5);
            }
        }
        flags.session_stop.store(true, Ordering::Relaxed);
        let _ = stream.shutdown(Shutdown::Both);
        (
            producing.join().unwrap_or(None),
            commanding.join().unwrap_or((0, 0)),
            writer_end,
        )
    });
    let after = parts.consumer.stats();
    report.commands = commands;
    report.commands_failed = failed;
    report.buffers_dropped = after.buffers_dropped - before.buffers_dropped;
    report.bytes_dropped = after.bytes_dropped - before.bytes_dropped;
    report.end = match (source_end, writer_end) {
        (Some(err), _) => SessionEnd::SourceFailed(err),
        (None, end) => end,
    };
    (parts, report)
}

/// Socket options; returns the clone the command reader uses.
fn prepare(stream: &TcpStream) -> io::Result<TcpStream> {
    stream.set_nonblocking(false)?;
    stream.set_nodelay(true)?;
    stream.set_write_timeout(Some(POLL))?;
    let reader = stream.try_clone()?;
    reader.set_read_timeout(Some(POLL))?;
    Ok(reader)
}

/// Producer thread: source → ring. Returns the source's error, if any.
fn produce<S: SampleSource>(
    source: &mut S,
    producer: &mut Producer,
    scratch: &mut [u8],
    flags: &Flags<'_>,
) -> Option<Box<dyn std::error::Error + Send + Sync>> {
    let result = loop {
        if flags.stopping() {
            break None;
        }
        let read = read_into_ring(source, producer, Some(&mut *scratch)).map(|n| n.unwrap_or(0));
        match read {
            Ok(0) => break None,
            Ok(_) => {}
            Err(e) => break Some(Box::new(e) as Box<dyn std::error::Error + Send + Sync>),
        }
    };
    flags.source_done.store(true, Ordering::Release);
    result
}

/// Command thread: socket → decoder → control. Returns (commands, failed).
fn read_commands<C: Control>(
    mut reader: TcpStream,
    control: &mut C,
    flags: &Flags<'_>,
) -> (u64, u64) {
    let mut decoder = CommandDecoder::new();
    let mut buf = [0u8; 512];
    let (mut count, mut failed) = (0u64, 0u64);
    // A client may send thousands of commands: log the first of each
    // second, count the rest.
    let mut log = LogLimit::new(COMMAND_LOG_LINES, Duration::from_secs(1));
    while !flags.stopping() {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => decoder.feed(&buf[..n], |cmd| {
                count += 1;
                let result = apply(cmd, control);
                failed += u64::from(result.is_err());
                let (print, suppressed) = log.event(Instant::now());
                if suppressed > 0 {
                    eprintln!("rtl-tcp: {suppressed} more commands not logged");
                }
                if print {
                    match result {
                        Ok(()) => eprintln!("rtl-tcp: {cmd}: applied"),
                        Err(e @ ApplyError::Unknown(..)) => eprintln!("rtl-tcp: {cmd}: {e}"),
                        Err(ApplyError::Control(e)) => eprintln!("rtl-tcp: {cmd}: refused: {e}"),
                    }
                }
            }),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(_) => break,
        }
    }
    if decoder.pending() > 0 {
        eprintln!(
            "rtl-tcp: {} bytes of an incomplete command discarded",
            decoder.pending()
        );
    }
    let suppressed = log.finish();
    if suppressed > 0 {
        eprintln!("rtl-tcp: {suppressed} more commands not logged");
    }
    flags.session_stop.store(true, Ordering::Relaxed);
    (count, failed)
}

/// Write all of `data`, retrying on write timeouts until a stop flag is set.
/// Returns `false` if the data could not be sent.
fn send_all(mut stream: &TcpStream, mut data: &[u8], flags: &Flags<'_>) -> bool {
    while !data.is_empty() {
        match stream.write(data) {
            Ok(0) => return false,
            Ok(n) => data = &data[n..],
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) =>
            {
                if flags.stopping() {
                    return false;
                }
            }
            Err(_) => return false,
        }
    }
    true
}

/// Writer (the session thread): header, then ring → socket.
fn write_stream(
    stream: &TcpStream,
    header: &Header,
    consumer: &mut Consumer,
    flags: &Flags<'_>,
    sent: &mut u64,
) -> SessionEnd {
    let stopped = |flags: &Flags<'_>| {
        if flags.server_stop.load(Ordering::Relaxed) {
            SessionEnd::ServerStopped
        } else {
            SessionEnd::ClientClosed
        }
    };
    if !send_all(stream, &header.encode(), flags) {
        return stopped(flags);
    }
    loop {
        if flags.stopping() {
            return stopped(flags);
        }
        // Read the flag before looking at the ring: if the source was done
        // then, an empty ring means everything has been sent.
        let source_done = flags.source_done.load(Ordering::Acquire);
        match consumer.pop_timeout(POLL) {
            Ok(buf) => {
                if !send_all(stream, &buf, flags) {
                    return stopped(flags);
                }
                *sent += buf.len() as u64;
            }
            Err(PopError::Timeout | PopError::Closed) if source_done => {
                return SessionEnd::SourceEnded;
            }
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod test {
    use super::super::client::{Client, ClientError};
    use super::super::file::{self, FileControl, FileSource};
    use super::super::protocol::{Command, TunerType};
    use super::*;
    use std::path::PathBuf;
    use std::time::Instant;

    struct Running {
        addr: SocketAddr,
        stop: Arc<AtomicBool>,
        handle: Option<JoinHandle<Result<Stopped<FileControl, FileSource>, ServerError>>>,
    }

    impl Running {
        fn finish(mut self) -> (FileControl, ServerStats) {
            self.stop.store(true, Ordering::Relaxed);
            let stopped = self.handle.take().unwrap().join().unwrap().unwrap();
            (stopped.control, stopped.stats)
        }
    }

    impl Drop for Running {
        fn drop(&mut self) {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    fn pattern(len: usize, seed: u32) -> Vec<u8> {
        let mut x = seed.wrapping_mul(2_654_435_761) | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect()
    }

    fn serve(
        name: &str,
        data: &[u8],
        rate: u32,
        looping: bool,
        config: ServerConfig,
    ) -> (Running, PathBuf) {
        let p =
            std::env::temp_dir().join(format!("airwaves-srv-{}-{name}.cu8", std::process::id()));
        std::fs::write(&p, data).unwrap();
        let (source, control) = file::open(&p, rate, looping).unwrap();
        let server = Server::bind("127.0.0.1:0", config, control, source).unwrap();
        let addr = server.local_addr().unwrap();
        let stop = server.stop_flag();
        let handle = Some(thread::spawn(move || server.run()));
        (Running { addr, stop, handle }, p)
    }

    /// Connect, retrying while the previous session is still winding down
    /// (a client arriving then is refused, as any second client is).
    fn connect_retry(addr: SocketAddr) -> Client {
        let t0 = Instant::now();
        loop {
            match Client::connect(addr, Duration::from_secs(5)) {
                Ok(c) => return c,
                Err(ClientError::Closed) if t0.elapsed() < Duration::from_secs(3) => {
                    thread::sleep(Duration::from_millis(20));
                }
                Err(e) => panic!("{e}"),
            }
        }
    }

    fn read_to_end(client: &mut Client) -> Vec<u8> {
        let mut got = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match client.read(&mut buf) {
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(ClientError::Closed) => return got,
                Err(e) => panic!("{e}"),
            }
        }
    }

    #[test]
    fn test_stream_every_byte_and_commands() {
        let data = pattern(300_000, 1);
        let (srv, p) = serve("bytes", &data, 3_200_000, false, ServerConfig::default());
        let mut c = Client::connect(srv.addr, Duration::from_secs(5)).unwrap();
        assert_eq!(c.header().tuner, TunerType::R820t);
        assert_eq!(c.header().gain_count, 29);
        c.send(Command::SetCenterFreq(1_090_000_000)).unwrap();
        c.send(Command::SetGainByIndex(28)).unwrap();
        // A second client is refused while the first is served.
        let second = Client::connect(srv.addr, Duration::from_secs(2));
        assert!(
            matches!(second, Err(ClientError::BadHeader(_) | ClientError::Closed)),
            "{second:?}"
        );
        assert_eq!(read_to_end(&mut c), data);
        // Served again from the start to the next client.
        let mut c2 = connect_retry(srv.addr);
        assert_eq!(read_to_end(&mut c2), data);
        let (ctl, stats) = srv.finish();
        assert_eq!(stats.sessions, 2);
        assert!(stats.refused >= 1);
        assert_eq!(stats.bytes_sent, 2 * data.len() as u64);
        assert_eq!(stats.buffers_dropped, 0);
        assert_eq!(ctl.settings().center_freq, 1_090_000_000);
        assert_eq!(ctl.settings().gain_tenth_db, 496);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn test_partial_and_garbage_commands() {
        let data = pattern(20_000, 2);
        let (srv, p) = serve("garbage", &data, 250_000, true, ServerConfig::default());
        let mut raw = TcpStream::connect(srv.addr).unwrap();
        let mut header = [0u8; 12];
        raw.read_exact(&mut header).unwrap();
        assert_eq!(Header::parse(&header).unwrap(), Header::R820T);
        // One command split over three writes, with pauses.
        let cmd = Command::SetCenterFreq(433_920_000).encode();
        for piece in [&cmd[..1], &cmd[1..3], &cmd[3..]] {
            raw.write_all(piece).unwrap();
            thread::sleep(Duration::from_millis(20));
        }
        // Garbage: five unknown commands, an out-of-range rate, and one
        // unknown command split over two writes.
        raw.write_all(&[0xff; 25]).unwrap();
        raw.write_all(&Command::SetSampleRate(5).encode()).unwrap();
        raw.write_all(&[0x00, 0x00]).unwrap();
        thread::sleep(Duration::from_millis(20));
        raw.write_all(&[0x00, 0x00, 0x00]).unwrap();
        raw.write_all(&Command::SetBiasTee(true).encode()).unwrap();
        // Keep reading so the stream flows, then leave.
        let t0 = Instant::now();
        let mut buf = [0u8; 4096];
        while t0.elapsed() < Duration::from_millis(300) {
            assert!(raw.read(&mut buf).unwrap() > 0, "stream ended early");
        }
        drop(raw);
        let mut c = connect_retry(srv.addr);
        let mut first = vec![0u8; data.len()];
        c.read_exact(&mut first).unwrap();
        assert_eq!(first, data);
        drop(c);
        let (ctl, stats) = srv.finish();
        assert_eq!((stats.commands, stats.commands_failed), (9, 7));
        let s = ctl.settings();
        assert_eq!(s.center_freq, 433_920_000);
        assert_eq!(s.sample_rate, 250_000);
        assert!(s.bias_tee);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn test_client_that_never_reads_loses_counted_buffers() {
        // 3.2 Msps = 6.4 MB/s into a ring of 4 x 16 KiB and a client that
        // never reads: the kernel socket buffers fill, then the ring, then
        // buffers are dropped and counted.
        let data = pattern(1 << 20, 3);
        let config = ServerConfig {
            buffers: 4,
            buffer_len: 16 * 1024,
        };
        let (srv, p) = serve("slow", &data, 3_200_000, true, config);
        let mut raw = TcpStream::connect(srv.addr).unwrap();
        let mut header = [0u8; 12];
        raw.read_exact(&mut header).unwrap();
        thread::sleep(Duration::from_millis(1500));
        drop(raw);
        // The server still serves the next client, from the start.
        let mut c = connect_retry(srv.addr);
        let mut first = vec![0u8; 100_000];
        c.read_exact(&mut first).unwrap();
        assert_eq!(first, data[..100_000]);
        drop(c);
        let (_, stats) = srv.finish();
        assert_eq!(stats.sessions, 2);
        assert!(stats.buffers_dropped > 0, "{stats:?}");
        assert_eq!(stats.bytes_dropped, stats.buffers_dropped * 16 * 1024);
        std::fs::remove_file(p).unwrap();
    }
}
