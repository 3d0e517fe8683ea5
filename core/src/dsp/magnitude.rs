//! Magnitude `|x| = √(re² + im²)` and magnitude squared, in `f32`, Q15 and
//! for RTL-SDR `cu8` bytes.
//!
//! These are stateless, so they are plain functions with a per-sample form
//! and a block form over caller slices (block output is identical to the
//! per-sample form; the shorter of input and output wins in release builds,
//! and the lengths must match in debug builds).
//!
//! # Scaling
//!
//! - `f32` ([`mag_f32`]): same units as the input.
//! - Q15 ([`mag_ci16`]): the input full scale ±32768 ≙ ±1.0; the magnitude is
//!   `u16` on the same scale (Q15 unsigned, 0 ..= 46341 ≙ 0 ..= √2), rounded
//!   to nearest: exact to ±0.5 LSB. [`mag_sq_ci16`] is `u32` in Q30
//!   (0 ..= 2³¹).
//! - `cu8` ([`mag_cu8`], [`mag_cu8_exact`], [`mag_sq_cu8`]): RTL-SDR bytes
//!   `I, Q ∈ 0 ..= 255` with zero at 127.5, so the sample is
//!   `z = (I − 127.5) + j(Q − 127.5)` in byte units (never exactly 0, and
//!   symmetric: `|I − 127.5|` takes the values 0.5, 1.5, …, 127.5). The
//!   outputs use the Q15 scale of the other paths with 128 byte units ≙ 1.0:
//!   magnitude `u16 = 256·|z|` (181 ..= 46160), magnitude squared
//!   `u32 = 65536·|z|²` (Q30, ≤ 2 130 739 200).
//!
//! # The fast `cu8` magnitude
//!
//! [`mag_cu8`] feeds the Mode S demodulator at 2.4 MS/s, so it avoids square
//! roots, tables and branches: it is alpha-max-plus-beta-min generalised to
//! four segments. With `M = max(|I'|, |Q'|)`, `m = min(…)`,
//! `|z| ≈ max_k (α_k M + β_k m)`, where the four lines are the tangents of
//! the circle at `θ_k = (k + ½)·π/16` (`α_k = c cos θ_k`, `β_k = c sin θ_k`)
//! scaled by `c = 2 / (1 + cos(π/32))` to centre the error. The polygon's
//! relative error is within ±tan²(π/64) = ±0.24 %; the integer evaluation
//! (16-bit high multiplies, +1 LSB bias correction) adds ≤ 2 LSB. Measured
//! over all 65536 byte pairs: max |error| 112 LSB (0.24 % of full scale), RMS
//! 44 LSB (0.17 % RMS relative error). The code is branch-free `u16`
//! arithmetic, so the block form vectorises (SSE2 `pmulhuw`, NEON, Helium).
//! [`mag_cu8_exact`] is the exact (rounded) value via an integer square root.

use crate::{C32, Ci16};

/// `|x|` in `f32`, via `libm::sqrtf(re² + im²)` (no overflow scaling:
/// valid for |re|, |im| < 1.8e19; error ≤ 1 ulp plus the rounding of the sum).
///
/// ```
/// use airwaves_core::{C32, dsp::magnitude::mag_f32};
/// assert_eq!(mag_f32(C32::new(3.0, -4.0)), 5.0);
/// ```
#[inline]
pub fn mag_f32(x: C32) -> f32 {
    libm::sqrtf(mag_sq_f32(x))
}

/// `|x|²` in `f32`.
///
/// ```
/// use airwaves_core::{C32, dsp::magnitude::mag_sq_f32};
/// assert_eq!(mag_sq_f32(C32::new(3.0, -4.0)), 25.0);
/// ```
#[inline]
pub fn mag_sq_f32(x: C32) -> f32 {
    x.re * x.re + x.im * x.im
}

/// `|x|` of a Q15 sample as unsigned Q15 (`u16`, 0 ..= 46341 ≙ 0 ..= √2),
/// rounded to nearest: exact to ±0.5 LSB for every input.
///
/// ```
/// use airwaves_core::{Ci16, dsp::magnitude::mag_ci16};
/// assert_eq!(mag_ci16(Ci16::new(3000, -4000)), 5000);
/// assert_eq!(mag_ci16(Ci16::new(i16::MIN, i16::MIN)), 46341);
/// ```
#[inline]
pub fn mag_ci16(x: Ci16) -> u16 {
    sqrt_round(mag_sq_ci16(x))
}

