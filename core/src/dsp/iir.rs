//! Second-order IIR sections (biquads) and the one-pole low-pass.
//!
//! # Transfer function and sign convention
//!
//! A biquad is
//!
//! ```text
//!         b0 + b1 z⁻¹ + b2 z⁻²
//! H(z) = ----------------------        (a0 normalised to 1)
//!          1 + a1 z⁻¹ + a2 z⁻²
//! ```
//!
//! so the difference equation **subtracts** the feedback terms:
//!
//! ```text
//! y[n] = b0 x[n] + b1 x[n−1] + b2 x[n−2] − a1 y[n−1] − a2 y[n−2]
//! ```
//!
//! This is the convention of the RBJ audio-EQ cookbook, MATLAB and SciPy
//! (`a = [1, a1, a2]`). (idsp stores the negated feedback coefficients; here
//! `a1`, `a2` are the denominator coefficients as written above.) A stable
//! section has both poles inside the unit circle: `|a2| < 1` and
//! `|a1| < 1 + a2`.
//!
//! # Structures
//!
//! - [`Biquad`] (`f32` coefficients) runs `f32` or [`C32`](crate::C32) data (complex data
//!   with real coefficients filters I and Q alike) in either of two
//!   structures, chosen by the state type:
//!   [`Df1State`] (Direct Form I, four delays) or [`Df2tState`] (Direct
//!   Form II Transposed, two delays, the better-conditioned choice in float).
//! - [`BiquadQ15`] runs Q15 data with Q2.29 coefficients and an `i64`
//!   accumulator in Direct Form I, keeping 14 bits below the Q15 LSB in the
//!   recursion (error feedback); see there for why small signals do not
//!   limit-cycle.
//! - [`OnePole`] / [`OnePoleQ15`]: `y += α (x − y)`.
//!
//! Coefficients are designed in `f64` by [`BiquadDesign`] (RBJ cookbook
//! low-pass, high-pass, band-pass and notch) and rounded once to `f32`
//! ([`BiquadDesign::to_f32`]) or Q2.29 ([`BiquadDesign::to_q15`]).

use core::f64::consts::PI;
use core::ops::{Add, Mul, Sub};

use num_complex::Complex;

use super::SplitProcess;
use super::fixed::{round_shift, sat16};
use crate::Ci16;

/// Biquad coefficients in `f64`, the design stage.
///
/// `H(z) = (b0 + b1 z⁻¹ + b2 z⁻²) / (1 + a1 z⁻¹ + a2 z⁻²)` (see the
/// [module docs](self) for the sign convention). The cookbook constructors
/// follow R. Bristow-Johnson's "Cookbook formulae for audio EQ biquad filter
/// coefficients": with `ω0 = 2π f0 / fs` and `α = sin ω0 / (2Q)`, each
/// section is computed with `a0 = 1 + α` and divided through by `a0`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BiquadDesign {
    /// Feed-forward coefficient of `x[n]`.
    pub b0: f64,
    /// Feed-forward coefficient of `x[n−1]`.
    pub b1: f64,
    /// Feed-forward coefficient of `x[n−2]`.
    pub b2: f64,
    /// Denominator coefficient of `z⁻¹` (subtracted: `− a1 y[n−1]`).
    pub a1: f64,
    /// Denominator coefficient of `z⁻²` (subtracted: `− a2 y[n−2]`).
    pub a2: f64,
}

impl BiquadDesign {
    /// Coefficients `b0, b1, b2` over `a0, a1, a2`, normalised by `a0`.
    ///
    /// ```
    /// use airwaves_core::dsp::iir::BiquadDesign;
    /// let d = BiquadDesign::new([2.0, 0.0, 0.0], [2.0, -1.0, 0.0]);
    /// assert_eq!((d.b0, d.a1), (1.0, -0.5));
    /// ```
    ///
    /// # Panics
    /// Panics if `a[0]` is zero or not finite.
    pub fn new(b: [f64; 3], a: [f64; 3]) -> Self {
        assert!(
            a[0] != 0.0 && a[0].is_finite(),
            "a0 must be finite and non-zero"
        );
        let g = 1.0 / a[0];
        Self {
            b0: b[0] * g,
            b1: b[1] * g,
            b2: b[2] * g,
            a1: a[1] * g,
            a2: a[2] * g,
        }
    }

    /// `(cos ω0, α)` of the cookbook, with argument checks.
    fn omega(f0: f64, fs: f64, q: f64) -> (f64, f64) {
        assert!(fs > 0.0 && f0 > 0.0 && f0 < 0.5 * fs, "need 0 < f0 < fs/2");
        assert!(q > 0.0 && q.is_finite(), "need Q > 0");
        let w0 = 2.0 * PI * f0 / fs;
        (libm::cos(w0), libm::sin(w0) / (2.0 * q))
    }

    /// Second-order low-pass: `H(s) = 1 / (s² + s/Q + 1)`, bilinear with
    /// the corner prewarped to `f0`. DC gain 1, gain at `f0` equal to `Q`
    /// (−3.01 dB for `Q = 1/√2`, Butterworth).
    ///
    /// ```
    /// use airwaves_core::dsp::iir::BiquadDesign;
    /// let d = BiquadDesign::lowpass(1000.0, 48_000.0, core::f64::consts::FRAC_1_SQRT_2);
    /// assert!((d.magnitude(0.0) - 1.0).abs() < 1e-12);
    /// assert!((d.magnitude(1000.0 / 48_000.0) - core::f64::consts::FRAC_1_SQRT_2).abs() < 1e-9);
    /// ```
    ///
    /// # Panics
    /// Panics unless `0 < f0 < fs/2` and `Q > 0`.
    pub fn lowpass(f0: f64, fs: f64, q: f64) -> Self {
        let (c, alpha) = Self::omega(f0, fs, q);
        let b = (1.0 - c) * 0.5;
        Self::new([b, 1.0 - c, b], [1.0 + alpha, -2.0 * c, 1.0 - alpha])
    }

