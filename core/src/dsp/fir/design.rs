//! [`FirDesign`]: a Kaiser-window low-pass written into a filter's taps.

use super::Tap;
use crate::dsp::design;

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
