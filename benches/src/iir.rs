//! Instruction-count workloads for the iir group: biquads, the one-pole
//! low-pass, FM de-emphasis and the AGC.
//!
//! Every case filters a 4096-sample block of noise (from [`crate::noise_u8`])
//! repeatedly until `n` input samples have been processed, and returns a
//! checksum of each block's last output.

use std::hint::black_box;

use airwaves_core::dsp::SplitProcess;
use airwaves_core::dsp::agc::{Agc, AgcParams, AgcQ15};
use airwaves_core::dsp::deemph::{
    Deemphasis, DeemphasisQ15, DeemphasisQ15State, DeemphasisState, TAU_50US,
};
use airwaves_core::dsp::iir::{
    Biquad, BiquadDesign, BiquadQ15, BiquadQ15State, Df1State, Df2tState, OnePole, OnePoleQ15,
    OnePoleQ15State, OnePoleState,
};
use airwaves_core::{C32, Ci16};

use crate::{Case, noise_u8};

/// Block length of every workload.
pub use crate::BLOCK;

/// A block of Q15 noise (full-scale uniform bytes, shifted to the top).
pub fn noise_q15(seed: u32) -> Vec<i16> {
    let mut b = vec![0u8; BLOCK];
    noise_u8(seed, &mut b);
    b.iter().map(|&v| ((v as i16) - 128) << 8).collect()
}

/// A block of `f32` noise in −1 ..= 1.
pub fn noise_f32(seed: u32) -> Vec<f32> {
    noise_q15(seed)
        .iter()
        .map(|&v| v as f32 / 32768.0)
        .collect()
}

/// A block of complex Q15 noise.
pub fn noise_ci16(seed: u32) -> Vec<Ci16> {
    let (i, q) = (noise_q15(seed), noise_q15(seed ^ 0x5555));
    i.iter().zip(&q).map(|(&i, &q)| Ci16::new(i, q)).collect()
}

/// A block of complex `f32` noise.
pub fn noise_c32(seed: u32) -> Vec<C32> {
    noise_ci16(seed)
        .iter()
        .map(|v| C32::new(v.re as f32 / 32768.0, v.im as f32 / 32768.0))
        .collect()
}

/// The benchmarked biquad: a Butterworth low-pass at fs/50.
pub fn lowpass() -> BiquadDesign {
    BiquadDesign::lowpass(1.0 / 50.0, 1.0, core::f64::consts::FRAC_1_SQRT_2)
}

/// The benchmarked AGC settings at 48 kHz.
pub fn agc_params() -> AgcParams {
    AgcParams {
        hang: 1e-3,
        ..AgcParams::default()
    }
}

/// Sample rate of the audio-rate workloads.
pub const FS: f64 = 48_000.0;

/// Process `n` samples of `x` (repeated) through `p`; checksum of the last
/// output of each block, hashed with `h`.
fn run<X: Copy, Y: Copy + Default, S, P: SplitProcess<X, Y, S>>(
    p: &P,
    s: &mut S,
    x: &[X],
    n: usize,
    h: fn(Y) -> u64,
) -> u64 {
    let mut y = vec![Y::default(); x.len()];
    let mut sum = 0u64;
    let mut left = n;
    while left > 0 {
        let k = left.min(x.len());
        p.block(s, black_box(&x[..k]), &mut y[..k]);
        black_box(&mut y);
        sum = sum.wrapping_mul(31).wrapping_add(h(y[k - 1]));
        left -= k;
    }
    sum
}

fn hf(v: f32) -> u64 {
    v.to_bits() as u64
}
fn hc(v: C32) -> u64 {
    v.re.to_bits() as u64 ^ ((v.im.to_bits() as u64) << 32)
}
fn hq(v: i16) -> u64 {
    v as u16 as u64
}
fn hcq(v: Ci16) -> u64 {
    v.re as u16 as u64 | ((v.im as u16 as u64) << 16)
}

