//! AM (envelope or synchronous) and narrowband FM: the host side of
//! [`airwaves_core::am`].
//!
//! ```text
//! cu8 ──▶ core::am::Receiver: NCO ─▶ half-bands ─▶ channel FIR ─▶ detector ─▶ voice band, AGC ─▶ resampler ─▶ 48 kHz
//!  rate                                           8.33 kHz AM /  envelope, carrier
//!                                                 25 kHz NFM     PLL or discriminator
//! ```
//!
//! Audio: AM through the core's voice AGC (speech at about 0.3 of full
//! scale whatever the carrier level); NFM ±1.0 = ±5 kHz of deviation,
//! 750 µs de-emphasis. The squelch of `--squelch` is the pipeline's (on
//! [`DemodStatus::snr_db`]), the same for every mode.
//!
//! SNR estimate: the core's level squelch, used as a meter
//! ([`ReceiverState::snr_db`]): the channel power against the noise
//! density of the whole input band outside the channel (at least the
//! rounding noise of 8-bit samples),
//! `N = B · max((P_band − P_chan) / (f_s − B), N_q / f_s)`, `S = P_chan − N`,
//! with `B` the channel filter's noise bandwidth; `NaN` for the first
//! 50 ms (its warm-up).

use super::demod::{ConfigError, DemodStatus, Demodulator, cu8_pairs};
use airwaves_core::am::receiver::{Mode, Receiver, ReceiverConfig, ReceiverState, SquelchKind};
use airwaves_core::am::squelch::SquelchParams;
use airwaves_core::am::sync::SyncParams;

/// I/Q pairs handed to the core per call.
const CHUNK_PAIRS: usize = 8192;

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
    /// Input rate, Hz (240 000 ..= 3 200 000).
    pub rate: u32,
    /// The station's offset from the centre, Hz (inside ±rate/2 less the
    /// channel).
    pub offset_hz: f64,
    /// The demodulator.
    pub mode: NarrowMode,
}

/// AM / NBFM receiver: see the [module docs](self).
pub struct NarrowReceiver {
    rx: Receiver,
    state: Box<ReceiverState>,
    /// The core's audio for one chunk of input.
    audio_buf: Vec<f32>,
}

impl NarrowReceiver {
    /// A receiver for `opts`.
    ///
    /// # Errors
    /// [`ConfigError`] for a rate outside 240 kHz ..= 3.2 MHz or an offset
    /// that puts the channel outside the band.
    ///
    /// ```
    /// use airwaves::radio::demod::Demodulator;
    /// use airwaves::radio::narrow::{NarrowMode, NarrowOptions, NarrowReceiver};
    /// let opts = NarrowOptions { rate: 1_200_000, offset_hz: -50e3, mode: NarrowMode::Am };
    /// let mut am = NarrowReceiver::new(&opts).unwrap();
    /// let iq = [127u8; 2 * 25_000];
    /// let mut audio = vec![0.0; am.max_output(iq.len())];
    /// assert!(am.process(&iq, &mut audio) >= 999);
    /// ```
    pub fn new(opts: &NarrowOptions) -> Result<NarrowReceiver, ConfigError> {
        let am = ReceiverConfig::am(opts.rate, opts.offset_hz);
        let cfg = match opts.mode {
            NarrowMode::Am => am,
            NarrowMode::SyncAm => ReceiverConfig {
                mode: Mode::Synchronous(SyncParams::default()),
                ..am
            },
            NarrowMode::Nfm => ReceiverConfig::nbfm(opts.rate, opts.offset_hz),
        };
        // The core's level squelch as a meter only: a threshold so low
        // that it never closes (the pipeline's `--squelch` decides).
        let meter = SquelchParams {
            open_db: -200.0,
            hysteresis_db: 0.0,
            hang: 0.0,
            ..SquelchParams::default()
        };
        let cfg = ReceiverConfig {
            squelch: Some((SquelchKind::Level, meter)),
            ..cfg
        };
        let rx = Receiver::new(&cfg).map_err(|source| ConfigError::Narrow {
            rate: opts.rate,
            offset_hz: opts.offset_hz,
            source,
        })?;
        let state = Box::new(rx.state());
        let audio_buf = vec![0.0; rx.max_output(CHUNK_PAIRS)];
        Ok(NarrowReceiver {
            audio_buf,
            rx,
            state,
        })
    }
}

impl Demodulator for NarrowReceiver {
    fn channels(&self) -> usize {
        1
    }

    fn max_output(&self, iq_bytes: usize) -> usize {
        self.rx.max_output(iq_bytes / 2)
    }

    fn process(&mut self, iq: &[u8], audio: &mut [f32]) -> usize {
        let mut n = 0;
        for chunk in cu8_pairs(iq).chunks(CHUNK_PAIRS) {
            // `audio_buf` holds `max_output(CHUNK_PAIRS)`: never short.
            let m = self
                .rx
                .process(&mut self.state, chunk, &mut self.audio_buf)
                .unwrap_or(0);
            // The whole stream's output fits the caller's
            // `max_output(iq.len())` whatever the split.
            let room = audio.len().saturating_sub(n).min(m);
            audio[n..n + room].copy_from_slice(&self.audio_buf[..room]);
            n += room;
        }
        n
    }

    fn status(&self) -> DemodStatus {
        DemodStatus {
            snr_db: self.state.snr_db().unwrap_or(f32::NAN),
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
        let iq = signal(240_000.0, 30e3, 1000.0, 0.5, 0.0, 0.0, 2.0);
        for mode in [NarrowMode::Am, NarrowMode::SyncAm] {
            let opts = NarrowOptions {
                rate: 240_000,
                offset_hz: 30e3,
                mode,
            };
            let (out, r) = run(&opts, &iq);
            assert!(out.len().abs_diff(96_000) <= 2, "{}", out.len());
            // The voice AGC sets the level (after settling for 1 s); the
            // tone must dominate.
            let (a, rest) = tone_fit(&out[48_000..], 1000.0);
            assert!((0.1..0.9).contains(&a), "{mode:?}: amplitude {a}");
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
        let (out, _) = run(&opts, &iq);
        assert!(out.len().abs_diff(19_200) <= 2, "{}", out.len());
        let (a, rest) = tone_fit(&out[4800..], 1500.0);
        // ±3 kHz of ±5 kHz, through 750 µs de-emphasis at 1.5 kHz
        // (1/√(1 + (2π·1500·750e-6)²) = 0.140): 0.084.
        assert!((a - 0.084).abs() < 0.01, "amplitude {a}");
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
        for (rate, offset) in [(4_000, 0.0), (240_000, 118e3), (5_000_000, 0.0)] {
            let o = NarrowOptions {
                rate,
                offset_hz: offset,
                ..ok
            };
            assert!(NarrowReceiver::new(&o).is_err(), "{rate} {offset}");
        }
    }
}
