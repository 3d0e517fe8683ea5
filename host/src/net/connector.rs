//! Outgoing connections, `--net-connector HOST,PORT,PROTOCOL` (readsb's
//! convention): send an output stream to a remote aggregator, or read a
//! remote receiver's Beast feed.
//!
//! | protocol | does |
//! |---|---|
//! | `beast_out` | attaches the connection to [`OutputHubs::beast`] |
//! | `raw_out` | attaches it to [`OutputHubs::raw`] (AVR) |
//! | `sbs_out` | attaches it to [`OutputHubs::sbs`] |
//! | `beast_reduce_out` | attaches it to [`OutputHubs::beast_reduce`] |
//! | `beast_reduce_plus_out` | sends the receiver's UUID ([`OutputHubs::uuid`]), then as `beast_reduce_out` |
//! | `beast_in` | pumps it into the [`BeastInSink`] |
//!
//! A connector thread resolves the host (every attempt, so DNS changes are
//! followed), connects with a [`CONNECT_TIMEOUT`], and after a failure
//! waits [`Backoff::first`], doubling up to [`Backoff::max`]; after a
//! connection that worked ends, it waits `first` again.

use super::beast_in::{BeastInSink, pump_socket};
use super::fanout::Hub;
use super::lock;
use std::fmt;
use std::io::{self, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// Longest wait for one TCP connect.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How often a connector whose output connection is up looks at its stop
/// flag.
const STOP_POLL: Duration = Duration::from_millis(100);

/// What a connector does with its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConnectorProtocol {
    /// Send Beast binary (`beast_out`).
    BeastOut,
    /// Send raw AVR text (`raw_out`).
    RawOut,
    /// Send SBS / BaseStation text (`sbs_out`).
    SbsOut,
    /// Send reduced Beast (`beast_reduce_out`).
    BeastReduceOut,
    /// Send the receiver's UUID, then reduced Beast
    /// (`beast_reduce_plus_out`).
    BeastReducePlusOut,
    /// Receive Beast binary (`beast_in`).
    BeastIn,
}

impl ConnectorProtocol {
    /// Every protocol, in the order of the help text.
    pub const ALL: [Self; 6] = [
        Self::BeastOut,
        Self::RawOut,
        Self::SbsOut,
        Self::BeastReduceOut,
        Self::BeastReducePlusOut,
        Self::BeastIn,
    ];

    /// The name on the command line (`beast_out`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Self::BeastOut => "beast_out",
            Self::RawOut => "raw_out",
            Self::SbsOut => "sbs_out",
            Self::BeastReduceOut => "beast_reduce_out",
            Self::BeastReducePlusOut => "beast_reduce_plus_out",
            Self::BeastIn => "beast_in",
        }
    }
}

/// One `--net-connector HOST,PORT,PROTOCOL`.
///
/// ```
/// use airwaves::net::connector::{ConnectorProtocol, ConnectorSpec};
/// let s: ConnectorSpec = "feed.example.com,30004,beast_out".parse().unwrap();
/// assert_eq!((s.host.as_str(), s.port, s.protocol), ("feed.example.com", 30004, ConnectorProtocol::BeastOut));
/// assert_eq!(s.to_string(), "feed.example.com,30004,beast_out");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConnectorSpec {
    /// Host name or IP address (IPv6 without brackets, e.g. `::1`).
    pub host: String,
    /// TCP port, 1–65535.
    pub port: u16,
    /// What to do once connected.
    pub protocol: ConnectorProtocol,
}

/// Why a connector spec did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectorSpecError {
    /// Not three comma-separated fields.
    FieldCount {
        /// Fields found.
        got: usize,
    },
    /// The host field is empty or contains whitespace.
    BadHost(String),
    /// The port is not a number in 1–65535.
    BadPort(String),
    /// The protocol is none of [`ConnectorProtocol::ALL`].
    UnknownProtocol(String),
}

