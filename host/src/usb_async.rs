//! Asynchronous USB bulk-in streaming: libusb transfers kept in flight.
//!
//! A blocking read loop leaves the bus idle between two reads, and the
//! RTL2832U's small FIFO overflows in that gap (samples are lost with no
//! marker in the data). [`BulkStream`] keeps `N` transfers of `S` bytes
//! submitted at all times, the way librtlsdr does (15 × 256 KiB by default),
//! through the raw libusb-1.0 asynchronous API that `rusb` 0.9 does not wrap.
//!
//! # Contract
//!
//! - **Setup allocates, streaming does not.** [`BulkStream::new`] allocates
//!   the `N` transfers and one `N × S` byte pool; [`BulkStream::run`] never
//!   allocates.
//! - **In order, synchronously.** Each completed transfer's bytes are handed
//!   to the [`Sink`] on the thread that calls `run`, in the order the
//!   transfers were submitted (even if libusb reports completions in another
//!   order), and the transfer is resubmitted at once. Short transfers are
//!   passed through with their actual length; empty ones are counted and not
//!   passed on.
//! - **The sink must not block.** While it runs, the bus keeps the other
//!   `N − 1` transfers to fill; if it is slower than the device on average,
//!   the device FIFO overflows. Copy into a ring and count your own drops.
//! - **Nothing is freed while libusb owns it.** Stopping cancels every
//!   transfer still in flight and handles events until each one has come
//!   back; `Drop` does the same. If libusb does not return them within
//!   [`StreamConfig::drain_timeout`], their memory is leaked on purpose
//!   rather than freed under libusb's feet ([`StreamError::Stuck`]).
//!
//! # Use with `rusb`
//!
//! ```ignore
//! let handle: rusb::DeviceHandle<rusb::Context> = /* opened, interface 0 claimed, FIFO reset */;
//! let stop = AtomicBool::new(false);
//! let mut stream = BulkStream::new(&handle, StreamConfig::default())?;
//! let end = stream.run(&stop, &mut |bytes: &[u8]| { ring.push_slice(bytes); Flow::Continue })?;
//! ```
//!
//! To run on a dedicated thread, create the stream inside
//! `std::thread::scope` (it borrows the handle), or create it first and move
//! it into the thread ([`BulkStream`] is `Send`); stop it from anywhere
//! through the `AtomicBool`.
//!
//! This is the only module of the crate with `unsafe` code for USB.
#![allow(unsafe_code)]

use std::collections::VecDeque;
use std::ffi::{c_int, c_uint, c_void};
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use libusb1_sys::{self as sys, constants as c};
use rusb::{DeviceHandle, UsbContext};

/// USB bulk buffers must be a whole number of maximum-size high-speed
/// packets (bytes).
pub const PACKET_LEN: usize = 512;

/// Whether the stream goes on after a sink call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Keep streaming.
    Continue,
    /// Stop: cancel every transfer, wait for them, and return from `run`.
    Stop,
}

/// The consumer of the byte stream.
///
/// `deliver` is called on the thread running [`BulkStream::run`], once per
/// completed transfer, in submission order, with the bytes the device sent
/// (1 to [`StreamConfig::transfer_len`] bytes). It **must not block**:
/// copy into a preallocated ring and return. Any `FnMut(&[u8]) -> Flow`
/// closure is a `Sink`.
pub trait Sink {
    /// Takes one transfer's bytes; the slice is only valid during the call.
    fn deliver(&mut self, bytes: &[u8]) -> Flow;
}

impl<F: FnMut(&[u8]) -> Flow> Sink for F {
    fn deliver(&mut self, bytes: &[u8]) -> Flow {
        self(bytes)
    }
}

/// Stream shape and timing. `Default` is librtlsdr's: 15 × 262 144 bytes on
/// endpoint 0x81, no transfer timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamConfig {
    /// Bulk IN endpoint address (bit 7 set), 0x81 on the RTL2832U.
    pub endpoint: u8,
    /// Transfers kept in flight, 1 ..= [`StreamConfig::MAX_TRANSFERS`].
    pub transfers: usize,
    /// Bytes per transfer: a non-zero multiple of [`PACKET_LEN`], at most
    /// [`StreamConfig::MAX_TRANSFER_LEN`].
    pub transfer_len: usize,
    /// Per-transfer timeout given to libusb; zero means none (librtlsdr's
    /// choice). A transfer waits behind the `N − 1` before it, so a non-zero
    /// timeout must exceed `N × S / byte rate` or healthy transfers time out.
    pub transfer_timeout: Duration,
    /// Longest single wait for USB events, which bounds how late a stop
    /// request is noticed (e.g. 100 ms; zero polls without sleeping).
    pub event_timeout: Duration,
    /// How long stopping waits for libusb to return cancelled transfers
    /// before it gives up and leaks them (e.g. 5 s).
    pub drain_timeout: Duration,
}

