//! Why a CPR position could not be decoded or was rejected.

use core::fmt;

/// Why a CPR position could not be decoded or was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CprError {
    /// The two frames of a global pair are further apart in time than the
    /// kind allows (10 s airborne, 25/50 s surface).
    AgeExceeded,
    /// The frame claimed to be newer was received before the other one.
    OutOfOrder,
    /// Both frames of a global pair have the same format (both even or both
    /// odd).
    SameFormat,
    /// Airborne and surface frames mixed, or a frame of the wrong kind for
    /// the decoder.
    KindMismatch,
    /// The even and odd latitudes fall in different NL zones: the aircraft
    /// crossed a zone boundary between the frames (or one is corrupt).
    ZoneMismatch,
    /// The decoded latitude is beyond ±90°: corrupt or inconsistent frames.
    InvalidLatitude,
    /// A reference or a position to encode is not finite or has
    /// `|lat| > 90`.
    InvalidPosition,
    /// The locally decoded position is more than half a zone from the
    /// reference, so the reference cannot resolve the ambiguity.
    TooFarFromReference,
    /// The decoded position is farther from the reference than its
    /// `max_range_nm`.
    OutOfRange,
    /// The position implies a speed above the plausibility limit.
    SpeedExceeded,
}

impl fmt::Display for CprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CprError::AgeExceeded => "CPR frames too far apart in time",
            CprError::OutOfOrder => "newer CPR frame received before the older one",
            CprError::SameFormat => "CPR pair needs one even and one odd frame",
            CprError::KindMismatch => "airborne and surface CPR frames mixed",
            CprError::ZoneMismatch => "CPR frames in different longitude zones",
            CprError::InvalidLatitude => "decoded latitude beyond 90 degrees",
            CprError::InvalidPosition => "invalid position",
            CprError::TooFarFromReference => "more than half a CPR zone from the reference",
            CprError::OutOfRange => "position beyond the maximum range from the reference",
            CprError::SpeedExceeded => "implied speed exceeds the plausible limit",
        })
    }
}

impl core::error::Error for CprError {}
