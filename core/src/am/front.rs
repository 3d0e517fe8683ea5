//! Narrow channel front end, `f32`: cu8 I/Q at any rate from 240 kS/s to
//! 3.2 MS/s down to one voice channel at about 18–25 kS/s.
//!
//! The NCO is a complex rotator `r ← r · e^{jω}` (one complex multiply
//! per sample), re-anchored to the exact phase of a 32-bit phase
//! accumulator every 1024 input samples (error < 1e-4 between anchors).
//!
//! ```text
//! cu8 ──Cu8──▶ NCO (−offset) ──▶ k × half-band ↓2 ──▶ FIR ↓M (channel filter) ──▶ channel
//! f_in                                                  f_in/2ᵏ              f_in/(2ᵏ M)
//! ```
//!
//! [`ChannelFrontEnd::new`] picks the largest `k` (0–8, cheapest) and then
//! the smallest `M` (2–6) that put the channel rate `f_in / (2ᵏ M)` in
//! [`MIN_CHANNEL_RATE`]..=[`MAX_CHANNEL_RATE`]: 2.4 MS/s → k = 6, M = 2,
//! 18 750 S/s; 300 kS/s → k = 3, M = 2, 18 750 S/s; 1.024 MS/s → k = 4,
//! M = 3, 21 333 S/s; 240 kS/s → k = 2, M = 3, 20 000 S/s.
//!
//! - Half-bands: the voice channel is at most ±9 kHz, so a stage with
//!   input rate `f_j` only has to stop `f_j/2 ± 9 kHz` (what folds onto the
//!   channel), `ε = 9 kHz / f_j` from its Nyquist frequency. Early stages
//!   (small `ε`) get away with short filters: 7 taps (K = 2) for
//!   `ε ≤ 0.0075` (≥ 65 dB there), 11 taps (K = 3, 60 dB design) for
//!   `ε ≤ 0.03` (≥ 62 dB), 23 taps (K = 6, 70 dB) for the last stages
//!   (≥ 66 dB up to `ε` = 0.125). At 2.4 MS/s: 2, 2, 3, 3, 6, 6 side taps.
//! - Channel filter ([`ChannelFilter`]): a Kaiser low-pass (60 dB) at
//!   `f_in/2ᵏ`, length from Kaiser's formula for the filter's transition
//!   width (at most [`MAX_CHANNEL_TAPS`]), DC gain 1.
//!
//! Output: complex baseband at the channel rate, full scale as the input
//! (±1.0 = ±128 counts of the cu8 bytes around 127.4).
//! All stages keep their history in the state, so the output is identical
//! for any split of the input into blocks.

use super::{ConfigError, OutputTooShort};
use crate::C32;
use crate::dsp::convert::Cu8;
use crate::dsp::design;
use crate::dsp::fir::SplitDecimate;
use crate::dsp::halfband::{HalfBand, HalfBandState};
use crate::dsp::nco::cos_sin_f32;

/// Lowest accepted input rate, samples per second.
pub const MIN_INPUT_RATE: u32 = 240_000;
/// Highest accepted input rate, samples per second.
pub const MAX_INPUT_RATE: u32 = 3_200_000;
/// Lowest channel rate the front end will choose, samples per second.
pub const MIN_CHANNEL_RATE: f64 = 18_000.0;
/// Highest channel rate the front end will choose, samples per second.
pub const MAX_CHANNEL_RATE: f64 = 25_000.0;
/// Most half-band stages.
pub const MAX_HALF_BANDS: usize = 8;
/// Longest channel filter, taps.
pub const MAX_CHANNEL_TAPS: usize = 320;
/// Side taps of the three half-band designs, shortest first.
const HB_K1: usize = 2;
const HB_K2: usize = 3;
const HB_K3: usize = 6;
/// Input samples between re-anchorings of the NCO's rotator to its exact
/// phase (the rotator's `f32` error grows by about 1e-7 per step).
const ANCHOR: u32 = 1024;
/// Input samples per internal chunk.
pub(crate) const CHUNK: usize = 1024;

