//! airwaves against Debian's `dump1090-mutability` (a real peer, installed
//! by `scripts/setup --test`) on the 10 s scene of the README (seed 1):
//! more frames in every SNR band where dump1090-mutability decodes any, at
//! least 1.1× its total, no more false frames. The figures are printed.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn test_airwaves_beats_dump1090_mutability() {
    let bench = PathBuf::from(env!("CARGO_BIN_EXE_modes_vs_dump1090"));
    // `cargo test --workspace` builds the `airwaves` binary beside ours.
    let airwaves = bench.with_file_name(format!("airwaves{}", std::env::consts::EXE_SUFFIX));
    assert!(
        airwaves.exists(),
        "{} missing: run with `cargo test --workspace`",
        airwaves.display()
    );
    let workdir = std::env::temp_dir().join(format!("airwaves-bench-test-{}", std::process::id()));
    let out = Command::new(&bench)
        .args([
            "--seconds",
            "10",
            "--seed",
            "1",
            "--no-callgrind",
            "--check",
        ])
        .arg("--airwaves")
        .arg(&airwaves)
        .arg("--workdir")
        .arg(&workdir)
        .output()
        .expect("run modes_vs_dump1090");
    let _ = std::fs::remove_dir_all(&workdir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "modes_vs_dump1090 --check failed (is dump1090-mutability installed? scripts/setup --test installs it):\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("check passed"), "{stdout}");
}