impl StreamConfig {
    /// Largest number of transfers in flight accepted.
    pub const MAX_TRANSFERS: usize = 256;
    /// Largest transfer accepted, bytes (16 MiB, the Linux usbfs default cap).
    pub const MAX_TRANSFER_LEN: usize = 16 << 20;

    /// Checks the shape; [`BulkStream::new`] calls this.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.endpoint & 0x80 == 0 {
            return Err(ConfigError::NotInEndpoint {
                endpoint: self.endpoint,
            });
        }
        if self.transfers == 0 || self.transfers > Self::MAX_TRANSFERS {
            return Err(ConfigError::TransferCount {
                got: self.transfers,
            });
        }
        if self.transfer_len == 0
            || self.transfer_len % PACKET_LEN != 0
            || self.transfer_len > Self::MAX_TRANSFER_LEN
        {
            return Err(ConfigError::TransferLen {
                got: self.transfer_len,
            });
        }
        if u32::try_from(self.transfer_timeout.as_millis()).is_err() {
            return Err(ConfigError::TransferTimeout);
        }
        Ok(())
    }
}

impl Default for StreamConfig {
    fn default() -> Self {
        Self {
            endpoint: 0x81,
            transfers: 15,
            transfer_len: 16 * 32 * PACKET_LEN,
            transfer_timeout: Duration::ZERO,
            event_timeout: Duration::from_millis(100),
            drain_timeout: Duration::from_secs(5),
        }
    }
}

/// A [`StreamConfig`] that cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigError {
    /// The endpoint address is an OUT endpoint (bit 7 clear).
    NotInEndpoint {
        /// The endpoint address given.
        endpoint: u8,
    },
    /// Transfers in flight not in 1 ..= [`StreamConfig::MAX_TRANSFERS`].
    TransferCount {
        /// The count given.
        got: usize,
    },
    /// Transfer length zero, not a multiple of [`PACKET_LEN`], or above
    /// [`StreamConfig::MAX_TRANSFER_LEN`].
    TransferLen {
        /// The length given, bytes.
        got: usize,
    },
    /// Transfer timeout does not fit libusb's `unsigned int` milliseconds.
    TransferTimeout,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotInEndpoint { endpoint } => {
                write!(f, "endpoint {endpoint:#04x} is not a bulk IN endpoint")
            }
            Self::TransferCount { got } => write!(
                f,
                "{got} transfers in flight, expected 1..={}",
                StreamConfig::MAX_TRANSFERS
            ),
            Self::TransferLen { got } => write!(
                f,
                "transfer length {got} bytes, expected a non-zero multiple of {PACKET_LEN} up to {}",
                StreamConfig::MAX_TRANSFER_LEN
            ),
            Self::TransferTimeout => f.write_str("transfer timeout too long for libusb"),
        }
    }
}

impl std::error::Error for ConfigError {}

/// How libusb says a transfer ended (`enum libusb_transfer_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferStatus {
    /// All requested bytes, or a short packet ended it early.
    Completed,
    /// Transfer failed (`LIBUSB_TRANSFER_ERROR`).
    Error,
    /// The per-transfer timeout expired; partial data may have arrived.
    TimedOut,
    /// Cancelled.
    Cancelled,
    /// The endpoint halted (stall).
    Stall,
    /// The device is gone (unplugged).
    NoDevice,
    /// The device sent more than asked for.
    Overflow,
    /// A status this libusb version does not document, kept as is.
    Unknown(i32),
}

impl From<i32> for TransferStatus {
    fn from(status: i32) -> Self {
        match status {
            c::LIBUSB_TRANSFER_COMPLETED => Self::Completed,
            c::LIBUSB_TRANSFER_ERROR => Self::Error,
            c::LIBUSB_TRANSFER_TIMED_OUT => Self::TimedOut,
            c::LIBUSB_TRANSFER_CANCELLED => Self::Cancelled,
            c::LIBUSB_TRANSFER_STALL => Self::Stall,
            c::LIBUSB_TRANSFER_NO_DEVICE => Self::NoDevice,
            c::LIBUSB_TRANSFER_OVERFLOW => Self::Overflow,
            other => Self::Unknown(other),
        }
    }
}

/// The libusb call that failed, for [`StreamError::Usb`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsbCall {
    /// `libusb_alloc_transfer` (returned NULL).
    AllocTransfer,
    /// `libusb_submit_transfer`.
    Submit,
    /// `libusb_clear_halt` after a stall.
    ClearHalt,
    /// `libusb_handle_events_timeout_completed`.
    HandleEvents,
}

