//! Numerically controlled oscillator, complex mixer and the multiply-free
//! `fs/4` shift.
//!
//! # Phase
//!
//! Phase is a `u32` holding a fraction of a turn: `θ = 2π · phase / 2³²`.
//! It wraps modulo one turn for free, so every frequency, including a
//! negative one, is a `u32` increment: `inc = round(f · 2³²) mod 2³²` for
//! `f = f_Hz / f_s` in cycles per sample (−0.5 ≤ f < 0.5 is the unaliased
//! range; `f` = −0.25 and 0.75 give the same increment `3 · 2³⁰`). The
//! frequency resolution is `f_s / 2³²` (0.56 mHz at 2.4 MS/s).
//!
//! # Sign convention
//!
//! The oscillator output is `e^{jθ[n]} = cos θ[n] + j sin θ[n]`, and
//! mixing multiplies by it: `y[n] = x[n] · e^{jθ[n]}`, with
//! `θ[n + 1] = θ[n] + 2π f`. A positive `f` moves the spectrum **up** by
//! `f`; to bring a signal at `+f₀` down to 0 Hz, mix with `−f₀`. Sample `n`
//! uses the phase held in the state before it, then the phase advances, so
//! a fresh state multiplies the first sample by exactly `e^{j0}`.
//!
//! # Accuracy
//!
//! - [`cos_sin_q15`]: a 512-entry full-turn Q15 sine table (1 KiB; cosine
//!   reads it a quarter turn ahead) with linear interpolation on a 15-bit
//!   fraction of the phase. Maximum error ≤ 4.6e-5 of full scale
//!   (interpolation (2π/512)²/8 = 1.9e-5, table and output rounding
//!   0.5 LSB each); tested ≤ 1e-4 over 2²⁰ phases. A full-scale tone from
//!   it has a SINAD of 95–97 dB. `+1.0` is represented as `32767`.
//! - [`cos_sin_f32`]: reduction to the nearest quarter turn (exact, in
//!   integers) and minimax polynomials on ±π/4 (sine degree 5, cosine
//!   degree 6), maximum error ≤ 1e-6 (tested). At the four quarter-turn
//!   phases the result is exact (±1, 0).

use crate::dsp::SplitProcess;
use crate::dsp::fixed::sat16;
use crate::{C32, Ci16, Complex};

/// log₂ of the number of sine-table entries per turn.
const TABLE_BITS: u32 = 9;
/// Number of sine-table entries per turn.
const TABLE_LEN: usize = 1 << TABLE_BITS;
/// Index mask for the wrapping table read.
const TABLE_MASK: usize = TABLE_LEN - 1;
/// Table offset of a quarter turn (cos θ = sin(θ + π/2)).
const QUARTER: usize = TABLE_LEN / 4;

/// `SIN_Q15[k] = round(32768 · sin(2π k / 512))`, clamped to ±32767.
static SIN_Q15: [i16; TABLE_LEN] = sin_table();

/// `sin x` for `0 ≤ x ≤ π/2` by its Taylor series in `f64` (25 terms:
/// the remainder is below 1e-40), for the compile-time table.
const fn sin_taylor(x: f64) -> f64 {
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    let mut k = 1;
    while k < 25 {
        term = -term * x2 / ((2 * k) as f64 * (2 * k + 1) as f64);
        sum += term;
        k += 1;
    }
    sum
}

/// Build [`SIN_Q15`] at compile time: each quadrant from the first by
/// symmetry, rounded half away from zero, clamped to ±32767 so that the
/// table, and every product with it, is symmetric.
const fn sin_table() -> [i16; TABLE_LEN] {
    let mut t = [0i16; TABLE_LEN];
    let step = core::f64::consts::PI / 2.0 / QUARTER as f64;
    let mut k = 0;
    while k < TABLE_LEN {
        let r = k % QUARTER;
        let q = k / QUARTER;
        // Angle within the first quadrant with the same |sin|.
        let m = if q % 2 == 0 { r } else { QUARTER - r };
        let v = sin_taylor(m as f64 * step) * 32768.0;
        let v = (v + 0.5) as i32; // v ≥ 0: round half up
        let v = if v > i16::MAX as i32 {
            i16::MAX as i32
        } else {
            v
        };
        t[k] = if q < 2 { v as i16 } else { -v as i16 };
        k += 1;
    }
    t
}

