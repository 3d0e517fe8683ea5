//! Instruction-count workloads for the fir primitives: direct and symmetric
//! FIRs, FIR decimators, half-band decimators and a three-stage half-band
//! cascade, each in `f32`/[`C32`] and Q15 `i16`/[`Ci16`].
//!
//! Every case processes `n` input samples in blocks of [`BLOCK`] from a
//! noise buffer shaped like RTL-SDR output (8-bit offset binary, scaled to
//! full scale). Costs are per input sample, decimators included.

use airwaves_core::dsp::SplitProcess;
use airwaves_core::dsp::fir::{
    Decimator, DecimatorState, Fir, FirDesign, FirState, Sample, SplitDecimate, SymFir,
};
use airwaves_core::dsp::halfband::{Cascade, HalfBand, HalfBandState};
use airwaves_core::{C32, Ci16};

use crate::{Case, noise_u8};

/// Input samples per block call.
pub use crate::BLOCK;

/// The 63-tap low-pass used throughout: −6 dB at 0.1 cycles/sample, 70 dB.
pub fn lp63() -> FirDesign {
    FirDesign::lowpass(0.1, 70.0)
}

/// The 32-tap low-pass: −6 dB at 0.125 cycles/sample, 60 dB.
pub fn lp32() -> FirDesign {
    FirDesign::lowpass(0.125, 60.0)
}

/// Stop-band attenuation of the half-band designs (dB).
pub const HB_ATTEN: f64 = 70.0;

/// Three half-band stages: 15, 15 and 31 taps (2.4 MS/s → 300 kS/s
/// protecting ±100 kHz).
pub type Cascade3<T> = Cascade<HalfBand<T, 4>, Cascade<HalfBand<T, 4>, HalfBand<T, 8>>>;

/// State of [`Cascade3`].
pub type Cascade3State<X> = (
    HalfBandState<X, 4>,
    (HalfBandState<X, 4>, HalfBandState<X, 8>),
);

/// The three-stage half-band cascade.
pub fn cascade3<T: airwaves_core::dsp::fir::Tap>() -> Cascade3<T> {
    Cascade::new(
        HalfBand::design(HB_ATTEN),
        Cascade::new(HalfBand::design(HB_ATTEN), HalfBand::design(HB_ATTEN)),
    )
}

/// Sample types the workloads generate from noise bytes.
pub trait FromNoise: Sample + Default {
    /// Build `len` samples from a seeded byte stream.
    fn noise(len: usize) -> Vec<Self>;
    /// Fold a sample into a checksum.
    fn bits(&self) -> u64;
}

fn bytes(n: usize) -> Vec<u8> {
    let mut b = vec![0u8; n];
    noise_u8(0x5eed, &mut b);
    b
}

impl FromNoise for f32 {
    fn noise(len: usize) -> Vec<Self> {
        bytes(len)
            .iter()
            .map(|&b| (b as f32 - 127.5) / 128.0)
            .collect()
    }
    fn bits(&self) -> u64 {
        self.to_bits() as u64
    }
}

impl FromNoise for i16 {
    fn noise(len: usize) -> Vec<Self> {
        bytes(len)
            .iter()
            .map(|&b| ((b as i16) - 128) << 8)
            .collect()
    }
    fn bits(&self) -> u64 {
        *self as u16 as u64
    }
}

impl FromNoise for C32 {
    fn noise(len: usize) -> Vec<Self> {
        let r = f32::noise(2 * len);
        r.chunks_exact(2).map(|c| C32::new(c[0], c[1])).collect()
    }
    fn bits(&self) -> u64 {
        self.re.bits() ^ (self.im.bits() << 32)
    }
}

impl FromNoise for Ci16 {
    fn noise(len: usize) -> Vec<Self> {
        let r = i16::noise(2 * len);
        r.chunks_exact(2).map(|c| Ci16::new(c[0], c[1])).collect()
    }
    fn bits(&self) -> u64 {
        self.re.bits() ^ (self.im.bits() << 16)
    }
}

