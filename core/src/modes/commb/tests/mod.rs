//! Tests of the Comm-B view, codecs and inference: view and enums and
//! parsing here; inference, emit and round trips, and the pyModeS golden
//! decodes in their own files.

extern crate std;

use super::quantise::*;
use super::*;
use crate::modes::altitude::decode_ac13;
use crate::modes::charset::CHARSET;
use crate::modes::field56::Gated;
use crate::testing::proptest_config;
use proptest::prelude::*;
use std::string::String;
use std::vec::Vec;

use crate::testing::hex;

/// The MB field (bytes 4..11) of a 14-byte DF20/21 message in hex.
fn mb_of(msg: &str) -> [u8; 7] {
    let b = hex(msg);
    assert_eq!(b.len(), 14, "{msg}");
    b[4..11].try_into().unwrap()
}

fn parse_as(msg: &str, bds: Bds) -> Repr {
    let b = mb_of(msg);
    Repr::parse(&Mb::new_checked(&b[..]).unwrap(), bds).unwrap()
}

/// DF20 altitude (AC13, message bits 20–32) as context; none for DF21.
fn own_context(msg: &[u8]) -> Context {
    let altitude_ft = if msg[0] >> 3 == 20 {
        let ac13 = (u16::from(msg[2] & 0x1F) << 8) | u16::from(msg[3]);
        decode_ac13(ac13).map(|a| a as f32)
    } else {
        None
    };
    Context {
        altitude_ft,
        ..Context::default()
    }
}

fn infer_hex(msg: &str, ctx: &Context) -> Inference {
    let b = mb_of(msg);
    infer(&Mb::new_checked(&b[..]).unwrap(), ctx).unwrap()
}

fn bds_list(inf: &Inference) -> Vec<Bds> {
    inf.candidates().iter().map(|(b, _)| *b).collect()
}

fn close(a: Option<f32>, b: f32, tol: f32) -> bool {
    a.is_some_and(|a| (a - b).abs() <= tol)
}

// -- view and enums ----------------------------------------------------

static KLM1017: [u8; 14] = [
    0xA0, 0x00, 0x08, 0x3E, 0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x1D, 0xE0, 0xAA, 0x1C, 0xCF,
];

#[test]
fn test_deconstruct() {
    let mb = Mb::new_checked(&KLM1017[4..11]).unwrap();
    assert_eq!(mb.header(), 0x20);
    assert_eq!(mb.bits(), 0x20_2CC3_71C3_1DE0);
    // A longer buffer is fine: only the first 7 bytes are read.
    let mb = Mb::new_checked(&KLM1017[4..]).unwrap();
    assert_eq!(mb.bits(), 0x20_2CC3_71C3_1DE0);
}

#[test]
fn test_construct() {
    let mut buf = [0u8; 7];
    let mut mb = Mb::new_checked(&mut buf[..]).unwrap();
    mb.set_bits(0xFF20_2CC3_71C3_1DE0);
    assert_eq!(buf, KLM1017[4..11]);
}

#[test]
fn test_malformed_length() {
    for n in 0..MB_LEN {
        let b = [0x20u8; 7];
        let short = &b[..n];
        let err = Error::Truncated {
            expected: 7,
            got: n,
        };
        assert_eq!(Mb::new_checked(short).unwrap_err(), err);
        let mb = Mb::new_unchecked(short);
        assert_eq!(AircraftIdentification::parse(&mb), Err(err));
        assert_eq!(DataLinkCapability::parse(&mb), Err(err));
        assert_eq!(ResolutionAdvisory::parse(&mb), Err(err));
        assert_eq!(TrackAndTurn::parse(&mb), Err(err));
        assert_eq!(Repr::parse(&mb, Bds::HeadingAndSpeed), Err(err));
        assert_eq!(infer(&mb, &Context::default()), Err(err));
        assert_eq!(
            fit(Bds::TrackAndTurn, &mb, &Context::default()),
            Err(Reject::Truncated)
        );
    }
}

#[test]
fn test_bds_codes() {
    for v in 0..=255u8 {
        assert_eq!(u8::from(Bds::from(v)), v);
    }
    assert_eq!(Bds::from(0x17), Bds::CommonUsageCapability);
    assert_eq!(std::format!("{}", Bds::TrackAndTurn), "BDS 5,0");
    assert_eq!(std::format!("{}", Bds::Unknown(0x5F)), "BDS 5,F");
    assert_eq!(
        Repr::parse(&Mb::new_unchecked(&[0u8; 7]), Bds::Empty),
        Err(Error::Unsupported(Bds::Empty))
    );
}

