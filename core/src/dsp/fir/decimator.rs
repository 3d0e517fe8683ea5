//! Integer-ratio decimation: the [`Decimate`] ratio, the [`SplitDecimate`]
//! processing trait, and the polyphase FIR [`Decimator`].

#[cfg(doc)]
use super::{Fir, SymFir};
use super::{FirKernel, FirState, Sample, output_too_short};

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
