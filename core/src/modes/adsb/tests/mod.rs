//! Tests of the ME field decoder: every relevant row of
//! `shared/data/adsb/vectors.md` with literal hex, round trips, property
//! tests, and golden comparisons with pyModeS.

extern crate std;

use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::testing::proptest_config;

/// The ME field (bytes 4..11) of a 28-hex-digit DF17/18 frame.
fn me(hex: &str) -> [u8; ME_LEN] {
    assert_eq!(hex.len(), 28, "{hex}");
    let frame: Vec<u8> = (0..14)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    frame[4..11].try_into().unwrap()
}

/// Parse a frame's ME field and check that emitting it gives the same
/// bits back, except reserved ones (only the TIS-B velocity
/// `92A24528993C238900062053CDEF` has any set: ME bits 47–48 = 0b10).
fn parse(hex: &str) -> AdsbRepr {
    let bytes = me(hex);
    let repr = AdsbRepr::parse(&bytes).unwrap();
    let want = word_of(&bytes) & defined_mask(&bytes);
    assert_eq!(
        word_of(&repr.to_bytes()),
        want,
        "round trip of {hex}: {repr:?}"
    );
    assert_eq!(repr.type_code(), bytes[0] >> 3);
    repr
}

fn ident(hex: &str) -> Identification {
    match parse(hex) {
        AdsbRepr::Identification(id) => id,
        other => panic!("{hex}: {other:?}"),
    }
}

fn airborne(hex: &str) -> AirbornePosition {
    match parse(hex) {
        AdsbRepr::AirbornePosition(p) => p,
        other => panic!("{hex}: {other:?}"),
    }
}

fn surface(hex: &str) -> SurfacePosition {
    match parse(hex) {
        AdsbRepr::SurfacePosition(p) => p,
        other => panic!("{hex}: {other:?}"),
    }
}

fn velocity(hex: &str) -> AirborneVelocity {
    match parse(hex) {
        AdsbRepr::AirborneVelocity(v) => v,
        other => panic!("{hex}: {other:?}"),
    }
}

fn tss(hex: &str) -> TargetStateV2 {
    match parse(hex) {
        AdsbRepr::TargetState(TargetState::V2(t)) => t,
        other => panic!("{hex}: {other:?}"),
    }
}

fn ops(hex: &str) -> OperationalStatus {
    match parse(hex) {
        AdsbRepr::OperationalStatus(o) => o,
        other => panic!("{hex}: {other:?}"),
    }
}

fn emergency(hex: &str) -> EmergencyStatus {
    match parse(hex) {
        AdsbRepr::AircraftStatus(AircraftStatus::Emergency(e)) => e,
        other => panic!("{hex}: {other:?}"),
    }
}

/// Bits of an ME that the parsed content defines (reserved bits clear).
fn defined_mask(me: &[u8; 7]) -> u64 {
    let w = word_of(me);
    let all = (1u64 << 56) - 1;
    let bits = |first: u32, len: u32| ((1u64 << len) - 1) << (57 - first - len);
    let tc = get(w, field::TC);
    let st = get(w, field::ST);
    match tc {
        19 if (1..=4).contains(&st) => all & !bits(47, 2),
        28 if st == 1 => all & !bits(25, 32),
        29 if get(w, field::TSS_ST) == 1 => all & !bits(51, 1) & !bits(55, 2),
        31 if st <= 1 => all & !bits(56, 1),
        _ => all,
    }
}

fn close(a: f32, b: f64, tol: f64) -> bool {
    (a as f64 - b).abs() <= tol
}

// ---------------------------------------------------------------------------
// vectors.md §2: identification
// ---------------------------------------------------------------------------

