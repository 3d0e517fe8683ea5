//! One stream of bytes fanned out to many TCP clients, none of which can
//! slow the publisher down.
//!
//! A [`Hub`] holds its clients; [`Hub::publish`] copies the bytes into
//! each client's buffer and wakes the client's writer thread, which sends
//! the buffered bytes in order. The publisher never touches a socket: it
//! holds a client's lock only for the copy, and the writer holds it only
//! to copy out a chunk of at most [`WRITE_CHUNK`] bytes.
//!
//! A client's buffer starts at [`INITIAL_BUFFER`] bytes and doubles only
//! when its backlog needs it, up to `client_buffer_bytes`: a client that
//! keeps up never costs more, so connection churn leaves little for the
//! allocator to keep (the only allocations after attach are these
//! doublings, at most a handful per client).
//!
//! A client is disconnected when it falls behind, counted by reason:
//!
//! - **slow**: its buffer cannot take the next publish (it has not read
//!   `client_buffer_bytes` plus what its socket buffers hold), whole
//!   publishes only, so a client never sees a partial publish followed by
//!   later data. Publish whole messages (e.g. one decoded buffer's worth of
//!   Beast messages); a single publish larger than the client buffer
//!   disconnects every client;
//! - **stalled**: its buffer has held bytes that its writer could not
//!   take for [`STALL_TIMEOUT`] (the writer is blocked on a socket whose
//!   peer reads nothing), or its socket took no byte for as long. The
//!   socket's kernel send buffer is capped at [`SEND_BUFFER`], so a client
//!   that stopped reading holds little of ours and is found within
//!   seconds, as readsb does, not after megabytes.
//!
//! Writers notice a peer that closed within [`IDLE_CHECK`] even when
//! nothing is published (they look for EOF while idle, discarding any
//! bytes the client sent).

use super::lock;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Largest chunk a writer copies out of its buffer and sends in one go.
pub const WRITE_CHUNK: usize = 16 * 1024;

/// How long an idle writer waits before checking whether its peer closed.
pub const IDLE_CHECK: Duration = Duration::from_millis(500);

/// A client's buffer when it attaches, bytes (it grows on demand).
pub const INITIAL_BUFFER: usize = 16 * 1024;

/// Kernel send buffer asked for each client socket, bytes (Linux doubles
/// it for its bookkeeping).
pub const SEND_BUFFER: usize = 64 * 1024;

/// A client whose socket takes no byte for this long is disconnected.
pub const STALL_TIMEOUT: Duration = Duration::from_secs(5);

/// Default cap on the clients of one hub (readsb's order of magnitude).
pub const DEFAULT_MAX_CLIENTS: usize = 1024;

/// Writer thread stack: the thread holds a heap chunk and a few frames.
const WRITER_STACK: usize = 128 * 1024;

/// FIFO of bytes, grown on demand up to a fixed limit.
#[derive(Debug)]
struct ByteRing {
    buf: Vec<u8>,
    /// Most bytes it may hold.
    limit: usize,
    head: usize,
    len: usize,
}

impl ByteRing {
    /// Empty, with room for `initial` bytes now and `limit` at most.
    fn new(initial: usize, limit: usize) -> Self {
        Self {
            buf: vec![0; initial.min(limit)],
            limit,
            head: 0,
            len: 0,
        }
    }

    /// Bytes it can still take (growing if need be).
    fn free(&self) -> usize {
        self.limit - self.len
    }

    /// Bytes allocated now.
    fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Make room for `more` bytes (the caller has checked `more <=
    /// free()`): double until they fit, at most to the limit, with the
    /// contents moved to the front.
    fn reserve(&mut self, more: usize) {
        let need = self.len + more;
        if need <= self.buf.len() {
            return;
        }
        let mut cap = self.buf.len().max(1);
        while cap < need {
            cap *= 2;
        }
        // `need <= limit` (the caller's check), so the limit still fits it.
        let mut grown = vec![0; cap.min(self.limit)];
        let n = self.pop_into(&mut grown);
        self.buf = grown;
        self.head = 0;
        self.len = n;
    }

    /// Append all of `data`; the caller has checked `data.len() <= free()`.
    fn push(&mut self, data: &[u8]) {
        self.reserve(data.len());
        let cap = self.buf.len();
        let tail = (self.head + self.len) % cap.max(1);
        let first = data.len().min(cap - tail);
        let (a, b) = data.split_at(first);
        if let Some(d) = self.buf.get_mut(tail..tail + first) {
            d.copy_from_slice(a);
        }
        if let Some(d) = self.buf.get_mut(..b.len()) {
            d.copy_from_slice(b);
        }
        self.len += data.len();
    }