/// The channel filter: bandwidth for the channel spacing and mode.
///
/// | filter | −6 dB at | transition | use |
/// |---|---:|---:|---|
/// | `Am8k33` | ±3.75 kHz | 1.5 kHz | airband AM, 8.33 kHz spacing (audio 350–2500 Hz) |
/// | `Am25k` | ±6 kHz | 2 kHz | AM, 25 kHz spacing (audio to 3.4 kHz, carrier offset tolerance) |
/// | `Nbfm12k5` | ±6 kHz | 2 kHz | NBFM, 12.5 kHz spacing, ±2.5 kHz deviation (Carson 11 kHz) |
/// | `Nbfm25k` | ±8.25 kHz | 1.5 kHz | NBFM, 25 kHz spacing, ±5 kHz deviation (Carson 16 kHz) |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ChannelFilter {
    /// AM, 8.33 kHz channel spacing.
    Am8k33,
    /// AM, 25 kHz channel spacing.
    Am25k,
    /// Narrowband FM, 12.5 kHz channel spacing.
    Nbfm12k5,
    /// Narrowband FM, 25 kHz channel spacing.
    Nbfm25k,
}

impl ChannelFilter {
    /// The −6 dB frequency of the low-pass, Hz (one side of the channel).
    pub const fn cutoff_hz(self) -> f64 {
        match self {
            Self::Am8k33 => 3750.0,
            Self::Am25k | Self::Nbfm12k5 => 6000.0,
            Self::Nbfm25k => 8250.0,
        }
    }

    /// The transition width (pass edge to stop edge), Hz.
    pub const fn transition_hz(self) -> f64 {
        match self {
            Self::Am8k33 | Self::Nbfm25k => 1500.0,
            Self::Am25k | Self::Nbfm12k5 => 2000.0,
        }
    }
}

/// Front-end configuration: the station's offset, the decimation plan and
/// the channel filter. State: [`ChannelFrontEndState`].
#[derive(Clone, Debug)]
pub struct ChannelFrontEnd {
    cu8: Cu8,
    /// NCO phase increment per input sample (turns · 2³²).
    inc: u32,
    /// `e^{j2π inc/2³²}`, the rotator's step.
    step: C32,
    hb1: HalfBand<f32, HB_K1>,
    hb2: HalfBand<f32, HB_K2>,
    hb3: HalfBand<f32, HB_K3>,
    /// Design of each stage: 1, 2 or 3 (`hb1`..`hb3`).
    kinds: [u8; MAX_HALF_BANDS],
    half_bands: usize,
    decimation: usize,
    taps: [f32; MAX_CHANNEL_TAPS],
    len: usize,
    input_rate: u32,
}

/// [`ChannelFrontEnd`] state: NCO phase, half-band histories, the channel
/// filter's delay line and decimation phase.
#[derive(Clone, Debug)]
pub struct ChannelFrontEndState {
    /// Exact NCO phase of the next sample (turns · 2³²).
    phase: u32,
    /// The rotator `e^{jθ}` for the next sample.
    rot: C32,
    /// Samples until the rotator is re-anchored to the exact phase.
    anchor: u32,
    hb1: [HalfBandState<C32, HB_K1>; MAX_HALF_BANDS],
    hb2: [HalfBandState<C32, HB_K2>; MAX_HALF_BANDS],
    hb3: [HalfBandState<C32, HB_K3>; MAX_HALF_BANDS],
    /// Working buffers (here rather than on the stack, so they are not
    /// zeroed on every call).
    a: [C32; CHUNK],
    b: [C32; CHUNK / 2],
    /// Delay line written twice (`i` and `i + len`) so the newest `len`
    /// samples are always contiguous.
    line: [C32; 2 * MAX_CHANNEL_TAPS],
    pos: usize,
    skip: usize,
    /// Band power over the current block, exactly in integers: with
    /// `d = b − 127` for each byte, `Σ d²` and `Σ d`; the pairs in it; and
    /// the input samples left until it ends.
    band_d2: u32,
    band_d1: i32,
    band_count: u32,
    band_left: u32,
}

impl Default for ChannelFrontEndState {
    fn default() -> Self {
        Self {
            phase: 0,
            rot: C32::new(1.0, 0.0),
            anchor: 0,
            hb1: Default::default(),
            hb2: Default::default(),
            hb3: Default::default(),
            a: [C32::new(0.0, 0.0); CHUNK],
            b: [C32::new(0.0, 0.0); CHUNK / 2],
            line: [C32::new(0.0, 0.0); 2 * MAX_CHANNEL_TAPS],
            pos: 0,
            skip: 0,
            band_d2: 0,
            band_d1: 0,
            band_count: 0,
            // The first block ends with the first sample (it completes
            // channel sample 0).
            band_left: 1,
        }
    }
}

