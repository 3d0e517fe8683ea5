//! Digital signal processing primitives.
//!
//! Each block is split into configuration (`&self`: taps, gains, ratios) and
//! state (`&mut …State`: delay lines, phases, accumulators), after idsp's
//! `SplitProcess`. One configuration can drive many channels, and retuning
//! never disturbs state.

pub mod design;
pub mod fixed;
// Output-size checks of block methods.
pub mod output;

// Input conversion, DC removal, NCO and mixing.
pub mod convert;
pub mod dc;
pub mod nco;
// FIR filters and decimators.
pub mod fir;
pub mod halfband;
// IIR filters, de-emphasis and gain control.
pub mod agc;
pub mod deemph;
pub mod iir;
// Phase, magnitude and resampling.
pub mod magnitude;
pub mod phase;
pub mod resample;

/// A sample processor with configuration in `&self` and state in `&mut S`,
/// producing exactly one output per input.
///
/// `process` is the definition. `block` runs it over a slice; implementors
/// override it only where that helps code generation, never to change
/// results, so the output is identical for any split of the input.
pub trait SplitProcess<X: Copy, Y, S: ?Sized> {
    /// Process one sample.
    fn process(&self, state: &mut S, x: X) -> Y;

    /// Process a block of samples.
    ///
    /// `x` and `y` must have the same length (checked in debug builds; in
    /// release the shorter length wins).
    fn block(&self, state: &mut S, x: &[X], y: &mut [Y]) {
        debug_assert_eq!(x.len(), y.len());
        for (x, y) in x.iter().zip(y.iter_mut()) {
            *y = self.process(state, *x);
        }
    }
}

/// In-place block processing for processors whose input and output types
/// agree.
pub trait SplitInplace<X: Copy, S: ?Sized>: SplitProcess<X, X, S> {
    /// Process `xy` in place.
    fn inplace(&self, state: &mut S, xy: &mut [X]) {
        for v in xy.iter_mut() {
            *v = self.process(state, *v);
        }
    }
}

impl<X: Copy, S: ?Sized, P: SplitProcess<X, X, S>> SplitInplace<X, S> for P {}
