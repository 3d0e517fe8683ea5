//! Streaming: a reader thread per open dongle keeps the bus busy and feeds
//! the buffer ring ([`crate::ring`]); the consumer takes buffers from its end.
//!
//! Two layers:
//!
//! - [`DongleStream`]: one run of one device. [`DongleStream::start`] resets
//!   the FIFO, takes the device's bulk half ([`Device::bulk_reader`]: libusb
//!   async transfers for a real stick, the paced emulator otherwise) and
//!   spawns the reader thread. The thread copies each transfer into the next
//!   free ring buffer; when the consumer holds them all, the transfer is
//!   dropped and counted ([`crate::ring::RingStats::bytes_dropped`]): memory
//!   is the ring's fixed pool and the bus never waits for the consumer.
//!   Device loss ends the run with a typed [`StreamError`] in [`ReaderEnd`].
//! - [`LiveDongle`]: what a long-running receiver uses. It reads through a
//!   [`DongleStream`], or streams on the caller's thread straight into the
//!   caller's ring ([`LiveDongle::stream_into`]: one copy from the USB
//!   transfer to the decoder's buffer, what the feeder does). It owns the
//!   device and a [`Reopener`]; when a run ends with an error (NoDevice, a
//!   repeated stall, …) it reopens the same stick by serial with backoff,
//!   re-applies the settings, restarts the stream, and counts the gap (time
//!   and an estimate of the samples lost) in [`LiveStats`]. It never ends by
//!   itself unless [`ReopenPolicy::max_attempts`] runs out.

use super::device::{Device, Selector};
use super::reopen::Reopener;
use super::usb::UsbError;
use super::{Error, Result};
use crate::ring::{self, Consumer, PopError, Producer, RingStats};
use crate::usb_async::{Flow, StopReason, StreamConfig, StreamError, StreamStats};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Shape of a stream: USB transfers in flight and the ring behind them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamOptions {
    /// Transfers kept in flight (librtlsdr: 15).
    pub transfers: usize,
    /// Bytes per transfer and per ring buffer, a multiple of 512
    /// (librtlsdr: 262 144, 54.6 ms at 2.4 MS/s).
    pub transfer_len: usize,
    /// Ring buffers between the reader thread and the consumer; with the
    /// defaults 32 × 256 KiB = 8 MiB, 1.7 s at 2.4 MS/s.
    pub ring_buffers: usize,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            transfers: 15,
            transfer_len: 262_144,
            ring_buffers: 32,
        }
    }
}

impl StreamOptions {
    fn usb(&self) -> StreamConfig {
        StreamConfig {
            transfers: self.transfers,
            transfer_len: self.transfer_len,
            ..StreamConfig::default()
        }
    }
}

/// How a reader thread finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReaderEnd {
    /// `Ok` when stopped on request (or the consumer went away); the
    /// stream's error otherwise ([`StreamError::NoDevice`]: the stick is gone).
    pub result: std::result::Result<StopReason, StreamError>,
    /// Transfer counters of the run (stalls recovered, timeouts, short transfers).
    pub stats: StreamStats,
}

/// What [`DongleStream::next_with`] found.
#[derive(Debug)]
pub enum Next<R> {
    /// A buffer arrived; the closure's result.
    Data(R),
    /// Nothing within the timeout; the stream is still running.
    Timeout,
    /// The reader thread has finished and every buffer has been read.
    Ended(ReaderEnd),
}

/// One streaming run of one device: its reader thread and the ring's
/// consumer end.
pub struct DongleStream {
    consumer: Consumer,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<ReaderEnd>>,
    ended: Option<ReaderEnd>,
}

impl DongleStream {
    /// Reset the FIFO and start the reader thread. Allocates the ring (and,
    /// for a real stick, the transfers) here, nothing per buffer afterwards.
    pub fn start(dev: &mut Device, opts: &StreamOptions) -> Result<DongleStream> {
        let (mut producer, consumer) = ring::ring(opts.ring_buffers, opts.transfer_len)
            .map_err(|e| Error::Io(std::io::Error::other(e.to_string())))?;
        let mut reader = dev.bulk_reader(&opts.usb())?;
        dev.reset_buffer()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("rtl-reader".into())
            .spawn(move || {
                let mut sink = |bytes: &[u8]| {
                    producer.push(bytes);
                    if producer.consumer_alive() {
                        Flow::Continue
                    } else {
                        Flow::Stop
                    }
                };
                let result = reader.run(&flag, &mut sink);
                ReaderEnd {
                    result,
                    stats: reader.stats(),
                }
            })
            .map_err(Error::Io)?;
        Ok(DongleStream {
            consumer,
            stop,
            thread: Some(thread),
            ended: None,
        })
    }

