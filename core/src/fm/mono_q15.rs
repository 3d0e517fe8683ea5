//! Wideband FM mono receiver in fixed point, for microcontrollers without
//! a fast FPU: cu8 at 2.4 MS/s to Q15 audio at 48 kHz with integer
//! arithmetic only (`i16` samples, `i32`/`i64` accumulators).
//!
//! ```text
//! cu8 ──▶ ChannelFilter ↓10 (i16 × i16 → i32) ──▶ arg(z z*) in i64 → binary angle − step ──▶ MPX Q15
//!     ──▶ de-emphasis Q15 (240 kHz) ──▶ resampler Q15 240 → 48 kHz (72 taps) ──▶ FIR Q15 15 kHz (63 taps) ──▶ audio Q15
//! ```
//!
//! The channel filter is the one of the `f32` chain
//! ([`channel`](super::channel)); the phase of `z[n] · conj(z[n−1])` is
//! formed exactly in `i64`, shifted to 31 bits and taken with
//! [`atan2_i32`] (error ≤ 1.1 LSB of π/32768, −85 dB of full deviation);
//! the constant step of the frequency shift is subtracted as a wrapping
//! binary angle, and clicks are removed as in the `f32` front end. The
//! MPX, de-emphasis and filters work on that binary
//! angle (±1.0 ≙ ±π per sample, full deviation at ±0.625), which leaves
//! headroom for noise peaks: scaling the MPX to ±1.0 = ±75 kHz clipped
//! them and cost 12 dB at CNR 20 (measured). Output: Q15, ±1.0 = ±75 kHz
//! of deviation (the mono sum `(L + R)/2` as transmitted), saturating; the
//! output stage applies the deviation scale 1.6 and undoes the 0.95 gain
//! of the 15 kHz filter (kept below 1 so its `i32` sums cannot overflow). No `1/sinc` equaliser: the
//! discriminator's droop is 0.06 dB at 15 kHz.
//!
//! Measured (tests below, same scenes as the `f32` chain): mono SNR
//! 77.3 / 58.7 / 50.4 / 41.6 dB at CNR 40 / 20 / 12 / 8, as the `f32`
//! chain with the same 96-tap channel filter (the `f32` mono front end's
//! 192-tap filter gains 0.4 dB at CNR 40); instructions per input sample on x86-64: `benches` case
//! `wbfm/q15/mono`.

use super::channel::{ChannelFilter, ChannelFilterState, TAPS};
use super::wbfm::{
    AUD_N, AUDIO_DECIMATION, AUDIO_RATE, DEVIATION_HZ, INPUT_RATE, MPX_DECIMATION, MPX_RATE,
    RS_HIST, RS_TAPS,
};
use crate::dsp::SplitProcess;
use crate::dsp::deemph::{DeemphasisQ15, DeemphasisQ15State};
use crate::dsp::fir::{FirDesign, FirState, SymFir};
use crate::dsp::output::OutputTooShort;
use crate::dsp::phase::atan2_i32;
use crate::dsp::resample::{Resampler, ResamplerState, design_q15};

/// DC gain of the Q15 audio filter.
const FIR_GAIN: f64 = 0.95;
/// −6 dB point of the Q15 receiver's channel filter, Hz: the 96-tap
/// ([`Taps::Fast`](super::channel::Taps::Fast)) filter, which at this
/// cutoff is flat to about 56 kHz; the f32 mono front end's 192-tap filter
/// at 110 kHz would cost a microcontroller twice as much.
pub const CHANNEL_CUTOFF_HZ: f64 = 120e3;
/// Input samples per internal chunk (240 MPX samples).
const CHUNK_IN: usize = 2400;

/// Fixed-point mono receiver configuration. State: [`MonoReceiverQ15State`].
#[derive(Clone, Debug)]
pub struct MonoReceiverQ15 {
    channel: ChannelFilter,
    /// Phase step of the frequency shift, binary angle (32768 ≙ π).
    step: i16,
    /// Audio Q15 per filtered binary-angle unit, Q14 (1.6 / 0.95: the
    /// deviation scale and the audio filter's gain undone).
    out_scale: i32,
    deemph: DeemphasisQ15,
    rs_taps: [i16; RS_TAPS],
    fir: SymFir<i16, AUD_N>,
}

/// [`MonoReceiverQ15`] state.
#[derive(Clone, Debug, Default)]
pub struct MonoReceiverQ15State {
    channel: ChannelFilterState,
    prev: [i32; 2],
    click: ClickQ15,
    deemph: DeemphasisQ15State,
    rs: ResamplerState<i16, RS_HIST>,
    fir: FirState<i16, AUD_N>,
}