    /// Second-order high-pass: `H(s) = s² / (s² + s/Q + 1)`. Gain 1 at
    /// Nyquist, `Q` at `f0`.
    ///
    /// ```
    /// use airwaves_core::dsp::iir::BiquadDesign;
    /// let d = BiquadDesign::highpass(300.0, 48_000.0, 0.7071);
    /// assert!(d.magnitude(0.0) < 1e-12);
    /// assert!((d.magnitude(0.5) - 1.0).abs() < 1e-12);
    /// ```
    ///
    /// # Panics
    /// Panics unless `0 < f0 < fs/2` and `Q > 0`.
    pub fn highpass(f0: f64, fs: f64, q: f64) -> Self {
        let (c, alpha) = Self::omega(f0, fs, q);
        let b = (1.0 + c) * 0.5;
        Self::new([b, -(1.0 + c), b], [1.0 + alpha, -2.0 * c, 1.0 - alpha])
    }

    /// Second-order band-pass with 0 dB peak gain at `f0`:
    /// `H(s) = (s/Q) / (s² + s/Q + 1)`; `Q = f0 / bandwidth(−3 dB)`.
    ///
    /// ```
    /// use airwaves_core::dsp::iir::BiquadDesign;
    /// let d = BiquadDesign::bandpass(5000.0, 48_000.0, 2.0);
    /// assert!((d.magnitude(5000.0 / 48_000.0) - 1.0).abs() < 1e-12);
    /// ```
    ///
    /// # Panics
    /// Panics unless `0 < f0 < fs/2` and `Q > 0`.
    pub fn bandpass(f0: f64, fs: f64, q: f64) -> Self {
        let (c, alpha) = Self::omega(f0, fs, q);
        Self::new([alpha, 0.0, -alpha], [1.0 + alpha, -2.0 * c, 1.0 - alpha])
    }

    /// Notch (band-stop): `H(s) = (s² + 1) / (s² + s/Q + 1)`; a zero on
    /// the unit circle at `f0`, gain 1 at DC and Nyquist.
    ///
    /// ```
    /// use airwaves_core::dsp::iir::BiquadDesign;
    /// let d = BiquadDesign::notch(50.0, 8000.0, 10.0);
    /// assert!(d.magnitude(50.0 / 8000.0) < 1e-9);
    /// ```
    ///
    /// # Panics
    /// Panics unless `0 < f0 < fs/2` and `Q > 0`.
    pub fn notch(f0: f64, fs: f64, q: f64) -> Self {
        let (c, alpha) = Self::omega(f0, fs, q);
        Self::new([1.0, -2.0 * c, 1.0], [1.0 + alpha, -2.0 * c, 1.0 - alpha])
    }

    /// Frequency response `H(e^{jω})` at `f` cycles per sample (`ω = 2πf`).
    pub fn response(&self, f: f64) -> Complex<f64> {
        let w = 2.0 * PI * f;
        let z1 = Complex::new(libm::cos(w), -libm::sin(w)); // z⁻¹
        let z2 = z1 * z1;
        let num = z1 * self.b1 + z2 * self.b2 + self.b0;
        let den = z1 * self.a1 + z2 * self.a2 + 1.0;
        num / den
    }

    /// `|H(e^{j2πf})|` at `f` cycles per sample.
    pub fn magnitude(&self, f: f64) -> f64 {
        let h = self.response(f);
        libm::sqrt(h.re * h.re + h.im * h.im)
    }

    /// Round to `f32` coefficients.
    pub fn to_f32(&self) -> Biquad {
        Biquad {
            b0: self.b0 as f32,
            b1: self.b1 as f32,
            b2: self.b2 as f32,
            a1: self.a1 as f32,
            a2: self.a2 as f32,
        }
    }

    /// Round to Q2.29 coefficients (`i32`, scale 2²⁹, range
    /// −4 ..= 4 − 2⁻²⁹). `None` if any coefficient is outside that range
    /// (no cookbook design is).
    pub fn to_q15(&self) -> Option<BiquadQ15> {
        Some(BiquadQ15 {
            b: [q29(self.b0)?, q29(self.b1)?, q29(self.b2)?],
            a: [q29(self.a1)?, q29(self.a2)?],
        })
    }
}

/// Round `x` to Q2.29, or `None` if outside −4 ..= 4 − 2⁻²⁹.
fn q29(x: f64) -> Option<i32> {
    let v = libm::round(x * (1u64 << Q) as f64);
    if v >= i32::MIN as f64 && v <= i32::MAX as f64 {
        Some(v as i32)
    } else {
        None
    }
}

/// A biquad with `f32` coefficients.
///
/// `H(z) = (b0 + b1 z⁻¹ + b2 z⁻²) / (1 + a1 z⁻¹ + a2 z⁻²)`. It processes
/// `f32` and [`C32`](crate::C32) samples; the structure is chosen by the state:
///
/// - [`Df1State`]: `y = b0 x + b1 x₁ + b2 x₂ − a1 y₁ − a2 y₂`;
/// - [`Df2tState`]: `y = b0 x + s₁; s₁ ← b1 x − a1 y + s₂; s₂ ← b2 x − a2 y`.
///
/// ```
/// use airwaves_core::dsp::SplitProcess;
/// use airwaves_core::dsp::iir::{BiquadDesign, Df2tState};
/// let lp = BiquadDesign::lowpass(1000.0, 48_000.0, 0.7071).to_f32();
/// let mut s = Df2tState::<f32>::default();
/// let mut y = 0.0;
/// for _ in 0..2000 {
///     y = lp.process(&mut s, 1.0);
/// }
/// assert!((y - 1.0).abs() < 1e-4); // DC gain 1
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Biquad {
    /// Feed-forward coefficient of `x[n]`.
    pub b0: f32,
    /// Feed-forward coefficient of `x[n−1]`.
    pub b1: f32,
    /// Feed-forward coefficient of `x[n−2]`.
    pub b2: f32,
    /// Denominator coefficient of `z⁻¹` (subtracted).
    pub a1: f32,
    /// Denominator coefficient of `z⁻²` (subtracted).
    pub a2: f32,
}

