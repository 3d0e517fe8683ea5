//! Wideband FM receiver, `f32`: cu8 I/Q at 2.4 MS/s to the multiplex (MPX)
//! at 240 kHz ([`FrontEnd`]), and the MPX to mono audio at 48 kHz
//! ([`MonoDecoder`]).
//!
//! # Front end
//!
//! ```text
//! cu8 ──▶ 2b − 255 (i16) ──▶ frequency-translating FIR ↓10 (i16 × i16 → i32) ──▶ discriminator − step ──▶ clicks ──▶ equaliser ──▶ MPX
//! 2.4 MS/s                                                      240 kS/s complex
//! ```
//!
//! - Channel filter ([`channel`](super::channel)): one Kaiser low-pass at
//!   2.4 MS/s rotated to the station (complex taps), only every 10th output
//!   computed, in integers. Stereo ([`FrontEnd::new`]): 96 taps, −6 dB at
//!   170 kHz ([`STEREO_CUTOFF_HZ`]), 80 dB down from 234 kHz, so an
//!   adjacent station 400 kHz away is gone. Mono ([`FrontEnd::mono`]): 192
//!   taps, −6 dB at 110 kHz ([`MONO_CUTOFF_HZ`]), flat over the ±75 kHz of
//!   deviation and 80 dB down from 142 kHz, so less noise folds into the
//!   240 kS/s channel. No oscillator runs at the input rate: the shift
//!   leaves a constant phase step per output sample, which the
//!   discriminator subtracts.
//! - Click suppressor (threshold extension): below about 12 dB of CNR the
//!   noise now and then drags the phasor around the origin, adding 2π to
//!   the phase within a sample or two (a click). Three consecutive phase
//!   steps whose sum exceeds three times a smoothed reference (one-pole,
//!   about 8.5 kHz) by more than 4.5 rad, while one of their channel
//!   samples has less than 0.8 × the mean power, are taken as a click and
//!   replaced by the reference; the MPX is delayed by two samples for
//!   this. Without the power condition a full-scale 15 kHz tone passed for
//!   thousands of clicks; with it, none. Measured (mono front end):
//!   29.3 → 39.6 dB at CNR 8, 47.1 → 50.4 dB at CNR 12, nothing changed
//!   at CNR 20–40. Off with [`FrontEnd::with_click_suppression`].
//! - Discriminator: `arg(z[n] z*[n−1]) − step`, wrapped, scaled so
//!   ±75 kHz reads ±1.0 (the fast [`atan2`]).
//!   The phase difference over one sample integrates the instantaneous
//!   frequency over `1/240 kHz`, a `sinc(f/240 kHz)` response (−0.36 dB at
//!   38 kHz); a 7-tap symmetric equaliser, fitted at set-up to
//!   `1/sinc` over 0–60 kHz, flattens it so the stereo subcarrier and RDS
//!   arrive at the same gain as the mono part.
//!
//! # Mono decoder
//!
//! ```text
//! MPX ──▶ de-emphasis (at 240 kHz) ──▶ resampler 240 → 48 kHz ──▶ FIR 15 kHz ──▶ audio
//! ```
//!
//! De-emphasis runs at 240 kHz, where the one-pole design matches the
//! analog curve to 0.01 dB up to 15 kHz (0.005 dB through the whole chain,
//! measured). The polyphase resampler (72 taps, 80 dB) is flat to 15.5 kHz
//! and stops from 32.5 kHz, so its aliases land at or above 15.5 kHz at
//! 48 kHz, where the 63-tap audio filter (pass 15 kHz, 80 dB from 19 kHz)
//! removes them with the pilot. Audio: the mono sum
//! `(L + R)/2` as transmitted, ±1.0 = ±75 kHz of deviation.
//!
//! All stages keep their history in the state, so the output is identical
//! for any split of the input into blocks.

use super::channel::{ChannelFilter, ChannelFilterState, SHARP_TAPS, TAPS, Taps};
use crate::C32;
use crate::dsp::SplitProcess;
use crate::dsp::deemph::{Deemphasis, DeemphasisState};
use crate::dsp::fir::{FirDesign, FirState, SymFir};
use crate::dsp::phase::atan2;
use crate::dsp::resample::{Resampler, ResamplerState, design_f32};
use core::f32::consts::PI;

/// Input rate, samples per second.
pub const INPUT_RATE: u32 = 2_400_000;
/// MPX rate (input / 10), samples per second.
pub const MPX_RATE: u32 = 240_000;
/// Audio rate (MPX / 5), samples per second.
pub const AUDIO_RATE: u32 = 48_000;
/// Input samples per MPX sample.
pub const MPX_DECIMATION: usize = 10;
/// MPX samples per audio sample.
pub const AUDIO_DECIMATION: usize = 5;
/// Default channel-filter −6 dB point, Hz: wide enough for stereo
/// (flat to about 106 kHz).
pub const STEREO_CUTOFF_HZ: f64 = 170e3;
/// Channel-filter −6 dB point for mono reception, Hz (1–3 dB more SNR at
/// CNR 8–12 dB than [`STEREO_CUTOFF_HZ`]).
pub const MONO_CUTOFF_HZ: f64 = 110e3;
/// Peak deviation that reads as MPX ±1.0, Hz.
pub const DEVIATION_HZ: f64 = 75_000.0;

