//! The gain loop of the audio receivers (`fm`, `am`, `nfm` with
//! `--gain auto`): keep the ADC's peaks a few dB under full scale,
//! without clipping, from the core level meter's counts.
//!
//! # The rule
//!
//! The ADC sees the whole band the dongle samples (2.4 or 1.2 MHz), not
//! the station alone: what must not clip is the sum of everything in it.
//! The loop reads, per window of [`HeadroomConfig::window_s`] of signal,
//! two figures from [`LevelStats`]:
//!
//! - the *peak* `P`: the [`HeadroomConfig::peak_permille`]‰ point of the
//!   magnitude histogram (0–255 scale, `255 · |z|`, full scale `|z| = 1`),
//!   as dBFS `20 log10(P / 255)`;
//! - the clipped share `C`: measured samples with I or Q at 0 or 255.
//!
//! A peak is referred to the antenna by taking off the gain it was
//! received at, `P − g`, so that peaks seen at different gains compare.
//! The loop keeps those of the last [`HeadroomConfig::release_s`] (fast
//! attack, slow release: a voice channel between two transmissions, or an
//! FM station in a quiet passage, does not pull the gain up only to clip
//! at the next word). With `Pmax` the loudest of them and `T` the
//! [`HeadroomConfig::target_dbfs`]:
//!
//! - **Clipping**: `C > clip_share`: the true peak is unknown, so down to
//!   the gain that puts `Pmax` at `T`, and at least
//!   `clip_step_db · (1 + log10(C / clip_share))` down (6 dB at the
//!   threshold, 30 dB when everything clips).
//! - **Loud**: this window's peak above [`HeadroomConfig::hot_dbfs`]: down
//!   to the listed gain that puts `Pmax` at or under `T`.
//! - **Room**: `Pmax + g` under [`HeadroomConfig::cold_dbfs`]: up to the
//!   highest listed gain that keeps `Pmax` at or under `T`, at most
//!   [`HeadroomConfig::rise_db`] up. Peaks under
//!   [`HeadroomConfig::floor_dbfs`] are the noise's or the quantisation's
//!   and are not remembered: with nothing remembered the loop climbs by
//!   `rise_db` a window.
//! - Otherwise the gain stays: the band between `cold` and `hot` is the
//!   hysteresis.
//!
//! Configuration is in [`HeadroomConfig`] (`&self`), state in
//! [`HeadroomState`].

use crate::rtl::r82xx::{GAINS_TENTH_DB, nearest_gain};
use airwaves_core::modes::level::LevelStats;
use std::collections::VecDeque;
use std::fmt;

/// The loop's tuning (configuration). [`Default`]: the values documented
/// on each field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadroomConfig {
    /// Where the loop puts the loudest recent peak, dBFS (−6).
    pub target_dbfs: f64,
    /// A window whose peak passes this comes down at once, dBFS (−2).
    pub hot_dbfs: f64,
    /// When every recent peak is under this, the gain goes up, dBFS (−15).
    pub cold_dbfs: f64,
    /// Clipped samples, as a share of those measured, that lower the gain
    /// whatever the peak (10⁻⁴).
    pub clip_share: f64,
    /// The least step down on clipping, dB, one more such step for each
    /// tenfold of the clipped share over `clip_share` (6).
    pub clip_step_db: f64,
    /// The largest step up, dB (12).
    pub rise_db: f64,
    /// Peaks under this are the receiver's noise or the quantisation's,
    /// not a signal, and are not remembered, dBFS (−30).
    pub floor_dbfs: f64,
    /// The histogram point read as the peak, per mille (999).
    pub peak_permille: u16,
    /// Window, s of signal (1).
    pub window_s: f64,
    /// Peaks are remembered this long, s of signal (30).
    pub release_s: f64,
}

impl Default for HeadroomConfig {
    fn default() -> Self {
        Self {
            target_dbfs: -6.0,
            hot_dbfs: -2.0,
            cold_dbfs: -15.0,
            clip_share: 1e-4,
            clip_step_db: 6.0,
            rise_db: 12.0,
            floor_dbfs: -30.0,
            peak_permille: 999,
            window_s: 1.0,
            release_s: 30.0,
        }
    }
}

