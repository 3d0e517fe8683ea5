//! The real transport: libusb through `rusb`. The only code that touches rusb
//! (besides the async engine in [`crate::usb_async`], which it drives).
//!
//! Control and bulk halves: the libusb handle is held in an `Arc`
//! (`rusb::DeviceHandle` is `Sync`; libusb allows control transfers on one
//! thread while another handles bulk events). [`RusbTransport`] does the
//! control transfers; [`UsbTransport::bulk_reader`] hands a clone of the
//! handle to a [`RusbBulkReader`], which runs a
//! [`crate::usb_async::BulkStream`] on the reader thread.

use super::{BulkReader, UsbError, UsbStrings, UsbTransport, known_device};
use crate::usb_async::{BulkStream, Sink, StopReason, StreamConfig, StreamError, StreamStats};
use rusb::UsbContext;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Interface 0 carries the SDR endpoints.
const INTERFACE: u8 = 0;
/// Timeout for string-descriptor reads during enumeration.
const STRING_TIMEOUT: Duration = Duration::from_millis(300);

fn map(e: rusb::Error) -> UsbError {
    match e {
        rusb::Error::NoDevice => UsbError::NoDevice,
        rusb::Error::Busy => UsbError::Busy,
        rusb::Error::Access => UsbError::Access,
        rusb::Error::Timeout => UsbError::Timeout,
        rusb::Error::Pipe => UsbError::Pipe,
        rusb::Error::Overflow => UsbError::Overflow,
        rusb::Error::NotFound => UsbError::NotFound,
        rusb::Error::Io => UsbError::Other("input/output error"),
        rusb::Error::InvalidParam => UsbError::Other("invalid parameter"),
        rusb::Error::Interrupted => UsbError::Other("interrupted"),
        rusb::Error::NoMem => UsbError::Other("out of memory"),
        rusb::Error::NotSupported => UsbError::Other("not supported on this platform"),
        rusb::Error::BadDescriptor => UsbError::Other("bad descriptor"),
        rusb::Error::Other => UsbError::Other("other libusb error"),
    }
}

/// One RTL2832U stick found on the bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Position among the known sticks, in libusb's enumeration order (0-based).
    pub index: usize,
    /// USB vendor id.
    pub vendor_id: u16,
    /// USB product id.
    pub product_id: u16,
    /// Name from the known-device list.
    pub name: &'static str,
    /// Bus number and device address, for messages.
    pub bus_address: (u8, u8),
    /// String descriptors; all `None` when the device could not be opened
    /// (then `open_error` says why).
    pub strings: UsbStrings,
    /// Why the strings could not be read (typically [`UsbError::Access`]).
    pub open_error: Option<UsbError>,
}

fn read_strings(
    handle: &rusb::DeviceHandle<rusb::Context>,
    desc: &rusb::DeviceDescriptor,
) -> UsbStrings {
    let get = |idx: Option<u8>| {
        let idx = idx?;
        let langs = handle.read_languages(STRING_TIMEOUT).ok()?;
        let lang = *langs.first()?;
        handle
            .read_string_descriptor(lang, idx, STRING_TIMEOUT)
            .ok()
    };
    UsbStrings {
        manufacturer: get(desc.manufacturer_string_index()),
        product: get(desc.product_string_index()),
        serial: get(desc.serial_number_string_index()),
    }
}

/// A known stick found on the bus: device, descriptor, name.
type Found = (
    rusb::Device<rusb::Context>,
    rusb::DeviceDescriptor,
    &'static str,
);

fn known_devices(ctx: &rusb::Context) -> Result<Vec<Found>, UsbError> {
    let mut out = Vec::new();
    for dev in ctx.devices().map_err(map)?.iter() {
        let Ok(desc) = dev.device_descriptor() else {
            continue;
        };
        if let Some(name) = known_device(desc.vendor_id(), desc.product_id()) {
            out.push((dev, desc, name));
        }
    }
    Ok(out)
}

/// List the RTL2832U sticks on the bus (known VID:PIDs only).
pub fn list() -> Result<Vec<DeviceInfo>, UsbError> {
    let ctx = rusb::Context::new().map_err(map)?;
    let mut infos = Vec::new();
    for (index, (dev, desc, name)) in known_devices(&ctx)?.into_iter().enumerate() {
        let (strings, open_error) = match dev.open() {
            Ok(h) => (read_strings(&h, &desc), None),
            Err(e) => (UsbStrings::default(), Some(map(e))),
        };
        infos.push(DeviceInfo {
            index,
            vendor_id: desc.vendor_id(),
            product_id: desc.product_id(),
            name,
            bus_address: (dev.bus_number(), dev.address()),
            strings,
            open_error,
        });
    }
    Ok(infos)
}

/// Which stick to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// The n-th known stick (0-based), as listed by [`list`].
    Index(usize),
    /// The stick whose serial-number string equals this.
    Serial(String),
}

/// An open RTL2832U on the real bus.
pub struct RusbTransport {
    handle: Arc<rusb::DeviceHandle<rusb::Context>>,
    /// Where the string descriptors come from.
    strings: StringSource,
    detached: bool,
    claimed: bool,
}

/// Read the strings through the descriptor's indices, or report fixed ones.
enum StringSource {
    Descriptor(rusb::DeviceDescriptor),
    Fixed(UsbStrings),
}

