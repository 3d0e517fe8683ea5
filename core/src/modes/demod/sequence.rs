//! Second chance: maximum-likelihood sequence estimation on the sample
//! amplitudes (a 2-state Viterbi search), for replies whose pulses
//! straddle samples.
//!
//! # Model
//!
//! Half-bit `h` of the data occupies ticks `[x + 6h, x + 6h + 6)` (`x` the
//! first data tick) and carries a pulse `z_h ∈ {0, 1}`; bit `k` is
//! `z_{2k} = b_k`, `z_{2k+1} = 1 − b_k`. With a box (integrate-and-dump)
//! response a sample `i` (ticks `[iT, iT + T)`, `4 ≤ T ≤ 6`) overlaps at
//! most two half-bits, and since a reply is one carrier, two pulses in one
//! sample add *in amplitude*:
//!
//! `s_i = A · Σ_h (ov(i, h) / T) · z_h`
//!
//! where `ov` is the overlap in ticks and `A` the amplitude of a pulse
//! that fills a sample. With receiver noise of power `N` per sample the
//! measured amplitude `y_i = √m_i` is Rician; its mean is close to
//! `√(s_i² + N)`, which is taken as the expected value, and the cost of a
//! bit sequence is `Σ (y_i − √(s_i² + N))²`. A sample depends on bit `k`
//! alone or on bits `k − 1` and `k` (the one across their boundary), so a
//! Viterbi search with the previous bit as state finds the least-cost
//! sequence exactly. Before the data the channel is quiet (a virtual
//! previous bit `1`).
//!
//! `A` is fitted by least squares to the four preamble pulses, then twice
//! more to the whole reply as decided (decision-directed), and the
//! timing is the preamble start whose box-shaped pulses fit the first
//! 8 µs best ([`fit_phase`]).
//!
//! A candidate that is not a reply (a preamble-like pattern inside
//! another reply, noise) costs little: [`fit_phase`] drops it when the
//! preamble's residual exceeds [`gate`] per sample or `A²/N` is below
//! [`MIN_SNR`]; after its first [`EARLY_BITS`] bits it is dropped when the
//! least cost per sample there exceeds [`gate`] (twice the noise power
//! plus 2 % of the pulse power: the model's mismatch grows with the
//! signal; on the 2.0 MS/s capture every reply recovered here costs at
//! most 1.4 % of `A²` per sample, while 1,189 of 1,190 failed candidates
//! cost more) or when the model explains those samples less than
//! [`NULL_GAIN`] × `N` per sample better than noise alone. Replies with
//! clipped samples skip the residual gates.
//!
//! [`sequence_fit`] is that first part alone, the least cost per sample of
//! the first bits relative to [`gate`]: the scan reads the whole reply
//! only at the timings that fit best.
//!
//! The same search reads *coherent* amplitudes ([`Amplitudes::Coherent`],
//! from module `coherent`): each sample's real part with the reply's
//! carrier taken out, a pulse's amplitude plus real Gaussian noise of
//! power `N/2`. Its expected value is then `s_i` itself (no noise term)
//! and the gates use `N/2` for the noise.
//!
//! Only at 3, 2.4 and 2.0 MS/s (`T` = 4 … 6): at 6 and 12 MS/s a pulse
//! covers two or more whole samples and slicing energies loses nothing.
//!
//! # Why
//!
//! Slicing half-bit *energies* cannot separate a run of equal bits sampled
//! half a sample off at 2.0 MS/s: both halves of each bit then hold the
//! same energy, and only the in-phase sum of two pulses at a `0 → 1`
//! transition (amplitude `A`, against `A/2` for one pulse) and the gap at
//! `1 → 0` carry the data. On amplitudes those levels `0, A/2, A` are
//! evenly spaced, and the search reads them exactly. Isolated DF17 replies
//! at 2.0 MS/s, 20 dB, half a sample off: 39 of 39 clean at the fitted
//! timing, against 13 for the energy-based search, which still runs first
//! (it is cheaper, and copes better with a weaker reply on top).

use super::history::FULL_SCALE;
use super::slicer::Slice;
use super::{DATA_START, FRAME_TICKS, HALF, LONG, MIN_T, PREAMBLE_PULSES, SPAN, crc, is_ap};

