//! AM and narrowband FM signal generator, in `f64`, producing RTL-SDR style
//! 8-bit I/Q (cu8).
//!
//! Per output sample `n` at rate `fs` (time `t = n / fs`, audio `a(t)`,
//! full scale ±1):
//!
//! ```text
//! AM:    x = A g(t) (1 + m a(t)) e^{jθ},   θ[n+1] = θ[n] + 2π f_c / fs
//! NBFM:  x = A g(t) e^{jθ},                θ[n+1] = θ[n] + 2π (f_c + Δf a(t)) / fs
//! x     += noise;   byte = clamp(round(128 x + 127.4), 0, 255)   (I then Q)
//! ```
//!
//! `m` is the modulation depth (0..1; AM is never over-modulated if
//! `|a| ≤ 1`), `Δf` the peak deviation, `g(t)` the optional fading gain
//! ([`Fading`]: `g = 10^{−D (1 − cos 2π f_F t)/40}`, swinging between 0 and
//! −D dB at `f_F` Hz). Noise is complex Gaussian with total power
//! `A² / CNR · fs / B`, i.e. the carrier-to-noise ratio `CNR` in the
//! bandwidth `B` ([`GeneratorConfig::cnr_bandwidth_hz`]).
//! Deterministic from the seed, whatever the block split.
//!
//! Audio sources: [`Tone`](crate::fm::generator::Tone) and
//! [`VoiceLike`], a band-limited voice-like signal with pauses.

use crate::fm::generator::quantise;
use crate::rng::Rng;
use core::f64::consts::PI;

/// The modulation.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Modulation {
    /// Double-sideband AM with carrier, depth `0 < m ≤ 1`.
    Am {
        /// Modulation depth `m`.
        depth: f64,
    },
    /// Narrowband FM, peak deviation in Hz for `a = ±1` (2500 or 5000).
    Nbfm {
        /// Peak deviation `Δf`, Hz.
        deviation_hz: f64,
    },
}

/// Slow flat fading: the carrier swings between 0 and `depth_db` down at
/// `rate_hz`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Fading {
    /// Fading rate, Hz (e.g. 2 for aircraft multipath).
    pub rate_hz: f64,
    /// Depth of the fades, dB (≥ 0).
    pub depth_db: f64,
}

/// Generator configuration; check with [`Generator::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeneratorConfig {
    /// Output sample rate, Hz (> 0).
    pub sample_rate: f64,
    /// The carrier's offset from the centre, Hz (|offset| < fs/2).
    pub carrier_offset: f64,
    /// Carrier amplitude `A`, full scale 1.0 (0 < A ≤ 1; AM peaks at
    /// `A (1 + m)`).
    pub amplitude: f64,
    /// The modulation.
    pub modulation: Modulation,
    /// Carrier-to-noise ratio, dB, in [`cnr_bandwidth_hz`](Self::cnr_bandwidth_hz), or `None`.
    pub cnr_db: Option<f64>,
    /// The bandwidth in which `cnr_db` is measured, Hz (> 0).
    pub cnr_bandwidth_hz: f64,
    /// Optional fading.
    pub fading: Option<Fading>,
    /// Seed of the noise generator ([`Rng::new`]).
    pub seed: u64,
}

impl GeneratorConfig {
    /// AM at 2.4 MS/s: carrier at `carrier_offset` Hz, amplitude 0.25,
    /// depth 0.8, no noise (CNR bandwidth 8.33 kHz), no fading, seed 1.
    ///
    /// ```
    /// use airwaves_core::am::generator::{GeneratorConfig, Modulation};
    /// let c = GeneratorConfig::am(50e3);
    /// assert_eq!(c.modulation, Modulation::Am { depth: 0.8 });
    /// ```
    pub const fn am(carrier_offset: f64) -> Self {
        Self {
            sample_rate: 2.4e6,
            carrier_offset,
            amplitude: 0.25,
            modulation: Modulation::Am { depth: 0.8 },
            cnr_db: None,
            cnr_bandwidth_hz: 8333.0,
            fading: None,
            seed: 1,
        }
    }

    /// NBFM at 2.4 MS/s, ±5 kHz deviation, otherwise as [`am`](Self::am)
    /// (CNR bandwidth 16 kHz).
    pub const fn nbfm(carrier_offset: f64) -> Self {
        let mut c = Self::am(carrier_offset);
        c.modulation = Modulation::Nbfm {
            deviation_hz: 5000.0,
        };
        c.cnr_bandwidth_hz = 16_000.0;
        c
    }
}

/// Invalid generator configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigError {
    /// Sample rate or CNR bandwidth not finite and positive.
    SampleRate,
    /// Carrier offset outside ±fs/2.
    Offset,
    /// Amplitude, depth, deviation, CNR or fading out of range.
    Level,
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::SampleRate => "sample rate and CNR bandwidth must be finite and positive",
            Self::Offset => "carrier offset must lie inside ±fs/2",
            Self::Level => "amplitude, depth, deviation, CNR or fading out of range",
        })
    }
}

impl core::error::Error for ConfigError {}

