//! Rational polyphase resampler: interpolate by `L`, low-pass, decimate by
//! `M`, for `f32`/Q15, real and complex samples.
//!
//! # Maths
//!
//! Conceptually the input `x` is upsampled by `L` (`L − 1` zeros between
//! samples), filtered by a low-pass prototype `h` of length `L·K` at the
//! rate `L·fs`, and every `M`-th sample is kept. Only the non-zero products
//! are computed: output `n` falls on upsampled time `nM`, so with
//! `i = ⌊nM/L⌋` (newest input used) and phase `p = nM mod L`,
//!
//! `y[n] = Σ_{j=0}^{K−1} h[p + L·j] · x[i − j]`.
//!
//! The `L` phases `h[p], h[p+L], …` (the polyphase branches) are stored
//! contiguously and time-reversed, so each output is one `K`-tap dot product
//! over the `K` newest inputs. A *phase accumulator* replaces the division
//! per output: after each output `p += M mod L` and `i += M div L`, plus a
//! carry of one input when `p` reaches `L`. The output rate is `fs·L/M`; the
//! group delay is `(L·K − 1) / (2L)` input samples.
//!
//! # Prototype
//!
//! [`design_f32`] / [`design_q15`] write a Kaiser-windowed sinc
//! ([`crate::dsp::design`]) with cutoff `fc = min(1/L, 1/M)/2` cycles per
//! upsampled sample (−6 dB at the lower of the input and output Nyquist
//! frequencies), DC gain `L` (unity per branch), and Kaiser `β` for the
//! requested stop-band attenuation. The length `L·K` sets the transition
//! width `Δ` by Kaiser's formula, centred on `fc`; [`taps_per_phase`] picks
//! the smallest `K` for a wanted pass-band edge. Tones between the output
//! Nyquist frequency and the stop edge `fc + Δ/2` alias into the transition
//! band above the pass edge; tones beyond it are attenuated by the stop-band
//! attenuation.
//!
//! Measured (tests), with `atten_db = 80` and a pass edge of 15 kHz:
//!
//! | conversion | alias rejection f32 / Q15 | ripple to 15 kHz | 3.1 kHz tone SINAD f32 / Q15 |
//! |---|---|---|---|
//! | 240 kHz → 48 kHz | 85.4 / 74.5 dB | ≤ 0.003 dB | 146.2 / 91.3 dB |
//! | 250 kHz → 44.1 kHz | 83.8 / 79.0 dB | ≤ 0.002 dB | 113.5 / 79.0 dB |
//! | 240 kHz → 44.1 kHz | | ≤ 0.001 dB | 115.5 / 78.1 dB |
//! | 48 kHz → 44.1 kHz | | ≤ 0.002 dB | 87.8 / 82.4 dB |
//!
//! (alias rejection: output power of stop-band tones relative to a pass-band
//! tone of the same amplitude; the Q15 figures are limited by the
//! quantisation of the taps.)
//!
//! # Buffers
//!
//! The caller owns the taps (`&[T]` of [`required_taps`] `= L·K` entries)
//! and the history: [`ResamplerState<X, N>`] keeps a linear buffer of `N ≥ K`
//! samples into which inputs are copied in bulk; when it fills, the newest
//! `K − 1` samples move to the front. That costs `K − 1` copies per
//! `N − K + 1` inputs, so `N` of `2K` to `8K` is a good choice.
//!
//! # Examples of ratios
//!
//! | conversion | `L/M` | `K` (80 dB, 15 kHz pass) | taps |
//! |---|---|---|---|
//! | 240 kHz → 48 kHz | 1/5 | 68 | 68 |
//! | 250 kHz → 44.1 kHz | 441/2500 | 89 | 39 249 |
//! | 240 kHz → 44.1 kHz | 147/800 | 86 | 12 642 |
//! | 48 kHz → 44.1 kHz | 147/160 | 18 | 2 646 |

use super::design::{kaiser_beta, kaiser_len, kaiser_window, sinc};
use super::fixed::{round_shift, sat16};
use crate::{C32, Ci16};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for i16 {}
    impl Sealed for crate::C32 {}
    impl Sealed for crate::Ci16 {}
}

/// A tap type: `f32`, or `i16` in Q15. Sealed.
pub trait Tap: sealed::Sealed + Copy {
    /// Validate one polyphase branch at construction (Q15: `Σ|h| ≤ 65535`
    /// so the `i32` accumulator cannot overflow).
    ///
    /// # Panics
    /// Panics if the branch is unusable.
    fn check_branch(branch: &[Self]);
}

impl Tap for f32 {
    fn check_branch(_: &[Self]) {}
}

impl Tap for i16 {
    fn check_branch(branch: &[Self]) {
        let l1: u32 = branch.iter().map(|t| t.unsigned_abs() as u32).sum();
        assert!(l1 <= 65535, "Q15 branch with Σ|taps| > 2 could overflow");
    }
}

