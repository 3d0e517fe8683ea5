//! Multilateration results: mlat-client's synthesised DF18 frames.
//!
//! The literal frames were written byte for byte from the published layout
//! of mlat-client's results (DF18, CF 2, ICAO address A835AF; TC 18
//! airborne position with barometric altitude, even and odd; TC 19
//! subtype 1 ground velocity; TC 0 altitude only) by an independent
//! generator, for 52.3° N 4.76° E, 3,000 ft, 200 kt north, 100 kt west,
//! −640 ft/min.

use super::*;

const EVEN: &str = "92A835AF901502DDDEF3B61949EC";
const ODD: &str = "92A835AF901506491AECF115B1EB";
const VELOCITY: &str = "92A835AF99046519382C00B5C721";
const ALTITUDE_ONLY: &str = "92A835AF00150000000000CDB26C";
const ADDR: u32 = 0xA835AF;

fn feed_mlat(tr: &mut T16, h: &str, t_ms: u64) -> Result<UpdateOutcome, RejectReason> {
    let b = hex(h);
    tr.update(&ReceivedFrame::new(&b, t_ms).as_mlat())
}

#[test]
fn test_mlat_result_tracked_as_mlat() {
    let mut tr = tracker();
    let t0 = 1_000_000;
    feed_mlat(&mut tr, EVEN, t0).unwrap();
    let r = feed_mlat(&mut tr, ODD, t0).unwrap();
    assert_eq!(r.position, PositionUpdate::Decoded(PositionSource::Global));
    feed_mlat(&mut tr, VELOCITY, t0).unwrap();
    let ac = tr.get(ADDR).unwrap();
    assert_eq!(ac.address_type(), AddressType::Mlat);
    assert_pos(ac.position(), 52.3, 4.76, 1e-4);
    assert_eq!(ac.altitude_baro_ft(), Some(3_000));
    assert_close(f64::from(ac.ground_speed_kt().unwrap()), 223.6, 0.1);
    assert_close(f64::from(ac.track_deg().unwrap()), 333.43, 0.01);
    assert_eq!(ac.vertical_rate_baro_fpm(), Some(-640));
    assert!(ac.mlat_position() && ac.mlat_altitude() && ac.mlat_velocity());
    // NIC 0: no containment radius.
    assert_eq!(ac.radius_of_containment_m(), None);
    // An MLAT result does not make the address known (AP replies from it
    // still need a DF11/17/18 heard here).
    assert!(!tr.is_known(ADDR, t0));
}

#[test]
fn test_mlat_altitude_only() {
    let mut tr = tracker();
    feed_mlat(&mut tr, ALTITUDE_ONLY, 5_000).unwrap();
    let ac = tr.get(ADDR).unwrap();
    assert_eq!(ac.altitude_baro_ft(), Some(3_000));
    assert!(ac.mlat_altitude() && !ac.mlat_position());
}

#[test]
fn test_same_frames_without_the_mark_are_tisb() {
    let mut tr = tracker();
    feed(&mut tr, EVEN, 0).unwrap();
    feed(&mut tr, ODD, 0).unwrap();
    let ac = tr.get(ADDR).unwrap();
    assert_eq!(ac.address_type(), AddressType::TisbIcao);
    assert!(!ac.mlat_position() && !ac.mlat_altitude());
}

#[test]
fn test_mlat_yields_to_own_position_then_takes_over() {
    let mut tr = tracker();
    // The aircraft's own ADS-B: a DF17 pair 0.01° (0.6 NM) south of the MLAT fix.
    let own = Position::new(52.29, 4.76);
    let even = df17(ADDR, airborne_me(false, own, 0x0150));
    let odd = df17(ADDR, airborne_me(true, own, 0x0150));
    feed_bytes(&mut tr, &even, 0).unwrap();
    feed_bytes(&mut tr, &odd, 500).unwrap();
    assert_pos(pos_of(&tr, ADDR), 52.29, 4.76, 1e-4);
    // A fresh own position: the MLAT result is heard but not applied.
    feed_mlat(&mut tr, EVEN, 1_000).unwrap();
    let r = feed_mlat(&mut tr, ODD, 1_000).unwrap();
    assert_eq!(r.position, PositionUpdate::None);
    let ac = tr.get(ADDR).unwrap();
    assert_pos(ac.position(), 52.29, 4.76, 1e-4);
    assert_eq!(ac.address_type(), AddressType::AdsbIcao);
    assert!(!ac.mlat_position());
    assert_eq!(ac.messages(), 4);
    // Own position older than MLAT_YIELD_MS: the result is applied and
    // marked (the same distance is within the speed check for 10 s).
    let t = 500 + MLAT_YIELD_MS + 1;
    feed_mlat(&mut tr, EVEN, t).unwrap();
    feed_mlat(&mut tr, ODD, t).unwrap();
    let ac = tr.get(ADDR).unwrap();
    assert_pos(ac.position(), 52.3, 4.76, 1e-4);
    assert!(ac.mlat_position());
    // The address type stays the best heard.
    assert_eq!(ac.address_type(), AddressType::AdsbIcao);
    // Its own position again: the mark goes.
    let later = Position::new(52.301, 4.76);
    feed_bytes(
        &mut tr,
        &df17(ADDR, airborne_me(false, later, 0x0150)),
        t + 1_000,
    )
    .unwrap();
    feed_bytes(
        &mut tr,
        &df17(ADDR, airborne_me(true, later, 0x0150)),
        t + 1_500,
    )
    .unwrap();
    let ac = tr.get(ADDR).unwrap();
    assert_pos(ac.position(), 52.301, 4.76, 1e-4);
    assert!(!ac.mlat_position());
}
