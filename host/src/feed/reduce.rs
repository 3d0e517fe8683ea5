//! Reduced Beast output (readsb's `beast_reduce_out`): what an aggregator
//! needs to track every aircraft, at a fraction of full Beast's bytes.
//!
//! As readsb does, a frame is passed on when it brings a field of its
//! aircraft that is due: each aircraft keeps a *slot* per field with the
//! time and content last passed on, and `T` is the interval
//! (`--net-beast-reduce-interval`, default 1 s):
//!
//! | frames | slot | passed on when |
//! |---|---|---|
//! | ADS-B position (TC 5–18, 20–22) | airborne / surface, per CPR parity | the slot is at least 2`T` old and the other parity's at least `T`/2 (a transponder sends even and odd in turn twice a second: a pair 0.5 s apart every 2`T`, one position per `T` on average, always decodable globally) |
//! | other ADS-B messages | per type code and subtype | content changed and at least `T` old, or at least [`KEEPALIVE_MS`] old |
//! | DF0, 4, 16, 20 | altitude (the 13-bit AC field) | as other ADS-B |
//! | DF5, 21 | identity (the 13-bit ID field) | as other ADS-B |
//! | DF20, 21 | Comm-B (the MB field) | MB changed and at least 4`T` old, or at least [`KEEPALIVE_MS`] old |
//! | DF11 | all-call | at least 4`T` old (readsb's) |
//! | DF24 | Comm-D | as other ADS-B |
//!
//! A DF20/21 is passed on when either of its slots is due.
//!
//! Mode A/C replies, frames the tracker rejected and MLAT results are
//! never part of it. Memory: one 24-byte slot per aircraft and kind heard
//! in the last [`FORGET_MS`] (swept every [`FORGET_MS`]).

use super::fnv1a64;
use std::collections::HashMap;

/// Unchanged content is re-sent after this long, ms.
pub const KEEPALIVE_MS: u64 = 10_000;
/// Slots not used for this long are forgotten, ms.
pub const FORGET_MS: u64 = 60_000;
/// The default interval, ms (readsb's `--net-beast-reduce-interval`).
pub const DEFAULT_INTERVAL_MS: u64 = 1_000;

/// The last frame passed on in one slot.
#[derive(Debug, Clone, Copy)]
struct Slot {
    t_ms: u64,
    /// FNV-1a of the slot's field (0 for positions and DF11).
    digest: u64,
}

/// The reduction state (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct BeastReducer {
    interval_ms: u64,
    slots: HashMap<(u32, u16), Slot>,
    last_sweep_ms: u64,
}

/// Slot numbers (the low byte of an ADS-B slot is the ME's first byte).
const SLOT_SURFACE: u16 = 0x100;
const SLOT_AIRBORNE: u16 = 0x102;
const SLOT_ES: u16 = 0x200;
const SLOT_ALTITUDE: u16 = 0x300;
const SLOT_IDENTITY: u16 = 0x301;
const SLOT_COMM_B: u16 = 0x302;
const SLOT_ALL_CALL: u16 = 0x303;
const SLOT_COMM_D: u16 = 0x304;

/// How a slot's rule reads (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Changed content after `min_ms`, or anything after the keep-alive.
    Changed { min_ms: u64 },
    /// Anything after `min_ms`.
    Every { min_ms: u64 },
}

impl BeastReducer {
    /// A reducer with `interval_ms` between frames of one slot.
    pub fn new(interval_ms: u64) -> Self {
        BeastReducer {
            interval_ms,
            slots: HashMap::new(),
            last_sweep_ms: 0,
        }
    }

