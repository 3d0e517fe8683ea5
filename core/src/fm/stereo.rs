//! Stereo decoder: MPX at 240 kHz to left and right audio at 48 kHz, with
//! a 19 kHz pilot PLL, the 38 kHz subcarrier regenerated from it, and a
//! blend that fades the L−R channel out as the pilot's signal-to-noise
//! ratio falls.
//!
//! # Per MPX sample (240 kHz)
//!
//! ```text
//! (c, s)   = (cos φ, sin φ)                      local pilot, φ = NCO phase
//! x_p      = bandpass₁₉ₖ(mpx)                     biquad, Q = 5, unity gain and 0° at 19 kHz
//! e        = lp₁ₖ(−x_p · s)                      phase detector: ½·p·sin(φ_pilot − φ), one-pole 1 kHz
//! ι       += k_i e;  φ += ω₀ + ι + k_p e          PI loop (type 2, no static phase error)
//! d        = −mpx · 4sc · b                       L−R demodulated at 2φ, times the blend b
//! I, Q     = lp²(2·x_p·c), lp²(2·x_p·s)          pilot amplitude and quadrature noise (two one-poles at 100 Hz)
//! ```
//!
//! The loop locks `cos φ` to the pilot. A standard transmitter (ITU-R
//! BS.450) sends the pilot as `sin ψ` and the subcarrier as `sin 2ψ` (both
//! crossing zero together, rising), so `φ = ψ − π/2` and the subcarrier is
//! `sin 2ψ = −sin 2φ = −2sc`: hence `d = −mpx · 4sc`, twice the subcarrier
//! to undo the ½ of the product.
//!
//! The loop has a natural frequency of 20 Hz and damping 0.707 for the
//! nominal 9 % pilot. The band-pass keeps the audio and the L−R sidebands
//! out of the loop: without it the loop's phase jitter, correlated with
//! the audio, cost 5 % of the pilot amplitude and tens of dB of blend
//! estimate. The blend `b` is updated every 64 samples from the
//! pilot SNR `I² / ⟨Q²⟩` (in a 100 Hz band): 0 below
//! [`StereoDecoder::blend_low_db`], 1 above
//! [`StereoDecoder::blend_high_db`], linear in dB between; it is 0 whenever
//! the pilot amplitude is below a third of 9 % (no pilot or not locked), so
//! mono stations and weak stations play mono, quietly.
//!
//! The sum `m = mpx` and difference `d` then take the same path: de-emphasis
//! at 240 kHz (exact there), the 240 → 48 kHz resampler and the 15 kHz
//! audio filter, which also removes the pilot and every subcarrier product
//! (see [`wbfm`](super::wbfm)). Finally `L = m + d`, `R = m − d`. Output
//! scale: ±1.0 = ±75 kHz of deviation, as the mono decoder.

use super::wbfm::{AUDIO_DECIMATION, AudioPath, AudioPathState, CHUNK, MPX_RATE};
use crate::dsp::SplitProcess;
use crate::dsp::deemph::{Deemphasis, DeemphasisState};
use crate::dsp::iir::{Biquad, BiquadDesign, Df2tState};
use crate::dsp::nco::cos_sin_f32;
use crate::dsp::output::OutputTooShort;
use core::f64::consts::PI;

/// Nominal pilot level (fraction of full deviation).
const PILOT_LEVEL: f64 = 0.09;
/// Samples between blend updates.
const BLEND_EVERY: u32 = 64;

/// Stereo decoder configuration. State: [`StereoDecoderState`].
#[derive(Clone, Debug)]
pub struct StereoDecoder {
    deemph: Deemphasis,
    audio: AudioPath,
    /// Band-pass (Q = 5) isolating the pilot for the loop and the I/Q arms.
    pilot_bp: Biquad,
    /// Nominal pilot phase step, turns · 2³² per sample.
    inc0: u32,
    /// Proportional and integral gains (radians per sample per unit error).
    kp: f32,
    ki: f32,
    /// One-pole low-pass of the phase error (1 kHz): keeps the detector's
    /// 38 kHz term and the L−R sidebands that leak through the band-pass
    /// out of the loop's phase, where they would turn into crosstalk.
    alpha_err: f32,
    /// One-pole smoothing of the I/Q arms and of the noise power.
    alpha_iq: f32,
    alpha_noise: f32,
    /// Pilot SNR (dB, in the I/Q arm bandwidth) at which the blend starts
    /// to open; `b = 0` at or below it.
    pub blend_low_db: f32,
    /// Pilot SNR (dB) at which the blend is fully open (`b = 1`).
    pub blend_high_db: f32,
}

