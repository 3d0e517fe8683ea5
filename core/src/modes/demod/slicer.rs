//! Slicing a reply into bits: the energies `E₁`, `E₀` of the two halves
//! of each bit, bit = `E₁ > E₀`, confidence = `|E₁ − E₀|`.

use super::history::FULL_SCALE;
use super::{HALF, LONG, crc, is_ap};

/// One sliced reply: bits and per-bit half energies.
#[derive(Clone)]
pub(super) struct Slice {
    pub(super) bytes: [u8; 14],
    /// Bits sliced: 56 or 112.
    pub(super) n: usize,
    pub(super) e1: [u32; LONG],
    pub(super) e0: [u32; LONG],
}

/// Up to [`crc::MAX_CANDIDATES`] bit positions.
pub(super) struct Weak {
    pos: [u8; crc::MAX_CANDIDATES],
    len: usize,
}

impl Weak {
    pub(super) fn as_slice(&self) -> &[u8] {
        &self.pos[..self.len.min(crc::MAX_CANDIDATES)]
    }
}

/// A bit whose slicing margin is below 1/`DOUBT_RATIO` of the frame's
/// median margin is doubtful (see [`Slice::doubtful`]). On the 2.4 MS/s
/// scene of `modes_vs_dump1090` the bits that turn an
/// interrogator-code-0 reply into a false one-bit code have margins of
/// 0.01–0.2 of the median; those of genuine one-bit codes 0.23 and up.
const DOUBT_RATIO: u64 = 5;

/// Bits checked for pulse presence before slicing the rest of a reply.
const EARLY_BITS: usize = 24;
/// Most bits of the first [`EARLY_BITS`] allowed to lack a pulse.
const EARLY_MISSING: usize = 3;

/// `T ×` the prefix sum of `c` at tick `t` (linear interpolation between
/// samples: the power integral over ticks `[0, t)`, exact for a
/// piecewise-constant power); 0 outside `c`. `T` is a constant, so `/`
/// and `%` are a multiply.
#[inline]
pub(super) fn tick_sum<const T: usize>(c: &[u32], t: usize) -> u32 {
    sum_at::<T>(c, (t / T, t % T))
}

/// [`tick_sum`] at tick `i·T + r` (`r < T`).
#[inline]
fn sum_at<const T: usize>(c: &[u32], (i, r): (usize, usize)) -> u32 {
    match (c.get(i), c.get(i + 1)) {
        (Some(&a), Some(&b)) => a
            .wrapping_mul(T as u32)
            .wrapping_add((r as u32).wrapping_mul(b.wrapping_sub(a))),
        _ => 0,
    }
}

