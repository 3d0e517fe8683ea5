//! RDS encoder for the signal generator: groups → blocks → bits →
//! differential coding → biphase symbols → 57 kHz DSB-SC subcarrier, one
//! `f32` per MPX sample, to be added to the multiplex.
//!
//! # Signal
//!
//! Data bits `b[k]` (1187.5 bit/s, most significant bit of each 26-bit
//! block first) are differentially coded, `d[k] = b[k] ⊕ d[k − 1]`, and
//! each `d[k]` becomes one biphase symbol of one bit period `T`:
//! `±sin(2π t / T)` for `0 ≤ t < T` (+ for `d = 1`: positive first half,
//! negative second). The one-cycle sine is a smooth biphase shape whose
//! spectrum has its peak near 1.2 kHz and little energy beyond 2.4 kHz.
//! The output is `amplitude · symbol(t) · cos(θ₅₇(t))`.
//!
//! The bit clock is the carrier divided by 48 (57 000 / 48 = 1187.5 Hz),
//! as the standard requires. [`Encoder::next_sample`] runs a free 57 kHz
//! oscillator; [`Encoder::next_sample_locked`] takes the 19 kHz pilot's
//! phase and uses three times it, the standard's phase lock.
//!
//! # Group schedule
//!
//! One cycle is 0A segments 0–3 (PS), then four 2A groups continuing
//! through the RadioText's segments (none without text), then one 4A if
//! a clock is set.

use super::RateError;
use super::block::{Offset, encode};
use super::group::Program;
use crate::dsp::nco::{Nco, cos_sin_f32};

/// Subcarrier frequency, Hz.
pub const SUBCARRIER_HZ: f64 = 57_000.0;
/// Bit rate, bit/s (subcarrier / 48).
pub const BIT_RATE: f64 = 1187.5;
/// Lowest MPX sample rate accepted, Hz: the subcarrier and its 2.4 kHz
/// sidebands below Nyquist with margin.
pub const MIN_SAMPLE_RATE: f64 = 128_000.0;

/// Check a sample rate for the encoder and decoder.
pub(crate) fn check_rate(sample_rate: f64) -> Result<(), RateError> {
    if sample_rate.is_finite() && (MIN_SAMPLE_RATE..=10.0e6).contains(&sample_rate) {
        Ok(())
    } else {
        Err(RateError { sample_rate })
    }
}

/// RDS subcarrier generator: the programme and the output scaling.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Encoder {
    program: Program,
    carrier: Nco,
    amplitude: f32,
}

/// State of an [`Encoder`]: carrier phase, bit clock, the group being sent
/// and the schedule position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EncoderState {
    /// Carrier phase, turns · 2³².
    carrier: u32,
    /// Whole carrier cycles into the current bit, 0..48.
    cycle: u8,
    /// The four 26-bit blocks being sent.
    blocks: [u32; 4],
    /// Index of the current bit in the group, 0..104.
    bit: u8,
    /// Current differentially coded bit.
    diff: bool,
    /// Position in the group cycle.
    slot: u8,
    /// Next RadioText segment.
    rt_segment: u8,
    /// Groups sent (the current one included).
    groups: u32,
}

impl Encoder {
    /// An encoder for `program` at `sample_rate` Hz with peak subcarrier
    /// amplitude `amplitude` (in MPX units; e.g. 0.03 for 2 kHz of a
    /// 75 kHz deviation scale where the full MPX is 1.0).
    ///
    /// # Errors
    /// [`RateError`] if `sample_rate` is not finite or outside
    /// 128 kHz ..= 10 MHz.
    ///
    /// ```
    /// use airwaves_core::rds::{encoder::Encoder, group::Program};
    /// let enc = Encoder::new(Program::new(0xC201), 240_000.0, 0.05).unwrap();
    /// let mut s = enc.start();
    /// let mut y = [0.0f32; 240];
    /// enc.fill(&mut s, &mut y);
    /// assert!(y.iter().all(|v| v.abs() <= 0.05));
    /// assert!(Encoder::new(Program::new(1), 48_000.0, 0.05).is_err());
    /// ```
    pub fn new(program: Program, sample_rate: f64, amplitude: f32) -> Result<Self, RateError> {
        check_rate(sample_rate)?;
        Ok(Self {
            program,
            carrier: Nco::new(SUBCARRIER_HZ / sample_rate),
            amplitude,
        })
    }

    /// The programme sent.
    pub const fn program(&self) -> &Program {
        &self.program
    }

    /// A state at carrier phase 0, at the start of the first group.
    pub fn start(&self) -> EncoderState {
        let mut s = EncoderState {
            carrier: 0,
            cycle: 0,
            blocks: [0; 4],
            bit: 0,
            diff: false,
            slot: 0,
            rt_segment: 0,
            groups: 0,
        };
        self.load_group(&mut s);
        self.load_bit(&mut s);
        s
    }

    /// The group at the state's schedule slot (advances the RadioText
    /// segment when a 2A is taken).
    fn schedule(&self, s: &mut EncoderState) -> [u16; 4] {
        let p = &self.program;
        let rt = p.rt_segments();
        let ct = p.clock.is_some();
        let len = 4 + if rt > 0 { 4 } else { 0 } + ct as u8;
        let slot = s.slot % len;
        s.slot = (slot + 1) % len;
        if slot < 4 {
            p.group_0a(slot)
        } else if slot < 8 && rt > 0 {
            let seg = s.rt_segment % rt;
            s.rt_segment = (seg + 1) % rt;
            p.group_2a(seg)
        } else {
            match &p.clock {
                Some(c) => p.group_4a(c),
                None => p.group_0a(0),
            }
        }
    }