/// Direct Form I state: the last two inputs and outputs. `T` is `f32` or
/// [`C32`](crate::C32). `Default` is the zero state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Df1State<T> {
    x: [T; 2],
    y: [T; 2],
}

/// Direct Form II Transposed state: two partial sums. `T` is `f32` or
/// [`C32`](crate::C32). `Default` is the zero state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Df2tState<T> {
    s: [T; 2],
}

impl<T> SplitProcess<T, T, Df1State<T>> for Biquad
where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<f32, Output = T>,
{
    #[inline]
    fn process(&self, s: &mut Df1State<T>, x: T) -> T {
        let y =
            x * self.b0 + s.x[0] * self.b1 + s.x[1] * self.b2 - s.y[0] * self.a1 - s.y[1] * self.a2;
        s.x = [x, s.x[0]];
        s.y = [y, s.y[0]];
        y
    }
}

impl<T> SplitProcess<T, T, Df2tState<T>> for Biquad
where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<f32, Output = T>,
{
    #[inline]
    fn process(&self, s: &mut Df2tState<T>, x: T) -> T {
        let y = x * self.b0 + s.s[0];
        s.s[0] = x * self.b1 - y * self.a1 + s.s[1];
        s.s[1] = x * self.b2 - y * self.a2;
        y
    }
}

/// Fractional bits of the Q2.29 coefficients.
const Q: u32 = 29;

/// Bits below the Q15 LSB kept in the fixed-point recursion (Q15 → Q29).
const EXTRA: u32 = 14;

/// A biquad for Q15 data with Q2.29 coefficients.
///
/// Coefficients are `i32` scaled by 2²⁹ (range −4 ..= 4 − 2⁻²⁹, so every
/// stable section's `a1`, `a2` and every cookbook `b` fit). Direct Form I
/// whose histories are held in Q29 (`i32`; the Q15 value with 14 more
/// fraction bits), summed in an `i64` with first-order error feedback:
///
/// ```text
/// acc  = b0 x[n] + b1 x[n−1] + b2 x[n−2] − a1 y[n−1] − a2 y[n−2] + e[n−1]   (Q58)
/// v    = round(acc / 2²⁹),   e[n] = acc − v·2²⁹   (|e| ≤ 2²⁸)
/// y[n] = clamp(v, −2²⁹, 2²⁹ − 1)                                            (Q29)
/// out  = sat16(round(y[n] / 2¹⁴))                                           (Q15)
/// ```
///
/// with `x` the Q15 input widened exactly to Q29. No overflow: each product
/// is below 2³¹ · 2²⁹ and five of them stay below 2⁶³. `y` saturates to the
/// Q15 range ±1.0, so the feedback is the output that was delivered; `e`
/// is a rounding remainder whether or not `y` saturated, so an overload
/// cannot wind it up.
///
/// # Noise and limit cycles
///
/// Two measures keep rounding out of the signal:
///
/// - **Extended-precision feedback.** Only the delivered output is rounded
///   to Q15; the recursion feeds back `y` with 14 bits below the Q15 LSB.
///   (Equivalently, the output's rounding remainder is fed back through the
///   section's own `a1`, `a2`.) So the output rounding reaches the output as
///   plain white noise, not filtered by `1/A(z)`: a high-Q or low-corner
///   section does not amplify it, and the noise is the Q15 rounding itself
///   (93 dB SNR for a −6 dBFS tone through a low-pass at fs/50, tested ≥
///   70 dB).
/// - **First-order error feedback** of the Q29 rounding remainder `e`: its
///   error reaches `y` shaped by `(1 − z⁻¹)/A(z)`, zero at DC, and no fraction
///   is ever dropped, so the recursion cannot park on a non-zero DC value.
///   Without it, a 50 Hz, Q = 20 low-pass at 48 kHz (`1 + a1 + a2 ≈ 4·10⁻⁵`)
///   stuck at ±1 LSB after its input stopped; oscillatory zero-input limit
///   cycles stay near the Q29 LSB (about `0.5/(1 − a2)` Q29 LSBs), far below
///   the 2¹³ that would show in the output.
///
/// Tested: after noise at −6 … −80 dBFS, zero input gives outputs of exactly
/// 0 for low-pass, high-pass, band-pass and notch sections up to Q = 30,
/// including the 50 Hz one above. (First-order error feedback alone, with a
/// Q15 output history, let a Q = 5 band-pass ring at ±2 LSB.)
///
/// Complex [`Ci16`] samples use one state per rail, `[BiquadQ15State; 2]`
/// (I then Q).
///
/// ```
/// use airwaves_core::dsp::SplitProcess;
/// use airwaves_core::dsp::iir::{BiquadDesign, BiquadQ15State};
/// let lp = BiquadDesign::lowpass(1000.0, 48_000.0, 0.7071).to_q15().unwrap();
/// let mut s = BiquadQ15State::default();
/// let mut y = 0;
/// for _ in 0..2000 {
///     y = lp.process(&mut s, 16384i16);
/// }
/// assert_eq!(y, 16384); // DC gain exactly 1 after settling
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BiquadQ15 {
    /// `[b0, b1, b2]` in Q2.29.
    pub b: [i32; 3],
    /// `[a1, a2]` in Q2.29 (subtracted, as in the module docs).
    pub a: [i32; 2],
}

