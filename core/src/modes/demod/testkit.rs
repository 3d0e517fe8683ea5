//! Test helpers shared by the demodulator's tests: a synthetic Mode S
//! modulator over noise, frames with valid parity, a block-wise runner and
//! a plausibility check of the output.

extern crate std;
use super::*;
use crate::rng::Rng;
use std::format;
use std::string::String;
use std::vec::Vec;

pub(super) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub(super) type Filter = AddressFilter<512>;

pub(super) fn run_blocks(
    d: &Demodulator,
    bytes: &[u8],
    block: usize,
) -> (Vec<DemodFrame>, DemodStats) {
    let mut st = DemodState::new();
    let mut filt = Filter::new(Filter::DEFAULT_TTL);
    let mut out = Vec::new();
    for b in bytes.chunks(block.max(1)) {
        d.process(&mut st, &mut filt, b, |f| out.push(*f));
    }
    d.finish(&mut st, &mut filt, |f| out.push(*f));
    (out, st.stats())
}

/// Feed `bytes` split at the byte offsets `cuts` (any order, clamped to
/// the length), then finish: the frames.
pub(super) fn run_cuts(d: &Demodulator, bytes: &[u8], cuts: Vec<usize>) -> Vec<DemodFrame> {
    let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
    cuts.sort_unstable();
    let mut st = DemodState::new();
    let mut f = Filter::new(Filter::DEFAULT_TTL);
    let mut out = Vec::new();
    let mut prev = 0;
    for c in cuts.into_iter().chain([bytes.len()]) {
        d.process(&mut st, &mut f, &bytes[prev..c], |fr| out.push(*fr));
        prev = c;
    }
    d.finish(&mut st, &mut f, |fr| out.push(*fr));
    out
}

/// Every output frame is valid for its format after its repairs: known
/// DF, CRC remainder 0 (DF17/18) or an interrogator code (DF11, code 0
/// with a known AA when more than one bit was repaired), and for AP
/// formats an address seen earlier in an unrepaired DF11/17/18.
pub(super) fn assert_plausible(frames: &[DemodFrame]) {
    let mut seen = std::collections::HashSet::new();
    for f in frames {
        let rem = crc::remainder(f.bytes());
        assert!(f.repaired_bits <= 4, "{f:?}");
        match f.df() {
            17 | 18 => {
                assert_eq!(rem, 0, "{}", hex(f.bytes()));
                assert!(f.repaired_bits <= 3, "{f:?}");
            }
            11 => {
                assert!(rem < 80, "{}", hex(f.bytes()));
                // Beyond one bit only to code 0 with a known AA.
                if f.repaired_bits > 1 {
                    assert_eq!(rem, 0, "{f:?}");
                    assert!(
                        seen.contains(&f.address),
                        "DF11 AA {:06x} not seen",
                        f.address
                    );
                }
            }
            0 | 4 | 5 | 16 | 20 | 21 | 24..=31 => {
                assert_eq!(rem, f.address);
                assert!(seen.contains(&rem), "AP address {rem:06x} not seen before");
            }
            df => panic!("DF{df} emitted"),
        }
        if matches!(f.df(), 11 | 17 | 18) && f.repaired_bits <= 1 {
            seen.insert(f.address);
        }
        // The DF is never repaired into existence: 5 protected bits.
        assert!(f.phase < 6 && f.signal_dbfs < 0.5 && f.signal_dbfs > -60.0);
    }
}

/// Test-only Mode S modulator: frames as PPM pulses, sampled at
/// `rate` with a box (integrate-and-dump) response, a random carrier
/// phase and frequency offset per frame, complex Gaussian noise and
/// `cu8` quantisation.
pub(super) struct Modulator {
    rate: f64,
    /// Noise σ per component, LSB.
    sigma: f64,
    pub(super) rng: Rng,
    /// Complex samples (before quantisation).
    iq: Vec<(f64, f64)>,
}

impl Modulator {
    pub(super) fn new(rate: u32, sigma: f64, seed: u64, samples: usize) -> Self {
        Self {
            rate: f64::from(rate),
            sigma,
            rng: Rng::new(seed),
            iq: std::vec![(0.0, 0.0); samples],
        }
    }

    /// Pulse intervals (µs from the preamble start) of a frame.
    pub(super) fn pulses(frame: &[u8]) -> Vec<(f64, f64)> {
        let mut p: Vec<(f64, f64)> = [0.0, 1.0, 3.5, 4.5].iter().map(|&t| (t, t + 0.5)).collect();
        for k in 0..frame.len() * 8 {
            let one = frame[k / 8] >> (7 - k % 8) & 1 == 1;
            let t = 8.0 + k as f64 + if one { 0.0 } else { 0.5 };
            p.push((t, t + 0.5));
        }
        p
    }

