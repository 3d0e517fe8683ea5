//! airwaves against Debian's `dump1090-mutability` (a real peer, installed
//! by `scripts/setup --test`) on the 10 s scene of the README (seed 1):
//! more frames in every SNR band where dump1090-mutability decodes any, at
//! least 1.1× its total, no more false frames. The figures are printed.
//! `--no-anchors`: dump1090-fa and readsb (built by `scripts/anchors`, not
//! in CI) are left out even where they exist, so CI measures the same.

mod support;

use std::ffi::OsStr;
use std::path::PathBuf;

#[test]
fn test_airwaves_beats_dump1090_mutability() {
    let bench = PathBuf::from(env!("CARGO_BIN_EXE_modes_vs_dump1090"));
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
    support::run_check(
        &bench,
        &args,
        " (is dump1090-mutability installed? scripts/setup --test installs it)",
    );
}
