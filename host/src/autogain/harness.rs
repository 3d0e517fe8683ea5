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

#[cfg(test)]
mod test {
    use super::*;

    /// The sweep that decides what a loop should aim at (printed).
    #[test]
    #[ignore]
    fn sweep_print() {
        for kind in [SkyKind::Airport, SkyKind::Rural, SkyKind::Mixed] {
            for &g in crate::demo::frontend::GAINS_TENTH_DB.iter().step_by(2) {
                let r = run(&sky_config(kind, 1), 20, Policy::Fixed(g)).unwrap();
                eprintln!("{:?} {g}: {}", kind, r.frames_from(0));
            }
            let r = run(&sky_config(kind, 1), 20, Policy::TunerAgc).unwrap();
            eprintln!("{:?} agc: {} {:?}", kind, r.frames_from(0), &r.gain_per_s);
        }
    }
}
