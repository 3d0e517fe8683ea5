//! Input conversion: interleaved I/Q byte streams to [`C32`] and [`Ci16`].
//!
//! # `cu8` (RTL-SDR)
//!
//! Interleaved unsigned 8-bit `I, Q, I, Q, …` with the zero level at `z`
//! (127.4 for the RTL-SDR's ADC by default, configurable in [`Cu8`]):
//!
//! - `f32`: `v = (b − z) / 128`, computed in `f32` with `z` as an `f32`
//!   (127.4 is stored as 127.400_001_5). The division by 128 is exact, and
//!   so is `b − z` whenever `|b − z| < 128`, as for every code with the
//!   default `z`: then `v` is exact, e.g. 255 → 0.996_875 − 1.2e-8,
//!   0 → −0.995_312_5 − 1.2e-8;
//! - Q15: `q = b · 256 − round(256 z)` saturated, which is
//!   `round((b − z) · 256)` (ties up), i.e. the `f32` value times 32768
//!   rounded to nearest: 255 → 32666, 0 → −32614 for `z` = 127.4.
//!
//! # `cs16`
//!
//! Interleaved signed 16-bit `I, Q` as `&[i16]` or as little-endian bytes.
//! Q15 is the identity; `f32` is `v / 32768` (exact).
//!
//! # Lengths
//!
//! The block functions convert `n = min(input_len / k, output_len)` complex
//! samples (`k` = 2 bytes for `cu8`, 2 values for `&[i16]`, 4 bytes for
//! little-endian `cs16`) and return `n`. Input past `n · k` is not
//! consumed: a trailing odd byte, or a partial sample, stays with the
//! caller, who prepends it to the next read. With that, the output is
//! identical whatever the split of the stream into reads.
//!
//! Nothing here has state, so there is no `…State`; the conversions are
//! plain arithmetic that the compiler vectorises (no tables).

use crate::dsp::fixed::sat16;
use crate::{C32, Ci16};

/// Complex samples per unrolled step of the block conversions.
const LANES: usize = 8;

/// Converter for RTL-SDR style `cu8` samples with zero level `z` (see the
/// [module docs](self)).
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Cu8 {
    /// Zero level `z` in ADC codes.
    zero: f32,
    /// `round(256 z)`, the zero level in Q15 units.
    zero_q8: i32,
}

impl Default for Cu8 {
    /// [`Cu8::RTL_SDR`].
    fn default() -> Self {
        Self::RTL_SDR
    }
}

impl Cu8 {
    /// The RTL-SDR's zero level, 127.4.
    ///
    /// ```
    /// use airwaves_core::dsp::convert::Cu8;
    /// assert_eq!(Cu8::RTL_SDR.zero(), 127.4);
    /// assert_eq!(Cu8::RTL_SDR.ci16([255, 0]).re, 32666);
    /// ```
    pub const RTL_SDR: Self = Self::new(127.4);

    /// A converter with zero level `zero` (ADC codes, 0 ..= 255).
    ///
    /// Q15 outputs saturate when `|b − zero| ≥ 128`, which cannot happen
    /// for 127 ≤ `zero` ≤ 128.
    ///
    /// # Panics
    /// Panics (at compile time in a `const`) unless `0 ≤ zero ≤ 255`.
    ///
    /// ```
    /// use airwaves_core::dsp::convert::Cu8;
    /// use airwaves_core::{C32, Ci16};
    /// let c = Cu8::new(128.0);
    /// assert_eq!(c.c32([128, 0]), C32::new(0.0, -1.0));
    /// assert_eq!(c.ci16([255, 0]), Ci16::new(32512, -32768));
    /// ```
    pub const fn new(zero: f32) -> Self {
        assert!(
            zero >= 0.0 && zero <= 255.0,
            "zero level must be in 0 ..= 255"
        );
        // zero ≥ 0, so +0.5 then truncation rounds half up.
        let zero_q8 = (zero * 256.0 + 0.5) as i32;
        Self { zero, zero_q8 }
    }

    /// The zero level in ADC codes.
    pub const fn zero(&self) -> f32 {
        self.zero
    }

    /// One value to `f32`: `(b − z) / 128`.
    #[inline(always)]
    fn f32_of(&self, b: u8) -> f32 {
        (b as f32 - self.zero) * (1.0 / 128.0)
    }

    /// One value to Q15: `b · 256 − round(256 z)`, saturated.
    #[inline(always)]
    fn q15_of(&self, b: u8) -> i16 {
        sat16(((b as i32) << 8) - self.zero_q8)
    }

