//! Half-band ×2 decimators and decimator cascades, in `f32` and Q15, over
//! real and complex samples.
//!
//! # Maths
//!
//! A half-band filter is a linear-phase low-pass with cut-off (−6 dB point)
//! at a quarter of the sample rate and odd length `N = 4K − 1`, centre
//! `c = 2K − 1`. Its taps satisfy `h[c] = ½` and `h[c ± 2j] = 0` for
//! `j ≥ 1`, so `H(f) + H(½ − f) = 1`: the pass-band ripple mirrors the
//! stop-band ripple, and `H(¼) = ½`. Only the `K` distinct taps
//!
//! ```text
//! g[i] = h[2i] = h[N − 1 − 2i],   i = 0 .. K   (outermost first)
//! ```
//!
//! are stored. Decimating by 2 keeps `v[m] = y[2m]`:
//!
//! ```text
//! v[m] = ½ · x[2m − c] + Σ_{i<K} g[i] · (x[2m − 2i] + x[2m − 2(2K − 1 − i)])
//! ```
//!
//! The non-zero side taps all see even-indexed inputs and the centre tap an
//! odd-indexed one. So the even inputs run through a folded `2K`-sample
//! delay line (`K` multiplies per output) and the odd inputs through a
//! `K`-sample FIFO (a shift by one). Per input sample that is `K/2 ≈ N/8`
//! multiplies, `N/4` multiply–accumulates as a direct form would count
//! them. The first input yields the first output (`v[m]` aligned with input
//! `2m`); the group delay is `c = 2K − 1` input samples.
//!
//! # Design
//!
//! [`halfband_f64`] windows the ideal half-band `½ sinc(n/2)` with a Kaiser
//! window (β from the stop-band attenuation), forces the even-offset taps to
//! exactly 0 and the centre to exactly ½, and scales the side taps so that
//! `Σ g = ¼` (unit DC gain, an exact null at `f = ½`). Kaiser's estimate for
//! the transition width is `Δf ≈ (A − 7.95) / (14.36 (N − 1))`, centred on
//! ¼: pass band to `¼ − Δf/2`, stop band from `¼ + Δf/2` (cycles per input
//! sample). After decimation the stop band `[¼ + Δf/2, ½]` folds onto
//! `[0, ¼ − Δf/2]` of the output, the part of the spectrum that a ×2
//! decimator must protect.
//!
//! Q15 taps are rounded to nearest with the residual spread so that
//! `Σ g = 8192` exactly (DC gain exactly 1, centre exactly `16384`). The
//! accumulator is `i32` (see [`crate::dsp::fir`] for the headroom bound;
//! here `2 Σ|g| + 16384 ≤ 65 535` LSB, checked by the constructor).
//!
//! # Cascades
//!
//! [`Cascade`] chains two decimators (any [`SplitDecimate`]); nest it for
//! more stages, e.g. three half-bands from 2.4 MS/s to 300 kS/s:
//!
//! ```
//! use airwaves_core::Ci16;
//! use airwaves_core::dsp::fir::{Decimate, SplitDecimate};
//! use airwaves_core::dsp::halfband::{Cascade, HalfBand, HalfBandState};
//!
//! // 2.4 → 1.2 MS/s (15 taps), → 600 kS/s (15), → 300 kS/s (31): each
//! // stage protects 0 ..= 100 kHz with about 70 dB of alias rejection.
//! let dec = Cascade::new(
//!     HalfBand::<i16, 4>::design(70.0),
//!     Cascade::new(HalfBand::<i16, 4>::design(70.0), HalfBand::<i16, 8>::design(70.0)),
//! );
//! let mut state: (HalfBandState<Ci16, 4>, (HalfBandState<Ci16, 4>, HalfBandState<Ci16, 8>)) =
//!     Default::default();
//! let x = [Ci16::new(1000, -1000); 4096];
//! let mut y = [Ci16::new(0, 0); 512];
//! assert_eq!(dec.max_output(x.len()), 512);
//! assert_eq!(dec.block(&mut state, &x, &mut y), 512);
//! assert_eq!(y[511], Ci16::new(1000, -1000)); // unit DC gain
//! ```

use crate::dsp::design;
use crate::dsp::fir::sealed::TapOps;
use crate::dsp::fir::{Decimate, Sample, SplitDecimate, Tap, check_headroom, output_too_short};

