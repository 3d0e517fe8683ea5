//! The [`Me`] view, buffer lengths, emit, and property tests.

use super::*;

// ---------------------------------------------------------------------------
// View, lengths, emit
// ---------------------------------------------------------------------------

static FRAME_BYTES: [u8; 14] = [
    0x8D, 0x40, 0x62, 0x1D, 0x58, 0xC3, 0x82, 0xD6, 0x90, 0xC8, 0xAC, 0x28, 0x63, 0xA7,
];

#[test]
fn test_deconstruct() {
    let m = Me::new_checked(&FRAME_BYTES[4..11]).unwrap();
    assert_eq!(m.type_code(), 11);
    assert_eq!(m.surveillance_status(), 0);
    assert!(!m.nic_b());
    assert_eq!(m.altitude_code(), 0xC38);
    assert!(!m.utc_sync());
    assert!(!m.cpr_odd());
    assert_eq!((m.cpr_lat(), m.cpr_lon()), (93000, 51372));
    assert_eq!(m.word(), 0x58C382D690C8AC);
    // Velocity fields of the Riddle's subtype 1 message.
    let b = me("8D485020994409940838175B284F");
    let m = Me::new_checked(&b[..]).unwrap();
    assert_eq!((m.type_code(), m.subtype()), (19, 1));
    assert_eq!(
        (m.ew_west(), m.ew_velocity(), m.ns_south(), m.ns_velocity()),
        (true, 9, true, 160)
    );
    assert_eq!(
        (m.vr_source_baro(), m.vr_down(), m.vertical_rate()),
        (false, true, 14)
    );
    assert_eq!((m.diff_below(), m.gnss_baro_diff()), (false, 23));
    assert!(m.ifr_capability() && !m.intent_change());
    // Identification codes.
    let b = me("8D4840D6202CC371C32CE0576098");
    let m = Me::new_unchecked(b);
    assert_eq!(m.callsign_codes(), [11, 12, 13, 49, 48, 50, 51, 32]);
    assert_eq!(m.repr(), AdsbRepr::from_bytes(&b));
}

#[test]
fn test_construct() {
    // Build the Riddle's even airborne position through the setters.
    let mut buf = [0u8; 7];
    let mut m = Me::new_checked(&mut buf[..]).unwrap();
    m.set_type_code(11);
    m.set_altitude_code(0xC38);
    m.set_cpr_odd(false);
    m.set_cpr_lat(93000);
    m.set_cpr_lon(51372);
    assert_eq!(&buf, &FRAME_BYTES[4..11]);
    // Setters drop bits beyond the field and touch nothing else.
    let mut m = Me::new_unchecked(&mut buf[..]);
    m.set_cpr_lat(0xFFFF_FFFF);
    assert_eq!(m.cpr_lat(), 0x1_FFFF);
    assert_eq!(
        (m.type_code(), m.altitude_code(), m.cpr_lon()),
        (11, 0xC38, 51372)
    );
}

#[test]
fn test_emit() {
    let cpr = CprPosition {
        format: CprFormat::Even,
        lat: 93000,
        lon: 51372,
    };
    let mut pos = AirbornePosition::new(11, cpr).unwrap();
    pos.altitude_code = 0xC38;
    let repr = AdsbRepr::AirbornePosition(pos);
    assert_eq!(repr.buffer_len(), ME_LEN);
    let mut out = [0xAAu8; 9];
    repr.emit(&mut out);
    assert_eq!(&out[..7], &FRAME_BYTES[4..11]);
    assert_eq!(&out[7..], &[0xAA, 0xAA], "bytes past the ME untouched");
}

#[test]
#[should_panic(expected = "ME buffer too short")]
fn test_emit_short_buffer() {
    AdsbRepr::Unknown {
        tc: 0,
        bytes: [0; 7],
    }
    .emit(&mut [0u8; 6]);
}

#[test]
fn test_malformed_length() {
    for n in 0..ME_LEN {
        let buf = [0x58u8; ME_LEN];
        let err = ParseError::Truncated {
            expected: 7,
            got: n,
        };
        assert_eq!(AdsbRepr::parse(&buf[..n]), Err(err));
        assert_eq!(Me::new_checked(&buf[..n]).unwrap_err(), err);
    }
    assert_eq!(
        ParseError::Truncated {
            expected: 7,
            got: 3
        }
        .to_string(),
        "ME field truncated: need 7 bytes, got 3"
    );
    // Longer buffers: the first 7 bytes are used.
    assert_eq!(
        AdsbRepr::parse(&FRAME_BYTES[4..]).unwrap(),
        AdsbRepr::parse(&FRAME_BYTES[4..11]).unwrap()
    );
}

// ---------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(proptest_config())]

    /// Whenever parse succeeds, emit(parse(x)) re-parses equal, and it
    /// reproduces every defined bit of x.
    #[test]
    fn prop_round_trip(bytes in any::<[u8; 7]>()) {
        let repr = AdsbRepr::parse(&bytes).unwrap();
        let mut out = [0u8; 7];
        repr.emit(&mut out);
        prop_assert_eq!(AdsbRepr::parse(&out).unwrap(), repr);
        let mask = defined_mask(&bytes);
        prop_assert_eq!(word_of(&out), word_of(&bytes) & mask);
        prop_assert_eq!(repr.type_code(), bytes[0] >> 3);
    }

    /// Decoded values stay in their documented ranges for any input.
    #[test]
    fn prop_value_ranges(bytes in any::<[u8; 7]>(), tc in 0u8..32) {
        let mut bytes = bytes;
        Me::new_unchecked(&mut bytes[..]).set_type_code(tc);
        match AdsbRepr::from_bytes(&bytes) {
            AdsbRepr::AirborneVelocity(v) => {
                if let Some(t) = v.track_deg() { prop_assert!((0.0..360.0).contains(&t)); }
                if let Some(h) = v.heading_deg() { prop_assert!((0.0..360.0).contains(&h)); }
                if let Some(s) = v.ground_speed_kt() { prop_assert!(s <= 4.0 * 1022.0 * 1.5); }
                if let Some(r) = v.vertical_rate.fpm() { prop_assert!(r.abs() <= 510 * 64); }
            }
            AdsbRepr::SurfacePosition(p) => {
                if let Some(t) = p.track_deg() { prop_assert!((0.0..360.0).contains(&t)); }
                if let Some(s) = p.speed_kt() { prop_assert!((0.0..=175.0).contains(&s)); }
            }
            AdsbRepr::TargetState(TargetState::V2(t)) => {
                if let Some(h) = t.selected_heading_deg() { prop_assert!((0.0..360.0).contains(&h)); }
                if let Some(b) = t.baro_setting_hpa() { prop_assert!((800.0..1209.7).contains(&b)); }
            }
            AdsbRepr::Identification(id) => prop_assert!(id.callsign_str().len() <= 8),
            _ => {}
        }
    }
}
