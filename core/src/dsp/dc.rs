//! DC blocker: a first-order high-pass with a zero at DC.
//!
//! ```text
//! y[n] = x[n] − x[n−1] + a · y[n−1]        H(z) = (1 − z⁻¹) / (1 − a z⁻¹)
//! ```
//!
//! with the pole `a = 1 − β`, `β = 2π f_c` (`f_c` in cycles per sample,
//! i.e. `f_c,Hz / f_s`). For `f_c ≪ 0.5` the −3 dB frequency is `f_c`
//! (exactly, `1 − cos ω₃ = β² / (2 (1 + β))`), the time constant is `1/β`
//! samples, and the loss at `10 f_c` is below 0.043 dB
//! (`|H|² ≈ 100 / (101 − 100β)`); the gain is 0 at DC and 1 at `f_s/2`. The impulse response sums to 0 and
//! its absolute sum is 2, so `|y| ≤ 2 max |x|`.
//!
//! # Fixed point without limit cycles or offset
//!
//! [`DcBlockerQ15`] runs the same transfer function in the equivalent
//! "subtract a running DC estimate" form:
//!
//! ```text
//! y[n] = x[n] − round(D[n])          D[n+1] = D[n] + β y[n]
//! ```
//!
//! (eliminating `D` gives `y[n] − y[n−1] = x[n] − x[n−1] − β y[n−1]`, the
//! recurrence above). `D` is kept in an `i64` with 31 fraction bits below
//! the Q15 LSB and `β` is Q31, so the only rounding is of `D` at the output,
//! and that rounding error is not lost: it stays in `D` and is fed back
//! (fraction saving / first-order error feedback). The quantisation noise
//! is therefore shaped by the same `H(z)`, which has a zero at DC, so the
//! filter adds no DC offset of its own; and for a constant input `D`
//! climbs monotonically (steps `β |y|` smaller than one LSB) until
//! `round(D) = x`, after which `y` is exactly 0 for ever: no limit cycle.
//! The output noise is about that of one rounding (−101 dBFS).

use crate::dsp::SplitProcess;
use crate::dsp::fixed::sat16;
use crate::{C32, Ci16, Complex};

/// Largest accepted cut-off, `1/(2π)` cycles per sample (where `a` = 0).
const MAX_FC: f64 = 1.0 / (2.0 * core::f64::consts::PI);

#[cold]
#[inline(never)]
fn fc_out_of_range() -> ! {
    panic!("DC blocker cut-off must be in 0 ..< 1/(2π) cycles per sample")
}

/// `f32` DC blocker `y[n] = x[n] − x[n−1] + a y[n−1]` (see the
/// [module docs](self)), for real ([`f32`]) and complex ([`C32`]) samples
/// with a [`DcBlockerState`] of the same type.
///
/// A constant input decays to exactly 0 (through subnormals).
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DcBlocker {
    a: f32,
}

impl DcBlocker {
    /// A DC blocker with cut-off `fc` cycles per sample: `a = 1 − 2π fc`
    /// (computed in `f64`).
    ///
    /// # Panics
    /// Panics unless `0 ≤ fc < 1/(2π)` (≈ 0.159).
    ///
    /// ```
    /// use airwaves_core::dsp::dc::DcBlocker;
    /// // 1 kHz at 2.4 MS/s.
    /// let dc = DcBlocker::new(1e3 / 2.4e6);
    /// assert!((dc.pole() - 0.997_382).abs() < 1e-6);
    /// ```
    pub fn new(fc: f64) -> Self {
        if !(0.0..MAX_FC).contains(&fc) {
            fc_out_of_range()
        }
        Self {
            a: (1.0 - 2.0 * core::f64::consts::PI * fc) as f32,
        }
    }

    /// A DC blocker with pole `a` (stable for |a| < 1; a DC blocker wants
    /// `a` just below 1).
    ///
    /// ```
    /// use airwaves_core::dsp::dc::DcBlocker;
    /// assert_eq!(DcBlocker::from_pole(0.995).pole(), 0.995);
    /// ```
    pub const fn from_pole(a: f32) -> Self {
        Self { a }
    }

    /// The pole `a`.
    pub const fn pole(&self) -> f32 {
        self.a
    }
}

/// State of a [`DcBlocker`]: the previous input and output (`T` is `f32`
/// or [`C32`]).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DcBlockerState<T> {
    x1: T,
    y1: T,
}

