//! Global decoding: the position from an even/odd pair, airborne or
//! surface (see the [module docs](super#decoding)).

use super::error::CprError;
use super::frame::{CprFrame, TimedFrame};
use super::position::{Position, Reference, check_range, wrap180};
use super::zones::{CprKind, lon_zones, nl};
use super::{CPR_HALF, CPR_SCALE};

/// Check the kinds, formats and times of a global pair; returns
/// `(even, odd)`.
fn check_pair(
    older: TimedFrame,
    newer: TimedFrame,
    kind: CprKind,
    slow: bool,
) -> Result<(CprFrame, CprFrame), CprError> {
    if older.frame.kind != kind || newer.frame.kind != kind {
        return Err(CprError::KindMismatch);
    }
    if older.frame.odd == newer.frame.odd {
        return Err(CprError::SameFormat);
    }
    let age = newer
        .t_ms
        .checked_sub(older.t_ms)
        .ok_or(CprError::OutOfOrder)?;
    if age > kind.max_pair_age_ms(slow) {
        return Err(CprError::AgeExceeded);
    }
    Ok(if newer.frame.odd {
        (older.frame, newer.frame)
    } else {
        (newer.frame, older.frame)
    })
}

/// Global latitudes in `[0, S)`: `(j, lat_e, lat_o)` with the zone index
/// `j = ⌊(59·YZ_e − 60·YZ_o + 2¹⁶)/2¹⁷⌋` computed exactly.
pub(super) fn global_lats(even: CprFrame, odd: CprFrame, kind: CprKind) -> (i64, f64, f64) {
    let (ye, yo) = (even.lat as i64, odd.lat as i64);
    let j = (59 * ye - 60 * yo + CPR_HALF).div_euclid(1 << 17);
    let lat_e = kind.lat_zone(false) * (j.rem_euclid(60) as f64 + ye as f64 / CPR_SCALE);
    let lat_o = kind.lat_zone(true) * (j.rem_euclid(59) as f64 + yo as f64 / CPR_SCALE);
    (j, lat_e, lat_o)
}

/// Global longitude in `[0, S)` from the newer frame, with NL of the
/// decoded latitude: `(m, lon)`.
pub(super) fn global_lon(
    even: CprFrame,
    odd: CprFrame,
    newer_odd: bool,
    nl: u8,
    kind: CprKind,
) -> (i64, f64) {
    let (xe, xo, nl_i) = (even.lon as i64, odd.lon as i64, nl as i64);
    let m = (xe * (nl_i - 1) - xo * nl_i + CPR_HALF).div_euclid(1 << 17);
    let ni = lon_zones(nl, newer_odd);
    let x = if newer_odd { xo } else { xe };
    let lon = (kind.span() / ni as f64) * (m.rem_euclid(ni as i64) as f64 + x as f64 / CPR_SCALE);
    (m, lon)
}

/// Globally unambiguous airborne position from an even/odd pair
/// (DO-260B; Riddle ch. 5, eq. 5.18–5.23). The newer frame is the reference: the
/// result is its position.
///
/// Errors: [`CprError::KindMismatch`] unless both frames are airborne,
/// [`CprError::SameFormat`], [`CprError::OutOfOrder`] if
/// `newer.t_ms < older.t_ms`, [`CprError::AgeExceeded`] beyond
/// [`AIRBORNE_MAX_PAIR_AGE_MS`](super::AIRBORNE_MAX_PAIR_AGE_MS), [`CprError::InvalidLatitude`] if a
/// latitude lands beyond ±90°, [`CprError::ZoneMismatch`] if
/// `NL(lat_e) ≠ NL(lat_o)`.
///
/// ```
/// use airwaves_core::modes::cpr::{decode_global_airborne, CprFrame, TimedFrame};
/// let odd = TimedFrame::new(CprFrame::airborne(true, 74158, 50194), 1_457_996_400_000);
/// let even = TimedFrame::new(CprFrame::airborne(false, 93000, 51372), 1_457_996_402_000);
/// let p = decode_global_airborne(odd, even).unwrap();
/// assert_eq!((p.lat, p.lon), (52.2572021484375, 3.91937255859375));
/// ```
pub fn decode_global_airborne(older: TimedFrame, newer: TimedFrame) -> Result<Position, CprError> {
    let (even, odd) = check_pair(older, newer, CprKind::Airborne, false)?;
    let (_, mut lat_e, mut lat_o) = global_lats(even, odd, CprKind::Airborne);
    // Southern hemisphere: zones counted on from 360°.
    if lat_e >= 270.0 {
        lat_e -= 360.0;
    }
    if lat_o >= 270.0 {
        lat_o -= 360.0;
    }
    if libm::fabs(lat_e) > 90.0 || libm::fabs(lat_o) > 90.0 {
        return Err(CprError::InvalidLatitude);
    }
    let nl_e = nl(lat_e);
    if nl_e != nl(lat_o) {
        return Err(CprError::ZoneMismatch);
    }
    let lat = if newer.frame.odd { lat_o } else { lat_e };
    let (_, lon) = global_lon(even, odd, newer.frame.odd, nl_e, CprKind::Airborne);
    Ok(Position::new(lat, wrap180(lon)))
}

