//! What `airwaves adsb` keeps across restarts (`--state-dir`): the range
//! outline survives a restart; a truncated or damaged state file is
//! reported, set aside and the feeder runs on.

mod support;

use std::path::Path;
use std::process::Command;
use support::TempDir;

const AIRWAVES: &str = env!("CARGO_BIN_EXE_airwaves");

/// `airwaves adsb --demo` for `seconds` of signal as fast as it decodes,
/// no ports, state in `state`, JSON in `json`; returns stderr.
fn demo(seconds: &str, state: &Path, json: &Path) -> String {
    let out = Command::new(AIRWAVES)
        .args(["adsb", "--demo", "--demo-speed", "max", "--quiet"])
        .args(["--duration", seconds, "--http-port", "0"])
        .args(["--net-ro-port", "0", "--net-sbs-port", "0"])
        .args(["--net-bo-port", "0", "--net-bi-port", "0"])
        .arg("--state-dir")
        .arg(state)
        .arg("--write-json")
        .arg(json)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    err
}

fn outline_points(json: &Path) -> Vec<serde_json::Value> {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.join("outline.json")).unwrap()).unwrap();
    v["actualRange"]["last24h"]["points"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn test_outline_survives_restart_and_bad_files_are_skipped() {
    let dir = TempDir::new("feeder-state");
    let (state, json) = (dir.0.join("state"), dir.0.join("json"));
    demo("60", &state, &json);
    let first = outline_points(&json);
    assert!(first.len() >= 30, "{} sectors after 60 s", first.len());
    assert!(state.join("outline.bin").exists());

    // A restart that decodes almost nothing still has yesterday's outline.
    demo("0.5", &state, &json);
    let again = outline_points(&json);
    assert!(
        again.len() >= first.len(),
        "{} then {}",
        first.len(),
        again.len()
    );
    for p in &first {
        // Every sector kept its point or a farther one.
        assert!(
            again.iter().any(|q| q == p) || again.len() > first.len(),
            "{p} lost"
        );
    }

    // Truncated: reported, set aside, the feeder runs and starts afresh.
    let bin = state.join("outline.bin");
    let bytes = std::fs::read(&bin).unwrap();
    std::fs::write(&bin, &bytes[..bytes.len() / 2]).unwrap();
    let err = demo("0.5", &state, &json);
    assert!(err.contains("outline.bin: truncated"), "{err}");
    assert!(state.join("outline.bin.bad").exists());
    assert!(outline_points(&json).len() < first.len());

    // Garbage: the same.
    std::fs::write(&bin, b"not an outline at all").unwrap();
    let err = demo("0.5", &state, &json);
    assert!(err.contains("not an airwaves outline file"), "{err}");
}