    /// Move up to `out.len()` bytes into `out`; returns how many.
    fn pop_into(&mut self, out: &mut [u8]) -> usize {
        let cap = self.buf.len();
        let n = out.len().min(self.len);
        let first = n.min(cap - self.head);
        let (a, b) = out.split_at_mut(first);
        if let Some(s) = self.buf.get(self.head..self.head + first) {
            a.copy_from_slice(s);
        }
        if let (Some(d), Some(s)) = (b.get_mut(..n - first), self.buf.get(..n - first)) {
            d.copy_from_slice(s);
        }
        self.head = (self.head + n) % cap.max(1);
        self.len -= n;
        n
    }
}

/// Why a client was disconnected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseReason {
    /// Its buffer would have overflowed: it did not read fast enough.
    SlowConsumer,
    /// Its writer took no byte from its buffer, or its socket none from
    /// the writer, for [`STALL_TIMEOUT`].
    Stalled,
    /// The peer closed the connection (EOF seen while idle).
    PeerClosed,
    /// Sending failed (reset, broken pipe, ...).
    WriteFailed,
    /// [`ClientHandle::close`] or [`Hub::disconnect_all`].
    Closed,
}

impl fmt::Display for CloseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::SlowConsumer => "too slow, buffer full",
            Self::Stalled => "stalled, not reading",
            Self::PeerClosed => "closed by the peer",
            Self::WriteFailed => "send failed",
            Self::Closed => "closed locally",
        })
    }
}

/// A client's buffer and fate, under its lock.
#[derive(Debug)]
struct ClientState {
    ring: ByteRing,
    /// Since when the buffer has held bytes with the writer taking none.
    backlog_since: Option<Instant>,
    closed: Option<CloseReason>,
    /// Most bytes ever buffered at once.
    high_water: usize,
    /// The writer thread has ended.
    finished: bool,
}

#[derive(Debug)]
struct Client {
    id: u64,
    state: Mutex<ClientState>,
    /// Signalled on new data and on close, for the writer.
    data_ready: Condvar,
    /// Signalled when the writer ends, for [`ClientHandle::wait_closed`].
    finished: Condvar,
    /// A second handle on the socket, to shut it down (which unblocks the
    /// writer's send) from the publisher or a handle.
    socket: TcpStream,
}

impl Client {
    /// Close with `reason` unless already closed; returns whether this call
    /// closed it.
    fn close(&self, reason: CloseReason) -> bool {
        let mut st = lock(&self.state);
        if st.closed.is_some() {
            return false;
        }
        st.closed = Some(reason);
        drop(st);
        // Wakes a writer blocked in send; it may already be gone.
        let _ = self.socket.shutdown(Shutdown::Both);
        self.data_ready.notify_all();
        true
    }
}

#[derive(Debug)]
struct HubShared {
    name: &'static str,
    client_buffer_bytes: usize,
    max_clients: usize,
    clients: Mutex<Vec<Arc<Client>>>,
    next_id: AtomicU64,
    accepted: AtomicU64,
    refused: AtomicU64,
    dropped_slow: AtomicU64,
    dropped_stalled: AtomicU64,
    disconnected: AtomicU64,
    bytes_published: AtomicU64,
    bytes_sent: AtomicU64,
    max_buffered: AtomicUsize,
    /// When the hub was made (the clock of `last_publish_ms`).
    created: Instant,
    /// Time of the last publish, ms since `created`.
    last_publish_ms: AtomicU64,
}

impl HubShared {
    fn remove(&self, id: u64) {
        lock(&self.clients).retain(|c| c.id != id);
    }