/// Taps of the discriminator equaliser.
const EQ_N: usize = 7;
/// Taps of the 240 → 48 kHz resampler.
pub(crate) const RS_TAPS: usize = 72;
/// History of the resampler state.
pub(crate) const RS_HIST: usize = 512;
/// Taps of the 48 kHz audio filter.
pub(crate) const AUD_N: usize = 63;
/// MPX samples per internal chunk.
pub(crate) const CHUNK: usize = 240;

/// The error of the block methods (moved to [`crate::dsp::output`]; this
/// path stays for compatibility).
pub use crate::dsp::output::OutputTooShort;

/// Front-end configuration: the station's offset, the channel filter, the
/// discriminator. State: [`FrontEndState`].
#[derive(Clone, Debug)]
pub struct FrontEnd {
    channel: ChannelFilter,
    /// Phase step left by the frequency shift, radians per MPX sample.
    step: f32,
    /// MPX units per radian per sample.
    gain: f32,
    /// Click suppressor: (threshold, radians; smoothing per sample), or
    /// `None`.
    click: Option<(f32, f32, f32)>,
    eq: SymFir<f32, EQ_N>,
}

/// [`FrontEnd`] state.
#[derive(Clone, Debug)]
pub struct FrontEndState {
    channel: ChannelFilterState,
    prev: C32,
    eq: FirState<f32, EQ_N>,
    click: ClickState,
}

impl FrontEndState {
    /// Clicks removed so far by the click suppressor.
    pub fn clicks(&self) -> u32 {
        self.click.count
    }
}

/// Click suppressor state: the last three phase steps (oldest first, the
/// delay line), the smoothed output and the count of clicks removed.
#[derive(Clone, Debug, Default)]
struct ClickState {
    d: [f32; 3],
    p: [f32; 3],
    mean: f32,
    smooth: f32,
    count: u32,
}

impl Default for FrontEndState {
    fn default() -> Self {
        Self {
            channel: ChannelFilterState::default(),
            prev: C32::new(0.0, 0.0),
            eq: FirState::default(),
            click: ClickState::default(),
        }
    }
}

impl FrontEnd {
    /// A front end for a station `offset_hz` from the centre of a 2.4 MS/s
    /// cu8 stream (|offset| ≤ 1 MHz; shifted to 0 Hz inside the channel
    /// filter), with the stereo channel filter ([`STEREO_CUTOFF_HZ`]).
    ///
    /// ```
    /// use airwaves_core::fm::wbfm::FrontEnd;
    /// let fe = FrontEnd::new(-250e3);
    /// assert_eq!(fe.max_output(2400), 240);
    /// ```
    pub fn new(offset_hz: f64) -> Self {
        Self::build(offset_hz, STEREO_CUTOFF_HZ, Taps::Fast)
    }

    /// The mono front end: the 192-tap channel filter ([`Taps::Sharp`])
    /// with its −6 dB point at [`MONO_CUTOFF_HZ`]. Against the 96-tap
    /// filter at 120 kHz: 0.4 dB more SNR at CNR 40 (78.2 dB, six 1 s
    /// scenes; within 0.1 dB of an f64 receiver with ideal filters), the
    /// same at CNR 20–8, and THD at CNR 50 from −88 to −109 dB, for about
    /// 14 more instructions per input sample.
    /// `None` if `|offset_hz| > 1 MHz`.
    ///
    /// ```
    /// use airwaves_core::fm::wbfm::FrontEnd;
    /// assert!(FrontEnd::mono(300e3).is_some());
    /// assert!(FrontEnd::mono(2e6).is_none());
    /// ```
    pub fn mono(offset_hz: f64) -> Option<Self> {
        Self::with_channel(offset_hz, MONO_CUTOFF_HZ, Taps::Sharp)
    }

    /// A front end whose 96-tap channel filter ([`Taps::Fast`]) has its
    /// −6 dB point at `cutoff_hz` (50–200 kHz). `None` if the cutoff is
    /// out of range or `|offset_hz| > 1 MHz`.
    ///
    /// ```
    /// use airwaves_core::fm::wbfm::FrontEnd;
    /// assert!(FrontEnd::with_cutoff(300e3, 120e3).is_some());
    /// assert!(FrontEnd::with_cutoff(0.0, 400e3).is_none());
    /// ```
    pub fn with_cutoff(offset_hz: f64, cutoff_hz: f64) -> Option<Self> {
        Self::with_channel(offset_hz, cutoff_hz, Taps::Fast)
    }

