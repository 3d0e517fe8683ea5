//! `airwaves`: software-defined radio for the RTL-SDR, the host side.
//!
//! A thin shell of sources, sinks and threads around `airwaves-core`:
//!
//! - sources: the RTL-SDR driver ([`rtl`], streaming through
//!   [`usb_async`]), rtl_tcp ([`rtltcp`]), files;
//! - the fixed buffer ring between threads ([`ring`]);
//! - Mode S decoding of recordings ([`decode`]) and the scene generator
//!   ([`scene`]);
//! - the DSP self-test ([`selftest`]).
//!
//! The binary `airwaves` (`src/main.rs`) is its command line.

pub mod decode;
pub mod ring;
pub mod rtl;
pub mod rtltcp;
pub mod scene;
pub mod selftest;
pub mod source;
pub mod usb_async;
