#![no_std]
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod macros;

pub mod am;
pub mod dsp;
pub mod fm;
pub mod modes;
pub mod rds;
pub mod rng;
#[cfg(test)]
pub(crate) mod testing;
pub mod uat;

pub use num_complex::Complex;

/// A complex sample in `f32`, full scale ±1.0.
pub type C32 = Complex<f32>;
/// A complex sample in Q15 (`i16`, full scale ±32768 = ±1.0).
pub type Ci16 = Complex<i16>;