    /// A front end whose channel filter has `taps` taps and its −6 dB
    /// point at `cutoff_hz` (50–200 kHz). `None` if the cutoff is out of
    /// range or `|offset_hz| > 1 MHz`.
    pub fn with_channel(offset_hz: f64, cutoff_hz: f64, taps: Taps) -> Option<Self> {
        let ok = (50e3..=200e3).contains(&cutoff_hz) && (-1e6..=1e6).contains(&offset_hz);
        ok.then(|| Self::build(offset_hz, cutoff_hz, taps))
    }

    fn build(offset_hz: f64, cutoff_hz: f64, taps: Taps) -> Self {
        let fs = INPUT_RATE as f64;
        let channel = ChannelFilter::with_taps(offset_hz / fs, cutoff_hz / fs, taps);
        Self {
            step: channel.phase_step() as f32,
            channel,
            gain: (MPX_RATE as f64 / (2.0 * core::f64::consts::PI * DEVIATION_HZ)) as f32,
            click: Some((CLICK_THRESHOLD_RAD, CLICK_SMOOTHING, CLICK_DIP)),
            eq: SymFir::new(sinc_equaliser(60e3 / MPX_RATE as f64)),
        }
    }

    /// The same front end with the click suppressor on (the default) or
    /// off. On, the MPX is delayed by two samples.
    ///
    /// ```
    /// use airwaves_core::fm::wbfm::FrontEnd;
    /// let plain = FrontEnd::new(-250e3).with_click_suppression(false);
    /// assert!(!plain.click_suppression());
    /// assert!(FrontEnd::new(-250e3).click_suppression());
    /// ```
    pub fn with_click_suppression(mut self, on: bool) -> Self {
        self.click = on.then_some((CLICK_THRESHOLD_RAD, CLICK_SMOOTHING, CLICK_DIP));
        self
    }

    /// Whether the click suppressor is on.
    pub fn click_suppression(&self) -> bool {
        self.click.is_some()
    }

    /// The most MPX samples `input_len` I/Q pairs can produce:
    /// `⌈input_len / 10⌉`.
    pub fn max_output(&self, input_len: usize) -> usize {
        input_len.div_ceil(MPX_DECIMATION)
    }

    /// Demodulate `iq` (cu8 pairs at 2.4 MS/s) into MPX samples at 240 kHz
    /// (±1.0 = ±75 kHz) at the front of `mpx`; returns their count.
    ///
    /// # Errors
    /// [`OutputTooShort`] if `mpx.len() < max_output(iq.len())` (nothing is
    /// processed).
    pub fn process(
        &self,
        state: &mut FrontEndState,
        iq: &[[u8; 2]],
        mpx: &mut [f32],
    ) -> Result<usize, OutputTooShort> {
        OutputTooShort::check(self.max_output(iq.len()), mpx.len())?;
        // One copy of the loop per filter length, each with the
        // discriminator inlined into the filter's output loop.
        Ok(match self.channel.taps() {
            Taps::Fast => self.demodulate::<TAPS>(state, iq, mpx),
            Taps::Sharp => self.demodulate::<SHARP_TAPS>(state, iq, mpx),
        })
    }

    /// [`process`](Self::process) with the channel filter's length `N`
    /// known at compile time; `mpx` has room.
    #[inline]
    fn demodulate<const N: usize>(
        &self,
        state: &mut FrontEndState,
        iq: &[[u8; 2]],
        mpx: &mut [f32],
    ) -> usize {
        let mut n = 0;
        let FrontEndState {
            channel,
            prev,
            eq,
            click,
        } = state;
        self.channel.run::<N>(channel, iq, |z| {
            let x = C32::new(z[0] as f32, z[1] as f32);
            let p = *prev;
            *prev = x;
            // arg(x · conj(p)) minus the shift's constant step, wrapped.
            let re = x.re * p.re + x.im * p.im;
            let im = x.im * p.re - x.re * p.im;
            let mut d = atan2(im, re) - self.step;
            if d > PI {
                d -= 2.0 * PI;
            } else if d < -PI {
                d += 2.0 * PI;
            }
            if let Some((threshold, alpha, dip)) = self.click {
                d = click.run(d, x.re * x.re + x.im * x.im, threshold, alpha, dip);
            }
            mpx[n] = self.eq.process(eq, self.gain * d);
            n += 1;
        });
        n
    }
}

/// Click threshold: summed excess of three phase steps over the smoothed
/// MPX, radians (a click adds 2π).
const CLICK_THRESHOLD_RAD: f32 = 4.5;
/// A click needs a channel sample below this fraction of the mean power.
const CLICK_DIP: f32 = 0.8;
/// Smoothing of the mean channel power, per MPX sample.
const MEAN_ALPHA: f32 = 1.0 / 256.0;
/// Smoothing of the click suppressor's reference, per MPX sample (a
/// one-pole at about 8.5 kHz).
const CLICK_SMOOTHING: f32 = 0.2;

