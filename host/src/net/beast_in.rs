//! Beast binary input (port 30004 and `beast_in` connectors): bytes from
//! remote receivers, decoded by core's [`BeastDecoder`], handed to the
//! decode thread through a bounded channel.
//!
//! [`pump_beast`] reads one stream into the channel with a fixed 8 KiB
//! buffer. Garbage, truncated messages and unknown message types are
//! skipped by the decoder and counted
//! ([`BeastInCounts::malformed`]); when the channel is full the frame is
//! dropped and counted ([`BeastInCounts::dropped_full`]), so a flood can
//! neither block the decode thread nor grow memory.

use super::listener::{Acceptor, ConnectionSlot, ListenerHandle, spawn_acceptor};
use crate::log_limit::LogLimit;
use airwaves_core::modes::encode::{BeastDecoder, Message, StreamDecoder};
use std::io::{self, Read};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Most Beast-input connections [`listen_beast_in`] serves at once.
pub const MAX_BEAST_IN_CLIENTS: usize = 64;

/// Read timeout of Beast-input sockets: how often a quiet connection looks
/// at its stop flag.
pub const STOP_POLL: Duration = Duration::from_millis(250);

/// Bytes read per `read` call.
const READ_BUF: usize = 8 * 1024;

/// Stack of a Beast-input connection thread.
const PUMP_STACK: usize = 128 * 1024;

/// Which connection a remote frame came from: numbered from 0 in order of
/// connection, per [`BeastInStats`] (wraps after 2³² connections).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PeerId(pub u32);

/// A frame received from a remote Beast feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteFrame {
    /// The message as decoded (frame, the feed's 12 MHz timestamp and
    /// signal byte).
    pub message: Message,
    /// The connection it came from.
    pub peer: PeerId,
}

#[derive(Debug, Default)]
struct Counters {
    next_peer: AtomicU32,
    connections: AtomicU64,
    bytes: AtomicU64,
    frames: AtomicU64,
    malformed: AtomicU64,
    dropped_full: AtomicU64,
}

/// Counters shared by every Beast input (listener and connectors); cloning
/// gives another handle on the same counters.
#[derive(Debug, Clone, Default)]
pub struct BeastInStats {
    counters: Arc<Counters>,
}

/// A snapshot of [`BeastInStats`] (all monotonic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BeastInCounts {
    /// Connections pumped (listener and connectors).
    pub connections: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Frames put into the channel.
    pub frames: u64,
    /// Malformed messages skipped by the decoder.
    pub malformed: u64,
    /// Good frames dropped because the channel was full.
    pub dropped_full: u64,
}

impl BeastInStats {
    /// A snapshot of the counters.
    pub fn counts(&self) -> BeastInCounts {
        let c = &*self.counters;
        BeastInCounts {
            connections: c.connections.load(Ordering::Relaxed),
            bytes: c.bytes.load(Ordering::Relaxed),
            frames: c.frames.load(Ordering::Relaxed),
            malformed: c.malformed.load(Ordering::Relaxed),
            dropped_full: c.dropped_full.load(Ordering::Relaxed),
        }
    }

    /// A new peer id, counted as a connection.
    pub fn new_peer(&self) -> PeerId {
        self.counters.connections.fetch_add(1, Ordering::Relaxed);
        PeerId(self.counters.next_peer.fetch_add(1, Ordering::Relaxed))
    }
}

/// Where Beast input goes: the decode thread's channel and the shared
/// counters.
#[derive(Debug, Clone)]
pub struct BeastInSink {
    /// Bounded channel to the decode thread (its capacity bounds the
    /// memory a flood can take).
    pub tx: SyncSender<RemoteFrame>,
    /// Counters for every input feeding `tx`.
    pub stats: BeastInStats,
}

/// How [`pump_beast`] ended without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PumpEnd {
    /// The stream reached its end (the peer closed).
    Eof,
    /// `stop` was set.
    Stopped,
    /// The receiving end of the channel is gone.
    ReceiverGone,
}

