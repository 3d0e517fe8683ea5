//! `airwaves uat` on the real binary: a generated 978 MHz scene
//! (`airwaves scene --uat`) in, dump978-fa's raw lines out, every line a
//! message of the truth list, from a file and from stdin alike.

mod support;

use std::io::Write;
use std::process::{Command, Stdio};
use support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_airwaves");

#[test]
fn test_uat_scene_to_raw_lines() {
    let dir = TempDir::new("uat");
    let (cu8, truth) = support::make_uat_scene(
        &dir.0,
        &[
            "--seconds",
            "3",
            "--aircraft",
            "15",
            "--uplinks",
            "2",
            "--snr-min",
            "15",
            "--snr-max",
            "25",
        ],
    );
    let sent: Vec<String> = truth
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            format!("{}{}", f[1], f[2])
        })
        .collect();
    assert_eq!(sent.iter().filter(|s| s.starts_with('+')).count(), 6);

    let out = Command::new(BIN)
        .arg("uat")
        .arg("--ifile")
        .arg(&cu8)
        .output()
        .unwrap();
    assert!(out.status.success());
    let lines = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("6 uplink"), "{stderr}");
    let mut n = 0;
    for line in lines.lines() {
        let fields: Vec<&str> = line.split(';').collect();
        assert!(sent.contains(&fields[0].to_string()), "not sent: {line}");
        assert!(fields.iter().any(|f| f.starts_with("rssi=")), "{line}");
        assert!(fields.iter().any(|f| f.starts_with("t=")), "{line}");
        n += 1;
    }
    // All but overlapped messages (a few) are found at 15–25 dB.
    let clean = truth.lines().filter(|l| l.ends_with(" -")).count();
    assert!(n >= clean, "{n} lines, {clean} clean messages");

    // The same from stdin.
    let mut child = Command::new(BIN)
        .args(["uat", "--ifile", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(&cu8).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let piped = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert_eq!(String::from_utf8(piped.stdout).unwrap(), lines);
}

/// A live source (the dongle emulator playing a scene at its real rate)
/// to a raw-line client on `--raw-port`, as piaware or readsb connect to
/// dump978-fa's 30978: every line is a message that was sent, its time
/// the time of day; the run ends at the recording's end (the emulator's
/// "unplugged", reported after the summary) and the client sees the
/// connection close.
#[test]
fn test_uat_raw_port_from_the_emulator() {
    use std::io::{BufRead, BufReader};
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    let dir = TempDir::new("uat-port");
    let (cu8, truth) = support::make_uat_scene(
        &dir.0,
        &[
            "--seconds",
            "3",
            "--aircraft",
            "20",
            "--uplinks",
            "2",
            "--snr-min",
            "15",
            "--snr-max",
            "25",
        ],
    );
    let (port, json_port) = (support::free_port(), support::free_port());
    let mut cmd = Command::new(BIN);
    cmd.args(["uat", "--quiet", "--raw-port", &port.to_string()])
        .args(["--json-port", &json_port.to_string()])
        .arg("--fake-device")
        .arg(format!("r820t,file={}", cu8.display()));
    let mut peer = support::Peer::spawn(cmd);
    let json_client = support::connect(json_port, Duration::from_secs(10));
    let json_reader = std::thread::spawn(move || {
        BufReader::new(json_client)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<String>>()
    });
    let client = support::connect(port, Duration::from_secs(10));
    client
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut lines = Vec::new();
    for line in BufReader::new(client).lines() {
        match line {
            Ok(l) => lines.push(l),
            Err(e) => panic!("read: {e}; {}", peer.log()),
        }
    }
    assert!(peer.wait_exit(Duration::from_secs(20)), "{}", peer.log());
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let clean = truth.lines().filter(|l| l.ends_with(" -")).count();
    assert!(
        lines.len() * 2 >= clean,
        "{} lines of {clean}: {}",
        lines.len(),
        peer.log()
    );
    for l in &lines {
        let fields: Vec<&str> = l.split(';').collect();
        let (link, hex) = fields[0].split_at(1);
        assert!(truth.contains(&format!(" {link} {hex} ")), "not sent: {l}");
        let t: f64 = fields
            .iter()
            .find_map(|f| f.strip_prefix("t="))
            .unwrap()
            .parse()
            .unwrap();
        assert!((now - t).abs() < 120.0, "time of day: {l}");
    }
    // dump978-fa's JSON for the downlink messages: addresses sent, a
    // position and the metadata on each.
    let json = json_reader.join().unwrap();
    let downlink = lines.iter().filter(|l| l.starts_with('-')).count();
    assert!(
        json.len() + 2 >= downlink && !json.is_empty(),
        "{} JSON, {downlink} raw",
        json.len()
    );
    for j in &json {
        let v: serde_json::Value = serde_json::from_str(j).unwrap();
        let address = v["address"].as_str().unwrap();
        let sent = truth.lines().any(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            f.len() > 2 && f[1] == "-" && f[2].get(2..8) == Some(address)
        });
        assert!(sent, "{j}");
        assert_eq!(v["address_qualifier"], "adsb_icao", "{j}");
        assert!(v["position"]["lat"].as_f64().is_some(), "{j}");
        assert!(v["metadata"]["rssi"].as_f64().is_some(), "{j}");
    }
    let log = peer.log();
    assert!(log.contains("uplink messages"), "{log}");
    assert!(log.lines().last().unwrap().contains("gone"), "{log}");
}