fn biquad_f32_df1(n: usize) -> u64 {
    let bq: Biquad = lowpass().to_f32();
    run(&bq, &mut Df1State::<f32>::default(), &noise_f32(1), n, hf)
}
fn biquad_f32_df2t(n: usize) -> u64 {
    let bq = lowpass().to_f32();
    run(&bq, &mut Df2tState::<f32>::default(), &noise_f32(1), n, hf)
}
fn biquad_c32_df2t(n: usize) -> u64 {
    let bq = lowpass().to_f32();
    run(&bq, &mut Df2tState::<C32>::default(), &noise_c32(1), n, hc)
}
fn biquad_q15(n: usize) -> u64 {
    let bq: BiquadQ15 = lowpass().to_q15().expect("in range");
    run(&bq, &mut BiquadQ15State::default(), &noise_q15(1), n, hq)
}
fn biquad_ci16(n: usize) -> u64 {
    let bq = lowpass().to_q15().expect("in range");
    run(
        &bq,
        &mut [BiquadQ15State::default(); 2],
        &noise_ci16(1),
        n,
        hcq,
    )
}
fn onepole_f32(n: usize) -> u64 {
    let p = OnePole::from_corner(100.0, FS);
    run(
        &p,
        &mut OnePoleState::<f32>::default(),
        &noise_f32(2),
        n,
        hf,
    )
}
fn onepole_q15(n: usize) -> u64 {
    let p = OnePoleQ15::from_corner(100.0, FS);
    run(&p, &mut OnePoleQ15State::default(), &noise_q15(2), n, hq)
}
fn deemph_f32(n: usize) -> u64 {
    let d = Deemphasis::new(TAU_50US, FS);
    run(&d, &mut DeemphasisState::default(), &noise_f32(3), n, hf)
}
fn deemph_q15(n: usize) -> u64 {
    let d = DeemphasisQ15::new(TAU_50US, FS);
    run(&d, &mut DeemphasisQ15State::default(), &noise_q15(3), n, hq)
}
fn agc_f32(n: usize) -> u64 {
    let a = Agc::new(&agc_params(), FS);
    run(&a, &mut a.state(), &noise_f32(4), n, hf)
}
fn agc_c32(n: usize) -> u64 {
    let a = Agc::new(&agc_params(), FS);
    run(&a, &mut a.state(), &noise_c32(4), n, hc)
}
fn agc_q15(n: usize) -> u64 {
    let a = AgcQ15::new(&agc_params(), FS);
    run(&a, &mut a.state(), &noise_q15(4), n, hq)
}
fn agc_ci16(n: usize) -> u64 {
    let a = AgcQ15::new(&agc_params(), FS);
    run(&a, &mut a.state(), &noise_ci16(4), n, hcq)
}

/// The cases of this group.
pub static CASES: &[Case] = &[
    Case {
        name: "iir/f32/df1",
        run: biquad_f32_df1,
    },
    Case {
        name: "iir/f32/df2t",
        run: biquad_f32_df2t,
    },
    Case {
        name: "iir/c32/df2t",
        run: biquad_c32_df2t,
    },
    Case {
        name: "iir/q15/df1-ef",
        run: biquad_q15,
    },
    Case {
        name: "iir/ci16/df1-ef",
        run: biquad_ci16,
    },
    Case {
        name: "onepole/f32",
        run: onepole_f32,
    },
    Case {
        name: "onepole/q15",
        run: onepole_q15,
    },
    Case {
        name: "deemph/f32",
        run: deemph_f32,
    },
    Case {
        name: "deemph/q15",
        run: deemph_q15,
    },
    Case {
        name: "agc/f32",
        run: agc_f32,
    },
    Case {
        name: "agc/c32",
        run: agc_c32,
    },
    Case {
        name: "agc/q15",
        run: agc_q15,
    },
    Case {
        name: "agc/ci16",
        run: agc_ci16,
    },
];
