//! Positions and references: a latitude/longitude pair, a reference for
//! local or surface decoding with its range limit, and longitude wrapping.

use super::distance::distance_nm;
use super::error::CprError;

/// A position in degrees (WGS-84): latitude north positive, longitude east
/// positive.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Position {
    /// Latitude, degrees, −90…90.
    pub lat: f64,
    /// Longitude, degrees; decoders return −180 ≤ lon < 180.
    pub lon: f64,
}

impl Position {
    /// A position from latitude and longitude in degrees.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::Position;
    /// let p = Position::new(52.258, 3.918);
    /// assert!(p.is_valid());
    /// assert!(!Position::new(91.0, 0.0).is_valid());
    /// ```
    pub const fn new(lat: f64, lon: f64) -> Self {
        Position { lat, lon }
    }

    /// Both coordinates finite and `|lat| ≤ 90` (any finite longitude is
    /// accepted; it is taken modulo 360°).
    pub fn is_valid(&self) -> bool {
        self.lat.is_finite() && self.lon.is_finite() && libm::fabs(self.lat) <= 90.0
    }
}

/// What a reference position for local or surface decoding is.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Reference {
    /// The reference position.
    pub position: Position,
    /// Reject decoded positions farther than this from the reference, NM
    /// (great circle). A non-finite value (`f64::INFINITY`) disables the
    /// check.
    pub max_range_nm: f64,
}

impl Reference {
    /// The aircraft's own last known position: only the half-zone check
    /// applies (no range limit). For local decoding it must be recent
    /// enough that the aircraft cannot have moved half a zone (≈ 180 NM
    /// airborne, 45 NM surface).
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{Position, Reference};
    /// let r = Reference::aircraft(Position::new(52.32, 4.73));
    /// assert_eq!(r.max_range_nm, f64::INFINITY);
    /// ```
    pub const fn aircraft(position: Position) -> Self {
        Reference {
            position,
            max_range_nm: f64::INFINITY,
        }
    }

    /// The receiver's location, with the farthest plausible reception
    /// range in NM (e.g. 250 NM airborne; less for surface traffic).
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{Position, Reference};
    /// let r = Reference::receiver(Position::new(52.0, 4.0), 250.0);
    /// assert_eq!(r.max_range_nm, 250.0);
    /// ```
    pub const fn receiver(position: Position, max_range_nm: f64) -> Self {
        Reference {
            position,
            max_range_nm,
        }
    }
}

/// Reject `pos` beyond the reference's `max_range_nm`.
#[inline]
pub(super) fn check_range(reference: Reference, pos: Position) -> Result<(), CprError> {
    // Both positions are valid here, so the distance is never NaN.
    if reference.max_range_nm.is_finite()
        && distance_nm(reference.position, pos) > reference.max_range_nm
    {
        return Err(CprError::OutOfRange);
    }
    Ok(())
}

/// Wrap a finite longitude into `[−180, 180)`.
#[inline]
pub(super) fn wrap180(lon: f64) -> f64 {
    let l = libm::fmod(lon, 360.0); // (−360, 360), exact
    // Both corrections are exact (Sterbenz), so the result is in range.
    if l >= 180.0 {
        l - 360.0
    } else if l < -180.0 {
        l + 360.0
    } else {
        l
    }
}