/// Samples of the longest window read.
pub(super) const MAX_SAMPLES: usize = (SPAN * HALF + FRAME_TICKS).div_ceil(MIN_T) + 1;

/// Samples of the window up to the end of bit [`EARLY_BITS`]: all that
/// [`sequence_fit`] reads.
const EARLY_SAMPLES: usize = (SPAN * HALF + DATA_START + EARLY_BITS * 2 * HALF).div_ceil(MIN_T) + 1;

/// Bits decided before the residual check.
pub(super) const EARLY_BITS: usize = 24;

/// Least `A²/N` tried (7.8 dB): weaker replies are not worth the search.
const MIN_SNR: f32 = 6.0;

/// Least improvement per sample, in units of `N`, of the reply model's
/// cost over noise alone in the first [`EARLY_BITS`] bits.
const NULL_GAIN: f32 = 1.0;

/// Amplitude at which a sample may be clipped: one component at full
/// scale (127.4 LSB, ×5 in the units of the power table).
const CLIP: f32 = 5.0 * 127.4;

/// Highest least cost per sample of a reply's first [`EARLY_BITS`] bits:
/// `2N + A²/50`.
fn gate(noise: f32, a: f32) -> f32 {
    2.0 * noise + a * a / 50.0
}

/// One candidate reply: its sample amplitudes, which pulses each sample
/// overlaps, and the expected amplitude for each overlap at the current
/// `A`.
struct Reply<'a, const T: usize, const S: usize> {
    /// The window's sample amplitudes (those read so far): `√m`, or the
    /// coherent amplitudes.
    y: [f32; S],
    /// Coherent amplitudes of the window's samples, when given
    /// ([`Amplitudes::Coherent`]).
    coherent: Option<&'a [f32]>,
    /// Per sample, ticks overlapped by: the pulse of a `1` in the bit the
    /// sample belongs to, the pulse of a `0` there, the pulse of a `0` in
    /// the bit before.
    ov: [[u8; 3]; S],
    /// First sample of each bit (and the end of the last).
    first: [u16; LONG + 1],
    /// Noise power per sample (per component, `N/2`, when coherent).
    noise: f32,
    /// Clipped samples present.
    clipped: bool,
    /// `√((A·ov/T)² + N)` for `ov = 0 ..= 6`.
    mu: [f32; HALF + 1],
}

impl<'a, const T: usize, const S: usize> Reply<'a, T, S> {
    /// A candidate starting at tick `p` of window `c` (prefix sums), with
    /// the samples of the preamble and of its first `bits` bits read;
    /// `None` if the window is too short or `T < 4`.
    fn new(c: &[u32], amps: Amplitudes<'a>, p: usize, noise: u32, bits: usize) -> Option<Self> {
        if !(MIN_T..=HALF).contains(&T) {
            return None;
        }
        let x = p + DATA_START;
        c.get(..=(x + LONG * 2 * HALF).div_ceil(T).min(MAX_SAMPLES))?;
        let coherent = match amps {
            Amplitudes::Power => None,
            Amplitudes::Coherent(a) => Some(a),
        };
        let mut r = Self {
            y: [0.0; S],
            coherent,
            ov: [[0; 3]; S],
            first: [0; LONG + 1],
            noise: if coherent.is_some() {
                noise as f32 / 2.0
            } else {
                noise as f32
            },
            clipped: false,
            mu: [0.0; HALF + 1],
        };
        r.read(c, 0, x, 0, bits);
        Some(r)
    }

    /// Read samples `[from, first of bit `to`)`: their amplitudes, and
    /// the pulse overlaps of bits `k0 .. to` (data from tick `x`).
    fn read(&mut self, c: &[u32], from: usize, x: usize, k0: usize, to: usize) {
        // Sample i belongs to the bit holding its last tick iT + T − 1.
        let len = (x + LONG * 2 * HALF).div_ceil(T).min(S);
        for (k, f) in self.first.iter_mut().enumerate().take(to + 1).skip(k0) {
            *f = ((x + 12 * k + 1).saturating_sub(T).div_ceil(T)).min(len) as u16;
        }
        let end = usize::from(self.first[to]);
        if let Some(a) = self.coherent {
            for (y, &v) in self.y[from..end]
                .iter_mut()
                .zip(a.get(from..).unwrap_or(&[]))
            {
                *y = v;
            }
        } else if let Some(w) = c.get(from..=end) {
            for (y, m) in self.y[from..end].iter_mut().zip(w.windows(2)) {
                *y = libm::sqrtf(m[1].wrapping_sub(m[0]) as f32);
                self.clipped |= *y >= CLIP;
            }
        }
        for k in k0..to {
            let b = x + 12 * k;
            for i in usize::from(self.first[k])..usize::from(self.first[k + 1]) {
                let prev0 = if k > 0 { overlap::<T>(i, b - HALF) } else { 0 };
                self.ov[i] =
                    [overlap::<T>(i, b), overlap::<T>(i, b + HALF), prev0].map(|v| v as u8);
            }
        }
    }

