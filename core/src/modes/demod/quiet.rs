//! Load-aware sensitivity: on a quiet channel, listen harder.
//!
//! The trigger (3 × the noise floor) and the fine preamble check (each
//! pulse above 2.5 × the noise floor) were set for replies that
//! square-law slicing can read. The coherent second chance reads weaker
//! ones, but only those that reach it. Lower thresholds let them
//! through: the trigger at 2 × (a first pulse that the strict trigger
//! would miss must, with the third, average above it), and a preamble
//! whose pulses average above 5 × the floor (where the second chances
//! begin to read a reply) with one of them faded by the noise down to
//! 1.25 ×. Their CPU cost grows with the noise and the reply rate. On
//! complex Gaussian noise of mean power μ the energy of the two-sample
//! trigger window exceeds 4 μ with probability 5·e⁻⁴ ≈ 9 %, against
//! 7·e⁻⁶ ≈ 1.7 % for 6 μ, and
//! each such position goes through the coarse and fine preamble checks;
//! every weak reply's samples pass it too. On a quiet channel that CPU
//! is spare; on a busy one it is not. Measured on `modes_vs_dump1090`
//! scenes (4 s, 2.4 MS/s), the quiet thresholds cost 6.5 instructions per
//! sample at 100 replies/s (23.6 → 30.1) and 6.3 at 500 (32.9 → 39.2); on
//! receiver noise 4.8 (with today's steady noise floor, 4.5: 13.1 → 17.6,
//! and the sweep's 27.3 and 36.6 in all; 28.3 and 40.1 with the second
//! chances below). Admitting every preamble whose pulses pass
//! 1.25 × (without the condition on their mean) and every position over
//! the lower trigger (without the pair test) cost 48 at 100 replies/s
//! and gave 7 false frames where there are none on the 250 replies/s
//! scene: plain slicing and repair of candidates that weak mostly read
//! noise.
//!
//! What the lower thresholds admit must also reach the reading that can
//! decode it. On the 250 replies/s scene of `modes_vs_dump1090` (10 s,
//! receiver cut-off 1.0), 148 clean 8–12 dB replies were missed; 49 of
//! them had passed every preamble check, 38 of those with their pulses'
//! mean (at their true timing) below 5 × the floor, the level where the
//! second chances began, so they were only sliced; and the coherent
//! reading was spending its whole budget (27 attempts a second against
//! 30). On a quiet channel
//! therefore the faded-pulse preamble needs a pulse mean above 3.5 ×
//! (not 5 ×), the second chances open at a mean of 3 × the floor
//! ([`QUIET_CHANCE_LEVEL`]), and the coherent reading gets
//! [`QUIET_COHERENT_FACTOR`] times its budget. On that scene the three
//! together find 58.5 % of the replies where the quiet thresholds
//! alone found 57.3 %, with one false frame; lowering the two levels
//! without the larger budget found fewer (57.2 %): the budget ran out on
//! the extra candidates.
//!
//! So the demodulator counts the frames it passes on in each window of a
//! quarter second of signal ([`LOAD_WINDOWS_PER_S`]) and, if they come to
//! fewer than [`Demodulator::with_quiet`] frames a second, scans the next
//! window with the lower thresholds. The count and the switch happen in
//! scan order at noise-floor updates, at stream positions only, so the
//! output does not depend on how the stream is split into blocks. The
//! first window is strict.

use super::history::DemodState;
use super::{Demodulator, TICK_HZ};

/// On a quiet channel the second chances (sequence estimation and the
/// coherent reading) are tried for preambles whose pulses average above
/// this many times the noise floor (5 on a busy channel).
pub(super) const QUIET_CHANCE_LEVEL: u64 = 3;

/// On a quiet channel the coherent reading's budget is this many times
/// [`Demodulator::with_coherent`]'s.
pub(super) const QUIET_COHERENT_FACTOR: u16 = 4;

/// Load windows per second of signal: the frames of one window decide the
/// thresholds of the next.
pub(super) const LOAD_WINDOWS_PER_S: u32 = 4;

