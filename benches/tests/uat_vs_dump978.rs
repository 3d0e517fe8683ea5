//! The UAT benchmark's `--check` on a 10 s scene (seed 1): airwaves decodes
//! every clean downlink and uplink message from 12 dB up and invents none.
//! `--no-anchors`: dump978-fa (built by `scripts/anchors`, not in CI) is
//! left out even where it exists, so CI measures the same.

mod support;

use std::ffi::OsStr;
use std::path::PathBuf;

#[test]
fn test_uat_benchmark_check() {
    let bench = PathBuf::from(env!("CARGO_BIN_EXE_uat_vs_dump978"));
    let airwaves = support::airwaves_beside(&bench);
    let mut args: Vec<&OsStr> = [
        "--seconds",
        "10",
        "--seed",
        "1",
        "--no-callgrind",
        "--check",
        "--no-anchors",
    ]
    .map(OsStr::new)
    .to_vec();
    args.extend([OsStr::new("--airwaves"), airwaves.as_os_str()]);
    let out = support::run_check(&bench, &args, "");
    assert!(out.contains("| downlink, all | 600 |"), "{out}");
}
