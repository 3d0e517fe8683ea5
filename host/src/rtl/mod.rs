//! RTL-SDR driver: RTL2832U demodulator + Rafael R820T/R820T2/R828D tuner.
//!
//! Written from the facts in `../shared/rtl/rtl2832u.md` (addresses, values,
//! formulas); no code ported from librtlsdr or its ports. Layers, bottom up:
//!
//! - [`usb`]: the USB seam (trait) and its libusb implementation;
//! - [`trace`]: a seam wrapper that logs every transfer in fakeusb.c's text format;
//! - [`fake`]: a built-in emulator of the dongle behind the same seam;
//! - [`regs`]: register access (demod pages, USB/SYS blocks, I2C bridge);
//! - [`rtl2832u`]: demod maths and sequences (init, IF, resampler, ppm, GPIO);
//! - [`r82xx`]: the tuner, with shadow registers;
//! - [`device`]: the public API ([`device::Device`]);
//! - [`reopen`]: reopen a lost dongle by serial with backoff;
//! - [`stream`]: a reader thread per dongle feeding the buffer ring;
//! - [`counter`]: the test-mode counter check.
//!
//! The driver is the bottom layer: it knows nothing of the sources, the
//! rtl_tcp server or the commands built on it.

pub mod counter;
pub mod device;
pub mod fake;
pub mod r82xx;
pub mod regs;
pub mod reopen;
pub mod rtl2832u;
pub mod stream;
pub mod trace;
pub mod usb;

use std::fmt;
use usb::UsbError;

/// Tuner chips the probe can find (numbering as rtl_tcp's header uses it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TunerKind {
    /// Elonics E4000 (I2C 0xc8); detected, not supported.
    E4000 = 1,
    /// Fitipower FC0012 (0xc6); detected, not supported.
    Fc0012 = 2,
    /// Fitipower FC0013 (0xc6); detected, not supported.
    Fc0013 = 3,
    /// FCI FC2580 (0xac); detected, not supported.
    Fc2580 = 4,
    /// Rafael R820T / R820T2 (0x34).
    R820t = 5,
    /// Rafael R828D (0x74), e.g. RTL-SDR Blog V4.
    R828d = 6,
}

impl fmt::Display for TunerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TunerKind::E4000 => "Elonics E4000",
            TunerKind::Fc0012 => "Fitipower FC0012",
            TunerKind::Fc0013 => "Fitipower FC0013",
            TunerKind::Fc2580 => "FCI FC2580",
            TunerKind::R820t => "Rafael Micro R820T",
            TunerKind::R828d => "Rafael Micro R828D",
        })
    }
}

/// Result of every driver operation.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything the driver can fail with.
#[derive(Debug)]
pub enum Error {
    /// A USB transfer failed during `op`.
    Usb {
        /// What the driver was doing.
        op: &'static str,
        /// The USB failure.
        source: UsbError,
    },
    /// The probe found a tuner this driver does not drive.
    UnsupportedTuner(TunerKind),
    /// No tuner answered on I2C.
    NoTuner,
    /// Sample rate outside 225 001–300 000 and 900 001–3 200 000 Hz.
    SampleRate(u32),
    /// Centre frequency the tuner cannot reach (Hz).
    Frequency(u64),
    /// Frequency correction outside ±1000 ppm.
    Ppm(i32),
    /// Direct-sampling mode other than 0 (off), 1 (I) or 2 (Q).
    DirectSampling(u8),
    /// The operation needs something this tuner or board lacks.
    Unsupported(&'static str),
    /// EEPROM offset/length outside its 256 bytes.
    EepromRange {
        /// First byte.
        offset: usize,
        /// Number of bytes.
        len: usize,
    },
    /// An EEPROM byte read back differently after writing.
    EepromVerify {
        /// Offset of the byte.
        offset: u8,
        /// Value written.
        wrote: u8,
        /// Value read back.
        read: u8,
    },
    /// A `--fake-device` spec that does not parse.
    FakeSpec(String),
    /// An I/O error on a file the driver reads (a `.cu8` for the emulator).
    Io(std::io::Error),
}

impl Error {
    /// Wrap a USB error with the operation it interrupted.
    pub fn usb(op: &'static str) -> impl FnOnce(UsbError) -> Error {
        move |source| Error::Usb { op, source }
    }

    /// The USB error underneath, if this is one.
    pub fn usb_kind(&self) -> Option<UsbError> {
        match self {
            Error::Usb { source, .. } => Some(*source),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usb { op, source } => write!(f, "{op}: {source}"),
            Error::UnsupportedTuner(t) => write!(
                f,
                "unsupported tuner: {t} (only R820T/R820T2 and R828D are driven)"
            ),
            Error::NoTuner => write!(f, "no tuner answered on the I2C bus"),
            Error::SampleRate(r) => write!(
                f,
                "invalid sample rate {r} Hz: valid are 225001-300000 and 900001-3200000 Hz"
            ),
            Error::Frequency(hz) => write!(
                f,
                "frequency {hz} Hz out of the tuner's range (about 24-1766 MHz; below 28.8 MHz only with a Blog V4 or direct sampling)"
            ),
            Error::Ppm(p) => write!(f, "frequency correction {p} ppm outside -1000..1000"),
            Error::DirectSampling(m) => {
                write!(f, "direct-sampling mode {m}: use 0 (off), 1 (I) or 2 (Q)")
            }
            Error::Unsupported(what) => write!(f, "not supported: {what}"),
            Error::EepromRange { offset, len } => {
                write!(f, "EEPROM range {offset}+{len} outside its 256 bytes")
            }
            Error::EepromVerify {
                offset,
                wrote,
                read,
            } => write!(
                f,
                "EEPROM verify failed at {offset:#04x}: wrote {wrote:#04x}, read {read:#04x}"
            ),
            Error::FakeSpec(why) => write!(f, "bad --fake-device spec: {why}"),
            Error::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Usb { source, .. } => Some(source),
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}
