//! A fixed pool of byte buffers carried in order between two threads.
//!
//! [`ring`] allocates `buffers` buffers of `buffer_len` bytes once, with the
//! two channels that carry them; nothing is allocated per buffer afterwards
//! (the standard library sets up a thread's wait context once, at its first
//! wait), so the memory is bounded by construction. Each buffer is an owned `Box<[u8]>`
//! that moves between the ends through two bounded
//! [`std::sync::mpsc::sync_channel`]s of capacity `buffers`: *filled*
//! carries a buffer and its length from the producer to the consumer,
//! *free* carries it back. The producer fills a free buffer
//! ([`Producer::grant`] then [`WriteGrant::commit`]) and sends it; the
//! consumer receives it ([`Consumer::pop_timeout`]) and sends it back when
//! the [`ReadGuard`] drops.
//!
//! # Ownership and order
//!
//! A buffer is in exactly one place at a time: the producer's spare (a
//! grant dropped without commit leaves its buffer there for the next
//! grant), a [`WriteGrant`], the filled channel, a [`ReadGuard`] or the
//! free channel. So no two threads ever reach the same bytes, and the
//! compiler checks it. The channels are FIFO, so filled buffers reach the
//! consumer in the order they were committed; the send and the receive
//! order the bytes written before the send before the reads after the
//! receive. As there are only `buffers` buffers, a send never finds a
//! channel full.
//!
//! The producer never blocks: when the consumer side holds every buffer
//! (the consumer is slow) [`Producer::grant`] returns `None` and the caller
//! drops its data and counts it with [`Producer::record_drop`]
//! ([`Producer::push`] does both). The consumer may wait with a timeout;
//! the channel wakes it as soon as a buffer is sent, and reports the
//! producer's drop once every buffer it sent has been received.
//!
//! # Why channels
//!
//! This module was a hand-written lock-free ring (`UnsafeCell` slots,
//! atomics, park/unpark) whose `unsafe` code no foreign API demanded; the
//! standard library's bounded channels give the same bounded memory, order,
//! never-blocking producer and timed wait with no `unsafe` code of ours and
//! no dependency, where the `rtrb` crate's ring would still leave the
//! waiting and waking to us. The price, counted under callgrind with
//! `examples/ring_cost.rs`: about 490 instructions per buffer instead of 200
//! when nobody waits (some 25 ns), 1,570 instead of 1,070 when a consumer
//! thread is woken for every buffer, against some 5 µs to copy one 256 KiB
//! buffer, of which the commands move tens a second.

use std::fmt;
use std::mem;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::time::Duration;

/// A buffer on its way to the consumer and the number of valid bytes in it.
struct Filled {
    buf: Box<[u8]>,
    len: usize,
}

/// Counters and liveness flags shared by the two ends.
struct Shared {
    buffers_written: AtomicU64,
    bytes_written: AtomicU64,
    /// Buffers the consumer has handed back (≤ `buffers_written`).
    buffers_released: AtomicU64,
    buffers_dropped: AtomicU64,
    bytes_dropped: AtomicU64,
    producer_alive: AtomicBool,
    consumer_alive: AtomicBool,
}

/// Bad ring dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingError {
    /// `buffers` was 0.
    NoBuffers,
    /// `buffer_len` was 0.
    EmptyBuffers,
}

impl fmt::Display for RingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RingError::NoBuffers => f.write_str("a ring needs at least one buffer"),
            RingError::EmptyBuffers => f.write_str("ring buffers must hold at least one byte"),
        }
    }
}

impl std::error::Error for RingError {}

/// Why [`Consumer::pop_timeout`] returned no buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PopError {
    /// Nothing arrived within the timeout.
    Timeout,
    /// The producer is gone and every buffer it published has been read.
    Closed,
}

impl fmt::Display for PopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PopError::Timeout => f.write_str("no buffer within the timeout"),
            PopError::Closed => f.write_str("producer closed"),
        }
    }
}

impl std::error::Error for PopError {}

/// Cumulative counters of a ring, readable from either end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RingStats {
    /// Buffers published to the consumer.
    pub buffers_written: u64,
    /// Bytes in those buffers.
    pub bytes_written: u64,
    /// Buffers the producer dropped because no empty buffer was free.
    pub buffers_dropped: u64,
    /// Bytes in those dropped buffers.
    pub bytes_dropped: u64,
    /// Buffers published but not yet released by the consumer (0 ..= capacity).
    pub buffers_queued: u64,
}