/// `|x|²` of a Q15 sample in Q30 (`u32`, 0 ..= 2³¹), exact.
///
/// ```
/// use airwaves_core::{Ci16, dsp::magnitude::mag_sq_ci16};
/// assert_eq!(mag_sq_ci16(Ci16::new(i16::MIN, i16::MIN)), 1 << 31);
/// ```
#[inline]
pub fn mag_sq_ci16(x: Ci16) -> u32 {
    let (r, i) = (x.re as i32, x.im as i32);
    // Each square ≤ 2³⁰, so the sum fits a u32.
    (r * r) as u32 + (i * i) as u32
}

/// `round(√v)` for any `u32` (0 ..= 65536).
///
/// ```
/// use airwaves_core::dsp::magnitude::sqrt_round;
/// assert_eq!(sqrt_round(0), 0);
/// assert_eq!(sqrt_round(2), 1);
/// assert_eq!(sqrt_round(3), 2);
/// assert_eq!(sqrt_round(u32::MAX), u16::MAX); // √(2³²−1) rounds to 65536: saturated
/// ```
#[inline]
pub fn sqrt_round(v: u32) -> u16 {
    let r = v.isqrt();
    // round up iff v ≥ r² + r + 1 > (r + ½)²; v − r² ≤ 2r never overflows.
    let up = (v - r * r > r) as u32;
    let s = r + up;
    if s > u16::MAX as u32 {
        u16::MAX
    } else {
        s as u16
    }
}

/// `|2v − 255|` for a `cu8` byte: twice `|v − 127.5|`, odd, 1 ..= 255.
#[inline(always)]
fn fold_cu8(v: u8) -> u16 {
    (2 * v as i16 - 255).unsigned_abs()
}

/// `|z|²` of a `cu8` pair (zero at 127.5) in Q30: `65536·|z|²`
/// = `16384·((2I − 255)² + (2Q − 255)²)`, exact (≤ 2 130 739 200).
///
/// ```
/// use airwaves_core::dsp::magnitude::mag_sq_cu8;
/// assert_eq!(mag_sq_cu8(128, 127), 2 * 16384); // |z|² = 0.5
/// assert_eq!(mag_sq_cu8(255, 127), 16384 * (255 * 255 + 1));
/// ```
#[inline]
pub fn mag_sq_cu8(i: u8, q: u8) -> u32 {
    let (a, b) = (fold_cu8(i) as u32, fold_cu8(q) as u32);
    (a * a + b * b) << 14
}

/// `|z|` of a `cu8` pair (zero at 127.5) as `256·|z|` (`u16`, Q15 scale with
/// 128 byte units ≙ 1.0), exact: rounded to nearest via an integer square
/// root. About 4× the cost of [`mag_cu8`].
///
/// ```
/// use airwaves_core::dsp::magnitude::mag_cu8_exact;
/// assert_eq!(mag_cu8_exact(128, 127), 181); // 256·√0.5 = 181.02
/// assert_eq!(mag_cu8_exact(255, 255), 46160); // 256·127.5·√2 = 46159.9
/// ```
#[inline]
pub fn mag_cu8_exact(i: u8, q: u8) -> u16 {
    sqrt_round(mag_sq_cu8(i, q))
}

/// The four tangent lines of [`mag_cu8`]: `(A_k, B_k)` with
/// `256·|z| ≈ (256·2|I'|·A_k + 256·2|Q'|·B_k) / 65536`, i.e.
/// `A_k = round(32768·c·cos θ_k)`, `B_k = round(32768·c·sin θ_k)`,
/// `θ_k = (k + ½)π/16`, `c = 2/(1 + cos(π/32))`.
const CU8_LINES: [(u16, u16); 4] = [(32689, 3220), (31433, 9535), (28969, 15484), (25391, 20838)];