/// Direct Form I state of a [`BiquadQ15`]: `x[n−1], x[n−2]` and
/// `y[n−1], y[n−2]` in Q29 and the rounding remainder `e[n−1]` (Q58, see
/// there). `Default` is the zero state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BiquadQ15State {
    x: [i32; 2],
    y: [i32; 2],
    e: i32,
}

impl BiquadQ15 {
    #[inline(always)]
    fn step(&self, s: &mut BiquadQ15State, x: i16) -> i16 {
        let x = (x as i32) << EXTRA;
        let [b0, b1, b2] = self.b;
        let [a1, a2] = self.a;
        let acc = b0 as i64 * x as i64 + b1 as i64 * s.x[0] as i64 + b2 as i64 * s.x[1] as i64
            - a1 as i64 * s.y[0] as i64
            - a2 as i64 * s.y[1] as i64
            + s.e as i64;
        let y = (acc + (1 << (Q - 1))) >> Q;
        // The remainder of the rounding, in −2²⁸ ..= 2²⁸ − 1 whether or not y
        // then saturates (so an overload cannot wind it up).
        s.e = (acc - (y << Q)) as i32;
        let y = y.clamp(-(1 << 29), (1 << 29) - 1) as i32;
        s.x = [x, s.x[0]];
        s.y = [y, s.y[0]];
        sat16(round_shift(y, EXTRA))
    }
}

impl SplitProcess<i16, i16, BiquadQ15State> for BiquadQ15 {
    #[inline]
    fn process(&self, s: &mut BiquadQ15State, x: i16) -> i16 {
        self.step(s, x)
    }
}

impl SplitProcess<Ci16, Ci16, [BiquadQ15State; 2]> for BiquadQ15 {
    #[inline]
    fn process(&self, s: &mut [BiquadQ15State; 2], x: Ci16) -> Ci16 {
        let [si, sq] = s;
        Ci16::new(self.step(si, x.re), self.step(sq, x.im))
    }
}

/// The smoothing factor `α = 1 − e^{−2π fc / fs}` of a one-pole low-pass
/// with corner `fc`: the impulse-invariant image of `1 / (1 + s/(2π fc))`.
fn alpha_from_corner(fc: f64, fs: f64) -> f64 {
    assert!(fc > 0.0 && fs > 0.0, "need fc > 0 and fs > 0");
    1.0 - libm::exp(-2.0 * PI * fc / fs)
}

/// `α = 1 − e^{−1/(τ fs)}` for a time constant `τ` in seconds.
fn alpha_from_tau(tau: f64, fs: f64) -> f64 {
    assert!(tau > 0.0 && fs > 0.0, "need tau > 0 and fs > 0");
    1.0 - libm::exp(-1.0 / (tau * fs))
}

/// One-pole low-pass (exponential smoother) in `f32`:
/// `y[n] = y[n−1] + α (x[n] − y[n−1])`, i.e.
/// `H(z) = α / (1 − (1 − α) z⁻¹)`, DC gain 1, for `0 < α ≤ 1`.
///
/// `α = 1 − e^{−2π fc / fs}` places the pole at `e^{−2π fc/fs}`, the image
/// of the analog pole of `1/(1 + s/(2π fc))` (impulse invariance); with a
/// time constant `τ` (s), `fc = 1/(2πτ)` and `α = 1 − e^{−1/(τ fs)}`: the
/// step response reaches `1 − 1/e` after `τ fs` samples. Processes `f32`
/// and [`C32`](crate::C32) through [`OnePoleState`].
///
/// ```
/// use airwaves_core::dsp::iir::OnePole;
/// let lp = OnePole::from_corner(100.0, 48_000.0);
/// let expected = 1.0 - (-2.0 * core::f64::consts::PI * 100.0 / 48_000.0).exp();
/// assert!((lp.alpha() as f64 - expected).abs() < 1e-7);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OnePole {
    alpha: f32,
}

impl OnePole {
    /// A one-pole with the given `α`.
    ///
    /// ```
    /// use airwaves_core::dsp::iir::OnePole;
    /// assert_eq!(OnePole::new(0.25).alpha(), 0.25);
    /// ```
    ///
    /// # Panics
    /// Panics unless `0 < α ≤ 1`.
    pub fn new(alpha: f32) -> Self {
        assert!(alpha > 0.0 && alpha <= 1.0, "need 0 < alpha <= 1");
        Self { alpha }
    }

    /// `α = 1 − e^{−2π fc / fs}` for a corner `fc` (Hz) at rate `fs` (Hz).
    ///
    /// ```
    /// use airwaves_core::dsp::iir::OnePole;
    /// let a = OnePole::from_corner(1000.0, 48_000.0).alpha();
    /// assert!((a - 0.122_70).abs() < 1e-4);
    /// ```
    ///
    /// # Panics
    /// Panics unless `fc > 0` and `fs > 0`.
    pub fn from_corner(fc: f64, fs: f64) -> Self {
        Self::new(alpha_from_corner(fc, fs) as f32)
    }

    /// `α = 1 − e^{−1/(τ fs)}` for a time constant `τ` (s) at rate `fs`.
    ///
    /// ```
    /// use airwaves_core::dsp::iir::OnePole;
    /// let a = OnePole::from_time_constant(1e-3, 48_000.0).alpha();
    /// assert!((a - (1.0 - (-1.0f32 / 48.0).exp())).abs() < 1e-6);
    /// ```
    ///
    /// # Panics
    /// Panics unless `τ > 0` and `fs > 0`.
    pub fn from_time_constant(tau: f64, fs: f64) -> Self {
        Self::new(alpha_from_tau(tau, fs) as f32)
    }