    /// Wait up to `timeout` for the next buffer and pass its bytes to `f`
    /// (the buffer goes back to the reader when `f` returns).
    pub fn next_with<R>(&mut self, timeout: Duration, f: impl FnOnce(&[u8]) -> R) -> Next<R> {
        let popped = match self.consumer.pop_timeout(timeout) {
            Ok(buffer) => Ok(f(&buffer)),
            Err(e) => Err(e),
        };
        match popped {
            Ok(r) => Next::Data(r),
            Err(PopError::Timeout) => Next::Timeout,
            Err(PopError::Closed) => Next::Ended(self.join()),
        }
    }

    /// Ring counters: buffers delivered, and those dropped because the
    /// consumer held every buffer.
    pub fn ring_stats(&self) -> RingStats {
        self.consumer.stats()
    }

    fn join(&mut self) -> ReaderEnd {
        if let Some(t) = self.thread.take() {
            let end = t.join().unwrap_or(ReaderEnd {
                result: Err(StreamError::Io { consecutive: 0 }),
                stats: StreamStats::default(),
            });
            self.ended = Some(end);
        }
        self.ended.unwrap_or(ReaderEnd {
            result: Ok(StopReason::Requested),
            stats: StreamStats::default(),
        })
    }

    /// Stop the reader (noticed within 100 ms) and wait for it.
    pub fn stop(mut self) -> ReaderEnd {
        self.stop.store(true, Ordering::Relaxed);
        self.join()
    }
}

impl Drop for DongleStream {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.join();
    }
}

/// How hard [`LiveDongle`] tries to get a lost stick back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReopenPolicy {
    /// Open attempts per loss (backoff 0.5, 1, 2, 4, 8, 8 … s between
    /// them); `u32::MAX` is "forever", what a feeder wants; 0 ends the
    /// stream with the error instead (a recording behind the emulator).
    pub max_attempts: u32,
}

impl Default for ReopenPolicy {
    fn default() -> Self {
        ReopenPolicy {
            max_attempts: u32::MAX,
        }
    }
}

/// Counters of a [`LiveDongle`] over its whole life.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LiveStats {
    /// Bytes handed to the consumer.
    pub bytes: u64,
    /// Streams that ended and were restarted after a reopen.
    pub gaps: u64,
    /// Total time without data across those gaps, seconds.
    pub gap_seconds: f64,
    /// Estimated bytes lost in the gaps (gap time × 2 × sample rate).
    pub gap_bytes: u64,
    /// Bytes the ring dropped because the consumer was slow.
    pub ring_dropped_bytes: u64,
    /// Ring buffers dropped for the same reason.
    pub ring_dropped_buffers: u64,
    /// Stalls cleared by the reader (clear-halt, resubmit).
    pub stalls: u64,
    /// Transfers that timed out (the stream went on).
    pub timeouts: u64,
    /// Transfers shorter than asked.
    pub short_transfers: u64,
}

/// What [`LiveDongle::stream_into`] reports per USB transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Bytes of this transfer (queued in the ring, or dropped and counted
    /// there when every buffer was held).
    pub bytes: usize,
    /// Estimated bytes lost in reopen gaps since the stream started.
    pub lost_bytes: u64,
}

/// No gain asked for in a [`LiveDongle::take_gain_requests`] cell.
pub const NO_GAIN_REQUEST: i32 = i32::MIN;

/// A dongle that keeps streaming: reopened by serial after a loss, with
/// the gap counted and reported.
pub struct LiveDongle {
    /// Manual gains (tenths of a dB) to apply between transfers while
    /// [`stream_into`](Self::stream_into) runs.
    gain_requests: Option<Arc<AtomicI32>>,
    /// The last gain applied from `gain_requests` (again after a reopen).
    gain_applied: Option<i32>,
    device: Option<Device>,
    stream: Option<DongleStream>,
    reopener: Reopener,
    opts: StreamOptions,
    policy: ReopenPolicy,
    rate: u32,
    last_data: Instant,
    /// Counters of runs that have ended.
    stats: LiveStats,
    quiet: bool,
    /// The rest of a ring buffer that did not fit the last
    /// [`read_timeout`](Self::read_timeout) (grown once, then reused).
    pending: Vec<u8>,
    /// Bytes of `pending` already handed out.
    pending_pos: usize,
}

impl LiveDongle {
    /// Start streaming `dev` (configured already; `selector` is how it was
    /// opened, an index becomes its serial for reopening).
    pub fn start(
        mut dev: Device,
        selector: &Selector,
        opts: StreamOptions,
        policy: ReopenPolicy,
    ) -> Result<LiveDongle> {
        let reopener = Reopener::new(&dev, selector);
        let stream = DongleStream::start(&mut dev, &opts)?;
        Ok(LiveDongle {
            gain_requests: None,
            gain_applied: None,
            rate: dev.sample_rate(),
            device: Some(dev),
            stream: Some(stream),
            reopener,
            opts,
            policy,
            last_data: Instant::now(),
            stats: LiveStats::default(),
            quiet: false,
            pending: Vec::new(),
            pending_pos: 0,
        })
    }

