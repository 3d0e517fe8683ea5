//! Adaptive tuner gain for the 1090 MHz feeder.

pub mod control;
pub mod harness;

/// A decoded frame at or above this signal level (dBFS) is strong.
pub const STRONG_DBFS: f32 = -3.0;
