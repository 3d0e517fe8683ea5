//! Signal levels for gain control: what the ADC sees, measured on a
//! decimated subset of the raw `cu8` samples, beside the demodulator.
//!
//! # Scale
//!
//! Levels are on the 0–255 magnitude scale readsb's gain rules use:
//! `m = 255 · sqrt(i² + q²)` with `i = (I − 127.5)/128` and likewise `q`,
//! clamped to 255; a component at full scale reads 253–255. Computed in
//! integers: `m = isqrt(255² · ((2I − 255)² + (2Q − 255)²) / 256²)`.
//!
//! # What is counted (per [`LevelState`], until [`LevelState::clear`])
//!
//! Every [`LevelMeter::decimation`]-th sample (the first of each group),
//! a *measured* sample:
//!
//! - samples with I or Q at 0 or 255 (clipped);
//! - loud samples (`m ≥` [`LevelMeter::loud`]), and loud *bursts*: runs of
//!   loud samples with gaps below [`LevelMeter::burst_gap`] samples (a
//!   reply spans 64–120 µs; its pulses are loud on about half of them),
//!   compared as powers (no square root);
//!
//! and of every [`LevelMeter::hist_every`]-th measured sample, a
//! histogram of `m`, from which [`LevelStats::noise_floor`] reads the noise
//! floor as a percentile (replies are rare enough at any traffic level that
//! a low percentile is the noise).
//!
//! # Cost
//!
//! [`LevelMeter::RTL_SDR`] (1 sample in 32 measured, 1 in 128 into the
//! histogram): 1.3 instructions per input sample (`scripts/ips level`,
//! Gaussian receiver noise at 2.4 MS/s), against 36.7 for the demodulator
//! on recorded 2.4 MS/s captures and 13.1 on noise alone.

/// How to measure (configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LevelMeter {
    /// Measure one sample in this many, ≥ 1.
    pub decimation: u32,
    /// Put one measured sample in this many into the histogram, ≥ 1.
    pub hist_every: u32,
    /// A sample at or above this magnitude (0–255 scale) is loud.
    pub loud: u8,
    /// Loud samples closer than this many input samples belong to one
    /// burst.
    pub burst_gap: u32,
}

impl LevelMeter {
    /// For an RTL-SDR at 2.4 MS/s: one sample in 32 measured (every
    /// 13.3 µs: a clipped 120 µs reply shows about 4 loud samples, a 64 µs
    /// one 2), one in 128 into the histogram (18 750 a second), loud at
    /// 243 (as readsb), bursts separated by 120 µs of quiet (a long
    /// reply's length: its loud samples stay one burst).
    pub const RTL_SDR: LevelMeter = LevelMeter {
        decimation: 32,
        hist_every: 4,
        loud: 243,
        burst_gap: 288,
    };

    /// A loud sample at stream position `at`: a new burst after a gap.
    #[cold]
    fn loud_at(&self, state: &mut LevelState, at: u64) {
        if state
            .last_loud
            .is_none_or(|l| at - l >= u64::from(self.burst_gap))
        {
            state.bursts += 1;
        }
        state.last_loud = Some(at);
    }

    /// `(2I − 255)² + (2Q − 255)²`: the power of one sample in half-code
    /// units, ≤ 130 050.
    #[inline]
    fn power(i: u8, q: u8) -> u32 {
        let di = 2 * i32::from(i) - 255;
        let dq = 2 * i32::from(q) - 255;
        (di * di + dq * dq) as u32
    }

    /// Magnitude of one `cu8` sample on the 0–255 scale.
    ///
    /// ```
    /// use airwaves_core::modes::level::LevelMeter;
    /// assert_eq!(LevelMeter::magnitude(127, 128), 1);
    /// assert_eq!(LevelMeter::magnitude(255, 128), 254);
    /// assert_eq!(LevelMeter::magnitude(0, 0), 255);
    /// ```
    #[inline]
    pub fn magnitude(i: u8, q: u8) -> u8 {
        let p = Self::power(i, q);
        // 255² p / 256² < p: fits; the product needs 34 bits.
        let m = ((u64::from(p) * 65025) >> 16) as u32;
        m.isqrt().min(255) as u8
    }

