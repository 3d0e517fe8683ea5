//! FIR filters and integer-ratio FIR decimators over real and complex
//! samples, in `f32` and Q15.
//!
//! # Maths
//!
//! A direct-form FIR of `N` taps computes, for every input `x[t]`,
//!
//! ```text
//! y[t] = Σ_{k=0}^{N−1} h[k] · x[t − k]        H(z) = Σ h[k] z^{−k}
//! ```
//!
//! with `x[t] = 0` before the first input (the state starts zeroed). For
//! complex data the (real) taps apply to I and Q alike.
//!
//! A linear-phase filter has symmetric taps, `h[k] = h[N−1−k]`; [`SymFir`]
//! folds the window first and multiplies once per tap pair:
//!
//! ```text
//! y[t] = Σ_{k<⌊N/2⌋} h[k] · (x[t−k] + x[t−(N−1−k)])  [+ h[(N−1)/2] · x[t−(N−1)/2] if N odd]
//! ```
//!
//! Its group delay is `(N−1)/2` samples.
//!
//! A [`Decimator`] by `M` keeps every `M`-th output of one of those filters:
//! `v[m] = y[mM]`, so the first input produces the first output and the
//! output index `m` is aligned with input `mM`. It computes only the kept
//! outputs. That is the polyphase decimator
//! `V(z) = Σ_{p<M} E_p(z) X_p(z)` with sub-filters `E_p` of `⌈N/M⌉` taps
//! each at the low rate, evaluated against one delay line at the full rate:
//! the same `N/M` multiply–accumulates per input (half that for [`SymFir`]),
//! but one contiguous dot product per output instead of `M` short ones. The
//! phase (inputs left until the next output) lives in the state, so the
//! output is identical for any split of the input into blocks.
//!
//! # Storage
//!
//! Taps are a const-generic array `[T; N]` held by value in the
//! configuration: the length is a type-level shape (the kernels unroll and
//! vectorise for it, and `const { assert!(..) }` checks it), and the
//! configuration is self-contained (`Copy`, no lifetime).
//!
//! The state is a double-length circular buffer: each input is written
//! twice, at `p` and `p + N` of a `2N` array, with `p` counting down modulo
//! `N`. The last `N` inputs are then always the contiguous slice
//! `buf[p .. p + N]`, newest first, so a dot product needs no modulo per
//! tap. Complex samples are kept as two real delay lines (I and Q) so each
//! dot product runs over contiguous reals.
//!
//! # Fixed point and headroom
//!
//! Q15 taps (`i16`, 2⁻¹⁵) over Q15 data (`i16` or [`Ci16`]) give Q30
//! products, summed in an `i32` accumulator and rounded to nearest
//! (half up) and saturated back to Q15 once per output. Since `|x| ≤ 2¹⁵`,
//! every partial sum in any order is bounded by `2¹⁵ · Σ|h[k]|` (taps in
//! LSB). Constructors check the tap L1 norm `Σ|h[k]| ≤ 65 535` LSB (a
//! worst-case gain just under 2.0), which keeps every partial sum within
//! `±(2³¹ − 2¹⁵)` and the rounding constant `2¹⁴` still fits: `i32` cannot
//! overflow, so `i64` is never needed. The symmetric fold `x[a] + x[b]` is
//! formed in `i32` (`|·| ≤ 2¹⁶`); its product with a tap stays below `2³¹`
//! because a symmetric pair counts twice in the L1 norm, so `|h| < 2¹⁵`.
//! Integer sums are exact, so [`Fir`], [`SymFir`] and [`Decimator`] give
//! bit-identical Q15 results for the same taps. A unit-DC-gain low-pass has
//! `Σ|h| ≈ 1.0 … 1.3`; outputs that exceed full scale saturate.
//!
//! # Example
//!
//! ```
//! use airwaves_core::dsp::SplitProcess;
//! use airwaves_core::dsp::fir::{
//!     Decimate, Decimator, DecimatorState, FirDesign, FirState, SplitDecimate, SymFir,
//! };
//!
//! // 63-tap low-pass, −6 dB at 0.1 cycles/sample, 70 dB stop band.
//! let lp = SymFir::<i16, 63>::design(&FirDesign::lowpass(0.1, 70.0));
//! let mut st = FirState::<i16, 63>::new();
//! let y = lp.process(&mut st, 1000);
//! assert_eq!(y, ((lp.taps()[0] as i32 * 1000 + (1 << 14)) >> 15) as i16);
//!
//! // The same filter decimating by 4.
//! let dec = Decimator::<_, 4>::new(lp);
//! let mut ds = DecimatorState::<i16, 63>::new();
//! let x = [0i16; 10];
//! let mut out = [0i16; 3];
//! assert_eq!(dec.max_output(x.len()), 3);
//! assert_eq!(dec.block(&mut ds, &x, &mut out), 3);
//! ```

use core::fmt::Debug;

use crate::dsp::SplitProcess;
use crate::dsp::design;
use crate::dsp::fixed::{round_shift, sat16};
use crate::{C32, Ci16};

pub(crate) mod sealed {
    use core::fmt::Debug;

    /// Per-tap-type operations used at set-up (not part of the public API).
    pub trait TapOps: Copy + Debug + PartialEq {
        /// Zero.
        const ZERO: Self;
        /// One half (the centre tap of a half-band filter).
        const HALF: Self;
        /// `Some(Σ|h|)` in LSB for Q15 taps, `None` for `f32` (no limit).
        fn q15_l1(taps: &[Self]) -> Option<i64>;
        /// Convert symmetric `f64` taps, keeping them symmetric and (for
        /// Q15) the DC gain `Σ h` as close to `Σ src` as symmetry allows.
        fn from_f64_symmetric(src: &[f64], dst: &mut [Self]);
        /// Convert `f64` taps keeping `Σ h` exact to the nearest LSB.
        fn from_f64_sum(src: &[f64], dst: &mut [Self]);
        /// The value as `f64` (Q15 scaled to ±1.0).
        fn to_f64(self) -> f64;
    }

    /// Per-sample-type kernels (not part of the public API).
    ///
    /// A sample is split into two lanes, `Re` and `Im`; real samples have
    /// `Im = ()`, so the same generic code drives real and complex data.
    pub trait SampleOps: Copy + Debug + PartialEq {
        /// Tap type.
        type Tap: TapOps;
        /// In-phase lane.
        type Re: Copy + Debug + PartialEq;
        /// Quadrature lane (`()` for real samples).
        type Im: Copy + Debug + PartialEq;
        /// Accumulator.
        type Acc: Copy;
        /// Zero sample.
        const ZERO: Self;
        /// Zero in-phase lane.
        const ZERO_RE: Self::Re;
        /// Zero quadrature lane.
        const ZERO_IM: Self::Im;
        /// Split into lanes.
        fn split(self) -> (Self::Re, Self::Im);
        /// `Σ h[k] x[k]` over both lanes.
        fn dot(h: &[Self::Tap], re: &[Self::Re], im: &[Self::Im]) -> Self::Acc;
        /// `Σ h[k] (f[k] + b[len−1−k])` over both lanes.
        fn fold(
            h: &[Self::Tap],
            re_f: &[Self::Re],
            re_b: &[Self::Re],
            im_f: &[Self::Im],
            im_b: &[Self::Im],
        ) -> Self::Acc;
        /// `acc + h x`.
        fn mac(acc: Self::Acc, h: Self::Tap, re: Self::Re, im: Self::Im) -> Self::Acc;
        /// Round and saturate the accumulator to a sample.
        fn finish(acc: Self::Acc) -> Self;
    }

