//! UAT (Universal Access Transceiver, 978 MHz, RTCA DO-282B): the
//! Reed–Solomon codes ([`rs`]), the demodulator ([`demod`]), the downlink
//! (ADS-B) messages ([`adsb`]), the uplink messages with their FIS-B
//! information frames and DLAC text ([`uplink`]), the FIS-B products they
//! carry (NEXRAD blocks and text reports, [`fisb`]), the translation of
//! downlink messages into 1090 MHz extended squitters for a Mode S tracker
//! and Beast/AVR outputs ([`esnt`]), and a modulator for tests
//! ([`modulate`]).
//!
//! # The link
//!
//! Binary CPFSK at 1.041667 Mbit/s, modulation index 0.6 (±312.5 kHz, a
//! `1` the higher frequency). Every transmission starts with a 36-bit
//! synchronisation word, MSB first: [`DOWNLINK_SYNC`] for aircraft
//! (ADS-B) messages, its complement [`UPLINK_SYNC`] for ground stations.
//! After it:
//!
//! | transmission | payload | Reed–Solomon | bits after sync |
//! |---|---|---|---:|
//! | downlink basic | 18 bytes (payload type 0) | RS(30, 18) | 240 |
//! | downlink long | 34 bytes (payload types 1–31) | RS(48, 34) | 384 |
//! | uplink | 432 bytes, 6 blocks of 72 | 6 × RS(92, 72), byte-interleaved | 4,416 |
//!
//! The uplink's transmitted byte `6·i + j` is byte `i` of block `j`.
//! A receiver samples at twice the bit rate, [`SAMPLE_RATE`] (2.083333
//! MS/s), the RTL-SDR's usual UAT rate.

pub mod adsb;
pub mod demod;
pub mod esnt;
pub mod fisb;
pub mod modulate;
pub mod rs;
pub mod uplink;

/// Bit rate, bits per second (`3.125 MHz / 3`).
pub const BIT_RATE: f64 = 3_125_000.0 / 3.0;
/// The sample rate the demodulator reads: two samples per bit, Hz
/// (2,083,333.3; an RTL-SDR set to 2,083,334 Hz is 0.3 ppm off it).
pub const SAMPLE_RATE: f64 = 2.0 * BIT_RATE;
/// Bits in a sync word.
pub const SYNC_BITS: usize = 36;
/// The downlink (ADS-B) sync word, sent MSB first.
pub const DOWNLINK_SYNC: u64 = 0xEAC_DDA4E2;
/// The uplink (ground station) sync word: the downlink's complement.
pub const UPLINK_SYNC: u64 = !DOWNLINK_SYNC & ((1 << SYNC_BITS) - 1);
/// Data bytes of a basic downlink message.
pub const BASIC_DATA: usize = 18;
/// Bytes of a basic downlink message with its parity.
pub const BASIC_BYTES: usize = 30;
/// Data bytes of a long downlink message.
pub const LONG_DATA: usize = 34;
/// Bytes of a long downlink message with its parity.
pub const LONG_BYTES: usize = 48;
/// Uplink blocks per message.
pub const UPLINK_BLOCKS: usize = 6;
/// Data bytes per uplink block.
pub const UPLINK_BLOCK_DATA: usize = 72;
/// Bytes per uplink block with its parity.
pub const UPLINK_BLOCK_BYTES: usize = 92;
/// Data bytes of an uplink message.
pub const UPLINK_DATA: usize = UPLINK_BLOCKS * UPLINK_BLOCK_DATA;
/// Bytes of an uplink message as sent.
pub const UPLINK_BYTES: usize = UPLINK_BLOCKS * UPLINK_BLOCK_BYTES;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_sync_words_are_complements() {
        assert_eq!(UPLINK_SYNC, 0x1_5322_5B1D);
        assert_eq!(DOWNLINK_SYNC ^ UPLINK_SYNC, (1 << 36) - 1);
    }
}