    /// One sample `[I, Q]` to `f32`.
    ///
    /// ```
    /// use airwaves_core::dsp::convert::Cu8;
    /// let v = Cu8::RTL_SDR.c32([255, 127]);
    /// assert!((v.re - 0.996_875).abs() < 2e-8 && (v.im + 0.003_125).abs() < 2e-8);
    /// ```
    #[inline]
    pub fn c32(&self, iq: [u8; 2]) -> C32 {
        C32::new(self.f32_of(iq[0]), self.f32_of(iq[1]))
    }

    /// One sample `[I, Q]` to Q15.
    ///
    /// ```
    /// use airwaves_core::dsp::convert::Cu8;
    /// use airwaves_core::Ci16;
    /// assert_eq!(Cu8::RTL_SDR.ci16([0, 128]), Ci16::new(-32614, 154));
    /// ```
    #[inline]
    pub fn ci16(&self, iq: [u8; 2]) -> Ci16 {
        Ci16::new(self.q15_of(iq[0]), self.q15_of(iq[1]))
    }

    /// Convert interleaved `cu8` bytes to `f32` samples; returns the
    /// number of samples written, `n = min(x.len() / 2, y.len())`. Bytes
    /// from `2n` on are left for the caller (see [Lengths](self#lengths)).
    ///
    /// ```
    /// use airwaves_core::dsp::convert::Cu8;
    /// use airwaves_core::C32;
    /// let mut y = [C32::default(); 4];
    /// assert_eq!(Cu8::RTL_SDR.to_c32(&[255, 0, 127, 128, 9], &mut y), 2);
    /// ```
    pub fn to_c32(&self, x: &[u8], y: &mut [C32]) -> usize {
        let n = (x.len() / 2).min(y.len());
        // I and Q get the same map, so work on runs of LANES samples as
        // flat arrays: that lets the compiler use whole-vector loads and
        // stores instead of de-interleaving.
        let mut xc = x[..2 * n].chunks_exact(2 * LANES);
        let mut yc = y[..n].chunks_exact_mut(LANES);
        for (x, y) in (&mut xc).zip(&mut yc) {
            let v: [f32; 2 * LANES] = core::array::from_fn(|k| self.f32_of(x[k]));
            for (y, v) in y.iter_mut().zip(v.chunks_exact(2)) {
                *y = C32::new(v[0], v[1]);
            }
        }
        for (x, y) in xc.remainder().chunks_exact(2).zip(yc.into_remainder()) {
            *y = C32::new(self.f32_of(x[0]), self.f32_of(x[1]));
        }
        n
    }

    /// Convert interleaved `cu8` bytes to Q15 samples; returns the number
    /// of samples written, `n = min(x.len() / 2, y.len())`. Bytes from
    /// `2n` on are left for the caller.
    ///
    /// ```
    /// use airwaves_core::dsp::convert::Cu8;
    /// use airwaves_core::Ci16;
    /// let mut y = [Ci16::default(); 1];
    /// assert_eq!(Cu8::RTL_SDR.to_ci16(&[127, 128, 0, 0], &mut y), 1);
    /// assert_eq!(y[0], Ci16::new(-102, 154));
    /// ```
    pub fn to_ci16(&self, x: &[u8], y: &mut [Ci16]) -> usize {
        let n = (x.len() / 2).min(y.len());
        let mut xc = x[..2 * n].chunks_exact(2 * LANES);
        let mut yc = y[..n].chunks_exact_mut(LANES);
        for (x, y) in (&mut xc).zip(&mut yc) {
            let v: [i16; 2 * LANES] = core::array::from_fn(|k| self.q15_of(x[k]));
            for (y, v) in y.iter_mut().zip(v.chunks_exact(2)) {
                *y = Ci16::new(v[0], v[1]);
            }
        }
        for (x, y) in xc.remainder().chunks_exact(2).zip(yc.into_remainder()) {
            *y = Ci16::new(self.q15_of(x[0]), self.q15_of(x[1]));
        }
        n
    }
}

