//! Field values: identification, altitudes, velocities, status.

use super::*;

/// vectors.md §2: callsigns and categories.
#[test]
fn test_identification() {
    let cases = [
        (
            "8D4840D6202CC371C32CE0576098",
            NON_ICAO - NON_ICAO + 0x4840D6,
            "KLM1023",
            (4, 0),
            AddressType::AdsbIcao,
        ),
        (
            "8D406B902015A678D4D220AA4BDA",
            0x406B90,
            "EZY85MH",
            (4, 0),
            AddressType::AdsbIcao,
        ),
        (
            "8da3f9cb213b3d75c1582080f4d9",
            0xA3F9CB,
            "N3550U",
            (4, 1),
            AddressType::AdsbIcao,
        ),
        (
            "8f4d20232004d0f4cb1820000d24",
            0x4D2023,
            "AMC421",
            (4, 0),
            AddressType::AdsbIcao,
        ),
        (
            "8d4d20232004d0f4cb1820b0efd4",
            0x4D2023,
            "AMC421",
            (4, 0),
            AddressType::AdsbIcao,
        ),
        (
            "96A082FB213B1CF2113820D6EDDF",
            0xA082FB,
            "N132DS",
            (4, 1),
            AddressType::AdsR,
        ),
    ];
    for (h, key, cs, (tc, ca), ty) in cases {
        let mut tr = tracker();
        feed(&mut tr, h, 0).unwrap();
        let ac = tr.get(key).unwrap();
        assert_eq!(ac.callsign(), Some(cs), "{h}");
        let cat = ac.category().unwrap();
        assert_eq!((cat.type_code(), cat.ca()), (tc, ca), "{h}");
        assert_eq!(ac.address_type(), ty);
    }
}

/// vectors.md §3.7: altitudes, including TIS-B (non-ICAO, keyed apart)
/// and ADS-R.
#[test]
fn test_altitudes() {
    let cases = [
        ("8d484fde5803b647ecec4fcdd74f", -325),
        ("8d4845575803c647bcec2a980abc", -300),
        ("8d3424d25803d64c18ee03351f89", -275),
        ("8d4401e458058645a8ea90496290", 0),
        ("8d346355580596459cea86756acc", 25),
        ("8d3463555805a64584ea756d352e", 50),
        ("8d3463555805c2d9f6f0f3f1b6c3", 100),
        ("8d346355580b064116e70a269f97", 1000),
        ("8d343386581f06318ad4fecab734", 5000),
        ("8da2c1bd587ba2adb31799cb802b", 23650),
        ("95298FCA680946499671468C7ACA", 700),
        ("96130D9D910F86188A7A71EF6DCB", 2000),
    ];
    let mut tr = tracker();
    for (h, alt) in cases {
        let mut one = tracker();
        let r = feed(&mut one, h, 0).unwrap();
        assert_eq!(one.get(r.key).unwrap().altitude_baro_ft(), Some(alt), "{h}");
        feed(&mut tr, h, 0).ok();
    }
    // An altitude field of 0 is "not available", not −1000 ft.
    let me = airborne_raw(false, 0, 0, 0);
    feed_bytes(&mut tr, &df17(0x654321, me), 0).unwrap();
    assert_eq!(tr.get(0x654321).unwrap().altitude_baro_ft(), None);
    let tisb = tr.get(0x298FCA | NON_ICAO).unwrap();
    assert_eq!(
        (tisb.address_type(), tisb.address()),
        (AddressType::TisbOther, 0x298FCA)
    );
    assert!(tr.get(0x298FCA).is_none());
    assert!(!tr.is_known(0x298FCA, 0)); // non-ICAO: no AP acceptance
    assert_eq!(tr.get(0x130D9D).unwrap().address_type(), AddressType::AdsR);
    assert_eq!(tr.len(), 10); // 346355 four times, 654321
}

