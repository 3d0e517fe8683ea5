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
//!    of them, averaged over the last 32 such updates (steady to ±6 %). On a quiet channel the trigger is at 2 × (step 12).
//! 3. **Pulse 3**: the best `w`-sample window of the 3.5 µs pulse must
//!    reach a quarter of pulse 1.
//! 4. **Coarse check** on whole samples: pulse 1 above 2 × and pulses 2–4
//!    above 1.5 × the mean of the quiet windows (1.5–3.5 µs, 5–8 µs).
//! 5. **Fine preamble** at every tick phase over two samples (10 phases at
//!    2.4 MS/s, 12 at 2.0): the four pulse energies must each exceed
//!    1.5 × the long quiet zones and 2.5 × the noise floor (on a quiet
//!    channel, one faded pulse may be down to 1.25 × if the pulses' mean
//!    is above 3.5 ×), the 0.5 µs gaps
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
//!    error; DF11 one bit (assuming interrogator code 0). Beyond that, only
//!    towards a known address, by a likelihood-ordered search
//!    ([`crc::repair_likeliest`]): the flip sets of the 12 least confident
//!    bits in increasing `Σ|E₁ − E₀|` (the log-likelihood ratio of a bit is
//!    `A·(E₁ − E₀)/σ²`, so this is decreasing probability), the first 64
//!    sets of up to 4 flips; AP formats take the one set that gives a known
//!    address, DF11 the one that gives remainder 0 with a known AA, and
//!    none if two sets do. A frame that cannot be repaired passes with
//!    probability about `64·A/2²⁴` (`A` known addresses). Optionally
//!    ([`Demodulator::with_known_es_repair`], off by default) DF17/18 whose
//!    AA is known get the same search beyond 3 flips. The DF bits are never
//!    changed.
//! 9. **Second chances: sequence estimation**, for replies at least ~7 dB
//!    above the noise floor. The receiver's response and the sampling
//!    phase spill each pulse into the neighbouring half-bits (at 2.0 MS/s
//!    a sample *is* a half-bit). First the frame is re-sliced by a 2-state
//!    Viterbi search whose expected half-bit energies for each pair of
//!    neighbouring bits are read off the preamble and refined on the frame
//!    itself (cheap; it copes with a weaker reply on top), on the first
//!    phase sliced. Then, at 2.0, 2.4 and 3 MS/s, by a Viterbi search on
//!    the *sample amplitudes* with a box model of the pulses, where two
//!    pulses in one sample add in amplitude (one carrier), at the timing
//!    of the best fit to the preamble and a tick either side
//!    (module `sequence`): it reads replies sampled half a
//!    sample off at 2.0 MS/s, whose half-bit energies tie. The first
//!    24 bits are read at all three timings; the whole reply only at
//!    the fitted one and at the neighbour whose first bits the model
//!    fits better, if one does (reading all three in full found 0.2
//!    points more of the replies at 1,500 replies/s, 40.7 against
//!    40.5 %, for 3.6 instructions per sample more). Each is validated
//!    and repaired again. Last, **coherently** (module `coherent`): the
//!    first plain slice's bits, right for most bits even when the frame
//!    is not, give the reply's carrier offset and phase; the samples
//!    projected onto that carrier (pulse amplitude plus real noise of
//!    half the power, zero-mean where there is no pulse) go through the
//!    same amplitude search, at the timing within two ticks that the
//!    projected preamble fits best. It reads weak replies that
//!    square-law detection cannot: 30 → 49 of 150 isolated replies at
//!    9 dB (2.4 MS/s). At about 70,000 instructions an attempt it is
//!    rationed by a token bucket, [`COHERENT_PER_S`] attempts per second
//!    of signal on average ([`Demodulator::with_coherent`]), four times
//!    as many on a quiet channel (step 12): at 250 replies/s it makes
//!    61 attempts a second and reads 6.8 replies a second (27 and 4.5
//!    with the busy channel's budget and threshold), a dense channel is
//!    held to the budget.
//! 10. After a valid frame, scanning resumes after its last bit; after a
//!     failure it resumes one sample later, so a reply starting inside a
//!     garbled one still gets its chance (the same preamble is not sliced
//!     twice).
//! 11. **Successive interference cancellation** (module `cancel`, at 2.0,
//!     2.4 and 3 MS/s; [`Demodulator::with_cancellation`]). A valid
//!     frame's half-bit energies are checked for energy its own pulses do
//!     not explain: its empty half-bits against the spill measured on its
//!     own preamble, its last 8 bits alone (a reply whose preamble lies
//!     under them), its preamble's far quiet zones against the noise (one
//!     that ends under it). About a quarter of the replies pass; for
//!     those the reply is rebuilt from its bits (box pulses through five
//!     complex taps, the carrier offset from lag products, least squares)
//!     and, if the residual still holds more than noise, subtracted from
//!     the raw `cu8` pairs the state keeps beside the prefix sums (which
//!     are updated). Then every trigger position from a reply-length
//!     before it up to it is tried again (a weaker reply that started
//!     first and failed under it, or whose preamble it covered), frames
//!     found there are passed on (and subtracted) first, then the frame
//!     itself, and scanning resumes one sample after its trigger, through
//!     the cleaned span (a weaker reply that starts inside it). Output
//!     stays in timestamp order; a frame identical to the last one within
//!     two samples is not passed on twice.
//! 12. **Load-aware sensitivity** (module `quiet`;
//!     [`Demodulator::with_quiet`]). The frames passed on in each quarter
//!     second of signal are counted; while they come to fewer than
//!     [`QUIET_PER_S`] a second, the next quarter second is scanned with
//!     the trigger at 2 × the noise floor (a first pulse below 3 × only
//!     if it and the third together pass 6 ×) and a preamble with one
//!     pulse faded (each pulse above 1.25 ×, their mean above 3.5 ×)
//!     admitted, the second chances (step 9) open to preambles whose
//!     pulses average above 3 × (5 × on a busy channel), and the coherent
//!     one's budget four times [`COHERENT_PER_S`].
//!     Weak replies then reach the second chances, the coherent one above
//!     all; the CPU this costs grows with the reply rate and a quiet
//!     channel has it to spare. The first quarter second is strict.
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
//! flushes the tail at the end of a stream. With cancellation the state
//! keeps a reply-length of history behind the scan position, so that a
//! cancellation can go back over it whatever the block boundaries.
//!
//! # Cost
//!
//! x86-64 instructions per input sample (callgrind, release, including the
//! byte-to-power conversion; bench cases `modes/demod/*`, `scripts/ips`):
//! 36.7 on the 2.4 MS/s capture case, 13.1 on receiver noise (σ = 4 LSB),
//! 11.0 on full-scale uniform noise, 100.2 on the 2.0 MS/s `modes1` file
//! (silence stripped: replies back to back, every pulse a trigger). Those
//! runs (200,000 and 400,000 samples) fall within the first quarter
//! second, which is strict; with the quiet-channel thresholds on, as they
//! are after it on all four (`IPS_N=1200000 scripts/ips demod`: 0.5 s
//! and 1 s), 42.4, 17.6, 11.1 and 111.9. When
//! it came, the amplitude sequence search added 7.5 and 11 there (27.3 →
//! 34.8 and 72.8 → 83.8) and recovered 1 and 12 more frames. Cancellation costs
//! 5.0 on the `modes_vs_dump1090` scene at 1,000 replies/s (41.5 → 46.5:
//! copying the byte pairs, the gate on every frame, the fit on a quarter
//! of them, and the search again under the 4 % subtracted) and recovers
//! 2.0 % more of its overlapped replies (25.6 → 27.6 %). The coherent
//! reading added 0.5 and 0.3 on the capture cases (35.5 → 36.0, 102.3 →
//! 102.6), 0.8 at 1,000 replies/s and 1.1 at 1,500 (58.1 → 59.2),
//! nothing on noise. The steady noise floor (`update_noise`, module `preamble`)
//! with the division-free slicer step and the one-sift repair heap took
//! 1,500 replies/s to 58.3 and 1,000 to 43.9 (`modes_vs_dump1090`). State:
//! [`DemodState`] ≈ 12.2 KiB (the power history 8 KiB, its byte pairs
//! 4 KiB) plus the filter (`AddressFilter<512>`: 4 KiB).
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