/// Convert interleaved `cs16` values (`I, Q, …`) to `f32` samples
/// `(I + jQ) / 32768`; returns `n = min(x.len() / 2, y.len())`. A trailing
/// odd value is left for the caller.
///
/// ```
/// use airwaves_core::dsp::convert::cs16_to_c32;
/// use airwaves_core::C32;
/// let mut y = [C32::default(); 2];
/// assert_eq!(cs16_to_c32(&[-32768, 16384, 7], &mut y), 1);
/// assert_eq!(y[0], C32::new(-1.0, 0.5));
/// ```
pub fn cs16_to_c32(x: &[i16], y: &mut [C32]) -> usize {
    let n = (x.len() / 2).min(y.len());
    let mut xc = x[..2 * n].chunks_exact(2 * LANES);
    let mut yc = y[..n].chunks_exact_mut(LANES);
    for (x, y) in (&mut xc).zip(&mut yc) {
        let v: [f32; 2 * LANES] = core::array::from_fn(|k| x[k] as f32 * (1.0 / 32768.0));
        for (y, v) in y.iter_mut().zip(v.chunks_exact(2)) {
            *y = C32::new(v[0], v[1]);
        }
    }
    for (x, y) in xc.remainder().chunks_exact(2).zip(yc.into_remainder()) {
        *y = C32::new(x[0] as f32, x[1] as f32) * (1.0 / 32768.0);
    }
    n
}

/// Convert interleaved `cs16` values to Q15 samples (a copy); returns
/// `n = min(x.len() / 2, y.len())`. A trailing odd value is left for the
/// caller.
///
/// ```
/// use airwaves_core::dsp::convert::cs16_to_ci16;
/// use airwaves_core::Ci16;
/// let mut y = [Ci16::default(); 2];
/// assert_eq!(cs16_to_ci16(&[1, -2, 3, -4], &mut y), 2);
/// assert_eq!(y, [Ci16::new(1, -2), Ci16::new(3, -4)]);
/// ```
pub fn cs16_to_ci16(x: &[i16], y: &mut [Ci16]) -> usize {
    let n = (x.len() / 2).min(y.len());
    for (x, y) in x[..2 * n].chunks_exact(2).zip(&mut y[..n]) {
        *y = Ci16::new(x[0], x[1]);
    }
    n
}

/// Convert little-endian `cs16` bytes (`I₀ I₁ Q₀ Q₁ …`) to `f32` samples;
/// returns `n = min(x.len() / 4, y.len())`. Bytes from `4n` on (up to 3
/// for a partial sample) are left for the caller.
///
/// ```
/// use airwaves_core::dsp::convert::cs16le_to_c32;
/// use airwaves_core::C32;
/// let mut y = [C32::default(); 1];
/// assert_eq!(cs16le_to_c32(&[0x00, 0x40, 0x00, 0xc0, 0xff], &mut y), 1);
/// assert_eq!(y[0], C32::new(0.5, -0.5));
/// ```
pub fn cs16le_to_c32(x: &[u8], y: &mut [C32]) -> usize {
    let n = (x.len() / 4).min(y.len());
    let le = |b: &[u8], k: usize| i16::from_le_bytes([b[2 * k], b[2 * k + 1]]) as f32;
    let mut xc = x[..4 * n].chunks_exact(4 * LANES);
    let mut yc = y[..n].chunks_exact_mut(LANES);
    for (x, y) in (&mut xc).zip(&mut yc) {
        let v: [f32; 2 * LANES] = core::array::from_fn(|k| le(x, k) * (1.0 / 32768.0));
        for (y, v) in y.iter_mut().zip(v.chunks_exact(2)) {
            *y = C32::new(v[0], v[1]);
        }
    }
    for (x, y) in xc.remainder().chunks_exact(4).zip(yc.into_remainder()) {
        *y = C32::new(le(x, 0), le(x, 1)) * (1.0 / 32768.0);
    }
    n
}

/// Convert little-endian `cs16` bytes to Q15 samples; returns
/// `n = min(x.len() / 4, y.len())`. Bytes from `4n` on are left for the
/// caller.
///
/// ```
/// use airwaves_core::dsp::convert::cs16le_to_ci16;
/// use airwaves_core::Ci16;
/// let mut y = [Ci16::default(); 1];
/// assert_eq!(cs16le_to_ci16(&[0x01, 0x80, 0xff, 0x7f], &mut y), 1);
/// assert_eq!(y[0], Ci16::new(-32767, 32767));
/// ```
pub fn cs16le_to_ci16(x: &[u8], y: &mut [Ci16]) -> usize {
    let n = (x.len() / 4).min(y.len());
    for (x, y) in x[..4 * n].chunks_exact(4).zip(&mut y[..n]) {
        let i = i16::from_le_bytes([x[0], x[1]]);
        let q = i16::from_le_bytes([x[2], x[3]]);
        *y = Ci16::new(i, q);
    }
    n
}