impl<T: Default> DcBlockerState<T> {
    /// A zeroed state (as after a long run of zeros).
    ///
    /// ```
    /// use airwaves_core::dsp::dc::DcBlockerState;
    /// let s: DcBlockerState<f32> = DcBlockerState::new();
    /// assert_eq!(s, DcBlockerState::default());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }
}

impl SplitProcess<f32, f32, DcBlockerState<f32>> for DcBlocker {
    #[inline]
    fn process(&self, state: &mut DcBlockerState<f32>, x: f32) -> f32 {
        let y = x - state.x1 + self.a * state.y1;
        state.x1 = x;
        state.y1 = y;
        y
    }
}

impl SplitProcess<C32, C32, DcBlockerState<C32>> for DcBlocker {
    #[inline]
    fn process(&self, state: &mut DcBlockerState<C32>, x: C32) -> C32 {
        let y = x - state.x1 + state.y1 * self.a;
        state.x1 = x;
        state.y1 = y;
        y
    }
}

/// Fixed-point DC blocker on Q15 data with a Q31 coefficient and error
/// feedback (see the [module docs](self)): real (`i16`, state
/// `DcBlockerQ15State<i64>`) and complex ([`Ci16`], state
/// `DcBlockerQ15State<Complex<i64>>`).
///
/// The output is saturated to Q15 (it can reach twice full scale on a
/// full-scale step); the state keeps the unsaturated value, so the filter
/// stays linear. A constant input gives exactly 0 once settled.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DcBlockerQ15 {
    /// `β = 1 − a` in Q31.
    beta: i32,
}

impl DcBlockerQ15 {
    /// A DC blocker with cut-off `fc` cycles per sample:
    /// `β = round(2π fc · 2³¹)` (computed in `f64`; resolution
    /// 7.4e-11 cycles per sample).
    ///
    /// # Panics
    /// Panics unless `0 ≤ fc < 1/(2π)` (≈ 0.159).
    ///
    /// ```
    /// use airwaves_core::dsp::dc::DcBlockerQ15;
    /// let dc = DcBlockerQ15::new(1e3 / 2.4e6);
    /// assert_eq!(dc.beta_q31(), 5_622_099);
    /// ```
    pub fn new(fc: f64) -> Self {
        if !(0.0..MAX_FC).contains(&fc) {
            fc_out_of_range()
        }
        let beta = libm::round(2.0 * core::f64::consts::PI * fc * 2_147_483_648.0);
        // fc < 1/(2π) keeps β ≤ 2³¹ − 1 after rounding except at the very
        // top, which `as` saturates.
        Self { beta: beta as i32 }
    }

    /// A DC blocker with `β = 1 − a` given in Q31 (0 ..= `i32::MAX`).
    ///
    /// # Panics
    /// Panics if `beta_q31` is negative.
    ///
    /// ```
    /// use airwaves_core::dsp::dc::DcBlockerQ15;
    /// // β = 2⁻⁸: a = 0.996, time constant 256 samples.
    /// let dc = DcBlockerQ15::from_beta_q31(1 << 23);
    /// assert_eq!(dc.beta_q31(), 1 << 23);
    /// ```
    pub const fn from_beta_q31(beta_q31: i32) -> Self {
        assert!(beta_q31 >= 0, "β must be non-negative");
        Self { beta: beta_q31 }
    }

    /// `β = 1 − a` in Q31.
    pub const fn beta_q31(&self) -> i32 {
        self.beta
    }

    /// One real step: returns the unsaturated output and updates `d`.
    #[inline(always)]
    fn step(&self, d: &mut i64, x: i16) -> i32 {
        let y = x as i32 - ((*d + (1 << 30)) >> 31) as i32;
        *d += self.beta as i64 * y as i64;
        y
    }
}

/// State of a [`DcBlockerQ15`]: the DC estimate `D` (`i64` for real,
/// `Complex<i64>` for complex data), Q15 with 31 further fraction bits
/// (i.e. scaled by 2⁴⁶).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DcBlockerQ15State<T> {
    d: T,
}

impl<T: Default> DcBlockerQ15State<T> {
    /// A state with a DC estimate of 0.
    ///
    /// ```
    /// use airwaves_core::dsp::dc::DcBlockerQ15State;
    /// let s: DcBlockerQ15State<i64> = DcBlockerQ15State::new();
    /// assert_eq!(s.dc(), 0);
    /// ```
    pub fn new() -> Self {
        Self::default()
    }
}

