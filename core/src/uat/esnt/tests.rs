extern crate std;

use super::*;
use crate::modes::adsb::AdsbRepr;
use crate::modes::frame::DownlinkFormat;
use crate::modes::tracker::{AddressType, NON_ICAO, ReceivedFrame, Tracker, TrackerConfig};
use crate::uat::adsb::{AuxStateVector, ModeStatus, StateVector, TargetState as UatTarget};

fn status(text: &str, is_callsign: bool, category: u8, emergency: u8) -> ModeStatus {
    ModeStatus {
        emitter_category: category,
        chars: ModeStatus::chars_of(text).unwrap(),
        is_callsign,
        emergency,
        mops_version: 2,
        sil: 3,
        transmit_mso: 0,
        sda: 2,
        nac_p: 9,
        nac_v: 1,
        nic_baro: true,
        flags: 0,
        gva: 2,
        single_antenna: false,
        nic_supplement: false,
    }
}

/// An airborne ADS-B target near Denver: 39.7° N 104.9° W, 5,000 ft
/// pressure altitude (5,200 ft geometric in the auxiliary state vector),
/// 100 kt north and 50 kt west, climbing 640 ft/min, N123AB (A1).
fn airborne() -> DownlinkRepr {
    DownlinkRepr {
        payload_type: 1,
        qualifier: AddressQualifier::AdsbIcao,
        address: 0xA0_0001,
        state: Some(StateVector {
            position: Some(Position::new(39.7, -104.9)),
            altitude: Some(Altitude::Pressure(5_000)),
            nic: 8,
            air_ground: AirGround::Subsonic,
            motion: Motion::Airborne {
                north_kt: Some(100),
                east_kt: Some(-50),
                vertical_fpm: Some((640, true)),
            },
            utc_coupled: true,
            uplink_feedback: Some(0),
            tisb_site_id: None,
        }),
        status: Some(status("N123AB", true, 1, 0)),
        aux: Some(AuxStateVector {
            altitude: Some(Altitude::Geometric(5_200)),
        }),
        target: None,
    }
}

fn frames(msg: &DownlinkRepr) -> std::vec::Vec<EsFrame> {
    let mut out = [[0u8; 14]; MAX_FRAMES];
    let n = translate(msg, &mut out);
    out[..n].to_vec()
}

#[test]
fn test_frames_are_valid_df18_with_the_mapped_control_field() {
    let f = frames(&airborne());
    // Even + odd position, velocity, identification, operational status.
    assert_eq!(f.len(), 5);
    for b in &f {
        let frame = Frame::new_checked(&b[..]).unwrap();
        assert_eq!(frame.df(), DownlinkFormat::ExtendedSquitterNonTransponder);
        assert_eq!(frame.cf(), ControlField::AdsR);
        assert_eq!(frame.aa(), 0xA0_0001);
        assert_eq!(frame.syndrome(), 0, "{b:02X?}");
    }
    let kinds: std::vec::Vec<u8> = f
        .iter()
        .map(|b| AdsbRepr::parse(&b[4..11]).unwrap().type_code())
        .collect();
    // NIC 8 with a pressure altitude: TC 11.
    assert_eq!(kinds, [11, 11, 19, 4, 31]);
}

#[test]
fn test_a_tracker_fed_the_frames_sees_the_uat_target() {
    let mut t = Tracker::<8>::new(TrackerConfig::DEFAULT);
    for b in frames(&airborne()) {
        t.update(&ReceivedFrame::new(&b, 1_000).as_uat()).unwrap();
    }
    let ac = t.get(0xA0_0001).unwrap();
    assert_eq!(ac.address_type(), AddressType::AdsR);
    let p = ac.position().unwrap().position;
    // CPR airborne resolution is about 5 m.
    assert!(
        (p.lat - 39.7).abs() < 1e-4 && (p.lon + 104.9).abs() < 1e-4,
        "{p:?}"
    );
    assert_eq!(ac.altitude_baro_ft(), Some(5_000));
    assert_eq!(ac.gnss_baro_diff_ft(), Some(200));
    let gs = ac.ground_speed_kt().unwrap();
    assert!((gs - 111.8).abs() < 0.1, "{gs}");
    let trk = ac.track_deg().unwrap();
    assert!((trk - 333.43).abs() < 0.1, "{trk}");
    assert_eq!(ac.vertical_rate_baro_fpm(), Some(640));
    assert_eq!(ac.callsign(), Some("N123AB"));
    assert_eq!(ac.category().map(|c| (c.type_code(), c.ca())), Some((4, 1)));
    assert_eq!(ac.adsb_version(), Some(2));
    assert_eq!((ac.nac_p(), ac.nac_v()), (Some(9), Some(1)));
    assert!(ac.heard_on_uat() && ac.uat_position() && !ac.heard_on_1090());
}