/// Write the `K = taps.len()` distinct side taps `g[i] = h[2i]` of a
/// `4K − 1`-tap Kaiser half-band (see the module docs) with window
/// parameter `beta` (see [`design::kaiser_beta`]): `Σ g = ¼` exactly up to
/// `f64` rounding, so with the implicit centre tap ½ the DC gain is 1.
///
/// ```
/// use airwaves_core::dsp::design::kaiser_beta;
/// use airwaves_core::dsp::halfband::halfband_f64;
/// let mut g = [0.0; 4];
/// halfband_f64(&mut g, kaiser_beta(60.0));
/// assert!((g.iter().sum::<f64>() - 0.25).abs() < 1e-15);
/// assert!(g[3] > 0.3 && g[2] < 0.0); // inner taps ≈ 1/π, −1/(3π)
/// ```
pub fn halfband_f64(taps: &mut [f64], beta: f64) {
    let k = taps.len();
    if k == 0 {
        return;
    }
    let len = 4 * k - 1;
    let centre = (2 * k - 1) as f64;
    let mut sum = 0.0;
    for (i, g) in taps.iter_mut().enumerate() {
        let n = 2 * i;
        *g = 0.5 * design::sinc(0.5 * (n as f64 - centre)) * design::kaiser_window(n, len, beta);
        sum += *g;
    }
    let scale = 0.25 / sum;
    for g in taps.iter_mut() {
        *g *= scale;
    }
}

/// Half-band ×2 decimator with `4K − 1` taps of which `K` distinct side
/// taps are stored (type `T`: `f32`, or `i16` in Q15) and the centre tap is
/// exactly ½ (see the module docs for the recurrence).
///
/// Filters `f32` and [`C32`](crate::C32) data with `f32` taps, `i16` and
/// [`Ci16`](crate::Ci16) (Q15) data with Q15 taps (i32 accumulation,
/// rounded and saturated once per output). State:
/// [`HalfBandState<X, K>`]. Per input: `K/2` multiplies per lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfBand<T, const K: usize> {
    /// `g[i] = h[2i]`, outermost first.
    taps: [T; K],
}

impl<T: Tap, const K: usize> HalfBand<T, K> {
    /// Total filter length `4K − 1`.
    pub const LEN: usize = 4 * K - 1;

    /// A half-band with side taps `taps[i] = h[2i]` (`i < K`, outermost
    /// first; mirrored to `h[4K − 2 − 2i]`), zeros at the other even offsets
    /// from the centre, and centre tap `h[2K − 1] = ½`.
    ///
    /// # Panics
    /// For Q15, panics if `2 Σ|g| + 16384 > 65 535` LSB (the `i32`
    /// accumulator could overflow).
    ///
    /// ```
    /// use airwaves_core::dsp::fir::SplitDecimate;
    /// use airwaves_core::dsp::halfband::{HalfBand, HalfBandState};
    /// // h = [¼, ½, ¼]
    /// let hb = HalfBand::new([8192i16]);
    /// let mut s = HalfBandState::new();
    /// let mut y = [0i16; 2];
    /// assert_eq!(hb.block(&mut s, &[4000, 4000, 4000], &mut y), 2);
    /// assert_eq!(y, [1000, 4000]);
    /// ```
    #[track_caller]
    pub fn new(taps: [T; K]) -> Self {
        const { assert!(K > 0, "a half-band needs at least one side tap") };
        check_headroom(&taps, 2, 1 << 14);
        Self { taps }
    }

    /// A Kaiser half-band for `atten_db` of stop-band attenuation (and the
    /// same pass-band ripple) over `[¼ + Δf/2, ½]` with
    /// `Δf ≈ (atten_db − 7.95) / (14.36 (4K − 2))`. See [`halfband_f64`];
    /// Q15 taps keep `Σ g = 8192` exactly.
    ///
    /// ```
    /// use airwaves_core::dsp::halfband::HalfBand;
    /// let hb = HalfBand::<i16, 8>::design(70.0);
    /// assert_eq!(hb.taps().iter().map(|&g| g as i32).sum::<i32>(), 8192);
    /// ```
    pub fn design(atten_db: f64) -> Self {
        let mut g = [0.0f64; K];
        halfband_f64(&mut g, design::kaiser_beta(atten_db));
        let mut taps = [T::ZERO; K];
        T::from_f64_sum(&g, &mut taps);
        Self::new(taps)
    }

    /// The distinct side taps `g[i] = h[2i]`, outermost first.
    pub const fn taps(&self) -> &[T; K] {
        &self.taps
    }

    /// Write the full `4K − 1` taps `h` (zeros and centre included).
    ///
    /// # Panics
    /// Panics if `h.len() != 4K − 1`.
    ///
    /// ```
    /// use airwaves_core::dsp::halfband::HalfBand;
    /// let mut h = [0.0f32; 7];
    /// HalfBand::new([-0.03125f32, 0.28125]).impulse_response(&mut h);
    /// assert_eq!(h, [-0.03125, 0.0, 0.28125, 0.5, 0.28125, 0.0, -0.03125]);
    /// ```
    #[track_caller]
    pub fn impulse_response(&self, h: &mut [T]) {
        assert_eq!(h.len(), Self::LEN, "impulse response needs 4K - 1 taps");
        for v in h.iter_mut() {
            *v = T::ZERO;
        }
        for (i, &g) in self.taps.iter().enumerate() {
            h[2 * i] = g;
            h[Self::LEN - 1 - 2 * i] = g;
        }
        h[2 * K - 1] = T::HALF;
    }
}