    /// Offer `bytes` to one client; `false` if it is (now) closed.
    fn offer(&self, client: &Client, bytes: &[u8]) -> bool {
        let mut st = lock(&client.state);
        if st.closed.is_some() {
            return false;
        }
        if st.ring.free() < bytes.len() {
            drop(st);
            if client.close(CloseReason::SlowConsumer) {
                self.dropped_slow.fetch_add(1, Ordering::Relaxed);
            }
            return false;
        }
        let now = Instant::now();
        if st
            .backlog_since
            .is_some_and(|t| now.duration_since(t) >= STALL_TIMEOUT)
        {
            drop(st);
            if client.close(CloseReason::Stalled) {
                self.dropped_stalled.fetch_add(1, Ordering::Relaxed);
            }
            return false;
        }
        st.backlog_since.get_or_insert(now);
        st.ring.push(bytes);
        let buffered = st.ring.len;
        if buffered > st.high_water {
            st.high_water = buffered;
            self.max_buffered.fetch_max(buffered, Ordering::Relaxed);
        }
        drop(st);
        client.data_ready.notify_one();
        true
    }
}

/// Counters of a hub (monotonic except `clients`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HubStats {
    /// Clients connected now.
    pub clients: usize,
    /// Clients attached since the start.
    pub accepted: u64,
    /// Clients refused because the hub was full.
    pub refused: u64,
    /// Clients disconnected because their buffer would have overflowed.
    pub dropped_slow: u64,
    /// Clients disconnected as stalled: nothing taken from their buffer,
    /// or by their socket, for [`STALL_TIMEOUT`].
    pub dropped_stalled: u64,
    /// Clients that closed or failed on their own.
    pub disconnected: u64,
    /// Bytes given to [`Hub::publish`].
    pub bytes_published: u64,
    /// Bytes handed to client sockets, all clients together.
    pub bytes_sent: u64,
    /// Most bytes any client ever had buffered (≤ the client buffer size).
    pub max_buffered: usize,
}

/// Why [`Hub::attach`] did not take a client (the stream is closed).
#[derive(Debug)]
pub enum AttachError {
    /// The hub already has its maximum number of clients.
    Full {
        /// The cap.
        max: usize,
    },
    /// Cloning the socket or starting the writer thread failed.
    Io(io::Error),
}

impl fmt::Display for AttachError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full { max } => write!(f, "client refused: already {max} clients"),
            Self::Io(e) => write!(f, "cannot start a client writer: {e}"),
        }
    }
}

impl std::error::Error for AttachError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io(e) => Some(e),
            Self::Full { .. } => None,
        }
    }
}

/// A fan-out point for one output stream (e.g. Beast on 30005). Cloning
/// gives another handle on the same hub.
///
/// Memory: each client costs its buffer ([`INITIAL_BUFFER`], grown on
/// demand up to `client_buffer_bytes`), its socket's capped send buffer
/// and a thread with a 128 KiB stack (the [`WRITE_CHUNK`] is on it).
#[derive(Debug, Clone)]
pub struct Hub {
    shared: Arc<HubShared>,
}

impl Hub {
    /// A hub with no clients. `name` labels its threads and log lines
    /// (e.g. `"beast-out"`); each client gets a `client_buffer_bytes` buffer
    /// (at least 1; 256 KiB holds seconds of a busy Beast feed). At most
    /// [`DEFAULT_MAX_CLIENTS`] clients.
    pub fn new(name: &'static str, client_buffer_bytes: usize) -> Self {
        Self::build(name, client_buffer_bytes, DEFAULT_MAX_CLIENTS)
    }

    /// The same hub with a different cap on clients; call before attaching
    /// clients or sharing it (other handles keep the old hub).
    pub fn with_max_clients(self, max_clients: usize) -> Self {
        Self::build(
            self.shared.name,
            self.shared.client_buffer_bytes,
            max_clients,
        )
    }

    fn build(name: &'static str, client_buffer_bytes: usize, max_clients: usize) -> Self {
        Self {
            shared: Arc::new(HubShared {
                name,
                client_buffer_bytes: client_buffer_bytes.max(1),
                max_clients,
                clients: Mutex::new(Vec::new()),
                next_id: AtomicU64::new(0),
                accepted: AtomicU64::new(0),
                refused: AtomicU64::new(0),
                dropped_slow: AtomicU64::new(0),
                dropped_stalled: AtomicU64::new(0),
                disconnected: AtomicU64::new(0),
                bytes_published: AtomicU64::new(0),
                bytes_sent: AtomicU64::new(0),
                max_buffered: AtomicUsize::new(0),
                created: Instant::now(),
                last_publish_ms: AtomicU64::new(0),
            }),
        }
    }

