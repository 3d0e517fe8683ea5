//! End-to-end tests of airwaves live in `tests/`; this library holds shared
//! helpers for them (locating `../shared/data`, starting peers).

use std::path::PathBuf;

/// The `shared/data` folder beside the checkout, if present.
///
/// Tests that need it skip with a clear message when it is absent and must
/// run when it is present.
pub fn shared_data() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    root.is_dir().then_some(root)
}