    /// Take manual gains from `requests` (tenths of a dB;
    /// [`NO_GAIN_REQUEST`] when none is waiting) while
    /// [`stream_into`](Self::stream_into) runs: each is applied between two
    /// USB transfers, on the streaming thread, outside libusb's callbacks
    /// (as a stall's clear-halt is), and again after a reopen.
    pub fn take_gain_requests(&mut self, requests: Arc<AtomicI32>) {
        self.gain_requests = Some(requests);
    }

    /// Set a manual gain (tenths of a dB, a listed one) now, while the
    /// reader thread of [`read_timeout`](Self::read_timeout) streams: a
    /// control transfer beside its bulk transfers, as an rtl_tcp server's
    /// commands are. Kept across a reopen. Without a device (a reopen
    /// failing) it is applied when the stick is back.
    ///
    /// # Errors
    /// The stick refuses the register writes.
    pub fn set_gain(&mut self, tenths: i32) -> Result<()> {
        self.gain_applied = Some(tenths);
        match self.device.as_mut() {
            Some(dev) => dev.set_gain(tenths),
            None => Ok(()),
        }
    }

    /// Do not print loss and reopen messages on stderr.
    pub fn quiet(mut self, quiet: bool) -> Self {
        self.quiet = quiet;
        self
    }

    /// The open device (`None` only while a reopen is failing).
    pub fn device(&mut self) -> Option<&mut Device> {
        self.device.as_mut()
    }

    /// Counters so far (including the running stream's ring drops).
    pub fn stats(&self) -> LiveStats {
        let mut s = self.stats;
        if let Some(st) = &self.stream {
            let r = st.ring_stats();
            s.ring_dropped_bytes += r.bytes_dropped;
            s.ring_dropped_buffers += r.buffers_dropped;
        }
        s
    }

    fn absorb(&mut self, end: &ReaderEnd, ring: RingStats) {
        self.stats.stalls += end.stats.stalls;
        self.stats.timeouts += end.stats.timeouts;
        self.stats.short_transfers += end.stats.short_transfers;
        self.stats.ring_dropped_bytes += ring.bytes_dropped;
        self.stats.ring_dropped_buffers += ring.buffers_dropped;
    }

