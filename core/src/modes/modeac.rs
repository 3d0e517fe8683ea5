//! Mode A/C reply detector: RTL-SDR `cu8` I/Q bytes in, Mode A/C replies
//! (squawk or Gillham altitude code, SPI) out.
//!
//! # Signal
//!
//! A Mode A/C reply (ICAO Annex 10 Vol IV §3.1.1.6) is a train of 0.45 µs
//! pulses: framing pulses F1 at 0 and F2 at 20.3 µs, between them 13
//! positions at `k · 1.45` µs (`k` = 1…13) carrying
//! `C1 A1 C2 A2 C4 A4 X B1 D1 B2 D2 B4 D4` (X, the middle one, is always
//! empty), and an optional SPI ("ident") pulse at 24.65 µs. Times below are
//! in *positions* of 1.45 µs from F1 (F2 = 14, SPI = 17).
//!
//! # Method
//!
//! 1. **Power and noise.** Each I/Q byte pair becomes the power
//!    `m = (5i − 637)² + (5q − 637)²` (units of (LSB/5)², exact in `u32`),
//!    kept with the raw bytes in a 512-sample ring. The noise floor is the
//!    25th percentile of the mean power of the last 16 blocks of 32
//!    samples, re-estimated every 256 samples (about 0.5 dB low on pure
//!    noise; robust to traffic).
//! 2. **Trigger**, the only per-sample work besides bookkeeping: the power
//!    of two neighbouring samples `P(p) = m[p] + m[p+1]` is a local maximum
//!    above `10^(snr_min/10) / 2` × the noise floor, and the best of
//!    `P` around `p + 20.3 µs` passes the same threshold (a necessary
//!    condition of the amplitude test in step 4, so it loses nothing).
//! 3. **Sub-sample timing.** The centre of F1 and of F2 is the centroid of
//!    the sample amplitudes (less the noise amplitude) over four samples
//!    around each; they must agree to 0.3 µs, and the reply's timing is
//!    their mean.
//! 4. **Pulse amplitudes.** At each expected pulse centre `c` the pulse
//!    amplitude is estimated coherently, as the least-squares fit of a
//!    0.45 µs box pulse to the complex samples it overlaps:
//!    `Â = |Σ wₙ zₙ| / Σ wₙ²`, `wₙ` = overlap of sample `n`
//!    (`[n − ½, n + ½)`) with the pulse `[c − w/2, c + w/2)`. The reference
//!    level `R` is the mean of F1 and F2, which must each reach
//!    `10^(snr_min/20)` × the noise amplitude and lie within 6 dB of each
//!    other.
//! 5. **Shape.** The sample nearest the middle of each gap between
//!    neighbouring positions (F1…F2) and the quiet stretch between F2 and
//!    the SPI position (14.5…16.5) must stay below [`GAP`] × `R`: this
//!    rejects wide pulses (Mode S pulse pairs, overlapped replies) and the
//!    inside of Mode S frames. A pulse pattern of a Mode S preamble (pulses
//!    at 1.0, 3.5, 4.5 µs after F1, quiet at 2.25 µs) is rejected.
//! 6. **Decision.** A position holds a pulse if its amplitude exceeds
//!    [`PRESENCE`] × `R`. A pulse in X rejects the reply (as dump1090
//!    does).
//! 7. **Garble.** A pulse one or two positions before F1 or at positions
//!    18–19 (another reply interleaved on the same 1.45 µs grid, the
//!    "synchronous garble" that no detector can untangle) rejects the
//!    reply. [`ModeAcReply::garbled`] is set when a present pulse is more
//!    than 6 dB above `R` (a stronger overlapping reply) or its amplitude
//!    centroid lies more than 0.2 µs off its position (a pulse of another
//!    reply off the grid).
//! 8. After a reply, scanning resumes after its F2, so the SPI pulse and
//!    the code pulses cannot start a phantom reply.
//!
//! # Output
//!
//! A [`ModeAcReply`] has the 13-bit code in [`IdentityCode`] layout
//! (bit 12 = C1 … bit 0 = D4, the order of the pulses), its squawk, its
//! Mode C altitude where the code is a valid Gillham code, SPI, the 12 MHz
//! timestamp of the leading edge of F1 (the demodulator's convention, see
//! [`demod`](super::demod): `ticks = t · tps` for a leading edge `t`
//! samples into the stream, `tps` = 5 at 2.4 MS/s, 6 at 2.0 MS/s) and the
//! signal level. [`ModeAcReply::to_bytes`] gives the 2-byte form that
//! dump1090 writes in AVR (`*HHHH;`) and Beast (type `'1'`) output: the
//! squawk as four hex nibbles `0xABCD`, with the SPI flag in bit 7
//! (`0x0080`). A transponder answers the same way to Mode A and Mode C
//! interrogations, so whether a code is an identity or an altitude is not
//! known from the reply: both readings are given.
//!
//! # Streaming
//!
//! Bytes are fed in blocks of any size (odd counts too); the output does
//! not depend on how the stream is split (property-tested). A candidate is
//! judged once 37.3 µs of samples after it have arrived;
//! [`ModeAcDetector::finish`] judges the last ones with silence after the
//! end of the stream.
//!
//! # Cost
//!
//! [`ModeAcState`] is 3.6 KiB (asserted in a test). x86-64 instructions
//! per input sample (callgrind, release, `airwaves decode --modeac` minus
//! `airwaves decode` on the same file): about 58 on a 1 s
//! `airwaves scene` (1000 Mode S and 500 Mode A/C replies per second),
//! 45 on receiver noise alone.
//!
//! # Measured
//!
//! Unit tests (noise σ = 3 LSB, SNR = A²/2σ², random codes, SPI, sub-sample
//! offsets, ±150 kHz carriers): recall 2.4 / 2.0 MS/s ≈ 70 % / 54 % at
//! 15 dB, 98 % / 92 % at 18 dB, 99 % / 97 % at 20 dB, 100 % at 28 dB; no
//! reply from 2 M samples of noise; from 3000 Mode S frames none at
//! 2.4 MS/s and 2 at 2.0 MS/s. Overlapping replies are often dropped; a
//! reply followed 18–21 µs later by another can still come out with a
//! wrong code and no flag (about 1 in 5 outputs in that test): a known
//! weakness. On the `scene` file above (31-tap receiver filter), 98 of
//! 100 non-overlapped replies at ≥ 20 dB are found with the right code.
//!
//! # Example
//!
//! ```
//! use airwaves_core::modes::modeac::{ModeAcDetector, ModeAcState};
//! use airwaves_core::modes::modulate::{Burst, Modulator, Quantiser};
//! use airwaves_core::modes::frame::IdentityCode;
//! use airwaves_core::C32;
//!
//! let m = Modulator::new(2.4e6).unwrap();
//! let mut iq = [C32::new(0.0, 0.0); 2000];
//! let code = IdentityCode::from_squawk(0x1200).raw();
//! m.add_mode_ac(code, false, &Burst::new(1000.3, 0.5), &mut iq);
//! let mut bytes = [0u8; 4000];
//! Quantiser::RTL_SDR.block(&iq, &mut bytes);
//!
//! let det = ModeAcDetector::new(2_400_000).unwrap();
//! let mut state = ModeAcState::new();
//! let mut squawks = heapless::Vec::<u16, 4>::new();
//! det.process(&mut state, &bytes, |r| { let _ = squawks.push(r.squawk()); });
//! det.finish(&mut state, |r| { let _ = squawks.push(r.squawk()); });
//! assert_eq!(squawks.as_slice(), &[0x1200]);
//! ```

