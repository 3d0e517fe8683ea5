//! AM (envelope or synchronous) and narrowband FM from cu8 at any rate,
//! a minimal chain built from `airwaves_core::dsp` pieces.
//!
//! ```text
//! cu8 ──▶ NCO (−offset) ──▶ resampler L/M → 48 kHz ──▶ channel FIR ──┬─▶ |z|, ÷ carrier          (AM)
//!  rate                      (flat to 10 kHz, 80 dB)    ±5 / ±8 kHz   ├─▶ carrier PLL, Re, ÷ carrier (AM --sync)
//!                                                                      └─▶ discriminator, DC block, 4 kHz FIR (NFM)
//! ```
//!
//! Audio scale: AM gives the modulation (±1.0 = 100 %), NFM ±1.0 = ±5 kHz
//! of deviation.
//!
//! SNR estimate: the power outside the channel filter but inside the
//! 48 kHz complex band gives the noise density (at least the rounding
//! noise of 8-bit samples); the channel's power less that density times
//! the channel width is the signal.
//!
//! This is the host's own chain so the commands work today; the `core::am`
//! module (front end, envelope and synchronous AM with AGC, NBFM, squelch)
//! is meant to replace it behind the same [`Demodulator`] trait: only
//! [`NarrowReceiver`] changes.

use super::demod::{AUDIO_RATE, ConfigError, DemodStatus, Demodulator};
use airwaves_core::C32;
use airwaves_core::dsp::SplitProcess;
use airwaves_core::dsp::convert::Cu8;
use airwaves_core::dsp::dc::{DcBlocker, DcBlockerState};
use airwaves_core::dsp::fir::{FirDesign, FirState, SymFir};
use airwaves_core::dsp::nco::{Nco, NcoState};
use airwaves_core::dsp::phase::{Discriminator, DiscriminatorState};
use airwaves_core::dsp::resample::{Resampler, ResamplerState, design_f32, taps_per_phase};

/// Which demodulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NarrowMode {
    /// AM, envelope detector.
    Am,
    /// AM, synchronous detector (carrier PLL).
    SyncAm,
    /// Narrowband FM (±5 kHz deviation).
    Nfm,
}

/// Options of a [`NarrowReceiver`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NarrowOptions {
    /// Input rate, Hz (8 000 ..= 3 200 000).
    pub rate: u32,
    /// The station's offset from the centre, Hz (inside ±rate/2 less the
    /// channel).
    pub offset_hz: f64,
    /// The demodulator.
    pub mode: NarrowMode,
}

/// Taps of the channel filter at 48 kHz.
const CHAN_N: usize = 95;
/// Taps of the NFM audio filter at 48 kHz.
const AUDIO_N: usize = 95;
/// History of the resampler (≥ its taps per phase).
const HIST: usize = 4096;
/// Largest interpolation factor accepted.
const MAX_L: u32 = 256;
/// Input pairs per internal block.
const BLOCK_PAIRS: usize = 32_768;
/// NFM deviation read as ±1.0, Hz.
const NFM_DEVIATION_HZ: f64 = 5_000.0;
/// Rounding noise power of cu8 samples (full scale 1.0 = 128 codes):
/// `2 · (1/128)² / 12`.
const QUANTISATION_POWER: f32 = 2.0 / (128.0 * 128.0 * 12.0);
/// Carrier tracker bandwidth (AM normalisation), Hz.
const CARRIER_HZ: f64 = 5.0;
/// Carrier PLL natural frequency (sync AM), Hz.
const PLL_HZ: f64 = 30.0;