/// vectors.md §5: airborne velocities.
#[test]
fn test_velocities() {
    struct V {
        h: &'static str,
        gs: Option<f32>,
        track: Option<f32>,
        rate: Option<(bool, i32)>, // (baro, ft/min)
        diff: Option<i32>,
    }
    let g = |h, gs, track, rate, diff| V {
        h,
        gs: Some(gs),
        track: Some(track),
        rate,
        diff,
    };
    let cases = [
        g(
            "8D485020994409940838175B284F",
            159.20,
            182.88,
            Some((false, -832)),
            Some(550),
        ),
        g(
            "8da3d42599250129780484712c50",
            417.6554,
            322.1972,
            None,
            None,
        ),
        g(
            "8dac8e1a9924263950043944cf32",
            458.50,
            355.37,
            Some((true, 0)),
            Some(1400),
        ),
        g(
            "8da3f9cb9910100da8148571db11",
            109.04,
            7.91,
            Some((false, -256)),
            Some(-100),
        ),
        g(
            "96A6C24699141E0E8018074AA959",
            118.0,
            346.0,
            Some((false, 320)),
            Some(150),
        ),
        g(
            "92A24528993C238900062053CDEF",
            78.0,
            206.0,
            Some((false, 0)),
            Some(775),
        ),
    ];
    for v in cases {
        let mut tr = tracker();
        let r = feed(&mut tr, v.h, 0).unwrap();
        let ac = tr.get(r.key).unwrap();
        // dump1090-fa / adsb_deku print whole numbers for the DF18 rows.
        let tol = if v.h.starts_with('9') { 1.0 } else { 0.01 };
        assert_close(
            f64::from(ac.ground_speed_kt().unwrap()),
            f64::from(v.gs.unwrap()),
            tol,
        );
        assert_close(
            f64::from(ac.track_deg().unwrap()),
            f64::from(v.track.unwrap()),
            tol,
        );
        match v.rate {
            Some((true, r)) => assert_eq!(ac.vertical_rate_baro_fpm(), Some(r), "{}", v.h),
            Some((false, r)) => assert_eq!(ac.vertical_rate_gnss_fpm(), Some(r), "{}", v.h),
            None => {
                let r = ac.vertical_rate_baro_fpm().or(ac.vertical_rate_gnss_fpm());
                assert_eq!(r, Some(0), "{}", v.h);
            }
        }
        if v.diff.is_some() {
            assert_eq!(ac.gnss_baro_diff_ft(), v.diff, "{}", v.h);
        }
    }
    let mut tr = tracker();
    assert_eq!(
        feed(&mut tr, "96A6C24699141E0E8018074AA959", 0)
            .unwrap()
            .key,
        0xA6C246
    );
    assert_eq!(tr.get(0xA6C246).unwrap().address_type(), AddressType::AdsR);
    let r = feed(&mut tr, "92A24528993C238900062053CDEF", 0).unwrap();
    assert_eq!(tr.get(r.key).unwrap().address_type(), AddressType::TisbIcao);

    // Airspeed subtypes.
    let mut tr = tracker();
    feed(&mut tr, "8DA05F219B06B6AF189400CBC33F", 0).unwrap();
    let ac = tr.get(0xA05F21).unwrap();
    assert_close(f64::from(ac.heading_deg().unwrap()), 243.98, 0.01);
    assert_eq!((ac.tas_kt(), ac.ias_kt()), (Some(375), None));
    assert_eq!(ac.vertical_rate_baro_fpm(), Some(-2304));
    assert_eq!((ac.gnss_baro_diff_ft(), ac.ground_speed_kt()), (None, None));
    feed(&mut tr, "8DA35EBC9B000024B00C0004E897", 0).unwrap();
    let ac = tr.get(0xA35EBC).unwrap();
    assert_eq!((ac.ias_kt(), ac.heading_deg()), (Some(292), None));
    assert_eq!(
        (ac.vertical_rate_baro_fpm(), ac.nac_v()),
        (Some(128), Some(0))
    );
    // pyModeS' 8D4841409B04000CA04400000000 has a zero parity field:
    // rejected as is, decoded once the parity is filled in.
    assert_eq!(
        feed(&mut tr, "8D4841409B04000CA04400000000", 0),
        Err(RejectReason::Crc)
    );
    let mut b = hex("8D4841409B04000CA04400000000");
    Frame::new_unchecked(&mut b[..]).fill_parity(0);
    feed_bytes(&mut tr, &b, 0).unwrap();
    let ac = tr.get(0x484140).unwrap();
    assert_eq!((ac.ias_kt(), ac.heading_deg()), (Some(100), Some(0.0)));
    assert_eq!(
        ac.vertical_rate_baro_fpm().or(ac.vertical_rate_gnss_fpm()),
        Some(1024)
    );
    // Vertical-rate-only rows.
    for (h, vr) in [
        ("8d3461cf9908388930080f948ea1", 64),
        ("8d3461cf9908558e100c1071eb67", 128),
        ("8d3461cf99085a8f10400f80e6ac", 960),
        ("8d394c0f990c4932780838866883", -64),
    ] {
        let mut tr = tracker();
        let r = feed(&mut tr, h, 0).unwrap();
        let ac = tr.get(r.key).unwrap();
        assert_eq!(
            ac.vertical_rate_baro_fpm().or(ac.vertical_rate_gnss_fpm()),
            Some(vr),
            "{h}"
        );
    }
}

