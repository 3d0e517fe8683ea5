//! Emit, saturation and parse/emit round trips.

use super::*;

// -- emit and round trips ----------------------------------------------

/// Every §8 row re-emits to its own MB bits.
#[test]
fn test_emit() {
    let rows = [
        ("A800178D10010080F50000D5893C", Bds::DataLinkCapability),
        ("A0000638FA81C10000000081A92F", Bds::CommonUsageCapability),
        ("A000083E202CC371C31DE0AA1CCF", Bds::AircraftIdentification),
        ("A0001993202422F2E37CE038738E", Bds::AircraftIdentification),
        ("A0001838201584F23468207CDFA5", Bds::AircraftIdentification),
        (
            "A000029C85E42F313000007047D3",
            Bds::SelectedVerticalIntention,
        ),
        (
            "A8001EBCAEE57730A80106DE1344",
            Bds::SelectedVerticalIntention,
        ),
        ("A0001692185BD5CF400000DFC696", Bds::MeteorologicalRoutine),
        ("A00004190001FB80000000000000", Bds::MeteorologicalHazard),
        ("A000139381951536E024D4CCF6B5", Bds::TrackAndTurn),
        ("A0001691FFD263377FFCE02B2BF9", Bds::TrackAndTurn),
        ("A80006ACF9363D3BBF9CE98F1E1D", Bds::TrackAndTurn),
        ("A00004128F39F91A7E27C46ADC21", Bds::HeadingAndSpeed),
        ("A80004AAA74A072BFDEFC1D5CB4F", Bds::HeadingAndSpeed),
        ("A0001838E519F33160240142D7FA", Bds::HeadingAndSpeed),
        ("A8001EBCFFFB23286004A73F6A5B", Bds::TrackAndTurn),
    ];
    for (msg, bds) in rows {
        let repr = parse_as(msg, bds);
        assert_eq!(repr.bds(), bds);
        assert_eq!(repr.buffer_len(), MB_LEN);
        let mut out = [0u8; 7];
        repr.emit(&mut Mb::new_unchecked(&mut out[..]));
        assert_eq!(out, mb_of(msg), "{msg}");
    }
}

#[test]
fn test_emit_saturates() {
    let t = TrackAndTurn {
        roll: Some(120.0),
        true_track: Some(-90.0),
        ground_speed: Some(5000),
        track_rate: Some(f32::NAN),
        true_airspeed: Some(3),
    };
    let mut out = [0u8; 7];
    t.emit(&mut Mb::new_unchecked(&mut out[..]));
    let back = TrackAndTurn::parse(&Mb::new_unchecked(&out[..])).unwrap();
    assert_eq!(back.roll, Some(511.0 * 45.0 / 256.0));
    assert_eq!(back.true_track, Some(270.0));
    assert_eq!(back.ground_speed, Some(2046));
    assert_eq!(back.track_rate, Some(0.0));
    assert_eq!(back.true_airspeed, Some(4));

    let h = HeadingAndSpeed {
        magnetic_heading: Some(720.5),
        indicated_airspeed: Some(2000),
        mach: Some(-1.0),
        baro_vertical_rate: Some(i16::MIN),
        inertial_vertical_rate: Some(i16::MAX),
    };
    h.emit(&mut Mb::new_unchecked(&mut out[..]));
    let back = HeadingAndSpeed::parse(&Mb::new_unchecked(&out[..])).unwrap();
    assert!(close(back.magnetic_heading, 0.5, 0.1));
    assert_eq!(back.indicated_airspeed, Some(1023));
    assert_eq!(back.mach, Some(0.0));
    assert_eq!(back.baro_vertical_rate, Some(-16384));
    assert_eq!(back.inertial_vertical_rate, Some(16352));

    let s = SelectedVerticalIntention {
        mcp_altitude: Some(u16::MAX),
        fms_altitude: Some(35_000),
        baro_setting: Some(500.0),
        ..SelectedVerticalIntention::default()
    };
    s.emit(&mut Mb::new_unchecked(&mut out[..]));
    let back = SelectedVerticalIntention::parse(&Mb::new_unchecked(&out[..])).unwrap();
    assert_eq!(back.mcp_altitude, Some(65_520));
    assert_eq!(back.fms_altitude, Some(35_008));
    assert_eq!(back.baro_setting, Some(800.0));

    let id = AircraftIdentification::new("N3550U").unwrap();
    id.emit(&mut Mb::new_unchecked(&mut out[..]));
    assert_eq!(
        AircraftIdentification::parse(&Mb::new_unchecked(&out[..]))
            .unwrap()
            .as_str(),
        "N3550U"
    );
    assert_eq!(
        AircraftIdentification::new("ABCDEFGHI"),
        Err(Error::InvalidCharacter(b'I'))
    );
}

