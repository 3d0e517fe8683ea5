//! The sample history: each `cu8` byte pair becomes a power
//! `m = SQ[I] + SQ[Q]`, accumulated into a wrapping prefix sum
//! `C[n] = Σ m[<n]` of [`HISTORY`] entries, kept in [`DemodState`] with the
//! raw byte pairs beside it (for interference cancellation), the scan
//! position, the noise floor and the stage counters.

/// Entries of the prefix-sum history (samples kept).
pub const HISTORY: usize = 2048;

/// Samples kept before the scan position (a safety margin).
pub(super) const BACK: usize = 4;

/// Full-scale power in the units of [`power`]: a complex sample of
/// magnitude 127.4 (a full-scale complex sine), `25 × 127.4²`.
pub(super) const FULL_SCALE: f32 = 25.0 * 127.4 * 127.4;

/// `SQ[b] = (5b − 637)² = 25·(b − 127.4)²` (1 KiB).
static SQ: [u32; 256] = make_sq();

const fn make_sq() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut b = 0;
    while b < 256 {
        let d = 5 * b as i32 - 637;
        t[b] = (d * d) as u32;
        b += 1;
    }
    t
}

/// Power of one `cu8` sample: `m = SQ[I] + SQ[Q]`
/// `= 25·((I − 127.4)² + (Q − 127.4)²)`, exact (≤ 811,538).
#[inline(always)]
pub(super) fn power(i: u8, q: u8) -> u32 {
    SQ[usize::from(i)] + SQ[usize::from(q)]
}

/// Counters of the demodulator's stages, for tuning and monitoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DemodStats {
    /// Samples received.
    pub samples: u64,
    /// Positions that passed the per-sample trigger and the 1.5–3.5 µs gap
    /// test.
    pub triggers: u64,
    /// Of those, positions that passed the pulse-3 test and went to the
    /// coarse check.
    pub gap: u64,
    /// Triggers that passed the coarse preamble check.
    pub coarse: u64,
    /// Coarse hits with at least one phase passing the fine preamble check.
    pub preambles: u64,
    /// Phases sliced (supported DF).
    pub sliced: u64,
    /// Frames recovered by the sequence (MLSE) re-slice of half-bit
    /// energies.
    pub mlse: u64,
    /// Frames recovered by sequence estimation on sample amplitudes.
    pub sequence: u64,
    /// Coherent second chances tried (within the budget).
    pub coherent_tried: u64,
    /// Frames recovered by the coherent second chance (sequence
    /// estimation on the samples projected onto the reply's carrier).
    pub coherent: u64,
    /// Load windows (a quarter second of signal each) scanned with the
    /// quiet-channel thresholds.
    pub quiet_windows: u64,
    /// Decoded replies subtracted from the history (interference
    /// cancellation: other energy was left under them).
    pub cancelled: u64,
    /// Frames decoded after a cancellation: a retried candidate that had
    /// failed under the cancelled reply, or a preamble found inside it.
    pub uncovered: u64,
}

impl DemodStats {
    /// All zero.
    pub const fn new() -> Self {
        DemodStats {
            samples: 0,
            triggers: 0,
            gap: 0,
            coarse: 0,
            preambles: 0,
            sliced: 0,
            mlse: 0,
            sequence: 0,
            coherent_tried: 0,
            coherent: 0,
            quiet_windows: 0,
            cancelled: 0,
            uncovered: 0,
        }
    }

