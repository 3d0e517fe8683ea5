//! Second chance: re-slicing by maximum-likelihood sequence estimation
//! (a 2-state Viterbi search over the half-bit energies, with the
//! neighbour-context energies read off the preamble).

use super::preamble::U_LEN;
use super::slicer::Slice;
use super::{HALF, LONG, PREAMBLE_PULSES};

/// Expected half-bit energies for each neighbour context, read off the
/// preamble at the chosen phase (the same receiver response, phase and
/// level as the data): `one[prev][cur]` for the first half of a bit given
/// the previous and current bits, `zero[cur][next]` for its second half.
#[derive(Debug, Clone, Copy)]
pub(super) struct Prior {
    one: [[u32; 2]; 2],
    zero: [[u32; 2]; 2],
}

impl Prior {
    /// Contexts as they occur in the preamble (ticks from its start):
    /// a pulse between empty halves (the four pulses), an empty half
    /// between two pulses (6–12, 48–54), an empty half after a pulse
    /// (18–24, 60–66), before a pulse (36–42), and the two halves of a
    /// 1 µs pulse (a pulse plus half the leakage seen between pulses).
    pub(super) fn from_preamble(u: &[u32; U_LEN], p: usize, tps: usize, noise: u32) -> Self {
        let e = |a: usize, b: usize| -> u64 {
            match (u.get(p + a), u.get(p + b)) {
                (Some(x), Some(y)) => u64::from(y.wrapping_sub(*x)),
                _ => 0,
            }
        };
        let pulse = ((e(0, 6) + e(12, 18) + e(42, 48) + e(54, 60)) / 4) as u32;
        let between = ((e(6, 12) + e(48, 54)) / 2) as u32;
        let after = ((e(18, 24) + e(60, 66)) / 2) as u32;
        let before = e(36, 42) as u32;
        let (cont1, cont0) = if tps == HALF {
            coherent_pair(u, p, noise, pulse)
        } else {
            let cont = pulse.saturating_add(between.saturating_sub(before.min(after)) / 2);
            (cont, cont)
        };
        Self {
            // one[prev][cur]: cur = 1 → pulse in this half.
            one: [[between, cont1], [before, pulse]],
            // zero[cur][next]: cur = 0 → pulse in this half.
            zero: [[pulse, cont0], [after, between]],
        }
    }
}

/// The two halves of a 1 µs pulse when a sample is a half-bit (2.0 MS/s):
/// a pulse starting `φ` ticks into a sample puts amplitude `r₀` in that
/// sample and `r₁` in the next (both read off the four preamble pulses,
/// `r = √(m − noise)`). Where two pulses meet, one sample holds the tail
/// of the first and the head of the second *in phase* (one carrier), so
/// its amplitude is `r₀ + r₁`, not a sum of powers:
/// `E₁(0→1) = pulse + (6 − φ)(2 r₀ r₁ + r₁²)` for the first half and
/// `E₀(0→1) = pulse + φ(r₀² + 2 r₀ r₁)` for the second, where `pulse` is the
/// energy of an isolated half-bit pulse. Half a sample off, `E(0→1)` is
/// 2.5 × `pulse`; on a sample boundary `r₁ = 0` and both equal `pulse`.
fn coherent_pair(u: &[u32; U_LEN], p: usize, noise: u32, pulse: u32) -> (u32, u32) {
    let phi = (p % HALF) as f32;
    let m = |x: usize| -> f32 {
        match (u.get(x), u.get(x + 1)) {
            (Some(a), Some(b)) => b.wrapping_sub(*a) as f32,
            _ => 0.0,
        }
    };
    let amp = |x: usize| libm::sqrtf((m(x) - noise as f32).max(0.0));
    let (mut r0, mut r1) = (0.0f32, 0.0f32);
    for o in PREAMBLE_PULSES {
        r0 += amp(p + o) / 4.0;
        r1 += if phi > 0.0 {
            amp(p + o + HALF) / 4.0
        } else {
            0.0
        };
    }
    let c1 = pulse as f32 + (HALF as f32 - phi) * (2.0 * r0 * r1 + r1 * r1);
    let c0 = pulse as f32 + phi * (r0 * r0 + 2.0 * r0 * r1);
    (c1 as u32, c0 as u32)
}