/// The decimation plan `(k, M)` for `input_rate`, or `None`.
fn plan(input_rate: u32) -> Option<(usize, usize)> {
    let fs = input_rate as f64;
    (0..=MAX_HALF_BANDS).rev().find_map(|k| {
        (2..=6).find_map(|m| {
            let r = fs / ((1usize << k) * m) as f64;
            (MIN_CHANNEL_RATE..=MAX_CHANNEL_RATE)
                .contains(&r)
                .then_some((k, m))
        })
    })
}

impl ChannelFrontEnd {
    /// A front end for a station `offset_hz` from the centre of a cu8
    /// stream at `input_rate` samples per second, with channel filter
    /// `filter`.
    ///
    /// # Errors
    /// [`ConfigError::InputRate`] outside [`MIN_INPUT_RATE`]..=
    /// [`MAX_INPUT_RATE`] or when no plan gives a channel rate in range;
    /// [`ConfigError::Offset`] unless `|offset_hz| < input_rate/2 − 10 kHz`.
    ///
    /// ```
    /// use airwaves_core::am::front::{ChannelFilter, ChannelFrontEnd};
    /// let fe = ChannelFrontEnd::new(2_400_000, 100e3, ChannelFilter::Am8k33).unwrap();
    /// assert_eq!((fe.half_bands(), fe.decimation()), (6, 2));
    /// assert_eq!(fe.channel_rate(), 18_750.0);
    /// assert!(ChannelFrontEnd::new(100_000, 0.0, ChannelFilter::Am8k33).is_err());
    /// ```
    pub fn new(
        input_rate: u32,
        offset_hz: f64,
        filter: ChannelFilter,
    ) -> Result<Self, ConfigError> {
        if !(MIN_INPUT_RATE..=MAX_INPUT_RATE).contains(&input_rate) {
            return Err(ConfigError::InputRate);
        }
        let (k, m) = plan(input_rate).ok_or(ConfigError::InputRate)?;
        let fs = input_rate as f64;
        if !(offset_hz.is_finite() && offset_hz.abs() < fs / 2.0 - 10e3) {
            return Err(ConfigError::Offset);
        }
        let fir_rate = fs / (1usize << k) as f64;
        let atten = 60.0;
        let len = design::kaiser_len(atten, filter.transition_hz() / fir_rate)
            .clamp(3, MAX_CHANNEL_TAPS)
            | 1;
        let len = len.min(MAX_CHANNEL_TAPS - 1);
        let mut taps = [0.0f32; MAX_CHANNEL_TAPS];
        design::lowpass_f32(
            &mut taps[..len],
            filter.cutoff_hz() / fir_rate,
            design::kaiser_beta(atten),
            1.0,
        );
        // round(f · 2³²) mod 2³², as `Nco::new`.
        let turns = -offset_hz / fs;
        let inc = (libm::round((turns - libm::floor(turns)) * 4_294_967_296.0) as u64) as u32;
        let mut kinds = [3u8; MAX_HALF_BANDS];
        for (j, kind) in kinds.iter_mut().enumerate().take(k) {
            let eps = 9e3 / (fs / (1usize << j) as f64);
            *kind = if eps <= 0.0075 {
                1
            } else if eps <= 0.03 {
                2
            } else {
                3
            };
        }
        Ok(Self {
            cu8: Cu8::RTL_SDR,
            inc,
            step: cos_sin_f32(inc),
            hb1: HalfBand::design(70.0),
            hb2: HalfBand::design(60.0),
            hb3: HalfBand::design(70.0),
            kinds,
            half_bands: k,
            decimation: m,
            taps,
            len,
            input_rate,
        })
    }

    /// Side taps `K` of half-band stage `j` (`4K − 1` taps), or 0 past
    /// the last stage.
    pub fn half_band_taps(&self, j: usize) -> usize {
        if j >= self.half_bands {
            return 0;
        }
        match self.kinds[j] {
            1 => HB_K1,
            2 => HB_K2,
            _ => HB_K3,
        }
    }

    /// Number of half-band stages `k`.
    pub fn half_bands(&self) -> usize {
        self.half_bands
    }

