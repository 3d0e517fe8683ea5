//! `airwaves`: software-defined radio for the RTL-SDR, the host side.
//!
//! A thin shell of sources, sinks and threads around `airwaves-core`:
//!
//! - sources: the RTL-SDR driver ([`rtl`], streaming through
//!   [`usb_async`]), rtl_tcp ([`rtltcp`]), files ([`source`]), and the
//!   simulated sky ([`demo`]);
//! - the fixed buffer ring between threads ([`ring`]);
//! - Mode S decoding of recordings ([`decode`]) and the scene generator
//!   ([`scene`]);
//! - the ADS-B feeder ([`adsb`]): its output formats ([`feed`]: SBS,
//!   readsb JSON, stats, Prometheus), its network layer ([`net`]: fan-out
//!   to clients, connectors, Beast input, HTTP) and the web map ([`web`]);
//! - the FM, AM and NFM receivers with audio ([`radio`]);
//! - the DSP self-test ([`selftest`]).
//!
//! The binary `airwaves` (`src/main.rs`) is its command line.

pub mod adsb;
pub mod decode;
pub mod demo;
pub mod feed;
pub mod json;
pub mod net;
pub mod radio;
pub mod ring;
pub mod rtl;
pub mod rtltcp;
pub mod scene;
pub mod selftest;
pub mod source;
pub mod usb_async;
pub mod web;
