//! [`AdsbError`]: why `airwaves adsb` stopped, with the error underneath.

use crate::demo::DemoError;
use crate::mode_s::ConfigError;
use crate::net::connector::{ConnectorSpec, ConnectorSpecError};
use crate::ring::RingError;
use crate::source::SourceError;
use std::fmt;
use std::io;
use std::net::SocketAddr;

/// Why the feeder could not start or stopped.
#[derive(Debug)]
pub enum AdsbError {
    /// `--rate` beyond any sample rate.
    SampleRate,
    /// A `--net-connector` that does not parse.
    ConnectorSpec {
        /// The argument as given.
        spec: String,
        /// Why it does not parse.
        source: ConnectorSpecError,
    },
    /// A connector's thread could not start.
    Connector {
        /// The connector.
        spec: ConnectorSpec,
        /// The failure.
        source: io::Error,
    },
    /// A network port could not be bound.
    Port {
        /// What listens there ("SBS output").
        what: &'static str,
        /// The middle of its `--net-…-port` option ("sbs").
        flag: &'static str,
        /// The address.
        addr: SocketAddr,
        /// The failure.
        source: io::Error,
    },
    /// The HTTP port could not be bound.
    HttpPort {
        /// The address.
        addr: SocketAddr,
        /// The failure.
        source: io::Error,
    },
    /// Not even a free HTTP port could be bound.
    Http(io::Error),
    /// Settings that do not make a Mode S receive chain.
    Config(ConfigError),
    /// The ring between the source and decode threads.
    Ring(RingError),
    /// The source thread could not start.
    SourceThread(io::Error),
    /// The source could not open; `hint`: say what to use without a dongle.
    Open {
        /// The failure.
        source: SourceError,
        /// Add the hint (no --ifile, no --rtl-tcp).
        hint: bool,
    },
    /// The source failed while streaming.
    Source(SourceError),
    /// The source thread panicked.
    SourcePanicked,
    /// The simulated sky's settings.
    Demo(DemoError),
}

impl AdsbError {
    /// The line(s) `airwaves adsb` prints on standard error for this error.
    pub fn message(&self) -> String {
        match self {
            // The option checks have always been printed bare.
            AdsbError::SampleRate => self.to_string(),
            AdsbError::Demo(e) => format!("airwaves adsb --demo: {e}"),
            e => format!("airwaves adsb: {e}"),
        }
    }
}

impl fmt::Display for AdsbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdsbError::SampleRate => f.write_str("sample rate out of range"),
            AdsbError::ConnectorSpec { spec, source } => {
                write!(f, "--net-connector {spec}: {source}")
            }
            AdsbError::Connector { spec, source } => {
                write!(f, "--net-connector {spec}: {source}")
            }
            AdsbError::Port {
                what,
                flag,
                addr,
                source,
            } => write!(
                f,
                "{what} port {addr}: {source} (change it with --net-{flag}-port; 0 turns it off)"
            ),
            AdsbError::HttpPort { addr, source } => write!(
                f,
                "HTTP port {addr}: {source} (change it with --http-port; 0 turns it off)"
            ),
            AdsbError::Http(e) => write!(f, "HTTP: {e}"),
            AdsbError::Config(e) => e.fmt(f),
            AdsbError::Ring(e) => e.fmt(f),
            AdsbError::SourceThread(e) => write!(f, "cannot start the source thread: {e}"),
            AdsbError::Open { source, hint } => {
                source.fmt(f)?;
                if *hint {
                    f.write_str(
                        "\n(no dongle? `airwaves adsb --demo` runs a simulated sky; \
                         --ifile FILE.cu8 decodes a recording; --rtl-tcp HOST:PORT reads a server)",
                    )?;
                }
                Ok(())
            }
            AdsbError::Source(e) => write!(f, "source: {e}"),
            AdsbError::SourcePanicked => f.write_str("source thread panicked"),
            AdsbError::Demo(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for AdsbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AdsbError::SampleRate | AdsbError::SourcePanicked => None,
            AdsbError::ConnectorSpec { source, .. } => Some(source),
            AdsbError::Connector { source, .. }
            | AdsbError::Port { source, .. }
            | AdsbError::HttpPort { source, .. } => Some(source),
            AdsbError::Http(e) | AdsbError::SourceThread(e) => Some(e),
            AdsbError::Config(e) => Some(e),
            AdsbError::Ring(e) => Some(e),
            AdsbError::Open { source, .. } | AdsbError::Source(source) => Some(source),
            AdsbError::Demo(e) => Some(e),
        }
    }
}