/// Run a 1:1 filter over `n` inputs in blocks of [`BLOCK`].
pub fn run_1to1<X: FromNoise, F: SplitProcess<X, X, S>, S>(f: &F, mut s: S, n: usize) -> u64 {
    let x = X::noise(BLOCK);
    let mut y = [X::default(); BLOCK];
    let mut sum = 0u64;
    let mut left = n;
    while left > 0 {
        let k = left.min(BLOCK);
        f.block(&mut s, &x[..k], &mut y[..k]);
        sum = sum.wrapping_mul(31).wrapping_add(y[k - 1].bits());
        left -= k;
    }
    sum
}

/// Run a decimator over `n` inputs in blocks of [`BLOCK`].
pub fn run_dec<X: FromNoise, D: SplitDecimate<X, S>, S>(d: &D, mut s: S, n: usize) -> u64 {
    let x = X::noise(BLOCK);
    let mut y = vec![X::default(); d.max_output(BLOCK)];
    let mut sum = 0u64;
    let mut left = n;
    while left > 0 {
        let k = left.min(BLOCK);
        let m = d.block(&mut s, &x[..k], &mut y);
        if m > 0 {
            sum = sum.wrapping_mul(31).wrapping_add(y[m - 1].bits());
        }
        left -= k;
    }
    sum
}

fn f32_direct63(n: usize) -> u64 {
    run_1to1::<f32, _, _>(&Fir::<f32, 63>::design(&lp63()), FirState::new(), n)
}
fn f32_sym63(n: usize) -> u64 {
    run_1to1::<f32, _, _>(&SymFir::<f32, 63>::design(&lp63()), FirState::new(), n)
}
fn f32_sym32(n: usize) -> u64 {
    run_1to1::<f32, _, _>(&SymFir::<f32, 32>::design(&lp32()), FirState::new(), n)
}
fn c32_direct63(n: usize) -> u64 {
    run_1to1::<C32, _, _>(&Fir::<f32, 63>::design(&lp63()), FirState::new(), n)
}
fn c32_sym63(n: usize) -> u64 {
    run_1to1::<C32, _, _>(&SymFir::<f32, 63>::design(&lp63()), FirState::new(), n)
}
fn q15_direct63(n: usize) -> u64 {
    run_1to1::<i16, _, _>(&Fir::<i16, 63>::design(&lp63()), FirState::new(), n)
}
fn q15_sym63(n: usize) -> u64 {
    run_1to1::<i16, _, _>(&SymFir::<i16, 63>::design(&lp63()), FirState::new(), n)
}
fn q15_sym32(n: usize) -> u64 {
    run_1to1::<i16, _, _>(&SymFir::<i16, 32>::design(&lp32()), FirState::new(), n)
}
fn ci16_direct63(n: usize) -> u64 {
    run_1to1::<Ci16, _, _>(&Fir::<i16, 63>::design(&lp63()), FirState::new(), n)
}
fn ci16_sym63(n: usize) -> u64 {
    run_1to1::<Ci16, _, _>(&SymFir::<i16, 63>::design(&lp63()), FirState::new(), n)
}

fn f32_sym63_dec4(n: usize) -> u64 {
    let d = Decimator::<_, 4>::new(SymFir::<f32, 63>::design(&lp63()));
    run_dec::<f32, _, _>(&d, DecimatorState::new(), n)
}
fn c32_sym63_dec4(n: usize) -> u64 {
    let d = Decimator::<_, 4>::new(SymFir::<f32, 63>::design(&lp63()));
    run_dec::<C32, _, _>(&d, DecimatorState::new(), n)
}
fn q15_direct63_dec4(n: usize) -> u64 {
    let d = Decimator::<_, 4>::new(Fir::<i16, 63>::design(&lp63()));
    run_dec::<i16, _, _>(&d, DecimatorState::new(), n)
}
fn q15_sym63_dec4(n: usize) -> u64 {
    let d = Decimator::<_, 4>::new(SymFir::<i16, 63>::design(&lp63()));
    run_dec::<i16, _, _>(&d, DecimatorState::new(), n)
}
fn ci16_sym63_dec4(n: usize) -> u64 {
    let d = Decimator::<_, 4>::new(SymFir::<i16, 63>::design(&lp63()));
    run_dec::<Ci16, _, _>(&d, DecimatorState::new(), n)
}