/// A sample type the resampler can filter with taps of type `T`:
/// `f32` and [`C32`] with `f32` taps, `i16` and [`Ci16`] (Q15) with `i16`
/// (Q15) taps. Sealed.
pub trait Sample<T: Tap>: sealed::Sealed + Copy + Default {
    /// `Σ h[k] · x[k]` over equal-length slices. Q15: `i32` accumulation,
    /// rounded (half up) and saturated to Q15.
    fn dot(h: &[T], x: &[Self]) -> Self;
}

// The kernels below are written in the shapes LLVM vectorises well on SSE2,
// NEON and Helium: four `f32` lanes summed in a fixed order (so results do
// not depend on the target), plain `i32` integer sums (exact, so any lane
// split gives the same result, and `pmaddwd`/`SMLAD` apply).

impl Sample<f32> for f32 {
    #[inline]
    fn dot(h: &[f32], x: &[f32]) -> f32 {
        let mut acc = [0.0f32; 4];
        let (hc, xc) = (h.chunks_exact(4), x.chunks_exact(4));
        let (hr, xr) = (hc.remainder(), xc.remainder());
        for (h, x) in hc.zip(xc) {
            for i in 0..4 {
                acc[i] += h[i] * x[i];
            }
        }
        let mut s = acc[0] + acc[1] + acc[2] + acc[3];
        for (h, x) in hr.iter().zip(xr) {
            s += h * x;
        }
        s
    }
}

impl Sample<f32> for C32 {
    #[inline]
    fn dot(h: &[f32], x: &[C32]) -> C32 {
        let (mut re, mut im) = (0.0f32, 0.0f32);
        for (h, x) in h.iter().zip(x) {
            re += h * x.re;
            im += h * x.im;
        }
        C32::new(re, im)
    }
}

impl Sample<i16> for i16 {
    #[inline]
    fn dot(h: &[i16], x: &[i16]) -> i16 {
        // Cannot overflow: every branch has Σ|h| ≤ 65535 (checked by
        // `Resampler::new`), so |acc| ≤ 65535 · 32768 < 2³¹ − 2¹⁴. Sums of
        // 16 products per chunk map onto `pmaddwd`/`SMLAD`.
        let (hc, xc) = (h.chunks_exact(16), x.chunks_exact(16));
        let (hr, xr) = (hc.remainder(), xc.remainder());
        let mut acc = 0i32;
        for (h, x) in hc.zip(xc) {
            let mut t = 0i32;
            for j in 0..16 {
                t = t.wrapping_add(h[j] as i32 * x[j] as i32);
            }
            acc = acc.wrapping_add(t);
        }
        let acc = hr
            .iter()
            .zip(xr)
            .map(|(&h, &x)| h as i32 * x as i32)
            .fold(acc, |a, p| a.wrapping_add(p));
        sat16(round_shift(acc, 15))
    }
}

impl Sample<i16> for Ci16 {
    #[inline]
    fn dot(h: &[i16], x: &[Ci16]) -> Ci16 {
        let (mut re, mut im) = (0i32, 0i32);
        for (&h, x) in h.iter().zip(x) {
            re = re.wrapping_add(h as i32 * x.re as i32);
            im = im.wrapping_add(h as i32 * x.im as i32);
        }
        Ci16::new(sat16(round_shift(re, 15)), sat16(round_shift(im, 15)))
    }
}

/// The number of prototype taps for `L` phases of `taps_per_phase` taps:
/// `L × taps_per_phase`, the length of the tap storage for [`design_f32`],
/// [`design_q15`] and [`Resampler`].
///
/// ```
/// use airwaves_core::dsp::resample::required_taps;
/// let taps = [0.0f32; required_taps(147, 18)];
/// assert_eq!(taps.len(), 2646);
/// ```
pub const fn required_taps(l: u32, taps_per_phase: usize) -> usize {
    l as usize * taps_per_phase
}

/// The smallest taps per phase `K` for which the prototype of
/// [`design_f32`]/[`design_q15`] reaches `atten_db` of stop-band attenuation
/// (Kaiser's estimate) with its pass band flat up to `pass` × the lower of
/// the input and output Nyquist frequencies (0 < `pass` < 1). The stop band
/// then starts at `(2 − pass)` × that Nyquist frequency.
///
/// # Panics
/// Panics if `l` or `m` is 0 or `pass` is not inside (0, 1).
///
/// ```
/// use airwaves_core::dsp::resample::taps_per_phase;
/// // 250 kHz → 44.1 kHz, flat to 15 kHz, 80 dB.
/// assert_eq!(taps_per_phase(441, 2500, 80.0, 15.0 / 22.05), 89);
/// // 240 kHz → 48 kHz, flat to 15 kHz.
/// assert_eq!(taps_per_phase(1, 5, 80.0, 15.0 / 24.0), 68);
/// ```
pub fn taps_per_phase(l: u32, m: u32, atten_db: f64, pass: f64) -> usize {
    assert!(l > 0 && m > 0, "L and M must be positive");
    assert!(pass > 0.0 && pass < 1.0, "pass must be inside (0, 1)");
    let fc = cutoff(l, m);
    let n = kaiser_len(atten_db, 2.0 * fc * (1.0 - pass));
    n.div_ceil(l as usize)
}

