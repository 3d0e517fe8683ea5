//! Synchronous AM detector: a carrier phase-locked loop; the in-phase (I)
//! channel after de-rotation is the audio.
//!
//! # Loop
//!
//! Per channel sample, with the loop phase `φ` (cycles, kept as a 32-bit
//! binary angle) and frequency `ν` (cycles per sample):
//!
//! ```text
//! y = x · e^{−j2πφ}                    (de-rotated sample; I = y.re is the audio)
//! e = atan2(y.im, y.re) / 2π           (phase error, cycles; ±½)
//! ν ← clamp(ν + k_i e, ±ν_max)          (integrator)
//! φ ← φ + ν + k_p e
//! ```
//!
//! A type-2 second-order loop with `k_p = 2ζθ`, `k_i = θ²`,
//! `θ = ω_n / f_s`, damping `ζ` = 0.707, and natural frequency
//! `ω_n = 2 B_L / (ζ + 1/(4ζ))` for the (one-sided) loop noise bandwidth
//! `B_L` in Hz. The phase detector is `atan2`, so its gain does not
//! depend on the carrier level and the loop bandwidth holds for any signal
//! strength.
//!
//! - Loop bandwidth: [`SyncParams::track_bw_hz`] (default 30 Hz) once
//!   locked: well below the 300 Hz voice band, so the loop follows the
//!   carrier, not the sidebands; loop SNR is `CNR_ch · B_ch / (2 B_L)`
//!   (+21 dB over the channel CNR at 8.33 kHz), so it holds lock far
//!   below the envelope detector's threshold. While unlocked it uses
//!   [`SyncParams::acquire_bw_hz`] (default 300 Hz: lock-in range
//!   `≈ 2ζω_n/2π` ≈ ±130 Hz without cycle slips; larger offsets pull in
//!   through the integrator, ±1 kHz in under 100 ms, measured).
//! - Lock range (hold-in): the integrator is clamped to
//!   [`SyncParams::max_offset_hz`] (default ±2 kHz, inside the 8.33 kHz
//!   channel).
//! - Lock detector: the mean de-rotated sample `c = ⟨y⟩` and the mean
//!   magnitude `⟨|y|⟩`, smoothed with a 20 ms time constant. Locked, the
//!   carrier stands still: `c ≈ A` on the I axis, even far below 0 dB
//!   CNR; unlocked it rotates and averages away (`|c| ≲ A / (2πΔf τ)`).
//!   Locks when `c.re > 0.9 |c|` (within ±26°) and `|c| > 0.1 ⟨|y|⟩`;
//!   unlocks when `c.re < 0.5 |c|` or `|c| < 0.05 ⟨|y|⟩`.

use crate::C32;
use crate::dsp::SplitProcess;
use crate::dsp::nco::cos_sin_f32;
use crate::dsp::phase::atan2;

/// Damping of the loop.
const ZETA: f64 = core::f64::consts::FRAC_1_SQRT_2;
/// Lock detector smoothing time constant, s.
const LOCK_TAU: f64 = 0.02;
/// 2³², cycles to binary angle.
const TURN: f32 = 4_294_967_296.0;

/// Settings of the carrier PLL.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SyncParams {
    /// Loop noise bandwidth while locked, Hz (default 30).
    pub track_bw_hz: f64,
    /// Loop noise bandwidth while acquiring, Hz (default 300).
    pub acquire_bw_hz: f64,
    /// Largest carrier offset the loop follows, Hz (default 2000).
    pub max_offset_hz: f64,
}

impl Default for SyncParams {
    fn default() -> Self {
        Self {
            track_bw_hz: 30.0,
            acquire_bw_hz: 300.0,
            max_offset_hz: 2000.0,
        }
    }
}

/// Loop gains for one bandwidth.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Gains {
    kp: f32,
    ki: f32,
}

impl Gains {
    fn new(bw_hz: f64, fs: f64) -> Self {
        let wn = 2.0 * bw_hz / (ZETA + 0.25 / ZETA);
        // θ = ω_n T; the loop is linear, so the gains do not depend on the
        // phase unit (cycles here).
        let t = wn / fs;
        Self {
            kp: (2.0 * ZETA * t) as f32,
            ki: (t * t) as f32,
        }
    }
}

/// Synchronous AM detector (carrier PLL) at the channel rate. Output: the
/// I channel (carrier DC included; remove it with the audio chain).
/// State: [`SyncDetectorState`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SyncDetector {
    track: Gains,
    acquire: Gains,
    max_nu: f32,
    lock_alpha: f32,
}