    /// Set the pulse amplitude `A`.
    fn set_amplitude(&mut self, a: f32) {
        let noise = if self.coherent.is_some() {
            0.0
        } else {
            self.noise
        };
        for (ov, mu) in self.mu.iter_mut().enumerate() {
            let s = a * ov as f32 / T as f32;
            *mu = libm::sqrtf(s * s + noise);
        }
    }

    /// `√max(y² − N, 0)`: the amplitude with the noise power taken out.
    fn clean(&self, i: usize) -> f32 {
        let y = self.y[i];
        if self.coherent.is_some() {
            return y;
        }
        libm::sqrtf((y * y - self.noise).max(0.0))
    }

    /// Least-squares `A` of the four preamble pulses starting at tick `p`.
    fn preamble_amplitude(&self, p: usize) -> Option<f32> {
        let (mut sxy, mut sxx) = (0.0f32, 0.0f32);
        for o in PREAMBLE_PULSES {
            let a = p + o;
            for i in a / T..(a + HALF).div_ceil(T) {
                let w = overlap::<T>(i, a) as f32;
                sxy += w * self.clean(i);
                sxx += w * w;
            }
        }
        (sxx > 0.0 && sxy > 0.0).then(|| sxy / sxx * T as f32)
    }

    /// Samples of bit `k`.
    fn samples(&self, k: usize) -> core::ops::Range<usize> {
        usize::from(self.first[k])..usize::from(self.first[k + 1])
    }

    /// Ticks of sample `i` (of bit `k`) covered by pulses when the bit is
    /// `cur` after `prev`.
    fn pulse_ticks(&self, i: usize, k: usize, prev: bool, cur: bool) -> usize {
        let [one, zero, prev0] = self.ov[i];
        let mut t = if cur { one } else { zero };
        if !prev && k > 0 {
            t += prev0;
        }
        usize::from(t).min(HALF)
    }

    /// Costs of the samples of bit `k` for `(prev, cur)` =
    /// `[(0,0), (0,1), (1,0), (1,1)]`.
    fn bit_costs(&self, k: usize) -> [f32; 4] {
        let mut c = [0.0f32; 4];
        for i in self.samples(k) {
            let [one, zero, prev0] = self.ov[i].map(usize::from);
            let y = self.y[i];
            let d = |t: usize| {
                let d = y - self.mu[t.min(HALF)];
                d * d
            };
            c[0] += d(zero + prev0);
            c[1] += d(one + prev0);
            c[2] += d(zero);
            c[3] += d(one);
        }
        c
    }

    /// The least-cost sequence of `n` bits and its cost; each bit's
    /// [`bit_costs`](Self::bit_costs) into `costs` (at least `n` long).
    fn viterbi(&self, n: usize, costs: &mut [[f32; 4]]) -> ([u8; 14], f32) {
        let mut pm = [f32::INFINITY, 0.0]; // virtual previous bit 1
        let mut back = [0u8; LONG];
        for ((k, back), cost) in back[..n].iter_mut().enumerate().zip(costs.iter_mut()) {
            let c = self.bit_costs(k);
            *cost = c;
            let mut next = [0.0f32; 2];
            for cur in 0..2 {
                let (via0, via1) = (pm[0] + c[cur], pm[1] + c[2 + cur]);
                next[cur] = via0.min(via1);
                *back |= u8::from(via1 < via0) << cur;
            }
            pm = next;
        }
        let mut st = pm[1] < pm[0];
        let cost = pm[0].min(pm[1]);
        let mut out = [0u8; 14];
        for k in (0..n).rev() {
            out[k / 8] |= u8::from(st) << (7 - k % 8);
            st = back[k] >> u8::from(st) & 1 == 1;
        }
        (out, cost)
    }

