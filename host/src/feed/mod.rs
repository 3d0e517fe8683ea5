//! The feeder's output formats, so that `airwaves adsb` drops in where
//! dump1090-fa or readsb run: each formats into a caller-owned, reused
//! `String` and allocates only when that string must grow.
//!
//! - [`sbs`]: BaseStation lines (port 30003);
//! - [`aircraft_db`]: the user's tar1090-db CSV (`--db-file`);
//! - [`json`]: readsb / dump1090-fa `aircraft.json` and `receiver.json`;
//! - [`stats`]: cumulative counters and dump1090-fa's `stats.json`;
//! - [`metrics`]: Prometheus text exposition format 0.0.4;
//! - [`outline`]: the 24-hour range outline (`outline.json`);
//! - [`reduce`]: the reduced Beast stream (`beast_reduce_out`).

pub mod aircraft_db;
pub mod json;
pub mod metrics;
pub mod outline;
pub mod reduce;
pub mod sbs;
pub mod stats;

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