/// Why a stream ended other than by request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamError {
    /// The device is gone: a transfer ended with `NO_DEVICE`, or a libusb
    /// call returned `LIBUSB_ERROR_NO_DEVICE`. Reopen it (by serial).
    NoDevice,
    /// The endpoint stalled again right after `clear_halt` and a resubmit.
    Stall,
    /// The device sent more bytes than a transfer could hold.
    Overflow,
    /// A transfer came back cancelled although this stream did not cancel
    /// it (someone else did, or libusb is shutting down).
    Cancelled,
    /// `LIBUSB_TRANSFER_ERROR` on this many transfers in a row (as many as
    /// are in flight) with no good transfer between them.
    Io {
        /// Consecutive failed transfers.
        consecutive: u32,
    },
    /// libusb reported an undocumented transfer status.
    UnknownStatus(i32),
    /// A libusb call failed.
    Usb {
        /// Which call.
        call: UsbCall,
        /// What it returned.
        error: rusb::Error,
    },
    /// libusb did not hand back every cancelled transfer within
    /// [`StreamConfig::drain_timeout`]; their transfers and buffers are
    /// leaked, never freed, and the stream cannot run again.
    Stuck {
        /// Transfers still owned by libusb.
        in_flight: usize,
    },
    /// The configuration is unusable.
    Config(ConfigError),
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoDevice => f.write_str("USB device gone (unplugged?)"),
            Self::Stall => f.write_str("bulk endpoint stalled again after clear-halt"),
            Self::Overflow => f.write_str("device sent more than the transfer could hold"),
            Self::Cancelled => f.write_str("transfer cancelled by someone else"),
            Self::Io { consecutive } => {
                write!(f, "{consecutive} consecutive bulk transfers failed")
            }
            Self::UnknownStatus(s) => write!(f, "unknown libusb transfer status {s}"),
            Self::Usb { call, error } => write!(f, "libusb {call:?} failed: {error}"),
            Self::Stuck { in_flight } => write!(
                f,
                "{in_flight} cancelled transfers never came back; their memory is leaked"
            ),
            Self::Config(e) => write!(f, "bad stream configuration: {e}"),
        }
    }
}

impl std::error::Error for StreamError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Usb { error, .. } => Some(error),
            Self::Config(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ConfigError> for StreamError {
    fn from(e: ConfigError) -> Self {
        Self::Config(e)
    }
}

impl StreamError {
    /// A failed libusb call, with `NO_DEVICE` folded into [`StreamError::NoDevice`].
    fn usb(call: UsbCall, error: rusb::Error) -> Self {
        match error {
            rusb::Error::NoDevice => Self::NoDevice,
            error => Self::Usb { call, error },
        }
    }
}

/// Why [`BulkStream::run`] returned normally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The sink returned [`Flow::Stop`].
    Sink,
    /// The `stop` flag was set.
    Requested,
}

/// Counters since the stream was created (all runs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Bytes handed to the sink.
    pub bytes: u64,
    /// Transfers that came back and were accounted (any status).
    pub transfers: u64,
    /// Transfers that carried fewer bytes than requested (including zero).
    pub short_transfers: u64,
    /// Transfers that timed out (the stream goes on).
    pub timeouts: u64,
    /// Transfers that ended with `LIBUSB_TRANSFER_ERROR`.
    pub errors: u64,
    /// Stalls seen (each followed by clear-halt and a resubmit).
    pub stalls: u64,
}

/// What to do with the oldest transfer once it has come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    /// Give its bytes to the sink, then resubmit it.
    Resubmit,
    /// Give its bytes to the sink, clear the endpoint halt, then resubmit.
    ClearHaltAndResubmit,
    /// Give its bytes to the sink, then end the stream with this error.
    End(StreamError),
}

/// The pure bookkeeping of a stream, apart from libusb: submission order,
/// counters, and the status policy.
///
/// Slots are indices `0..capacity`. A slot is *outstanding* from
/// `submitted` until `retire_oldest`; only the oldest outstanding slot is
/// retired, which is what makes delivery follow submission order.
#[derive(Debug)]
struct Ledger {
    order: VecDeque<usize>,
    capacity: usize,
    consecutive_errors: u32,
    recovering_from_stall: bool,
    stats: StreamStats,
}

impl Ledger {
    /// Allocates room for `capacity` outstanding slots (the only allocation).
    fn new(capacity: usize) -> Self {
        Self {
            order: VecDeque::with_capacity(capacity),
            capacity,
            consecutive_errors: 0,
            recovering_from_stall: false,
            stats: StreamStats::default(),
        }
    }

