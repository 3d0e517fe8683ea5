//! The seam between the receiver plumbing and the DSP: [`Demodulator`]
//! (cu8 I/Q in, 48 kHz audio out, a status snapshot), and its wideband FM
//! implementation [`FmReceiver`] over `airwaves_core::fm` and
//! `airwaves_core::rds`.
//!
//! The AM and narrowband FM implementation lives in
//! [`narrow`](super::narrow).

use airwaves_core::am::ConfigError as AmConfigError;
use airwaves_core::dsp::SplitProcess;
use airwaves_core::dsp::deemph::{TAU_50US, TAU_75US};
use airwaves_core::dsp::iir::{Biquad, BiquadDesign, Df2tState};
use airwaves_core::fm::stereo::{StereoDecoder, StereoDecoderState};
use airwaves_core::fm::wbfm::{
    self, FrontEnd, FrontEndState, MPX_RATE, MonoDecoder, MonoDecoderState, STEREO_CUTOFF_HZ,
};
use airwaves_core::rds::RateError;
use airwaves_core::rds::decoder::{Decoder as RdsDecoder, DecoderState as RdsState};
use airwaves_core::rds::group::Station;

/// Audio rate of every [`Demodulator`], Hz.
pub const AUDIO_RATE: u32 = 48_000;

/// What a demodulator knows about the signal now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DemodStatus {
    /// Signal-to-noise estimate, dB (see each implementation; NaN while
    /// it settles, over the first few internal blocks). A squelch stays
    /// closed on NaN.
    pub snr_db: f32,
    /// Stereo blend 0..=1 (0 = mono), `None` for a mono receiver.
    pub blend: Option<f32>,
    /// What RDS has decoded, `None` without `--rds`.
    pub rds: Option<Station>,
}

/// A receiver's DSP: cu8 I/Q at the source's rate in, interleaved audio at
/// [`AUDIO_RATE`] out (±1.0 full scale).
pub trait Demodulator {
    /// Audio channels: 1 (mono) or 2 (left, right interleaved).
    fn channels(&self) -> usize;

    /// The most audio samples (all channels) [`process`](Self::process)
    /// writes for `iq_bytes` bytes of input.
    fn max_output(&self, iq_bytes: usize) -> usize;

    /// Demodulate `iq` (interleaved u8 I, Q; an odd last byte is ignored)
    /// into the front of `audio` (at least
    /// [`max_output`](Self::max_output)`(iq.len())` long); returns the
    /// number of samples written. The output does not depend on how the
    /// stream is split into calls.
    fn process(&mut self, iq: &[u8], audio: &mut [f32]) -> usize;

    /// A snapshot of the signal estimates.
    fn status(&self) -> DemodStatus;
}

/// `iq` (interleaved u8 I, Q) as I/Q pairs, an odd last byte left out,
/// without a copy.
///
/// ```
/// use airwaves::radio::demod::cu8_pairs;
/// assert_eq!(cu8_pairs(&[1, 2, 3, 4, 5]), &[[1, 2], [3, 4]]);
/// ```
pub fn cu8_pairs(iq: &[u8]) -> &[[u8; 2]] {
    use zerocopy::FromBytes;
    match <[[u8; 2]]>::ref_from_bytes(&iq[..iq.len() & !1]) {
        Ok(pairs) => pairs,
        // `[u8; 2]` has alignment 1 and the length is even.
        Err(e) => unreachable!("{e}"),
    }
}

/// Wideband FM options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FmOptions {
    /// The station's offset from the centre of the 2.4 MS/s I/Q, Hz
    /// (|offset| ≤ 1 MHz).
    pub offset_hz: f64,
    /// Decode stereo (pilot PLL and blend); mono otherwise.
    pub stereo: bool,
    /// De-emphasis time constant, µs: 50 or 75.
    pub deemph_us: u32,
    /// Decode RDS from the multiplex.
    pub rds: bool,
}

