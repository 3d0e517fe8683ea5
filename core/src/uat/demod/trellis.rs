//! Coherent sequence detection of a UAT message: a 10-state Viterbi
//! search over the CPFSK phase trellis with a carrier reference kept per
//! survivor (per-survivor processing).
//!
//! With modulation index `h = 3/5` the phase at each bit boundary is a
//! multiple of 108° and so one of 10 values (multiples of 36°); a `1`
//! moves it +108° (+54° at mid-bit), a `0` −108°. With the carrier offset
//! `ω` taken from the sync word (the lag-1, 4 and 16 products of the sync
//! samples with their known modulation removed) and the carrier phase and
//! amplitude `c` from the sync word's last samples, each branch scores
//! `Re{(r_mid·e^(−jθ_mid) + r_end·e^(−jθ_end))·conj(c)}`: the correlation a
//! coherent receiver makes, which differential detection (the phase step
//! from one noisy sample to the next) approaches only at high SNR. Each
//! survivor updates its own `c` from its decisions (`c ← λc + (1−λ)·z`,
//! `λ` = [`LAMBDA`]), which follows the carrier's phase drift and a
//! residual offset.
//!
//! Confidence of bit `i` is the difference of the two path metrics that
//! met in the decided path's state after that bit (the margin by which
//! the survivor won there), in units of `|b − 127.4|²` scaled by 25/32
//! (see [`sample`]).

use super::{DemodState, SYNC_BITS};
use crate::C32;

/// Reference memory per bit (`λ`: a time constant of about 7 bits; 0.75
/// and 0.93 decoded the same within 2 % on generated messages at 1–8 dB).
pub const LAMBDA: f32 = 0.85;
/// Phase-trellis states.
const STATES: usize = 10;
/// Sync samples the initial reference averages.
const REF_SAMPLES: usize = 32;

/// `e^(j·k·18°)` for `k` in `0..20`.
const UNIT: [(f32, f32); 20] = {
    // cos and sin of multiples of 18°, to f32 precision.
    [
        (1.0, 0.0),
        (0.951_056_5, 0.309_017),
        (0.809_017, 0.587_785_24),
        (0.587_785_24, 0.809_017),
        (0.309_017, 0.951_056_5),
        (0.0, 1.0),
        (-0.309_017, 0.951_056_5),
        (-0.587_785_24, 0.809_017),
        (-0.809_017, 0.587_785_24),
        (-0.951_056_5, 0.309_017),
        (-1.0, 0.0),
        (-0.951_056_5, -0.309_017),
        (-0.809_017, -0.587_785_24),
        (-0.587_785_24, -0.809_017),
        (-0.309_017, -0.951_056_5),
        (0.0, -1.0),
        (0.309_017, -0.951_056_5),
        (0.587_785_24, -0.809_017),
        (0.809_017, -0.587_785_24),
        (0.951_056_5, -0.309_017),
    ]
};

/// `x · e^(−j·k·18°)`.
#[inline(always)]
fn derotate(x: C32, k: usize) -> C32 {
    let (c, s) = UNIT[k % 20];
    C32::new(x.re * c + x.im * s, x.im * c - x.re * s)
}

/// `Re{a · conj(b)}`.
#[inline(always)]
fn corr(a: C32, b: C32) -> f32 {
    a.re * b.re + a.im * b.im
}

/// The sample at `n`, centred on 127.4 and scaled by 5/√32 (a scale
/// that only sets the confidences' unit: they are compared with each
/// other, within one message, and saturate at 65,535).
#[inline(always)]
fn sample<const N: usize, const B: usize>(st: &DemodState<N, B>, n: usize) -> C32 {
    let [i, q] = st.x[n];
    const K: f32 = 0.883_883_5; // 5/√32
    C32::new(K * (f32::from(i) - 127.4), K * (f32::from(q) - 127.4))
}

