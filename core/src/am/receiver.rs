//! The whole narrowband receiver: cu8 at any rate → channel → detector →
//! voice audio → squelch → audio at 48 kHz (or another rate).
//!
//! ```text
//! cu8 ─▶ ChannelFrontEnd ─▶ detector ─▶ VoiceAudio ─▶ squelch gate ─▶ AudioResampler ─▶ audio
//!        (f_in → ≈19 kS/s)   |x| / PLL I / FM   DC, 300–3000 Hz, AGC   exact 0 when closed
//! ```
//!
//! The squelch zeroes the channel-rate audio while closed, so the audio
//! out is exactly 0 from one resampler window (≤ 1 ms) after it closes.
//! With the level squelch the front end also measures the power of the
//! whole input band ([`ChannelFrontEnd::process_with_band`]), the
//! squelch's noise reference ([`LevelSquelch::with_band`]).

use super::audio::{AudioResampler, AudioResamplerState, VoiceAudio, VoiceAudioState, voice_agc};
use super::envelope::EnvelopeDetector;
use super::front::{CHUNK, ChannelFilter, ChannelFrontEnd, ChannelFrontEndState};
use super::nbfm::{NbfmDetector, NbfmDetectorState, TAU_NBFM};
use super::squelch::{
    LevelSquelch, LevelSquelchState, NoiseSquelch, NoiseSquelchState, SquelchParams,
};
use super::sync::{SyncDetector, SyncDetectorState, SyncParams};
use super::{ConfigError, OutputTooShort};
use crate::C32;
use crate::dsp::SplitProcess;
use crate::dsp::agc::AgcParams;

/// The detector.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Mode {
    /// AM, envelope detector.
    Envelope,
    /// AM, synchronous detector (carrier PLL).
    Synchronous(SyncParams),
    /// Narrowband FM.
    Nbfm {
        /// Deviation that reads as audio ±1.0, Hz (2500 or 5000; at least
        /// [`MIN_DEVIATION_HZ`], below half the channel rate).
        deviation_hz: f64,
        /// De-emphasis time constant, s ([`TAU_NBFM`]), or `None`.
        tau: Option<f64>,
    },
}

/// Smallest NBFM deviation [`Receiver::new`] accepts, Hz: the audio scale
/// `f_ch / Δf` stays a plain `f32` (a deviation of 1e-38 Hz read a
/// random phase step as infinite audio).
pub const MIN_DEVIATION_HZ: f64 = 100.0;

/// AGC limits [`Receiver::new`] accepts: target peak level
/// `1e-6 ..= 1` and largest gain `1e-6 ..= 1e6` (outside them the gain or
/// its inverse overflows `f32`).
pub const AGC_LIMITS: (f64, f64) = (1e-6, 1e6);

/// Which squelch detector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SquelchKind {
    /// Channel level above the noise floor (any mode).
    Level,
    /// Out-of-band discriminator noise (NBFM only).
    Noise,
}

/// Receiver settings. Start from [`ReceiverConfig::am`] or
/// [`ReceiverConfig::nbfm`] and adjust the fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReceiverConfig {
    /// Input rate, samples per second (240 000 ..= 3 200 000).
    pub input_rate: u32,
    /// The station's offset from the centre, Hz.
    pub offset_hz: f64,
    /// The channel filter.
    pub filter: ChannelFilter,
    /// The detector.
    pub mode: Mode,
    /// Audio rate, Hz (8 000 ..= 96 000; 48 000 by default).
    pub audio_rate: u32,
    /// Band-pass the audio to 300–3000 Hz.
    pub voice_band: bool,
    /// AGC, or `None` for a fixed gain of 1 (AM: ±1.0 = the carrier's
    /// amplitude × modulation depth; NBFM: ±1.0 = the deviation); target
    /// and largest gain within [`AGC_LIMITS`].
    pub agc: Option<AgcParams>,
    /// Squelch, or `None` (always open).
    pub squelch: Option<(SquelchKind, SquelchParams)>,
}

impl ReceiverConfig {
    /// Envelope AM, 8.33 kHz channel, 48 kHz audio, voice band, voice AGC
    /// ([`voice_agc`] with 60 dB of gain at most), no squelch.
    pub fn am(input_rate: u32, offset_hz: f64) -> Self {
        Self {
            input_rate,
            offset_hz,
            filter: ChannelFilter::Am8k33,
            mode: Mode::Envelope,
            audio_rate: 48_000,
            voice_band: true,
            agc: Some(voice_agc(1000.0)),
            squelch: None,
        }
    }