#[cfg(test)]
mod test {
    extern crate std;

    use super::*;
    use crate::rng::Rng;
    use proptest::prelude::*;
    use std::vec::Vec;

    #[test]
    fn test_cu8_every_code() {
        let c = Cu8::RTL_SDR;
        for b in 0..=255u8 {
            let v = c.c32([b, 255 - b]);
            // Within 1.2e-8 of (b − 127.4) / 128 (127.4 as an f32 is
            // 1.5e-6 high), and exactly (b − 127.4f32) / 128.
            let exact = (b as f64 - 127.4) / 128.0;
            assert!((v.re as f64 - exact).abs() < 1.3e-8, "{b}");
            let z = 127.4f32 as f64;
            assert_eq!(v.re as f64, (b as f64 - z) / 128.0, "{b}");
            assert_eq!(v.im as f64, (255.0 - b as f64 - z) / 128.0, "{b}");
            let q = c.ci16([b, 255 - b]);
            assert_eq!(q.re as f64, libm::round((b as f64 - 127.4) * 256.0), "{b}");
            // Consistent with the f32 path: q = round(32768 v).
            assert_eq!(q.re as f64, libm::round(v.re as f64 * 32768.0), "{b}");
        }
        // Literal spot values.
        assert_eq!(c.ci16([0, 255]), Ci16::new(-32614, 32666));
        assert_eq!(c.ci16([127, 128]), Ci16::new(-102, 154));
        assert_eq!(
            Cu8::new(127.5).c32([255, 0]),
            C32::new(0.996_093_75, -0.996_093_75)
        );
    }

    #[test]
    fn test_cu8_zero_levels() {
        let c = Cu8::new(128.0);
        assert_eq!(c.c32([128, 0]), C32::new(0.0, -1.0));
        assert_eq!(c.ci16([0, 255]), Ci16::new(-32768, 32512));
        // Extreme zero levels saturate in Q15 and stay exact in f32.
        let c = Cu8::new(0.0);
        assert_eq!(c.ci16([255, 127]), Ci16::new(32767, 32512));
        assert_eq!(c.c32([255, 0]).re, 255.0 / 128.0);
        let c = Cu8::new(255.0);
        assert_eq!(c.ci16([0, 128]), Ci16::new(-32768, -32512));
        // Half-LSB zero levels round up.
        assert_eq!(Cu8::new(127.5).ci16([127, 128]), Ci16::new(-128, 128));
        assert_eq!(Cu8::default(), Cu8::RTL_SDR);
    }

    #[test]
    #[should_panic]
    fn test_cu8_bad_zero() {
        Cu8::new(f32::NAN);
    }

