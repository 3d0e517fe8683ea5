//! Tracker tests: shared frame builders and checks; the tests by topic
//! are in the submodules.

extern crate std;

use std::vec::Vec;

use super::aircraft::F_NIC_A;
use super::*;
use crate::modes::adsb::{
    AirbornePosition, CprFormat, CprPosition, EmergencyState, SurfacePosition,
};
use crate::modes::cpr::{
    self, CprError, CprFrame, CprKind, Position, Reference, SpeedCheck, TimedFrame,
};
use crate::modes::frame::Capability;

use crate::testing::hex;

mod addresses;
mod fields;
mod mlat;
mod phantoms;
mod positions;
mod recorded;
mod table;

/// Feed a hex frame received at `t_ms` (also the current time).
fn feed<const N: usize>(
    tr: &mut Tracker<N>,
    h: &str,
    t_ms: u64,
) -> Result<UpdateOutcome, RejectReason> {
    let b = hex(h);
    tr.update(&ReceivedFrame::new(&b, t_ms))
}

fn feed_bytes<const N: usize>(
    tr: &mut Tracker<N>,
    b: &[u8],
    t_ms: u64,
) -> Result<UpdateOutcome, RejectReason> {
    tr.update(&ReceivedFrame::new(b, t_ms))
}

fn addr_of(h: &str) -> u32 {
    let b = hex(h);
    Frame::new_unchecked(&b[..]).address().unwrap()
}

/// A DF11 acquisition squitter (remainder 0) from `addr`.
fn df11(addr: u32) -> [u8; 7] {
    let mut b = [
        0x5D,
        (addr >> 16) as u8,
        (addr >> 8) as u8,
        addr as u8,
        0,
        0,
        0,
    ];
    Frame::new_unchecked(&mut b[..]).fill_parity(0);
    b
}

/// A DF17 (CA 5) from `addr` with the given ME, correct parity.
fn df17(addr: u32, me: [u8; 7]) -> [u8; 14] {
    let mut b = [0u8; 14];
    b[0] = 0x8D;
    b[1..4].copy_from_slice(&[(addr >> 16) as u8, (addr >> 8) as u8, addr as u8]);
    b[4..11].copy_from_slice(&me);
    Frame::new_unchecked(&mut b[..]).fill_parity(0);
    b
}

/// The ME of an airborne position (TC 11) at `p`, altitude code `ac12`.
fn airborne_me(odd: bool, p: Position, ac12: u16) -> [u8; 7] {
    let f = CprFrame::encode(CprKind::Airborne, odd, p).unwrap();
    airborne_raw(odd, f.lat(), f.lon(), ac12)
}

fn airborne_raw(odd: bool, lat: u32, lon: u32, ac12: u16) -> [u8; 7] {
    let cpr = CprPosition {
        format: CprFormat::from(odd),
        lat,
        lon,
    };
    let mut p = AirbornePosition::new(11, cpr).unwrap();
    p.altitude_code = ac12;
    AdsbRepr::AirbornePosition(p).to_bytes()
}

fn surface_raw(odd: bool, lat: u32, lon: u32) -> [u8; 7] {
    let cpr = CprPosition {
        format: CprFormat::from(odd),
        lat,
        lon,
    };
    AdsbRepr::SurfacePosition(SurfacePosition::new(7, cpr).unwrap()).to_bytes()
}

#[track_caller]
fn assert_close(actual: f64, expected: f64, tol: f64) {
    assert!(
        (actual - expected).abs() <= tol,
        "{actual} != {expected} ± {tol}"
    );
}

#[track_caller]
fn assert_pos(fix: Option<PositionFix>, lat: f64, lon: f64, tol: f64) {
    let p = fix.expect("a position").position;
    assert_close(p.lat, lat, tol);
    assert_close(p.lon, lon, tol);
}

fn pos_of<const N: usize>(tr: &Tracker<N>, key: u32) -> Option<PositionFix> {
    tr.get(key).and_then(Aircraft::position)
}

type T16 = Tracker<16>;

fn tracker() -> T16 {
    Tracker::new(TrackerConfig::DEFAULT)
}

// ------------------------------------------------------------ memory

#[test]
fn test_size() {
    assert!(core::mem::size_of::<Aircraft>() <= 200);
    assert!(core::mem::size_of::<Tracker<256>>() <= 64 * 1024);
}
