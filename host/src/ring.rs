//! A fixed pool of byte buffers carried between two threads by a lock-free
//! single-producer/single-consumer ring.
//!
//! [`ring`] allocates `buffers` buffers of `buffer_len` bytes once; nothing
//! else is ever allocated, so the memory is bounded by construction. Each
//! buffer lives in its own slot and never moves. The producer fills the slot
//! at its write index ([`Producer::grant`] then [`WriteGrant::commit`]) and
//! publishes it; the consumer reads the slot at its read index
//! ([`Consumer::pop_timeout`]) and hands it back to the producer when the
//! [`ReadGuard`] drops. Filled buffers travel to the consumer in order and
//! empty ones come back in the same order.
//!
//! The producer never blocks: when every slot is full (the consumer is slow)
//! [`Producer::grant`] returns `None` and the caller drops its data and
//! counts it with [`Producer::record_drop`] ([`Producer::push`] does both).
//! The consumer may wait with a timeout.
//!
//! # Ordering
//!
//! `written` and `read` are monotonic counters of published and released
//! buffers. The slot of counter value `k` is `k % buffers`. The producer owns
//! slot `written % buffers` while `written - read < buffers`; the consumer
//! owns slot `read % buffers` while `read < written`. A Release store of a
//! counter hands the slot over and the Acquire load on the other side
//! receives it, with the bytes written before the store.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering, fence};
use std::sync::{Arc, Mutex};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// Longest single park while waiting: bounds the latency of a missed wake-up.
const PARK_SLICE: Duration = Duration::from_millis(250);

/// One buffer and the number of valid bytes in it.
struct Slot {
    data: UnsafeCell<Box<[u8]>>,
    len: AtomicUsize,
}

/// State shared by the two ends.
struct Shared {
    slots: Box<[Slot]>,
    /// Buffers published by the producer (monotonic).
    written: AtomicUsize,
    /// Buffers released by the consumer (monotonic).
    read: AtomicUsize,
    bytes_written: AtomicU64,
    buffers_dropped: AtomicU64,
    bytes_dropped: AtomicU64,
    producer_alive: AtomicBool,
    consumer_alive: AtomicBool,
    /// The consumer is parked (or about to park) waiting for data.
    consumer_waiting: AtomicBool,
    /// Thread to unpark; locked by the consumer before it waits and only
    /// `try_lock`ed by the producer, which therefore never blocks.
    consumer_thread: Mutex<Option<Thread>>,
}

// SAFETY: the only non-`Sync` field is the `UnsafeCell` in each slot. Access
// to it follows the ownership protocol in the module docs: a slot is touched
// by the producer only while `written - read < buffers` says it is free and
// by the consumer only while `read < written` says it is full; the two
// conditions never hold for the same slot at once, and the hand-over is a
// Release store matched by an Acquire load. So no slot is ever accessed from
// two threads at the same time.
unsafe impl Sync for Shared {}

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
        let read = self.read.load(Ordering::Acquire);
        let written = self.written.load(Ordering::Acquire);
        RingStats {
            buffers_written: written as u64,
            bytes_written: self.bytes_written.load(Ordering::Relaxed),
            buffers_dropped: self.buffers_dropped.load(Ordering::Relaxed),
            bytes_dropped: self.bytes_dropped.load(Ordering::Relaxed),
            buffers_queued: written.wrapping_sub(read) as u64,
        }
    }

    fn wake_consumer(&self) {
        // Pairs with the fence in `Consumer::pop_timeout`: either the consumer
        // sees the new `written`, or this load sees its `consumer_waiting`.
        fence(Ordering::SeqCst);
        if self.consumer_waiting.load(Ordering::Relaxed)
            && let Ok(guard) = self.consumer_thread.try_lock()
            && let Some(thread) = guard.as_ref()
        {
            thread.unpark();
        }
    }
}

/// Allocate `buffers` buffers of `buffer_len` bytes and return the two ends.
///
/// This is the only allocation the ring ever makes:
/// `buffers * buffer_len` bytes plus a few words per slot.
pub fn ring(buffers: usize, buffer_len: usize) -> Result<(Producer, Consumer), RingError> {
    if buffers == 0 {
        return Err(RingError::NoBuffers);
    }
    if buffer_len == 0 {
        return Err(RingError::EmptyBuffers);
    }
    let slots = (0..buffers)
        .map(|_| Slot {
            data: UnsafeCell::new(vec![0u8; buffer_len].into_boxed_slice()),
            len: AtomicUsize::new(0),
        })
        .collect();
    let shared = Arc::new(Shared {
        slots,
        written: AtomicUsize::new(0),
        read: AtomicUsize::new(0),
        bytes_written: AtomicU64::new(0),
        buffers_dropped: AtomicU64::new(0),
        bytes_dropped: AtomicU64::new(0),
        producer_alive: AtomicBool::new(true),
        consumer_alive: AtomicBool::new(true),
        consumer_waiting: AtomicBool::new(false),
        consumer_thread: Mutex::new(None),
    });
    Ok((
        Producer {
            shared: shared.clone(),
            buffer_len,
        },
        Consumer { shared },
    ))
}

/// The filling end. Never blocks.
pub struct Producer {
    shared: Arc<Shared>,
    buffer_len: usize,
}

// `WriteGrant` and `ReadGuard` hold raw pointers and are therefore neither
// `Send` nor `Sync`; the ends themselves move between threads.