impl Demodulator {
    /// At a noise-floor update at absolute sample `abs`: if the load
    /// window has ended, the frames decoded in it decide whether the next
    /// one has the quiet-channel thresholds.
    pub(super) fn update_load(&self, st: &mut DemodState, abs: u64) {
        if abs < st.load_until {
            return;
        }
        let window = u64::from(TICK_HZ / u32::from(self.tps) / LOAD_WINDOWS_PER_S);
        let per_s = st.load_frames.saturating_mul(LOAD_WINDOWS_PER_S);
        st.quiet = st.load_until > 0 && per_s < u32::from(self.quiet_per_s);
        st.stats.quiet_windows += u64::from(st.quiet);
        st.load_frames = 0;
        st.load_until = abs + window;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::COHERENT_PER_S;
    use super::super::testkit::{df17_train, run_blocks, run_cuts};
    use super::*;

    /// One second of weak replies (9 dB, 400 a second): the channel is
    /// quiet, the windows after the first are scanned with the lower
    /// thresholds, and they find more of the replies than the strict ones
    /// with no more false frames: at 2.4 MS/s at least 1/12 more (10–14 %
    /// over seeds 7–11), at 2.0 MS/s more (4–14 %). The output is the same
    /// for any split of the stream into blocks.
    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_quiet_channel_finds_weaker_replies() {
        for rate in [2_400_000, 2_000_000] {
            let spacing = f64::from(rate) / 400.0;
            let (bytes, sent) =
                df17_train(rate, (400, spacing), 9.0, 7, (spacing * 401.0) as usize);
            let found = |d: Demodulator| {
                let (out, stats) = run_blocks(&d, &bytes, 1 << 14);
                let bad = out.iter().filter(|f| !sent.contains(&f.data)).count();
                (out, stats, bad)
            };
            let d = Demodulator::new(rate).unwrap();
            let (strict, s0, bad0) = found(d.with_quiet(0));
            let (quiet, s1, bad1) = found(d);
            std::eprintln!(
                "{rate} S/s: {} frames strict ({bad0} false), {} quiet ({bad1} false)",
                strict.len(),
                quiet.len(),
            );
            assert_eq!(s0.quiet_windows, 0);
            assert_eq!(s1.quiet_windows, 4, "windows from 0.25, 0.5, 0.75 and 1 s");
            let gain = if rate == 2_400_000 { 13 } else { 12 };
            assert!(
                12 * quiet.len() >= gain * strict.len() && quiet.len() > strict.len(),
                "{rate}: {} → {}",
                strict.len(),
                quiet.len()
            );
            assert!(bad1 <= bad0, "{rate}: false frames {bad0} → {bad1}");
            let n = bytes.len();
            let cuts = std::vec![1, 4097, n / 3 + 1, n / 2, 2 * n / 3 - 7];
            assert_eq!(run_cuts(&d, &bytes, cuts), quiet, "split at {rate}");
        }
    }

    /// Weak replies (8 dB, 400 a second, seed 5): their preambles'
    /// pulses average about 3–5 × the noise floor. On the quiet channel
    /// they reach the second chances and the coherent reading gets more
    /// than the busy channel's 30 attempts a second: it reads more than
    /// twice as many of them (29 against 9, in 98 attempts against 29)
    /// and the demodulator finds more than twice the strict thresholds'
    /// frames (40 against 17), none false. Before the quiet channel's
    /// second chances and budget it found 19 (coherent 9 in 29 attempts).
    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_quiet_channel_reads_weak_replies_coherently() {
        let rate = 2_400_000;
        let spacing = f64::from(rate) / 400.0;
        let (bytes, sent) = df17_train(rate, (400, spacing), 8.0, 5, (spacing * 401.0) as usize);
        let d = Demodulator::new(rate).unwrap();
        let (strict, s0) = run_blocks(&d.with_quiet(0), &bytes, 1 << 14);
        let (quiet, s1) = run_blocks(&d, &bytes, 1 << 14);
        let bad = quiet.iter().filter(|f| !sent.contains(&f.data)).count();
        std::eprintln!(
            "strict: {} frames, coherent {} of {}; quiet: {} frames ({bad} false), coherent {} of {}",
            strict.len(),
            s0.coherent,
            s0.coherent_tried,
            quiet.len(),
            s1.coherent,
            s1.coherent_tried
        );
        assert!(s0.coherent_tried <= u64::from(COHERENT_PER_S), "{s0:?}");
        assert!(s1.coherent_tried > 2 * u64::from(COHERENT_PER_S), "{s1:?}");
        assert!(s1.coherent > 2 * s0.coherent, "{s0:?} {s1:?}");
        assert!(
            quiet.len() > 2 * strict.len(),
            "{} → {}",
            strict.len(),
            quiet.len()
        );
        assert_eq!(bad, 0);
    }

    /// A busy channel (2,000 strong replies a second, most decoded) keeps
    /// the strict thresholds; noise alone is quiet from the second window.
    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_busy_channel_stays_strict() {
        let rate = 2_400_000;
        let d = Demodulator::new(rate).unwrap();
        let spacing = f64::from(rate) / 2000.0;
        let (busy, _) = df17_train(rate, (1400, spacing), 20.0, 3, (spacing * 1401.0) as usize);
        let (out, stats) = run_blocks(&d, &busy, 1 << 14);
        assert!(out.len() > 1000, "{}", out.len());
        assert_eq!(stats.quiet_windows, 0);
        let (noise, _) = df17_train(rate, (0, 0.0), 0.0, 3, rate as usize);
        let (out, stats) = run_blocks(&d, &noise, 1 << 14);
        assert!(out.is_empty());
        assert_eq!(stats.quiet_windows, 3, "windows from 0.25, 0.5 and 0.75 s");
    }
}