    /// Load the next group into the state.
    fn load_group(&self, s: &mut EncoderState) {
        let g = self.schedule(s);
        let offsets = [Offset::A, Offset::B, Offset::C, Offset::D];
        for i in 0..4 {
            s.blocks[i] = encode(g[i], offsets[i]);
        }
        s.bit = 0;
        s.groups = s.groups.wrapping_add(1);
    }

    /// Differentially code the current bit.
    fn load_bit(&self, s: &mut EncoderState) {
        let k = s.bit as usize;
        let b = (s.blocks[k / 26] >> (25 - k % 26)) & 1 != 0;
        s.diff ^= b;
    }

    /// Advance the bit clock by one carrier cycle.
    fn carrier_cycle(&self, s: &mut EncoderState) {
        s.cycle += 1;
        if s.cycle == 48 {
            s.cycle = 0;
            s.bit += 1;
            if s.bit == 104 {
                self.load_group(s);
            }
            self.load_bit(s);
        }
    }

    /// The output at the state's carrier phase.
    fn output(&self, s: &EncoderState) -> f32 {
        // Phase within the bit: (cycle + carrier / 2³²) / 48, in turns · 2³².
        let bit_phase = ((((s.cycle as u64) << 32) | s.carrier as u64) / 48) as u32;
        let shape = cos_sin_f32(bit_phase).im;
        let carrier = cos_sin_f32(s.carrier).re;
        let sym = if s.diff { shape } else { -shape };
        self.amplitude * sym * carrier
    }

    /// The next sample with the free-running 57 kHz carrier.
    #[inline]
    pub fn next_sample(&self, s: &mut EncoderState) -> f32 {
        let y = self.output(s);
        let next = s.carrier.wrapping_add(self.carrier.increment());
        if next < s.carrier {
            self.carrier_cycle(s);
        }
        s.carrier = next;
        y
    }

    /// The next sample with the carrier at three times `pilot_phase` (the
    /// 19 kHz pilot's phase for this sample, turns · 2³², sine phase), so
    /// the subcarrier is locked to the pilot. Successive pilot phases must
    /// advance by less than a sixth of a turn per sample.
    #[inline]
    pub fn next_sample_locked(&self, s: &mut EncoderState, pilot_phase: u32) -> f32 {
        let next = pilot_phase.wrapping_mul(3);
        if next < s.carrier {
            self.carrier_cycle(s);
        }
        s.carrier = next;
        self.output(s)
    }

    /// Fill `y` with successive free-running samples.
    pub fn fill(&self, s: &mut EncoderState, y: &mut [f32]) {
        for y in y.iter_mut() {
            *y = self.next_sample(s);
        }
    }

    /// Add successive free-running samples to the multiplex `mpx`.
    pub fn add_to(&self, s: &mut EncoderState, mpx: &mut [f32]) {
        for y in mpx.iter_mut() {
            *y += self.next_sample(s);
        }
    }
}

impl EncoderState {
    /// Groups started so far (the one being sent included).
    pub const fn groups(&self) -> u32 {
        self.groups
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::testing::fit_tone;
    extern crate std;
    use std::vec::Vec;

    #[test]
    fn test_schedule() {
        let p = Program::new(0xC201).with_ps(b"AIRWAVES").with_rt(b"Hi");
        let enc = Encoder::new(p, 228_000.0, 1.0).unwrap();
        let mut s = enc.start();
        assert_eq!(s.blocks[0] >> 10, 0xC201);
        assert_eq!(s.blocks[3] >> 10, u16::from_be_bytes(*b"AI") as u32);
        let mut types = Vec::new();
        for _ in 0..9 {
            types.push((s.blocks[1] >> 22) as u8);
            enc.load_group(&mut s);
        }
        // 4× 0A, 4× 2A (one segment, repeated), then 0A again.
        assert_eq!(types, [0, 0, 0, 0, 2, 2, 2, 2, 0]);
    }

    #[test]
    #[cfg_attr(miri, ignore = "heavy under miri")]
    fn test_bit_rate_and_carrier() {
        let enc = Encoder::new(Program::new(1), 228_000.0, 1.0).unwrap();
        let mut s = enc.start();
        // 104 bits per group at 192 samples per bit.
        let mut y = std::vec![0.0f32; 104 * 192 * 3];
        enc.fill(&mut s, &mut y);
        assert_eq!(s.groups(), 4);
        assert_eq!((s.bit, s.cycle, s.carrier), (0, 0, 0));
        // Energy at 57 kHz: no carrier (DSB-SC), envelope mean 1/2 · 1/2.
        let y64: Vec<f64> = y.iter().map(|&v| v as f64).collect();
        let (a, _, _) = fit_tone(&y64, 0.25);
        assert!(a < 0.05, "suppressed carrier, got {a}");
        let p: f64 = y64.iter().map(|v| v * v).sum::<f64>() / y64.len() as f64;
        assert!((p - 0.25).abs() < 0.01, "{p}");
    }

    #[test]
    fn test_locked_matches_free_at_quarter_rate() {
        // At 228 kHz the 19 kHz pilot advances 1/12 turn per sample, and
        // three times it is the free carrier's 1/4 turn.
        let enc = Encoder::new(Program::new(7).with_ps(b"LOCKED"), 228_000.0, 0.1).unwrap();
        let (mut a, mut b) = (enc.start(), enc.start());
        for n in 0..5000u64 {
            let pilot = ((n as u128 * (1u128 << 32) / 12) as u64) as u32;
            let lock = enc.next_sample_locked(&mut b, pilot.wrapping_add(1));
            let free = enc.next_sample(&mut a);
            assert!((lock - free).abs() < 1e-3, "{n}: {lock} {free}");
        }
    }
}