impl DcBlockerQ15State<i64> {
    /// A state whose DC estimate starts at `dc` (Q15), to skip the
    /// start-up transient when the offset is known.
    ///
    /// ```
    /// use airwaves_core::dsp::dc::{DcBlockerQ15, DcBlockerQ15State};
    /// use airwaves_core::dsp::SplitProcess;
    /// let mut s = DcBlockerQ15State::<i64>::with_dc(-100);
    /// assert_eq!(DcBlockerQ15::new(1e-3).process(&mut s, -100), 0);
    /// ```
    pub const fn with_dc(dc: i16) -> Self {
        Self {
            d: (dc as i64) << 31,
        }
    }

    /// The current DC estimate, Q15 (rounded; what the next sample has
    /// subtracted from it).
    pub const fn dc(&self) -> i32 {
        ((self.d + (1 << 30)) >> 31) as i32
    }
}

impl DcBlockerQ15State<Complex<i64>> {
    /// A state whose DC estimate starts at `dc` (Q15).
    ///
    /// ```
    /// use airwaves_core::dsp::dc::DcBlockerQ15State;
    /// use airwaves_core::{Ci16, Complex};
    /// let s = DcBlockerQ15State::<Complex<i64>>::with_dc(Ci16::new(3, -4));
    /// assert_eq!(s.dc(), Complex::new(3, -4));
    /// ```
    pub const fn with_dc(dc: Ci16) -> Self {
        Self {
            d: Complex::new((dc.re as i64) << 31, (dc.im as i64) << 31),
        }
    }

    /// The current DC estimate, Q15 (rounded).
    pub const fn dc(&self) -> Complex<i32> {
        Complex::new(
            ((self.d.re + (1 << 30)) >> 31) as i32,
            ((self.d.im + (1 << 30)) >> 31) as i32,
        )
    }
}

impl SplitProcess<i16, i16, DcBlockerQ15State<i64>> for DcBlockerQ15 {
    #[inline]
    fn process(&self, state: &mut DcBlockerQ15State<i64>, x: i16) -> i16 {
        sat16(self.step(&mut state.d, x))
    }
}

impl SplitProcess<Ci16, Ci16, DcBlockerQ15State<Complex<i64>>> for DcBlockerQ15 {
    #[inline]
    fn process(&self, state: &mut DcBlockerQ15State<Complex<i64>>, x: Ci16) -> Ci16 {
        Ci16::new(
            sat16(self.step(&mut state.d.re, x.re)),
            sat16(self.step(&mut state.d.im, x.im)),
        )
    }
}

#[cfg(test)]
mod test {
    extern crate std;

    use super::*;
    use crate::rng::Rng;
    use crate::testing::{db, fit_tone};
    use core::f64::consts::PI;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// The f64 reference: `y[n] = x[n] − x[n−1] + a y[n−1]`.
    fn reference(a: f64, x: &[f64]) -> Vec<f64> {
        let (mut x1, mut y1) = (0.0, 0.0);
        x.iter()
            .map(|&x| {
                let y = x - x1 + a * y1;
                x1 = x;
                y1 = y;
                y
            })
            .collect()
    }

    /// A Q15 tone at `f` with amplitude `amp` plus `dc`, and its f64 value.
    fn tone_q15(n: usize, f: f64, amp: f64, dc: f64) -> (Vec<i16>, Vec<f64>) {
        let q: Vec<i16> = (0..n)
            .map(|k| {
                libm::round(32768.0 * (amp * libm::sin(2.0 * PI * f * k as f64 + 0.4) + dc)) as i16
            })
            .collect();
        let v = q.iter().map(|&q| q as f64 / 32768.0).collect();
        (q, v)
    }

    fn snr_db(want: &[f64], got: &[f64]) -> f64 {
        let p: f64 = want.iter().map(|v| v * v).sum();
        let e: f64 = want.iter().zip(got).map(|(w, g)| (w - g) * (w - g)).sum();
        db(p / e.max(1e-300))
    }