/// [`SyncDetector`] state: phase, frequency, lock detector.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SyncDetectorState {
    phase: u32,
    nu: f32,
    mean: C32,
    mean_mag: f32,
    locked: bool,
}

impl SyncDetectorState {
    /// Whether the loop is locked.
    pub fn locked(&self) -> bool {
        self.locked
    }

    /// The loop's frequency, cycles per sample (× channel rate for Hz).
    pub fn frequency(&self) -> f32 {
        self.nu
    }

    /// The smoothed carrier level `⟨y.re⟩` (full scale 1.0).
    pub fn carrier(&self) -> f32 {
        self.mean.re
    }
}

impl SyncDetector {
    /// A detector at channel rate `fs` Hz.
    ///
    /// ```
    /// use airwaves_core::am::sync::{SyncDetector, SyncParams};
    /// let d = SyncDetector::new(&SyncParams::default(), 18_750.0);
    /// ```
    pub fn new(p: &SyncParams, fs: f64) -> Self {
        Self {
            track: Gains::new(p.track_bw_hz, fs),
            acquire: Gains::new(p.acquire_bw_hz, fs),
            max_nu: (p.max_offset_hz / fs) as f32,
            lock_alpha: (1.0 - libm::exp(-1.0 / (LOCK_TAU * fs))) as f32,
        }
    }
}

impl SplitProcess<C32, f32, SyncDetectorState> for SyncDetector {
    #[inline]
    fn process(&self, s: &mut SyncDetectorState, x: C32) -> f32 {
        let lo = cos_sin_f32(s.phase);
        let y = C32::new(x.re * lo.re + x.im * lo.im, x.im * lo.re - x.re * lo.im);
        let e = atan2(y.im, y.re) * (0.5 / core::f32::consts::PI);
        let g = if s.locked { self.track } else { self.acquire };
        s.nu = (s.nu + g.ki * e).clamp(-self.max_nu, self.max_nu);
        let step = s.nu + g.kp * e;
        s.phase = s.phase.wrapping_add((step * TURN) as i64 as u32);
        let mag = libm::sqrtf(y.re * y.re + y.im * y.im);
        s.mean += (y - s.mean) * self.lock_alpha;
        s.mean_mag += self.lock_alpha * (mag - s.mean_mag);
        let c = libm::sqrtf(s.mean.norm_sqr());
        s.locked = if s.locked {
            s.mean.re >= 0.5 * c && c >= 0.05 * s.mean_mag
        } else {
            s.mean.re > 0.9 * c && c > 0.1 * s.mean_mag
        };
        y.re
    }
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;

    /// Run a carrier at `f` cycles/sample, amplitude 0.1, for `n` samples;
    /// return the first sample index after which the loop stays locked.
    fn lock_time(f: f64, n: usize) -> Option<usize> {
        let fs = 18_750.0;
        let d = SyncDetector::new(&SyncParams::default(), fs);
        let mut s = SyncDetectorState::default();
        let mut since = None;
        for i in 0..n {
            let p = 2.0 * core::f64::consts::PI * f * i as f64 + 1.0;
            let x = C32::new(0.1 * libm::cos(p) as f32, 0.1 * libm::sin(p) as f32);
            d.process(&mut s, x);
            match (s.locked(), since) {
                (true, None) => since = Some(i),
                (false, Some(_)) => since = None,
                _ => {}
            }
        }
        since
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_pulls_in_and_holds() {
        for hz in [0.0, 120.0, -400.0, 1000.0, -1000.0] {
            let t = lock_time(hz / 18_750.0, 18_750).map(|i| i as f64 / 18.75);
            std::eprintln!("{hz} Hz: locked after {t:?} ms");
            assert!(t.is_some_and(|ms| ms < 100.0), "{hz} Hz: {t:?}");
        }
        // Beyond the clamp it never locks.
        assert_eq!(lock_time(3000.0 / 18_750.0, 18_750), None);
    }

    #[test]
    fn test_gains() {
        let g = Gains::new(30.0, 18_750.0);
        // ω_n = 2·30/1.0607 = 56.6 rad/s → θ = 3.02e-3.
        assert!((g.kp as f64 / (2.0 * ZETA) - 56.57 / 18_750.0).abs() < 1e-5);
    }
}