    /// Seal for the FIR kernel trait.
    pub trait Sealed {}
}

use sealed::{SampleOps, TapOps};

/// A tap type: `f32`, or `i16` in Q15. Sealed.
pub trait Tap: TapOps {}
impl Tap for f32 {}
impl Tap for i16 {}

/// A sample type the filters accept, with its tap type: `f32` and [`C32`]
/// take `f32` taps; `i16` and [`Ci16`] (Q15) take `i16` (Q15) taps. Sealed.
pub trait Sample: SampleOps {}
impl Sample for f32 {}
impl Sample for C32 {}
impl Sample for i16 {}
impl Sample for Ci16 {}

// ---------------------------------------------------------------------------
// Kernels

/// `Σ h[k] x[k]` in `f32` with eight partial sums (lets the compiler keep
/// them in vector registers; the summation order is fixed, so results are
/// deterministic).
#[inline(always)]
fn dot_f32(h: &[f32], x: &[f32]) -> f32 {
    let hc = h.chunks_exact(8);
    let xc = x.chunks_exact(8);
    let mut tail = 0.0;
    for (a, b) in hc.remainder().iter().zip(xc.remainder()) {
        tail += a * b;
    }
    let mut acc = [0.0f32; 8];
    for (h8, x8) in hc.zip(xc) {
        for ((a, h), x) in acc.iter_mut().zip(h8).zip(x8) {
            *a += h * x;
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// `Σ h[k] (f[k] + b[len−1−k])` in `f32` with four partial sums (fixed
/// order).
#[inline(always)]
fn fold_f32(h: &[f32], f: &[f32], b: &[f32]) -> f32 {
    let hc = h.chunks_exact(4);
    let fc = f.chunks_exact(4);
    let bc = b.rchunks_exact(4);
    let mut tail = 0.0;
    for ((h, f), b) in hc
        .remainder()
        .iter()
        .zip(fc.remainder())
        .zip(bc.remainder().iter().rev())
    {
        tail += h * (f + b);
    }
    let mut acc = [0.0f32; 4];
    for ((h4, f4), b4) in hc.zip(fc).zip(bc) {
        for (((a, h), f), b) in acc.iter_mut().zip(h4).zip(f4).zip(b4.iter().rev()) {
            *a += h * (f + b);
        }
    }
    ((acc[0] + acc[2]) + (acc[1] + acc[3])) + tail
}

/// `Σ h[k] x[k]`, Q15 × Q15 → Q30 in `i32` (see the module's headroom
/// analysis: the taps' L1 norm bounds every partial sum).
#[inline(always)]
fn dot_q15(h: &[i16], x: &[i16]) -> i32 {
    h.iter()
        .zip(x)
        .fold(0i32, |a, (&h, &x)| a + i32::from(h) * i32::from(x))
}

/// `Σ h[k] (f[k] + b[len−1−k])`, Q15 → Q30 in `i32`.
#[inline(always)]
fn fold_q15(h: &[i16], f: &[i16], b: &[i16]) -> i32 {
    h.iter()
        .zip(f)
        .zip(b.iter().rev())
        .fold(0i32, |a, ((&h, &f), &b)| {
            a + i32::from(h) * (i32::from(f) + i32::from(b))
        })
}

#[inline(always)]
fn finish_q15(acc: i32) -> i16 {
    sat16(round_shift(acc, 15))
}

impl TapOps for f32 {
    const ZERO: Self = 0.0;
    const HALF: Self = 0.5;
    fn q15_l1(_: &[Self]) -> Option<i64> {
        None
    }
    fn from_f64_symmetric(src: &[f64], dst: &mut [Self]) {
        Self::from_f64_sum(src, dst);
    }
    fn from_f64_sum(src: &[f64], dst: &mut [Self]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = *s as f32;
        }
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl TapOps for i16 {
    const ZERO: Self = 0;
    const HALF: Self = 1 << 14;
    fn q15_l1(taps: &[Self]) -> Option<i64> {
        Some(taps.iter().map(|&t| i64::from(t).abs()).sum())
    }
    fn from_f64_symmetric(src: &[f64], dst: &mut [Self]) {
        quantise_q15_symmetric(src, dst);
    }
    fn from_f64_sum(src: &[f64], dst: &mut [Self]) {
        design::quantise_q15(src, dst);
    }
    fn to_f64(self) -> f64 {
        self as f64 / 32768.0
    }
}

/// Quantise symmetric `f64` taps to Q15 keeping them exactly symmetric:
/// round each tap to nearest, then spread the DC residual
/// `round(Σ src · 2¹⁵) − Σ dst` over the taps nearest the centre (the middle
/// tap takes an odd residual when `N` is odd; pairs take ±1 LSB each). With
/// `N` even an odd residual leaves the DC gain 1 LSB (2⁻¹⁵) off.
fn quantise_q15_symmetric(src: &[f64], dst: &mut [i16]) {
    let len = dst.len().min(src.len());
    if len == 0 {
        return;
    }
    let mut want = 0.0;
    let mut have: i64 = 0;
    for (s, d) in src.iter().zip(dst.iter_mut()) {
        let v = libm::round(s * 32768.0).clamp(i16::MIN as f64, i16::MAX as f64);
        *d = v as i16;
        have += i64::from(*d);
        want += s * 32768.0;
    }
    let mut err = libm::round(want) as i64 - have;
    let nudge = |d: &mut i16, step: i64| {
        let nv = i64::from(*d) + step;
        if (i16::MIN as i64..=i16::MAX as i64).contains(&nv) {
            *d = nv as i16;
            true
        } else {
            false
        }
    };
    if len % 2 == 1 && err % 2 != 0 && nudge(&mut dst[len / 2], err.signum()) {
        err -= err.signum();
    }
    // Pairs (i, len−1−i), innermost first, ±1 LSB each per sweep.
    let pairs = len / 2;
    let mut guard = 0;
    while err.abs() >= 2 && pairs > 0 && guard < 4 * len {
        for i in (0..pairs).rev() {
            if err.abs() < 2 {
                break;
            }
            let step = err.signum();
            let j = len - 1 - i;
            let (a, b) = (dst[i], dst[j]);
            let (mut a2, mut b2) = (a, b);
            if nudge(&mut a2, step) && nudge(&mut b2, step) {
                dst[i] = a2;
                dst[j] = b2;
                err -= 2 * step;
            }
        }
        guard += 1;
    }
    if len % 2 == 1 && err != 0 {
        let mid = len / 2;
        let step = err.signum();
        while err != 0 && nudge(&mut dst[mid], step) {
            err -= step;
        }
    }
}

impl SampleOps for f32 {
    type Tap = f32;
    type Re = f32;
    type Im = ();
    type Acc = f32;
    const ZERO: Self = 0.0;
    const ZERO_RE: f32 = 0.0;
    const ZERO_IM: () = ();
    #[inline(always)]
    fn split(self) -> (f32, ()) {
        (self, ())
    }
    #[inline(always)]
    fn dot(h: &[f32], re: &[f32], _: &[()]) -> f32 {
        dot_f32(h, re)
    }
    #[inline(always)]
    fn fold(h: &[f32], re_f: &[f32], re_b: &[f32], _: &[()], _: &[()]) -> f32 {
        fold_f32(h, re_f, re_b)
    }
    #[inline(always)]
    fn mac(acc: f32, h: f32, re: f32, _: ()) -> f32 {
        acc + h * re
    }
    #[inline(always)]
    fn finish(acc: f32) -> f32 {
        acc
    }
}

impl SampleOps for C32 {
    type Tap = f32;
    type Re = f32;
    type Im = f32;
    type Acc = C32;
    const ZERO: Self = C32::new(0.0, 0.0);
    const ZERO_RE: f32 = 0.0;
    const ZERO_IM: f32 = 0.0;
    #[inline(always)]
    fn split(self) -> (f32, f32) {
        (self.re, self.im)
    }
    #[inline(always)]
    fn dot(h: &[f32], re: &[f32], im: &[f32]) -> C32 {
        C32::new(dot_f32(h, re), dot_f32(h, im))
    }
    #[inline(always)]
    fn fold(h: &[f32], re_f: &[f32], re_b: &[f32], im_f: &[f32], im_b: &[f32]) -> C32 {
        C32::new(fold_f32(h, re_f, re_b), fold_f32(h, im_f, im_b))
    }
    #[inline(always)]
    fn mac(acc: C32, h: f32, re: f32, im: f32) -> C32 {
        C32::new(acc.re + h * re, acc.im + h * im)
    }
    #[inline(always)]
    fn finish(acc: C32) -> C32 {
        acc
    }
}

impl SampleOps for i16 {
    type Tap = i16;
    type Re = i16;
    type Im = ();
    type Acc = i32;
    const ZERO: Self = 0;
    const ZERO_RE: i16 = 0;
    const ZERO_IM: () = ();
    #[inline(always)]
    fn split(self) -> (i16, ()) {
        (self, ())
    }
    #[inline(always)]
    fn dot(h: &[i16], re: &[i16], _: &[()]) -> i32 {
        dot_q15(h, re)
    }
    #[inline(always)]
    fn fold(h: &[i16], re_f: &[i16], re_b: &[i16], _: &[()], _: &[()]) -> i32 {
        fold_q15(h, re_f, re_b)
    }
    #[inline(always)]
    fn mac(acc: i32, h: i16, re: i16, _: ()) -> i32 {
        acc + i32::from(h) * i32::from(re)
    }
    #[inline(always)]
    fn finish(acc: i32) -> i16 {
        finish_q15(acc)
    }
}

impl SampleOps for Ci16 {
    type Tap = i16;
    type Re = i16;
    type Im = i16;
    type Acc = (i32, i32);
    const ZERO: Self = Ci16::new(0, 0);
    const ZERO_RE: i16 = 0;
    const ZERO_IM: i16 = 0;
    #[inline(always)]
    fn split(self) -> (i16, i16) {
        (self.re, self.im)
    }
    #[inline(always)]
    fn dot(h: &[i16], re: &[i16], im: &[i16]) -> (i32, i32) {
        (dot_q15(h, re), dot_q15(h, im))
    }
    #[inline(always)]
    fn fold(h: &[i16], re_f: &[i16], re_b: &[i16], im_f: &[i16], im_b: &[i16]) -> (i32, i32) {
        (fold_q15(h, re_f, re_b), fold_q15(h, im_f, im_b))
    }
    #[inline(always)]
    fn mac(acc: (i32, i32), h: i16, re: i16, im: i16) -> (i32, i32) {
        let h = i32::from(h);
        (acc.0 + h * i32::from(re), acc.1 + h * i32::from(im))
    }
    #[inline(always)]
    fn finish(acc: (i32, i32)) -> Ci16 {
        Ci16::new(finish_q15(acc.0), finish_q15(acc.1))
    }
}

// ---------------------------------------------------------------------------
// Panics, kept out of line.

#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn headroom_panic(l1: i64) -> ! {
    panic!("Q15 taps' L1 norm {l1} LSB exceeds 65535: the i32 accumulator could overflow")
}

#[cold]
#[inline(never)]
#[track_caller]
fn asymmetric_panic(i: usize) -> ! {
    panic!("taps are not symmetric: h[{i}] != h[N-1-{i}]")
}

#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn output_too_short(have: usize, need: usize) -> ! {
    panic!("output slice holds {have} samples, max_output needs {need}")
}

/// Panic unless the Q15 tap L1 norm (plus `extra` LSB) fits the `i32`
/// accumulator (see the module docs).
#[track_caller]
pub(crate) fn check_headroom<T: Tap>(taps: &[T], weight: i64, extra: i64) {
    if let Some(l1) = T::q15_l1(taps) {
        let l1 = weight * l1 + extra;
        if l1 > 65_535 {
            headroom_panic(l1);
        }
    }
}

// ---------------------------------------------------------------------------
// State

/// Delay line of a FIR over the last `N` samples of type `X` (`f32`,
/// [`C32`], `i16` or [`Ci16`]).
///
/// A double-length circular buffer per lane (see the module docs), zeroed
/// at creation: `2N` samples plus an index. One state serves [`Fir`] and
/// [`SymFir`] of the same length.
#[derive(Clone, Debug, PartialEq)]
pub struct FirState<X: Sample, const N: usize> {
    re: [[X::Re; N]; 2],
    im: [[X::Im; N]; 2],
    /// Index of the newest sample, `0 .. N`, counting down.
    p: usize,
}

impl<X: Sample, const N: usize> FirState<X, N> {
    /// A zeroed delay line.
    ///
    /// ```
    /// use airwaves_core::dsp::fir::FirState;
    /// let s = FirState::<f32, 16>::new();
    /// assert_eq!(s, FirState::default());
    /// ```
    pub const fn new() -> Self {
        const { assert!(N > 0, "a FIR needs at least one tap") };
        Self {
            re: [[X::ZERO_RE; N]; 2],
            im: [[X::ZERO_IM; N]; 2],
            p: 0,
        }
    }

    /// Zero the delay line (as after [`new`](Self::new)).
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// Shift `x` in as the newest sample.
    #[inline(always)]
    fn push(&mut self, x: X) {
        let p = if self.p == 0 { N - 1 } else { self.p - 1 };
        let (r, i) = x.split();
        self.re[0][p] = r;
        self.re[1][p] = r;
        self.im[0][p] = i;
        self.im[1][p] = i;
        self.p = p;
    }

    /// The last `N` samples per lane, newest first: `w[k] = x[t − k]`.
    #[inline(always)]
    fn window(&self) -> (&[X::Re], &[X::Im]) {
        let p = self.p;
        (
            &self.re.as_flattened()[p..p + N],
            &self.im.as_flattened()[p..p + N],
        )
    }
}

impl<X: Sample, const N: usize> Default for FirState<X, N> {
    fn default() -> Self {
        Self::new()
    }
}

// ---------------------------------------------------------------------------
// Filters

/// A filter form that computes one output from a [`FirState`]: [`Fir`] or
/// [`SymFir`]. Sealed. [`Decimator`] is generic over it.
pub trait FirKernel<X: Sample, const N: usize>: sealed::Sealed {
    /// The output for the delay line's current contents, `Σ h[k] x[t−k]`
    /// (rounded and saturated for Q15).
    fn output(&self, state: &FirState<X, N>) -> X;
}

/// Direct-form FIR with `N` taps of type `T` (`f32`, or `i16` in Q15):
/// `y[t] = Σ_{k<N} h[k] x[t−k]`, one output per input.
///
/// Filters `f32` and [`C32`] data with `f32` taps, `i16` and [`Ci16`] (Q15)
/// data with Q15 taps (i32 accumulation, rounded and saturated; see the
/// module docs). State: [`FirState<X, N>`]. Per input: `N`
/// multiply–accumulates per lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fir<T, const N: usize> {
    taps: [T; N],
}

impl<T: Tap, const N: usize> Fir<T, N> {
    /// A filter with impulse response `taps` (`h[0]` applies to the newest
    /// sample).
    ///
    /// # Panics
    /// For Q15 taps, panics if `Σ|h[k]| > 65 535` LSB (a gain of 2.0 or
    /// more could overflow the `i32` accumulator).
    ///
    /// ```
    /// use airwaves_core::dsp::SplitProcess;
    /// use airwaves_core::dsp::fir::{Fir, FirState};
    /// let f = Fir::new([0.5f32, 0.25]);
    /// let mut s = FirState::new();
    /// assert_eq!(f.process(&mut s, 1.0f32), 0.5);
    /// assert_eq!(f.process(&mut s, 0.0), 0.25);
    /// ```
    #[track_caller]
    pub fn new(taps: [T; N]) -> Self {
        const { assert!(N > 0, "a FIR needs at least one tap") };
        check_headroom(&taps, 1, 0);
        Self { taps }
    }

    /// A low-pass designed by `d` (see [`FirDesign::fill`]).
    ///
    /// # Panics
    /// As [`new`](Self::new) (only for a gain of about 2 or more).
    ///
    /// ```
    /// use airwaves_core::dsp::fir::{Fir, FirDesign};
    /// let f = Fir::<i16, 31>::design(&FirDesign::lowpass(0.2, 60.0));
    /// let dc: i32 = f.taps().iter().map(|&t| t as i32).sum();
    /// assert_eq!(dc, 32768);
    /// ```
    #[track_caller]
    pub fn design(d: &FirDesign) -> Self {
        let mut taps = [T::ZERO; N];
        d.fill(&mut taps);
        Self::new(taps)
    }

    /// The taps.
    pub const fn taps(&self) -> &[T; N] {
        &self.taps
    }
}

impl<T, const N: usize> sealed::Sealed for Fir<T, N> {}

impl<X: Sample, const N: usize> FirKernel<X, N> for Fir<X::Tap, N> {
    #[inline(always)]
    fn output(&self, state: &FirState<X, N>) -> X {
        let (re, im) = state.window();
        X::finish(X::dot(&self.taps, re, im))
    }
}

impl<X: Sample, const N: usize> SplitProcess<X, X, FirState<X, N>> for Fir<X::Tap, N> {
    #[inline]
    fn process(&self, state: &mut FirState<X, N>, x: X) -> X {
        state.push(x);
        self.output(state)
    }
}

/// Linear-phase FIR with `N` symmetric taps (`h[k] = h[N−1−k]`), folding the
/// window to multiply once per tap pair:
/// `y[t] = Σ_{k<⌊N/2⌋} h[k] (x[t−k] + x[t−N+1+k])` (+ the middle tap for odd
/// `N`).
///
/// Same response and state ([`FirState<X, N>`]) as [`Fir`] with the same
/// taps; Q15 results are bit-identical to [`Fir`], `f32` results agree to
/// rounding. Per input: `⌈N/2⌉` multiplies and `N` adds per lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SymFir<T, const N: usize> {
    taps: [T; N],
}