/// Why the gain moved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HeadroomReason {
    /// Samples clipped: this share of those measured.
    Clipping {
        /// Clipped share.
        share: f64,
    },
    /// The window's peak, dBFS, passed the hot level.
    Loud {
        /// Peak, dBFS.
        peak_dbfs: f64,
    },
    /// Every recent peak was under the cold level: the loudest, dBFS.
    Room {
        /// Loudest recent peak at the old gain, dBFS.
        peak_dbfs: f64,
    },
}

/// A change of the headroom loop.
pub type HeadroomChange = super::Change<HeadroomReason>;

impl fmt::Display for HeadroomReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            HeadroomReason::Clipping { share } => {
                write!(f, "{:.3} % of the samples clip", 100.0 * share)
            }
            HeadroomReason::Loud { peak_dbfs } => {
                write!(f, "peaks at {peak_dbfs:.1} dBFS (too little headroom)")
            }
            HeadroomReason::Room { peak_dbfs } => {
                write!(
                    f,
                    "peaks at most {peak_dbfs:.1} dBFS (room for weak signals)"
                )
            }
        }
    }
}

/// The loop's state.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadroomState {
    gain: i32,
    t_s: f64,
    window: LevelStats,
    window_s: f64,
    /// (end of the window, s; its peak referred to the antenna, dBFS − dB).
    peaks: VecDeque<(f64, f64)>,
}

impl HeadroomState {
    /// Start at the listed gain nearest `gain_tenths`.
    pub fn new(gain_tenths: i32) -> Self {
        Self {
            gain: nearest_gain(gain_tenths),
            t_s: 0.0,
            window: LevelStats::default(),
            window_s: 0.0,
            peaks: VecDeque::new(),
        }
    }

    /// The gain now, tenths of a dB.
    pub fn gain_tenths(&self) -> i32 {
        self.gain
    }
}

/// Magnitude (0–255) as dBFS; 0 reads as the bottom of the scale.
fn dbfs(m: u8) -> f64 {
    20.0 * (f64::from(m.max(1)) / 255.0).log10()
}

impl HeadroomConfig {
    /// The magnitude at the `peak_permille` point of `stats`' histogram;
    /// `None` when it holds nothing.
    pub fn peak(&self, stats: &LevelStats) -> Option<u8> {
        let n = stats.samples();
        if n == 0 {
            return None;
        }
        // Samples above the peak: at most (1000 − permille)‰ of them.
        let above = n * u64::from(1000 - self.peak_permille.min(1000)) / 1000;
        let mut seen = 0u64;
        for m in (0..256).rev() {
            seen += u64::from(stats.hist[m]);
            if seen > above {
                return Some(m as u8);
            }
        }
        Some(0)
    }