/// State of a [`HalfBand`] decimator over samples `X`: the even-indexed
/// inputs in a double-length circular buffer of `2K` (each lane stored
/// twice, `4K` values), the odd-indexed inputs in a `K`-sample FIFO, and
/// the phase. Zeroed at creation.
#[derive(Clone, Debug, PartialEq)]
pub struct HalfBandState<X: Sample, const K: usize> {
    re: [[X::Re; K]; 4],
    im: [[X::Im; K]; 4],
    /// Newest even sample, `0 .. 2K`, counting down.
    p: usize,
    odd: [X; K],
    /// Oldest odd sample in `odd`.
    q: usize,
    /// The next input is odd-indexed (produces no output).
    odd_next: bool,
}

impl<X: Sample, const K: usize> HalfBandState<X, K> {
    /// A zeroed state; the next input produces an output.
    ///
    /// ```
    /// use airwaves_core::C32;
    /// use airwaves_core::dsp::halfband::HalfBandState;
    /// let s = HalfBandState::<C32, 8>::new();
    /// assert_eq!(s, HalfBandState::default());
    /// ```
    pub const fn new() -> Self {
        const { assert!(K > 0, "a half-band needs at least one side tap") };
        Self {
            re: [[X::ZERO_RE; K]; 4],
            im: [[X::ZERO_IM; K]; 4],
            p: 0,
            odd: [X::ZERO; K],
            q: 0,
            odd_next: false,
        }
    }

    /// Zero the delay lines and the phase.
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    #[inline(always)]
    fn push_odd(&mut self, x: X) {
        self.odd[self.q] = x;
        self.q = if self.q + 1 == K { 0 } else { self.q + 1 };
    }

    #[inline(always)]
    fn push_even(&mut self, x: X) {
        let p = if self.p == 0 { 2 * K - 1 } else { self.p - 1 };
        let (r, i) = x.split();
        let re = self.re.as_flattened_mut();
        re[p] = r;
        re[p + 2 * K] = r;
        let im = self.im.as_flattened_mut();
        im[p] = i;
        im[p + 2 * K] = i;
        self.p = p;
    }
}

impl<X: Sample, const K: usize> Default for HalfBandState<X, K> {
    fn default() -> Self {
        Self::new()
    }
}

/// The half-band output after an even input has been pushed.
#[inline(always)]
fn output<X: Sample, const K: usize>(taps: &[X::Tap; K], s: &HalfBandState<X, K>) -> X {
    {
        let p = s.p;
        let re = &s.re.as_flattened()[p..p + 2 * K];
        let im = &s.im.as_flattened()[p..p + 2 * K];
        let (re_f, re_b) = re.split_at(K);
        let (im_f, im_b) = im.split_at(K);
        let acc = X::fold(taps, re_f, re_b, im_f, im_b);
        let (cr, ci) = s.odd[s.q].split();
        X::finish(X::mac(acc, <X::Tap as TapOps>::HALF, cr, ci))
    }
}

impl<T, const K: usize> Decimate for HalfBand<T, K> {
    const RATIO: usize = 2;
}

impl<X: Sample, const K: usize> SplitDecimate<X, HalfBandState<X, K>> for HalfBand<X::Tap, K> {
    #[inline]
    fn process(&self, state: &mut HalfBandState<X, K>, x: X) -> Option<X> {
        if state.odd_next {
            state.push_odd(x);
            state.odd_next = false;
            None
        } else {
            state.push_even(x);
            state.odd_next = true;
            Some(output(&self.taps, state))
        }
    }

    #[track_caller]
    fn block(&self, state: &mut HalfBandState<X, K>, x: &[X], y: &mut [X]) -> usize {
        let need = self.max_output(x.len());
        if y.len() < need {
            output_too_short(y.len(), need);
        }
        let mut x = x;
        let mut y = &mut y[..need];
        if state.odd_next {
            if let Some((&v, rest)) = x.split_first() {
                state.push_odd(v);
                state.odd_next = false;
                x = rest;
            }
        }
        // Now at an even input: pairs (even → output, odd).
        let pairs = x.chunks_exact(2);
        let last = pairs.remainder();
        let mut n = 0;
        for (pair, o) in pairs.zip(y.iter_mut()) {
            state.push_even(pair[0]);
            *o = output(&self.taps, state);
            state.push_odd(pair[1]);
            n += 1;
        }
        y = &mut y[n..];
        if let (Some(&v), Some(o)) = (last.first(), y.first_mut()) {
            state.push_even(v);
            *o = output(&self.taps, state);
            state.odd_next = true;
            n += 1;
        }
        n
    }
}

