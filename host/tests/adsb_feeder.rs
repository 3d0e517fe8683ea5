//! `airwaves adsb` end to end, with real peers on 127.0.0.1: our own
//! `decode` as the reference, pyModeS's `modes live` on the Beast port,
//! an SBS consumer, Debian's `rtl_tcp` on fakeusb, a lost (emulated)
//! dongle, slow, many and hostile clients.

mod support;

use airwaves_core::modes::encode::{BeastDecoder, StreamDecoder};
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};
use support::{
    Peer, TempDir, connect, free_port, have, http_get, http_raw, listener, make_scene, sink,
};

const AIRWAVES: &str = env!("CARGO_BIN_EXE_airwaves");
/// The scene generator's traffic is centred here.
const LAT: &str = "52.3";
const LON: &str = "4.8";

/// `airwaves decode --format FORMAT` lines of `cu8`.
fn decode_lines(cu8: &Path, format: &str, extra: &[&str]) -> Vec<String> {
    let out = Command::new(AIRWAVES)
        .args(["decode", "--format", format])
        .args(extra)
        .arg(cu8)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Beast messages of a byte stream as `@TTTTTTTTTTTTHEX;` lines (the
/// `decode --format avr-ts` form), with their signal bytes.
fn beast_as_avr_ts(bytes: &[u8]) -> (Vec<String>, Vec<u8>) {
    let mut d = BeastDecoder::new();
    let mut lines = Vec::new();
    let mut signals = Vec::new();
    for m in d.feed(bytes) {
        let mut s = format!("@{:012X}", m.timestamp.map_or(0, |t| t.ticks()));
        for b in m.frame() {
            s.push_str(&format!("{b:02X}"));
        }
        s.push(';');
        lines.push(s);
        signals.push(m.signal.unwrap_or(0));
    }
    (lines, signals)
}

/// `airwaves adsb --net` near the scene's traffic with `extra` options;
/// every listening port is off unless `extra` sets it.
fn feeder(extra: &[&str]) -> Command {
    let mut c = Command::new(AIRWAVES);
    c.args(["adsb", "--net", "--lat", LAT, "--lon", LON]);
    for flag in [
        "--net-ro-port",
        "--net-sbs-port",
        "--net-bo-port",
        "--net-bi-port",
    ] {
        if !extra.contains(&flag) {
            c.args([flag, "0"]);
        }
    }
    c.args(extra);
    c
}

/// A replayed scene through outgoing connectors: the Beast stream carries
/// exactly the frames and 12 MHz timestamps of `airwaves decode`, the AVR
/// stream exactly its frames, and the SBS stream well-formed BaseStation
/// lines for those aircraft.
#[test]
fn test_connectors_replay_scene_exactly() {
    let dir = TempDir::new("adsb-replay");
    let cu8 = make_scene(&dir.0, 4.0, 3);
    let want_ts = decode_lines(&cu8, "avr-ts", &[]);
    let want_avr = decode_lines(&cu8, "avr", &[]);
    assert!(want_ts.len() > 1000, "{} frames", want_ts.len());

    let (lb, pb) = listener();
    let (lr, pr) = listener();
    let (ls, ps) = listener();
    let (beast, raw, sbs) = (sink(lb), sink(lr), sink(ls));
    let json = dir.0.join("json");
    let mut p = Peer::spawn({
        let mut c = feeder(&["--quiet", "--write-json"]);
        c.arg(&json).arg("--ifile").arg(&cu8);
        for (port, proto) in [(pb, "beast_out"), (pr, "raw_out"), (ps, "sbs_out")] {
            c.args(["--net-connector", &format!("127.0.0.1,{port},{proto}")]);
        }
        c
    });
    assert!(p.wait_exit(Duration::from_secs(60)), "{}", p.log());
    assert!(
        p.child.try_wait().unwrap().unwrap().success(),
        "{}",
        p.log()
    );

    let (got_ts, signals) = beast_as_avr_ts(&beast.join().unwrap());
    assert_eq!(got_ts.len(), want_ts.len(), "Beast frame count");
    assert_eq!(got_ts, want_ts, "Beast frames and timestamps");
    // The signal byte is the frame's level: none of a decoded frame is 0.
    assert!(signals.iter().all(|&s| s > 0));

    let raw = String::from_utf8(raw.join().unwrap()).unwrap();
    let got_avr: Vec<&str> = raw.lines().collect();
    assert_eq!(got_avr, want_avr, "AVR frames");

    let sbs = String::from_utf8(sbs.join().unwrap()).unwrap();
    let frames_by_addr: HashSet<String> = decode_lines(&cu8, "json", &[])
        .iter()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            Some(v["icao"].as_str()?.to_ascii_uppercase())
        })
        .collect();
    let mut by_type = [0usize; 9];
    for line in sbs.lines() {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 22, "{line}");
        assert_eq!(f[0], "MSG", "{line}");
        let t: usize = f[1].parse().unwrap();
        assert!((1..=8).contains(&t), "{line}");
        by_type[t] += 1;
        assert!(frames_by_addr.contains(f[4]), "unknown address: {line}");
        assert_eq!(f[6].len(), 10, "date {line}");
        assert_eq!(f[7].len(), 12, "time {line}");
        if t == 3 && !f[14].is_empty() {
            let lat: f64 = f[14].parse().unwrap();
            let lon: f64 = f[15].parse().unwrap();
            assert!(
                (lat - 52.3).abs() < 5.0 && (lon - 4.8).abs() < 8.0,
                "{line}"
            );
        }
        if t == 1 {
            assert!(!f[10].is_empty(), "callsign in {line}");
        }
    }
    println!("SBS lines by type: {by_type:?}");
    for t in [1, 3, 4, 5, 6, 8] {
        assert!(by_type[t] > 0, "no MSG,{t}: {by_type:?}");
    }
    assert!(
        sbs.lines()
            .any(|l| l.starts_with("MSG,3,") && !l.split(',').nth(14).unwrap().is_empty())
    );

    // --write-json left the final state.
    let aircraft: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.join("aircraft.json")).unwrap()).unwrap();
    let list = aircraft["aircraft"].as_array().unwrap();
    assert!(list.len() >= 50, "{} aircraft", list.len());
    let with_pos = list.iter().filter(|a| a["lat"].is_number()).count();
    assert!(with_pos >= 30, "{with_pos} with a position");
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.join("stats.json")).unwrap()).unwrap();
    assert_eq!(
        stats["total"]["local"]["modes"].as_u64(),
        Some(want_ts.len() as u64),
        "{stats}"
    );
    let receiver: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.join("receiver.json")).unwrap()).unwrap();
    assert_eq!(receiver["lat"].as_f64(), Some(52.3));
}