/// AM / NBFM receiver: see the [module docs](self).
pub struct NarrowReceiver {
    mode: NarrowMode,
    /// Input rate, Hz.
    rate: u32,
    cu8: Cu8,
    nco: Nco,
    nco_state: NcoState,
    l: u32,
    m: u32,
    taps: Vec<f32>,
    rs_state: Box<ResamplerState<C32, HIST>>,
    chan: SymFir<f32, CHAN_N>,
    chan_state: Box<FirState<C32, CHAN_N>>,
    /// Channel half-width, Hz.
    half_width: f64,
    /// Carrier level tracker (AM) and its one-pole coefficient.
    carrier: f32,
    carrier_a: f32,
    /// PLL phase (rad), frequency (rad/sample) and gains.
    pll_phase: f32,
    pll_freq: f32,
    kp: f32,
    ki: f32,
    disc: Discriminator,
    disc_state: DiscriminatorState<C32>,
    dc: DcBlocker,
    dc_state: DcBlockerState<f32>,
    audio_lp: SymFir<f32, AUDIO_N>,
    audio_state: Box<FirState<f32, AUDIO_N>>,
    /// Smoothed power of the 48 kHz band and of the channel.
    p_band: f32,
    p_chan: f32,
    blocks: u64,
    c32: Vec<C32>,
    bb: Vec<C32>,
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

impl NarrowReceiver {
    /// A receiver for `opts`.
    ///
    /// # Errors
    /// [`ConfigError`] for a rate outside 8 kHz ..= 3.2 MHz, one whose
    /// ratio to 48 kHz needs an interpolation factor above 256, or an
    /// offset that puts the channel outside the band.
    ///
    /// ```
    /// use airwaves::radio::demod::Demodulator;
    /// use airwaves::radio::narrow::{NarrowMode, NarrowOptions, NarrowReceiver};
    /// let opts = NarrowOptions { rate: 1_200_000, offset_hz: -50e3, mode: NarrowMode::Am };
    /// let mut am = NarrowReceiver::new(&opts).unwrap();
    /// assert_eq!(am.ratio(), (1, 25));
    /// let iq = [127u8; 2 * 2500];
    /// let mut audio = vec![0.0; am.max_output(iq.len())];
    /// assert_eq!(am.process(&iq, &mut audio), 100);
    /// ```
    pub fn new(opts: &NarrowOptions) -> Result<NarrowReceiver, ConfigError> {
        let rate = opts.rate;
        if !(8_000..=3_200_000).contains(&rate) {
            return Err(ConfigError(format!(
                "rate {rate} Hz: use 8000 to 3200000 Hz"
            )));
        }
        let half_width = match opts.mode {
            NarrowMode::Am | NarrowMode::SyncAm => 5_000.0,
            NarrowMode::Nfm => 8_000.0,
        };
        if !(opts.offset_hz.is_finite()
            && opts.offset_hz.abs() + half_width <= 0.5 * f64::from(rate))
        {
            return Err(ConfigError(format!(
                "offset {} Hz: the ±{} kHz channel must lie inside ±{} Hz",
                opts.offset_hz,
                half_width / 1e3,
                rate / 2
            )));
        }
        let g = gcd(AUDIO_RATE, rate);
        let (l, m) = (AUDIO_RATE / g, rate / g);
        if l > MAX_L {
            return Err(ConfigError(format!(
                "rate {rate} Hz: 48000/{rate} reduces to {l}/{m}; use a rate whose ratio \
                 to 48 kHz has a numerator of at most {MAX_L} (e.g. 240000, 1200000, 2400000)"
            )));
        }
        // Flat to 10 kHz of the 24 kHz output Nyquist frequency (or of the
        // input's, when it is lower).
        let nyq = 0.5 * f64::from(AUDIO_RATE.min(rate));
        let k = taps_per_phase(l, m, 80.0, (10_000.0 / nyq).min(0.8));
        if k > HIST {
            return Err(ConfigError(format!(
                "rate {rate} Hz: the resampler would need {k} taps per phase"
            )));
        }
        let mut taps = vec![0.0f32; l as usize * k];
        design_f32(l, m, 80.0, &mut taps);
        let fs = f64::from(AUDIO_RATE);
        let wn = 2.0 * std::f64::consts::PI * PLL_HZ / fs;
        let zeta = std::f64::consts::FRAC_1_SQRT_2;
        let c32 = BLOCK_PAIRS;
        let bb = (c32 as u64 * u64::from(l)).div_ceil(u64::from(m)) as usize + 1;
        Ok(NarrowReceiver {
            mode: opts.mode,
            rate,
            cu8: Cu8::RTL_SDR,
            nco: Nco::new(-opts.offset_hz / f64::from(rate)),
            nco_state: NcoState::default(),
            l,
            m,
            taps,
            rs_state: Box::new(ResamplerState::new()),
            chan: SymFir::design(&FirDesign::lowpass(half_width / fs, 80.0)),
            chan_state: Box::default(),
            half_width,
            carrier: 0.0,
            carrier_a: (2.0 * std::f64::consts::PI * CARRIER_HZ / fs) as f32,
            pll_phase: 0.0,
            pll_freq: 0.0,
            kp: (2.0 * zeta * wn) as f32,
            ki: (wn * wn) as f32,
            disc: Discriminator::new((fs / (2.0 * std::f64::consts::PI * NFM_DEVIATION_HZ)) as f32),
            disc_state: DiscriminatorState::default(),
            dc: DcBlocker::new(30.0 / fs),
            dc_state: DcBlockerState::default(),
            audio_lp: SymFir::design(&FirDesign::lowpass(4_000.0 / fs, 70.0)),
            audio_state: Box::default(),
            p_band: 0.0,
            p_chan: 0.0,
            blocks: 0,
            c32: vec![C32::new(0.0, 0.0); c32],
            bb: vec![C32::new(0.0, 0.0); bb],
        })
    }

