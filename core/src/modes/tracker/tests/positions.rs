//! Positions: airborne and surface pairs, local decoding, re-acquisition.

use super::*;

/// vectors.md §3.1: the Riddle pair, global (even newer), altitude.
#[test]
fn test_riddle_airborne_pair() {
    let mut tr = tracker();
    let t0 = 1_457_996_400_000;
    let r = feed(&mut tr, "8D40621D58C386435CC412692AD6", t0).unwrap(); // odd
    assert!(r.new_aircraft);
    assert_eq!(r.position, PositionUpdate::Pending);
    let r = feed(&mut tr, "8D40621D58C382D690C8AC2863A7", t0 + 2_000).unwrap(); // even
    assert_eq!(r.position, PositionUpdate::Decoded(PositionSource::Global));
    let ac = tr.get(0x40621D).unwrap();
    let fix = ac.position().unwrap();
    assert_eq!(
        fix.position,
        Position::new(52.2572021484375, 3.91937255859375)
    );
    assert_eq!(
        (fix.t_ms, fix.source, fix.kind),
        (t0 + 2_000, PositionSource::Global, CprKind::Airborne)
    );
    assert_eq!(ac.altitude_baro_ft(), Some(38_000));
    assert_eq!(ac.on_ground(), Some(false));
    assert_eq!(ac.address_type(), AddressType::AdsbIcao);
    assert_eq!(ac.messages(), 2);
    assert_eq!(ac.nuc_p(), Some(7)); // TC 11
    assert_eq!(tr.stats().positions_global, 1);
}

/// vectors.md §3.1 local: the even message alone, relative to the
/// receiver at (52.258, 3.918).
#[test]
fn test_riddle_local_receiver() {
    let mut cfg = TrackerConfig::with_receiver(Position::new(52.258, 3.918));
    cfg.receiver_local_range_nm = 180.0;
    let mut tr = T16::new(cfg);
    let r = feed(&mut tr, "8D40621D58C382D690C8AC2863A7", 0).unwrap();
    assert_eq!(
        r.position,
        PositionUpdate::Decoded(PositionSource::LocalReceiver)
    );
    let fix = pos_of(&tr, 0x40621D).unwrap();
    assert_eq!(
        fix.position,
        Position::new(52.2572021484375, 3.91937255859375)
    );
    // Disabled by default: a single frame gives no position.
    let mut tr = T16::new(TrackerConfig::with_receiver(Position::new(52.258, 3.918)));
    let r = feed(&mut tr, "8D40621D58C382D690C8AC2863A7", 0).unwrap();
    assert_eq!(r.position, PositionUpdate::Pending);
}

/// vectors.md §3.2 (pyModeS / rs1090 pair) and §3.4 (rs1090 second
/// pair): both orders, and local relative to the receiver.
#[test]
fn test_published_pairs() {
    // (even, odd, odd-newer result, even-newer result, tolerance)
    let cases = [
        (
            "8D40058B58C901375147EFD09357",
            "8D40058B58C904A87F402D3B8C59",
            (49.81755143505031, 6.084421518686655),
            (49.8240966796875, 6.067850213301809),
            1e-9,
        ),
        (
            "8d4d224f58bf003b221b34aa5b8d",
            "8d4d224f58bf07c2d41a9a353d70",
            (42.34736, 0.43498),
            (42.34648, 0.43471),
            5e-6,
        ),
    ];
    for (even, odd, odd_newer, even_newer, tol) in cases {
        let key = addr_of(even);
        let mut tr = tracker();
        feed(&mut tr, even, 0).unwrap();
        feed(&mut tr, odd, 1_000).unwrap();
        assert_pos(pos_of(&tr, key), odd_newer.0, odd_newer.1, tol);
        let mut tr = tracker();
        feed(&mut tr, odd, 0).unwrap();
        feed(&mut tr, even, 1_000).unwrap();
        assert_pos(pos_of(&tr, key), even_newer.0, even_newer.1, tol);
    }
    // §3.2 local with reference (49.0, 6.0).
    let mut cfg = TrackerConfig::with_receiver(Position::new(49.0, 6.0));
    cfg.receiver_local_range_nm = 180.0;
    for (h, lat, lon) in [
        ("8D40058B58C901375147EFD09357", 49.82410, 6.06785),
        ("8D40058B58C904A87F402D3B8C59", 49.81755, 6.08442),
    ] {
        let mut tr = T16::new(cfg);
        feed(&mut tr, h, 0).unwrap();
        assert_pos(pos_of(&tr, 0x40058B), lat, lon, 5e-6);
    }
}

