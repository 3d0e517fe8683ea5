//! Automatic gain control for real audio and complex baseband.
//!
//! # Algorithm (feed-forward, per sample, no division)
//!
//! 1. **Level** `l[n]`: `|x|` for real samples; for complex samples a
//!    square-root-free magnitude estimate, the largest of three tangents to
//!    the unit circle (at 0°, 22.5° and 45° in the octant of
//!    `M = max(|I|, |Q|)`, `m = min(|I|, |Q|)`):
//!    `l = max(M, 0.92388 M + 0.38268 m, 0.70711 (M + m))`, which satisfies
//!    `cos(π/16) |x| ≤ l ≤ |x|` (−0.17 dB … 0 dB) and equals `|x|` at the
//!    tangent angles, so the peak of a rotating tone reads exactly.
//! 2. **Envelope** `e` (a peak follower): if `l > e`,
//!    `e ← e + α_a (l − e)` and the hang counter is reloaded with `H`
//!    samples; else if the counter is non-zero it counts down and `e` holds;
//!    else `e ← e + α_d (l − e)`. `α = 1 − e^{−1/(τ fs)}` for the attack and
//!    decay time constants `τ_a`, `τ_d` (seconds).
//! 3. **Gain** `g ≈ min(T / e, G_max)` without dividing: one Newton step for
//!    the reciprocal per sample, `g ← g (2 − u)` with `u = e g / T`, which
//!    squares the relative error of `g` each sample (`g(1+ε) → g(1−ε²)`), so
//!    `g` follows the slowly moving `T/e` with a lag of about one sample's
//!    change of `e`. The factor `2 − u` is clamped to `≥ 1/4` (when `e`
//!    jumps, `u > 1.75`, the gain falls by 4× per sample until the step
//!    converges) and `g` to `G_max`.
//! 4. **Output** `y = g x`.
//!
//! The output level (peak amplitude of a real tone, magnitude of a complex
//! one) therefore approaches the target `T` whenever `T / e ≤ G_max`.
//!
//! # Settling (asserted in the tests for ±20 dB steps)
//!
//! - Level step up by a factor `k` (e.g. 10 for +20 dB): the output first
//!   jumps by `k` (feed-forward AGC has no look-ahead), then is within
//!   0.5 dB of `T` after `τ_a ln((k − 1) / (k (1 − 10^{−0.5/20})))`
//!   (2.8 `τ_a` for +20 dB) and does not undershoot below `T − 0.5 dB`.
//! - Level step down by `k`: the output drops by `k`, holds for the hang
//!   time, then recovers to within 0.5 dB of `T` after a further
//!   `τ_d ln((k − 1) / (10^{0.5/20} − 1))` (5.0 `τ_d` for −20 dB) and does
//!   not overshoot above `T + 0.5 dB`.
//!
//! For a real tone the envelope settles a little below the crest, where the
//! attack near each crest balances the decay between crests, so the output
//! peak sits slightly above `T`: +0.28 dB for a 1 kHz tone with
//! `τ_a` = 1 ms and `τ_d` = 100 ms (measured). A shorter `τ_a`, a longer
//! `τ_d` or a hang time of at least half a period (+0.00 dB) reduces it. A
//! complex tone reads within 0.01 dB.
//!
//! # Variants
//!
//! [`Agc`] (`f32`, for `f32` and [`C32`]) and [`AgcQ15`] (Q15
//! samples; envelope in Q30, gain in Q16.16; `i64` products), both built
//! from one [`AgcParams`].

use super::SplitProcess;
use crate::{C32, Ci16};

/// AGC settings shared by [`Agc`] and [`AgcQ15`].
///
/// ```
/// use airwaves_core::dsp::agc::AgcParams;
/// let p = AgcParams { target: 0.25, hang: 0.05, ..AgcParams::default() };
/// assert_eq!((p.attack, p.decay, p.max_gain), (2e-3, 0.3, 1000.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AgcParams {
    /// Output level `T`: peak amplitude (real) or magnitude (complex),
    /// full scale 1.0. For [`AgcQ15`], `2⁻¹⁵ ≤ T ≤ 1`.
    pub target: f64,
    /// Attack time constant `τ_a` (s), used while the level rises.
    pub attack: f64,
    /// Decay time constant `τ_d` (s), used while the level falls.
    pub decay: f64,
    /// Hang time (s): after the level last rose, the envelope holds this
    /// long before decaying. 0 disables it.
    pub hang: f64,
    /// Largest gain `G_max` (linear, e.g. 1000 = 60 dB). For [`AgcQ15`],
    /// at most 32767.
    pub max_gain: f64,
}