/// Globally decoded surface position from an even/odd pair and a
/// reference (DO-260B; Riddle §6.4.1). The newer frame is the
/// reference frame.
///
/// Surface zones span 90°, so the pair fixes the position only modulo 90°:
/// the latitude candidates are `lat`, `lat − 90°` (and `lat + 90°` for the
/// north pole, since −90°, 0° and 90° all encode as 0), the longitude
/// candidates `lon + k·90°`; the candidates nearest `reference` are chosen
/// (a latitude tie keeps `lat`, a longitude tie goes east). NL is taken at the chosen
/// latitude. The answer is right only if the aircraft is within 45° of
/// latitude and longitude of the reference; pass a receiver reference with
/// a realistic `max_range_nm` to reject the rest ([`CprError::OutOfRange`]);
/// 45° of arc is 2700 NM.
///
/// `slow`: ground speed at or below [`SURFACE_SLOW_KT`](super::SURFACE_SLOW_KT), which allows 50 s
/// between the frames instead of 25 s.
///
/// Errors as [`decode_global_airborne`] (with surface frames), plus
/// [`CprError::InvalidPosition`] for an invalid reference and
/// [`CprError::OutOfRange`].
///
/// ```
/// use airwaves_core::modes::cpr::*;
/// let even = TimedFrame::new(CprFrame::surface(false, 115609, 116941), 1_000);
/// let odd = TimedFrame::new(CprFrame::surface(true, 39199, 110269), 3_000);
/// let rx = Reference::receiver(Position::new(51.990, 4.375), 50.0);
/// let p = decode_global_surface(even, odd, rx, false).unwrap();
/// assert!((p.lat - 52.320607).abs() < 5e-7 && (p.lon - 4.734735).abs() < 5e-7);
/// ```
pub fn decode_global_surface(
    older: TimedFrame,
    newer: TimedFrame,
    reference: Reference,
    slow: bool,
) -> Result<Position, CprError> {
    let (even, odd) = check_pair(older, newer, CprKind::Surface, slow)?;
    let r = reference.position;
    if !r.is_valid() {
        return Err(CprError::InvalidPosition);
    }
    let (_, lat_e, lat_o) = global_lats(even, odd, CprKind::Surface);
    let lat_new = if newer.frame.odd { lat_o } else { lat_e };
    // Hemisphere: the latitude candidate nearest the reference.
    let mut shift = 0.0;
    for s in [-90.0, 90.0] {
        let c = lat_new + s;
        if libm::fabs(c) <= 90.0 && libm::fabs(c - r.lat) < libm::fabs(lat_new + shift - r.lat) {
            shift = s;
        }
    }
    let (lat_e, lat_o) = (lat_e + shift, lat_o + shift);
    let nl_e = nl(lat_e);
    if nl_e != nl(lat_o) {
        return Err(CprError::ZoneMismatch);
    }
    let lat = lat_new + shift;
    let (_, lon0) = global_lon(even, odd, newer.frame.odd, nl_e, CprKind::Surface);
    // Longitude: the quadrant nearest the reference.
    let k = libm::floor(wrap180(r.lon - lon0) / 90.0 + 0.5);
    let lon = wrap180(lon0 + 90.0 * k);
    let pos = Position::new(lat, lon);
    check_range(reference, pos)?;
    Ok(pos)
}