    /// Whether to pass on `frame` (7 or 14 bytes) of aircraft `key`, heard
    /// at `t_ms`; remembers it if so.
    ///
    /// ```
    /// use airwaves::feed::reduce::BeastReducer;
    /// let mut r = BeastReducer::new(1_000);
    /// let df11 = [0x5D, 0x48, 0x40, 0xD6, 0x20, 0x2C, 0xC3];
    /// assert!(r.admit(0x4840D6, &df11, 0));
    /// assert!(!r.admit(0x4840D6, &df11, 3_000)); // all-calls: every 4 intervals
    /// assert!(r.admit(0x4840D6, &df11, 4_000));
    /// ```
    pub fn admit(&mut self, key: u32, frame: &[u8], t_ms: u64) -> bool {
        self.sweep(t_ms);
        let t = self.interval_ms;
        let Some(&b0) = frame.first() else {
            return false;
        };
        let field13 = |f: &[u8]| match f {
            [_, _, hi, lo, ..] => fnv1a64(&[hi & 0x1F, *lo]),
            _ => 0,
        };
        match (b0 >> 3, frame.len()) {
            (17 | 18, 14) => {
                let me0 = frame[4];
                match me0 >> 3 {
                    5..=8 => self.position(key, SLOT_SURFACE, frame[6] & 0x04 != 0, t_ms),
                    9..=18 | 20..=22 => {
                        self.position(key, SLOT_AIRBORNE, frame[6] & 0x04 != 0, t_ms)
                    }
                    _ => {
                        let slot = SLOT_ES | u16::from(me0);
                        let rule = Rule::Changed { min_ms: t };
                        self.offer(key, slot, fnv1a64(&frame[4..11]), rule, t_ms)
                    }
                }
            }
            (0 | 4 | 16, _) => {
                let rule = Rule::Changed { min_ms: t };
                self.offer(key, SLOT_ALTITUDE, field13(frame), rule, t_ms)
            }
            (5, _) => {
                let rule = Rule::Changed { min_ms: t };
                self.offer(key, SLOT_IDENTITY, field13(frame), rule, t_ms)
            }
            (20 | 21, 14) => {
                let field = if b0 >> 3 == 20 {
                    SLOT_ALTITUDE
                } else {
                    SLOT_IDENTITY
                };
                let rule = Rule::Changed { min_ms: t };
                let by_field = self.offer(key, field, field13(frame), rule, t_ms);
                let rule = Rule::Changed { min_ms: 4 * t };
                let by_mb = self.offer(key, SLOT_COMM_B, fnv1a64(&frame[4..11]), rule, t_ms);
                by_field || by_mb
            }
            (11, _) => {
                let rule = Rule::Every { min_ms: 4 * t };
                self.offer(key, SLOT_ALL_CALL, 0, rule, t_ms)
            }
            (24..=31, _) => {
                let rule = Rule::Changed { min_ms: t };
                self.offer(key, SLOT_COMM_D, fnv1a64(frame), rule, t_ms)
            }
            _ => false,
        }
    }

    /// A position of parity `odd` in slot pair `slot` (`slot | odd`).
    fn position(&mut self, key: u32, slot: u16, odd: bool, t_ms: u64) -> bool {
        let t = self.interval_ms;
        let (same, other) = (slot | u16::from(odd), slot | u16::from(!odd));
        let age = |k| {
            self.slots
                .get(&(key, k))
                .map(|s: &Slot| t_ms.saturating_sub(s.t_ms))
        };
        let pass = age(same).is_none_or(|a| a >= 2 * t) && age(other).is_none_or(|a| a >= t / 2);
        if pass {
            self.slots.insert((key, same), Slot { t_ms, digest: 0 });
        }
        pass
    }

    /// Offer content `digest` to `slot` under `rule`; records it if due.
    fn offer(&mut self, key: u32, slot: u16, digest: u64, rule: Rule, t_ms: u64) -> bool {
        let pass = self.slots.get(&(key, slot)).is_none_or(|last| {
            let age = t_ms.saturating_sub(last.t_ms);
            match rule {
                Rule::Changed { min_ms } => {
                    (digest != last.digest && age >= min_ms) || age >= KEEPALIVE_MS
                }
                Rule::Every { min_ms } => age >= min_ms,
            }
        });
        if pass {
            self.slots.insert((key, slot), Slot { t_ms, digest });
        }
        pass
    }

    /// Slots in use.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether no slot is in use.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    fn sweep(&mut self, t_ms: u64) {
        if t_ms.saturating_sub(self.last_sweep_ms) < FORGET_MS {
            return;
        }
        self.last_sweep_ms = t_ms;
        self.slots
            .retain(|_, s| t_ms.saturating_sub(s.t_ms) < FORGET_MS);
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::feed::testing::hex;