/// vectors.md §6: TC 28, 29 and 31 fields.
#[test]
fn test_status() {
    let mut tr = tracker();
    for (h, squawk) in [
        ("8DA2C1B6E112B600000000760759", 0x6513),
        ("8dc06800e1108500000000baa81f", 0x4016),
    ] {
        let r = feed(&mut tr, h, 0).unwrap();
        let ac = tr.get(r.key).unwrap();
        assert_eq!(
            (ac.squawk(), ac.emergency()),
            (Some(squawk), Some(EmergencyState::None))
        );
    }
    // TC 29 (version 2): NACp, NICbaro, SIL.
    for (h, nac_p, sil) in [
        ("8da08f94ea1b785e8f3c088ab467", 9, 3),
        ("8dab3d17ea486860015f4870b796", 10, 3),
        ("8da97753ea2d0858015c003ee5de", 10, 3),
        ("8dad50a9ea466867811c08abbaa2", 8, 3),
    ] {
        let r = feed(&mut tr, h, 0).unwrap();
        let ac = tr.get(r.key).unwrap();
        assert_eq!(ac.nac_p(), Some(nac_p), "{h}");
        assert_eq!(ac.sil(), Some(sil), "{h}");
        if nac_p != 8 {
            assert_eq!(ac.nic_baro(), Some(true), "{h}");
        }
    }
    // adsb_deku prints "per sample" for A97753, but its SIL supplement
    // bit (ME bit 8) is 0: per hour.
    assert_eq!(tr.get(0xA97753).unwrap().sil_per_sample(), Some(false));
    feed(&mut tr, "8DA05629EA21485CBF3F8CADAEEB", 0).unwrap();
    // TC 31: (hex, version, NIC-A, NACp, GVA, SIL, NICbaro, per sample)
    let ops = [
        (
            "8dacc040f8210002004ab8569c35",
            2,
            false,
            10,
            Some(2),
            3,
            Some(true),
            false,
        ),
        (
            "8d0d097ef8230007005ab8547268",
            2,
            true,
            10,
            Some(2),
            3,
            Some(true),
            false,
        ),
        (
            "8da1a8daf82300060049b870c88b",
            2,
            false,
            9,
            Some(2),
            3,
            Some(true),
            false,
        ),
        (
            "903a33fff90200040049001ea8e2",
            2,
            false,
            9,
            None,
            0,
            None,
            false,
        ),
        (
            "96A4D01FF900210600493075E234",
            2,
            false,
            9,
            None,
            3,
            None,
            false,
        ),
    ];
    for (h, version, nic_a, nac_p, gva, sil, nic_baro, per_sample) in ops {
        let mut tr = tracker();
        let r = feed(&mut tr, h, 0).unwrap();
        let ac = tr.get(r.key).unwrap();
        assert_eq!(ac.adsb_version(), Some(version), "{h}");
        assert_eq!(ac.flag(F_NIC_A), nic_a, "{h}");
        assert_eq!(ac.nac_p(), Some(nac_p), "{h}");
        assert_eq!(ac.gva(), gva, "{h}");
        assert_eq!(ac.sil(), Some(sil), "{h}");
        assert_eq!(ac.nic_baro(), nic_baro, "{h}");
        assert_eq!(ac.sil_per_sample(), Some(per_sample), "{h}");
    }
    // NIC from the position type code and the supplements: TC 11 with
    // NIC-A 0 and NIC-B 0 is NIC 8 in version 2.
    let mut tr = tracker();
    feed(&mut tr, "8dacc040f8210002004ab8569c35", 0).unwrap();
    let me = airborne_me(false, Position::new(52.0, 4.0), 0xC38);
    feed_bytes(&mut tr, &df17(0xACC040, me), 100).unwrap();
    assert_eq!(tr.get(0xACC040).unwrap().nic(), Some(8));
    assert_eq!(
        tr.get(0xACC040).unwrap().radius_of_containment_m(),
        Some(186)
    );
    // DF18 CF 1 TC 24 and TC 0: accepted, nothing decoded.
    let r = feed(&mut tr, "91ADF9CEC11C0524407F11538EE5", 0).unwrap();
    assert_eq!(r.key, 0xADF9CE | NON_ICAO);
    assert_eq!(
        tr.get(r.key).unwrap().address_type(),
        AddressType::AdsbOther
    );
    let r = feed(&mut tr, "8da90a6e000000000000005cab8b", 0).unwrap();
    assert_eq!(r.position, PositionUpdate::None);
}
