//! The USB seam: the few USB operations the driver needs, as a trait.
//!
//! Everything above this trait (register helpers, RTL2832U, R82xx, the
//! device API) is plain Rust that runs the same against a real dongle
//! ([`rusb_impl`]), the built-in emulator ([`super::fake`]) or a tracing
//! wrapper ([`super::trace`]). The trait sits at the USB level, not the
//! register level, so that a trace shows exactly what goes on the wire.

pub mod rusb_impl;

use crate::usb_async::{Sink, StopReason, StreamConfig, StreamError, StreamStats};
use std::fmt;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// bmRequestType of every register write: vendor, host to device.
pub const VENDOR_OUT: u8 = 0x40;
/// bmRequestType of every register read: vendor, device to host.
pub const VENDOR_IN: u8 = 0xc0;
/// Bulk IN endpoint carrying the interleaved unsigned 8-bit I/Q samples.
pub const BULK_ENDPOINT: u8 = 0x81;
/// Timeout of every control transfer (librtlsdr uses 300 ms).
pub const CONTROL_TIMEOUT: Duration = Duration::from_millis(300);

/// A USB failure, by kind. `Display` says what to do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsbError {
    /// The device is gone (unplugged, or re-enumerated after a reset).
    NoDevice,
    /// Interface 0 is held by the kernel DVB driver or by another program.
    Busy,
    /// The process may not open the device (udev rule missing).
    Access,
    /// The transfer did not complete in time.
    Timeout,
    /// The endpoint stalled; for I2C transfers this is a NAK (no chip there).
    Pipe,
    /// The device sent more data than the buffer holds.
    Overflow,
    /// No device matched the requested index or serial number.
    NotFound,
    /// Any other libusb failure, with libusb's short description.
    Other(&'static str),
}

/// The udev rule that gives non-root users access to the usual RTL-SDR stick.
pub const UDEV_RULE: &str = "SUBSYSTEM==\"usb\", ATTRS{idVendor}==\"0bda\", ATTRS{idProduct}==\"2838\", MODE=\"0660\", GROUP=\"plugdev\"";

impl fmt::Display for UsbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsbError::NoDevice => write!(f, "the RTL-SDR is gone (unplugged or reset)"),
            UsbError::Busy => write!(
                f,
                "the RTL-SDR is busy: another program (dump1090, rtl_tcp, ...) or the kernel DVB \
                 driver holds it; stop that program, or blacklist dvb_usb_rtl28xxu \
                 (echo 'blacklist dvb_usb_rtl28xxu' > /etc/modprobe.d/rtl-sdr-blacklist.conf) \
                 and replug"
            ),
            UsbError::Access => write!(
                f,
                "permission denied opening the RTL-SDR: install the udev rule `{UDEV_RULE}` \
                 in /etc/udev/rules.d/60-rtl-sdr.rules (Debian's rtl-sdr package ships \
                 60-librtlsdr0.rules), add yourself to group plugdev, and replug"
            ),
            UsbError::Timeout => write!(f, "USB transfer timed out"),
            UsbError::Pipe => write!(f, "USB endpoint stalled (or I2C NAK)"),
            UsbError::Overflow => write!(f, "USB transfer overflow"),
            UsbError::NotFound => write!(f, "no RTL-SDR found"),
            UsbError::Other(what) => write!(f, "USB error: {what}"),
        }
    }
}

impl std::error::Error for UsbError {}

/// The three USB string descriptors (absent ones are `None`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsbStrings {
    /// iManufacturer, e.g. "Realtek" or "RTLSDRBlog".
    pub manufacturer: Option<String>,
    /// iProduct, e.g. "RTL2838UHIDIR" or "Blog V4".
    pub product: Option<String>,
    /// iSerialNumber, e.g. "00000001".
    pub serial: Option<String>,
}