    /// The resampling ratio `(L, M)` from the input rate to 48 kHz.
    pub fn ratio(&self) -> (u32, u32) {
        (self.l, self.m)
    }

    /// One block of at most [`BLOCK_PAIRS`] pairs.
    fn block(&mut self, iq: &[u8], audio: &mut [f32]) -> usize {
        let n = iq.len() / 2;
        for (y, s) in self.c32[..n].iter_mut().zip(iq.chunks_exact(2)) {
            *y = self
                .nco
                .process(&mut self.nco_state, self.cu8.c32([s[0], s[1]]));
        }
        let rs = Resampler::new(self.l, self.m, &self.taps);
        let k = rs.process(&mut self.rs_state, &self.c32[..n], &mut self.bb);
        let (mut pb, mut pc) = (0.0f32, 0.0f32);
        for (i, o) in audio[..k].iter_mut().enumerate() {
            let z = self.bb[i];
            pb += z.norm_sqr();
            let y = self.chan.process(&mut self.chan_state, z);
            pc += y.norm_sqr();
            *o = self.demodulate(y);
        }
        if k > 0 {
            let a = if self.blocks < 4 { 1.0 } else { 0.125 };
            self.p_band += a * (pb / k as f32 - self.p_band);
            self.p_chan += a * (pc / k as f32 - self.p_chan);
            self.blocks += 1;
        }
        k
    }

    /// One channel-filtered sample to audio.
    #[inline]
    fn demodulate(&mut self, y: C32) -> f32 {
        match self.mode {
            NarrowMode::Am => self.normalise(y.norm()),
            NarrowMode::SyncAm => {
                let (s, c) = self.pll_phase.sin_cos();
                // y · e^{−jφ}
                let re = y.re * c + y.im * s;
                let im = y.im * c - y.re * s;
                let err = im.atan2(re);
                self.pll_freq += self.ki * err;
                self.pll_phase += self.pll_freq + self.kp * err;
                if self.pll_phase > std::f32::consts::PI {
                    self.pll_phase -= std::f32::consts::TAU;
                } else if self.pll_phase < -std::f32::consts::PI {
                    self.pll_phase += std::f32::consts::TAU;
                }
                self.normalise(re)
            }
            NarrowMode::Nfm => {
                let d = self.disc.process(&mut self.disc_state, y);
                let d = self.dc.process(&mut self.dc_state, d);
                self.audio_lp.process(&mut self.audio_state, d)
            }
        }
    }

    /// `(e − c)/c` with `c` the carrier level tracked by a one-pole.
    #[inline]
    fn normalise(&mut self, e: f32) -> f32 {
        if self.carrier == 0.0 {
            self.carrier = e;
        }
        self.carrier += self.carrier_a * (e - self.carrier);
        if self.carrier > 1e-9 {
            (e - self.carrier) / self.carrier
        } else {
            0.0
        }
    }
}

impl Demodulator for NarrowReceiver {
    fn channels(&self) -> usize {
        1
    }