impl<T: Tap, const N: usize> SymFir<T, N> {
    /// A filter with symmetric impulse response `taps`.
    ///
    /// # Panics
    /// Panics if `taps[k] != taps[N−1−k]` for some `k` (exact comparison),
    /// and, for Q15, if `Σ|h[k]| > 65 535` LSB (see [`Fir::new`]).
    ///
    /// ```
    /// use airwaves_core::dsp::SplitProcess;
    /// use airwaves_core::dsp::fir::{FirState, SymFir};
    /// let f = SymFir::new([8192i16, 16384, 8192]); // ¼, ½, ¼
    /// let mut s = FirState::new();
    /// assert_eq!(f.process(&mut s, 4000i16), 1000);
    /// assert_eq!(f.process(&mut s, 4000), 3000);
    /// assert_eq!(f.process(&mut s, 4000), 4000);
    /// ```
    #[track_caller]
    pub fn new(taps: [T; N]) -> Self {
        const { assert!(N > 0, "a FIR needs at least one tap") };
        for i in 0..N / 2 {
            if taps[i] != taps[N - 1 - i] {
                asymmetric_panic(i);
            }
        }
        check_headroom(&taps, 1, 0);
        Self { taps }
    }

    /// A low-pass designed by `d` (see [`FirDesign::fill`]; the design is
    /// exactly symmetric).
    ///
    /// # Panics
    /// As [`new`](Self::new) (only for a gain of about 2 or more).
    ///
    /// ```
    /// use airwaves_core::dsp::fir::{FirDesign, SymFir};
    /// let f = SymFir::<f32, 32>::design(&FirDesign::lowpass(0.125, 60.0));
    /// assert_eq!(f.taps()[0], f.taps()[31]);
    /// ```
    #[track_caller]
    pub fn design(d: &FirDesign) -> Self {
        let mut taps = [T::ZERO; N];
        d.fill(&mut taps);
        Self::new(taps)
    }