impl Default for AgcParams {
    /// Target 0.5, attack 2 ms, decay 300 ms, no hang, max gain 1000.
    fn default() -> Self {
        Self {
            target: 0.5,
            attack: 2e-3,
            decay: 0.3,
            hang: 0.0,
            max_gain: 1000.0,
        }
    }
}

impl AgcParams {
    /// Check the parameters and return `(α_a, α_d, hang samples)`.
    fn coefficients(&self, fs: f64) -> (f64, f64, u32) {
        assert!(fs > 0.0 && fs.is_finite(), "need finite fs > 0");
        assert!(
            self.target > 0.0 && self.target.is_finite(),
            "need finite target > 0"
        );
        assert!(
            self.attack > 0.0 && self.decay > 0.0,
            "need attack > 0 and decay > 0"
        );
        assert!(self.hang >= 0.0, "need hang >= 0");
        assert!(self.max_gain > 0.0, "need max_gain > 0");
        let alpha = |tau: f64| 1.0 - libm::exp(-1.0 / (tau * fs));
        let hang = libm::round(self.hang * fs).min(u32::MAX as f64) as u32;
        (alpha(self.attack), alpha(self.decay), hang)
    }
}

/// Smallest envelope of [`Agc`]: keeps a silent input from driving the
/// envelope into subnormal floats (any envelope below `T / G_max` already
/// gives the maximum gain).
const ENV_FLOOR: f32 = 1e-20;

/// `cos(π/8)`, `sin(π/8)`, `cos(π/4)`.
const C1: f32 = 0.923_879_5;
const S1: f32 = 0.382_683_43;
const R2: f32 = core::f32::consts::FRAC_1_SQRT_2;

/// Square-root-free magnitude estimate, `cos(π/16)|x| ≤ l ≤ |x|`.
#[inline(always)]
fn magnitude_f32(x: C32) -> f32 {
    let (a, b) = (x.re.abs(), x.im.abs());
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    fmax(fmax(hi, C1 * hi + S1 * lo), R2 * (hi + lo))
}