impl ClickState {
    /// Push phase step `d` (radians, wrapped); return the step from two
    /// samples earlier, replaced by the smoothed reference if it belongs
    /// to a click.
    #[inline]
    fn run(&mut self, d: f32, power: f32, threshold: f32, alpha: f32, dip: f32) -> f32 {
        self.d = [self.d[1], self.d[2], d];
        self.p = [self.p[1], self.p[2], power];
        self.mean += MEAN_ALPHA * (power - self.mean);
        let excess = self.d[0] + self.d[1] + self.d[2] - 3.0 * self.smooth;
        let low = self.p[0].min(self.p[1]).min(self.p[2]);
        if excess.abs() > threshold && low < dip * self.mean {
            self.d = [self.smooth; 3];
            self.count += 1;
        }
        let out = self.d[0];
        self.smooth += alpha * (out - self.smooth);
        out
    }
}

/// Distinct coefficients of the equaliser (`EQ_N = 2 EQ_P − 1`).
const EQ_P: usize = EQ_N.div_ceil(2);

/// Least-squares fit of a symmetric `EQ_N`-tap FIR
/// `c₀ + Σₖ 2cₖ cos(k w)` to `1/sinc(f)` over `0 ≤ f ≤ f_max` (cycles per
/// sample); returns the taps, outermost first.
fn sinc_equaliser(f_max: f64) -> [f32; EQ_N] {
    let mut m = [[0.0f64; EQ_P]; EQ_P];
    let mut r = [0.0f64; EQ_P];
    const GRID: usize = 400;
    for i in 0..=GRID {
        let f = f_max * i as f64 / GRID as f64;
        let w = 2.0 * core::f64::consts::PI * f;
        let mut basis = [0.0; EQ_P];
        for (k, v) in basis.iter_mut().enumerate() {
            *v = if k == 0 {
                1.0
            } else {
                2.0 * libm::cos(k as f64 * w)
            };
        }
        let x = core::f64::consts::PI * f;
        let target = if x == 0.0 { 1.0 } else { x / libm::sin(x) };
        for a in 0..EQ_P {
            r[a] += basis[a] * target;
            for b in 0..EQ_P {
                m[a][b] += basis[a] * basis[b];
            }
        }
    }
    let c = solve(m, r);
    let mut taps = [0.0f32; EQ_N];
    for (k, &ck) in c.iter().enumerate() {
        taps[EQ_P - 1 - k] = ck as f32;
        taps[EQ_P - 1 + k] = ck as f32;
    }
    taps
}

/// Solve `m c = r` (symmetric positive definite) by Gaussian elimination
/// with partial pivoting.
fn solve<const P: usize>(mut m: [[f64; P]; P], mut r: [f64; P]) -> [f64; P] {
    for col in 0..P {
        let piv = (col..P)
            .max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))
            .unwrap_or(col);
        m.swap(col, piv);
        r.swap(col, piv);
        for row in col + 1..P {
            let k = m[row][col] / m[col][col];
            let pivot_row = m[col];
            for (v, p) in m[row][col..].iter_mut().zip(&pivot_row[col..]) {
                *v -= k * p;
            }
            r[row] -= k * r[col];
        }
    }
    let mut c = [0.0; P];
    for row in (0..P).rev() {
        let mut v = r[row];
        for j in row + 1..P {
            v -= m[row][j] * c[j];
        }
        c[row] = v / m[row][row];
    }
    c
}

/// The audio-rate stages shared by the mono and stereo decoders:
/// resampler taps and the 15 kHz audio filter.
#[derive(Clone, Debug)]
pub(crate) struct AudioPath {
    pub(crate) rs_taps: [f32; RS_TAPS],
    pub(crate) fir: SymFir<f32, AUD_N>,
}

/// State of one channel through [`AudioPath`].
#[derive(Clone, Debug, Default)]
pub(crate) struct AudioPathState {
    pub(crate) rs: ResamplerState<f32, RS_HIST>,
    pub(crate) fir: FirState<f32, AUD_N>,
}

impl AudioPath {
    pub(crate) fn new() -> Self {
        let mut rs_taps = [0.0f32; RS_TAPS];
        design_f32(1, AUDIO_DECIMATION as u32, 80.0, &mut rs_taps);
        Self {
            rs_taps,
            fir: SymFir::design(&FirDesign::lowpass(17e3 / AUDIO_RATE as f64, 80.0)),
        }
    }