/// [`StereoDecoder`] state.
#[derive(Clone, Debug)]
pub struct StereoDecoderState {
    pilot_bp: Df2tState<f32>,
    phase: u32,
    integ: f32,
    err: f32,
    i1: f32,
    q1: f32,
    i: f32,
    q: f32,
    noise: f32,
    blend: f32,
    count: u32,
    deemph: [DeemphasisState; 2],
    audio: [AudioPathState; 2],
}

impl Default for StereoDecoderState {
    fn default() -> Self {
        Self {
            pilot_bp: Default::default(),
            phase: 0,
            integ: 0.0,
            err: 0.0,
            i1: 0.0,
            q1: 0.0,
            i: 0.0,
            q: 0.0,
            // Start at 47 dB pilot SNR (blend closed) and let the
            // estimate settle from there.
            noise: (PILOT_LEVEL * PILOT_LEVEL * 2e-5) as f32,
            blend: 0.0,
            count: 0,
            deemph: Default::default(),
            audio: Default::default(),
        }
    }
}

impl StereoDecoderState {
    /// The current blend factor `b` (0 = mono, 1 = full stereo).
    pub fn blend(&self) -> f32 {
        self.blend
    }

    /// The pilot amplitude estimate (0.09 for a 9 % pilot).
    pub fn pilot_level(&self) -> f32 {
        self.i
    }

    /// The pilot signal-to-noise ratio estimate, dB in a 100 Hz band.
    pub fn pilot_snr_db(&self) -> f32 {
        10.0 * libm::log10f(self.i * self.i / self.noise.max(1e-20))
    }
}

impl StereoDecoder {
    /// A stereo decoder with de-emphasis `tau` seconds on each channel,
    /// blend from 47 to 55 dB of pilot SNR (in 100 Hz): measured
    /// 61 dB at CNR 40 (fully stereo), 43 dB at CNR 20 and 34 dB at CNR 12
    /// (mono).
    ///
    /// # Panics
    /// Panics unless `tau` is finite and positive.
    ///
    /// ```
    /// use airwaves_core::dsp::deemph::TAU_50US;
    /// use airwaves_core::fm::stereo::StereoDecoder;
    /// let d = StereoDecoder::new(TAU_50US);
    /// assert_eq!(d.max_output(240), 48);
    /// ```
    pub fn new(tau: f64) -> Self {
        let fs = MPX_RATE as f64;
        let wn = 2.0 * PI * 20.0 / fs;
        let kd = PILOT_LEVEL / 2.0;
        let zeta = core::f64::consts::FRAC_1_SQRT_2;
        Self {
            deemph: Deemphasis::new(tau, fs),
            audio: AudioPath::new(),
            pilot_bp: BiquadDesign::bandpass(19_000.0, fs, 5.0).to_f32(),
            inc0: libm::round(19_000.0 / fs * 4_294_967_296.0) as u32,
            kp: (2.0 * zeta * wn / kd) as f32,
            ki: (wn * wn / kd) as f32,
            alpha_err: (1.0 - libm::exp(-2.0 * PI * 1_000.0 / fs)) as f32,
            alpha_iq: (2.0 * PI * 100.0 / fs) as f32,
            alpha_noise: (2.0 * PI * 5.0 / fs) as f32,
            blend_low_db: 47.0,
            blend_high_db: 55.0,
        }
    }

    /// The most audio samples per channel `mpx_len` MPX samples can
    /// produce: `⌈mpx_len / 5⌉`.
    pub fn max_output(&self, mpx_len: usize) -> usize {
        mpx_len.div_ceil(AUDIO_DECIMATION)
    }

