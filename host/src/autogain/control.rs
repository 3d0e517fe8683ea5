//! The gain loop (`--gain auto`): moves the tuner gain through the R82xx
//! gain list from the Mode S chain's measurements, with hysteresis.
//!
//! # The rule
//!
//! Measurements (core [`LevelStats`], and decoded frames at or above
//! [`STRONG_DBFS`](super::STRONG_DBFS)) are summed over a window that
//! closes after [`LoopConfig::window_min_s`] once it holds
//! [`LoopConfig::window_bursts`] loud bursts, none at all, or so few lost
//! and clipped that the answer is clear (under a quarter of `cool_share`
//! and half of `clip_cool`), and after
//! [`LoopConfig::window_max_s`] in any case. Then, with `B` the loud
//! bursts (a run of samples at ≥ 243 on the 0–255 scale), `S` the strong
//! frames decoded and `F` all frames decoded, the loud bursts lost are
//! `L = max(0, B − S)`, and `L/F` is the share of the traffic that the gain
//! costs by clipping (measured on the model, frames lost to a step up
//! track the rise in `L` closely):
//!
//! `B/F` is the share of the replies that clip. The demodulator decodes
//! most clipped replies on their own, so `L` alone no longer sees what a
//! high gain costs; what clipping still destroys is the weaker reply
//! under a clipped one (the ADC keeps no trace of it) and the pulse
//! shapes the repairs rely on. On the airport sky of the front-end model
//! frames peak where 16–20 % of the replies clip and fall slowly beyond
//! (97 % of the peak at 36 %), so:
//!
//! - **Too hot**: `B ≥ min_bursts` and `L/F > hot_share` or
//!   `B/F > clip_hot`: down one step (two above three times `hot_share`
//!   or 1.5 times `clip_hot`), and the gain just left becomes a
//!   *ceiling* for [`LoopConfig::hold_s`].
//! - **Room**: no loud burst, and no sample that two steps up would be
//!   loud (from the histogram): up two steps; no loud burst, or
//!   `L/F < cool_share` and `B/F < clip_cool` with the share one step up,
//!   `B/F` scaled by the loud samples the histogram predicts there, at
//!   most `clip_hot`: up one step; never to or past a ceiling.
//! - Otherwise the gain stays: the band between the two shares is the
//!   hysteresis.
//! - Each gain keeps its own ceiling. A ceiling ends when its hold runs
//!   out (the next one at the same gain holds twice as long, up to
//!   [`LoopConfig::hold_max_s`]), or at once
//!   when what set it has gone: the loud samples the histogram predicts
//!   at the ceiling's gain (samples above `243 · 10^(−Δ/20)`, Δ the dB up
//!   to it) fall below [`LoopConfig::lift_ratio`] of the rate measured
//!   when it was set (the strong aircraft has left).
//!
//! Configuration is in [`LoopConfig`] (`&self`), state in [`LoopState`].

use crate::demo::frontend::GAINS_TENTH_DB;
use airwaves_core::modes::level::{LevelMeter, LevelStats};
use std::fmt;

/// The loop's tuning (configuration). [`Default`]: the values documented
/// on each field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoopConfig {
    /// Loud bursts lost, as a share of the frames decoded, above which the
    /// gain is too hot (0.06).
    pub hot_share: f64,
    /// Below this share there is room above (0.015).
    pub cool_share: f64,
    /// Loud bursts as a share of the frames decoded (the share of the
    /// replies that clip) above which the gain is too hot even when the
    /// clipped replies themselves decode (0.30).
    pub clip_hot: f64,
    /// Below this clipped share there is room above, if one step up is
    /// predicted to stay under `clip_hot` (0.20).
    pub clip_cool: f64,
    /// Fewer loud bursts than this in a window never lower the gain (10).
    pub min_bursts: u32,
    /// Shortest window, s of signal (2).
    pub window_min_s: f64,
    /// Longest window, s (10).
    pub window_max_s: f64,
    /// Loud bursts that close a window early (300: the clipped share of a window is then known to about ±6 %).
    pub window_bursts: u32,
    /// First hold of a ceiling, s (180).
    pub hold_s: f64,
    /// Longest hold, s (960).
    pub hold_max_s: f64,
    /// A ceiling is lifted when the loud rate predicted at its gain falls
    /// below this share of the rate that set it (0.25).
    pub lift_ratio: f64,
    /// The loud level of the meter, 0–255 scale (243).
    pub loud: u8,
}

