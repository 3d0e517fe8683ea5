//! Mode S demodulator: RTL-SDR `cu8` I/Q bytes in, CRC-checked frames out.
//!
//! # Signal
//!
//! A Mode S reply (ICAO Annex 10 Vol IV §3.1.2.1) is pulse-position
//! modulated at 1 Mbit/s: a preamble of four 0.5 µs pulses starting at 0,
//! 1.0, 3.5 and 4.5 µs, then from 8 µs one bit per µs, a `1` being a pulse
//! in the first half of its bit period and a `0` a pulse in the second half.
//! The first five bits are the downlink format (DF); DF ≥ 16 replies carry
//! 112 bits, the others 56.
//!
//! # Time base
//!
//! Everything inside the demodulator is measured in ticks of 12 MHz (the
//! Beast/dump1090 timestamp clock): a half-bit is exactly 6 ticks, and a
//! sample is `tps = 12 MHz / fs` ticks, an integer for the supported rates
//! (12, 6, 4, 3, 2.4 and 2.0 MS/s; `tps` = 1 … 6). Sample `n` of the stream
//! is taken to stand for the signal over ticks `[n·tps, (n+1)·tps)`.
//!
//! # Pipeline
//!
//! 1. **Power.** Each I/Q byte pair becomes `m = SQ[I] + SQ[Q]`,
//!    `SQ[b] = (5b − 637)² = 25·(b − 127.4)²` (a 1 KiB table; exact,
//!    `m ≤ 811,538`), accumulated into a wrapping `u32` prefix sum
//!    `C[n] = Σ m[<n]` kept in a [`HISTORY`]-entry buffer (8 KiB). The
//!    integral of the power over any tick span `[a, b)` is `G(b) − G(a)` with
//!    `G(x) = tps·C[⌊x/tps⌋] + (x mod tps)·m[⌊x/tps⌋]`: exact for the
//!    piecewise-constant power, two loads per boundary at any rate. This is
//!    the fractional-overlap slicer: every half-bit integrates the samples
//!    it covers, weighted by the overlap. Power (square-law detection) is
//!    the classic detector for non-coherent on–off pulses in Gaussian noise
//!    (on synthetic replies, slicing magnitudes instead gave no fewer bit
//!    errors).
//! 2. **Trigger**, the only other per-sample work: the energy of the `w`
//!    samples that can hold the first preamble pulse (`w` = 2 at 2.0 and
//!    2.4 MS/s) must exceed 3 × the noise floor (×`w`), and the samples
//!    wholly inside the 1.5–3.5 µs gap must average below half the pulse
//!    level. The first test runs on blocks of 8 positions (vectorised); on
//!    receiver noise about 2 % of positions pass both. The noise floor is
//!    the 25th percentile of the power, tracked every 256 samples from 16
//!    of them.
//! 3. **Pulse 3**: the best `w`-sample window of the 3.5 µs pulse must
//!    reach a quarter of pulse 1.
//! 4. **Coarse check** on whole samples: pulse 1 above 2 × and pulses 2–4
//!    above 1.5 × the mean of the quiet windows (1.5–3.5 µs, 5–8 µs).
//! 5. **Fine preamble** at every tick phase over two samples (10 phases at
//!    2.4 MS/s, 12 at 2.0): the four pulse energies must each exceed
//!    1.5 × the long quiet zones and 2.5 × the noise floor, the 0.5 µs gaps
//!    must stay below twice the pulse mean; the score
//!    `Σ pulses − 2·Σ short gaps` peaks at the right timing. Tried in order:
//!    the timing from the amplitude centroids of the four pulses (exact for
//!    any sub-sample phase, where the power score is only piecewise linear),
//!    then the three best-scoring phases.
//! 6. **Slicing**: for each bit the energies `E₁`, `E₀` of its two halves;
//!    bit = `E₁ > E₀`, confidence = `|E₁ − E₀|`. The DF is read after 5 bits
//!    and formats that cannot be validated are dropped at once; after 24
//!    bits a candidate where more than 3 bits lack a pulse (no half above a
//!    quarter of the preamble's pulse energy) is dropped too.
//! 7. **Validation** ([`crc::remainder`]): DF17/18 need remainder 0, DF11 a
//!    remainder below 80 (an interrogator code); a one-bit code whose bit
//!    was sliced with a doubtful margin is taken as code 0 (all squitters
//!    and most replies) with a 1-bit error, and repaired. AP formats (DF0,
//!    4, 5, 16, 20, 21, 24) a remainder (their address) present in the
//!    [`AddressFilter`], which error-free DF11/17/18 frames fill.
//! 8. **Repair**, only if no phase validates, on the first two phases
//!    sliced: DF17/18 any
//!    1-bit error (syndrome table), then up to 3 flips among the 24 least
//!    confident bits ([`crc::repair_within`]), then optionally any 2-bit
//!    error; DF11 one bit at most (assuming interrogator code 0); AP formats
//!    one flip among the 4 least confident bits that gives a known address.
//!    The DF bits are never changed.
//! 9. **Second chance: sequence estimation.** The receiver's response and
//!    the sampling phase spill each pulse into the neighbouring half-bits
//!    (at 2.0 MS/s a sample *is* a half-bit). The frame is re-sliced by a
//!    2-state Viterbi search whose expected half-bit energies for each pair
//!    of neighbouring bits are read off the preamble and refined on the
//!    frame itself; then validated and repaired again. Run on the first
//!    phase sliced, for replies at least ~7 dB above the noise floor.
//! 10. After a valid frame, scanning resumes after its last bit; after a
//!     failure it resumes one sample later, so a reply starting inside a
//!     garbled one still gets its chance (the same preamble is not sliced
//!     twice).
//!
//! # Output
//!
//! Each [`DemodFrame`] has the bytes, the 12 MHz timestamp of the *leading
//! edge of the first preamble pulse* (`sample_index·tps + phase`, sample
//! index counted from the first byte ever fed, sample `n` spanning ticks
//! `[n·tps, (n+1)·tps)`), that sub-sample phase in ticks, the signal level
//! in dBFS (mean power of the pulse-carrying half-bits relative to a
//! full-scale complex sine of magnitude 127.4), the number of repaired bits
//! and the ICAO address.
//!
//! # Streaming
//!
//! Bytes are fed in blocks of any size (odd counts too); a frame that
//! straddles blocks is not lost, and the output does not depend on how the
//! stream is split (property-tested). Processing of a candidate waits until
//! the whole longest frame after it has arrived; [`Demodulator::finish`]
//! flushes the tail at the end of a stream.
//!
//! # Cost
//!
//! x86-64 instructions per input sample (callgrind, release, including the
//! byte-to-power conversion; bench cases `modes/demod/*`): about 26 on the
//! three 2.4 MS/s captures, 13 on receiver noise (σ = 4 LSB), 10.5 on
//! full-scale uniform noise, 70 on the 2.0 MS/s `modes1` file (silence
//! stripped: replies back to back, every pulse a trigger). State:
//! [`DemodState`] ≈ 8.1 KiB plus the filter (`AddressFilter<512>`: 4 KiB).
//!
//! # Example
//!
//! ```
//! use airwaves_core::modes::demod::{AddressFilter, DemodState, Demodulator};
//!
//! let demod = Demodulator::new(2_400_000).unwrap();
//! let mut state = DemodState::new();
//! let mut known = AddressFilter::<512>::new(AddressFilter::<512>::DEFAULT_TTL);
//! let mut n = 0;
//! let silence = [127u8; 4096];
//! demod.process(&mut state, &mut known, &silence, |frame| {
//!     n += 1;
//!     let _ = (frame.bytes(), frame.timestamp, frame.signal_dbfs);
//! });
//! demod.finish(&mut state, &mut known, |_| n += 1);
//! assert_eq!(n, 0);
//! ```

use super::crc;

/// 12 MHz timestamp ticks per second.
pub const TICK_HZ: u32 = 12_000_000;

/// Entries of the prefix-sum history (samples kept).
pub const HISTORY: usize = 2048;

/// Ticks per half-bit (0.5 µs).
const HALF: usize = 6;
/// Ticks from the preamble start to the first data bit (8 µs).
const DATA_START: usize = 96;
/// Longest frame in bits.
const LONG: usize = crc::LONG_BITS;
/// Ticks of the whole longest reply after the preamble start.
const FRAME_TICKS: usize = DATA_START + LONG * 2 * HALF;
/// Noise-floor chunk (samples).
const CHUNK: usize = 256;
/// Candidate phases evaluated per trigger: this many samples' worth.
const SPAN: usize = 2;
/// Samples kept before the scan position (a safety margin).
const BACK: usize = 4;
/// Phases tried per preamble before repair.
const TRIES: usize = 3;
/// Full-scale power in the units of [`power`]: a complex sample of
/// magnitude 127.4 (a full-scale complex sine), `25 × 127.4²`.
const FULL_SCALE: f32 = 25.0 * 127.4 * 127.4;

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
fn power(i: u8, q: u8) -> u32 {
    SQ[usize::from(i)] + SQ[usize::from(q)]
}

/// An invalid [`Demodulator`] configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigError {
    /// The sample rate is not 12 MHz divided by 1 … 6.
    UnsupportedRate {
        /// The rate asked for, in samples per second.
        rate_hz: u32,
    },
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::UnsupportedRate { rate_hz } => write!(
                f,
                "unsupported Mode S sample rate {rate_hz} Hz (need 12 MHz / 1…6)"
            ),
        }
    }
}

impl core::error::Error for ConfigError {}

/// Mode S demodulator configuration (the sample rate and the repair
/// policy). Processing state lives in [`DemodState`], the table of known
/// addresses in an [`AddressFilter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Demodulator {
    tps: u8,
    trig_win: u8,
    look: u16,
    trigger_q4: u16,
    two_bit: bool,
    soft_candidates: u8,
    soft_flips: u8,
    ap_candidates: u8,
    mlse: bool,
}

/// Window of samples `[first, end)` relative to `j` holding the tick span
/// `[a, b)` + `p` for every `p` in `0..tps` (superset).
const fn superset(a: usize, b: usize, tps: usize) -> (u8, u8) {
    ((a / tps) as u8, (b + tps - 1).div_ceil(tps) as u8)
}

/// Window of samples `[first, end)` lying inside `[a, b)` + `p` for every
/// `p` in `0..tps` (subset).
const fn subset(a: usize, b: usize, tps: usize) -> (u8, u8) {
    ((a + tps - 1).div_ceil(tps) as u8, (b / tps) as u8)
}