impl fmt::Display for ConnectorSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::FieldCount { got } => write!(
                f,
                "expected HOST,PORT,PROTOCOL (3 comma-separated fields), got {got} field{}",
                if *got == 1 { "" } else { "s" }
            ),
            Self::BadHost(h) => write!(f, "bad host {h:?}: empty or contains whitespace"),
            Self::BadPort(p) => write!(f, "bad port {p:?}: expected a number from 1 to 65535"),
            Self::UnknownProtocol(p) => {
                write!(f, "unknown protocol {p:?}: expected one of ")?;
                for (i, proto) in ConnectorProtocol::ALL.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{}", proto.name())?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ConnectorSpecError {}

impl FromStr for ConnectorSpec {
    type Err = ConnectorSpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fields: Vec<&str> = s.split(',').collect();
        let [host, port, protocol] = fields[..] else {
            return Err(ConnectorSpecError::FieldCount { got: fields.len() });
        };
        let host = host.trim();
        if host.is_empty() || host.contains(char::is_whitespace) {
            return Err(ConnectorSpecError::BadHost(host.to_owned()));
        }
        let port = match port.trim().parse::<u16>() {
            Ok(p) if p != 0 => p,
            _ => return Err(ConnectorSpecError::BadPort(port.to_owned())),
        };
        let protocol = ConnectorProtocol::ALL
            .into_iter()
            .find(|p| p.name() == protocol.trim())
            .ok_or_else(|| ConnectorSpecError::UnknownProtocol(protocol.to_owned()))?;
        Ok(Self {
            host: host.to_owned(),
            port,
            protocol,
        })
    }
}

impl fmt::Display for ConnectorSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.host, self.port, self.protocol.name())
    }
}

/// The output hubs a connector can attach to, one per output protocol.
#[derive(Debug, Clone)]
pub struct OutputHubs {
    /// Raw AVR (`raw_out`, port 30002).
    pub raw: Hub,
    /// SBS (`sbs_out`, port 30003).
    pub sbs: Hub,
    /// Beast binary (`beast_out`, port 30005).
    pub beast: Hub,
    /// Reduced Beast (`beast_reduce_out`, `beast_reduce_plus_out`).
    pub beast_reduce: Hub,
    /// The receiver's UUID for `beast_reduce_plus_out`, if known.
    pub uuid: Option<ReceiverUuid>,
}

/// A receiver's UUID as aggregators take it (readsb's `--uuid-file`):
/// 28 to 36 characters of hexadecimal digits and dashes, e.g.
/// `123e4567-e89b-12d3-a456-426614174000`.
///
/// ```
/// use airwaves::net::connector::ReceiverUuid;
/// let u: ReceiverUuid = "123e4567-e89b-12d3-a456-426614174000".parse().unwrap();
/// assert_eq!(&u.greeting()[..2], &[0x1A, 0xE4]);
/// assert!("not-a-uuid".parse::<ReceiverUuid>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiverUuid(String);

impl FromStr for ReceiverUuid {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let ok_chars = s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
        if ok_chars && (28..=36).contains(&s.len()) {
            Ok(ReceiverUuid(s.to_string()))
        } else {
            Err(format!(
                "{s:?} is not a UUID (28 to 36 hexadecimal digits and dashes)"
            ))
        }
    }
}

impl ReceiverUuid {
    /// The UUID message sent first on `beast_reduce_plus_out`: `1A E4`,
    /// then the UUID padded with `f` to 36 characters (readsb's).
    pub fn greeting(&self) -> [u8; 38] {
        let mut g = [b'f'; 38];
        g[0] = 0x1A;
        g[1] = 0xE4;
        for (d, s) in g[2..].iter_mut().zip(self.0.bytes()) {
            *d = s;
        }
        g
    }
}

/// Reconnect delays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// Wait after a connection ends or the first failed attempt.
    pub first: Duration,
    /// Longest wait: the delay doubles after each failed attempt up to this.
    pub max: Duration,
}

impl Default for Backoff {
    /// 0.5 s doubling to 30 s.
    fn default() -> Self {
        Self {
            first: Duration::from_millis(500),
            max: Duration::from_secs(30),
        }
    }
}

/// Where a connection goes once up.
#[derive(Debug, Clone)]
enum Target {
    /// Attach to the hub, after sending the greeting (if any) first.
    Output(Hub, Option<[u8; 38]>),
    BeastIn(BeastInSink),
}

/// Counters of one connector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConnectorStats {
    /// Connected now.
    pub connected: bool,
    /// Connections made.
    pub connects: u64,
    /// Attempts that failed (resolve, connect or attach).
    pub failures: u64,
}

#[derive(Debug, Default)]
struct Shared {
    stop: AtomicBool,
    stats: Mutex<ConnectorStats>,
    /// Signalled on connect, disconnect and stop.
    changed: Condvar,
}

impl Shared {
    fn set_connected(&self, connected: bool) {
        let mut st = lock(&self.stats);
        st.connected = connected;
        if connected {
            st.connects += 1;
        }
        drop(st);
        self.changed.notify_all();
    }

    fn failed(&self) {
        lock(&self.stats).failures += 1;
    }