/// Two decimators in series: `first` (ratio `R₁`) feeds `second` (ratio
/// `R₂`), for an overall ratio `R₁ R₂`. Nest for more stages:
/// `Cascade<A, Cascade<B, C>>`. State: the pair of stage states `(SA, SB)`.
///
/// Samples pass through one at a time, so no intermediate buffer is needed
/// and the output is identical for any split of the input. `max_output` is
/// `⌈len / (R₁ R₂)⌉`, which bounds every phase combination.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cascade<A, B> {
    /// The first (highest-rate) stage.
    pub first: A,
    /// The second stage.
    pub second: B,
}

impl<A, B> Cascade<A, B> {
    /// `first` followed by `second`.
    ///
    /// ```
    /// use airwaves_core::dsp::fir::{Decimate, Decimator, DecimatorState, Fir, SplitDecimate};
    /// use airwaves_core::dsp::halfband::{Cascade, HalfBand, HalfBandState};
    /// // ×2 half-band, then a ×3 FIR decimator: ×6 overall.
    /// let d = Cascade::new(
    ///     HalfBand::<f32, 4>::design(60.0),
    ///     Decimator::<_, 3>::new(Fir::new([1.0f32 / 3.0; 3])),
    /// );
    /// let mut s: (HalfBandState<f32, 4>, DecimatorState<f32, 3>) = Default::default();
    /// let mut y = [0.0f32; 2];
    /// assert_eq!(d.max_output(7), 2);
    /// assert_eq!(d.block(&mut s, &[0.0; 7], &mut y), 2);
    /// ```
    pub const fn new(first: A, second: B) -> Self {
        Self { first, second }
    }
}

impl<A: Decimate, B: Decimate> Decimate for Cascade<A, B> {
    const RATIO: usize = A::RATIO * B::RATIO;
}

impl<X, SA, SB, A, B> SplitDecimate<X, (SA, SB)> for Cascade<A, B>
where
    X: Copy + Default,
    A: SplitDecimate<X, SA>,
    B: SplitDecimate<X, SB>,
{
    #[inline]
    fn process(&self, state: &mut (SA, SB), x: X) -> Option<X> {
        self.first
            .process(&mut state.0, x)
            .and_then(|v| self.second.process(&mut state.1, v))
    }

    /// Runs `first` over chunks of `16 · R₁` inputs into a 16-sample stack
    /// buffer, then `second` over that, so each stage runs its own block
    /// loop (identical output to per-sample processing).
    #[track_caller]
    fn block(&self, state: &mut (SA, SB), x: &[X], y: &mut [X]) -> usize {
        const CHUNK: usize = 16;
        let need = self.max_output(x.len());
        if y.len() < need {
            output_too_short(y.len(), need);
        }
        let mut mid = [X::default(); CHUNK];
        let mut out = [X::default(); CHUNK];
        let mut n = 0;
        for xc in x.chunks(CHUNK * A::RATIO) {
            let k = self.first.block(&mut state.0, xc, &mut mid);
            let m = self.second.block(&mut state.1, &mid[..k], &mut out);
            // At most ⌈len / (R₁R₂)⌉ outputs in all, so this fits `y`.
            y[n..n + m].copy_from_slice(&out[..m]);
            n += m;
        }
        n
    }
}

#[cfg(test)]
mod test {
    extern crate std;

    use super::*;
    use crate::dsp::fir::{Decimator, DecimatorState, Fir};
    use crate::dsp::fixed::f32_to_q15;
    use crate::rng::Rng;
    use crate::testing::{db, fir_response, fit_tone, proptest_config};
    use crate::{C32, Ci16};
    use core::f64::consts::PI;
    use proptest::prelude::*;
    use std::vec::Vec;

    fn full_f64<T: Tap, const K: usize>(hb: &HalfBand<T, K>) -> Vec<f64> {
        let mut h = std::vec![T::ZERO; 4 * K - 1];
        hb.impulse_response(&mut h);
        h.iter().map(|&t| t.to_f64()).collect()
    }

    /// (pass-band ripple dB up to `fp`, stop-band attenuation dB from `fs`).
    fn spec(h: &[f64], fp: f64, fs: f64) -> (f64, f64) {
        let (mut ripple, mut stop) = (0.0f64, 0.0f64);
        let pts = if cfg!(miri) { 16 } else { 2000 };
        for i in 0..=pts {
            let f = 0.5 * i as f64 / pts as f64;
            let m = fir_response(h, f);
            if f <= fp {
                ripple = ripple.max((20.0 * libm::log10(m)).abs());
            } else if f >= fs {
                stop = stop.max(m);
            }
        }
        (ripple, -20.0 * libm::log10(stop))
    }

    // 31 taps at 70 dB: Δf ≈ 62.05 / (14.36 · 30) ≈ 0.144.
    const A: f64 = 70.0;
    const FP: f64 = 0.178;
    const FS: f64 = 0.322;

