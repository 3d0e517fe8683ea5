//! The feeder's network layer: the ports dump1090-fa and readsb serve,
//! on `std::net` and threads (no async runtime).
//!
//! | port (usual) | direction | module |
//! |---|---|---|
//! | 30002 raw AVR, 30003 SBS, 30005 Beast | out | [`fanout::Hub`] + [`listener::listen`] |
//! | 30004 Beast | in | [`beast_in::listen_beast_in`] |
//! | `--net-connector HOST,PORT,PROTOCOL` | either | [`connector::spawn_connector`] |
//! | 8080 HTTP (JSON, `/metrics`, the map) | out | [`http::serve_http`] |
//!
//! The decode thread only ever calls [`fanout::Hub::publish`] (a copy into
//! each client's fixed buffer, never a wait on a socket) and receives
//! remote frames from a bounded channel it drains when it likes; a slow or
//! hostile peer costs it nothing and grows no memory:
//!
//! - an output client whose buffer would overflow is disconnected and
//!   counted ([`fanout::HubStats::dropped_slow`]);
//! - Beast input that arrives while the channel is full is dropped and
//!   counted ([`beast_in::BeastInCounts::dropped_full`]);
//! - every listener caps its connections and closes (HTTP: answers 503 to)
//!   the excess.
//!
//! Every listener runs one accept thread ([`listener::ListenerHandle`]);
//! each connection gets one thread with a small stack.

pub mod beast_in;
pub mod connector;
pub mod fanout;
pub mod http;
pub mod http_policy;
pub mod listener;

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Lock a mutex, taking the data of a poisoned one (every critical
/// section here leaves its data consistent, so a panic elsewhere must not
/// take the network down with it).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Helpers for this module's tests.
#[cfg(test)]
pub(crate) mod testing {
    use std::time::{Duration, Instant};

    /// Poll `cond` every 2 ms until it holds; panic naming `what` after
    /// 10 s.
    pub(crate) fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !cond() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}