    /// Least-squares `A` of the whole reply with `bits` decided.
    fn fit_amplitude(&self, n: usize, bits: &[u8; 14]) -> Option<f32> {
        let (mut sxy, mut sxx) = (0.0f32, 0.0f32);
        for k in 0..n {
            let prev = k == 0 || bit(bits, k - 1);
            let cur = bit(bits, k);
            for i in self.samples(k) {
                let w = self.pulse_ticks(i, k, prev, cur) as f32;
                sxy += w * self.clean(i);
                sxx += w * w;
            }
        }
        (sxx > 0.0 && sxy > 0.0).then(|| sxy / sxx * T as f32)
    }
}

/// Margin of bit `k`: the cost of flipping it alone (from the bit
/// `costs` of the search that decided the `n` bits).
fn margin(costs: &[[f32; 4]; LONG], n: usize, bits: &[u8; 14], k: usize) -> f32 {
    let at = |prev: bool, cur: bool| 2 * usize::from(prev) + usize::from(cur);
    let prev = k == 0 || bit(bits, k - 1);
    let cur = bit(bits, k);
    let c = costs[k];
    let mut d = c[at(prev, !cur)] - c[at(prev, cur)];
    if k + 1 < n {
        let next = bit(bits, k + 1);
        let c = costs[k + 1];
        d += c[at(!cur, next)] - c[at(cur, next)];
    }
    d
}

/// Overlap in ticks of sample `i` (ticks `[iT, iT + T)`) and `[a, a + 6)`.
pub(super) const fn overlap<const T: usize>(i: usize, a: usize) -> usize {
    let lo = if i * T > a { i * T } else { a };
    let hi = if (i + 1) * T < a + HALF {
        (i + 1) * T
    } else {
        a + HALF
    };
    hi.saturating_sub(lo)
}

/// Bit `k` of `bytes`.
fn bit(bytes: &[u8; 14], k: usize) -> bool {
    bytes[k / 8] >> (7 - k % 8) & 1 == 1
}
/// Samples overlapped by a pulse: at most `⌈6 / T⌉ + 1` (3 at `T = 4`).
const PULSE_SAMPLES: usize = HALF.div_ceil(MIN_T) + 1;

/// For each preamble start `p` (`0 .. SPAN·T` ticks), the samples the four
/// preamble pulses overlap and the overlaps in ticks (unused entries are
/// zero-weight).
const fn preamble_taps<const T: usize>() -> [[(u8, u8); 4 * PULSE_SAMPLES]; SPAN * HALF] {
    let mut t = [[(0u8, 0u8); 4 * PULSE_SAMPLES]; SPAN * HALF];
    let mut p = 0;
    while p < SPAN * T && T >= MIN_T {
        let mut n = 0;
        let mut o = 0;
        while o < PREAMBLE_PULSES.len() {
            let a = p + PREAMBLE_PULSES[o];
            let mut i = a / T;
            while i < (a + HALF).div_ceil(T) && n < 4 * PULSE_SAMPLES {
                t[p][n] = (i as u8, overlap::<T>(i, a) as u8);
                n += 1;
                i += 1;
            }
            o += 1;
        }
        p += 1;
    }
    t
}