/// vectors.md §3.3: reference on a zone edge (receiver-relative).
#[test]
fn test_zone_edge_reference() {
    let mut cfg =
        TrackerConfig::with_receiver(Position::new(30.508474576271183, 36.000000000000003));
    cfg.receiver_local_range_nm = 180.0;
    let mut tr = T16::new(cfg);
    feed(&mut tr, "8D06A15358BF17FF7D4A84B47B95", 0).unwrap();
    assert_pos(pos_of(&tr, 0x06A153), 30.50540, 33.44787, 1e-5);
}

/// vectors.md §3.6: the NL-mismatch pair and the surface/airborne
/// cross pair give no position.
#[test]
fn test_negative_pairs() {
    let mut tr = tracker();
    let a = 0x123456;
    feed_bytes(&mut tr, &df17(a, airborne_raw(true, 114688, 0, 0xC38)), 0).unwrap();
    let r = feed_bytes(
        &mut tr,
        &df17(a, airborne_raw(false, 8192, 0, 0xC38)),
        1_000,
    )
    .unwrap();
    assert_eq!(r.position, PositionUpdate::Pending);
    assert!(pos_of(&tr, a).is_none());

    for cfg in [
        TrackerConfig::DEFAULT,
        TrackerConfig::with_receiver(Position::new(52.0, 4.0)),
    ] {
        let mut tr = T16::new(cfg);
        feed(&mut tr, "8F485A33397C737A27D1B18072CD", 0).unwrap(); // surface even
        let r = feed(&mut tr, "8D485A33581D663872E86A3BBFFF", 1_000).unwrap(); // airborne odd
        assert_eq!(r.position, PositionUpdate::Pending);
        assert!(pos_of(&tr, 0x485A33).is_none());
    }
}

/// vectors.md §3.6, rs1090 regression 3949E8: the later pair decodes
/// 835 km away. Its altitude (35 000 ft against 33 000 ft 7 s before)
/// already rejects it; with the altitude made equal, the CPR checks
/// reject it. Either way the first position is kept.
#[test]
fn test_rs1090_3949e8() {
    let real = (39.10414123535156, 36.41866269318954);
    let phantoms = [
        "8f3949e86cb503a343e9c6ecf4cd",
        "8f3949e86cb5073d9daa5f6f9d4c",
    ];
    let start = |tr: &mut T16| {
        feed(tr, "8d3949e858ab05a2c11a30c334bf", 100_000).unwrap(); // odd
        let r = feed(tr, "8d3949e858ab0211c74e97f9a5f3", 103_000).unwrap(); // even
        assert_eq!(r.position, PositionUpdate::Decoded(PositionSource::Global));
        assert_pos(pos_of(tr, 0x3949E8), real.0, real.1, 1e-9);
    };
    let mut tr = tracker();
    start(&mut tr);
    for (i, h) in phantoms.iter().enumerate() {
        let t = 110_000 + 1_000 * i as u64;
        assert_eq!(feed(&mut tr, h, t), Err(RejectReason::AltitudeJump));
    }
    assert_pos(pos_of(&tr, 0x3949E8), real.0, real.1, 1e-9);
    assert_eq!(tr.get(0x3949E8).unwrap().altitude_baro_ft(), Some(33_000));
    assert_eq!(tr.stats().rejected_altitude, 2);

    // The same phantoms with the real altitude: the CPR checks.
    let mut tr = tracker();
    start(&mut tr);
    let mut reasons = Vec::new();
    for (i, h) in phantoms.iter().enumerate() {
        let mut b = hex(h);
        let mut me = [0u8; 7];
        me.copy_from_slice(&b[4..11]);
        let AdsbRepr::AirbornePosition(mut p) = AdsbRepr::from_bytes(&me) else {
            panic!()
        };
        p.altitude_code = 2736; // 33 000 ft
        b[4..11].copy_from_slice(&AdsbRepr::AirbornePosition(p).to_bytes());
        Frame::new_unchecked(&mut b[..]).fill_parity(0);
        let r = feed_bytes(&mut tr, &b, 110_000 + 1_000 * i as u64).unwrap();
        let PositionUpdate::Rejected(e) = r.position else {
            panic!("{r:?}")
        };
        reasons.push(e);
    }
    assert!(reasons.contains(&CprError::SpeedExceeded), "{reasons:?}");
    assert_pos(pos_of(&tr, 0x3949E8), real.0, real.1, 1e-9);
    // The global pair (had it been formed) is 835 km away: far above
    // the 650 kt limit in 8 s.
    let e = TimedFrame::new(CprFrame::airborne(false, 119201, 125382), 110_000);
    let o = TimedFrame::new(CprFrame::airborne(true, 106190, 109151), 111_000);
    let far = cpr::decode_global_airborne(e, o).unwrap();
    assert!(cpr::distance_nm(far, Position::new(real.0, real.1)) * 1.852 > 500.0);
    assert_eq!(
        SpeedCheck::AIRBORNE.check(Position::new(real.0, real.1), 103_000, far, 111_000),
        Err(CprError::SpeedExceeded)
    );
}