    /// The channel filter's decimation `M`.
    pub fn decimation(&self) -> usize {
        self.decimation
    }

    /// Input samples per channel sample, `2ᵏ M`.
    pub fn total_decimation(&self) -> usize {
        (1 << self.half_bands) * self.decimation
    }

    /// The input rate, samples per second.
    pub fn input_rate(&self) -> u32 {
        self.input_rate
    }

    /// The channel rate `f_in / (2ᵏ M)`, samples per second.
    pub fn channel_rate(&self) -> f64 {
        self.input_rate as f64 / self.total_decimation() as f64
    }

    /// The channel filter's taps (`len` ≤ [`MAX_CHANNEL_TAPS`]).
    pub fn taps(&self) -> &[f32] {
        &self.taps[..self.len]
    }

    /// |H(f)| of the channel filter at `f_hz` from the channel centre.
    pub fn response(&self, f_hz: f64) -> f64 {
        let w = 2.0 * core::f64::consts::PI * f_hz * self.total_decimation() as f64
            / self.decimation as f64
            / self.input_rate as f64;
        let (mut re, mut im) = (0.0, 0.0);
        for (n, &h) in self.taps().iter().enumerate() {
            re += h as f64 * libm::cos(w * n as f64);
            im -= h as f64 * libm::sin(w * n as f64);
        }
        libm::sqrt(re * re + im * im)
    }

    /// Noise-equivalent bandwidth of the channel filter, Hz (two-sided):
    /// `f_FIR Σh² / (Σh)²`. White noise of density `N₀` comes out with
    /// power `N₀ B`.
    pub fn noise_bandwidth_hz(&self) -> f64 {
        let t = self.taps();
        let s: f64 = t.iter().map(|&h| h as f64).sum();
        let s2: f64 = t.iter().map(|&h| h as f64 * h as f64).sum();
        s2 / (s * s) * self.input_rate as f64 / (1usize << self.half_bands) as f64
    }

    /// The most channel samples `input_len` I/Q pairs can produce:
    /// `⌈input_len / (2ᵏ M)⌉`.
    pub fn max_output(&self, input_len: usize) -> usize {
        input_len.div_ceil(self.total_decimation())
    }

    /// Filter and decimate `iq` (cu8 pairs) into channel samples at the
    /// front of `out`; returns their count.
    ///
    /// # Errors
    /// [`OutputTooShort`] if `out.len() < max_output(iq.len())` (nothing is
    /// processed).
    pub fn process(
        &self,
        state: &mut ChannelFrontEndState,
        iq: &[[u8; 2]],
        out: &mut [C32],
    ) -> Result<usize, OutputTooShort> {
        OutputTooShort::check(self.max_output(iq.len()), out.len())?;
        Ok(self.run::<false>(state, iq, out, &mut []))
    }

    /// As [`process`](Self::process), and the power of the whole input
    /// band next to each channel sample: `band[i]` is the mean `|x|²`
    /// (full scale 1.0, as the channel samples) of the `2ᵏ M` input
    /// samples up to the one that completes channel sample `i` (fewer for
    /// the very first). Compared with the channel power it gives the noise
    /// density outside the channel (see
    /// [`LevelSquelch::with_band`](super::squelch::LevelSquelch::with_band)).
    /// Exact integer sums per input sample (about 3 instructions more than
    /// `process` on x86-64); the same for any split of the input.
    ///
    /// # Errors
    /// [`OutputTooShort`] if `out` or `band` is shorter than
    /// `max_output(iq.len())` (nothing is processed).
    ///
    /// ```
    /// use airwaves_core::C32;
    /// use airwaves_core::am::front::{ChannelFilter, ChannelFrontEnd, ChannelFrontEndState};
    /// let fe = ChannelFrontEnd::new(240_000, 50e3, ChannelFilter::Am8k33).unwrap();
    /// let mut s = ChannelFrontEndState::default();
    /// let iq = [[255u8, 127]; 120]; // +0.997 + j·(−0.003): power 0.994
    /// let (mut y, mut band) = ([C32::new(0.0, 0.0); 10], [0.0f32; 10]);
    /// assert_eq!(fe.process_with_band(&mut s, &iq, &mut y, &mut band), Ok(10));
    /// assert!(band.iter().all(|&p| (p - 0.994).abs() < 1e-3));
    /// ```
    pub fn process_with_band(
        &self,
        state: &mut ChannelFrontEndState,
        iq: &[[u8; 2]],
        out: &mut [C32],
        band: &mut [f32],
    ) -> Result<usize, OutputTooShort> {
        let need = self.max_output(iq.len());
        OutputTooShort::check(need, out.len().min(band.len()))?;
        Ok(self.run::<true>(state, iq, out, band))
    }

