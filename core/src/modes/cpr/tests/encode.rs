//! Encoding: published vectors and round trips through every decoder.

use super::*;

#[test]
fn test_encode_vectors() {
    // Riddle §5: the even/odd frames of 8D40621D… re-encoded from the
    // decoded positions.
    let e = CprFrame::encode(
        CprKind::Airborne,
        false,
        Position::new(52.2572021484375, 3.91937255859375),
    );
    assert_eq!(e, Ok(CprFrame::airborne(false, 93000, 51372)));
    let odd = CprFrame::airborne(true, 74158, 50194);
    let p = air_pair(CprFrame::airborne(false, 93000, 51372), odd).unwrap();
    assert_eq!(CprFrame::encode(CprKind::Airborne, true, p), Ok(odd));
    // Surface, Riddle §6: odd frame from its decoded position.
    let sodd = CprFrame::surface(true, 39199, 110269);
    let p = Position::new(52.320607072215964, 4.734734671456474);
    assert_eq!(CprFrame::encode(CprKind::Surface, true, p), Ok(sodd));
    // Poles and the equator.
    let n = CprFrame::encode(CprKind::Airborne, false, Position::new(90.0, 0.0)).unwrap();
    assert_eq!((n.lat(), n.lon()), (0, 0));
    let s = CprFrame::encode(CprKind::Surface, true, Position::new(-90.0, -180.0)).unwrap();
    assert_eq!((s.lat(), s.lon()), (0, 0));
    assert_eq!(
        CprFrame::encode(CprKind::Airborne, false, Position::new(90.1, 0.0)),
        Err(CprError::InvalidPosition)
    );
    assert_eq!(
        CprFrame::encode(CprKind::Airborne, false, Position::new(0.0, f64::INFINITY)),
        Err(CprError::InvalidPosition)
    );
}

/// Decoded minus true position within half a CPR unit in each axis.
#[track_caller]
fn assert_within_resolution(kind: CprKind, odd: bool, got: Position, truth: Position) {
    let dlat = kind.lat_zone(odd);
    let dlon = kind.lon_zone(odd, got.lat);
    let unit = 0.5 / CPR_SCALE * (1.0 + 1e-6);
    let dl = libm::fabs(got.lat - truth.lat);
    let dn = libm::fabs(wrap180(got.lon - truth.lon));
    assert!(dl <= dlat * unit + 1e-12, "lat {got:?} vs {truth:?}");
    assert!(dn <= dlon * unit + 1e-12, "lon {got:?} vs {truth:?}");
    // In metres: half the ≈ 5 m (airborne) / 1.25 m (surface) unit in
    // each axis: at most 4.08 m / 1.02 m up to 80° of latitude (up to
    // 6.2 m / 1.55 m at 86.5°, where NL drops to 2 and 1).
    if libm::fabs(truth.lat) <= 80.0 {
        let m = distance_nm(got, truth) * 1852.0;
        let limit = match kind {
            CprKind::Airborne => 4.1,
            CprKind::Surface => 1.03,
        };
        assert!(m <= limit, "{m} m: {got:?} vs {truth:?}");
    }
}

/// One round trip: encode both formats, decode globally with each
/// newer, and locally from a nearby reference.
fn round_trip(kind: CprKind, truth: Position, ref_offset: (f64, f64)) {
    let even = CprFrame::encode(kind, false, truth).unwrap();
    let odd = CprFrame::encode(kind, true, truth).unwrap();
    // A boundary within one CPR unit may put the two frames in
    // different NL zones: then ZoneMismatch is the right answer.
    let d = kind.lat_zone(true) / CPR_SCALE;
    let near_boundary = nl(truth.lat - d) != nl(truth.lat + d);
    let r = Reference::aircraft(Position::new(
        (truth.lat + ref_offset.0).clamp(-90.0, 90.0),
        truth.lon + ref_offset.1,
    ));
    for (older, newer) in [(even, odd), (odd, even)] {
        let got = match kind {
            CprKind::Airborne => decode_global_airborne(at(older, 0), at(newer, 1)),
            CprKind::Surface => decode_global_surface(at(older, 0), at(newer, 1), r, false),
        };
        match got {
            Ok(p) => assert_within_resolution(kind, newer.odd(), p, truth),
            Err(e) => {
                assert_eq!(e, CprError::ZoneMismatch, "{truth:?}");
                assert!(near_boundary, "{truth:?}");
            }
        }
    }
    for f in [even, odd] {
        let p = decode_local(f, r).unwrap();
        assert_within_resolution(kind, f.odd(), p, truth);
    }
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn prop_round_trip_airborne(
        lat in -90.0f64..=90.0,
        lon in -180.0f64..180.0,
        dlat in -1.0f64..1.0,
        dlon in -1.0f64..1.0,
    ) {
        // Local references within 1°: well inside half a zone
        // (3° of latitude, ≥ 3° of longitude).
        round_trip(CprKind::Airborne, Position::new(lat, lon), (dlat, dlon));
    }

    #[test]
    fn prop_round_trip_surface(
        lat in -90.0f64..=90.0,
        lon in -180.0f64..180.0,
        dlat in -0.25f64..0.25,
        dlon in -0.25f64..0.25,
    ) {
        round_trip(CprKind::Surface, Position::new(lat, lon), (dlat, dlon));
    }

    /// No input panics; results are always in range.
    #[test]
    fn prop_decode_any_fields(
        el in 0u32..1 << 17, eo in 0u32..1 << 17,
        ol in 0u32..1 << 17, oo in 0u32..1 << 17,
        rlat in -90.0f64..=90.0, rlon in -1000.0f64..1000.0,
        surface: bool, slow: bool,
    ) {
        let kind = if surface { CprKind::Surface } else { CprKind::Airborne };
        let even = CprFrame::new(kind, false, el, eo);
        let odd = CprFrame::new(kind, true, ol, oo);
        let r = Reference::receiver(Position::new(rlat, rlon), 500.0);
        let ok = |p: Position| {
            libm::fabs(p.lat) <= 90.0 && (-180.0..180.0).contains(&p.lon)
        };
        let results = [
            decode_global_airborne(at(even, 0), at(odd, 1)),
            decode_global_airborne(at(odd, 0), at(even, 1)),
            decode_global_surface(at(even, 0), at(odd, 1), r, slow),
            decode_global_surface(at(odd, 0), at(even, 1), r, slow),
            decode_local(even, r),
            decode_local(odd, r),
        ];
        for p in results.into_iter().flatten() {
            prop_assert!(ok(p), "{:?}", p);
        }
    }
}

/// A dense deterministic sweep of the round trip (heavy: not under
/// miri).
#[test]
#[cfg_attr(miri, ignore)]
fn test_round_trip_sweep() {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..20_000 {
        let p = Position::new(next() * 180.0 - 90.0, next() * 360.0 - 180.0);
        let off = (next() - 0.5, next() - 0.5);
        round_trip(CprKind::Airborne, p, off);
        round_trip(CprKind::Surface, p, (off.0 / 4.0, off.1 / 4.0));
    }
    // Every NL transition, just inside and outside.
    for &t in &NL_TRANSITIONS {
        for d in [-2e-5, -1e-6, 0.0, 1e-6, 2e-5] {
            for lon in [-180.0, -0.001, 0.0, 33.3, 179.9999] {
                round_trip(CprKind::Airborne, Position::new(t + d, lon), (0.1, 0.1));
                round_trip(
                    CprKind::Surface,
                    Position::new(-(t + d), lon),
                    (0.01, -0.01),
                );
            }
        }
    }
}