    #[test]
    fn test_design() {
        let f = HalfBand::<f32, 8>::design(A);
        let q = HalfBand::<i16, 8>::design(A);
        let mut g = [0.0; 8];
        halfband_f64(&mut g, design::kaiser_beta(A));
        let h64: Vec<f64> = {
            let mut h = std::vec![0.0; 31];
            for i in 0..8 {
                h[2 * i] = g[i];
                h[30 - 2 * i] = g[i];
            }
            h[15] = 0.5;
            h
        };
        let hq = full_f64(&q);
        for (name, h) in [
            ("f64", h64.clone()),
            ("f32", full_f64(&f)),
            ("q15", hq.clone()),
        ] {
            let (r, s) = spec(&h, FP, FS);
            assert!(s >= 68.0, "{name}: stop band {s} dB");
            assert!(r < 0.005, "{name}: ripple {r} dB");
            // Exact structure: centre ½, zeros at even offsets, symmetric.
            assert_eq!(h[15], 0.5);
            for j in 1..8 {
                assert_eq!(h[15 + 2 * j], 0.0);
                assert_eq!(h[15 - 2 * j], 0.0);
            }
            for k in 0..31 {
                assert_eq!(h[k], h[30 - k]);
            }
            // Half-band identity: H(f) + H(½ − f) = 1 (zero-phase amplitudes).
            let amp = |f: f64| {
                h.iter()
                    .enumerate()
                    .map(|(n, &v)| v * libm::cos(2.0 * PI * f * (n as f64 - 15.0)))
                    .sum::<f64>()
            };
            for f in [0.0, 0.05, 0.1, 0.2] {
                assert!((amp(f) + amp(0.5 - f) - 1.0).abs() < 1e-6, "{name} at {f}");
            }
        }
        let dc: i32 = q.taps().iter().map(|&v| 2 * v as i32).sum::<i32>() + 16384;
        assert_eq!(dc, 32768);
    }

    /// Attenuation (dB) of a real `amp` tone at `f` after the ×2 decimator
    /// `run`, measured at its alias `2f` on the output.
    fn alias_db(f: f64, amp: f64, n: usize, run: &mut dyn FnMut(&[f64]) -> Vec<f64>) -> f64 {
        let x: Vec<f64> = (0..n)
            .map(|t| amp * libm::cos(2.0 * PI * f * t as f64 + 0.7))
            .collect();
        let y = run(&x);
        let (a, _, _) = fit_tone(&y[32..], 2.0 * f);
        -20.0 * libm::log10(a / amp)
    }