/// The preamble start (tick of window `c`, `0 .. SPAN·T`) whose four
/// box-shaped pulses best fit the sample amplitudes `√max(m − N, 0)` of
/// the first 8 µs: least squares with the best amplitude for each start,
/// i.e. the start maximising `(Σ y·w)² / Σ w²` (`w` the pulses' overlap
/// with each sample). Unlike the power score, which is piecewise linear in
/// the phase, the fit is exact for any sub-sample phase of a box
/// response.
pub(super) fn fit_phase<const T: usize>(c: &[u32], noise: u32) -> Option<usize> {
    const K: usize = (SPAN * 6 + DATA_START) / 2 + 1;
    let k = (SPAN * T + DATA_START).div_ceil(T).min(K);
    let noise = noise as f32;
    let mut y = [0.0f32; K];
    let mut clipped = false;
    for (y, m) in y[..k].iter_mut().zip(c.get(..=k)?.windows(2)) {
        let m = m[1].wrapping_sub(m[0]) as f32;
        clipped |= m >= CLIP * CLIP;
        *y = libm::sqrtf((m - noise).max(0.0));
    }
    // The loop of `best_preamble` over every start, kept here: as a call
    // it costs 0.5 instructions per sample more at 1,500 replies/s.
    // (score, p, Σw·y, Σw²)
    let mut best = (0.0f32, 0, 0.0f32, 0.0f32);
    let taps = const { preamble_taps::<T>() };
    for (p, taps) in taps.iter().enumerate().take(SPAN * T) {
        let (sxy, sxx) = box_fit(taps, &y);
        if sxx > 0.0 && sxy > 0.0 {
            let score = sxy * sxy / sxx;
            if score > best.0 {
                best = (score, p, sxy, sxx);
            }
        }
    }
    let (score, p, sxy, sxx) = best;
    if score <= 0.0 {
        return None;
    }
    // Residual over the preamble's 8 µs: its quiet zones must be quiet.
    let (a, b) = (p / T, ((p + DATA_START) / T).min(k));
    let total: f32 = y[a..b].iter().map(|y| y * y).sum();
    let amp = sxy / sxx * T as f32;
    let weak = amp * amp < MIN_SNR * noise;
    let bad = weak || !clipped && total - score > gate(noise, amp) * (b - a) as f32;
    (!bad).then_some(p)
}

/// `(Σw·y, Σw²)` of one preamble start: `taps` are the samples its four
/// pulses cover, `(index into y, overlap w in ticks)`; samples past `y`
/// read as 0.
#[inline(always)]
fn box_fit(taps: &[(u8, u8)], y: &[f32]) -> (f32, f32) {
    let (mut sxy, mut sxx) = (0.0f32, 0.0f32);
    for &(i, w) in taps {
        let w = f32::from(w);
        sxy += w * y.get(usize::from(i)).copied().unwrap_or(0.0);
        sxx += w * w;
    }
    (sxy, sxx)
}

/// Among the preamble starts `starts` (ticks of the window, below
/// `SPAN·T`), the one whose four box-shaped pulses best fit the sample
/// amplitudes `y` of the window: `(score, start, Σw·y, Σw²)` with the
/// largest `score = (Σw·y)² / Σw²` (`w` the pulses' overlap with each
/// sample; the least-squares fit with the best amplitude for each
/// start), `Σw·y > 0`; `None` if no start has one.
pub(super) fn best_preamble<const T: usize>(
    y: &[f32],
    starts: core::ops::Range<usize>,
) -> Option<(f32, usize, f32, f32)> {
    let taps = const { preamble_taps::<T>() };
    let mut best: Option<(f32, usize, f32, f32)> = None;
    let (from, to) = (starts.start, starts.end.min(SPAN * T));
    for (p, taps) in taps.iter().enumerate().take(to).skip(from) {
        let (sxy, sxx) = box_fit(taps, y);
        if sxx > 0.0 && sxy > 0.0 {
            let score = sxy * sxy / sxx;
            if best.is_none_or(|b| score > b.0) {
                best = Some((score, p, sxy, sxx));
            }
        }
    }
    best
}

/// The first [`EARLY_BITS`] bits of the reply whose preamble starts at
/// tick `p` of window `c`: the candidate with its samples read that far,
/// the preamble's amplitude `A`, the frame's length in bits and the fit's
/// least cost per sample relative to [`gate`] (below 1 for every reply
/// that is not clipped; lower is a better fit). See [`sequence_slice`].
fn early<'a, const T: usize, const S: usize>(
    c: &[u32],
    amps: Amplitudes<'a>,
    p: usize,
    noise: u32,
    ap: bool,
) -> Result<(Reply<'a, T, S>, f32, usize, f32), Rejected> {
    let mut r = Reply::<T, S>::new(c, amps, p, noise, EARLY_BITS).ok_or(Rejected::Window)?;
    let a = r.preamble_amplitude(p).ok_or(Rejected::NotReply)?;
    r.set_amplitude(a);
    let (early, cost) = r.viterbi(EARLY_BITS, &mut [[0.0; 4]; EARLY_BITS]);
    let samples = usize::from(r.first[EARLY_BITS] - r.first[0]).max(1);
    let fit = cost / (gate(r.noise, a) * samples as f32);
    if !r.clipped && fit > 1.0 {
        return Err(Rejected::NotReply);
    }
    // The reply must explain the samples better than noise alone does.
    let null: f32 = (usize::from(r.first[0])..usize::from(r.first[EARLY_BITS]))
        .map(|i| {
            let d = r.y[i] - r.mu[0];
            d * d
        })
        .sum();
    if null - cost < NULL_GAIN * r.noise * samples as f32 {
        return Err(Rejected::NotReply);
    }
    let n = match early[0] >> 3 {
        df @ (11 | 17 | 18) => {
            if df == 11 {
                crc::SHORT_BITS
            } else {
                LONG
            }
        }
        df if ap && is_ap(df) => {
            if df >= 16 {
                LONG
            } else {
                crc::SHORT_BITS
            }
        }
        _ => return Err(Rejected::Format),
    };
    Ok((r, a, n, fit))
}