/// The carrier as the sync word shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Carrier {
    /// `e^(−jω)`: one sample's rotation taking out the offset.
    step: C32,
    /// The rotation at the first sample after the sync (`step^73`).
    rot_data: C32,
    /// Amplitude and phase at the sync's end, offset and modulation
    /// removed.
    reference: C32,
    /// The modulation phase at the sync's end, 18° units.
    units_end: usize,
    /// Share of the sync samples' power that follows the expected phase
    /// path: `|Σ z e^(−jωk)|² / (n·Σ|z|²)`, about `SNR/(1 + SNR)` for a
    /// real sync word, about `1/n` for noise.
    coherence: f32,
}

/// Least [`Carrier::coherence`] worth a trellis search (a sync word
/// about 6 dB below the noise; noise gives about 0.02).
pub(super) const MIN_COHERENCE: f32 = 0.2;

/// [`Carrier::coherence`] above which differential detection is tried
/// first (about 5 dB: from there it decodes most messages, for a small
/// part of the trellis search's work; the search follows if it fails).
pub(super) const STRONG_COHERENCE: f32 = 0.75;

impl Carrier {
    /// Estimate the carrier from the sync word `pattern` starting at
    /// sample `start` (its 73 samples must be in the state).
    pub(super) fn from_sync<const N: usize, const B: usize>(
        st: &DemodState<N, B>,
        start: usize,
        pattern: u64,
    ) -> Option<Self> {
        if start + 2 * SYNC_BITS >= st.len {
            return None;
        }
        // The known modulation in 18° units at each sync sample.
        let mut units = [0usize; 2 * SYNC_BITS + 1];
        let mut p = 0usize;
        for i in 0..SYNC_BITS {
            let one = pattern >> (SYNC_BITS - 1 - i) & 1 == 1;
            units[2 * i] = p;
            units[2 * i + 1] = if one { p + 3 } else { p + 17 } % 20;
            p = if one { p + 6 } else { p + 14 } % 20;
        }
        units[2 * SYNC_BITS] = p;
        let mut z = [C32::new(0.0, 0.0); 2 * SYNC_BITS + 1];
        let mut power = 0.0f32;
        for (k, (zk, &u)) in z.iter_mut().zip(&units).enumerate() {
            *zk = derotate(sample(st, start + k), u);
            power += zk.norm_sqr();
        }
        // Carrier offset from the lag products: lag 1 (unambiguous to ±π
        // per sample), refined at lags 4 and 16, each unwrapped around the
        // last estimate (the error falls with the lag).
        let mut omega = 0.0f32;
        for lag in [1usize, 4, 16] {
            let mut acc = C32::new(0.0, 0.0);
            for k in lag..z.len() {
                acc += z[k] * z[k - lag].conj();
            }
            let (s, c) = libm::sincosf(-omega * lag as f32);
            let acc = acc * C32::new(c, s);
            omega += libm::atan2f(acc.im, acc.re) / lag as f32;
        }
        let (ws, wc) = libm::sincosf(-omega);
        let step = C32::new(wc, ws);
        // Coherent sum, and the reference from the last sync samples.
        let mut rot = C32::new(1.0, 0.0);
        let mut sum = C32::new(0.0, 0.0);
        let mut reference = C32::new(0.0, 0.0);
        for (k, zk) in z.iter().enumerate() {
            let v = *zk * rot;
            sum += v;
            if k + REF_SAMPLES >= z.len() {
                reference += v;
            }
            rot *= step;
        }
        let n = z.len() as f32;
        let coherence = if power > 0.0 {
            sum.norm_sqr() / (n * power)
        } else {
            0.0
        };
        Some(Self {
            step,
            rot_data: rot,
            reference: reference / REF_SAMPLES as f32,
            units_end: p,
            coherence,
        })
    }

    /// See the field.
    pub(super) fn coherence(&self) -> f32 {
        self.coherence
    }
}

