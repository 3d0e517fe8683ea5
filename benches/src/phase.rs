//! Instruction-count workloads for the phase, magnitude and resampling
//! primitives.
//!
//! Every case processes `n` input samples (complex, or real where named; a
//! `cu8` sample is one I/Q byte pair) in blocks of [`BLOCK`] from a fixed
//! noise buffer. The output goes through `black_box` after each block and
//! the checksum reads one output, so neither adds per-sample work. The
//! resampler cases count *input* samples.

use std::hint::black_box;

use airwaves_core::dsp::SplitProcess;
use airwaves_core::dsp::magnitude::{
    mag_ci16_block, mag_cu8_block, mag_cu8_exact_block, mag_f32_block,
};
use airwaves_core::dsp::phase::{
    Discriminator, DiscriminatorQ15, DiscriminatorState, atan2, atan2_i16,
};
use airwaves_core::dsp::resample::{
    Resampler, ResamplerState, Sample, Tap, design_f32, design_q15, required_taps, taps_per_phase,
};
use airwaves_core::{C32, Ci16};

use crate::{Case, blocks, noise_u8};

/// Samples per block call.
pub use crate::BLOCK;

/// History capacity of the resampler states (≥ 2K for every case here).
pub const HIST: usize = 512;

/// Stop-band attenuation target of the resampler prototypes (dB).
pub const ATTEN_DB: f64 = 80.0;

/// `2 · BLOCK` bytes of noise: one block of `cu8` samples.
pub fn cu8_block() -> Vec<u8> {
    let mut b = vec![0u8; 2 * BLOCK];
    noise_u8(7, &mut b);
    b
}

/// One block of Q15 complex noise (full scale).
pub fn ci16_block() -> Vec<Ci16> {
    cu8_block()
        .chunks_exact(2)
        .map(|p| Ci16::new((p[0] as i16 - 128) << 8, (p[1] as i16 - 128) << 8))
        .collect()
}

/// One block of `f32` complex noise (±1).
pub fn c32_block() -> Vec<C32> {
    ci16_block()
        .iter()
        .map(|c| C32::new(c.re as f32 / 32768.0, c.im as f32 / 32768.0))
        .collect()
}

/// A resampling conversion: name, `L`, `M`, and the pass-band edge as a
/// fraction of the lower Nyquist frequency (15 kHz audio).
pub struct Ratio {
    /// Short name, e.g. `240k-48k`.
    pub name: &'static str,
    /// Interpolation factor.
    pub l: u32,
    /// Decimation factor.
    pub m: u32,
    /// Pass-band edge / lower Nyquist frequency.
    pub pass: f64,
}

/// The benchmarked conversions.
pub const RATIOS: [Ratio; 4] = [
    Ratio {
        name: "240k-48k",
        l: 1,
        m: 5,
        pass: 15.0 / 24.0,
    },
    Ratio {
        name: "250k-44k1",
        l: 441,
        m: 2500,
        pass: 15.0 / 22.05,
    },
    Ratio {
        name: "240k-44k1",
        l: 147,
        m: 800,
        pass: 15.0 / 22.05,
    },
    Ratio {
        name: "48k-44k1",
        l: 147,
        m: 160,
        pass: 15.0 / 22.05,
    },
];

impl Ratio {
    /// Taps per phase for [`ATTEN_DB`].
    pub fn k(&self) -> usize {
        taps_per_phase(self.l, self.m, ATTEN_DB, self.pass)
    }
    /// The `f32` polyphase prototype.
    pub fn taps_f32(&self) -> Vec<f32> {
        let mut t = vec![0.0; required_taps(self.l, self.k())];
        design_f32(self.l, self.m, ATTEN_DB, &mut t);
        t
    }
    /// The Q15 polyphase prototype.
    pub fn taps_q15(&self) -> Vec<i16> {
        let mut t = vec![0; required_taps(self.l, self.k())];
        design_q15(self.l, self.m, ATTEN_DB, &mut t);
        t
    }
}

/// Resample `n` inputs of the block `x` in blocks of [`BLOCK`]; checksum
/// of the output count and one output.
fn resample<X: Sample<T> + Into<Probe>, T: Tap>(n: usize, taps: &[T], r: &Ratio, x: &[X]) -> u64 {
    let rs = Resampler::new(r.l, r.m, taps);
    let mut s = ResamplerState::<X, HIST>::new();
    let mut y = vec![X::default(); rs.max_output(BLOCK)];
    let mut left = n;
    let mut count = 0u64;
    while left > 0 {
        let m = left.min(BLOCK);
        count += rs.process(&mut s, black_box(&x[..m]), &mut y) as u64;
        black_box(&mut y);
        left -= m;
    }
    count ^ y[0].into().0
}

/// A checksum value from one output sample.
pub struct Probe(u64);

impl From<f32> for Probe {
    fn from(v: f32) -> Self {
        Probe(v.to_bits() as u64)
    }
}

impl From<i16> for Probe {
    fn from(v: i16) -> Self {
        Probe(v as u16 as u64)
    }
}