/// Decode Beast messages from `stream` into `sink` until the stream ends,
/// `stop` is set or the receiver is gone. Read timeouts (`WouldBlock`,
/// `TimedOut`) are not errors: they are when `stop` is looked at, so give
/// sockets a read timeout (e.g. [`STOP_POLL`]).
///
/// # Errors
///
/// Reading failed (other than a timeout or an interrupt).
pub fn pump_beast(
    mut stream: impl Read,
    sink: &BeastInSink,
    peer: PeerId,
    stop: &AtomicBool,
) -> io::Result<PumpEnd> {
    let c = &*sink.stats.counters;
    let mut decoder = BeastDecoder::new();
    let mut reported = 0u32;
    let mut buf = [0u8; READ_BUF];
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(PumpEnd::Stopped);
        }
        let n = match stream.read(&mut buf) {
            Ok(0) => return Ok(PumpEnd::Eof),
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) =>
            {
                continue;
            }
            Err(e) => return Err(e),
        };
        c.bytes.fetch_add(n as u64, Ordering::Relaxed);
        for message in decoder.feed(buf.get(..n).unwrap_or_default()) {
            match sink.tx.try_send(RemoteFrame { message, peer }) {
                Ok(()) => {
                    c.frames.fetch_add(1, Ordering::Relaxed);
                }
                Err(TrySendError::Full(_)) => {
                    c.dropped_full.fetch_add(1, Ordering::Relaxed);
                }
                Err(TrySendError::Disconnected(_)) => return Ok(PumpEnd::ReceiverGone),
            }
        }
        let dropped = decoder.dropped();
        c.malformed
            .fetch_add(u64::from(dropped.wrapping_sub(reported)), Ordering::Relaxed);
        reported = dropped;
    }
}

/// Pump one accepted or connected socket (read timeout [`STOP_POLL`]).
pub(crate) fn pump_socket(
    stream: &TcpStream,
    sink: &BeastInSink,
    stop: &AtomicBool,
) -> io::Result<PumpEnd> {
    stream.set_read_timeout(Some(STOP_POLL))?;
    let peer = sink.stats.new_peer();
    pump_beast(stream, sink, peer, stop)
}

struct BeastAcceptor {
    sink: BeastInSink,
    /// Connection errors logged (a peer resetting in a loop is counted).
    log: Arc<Mutex<LogLimit>>,
}

impl Acceptor for BeastAcceptor {
    fn accept(&mut self, stream: TcpStream, peer: SocketAddr, slot: ConnectionSlot) {
        let sink = self.sink.clone();
        let log = Arc::clone(&self.log);
        let spawned = thread::Builder::new()
            .name("beast-in".into())
            .stack_size(PUMP_STACK)
            .spawn(move || {
                if let Err(e) = pump_socket(&stream, &sink, slot.stop_flag()) {
                    let (print, suppressed) = log
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .event(Instant::now());
                    say_suppressed(suppressed);
                    if print {
                        eprintln!("beast-in: {peer}: {e}");
                    }
                }
            });
        if let Err(e) = spawned {
            eprintln!("beast-in: cannot start a connection thread: {e}");
        }
    }

    /// A burst of connection errors that has stopped is counted at once.
    fn idle(&mut self) {
        let n = self
            .log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .overdue(Instant::now());
        say_suppressed(n);
    }
}

impl Drop for BeastAcceptor {
    /// The listener stops: what the limit held back is counted.
    fn drop(&mut self) {
        say_suppressed(self.log.lock().unwrap_or_else(|p| p.into_inner()).finish());
    }
}

fn say_suppressed(n: u64) {
    if n > 0 {
        eprintln!("beast-in: {n} more connection errors not logged");
    }
}

/// Listen for Beast feeds on `addr` (at most [`MAX_BEAST_IN_CLIENTS`] at
/// once; the excess is closed) and pump each into `sink`.
///
/// # Errors
///
/// Binding `addr` or starting the accept thread failed.
pub fn listen_beast_in(addr: SocketAddr, sink: BeastInSink) -> io::Result<ListenerHandle> {
    spawn_acceptor(
        addr,
        "beast-in",
        MAX_BEAST_IN_CLIENTS,
        BeastAcceptor {
            sink,
            log: Arc::new(Mutex::new(LogLimit::new(10, Duration::from_secs(10)))),
        },
    )
}

#[cfg(test)]
mod test {
    use super::*;
    use airwaves_core::modes::encode::{BEAST_MAX_LEN, Timestamp, encode_beast};
    use airwaves_core::rng::Rng;
    use std::io::Write;
    use std::sync::mpsc::{Receiver, sync_channel};
    use std::time::Instant;

    static LONG: [u8; 14] = [
        0x8d, 0x40, 0x6b, 0x90, 0x20, 0x15, 0xa6, 0x78, 0xd4, 0xd2, 0x20, 0xaa, 0x4b, 0xda,
    ];
    static SHORT: [u8; 7] = [0x5d, 0x48, 0x4f, 0xde, 0xa2, 0x48, 0xf5];

    fn beast(frame: &[u8], ticks: u64, signal: u8) -> Vec<u8> {
        let mut out = [0u8; BEAST_MAX_LEN];
        let n = encode_beast(&mut out, frame, Timestamp::from_ticks(ticks), signal).unwrap();
        out[..n].to_vec()
    }

    /// A frame expected out of the decoder: bytes, ticks, signal.
    type Expected = (Vec<u8>, u64, u8);

