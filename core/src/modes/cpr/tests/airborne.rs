//! Published pairs and local decoding (vectors.md §3), pair and reference checks.

use super::*;

/// §3.1 Riddle: global, even newer; intermediates; local.
#[test]
fn test_riddle_airborne() {
    let even = cpr("8D40621D58C382D690C8AC2863A7");
    let odd = cpr("8D40621D58C386435CC412692AD6");
    assert_eq!(even, CprFrame::airborne(false, 93000, 51372));
    assert_eq!(odd, CprFrame::airborne(true, 74158, 50194));

    let (j, lat_e, lat_o) = global_lats(even, odd, CprKind::Airborne);
    assert_eq!(j, 8);
    assert_full(lat_e, 52.2572021484375);
    assert_full(lat_o, 52.26578017412606);
    assert_eq!((nl(lat_e), nl(lat_o)), (36, 36));
    let (m, _) = global_lon(even, odd, false, 36, CprKind::Airborne);
    assert_eq!(m, 0);
    assert_eq!(lon_zones(36, false), 36);

    // t0 = 1457996402 (even, most recent), t1 = 1457996400 (odd).
    let p =
        decode_global_airborne(at(odd, 1_457_996_400_000), at(even, 1_457_996_402_000)).unwrap();
    assert_full(p.lat, 52.2572021484375);
    assert_full(p.lon, 3.91937255859375);

    // Local, ref (52.258, 3.918): dLat = 6, j = 8; dLon = 10, m = 0.
    let p = local(even, 52.258, 3.918).unwrap();
    assert_eq!(libm::floor(52.258 / 6.0 - 93000.0 / CPR_SCALE + 0.5), 8.0);
    assert_eq!(CprKind::Airborne.lon_zone(false, p.lat), 10.0);
    assert_eq!(libm::floor(3.918 / 10.0 - 51372.0 / CPR_SCALE + 0.5), 0.0);
    assert_full(p.lat, 52.2572021484375);
    assert_full(p.lon, 3.91937255859375);
}

/// §3.2 pyModeS / rs1090 pair, global both ways and local.
#[test]
fn test_pymodes_pair() {
    let even = cpr("8D40058B58C901375147EFD09357");
    let odd = cpr("8D40058B58C904A87F402D3B8C59");
    assert!(!even.odd() && odd.odd());

    let p = air_pair(even, odd).unwrap(); // odd newer
    assert_pos(p, 49.81755, 6.08442, 5);
    assert_full(p.lat, 49.81755143505031);
    assert_full(p.lon, 6.084421518686655);

    let p = air_pair(odd, even).unwrap(); // even newer
    assert_pos(p, 49.82410, 6.06785, 5);
    assert_full(p.lat, 49.8240966796875);
    assert_full(p.lon, 6.067850213301809);

    assert_pos(local(even, 49.0, 6.0).unwrap(), 49.82410, 6.06785, 5);
    assert_pos(local(odd, 49.0, 6.0).unwrap(), 49.81755, 6.08442, 5);
}

/// §3.3 numerical edge case: reference on a zone edge.
#[test]
fn test_local_zone_edge() {
    let f = cpr("8D06A15358BF17FF7D4A84B47B95");
    assert_eq!(f, CprFrame::airborne(true, 131006, 84612));
    let (lat_ref, lon_ref) = (30.508474576271183, 36.000000000000003);
    let p = local(f, lat_ref, lon_ref).unwrap();
    assert_dp(p.lat, 30.50540, 5);
    // The published 33.44787 is truncated: the value is 33.4478759765625
    // (= 7.2·(4 + 84612/2¹⁷), exact), 33.44788 to 5 dp.
    assert!(libm::fabs(p.lon - 33.44787) < 1e-5);
    assert_eq!(p.lon, 7.2 * (4.0 + 84612.0 / CPR_SCALE));

    // The trap: the two-term index lands one zone off (≈ 36.607°),
    // which the half-zone check would reject.
    let dlat = 360.0 / 59.0;
    let y = 131006.0 / CPR_SCALE;
    let two_term =
        libm::floor(lat_ref / dlat) + libm::floor(libm::fmod(lat_ref, dlat) / dlat - y + 0.5);
    let trap_lat = dlat * (two_term + y);
    assert!(libm::fabs(trap_lat - 36.607) < 1e-3, "{trap_lat}");
    assert!(libm::fabs(trap_lat - lat_ref) > dlat / 2.0);
}