use core::fmt;
#[cfg(test)]
extern crate std;

use super::altitude::{decode_ac13, decode_id13};
#[cfg(doc)]
use super::frame::IdentityCode;
use super::time::Ticks;

/// Samples kept: a power of two above the longest window (the 120 µs
/// Mode S look-back, 28 µs of reply and margins: 380 samples at 2.4 MS/s).
const RING: usize = 512;
/// Longest Mode S reply, µs: a Mode S preamble up to this long before F1
/// means F1 may lie inside its frame.
const MODE_S_US: f32 = 120.0;
const MASK: u64 = RING as u64 - 1;
/// Samples per noise block.
const CHUNK: u32 = 32;
/// Noise blocks remembered (the floor is the 25th percentile of them).
const CHUNKS: usize = 16;
/// Mode A/C position spacing, µs.
const SPACING_US: f32 = 1.45;
/// Pulse width, µs.
const PULSE_US: f32 = 0.45;
/// Position of F2.
const F2_POS: f32 = 14.0;
/// Position of SPI.
const SPI_POS: f32 = 17.0;
/// Positions (of 1.45 µs from F1) checked for a pulse of another reply.
const GUARDS: [f32; 4] = [-2.0, -1.0, 18.0, 19.0];
/// Positions after F2 that must be quiet (before the SPI pulse).
const QUIET_AFTER_F2: [f32; 5] = [14.5, 15.0, 15.5, 16.0, 16.5];
/// A position holds a pulse if its amplitude exceeds this fraction of the
/// framing-pulse level.
pub const PRESENCE: f32 = 0.55;
/// The middle of a gap must stay below this fraction of the framing-pulse
/// level.
pub const GAP: f32 = 0.6;
/// Full-scale amplitude in power-table units (127.4 LSB × 5).
const FULL_SCALE: f32 = 637.0;

/// `SQ[b] = (5b − 637)²`: the power contribution of one I or Q byte.
static SQ: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut b = 0;
    while b < 256 {
        let d = 5 * b as i32 - 637;
        t[b] = (d * d) as u32;
        b += 1;
    }
    t
};

/// Errors from [`ModeAcDetector::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigError {
    /// The sample rate is not 2,000,000 or 2,400,000 samples/s.
    UnsupportedRate {
        /// The rate asked for, samples/s.
        rate_hz: u32,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnsupportedRate { rate_hz } => write!(
                f,
                "Mode A/C detection at {rate_hz} samples/s is not supported (2000000 or 2400000)"
            ),
        }
    }
}

impl core::error::Error for ConfigError {}

/// One detected Mode A/C reply.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ModeAcReply {
    /// The 13 code pulses, bit 12 = C1 … bit 0 = D4 (the pulse order, the
    /// layout of [`IdentityCode::raw`]); X (bit 6) is always 0.
    pub code: u16,
    /// The SPI (special position identification, "ident") pulse was
    /// present.
    pub spi: bool,
    /// 12 MHz ticks from the first sample of the stream to the leading
    /// edge of F1 (the [`demod`](super::demod) convention).
    pub timestamp: Ticks,
    /// Pulse amplitude (mean of F1 and F2) in dB relative to a full-scale
    /// complex sine (magnitude 127.4 LSB).
    pub signal_dbfs: f32,
    /// Another reply overlapped this one in a way that may have changed
    /// the code (see the [module docs](self#method), step 7).
    pub garbled: bool,
}

impl ModeAcReply {
    /// The Mode A identity (squawk) as four octal digits in hex nibbles
    /// (`0x7500` for 7500).
    ///
    /// ```
    /// use airwaves_core::modes::{modeac::ModeAcReply, time::Ticks};
    /// let r = ModeAcReply { code: 0x0AA2, spi: false, timestamp: Ticks(0), signal_dbfs: -10.0, garbled: false };
    /// assert_eq!(r.squawk(), 0x7500);
    /// ```
    pub fn squawk(&self) -> u16 {
        decode_id13(self.code)
    }

    /// The Mode C pressure altitude, feet, if the code is a valid Gillham
    /// code (D1 and X empty, a valid 100 ft step); `None` otherwise.
    ///
    /// ```
    /// use airwaves_core::modes::{modeac::ModeAcReply, time::Ticks};
    /// // A Gillham code of 50,000 ft; the code of squawk 1200 is no
    /// // altitude (its 100 ft pattern C1 C2 C4 is 000).
    /// let r = |code| ModeAcReply { code, spi: false, timestamp: Ticks(0), signal_dbfs: 0.0, garbled: false };
    /// assert_eq!(r(0b0_0110_0010_0011).altitude_ft(), Some(50_000));
    /// assert_eq!(r(0x0808).altitude_ft(), None);
    /// ```
    pub fn altitude_ft(&self) -> Option<i32> {
        // X (M in AC13) and D1 (Q in AC13) are never set in a Gillham code.
        if self.code & 0x0050 != 0 {
            return None;
        }
        decode_ac13(self.code)
    }

