//! The table: expiry, eviction, staleness, signal average, index churn.

use super::*;

#[test]
fn test_expiry_and_eviction() {
    let mut tr = Tracker::<4>::new(TrackerConfig::DEFAULT);
    for i in 0..4u32 {
        feed_bytes(&mut tr, &df11(0x100 + i), u64::from(i)).unwrap();
    }
    assert_eq!(tr.len(), 4);
    // Full: the oldest (0x100) is evicted.
    let r = feed_bytes(&mut tr, &df11(0x200), 10).unwrap();
    assert_eq!((r.new_aircraft, r.evicted), (true, Some(0x100)));
    assert!(tr.get(0x100).is_none());
    assert_eq!(tr.len(), 4);
    assert_eq!(tr.stats().aircraft_evicted, 1);
    for k in [0x101, 0x102, 0x103, 0x200] {
        assert_eq!(tr.get(k).unwrap().key(), k);
    }
    // Re-hearing keeps the entry.
    let r = feed_bytes(&mut tr, &df11(0x101), 30_000).unwrap();
    assert!(!r.new_aircraft);
    assert_eq!(tr.get(0x101).unwrap().first_seen_ms(), 1);
    assert_eq!(tr.get(0x101).unwrap().last_seen_ms(), 30_000);
    // At 61 s all but 0x101 have expired.
    assert_eq!(tr.expire(61_000), 3);
    assert_eq!(tr.len(), 1);
    assert_eq!(tr.stats().aircraft_expired, 3);
    assert_eq!(tr.iter().map(Aircraft::key).collect::<Vec<_>>(), [0x101]);
    // Single-frame tracks: the evicted 0x100 and the three expired; not
    // 0x101, heard twice, when it goes too.
    assert_eq!(tr.stats().aircraft_single_message, 4);
    assert_eq!(tr.expire(100_000), 1);
    assert_eq!(tr.stats().aircraft_single_message, 4);
    // An expired entry heard again before a sweep starts afresh.
    let mut tr = Tracker::<4>::new(TrackerConfig::DEFAULT);
    feed_bytes(&mut tr, &df11(0x300), 0).unwrap();
    let r = tr
        .update(&ReceivedFrame::new(&df11(0x300), 100_000))
        .unwrap();
    assert!(r.new_aircraft);
    assert_eq!(tr.get(0x300).unwrap().first_seen_ms(), 100_000);
    // A full table of expired entries: the oldest is reused without
    // counting an eviction.
    let mut tr = Tracker::<2>::new(TrackerConfig::DEFAULT);
    feed_bytes(&mut tr, &df11(1), 0).unwrap();
    feed_bytes(&mut tr, &df11(2), 0).unwrap();
    let r = tr.update(&ReceivedFrame::new(&df11(3), 70_000)).unwrap();
    assert_eq!(r.evicted, None);
    assert_eq!(
        (tr.stats().aircraft_evicted, tr.stats().aircraft_expired),
        (0, 1)
    );
    // The round-robin sweep in update expires one entry per call.
    let mut tr = Tracker::<8>::new(TrackerConfig::DEFAULT);
    for i in 0..4 {
        feed_bytes(&mut tr, &df11(0x400 + i), 0).unwrap();
    }
    for _ in 0..8 {
        feed_bytes(&mut tr, &df11(0x500), 100_000).unwrap();
    }
    assert_eq!(tr.iter().map(Aircraft::key).collect::<Vec<_>>(), [0x500]);
}

/// Positions and velocities go stale after `stale_ms`.
#[test]
fn test_stale_position() {
    let cfg = TrackerConfig {
        expiry_ms: 300_000,
        ..TrackerConfig::DEFAULT
    };
    let mut tr = T16::new(cfg);
    feed(&mut tr, "8D40621D58C386435CC412692AD6", 0).unwrap();
    feed(&mut tr, "8D40621D58C382D690C8AC2863A7", 2_000).unwrap();
    feed(&mut tr, "8D40621D99450000000000000000", 2_000).ok(); // bad CRC, ignored
    feed_bytes(
        &mut tr,
        &df17(0x40621D, hex("99440994083817").try_into().unwrap()),
        3_000,
    )
    .unwrap();
    assert!(pos_of(&tr, 0x40621D).is_some());
    assert!(tr.get(0x40621D).unwrap().ground_speed_kt().is_some());
    tr.expire(62_001);
    let ac = tr.get(0x40621D).unwrap();
    assert!(ac.position().is_none());
    assert!(ac.ground_speed_kt().is_some()); // 59 s old
    tr.expire(63_001);
    let ac = tr.get(0x40621D).unwrap();
    assert_eq!(
        (ac.ground_speed_kt(), ac.vertical_rate_gnss_fpm()),
        (None, None)
    );
    assert_eq!(ac.altitude_baro_ft(), Some(38_000));
}

/// The last 8 signal levels are averaged in power.
#[test]
fn test_signal_average() {
    let mut tr = tracker();
    let b = df11(0x123456);
    assert_eq!(
        {
            tr.update(&ReceivedFrame::new(&b, 0)).unwrap();
            tr.get(0x123456).unwrap().signal_dbfs()
        },
        None
    );
    let levels: Vec<f32> = (0..10).map(|i| -10.0 - i as f32).collect();
    for &l in &levels {
        tr.update(&ReceivedFrame::new(&b, 0).with_signal(l))
            .unwrap();
    }
    let mean: f64 = levels[2..]
        .iter()
        .map(|&l| libm::pow(10.0, f64::from(l) / 10.0))
        .sum::<f64>()
        / 8.0;
    let s = tr.get(0x123456).unwrap().signal_dbfs().unwrap();
    assert_close(f64::from(s), 10.0 * libm::log10(mean), 1e-3);
}

/// The index stays consistent through churn (insertions, evictions,
/// expiry by sweep and by `expire`): every entry is found, no key
/// twice, and every key among the `N` most recent that has not expired
/// is present.
#[test]
fn test_index_churn() {
    const N: usize = 16;
    let expiry = 40;
    let mut tr = Tracker::<N>::new(TrackerConfig {
        expiry_ms: expiry,
        ..TrackerConfig::DEFAULT
    });
    let mut x: u32 = 12345;
    // (key, last time heard), most recent last.
    let mut recent: Vec<(u32, u64)> = Vec::new();
    let (rounds, period) = if cfg!(miri) { (60, 25) } else { (5_000, 500) };
    for i in 0..rounds {
        // Pauses every `period` frames expire everything.
        let t = i + i / period * 100;
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        // 64 keys in one block, so probes collide, hit and miss.
        let key = 0x3C_0000 + (x >> 26);
        feed_bytes(&mut tr, &df11(key), t).unwrap();
        recent.retain(|&(k, _)| k != key);
        recent.push((key, t));
        if i % 97 == 0 {
            tr.expire(t);
        }
        assert!(tr.len() <= N);
        let keys: Vec<u32> = tr.iter().map(Aircraft::key).collect();
        for &k in &keys {
            assert_eq!(tr.get(k).unwrap().key(), k);
            assert_eq!(keys.iter().filter(|&&j| j == k).count(), 1);
        }
        for &(k, tk) in recent.iter().rev().take(N) {
            if t - tk <= expiry {
                assert_eq!(tr.get(k).map(|a| a.last_seen_ms()), Some(tk), "{k:06X}");
            }
        }
        assert!(tr.get(0x3D_0000).is_none());
    }
    assert!(tr.stats().aircraft_evicted > 0 && tr.stats().aircraft_expired > 0);
}