    /// KLM1023's position pair (even, odd) and velocity of the Riddle.
    const EVEN: &str = "8D40621D58C382D690C8AC2863A7";
    const ODD: &str = "8D40621D58C386435CC412692AD6";
    const VELOCITY: &str = "8D485020994409940838175B284F";

    #[test]
    fn test_positions_alternate_parity_once_per_interval() {
        let mut r = BeastReducer::new(1_000);
        let (e, o) = (hex(EVEN), hex(ODD));
        // A transponder's 2 Hz positions, alternating, for 10 s.
        let mut passed = Vec::new();
        for i in 0..20u64 {
            let (f, name) = if i % 2 == 0 { (&e, 'e') } else { (&o, 'o') };
            if r.admit(0x40621D, f, i * 500) {
                passed.push((i * 500, name));
            }
        }
        // One a second on average: a pair 0.5 s apart every 2 s.
        assert_eq!(passed.len(), 10, "{passed:?}");
        assert!(passed.windows(2).all(|w| w[0].1 != w[1].1), "{passed:?}");
        assert!(
            passed.chunks(2).all(|p| p[1].0 - p[0].0 == 500),
            "{passed:?}"
        );
        // Only even frames heard (odd lost): one every 2 intervals.
        let mut r = BeastReducer::new(1_000);
        let n = (0..10u64).filter(|i| r.admit(1, &e, i * 500)).count();
        assert_eq!(n, 3); // 0, 2 s, 4 s
    }

    #[test]
    fn test_changed_content_throttled_unchanged_kept_alive() {
        let mut r = BeastReducer::new(1_000);
        let v = hex(VELOCITY);
        let mut v2 = v.clone();
        v2[8] ^= 0x01; // a different speed (parity is not checked here)
        assert!(r.admit(0x485020, &v, 0));
        assert!(
            !r.admit(0x485020, &v2, 500),
            "changed, but within the interval"
        );
        assert!(r.admit(0x485020, &v2, 1_000), "changed, interval passed");
        assert!(!r.admit(0x485020, &v2, 9_000), "unchanged");
        assert!(r.admit(0x485020, &v2, 11_000), "keep-alive");
        // Slots are per aircraft and per kind.
        assert!(r.admit(0x485021, &v2, 11_000));
        assert!(r.admit(0x485020, &hex(EVEN), 11_000));
        assert_eq!(r.len(), 3);
        // Forgotten after a minute unused.
        r.admit(0x485020, &v, 80_000);
        assert_eq!(r.len(), 1);
    }

    /// Mode S replies: per field, as readsb forwards them.
    #[test]
    fn test_mode_s_fields() {
        let mut r = BeastReducer::new(1_000);
        // DF4 altitude 0x0C10 (AC field), then a DF20 with the same
        // altitude and an MB, then the DF20 with another MB.
        let df4 = [0x20, 0x00, 0x0C, 0x10, 0, 0, 0];
        let mut df20 = [0u8; 14];
        df20[..4].copy_from_slice(&[0xA0, 0x00, 0x0C, 0x10]);
        df20[4] = 0x20; // BDS 2,0
        assert!(r.admit(1, &df4, 0));
        assert!(!r.admit(1, &df4, 1_500), "same altitude");
        assert!(r.admit(1, &df20, 1_500), "a first Comm-B register");
        df20[5] = 0x11;
        assert!(!r.admit(1, &df20, 3_000), "MB changed, within 4 intervals");
        assert!(r.admit(1, &df20, 5_500), "MB changed, 4 intervals on");
        let mut df4b = df4;
        df4b[3] = 0x30;
        assert!(r.admit(1, &df4b, 5_600), "altitude changed");
        assert!(r.admit(1, &df4b, 15_600), "keep-alive");
        // DF5 identity has its own slot.
        assert!(r.admit(1, &[0x28, 0x00, 0x1F, 0xFF, 0, 0, 0], 15_600));
    }

    #[test]
    fn test_garbage_is_not_admitted() {
        let mut r = BeastReducer::new(1_000);
        assert!(!r.admit(1, &[], 0));
        assert!(!r.admit(1, &[0x8D, 1, 2, 3], 0), "an ES without its ME");
        assert!(!r.admit(1, &[0x9D; 7], 0), "DF19");
    }
}
