//! The smaller commands: each parses its options, calls the layers below
//! and reports. The bigger ones are modules of their own ([`crate::adsb`],
//! [`crate::radio`], [`crate::selftest`]). No module but `main.rs` imports
//! a command.

pub mod decode;
pub mod dongle;
pub mod rtl_tcp;
pub mod scene;
pub mod uat;

use crate::error::CommandError;
use std::io::Read;
use std::path::Path;

/// The recording `input` ([`crate::source::open_recording`]), or standard
/// input for `-`.
///
/// # Errors
/// [`CommandError::Read`] naming the path.
pub(crate) fn open_input(input: &Path) -> Result<Box<dyn Read>, CommandError> {
    if input.as_os_str() == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    let file = crate::source::open_recording(input).map_err(|source| CommandError::Read {
        path: input.to_path_buf(),
        source,
    })?;
    Ok(Box::new(file))
}