    /// The reply as dump1090 encodes it in its AVR and Beast output: the
    /// squawk nibbles `0xABCD` big-endian, with `0x0080` set for SPI.
    ///
    /// ```
    /// use airwaves_core::modes::{modeac::ModeAcReply, time::Ticks};
    /// let r = ModeAcReply { code: 0x0AA2, spi: true, timestamp: Ticks(0), signal_dbfs: 0.0, garbled: false };
    /// assert_eq!(r.to_bytes(), [0x75, 0x80]);
    /// ```
    pub fn to_bytes(&self) -> [u8; 2] {
        let v = self.squawk() | if self.spi { 0x0080 } else { 0 };
        v.to_be_bytes()
    }
}

/// Mode A/C detector configuration (sample rate and thresholds); the
/// stream state lives in [`ModeAcState`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ModeAcDetector {
    /// 12 MHz ticks per sample.
    tps: u8,
    /// Samples per position (1.45 µs).
    spacing: f32,
    /// Pulse width, samples.
    width: f32,
    /// Samples after a candidate needed to judge it.
    look: u16,
    /// Trigger: `16 · P ≥ trigger · noise`.
    trigger: u32,
    /// Minimum framing-pulse amplitude over the noise amplitude.
    min_amplitude: f32,
}

impl ModeAcDetector {
    /// A detector for 2,000,000 or 2,400,000 samples/s, with framing
    /// pulses required 13 dB above the noise floor.
    ///
    /// ```
    /// use airwaves_core::modes::modeac::ModeAcDetector;
    /// assert!(ModeAcDetector::new(2_400_000).is_ok());
    /// assert!(ModeAcDetector::new(2_000_000).is_ok());
    /// assert!(ModeAcDetector::new(3_000_000).is_err());
    /// ```
    ///
    /// # Errors
    /// [`ConfigError::UnsupportedRate`] for any other rate.
    pub const fn new(rate_hz: u32) -> Result<Self, ConfigError> {
        let (tps, per_us) = match rate_hz {
            2_400_000 => (5u8, 2.4f32),
            2_000_000 => (6, 2.0),
            _ => return Err(ConfigError::UnsupportedRate { rate_hz }),
        };
        // Last sample read: the 8th data bit of a Mode S preamble starting
        // at F2 (20.3 + 16 µs), which is after position 19 (27.55 µs),
        // plus margins for the estimators.
        let look = ((F2_POS * SPACING_US + 17.0) * per_us) as u16 + 4;
        Ok(Self {
            tps,
            spacing: SPACING_US * per_us,
            width: PULSE_US * per_us,
            look,
            trigger: 159, // 13 dB: 16 · 10^1.3 / 2
            min_amplitude: 4.466_836,
        })
    }

    /// Require framing pulses `db` dB above the noise floor (default 13;
    /// clamped to 3…40 dB).
    ///
    /// ```
    /// use airwaves_core::modes::modeac::ModeAcDetector;
    /// let d = ModeAcDetector::new(2_400_000).unwrap().with_min_snr_db(12.0);
    /// assert_eq!(d, ModeAcDetector::new(2_400_000).unwrap().with_min_snr_db(12.0));
    /// ```
    pub fn with_min_snr_db(mut self, db: f32) -> Self {
        let db = if db.is_nan() {
            10.0
        } else {
            db.clamp(3.0, 40.0)
        };
        let ratio = libm::powf(10.0, db / 10.0);
        self.trigger = (ratio * 8.0) as u32;
        self.min_amplitude = libm::sqrtf(ratio);
        self
    }

    /// 12 MHz ticks per input sample (5 at 2.4 MS/s, 6 at 2.0 MS/s).
    pub const fn ticks_per_sample(&self) -> u32 {
        self.tps as u32
    }

    /// Feed `bytes` (interleaved I/Q `cu8`, any length, odd counts
    /// allowed) and call `emit` for every reply judged complete.
    pub fn process<F: FnMut(&ModeAcReply)>(
        &self,
        state: &mut ModeAcState,
        bytes: &[u8],
        mut emit: F,
    ) {
        let mut rest = bytes;
        if let Some(i) = state.odd.take() {
            let Some((&q, tail)) = rest.split_first() else {
                state.odd = Some(i);
                return;
            };
            self.push(state, [i, q], true, &mut emit);
            rest = tail;
        }
        let mut pairs = rest.chunks_exact(2);
        for iq in &mut pairs {
            self.push(state, [iq[0], iq[1]], true, &mut emit);
        }
        if let [i] = pairs.remainder() {
            state.odd = Some(*i);
        }
    }

    /// End of stream: judge the remaining candidates as if silence
    /// followed. The state then starts a new stream.
    pub fn finish<F: FnMut(&ModeAcReply)>(&self, state: &mut ModeAcState, mut emit: F) {
        for _ in 0..self.look {
            self.push(state, [0; 2], false, &mut emit);
        }
        *state = ModeAcState::new();
    }

    /// Append one sample (`real`: from the stream, else end-of-stream
    /// silence of power 0) and judge the candidate `look` samples back.
    #[inline(always)]
    fn push<F: FnMut(&ModeAcReply)>(
        &self,
        s: &mut ModeAcState,
        iq: [u8; 2],
        real: bool,
        emit: &mut F,
    ) {
        let idx = (s.n & MASK) as usize;
        let m = if real {
            SQ[usize::from(iq[0])] + SQ[usize::from(iq[1])]
        } else {
            0
        };
        s.pow[idx] = m;
        s.iq[idx] = if real { iq } else { [0; 2] };
        s.silent[idx] = !real;
        if real {
            s.chunk_acc += m;
            s.chunk_len += 1;
            if s.chunk_len == CHUNK {
                s.chunks[s.chunk_next] = s.chunk_acc;
                s.chunk_next = (s.chunk_next + 1) % CHUNKS;
                s.chunk_filled = (s.chunk_filled + 1).min(CHUNKS as u8);
                // Re-estimate after the first block, then every 8 blocks.
                if s.chunk_filled == 1 || s.chunk_next % 8 == 0 {
                    let mut sorted = s.chunks;
                    let filled = &mut sorted[..usize::from(s.chunk_filled)];
                    filled.sort_unstable();
                    let low = filled[(filled.len() - 1) / 4];
                    s.noise = (low / CHUNK).max(1);
                }
                s.chunk_acc = 0;
                s.chunk_len = 0;
            }
        }
        s.n += 1;
        let look = u64::from(self.look);
        if s.n > look + 2 {
            let p = s.n - 1 - look;
            // The cheap half of the trigger inline; the rest out of line.
            let pp =
                u64::from(s.pow[(p & MASK) as usize]) + u64::from(s.pow[((p + 1) & MASK) as usize]);
            let threshold = u64::from(s.noise) * u64::from(self.trigger);
            if 16 * pp >= threshold && s.noise != 0 && p >= s.next && p >= 16 {
                self.candidate(s, p, emit);
            }
        }
    }