#[test]
fn test_parse_identification() {
    // (hex, TC, CA, set, 8-byte callsign)
    let rows: [(&str, u8, u8, CategorySet, &[u8; 8]); 6] = [
        (
            "8D4840D6202CC371C32CE0576098",
            4,
            0,
            CategorySet::A,
            b"KLM1023 ",
        ),
        (
            "8D406B902015A678D4D220AA4BDA",
            4,
            0,
            CategorySet::A,
            b"EZY85MH ",
        ),
        (
            "8da3f9cb213b3d75c1582080f4d9",
            4,
            1,
            CategorySet::A,
            b"N3550U  ",
        ),
        (
            "8f4d20232004d0f4cb1820000d24",
            4,
            0,
            CategorySet::A,
            b"AMC421  ",
        ),
        (
            "8d4d20232004d0f4cb1820b0efd4",
            4,
            0,
            CategorySet::A,
            b"AMC421  ",
        ),
        (
            "96A082FB213B1CF2113820D6EDDF",
            4,
            1,
            CategorySet::A,
            b"N132DS  ",
        ),
    ];
    for (hex, tc, ca, set, cs) in rows {
        let id = ident(hex);
        assert_eq!(id.category.type_code(), tc, "{hex}");
        assert_eq!(id.category.ca(), ca, "{hex}");
        assert_eq!(id.category.set(), set, "{hex}");
        assert_eq!(&id.callsign(), cs, "{hex}");
        assert!(id.callsign.is_valid());
        let trimmed = core::str::from_utf8(cs).unwrap().trim_end();
        assert_eq!(id.callsign_str(), trimmed, "{hex}");
    }
    // Category names and display.
    let a1 = ident("8da3f9cb213b3d75c1582080f4d9").category;
    assert_eq!(a1.to_string(), "A1");
    assert_eq!(a1.description(), "light (< 15 500 lb)");
    let a0 = ident("8D406B902015A678D4D220AA4BDA").category;
    assert_eq!(a0.description(), "no category information");
    assert_eq!(Category::new(4, 3).unwrap().to_string(), "A3");
    assert_eq!(Category::new(2, 1).unwrap().to_string(), "C1");
    assert_eq!(Category::new(1, 5).unwrap().description(), "reserved");
}

#[test]
fn test_callsign_charset() {
    // Every code maps to the Riddle's charset; valid codes round-trip
    // through ASCII.
    for code in 0u8..64 {
        let cs = Callsign::from_codes([code, 32, 32, 32, 32, 32, 32, 32]);
        let ch = cs.as_bytes()[0];
        assert_eq!(ch, CHARSET[code as usize]);
        let valid = matches!(code, 1..=26 | 32 | 48..=57);
        assert_eq!(cs.is_valid(), valid, "code {code}");
        if valid {
            assert_eq!(Callsign::from_ascii(&[ch]).unwrap().codes()[0], code);
        }
    }
    // Invalid codes are kept (not dropped) and survive emit.
    let mut bytes = me("8D4840D6202CC371C32CE0576098");
    let mut view = Me::new_unchecked(&mut bytes[..]);
    view.set_callsign_codes([11, 12, 13, 0, 27, 63, 51, 32]);
    let repr = AdsbRepr::parse(&bytes).unwrap();
    let AdsbRepr::Identification(id) = repr else {
        panic!()
    };
    assert_eq!(&id.callsign(), b"KLM###3 ");
    assert_eq!(id.callsign_str(), "KLM###3");
    assert!(!id.callsign.is_valid());
    assert_eq!(repr.to_bytes(), bytes);
    // All spaces trims to empty.
    assert_eq!(Callsign::from_ascii(b"").unwrap().as_str(), "");
}

// ---------------------------------------------------------------------------
// vectors.md §3: airborne position (raw CPR, altitude)
// ---------------------------------------------------------------------------

