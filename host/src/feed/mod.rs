//! The feeder's output formats, so that `airwaves adsb` drops in where
//! dump1090-fa or readsb run: each formats into a caller-owned, reused
//! `String` and allocates only when that string must grow.
//!
//! - [`sbs`]: BaseStation lines (port 30003);
//! - [`aircraft_db`]: the user's tar1090-db CSV (`--db-file`);
//! - [`history`]: 24 hours of positions for the replay;
//! - [`json`]: readsb / dump1090-fa `aircraft.json` and `receiver.json`;
//! - [`series`]: the graphs' time series (hour, day, week);
//! - [`stats`]: cumulative counters and dump1090-fa's `stats.json`;
//! - [`metrics`]: Prometheus text exposition format 0.0.4;
//! - [`outline`]: the 24-hour range outline (`outline.json`);
//! - [`reduce`]: the reduced Beast stream (`beast_reduce_out`).

pub mod aircraft_db;
pub mod history;
pub mod json;
pub mod metrics;
pub mod outline;
pub mod reduce;
pub mod sbs;
pub mod series;
pub mod stats;

/// FNV-1a, 64 bits: the checksum of the state files and the content
/// digest of the reduced Beast stream (not cryptographic; it finds
/// damage, not tampering).
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// Helpers for this module's tests.
#[cfg(test)]
pub(crate) mod testing {
    /// Bytes of an even-length hex string (test literals only).
    pub(crate) fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }
}