fn f32_hb31(n: usize) -> u64 {
    run_dec::<f32, _, _>(
        &HalfBand::<f32, 8>::design(HB_ATTEN),
        HalfBandState::new(),
        n,
    )
}
fn c32_hb31(n: usize) -> u64 {
    run_dec::<C32, _, _>(
        &HalfBand::<f32, 8>::design(HB_ATTEN),
        HalfBandState::new(),
        n,
    )
}
fn q15_hb31(n: usize) -> u64 {
    run_dec::<i16, _, _>(
        &HalfBand::<i16, 8>::design(HB_ATTEN),
        HalfBandState::new(),
        n,
    )
}
fn ci16_hb31(n: usize) -> u64 {
    run_dec::<Ci16, _, _>(
        &HalfBand::<i16, 8>::design(HB_ATTEN),
        HalfBandState::new(),
        n,
    )
}
fn c32_hb_cascade3(n: usize) -> u64 {
    run_dec::<C32, _, Cascade3State<C32>>(&cascade3::<f32>(), Default::default(), n)
}
fn ci16_hb_cascade3(n: usize) -> u64 {
    run_dec::<Ci16, _, Cascade3State<Ci16>>(&cascade3::<i16>(), Default::default(), n)
}

/// The cases of this group.
pub static CASES: &[Case] = &[
    Case {
        name: "fir/f32/direct63",
        run: f32_direct63,
    },
    Case {
        name: "fir/f32/sym63",
        run: f32_sym63,
    },
    Case {
        name: "fir/f32/sym32",
        run: f32_sym32,
    },
    Case {
        name: "fir/c32/direct63",
        run: c32_direct63,
    },
    Case {
        name: "fir/c32/sym63",
        run: c32_sym63,
    },
    Case {
        name: "fir/q15/direct63",
        run: q15_direct63,
    },
    Case {
        name: "fir/q15/sym63",
        run: q15_sym63,
    },
    Case {
        name: "fir/q15/sym32",
        run: q15_sym32,
    },
    Case {
        name: "fir/ci16/direct63",
        run: ci16_direct63,
    },
    Case {
        name: "fir/ci16/sym63",
        run: ci16_sym63,
    },
    Case {
        name: "fir/f32/sym63-dec4",
        run: f32_sym63_dec4,
    },
    Case {
        name: "fir/c32/sym63-dec4",
        run: c32_sym63_dec4,
    },
    Case {
        name: "fir/q15/direct63-dec4",
        run: q15_direct63_dec4,
    },
    Case {
        name: "fir/q15/sym63-dec4",
        run: q15_sym63_dec4,
    },
    Case {
        name: "fir/ci16/sym63-dec4",
        run: ci16_sym63_dec4,
    },
    Case {
        name: "fir/f32/hb31",
        run: f32_hb31,
    },
    Case {
        name: "fir/c32/hb31",
        run: c32_hb31,
    },
    Case {
        name: "fir/q15/hb31",
        run: q15_hb31,
    },
    Case {
        name: "fir/ci16/hb31",
        run: ci16_hb31,
    },
    Case {
        name: "fir/c32/hb-cascade3",
        run: c32_hb_cascade3,
    },
    Case {
        name: "fir/ci16/hb-cascade3",
        run: ci16_hb_cascade3,
    },
];
