//! Narrowband receivers: AM (envelope and synchronous), narrowband FM,
//! squelch, the narrow channel front end and test signal generators.
//!
//! - [`front`]: cu8 at 240 kS/s–3.2 MS/s → NCO → half-band cascade → FIR
//!   decimator (channel filter for 8.33/25 kHz AM, 12.5/25 kHz NBFM) →
//!   complex baseband at 18–25 kS/s.
//! - [`envelope`], [`sync`], [`nbfm`]: the detectors (with the output-SNR
//!   theory each is tested against).
//! - [`audio`]: DC removal, the 300–3000 Hz voice band, AGC, and the
//!   resampler to the audio rate.
//! - [`squelch`]: level squelch (any mode, also usable on the WBFM
//!   channel; its noise reference is the power density of the input band
//!   outside the channel, so a carrier present from the first sample
//!   opens it) and noise squelch (FM), with hysteresis and hang.
//! - [`receiver`]: the whole chain, cu8 in, audio out.
//! - [`generator`]: AM / NBFM test signals at a set CNR, with fading.
//!
//! # Measured
//!
//! Tests in [`receiver`]: 300 kS/s cu8 from [`generator`], station at
//! +50 kHz, 1 kHz tone, 8.33 kHz channel and the 300–3000 Hz voice band,
//! AGC off, SINAD at 48 kHz. AM depth 0.5, CNR in 8.33 kHz; theory
//! `m² CNR B |H_a(1k)|² / (2 ∫|H_ch H_a|²)` (see [`envelope`]):
//!
//! | CNR | 30 | 20 | 12 | 6 | 0 | −6 dB |
//! |---|---:|---:|---:|---:|---:|---:|
//! | theory | 25.9 | 15.9 | 7.9 | 1.9 | −4.1 | −10.1 |
//! | envelope | 25.9 | 15.9 | 7.8 | 1.6 | −6.0 | −16.2 |
//! | synchronous | 25.9 | 15.9 | 7.9 | 1.7 | −4.8 | −11.4 |
//!
//! NBFM (±5 kHz deviation, 25 kHz channel, no de-emphasis, CNR in
//! 16 kHz), theory `(Δf²/2)|H_a(1k)|² CNR B / ∫ f² |H_a|²` (see [`nbfm`]):
//! 44.9 / 37.9 / 30.9 dB at CNR 32 / 25 / 18 dB, measured 44.9 / 38.3 /
//! 31.3 dB. The PLL pulls in from ±1 kHz in under 40 ms. Cost (callgrind,
//! x86-64 release, 2.4 MS/s → 48 kHz): 105 instructions per input sample
//! (envelope, synchronous and NBFM alike; about 50 in the half-bands, 35
//! in cu8 conversion and the NCO).
//!
//! Level squelch with the band reference (tests in [`receiver`], 300 kS/s,
//! CNR 13 dB in the channel): a carrier present from sample 0 opens it
//! after 50 ms (the warm-up), reading 13.7 dB of SNR for 14 dB; 10 s of
//! noise at two levels never open it; the carrier switched off closes it
//! 232 ms later (0.2 s hang). Cost: 112 instead of 104 instructions per
//! input sample at 2.4 MS/s (callgrind, x86-64 release, envelope AM
//! → 48 kHz), the band power's integer sums.
//!
//! Real airband capture (`host/tests/airband_capture.rs`, 127.35 MHz,
//! 300 kS/s, weak): 22 dB between the 90th and 10th percentile of the
//! 100 ms voice-band energy, both detectors.

pub mod audio;
pub mod envelope;
pub mod front;
pub mod generator;
pub mod nbfm;
pub mod receiver;
pub mod squelch;
pub mod sync;

pub use crate::dsp::output::OutputTooShort;

/// Invalid receiver configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigError {
    /// Input rate outside 240 kS/s–3.2 MS/s, or no decimation plan.
    InputRate,
    /// Station offset too close to (or beyond) the band edge.
    Offset,
    /// Audio rate outside 8–96 kHz, or a ratio the resampler cannot hold.
    AudioRate,
    /// A detector, AGC or squelch parameter out of range.
    Parameter,
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::InputRate => "input rate must be 240 kS/s to 3.2 MS/s",
            Self::Offset => "station offset must be inside the input band",
            Self::AudioRate => "unsupported audio rate for this input rate",
            Self::Parameter => "detector, AGC or squelch parameter out of range",
        })
    }
}

impl core::error::Error for ConfigError {}