    fn max_output(&self, iq_bytes: usize) -> usize {
        let pairs = (iq_bytes / 2) as u64;
        let blocks = pairs.div_ceil(BLOCK_PAIRS as u64);
        ((pairs * u64::from(self.l)).div_ceil(u64::from(self.m)) + blocks) as usize
    }

    fn process(&mut self, iq: &[u8], audio: &mut [f32]) -> usize {
        let mut n = 0;
        for b in iq[..iq.len() & !1].chunks(2 * BLOCK_PAIRS) {
            n += self.block(b, &mut audio[n..]);
        }
        n
    }

    fn status(&self) -> DemodStatus {
        // NaN until the estimate has settled (4 blocks).
        let snr_db = if self.blocks < 4 {
            f32::NAN
        } else {
            let fs = AUDIO_RATE as f32;
            let chan_bw = 2.0 * self.half_width as f32;
            // Never below the rounding noise of 8-bit samples, spread over
            // the input band (a clean signal leaves the out-of-channel
            // power at the filters' ripple).
            let floor = QUANTISATION_POWER / self.rate as f32;
            let density = ((self.p_band - self.p_chan) / (fs - chan_bw)).max(floor);
            let noise = density * chan_bw;
            let signal = (self.p_chan - noise).max(0.0);
            10.0 * (signal.max(1e-20) / noise.max(1e-20)).log10()
        };
        DemodStatus {
            snr_db,
            blend: None,
            rds: None,
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;

    /// `seconds` of cu8 at `rate`: a carrier at `offset` Hz, amplitude
    /// 0.3, AM by `depth` or FM by `dev` Hz with a `tone` Hz sine, plus
    /// Gaussian-ish noise of `noise` rms per component (LCG, summed).
    fn signal(
        rate: f64,
        offset: f64,
        tone: f64,
        depth: f64,
        dev: f64,
        noise: f64,
        seconds: f64,
    ) -> Vec<u8> {
        let n = (rate * seconds) as usize;
        let mut out = Vec::with_capacity(2 * n);
        let mut phase = 0.0f64;
        let mut seed = 12345u64;
        let mut rnd = || {
            let mut s = 0.0;
            for _ in 0..4 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s += (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            }
            s * (3.0f64).sqrt()
        };
        for i in 0..n {
            let t = i as f64 / rate;
            let m = (2.0 * std::f64::consts::PI * tone * t).sin();
            let a = 0.3 * (1.0 + depth * m);
            phase += 2.0 * std::f64::consts::PI * (offset + dev * m) / rate;
            let re = a * phase.cos() + noise * rnd();
            let im = a * phase.sin() + noise * rnd();
            out.push((re * 128.0 + 127.4).round().clamp(0.0, 255.0) as u8);
            out.push((im * 128.0 + 127.4).round().clamp(0.0, 255.0) as u8);
        }
        out
    }

    /// Amplitude of the `f` Hz component of `x` at 48 kHz, and the rms of
    /// the rest.
    fn tone_fit(x: &[f32], f: f64) -> (f64, f64) {
        let w = 2.0 * std::f64::consts::PI * f / 48_000.0;
        let (mut c, mut s) = (0.0, 0.0);
        for (i, &v) in x.iter().enumerate() {
            c += f64::from(v) * (w * i as f64).cos();
            s += f64::from(v) * (w * i as f64).sin();
        }
        let n = x.len() as f64;
        let (a, b) = (2.0 * c / n, 2.0 * s / n);
        let rest: f64 = x
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let e = f64::from(v) - a * (w * i as f64).cos() - b * (w * i as f64).sin();
                e * e
            })
            .sum::<f64>()
            / n;
        ((a * a + b * b).sqrt(), rest.sqrt())
    }