// Pipeline steps 1–11 above, one module each:
// bytes → power → prefix sums; the state (step 1).
mod history;
// Noise floor, trigger, coarse and fine preamble (steps 2–5).
mod preamble;
// The scan loop that runs a candidate through steps 3–10.
mod scan;
// Bits and confidences from half-bit energies (step 6).
mod slicer;
// CRC validation by format and bit-error repair (steps 7–8).
mod repair;
// Sequence-estimation re-slice (step 9).
mod mlse;
// Sequence estimation on sample amplitudes (step 9).
mod sequence;
// Successive interference cancellation (step 11).
mod cancel;
// Coherent second chance (step 9).
mod coherent;
mod quiet;
// Known ICAO addresses for the AP formats.
mod address_filter;

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;

pub use address_filter::AddressFilter;
pub use history::{DemodState, DemodStats, HISTORY};

use super::crc;
use super::frame::DownlinkFormat;
use super::time::Ticks;
use history::power;
use preamble::trigger_window;

/// 12 MHz timestamp ticks per second.
pub const TICK_HZ: u32 = super::time::Ticks::HZ as u32;

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
/// Ticks of the four preamble pulses from the preamble start (0, 1, 3.5
/// and 4.5 µs).
const PREAMBLE_PULSES: [usize; 4] = [0, 12, 42, 54];
/// Fewest ticks per sample (3 MS/s) of the searches on a box model of the
/// pulses: the amplitude sequence search, cancellation and the coherent
/// reading. At 6 and 12 MS/s a pulse covers whole samples.
const MIN_T: usize = 4;