/// The USB operations the RTL2832U driver uses. Object safe.
///
/// Control transfers go to EP0; `request_type` is [`VENDOR_OUT`] or
/// [`VENDOR_IN`] for every register access. Returned lengths are bytes
/// actually moved.
pub trait UsbTransport: Send {
    /// Device-to-host control transfer into `buf`.
    fn control_in(
        &mut self,
        request_type: u8,
        request: u8,
        value: u16,
        index: u16,
        buf: &mut [u8],
        timeout: Duration,
    ) -> Result<usize, UsbError>;
    /// Host-to-device control transfer of `data`.
    fn control_out(
        &mut self,
        request_type: u8,
        request: u8,
        value: u16,
        index: u16,
        data: &[u8],
        timeout: Duration,
    ) -> Result<usize, UsbError>;
    /// Bulk IN transfer; may return fewer bytes than `buf.len()`.
    fn bulk_in(
        &mut self,
        endpoint: u8,
        buf: &mut [u8],
        timeout: Duration,
    ) -> Result<usize, UsbError>;
    /// Clear a stall (halt) on `endpoint`.
    fn clear_halt(&mut self, endpoint: u8) -> Result<(), UsbError>;
    /// USB port reset of the device.
    fn reset(&mut self) -> Result<(), UsbError>;
    /// Read the manufacturer, product and serial string descriptors.
    fn strings(&mut self) -> Result<UsbStrings, UsbError>;
    /// Detach the kernel driver from interface 0 if one is bound, then claim it.
    fn claim(&mut self) -> Result<(), UsbError>;
    /// Release interface 0 and re-attach the kernel driver if `claim` detached it.
    fn release(&mut self) -> Result<(), UsbError>;
    /// The bulk half of the device: a [`BulkReader`] that streams the bulk
    /// endpoint on another thread while control transfers go on through
    /// `self`. The default says the transport cannot stream.
    fn bulk_reader(&mut self, _config: &StreamConfig) -> Result<Box<dyn BulkReader>, UsbError> {
        Err(UsbError::Other("this transport cannot stream"))
    }
}

/// The streaming half of an open device, split from the control half so a
/// reader thread can keep the bus busy while settings change.
///
/// [`rusb_impl::RusbTransport`] gives a [`crate::usb_async::BulkStream`]
/// over the shared libusb handle; the emulator
/// ([`super::fake::SharedFake`]) gives a paced reader of its own bulk
/// endpoint. Both deliver in order to a non-blocking [`Sink`], recover a
/// stall with clear-halt, count timeouts, and end with
/// [`StreamError::NoDevice`] when the device is gone.
pub trait BulkReader: Send {
    /// Stream into `sink` until it returns [`crate::usb_async::Flow::Stop`],
    /// `stop` is set, or an error ends the stream.
    fn run(&mut self, stop: &AtomicBool, sink: &mut dyn Sink) -> Result<StopReason, StreamError>;
    /// Counters over every run of this reader.
    fn stats(&self) -> StreamStats;
}

impl<T: UsbTransport + ?Sized> UsbTransport for Box<T> {
    fn control_in(
        &mut self,
        rt: u8,
        req: u8,
        value: u16,
        index: u16,
        buf: &mut [u8],
        t: Duration,
    ) -> Result<usize, UsbError> {
        (**self).control_in(rt, req, value, index, buf, t)
    }
    fn control_out(
        &mut self,
        rt: u8,
        req: u8,
        value: u16,
        index: u16,
        data: &[u8],
        t: Duration,
    ) -> Result<usize, UsbError> {
        (**self).control_out(rt, req, value, index, data, t)
    }
    fn bulk_in(&mut self, ep: u8, buf: &mut [u8], t: Duration) -> Result<usize, UsbError> {
        (**self).bulk_in(ep, buf, t)
    }
    fn clear_halt(&mut self, ep: u8) -> Result<(), UsbError> {
        (**self).clear_halt(ep)
    }
    fn reset(&mut self) -> Result<(), UsbError> {
        (**self).reset()
    }
    fn strings(&mut self) -> Result<UsbStrings, UsbError> {
        (**self).strings()
    }
    fn claim(&mut self) -> Result<(), UsbError> {
        (**self).claim()
    }
    fn release(&mut self) -> Result<(), UsbError> {
        (**self).release()
    }
    fn bulk_reader(&mut self, config: &StreamConfig) -> Result<Box<dyn BulkReader>, UsbError> {
        (**self).bulk_reader(config)
    }
}