/// Detect `bits` data bits after the sync word starting at sample `start`
/// whose carrier is `carrier`, into `st.raw` (bytes, MSB first) and
/// `st.conf` (the least bit confidence of each byte). `bits` is a
/// multiple of 8 and the samples up to `start + 2·(36 + bits)` are in the
/// state.
pub(super) fn detect<const N: usize, const B: usize>(
    st: &mut DemodState<N, B>,
    start: usize,
    carrier: &Carrier,
    bits: usize,
) {
    let data = start + 2 * SYNC_BITS;
    let step = carrier.step;
    let mut rot = carrier.rot_data;
    let p = carrier.units_end;
    let reference = carrier.reference;

    // Viterbi over the 10 boundary phases (state s: 36°·s = 18°·2s).
    // Into state t come a `1` from t − 3 (mid-bit at 18°·(2s + 3), end at
    // 18°·(2s + 6)) and a `0` from t + 3 (mid 18°·(2s − 3), end
    // 18°·(2s − 6)), states mod 10. Mid-bit samples are rotated by the
    // odd multiples of 18° (index j: 18°·(2j + 1)), ends by the even ones
    // (index j: 18°·2j).
    const FROM_ONE: [usize; STATES] = [7, 8, 9, 0, 1, 2, 3, 4, 5, 6];
    const FROM_ZERO: [usize; STATES] = [3, 4, 5, 6, 7, 8, 9, 0, 1, 2];
    // Mid-bit rotation index of each branch into t: (2s + 3 − 1)/2 for a
    // `1` from s = t − 3, (2s − 3 − 1)/2 for a `0` from s = t + 3.
    const MID_ONE: [usize; STATES] = [8, 9, 0, 1, 2, 3, 4, 5, 6, 7];
    const MID_ZERO: [usize; STATES] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0];
    /// Finite "unreachable" (−∞ would give NaN differences).
    const NONE: f32 = -1e30;
    let mut metric = [NONE; STATES];
    let mut refs = [C32::new(0.0, 0.0); STATES];
    metric[p / 2] = 0.0;
    refs[p / 2] = reference;
    for i in 0..bits {
        let mid_n = data + 2 * i + 1;
        let mid = sample(st, mid_n) * rot;
        rot *= step;
        let end = sample(st, mid_n + 1) * rot;
        rot *= step;
        let mut mid_rot = [C32::new(0.0, 0.0); STATES];
        let mut end_rot = [C32::new(0.0, 0.0); STATES];
        for j in 0..STATES {
            mid_rot[j] = derotate(mid, 2 * j + 1);
            end_rot[j] = derotate(end, 2 * j);
        }
        let mut next = [NONE; STATES];
        let mut next_refs = [C32::new(0.0, 0.0); STATES];
        let mut choice = 0u16;
        let deltas = &mut st.deltas[i / 8][i % 8];
        for t in 0..STATES {
            let (s1, s0) = (FROM_ONE[t], FROM_ZERO[t]);
            let z1 = mid_rot[MID_ONE[t]] + end_rot[t];
            let z0 = mid_rot[MID_ZERO[t]] + end_rot[t];
            let m1 = metric[s1] + corr(z1, refs[s1]);
            let m0 = metric[s0] + corr(z0, refs[s0]);
            deltas[t] = (m1 - m0).abs().min(f32::from(u16::MAX)) as u16;
            let (m, z, c) = if m1 > m0 {
                choice |= 1 << t;
                (m1, z1, refs[s1])
            } else {
                (m0, z0, refs[s0])
            };
            next[t] = m;
            next_refs[t] = c * LAMBDA + z * (0.5 * (1.0 - LAMBDA));
        }
        st.choices[i / 8][i % 8] = choice;
        // Keep the scores small: what matters is their differences.
        let top = next.iter().copied().fold(NONE, f32::max);
        for (m, n) in metric.iter_mut().zip(&next) {
            *m = (n - top).max(NONE);
        }
        refs = next_refs;
    }
    // Trace back from the best end state.
    let mut s = (0..STATES)
        .max_by(|&a, &b| metric[a].total_cmp(&metric[b]))
        .unwrap_or(0);
    for i in (0..bits).rev() {
        let m = st.deltas[i / 8][i % 8][s];
        let conf = &mut st.conf[i / 8];
        *conf = if i % 8 == 7 { m } else { (*conf).min(m) };
        let one = st.choices[i / 8][i % 8] >> s & 1 == 1;
        let byte = &mut st.raw[i / 8];
        let mask = 0x80 >> (i % 8);
        if one {
            *byte |= mask;
            s = (s + 7) % STATES;
        } else {
            *byte &= !mask;
            s = (s + 3) % STATES;
        }
    }
}
