//! Helpers of the side-by-side benchmarks (`modes_vs_dump1090`,
//! `fm_vs_gnuradio`, `uat_vs_dump978`): where the locally built anchors
//! are, and what callgrind counted.

use std::path::{Path, PathBuf};

/// Instructions reported by callgrind on stderr (`Collected : N`).
///
/// ```
/// use airwaves_benches::peers::callgrind_total;
/// let err = "==1== Events    : Ir\n==1== Collected : 123456789\n==1==\n";
/// assert_eq!(callgrind_total(err), Some(123_456_789));
/// assert_eq!(callgrind_total("nothing"), None);
/// ```
pub fn callgrind_total(stderr: &str) -> Option<u64> {
    stderr
        .lines()
        .find_map(|l| l.split_once("Collected :").map(|(_, n)| n.trim()))
        .and_then(|n| n.parse().ok())
}

/// The release `airwaves` binary of this workspace's target directory
/// (`$CARGO_TARGET_DIR`, else `target/` beside the benches), the
/// benchmarks' default `--airwaves`.
pub fn release_airwaves() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
        .join("release/airwaves")
}

/// `$AIRWAVES_ANCHORS/bin/NAME` (default `../anchors/bin/NAME` beside the
/// repository, where `scripts/anchors` builds them), if it exists.
pub fn anchor_binary(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("AIRWAVES_ANCHORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../anchors"));
    Some(dir.join("bin").join(name)).filter(|p| p.is_file())
}
