//! Great-circle distance and the speed a move implies.

use super::position::Position;

/// Mean Earth radius in nautical miles (IUGG 6371.0088 km; 1 NM = 1852 m).
pub const EARTH_RADIUS_NM: f64 = 6_371.008_8 / 1.852;

/// Great-circle distance between two positions in nautical miles
/// (haversine on a sphere of radius [`EARTH_RADIUS_NM`]; within 0.5 % of
/// the WGS-84 geodesic).
///
/// ```
/// use airwaves_core::modes::cpr::{distance_nm, Position};
/// let d = distance_nm(Position::new(0.0, 0.0), Position::new(1.0, 0.0));
/// assert!((d - 60.04).abs() < 0.01);
/// ```
pub fn distance_nm(a: Position, b: Position) -> f64 {
    let rad = core::f64::consts::PI / 180.0;
    let (p1, p2) = (a.lat * rad, b.lat * rad);
    let s_dlat = libm::sin((p2 - p1) / 2.0);
    let s_dlon = libm::sin((b.lon - a.lon) * rad / 2.0);
    let h = s_dlat * s_dlat + libm::cos(p1) * libm::cos(p2) * s_dlon * s_dlon;
    2.0 * EARTH_RADIUS_NM * libm::asin(libm::sqrt(h.clamp(0.0, 1.0)))
}

/// Speed in knots implied by moving from `a` at `t_a_ms` to `b` at
/// `t_b_ms` (order of the times does not matter); infinite for a move in
/// zero time, 0 for no move.
///
/// ```
/// use airwaves_core::modes::cpr::{implied_speed_kt, Position};
/// let v = implied_speed_kt(Position::new(0.0, 0.0), 0, Position::new(1.0, 0.0), 3_600_000);
/// assert!((v - 60.04).abs() < 0.01);
/// ```
pub fn implied_speed_kt(a: Position, t_a_ms: u64, b: Position, t_b_ms: u64) -> f64 {
    let d = distance_nm(a, b);
    let dt_h = t_a_ms.abs_diff(t_b_ms) as f64 / 3_600_000.0;
    if d == 0.0 { 0.0 } else { d / dt_h }
}
