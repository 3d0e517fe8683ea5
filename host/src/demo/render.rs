//! Frames to RTL-SDR `cu8` I/Q, cheaply enough for real time.
//!
//! # Noise
//!
//! At start-up one table of [`TABLE_LEN`] complex samples of band-limited
//! Gaussian noise is made: white noise through the scene generator's
//! 31-tap Kaiser low-pass (cut-off 0.8 × f_s/2, circularly, so the table
//! wraps smoothly), scaled to exactly [`DemoConfig::noise_rms`](super::DemoConfig::noise_rms) codes per
//! component. It is kept twice: as `C32` and already quantised to bytes
//! (with the zero level 127.4 and [`DemoConfig::dc_offset`](super::DemoConfig::dc_offset)). The stream
//! reads it in segments of [`SEGMENT`] samples, each from an offset drawn
//! by hashing the seed and the segment's index, so the noise never visibly
//! repeats and sample `n`'s noise depends on `n` alone.
//!
//! # Replies
//!
//! Each reply is rendered once by the core
//! [`Modulator`] (exact band-limited pulses, carrier offset and phase) into
//! a pooled buffer when it is queued, always at the same sub-sample origin,
//! so its samples do not depend on how the stream is split. Where replies
//! are, the stream is `quantise(noise + Σ replies)` (replies in start
//! order); everywhere else it is a copy of the quantised table. The cost
//! per output sample is a `memcpy` plus, per reply, a few hundred samples
//! of arithmetic.

use std::collections::VecDeque;

use airwaves_core::C32;
use airwaves_core::dsp::design::{kaiser_beta, lowpass_f32};
use airwaves_core::modes::modulate::{Burst, Modulator, Quantiser};

use airwaves_core::rng::Rng;

/// Noise table length, complex samples (1 MiB as `C32`).
pub const TABLE_LEN: usize = 1 << 17;
/// Samples read from the table between random jumps.
pub const SEGMENT: usize = 2048;
/// Low-pass taps of the noise shaping.
const TAPS: usize = 31;

/// One reply rendered and waiting to be written out.
#[derive(Debug)]
struct Pending {
    /// Absolute index of `samples[0]`.
    base: u64,
    samples: Vec<C32>,
}

impl Pending {
    /// One past the last absolute sample it touches.
    fn end(&self) -> u64 {
        self.base + self.samples.len() as u64
    }
}

/// The renderer: modulator, quantiser and noise tables (configuration),
/// and the replies not yet written (state).
#[derive(Debug)]
pub struct Renderer {
    modulator: Modulator,
    quantiser: Quantiser,
    /// The noise table at 1 code rms per component.
    unit_noise: Vec<C32>,
    /// The noise table at the current rms.
    noise: Vec<C32>,
    noise_bytes: Vec<u8>,
    seed: u64,
    pending: VecDeque<Pending>,
    spare: Vec<Vec<C32>>,
    scratch: Vec<C32>,
    clipped: u64,
    /// LNA saturation amplitude (Rapp), full scale 1.0; infinite: linear.
    saturation: f32,
    /// Largest envelope of a reply cluster (before compression) since the
    /// last [`take_peak`](Self::take_peak).
    peak: f32,
}

impl Renderer {
    /// A renderer at `modulator`'s rate with `noise_rms` codes of noise per
    /// component and a DC offset of `dc` codes (I, Q).
    pub fn new(modulator: Modulator, noise_rms: f64, dc: (f64, f64), seed: u64) -> Self {
        let quantiser = Quantiser::new(
            127.4,
            C32::new((dc.0 / 128.0) as f32, (dc.1 / 128.0) as f32),
        );
        let unit_noise = noise_table(1.0 / 128.0, seed);
        let mut r = Self {
            modulator,
            quantiser,
            noise: unit_noise.clone(),
            unit_noise,
            noise_bytes: vec![0u8; 2 * TABLE_LEN],
            seed,
            pending: VecDeque::new(),
            spare: Vec::new(),
            scratch: Vec::new(),
            clipped: 0,
            saturation: f32::INFINITY,
            peak: 0.0,
        };
        r.set_noise_rms(noise_rms);
        r
    }

    /// Noise of `rms` codes per component from the next sample on (the
    /// same noise waveform, scaled; ≈ 1 ms of work).
    pub fn set_noise_rms(&mut self, rms: f64) {
        let k = rms as f32;
        for (n, u) in self.noise.iter_mut().zip(&self.unit_noise) {
            *n = *u * k;
        }
        self.quantiser.block(&self.noise, &mut self.noise_bytes);
    }