    /// The taps (all `N`, symmetric).
    pub const fn taps(&self) -> &[T; N] {
        &self.taps
    }
}

impl<T, const N: usize> sealed::Sealed for SymFir<T, N> {}

impl<X: Sample, const N: usize> FirKernel<X, N> for SymFir<X::Tap, N> {
    #[inline(always)]
    fn output(&self, state: &FirState<X, N>) -> X {
        let (re, im) = state.window();
        let h = N / 2;
        let acc = X::fold(
            &self.taps[..h],
            &re[..h],
            &re[N - h..],
            &im[..h],
            &im[N - h..],
        );
        let acc = if N % 2 == 1 {
            X::mac(acc, self.taps[h], re[h], im[h])
        } else {
            acc
        };
        X::finish(acc)
    }
}

impl<X: Sample, const N: usize> SplitProcess<X, X, FirState<X, N>> for SymFir<X::Tap, N> {
    #[inline]
    fn process(&self, state: &mut FirState<X, N>, x: X) -> X {
        state.push(x);
        self.output(state)
    }
}

// ---------------------------------------------------------------------------
// Decimation

/// The fixed ratio of a decimator, whatever its sample type.
///
/// Rate changers take input slices of any length; size the output slice
/// with [`max_output`](Self::max_output).
pub trait Decimate {
    /// Inputs per output (at least 1).
    const RATIO: usize;

    /// The most outputs `input_len` inputs can produce, whatever the phase:
    /// `⌈input_len / RATIO⌉`.
    fn max_output(&self, input_len: usize) -> usize {
        input_len.div_ceil(Self::RATIO)
    }
}

/// A decimator over samples `X`, with configuration in `&self` and state in
/// `&mut S`, keeping one output per [`RATIO`](Decimate::RATIO) inputs.
///
/// `process` is the definition; `block` runs it over any input length and
/// returns how many outputs it wrote. The output is identical for any split
/// of the input into blocks.
pub trait SplitDecimate<X: Copy, S: ?Sized>: Decimate {
    /// Take one input; return an output every `RATIO` inputs.
    fn process(&self, state: &mut S, x: X) -> Option<X>;

    /// Process `x`, write the outputs to the front of `y` and return their
    /// count.
    ///
    /// # Panics
    /// Panics if `y.len() < self.max_output(x.len())` (checked before any
    /// state changes).
    #[track_caller]
    fn block(&self, state: &mut S, x: &[X], y: &mut [X]) -> usize {
        let need = self.max_output(x.len());
        if y.len() < need {
            output_too_short(y.len(), need);
        }
        let mut n = 0;
        for &v in x {
            if let Some(o) = self.process(state, v) {
                y[n] = o;
                n += 1;
            }
        }
        n
    }
}