    #[test]
    fn test_cs16_values() {
        let x = [i16::MIN, i16::MAX, 0, -1, 12345];
        let mut y = [C32::default(); 3];
        assert_eq!(cs16_to_c32(&x, &mut y), 2);
        assert_eq!(y[0], C32::new(-1.0, 32767.0 / 32768.0));
        assert_eq!(y[1], C32::new(0.0, -1.0 / 32768.0));
        assert_eq!(y[2], C32::default(), "nothing written past n");
        let mut q = [Ci16::default(); 2];
        assert_eq!(cs16_to_ci16(&x, &mut q), 2);
        assert_eq!(q, [Ci16::new(i16::MIN, i16::MAX), Ci16::new(0, -1)]);

        let mut bytes = Vec::new();
        for v in x {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        let mut yb = [C32::default(); 3];
        let mut qb = [Ci16::default(); 3];
        // 10 bytes: two samples and 2 left over.
        assert_eq!(cs16le_to_c32(&bytes, &mut yb), 2);
        assert_eq!(cs16le_to_ci16(&bytes, &mut qb), 2);
        assert_eq!(yb[..2], y[..2]);
        assert_eq!(qb[..2], q);
    }

    #[test]
    fn test_odd_lengths_and_short_output() {
        let c = Cu8::RTL_SDR;
        let x: Vec<u8> = (0..=10).collect();
        for len in 0..=x.len() {
            let mut y = [C32::default(); 8];
            let mut q = [Ci16::default(); 8];
            assert_eq!(c.to_c32(&x[..len], &mut y), len / 2);
            assert_eq!(c.to_ci16(&x[..len], &mut q), len / 2);
            let mut b = [C32::default(); 8];
            assert_eq!(cs16le_to_c32(&x[..len], &mut b), len / 4);
            let v: Vec<i16> = x[..len].iter().map(|&b| b as i16).collect();
            assert_eq!(cs16_to_ci16(&v, &mut q), len / 2);
        }
        // A short output bounds n.
        let mut y = [C32::default(); 2];
        assert_eq!(c.to_c32(&x, &mut y), 2);
        assert_eq!(y[1], c.c32([2, 3]));
        let mut q = [Ci16::default(); 1];
        assert_eq!(cs16le_to_ci16(&x, &mut q), 1);
        assert_eq!(cs16_to_c32(&[1, 2, 3, 4], &mut []), 0);
    }

    #[test]
    fn test_block_matches_per_sample() {
        let n = if cfg!(miri) { 64 } else { 4096 };
        let mut rng = Rng::new(9);
        let x: Vec<u8> = (0..2 * n).map(|_| rng.next_u64() as u8).collect();
        let c = Cu8::new(127.6);
        let mut y = std::vec![C32::default(); n];
        let mut q = std::vec![Ci16::default(); n];
        assert_eq!(c.to_c32(&x, &mut y), n);
        assert_eq!(c.to_ci16(&x, &mut q), n);
        for (k, iq) in x.chunks_exact(2).enumerate() {
            assert_eq!(y[k], c.c32([iq[0], iq[1]]));
            assert_eq!(q[k], c.ci16([iq[0], iq[1]]));
        }
    }

    /// Feed `x` to `conv` in reads split at `cuts`, keeping unconsumed
    /// bytes like a caller would; returns all outputs.
    fn streamed<Y: Copy + Default>(
        x: &[u8],
        cuts: &[usize],
        k: usize,
        conv: impl Fn(&[u8], &mut [Y]) -> usize,
    ) -> Vec<Y> {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (x.len() + 1)).collect();
        cuts.sort_unstable();
        let mut out = Vec::new();
        let mut pending: Vec<u8> = Vec::new();
        let mut start = 0;
        for end in cuts.into_iter().chain([x.len()]) {
            pending.extend_from_slice(&x[start..end]);
            start = end;
            let mut y = std::vec![Y::default(); pending.len() / k];
            let n = conv(&pending, &mut y);
            assert_eq!(n, y.len());
            out.extend_from_slice(&y);
            pending.drain(..n * k);
            assert!(pending.len() < k);
        }
        out
    }

    proptest! {
        #![proptest_config(crate::testing::proptest_config())]

        #[test]
        fn prop_split(
            x in proptest::collection::vec(any::<u8>(), 0..if cfg!(miri) { 40 } else { 300 }),
            cuts in proptest::collection::vec(any::<usize>(), 0..6),
            zero in 0.0f32..=255.0,
        ) {
            let c = Cu8::new(zero);
            let whole = |k: usize, f: &dyn Fn(&[u8], &mut [C32]) -> usize| {
                let mut y = std::vec![C32::default(); x.len() / k];
                f(&x, &mut y);
                y
            };
            let f = |x: &[u8], y: &mut [C32]| c.to_c32(x, y);
            prop_assert_eq!(streamed(&x, &cuts, 2, f), whole(2, &f));
            let f = |x: &[u8], y: &mut [C32]| cs16le_to_c32(x, y);
            prop_assert_eq!(streamed(&x, &cuts, 4, f), whole(4, &f));

            let wholeq = |k: usize, f: &dyn Fn(&[u8], &mut [Ci16]) -> usize| {
                let mut y = std::vec![Ci16::default(); x.len() / k];
                f(&x, &mut y);
                y
            };
            let f = |x: &[u8], y: &mut [Ci16]| c.to_ci16(x, y);
            prop_assert_eq!(streamed(&x, &cuts, 2, f), wholeq(2, &f));
            let f = |x: &[u8], y: &mut [Ci16]| cs16le_to_ci16(x, y);
            prop_assert_eq!(streamed(&x, &cuts, 4, f), wholeq(4, &f));
            // `&[i16]` input: the bytes as LE i16, split on value bounds.
            let v: Vec<i16> = x.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]])).collect();
            let mut a = std::vec![Ci16::default(); v.len() / 2];
            cs16_to_ci16(&v, &mut a);
            prop_assert_eq!(&a, &wholeq(4, &|x, y| cs16le_to_ci16(x, y)));
            let mut b = std::vec![C32::default(); v.len() / 2];
            cs16_to_c32(&v, &mut b);
            prop_assert_eq!(b, whole(4, &|x, y| cs16le_to_c32(x, y)));
        }
    }
}