/// Linear interpolation `a + (b − a) · f / 2¹⁵`, rounded (`f` in
/// 0 ..= 0x7fff). The result lies between `a` and `b`, so it cannot
/// overflow.
#[inline(always)]
fn lerp_q15(a: i16, b: i16, f: i32) -> i16 {
    let (a, b) = (a as i32, b as i32);
    (a + (((b - a) * f + (1 << 14)) >> 15)) as i16
}

/// `e^{jθ}` in Q15 (`re = cos θ`, `im = sin θ`) for `θ = 2π · phase / 2³²`.
///
/// Table look-up with linear interpolation; maximum error 4.6e-5 of full
/// scale (see the [module docs](self)). Both parts lie in −32767 ..= 32767.
///
/// ```
/// use airwaves_core::dsp::nco::cos_sin_q15;
/// assert_eq!(cos_sin_q15(0).re, 32767); // +1.0
/// assert_eq!(cos_sin_q15(1 << 30).im, 32767); // θ = π/2
/// let e = cos_sin_q15(0x2000_0000); // θ = π/4: 0.70711 · 32768 = 23170.5
/// assert!((e.re as i32 - 23170).abs() <= 1 && (e.im as i32 - 23170).abs() <= 1);
/// ```
#[inline]
pub fn cos_sin_q15(phase: u32) -> Ci16 {
    let i = (phase >> (32 - TABLE_BITS)) as usize;
    let f = ((phase >> (32 - TABLE_BITS - 15)) & 0x7fff) as i32;
    let s = lerp_q15(SIN_Q15[i], SIN_Q15[(i + 1) & TABLE_MASK], f);
    let c = lerp_q15(
        SIN_Q15[(i + QUARTER) & TABLE_MASK],
        SIN_Q15[(i + QUARTER + 1) & TABLE_MASK],
        f,
    );
    Ci16::new(c, s)
}

// Minimax coefficients in u = r / 2²⁹ ∈ [−1, 1] (r the phase offset from
// the nearest quarter turn, so the angle is x = u · π/4):
// sin x ≈ u (S1 + u² (S3 + u² S5)), max error 5.6e-7;
// cos x ≈ 1 + u² (C2 + u² (C4 + u² C6)), max error 3.3e-8.
const S1: f32 = 0.785_394_2;
const S3: f32 = -0.080_713_996;
const S5: f32 = 0.002_427_106;
const C2: f32 = -0.308_424_5;
const C4: f32 = 0.015_850_398;
const C6: f32 = -0.000_319_160_16;

/// `e^{jθ}` in `f32` (`re = cos θ`, `im = sin θ`) for
/// `θ = 2π · phase / 2³²`.
///
/// The phase is split exactly into the nearest quarter turn `q` and an
/// offset `r` (|r| ≤ 2²⁹, i.e. |x| ≤ π/4); `cos x` and `sin x` come from
/// minimax polynomials and are rotated by `q` quarter turns by swapping
/// and negating. Maximum error 1e-6; exact at multiples of a quarter turn.
///
/// ```
/// use airwaves_core::dsp::nco::cos_sin_f32;
/// assert_eq!(cos_sin_f32(0).re, 1.0);
/// assert_eq!(cos_sin_f32(1 << 31).re, -1.0); // θ = π
/// let e = cos_sin_f32(0x1555_5555); // θ ≈ π/6
/// assert!((e.im - 0.5).abs() < 1e-6);
/// ```
#[inline]
pub fn cos_sin_f32(phase: u32) -> C32 {
    let q = phase.wrapping_add(1 << 29) >> 30;
    let r = phase.wrapping_sub(q << 30) as i32;
    let u = r as f32 * (1.0 / (1u32 << 29) as f32);
    let u2 = u * u;
    let s = u * (S1 + u2 * (S3 + u2 * S5));
    let c = 1.0 + u2 * (C2 + u2 * (C4 + u2 * C6));
    // Rotate by q quarter turns: (c, s) → (−s, c) for odd q, then negate
    // both for q ≥ 2. Sign flips are done on the bits so this stays
    // branch-free.
    let (c, s) = if q & 1 != 0 { (-s, c) } else { (c, s) };
    let neg = (q & 2) << 30;
    C32::new(
        f32::from_bits(c.to_bits() ^ neg),
        f32::from_bits(s.to_bits() ^ neg),
    )
}

/// Q15 complex multiply `x · e`, rounded and saturated. The sums cannot
/// overflow `i32`: each is at most `2 · 32768 · 32767 + 2¹⁴ < 2³¹`.
#[inline(always)]
fn cmul_q15(x: Ci16, e: Ci16) -> Ci16 {
    let (xr, xi) = (x.re as i32, x.im as i32);
    let (c, s) = (e.re as i32, e.im as i32);
    let re = xr * c - xi * s;
    let im = xr * s + xi * c;
    Ci16::new(sat16((re + (1 << 14)) >> 15), sat16((im + (1 << 14)) >> 15))
}

