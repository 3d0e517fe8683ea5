//! The demo sky against a gain policy, decoded by the real receive chain:
//! what the `autogain` benchmark and the loop's tests run.
//!
//! [`run`] renders `seconds` of a [`DemoSky`] with a physical front end in
//! blocks of [`BLOCK_S`], decodes each block with the core
//! [`Receiver`], measures it with the core level meter, and asks the
//! [`Policy`] for the gain of the next block. It counts the frames the
//! tracker accepted, per second of signal, and the gain each second.

use crate::demo::frontend::FrontEnd;
use crate::demo::{DemoConfig, DemoError, DemoSky, SkyKind};
use crate::rtl::r82xx::Gain;
use airwaves_core::modes::demod::Demodulator;
use airwaves_core::modes::receiver::{Clock, Decoded, Receiver, Sink};
use airwaves_core::modes::tracker::TrackerConfig;

/// Signal per block, s (0.1 s: 240 000 samples at 2.4 MS/s).
pub const BLOCK_S: f64 = 0.1;
/// The sky's clock at sample 0, unix ms.
const START_MS: u64 = 1_700_000_000_000;

/// What decides the gain.
pub enum Policy<'a> {
    /// A fixed gain, tenths of a dB.
    Fixed(i32),
    /// The tuner's own AGC (modelled in the front end).
    TunerAgc,
    /// A controller: given the block's measurements, the gain for the next
    /// block (tenths of a dB) or `None` to keep it.
    Loop(&'a mut dyn FnMut(&BlockReport) -> Option<i32>),
}

/// What one block showed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockReport {
    /// Signal time at the end of the block, s.
    pub t_s: f64,
    /// The gain the block was received at, tenths of a dB.
    pub gain_tenths: i32,
    /// The level meter's counts for the block.
    pub level: airwaves_core::modes::level::LevelStats,
    /// Frames the tracker accepted.
    pub frames: u64,
    /// Of them, frames whose signal was at or above
    /// [`STRONG_DBFS`](crate::autogain::STRONG_DBFS).
    pub strong_frames: u64,
}

/// One run's outcome.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunReport {
    /// Accepted frames per whole second of signal.
    pub frames_per_s: Vec<u64>,
    /// The gain at the end of each whole second, tenths of a dB.
    pub gain_per_s: Vec<i32>,
    /// Gain changes: (signal time s, from, to).
    pub changes: Vec<(f64, i32, i32)>,
}

impl RunReport {
    /// Frames from second `from` (inclusive) to the end.
    pub fn frames_from(&self, from: usize) -> u64 {
        self.frames_per_s.iter().skip(from).sum()
    }
}

/// A physical demo sky of `kind` (the front end's defaults, 40 aircraft,
/// `seed`) at 2.4 MS/s.
pub fn sky_config(kind: SkyKind, seed: u64) -> DemoConfig {
    DemoConfig {
        sky: kind,
        seed,
        front_end: Some(FrontEnd::default()),
        ..DemoConfig::default()
    }
}

struct Count {
    frames: u64,
    strong: u64,
}

impl Sink<256> for Count {
    fn frame(&mut self, d: &Decoded<'_, 256>) {
        if d.outcome.is_ok() {
            self.frames += 1;
            if d.frame.signal_dbfs >= super::STRONG_DBFS {
                self.strong += 1;
            }
        }
    }
}