/// A checked generator. State: [`GeneratorState`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Generator {
    cfg: GeneratorConfig,
    sigma: f64,
}

/// Generator state: sample index, carrier phase, noise generator.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratorState {
    n: u64,
    phase: f64,
    rng: Rng,
}

impl GeneratorState {
    /// Samples generated so far.
    pub fn samples(&self) -> u64 {
        self.n
    }
}

impl Generator {
    /// Check `cfg`.
    ///
    /// ```
    /// use airwaves_core::am::generator::{ConfigError, Generator, GeneratorConfig};
    /// assert!(Generator::new(GeneratorConfig::am(50e3)).is_ok());
    /// assert_eq!(Generator::new(GeneratorConfig::am(2e6)), Err(ConfigError::Offset));
    /// ```
    pub fn new(cfg: GeneratorConfig) -> Result<Self, ConfigError> {
        let fs = cfg.sample_rate;
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if !pos(fs) || !pos(cfg.cnr_bandwidth_hz) {
            return Err(ConfigError::SampleRate);
        }
        if !(cfg.carrier_offset.is_finite() && cfg.carrier_offset.abs() < fs / 2.0) {
            return Err(ConfigError::Offset);
        }
        let ok_mod = match cfg.modulation {
            Modulation::Am { depth } => depth > 0.0 && depth <= 1.0,
            Modulation::Nbfm { deviation_hz } => pos(deviation_hz) && deviation_hz < fs / 4.0,
        };
        let ok_fade = cfg
            .fading
            .is_none_or(|f| pos(f.rate_hz) && f.depth_db.is_finite() && f.depth_db >= 0.0);
        if !(cfg.amplitude > 0.0 && cfg.amplitude <= 1.0 && ok_mod && ok_fade) {
            return Err(ConfigError::Level);
        }
        let sigma = match cfg.cnr_db {
            None => 0.0,
            Some(c) if c.is_finite() => {
                let total = cfg.amplitude * cfg.amplitude / libm::pow(10.0, c / 10.0) * fs
                    / cfg.cnr_bandwidth_hz;
                libm::sqrt(total / 2.0)
            }
            Some(_) => return Err(ConfigError::Level),
        };
        Ok(Self { cfg, sigma })
    }

    /// The configuration.
    pub fn config(&self) -> &GeneratorConfig {
        &self.cfg
    }

    /// A fresh state (sample 0, phase 0, noise seeded from the config).
    pub fn state(&self) -> GeneratorState {
        GeneratorState {
            n: 0,
            phase: 0.0,
            rng: Rng::new(self.cfg.seed),
        }
    }

    /// Generate `out.len()` I/Q byte pairs with the audio `audio(t)`
    /// (full scale ±1, `t` in seconds).
    ///
    /// ```
    /// use airwaves_core::am::generator::{Generator, GeneratorConfig};
    /// let g = Generator::new(GeneratorConfig::am(0.0)).unwrap();
    /// let mut s = g.state();
    /// let mut iq = [[0u8; 2]; 4];
    /// g.fill(&mut s, |_| 0.0, &mut iq);
    /// assert_eq!(iq[0], [159, 127]); // the bare carrier, amplitude 0.25
    /// ```
    pub fn fill(
        &self,
        state: &mut GeneratorState,
        mut audio: impl FnMut(f64) -> f64,
        out: &mut [[u8; 2]],
    ) {
        let c = &self.cfg;
        let fs = c.sample_rate;
        let step = 2.0 * PI * c.carrier_offset / fs;
        for o in out.iter_mut() {
            let t = state.n as f64 / fs;
            let a = audio(t);
            let g = c.fading.map_or(1.0, |f| {
                libm::pow(
                    10.0,
                    -f.depth_db * (1.0 - libm::cos(2.0 * PI * f.rate_hz * t)) / 40.0,
                )
            });
            let (amp, dphi) = match c.modulation {
                Modulation::Am { depth } => (c.amplitude * g * (1.0 + depth * a), step),
                Modulation::Nbfm { deviation_hz } => {
                    (c.amplitude * g, step + 2.0 * PI * deviation_hz * a / fs)
                }
            };
            let mut re = amp * libm::cos(state.phase);
            let mut im = amp * libm::sin(state.phase);
            state.phase = wrap(state.phase + dphi);
            if self.sigma > 0.0 {
                re += self.sigma * state.rng.normal();
                im += self.sigma * state.rng.normal();
            }
            *o = [quantise(re), quantise(im)];
            state.n += 1;
        }
    }
}

/// A voice-like test signal: a glottal pulse train (pitch 110–150 Hz,
/// wandering) shaped by three formants (600, 1200, 2500 Hz), band-limited
/// to 300–3000 Hz by construction (only harmonics in that band), with a
/// syllable envelope (4 Hz) and pauses: talks for `talk` s, then silent
/// (exactly 0) for `pause` s, repeating. Peak ≤ 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VoiceLike {
    /// Seconds of speech per cycle.
    pub talk: f64,
    /// Seconds of silence per cycle.
    pub pause: f64,
}