impl MonoReceiverQ15 {
    /// A receiver for a station `offset_hz` from the centre of a 2.4 MS/s
    /// cu8 stream with the 96-tap channel filter at [`CHANNEL_CUTOFF_HZ`] and
    /// de-emphasis `tau` seconds. `None` unless |offset| ≤ 1 MHz and `tau`
    /// is finite and positive.
    ///
    /// ```
    /// use airwaves_core::dsp::deemph::TAU_50US;
    /// use airwaves_core::fm::mono_q15::MonoReceiverQ15;
    /// let rx = MonoReceiverQ15::new(-250e3, TAU_50US).unwrap();
    /// assert_eq!(rx.max_output(4800), 96);
    /// assert!(MonoReceiverQ15::new(2e6, TAU_50US).is_none());
    /// ```
    pub fn new(offset_hz: f64, tau: f64) -> Option<Self> {
        if !((-1e6..=1e6).contains(&offset_hz) && tau.is_finite() && tau > 0.0) {
            return None;
        }
        let fs = INPUT_RATE as f64;
        let channel = ChannelFilter::new(offset_hz / fs, CHANNEL_CUTOFF_HZ / fs);
        let rad_per_unit = core::f64::consts::PI / 32768.0;
        let full = 2.0 * core::f64::consts::PI * DEVIATION_HZ / MPX_RATE as f64;
        let mut rs_taps = [0i16; RS_TAPS];
        design_q15(1, AUDIO_DECIMATION as u32, 80.0, &mut rs_taps);
        Some(Self {
            step: libm::round(channel.phase_step() / rad_per_unit) as i32 as i16,
            channel,
            out_scale: libm::round(rad_per_unit / full * 32768.0 / FIR_GAIN * 16384.0) as i32,
            deemph: DeemphasisQ15::new(tau, MPX_RATE as f64),
            rs_taps,
            // At unit gain the taps' L1 norm (68748) could overflow the
            // i32 accumulator; 0.95 keeps it below 65536 and the output
            // stage restores the level.
            fir: SymFir::design(
                &FirDesign::lowpass(17e3 / AUDIO_RATE as f64, 80.0).with_gain(FIR_GAIN),
            ),
        })
    }

    /// The most audio samples `input_len` I/Q pairs can produce:
    /// `⌈input_len / 50⌉`.
    pub fn max_output(&self, input_len: usize) -> usize {
        input_len.div_ceil(MPX_DECIMATION * AUDIO_DECIMATION)
    }

    /// Demodulate `iq` (cu8 at 2.4 MS/s) into Q15 audio at 48 kHz at the
    /// front of `audio`; returns the count. Identical for any split of the
    /// input.
    ///
    /// # Errors
    /// [`OutputTooShort`] if `audio.len() < max_output(iq.len())` (nothing
    /// is processed).
    pub fn process(
        &self,
        state: &mut MonoReceiverQ15State,
        iq: &[[u8; 2]],
        audio: &mut [i16],
    ) -> Result<usize, OutputTooShort> {
        OutputTooShort::check(self.max_output(iq.len()), audio.len())?;
        let rs = Resampler::new(1, AUDIO_DECIMATION as u32, &self.rs_taps);
        let mut mpx = [0i16; CHUNK_IN / MPX_DECIMATION];
        let mut n = 0;
        for x in iq.chunks(CHUNK_IN) {
            let mut k = 0;
            let MonoReceiverQ15State {
                channel,
                prev,
                click,
                deemph,
                ..
            } = state;
            self.channel.run::<TAPS>(channel, x, |z| {
                // The MPX stays a binary angle (±1.0 ≙ ±π, full
                // deviation at ±0.625): headroom for the noise peaks that
                // a ±75 kHz = ±1.0 scale would clip.
                let angle = phase_step(z, *prev).wrapping_sub(self.step);
                *prev = z;
                let power = z[0] as i64 * z[0] as i64 + z[1] as i64 * z[1] as i64;
                let angle = click.run(angle, power);
                mpx[k] = self.deemph.process(deemph, angle);
                k += 1;
            });
            let c = rs.process(&mut state.rs, &mpx[..k], &mut audio[n..]);
            for v in audio[n..n + c].iter_mut() {
                let y = self.fir.process(&mut state.fir, *v) as i32;
                *v = ((y * self.out_scale + (1 << 13)) >> 14).clamp(-32768, 32767) as i16;
            }
            n += c;
        }
        Ok(n)
    }
}

/// The click suppressor of the `f32` front end in integers (see
/// [`wbfm`](super::wbfm)): three phase steps whose sum exceeds three times
/// a smoothed reference by 4.5 rad while a channel sample has less than
/// 0.8 × the mean power are replaced by the reference; two samples of
/// delay.
#[derive(Clone, Debug, Default)]
struct ClickQ15 {
    /// Last three phase steps, binary angle, oldest first.
    d: [i16; 3],
    /// Their channel powers.
    p: [i64; 3],
    /// Mean power (one-pole, 1/256).
    mean: i64,
    /// Reference, binary angle × 2⁸.
    smooth: i32,
    /// Clicks removed.
    count: u32,
}

/// 4.5 rad as a binary angle (32768 ≙ π).
const CLICK_THRESHOLD: i32 = 46_936;