    /// Sleep `d` unless stopped first; `false` if stopped.
    fn sleep(&self, d: Duration) -> bool {
        let deadline = Instant::now() + d;
        let mut st = lock(&self.stats);
        while !self.stop.load(Ordering::Relaxed) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return true;
            }
            st = self
                .changed
                .wait_timeout(st, left)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
        false
    }
}

/// A running connector. Dropping it stops the connector (closing its
/// connection) and waits for its thread, at most about 0.25 s.
#[derive(Debug)]
pub struct ConnectorHandle {
    spec: ConnectorSpec,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl ConnectorHandle {
    /// The spec it runs.
    pub fn spec(&self) -> &ConnectorSpec {
        &self.spec
    }

    /// Whether the connection is up now.
    pub fn is_connected(&self) -> bool {
        lock(&self.shared.stats).connected
    }

    /// Wait up to `timeout` for the connection to be up; `true` if it is.
    pub fn wait_connected(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut st = lock(&self.shared.stats);
        while !st.connected {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            st = self
                .shared
                .changed
                .wait_timeout(st, left)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
        true
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> ConnectorStats {
        *lock(&self.shared.stats)
    }

    /// Stop: close the connection, stop retrying, wait for the thread.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.shared.changed.notify_all();
        if let Some(t) = self.thread.take() {
            // The connector loop does not panic; nothing to recover if it did.
            let _ = t.join();
        }
    }
}

impl Drop for ConnectorHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Start a connector for `spec` with the default [`Backoff`]: output
/// protocols attach to the matching hub of `outputs`, `beast_in` pumps into
/// `beast_in`.
///
/// # Errors
///
/// The connector thread could not be started.
pub fn spawn_connector(
    spec: ConnectorSpec,
    outputs: &OutputHubs,
    beast_in: &BeastInSink,
) -> io::Result<ConnectorHandle> {
    spawn_connector_with(spec, outputs, beast_in, Backoff::default())
}

/// [`spawn_connector`] with explicit reconnect delays.
///
/// # Errors
///
/// The connector thread could not be started.
pub fn spawn_connector_with(
    spec: ConnectorSpec,
    outputs: &OutputHubs,
    beast_in: &BeastInSink,
    backoff: Backoff,
) -> io::Result<ConnectorHandle> {
    let target = match spec.protocol {
        ConnectorProtocol::BeastOut => Target::Output(outputs.beast.clone(), None),
        ConnectorProtocol::RawOut => Target::Output(outputs.raw.clone(), None),
        ConnectorProtocol::SbsOut => Target::Output(outputs.sbs.clone(), None),
        ConnectorProtocol::BeastReduceOut => Target::Output(outputs.beast_reduce.clone(), None),
        ConnectorProtocol::BeastReducePlusOut => Target::Output(
            outputs.beast_reduce.clone(),
            outputs.uuid.as_ref().map(ReceiverUuid::greeting),
        ),
        ConnectorProtocol::BeastIn => Target::BeastIn(beast_in.clone()),
    };
    let shared = Arc::new(Shared::default());
    let thread_shared = Arc::clone(&shared);
    let thread_spec = spec.clone();
    let thread = thread::Builder::new()
        .name(format!("connector-{}", spec.protocol.name()))
        .spawn(move || run(&thread_spec, &target, backoff, &thread_shared))?;
    Ok(ConnectorHandle {
        spec,
        shared,
        thread: Some(thread),
    })
}

fn connect(spec: &ConnectorSpec) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "host resolved to no address");
    for addr in (spec.host.as_str(), spec.port).to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn run(spec: &ConnectorSpec, target: &Target, backoff: Backoff, shared: &Shared) {
    let mut delay = backoff.first;
    while !shared.stop.load(Ordering::Relaxed) {
        let wait = match connect(spec).and_then(|s| serve(s, target, shared)) {
            Ok(()) => {
                delay = backoff.first;
                delay
            }
            Err(e) => {
                shared.failed();
                eprintln!(
                    "connector {spec}: {e}; retrying in {:.1} s",
                    delay.as_secs_f32()
                );
                let wait = delay;
                delay = (delay * 2).min(backoff.max);
                wait
            }
        };
        if !shared.sleep(wait) {
            break;
        }
    }
}

/// Run one connection until it ends or the connector stops.
fn serve(stream: TcpStream, target: &Target, shared: &Shared) -> io::Result<()> {
    stream.set_nodelay(true)?;
    match target {
        Target::Output(hub, greeting) => {
            if let Some(g) = greeting {
                // A fresh connection: 38 bytes fit its send buffer.
                (&stream).write_all(g)?;
            }
            let client = hub.attach(stream).map_err(io::Error::other)?;
            shared.set_connected(true);
            while !client.wait_closed(STOP_POLL) {
                if shared.stop.load(Ordering::Relaxed) {
                    client.close();
                }
            }
        }
        Target::BeastIn(sink) => {
            shared.set_connected(true);
            let end = pump_socket(&stream, sink, &shared.stop);
            let _ = stream.shutdown(std::net::Shutdown::Both);
            shared.set_connected(false);
            return end.map(drop);
        }
    }
    shared.set_connected(false);
    Ok(())
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::net::beast_in::{BeastInStats, RemoteFrame};
    use airwaves_core::modes::encode::{BEAST_MAX_LEN, Timestamp, encode_beast};
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::sync::mpsc::{Receiver, sync_channel};

    const FAST: Backoff = Backoff {
        first: Duration::from_millis(20),
        max: Duration::from_millis(200),
    };

    fn setup() -> (OutputHubs, BeastInSink, Receiver<RemoteFrame>) {
        let (tx, rx) = sync_channel(16);
        let hubs = OutputHubs {
            raw: Hub::new("test-raw", 4096),
            sbs: Hub::new("test-sbs", 4096),
            beast: Hub::new("test-beast", 4096),
            beast_reduce: Hub::new("test-beast-reduce", 4096),
            uuid: Some("123e4567-e89b-12d3-a456-42661417".parse().unwrap()),
        };
        let sink = BeastInSink {
            tx,
            stats: BeastInStats::default(),
        };
        (hubs, sink, rx)
    }

    fn accept(listener: &TcpListener) -> TcpStream {
        let (s, _) = listener.accept().unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s
    }

    #[test]
    fn test_parse_spec() {
        let s: ConnectorSpec = " ::1 , 30005 ,beast_in".parse().unwrap();
        assert_eq!(
            s,
            ConnectorSpec {
                host: "::1".into(),
                port: 30005,
                protocol: ConnectorProtocol::BeastIn
            }
        );
        for p in ConnectorProtocol::ALL {
            let s: ConnectorSpec = format!("h,1,{}", p.name()).parse().unwrap();
            assert_eq!(s.protocol, p);
        }
        let err = |s: &str| s.parse::<ConnectorSpec>().unwrap_err();
        assert_eq!(err("host,30005"), ConnectorSpecError::FieldCount { got: 2 });
        assert_eq!(
            err("a,1,raw_out,x"),
            ConnectorSpecError::FieldCount { got: 4 }
        );
        assert_eq!(
            err(",1,raw_out"),
            ConnectorSpecError::BadHost(String::new())
        );
        assert_eq!(
            err("a b,1,raw_out"),
            ConnectorSpecError::BadHost("a b".into())
        );
        assert_eq!(err("h,0,raw_out"), ConnectorSpecError::BadPort("0".into()));
        assert_eq!(
            err("h,65536,raw_out"),
            ConnectorSpecError::BadPort("65536".into())
        );
        assert_eq!(err("h,x,raw_out"), ConnectorSpecError::BadPort("x".into()));
        assert_eq!(
            err("h,1,beast"),
            ConnectorSpecError::UnknownProtocol("beast".into())
        );
        assert_eq!(
            err("h,1,beast").to_string(),
            "unknown protocol \"beast\": expected one of beast_out, raw_out, sbs_out, beast_reduce_out, beast_reduce_plus_out, beast_in"
        );
        assert_eq!(
            err("host").to_string(),
            "expected HOST,PORT,PROTOCOL (3 comma-separated fields), got 1 field"
        );
        assert_eq!(
            err("h,99999,raw_out").to_string(),
            "bad port \"99999\": expected a number from 1 to 65535"
        );
    }

    /// beast_reduce_plus_out: the UUID first (readsb's `1A E4` and 36
    /// characters, short UUIDs padded with `f`), then the reduced stream.
    #[test]
    fn test_reduce_plus_sends_uuid_first() {
        let (hubs, sink, _rx) = setup();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let spec: ConnectorSpec = format!("127.0.0.1,{port},beast_reduce_plus_out")
            .parse()
            .unwrap();
        let conn = spawn_connector_with(spec, &hubs, &sink, FAST).unwrap();
        let mut peer = accept(&listener);
        assert!(conn.wait_connected(Duration::from_secs(10)));
        assert_eq!(hubs.beast_reduce.clients(), 1);
        hubs.beast_reduce.publish(&[0x1A, b'2']);
        let mut got = [0u8; 40];
        peer.read_exact(&mut got).unwrap();
        assert_eq!(&got[..2], &[0x1A, 0xE4]);
        assert_eq!(&got[2..38], b"123e4567-e89b-12d3-a456-42661417ffff");
        assert_eq!(&got[38..], &[0x1A, b'2']);
        assert!(
            "123e4567-e89b-12d3-a456-4266141740001"
                .parse::<ReceiverUuid>()
                .is_err()
        );
        assert!(
            "123e4567 e89b 12d3 a456 426614174000"
                .parse::<ReceiverUuid>()
                .is_err()
        );
    }

    #[test]
    fn test_output_reconnects() {
        let (hubs, sink, _rx) = setup();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let spec: ConnectorSpec = format!("127.0.0.1,{port},raw_out").parse().unwrap();
        let conn = spawn_connector_with(spec, &hubs, &sink, FAST).unwrap();

        let mut peer = accept(&listener);
        assert!(conn.wait_connected(Duration::from_secs(10)));
        assert_eq!(hubs.raw.clients(), 1);
        assert_eq!(hubs.beast.clients(), 0);
        hubs.raw.publish(b"*1234;\n");
        let mut got = [0u8; 7];
        peer.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"*1234;\n");

        // The peer closes: the connector notices and connects again.
        drop(peer);
        let mut peer = accept(&listener);
        assert!(conn.wait_connected(Duration::from_secs(10)));
        let deadline = Instant::now() + Duration::from_secs(10);
        while hubs.raw.clients() != 1 {
            assert!(Instant::now() < deadline);
            thread::sleep(Duration::from_millis(5));
        }
        hubs.raw.publish(b"*5678;\n");
        peer.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"*5678;\n");
        assert_eq!(conn.stats().connects, 2);

