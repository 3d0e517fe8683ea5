//! The smaller commands: each parses its options, calls the layers below
//! and reports. The bigger ones are modules of their own ([`crate::adsb`],
//! [`crate::radio`], [`crate::selftest`]). No module but `main.rs` imports
//! a command.

pub mod decode;
pub mod dongle;
pub mod rtl_tcp;
pub mod scene;
