//! Narrowband FM detector: discriminator and optional de-emphasis, at the
//! channel rate.
//!
//! ```text
//! channel ──▶ arg(x[n] x*[n−1]) · f_s/(2π Δf) ──▶ de-emphasis (750 µs, optional) ──▶ audio (±1.0 = ±Δf)
//! ```
//!
//! # De-emphasis
//!
//! Land-mobile FM (TIA-603, ETSI EN 300 086) pre-emphasises the voice at
//! +6 dB/octave across 300–3000 Hz. A one-pole de-emphasis with
//! `τ` = 750 µs (corner 212 Hz) falls at −6 dB/octave over that whole band,
//! so it undoes the standard curve; it is on by default
//! ([`TAU_NBFM`]). Transmitters without pre-emphasis (some amateur and
//! PMR446 sets) sound dull with it: pass `None`.
//!
//! # Output SNR above threshold
//!
//! With carrier amplitude `A` and complex noise density `N₀`, the phase
//! noise is `n_Q / A` (density `N₀ / (2A²)`), so the frequency noise has
//! density `f² N₀ / (2A²)` Hz²/Hz, parabolic. A tone of peak deviation
//! `Δf` has power `Δf²/2`, so after the audio filter `H_a` (and
//! de-emphasis, if any):
//!
//! ```text
//! SNR = (Δf² / 2) / ((N₀ / A²) ∫₀^∞ f² |H_a(f)|² df),   i.e.   SNR = 3 β² · CNR · B / (2 W)   for a brick wall 0–W,
//! ```
//!
//! with `β = Δf / W` and `CNR = A² / (N₀ B)` in any bandwidth `B`. The
//! tests compute the integral for the 300–3000 Hz band-pass and compare.

use crate::C32;
use crate::dsp::SplitProcess;
use crate::dsp::deemph::{Deemphasis, DeemphasisState};
use crate::dsp::phase::{Discriminator, DiscriminatorState};

/// The NBFM de-emphasis time constant, s (750 µs).
pub const TAU_NBFM: f64 = 750e-6;

/// NBFM detector. State: [`NbfmDetectorState`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NbfmDetector {
    disc: Discriminator,
    deemph: Option<Deemphasis>,
    /// Output units per cycle-per-sample of phase step.
    scale: f32,
}

/// [`NbfmDetector`] state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NbfmDetectorState {
    disc: DiscriminatorState<C32>,
    deemph: DeemphasisState,
}

impl NbfmDetector {
    /// A detector at channel rate `fs` Hz whose output reads ±1.0 at
    /// ±`deviation_hz`, with de-emphasis time constant `tau` s (or none).
    ///
    /// ```
    /// use airwaves_core::am::nbfm::{NbfmDetector, TAU_NBFM};
    /// let d = NbfmDetector::new(18_750.0, 5000.0, Some(TAU_NBFM));
    /// assert!((d.cycles_per_unit() - 5000.0 / 18_750.0).abs() < 1e-6);
    /// ```
    ///
    /// # Panics
    /// Panics unless `fs`, `deviation_hz` and `tau` are positive.
    pub fn new(fs: f64, deviation_hz: f64, tau: Option<f64>) -> Self {
        assert!(fs > 0.0 && deviation_hz > 0.0, "need fs > 0, deviation > 0");
        let gain = fs / (2.0 * core::f64::consts::PI * deviation_hz);
        Self {
            disc: Discriminator::new(gain as f32),
            deemph: tau.map(|t| Deemphasis::new(t, fs)),
            scale: (fs / deviation_hz) as f32,
        }
    }

    /// Phase step (cycles per sample) that reads 1.0: `Δf / f_s`.
    pub fn cycles_per_unit(&self) -> f32 {
        1.0 / self.scale
    }

    /// Discriminate one sample; returns `(audio, raw)`: the de-emphasised
    /// audio and the discriminator output before de-emphasis (both ±1.0 =
    /// ±Δf), the latter for the noise squelch.
    #[inline]
    pub fn detect(&self, s: &mut NbfmDetectorState, x: C32) -> (f32, f32) {
        let raw = self.disc.process(&mut s.disc, x);
        let y = match &self.deemph {
            Some(d) => d.process(&mut s.deemph, raw),
            None => raw,
        };
        (y, raw)
    }
}

impl SplitProcess<C32, f32, NbfmDetectorState> for NbfmDetector {
    #[inline]
    fn process(&self, s: &mut NbfmDetectorState, x: C32) -> f32 {
        self.detect(s, x).0
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_deviation_scale() {
        let fs = 18_750.0;
        let d = NbfmDetector::new(fs, 2500.0, None);
        let mut s = NbfmDetectorState::default();
        let mut y = 0.0;
        for i in 0..100 {
            let p = 2.0 * core::f64::consts::PI * 2500.0 * i as f64 / fs;
            y = d.process(&mut s, C32::new(libm::cos(p) as f32, libm::sin(p) as f32));
        }
        assert!((y - 1.0).abs() < 1e-3, "{y}");
    }
}