    /// NBFM, 25 kHz channel, ±5 kHz deviation, 750 µs de-emphasis, 48 kHz
    /// audio, voice band, no AGC, no squelch.
    pub fn nbfm(input_rate: u32, offset_hz: f64) -> Self {
        Self {
            filter: ChannelFilter::Nbfm25k,
            mode: Mode::Nbfm {
                deviation_hz: 5000.0,
                tau: Some(TAU_NBFM),
            },
            agc: None,
            ..Self::am(input_rate, offset_hz)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Detector {
    Envelope(EnvelopeDetector),
    Sync(SyncDetector),
    Nbfm(NbfmDetector),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Squelch {
    Off,
    Level(LevelSquelch),
    Noise(NoiseSquelch),
}

/// The receiver. State: [`ReceiverState`].
#[derive(Clone, Debug)]
pub struct Receiver {
    front: ChannelFrontEnd,
    detector: Detector,
    voice: VoiceAudio,
    squelch: Squelch,
    resampler: AudioResampler,
}

/// [`Receiver`] state.
#[derive(Clone, Debug)]
pub struct ReceiverState {
    front: ChannelFrontEndState,
    sync: SyncDetectorState,
    nbfm: NbfmDetectorState,
    voice: VoiceAudioState,
    level: LevelSquelchState,
    noise: NoiseSquelchState,
    resampler: AudioResamplerState,
    open: bool,
}

impl ReceiverState {
    /// Whether the squelch is open (always, without squelch).
    pub fn squelch_open(&self) -> bool {
        self.open
    }

    /// Whether the synchronous detector's PLL is locked (false in other
    /// modes).
    pub fn locked(&self) -> bool {
        self.sync.locked()
    }

    /// The level squelch's measured channel power and noise floor
    /// (`|x|²`, full scale 1.0).
    pub fn level(&self) -> (f32, f32) {
        (self.level.power(), self.level.floor())
    }

    /// The level squelch's measurements: channel power, tracked floor,
    /// band power and the noise reference (see
    /// [`LevelSquelchState`]; zeros without a level squelch).
    pub fn level_squelch(&self) -> &LevelSquelchState {
        &self.level
    }

    /// The channel's signal-to-noise ratio, dB, from the level squelch
    /// (see [`LevelSquelchState::snr_db`]): `None` without a level
    /// squelch or during its warm-up.
    pub fn snr_db(&self) -> Option<f32> {
        self.level.snr_db()
    }
}

impl Receiver {
    /// Check `cfg` and build the receiver.
    ///
    /// # Errors
    /// [`ConfigError`] for a bad input rate, offset, audio rate, or a noise
    /// squelch outside NBFM; invalid AGC or squelch numbers give
    /// [`ConfigError::Parameter`].
    ///
    /// ```
    /// use airwaves_core::am::receiver::{Receiver, ReceiverConfig};
    /// let rx = Receiver::new(&ReceiverConfig::am(300_000, 50e3)).unwrap();
    /// assert_eq!(rx.channel_rate(), 18_750.0);
    /// assert_eq!(rx.max_output(320), 52); // ⌈⌈320 / 16⌉ · 64 / 25⌉
    /// ```
    pub fn new(cfg: &ReceiverConfig) -> Result<Self, ConfigError> {
        let front = ChannelFrontEnd::new(cfg.input_rate, cfg.offset_hz, cfg.filter)?;
        let fs = front.channel_rate();
        let resampler = AudioResampler::new(
            cfg.input_rate,
            front.total_decimation() as u32,
            cfg.audio_rate,
        )?;
        let detector = match cfg.mode {
            Mode::Envelope => Detector::Envelope(EnvelopeDetector),
            Mode::Synchronous(p) => {
                let ok = p.track_bw_hz > 0.0 && p.acquire_bw_hz > 0.0 && p.max_offset_hz > 0.0;
                if !ok || p.track_bw_hz > 0.05 * fs || p.acquire_bw_hz > 0.05 * fs {
                    return Err(ConfigError::Parameter);
                }
                Detector::Sync(SyncDetector::new(&p, fs))
            }
            Mode::Nbfm { deviation_hz, tau } => {
                let ok = deviation_hz >= MIN_DEVIATION_HZ && deviation_hz < fs / 2.0;
                if !ok || tau.is_some_and(|t| !(t > 0.0 && t < 1.0)) {
                    return Err(ConfigError::Parameter);
                }
                Detector::Nbfm(NbfmDetector::new(fs, deviation_hz, tau))
            }
        };
        if let Some(a) = &cfg.agc {
            let pos = |v: f64| v > 0.0 && v.is_finite();
            let (lo, hi) = AGC_LIMITS;
            let ok = (lo..=1.0).contains(&a.target)
                && pos(a.attack)
                && pos(a.decay)
                && (lo..=hi).contains(&a.max_gain)
                && a.hang >= 0.0
                && a.hang.is_finite();
            if !ok {
                return Err(ConfigError::Parameter);
            }
        }
        let squelch = match cfg.squelch {
            None => Squelch::Off,
            Some((kind, p)) => {
                let ok = p.open_db.is_finite()
                    && (0.0..=p.open_db.abs()).contains(&p.hysteresis_db)
                    && p.hang >= 0.0
                    && p.smoothing > 0.0
                    && p.floor_rise_db_per_s >= 0.0;
                if !ok {
                    return Err(ConfigError::Parameter);
                }
                match (kind, &detector) {
                    (SquelchKind::Level, _) => Squelch::Level(
                        LevelSquelch::new(&p, fs)
                            .with_band(front.noise_bandwidth_hz(), cfg.input_rate as f64),
                    ),
                    (SquelchKind::Noise, Detector::Nbfm(_)) => {
                        Squelch::Noise(NoiseSquelch::new(&p, fs))
                    }
                    (SquelchKind::Noise, _) => return Err(ConfigError::Parameter),
                }
            }
        };
        let am = !matches!(detector, Detector::Nbfm(_));
        Ok(Self {
            front,
            detector,
            voice: VoiceAudio::new(fs, am, cfg.voice_band, cfg.agc.as_ref()),
            squelch,
            resampler,
        })
    }

    /// A fresh state.
    pub fn state(&self) -> ReceiverState {
        ReceiverState {
            front: ChannelFrontEndState::default(),
            sync: SyncDetectorState::default(),
            nbfm: NbfmDetectorState::default(),
            voice: self.voice.state(),
            level: LevelSquelchState::default(),
            noise: NoiseSquelchState::default(),
            resampler: AudioResamplerState::default(),
            open: matches!(self.squelch, Squelch::Off),
        }
    }

    /// The channel front end.
    pub fn front_end(&self) -> &ChannelFrontEnd {
        &self.front
    }

    /// The channel rate, samples per second.
    pub fn channel_rate(&self) -> f64 {
        self.front.channel_rate()
    }

    /// The audio resampler.
    pub fn resampler(&self) -> &AudioResampler {
        &self.resampler
    }

    /// The most audio samples `input_len` I/Q pairs can produce.
    pub fn max_output(&self, input_len: usize) -> usize {
        self.resampler.max_output(self.front.max_output(input_len))
    }

    /// Demodulate `iq` (cu8 pairs) into audio (full scale ±1.0) at the
    /// front of `audio`; returns the count.
    ///
    /// # Errors
    /// [`OutputTooShort`] if `audio.len() < max_output(iq.len())` (nothing
    /// is processed).
    pub fn process(
        &self,
        st: &mut ReceiverState,
        iq: &[[u8; 2]],
        audio: &mut [f32],
    ) -> Result<usize, OutputTooShort> {
        OutputTooShort::check(self.max_output(iq.len()), audio.len())?;
        // At most ⌈CHUNK / 12⌉ channel samples per chunk (2ᵏ M ≥ 12).
        let mut ch = [C32::new(0.0, 0.0); CHUNK / 8];
        let mut band = [0.0f32; CHUNK / 8];
        let mut mono = [0.0f32; CHUNK / 8];
        // ⌈128 · 96 kHz / 18 kHz⌉ = 683 audio samples per chunk at most.
        let mut out = [0.0f32; 704];
        let mut n = 0;
        for x in iq.chunks(CHUNK) {
            let m = if matches!(self.squelch, Squelch::Level(_)) {
                self.front
                    .process_with_band(&mut st.front, x, &mut ch, &mut band)?
            } else {
                self.front.process(&mut st.front, x, &mut ch)?
            };
            for ((y, &c), &p_band) in mono.iter_mut().zip(&ch[..m]).zip(&band) {
                let (v, raw) = match &self.detector {
                    Detector::Envelope(d) => (d.process(&mut (), c), 0.0),
                    Detector::Sync(d) => (d.process(&mut st.sync, c), 0.0),
                    Detector::Nbfm(d) => {
                        let (v, raw) = d.detect(&mut st.nbfm, c);
                        (v, raw * d.cycles_per_unit())
                    }
                };
                let v = self.voice.process(&mut st.voice, v);
                st.open = match &self.squelch {
                    Squelch::Off => true,
                    Squelch::Level(s) => s.process_with_band(&mut st.level, c, p_band),
                    Squelch::Noise(s) => s.process(&mut st.noise, raw),
                };
                *y = if st.open { v } else { 0.0 };
            }
            let k = self
                .resampler
                .process(&mut st.resampler, &mono[..m], &mut out);
            audio[n..n + k].copy_from_slice(&out[..k]);
            n += k;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use crate::am::audio::AudioBand;
    use crate::am::generator::{Generator, GeneratorConfig, Modulation, VoiceLike};
    use crate::fm::generator::Tone;
    use crate::testing::{fit_tone, tone_sinad_db};
    use std::vec;
    use std::vec::Vec;

    const FS: u32 = 300_000;
    const OFFSET: f64 = 50e3;

    fn generate(cfg: GeneratorConfig, secs: f64, audio: impl FnMut(f64) -> f64) -> Vec<[u8; 2]> {
        let g = Generator::new(cfg).unwrap();
        let mut s = g.state();
        let mut iq = vec![[0u8; 2]; (cfg.sample_rate * secs) as usize];
        g.fill(&mut s, audio, &mut iq);
        iq
    }

    fn receive(rx: &Receiver, iq: &[[u8; 2]]) -> Vec<f32> {
        let mut s = rx.state();
        let mut y = vec![0.0; rx.max_output(iq.len())];
        let n = rx.process(&mut s, iq, &mut y).unwrap();
        y.truncate(n);
        y
    }

    /// SINAD of the 1 kHz tone in `y` (48 kHz), skipping 0.25 s.
    fn sinad(y: &[f32]) -> f64 {
        let y: Vec<f64> = y[12_000..].iter().map(|&v| v as f64).collect();
        tone_sinad_db(&y, 1000.0 / 48_000.0)
    }

    fn am_config(mode: Mode) -> ReceiverConfig {
        ReceiverConfig {
            mode,
            agc: None,
            ..ReceiverConfig::am(FS, OFFSET)
        }
    }

    /// Theory for AM (see [`crate::am::envelope`]): depth `m`, CNR (dB) in
    /// bandwidth `b`, through the channel filter and voice band.
    fn am_theory(rx: &Receiver, m: f64, cnr_db: f64, b: f64) -> f64 {
        let band = AudioBand::new(rx.channel_rate());
        let mut integral = 0.0;
        let df = 5.0;
        let mut f = df / 2.0;
        while f < rx.channel_rate() / 2.0 {
            let h = rx.front_end().response(f) * band.magnitude(f);
            integral += h * h * df;
            f += df;
        }
        let h0 = band.magnitude(1000.0);
        let snr = m * m * libm::pow(10.0, cnr_db / 10.0) * b * h0 * h0 / (2.0 * integral);
        10.0 * libm::log10(snr)
    }

    fn am_snr(mode: Mode, cnr_db: f64) -> f64 {
        let mut c = GeneratorConfig::am(OFFSET);
        c.sample_rate = FS as f64;
        c.modulation = Modulation::Am { depth: 0.5 };
        c.cnr_db = Some(cnr_db);
        c.seed = 11;
        let tone = Tone::new(1000.0, 1.0);
        let iq = generate(c, 1.25, |t| tone.at(t));
        sinad(&receive(&Receiver::new(&am_config(mode)).unwrap(), &iq))
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_am_snr_vs_theory() {
        // Above threshold both detectors are within 1 dB of
        // m² CNR B |H_a(1k)|² / (2 ∫|H_ch H_a|²); below it the envelope
        // detector falls away and the synchronous one does not.
        let rx = Receiver::new(&am_config(Mode::Envelope)).unwrap();
        let sync = Mode::Synchronous(SyncParams::default());
        for cnr in [30.0, 20.0, 12.0, 6.0, 0.0, -6.0] {
            let theory = am_theory(&rx, 0.5, cnr, 8333.0);
            let env = am_snr(Mode::Envelope, cnr);
            let syn = am_snr(sync, cnr);
            std::eprintln!(
                "AM CNR {cnr:4.1} dB (8.33 kHz): theory {theory:.1}, envelope {env:.1}, sync {syn:.1} dB"
            );
            // 1 dB down to 0 dB CNR; 1.5 dB at −6 dB (PLL phase noise).
            let tol = if cnr >= 0.0 { 1.0 } else { 1.5 };
            assert!(
                (syn - theory).abs() < tol,
                "sync at {cnr}: {syn:.1} vs {theory:.1}"
            );
            assert!(syn > env - 0.3, "sync worse at {cnr}");
            if cnr >= 12.0 {
                assert!(
                    (env - theory).abs() < 1.0,
                    "env at {cnr}: {env:.1} vs {theory:.1}"
                );
            }
            if cnr <= -6.0 {
                assert!(syn > env + 3.0, "no threshold gain at {cnr}");
            }
        }
    }

    fn nbfm_snr(cnr_db: f64) -> (f64, f64) {
        let mut c = GeneratorConfig::nbfm(OFFSET);
        c.sample_rate = FS as f64;
        c.cnr_db = Some(cnr_db);
        c.seed = 12;
        let tone = Tone::new(1000.0, 1.0);
        let iq = generate(c, 1.25, |t| tone.at(t));
        let mut cfg = ReceiverConfig::nbfm(FS, OFFSET);
        cfg.mode = Mode::Nbfm {
            deviation_hz: 5000.0,
            tau: None,
        };
        let rx = Receiver::new(&cfg).unwrap();
        let y = receive(&rx, &iq);
        let yy: Vec<f64> = y[12_000..].iter().map(|&v| v as f64).collect();
        let (amp, _, _) = fit_tone(&yy, 1000.0 / 48_000.0);
        let band = AudioBand::new(rx.channel_rate());
        assert!(
            (amp / band.magnitude(1000.0) - 1.0).abs() < 0.02,
            "amplitude {amp}"
        );
        // (Δf²/2)|H_a(f₀)|² CNR B / ∫ f² |H_a|² df
        let mut integral = 0.0;
        let df = 5.0;
        let mut f = df / 2.0;
        while f < rx.channel_rate() / 2.0 {
            let h = band.magnitude(f);
            integral += f * f * h * h * df;
            f += df;
        }
        let h0 = band.magnitude(1000.0);
        let theory =
            0.5 * 5000.0f64.powi(2) * h0 * h0 * libm::pow(10.0, cnr_db / 10.0) * 16e3 / integral;
        (sinad(&y), 10.0 * libm::log10(theory))
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_nbfm_snr_vs_theory() {
        for cnr in [32.0, 25.0, 18.0] {
            let (snr, theory) = nbfm_snr(cnr);
            std::eprintln!("NBFM CNR {cnr} dB (16 kHz): theory {theory:.1}, measured {snr:.1} dB");
            assert!((snr - theory).abs() < 1.0, "{cnr}: {snr:.1} vs {theory:.1}");
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_voice_with_squelch_and_agc() {
        // Voice-like audio, 1 s talk / 1 s pause, with the carrier only
        // while talking (like airband), CNR 15 dB: the level squelch is
        // open while talking and the audio is exactly 0 in the pauses;
        // the AGC brings the speech to its 0.3 target (99th percentile
        // of |y| 0.2–0.4, no clipping: peak < 0.9).
        let voice = VoiceLike {
            talk: 1.0,
            pause: 1.0,
        };
        let mut c = GeneratorConfig::am(OFFSET);
        c.sample_rate = FS as f64;
        c.amplitude = 0.05;
        let carrier = generate(c, 4.0, |t| voice.at(t));
        let mut cn = c;
        cn.cnr_db = Some(15.0);
        let noisy = generate(cn, 4.0, |t| voice.at(t));
        let mut iq = noisy.clone();
        // Carrier off during the pauses: keep the noise, drop the signal.
        for (i, v) in iq.iter_mut().enumerate() {
            let t = i as f64 / FS as f64;
            if t % 2.0 >= 1.0 {
                for k in 0..2 {
                    let s = carrier[i][k] as f64 - 127.4;
                    v[k] = libm::round(noisy[i][k] as f64 - s).clamp(0.0, 255.0) as u8;
                }
            }
        }
        let mut cfg = ReceiverConfig::am(FS, OFFSET);
        cfg.mode = Mode::Synchronous(SyncParams::default());
        cfg.squelch = Some((SquelchKind::Level, SquelchParams::default()));
        let rx = Receiver::new(&cfg).unwrap();
        let y = receive(&rx, &iq);
        let sec = |a: f64, b: f64| &y[(a * 48e3) as usize..(b * 48e3) as usize];
        // Talk 2–3 s: open; pause 3.3–4 s (after the 0.2 s hang): zeros.
        let talk = sec(2.1, 2.9);
        let peak = talk.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let mut mags: Vec<f32> = talk.iter().map(|v| v.abs()).collect();
        mags.sort_by(f32::total_cmp);
        let p99 = mags[mags.len() * 99 / 100];
        let zeros = sec(1.3, 2.0).iter().chain(sec(3.3, 4.0)).all(|&v| v == 0.0);
        let active = talk.iter().filter(|v| **v != 0.0).count() as f64 / talk.len() as f64;
        std::eprintln!(
            "voice: peak {peak:.3}, 99th percentile {p99:.3}, talk non-zero {active:.3}, pauses zero {zeros}"
        );
        assert!(zeros);
        assert!(active > 0.95);
        assert!(peak < 0.9, "{peak}");
        assert!((0.2..0.4).contains(&p99), "{p99}");
    }

    /// cu8 at [`FS`]: complex white noise of `sigma` per component over
    /// the whole band, plus a carrier at [`OFFSET`] of amplitude
    /// `carrier(t)` with a 1 kHz tone at 50 % depth.
    fn carrier_scene(
        secs: f64,
        sigma: f64,
        seed: u64,
        carrier: impl Fn(f64) -> f64,
    ) -> Vec<[u8; 2]> {
        let mut rng = crate::rng::Rng::new(seed);
        let q = |v: f64| libm::round(v * 128.0 + 127.4).clamp(0.0, 255.0) as u8;
        (0..(FS as f64 * secs) as usize)
            .map(|i| {
                let t = i as f64 / FS as f64;
                let w = 2.0 * core::f64::consts::PI;
                let a = carrier(t) * (1.0 + 0.5 * libm::sin(w * 1000.0 * t));
                let ph = w * OFFSET * t;
                [
                    q(a * libm::cos(ph) + sigma * rng.normal()),
                    q(a * libm::sin(ph) + sigma * rng.normal()),
                ]
            })
            .collect()
    }

    /// Runs `rx` over `iq` in 1 ms blocks; returns the audio and the
    /// squelch state after each block.
    fn squelch_trace(rx: &Receiver, iq: &[[u8; 2]]) -> (Vec<f32>, Vec<bool>) {
        let mut s = rx.state();
        let (mut audio, mut open) = (Vec::new(), Vec::new());
        for x in iq.chunks(FS as usize / 1000) {
            let mut y = vec![0.0; rx.max_output(x.len())];
            let n = rx.process(&mut s, x, &mut y).unwrap();
            audio.extend_from_slice(&y[..n]);
            open.push(s.squelch_open());
        }
        (audio, open)
    }

    fn level_squelch_config() -> ReceiverConfig {
        ReceiverConfig {
            squelch: Some((SquelchKind::Level, SquelchParams::default())),
            ..ReceiverConfig::am(FS, OFFSET)
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_level_squelch_carrier_from_sample_0() {
        // A station on the air before the receiver starts (CNR 13 dB in
        // the channel: carrier 0.02, noise 0.02 rms per component over
        // 300 kHz): the level squelch opens as soon as its 50 ms warm-up
        // is over, and the SNR it reports is the carrier's.
        let rx = Receiver::new(&level_squelch_config()).unwrap();
        let iq = carrier_scene(0.5, 0.02, 31, |_| 0.02);
        let (audio, open) = squelch_trace(&rx, &iq);
        let first = open.iter().position(|&o| o);
        std::eprintln!("carrier from sample 0: open after {first:?} ms");
        assert!(first.is_some_and(|ms| (49..=55).contains(&ms)), "{first:?}");
        assert!(open[55..].iter().all(|&o| o));
        assert!(audio[(0.1 * 48e3) as usize..].iter().all(|&v| v != 0.0));
        let mut s = rx.state();
        let mut y = vec![0.0; rx.max_output(iq.len())];
        let n = rx.process(&mut s, &iq, &mut y).unwrap();
        // One call or 1 ms blocks: the same audio, bit for bit.
        assert_eq!(y[..n], audio[..]);
        // Carrier power 4e-4 (plus sidebands 1/8 of it) over the noise in
        // the channel, 2 · 0.02² · 7.3 kHz / 300 kHz = 1.9e-5: 14 dB.
        let snr = s.snr_db().unwrap();
        std::eprintln!("SNR {snr:.1} dB");
        assert!((snr - 14.0).abs() < 1.0, "{snr}");
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_level_squelch_noise_only_never_opens() {
        // 10 s of noise only (at two levels): never opens, the audio is
        // exactly zero throughout.
        let rx = Receiver::new(&level_squelch_config()).unwrap();
        for (sigma, seed) in [(0.02, 32), (0.2, 33)] {
            let iq = carrier_scene(10.0, sigma, seed, |_| 0.0);
            let (audio, open) = squelch_trace(&rx, &iq);
            assert!(open.iter().all(|&o| !o), "opened on noise {sigma}");
            assert!(audio.iter().all(|&v| v == 0.0));
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_level_squelch_closes_after_the_carrier_goes() {
        // Carrier from sample 0 for 0.5 s, then noise: closes after the
        // 0.2 s hang plus the ≈ 35 ms the smoothed power takes to fall to
        // the close level (τ ln(C/N), 13 dB); audio exactly 0 from then on.
        let rx = Receiver::new(&level_squelch_config()).unwrap();
        let iq = carrier_scene(1.5, 0.02, 34, |t| if t < 0.5 { 0.02 } else { 0.0 });
        let (audio, open) = squelch_trace(&rx, &iq);
        assert!(open[100..500].iter().all(|&o| o));
        let closed = 500 + open[500..].iter().position(|&o| !o).unwrap();
        std::eprintln!("carrier off at 500 ms: closed at {closed} ms");
        assert!((700..=760).contains(&closed), "{closed}");
        assert!(open[closed..].iter().all(|&o| !o));
        let after = (closed + 2) * 48;
        assert!(audio[after..].iter().all(|&v| v == 0.0));
    }

    /// The receiver over `iq` split at `cuts`.
    fn split_run(rx: &Receiver, iq: &[[u8; 2]], cuts: &[usize]) -> Vec<f32> {
        let mut s = rx.state();
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (iq.len() + 1)).collect();
        cuts.sort_unstable();
        let mut out = Vec::new();
        let mut start = 0;
        for end in cuts.into_iter().chain([iq.len()]) {
            let mut y = vec![0.0; rx.max_output(end - start)];
            let n = rx.process(&mut s, &iq[start..end], &mut y).unwrap();
            out.extend_from_slice(&y[..n]);
            start = end;
        }
        out
    }

    fn split_scene() -> Vec<[u8; 2]> {
        let mut c = GeneratorConfig::am(OFFSET + 120.0);
        c.sample_rate = FS as f64;
        c.cnr_db = Some(10.0);
        let v = VoiceLike {
            talk: 0.05,
            pause: 0.03,
        };
        generate(c, 0.12, |t| v.at(t))
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            cases: if cfg!(miri) { 2 } else { 48 },
            failure_persistence: None,
            ..Default::default()
        })]
        #[test]
        #[cfg_attr(miri, ignore)]
        fn test_same_for_any_split(cuts in proptest::collection::vec(0usize..36_000, 0..6)) {
            let iq = split_scene();
            let mut sync = ReceiverConfig::am(FS, OFFSET);
            sync.mode = Mode::Synchronous(SyncParams::default());
            sync.squelch = Some((SquelchKind::Level, SquelchParams { hang: 0.01, ..Default::default() }));
            let mut nbfm = ReceiverConfig::nbfm(FS, OFFSET);
            nbfm.squelch = Some((SquelchKind::Noise, SquelchParams::default()));
            nbfm.audio_rate = 44_100;
            for cfg in [ReceiverConfig::am(FS, OFFSET), sync, nbfm] {
                let rx = Receiver::new(&cfg).unwrap();
                let whole = split_run(&rx, &iq, &[]);
                proptest::prop_assert_eq!(whole.len(), rx.max_output(iq.len()));
                proptest::prop_assert_eq!(split_run(&rx, &iq, &cuts), whole);
            }
        }
    }

    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_errors() {
        let rx = Receiver::new(&ReceiverConfig::am(FS, OFFSET)).unwrap();
        let mut s = rx.state();
        assert_eq!(
            rx.process(&mut s, &[[127, 127]; 1600], &mut [0.0; 255]),
            Err(OutputTooShort {
                expected: 256,
                got: 255
            })
        );
        let mut c = ReceiverConfig::am(FS, OFFSET);
        c.squelch = Some((SquelchKind::Noise, SquelchParams::default()));
        assert_eq!(Receiver::new(&c).err(), Some(ConfigError::Parameter));
        c = ReceiverConfig::am(FS, OFFSET);
        c.audio_rate = 200_000;
        assert_eq!(Receiver::new(&c).err(), Some(ConfigError::AudioRate));
        c = ReceiverConfig::nbfm(FS, OFFSET);
        c.mode = Mode::Nbfm {
            deviation_hz: -1.0,
            tau: None,
        };
        assert_eq!(Receiver::new(&c).err(), Some(ConfigError::Parameter));
        // Found by the `am_chain` fuzz target: a subnormal deviation made
        // the discriminator's scale infinite (audio[0] = inf).
        c = ReceiverConfig::nbfm(250_000, 25e3);
        c.filter = ChannelFilter::Am25k;
        c.mode = Mode::Nbfm {
            deviation_hz: 6.918_230_136_550_122e-39,
            tau: None,
        };
        c.audio_rate = 8_000;
        c.voice_band = false;
        assert_eq!(Receiver::new(&c).err(), Some(ConfigError::Parameter));
        c.mode = Mode::Nbfm {
            deviation_hz: MIN_DEVIATION_HZ,
            tau: None,
        };
        let rx = Receiver::new(&c).unwrap();
        // Full-scale phase steps (a carrier at ±fs/4 flipping) stay finite.
        let iq: Vec<[u8; 2]> = (0..4000)
            .map(|i| [[255, 127], [127, 255], [0, 127], [127, 0]][(i / 7) % 4])
            .collect();
        let y = receive(&rx, &iq);
        assert!(y.iter().all(|v| v.is_finite()));
        c = ReceiverConfig::am(FS, OFFSET);
        for (target, max_gain) in [(1e-300, 1000.0), (2.0, 1000.0), (0.3, 1e300), (0.3, 1e-9)] {
            c.agc = Some(AgcParams {
                target,
                max_gain,
                ..voice_agc(1.0)
            });
            assert_eq!(Receiver::new(&c).err(), Some(ConfigError::Parameter));
        }
        c = ReceiverConfig::am(2_400_000, 0.0);
        c.squelch = Some((
            SquelchKind::Level,
            SquelchParams {
                hysteresis_db: 9.0,
                ..Default::default()
            },
        ));
        assert_eq!(Receiver::new(&c).err(), Some(ConfigError::Parameter));
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_audio_rates() {
        // 2.4 MS/s and 1.024 MS/s to 48 and 44.1 kHz: the tone comes out
        // at the right frequency and amplitude (AGC off, m = 0.8 → 0.8 A
        // times the band-pass gain at 1 kHz).
        for (fs, rate) in [(2_400_000, 48_000), (1_024_000, 44_100), (240_000, 48_000)] {
            let mut c = GeneratorConfig::am(-200e3 * fs as f64 / 2.4e6);
            c.sample_rate = fs as f64;
            let tone = Tone::new(1000.0, 1.0);
            let iq = generate(c, 0.3, |t| tone.at(t));
            let mut cfg = ReceiverConfig::am(fs, c.carrier_offset);
            cfg.agc = None;
            cfg.audio_rate = rate;
            let rx = Receiver::new(&cfg).unwrap();
            let y = receive(&rx, &iq);
            assert_eq!(y.len(), (0.3 * rate as f64) as usize);
            let yy: Vec<f64> = y[rate as usize / 10..].iter().map(|&v| v as f64).collect();
            let (amp, _, _) = fit_tone(&yy, 1000.0 / rate as f64);
            let want = 0.8 * 0.25 * AudioBand::new(rx.channel_rate()).magnitude(1000.0);
            let snr = tone_sinad_db(&yy, 1000.0 / rate as f64);
            std::eprintln!("{fs} → {rate}: amplitude {amp:.4} (want {want:.4}), SINAD {snr:.1} dB");
            assert!((amp / want - 1.0).abs() < 0.01);
            assert!(snr > 40.0);
        }
    }
}