    /// Add a frame whose preamble starts at `start` samples (fractional)
    /// with amplitude `amp` LSB.
    pub(super) fn add(&mut self, frame: &[u8], start: f64, amp: f64) {
        self.add_pulses(&Self::pulses(frame), start, amp);
    }

    /// Add pulses (µs intervals from `start` samples) of one carrier.
    pub(super) fn add_pulses(&mut self, pulses: &[(f64, f64)], start: f64, amp: f64) {
        let us = self.rate / 1e6; // samples per µs
        let phase0 = self.rng.uniform() * core::f64::consts::TAU;
        let dphi = (self.rng.uniform() - 0.5) * 2.0 * 150e3 / self.rate * core::f64::consts::TAU;
        for &(a, b) in pulses {
            let (a, b) = (start + a * us, start + b * us);
            let (lo, hi) = (a.floor() as usize, b.ceil() as usize);
            for n in lo..hi.min(self.iq.len()) {
                let ov = (b.min(n as f64 + 1.0) - a.max(n as f64)).max(0.0);
                let ph = phase0 + dphi * n as f64;
                self.iq[n].0 += amp * ov * ph.cos();
                self.iq[n].1 += amp * ov * ph.sin();
            }
        }
    }

    /// Quantise with noise to `cu8`.
    pub(super) fn bytes(&mut self) -> Vec<u8> {
        let mut out = Vec::with_capacity(2 * self.iq.len());
        for k in 0..self.iq.len() {
            let (i, q) = self.iq[k];
            for v in [i, q] {
                let x = 127.4 + v + self.sigma * self.rng.normal();
                out.push(x.round().clamp(0.0, 255.0) as u8);
            }
        }
        out
    }
}

/// `n` random DF17 at `snr` dB over `samples` samples of noise, one
/// every `spacing` samples from half a spacing on, each with a random
/// sub-sample start: the `cu8` bytes and the frames sent.
pub(super) fn df17_train(
    rate: u32,
    (n, spacing): (usize, f64),
    snr: f64,
    seed: u64,
    samples: usize,
) -> (Vec<u8>, std::collections::HashSet<[u8; 14]>) {
    let mut m = Modulator::new(rate, SIGMA, seed, samples);
    let mut sent = std::collections::HashSet::new();
    for k in 0..n {
        let f = random_df17(&mut m.rng);
        let dt = m.rng.uniform();
        m.add(&f, spacing * (k as f64 + 0.5) + dt, amp_db(snr));
        sent.insert(f);
    }
    (m.bytes(), sent)
}

/// A random DF17 frame with a valid CRC.
pub(super) fn random_df17(rng: &mut Rng) -> [u8; 14] {
    let mut f = [0u8; 14];
    f[0] = 0x8D;
    for b in f[1..11].iter_mut() {
        *b = rng.next_u64() as u8;
    }
    let p = crc::crc24(&f[..11]);
    f[11..].copy_from_slice(&p.to_be_bytes()[1..]);
    f
}

/// Noise σ per component (LSB) for the synthetic tests.
pub(super) const SIGMA: f64 = 4.0;

/// A frame with valid parity for its format: PI formats get the CRC
/// (DF11: XOR the interrogator code `iid`), AP formats the CRC XOR the
/// address.
pub(super) fn with_parity(mut f: Vec<u8>, overlay: u32) -> Vec<u8> {
    let n = f.len();
    let p = crc::crc24(&f[..n - 3]) ^ overlay;
    f[n - 3..].copy_from_slice(&p.to_be_bytes()[1..]);
    f
}

/// Modulate `frames` (bytes, start in samples, amplitude) over noise.
pub(super) fn synth(rate: u32, total: usize, frames: &[(Vec<u8>, f64, f64)], seed: u64) -> Vec<u8> {
    let mut m = Modulator::new(rate, SIGMA, seed, total);
    for (f, start, amp) in frames {
        m.add(f, *start, *amp);
    }
    m.bytes()
}

/// Amplitude (LSB) for a pulse-to-noise ratio in dB.
pub(super) fn amp_db(snr_db: f64) -> f64 {
    libm::sqrt(2.0 * SIGMA * SIGMA * libm::pow(10.0, snr_db / 10.0))
}
