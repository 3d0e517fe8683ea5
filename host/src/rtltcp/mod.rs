//! The rtl_tcp protocol: wire format, a server for any [`device::Control`] +
//! [`crate::source::SampleSource`] (a recording: [`mod@file`]; a dongle: [`serve`]),
//! and a client. The `airwaves rtl-tcp` command is built on it.
//!
//! Written from the protocol facts in `rtl2832u.md` §2; nothing is taken
//! from rtl_tcp.c.

pub mod client;
pub mod device;
pub mod file;
pub mod protocol;
pub mod serve;
pub mod server;