    /// The trigger test at sample `p`; a full judgement if it passes.
    #[inline(never)]
    fn candidate<F: FnMut(&ModeAcReply)>(&self, s: &mut ModeAcState, p: u64, emit: &mut F) {
        if s.noise == 0 {
            return;
        }
        let pair = |k: u64| {
            u64::from(s.pow[(k & MASK) as usize]) + u64::from(s.pow[((k + 1) & MASK) as usize])
        };
        let threshold = u64::from(s.noise) * u64::from(self.trigger);
        let pp = pair(p);
        if 16 * pp < threshold || pair(p - 1) > pp || pair(p + 1) >= pp {
            return;
        }
        let f2 = F2_POS * self.spacing;
        let q0 = p + (f2 + 0.5) as u64;
        let mut q = q0 - 1;
        for k in q0..=q0 + 1 {
            if pair(k) > pair(q) {
                q = k;
            }
        }
        if 16 * pair(q) < threshold {
            return;
        }
        if let Some(r) = self.judge(s, p, q) {
            s.next = q + 2;
            emit(&r);
        }
    }

    /// Complex sample `k` in power-table units (LSB × 5), zero-centred.
    #[inline]
    fn z(s: &ModeAcState, k: u64) -> (f32, f32) {
        let i = (k & MASK) as usize;
        if s.silent[i] {
            return (0.0, 0.0);
        }
        let [a, b] = s.iq[i];
        (
            5.0 * f32::from(a) - FULL_SCALE,
            5.0 * f32::from(b) - FULL_SCALE,
        )
    }

    /// Amplitude of sample `k`.
    #[inline]
    fn amp(s: &ModeAcState, k: u64) -> f32 {
        libm::sqrtf(s.pow[(k & MASK) as usize] as f32)
    }

    /// Centroid (sample coordinates) of the amplitude above the noise over
    /// samples `k − 1 ..= k + 2`.
    fn centroid(s: &ModeAcState, k: u64, na: f32) -> f32 {
        let (mut sw, mut swx) = (0.0f32, 0.0f32);
        for d in 0..4u64 {
            let w = (Self::amp(s, k - 1 + d) - na).max(0.0);
            sw += w;
            swx += w * (d as f32 - 1.0);
        }
        if sw > 0.0 {
            k as f32 + swx / sw
        } else {
            k as f32 + 0.5
        }
    }

    /// Whether the pulse expected at `x` (relative to `base`) has its
    /// amplitude centroid more than 0.2 µs away: a pulse of another reply
    /// off the 1.45 µs grid.
    fn off_grid(&self, s: &ModeAcState, base: u64, x: f32, na: f32) -> bool {
        let k = libm::floorf(x);
        if k < 1.0 {
            return false;
        }
        let cent = Self::centroid(s, base + k as u64, na) - base as f32;
        (cent - x).abs() > 0.2 * self.spacing / SPACING_US
    }

    /// Least-squares amplitude of a box pulse centred at `c` (absolute
    /// sample coordinates, relative to `base`).
    fn pulse(&self, s: &ModeAcState, base: u64, c: f32) -> f32 {
        let half = 0.5 * self.width;
        let (lo, hi) = (c - half, c + half);
        let first = libm::floorf(lo + 0.5);
        let (mut re, mut im, mut ww) = (0.0f32, 0.0f32, 0.0f32);
        let mut n = first;
        while n - 0.5 < hi {
            let w = (hi.min(n + 0.5) - lo.max(n - 0.5)).max(0.0);
            if n >= 0.0 {
                let (a, b) = Self::z(s, base + n as u64);
                re += w * a;
                im += w * b;
                ww += w * w;
            }
            n += 1.0;
        }
        if ww > 0.0 {
            libm::sqrtf(re * re + im * im) / ww
        } else {
            0.0
        }
    }

    /// Whether a Mode S reply at most 10 dB weaker (in power) than a pulse
    /// of amplitude `r` has its preamble start at any sample from 120 µs
    /// (the longest reply) before `f1` to `to`:
    /// the four pulses (0, 1.0, 3.5, 4.5 µs) each hold more than twice the
    /// energy of each quiet stretch of the same length (two samples at
    /// 1.9, 2.5, 5.5 and 6.5 µs), and at least 6 of the first 8 data bits
    /// have a pulse (a sample near the middle of either half above a
    /// quarter of the weakest preamble pair).
    fn mode_s_preamble(&self, s: &ModeAcState, f1: u64, to: u64, r: f32) -> bool {
        let us = self.spacing / SPACING_US;
        let at = |t: f32| (t * us + 0.5) as u64;
        let pulses = [at(0.0), at(1.0), at(3.5), at(4.5)];
        let quiet = [at(1.9), at(2.5), at(5.5), at(6.5)];
        let floor = (0.1 * r * r) as u64;
        let from = f1.saturating_sub(at(MODE_S_US) + 1);
        let e = |k: u64| {
            u64::from(s.pow[(k & MASK) as usize]) + u64::from(s.pow[((k + 1) & MASK) as usize])
        };
        let one = |k: u64| u64::from(s.pow[(k & MASK) as usize]);
        (from..=to).any(|t| {
            let low = pulses.iter().map(|&d| e(t + d)).min().unwrap_or(0);
            if low < floor || quiet.iter().any(|&d| 2 * e(t + d) >= low) {
                return false;
            }
            // The first 8 data bits: a pulse in (nearly) every one.
            let half = low / 4;
            let bits = (0..8u8)
                .filter(|&b| {
                    let e1 = one(t + at(8.25 + f32::from(b)));
                    let e0 = one(t + at(8.75 + f32::from(b)));
                    e1 + e0 >= half
                })
                .count();
            // The frame's length is not read (its first bit is fragile at
            // 2 MS/s): any preamble within 120 µs counts.
            bits >= 6
        })
    }