impl Demodulator {
    /// A demodulator for `rate_hz` samples per second: 2,000,000 or
    /// 2,400,000 for an RTL-SDR, or any of 3, 4, 6, 12 MS/s (12 MHz divided
    /// by 1 … 6). Defaults: 1-bit syndrome repair for DF11/17/18, soft repair
    /// of up to 3 bits among the 24 least confident for DF17/18, 1 flip among
    /// the 4 least confident for AP formats, the MLSE re-slice on,
    /// exhaustive 2-bit repair off, trigger at 3 × the noise floor.
    ///
    /// ```
    /// use airwaves_core::modes::demod::Demodulator;
    /// let d = Demodulator::new(2_400_000).unwrap();
    /// assert_eq!(d.ticks_per_sample(), 5);
    /// assert!(Demodulator::new(2_048_000).is_err());
    /// ```
    pub const fn new(rate_hz: u32) -> Result<Self, ConfigError> {
        if rate_hz == 0 || TICK_HZ % rate_hz != 0 || TICK_HZ / rate_hz > 6 {
            return Err(ConfigError::UnsupportedRate { rate_hz });
        }
        let tps = (TICK_HZ / rate_hz) as usize;
        let w = trigger_window(tps);
        // Highest tick read: phases span SPAN samples, then the whole frame;
        // +1 for the interpolation and +1 for the exclusive end.
        let look = (SPAN * tps + FRAME_TICKS).div_ceil(tps) + 2;
        let look = if look < CHUNK + 1 { CHUNK + 1 } else { look };
        Ok(Self {
            tps: tps as u8,
            trig_win: w as u8,
            look: look as u16,
            // Noise of w samples has mean w·μ; trigger at 3·w·μ.
            trigger_q4: (48 * w) as u16,
            two_bit: false,
            soft_candidates: 24,
            soft_flips: 3,
            ap_candidates: 4,
            mlse: true,
        })
    }

    /// Enable (or disable) exhaustive 2-bit syndrome repair of DF17/18
    /// (links the 24 KiB pair table of [`crc::repair`]). Off by default: it
    /// raises the rate of false frames from noise about 60-fold.
    ///
    /// ```
    /// use airwaves_core::modes::demod::Demodulator;
    /// let d = Demodulator::new(2_000_000).unwrap().with_two_bit_repair(true);
    /// # let _ = d;
    /// ```
    pub const fn with_two_bit_repair(mut self, on: bool) -> Self {
        self.two_bit = on;
        self
    }

    /// Soft-decision repair of DF17/18: up to `max_flips` (≤ 3) flips among
    /// the `candidates` (≤ 24) least confident bits. `max_flips = 0`
    /// disables it.
    ///
    /// ```
    /// use airwaves_core::modes::demod::Demodulator;
    /// let d = Demodulator::new(2_400_000).unwrap().with_soft_repair(6, 2);
    /// # let _ = d;
    /// ```
    pub const fn with_soft_repair(mut self, candidates: u8, max_flips: u8) -> Self {
        self.soft_candidates = if candidates as usize > crc::MAX_CANDIDATES {
            crc::MAX_CANDIDATES as u8
        } else {
            candidates
        };
        self.soft_flips = if max_flips > 3 { 3 } else { max_flips };
        self
    }

    /// Soft repair of AP formats: one flip among the `candidates` (≤ 24)
    /// least confident bits that turns the recovered address into a known
    /// one. 0 disables it.
    ///
    /// ```
    /// use airwaves_core::modes::demod::Demodulator;
    /// let d = Demodulator::new(2_400_000).unwrap().with_ap_repair(0);
    /// # let _ = d;
    /// ```
    pub const fn with_ap_repair(mut self, candidates: u8) -> Self {
        self.ap_candidates = if candidates as usize > crc::MAX_CANDIDATES {
            crc::MAX_CANDIDATES as u8
        } else {
            candidates
        };
        self
    }

    /// Enable (or disable) the sequence-estimation (MLSE) second chance.
    ///
    /// ```
    /// use airwaves_core::modes::demod::Demodulator;
    /// let d = Demodulator::new(2_000_000).unwrap().with_mlse(false);
    /// # let _ = d;
    /// ```
    pub const fn with_mlse(mut self, on: bool) -> Self {
        self.mlse = on;
        self
    }

    /// Trigger threshold, in sixteenths of the noise floor per sample,
    /// summed over the trigger window. Lower finds slightly weaker replies
    /// and costs more CPU. Default: 48 per window sample (3 × the noise
    /// floor).
    ///
    /// ```
    /// use airwaves_core::modes::demod::Demodulator;
    /// let d = Demodulator::new(2_400_000).unwrap().with_trigger(32);
    /// # let _ = d;
    /// ```
    pub const fn with_trigger(mut self, per_sample_q4: u16) -> Self {
        self.trigger_q4 = per_sample_q4.saturating_mul(self.trig_win as u16);
        self
    }

    /// 12 MHz ticks per input sample (5 at 2.4 MS/s, 6 at 2.0 MS/s).
    pub const fn ticks_per_sample(&self) -> u32 {
        self.tps as u32
    }

    /// Feed `bytes` of interleaved `I, Q` unsigned 8-bit samples (zero at
    /// 127.4). Any length is accepted, odd too: a trailing I byte is kept
    /// for the next call. Frames are passed to `sink` in the order of their
    /// timestamps, as soon as the whole longest reply after their preamble
    /// has arrived (≈ 120 µs of look-ahead).
    ///
    /// The addresses of trustworthy frames are added to `filter` (DF11 with
    /// remainder 0 and no repair, DF17 and DF18 with an ICAO address (CF 0)
    /// and at most 1 repaired bit); AP-format frames are accepted only when
    /// their address is in it. The output does not depend on how the
    /// stream is split into calls.
    pub fn process<const N: usize, F: FnMut(&DemodFrame)>(
        &self,
        state: &mut DemodState,
        filter: &mut AddressFilter<N>,
        mut bytes: &[u8],
        mut sink: F,
    ) {
        if let Some(i) = state.odd.take() {
            match bytes.split_first() {
                Some((&q, rest)) => {
                    self.make_room(state);
                    state.stats.samples += 1;
                    state.push(power(i, q));
                    bytes = rest;
                    // Scan now too: a stream fed one byte at a time never
                    // reaches the loop below, and without scanning
                    // `make_room` cannot free the history.
                    self.scan(state, filter, &mut sink);
                }
                None => {
                    state.odd = Some(i);
                    return;
                }
            }
        }
        while bytes.len() >= 2 {
            self.make_room(state);
            let n = (HISTORY - state.len).min(bytes.len() / 2);
            if n == 0 {
                // Unreachable: a scan always leaves at most `look` samples
                // after the scan position, so the buffer can be compacted.
                debug_assert!(false, "no room in the history");
                return;
            }
            let (now, rest) = bytes.split_at(2 * n);
            state.convert(now);
            bytes = rest;
            self.scan(state, filter, &mut sink);
        }
        if let [i] = bytes {
            state.odd = Some(*i);
        }
    }

    /// End of stream: process the last samples as if the stream were
    /// followed by silence, so a frame ending near the end is not lost.
    /// A pending odd byte is dropped. The state then continues as if that
    /// silence had been received; use a fresh [`DemodState`] for a new
    /// stream.
    pub fn finish<const N: usize, F: FnMut(&DemodFrame)>(
        &self,
        state: &mut DemodState,
        filter: &mut AddressFilter<N>,
        mut sink: F,
    ) {
        state.odd = None;
        let mut left = usize::from(self.look) + 1;
        while left > 0 {
            self.make_room(state);
            let n = (HISTORY - state.len).min(left);
            if n == 0 {
                debug_assert!(false, "no room in the history");
                return;
            }
            for _ in 0..n {
                state.push(0);
            }
            left -= n;
            self.scan(state, filter, &mut sink);
        }
    }

    /// Drop history older than the scan position when the buffer is full.
    fn make_room(&self, st: &mut DemodState) {
        if st.len < HISTORY {
            return;
        }
        let drop = st.scan.saturating_sub(BACK).min(st.len - 1);
        st.c.copy_within(drop..st.len, 0);
        st.len -= drop;
        st.scan -= drop;
        st.base += drop as u64;
    }

    /// Scan every trigger position whose look-ahead has arrived.
    fn scan<const N: usize, F: FnMut(&DemodFrame)>(
        &self,
        st: &mut DemodState,
        filter: &mut AddressFilter<N>,
        sink: &mut F,
    ) {
        match self.tps {
            1 => self.scan_t::<1, N, F>(st, filter, sink),
            2 => self.scan_t::<2, N, F>(st, filter, sink),
            3 => self.scan_t::<3, N, F>(st, filter, sink),
            4 => self.scan_t::<4, N, F>(st, filter, sink),
            5 => self.scan_t::<5, N, F>(st, filter, sink),
            _ => self.scan_t::<6, N, F>(st, filter, sink),
        }
    }

    fn scan_t<const T: usize, const N: usize, F: FnMut(&DemodFrame)>(
        &self,
        st: &mut DemodState,
        filter: &mut AddressFilter<N>,
        sink: &mut F,
    ) {
        let look = usize::from(self.look);
        while st.scan + look < st.len {
            let j = st.scan;
            let abs = st.base + j as u64;
            if abs >= st.next_chunk {
                self.update_noise(st, j);
                st.next_chunk = (abs / CHUNK as u64 + 1) * CHUNK as u64;
            }
            let end = (st.len - look).min(j + (st.next_chunk - abs) as usize);
            let t = st.threshold;
            let (found, seen) = trigger::<T>(&st.c, j, end, t);
            st.stats.triggers += seen;
            let found = found.map(|d| j + d);
            match found {
                None => st.scan = end,
                Some(jj) => {
                    st.scan = jj + 1;
                    st.stats.gap += 1;
                    if let Some(next) = self.fine::<T, N, F>(st, jj, filter, sink) {
                        st.scan = next.max(jj + 1);
                    }
                }
            }
        }
    }

    /// Track the noise floor from every 16th sample of `[j, j + CHUNK)`: a
    /// stochastic-approximation tracker of the 25th percentile `q` of the
    /// power (16 samples per chunk, target 4 below; kept ×16), fairly
    /// robust to a channel busy with replies (half of the half-bits inside
    /// a reply hold only noise). For exponentially distributed noise power
    /// the mean is `q / ln(4/3)` ≈ 3.5 `q`; with many replies on the air
    /// the estimate runs high (≈ 1.4× at 60 % occupancy).
    fn update_noise(&self, st: &mut DemodState, j: usize) {
        let Some(w) = st.c.get(j..=j + CHUNK) else {
            return;
        };
        if st.q16 == 0 {
            // First chunk: start from the 25th percentile of its 16 samples.
            let mut v = [0u32; CHUNK / 16];
            for (v, k) in v.iter_mut().zip((0..CHUNK).step_by(16)) {
                *v = w[k + 1].wrapping_sub(w[k]);
            }
            v.sort_unstable();
            st.q16 = v[CHUNK / 64].saturating_mul(16).clamp(16, 1 << 27);
        } else {
            let q = st.q16;
            let below = (0..CHUNK)
                .step_by(16)
                .filter(|&k| w[k + 1].wrapping_sub(w[k]).saturating_mul(16) < q)
                .count() as u32;
            // Up by up to 25 %, down by up to 75 % per chunk.
            st.q16 = if below > 4 {
                q - q * (below - 4) / 16
            } else {
                q + (q * (4 - below) / 16).max(1)
            }
            .clamp(16, 1 << 27);
        }
        st.noise = (st.q16 * 7).div_ceil(32);
        let t = (u64::from(st.noise) * u64::from(self.trigger_q4)) >> 4;
        // Never below 8 units per window sample (quantisation noise is 4).
        st.threshold = (t as u32).max(8 * u32::from(self.trig_win));
    }

