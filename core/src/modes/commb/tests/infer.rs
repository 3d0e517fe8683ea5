//! Inference on the vectors of vectors.md §8 and the Riddle.

use super::*;

// -- vectors.md §8, inference ------------------------------------------

/// Every §8 row: the registers `infer` returns without context, with
/// the DF20 altitude as context, and with the meteorological registers
/// enabled.
#[test]
fn test_infer_vectors() {
    use Bds::*;
    #[rustfmt::skip]
    let rows: [(&str, &[Bds], &[Bds]); 15] = [
        ("A800178D10010080F50000D5893C", &[DataLinkCapability], &[DataLinkCapability]),
        // pyModeS also lists 4,5 (severe turbulence, moderate wind
        // shear, light microburst, −63 °C): with the meteorological
        // registers on, the ambiguity is reported.
        ("A0000638FA81C10000000081A92F", &[CommonUsageCapability], &[CommonUsageCapability, MeteorologicalHazard]),
        ("A000083E202CC371C31DE0AA1CCF", &[AircraftIdentification], &[AircraftIdentification]),
        ("A0001993202422F2E37CE038738E", &[AircraftIdentification], &[AircraftIdentification]),
        ("A0001838201584F23468207CDFA5", &[AircraftIdentification], &[AircraftIdentification]),
        ("A000029C85E42F313000007047D3", &[SelectedVerticalIntention], &[SelectedVerticalIntention]),
        ("A8001EBCAEE57730A80106DE1344", &[SelectedVerticalIntention], &[SelectedVerticalIntention]),
        // MRAR/MHR are only tried on request.
        ("A0001692185BD5CF400000DFC696", &[], &[MeteorologicalRoutine]),
        ("A00004190001FB80000000000000", &[], &[MeteorologicalHazard]),
        ("A000139381951536E024D4CCF6B5", &[TrackAndTurn], &[TrackAndTurn]),
        ("A0001691FFD263377FFCE02B2BF9", &[TrackAndTurn], &[TrackAndTurn]),
        ("A80006ACF9363D3BBF9CE98F1E1D", &[TrackAndTurn], &[TrackAndTurn]),
        ("A00004128F39F91A7E27C46ADC21", &[HeadingAndSpeed], &[HeadingAndSpeed]),
        ("A80004AAA74A072BFDEFC1D5CB4F", &[HeadingAndSpeed], &[HeadingAndSpeed]),
        // The Riddle ch. 19 pair, see `test_infer_riddle_pair`.
        ("A0001838E519F33160240142D7FA", &[HeadingAndSpeed], &[HeadingAndSpeed]),
    ];
    for (msg, plain, with_meteo) in rows {
        let msg_bytes = hex(msg);
        let got = bds_list(&infer_hex(msg, &Context::default()));
        assert_eq!(got, plain, "{msg} without context");
        let inf = infer_hex(msg, &own_context(&msg_bytes));
        assert_eq!(bds_list(&inf), plain, "{msg} with its own altitude");
        assert_eq!(inf.best(), plain.first().copied());
        let mut ctx = own_context(&msg_bytes);
        ctx.meteorological = true;
        let inf = infer_hex(msg, &ctx);
        assert_eq!(bds_list(&inf), with_meteo, "{msg} with 4,4/4,5");
        assert_eq!(inf.is_ambiguous(), with_meteo.len() > 1);
    }
}

/// vectors.md §8 last row: "5,0 vs 6,0, fit both; needs context"
/// (Riddle ch. 19, pyModeS). Both replies fit both registers' *bit
/// pattern* (status bits, reserved bits, single-field ranges): the first
/// check that fails is a cross-field one. The DF20 reply is 6,0 (as 5,0
/// its GS 394 kt against TAS 2 kt needs a 392 kt wind; its IAS 249 kt
/// at Mach 0.788 puts it at FL380, its own altitude); the DF21 reply is
/// 5,0 (as 6,0 its barometric rate 0 and inertial rate +5344 ft/min
/// contradict each other). The brief's consistency rules separate them
/// without context, where the Riddle needed the ADS-B reference (GS
/// 320 kt, track 250°, 14 000 ft) for the second; that reference
/// confirms the same answer.
#[test]
fn test_infer_riddle_pair() {
    let none = Context::default();
    let df20 = mb_of("A0001838E519F33160240142D7FA");
    let df20 = Mb::new_unchecked(&df20[..]);
    assert_eq!(
        fit(Bds::TrackAndTurn, &df20, &none),
        Err(Reject::Consistency)
    );
    assert!(fit(Bds::HeadingAndSpeed, &df20, &none).is_ok());
    let own = own_context(&hex("A0001838E519F33160240142D7FA"));
    assert_eq!(own.altitude_ft, Some(38_000.0));
    let with_alt = fit(Bds::HeadingAndSpeed, &df20, &own).unwrap();
    assert!(with_alt > fit(Bds::HeadingAndSpeed, &df20, &none).unwrap());
    let Repr::HeadingAndSpeed(h) = Repr::parse(&df20, Bds::HeadingAndSpeed).unwrap() else {
        unreachable!()
    };
    assert_eq!(h.indicated_airspeed, Some(249));
    assert!(close(h.mach, 0.788, 1e-6));

    let df21 = mb_of("A8001EBCFFFB23286004A73F6A5B");
    let df21 = Mb::new_unchecked(&df21[..]);
    assert_eq!(
        fit(Bds::HeadingAndSpeed, &df21, &none),
        Err(Reject::Consistency)
    );
    assert_eq!(infer(&df21, &none).unwrap().best(), Some(Bds::TrackAndTurn));
    let adsb = Context {
        ground_speed_kt: Some(320.0),
        track_deg: Some(250.0),
        altitude_ft: Some(14_000.0),
        ..Context::default()
    };
    assert_eq!(infer(&df21, &adsb).unwrap().best(), Some(Bds::TrackAndTurn));
    let Repr::TrackAndTurn(t) = Repr::parse(&df21, Bds::TrackAndTurn).unwrap() else {
        unreachable!()
    };
    assert_eq!(t.ground_speed, Some(322));
    assert_eq!(t.true_airspeed, Some(334));
    assert!(close(t.true_track, 250.49, 0.01));
}

