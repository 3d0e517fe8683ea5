//! Coherent second chance: a reply that nothing else decoded is read
//! again on its samples projected onto its own carrier.
//!
//! # Why
//!
//! A reply is one carrier: its pulses share a phase that advances by the
//! carrier offset `ω` (radians per sample) from one sample to the next.
//! Square-law detection (the slicer) and the amplitude search (module
//! `sequence`) throw that phase away, and with it half of what tells a
//! pulse from noise: the magnitude of a sample holding only noise is
//! Rayleigh (mean `0.89√N`), so an empty half-bit reads well above zero
//! and a weak pulse barely above it. Once `ω` and the carrier phase `φ`
//! are known, the real part of `y_i·e^{−j(ω(i − lo) + φ)}` is the pulse
//! amplitude plus *real* Gaussian noise of power `N/2`, zero-mean where
//! there is no pulse: coherent detection. For binary pulse-position
//! modulation that is the difference between `P_b = ½·e^{−E/2N}` and
//! `P_b = Q(√(E/N))` (`E` the energy of a pulse): at a pulse-to-noise
//! ratio of 9 dB at 2.4 MS/s, about 1 % of the bits wrong against 5 %.
//!
//! # Estimation
//!
//! From tentative bits (the plain slice at the candidate's timing, right
//! for most bits even when the frame is not), the pulse cover `s_i` of
//! each sample (the box model of module `cancel`), then
//! - `ω` from the lag products `P_L = Σ s_i s_{i−L} y_i y*_{i−L}` at
//!   `L = 1, 8, 64`, each lag refining the previous estimate
//!   (`wrap(arg P_L − Lω)/L`), as in module `cancel`;
//! - `φ = arg Σ s_i y_i e^{−jω(i − lo)}`.
//!
//! A few wrong tentative bits move a few weights; the estimates use every
//! pulse of the reply (≈ 140 samples at 2.4 MS/s), so they hold.
//!
//! # Reading
//!
//! The projected amplitudes go to the amplitude sequence search
//! ([`sequence_slice`](super::sequence::sequence_slice) with
//! [`Amplitudes::Coherent`](super::sequence::Amplitudes::Coherent)), at
//! the timing within two ticks of the candidate's whose four preamble
//! pulses the projected amplitudes fit best ([`best_timing`]): timing
//! matters more here than to the slicer (a tick off loses about half of
//! the replies recovered at 9 dB).
//!
//! # Budget
//!
//! An attempt costs about 70,000 instructions (x86-64; callgrind on the
//! 1,500 replies/s scene of `modes_vs_dump1090`): about 37,000 for the
//! estimation and projection over ≈ 300 samples, 30,000 for the search,
//! the rest for repair. Attempts are made only for candidates with a
//! plain slice (a supported DF, pulses in the first bits): on the scenes
//! of `modes_vs_dump1090` those hold 34 of the 36 frames it recovers at
//! 250 replies/s and 126 of 130 at 1,500, in 29 % and 49 % of the
//! attempts. Nine in ten attempts still find nothing (most candidates
//! that reach it on a dense channel are pieces of other replies), so
//! they are rationed: a token
//! bucket refilled by the samples scanned allows [`Budget::per_second`]
//! attempts per second of signal on average, up to a second's worth in a
//! burst. On a quiet channel, where weak replies from far aircraft are
//! what is left to find, the budget is four times larger (module
//! `quiet`): at 250 replies/s the busy channel's budget was used up.
//! The bucket counts
//! samples of the stream, so the output does not depend on how the
//! stream is split into blocks.

use super::cancel::{carrier_offset, pulse_cover, y_of};
use super::history::DemodState;
use super::sequence::{MAX_SAMPLES, best_preamble};
use super::{DATA_START, HALF, MIN_T};

/// The rationing of coherent attempts: on average `per_second` attempts
/// per second of signal, at most a second's worth at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Budget {
    /// Attempts per second of signal; 0 disables the second chance.
    pub(super) per_second: u16,
}

impl Budget {
    /// Samples of signal that earn one attempt at `rate_hz`.
    const fn samples_per_attempt(&self, rate_hz: u32) -> u64 {
        if self.per_second == 0 {
            u64::MAX
        } else {
            rate_hz as u64 / self.per_second as u64
        }
    }

