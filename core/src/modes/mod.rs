//! Mode S and ADS-B: demodulation, frames, decoding, CPR positions, the
//! aircraft table and encoders.

pub mod altitude;
pub mod crc;
pub mod frame;

// ADS-B extended squitter (ME field) and Comm-B (MB field) decoding, over
// one 56-bit field view and one identification character set.
pub mod adsb;
mod charset;
pub mod commb;
pub mod field56;

// Compact Position Reporting.
pub mod cpr;

// The demodulator: cu8 I/Q in, CRC-checked frames out.
pub mod demod;

// Mode A/C reply detection (squawk, Gillham altitude).
pub mod modeac;

// The aircraft table.
pub mod tracker;

// Registrations that follow from the address by arithmetic (N-numbers).
pub mod registration;

// The state an address was allocated to (ICAO Annex 10 blocks).
pub mod country;

// The 12 MHz Mode S clock.
pub mod time;

// The receive chain: demodulator, Mode A/C, known addresses, tracker.
pub mod receiver;

// Signal levels for gain control.
pub mod level;

// Output encoders (AVR text, Beast binary) and input stream decoders.
pub mod encode;

// A Mode S / Mode A/C modulator, for scene generation and tests.
pub mod modulate;