    /// 240 kHz `x` (at most [`CHUNK`]) → 48 kHz into `y`; returns the count.
    pub(crate) fn run(&self, st: &mut AudioPathState, x: &[f32], y: &mut [f32]) -> usize {
        let rs = Resampler::new(1, AUDIO_DECIMATION as u32, &self.rs_taps);
        let n = rs.process(&mut st.rs, x, y);
        self.fir.inplace_block(&mut st.fir, &mut y[..n]);
        n
    }
}

/// In-place block filtering helper.
trait InplaceBlock<S> {
    fn inplace_block(&self, st: &mut S, y: &mut [f32]);
}

impl<P: SplitProcess<f32, f32, S>, S> InplaceBlock<S> for P {
    fn inplace_block(&self, st: &mut S, y: &mut [f32]) {
        for v in y.iter_mut() {
            *v = self.process(st, *v);
        }
    }
}

/// Mono decoder: MPX at 240 kHz → de-emphasis → 48 kHz audio, the mono
/// sum `(L + R)/2` (±1.0 = ±75 kHz). State: [`MonoDecoderState`].
#[derive(Clone, Debug)]
pub struct MonoDecoder {
    deemph: Deemphasis,
    audio: AudioPath,
}

/// [`MonoDecoder`] state.
#[derive(Clone, Debug, Default)]
pub struct MonoDecoderState {
    deemph: DeemphasisState,
    audio: AudioPathState,
}

impl MonoDecoder {
    /// A mono decoder with de-emphasis time constant `tau` seconds
    /// ([`TAU_50US`](crate::dsp::deemph::TAU_50US) or
    /// [`TAU_75US`](crate::dsp::deemph::TAU_75US)).
    ///
    /// # Panics
    /// Panics unless `tau` is finite and positive.
    ///
    /// ```
    /// use airwaves_core::dsp::deemph::TAU_50US;
    /// use airwaves_core::fm::wbfm::MonoDecoder;
    /// let d = MonoDecoder::new(TAU_50US);
    /// assert_eq!(d.max_output(240), 48);
    /// ```
    pub fn new(tau: f64) -> Self {
        Self {
            deemph: Deemphasis::new(tau, MPX_RATE as f64),
            audio: AudioPath::new(),
        }
    }

    /// The most audio samples `mpx_len` MPX samples can produce:
    /// `⌈mpx_len / 5⌉`.
    pub fn max_output(&self, mpx_len: usize) -> usize {
        mpx_len.div_ceil(AUDIO_DECIMATION)
    }

    /// Decode `mpx` (240 kHz) into audio at 48 kHz at the front of `audio`;
    /// returns the count.
    ///
    /// # Errors
    /// [`OutputTooShort`] if `audio.len() < max_output(mpx.len())`.
    pub fn process(
        &self,
        state: &mut MonoDecoderState,
        mpx: &[f32],
        audio: &mut [f32],
    ) -> Result<usize, OutputTooShort> {
        OutputTooShort::check(self.max_output(mpx.len()), audio.len())?;
        let mut buf = [0.0f32; CHUNK];
        let mut n = 0;
        for x in mpx.chunks(CHUNK) {
            let b = &mut buf[..x.len()];
            self.deemph.block(&mut state.deemph, x, b);
            n += self.audio.run(&mut state.audio, b, &mut audio[n..]);
        }
        Ok(n)
    }
}

#[cfg(test)]
pub(crate) mod test {
    extern crate std;
    use super::*;
    use crate::dsp::deemph::TAU_75US;
    use crate::fm::generator::{Adjacent, Generator, GeneratorConfig, Tone};
    use crate::testing::{fit_tone, tone_sinad_db};
    use std::vec;
    use std::vec::Vec;

    /// Generate `n` samples of a scene: station at -250 kHz, optional
    /// adjacent +6 dB at +400 kHz, L and R tones.
    pub(crate) fn scene(
        n: usize,
        cnr: Option<f64>,
        adjacent: bool,
        l: Option<Tone>,
        r: Option<Tone>,
        stereo: bool,
    ) -> Vec<[u8; 2]> {
        let mut cfg = GeneratorConfig::new(-250e3);
        cfg.cnr_db = cnr;
        cfg.tau = Some(TAU_75US);
        cfg.stereo = stereo;
        if !stereo {
            cfg.pilot_level = 0.0;
        }
        cfg.seed = 7;
        if adjacent {
            cfg.adjacent = Some(Adjacent {
                offset_hz: 400e3,
                level_db: 6.0,
                tone_hz: 2500.0,
            });
        }
        let g = Generator::new(cfg).unwrap();
        let mut s = g.state();
        let mut iq = vec![[0u8; 2]; n];
        let f = |t: Option<Tone>| move |x: f64| t.map_or(0.0, |t| t.at(x));
        g.fill(&mut s, f(l), f(r), |_| 0.0, &mut iq);
        iq
    }

