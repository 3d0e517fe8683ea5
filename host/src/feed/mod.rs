//! The feeder's output formats, so that `airwaves adsb` drops in where
//! dump1090-fa or readsb run: each formats into a caller-owned, reused
//! `String` and allocates only when that string must grow.
//!
//! - [`sbs`]: BaseStation lines (port 30003);
//! - [`json`]: readsb / dump1090-fa `aircraft.json` and `receiver.json`;
//! - [`stats`]: cumulative counters and dump1090-fa's `stats.json`;
//! - [`metrics`]: Prometheus text exposition format 0.0.4.

pub mod json;
pub mod metrics;
pub mod sbs;
pub mod stats;