impl Shared {
    fn stats(&self) -> RingStats {
        // Released first: a buffer is counted written before it is sent and
        // released after it is received, so this order never sees more
        // released than written.
        let released = self.buffers_released.load(Ordering::Acquire);
        let written = self.buffers_written.load(Ordering::Acquire);
        RingStats {
            buffers_written: written,
            bytes_written: self.bytes_written.load(Ordering::Relaxed),
            buffers_dropped: self.buffers_dropped.load(Ordering::Relaxed),
            bytes_dropped: self.bytes_dropped.load(Ordering::Relaxed),
            buffers_queued: written.saturating_sub(released),
        }
    }
}

/// Allocate `buffers` buffers of `buffer_len` bytes and return the two ends.
///
/// This is the only allocation the ring ever makes: `buffers * buffer_len`
/// bytes plus a few words per buffer for the two channels' slots.
pub fn ring(buffers: usize, buffer_len: usize) -> Result<(Producer, Consumer), RingError> {
    if buffers == 0 {
        return Err(RingError::NoBuffers);
    }
    if buffer_len == 0 {
        return Err(RingError::EmptyBuffers);
    }
    let (filled_tx, filled_rx) = sync_channel(buffers);
    let (free_tx, free_rx) = sync_channel(buffers);
    for _ in 0..buffers {
        let sent = free_tx.try_send(vec![0u8; buffer_len].into_boxed_slice());
        debug_assert!(sent.is_ok(), "the free channel holds every buffer");
    }
    let shared = Arc::new(Shared {
        buffers_written: AtomicU64::new(0),
        bytes_written: AtomicU64::new(0),
        buffers_released: AtomicU64::new(0),
        buffers_dropped: AtomicU64::new(0),
        bytes_dropped: AtomicU64::new(0),
        producer_alive: AtomicBool::new(true),
        consumer_alive: AtomicBool::new(true),
    });
    Ok((
        Producer {
            filled: filled_tx,
            free: free_rx,
            spare: Box::default(),
            shared: shared.clone(),
            buffer_len,
        },
        Consumer {
            filled: filled_rx,
            free: free_tx,
            shared,
        },
    ))
}

/// The filling end. Never blocks.
pub struct Producer {
    filled: SyncSender<Filled>,
    free: Receiver<Box<[u8]>>,
    /// The buffer the next grant lends, kept when a grant is dropped
    /// without commit; empty (a zero-length box, which allocates nothing)
    /// while the producer holds none. Ring buffers are never empty.
    spare: Box<[u8]>,
    shared: Arc<Shared>,
    buffer_len: usize,
}

impl Producer {
    /// Lend the next empty buffer (all `buffer_len` bytes, old contents),
    /// or `None` if the consumer side holds every buffer.
    ///
    /// Nothing is published until [`WriteGrant::commit`].
    pub fn grant(&mut self) -> Option<WriteGrant<'_>> {
        if self.spare.is_empty() {
            self.spare = self.free.try_recv().ok()?;
        }
        Some(WriteGrant { producer: self })
    }

    /// Copy `data` into the ring, `buffer_len` bytes per buffer; chunks that
    /// find no empty buffer are dropped and counted. Returns the number of
    /// bytes dropped (0 when everything was queued).
    pub fn push(&mut self, data: &[u8]) -> usize {
        let mut dropped = 0;
        for chunk in data.chunks(self.buffer_len) {
            match self.grant() {
                Some(mut grant) => {
                    grant[..chunk.len()].copy_from_slice(chunk);
                    grant.commit(chunk.len());
                }
                None => {
                    self.record_drop(chunk.len());
                    dropped += chunk.len();
                }
            }
        }
        dropped
    }

    /// Count one buffer of `bytes` bytes lost because [`Producer::grant`]
    /// returned `None` (the caller read it into scratch space instead).
    pub fn record_drop(&mut self, bytes: usize) {
        self.shared.buffers_dropped.fetch_add(1, Ordering::Relaxed);
        self.shared
            .bytes_dropped
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// `false` once the consumer has been dropped.
    pub fn consumer_alive(&self) -> bool {
        self.shared.consumer_alive.load(Ordering::Acquire)
    }

    /// Cumulative counters.
    pub fn stats(&self) -> RingStats {
        self.shared.stats()
    }
}

