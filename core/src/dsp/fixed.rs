//! Fixed-point helpers shared by the Q15/Q31 paths.
//!
//! Q15: `i16` scaled by 2⁻¹⁵ (range −1.0 ..= 1 − 2⁻¹⁵). Q31: `i32` scaled by
//! 2⁻³¹. Products of two Q15 values are Q30 in an `i32`; accumulators are
//! `i32` (or `i64` where a doc comment says so) and are rounded back with
//! [`round_shift`] and saturated with [`sat16`].

/// Saturate an `i32` to the `i16` range.
///
/// ```
/// use airwaves_core::dsp::fixed::sat16;
/// assert_eq!(sat16(40_000), i16::MAX);
/// assert_eq!(sat16(-40_000), i16::MIN);
/// assert_eq!(sat16(123), 123);
/// ```
#[inline(always)]
pub const fn sat16(x: i32) -> i16 {
    if x > i16::MAX as i32 {
        i16::MAX
    } else if x < i16::MIN as i32 {
        i16::MIN
    } else {
        x as i16
    }
}

/// Arithmetic right shift by `s` (1 ..= 31) with round-half-up.
///
/// ```
/// use airwaves_core::dsp::fixed::round_shift;
/// assert_eq!(round_shift(3, 1), 2);
/// assert_eq!(round_shift(-3, 1), -1);
/// assert_eq!(round_shift(1 << 15, 15), 1);
/// ```
#[inline(always)]
pub const fn round_shift(x: i32, s: u32) -> i32 {
    (x.wrapping_add(1 << (s - 1))) >> s
}

/// Q15 × Q15 → Q15, rounded and saturated (only −1 × −1 saturates).
///
/// ```
/// use airwaves_core::dsp::fixed::mul_q15;
/// assert_eq!(mul_q15(16384, 16384), 8192); // 0.5 × 0.5 = 0.25
/// assert_eq!(mul_q15(i16::MIN, i16::MIN), i16::MAX);
/// ```
#[inline(always)]
pub const fn mul_q15(a: i16, b: i16) -> i16 {
    sat16(round_shift(a as i32 * b as i32, 15))
}

/// Convert an `f32` in −1.0 ..= 1.0 to Q15, rounded to nearest and
/// saturated. NaN maps to 0.
///
/// ```
/// use airwaves_core::dsp::fixed::f32_to_q15;
/// assert_eq!(f32_to_q15(0.5), 16384);
/// assert_eq!(f32_to_q15(1.0), i16::MAX);
/// assert_eq!(f32_to_q15(-1.0), i16::MIN);
/// ```
#[inline]
pub fn f32_to_q15(x: f32) -> i16 {
    let v = x * 32768.0;
    // `as` saturates and maps NaN to 0; add ±0.5 for round-to-nearest.
    let r = if v >= 0.0 { v + 0.5 } else { v - 0.5 };
    sat16(r as i32)
}

/// Convert Q15 to `f32`.
///
/// ```
/// use airwaves_core::dsp::fixed::q15_to_f32;
/// assert_eq!(q15_to_f32(-32768), -1.0);
/// ```
#[inline(always)]
pub fn q15_to_f32(x: i16) -> f32 {
    x as f32 * (1.0 / 32768.0)
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_round_trip() {
        let step = if cfg!(miri) { 97 } else { 1 };
        for i in (i16::MIN..=i16::MAX).step_by(step) {
            assert_eq!(f32_to_q15(q15_to_f32(i)), i);
        }
    }

    #[test]
    fn test_mul_exhaustive_sign() {
        assert_eq!(mul_q15(-16384, 16384), -8192);
        assert_eq!(mul_q15(1, 1), 0);
        assert_eq!(mul_q15(i16::MAX, i16::MAX), 32766);
    }
}