/// `max` without `f32::max`'s NaN handling (one instruction on most FPUs).
#[inline(always)]
fn fmax(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// `min` without `f32::min`'s NaN handling.
#[inline(always)]
fn fmin(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// The same in Q15 → Q30: `max(M·2¹⁵, 30274 M + 12540 m, 23170 (M + m))`
/// (the tangent coefficients in Q15; every term fits an `i32`).
#[inline(always)]
fn magnitude_q30(x: Ci16) -> i32 {
    let (a, b) = ((x.re as i32).abs(), (x.im as i32).abs());
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    (hi << 15)
        .max(30274 * hi + 12540 * lo)
        .max(23170 * (hi + lo))
}

/// AGC in `f32` for `f32` (audio) and [`C32`] (baseband) samples.
///
/// See the [module docs](self) for the recurrences and settling times.
///
/// ```
/// use airwaves_core::dsp::SplitProcess;
/// use airwaves_core::dsp::agc::{Agc, AgcParams};
/// // Hang ≥ half a period holds the crests of the tone.
/// let p = AgcParams { target: 0.5, decay: 0.05, hang: 1e-3, ..AgcParams::default() };
/// let agc = Agc::new(&p, 48_000.0);
/// let mut s = agc.state();
/// let mut peak = 0.0f32;
/// for n in 0..48_000 {
///     let x = 0.01 * (n as f32 * 0.13).sin(); // −40 dBFS tone
///     let y = agc.process(&mut s, x);
///     if n > 40_000 {
///         peak = peak.max(y.abs());
///     }
/// }
/// assert!((peak / 0.5 - 1.0).abs() < 0.06); // within 0.5 dB of target
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Agc {
    target: f32,
    inv_target: f32,
    attack: f32,
    decay: f32,
    hang: u32,
    max_gain: f32,
}

/// [`Agc`] state: envelope, gain and hang counter. Make one with
/// [`Agc::state`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgcState {
    env: f32,
    gain: f32,
    hang: u32,
}

impl AgcState {
    /// The current gain (linear).
    pub fn gain(&self) -> f32 {
        self.gain
    }

    /// The current envelope (level estimate, full scale 1.0).
    pub fn envelope(&self) -> f32 {
        self.env
    }
}

impl Agc {
    /// An AGC for sample rate `fs` (Hz).
    ///
    /// ```
    /// use airwaves_core::dsp::agc::{Agc, AgcParams};
    /// let agc = Agc::new(&AgcParams::default(), 48_000.0);
    /// assert_eq!(agc.state().gain(), 1.0);
    /// ```
    ///
    /// # Panics
    /// Panics unless `fs`, `target`, `attack`, `decay` and `max_gain` are
    /// positive and finite and `hang ≥ 0`.
    pub fn new(p: &AgcParams, fs: f64) -> Self {
        let (attack, decay, hang) = p.coefficients(fs);
        Self {
            target: p.target as f32,
            inv_target: (1.0 / p.target) as f32,
            attack: attack as f32,
            decay: decay as f32,
            hang,
            max_gain: p.max_gain as f32,
        }
    }

    /// A state at rest: gain 1 (or `G_max` if smaller) with the envelope
    /// that gain implies, `e = T / g`.
    pub fn state(&self) -> AgcState {
        let gain = self.max_gain.min(1.0);
        AgcState {
            env: self.target / gain,
            gain,
            hang: 0,
        }
    }

    /// Envelope and gain update for level `l`; returns the new gain.
    #[inline(always)]
    fn update(&self, s: &mut AgcState, l: f32) -> f32 {
        if l > s.env {
            s.env += self.attack * (l - s.env);
            s.hang = self.hang;
        } else if s.hang > 0 {
            s.hang -= 1;
        } else {
            s.env = fmax(s.env + self.decay * (l - s.env), ENV_FLOOR);
        }
        let u = s.env * s.gain * self.inv_target;
        let f = fmax(2.0 - u, 0.25);
        s.gain = fmin(s.gain * f, self.max_gain);
        s.gain
    }
}

impl SplitProcess<f32, f32, AgcState> for Agc {
    #[inline]
    fn process(&self, s: &mut AgcState, x: f32) -> f32 {
        x * self.update(s, x.abs())
    }
}

impl SplitProcess<C32, C32, AgcState> for Agc {
    #[inline]
    fn process(&self, s: &mut AgcState, x: C32) -> C32 {
        x * self.update(s, magnitude_f32(x))
    }
}

/// Fractional bits of the Q16.16 gain.
const GAIN_FRAC: u32 = 16;

/// AGC for Q15 samples (`i16` audio, [`Ci16`] baseband).
///
/// Same algorithm as [`Agc`] in integers: the level and envelope are Q30
/// (`i32`; Q15 with 15 extra fraction bits, so the envelope of a
/// one-LSB signal still decays smoothly), `α_a`, `α_d` are Q31, the gain is
/// Q16.16 (`i32`, 2⁻¹⁶ ..= `G_max` ≤ 32767). Per sample:
///
/// ```text
/// e ← e + round(α (l − e) / 2³¹)                      (i64 product)
/// w = min(e g / 2¹⁶, 2³¹)                              (predicted |y|, Q30)
/// u = w · ⌊2¹⁶/T⌉ / 2¹⁶                                (u = e g / T, Q30)
/// g ← clamp(round(g · max(2³¹ − u, 2²⁸) / 2³⁰), 2⁻¹⁶, G_max)
/// y = sat(round(x g / 2¹⁶))
/// ```
///
/// ```
/// use airwaves_core::dsp::SplitProcess;
/// use airwaves_core::dsp::agc::{AgcParams, AgcQ15};
/// use airwaves_core::Ci16;
/// let p = AgcParams { target: 0.5, decay: 0.05, ..AgcParams::default() };
/// let agc = AgcQ15::new(&p, 48_000.0);
/// let mut s = agc.state();
/// let mut y = Ci16::new(0, 0);
/// for _ in 0..20_000 {
///     y = agc.process(&mut s, Ci16::new(0, 328)); // −40 dBFS
/// }
/// assert!((y.im - 16384).abs() < 16384 / 16); // within 0.5 dB of 0.5
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AgcQ15 {
    target: i32,
    inv_target: i64,
    attack: i32,
    decay: i32,
    hang: u32,
    max_gain: i32,
}

/// [`AgcQ15`] state: envelope (Q30), gain (Q16.16) and hang counter. Make
/// one with [`AgcQ15::state`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgcQ15State {
    env: i32,
    gain: i32,
    hang: u32,
}