/// Decimating FIR: keeps every `M`-th output of the filter `F` ([`Fir`] or
/// [`SymFir`]), `v[m] = y[mM] = Σ_k h[k] x[mM − k]`, computing only those.
///
/// The polyphase decimator evaluated on one delay line (see the module
/// docs): per input, one delay-line write plus `N/M` multiply–accumulates
/// (`⌈N/2⌉/M` multiplies for [`SymFir`]). The first input yields the first
/// output. State: [`DecimatorState<X, N>`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decimator<F, const M: usize> {
    fir: F,
}

impl<F, const M: usize> Decimator<F, M> {
    /// Decimate the output of `fir` by `M` (`M ≥ 1`, checked at compile
    /// time).
    ///
    /// ```
    /// use airwaves_core::dsp::fir::{Decimator, DecimatorState, Fir, SplitDecimate};
    /// let d = Decimator::<_, 2>::new(Fir::new([0.5f32, 0.5]));
    /// let mut s = DecimatorState::new();
    /// let mut y = [0.0f32; 2];
    /// assert_eq!(d.block(&mut s, &[1.0, 3.0, 5.0], &mut y), 2);
    /// assert_eq!(y, [0.5, 4.0]);
    /// ```
    pub const fn new(fir: F) -> Self {
        const { assert!(M > 0, "decimation ratio must be at least 1") };
        Self { fir }
    }

    /// The filter.
    pub const fn fir(&self) -> &F {
        &self.fir
    }
}

/// State of a [`Decimator`]: the filter's delay line and the phase.
#[derive(Clone, Debug, PartialEq)]
pub struct DecimatorState<X: Sample, const N: usize> {
    fir: FirState<X, N>,
    /// Inputs to take before the next output (`0 .. M`).
    skip: usize,
}

impl<X: Sample, const N: usize> DecimatorState<X, N> {
    /// A zeroed delay line; the next input produces an output.
    ///
    /// ```
    /// use airwaves_core::dsp::fir::DecimatorState;
    /// let s = DecimatorState::<i16, 8>::new();
    /// assert_eq!(s.skip(), 0);
    /// ```
    pub const fn new() -> Self {
        Self {
            fir: FirState::new(),
            skip: 0,
        }
    }

    /// How many inputs will be taken before the next output (`0 .. M`).
    pub const fn skip(&self) -> usize {
        self.skip
    }

    /// Zero the delay line and the phase.
    pub fn reset(&mut self) {
        *self = Self::new();
    }
}

impl<X: Sample, const N: usize> Default for DecimatorState<X, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<F, const M: usize> Decimate for Decimator<F, M> {
    const RATIO: usize = M;
}

impl<X: Sample, F: FirKernel<X, N>, const N: usize, const M: usize>
    SplitDecimate<X, DecimatorState<X, N>> for Decimator<F, M>
{
    #[inline]
    fn process(&self, state: &mut DecimatorState<X, N>, x: X) -> Option<X> {
        state.fir.push(x);
        if state.skip == 0 {
            state.skip = M - 1;
            Some(self.fir.output(&state.fir))
        } else {
            state.skip -= 1;
            None
        }
    }

    #[track_caller]
    fn block(&self, state: &mut DecimatorState<X, N>, x: &[X], y: &mut [X]) -> usize {
        let need = self.max_output(x.len());
        if y.len() < need {
            output_too_short(y.len(), need);
        }
        let mut out = y.iter_mut();
        let mut n = 0;
        let mut rest = x;
        // Run up to the next output without computing, then one output per
        // M inputs.
        while !rest.is_empty() {
            let take = (state.skip + 1).min(rest.len());
            let (head, tail) = rest.split_at(take);
            for &v in head {
                state.fir.push(v);
            }
            rest = tail;
            if take == state.skip + 1 {
                state.skip = M - 1;
                if let Some(o) = out.next() {
                    *o = self.fir.output(&state.fir);
                    n += 1;
                }
            } else {
                state.skip -= take;
            }
        }
        n
    }
}

// ---------------------------------------------------------------------------
// Design

/// A Kaiser-window low-pass design (see [`crate::dsp::design`]): cut-off
/// (−6 dB point) in cycles per sample, stop-band attenuation in dB (sets the
/// Kaiser `β`), and DC gain. The length comes from the tap array; Kaiser's
/// estimate of the length needed for a transition width `Δf` is
/// [`design::kaiser_len`]`(atten_db, Δf)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirDesign {
    /// −6 dB point, cycles per sample (0 < cutoff ≤ 0.5).
    pub cutoff: f64,
    /// Kaiser window `β` (from [`design::kaiser_beta`]).
    pub beta: f64,
    /// DC gain (sum of the taps), 1.0 by default.
    pub gain: f64,
}

impl FirDesign {
    /// A unit-gain low-pass with its −6 dB point at `cutoff` cycles per
    /// sample and a Kaiser window for `atten_db` of stop-band attenuation.
    /// With `N` taps the transition band is about
    /// `Δf ≈ (atten_db − 7.95) / (14.36 (N − 1))` wide, centred on `cutoff`.
    ///
    /// ```
    /// use airwaves_core::dsp::fir::FirDesign;
    /// let d = FirDesign::lowpass(0.1, 70.0);
    /// let mut h = [0.0f32; 63];
    /// d.fill(&mut h);
    /// assert!((h.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    /// ```
    pub fn lowpass(cutoff: f64, atten_db: f64) -> Self {
        Self {
            cutoff,
            beta: design::kaiser_beta(atten_db),
            gain: 1.0,
        }
    }

    /// The same design with DC gain `gain`.
    ///
    /// ```
    /// use airwaves_core::dsp::fir::FirDesign;
    /// let d = FirDesign::lowpass(0.1, 60.0).with_gain(0.5);
    /// assert_eq!(d.gain, 0.5);
    /// ```
    pub const fn with_gain(self, gain: f64) -> Self {
        Self { gain, ..self }
    }

    /// Write the `f64` taps into `taps` (any length), exactly symmetric.
    ///
    /// ```
    /// use airwaves_core::dsp::fir::FirDesign;
    /// let mut h = [0.0; 15];
    /// FirDesign::lowpass(0.25, 60.0).fill_f64(&mut h);
    /// assert_eq!(h[0], h[14]);
    /// ```
    pub fn fill_f64(&self, taps: &mut [f64]) {
        design::lowpass(taps, self.cutoff, self.beta, self.gain);
    }

    /// Write the taps into the caller's array: `f32` rounded from the `f64`
    /// design, or Q15 rounded to nearest with the DC residual spread over
    /// the central taps so the taps stay exactly symmetric and `Σ h` equals
    /// `round(gain · 2¹⁵)` (to 1 LSB for even `N`).
    ///
    /// ```
    /// use airwaves_core::dsp::fir::FirDesign;
    /// let mut h = [0i16; 63];
    /// FirDesign::lowpass(0.1, 70.0).fill(&mut h);
    /// assert_eq!(h.iter().map(|&t| t as i32).sum::<i32>(), 32768);
    /// assert_eq!(h[3], h[59]);
    /// ```
    pub fn fill<T: Tap, const N: usize>(&self, taps: &mut [T; N]) {
        let mut h = [0.0f64; N];
        self.fill_f64(&mut h);
        T::from_f64_symmetric(&h, taps);
    }
}

#[cfg(test)]
mod test {
    extern crate std;