/// `--net-only` aggregation: one feeder replays a scene into another's
/// Beast input; the second one's Beast output carries the same frames.
#[test]
fn test_net_only_aggregates_beast_input() {
    let dir = TempDir::new("adsb-netonly");
    let cu8 = make_scene(&dir.0, 2.0, 5);
    let want = decode_lines(&cu8, "avr-ts", &[]);
    let bi = free_port();
    let (lb, pb) = listener();
    let mut hub = Peer::spawn(feeder(&[
        "--net-only",
        "--net-bi-port",
        &bi.to_string(),
        "--net-connector",
        &format!("127.0.0.1,{pb},beast_out"),
        "--duration",
        "30",
    ]));
    // The hub's connector is up before anything is sent through it.
    let (mut conn, _) = lb.accept().unwrap();
    let out = thread::spawn(move || {
        let mut v = Vec::new();
        conn.read_to_end(&mut v).unwrap();
        v
    });
    drop(connect(bi, Duration::from_secs(10)));
    let mut src = Peer::spawn({
        let mut c = feeder(&[
            "--quiet",
            "--net-connector",
            &format!("127.0.0.1,{bi},beast_out"),
        ]);
        c.arg("--ifile").arg(&cu8);
        c
    });
    assert!(src.wait_exit(Duration::from_secs(60)), "{}", src.log());
    // Give the hub a moment to forward, then stop it.
    let t0 = Instant::now();
    thread::sleep(Duration::from_secs(2));
    let _ = hub.child.kill();
    let _ = hub.child.wait();
    let (got, _) = beast_as_avr_ts(&out.join().unwrap());
    // Remote frames of aircraft first heard as AP replies are dropped until
    // their address is known: everything forwarded was sent, and nearly
    // everything sent was forwarded.
    println!(
        "--net-only forwarded {} of {} frames",
        got.len(),
        want.len()
    );
    let sent: HashSet<&String> = want.iter().collect();
    assert!(got.iter().all(|l| sent.contains(l)), "unexpected frames");
    assert!(
        got.len() * 100 >= want.len() * 95,
        "forwarded {} of {} in {:?}",
        got.len(),
        want.len(),
        t0.elapsed()
    );
}

