//! Phantoms: implausible positions, altitudes and velocities.

use super::*;

/// vectors.md §9: the TC 19 FRUIT phantom, the TC 11 altitude ghost
/// and the DF20 AP collision are rejected; the real data stays.
#[test]
fn test_phantoms() {
    // TC 19: GS 445 → 558 kt in 1.6 s.
    let mut tr = tracker();
    feed(&mut tr, "8D484556990DBE021008840E71C9", 1_000).unwrap();
    let ac = tr.get(0x484556).unwrap();
    assert_close(f64::from(ac.ground_speed_kt().unwrap()), 445.0, 1.0);
    assert_close(f64::from(ac.track_deg().unwrap()), 271.9, 0.1);
    let phantom = "8D484556990CB8423008844B2DE1";
    assert_eq!(
        feed(&mut tr, phantom, 2_600),
        Err(RejectReason::VelocityJump)
    );
    let ac = tr.get(0x484556).unwrap();
    assert_close(f64::from(ac.ground_speed_kt().unwrap()), 445.0, 1.0);
    assert_eq!(ac.velocity_time_ms(), Some(1_000));
    assert_eq!(tr.stats().rejected_velocity, 1);
    // Not locked out: after two consecutive rejections the value is
    // taken as the new reference.
    assert_eq!(
        feed(&mut tr, phantom, 2_700),
        Err(RejectReason::VelocityJump)
    );
    feed(&mut tr, phantom, 2_800).unwrap();
    assert_close(
        f64::from(tr.get(0x484556).unwrap().ground_speed_kt().unwrap()),
        558.0,
        1.0,
    );

    // TC 11 ghost: FL340 then 27 900 ft 0.2 s later; its CPR is not
    // kept either.
    let mut tr = tracker();
    feed(&mut tr, "8D48455658AF86664DF2CD7CC4E9", 0).unwrap();
    let before = *tr.get(0x484556).unwrap();
    assert_eq!(before.altitude_baro_ft(), Some(34_000));
    assert_eq!(
        feed(&mut tr, "8D4845565C6AAA206D6E6095C950", 200),
        Err(RejectReason::AltitudeJump)
    );
    let after = tr.get(0x484556).unwrap();
    assert_eq!(after.altitude_baro_ft(), Some(34_000));
    assert_eq!(
        (after.cpr_frame(false), after.cpr_frame(true)),
        (before.cpr_frame(false), before.cpr_frame(true))
    );
    assert_eq!(after.messages(), 1);

    // DF20 whose AP gives 484163 at 2350 ft, against 34 075 ft.
    let mut tr = tracker();
    feed(&mut tr, "8D48416358AFB049A5733842BB0E", 0).unwrap();
    assert_eq!(tr.get(0x484163).unwrap().altitude_baro_ft(), Some(34_075));
    let h = "A3A142168C14F64881711E2DB71A";
    assert_eq!(addr_of(h), 0x484163);
    assert_eq!(Frame::new_unchecked(&hex(h)[..]).altitude_ft(), Some(2_350));
    assert_eq!(feed(&mut tr, h, 1_000), Err(RejectReason::AltitudeJump));
    assert_eq!(tr.get(0x484163).unwrap().altitude_baro_ft(), Some(34_075));
}

/// After repeated rejections against a wrong first position, the
/// position state resets and the real track is re-acquired.
#[test]
fn test_position_reset_after_rejections() {
    let a = 0xABCDEF;
    let wrong = Position::new(45.0, 10.0);
    let mut tr = tracker();
    feed_bytes(&mut tr, &df17(a, airborne_me(false, wrong, 0xC38)), 0).unwrap();
    feed_bytes(&mut tr, &df17(a, airborne_me(true, wrong, 0xC38)), 500).unwrap();
    assert_pos(pos_of(&tr, a), 45.0, 10.0, 1e-4);
    // The real aircraft, 100 NM away, flying north at 420 kt.
    let mut t = 1_000;
    let mut decoded = None;
    for i in 0..20 {
        let p = Position::new(46.5 + f64::from(i) * 0.001_944, 10.5);
        let r = feed_bytes(&mut tr, &df17(a, airborne_me(i % 2 == 1, p, 0xC38)), t).unwrap();
        if let PositionUpdate::Decoded(_) = r.position {
            decoded.get_or_insert(i);
        }
        t += 1_000;
    }
    assert_eq!(tr.stats().position_resets, 1);
    let first = decoded.expect("re-acquired");
    assert!(first <= 6, "{first}");
    assert_pos(pos_of(&tr, a), 46.5 + 19.0 * 0.001_944, 10.5, 1e-4);
}
