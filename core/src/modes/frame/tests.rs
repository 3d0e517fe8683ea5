//! Tests of the frame view and its representation: literal vectors,
//! round trips, malformed lengths, the pyModeS data sets, properties.

extern crate std;
use super::*;
use crate::testing::proptest_config;
use proptest::prelude::*;
use std::vec::Vec;

use crate::testing::hex;

fn parse(h: &str) -> Repr {
    let b = hex(h);
    Repr::parse(&Frame::new_unchecked(&b[..])).unwrap_or_else(|e| panic!("{h}: {e}"))
}

/// parse → emit gives the same bytes.
fn assert_round_trip(h: &str) {
    let b = hex(h);
    let r = Repr::parse(&Frame::new_unchecked(&b[..])).unwrap();
    let mut out = [0u8; 14];
    let out = &mut out[..r.buffer_len()];
    r.emit(&mut Frame::new_unchecked(&mut *out)).unwrap();
    assert_eq!(out, &b[..], "{h}");
}

static FRAME_BYTES: [u8; 14] = [
    0x8d, 0x40, 0x6b, 0x90, 0x20, 0x15, 0xa6, 0x78, 0xd4, 0xd2, 0x20, 0xaa, 0x4b, 0xda,
];

#[test]
fn test_deconstruct() {
    let f = Frame::new_checked(&FRAME_BYTES[..]).unwrap();
    assert_eq!(f.df(), DownlinkFormat::ExtendedSquitter);
    assert_eq!(f.ca(), Capability::Airborne);
    assert_eq!(f.aa(), 0x406B90);
    assert_eq!(f.address(), Some(0x406B90));
    assert_eq!(f.me(), &FRAME_BYTES[4..11]);
    assert_eq!(f.me_bits(), 0x2015A678D4D220);
    assert_eq!(f.parity(), 0xAA4BDA);
    assert_eq!(f.syndrome(), 0);
}

#[test]
fn test_construct() {
    let mut buf = [0u8; 14];
    let mut f = Frame::new_unchecked(&mut buf[..]);
    f.set_df(DownlinkFormat::ExtendedSquitter);
    f.set_ca(Capability::Airborne);
    f.set_aa(0x406B90);
    f.set_me(&[0x20, 0x15, 0xa6, 0x78, 0xd4, 0xd2, 0x20]);
    f.fill_parity(0);
    assert_eq!(buf, FRAME_BYTES);
}

#[test]
fn test_parse() {
    assert_eq!(
        parse("8D406B902015A678D4D220AA4BDA"),
        Repr::ExtendedSquitter {
            ca: Capability::Airborne,
            aa: 0x406B90,
            me: [0x20, 0x15, 0xa6, 0x78, 0xd4, 0xd2, 0x20],
        }
    );
}

#[test]
fn test_emit() {
    let r = Repr::ExtendedSquitter {
        ca: Capability::Airborne,
        aa: 0x406B90,
        me: [0x20, 0x15, 0xa6, 0x78, 0xd4, 0xd2, 0x20],
    };
    assert_eq!(r.buffer_len(), 14);
    let mut buf = [0u8; 14];
    r.emit(&mut Frame::new_unchecked(&mut buf[..])).unwrap();
    assert_eq!(buf, FRAME_BYTES);
    assert_eq!(
        r.emit(&mut Frame::new_unchecked(&mut buf[..7])),
        Err(FrameError::Length {
            expected: 14,
            got: 7
        })
    );
}

/// vectors.md §7.
#[test]
fn test_df4_altitude() {
    for h in ["2000171806A983", "20001718029FCD"] {
        let r = parse(h);
        assert_eq!(r.df(), DownlinkFormat::SurveillanceAltitude, "{h}");
        assert_eq!(r.altitude_ft(), Some(36_000), "{h}");
        assert_round_trip(h);
    }
    assert_eq!(parse("2000171806A983").address(), Some(0x4CA7E8));
    assert_eq!(parse("20001718029FCD").address(), Some(0x4891A6));

    let r = parse("200CBE4ED80137");
    match r {
        Repr::SurveillanceAltitude { dr, um, .. } => {
            assert_eq!(dr, 1);
            assert_eq!(um, (9 << 2) | 1);
            assert_eq!(um, 37);
        }
        r => panic!("{r:?}"),
    }
    assert_round_trip("200CBE4ED80137");

    let r = parse("200012b0d96e39");
    assert_eq!(r.altitude_ft(), Some(29_000));
    assert_eq!(r.address(), Some(0xA3ECCE));
    assert_round_trip("200012b0d96e39");
}