    /// The smoothing factor `α`.
    pub fn alpha(&self) -> f32 {
        self.alpha
    }
}

/// One-pole state: the last output `y[n−1]`. `T` is `f32` or [`C32`](crate::C32).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OnePoleState<T> {
    y: T,
}

impl<T> OnePoleState<T> {
    /// A state whose last output is `y` (e.g. to start settled).
    pub fn new(y: T) -> Self {
        Self { y }
    }
}

impl<T> SplitProcess<T, T, OnePoleState<T>> for OnePole
where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<f32, Output = T>,
{
    #[inline]
    fn process(&self, s: &mut OnePoleState<T>, x: T) -> T {
        s.y = s.y + (x - s.y) * self.alpha;
        s.y
    }
}

/// One-pole low-pass for Q15 data with a Q31 state and a Q31 `α`.
///
/// `y ← y + round(α (x·2¹⁶ − y))` with `y` the Q15 output carrying 16
/// extra fraction bits (Q31 in an `i32`) and `α` in Q31 (`i32`,
/// `1 − 2⁻³¹` stands for 1). The product is formed in `i64`. The output is
/// `y` rounded to Q15. Because the state keeps 16 bits below the Q15 LSB, an
/// input of one LSB still moves the state while `α ≥ 2⁻¹⁶`, and the state
/// settles within `0.5/α` Q31 units of the input, so a constant input is
/// reproduced exactly (no dead band of small inputs). `α` from a corner or
/// time constant as in [`OnePole`]. Complex [`Ci16`] samples use
/// `[OnePoleQ15State; 2]`.
///
/// ```
/// use airwaves_core::dsp::SplitProcess;
/// use airwaves_core::dsp::iir::{OnePoleQ15, OnePoleQ15State};
/// let lp = OnePoleQ15::from_corner(10.0, 48_000.0);
/// let mut s = OnePoleQ15State::default();
/// let mut y = 0;
/// for _ in 0..20_000 {
///     y = lp.process(&mut s, 1i16); // a single LSB
/// }
/// assert_eq!(y, 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OnePoleQ15 {
    alpha: i32,
}

impl OnePoleQ15 {
    /// A one-pole with `α` given in Q31.
    ///
    /// ```
    /// use airwaves_core::dsp::iir::OnePoleQ15;
    /// assert_eq!(OnePoleQ15::new(1 << 30).alpha(), 1 << 30); // α = 0.5
    /// ```
    ///
    /// # Panics
    /// Panics unless `α > 0`.
    pub fn new(alpha: i32) -> Self {
        assert!(alpha > 0, "need alpha > 0");
        Self { alpha }
    }

    fn from_f64(alpha: f64) -> Self {
        let a = libm::round(alpha * (1u64 << 31) as f64);
        Self::new(a.clamp(1.0, i32::MAX as f64) as i32)
    }

    /// `α = 1 − e^{−2π fc / fs}` (Q31) for a corner `fc` (Hz) at `fs` (Hz).
    ///
    /// ```
    /// use airwaves_core::dsp::iir::OnePoleQ15;
    /// let a = OnePoleQ15::from_corner(1000.0, 48_000.0).alpha();
    /// assert!((a as f64 / 2f64.powi(31) - 0.122_70).abs() < 1e-4);
    /// ```
    ///
    /// # Panics
    /// Panics unless `fc > 0` and `fs > 0`.
    pub fn from_corner(fc: f64, fs: f64) -> Self {
        Self::from_f64(alpha_from_corner(fc, fs))
    }

    /// `α = 1 − e^{−1/(τ fs)}` (Q31) for a time constant `τ` (s).
    ///
    /// ```
    /// use airwaves_core::dsp::iir::OnePoleQ15;
    /// let a = OnePoleQ15::from_time_constant(0.01, 48_000.0).alpha();
    /// assert!((a as f64 / 2f64.powi(31) - 1.0 / 480.0).abs() < 1e-5);
    /// ```
    ///
    /// # Panics
    /// Panics unless `τ > 0` and `fs > 0`.
    pub fn from_time_constant(tau: f64, fs: f64) -> Self {
        Self::from_f64(alpha_from_tau(tau, fs))
    }

    /// `α` in Q31.
    pub fn alpha(&self) -> i32 {
        self.alpha
    }

    #[inline(always)]
    fn step(&self, s: &mut OnePoleQ15State, x: i16) -> i16 {
        let d = ((x as i64) << 16) - s.y as i64;
        // |d| < 2³², α < 2³¹: the product fits an i64, and the new state
        // lies between the old state and x·2¹⁶, so it fits an i32.
        s.y = (s.y as i64 + ((d * self.alpha as i64 + (1 << 30)) >> 31)) as i32;
        sat16(round_shift(s.y, 16))
    }
}

/// [`OnePoleQ15`] state: the output in Q31 (Q15 with 16 extra fraction
/// bits). `Default` is zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OnePoleQ15State {
    y: i32,
}

impl OnePoleQ15State {
    /// A state whose last output is `y` (Q15).
    pub fn new(y: i16) -> Self {
        Self {
            y: (y as i32) << 16,
        }
    }
}

impl SplitProcess<i16, i16, OnePoleQ15State> for OnePoleQ15 {
    #[inline]
    fn process(&self, s: &mut OnePoleQ15State, x: i16) -> i16 {
        self.step(s, x)
    }
}

impl SplitProcess<Ci16, Ci16, [OnePoleQ15State; 2]> for OnePoleQ15 {
    #[inline]
    fn process(&self, s: &mut [OnePoleQ15State; 2], x: Ci16) -> Ci16 {
        let [si, sq] = s;
        Ci16::new(self.step(si, x.re), self.step(sq, x.im))
    }
}