/// pyModeS (`modes live`, a real Beast client) decodes our Beast port to
/// the frames and positions we report.
#[test]
fn test_pymodes_live_decodes_our_beast_stream() {
    if !have("modes") {
        return;
    }
    let dir = TempDir::new("adsb-pymodes");
    let cu8 = make_scene(&dir.0, 12.0, 1);
    // Per frame: our positions (decode --format json, with the receiver).
    let ours: HashMap<String, serde_json::Value> =
        decode_lines(&cu8, "json", &["--lat", LAT, "--lon", LON])
            .iter()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (v["hex"].as_str().unwrap().to_ascii_uppercase(), v)
            })
            .collect();
    let port = free_port();
    let mut feeder = Peer::spawn({
        let mut c = feeder(&["--quiet", "--throttle", "--net-bo-port", &port.to_string()]);
        c.arg("--ifile").arg(&cu8);
        c
    });
    drop(connect(port, Duration::from_secs(10)));
    let dump = dir.0.join("pymodes.jsonl");
    let mut modes = Peer::spawn({
        let mut c = Command::new("modes");
        c.args([
            "live",
            "--network",
            &format!("127.0.0.1:{port}"),
            "--quiet",
            "--dump-to",
        ])
        .arg(&dump);
        c
    });
    assert!(
        feeder.wait_exit(Duration::from_secs(60)),
        "{}",
        feeder.log()
    );
    thread::sleep(Duration::from_secs(2));
    let _ = modes.child.kill();
    let _ = modes.child.wait();
    let text = std::fs::read_to_string(&dump).unwrap_or_default();
    let mut frames = HashSet::new();
    let mut positions = 0;
    for line in text.lines() {
        let v: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(_) => continue,
        };
        let Some(msg) = v["raw_msg"].as_str() else {
            continue;
        };
        let msg = msg.to_ascii_uppercase();
        let mine = ours
            .get(&msg)
            .unwrap_or_else(|| panic!("pyModeS got a frame we did not decode: {line}"));
        frames.insert(msg.clone());
        let icao = v["icao"].as_str().unwrap_or("").to_ascii_uppercase();
        assert_eq!(
            icao,
            mine["icao"].as_str().unwrap().to_ascii_uppercase(),
            "{line}"
        );
        if let (Some(lat), Some(lon)) = (v["latitude"].as_f64(), v["longitude"].as_f64())
            && let (Some(my_lat), Some(my_lon)) =
                (mine["lat_deg"].as_f64(), mine["lon_deg"].as_f64())
        {
            positions += 1;
            assert!(
                (lat - my_lat).abs() < 1e-3 && (lon - my_lon).abs() < 1e-3,
                "pyModeS {lat},{lon} vs ours {my_lat},{my_lon}: {line}"
            );
        }
    }
    println!(
        "pyModeS decoded {} of our {} distinct frames, {positions} positions compared",
        frames.len(),
        ours.len()
    );
    // pyModeS connects a moment after the replay starts.
    assert!(
        frames.len() * 10 > ours.len() * 9,
        "{} of {}\n{}",
        frames.len(),
        ours.len(),
        modes.log()
    );
    assert!(
        positions > 100,
        "{positions} positions\n{}",
        &text[..text.len().min(2000)]
    );
}

/// Whether `python3` can import `module`; says so when it cannot.
fn python_has(module: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: python3 module {module} missing (scripts/setup --test installs it)");
    }
    ok
}