impl Slice {
    /// Re-slice by maximum-likelihood sequence estimation over the half-bit
    /// energies. The receiver's response and the sampling phase spread each
    /// pulse into the neighbouring half-bits, so a half-bit's energy depends
    /// on the bits on either side: `E₁(k)` on bits `k−1, k` and `E₀(k)` on
    /// bits `k, k+1`. The expected energy of each of these eight contexts is
    /// estimated from this frame (decision-directed, from the plain slice)
    /// with the preamble's [`Prior`] as 4 pseudo-observations; then a
    /// 2-state Viterbi search (state = current bit) finds the bit sequence
    /// with the least squared error. Before the data the channel is quiet
    /// (a virtual `1` bit), after it too (a virtual `0`). Returns `None` if
    /// the result equals the plain slice or changes the frame length.
    pub(super) fn mlse(&self, prior: &Prior) -> Option<Slice> {
        const W0: u64 = 4;
        let n = self.n.min(LONG);
        if n < 2 {
            return None;
        }
        let bit = |k: usize| usize::from(self.bytes[k / 8] >> (7 - k % 8) & 1);
        let mut s1 = [[0u64; 2]; 2];
        let mut c1 = [[0u64; 2]; 2];
        let mut s0 = [[0u64; 2]; 2];
        let mut c0 = [[0u64; 2]; 2];
        let mut prev = 1;
        for k in 0..n {
            let cur = bit(k);
            let next = if k + 1 < n { bit(k + 1) } else { 0 };
            s1[prev][cur] += u64::from(self.e1[k]);
            c1[prev][cur] += 1;
            s0[cur][next] += u64::from(self.e0[k]);
            c0[cur][next] += 1;
            prev = cur;
        }
        let mut m1 = [[0i64; 2]; 2];
        let mut m0 = [[0i64; 2]; 2];
        for x in 0..2 {
            for y in 0..2 {
                m1[x][y] = ((u64::from(prior.one[x][y]) * W0 + s1[x][y]) / (W0 + c1[x][y])) as i64;
                m0[x][y] = ((u64::from(prior.zero[x][y]) * W0 + s0[x][y]) / (W0 + c0[x][y])) as i64;
            }
        }
        let sq = |a: u32, m: i64| -> u64 {
            let d = i64::from(a) - m;
            (d * d) as u64
        };
        // Path metrics after bit 0 (virtual previous bit 1).
        let mut pm = [sq(self.e1[0], m1[1][0]), sq(self.e1[0], m1[1][1])];
        // back[k]: bit s = best previous state of state s at bit k.
        let mut back = [0u8; LONG];
        for k in 0..n - 1 {
            let (e0, e1) = (self.e0[k], self.e1[k + 1]);
            let mut next = [0u64; 2];
            let mut b = 0u8;
            for nx in 0..2 {
                let c0 = pm[0]
                    .saturating_add(sq(e0, m0[0][nx]))
                    .saturating_add(sq(e1, m1[0][nx]));
                let c1 = pm[1]
                    .saturating_add(sq(e0, m0[1][nx]))
                    .saturating_add(sq(e1, m1[1][nx]));
                next[nx] = c0.min(c1);
                b |= u8::from(c1 < c0) << nx;
            }
            back[k + 1] = b;
            pm = next;
        }
        let f0 = pm[0].saturating_add(sq(self.e0[n - 1], m0[0][0]));
        let f1 = pm[1].saturating_add(sq(self.e0[n - 1], m0[1][0]));
        let mut st = usize::from(f1 < f0);
        let mut s = self.clone();
        s.bytes = [0; 14];
        for k in (0..n).rev() {
            s.bytes[k / 8] |= (st as u8) << (7 - k % 8);
            if k > 0 {
                st = usize::from(back[k] >> st & 1);
            }
        }
        (s.bytes != self.bytes && (s.bytes[0] ^ self.bytes[0]) & 0x80 == 0).then_some(s)
    }
}