/// §3.4 rs1090 second pair.
#[test]
fn test_rs1090_pair() {
    let odd = cpr("8d4d224f58bf07c2d41a9a353d70");
    let even = cpr("8d4d224f58bf003b221b34aa5b8d");
    assert_eq!(odd, CprFrame::airborne(true, 123242, 6810));
    assert_eq!(even, CprFrame::airborne(false, 7569, 6964));
    let p = air_pair(odd, even).unwrap(); // even newer, as in rs1090
    assert_pos(p, 42.34648, 0.43471, 5);
    assert_dp(p.lat, 42.346, 3);
    assert_dp(p.lon, 0.4347, 4);
    let p = air_pair(even, odd).unwrap();
    assert_pos(p, 42.34736, 0.43498, 5);
}

/// §3.5 dump1090-fa `cprtests.c`: (even lat, even lon, odd lat, odd
/// lon, even-newer lat/lon, odd-newer lat/lon).
type FaAirborneRow = (u32, u32, u32, u32, f64, f64, f64, f64);
static FA_AIRBORNE: [FaAirborneRow; 2] = [
    (
        80536, 9432, 61720, 9192, 51.686646, 0.700156, 51.686763, 0.701294,
    ),
    (
        80534, 9413, 61714, 9144, 51.686554, 0.698745, 51.686484, 0.697632,
    ),
];

#[test]
fn test_fa_global_airborne() {
    for (el, eo, ol, oo, e_lat, e_lon, o_lat, o_lon) in FA_AIRBORNE {
        let even = CprFrame::airborne(false, el, eo);
        let odd = CprFrame::airborne(true, ol, oo);
        assert_pos(air_pair(odd, even).unwrap(), e_lat, e_lon, 6);
        assert_pos(air_pair(even, odd).unwrap(), o_lat, o_lon, 6);
    }
}

#[test]
fn test_fa_relative_airborne() {
    let refs = [
        (52.00, 0.00),
        (48.70, 0.00),
        (54.60, 0.00),
        (52.00, 5.40),
        (52.00, -4.10),
    ];
    for (rlat, rlon) in refs {
        for (el, eo, ol, oo, e_lat, e_lon, o_lat, o_lon) in FA_AIRBORNE {
            let even = CprFrame::airborne(false, el, eo);
            let odd = CprFrame::airborne(true, ol, oo);
            assert_pos(local(even, rlat, rlon).unwrap(), e_lat, e_lon, 6);
            assert_pos(local(odd, rlat, rlon).unwrap(), o_lat, o_lon, 6);
        }
    }
}

type FaSurfaceRow = (f64, f64, u32, u32, u32, u32, f64, f64, f64, f64);