#[cfg(test)]
mod test {
    extern crate std;

    use super::*;
    use crate::C32;
    use crate::dsp::fixed::{f32_to_q15, q15_to_f32};
    use crate::rng::Rng;
    use crate::testing::{db, fit_tone};
    use core::f64::consts::FRAC_1_SQRT_2;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// f64 Direct Form I reference.
    fn ref_f64(d: &BiquadDesign, x: &[f64]) -> Vec<f64> {
        let (mut x1, mut x2, mut y1, mut y2) = (0.0, 0.0, 0.0, 0.0);
        x.iter()
            .map(|&x0| {
                let y = d.b0 * x0 + d.b1 * x1 + d.b2 * x2 - d.a1 * y1 - d.a2 * y2;
                (x2, x1, y2, y1) = (x1, x0, y1, y);
                y
            })
            .collect()
    }

    fn designs() -> [BiquadDesign; 6] {
        let fs = 48_000.0;
        [
            BiquadDesign::lowpass(fs / 50.0, fs, FRAC_1_SQRT_2),
            BiquadDesign::lowpass(200.0, fs, 4.0),
            BiquadDesign::highpass(300.0, fs, FRAC_1_SQRT_2),
            BiquadDesign::bandpass(3000.0, fs, 5.0),
            BiquadDesign::notch(1000.0, fs, 10.0),
            BiquadDesign::lowpass(15_000.0, fs, 0.5),
        ]
    }

    /// max over ω of 1/|A(e^{jω})|, A(z) = 1 + a1 z⁻¹ + a2 z⁻², on 4096
    /// frequencies in [0, π].
    fn feedback_peak_gain(d: &BiquadDesign) -> f64 {
        (0..=4096)
            .map(|k| {
                let w = core::f64::consts::PI * f64::from(k) / 4096.0;
                let re = 1.0 + d.a1 * libm::cos(w) + d.a2 * libm::cos(2.0 * w);
                let im = d.a1 * libm::sin(w) + d.a2 * libm::sin(2.0 * w);
                1.0 / libm::sqrt(re * re + im * im)
            })
            .fold(1.0, f64::max)
    }

    #[test]
    fn test_cookbook_values() {
        // Butterworth low-pass at fs/4: w0 = π/2, cos = 0, α = 1/√2.
        let d = BiquadDesign::lowpass(12_000.0, 48_000.0, FRAC_1_SQRT_2);
        let a0 = 1.0 + FRAC_1_SQRT_2;
        assert!((d.b0 - 0.5 / a0).abs() < 1e-12);
        assert!((d.b1 - 1.0 / a0).abs() < 1e-12);
        assert!(d.a1.abs() < 1e-12);
        assert!((d.a2 - (1.0 - FRAC_1_SQRT_2) / a0).abs() < 1e-12);
        // High-pass gain Q at f0; band-pass −3 dB points at f0 (1 ± 1/(2Q)) approx.
        let h = BiquadDesign::highpass(1000.0, 48_000.0, 2.0);
        assert!((h.magnitude(1000.0 / 48_000.0) - 2.0).abs() < 1e-9);
    }

    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_df1_equals_df2t() {
        let n = if cfg!(miri) { 64 } else { 4096 };
        let mut rng = Rng::new(11);
        let x: Vec<f32> = (0..n).map(|_| rng.uniform() as f32 * 2.0 - 1.0).collect();
        for d in designs() {
            let bq = d.to_f32();
            let mut s1 = Df1State::default();
            let mut s2 = Df2tState::default();
            let mut err = 0.0f32;
            for &v in &x {
                let a: f32 = bq.process(&mut s1, v);
                let b: f32 = bq.process(&mut s2, v);
                err = err.max((a - b).abs());
            }
            // The two forms round differently by a few ulp per step; the
            // recursion amplifies that by up to the peak gain of 1/A(z)
            // (poles near the unit circle: the 200 Hz low-pass, 5903; the
            // notch, 592). Measured over 40 seeds: at most 1.3 ε × peak.
            let tol = 4.0 * f32::EPSILON * feedback_peak_gain(&d) as f32;
            assert!(err < tol, "{d:?}: DF1 vs DF2T max diff {err}");
            // Complex data runs each rail as the real filter.
            let mut c1 = Df2tState::<C32>::default();
            let mut r = Df2tState::<f32>::default();
            let mut i = Df2tState::<f32>::default();
            for w in x.windows(2).take(if cfg!(miri) { 16 } else { 256 }) {
                let y = bq.process(&mut c1, C32::new(w[0], w[1]));
                assert_eq!(y.re, bq.process(&mut r, w[0]));
                assert_eq!(y.im, bq.process(&mut i, w[1]));
            }
        }
    }

    /// Gain (dB) measured by running a tone at `f` cycles/sample through
    /// the f32 DF2T biquad and fitting the output.
    fn measured_db(bq: &Biquad, f: f64, n: usize) -> f64 {
        let mut s = Df2tState::default();
        let settle = n / 2;
        let y: Vec<f64> = (0..n)
            .map(|k| {
                let x = libm::sin(2.0 * PI * f * k as f64) as f32;
                bq.process(&mut s, x) as f64
            })
            .skip(settle)
            .collect();
        20.0 * libm::log10(fit_tone(&y, f).0)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_measured_magnitude_matches_analytic() {
        let mut worst = 0.0f64;
        for d in designs() {
            let bq = d.to_f32();
            for &f in &[0.001, 0.01, 0.02, 0.05, 0.0625, 0.1, 0.2, 0.3, 0.45] {
                let want = 20.0 * libm::log10(d.magnitude(f));
                if want < -60.0 {
                    continue; // f32 noise floor; the notch zero itself
                }
                let got = measured_db(&bq, f, 8000);
                worst = worst.max((got - want).abs());
                assert!(
                    (got - want).abs() < 0.05,
                    "{d:?} at {f}: {got} vs {want} dB"
                );
            }
        }
        std::println!("biquad measured vs analytic: max |Δ| = {worst:.5} dB");
    }

    /// SNR (dB) of `y` against the reference `r`.
    fn snr_db(r: &[f64], y: &[f64]) -> f64 {
        let ps: f64 = r.iter().map(|v| v * v).sum();
        let pe: f64 = r.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).sum();
        db(ps / pe.max(1e-300))
    }