        // The peer goes away entirely, then comes back on the same port.
        drop(peer);
        drop(listener);
        let deadline = Instant::now() + Duration::from_secs(10);
        while conn.stats().failures < 3 {
            assert!(Instant::now() < deadline, "{:?}", conn.stats());
            thread::sleep(Duration::from_millis(5));
        }
        assert!(!conn.is_connected());
        let listener = TcpListener::bind(("127.0.0.1", port)).unwrap();
        let mut peer = accept(&listener);
        assert!(conn.wait_connected(Duration::from_secs(10)));
        assert_eq!(conn.stats().connects, 3);

        // Shutting the connector down closes its connection.
        conn.shutdown();
        assert_eq!(peer.read(&mut got).unwrap(), 0);
        assert_eq!(hubs.raw.clients(), 0);
    }

    #[test]
    fn test_beast_in_connector() {
        let (hubs, sink, rx) = setup();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let spec: ConnectorSpec = format!("localhost,{port},beast_in").parse().unwrap();
        let stats = sink.stats.clone();
        let conn = spawn_connector_with(spec, &hubs, &sink, FAST).unwrap();
        let mut peer = accept(&listener);
        assert!(conn.wait_connected(Duration::from_secs(10)));
        let mut out = [0u8; BEAST_MAX_LEN];
        let frame = [0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5];
        for t in 0..3u64 {
            let n = encode_beast(&mut out, &frame, Timestamp::from_ticks(0x1A + t), 0x1A).unwrap();
            peer.write_all(&out[..n]).unwrap();
        }
        for t in 0..3u64 {
            let f = rx.recv_timeout(Duration::from_secs(10)).unwrap();
            assert_eq!(f.message.frame(), &frame);
            assert_eq!(f.message.timestamp, Some(Timestamp::from_ticks(0x1A + t)));
        }
        // The peer closes; the connector comes back as a new peer.
        drop(peer);
        let _peer = accept(&listener);
        assert!(conn.wait_connected(Duration::from_secs(10)));
        let deadline = Instant::now() + Duration::from_secs(10);
        while stats.counts().connections != 2 || stats.counts().frames != 3 {
            assert!(Instant::now() < deadline);
            thread::sleep(Duration::from_millis(5));
        }
        conn.shutdown();
    }

    #[test]
    fn test_unresolvable_host_retries() {
        let (hubs, sink, _rx) = setup();
        let spec: ConnectorSpec = "host.invalid,30005,beast_out".parse().unwrap();
        let conn = spawn_connector_with(spec, &hubs, &sink, FAST).unwrap();
        // Resolving may take a while without a network; it must fail.
        let deadline = Instant::now() + Duration::from_secs(60);
        while conn.stats().failures < 1 {
            assert!(Instant::now() < deadline);
            thread::sleep(Duration::from_millis(5));
        }
        assert!(!conn.is_connected());
        assert_eq!(conn.stats().connects, 0);
        conn.shutdown();
    }
}
