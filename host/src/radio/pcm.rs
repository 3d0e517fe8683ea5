//! Audio samples (`f32`, ±1.0 full scale) to 16-bit PCM, for the WAV file,
//! raw stdout and sound cards that take integers.

/// ±1.0 to a saturated `i16`: `x · 32767` rounded half away from zero and
/// clamped to −32768 ..= 32767 (NaN gives 0).
///
/// Bit for bit `(x * 32767.0).round().clamp(-32768.0, 32767.0) as i16`,
/// without `round`'s library call (baseline x86-64 has no rounding
/// instruction), so that it costs a few instructions per sample.
///
/// ```
/// use airwaves::radio::pcm::to_i16;
/// assert_eq!(to_i16(0.5), 16384);
/// assert_eq!(to_i16(-2.0), -32768);
/// assert_eq!(to_i16(f32::NAN), 0);
/// ```
#[inline]
pub fn to_i16(x: f32) -> i16 {
    // Clamping first to the integral bounds gives the same result.
    let v = (x * 32767.0).clamp(-32768.0, 32767.0);
    // Toward zero (NaN gives 0); the fraction `v − t` is exact.
    let t = v as i32;
    let f = v - t as f32;
    (t + i32::from(f >= 0.5) - i32::from(f <= -0.5)) as i16
}

/// `x` (±1.0 full scale) as little-endian `i16` samples (two bytes each,
/// see [`to_i16`]) at the front of `buf`, which grows when it is too short
/// (and is not cleared: nothing is written twice); returns those bytes.
///
/// ```
/// use airwaves::radio::pcm::s16le;
/// let mut buf = Vec::new();
/// assert_eq!(s16le(&[0.5, -1.0], &mut buf), [0x00, 0x40, 0x01, 0x80]);
/// assert_eq!(s16le(&[0.0], &mut buf), [0, 0]);
/// ```
pub fn s16le<'a>(x: &[f32], buf: &'a mut Vec<u8>) -> &'a [u8] {
    let len = 2 * x.len();
    if buf.len() < len {
        buf.resize(len, 0);
    }
    let out = &mut buf[..len];
    for (b, &v) in out.chunks_exact_mut(2).zip(x) {
        b.copy_from_slice(&to_i16(v).to_le_bytes());
    }
    out
}

#[cfg(test)]
mod test {
    use super::*;

    /// What [`to_i16`] must equal.
    fn reference(x: f32) -> i16 {
        (x * 32767.0).round().clamp(-32768.0, 32767.0) as i16
    }

    #[test]
    fn test_to_i16_is_the_rounding_formula_bit_for_bit() {
        // Every 97th bit pattern (NaNs, infinities, subnormals included).
        for bits in (0..=u32::MAX).step_by(97) {
            let x = f32::from_bits(bits);
            assert_eq!(to_i16(x), reference(x), "{x:e} ({bits:#x})");
        }
        // Every half-way point and its neighbours, and the ends.
        let around = |v: f32| {
            let b = v.to_bits();
            [v, f32::from_bits(b + 1), f32::from_bits(b - 1)]
        };
        for k in -32_769..=32_768i32 {
            for y in around(k as f32 + 0.5) {
                for x in around(y / 32767.0) {
                    assert_eq!(to_i16(x), reference(x), "{x:e}");
                }
            }
        }
        for x in [0.0, -0.0, 1.0, -1.0, f32::MAX, f32::MIN, f32::INFINITY] {
            assert_eq!(to_i16(x), reference(x), "{x:e}");
        }
    }
}