/// Run `seconds` of `cfg` (a front end needed for the gain to matter)
/// under `policy`, starting at `cfg.gain`.
///
/// # Errors
/// A configuration [`DemoSky::new`] refuses.
pub fn run(cfg: &DemoConfig, seconds: u32, mut policy: Policy<'_>) -> Result<RunReport, DemoError> {
    let mut cfg = cfg.clone();
    match policy {
        Policy::Fixed(g) => cfg.gain = Gain::Manual(g),
        Policy::TunerAgc => cfg.gain = Gain::Auto,
        Policy::Loop(_) => {}
    }
    let mut sky = DemoSky::new(&cfg, START_MS)?;
    let rate = cfg.sample_rate;
    let demod = Demodulator::new(rate as u32).map_err(|_| DemoError::SampleRate(rate))?;
    let mut receiver = Box::new(Receiver::<256>::new(
        demod,
        TrackerConfig::with_receiver(cfg.receiver),
        Clock::Samples { epoch_ms: START_MS },
    ));
    let meter = airwaves_core::modes::level::LevelMeter::RTL_SDR;
    let mut level = airwaves_core::modes::level::LevelState::new();
    let block = (rate * BLOCK_S) as usize;
    let mut buf = vec![0u8; 2 * block];
    let blocks_per_s = (1.0 / BLOCK_S).round() as u32;
    let mut report = RunReport::default();
    let mut second = 0u64;
    for b in 0..seconds * blocks_per_s {
        let gain = sky.gain_tenths().unwrap_or(0);
        sky.fill(&mut buf);
        let mut count = Count {
            frames: 0,
            strong: 0,
        };
        receiver.process(&buf, 0, &mut count);
        level.clear();
        meter.block(&mut level, &buf);
        second += count.frames;
        let t_s = f64::from(b + 1) * BLOCK_S;
        if let Policy::Loop(f) = &mut policy {
            let r = BlockReport {
                t_s,
                gain_tenths: gain,
                level: level.stats(),
                frames: count.frames,
                strong_frames: count.strong,
            };
            if let Some(g) = f(&r) {
                sky.set_gain(Gain::Manual(g));
            }
        }
        let now = sky.gain_tenths().unwrap_or(0);
        if now != gain {
            report.changes.push((t_s, gain, now));
        }
        if (b + 1) % blocks_per_s == 0 {
            report.frames_per_s.push(second);
            report.gain_per_s.push(now);
            second = 0;
        }
    }
    Ok(report)
}

/// A rule like readsb's published defaults: keep the noise floor (the
/// 40th-percentile magnitude, 0–255 scale) between 34 and 36, and lower
/// the gain when too many samples are loud (≥ 243). readsb's "too many" is
/// not published with a number: here more than 0.1 % of the samples in a
/// 5 s window lowers a step; raising needs a noise floor under 34 and
/// fewer than 0.05 % loud.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadsbLike {
    index: usize,
    window: airwaves_core::modes::level::LevelStats,
    window_s: f64,
}

impl ReadsbLike {
    /// Decision window, s of signal.
    pub const WINDOW_S: f64 = 5.0;

    /// Start at the listed gain nearest `gain_tenths`.
    pub fn new(gain_tenths: i32) -> Self {
        Self {
            index: crate::demo::frontend::gain_index(gain_tenths),
            window: Default::default(),
            window_s: 0.0,
        }
    }

    /// Account for one block; the new gain, if it changes.
    pub fn update(&mut self, r: &BlockReport) -> Option<i32> {
        use crate::demo::frontend::GAINS_TENTH_DB;
        self.window.add(&r.level);
        self.window_s += BLOCK_S;
        if self.window_s < Self::WINDOW_S - 1e-9 {
            return None;
        }
        let w = std::mem::take(&mut self.window);
        self.window_s = 0.0;
        let loud = f64::from(w.loud) / f64::from(w.measured.max(1));
        let noise = w.noise_floor(40);
        let from = self.index;
        if loud > 0.001 || noise > 36 {
            self.index = self.index.saturating_sub(1);
        } else if noise < 34 && loud < 0.0005 {
            self.index = (self.index + 1).min(GAINS_TENTH_DB.len() - 1);
        }
        (self.index != from).then_some(GAINS_TENTH_DB[self.index])
    }
}

/// Run `seconds` of `cfg` under airwaves' loop ([`LoopConfig::default`](super::control::LoopConfig::default)),
/// starting at `cfg.gain`; also the changes with their reasons.
///
/// # Errors
/// A configuration [`DemoSky::new`] refuses.
pub fn run_loop(
    cfg: &DemoConfig,
    seconds: u32,
) -> Result<(RunReport, Vec<(f64, super::control::Change)>), DemoError> {
    let start = match cfg.gain {
        Gain::Manual(t) => t,
        Gain::Auto => crate::demo::frontend::MAX_GAIN_TENTHS,
    };
    let config = super::control::LoopConfig::default();
    let mut state = super::control::LoopState::new(start);
    let mut log = Vec::new();
    let mut f = |r: &BlockReport| {
        let m = super::control::Measurement {
            seconds: BLOCK_S,
            level: r.level,
            strong_frames: r.strong_frames,
            frames: r.frames,
        };
        let c = config.update(&mut state, &m)?;
        log.push((r.t_s, c));
        Some(c.to)
    };
    let mut cfg = cfg.clone();
    cfg.gain = Gain::Manual(start);
    let report = run(&cfg, seconds, Policy::Loop(&mut f))?;
    Ok((report, log))
}

