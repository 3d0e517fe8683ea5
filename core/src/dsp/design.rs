//! Kaiser-window windowed-sinc FIR design, run once at set-up.
//!
//! The ideal low-pass with cut-off `fc` (cycles per sample, 0 < fc < 0.5)
//! has impulse response `h[n] = 2 fc sinc(2 fc (n − (N−1)/2))`. It is
//! multiplied by the Kaiser window
//! `w[n] = I₀(β √(1 − (2n/(N−1) − 1)²)) / I₀(β)` and scaled to the wanted DC
//! gain. Kaiser's formulas relate the stop-band attenuation `A` (dB) and the
//! transition width `Δf` (cycles per sample) to `β` and the length `N`:
//!
//! - `β = 0.1102 (A − 8.7)` for `A > 50`,
//!   `0.5842 (A − 21)^0.4 + 0.07886 (A − 21)` for `21 ≤ A ≤ 50`, else 0;
//! - `N ≈ (A − 7.95) / (14.36 Δf) + 1`.
//!
//! Design runs in `f64` and writes into caller-owned slices (no allocation).

/// Zeroth-order modified Bessel function of the first kind, `I₀(x)`, by its
/// power series `Σ ((x/2)^k / k!)²`, summed until terms fall below 1e-17 of
/// the sum (relative error < 1e-15 for |x| ≤ 50).
///
/// ```
/// use airwaves_core::dsp::design::bessel_i0;
/// assert!((bessel_i0(0.0) - 1.0).abs() < 1e-15);
/// assert!((bessel_i0(1.0) - 1.266_065_877_752_008_4).abs() < 1e-14);
/// ```
pub fn bessel_i0(x: f64) -> f64 {
    let half = x * 0.5;
    let mut term = 1.0;
    let mut sum = 1.0;
    let mut k = 1.0;
    while term > sum * 1e-17 {
        let t = half / k;
        term *= t * t;
        sum += term;
        k += 1.0;
    }
    sum
}

/// Kaiser's `β` for a stop-band attenuation of `atten_db` (dB, positive).
///
/// ```
/// use airwaves_core::dsp::design::kaiser_beta;
/// assert!((kaiser_beta(60.0) - 5.653_26).abs() < 1e-9);
/// assert_eq!(kaiser_beta(10.0), 0.0);
/// ```
pub fn kaiser_beta(atten_db: f64) -> f64 {
    if atten_db > 50.0 {
        0.1102 * (atten_db - 8.7)
    } else if atten_db >= 21.0 {
        let a = atten_db - 21.0;
        0.5842 * libm::pow(a, 0.4) + 0.07886 * a
    } else {
        0.0
    }
}

/// Kaiser's estimate of the number of taps for a stop-band attenuation of
/// `atten_db` (dB) and a transition width of `transition` cycles per sample
/// (0 < transition < 0.5). Rounded up; at least 1.
///
/// ```
/// use airwaves_core::dsp::design::kaiser_len;
/// // 60 dB with a 0.05 transition: (60 − 7.95) / (14.36 · 0.05) + 1 ≈ 73.5
/// assert_eq!(kaiser_len(60.0, 0.05), 74);
/// ```
pub fn kaiser_len(atten_db: f64, transition: f64) -> usize {
    let n = (atten_db - 7.95) / (14.36 * transition) + 1.0;
    let n = libm::ceil(n);
    if n < 1.0 { 1 } else { n as usize }
}

/// The Kaiser window value for tap `n` of `len` (0 ≤ n < len).
///
/// # Panics
/// Panics if `n >= len`.
pub fn kaiser_window(n: usize, len: usize, beta: f64) -> f64 {
    assert!(n < len, "tap index out of range");
    if len == 1 {
        return 1.0;
    }
    let r = 2.0 * n as f64 / (len - 1) as f64 - 1.0;
    let arg = 1.0 - r * r;
    let arg = if arg < 0.0 { 0.0 } else { arg };
    bessel_i0(beta * libm::sqrt(arg)) / bessel_i0(beta)
}

/// `sin(πx)/(πx)`, with `sinc(0) = 1`.
pub fn sinc(x: f64) -> f64 {
    if x.abs() < 1e-12 {
        1.0
    } else {
        let px = core::f64::consts::PI * x;
        libm::sin(px) / px
    }
}

/// Design a Kaiser-windowed sinc low-pass into `taps` (any length ≥ 1).
///
/// `cutoff` is the −6 dB point in cycles per sample (0 < cutoff ≤ 0.5);
/// `beta` the Kaiser parameter (see [`kaiser_beta`]); the taps are scaled so
/// that their sum (the DC gain) equals `gain`. Taps are symmetric:
/// `taps[i] == taps[len − 1 − i]` exactly.
///
/// ```
/// use airwaves_core::dsp::design::{kaiser_beta, lowpass};
/// let mut h = [0.0f64; 31];
/// lowpass(&mut h, 0.25, kaiser_beta(60.0), 1.0);
/// let dc: f64 = h.iter().sum();
/// assert!((dc - 1.0).abs() < 1e-12);
/// assert_eq!(h[0], h[30]);
/// ```
pub fn lowpass(taps: &mut [f64], cutoff: f64, beta: f64, gain: f64) {
    let len = taps.len();
    if len == 0 {
        return;
    }
    let mid = (len - 1) as f64 * 0.5;
    for n in 0..len.div_ceil(2) {
        let t = n as f64 - mid;
        let v = 2.0 * cutoff * sinc(2.0 * cutoff * t) * kaiser_window(n, len, beta);
        taps[n] = v;
        taps[len - 1 - n] = v;
    }
    let sum: f64 = taps.iter().sum();
    let scale = if sum.abs() > 0.0 { gain / sum } else { 0.0 };
    for t in taps.iter_mut() {
        *t *= scale;
    }
}