    /// Take one attempt at absolute sample `at` if the bucket holds one:
    /// the bucket gains a token per
    /// [`samples_per_attempt`](Self::samples_per_attempt) since its last
    /// update, up to `per_second` tokens (kept in samples, in `st`).
    pub(super) fn take(&self, st: &mut DemodState, at: u64, rate_hz: u32) -> bool {
        let cost = self.samples_per_attempt(rate_hz);
        if cost == u64::MAX {
            return false;
        }
        let cap = cost.saturating_mul(u64::from(self.per_second));
        let earned = at.saturating_sub(st.coherent_at);
        st.coherent_at = st.coherent_at.max(at);
        st.coherent_credit = st.coherent_credit.saturating_add(earned).min(cap);
        if st.coherent_credit >= cost {
            st.coherent_credit -= cost;
            true
        } else {
            false
        }
    }
}

/// Samples of the longest span (reply, a sample of phase, both ends).
const SPAN_SAMPLES: usize = MAX_SAMPLES + 2;

/// The coherent amplitudes of history samples `j .. j + out.len()` for
/// the reply whose preamble starts at history tick `r0` with tentative
/// bits `bytes` (see the module doc). `None` if the reply is not wholly
/// in the history or `T` is not 4 … 6.
pub(super) fn project<const T: usize>(
    st: &DemodState,
    j: usize,
    r0: usize,
    bytes: &[u8],
    out: &mut [f32],
) -> Option<()> {
    if !(MIN_T..=HALF).contains(&T) {
        return None;
    }
    let bits = bytes.len() * 8;
    let lo = r0 / T;
    let hi = (r0 + DATA_START + bits * 2 * HALF).div_ceil(T);
    let end = j + out.len();
    if lo < j || hi > end || end >= st.len || end - j > SPAN_SAMPLES {
        return None;
    }
    // Pulse cover of the span's samples.
    let mut s = [0.0f32; SPAN_SAMPLES];
    pulse_cover::<T>(&mut s, lo, r0, bytes);
    // The window's samples as complex amplitudes, once.
    let iq = st.iq.get(2 * j..2 * end)?;
    let mut y = [(0.0f32, 0.0f32); SPAN_SAMPLES];
    for (y, x) in y.iter_mut().zip(iq.chunks_exact(2)) {
        *y = y_of(x[0], x[1]);
    }
    let (off, n) = (lo - j, hi - lo);
    let omega = carrier_offset(&s[..n], &y[off..off + n]);
    // z_i = y_i e^{−jω(i − lo)} over the window: real parts into `out`,
    // imaginary parts into `y`; Σ s_i z_i over the span.
    let (rs, rc) = (libm::sinf(omega), libm::cosf(omega));
    let t = -omega * off as f32;
    let (mut ur, mut ui) = (libm::cosf(t), -libm::sinf(t));
    for (o, y) in out.iter_mut().zip(y.iter_mut()) {
        let (yr, yi) = *y;
        (*o, y.1) = (yr * ur - yi * ui, yr * ui + yi * ur);
        (ur, ui) = (ur * rc + ui * rs, ui * rc - ur * rs);
    }
    let (mut br, mut bi) = (0.0f32, 0.0f32);
    for ((&w, &a), y) in s[..n].iter().zip(&out[off..]).zip(&y[off..]) {
        br += w * a;
        bi += w * y.1;
    }
    let mag = libm::sqrtf(br * br + bi * bi);
    if mag == 0.0 {
        return None;
    }
    let (c, d) = (br / mag, bi / mag);
    // Re(z e^{−jφ}) = Re(z)·cos φ + Im(z)·sin φ.
    for (o, y) in out.iter_mut().zip(&y) {
        *o = *o * c + y.1 * d;
    }
    Some(())
}