#[test]
fn test_one_aircraft_heard_on_both_links() {
    let mut t = Tracker::<8>::new(TrackerConfig::DEFAULT);
    for b in frames(&airborne()) {
        t.update(&ReceivedFrame::new(&b, 1_000).as_uat()).unwrap();
    }
    // The same address's own DF17 identification on 1090 MHz.
    let id = AdsbRepr::Identification(Identification {
        category: Category::new(4, 1).unwrap(),
        callsign: Callsign::from_ascii(b"N123AB").unwrap(),
    });
    let mut df17 = [0u8; 14];
    Repr::ExtendedSquitter {
        ca: crate::modes::frame::Capability::Airborne,
        aa: 0xA0_0001,
        me: id.to_bytes(),
    }
    .emit(&mut Frame::new_unchecked(&mut df17[..]))
    .unwrap();
    t.update(&ReceivedFrame::new(&df17, 1_500)).unwrap();
    assert_eq!(t.len(), 1);
    let ac = t.get(0xA0_0001).unwrap();
    assert!(ac.heard_on_uat() && ac.heard_on_1090());
    // The better address type wins; the position is still UAT's.
    assert_eq!(ac.address_type(), AddressType::AdsbIcao);
    assert!(ac.uat_position());
}

#[test]
fn test_emitter_categories_map_to_sets_a_to_d() {
    let category = |code: u8| {
        let mut msg = airborne();
        msg.status = Some(status("N123AB", true, code, 0));
        frames(&msg)
            .iter()
            .find_map(|b| match AdsbRepr::parse(&b[4..11]).unwrap() {
                AdsbRepr::Identification(id) => Some((id.category.type_code(), id.category.ca())),
                _ => None,
            })
            .unwrap()
    };
    // A1 light, B2 lighter than air, C3 fixed obstacle, D7 reserved.
    assert_eq!(category(1), (4, 1));
    assert_eq!(category(10), (3, 2));
    assert_eq!(category(19), (2, 3));
    assert_eq!(category(31), (1, 7));
    // Past D7: no information, not a D code.
    assert_eq!(category(35), (4, 0));
}

#[test]
fn test_tisb_track_file_is_non_icao() {
    let mut msg = airborne();
    msg.qualifier = AddressQualifier::TisbTrackFile;
    msg.status = None;
    let f = frames(&msg);
    assert_eq!(f.len(), 3);
    let mut t = Tracker::<8>::new(TrackerConfig::DEFAULT);
    for b in &f {
        assert_eq!(
            Frame::new_checked(&b[..]).unwrap().cf(),
            ControlField::TisbNonIcao
        );
        t.update(&ReceivedFrame::new(b, 0)).unwrap();
    }
    let ac = t.get(0xA0_0001 | NON_ICAO).unwrap();
    assert_eq!(ac.address_type(), AddressType::TisbOther);
    msg.qualifier = AddressQualifier::Reserved;
    assert!(frames(&msg).is_empty());
}