    /// Measure the whole samples of `iq` (interleaved I, Q bytes) into
    /// `state`. The decimation phase carries across calls.
    pub fn block(&self, state: &mut LevelState, iq: &[u8]) {
        let d = self.decimation.max(1) as usize;
        let every = self.hist_every.max(1);
        // m ≥ loud ⟺ ⌊p · 255²/256²⌋ ≥ loud² ⟺ p ≥ ⌈loud² · 256²/255²⌉.
        let loud2 = u64::from(self.loud) * u64::from(self.loud);
        let loud_p = ((loud2 << 16).div_ceil(65025)) as u32;
        let pairs = iq.len() / 2;
        // Two passes, each over its own decimated samples, so the square
        // root stays out of the loud/clip loop. Phases are the offsets of
        // the next sample of each, carried across calls.
        let step_h = d * every as usize;
        let first_h = state.hist_phase as usize;
        let mut k = first_h;
        while k < pairs {
            state.hist[usize::from(Self::magnitude(iq[2 * k], iq[2 * k + 1]))] += 1;
            k += step_h;
        }
        state.hist_phase = (k - pairs) as u32;
        let (mut measured, mut clipped, mut loud) = (0u32, 0u32, 0u32);
        let mut k = state.phase as usize;
        while k < pairs {
            let (i, q) = (iq[2 * k], iq[2 * k + 1]);
            measured += 1;
            // 0 and 255 are the values that wrap to ≥ 254 after − 1.
            clipped += u32::from((i.wrapping_sub(1) >= 254) | (q.wrapping_sub(1) >= 254));
            if Self::power(i, q) >= loud_p {
                loud += 1;
                self.loud_at(state, state.position + k as u64);
            }
            k += d;
        }
        state.phase = (k - pairs) as u32;
        state.measured += measured;
        state.clipped += clipped;
        state.loud += loud;
        state.position += pairs as u64;
    }
}

/// What was measured (state).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelState {
    hist: [u32; 256],
    measured: u32,
    /// Input samples to skip before the next histogram sample.
    hist_phase: u32,
    clipped: u32,
    loud: u32,
    bursts: u32,
    /// Input samples to skip before the next measured one.
    phase: u32,
    /// Input samples seen (the stream position of the next block).
    position: u64,
    /// Stream position of the last loud sample.
    last_loud: Option<u64>,
}

impl Default for LevelState {
    fn default() -> Self {
        Self::new()
    }
}

impl LevelState {
    /// Nothing measured.
    pub const fn new() -> Self {
        Self {
            hist: [0; 256],
            measured: 0,
            hist_phase: 0,
            clipped: 0,
            loud: 0,
            bursts: 0,
            phase: 0,
            position: 0,
            last_loud: None,
        }
    }

    /// Forget the counts (keeps the stream position and decimation phase,
    /// so a burst across the boundary is counted once).
    pub fn clear(&mut self) {
        self.hist = [0; 256];
        self.measured = 0;
        self.clipped = 0;
        self.loud = 0;
        self.bursts = 0;
    }

    /// The counts so far.
    pub fn stats(&self) -> LevelStats {
        LevelStats {
            hist: self.hist,
            measured: self.measured,
            clipped: self.clipped,
            loud: self.loud,
            bursts: self.bursts,
        }
    }
}

/// Counts over a stretch of signal (a copy of the state's counts; counts
/// add with [`LevelStats::add`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelStats {
    /// Histogram samples per magnitude (0–255 scale).
    pub hist: [u32; 256],
    /// Measured samples (checked for clipping and loudness).
    pub measured: u32,
    /// Measured samples with I or Q at 0 or 255.
    pub clipped: u32,
    /// Measured samples at or above the loud level.
    pub loud: u32,
    /// Loud bursts begun.
    pub bursts: u32,
}

impl Default for LevelStats {
    fn default() -> Self {
        Self {
            hist: [0; 256],
            measured: 0,
            clipped: 0,
            loud: 0,
            bursts: 0,
        }
    }
}

impl LevelStats {
    /// Samples in the histogram.
    pub fn samples(&self) -> u64 {
        self.hist.iter().map(|&n| u64::from(n)).sum()
    }

    /// Measured samples at or above magnitude `m`, estimated from the
    /// histogram (its counts scaled to all measured samples).
    ///
    /// ```
    /// use airwaves_core::modes::level::LevelStats;
    /// let mut s = LevelStats::default();
    /// (s.hist[10], s.hist[200], s.measured) = (90, 10, 800);
    /// assert_eq!(s.above(100), 80.0);
    /// assert_eq!(s.above(201), 0.0);
    /// ```
    pub fn above(&self, m: u8) -> f64 {
        let n = self.samples();
        if n == 0 {
            return 0.0;
        }
        let k: u64 = self.hist[usize::from(m)..]
            .iter()
            .map(|&c| u64::from(c))
            .sum();
        k as f64 * f64::from(self.measured) / n as f64
    }

