//! Simulated 1090 MHz signals: the scene generator ([`scene`]), its random
//! numbers and its DF17 encoders, used by the `scene` command and the
//! demo sky ([`crate::demo`]).

pub mod scene;