    use super::*;
    use crate::testing::{Rng, db, fir_response, fit_tone, proptest_config};
    use core::f64::consts::PI;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// `y[t] = Σ h[k] x[t−k]` in f64.
    fn conv(h: &[f64], x: &[f64]) -> Vec<f64> {
        (0..x.len())
            .map(|t| {
                h.iter()
                    .enumerate()
                    .take(t + 1)
                    .map(|(k, &hk)| hk * x[t - k])
                    .sum()
            })
            .collect()
    }

    fn to_f64<T: Tap>(h: &[T]) -> Vec<f64> {
        h.iter().map(|&t| t.to_f64()).collect()
    }

    /// Worst passband deviation (dB) up to `fp` and worst stop-band level
    /// (dB, positive = attenuation) from `fs`, from the taps.
    fn taps_spec(h: &[f64], fp: f64, fs: f64) -> (f64, f64) {
        let mut ripple = 0.0f64;
        let mut stop = 0.0f64;
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

    const CUTOFF: f64 = 0.1;
    const ATTEN: f64 = 70.0;
    // Transition width for 63 taps: (70 − 7.95) / (14.36 · 62) ≈ 0.0697.
    const FP: f64 = 0.065;
    const FS: f64 = 0.135;

    fn lp() -> FirDesign {
        FirDesign::lowpass(CUTOFF, ATTEN)
    }

    #[test]
    fn test_design_from_taps() {
        let mut h64 = [0.0; 63];
        lp().fill_f64(&mut h64);
        let f = Fir::<f32, 63>::design(&lp());
        let q = Fir::<i16, 63>::design(&lp());
        let (r64, s64) = taps_spec(&h64, FP, FS);
        let (r32, s32) = taps_spec(&to_f64(f.taps()), FP, FS);
        let (rq, sq) = taps_spec(&to_f64(q.taps()), FP, FS);
        assert!(
            s64 >= 68.0 && r64 < 0.01,
            "f64: {s64} dB stop, {r64} dB ripple"
        );
        assert!(
            s32 >= 68.0 && r32 < 0.01,
            "f32: {s32} dB stop, {r32} dB ripple"
        );
        assert!(sq >= 62.0 && rq < 0.01, "q15: {sq} dB stop, {rq} dB ripple");
        assert_eq!(q.taps().iter().map(|&t| t as i32).sum::<i32>(), 32768);
        // Exactly symmetric, so SymFir accepts them.
        let _ = SymFir::new(*q.taps());
        let _ = SymFir::new(*f.taps());
    }

    #[test]
    fn test_quantise_symmetric() {
        let mut rng = Rng::new(3);
        for len in 1..40 {
            let mut src = [0.0f64; 40];
            let src = &mut src[..len];
            for i in 0..len.div_ceil(2) {
                let v = rng.uniform() * 0.1;
                src[i] = v;
                src[len - 1 - i] = v;
            }
            let mut q = [0i16; 40];
            let q = &mut q[..len];
            quantise_q15_symmetric(src, q);
            for i in 0..len {
                assert_eq!(q[i], q[len - 1 - i]);
                assert!((src[i] * 32768.0 - q[i] as f64).abs() <= 2.5);
            }
            let want = libm::round(src.iter().sum::<f64>() * 32768.0) as i64;
            let have: i64 = q.iter().map(|&v| v as i64).sum();
            let slack = if len % 2 == 0 { 1 } else { 0 };
            assert!((want - have).abs() <= slack, "len {len}: {want} vs {have}");
        }
    }

    /// Amplitude ratio (dB) of a tone at `f` through `run`, after the
    /// filter's transient.
    fn tone_gain_db(f: f64, amp: f64, n: usize, run: &mut dyn FnMut(&[f64]) -> Vec<f64>) -> f64 {
        let x: Vec<f64> = (0..n)
            .map(|t| amp * libm::cos(2.0 * PI * f * t as f64 + 0.3))
            .collect();
        let y = run(&x);
        let (a, _, _) = fit_tone(&y[128..], f);
        20.0 * libm::log10(a / amp)
    }

    fn run_f32<F: SplitProcess<f32, f32, FirState<f32, 63>>>(
        f: &F,
    ) -> impl FnMut(&[f64]) -> Vec<f64> + '_ {
        move |x: &[f64]| {
            let mut s = FirState::new();
            x.iter()
                .map(|&v| f.process(&mut s, v as f32) as f64)
                .collect()
        }
    }