    /// Records that `slot` was submitted (it is now the newest).
    fn submitted(&mut self, slot: usize) {
        debug_assert!(slot < self.capacity && self.order.len() < self.capacity);
        debug_assert!(!self.order.contains(&slot));
        self.order.push_back(slot);
    }

    /// The oldest outstanding slot: the next one to deliver.
    fn oldest(&self) -> Option<usize> {
        self.order.front().copied()
    }

    /// Outstanding slots, oldest first.
    fn outstanding(&self) -> impl Iterator<Item = usize> + '_ {
        self.order.iter().copied()
    }

    /// Forgets every outstanding slot (after they have all come back).
    fn clear(&mut self) {
        self.order.clear();
    }

    /// Retires the oldest slot, which came back with `status` and `len`
    /// bytes out of `requested`, updates the counters and says what to do.
    fn retire_oldest(&mut self, status: TransferStatus, len: usize, requested: usize) -> Action {
        self.order.pop_front();
        let s = &mut self.stats;
        s.transfers += 1;
        s.bytes += len as u64;
        if len < requested {
            s.short_transfers += 1;
        }
        match status {
            TransferStatus::Completed => {
                self.consecutive_errors = 0;
                self.recovering_from_stall = false;
                Action::Resubmit
            }
            TransferStatus::TimedOut => {
                s.timeouts += 1;
                Action::Resubmit
            }
            TransferStatus::Error => {
                s.errors += 1;
                self.consecutive_errors += 1;
                if self.consecutive_errors as usize >= self.capacity {
                    Action::End(StreamError::Io {
                        consecutive: self.consecutive_errors,
                    })
                } else {
                    Action::Resubmit
                }
            }
            TransferStatus::Stall => {
                s.stalls += 1;
                if self.recovering_from_stall {
                    Action::End(StreamError::Stall)
                } else {
                    self.recovering_from_stall = true;
                    Action::ClearHaltAndResubmit
                }
            }
            TransferStatus::NoDevice => Action::End(StreamError::NoDevice),
            TransferStatus::Overflow => Action::End(StreamError::Overflow),
            TransferStatus::Cancelled => Action::End(StreamError::Cancelled),
            TransferStatus::Unknown(code) => Action::End(StreamError::UnknownStatus(code)),
        }
    }
}

/// Maps a negative libusb return code (`enum libusb_error`) to `rusb::Error`.
fn libusb_error(code: c_int) -> rusb::Error {
    match code {
        c::LIBUSB_ERROR_IO => rusb::Error::Io,
        c::LIBUSB_ERROR_INVALID_PARAM => rusb::Error::InvalidParam,
        c::LIBUSB_ERROR_ACCESS => rusb::Error::Access,
        c::LIBUSB_ERROR_NO_DEVICE => rusb::Error::NoDevice,
        c::LIBUSB_ERROR_NOT_FOUND => rusb::Error::NotFound,
        c::LIBUSB_ERROR_BUSY => rusb::Error::Busy,
        c::LIBUSB_ERROR_TIMEOUT => rusb::Error::Timeout,
        c::LIBUSB_ERROR_OVERFLOW => rusb::Error::Overflow,
        c::LIBUSB_ERROR_PIPE => rusb::Error::Pipe,
        c::LIBUSB_ERROR_INTERRUPTED => rusb::Error::Interrupted,
        c::LIBUSB_ERROR_NO_MEM => rusb::Error::NoMem,
        c::LIBUSB_ERROR_NOT_SUPPORTED => rusb::Error::NotSupported,
        _ => rusb::Error::Other,
    }
}

/// libusb's completion callback: marks the slot's flag and returns. It may
/// run on any thread that handles events on the context (a synchronous
/// control transfer on another thread does), so it only touches an atomic;
/// it cannot panic.
extern "system" fn transfer_done(transfer: *mut sys::libusb_transfer) {
    // SAFETY: libusb passes back a transfer this module filled; its
    // `user_data` points into `BulkStream::done`, a heap slice that lives
    // until every transfer has come back (drain before free, or leak).
    let done = unsafe { &*((*transfer).user_data as *const AtomicBool) };
    done.store(true, Ordering::Release);
}