impl AgcQ15State {
    /// The current gain, Q16.16.
    pub fn gain(&self) -> i32 {
        self.gain
    }

    /// The current envelope, Q30.
    pub fn envelope(&self) -> i32 {
        self.env
    }
}

impl AgcQ15 {
    /// An AGC for sample rate `fs` (Hz).
    ///
    /// ```
    /// use airwaves_core::dsp::agc::{AgcParams, AgcQ15};
    /// let agc = AgcQ15::new(&AgcParams::default(), 48_000.0);
    /// assert_eq!(agc.state().gain(), 1 << 16);
    /// ```
    ///
    /// # Panics
    /// Panics unless `fs`, `attack`, `decay` are positive and finite,
    /// `hang ≥ 0`, `2⁻¹⁵ ≤ target ≤ 1` and `2⁻¹⁶ ≤ max_gain ≤ 32767`.
    pub fn new(p: &AgcParams, fs: f64) -> Self {
        let (attack, decay, hang) = p.coefficients(fs);
        assert!(
            (1.0 / 32768.0..=1.0).contains(&p.target),
            "need 2^-15 <= target <= 1"
        );
        assert!(
            (1.0 / 65536.0..=32767.0).contains(&p.max_gain),
            "need 2^-16 <= max_gain <= 32767"
        );
        let q31 = |a: f64| libm::round(a * 2_147_483_648.0).clamp(1.0, i32::MAX as f64) as i32;
        Self {
            target: libm::round(p.target * (1u64 << 30) as f64) as i32,
            inv_target: libm::round(65536.0 / p.target) as i64,
            attack: q31(attack),
            decay: q31(decay),
            hang,
            max_gain: libm::round(p.max_gain * 65536.0) as i32,
        }
    }

    /// A state at rest: gain 1 (or `G_max` if smaller) with the envelope
    /// that gain implies, `e = T / g`.
    pub fn state(&self) -> AgcQ15State {
        let gain = self.max_gain.min(1 << GAIN_FRAC);
        let env = ((self.target as i64) << GAIN_FRAC) / gain as i64;
        AgcQ15State {
            env: env.min(i32::MAX as i64) as i32,
            gain,
            hang: 0,
        }
    }

    /// Envelope and gain update for level `l` (Q30); returns the gain.
    #[inline(always)]
    fn update(&self, s: &mut AgcQ15State, l: i32) -> i32 {
        let step = |a: i32, d: i32| ((d as i64 * a as i64 + (1 << 30)) >> 31) as i32;
        if l > s.env {
            s.env += step(self.attack, l - s.env);
            s.hang = self.hang;
        } else if s.hang > 0 {
            s.hang -= 1;
        } else {
            s.env += step(self.decay, l - s.env);
        }
        let w = ((s.env as i64 * s.gain as i64) >> GAIN_FRAC).min(1 << 31);
        let u = (w * self.inv_target) >> 16;
        let f = ((1i64 << 31) - u).max(1 << 28);
        let g = (s.gain as i64 * f + (1 << 29)) >> 30;
        s.gain = g.clamp(1, self.max_gain as i64) as i32;
        s.gain
    }

    #[inline(always)]
    fn apply(x: i16, g: i32) -> i16 {
        let y = (x as i64 * g as i64 + (1 << (GAIN_FRAC - 1))) >> GAIN_FRAC;
        y.clamp(i16::MIN as i64, i16::MAX as i64) as i16
    }
}

impl SplitProcess<i16, i16, AgcQ15State> for AgcQ15 {
    #[inline]
    fn process(&self, s: &mut AgcQ15State, x: i16) -> i16 {
        let g = self.update(s, (x as i32).abs() << 15);
        Self::apply(x, g)
    }
}