    /// The LNA's Rapp saturation amplitude (full scale 1.0; infinite for
    /// none) for reply clusters from the next sample on. Noise alone stays
    /// far below it and is not compressed.
    pub fn set_saturation(&mut self, a_sat: f64) {
        self.saturation = a_sat as f32;
    }

    /// The largest envelope (before compression and clipping) of the
    /// samples with replies written since the last call, full scale 1.0
    /// (0 if none).
    pub fn take_peak(&mut self) -> f64 {
        f64::from(std::mem::take(&mut self.peak))
    }

    /// I or Q values clipped by the quantiser so far (strong replies).
    pub fn clipped(&self) -> u64 {
        self.clipped
    }

    /// Queue a Mode S reply (7 or 14 bytes; other lengths are ignored)
    /// whose first preamble pulse starts at absolute sample `start`
    /// (fractional, sample `n` centred at `t = n`). Replies must be queued
    /// in order of `start`, and before the samples they touch are filled.
    pub fn push(&mut self, start: f64, frame: &[u8], amplitude: f32, carrier_hz: f32, phase: f32) {
        if !(start.is_finite() && start >= 0.0) || !(frame.len() == 7 || frame.len() == 14) {
            return;
        }
        let base = (start.floor() as u64).saturating_sub(1);
        let frac = start - base as f64;
        let len = (frac + self.modulator.mode_s_len(frame.len())).ceil() as usize + 2;
        let mut samples = self.spare.pop().unwrap_or_default();
        samples.clear();
        samples.resize(len, C32::new(0.0, 0.0));
        let burst = Burst::new(frac, amplitude).with_carrier(carrier_hz, phase);
        // The length was checked above.
        let _ = self.modulator.add_mode_s(frame, &burst, &mut samples);
        self.pending.push_back(Pending { base, samples });
    }

    /// Offset into the table of segment `seg` (SplitMix64 of seed and
    /// index).
    fn segment_offset(&self, seg: u64) -> usize {
        let mut x = self.seed ^ seg.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^= x >> 31;
        (x % (TABLE_LEN - SEGMENT + 1) as u64) as usize
    }

    /// Table index of absolute sample `n`.
    fn noise_index(&self, n: u64) -> usize {
        self.segment_offset(n / SEGMENT as u64) + (n % SEGMENT as u64) as usize
    }

    /// Write absolute samples `s0 .. s0 + out.len() / 2` (a trailing odd
    /// byte is left as it is), then forget replies that end inside them.
    pub fn fill(&mut self, s0: u64, out: &mut [u8]) {
        let n = out.len() / 2;
        let s1 = s0 + n as u64;
        // Noise everywhere: copies from the quantised table.
        let mut i = s0;
        while i < s1 {
            let within = (i % SEGMENT as u64) as usize;
            let take = (SEGMENT - within).min((s1 - i) as usize);
            let from = self.noise_index(i);
            let o = 2 * (i - s0) as usize;
            out[o..o + 2 * take].copy_from_slice(&self.noise_bytes[2 * from..2 * (from + take)]);
            i += take as u64;
        }
        // Clusters of overlapping replies: noise + replies, quantised.
        let mut k = 0;
        while k < self.pending.len() {
            let first = &self.pending[k];
            if first.end() <= s0 {
                k += 1;
                continue;
            }
            if first.base >= s1 {
                break;
            }
            let mut end = first.end();
            let mut j = k + 1;
            while j < self.pending.len() && self.pending[j].base < end {
                end = end.max(self.pending[j].end());
                j += 1;
            }
            let (a, b) = (first.base.max(s0), end.min(s1));
            let len = (b - a) as usize;
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.clear();
            scratch.extend((a..b).map(|t| self.noise[self.noise_index(t)]));
            for p in self.pending.range(k..j) {
                let lo = p.base.max(a);
                let hi = p.end().min(b);
                if hi <= lo {
                    continue;
                }
                let src = &p.samples[(lo - p.base) as usize..(hi - p.base) as usize];
                let dst = &mut scratch[(lo - a) as usize..(hi - a) as usize];
                for (d, s) in dst.iter_mut().zip(src) {
                    *d += *s;
                }
            }
            let mut peak2 = self.peak * self.peak;
            for x in &scratch[..len] {
                peak2 = peak2.max(x.re * x.re + x.im * x.im);
            }
            self.peak = peak2.sqrt();
            if self.saturation.is_finite() {
                for x in &mut scratch[..len] {
                    *x = super::frontend::compress(*x, self.saturation);
                }
            }
            let o = 2 * (a - s0) as usize;
            let q = self
                .quantiser
                .block(&scratch[..len], &mut out[o..o + 2 * len]);
            self.clipped += q.clipped as u64;
            self.scratch = scratch;
            k = j;
        }
        // Replies wholly written are done.
        let mut k = 0;
        while k < self.pending.len() {
            if self.pending[k].end() <= s1 {
                if let Some(p) = self.pending.remove(k) {
                    self.spare.push(p.samples);
                }
            } else {
                k += 1;
            }
        }
    }
}