/// `N` bulk IN transfers of `S` bytes kept in flight on one endpoint.
///
/// Borrows the device handle, so the handle (and its context) outlives
/// every transfer. See the [module docs](self) for the contract.
pub struct BulkStream<'h, C: UsbContext> {
    handle: &'h DeviceHandle<C>,
    config: StreamConfig,
    /// One libusb transfer per slot, allocated in `new`.
    transfers: Box<[NonNull<sys::libusb_transfer>]>,
    /// Per slot: set by `transfer_done`, cleared before each submit.
    done: Box<[AtomicBool]>,
    /// `transfers × transfer_len` bytes from `Box::<[u8]>::into_raw`; slot
    /// `k` owns `pool[k·S .. (k+1)·S]`. Kept raw because libusb writes into
    /// in-flight chunks while the engine reads finished ones.
    pool: NonNull<u8>,
    ledger: Ledger,
    /// `config.transfer_timeout` in libusb's unit (ms).
    timeout_ms: c_uint,
    /// Set when libusb kept transfers past the drain timeout: never free.
    leaked: bool,
}

// SAFETY: the transfers and the pool are owned by this value alone (no
// other pointer to them escapes except into libusb, which may complete
// transfers on any thread); the completion flags are atomics; and
// `&DeviceHandle<C>` is `Send` because rusb makes `DeviceHandle` `Sync`.
unsafe impl<C: UsbContext> Send for BulkStream<'_, C> {}

impl<'h, C: UsbContext> BulkStream<'h, C> {
    /// Allocates the transfers and the buffer pool for `config` on an open
    /// `handle` whose interface is claimed. Submits nothing.
    pub fn new(handle: &'h DeviceHandle<C>, config: StreamConfig) -> Result<Self, StreamError> {
        config.validate()?;
        let n = config.transfers;
        let pool: Box<[u8]> = vec![0u8; n * config.transfer_len].into_boxed_slice();
        let pool = NonNull::from(Box::leak(pool)).cast::<u8>();
        let mut stream = Self {
            handle,
            config,
            transfers: Box::new([]),
            done: (0..n).map(|_| AtomicBool::new(true)).collect(),
            pool,
            ledger: Ledger::new(n),
            timeout_ms: c_uint::try_from(config.transfer_timeout.as_millis())
                .map_err(|_| ConfigError::TransferTimeout)?,
            leaked: false,
        };
        let mut transfers = Vec::with_capacity(n);
        for _ in 0..n {
            // SAFETY: plain allocation call; zero isochronous packets.
            let raw = unsafe { sys::libusb_alloc_transfer(0) };
            match NonNull::new(raw) {
                Some(t) => transfers.push(t),
                None => {
                    // Drop frees those allocated so far (none is in flight).
                    stream.transfers = transfers.into_boxed_slice();
                    return Err(StreamError::Usb {
                        call: UsbCall::AllocTransfer,
                        error: rusb::Error::NoMem,
                    });
                }
            }
        }
        stream.transfers = transfers.into_boxed_slice();
        Ok(stream)
    }

    /// The configuration this stream was built with.
    pub fn config(&self) -> &StreamConfig {
        &self.config
    }

    /// Counters since creation.
    pub fn stats(&self) -> StreamStats {
        self.ledger.stats
    }

    /// Transfers currently owned by libusb (zero outside `run`, unless a
    /// sink panicked or the stream is stuck).
    pub fn in_flight(&self) -> usize {
        self.ledger
            .outstanding()
            .filter(|&k| !self.done[k].load(Ordering::Acquire))
            .count()
    }

    /// Submits every transfer, then handles USB events and feeds `sink`
    /// until the sink returns [`Flow::Stop`], `stop` becomes true (checked
    /// at least every [`StreamConfig::event_timeout`]), or an error ends the
    /// stream. Before returning, every transfer is cancelled and waited for,
    /// so the stream can run again. Does not allocate.
    ///
    /// Bytes that arrived in a transfer which then failed (timeout, error,
    /// stall, unplug) are delivered before the failure is acted on. After
    /// an error, the transfers that completed behind the failed one are
    /// discarded.
    ///
    /// Reset the device FIFO before each run (RTL2832U: `USB_EPA_CTL`).
    pub fn run<S: Sink + ?Sized>(
        &mut self,
        stop: &AtomicBool,
        sink: &mut S,
    ) -> Result<StopReason, StreamError> {
        if self.leaked {
            return Err(StreamError::Stuck {
                in_flight: self.in_flight(),
            });
        }
        // Left over from a run whose sink panicked.
        self.cancel_and_drain()?;
        let outcome = self.stream(stop, sink);
        let drained = self.cancel_and_drain();
        let reason = outcome?;
        drained.map(|()| reason)
    }