    /// The magnitude below which `percent` % of the measured samples lie
    /// (0–255 scale; 0 when nothing was measured). `percent` is clamped to
    /// 0..=100.
    ///
    /// ```
    /// use airwaves_core::modes::level::LevelStats;
    /// let mut s = LevelStats::default();
    /// s.hist[10] = 60;
    /// s.hist[40] = 40;
    /// assert_eq!(s.noise_floor(50), 10);
    /// assert_eq!(s.noise_floor(60), 10);
    /// assert_eq!(s.noise_floor(61), 40);
    /// ```
    pub fn noise_floor(&self, percent: u8) -> u8 {
        let n = self.samples();
        let want = (n * u64::from(percent.min(100))).div_ceil(100).max(1);
        let mut seen = 0u64;
        for (m, &c) in self.hist.iter().enumerate() {
            seen += u64::from(c);
            if seen >= want {
                return m as u8;
            }
        }
        0
    }

    /// Add `other`'s counts.
    pub fn add(&mut self, other: &LevelStats) {
        for (a, b) in self.hist.iter_mut().zip(&other.hist) {
            *a = a.saturating_add(*b);
        }
        self.measured = self.measured.saturating_add(other.measured);
        self.clipped = self.clipped.saturating_add(other.clipped);
        self.loud = self.loud.saturating_add(other.loud);
        self.bursts = self.bursts.saturating_add(other.bursts);
    }
}

#[cfg(test)]
mod test {
    use super::*;

    /// Magnitudes against the f64 definition over the whole byte square.
    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_magnitude_against_f64() {
        for i in 0..=255u8 {
            for q in (0..=255u8).step_by(5) {
                let x = (f64::from(i) - 127.5) / 128.0;
                let y = (f64::from(q) - 127.5) / 128.0;
                let want = (255.0 * x.hypot(y)).min(255.0);
                let got = f64::from(LevelMeter::magnitude(i, q));
                assert!(
                    got <= want + 1e-9 && got > want - 1.0,
                    "{i} {q}: {got} {want}"
                );
            }
        }
    }

    /// Decimation, clipping, loud samples and bursts, and the split of a
    /// stream into blocks not changing any count.
    #[test]
    fn test_counts_and_split() {
        let meter = LevelMeter {
            decimation: 2,
            hist_every: 1,
            loud: 200,
            burst_gap: 10,
        };
        // 100 quiet samples (128, 128), a loud run at 20..26, a clipped
        // loud sample at 30, another run at 60..64 (a new burst).
        let mut iq = [128u8; 200];
        for k in 20..26 {
            iq[2 * k] = 250;
        }
        iq[60] = 255;
        for k in 60..64 {
            iq[2 * k + 1] = 5;
        }
        let mut whole = LevelState::new();
        meter.block(&mut whole, &iq);
        let s = whole.stats();
        assert_eq!((s.samples(), s.measured), (50, 50));
        // Even samples 20, 22, 24 loud, and 30 (clipped); 60, 62.
        assert_eq!((s.loud, s.clipped, s.bursts), (6, 1, 2));
        assert_eq!(s.noise_floor(50), 1);
        let mut split = LevelState::new();
        for part in iq.chunks(14) {
            meter.block(&mut split, part);
        }
        assert_eq!(split.stats(), s);
        split.clear();
        assert_eq!(split.stats().samples(), 0);
        // One measured sample in 5 into the histogram, across calls too.
        let sparse = LevelMeter {
            hist_every: 5,
            ..meter
        };
        let mut st = LevelState::new();
        for part in iq.chunks(6) {
            sparse.block(&mut st, part);
        }
        let s5 = st.stats();
        assert_eq!((s5.samples(), s5.measured, s5.loud), (10, 50, 6));
    }

    /// The loud test on powers agrees with the magnitude's at every
    /// threshold.
    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_loud_power_threshold() {
        for loud in [1u8, 100, 200, 243, 254, 255] {
            let meter = LevelMeter {
                decimation: 1,
                hist_every: 1,
                loud,
                burst_gap: 1,
            };
            for i in 0..=255u8 {
                for q in (0..=255u8).step_by(3) {
                    let mut st = LevelState::new();
                    meter.block(&mut st, &[i, q]);
                    let want = LevelMeter::magnitude(i, q) >= loud;
                    assert_eq!(st.stats().loud == 1, want, "{loud}: {i} {q}");
                }
            }
        }
    }
}