#[test]
fn test_parse_airborne_position() {
    // (hex, TC, odd, lat_cpr, lon_cpr, altitude ft)
    type Row = (&'static str, u8, bool, u32, u32, Option<i32>);
    let rows: [Row; 8] = [
        // §3.1 Riddle pair.
        (
            "8D40621D58C382D690C8AC2863A7",
            11,
            false,
            93000,
            51372,
            Some(38000),
        ),
        (
            "8D40621D58C386435CC412692AD6",
            11,
            true,
            74158,
            50194,
            Some(38000),
        ),
        // §3.3 zone-boundary case.
        (
            "8D06A15358BF17FF7D4A84B47B95",
            11,
            true,
            131006,
            84612,
            None,
        ),
        // §3.4 rs1090 pair.
        ("8d4d224f58bf07c2d41a9a353d70", 11, true, 123242, 6810, None),
        ("8d4d224f58bf003b221b34aa5b8d", 11, false, 7569, 6964, None),
        // §3.6 cross-pair: odd airborne half.
        ("8D485A33581D663872E86A3BBFFF", 11, true, 72761, 59498, None),
        // §3.7 rows with CPR values.
        (
            "8da2c1bd587ba2adb31799cb802b",
            11,
            false,
            87769,
            71577,
            Some(23650),
        ),
        (
            "95298FCA680946499671468C7ACA",
            13,
            true,
            74955,
            28998,
            Some(700),
        ),
    ];
    for (hex, tc, odd, lat, lon, alt) in rows {
        let p = airborne(hex);
        assert_eq!(p.type_code(), tc, "{hex}");
        assert_eq!(p.cpr.format, CprFormat::from(odd), "{hex}");
        assert_eq!((p.cpr.lat, p.cpr.lon), (lat, lon), "{hex}");
        assert_eq!(p.altitude_source(), AltitudeSource::Baro);
        if alt.is_some() {
            assert_eq!(p.altitude_ft(), alt, "{hex}");
        }
    }
    // §3.1: ALT field 110000111000, Q = 1, N = 1560.
    assert_eq!(
        airborne("8D40621D58C382D690C8AC2863A7").altitude_code,
        0b1100_0011_1000
    );
    // §3.2: TC 11, 39000 ft, NUCp 7.
    for hex in [
        "8D40058B58C901375147EFD09357",
        "8D40058B58C904A87F402D3B8C59",
    ] {
        let p = airborne(hex);
        assert_eq!(
            (p.type_code(), p.altitude_ft(), p.nuc_p()),
            (11, Some(39000), Some(7))
        );
    }
    assert!(!airborne("8D40058B58C901375147EFD09357").cpr.format.is_odd());
    assert!(airborne("8D40058B58C904A87F402D3B8C59").cpr.format.is_odd());
    // §3.6 regressions (format flags as listed).
    let flags = [
        ("8d3949e858ab05a2c11a30c334bf", true),
        ("8d3949e858ab0211c74e97f9a5f3", false),
        ("8f3949e86cb503a343e9c6ecf4cd", false),
        ("8f3949e86cb5073d9daa5f6f9d4c", true),
        ("8d39c42469b974b6a05ab914104f", true),
        ("8d39c42478b9713304a5e41f6bc1", false),
        ("8d39c42478b974b6325a6e2724f8", true),
    ];
    for (hex, odd) in flags {
        assert_eq!(airborne(hex).cpr.format.is_odd(), odd, "{hex}");
    }
    // §3.3 single-message raw values and the DF18 ADS-R row of §3.7.
    let p = airborne("96130D9D910F86188A7A71EF6DCB");
    assert_eq!(p.altitude_ft(), Some(2000));
    assert_eq!(
        (p.cpr.format, p.cpr.lat, p.cpr.lon),
        (CprFormat::Odd, 68677, 31345)
    );
}

#[test]
fn test_parse_altitude() {
    // vectors.md §3.7.
    let rows: [(&str, i32); 12] = [
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
    for (hex, ft) in rows {
        assert_eq!(airborne(hex).altitude_ft(), Some(ft), "{hex}");
    }
    // An all-zero altitude field is "not available", not −1000 ft.
    let mut p = airborne("8d343386581f06318ad4fecab734");
    p.altitude_code = 0;
    assert_eq!(p.altitude_ft(), None);
    // §9: altitude anchor and ghost.
    assert_eq!(
        airborne("8D48455658AF86664DF2CD7CC4E9").altitude_ft(),
        Some(34000)
    );
    assert_eq!(
        airborne("8D4845565C6AAA206D6E6095C950").altitude_ft(),
        Some(27900)
    );
    assert_eq!(
        airborne("8D48416358AFB049A5733842BB0E").altitude_ft(),
        Some(34075)
    );
}

#[test]
fn test_gnss_height_type_codes() {
    // No published TC 20–22 vector exists; check the layout on a
    // synthetic one: TC 20, AC12 Q = 1 code for 38000 ft.
    let mut bytes = me("8D40621D58C382D690C8AC2863A7");
    Me::new_unchecked(&mut bytes[..]).set_type_code(20);
    let p = match AdsbRepr::parse(&bytes).unwrap() {
        AdsbRepr::AirbornePosition(p) => p,
        other => panic!("{other:?}"),
    };
    assert_eq!(p.type_code(), 20);
    assert_eq!(p.altitude_source(), AltitudeSource::Gnss);
    assert_eq!(p.altitude_ft(), Some(38000));
    assert_eq!((p.cpr.lat, p.cpr.lon), (93000, 51372));
    assert_eq!(p.nuc_p(), Some(9));
}

// ---------------------------------------------------------------------------
// vectors.md §4: surface position
// ---------------------------------------------------------------------------

#[test]
fn test_parse_surface_position() {
    // §4.1 Riddle: (hex, odd, lat, lon, movement code, kt, track code).
    let rows: [(&str, bool, u32, u32, u8, f32, u8); 3] = [
        (
            "8C4841753AAB238733C8CD4020B1",
            false,
            115609,
            116941,
            42,
            18.0,
            50,
        ),
        (
            "8C4841753A8A35323FAEBDAC702D",
            true,
            39199,
            110269,
            40,
            16.0,
            35,
        ),
        (
            "8C4841753A9A153237AEF0F275BE",
            true,
            39195,
            110320,
            41,
            17.0,
            33,
        ),
    ];
    for (hex, odd, lat, lon, mov, kt, trk) in rows {
        let p = surface(hex);
        assert_eq!(p.type_code(), 7);
        assert_eq!(p.cpr.format.is_odd(), odd, "{hex}");
        assert_eq!((p.cpr.lat, p.cpr.lon), (lat, lon), "{hex}");
        assert_eq!(p.movement.code(), mov, "{hex}");
        assert_eq!(p.speed_kt(), Some(kt), "{hex}");
        assert!(p.track_valid);
        assert_eq!(p.track, trk, "{hex}");
    }
    // Movement 41 → 17 kt; track 33 → 92.8125°.
    assert_eq!(
        surface("8C4841753A9A153237AEF0F275BE").track_deg(),
        Some(92.8125)
    );

    // §4.2 Toulouse (DF18) and São Paulo pairs: surface, formats as given.
    for (hex, odd) in [
        ("903a23ff426a38565950432ebf95", false),
        ("903a23ff426a4e65f7487a775d17", true),
        ("8FE48C033A9FA184B934E744C6FD", false),
        ("8FE48C033A9FA68F7C3D39B1C2F0", true),
    ] {
        assert_eq!(surface(hex).cpr.format.is_odd(), odd, "{hex}");
    }
    // §3.6: the even half of the cross pair is a TC 7 surface message.
    let p = surface("8F485A33397C737A27D1B18072CD");
    assert_eq!((p.type_code(), p.cpr.lat, p.cpr.lon), (7, 113939, 119217));
    assert!(!p.cpr.format.is_odd());
}

#[test]
fn test_surface_movement_vectors() {
    // vectors.md §4.3.
    let rows: [(&str, Option<f32>); 9] = [
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
    for (hex, kt) in rows {
        assert_eq!(surface(hex).speed_kt(), kt, "{hex}");
    }
    // Code 1 (stopped) with the track status clear.
    let p = surface("903a33ff40100858d34ff3cce976");
    assert!(p.movement.is_stopped());
    assert_eq!(p.track_deg(), None);
}

#[test]
fn test_movement_table() {
    // Exhaustive against the DO-260B table, written out independently.
    let edges: [(u8, u8, f32, f32); 6] = [
        (2, 8, 0.125, 0.125),
        (9, 12, 1.0, 0.25),
        (13, 38, 2.0, 0.5),
        (39, 93, 15.0, 1.0),
        (94, 108, 70.0, 2.0),
        (109, 123, 100.0, 5.0),
    ];
    for code in 0u8..=127 {
        let m = Movement::from(code);
        let want = match code {
            0 | 125..=127 => None,
            1 => Some(0.0),
            124 => Some(175.0),
            _ => {
                let (lo, _, base, step) =
                    edges.iter().find(|e| (e.0..=e.1).contains(&code)).unwrap();
                Some(base + (code - lo) as f32 * step)
            }
        };
        assert_eq!(m.speed_kt(), want, "code {code}");
        if let Some(kt) = want {
            // The encoder puts a bin's lower edge (and its middle) back in
            // the same bin.
            assert_eq!(Movement::from_kt(kt).code(), code, "from_kt({kt})");
            let next = Movement::from(code + 1).speed_kt().unwrap_or(200.0);
            if (1..124).contains(&code) {
                assert_eq!(Movement::from_kt((kt + next) / 2.0).code(), code);
            }
        }
    }
    assert_eq!(Movement::from_kt(f32::NAN).code(), 0);
    assert_eq!(Movement::from_kt(-1.0).code(), 0);
    assert_eq!(Movement::from_kt(1000.0).code(), 124);
    assert_eq!(Movement::from(0xFF).code(), 0x7F);
}

// ---------------------------------------------------------------------------
// vectors.md §5: airborne velocity
// ---------------------------------------------------------------------------

#[test]
fn test_parse_velocity_riddle() {
    // Subtype 1: Vx = −8 (west), Vy = −159 (south).
    let v = velocity("8D485020994409940838175B284F");
    assert_eq!(v.subtype(), 1);
    let Velocity::Ground(g) = v.velocity else {
        panic!()
    };
    assert_eq!((g.ew_kt(), g.ns_kt()), (Some(-8), Some(-159)));
    assert!(close(v.ground_speed_kt().unwrap(), 159.20, 0.005));
    assert!(close(v.track_deg().unwrap(), 182.88, 0.005));
    assert_eq!(v.vertical_rate.fpm(), Some(-832));
    // The VrSrc trap: ME bit 36 = 0 means GNSS (rs1090 prints "barometric").
    assert_eq!(v.vertical_rate.source, VerticalRateSource::Gnss);
    assert_eq!(v.gnss_baro_diff.ft(), Some(550));
    assert_eq!(v.nac_v, 0);
    assert_eq!((v.heading_deg(), v.airspeed_kt()), (None, None));

    // Subtype 3: heading 694 × 360/1024, TAS 375 kt, −2304 ft/min baro.
    let v = velocity("8DA05F219B06B6AF189400CBC33F");
    assert_eq!(v.subtype(), 3);
    let Velocity::Air(a) = v.velocity else {
        panic!()
    };
    assert_eq!(a.heading, 694);
    assert!(close(v.heading_deg().unwrap(), 243.98, 0.005));
    assert_eq!(v.airspeed_kt(), Some((375, AirspeedType::True)));
    assert_eq!(v.vertical_rate.fpm(), Some(-2304));
    assert_eq!(v.vertical_rate.source, VerticalRateSource::Baro);
    assert_eq!(v.gnss_baro_diff.ft(), None);
    assert_eq!((v.ground_speed_kt(), v.track_deg()), (None, None));

    // Subtype 3: IAS 100 kt, heading status set with heading 0 → 0.0°.
    let v = velocity("8D4841409B04000CA04400000000");
    assert_eq!(v.heading_deg(), Some(0.0));
    assert_eq!(v.airspeed_kt(), Some((100, AirspeedType::Indicated)));
    assert_eq!(v.vertical_rate.fpm(), Some(1024));
}

#[test]
fn test_parse_vertical_rates() {
    let rows: [(&str, i32); 4] = [
        ("8d3461cf9908388930080f948ea1", 64),
        ("8d3461cf9908558e100c1071eb67", 128),
        ("8d3461cf99085a8f10400f80e6ac", 960),
        ("8d394c0f990c4932780838866883", -64),
    ];
    for (hex, fpm) in rows {
        assert_eq!(velocity(hex).vertical_rate.fpm(), Some(fpm), "{hex}");
    }
}

#[test]
fn test_parse_velocity_deku() {
    // (hex, track°, GS kt, tolerance, VR, source, GNSS−baro ft)
    type Row = (
        &'static str,
        f64,
        f64,
        f64,
        i32,
        VerticalRateSource,
        Option<i32>,
    );
    let rows: [Row; 5] = [
        (
            "8da3d42599250129780484712c50",
            322.1972,
            417.6554,
            1e-3,
            0,
            // Not stated by the source; ME bit 36 = 1.
            VerticalRateSource::Baro,
            None,
        ),
        // adsb_deku prints "GNSS" here but ME bit 36 = 1: barometric.
        (
            "8dac8e1a9924263950043944cf32",
            355.37,
            458.50,
            0.005,
            0,
            VerticalRateSource::Baro,
            Some(1400),
        ),
        // adsb_deku prints "barometric" but bit 36 = 0: GNSS.
        (
            "8da3f9cb9910100da8148571db11",
            7.91,
            109.04,
            0.005,
            -256,
            VerticalRateSource::Gnss,
            Some(-100),
        ),
        // dump1090-fa control: geom_rate. dump1090-fa prints whole units
        // (118.60 kt, 345.85°; 78.72 kt, 205.59°), hence the 1.0 tolerance.
        (
            "96A6C24699141E0E8018074AA959",
            346.0,
            118.0,
            1.0,
            320,
            VerticalRateSource::Gnss,
            Some(150),
        ),
        (
            "92A24528993C238900062053CDEF",
            206.0,
            78.0,
            1.0,
            0,
            VerticalRateSource::Gnss,
            Some(775),
        ),
    ];
    for (hex, trk, gs, tol, vr, src, diff) in rows {
        let v = velocity(hex);
        assert!(
            close(v.track_deg().unwrap(), trk, tol),
            "{hex} track {:?}",
            v.track_deg()
        );
        assert!(
            close(v.ground_speed_kt().unwrap(), gs, tol),
            "{hex} gs {:?}",
            v.ground_speed_kt()
        );
        assert_eq!(v.vertical_rate.fpm(), Some(vr), "{hex}");
        assert_eq!(v.vertical_rate.source, src, "{hex}");
        if let Some(d) = diff {
            assert_eq!(v.gnss_baro_diff.ft(), Some(d), "{hex}");
        }
    }
    // Subtype 3 without heading: IAS 292 kt, baro +128, NACv 0.
    let v = velocity("8DA35EBC9B000024B00C0004E897");
    assert_eq!(v.heading_deg(), None);
    assert_eq!(v.airspeed_kt(), Some((292, AirspeedType::Indicated)));
    assert_eq!(v.vertical_rate.fpm(), Some(128));
    assert_eq!(v.vertical_rate.source, VerticalRateSource::Baro);
    assert_eq!(v.nac_v, 0);
}

#[test]
fn test_velocity_phantoms() {
    // vectors.md §9: real GS 445 kt / 271.9°, phantom 558 kt / 340.9°
    // (whole knots as pyModeS truncates them: 445.25 and 558.81).
    let v = velocity("8D484556990DBE021008840E71C9");
    assert_eq!(libm::floorf(v.ground_speed_kt().unwrap()), 445.0);
    assert!(close(v.track_deg().unwrap(), 271.9, 0.05));
    let v = velocity("8D484556990CB8423008844B2DE1");
    assert_eq!(libm::floorf(v.ground_speed_kt().unwrap()), 558.0);
    assert!(close(v.track_deg().unwrap(), 340.9, 0.05));
}

#[test]
fn test_velocity_supersonic_and_unavailable() {
    // Subtype 2 multiplies components by 4; subtype 4 the airspeed.
    let g = GroundVelocity {
        supersonic: true,
        west: false,
        ew: 101,
        south: false,
        ns: 1,
    };
    assert_eq!((g.ew_kt(), g.ns_kt()), (Some(400), Some(0)));
    assert_eq!(g.track_deg(), Some(90.0));
    let a = AirVelocity {
        supersonic: true,
        heading_available: false,
        heading: 0,
        airspeed_type: AirspeedType::True,
        airspeed: 401,
    };
    assert_eq!(a.airspeed_kt(), Some(1600));
    let na = GroundVelocity { ew: 0, ..g };
    assert_eq!(
        (na.ew_kt(), na.speed_kt(), na.track_deg()),
        (None, None, None)
    );
    // Track never reaches 360.0 (tiny negative angle).
    let g = GroundVelocity {
        supersonic: false,
        west: true,
        ew: 2,
        south: false,
        ns: 1023,
    };
    let t = g.track_deg().unwrap();
    assert!((0.0..360.0).contains(&t), "{t}");
    // Subtypes 0 and 5–7 are kept as unknown.
    for st in [0u8, 5, 6, 7] {
        let mut bytes = me("8D485020994409940838175B284F");
        Me::new_unchecked(&mut bytes[..]).set_subtype(st);
        let r = AdsbRepr::parse(&bytes).unwrap();
        assert_eq!(r, AdsbRepr::Unknown { tc: 19, bytes });
        assert_eq!(r.to_bytes(), bytes);
    }
}

// ---------------------------------------------------------------------------
// vectors.md §6: TC 28, 29, 31 and others
// ---------------------------------------------------------------------------

#[test]
fn test_parse_aircraft_status() {
    let e = emergency("8DA2C1B6E112B600000000760759");
    assert_eq!(e.state, EmergencyState::None);
    assert_eq!(e.squawk(), 0x6513);
    let e = emergency("8dc06800e1108500000000baa81f");
    assert_eq!(e.state, EmergencyState::None);
    assert_eq!(e.squawk(), 0x4016);
    for v in 0u8..8 {
        assert_eq!(u8::from(EmergencyState::from(v)), v);
    }
    // Subtype 2: ACAS RA, raw fields at their positions (synthetic).
    let mut bytes = [0u8; 7];
    let mut m = Me::new_unchecked(&mut bytes[..]);
    m.set_type_code(28);
    m.set_subtype(2);
    m.set_ara(0x2A5A);
    m.set_rac(0b1010);
    m.set_rat(true);
    m.set_mte(false);
    m.set_tti(1);
    m.set_tid(0x484FDE << 2);
    let AdsbRepr::AircraftStatus(AircraftStatus::AcasRa(ra)) = parse_bytes(&bytes) else {
        panic!()
    };
    assert_eq!(
        (ra.ara, ra.rac, ra.rat, ra.mte, ra.tti),
        (0x2A5A, 0b1010, true, false, 1)
    );
    assert_eq!(ra.threat_address(), Some(0x484FDE));
}

/// Parse bytes and check the exact round trip.
fn parse_bytes(bytes: &[u8; 7]) -> AdsbRepr {
    let r = AdsbRepr::from_bytes(bytes);
    assert_eq!(&r.to_bytes(), bytes, "{r:?}");
    r
}

#[test]
fn test_parse_target_state() {
    let t = tss("8DA05629EA21485CBF3F8CADAEEB");
    assert!(!t.fms_altitude, "MCP/FCU");
    assert_eq!(t.selected_altitude_ft(), Some(16992));
    assert_eq!(t.baro_setting_hpa(), Some(1012.8));
    assert!(close(t.selected_heading_deg().unwrap(), 66.8, 0.01));
    assert!(t.mode_valid);
    assert_eq!(
        (
            t.autopilot,
            t.vnav,
            t.alt_hold,
            t.approach,
            t.tcas_operational,
            t.lnav
        ),
        (true, true, false, false, true, true)
    );
    // Heading sign-bit case.
    let t = tss("8DA05629EA21485EBF3F8CADAEEB");
    assert_eq!(t.selected_heading_deg().map(f64::from), Some(246.796875));

    // dump1090-fa controls (adsb_deku comments).
    let t = tss("8da08f94ea1b785e8f3c088ab467");
    assert_eq!(t.selected_altitude_ft(), Some(14016));
    assert_eq!(t.baro_setting_hpa(), Some(1012.8));
    assert_eq!(t.selected_heading_deg().map(f64::from), Some(229.921875));
    assert_eq!((t.nac_p, t.nic_baro, t.sil), (9, true, 3));

    let t = tss("8dab3d17ea486860015f4870b796");
    assert_eq!(t.selected_altitude_ft(), Some(37024));
    assert_eq!(t.baro_setting_hpa(), Some(1013.6));
    assert!(t.mode_valid);
    assert_eq!(
        (
            t.autopilot,
            t.vnav,
            t.alt_hold,
            t.approach,
            t.lnav,
            t.tcas_operational
        ),
        (true, false, true, false, false, true)
    );
    assert_eq!((t.nac_p, t.nic_baro, t.sil), (10, true, 3));

    let t = tss("8da97753ea2d0858015c003ee5de");
    assert_eq!(t.selected_altitude_ft(), Some(23008));
    assert_eq!(t.baro_setting_hpa(), Some(1012.8));
    assert!(!t.tcas_operational);
    assert_eq!((t.nac_p, t.nic_baro, t.sil), (10, true, 3));

    let t = tss("8dad50a9ea466867811c08abbaa2");
    assert_eq!(t.selected_altitude_ft(), Some(36000));
    assert_eq!(t.baro_setting_hpa(), Some(1013.6));
    assert_eq!(t.selected_heading_deg(), Some(315.0));
    assert!(t.tcas_operational);
    assert_eq!(t.nac_p, 8);

    // Subtype 0 (version 1) is kept raw; subtypes 2–3 are unknown.
    let mut bytes = me("8DA05629EA21485CBF3F8CADAEEB");
    Me::new_unchecked(&mut bytes[..]).set_tss_subtype(0);
    let AdsbRepr::TargetState(t @ TargetState::V1 { .. }) = parse_bytes(&bytes) else {
        panic!()
    };
    assert_eq!(t.subtype(), 0);
    for st in [2, 3] {
        Me::new_unchecked(&mut bytes[..]).set_tss_subtype(st);
        assert!(matches!(
            parse_bytes(&bytes),
            AdsbRepr::Unknown { tc: 29, .. }
        ));
    }
}

#[test]
fn test_parse_operational_status() {
    // Airborne, version 2.
    let o = ops("8dacc040f8210002004ab8569c35");
    assert_eq!((o.subtype(), o.version), (0, 2));
    assert_eq!((o.nic_a, o.nac_p, o.gva, o.sil), (false, 10, 2, 3));
    assert!(o.nic_baro_or_trk_hdg, "NICbaro 1");
    assert!(!o.hrd, "true heading");
    assert!(!o.sil_supplement, "per hour");
    assert_eq!(o.sda(), 2);
    assert_eq!(o.acas_operational(), Some(true));
    assert!(o.target_state_capable());
    assert!(!o.arv());

    let o = ops("8d0d097ef8230007005ab8547268");
    assert_eq!(o.version, 2);
    assert_eq!(o.acas_operational(), Some(true));
    assert!(o.arv() && o.target_state_capable());
    assert!(o.single_antenna(), "SAF");
    assert_eq!(o.sda(), 3);
    assert_eq!((o.nic_a, o.nac_p, o.gva, o.sil), (true, 10, 2, 3));
    assert!(!o.sil_supplement && o.nic_baro_or_trk_hdg && !o.hrd);

    let o = ops("8da1a8daf82300060049b870c88b");
    assert_eq!(o.version, 2);
    assert_eq!(o.sda(), 2);
    assert_eq!((o.nic_a, o.nac_p, o.gva, o.sil), (false, 9, 2, 3));
    assert!(o.nic_baro_or_trk_hdg);

    // Surface (DF18).
    let o = ops("903a33fff90200040049001ea8e2");
    assert_eq!((o.subtype(), o.version), (1, 2));
    assert_eq!((o.nic_a, o.nac_p, o.sil), (false, 9, 0));
    assert_eq!(o.acas_operational(), None);

    let o = ops("96A4D01FF900210600493075E234");
    assert_eq!((o.subtype(), o.version), (1, 2));
    assert_eq!(
        (o.nic_a, o.nic_c(), o.surface_nac_v()),
        (false, Some(false), Some(1))
    );
    assert_eq!(o.length_width(), Some(1));
    assert!(o.single_antenna(), "SAF");
    assert_eq!(o.sda(), 2);
    assert_eq!((o.nac_p, o.sil), (9, 3));
    assert!(!o.sil_supplement, "per hour");
    assert!(!o.nic_baro_or_trk_hdg, "dump1090-fa: NICbaro 0");
    assert_eq!(o.gps_antenna_offset(), Some(0));

    // Subtypes 2–7 are unknown.
    let mut bytes = me("8dacc040f8210002004ab8569c35");
    for st in 2..8 {
        Me::new_unchecked(&mut bytes[..]).set_subtype(st);
        assert!(matches!(
            parse_bytes(&bytes),
            AdsbRepr::Unknown { tc: 31, .. }
        ));
    }
}

#[test]
fn test_parse_unknown() {
    // TC 24 (surface system status) and TC 0 are kept verbatim.
    let r = parse("91ADF9CEC11C0524407F11538EE5");
    assert_eq!(
        r,
        AdsbRepr::Unknown {
            tc: 24,
            bytes: me("91ADF9CEC11C0524407F11538EE5")
        }
    );
    let r = parse("8da90a6e000000000000005cab8b");
    assert_eq!(
        r,
        AdsbRepr::Unknown {
            tc: 0,
            bytes: [0; 7]
        }
    );
    // TC 28 subtype 0 and 3–7 too.
    let mut bytes = me("8DA2C1B6E112B600000000760759");
    for st in [0, 3, 4, 5, 6, 7] {
        Me::new_unchecked(&mut bytes[..]).set_subtype(st);
        assert!(matches!(
            parse_bytes(&bytes),
            AdsbRepr::Unknown { tc: 28, .. }
        ));
    }
    // `emit` writes the variant's TC over the bytes.
    let r = AdsbRepr::Unknown {
        tc: 23,
        bytes: [0xFF; 7],
    };
    assert_eq!(r.to_bytes()[0] >> 3, 23);
}

#[test]
fn test_nuc_nic() {
    let want = [
        (0, Some(0)),
        (5, Some(9)),
        (8, Some(6)),
        (9, Some(9)),
        (18, Some(0)),
        (19, None),
    ];
    for (tc, n) in want {
        assert_eq!(nuc_p(tc), n, "tc {tc}");
    }
    assert_eq!(
        (nuc_p(20), nuc_p(21), nuc_p(22), nuc_p(23)),
        (Some(9), Some(8), Some(0), None)
    );
    // Version 2 table (Riddle, "Uncertainties").
    assert_eq!(nic_v2(9, false, false, false), Some(11));
    assert_eq!(nic_v2(13, false, true, false), Some(6));
    assert_eq!(nic_v2(13, false, false, false), Some(6));
    assert_eq!(nic_v2(13, true, true, false), Some(6));
    assert_eq!(nic_v2(13, true, false, false), None);
    assert_eq!(nic_v2(16, true, true, false), Some(3));
    assert_eq!(nic_v2(16, false, false, false), Some(2));
    assert_eq!(nic_v2(7, false, false, false), Some(8));
    assert_eq!(nic_v2(8, false, false, false), Some(0));
    assert_eq!(nic_v2(19, false, false, false), None);
    // Rc beside every NIC the table defines (Riddle, "Uncertainties",
    // version 2), in m rounded up: each combination that has a NIC other
    // than 0 has a radius, and a larger NIC never a larger radius.
    let mut pairs = Vec::new();
    for tc in 0..=31u8 {
        for bits in 0..8u8 {
            let (a, b, c) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
            let nic = nic_v2(tc, a, b, c);
            let rc = rc_v2(tc, a, b, c);
            assert_eq!(
                rc.is_some(),
                nic.is_some_and(|n| n > 0),
                "TC {tc} {a} {b} {c}"
            );
            if let (Some(n), Some(r)) = (nic, rc) {
                pairs.push((n, r));
            }
        }
    }
    for &(n1, r1) in &pairs {
        for &(n2, r2) in &pairs {
            assert!(
                n1 <= n2 || r1 <= r2,
                "NIC {n1} Rc {r1} against NIC {n2} Rc {r2}"
            );
        }
    }
    for (tc, a, b, c, nic, rc) in [
        (9, false, false, false, 11, 8),
        (11, true, true, false, 9, 75),
        (12, false, false, false, 7, 371),
        (13, false, true, false, 6, 556),
        (13, false, false, false, 6, 926),
        (13, true, true, false, 6, 1112),
        (8, true, false, false, 6, 556),
        (8, false, false, true, 6, 1112),
        (16, false, false, false, 2, 14816),
        (17, false, false, false, 1, 37040),
    ] {
        assert_eq!(
            (nic_v2(tc, a, b, c), rc_v2(tc, a, b, c)),
            (Some(nic), Some(rc)),
            "TC {tc}"
        );
    }
}

mod golden;
mod view;