/// vectors.md §3.6, large gap (39C424): three positions, then after
/// 168 min a new global fix ≈ 2900 km west.
#[test]
fn test_large_gap_reacquire() {
    let frames = [
        ("8d39c42469b974b6a05ab914104f", None),
        ("8d39c42478b9713304a5e41f6bc1", Some((43.7989, 52.9452))),
        ("8d39c42478b974b6325a6e2724f8", Some((43.7975, 52.9425))),
    ];
    let west = Position::new(44.0, 16.8);
    let gap = 168 * 60_000;
    let long = TrackerConfig {
        expiry_ms: 4 * 3_600_000,
        stale_ms: 4 * 3_600_000,
        ..TrackerConfig::DEFAULT
    };
    for cfg in [TrackerConfig::DEFAULT, long] {
        let mut tr = T16::new(cfg);
        let mut last = None;
        for (i, (h, expect)) in frames.iter().enumerate() {
            feed(&mut tr, h, 1_000 * i as u64).unwrap();
            if let Some((lat, lon)) = expect {
                assert_pos(pos_of(&tr, 0x39C424), *lat, *lon, 5e-5);
                last = pos_of(&tr, 0x39C424);
            }
        }
        // The first odd frame is (43.8001, 52.9474) by local decoding
        // from the second fix.
        let first = cpr::decode_local(
            CprFrame::airborne(true, 23376, 23225),
            Reference::aircraft(last.unwrap().position),
        )
        .unwrap();
        assert_close(first.lat, 43.8001, 5e-5);
        assert_close(first.lon, 52.9474, 5e-5);

        let t = 2_000 + gap;
        let e = feed_bytes(&mut tr, &df17(0x39C424, airborne_me(false, west, 2967)), t).unwrap();
        // Never local from a 168-min-old reference.
        assert_eq!(e.position, PositionUpdate::Pending);
        assert_eq!(e.new_aircraft, cfg.expiry_ms < gap);
        let o = feed_bytes(
            &mut tr,
            &df17(0x39C424, airborne_me(true, west, 2967)),
            t + 1_000,
        );
        assert_eq!(
            o.unwrap().position,
            PositionUpdate::Decoded(PositionSource::Global)
        );
        let fix = pos_of(&tr, 0x39C424).unwrap();
        assert!(cpr::distance_nm(fix.position, west) < 0.01);
        let km = cpr::distance_nm(fix.position, last.unwrap().position) * 1.852;
        assert!((2_850.0..2_950.0).contains(&km), "{km}");
    }
}

// ------------------------------------------------------- §4 surface

/// vectors.md §4.1: the Riddle surface pair (odd newer) with the
/// receiver at (51.990, 4.375), then the local message relative to it.
#[test]
fn test_riddle_surface() {
    let mut tr = T16::new(TrackerConfig::with_receiver(Position::new(51.990, 4.375)));
    let t0 = 1_457_996_410_000;
    feed(&mut tr, "8C4841753AAB238733C8CD4020B1", t0).unwrap(); // even
    let r = feed(&mut tr, "8C4841753A8A35323FAEBDAC702D", t0 + 2_000).unwrap(); // odd
    assert_eq!(r.position, PositionUpdate::Decoded(PositionSource::Global));
    let ac = tr.get(0x484175).unwrap();
    assert_pos(ac.position(), 52.320607, 4.734735, 5e-7);
    assert_close(ac.position().unwrap().position.lon, 4.734734671456474, 1e-9);
    assert_eq!(ac.position().unwrap().kind, CprKind::Surface);
    assert_eq!(ac.on_ground(), Some(true));
    // 55 s after the even frame: beyond the 50 s slow-surface pair
    // window, so local relative to the fix.
    let r = feed(&mut tr, "8C4841753A9A153237AEF0F275BE", t0 + 55_000).unwrap();
    assert_eq!(
        r.position,
        PositionUpdate::Decoded(PositionSource::LocalAircraft)
    );
    assert_pos(
        pos_of(&tr, 0x484175),
        52.32056051997815,
        4.735735212053571,
        1e-9,
    );
    // §6.4.3: movement 41 → 17 kt, track 33 → 92.8125°.
    let ac = tr.get(0x484175).unwrap();
    assert_eq!(ac.ground_speed_kt(), Some(17.0));
    assert_eq!(ac.track_deg(), Some(92.8125));
}