#[test]
fn test_df5_identity() {
    let r = parse("2A00516D492B80");
    assert_eq!(
        r,
        Repr::SurveillanceIdentity {
            address: 0x510AF9,
            fs: FlightStatus::AlertAirborne,
            dr: 0,
            um: 2,
            identity: IdentityCode::from_raw(0x116D),
        }
    );
    assert_eq!(r.squawk(), Some(0x0356));
    let f = Frame::new_checked(hex("2A00516D492B80")).unwrap();
    assert_eq!(f.fs(), FlightStatus::AlertAirborne);
    assert_eq!(f.squawk(), Some(0x0356));
    assert_eq!(f.altitude_ft(), None);
    assert_eq!(f.address(), Some(0x510AF9));
    assert_round_trip("2A00516D492B80");
}

#[test]
fn test_df0_short_acas() {
    let r = parse("02e19cb02512c3");
    assert_eq!(
        r,
        Repr::ShortAcas {
            address: 0x0D097E,
            vs: false,
            cc: true,
            sl: 7,
            ri: 3,
            altitude: AltitudeCode::from_raw(7344),
        }
    );
    assert_eq!(r.altitude_ft(), Some(45_000));
    assert_round_trip("02e19cb02512c3");

    let r = parse("0621776e99b6ad");
    assert!(matches!(r, Repr::ShortAcas { vs: true, .. }), "{r:?}");
    assert_eq!(r.address(), Some(0xA33325));
    // This frame has the spare bits 18–19 set; they are not kept, so it
    // re-emits with them cleared and the parity recomputed for the same
    // address.
    let mut out = [0u8; 7];
    r.emit(&mut Frame::new_unchecked(&mut out[..])).unwrap();
    assert_eq!(&out[..], &hex("0621176edb7ab6")[..]);
    assert_eq!(Repr::parse(&Frame::new_unchecked(&out[..])), Ok(r));
}

#[test]
fn test_df16_long_acas() {
    let r = parse("80e1969058b5025b9850641d2974");
    assert_eq!(r.df(), DownlinkFormat::LongAcas);
    assert_eq!(r.address(), Some(0xAC049E));
    assert_eq!(r.altitude_ft(), Some(35_000));
    let f = Frame::new_checked(hex("80e1969058b5025b9850641d2974")).unwrap();
    assert_eq!(f.mv(), &hex("58b5025b985064")[..]);
    assert_round_trip("80e1969058b5025b9850641d2974");
}

#[test]
fn test_df21_comm_b_identity() {
    let r = parse("AE24238D15EE315463718B1AF755");
    assert_eq!(r.df(), DownlinkFormat::CommBIdentity);
    assert_eq!(r.address(), Some(0xA95FDC));
    assert_eq!(r.squawk(), Some(0x6246));
    assert_round_trip("AE24238D15EE315463718B1AF755");
}

#[test]
fn test_df20_comm_b_altitude() {
    let r = parse("A0001838CA380031440000F24177");
    assert_eq!(r.df(), DownlinkFormat::CommBAltitude);
    assert_eq!(r.address(), Some(0x3C6DD0));
    match r {
        Repr::CommBAltitude { mb, .. } => assert_eq!(mb, [0xCA, 0x38, 0, 0x31, 0x44, 0, 0]),
        r => panic!("{r:?}"),
    }
    assert_round_trip("A0001838CA380031440000F24177");
}

#[test]
fn test_df11_all_call() {
    let cases = [
        ("5dab3d17d4ba29", 0xAB3D17, InterrogatorCode::Ii(1)),
        ("5da039b46d7d81", 0xA039B4, InterrogatorCode::Ii(0)),
        ("5D484FDEA248F5", 0x484FDE, InterrogatorCode::Si(6)),
    ];
    for (h, aa, iid) in cases {
        let r = parse(h);
        assert_eq!(
            r,
            Repr::AllCall {
                ca: Capability::Airborne,
                aa,
                iid
            },
            "{h}"
        );
        let f = Frame::new_checked(hex(h)).unwrap();
        assert_eq!(f.iid(), Some(iid));
        assert_eq!(f.ca().on_ground(), Some(false));
        assert_round_trip(h);
    }
    let r = parse("5da58fd4561b39");
    assert_eq!(r.address(), Some(0xA58FD4));
    assert!(matches!(
        r,
        Repr::AllCall {
            ca: Capability::Airborne,
            ..
        }
    ));
}

