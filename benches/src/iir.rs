//! Instruction-count workloads for the iir primitives.

use crate::Case;

/// The cases of this group.
pub static CASES: &[Case] = &[];
