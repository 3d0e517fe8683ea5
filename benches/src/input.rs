//! Instruction-count workloads for the input primitives: conversion, DC
//! blocking, NCO mixing and the `fs/4` shift.
//!
//! Every case converts or processes `n` complex (or real, where named)
//! input samples in blocks of [`BLOCK`] from a fixed noise buffer. The
//! output buffer goes through `black_box` after each block and the
//! checksum reads only the last sample, so neither adds per-sample work.

use airwaves_core::dsp::SplitProcess;
use airwaves_core::dsp::convert::{Cu8, cs16_to_c32, cs16_to_ci16, cs16le_to_c32, cs16le_to_ci16};
use airwaves_core::dsp::dc::{DcBlocker, DcBlockerQ15, DcBlockerQ15State, DcBlockerState};
use airwaves_core::dsp::nco::{Fs4Shift, Fs4State, Nco, NcoState};
use airwaves_core::{C32, Ci16, Complex};

use crate::{Case, blocks, noise_u8};

/// Samples per block call.
pub use crate::BLOCK;

/// `2 · BLOCK` bytes of noise: one block of `cu8` samples.
pub fn cu8_block() -> Vec<u8> {
    let mut b = vec![0u8; 2 * BLOCK];
    noise_u8(1, &mut b);
    b
}

/// `4 · BLOCK` bytes of noise: one block of little-endian `cs16` samples.
pub fn cs16le_block() -> Vec<u8> {
    let mut b = vec![0u8; 4 * BLOCK];
    noise_u8(2, &mut b);
    b
}

/// One block of `cs16` values (`2 · BLOCK` of them).
pub fn cs16_block() -> Vec<i16> {
    cs16le_block()[..4 * BLOCK]
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect()
}

/// One block of Q15 complex noise.
pub fn ci16_block() -> Vec<Ci16> {
    let mut y = vec![Ci16::default(); BLOCK];
    Cu8::RTL_SDR.to_ci16(&cu8_block(), &mut y);
    y
}

/// One block of `f32` complex noise.
pub fn c32_block() -> Vec<C32> {
    let mut y = vec![C32::default(); BLOCK];
    Cu8::RTL_SDR.to_c32(&cu8_block(), &mut y);
    y
}

fn sum_c32(y: &C32) -> u64 {
    (y.re.to_bits() ^ y.im.to_bits().rotate_left(16)) as u64
}

fn sum_ci16(y: &Ci16) -> u64 {
    (y.re as u16 as u64) << 16 | y.im as u16 as u64
}

fn cu8_f32(n: usize) -> u64 {
    let c = Cu8::RTL_SDR;
    blocks(n, &cu8_block(), 2, |x, y| _ = c.to_c32(x, y), sum_c32)
}

fn cu8_q15(n: usize) -> u64 {
    let c = Cu8::RTL_SDR;
    blocks(n, &cu8_block(), 2, |x, y| _ = c.to_ci16(x, y), sum_ci16)
}

fn cs16_f32(n: usize) -> u64 {
    blocks(n, &cs16_block(), 2, |x, y| _ = cs16_to_c32(x, y), sum_c32)
}

fn cs16_q15(n: usize) -> u64 {
    blocks(n, &cs16_block(), 2, |x, y| _ = cs16_to_ci16(x, y), sum_ci16)
}

fn cs16le_f32(n: usize) -> u64 {
    blocks(
        n,
        &cs16le_block(),
        4,
        |x, y| _ = cs16le_to_c32(x, y),
        sum_c32,
    )
}

fn cs16le_q15(n: usize) -> u64 {
    blocks(
        n,
        &cs16le_block(),
        4,
        |x, y| _ = cs16le_to_ci16(x, y),
        sum_ci16,
    )
}

fn dc_f32_real(n: usize) -> u64 {
    let dc = DcBlocker::new(1e-3);
    let mut s = DcBlockerState::<f32>::new();
    let x: Vec<f32> = c32_block().iter().map(|v| v.re).collect();
    blocks(
        n,
        &x,
        1,
        |x, y| dc.block(&mut s, x, y),
        |y: &f32| y.to_bits() as u64,
    )
}