impl SplitProcess<Ci16, Ci16, AgcQ15State> for AgcQ15 {
    #[inline]
    fn process(&self, s: &mut AgcQ15State, x: Ci16) -> Ci16 {
        let g = self.update(s, magnitude_q30(x));
        Ci16::new(Self::apply(x.re, g), Self::apply(x.im, g))
    }
}

#[cfg(test)]
mod test {
    extern crate std;

    use super::*;
    use crate::dsp::fixed::q15_to_f32;
    use crate::rng::Rng;
    use crate::testing::db;
    use core::f64::consts::PI;
    use proptest::prelude::*;
    use std::vec::Vec;

    const FS: f64 = 48_000.0;

    fn db20(x: f64) -> f64 {
        20.0 * libm::log10(x)
    }

    fn params() -> AgcParams {
        AgcParams {
            target: 0.5,
            attack: 1e-3,
            decay: 50e-3,
            hang: 0.0,
            max_gain: 1000.0,
        }
    }

    /// Complex tone of amplitude `amp(n)` at 1 kHz.
    fn tone_c(n: usize, amp: f64) -> C32 {
        let w = 2.0 * PI * 1000.0 / FS * n as f64 + 0.3;
        C32::new((amp * libm::cos(w)) as f32, (amp * libm::sin(w)) as f32)
    }

    fn to_ci16(x: C32) -> Ci16 {
        use crate::dsp::fixed::f32_to_q15;
        Ci16::new(f32_to_q15(x.re), f32_to_q15(x.im))
    }

    /// Output magnitude sequence (f64) of the f32 and Q15 AGCs on complex
    /// input `x`.
    fn run_both(p: &AgcParams, x: &[C32]) -> [Vec<f64>; 2] {
        let agc = Agc::new(p, FS);
        let mut s = agc.state();
        let yf = x
            .iter()
            .map(|&v| {
                let y = agc.process(&mut s, v);
                libm::hypot(y.re as f64, y.im as f64)
            })
            .collect();
        let agq = AgcQ15::new(p, FS);
        let mut s = agq.state();
        let yq = x
            .iter()
            .map(|&v| {
                let y = agq.process(&mut s, to_ci16(v));
                libm::hypot(q15_to_f32(y.re) as f64, q15_to_f32(y.im) as f64)
            })
            .collect();
        [yf, yq]
    }

