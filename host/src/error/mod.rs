//! [`CommandError`]: why a command failed, with the error underneath.
//!
//! Every command returns `Result<(), CommandError>`; `main.rs` prints
//! [`CommandError::message`] (if any) and exits with status 1. The
//! feeder's own failures are [`AdsbError`] ([`adsb`]). A receiver's
//! (`fm`, `am`, `nfm`) error type belongs to `crate::radio` and is kept
//! boxed here, so this module imports no command.

pub mod adsb;

pub use adsb::AdsbError;

use crate::rtl::usb::UsbError;
use crate::rtltcp::file::FileError;
use crate::rtltcp::server::ServerError;
use crate::source::SourceError;
use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why a command failed.
#[derive(Debug)]
pub enum CommandError {
    /// The command ran, and what it checked failed (`test-mode` lost
    /// bytes, `dsp-selftest` out of bounds): it has said so already.
    CheckFailed,
    /// An option value the command cannot use.
    Invalid(&'static str),
    /// `--seconds` that is not a duration.
    Seconds(f64),
    /// The I/Q source could not open, or failed.
    Source(SourceError),
    /// The dongle driver refused a setting.
    Rtl(crate::rtl::Error),
    /// The USB bus could not be listed.
    Usb(UsbError),
    /// No dongle on the USB bus.
    NoDongle,
    /// The source ended before the samples asked for.
    SourceEnded {
        /// Samples written.
        written: u64,
        /// Samples asked for.
        wanted: u64,
    },
    /// An input file could not be opened.
    Read {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// An output file could not be created.
    Create {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// Writing an output file failed (a full disk, say).
    Write {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// Reading or writing failed.
    Io(io::Error),
    /// The rtl_tcp server could not start on its address.
    Listen {
        /// The address asked for.
        addr: String,
        /// The failure.
        source: ServerError,
    },
    /// The rtl_tcp server's recording.
    ServeFile(FileError),
    /// The rtl_tcp server.
    Server(ServerError),
    /// A receiver (`fm`, `am`, `nfm`): its `RadioError`.
    Radio(Box<dyn std::error::Error + Send + Sync>),
    /// The feeder (`adsb`).
    Adsb(AdsbError),
}

impl CommandError {
    /// What `airwaves COMMAND` prints on standard error for this error
    /// (`None`: nothing more to say).
    pub fn message(&self, command: &str) -> Option<String> {
        match self {
            CommandError::CheckFailed => None,
            CommandError::Adsb(e) => Some(e.message()),
            e => Some(format!("airwaves {command}: {e}")),
        }
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::CheckFailed => f.write_str("check failed"),
            CommandError::Invalid(what) => f.write_str(what),
            CommandError::Seconds(s) => write!(f, "--seconds {s} is not a duration"),
            CommandError::Source(e) => e.fmt(f),
            CommandError::Rtl(e) => e.fmt(f),
            CommandError::Usb(e) => e.fmt(f),
            CommandError::NoDongle => f.write_str("no RTL-SDR found"),
            CommandError::SourceEnded { written, wanted } => {
                write!(f, "the source ended after {written} of {wanted} samples")
            }
            CommandError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            CommandError::Create { path, source } => write!(f, "{}: {source}", path.display()),
            CommandError::Write { path, source } => {
                write!(f, "writing {}: {source}", path.display())
            }
            CommandError::Io(e) => e.fmt(f),
            CommandError::Listen { addr, source } => write!(f, "{addr}: {source}"),
            CommandError::ServeFile(e) => e.fmt(f),
            CommandError::Server(e) => e.fmt(f),
            CommandError::Radio(e) => e.fmt(f),
            CommandError::Adsb(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CommandError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CommandError::CheckFailed
            | CommandError::Invalid(_)
            | CommandError::Seconds(_)
            | CommandError::NoDongle
            | CommandError::SourceEnded { .. } => None,
            CommandError::Source(e) => Some(e),
            CommandError::Rtl(e) => Some(e),
            CommandError::Usb(e) => Some(e),
            CommandError::Read { source, .. }
            | CommandError::Create { source, .. }
            | CommandError::Write { source, .. } => Some(source),
            CommandError::Listen { source, .. } => Some(source),
            CommandError::Io(e) => Some(e),
            CommandError::ServeFile(e) => Some(e),
            CommandError::Server(e) => Some(e),
            CommandError::Radio(e) => Some(&**e),
            CommandError::Adsb(e) => Some(e),
        }
    }
}

impl From<SourceError> for CommandError {
    fn from(e: SourceError) -> Self {
        CommandError::Source(e)
    }
}

impl From<crate::rtl::Error> for CommandError {
    fn from(e: crate::rtl::Error) -> Self {
        CommandError::Rtl(e)
    }
}

impl From<AdsbError> for CommandError {
    fn from(e: AdsbError) -> Self {
        CommandError::Adsb(e)
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn test_message_names_the_command_and_keeps_the_source() {
        let e = CommandError::Read {
            path: "/x.cu8".into(),
            source: io::Error::new(io::ErrorKind::NotFound, "gone"),
        };
        assert_eq!(
            e.message("decode").as_deref(),
            Some("airwaves decode: cannot read /x.cu8: gone")
        );
        assert!(e.source().is_some());
        assert_eq!(CommandError::CheckFailed.message("test-mode"), None);
    }
}