    /// Fine preamble search over the tick phases of samples `j .. j+SPAN`,
    /// then slicing, validation and repair.
    fn fine<const T: usize, const N: usize, F: FnMut(&DemodFrame)>(
        &self,
        st: &mut DemodState,
        j: usize,
        filter: &mut AddressFilter<N>,
        sink: &mut F,
    ) -> Option<usize> {
        let look = usize::from(self.look);
        let c = st.c.get(j..=j + look)?;
        if !coarse_ok::<T>(c) {
            return None;
        }
        st.stats.coarse += 1;
        // Best phases by score, highest first.
        let mut best: [(i64, usize, u32); TRIES] = [(i64::MIN, 0, 0); TRIES];
        let noise6 = u64::from(st.noise) * HALF as u64;
        let u = tick_integral::<T>(c)?;
        for p in 0..SPAN * T {
            let Some((s, level)) = preamble_score(&u, p, noise6) else {
                continue;
            };
            if let Some(k) = best.iter().position(|b| s > b.0) {
                best.copy_within(k..TRIES - 1, k + 1);
                best[k] = (s, p, level);
            }
        }
        if best[0].0 == i64::MIN {
            return None;
        }
        st.stats.preambles += 1;
        let abs0 = (st.base + j as u64) * T as u64;
        // Skip a preamble already tried from the previous trigger.
        if abs0 + best[0].1 as u64 == st.last_fail {
            return None;
        }
        // Phases to try: the pulse centroid first (sub-sample timing that
        // the piecewise-linear score cannot give at 2 MS/s), then the best
        // scores.
        let level0 = best[0].2;
        let mut tries = [(0usize, 0u32); TRIES + 1];
        let mut nt = 0;
        if let Some(pc) = centroid_phase::<T>(c, best[0].1, st.noise) {
            tries[0] = (pc, level0);
            nt = 1;
        }
        for &(s, p, level) in best.iter() {
            if s != i64::MIN && !tries[..nt].iter().any(|t| t.0 == p) {
                tries[nt] = (p, level);
                nt += 1;
            }
        }
        // The first two slices (normally the centroid and the best score)
        // are kept for the second chances.
        let mut kept: [Option<(usize, u32, Slice)>; 2] = [None, None];
        for &(p, level) in &tries[..nt] {
            let Some(sl) = slice::<T>(c, p + DATA_START, level / 4, !filter.is_empty()) else {
                continue;
            };
            st.stats.sliced += 1;
            let ts = abs0 + p as u64;
            if let Some(f) = self.validate(&sl, sl.bytes, 0, ts, p, T, filter) {
                return Some(self.emit(j, f, &sl, filter, sink));
            }
            if let Some(slot) = kept.iter_mut().find(|k| k.is_none()) {
                *slot = Some((p, level, sl));
            }
        }
        // Repair, on both kept slices.
        for (p, _, sl) in kept.iter().flatten() {
            if let Some(f) = self.repair(sl, abs0 + *p as u64, *p, T, filter) {
                return Some(self.emit(j, f, sl, filter, sink));
            }
        }
        // Sequence estimation, on the first (the centroid timing).
        let (p, level, sl) = kept.into_iter().flatten().next()?;
        let ts = abs0 + p as u64;
        if self.mlse && u64::from(level) > 5 * noise6 {
            if let Some(sl2) = sl.mlse(&Prior::from_preamble(&u, p)) {
                if let Some(f) = self
                    .validate(&sl2, sl2.bytes, 0, ts, p, T, filter)
                    .or_else(|| self.repair(&sl2, ts, p, T, filter))
                {
                    st.stats.mlse += 1;
                    return Some(self.emit(j, f, &sl2, filter, sink));
                }
            }
        }
        st.last_fail = abs0 + best[0].1 as u64;
        None
    }

    /// Pass a validated frame to the sink, feed the filter, and return the
    /// sample index after its last bit.
    fn emit<const N: usize, F: FnMut(&DemodFrame)>(
        &self,
        j: usize,
        f: DemodFrame,
        sl: &Slice,
        filter: &mut AddressFilter<N>,
        sink: &mut F,
    ) -> usize {
        let df = f.data[0] >> 3;
        let clean_pi = match df {
            11 => f.repaired_bits == 0 && crc::remainder(f.bytes()) == 0,
            17 => f.repaired_bits <= 1,
            18 => f.repaired_bits <= 1 && (f.data[0] & 7) == 0,
            _ => false,
        };
        if clean_pi {
            filter.insert(f.address, f.timestamp);
        }
        sink(&f);
        let tps = usize::from(self.tps);
        j + (usize::from(f.offset) + DATA_START + sl.n * 2 * HALF) / tps
    }

    /// Check a sliced frame with `repaired` bits already flipped.
    #[allow(clippy::too_many_arguments)]
    fn validate<const N: usize>(
        &self,
        sl: &Slice,
        mut bytes: [u8; 14],
        mut repaired: u8,
        ts: u64,
        p: usize,
        tps: usize,
        filter: &AddressFilter<N>,
    ) -> Option<DemodFrame> {
        let len = sl.n / 8;
        let mut rem = crc::remainder(bytes.get(..len)?);
        let df = bytes[0] >> 3;
        let aa = u32::from_be_bytes([0, bytes[1], bytes[2], bytes[3]]);
        if df == 11 && repaired == 0 && rem.is_power_of_two() && rem < IC_LIMIT {
            // A one-bit interrogator code, or code 0 (every acquisition
            // squitter, and most replies) with a slicing error in one of
            // the last 7 parity bits, whose syndrome is the bit itself?
            // Code 0 when that bit was too close to call.
            if sl.doubtful(sl.n - 1 - rem.trailing_zeros() as usize) {
                bytes[len - 1] ^= rem as u8;
                rem = 0;
                repaired = 1;
            }
        }
        let address = match df {
            17 | 18 if rem == 0 => aa,
            11 if rem < IC_LIMIT => aa,
            0 | 4 | 5 | 16 | 20 | 21 | 24..=31 if filter.contains(rem, ts) => rem,
            _ => return None,
        };
        Some(DemodFrame {
            data: bytes,
            len: len as u8,
            timestamp: ts,
            phase: (p % tps) as u8,
            offset: p as u8,
            signal_dbfs: sl.level_dbfs(),
            repaired_bits: repaired,
            address,
        })
    }

    /// Repair of a sliced frame that failed validation.
    fn repair<const N: usize>(
        &self,
        sl: &Slice,
        ts: u64,
        p: usize,
        tps: usize,
        filter: &AddressFilter<N>,
    ) -> Option<DemodFrame> {
        let n = sl.n;
        let len = n / 8;
        let df = sl.bytes[0] >> 3;
        let rem = crc::remainder(sl.bytes.get(..len)?);
        let mut b = sl.bytes;
        match df {
            17 | 18 | 11 => {
                if let Some(k) = crc::repair_single(&mut b[..len], rem) {
                    return self.validate(sl, b, k, ts, p, tps, filter);
                }
                if df == 11 {
                    return None;
                }
                if self.soft_flips >= 2 {
                    let weak = sl.weakest(usize::from(self.soft_candidates));
                    let weak = weak.as_slice();
                    if let Some(k) = crc::repair_within(&mut b[..len], rem, weak, self.soft_flips) {
                        return self.validate(sl, b, k, ts, p, tps, filter);
                    }
                }
                if self.two_bit {
                    if let Some(k) = crc::repair(&mut b[..len], rem, 2) {
                        return self.validate(sl, b, k, ts, p, tps, filter);
                    }
                }
                None
            }
            0 | 4 | 5 | 16 | 20 | 21 => {
                let k = usize::from(self.ap_candidates);
                if k == 0 || filter.is_empty() {
                    return None;
                }
                let weak = sl.weakest(k);
                let mut hit = None;
                for &bit in weak.as_slice() {
                    let bit = usize::from(bit);
                    if bit < crc::PROTECTED_BITS {
                        continue;
                    }
                    if filter.contains(rem ^ crc::syndrome_of_bit(n, bit), ts) {
                        if hit.is_some() {
                            return None; // ambiguous
                        }
                        hit = Some(bit);
                    }
                }
                let bit = hit?;
                b[bit / 8] ^= 0x80 >> (bit % 8);
                self.validate(sl, b, 1, ts, p, tps, filter)
            }
            _ => None,
        }
    }
}

/// Samples of the trigger window: those that can hold the first preamble
/// pulse `[p, p + 6)` ticks for any phase `p` in `0..t` (2 at 2.0 and
/// 2.4 MS/s).
const fn trigger_window(t: usize) -> usize {
    (t - 1 + HALF).div_ceil(t)
}

/// First `d` such that, for `j = k + d < end`:
/// - the energy `p₁` of samples `[j, j + w)` exceeds `t` (the per-sample
///   trigger, tested on blocks of 8 positions so that it vectorises),
/// - the energy `q` of the samples wholly inside the 1.5–3.5 µs gap is
///   below half the pulse level, `q/n_q < p₁/w/2` (rejects the pulses inside
///   replies),
/// - the best `w`-sample window of pulse 3 reaches a quarter of `p₁` (a
///   pulse split over two samples keeps only about 0.72 of its power, and
///   noise varies both).
///
/// Returns `(d, positions passing the first two tests)`.
#[inline]
fn trigger<const T: usize>(c: &[u32], k: usize, end: usize, t: u32) -> (Option<usize>, u64) {
    let w = const { trigger_window(T) };
    let (g0, g1) = const {
        let (a, b) = subset(18, 42, T);
        (a as usize, b as usize)
    };
    let (a3, b3) = const {
        let (a, b) = superset(42, 48, T);
        (a as usize, b as usize)
    };
    let check = |s: &[u32], i: usize| -> bool {
        let Some(v) = s.get(i..=i + b3) else {
            return false;
        };
        let p1 = v[w].wrapping_sub(v[0]);
        let mut e3 = 0;
        let mut x = a3;
        while x + w <= b3 {
            e3 = e3.max(v[x + w].wrapping_sub(v[x]));
            x += 1;
        }
        4 * u64::from(e3) > u64::from(p1)
    };
    let mut seen = 0;
    let Some(n) = end.checked_sub(k) else {
        return (None, 0);
    };
    let Some(s) = c.get(k..end + b3.max(g1) + 1) else {
        return (None, 0);
    };
    // q < p₁·n_q/(2w), with n_q/(2w) rounded up to quarters and applied by
    // shifts (3/4 at 2.0 and 2.4 MS/s, exact).
    let quarters = const {
        let (a, b) = subset(18, 42, T);
        (4 * (b - a) as usize).div_ceil(2 * trigger_window(T))
    };
    let pass = |x: u32, y: u32, q0: u32, q1: u32| -> bool {
        let p1 = y.wrapping_sub(x);
        let q = q1.wrapping_sub(q0);
        let lim = match quarters {
            0..=3 => p1 - (p1 >> 2),
            4 => p1,
            5 => p1.saturating_add(p1 >> 2),
            6 | 7 => p1.saturating_add(p1 >> 1),
            _ => p1.saturating_mul(2),
        };
        (p1 > t) & (q < lim)
    };
    let mut base = 0;
    let (Some(xs), Some(ys)) = (s.get(..n), s.get(w..n + w)) else {
        return (None, 0);
    };
    let mut x8 = xs.chunks_exact(8);
    let mut y8 = ys.chunks_exact(8);
    for (x, y) in (&mut x8).zip(&mut y8) {
        let mut any = false;
        for i in 0..8 {
            any |= y[i].wrapping_sub(x[i]) > t;
        }
        if any {
            for i in 0..8 {
                if y[i].wrapping_sub(x[i]) > t {
                    let j = base + i;
                    let (Some(&q0), Some(&q1)) = (s.get(j + g0), s.get(j + g1)) else {
                        continue;
                    };
                    if pass(x[i], y[i], q0, q1) {
                        seen += 1;
                        if check(s, j) {
                            return (Some(j), seen);
                        }
                    }
                }
            }
        }
        base += 8;
    }
    for (i, (&x, &y)) in x8.remainder().iter().zip(y8.remainder()).enumerate() {
        let j = base + i;
        let (Some(&q0), Some(&q1)) = (s.get(j + g0), s.get(j + g1)) else {
            continue;
        };
        if pass(x, y, q0, q1) {
            seen += 1;
            if check(s, j) {
                return (Some(j), seen);
            }
        }
    }
    (None, seen)
}