    /// Account for `seconds` of signal measured as `level` at the state's
    /// gain; the change to make, if any (the state already holds the new
    /// gain).
    pub fn update(
        &self,
        state: &mut HeadroomState,
        level: &LevelStats,
        seconds: f64,
    ) -> Option<HeadroomChange> {
        state.t_s += seconds;
        state.window.add(level);
        state.window_s += seconds;
        if state.window_s < self.window_s {
            return None;
        }
        let window = std::mem::take(&mut state.window);
        state.window_s = 0.0;
        let peak = dbfs(self.peak(&window)?);
        let g_db = f64::from(state.gain) / 10.0;
        if peak >= self.floor_dbfs {
            state.peaks.push_back((state.t_s, peak - g_db));
        }
        while state
            .peaks
            .front()
            .is_some_and(|&(t, _)| t < state.t_s - self.release_s)
        {
            state.peaks.pop_front();
        }
        let loudest = state
            .peaks
            .iter()
            .map(|&(_, p)| p)
            .fold(f64::NEG_INFINITY, f64::max);
        // The highest listed gain that puts `loudest` at or under the target.
        let fit = |limit_db: f64| -> i32 {
            let want = (self.target_dbfs - loudest).min(limit_db);
            GAINS_TENTH_DB
                .iter()
                .copied()
                .filter(|&g| f64::from(g) / 10.0 <= want + 1e-9)
                .max()
                .unwrap_or(GAINS_TENTH_DB[0])
        };
        let share = f64::from(window.clipped) / f64::from(window.measured.max(1));
        let from = state.gain;
        let (to, reason) = if share > self.clip_share {
            // The more clip, the further over: a step more per decade.
            let step = self.clip_step_db * (1.0 + (share / self.clip_share).log10());
            (fit(g_db - step), HeadroomReason::Clipping { share })
        } else if peak > self.hot_dbfs {
            (fit(g_db), HeadroomReason::Loud { peak_dbfs: peak })
        } else if loudest + g_db < self.cold_dbfs {
            (
                fit(g_db + self.rise_db),
                HeadroomReason::Room {
                    peak_dbfs: loudest + g_db,
                },
            )
        } else {
            (from, HeadroomReason::Room { peak_dbfs: peak })
        };
        // Down for clipping or loudness, up for room: never the other way.
        let to = match reason {
            HeadroomReason::Room { .. } => to.max(from),
            _ => to.min(from),
        };
        if to == from {
            return None;
        }
        state.gain = to;
        Some(HeadroomChange { from, to, reason })
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::demo::frontend::{FrontEnd, compress};
    use airwaves_core::C32;
    use airwaves_core::modes::level::{LevelMeter, LevelState};
    use airwaves_core::modes::modulate::Quantiser;
    use airwaves_core::rng::Rng;

    /// The band a dongle at `RATE` sees, through the front-end model: a
    /// carrier of `dbm` at the antenna (an FM station: constant envelope,
    /// its phase wandering; or voice AM: envelope `1 + 0.8·sin`, keyed on
    /// and off) plus the receiver noise, compressed in the LNA, quantised.
    struct Band {
        fe: FrontEnd,
        rng: Rng,
        phase: f64,
        t: u64,
    }

    /// A low rate keeps the test quick; the meter does not depend on it.
    const RATE: f64 = 300_000.0;

    impl Band {
        fn new(seed: u64) -> Self {
            Self {
                fe: FrontEnd::default(),
                rng: Rng::new(seed),
                phase: 0.0,
                t: 0,
            }
        }

        fn gauss(&mut self) -> f64 {
            let u = self.rng.uniform().max(1e-12);
            let v = self.rng.uniform();
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        }

        /// `seconds` of signal at `gain` measured by the core meter.
        /// `dbm(t_s)`: the carrier's power (`None`: off); `am`: voice AM.
        fn measure(
            &mut self,
            gain: i32,
            seconds: f64,
            dbm: &dyn Fn(f64) -> Option<f64>,
            am: bool,
        ) -> LevelStats {
            let n = (seconds * RATE) as usize;
            let sigma = self.fe.noise_rms_codes(RATE, gain) / 128.0;
            let sat = self.fe.saturation_amplitude(gain);
            let q = Quantiser::RTL_SDR;
            let meter = LevelMeter::RTL_SDR;
            let mut level = LevelState::new();
            let mut buf = vec![0u8; 2 * 4096];
            let mut x = vec![C32::new(0.0, 0.0); 4096];
            let mut done = 0;
            while done < n {
                let k = (n - done).min(4096);
                for s in &mut x[..k] {
                    let t_s = self.t as f64 / RATE;
                    self.t += 1;
                    // FM: 75 kHz deviation by a 1 kHz tone.
                    self.phase +=
                        std::f64::consts::TAU * 75e3 * (std::f64::consts::TAU * 1e3 * t_s).sin()
                            / RATE;
                    let a = dbm(t_s).map_or(0.0, |p| self.fe.amplitude(p, gain));
                    let env = if am {
                        1.0 + 0.8 * (std::f64::consts::TAU * 400.0 * t_s).sin()
                    } else {
                        1.0
                    };
                    let (ni, nq) = (self.gauss() * sigma, self.gauss() * sigma);
                    let z = C32::new(
                        (a * env * self.phase.cos() + ni) as f32,
                        (a * env * self.phase.sin() + nq) as f32,
                    );
                    *s = compress(z, sat as f32);
                }
                q.block(&x[..k], &mut buf[..2 * k]);
                meter.block(&mut level, &buf[..2 * k]);
                done += k;
            }
            level.stats()
        }
    }

    /// Run the loop for `seconds` from `start` over `dbm`; the gain per
    /// second and the changes.
    fn run(
        start: i32,
        seconds: u32,
        dbm: &dyn Fn(f64) -> Option<f64>,
        am: bool,
    ) -> (Vec<i32>, Vec<(f64, HeadroomChange)>, Vec<f64>) {
        let cfg = HeadroomConfig::default();
        let mut st = HeadroomState::new(start);
        let mut band = Band::new(7);
        let (mut gains, mut log, mut clipped) = (Vec::new(), Vec::new(), Vec::new());
        let step = 0.25;
        for i in 0..(f64::from(seconds) / step) as u32 {
            let g = st.gain_tenths();
            let level = band.measure(g, step, dbm, am);
            clipped.push(f64::from(level.clipped) / f64::from(level.measured.max(1)));
            if let Some(c) = cfg.update(&mut st, &level, step) {
                log.push((f64::from(i + 1) * step, c));
            }
            if (i + 1) % 4 == 0 {
                gains.push(st.gain_tenths());
            }
        }
        (gains, log, clipped)
    }

    /// The peak the front end gives a constant carrier of `dbm` at `gain`,
    /// dBFS (before clipping).
    fn carrier_dbfs(dbm: f64, gain: i32) -> f64 {
        20.0 * FrontEnd::default().amplitude(dbm, gain).log10()
    }

    /// A strong FM station (−55 dBm: full scale at 20.5 dB of gain): from
    /// the top and from the bottom of the range the loop settles within
    /// 5 s on a gain that puts the carrier between −15 and −2 dBFS (the
    /// hysteresis band: the two ends need not meet), with no clipping
    /// after the first second, and then stays.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_strong_station_from_both_ends() {
        let station = |_: f64| Some(-55.0);
        let (high, high_log, high_clip) = run(496, 20, &station, false);
        let (low, low_log, low_clip) = run(0, 20, &station, false);
        for (gains, clipped) in [(&high, &high_clip), (&low, &low_clip)] {
            let g = gains[19];
            let level = carrier_dbfs(-55.0, g);
            assert!((-15.0..=-2.0).contains(&level), "{g} {level}");
            assert!(gains[4..].iter().all(|&x| x == g));
            assert!(clipped[4..].iter().all(|&c| c == 0.0));
        }
        for log in [&high_log, &low_log] {
            assert!(log.iter().all(|(t, _)| *t <= 5.0), "{log:?}");
        }
        // Down from the top for clipping, with the figures.
        assert!(matches!(
            high_log[0].1.reason,
            HeadroomReason::Clipping { .. }
        ));
        assert!(high_log[0].1.to_string().contains("of the samples clip"));
        assert!(low_log.iter().all(|(_, c)| c.to > c.from));
    }

