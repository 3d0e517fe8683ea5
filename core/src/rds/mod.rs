//! Radio Data System (EN 50067 / IEC 62106): the 57 kHz subcarrier of FM
//! broadcasts carrying station name (PS), programme type (PTY), traffic
//! flags (TP/TA), RadioText (RT) and clock time (CT).
//!
//! - [`block`]: the (26,16) block code, offset words, syndromes, 1–2 bit
//!   burst correction.
//! - [`group`]: group content (0A/0B, 2A/2B, 4A): [`group::Program`] to
//!   send, [`group::Station`] as received.
//! - [`encoder`]: groups → biphase → 57 kHz subcarrier samples, for the
//!   signal generator.
//! - [`decoder`]: MPX samples → groups and station data, with block error
//!   counters.
//!
//! ```
//! use airwaves_core::rds::{decoder::{Decoder, DecoderState}, encoder::Encoder, group::Program};
//! let p = Program::new(0xC201).with_ps(b"AIRWAVES");
//! let enc = Encoder::new(p, 228_000.0, 0.05).unwrap();
//! let dec = Decoder::new(228_000.0).unwrap();
//! let (mut es, mut ds) = (enc.start(), DecoderState::new());
//! for _ in 0..228_000 {
//!     dec.process(&mut ds, enc.next_sample(&mut es));
//! }
//! assert_eq!(ds.station().ps, Some(*b"AIRWAVES"));
//! ```

pub mod block;
pub mod decoder;
pub mod encoder;
pub mod group;

/// A sample rate the RDS encoder or decoder cannot use (not finite, or
/// outside 128 kHz ..= 10 MHz).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RateError {
    /// The rejected rate, Hz.
    pub sample_rate: f64,
}

impl core::fmt::Display for RateError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "RDS sample rate {} Hz is outside 128 kHz ..= 10 MHz",
            self.sample_rate
        )
    }
}

impl core::error::Error for RateError {}

#[cfg(feature = "defmt")]
impl defmt::Format for RateError {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "RDS sample rate out of range")
    }
}
