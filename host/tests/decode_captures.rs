//! `airwaves decode` on the real captures in `../shared/data/adsb`: every
//! frame listed in each `*.frames.txt` is printed, in every output format.

mod support;

use std::path::PathBuf;
use std::process::Command;

fn data_dir() -> Option<PathBuf> {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/adsb");
    d.is_dir().then_some(d)
}

/// The hex frames listed in a `*.frames.txt` (third column), upper case.
fn listed(path: &PathBuf) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("frames list")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            l.split_whitespace()
                .nth(2)
                .expect("hex column")
                .to_uppercase()
        })
        .collect()
}

fn decode(args: &[&str]) -> (String, String, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_airwaves"))
        .arg("decode")
        .args(args)
        .output()
        .expect("run airwaves");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.success(),
    )
}

#[test]
fn every_listed_frame_is_decoded() {
    let Some(dir) = data_dir() else {
        support::skip_missing_shared("../shared/data/adsb");
        return;
    };
    let cases = [
        ("capture_1641427457780_2400k", "2400000"),
        ("capture_1641428106243_2400k", "2400000"),
        ("capture_1641428165033_2400k", "2400000"),
        ("modes1_2000k", "2000000"),
    ];
    for (name, rate) in cases {
        let cu8 = dir.join(format!("{name}.cu8"));
        let want = listed(&dir.join(format!("{name}.frames.txt")));
        let (avr_ts, _, ok) = decode(&["--rate", rate, cu8.to_str().unwrap()]);
        assert!(ok);
        let (avr, _, ok) = decode(&["--rate", rate, "--format", "avr", cu8.to_str().unwrap()]);
        assert!(ok);
        let (json, _, ok) = decode(&["--rate", rate, "--format", "json", cu8.to_str().unwrap()]);
        assert!(ok);
        let got_ts: Vec<&str> = avr_ts.lines().map(|l| &l[13..l.len() - 1]).collect();
        let got: Vec<&str> = avr.lines().map(|l| &l[1..l.len() - 1]).collect();
        assert_eq!(got_ts, got, "{name}: avr and avr-ts carry the same frames");
        assert_eq!(
            json.lines().count(),
            got.len(),
            "{name}: one JSON object per frame"
        );
        for w in &want {
            assert!(got.contains(&w.as_str()), "{name}: {w} not decoded");
        }
        assert!(got.len() >= want.len(), "{name}");
        eprintln!("{name}: {} listed, {} decoded", want.len(), got.len());
    }
}

#[test]
fn unreadable_input_is_a_clear_error() {
    let (out, err, ok) = decode(&["/nonexistent/file.cu8"]);
    assert!(!ok && out.is_empty());
    assert!(err.contains("cannot read /nonexistent/file.cu8"), "{err}");
    let (_, err, ok) = decode(&["--rate", "1000000", "/dev/null"]);
    assert!(!ok && err.contains("rate"), "{err}");
}