impl Default for LoopConfig {
    fn default() -> Self {
        Self {
            hot_share: 0.06,
            cool_share: 0.015,
            clip_hot: 0.30,
            clip_cool: 0.20,
            min_bursts: 10,
            window_min_s: 2.0,
            window_max_s: 10.0,
            window_bursts: 300,
            hold_s: 180.0,
            hold_max_s: 960.0,
            lift_ratio: 0.25,
            loud: LevelMeter::RTL_SDR.loud,
        }
    }
}

/// One stretch of measured signal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measurement {
    /// Its length, s of signal.
    pub seconds: f64,
    /// The level meter's counts.
    pub level: LevelStats,
    /// Frames decoded at or above [`STRONG_DBFS`](super::STRONG_DBFS).
    pub strong_frames: u64,
    /// All frames decoded.
    pub frames: u64,
}

/// Why the gain moved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reason {
    /// Too many loud bursts lost.
    Hot {
        /// Loud bursts in the window.
        bursts: u32,
        /// Of them, not decoded.
        lost: u64,
        /// All frames decoded.
        frames: u64,
    },
    /// Too many of the replies clip, though they decode.
    Clipping {
        /// Loud bursts in the window.
        bursts: u32,
        /// All frames decoded.
        frames: u64,
    },
    /// No loud burst in the window.
    Quiet,
    /// Few loud bursts lost.
    Room {
        /// Loud bursts in the window.
        bursts: u32,
        /// Of them, not decoded.
        lost: u64,
        /// All frames decoded.
        frames: u64,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = |l: u64, n: u64| 100.0 * l as f64 / n.max(1) as f64;
        match *self {
            Self::Hot {
                bursts,
                lost,
                frames: 0,
            } => write!(
                f,
                "{lost} of {bursts} loud bursts lost, no frames decoded (clipping)"
            ),
            Self::Hot {
                bursts,
                lost,
                frames,
            } => write!(
                f,
                "{lost} of {bursts} loud bursts lost, {:.1} % of {frames} frames (clipping)",
                pct(lost, frames)
            ),
            Self::Clipping { bursts, frames } => write!(
                f,
                "{bursts} loud bursts in {frames} frames: {:.0} % of the replies clip",
                pct(u64::from(bursts), frames)
            ),
            Self::Quiet => write!(f, "no loud bursts (room for weak replies)"),
            Self::Room {
                bursts,
                lost,
                frames,
            } => write!(
                f,
                "{lost} of {bursts} loud bursts lost, {:.1} % of {frames} frames; {:.0} % of the replies clip",
                pct(lost, frames),
                pct(u64::from(bursts), frames)
            ),
        }
    }
}

/// A change of the 1090 MHz loop.
pub type Change = super::Change<Reason>;

/// A gain not to return to before `until_s`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ceiling {
    until_s: f64,
    /// Loud samples per second measured when it was set.
    loud_per_s: f64,
}

/// The loop's state.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopState {
    index: usize,
    t_s: f64,
    window: LevelStats,
    window_s: f64,
    window_strong: u64,
    window_frames: u64,
    /// The ceiling at each gain index, if any.
    ceilings: [Option<Ceiling>; GAINS_TENTH_DB.len()],
    /// The hold of the last ceiling at each index (doubles on a repeat).
    last_hold: [f64; GAINS_TENTH_DB.len()],
}

impl LoopState {
    /// Start at the listed gain nearest `gain_tenths`.
    pub fn new(gain_tenths: i32) -> Self {
        Self {
            index: crate::demo::frontend::gain_index(gain_tenths),
            t_s: 0.0,
            window: LevelStats::default(),
            window_s: 0.0,
            window_strong: 0,
            window_frames: 0,
            ceilings: [None; GAINS_TENTH_DB.len()],
            last_hold: [0.0; GAINS_TENTH_DB.len()],
        }
    }

    /// The gain now, tenths of a dB.
    pub fn gain_tenths(&self) -> i32 {
        GAINS_TENTH_DB[self.index]
    }
}