impl VoiceLike {
    /// The value at time `t` seconds.
    ///
    /// ```
    /// use airwaves_core::am::generator::VoiceLike;
    /// let v = VoiceLike { talk: 1.0, pause: 0.5 };
    /// assert_eq!(v.at(1.2), 0.0); // in the pause
    /// assert!((0..1000).all(|i| v.at(i as f64 * 1e-3).abs() <= 1.0));
    /// ```
    pub fn at(&self, t: f64) -> f64 {
        let cycle = self.talk + self.pause;
        let tc = t - cycle * libm::floor(t / cycle);
        if tc >= self.talk {
            return 0.0;
        }
        // Pitch: 130 Hz ± 20 Hz at 0.7 Hz; the phase is the integral.
        let f0 = 130.0;
        let phase = f0 * t - 20.0 / (2.0 * PI * 0.7) * libm::cos(2.0 * PI * 0.7 * t);
        let pitch = f0 + 20.0 * libm::sin(2.0 * PI * 0.7 * t);
        let mut v = 0.0;
        let mut k = 1;
        while k as f64 * pitch < 3000.0 {
            let f = k as f64 * pitch;
            if f >= 300.0 {
                let w = formant(f, 600.0, 150.0)
                    + 0.6 * formant(f, 1200.0, 200.0)
                    + 0.3 * formant(f, 2500.0, 300.0);
                v += w * libm::sin(2.0 * PI * k as f64 * phase + k as f64);
            }
            k += 1;
        }
        let syllable = libm::sin(PI * 4.0 * tc).abs();
        // Normalise: the formant weights sum to at most about 4.5.
        (v * syllable / 4.5).clamp(-1.0, 1.0)
    }
}

/// Resonance weight of a harmonic at `f` for a formant at `fc`, width `bw`.
fn formant(f: f64, fc: f64, bw: f64) -> f64 {
    let x = (f - fc) / bw;
    1.0 / (1.0 + x * x)
}

/// Wrap a phase into [−π, π).
fn wrap(p: f64) -> f64 {
    if !(-PI..PI).contains(&p) {
        p - 2.0 * PI * libm::floor((p + PI) / (2.0 * PI))
    } else {
        p
    }
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use std::vec;

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_noise_power_and_split() {
        let mut c = GeneratorConfig::am(0.0);
        c.sample_rate = 240e3;
        c.cnr_db = Some(10.0);
        c.cnr_bandwidth_hz = 24e3;
        let g = Generator::new(c).unwrap();
        // Noise in 240 kHz at CNR 10 dB in 24 kHz: total A²/10 · 10 = A².
        let mut s = g.state();
        let mut a = vec![[0u8; 2]; 100_000];
        g.fill(&mut s, |_| 0.0, &mut a);
        let (mut p, mut mr, mut mi) = (0.0, 0.0, 0.0);
        for b in &a {
            mr += (b[0] as f64 - 127.4) / 128.0;
            mi += (b[1] as f64 - 127.4) / 128.0;
            p += ((b[0] as f64 - 127.4) / 128.0).powi(2) + ((b[1] as f64 - 127.4) / 128.0).powi(2);
        }
        let n = a.len() as f64;
        // The carrier (at 0 Hz) is the mean; the rest is noise.
        let noise = p / n - (mr / n).powi(2) - (mi / n).powi(2);
        assert!((noise / 0.0625 - 1.0).abs() < 0.03, "{noise}");
        let mut s2 = g.state();
        let mut b = vec![[0u8; 2]; 100_000];
        let (x, y) = b.split_at_mut(33_333);
        g.fill(&mut s2, |_| 0.0, x);
        g.fill(&mut s2, |_| 0.0, y);
        assert_eq!(a, b);
    }

    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_fading_depth() {
        // 20 dB fades at 2 Hz: full amplitude at t = 0, a tenth at 0.25 s.
        let mut c = GeneratorConfig::am(0.0);
        c.sample_rate = 8000.0;
        c.amplitude = 0.9;
        c.fading = Some(Fading {
            rate_hz: 2.0,
            depth_db: 20.0,
        });
        let g = Generator::new(c).unwrap();
        let mut s = g.state();
        let mut iq = vec![[0u8; 2]; 4000];
        g.fill(&mut s, |_| 0.0, &mut iq);
        let mag = |b: [u8; 2]| libm::hypot(b[0] as f64 - 127.4, b[1] as f64 - 127.4) / 128.0;
        assert!((mag(iq[0]) - 0.9).abs() < 0.01);
        assert!((mag(iq[2000]) - 0.09).abs() < 0.01, "{}", mag(iq[2000]));
    }

    #[test]
    fn test_errors() {
        let mut c = GeneratorConfig::am(0.0);
        c.modulation = Modulation::Am { depth: 1.5 };
        assert_eq!(Generator::new(c), Err(ConfigError::Level));
        let mut c = GeneratorConfig::nbfm(0.0);
        c.cnr_bandwidth_hz = 0.0;
        assert_eq!(Generator::new(c), Err(ConfigError::SampleRate));
    }
}