/// Why a receiver, its tuning or its audio path cannot be built from the
/// options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConfigError {
    /// A de-emphasis time constant other than 50 or 75 µs.
    Deemphasis(u32),
    /// A station offset beyond ±1 MHz of the centre, Hz.
    Offset(f64),
    /// A station offset (Hz) that puts the tuned centre below 0 Hz.
    CentreBelowZero(f64),
    /// An `fm` sample rate other than
    /// [`INPUT_RATE`](airwaves_core::fm::wbfm::INPUT_RATE), Hz.
    FmRate(u32),
    /// The RDS decoder refused the multiplex rate.
    Rds(RateError),
    /// The AM/NFM receiver refused the sample rate (Hz) and station offset
    /// (Hz).
    Narrow {
        /// Sample rate, Hz.
        rate: u32,
        /// Station offset from the centre, Hz.
        offset_hz: f64,
        /// The core receiver's reason.
        source: AmConfigError,
    },
    /// An audio rate outside 8 000 ..= 192 000 Hz.
    AudioRate(u32),
    /// An audio rate whose ratio to 48 kHz reduces to `l`/`m` with more
    /// phases than the resampler keeps.
    AudioRatio {
        /// The audio rate, Hz.
        rate: u32,
        /// Interpolation factor.
        l: u32,
        /// Decimation factor.
        m: u32,
    },
    /// An audio rate whose resampler needs more taps per phase than it keeps.
    AudioTaps {
        /// The audio rate, Hz.
        rate: u32,
        /// Taps per phase needed.
        taps: usize,
    },
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::Deemphasis(us) => write!(f, "de-emphasis {us} µs: use 50 or 75"),
            ConfigError::Offset(hz) => write!(
                f,
                "offset {hz} Hz: the station must lie within ±1 MHz of the centre"
            ),
            ConfigError::CentreBelowZero(hz) => {
                write!(f, "offset {hz} Hz puts the centre below 0 Hz")
            }
            ConfigError::FmRate(hz) => write!(
                f,
                "rate {hz} Hz: the FM receiver takes {} S/s",
                airwaves_core::fm::wbfm::INPUT_RATE
            ),
            ConfigError::Rds(e) => write!(f, "RDS: {e}"),
            ConfigError::Narrow {
                rate,
                offset_hz,
                source,
            } => write!(
                f,
                "rate {rate} Hz, station offset {offset_hz} Hz: {source} (rates such as \
                 240000, 1200000 or 2400000 S/s work; the channel must lie inside ±rate/2)"
            ),
            ConfigError::AudioRate(hz) => write!(f, "audio rate {hz} Hz: use 8000 to 192000 Hz"),
            ConfigError::AudioRatio { rate, l, m } => write!(
                f,
                "audio rate {rate} Hz: {rate}/48000 reduces to {l}/{m}; use a common rate \
                 (44100, 32000, 22050, 16000, 8000, 96000)"
            ),
            ConfigError::AudioTaps { rate, taps } => {
                write!(f, "audio rate {rate} Hz needs {taps} taps per phase")
            }
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Narrow { source, .. } => Some(source),
            _ => None,
        }
    }
}

enum FmDecoder {
    Mono(MonoDecoder, Box<MonoDecoderState>),
    Stereo(StereoDecoder, Box<StereoDecoderState>),
}

/// Input bytes per internal block (sets the scratch sizes).
const FM_BLOCK_BYTES: usize = 65_536;