    /// The streaming loop proper; leaves transfers in flight on return.
    fn stream<S: Sink + ?Sized>(
        &mut self,
        stop: &AtomicBool,
        sink: &mut S,
    ) -> Result<StopReason, StreamError> {
        for slot in 0..self.config.transfers {
            self.submit(slot)?;
        }
        let context = self.handle.context();
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(StopReason::Requested);
            }
            match context.handle_events(Some(self.config.event_timeout)) {
                Ok(()) | Err(rusb::Error::Interrupted) => {}
                Err(e) => return Err(StreamError::usb(UsbCall::HandleEvents, e)),
            }
            while let Some(slot) = self.ledger.oldest() {
                if !self.done[slot].load(Ordering::Acquire) {
                    break;
                }
                let transfer = self.transfers[slot].as_ptr();
                // SAFETY: the slot's flag is set (Acquire pairs with the
                // callback's Release), so libusb has finished with the
                // transfer; we read two plain fields.
                let (status, actual) = unsafe { ((*transfer).status, (*transfer).actual_length) };
                let len = usize::try_from(actual)
                    .unwrap_or(0)
                    .min(self.config.transfer_len);
                let action =
                    self.ledger
                        .retire_oldest(status.into(), len, self.config.transfer_len);
                let flow = if len > 0 {
                    sink.deliver(self.chunk(slot, len))
                } else {
                    Flow::Continue
                };
                match action {
                    Action::End(e) => return Err(e),
                    _ if flow == Flow::Stop => return Ok(StopReason::Sink),
                    Action::Resubmit => self.submit(slot)?,
                    Action::ClearHaltAndResubmit => {
                        self.handle
                            .clear_halt(self.config.endpoint)
                            .map_err(|e| StreamError::usb(UsbCall::ClearHalt, e))?;
                        self.submit(slot)?;
                    }
                }
            }
        }
    }

    /// The first `len` bytes of a slot that libusb does not own.
    fn chunk(&self, slot: usize, len: usize) -> &[u8] {
        debug_assert!(self.done[slot].load(Ordering::Relaxed) && len <= self.config.transfer_len);
        // SAFETY: slot < transfers and len <= transfer_len, so the range is
        // inside the pool; the slot's transfer has come back (its flag was
        // seen with Acquire) and is not resubmitted while the slice lives
        // (it borrows self), so nothing writes these bytes meanwhile.
        unsafe {
            std::slice::from_raw_parts(self.pool.as_ptr().add(slot * self.config.transfer_len), len)
        }
    }

    /// Fills slot `slot`'s transfer afresh and hands it to libusb.
    fn submit(&mut self, slot: usize) -> Result<(), StreamError> {
        let transfer = self.transfers[slot].as_ptr();
        let len = self.config.transfer_len;
        let timeout_ms = self.timeout_ms;
        self.done[slot].store(false, Ordering::Relaxed);
        // SAFETY: the transfer is ours and not in flight (its flag was set,
        // or it was never submitted). The buffer chunk lies in the pool and
        // belongs to this slot only; `done[slot]` outlives the transfer's
        // time in flight. The handle is open for as long as `'h`.
        let rc = unsafe {
            sys::libusb_fill_bulk_transfer(
                transfer,
                self.handle.as_raw(),
                self.config.endpoint,
                self.pool.as_ptr().add(slot * len),
                len as c_int,
                transfer_done,
                (&self.done[slot] as *const AtomicBool)
                    .cast_mut()
                    .cast::<c_void>(),
                timeout_ms,
            );
            (*transfer).flags = 0;
            (*transfer).status = 0;
            (*transfer).actual_length = 0;
            sys::libusb_submit_transfer(transfer)
        };
        if rc < 0 {
            self.done[slot].store(true, Ordering::Relaxed);
            return Err(StreamError::usb(UsbCall::Submit, libusb_error(rc)));
        }
        self.ledger.submitted(slot);
        Ok(())
    }

    /// Cancels every transfer in flight and handles events until all have
    /// come back; then nothing is owned by libusb. On timeout, marks the
    /// stream leaked.
    fn cancel_and_drain(&mut self) -> Result<(), StreamError> {
        for slot in self.ledger.outstanding() {
            if !self.done[slot].load(Ordering::Acquire) {
                // SAFETY: the transfer was submitted and has not come back.
                // The result is ignored on purpose: NOT_FOUND means it is
                // already completing, and either way we wait for its callback.
                let _ = unsafe { sys::libusb_cancel_transfer(self.transfers[slot].as_ptr()) };
            }
        }
        let deadline = Instant::now() + self.config.drain_timeout;
        let context = self.handle.context();
        loop {
            let in_flight = self.in_flight();
            if in_flight == 0 {
                break;
            }
            if Instant::now() >= deadline {
                self.leaked = true;
                return Err(StreamError::Stuck { in_flight });
            }
            // Errors here cannot be acted on; the deadline bounds the loop.
            let _ = context.handle_events(Some(self.config.event_timeout));
        }
        self.ledger.clear();
        Ok(())
    }
}