/// Prototype cutoff in cycles per upsampled sample: `min(1/L, 1/M) / 2`.
fn cutoff(l: u32, m: u32) -> f64 {
    0.5 / l.max(m) as f64
}

/// Design parameters shared by the f32 and Q15 designs.
struct Proto {
    len: usize,
    fc: f64,
    beta: f64,
    scale: f64,
}

impl Proto {
    fn new(l: u32, m: u32, atten_db: f64, len: usize) -> Self {
        check_design(l, m, len);
        let mut p = Proto {
            len,
            fc: cutoff(l, m),
            beta: kaiser_beta(atten_db),
            scale: 1.0,
        };
        let sum: f64 = (0..len).map(|n| p.raw(n)).sum();
        p.scale = l as f64 / sum;
        p
    }

    /// Windowed sinc tap `n` before scaling.
    fn raw(&self, n: usize) -> f64 {
        let t = n as f64 - (self.len - 1) as f64 * 0.5;
        2.0 * self.fc * sinc(2.0 * self.fc * t) * kaiser_window(n, self.len, self.beta)
    }

    /// Tap `n`, scaled to DC gain `L`.
    fn tap(&self, n: usize) -> f64 {
        self.raw(n) * self.scale
    }
}

#[cold]
#[inline(never)]
fn check_design(l: u32, m: u32, len: usize) {
    assert!(l > 0 && m > 0, "L and M must be positive");
    assert!(
        len > 0 && len % l as usize == 0,
        "tap storage must be a non-zero multiple of L"
    );
}

/// Design the polyphase prototype into `taps` (`f32`), `taps.len() = L·K`
/// (see [`required_taps`]).
///
/// Kaiser-windowed sinc, cutoff `min(1/L, 1/M)/2` cycles per upsampled
/// sample, `β = kaiser_beta(atten_db)`, DC gain `L` (designed in `f64`).
/// Written in polyphase order: branch `p` occupies `taps[p·K .. (p+1)·K]`,
/// time-reversed (`taps[p·K + K−1−j] = h[p + L·j]`). Runs once at set-up:
/// `O(L·K)` Bessel series evaluations.
///
/// # Panics
/// Panics if `l` or `m` is 0, or `taps.len()` is not a non-zero multiple of
/// `l`.
///
/// ```
/// use airwaves_core::dsp::resample::{design_f32, required_taps, Resampler};
/// let mut taps = [0.0f32; required_taps(1, 68)];
/// design_f32(1, 5, 80.0, &mut taps); // 240 kHz → 48 kHz
/// let r = Resampler::new(1, 5, &taps);
/// assert_eq!(r.taps_per_phase(), 68);
/// ```
pub fn design_f32(l: u32, m: u32, atten_db: f64, taps: &mut [f32]) {
    let proto = Proto::new(l, m, atten_db, taps.len());
    let k = taps.len() / l as usize;
    for (p, branch) in taps.chunks_exact_mut(k).enumerate() {
        for (j, t) in branch.iter_mut().rev().enumerate() {
            *t = proto.tap(p + l as usize * j) as f32;
        }
    }
}

/// Design the polyphase prototype into `taps` in Q15 (`i16`, 32768 ≙ 1.0),
/// `taps.len() = L·K`; layout and design as [`design_f32`].
///
/// Each branch is rounded to nearest, then its taps nearest the centre are
/// nudged by ±1 LSB so the branch's Q15 sum equals the rounded `f64` sum
/// (each branch's DC gain survives quantisation).
///
/// # Panics
/// Panics if `l` or `m` is 0, or `taps.len()` is not a non-zero multiple of
/// `l`.
///
/// ```
/// use airwaves_core::dsp::resample::{design_q15, required_taps, Resampler};
/// let mut taps = [0i16; required_taps(147, 18)];
/// design_q15(147, 160, 80.0, &mut taps); // 48 kHz → 44.1 kHz
/// let r = Resampler::new(147, 160, &taps);
/// assert_eq!(r.max_output(160), 147);
/// ```
pub fn design_q15(l: u32, m: u32, atten_db: f64, taps: &mut [i16]) {
    let proto = Proto::new(l, m, atten_db, taps.len());
    let k = taps.len() / l as usize;
    for (p, branch) in taps.chunks_exact_mut(k).enumerate() {
        let mut want = 0.0;
        let mut have: i64 = 0;
        for (j, t) in branch.iter_mut().rev().enumerate() {
            let v = proto.tap(p + l as usize * j) * 32768.0;
            *t = libm::round(v).clamp(i16::MIN as f64, i16::MAX as f64) as i16;
            want += v;
            have += *t as i64;
        }
        let mut err = libm::round(want) as i64 - have;
        // Spread the residual one LSB at a time, alternating either side of
        // the centre, where the relative change is smallest.
        let centre = (k - 1) / 2;
        let mut step = 0;
        while err != 0 && step < 2 * k {
            let off = step / 2;
            let idx = if step % 2 == 0 {
                centre.checked_sub(off)
            } else {
                Some(centre + 1 + off)
            };
            step += 1;
            if let Some(t) = idx.and_then(|i| branch.get_mut(i)) {
                let nv = *t as i64 + err.signum();
                if (i16::MIN as i64..=i16::MAX as i64).contains(&nv) {
                    *t = nv as i16;
                    err -= err.signum();
                }
            }
        }
    }
}