/// How well the sequence model fits the first [`EARLY_BITS`] bits of the
/// reply whose preamble starts at tick `p` (the least cost per sample
/// relative to the gate, lower is better), or why it is no candidate:
/// the cheap first half of [`sequence_slice`], to choose among timings
/// before reading a whole reply at one of them.
pub(super) fn sequence_fit<const T: usize>(
    c: &[u32],
    amps: Amplitudes<'_>,
    p: usize,
    noise: u32,
    ap: bool,
) -> Result<f32, Rejected> {
    early::<T, EARLY_SAMPLES>(c, amps, p, noise, ap).map(|(.., fit)| fit)
}

/// Slice the reply whose preamble starts at tick `p` of window `c` by
/// sequence estimation on the sample amplitudes (`noise`: noise power per
/// sample). `None` for a DF that cannot be validated (AP formats only
/// when `ap`), a window too short, or `T < 2`. The half-bit energies of
/// the slice are synthetic: the pulse energy `6A²` (at most full scale)
/// in the half decided on
/// and that less the bit's margin (the cost of flipping it alone, relative
/// to `A²`, at most 1) in the other, so the repair's ordering by
/// confidence and the signal level carry over.
pub(super) fn sequence_slice<const T: usize>(
    c: &[u32],
    amps: Amplitudes<'_>,
    p: usize,
    noise: u32,
    ap: bool,
) -> Result<Slice, Rejected> {
    let (mut r, mut a, n, _) = early::<T, MAX_SAMPLES>(c, amps, p, noise, ap)?;
    let from = usize::from(r.first[EARLY_BITS]);
    r.read(c, from, p + DATA_START, EARLY_BITS, n);
    let mut costs = [[0.0f32; 4]; LONG];
    let mut bits = r.viterbi(n, &mut costs).0;
    for _ in 0..2 {
        a = r.fit_amplitude(n, &bits).ok_or(Rejected::NotReply)?;
        r.set_amplitude(a);
        let again = r.viterbi(n, &mut costs).0;
        if again == bits {
            break;
        }
        bits = again;
    }
    let mut s = Slice {
        bytes: bits,
        n,
        e1: [0; LONG],
        e0: [0; LONG],
    };
    // With clipping the fitted `A` (a sample full of pulse) can exceed
    // full scale; the level is then full scale.
    let a_fs = a.min(libm::sqrtf(FULL_SCALE));
    let level = 6.0 * a_fs * a_fs;
    for k in 0..n {
        let m = (margin(&costs, n, &bits, k) / (a * a).max(1.0)).clamp(0.0, 1.0);
        let (hi, lo) = (level as u32, (level * (1.0 - m)) as u32);
        (s.e1[k], s.e0[k]) = if bit(&bits, k) { (hi, lo) } else { (lo, hi) };
    }
    Ok(s)
}

/// The sample amplitudes the search reads.
#[derive(Clone, Copy)]
pub(super) enum Amplitudes<'a> {
    /// `√m`, from the window's prefix sums (non-coherent: Rician).
    Power,
    /// The real part of each sample of the window with the reply's
    /// carrier (offset and phase) taken out: a pulse's amplitude plus
    /// real Gaussian noise of power `N/2` (coherent detection).
    Coherent(&'a [f32]),
}

