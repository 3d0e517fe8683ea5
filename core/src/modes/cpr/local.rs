//! Local decoding: the position from one frame and a reference within half
//! a zone (see the [module docs](super#decoding)).

use super::CPR_SCALE;
use super::error::CprError;
use super::frame::CprFrame;
use super::position::{Position, Reference, check_range, wrap180};

/// Locally unambiguous position from one frame and a reference (DO-260B;
/// Riddle §5.4.4 and §6.4.2), airborne or surface according to
/// the frame's kind.
///
/// `j = ⌊lat_ref/Dlat_i − YZ/2¹⁷ + ½⌋`, `lat = Dlat_i·(j + YZ/2¹⁷)`,
/// `m = ⌊lon_ref/Dlon_i − XZ/2¹⁷ + ½⌋`, `lon = Dlon_i·(m + XZ/2¹⁷)`, with
/// `Dlon_i` at the decoded latitude.
///
/// The reference must be within half a zone of the aircraft (half of
/// 6°/360°·NL airborne, 1.5°/90°·NL surface): a result more than half a
/// zone from it in latitude or longitude is rejected with
/// [`CprError::TooFarFromReference`] (this also catches floating-point
/// edge cases). A receiver reference also rejects results beyond its
/// `max_range_nm` ([`CprError::OutOfRange`]).
/// [`CprError::InvalidPosition`] for an invalid reference,
/// [`CprError::InvalidLatitude`] if the result is beyond ±90°.
///
/// ```
/// use airwaves_core::modes::cpr::*;
/// let even = CprFrame::airborne(false, 93000, 51372);
/// let r = Reference::receiver(Position::new(52.258, 3.918), 250.0);
/// let p = decode_local(even, r).unwrap();
/// assert_eq!((p.lat, p.lon), (52.2572021484375, 3.91937255859375));
/// ```
pub fn decode_local(frame: CprFrame, reference: Reference) -> Result<Position, CprError> {
    let r = reference.position;
    if !r.is_valid() {
        return Err(CprError::InvalidPosition);
    }
    let kind = frame.kind;
    let dlat = kind.lat_zone(frame.odd);
    let y = frame.lat as f64 / CPR_SCALE;
    let j = libm::floor(r.lat / dlat - y + 0.5);
    let lat = dlat * (j + y);
    if libm::fabs(lat) > 90.0 {
        return Err(CprError::InvalidLatitude);
    }
    if libm::fabs(lat - r.lat) > dlat / 2.0 {
        return Err(CprError::TooFarFromReference);
    }
    let dlon = kind.lon_zone(frame.odd, lat);
    let x = frame.lon as f64 / CPR_SCALE;
    let ref_lon = wrap180(r.lon);
    let m = libm::floor(ref_lon / dlon - x + 0.5);
    let lon = dlon * (m + x);
    if libm::fabs(lon - ref_lon) > dlon / 2.0 {
        return Err(CprError::TooFarFromReference);
    }
    let pos = Position::new(lat, wrap180(lon));
    check_range(reference, pos)?;
    Ok(pos)
}