/// [`lowpass`] into `f32` taps (designed in `f64`, then rounded).
pub fn lowpass_f32(taps: &mut [f32], cutoff: f64, beta: f64, gain: f64) {
    let len = taps.len();
    if len == 0 {
        return;
    }
    let mid = (len - 1) as f64 * 0.5;
    let tap = |n: usize| {
        2.0 * cutoff * sinc(2.0 * cutoff * (n as f64 - mid)) * kaiser_window(n, len, beta)
    };
    let sum: f64 = (0..len).map(tap).sum();
    let scale = if sum.abs() > 0.0 { gain / sum } else { 0.0 };
    for (n, t) in taps.iter_mut().enumerate() {
        *t = (tap(n) * scale) as f32;
    }
}

/// Quantise `f64` taps to Q15 (`i16`, scale 2¹⁵), rounding to nearest and
/// saturating, then nudging the centre-most taps by ±1 LSB so that the Q15 sum
/// equals `round(Σ taps · 2¹⁵)` exactly (the DC gain survives quantisation).
///
/// # Panics
/// Panics if `src` and `dst` differ in length.
pub fn quantise_q15(src: &[f64], dst: &mut [i16]) {
    assert_eq!(src.len(), dst.len(), "tap slices differ in length");
    let mut want = 0.0;
    let mut have: i64 = 0;
    for (s, d) in src.iter().zip(dst.iter_mut()) {
        let v = libm::round(s * 32768.0);
        let v = v.clamp(i16::MIN as f64, i16::MAX as f64);
        *d = v as i16;
        have += *d as i64;
        want += s * 32768.0;
    }
    let mut err = libm::round(want) as i64 - have;
    // Spread the residual one LSB at a time over the taps nearest the centre,
    // alternating either side of it, where the relative change is smallest.
    let len = dst.len();
    let centre = (len - 1) / 2;
    let mut k = 0usize;
    while err != 0 && k < 2 * len {
        let off = k / 2;
        let idx = if k % 2 == 0 {
            centre.checked_sub(off)
        } else {
            Some(centre + 1 + off)
        };
        k += 1;
        let Some(idx) = idx.filter(|&i| i < len) else {
            continue;
        };
        let step = err.signum();
        let nv = dst[idx] as i64 + step;
        if (i16::MIN as i64..=i16::MAX as i64).contains(&nv) {
            dst[idx] = nv as i16;
            err -= step;
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;

    /// |H(f)| of real taps at frequency `f` (cycles per sample).
    pub(crate) fn response(h: &[f64], f: f64) -> f64 {
        let (mut re, mut im) = (0.0, 0.0);
        for (n, &t) in h.iter().enumerate() {
            let w = -2.0 * core::f64::consts::PI * f * n as f64;
            re += t * libm::cos(w);
            im += t * libm::sin(w);
        }
        libm::sqrt(re * re + im * im)
    }

    #[test]
    #[cfg_attr(miri, ignore = "heavy under miri")]
    fn test_kaiser_meets_spec() {
        // 70 dB stop band, pass band to 0.2, stop band from 0.25.
        let a = 70.0;
        let len = kaiser_len(a, 0.05);
        let mut h = [0.0; 128];
        let h = &mut h[..len];
        lowpass(h, 0.225, kaiser_beta(a), 1.0);
        let mut worst_stop = 0.0f64;
        let mut worst_pass = 0.0f64;
        for i in 0..=1000 {
            let f = 0.5 * i as f64 / 1000.0;
            let m = response(h, f);
            if f >= 0.25 {
                worst_stop = worst_stop.max(m);
            } else if f <= 0.2 {
                worst_pass = worst_pass.max((m - 1.0).abs());
            }
        }
        let stop_db = -20.0 * libm::log10(worst_stop);
        // Kaiser's length formula is an estimate good to about ±2 dB in stop band and ripple.
        assert!(stop_db >= a - 2.0, "stop band {stop_db} dB");
        assert!(
            worst_pass < 10f64.powf(-(a - 3.0) / 20.0),
            "ripple {worst_pass}"
        );
    }

    #[test]
    fn test_quantise_keeps_dc() {
        let mut h = [0.0; 33];
        lowpass(&mut h, 0.1, kaiser_beta(60.0), 1.0);
        let mut q = [0i16; 33];
        quantise_q15(&h, &mut q);
        let s: i32 = q.iter().map(|&v| v as i32).sum();
        assert_eq!(s, 32768);
        for (a, b) in h.iter().zip(q.iter()) {
            assert!((a * 32768.0 - *b as f64).abs() <= 1.5);
        }
    }
}