#[test]
fn test_df11_capability_codes() {
    // Synthetic first bytes (CRC not valid): only CA is read.
    let cases = [
        (0x5D, Capability::Airborne),
        (0x58, Capability::Level1),
        (0x5C, Capability::Ground),
        (0x5E, Capability::GroundOrAirborne),
        (0x5F, Capability::DownlinkRequestOrAlert),
        (0x59, Capability::Reserved(1)),
    ];
    for (b0, ca) in cases {
        let f = Frame::new_checked([b0, 0x4C, 0xA2, 0xD4, 0, 0, 0]).unwrap();
        assert_eq!(f.df(), DownlinkFormat::AllCall);
        assert_eq!(f.ca(), ca);
        assert_eq!(u8::from(ca), b0 & 7);
    }
    assert_eq!(Capability::from(0x5C).on_ground(), Some(true));
    // A corrupted DF11 is rejected.
    let b = hex("5D4CA2D4000000");
    assert!(matches!(
        Repr::parse(&Frame::new_unchecked(&b[..])),
        Err(FrameError::Parity { .. })
    ));
}

#[test]
fn test_df24_comm_d() {
    let h = "daca7f82613c2db14a49c535a3a2";
    let r = parse(h);
    assert_eq!(r.df(), DownlinkFormat::CommD);
    assert_eq!(r.address(), Some(0xA01F73));
    assert_eq!(
        r,
        Repr::CommD {
            address: 0xA01F73,
            ke: true,
            nd: 10,
            md: [0xca, 0x7f, 0x82, 0x61, 0x3c, 0x2d, 0xb1, 0x4a, 0x49, 0xc5],
        }
    );
    assert_round_trip(h);
    // Any first two bits 11 is DF24.
    for b0 in 0xC0..=0xFFu8 {
        assert_eq!(Frame::new_unchecked([b0]).df(), DownlinkFormat::CommD);
    }
}

#[test]
fn test_df17_df18_vectors() {
    for h in [
        "8D406B902015A678D4D220AA4BDA",
        "8d8960ed58bf053cf11bc5932b7d",
        "8d45cab390c39509496ca9a32912",
        "8d49d3d4e1089d00000000744c3b",
        "8d74802958c904e6ef4ba0184d5c",
        "8d4400cd9b0000b4f87000e71a10",
        "8d4065de58a1054a7ef0218e226a",
    ] {
        assert_eq!(parse(h).df(), DownlinkFormat::ExtendedSquitter);
        assert_round_trip(h);
    }
    // DF18 CF 6 (ADS-R), CF 5 (TIS-B non-ICAO), CF 2 (TIS-B fine).
    for (h, cf, aa) in [
        ("96A082FB213B1CF2113820D6EDDF", ControlField::AdsR, 0xA082FB),
        (
            "95298FCA680946499671468C7ACA",
            ControlField::TisbNonIcao,
            0x298FCA,
        ),
        (
            "92A24528993C238900062053CDEF",
            ControlField::TisbFine,
            0xA24528,
        ),
        (
            "903a23ff426a38565950432ebf95",
            ControlField::AdsbIcao,
            0x3A23FF,
        ),
    ] {
        let r = parse(h);
        assert_eq!(
            r,
            Repr::ExtendedSquitterNonTransponder {
                cf,
                aa,
                me: Frame::new_unchecked(hex(h)).me().try_into().unwrap()
            },
            "{h}"
        );
        assert_round_trip(h);
    }
    // Corrupted DF17 (§1: remainder 0x000010).
    let b = hex("8D4CA251204994B1C36E60A5343D");
    assert_eq!(
        Repr::parse(&Frame::new_unchecked(&b[..])),
        Err(FrameError::Parity { syndrome: 0x10 })
    );
}