/// Numerically controlled oscillator and complex mixer: the configuration
/// is the phase increment per sample.
///
/// As a [`SplitProcess`] on [`C32`] or [`Ci16`] it mixes:
/// `y[n] = x[n] · e^{jθ[n]}`, `θ[n + 1] = θ[n] + inc` (see the
/// [module docs](self) for units and signs). The Q15 mixer rounds and
/// saturates (only inputs near full scale on both axes can saturate, since
/// `|x · e| ≤ |x|`). The oscillator alone is [`Nco::next_q15`] /
/// [`Nco::next_f32`] and their block forms.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Nco {
    inc: u32,
}

impl Nco {
    /// An NCO at `f` cycles per sample (`f_Hz / f_s`), any real value:
    /// the increment is `round(f · 2³²) mod 2³²`, so negative `f` wraps
    /// (−0.25 ≡ 0.75) and only `f mod 1` matters. Runs once at set-up, in
    /// `f64`. A non-finite `f` gives increment 0.
    ///
    /// ```
    /// use airwaves_core::dsp::nco::Nco;
    /// assert_eq!(Nco::new(0.25).increment(), 1 << 30);
    /// assert_eq!(Nco::new(-0.25).increment(), 3 << 30);
    /// assert_eq!(Nco::new(0.1).increment(), 429_496_730);
    /// ```
    pub fn new(f: f64) -> Self {
        let frac = f - libm::floor(f); // 0 ≤ frac ≤ 1
        // `as u64` saturates and maps NaN to 0; 2³² wraps to 0 below.
        let inc = libm::round(frac * 4_294_967_296.0) as u64;
        Self { inc: inc as u32 }
    }

    /// An NCO with the phase increment `inc` (turns · 2³² per sample).
    ///
    /// ```
    /// use airwaves_core::dsp::nco::Nco;
    /// let nco = Nco::from_increment(u32::MAX); // −2⁻³² cycles per sample
    /// assert!(nco.frequency() < 0.0);
    /// ```
    pub const fn from_increment(inc: u32) -> Self {
        Self { inc }
    }

    /// The phase increment per sample (turns · 2³²).
    pub const fn increment(&self) -> u32 {
        self.inc
    }

    /// The frequency in cycles per sample, in −0.5 ..= 0.5 (the increment
    /// read as a signed value).
    pub fn frequency(&self) -> f64 {
        self.inc as i32 as f64 * (1.0 / 4_294_967_296.0)
    }

    /// The next oscillator sample `e^{jθ}` in Q15; advances the phase.
    #[inline]
    pub fn next_q15(&self, state: &mut NcoState) -> Ci16 {
        let e = cos_sin_q15(state.phase);
        state.phase = state.phase.wrapping_add(self.inc);
        e
    }

    /// The next oscillator sample `e^{jθ}` in `f32`; advances the phase.
    #[inline]
    pub fn next_f32(&self, state: &mut NcoState) -> C32 {
        let e = cos_sin_f32(state.phase);
        state.phase = state.phase.wrapping_add(self.inc);
        e
    }

    /// Fill `y` with successive oscillator samples in Q15.
    pub fn fill_q15(&self, state: &mut NcoState, y: &mut [Ci16]) {
        for y in y.iter_mut() {
            *y = self.next_q15(state);
        }
    }

    /// Fill `y` with successive oscillator samples in `f32`.
    pub fn fill_f32(&self, state: &mut NcoState, y: &mut [C32]) {
        for y in y.iter_mut() {
            *y = self.next_f32(state);
        }
    }
}

/// Phase accumulator of an [`Nco`]: the phase (turns · 2³²) that the next
/// sample will use.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NcoState {
    phase: u32,
}

impl NcoState {
    /// A state starting at `phase` (turns · 2³²; `1 << 30` is π/2).
    ///
    /// ```
    /// use airwaves_core::dsp::nco::{Nco, NcoState};
    /// let mut s = NcoState::new(1 << 31);
    /// assert_eq!(Nco::new(0.0).next_f32(&mut s).re, -1.0);
    /// assert_eq!(s.phase(), 1 << 31);
    /// ```
    pub const fn new(phase: u32) -> Self {
        Self { phase }
    }

    /// The phase of the next sample (turns · 2³²).
    pub const fn phase(&self) -> u32 {
        self.phase
    }
}