    /// Valid messages (with 0x1A in timestamp, signal and frame) separated
    /// by skippable junk: random bytes without 0x1A, lone 0x1A before a
    /// non-type byte, an unknown type `'4'`, and a truncated message just
    /// before the next start. Returns the stream, the expected frames and
    /// the number of truncated messages.
    fn mixed_stream() -> (Vec<u8>, Vec<Expected>, u64) {
        let mut rng = Rng::new(0x0123_4567_89AB_CDEF);
        let mut frames = vec![
            (LONG.to_vec(), 0x1A_1A1A_0001, 0x1A),
            (SHORT.to_vec(), 7, 200),
            (vec![0x1A, 0x1A], 0x1A, 1),
        ];
        let mut long_1a = LONG;
        long_1a[5] = 0x1A;
        frames.push((long_1a.to_vec(), 0xFFFF_FFFF_FFFF, 0));
        let mut stream = Vec::new();
        let mut want = Vec::new();
        let mut truncated = 0;
        for round in 0..12u64 {
            let (f, t, s) = &frames[(round % 4) as usize];
            let msg = beast(f, t + round, *s);
            stream.extend_from_slice(&msg);
            want.push((f.clone(), (t + round) & 0xFFFF_FFFF_FFFF, *s));
            // Junk between messages.
            for _ in 0..rng.below(20) {
                let b = rng.below(256) as u8;
                stream.push(if b == 0x1A { 0x00 } else { b });
            }
            stream.extend_from_slice(&[0x1A, 0x00, 0xFF, 0x1A, b'9']);
            stream.extend_from_slice(&[0x1A, b'4', 1, 2, 3, 4]);
            if round % 3 == 0 {
                // Cut inside the timestamp or frame.
                let cut = 3 + rng.below(msg.len() as u64 - 4) as usize;
                let mut part = msg[..cut].to_vec();
                if part.last() == Some(&0x1A)
                    && part.iter().rev().take_while(|&&b| b == 0x1A).count() % 2 == 1
                {
                    part.pop(); // keep the cut on a whole escaped byte
                }
                stream.extend_from_slice(&part);
                truncated += 1;
            }
        }
        (stream, want, truncated)
    }