/// Centre of the MPX noise probe, Hz: above RDS (57 ± 2.4 kHz) and the
/// fourth pilot harmonic (76 kHz), near the end of the mono channel
/// filter's flat band; nothing is broadcast there.
const NOISE_PROBE_HZ: f64 = 82e3;
/// Q of the noise probe (−3 dB from 78 to 86 kHz; noise bandwidth
/// `π/2 · f/Q` = 12.9 kHz).
const NOISE_PROBE_Q: f64 = 10.0;
/// MPX samples per block the noise probe measures: the block's last ones
/// (4.3 ms of its 13.7 ms), to cost a third of running on every sample.
const PROBE_LEN: usize = 1024;
/// MPX samples the probe runs before [`PROBE_LEN`] when it skipped some:
/// ten time constants of its ring-up (`2Q / ω₀` = 9.3 samples), so what
/// it held from the previous block has decayed to 3·10⁻⁵.
const PROBE_WARMUP: usize = 96;

/// Broadcast FM: `FrontEnd` → `MonoDecoder` or `StereoDecoder`, and the
/// RDS decoder on the multiplex.
///
/// SNR estimate: the discriminator's noise density at 70 kHz in the
/// multiplex (where nothing is transmitted), extrapolated with FM's
/// parabolic noise spectrum to a 15 kHz audio band (mean `f²` of
/// 75 kHz² against 4 900 kHz²) and compared with a full-deviation tone
/// (power ½), before de-emphasis. Measured on generated stations (stereo
/// channel filter): 49.8 dB at CNR 20 (theory 47), 39.9 dB at CNR 10
/// (theory 37), about 60 dB at CNR 40 (the floor of 8-bit samples); the
/// mono filter reads 2–3 dB higher.
pub struct FmReceiver {
    front: FrontEnd,
    front_state: Box<FrontEndState>,
    decoder: FmDecoder,
    rds: Option<(RdsDecoder, Box<RdsState>)>,
    probe: Biquad,
    probe_state: Df2tState<f32>,
    /// Smoothed probe output power.
    probe_power: f32,
    blocks: u64,
    mpx: Vec<f32>,
    left: Vec<f32>,
    right: Vec<f32>,
}

impl FmReceiver {
    /// A receiver for a station `opts.offset_hz` from the centre of
    /// 2.4 MS/s I/Q.
    ///
    /// # Errors
    /// [`ConfigError`] for an offset beyond ±1 MHz or a de-emphasis other
    /// than 50 or 75 µs.
    ///
    /// ```
    /// use airwaves::radio::demod::{Demodulator, FmOptions, FmReceiver};
    /// let opts = FmOptions { offset_hz: -250e3, stereo: true, deemph_us: 50, rds: true };
    /// let mut fm = FmReceiver::new(&opts).unwrap();
    /// let iq = [127u8; 2 * 24_000]; // 10 ms at 2.4 MS/s
    /// let mut audio = vec![0.0; fm.max_output(iq.len())];
    /// assert_eq!(fm.process(&iq, &mut audio), 2 * 480);
    /// assert_eq!(fm.status().blend, Some(0.0));
    /// ```
    pub fn new(opts: &FmOptions) -> Result<FmReceiver, ConfigError> {
        let tau = match opts.deemph_us {
            50 => TAU_50US,
            75 => TAU_75US,
            other => {
                return Err(ConfigError::Deemphasis(other));
            }
        };
        let front = if opts.stereo {
            FrontEnd::with_cutoff(opts.offset_hz, STEREO_CUTOFF_HZ)
        } else {
            FrontEnd::mono(opts.offset_hz)
        };
        let front = front.ok_or(ConfigError::Offset(opts.offset_hz))?;
        let decoder = if opts.stereo {
            FmDecoder::Stereo(StereoDecoder::new(tau), Box::default())
        } else {
            FmDecoder::Mono(MonoDecoder::new(tau), Box::default())
        };
        let rds = if opts.rds {
            let d = RdsDecoder::new(f64::from(MPX_RATE)).map_err(ConfigError::Rds)?;
            Some((d, Box::new(RdsState::new())))
        } else {
            None
        };
        let pairs = FM_BLOCK_BYTES / 2;
        let mpx = front.max_output(pairs);
        let audio = mpx.div_ceil(wbfm::AUDIO_DECIMATION);
        Ok(FmReceiver {
            front,
            front_state: Box::default(),
            decoder,
            rds,
            probe: BiquadDesign::bandpass(NOISE_PROBE_HZ, f64::from(MPX_RATE), NOISE_PROBE_Q)
                .to_f32(),
            probe_state: Df2tState::default(),
            probe_power: 0.0,
            blocks: 0,
            mpx: vec![0.0; mpx],
            left: vec![0.0; audio],
            right: vec![0.0; audio],
        })
    }