impl SplitProcess<C32, C32, NcoState> for Nco {
    /// `x · e^{jθ}` in `f32`; advances the phase.
    #[inline]
    fn process(&self, state: &mut NcoState, x: C32) -> C32 {
        x * self.next_f32(state)
    }
}

impl SplitProcess<Ci16, Ci16, NcoState> for Nco {
    /// `x · e^{jθ}` in Q15, rounded and saturated; advances the phase.
    #[inline]
    fn process(&self, state: &mut NcoState, x: Ci16) -> Ci16 {
        cmul_q15(x, self.next_q15(state))
    }
}

/// Frequency shift by a quarter of the sample rate without multiplies:
/// `y[n] = x[n] · jᵏ⁽ⁿ⁾`, where `k` steps through 0, 1, 2, 3 ([`UP`],
/// `+f_s/4`, the same as an [`Nco`] at 0.25) or 0, 3, 2, 1 ([`DOWN`],
/// `−f_s/4`). Multiplying by `j` is `(a + jb) · j = −b + ja`.
///
/// The Q15 path negates with saturation, so `−(−32768)` gives `32767`;
/// that is the only inexact case. The block method unrolls four samples,
/// and its output is identical to the per-sample method for any split.
///
/// [`UP`]: Fs4Shift::UP
/// [`DOWN`]: Fs4Shift::DOWN
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Fs4Shift {
    /// Quarter turns per sample: 1 (up) or 3 (down).
    step: u8,
}

impl Fs4Shift {
    /// Shift up by `f_s/4`: multiply by 1, j, −1, −j, ….
    ///
    /// ```
    /// use airwaves_core::dsp::nco::{Fs4Shift, Fs4State};
    /// use airwaves_core::dsp::SplitProcess;
    /// use airwaves_core::C32;
    /// let mut s = Fs4State::default();
    /// let one = C32::new(1.0, 0.0);
    /// assert_eq!(Fs4Shift::UP.process(&mut s, one), one);
    /// assert_eq!(Fs4Shift::UP.process(&mut s, one), C32::new(0.0, 1.0));
    /// ```
    pub const UP: Self = Self { step: 1 };

    /// Shift down by `f_s/4`: multiply by 1, −j, −1, j, ….
    ///
    /// ```
    /// use airwaves_core::dsp::nco::{Fs4Shift, Fs4State};
    /// use airwaves_core::dsp::SplitProcess;
    /// use airwaves_core::Ci16;
    /// let mut s = Fs4State::new(2);
    /// // k = 2: multiply by −1 (saturating).
    /// assert_eq!(Fs4Shift::DOWN.process(&mut s, Ci16::new(-32768, 5)), Ci16::new(32767, -5));
    /// assert_eq!(s.quarter(), 1);
    /// ```
    pub const DOWN: Self = Self { step: 3 };

    /// Run per-sample steps until the quarter index is 0, then the body
    /// four samples at a time with the rotations fixed, then the tail per
    /// sample. `rot(x, k)` is the per-sample rotation by `jᵏ`, `neg` the
    /// (saturating) negation of one part.
    #[inline(always)]
    fn run<C: Copy>(
        &self,
        state: &mut Fs4State,
        x: &[Complex<C>],
        y: &mut [Complex<C>],
        rot: impl Fn(Complex<C>, u8) -> Complex<C>,
        neg: impl Fn(C) -> C,
    ) {
        debug_assert_eq!(x.len(), y.len());
        let n = x.len().min(y.len());
        let (x, y) = (&x[..n], &mut y[..n]);
        let step = self.step;
        // Samples until k returns to 0: 4 − k going up, k going down.
        let head = if step == 1 {
            (4 - state.quarter) & 3
        } else {
            state.quarter
        } as usize;
        let head = head.min(n);
        let (xh, xb) = x.split_at(head);
        let (yh, yb) = y.split_at_mut(head);
        for (x, y) in xh.iter().zip(yh.iter_mut()) {
            *y = rot(*x, state.quarter);
            state.quarter = (state.quarter + step) & 3;
        }
        // Two copies of the body, each with constant rotations.
        let body = if step == 1 {
            Self::body::<C, true>(xb, yb, &neg)
        } else {
            Self::body::<C, false>(xb, yb, &neg)
        };
        for (x, y) in xb[body..].iter().zip(yb[body..].iter_mut()) {
            *y = rot(*x, state.quarter);
            state.quarter = (state.quarter + step) & 3;
        }
    }

