//! Broadcast FM: a stereo multiplex signal generator and the wideband FM
//! receiver chain.
//!
//! - [`generator`]: stereo FM at 2.4 MS/s cu8, with pre-emphasis, pilot,
//!   an optional extra multiplex component (RDS), an adjacent station and
//!   noise at a set carrier-to-noise ratio.
//! - [`channel`]: the integer frequency-translating channel filter, cu8 at
//!   2.4 MS/s straight to the complex channel at 240 kS/s.
//! - [`wbfm`]: cu8 at 2.4 MS/s → channel filter → discriminator → the
//!   multiplex (MPX) at 240 kHz, and the mono audio decoder to 48 kHz.
//! - [`stereo`]: pilot PLL, L−R demodulation, blend, de-emphasis, L/R at
//!   48 kHz.
//! - [`mono_q15`]: the mono receiver in fixed point (cu8 → Q15 audio).
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
//! | mono SNR ([`wbfm::FrontEnd::mono`]: 192 taps, 110 kHz), click suppression | 78.2 | 58.7 | 50.4 | 39.6² |
//! | the same without click suppression | 78.2 | 58.7 | 47.1 | 29.3 |
//! | mono SNR, Q15 receiver ([`mono_q15`]), click suppression | 77.3 | 58.7 | 50.4 | 41.6 |
//! | GNU Radio `wfm_rcv` (issue) | 73.4 | 54.3 | 46.1 | 35.7 |
//! | stereo left SNR, L = R tone, with blend | 55.2¹ | 57.4 | 49.2 | 38.6 |
//! | GNU Radio `wfm_rcv_pll` left (issue) | 52 | 34 | 26 | 21 |
//!
//! ² 0.6 s: at CNR 8 the figure depends on the few clicks left (41.5 dB
//! on average over six 1 s scenes).
//!
//! ¹ L-only tone, blend fully open. Stereo separation at CNR 40: 71.9 dB
//! (L→R), 64.6 dB (R→L). THD+N at CNR 50 (1 kHz, mono): −84.5 dB.
//! De-emphasis through the whole chain within 0.005 dB of the analog
//! curve, 30 Hz–15 kHz, 50 and 75 µs. RDS (PS, RT) through the chain at
//! CNR 25 with the adjacent station: exact, block error rate 0.
//!
//! Cost (callgrind, release, x86-64, per 2.4 MS/s input sample, `benches`
//! cases `wbfm/*`): stereo 58.5, mono 58.6 (its 192-tap channel filter;
//! 41.7 with the stereo one's 96 taps), Q15 mono 47.1 instructions (the
//! previous chain with an NCO, a half-band and a 151-tap filter: 132 and
//! 116). Click suppression (in [`wbfm::FrontEnd`], on by default) lifts
//! the mono SNR at CNR 8 from 29.3 to 39.6 dB (GNU Radio: 35.7) and at
//! CNR 12 from 47.1 to 50.4 dB; the Q15 receiver has the same, in
//! integers.

pub mod channel;
pub mod generator;
pub mod mono_q15;
pub mod stereo;
pub mod wbfm;