    /// Wait up to `timeout` for the next buffer and pass it to `f`.
    /// `Ok(None)`: nothing arrived in time. A lost stick is reopened here
    /// (this call then blocks through the backoff); `Err` only when the
    /// reopen policy gives up or the stick comes back refusing its settings.
    pub fn next_with<R>(
        &mut self,
        timeout: Duration,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<Option<R>> {
        let Some(stream) = self.stream.as_mut() else {
            // After a stream_into, or a failed restart.
            match self.device.as_mut() {
                Some(dev) => match DongleStream::start(dev, &self.opts) {
                    Ok(s) => self.stream = Some(s),
                    // Lost while it was not streaming: reopened like a
                    // loss mid-stream.
                    Err(Error::Usb {
                        source: UsbError::NoDevice,
                        ..
                    }) => self.recover(StreamError::NoDevice)?,
                    Err(e) => return Err(e),
                },
                None => self.recover(StreamError::NoDevice)?,
            }
            return Ok(None);
        };
        let mut n = 0;
        let next = stream.next_with(timeout, |b| {
            n = b.len();
            f(b)
        });
        match next {
            Next::Data(r) => {
                self.stats.bytes += n as u64;
                self.last_data = Instant::now();
                Ok(Some(r))
            }
            Next::Timeout => Ok(None),
            Next::Ended(end) => {
                let ring = stream.ring_stats();
                self.absorb(&end, ring);
                self.stream = None;
                let error = match end.result {
                    Ok(_) => StreamError::Cancelled,
                    Err(e) => e,
                };
                self.recover(error)?;
                Ok(None)
            }
        }
    }

    /// Copy the next bytes of the stream into the front of `buf`, waiting
    /// up to `timeout`; `Ok(None)`: nothing arrived in time.
    ///
    /// A ring buffer that fits goes straight from the ring into `buf` (the
    /// one copy between the USB transfer's ring and the caller's buffer);
    /// one that does not is split, its rest handed out by the next calls.
    /// Counts are even (whole I/Q pairs) when `buf.len()` is; a `buf`
    /// shorter than 2 bytes gets `Ok(Some(0))`. Loss and reopening are as
    /// in [`next_with`](Self::next_with).
    pub fn read_timeout(&mut self, buf: &mut [u8], timeout: Duration) -> Result<Option<usize>> {
        let want = buf.len() & !1;
        if want == 0 {
            return Ok(Some(0));
        }
        if self.pending_pos < self.pending.len() {
            let rest = &self.pending[self.pending_pos..];
            let n = rest.len().min(want);
            buf[..n].copy_from_slice(&rest[..n]);
            self.pending_pos += n;
            return Ok(Some(n));
        }
        // Everything pending was handed out: empty it before the wait, so a
        // timeout leaves nothing to hand out twice.
        let mut pending = std::mem::take(&mut self.pending);
        pending.clear();
        let got = self.next_with(timeout, |b| {
            let n = b.len().min(want);
            buf[..n].copy_from_slice(&b[..n]);
            pending.extend_from_slice(&b[n..]);
            n
        });
        self.pending = pending;
        self.pending_pos = 0;
        got
    }

    /// Reopen after `error`, restart the stream, count the gap.
    fn recover(&mut self, error: StreamError) -> Result<()> {
        self.reopen(error)?;
        let Some(dev) = self.device.as_mut() else {
            return Err(Error::Usb {
                op: "start streaming",
                source: UsbError::NoDevice,
            });
        };
        if let Some(g) = self.gain_applied {
            dev.set_gain(g)?;
        }
        self.stream = Some(DongleStream::start(dev, &self.opts)?);
        Ok(())
    }

    /// Reopen the stick after `error` (by serial, with backoff, settings
    /// re-applied) and count the gap since the last data.
    fn reopen(&mut self, error: StreamError) -> Result<()> {
        if self.policy.max_attempts == 0 {
            let source = match error {
                StreamError::NoDevice => UsbError::NoDevice,
                StreamError::Stall => UsbError::Pipe,
                StreamError::Overflow => UsbError::Overflow,
                _ => UsbError::Other("bulk stream failed"),
            };
            return Err(Error::Usb {
                op: "bulk read",
                source,
            });
        }
        if !self.quiet {
            let which = match self.reopener.selector() {
                Selector::Index(i) => format!("dongle #{i}"),
                Selector::Serial(s) => format!("the dongle with serial {s}"),
                Selector::Fake(cfg) => format!("the emulator (serial {})", cfg.serial),
            };
            eprintln!("airwaves: stream ended: {error}; reopening {which}");
        }
        if let Some(dev) = &self.device {
            self.reopener.remember(dev);
        }
        // Close what is left (a gone stick fails quietly).
        self.device = None;
        let back = self
            .reopener
            .reopen(self.policy.max_attempts, std::thread::sleep)?;
        self.rate = back.device.sample_rate();
        self.device = Some(back.device);
        let gap = self.last_data.elapsed().as_secs_f64();
        self.stats.gaps += 1;
        self.stats.gap_seconds += gap;
        self.stats.gap_bytes += (gap * 2.0 * f64::from(self.rate)) as u64;
        if !self.quiet {
            eprintln!(
                "airwaves: reopened after {} attempt(s); gap {:.2} s, about {} samples lost",
                back.attempts,
                gap,
                (gap * f64::from(self.rate)) as u64
            );
        }
        Ok(())
    }

    /// Stream on the calling thread straight into a consumer's ring until
    /// `stop` is set or the ring's consumer goes away: each USB transfer
    /// is copied once, into the ring's next free buffer (the one copy
    /// between the bus and the decoder); a transfer that finds no free
    /// buffer is dropped and counted in the ring's stats, so the bus never
    /// waits. The stream of the dongle's own ring is stopped first and
    /// what it held is discarded. A lost stick is reopened as in
    /// [`next_with`](Self::next_with), the gap counted; `progress` sees each
    /// transfer's bytes and the bytes lost in gaps so far.
    ///
    /// # Errors
    /// The stick refuses to stream, or the reopen policy gives up.
    pub fn stream_into(
        &mut self,
        producer: &mut Producer,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<()> {
        self.stop_stream();
        loop {
            if stop.load(Ordering::Relaxed) || !producer.consumer_alive() {
                return Ok(());
            }
            let Some(dev) = self.device.as_mut() else {
                self.reopen(StreamError::NoDevice)?;
                continue;
            };
            if let Some(g) = self.gain_applied {
                dev.set_gain(g)?;
            }
            let mut reader = dev.bulk_reader(&self.opts.usb())?;
            dev.reset_buffer()?;
            let lost_bytes = self.stats.gap_bytes;
            let mut last_data = Instant::now();
            let requests = self.gain_requests.clone();
            let mut applied = None;
            let mut sink = |bytes: &[u8]| {
                if let Some(r) = &requests {
                    let g = r.swap(NO_GAIN_REQUEST, Ordering::Relaxed);
                    if g != NO_GAIN_REQUEST && dev.set_gain(g).is_ok() {
                        applied = Some(g);
                    }
                }
                last_data = Instant::now();
                producer.push(bytes);
                progress(Progress {
                    bytes: bytes.len(),
                    lost_bytes,
                });
                if producer.consumer_alive() {
                    Flow::Continue
                } else {
                    Flow::Stop
                }
            };
            let result = reader.run(stop, &mut sink);
            let end = ReaderEnd {
                result,
                stats: reader.stats(),
            };
            drop(reader);
            if applied.is_some() {
                self.gain_applied = applied;
            }
            self.last_data = last_data;
            self.stats.bytes += end.stats.bytes;
            self.absorb(&end, RingStats::default());
            match end.result {
                Ok(_) => return Ok(()),
                Err(e) => self.reopen(e)?,
            }
        }
    }

    /// Stop the running stream, discarding what it queued, and count its
    /// run.
    fn stop_stream(&mut self) {
        self.pending.clear();
        self.pending_pos = 0;
        if let Some(stream) = self.stream.take() {
            let ring = stream.ring_stats();
            let end = stream.stop();
            self.absorb(&end, ring);
        }
        self.last_data = Instant::now();
    }

    /// Restart the stream (FIFO reset), discarding what was queued.
    pub fn restart(&mut self) -> Result<()> {
        self.stop_stream();
        match self.device.as_mut() {
            Some(dev) => {
                self.rate = dev.sample_rate();
                self.stream = Some(DongleStream::start(dev, &self.opts)?);
                Ok(())
            }
            None => self.recover(StreamError::NoDevice),
        }
    }

    /// Stop streaming and close the device.
    pub fn close(mut self) -> Result<LiveStats> {
        self.stop_stream();
        let stats = self.stats;
        match self.device.take() {
            Some(dev) => dev.close().map(|()| stats),
            None => Ok(stats),
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::rtl::counter::CounterCheck;
    use crate::rtl::fake::{FakeConfig, FakeRtl, SharedFake};

    /// Open the emulator `spec` through a handle the test keeps, at 2.4 MS/s
    /// in counter test mode.
    fn counter_dongle(spec: &str) -> (Device, SharedFake, Selector) {
        let cfg = FakeConfig::parse(spec).unwrap();
        let fake = SharedFake::new(FakeRtl::new(cfg.clone()));
        let mut dev = Device::from_transport(Box::new(fake.clone())).unwrap();
        dev.set_sample_rate(2_400_000).unwrap();
        dev.set_test_mode(true).unwrap();
        (dev, fake, Selector::Fake(cfg))
    }

    /// The emulator `spec` streaming as a quiet [`LiveDongle`].
    fn live_dongle(spec: &str, policy: ReopenPolicy) -> LiveDongle {
        let (dev, _fake, selector) = counter_dongle(spec);
        LiveDongle::start(dev, &selector, small(), policy)
            .unwrap()
            .quiet(true)
    }

    fn small() -> StreamOptions {
        StreamOptions {
            transfers: 4,
            transfer_len: 65_536,
            ring_buffers: 16,
        }
    }

    /// Pull `n` buffers, checking the counter across them.
    fn pull(stream: &mut DongleStream, n: usize) -> CounterCheck {
        let mut check = CounterCheck::default();
        let mut got = 0;
        while got < n {
            match stream.next_with(Duration::from_secs(5), |b| check.feed(b)) {
                Next::Data(()) => got += 1,
                Next::Timeout => panic!("no data within 5 s"),
                Next::Ended(end) => panic!("stream ended: {end:?}"),
            }
        }
        check
    }

    #[test]
    fn test_counter_streams_in_order() {
        let (mut dev, fake, _) = counter_dongle("r820t,speed=10");
        let mut stream = DongleStream::start(&mut dev, &small()).unwrap();
        let c = pull(&mut stream, 40);
        assert_eq!((c.gaps, c.lost, c.bytes), (0, 0, 40 * 65_536));
        let end = stream.stop();
        assert_eq!(end.result, Ok(StopReason::Requested));
        assert_eq!(end.stats.stalls, 0);
        assert_eq!(fake.lock().dropped_bytes, 0);
    }

    #[test]
    fn test_stall_is_cleared_and_the_stream_goes_on() {
        let (mut dev, _fake, _) = counter_dongle("r820t,speed=10,fault=stall@3");
        let mut stream = DongleStream::start(&mut dev, &small()).unwrap();
        let c = pull(&mut stream, 10);
        // The stalled read delivered nothing; the counter goes on after it.
        assert_eq!((c.gaps, c.lost), (0, 0));
        let end = stream.stop();
        assert_eq!(end.stats.stalls, 1);
        assert_eq!(end.result, Ok(StopReason::Requested));
    }

    #[test]
    fn test_timeout_counted_stream_goes_on() {
        let (mut dev, _fake, _) = counter_dongle("r820t,speed=10,fault=timeout@2");
        let mut stream = DongleStream::start(&mut dev, &small()).unwrap();
        let c = pull(&mut stream, 6);
        assert_eq!(c.gaps, 0);
        assert_eq!(stream.stop().stats.timeouts, 1);
    }

    #[test]
    fn test_short_reads_delivered_whole() {
        let (mut dev, _fake, _) = counter_dongle("r820t,speed=10,fault=short");
        let mut stream = DongleStream::start(&mut dev, &small()).unwrap();
        let mut lens = Vec::new();
        let mut check = CounterCheck::default();
        for _ in 0..5 {
            match stream.next_with(Duration::from_secs(5), |b| {
                check.feed(b);
                b.len()
            }) {
                Next::Data(n) => lens.push(n),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(lens, vec![32_768; 5]);
        assert_eq!((check.gaps, check.lost), (0, 0));
        // The reader may have read ahead of what the test pulled.
        let end = stream.stop();
        assert!(end.stats.short_transfers >= 5, "{end:?}");
        assert_eq!(end.stats.short_transfers, end.stats.transfers);
    }

    #[test]
    fn test_nodevice_ends_with_typed_error() {
        let (mut dev, _fake, _) = counter_dongle("r820t,fast,fault=nodevice@3");
        let mut stream = DongleStream::start(&mut dev, &small()).unwrap();
        let mut buffers = 0;
        let end = loop {
            match stream.next_with(Duration::from_secs(5), |_| ()) {
                Next::Data(()) => buffers += 1,
                Next::Timeout => panic!("timeout"),
                Next::Ended(end) => break end,
            }
        };
        assert!(buffers <= 3, "{buffers}");
        assert_eq!(end.result, Err(StreamError::NoDevice));
    }

    #[test]
    fn test_first_write_failure_takes_the_reset_path_then_streams() {
        let (mut dev, fake, _) = counter_dongle("r820t,speed=10,fault=firstwrite");
        assert_eq!(fake.lock().resets, 1);
        let mut stream = DongleStream::start(&mut dev, &small()).unwrap();
        let c = pull(&mut stream, 4);
        assert_eq!((c.gaps, c.bytes), (0, 4 * 65_536));
    }

    #[test]
    fn test_nodevice_mid_stream_reopened_by_serial_gap_reported() {
        let spec = "r820t,speed=10,serial=FEEDER07,fault=nodevice@5";
        let (mut dev, _fake, selector) = counter_dongle(spec);
        dev.set_center_freq(1_090_000_000).unwrap();
        let mut live = LiveDongle::start(dev, &selector, small(), ReopenPolicy { max_attempts: 3 })
            .unwrap()
            .quiet(true);
        let mut buffers = 0;
        let mut within = CounterCheck::default();
        let t0 = Instant::now();
        while live.stats().gaps < 2 {
            assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", live.stats());
            if let Some(n) = live
                .next_with(Duration::from_secs(5), |b| {
                    // The counter is continuous inside each buffer.
                    let mut c = CounterCheck::default();
                    c.feed(b);
                    within.gaps += c.gaps;
                    b.len()
                })
                .unwrap()
            {
                assert_eq!(n, 65_536);
                buffers += 1;
            }
        }
        let s = live.stats();
        // Five buffers per life of the emulated stick, two losses, and the
        // stream went on after each.
        assert!(buffers >= 10, "{buffers}");
        assert_eq!(within.gaps, 0);
        assert!(s.gap_seconds >= 1.0, "two backoffs of 0.5 s: {s:?}");
        assert!(s.gap_bytes >= 2_400_000, "{s:?}");
        let dev = live.device().unwrap();
        assert_eq!(dev.strings().serial.as_deref(), Some("FEEDER07"));
        let settings = dev.settings();
        assert!(settings.test_mode);
        assert_eq!(settings.sample_rate, Some(2_400_000));
        assert_eq!(settings.center_freq, Some(1_090_000_000));
        live.close().unwrap();
    }

    #[test]
    fn test_read_timeout_any_buffer_size_keeps_the_counter_continuous() {
        // Real time: 16 ring buffers are 0.2 s of slack on a loaded machine.
        let mut live = live_dongle("r820t", ReopenPolicy::default());
        let mut check = CounterCheck::default();
        // Larger than a ring buffer (one whole buffer per read), smaller
        // (split, the rest kept), odd (whole pairs only), and tiny.
        let mut buf = vec![0u8; 100_000];
        let mut total = 0;
        // Polled without waiting, so that timeouts fall between reads.
        let t0 = Instant::now();
        for len in [100_000, 65_536, 30_001, 7, 2, 1, 65_535, 40_000, 100_000] {
            let n = loop {
                assert!(t0.elapsed() < Duration::from_secs(20), "no data");
                if let Some(n) = live.read_timeout(&mut buf[..len], Duration::ZERO).unwrap() {
                    break n;
                }
            };
            assert_eq!(n % 2, 0, "{len}: {n}");
            assert!(n <= len.max(1) && (len < 2 || n > 0), "{len}: {n}");
            check.feed(&buf[..n]);
            total += n;
        }
        assert_eq!((check.gaps, check.lost), (0, 0), "{check:?}");
        assert_eq!(check.bytes, total as u64);
        // A restart discards the rest of a split buffer.
        live.read_timeout(&mut buf[..10], Duration::from_secs(5))
            .unwrap();
        live.restart().unwrap();
        let n = live
            .read_timeout(&mut buf, Duration::from_secs(5))
            .unwrap()
            .unwrap();
        assert_eq!(n, 65_536);
        live.close().unwrap();
    }

    #[test]
    fn test_stream_into_the_consumers_ring_one_copy_through_a_reopen() {
        // The emulated stick is lost after 5 transfers of each life; the
        // stream goes on into the same ring, the counter continuous within
        // every buffer, until the consumer (another thread) goes away.
        let spec = "r820t,speed=10,serial=INTO01,fault=nodevice@5";
        let mut live = live_dongle(spec, ReopenPolicy { max_attempts: 3 });
        let (mut producer, mut consumer) = ring::ring(8, 65_536).unwrap();
        let reader = std::thread::spawn(move || {
            let mut buffers = 0;
            let mut gaps_within = 0;
            while buffers < 14 {
                let b = consumer
                    .pop_timeout(Duration::from_secs(10))
                    .expect("a buffer");
                let mut c = CounterCheck::default();
                c.feed(&b);
                gaps_within += c.gaps;
                assert_eq!(b.len(), 65_536);
                buffers += 1;
            }
            gaps_within
        });
        let stop = AtomicBool::new(false);
        let mut delivered = 0u64;
        let mut lost = 0;
        live.stream_into(&mut producer, &stop, &mut |p| {
            delivered += p.bytes as u64;
            lost = p.lost_bytes;
        })
        .unwrap();
        assert_eq!(reader.join().unwrap(), 0);
        let s = live.stats();
        // Two losses in 14 buffers of 5 per life, each gap counted.
        assert!(s.gaps >= 2, "{s:?}");
        assert!(lost > 0 && lost <= s.gap_bytes, "{lost} {s:?}");
        assert!(delivered >= 14 * 65_536, "{delivered}");
        assert_eq!(s.bytes, delivered);
        // What the ring could not take was dropped and counted there.
        let r = producer.stats();
        assert_eq!(r.bytes_written + r.bytes_dropped, delivered);
        // The settings survived the reopens; reading afterwards starts the
        // dongle's own stream again.
        assert_eq!(
            live.device().unwrap().settings().sample_rate,
            Some(2_400_000)
        );
        let mut buf = vec![0u8; 65_536];
        let t0 = Instant::now();
        while live
            .read_timeout(&mut buf, Duration::from_secs(1))
            .unwrap()
            .is_none()
        {
            assert!(t0.elapsed() < Duration::from_secs(10));
        }
        // This life too ends after 5 transfers, and the stream runs on
        // until the close: the stick may already be gone by then.
        match live.close() {
            Ok(_) => {}
            Err(e) => assert_eq!(e.usb_kind(), Some(UsbError::NoDevice), "{e}"),
        }
    }

    #[test]
    fn test_stream_into_stops_on_request() {
        let mut live = live_dongle("r820t,speed=10", ReopenPolicy::default());
        let (mut producer, mut consumer) = ring::ring(4, 65_536).unwrap();
        let stop = AtomicBool::new(false);
        let mut check = CounterCheck::default();
        let mut transfers = 0;
        live.stream_into(&mut producer, &stop, &mut |_| {
            // Read on this thread: nothing is ever dropped.
            while let Some(b) = consumer.try_pop() {
                check.feed(&b);
            }
            transfers += 1;
            if transfers == 20 {
                stop.store(true, Ordering::Relaxed);
            }
        })
        .unwrap();
        while let Some(b) = consumer.try_pop() {
            check.feed(&b);
        }
        assert!(transfers >= 20);
        assert_eq!((check.gaps, check.lost), (0, 0));
        assert_eq!(check.bytes, transfers * 65_536);
        assert_eq!(producer.stats().bytes_dropped, 0);
        live.close().unwrap();
    }

    #[test]
    fn test_policy_zero_ends_with_gone() {
        let mut live = live_dongle(
            "r820t,fast,fault=nodevice@1",
            ReopenPolicy { max_attempts: 0 },
        );
        let err = loop {
            match live.next_with(Duration::from_secs(5), |_| ()) {
                Ok(_) => {}
                Err(e) => break e,
            }
        };
        assert_eq!(err.usb_kind(), Some(UsbError::NoDevice));
    }

    #[test]
    fn test_slow_consumer_counted_drops_bounded_memory_bus_never_waits() {
        // 2.4 MS/s × 10 (48 MB/s of stream) into a 4-buffer ring, read by a
        // consumer that takes 50 ms per buffer.
        let (mut dev, fake, _) = counter_dongle("r820t,speed=10");
        let opts = StreamOptions {
            transfers: 4,
            transfer_len: 65_536,
            ring_buffers: 4,
        };
        let mut stream = DongleStream::start(&mut dev, &opts).unwrap();
        let mut got = 0u64;
        for _ in 0..10 {
            match stream.next_with(Duration::from_secs(5), |b| {
                std::thread::sleep(Duration::from_millis(50));
                b.len() as u64
            }) {
                Next::Data(n) => got += n,
                other => panic!("{other:?}"),
            }
            let r = stream.ring_stats();
            assert!(r.buffers_queued <= 4, "{r:?}");
        }
        let r = stream.ring_stats();
        let end = stream.stop();
        // Dropped in the ring and counted, with the reader never behind
        // the (emulated) bus: its FIFO lost nothing.
        assert!(r.buffers_dropped > 10, "{r:?}");
        assert_eq!(r.bytes_dropped, r.buffers_dropped * 65_536);
        assert_eq!(fake.lock().dropped_bytes, 0);
        assert_eq!(got, 10 * 65_536);
        // Everything the bus delivered went to the ring or was counted as
        // dropped (up to the transfer in hand when the snapshot was taken).
        let accounted = r.bytes_written + r.bytes_dropped;
        assert!(
            (accounted..=accounted + 65_536).contains(&end.stats.bytes),
            "{end:?} {r:?}"
        );
    }

    #[test]
    fn test_rate_change_mid_stream_repaces() {
        // 2.4 MS/s, then 250 kS/s while streaming: the next buffers come at
        // the new rate (64 KiB in about 131 ms), not after a stall.
        let (mut dev, fake, _) = counter_dongle("r820t");
        let opts = StreamOptions {
            ring_buffers: 2,
            ..small()
        };
        let mut stream = DongleStream::start(&mut dev, &opts).unwrap();
        pull(&mut stream, 40);
        dev.set_sample_rate(250_000).unwrap();
        let t0 = Instant::now();
        // At most 3 buffers were ahead; the rest must come at the new rate.
        pull(&mut stream, 6);
        let t = t0.elapsed().as_secs_f64();
        // About 0.8 s at the new rate; a stall waits for the old buffers'
        // 30 s transfer timeout. A loose bound: this machine may be loaded.
        assert!(t < 10.0, "{t} s");
        assert_eq!(fake.lock().dropped_bytes, 0);
    }

    /// 30 s of stream time at 2.4 MS/s (144 MB of counter) arrives without
    /// a gap. The emulator's clock runs 10× real time (`speed=10`: bytes due
    /// at 48 MB/s, its FIFO 10× larger so it holds the same stream time), so
    /// this takes 3 s; the 2 s real-time run below is the same at speed 1.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_counter_30_s_of_stream_time_without_gap() {
        counter_without_gap("r820t,speed=10", 30.0);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_counter_2_s_real_time_without_gap() {
        counter_without_gap("r820t", 2.0);
    }

    fn counter_without_gap(spec: &str, stream_seconds: f64) {
        let (mut dev, fake, _) = counter_dongle(spec);
        let speed = f64::from(FakeConfig::parse(spec).unwrap().speed);
        let opts = StreamOptions {
            ring_buffers: 64,
            ..StreamOptions::default()
        };
        let mut stream = DongleStream::start(&mut dev, &opts).unwrap();
        let want = (stream_seconds * 4_800_000.0) as u64;
        let mut check = CounterCheck::default();
        let t0 = Instant::now();
        while check.bytes < want {
            match stream.next_with(Duration::from_secs(5), |b| check.feed(b)) {
                Next::Data(()) => {}
                other => panic!("{other:?}"),
            }
        }
        let wall = t0.elapsed().as_secs_f64();
        let r = stream.ring_stats();
        stream.stop();
        assert_eq!((check.gaps, check.lost), (0, 0), "{r:?}");
        assert_eq!(r.bytes_dropped, 0);
        assert_eq!(fake.lock().dropped_bytes, 0);
        // Paced, not faster than the clock allows (minus the FIFO head start).
        assert!(wall >= stream_seconds / speed * 0.8, "{wall} s");
        eprintln!(
            "{} bytes of counter ({stream_seconds} s of stream at 2.4 MS/s) in {wall:.2} s, no gap",
            check.bytes
        );
    }
}