    /// The name given to [`Hub::new`].
    pub fn name(&self) -> &'static str {
        self.shared.name
    }

    /// Bytes of buffer per client.
    pub fn client_buffer_bytes(&self) -> usize {
        self.shared.client_buffer_bytes
    }

    /// Publish `heartbeat` if the hub has clients and nothing was
    /// published for `idle` (since the last publish or heartbeat, or since
    /// the hub was made); `true` if it did.
    pub fn heartbeat_if_idle(&self, idle: Duration, heartbeat: &[u8]) -> bool {
        let s = &*self.shared;
        let now_ms = s.created.elapsed().as_millis() as u64;
        let last = s.last_publish_ms.load(Ordering::Relaxed);
        if now_ms.saturating_sub(last) < idle.as_millis() as u64 || self.clients() == 0 {
            return false;
        }
        self.publish(heartbeat);
        true
    }

    /// Append `bytes` to every client's buffer. A client whose buffer
    /// cannot take all of them is disconnected and counted in
    /// [`HubStats::dropped_slow`]. Never blocks on I/O and never allocates;
    /// the cost is one copy per client.
    pub fn publish(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let s = &*self.shared;
        s.bytes_published
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        s.last_publish_ms
            .store(s.created.elapsed().as_millis() as u64, Ordering::Relaxed);
        lock(&s.clients).retain(|c| s.offer(c, bytes));
    }

    /// Wait until every open client has room for `len` more bytes, up to
    /// `timeout`; `true` if they all have. A replay that must lose nothing
    /// (a file read faster than real time) calls this before
    /// [`Hub::publish`], so that clients pace it instead of being dropped;
    /// a client still full at the timeout is then dropped by the publish.
    pub fn wait_for_room(&self, len: usize, timeout: Duration) -> bool {
        self.wait_until(timeout, |st| st.ring.free() >= len)
    }

    /// Wait until every open client's buffer is empty (handed to its
    /// socket), up to `timeout`; `true` if so. Used before exiting so that
    /// clients receive everything published.
    pub fn flush(&self, timeout: Duration) -> bool {
        self.wait_until(timeout, |st| st.ring.len == 0)
    }

    /// Poll (every millisecond) until `ready` holds for every open client.
    fn wait_until(&self, timeout: Duration, ready: impl Fn(&ClientState) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            let all = lock(&self.shared.clients).iter().all(|c| {
                let st = lock(&c.state);
                st.closed.is_some() || ready(&st)
            });
            if all {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            thread::sleep(Duration::from_millis(1));
        }
    }

    /// Number of clients connected now.
    pub fn clients(&self) -> usize {
        lock(&self.shared.clients).len()
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> HubStats {
        let s = &*self.shared;
        HubStats {
            clients: self.clients(),
            accepted: s.accepted.load(Ordering::Relaxed),
            refused: s.refused.load(Ordering::Relaxed),
            dropped_slow: s.dropped_slow.load(Ordering::Relaxed),
            dropped_stalled: s.dropped_stalled.load(Ordering::Relaxed),
            disconnected: s.disconnected.load(Ordering::Relaxed),
            bytes_published: s.bytes_published.load(Ordering::Relaxed),
            bytes_sent: s.bytes_sent.load(Ordering::Relaxed),
            max_buffered: s.max_buffered.load(Ordering::Relaxed),
        }
    }

    /// Start sending this hub's stream to `stream` (from the next publish
    /// on), on a writer thread of its own. Sets `TCP_NODELAY`.
    ///
    /// # Errors
    ///
    /// The hub is full (counted in [`HubStats::refused`]), or the socket
    /// could not be cloned or the thread not started. The stream is closed.
    pub fn attach(&self, stream: TcpStream) -> Result<ClientHandle, AttachError> {
        let s = &self.shared;
        if self.clients() >= s.max_clients {
            s.refused.fetch_add(1, Ordering::Relaxed);
            return Err(AttachError::Full { max: s.max_clients });
        }
        // Best effort: latency matters more than packet count here; a
        // small kernel buffer and a send timeout find a stalled client in
        // seconds.
        let _ = stream.set_nodelay(true);
        let _ = socket2::SockRef::from(&stream).set_send_buffer_size(SEND_BUFFER);
        let _ = stream.set_write_timeout(Some(STALL_TIMEOUT));
        let socket = stream.try_clone().map_err(AttachError::Io)?;
        let client = Arc::new(Client {
            id: s.next_id.fetch_add(1, Ordering::Relaxed),
            state: Mutex::new(ClientState {
                ring: ByteRing::new(INITIAL_BUFFER, s.client_buffer_bytes),
                backlog_since: None,
                closed: None,
                high_water: 0,
                finished: false,
            }),
            data_ready: Condvar::new(),
            finished: Condvar::new(),
            socket,
        });
        let hub = Arc::clone(s);
        let writer_client = Arc::clone(&client);
        thread::Builder::new()
            .name(format!("{}-client", s.name))
            .stack_size(WRITER_STACK)
            .spawn(move || run_writer(&hub, &writer_client, stream))
            .map_err(AttachError::Io)?;
        s.accepted.fetch_add(1, Ordering::Relaxed);
        lock(&s.clients).push(Arc::clone(&client));
        Ok(ClientHandle { client })
    }

    /// Disconnect every client (reason [`CloseReason::Closed`]).
    pub fn disconnect_all(&self) {
        let clients = std::mem::take(&mut *lock(&self.shared.clients));
        for c in clients {
            c.close(CloseReason::Closed);
        }
    }
}