    fn run_q15<F: SplitProcess<i16, i16, FirState<i16, 63>>>(
        f: &F,
    ) -> impl FnMut(&[f64]) -> Vec<f64> + '_ {
        move |x: &[f64]| {
            let mut s = FirState::new();
            x.iter()
                .map(|&v| {
                    f.process(&mut s, crate::dsp::fixed::f32_to_q15(v as f32)) as f64 / 32768.0
                })
                .collect()
        }
    }

    fn freqs(lo: f64, hi: f64, k: usize) -> impl Iterator<Item = f64> {
        (0..k).map(move |i| lo + (hi - lo) * i as f64 / (k - 1) as f64)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_tones_f32() {
        let n = 1024;
        for f in [Fir::<f32, 63>::design(&lp())] {
            let sym = SymFir::new(*f.taps());
            for (name, run) in [
                (
                    "direct",
                    &mut run_f32(&f) as &mut dyn FnMut(&[f64]) -> Vec<f64>,
                ),
                ("sym", &mut run_f32(&sym)),
            ] {
                let mut ripple = 0.0f64;
                for fr in freqs(0.0, FP, 9) {
                    ripple = ripple.max(tone_gain_db(fr, 0.5, n, run).abs());
                }
                let mut stop = f64::INFINITY;
                for fr in freqs(FS, 0.5, 23) {
                    stop = stop.min(-tone_gain_db(fr, 0.5, n, run));
                }
                assert!(ripple < 0.01, "{name}: ripple {ripple} dB");
                assert!(stop >= 60.0, "{name}: stop band {stop} dB");
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_tones_q15() {
        let n = 2048;
        let q = Fir::<i16, 63>::design(&lp());
        let sym = SymFir::new(*q.taps());
        for (name, run) in [
            (
                "direct",
                &mut run_q15(&q) as &mut dyn FnMut(&[f64]) -> Vec<f64>,
            ),
            ("sym", &mut run_q15(&sym)),
        ] {
            let mut ripple = 0.0f64;
            for fr in freqs(0.0, FP, 9) {
                ripple = ripple.max(tone_gain_db(fr, 0.5, n, run).abs());
            }
            let mut stop = f64::INFINITY;
            for fr in freqs(FS, 0.5, 23) {
                stop = stop.min(-tone_gain_db(fr, 0.5, n, run));
            }
            assert!(ripple < 0.01, "{name}: ripple {ripple} dB");
            assert!(stop >= 55.0, "{name}: stop band {stop} dB");
        }
    }

    /// SNR (dB) of `y` against the reference `r`, after `skip` samples.
    fn snr_db(r: &[f64], y: &[f64], skip: usize) -> f64 {
        let (mut s, mut e) = (0.0, 0.0);
        for (a, b) in r[skip..].iter().zip(&y[skip..]) {
            s += a * a;
            e += (a - b) * (a - b);
        }
        db(s / e.max(1e-300))
    }

    #[test]
    fn test_q15_snr_vs_f64() {
        let n = if cfg!(miri) { 96 } else { 4096 };
        let mut h64 = [0.0; 63];
        lp().fill_f64(&mut h64);
        let q = SymFir::<i16, 63>::design(&lp());
        let qc = Fir::new(*q.taps());
        // −6 dBFS passband tone, real and complex.
        let f0 = 0.0371;
        let xi: Vec<i16> = (0..n)
            .map(|t| {
                crate::dsp::fixed::f32_to_q15(0.5 * libm::cos(2.0 * PI * f0 * t as f64) as f32)
            })
            .collect();
        let xq: Vec<i16> = (0..n)
            .map(|t| {
                crate::dsp::fixed::f32_to_q15(0.5 * libm::sin(2.0 * PI * f0 * t as f64) as f32)
            })
            .collect();
        let rr = conv(
            &h64,
            &xi.iter().map(|&v| v as f64 / 32768.0).collect::<Vec<_>>(),
        );
        let rq = conv(
            &h64,
            &xq.iter().map(|&v| v as f64 / 32768.0).collect::<Vec<_>>(),
        );
        let mut s = FirState::new();
        let y: Vec<f64> = xi
            .iter()
            .map(|&v| q.process(&mut s, v) as f64 / 32768.0)
            .collect();
        let snr = snr_db(&rr, &y, 63);
        assert!(snr >= 70.0, "real SNR {snr} dB");
        let mut s = FirState::new();
        let (mut yr, mut yi) = (Vec::new(), Vec::new());
        for (&a, &b) in xi.iter().zip(&xq) {
            let v: Ci16 = qc.process(&mut s, Ci16::new(a, b));
            yr.push(v.re as f64 / 32768.0);
            yi.push(v.im as f64 / 32768.0);
        }
        let snr_re = snr_db(&rr, &yr, 63);
        let snr_im = snr_db(&rq, &yi, 63);
        assert!(
            snr_re >= 70.0 && snr_im >= 70.0,
            "complex SNR {snr_re} / {snr_im} dB"
        );
    }

    #[test]
    fn test_f32_vs_f64() {
        let n = if cfg!(miri) { 32 } else { 2000 };
        let f = Fir::<f32, 63>::design(&lp());
        let h = to_f64(f.taps());
        let mut rng = Rng::new(11);
        let x: Vec<f64> = (0..n).map(|_| (rng.gauss() * 0.3) as f32 as f64).collect();
        let r = conv(&h, &x);
        let mut s = FirState::new();
        let mut sc = FirState::new();
        for (t, (&v, &rv)) in x.iter().zip(&r).enumerate() {
            let y: f32 = f.process(&mut s, v as f32);
            assert!((y as f64 - rv).abs() < 1e-6, "t={t}: {y} vs {rv}");
            let c: C32 = f.process(&mut sc, C32::new(v as f32, -v as f32));
            assert!((c.re as f64 - rv).abs() < 1e-6 && (c.im as f64 + rv).abs() < 1e-6);
        }
    }

    /// Direct ≡ symmetric ≡ decimator (every M-th direct output) for odd and
    /// even lengths.
    fn check_equivalence<const N: usize>(seed: u64) {
        let n = if cfg!(miri) { 24 } else { 600 };
        let mut rng = Rng::new(seed);
        let d = FirDesign::lowpass(0.2, 60.0);
        let (f, sf) = (Fir::<f32, N>::design(&d), SymFir::<f32, N>::design(&d));
        let (q, sq) = (Fir::<i16, N>::design(&d), SymFir::<i16, N>::design(&d));
        let dec_f = Decimator::<_, 3>::new(sf);
        let dec_q = Decimator::<_, 3>::new(sq);
        let dec_qd = Decimator::<_, 3>::new(q);
        let x: Vec<C32> = (0..n)
            .map(|_| {
                C32::new(
                    rng.uniform() as f32 * 2.0 - 1.0,
                    rng.uniform() as f32 * 2.0 - 1.0,
                )
            })
            .collect();
        let xq: Vec<Ci16> = x
            .iter()
            .map(|v| Ci16::new((v.re * 32767.0) as i16, (v.im * 32767.0) as i16))
            .collect();
        let (mut s1, mut s2, mut s3) = (FirState::new(), FirState::new(), DecimatorState::new());
        let (mut q1, mut q2, mut q3, mut q4) = (
            FirState::new(),
            FirState::new(),
            DecimatorState::new(),
            DecimatorState::new(),
        );
        let (mut r1, mut r2) = (FirState::new(), FirState::new());
        for (t, (&v, &vq)) in x.iter().zip(&xq).enumerate() {
            let a: C32 = f.process(&mut s1, v);
            let b: C32 = sf.process(&mut s2, v);
            assert!((a - b).l1_norm() < 1e-5, "t={t}");
            let ra: f32 = f.process(&mut r1, v.re);
            let rb: f32 = sf.process(&mut r2, v.re);
            assert!((ra - a.re).abs() < 1e-6 && (rb - b.re).abs() < 1e-6);
            let c = dec_f.process(&mut s3, v);
            assert_eq!(c.is_some(), t % 3 == 0);
            if let Some(c) = c {
                assert_eq!(c, b);
            }
            let qa: Ci16 = q.process(&mut q1, vq);
            let qb: Ci16 = sq.process(&mut q2, vq);
            assert_eq!(qa, qb, "t={t}");
            let qc = dec_q.process(&mut q3, vq);
            let qd = dec_qd.process(&mut q4, vq);
            assert_eq!(qc, qd);
            if let Some(c) = qc {
                assert_eq!(c, qa);
            }
        }
    }

    #[test]
    fn test_equivalence() {
        check_equivalence::<1>(1);
        check_equivalence::<7>(3);
        check_equivalence::<8>(4);
        if !cfg!(miri) {
            check_equivalence::<2>(2);
            check_equivalence::<23>(5);
            check_equivalence::<32>(6);
            check_equivalence::<63>(7);
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_decimator_alias_rejection() {
        // Decimating by 4 after the 63-tap low-pass: tones in the stop band
        // fold down; they must stay ≥ 60 dB (f32) / 55 dB (Q15) down.
        let n = 4096;
        let f = Decimator::<_, 4>::new(SymFir::<f32, 63>::design(&lp()));
        let q = Decimator::<_, 4>::new(SymFir::<i16, 63>::design(&lp()));
        // (Avoiding tones that fold exactly onto DC, where the fit is
        // degenerate.)
        for fr in freqs(FS, 0.49, 17) {
            let x: Vec<f32> = (0..n)
                .map(|t| 0.5 * libm::cos(2.0 * PI * fr * t as f64) as f32)
                .collect();
            let mut y = [0.0f32; 1024];
            let k = f.block(&mut DecimatorState::new(), &x, &mut y);
            let yf: Vec<f64> = y[32..k].iter().map(|&v| v as f64).collect();
            let a = fit_tone(&yf, 4.0 * fr).0;
            assert!(-20.0 * libm::log10(a / 0.5) >= 60.0, "f32 at {fr}: {a}");
            let xq: Vec<i16> = x
                .iter()
                .map(|&v| crate::dsp::fixed::f32_to_q15(v))
                .collect();
            let mut y = [0i16; 1024];
            let k = q.block(&mut DecimatorState::new(), &xq, &mut y);
            let yq: Vec<f64> = y[32..k].iter().map(|&v| v as f64 / 32768.0).collect();
            let a = fit_tone(&yq, 4.0 * fr).0;
            assert!(-20.0 * libm::log10(a / 0.5) >= 55.0, "q15 at {fr}: {a}");
        }
    }

    #[test]
    fn test_saturation_and_headroom() {
        // Gain 1.9 (L1 62 259 LSB): legal; a full-scale input saturates.
        let f = Fir::new([31130i16, 31129]);
        let mut s = FirState::new();
        assert_eq!(f.process(&mut s, i16::MAX), 31129);
        assert_eq!(f.process(&mut s, i16::MAX), i16::MAX);
        let mut s = FirState::new();
        let _ = f.process(&mut s, i16::MIN);
        assert_eq!(f.process(&mut s, i16::MIN), i16::MIN);
        // The extreme legal case: L1 = 65 535 with all-minimum inputs.
        let f = Fir::new([-32768i16, -32767]);
        let mut s = FirState::new();
        let _ = f.process(&mut s, i16::MIN);
        assert_eq!(f.process(&mut s, i16::MIN), i16::MAX);
    }

    #[test]
    #[should_panic(expected = "L1 norm")]
    fn test_headroom_panics() {
        let _ = Fir::new([-32768i16, -32768]);
    }

    #[test]
    #[should_panic(expected = "not symmetric")]
    fn test_asymmetric_panics() {
        let _ = SymFir::new([1.0f32, 2.0, 3.0]);
    }

    #[test]
    #[should_panic(expected = "max_output")]
    fn test_short_output_panics() {
        let d = Decimator::<_, 2>::new(Fir::new([1.0f32]));
        let _ = d.block(&mut DecimatorState::new(), &[0.0; 5], &mut [0.0; 2]);
    }

    #[test]
    fn test_decimator_count() {
        let d = Decimator::<_, 3>::new(Fir::new([1.0f32]));
        let mut s = DecimatorState::new();
        let mut y = [0.0f32; 4];
        // Identity filter: outputs are inputs 0, 3, 6, ...
        let x: Vec<f32> = (0..10).map(|v| v as f32).collect();
        assert_eq!(d.block(&mut s, &x[..4], &mut y), 2);
        assert_eq!(y[..2], [0.0, 3.0]);
        assert_eq!(s.skip(), 2);
        assert_eq!(d.block(&mut s, &x[4..5], &mut y), 0);
        assert_eq!(d.block(&mut s, &x[5..], &mut y), 2);
        assert_eq!(y[..2], [6.0, 9.0]);
        assert_eq!(d.block(&mut s, &[], &mut []), 0);
    }

    // -- block-split invariance ------------------------------------------

    fn split_points(len: usize, cuts: &[usize]) -> Vec<usize> {
        let mut c: Vec<usize> = cuts.iter().map(|&c| c % (len + 1)).collect();
        c.push(0);
        c.push(len);
        c.sort_unstable();
        c
    }

    fn split_1to1<X: Sample, F: SplitProcess<X, X, FirState<X, N>>, const N: usize>(
        f: &F,
        x: &[X],
        cuts: &[usize],
    ) {
        let mut whole = std::vec![X::ZERO; x.len()];
        f.block(&mut FirState::new(), x, &mut whole);
        let mut parts = std::vec![X::ZERO; x.len()];
        let mut s = FirState::new();
        for w in split_points(x.len(), cuts).windows(2) {
            f.block(&mut s, &x[w[0]..w[1]], &mut parts[w[0]..w[1]]);
        }
        assert_eq!(whole, parts);
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
        // Per-sample processing agrees too.
        let mut s = S::default();
        let one: Vec<X> = x.iter().filter_map(|&v| d.process(&mut s, v)).collect();
        assert_eq!(one, parts);
    }

    /// Cheap symmetric test taps (a triangle with unit DC gain): the
    /// split-invariance properties need no designed response, and designs
    /// are slow under miri.
    fn tri<const N: usize>() -> [f64; N] {
        let mut h = [0.0; N];
        for (k, v) in h.iter_mut().enumerate() {
            *v = (1 + k.min(N - 1 - k)) as f64;
        }
        let s: f64 = h.iter().sum();
        h.map(|v| v / s)
    }

    fn taps_f32<const N: usize>() -> [f32; N] {
        tri::<N>().map(|v| v as f32)
    }

    fn taps_q15<const N: usize>() -> [i16; N] {
        let mut q = [0; N];
        quantise_q15_symmetric(&tri::<N>(), &mut q);
        q
    }

    /// Input length for the properties (shorter under miri).
    const MAX_LEN: usize = if cfg!(miri) { 24 } else { 200 };

    fn arb_f32(max: usize) -> impl Strategy<Value = Vec<f32>> {
        proptest::collection::vec(-1.0f32..1.0, 0..max)
    }

    fn arb_i16(max: usize) -> impl Strategy<Value = Vec<i16>> {
        proptest::collection::vec(any::<i16>(), 0..max)
    }

    fn cuts() -> impl Strategy<Value = Vec<usize>> {
        proptest::collection::vec(0usize..1000, 0..6)
    }

    fn c32s(v: &[f32]) -> Vec<C32> {
        v.chunks_exact(2).map(|c| C32::new(c[0], c[1])).collect()
    }

    fn ci16s(v: &[i16]) -> Vec<Ci16> {
        v.chunks_exact(2).map(|c| Ci16::new(c[0], c[1])).collect()
    }

    proptest! {
        #![proptest_config(proptest_config())]

        #[test]
        fn prop_split_fir_f32(x in arb_f32(MAX_LEN), c in cuts()) {
            split_1to1(&Fir::new(taps_f32::<9>()), &x, &c);
            split_1to1(&SymFir::new(taps_f32::<9>()), &x, &c);
            split_1to1(&SymFir::new(taps_f32::<10>()), &c32s(&x), &c);
            split_1to1(&Fir::new(taps_f32::<10>()), &c32s(&x), &c);
        }

        #[test]
        fn prop_split_fir_q15(x in arb_i16(MAX_LEN), c in cuts()) {
            split_1to1(&Fir::new(taps_q15::<9>()), &x, &c);
            split_1to1(&SymFir::new(taps_q15::<10>()), &x, &c);
            split_1to1(&SymFir::new(taps_q15::<9>()), &ci16s(&x), &c);
            split_1to1(&Fir::new(taps_q15::<10>()), &ci16s(&x), &c);
        }

        #[test]
        fn prop_split_decimator_f32(x in arb_f32(MAX_LEN), c in cuts()) {
            split_dec::<f32, _, DecimatorState<f32, 9>>(
                &Decimator::<_, 3>::new(Fir::new(taps_f32::<9>())), &x, &c);
            split_dec::<f32, _, DecimatorState<f32, 10>>(
                &Decimator::<_, 4>::new(SymFir::new(taps_f32::<10>())), &x, &c);
            split_dec::<C32, _, DecimatorState<C32, 9>>(
                &Decimator::<_, 5>::new(SymFir::new(taps_f32::<9>())), &c32s(&x), &c);
            split_dec::<C32, _, DecimatorState<C32, 4>>(
                &Decimator::<_, 1>::new(Fir::new(taps_f32::<4>())), &c32s(&x), &c);
        }

        #[test]
        fn prop_split_decimator_q15(x in arb_i16(MAX_LEN), c in cuts()) {
            split_dec::<i16, _, DecimatorState<i16, 9>>(
                &Decimator::<_, 2>::new(SymFir::new(taps_q15::<9>())), &x, &c);
            split_dec::<i16, _, DecimatorState<i16, 10>>(
                &Decimator::<_, 3>::new(Fir::new(taps_q15::<10>())), &x, &c);
            split_dec::<Ci16, _, DecimatorState<Ci16, 10>>(
                &Decimator::<_, 4>::new(SymFir::new(taps_q15::<10>())), &ci16s(&x), &c);
            split_dec::<Ci16, _, DecimatorState<Ci16, 3>>(
                &Decimator::<_, 7>::new(Fir::new(taps_q15::<3>())), &ci16s(&x), &c);
        }
    }
}