impl From<C32> for Probe {
    fn from(v: C32) -> Self {
        Probe((v.re.to_bits() ^ v.im.to_bits().rotate_left(16)) as u64)
    }
}

impl From<Ci16> for Probe {
    fn from(v: Ci16) -> Self {
        Probe(v.re as u16 as u64 | (v.im as u16 as u64) << 16)
    }
}

fn real_f32() -> Vec<f32> {
    c32_block().iter().map(|c| c.re).collect()
}

fn real_q15() -> Vec<i16> {
    ci16_block().iter().map(|c| c.re).collect()
}

/// Real `f32` resampling with ratio `RATIOS[I]`.
fn resample_f32<const I: usize>(n: usize) -> u64 {
    resample(n, &RATIOS[I].taps_f32(), &RATIOS[I], &real_f32())
}

/// Real Q15 resampling with ratio `RATIOS[I]`.
fn resample_q15<const I: usize>(n: usize) -> u64 {
    resample(n, &RATIOS[I].taps_q15(), &RATIOS[I], &real_q15())
}

/// Complex `f32` resampling with ratio `RATIOS[I]`.
fn resample_c32<const I: usize>(n: usize) -> u64 {
    resample(n, &RATIOS[I].taps_f32(), &RATIOS[I], &c32_block())
}

/// Complex Q15 resampling with ratio `RATIOS[I]`.
fn resample_ci16<const I: usize>(n: usize) -> u64 {
    resample(n, &RATIOS[I].taps_q15(), &RATIOS[I], &ci16_block())
}

/// The cases of this group.
pub static CASES: &[Case] = &[
    Case {
        name: "atan2/f32",
        run: |n| {
            let x = c32_block();
            blocks(
                n,
                &x,
                1,
                |x, y: &mut [f32]| {
                    for (x, y) in x.iter().zip(y) {
                        *y = atan2(x.im, x.re);
                    }
                },
                |y| y.to_bits() as u64,
            )
        },
    },
    Case {
        name: "atan2/i16",
        run: |n| {
            let x = ci16_block();
            blocks(
                n,
                &x,
                1,
                |x, y: &mut [i16]| {
                    for (x, y) in x.iter().zip(y) {
                        *y = atan2_i16(x.im, x.re);
                    }
                },
                |y| *y as u64,
            )
        },
    },
    Case {
        name: "fm/f32",
        run: |n| {
            let x = c32_block();
            let d = Discriminator::new(1.0);
            let mut s = DiscriminatorState::default();
            blocks(
                n,
                &x,
                1,
                |x, y| d.block(&mut s, x, y),
                |y: &f32| y.to_bits() as u64,
            )
        },
    },
    Case {
        name: "fm/q15",
        run: |n| {
            let x = ci16_block();
            let d = DiscriminatorQ15::new();
            let mut s = DiscriminatorState::default();
            blocks(n, &x, 1, |x, y| d.block(&mut s, x, y), |y: &i16| *y as u64)
        },
    },
    Case {
        name: "mag/f32",
        run: |n| {
            blocks(n, &c32_block(), 1, mag_f32_block, |y: &f32| {
                y.to_bits() as u64
            })
        },
    },
    Case {
        name: "mag/q15",
        run: |n| blocks(n, &ci16_block(), 1, mag_ci16_block, |y: &u16| *y as u64),
    },
    Case {
        name: "mag/cu8",
        run: |n| blocks(n, &cu8_block(), 2, mag_cu8_block, |y: &u16| *y as u64),
    },
    Case {
        name: "mag/cu8-exact",
        run: |n| blocks(n, &cu8_block(), 2, mag_cu8_exact_block, |y: &u16| *y as u64),
    },
    Case {
        name: "resample/f32/240k-48k",
        run: resample_f32::<0>,
    },
    Case {
        name: "resample/q15/240k-48k",
        run: resample_q15::<0>,
    },
    Case {
        name: "resample/c32/240k-48k",
        run: resample_c32::<0>,
    },
    Case {
        name: "resample/ci16/240k-48k",
        run: resample_ci16::<0>,
    },
    Case {
        name: "resample/f32/250k-44k1",
        run: resample_f32::<1>,
    },
    Case {
        name: "resample/q15/250k-44k1",
        run: resample_q15::<1>,
    },
    Case {
        name: "resample/c32/250k-44k1",
        run: resample_c32::<1>,
    },
    Case {
        name: "resample/ci16/250k-44k1",
        run: resample_ci16::<1>,
    },
    Case {
        name: "resample/f32/240k-44k1",
        run: resample_f32::<2>,
    },
    Case {
        name: "resample/q15/240k-44k1",
        run: resample_q15::<2>,
    },
    Case {
        name: "resample/c32/240k-44k1",
        run: resample_c32::<2>,
    },
    Case {
        name: "resample/f32/48k-44k1",
        run: resample_f32::<3>,
    },
    Case {
        name: "resample/q15/48k-44k1",
        run: resample_q15::<3>,
    },
    Case {
        name: "resample/c32/48k-44k1",
        run: resample_c32::<3>,
    },
];