#[test]
fn test_ap_addresses() {
    // vectors.md §1 address/parity recovery.
    for (h, a) in [
        ("02e19cb02512c3", 0x0D097E),
        ("80e1969058b5025b9850641d2974", 0xAC049E),
        ("0621776e99b6ad", 0xA33325),
        ("AE24238D15EE315463718B1AF755", 0xA95FDC),
        ("200012b0d96e39", 0xA3ECCE),
        ("2A00516D492B80", 0x510AF9),
        ("20001718029FCD", 0x4891A6),
        ("2000171806A983", 0x4CA7E8),
        ("A0001838CA380031440000F24177", 0x3C6DD0),
        ("c80b2dca34aa21dd821a04cb64d4", 0xA392B4),
        ("a800089d8094e33a6004e4b8a522", 0x4953D4),
        ("a8000614a50b6d32bed000bbe0ed", 0x565D57),
        ("a0000410bc900010a40000f5f477", 0xB2F342),
    ] {
        let f = Frame::new_checked(hex(h)).unwrap();
        assert_eq!(f.address(), Some(a), "{h}");
        assert_eq!(parse(h).address(), Some(a), "{h}");
        if h != "0621776e99b6ad" {
            // (that one has spare bits set; see test_df0_short_acas)
            assert_round_trip(h);
        }
    }
    // DF22 (unassigned): no address, but the remainder is still there.
    let f = Frame::new_checked(hex("b0001718c65632b0a82040715b65")).unwrap();
    assert_eq!(f.df(), DownlinkFormat::Unknown(22));
    assert_eq!((f.address(), f.syndrome()), (None, 353_333));
    assert_round_trip("b0001718c65632b0a82040715b65");
}

#[test]
fn test_malformed_lengths() {
    let long = hex("8D406B902015A678D4D220AA4BDA");
    for n in 0..20 {
        let v = [&long[..], &long[..]].concat();
        let r = Frame::new_checked(&v[..n]);
        if n == 14 {
            assert!(r.is_ok());
        } else {
            let expected = if n == 0 { 7 } else { 14 };
            assert_eq!(r.unwrap_err(), FrameError::Length { expected, got: n });
            assert!(Repr::parse(&Frame::new_unchecked(&v[..n])).is_err());
        }
    }
    let short = hex("5da039b46d7d81");
    assert!(Frame::new_checked(&short[..6]).is_err());
    assert!(Frame::new_checked([&short[..], &[0]].concat()).is_err());
    assert!(Frame::new_checked(&short[..]).is_ok());
    // Accessors on a short or empty buffer do not panic.
    let f = Frame::new_unchecked(&short[..]);
    assert!(f.me().is_empty());
    assert_eq!(f.me_bits(), 0);
    let e = Frame::new_unchecked(&[][..]);
    assert_eq!((e.aa(), e.parity(), e.address()), (0, 0, Some(0)));
}

#[test]
fn test_unknown_df_kept() {
    let mut b = [0x08u8, 1, 2, 3, 4, 5, 6]; // DF1
    let r = Repr::parse(&Frame::new_unchecked(&b[..])).unwrap();
    assert_eq!(r.df(), DownlinkFormat::Unknown(1));
    assert_eq!(r.address(), None);
    b.fill(0);
    r.emit(&mut Frame::new_unchecked(&mut b[..])).unwrap();
    assert_eq!(b, [0x08, 1, 2, 3, 4, 5, 6]);
}

#[test]
#[cfg_attr(miri, ignore)]
fn test_data_files() {
    // Every frame of the pyModeS sets parses (DF17 if its remainder is
    // 0), yields the ICAO address listed next to it (AA for DF17, AP
    // recovery for DF20/21) and re-emits bit-exactly. Three DF20 rows
    // list an address that their AP field does not give (corrupted
    // frames in the set; independent Python check agrees).
    let listed_wrong = [
        "A03F40002EC423613A3527BE77D1",
        "A000009CC6500030AA0000E16CC9",
        "A6FAA2A000161DB2C80030A40000",
    ];
    for name in [
        "pymodes_adsb.csv",
        "pymodes_commb_df20.csv",
        "pymodes_commb_df21.csv",
    ] {
        let Some(text) = crate::testing::shared_text(&std::format!("adsb/{name}")) else {
            continue;
        };
        let (mut seen, mut bad_crc) = (0, 0);
        for line in text.lines() {
            let cols: Vec<&str> = line.split(',').map(|t| t.trim_matches('"')).collect();
            let Some(h) = cols.iter().find(|t| t.len() == 28) else {
                continue;
            };
            let Some(icao) = cols.iter().find(|t| t.len() == 6) else {
                continue;
            };
            let icao = u32::from_str_radix(icao, 16).unwrap();
            let b = hex(h);
            let f = Frame::new_checked(&b[..]).unwrap();
            if listed_wrong.contains(h) {
                assert_ne!(f.address(), Some(icao), "{name} {h}");
                continue;
            }
            assert_eq!(f.address(), Some(icao), "{name} {h}");
            let r = match Repr::parse(&f) {
                Ok(r) => r,
                Err(FrameError::Parity { .. }) => {
                    bad_crc += 1;
                    continue;
                }
                Err(e) => panic!("{h}: {e}"),
            };
            assert_eq!(r.address(), Some(icao), "{name} {h}");
            if f.df() == DownlinkFormat::ShortAcas || f.df() == DownlinkFormat::LongAcas {
                continue;
            }
            let mut out = [0u8; 14];
            r.emit(&mut Frame::new_unchecked(&mut out[..])).unwrap();
            assert_eq!(&out[..], &b[..], "{h}");
            seen += 1;
        }
        std::eprintln!("{name}: {seen} frames round-tripped, {bad_crc} with bad CRC");
        assert!(seen > 1000, "{name}");
    }
}