#[test]
fn test_wrong_header() {
    let mb = Mb::new_unchecked(&KLM1017[4..11]);
    assert_eq!(
        DataLinkCapability::parse(&mb),
        Err(Error::Header {
            expected: 0x10,
            got: 0x20
        })
    );
    assert!(ResolutionAdvisory::parse(&mb).is_err());
}

// -- vectors.md §8, parse ----------------------------------------------

#[test]
fn test_parse_bds10() {
    let Repr::DataLinkCapability(d) =
        parse_as("A800178D10010080F50000D5893C", Bds::DataLinkCapability)
    else {
        unreachable!()
    };
    assert_eq!(
        d,
        DataLinkCapability {
            continuation: false,
            overlay_command: false,
            acas_operational: true,
            subnetwork_version: 0,
            enhanced_protocol: false,
            specific_services: true,
            uplink_elm: 0,
            downlink_elm: 0,
            identification: true,
            squitter: true,
            surveillance_identifier: true,
            common_usage_gicb: true,
            hybrid_surveillance: false,
            acas_resolution_advisory: true,
            acas_version: 1,
            dte_status: 0,
        }
    );
}

#[test]
fn test_parse_bds17() {
    let Repr::CommonUsageCapability(c) =
        parse_as("A0000638FA81C10000000081A92F", Bds::CommonUsageCapability)
    else {
        unreachable!()
    };
    let regs: Vec<u8> = c.registers().map(u8::from).collect();
    assert_eq!(
        regs,
        [
            0x05, 0x06, 0x07, 0x08, 0x09, 0x20, 0x40, 0x50, 0x51, 0x52, 0x60
        ]
    );
}

#[test]
fn test_parse_bds20() {
    for (msg, callsign) in [
        ("A000083E202CC371C31DE0AA1CCF", "KLM1017"),
        ("A0001993202422F2E37CE038738E", "IBK2873"),
        ("A0001838201584F23468207CDFA5", "EXS2MF"),
    ] {
        let Repr::AircraftIdentification(id) = parse_as(msg, Bds::AircraftIdentification) else {
            unreachable!()
        };
        assert_eq!(id.as_str(), callsign, "{msg}");
    }
}

#[test]
fn test_parse_bds40() {
    let Repr::SelectedVerticalIntention(s) = parse_as(
        "A000029C85E42F313000007047D3",
        Bds::SelectedVerticalIntention,
    ) else {
        unreachable!()
    };
    assert_eq!(s.mcp_altitude, Some(3008));
    assert_eq!(s.fms_altitude, Some(3008));
    assert!(close(s.baro_setting, 1020.0, 0.01));
    assert_eq!(s.modes, None);
    assert_eq!(s.target_source, None);

    // Riddle fig. 17.1: raw 1500 ×16 ft, raw 2132 → 1013.2 hPa.
    let Repr::SelectedVerticalIntention(s) = parse_as(
        "A8001EBCAEE57730A80106DE1344",
        Bds::SelectedVerticalIntention,
    ) else {
        unreachable!()
    };
    assert_eq!(s.mcp_altitude, Some(24_000));
    assert_eq!(s.fms_altitude, Some(24_000));
    assert!(close(s.baro_setting, 1013.2, 0.01));
    assert_eq!(s.modes, Some(AutopilotModes::default()));
    assert_eq!(s.target_source, Some(TargetAltitudeSource::McpFcu));
}

#[test]
fn test_parse_bds44() {
    let Repr::MeteorologicalRoutine(m) =
        parse_as("A0001692185BD5CF400000DFC696", Bds::MeteorologicalRoutine)
    else {
        unreachable!()
    };
    assert_eq!(m.figure_of_merit, FigureOfMerit::Ins);
    let wind = m.wind.unwrap();
    assert_eq!(wind.speed, 22);
    assert_eq!(wind.direction, 344.53125);
    assert_eq!(m.static_air_temperature, -48.75);
    assert_eq!(m.static_pressure, None);
    assert_eq!(m.turbulence, None);
    assert_eq!(m.humidity, None);
}

