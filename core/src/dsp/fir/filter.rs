//! The delay line ([`FirState`]) and the two filter forms over it: direct
//! ([`Fir`]) and symmetric, linear-phase ([`SymFir`]).

#[cfg(doc)]
use super::Decimator;
use super::sealed;
use super::{FirDesign, Sample, Tap, asymmetric_panic, check_headroom};
use crate::dsp::SplitProcess;
#[cfg(doc)]
use crate::{C32, Ci16};

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
    pub(super) fn push(&mut self, x: X) {
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
    pub(super) fn window(&self) -> (&[X::Re], &[X::Im]) {
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