/// (ref lat, ref lon, even lat, even lon, odd lat, odd lon, even-newer
/// lat/lon, odd-newer lat/lon), every row of `cprGlobalSurfaceTests`.
#[rustfmt::skip]
static FA_SURFACE: [FaSurfaceRow; 23] = [
    (52.00, -180.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 - 180.0, 52.209976, 0.176507 - 180.0),
    (52.00, -140.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 - 180.0, 52.209976, 0.176507 - 180.0),
    (52.00, -130.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 - 90.0, 52.209976, 0.176507 - 90.0),
    (52.00, -50.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 - 90.0, 52.209976, 0.176507 - 90.0),
    (52.00, -40.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
    (52.00, -10.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
    (52.00, 0.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
    (52.00, 10.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
    (52.00, 40.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
    (52.00, 50.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 + 90.0, 52.209976, 0.176507 + 90.0),
    (52.00, 130.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 + 90.0, 52.209976, 0.176507 + 90.0),
    (52.00, 140.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 - 180.0, 52.209976, 0.176507 - 180.0),
    (52.00, 180.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 - 180.0, 52.209976, 0.176507 - 180.0),
    (90.00, 0.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
    (52.00, 0.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
    (8.00, 0.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
    (7.00, 0.00, 105730, 9259, 29693, 8997, 52.209984 - 90.0, 0.135269, 52.209976 - 90.0, 0.134299),
    (-52.00, 0.00, 105730, 9259, 29693, 8997, 52.209984 - 90.0, 0.135269, 52.209976 - 90.0, 0.134299),
    (-90.00, 0.00, 105730, 9259, 29693, 8997, 52.209984 - 90.0, 0.135269, 52.209976 - 90.0, 0.134299),
    (-46.00, -180.00, 0, 0, 0, 0, -90.0, -180.0, -90.0, -180.0),
    (-44.00, -180.00, 0, 0, 0, 0, 0.0, -180.0, 0.0, -180.0),
    (44.00, -180.00, 0, 0, 0, 0, 0.0, -180.0, 0.0, -180.0),
    (46.00, -180.00, 0, 0, 0, 0, 90.0, -180.0, 90.0, -180.0),
];

#[test]
fn test_fa_global_surface() {
    for (rlat, rlon, el, eo, ol, oo, e_lat, e_lon, o_lat, o_lon) in FA_SURFACE {
        let even = CprFrame::surface(false, el, eo);
        let odd = CprFrame::surface(true, ol, oo);
        let p = sfc_pair(odd, even, rlat, rlon).unwrap();
        assert_pos(p, e_lat, e_lon, 6);
        let p = sfc_pair(even, odd, rlat, rlon).unwrap();
        assert_pos(p, o_lat, o_lon, 6);
    }
}

#[test]
fn test_fa_relative_surface() {
    let refs = [
        (52.00, 0.00),
        (51.46, 0.00),
        (52.95, 0.00),
        (52.00, 1.40),
        (52.00, -1.05),
    ];
    let even = CprFrame::surface(false, 105730, 9259);
    let odd = CprFrame::surface(true, 29693, 8997);
    for (rlat, rlon) in refs {
        assert_pos(local(even, rlat, rlon).unwrap(), 52.209984, 0.176601, 6);
        assert_pos(local(odd, rlat, rlon).unwrap(), 52.209976, 0.176507, 6);
    }
}

/// The surface ambiguity: 45° of arc is the most a reference may be off.
#[test]
fn test_surface_reference_too_far() {
    let even = TimedFrame::new(CprFrame::surface(false, 105730, 9259), 0);
    let odd = TimedFrame::new(CprFrame::surface(true, 29693, 8997), 1_000);
    let ambiguity_nm = 45.0 * 60.0;
    // FA accepts a reference at the south pole (52° of arc away)...
    let pole = Position::new(-90.0, 0.0);
    assert!(decode_global_surface(even, odd, Reference::aircraft(pole), false).is_ok());
    // ...which a 45° range limit rejects.
    let r = Reference::receiver(pole, ambiguity_nm);
    assert_eq!(
        decode_global_surface(even, odd, r, false),
        Err(CprError::OutOfRange)
    );
    // A realistic receiver range around Cambridge.
    let near = Reference::receiver(Position::new(52.0, 0.0), 50.0);
    assert!(decode_global_surface(even, odd, near, false).is_ok());
    let far = Reference::receiver(Position::new(51.0, 0.0), 50.0);
    assert_eq!(
        decode_global_surface(even, odd, far, false),
        Err(CprError::OutOfRange)
    );
}

/// §3.6: NL mismatch between the even and odd latitudes.
#[test]
fn test_zone_mismatch() {
    let even = CprFrame::airborne(false, 8192, 0);
    let odd = CprFrame::airborne(true, 114688, 0);
    let (_, lat_e, lat_o) = global_lats(even, odd, CprKind::Airborne);
    assert_dp(lat_e, 66.38, 2);
    assert_dp(lat_o, 66.36, 2);
    assert_eq!((nl(lat_e), nl(lat_o)), (23, 24));
    assert_eq!(air_pair(odd, even), Err(CprError::ZoneMismatch));
    assert_eq!(air_pair(even, odd), Err(CprError::ZoneMismatch));
}

/// §3.6: a surface frame paired with an airborne one.
#[test]
fn test_surface_airborne_mix() {
    let even = cpr("8F485A33397C737A27D1B18072CD");
    let odd = cpr("8D485A33581D663872E86A3BBFFF");
    assert_eq!(even, CprFrame::surface(false, 113939, 119217));
    assert_eq!(odd, CprFrame::airborne(true, 72761, 59498));
    // Odd newer.
    assert_eq!(air_pair(even, odd), Err(CprError::KindMismatch));
    assert_eq!(sfc_pair(even, odd, 52.3, 4.7), Err(CprError::KindMismatch));
    // Without the kind guard the pair lands at ≈ 113.22°, which the
    // latitude check rejects as well.
    let forced = CprFrame::airborne(false, even.lat(), even.lon());
    let (_, _, lat_o) = global_lats(forced, odd, CprKind::Airborne);
    assert_dp(lat_o, 113.22, 2);
    assert_eq!(air_pair(forced, odd), Err(CprError::InvalidLatitude));
}

/// §3.6 rs1090 regression (ICAO 3949E8): a pair decoding 500+ km away
/// 8 s after the previous fix must fail the speed check.
#[test]
fn test_rs1090_speed_regression() {
    let odd1 = cpr("8d3949e858ab05a2c11a30c334bf");
    let even1 = cpr("8d3949e858ab0211c74e97f9a5f3");
    let p0 = decode_global_airborne(at(odd1, 100_000), at(even1, 103_000)).unwrap();
    assert!(
        libm::fabs(p0.lat - 39.1) < 0.1 && libm::fabs(p0.lon - 36.4) < 0.1,
        "{p0:?}"
    );

    let even2 = cpr("8f3949e86cb503a343e9c6ecf4cd");
    let odd2 = cpr("8f3949e86cb5073d9daa5f6f9d4c");
    let p1 = decode_global_airborne(at(even2, 110_000), at(odd2, 111_000)).unwrap();
    let km = distance_nm(p0, p1) * 1.852;
    assert!(km > 500.0, "{km} km");
    let kmh = implied_speed_kt(p0, 103_000, p1, 111_000) * 1.852;
    assert!(kmh > 1200.0, "{kmh} km/h");
    assert_eq!(
        SpeedCheck::AIRBORNE.check(p0, 103_000, p1, 111_000),
        Err(CprError::SpeedExceeded)
    );
    // Local decoding from p0 cannot make the new frames plausible
    // either: it is either rejected or as far away.
    for f in [even2, odd2] {
        if let Ok(p) = decode_local(f, Reference::aircraft(p0)) {
            assert!(SpeedCheck::AIRBORNE.check(p0, 103_000, p, 111_000).is_err());
        }
    }
}

/// §3.6 large gap (ICAO 39C424): after 168 min the aircraft is
/// re-acquired ≈ 2900 km west by a fresh global pair. Post-gap frames
/// and their positions from rs1090 `cpr.rs`
/// `test_regression_position_decode_after_large_gap`.
#[test]
fn test_large_gap_reacquire() {
    // Times in ms from 1754260360.77 s.
    let odd_a = cpr("8d39c42469b974b6a05ab914104f");
    let even_b = cpr("8d39c42478b9713304a5e41f6bc1");
    let odd_c = cpr("8d39c42478b974b6325a6e2724f8");
    let p_b = decode_global_airborne(at(odd_a, 0), at(even_b, 930)).unwrap();
    assert_pos(p_b, 43.7989, 52.9452, 4);
    let p_c = decode_global_airborne(at(even_b, 930), at(odd_c, 1_970)).unwrap();
    assert_pos(p_c, 43.7975, 52.9425, 4);
    let p_a = local(odd_a, p_b.lat, p_b.lon).unwrap();
    assert_pos(p_a, 43.8001, 52.9474, 4);

    // 10 089.6 s later.
    let t0 = 10_091_570;
    let after = [
        ("8f39c42490c3746e522aed52d00d", 0, 43.3692, 26.4329),
        ("8f39c42490c3746e722ad4e90929", 490, 43.3700, 26.4313),
        ("8f39c42490c370ea0050448bbfd0", 1_530, 43.3711, 26.4288),
        ("8f39c42490c3746ebc2a9937916b", 1_970, 43.3717, 26.4274),
        ("8f39c42490c380ea3650192a742d", 2_460, 43.3723, 26.4260),
    ];
    // The stale pre-gap position must not be paired with new frames.
    let first = at(cpr(after[0].0), t0);
    assert_eq!(
        decode_global_airborne(at(even_b, 930), first),
        Err(CprError::AgeExceeded)
    );
    // Nor used as a local reference: after 168 min the aircraft may be
    // zones away, and local decoding would silently return a wrong
    // position within half a zone of the stale reference.
    let age = first.t_ms - 1_970;
    assert!(age > SpeedCheck::AIRBORNE.max_reference_age_ms(CprKind::Airborne));
    let stale = decode_local(first.frame, Reference::aircraft(p_c)).unwrap();
    assert!(distance_nm(stale, p_c) < 180.0);

    // Fresh global pair, then local decoding from it.
    let even = at(cpr(after[2].0), t0 + after[2].1);
    let odd = at(cpr(after[1].0), t0 + after[1].1);
    let p = decode_global_airborne(odd, even).unwrap();
    assert_pos(p, after[2].2, after[2].3, 4);
    // rs1090 says "~2,900 km west"; the great-circle distance between
    // its own before/after positions is 2127 km (26.5° of longitude
    // at 43.6°N).
    let km = distance_nm(p_c, p) * 1.852;
    assert!((2100.0..2200.0).contains(&km), "{km} km");
    assert!(p.lon < p_c.lon - 26.0);
    // 2900 km in 168 min is ≈ 560 kt: plausible.
    assert!(SpeedCheck::AIRBORNE.check(p_c, 1_970, p, even.t_ms).is_ok());
    assert!(distance_nm(stale, p) * 1.852 > 1500.0);
    let mut last = (p, even.t_ms);
    for (hex, dt, lat, lon) in after {
        let q = local(cpr(hex), last.0.lat, last.0.lon).unwrap();
        assert_pos(q, lat, lon, 4);
        SpeedCheck::AIRBORNE
            .check(last.0, last.1, q, t0 + dt)
            .unwrap();
        last = (q, t0 + dt);
    }
}

#[test]
fn test_pair_checks() {
    let even = CprFrame::airborne(false, 93000, 51372);
    let odd = CprFrame::airborne(true, 74158, 50194);
    assert!(decode_global_airborne(at(odd, 0), at(even, 10_000)).is_ok());
    assert_eq!(
        decode_global_airborne(at(odd, 0), at(even, 10_001)),
        Err(CprError::AgeExceeded)
    );
    assert_eq!(
        decode_global_airborne(at(odd, 5_000), at(even, 4_999)),
        Err(CprError::OutOfOrder)
    );
    assert_eq!(
        decode_global_airborne(at(even, 0), at(even, 1)),
        Err(CprError::SameFormat)
    );
    let s_even = CprFrame::surface(false, 115609, 116941);
    let s_odd = CprFrame::surface(true, 39199, 110269);
    let r = Reference::aircraft(Position::new(51.99, 4.375));
    assert_eq!(
        decode_global_airborne(at(s_even, 0), at(s_odd, 1)),
        Err(CprError::KindMismatch)
    );
    assert_eq!(
        decode_global_surface(at(even, 0), at(odd, 1), r, false),
        Err(CprError::KindMismatch)
    );
    assert!(decode_global_surface(at(s_even, 0), at(s_odd, 25_000), r, false).is_ok());
    assert_eq!(
        decode_global_surface(at(s_even, 0), at(s_odd, 25_001), r, false),
        Err(CprError::AgeExceeded)
    );
    assert!(decode_global_surface(at(s_even, 0), at(s_odd, 50_000), r, true).is_ok());
    assert_eq!(
        decode_global_surface(at(s_even, 0), at(s_odd, 50_001), r, true),
        Err(CprError::AgeExceeded)
    );
    let bad = Reference::aircraft(Position::new(f64::NAN, 0.0));
    assert_eq!(
        decode_global_surface(at(s_even, 0), at(s_odd, 1), bad, false),
        Err(CprError::InvalidPosition)
    );
    assert_eq!(decode_local(even, bad), Err(CprError::InvalidPosition));
    let bad = Reference::aircraft(Position::new(90.5, 0.0));
    assert_eq!(decode_local(even, bad), Err(CprError::InvalidPosition));
}

#[test]
fn test_local_rejections() {
    let even = CprFrame::airborne(false, 93000, 51372); // 52.2572, 3.9194
    // A reference more than half a zone (3°) away picks another zone:
    // still half a zone from the reference, so accepted but wrong;
    // exactly the ambiguity a receiver range limit catches.
    let p = local(even, 48.0, 3.9).unwrap();
    assert_dp(p.lat, 46.2572, 4);
    let r = Reference::receiver(Position::new(48.0, 3.9), 250.0);
    assert!(decode_local(even, r).is_ok());
    let r = Reference::receiver(Position::new(50.0, 3.9), 120.0);
    assert_eq!(decode_local(even, r), Err(CprError::OutOfRange));
    let r = Reference::receiver(Position::new(50.0, 3.9), 150.0);
    assert!(decode_local(even, r).is_ok());
    // Reference near the pole: the decoded latitude would pass 90°.
    let top = CprFrame::airborne(false, 13107, 0); // 0.1 zone
    assert_eq!(local(top, 89.9, 0.0), Err(CprError::InvalidLatitude));
    // Longitude wraps across the antimeridian.
    let f = CprFrame::encode(CprKind::Airborne, true, Position::new(10.0, -179.999)).unwrap();
    let p = local(f, 10.0, 179.99).unwrap();
    assert_dp(p.lon, -179.999, 4);
    let p = local(f, 10.0, 540.0 - 0.01).unwrap();
    assert_dp(p.lon, -179.999, 4);
}
