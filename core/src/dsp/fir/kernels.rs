//! The dot-product kernels and the per-type operations behind [`Tap`] and
//! [`Sample`]: `f32` and Q15 dot products and symmetric folds, tap
//! conversion from `f64` designs, and the lane split of real and complex
//! samples.

use super::sealed::{SampleOps, TapOps};
#[cfg(doc)]
use super::{Sample, Tap};
use crate::dsp::design;
use crate::dsp::fixed::{round_shift, sat16};
use crate::{C32, Ci16};

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
pub(super) fn quantise_q15_symmetric(src: &[f64], dst: &mut [i16]) {
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