    /// The work of [`process`](Self::process) and, with `BAND`, of
    /// [`process_with_band`](Self::process_with_band). Channel sample `i`
    /// is completed by input sample `i · 2ᵏ M` (each half-band gives an
    /// output on its even inputs, the FIR on every `M`-th from the first),
    /// so the band block ending there is always complete, in the same
    /// chunk, when the channel sample comes out.
    fn run<const BAND: bool>(
        &self,
        state: &mut ChannelFrontEndState,
        iq: &[[u8; 2]],
        out: &mut [C32],
        band: &mut [f32],
    ) -> usize {
        let mut n = 0;
        for x in iq.chunks(CHUNK) {
            let ChannelFrontEndState {
                phase,
                rot,
                anchor,
                a,
                ..
            } = state;
            for (y, v) in a.iter_mut().zip(x) {
                if *anchor == 0 {
                    *rot = cos_sin_f32(*phase);
                    *anchor = ANCHOR;
                }
                *y = self.cu8.c32(*v) * *rot;
                *rot *= self.step;
                *phase = phase.wrapping_add(self.inc);
                *anchor -= 1;
            }
            // Band blocks completed in this chunk (≤ ⌈CHUNK / 12⌉ + 1).
            let mut blocks = [0.0f32; CHUNK / 8];
            let mut done = 0;
            if BAND {
                let mut i = 0;
                while i < x.len() {
                    let take = (state.band_left as usize).min(x.len() - i);
                    // Integer sums: exact, so a block straddling two calls
                    // gives the same bits (and they vectorise). At most
                    // 2 · 128² · 1536 < 2³² for the longest block.
                    let (mut d2, mut d1) = (0i32, 0i32);
                    for &v in x[i..i + take].as_flattened() {
                        let d = i32::from(v as i16 - 127);
                        d2 += d * d;
                        d1 += d;
                    }
                    state.band_d2 += d2 as u32;
                    state.band_d1 += d1;
                    state.band_count += take as u32;
                    state.band_left -= take as u32;
                    i += take;
                    if state.band_left == 0 {
                        blocks[done] = self.band_mean(state);
                        done += 1;
                        state.band_d2 = 0;
                        state.band_d1 = 0;
                        state.band_count = 0;
                        state.band_left = self.total_decimation() as u32;
                    }
                }
            }
            let ChannelFrontEndState {
                hb1,
                hb2,
                hb3,
                a,
                b,
                ..
            } = state;
            let mut len = x.len();
            for i in 0..self.half_bands {
                // Ping-pong between `a` and `b`; after an odd stage the
                // data is in `b`.
                let (src, dst): (&[C32], &mut [C32]) = if i % 2 == 0 {
                    (&a[..len], &mut b[..])
                } else {
                    (&b[..len], &mut a[..])
                };
                len = match self.kinds[i] {
                    1 => self.hb1.block(&mut hb1[i], src, dst),
                    2 => self.hb2.block(&mut hb2[i], src, dst),
                    _ => self.hb3.block(&mut hb3[i], src, dst),
                };
            }
            let odd = self.half_bands % 2 == 1;
            let first = n;
            for j in 0..len {
                let v = if odd { state.b[j] } else { state.a[j] };
                if let Some(y) = self.push(state, v) {
                    out[n] = y;
                    if BAND {
                        band[n] = blocks[n - first];
                    }
                    n += 1;
                }
            }
            debug_assert!(!BAND || n - first == done, "band blocks out of step");
        }
        n
    }

    /// Mean `|x|²` of the current band block (full scale 1.0): with the
    /// zero level `z = 127 + δ`, `Σ (d − δ)² = Σ d² − 2δ Σ d + 2nδ²` over
    /// the `2n` bytes.
    fn band_mean(&self, s: &ChannelFrontEndState) -> f32 {
        let delta = self.cu8.zero() - 127.0;
        let n = s.band_count as f32;
        let sum = s.band_d2 as f32 - 2.0 * delta * s.band_d1 as f32 + 2.0 * n * delta * delta;
        sum / (n * 128.0 * 128.0)
    }

