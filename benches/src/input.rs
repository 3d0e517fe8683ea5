//! Instruction-count workloads for the input primitives.

use crate::Case;

/// The cases of this group.
pub static CASES: &[Case] = &[];
