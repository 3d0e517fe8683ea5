//! Audio stages shared by the AM, synchronous AM and NBFM receivers, at the
//! channel rate, and the resampler from the channel rate to the audio rate.
//!
//! ```text
//! demodulated ──▶ DC blocker (AM) ──▶ band-pass 300–3000 Hz ──▶ AGC ──▶ ... ──▶ AudioResampler ──▶ audio
//! ```
//!
//! - DC blocker ([`DcBlocker`], −3 dB at [`DC_CUTOFF_HZ`]): removes the
//!   carrier's DC after envelope or synchronous detection.
//! - [`AudioBand`]: 4th-order Butterworth high-pass at 300 Hz and 4th-order
//!   Butterworth low-pass at 3000 Hz (four biquads, Direct Form II
//!   transposed): the voice band of AM airband and NBFM. A constant input
//!   through the DC blocker and this band-pass decays to a subnormal
//!   residue (< 1e-38, tested).
//! - AGC ([`Agc`], real audio): for voice, attack 5 ms, decay 500 ms,
//!   hang 300 ms (defaults in [`voice_agc`]), to a peak level of 0.3.
//! - [`AudioResampler`]: rational `L/M` polyphase resampler
//!   ([`crate::dsp::resample`]) from the channel rate to the audio rate,
//!   flat to 4 kHz, 60 dB from `r − 4 kHz` (the first image of a channel
//!   rate `r` of 18–25 kHz), with up to [`MAX_RESAMPLER_TAPS`] taps.

use super::ConfigError;
use crate::dsp::SplitProcess;
use crate::dsp::agc::{Agc, AgcParams, AgcState};
use crate::dsp::dc::{DcBlocker, DcBlockerState};
use crate::dsp::iir::{Biquad, BiquadDesign, Df2tState};
use crate::dsp::resample::{Resampler, ResamplerState, design_f32, taps_per_phase};

/// −3 dB frequency of the DC blocker, Hz.
pub const DC_CUTOFF_HZ: f64 = 30.0;
/// Lower edge (−3 dB) of the voice band, Hz.
pub const VOICE_LOW_HZ: f64 = 300.0;
/// Upper edge (−3 dB) of the voice band, Hz.
pub const VOICE_HIGH_HZ: f64 = 3000.0;
/// Most taps of the audio resampler (`L × K`; 1.024 MS/s → 44.1 kHz,
/// `L` = 1323, needs 9261).
pub const MAX_RESAMPLER_TAPS: usize = 10_240;
/// History of the audio resampler state (≥ taps per phase).
const RS_HIST: usize = 128;
/// Pass-band edge of the audio resampler, Hz.
const RS_PASS_HZ: f64 = 4000.0;

/// Q of the two sections of a 4th-order Butterworth filter.
const BUTTER4_Q: [f64; 2] = [0.541_196_1, 1.306_563];

/// AGC settings for voice: target peak 0.3, attack 5 ms, decay 500 ms,
/// hang 300 ms, at most `max_gain` (linear).
///
/// ```
/// use airwaves_core::am::audio::voice_agc;
/// assert_eq!(voice_agc(1000.0).hang, 0.3);
/// ```
pub fn voice_agc(max_gain: f64) -> AgcParams {
    AgcParams {
        target: 0.3,
        attack: 5e-3,
        decay: 0.5,
        hang: 0.3,
        max_gain,
    }
}

/// The 300–3000 Hz voice band-pass (4th-order Butterworth high- and
/// low-pass). State: [`AudioBandState`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AudioBand {
    fs: f64,
    designs: [BiquadDesign; 4],
    sections: [Biquad; 4],
}

/// [`AudioBand`] state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AudioBandState {
    s: [Df2tState<f32>; 4],
}