    #[test]
    fn test_magnitude_estimate_bounds() {
        let lo = libm::cos(PI / 16.0);
        // A multiple of 32 samples the tangent points (k/16 turn) and the
        // worst points between them (odd k/32) exactly.
        let n = if cfg!(miri) { 320 } else { 3200 };
        let (mut min_f, mut max_f, mut min_q, mut max_q) = (2.0f64, 0.0f64, 2.0f64, 0.0f64);
        for k in 0..n {
            let a = 2.0 * PI * k as f64 / n as f64;
            let x = C32::new((0.9 * libm::cos(a)) as f32, (0.9 * libm::sin(a)) as f32);
            let r = magnitude_f32(x) as f64 / libm::hypot(x.re as f64, x.im as f64);
            (min_f, max_f) = (min_f.min(r), max_f.max(r));
            let xq = to_ci16(x);
            let rq = magnitude_q30(xq) as f64
                / (1u64 << 30) as f64
                / libm::hypot(q15_to_f32(xq.re) as f64, q15_to_f32(xq.im) as f64);
            (min_q, max_q) = (min_q.min(rq), max_q.max(rq));
        }
        assert!(min_f > lo - 1e-6 && max_f < 1.0 + 1e-6, "{min_f} {max_f}");
        assert!(min_q > lo - 1e-4 && max_q < 1.0 + 1e-4, "{min_q} {max_q}");
        assert!(max_f > 1.0 - 1e-6 && min_f < lo + 1e-3); // the bounds are tight
        // Extremes do not overflow.
        let m = magnitude_q30(Ci16::new(i16::MIN, i16::MIN)) as f64 / (1u64 << 30) as f64;
        assert!((m - 2f64.sqrt()).abs() < 1e-3, "{m}");
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_steady_state_level() {
        // From the rest state (gain 1) the gain must rise to 158 at
        // −50 dBFS: ln(316)·τd ≈ 0.58 s with τd = 0.1 s; run 1.5 s.
        let p = AgcParams {
            decay: 0.1,
            ..params()
        };
        let n = 72_000;
        for level_db in [-50.0, -40.0, -26.0, -12.0, -3.0] {
            let amp = libm::pow(10.0, level_db / 20.0);
            // Real tone (peak level), f32 and Q15.
            let agc = Agc::new(&p, FS);
            let agq = AgcQ15::new(&p, FS);
            let (mut sf, mut sq) = (agc.state(), agq.state());
            let (mut pf, mut pq) = (0.0f64, 0.0f64);
            for k in 0..n {
                let x = amp * libm::sin(2.0 * PI * 1000.0 / FS * k as f64);
                let yf = agc.process(&mut sf, x as f32);
                let yq = agq.process(&mut sq, crate::dsp::fixed::f32_to_q15(x as f32));
                if k >= n - 2400 {
                    pf = pf.max((yf as f64).abs());
                    pq = pq.max((q15_to_f32(yq) as f64).abs());
                }
            }
            let (ef, eq) = (db20(pf / p.target), db20(pq / p.target));
            std::println!("real tone {level_db} dBFS: f32 {ef:+.3} dB, Q15 {eq:+.3} dB");
            assert!(ef.abs() <= 0.5 && eq.abs() <= 0.5, "{level_db}: {ef} {eq}");
            // Complex tone (magnitude): every output sample within 0.5 dB.
            let x: Vec<C32> = (0..n).map(|k| tone_c(k, amp)).collect();
            for (name, y) in ["f32", "Q15"].iter().zip(run_both(&p, &x)) {
                let tail = &y[n - 2400..];
                let lo = db20(tail.iter().cloned().fold(2.0, f64::min) / p.target);
                let hi = db20(tail.iter().cloned().fold(0.0, f64::max) / p.target);
                std::println!("complex tone {level_db} dBFS {name}: {lo:+.3} .. {hi:+.3} dB");
                assert!(lo >= -0.5 && hi <= 0.5, "{name} {level_db}: {lo} {hi}");
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_hang_removes_crest_sag() {
        // A hang of ≥ half a period holds the crest of a real tone.
        let p = AgcParams {
            decay: 0.1,
            hang: 0.6e-3,
            ..params()
        };
        let agc = Agc::new(&p, FS);
        let mut s = agc.state();
        let mut peak = 0.0f64;
        for k in 0..72_000 {
            let x = 0.1 * libm::sin(2.0 * PI * 1000.0 / FS * k as f64);
            let y = agc.process(&mut s, x as f32) as f64;
            if k >= 70_000 {
                peak = peak.max(y.abs());
            }
        }
        let e = db20(peak / p.target);
        std::println!("real tone with 0.6 ms hang: {e:+.3} dB");
        assert!(e.abs() < 0.02, "{e}");
    }

    /// First index from which `y` stays within ±0.5 dB of `t`.
    fn settle_index(y: &[f64], t: f64) -> usize {
        y.iter()
            .rposition(|&v| db20(v / t).abs() > 0.5)
            .map_or(0, |i| i + 1)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_step_response() {
        for hang in [0.0, 20e-3] {
            let p = AgcParams { hang, ..params() };
            let (ta, td) = (p.attack * FS, p.decay * FS);
            let hang_n = hang * FS;
            let seg = 24_000;
            // 0.02 → 0.2 (+20 dB) at seg, back to 0.02 (−20 dB) at 2 seg.
            let x: Vec<C32> = (0..3 * seg)
                .map(|k| {
                    tone_c(
                        k,
                        if (seg..2 * seg).contains(&k) {
                            0.2
                        } else {
                            0.02
                        },
                    )
                })
                .collect();
            for (name, y) in ["f32", "Q15"].iter().zip(run_both(&p, &x)) {
                let t = p.target;
                // Step up: settles within 2.8 τa (asserted 3.5 τa), and
                // no undershoot afterwards.
                let up = &y[seg..2 * seg];
                let s_up = settle_index(up, t);
                let peak = up.iter().cloned().fold(0.0, f64::max);
                let under = db20(up[s_up..].iter().cloned().fold(2.0, f64::min) / t);
                // Step down: holds for the hang, then settles within 5.0 τd
                // (asserted 5.5 τd), never overshooting.
                let down = &y[2 * seg..];
                let s_down = settle_index(down, t);
                let over = db20(down.iter().cloned().fold(0.0, f64::max) / t);
                std::println!(
                    "{name} hang {hang}: +20 dB settles in {:.2} τa (peak {:+.1} dB, min after {under:+.2} dB); \
                     −20 dB settles in hang + {:.2} τd (max {over:+.3} dB)",
                    s_up as f64 / ta,
                    db20(peak / t),
                    (s_down as f64 - hang_n) / td
                );
                assert!((s_up as f64) <= 3.5 * ta, "{name}: up {s_up}");
                assert!(under >= -0.5, "{name}: undershoot {under}");
                assert!(db20(peak / t) <= 20.5, "{name}: peak {peak}");
                assert!(
                    (s_down as f64) <= hang_n + 5.5 * td,
                    "{name}: down {s_down}"
                );
                assert!(
                    (s_down as f64) >= hang_n + 4.0 * td,
                    "{name}: down {s_down}"
                );
                assert!(over <= 0.5, "{name}: overshoot {over}");
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_hang_holds_gain() {
        let p = AgcParams {
            hang: 10e-3,
            ..params()
        };
        let agc = Agc::new(&p, FS);
        let mut s = agc.state();
        // Settle: the rest envelope 0.5 decays to 0.1 (τd = 50 ms).
        for k in 0..30_000 {
            agc.process(&mut s, tone_c(k, 0.1));
        }
        // Silence: the gain holds for the hang time (480 samples) counted
        // from the last attack, i.e. the last peak of the level estimate,
        // which recurs every 3 samples for this tone.
        let g0 = s.gain();
        for _ in 0..476 {
            agc.process(&mut s, C32::new(0.0, 0.0));
        }
        let held = s.gain();
        for _ in 0..6 {
            agc.process(&mut s, C32::new(0.0, 0.0));
        }
        assert!((held / g0 - 1.0).abs() < 1e-4, "{g0} {held}");
        assert!(s.gain() > held * 1.0001, "{held} {}", s.gain());
    }

    #[test]
    fn test_zero_input() {
        let p = params();
        let n = if cfg!(miri) { 500 } else { 200_000 };
        let agc = Agc::new(&p, FS);
        let (mut sr, mut sc) = (agc.state(), agc.state());
        for _ in 0..n {
            assert_eq!(agc.process(&mut sr, 0.0f32), 0.0);
            let y = agc.process(&mut sc, C32::new(0.0, 0.0));
            assert_eq!((y.re, y.im), (0.0, 0.0));
        }
        for s in [sr, sc] {
            assert!(s.gain().is_finite() && s.envelope().is_finite());
            if !cfg!(miri) {
                assert_eq!(s.gain(), p.max_gain as f32);
            }
        }
        // And it recovers from silence.
        let mut y = C32::new(0.0, 0.0);
        for k in 0..if cfg!(miri) { 100 } else { 2000 } {
            y = agc.process(&mut sc, tone_c(k, 0.1));
        }
        if !cfg!(miri) {
            let m = libm::hypotf(y.re, y.im);
            assert!((m / 0.5 - 1.0).abs() < 0.06, "{m}");
        }

        let agq = AgcQ15::new(&p, FS);
        let (mut sr, mut sc) = (agq.state(), agq.state());
        for _ in 0..n {
            assert_eq!(agq.process(&mut sr, 0i16), 0);
            assert_eq!(agq.process(&mut sc, Ci16::new(0, 0)), Ci16::new(0, 0));
        }
        if !cfg!(miri) {
            assert_eq!(sr.gain(), (p.max_gain * 65536.0) as i32);
            assert_eq!(sc.gain(), (p.max_gain * 65536.0) as i32);
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_max_gain_limits() {
        let p = params();
        let agq = AgcQ15::new(&p, FS);
        let agc = Agc::new(&p, FS);
        let (mut sq, mut sf) = (agq.state(), agc.state());
        for k in 0..20_000 {
            let x = tone_c(k, 1e-4); // −80 dBFS: needs 74 dB > 60 dB
            agc.process(&mut sf, x);
            agq.process(&mut sq, to_ci16(x));
        }
        assert_eq!(sf.gain(), 1000.0);
        assert_eq!(sq.gain(), 1000 << 16);
    }

    #[test]
    fn test_q15_saturates() {
        // Full-scale input with gain 1 saturates, never wraps.
        let agq = AgcQ15::new(&params(), FS);
        let mut s = agq.state();
        for _ in 0..10 {
            let y = agq.process(&mut s, Ci16::new(i16::MIN, i16::MAX));
            assert!(y.re <= 0 && y.im >= 0);
        }
    }

    /// f64 reference: the same envelope with the exact gain min(T/e, Gmax).
    fn reference(p: &AgcParams, x: &[C32]) -> Vec<f64> {
        let (aa, ad, _) = p.coefficients(FS);
        let mut e = p.target;
        x.iter()
            .map(|v| {
                let l = magnitude_f32(*v) as f64;
                e += if l > e { aa } else { ad } * (l - e);
                (p.target / e).min(p.max_gain) * libm::hypot(v.re as f64, v.im as f64)
            })
            .collect()
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_against_f64_reference() {
        // A 1 kHz tone, amplitude modulated 0.05 … 0.15 at 3 Hz, plus noise.
        let p = params();
        let n = 48_000;
        let mut rng = Rng::new(4);
        let x: Vec<C32> = (0..n)
            .map(|k| {
                let m = 0.1 + 0.05 * libm::sin(2.0 * PI * 3.0 / FS * k as f64);
                tone_c(k, m) + C32::new(1e-3 * rng.normal() as f32, 1e-3 * rng.normal() as f32)
            })
            .collect();
        let r = reference(&p, &x);
        let ps: f64 = r.iter().map(|v| v * v).sum();
        for (name, y) in ["f32", "Q15"].iter().zip(run_both(&p, &x)) {
            // Compare output magnitudes (the phase is untouched by the gain).
            let pe: f64 = r.iter().zip(&y).map(|(a, b)| (a - b) * (a - b)).sum();
            let snr = db(ps / pe);
            std::println!("AGC {name} vs f64 reference: {snr:.1} dB");
            assert!(snr >= 50.0, "{name}: {snr:.1} dB");
        }
    }

    proptest! {
        #![proptest_config(crate::testing::proptest_config())]

        #[test]
        fn prop_block_split(
            xs in proptest::collection::vec(any::<i16>(), 0..if cfg!(miri) { 40 } else { 300 }),
            scale in 0u32..12,
            cut in any::<usize>(),
        ) {
            let p = AgcParams { attack: 1e-4, decay: 2e-3, hang: 1e-4, ..params() };
            let xs: Vec<i16> = xs.iter().map(|&v| v >> scale).collect();
            let cut = cut % (xs.len() + 1);
            let xc: Vec<Ci16> = xs.windows(2).map(|w| Ci16::new(w[0], w[1])).collect();
            let ccut = cut.min(xc.len());
            let xf: Vec<f32> = xs.iter().map(|&v| q15_to_f32(v)).collect();
            let xfc: Vec<C32> = xc.iter().map(|v| C32::new(q15_to_f32(v.re), q15_to_f32(v.im))).collect();

            fn check<X: Copy, Y: Copy + Default + PartialEq + core::fmt::Debug, S: Clone, P: SplitProcess<X, Y, S>>(
                p: &P, s0: S, x: &[X], cut: usize,
            ) -> Result<(), TestCaseError> {
                let mut one = std::vec![Y::default(); x.len()];
                p.block(&mut s0.clone(), x, &mut one);
                let mut two = std::vec![Y::default(); x.len()];
                let mut s = s0;
                p.block(&mut s, &x[..cut], &mut two[..cut]);
                p.block(&mut s, &x[cut..], &mut two[cut..]);
                prop_assert_eq!(one, two);
                Ok(())
            }
            let agc = Agc::new(&p, FS);
            let agq = AgcQ15::new(&p, FS);
            check(&agc, agc.state(), &xf, cut)?;
            check(&agc, agc.state(), &xfc, ccut)?;
            check(&agq, agq.state(), &xs, cut)?;
            check(&agq, agq.state(), &xc, ccut)?;
        }
    }
}
