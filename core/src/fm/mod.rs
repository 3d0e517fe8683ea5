//! Broadcast FM: a stereo multiplex signal generator and the wideband FM
//! receiver chain.
//!
//! - [`generator`]: stereo FM at 2.4 MS/s cu8, with pre-emphasis, pilot,
//!   an optional extra multiplex component (RDS), an adjacent station and
//!   noise at a set carrier-to-noise ratio.
//! - [`wbfm`]: cu8 at 2.4 MS/s → channel filter → discriminator → the
//!   multiplex (MPX) at 240 kHz, and the mono audio decoder to 48 kHz.
//! - [`stereo`]: pilot PLL, L−R demodulation, blend, de-emphasis, L/R at
//!   48 kHz.
//!
//! The MPX at [`wbfm::MPX_RATE`] is the seam for other decoders (RDS): it
//! is flat (±0.001 dB) from DC to 60 kHz, ±1.0 = ±75 kHz, and the
//! generator's `extra` closure is where an RDS subcarrier goes in.
//!
//! # Measured (tests in this module, generated scenes: station at
//! −250 kHz, +6 dB adjacent station 400 kHz away, 75 µs, 1 kHz tone at
//! 90 % of 75 kHz)
//!
//! | CNR (200 kHz) | 40 dB | 20 dB | 12 dB | 8 dB |
//! |---|---:|---:|---:|---:|
//! | mono SNR (100 kHz channel, `MONO_CUTOFF_HZ`) | 78.2 | 58.7 | 50.6 | 29.5 |
//! | mono SNR (150 kHz stereo channel) | 78.1 | 58.6 | 46.0 | 27.2 |
//! | GNU Radio `wfm_rcv` (issue) | 73.4 | 54.3 | 46.1 | 35.7 |
//! | stereo left SNR, L = R tone, with blend | 55.4¹ | 57.8 | 47.5 | 28.9 |
//! | GNU Radio `wfm_rcv_pll` left (issue) | 52 | 34 | 26 | 21 |
//!
//! ¹ L-only tone, blend fully open. Stereo separation at CNR 40: 70.7 dB
//! (L→R), 65.2 dB (R→L). Cost (callgrind, release, per 2.4 MS/s input
//! sample, `benches` cases `wbfm/f32/*`): mono 116, stereo 132
//! instructions. No click suppression yet (CNR 8 is below GNU Radio).

pub mod generator;
pub mod stereo;
pub mod wbfm;