/// Default budget of the coherent second chance, attempts per second of
/// signal ([`Demodulator::with_coherent`]).
pub const COHERENT_PER_S: u16 = 30;

/// Default channel load, in frames decoded per second, below which the
/// demodulator listens harder ([`Demodulator::with_quiet`]).
pub const QUIET_PER_S: u16 = 300;

/// Whether the 5-bit DF code `df` is an AP format
/// ([`DownlinkFormat::has_address_parity`]): accepted only for a known
/// address.
#[inline]
const fn is_ap(df: u8) -> bool {
    DownlinkFormat::code_has_address_parity(df)
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
    ap_sets: u16,
    ap_flips: u8,
    es_sets: u16,
    es_flips: u8,
    mlse: bool,
    coherent_per_s: u16,
    quiet_per_s: u16,
    quiet_trigger_q4: u16,
    sic: bool,
}

/// `candidates` capped at [`crc::MAX_CANDIDATES`] (24).
const fn at_most_max_candidates(candidates: u8) -> u8 {
    if candidates as usize > crc::MAX_CANDIDATES {
        crc::MAX_CANDIDATES as u8
    } else {
        candidates
    }
}

/// `sets` capped at [`crc::MAX_SETS`].
const fn sets_at_most_max(sets: u16) -> u16 {
    if sets as usize > crc::MAX_SETS {
        crc::MAX_SETS as u16
    } else {
        sets
    }
}

/// `flips` capped at [`crc::MAX_LIKELY_BITS`].
const fn flips_at_most_max(flips: u8) -> u8 {
    if flips > crc::MAX_LIKELY_BITS {
        crc::MAX_LIKELY_BITS
    } else {
        flips
    }
}