    fn run(opts: &NarrowOptions, iq: &[u8]) -> (Vec<f32>, NarrowReceiver) {
        let mut r = NarrowReceiver::new(opts).unwrap();
        let mut out = vec![0.0; r.max_output(iq.len())];
        let n = r.process(iq, &mut out);
        out.truncate(n);
        (out, r)
    }

    #[test]
    fn test_am_envelope_and_sync_recover_the_tone() {
        let iq = signal(240_000.0, 30e3, 1000.0, 0.5, 0.0, 0.0, 0.5);
        for mode in [NarrowMode::Am, NarrowMode::SyncAm] {
            let opts = NarrowOptions {
                rate: 240_000,
                offset_hz: 30e3,
                mode,
            };
            let (out, r) = run(&opts, &iq);
            assert_eq!(out.len(), 24_000);
            let (a, rest) = tone_fit(&out[9600..], 1000.0);
            assert!((a - 0.5).abs() < 0.02, "{mode:?}: amplitude {a}");
            assert!(20.0 * (a / rest).log10() > 30.0, "{mode:?}: {a} vs {rest}");
            assert!(r.status().snr_db > 30.0, "{:?}", r.status());
        }
    }

    #[test]
    fn test_nfm_recovers_the_tone_at_a_fractional_ratio() {
        // 1.024 MS/s → 48 kHz is 3/64.
        let iq = signal(1_024_000.0, -40e3, 1500.0, 0.0, 3000.0, 0.0, 0.4);
        let opts = NarrowOptions {
            rate: 1_024_000,
            offset_hz: -40e3,
            mode: NarrowMode::Nfm,
        };
        let (out, r) = run(&opts, &iq);
        assert_eq!(r.ratio(), (3, 64));
        assert_eq!(out.len(), 19_200);
        let (a, rest) = tone_fit(&out[4800..], 1500.0);
        assert!((a - 0.6).abs() < 0.02, "amplitude {a}");
        assert!(20.0 * (a / rest).log10() > 30.0, "{a} vs {rest}");
    }

    #[test]
    fn test_snr_estimate_falls_with_noise() {
        let mut snr = Vec::new();
        for noise in [0.003, 0.03] {
            let iq = signal(240_000.0, 30e3, 1000.0, 0.3, 0.0, noise, 0.6);
            let opts = NarrowOptions {
                rate: 240_000,
                offset_hz: 30e3,
                mode: NarrowMode::Am,
            };
            snr.push(run(&opts, &iq).1.status().snr_db);
        }
        // 20 dB more noise; the quiet case is limited by 8-bit rounding.
        assert!(snr[0] > snr[1] + 10.0, "{snr:?}");
        // Carrier 0.3 (plus sidebands) against noise 2·0.03² · 10/240 kHz.
        assert!((snr[1] - 32.0).abs() < 4.0, "{snr:?}");
    }

    #[test]
    fn test_any_split_gives_the_same_audio() {
        let iq = signal(1_200_000.0, 20e3, 700.0, 0.0, 2000.0, 0.01, 0.1);
        let opts = NarrowOptions {
            rate: 1_200_000,
            offset_hz: 20e3,
            mode: NarrowMode::Nfm,
        };
        let (whole, _) = run(&opts, &iq);
        let mut r = NarrowReceiver::new(&opts).unwrap();
        let mut parts = Vec::new();
        for c in iq.chunks(77_778) {
            let mut out = vec![0.0; r.max_output(c.len())];
            let n = r.process(c, &mut out);
            parts.extend_from_slice(&out[..n]);
        }
        assert_eq!(whole, parts);
    }

    #[test]
    fn test_bad_options_are_refused() {
        let ok = NarrowOptions {
            rate: 240_000,
            offset_hz: 0.0,
            mode: NarrowMode::Am,
        };
        assert!(NarrowReceiver::new(&ok).is_ok());
        for (rate, offset) in [
            (4_000, 0.0),
            (240_000, 118e3),
            (240_001, 0.0),
            (5_000_000, 0.0),
        ] {
            let o = NarrowOptions {
                rate,
                offset_hz: offset,
                ..ok
            };
            assert!(NarrowReceiver::new(&o).is_err(), "{rate} {offset}");
        }
    }
}
