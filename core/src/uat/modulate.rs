//! UAT transmitter model: renders a frame's bits as continuous-phase FSK
//! into a caller's complex baseband buffer (added, so overlapping frames
//! and noise can be summed), for scene generators, tests and fuzz seeds.
//! Quantise the result with
//! [`modes::modulate::Quantiser`](crate::modes::modulate::Quantiser).
//!
//! # Waveform
//!
//! Binary CPFSK at [`BIT_RATE`] with modulation index `h = 0.6`
//! (±312.5 kHz; a `1` is the higher frequency): over each bit the phase
//! moves by `±π·h` (±108°). The instantaneous frequency does not jump
//! between bits: the transmitter's filtering is modelled by a raised-cosine
//! frequency transition of [`Burst::transition`] bits centred on each bit
//! boundary (0.5 by default; 0 is plain CPFSK). The phase is exact: with
//! `a_k = ±1`, `φ(t) = π·h·Σ_k a_k·q(t − k)`, `t` in bits from the first
//! bit's start, where `q` is the integral of the unit-area frequency pulse
//! (a bit-wide rectangle with raised-cosine edges of width `w`):
//! `q(u) = S(u) − S(u − 1)`, `S(u) = 0` for `u < −w/2`,
//! `S(u) = (u + w/2)/2 − (w/2π)·sin(π(u + w/2)/w)` for `|u| ≤ w/2`, and
//! `S(u) = u` beyond.
//!
//! Sample `n` is the signal at `t = n` samples (point sampling; the
//! receiver's filter is the scene's job). A burst starts at a fractional
//! sample `start` and carries a carrier offset and phase, as a real
//! transmitter's oscillator would.

use super::rs::ReedSolomon;
use super::{
    BASIC_BYTES, BASIC_DATA, BIT_RATE, DOWNLINK_SYNC, LONG_BYTES, LONG_DATA, SYNC_BITS,
    UPLINK_BLOCK_BYTES, UPLINK_BLOCK_DATA, UPLINK_BLOCKS, UPLINK_BYTES, UPLINK_DATA, UPLINK_SYNC,
};
use crate::C32;

/// The bytes sent after the sync word for a message of `data` (18 or 34
/// downlink data bytes, or 432 uplink ones): parity added, the uplink's
/// six blocks interleaved. Returns the sync word and the byte count, or
/// `None` for any other length.
pub fn transmission(data: &[u8], sent: &mut [u8; UPLINK_BYTES]) -> Option<(u64, usize)> {
    match data.len() {
        BASIC_DATA | LONG_DATA => {
            let (code, n) = if data.len() == BASIC_DATA {
                (ReedSolomon::DOWNLINK_BASIC, BASIC_BYTES)
            } else {
                (ReedSolomon::DOWNLINK_LONG, LONG_BYTES)
            };
            sent[..data.len()].copy_from_slice(data);
            code.encode(&mut sent[..n]).ok()?;
            Some((DOWNLINK_SYNC, n))
        }
        UPLINK_DATA => {
            for (j, chunk) in data.chunks_exact(UPLINK_BLOCK_DATA).enumerate() {
                let mut block = [0u8; UPLINK_BLOCK_BYTES];
                block[..UPLINK_BLOCK_DATA].copy_from_slice(chunk);
                ReedSolomon::UPLINK.encode(&mut block).ok()?;
                for (i, b) in block.iter().enumerate() {
                    sent[UPLINK_BLOCKS * i + j] = *b;
                }
            }
            Some((UPLINK_SYNC, UPLINK_BYTES))
        }
        _ => None,
    }
}

/// Modulation index.
pub const MODULATION_INDEX: f64 = 0.6;

/// One transmission: where it starts, how strong, its oscillator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Burst {
    /// First bit's leading edge, in samples from the buffer's sample 0
    /// (fractional; may be negative or past the buffer).
    pub start: f64,
    /// Amplitude, full-scale units (1.0 = full scale).
    pub amplitude: f32,
    /// Carrier offset from the tuned frequency, Hz.
    pub offset_hz: f64,
    /// Carrier phase at `start`, radians.
    pub phase: f64,
    /// Width of the frequency transition at each bit boundary, bits
    /// (0 … 1).
    pub transition: f64,
}

impl Burst {
    /// A burst at `start` of amplitude `amplitude`, no carrier offset,
    /// phase 0, transitions of half a bit.
    pub const fn new(start: f64, amplitude: f32) -> Self {
        Self {
            start,
            amplitude,
            offset_hz: 0.0,
            phase: 0.0,
            transition: 0.5,
        }
    }
}

/// The UAT modulator for one sample rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Modulator {
    /// Samples per bit.
    spb: f64,
    rate_hz: f64,
}

impl Modulator {
    /// A modulator producing `rate_hz` samples per second.
    pub fn new(rate_hz: f64) -> Self {
        Self {
            spb: rate_hz / BIT_RATE,
            rate_hz,
        }
    }

    /// Samples the burst of `bits` bits lasts.
    pub fn samples_for(&self, bits: usize) -> f64 {
        bits as f64 * self.spb
    }