/// A rational `L/M` polyphase resampler over caller-owned taps (see the
/// [module docs](self)): configuration only; the history and phase live in
/// a [`ResamplerState`].
///
/// `T` is the tap type: `f32` (for `f32`/[`C32`] samples) or `i16` Q15 (for
/// `i16`/[`Ci16`] samples). `L/M` need not be in lowest terms, but a common
/// factor wastes work.
#[derive(Clone, Copy, Debug)]
pub struct Resampler<'a, T> {
    taps: &'a [T],
    l: u32,
    m: u32,
    k: usize,
    /// `M div L`: whole inputs advanced per output.
    step: usize,
    /// `M mod L`: phase advance per output.
    dphase: u32,
}

#[cold]
#[inline(never)]
fn check_new(l: u32, m: u32, len: usize) {
    assert!(l > 0 && m > 0, "L and M must be positive");
    assert!(
        len > 0 && len % l as usize == 0,
        "tap count must be a non-zero multiple of L"
    );
}

impl<'a, T: Tap> Resampler<'a, T> {
    /// A resampler by `l/m` over taps in the polyphase layout of
    /// [`design_f32`] / [`design_q15`] (`taps.len() = L·K`).
    ///
    /// With Q15 (`i16`) taps, samples are Q15, products accumulate in `i32`
    /// and the sum is rounded to nearest and saturated.
    ///
    /// # Panics
    /// Panics if `l` or `m` is 0, `taps.len()` is not a non-zero multiple
    /// of `l`, or (Q15) some branch has `Σ|taps| > 65535` (2.0), which could
    /// overflow the `i32` accumulator (never the case for [`design_q15`]
    /// low-passes).
    ///
    /// ```
    /// use airwaves_core::dsp::resample::{design_f32, design_q15, Resampler, ResamplerState};
    /// let mut taps = [0.0f32; 147 * 18];
    /// design_f32(147, 160, 80.0, &mut taps);
    /// let r = Resampler::new(147, 160, &taps); // 48 kHz → 44.1 kHz
    /// let mut s = ResamplerState::<f32, 64>::new();
    /// let x = [0.25f32; 480];
    /// let mut y = [0.0f32; 441];
    /// assert_eq!(r.process(&mut s, &x, &mut y), 441);
    /// assert!((y[440] - 0.25).abs() < 1e-4); // DC passes at unity gain
    ///
    /// let mut taps = [0i16; 68];
    /// design_q15(1, 5, 80.0, &mut taps);
    /// let r = Resampler::new(1, 5, &taps); // 240 kHz → 48 kHz
    /// let mut s = ResamplerState::<i16, 256>::new();
    /// let x = [8192i16; 500];
    /// let mut y = [0i16; 100];
    /// assert_eq!(r.process(&mut s, &x, &mut y), 100);
    /// assert!((y[99] - 8192).abs() <= 1);
    /// ```
    pub fn new(l: u32, m: u32, taps: &'a [T]) -> Self {
        check_new(l, m, taps.len());
        let k = taps.len() / l as usize;
        for branch in taps.chunks_exact(k) {
            T::check_branch(branch);
        }
        Self {
            taps,
            l,
            m,
            k,
            step: (m / l) as usize,
            dphase: m % l,
        }
    }

    /// The interpolation factor `L`.
    pub fn l(&self) -> u32 {
        self.l
    }

    /// The decimation factor `M`.
    pub fn m(&self) -> u32 {
        self.m
    }

    /// Taps per phase `K` (the history length each output uses).
    pub fn taps_per_phase(&self) -> usize {
        self.k
    }

    /// An upper bound on the outputs produced from `len` inputs, whatever
    /// the state: `⌈len·L/M⌉`. An output slice of this length is always
    /// enough for [`process`](Self::process).
    pub fn max_output(&self, len: usize) -> usize {
        (len as u64 * self.l as u64).div_ceil(self.m as u64) as usize
    }