/// Slice a reply whose first data bit starts at tick `x` of window `c`.
///
/// Returns `None` for a DF that cannot be validated (unassigned codes, and
/// AP formats when `ap` is false, i.e. no address is known), or when more
/// than [`EARLY_MISSING`] of the first [`EARLY_BITS`] bits have no half
/// above `floor` (a quarter of the preamble's pulse energy): a real reply
/// has a pulse in every bit, a false preamble in noise does not.
pub(super) fn slice<const T: usize>(c: &[u32], x: usize, floor: u32, ap: bool) -> Option<Slice> {
    let mut s = Slice {
        bytes: [0; 14],
        n: crc::SHORT_BITS,
        e1: [0; LONG],
        e0: [0; LONG],
    };
    let c = c.get(..(x + 2 * HALF * LONG) / T + 2)?;
    // Half-bit boundary `h` is tick `x + 6h`: sample `(x + 6h) / T` and
    // remainder `(x + 6h) % T`, stepped from one boundary to the next.
    let at = |h: usize| {
        let t = x + h * HALF;
        (t / T, t % T)
    };
    // Whole samples and remainder of a half-bit, so that a step needs
    // no division.
    let (whole, rest) = const { (HALF / T, HALF % T) };
    let step = |(i, r): (usize, usize)| {
        let r = r + rest;
        if r >= T {
            (i + whole + 1, r - T)
        } else {
            (i + whole, r)
        }
    };
    let g = |pos| sum_at::<T>(c, pos);
    // Bits `from..to`: half energies into `s`; returns the bits (bit `k`
    // at position `127 − k`) and the number of bits with no half above
    // `floor`.
    let bits = |s: &mut Slice, from: usize, to: usize| -> (u128, usize) {
        let (mut word, mut missing) = (0u128, 0);
        let mut pos = at(2 * from);
        let mut ga = g(pos);
        for (e1, e0) in s.e1[from..to].iter_mut().zip(&mut s.e0[from..to]) {
            pos = step(pos);
            let gm = g(pos);
            pos = step(pos);
            let gb = g(pos);
            *e1 = gm.wrapping_sub(ga);
            *e0 = gb.wrapping_sub(gm);
            ga = gb;
            missing += usize::from((*e1).max(*e0) <= floor);
            word = word << 1 | u128::from(*e1 > *e0);
        }
        (word << (128 - to), missing)
    };
    let (mut word, _) = bits(&mut s, 0, 5);
    let df = (word >> 123) as u8;
    match df {
        11 | 17 | 18 => {}
        df if ap && is_ap(df) => {}
        _ => return None,
    }
    if df >= 16 {
        s.n = LONG;
    }
    let (w, missing) = bits(&mut s, 5, EARLY_BITS);
    if missing > EARLY_MISSING {
        return None;
    }
    let n = s.n;
    word |= w | bits(&mut s, EARLY_BITS, n).0;
    s.bytes = word.to_be_bytes()[..14].try_into().ok()?;
    Some(s)
}

impl Slice {
    /// Signal level: mean power of the pulse-carrying half-bits, dBFS.
    pub(super) fn level_dbfs(&self) -> f32 {
        let n = self.n.min(LONG);
        let sum: u64 = self.e1[..n]
            .iter()
            .zip(&self.e0[..n])
            .map(|(&a, &b)| u64::from(a.max(b)))
            .sum();
        let mean = sum as f32 / (n * HALF) as f32;
        10.0 * libm::log10f(mean.max(1e-3) / FULL_SCALE)
    }

    /// Whether bit `k` was sliced with a margin `|E₁ − E₀|` below
    /// 1/[`DOUBT_RATIO`] of the frame's median margin: too close to call
    /// to be trusted where an error cannot be detected (the interrogator
    /// code of DF11).
    pub(super) fn doubtful(&self, k: usize) -> bool {
        let n = self.n.min(LONG);
        let mut m = [0u32; LONG];
        for (m, (&a, &b)) in m.iter_mut().zip(self.e1[..n].iter().zip(&self.e0[..n])) {
            *m = a.abs_diff(b);
        }
        let margin = m.get(k).copied().unwrap_or(u32::MAX);
        let m = &mut m[..n];
        let (_, median, _) = m.select_nth_unstable(n / 2);
        u64::from(margin) * DOUBT_RATIO < u64::from(*median)
    }

    /// The `k` least confident bit positions (smallest `|E₁ − E₀|`), most
    /// doubtful first.
    pub(super) fn weakest(&self, k: usize) -> Weak {
        let k = k.min(crc::MAX_CANDIDATES).min(self.n);
        let mut w = Weak {
            pos: [0; crc::MAX_CANDIDATES],
            len: 0,
        };
        if k == 0 {
            return w;
        }
        // Keys `confidence · 256 + position`: distinct, and ordered as the
        // bits are wanted (ties go to the earlier bit). Select the `k`
        // smallest (linear on average), then sort those.
        let mut keys = [0u64; LONG];
        for (i, (key, (&a, &b))) in keys
            .iter_mut()
            .zip(self.e1[..self.n].iter().zip(&self.e0[..self.n]))
            .enumerate()
        {
            *key = u64::from(a.abs_diff(b)) << 8 | i as u64;
        }
        let keys = &mut keys[..self.n];
        if k < keys.len() {
            keys.select_nth_unstable(k - 1);
        }
        let keys = &mut keys[..k];
        keys.sort_unstable();
        for (p, key) in w.pos.iter_mut().zip(keys.iter()) {
            *p = *key as u8;
        }
        w.len = k;
        w
    }
}
