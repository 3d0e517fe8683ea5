//! TCP listeners: one accept thread each, a cap on connections, a handle
//! that stops it.
//!
//! [`listen`] feeds accepted clients into a [`Hub`] (the output ports);
//! [`listen_beast_in`](super::beast_in::listen_beast_in) and
//! [`serve_http`](super::http::serve_http) use the same accept loop with
//! their own per-connection threads.
//!
//! The listening socket is non-blocking and polled every [`ACCEPT_POLL`],
//! so [`ListenerHandle::shutdown`] (or dropping the handle) stops it within
//! that time. Stopping a listener stops accepting; connections already
//! handed over live on (hub clients until [`Hub::disconnect_all`],
//! Beast-input and HTTP connections see the stop flag at their next read
//! timeout).

use super::fanout::{AttachError, Hub};
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// How often the accept thread looks for new connections and at its stop
/// flag.
pub const ACCEPT_POLL: Duration = Duration::from_millis(20);

/// State shared by the accept thread, the handle and the connection slots.
#[derive(Debug, Default)]
struct Shared {
    stop: AtomicBool,
    accepted: AtomicU64,
    refused: AtomicU64,
    active: AtomicUsize,
}

/// One accepted connection's place under the listener's cap; the place is
/// given back when the slot is dropped (normally when the connection
/// thread ends).
#[derive(Debug)]
pub struct ConnectionSlot {
    shared: Arc<Shared>,
}

impl ConnectionSlot {
    /// Whether the listener has been shut down (connection threads should
    /// finish).
    pub fn stopping(&self) -> bool {
        self.shared.stop.load(Ordering::Relaxed)
    }

    /// Connections open on this listener now (this one included).
    pub fn active(&self) -> usize {
        self.shared.active.load(Ordering::Relaxed)
    }

    /// The listener's stop flag (set by [`ListenerHandle::shutdown`]).
    pub fn stop_flag(&self) -> &AtomicBool {
        &self.shared.stop
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.shared.active.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What a listener does with connections; implemented per protocol.
pub(crate) trait Acceptor: Send + 'static {
    /// Take over an accepted connection (blocking mode, within the cap).
    /// Must not block the accept loop for long: hand it to a thread.
    fn accept(&mut self, stream: TcpStream, peer: SocketAddr, slot: ConnectionSlot);

    /// A connection over the cap; it is closed when dropped here.
    fn refuse(&mut self, stream: TcpStream) {
        drop(stream);
    }

    /// Called every [`ACCEPT_POLL`] while no connection is waiting.
    fn idle(&mut self) {}
}

/// A running listener. Dropping it stops the accept thread (and waits for
/// it, at most about [`ACCEPT_POLL`]).
#[derive(Debug)]
pub struct ListenerHandle {
    local_addr: SocketAddr,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl ListenerHandle {
    /// The address actually bound (the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Connections accepted so far (within the cap).
    pub fn accepted(&self) -> u64 {
        self.shared.accepted.load(Ordering::Relaxed)
    }

    /// Connections refused so far because the cap was reached.
    pub fn refused(&self) -> u64 {
        self.shared.refused.load(Ordering::Relaxed)
    }

    /// Connections currently holding a [`ConnectionSlot`].
    pub fn active(&self) -> usize {
        self.shared.active.load(Ordering::Acquire)
    }

    /// Stop accepting and wait for the accept thread to end.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            // The accept loop does not panic; if it did, there is nothing
            // left to stop.
            let _ = t.join();
        }
    }
}