    /// Resample `x`, writing the outputs to the front of `y`; returns how
    /// many were written. Over a stream the total output count after `T`
    /// inputs is exactly `⌈T·L/M⌉` and does not depend on how the input is
    /// split into blocks, nor does any output value.
    ///
    /// # Panics
    /// Panics if `y.len() < self.max_output(x.len())` or the state's history
    /// capacity `N` is below [`taps_per_phase`](Self::taps_per_phase).
    pub fn process<X: Sample<T>, const N: usize>(
        &self,
        state: &mut ResamplerState<X, N>,
        x: &[X],
        y: &mut [X],
    ) -> usize {
        let k = self.k;
        if k > N || y.len() < self.max_output(x.len()) {
            process_panic(k, N);
        }
        let mut out = y.iter_mut();
        let mut written = 0;
        let mut x = x;
        loop {
            // Every output whose newest input is in the buffer.
            while state.next <= state.w {
                let off = state.phase as usize * k;
                let v = X::dot(
                    &self.taps[off..off + k],
                    &state.buf[state.next - k..state.next],
                );
                if let Some(o) = out.next() {
                    *o = v;
                    written += 1;
                }
                state.next += self.step;
                state.phase += self.dphase;
                if state.phase >= self.l {
                    state.phase -= self.l;
                    state.next += 1;
                }
            }
            if x.is_empty() {
                break;
            }
            if state.w == N {
                // Keep the newest K − 1 samples: every later window starts
                // at or after them (next > w, so next − K ≥ w − K + 1).
                state.buf.copy_within(N + 1 - k.., 0);
                state.w = k - 1;
                state.next -= N + 1 - k;
            }
            let n = (N - state.w).min(x.len());
            let (now, rest) = x.split_at(n);
            state.buf[state.w..state.w + n].copy_from_slice(now);
            state.w += n;
            x = rest;
        }
        written
    }
}

#[cold]
#[inline(never)]
fn process_panic(k: usize, n: usize) -> ! {
    if k > n {
        panic!("history capacity N = {n} is below taps per phase K = {k}");
    }
    panic!("output slice shorter than max_output(x.len())");
}

/// State of a [`Resampler`]: input history (capacity `N` samples, at least
/// the taps per phase `K`; `2K ..= 8K` recommended), the phase `p` and the
/// position of the next output's window.
///
/// A state belongs to one resampler (or to resamplers with the same `L`
/// and `K`); [`reset`](Self::reset) it before using it with another.
#[derive(Clone, Debug)]
pub struct ResamplerState<X, const N: usize> {
    buf: [X; N],
    /// Samples in `buf` (the next write position); initially `N` zeros.
    w: usize,
    /// End (exclusive) in `buf` of the next output's window, i.e. one past
    /// its newest input; always `> w` between calls.
    next: usize,
    /// Current phase `p ∈ 0..L`.
    phase: u32,
}

impl<X: Copy + Default, const N: usize> ResamplerState<X, N> {
    /// Zero history, phase 0: the first output is produced by the first
    /// input.
    ///
    /// ```
    /// use airwaves_core::dsp::resample::ResamplerState;
    /// use airwaves_core::C32;
    /// let s = ResamplerState::<C32, 128>::new();
    /// assert_eq!(s.phase(), 0);
    /// ```
    pub fn new() -> Self {
        const { assert!(N > 0, "history capacity N must be positive") };
        Self {
            buf: [X::default(); N],
            w: N,
            // After the first shift (which keeps K − 1 zeros), this is K:
            // the first output ends at the first input.
            next: N + 1,
            phase: 0,
        }
    }

    /// Forget the history and phase (as [`new`](Self::new)).
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// The current polyphase branch `p ∈ 0..L`, the phase of the next
    /// output in units of `1/L` input samples.
    pub fn phase(&self) -> u32 {
        self.phase
    }
}

impl<X: Copy + Default, const N: usize> Default for ResamplerState<X, N> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod test {
    extern crate std;

    use super::*;
    use crate::testing::{fit_tone, proptest_config, tone_sinad_db};
    use core::f64::consts::PI;
    use proptest::prelude::*;
    use std::vec::Vec;

    const ATTEN: f64 = 80.0;
    /// History capacity used by the tests (≥ 2K for every case).
    const HIST: usize = 256;

    /// One audio conversion: rates in Hz and the ratio.
    struct Case {
        fs_in: f64,
        fs_out: f64,
        l: u32,
        m: u32,
    }

    const C240_48: Case = Case {
        fs_in: 240e3,
        fs_out: 48e3,
        l: 1,
        m: 5,
    };
    const C250_441: Case = Case {
        fs_in: 250e3,
        fs_out: 44.1e3,
        l: 441,
        m: 2500,
    };
    const C240_441: Case = Case {
        fs_in: 240e3,
        fs_out: 44.1e3,
        l: 147,
        m: 800,
    };
    const C48_441: Case = Case {
        fs_in: 48e3,
        fs_out: 44.1e3,
        l: 147,
        m: 160,
    };