/// Fast approximate `|z|` of a `cu8` pair (zero at 127.5) as `256·|z|`
/// (`u16`, at most 46048; the scale of [`mag_cu8_exact`]).
///
/// Four-segment alpha-max-plus-beta-min (see the [module docs](self)):
/// error within ±(0.24 % + 2 LSB) of the exact value, RMS 44 LSB over all
/// byte pairs. Branch-free 16-bit arithmetic, so [`mag_cu8_block`]
/// vectorises (≈ 13 x86-64 instructions per sample with SSE2).
///
/// ```
/// use airwaves_core::dsp::magnitude::{mag_cu8, mag_cu8_exact};
/// let (a, e) = (mag_cu8(200, 30) as i32, mag_cu8_exact(200, 30) as i32);
/// assert!((a - e).abs() <= e / 400 + 2);
/// ```
#[inline(always)]
pub fn mag_cu8(i: u8, q: u8) -> u16 {
    let (a, b) = (fold_cu8(i), fold_cu8(q));
    // ≤ 255·256 = 65280: fits u16.
    let hi = a.max(b) << 8;
    let lo = a.min(b) << 8;
    let mulhi = |x: u16, c: u16| ((x as u32 * c as u32) >> 16) as u16;
    let mut m = 0;
    for (ca, cb) in CU8_LINES {
        m = m.max(mulhi(hi, ca) + mulhi(lo, cb));
    }
    // The high multiplies truncate (−0.5 LSB each on average): add 1.
    m + 1
}

/// [`mag_f32`] over a block: `y[n] = |x[n]|`.
///
/// ```
/// use airwaves_core::{C32, dsp::magnitude::mag_f32_block};
/// let mut y = [0.0; 2];
/// mag_f32_block(&[C32::new(3.0, 4.0), C32::new(0.0, -2.0)], &mut y);
/// assert_eq!(y, [5.0, 2.0]);
/// ```
pub fn mag_f32_block(x: &[C32], y: &mut [f32]) {
    debug_assert_eq!(x.len(), y.len());
    for (x, y) in x.iter().zip(y.iter_mut()) {
        *y = mag_f32(*x);
    }
}

/// [`mag_sq_f32`] over a block: `y[n] = |x[n]|²`.
pub fn mag_sq_f32_block(x: &[C32], y: &mut [f32]) {
    debug_assert_eq!(x.len(), y.len());
    for (x, y) in x.iter().zip(y.iter_mut()) {
        *y = mag_sq_f32(*x);
    }
}

/// [`mag_ci16`] over a block: `y[n] = round(|x[n]|)` in unsigned Q15.
///
/// ```
/// use airwaves_core::{Ci16, dsp::magnitude::mag_ci16_block};
/// let mut y = [0u16; 2];
/// mag_ci16_block(&[Ci16::new(300, 400), Ci16::new(-7, 0)], &mut y);
/// assert_eq!(y, [500, 7]);
/// ```
pub fn mag_ci16_block(x: &[Ci16], y: &mut [u16]) {
    debug_assert_eq!(x.len(), y.len());
    for (x, y) in x.iter().zip(y.iter_mut()) {
        *y = mag_ci16(*x);
    }
}

/// [`mag_sq_ci16`] over a block: `y[n] = |x[n]|²` in Q30.
pub fn mag_sq_ci16_block(x: &[Ci16], y: &mut [u32]) {
    debug_assert_eq!(x.len(), y.len());
    for (x, y) in x.iter().zip(y.iter_mut()) {
        *y = mag_sq_ci16(*x);
    }
}

/// [`mag_cu8`] over interleaved `cu8` bytes `I₀ Q₀ I₁ Q₁ …`:
/// `y[n] = mag_cu8(iq[2n], iq[2n+1])`. `iq.len()` must be `2·y.len()`
/// (debug-checked; in release the shorter wins and an odd last byte is
/// ignored).
///
/// ```
/// use airwaves_core::dsp::magnitude::{mag_cu8, mag_cu8_block};
/// let iq = [0u8, 255, 130, 127, 255, 0];
/// let mut y = [0u16; 3];
/// mag_cu8_block(&iq, &mut y);
/// assert_eq!(y, [mag_cu8(0, 255), mag_cu8(130, 127), mag_cu8(255, 0)]);
/// ```
pub fn mag_cu8_block(iq: &[u8], y: &mut [u16]) {
    debug_assert_eq!(iq.len(), 2 * y.len());
    for (p, y) in iq.chunks_exact(2).zip(y.iter_mut()) {
        *y = mag_cu8(p[0], p[1]);
    }
}