    /// Multiply `x` four samples at a time by `1, j, −1, −j` (`UP`) or
    /// `1, −j, −1, j` into `y` (same length); returns the number of
    /// samples done (a multiple of four). Written as a negation of all
    /// eight parts followed by a fixed shuffle, which vectorises.
    #[inline(always)]
    fn body<C: Copy, const UP: bool>(
        x: &[Complex<C>],
        y: &mut [Complex<C>],
        neg: &impl Fn(C) -> C,
    ) -> usize {
        let n4 = x.len() & !3;
        for (x, y) in x[..n4].chunks_exact(4).zip(y[..n4].chunks_exact_mut(4)) {
            let p = [
                x[0].re, x[0].im, x[1].re, x[1].im, x[2].re, x[2].im, x[3].re, x[3].im,
            ];
            let m = p.map(neg);
            // j(a + jb) = −b + ja; −j(a + jb) = b − ja.
            let o = if UP {
                [p[0], p[1], m[3], p[2], m[4], m[5], p[7], m[6]]
            } else {
                [p[0], p[1], p[3], m[2], m[4], m[5], m[7], p[6]]
            };
            y[0] = Complex::new(o[0], o[1]);
            y[1] = Complex::new(o[2], o[3]);
            y[2] = Complex::new(o[4], o[5]);
            y[3] = Complex::new(o[6], o[7]);
        }
        n4
    }
}

/// State of an [`Fs4Shift`]: the power `k` of `j` (0 ..= 3) that the next
/// sample is multiplied by.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Fs4State {
    quarter: u8,
}

impl Fs4State {
    /// A state whose next multiplier is `j^(quarter mod 4)`.
    ///
    /// ```
    /// use airwaves_core::dsp::nco::Fs4State;
    /// assert_eq!(Fs4State::new(5).quarter(), 1);
    /// ```
    pub const fn new(quarter: u8) -> Self {
        Self {
            quarter: quarter & 3,
        }
    }

    /// The power of `j` (0 ..= 3) for the next sample.
    pub const fn quarter(&self) -> u8 {
        self.quarter
    }
}

/// `x · jᵏ` in `f32` (exact).
#[inline(always)]
fn rot_c32(x: C32, k: u8) -> C32 {
    match k & 3 {
        0 => x,
        1 => C32::new(-x.im, x.re),
        2 => C32::new(-x.re, -x.im),
        _ => C32::new(x.im, -x.re),
    }
}

/// `x · jᵏ` in Q15 with saturating negation.
#[inline(always)]
fn rot_ci16(x: Ci16, k: u8) -> Ci16 {
    match k & 3 {
        0 => x,
        1 => Ci16::new(x.im.saturating_neg(), x.re),
        2 => Ci16::new(x.re.saturating_neg(), x.im.saturating_neg()),
        _ => Ci16::new(x.im, x.re.saturating_neg()),
    }
}

impl SplitProcess<C32, C32, Fs4State> for Fs4Shift {
    #[inline]
    fn process(&self, state: &mut Fs4State, x: C32) -> C32 {
        let y = rot_c32(x, state.quarter);
        state.quarter = (state.quarter + self.step) & 3;
        y
    }

    fn block(&self, state: &mut Fs4State, x: &[C32], y: &mut [C32]) {
        self.run(state, x, y, rot_c32, |v: f32| -v);
    }
}

impl SplitProcess<Ci16, Ci16, Fs4State> for Fs4Shift {
    #[inline]
    fn process(&self, state: &mut Fs4State, x: Ci16) -> Ci16 {
        let y = rot_ci16(x, state.quarter);
        state.quarter = (state.quarter + self.step) & 3;
        y
    }

    fn block(&self, state: &mut Fs4State, x: &[Ci16], y: &mut [Ci16]) {
        self.run(state, x, y, rot_ci16, i16::saturating_neg);
    }
}

#[cfg(test)]
mod test {
    extern crate std;

    use super::*;
    use crate::dsp::SplitInplace;
    use crate::rng::Rng;
    use crate::testing::{fit_tone, tone_sinad_db};
    use core::f64::consts::PI;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// Phases to test: a stride over the whole turn with a pseudo-random
    /// offset per step, plus every table node and its neighbours.
    fn phases() -> impl Iterator<Item = u32> {
        let n: u32 = if cfg!(miri) { 1 << 8 } else { 1 << 20 };
        let stride = (1u64 << 32) / n as u64;
        let mut rng = Rng::new(11);
        let strided = (0..n).map(move |k| (k as u64 * stride + (rng.next_u64() % stride)) as u32);
        let node_step = if cfg!(miri) { 16 } else { 1 };
        let nodes = (0..TABLE_LEN as u32).step_by(node_step).flat_map(|k| {
            let p = k << (32 - TABLE_BITS);
            [
                p,
                p.wrapping_sub(1),
                p.wrapping_add(1),
                p + (1 << (31 - TABLE_BITS)),
            ]
        });
        strided.chain(nodes)
    }

