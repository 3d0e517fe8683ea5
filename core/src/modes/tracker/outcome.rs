//! What [`Tracker::update`](super::Tracker::update) reports: the effect of
//! an accepted frame, or why a frame was rejected.

use core::fmt;

use super::position::PositionSource;
use crate::modes::adsb::AdsbRepr;
use crate::modes::cpr::CprError;
use crate::modes::frame::DownlinkFormat;

/// What a frame did to the aircraft's position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PositionUpdate {
    /// The frame carried no position.
    None,
    /// The CPR frame was stored; no position yet (no usable pair or
    /// reference).
    Pending,
    /// A new position was decoded and accepted.
    Decoded(PositionSource),
    /// A position could not be decoded or was implausible:
    /// [`CprError::SpeedExceeded`] (speed check),
    /// [`CprError::OutOfRange`] (beyond the receiver's range),
    /// [`CprError::InvalidLatitude`] (inconsistent pair) or
    /// [`CprError::TooFarFromReference`] (local decoding more than half a
    /// zone from the reference).
    Rejected(CprError),
}

/// The result of an accepted frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct UpdateOutcome {
    /// Table key of the aircraft: the 24-bit address, plus [`NON_ICAO`](super::NON_ICAO)
    /// for non-ICAO addresses.
    pub key: u32,
    /// Downlink format of the frame.
    pub df: DownlinkFormat,
    /// The frame added the aircraft to the table.
    pub new_aircraft: bool,
    /// Key of the aircraft evicted to make room, if the table was full and
    /// no entry had expired.
    pub evicted: Option<u32>,
    /// Effect on the position.
    pub position: PositionUpdate,
    /// The ADS-B message of a DF17/18 as the tracker parsed it (`None`
    /// for other formats and for ME fields that do not parse), so that
    /// outputs never parse the frame again.
    pub adsb: Option<AdsbRepr>,
}

/// Why [`Tracker::update`](super::Tracker::update) rejected a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RejectReason {
    /// The buffer is not 7 bytes for DF 0–15 or 14 bytes for DF 16–31.
    Length,
    /// DF17/18 with a nonzero remainder, or DF11 whose remainder is no
    /// valid interrogator code.
    Crc,
    /// AP-format frame, DF11 with II/SI ≠ 0, or frame with more repaired
    /// bits than trusted, for an address not [known](super::Tracker::is_known).
    UnknownAddress,
    /// DF19, DF18 CF 3/4/7, or an unassigned DF.
    Unsupported,
    /// Barometric altitude too far from the aircraft's last one.
    AltitudeJump,
    /// Ground speed or track too far from the aircraft's last ones.
    VelocityJump,
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RejectReason::Length => "frame length does not match its downlink format",
            RejectReason::Crc => "parity check failed",
            RejectReason::UnknownAddress => "address not recently seen in a trusted frame",
            RejectReason::Unsupported => "unsupported downlink format or control field",
            RejectReason::AltitudeJump => "implausible altitude change",
            RejectReason::VelocityJump => "implausible ground velocity change",
        })
    }
}

impl core::error::Error for RejectReason {}