impl AudioBand {
    /// The voice band-pass at sample rate `fs` Hz (≥ 8 kHz).
    ///
    /// ```
    /// use airwaves_core::am::audio::AudioBand;
    /// let b = AudioBand::new(18_750.0);
    /// assert!((b.magnitude(1000.0) - 1.0).abs() < 0.01);
    /// assert!(b.magnitude(100.0) < 0.02);
    /// ```
    pub fn new(fs: f64) -> Self {
        let designs = [
            BiquadDesign::highpass(VOICE_LOW_HZ, fs, BUTTER4_Q[0]),
            BiquadDesign::highpass(VOICE_LOW_HZ, fs, BUTTER4_Q[1]),
            BiquadDesign::lowpass(VOICE_HIGH_HZ, fs, BUTTER4_Q[0]),
            BiquadDesign::lowpass(VOICE_HIGH_HZ, fs, BUTTER4_Q[1]),
        ];
        Self {
            fs,
            designs,
            sections: designs.map(|d| d.to_f32()),
        }
    }

    /// |H(f)| at `f` Hz (from the `f64` design).
    pub fn magnitude(&self, f: f64) -> f64 {
        self.designs
            .iter()
            .map(|d| d.magnitude(f / self.fs))
            .product()
    }
}

impl SplitProcess<f32, f32, AudioBandState> for AudioBand {
    #[inline]
    fn process(&self, s: &mut AudioBandState, x: f32) -> f32 {
        let mut y = x;
        for (b, st) in self.sections.iter().zip(s.s.iter_mut()) {
            y = b.process(st, y);
        }
        y
    }
}

/// The post-detection chain: optional DC blocker, optional voice band-pass,
/// optional AGC. State: [`VoiceAudioState`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VoiceAudio {
    dc: Option<DcBlocker>,
    band: Option<AudioBand>,
    agc: Option<Agc>,
}

/// [`VoiceAudio`] state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VoiceAudioState {
    dc: DcBlockerState<f32>,
    band: AudioBandState,
    agc: Option<AgcState>,
}

impl VoiceAudio {
    /// The chain at `fs` Hz: a DC blocker if `dc`, the voice band-pass if
    /// `band`, the AGC `agc` if given.
    ///
    /// # Panics
    /// Panics if the AGC parameters are invalid (see [`Agc::new`]).
    pub fn new(fs: f64, dc: bool, band: bool, agc: Option<&AgcParams>) -> Self {
        Self {
            dc: dc.then(|| DcBlocker::new(DC_CUTOFF_HZ / fs)),
            band: band.then(|| AudioBand::new(fs)),
            agc: agc.map(|p| Agc::new(p, fs)),
        }
    }

    /// A state at rest.
    pub fn state(&self) -> VoiceAudioState {
        VoiceAudioState {
            dc: DcBlockerState::new(),
            band: AudioBandState::default(),
            agc: self.agc.map(|a| a.state()),
        }
    }

    /// The AGC's current gain (1 without AGC).
    pub fn gain(&self, s: &VoiceAudioState) -> f32 {
        s.agc.map_or(1.0, |a| a.gain())
    }
}

impl SplitProcess<f32, f32, VoiceAudioState> for VoiceAudio {
    #[inline]
    fn process(&self, s: &mut VoiceAudioState, x: f32) -> f32 {
        let mut y = x;
        if let Some(dc) = &self.dc {
            y = dc.process(&mut s.dc, y);
        }
        if let Some(b) = &self.band {
            y = b.process(&mut s.band, y);
        }
        if let (Some(a), Some(st)) = (&self.agc, s.agc.as_mut()) {
            y = a.process(st, y);
        }
        y
    }
}

/// Channel-rate to audio-rate resampler, `f32`, taps held in the
/// configuration. State: [`AudioResamplerState`].
#[derive(Clone, Debug)]
pub struct AudioResampler {
    l: u32,
    m: u32,
    taps: [f32; MAX_RESAMPLER_TAPS],
    len: usize,
}