    /// Mono SNR (dB) of a 1 kHz tone through the receiver, skipping 0.1 s.
    fn mono_snr(cnr: Option<f64>, adjacent: bool) -> f64 {
        let fe = FrontEnd::mono(-250e3).unwrap();
        mono_snr_with(&fe, cnr, adjacent)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_click_suppression_extends_threshold() {
        // GNU Radio wfm_rcv: 46.1 / 35.7 dB at CNR 12 / 8.
        // Measured 47.1 → 50.4 and 29.3 → 39.6 dB.
        for (cnr, floor_off, floor_on) in [(12.0, 46.0, 49.0), (8.0, 26.0, 38.0)] {
            let fe = FrontEnd::mono(-250e3).unwrap();
            let on = mono_snr_with(&fe, Some(cnr), true);
            let off = mono_snr_with(&fe.with_click_suppression(false), Some(cnr), true);
            std::eprintln!(
                "mono SNR at CNR {cnr}: {off:.1} dB without, {on:.1} dB with click suppression"
            );
            assert!(
                off > floor_off && on > floor_on,
                "CNR {cnr}: {off:.1} / {on:.1} dB"
            );
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_no_clicks_on_a_clean_full_scale_treble() {
        // 15 kHz at full deviation (no pre-emphasis), CNR 40: the largest
        // legitimate phase excursion; nothing may be taken for a click.
        let mut cfg = GeneratorConfig::new(-250e3);
        cfg.cnr_db = Some(40.0);
        cfg.tau = None;
        cfg.stereo = false;
        cfg.pilot_level = 0.0;
        let g = Generator::new(cfg).unwrap();
        let mut s = g.state();
        let tone = Tone::new(15_000.0, 1.1);
        let mut iq = vec![[0u8; 2]; 480_000];
        g.fill(&mut s, |t| tone.at(t), |t| tone.at(t), |_| 0.0, &mut iq);
        let fe = FrontEnd::new(-250e3);
        let mut fs = FrontEndState::default();
        let mut mpx = vec![0.0f32; fe.max_output(iq.len())];
        // 10 ms to settle the mean power (the first sample is a step).
        fe.process(&mut fs, &iq[..24_000], &mut mpx).unwrap();
        let settled = fs.clicks();
        fe.process(&mut fs, &iq[24_000..], &mut mpx).unwrap();
        assert_eq!(fs.clicks(), settled);
    }

    /// Mono SNR (dB) through front end `fe`.
    fn mono_snr_with(fe: &FrontEnd, cnr: Option<f64>, adjacent: bool) -> f64 {
        // Full audio level: 0.9 of 75 kHz, the usual reference.
        let tone = Tone::new(1000.0, 1.0);
        let iq = scene(
            INPUT_RATE as usize * 6 / 10,
            cnr,
            adjacent,
            Some(tone),
            Some(tone),
            false,
        );
        let mono = MonoDecoder::new(TAU_75US);
        let mut fs = FrontEndState::default();
        let mut ms = MonoDecoderState::default();
        let mut mpx = vec![0.0f32; fe.max_output(iq.len())];
        let n = fe.process(&mut fs, &iq, &mut mpx).unwrap();
        let mut audio = vec![0.0f32; mono.max_output(n)];
        let m = mono.process(&mut ms, &mpx[..n], &mut audio).unwrap();
        let y: Vec<f64> = audio[4800..m].iter().map(|&v| v as f64).collect();
        let (amp, _, _) = fit_tone(&y, 1000.0 / AUDIO_RATE as f64);
        // 0.9 of full deviation.
        assert!((amp / 0.9 - 1.0).abs() < 0.02, "amplitude {amp}");
        tone_sinad_db(&y, 1000.0 / AUDIO_RATE as f64)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_mono_snr_vs_cnr() {
        // GNU Radio wfm_rcv: 73.4 / 54.3 / 46.1 / 35.7 dB.
        // Measured 78.2 / 58.7 / 50.4 / 39.6 dB (0.6 s: at CNR 8 the
        // figure depends on the few clicks left; 41.5 dB on average over
        // six 1 s scenes).
        let floors = [(40.0, 75.0), (20.0, 56.0), (12.0, 48.5), (8.0, 38.0)];
        for (cnr, floor) in floors {
            let snr = mono_snr(Some(cnr), true);
            std::eprintln!("mono SNR at CNR {cnr} dB (+6 dB adjacent): {snr:.1} dB");
            assert!(snr > floor, "CNR {cnr}: {snr:.1} dB below {floor}");
        }
    }

    /// Run the whole chain (front end, mono and stereo decoders) over `iq`
    /// split at `cuts`; return the MPX, mono and left/right outputs.
    fn chain_split(iq: &[[u8; 2]], cuts: &[usize]) -> [Vec<f32>; 4] {
        let fe = FrontEnd::new(-250e3);
        let mono = MonoDecoder::new(TAU_75US);
        let st = crate::fm::stereo::StereoDecoder::new(TAU_75US);
        let (mut fs, mut ms) = (FrontEndState::default(), MonoDecoderState::default());
        let mut ss = crate::fm::stereo::StereoDecoderState::default();
        let mut out: [Vec<f32>; 4] = Default::default();
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (iq.len() + 1)).collect();
        cuts.sort_unstable();
        let mut start = 0;
        for end in cuts.into_iter().chain([iq.len()]) {
            let x = &iq[start..end];
            start = end;
            let mut mpx = vec![0.0; fe.max_output(x.len())];
            let n = fe.process(&mut fs, x, &mut mpx).unwrap();
            let mut a = vec![0.0; mono.max_output(n)];
            let m = mono.process(&mut ms, &mpx[..n], &mut a).unwrap();
            let (mut l, mut r) = (vec![0.0; st.max_output(n)], vec![0.0; st.max_output(n)]);
            let k = st.process(&mut ss, &mpx[..n], &mut l, &mut r).unwrap();
            out[0].extend_from_slice(&mpx[..n]);
            out[1].extend_from_slice(&a[..m]);
            out[2].extend_from_slice(&l[..k]);
            out[3].extend_from_slice(&r[..k]);
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(crate::testing::proptest_config())]
        #[test]
        #[cfg_attr(miri, ignore)]
        fn test_same_for_any_split(cuts in proptest::collection::vec(0usize..20_000, 0..6)) {
            let tone = Tone::new(1000.0, 0.9);
            let iq = scene(20_000, Some(30.0), true, Some(tone), None, true);
            let whole = chain_split(&iq, &[]);
            proptest::prop_assert_eq!(whole[0].len(), 2000);
            proptest::prop_assert_eq!(whole[1].len(), 400);
            proptest::prop_assert_eq!(&chain_split(&iq, &cuts), &whole);
        }
    }

    #[test]
    fn test_short_output_is_an_error() {
        let fe = FrontEnd::new(0.0);
        let mut s = FrontEndState::default();
        let mut mpx = [0.0f32; 9];
        assert_eq!(
            fe.process(&mut s, &[[128, 128]; 100], &mut mpx),
            Err(OutputTooShort {
                expected: 10,
                got: 9
            })
        );
        let mono = MonoDecoder::new(TAU_75US);
        let mut ms = MonoDecoderState::default();
        assert!(mono.process(&mut ms, &[0.0; 11], &mut [0.0; 2]).is_err());
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_equaliser_flattens_discriminator() {
        // |EQ(f) · sinc(f)| within 0.001 dB of 1 from DC to 60 kHz.
        let eq = sinc_equaliser(0.25);
        for k in 0..=60 {
            let f = k as f64 * 1e3 / MPX_RATE as f64;
            let w = 2.0 * core::f64::consts::PI * f;
            let h: f64 = (0..EQ_N)
                .map(|n| eq[n] as f64 * libm::cos(w * (n as f64 - 3.0)))
                .sum();
            let x = core::f64::consts::PI * f;
            let sinc = if x == 0.0 { 1.0 } else { libm::sin(x) / x };
            let err_db = 20.0 * libm::log10(h * sinc);
            assert!(err_db.abs() < 1e-3, "{k} kHz: {err_db} dB");
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_adjacent_does_not_hurt() {
        let with = mono_snr(Some(40.0), true);
        let without = mono_snr(Some(40.0), false);
        std::eprintln!("CNR 40: {with:.1} dB with adjacent, {without:.1} dB without");
        assert!((with - without).abs() < 1.0);
    }

    /// Mono audio through `FrontEnd::new` from a generated scene (no
    /// adjacent station), after `skip` s of settling.
    fn mono_audio(cfg: GeneratorConfig, tone: Tone, seconds: f64, skip: f64, tau: f64) -> Vec<f64> {
        let g = Generator::new(cfg).unwrap();
        let mut s = g.state();
        let mut iq = vec![[0u8; 2]; (INPUT_RATE as f64 * seconds) as usize];
        g.fill(&mut s, |t| tone.at(t), |t| tone.at(t), |_| 0.0, &mut iq);
        let fe = FrontEnd::new(-250e3);
        let mono = MonoDecoder::new(tau);
        let (mut fs, mut ms) = (FrontEndState::default(), MonoDecoderState::default());
        let mut mpx = vec![0.0f32; fe.max_output(iq.len())];
        let n = fe.process(&mut fs, &iq, &mut mpx).unwrap();
        let mut audio = vec![0.0f32; mono.max_output(n)];
        let m = mono.process(&mut ms, &mpx[..n], &mut audio).unwrap();
        let k = (AUDIO_RATE as f64 * skip) as usize;
        audio[k..m].iter().map(|&v| v as f64).collect()
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_thd_n_at_cnr_50() {
        // 1 kHz at 90 % of full deviation, 75 µs, CNR 50 dB, stereo
        // filter; the notch is the least-squares fit of the tone (and DC)
        // subtracted from the output: THD+N = residual / tone.
        let mut cfg = GeneratorConfig::new(-250e3);
        cfg.cnr_db = Some(50.0);
        cfg.tau = Some(TAU_75US);
        cfg.stereo = false;
        cfg.pilot_level = 0.0;
        cfg.seed = 3;
        let y = mono_audio(cfg, Tone::new(1000.0, 1.0), 0.5, 0.1, TAU_75US);
        let thd_n = -tone_sinad_db(&y, 1000.0 / AUDIO_RATE as f64);
        std::eprintln!("THD+N at CNR 50, 1 kHz, mono: {thd_n:.1} dB");
        // Measured −84.5 dB.
        assert!(thd_n < -75.0, "THD+N {thd_n:.1} dB");
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_deemphasis_follows_analog_curve() {
        // No pre-emphasis in the generator: the receiver's response is the
        // de-emphasis curve times the audio path (flat to 15 kHz).
        use crate::dsp::deemph::{TAU_50US, analog_magnitude};
        let mut worst: f64 = 0.0;
        for tau in [TAU_50US, TAU_75US] {
            for f in [30.0, 100.0, 1000.0, 3000.0, 6000.0, 10_000.0, 15_000.0] {
                let mut cfg = GeneratorConfig::new(-250e3);
                cfg.cnr_db = None;
                cfg.tau = None;
                cfg.stereo = false;
                cfg.pilot_level = 0.0;
                let y = mono_audio(cfg, Tone::new(f, 0.5), 0.16, 0.06, tau);
                let (amp, _, _) = fit_tone(&y, f / AUDIO_RATE as f64);
                let want = 0.45 * analog_magnitude(tau, f);
                let err = 20.0 * libm::log10(amp / want);
                std::eprintln!("de-emphasis {:.0} µs, {f:>6} Hz: {err:+.3} dB", tau * 1e6);
                worst = worst.max(err.abs());
            }
        }
        std::eprintln!("de-emphasis: worst error {worst:.3} dB (30 Hz – 15 kHz)");
        assert!(worst < 0.05, "{worst:.3} dB");
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_rds_through_the_chain() {
        // These seeds ended with the RDS timing stuck half a bit off (no
        // block in 4 s; 9 of the first 16 seeds did) before the timing's
        // jump ratio was lowered from 2 to 1.25.
        for seed in [0, 2, 5] {
            rds_through_the_chain(seed);
        }
    }

    fn rds_through_the_chain(seed: u64) {
        use crate::rds::decoder::{Decoder, DecoderState};
        use crate::rds::encoder::Encoder;
        use crate::rds::group::Program;
        const RT: &[u8] = b"airwaves: RDS through the real FM chain";
        let p = Program::new(0xC0DE).with_ps(b"AIRWAVES").with_rt(RT);
        let enc = Encoder::new(p, INPUT_RATE as f64, 0.045).unwrap();
        let mut es = enc.start();
        let mut cfg = GeneratorConfig::new(-250e3);
        cfg.cnr_db = Some(25.0);
        cfg.tau = Some(TAU_75US);
        cfg.seed = seed;
        cfg.adjacent = Some(Adjacent {
            offset_hz: 400e3,
            level_db: 6.0,
            tone_hz: 2500.0,
        });
        let g = Generator::new(cfg).unwrap();
        let mut gs = g.state();
        let tone = Tone::new(1000.0, 0.8);
        let fe = FrontEnd::new(-250e3);
        let mut fs = FrontEndState::default();
        let dec = Decoder::new(MPX_RATE as f64).unwrap();
        let mut ds = DecoderState::new();
        // 4 s in blocks of 0.1 s.
        let mut iq = vec![[0u8; 2]; 240_000];
        let mut mpx = vec![0.0f32; fe.max_output(iq.len())];
        for _ in 0..40 {
            g.fill(
                &mut gs,
                |t| tone.at(t),
                |_| 0.0,
                |_| enc.next_sample(&mut es) as f64,
                &mut iq,
            );
            let n = fe.process(&mut fs, &iq, &mut mpx).unwrap();
            dec.process_block(&mut ds, &mpx[..n], |_| {});
        }
        let st = ds.station();
        let stats = ds.stats();
        std::eprintln!(
            "RDS at CNR 25 through the chain, seed {seed}: {} blocks, {} corrected, {} errors, BLER {:.4}",
            stats.blocks,
            stats.corrected,
            stats.errors,
            stats.block_error_rate()
        );
        assert_eq!(st.pi, Some(0xC0DE));
        assert_eq!(st.ps, Some(*b"AIRWAVES"));
        assert_eq!(st.radiotext(), Some(RT));
        assert!(stats.block_error_rate() < 0.02, "{stats:?}");
    }
}