/// Zero what `emit(parse(·))` cannot reproduce: reserved bits, fields
/// whose status bit is 0, TID bits the TTI leaves undefined, and
/// unassigned callsign codes (they decode to `#`, which emits as 0).
fn canonical(bds: Bds, w: u64) -> u64 {
    let gated = |w: u64, fields: &[Gated]| {
        fields
            .iter()
            .fold(w, |w, g| if g.valid(w) { w } else { w & !g.mask() })
    };
    match bds {
        Bds::DataLinkCapability => field::bds10::RESERVED.put(field::HEADER.put(w, 0x10), 0),
        Bds::CommonUsageCapability => field::bds17::RESERVED.put(w, 0),
        Bds::AircraftIdentification => (0..8).fold(field::HEADER.put(w, 0x20), |w, i| {
            let c = field::bds20::char(i);
            if CHARSET[c.get(w) as usize] == b'#' {
                c.put(w, 0)
            } else {
                w
            }
        }),
        Bds::ResolutionAdvisory => {
            use field::bds30::*;
            let w = field::HEADER.put(w, 0x30);
            match TTI.get(w) {
                0 => TID.put(w, 0),
                1 => TID_ADDRESS_PAD.put(w, 0),
                _ => w,
            }
        }
        Bds::SelectedVerticalIntention => {
            use field::bds40::*;
            let w = RESERVED_B.put(RESERVED_A.put(w, 0), 0);
            gated(w, &GATED)
        }
        Bds::MeteorologicalRoutine => {
            use field::bds44::*;
            gated(w, &GATED)
        }
        Bds::MeteorologicalHazard => {
            use field::bds45::*;
            let w = RESERVED.put(w, 0);
            gated(w, &GATED)
        }
        Bds::TrackAndTurn => {
            use field::bds50::*;
            gated(w, &GATED)
        }
        Bds::HeadingAndSpeed => {
            use field::bds60::*;
            gated(w, &GATED)
        }
        Bds::Empty | Bds::Unknown(_) => w,
    }
}

const SUPPORTED: [Bds; 9] = [
    Bds::DataLinkCapability,
    Bds::CommonUsageCapability,
    Bds::AircraftIdentification,
    Bds::ResolutionAdvisory,
    Bds::SelectedVerticalIntention,
    Bds::MeteorologicalRoutine,
    Bds::MeteorologicalHazard,
    Bds::TrackAndTurn,
    Bds::HeadingAndSpeed,
];

fn opt<T: core::fmt::Debug>(s: impl Strategy<Value = T>) -> impl Strategy<Value = Option<T>> {
    proptest::option::of(s)
}

fn emit_parse(repr: &Repr) -> Repr {
    let mut out = [0u8; 7];
    repr.emit(&mut Mb::new_unchecked(&mut out[..]));
    Repr::parse(&Mb::new_unchecked(&out[..]), repr.bds()).unwrap()
}