/// [`AudioResampler`] state.
#[derive(Clone, Debug, Default)]
pub struct AudioResamplerState {
    rs: ResamplerState<f32, RS_HIST>,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl AudioResampler {
    /// A resampler from `num / den` Hz (the channel rate as a fraction)
    /// to `audio_rate` Hz (8–96 kHz).
    ///
    /// # Errors
    /// [`ConfigError::AudioRate`] if the audio rate is out of range or the
    /// reduced ratio `L/M` needs more than [`MAX_RESAMPLER_TAPS`] taps.
    ///
    /// ```
    /// use airwaves_core::am::audio::AudioResampler;
    /// let r = AudioResampler::new(2_400_000, 128, 48_000).unwrap(); // 18 750 Hz
    /// assert_eq!(r.ratio(), (64, 25));
    /// assert!(AudioResampler::new(2_400_000, 128, 44_100).is_ok());
    /// ```
    pub fn new(num: u32, den: u32, audio_rate: u32) -> Result<Self, ConfigError> {
        if !(8_000..=96_000).contains(&audio_rate) || num == 0 || den == 0 {
            return Err(ConfigError::AudioRate);
        }
        // audio / (num/den) = audio·den / num
        let (a, b) = (audio_rate as u64 * den as u64, num as u64);
        let g = gcd(a, b);
        let (l, m) = (a / g, b / g);
        if l > MAX_RESAMPLER_TAPS as u64 || m > u32::MAX as u64 {
            return Err(ConfigError::AudioRate);
        }
        let (l, m) = (l as u32, m as u32);
        let nyq = 0.5 * (num as f64 / den as f64).min(audio_rate as f64);
        let pass = (RS_PASS_HZ / nyq).min(0.9);
        let k = taps_per_phase(l, m, 60.0, pass).max(2);
        let len = l as usize * k;
        if len > MAX_RESAMPLER_TAPS || k > RS_HIST {
            return Err(ConfigError::AudioRate);
        }
        let mut taps = [0.0f32; MAX_RESAMPLER_TAPS];
        design_f32(l, m, 60.0, &mut taps[..len]);
        Ok(Self { l, m, taps, len })
    }

    /// The reduced ratio `(L, M)`.
    pub fn ratio(&self) -> (u32, u32) {
        (self.l, self.m)
    }

    /// The most outputs `len` inputs can give, `⌈len L / M⌉`.
    pub fn max_output(&self, len: usize) -> usize {
        self.resampler().max_output(len)
    }

    fn resampler(&self) -> Resampler<'_, f32> {
        Resampler::new(self.l, self.m, &self.taps[..self.len])
    }

    /// Resample `x` into the front of `y`; returns the count.
    ///
    /// # Panics
    /// Panics if `y.len() < max_output(x.len())`.
    pub fn process(&self, s: &mut AudioResamplerState, x: &[f32], y: &mut [f32]) -> usize {
        self.resampler().process(&mut s.rs, x, y)
    }
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use std::vec;

    #[test]
    fn test_band_edges() {
        let b = AudioBand::new(18_750.0);
        let db = |f: f64| 20.0 * libm::log10(b.magnitude(f));
        assert!((db(300.0) + 3.0).abs() < 0.1);
        assert!((db(3000.0) + 3.0).abs() < 0.1);
        assert!(db(1000.0).abs() < 0.1);
        assert!(db(100.0) < -35.0);
        assert!(db(6000.0) < -19.0);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_dc_removed_exactly() {
        // A constant (a carrier's DC) through DC blocker + band-pass
        // settles to exactly 0.
        let v = VoiceAudio::new(18_750.0, true, true, None);
        let mut s = v.state();
        let mut last = 1.0f32;
        for _ in 0..200_000 {
            last = v.process(&mut s, 0.7);
        }
        // Only a subnormal residue (below 1e-38) is left.
        assert!(last.abs() < 1e-38, "{last}");
    }

    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_resampler_rates() {
        let r = AudioResampler::new(300_000, 16, 48_000).unwrap();
        assert_eq!(r.ratio(), (64, 25));
        let mut s = AudioResamplerState::default();
        let x = [0.5f32; 1875];
        let mut y = vec![0.0; r.max_output(x.len())];
        assert_eq!(r.process(&mut s, &x, &mut y), 4800);
        assert!((y[4799] - 0.5).abs() < 1e-3);
        assert_eq!(
            AudioResampler::new(300_000, 16, 4000).err(),
            Some(ConfigError::AudioRate)
        );
    }
}
