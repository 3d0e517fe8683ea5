//! `airwaves adsb --uat-device`: a second, 978 MHz receiver in the
//! feeder, on the real binary. A generated UAT scene (`airwaves scene
//! --uat`) is the second source; its aircraft must appear in
//! aircraft.json as readsb shows UAT targets, marked as heard on UAT,
//! next to the 1090 MHz aircraft of a Mode S scene, and on the Beast
//! output with readsb's UAT timestamp. A second dongle that is not there
//! is reported and the 1090 MHz side goes on.

mod support;

use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_airwaves");

/// A UAT scene in `dir`, the addresses of its downlink messages and
/// every message as a raw line's first field (`-hex` or `+hex`).
fn uat_scene(
    dir: &Path,
    seconds: &str,
    aircraft: &str,
) -> (std::path::PathBuf, BTreeSet<String>, BTreeSet<String>) {
    let (cu8, truth) = support::make_uat_scene(
        dir,
        &[
            "--seconds",
            seconds,
            "--aircraft",
            aircraft,
            "--snr-min",
            "15",
            "--snr-max",
            "25",
        ],
    );
    let fields: Vec<Vec<&str>> = truth
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(' ').collect())
        .collect();
    let addresses = fields
        .iter()
        .filter(|f| f[1] == "-")
        .map(|f| f[2][2..8].to_owned())
        .collect();
    let lines = fields.iter().map(|f| format!("{}{}", f[1], f[2])).collect();
    (cu8, addresses, lines)
}

fn aircraft(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("aircraft.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["aircraft"].as_array().unwrap().clone()
}

#[test]
fn test_uat_only_feeder_tracks_the_scene() {
    let dir = TempDir::new("uat-feeder");
    let (cu8, sent, messages) = uat_scene(&dir.0, "4", "12");
    assert_eq!(sent.len(), 12);
    let json = dir.0.join("json");
    let (port, raw_port) = (support::free_port(), support::free_port());
    let mut peer = support::Peer::spawn({
        let mut c = Command::new(BIN);
        c.args(["adsb", "--net-only", "--net-bi-port", "0"])
            .args(["--net-ro-port", "0", "--net-sbs-port", "0"])
            .args(["--net-bo-port", &port.to_string()])
            .args(["--net-uat-raw-port", &raw_port.to_string()])
            .args(["--net-uat-json-port", "0"])
            .arg("--uat-device")
            .arg(format!("file:{}", cu8.display()))
            .args(["--duration", "6", "--write-json"])
            .arg(&json);
        c
    });
    // Beast output: every UAT frame carries readsb's UAT timestamp.
    let mut beast = support::connect(port, Duration::from_secs(10));
    // dump978-fa's raw lines on the UAT port, read to the end.
    let raw = support::connect(raw_port, Duration::from_secs(10));
    let raw = std::thread::spawn(move || {
        let mut text = String::new();
        let mut raw = raw;
        let _ = raw.set_read_timeout(Some(Duration::from_secs(20)));
        let _ = raw.read_to_string(&mut text);
        text
    });
    beast
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while got.len() < 23 * 20 {
        match beast.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    assert!(peer.wait_exit(Duration::from_secs(30)), "{}", peer.log());
    let log = peer.log();
    assert!(log.contains("UAT receiver: file"), "{log}");
    // 0x1A, type '3' (long frame), the 6-byte timestamp "\xFF\0MLAU".
    assert!(got.len() >= 23, "{} bytes of Beast", got.len());
    assert_eq!(&got[..8], &[0x1A, b'3', 0xFF, 0x00, 0x4D, 0x4C, 0x41, 0x55]);

    let raw = raw.join().unwrap();
    let lines: Vec<&str> = raw.lines().collect();
    assert!(lines.len() >= 20, "{} raw lines", lines.len());
    for l in &lines {
        let first = l.split(';').next().unwrap();
        assert!(messages.contains(first), "not sent: {l}");
        assert!(l.contains(";rssi=") && l.contains(";t="), "{l}");
    }

    let list = aircraft(&json);
    let seen: BTreeSet<String> = list
        .iter()
        .map(|a| a["hex"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(seen, sent, "{list:#?}");
    for a in &list {
        assert_eq!(a["type"], "adsr_icao", "{a}");
        assert_eq!(a["links"], serde_json::json!(["uat"]), "{a}");
        // The scene's aircraft fly around Denver, 1,000–18,000 ft.
        let (lat, lon) = (a["lat"].as_f64().unwrap(), a["lon"].as_f64().unwrap());
        assert!(
            (37.0..43.0).contains(&lat) && (-109.0..-101.0).contains(&lon),
            "{a}"
        );
        assert!(
            a["alt_baro"].as_i64().is_some() && a["gs"].as_f64().is_some(),
            "{a}"
        );
        assert!(a["flight"].as_str().is_some(), "{a}");
    }
}

#[test]
fn test_missing_uat_dongle_leaves_1090_running() {
    let dir = TempDir::new("uat-missing");
    let scene = support::make_scene(&dir.0, 1.0, 3);
    let json = dir.0.join("json");
    let out = Command::new(BIN)
        .arg("adsb")
        .arg("--ifile")
        .arg(&scene)
        .args(["--uat-device", "7"])
        .arg("--write-json")
        .arg(&json)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("UAT receiver:"), "{stderr}");
    // The 1090 MHz scene was decoded all the same.
    let list = aircraft(&json);
    assert!(list.len() > 10, "{}", list.len());
    assert!(list.iter().all(|a| a.get("links").is_none()));
}