impl Demodulator {
    /// A demodulator for `rate_hz` samples per second: 2,000,000 or
    /// 2,400,000 for an RTL-SDR, or any of 3, 4, 6, 12 MS/s (12 MHz divided
    /// by 1 … 6). Defaults: 1-bit syndrome repair for DF11/17/18, soft repair
    /// of up to 3 bits among the 24 least confident for DF17/18, the 64 most
    /// likely sets of up to 4 flips among the 12 least confident for AP
    /// formats and DF11 towards a known address, the DF17/18 search beyond
    /// 3 flips off, the sequence second chances on (the coherent one at
    /// [`COHERENT_PER_S`] attempts per second),
    /// exhaustive 2-bit repair off, trigger at 3 × the noise floor (2 ×
    /// while fewer than [`QUIET_PER_S`] frames a second are decoded).
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
            ap_candidates: 12,
            ap_sets: 64,
            ap_flips: 4,
            es_sets: 0,
            es_flips: 6,
            mlse: true,
            coherent_per_s: COHERENT_PER_S,
            quiet_per_s: QUIET_PER_S,
            // 2·w·μ on a quiet channel.
            quiet_trigger_q4: (32 * w) as u16,
            sic: true,
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
        self.soft_candidates = at_most_max_candidates(candidates);
        self.soft_flips = if max_flips > 3 { 3 } else { max_flips };
        self
    }

    /// Likelihood-ordered repair of AP formats (and of DF11 to interrogator
    /// code 0) among the `candidates` (≤ 24) least confident bits: see
    /// [`Demodulator::with_ap_search`]. 0 disables it. Default 12 (24 found
    /// 15 more frames of 39,291 on the 9 scenes of `with_ap_search`, for
    /// 2.3 more instructions per sample at 1,500 replies/s).
    ///
    /// ```
    /// use airwaves_core::modes::demod::Demodulator;
    /// let d = Demodulator::new(2_400_000).unwrap().with_ap_repair(0);
    /// # let _ = d;
    /// ```
    pub const fn with_ap_repair(mut self, candidates: u8) -> Self {
        self.ap_candidates = at_most_max_candidates(candidates);
        self
    }

    /// The search of AP formats (parity overlaid with the address) and of
    /// DF11 beyond one bit: the `sets` (≤ [`crc::MAX_SETS`]) most likely
    /// sets of up to `max_flips` (≤ 6) flips among the least confident bits
    /// ([`crc::repair_likeliest`]); the one set that gives a known address
    /// (DF11: remainder 0 and a known AA) is taken, none if two do. A frame
    /// that cannot be repaired passes with probability about
    /// `sets · A / 2²⁴` for `A` known addresses: 64 sets and 100 aircraft,
    /// 3.8·10⁻⁴ (4 single flips and 28 pairs, the search this replaced,
    /// 1.9·10⁻⁴). `sets = 0` disables it. Default 64 sets of up to 4
    /// flips: on 9 scenes of `modes_vs_dump1090` (seeds 1–9, 10 s, 1000
    /// replies/s; 38,663 frames and 147 false ones before, dump1090-fa
    /// `--fix-2bit` 21,960 and 201) 32 sets gave +345 frames and −2 false
    /// ones, 64 sets +613 and +5, 128 sets about +900 and +27 (24
    /// candidates). Cost: about 100 instructions per set.
    ///
    /// ```
    /// use airwaves_core::modes::demod::Demodulator;
    /// let d = Demodulator::new(2_400_000).unwrap().with_ap_search(64, 3);
    /// # let _ = d;
    /// ```
    pub const fn with_ap_search(mut self, sets: u16, max_flips: u8) -> Self {
        self.ap_sets = sets_at_most_max(sets);
        self.ap_flips = flips_at_most_max(max_flips);
        self
    }

    /// DF17/18 repair beyond the soft repair's flips, for a frame whose AA
    /// as sliced is a known address: the `sets` (≤ [`crc::MAX_SETS`])
    /// most likely sets of up to `max_flips` (≤ 6) flips among the least
    /// confident bits, more than the soft repair's, that give remainder 0
    /// and leave a known AA; none if two do. A frame of a known aircraft
    /// that cannot be repaired passes with probability about `sets / 2²⁴`
    /// (128 sets: 8·10⁻⁶). `sets = 0` disables it, the default: on the 9
    /// scenes of [`Demodulator::with_ap_search`] 128 sets of up to 6 flips
    /// found 4 more frames (of 39,291) for 1.7 more instructions per sample
    /// at 1,500 replies/s, and 512 sets (before [`crc::MAX_SETS`] was cut
    /// to 128) 43 more for 5.7, no false one.
    ///
    /// ```
    /// use airwaves_core::modes::demod::Demodulator;
    /// let d = Demodulator::new(2_400_000).unwrap().with_known_es_repair(0, 0);
    /// # let _ = d;
    /// ```
    pub const fn with_known_es_repair(mut self, sets: u16, max_flips: u8) -> Self {
        self.es_sets = sets_at_most_max(sets);
        self.es_flips = flips_at_most_max(max_flips);
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

    /// The coherent second chance (module `coherent`): a reply that
    /// nothing else decoded is read again on its samples projected onto
    /// its own carrier, at most `per_second` times per second of signal
    /// on average (a token bucket; 0 disables it). Default
    /// [`COHERENT_PER_S`]. It acts at 2.0, 2.4 and 3 MS/s with
    /// [`with_mlse`](Self::with_mlse) on.
    ///
    /// ```
    /// use airwaves_core::modes::demod::Demodulator;
    /// let d = Demodulator::new(2_400_000).unwrap().with_coherent(0);
    /// # let _ = d;
    /// ```
    pub const fn with_coherent(mut self, per_second: u16) -> Self {
        self.coherent_per_s = per_second;
        self
    }

    /// Listen harder on a quiet channel: while fewer than `per_second`
    /// frames a second are decoded (counted over each quarter second of
    /// signal, applied to the next), the trigger is at 2 × the noise floor
    /// (or the configured one if lower) instead of 3 ×, and a preamble
    /// with one pulse faded passes the fine check (each pulse above
    /// 1.25 × the noise floor instead of 2.5 ×, if their mean is above
    /// 3.5 ×), the second chances are tried from a pulse mean of 3 ×
    /// (not 5 ×) and the coherent reading gets four times its budget.
    /// Weaker replies reach the second chances (the coherent one reads
    /// some of them); the CPU this costs grows with the reply rate and
    /// the noise (on receiver noise 13.1 → 17.6 instructions per sample
    /// at 2.4 MS/s, on recorded captures 36.7 → 42.4), so a busy
    /// channel keeps the strict thresholds. 0:
    /// always strict (firmware short of cycles). Default [`QUIET_PER_S`].
    ///
    /// ```
    /// use airwaves_core::modes::demod::Demodulator;
    /// let d = Demodulator::new(2_400_000).unwrap().with_quiet(0);
    /// # let _ = d;
    /// ```
    pub const fn with_quiet(mut self, per_second: u16) -> Self {
        self.quiet_per_s = per_second;
        self
    }

    /// Enable (or disable) successive interference cancellation: each
    /// decoded reply under which other energy is left is subtracted from
    /// the history and the span it covered is searched again (module
    /// `cancel`). On by default; it acts at 2.0, 2.4 and 3 MS/s only.
    ///
    /// ```
    /// use airwaves_core::modes::demod::Demodulator;
    /// let d = Demodulator::new(2_400_000).unwrap().with_cancellation(false);
    /// # let _ = d;
    /// ```
    pub const fn with_cancellation(mut self, on: bool) -> Self {
        self.sic = on;
        self
    }

    /// Whether cancellation runs: asked for, and `T` = 4 … 6.
    const fn cancels(&self) -> bool {
        self.sic && self.tps as usize >= MIN_T && self.tps as usize <= HALF
    }

    /// Samples kept before the scan position: with cancellation, a whole
    /// reply and its preamble search span (a reply decoded at the scan
    /// position sends the search back to replies that started under it).
    const fn keep(&self) -> usize {
        if self.cancels() {
            self.look as usize + history::BACK
        } else {
            history::BACK
        }
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
                    state.make_room(self.keep());
                    state.stats.samples += 1;
                    state.push(power(i, q), [i, q]);
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
            state.make_room(self.keep());
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
            state.make_room(self.keep());
            let n = (HISTORY - state.len).min(left);
            if n == 0 {
                debug_assert!(false, "no room in the history");
                return;
            }
            for _ in 0..n {
                // Power 0 is no byte pair's: cancellation leaves it alone.
                state.push(0, [127, 127]);
            }
            left -= n;
            self.scan(state, filter, &mut sink);
        }
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
    pub timestamp: Ticks,
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
