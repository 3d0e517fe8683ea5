//! The whole feeder's cost on an 8 s scene: `airwaves adsb` and Debian's
//! `dump1090-mutability` (a real peer, installed by `scripts/setup --test`)
//! each read it at real-time pace with AVR, SBS and Beast outputs, 10
//! clients and, for airwaves, HTTP polls. Passes when both run cleanly,
//! every airwaves client receives frames, airwaves serves `aircraft.json`
//! and its Beast clients get at least as many messages as
//! dump1090-mutability's. CPU share and peak RSS against issue 5's targets
//! (10 % of one core, 30 MiB) are printed, not asserted: the machine is
//! shared.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn test_feeder_cost_against_dump1090_mutability() {
    let bench = PathBuf::from(env!("CARGO_BIN_EXE_feeder_cost"));
    // `cargo test --workspace` builds the `airwaves` binary beside ours.
    let airwaves = bench.with_file_name(format!("airwaves{}", std::env::consts::EXE_SUFFIX));
    assert!(
        airwaves.exists(),
        "{} missing: run with `cargo test --workspace`",
        airwaves.display()
    );
    let workdir =
        std::env::temp_dir().join(format!("airwaves-feeder-cost-test-{}", std::process::id()));
    let out = Command::new(&bench)
        .args(["--seconds", "8", "--check"])
        .arg("--airwaves")
        .arg(&airwaves)
        .arg("--workdir")
        .arg(&workdir)
        .output()
        .expect("run feeder_cost");
    let _ = std::fs::remove_dir_all(&workdir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "feeder_cost --check failed (is dump1090-mutability installed? scripts/setup --test installs it):\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("check passed"), "{stdout}");
}