impl Drop for Producer {
    fn drop(&mut self) {
        // Before the filled channel's sender is dropped with the fields, so
        // a consumer told `Closed` by the channel sees this too.
        self.shared.producer_alive.store(false, Ordering::Release);
    }
}

/// An empty buffer lent to the producer; dereferences to all its bytes.
pub struct WriteGrant<'a> {
    /// The buffer is the producer's spare until `commit` takes it.
    producer: &'a mut Producer,
}

impl WriteGrant<'_> {
    /// Publish the first `len` bytes to the consumer.
    ///
    /// `len` is clamped to the buffer length. A grant dropped without
    /// `commit` publishes nothing and its buffer is lent again by the next
    /// grant, contents unchanged.
    pub fn commit(self, len: usize) {
        let producer = self.producer;
        let len = len.min(producer.buffer_len);
        let buf = mem::take(&mut producer.spare);
        let shared = &producer.shared;
        shared.buffers_written.fetch_add(1, Ordering::Relaxed);
        shared
            .bytes_written
            .fetch_add(len as u64, Ordering::Relaxed);
        // Never full (there are only `buffers` buffers). Disconnected: the
        // consumer is gone and the buffer is freed here.
        let sent = producer.filled.try_send(Filled { buf, len });
        debug_assert!(!matches!(sent, Err(TrySendError::Full(_))));
    }
}

impl Deref for WriteGrant<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.producer.spare
    }
}

impl DerefMut for WriteGrant<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.producer.spare
    }
}

/// The draining end. May block, with a timeout.
pub struct Consumer {
    filled: Receiver<Filled>,
    free: SyncSender<Box<[u8]>>,
    shared: Arc<Shared>,
}

impl Consumer {
    /// The oldest filled buffer, or `None` if there is none right now.
    pub fn try_pop(&mut self) -> Option<ReadGuard<'_>> {
        let Filled { buf, len } = self.filled.try_recv().ok()?;
        Some(ReadGuard {
            consumer: self,
            buf,
            len,
        })
    }

    /// The oldest filled buffer, waiting up to `timeout` for one.
    ///
    /// Returns [`PopError::Closed`] once the producer is dropped and the ring
    /// is empty, [`PopError::Timeout`] if nothing came in time.
    pub fn pop_timeout(&mut self, timeout: Duration) -> Result<ReadGuard<'_>, PopError> {
        match self.filled.recv_timeout(timeout) {
            Ok(Filled { buf, len }) => Ok(ReadGuard {
                consumer: self,
                buf,
                len,
            }),
            Err(RecvTimeoutError::Timeout) => Err(PopError::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(PopError::Closed),
        }
    }

    /// Release every filled buffer without reading it; returns how many.
    pub fn discard_all(&mut self) -> usize {
        let mut n = 0;
        while self.try_pop().is_some() {
            n += 1;
        }
        n
    }

    /// `false` once the producer has been dropped (buffers may remain).
    pub fn producer_alive(&self) -> bool {
        self.shared.producer_alive.load(Ordering::Acquire)
    }

    /// Cumulative counters.
    pub fn stats(&self) -> RingStats {
        self.shared.stats()
    }
}

impl Drop for Consumer {
    fn drop(&mut self) {
        self.shared.consumer_alive.store(false, Ordering::Release);
    }
}

/// A filled buffer lent to the consumer; dereferences to its valid bytes.
/// Dropping it hands the buffer back to the producer.
pub struct ReadGuard<'a> {
    consumer: &'a mut Consumer,
    buf: Box<[u8]>,
    len: usize,
}