    #[test]
    fn test_against_f64() {
        let n = if cfg!(miri) { 256 } else { 16384 };
        let fc = 1e-3;
        let fixed = DcBlockerQ15::new(fc);
        let float = DcBlocker::new(fc);
        // The reference uses the fixed-point pole exactly.
        let a = 1.0 - fixed.beta_q31() as f64 / 2_147_483_648.0;
        let (xq, xv) = tone_q15(n, 0.0123, 0.5, 0.2);
        let want = reference(a, &xv);

        let mut s = DcBlockerQ15State::new();
        let got: Vec<f64> = xq
            .iter()
            .map(|&x| fixed.process(&mut s, x) as f64 / 32768.0)
            .collect();
        let snr_fixed = snr_db(&want, &got);
        // Measured ≈ 92 dB (one rounding: −101 dBFS vs a −9 dBFS tone).
        assert!(snr_fixed >= 80.0, "Q15 SNR {snr_fixed} dB");

        let mut s = DcBlockerState::new();
        let xf: Vec<f32> = xv.iter().map(|&v| v as f32).collect();
        let got: Vec<f64> = xf
            .iter()
            .map(|&x| float.process(&mut s, x) as f64)
            .collect();
        let want = reference(float.pole() as f64, &xv);
        let snr_float = snr_db(&want, &got);
        assert!(snr_float >= 110.0, "f32 SNR {snr_float} dB");
        std::println!("SNR vs f64: Q15 {snr_fixed:.1} dB, f32 {snr_float:.1} dB");

        // Complex paths equal two real ones.
        let mut sc = DcBlockerQ15State::<Complex<i64>>::new();
        let (mut sr, mut si) = (DcBlockerQ15State::new(), DcBlockerQ15State::new());
        let mut sf = DcBlockerState::<C32>::new();
        let (mut sfr, mut sfi) = (DcBlockerState::new(), DcBlockerState::new());
        for (&a, &b) in xq.iter().zip(xq.iter().rev()) {
            let y = fixed.process(&mut sc, Ci16::new(a, b));
            assert_eq!(
                y,
                Ci16::new(fixed.process(&mut sr, a), fixed.process(&mut si, b))
            );
            let (a, b) = (a as f32 / 32768.0, b as f32 / 32768.0);
            let y = float.process(&mut sf, C32::new(a, b));
            assert_eq!(
                y,
                C32::new(float.process(&mut sfr, a), float.process(&mut sfi, b))
            );
        }
    }

    #[test]
    fn test_constant_goes_to_zero() {
        let n = if cfg!(miri) { 200 } else { 20000 };
        let fcs: &[f64] = if cfg!(miri) {
            &[0.01]
        } else {
            &[1e-4, 1e-3, 0.01, 0.1]
        };
        for &fc in fcs {
            let dc = DcBlockerQ15::new(fc);
            for &c in &[i16::MIN, -12345, -1, 1, 77, 16384, i16::MAX] {
                let mut s = DcBlockerQ15State::new();
                let settle = (12.0 / (2.0 * PI * fc)) as usize;
                let y: Vec<i16> = (0..settle.max(n)).map(|_| dc.process(&mut s, c)).collect();
                // Exactly zero after settling: no limit cycle, no offset.
                let tail = &y[settle..];
                assert!(tail.iter().all(|&v| v == 0), "fc={fc} c={c}");
                assert_eq!(s.dc(), c as i32);
            }
            // f32: decays to (at most) a few ulp of the step.
            let dcf = DcBlocker::new(fc);
            let mut s = DcBlockerState::new();
            let settle = (30.0 / (2.0 * PI * fc)) as usize;
            let y = (0..settle)
                .map(|_| dcf.process(&mut s, 0.3f32))
                .last()
                .unwrap_or(0.0);
            assert!(y.abs() < 1e-9, "f32 fc={fc}: {y}");
        }
    }

    #[test]
    fn test_no_limit_cycle_after_noise() {
        let n = if cfg!(miri) { 100 } else { 5000 };
        let dc = DcBlockerQ15::new(5e-3);
        let mut rng = Rng::new(3);
        let mut s = DcBlockerQ15State::<Complex<i64>>::new();
        for _ in 0..n {
            let x = Ci16::new(rng.next_u64() as i16, rng.next_u64() as i16);
            dc.process(&mut s, x);
        }
        // Then silence: the output must reach exactly 0 and stay there.
        let settle = (12.0 / (2.0 * PI * 5e-3)) as usize;
        let mut zeros = 0;
        for k in 0..settle + n {
            let y = dc.process(&mut s, Ci16::new(0, 0));
            if k >= settle {
                assert_eq!(y, Ci16::new(0, 0), "sample {k}");
                zeros += 1;
            }
        }
        assert!(zeros > 0);
    }

