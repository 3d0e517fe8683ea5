//! Instruction-count workloads for the fir primitives.

use crate::Case;

/// The cases of this group.
pub static CASES: &[Case] = &[];