    /// The counts between `earlier` and `self` (saturating at 0).
    ///
    /// ```
    /// use airwaves_core::modes::demod::DemodStats;
    /// let mut a = DemodStats::new();
    /// a.samples = 100;
    /// let mut b = a;
    /// (b.samples, b.coherent) = (350, 2);
    /// let d = b.delta(&a);
    /// assert_eq!((d.samples, d.coherent, d.triggers), (250, 2, 0));
    /// ```
    pub const fn delta(&self, earlier: &DemodStats) -> DemodStats {
        let e = earlier;
        DemodStats {
            samples: self.samples.saturating_sub(e.samples),
            triggers: self.triggers.saturating_sub(e.triggers),
            gap: self.gap.saturating_sub(e.gap),
            coarse: self.coarse.saturating_sub(e.coarse),
            preambles: self.preambles.saturating_sub(e.preambles),
            sliced: self.sliced.saturating_sub(e.sliced),
            mlse: self.mlse.saturating_sub(e.mlse),
            sequence: self.sequence.saturating_sub(e.sequence),
            coherent_tried: self.coherent_tried.saturating_sub(e.coherent_tried),
            coherent: self.coherent.saturating_sub(e.coherent),
            quiet_windows: self.quiet_windows.saturating_sub(e.quiet_windows),
            cancelled: self.cancelled.saturating_sub(e.cancelled),
            uncovered: self.uncovered.saturating_sub(e.uncovered),
        }
    }
}

/// Demodulator state: the power history and its byte pairs, the scan
/// position, the noise floor (≈ 12.2 KiB).
#[derive(Clone)]
pub struct DemodState {
    /// Prefix sums of the power, `c[k] = Σ m[base .. base + k)` (wrapping).
    pub(super) c: [u32; HISTORY],
    /// The `cu8` pair of each sample, `iq[2k], iq[2k + 1]` for sample `base + k`
    /// (`k < len − 1`); cancellation rewrites them. A sample whose power
    /// in `c` differs from `power(iq)` is synthetic (the silence
    /// [`finish`](super::Demodulator::finish) appends) and never rewritten.
    pub(super) iq: [u8; 2 * HISTORY],
    /// Valid entries of `c` (≥ 1).
    pub(super) len: usize,
    /// Next trigger position (index into `c`).
    pub(super) scan: usize,
    /// Absolute sample index of `c[0]`.
    pub(super) base: u64,
    /// Running sum (`c[len − 1]`).
    pub(super) acc: u32,
    /// A pending I byte.
    pub(super) odd: Option<u8>,
    /// Noise floor: mean power per sample, table units (0 = unknown).
    pub(super) noise: u32,
    /// 25th percentile of the power ×16 (0 = unknown).
    pub(super) q16: u32,
    /// The noise floor ×256, averaged over chunks (0 = unknown).
    pub(super) noise256: u64,
    /// Trigger threshold over the trigger window.
    pub(super) threshold: u32,
    /// The strict trigger threshold (equal to `threshold` unless the
    /// quiet-channel thresholds are on).
    pub(super) strict: u32,
    /// Absolute sample index of the next noise-floor update.
    pub(super) next_chunk: u64,
    /// Absolute tick of the last preamble that failed.
    pub(super) last_fail: u64,
    /// Absolute tick of the last preamble given to the sequence estimator.
    pub(super) last_sequence: u64,
    /// Absolute sample index below which a cancellation does not look
    /// for preambles again (where the scan resumed after the last frame).
    pub(super) floor: u64,
    /// The last frame passed to the sink: bytes and timestamp (a reply
    /// that a cancellation left behind is not emitted twice).
    pub(super) last_emit: ([u8; 14], u64),
    /// Absolute sample index up to which the history has had a reply
    /// cancelled (frames starting before it count as uncovered).
    pub(super) cancelled_until: u64,
    /// Coherent attempts' token bucket, in samples of signal earned.
    pub(super) coherent_credit: u64,
    /// Absolute sample index of the bucket's last update.
    pub(super) coherent_at: u64,
    /// The quiet-channel thresholds are in force.
    pub(super) quiet: bool,
    /// Frames passed to the sink in the current load window.
    pub(super) load_frames: u32,
    /// Absolute sample index where the current load window ends.
    pub(super) load_until: u64,
    pub(super) stats: DemodStats,
}

