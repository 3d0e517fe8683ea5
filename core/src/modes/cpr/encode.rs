//! CPR encoding (DO-260B): a position to the 17-bit fields of a frame.

use super::CPR_SCALE;
use super::error::CprError;
use super::frame::CprFrame;
use super::position::Position;
use super::zones::CprKind;

impl CprFrame {
    /// Encode a position (the DO-260B CPR encoding): with `Dlat_i` of the kind,
    /// `YZ = ⌊2¹⁷·mod(lat, Dlat_i)/Dlat_i + ½⌋`,
    /// `Rlat = Dlat_i·(YZ/2¹⁷ + ⌊lat/Dlat_i⌋)`,
    /// `Dlon_i = S/max(NL(Rlat) − i, 1)`,
    /// `XZ = ⌊2¹⁷·mod(lon, Dlon_i)/Dlon_i + ½⌋`, both sent modulo 2¹⁷.
    ///
    /// Any finite longitude is accepted (it wraps). Errors with
    /// [`CprError::InvalidPosition`] if a coordinate is not finite or
    /// `|lat| > 90`.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{CprFrame, CprKind, Position};
    /// let p = Position::new(52.2572021484375, 3.91937255859375);
    /// let f = CprFrame::encode(CprKind::Airborne, false, p).unwrap();
    /// assert_eq!((f.lat(), f.lon()), (93000, 51372));
    /// ```
    pub fn encode(kind: CprKind, odd: bool, pos: Position) -> Result<Self, CprError> {
        if !pos.is_valid() {
            return Err(CprError::InvalidPosition);
        }
        let dlat = kind.lat_zone(odd);
        let (zone, yz) = split_zone(pos.lat / dlat);
        let rlat = dlat * (zone + yz as f64 / CPR_SCALE);
        let dlon = kind.lon_zone(odd, rlat);
        let (_, xz) = split_zone(pos.lon / dlon);
        Ok(Self::new(kind, odd, yz, xz))
    }
}

/// Split a position in zone units into `(⌊q⌋, ⌊2¹⁷·(q − ⌊q⌋) + ½⌋)`; the
/// second value is in `0..=2¹⁷` (the caller masks it).
fn split_zone(q: f64) -> (f64, u32) {
    let zone = libm::floor(q);
    let frac = libm::floor(CPR_SCALE * (q - zone) + 0.5);
    // `frac` is in 0..=2^17 for finite q; `as` saturates otherwise.
    (zone, frac as u32)
}