    /// Full judgement of a candidate with F1 around sample `p` and F2
    /// around sample `q`.
    fn judge(&self, s: &ModeAcState, p: u64, q: u64) -> Option<ModeAcReply> {
        // Work relative to `base` so f32 keeps sub-sample precision.
        let base = p - 12;
        debug_assert!(p >= 16);
        let na = libm::sqrtf(s.noise as f32);
        let f2 = F2_POS * self.spacing;
        let c1 = Self::centroid(s, p, na) - base as f32;
        let c2 = Self::centroid(s, q, na) - base as f32 - f2;
        // F1 and F2 must agree on the timing (20.3 µs apart to within
        // 0.3 µs): a pulse of another reply near F2 does not.
        if (c1 - c2).abs() > 0.3 * self.spacing / SPACING_US {
            return None;
        }
        let c = 0.5 * (c1 + c2);
        let r1 = self.pulse(s, base, c);
        let r2 = self.pulse(s, base, c + f2);
        let floor = self.min_amplitude * na;
        if r1 < floor || r2 < floor || r1 > 2.0 * r2 || r2 > 2.0 * r1 {
            return None;
        }
        let r = 0.5 * (r1 + r2);
        let at = |pos: f32| c + pos * self.spacing;
        let sample_amp = |x: f32| {
            let k = libm::floorf(x + 0.5);
            if k < 0.0 {
                0.0
            } else {
                Self::amp(s, base + k as u64)
            }
        };
        // Gaps F1 … F2 and the quiet stretch after F2.
        let gap_limit = GAP * r;
        for k in 0..14 {
            if sample_amp(at(k as f32 + 0.5)) > gap_limit {
                return None;
            }
        }
        for pos in QUIET_AFTER_F2 {
            if sample_amp(at(pos)) > gap_limit {
                return None;
            }
        }
        // Inside (or overlapping) a Mode S reply: a Mode S preamble from
        // 120 µs before F1 up to F2.
        let f1 = base + c as u64;
        if self.mode_s_preamble(s, f1, f1 + f2 as u64 + 2, r) {
            return None;
        }
        let present = PRESENCE * r;
        let strong = 2.0 * r;
        let mut code = 0u16;
        let mut garbled = false;
        for k in 1..=13u32 {
            let a = self.pulse(s, base, at(k as f32));
            if a > present {
                code |= 1 << (13 - k);
                garbled |= a > strong || self.off_grid(s, base, at(k as f32), na);
            }
        }
        if code & 0x0040 != 0 {
            return None;
        }
        let spi_amp = self.pulse(s, base, at(SPI_POS));
        let spi = spi_amp > present;
        garbled |= spi && (spi_amp > strong || self.off_grid(s, base, at(SPI_POS), na));
        // Another reply (or a Mode S frame) on the same grid: drop.
        if GUARDS
            .iter()
            .any(|&pos| self.pulse(s, base, at(pos)) > present)
        {
            return None;
        }
        let lead = f64::from(c - 0.5 * self.width + 0.5) + base as f64;
        let timestamp = libm::round(lead.max(0.0) * f64::from(self.tps)) as u64;
        let signal_dbfs = 20.0 * libm::log10f((r / FULL_SCALE).max(1e-9));
        Some(ModeAcReply {
            code,
            spi,
            timestamp: Ticks(timestamp),
            signal_dbfs,
            garbled,
        })
    }
}

/// Mode A/C detector state: the last 512 samples (bytes and power), the
/// noise blocks and the scan position (3.6 KiB).
#[derive(Clone)]
pub struct ModeAcState {
    /// Raw I/Q bytes of the last [`RING`] samples.
    iq: [[u8; 2]; RING],
    /// Their power, `(5i − 637)² + (5q − 637)²`.
    pow: [u32; RING],
    /// Samples appended after the end of the stream (silence).
    silent: [bool; RING],
    /// Samples appended since the stream began.
    n: u64,
    /// First sample that may start a reply (after the last reply's F2).
    next: u64,
    /// A pending I byte.
    odd: Option<u8>,
    /// Power sum of the block in progress.
    chunk_acc: u32,
    /// Samples in the block in progress.
    chunk_len: u32,
    /// Power sums of the last blocks.
    chunks: [u32; CHUNKS],
    /// Next slot of `chunks`.
    chunk_next: usize,
    /// Valid slots of `chunks`.
    chunk_filled: u8,
    /// Noise floor: mean power per sample (0 = not yet known).
    noise: u32,
}

impl Default for ModeAcState {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for ModeAcState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModeAcState")
            .field("samples", &self.n)
            .field("noise", &self.noise)
            .finish_non_exhaustive()
    }
}

impl ModeAcState {
    /// Fresh state for a new stream (sample 0 = the next byte pair fed).
    ///
    /// ```
    /// use airwaves_core::modes::modeac::ModeAcState;
    /// assert_eq!(ModeAcState::new().samples(), 0);
    /// ```
    pub const fn new() -> Self {
        Self {
            iq: [[127, 127]; RING],
            pow: [0; RING],
            silent: [false; RING],
            n: 0,
            next: 0,
            odd: None,
            chunk_acc: 0,
            chunk_len: 0,
            chunks: [0; CHUNKS],
            chunk_next: 0,
            chunk_filled: 0,
            noise: 0,
        }
    }

    /// Samples received since [`new`](Self::new).
    pub const fn samples(&self) -> u64 {
        self.n
    }

    /// Noise floor in dBFS (mean power per sample relative to a full-scale
    /// complex sine), `None` before the first 32 samples.
    pub fn noise_dbfs(&self) -> Option<f32> {
        (self.noise > 0).then(|| 10.0 * libm::log10f(self.noise as f32 / (FULL_SCALE * FULL_SCALE)))
    }
}

#[cfg(test)]
mod test {