    /// One block of at most `FM_BLOCK_BYTES / 2` pairs.
    fn block(&mut self, iq: &[[u8; 2]], audio: &mut [f32]) -> usize {
        let m = match self.front.process(&mut self.front_state, iq, &mut self.mpx) {
            Ok(m) => m,
            Err(e) => unreachable_sized(&e),
        };
        let mpx = &self.mpx[..m];
        if let Some((d, s)) = &mut self.rds {
            d.process_block(s, mpx, |_| {});
        }
        // The probe on the block's tail (a short block: all of it, carrying
        // on from the previous tail).
        let skip = m.saturating_sub(PROBE_WARMUP + PROBE_LEN);
        let warm = if skip > 0 { PROBE_WARMUP } else { 0 };
        let (ring_up, measured) = mpx[skip..].split_at(warm);
        for &x in ring_up {
            self.probe.process(&mut self.probe_state, x);
        }
        let mut acc = 0.0f32;
        for &x in measured {
            let y = self.probe.process(&mut self.probe_state, x);
            acc += y * y;
        }
        if !measured.is_empty() {
            let p = acc / measured.len() as f32;
            // Settle fast at first, then average over about 8 blocks.
            let a = if self.blocks < 4 { 1.0 } else { 0.125 };
            self.probe_power += a * (p - self.probe_power);
            self.blocks += 1;
        }
        let got = match &mut self.decoder {
            FmDecoder::Mono(d, s) => d.process(s, mpx, audio),
            FmDecoder::Stereo(d, s) => {
                let k = d.process(s, mpx, &mut self.left, &mut self.right);
                k.map(|k| {
                    for ((o, l), r) in audio
                        .chunks_exact_mut(2)
                        .zip(&self.left[..k])
                        .zip(&self.right[..k])
                    {
                        o[0] = *l;
                        o[1] = *r;
                    }
                    2 * k
                })
            }
        };
        match got {
            Ok(k) => k,
            Err(e) => unreachable_sized(&e),
        }
    }
}

/// The scratch buffers are sized from the same `max_output` the core
/// checks; a mismatch is a bug here, not bad input.
#[cold]
#[inline(never)]
fn unreachable_sized(e: &dyn std::fmt::Display) -> ! {
    panic!("FM receiver scratch sizing: {e}")
}

impl Demodulator for FmReceiver {
    fn channels(&self) -> usize {
        match self.decoder {
            FmDecoder::Mono(..) => 1,
            FmDecoder::Stereo(..) => 2,
        }
    }

    fn max_output(&self, iq_bytes: usize) -> usize {
        // Per block: ⌈⌈pairs/10⌉/5⌉ per channel.
        let blocks = iq_bytes.div_ceil(FM_BLOCK_BYTES);
        let pairs = iq_bytes / 2;
        let per_channel =
            pairs.div_ceil(wbfm::MPX_DECIMATION * wbfm::AUDIO_DECIMATION) + 2 * blocks;
        per_channel * self.channels()
    }

    fn process(&mut self, iq: &[u8], audio: &mut [f32]) -> usize {
        let mut n = 0;
        for b in cu8_pairs(iq).chunks(FM_BLOCK_BYTES / 2) {
            n += self.block(b, &mut audio[n..]);
        }
        n
    }