    #[test]
    fn test_q15_snr_vs_f64() {
        // −6 dBFS tone at fs/200 through a Butterworth low-pass at fs/50.
        let n = if cfg!(miri) { 256 } else { 16_384 };
        let d = BiquadDesign::lowpass(1.0 / 50.0, 1.0, FRAC_1_SQRT_2);
        let q = d.to_q15().unwrap();
        let f = 1.0 / 200.0;
        let xq: Vec<i16> = (0..n)
            .map(|k| f32_to_q15(0.5 * libm::sin(2.0 * PI * f * k as f64 + 0.1) as f32))
            .collect();
        let xr: Vec<f64> = xq.iter().map(|&v| q15_to_f32(v) as f64).collect();
        let r = ref_f64(&d, &xr);
        let mut s = BiquadQ15State::default();
        let mut y = std::vec![0i16; n];
        q.block(&mut s, &xq, &mut y);
        let yf: Vec<f64> = y.iter().map(|&v| q15_to_f32(v) as f64).collect();
        let snr = snr_db(&r[n / 8..], &yf[n / 8..]);
        std::println!("biquad Q15 SNR vs f64: {snr:.1} dB");
        assert!(snr >= 70.0, "Q15 SNR {snr:.1} dB");
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_q15_no_limit_cycle() {
        let fs = 48_000.0;
        let mut all = Vec::from(designs());
        all.push(BiquadDesign::lowpass(50.0, fs, 20.0));
        all.push(BiquadDesign::bandpass(100.0, fs, 30.0));
        all.push(BiquadDesign::lowpass(fs / 50.0, fs, 0.5));
        let mut rng = Rng::new(5);
        for d in all {
            let q = d.to_q15().unwrap();
            for trial in 0..8 {
                let mut s = BiquadQ15State::default();
                // Excite with noise of varying level, then feed zeros.
                let amp = [0.5, 0.01, 0.001, 1e-4][trial % 4];
                for _ in 0..2000 {
                    let x = f32_to_q15((amp * (2.0 * rng.uniform() - 1.0)) as f32);
                    q.process(&mut s, x);
                }
                let mut tail = 0i16;
                for k in 0..200_000 {
                    let y = q.process(&mut s, 0);
                    if k >= 190_000 {
                        tail = tail.max(y.abs());
                    }
                }
                assert_eq!(
                    tail, 0,
                    "{d:?} amp {amp}: zero-input output stuck at ±{tail}"
                );
            }
        }
    }

    #[test]
    fn test_q15_complex_matches_rails() {
        let q = BiquadDesign::bandpass(0.1, 1.0, 2.0).to_q15().unwrap();
        let mut sc = [BiquadQ15State::default(); 2];
        let (mut si, mut sq) = (BiquadQ15State::default(), BiquadQ15State::default());
        let mut rng = Rng::new(3);
        for _ in 0..200 {
            let x = Ci16::new(rng.next_u64() as i16, rng.next_u64() as i16);
            let y = q.process(&mut sc, x);
            assert_eq!(y.re, q.process(&mut si, x.re));
            assert_eq!(y.im, q.process(&mut sq, x.im));
        }
    }

    #[test]
    fn test_q15_saturates() {
        // A resonant band-pass driven at f0 with full scale must clip, not wrap.
        let q = BiquadDesign::lowpass(0.05, 1.0, 8.0).to_q15().unwrap();
        let mut s = BiquadQ15State::default();
        let mut lo = 0i16;
        let mut hi = 0i16;
        for k in 0..2000 {
            let x = if (k / 10) % 2 == 0 {
                i16::MAX
            } else {
                i16::MIN
            };
            let y = q.process(&mut s, x);
            lo = lo.min(y);
            hi = hi.max(y);
        }
        assert_eq!((lo, hi), (i16::MIN, i16::MAX));
    }

    #[test]
    fn test_to_q15_range() {
        let d = BiquadDesign::new([4.5, 0.0, 0.0], [1.0, 0.0, 0.0]);
        assert!(d.to_q15().is_none());
        let d = BiquadDesign::new([-4.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
        assert_eq!(d.to_q15().unwrap().b[0], i32::MIN);
    }

    #[test]
    fn test_one_pole_alpha_and_step() {
        let fs = 48_000.0;
        let tau = 2e-3; // 96 samples
        let lp = OnePole::from_time_constant(tau, fs);
        let mut s = OnePoleState::default();
        let mut y = 0.0f32;
        for _ in 0..96 {
            y = lp.process(&mut s, 1.0f32);
        }
        let want = 1.0 - libm::exp(-1.0);
        assert!((y as f64 - want).abs() < 1e-4, "{y} vs {want}");
        let fc = OnePole::from_corner(1.0 / (2.0 * PI * tau), fs);
        assert!((fc.alpha() - lp.alpha()).abs() < 1e-7);
        // Complex data filters each rail.
        let mut sc = OnePoleState::<C32>::default();
        let y = lp.process(&mut sc, C32::new(1.0, -1.0));
        assert_eq!((y.re, y.im), (lp.alpha(), -lp.alpha()));
    }

    #[test]
    fn test_one_pole_q15_vs_f64() {
        let n = if cfg!(miri) { 256 } else { 16_384 };
        let fs = 48_000.0;
        let fc = 500.0;
        let q = OnePoleQ15::from_corner(fc, fs);
        let a = q.alpha() as f64 / 2f64.powi(31);
        let mut rng = Rng::new(9);
        let xq: Vec<i16> = (0..n)
            .map(|k| {
                let v = 0.5 * libm::sin(2.0 * PI * 100.0 / fs * k as f64) + 0.01 * rng.normal();
                f32_to_q15(v as f32)
            })
            .collect();
        let mut r = 0.0;
        let rf: Vec<f64> = xq
            .iter()
            .map(|&x| {
                r += a * (q15_to_f32(x) as f64 - r);
                r
            })
            .collect();
        let mut s = OnePoleQ15State::default();
        let y: Vec<f64> = xq
            .iter()
            .map(|&x| q15_to_f32(q.process(&mut s, x)) as f64)
            .collect();
        let snr = snr_db(&rf, &y);
        std::println!("one-pole Q15 SNR vs f64: {snr:.1} dB");
        // Output rounding to Q15 alone limits a −6 dBFS signal to ≈ 95 dB.
        assert!(snr >= 85.0, "one-pole Q15 SNR {snr:.1} dB");
    }

    #[test]
    fn test_one_pole_q15_small_inputs_not_lost() {
        let q = OnePoleQ15::from_time_constant(0.1, 48_000.0); // α ≈ 2.1e-4
        // τ fs = 4800 samples: 200 000 samples settle to within 2⁻¹⁸ LSB.
        if !cfg!(miri) {
            for target in [1i16, -1, 3, -7, 100] {
                let mut s = OnePoleQ15State::default();
                let mut y = 0;
                for _ in 0..200_000 {
                    y = q.process(&mut s, target);
                }
                assert_eq!(y, target);
                // And back to exactly zero.
                for _ in 0..200_000 {
                    y = q.process(&mut s, 0);
                }
                assert_eq!(y, 0);
            }
        }
        // Extremes do not overflow.
        let q = OnePoleQ15::new(i32::MAX);
        let mut s = OnePoleQ15State::default();
        assert_eq!(q.process(&mut s, i16::MAX), i16::MAX);
        assert_eq!(q.process(&mut s, i16::MIN), i16::MIN);
    }

    /// Run `f` over `x` split at `cuts` and return the concatenated output.
    fn split_run<X: Copy, Y: Copy + Default, S, P: SplitProcess<X, Y, S>>(
        p: &P,
        mut s: S,
        x: &[X],
        cuts: &[usize],
    ) -> Vec<Y> {
        let mut y = std::vec![Y::default(); x.len()];
        let mut bounds: Vec<usize> = cuts.iter().map(|&c| c % (x.len() + 1)).collect();
        bounds.push(0);
        bounds.push(x.len());
        bounds.sort_unstable();
        for w in bounds.windows(2) {
            p.block(&mut s, &x[w[0]..w[1]], &mut y[w[0]..w[1]]);
        }
        y
    }

    proptest! {
        #![proptest_config(crate::testing::proptest_config())]

        #[test]
        fn prop_block_split(
            xs in proptest::collection::vec(any::<i16>(), 0..if cfg!(miri) { 40 } else { 300 }),
            cuts in proptest::collection::vec(any::<usize>(), 0..6),
        ) {
            let d = BiquadDesign::lowpass(0.03, 1.0, 2.0);
            let (bf, bq) = (d.to_f32(), d.to_q15().unwrap());
            let xf: Vec<f32> = xs.iter().map(|&v| q15_to_f32(v)).collect();
            let xc: Vec<C32> = xf.windows(2).map(|w| C32::new(w[0], w[1])).collect();
            let xqc: Vec<Ci16> = xs.windows(2).map(|w| Ci16::new(w[0], w[1])).collect();

            let f1 = |c: &[usize]| split_run(&bf, Df1State::<f32>::default(), &xf, c);
            prop_assert_eq!(f1(&[]), f1(&cuts));
            let f2 = |c: &[usize]| split_run(&bf, Df2tState::<f32>::default(), &xf, c);
            prop_assert_eq!(f2(&[]), f2(&cuts));
            let fc = |c: &[usize]| split_run(&bf, Df2tState::<C32>::default(), &xc, c);
            prop_assert_eq!(fc(&[]), fc(&cuts));
            let fc1 = |c: &[usize]| split_run(&bf, Df1State::<C32>::default(), &xc, c);
            prop_assert_eq!(fc1(&[]), fc1(&cuts));
            let q = |c: &[usize]| split_run(&bq, BiquadQ15State::default(), &xs, c);
            prop_assert_eq!(q(&[]), q(&cuts));
            let qc = |c: &[usize]| split_run(&bq, [BiquadQ15State::default(); 2], &xqc, c);
            prop_assert_eq!(qc(&[]), qc(&cuts));

            let op = OnePole::from_corner(0.01, 1.0);
            let o = |c: &[usize]| split_run(&op, OnePoleState::<f32>::default(), &xf, c);
            prop_assert_eq!(o(&[]), o(&cuts));
            let oc = |c: &[usize]| split_run(&op, OnePoleState::<C32>::default(), &xc, c);
            prop_assert_eq!(oc(&[]), oc(&cuts));
            let opq = OnePoleQ15::from_corner(0.01, 1.0);
            let oq = |c: &[usize]| split_run(&opq, OnePoleQ15State::default(), &xs, c);
            prop_assert_eq!(oq(&[]), oq(&cuts));
            let oqc = |c: &[usize]| split_run(&opq, [OnePoleQ15State::default(); 2], &xqc, c);
            prop_assert_eq!(oqc(&[]), oqc(&cuts));
        }
    }
}