/// One attached client, as seen by whoever attached it (e.g. a connector
/// waiting for its connection to end). Dropping it leaves the client
/// connected.
#[derive(Debug, Clone)]
pub struct ClientHandle {
    client: Arc<Client>,
}

impl ClientHandle {
    /// Whether the client has been disconnected (its writer may still be
    /// finishing).
    pub fn is_closed(&self) -> bool {
        lock(&self.client.state).closed.is_some()
    }

    /// Why it was disconnected, once it was.
    pub fn close_reason(&self) -> Option<CloseReason> {
        lock(&self.client.state).closed
    }

    /// Wait up to `timeout` for the writer thread to end; `true` if it has.
    pub fn wait_closed(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut st = lock(&self.client.state);
        while !st.finished {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            st = self
                .client
                .finished
                .wait_timeout(st, left)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
        true
    }

    /// Disconnect this client now (reason [`CloseReason::Closed`]).
    pub fn close(&self) {
        self.client.close(CloseReason::Closed);
    }

    /// Most bytes this client ever had buffered.
    pub fn high_water(&self) -> usize {
        lock(&self.client.state).high_water
    }

    /// Bytes its buffer holds allocated now ([`INITIAL_BUFFER`] until its
    /// backlog needed more).
    pub fn buffer_capacity(&self) -> usize {
        lock(&self.client.state).ring.capacity()
    }
}

/// The writer thread: send buffered bytes until the client is closed.
fn run_writer(hub: &HubShared, client: &Client, mut stream: TcpStream) {
    // On the thread's stack: a heap chunk per writer thread would leave
    // the allocator an arena per thread to keep after churn.
    let mut chunk = [0u8; WRITE_CHUNK];
    let reason = loop {
        let n = match next_chunk(client, &mut chunk, &mut stream) {
            Ok(n) => n,
            Err(reason) => break reason,
        };
        let Some(data) = chunk.get(..n) else {
            break CloseReason::WriteFailed;
        };
        match stream.write_all(data) {
            Ok(()) => {}
            // The send timeout: no byte taken for STALL_TIMEOUT.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                break CloseReason::Stalled;
            }
            Err(_) => break CloseReason::WriteFailed,
        }
        hub.bytes_sent.fetch_add(n as u64, Ordering::Relaxed);
    };
    // A failed send after the publisher closed us keeps its reason.
    if client.close(reason) {
        if reason == CloseReason::Stalled {
            hub.dropped_stalled.fetch_add(1, Ordering::Relaxed);
        } else {
            hub.disconnected.fetch_add(1, Ordering::Relaxed);
        }
    }
    let _ = stream.shutdown(Shutdown::Both);
    hub.remove(client.id);
    lock(&client.state).finished = true;
    client.finished.notify_all();
}

/// Wait for buffered bytes and move up to a chunk of them into `chunk`.
fn next_chunk(
    client: &Client,
    chunk: &mut [u8],
    stream: &mut TcpStream,
) -> Result<usize, CloseReason> {
    let mut st = lock(&client.state);
    loop {
        if let Some(reason) = st.closed {
            return Err(reason);
        }
        if st.ring.len > 0 {
            let n = st.ring.pop_into(chunk);
            // Progress: what is left is counted from now.
            st.backlog_since = (st.ring.len > 0).then(Instant::now);
            return Ok(n);
        }
        let (guard, wait) = client
            .data_ready
            .wait_timeout(st, IDLE_CHECK)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        st = guard;
        if wait.timed_out() && st.ring.len == 0 && st.closed.is_none() {
            drop(st);
            if !peer_open(stream) {
                return Err(CloseReason::PeerClosed);
            }
            st = lock(&client.state);
        }
    }
}