impl Default for DemodState {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for DemodState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DemodState")
            .field("base", &self.base)
            .field("buffered", &self.len.saturating_sub(1))
            .field("noise", &self.noise)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl DemodState {
    /// Fresh state for a new stream (sample 0 = the next byte pair fed).
    ///
    /// ```
    /// use airwaves_core::modes::demod::DemodState;
    /// let s = DemodState::new();
    /// assert_eq!(s.stats().samples, 0);
    /// ```
    pub const fn new() -> Self {
        Self {
            c: [0; HISTORY],
            iq: [0; 2 * HISTORY],
            len: 1,
            scan: 0,
            base: 0,
            acc: 0,
            odd: None,
            noise: 0,
            q16: 0,
            noise256: 0,
            threshold: u32::MAX,
            strict: u32::MAX,
            next_chunk: 0,
            last_fail: u64::MAX,
            last_sequence: u64::MAX,
            floor: 0,
            last_emit: ([0; 14], u64::MAX),
            cancelled_until: 0,
            coherent_credit: 0,
            coherent_at: 0,
            quiet: false,
            load_frames: 0,
            load_until: 0,
            stats: DemodStats::new(),
        }
    }

    /// Stage counters since [`new`](Self::new).
    pub fn stats(&self) -> DemodStats {
        self.stats
    }

    /// Noise floor estimate in dBFS (mean power per sample, from the 25th
    /// percentile; biased high on a busy channel), `None` before the first
    /// estimate (after about 300 samples).
    pub fn noise_dbfs(&self) -> Option<f32> {
        (self.noise > 0).then(|| 10.0 * libm::log10f(self.noise as f32 / FULL_SCALE))
    }

    /// Append one sample of power `m` and byte pair `iq`.
    #[inline]
    pub(super) fn push(&mut self, m: u32, iq: [u8; 2]) {
        debug_assert!(self.len < HISTORY, "no room in the history");
        self.acc = self.acc.wrapping_add(m);
        let k = 2 * (self.len - 1);
        if let (Some(c), Some(x)) = (self.c.get_mut(self.len), self.iq.get_mut(k..k + 2)) {
            *c = self.acc;
            x.copy_from_slice(&iq);
            self.len += 1;
        }
    }

    /// Convert byte pairs into prefix sums (the caller made room).
    #[inline]
    pub(super) fn convert(&mut self, bytes: &[u8]) {
        let start = self.len;
        let n = bytes.len() / 2;
        let (Some(dst), Some(raw)) = (
            self.c.get_mut(start..start + n),
            self.iq.get_mut(2 * (start - 1)..2 * (start - 1 + n)),
        ) else {
            return;
        };
        raw.copy_from_slice(&bytes[..2 * n]);
        self.stats.samples += n as u64;
        let mut acc = self.acc;
        for (d, iq) in dst.iter_mut().zip(bytes.chunks_exact(2)) {
            acc = acc.wrapping_add(power(iq[0], iq[1]));
            *d = acc;
        }
        self.acc = acc;
        self.len += n;
    }

    /// Drop history older than `keep` samples before the scan position
    /// when the buffer is full (`keep` ≥ [`BACK`]).
    pub(super) fn make_room(&mut self, keep: usize) {
        if self.len < HISTORY {
            return;
        }
        let drop = self.scan.saturating_sub(keep.max(BACK)).min(self.len - 1);
        self.c.copy_within(drop..self.len, 0);
        self.iq.copy_within(2 * drop..2 * (self.len - 1), 0);
        self.len -= drop;
        self.scan -= drop;
        self.base += drop as u64;
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_power_table() {
        // 25·((I − 127.4)² + (Q − 127.4)²), exact.
        assert_eq!(power(127, 127), 8); // 25·(0.16 + 0.16)
        assert_eq!(power(128, 127), 13); // 25·(0.36 + 0.16)
        assert_eq!(power(0, 255), 637 * 637 + 638 * 638);
        assert_eq!(SQ[0], 637 * 637);
        assert_eq!(SQ[255], 638 * 638);
        assert!(power(0, 0) <= 811_538);
        // Full scale: a sample of magnitude 127.4 is 0 dBFS.
        assert_eq!(FULL_SCALE, 25.0 * 127.4 * 127.4);
    }
}