/// A real SBS consumer, the `py1090` library, reads our BaseStation port:
/// every line parses, and the positions and callsigns it reads are those
/// `airwaves decode` reports for the same frames.
#[test]
fn test_py1090_reads_our_sbs_port() {
    if !python_has("py1090") {
        return;
    }
    let dir = TempDir::new("adsb-py1090");
    let cu8 = make_scene(&dir.0, 6.0, 11);
    let mut positions: HashMap<String, Vec<(f64, f64)>> = HashMap::new();
    let mut callsigns: HashMap<String, String> = HashMap::new();
    for l in decode_lines(&cu8, "json", &["--lat", LAT, "--lon", LON]) {
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        let icao = v["icao"].as_str().unwrap().to_ascii_uppercase();
        if let (Some(lat), Some(lon)) = (v["lat_deg"].as_f64(), v["lon_deg"].as_f64()) {
            positions.entry(icao.clone()).or_default().push((lat, lon));
        }
        if let Some(cs) = v["callsign"].as_str() {
            callsigns.insert(icao, cs.trim().to_string());
        }
    }
    let port = free_port();
    let mut feeder = Peer::spawn({
        let mut c = feeder(&["--quiet", "--throttle", "--net-sbs-port", &port.to_string()]);
        c.arg("--ifile").arg(&cu8);
        c
    });
    let t0 = Instant::now();
    while !support::listening(port) {
        assert!(t0.elapsed() < Duration::from_secs(10), "{}", feeder.log());
        thread::sleep(Duration::from_millis(20));
    }
    const CLIENT: &str = r#"
import json, sys, py1090
c = py1090.Connection("127.0.0.1", int(sys.argv[1]))
out = {"lines": 0, "errors": [], "types": {}, "positions": [], "callsigns": {}}
while True:
    line = c.readline()
    if not line:
        break
    out["lines"] += 1
    try:
        m = py1090.Message.from_string(line)
    except Exception as e:
        out["errors"].append("%r: %s" % (line, e))
        continue
    t = str(m.transmission_type)
    out["types"][t] = out["types"].get(t, 0) + 1
    if m.latitude is not None and m.longitude is not None:
        out["positions"].append([m.hexident, m.latitude, m.longitude])
    if m.callsign:
        out["callsigns"][m.hexident] = m.callsign.strip()
print(json.dumps(out))
"#;
    let client = Command::new("python3")
        .args(["-c", CLIENT, &port.to_string()])
        .output()
        .unwrap();
    assert!(
        feeder.wait_exit(Duration::from_secs(60)),
        "{}",
        feeder.log()
    );
    assert!(
        client.status.success(),
        "{}",
        String::from_utf8_lossy(&client.stderr)
    );
    let got: serde_json::Value = serde_json::from_slice(&client.stdout).unwrap();
    println!(
        "py1090: {} lines, by type {}, {} positions, {} callsigns",
        got["lines"],
        got["types"],
        got["positions"].as_array().unwrap().len(),
        got["callsigns"].as_object().unwrap().len()
    );
    assert!(got["lines"].as_u64().unwrap() > 1000, "{got}");
    assert_eq!(
        got["errors"].as_array().unwrap().len(),
        0,
        "{}",
        got["errors"]
    );
    let pos = got["positions"].as_array().unwrap();
    assert!(pos.len() > 100, "{} positions", pos.len());
    for p in pos {
        let hex = p[0].as_str().unwrap();
        let (lat, lon) = (p[1].as_f64().unwrap(), p[2].as_f64().unwrap());
        let ours = positions.get(hex).map(Vec::as_slice).unwrap_or_default();
        assert!(
            ours.iter()
                .any(|&(a, b)| (a - lat).abs() < 1e-4 && (b - lon).abs() < 1e-4),
            "py1090 read {hex} at {lat},{lon}; airwaves decode has {ours:?}"
        );
    }
    for (hex, cs) in got["callsigns"].as_object().unwrap() {
        assert_eq!(callsigns.get(hex).map(String::as_str), cs.as_str(), "{hex}");
    }
}