    impl Case {
        fn k(&self) -> usize {
            taps_per_phase(
                self.l,
                self.m,
                ATTEN,
                15e3 / (0.5 * self.fs_in.min(self.fs_out)),
            )
        }
        fn taps_f32(&self) -> Vec<f32> {
            let mut t = std::vec![0.0f32; required_taps(self.l, self.k())];
            design_f32(self.l, self.m, ATTEN, &mut t);
            t
        }
        fn taps_q15(&self) -> Vec<i16> {
            let mut t = std::vec![0i16; required_taps(self.l, self.k())];
            design_q15(self.l, self.m, ATTEN, &mut t);
            t
        }
        /// The stop-band edge in Hz: `(2 − pass)` × the lower Nyquist.
        fn stop_edge(&self) -> f64 {
            let nyq = 0.5 * self.fs_in.min(self.fs_out);
            2.0 * nyq - 15e3
        }
    }

    fn tone(f: f64, fs: f64, amp: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| amp * libm::sin(2.0 * PI * f / fs * i as f64 + 0.1))
            .collect()
    }

    /// Run the f32 resampler over `x` in blocks of 1000; skip the first
    /// `skip` outputs (the filter's start-up).
    fn run_f32(r: &Resampler<f32>, x: &[f64], skip: usize) -> Vec<f64> {
        let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let mut s = ResamplerState::<f32, HIST>::new();
        let mut y = std::vec![0.0f32; r.max_output(xf.len()) + xf.len() / 1000 + 1];
        let mut n = 0;
        for c in xf.chunks(1000) {
            n += r.process(&mut s, c, &mut y[n..]);
        }
        y[skip..n].iter().map(|&v| v as f64).collect()
    }

    fn run_q15(r: &Resampler<i16>, x: &[f64], skip: usize) -> Vec<f64> {
        let xq: Vec<i16> = x
            .iter()
            .map(|&v| libm::round(v * 32768.0).clamp(-32768.0, 32767.0) as i16)
            .collect();
        let mut s = ResamplerState::<i16, HIST>::new();
        let mut y = std::vec![0i16; r.max_output(xq.len()) + xq.len() / 1000 + 1];
        let mut n = 0;
        for c in xq.chunks(1000) {
            n += r.process(&mut s, c, &mut y[n..]);
        }
        y[skip..n].iter().map(|&v| v as f64 / 32768.0).collect()
    }

    fn rms(y: &[f64]) -> f64 {
        libm::sqrt(y.iter().map(|v| v * v).sum::<f64>() / y.len() as f64)
    }

    /// Alias rejection: output power of stop-band tones relative to a
    /// pass-band tone of the same amplitude. Returns the worst (smallest) dB.
    fn alias_rejection(c: &Case, run: &dyn Fn(&[f64], usize) -> Vec<f64>) -> f64 {
        let n = 30_000;
        let skip = 2 * c.k();
        let pass = rms(&run(&tone(1e3, c.fs_in, 0.5, n), skip));
        let mut worst = f64::INFINITY;
        let edge = c.stop_edge();
        let top = 0.5 * c.fs_in;
        for i in 0..12 {
            // From the stop edge to just below the input Nyquist frequency,
            // including frequencies that alias to DC and to 1 kHz.
            let f = match i {
                0 => edge + 10.0,
                1 => c.fs_out,
                2 => c.fs_out + 1e3,
                3 => 2.0 * c.fs_out - 1e3,
                _ => edge + (top - edge) * (i - 3) as f64 / 9.0 - 7.0,
            };
            if f >= top || f < edge {
                continue;
            }
            let a = rms(&run(&tone(f, c.fs_in, 0.5, n), skip));
            let rej = 20.0 * libm::log10(pass / a.max(1e-30));
            worst = worst.min(rej);
        }
        worst
    }

    /// Pass-band gain deviation (dB) over tones up to 15 kHz.
    fn ripple(c: &Case, run: &dyn Fn(&[f64], usize) -> Vec<f64>) -> f64 {
        let n = 20_000;
        let skip = 2 * c.k();
        let mut worst = 0.0f64;
        for i in 0..=15 {
            let f = 100.0 + (15e3 - 100.0) * i as f64 / 15.0;
            let y = run(&tone(f, c.fs_in, 0.5, n), skip);
            let (amp, _, _) = fit_tone(&y, f / c.fs_out);
            worst = worst.max((20.0 * libm::log10(amp / 0.5)).abs());
        }
        worst
    }

    fn sinad(c: &Case, run: &dyn Fn(&[f64], usize) -> Vec<f64>) -> f64 {
        let f = 3_141.0;
        let y = run(&tone(f, c.fs_in, 0.5, 20_000), 2 * c.k());
        tone_sinad_db(&y, f / c.fs_out)
    }

    fn check_case(name: &str, c: &Case, alias: bool) {
        let tf = c.taps_f32();
        let rf = Resampler::new(c.l, c.m, &tf);
        let tq = c.taps_q15();
        let rq = Resampler::new(c.l, c.m, &tq);
        let run_f = |x: &[f64], skip| run_f32(&rf, x, skip);
        let run_q = |x: &[f64], skip| run_q15(&rq, x, skip);

        let (sf, sq) = (sinad(c, &run_f), sinad(c, &run_q));
        std::eprintln!(
            "{name}: K = {}, SINAD f32 {sf:.1} dB, Q15 {sq:.1} dB",
            c.k()
        );
        assert!(sf >= 70.0, "{name}: f32 SINAD {sf} dB");
        assert!(sq >= 60.0, "{name}: Q15 SINAD {sq} dB");
        let (pf, pq) = (ripple(c, &run_f), ripple(c, &run_q));
        std::eprintln!("{name}: ripple to 15 kHz f32 {pf:.4} dB, Q15 {pq:.4} dB");
        assert!(pf <= 0.1, "{name}: f32 ripple {pf} dB");
        assert!(pq <= 0.1, "{name}: Q15 ripple {pq} dB");
        if alias {
            let (af, aq) = (alias_rejection(c, &run_f), alias_rejection(c, &run_q));
            std::eprintln!("{name}: alias rejection f32 {af:.1} dB, Q15 {aq:.1} dB");
            assert!(af >= 70.0, "{name}: f32 alias rejection {af} dB");
            assert!(aq >= 70.0, "{name}: Q15 alias rejection {aq} dB");
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_240k_48k() {
        check_case("240k→48k", &C240_48, true);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_250k_44k1() {
        check_case("250k→44.1k", &C250_441, true);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_240k_44k1() {
        check_case("240k→44.1k", &C240_441, false);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_48k_44k1() {
        check_case("48k→44.1k", &C48_441, false);
    }

    #[test]
    fn test_complex_tone() {
        // 48 kHz → 44.1 kHz on a complex tone: the f32 and Q15 complex
        // paths match the real paths on each component.
        let c = &C48_441;
        let (tf, tq) = if cfg!(miri) {
            (std::vec![0.25f32; 147 * 4], std::vec![8192i16; 147 * 4])
        } else {
            (c.taps_f32(), c.taps_q15())
        };
        let (rf, rq) = (Resampler::new(c.l, c.m, &tf), Resampler::new(c.l, c.m, &tq));
        let n = if cfg!(miri) { 40 } else { 4000 };
        let re = tone(-2e3, c.fs_in, 0.6, n);
        let im = tone(-2e3, c.fs_in, 0.6, n + 1);
        let xc: Vec<C32> = re
            .iter()
            .zip(&im)
            .map(|(&a, &b)| C32::new(a as f32, b as f32))
            .collect();
        let q = |v: f64| libm::round(v * 32768.0) as i16;
        let xq: Vec<Ci16> = re
            .iter()
            .zip(&im)
            .map(|(&a, &b)| Ci16::new(q(a), q(b)))
            .collect();

        let mut s = ResamplerState::<C32, HIST>::new();
        let mut y = std::vec![C32::new(0.0, 0.0); rf.max_output(n)];
        let cnt = rf.process(&mut s, &xc, &mut y);
        let mut sr = ResamplerState::<f32, HIST>::new();
        let mut yr = std::vec![0.0f32; rf.max_output(n)];
        let xr: Vec<f32> = xc.iter().map(|c| c.re).collect();
        assert_eq!(rf.process(&mut sr, &xr, &mut yr), cnt);
        for (a, b) in y.iter().zip(&yr).take(cnt) {
            assert!((a.re - b).abs() <= 1e-6);
        }

        let mut s = ResamplerState::<Ci16, HIST>::new();
        let mut y = std::vec![Ci16::new(0, 0); rq.max_output(n)];
        assert_eq!(rq.process(&mut s, &xq, &mut y), cnt);
        let mut sr = ResamplerState::<i16, HIST>::new();
        let mut yr = std::vec![0i16; rq.max_output(n)];
        let xr: Vec<i16> = xq.iter().map(|c| c.im).collect();
        assert_eq!(rq.process(&mut sr, &xr, &mut yr), cnt);
        for (a, b) in y.iter().zip(&yr).take(cnt) {
            assert_eq!(a.im, *b);
        }
    }

    #[test]
    fn test_output_count() {
        let taps = [0.5f32; 3 * 4];
        for (l, m) in [(3, 2), (3, 7), (3, 3), (3, 1)] {
            let r = Resampler::new(l, m, &taps);
            let mut s = ResamplerState::<f32, 9>::new();
            let mut total = 0;
            let mut y = [0.0f32; 64];
            for t in 1..=40usize {
                let n = r.process(&mut s, &[1.0], &mut y);
                assert!(n <= r.max_output(1));
                total += n;
                assert_eq!(
                    total,
                    (t * l as usize).div_ceil(m as usize),
                    "{l}/{m} after {t}"
                );
            }
        }
    }

    #[test]
    fn test_q15_branch_dc() {
        // Each Q15 branch sums to its rounded f64 DC gain (the f32 design's
        // branch sums agree with f64 to ~1e-7), and a DC input then comes
        // out as exactly that gain times the input, rounded.
        let (l, m, k) = (4u32, 3u32, 6usize);
        let mut tq = [0i16; 24];
        design_q15(l, m, 60.0, &mut tq);
        let mut tf = [0.0f32; 24];
        design_f32(l, m, 60.0, &mut tf);
        let mut gains = [0i32; 4];
        for (p, (bq, bf)) in tq.chunks_exact(k).zip(tf.chunks_exact(k)).enumerate() {
            let sq: i32 = bq.iter().map(|&v| v as i32).sum();
            let sf: f64 = bf.iter().map(|&v| v as f64 * 32768.0).sum();
            assert_eq!(sq as f64, libm::round(sf), "branch {p}");
            assert!((sq - 32768).abs() < 100, "branch {p}: {sq}");
            gains[p] = sq;
        }
        let r = Resampler::new(l, m, &tq);
        let mut s = ResamplerState::<i16, 12>::new();
        let mut y = [0i16; 64];
        let n = r.process(&mut s, &[-20000; 40], &mut y);
        for (i, &v) in y[..n].iter().enumerate().skip(8) {
            let g = gains[(i * m as usize) % l as usize];
            assert_eq!(v as i32, round_shift(g * -20000, 15), "output {i}");
        }
    }

    #[test]
    #[should_panic(expected = "history capacity")]
    fn test_capacity_panics() {
        let taps = [0.1f32; 8];
        let r = Resampler::new(1, 2, &taps);
        let mut s = ResamplerState::<f32, 4>::new();
        r.process(&mut s, &[0.0; 4], &mut [0.0; 2]);
    }

    /// Process `x` split at `cuts` with fresh state; returns the outputs.
    fn split_run<X: Sample<T>, T: Tap, const N: usize>(
        r: &Resampler<T>,
        mut s: ResamplerState<X, N>,
        x: &[X],
        cuts: &[usize],
    ) -> Vec<X> {
        let mut y = std::vec![X::default(); r.max_output(x.len()) + cuts.len() + 1];
        let mut n = 0;
        let mut at = 0;
        for &c in cuts.iter().chain(core::iter::once(&x.len())) {
            let want = r.max_output(c - at);
            n += r.process(&mut s, &x[at..c], &mut y[n..n + want]);
            at = c;
        }
        y.truncate(n);
        y
    }

    proptest! {
        #![proptest_config(proptest_config())]

        #[test]
        fn test_block_split(
            ratio in 0usize..4,
            v in prop::collection::vec(any::<i16>(), 0..if cfg!(miri) { 40 } else { 300 }),
            cuts in prop::collection::vec(0usize..300, 0..5),
        ) {
            let (l, m, k) = [(3u32, 2u32, 6usize), (2, 5, 5), (1, 3, 7), (5, 5, 3)][ratio];
            let mut tf = std::vec![0.0f32; required_taps(l, k)];
            design_f32(l, m, 60.0, &mut tf);
            let mut tq = std::vec![0i16; required_taps(l, k)];
            design_q15(l, m, 60.0, &mut tq);
            let (rf, rq) = (Resampler::new(l, m, &tf), Resampler::new(l, m, &tq));
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(v.len())).collect();
            cuts.sort_unstable();

            let xf: Vec<f32> = v.iter().map(|&s| s as f32 / 32768.0).collect();
            let whole = split_run(&rf, ResamplerState::<f32, 11>::new(), &xf, &[]);
            prop_assert_eq!(whole.len(), rf.max_output(v.len()));
            prop_assert_eq!(&whole, &split_run(&rf, ResamplerState::<f32, 11>::new(), &xf, &cuts));

            let xc: Vec<C32> = xf.iter().map(|&s| C32::new(s, -s)).collect();
            let whole = split_run(&rf, ResamplerState::<C32, 8>::new(), &xc, &[]);
            prop_assert_eq!(&whole, &split_run(&rf, ResamplerState::<C32, 8>::new(), &xc, &cuts));

            let whole = split_run(&rq, ResamplerState::<i16, 7>::new(), &v, &[]);
            prop_assert_eq!(&whole, &split_run(&rq, ResamplerState::<i16, 7>::new(), &v, &cuts));

            let xq: Vec<Ci16> = v.iter().map(|&s| Ci16::new(s, s.wrapping_mul(3))).collect();
            let whole = split_run(&rq, ResamplerState::<Ci16, 19>::new(), &xq, &[]);
            prop_assert_eq!(&whole, &split_run(&rq, ResamplerState::<Ci16, 19>::new(), &xq, &cuts));
        }
    }
}