    use super::*;
    use crate::C32;
    use crate::modes::demod::{AddressFilter, DemodState, Demodulator};
    use crate::modes::encode::{AVR_MAX_LEN, BEAST_MAX_LEN, Timestamp, encode_avr, encode_beast};
    use crate::modes::frame::{AltitudeCode, IdentityCode};
    use crate::modes::modulate::{Burst, Modulator, Quantiser};
    use crate::rng::Rng;
    use crate::testing::proptest_config;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// Receiver noise, LSB rms per component.
    const SIGMA: f64 = 3.0;

    /// Full-scale amplitude (modulator units) for an SNR `A² / (2σ²)` in dB.
    fn amp(snr_db: f64) -> f32 {
        (libm::sqrt(2.0 * SIGMA * SIGMA * libm::pow(10.0, snr_db / 10.0)) / 128.0) as f32
    }

    /// One rendered reply: code, SPI, start (samples), amplitude, carrier.
    #[derive(Clone, Copy, Debug)]
    struct Ac {
        code: u16,
        spi: bool,
        start: f64,
        amp: f32,
        carrier: f32,
    }

    /// `cu8` bytes of `len` samples with the replies, Mode S `frames`
    /// (bytes, start, amplitude) and Gaussian noise.
    fn render(
        rate: f64,
        len: usize,
        acs: &[Ac],
        frames: &[(Vec<u8>, f64, f32)],
        seed: u64,
    ) -> Vec<u8> {
        let m = Modulator::new(rate).unwrap();
        let mut iq = std::vec![C32::new(0.0, 0.0); len];
        for a in acs {
            let b = Burst::new(a.start, a.amp).with_carrier(a.carrier, 0.3);
            m.add_mode_ac(a.code, a.spi, &b, &mut iq);
        }
        for (f, start, a) in frames {
            m.add_mode_s(f, &Burst::new(*start, *a).with_carrier(40e3, 1.0), &mut iq)
                .unwrap();
        }
        let mut rng = Rng::new(seed);
        let s = (SIGMA / 128.0) as f32;
        for z in iq.iter_mut() {
            *z += C32::new(s * rng.normal() as f32, s * rng.normal() as f32);
        }
        let mut bytes = std::vec![0u8; 2 * len];
        Quantiser::RTL_SDR.block(&iq, &mut bytes);
        bytes
    }

    fn run(d: &ModeAcDetector, bytes: &[u8], block: usize) -> Vec<ModeAcReply> {
        let mut s = ModeAcState::new();
        let mut out = Vec::new();
        for chunk in bytes.chunks(block.max(1)) {
            d.process(&mut s, chunk, |r| out.push(*r));
        }
        d.finish(&mut s, |r| out.push(*r));
        out
    }

    /// A random 12-bit code with X empty.
    fn random_code(rng: &mut Rng) -> u16 {
        (rng.next_u64() as u16) & 0x1FBF
    }

    /// `n` replies 150 µs apart (beyond the Mode S look-back) at `snr_db`, random codes, SPI, sub-sample
    /// offsets and carriers.
    fn scene(rate: f64, n: usize, snr_db: f64, seed: u64) -> (Vec<Ac>, Vec<u8>) {
        let mut rng = Rng::new(seed);
        let per_us = rate / 1e6;
        let acs: Vec<Ac> = (0..n)
            .map(|i| Ac {
                code: random_code(&mut rng),
                spi: rng.uniform() < 0.2,
                start: (150.0 + 150.0 * i as f64) * per_us + rng.uniform(),
                amp: amp(snr_db),
                carrier: (rng.uniform() * 300e3 - 150e3) as f32,
            })
            .collect();
        let len = ((300.0 + 150.0 * n as f64) * per_us) as usize;
        let bytes = render(rate, len, &acs, &[], seed ^ 0x55);
        (acs, bytes)
    }