/// Debian's rtl_tcp (on fakeusb playing a scene) as the source.
#[test]
fn test_rtl_tcp_source() {
    if !have("rtl_tcp") {
        return;
    }
    let Some(so) = support::fakeusb_so() else {
        return;
    };
    let dir = TempDir::new("adsb-rtltcp");
    let cu8 = make_scene(&dir.0, 2.0, 7);
    let want: HashSet<String> = decode_lines(&cu8, "avr", &[]).into_iter().collect();
    let port = free_port();
    let server = support::debian_rtl_tcp(so, port, &cu8, &dir.0.join("trace.txt"));
    let t0 = Instant::now();
    while !support::listening(port) {
        assert!(t0.elapsed() < Duration::from_secs(10), "{}", server.log());
        thread::sleep(Duration::from_millis(20));
    }
    let (lr, pr) = listener();
    let raw = sink(lr);
    let mut p = Peer::spawn(feeder(&[
        "--quiet",
        "--rtl-tcp",
        &format!("127.0.0.1:{port}"),
        "--net-connector",
        &format!("127.0.0.1,{pr},raw_out"),
        "--duration",
        "6",
    ]));
    assert!(p.wait_exit(Duration::from_secs(30)), "{}", p.log());
    let raw = String::from_utf8(raw.join().unwrap()).unwrap();
    let got: HashSet<&str> = raw.lines().collect();
    let hits = got.iter().filter(|l| want.contains(**l)).count();
    println!(
        "rtl_tcp: {} distinct frames, {hits} of the file's {}",
        got.len(),
        want.len()
    );
    assert!(hits * 100 >= want.len() * 90, "{hits} of {}", want.len());
}

/// A dongle lost mid-stream (the emulator's NoDevice) is reopened by
/// serial; the Beast client stays connected and frames keep coming.
#[test]
fn test_device_loss_keeps_clients() {
    let dir = TempDir::new("adsb-loss");
    let cu8 = make_scene(&dir.0, 2.0, 9);
    let port = free_port();
    let spec = format!(
        "r820t,file={},loop,serial=LOSS0001,fault=nodevice@30",
        cu8.display()
    );
    let mut p = Peer::spawn(feeder(&[
        "--fake-device",
        &spec,
        "--net-bo-port",
        &port.to_string(),
        "--duration",
        "14",
    ]));
    let mut s = connect(port, Duration::from_secs(10));
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let t0 = Instant::now();
    let mut buf = vec![0u8; 65536];
    let mut per_second = [0usize; 16];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => per_second[(t0.elapsed().as_secs() as usize).min(15)] += n,
            Err(e) => panic!("client lost: {e}\n{}", p.log()),
        }
    }
    assert!(p.wait_exit(Duration::from_secs(10)), "{}", p.log());
    let log = p.log();
    println!("{log}\nbytes per second: {per_second:?}");
    assert!(log.contains("lost") || log.contains("reopen"), "{log}");
    let loss = log.lines().position(|l| l.contains("lost")).unwrap();
    assert!(
        log.lines()
            .skip(loss)
            .any(|l| l.contains("reopened") || l.contains("back")),
        "{log}"
    );
    // Data before and after the loss (at ~30 × 256 KiB ≈ 1.6 s in).
    assert!(per_second[..3].iter().sum::<usize>() > 0);
    assert!(
        per_second[8..14].iter().sum::<usize>() > 0,
        "{per_second:?}"
    );
}