/// [`TABLE_LEN`] samples of complex Gaussian noise, low-passed (circular
/// 31-tap Kaiser, cut-off 0.8 × f_s/2) and scaled to `sigma` per
/// component (full scale 1.0).
fn noise_table(sigma: f64, seed: u64) -> Vec<C32> {
    let mut rng = Rng::new(seed);
    let white: Vec<(f64, f64)> = (0..TABLE_LEN)
        .map(|_| (rng.normal(), rng.normal()))
        .collect();
    let mut taps = [0f32; TAPS];
    lowpass_f32(&mut taps, 0.4, kaiser_beta(60.0), 1.0);
    let mut shaped: Vec<(f64, f64)> = (0..TABLE_LEN)
        .map(|i| {
            taps.iter()
                .enumerate()
                .fold((0.0, 0.0), |(re, im), (k, &h)| {
                    let (x, y) = white[(i + TABLE_LEN - k) % TABLE_LEN];
                    (re + f64::from(h) * x, im + f64::from(h) * y)
                })
        })
        .collect();
    let power = shaped.iter().map(|(x, y)| x * x + y * y).sum::<f64>() / (2 * TABLE_LEN) as f64;
    let scale = if power > 0.0 {
        sigma / power.sqrt()
    } else {
        0.0
    };
    shaped
        .iter_mut()
        .map(|(x, y)| C32::new((*x * scale) as f32, (*y * scale) as f32))
        .collect()
}

#[cfg(test)]
mod test {
    use super::*;

    fn renderer(noise: f64) -> Renderer {
        Renderer::new(Modulator::new(2.4e6).unwrap(), noise, (0.0, 0.0), 9)
    }

    /// The noise has the configured rms and is not white (low-passed).
    #[test]
    fn test_noise_level_and_shape() {
        let mut r = renderer(3.0);
        let mut out = vec![0u8; 2 * 200_000];
        r.fill(0, &mut out);
        let x: Vec<f64> = out.iter().map(|&b| f64::from(b) - 127.4).collect();
        let var = x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64;
        // 3 codes rms plus quantisation (1/12 code²).
        assert!((var - 9.083).abs() < 0.4, "{var}");
        // Lag-1 correlation of I: positive for low-passed noise.
        let c1 = x
            .chunks_exact(2)
            .zip(x.chunks_exact(2).skip(1))
            .map(|(a, b)| a[0] * b[0])
            .sum::<f64>()
            / (x.len() / 2) as f64;
        assert!(c1 / var > 0.2, "{}", c1 / var);
    }

    /// A reply shows where it was put: pulses above the noise, and the
    /// samples do not depend on how the stream is split.
    #[test]
    fn test_reply_and_split() {
        let frame = [0x5D, 0x48, 0x40, 0xD6, 0x29, 0x4B, 0x6E];
        let mut whole = vec![0u8; 2 * 5000];
        let mut r = renderer(2.0);
        r.push(1000.3, &frame, 0.5, 20e3, 0.1);
        r.push(1100.7, &frame, 0.3, -50e3, 1.0); // overlaps the first
        r.fill(0, &mut whole);
        assert!(r.pending.is_empty());
        let mut split = vec![0u8; 2 * 5000];
        let mut r2 = renderer(2.0);
        r2.push(1000.3, &frame, 0.5, 20e3, 0.1);
        r2.push(1100.7, &frame, 0.3, -50e3, 1.0);
        let mut s0 = 0;
        for len in [1001, 7, 60, 333, 4000 - 1401, 1000] {
            r2.fill(s0, &mut split[2 * s0 as usize..2 * (s0 + len) as usize]);
            s0 += len;
        }
        assert_eq!(s0, 5000);
        assert!(whole == split);
        // First preamble pulse at 1000.3 .. 1001.5: sample 1001 is strong.
        let mag =
            |k: usize| (f64::from(whole[2 * k]) - 127.4).hypot(f64::from(whole[2 * k + 1]) - 127.4);
        assert!(mag(1001) > 40.0, "{}", mag(1001));
        assert!(mag(900) < 15.0);
    }
}