/// Whether the peer still has the connection open: a non-blocking read
/// sees EOF or an error when it closed. Bytes it sent are discarded.
fn peer_open(stream: &mut TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let mut scratch = [0u8; 512];
    let open = loop {
        match stream.read(&mut scratch) {
            Ok(0) => break false,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break false,
        }
    };
    open && stream.set_nonblocking(false).is_ok()
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::net::listener::listen;
    use std::net::SocketAddr;
    use std::sync::atomic::AtomicBool;

    use crate::net::testing::wait_until;

    fn local() -> SocketAddr {
        "127.0.0.1:0".parse().unwrap()
    }

    /// Byte `i` of the test stream: not periodic in any chunk size used.
    fn pattern(i: u64) -> u8 {
        (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8
    }

    #[test]
    fn test_heartbeat_only_when_idle_with_clients() {
        let hub = Hub::new("hb", 4096);
        let idle = Duration::from_millis(200);
        // No clients: nothing to keep alive.
        thread::sleep(Duration::from_millis(250));
        assert!(!hub.heartbeat_if_idle(idle, b"*0000;\n"));
        let l = std::net::TcpListener::bind(local()).unwrap();
        let mut peer = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        peer.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let _h = hub.attach(l.accept().unwrap().0).unwrap();
        assert!(hub.heartbeat_if_idle(idle, b"*0000;\n"));
        // Just sent: not again until idle has passed.
        assert!(!hub.heartbeat_if_idle(idle, b"*0000;\n"));
        hub.publish(b"*8D;\n");
        thread::sleep(Duration::from_millis(100));
        assert!(!hub.heartbeat_if_idle(idle, b"*0000;\n"), "data is flowing");
        thread::sleep(Duration::from_millis(150));
        assert!(hub.heartbeat_if_idle(idle, b"*0000;\n"));
        let mut got = [0u8; 19];
        peer.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"*0000;\n*8D;\n*0000;\n");
    }

    #[test]
    fn test_wait_for_room_paces_a_replay_and_flush_drains() {
        let hub = Hub::new("pace", 4096);
        let l = listen(local(), hub.clone()).unwrap();
        let mut c = TcpStream::connect(l.local_addr()).unwrap();
        wait_until("client attached", || hub.clients() == 1);
        let reader = thread::spawn(move || {
            let mut v = Vec::new();
            let mut buf = [0u8; 1024];
            // Read slowly: the publisher must wait for us, not drop us.
            while v.len() < 1_000_000 {
                let n = c.read(&mut buf).unwrap();
                assert!(n > 0, "dropped after {} bytes", v.len());
                v.extend_from_slice(&buf[..n]);
                thread::sleep(Duration::from_micros(50));
            }
            v
        });
        let block: Vec<u8> = (0..1000u64).map(pattern).collect();
        for _ in 0..1000 {
            assert!(hub.wait_for_room(block.len(), Duration::from_secs(10)));
            hub.publish(&block);
        }
        assert!(hub.flush(Duration::from_secs(10)));
        let got = reader.join().unwrap();
        assert_eq!(got.len(), 1_000_000);
        assert!(got.chunks(1000).all(|c| c == block.as_slice()));
        assert_eq!(hub.stats().dropped_slow, 0);
    }

    #[test]
    fn test_byte_ring() {
        // Starts with room for 2, grows to its limit of 5 as needed.
        let mut r = ByteRing::new(2, 5);
        assert_eq!(r.capacity(), 2);
        r.push(b"abc");
        let mut out = [0u8; 2];
        assert_eq!(r.pop_into(&mut out), 2);
        assert_eq!(&out, b"ab");
        assert_eq!(r.free(), 4);
        r.push(b"defg"); // grows, then holds its limit
        assert_eq!((r.free(), r.capacity()), (0, 5));
        let mut out = [0u8; 8];
        assert_eq!(r.pop_into(&mut out), 5);
        assert_eq!(&out[..5], b"cdefg");
        assert_eq!(r.pop_into(&mut out), 0);
    }

    #[test]
    fn test_byte_ring_wraps_then_grows_in_order() {
        let mut r = ByteRing::new(4, 64);
        let mut out = [0u8; 64];
        r.push(&[1, 2, 3]);
        assert_eq!(r.pop_into(&mut out[..2]), 2);
        r.push(&[4, 5, 6]); // wraps in 4
        r.push(&[7, 8, 9, 10, 11]); // grows: 3, 4, 5, 6 move to the front
        assert_eq!(r.capacity(), 16);
        assert_eq!(r.pop_into(&mut out), 9);
        assert_eq!(out[..9], [3, 4, 5, 6, 7, 8, 9, 10, 11]);
    }

    #[test]
    fn test_stalled_client_dropped_reader_kept_buffers_small() {
        // A buffer far larger than anything published in the test: only
        // the stall rule can drop the client that never reads.
        let hub = Hub::new("test-stall", 64 << 20);
        let handle = listen(local(), hub.clone()).unwrap();
        let stalled = TcpStream::connect(handle.local_addr()).unwrap();
        // A fixed receive buffer, as a stopped client's kernel would have
        // (left to autotuning, loopback lets it absorb megabytes first).
        socket2::SockRef::from(&stalled)
            .set_recv_buffer_size(64 * 1024)
            .unwrap();
        wait_until("stalled client", || hub.clients() == 1);
        let mut reader = TcpStream::connect(handle.local_addr()).unwrap();
        wait_until("reader", || hub.clients() == 2);
        let got = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&got);
        let read = thread::spawn(move || {
            let mut buf = [0u8; 16 * 1024];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                counter.fetch_add(n as u64, Ordering::Relaxed);
            }
        });
        // 2 MB/s in 4 KiB publishes until the stalled one is dropped.
        let block = [0x55u8; 4096];
        let t0 = Instant::now();
        let mut published = 0u64;
        while hub.stats().dropped_stalled == 0 {
            assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", hub.stats());
            hub.publish(&block);
            published += block.len() as u64;
            thread::sleep(Duration::from_millis(2));
        }
        let after = t0.elapsed();
        eprintln!("fanout: stalled client dropped after {after:?}, {published} bytes published");
        // The kernel buffers fill within a second at this rate, then the
        // backlog stays for STALL_TIMEOUT.
        assert!(after >= STALL_TIMEOUT, "{after:?}");
        assert!(after < 3 * STALL_TIMEOUT, "{after:?}");
        let s = hub.stats();
        assert_eq!(
            (s.dropped_stalled, s.dropped_slow, s.clients),
            (1, 0, 1),
            "{s:?}"
        );
        // The reader got everything, and kept up with a small buffer.
        assert!(hub.flush(Duration::from_secs(10)));
        wait_until("reader caught up", || {
            got.load(Ordering::Relaxed) == published
        });
        let handles = lock(&hub.shared.clients).clone();
        assert!(
            handles
                .iter()
                .all(|c| lock(&c.state).ring.capacity() <= 4 * INITIAL_BUFFER)
        );
        hub.disconnect_all();
        read.join().unwrap();
        drop(stalled);
    }

    #[test]
    fn test_slow_client_dropped_fast_client_complete() {
        const CAP: usize = 256 * 1024;
        const CHUNK: usize = 64 * 1024;
        const TOTAL: u64 = 50 * 1024 * 1024;
        let hub = Hub::new("test-slow", CAP);
        let handle = listen(local(), hub.clone()).unwrap();
        let slow = TcpStream::connect(handle.local_addr()).unwrap();
        wait_until("slow client", || hub.clients() == 1);
        let mut fast = TcpStream::connect(handle.local_addr()).unwrap();
        wait_until("fast client", || hub.clients() == 2);

        let received = Arc::new(AtomicU64::new(0));
        let in_order = Arc::new(AtomicBool::new(true));
        let reader = {
            let (received, in_order) = (Arc::clone(&received), Arc::clone(&in_order));
            thread::spawn(move || {
                let mut buf = vec![0u8; 64 * 1024];
                let mut pos = 0u64;
                while pos < TOTAL {
                    let n = fast.read(&mut buf).unwrap();
                    assert_ne!(n, 0, "fast client cut off at {pos}");
                    if buf[..n].iter().zip(pos..).any(|(&b, i)| b != pattern(i)) {
                        in_order.store(false, Ordering::Relaxed);
                    }
                    pos += n as u64;
                    received.store(pos, Ordering::Release);
                }
                pos
            })
        };

        let mut chunk = vec![0u8; CHUNK];
        let mut published = 0u64;
        let started = Instant::now();
        while published < TOTAL {
            // Pace like the decode thread does (it publishes every 20–60 ms):
            // keep the reading client within half its buffer.
            let deadline = Instant::now() + Duration::from_secs(20);
            while published - received.load(Ordering::Acquire) > (CAP / 2) as u64 {
                assert!(Instant::now() < deadline, "fast reader stalled");
                thread::yield_now();
            }
            for (b, i) in chunk.iter_mut().zip(published..) {
                *b = pattern(i);
            }
            hub.publish(&chunk);
            published += CHUNK as u64;
        }
        let elapsed = started.elapsed();
        eprintln!(
            "fanout: {} MB published to a reader and a stalled client in {elapsed:?}",
            TOTAL >> 20
        );
        assert_eq!(reader.join().unwrap(), TOTAL);
        assert!(
            in_order.load(Ordering::Relaxed),
            "fast client saw bytes out of order"
        );
        let stats = hub.stats();
        assert_eq!(stats.dropped_slow, 1, "{stats:?}");
        assert!(stats.max_buffered <= CAP, "{stats:?}");
        assert!(
            stats.max_buffered > CAP - CHUNK,
            "slow client never filled: {stats:?}"
        );
        assert_eq!(stats.bytes_published, TOTAL);
        wait_until("slow client gone", || hub.clients() == 1);
        assert!(elapsed < Duration::from_secs(60), "{elapsed:?}");
        drop(slow);
    }

    #[test]
    fn test_hundred_clients_same_bytes() {
        const CLIENTS: usize = 100;
        let hub = Hub::new("test-100", 64 * 1024);
        let handle = listen(local(), hub.clone()).unwrap();
        let mut streams: Vec<TcpStream> = (0..CLIENTS)
            .map(|_| TcpStream::connect(handle.local_addr()).unwrap())
            .collect();
        wait_until("100 clients", || hub.clients() == CLIENTS);
        let mut want = Vec::new();
        for k in 0..10u64 {
            let part: Vec<u8> = (k * 997..(k + 1) * 997).map(pattern).collect();
            hub.publish(&part);
            want.extend_from_slice(&part);
        }
        for s in &mut streams {
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut got = vec![0u8; want.len()];
            s.read_exact(&mut got).unwrap();
            assert_eq!(got, want);
        }
        // Nothing more arrives: the next publish is the next thing read.
        hub.publish(b"end");
        for s in &mut streams {
            let mut tail = [0u8; 3];
            s.read_exact(&mut tail).unwrap();
            assert_eq!(&tail, b"end");
        }
        let stats = hub.stats();
        assert_eq!(stats.dropped_slow, 0);
        assert_eq!(stats.accepted, CLIENTS as u64);
        wait_until("all bytes counted", || {
            hub.stats().bytes_sent == (CLIENTS * (want.len() + 3)) as u64
        });
        // Closing the clients is noticed while idle.
        drop(streams);
        wait_until("clients gone", || hub.clients() == 0);
        assert_eq!(hub.stats().disconnected, CLIENTS as u64);
    }

    #[test]
    fn test_attach_handle_close() {
        let hub = Hub::new("test-handle", 16);
        let listener = std::net::TcpListener::bind(local()).unwrap();
        let mut peer = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (ours, _) = listener.accept().unwrap();
        let client = hub.attach(ours).unwrap();
        assert!(!client.is_closed());
        hub.publish(b"0123456789");
        let mut got = [0u8; 10];
        peer.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"0123456789");
        assert_eq!(client.high_water(), 10);
        // A publish bigger than the buffer drops the client.
        hub.publish(&[0u8; 17]);
        assert!(client.wait_closed(Duration::from_secs(10)));
        assert_eq!(client.close_reason(), Some(CloseReason::SlowConsumer));
        assert_eq!(hub.clients(), 0);
        let mut rest = Vec::new();
        peer.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty(), "{rest:?}");

        // close() ends a client too.
        let mut peer = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (ours, _) = listener.accept().unwrap();
        let client = hub.attach(ours).unwrap();
        client.close();
        assert!(client.wait_closed(Duration::from_secs(10)));
        assert_eq!(client.close_reason(), Some(CloseReason::Closed));
        assert_eq!(peer.read(&mut got).unwrap(), 0);
        assert_eq!(hub.stats().dropped_slow, 1);
    }
}