impl<C: UsbContext> Drop for BulkStream<'_, C> {
    fn drop(&mut self) {
        if !self.leaked {
            // Sets `leaked` if libusb keeps any transfer.
            let _ = self.cancel_and_drain();
        }
        if self.leaked {
            // libusb may still write into these: never free them.
            std::mem::forget(std::mem::take(&mut self.done));
            std::mem::forget(std::mem::take(&mut self.transfers));
            return;
        }
        for t in self.transfers.iter() {
            // SAFETY: every transfer has come back (drained above) and none
            // is used again.
            unsafe { sys::libusb_free_transfer(t.as_ptr()) };
        }
        let len = self.config.transfers * self.config.transfer_len;
        // SAFETY: `pool` came from `Box::<[u8]>::leak` of exactly `len`
        // bytes in `new`, and no transfer refers to it any more.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.pool.as_ptr(), len)) });
    }
}

#[cfg(test)]
mod test {
    use super::*;

    const S: usize = 4096;

    #[test]
    fn test_default_config_is_librtlsdr() {
        let c = StreamConfig::default();
        assert_eq!(
            (c.endpoint, c.transfers, c.transfer_len),
            (0x81, 15, 262_144)
        );
        assert_eq!(c.validate(), Ok(()));
    }

    #[test]
    fn test_config_rejects() {
        let ok = StreamConfig::default();
        let bad = |f: fn(&mut StreamConfig)| {
            let mut c = ok;
            f(&mut c);
            c.validate().unwrap_err()
        };
        assert_eq!(
            bad(|c| c.endpoint = 0x01),
            ConfigError::NotInEndpoint { endpoint: 0x01 }
        );
        assert_eq!(
            bad(|c| c.transfers = 0),
            ConfigError::TransferCount { got: 0 }
        );
        assert_eq!(
            bad(|c| c.transfers = 257),
            ConfigError::TransferCount { got: 257 }
        );
        assert_eq!(
            bad(|c| c.transfer_len = 0),
            ConfigError::TransferLen { got: 0 }
        );
        assert_eq!(
            bad(|c| c.transfer_len = 1000),
            ConfigError::TransferLen { got: 1000 }
        );
        assert_eq!(
            bad(|c| c.transfer_len = (16 << 20) + 512),
            ConfigError::TransferLen {
                got: (16 << 20) + 512
            }
        );
        assert_eq!(
            bad(|c| c.transfer_timeout = Duration::from_secs(5_000_000)),
            ConfigError::TransferTimeout
        );
    }

    #[test]
    fn test_status_codes() {
        let got: Vec<TransferStatus> = (0..8).map(TransferStatus::from).collect();
        use TransferStatus::*;
        assert_eq!(
            got,
            [
                Completed,
                Error,
                TimedOut,
                Cancelled,
                Stall,
                NoDevice,
                Overflow,
                Unknown(7)
            ]
        );
    }

    #[test]
    fn test_error_codes() {
        assert_eq!(libusb_error(-4), rusb::Error::NoDevice);
        assert_eq!(libusb_error(-9), rusb::Error::Pipe);
        assert_eq!(libusb_error(-10), rusb::Error::Interrupted);
        assert_eq!(libusb_error(-42), rusb::Error::Other);
        assert_eq!(
            StreamError::usb(UsbCall::Submit, rusb::Error::NoDevice),
            StreamError::NoDevice
        );
        assert_eq!(
            StreamError::usb(UsbCall::Submit, rusb::Error::Busy),
            StreamError::Usb {
                call: UsbCall::Submit,
                error: rusb::Error::Busy
            }
        );
    }

    /// Drives a ledger like the engine does, with completions arriving in
    /// `arrivals` order (slot indices, one per event batch), and returns the
    /// slots in delivery order.
    fn deliver_order(n: usize, arrivals: &[usize]) -> Vec<usize> {
        let mut ledger = Ledger::new(n);
        for k in 0..n {
            ledger.submitted(k);
        }
        let mut done = vec![false; n];
        let mut delivered = Vec::new();
        for &k in arrivals {
            done[k] = true;
            while let Some(slot) = ledger.oldest() {
                if !done[slot] {
                    break;
                }
                assert_eq!(
                    ledger.retire_oldest(TransferStatus::Completed, S, S),
                    Action::Resubmit
                );
                delivered.push(slot);
                done[slot] = false;
                ledger.submitted(slot);
            }
        }
        delivered
    }

