//! `airwaves`: software-defined radio for the RTL-SDR, the host side.
//!
//! A thin shell of sources, sinks and threads around `airwaves-core`, in
//! layers that only look down:
//!
//! - the RTL-SDR driver ([`rtl`], streaming through [`usb_async`]), the
//!   fixed buffer ring between threads ([`ring`]) and recordings on disk
//!   ([`recording`]: opened and played in passes of whole I/Q pairs);
//! - rtl_tcp ([`rtltcp`]: protocol, client, and a server for a recording
//!   or a dongle);
//! - one source of I/Q for every command ([`source`]: a dongle, the
//!   emulator, an rtl_tcp server or a file) and the simulated signals
//!   ([`sim`]: the scene generator; [`demo`]: the simulated sky);
//! - the shared command-line pieces ([`cli`]), Mode S settings
//!   ([`mode_s`]) and the one error every command returns ([`error`]);
//! - the commands: the ADS-B feeder ([`adsb`]) with its output formats
//!   ([`feed`]: SBS, readsb JSON, stats, Prometheus), network layer
//!   ([`net`]: fan-out to clients, connectors, Beast input, HTTP) and web
//!   map ([`web`]); Mode S decoding of recordings ([`decode`]); the FM, AM
//!   and NFM receivers with audio ([`radio`]); the DSP self-test
//!   ([`selftest`]); and the smaller shells in [`commands`] (`devices`,
//!   `record`, `test-mode`, `rtl-tcp`, `scene`, `decode`).
//!
//! The binary `airwaves` (`src/main.rs`) is its command line.

pub mod adsb;
pub mod autogain;
pub mod cli;
pub mod commands;
pub mod decode;
pub mod demo;
pub mod error;
pub mod feed;
pub mod json;
pub mod log_limit;
pub mod mode_s;
pub mod net;
pub mod radio;
pub mod recording;
pub mod ring;
pub mod rtl;
pub mod rtltcp;
pub mod selftest;
pub mod sim;
pub mod source;
pub mod stop;
#[cfg(test)]
mod test_alloc;
pub mod uat;
pub mod usb_async;
pub mod web;