impl LoopConfig {
    /// Account for `m`, measured at the state's gain; the change to make,
    /// if any (the state already holds the new gain).
    pub fn update(&self, state: &mut LoopState, m: &Measurement) -> Option<Change> {
        state.t_s += m.seconds;
        state.window.add(&m.level);
        state.window_s += m.seconds;
        state.window_strong += m.strong_frames;
        state.window_frames += m.frames;
        let bursts = state.window.bursts;
        let lost_so_far = u64::from(bursts).saturating_sub(state.window_strong);
        let clear = bursts == 0
            || bursts >= self.window_bursts
            || ((lost_so_far as f64) < self.cool_share / 4.0 * state.window_frames as f64
                && f64::from(bursts) < self.clip_cool / 2.0 * state.window_frames as f64);
        let full =
            state.window_s >= self.window_max_s || (state.window_s >= self.window_min_s && clear);
        if !full {
            return None;
        }
        let window = std::mem::take(&mut state.window);
        let seconds = std::mem::take(&mut state.window_s);
        let decoded = std::mem::take(&mut state.window_strong);
        let frames = std::mem::take(&mut state.window_frames);
        self.expire_ceilings(state, &window, seconds);
        let lost = u64::from(bursts).saturating_sub(decoded);
        let share = lost as f64 / frames.max(1) as f64;
        let top = GAINS_TENTH_DB.len() - 1;
        let from = state.index;
        let clipped = f64::from(bursts) / frames.max(1) as f64;
        let hot = share > self.hot_share || clipped > self.clip_hot;
        let (to, reason) = if bursts >= self.min_bursts && hot {
            let steps = if share > 3.0 * self.hot_share || clipped > 1.5 * self.clip_hot {
                2
            } else {
                1
            };
            let to = from.saturating_sub(steps);
            if to < from {
                let hold = (state.last_hold[from] * 2.0).clamp(self.hold_s, self.hold_max_s);
                state.last_hold[from] = hold;
                state.ceilings[from] = Some(Ceiling {
                    until_s: state.t_s + hold,
                    loud_per_s: f64::from(window.loud) / seconds,
                });
            }
            let reason = if share > self.hot_share {
                Reason::Hot {
                    bursts,
                    lost,
                    frames,
                }
            } else {
                Reason::Clipping { bursts, frames }
            };
            (to, reason)
        } else {
            let limit = (from + 1..=top)
                .find(|&i| state.ceilings[i].is_some())
                .map_or(top, |i| i - 1);
            let one = (from + 1).min(top);
            let two = (from + 2).min(top);
            // The clipped share one step up, from the histogram: loud
            // bursts scale with the samples that would be loud there.
            let loud_now = self.predicted_loud(&window, from, from);
            let clipped_up = if loud_now > 0.0 {
                clipped * self.predicted_loud(&window, from, one) / loud_now
            } else {
                0.0
            };
            let (steps, reason) = if bursts == 0 && self.predicted_loud(&window, from, two) == 0.0 {
                (2, Reason::Quiet)
            } else if bursts == 0 {
                (1, Reason::Quiet)
            } else if share < self.cool_share
                && clipped < self.clip_cool
                && clipped_up <= self.clip_hot
            {
                (
                    1,
                    Reason::Room {
                        bursts,
                        lost,
                        frames,
                    },
                )
            } else {
                (0, Reason::Quiet)
            };
            ((from + steps).min(limit).max(from), reason)
        };
        if to == from {
            return None;
        }
        state.index = to;
        Some(Change {
            from: GAINS_TENTH_DB[from],
            to: GAINS_TENTH_DB[to],
            reason,
        })
    }

    /// Loud samples `window` would have held at gain index `to` instead of
    /// `from`: those above `loud · 10^(−Δ/20)`, Δ the dB between them.
    fn predicted_loud(&self, window: &LevelStats, from: usize, to: usize) -> f64 {
        let up_db = f64::from(GAINS_TENTH_DB[to] - GAINS_TENTH_DB[from]) / 10.0;
        let threshold = (f64::from(self.loud) * 10f64.powf(-up_db / 20.0)).floor();
        window.above(threshold.min(255.0) as u8)
    }