fn dc_f32_complex(n: usize) -> u64 {
    let dc = DcBlocker::new(1e-3);
    let mut s = DcBlockerState::<C32>::new();
    blocks(n, &c32_block(), 1, |x, y| dc.block(&mut s, x, y), sum_c32)
}

fn dc_q15_real(n: usize) -> u64 {
    let dc = DcBlockerQ15::new(1e-3);
    let mut s = DcBlockerQ15State::<i64>::new();
    let x: Vec<i16> = ci16_block().iter().map(|v| v.re).collect();
    blocks(
        n,
        &x,
        1,
        |x, y| dc.block(&mut s, x, y),
        |y: &i16| *y as u16 as u64,
    )
}

fn dc_q15_complex(n: usize) -> u64 {
    let dc = DcBlockerQ15::new(1e-3);
    let mut s = DcBlockerQ15State::<Complex<i64>>::new();
    blocks(n, &ci16_block(), 1, |x, y| dc.block(&mut s, x, y), sum_ci16)
}

fn nco_f32_mix(n: usize) -> u64 {
    let nco = Nco::new(0.123_456);
    let mut s = NcoState::default();
    blocks(n, &c32_block(), 1, |x, y| nco.block(&mut s, x, y), sum_c32)
}

fn nco_q15_mix(n: usize) -> u64 {
    let nco = Nco::new(0.123_456);
    let mut s = NcoState::default();
    blocks(
        n,
        &ci16_block(),
        1,
        |x, y| nco.block(&mut s, x, y),
        sum_ci16,
    )
}

fn nco_f32_osc(n: usize) -> u64 {
    let nco = Nco::new(0.123_456);
    let mut s = NcoState::default();
    blocks(n, &c32_block(), 1, |_, y| nco.fill_f32(&mut s, y), sum_c32)
}

fn nco_q15_osc(n: usize) -> u64 {
    let nco = Nco::new(0.123_456);
    let mut s = NcoState::default();
    blocks(
        n,
        &ci16_block(),
        1,
        |_, y| nco.fill_q15(&mut s, y),
        sum_ci16,
    )
}

fn fs4_f32(n: usize) -> u64 {
    let mut s = Fs4State::default();
    blocks(
        n,
        &c32_block(),
        1,
        |x, y| Fs4Shift::UP.block(&mut s, x, y),
        sum_c32,
    )
}

fn fs4_q15(n: usize) -> u64 {
    let mut s = Fs4State::default();
    blocks(
        n,
        &ci16_block(),
        1,
        |x, y| Fs4Shift::UP.block(&mut s, x, y),
        sum_ci16,
    )
}

/// The cases of this group.
pub static CASES: &[Case] = &[
    Case {
        name: "cu8/f32",
        run: cu8_f32,
    },
    Case {
        name: "cu8/q15",
        run: cu8_q15,
    },
    Case {
        name: "cs16/f32",
        run: cs16_f32,
    },
    Case {
        name: "cs16/q15",
        run: cs16_q15,
    },
    Case {
        name: "cs16le/f32",
        run: cs16le_f32,
    },
    Case {
        name: "cs16le/q15",
        run: cs16le_q15,
    },
    Case {
        name: "dc/f32/real",
        run: dc_f32_real,
    },
    Case {
        name: "dc/f32/complex",
        run: dc_f32_complex,
    },
    Case {
        name: "dc/q15/real",
        run: dc_q15_real,
    },
    Case {
        name: "dc/q15/complex",
        run: dc_q15_complex,
    },
    Case {
        name: "nco/f32/mix",
        run: nco_f32_mix,
    },
    Case {
        name: "nco/q15/mix",
        run: nco_q15_mix,
    },
    Case {
        name: "nco/f32/osc",
        run: nco_f32_osc,
    },
    Case {
        name: "nco/q15/osc",
        run: nco_q15_osc,
    },
    Case {
        name: "fs4/f32/up",
        run: fs4_f32,
    },
    Case {
        name: "fs4/q15/up",
        run: fs4_q15,
    },
];