    /// Fraction of `acs` found with the right code, SPI and timestamp
    /// (±3 ticks), and the number of outputs that match no reply.
    fn score(d: &ModeAcDetector, acs: &[Ac], got: &[ModeAcReply]) -> (f64, usize) {
        let tps = f64::from(d.ticks_per_sample());
        let mut ok = 0;
        let mut wrong = 0;
        for r in got {
            let hit = acs
                .iter()
                .find(|a| (r.timestamp.get() as f64 - (a.start + 0.5) * tps).abs() <= 3.0);
            match hit {
                Some(a) if a.code == r.code && a.spi == r.spi => ok += 1,
                _ => wrong += 1,
            }
        }
        (ok as f64 / acs.len() as f64, wrong)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_recall_vs_snr() {
        // (SNR dB, minimum recall) at 2.4 and 2.0 MS/s.
        let table = [
            (12.0, 0.0),
            (15.0, 0.4),
            (18.0, 0.85),
            (20.0, 0.96),
            (28.0, 0.97),
        ];
        for rate in [2.4e6, 2.0e6] {
            let d = ModeAcDetector::new(rate as u32).unwrap();
            for (i, (snr, min)) in table.into_iter().enumerate() {
                let (acs, bytes) = scene(rate, 300, snr, 7 + i as u64);
                let got = run(&d, &bytes, 4096);
                let (recall, wrong) = score(&d, &acs, &got);
                std::eprintln!("{rate} S/s, {snr} dB: recall {recall:.4}, {wrong} wrong");
                assert!(recall >= min, "{rate} {snr} dB: recall {recall}");
                if snr >= 15.0 {
                    assert!(wrong <= acs.len() / 10, "{rate} {snr} dB: {wrong} wrong");
                }
                if snr >= 20.0 {
                    assert_eq!(wrong, 0, "{rate} {snr} dB");
                    let flagged = got.iter().filter(|r| r.garbled).count();
                    assert!(
                        flagged * 20 <= got.len(),
                        "{rate} {snr} dB: {flagged} flagged"
                    );
                }
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_signal_level_and_timestamp() {
        for rate in [2.4e6, 2.0e6] {
            let (acs, bytes) = scene(rate, 50, 25.0, 3);
            let d = ModeAcDetector::new(rate as u32).unwrap();
            let got = run(&d, &bytes, 1000);
            assert!(got.len() >= 45, "{rate}: {}", got.len());
            let want_db = 20.0 * libm::log10(f64::from(acs[0].amp) * 128.0 / 127.4);
            let tps = f64::from(d.ticks_per_sample());
            for r in &got {
                let a = acs
                    .iter()
                    .find(|a| (r.timestamp.get() as f64 - (a.start + 0.5) * tps).abs() <= 2.0)
                    .expect("timestamp of a rendered reply");
                let err = f64::from(r.signal_dbfs) - want_db;
                // The box pulse fit is exact without carrier; a 150 kHz
                // carrier and noise cost a little: the worst of 50 replies
                // was 0.5–0.9 dB off at 2.4 MS/s and 0.7–1.7 dB at 2.0 MS/s
                // over 11 draws.
                assert!(err.abs() < 2.0, "{} vs {want_db}", r.signal_dbfs);
                let t = (a.start + 0.5) * f64::from(d.ticks_per_sample());
                assert!(
                    (r.timestamp.get() as f64 - t).abs() <= 2.0,
                    "{} vs {t}",
                    r.timestamp.get()
                );
            }
        }
    }

    /// The timestamp convention is the demodulator's: a Mode S frame and a
    /// Mode A/C reply rendered at the same start get the same timestamp.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_timestamp_matches_demodulator() {
        // A DF17 with a correct parity (the Riddle's KLM1023).
        let df17 = crate::testing::hex("8D4840D6202CC371C32CE0576098");
        for (rate, start) in [(2.4e6, 1000.3), (2.0e6, 1000.8)] {
            let a = Ac {
                code: 0x0808,
                spi: false,
                start,
                amp: 0.5,
                carrier: 0.0,
            };
            let ac_bytes = render(rate, 3000, &[a], &[], 1);
            let s_bytes = render(rate, 3000, &[], &[(df17.clone(), start, 0.5)], 1);
            let d = ModeAcDetector::new(rate as u32).unwrap();
            let ac = run(&d, &ac_bytes, 3000);
            let demod = Demodulator::new(rate as u32).unwrap();
            let mut st = DemodState::new();
            let mut filter = AddressFilter::<16>::new(AddressFilter::<16>::DEFAULT_TTL);
            let mut ts = Vec::new();
            demod.process(&mut st, &mut filter, &s_bytes, |f| {
                ts.push(f.timestamp.get())
            });
            demod.finish(&mut st, &mut filter, |f| ts.push(f.timestamp.get()));
            assert_eq!((ac.len(), ts.len()), (1, 1));
            assert!(
                ac[0].timestamp.get().abs_diff(ts[0]) <= 2,
                "{rate}: {} vs {}",
                ac[0].timestamp.get(),
                ts[0]
            );
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_no_replies_from_noise() {
        for rate in [2.4e6, 2.0e6] {
            let bytes = render(rate, 1_000_000, &[], &[], 99);
            let d = ModeAcDetector::new(rate as u32).unwrap();
            assert_eq!(run(&d, &bytes, 65536), [], "{rate}");
        }
    }

    /// Random Mode S frames (any content: the detector does not check
    /// parity), 5–28 dB, as a stream with spacing `spacing` × their length.
    fn mode_s_stream(rate: f64, n: usize, spacing: (f64, f64), seed: u64) -> Vec<u8> {
        let mut rng = Rng::new(seed);
        let per_us = rate / 1e6;
        let mut frames = Vec::new();
        let mut t = 50.0;
        for i in 0..n {
            let long = i % 2 == 0;
            let mut f: Vec<u8> = (0..if long { 14 } else { 7 })
                .map(|_| rng.next_u64() as u8)
                .collect();
            f[0] = if long { 0x8D } else { 0x5D } ^ (f[0] & 0x07);
            let snr = 5.0 + 23.0 * rng.uniform();
            frames.push((f, t * per_us + rng.uniform(), amp(snr)));
            t += if long { 120.0 } else { 64.0 }
                * (spacing.0 + (spacing.1 - spacing.0) * rng.uniform());
        }
        let len = ((t + 200.0) * per_us) as usize;
        render(rate, len, &[], &frames, seed + 1)
    }

    /// Mode A/C replies from a stream of Mode S frames: at most 1 in 500
    /// frames, and fewer than 1 in 250 where frames overlap (preambles
    /// hidden). Measured over 11 draws of 3000 frames: 0–1 at 2.4 MS/s
    /// and 0–7 at 2.0 MS/s (mean 2.8) spaced; 0–2 and 1–6 overlapping
    /// (10 draws).
    /// Three draws are pooled against the bounds.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_no_replies_from_mode_s() {
        for rate in [2.4e6, 2.0e6] {
            let d = ModeAcDetector::new(rate as u32).unwrap();
            let (mut spaced, mut overlapping) = (0, 0);
            for seed in [5, 7, 9] {
                let bytes = mode_s_stream(rate, 3000, (1.0, 1.5), seed);
                spaced += run(&d, &bytes, 8192).len();
                let bytes = mode_s_stream(rate, 3000, (0.5, 1.2), seed + 1);
                overlapping += run(&d, &bytes, 8192).len();
            }
            std::eprintln!(
                "{rate}: {spaced} replies from 9000 Mode S frames, {overlapping} from 9000 partly overlapping"
            );
            assert!(spaced <= 18, "{rate}: {spaced} replies from Mode S");
            assert!(
                overlapping < 36,
                "{rate}: {overlapping} from overlapping Mode S"
            );
        }
    }

    /// Two replies overlapping by a random offset and level: outputs are
    /// mostly one of them (right code and SPI) or carry the garble flag.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_overlapping_replies() {
        let mut rng = Rng::new(11);
        for rate in [2.4e6, 2.0e6] {
            let per_us = rate / 1e6;
            let d = ModeAcDetector::new(rate as u32).unwrap();
            let tps = f64::from(d.ticks_per_sample());
            let mut acs = Vec::new();
            for i in 0..300 {
                let t0 = (100.0 + 80.0 * i as f64) * per_us + rng.uniform();
                let dt = (0.3 + 24.0 * rng.uniform()) * per_us;
                let snr = 18.0 + 6.0 * rng.uniform();
                for (k, start) in [t0, t0 + dt].into_iter().enumerate() {
                    acs.push(Ac {
                        code: random_code(&mut rng),
                        spi: rng.uniform() < 0.2,
                        start,
                        amp: amp(if k == 0 { 21.0 } else { snr }),
                        carrier: (rng.uniform() * 200e3 - 100e3) as f32,
                    });
                }
            }
            let len = ((300.0 + 80.0 * 300.0) * per_us) as usize;
            let bytes = render(rate, len, &acs, &[], 12);
            let got = run(&d, &bytes, 5000);
            let (mut good, mut flagged, mut silent) = (0, 0, 0);
            for r in &got {
                let ok = acs.iter().any(|a| {
                    (r.timestamp.get() as f64 - (a.start + 0.5) * tps).abs() <= 3.0
                        && a.code == r.code
                        && a.spi == r.spi
                });
                match (ok, r.garbled) {
                    (true, _) => good += 1,
                    (false, true) => flagged += 1,
                    (false, false) => silent += 1,
                }
            }
            std::eprintln!(
                "{rate}: 600 overlapped replies: {good} right, {flagged} wrong and flagged, {silent} wrong unflagged"
            );
            // Unflagged wrong codes: mostly a reply followed 18–21 µs later
            // by another (its F2 region disturbed). Known weakness; bound it
            // so it cannot grow. Over 10 noise and scene draws: right 71–96
            // at 2.4 MS/s (mean 84) and 57–78 at 2.0 MS/s (mean 67);
            // unflagged wrong at most 0.28 of the outputs. The bounds sit
            // about 3 standard deviations below (above) the means.
            assert!(silent * 3 <= got.len(), "{rate}: {silent} of {}", got.len());
            let least = if rate > 2.2e6 { 60 } else { 45 };
            assert!(good >= least, "{rate}: {good}");
        }
    }

    #[test]
    fn test_decode_fields() {
        let r = |code, spi| ModeAcReply {
            code,
            spi,
            timestamp: Ticks(0),
            signal_dbfs: 0.0,
            garbled: false,
        };
        // Mode A 7500 with SPI; 1200.
        assert_eq!(
            r(IdentityCode::from_squawk(0x7500).raw(), true).to_bytes(),
            [0x75, 0x80]
        );
        assert_eq!(r(0x0808, false).squawk(), 0x1200);
        assert_eq!(r(0x0808, false).to_bytes(), [0x12, 0x00]);
        // Mode C: Gillham codes from the frame encoder, 100 ft steps.
        for ft in [-1200, -1000, 0, 100, 2500, 12_300, 36_000, 62_700, 126_700] {
            let ac13 = AltitudeCode::from_feet(ft).unwrap().raw();
            // `from_feet` uses Q = 1 where it can; build the Gillham code.
            let g = if ac13 & 0x10 != 0 {
                gillham_code(ft)
            } else {
                ac13
            };
            assert_eq!(r(g, false).altitude_ft(), Some(ft), "{ft}");
        }
        // D1 set, X set, or an invalid 100 ft pattern (C1 C2 C4 = 0): none.
        assert_eq!(r(0x0010 | 0x0800 | 0x1000, false).altitude_ft(), None);
        assert_eq!(r(0x0040 | 0x1000, false).altitude_ft(), None);
        assert_eq!(r(0x0800, false).altitude_ft(), None);
        // Both output forms dump1090 uses.
        let mut avr = [0u8; AVR_MAX_LEN];
        let n = encode_avr(&mut avr, &r(0x0AA2, false).to_bytes(), None).unwrap();
        assert_eq!(&avr[..n], b"*7500;\n");
        let mut beast = [0u8; BEAST_MAX_LEN];
        let n = encode_beast(&mut beast, &[0x12, 0x00], Timestamp::from_ticks(5), 0x40).unwrap();
        assert_eq!(
            &beast[..n],
            &[0x1A, b'1', 0, 0, 0, 0, 0, 5, 0x40, 0x12, 0x00]
        );
    }

    /// Gillham code of `ft` (a multiple of 100 ft) via the frame encoder's
    /// Gillham branch: `from_feet` of an altitude above the Q = 1 range
    /// shifted down by whole 500 ft steps is not possible, so search.
    fn gillham_code(ft: i32) -> u16 {
        (0u16..0x2000)
            .filter(|c| c & 0x0050 == 0)
            .find(|&c| decode_ac13(c) == Some(ft))
            .unwrap()
    }

    #[test]
    fn test_config() {
        assert_eq!(
            ModeAcDetector::new(1_000_000),
            Err(ConfigError::UnsupportedRate { rate_hz: 1_000_000 })
        );
        let d = ModeAcDetector::new(2_000_000).unwrap();
        assert_eq!(d.ticks_per_sample(), 6);
        let hi = d.with_min_snr_db(20.0);
        assert!(hi.trigger > d.trigger && hi.min_amplitude > 9.9 && hi.min_amplitude < 10.1);
        assert_eq!(d.with_min_snr_db(f32::NAN), d.with_min_snr_db(10.0));
        let same = d.with_min_snr_db(13.0);
        assert_eq!(same.trigger, d.trigger);
        assert!((same.min_amplitude - d.min_amplitude).abs() < 1e-4);
        // The state is its sample ring and block sums plus a few scalars,
        // on any target (no hidden buffers).
        let rings = RING * (2 + 4 + 1) + CHUNKS * 4;
        assert!(core::mem::size_of::<ModeAcState>() <= rings + 64);
        let mut s = ModeAcState::new();
        d.process(&mut s, &[127u8; 1001], |_| panic!());
        assert_eq!(s.samples(), 500);
        assert!(s.noise_dbfs().unwrap() < -40.0);
    }

    proptest! {
        #![proptest_config(proptest_config())]
        /// Any split of the stream gives the same replies.
        #[test]
        #[cfg_attr(miri, ignore)]
        fn prop_split_invariant(cuts in proptest::collection::vec(0usize..20_000, 0..6), seed in 0u64..1000) {
            let (_, bytes) = scene(2.4e6, 6, 18.0, seed);
            let bytes = &bytes[..bytes.len().min(20_000)];
            let d = ModeAcDetector::new(2_400_000).unwrap();
            let whole = run(&d, bytes, bytes.len());
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            cuts.sort_unstable();
            let mut s = ModeAcState::new();
            let mut parts = Vec::new();
            let mut start = 0;
            for end in cuts.into_iter().chain([bytes.len()]) {
                d.process(&mut s, &bytes[start..end], |r| parts.push(*r));
                start = end;
            }
            d.finish(&mut s, |r| parts.push(*r));
            prop_assert_eq!(whole, parts);
        }
    }
}
