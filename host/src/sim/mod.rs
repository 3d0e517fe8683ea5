//! Simulated signals: the 1090 MHz scene generator ([`scene`]), its random
//! numbers and its DF17 encoders, used by the `scene` command and the
//! demo sky ([`crate::demo`]); the 978 MHz UAT scene generator ([`uat`]).

pub mod scene;
pub mod uat;