    #[test]
    #[cfg_attr(miri, ignore = "heavy under miri")]
    fn test_dc_rejection_on_tone() {
        let n = if cfg!(miri) { 512 } else { 32768 };
        let fc = if cfg!(miri) { 0.02 } else { 1e-3 };
        let skip = (20.0 / (2.0 * PI * fc)) as usize;
        let f = 10.0 * fc;
        let (xq, xv) = tone_q15(skip + n, f, 0.25, -0.3);
        let fixed = DcBlockerQ15::new(fc);
        let mut s = DcBlockerQ15State::new();
        let yq: Vec<f64> = xq
            .iter()
            .map(|&x| fixed.process(&mut s, x) as f64 / 32768.0)
            .collect();
        let float = DcBlocker::new(fc);
        let mut s = DcBlockerState::new();
        let yf: Vec<f64> = xv
            .iter()
            .map(|&x| float.process(&mut s, x as f32) as f64)
            .collect();
        let (amp_in, dc_in, _) = fit_tone(&xv[skip..], f);
        assert!((dc_in + 0.3).abs() < 1e-4);
        for (name, y) in [("q15", &yq), ("f32", &yf)] {
            let (amp, dc, _) = fit_tone(&y[skip..], f);
            let loss = -20.0 * libm::log10(amp / amp_in);
            // Analytic 0.017 dB at 10 fc for fc = 1e-3.
            assert!(loss < 0.05 && loss > -0.01, "{name}: loss {loss} dB");
            // −0.3 of DC in (−10.5 dBFS); the residual is below 0.03 Q15
            // LSB (< −120 dBFS). Measured ≈ 1e-9 (Q15), 2e-8 (f32).
            assert!(dc.abs() < 1e-6, "{name}: residual DC {dc:e}");
            std::println!("{name}: loss at 10 fc {loss:.4} dB, residual DC {dc:e}");
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "heavy under miri")]
    fn test_cutoff_is_3db() {
        // |H(fc)| from the f32 path measured on a tone, for small fc.
        let fc = 2e-3;
        let n = if cfg!(miri) { 300 } else { 20000 };
        let skip = (20.0 / (2.0 * PI * fc)) as usize;
        let dc = DcBlocker::new(fc);
        let mut s = DcBlockerState::new();
        let y: Vec<f64> = (0..skip + n)
            .map(|k| dc.process(&mut s, libm::sin(2.0 * PI * fc * k as f64) as f32) as f64)
            .collect();
        let (amp, _, _) = fit_tone(&y[skip..], fc);
        let g = 20.0 * libm::log10(amp);
        assert!((g + 3.01).abs() < 0.1, "gain at fc {g} dB");
    }

    #[test]
    #[should_panic]
    fn test_bad_cutoff() {
        DcBlocker::new(0.2);
    }

    #[test]
    #[should_panic]
    fn test_bad_cutoff_q15() {
        DcBlockerQ15::new(-1e-3);
    }

    use crate::testing::same_for_any_split as split_eq;

    proptest! {
        #![proptest_config(crate::testing::proptest_config())]

        #[test]
        fn prop_split(
            x in proptest::collection::vec((any::<i16>(), any::<i16>()), 0..if cfg!(miri) { 24 } else { 300 }),
            cuts in proptest::collection::vec(any::<usize>(), 0..6),
            fc in 0.0f64..0.15,
        ) {
            let fixed = DcBlockerQ15::new(fc);
            let float = DcBlocker::new(fc);
            let xc: Vec<Ci16> = x.iter().map(|&(a, b)| Ci16::new(a, b)).collect();
            let xr: Vec<i16> = x.iter().map(|v| v.0).collect();
            let xf: Vec<C32> = x.iter().map(|&(a, b)| C32::new(a as f32, b as f32)).collect();
            let xfr: Vec<f32> = xf.iter().map(|v| v.re).collect();
            prop_assert!(split_eq(&xc, &cuts, DcBlockerQ15State::<Complex<i64>>::new(), |s, x, y| fixed.block(s, x, y)));
            prop_assert!(split_eq(&xr, &cuts, DcBlockerQ15State::<i64>::new(), |s, x, y| fixed.block(s, x, y)));
            prop_assert!(split_eq(&xf, &cuts, DcBlockerState::<C32>::new(), |s, x, y| float.block(s, x, y)));
            prop_assert!(split_eq(&xfr, &cuts, DcBlockerState::<f32>::new(), |s, x, y| float.block(s, x, y)));
        }
    }
}
