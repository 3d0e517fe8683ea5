//! Instruction-count workloads for the phase primitives.

use crate::Case;

/// The cases of this group.
pub static CASES: &[Case] = &[];