    fn theta(phase: u32) -> f64 {
        2.0 * PI * phase as f64 / 4_294_967_296.0
    }

    #[test]
    fn test_table() {
        for (k, &v) in SIN_Q15.iter().enumerate() {
            let want = libm::round(32768.0 * libm::sin(2.0 * PI * k as f64 / 512.0));
            assert_eq!(v as f64, want.clamp(-32767.0, 32767.0), "entry {k}");
        }
    }

    #[test]
    fn test_cos_sin_q15_error() {
        let mut max = 0.0f64;
        for p in phases() {
            let e = cos_sin_q15(p);
            let t = theta(p);
            let ec = (e.re as f64 / 32768.0 - libm::cos(t)).abs();
            let es = (e.im as f64 / 32768.0 - libm::sin(t)).abs();
            max = max.max(ec).max(es);
        }
        // Measured 4.5e-5.
        assert!(max <= 1e-4, "max error {max:e}");
        std::println!("cos_sin_q15 max error {max:e}");
    }

    #[test]
    fn test_cos_sin_f32_error() {
        let mut max = 0.0f64;
        for p in phases() {
            let e = cos_sin_f32(p);
            let t = theta(p);
            let ec = (e.re as f64 - libm::cos(t)).abs();
            let es = (e.im as f64 - libm::sin(t)).abs();
            max = max.max(ec).max(es);
        }
        assert!(max <= 1e-6, "max error {max:e}");
        std::println!("cos_sin_f32 max error {max:e}");
    }

