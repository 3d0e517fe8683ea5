//! Compact Position Reporting (CPR): decoding and encoding of the 17-bit
//! latitude/longitude fields of ADS-B airborne (TC 9–18, 20–22) and surface
//! (TC 5–8) position messages.
//!
//! Written from the CPR algorithm of RTCA DO-260B (Appendix A), as presented
//! in *The 1090 Megahertz Riddle* (J. Sun, 2021, ch. 5 and 6), and ICAO
//! Annex 10 Vol IV.
//!
//! # The encoding
//!
//! The globe is cut into `4·NZ − i` latitude zones (`NZ = 15`, `i = 0` for
//! an *even* frame, `1` for an *odd* one) of size
//!
//! `Dlat_i = S / (60 − i)`, with the span `S = 360°` airborne, `90°` surface,
//!
//! and every latitude zone into `max(NL(lat) − i, 1)` longitude zones of size
//! `Dlon_i = S / max(NL(lat) − i, 1)`. A frame carries the position inside
//! its zone as 17-bit fractions `YZ = lat_cpr·2¹⁷`, `XZ = lon_cpr·2¹⁷`.
//! `NL(lat)` is the number of longitude zones (59 at the equator, 1 above
//! 87°; see [`nl`]). Resolution: `Dlat/2¹⁷` ≈ 5.1 m airborne, 1.3 m surface
//! in latitude; about the same in longitude except close to the poles.
//!
//! Surface frames use the same 17 bits for a 4× smaller zone: DO-260B
//! encodes them with `Nb = 19` on 360° zones and sends the 17 low bits, which
//! is exactly the 90° formulation used here.
//!
//! # Decoding
//!
//! - **Global** ([`decode_global_airborne`], [`decode_global_surface`]): an
//!   even and an odd frame received close together. With
//!   `j = ⌊59·lat_cpr_e − 60·lat_cpr_o + ½⌋`,
//!   `lat_e = Dlat_0·(j mod 60 + lat_cpr_e)`,
//!   `lat_o = Dlat_1·(j mod 59 + lat_cpr_o)` (airborne: minus 360° if
//!   ≥ 270°). Both must lie in the same NL zone, otherwise the aircraft
//!   crossed a zone boundary between the two frames and the pair is
//!   rejected. The *newer* frame gives the answer:
//!   `m = ⌊lon_cpr_e·(NL − 1) − lon_cpr_o·NL + ½⌋`,
//!   `lon = Dlon_i·(m mod n_i + lon_cpr_i)` with `n_i = max(NL − i, 1)`.
//!   `j` and `m` are computed exactly in integers here.
//!   Surface results are ambiguous by 90°: the latitude is one of
//!   `lat`, `lat − 90°` (and `+90°` for the pole), the longitude one of
//!   `lon + k·90°`; the candidate nearest a reference is chosen.
//! - **Local** ([`decode_local`]): one frame and a reference position
//!   within half a zone: `j = ⌊lat_ref/Dlat_i − lat_cpr + ½⌋`,
//!   `lat = Dlat_i·(j + lat_cpr)`, then
//!   `m = ⌊lon_ref/Dlon_i − lon_cpr + ½⌋`, `lon = Dlon_i·(m + lon_cpr)`.
//!   This single-floor form is used on purpose: the Riddle's two-term form
//!   `⌊lat_ref/Dlat⌋ + ⌊mod(lat_ref, Dlat)/Dlat − lat_cpr + ½⌋` picks the
//!   wrong zone when the reference sits on a zone edge in floating point.
//!   Any result more than half a zone from the reference is rejected. An
//!   aircraft's own last position is a valid reference only while it
//!   cannot have flown half a zone since
//!   ([`SpeedCheck::max_reference_age_ms`]).
//!
//! Latitudes and longitudes are `f64` degrees, north and east positive;
//! results have `lat ∈ [−90, 90]`, `lon ∈ [−180, 180)`. Times are passed in
//! as `u64` milliseconds of any monotonic clock (`core` reads no clock).
//!
//! # Plausibility
//!
//! CRC-valid but corrupted frames (FRUIT phantoms) still decode, usually far
//! away. [`distance_nm`] and [`SpeedCheck`] reject a new position whose
//! implied speed from the previous one is impossible.
//!
//! Nothing here allocates or panics, for any input.

mod distance;
mod encode;
mod error;
mod frame;
mod global;
mod local;
mod position;
mod speed;
#[cfg(test)]
mod tests;
mod zones;

pub use distance::{EARTH_RADIUS_NM, distance_nm, implied_speed_kt};
pub use error::CprError;
pub use frame::{CprFrame, TimedFrame};
pub use global::{decode_global_airborne, decode_global_surface};
pub use local::decode_local;
pub use position::{Position, Reference};
pub use speed::SpeedCheck;
pub use zones::{
    AIRBORNE_MAX_PAIR_AGE_MS, CprKind, SURFACE_MAX_PAIR_AGE_MS, SURFACE_SLOW_KT,
    SURFACE_SLOW_MAX_PAIR_AGE_MS, nl,
};

/// `2¹⁷`: one full zone in CPR units.
const CPR_SCALE: f64 = 131_072.0;
/// Mask of a 17-bit CPR field.
const CPR_MASK: u32 = 0x1_FFFF;
/// Half a zone in CPR units, for the integer `⌊x + ½⌋`.
const CPR_HALF: i64 = 65_536;