/// The demo under load: 100 Beast clients (one never reads), garbage and
/// truncated Beast input, malformed HTTP; everything else keeps working.
#[test]
fn test_demo_survives_slow_many_and_hostile_clients() {
    let (bo, bi, http) = (free_port(), free_port(), free_port());
    let mut p = Peer::spawn({
        let mut c = Command::new(AIRWAVES);
        c.args([
            "adsb",
            "--demo",
            "--quiet",
            "--net-ro-port",
            "0",
            "--net-sbs-port",
            "0",
            "--net-bo-port",
            &bo.to_string(),
            "--net-bi-port",
            &bi.to_string(),
            "--http-port",
            &http.to_string(),
            "--duration",
            "25",
        ]);
        c
    });
    // One client that never reads, with a tiny receive window.
    let slow = connect(bo, Duration::from_secs(10));
    let mut readers: Vec<TcpStream> = (0..99)
        .map(|_| connect(bo, Duration::from_secs(5)))
        .collect();
    for r in &mut readers {
        r.set_nonblocking(true).unwrap();
    }
    // Hostile Beast input: random bytes, lone escapes, truncated frames,
    // then one valid frame of an aircraft not in the sky (KLM1023, ICAO
    // 4840D6, the standard worked example).
    let mut garbage = connect(bi, Duration::from_secs(5));
    let mut x = 0x1234_5678u32;
    let mut junk = vec![0u8; 4 << 20];
    for b in &mut junk {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    junk.extend_from_slice(&[0x1A, b'3', 0, 0, 0, 0x1A, 0x1A, 0x1A]);
    junk.extend_from_slice(&[0x1A, b'2', 1, 2]);
    let valid: [u8; 14] = [
        0x8D, 0x48, 0x40, 0xD6, 0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x2C, 0xE0, 0x57, 0x60, 0x98,
    ];
    let mut good = vec![0x1A, b'3', 0, 0, 0, 0, 0, 1, 0x80];
    good.extend_from_slice(&valid);
    let _ = (garbage.write_all(&junk), garbage.write_all(&good));
    let _ = garbage.shutdown(Shutdown::Write);
    // Malformed and hostile HTTP.
    assert_eq!(http_raw(http, b"\x00\x01 junk\r\n\r\n").0, 400);
    assert_eq!(http_get(http, "/../../etc/passwd").0, 404);
    assert_eq!(http_get(http, "/%2e%2e/%2e%2e/etc/passwd").0, 404);
    assert_eq!(
        http_raw(http, b"DELETE / HTTP/1.1\r\nHost: x\r\n\r\n").0,
        405
    );
    let (st, metrics) = http_get(http, "/metrics");
    assert_eq!(st, 200);
    let metrics = String::from_utf8(metrics).unwrap();
    assert!(metrics.contains("airwaves_frames_total"), "{metrics}");

    // Read for a while from the 99 readers.
    let mut got = vec![Vec::<u8>::new(); readers.len()];
    let t0 = Instant::now();
    let mut buf = vec![0u8; 65536];
    while t0.elapsed() < Duration::from_secs(12) {
        for (r, g) in readers.iter_mut().zip(&mut got) {
            match r.read(&mut buf) {
                Ok(0) => panic!("a reading client was dropped\n{}", p.log()),
                Ok(n) => g.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => panic!("{e}"),
            }
        }
        thread::sleep(Duration::from_millis(10));
    }
    assert!(p.child.try_wait().unwrap().is_none(), "exited\n{}", p.log());
    let valid_hex: String = valid.iter().map(|b| format!("{b:02X}")).collect();
    for g in &got {
        let (lines, _) = beast_as_avr_ts(g);
        assert!(lines.len() > 100, "{} frames", lines.len());
        assert!(
            lines.iter().any(|l| l.ends_with(&format!("{valid_hex};"))),
            "the valid input frame was not forwarded"
        );
    }
    // The demo's map data is there and the slow client did not stall it.
    let (st, body) = http_get(http, "/data/aircraft.json");
    assert_eq!(st, 200);
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let n = v["aircraft"].as_array().unwrap().len();
    assert!(n >= 10, "{n} aircraft");
    let (_, metrics) = http_get(http, "/metrics");
    let metrics = String::from_utf8(metrics).unwrap();
    println!("{metrics}");
    // The demodulator's stage counters are live: the demo sky's replies
    // went through every stage (the trigger passes far more positions
    // than the preamble check; several phases of a preamble may be sliced).
    let value = |line: &str| -> f64 {
        let l = metrics
            .lines()
            .find(|l| l.starts_with(&format!("{line} ")))
            .unwrap_or_else(|| panic!("no {line}"));
        l.rsplit_once(' ').unwrap().1.parse().unwrap()
    };
    let stage = |s: &str| value(&format!("airwaves_demod_candidates_total{{stage=\"{s}\"}}"));
    let (trigger, preamble, sliced) = (stage("trigger"), stage("preamble"), stage("sliced"));
    assert!(
        trigger > preamble && preamble > 0.0 && sliced > 0.0,
        "{trigger} {preamble} {sliced}"
    );
    assert!(value("airwaves_demod_coherent_attempts_total") >= 0.0);
    drop(slow);
    let _ = p.child.kill();
}

/// A source that cannot open says why and how to go on.
#[test]
fn test_missing_dongle_and_bad_options_are_clear() {
    let out = Command::new(AIRWAVES)
        .args(["adsb", "--device", "NOSUCHSERIAL", "--quiet"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--demo"), "{err}");
    let out = Command::new(AIRWAVES)
        .args([
            "adsb",
            "--demo",
            "--net-connector",
            "localhost,notaport,beast_out",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--net-connector"), "{err}");
    // A busy port names the option that moves it.
    let busy = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port().to_string();
    let out = Command::new(AIRWAVES)
        .args(["adsb", "--ifile", "/dev/null", "--net", "--quiet"])
        .args(NO_PORTS_BUT_BO)
        .args(["--net-bo-port", &port])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--net-bo-port"), "{err}");
    // The demo goes on without it, and says so.
    let out = Command::new(AIRWAVES)
        .args(["adsb", "--demo", "--http-port", "0", "--duration", "1"])
        .args(NO_PORTS_BUT_BO)
        .args(["--net-bo-port", &port])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("going on without it"), "{err}");
    let _ = BufReader::new(std::io::empty()).lines();
}

/// Every TCP port but Beast output off.
const NO_PORTS_BUT_BO: [&str; 6] = [
    "--net-ro-port",
    "0",
    "--net-sbs-port",
    "0",
    "--net-bi-port",
    "0",
];

/// `--demo-speed max`: five minutes of signal, mixed sky, decoded faster
/// than real time; `--duration` and stats.json's periods are signal time,
/// and the adaptive gain (the default) lowers the gain while the strong
/// aircraft passes and says why, with the gain in stats.json and
/// receiver.json.
#[test]
fn test_demo_faster_than_real_time_with_adaptive_gain() {
    let dir = TempDir::new("demo_speed");
    let json = dir.0.join("json");
    let t0 = Instant::now();
    let out = Command::new(AIRWAVES)
        .args([
            "adsb",
            "--demo",
            "--demo-sky",
            "mixed",
            "--demo-speed",
            "max",
        ])
        .args(["--duration", "300", "--http-port", "0", "--write-json"])
        .arg(&json)
        .args(NO_PORTS_BUT_BO)
        .args(["--net-bo-port", "0"])
        .output()
        .unwrap();
    let wall = t0.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(wall < 150.0, "300 s of signal took {wall} s");
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.join("stats.json")).unwrap()).unwrap();
    let total = &stats["total"];
    let span = total["end"].as_f64().unwrap() - total["start"].as_f64().unwrap();
    assert!((span - 300.0).abs() < 1.5, "total spans {span} s");
    let m1 = &stats["last1min"];
    let m1_span = m1["end"].as_f64().unwrap() - m1["start"].as_f64().unwrap();
    assert!((m1_span - 60.0).abs() < 1.5, "last1min spans {m1_span} s");
    assert!(m1["messages"].as_u64().unwrap() > 1000, "{m1}");
    let gain = stats["gain_db"].as_f64().unwrap();
    let receiver: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.join("receiver.json")).unwrap()).unwrap();
    assert_eq!(receiver["gain_db"].as_f64(), Some(gain));
    // The overflight forced the gain down, each change with its reason.
    let lowered: Vec<&str> = err.lines().filter(|l| l.contains("gain lowered")).collect();
    assert!(!lowered.is_empty(), "{err}");
    assert!(
        lowered.iter().all(|l| l.contains("loud bursts lost")),
        "{err}"
    );
}

/// The adaptive gain on a dongle: the emulator's airport sky at 10× real
/// time, the loop's gains written into the tuner between USB transfers,
/// and the sky's front end applying what the driver wrote.
#[test]
fn test_adaptive_gain_on_the_emulated_dongle() {
    let dir = TempDir::new("dongle_gain");
    let json = dir.0.join("json");
    let out = Command::new(AIRWAVES)
        .args(["adsb", "--fake-device", "r820t,sky=airport,speed=10"])
        .args(["--duration", "6", "--write-json"])
        .arg(&json)
        .args(NO_PORTS_BUT_BO)
        .args(["--net-bo-port", "0"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("gain lowered 49.6"), "{err}");
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.join("stats.json")).unwrap()).unwrap();
    let gain = stats["gain_db"].as_f64().unwrap();
    assert!(gain < 45.0, "{gain}");
    assert!(
        stats["total"]["messages"].as_u64().unwrap() > 1000,
        "{stats}"
    );
}