/// Turn random bytes into a valid frame: spare bits cleared, parity
/// filled as the DF requires.
fn normalise(mut b: Vec<u8>, overlay: u32) -> Vec<u8> {
    b.truncate(len_for(b[0]));
    let df = DownlinkFormat::from(b[0] >> 3);
    match df {
        DownlinkFormat::ShortAcas => {
            b[0] &= 0xFE;
            b[1] &= 0xE7;
            b[2] &= 0x9F;
        }
        DownlinkFormat::LongAcas => {
            b[0] &= 0xFC;
            b[1] &= 0xE7;
            b[2] &= 0x9F;
        }
        DownlinkFormat::CommD => b[0] &= 0xDF,
        _ => {}
    }
    let overlay = match df {
        DownlinkFormat::ExtendedSquitter | DownlinkFormat::ExtendedSquitterNonTransponder => 0,
        DownlinkFormat::AllCall => overlay % 0x50,
        DownlinkFormat::MilitaryExtendedSquitter | DownlinkFormat::Unknown(_) => return b,
        _ => overlay,
    };
    Frame::new_unchecked(&mut b[..]).fill_parity(overlay);
    b
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn prop_round_trip_valid_frames(
        bytes in proptest::collection::vec(any::<u8>(), 14),
        overlay in 0u32..0x100_0000,
    ) {
        let b = normalise(bytes, overlay);
        let r = Repr::parse(&Frame::new_checked(&b[..]).unwrap()).unwrap();
        let mut out = [0u8; 14];
        let out = &mut out[..r.buffer_len()];
        r.emit(&mut Frame::new_unchecked(&mut *out)).unwrap();
        prop_assert_eq!(&out[..], &b[..]);
        let r2 = Repr::parse(&Frame::new_unchecked(&*out)).unwrap();
        prop_assert_eq!(r, r2);
    }

    #[test]
    fn prop_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..20)) {
        let f = Frame::new_unchecked(&bytes[..]);
        let _ = (f.df(), f.ca(), f.cf(), f.af(), f.fs(), f.vs(), f.cc(), f.sl(), f.ri());
        let _ = (f.dr(), f.um(), f.ac13(), f.id13(), f.altitude_ft(), f.squawk(), f.aa());
        let _ = (f.parity(), f.syndrome(), f.address(), f.iid(), f.me(), f.me_bits());
        let _ = (f.mb(), f.mv(), f.md(), f.ke(), f.nd(), f.is_long(), f.check_len());
        if let Ok(r) = Repr::parse(&f) {
            let mut out = [0u8; 14];
            let out = &mut out[..r.buffer_len()];
            r.emit(&mut Frame::new_unchecked(&mut *out)).unwrap();
            prop_assert_eq!(Repr::parse(&Frame::new_unchecked(&*out)).unwrap(), r);
        }
        let mut m = bytes.clone();
        let mut f = Frame::new_unchecked(&mut m[..]);
        f.set_aa(0xFFFFFF);
        f.set_me(&[0xFF; 7]);
        f.set_md(&[0xFF; 10]);
        f.set_ri(0xFF);
        f.set_um(0xFF);
        f.set_ac13(0xFFFF);
        f.fill_parity(0x123456);
        f.set_df(DownlinkFormat::CommD);
    }
}