    #[test]
    fn test_quarter_turns_exact() {
        let want = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)];
        for (k, &(c, s)) in want.iter().enumerate() {
            let e = cos_sin_f32((k as u32) << 30);
            assert_eq!((e.re, e.im), (c, s), "quarter {k}");
            let e = cos_sin_q15((k as u32) << 30);
            assert_eq!((e.re, e.im), ((c * 32767.0) as i16, (s * 32767.0) as i16));
        }
    }

    #[test]
    fn test_increment() {
        assert_eq!(Nco::new(0.0).increment(), 0);
        assert_eq!(Nco::new(1.0).increment(), 0);
        assert_eq!(Nco::new(0.5).increment(), 1 << 31);
        assert_eq!(Nco::new(-0.5).increment(), 1 << 31);
        assert_eq!(Nco::new(-0.25).increment(), 3 << 30);
        assert_eq!(Nco::new(1.25).increment(), 1 << 30);
        assert_eq!(Nco::new(-1e-12).increment(), 0); // rounds to 2³², wraps
        assert_eq!(Nco::new(f64::NAN).increment(), 0);
        let f = 0.123_456_789;
        let inc = Nco::new(f).increment();
        assert_eq!(inc as f64, libm::round(f * 4_294_967_296.0));
        assert!((Nco::new(-f).frequency() + f).abs() < 1e-9);
    }

    /// SINAD (dB) of the real and imaginary parts of an oscillator output.
    fn osc_sinad(y: &[C32], f: f64) -> (f64, f64) {
        let re: Vec<f64> = y.iter().map(|v| v.re as f64).collect();
        let im: Vec<f64> = y.iter().map(|v| v.im as f64).collect();
        (tone_sinad_db(&re, f), tone_sinad_db(&im, f))
    }

    #[test]
    #[cfg_attr(miri, ignore = "heavy under miri")]
    fn test_oscillator_sinad() {
        let n = if cfg!(miri) { 64 } else { 16384 };
        for &f in &[0.012_345_678, -0.173_205_08, 0.314_159_27] {
            let nco = Nco::new(f);
            let f = nco.frequency();
            let mut q = std::vec![Ci16::default(); n];
            nco.fill_q15(&mut NcoState::default(), &mut q);
            let q: Vec<C32> = q
                .iter()
                .map(|v| C32::new(v.re as f32 / 32768.0, v.im as f32 / 32768.0))
                .collect();
            let (sr, si) = osc_sinad(&q, f);
            // Measured ≈ 96–97 dB.
            assert!(sr >= 85.0 && si >= 85.0, "q15 f={f}: {sr} {si} dB");
            std::println!("f={f}: q15 SINAD {sr:.1}/{si:.1} dB");
            let mut y = std::vec![C32::default(); n];
            nco.fill_f32(&mut NcoState::default(), &mut y);
            let (sr, si) = osc_sinad(&y, f);
            assert!(sr >= 120.0 && si >= 120.0, "f32 f={f}: {sr} {si} dB");
            std::println!("f={f}: f32 SINAD {sr:.1}/{si:.1} dB");
        }
    }

    /// Correlation `|(1/N) Σ y[n] e^{−j2πfn}|`: the amplitude of a complex
    /// tone at `f` (positive and negative frequencies are told apart).
    fn complex_amp(y: &[(f64, f64)], f: f64) -> f64 {
        let (mut re, mut im) = (0.0, 0.0);
        for (n, &(a, b)) in y.iter().enumerate() {
            let (c, s) = (
                libm::cos(2.0 * PI * f * n as f64),
                libm::sin(2.0 * PI * f * n as f64),
            );
            re += a * c + b * s;
            im += b * c - a * s;
        }
        (re * re + im * im).sqrt() / y.len() as f64
    }

    #[test]
    #[cfg_attr(miri, ignore = "heavy under miri")]
    fn test_mix_moves_tone() {
        let n = if cfg!(miri) { 64 } else { 8192 };
        let (f1, amp) = (0.031_25, 0.7);
        for &f2 in &[0.1, -0.2] {
            let nco = Nco::new(f2);
            let fo = f1 + nco.frequency();
            let x: Vec<C32> = (0..n)
                .map(|k| {
                    let w = 2.0 * PI * f1 * k as f64;
                    C32::new((amp * libm::cos(w)) as f32, (amp * libm::sin(w)) as f32)
                })
                .collect();
            let xq: Vec<Ci16> = x
                .iter()
                .map(|v| {
                    Ci16::new(
                        crate::dsp::fixed::f32_to_q15(v.re),
                        crate::dsp::fixed::f32_to_q15(v.im),
                    )
                })
                .collect();
            let mut y = std::vec![C32::default(); n];
            nco.block(&mut NcoState::default(), &x, &mut y);
            let mut yq = std::vec![Ci16::default(); n];
            nco.block(&mut NcoState::default(), &xq, &mut yq);
            let yf: Vec<(f64, f64)> = y.iter().map(|v| (v.re as f64, v.im as f64)).collect();
            let yq: Vec<(f64, f64)> = yq
                .iter()
                .map(|v| (v.re as f64 / 32768.0, v.im as f64 / 32768.0))
                .collect();
            for (y, min_sinad) in [(&yf, 120.0), (&yq, 85.0)] {
                // The tone is at f1 + f2, not at f1 − f2 or f1.
                assert!((complex_amp(y, fo) - amp).abs() < 1e-3, "f2={f2}");
                assert!(complex_amp(y, f1 - nco.frequency()) < 1e-3);
                assert!(complex_amp(y, f1) < 1e-3);
                let re: Vec<f64> = y.iter().map(|v| v.0).collect();
                let (a, dc, _) = fit_tone(&re, fo);
                assert!((a - amp).abs() < 1e-3 && dc.abs() < 1e-4);
                let s = tone_sinad_db(&re, fo);
                assert!(s >= min_sinad, "f2={f2}: SINAD {s} dB");
                std::println!("mix f2={f2}: SINAD {s:.1} dB");
            }
        }
    }

    #[test]
    fn test_fs4_matches_nco() {
        let n = if cfg!(miri) { 64 } else { 4096 };
        let mut rng = Rng::new(5);
        let x: Vec<C32> = (0..n)
            .map(|_| C32::new(rng.uniform() as f32 - 0.5, rng.uniform() as f32 - 0.5))
            .collect();
        let xq: Vec<Ci16> = (0..n)
            .map(|_| Ci16::new(rng.next_u64() as i16, rng.next_u64() as i16))
            .collect();
        for (shift, f) in [(Fs4Shift::UP, 0.25), (Fs4Shift::DOWN, -0.25)] {
            let nco = Nco::new(f);
            let mut a = std::vec![C32::default(); n];
            let mut b = std::vec![C32::default(); n];
            shift.block(&mut Fs4State::default(), &x, &mut a);
            nco.block(&mut NcoState::default(), &x, &mut b);
            assert_eq!(a, b, "f32 fs/4 shift equals the NCO at {f}");
            let mut a = std::vec![Ci16::default(); n];
            let mut b = std::vec![Ci16::default(); n];
            shift.block(&mut Fs4State::default(), &xq, &mut a);
            nco.block(&mut NcoState::default(), &xq, &mut b);
            // The Q15 NCO represents +1.0 as 32767/32768: within 1 LSB.
            for (a, b) in a.iter().zip(&b) {
                assert!((a.re as i32 - b.re as i32).abs() <= 1);
                assert!((a.im as i32 - b.im as i32).abs() <= 1);
            }
        }
    }

    #[test]
    fn test_fs4_saturation() {
        let x = Ci16::new(i16::MIN, i16::MIN);
        let mut y = [Ci16::default(); 4];
        Fs4Shift::UP.block(&mut Fs4State::default(), &[x; 4], &mut y);
        assert_eq!(
            y,
            [
                x,
                Ci16::new(i16::MAX, i16::MIN),
                Ci16::new(i16::MAX, i16::MAX),
                Ci16::new(i16::MIN, i16::MAX),
            ]
        );
        let mut s = Fs4State::default();
        let mut z = [x; 4];
        Fs4Shift::DOWN.inplace(&mut s, &mut z);
        assert_eq!(z[1], Ci16::new(i16::MIN, i16::MAX));
        assert_eq!(s.quarter(), 0);
    }

    fn c32_vec(v: &[(f32, f32)]) -> Vec<C32> {
        v.iter().map(|&(a, b)| C32::new(a, b)).collect()
    }

    fn ci16_vec(v: &[(i16, i16)]) -> Vec<Ci16> {
        v.iter().map(|&(a, b)| Ci16::new(a, b)).collect()
    }

    use crate::testing::same_for_any_split as split_eq;

    /// Longest random input in the property tests (short under miri).
    const MAX_LEN: usize = if cfg!(miri) { 24 } else { 200 };

    proptest! {
        #![proptest_config(crate::testing::proptest_config())]

        #[test]
        fn prop_mix_split(
            x in proptest::collection::vec((-1.0f32..1.0, -1.0f32..1.0), 0..MAX_LEN),
            xq in proptest::collection::vec((any::<i16>(), any::<i16>()), 0..MAX_LEN),
            cuts in proptest::collection::vec(any::<usize>(), 0..6),
            inc in any::<u32>(),
            phase in any::<u32>(),
        ) {
            let nco = Nco::from_increment(inc);
            let s0 = NcoState::new(phase);
            prop_assert!(split_eq(&c32_vec(&x), &cuts, s0, |s, x, y| nco.block(s, x, y)));
            prop_assert!(split_eq(&ci16_vec(&xq), &cuts, s0, |s, x, y| nco.block(s, x, y)));
            let z = std::vec![C32::default(); x.len()];
            prop_assert!(split_eq(&z, &cuts, s0, |s, _, y| nco.fill_f32(s, y)));
            let zq = std::vec![Ci16::default(); xq.len()];
            prop_assert!(split_eq(&zq, &cuts, s0, |s, _, y| nco.fill_q15(s, y)));
        }

        #[test]
        fn prop_fs4_split(
            x in proptest::collection::vec((-1.0f32..1.0, -1.0f32..1.0), 0..MAX_LEN),
            xq in proptest::collection::vec((any::<i16>(), any::<i16>()), 0..MAX_LEN),
            cuts in proptest::collection::vec(any::<usize>(), 0..6),
            up in any::<bool>(),
            k in 0u8..4,
        ) {
            let shift = if up { Fs4Shift::UP } else { Fs4Shift::DOWN };
            let s0 = Fs4State::new(k);
            // The unrolled block equals per-sample processing…
            let per_sample = |s: &mut Fs4State, x: &[C32], y: &mut [C32]| {
                for (x, y) in x.iter().zip(y.iter_mut()) {
                    *y = shift.process(s, *x);
                }
            };
            let xc = c32_vec(&x);
            let (mut a, mut b) = (std::vec![C32::default(); x.len()], std::vec![C32::default(); x.len()]);
            let (mut sa, mut sb) = (s0, s0);
            shift.block(&mut sa, &xc, &mut a);
            per_sample(&mut sb, &xc, &mut b);
            prop_assert_eq!(a, b);
            prop_assert_eq!(sa, sb);
            // …and is split-invariant.
            prop_assert!(split_eq(&xc, &cuts, s0, |s, x, y| shift.block(s, x, y)));
            prop_assert!(split_eq(&ci16_vec(&xq), &cuts, s0, |s, x, y| shift.block(s, x, y)));
        }
    }
}
