//! Phantoms (vectors.md §9), distance, speed check, error messages.

use super::*;

/// §9 TC 11 altitude ghost (ICAO 484556): its CPR fields, paired with
/// the real neighbours or decoded locally, give positions the speed
/// check rejects. Neighbour frames and times (s after 04:33:26) from
/// pyModeS `docs/interesting_messages.md`.
#[test]
fn test_tc11_phantom_position() {
    let real = [
        ("8D48455658AF86664DF2CD7CC4E9", 559),
        ("8D48455658AF86664FF2B565BE0F", 1_091),
        ("8D48455658AF82FB9200E0A1E0EF", 1_539),
        ("8D48455658AF866653F28A1F8833", 2_049),
        ("8D48455658AF82FB9600B56A1E6C", 2_500),
        ("8D48455658AF866657F2602DF150", 2_993),
    ];
    let phantom = at(cpr("8D4845565C6AAA206D6E6095C950"), 3_221);
    let after = [
        ("8D48455658AF82FB9A0084CD3801", 3_559),
        ("8D48455658AF82FB9C00691B39C4", 4_141),
    ];
    let frames: [TimedFrame; 6] = core::array::from_fn(|i| at(cpr(real[i].0), real[i].1));
    // The real track: each frame paired with the latest frame of the
    // other format; successive fixes pass the speed check.
    let mut last: Option<(Position, u64)> = None;
    for i in 1..6 {
        let Some(older) = frames[..i]
            .iter()
            .rev()
            .find(|f| f.frame.odd() != frames[i].frame.odd())
        else {
            continue;
        };
        let p = decode_global_airborne(*older, frames[i]).unwrap();
        if let Some((q, t)) = last {
            SpeedCheck::AIRBORNE.check(q, t, p, frames[i].t_ms).unwrap();
        }
        last = Some((p, frames[i].t_ms));
    }
    let (last, t_last) = last.unwrap();
    // Over the Netherlands / Germany at FL340 (KLM90J EDDB → EHAM).
    assert!(
        (51.0..54.0).contains(&last.lat) && (5.0..14.0).contains(&last.lon),
        "{last:?}"
    );

    // The phantom (even) paired with the latest odd frame.
    assert!(!phantom.frame.odd() && frames[5].frame.odd());
    match decode_global_airborne(frames[5], phantom) {
        Ok(p) => assert_eq!(
            SpeedCheck::AIRBORNE.check(last, t_last, p, phantom.t_ms),
            Err(CprError::SpeedExceeded),
            "{p:?}"
        ),
        Err(e) => assert_eq!(e, CprError::ZoneMismatch),
    }
    // Decoded locally from the last real position.
    if let Ok(p) = decode_local(phantom.frame, Reference::aircraft(last)) {
        assert_eq!(
            SpeedCheck::AIRBORNE.check(last, t_last, p, phantom.t_ms),
            Err(CprError::SpeedExceeded),
            "{p:?}"
        );
    }
    // The following real frames stay consistent with the track.
    for (hex, t) in after {
        let p = decode_local(cpr(hex), Reference::aircraft(last)).unwrap();
        SpeedCheck::AIRBORNE.check(last, t_last, p, t).unwrap();
    }
}

// ------------------------------------------------- plausibility

#[test]
fn test_distance_and_speed() {
    let a = Position::new(52.0, 4.0);
    assert_eq!(distance_nm(a, a), 0.0);
    // One degree of latitude ≈ 60.04 NM; quarter circumference.
    let d = distance_nm(Position::new(0.0, 0.0), Position::new(0.0, 90.0));
    assert_dp(d, core::f64::consts::FRAC_PI_2 * EARTH_RADIUS_NM, 9);
    // Antipodes and wrap-around.
    let d = distance_nm(Position::new(0.0, 0.0), Position::new(0.0, 180.0));
    assert_dp(d, core::f64::consts::PI * EARTH_RADIUS_NM, 9);
    let d = distance_nm(Position::new(10.0, 179.5), Position::new(10.0, -179.5));
    assert!(d < 60.0 && d > 58.0, "{d}");
    // Speed: 600 NM in one hour.
    let b = Position::new(
        52.0 + 600.0 / EARTH_RADIUS_NM * 180.0 / core::f64::consts::PI,
        4.0,
    );
    assert_dp(implied_speed_kt(a, 0, b, 3_600_000), 600.0, 6);
    assert_dp(implied_speed_kt(b, 3_600_000, a, 0), 600.0, 6);
    assert_eq!(implied_speed_kt(a, 5, a, 5), 0.0);
    assert_eq!(implied_speed_kt(a, 5, b, 5), f64::INFINITY);
    assert!(SpeedCheck::AIRBORNE.check(a, 0, b, 3_600_000).is_ok());
    let gs = SpeedCheck::with_ground_speed(CprKind::Airborne, 445.0);
    assert_eq!(gs.check(a, 0, b, 3_600_000), Err(CprError::SpeedExceeded));
    assert!(SpeedCheck::SURFACE.check(a, 0, b, 3_600_000).is_err());
    assert_eq!(
        SpeedCheck::with_ground_speed(CprKind::Surface, f64::NAN).max_speed_kt,
        SpeedCheck::SURFACE_MARGIN_KT
    );
    // Slack: a 5 m jitter at the same time is fine.
    let c = Position::new(52.00004, 4.0);
    assert!(SpeedCheck::SURFACE.check(a, 7, c, 7).is_ok());
    let nan = Position::new(f64::NAN, 0.0);
    assert!(SpeedCheck::AIRBORNE.check(a, 0, nan, 1_000).is_err());
}

#[test]
fn test_error_display() {
    extern crate std;
    use std::string::ToString;
    assert_eq!(
        CprError::ZoneMismatch.to_string(),
        "CPR frames in different longitude zones"
    );
    let e: &dyn core::error::Error = &CprError::AgeExceeded;
    assert!(!e.to_string().is_empty());
}
