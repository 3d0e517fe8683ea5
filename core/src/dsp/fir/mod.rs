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

mod decimator;
mod design;
mod filter;
mod kernels;
#[cfg(test)]
mod tests;

pub use decimator::{Decimate, Decimator, DecimatorState, SplitDecimate};
pub use design::FirDesign;
pub use filter::{Fir, FirKernel, FirState, SymFir};

pub(crate) use crate::dsp::output::output_too_short;
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