/// vectors.md §4.2: the Toulouse DF18 pair with several receiver
/// positions, the local decode, São Paulo and the zone mismatch.
#[test]
fn test_surface_pairs() {
    let even = "903a23ff426a38565950432ebf95";
    let odd = "903a23ff426a4e65f7487a775d17";
    let odd_newer = [
        ((43.63, 1.37), (43.62646, 1.37476)),
        ((-43.5, 1.37), (-46.37354, 1.44350)),
        ((43.63, -178.63), (43.62646, -178.62524)),
        ((43.63, 91.37), (43.62646, 91.37476)),
    ];
    for ((rlat, rlon), (lat, lon)) in odd_newer {
        let mut tr = T16::new(TrackerConfig::with_receiver(Position::new(rlat, rlon)));
        feed(&mut tr, even, 0).unwrap();
        feed(&mut tr, odd, 1_000).unwrap();
        assert_pos(pos_of(&tr, 0x3A23FF), lat, lon, 5e-6);
        let ac = tr.get(0x3A23FF).unwrap();
        assert_eq!(ac.address_type(), AddressType::AdsbIcaoNonTransponder);
    }
    let rx = TrackerConfig::with_receiver(Position::new(43.63, 1.37));
    let mut tr = T16::new(rx);
    feed(&mut tr, odd, 0).unwrap();
    feed(&mut tr, even, 1_000).unwrap();
    assert_pos(pos_of(&tr, 0x3A23FF), 43.62648, 1.37462, 5e-6);
    // Local, odd, relative to the receiver.
    let mut tr = T16::new(TrackerConfig {
        receiver_local_range_nm: 40.0,
        ..rx
    });
    feed(&mut tr, odd, 0).unwrap();
    assert_pos(pos_of(&tr, 0x3A23FF), 43.62646, 1.37476, 5e-6);

    // São Paulo: needs a reference; none without a receiver.
    let sp = [
        ("8FE48C033A9FA184B934E744C6FD", 1_565_608_663_102),
        ("8FE48C033A9FA68F7C3D39B1C2F0", 1_565_608_666_214),
    ];
    let mut tr = tracker();
    for (h, t) in sp {
        assert_eq!(
            feed(&mut tr, h, t).unwrap().position,
            PositionUpdate::Pending
        );
    }
    let mut tr = T16::new(TrackerConfig::with_receiver(Position::new(-23.43, -46.47)));
    for (h, t) in sp {
        feed(&mut tr, h, t).unwrap();
    }
    assert_pos(pos_of(&tr, 0xE48C03), -23.4265448, -46.4816258, 0.05);

    // Zone mismatch (28672, 0, 122880, 0), reference (50, 0), even
    // newer: no position.
    let mut tr = T16::new(TrackerConfig::with_receiver(Position::new(50.0, 0.0)));
    feed_bytes(&mut tr, &df17(0x777777, surface_raw(true, 122880, 0)), 0).unwrap();
    let r = feed_bytes(
        &mut tr,
        &df17(0x777777, surface_raw(false, 28672, 0)),
        1_000,
    )
    .unwrap();
    assert_eq!(r.position, PositionUpdate::Pending);
}

/// vectors.md §4.3: the surface movement field sets the ground speed
/// (code 0: not available).
#[test]
fn test_surface_movement() {
    let cases = [
        ("8c3944f8400002acb23cda192b95", None),
        ("903a33ff40100858d34ff3cce976", Some(0.0)),
        ("8c394c0f389b1667e947db7bb8bc", Some(1.0)),
        ("8c3461cf398d60597b4ea434c4d7", Some(7.5)),
        ("8c3461cf399d6059814ea81483a9", Some(8.0)),
        ("8c3461cf3a7f3059c94e5bf4e169", Some(15.0)),
        ("8c3950cf3dede47bac304d3b5122", Some(70.0)),
        ("8c3933203edde47b9e2ffa5e77b8", Some(100.0)),
        ("8d3933203fcde2a84e39e1c6c5bc", Some(175.0)),
    ];
    for (h, kt) in cases {
        let mut tr = tracker();
        let r = feed(&mut tr, h, 0).unwrap();
        let ac = tr.get(r.key).unwrap();
        assert_eq!(ac.ground_speed_kt(), kt, "{h}");
        assert_eq!(ac.on_ground(), Some(true), "{h}");
    }
}