impl RusbTransport {
    /// Open the selected stick. Busy and permission failures come back as
    /// [`UsbError::Busy`] / [`UsbError::Access`], whose messages name the fix.
    pub fn open(selector: &Selector) -> Result<Self, UsbError> {
        let ctx = rusb::Context::new().map_err(map)?;
        let devices = known_devices(&ctx)?;
        let (dev, descriptor) = match selector {
            Selector::Index(i) => {
                let (dev, desc, _) = devices.into_iter().nth(*i).ok_or(UsbError::NotFound)?;
                (dev, desc)
            }
            Selector::Serial(want) => {
                let mut found = None;
                let mut first_error = None;
                for (dev, desc, _) in devices {
                    match dev.open() {
                        Ok(h) => {
                            if read_strings(&h, &desc).serial.as_deref() == Some(want.as_str()) {
                                found = Some((dev, desc));
                                break;
                            }
                        }
                        Err(e) => {
                            first_error.get_or_insert(map(e));
                        }
                    }
                }
                found.ok_or(first_error.unwrap_or(UsbError::NotFound))?
            }
        };
        let handle = dev.open().map_err(map)?;
        Ok(RusbTransport {
            handle: Arc::new(handle),
            strings: StringSource::Descriptor(descriptor),
            detached: false,
            claimed: false,
        })
    }

    /// Wrap a handle opened some other way (e.g. through `libusb1-sys` under
    /// an `LD_PRELOAD` emulation of libusb that lacks what rusb's own
    /// enumeration calls); [`UsbTransport::strings`] then reports `strings`.
    pub fn from_handle(handle: rusb::DeviceHandle<rusb::Context>, strings: UsbStrings) -> Self {
        RusbTransport {
            handle: Arc::new(handle),
            strings: StringSource::Fixed(strings),
            detached: false,
            claimed: false,
        }
    }
}

/// The bulk half of a [`RusbTransport`]: libusb asynchronous transfers
/// kept in flight ([`BulkStream`]) on a shared handle.
pub struct RusbBulkReader {
    handle: Arc<rusb::DeviceHandle<rusb::Context>>,
    config: StreamConfig,
    /// Counters of finished runs.
    done: StreamStats,
}

fn add_stats(a: StreamStats, b: StreamStats) -> StreamStats {
    StreamStats {
        bytes: a.bytes + b.bytes,
        transfers: a.transfers + b.transfers,
        short_transfers: a.short_transfers + b.short_transfers,
        timeouts: a.timeouts + b.timeouts,
        errors: a.errors + b.errors,
        stalls: a.stalls + b.stalls,
    }
}

impl BulkReader for RusbBulkReader {
    /// Allocates the transfers and their pool (once per run), then streams.
    fn run(&mut self, stop: &AtomicBool, sink: &mut dyn Sink) -> Result<StopReason, StreamError> {
        let mut stream = BulkStream::new(&self.handle, self.config)?;
        let r = stream.run(stop, sink);
        self.done = add_stats(self.done, stream.stats());
        r
    }

    fn stats(&self) -> StreamStats {
        self.done
    }
}

impl UsbTransport for RusbTransport {
    fn control_in(
        &mut self,
        request_type: u8,
        request: u8,
        value: u16,
        index: u16,
        buf: &mut [u8],
        timeout: Duration,
    ) -> Result<usize, UsbError> {
        self.handle
            .read_control(request_type, request, value, index, buf, timeout)
            .map_err(map)
    }

    fn control_out(
        &mut self,
        request_type: u8,
        request: u8,
        value: u16,
        index: u16,
        data: &[u8],
        timeout: Duration,
    ) -> Result<usize, UsbError> {
        self.handle
            .write_control(request_type, request, value, index, data, timeout)
            .map_err(map)
    }

    fn bulk_in(
        &mut self,
        endpoint: u8,
        buf: &mut [u8],
        timeout: Duration,
    ) -> Result<usize, UsbError> {
        self.handle.read_bulk(endpoint, buf, timeout).map_err(map)
    }

    fn clear_halt(&mut self, endpoint: u8) -> Result<(), UsbError> {
        self.handle.clear_halt(endpoint).map_err(map)
    }

    fn reset(&mut self) -> Result<(), UsbError> {
        self.handle.reset().map_err(map)
    }

    fn strings(&mut self) -> Result<UsbStrings, UsbError> {
        Ok(match &self.strings {
            StringSource::Descriptor(d) => read_strings(&self.handle, d),
            StringSource::Fixed(s) => s.clone(),
        })
    }

    fn bulk_reader(&mut self, config: &StreamConfig) -> Result<Box<dyn BulkReader>, UsbError> {
        config
            .validate()
            .map_err(|_| UsbError::Other("invalid stream configuration"))?;
        Ok(Box::new(RusbBulkReader {
            handle: Arc::clone(&self.handle),
            config: *config,
            done: StreamStats::default(),
        }))
    }

    fn claim(&mut self) -> Result<(), UsbError> {
        // Not every platform can ask (NotSupported): then just try to claim.
        if self.handle.kernel_driver_active(INTERFACE).unwrap_or(false) {
            self.handle.detach_kernel_driver(INTERFACE).map_err(map)?;
            self.detached = true;
        }
        self.handle.claim_interface(INTERFACE).map_err(map)?;
        self.claimed = true;
        Ok(())
    }

    fn release(&mut self) -> Result<(), UsbError> {
        if self.claimed {
            self.claimed = false;
            self.handle.release_interface(INTERFACE).map_err(map)?;
        }
        if self.detached {
            self.detached = false;
            self.handle.attach_kernel_driver(INTERFACE).map_err(map)?;
        }
        Ok(())
    }
}

impl Drop for RusbTransport {
    fn drop(&mut self) {
        // Best effort: a device that is gone cannot be released.
        let _ = self.release();
    }
}
