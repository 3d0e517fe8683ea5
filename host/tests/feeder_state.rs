//! What `airwaves adsb` keeps across restarts (`--state-dir`): the range
//! outline survives a restart; a truncated or damaged state file is
//! reported, set aside and the feeder runs on.

mod support;

use std::path::Path;
use std::process::Command;
use support::TempDir;

const AIRWAVES: &str = env!("CARGO_BIN_EXE_airwaves");

/// `airwaves adsb --demo` for `seconds` of signal as fast as it decodes,
/// no ports, state in `state`, JSON in `json`, `extra` options; returns
/// stderr.
fn demo_with(seconds: &str, state: &Path, json: &Path, extra: &[&std::ffi::OsStr]) -> String {
    let out = Command::new(AIRWAVES)
        .args(["adsb", "--demo", "--demo-speed", "max", "--quiet"])
        .args(["--duration", seconds, "--http-port", "0"])
        .args(support::NO_OUTPUT_PORTS)
        .args(["--net-bi-port", "0"])
        .arg("--state-dir")
        .arg(state)
        .arg("--write-json")
        .arg(json)
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    err
}

fn demo(seconds: &str, state: &Path, json: &Path) -> String {
    demo_with(seconds, state, json, &[])
}

fn aircraft(json: &Path) -> Vec<serde_json::Value> {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.join("aircraft.json")).unwrap()).unwrap();
    v["aircraft"].as_array().unwrap().clone()
}

/// `--db-file` in tar1090-db's form (gzipped here) adds type and operator
/// to aircraft.json; a file that is not one is reported and skipped.
#[test]
fn test_db_file() {
    let dir = TempDir::new("feeder-db");
    let (state, json) = (dir.0.join("state"), dir.0.join("json"));
    demo("20", &state, &json);
    let hexes: Vec<String> = aircraft(&json)
        .iter()
        .filter_map(|a| a["hex"].as_str().map(str::to_uppercase))
        .filter(|h| !h.starts_with('~'))
        .collect();
    assert!(hexes.len() >= 10, "{} aircraft", hexes.len());
    let mut csv = String::new();
    for (i, h) in hexes.iter().enumerate() {
        csv.push_str(&format!(
            "{h};TEST-{i};B738;00;BOEING 737-800;2001;Test Air\n"
        ));
    }
    let db = dir.0.join("aircraft.csv.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, csv.as_bytes()).unwrap();
    std::fs::write(&db, gz.finish().unwrap()).unwrap();
    let err = demo_with("20", &state, &json, &["--db-file".as_ref(), db.as_os_str()]);
    assert!(err.contains(&format!("{} aircraft", hexes.len())), "{err}");
    let typed = aircraft(&json)
        .iter()
        .filter(|a| a["t"] == "B738" && a["ownOp"] == "Test Air")
        .count();
    assert!(typed >= 10, "{typed} aircraft with the database's type");
    // Not a database: said so, and the feeder runs without it.
    std::fs::write(&db, b"garbage").unwrap();
    let err = demo_with("1", &state, &json, &["--db-file".as_ref(), db.as_os_str()]);
    assert!(err.contains("going on without it"), "{err}");
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
    assert!(state.join("series.bin").exists(), "the graphs' series");
    let chunks = |dir: &Path| -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = std::fs::read_dir(dir.join("history"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "bin"))
            .collect();
        v.sort();
        v
    };
    let history = chunks(&state);
    assert!(!history.is_empty(), "the replay's history");

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

    // The history is still there after the restart (and grew).
    let after: Vec<_> = chunks(&state);
    assert!(
        history.iter().all(|p| after.contains(p)),
        "{history:?} then {after:?}"
    );
    // A truncated history chunk is reported and left out, never fatal.
    let last = after.last().unwrap().clone();
    let b = std::fs::read(&last).unwrap();
    std::fs::write(&last, &b[..b.len() - 3]).unwrap();
    let err = demo("0.5", &state, &json);
    assert!(err.contains("truncated; left out of the replay"), "{err}");

    // Truncated: reported, set aside, the feeder runs and starts afresh.
    let bin = state.join("outline.bin");
    let bytes = std::fs::read(&bin).unwrap();
    std::fs::write(&bin, &bytes[..bytes.len() / 2]).unwrap();
    let err = demo("0.5", &state, &json);
    assert!(err.contains("outline.bin: truncated"), "{err}");
    assert!(state.join("outline.bin.bad").exists());
    assert!(outline_points(&json).len() < first.len());

    // Garbage: the same, for the graphs' series too.
    std::fs::write(&bin, b"not an outline at all").unwrap();
    std::fs::write(state.join("series.bin"), b"AWSERIE1 but cut").unwrap();
    let err = demo("0.5", &state, &json);
    assert!(err.contains("not an airwaves outline file"), "{err}");
    assert!(
        err.contains("series.bin: truncated; starting new graphs"),
        "{err}"
    );
}