impl Producer {
    /// Lend the next empty buffer (all `buffer_len` bytes, old contents),
    /// or `None` if the consumer still holds every buffer.
    ///
    /// Nothing is published until [`WriteGrant::commit`].
    pub fn grant(&mut self) -> Option<WriteGrant<'_>> {
        let written = self.shared.written.load(Ordering::Relaxed);
        let read = self.shared.read.load(Ordering::Acquire);
        if written.wrapping_sub(read) >= self.shared.slots.len() {
            return None;
        }
        let data = self.shared.slots[written % self.shared.slots.len()]
            .data
            .get();
        Some(WriteGrant {
            producer: self,
            data,
        })
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
        self.shared.producer_alive.store(false, Ordering::Release);
        self.shared.wake_consumer();
    }
}

/// An empty buffer lent to the producer; dereferences to all its bytes.
///
/// It holds a raw pointer, not a `&mut [u8]`, so that no reference to the
/// slot is alive (or protected as a function argument) at the moment
/// [`WriteGrant::commit`] hands the slot to the consumer.
pub struct WriteGrant<'a> {
    producer: &'a mut Producer,
    data: *mut Box<[u8]>,
}

impl WriteGrant<'_> {
    /// Publish the first `len` bytes to the consumer.
    ///
    /// `len` is clamped to the buffer length. A grant dropped without
    /// `commit` publishes nothing and the buffer stays empty.
    pub fn commit(self, len: usize) {
        let len = len.min(self.producer.buffer_len);
        let shared = &self.producer.shared;
        let written = shared.written.load(Ordering::Relaxed);
        shared.slots[written % shared.slots.len()]
            .len
            .store(len, Ordering::Relaxed);
        shared
            .bytes_written
            .fetch_add(len as u64, Ordering::Relaxed);
        shared
            .written
            .store(written.wrapping_add(1), Ordering::Release);
        shared.wake_consumer();
    }
}

impl Deref for WriteGrant<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: the grant exists only while the producer owns the slot:
        // `Producer::grant` checked `written - read < buffers`, so the
        // consumer released it (Release store of `read`, our Acquire load)
        // and will not read it before `commit` advances `written`, which
        // consumes the grant. The grant borrows the producer mutably, so it
        // is the only one, and the returned reference lives no longer than
        // `&self`.
        unsafe { &*self.data }
    }
}

impl DerefMut for WriteGrant<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `deref`: the producer owns the slot for the grant's
        // whole life and `&mut self` makes this reference unique.
        unsafe { &mut *self.data }
    }
}

/// The draining end. May block, with a timeout.
pub struct Consumer {
    shared: Arc<Shared>,
}

impl Consumer {
    /// The oldest filled buffer, or `None` if there is none right now.
    pub fn try_pop(&mut self) -> Option<ReadGuard<'_>> {
        let read = self.shared.read.load(Ordering::Relaxed);
        let written = self.shared.written.load(Ordering::Acquire);
        if read == written {
            return None;
        }
        let slot = &self.shared.slots[read % self.shared.slots.len()];
        let len = slot.len.load(Ordering::Relaxed);
        let data = slot.data.get().cast_const();
        Some(ReadGuard {
            consumer: self,
            data,
            len,
        })
    }

    /// The oldest filled buffer, waiting up to `timeout` for one.
    ///
    /// Returns [`PopError::Closed`] once the producer is dropped and the ring
    /// is empty, [`PopError::Timeout`] if nothing came in time.
    pub fn pop_timeout(&mut self, timeout: Duration) -> Result<ReadGuard<'_>, PopError> {
        let deadline = Instant::now() + timeout;
        loop {
            if self.has_data() {
                break;
            }
            if !self.shared.producer_alive.load(Ordering::Acquire) {
                // The producer may have published just before it left.
                if self.has_data() {
                    break;
                }
                return Err(PopError::Closed);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(PopError::Timeout);
            }
            if let Ok(mut guard) = self.shared.consumer_thread.lock() {
                let current = thread::current();
                if guard.as_ref().map(Thread::id) != Some(current.id()) {
                    *guard = Some(current);
                }
            }
            self.shared.consumer_waiting.store(true, Ordering::Relaxed);
            // Pairs with the fence in `Shared::wake_consumer`.
            fence(Ordering::SeqCst);
            if !self.has_data() && self.shared.producer_alive.load(Ordering::Acquire) {
                thread::park_timeout((deadline - now).min(PARK_SLICE));
            }
            self.shared.consumer_waiting.store(false, Ordering::Relaxed);
        }
        self.try_pop().ok_or(PopError::Timeout)
    }

    fn has_data(&self) -> bool {
        self.shared.read.load(Ordering::Relaxed) != self.shared.written.load(Ordering::Acquire)
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
    data: *const Box<[u8]>,
    len: usize,
}

impl Deref for ReadGuard<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: the guard exists only while the consumer owns the slot:
        // `Consumer::try_pop` saw `read < written`, so the producer published
        // it (Release store of `written`, our Acquire load, which also makes
        // the bytes and `len` visible) and will not write it before the
        // guard's drop advances `read`. The reference is shared and lives no
        // longer than `&self`, so none is alive after the hand-back.
        let data: &[u8] = unsafe { &*self.data };
        &data[..self.len]
    }
}

impl Drop for ReadGuard<'_> {
    fn drop(&mut self) {
        let shared = &self.consumer.shared;
        let read = shared.read.load(Ordering::Relaxed);
        shared.read.store(read.wrapping_add(1), Ordering::Release);
    }
}

#[cfg(test)]
mod test {
    use super::*;

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

    /// Small enough for Miri: the hand-over between threads, checked for
    /// data races and aliasing.
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

    /// The consumer is woken by the producer, not by the end of its
    /// `PARK_SLICE` (250 ms) park.
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
}