    /// One MPX sample through the pilot loop: returns `(m, d)`, the sum and
    /// the blended difference signal before filtering.
    #[inline]
    fn pilot(&self, st: &mut StereoDecoderState, x: f32) -> (f32, f32) {
        let e = cos_sin_f32(st.phase);
        let (c, s) = (e.re, e.im);
        let xp = self.pilot_bp.process(&mut st.pilot_bp, x);
        st.err += self.alpha_err * (-xp * s - st.err);
        let err = st.err;
        st.integ += self.ki * err;
        let step = st.integ + self.kp * err;
        let corr = (step * (4_294_967_296.0 / (2.0 * core::f32::consts::PI))) as i32;
        st.phase = st.phase.wrapping_add(self.inc0).wrapping_add(corr as u32);
        // Two one-pole stages each: the audio and the 38 kHz products sit
        // at ≥ 4 kHz from DC and must fall well below the noise.
        let a = self.alpha_iq;
        st.i1 += a * (2.0 * xp * c - st.i1);
        st.i += a * (st.i1 - st.i);
        st.q1 += a * (2.0 * xp * s - st.q1);
        st.q += a * (st.q1 - st.q);
        st.noise += self.alpha_noise * (st.q * st.q - st.noise);
        st.count += 1;
        if st.count == BLEND_EVERY {
            st.count = 0;
            st.blend = self.blend_for(st);
        }
        let sub = -4.0 * s * c;
        (x, x * sub * st.blend)
    }

    fn blend_for(&self, st: &StereoDecoderState) -> f32 {
        if st.i < (PILOT_LEVEL / 3.0) as f32 {
            return 0.0;
        }
        let snr = st.pilot_snr_db();
        ((snr - self.blend_low_db) / (self.blend_high_db - self.blend_low_db)).clamp(0.0, 1.0)
    }