    /// End the ceilings whose hold ran out or whose cause has gone.
    fn expire_ceilings(&self, state: &mut LoopState, window: &LevelStats, seconds: f64) {
        for i in 0..GAINS_TENTH_DB.len() {
            let Some(c) = state.ceilings[i] else {
                continue;
            };
            let gone = i > state.index
                && self.predicted_loud(window, state.index, i) / seconds
                    < self.lift_ratio * c.loud_per_s;
            if state.t_s >= c.until_s || gone {
                state.ceilings[i] = None;
                if gone {
                    // Lifted because the cause went: the next hold starts over.
                    state.last_hold[i] = 0.0;
                }
            }
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;

    /// `seconds` of signal with `bursts` loud bursts (`strong` of them
    /// decoded) among `frames`; the histogram holds noise at 10 and
    /// `loud_at` samples per second at magnitude `loud_at.0`.
    fn window(
        seconds: f64,
        bursts: u32,
        strong: u64,
        frames: u64,
        loud_at: (usize, u32),
    ) -> Measurement {
        let mut level = LevelStats::default();
        level.hist[10] = (300_000.0 * seconds) as u32;
        level.hist[loud_at.0] += (f64::from(loud_at.1) * seconds) as u32;
        level.measured = level.hist.iter().sum();
        level.loud = if loud_at.0 >= 243 {
            level.hist[loud_at.0]
        } else {
            0
        };
        level.bursts = bursts;
        Measurement {
            seconds,
            level,
            strong_frames: strong,
            frames,
        }
    }

    /// The lost-burst rule alone: the clipped share never decides.
    fn lost_only() -> LoopConfig {
        LoopConfig {
            clip_hot: f64::INFINITY,
            clip_cool: f64::INFINITY,
            window_bursts: 100,
            ..LoopConfig::default()
        }
    }

    /// [`lost_only`] with a 120 s first hold.
    fn hold_120() -> LoopConfig {
        LoopConfig {
            hold_s: 120.0,
            ..lost_only()
        }
    }

    fn quiet() -> Measurement {
        window(2.0, 0, 0, 300, (10, 0))
    }

    /// Nothing loud: two steps per 2 s window up to the top, then nothing.
    #[test]
    fn test_quiet_climbs_to_the_top() {
        let cfg = LoopConfig::default();
        let mut st = LoopState::new(0);
        let mut changes = 0;
        for _ in 0..30 {
            if let Some(c) = cfg.update(&mut st, &quiet()) {
                assert!(c.to > c.from && c.reason == Reason::Quiet);
                changes += 1;
            }
        }
        assert_eq!(st.gain_tenths(), 496);
        assert_eq!(changes, 14);
        // A window is not decided before window_min_s.
        let mut st = LoopState::new(0);
        assert_eq!(cfg.update(&mut st, &window(1.0, 0, 0, 100, (10, 0))), None);
        assert!(
            cfg.update(&mut st, &window(1.0, 0, 0, 100, (10, 0)))
                .is_some()
        );
    }

    /// Loud bursts lost: down one step (8 % of frames) or two (40 %);
    /// inside the band nothing moves; few lost: up one.
    #[test]
    fn test_hot_band_and_room() {
        let cfg = lost_only();
        let mut st = LoopState::new(496);
        let c = cfg.update(&mut st, &window(2.0, 100, 60, 500, (250, 300)));
        assert_eq!(c.map(|c| (c.from, c.to)), Some((496, 480)));
        assert!(matches!(c.unwrap().reason, Reason::Hot { lost: 40, .. }));
        assert!(c.unwrap().to_string().contains("lowered 49.6 → 48.0 dB"));
        let c = cfg.update(&mut st, &window(2.0, 300, 100, 500, (250, 300)));
        assert_eq!(c.map(|c| (c.from, c.to)), Some((480, 439)));
        // 4 % lost: the hysteresis band.
        for _ in 0..10 {
            assert_eq!(
                cfg.update(&mut st, &window(2.0, 120, 100, 500, (250, 300))),
                None
            );
        }
        // 1 % lost: room for one step (below the ceiling at 48.0).
        let c = cfg.update(&mut st, &window(2.0, 105, 100, 500, (250, 300)));
        assert_eq!(c.map(|c| (c.from, c.to)), Some((439, 445)));
        let c = cfg.update(&mut st, &window(2.0, 105, 100, 500, (250, 300)));
        assert_eq!(c, None, "48.0 is a ceiling");
        // Under min_bursts, even all lost never lowers.
        let c = cfg.update(&mut st, &window(2.0, 5, 0, 50, (250, 1)));
        assert!(c.is_none_or(|c| c.to >= c.from));
    }

    /// After a step down, the gain left is a ceiling: no return while the
    /// loud signal that set it is there, until the hold runs out; a
    /// repeat doubles the hold. When the loud signal goes (the histogram
    /// predicts nothing loud at the ceiling's gain) the ceiling lifts at
    /// once.
    #[test]
    fn test_ceiling_hold_doubling_and_lift() {
        let cfg = hold_120();
        let mut st = LoopState::new(338);
        // Hot at 33.8: down to 32.8, ceiling 33.8 for 120 s.
        let hot = window(2.0, 100, 40, 500, (250, 300));
        assert_eq!(cfg.update(&mut st, &hot).map(|c| c.to), Some(328));
        // At 32.8 the same sources read 1 dB lower (magnitude 223, which
        // reaches 250 at 33.8): no loud bursts, but the ceiling holds.
        let cool = window(2.0, 0, 0, 500, (223, 300));
        for _ in 0..59 {
            assert_eq!(cfg.update(&mut st, &cool), None);
        }
        // The hold ran out at 122 s: the next window probes one step (two
        // would be loud by the histogram).
        let c = cfg.update(&mut st, &cool);
        assert_eq!(c.map(|c| (c.to, c.reason)), Some((338, Reason::Quiet)));
        // Hot again: a 240 s hold this time.
        assert_eq!(cfg.update(&mut st, &hot).map(|c| c.to), Some(328));
        for _ in 0..(230 / 2) {
            assert_eq!(cfg.update(&mut st, &cool), None);
        }
        // The strong source leaves: nothing above the noise; lifted long
        // before the 240 s are over, and two steps at once.
        let gone = window(2.0, 0, 0, 500, (10, 0));
        assert_eq!(cfg.update(&mut st, &gone).map(|c| c.to), Some(364));
    }

    /// Ceilings are kept per gain: a short one below does not free a
    /// longer one above it.
    #[test]
    fn test_ceilings_per_gain() {
        let cfg = hold_120();
        let mut st = LoopState::new(338);
        // Loud sources that stay (predicted loud at every gain above).
        let hot = window(2.0, 100, 40, 500, (250, 300));
        let cool = window(2.0, 0, 0, 500, (223, 300));
        assert_eq!(cfg.update(&mut st, &hot).map(|c| c.to), Some(328));
        let mut t = 2.0;
        while st.gain_tenths() == 328 {
            cfg.update(&mut st, &cool);
            t += 2.0;
        }
        assert_eq!((st.gain_tenths(), t), (338, 122.0));
        // Hot again at 33.8 (240 s, to 364 s), then at 32.8 (120 s).
        assert_eq!(cfg.update(&mut st, &hot).map(|c| c.to), Some(328));
        assert_eq!(cfg.update(&mut st, &hot).map(|c| c.to), Some(297));
        t += 4.0;
        while t < 360.0 {
            cfg.update(&mut st, &cool);
            t += 2.0;
        }
        assert_eq!(st.gain_tenths(), 328, "32.8 free after 120 s, 33.8 held");
        cfg.update(&mut st, &cool);
        cfg.update(&mut st, &cool);
        assert_eq!(st.gain_tenths(), 338, "33.8 free at 364 s");
    }

    /// Replies that clip but decode: above `clip_hot` of the frames the
    /// gain comes down (two steps above 1.5 × `clip_hot`); between the
    /// shares nothing moves; below `clip_cool` it goes up only when the
    /// histogram says one step up stays under `clip_hot`.
    #[test]
    fn test_clipped_share() {
        let cfg = LoopConfig::default();
        let mut st = LoopState::new(402);
        // 35 % of the replies clip, none lost: one step down.
        let c = cfg.update(&mut st, &window(10.0, 350, 350, 1000, (250, 300)));
        assert_eq!(c.map(|c| (c.from, c.to)), Some((402, 386)));
        assert_eq!(
            c.unwrap().reason,
            Reason::Clipping {
                bursts: 350,
                frames: 1000
            }
        );
        assert!(c.unwrap().to_string().contains("35 % of the replies clip"));
        // 50 %: two steps.
        let c = cfg.update(&mut st, &window(10.0, 500, 500, 1000, (250, 300)));
        assert_eq!(c.map(|c| (c.from, c.to)), Some((386, 364)));
        // 25 %: the band (10 s windows: 250 bursts do not close one early).
        for _ in 0..5 {
            assert_eq!(
                cfg.update(&mut st, &window(10.0, 250, 250, 1000, (250, 300))),
                None
            );
        }
        // 15 %, the loud samples at the loud level exactly: one step up
        // (0.8 dB) makes the samples from magnitude 240 up loud, and 2500
        // at 241 beside the 3000 loud ones predict 27.5 %, under
        // clip_hot: up.
        let mut m = window(10.0, 150, 150, 1000, (243, 300));
        m.level.hist[241] += 2500;
        m.level.measured += 2500;
        let c = cfg.update(&mut st, &m);
        assert_eq!(c.map(|c| (c.from, c.to)), Some((364, 372)));
        // At 37.2 dB, with 9000 at 241 (one step up, 1.4 dB, makes those
        // from 236 up loud): predicted 60 %, it stays.
        let mut m = window(10.0, 150, 150, 1000, (243, 300));
        m.level.hist[241] += 9000;
        m.level.measured += 9000;
        assert_eq!(cfg.update(&mut st, &m), None);
        // Too few bursts never lower the gain, whatever their share.
        assert_eq!(
            cfg.update(&mut st, &window(10.0, 9, 9, 10, (250, 300))),
            None
        );
    }
}
