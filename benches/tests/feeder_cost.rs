//! The whole feeder's cost on an 8 s scene: `airwaves adsb` and Debian's
//! `dump1090-mutability` (a real peer, installed by `scripts/setup --test`)
//! each read it at real-time pace with AVR, SBS and Beast outputs, 10
//! clients and, for airwaves, HTTP polls. Passes when both run cleanly,
//! every airwaves client receives frames, airwaves serves `aircraft.json`
//! and its Beast clients get at least as many messages as
//! dump1090-mutability's. CPU share and peak RSS against issue 5's targets
//! (10 % of one core, 30 MiB) are printed, not asserted: the machine is
//! shared.

mod support;

use std::ffi::OsStr;
use std::path::PathBuf;

#[test]
fn test_feeder_cost_against_dump1090_mutability() {
    let bench = PathBuf::from(env!("CARGO_BIN_EXE_feeder_cost"));
    let airwaves = support::airwaves_beside(&bench);
    let mut args: Vec<&OsStr> = ["--seconds", "8", "--check"].map(OsStr::new).to_vec();
    args.extend([OsStr::new("--airwaves"), airwaves.as_os_str()]);
    support::run_check(
        &bench,
        &args,
        " (is dump1090-mutability installed? scripts/setup --test installs it)",
    );
}
