//! `airwaves adsb`: the 1090 MHz feeder.
//!
//! Drop-in for dump1090-fa / readsb: the same network ports and formats
//! (AVR 30002, SBS 30003, Beast in 30004, Beast out 30005), the same JSON
//! (`aircraft.json`, `receiver.json`, `stats.json`) over HTTP and in
//! `--write-json DIR`, Prometheus `/metrics`, and a built-in web map.
//!
//! # Threads and data flow
//!
//! ```text
//! source thread ──ring of fixed buffers──▶ decode thread ──▶ hubs ──▶ client writers
//!  (dongle, rtl_tcp, file, demo)             (Pipeline)       │
//!                  Beast input ──bounded channel──▶ ┘          └──▶ snapshot ──▶ HTTP, --write-json
//! ```
//!
//! - The **source thread** ([`source`]) reads I/Q and copies it into a
//!   ring of fixed buffers. For a live source (dongle, rtl_tcp, `--demo`,
//!   a throttled file) a full ring drops the buffer and counts it: the
//!   reader never waits for the decoder. A file read as fast as possible
//!   waits instead, so a replay loses nothing.
//! - The **decode thread** owns the [`pipeline::Pipeline`] (demodulator,
//!   tracker, output formatting), publishes each buffer's output in one
//!   write per port, and once a second renders the JSON and metrics into a
//!   shared [`site::Snapshot`].
//! - Network clients each have a bounded buffer in their port's hub; a
//!   client that stops reading is dropped, never waited for.

pub mod args;
pub mod console;
pub mod cpu;
mod inputs;
pub mod network;
pub mod pipeline;
pub mod run;
pub mod site;
pub mod source;
pub mod state;
mod ticker;

pub use args::AdsbArgs;
pub use run::run;