/// One entry of the known VID:PID list: (vendor id, product id, name).
pub type KnownDevice = (u16, u16, &'static str);

/// The 42 VID:PID pairs of RTL2832U-based sticks (facts Appendix A).
pub const KNOWN_DEVICES: &[KnownDevice] = &[
    (0x0bda, 0x2832, "Generic RTL2832U"),
    (0x0bda, 0x2838, "Generic RTL2832U OEM"),
    (0x0413, 0x6680, "DigitalNow Quad DVB-T PCI-E card"),
    (0x0413, 0x6f0f, "Leadtek WinFast DTV Dongle mini D"),
    (0x0458, 0x707f, "Genius TVGo DVB-T03 USB dongle (Ver. B)"),
    (0x0ccd, 0x00a9, "Terratec Cinergy T Stick Black (rev 1)"),
    (0x0ccd, 0x00b3, "Terratec NOXON DAB/DAB+ USB dongle (rev 1)"),
    (0x0ccd, 0x00b4, "Terratec Deutschlandradio DAB Stick"),
    (0x0ccd, 0x00b5, "Terratec NOXON DAB Stick - Radio Energy"),
    (0x0ccd, 0x00b7, "Terratec Media Broadcast DAB Stick"),
    (0x0ccd, 0x00b8, "Terratec BR DAB Stick"),
    (0x0ccd, 0x00b9, "Terratec WDR DAB Stick"),
    (0x0ccd, 0x00c0, "Terratec MuellerVerlag DAB Stick"),
    (0x0ccd, 0x00c6, "Terratec Fraunhofer DAB Stick"),
    (0x0ccd, 0x00d3, "Terratec Cinergy T Stick RC (Rev.3)"),
    (0x0ccd, 0x00d7, "Terratec T Stick PLUS"),
    (0x0ccd, 0x00e0, "Terratec NOXON DAB/DAB+ USB dongle (rev 2)"),
    (0x1554, 0x5020, "PixelView PV-DT235U(RN)"),
    (0x15f4, 0x0131, "Astrometa DVB-T/DVB-T2"),
    (0x15f4, 0x0133, "HanfTek DAB+FM+DVB-T"),
    (0x185b, 0x0620, "Compro Videomate U620F"),
    (0x185b, 0x0650, "Compro Videomate U650F"),
    (0x185b, 0x0680, "Compro Videomate U680F"),
    (0x1b80, 0xd393, "GIGABYTE GT-U7300"),
    (0x1b80, 0xd394, "DIKOM USB-DVBT HD"),
    (0x1b80, 0xd395, "Peak 102569AGPK"),
    (0x1b80, 0xd397, "KWorld KW-UB450-T USB DVB-T Pico TV"),
    (0x1b80, 0xd398, "Zaapa ZT-MINDVBZP"),
    (0x1b80, 0xd39d, "SVEON STV20 DVB-T USB & FM"),
    (0x1b80, 0xd3a4, "Twintech UT-40"),
    (0x1b80, 0xd3a8, "ASUS U3100MINI_PLUS_V2"),
    (0x1b80, 0xd3af, "SVEON STV27 DVB-T USB & FM"),
    (0x1b80, 0xd3b0, "SVEON STV21 DVB-T USB & FM"),
    (0x1d19, 0x1101, "Dexatek DK DVB-T Dongle (Logilink VG0002A)"),
    (
        0x1d19,
        0x1102,
        "Dexatek DK DVB-T Dongle (MSI DigiVox mini II V3.0)",
    ),
    (
        0x1d19,
        0x1103,
        "Dexatek Technology Ltd. DK 5217 DVB-T Dongle",
    ),
    (0x1d19, 0x1104, "MSI DigiVox Micro HD"),
    (0x1f4d, 0xa803, "Sweex DVB-T USB"),
    (0x1f4d, 0xb803, "GTek T803"),
    (0x1f4d, 0xc803, "Lifeview LV5TDeluxe"),
    (0x1f4d, 0xd286, "MyGica TD312"),
    (0x1f4d, 0xd803, "PROlectrix DV107669"),
];

/// The name of a known RTL2832U stick, or `None` if `vid:pid` is not one.
pub fn known_device(vid: u16, pid: u16) -> Option<&'static str> {
    KNOWN_DEVICES
        .iter()
        .find(|(v, p, _)| *v == vid && *p == pid)
        .map(|(_, _, name)| *name)
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_known_devices() {
        assert_eq!(KNOWN_DEVICES.len(), 42);
        assert_eq!(known_device(0x0bda, 0x2838), Some("Generic RTL2832U OEM"));
        assert_eq!(known_device(0x1f4d, 0xd803), Some("PROlectrix DV107669"));
        assert_eq!(known_device(0x0bda, 0x2839), None);
        let mut pairs: Vec<_> = KNOWN_DEVICES.iter().map(|(v, p, _)| (v, p)).collect();
        pairs.sort();
        pairs.dedup();
        assert_eq!(pairs.len(), 42, "duplicate VID:PID");
    }

    #[test]
    fn test_errors_name_the_fix() {
        assert!(UsbError::Access.to_string().contains("udev rule"));
        assert!(UsbError::Access.to_string().contains("0bda"));
        assert!(UsbError::Busy.to_string().contains("dvb_usb_rtl28xxu"));
    }
}