/// A real reply that fits both 5,0 and 6,0 (pyModeS: "BDS50,BDS60"):
/// as 5,0 roll 15.3°, GS 198 kt, TAS 232 kt; as 6,0 IAS 219 kt at Mach
/// 0.396, which implies 9 880 ft. Reported ambiguous without context,
/// never silently resolved; the DF20 altitude (9 950 ft) confirms the
/// 6,0 reading and separates it, while the 5,0 reading stays listed.
#[test]
fn test_infer_ambiguous_until_context() {
    let msg = "A00006B68AF9B718E3C474A87B83";
    let inf = infer_hex(msg, &Context::default());
    assert!(inf.is_ambiguous());
    assert_eq!(inf.best(), None);
    assert_eq!(
        bds_list(&inf),
        [Bds::HeadingAndSpeed, Bds::TrackAndTurn],
        "{inf:?}"
    );
    let own = own_context(&hex(msg));
    assert_eq!(own.altitude_ft, Some(9950.0));
    let inf = infer_hex(msg, &own);
    assert!(!inf.is_ambiguous());
    assert_eq!(inf.best(), Some(Bds::HeadingAndSpeed), "{inf:?}");
    assert!(inf.contains(Bds::TrackAndTurn));
    // A reference altitude 5 000 ft off contradicts the 6,0 reading
    // and leaves 5,0.
    let far = Context {
        altitude_ft: Some(15_000.0),
        ..Context::default()
    };
    assert_eq!(bds_list(&infer_hex(msg, &far)), [Bds::TrackAndTurn]);
}

#[test]
fn test_infer_empty() {
    let inf = infer(&Mb::new_unchecked(&[0u8; 7]), &Context::default()).unwrap();
    assert_eq!(inf.best(), Some(Bds::Empty));
    let mb = Mb::new_unchecked(&[0u8; 7]);
    assert_eq!(
        fit(Bds::TrackAndTurn, &mb, &Context::default()),
        Err(Reject::Empty)
    );
    assert_eq!(
        fit(Bds::Unknown(0x51), &mb, &Context::default()),
        Err(Reject::Unsupported)
    );
}

/// The standard atmosphere helpers against independently computed
/// values (ISA tables, Doc 7488).
#[test]
fn test_isa() {
    assert!((isa::pressure(-2000.0) - isa::P_MAX).abs() < 1.0);
    assert!((isa::pressure(55_000.0) - isa::P_MIN).abs() < 1.0);
    // 36 089 ft: tropopause, 22 632 Pa; FL100: 69 682 Pa.
    assert!((isa::pressure(36_089.24) - 22_632.06).abs() < 2.0);
    assert!((isa::pressure(10_000.0) - 69_681.7).abs() < 5.0);
    for h in [
        -1000.0f32, 0.0, 5000.0, 20_000.0, 36_000.0, 41_000.0, 50_000.0,
    ] {
        assert!((isa::altitude(isa::pressure(h)) - h).abs() < 2.0, "{h}");
    }
    assert!((isa::speed_of_sound_kt(0.0) - 661.48).abs() < 0.01);
    assert!((isa::speed_of_sound_kt(40_000.0) - 573.57).abs() < 0.05);
    // The Riddle's DF20 example: IAS 249 kt at Mach 0.788 is FL380.
    let alt = isa::altitude(isa::implied_pressure(249.0, 0.788));
    assert!((alt - 38_086.0).abs() < 30.0, "{alt}");
    assert!((isa::cas_to_mach(249.0, 38_086.0) - 0.788).abs() < 1e-3);
    for x in [1e-30f32, 1e-6, 0.5, 1.0, 2.0, 1.2345, 99.0, 4.0e5, 3.0e38] {
        let r = isa::sqrt(x);
        let back = r as f64 * r as f64;
        assert!((back - x as f64).abs() <= x as f64 * 5e-7, "{x}");
    }
    assert_eq!(isa::sqrt(0.0), 0.0);
    assert_eq!(isa::sqrt(-1.0), 0.0);
    assert_eq!(isa::sqrt(f32::NAN), 0.0);
    // At sea level CAS = TAS: Mach = CAS / a0.
    assert!((isa::cas_to_mach(300.0, 0.0) - 300.0 / 661.4786).abs() < 1e-4);
}