/// Why [`sequence_slice`] gave no slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rejected {
    /// The window is too short, or the rate is not handled.
    Window,
    /// The samples do not look like a reply at this timing (no pulses, or
    /// a fit no better than noise, or far worse than the noise explains):
    /// the timings next to it are not tried either.
    NotReply,
    /// A downlink format that cannot be validated.
    Format,
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::history::power;
    use super::super::slicer::slice;
    use super::super::testkit::{Modulator, SIGMA, amp_db, random_df17};
    use super::*;
    use std::vec::Vec;

    /// Prefix sums of the power of `cu8` bytes, as the history keeps them.
    fn prefix(bytes: &[u8]) -> Vec<u32> {
        let mut c = std::vec![0u32];
        for iq in bytes.chunks_exact(2) {
            let last = *c.last().unwrap_or(&0);
            c.push(last.wrapping_add(power(iq[0], iq[1])));
        }
        c
    }

    fn bit_errors(a: &[u8], b: &[u8]) -> u32 {
        a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
    }

    /// Noiseless box-shaped preambles: the fit finds the start to the tick
    /// at every sub-sample phase, at 2.0, 2.4 and 3 MS/s.
    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_fit_phase_exact() {
        fn check<const T: usize>() {
            let rate = 12_000_000 / T as u32;
            for tick in 0..SPAN * T {
                let mut m = Modulator::new(rate, 0.0, 3, 400);
                let pulses: Vec<(f64, f64)> = PREAMBLE_PULSES
                    .iter()
                    .map(|&o| (o as f64 / 12.0, (o + HALF) as f64 / 12.0))
                    .collect();
                m.add_pulses(&pulses, tick as f64 / T as f64, 60.0);
                let c = prefix(&m.bytes());
                assert_eq!(fit_phase::<T>(&c, 1), Some(tick), "T {T}");
            }
        }
        check::<4>();
        check::<5>();
        check::<6>();
    }

    /// Ticks per sample at 2.0 MS/s.
    const T: usize = 6;

    /// A DF17 at 20 dB, 2.0 MS/s, starting half a sample off (tick
    /// `10·T + 3`): the frame, the prefix sums, the noise power and the
    /// start.
    fn half_sample_reply(seed: u64) -> ([u8; 14], Vec<u32>, u32, usize) {
        let mut m = Modulator::new(2_000_000, SIGMA, seed, 400);
        let frame = random_df17(&mut m.rng);
        m.add(&frame, 10.5, amp_db(20.0));
        let noise = (2.0 * SIGMA * SIGMA * 25.0) as u32;
        (frame, prefix(&m.bytes()), noise, 10 * T + 3)
    }

    /// A DF17 reply at 2.0 MS/s sampled half a sample off, 20 dB: the
    /// energy slicer cannot read its runs of equal bits, the sequence
    /// estimator reads every bit. Six draws.
    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_half_sample_reply_read_whole() {
        for seed in 1..=6 {
            let (frame, c, noise, p) = half_sample_reply(seed);
            let s = sequence_slice::<T>(&c, Amplitudes::Power, p, noise, false).expect("a reply");
            assert_eq!(s.bytes, frame, "seed {seed}");
            assert_eq!(s.n, LONG);
            // The energy slicer at the same timing: wrong bits, or no DF.
            if let Some(plain) = slice::<T>(&c, p + DATA_START, 0, false) {
                assert!(bit_errors(&plain.bytes, &frame) > 3, "seed {seed}");
            }
        }
    }

    /// The early fit ranks timings: on a reply half a sample off at
    /// 2.0 MS/s the true start fits its first bits better than a tick
    /// either side, and well inside the gate.
    #[test]
    fn test_fit_ranks_the_true_timing() {
        for seed in 1..=4 {
            let (_, c, noise, p) = half_sample_reply(seed);
            let fit =
                |q| sequence_fit::<T>(&c, Amplitudes::Power, q, noise, false).expect("a reply");
            let best = fit(p);
            assert!(best < 0.5, "seed {seed}: {best}");
            assert!(best < fit(p - 1) && best < fit(p + 1), "seed {seed}");
        }
    }

    /// Noise alone is not taken for a reply.
    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_noise_rejected() {
        for seed in 1..=20 {
            let mut m = Modulator::new(2_000_000, SIGMA, seed, 400);
            let c = prefix(&m.bytes());
            let noise = (2.0 * SIGMA * SIGMA * 25.0) as u32;
            for p in 0..SPAN * 6 {
                assert!(sequence_slice::<6>(&c, Amplitudes::Power, p, noise, true).is_err());
            }
        }
    }
}