    fn status(&self) -> DemodStatus {
        // NaN until the estimate has settled (4 blocks).
        let snr_db = if self.blocks < 4 {
            f32::NAN
        } else {
            let bw = (std::f64::consts::FRAC_PI_2 * NOISE_PROBE_HZ / NOISE_PROBE_Q) as f32;
            let density = self.probe_power / bw;
            let f_khz = (NOISE_PROBE_HZ / 1e3) as f32;
            let audio_noise = density * (75.0 / (f_khz * f_khz)) * 15_000.0;
            10.0 * (0.5 / audio_noise.max(1e-30)).log10()
        };
        DemodStatus {
            snr_db,
            blend: match &self.decoder {
                FmDecoder::Stereo(_, s) => Some(s.blend()),
                FmDecoder::Mono(..) => None,
            },
            rds: self.rds.as_ref().map(|(_, s)| *s.station()),
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use airwaves_core::fm::generator::{Generator, GeneratorConfig, Tone};

    fn scene(cnr: Option<f64>, seconds: f64) -> Vec<u8> {
        let mut cfg = GeneratorConfig::new(-250e3);
        cfg.cnr_db = cnr;
        let g = Generator::new(cfg).unwrap();
        let mut s = g.state();
        let n = (2.4e6 * seconds) as usize;
        let mut iq = vec![[0u8; 2]; n];
        let (l, r) = (Tone::new(1000.0, 0.5), Tone::new(2000.0, 0.5));
        g.fill(&mut s, |t| l.at(t), |t| r.at(t), |_| 0.0, &mut iq);
        iq.concat()
    }

    fn opts(stereo: bool) -> FmOptions {
        FmOptions {
            offset_hz: -250e3,
            stereo,
            deemph_us: 50,
            rds: false,
        }
    }

    #[test]
    fn test_any_split_gives_the_same_audio() {
        let iq = scene(Some(30.0), 0.1);
        let mut a = FmReceiver::new(&opts(true)).unwrap();
        let mut whole = vec![0.0; a.max_output(iq.len())];
        let n = a.process(&iq, &mut whole);
        assert_eq!(n, 2 * 4800);
        let mut b = FmReceiver::new(&opts(true)).unwrap();
        let mut parts = vec![0.0; n + 64];
        let mut m = 0;
        // Odd-sized, some larger than the internal block.
        for c in iq.chunks(70_002) {
            let k = b.max_output(c.len());
            m += b.process(c, &mut parts[m..m + k]);
        }
        assert_eq!(m, n);
        assert_eq!(whole[..n], parts[..n]);
    }

    #[test]
    fn test_snr_estimate_follows_cnr() {
        let mut snr = Vec::new();
        for cnr in [40.0, 20.0, 10.0, 40.0, 20.0, 10.0] {
            let iq = scene(Some(cnr), 0.2);
            let mut r = FmReceiver::new(&opts(snr.len() >= 3)).unwrap();
            let mut out = vec![0.0; r.max_output(iq.len())];
            r.process(&iq, &mut out);
            snr.push(r.status().snr_db);
        }
        // Theory (1.5 β² C/(N0 W), β = 5, W = 15 kHz): 47 dB at CNR 20,
        // 37 dB at CNR 10 (less, near threshold). 8-bit input floors it
        // near 60 dB; the mono filter's roll-off at 82 kHz reads high.
        let (mono, stereo) = snr.split_at(3);
        assert!((stereo[1] - 47.0).abs() < 4.0, "{snr:?}");
        for s in [mono, stereo] {
            assert!(s[0] > s[1] + 6.0 && s[1] > s[2] + 7.0, "{snr:?}");
        }
        assert!((mono[1] - stereo[1]).abs() < 5.0, "{snr:?}");
    }

    #[test]
    fn test_bad_options_are_refused() {
        let mut o = opts(true);
        o.offset_hz = 1.5e6;
        assert!(FmReceiver::new(&o).is_err());
        let mut o = opts(true);
        o.deemph_us = 60;
        let e = FmReceiver::new(&o).err().unwrap();
        assert!(e.to_string().contains("50 or 75"), "{e}");
    }
}