    /// Push one sample into the channel filter; every `M`-th push gives an
    /// output.
    #[inline]
    fn push(&self, s: &mut ChannelFrontEndState, x: C32) -> Option<C32> {
        let len = self.len;
        s.line[s.pos] = x;
        s.line[s.pos + len] = x;
        s.pos += 1;
        if s.pos == len {
            s.pos = 0;
        }
        if s.skip > 0 {
            s.skip -= 1;
            return None;
        }
        s.skip = self.decimation - 1;
        // Oldest first from `pos`; the taps are symmetric.
        let w = &s.line[s.pos..s.pos + len];
        let (mut re, mut im) = (0.0f32, 0.0f32);
        for (h, v) in self.taps[..len].iter().zip(w) {
            re += h * v.re;
            im += h * v.im;
        }
        Some(C32::new(re, im))
    }
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// cu8 bytes of a complex tone at `f` Hz, amplitude `a`, rate `fs`.
    fn tone(n: usize, f: f64, a: f64, fs: f64) -> Vec<[u8; 2]> {
        (0..n)
            .map(|i| {
                let p = 2.0 * core::f64::consts::PI * f * i as f64 / fs;
                let q = |v: f64| libm::round(v * 128.0 + 127.4).clamp(0.0, 255.0) as u8;
                [q(a * libm::cos(p)), q(a * libm::sin(p))]
            })
            .collect()
    }

    fn power_out(fe: &ChannelFrontEnd, iq: &[[u8; 2]]) -> f64 {
        let mut s = ChannelFrontEndState::default();
        let mut y = vec![C32::new(0.0, 0.0); fe.max_output(iq.len())];
        let n = fe.process(&mut s, iq, &mut y).unwrap();
        let tail = &y[n / 2..n];
        tail.iter().map(|v| (v.norm_sqr()) as f64).sum::<f64>() / tail.len() as f64
    }

