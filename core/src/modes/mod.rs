//! Mode S and ADS-B: frames, decoding, CPR positions and encoders.

pub mod altitude;
pub mod crc;
pub mod frame;
// ADS-B extended squitter (ME field) and Comm-B (MB field) decoding.
pub mod adsb;
pub mod commb;
// Compact Position Reporting.
pub mod cpr;
// Output encoders (AVR text, Beast binary).
pub mod encode;
pub mod modulate;
pub mod tracker;