#[test]
fn test_parse_bds45() {
    let Repr::MeteorologicalHazard(m) =
        parse_as("A00004190001FB80000000000000", Bds::MeteorologicalHazard)
    else {
        unreachable!()
    };
    assert_eq!(
        m,
        MeteorologicalHazard {
            static_air_temperature: Some(-4.5),
            ..MeteorologicalHazard::default()
        }
    );
}

#[test]
fn test_parse_bds50() {
    // (message, roll °, track °, GS kt, track rate °/s, TAS kt); exact
    // multiples of the LSBs.
    let rows = [
        (
            "A000139381951536E024D4CCF6B5",
            2.109375,
            114.2578125,
            438,
            0.125,
            424,
        ),
        (
            "A0001691FFD263377FFCE02B2BF9",
            -0.3515625,
            53.61328125,
            442,
            -0.03125,
            448,
        ),
        (
            "A80006ACF9363D3BBF9CE98F1E1D",
            -9.66796875,
            140.2734375,
            476,
            -0.40625,
            466,
        ),
    ];
    for (msg, roll, trk, gs, rate, tas) in rows {
        let Repr::TrackAndTurn(t) = parse_as(msg, Bds::TrackAndTurn) else {
            unreachable!()
        };
        assert_eq!(t.roll.map(f64::from), Some(roll), "{msg}");
        assert_eq!(t.true_track.map(f64::from), Some(trk));
        assert_eq!(t.ground_speed, Some(gs));
        assert_eq!(t.track_rate.map(f64::from), Some(rate));
        assert_eq!(t.true_airspeed, Some(tas));
    }
}

#[test]
fn test_parse_bds60() {
    let rows = [
        (
            "A00004128F39F91A7E27C46ADC21",
            42.71484375,
            252,
            0.42,
            -1920,
            -1920,
        ),
        (
            "A80004AAA74A072BFDEFC1D5CB4F",
            110.390625,
            259,
            0.700,
            -2144,
            -2016,
        ),
    ];
    for (msg, hdg, ias, mach, baro, ins) in rows {
        let Repr::HeadingAndSpeed(h) = parse_as(msg, Bds::HeadingAndSpeed) else {
            unreachable!()
        };
        assert_eq!(h.magnetic_heading.map(f64::from), Some(hdg), "{msg}");
        assert_eq!(h.indicated_airspeed, Some(ias));
        assert!(close(h.mach, mach, 1e-6));
        assert_eq!(h.baro_vertical_rate, Some(baro));
        assert_eq!(h.inertial_vertical_rate, Some(ins));
    }
}

#[test]
fn test_parse_bds30() {
    // No §8 row; synthetic from the Annex 10 layout: RA active (ARA
    // bit 41 = MB bit 9), "not below" complement, threat a Mode A/C
    // target at 25 000 ft (AC13 with Q = 1), range code 21 (2.0 NM),
    // bearing code 16 (90–96°).
    let tida: u64 = 0x1030;
    assert_eq!(decode_ac13(tida as u16), Some(25_000));
    let mut w = field::HEADER.put(0, 0x30);
    w = field::bds30::ARA.put(w, 0x2000);
    w = field::bds30::RAC.put(w, 0b1000);
    w = field::bds30::TTI.put(w, 2);
    w = field::bds30::TIDA.put(w, tida);
    w = field::bds30::TIDR.put(w, 21);
    w = field::bds30::TIDB.put(w, 16);
    let b = &w.to_be_bytes()[1..];
    let ra = ResolutionAdvisory::parse(&Mb::new_unchecked(b)).unwrap();
    assert_eq!(ra.ara, 0x2000);
    assert_eq!(ra.rac, 0b1000);
    assert!(!ra.terminated && !ra.multiple_threats);
    assert_eq!(ra.threat.altitude(), Some(25_000));
    assert!(close(ra.threat.range_nm(), 2.0, 1e-6));
    let inf = infer(&Mb::new_unchecked(b), &Context::default()).unwrap();
    assert_eq!(inf.best(), Some(Bds::ResolutionAdvisory));
    // TTI = 3 is not assigned.
    let w3 = field::bds30::TTI.put(w, 3);
    assert_eq!(
        fit(
            Bds::ResolutionAdvisory,
            &Mb::new_unchecked(&w3.to_be_bytes()[1..]),
            &Context::default()
        ),
        Err(Reject::Reserved)
    );
}

mod emit;
mod golden;
mod infer;