/// Run `seconds` of `cfg` under the [`ReadsbLike`] rule from `cfg.gain`.
///
/// # Errors
/// A configuration [`DemoSky::new`] refuses.
pub fn run_readsb_like(cfg: &DemoConfig, seconds: u32) -> Result<RunReport, DemoError> {
    let start = match cfg.gain {
        Gain::Manual(t) => t,
        Gain::Auto => crate::demo::frontend::MAX_GAIN_TENTHS,
    };
    let mut rule = ReadsbLike::new(start);
    let mut f = |r: &BlockReport| rule.update(r);
    let mut cfg = cfg.clone();
    cfg.gain = Gain::Manual(start);
    run(&cfg, seconds, Policy::Loop(&mut f))
}

#[cfg(test)]
mod test {
    use super::*;

    fn from(kind: SkyKind, gain: i32) -> DemoConfig {
        DemoConfig {
            gain: Gain::Manual(gain),
            ..sky_config(kind, 3)
        }
    }

    /// Changes after `t_s`.
    fn changes_after(log: &[(f64, super::super::control::Change)], t_s: f64) -> usize {
        log.iter().filter(|(t, _)| *t > t_s).count()
    }

    /// Far traffic only: from 0 dB the loop climbs to the top within
    /// 60 s of signal, from the top it never moves, and once there it
    /// stays.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_loop_rural_climbs_and_stays() {
        let (r, log) = run_loop(&from(SkyKind::Rural, 0), 90).unwrap();
        assert_eq!(
            r.gain_per_s[59],
            crate::demo::frontend::MAX_GAIN_TENTHS,
            "{log:?}"
        );
        assert_eq!(changes_after(&log, 60.0), 0, "{log:?}");
        assert!(log.iter().all(|(_, c)| c.to > c.from));
        let (_, log) = run_loop(&from(SkyKind::Rural, 496), 60).unwrap();
        assert!(log.is_empty(), "{log:?}");
    }

    /// Near an airport: from either end of the range the loop ends within
    /// two steps of the same gain in 60 s, then changes at most once a
    /// minute, and decodes more than at either end's fixed gain.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_loop_airport_converges_from_both_ends() {
        let seconds = 150;
        let (low, low_log) = run_loop(&from(SkyKind::Airport, 0), seconds).unwrap();
        let (high, high_log) = run_loop(&from(SkyKind::Airport, 496), seconds).unwrap();
        let index = crate::demo::frontend::gain_index;
        let (a, b) = (low.gain_per_s[59], high.gain_per_s[59]);
        assert!(
            index(a).abs_diff(index(b)) <= 2,
            "{a} vs {b}\n{low_log:#?}\n{high_log:#?}"
        );
        // Not stuck at an end.
        assert!(a > 0 && b < 496, "{a} {b}");
        for log in [&low_log, &high_log] {
            assert!(changes_after(log, 60.0) <= 2, "{log:?}");
            // Every change says why, with its figures.
            assert!(log.iter().all(|(_, c)| !c.to_string().is_empty()));
        }
        // Down from the top for clipping, up from the bottom for room.
        assert!(matches!(
            high_log[0].1.reason,
            super::super::control::Reason::Hot { .. }
                | super::super::control::Reason::Clipping { .. }
        ));
        let top = run(&from(SkyKind::Airport, 496), seconds, Policy::Fixed(496)).unwrap();
        let bottom = run(&from(SkyKind::Airport, 0), seconds, Policy::Fixed(0)).unwrap();
        for r in [&low, &high] {
            assert!(
                r.frames_from(60) > top.frames_from(60),
                "{} {}",
                r.frames_from(60),
                top.frames_from(60)
            );
            assert!(r.frames_from(60) > 2 * bottom.frames_from(60));
        }
    }

    /// The tuner AGC model lowers the gain near an airport (strong peaks)
    /// and keeps it at the top in the rural sky.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_tuner_agc_follows_the_peaks() {
        let airport = run(&sky_config(SkyKind::Airport, 3), 5, Policy::TunerAgc).unwrap();
        assert!(
            airport.gain_per_s.iter().all(|&g| g < 300),
            "{:?}",
            airport.gain_per_s
        );
        let rural = run(&sky_config(SkyKind::Rural, 3), 5, Policy::TunerAgc).unwrap();
        assert!(
            rural.gain_per_s.iter().all(|&g| g >= 445),
            "{:?}",
            rural.gain_per_s
        );
    }
}