proptest! {
    #![proptest_config(proptest_config())]

    /// `emit(parse(mb)) == mb` for every register, over random fields.
    #[test]
    fn prop_bits_round_trip(raw in any::<u64>(), which in 0usize..9) {
        let bds = SUPPORTED[which];
        let w = canonical(bds, raw & ((1 << 56) - 1));
        let b = &w.to_be_bytes()[1..];
        let repr = Repr::parse(&Mb::new_unchecked(b), bds).unwrap();
        let mut out = [0u8; 7];
        repr.emit(&mut Mb::new_unchecked(&mut out[..]));
        prop_assert_eq!(&out[..], b, "{}", bds);
    }

    /// `parse(emit(repr)) == repr` for random valid EHS values.
    #[test]
    fn prop_repr_round_trip_ehs(
        roll in opt(-512i32..512), trk in opt(0u32..2048), gs in opt(0u16..1024),
        rate in opt(-512i32..512), tas in opt(0u16..1024),
        hdg in opt(0u32..2048), ias in opt(0u16..1024), mach in opt(0u32..1024),
        baro in opt(-512i16..512), ins in opt(-512i16..512),
        mcp in opt(0u16..4096), fms in opt(0u16..4096), qnh in opt(0u32..4096),
        modes in opt(any::<(bool, bool, bool)>()), src in opt(0u8..4),
    ) {
        let t = Repr::TrackAndTurn(TrackAndTurn {
            roll: roll.map(|r| r as f32 * ROLL_LSB),
            true_track: trk.map(|t| t as f32 * ANGLE11_LSB),
            ground_speed: gs.map(|g| g * 2),
            track_rate: rate.map(|r| r as f32 * TRACK_RATE_LSB),
            true_airspeed: tas.map(|t| t * 2),
        });
        prop_assert_eq!(emit_parse(&t), t);
        let h = Repr::HeadingAndSpeed(HeadingAndSpeed {
            magnetic_heading: hdg.map(|h| h as f32 * ANGLE11_LSB),
            indicated_airspeed: ias,
            mach: mach.map(|m| m as f32 * MACH_LSB),
            baro_vertical_rate: baro.map(|b| b * 32),
            inertial_vertical_rate: ins.map(|i| i * 32),
        });
        prop_assert_eq!(emit_parse(&h), h);
        let s = Repr::SelectedVerticalIntention(SelectedVerticalIntention {
            mcp_altitude: mcp.map(|a| a * 16),
            fms_altitude: fms.map(|a| a * 16),
            baro_setting: qnh.map(|q| 800.0 + q as f32 * 0.1),
            modes: modes.map(|(vnav, alt_hold, approach)| AutopilotModes { vnav, alt_hold, approach }),
            target_source: src.map(TargetAltitudeSource::from),
        });
        prop_assert_eq!(emit_parse(&s), s);
    }

    /// `parse(emit(repr)) == repr` for callsigns, capabilities, RAs and
    /// the meteorological reports.
    #[test]
    fn prop_repr_round_trip_other(
        callsign in "[A-Z][A-Z0-9]{0,7}",
        dlc in any::<(u64, u16)>(),
        mask in 0u32..(1 << 24),
        ara in 0u16..(1 << 14), rac in 0u8..16, rat in any::<bool>(), mte in any::<bool>(),
        tti in 0u8..4, tid in 0u32..(1 << 26),
        fom in 0u8..16, wind in opt((0u16..512, 0u32..512)), sat44 in -1024i32..1024,
        p44 in opt(0u16..2048), turb in opt(0u8..4), hum in opt(0u8..64),
        hz in proptest::array::uniform5(opt(0u8..4)), sat45 in opt(-512i32..512),
        p45 in opt(0u16..2048), rh in opt(0u16..4096),
    ) {
        let id = Repr::AircraftIdentification(AircraftIdentification::new(&callsign).unwrap());
        prop_assert_eq!(emit_parse(&id), id);
        let Repr::AircraftIdentification(back) = emit_parse(&id) else { unreachable!() };
        prop_assert_eq!(back.as_str(), callsign.as_str());

        // Any DataLinkCapability built from in-range fields.
        let (f, dte) = dlc;
        let bit = |n: u32| (f >> n) & 1 != 0;
        let d = Repr::DataLinkCapability(DataLinkCapability {
            continuation: bit(0), overlay_command: bit(1), acas_operational: bit(2),
            subnetwork_version: (f >> 8) as u8 & 0x7F, enhanced_protocol: bit(3),
            specific_services: bit(4), uplink_elm: (f >> 16) as u8 & 7,
            downlink_elm: (f >> 20) as u8 & 15, identification: bit(5), squitter: bit(6),
            surveillance_identifier: bit(7), common_usage_gicb: bit(24),
            hybrid_surveillance: bit(25), acas_resolution_advisory: bit(26),
            acas_version: (f >> 28) as u8 & 3, dte_status: dte,
        });
        prop_assert_eq!(emit_parse(&d), d);

        let c = Repr::CommonUsageCapability(CommonUsageCapability { mask });
        prop_assert_eq!(emit_parse(&c), c);

        let threat = match tti {
            0 => ThreatIdentity::None,
            1 => ThreatIdentity::Address(tid >> 2),
            2 => ThreatIdentity::Position {
                altitude_code: (tid >> 13) as u16,
                range: (tid >> 6) as u8 & 0x7F,
                bearing: tid as u8 & 0x3F,
            },
            _ => ThreatIdentity::Reserved(tid),
        };
        let r = Repr::ResolutionAdvisory(ResolutionAdvisory {
            ara, rac, terminated: rat, multiple_threats: mte, threat,
        });
        prop_assert_eq!(emit_parse(&r), r);

        let m = Repr::MeteorologicalRoutine(MeteorologicalRoutine {
            figure_of_merit: FigureOfMerit::from(fom),
            wind: wind.map(|(speed, dir)| Wind { speed, direction: dir as f32 * WIND_DIR_LSB }),
            static_air_temperature: sat44 as f32 * SAT_LSB,
            static_pressure: p44,
            turbulence: turb.map(Hazard::from),
            humidity: hum.map(|h| h as f32 * HUMIDITY_LSB),
        });
        prop_assert_eq!(emit_parse(&m), m);

        let hz = hz.map(|h| h.map(Hazard::from));
        let mh = Repr::MeteorologicalHazard(MeteorologicalHazard {
            turbulence: hz[0], wind_shear: hz[1], microburst: hz[2], icing: hz[3],
            wake_vortex: hz[4],
            static_air_temperature: sat45.map(|t| t as f32 * SAT_LSB),
            static_pressure: p45,
            radio_height: rh.map(|r| r * 16),
        });
        prop_assert_eq!(emit_parse(&mh), mh);
    }

    /// Inference never panics, every candidate passes `fit` with the
    /// score reported, and the ambiguity flag matches the list.
    #[test]
    fn prop_infer_total(
        raw in any::<[u8; 7]>(),
        gs in opt(0.0f32..800.0), trk in opt(-720.0f32..720.0),
        alt in opt(-2000.0f32..60_000.0), vr in opt(-8000.0f32..8000.0),
        meteorological in any::<bool>(),
    ) {
        let ctx = Context {
            ground_speed_kt: gs, track_deg: trk, altitude_ft: alt,
            vertical_rate_fpm: vr, meteorological,
        };
        let mb = Mb::new_unchecked(&raw[..]);
        let inf = infer(&mb, &ctx).unwrap();
        for &(bds, score) in inf.candidates() {
            prop_assert_eq!(fit(bds, &mb, &ctx), Ok(score));
            prop_assert!(Repr::parse(&mb, bds).is_ok() || bds == Bds::Empty);
        }
        prop_assert!(inf.candidates().windows(2).all(|p| p[0].1 >= p[1].1));
        prop_assert_eq!(inf.is_ambiguous(), inf.best().is_none() && !inf.is_empty());
        if inf.candidates().len() == 1 {
            prop_assert_eq!(inf.best(), Some(inf.candidates()[0].0));
        }
        // Supplying context never adds a candidate.
        let plain = infer(&mb, &Context { meteorological, ..Context::default() }).unwrap();
        for &(bds, _) in inf.candidates() {
            prop_assert!(plain.contains(bds));
        }
    }
}