    #[test]
    fn test_delivery_follows_submission_order() {
        // In order: each arrival is delivered at once.
        assert_eq!(deliver_order(3, &[0, 1, 2, 0, 1]), [0, 1, 2, 0, 1]);
        // Slot 2 and 1 complete before 0: held back until 0 arrives.
        assert_eq!(deliver_order(3, &[2, 1, 0]), [0, 1, 2]);
        // After the first wrap the order continues from slot 0 again.
        assert_eq!(deliver_order(4, &[1, 0, 3, 2, 1, 0]), [0, 1, 2, 3, 0, 1]);
        // Nothing is delivered while the oldest is missing.
        assert_eq!(deliver_order(4, &[1, 2, 3]), Vec::<usize>::new());
    }

    #[test]
    fn test_counters() {
        let mut l = Ledger::new(4);
        for k in 0..4 {
            l.submitted(k);
        }
        assert_eq!(
            l.retire_oldest(TransferStatus::Completed, S, S),
            Action::Resubmit
        );
        assert_eq!(
            l.retire_oldest(TransferStatus::Completed, 100, S),
            Action::Resubmit
        );
        assert_eq!(
            l.retire_oldest(TransferStatus::TimedOut, 512, S),
            Action::Resubmit
        );
        assert_eq!(
            l.retire_oldest(TransferStatus::TimedOut, 0, S),
            Action::Resubmit
        );
        assert_eq!(l.oldest(), None);
        assert_eq!(
            l.stats,
            StreamStats {
                bytes: (S + 100 + 512) as u64,
                transfers: 4,
                short_transfers: 3,
                timeouts: 2,
                errors: 0,
                stalls: 0,
            }
        );
    }

    #[test]
    fn test_stall_recovers_once() {
        let mut l = Ledger::new(3);
        let mut retire = |status| {
            l.submitted(0);
            l.retire_oldest(status, 0, S)
        };
        assert_eq!(retire(TransferStatus::Stall), Action::ClearHaltAndResubmit);
        assert_eq!(retire(TransferStatus::Completed), Action::Resubmit);
        // A good transfer in between: the next stall is recovered again.
        assert_eq!(retire(TransferStatus::Stall), Action::ClearHaltAndResubmit);
        // Stalled again right after recovery: give up.
        assert_eq!(
            retire(TransferStatus::Stall),
            Action::End(StreamError::Stall)
        );
        assert_eq!(l.stats.stalls, 3);
    }

    #[test]
    fn test_errors_end_after_n_in_a_row() {
        let mut l = Ledger::new(3);
        let mut retire = |status| {
            l.submitted(1);
            l.retire_oldest(status, 0, S)
        };
        assert_eq!(retire(TransferStatus::Error), Action::Resubmit);
        assert_eq!(retire(TransferStatus::Error), Action::Resubmit);
        assert_eq!(retire(TransferStatus::Completed), Action::Resubmit);
        assert_eq!(retire(TransferStatus::Error), Action::Resubmit);
        assert_eq!(retire(TransferStatus::Error), Action::Resubmit);
        assert_eq!(
            retire(TransferStatus::Error),
            Action::End(StreamError::Io { consecutive: 3 })
        );
        assert_eq!(l.stats.errors, 5);
    }

    #[test]
    fn test_fatal_statuses_end() {
        for (status, err) in [
            (TransferStatus::NoDevice, StreamError::NoDevice),
            (TransferStatus::Overflow, StreamError::Overflow),
            (TransferStatus::Cancelled, StreamError::Cancelled),
            (TransferStatus::Unknown(9), StreamError::UnknownStatus(9)),
        ] {
            let mut l = Ledger::new(2);
            l.submitted(0);
            l.submitted(1);
            assert_eq!(l.retire_oldest(status, 7, S), Action::End(err));
            assert_eq!(l.stats.bytes, 7, "partial data is still counted");
            assert_eq!(l.oldest(), Some(1));
            l.clear();
            assert_eq!(l.oldest(), None);
        }
    }

    #[test]
    fn test_stream_can_move_to_a_reader_thread() {
        fn is_send<T: Send>() {}
        is_send::<BulkStream<'static, rusb::Context>>();
        is_send::<BulkStream<'static, rusb::GlobalContext>>();
    }

    #[test]
    fn test_sink_closure() {
        let mut seen = 0usize;
        let mut sink = |b: &[u8]| {
            seen += b.len();
            if seen >= 10 {
                Flow::Stop
            } else {
                Flow::Continue
            }
        };
        assert_eq!(Sink::deliver(&mut sink, &[0; 6]), Flow::Continue);
        assert_eq!(Sink::deliver(&mut sink, &[0; 6]), Flow::Stop);
    }
}