#[test]
fn test_ground_target_squawk_and_emergency() {
    let msg = DownlinkRepr {
        payload_type: 1,
        qualifier: AddressQualifier::AdsbIcao,
        address: 0xA0_0002,
        state: Some(StateVector {
            position: Some(Position::new(39.86, -104.67)),
            altitude: Some(Altitude::Pressure(5_425)),
            nic: 10,
            air_ground: AirGround::Ground,
            motion: Motion::Ground {
                speed_kt: Some(15),
                direction: Some(Direction::TrueTrack(90.0)),
                size: 0,
            },
            utc_coupled: true,
            uplink_feedback: Some(0),
            tisb_site_id: None,
        }),
        status: Some(status("7700", false, 1, 1)),
        aux: None,
        target: None,
    };
    let f = frames(&msg);
    let reprs: std::vec::Vec<AdsbRepr> = f
        .iter()
        .map(|b| AdsbRepr::parse(&b[4..11]).unwrap())
        .collect();
    assert_eq!(reprs.len(), 4, "{reprs:?}");
    let AdsbRepr::SurfacePosition(p) = reprs[0] else {
        panic!("{:?}", reprs[0]);
    };
    assert_eq!(p.type_code(), 6);
    assert_eq!(p.speed_kt(), Some(15.0));
    assert_eq!(p.track_deg(), Some(90.0));
    let AdsbRepr::AircraftStatus(AircraftStatus::Emergency(e)) = reprs[2] else {
        panic!("{:?}", reprs[2]);
    };
    assert_eq!((e.state, e.squawk()), (EmergencyState::General, 0x7700));
    let AdsbRepr::OperationalStatus(ops) = reprs[3] else {
        panic!("{:?}", reprs[3]);
    };
    assert!(matches!(ops.capability, CapabilityClass::Surface { .. }));
    // The tracker, told where the receiver is, decodes the surface pair.
    let cfg = TrackerConfig {
        receiver: Some(Position::new(39.8, -104.7)),
        ..TrackerConfig::DEFAULT
    };
    let mut t = Tracker::<8>::new(cfg);
    for b in &f {
        t.update(&ReceivedFrame::new(b, 0)).unwrap();
    }
    let ac = t.get(0xA0_0002).unwrap();
    assert_eq!(ac.on_ground(), Some(true));
    assert_eq!(ac.squawk(), Some(0x7700));
    let pos = ac.position().unwrap().position;
    assert!((pos.lat - 39.86).abs() < 1e-4 && (pos.lon + 104.67).abs() < 1e-4);
}

#[test]
fn test_target_state_and_gnss_only_position() {
    let mut msg = airborne();
    msg.payload_type = 3;
    if let Some(sv) = msg.state.as_mut() {
        sv.altitude = Some(Altitude::Geometric(9_000));
        sv.nic = 11;
    }
    msg.aux = None;
    msg.status = None;
    msg.target = Some(UatTarget {
        selected_altitude_ft: Some((11_008, false)),
        baro_setting_hpa: Some(1013.6),
        selected_heading_deg: Some(-90.0),
        modes: Some(0b10001),
    });
    let reprs: std::vec::Vec<AdsbRepr> = frames(&msg)
        .iter()
        .map(|b| AdsbRepr::parse(&b[4..11]).unwrap())
        .collect();
    // GNSS height only, NIC 11: TC 20.
    let AdsbRepr::AirbornePosition(p) = reprs[0] else {
        panic!("{:?}", reprs[0]);
    };
    assert_eq!(p.type_code(), 20);
    let AdsbRepr::TargetState(TargetState::V2(ts)) = reprs[3] else {
        panic!("{:?}", reprs[3]);
    };
    assert_eq!(ts.selected_altitude_ft(), Some(11_008));
    assert!((ts.baro_setting_hpa().unwrap() - 1013.6).abs() < 0.01);
    assert_eq!(ts.selected_heading_deg(), Some(270.0));
    assert!(ts.mode_valid && ts.autopilot && ts.lnav && !ts.vnav);
}

#[test]
fn test_nothing_panics_on_extreme_values() {
    let mut msg = airborne();
    if let Some(sv) = msg.state.as_mut() {
        sv.altitude = Some(Altitude::Pressure(i32::MAX));
        sv.motion = Motion::Airborne {
            north_kt: Some(i32::MIN),
            east_kt: Some(i32::MAX),
            vertical_fpm: Some((i32::MIN, false)),
        };
        sv.air_ground = AirGround::Supersonic;
    }
    msg.target = Some(UatTarget {
        selected_altitude_ft: Some((i32::MIN, true)),
        baro_setting_hpa: Some(f32::NAN),
        selected_heading_deg: Some(f32::INFINITY),
        modes: None,
    });
    msg.status = Some(status("N123AB", true, 1, 3));
    let f = frames(&msg);
    assert_eq!(f.len(), MAX_FRAMES);
    for b in &f {
        assert_eq!(Frame::new_checked(&b[..]).unwrap().syndrome(), 0);
    }
}