impl ClickQ15 {
    #[inline]
    fn run(&mut self, d: i16, power: i64) -> i16 {
        self.d = [self.d[1], self.d[2], d];
        self.p = [self.p[1], self.p[2], power];
        self.mean += (power - self.mean) >> 8;
        let sum: i32 = self.d.iter().map(|&v| v as i32).sum();
        let excess = sum - 3 * (self.smooth >> 8);
        let low = self.p[0].min(self.p[1]).min(self.p[2]);
        if excess.abs() > CLICK_THRESHOLD && low * 5 < self.mean * 4 {
            self.d = [(self.smooth >> 8) as i16; 3];
            self.count += 1;
        }
        let out = self.d[0];
        // smooth += 0.2 (out − smooth)
        let delta = ((out as i32) << 8) - self.smooth;
        self.smooth += ((delta as i64 * 13_107) >> 16) as i32;
        out
    }
}

impl MonoReceiverQ15State {
    /// Clicks removed so far by the click suppressor.
    pub fn clicks(&self) -> u32 {
        self.click.count
    }
}

/// `arg(z · conj(p))` as a binary angle (32768 ≙ π), formed exactly in
/// `i64` and shifted to 31 bits for [`atan2_i32`]; 0 if either is 0.
#[inline]
fn phase_step(z: [i32; 2], p: [i32; 2]) -> i16 {
    let (zr, zi, pr, pi) = (z[0] as i64, z[1] as i64, p[0] as i64, p[1] as i64);
    let re = zr * pr + zi * pi;
    let im = zi * pr - zr * pi;
    let top = (re.unsigned_abs() | im.unsigned_abs()).max(1);
    let shift = (64 - top.leading_zeros()).saturating_sub(31);
    atan2_i32((im >> shift) as i32, (re >> shift) as i32)
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use crate::dsp::deemph::TAU_75US;
    use crate::fm::generator::Tone;
    use crate::fm::wbfm::test::scene;
    use crate::testing::{fit_tone, tone_sinad_db};
    use std::vec;
    use std::vec::Vec;

    fn run(iq: &[[u8; 2]], cuts: &[usize]) -> Vec<i16> {
        let rx = MonoReceiverQ15::new(-250e3, TAU_75US).unwrap();
        let mut st = MonoReceiverQ15State::default();
        let mut out = Vec::new();
        let mut start = 0;
        for &end in cuts.iter().chain(&[iq.len()]) {
            let mut a = vec![0i16; rx.max_output(end - start)];
            let n = rx.process(&mut st, &iq[start..end], &mut a).unwrap();
            out.extend_from_slice(&a[..n]);
            start = end;
        }
        out
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_mono_snr_q15() {
        let tone = Tone::new(1000.0, 1.0);
        // Measured 77.3 / 58.7 / 50.4 / 41.6 dB (the f32 chain's figures).
        for (cnr, floor) in [(40.0, 75.0), (20.0, 56.0), (12.0, 48.5), (8.0, 38.0)] {
            let iq = scene(1_440_000, Some(cnr), true, Some(tone), Some(tone), false);
            let a = run(&iq, &[]);
            let y: Vec<f64> = a[4800..].iter().map(|&v| v as f64 / 32768.0).collect();
            let f = 1000.0 / AUDIO_RATE as f64;
            let (amp, _, _) = fit_tone(&y, f);
            let snr = tone_sinad_db(&y, f);
            std::eprintln!("Q15 mono SNR at CNR {cnr} dB (+6 dB adjacent): {snr:.1} dB");
            assert!((amp / 0.9 - 1.0).abs() < 0.02, "amplitude {amp}");
            assert!(snr > floor, "CNR {cnr}: {snr:.1} dB");
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_same_for_any_split_q15() {
        let iq = scene(
            30_000,
            Some(30.0),
            true,
            Some(Tone::new(1000.0, 0.9)),
            None,
            true,
        );
        let whole = run(&iq, &[]);
        assert_eq!(whole.len(), 600);
        assert_eq!(run(&iq, &[1, 10, 2401, 2450, 9999, 29_999]), whole);
    }

    #[test]
    fn test_short_output_is_an_error() {
        let rx = MonoReceiverQ15::new(0.0, TAU_75US).unwrap();
        let mut st = MonoReceiverQ15State::default();
        assert_eq!(
            rx.process(&mut st, &[[128, 128]; 101], &mut [0i16; 2]),
            Err(OutputTooShort {
                expected: 3,
                got: 2
            })
        );
    }

    #[test]
    fn test_phase_step_quadrants() {
        // +90° per sample reads 16384; −90° −16384; zero gives 0.
        assert_eq!(phase_step([0, 1 << 25], [1 << 25, 0]), 16384);
        assert_eq!(phase_step([0, -(1 << 20)], [1 << 20, 0]), -16384);
        assert_eq!(phase_step([0, 0], [5, 5]), 0);
    }
}