    /// Gives its data in two reads, split at `cut`.
    struct SplitReader<'a> {
        parts: [&'a [u8]; 2],
        next: usize,
    }
    impl Read for SplitReader<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            while let Some(part) = self.parts.get_mut(self.next) {
                if part.is_empty() {
                    self.next += 1;
                    continue;
                }
                let n = part.len().min(buf.len());
                buf[..n].copy_from_slice(&part[..n]);
                *part = &part[n..];
                return Ok(n);
            }
            Ok(0)
        }
    }

    fn sink(capacity: usize) -> (BeastInSink, Receiver<RemoteFrame>) {
        let (tx, rx) = sync_channel(capacity);
        (
            BeastInSink {
                tx,
                stats: BeastInStats::default(),
            },
            rx,
        )
    }

    #[test]
    fn test_pump_every_split() {
        let (stream, want, truncated) = mixed_stream();
        assert!(stream.len() > 300);
        let stop = AtomicBool::new(false);
        for cut in 0..=stream.len() {
            let (sink, rx) = sink(want.len() + 1);
            let reader = SplitReader {
                parts: [&stream[..cut], &stream[cut..]],
                next: 0,
            };
            assert_eq!(
                pump_beast(reader, &sink, PeerId(3), &stop).unwrap(),
                PumpEnd::Eof
            );
            let got: Vec<RemoteFrame> = rx.try_iter().collect();
            assert_eq!(got.len(), want.len(), "cut at {cut}");
            for (g, (f, t, s)) in got.iter().zip(&want) {
                assert_eq!(g.message.frame(), &f[..], "cut at {cut}");
                assert_eq!(g.message.timestamp, Some(Timestamp::from_ticks(*t)));
                assert_eq!(g.message.signal, Some(*s));
                assert_eq!(g.peer, PeerId(3));
            }
            let c = sink.stats.counts();
            assert_eq!(c.frames, want.len() as u64);
            assert_eq!(c.malformed, truncated, "cut at {cut}");
            assert_eq!(c.bytes, stream.len() as u64);
            assert_eq!(c.dropped_full, 0);
        }
    }

    #[test]
    fn test_full_channel_drops_and_counts() {
        let mut stream = Vec::new();
        for i in 0..5 {
            stream.extend_from_slice(&beast(&SHORT, i, 9));
        }
        let (sink, rx) = sink(2);
        let stop = AtomicBool::new(false);
        assert_eq!(
            pump_beast(&stream[..], &sink, PeerId(0), &stop).unwrap(),
            PumpEnd::Eof
        );
        let c = sink.stats.counts();
        assert_eq!((c.frames, c.dropped_full), (2, 3));
        let ticks: Vec<u64> = rx
            .try_iter()
            .map(|f| f.message.timestamp.unwrap().ticks())
            .collect();
        assert_eq!(ticks, [0, 1]);
        // A stopped pump reads nothing; a gone receiver ends the pump.
        stop.store(true, Ordering::Relaxed);
        assert_eq!(
            pump_beast(&stream[..], &sink, PeerId(0), &stop).unwrap(),
            PumpEnd::Stopped
        );
        drop(rx);
        stop.store(false, Ordering::Relaxed);
        assert_eq!(
            pump_beast(&stream[..], &sink, PeerId(0), &stop).unwrap(),
            PumpEnd::ReceiverGone
        );
    }

    #[test]
    fn test_shutdown_ends_connections() {
        let (sink, _rx) = sink(4);
        let handle = listen_beast_in("127.0.0.1:0".parse().unwrap(), sink).unwrap();
        let mut idle = TcpStream::connect(handle.local_addr()).unwrap();
        idle.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while handle.active() == 0 {
            assert!(Instant::now() < deadline);
            thread::sleep(Duration::from_millis(2));
        }
        handle.shutdown();
        // The pump sees the stop flag at its next read timeout and closes.
        let mut byte = [0u8; 1];
        assert_eq!(idle.read(&mut byte).unwrap(), 0);
    }

    #[test]
    fn test_listener_survives_garbage_flood() {
        let (sink, rx) = sink(64);
        let stats = sink.stats.clone();
        let handle = listen_beast_in("127.0.0.1:0".parse().unwrap(), sink).unwrap();
        let addr = handle.local_addr();
        let drained = Arc::new(AtomicU64::new(0));
        let drain = {
            let drained = Arc::clone(&drained);
            thread::spawn(move || {
                let mut frames = Vec::new();
                for f in rx.iter() {
                    frames.push(f);
                    drained.fetch_add(1, Ordering::Release);
                }
                frames
            })
        };

        // 10 MB of random bytes (0x1A and type bytes included), then 40
        // zeros that end any message the garbage started.
        let mut flood = TcpStream::connect(addr).unwrap();
        let mut rng = Rng::new(42);
        let mut chunk = vec![0u8; 64 * 1024];
        for _ in 0..160 {
            for b in chunk.iter_mut() {
                *b = match rng.below(16) {
                    0 => 0x1A,
                    1 => b'3',
                    _ => rng.below(256) as u8,
                };
            }
            flood.write_all(&chunk).unwrap();
        }
        flood.write_all(&[0u8; 40]).unwrap();
        let flood_len = 160 * 64 * 1024 + 40;
        // Once everything so far is decoded and drained, a good frame on
        // the same connection must come through.
        let deadline = Instant::now() + Duration::from_secs(30);
        while stats.counts().bytes < flood_len
            || drained.load(Ordering::Acquire) < stats.counts().frames
        {
            assert!(Instant::now() < deadline, "{:?}", stats.counts());
            thread::sleep(Duration::from_millis(2));
        }
        let marker = beast(&LONG, 0x0BAD_CAFE, 0x77);
        flood.write_all(&marker).unwrap();
        drop(flood);

        // A well-behaved second peer, at the same time.
        let mut good = TcpStream::connect(addr).unwrap();
        let short = beast(&SHORT, 5, 5);
        good.write_all(&short).unwrap();
        drop(good);

        let deadline = Instant::now() + Duration::from_secs(30);
        while stats.counts().connections < 2 || handle.active() > 0 {
            assert!(Instant::now() < deadline, "{:?}", stats.counts());
            thread::sleep(Duration::from_millis(5));
        }
        handle.shutdown();
        let c = stats.counts();
        assert_eq!(c.bytes, flood_len + (marker.len() + short.len()) as u64);
        assert!(c.malformed > 1000, "{c:?}");
        // The listener's sink was the last sender: the drain ends.
        let frames = drain.join().unwrap();
        assert_eq!(frames.len() as u64, c.frames);
        let marker_frames: Vec<_> = frames
            .iter()
            .filter(|f| f.message.timestamp == Some(Timestamp::from_ticks(0x0BAD_CAFE)))
            .collect();
        assert_eq!(marker_frames.len(), 1);
        assert_eq!(marker_frames[0].message.frame(), &LONG);
        assert_eq!(marker_frames[0].message.signal, Some(0x77));
        assert!(
            frames.iter().any(|f| f.message.frame() == SHORT
                && f.message.timestamp == Some(Timestamp::from_ticks(5)))
        );
        let peers: std::collections::BTreeSet<_> = frames.iter().map(|f| f.peer).collect();
        assert!(peers.len() <= 2);
    }
}