/// The preamble start among ticks `p − 2 ..= p + 2` (window ticks,
/// below `SPAN·T`) whose four box-shaped pulses best fit the coherent
/// amplitudes `amps` of the window's samples: the largest
/// `(Σ w·a)² / Σ w²` with `Σ w·a > 0` (`w` the pulses' overlap with
/// each sample), as [`fit_phase`](super::sequence::fit_phase) does on
/// magnitudes.
pub(super) fn best_timing<const T: usize>(amps: &[f32], p: usize) -> Option<usize> {
    best_preamble::<T>(amps, p.saturating_sub(2)..p + 3).map(|b| b.1)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::testkit::{Filter, Modulator, df17_train, random_df17, run_blocks};
    use super::super::{DemodState, Demodulator};
    use super::*;
    use std::vec::Vec;

    /// A noiseless reply at 2.4 MS/s with a random carrier offset (up to
    /// ±150 kHz) and phase: projected with its own bits, every sample
    /// reads the pulse amplitude times the share of the sample the
    /// pulses cover (the box model), to within the `cu8` quantisation.
    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_project_reads_pulse_amplitudes() {
        const T: usize = 5;
        for seed in 1..=8 {
            let mut m = Modulator::new(2_400_000, 0.0, seed, 1200);
            let frame = random_df17(&mut m.rng);
            let amp = 60.0; // LSB per component, a full sample of pulse
            m.add(&frame, 300.4, amp);
            let bytes = m.bytes();
            let d = Demodulator::new(2_400_000).unwrap();
            let mut st = DemodState::new();
            let mut filter = Filter::new(Filter::DEFAULT_TTL);
            d.process(&mut st, &mut filter, &bytes, |_| {});
            assert_eq!(st.base, 0);
            // The preamble starts at sample 300.4: tick 1502.
            let (j, r0) = (299, 1502);
            let mut out = [0.0f32; 300];
            project::<T>(&st, j, r0, &frame, &mut out).expect("in the history");
            // Expected: 5·amp × the pulse cover of each sample.
            let mut cover = [0.0f64; 300];
            for (a, b) in Modulator::pulses(&frame) {
                let (a, b) = (300.4 + a * 2.4, 300.4 + b * 2.4);
                for (k, c) in cover.iter_mut().enumerate() {
                    let i = (j + k) as f64;
                    *c += (b.min(i + 1.0) - a.max(i)).max(0.0);
                }
            }
            for (k, (&o, &c)) in out.iter().zip(&cover).enumerate() {
                let want = 5.0 * amp * c;
                assert!(
                    (f64::from(o) - want).abs() < 8.0,
                    "seed {seed} sample {k}: {o} against {want}"
                );
            }
        }
    }

    /// The bucket: one attempt per `rate / per_second` samples, at most
    /// `per_second` saved up, none when the budget is 0.
    #[test]
    fn test_budget_rations_attempts() {
        let rate = 2_400_000;
        let b = Budget { per_second: 10 };
        let mut st = DemodState::new();
        assert!(!b.take(&mut st, 1000, rate), "nothing earned yet");
        assert!(b.take(&mut st, 240_000, rate));
        assert!(!b.take(&mut st, 240_001, rate), "spent");
        // Ten seconds later: ten attempts saved up, not a hundred.
        let at = 240_000 + 10 * rate as u64;
        let taken = (0..50).filter(|_| b.take(&mut st, at, rate)).count();
        assert_eq!(taken, 10);
        // A position behind the last one (a search under a cancelled
        // reply) earns nothing.
        assert!(!b.take(&mut st, 100, rate));
        let off = Budget { per_second: 0 };
        assert!(!off.take(&mut DemodState::new(), u64::MAX / 2, rate));
    }

    /// Isolated DF17 replies at a pulse-to-noise ratio of 9 dB, each with
    /// its own carrier offset and phase: at 2.4 MS/s the coherent second
    /// chance recovers at least a third more of them than the
    /// demodulator finds without it (30 → 49 of 150 when it came); at
    /// 2.0 MS/s, where the plain slice's bits (the carrier fit's
    /// tentative bits) are often wrong for replies sampled half a sample
    /// off, it still adds some. Every frame found was transmitted.
    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_weak_replies_recovered() {
        for (rate, snr, gain) in [(2_400_000, 9.0, 4), (2_000_000, 9.0, 3)] {
            let spacing = f64::from(rate) / 2000.0; // 500 µs apart
            let (bytes, sent) =
                df17_train(rate, (150, spacing), snr, 5, (spacing * 160.0) as usize);
            let found = |per_second: u16| {
                let d = Demodulator::new(rate).unwrap().with_coherent(per_second);
                let (out, stats) = run_blocks(&d, &bytes, 1 << 14);
                let good: Vec<[u8; 14]> = out.iter().map(|f| f.data).collect();
                assert!(
                    good.iter().all(|f| sent.contains(f)),
                    "a false frame at {rate}"
                );
                (good.len(), stats)
            };
            let (without, s0) = found(0);
            let (with, s1) = found(u16::MAX);
            std::eprintln!(
                "{rate} S/s, {snr} dB: {without} frames without, {with} with ({} tried)",
                s1.coherent_tried
            );
            assert_eq!(s0.coherent_tried, 0);
            assert!(s1.coherent > 0);
            assert!(
                3 * with >= gain * without && with > without,
                "{rate}: {without} → {with}"
            );
        }
    }
}