    #[test]
    fn test_plans() {
        let cases = [
            (240_000, 2, 3),
            (300_000, 3, 2),
            (1_024_000, 4, 3),
            (1_200_000, 5, 2),
            (2_048_000, 5, 3),
            (2_400_000, 6, 2),
            (3_200_000, 6, 2),
        ];
        for (fs, k, m) in cases {
            let fe = ChannelFrontEnd::new(fs, 0.0, ChannelFilter::Nbfm25k).unwrap();
            assert_eq!((fe.half_bands(), fe.decimation()), (k, m), "{fs}");
            if fs == 2_400_000 {
                let ks: Vec<usize> = (0..7).map(|j| fe.half_band_taps(j)).collect();
                assert_eq!(ks, [2, 2, 3, 3, 6, 6, 0]);
            }
            let r = fe.channel_rate();
            assert!((18e3..=25e3).contains(&r), "{fs}: {r}");
        }
        assert_eq!(
            ChannelFrontEnd::new(3_300_000, 0.0, ChannelFilter::Am8k33).err(),
            Some(ConfigError::InputRate)
        );
        assert_eq!(
            ChannelFrontEnd::new(300_000, 145e3, ChannelFilter::Am8k33).err(),
            Some(ConfigError::Offset)
        );
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_passes_station_rejects_neighbours() {
        // 2.4 MS/s, station at +100 kHz: its carrier +1 kHz passes at
        // unity, a neighbour 25 kHz away (and one in the far band) is
        // > 55 dB down.
        let fs = 2_400_000.0;
        let fe = ChannelFrontEnd::new(2_400_000, 100e3, ChannelFilter::Am8k33).unwrap();
        let pass = power_out(&fe, &tone(240_000, 101e3, 0.5, fs));
        assert!((pass / 0.25 - 1.0).abs() < 0.05, "pass {pass}");
        for f in [108.33e3, 125e3, 75e3, 600e3, -300e3] {
            let rej = 10.0 * libm::log10(power_out(&fe, &tone(240_000, f, 0.5, fs)) / pass);
            std::eprintln!("{f} Hz: {rej:.1} dB");
            assert!(rej < -55.0, "{f} Hz: {rej:.1} dB");
        }
    }

    #[test]
    fn test_noise_bandwidth() {
        let fe = ChannelFrontEnd::new(300_000, 50e3, ChannelFilter::Am8k33).unwrap();
        let b = fe.noise_bandwidth_hz();
        // A brick wall at ±3.75 kHz would be 7.5 kHz; the Kaiser
        // transition takes a little off.
        assert!((7000.0..7500.0).contains(&b), "{b}");
        assert!((fe.response(0.0) - 1.0).abs() < 1e-3);
        assert!(fe.response(5000.0) < 1e-3);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_band_power_aligned_and_split_free() {
        // At every decimation plan: a band value per channel sample, the
        // mean power of the input block ending with the sample that
        // completes it (the first block is sample 0 alone), identical
        // for block sizes 1, 7 and 1000.
        let iq: Vec<[u8; 2]> = (0..3000u32)
            .map(|i| [(i * 37 % 251) as u8, (i * 91 % 241) as u8])
            .collect();
        let power = |v: [u8; 2]| Cu8::RTL_SDR.c32(v).norm_sqr() as f64;
        for fs in [240_000, 300_000, 1_024_000, 2_048_000, 2_400_000, 3_200_000] {
            let fe = ChannelFrontEnd::new(fs, 20e3, ChannelFilter::Am8k33).unwrap();
            let d = fe.total_decimation();
            let mut runs = Vec::new();
            for block in [1, 7, 1000] {
                let mut s = ChannelFrontEndState::default();
                let (mut ys, mut bands) = (Vec::new(), Vec::new());
                for x in iq.chunks(block) {
                    let m = fe.max_output(x.len());
                    let (mut y, mut b) = (vec![C32::new(0.0, 0.0); m], vec![0.0f32; m]);
                    let n = fe.process_with_band(&mut s, x, &mut y, &mut b).unwrap();
                    ys.extend_from_slice(&y[..n]);
                    bands.extend_from_slice(&b[..n]);
                }
                runs.push((ys, bands));
            }
            assert!(runs.iter().all(|r| *r == runs[0]), "{fs}");
            let (ys, bands) = &runs[0];
            assert_eq!(ys.len(), iq.len().div_ceil(d));
            let mut plain = vec![C32::new(0.0, 0.0); ys.len()];
            let mut s = ChannelFrontEndState::default();
            fe.process(&mut s, &iq, &mut plain).unwrap();
            assert_eq!(&plain, ys, "{fs}");
            for (i, &b) in bands.iter().enumerate() {
                let lo = (i * d).saturating_sub(d - 1);
                let want =
                    iq[lo..=i * d].iter().map(|&v| power(v)).sum::<f64>() / (i * d + 1 - lo) as f64;
                assert!(
                    (b as f64 / want - 1.0).abs() < 1e-3,
                    "{fs} {i}: {b} vs {want}"
                );
            }
        }
        let fe = ChannelFrontEnd::new(300_000, 0.0, ChannelFilter::Am8k33).unwrap();
        let mut s = ChannelFrontEndState::default();
        let mut y = [C32::new(0.0, 0.0); 2];
        assert_eq!(
            fe.process_with_band(&mut s, &iq[..32], &mut y, &mut [0.0; 1]),
            Err(OutputTooShort {
                expected: 2,
                got: 1
            })
        );
    }

    proptest::proptest! {
        #![proptest_config(crate::testing::proptest_config())]
        #[test]
        #[cfg_attr(miri, ignore)]
        fn test_same_for_any_split(cuts in proptest::collection::vec(0usize..6000, 0..5)) {
            let fe = ChannelFrontEnd::new(300_000, 50e3, ChannelFilter::Am25k).unwrap();
            let iq = tone(6000, 51e3, 0.3, 300e3);
            let run = |cuts: &[usize]| {
                let mut s = ChannelFrontEndState::default();
                let mut cuts: Vec<usize> = cuts.to_vec();
                cuts.sort_unstable();
                let mut out = Vec::new();
                let mut start = 0;
                for end in cuts.into_iter().chain([iq.len()]) {
                    let mut y = vec![C32::new(0.0, 0.0); fe.max_output(end - start)];
                    let n = fe.process(&mut s, &iq[start..end], &mut y).unwrap();
                    out.extend_from_slice(&y[..n]);
                    start = end;
                }
                out
            };
            let whole = run(&[]);
            proptest::prop_assert_eq!(whole.len(), 6000 / 16);
            proptest::prop_assert_eq!(run(&cuts), whole);
        }
    }
}