impl Drop for ListenerHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Bind `addr` and run `acceptor` on an accept thread named `name`, with
/// at most `max_connections` slots held at once (the excess goes to
/// [`Acceptor::refuse`]).
pub(crate) fn spawn_acceptor(
    addr: SocketAddr,
    name: &str,
    max_connections: usize,
    mut acceptor: impl Acceptor,
) -> io::Result<ListenerHandle> {
    let listener = TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    let local_addr = listener.local_addr()?;
    let shared = Arc::new(Shared::default());
    let thread_shared = Arc::clone(&shared);
    let label = name.to_owned();
    let thread = thread::Builder::new()
        .name(format!("{name}-accept"))
        .spawn(move || {
            accept_loop(
                &listener,
                &label,
                max_connections,
                &thread_shared,
                &mut acceptor,
            )
        })?;
    Ok(ListenerHandle {
        local_addr,
        shared,
        thread: Some(thread),
    })
}

fn accept_loop(
    listener: &TcpListener,
    name: &str,
    max_connections: usize,
    shared: &Arc<Shared>,
    acceptor: &mut impl Acceptor,
) {
    while !shared.stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((stream, peer)) => {
                // Accepted sockets may inherit the listener's mode.
                if stream.set_nonblocking(false).is_err() {
                    continue;
                }
                if shared.active.load(Ordering::Acquire) >= max_connections {
                    shared.refused.fetch_add(1, Ordering::Relaxed);
                    acceptor.refuse(stream);
                    continue;
                }
                shared.active.fetch_add(1, Ordering::AcqRel);
                shared.accepted.fetch_add(1, Ordering::Relaxed);
                let slot = ConnectionSlot {
                    shared: Arc::clone(shared),
                };
                acceptor.accept(stream, peer, slot);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                acceptor.idle();
                thread::sleep(ACCEPT_POLL);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                // Out of descriptors, a connection reset before accept: not
                // fatal, and the pause keeps a persistent error from
                // spinning.
                eprintln!("{name}: accept failed: {e}");
                thread::sleep(ACCEPT_POLL);
            }
        }
    }
}

/// Hands accepted clients to a hub.
struct HubAcceptor {
    hub: Hub,
}

impl Acceptor for HubAcceptor {
    fn accept(&mut self, stream: TcpStream, _peer: SocketAddr, slot: ConnectionSlot) {
        // The hub enforces its own client cap (connectors attach too).
        drop(slot);
        match self.hub.attach(stream) {
            Ok(_) | Err(AttachError::Full { .. }) => {}
            Err(e) => eprintln!("{}: {e}", self.hub.name()),
        }
    }
}

/// Listen on `addr` and attach every accepted client to `hub` (with
/// `TCP_NODELAY`). Clients beyond the hub's cap
/// ([`Hub::with_max_clients`]) are closed at once and counted in
/// [`HubStats::refused`](super::fanout::HubStats::refused).
///
/// # Errors
///
/// Binding `addr` or starting the accept thread failed.
pub fn listen(addr: SocketAddr, hub: Hub) -> io::Result<ListenerHandle> {
    let name = hub.name();
    spawn_acceptor(addr, name, usize::MAX, HubAcceptor { hub })
}

#[cfg(test)]
mod test {
    use super::*;
    use std::io::Read;

    use crate::net::testing::wait_until;

    #[test]
    fn test_cap_and_shutdown() {
        let hub = Hub::new("test-cap", 1024).with_max_clients(2);
        let handle = listen("127.0.0.1:0".parse().unwrap(), hub.clone()).unwrap();
        let addr = handle.local_addr();
        assert_ne!(addr.port(), 0);
        let a = TcpStream::connect(addr).unwrap();
        let b = TcpStream::connect(addr).unwrap();
        wait_until("two clients", || hub.clients() == 2);
        // The third is closed by the server: its read sees EOF.
        let mut c = TcpStream::connect(addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut byte = [0u8; 1];
        assert_eq!(c.read(&mut byte).unwrap(), 0);
        let stats = hub.stats();
        assert_eq!((stats.clients, stats.accepted, stats.refused), (2, 2, 1));
        assert_eq!(handle.accepted(), 3);
        drop((a, b));
        handle.shutdown();
        // After shutdown the port no longer accepts.
        wait_until("refused connect", || TcpStream::connect(addr).is_err());
    }
}
