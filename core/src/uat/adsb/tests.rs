use super::*;

fn hex<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

/// Payload type 1, built bit by bit from the DO-282B layout: address
/// A1B2C3 (ADS-B, ICAO), 37.500007° N 122.255859° W, 11,500 ft pressure
/// altitude, NIC 8, airborne 120 kt north and 50 kt west, −512 ft/min
/// barometric, UTC coupled; mode status category A1, call sign N123AB,
/// MOPS 2, SIL 3, MSO 5, SDA 2, NACp 9, NACv 1, NICbaro 1, UAT in, IDENT,
/// GVA 2, NIC supplement; secondary (geometric) altitude 11,750 ft.
const TYPE1: &str = "08a1b2c33555575220001f5801e619e09809d90d024a840b16938a90001ff0000000";

#[test]
fn test_literal_long_message() {
    let bytes: [u8; 34] = hex(TYPE1);
    let msg = Downlink::new_checked(&bytes[..]).unwrap();
    assert_eq!(msg.payload_type(), 1);
    assert_eq!(msg.address(), 0xA1B2C3);
    let r = DownlinkRepr::parse(&msg).unwrap();
    assert_eq!(r.qualifier, AddressQualifier::AdsbIcao);
    let sv = r.state.unwrap();
    let p = sv.position.unwrap();
    assert!((p.lat - 37.500_007_152_557_37).abs() < 1e-12);
    assert!((p.lon + 122.255_859_375).abs() < 1e-12);
    assert_eq!(sv.altitude, Some(Altitude::Pressure(11_500)));
    assert_eq!(sv.nic, 8);
    assert_eq!(sv.air_ground, AirGround::Subsonic);
    assert_eq!(
        sv.motion,
        Motion::Airborne {
            north_kt: Some(120),
            east_kt: Some(-50),
            vertical_fpm: Some((-512, true)),
        }
    );
    let (gs, trk) = sv.speed_and_track().unwrap();
    assert!((gs - 130.0).abs() < 1e-3);
    assert!((trk - 337.380_13).abs() < 1e-3);
    assert!(sv.utc_coupled);
    assert_eq!(sv.tisb_site_id, None);
    let ms = r.status.unwrap();
    let mut buf = [0u8; 8];
    assert_eq!(ms.text(&mut buf), "N123AB");
    assert!(ms.is_callsign);
    assert_eq!(ms.category_code(), Some(*b"A1"));
    assert_eq!(
        (ms.mops_version, ms.sil, ms.transmit_mso, ms.sda),
        (2, 3, 5, 2)
    );
    assert_eq!((ms.nac_p, ms.nac_v, ms.nic_baro), (9, 1, true));
    assert!(ms.ident());
    assert_eq!(
        (ms.gva, ms.single_antenna, ms.nic_supplement),
        (2, false, true)
    );
    assert_eq!(ms.squawk(), None);
    assert_eq!(r.aux.unwrap().altitude, Some(Altitude::Geometric(11_750)));
    assert_eq!(r.target, None);

    // Emitting the parse gives the same bytes.
    let mut out = [0xAAu8; 34];
    r.emit(&mut Downlink::new_unchecked(&mut out[..]));
    assert_eq!(out, bytes);
}

#[test]
fn test_basic_ground_and_tisb() {
    let r = DownlinkRepr {
        payload_type: 0,
        qualifier: AddressQualifier::TisbIcao,
        address: 0x00_1234,
        state: Some(StateVector {
            position: Some(Position {
                lat: -33.9,
                lon: 151.2,
            }),
            altitude: Some(Altitude::Pressure(-1000)),
            nic: 7,
            air_ground: AirGround::Ground,
            motion: Motion::Ground {
                speed_kt: Some(12),
                direction: Some(Direction::TrueHeading(90.0)),
                size: 5,
            },
            utc_coupled: false,
            uplink_feedback: None,
            tisb_site_id: Some(9),
        }),
        status: None,
        aux: None,
        target: None,
    };
    let mut out = [0u8; 18];
    r.emit(&mut Downlink::new_unchecked(&mut out[..]));
    let back = DownlinkRepr::parse(&Downlink::new_checked(&out[..]).unwrap()).unwrap();
    let sv = back.state.unwrap();
    let p = sv.position.unwrap();
    assert!((p.lat + 33.9).abs() < 3e-5 && (p.lon - 151.2).abs() < 3e-5);
    assert_eq!(sv.altitude, Some(Altitude::Pressure(-1000)));
    assert_eq!(sv.motion, r.state.unwrap().motion);
    assert_eq!(sv.tisb_site_id, Some(9));
    assert!(back.qualifier.is_rebroadcast());
}

#[test]
fn test_target_state_and_squawk() {
    let mut chars = [36u8; 8];
    chars[..4].copy_from_slice(&[7, 5, 0, 0]);
    let r = DownlinkRepr {
        payload_type: 3,
        qualifier: AddressQualifier::AdsbOther,
        address: 0xABCDEF,
        state: None,
        status: Some(ModeStatus {
            emitter_category: 7,
            chars,
            is_callsign: false,
            emergency: 5,
            mops_version: 2,
            sil: 0,
            transmit_mso: 0,
            sda: 0,
            nac_p: 0,
            nac_v: 0,
            nic_baro: false,
            flags: 0,
            gva: 0,
            single_antenna: true,
            nic_supplement: false,
        }),
        aux: None,
        target: Some(TargetState {
            selected_altitude_ft: Some((35_008, true)),
            baro_setting_hpa: Some(1013.6),
            selected_heading_deg: Some(-90.0),
            modes: Some(0b10101),
        }),
    };
    let mut out = [0u8; 34];
    r.emit(&mut Downlink::new_unchecked(&mut out[..]));
    let back = DownlinkRepr::parse(&Downlink::new_checked(&out[..]).unwrap()).unwrap();
    let ms = back.status.unwrap();
    assert_eq!(ms.squawk(), Some(0x7500));
    assert_eq!(ms.emergency, 5);
    assert_eq!(ms.category_code(), Some(*b"A7"));
    let ts = back.target.unwrap();
    assert_eq!(ts.selected_altitude_ft, Some((35_008, true)));
    assert!((ts.baro_setting_hpa.unwrap() - 1013.6).abs() < 0.01);
    assert_eq!(ts.selected_heading_deg, Some(-90.0));
    assert_eq!(ts.modes, Some(0b10101));
    // No state vector was given: all its fields read as absent.
    let sv = back.state.unwrap();
    assert_eq!((sv.position, sv.altitude), (None, None));
}

#[test]
fn test_lengths_checked_and_nothing_panics() {
    assert_eq!(
        Downlink::new_checked(&[0x08u8; 18][..]),
        Err(ParseError::BadLength {
            expected: 34,
            got: 18
        })
    );
    assert!(Downlink::new_checked(&[0u8; 34][..]).is_err());
    for len in 0..40 {
        let buf = [0xFFu8; 40];
        let m = Downlink::new_unchecked(&buf[..len]);
        let _ = (m.payload_type(), m.address(), m.raw_position(), m.nic());
        let _ = DownlinkRepr::parse(&m);
    }
    // Types 11–31 carry the header only.
    let mut b = [0u8; 34];
    b[0] = 20 << 3;
    let r = DownlinkRepr::parse(&Downlink::new_checked(&b[..]).unwrap()).unwrap();
    assert_eq!(
        (r.state, r.status, r.aux, r.target),
        (None, None, None, None)
    );
}
