//! Mode S receive-chain settings shared by the feeder (`airwaves adsb`) and
//! the decoder of recordings ([`crate::decode`]).

use airwaves_core::modes::cpr::Position;
use airwaves_core::modes::tracker::TrackerConfig;
use airwaves_core::modes::{demod, modeac, receiver};
use std::fmt;

/// Settings that do not make a Mode S receive chain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConfigError {
    /// A sample rate the demodulator does not support.
    Demod(demod::ConfigError),
    /// A sample rate the Mode A/C detector does not support.
    ModeAc(modeac::ConfigError),
    /// A receiver location that is not a valid latitude/longitude.
    Location(Position),
    /// Parts of the receive chain that do not fit together.
    Receiver(receiver::ConfigError),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Demod(e) => e.fmt(f),
            ConfigError::ModeAc(e) => e.fmt(f),
            ConfigError::Receiver(e) => e.fmt(f),
            ConfigError::Location(r) => write!(
                f,
                "receiver location {}, {} is not a valid latitude/longitude",
                r.lat, r.lon
            ),
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Demod(e) => Some(e),
            ConfigError::ModeAc(e) => Some(e),
            ConfigError::Receiver(e) => Some(e),
            ConfigError::Location(_) => None,
        }
    }
}

/// The tracker settings for a receiver at `receiver` (degrees): with a
/// location, range checks and receiver-relative CPR decoding out to
/// 180 NM; without one, the defaults.
///
/// # Errors
/// [`ConfigError::Location`]: not a valid latitude/longitude.
pub fn tracker_config(receiver: Option<Position>) -> Result<TrackerConfig, ConfigError> {
    match receiver {
        Some(r) if !(r.is_valid() && (-180.0..=180.0).contains(&r.lon)) => {
            Err(ConfigError::Location(r))
        }
        Some(r) => Ok(TrackerConfig {
            receiver_local_range_nm: 180.0,
            ..TrackerConfig::with_receiver(r)
        }),
        None => Ok(TrackerConfig::DEFAULT),
    }
}