/// [`mag_cu8_exact`] over interleaved `cu8` bytes (lengths as in
/// [`mag_cu8_block`]).
pub fn mag_cu8_exact_block(iq: &[u8], y: &mut [u16]) {
    debug_assert_eq!(iq.len(), 2 * y.len());
    for (p, y) in iq.chunks_exact(2).zip(y.iter_mut()) {
        *y = mag_cu8_exact(p[0], p[1]);
    }
}

/// [`mag_sq_cu8`] over interleaved `cu8` bytes (lengths as in
/// [`mag_cu8_block`]): `y[n]` in Q30.
pub fn mag_sq_cu8_block(iq: &[u8], y: &mut [u32]) {
    debug_assert_eq!(iq.len(), 2 * y.len());
    for (p, y) in iq.chunks_exact(2).zip(y.iter_mut()) {
        *y = mag_sq_cu8(p[0], p[1]);
    }
}

#[cfg(test)]
mod test {
    extern crate std;

    use super::*;
    use crate::rng::Rng;
    use crate::testing::proptest_config;
    use proptest::prelude::*;
    use std::vec::Vec;

    fn exact_cu8(i: u8, q: u8) -> f64 {
        256.0 * libm::hypot(i as f64 - 127.5, q as f64 - 127.5)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_cu8_fast_all_pairs() {
        let (mut max_abs, mut max_rel_excess, mut sum2, mut sum_rel2) = (0.0f64, 0.0f64, 0.0, 0.0);
        for i in 0..=255u8 {
            for q in 0..=255u8 {
                let want = exact_cu8(i, q);
                let e = mag_cu8(i, q) as f64 - want;
                max_abs = max_abs.max(e.abs());
                // The bound: 0.24 % of the value plus 2 LSB.
                max_rel_excess = max_rel_excess.max(e.abs() - 0.0024 * want);
                sum2 += e * e;
                sum_rel2 += (e / want) * (e / want);
            }
        }
        let rms = libm::sqrt(sum2 / 65536.0);
        let rms_rel = libm::sqrt(sum_rel2 / 65536.0);
        std::eprintln!(
            "mag_cu8: max |err| {max_abs:.1} LSB, max (|err| − 0.24 %) {max_rel_excess:.2} LSB, \
             RMS {rms:.1} LSB, RMS rel {:.3} %",
            100.0 * rms_rel
        );
        assert!(max_rel_excess <= 2.0, "{max_rel_excess}");
        assert!(max_abs <= 113.0, "{max_abs}");
        assert!(rms <= 45.0, "{rms}");
        assert!(rms_rel <= 0.0017, "{rms_rel}");
    }

    #[test]
    fn test_cu8_exact_and_squared() {
        let step = if cfg!(miri) { 37 } else { 1 };
        for i in (0..=255u8).step_by(step) {
            for q in (0..=255u8).step_by(step) {
                let want = exact_cu8(i, q);
                let (a, b) = (i as f64 - 127.5, q as f64 - 127.5);
                let sq = a * a + b * b;
                assert_eq!(mag_sq_cu8(i, q) as f64, 65536.0 * sq);
                let got = mag_cu8_exact(i, q) as f64;
                assert!((got - want).abs() <= 0.5, "({i}, {q}): {got} vs {want}");
            }
        }
    }

    #[test]
    fn test_sqrt_round() {
        // Around every rounding boundary of the u16 range: r² + r and
        // r² + r + 1 straddle (r + ½)².
        let step = if cfg!(miri) { 997 } else { 1 };
        for r in (0..=65535u32).step_by(step) {
            let rr = r * r;
            assert_eq!(sqrt_round(rr) as u32, r);
            assert_eq!(sqrt_round(rr + r) as u32, r);
            if r < 65535 {
                assert_eq!(sqrt_round(rr + r + 1) as u32, r + 1);
            }
            if r > 1 {
                assert_eq!(sqrt_round(rr - 1) as u32, r);
            }
            if r > 0 {
                // (r − ½)² = r² − r + ¼: r² − r rounds down, r² − r + 1 up.
                assert_eq!(sqrt_round(rr - r) as u32, r - 1);
                assert_eq!(sqrt_round(rr - r + 1) as u32, r);
            }
        }
        let mut rng = Rng::new(5);
        for _ in 0..if cfg!(miri) { 100 } else { 100_000 } {
            let v = rng.next_u64() as u32;
            let want = libm::round(libm::sqrt(v as f64)).min(65535.0);
            assert_eq!(sqrt_round(v) as f64, want, "{v}");
        }
    }

    #[test]
    fn test_ci16_exact() {
        let mut rng = Rng::new(6);
        let check = |re: i16, im: i16| {
            let x = Ci16::new(re, im);
            let want = libm::hypot(re as f64, im as f64);
            let sq = re as f64 * re as f64 + im as f64 * im as f64;
            assert_eq!(mag_sq_ci16(x) as f64, sq);
            assert!(
                (mag_ci16(x) as f64 - want).abs() <= 0.5,
                "{x}: {}",
                mag_ci16(x)
            );
        };
        let step = if cfg!(miri) { 4099 } else { 3 };
        for v in (i16::MIN..=i16::MAX).step_by(step) {
            for w in [i16::MIN, -12345, -1, 0, 1, 777, i16::MAX] {
                check(v, w);
                check(w, v);
            }
        }
        for _ in 0..if cfg!(miri) { 30 } else { 200_000 } {
            let r = rng.next_u64();
            check(r as i16, (r >> 16) as i16);
        }
    }

    #[test]
    fn test_f32_vs_f64() {
        let mut rng = Rng::new(7);
        let mut worst = 0.0f64;
        for _ in 0..if cfg!(miri) { 30 } else { 100_000 } {
            let s = libm::pow(10.0, 20.0 * rng.uniform() - 10.0);
            let (re, im) = ((s * rng.normal()) as f32, (s * rng.normal()) as f32);
            let want = libm::hypot(re as f64, im as f64);
            let got = mag_f32(C32::new(re, im)) as f64;
            worst = worst.max((got - want).abs() / want.max(1e-300));
            let sq = mag_sq_f32(C32::new(re, im)) as f64;
            assert!((sq - want * want).abs() <= 2.0 * f32::EPSILON as f64 * want * want);
        }
        std::eprintln!("mag_f32: max relative error {worst:e}");
        assert!(worst <= 1.5 * f32::EPSILON as f64, "{worst:e}");
    }

    proptest! {
        #![proptest_config(proptest_config())]

        #[test]
        fn test_block_matches_per_sample(
            iq in prop::collection::vec(any::<u8>(), 0..if cfg!(miri) { 40 } else { 300 }),
            cut in 0usize..150,
        ) {
            let n = iq.len() / 2;
            let cut = cut.min(n);
            let iq = &iq[..2 * n];
            let mut fast = std::vec![0u16; n];
            mag_cu8_block(&iq[..2 * cut], &mut fast[..cut]);
            mag_cu8_block(&iq[2 * cut..], &mut fast[cut..]);
            let mut exact = std::vec![0u16; n];
            mag_cu8_exact_block(iq, &mut exact);
            let mut sq = std::vec![0u32; n];
            mag_sq_cu8_block(iq, &mut sq);
            for (k, p) in iq.chunks_exact(2).enumerate() {
                prop_assert_eq!(fast[k], mag_cu8(p[0], p[1]));
                prop_assert_eq!(exact[k], mag_cu8_exact(p[0], p[1]));
                prop_assert_eq!(sq[k], mag_sq_cu8(p[0], p[1]));
            }

            let xq: Vec<Ci16> = iq
                .chunks_exact(2)
                .map(|p| Ci16::new(((p[0] as i16) << 8) | p[1] as i16, (p[1] as i16) << 7))
                .collect();
            let mut m = std::vec![0u16; n];
            mag_ci16_block(&xq[..cut], &mut m[..cut]);
            mag_ci16_block(&xq[cut..], &mut m[cut..]);
            let mut s = std::vec![0u32; n];
            mag_sq_ci16_block(&xq, &mut s);
            let xf: Vec<C32> = xq.iter().map(|c| C32::new(c.re as f32, c.im as f32)).collect();
            let mut mf = std::vec![0.0f32; n];
            mag_f32_block(&xf[..cut], &mut mf[..cut]);
            mag_f32_block(&xf[cut..], &mut mf[cut..]);
            let mut sf = std::vec![0.0f32; n];
            mag_sq_f32_block(&xf, &mut sf);
            for k in 0..n {
                prop_assert_eq!(m[k], mag_ci16(xq[k]));
                prop_assert_eq!(s[k], mag_sq_ci16(xq[k]));
                prop_assert_eq!(mf[k], mag_f32(xf[k]));
                prop_assert_eq!(sf[k], mag_sq_f32(xf[k]));
            }
        }
    }
}
