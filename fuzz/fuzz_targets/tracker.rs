//! Aircraft tracker on a sequence of arbitrary frames with non-decreasing
//! times: nothing panics, the table never exceeds its capacity and stays
//! consistent with its index, and every position it holds is valid (and
//! within range of the receiver, when there is one).
//!
//! Input layout: byte 0 chooses the configuration (bit 0 receiver location
//! set, bit 1 receiver-relative local decoding, bits 2–3 trusted repaired
//! bits); then records of `[dt, flags, frame…]`:
//!
//! - `dt`: time step, `dt²` ms (0 … 65 s, so entries expire);
//! - `flags`: bit 0 long frame (14 bytes, else 7), bits 1–2 repaired bits,
//!   bit 3 call [`Tracker::expire`] after the update, bit 4 overwrite the
//!   parity with the CRC (remainder 0), bit 5 then XOR the address of the
//!   last aircraft updated into the parity (an AP frame addressed to it);
//! - the frame bytes (a short last record is dropped).
#![no_main]

use airwaves_core::modes::cpr::{Position, distance_nm};
use airwaves_core::modes::crc;
use airwaves_core::modes::tracker::{ReceivedFrame, Tracker, TrackerConfig};
use libfuzzer_sys::fuzz_target;

/// A small table, so that eviction happens.
const CAPACITY: usize = 4;

fn check(t: &Tracker<CAPACITY>, now_ms: u64) {
    assert!(t.len() <= t.capacity());
    assert_eq!(t.iter().count(), t.len());
    assert_eq!(t.is_empty(), t.iter().next().is_none());
    let config = *t.config();
    for a in t.iter() {
        let found = t.get(a.key()).expect("every listed aircraft is indexed");
        assert_eq!(found.key(), a.key());
        assert_eq!(a.address(), a.key() & 0xFF_FFFF);
        assert!(a.first_seen_ms() <= a.last_seen_ms());
        assert!(a.last_seen_ms() <= now_ms);
        if let Some(fix) = a.position() {
            assert!(fix.position.is_valid(), "{fix:?}");
            assert!(fix.t_ms <= now_ms, "{fix:?}");
            if let Some(rx) = config.receiver {
                let d = distance_nm(rx, fix.position);
                assert!(d <= config.max_range_nm + 1e-6, "{d} NM: {fix:?}");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&setup, mut rest)) = data.split_first() else {
        return;
    };
    let mut config = if setup & 1 != 0 {
        TrackerConfig::with_receiver(Position::new(52.3, 4.76))
    } else {
        TrackerConfig::DEFAULT
    };
    if setup & 2 != 0 {
        config.receiver_local_range_nm = 200.0;
    }
    config.trusted_repaired_bits = (setup >> 2) & 3;
    let mut t = Tracker::<CAPACITY>::new(config);
    let mut now = 0u64;
    let mut last_key = 0u32;
    while let [dt, flags, tail @ ..] = rest {
        let len = if flags & 1 != 0 { 14 } else { 7 };
        let Some((bytes, tail)) = tail.split_at_checked(len) else {
            break;
        };
        rest = tail;
        now += u64::from(*dt) * u64::from(*dt);
        let mut frame = [0u8; 14];
        let frame = &mut frame[..len];
        frame.copy_from_slice(bytes);
        if flags & 16 != 0 {
            let parity = crc::crc24(&frame[..len - 3]);
            let ap = if flags & 32 != 0 {
                last_key & 0xFF_FFFF
            } else {
                0
            };
            frame[len - 3..].copy_from_slice(&(parity ^ ap).to_be_bytes()[1..]);
        }
        let rx = ReceivedFrame::new(frame, now).with_repaired_bits((flags >> 1) & 3);
        let before = t.len();
        if let Ok(out) = t.update(&rx) {
            last_key = out.key;
            let a = t
                .get(out.key)
                .expect("the updated aircraft is in the table");
            assert_eq!(a.last_seen_ms(), now);
            if out.new_aircraft {
                assert!(!t.is_empty());
            } else {
                assert!(t.len() <= before);
            }
            if let Some(k) = out.evicted {
                assert_ne!(k, out.key);
                assert!(t.get(k).is_none(), "evicted {k:06x} still present");
            }
        }
        if flags & 8 != 0 {
            t.expire(now);
            for a in t.iter() {
                assert!(now - a.last_seen_ms() <= t.config().expiry_ms);
            }
        }
        check(&t, now);
    }
});