impl Deref for ReadGuard<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl Drop for ReadGuard<'_> {
    fn drop(&mut self) {
        let consumer = &*self.consumer;
        // Counted before the buffer is sent back: see `Shared::stats`.
        consumer
            .shared
            .buffers_released
            .fetch_add(1, Ordering::Release);
        // Never full (there are only `buffers` buffers). Disconnected: the
        // producer is gone and the buffer is freed here.
        let sent = consumer.free.try_send(mem::take(&mut self.buf));
        debug_assert!(!matches!(sent, Err(TrySendError::Full(_))));
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;
    use std::thread;
    use std::time::Instant;

    #[test]
    fn test_bad_dimensions() {
        assert_eq!(ring(0, 8).err(), Some(RingError::NoBuffers));
        assert_eq!(ring(8, 0).err(), Some(RingError::EmptyBuffers));
    }

    #[test]
    fn test_order_and_wraparound() {
        let (mut tx, mut rx) = ring(3, 4).unwrap();
        for round in 0u8..10 {
            assert_eq!(tx.push(&[round, round + 1]), 0);
            assert_eq!(tx.push(&[round + 100]), 0);
            assert_eq!(&*rx.try_pop().unwrap(), &[round, round + 1]);
            assert_eq!(&*rx.try_pop().unwrap(), &[round + 100]);
            assert!(rx.try_pop().is_none());
        }
        let s = rx.stats();
        assert_eq!(s.buffers_written, 20);
        assert_eq!(s.bytes_written, 30);
        assert_eq!(s.buffers_dropped, 0);
        assert_eq!(s.buffers_queued, 0);
    }

    #[test]
    fn test_push_splits_into_buffers() {
        let (mut tx, mut rx) = ring(4, 4).unwrap();
        assert_eq!(tx.push(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 0);
        assert_eq!(&*rx.try_pop().unwrap(), &[1, 2, 3, 4]);
        assert_eq!(&*rx.try_pop().unwrap(), &[5, 6, 7, 8]);
        assert_eq!(&*rx.try_pop().unwrap(), &[9, 10]);
        assert!(rx.try_pop().is_none());
    }

    #[test]
    fn test_full_ring_drops_and_counts() {
        let (mut tx, mut rx) = ring(2, 8).unwrap();
        assert_eq!(tx.push(&[1; 8]), 0);
        assert_eq!(tx.push(&[2; 5]), 0);
        // Both buffers are with the consumer side now: these are dropped.
        assert_eq!(tx.push(&[3; 8]), 8);
        assert_eq!(tx.push(&[4; 3]), 3);
        let s = tx.stats();
        assert_eq!((s.buffers_dropped, s.bytes_dropped), (2, 11));
        assert_eq!(s.buffers_queued, 2);
        // Releasing one buffer lets the producer continue, in order.
        assert_eq!(&*rx.try_pop().unwrap(), &[1; 8]);
        assert_eq!(tx.push(&[5; 2]), 0);
        assert_eq!(&*rx.try_pop().unwrap(), &[2; 5]);
        assert_eq!(&*rx.try_pop().unwrap(), &[5; 2]);
    }

    #[test]
    fn test_held_guard_keeps_its_buffer() {
        let (mut tx, mut rx) = ring(1, 4).unwrap();
        tx.push(&[7, 7]);
        let guard = rx.try_pop().unwrap();
        // The only buffer is lent to the consumer: the producer must drop.
        assert_eq!(tx.push(&[9]), 1);
        assert_eq!(&*guard, &[7, 7]);
        drop(guard);
        assert_eq!(tx.push(&[9]), 0);
        assert_eq!(&*rx.try_pop().unwrap(), &[9]);
    }

    #[test]
    fn test_grant_without_commit_publishes_nothing() {
        let (mut tx, mut rx) = ring(2, 4).unwrap();
        {
            let mut g = tx.grant().unwrap();
            g[0] = 42;
        }
        assert!(rx.try_pop().is_none());
        let mut g = tx.grant().unwrap();
        g[..2].copy_from_slice(&[1, 2]);
        g.commit(99); // clamped to 4
        assert_eq!(rx.try_pop().unwrap().len(), 4);
    }

    #[test]
    #[cfg_attr(miri, ignore)] // wall-clock bounds
    fn test_timeout_and_closed() {
        let (tx, mut rx) = ring(2, 4).unwrap();
        let t0 = Instant::now();
        assert_eq!(
            rx.pop_timeout(Duration::from_millis(30)).err(),
            Some(PopError::Timeout)
        );
        assert!(t0.elapsed() >= Duration::from_millis(30));
        let mut tx = tx;
        tx.push(&[1]);
        drop(tx);
        // Data published before the producer left is still delivered.
        assert_eq!(&*rx.pop_timeout(Duration::from_secs(1)).unwrap(), &[1]);
        assert_eq!(
            rx.pop_timeout(Duration::from_secs(1)).err(),
            Some(PopError::Closed)
        );
        assert!(!rx.producer_alive());
    }

    #[test]
    fn test_consumer_drop_is_visible() {
        let (tx, rx) = ring(1, 1).unwrap();
        assert!(tx.consumer_alive());
        drop(rx);
        assert!(!tx.consumer_alive());
    }

    /// A producer that outlives its consumer keeps its pace: the buffers
    /// still free are committed (into nothing), then every push drops.
    #[test]
    fn test_producer_after_consumer_drop() {
        let (mut tx, mut rx) = ring(3, 2).unwrap();
        tx.push(&[1, 2]);
        drop(rx.try_pop().unwrap()); // back in the free channel
        tx.push(&[3, 4]);
        drop(rx);
        assert_eq!(tx.push(&[5; 4]), 0);
        assert_eq!(tx.push(&[6]), 1);
        assert!(tx.grant().is_none());
        let s = tx.stats();
        assert_eq!((s.buffers_written, s.buffers_dropped), (4, 1));
    }

    #[test]
    fn test_ends_move_between_threads() {
        fn send<T: Send>() {}
        send::<Producer>();
        send::<Consumer>();
    }

    /// The hand-over between threads, small enough for Miri.
    #[test]
    fn test_threads_small() {
        let (mut tx, mut rx) = ring(2, 3).unwrap();
        let h = thread::spawn(move || {
            for i in 0..40u8 {
                while tx.push(&[i, i ^ 0xff, i]) != 0 {
                    thread::yield_now();
                }
            }
        });
        for i in 0..40u8 {
            assert_eq!(
                &*rx.pop_timeout(Duration::from_secs(60)).unwrap(),
                &[i, i ^ 0xff, i]
            );
        }
        h.join().unwrap();
        assert_eq!(
            rx.pop_timeout(Duration::from_secs(60)).err(),
            Some(PopError::Closed)
        );
    }

    /// Sequence-numbered buffers through two threads: with a consumer that
    /// keeps up nothing is lost and everything arrives in order.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_threads_fast_consumer_loses_nothing() {
        const N: u32 = 20_000;
        let (mut tx, mut rx) = ring(8, 64).unwrap();
        let producer = thread::spawn(move || {
            let mut i = 0u32;
            while i < N {
                if let Some(mut g) = tx.grant() {
                    let len = 4 + (i % 60) as usize;
                    g[..4].copy_from_slice(&i.to_le_bytes());
                    for (k, b) in g[4..len].iter_mut().enumerate() {
                        *b = (i as usize + k) as u8;
                    }
                    g.commit(len);
                    i += 1;
                } else {
                    thread::yield_now();
                }
            }
            tx.stats()
        });
        let mut expect = 0u32;
        loop {
            match rx.pop_timeout(Duration::from_secs(5)) {
                Ok(buf) => {
                    let i = u32::from_le_bytes(buf[..4].try_into().unwrap());
                    assert_eq!(i, expect);
                    assert_eq!(buf.len(), 4 + (i % 60) as usize);
                    for (k, b) in buf[4..].iter().enumerate() {
                        assert_eq!(*b, (i as usize + k) as u8);
                    }
                    expect += 1;
                }
                Err(PopError::Closed) => break,
                Err(PopError::Timeout) => panic!("stalled at {expect}"),
            }
        }
        let stats = producer.join().unwrap();
        assert_eq!(expect, N);
        assert_eq!(stats.buffers_dropped, 0);
        assert_eq!(stats.buffers_written, N as u64);
    }

    /// A producer that never waits and a consumer that is slow: buffers are
    /// dropped and counted, what arrives is in order and intact, and
    /// delivered + dropped accounts for every buffer.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_threads_slow_consumer_counts_drops() {
        const N: u32 = 2_000;
        let (mut tx, mut rx) = ring(4, 16).unwrap();
        let producer = thread::spawn(move || {
            for i in 0..N {
                let mut buf = [0u8; 16];
                buf[..4].copy_from_slice(&i.to_le_bytes());
                buf[4..].fill(i as u8);
                tx.push(&buf);
                if i % 64 == 0 {
                    thread::sleep(Duration::from_micros(200));
                }
            }
        });
        let mut got = 0u64;
        let mut last: Option<u32> = None;
        loop {
            match rx.pop_timeout(Duration::from_secs(5)) {
                Ok(buf) => {
                    let i = u32::from_le_bytes(buf[..4].try_into().unwrap());
                    assert!(last.is_none_or(|l| i > l), "out of order");
                    assert!(buf[4..].iter().all(|&b| b == i as u8));
                    last = Some(i);
                    got += 1;
                    drop(buf);
                    thread::sleep(Duration::from_micros(300));
                }
                Err(PopError::Closed) => break,
                Err(PopError::Timeout) => panic!("stalled"),
            }
        }
        producer.join().unwrap();
        let s = rx.stats();
        assert!(s.buffers_dropped > 0, "a slow consumer must cause drops");
        assert_eq!(got + s.buffers_dropped, N as u64);
        assert_eq!(s.bytes_dropped, s.buffers_dropped * 16);
        assert_eq!(s.buffers_written, got);
    }

    /// The consumer is woken by the producer's commit, not by the end of
    /// its wait.
    #[test]
    #[cfg_attr(miri, ignore)] // wall-clock bounds
    fn test_wakeup_is_prompt() {
        let (mut tx, mut rx) = ring(2, 4).unwrap();
        let h = thread::spawn(move || {
            thread::sleep(Duration::from_millis(50));
            tx.push(&[1]);
            thread::sleep(Duration::from_millis(200));
        });
        let t0 = Instant::now();
        assert_eq!(&*rx.pop_timeout(Duration::from_secs(2)).unwrap(), &[1]);
        assert!(
            t0.elapsed() < Duration::from_millis(200),
            "{:?}",
            t0.elapsed()
        );
        h.join().unwrap();
    }

    /// After `ring()` nothing allocates: not granting, committing, popping,
    /// waiting, discarding nor dropping. (The first timed wait of a thread
    /// sets up its wait context once, as any channel's would.)
    #[test]
    fn test_no_allocation_after_ring() {
        let (mut tx, mut rx) = ring(3, 64).unwrap();
        let _ = rx.pop_timeout(Duration::from_micros(1));
        let n = crate::test_alloc::allocations(|| {
            for i in 0..50u8 {
                tx.push(&[i; 100]);
                if let Some(mut g) = tx.grant() {
                    g[0] = i; // not committed
                }
                drop(rx.try_pop());
                drop(rx.pop_timeout(Duration::from_micros(1)));
                tx.push(&[i; 200]); // partly dropped
                rx.discard_all();
                let _ = rx.pop_timeout(Duration::from_micros(1));
            }
        });
        assert_eq!(n, 0);
    }

    /// The same across threads: a producer pushing while the consumer
    /// waits on it allocates nothing in either thread.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_threads_no_allocation() {
        const N: u32 = 2_000;
        let (mut tx, mut rx) = ring(4, 64).unwrap();
        let _ = rx.pop_timeout(Duration::from_micros(1));
        let producer = thread::spawn(move || {
            crate::test_alloc::allocations(|| {
                for i in 0..N {
                    while tx.push(&i.to_le_bytes()) != 0 {
                        thread::yield_now();
                    }
                }
            })
        });
        let consumed = crate::test_alloc::allocations(|| {
            for i in 0..N {
                let buf = rx.pop_timeout(Duration::from_secs(5)).unwrap();
                assert_eq!(&*buf, &i.to_le_bytes());
            }
        });
        assert_eq!(producer.join().unwrap(), 0);
        assert_eq!(consumed, 0);
    }

    /// One step of [`test_random_ops`]; lengths may exceed the buffer.
    #[derive(Debug, Clone)]
    enum Op {
        /// Grant, write `write` bytes of a fresh pattern, then commit `len`
        /// (the pattern covers it) or, with `None`, drop the grant.
        Grant { write: usize, commit: Option<usize> },
        /// Push this many bytes of a fresh pattern.
        Push(usize),
        /// Release the held buffer, pop the oldest (`wait`: with a zero
        /// timeout) and hold it or release it at once.
        Pop { hold: bool, wait: bool },
        /// Release the held buffer.
        Release,
        /// Release the held buffer and discard every filled one.
        DiscardAll,
    }

    fn op(buffer_len: usize) -> impl Strategy<Value = Op> {
        let n = buffer_len + 2;
        prop_oneof![
            (0..=n, proptest::option::of(0..=n))
                .prop_map(|(write, commit)| Op::Grant { write, commit }),
            (0..=3 * buffer_len).prop_map(Op::Push),
            (any::<bool>(), any::<bool>()).prop_map(|(hold, wait)| Op::Pop { hold, wait }),
            Just(Op::Release),
            Just(Op::DiscardAll),
        ]
    }

    /// Run `ops` against a model: the committed buffers in order, the one
    /// held by the consumer, and the bytes left in an un-committed grant.
    fn run_model(buffers: usize, buffer_len: usize, ops: &[Op]) {
        let (mut tx, mut rx) = ring(buffers, buffer_len).unwrap();
        let mut queue: VecDeque<Vec<u8>> = VecDeque::new();
        let mut held: Option<(ReadGuard<'_>, Vec<u8>)> = None;
        // The start of the buffer the next grant lends, when known.
        let mut spare: Vec<u8> = Vec::new();
        let mut expect = RingStats::default();
        let mut seq = 0u8;
        let mut pattern = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    seq = seq.wrapping_add(1);
                    seq
                })
                .collect()
        };
        for op in ops {
            let at_consumer = queue.len() + usize::from(held.is_some());
            assert!(at_consumer <= buffers);
            match *op {
                Op::Grant { write, commit } => {
                    let grant = tx.grant();
                    assert_eq!(grant.is_some(), at_consumer < buffers);
                    let Some(mut g) = grant else { continue };
                    assert_eq!(g.len(), buffer_len);
                    assert_eq!(&g[..spare.len()], &spare[..], "the un-committed buffer");
                    let len = commit.map_or(0, |c| c.min(buffer_len));
                    let bytes = pattern(write.min(buffer_len).max(len));
                    g[..bytes.len()].copy_from_slice(&bytes);
                    if let Some(c) = commit {
                        g.commit(c);
                        queue.push_back(bytes[..len].to_vec());
                        expect.buffers_written += 1;
                        expect.bytes_written += len as u64;
                        spare.clear();
                    } else if bytes.len() >= spare.len() {
                        spare = bytes;
                    } else {
                        spare[..bytes.len()].copy_from_slice(&bytes);
                    }
                }
                Op::Push(n) => {
                    let data = pattern(n);
                    let mut dropped = 0;
                    for chunk in data.chunks(buffer_len) {
                        if queue.len() + usize::from(held.is_some()) < buffers {
                            queue.push_back(chunk.to_vec());
                            expect.buffers_written += 1;
                            expect.bytes_written += chunk.len() as u64;
                            spare.clear();
                        } else {
                            expect.buffers_dropped += 1;
                            expect.bytes_dropped += chunk.len() as u64;
                            dropped += chunk.len();
                        }
                    }
                    assert_eq!(tx.push(&data), dropped);
                }
                Op::Pop { hold, wait } => {
                    held = None;
                    let popped = if wait {
                        rx.pop_timeout(Duration::ZERO).ok()
                    } else {
                        rx.try_pop()
                    };
                    assert_eq!(popped.is_some(), !queue.is_empty());
                    if let Some(buf) = popped {
                        let want = queue.pop_front().unwrap();
                        assert_eq!(&*buf, &want[..], "order and bytes");
                        if hold {
                            held = Some((buf, want));
                        }
                    }
                }
                Op::Release => held = None,
                Op::DiscardAll => {
                    held = None;
                    assert_eq!(rx.discard_all(), queue.len());
                    queue.clear();
                }
            }
            if let Some((buf, want)) = &held {
                assert_eq!(&**buf, &want[..], "a held buffer is not overwritten");
            }
            expect.buffers_queued = (queue.len() + usize::from(held.is_some())) as u64;
            assert_eq!(tx.stats(), expect);
        }
        // What was committed before the producer left is still delivered.
        drop(held);
        drop(tx);
        for want in queue {
            assert_eq!(&*rx.pop_timeout(Duration::ZERO).unwrap(), &want[..]);
        }
        assert_eq!(rx.pop_timeout(Duration::ZERO).err(), Some(PopError::Closed));
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: if cfg!(miri) { 4 } else { 256 },
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Random grants (committed or dropped), pushes, pops, held and
        /// released guards keep the order and the bytes, never lend more
        /// than `buffers` buffers, and count what they drop.
        #[test]
        fn test_random_ops(
            (buffers, buffer_len, ops) in (1usize..=4, 1usize..=6)
                .prop_flat_map(|(b, l)| (Just(b), Just(l), proptest::collection::vec(op(l), 0..80)))
        ) {
            run_model(buffers, buffer_len, &ops);
        }
    }
}
