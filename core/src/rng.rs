//! The project's one pseudo-random generator: xoshiro256++ seeded through
//! SplitMix64 (D. Blackman and S. Vigna, "Scrambled linear pseudorandom
//! number generators", ACM TOMS 47(4), 2021; reference code at
//! <https://prng.di.unimi.it/>).
//!
//! Synthetic signals (the FM and AM/NBFM generators, the host's 1090 MHz
//! scenes and demo sky, the firmware's build-time test I/Q) and core's tests
//! all draw from it, so a seed means the same stream everywhere. It is for
//! reproducible test signals, not for anything that must be unpredictable.
//!
//! # Algorithm
//!
//! - **Seeding**: the 64-bit seed is the state of a SplitMix64 generator
//!   (`z += 0x9E3779B97F4A7C15`, then two xor-shift-multiply rounds), whose
//!   first four outputs are the 256-bit xoshiro state. Every seed, 0
//!   included, gives a distinct, well-mixed state, never the all-zero one.
//! - **Step**: xoshiro256++, `result = rotl(s0 + s3, 23) + s0`, then the
//!   xor/shift/rotate update of the four words. Period 2²⁵⁶ − 1.
//! - **Derived values**: [`uniform`](Rng::uniform) takes the top 53 bits
//!   (in [0, 1)); [`below`](Rng::below) is Lemire's multiply-high (the top
//!   64 bits of the 128-bit product, bias below n / 2⁶⁴);
//!   [`normal`](Rng::normal) is Box–Muller, returning the cosine output and
//!   keeping the sine output for the next call.
//!
//! Floating point uses `libm`, so a stream is the same on every target
//! (the firmware's build script and the host agree bit for bit).
//!
//! ```
//! use airwaves_core::rng::Rng;
//! let mut a = Rng::new(7);
//! let mut b = Rng::new(7);
//! assert_eq!(a.next_u64(), b.next_u64());
//! let u = a.uniform();
//! assert!((0.0..1.0).contains(&u));
//! assert!(a.below(10) < 10);
//! ```

use core::f64::consts::TAU;

/// SplitMix64's increment (2⁶⁴ / φ, odd).
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// xoshiro256++ with SplitMix64 seeding; uniform, integer and Gaussian
/// draws (see the [module docs](self) for the algorithm).
///
/// Cloning copies the whole state (the kept Gaussian included): the clone
/// continues with the same stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Rng {
    s: [u64; 4],
    /// The second Box–Muller output, kept for the next [`Rng::normal`].
    spare: Option<f64>,
}

impl Rng {
    /// A generator whose state is the first four SplitMix64 outputs from
    /// `seed`. Any seed is valid; distinct seeds give distinct streams.
    ///
    /// ```
    /// use airwaves_core::rng::Rng;
    /// assert_ne!(Rng::new(2).next_u64(), Rng::new(3).next_u64());
    /// ```
    pub fn new(seed: u64) -> Self {
        let mut z = seed;
        let mut next = || {
            z = z.wrapping_add(GOLDEN_GAMMA);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^ (x >> 31)
        };
        Self {
            s: [next(), next(), next(), next()],
            spare: None,
        }
    }

    /// The next 64 uniformly distributed bits (one xoshiro256++ step).
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let r = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        r
    }

    /// Uniform in [0, 1): the top 53 bits of [`next_u64`](Self::next_u64)
    /// times 2⁻⁵³, so every value is a multiple of 2⁻⁵³ and 1.0 never
    /// occurs.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi) (`lo + (hi − lo) · uniform()`; rounding can
    /// reach `hi` only when the interval is tiny next to its magnitude).
    ///
    /// ```
    /// use airwaves_core::rng::Rng;
    /// let x = Rng::new(1).range(-2.0, 3.0);
    /// assert!((-2.0..3.0).contains(&x));
    /// ```
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Uniform integer in `0..n`: the high word of the 128-bit product
    /// `next_u64() · n` (Lemire's multiply-high, without the rejection
    /// step: the bias is below n / 2⁶⁴). Returns 0 for `n = 0`.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Standard normal (mean 0, variance 1) by Box–Muller: from
    /// `u₁ = 1 − uniform()` in (0, 1] and `u₂ = uniform()`,
    /// `r = √(−2 ln u₁)` and `θ = 2π u₂`, returns `r cos θ` and keeps
    /// `r sin θ` for the next call (so draws come in pairs from two
    /// uniforms). Finite: |x| < 8.6.
    pub fn normal(&mut self) -> f64 {
        if let Some(v) = self.spare.take() {
            return v;
        }
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        let r = libm::sqrt(-2.0 * libm::log(u1));
        let (s, c) = libm::sincos(TAU * u2);
        self.spare = Some(r * s);
        r * c
    }
}

#[cfg(test)]
mod test {
    use super::*;

    /// The reference implementation's outputs (prng.di.unimi.it
    /// `splitmix64.c` seeded with 0, then `xoshiro256plusplus.c`).
    #[test]
    fn test_reference_vectors() {
        // SplitMix64 from 0: the published first outputs.
        let mut r = Rng::new(0);
        assert_eq!(
            r.s,
            [
                0xE220_A839_7B1D_CDAF,
                0x6E78_9E6A_A1B9_65F4,
                0x06C4_5D18_8009_454F,
                0xF88B_B8A8_724C_81EC,
            ]
        );
        // xoshiro256++ from state [1, 2, 3, 4]: 41943041, 58720359, ...
        r.s = [1, 2, 3, 4];
        let first: [u64; 3] = core::array::from_fn(|_| r.next_u64());
        assert_eq!(first, [41_943_041, 58_720_359, 3_588_806_011_781_223]);
    }

    #[test]
    fn test_distinct_seeds_distinct_streams() {
        // The old FM generator's seeding merged seeds 2k and 2k + 1.
        for k in 0..64u64 {
            assert_ne!(Rng::new(2 * k).next_u64(), Rng::new(2 * k + 1).next_u64());
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "heavy under miri")]
    fn test_moments() {
        let mut r = Rng::new(1);
        let n = 200_000;
        let (mut su, mut sn, mut sn2) = (0.0, 0.0, 0.0);
        let mut counts = [0u32; 10];
        for _ in 0..n {
            let u = r.uniform();
            assert!((0.0..1.0).contains(&u));
            su += u;
            let x = r.normal();
            sn += x;
            sn2 += x * x;
            counts[r.below(10) as usize] += 1;
        }
        let n = n as f64;
        // Standard errors: 6.5e-4 (uniform mean), 2.2e-3 (normal mean),
        // 3.2e-3 (variance), 67 (a below(10) bin).
        assert!((su / n - 0.5).abs() < 4e-3, "{}", su / n);
        assert!((sn / n).abs() < 1.2e-2, "{}", sn / n);
        assert!((sn2 / n - 1.0).abs() < 1.6e-2, "{}", sn2 / n);
        for c in counts {
            assert!((f64::from(c) - n / 10.0).abs() < 400.0, "{counts:?}");
        }
    }

    #[test]
    fn test_clone_continues_the_stream() {
        let mut a = Rng::new(9);
        let _ = a.normal(); // a spare is kept
        let mut b = a.clone();
        for _ in 0..5 {
            assert_eq!(a.normal().to_bits(), b.normal().to_bits());
        }
    }
}