    /// A weak station (−95 dBm, −11 dBFS at the top gain) never nears
    /// full scale: the loop climbs to the top within 6 s and stays.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_weak_station_climbs_to_the_top() {
        let (gains, log, clipped) = run(0, 10, &|_| Some(-95.0), false);
        assert_eq!(gains[5], 496, "{log:?}");
        assert!(gains[5..].iter().all(|&g| g == 496));
        assert!(clipped.iter().all(|&c| c == 0.0));
    }

    /// Airband AM keyed on for 2 s in every 10 (−60 dBm): between
    /// transmissions the gain does not climb (the peaks of the last 30 s
    /// hold it), so no transmission after the first clips; once the
    /// channel has been quiet for longer than the release, it climbs.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_voice_am_does_not_pump() {
        let keyed = |t: f64| ((t % 10.0) < 2.0 && t < 40.0).then_some(-60.0);
        let (gains, log, clipped) = run(496, 80, &keyed, true);
        let settled = gains[4];
        assert!(gains[4..40].iter().all(|&g| g == settled), "{log:?}");
        assert!(clipped[4 * 10..4 * 40].iter().all(|&c| c == 0.0));
        let peak = carrier_dbfs(-60.0, settled) + 20.0 * 1.8f64.log10();
        assert!((-15.0..=-2.0).contains(&peak), "{settled} {peak}");
        assert!(gains[79] > settled, "{log:?}");
    }

    /// The peak is read at the 99.9 % point of the histogram.
    #[test]
    fn test_peak_point() {
        let cfg = HeadroomConfig::default();
        let mut s = LevelStats::default();
        assert_eq!(cfg.peak(&s), None);
        s.hist[20] = 9_990;
        s.hist[200] = 10;
        assert_eq!(cfg.peak(&s), Some(20));
        s.hist[200] = 11;
        assert_eq!(cfg.peak(&s), Some(200));
        assert!((dbfs(128) + 5.99).abs() < 0.01);
    }
}