/// Whole-sample preamble check on the window `c` starting at the trigger
/// sample: pulse 1 (the trigger window) must average above 2 × the quiet
/// windows' mean, pulses 2–4 (the best trigger-sized window inside each
/// superset window) above 1.5 ×.
#[inline]
fn coarse_ok<const T: usize>(c: &[u32]) -> bool {
    let w = const { trigger_window(T) };
    let q0 = const { subset(18, 42, T) };
    let q1 = const { subset(60, 96, T) };
    let pulses = const {
        [
            superset(12, 18, T),
            superset(42, 48, T),
            superset(54, 60, T),
        ]
    };
    let Some(c) = c.get(..=DATA_START) else {
        return false;
    };
    let e = |a: u8, b: u8| u64::from(c[usize::from(b)].wrapping_sub(c[usize::from(a)]));
    let q = e(q0.0, q0.1) + e(q1.0, q1.1);
    let nq = u64::from(q0.1 - q0.0 + q1.1 - q1.0);
    let w8 = w as u8;
    // p/n > 2·q/nq  ⇔  p·nq > 2·q·n
    if e(0, w8) * nq <= 2 * q * w as u64 {
        return false;
    }
    pulses.iter().all(|&(a, b)| {
        let mut best = 0u64;
        let mut k = a;
        while k + w8 <= b {
            best = best.max(e(k, k + w8));
            k += 1;
        }
        2 * best * nq > 3 * q * w as u64
    })
}

/// Ticks of the power integral kept for the preamble search.
const U_LEN: usize = SPAN * 6 + DATA_START + 1;

/// `u[x] = G(x) − G(0)` for the first [`U_LEN`] ticks of the window `c`:
/// the integral of the power over ticks `[0, x)`, built by adding each
/// sample's power once per tick (`G(x + 1) = G(x) + m[⌊x/T⌋]`).
#[inline]
fn tick_integral<const T: usize>(c: &[u32]) -> Option<[u32; U_LEN]> {
    let mut u = [0u32; U_LEN];
    let c = c.get(..U_LEN.div_ceil(T) + 1)?;
    let mut acc = 0u32;
    let mut x = 1;
    for p in c.windows(2) {
        let m = p[1].wrapping_sub(p[0]);
        for _ in 0..T {
            if let Some(v) = u.get_mut(x) {
                acc = acc.wrapping_add(m);
                *v = acc;
            }
            x += 1;
        }
    }
    Some(u)
}

/// Score of a preamble starting at tick `p` of the tick integral `u`, or
/// `None` if its four pulses do not all stand out; with the mean pulse
/// energy. `noise6` is the noise floor integrated over a half-bit.
#[inline]
fn preamble_score(u: &[u32; U_LEN], p: usize, noise6: u64) -> Option<(i64, u32)> {
    const AT: [usize; 9] = [0, 6, 12, 18, 42, 48, 54, 60, 96];
    let v = u.get(p..=p + DATA_START)?;
    let d = |a: usize, b: usize| u64::from(v[AT[b]].wrapping_sub(v[AT[a]]));
    let e = [d(0, 1), d(2, 3), d(4, 5), d(6, 7)];
    let q_short = d(1, 2) + d(5, 6); // 12 ticks
    let q_long = d(3, 4) + d(7, 8); // 60 ticks
    let emin = e.iter().copied().min().unwrap_or(0);
    let esum: u64 = e.iter().sum();
    // The receiver's filter smears pulses into the 0.5 µs gaps, so only
    // the long gaps serve as the quiet reference:
    // each pulse (6 ticks) above 1.5 × their mean: emin/6 > 1.5·q_long/60,
    // the short gaps below twice the pulse mean, q_short/12 < 2·esum/24
    // (at 2 MS/s, sampled half a sample off, they are as loud as the
    // pulses),
    // the pulses above 2.5 × the noise floor (replies weaker than ~8 dB do
    // not decode anyway).
    if 20 * emin <= 3 * q_long || q_short >= esum || 2 * emin <= 5 * noise6 {
        return None;
    }
    Some((esum as i64 - 2 * q_short as i64, (esum / 4) as u32))
}

/// Preamble start (tick of the window) from the amplitude centroids of the
/// four pulses around the rough start `p`: each pulse's samples within half
/// a pulse of it, weighted by `√m − √noise`, have their centres averaged;
/// the pulse centre lies 3 ticks after its start. With a box (or any
/// symmetric) response the amplitude centroid is unbiased whatever the
/// sub-sample phase, unlike the power-based score, which at 2 MS/s is
/// linear within a sample. Returns `None` if the pulses carry no amplitude.
fn centroid_phase<const T: usize>(c: &[u32], p: usize, noise: u32) -> Option<usize> {
    let floor = libm::sqrtf(noise as f32);
    let (mut sw, mut swx) = (0.0f32, 0.0f32);
    for o in [0usize, 12, 42, 54] {
        let a = (p + o).saturating_sub(3) / T;
        let b = (p + o + 9).div_ceil(T);
        for i in a..b {
            let m = c.get(i + 1)?.wrapping_sub(*c.get(i)?);
            let amp = (libm::sqrtf(m as f32) - floor).max(0.0);
            // Centre of sample i minus the pulse-centre offset.
            let x = (i * T) as f32 + 0.5 * T as f32 - (o + 3) as f32;
            sw += amp;
            swx += amp * x;
        }
    }
    if sw <= 0.0 {
        return None;
    }
    let t = swx / sw;
    let hi = (SPAN * T - 1) as f32;
    Some((t + 0.5).clamp(0.0, hi) as usize)
}

/// Expected half-bit energies for each neighbour context, read off the
/// preamble at the chosen phase (the same receiver response, phase and
/// level as the data): `one[prev][cur]` for the first half of a bit given
/// the previous and current bits, `zero[cur][next]` for its second half.
#[derive(Debug, Clone, Copy)]
struct Prior {
    one: [[u32; 2]; 2],
    zero: [[u32; 2]; 2],
}

impl Prior {
    /// Contexts as they occur in the preamble (ticks from its start):
    /// a pulse between empty halves (the four pulses), an empty half
    /// between two pulses (6–12, 48–54), an empty half after a pulse
    /// (18–24, 60–66), before a pulse (36–42), and the two halves of a
    /// 1 µs pulse (a pulse plus half the leakage seen between pulses).
    fn from_preamble(u: &[u32; U_LEN], p: usize) -> Self {
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
        let cont = pulse.saturating_add(between.saturating_sub(before.min(after)) / 2);
        Self {
            // one[prev][cur]: cur = 1 → pulse in this half.
            one: [[between, cont], [before, pulse]],
            // zero[cur][next]: cur = 0 → pulse in this half.
            zero: [[pulse, cont], [after, between]],
        }
    }
}

/// One sliced reply: bits and per-bit half energies.
#[derive(Clone)]
struct Slice {
    bytes: [u8; 14],
    /// Bits sliced: 56 or 112.
    n: usize,
    e1: [u32; LONG],
    e0: [u32; LONG],
}

/// Up to [`crc::MAX_CANDIDATES`] bit positions.
struct Weak {
    pos: [u8; crc::MAX_CANDIDATES],
    len: usize,
}

impl Weak {
    fn as_slice(&self) -> &[u8] {
        &self.pos[..self.len.min(crc::MAX_CANDIDATES)]
    }
}

/// DF11 remainders below this are interrogator codes (II 0–15 with
/// CL = 0, SI 1–63 with CL = 1–4, as `CL·16 + code`).
const IC_LIMIT: u32 = 80;

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