    fn run_f32(hb: &HalfBand<f32, 8>) -> impl FnMut(&[f64]) -> Vec<f64> + '_ {
        move |x| {
            let xs: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let mut y = std::vec![0.0f32; hb.max_output(xs.len())];
            let k = hb.block(&mut HalfBandState::new(), &xs, &mut y);
            y[..k].iter().map(|&v| v as f64).collect()
        }
    }

    fn run_q15(hb: &HalfBand<i16, 8>) -> impl FnMut(&[f64]) -> Vec<f64> + '_ {
        move |x| {
            let xs: Vec<i16> = x.iter().map(|&v| f32_to_q15(v as f32)).collect();
            let mut y = std::vec![0i16; hb.max_output(xs.len())];
            let k = hb.block(&mut HalfBandState::new(), &xs, &mut y);
            y[..k].iter().map(|&v| v as f64 / 32768.0).collect()
        }
    }

    fn freqs(lo: f64, hi: f64, k: usize) -> impl Iterator<Item = f64> {
        (0..k).map(move |i| lo + (hi - lo) * i as f64 / (k - 1) as f64)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_alias_rejection() {
        let n = 2048;
        let f = HalfBand::<f32, 8>::design(A);
        let q = HalfBand::<i16, 8>::design(A);
        // Tones in [FS, ½) fold onto [0, ½ − FS] (the protected pass band).
        let (mut worst_f, mut worst_q) = (f64::INFINITY, f64::INFINITY);
        for fr in freqs(FS, 0.49, 15) {
            worst_f = worst_f.min(alias_db(fr, 0.5, n, &mut run_f32(&f)));
            worst_q = worst_q.min(alias_db(fr, 0.5, n, &mut run_q15(&q)));
        }
        assert!(worst_f >= 60.0, "f32 alias rejection {worst_f} dB");
        assert!(worst_q >= 55.0, "q15 alias rejection {worst_q} dB");
        // Pass band: flat to FP.
        let mut ripple = 0.0f64;
        for fr in freqs(0.0, FP, 9) {
            ripple = ripple.max(alias_db(fr, 0.5, n, &mut run_f32(&f)).abs());
            ripple = ripple.max(alias_db(fr, 0.5, n, &mut run_q15(&q)).abs());
        }
        assert!(ripple < 0.01, "pass-band ripple {ripple} dB");
    }

    /// Reference: the full filter in f64, every other output.
    fn reference(h: &[f64], x: &[f64]) -> Vec<f64> {
        (0..x.len())
            .step_by(2)
            .map(|t| {
                h.iter()
                    .enumerate()
                    .take(t + 1)
                    .map(|(k, &hk)| hk * x[t - k])
                    .sum()
            })
            .collect()
    }

    #[test]
    fn test_q15_snr_vs_f64() {
        let n = if cfg!(miri) { 128 } else { 4096 };
        let q = HalfBand::<i16, 8>::design(A);
        let h = full_f64(&q);
        let f0 = 0.0617;
        let xc: Vec<Ci16> = (0..n)
            .map(|t| {
                let w = 2.0 * PI * f0 * t as f64;
                Ci16::new(
                    f32_to_q15((0.5 * libm::cos(w)) as f32),
                    f32_to_q15((0.5 * libm::sin(w)) as f32),
                )
            })
            .collect();
        let rr = reference(
            &h,
            &xc.iter().map(|v| v.re as f64 / 32768.0).collect::<Vec<_>>(),
        );
        let ri = reference(
            &h,
            &xc.iter().map(|v| v.im as f64 / 32768.0).collect::<Vec<_>>(),
        );
        let mut y = std::vec![Ci16::new(0, 0); n / 2];
        assert_eq!(q.block(&mut HalfBandState::new(), &xc, &mut y), n / 2);
        let (mut s, mut e) = (0.0, 0.0);
        for ((v, a), b) in y.iter().zip(&rr).zip(&ri).skip(16) {
            s += a * a + b * b;
            let (dr, di) = (v.re as f64 / 32768.0 - a, v.im as f64 / 32768.0 - b);
            e += dr * dr + di * di;
        }
        let snr = db(s / e);
        assert!(snr >= 70.0, "SNR {snr} dB");
        // Real path, same taps.
        let xr: Vec<i16> = xc.iter().map(|v| v.re).collect();
        let mut yr = std::vec![0i16; n / 2];
        q.block(&mut HalfBandState::new(), &xr, &mut yr);
        assert!(yr.iter().zip(&y).all(|(a, b)| *a == b.re));
    }

    /// Half-band ≡ the full filter in a ×2 [`Decimator`]: f32 to 1e-5, Q15
    /// bit-exact.
    fn check_equivalence<const K: usize>(seed: u64) {
        let n = if cfg!(miri) { 24 } else { 500 };
        let mut rng = Rng::new(seed);
        let f = HalfBand::<f32, K>::design(60.0);
        let q = HalfBand::<i16, K>::design(60.0);
        let mut hf = [0.0f32; 64];
        let mut hq = [0i16; 64];
        f.impulse_response(&mut hf[..4 * K - 1]);
        q.impulse_response(&mut hq[..4 * K - 1]);
        let df = Decimator::<_, 2>::new(Fir::new(hf));
        let dq = Decimator::<_, 2>::new(Fir::new(hq));
        let x: Vec<C32> = (0..n)
            .map(|_| C32::new(rng.normal() as f32 * 0.3, rng.normal() as f32 * 0.3))
            .collect();
        let xq: Vec<Ci16> = x
            .iter()
            .map(|v| Ci16::new(f32_to_q15(v.re), f32_to_q15(v.im)))
            .collect();
        let (mut s1, mut s2) = (HalfBandState::new(), DecimatorState::<C32, 64>::new());
        let (mut q1, mut q2) = (HalfBandState::new(), DecimatorState::<Ci16, 64>::new());
        for (&v, &vq) in x.iter().zip(&xq) {
            let a = f.process(&mut s1, v);
            let b = df.process(&mut s2, v);
            assert_eq!(a.is_some(), b.is_some());
            if let (Some(a), Some(b)) = (a, b) {
                assert!((a - b).l1_norm() < 1e-5, "{a} vs {b}");
            }
            assert_eq!(q.process(&mut q1, vq), dq.process(&mut q2, vq));
        }
    }

    #[test]
    fn test_equivalence() {
        check_equivalence::<1>(1);
        check_equivalence::<3>(3);
        if !cfg!(miri) {
            check_equivalence::<2>(2);
            check_equivalence::<8>(4);
            check_equivalence::<16>(5);
        }
    }

    #[test]
    fn test_saturation() {
        // Gain-1 filter with overshoot: a full-scale step overshoots and
        // must saturate, not wrap.
        let q = HalfBand::<i16, 4>::design(60.0);
        let x = [
            i16::MIN,
            i16::MIN,
            i16::MAX,
            i16::MAX,
            i16::MAX,
            i16::MAX,
            i16::MAX,
            i16::MAX,
        ];
        let mut y = [0i16; 64];
        let mut xs = std::vec::Vec::new();
        for _ in 0..8 {
            xs.extend_from_slice(&x);
        }
        let k = q.block(&mut HalfBandState::new(), &xs, &mut y);
        assert_eq!(k, 32);
        assert!(y[..k].contains(&i16::MAX) || y[..k].contains(&i16::MIN));
    }

    #[test]
    #[should_panic(expected = "L1 norm")]
    fn test_headroom_panics() {
        let _ = HalfBand::new([16384i16, -16384]);
    }

    // 2.4 MS/s → 300 kS/s in three stages, protecting |f| ≤ 100 kHz.
    type Three<T> = Cascade<HalfBand<T, 4>, Cascade<HalfBand<T, 4>, HalfBand<T, 8>>>;
    type ThreeState<X> = (
        HalfBandState<X, 4>,
        (HalfBandState<X, 4>, HalfBandState<X, 8>),
    );

    fn three<T: Tap>() -> Three<T> {
        Cascade::new(
            HalfBand::design(A),
            Cascade::new(HalfBand::design(A), HalfBand::design(A)),
        )
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_cascade_alias_rejection() {
        let rate = 2.4e6;
        let n = 8192;
        let f = three::<f32>();
        let q = three::<i16>();
        let run = |fr: f64| -> (f64, f64, f64) {
            let f0 = fr / rate;
            let x: Vec<C32> = (0..n)
                .map(|t| {
                    let w = 2.0 * PI * f0 * t as f64;
                    C32::new((0.5 * libm::cos(w)) as f32, (0.5 * libm::sin(w)) as f32)
                })
                .collect();
            let xq: Vec<Ci16> = x
                .iter()
                .map(|v| Ci16::new(f32_to_q15(v.re), f32_to_q15(v.im)))
                .collect();
            let mut y = std::vec![C32::new(0.0, 0.0); n / 8];
            let mut yq = std::vec![Ci16::new(0, 0); n / 8];
            assert_eq!(
                f.block(&mut ThreeState::<C32>::default(), &x, &mut y),
                n / 8
            );
            assert_eq!(
                q.block(&mut ThreeState::<Ci16>::default(), &xq, &mut yq),
                n / 8
            );
            // Output frequency: the input's, folded at 300 kS/s.
            let fo = 8.0 * f0;
            let re: Vec<f64> = y[16..].iter().map(|v| v.re as f64).collect();
            let im: Vec<f64> = y[16..].iter().map(|v| v.im as f64).collect();
            let rq: Vec<f64> = yq[16..].iter().map(|v| v.re as f64 / 32768.0).collect();
            // A complex tone e^{jwt} fits as cos in re and sin in im; the
            // fitted amplitudes must agree for a clean complex tone.
            let (ar, ai) = (fit_tone(&re, fo).0, fit_tone(&im, fo).0);
            (
                ar.max(ai),
                fit_tone(&rq, fo).0,
                8.0 * f0 - libm::round(8.0 * f0),
            )
        };
        // Pass band |f| ≤ 100 kHz: flat.
        for fr in [-100e3, -60e3, -20e3, 10e3, 50e3, 100e3] {
            let (a, aq, _) = run(fr);
            assert!((20.0 * libm::log10(a / 0.5)).abs() < 0.01, "{fr}: {a}");
            assert!((20.0 * libm::log10(aq / 0.5)).abs() < 0.01, "{fr}: {aq}");
        }
        // Everything that folds onto |f| ≤ 100 kHz (but not the pass band
        // itself) from ±1.2 MHz: ≥ 60 dB (f32) / 55 dB (Q15) down.
        let mut worst = (f64::INFINITY, f64::INFINITY);
        let mut count = 0;
        for i in 0..=96 {
            let fr = -1.2e6 + 25e3 * i as f64 + 1.3e3;
            let folded = fr - 300e3 * libm::round(fr / 300e3);
            if fr.abs() <= 200e3 || folded.abs() > 100e3 {
                continue;
            }
            let (a, aq, fo) = run(fr);
            assert!((fo * 300e3 - folded).abs() < 1.0);
            worst.0 = worst.0.min(-20.0 * libm::log10(a / 0.5));
            worst.1 = worst.1.min(-20.0 * libm::log10(aq / 0.5));
            count += 1;
        }
        assert!(count >= 40);
        assert!(
            worst.0 >= 60.0,
            "f32 cascade alias rejection {} dB",
            worst.0
        );
        assert!(
            worst.1 >= 55.0,
            "q15 cascade alias rejection {} dB",
            worst.1
        );
    }

    #[test]
    fn test_cascade_matches_stages() {
        let n: usize = if cfg!(miri) { 64 } else { 1000 };
        let q = three::<i16>();
        let mut rng = Rng::new(9);
        let x: Vec<i16> = (0..n).map(|_| (rng.normal() * 5000.0) as i16).collect();
        let mut y = std::vec![0i16; n.div_ceil(8)];
        let k = q.block(&mut ThreeState::<i16>::default(), &x, &mut y);
        let mut a = std::vec![0i16; n.div_ceil(2)];
        let ka = q.first.block(&mut HalfBandState::new(), &x, &mut a);
        let mut b = std::vec![0i16; ka.div_ceil(2)];
        let kb = q
            .second
            .first
            .block(&mut HalfBandState::new(), &a[..ka], &mut b);
        let mut c = std::vec![0i16; kb.div_ceil(2)];
        let kc = q
            .second
            .second
            .block(&mut HalfBandState::new(), &b[..kb], &mut c);
        assert_eq!(k, kc);
        assert_eq!(y[..k], c[..kc]);
    }

    // -- block-split invariance ------------------------------------------

    fn split_points(len: usize, cuts: &[usize]) -> Vec<usize> {
        let mut c: Vec<usize> = cuts.iter().map(|&c| c % (len + 1)).collect();
        c.push(0);
        c.push(len);
        c.sort_unstable();
        c
    }

    fn split_dec<X: Sample, D: SplitDecimate<X, S>, S: Default>(d: &D, x: &[X], cuts: &[usize]) {
        let mut whole = std::vec![X::ZERO; d.max_output(x.len())];
        let k = d.block(&mut S::default(), x, &mut whole);
        assert_eq!(k, x.len().div_ceil(D::RATIO));
        let mut parts = Vec::new();
        let mut s = S::default();
        for w in split_points(x.len(), cuts).windows(2) {
            let mut y = std::vec![X::ZERO; d.max_output(w[1] - w[0])];
            let k = d.block(&mut s, &x[w[0]..w[1]], &mut y);
            parts.extend_from_slice(&y[..k]);
        }
        assert_eq!(&whole[..k], &parts[..]);
        let mut s = S::default();
        let one: Vec<X> = x.iter().filter_map(|&v| d.process(&mut s, v)).collect();
        assert_eq!(one, parts);
    }

    fn cuts() -> impl Strategy<Value = Vec<usize>> {
        proptest::collection::vec(0usize..1000, 0..6)
    }

    /// Cheap half-band taps (side taps growing towards the centre, unit DC
    /// gain): the split-invariance properties need no designed response,
    /// and designs are slow under miri.
    fn hb<T: Tap, const K: usize>() -> HalfBand<T, K> {
        let mut g = [0.0f64; K];
        for (i, v) in g.iter_mut().enumerate() {
            *v = (i + 1) as f64;
        }
        let s: f64 = g.iter().sum();
        let mut t = [T::ZERO; K];
        T::from_f64_sum(&g.map(|v| 0.25 * v / s), &mut t);
        HalfBand::new(t)
    }

    fn three_cheap<T: Tap>() -> Three<T> {
        Cascade::new(hb(), Cascade::new(hb(), hb()))
    }

    /// Input length for the properties (shorter under miri).
    const MAX_LEN: usize = if cfg!(miri) { 32 } else { 300 };

    proptest! {
        #![proptest_config(proptest_config())]

        #[test]
        fn prop_split_halfband_f32(x in proptest::collection::vec(-1.0f32..1.0, 0..MAX_LEN), c in cuts()) {
            split_dec::<f32, _, HalfBandState<f32, 5>>(&hb::<f32, 5>(), &x, &c);
            let xc: Vec<C32> = x.chunks_exact(2).map(|v| C32::new(v[0], v[1])).collect();
            split_dec::<C32, _, HalfBandState<C32, 2>>(&hb::<f32, 2>(), &xc, &c);
            split_dec::<C32, _, ThreeState<C32>>(&three_cheap::<f32>(), &xc, &c);
        }

        #[test]
        fn prop_split_halfband_q15(x in proptest::collection::vec(any::<i16>(), 0..MAX_LEN), c in cuts()) {
            split_dec::<i16, _, HalfBandState<i16, 1>>(&hb::<i16, 1>(), &x, &c);
            split_dec::<i16, _, ThreeState<i16>>(&three_cheap::<i16>(), &x, &c);
            let xc: Vec<Ci16> = x.chunks_exact(2).map(|v| Ci16::new(v[0], v[1])).collect();
            split_dec::<Ci16, _, HalfBandState<Ci16, 6>>(&hb::<i16, 6>(), &xc, &c);
            // A mixed cascade: half-band then a ×3 FIR decimator.
            let mixed = Cascade::new(
                hb::<i16, 3>(),
                Decimator::<_, 3>::new(Fir::new([9000i16, -12000, 20000, 5000, 1000, -300, 7])),
            );
            split_dec::<Ci16, _, (HalfBandState<Ci16, 3>, DecimatorState<Ci16, 7>)>(&mixed, &xc, &c);
        }
    }
}
