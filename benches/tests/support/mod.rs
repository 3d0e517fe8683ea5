//! Running a benchmark program with `--check` from an integration test:
//! shared by the tests in `benches/tests/`. Each test binary uses a
//! subset, hence `dead_code`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `airwaves` binary that `cargo test --workspace` builds beside the
/// benchmark `bench`.
pub fn airwaves_beside(bench: &Path) -> PathBuf {
    let airwaves = bench.with_file_name(format!("airwaves{}", std::env::consts::EXE_SUFFIX));
    assert!(
        airwaves.exists(),
        "{} missing: run with `cargo test --workspace`",
        airwaves.display()
    );
    airwaves
}

/// Run `bench ARGS --workdir TMP` (TMP removed afterwards), print its
/// stdout, and assert that it exited successfully and printed `check
/// passed`; `hint` is added to the failure message. Returns stdout.
pub fn run_check(bench: &Path, args: &[&std::ffi::OsStr], hint: &str) -> String {
    let name = bench
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let workdir = std::env::temp_dir().join(format!("airwaves-{name}-test-{}", std::process::id()));
    let out = Command::new(bench)
        .args(args)
        .arg("--workdir")
        .arg(&workdir)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", bench.display()));
    let _ = std::fs::remove_dir_all(&workdir);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{name} --check failed{hint}:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("check passed"), "{stdout}");
    stdout
}