/// Slice a reply whose first data bit starts at tick `x` of window `c`.
///
/// Returns `None` for a DF that cannot be validated (unassigned codes, and
/// AP formats when `ap` is false, i.e. no address is known), or when more
/// than [`EARLY_MISSING`] of the first [`EARLY_BITS`] bits have no half
/// above `floor` (a quarter of the preamble's pulse energy): a real reply
/// has a pulse in every bit, a false preamble in noise does not.
fn slice<const T: usize>(c: &[u32], x: usize, floor: u32, ap: bool) -> Option<Slice> {
    let mut s = Slice {
        bytes: [0; 14],
        n: crc::SHORT_BITS,
        e1: [0; LONG],
        e0: [0; LONG],
    };
    let c = c.get(..(x + 2 * HALF * LONG) / T + 2)?;
    // `T ×` the prefix sum at tick `x + h·HALF` (linear interpolation
    // between samples); `T` is a constant, so `/` and `%` are a multiply.
    let g = |h: usize| -> u32 {
        let t = x + h * HALF;
        let (i, r) = (t / T, (t % T) as u32);
        match (c.get(i), c.get(i + 1)) {
            (Some(&a), Some(&b)) => a
                .wrapping_mul(T as u32)
                .wrapping_add(r.wrapping_mul(b.wrapping_sub(a))),
            _ => 0,
        }
    };
    // Bits `from..to`: half energies into `s`; returns the bits (bit `k`
    // at position `127 − k`) and the number of bits with no half above
    // `floor`.
    let bits = |s: &mut Slice, from: usize, to: usize| -> (u128, usize) {
        let (mut word, mut missing) = (0u128, 0);
        let mut ga = g(2 * from);
        for (k, (e1, e0)) in s.e1[from..to]
            .iter_mut()
            .zip(&mut s.e0[from..to])
            .enumerate()
        {
            let h = 2 * (from + k);
            let gm = g(h + 1);
            let gb = g(h + 2);
            *e1 = gm.wrapping_sub(ga);
            *e0 = gb.wrapping_sub(gm);
            ga = gb;
            missing += usize::from((*e1).max(*e0) <= floor);
            word |= u128::from(*e1 > *e0) << (127 - from - k);
        }
        (word, missing)
    };
    let (mut word, _) = bits(&mut s, 0, 5);
    let df = (word >> 123) as u8;
    match df {
        11 | 17 | 18 => {}
        0 | 4 | 5 | 16 | 20 | 21 | 24..=31 if ap => {}
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
    fn level_dbfs(&self) -> f32 {
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
    fn doubtful(&self, k: usize) -> bool {
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
    fn weakest(&self, k: usize) -> Weak {
        let k = k.min(crc::MAX_CANDIDATES);
        let mut w = Weak {
            pos: [0; crc::MAX_CANDIDATES],
            len: 0,
        };
        let mut conf = [u32::MAX; crc::MAX_CANDIDATES];
        if k == 0 {
            return w;
        }
        for (i, (&a, &b)) in self.e1[..self.n].iter().zip(&self.e0[..self.n]).enumerate() {
            let cf = a.abs_diff(b);
            if w.len == k && cf >= conf[k - 1] {
                continue;
            }
            // Insert keeping `conf` ascending.
            let mut at = w.len.min(k - 1);
            while at > 0 && conf[at - 1] > cf {
                conf[at] = conf[at - 1];
                w.pos[at] = w.pos[at - 1];
                at -= 1;
            }
            conf[at] = cf;
            w.pos[at] = i as u8;
            if w.len < k {
                w.len += 1;
            }
        }
        w
    }

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
    fn mlse(&self, prior: &Prior) -> Option<Slice> {
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
    /// Frames recovered by the sequence (MLSE) re-slice.
    pub mlse: u64,
}

/// Demodulator state: the power history, the scan position, the noise
/// floor (≈ 8.1 KiB).
#[derive(Clone)]
pub struct DemodState {
    /// Prefix sums of the power, `c[k] = Σ m[base .. base + k)` (wrapping).
    c: [u32; HISTORY],
    /// Valid entries of `c` (≥ 1).
    len: usize,
    /// Next trigger position (index into `c`).
    scan: usize,
    /// Absolute sample index of `c[0]`.
    base: u64,
    /// Running sum (`c[len − 1]`).
    acc: u32,
    /// A pending I byte.
    odd: Option<u8>,
    /// Noise floor: mean power per sample, table units (0 = unknown).
    noise: u32,
    /// 25th percentile of the power ×16 (0 = unknown).
    q16: u32,
    /// Trigger threshold over the trigger window.
    threshold: u32,
    /// Absolute sample index of the next noise-floor update.
    next_chunk: u64,
    /// Absolute tick of the last preamble that failed.
    last_fail: u64,
    stats: DemodStats,
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
            len: 1,
            scan: 0,
            base: 0,
            acc: 0,
            odd: None,
            noise: 0,
            q16: 0,
            threshold: u32::MAX,
            next_chunk: 0,
            last_fail: u64::MAX,
            stats: DemodStats {
                samples: 0,
                triggers: 0,
                gap: 0,
                coarse: 0,
                preambles: 0,
                sliced: 0,
                mlse: 0,
            },
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

    #[inline]
    fn push(&mut self, m: u32) {
        debug_assert!(self.len < HISTORY, "no room in the history");
        self.acc = self.acc.wrapping_add(m);
        if let Some(c) = self.c.get_mut(self.len) {
            *c = self.acc;
            self.len += 1;
        }
    }

    /// Convert byte pairs into prefix sums (the caller made room).
    #[inline]
    fn convert(&mut self, bytes: &[u8]) {
        let start = self.len;
        let n = bytes.len() / 2;
        let Some(dst) = self.c.get_mut(start..start + n) else {
            return;
        };
        self.stats.samples += n as u64;
        let mut acc = self.acc;
        for (d, iq) in dst.iter_mut().zip(bytes.chunks_exact(2)) {
            acc = acc.wrapping_add(power(iq[0], iq[1]));
            *d = acc;
        }
        self.acc = acc;
        self.len += n;
    }
}

/// One demodulated, CRC-checked Mode S frame.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DemodFrame {
    data: [u8; 14],
    len: u8,
    /// 12 MHz ticks from the first sample of the stream to the leading edge
    /// of the first preamble pulse: `sample_index · tps + phase`, where
    /// sample `n` spans ticks `[n·tps, (n+1)·tps)`.
    pub timestamp: u64,
    /// Sub-sample phase of the preamble start, in 12 MHz ticks
    /// (`0 .. tps`); `timestamp mod tps`.
    pub phase: u8,
    /// Ticks from the trigger sample to the preamble start.
    offset: u8,
    /// Signal level: mean power of the pulse-carrying half-bits, in dB
    /// relative to a full-scale complex sine (magnitude 127.4). A pulse
    /// that straddles samples reads up to ~3 dB low.
    pub signal_dbfs: f32,
    /// Bits flipped by error repair (0 = received clean).
    pub repaired_bits: u8,
    /// The ICAO address: the AA field for DF11/17/18, the recovered
    /// (known) address for AP formats.
    pub address: u32,
}

impl DemodFrame {
    /// The frame bytes (7 or 14).
    pub fn bytes(&self) -> &[u8] {
        &self.data[..usize::from(self.len).min(14)]
    }

    /// The downlink format code (first 5 bits).
    pub fn df(&self) -> u8 {
        self.data[0] >> 3
    }
}

/// Table of recently seen ICAO addresses, used to accept AP-format replies
/// (whose parity is overlaid with the address).
///
/// Open addressing with linear probing over at most 16 slots from the
/// multiplicative hash of the address; capacity `N` (a power of two, 16 …
/// 65,536). Entries expire `ttl` ticks (12 MHz) after they were last
/// inserted; an insertion into a full probe window evicts its oldest entry.
/// Times are kept in units of 2¹⁶ ticks (5.46 ms) and compared with
/// wrapping arithmetic (period 271 days). Memory: `8·N` bytes.
#[derive(Clone)]
pub struct AddressFilter<const N: usize> {
    /// `address | VALID`, or 0 for a never-used slot.
    keys: [u32; N],
    /// Last insertion time, ticks >> 16.
    seen: [u32; N],
    ttl: u32,
    count: usize,
}

impl<const N: usize> core::fmt::Debug for AddressFilter<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AddressFilter")
            .field("capacity", &N)
            .field("used_slots", &self.count)
            .field("ttl_ticks", &(u64::from(self.ttl) << TIME_SHIFT))
            .finish_non_exhaustive()
    }
}

const VALID: u32 = 1 << 31;
const TIME_SHIFT: u32 = 16;
const PROBE: usize = 16;

impl<const N: usize> AddressFilter<N> {
    /// Default time to live: 60 s of sample time.
    pub const DEFAULT_TTL: u64 = 60 * TICK_HZ as u64;

    /// An empty filter whose entries expire after `ttl` 12 MHz ticks.
    ///
    /// ```
    /// use airwaves_core::modes::demod::AddressFilter;
    /// let mut f = AddressFilter::<256>::new(AddressFilter::<256>::DEFAULT_TTL);
    /// f.insert(0x4D2023, 0);
    /// assert!(f.contains(0x4D2023, 12_000_000));
    /// assert!(!f.contains(0x4D2023, 61 * 12_000_000));
    /// ```
    pub const fn new(ttl: u64) -> Self {
        const {
            assert!(N.is_power_of_two() && N >= 16 && N <= 65536);
        }
        let t = ttl >> TIME_SHIFT;
        Self {
            keys: [0; N],
            seen: [0; N],
            ttl: if t > u32::MAX as u64 {
                u32::MAX
            } else {
                t as u32
            },
            count: 0,
        }
    }

    #[inline]
    fn home(addr: u32) -> usize {
        let bits = N.trailing_zeros();
        if bits == 0 {
            return 0;
        }
        (addr.wrapping_mul(0x9E37_79B1) >> (32 - bits)) as usize
    }

    #[inline]
    fn fresh(&self, i: usize, now: u32) -> bool {
        now.wrapping_sub(self.seen[i]) <= self.ttl
    }

    /// Record `addr` (24 bits; higher bits ignored) as seen at `now`
    /// (12 MHz ticks).
    pub fn insert(&mut self, addr: u32, now: u64) {
        let key = (addr & 0xFF_FFFF) | VALID;
        let t = (now >> TIME_SHIFT) as u32;
        let h = Self::home(addr & 0xFF_FFFF);
        let mut free: Option<usize> = None;
        let mut oldest = (0u32, h);
        for k in 0..PROBE.min(N) {
            let i = (h + k) & (N - 1);
            let e = self.keys[i];
            if e == key {
                self.seen[i] = t;
                return;
            }
            if e == 0 {
                // Never used: nothing beyond it in this chain.
                let slot = free.unwrap_or(i);
                if slot == i {
                    self.count += 1;
                }
                self.keys[slot] = key;
                self.seen[slot] = t;
                return;
            }
            let age = t.wrapping_sub(self.seen[i]);
            if free.is_none() && age > self.ttl {
                free = Some(i);
            }
            if age >= oldest.0 {
                oldest = (age, i);
            }
        }
        let slot = free.unwrap_or(oldest.1);
        self.keys[slot] = key;
        self.seen[slot] = t;
    }

    /// Whether `addr` was inserted within the last `ttl` ticks before
    /// `now`.
    pub fn contains(&self, addr: u32, now: u64) -> bool {
        if addr > 0xFF_FFFF || self.count == 0 {
            return false;
        }
        let key = addr | VALID;
        let t = (now >> TIME_SHIFT) as u32;
        let h = Self::home(addr);
        for k in 0..PROBE.min(N) {
            let i = (h + k) & (N - 1);
            let e = self.keys[i];
            if e == key {
                return self.fresh(i, t);
            }
            if e == 0 {
                return false;
            }
        }
        false
    }

    /// Whether no address was ever inserted (or [`clear`](Self::clear) was
    /// called since).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Forget every address.
    pub fn clear(&mut self) {
        self.keys = [0; N];
        self.count = 0;
    }
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use std::string::String;
    use std::vec::Vec;
    use std::{eprintln, format};

    fn load(name: &str) -> Option<Vec<u8>> {
        crate::testing::shared_data(&format!("adsb/{name}"))
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    /// `(sample offset, hex)` rows of a `*.frames.txt`.
    fn expected(name: &str) -> Vec<(u64, String)> {
        let Some(t) = load(name) else {
            return Vec::new();
        };
        String::from_utf8(t)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f[0].parse().unwrap(), f[2].to_lowercase())
            })
            .collect()
    }

    type Filter = AddressFilter<512>;

    fn run_blocks(d: &Demodulator, bytes: &[u8], block: usize) -> (Vec<DemodFrame>, DemodStats) {
        let mut st = DemodState::new();
        let mut filt = Filter::new(Filter::DEFAULT_TTL);
        let mut out = Vec::new();
        for b in bytes.chunks(block.max(1)) {
            d.process(&mut st, &mut filt, b, |f| out.push(*f));
        }
        d.finish(&mut st, &mut filt, |f| out.push(*f));
        (out, st.stats())
    }

    /// Decode a capture, assert every listed frame is found (bytes and
    /// timestamp within 4 samples); returns (listed, extra) counts.
    fn check_capture(stem: &str, rate: u32) -> (usize, usize) {
        let Some(bytes) = load(&format!("{stem}.cu8")) else {
            return (0, 0);
        };
        let want = expected(&format!("{stem}.frames.txt"));
        let d = Demodulator::new(rate).unwrap();
        let (got, stats) = run_blocks(&d, &bytes, 1 << 20);
        let tps = u64::from(d.ticks_per_sample());
        let mut missing = 0;
        let mut used = std::vec![false; got.len()];
        let near = |f: &DemodFrame, off: u64| (f.timestamp as f64 / tps as f64 - off as f64).abs();
        for (off, h) in &want {
            let hit = got
                .iter()
                .enumerate()
                .filter(|(i, f)| !used[*i] && hex(f.bytes()) == *h && near(f, *off) < 4.0)
                .map(|(i, _)| i)
                .next();
            match hit {
                Some(i) => used[i] = true,
                None => {
                    eprintln!("  MISSING {off} {h}");
                    missing += 1;
                }
            }
        }
        let extra: Vec<&DemodFrame> = got
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(f, _)| f)
            .collect();
        eprintln!(
            "{stem}: want {} got {} missing {missing} extra {} stats {stats:?}",
            want.len(),
            got.len(),
            extra.len()
        );
        for f in &extra {
            eprintln!(
                "  extra {:>8.1} DF{:<2} {:06x} rep {} {:.1} dBFS {}",
                f.timestamp as f64 / tps as f64,
                f.df(),
                f.address,
                f.repaired_bits,
                f.signal_dbfs,
                hex(f.bytes())
            );
        }
        assert_eq!(missing, 0, "{stem}: expected frames missing");
        assert_plausible(&got);
        // Any block split gives the same frames (frames straddle blocks).
        for block in [4097, 777] {
            let (again, _) = run_blocks(&d, &bytes, block);
            assert_eq!(again, got, "{stem}: block size {block}");
        }
        (want.len(), extra.len())
    }

    /// Every output frame is valid for its format after its repairs: known
    /// DF, CRC remainder 0 (DF17/18) or an interrogator code (DF11), and for
    /// AP formats an address seen earlier in an unrepaired DF11/17/18.
    fn assert_plausible(frames: &[DemodFrame]) {
        let mut seen = std::collections::HashSet::new();
        for f in frames {
            let rem = crc::remainder(f.bytes());
            assert!(f.repaired_bits <= 3, "{f:?}");
            match f.df() {
                17 | 18 => assert_eq!(rem, 0, "{}", hex(f.bytes())),
                11 => {
                    assert!(rem < 80, "{}", hex(f.bytes()));
                    assert!(f.repaired_bits <= 1);
                }
                0 | 4 | 5 | 16 | 20 | 21 | 24..=31 => {
                    assert_eq!(rem, f.address);
                    assert!(seen.contains(&rem), "AP address {rem:06x} not seen before");
                }
                df => panic!("DF{df} emitted"),
            }
            if matches!(f.df(), 11 | 17 | 18) && f.repaired_bits <= 1 {
                seen.insert(f.address);
            }
            // The DF is never repaired into existence: 5 protected bits.
            assert!(f.phase < 6 && f.signal_dbfs < 0.5 && f.signal_dbfs > -60.0);
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_captures() {
        let mut report = String::new();
        for (stem, rate) in [
            ("capture_1641427457780_2400k", 2_400_000),
            ("capture_1641428106243_2400k", 2_400_000),
            ("capture_1641428165033_2400k", 2_400_000),
            ("modes1_2000k", 2_000_000),
        ] {
            let (want, extra) = check_capture(stem, rate);
            report += &format!(" {stem}: {want} + {extra} extra;");
        }
        eprintln!("captures:{report}");
    }

    // ---- Synthetic signals -------------------------------------------

    use crate::testing::Rng;

    /// Test-only Mode S modulator: frames as PPM pulses, sampled at
    /// `rate` with a box (integrate-and-dump) response, a random carrier
    /// phase and frequency offset per frame, complex Gaussian noise and
    /// `cu8` quantisation.
    struct Modulator {
        rate: f64,
        /// Noise σ per component, LSB.
        sigma: f64,
        rng: Rng,
        /// Complex samples (before quantisation).
        iq: Vec<(f64, f64)>,
    }

    impl Modulator {
        fn new(rate: u32, sigma: f64, seed: u64, samples: usize) -> Self {
            Self {
                rate: f64::from(rate),
                sigma,
                rng: Rng::new(seed),
                iq: std::vec![(0.0, 0.0); samples],
            }
        }

        /// Pulse intervals (µs from the preamble start) of a frame.
        fn pulses(frame: &[u8]) -> Vec<(f64, f64)> {
            let mut p: Vec<(f64, f64)> =
                [0.0, 1.0, 3.5, 4.5].iter().map(|&t| (t, t + 0.5)).collect();
            for k in 0..frame.len() * 8 {
                let one = frame[k / 8] >> (7 - k % 8) & 1 == 1;
                let t = 8.0 + k as f64 + if one { 0.0 } else { 0.5 };
                p.push((t, t + 0.5));
            }
            p
        }

        /// Add a frame whose preamble starts at `start` samples (fractional)
        /// with amplitude `amp` LSB.
        fn add(&mut self, frame: &[u8], start: f64, amp: f64) {
            self.add_pulses(&Self::pulses(frame), start, amp);
        }

        /// Add pulses (µs intervals from `start` samples) of one carrier.
        fn add_pulses(&mut self, pulses: &[(f64, f64)], start: f64, amp: f64) {
            let us = self.rate / 1e6; // samples per µs
            let phase0 = self.rng.uniform() * core::f64::consts::TAU;
            let dphi =
                (self.rng.uniform() - 0.5) * 2.0 * 150e3 / self.rate * core::f64::consts::TAU;
            for &(a, b) in pulses {
                let (a, b) = (start + a * us, start + b * us);
                let (lo, hi) = (a.floor() as usize, b.ceil() as usize);
                for n in lo..hi.min(self.iq.len()) {
                    let ov = (b.min(n as f64 + 1.0) - a.max(n as f64)).max(0.0);
                    let ph = phase0 + dphi * n as f64;
                    self.iq[n].0 += amp * ov * ph.cos();
                    self.iq[n].1 += amp * ov * ph.sin();
                }
            }
        }

        /// Quantise with noise to `cu8`.
        fn bytes(&mut self) -> Vec<u8> {
            let mut out = Vec::with_capacity(2 * self.iq.len());
            for k in 0..self.iq.len() {
                let (i, q) = self.iq[k];
                for v in [i, q] {
                    let x = 127.4 + v + self.sigma * self.rng.gauss();
                    out.push(x.round().clamp(0.0, 255.0) as u8);
                }
            }
            out
        }
    }

    /// A random DF17 frame with a valid CRC.
    fn random_df17(rng: &mut Rng) -> [u8; 14] {
        let mut f = [0u8; 14];
        f[0] = 0x8D;
        for b in f[1..11].iter_mut() {
            *b = rng.next_u64() as u8;
        }
        let p = crc::crc24(&f[..11]);
        f[11..].copy_from_slice(&p.to_be_bytes()[1..]);
        f
    }

    /// Noise σ per component (LSB) for the synthetic tests.
    const SIGMA: f64 = 4.0;

    /// `n` random DF17 frames at `snr_db` (pulse power over noise power per
    /// complex sample); returns (recovered exactly, false frames).
    fn recall(rate: u32, snr_db: f64, n: usize, seed: u64) -> (usize, usize) {
        let spacing = f64::from(rate) * 200e-6; // 200 µs apart
        let total = (spacing * (n as f64 + 2.0)) as usize;
        let mut m = Modulator::new(rate, SIGMA, seed, total);
        let amp = libm::sqrt(2.0 * SIGMA * SIGMA * libm::pow(10.0, snr_db / 10.0));
        let mut frames = Vec::new();
        for k in 0..n {
            let f = random_df17(&mut m.rng);
            let start = spacing * (k as f64 + 1.0) + m.rng.uniform() * 7.0;
            m.add(&f, start, amp);
            frames.push(f);
        }
        let bytes = m.bytes();
        let d = Demodulator::new(rate).unwrap();
        let (got, _) = run_blocks(&d, &bytes, 8192);
        let hit = frames
            .iter()
            .filter(|f| got.iter().any(|g| g.bytes() == &f[..]))
            .count();
        let false_frames = got
            .iter()
            .filter(|g| !frames.iter().any(|f| g.bytes() == &f[..]))
            .count();
        (hit, false_frames)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_recall_vs_snr() {
        const SNR: [f64; 6] = [6.0, 8.0, 10.0, 12.0, 15.0, 20.0];
        for rate in [2_400_000, 2_000_000] {
            let mut row = String::new();
            let mut hits = [0usize; 6];
            for (i, snr) in SNR.iter().enumerate() {
                let (hit, fa) = recall(rate, *snr, 100, 1 + *snr as u64);
                row += &format!(" {snr:>4} dB: {hit:>3}%");
                assert_eq!(fa, 0, "false frames at {rate} Hz {snr} dB");
                hits[i] = hit;
            }
            eprintln!("recall {rate}:{row}");
            // Monotone within noise.
            assert!(hits.windows(2).all(|w| w[1] + 5 >= w[0]), "{hits:?}");
            if rate == 2_400_000 {
                assert!(hits[4] >= 99 && hits[5] >= 99, "{hits:?}");
            } else {
                // At 2 MS/s a sample is a half-bit: a reply sampled half a
                // sample off puts every sample across two half-bits and
                // loses ~6 dB (box response), so the bound is lower.
                assert!(hits[4] >= 55 && hits[5] >= 90, "{hits:?}");
            }
        }
    }

    /// Pure receiver noise: (frames, stats).
    fn noise_run(rate: u32, samples: usize, seed: u64) -> (Vec<DemodFrame>, DemodStats) {
        let mut m = Modulator::new(rate, SIGMA, seed, samples);
        let bytes = m.bytes();
        run_blocks(&Demodulator::new(rate).unwrap(), &bytes, 65536)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_noise_no_frames() {
        for rate in [2_400_000, 2_000_000] {
            let (f, stats) = noise_run(rate, 2_400_000, 99);
            eprintln!("noise {rate}: {} frames, {stats:?}", f.len());
            assert!(f.len() <= 1, "{} false frames from noise", f.len());
        }
        // Full-scale uniform bytes.
        let mut rng = Rng::new(5);
        let bytes: Vec<u8> = (0..4_800_000).map(|_| rng.next_u64() as u8).collect();
        let (f, stats) = run_blocks(&Demodulator::new(2_400_000).unwrap(), &bytes, 65536);
        eprintln!("uniform noise: {} frames, {stats:?}", f.len());
        assert!(f.len() <= 1);
        // A busy sky: 300 known addresses make AP formats acceptable; noise
        // must still not produce frames (1 s at 2.4 MS/s).
        let mut m = Modulator::new(2_400_000, SIGMA, 77, 2_400_000);
        let bytes = m.bytes();
        let d = Demodulator::new(2_400_000).unwrap();
        let mut st = DemodState::new();
        let mut filt = Filter::new(u64::MAX);
        for _ in 0..300 {
            filt.insert(rng.next_u64() as u32 & 0xFF_FFFF, 0);
        }
        let mut n = 0;
        d.process(&mut st, &mut filt, &bytes, |_| n += 1);
        eprintln!(
            "noise with 300 known addresses: {n} frames, {:?}",
            st.stats()
        );
        assert!(n <= 1, "{n}");
    }

    // ---- Unit tests ---------------------------------------------------

    #[test]
    fn test_config() {
        for (rate, tps) in [
            (2_400_000, 5),
            (2_000_000, 6),
            (3_000_000, 4),
            (4_000_000, 3),
            (6_000_000, 2),
            (12_000_000, 1),
        ] {
            let d = Demodulator::new(rate).unwrap();
            assert_eq!(d.ticks_per_sample(), tps);
            assert!(usize::from(d.look) + BACK + 512 < HISTORY);
        }
        for rate in [0, 1, 1_000_000, 2_048_000, 2_500_000, 24_000_000] {
            assert_eq!(
                Demodulator::new(rate),
                Err(ConfigError::UnsupportedRate { rate_hz: rate })
            );
        }
        let e = Demodulator::new(7).unwrap_err();
        assert!(format!("{e}").contains("7 Hz"));
        let d = Demodulator::new(2_400_000)
            .unwrap()
            .with_soft_repair(99, 9)
            .with_ap_repair(99);
        assert_eq!((d.soft_candidates, d.soft_flips), (24, 3));
        assert_eq!(d.ap_candidates, 24);
    }

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

    #[test]
    fn test_window_geometry() {
        // 2.4 MS/s: 1.2 samples per half-bit.
        assert_eq!(trigger_window(5), 2);
        assert_eq!(subset(18, 42, 5), (5, 8));
        assert_eq!(superset(42, 48, 5), (8, 11));
        // 2.0 MS/s: one sample per half-bit.
        assert_eq!(trigger_window(6), 2);
        assert_eq!(subset(18, 42, 6), (4, 7));
        assert_eq!(superset(42, 48, 6), (7, 9));
        assert_eq!(trigger_window(1), 6);
    }

    #[test]
    fn test_state_size() {
        let state = core::mem::size_of::<DemodState>();
        let filter = core::mem::size_of::<AddressFilter<512>>();
        let config = core::mem::size_of::<Demodulator>();
        eprintln!("state {state} B, filter<512> {filter} B, config {config} B");
        assert!(state + filter + config <= 16 * 1024, "{state} + {filter}");
        assert!(state <= 8 * 1024 + 256);
    }

    #[test]
    fn test_address_filter() {
        const TTL: u64 = 60 * TICK_HZ as u64;
        let mut f = AddressFilter::<16>::new(TTL);
        assert!(f.is_empty());
        assert!(!f.contains(0x4D2023, 0));
        f.insert(0x4D2023, 0);
        assert!(!f.is_empty());
        assert!(f.contains(0x4D2023, 0));
        assert!(f.contains(0x4D2023, TTL - (1 << 17)));
        assert!(!f.contains(0x4D2023, TTL + (1 << 17)));
        assert!(!f.contains(0x4D2024, 0));
        // Refresh extends the lifetime.
        f.insert(0x4D2023, TTL / 2);
        assert!(f.contains(0x4D2023, TTL + (1 << 17)));
        // Only 24 bits count; larger queries never match.
        f.insert(0xFF4D_2025, 0);
        assert!(f.contains(0x4D2025, 0));
        assert!(!f.contains(0x0100_0000 | 0x4D2025, 0));
        // Overfill: 16 slots, 40 addresses; the newest are all kept and
        // nothing panics.
        for a in 0..40u32 {
            f.insert(0x100 + a, 1_000_000 * u64::from(a));
        }
        assert!(f.contains(0x100 + 39, 40_000_000));
        let kept = (0..40u32)
            .filter(|a| f.contains(0x100 + a, 40_000_000))
            .count();
        assert!((8..=16).contains(&kept), "{kept}");
        // Expired entries are reused.
        let late = 1000 * TTL;
        f.insert(0xABCDEF, late);
        assert!(f.contains(0xABCDEF, late));
        assert!(!f.contains(0x100 + 39, late));
        f.clear();
        assert!(f.is_empty() && !f.contains(0xABCDEF, late));
    }

    #[test]
    fn test_address_filter_many() {
        // A realistic load: 300 aircraft in a 512-entry table.
        let mut f = AddressFilter::<512>::new(AddressFilter::<512>::DEFAULT_TTL);
        let mut rng = Rng::new(3);
        let addrs: Vec<u32> = (0..300)
            .map(|_| rng.next_u64() as u32 & 0xFF_FFFF)
            .collect();
        for &a in &addrs {
            f.insert(a, 0);
        }
        assert!(addrs.iter().all(|&a| f.contains(a, 1)));
        let strangers = (0..if cfg!(miri) { 500 } else { 10_000 })
            .filter(|_| f.contains(rng.next_u64() as u32 & 0xFF_FFFF, 1))
            .count();
        assert!(strangers <= 2, "{strangers}");
    }

    // ---- Synthetic scenarios ------------------------------------------

    /// A frame with valid parity for its format: PI formats get the CRC
    /// (DF11: XOR the interrogator code `iid`), AP formats the CRC XOR the
    /// address.
    fn with_parity(mut f: Vec<u8>, overlay: u32) -> Vec<u8> {
        let n = f.len();
        let p = crc::crc24(&f[..n - 3]) ^ overlay;
        f[n - 3..].copy_from_slice(&p.to_be_bytes()[1..]);
        f
    }

    /// Modulate `frames` (bytes, start in samples, amplitude) over noise.
    fn synth(rate: u32, total: usize, frames: &[(Vec<u8>, f64, f64)], seed: u64) -> Vec<u8> {
        let mut m = Modulator::new(rate, SIGMA, seed, total);
        for (f, start, amp) in frames {
            m.add(f, *start, *amp);
        }
        m.bytes()
    }

    /// Amplitude (LSB) for a pulse-to-noise ratio in dB.
    fn amp_db(snr_db: f64) -> f64 {
        libm::sqrt(2.0 * SIGMA * SIGMA * libm::pow(10.0, snr_db / 10.0))
    }

    /// A DF11 with interrogator code 0 whose parity bit with syndrome
    /// `1 << b` is made ambiguous (its pulse missing: noise in both
    /// halves) comes out as
    /// code 0, with one repaired bit if it was sliced wrong; a clean
    /// one-bit code (II 8) right after it is kept as sent.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_df11_doubtful_code_bit() {
        let ic0 = with_parity(std::vec![0x5D, 0x4D, 0x20, 0x23, 0, 0, 0], 0);
        let ii8 = with_parity(std::vec![0x5D, 0x4D, 0x20, 0x23, 0, 0, 0], 8);
        let a = amp_db(22.0);
        let mut repaired = 0;
        for rate in [2_400_000u32, 2_000_000] {
            let us = f64::from(rate) / 1e6;
            for b in 0..7 {
                // Preamble (4 pulses), then one pulse per bit.
                let k = 55 - b;
                let mut m = Modulator::new(rate, SIGMA, 100 + b as u64, (400.0 * us) as usize);
                let start = 50.0 * us + 0.1 * b as f64;
                let mut pulses = Modulator::pulses(&ic0);
                pulses.remove(4 + k);
                m.add_pulses(&pulses, start, a);
                m.add(&ii8, 250.0 * us + 0.6, a);
                let d = Demodulator::new(rate).unwrap();
                let (got, _) = run_blocks(&d, &m.bytes(), 1 << 20);
                let summary: Vec<(String, u8)> = got
                    .iter()
                    .map(|f| (hex(f.bytes()), f.repaired_bits))
                    .collect();
                assert_eq!(summary.len(), 2, "{rate} b{b}: {summary:?}");
                assert_eq!(summary[0].0, hex(&ic0), "{rate} b{b}: {summary:?}");
                assert_eq!(summary[1], (hex(&ii8), 0), "{rate} b{b}");
                repaired += usize::from(summary[0].1);
            }
        }
        // The ambiguous bit was sliced wrong (and repaired) some of the time.
        assert!(repaired > 0);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_formats_and_timestamps() {
        let addr = 0x4D2023u32;
        let df17 = with_parity(
            std::vec![
                0x8D, 0x4D, 0x20, 0x23, 0x58, 0x7F, 0x34, 0x5E, 0x35, 0x83, 0x7E, 0, 0, 0
            ],
            0,
        );
        let df11 = with_parity(std::vec![0x5D, 0x4D, 0x20, 0x23, 0, 0, 0], 22); // SI 6
        let df4 = with_parity(std::vec![0x20, 0x00, 0x0F, 0x1F, 0, 0, 0], addr);
        let df20 = with_parity(
            std::vec![
                0xA0, 0x00, 0x18, 0x38, 0xCA, 0x38, 0x00, 0x31, 0x44, 0x00, 0x00, 0, 0, 0
            ],
            addr,
        );
        // A DF4 from an aircraft never heard on a PI format: rejected.
        let stranger = with_parity(std::vec![0x20, 0x00, 0x0F, 0x1F, 0, 0, 0], 0xABCDEF);
        for rate in [2_400_000u32, 2_000_000] {
            let us = f64::from(rate) / 1e6;
            let a = amp_db(25.0);
            let frames = std::vec![
                (df4.clone(), 100.0 * us + 0.3, a), // before the address is known
                (df17.clone(), 300.0 * us + 0.25, a),
                (df11.clone(), 500.0 * us + 0.5, a),
                (df4.clone(), 700.0 * us + 0.75, a),
                (df20.clone(), 900.0 * us + 0.1, a),
                (stranger.clone(), 1100.0 * us, a),
            ];
            let bytes = synth(rate, (1300.0 * us) as usize, &frames, 11);
            let d = Demodulator::new(rate).unwrap();
            let (got, _) = run_blocks(&d, &bytes, 1000);
            let hexes: Vec<String> = got.iter().map(|f| hex(f.bytes())).collect();
            assert_eq!(
                hexes,
                [hex(&df17), hex(&df11), hex(&df4), hex(&df20)],
                "{rate}"
            );
            assert_eq!(got[1].address, addr);
            assert_eq!(got[2].address, addr);
            assert_eq!(got[3].address, addr);
            let tps = f64::from(d.ticks_per_sample());
            for (f, k) in got.iter().zip([1, 2, 3, 4]) {
                let want = frames[k].1 * tps;
                let got_t = f.timestamp as f64;
                assert!(
                    (got_t - want).abs() <= 2.0,
                    "{rate}: ts {got_t} want {want:.1}"
                );
                assert_eq!(
                    u64::from(f.phase),
                    f.timestamp % d.ticks_per_sample() as u64
                );
                assert_eq!(f.repaired_bits, 0);
                // 25 dB over σ = 4 LSB: amplitude 101 LSB ≈ −2 dBFS; the box
                // response loses up to 3 dB of a pulse that straddles
                // samples (the power of a partly covered sample goes with
                // the square of the cover).
                let want_db = 20.0 * libm::log10(a / 127.4);
                let err = f64::from(f.signal_dbfs) - want_db;
                assert!(err > -3.5 && err < 0.5, "{} vs {want_db}", f.signal_dbfs);
            }
        }
    }

    /// A slice of `bytes` with confident bits except `weak` (confidence 1).
    fn fake_slice(bytes: &[u8], weak: &[usize]) -> Slice {
        let n = bytes.len() * 8;
        let mut s = Slice {
            bytes: [0; 14],
            n,
            e1: [0; LONG],
            e0: [0; LONG],
        };
        s.bytes[..bytes.len()].copy_from_slice(bytes);
        for k in 0..n {
            let one = bytes[k / 8] >> (7 - k % 8) & 1 == 1;
            let (hi, lo) = if weak.contains(&k) {
                (1001, 1000)
            } else {
                (100_000 + k as u32, 100)
            };
            (s.e1[k], s.e0[k]) = if one { (hi, lo) } else { (lo, hi) };
        }
        s
    }

    #[test]
    fn test_repair_policy() {
        let d = Demodulator::new(2_400_000).unwrap();
        let mut filter = Filter::new(Filter::DEFAULT_TTL);
        let mut rng = Rng::new(21);
        let good = random_df17(&mut rng);
        let flip = |b: &mut [u8], k: usize| b[k / 8] ^= 0x80 >> (k % 8);
        // Any single bit outside the DF: syndrome repair.
        let mut bad = good;
        flip(&mut bad, 60);
        let f = d.repair(&fake_slice(&bad, &[]), 0, 0, 5, &filter).unwrap();
        assert_eq!((f.bytes(), f.repaired_bits), (&good[..], 1));
        // Two weak bits: soft repair among the least confident.
        let mut bad = good;
        flip(&mut bad, 30);
        flip(&mut bad, 77);
        let f = d
            .repair(&fake_slice(&bad, &[30, 77, 9]), 0, 0, 5, &filter)
            .unwrap();
        assert_eq!((f.bytes(), f.repaired_bits), (&good[..], 2));
        // ... but not when they are confident, nor with soft repair off
        // (unless the exhaustive 2-bit repair is on).
        assert!(d.repair(&fake_slice(&bad, &[]), 0, 0, 5, &filter).is_none());
        let off = d.with_soft_repair(8, 0);
        assert!(
            off.repair(&fake_slice(&bad, &[30, 77]), 0, 0, 5, &filter)
                .is_none()
        );
        let two = off.with_two_bit_repair(true);
        let f = two
            .repair(&fake_slice(&bad, &[]), 0, 0, 5, &filter)
            .unwrap();
        assert_eq!((f.bytes(), f.repaired_bits), (&good[..], 2));
        // A DF bit is never repaired.
        let mut bad = good;
        flip(&mut bad, 2);
        assert!(
            two.repair(&fake_slice(&bad, &[2]), 0, 0, 5, &filter)
                .is_none()
        );
        // DF11: one bit at most.
        let df11 = with_parity(std::vec![0x5D, 0x4D, 0x20, 0x23, 0, 0, 0], 0);
        let mut bad = df11.clone();
        flip(&mut bad, 20);
        let f = two
            .repair(&fake_slice(&bad, &[]), 0, 0, 5, &filter)
            .unwrap();
        assert_eq!((f.bytes(), f.repaired_bits), (&df11[..], 1));
        flip(&mut bad, 40);
        assert!(
            two.repair(&fake_slice(&bad, &[20, 40]), 0, 0, 5, &filter)
                .is_none()
        );
        // AP: one weak bit giving a known address.
        let df4 = with_parity(std::vec![0x20, 0x00, 0x0F, 0x1F, 0, 0, 0], 0x4D2023);
        let mut bad = df4.clone();
        flip(&mut bad, 33);
        assert!(
            d.repair(&fake_slice(&bad, &[33]), 0, 0, 5, &filter)
                .is_none()
        );
        filter.insert(0x4D2023, 0);
        let f = d
            .repair(&fake_slice(&bad, &[33]), 0, 0, 5, &filter)
            .unwrap();
        assert_eq!(
            (f.bytes(), f.repaired_bits, f.address),
            (&df4[..], 1, 0x4D2023)
        );
        assert!(d.repair(&fake_slice(&bad, &[]), 0, 0, 5, &filter).is_none());
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_one_bit_error_end_to_end() {
        // A reply whose bit 50 was sent wrong (pulse in the other half) at
        // 20 dB: repaired by the syndrome, reported with 1 repaired bit.
        for rate in [2_400_000u32, 2_000_000] {
            let us = f64::from(rate) / 1e6;
            let mut rng = Rng::new(21);
            let good = random_df17(&mut rng);
            let mut bad = good;
            bad[6] ^= 0x20;
            let frames = std::vec![(bad.to_vec(), 30.0 * us + 0.2, amp_db(20.0))];
            let bytes = synth(rate, (200.0 * us) as usize, &frames, 9);
            let (got, _) = run_blocks(&Demodulator::new(rate).unwrap(), &bytes, 4096);
            assert_eq!(got.len(), 1, "{got:?}");
            assert_eq!((got[0].bytes(), got[0].repaired_bits), (&good[..], 1));
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_overlap_second_chance() {
        // A weak reply garbled 40 µs in by a reply 12 dB stronger: the
        // strong one, whose preamble lies inside the weak one, is found.
        for rate in [2_400_000u32, 2_000_000] {
            let us = f64::from(rate) / 1e6;
            let mut rng = Rng::new(8);
            let weak = random_df17(&mut rng);
            let strong = random_df17(&mut rng);
            let frames = std::vec![
                (weak.to_vec(), 20.0 * us, amp_db(14.0)),
                (strong.to_vec(), 60.0 * us + 0.3, amp_db(26.0)),
            ];
            let bytes = synth(rate, (250.0 * us) as usize, &frames, 4);
            let (got, _) = run_blocks(&Demodulator::new(rate).unwrap(), &bytes, 4096);
            assert!(
                got.iter().any(|f| f.bytes() == &strong[..]),
                "{rate}: {got:?}"
            );
            assert!(
                got.iter()
                    .all(|f| f.bytes() == &strong[..] || f.bytes() == &weak[..])
            );
        }
    }

    #[test]
    fn test_empty_and_tiny_inputs() {
        let d = Demodulator::new(2_400_000).unwrap();
        let mut st = DemodState::new();
        let mut f = Filter::new(0);
        let mut n = 0;
        d.process(&mut st, &mut f, &[], |_| n += 1);
        d.process(&mut st, &mut f, &[200], |_| n += 1);
        d.process(&mut st, &mut f, &[], |_| n += 1);
        d.process(&mut st, &mut f, &[10, 250, 3], |_| n += 1);
        assert_eq!(st.stats().samples, 2);
        d.finish(&mut st, &mut f, |_| n += 1);
        assert_eq!(n, 0);
        assert_eq!(st.noise_dbfs(), None.or(st.noise_dbfs()));
    }

    /// A short synthetic stream with a DF17, a DF11 and an AP DF4 (for the
    /// property tests: small enough for miri).
    fn short_stream() -> (Vec<u8>, usize) {
        static STREAM: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        (STREAM.get_or_init(make_short_stream).clone(), 3)
    }

    fn make_short_stream() -> Vec<u8> {
        let rate = 2_400_000;
        let df17 = with_parity(
            std::vec![
                0x8D, 0x4D, 0x20, 0x23, 0x58, 0x7F, 0x34, 0x5E, 0x35, 0x83, 0x7E, 0, 0, 0
            ],
            0,
        );
        let df11 = with_parity(std::vec![0x5D, 0x4D, 0x20, 0x23, 0, 0, 0], 0);
        let df4 = with_parity(std::vec![0x20, 0x00, 0x0F, 0x1F, 0, 0, 0], 0x4D2023);
        let a = amp_db(20.0);
        let frames = std::vec![(df17, 10.3, a), (df11, 320.6, a), (df4, 500.0, a)];
        synth(rate, 700, &frames, 2)
    }

    #[test]
    fn test_short_stream() {
        let (bytes, n) = short_stream();
        let (got, _) = run_blocks(&Demodulator::new(2_400_000).unwrap(), &bytes, 333);
        assert_eq!(got.len(), n, "{got:?}");
        assert_plausible(&got);
    }

    /// Regression (fuzz `demod`): a stream fed one byte per call filled
    /// the history without ever scanning (the odd-byte path pushed the
    /// sample but did not scan), so samples past 2048 were dropped and
    /// `finish` hit "no room in the history".
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_one_byte_blocks() {
        let df11 = std::vec![0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xE3];
        let bytes = synth(2_000_000, 3000, &[(df11.clone(), 2600.3, amp_db(25.0))], 5);
        let d = Demodulator::new(2_000_000).unwrap();
        let (whole, stats) = run_blocks(&d, &bytes, bytes.len());
        assert_eq!(whole.len(), 1);
        assert_eq!(whole[0].bytes(), &df11[..]);
        let (one, one_stats) = run_blocks(&d, &bytes, 1);
        assert_eq!(one, whole);
        assert_eq!(one_stats.samples, stats.samples);
    }

    proptest::proptest! {
        #![proptest_config(crate::testing::proptest_config())]

        #[test]
        fn prop_block_split_invariance(cuts in proptest::collection::vec(0usize..1400, 0..6)) {
            let (bytes, n) = short_stream();
            let d = Demodulator::new(2_400_000).unwrap();
            let (whole, _) = run_blocks(&d, &bytes, bytes.len());
            proptest::prop_assert_eq!(whole.len(), n);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            cuts.sort_unstable();
            let mut st = DemodState::new();
            let mut f = Filter::new(Filter::DEFAULT_TTL);
            let mut out = Vec::new();
            let mut prev = 0;
            for c in cuts.into_iter().chain([bytes.len()]) {
                d.process(&mut st, &mut f, &bytes[prev..c], |fr| out.push(*fr));
                prev = c;
            }
            d.finish(&mut st, &mut f, |fr| out.push(*fr));
            proptest::prop_assert_eq!(out, whole);
        }

        #[test]
        fn prop_no_panic_on_arbitrary_bytes(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..if cfg!(miri) { 300 } else { 3000 }),
            block in 1usize..700,
            rate in proptest::sample::select(std::vec![2_400_000u32, 2_000_000, 3_000_000, 4_000_000, 6_000_000, 12_000_000]),
        ) {
            let d = Demodulator::new(rate).unwrap().with_two_bit_repair(true);
            let (got, stats) = run_blocks(&d, &bytes, block);
            proptest::prop_assert_eq!(stats.samples, (bytes.len() / 2) as u64);
            for f in &got {
                proptest::prop_assert!(f.bytes().len() == 7 || f.bytes().len() == 14);
            }
        }
    }
}