    /// Decode `mpx` (240 kHz) into `left` and `right` at 48 kHz; returns
    /// the number of samples written to each.
    ///
    /// # Errors
    /// [`OutputTooShort`] if either output is shorter than
    /// [`max_output`](Self::max_output)`(mpx.len())` (nothing is processed).
    pub fn process(
        &self,
        st: &mut StereoDecoderState,
        mpx: &[f32],
        left: &mut [f32],
        right: &mut [f32],
    ) -> Result<usize, OutputTooShort> {
        OutputTooShort::check(self.max_output(mpx.len()), left.len().min(right.len()))?;
        let mut m = [0.0f32; CHUNK];
        let mut d = [0.0f32; CHUNK];
        let mut n = 0;
        for x in mpx.chunks(CHUNK) {
            for ((x, m), d) in x.iter().zip(m.iter_mut()).zip(d.iter_mut()) {
                let (a, b) = self.pilot(st, *x);
                *m = self.deemph.process(&mut st.deemph[0], a);
                *d = self.deemph.process(&mut st.deemph[1], b);
            }
            let k = x.len();
            let [am, ad] = &mut st.audio;
            let (l, r) = (&mut left[n..], &mut right[n..]);
            let c = self.audio.run(am, &m[..k], l);
            let c2 = self.audio.run(ad, &d[..k], r);
            debug_assert_eq!(c, c2);
            for (l, r) in l[..c].iter_mut().zip(r[..c].iter_mut()) {
                let (sum, diff) = (*l, *r);
                *l = sum + diff;
                *r = sum - diff;
            }
            n += c;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use crate::dsp::deemph::TAU_75US;
    use crate::fm::generator::Tone;
    use crate::fm::wbfm::test::scene;
    use crate::fm::wbfm::{AUDIO_RATE, FrontEnd, FrontEndState, INPUT_RATE};
    use crate::testing::{fit_tone, tone_sinad_db};
    use std::vec;
    use std::vec::Vec;

    struct Out {
        left: Vec<f64>,
        right: Vec<f64>,
        blend: f32,
        pilot_snr: f32,
        pilot: f32,
    }

    fn run(cnr: Option<f64>, l: Option<Tone>, r: Option<Tone>, stereo: bool) -> Out {
        let iq = scene(INPUT_RATE as usize, cnr, true, l, r, stereo);
        let fe = FrontEnd::new(-250e3);
        let dec = StereoDecoder::new(TAU_75US);
        let mut fs = FrontEndState::default();
        let mut ds = StereoDecoderState::default();
        let mut mpx = vec![0.0f32; fe.max_output(iq.len())];
        let n = fe.process(&mut fs, &iq, &mut mpx).unwrap();
        let mut left = vec![0.0f32; dec.max_output(n)];
        let mut right = left.clone();
        let m = dec
            .process(&mut ds, &mpx[..n], &mut left, &mut right)
            .unwrap();
        // Skip 0.5 s of PLL and blend settling.
        let skip = AUDIO_RATE as usize / 2;
        let f = |v: &[f32]| v[skip..m].iter().map(|&x| x as f64).collect();
        Out {
            left: f(&left),
            right: f(&right),
            blend: ds.blend(),
            pilot_snr: ds.pilot_snr_db(),
            pilot: ds.pilot_level(),
        }
    }

    const F1K: f64 = 1000.0 / AUDIO_RATE as f64;

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_separation() {
        let tone = Tone::new(1000.0, 0.9);
        let o = run(Some(40.0), Some(tone), None, true);
        let (al, _, _) = fit_tone(&o.left, F1K);
        let (ar, _, _) = fit_tone(&o.right, F1K);
        let sep_lr = 20.0 * libm::log10(al / ar);
        let o2 = run(Some(40.0), None, Some(tone), true);
        let (al2, _, _) = fit_tone(&o2.left, F1K);
        let (ar2, _, _) = fit_tone(&o2.right, F1K);
        let sep_rl = 20.0 * libm::log10(ar2 / al2);
        let snr = tone_sinad_db(&o.left, F1K);
        std::eprintln!(
            "CNR 40: separation L→R {sep_lr:.1} dB, R→L {sep_rl:.1} dB, left SNR {snr:.1} dB, \
             blend {:.2}, pilot SNR {:.1} dB",
            o.blend,
            o.pilot_snr
        );
        assert!((al / 0.81 - 1.0).abs() < 0.02, "left amplitude {al}");
        assert_eq!(o.blend, 1.0);
        // Measured 79.7 / 77.9 dB on the standard (BS.450) phase; the
        // issue's target 65, GNU Radio wfm_rcv_pll 65.5 by the issue and
        // about 34 in our benchmark's flowgraph.
        assert!(
            sep_lr > 72.0 && sep_rl > 72.0,
            "{sep_lr:.1} / {sep_rl:.1} dB"
        );
        assert!(snr > 50.0, "left SNR {snr:.1} dB");
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_blend_at_low_cnr() {
        // GNU Radio wfm_rcv_pll (no blend), left channel: 34 / 26 / 21 dB
        // at CNR 20 / 12 / 8; the issue asks for 10 dB more at 20 and 12.
        let tone = Tone::new(1000.0, 0.9);
        for (cnr, floor) in [(20.0, 50.0), (12.0, 42.0), (8.0, 24.0)] {
            let o = run(Some(cnr), Some(tone), Some(tone), true);
            let snr = tone_sinad_db(&o.left, F1K);
            std::eprintln!(
                "CNR {cnr}: stereo left SNR {snr:.1} dB, blend {:.2}, pilot SNR {:.1} dB, pilot {:.4}",
                o.blend,
                o.pilot_snr,
                o.pilot
            );
            assert!(snr > floor, "CNR {cnr}: {snr:.1} dB below {floor}");
            assert!(o.blend < 0.5, "CNR {cnr}: blend {}", o.blend);
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_pll_locks_to_pilot() {
        // A clean 9 % pilot 0.4 Hz off nominal, phase 1 rad: after 0.5 s
        // the in-phase arm reads the amplitude and the quadrature arm ~0.
        let dec = StereoDecoder::new(TAU_75US);
        let mut st = StereoDecoderState::default();
        let w = 2.0 * PI * 19_000.4 / MPX_RATE as f64;
        for n in 0..120_000 {
            let x = 0.09 * libm::cos(w * n as f64 + 1.0);
            dec.pilot(&mut st, x as f32);
        }
        assert!((st.i - 0.09).abs() < 1e-4, "I = {}", st.i);
        assert!(st.q.abs() < 1e-4, "Q = {}", st.q);
        assert_eq!(st.blend(), 1.0);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_mono_station_plays_mono() {
        let tone = Tone::new(1000.0, 0.9);
        let o = run(Some(40.0), Some(tone), Some(tone), false);
        assert_eq!(o.blend, 0.0);
        let (al, _, _) = fit_tone(&o.left, F1K);
        let (ar, _, _) = fit_tone(&o.right, F1K);
        assert!((al / 0.81 - 1.0).abs() < 0.02 && (ar / 0.81 - 1.0).abs() < 0.02);
    }
}