    /// Add the transmission of the message `data` (see [`transmission`])
    /// as `burst` into `out`; returns its length in bits (sync included),
    /// or `None` (nothing added) for a length that is no UAT message.
    pub fn add_message(&self, burst: &Burst, data: &[u8], out: &mut [C32]) -> Option<usize> {
        let mut sent = [0u8; UPLINK_BYTES];
        let (sync, n) = transmission(data, &mut sent)?;
        let bit = |k: usize| {
            if k < SYNC_BITS {
                sync >> (SYNC_BITS - 1 - k) & 1 == 1
            } else {
                let k = k - SYNC_BITS;
                sent[k / 8] >> (7 - k % 8) & 1 == 1
            }
        };
        let bits = SYNC_BITS + 8 * n;
        self.add(burst, bits, bit, out);
        Some(bits)
    }

    /// Add the burst whose bits are `bits(k)` for `k < count` (MSB-first
    /// bit `k` of the frame, sync word included) into `out`.
    pub fn add(&self, burst: &Burst, count: usize, bits: impl Fn(usize) -> bool, out: &mut [C32]) {
        let w = burst.transition.clamp(0.0, 1.0);
        let ph = core::f64::consts::PI * MODULATION_INDEX;
        let omega = 2.0 * core::f64::consts::PI * burst.offset_hz / self.rate_hz;
        let first = libm::ceil(burst.start - 1.0).max(0.0) as usize;
        let end = libm::ceil(burst.start + (count as f64 + 0.5) * self.spb);
        let last = (end.max(0.0) as usize).min(out.len());
        let sym = |k: usize| if bits(k) { 1.0 } else { -1.0 };
        // Cumulative phase of the bits wholly past, and the next bit to
        // add to it.
        let mut done = 0.0;
        let mut next = 0usize;
        for (n, y) in out.iter_mut().enumerate().take(last).skip(first) {
            let t = (n as f64 - burst.start) / self.spb;
            if t < -0.5 * w {
                continue;
            }
            // Bits whose pulse has ended (k + 1 + w/2 ≤ t) are whole.
            while next < count && (next as f64) + 1.0 + 0.5 * w <= t {
                done += sym(next);
                next += 1;
            }
            let mut phase = done;
            let mut k = next;
            while k < count && (k as f64) - 0.5 * w <= t {
                phase += sym(k) * q(t - k as f64, w);
                k += 1;
            }
            let theta = ph * phase + omega * (n as f64 - burst.start) + burst.phase;
            let (s, c) = libm::sincos(theta);
            *y += C32::new(burst.amplitude * c as f32, burst.amplitude * s as f32);
        }
    }
}

/// `S(u)`: the integral of a raised-cosine step of width `w` centred on 0.
fn step_integral(u: f64, w: f64) -> f64 {
    if u <= -0.5 * w {
        0.0
    } else if u >= 0.5 * w {
        u
    } else {
        let x = u + 0.5 * w;
        0.5 * x - w / (2.0 * core::f64::consts::PI) * libm::sin(core::f64::consts::PI * x / w)
    }
}

/// `q(u) = S(u) − S(u − 1)`: the phase (in units of `π·h`) one bit has
/// added by time `u` bits after its start.
fn q(u: f64, w: f64) -> f64 {
    step_integral(u, w) - step_integral(u - 1.0, w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(c: C32) -> f32 {
        libm::atan2f(c.im, c.re)
    }

    #[test]
    fn test_q_runs_from_zero_to_one() {
        for w in [0.0, 0.3, 0.5, 1.0] {
            assert!(q(-0.6, w).abs() < 1e-12);
            assert!((q(1.6, w) - 1.0).abs() < 1e-12);
            assert!((q(0.5, w) - 0.5).abs() < 1e-12, "symmetric: {w}");
        }
        // Plain CPFSK: linear within the bit.
        assert!((q(0.25, 0.0) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn test_phase_moves_108_degrees_per_bit() {
        // Two samples per bit, all ones: the phase advances π·0.6 per bit
        // once the first transition is past.
        let m = Modulator::new(2.0 * BIT_RATE);
        let mut out = [C32::new(0.0, 0.0); 40];
        m.add(&Burst::new(0.0, 1.0), 15, |_| true, &mut out);
        let step = arg(out[12] * out[10].conj());
        assert!((f64::from(step) - 0.6 * core::f64::consts::PI).abs() < 1e-4);
        let step = arg(out[13] * out[12].conj());
        assert!((f64::from(step) - 0.3 * core::f64::consts::PI).abs() < 1e-4);
        assert!((out[20].norm_sqr() - 1.0).abs() < 1e-6);
        // Nothing after the burst's end (15 bits + half a sample).
        assert_eq!(out[39], C32::new(0.0, 0.0));
    }

    #[test]
    fn test_zeros_go_down_and_offset_adds() {
        let m = Modulator::new(2.0 * BIT_RATE);
        let mut out = [C32::new(0.0, 0.0); 40];
        let burst = Burst {
            offset_hz: 50_000.0,
            ..Burst::new(0.0, 1.0)
        };
        m.add(&burst, 30, |_| false, &mut out);
        let step = f64::from(arg(out[12] * out[10].conj()));
        let want = -0.6 * core::f64::consts::PI
            + 2.0 * core::f64::consts::PI * 50e3 / (2.0 * BIT_RATE) * 2.0;
        assert!((step - want).abs() < 1e-4, "{step} {want}");
    }
}
