//! CPR tests: shared helpers; the tests by topic are in the submodules.

use super::global::{global_lats, global_lon};
use super::position::wrap180;
use super::zones::{NL_TRANSITIONS, lon_zones};
use super::*;
use crate::testing::{hex, proptest_config};
use proptest::prelude::*;

mod airborne;
mod encode;
mod nl;
mod plausibility;
mod surface;

/// The CPR fields of a DF17/18 position message: ME = bytes 4..11; TC
/// = ME bits 1–5, F = bit 22, lat = bits 23–39, lon = bits 40–56.
fn cpr(h: &str) -> CprFrame {
    let b = hex(h);
    assert_eq!(b.len(), 14, "{h}");
    let me = b[4..11].iter().fold(0u64, |acc, &x| (acc << 8) | x as u64);
    let tc = (me >> 51) as u8;
    let kind = CprKind::from_type_code(tc).expect("position type code");
    CprFrame::new(
        kind,
        (me >> 34) & 1 == 1,
        ((me >> 17) & 0x1_FFFF) as u32,
        (me & 0x1_FFFF) as u32,
    )
}

/// `actual` equals `expected` to `dp` decimal places (|Δ| ≤ ½·10^−dp).
#[track_caller]
fn assert_dp(actual: f64, expected: f64, dp: i32) {
    let tol = 0.5 * libm::pow(10.0, -dp as f64) * (1.0 + 1e-9);
    assert!(
        libm::fabs(actual - expected) <= tol,
        "{actual} != {expected} to {dp} dp"
    );
}

/// `actual` equals a full-precision `expected` within 2 ulp (the
/// published digits come from other evaluation orders).
#[track_caller]
fn assert_full(actual: f64, expected: f64) {
    let ulp = expected.next_up() - expected;
    assert!(
        libm::fabs(actual - expected) <= 2.0 * ulp,
        "{actual} != {expected} within 2 ulp"
    );
}

#[track_caller]
fn assert_pos(p: Position, lat: f64, lon: f64, dp: i32) {
    assert_dp(p.lat, lat, dp);
    assert_dp(p.lon, lon, dp);
}

fn at(frame: CprFrame, t_ms: u64) -> TimedFrame {
    TimedFrame::new(frame, t_ms)
}

/// Global airborne decode with `newer` received 1 s after `older`.
fn air_pair(older: CprFrame, newer: CprFrame) -> Result<Position, CprError> {
    decode_global_airborne(at(older, 0), at(newer, 1_000))
}

/// Global surface decode, `newer` 1 s after `older`, unlimited range.
fn sfc_pair(older: CprFrame, newer: CprFrame, lat: f64, lon: f64) -> Result<Position, CprError> {
    let r = Reference::receiver(Position::new(lat, lon), f64::INFINITY);
    decode_global_surface(at(older, 0), at(newer, 1_000), r, false)
}

fn local(frame: CprFrame, lat: f64, lon: f64) -> Result<Position, CprError> {
    decode_local(frame, Reference::aircraft(Position::new(lat, lon)))
}
