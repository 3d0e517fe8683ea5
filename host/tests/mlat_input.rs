//! Multilateration results on Beast input, end to end: mlat-client sends
//! the positions a server computed back to the receiver's Beast input
//! (30104 by default, beside 30004) as Beast frames stamped
//! `FF 00 4D 4C 41 54`. No mlat-client can be installed from the package
//! registries, so the frames are written byte for byte from the format's
//! description ([`support::MLAT_FRAMES`], [`support::beast`]).

mod support;

use airwaves_core::modes::encode::{BeastDecoder, StreamDecoder};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};
use support::{
    MLAT_FRAMES, MLAT_TS, Peer, beast, bytes, connect, free_port, http_get, mlat_results_stream,
};

const AIRWAVES: &str = env!("CARGO_BIN_EXE_airwaves");

/// DF17 identification of 4840D6 (KLM1023), the standard worked example.
const HEARD: &str = "8D4840D6202CC371C32CE0576098";

/// A `--net-only` feeder with two Beast inputs, Beast output and HTTP.
struct Feeder {
    peer: Peer,
    bi: [u16; 2],
    bo: u16,
    http: u16,
}

fn feeder(extra: &[&str]) -> Feeder {
    let (bi, bo, http) = ([free_port(), free_port()], free_port(), free_port());
    let mut c = Command::new(AIRWAVES);
    c.args([
        "adsb",
        "--net-only",
        "--net",
        "--lat",
        "52.3",
        "--lon",
        "4.8",
    ]);
    c.args(["--net-ro-port", "0", "--net-sbs-port", "0", "--quiet"]);
    c.args(["--net-bi-port", &format!("{},{}", bi[0], bi[1])]);
    c.args(["--net-bo-port", &bo.to_string()]);
    c.args(["--http-port", &http.to_string(), "--duration", "30"]);
    c.args(extra);
    Feeder {
        peer: Peer::spawn(c),
        bi,
        bo,
        http,
    }
}

/// Send the heard frame on the first input and the MLAT results on the
/// second; return the aircraft.json entry of A835AF once it has a
/// position, and what the Beast output carried meanwhile.
fn run(f: &Feeder) -> (serde_json::Value, Vec<u8>) {
    let mut out = connect(f.bo, Duration::from_secs(10));
    out.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    // Frames are formatted only for outputs with clients: send nothing
    // before the feeder has taken this one on (its /metrics says so).
    let t0 = Instant::now();
    while !String::from_utf8_lossy(&http_get(f.http, "/metrics").1)
        .contains("airwaves_clients{port=\"beast_out\"} 1\n")
    {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "Beast client not taken on"
        );
        thread::sleep(Duration::from_millis(50));
    }
    let mut heard = connect(f.bi[0], Duration::from_secs(10));
    heard
        .write_all(&beast([0, 0, 0, 0, 0x10, 0], 0x80, &bytes(HEARD)))
        .unwrap();
    let mut mlat: TcpStream = connect(f.bi[1], Duration::from_secs(10));
    mlat.write_all(&mlat_results_stream()).unwrap();
    let t0 = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Ok(n) = out.read(&mut buf) {
            got.extend_from_slice(&buf[..n]);
        }
        let (st, body) = http_get(f.http, "/data/aircraft.json");
        if st == 200 {
            let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let found = v["aircraft"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["hex"] == "a835af" && a.get("lat").is_some())
                .cloned();
            if let Some(a) = found {
                // Let the output catch up with the heard frame too.
                let until = Instant::now() + Duration::from_secs(1);
                while Instant::now() < until {
                    if let Ok(n) = out.read(&mut buf) {
                        got.extend_from_slice(&buf[..n]);
                    }
                }
                return (a, got);
            }
        }
        assert!(
            t0.elapsed() < Duration::from_secs(15),
            "no MLAT aircraft\n{}",
            f.peer.log()
        );
        thread::sleep(Duration::from_millis(100));
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn test_mlat_results_shown_not_forwarded() {
    let mut f = feeder(&[]);
    let (a, out) = run(&f);
    assert_eq!(a["type"], "mlat", "{a}");
    assert_eq!(a["r"], "N628TS", "{a}");
    let lat = a["lat"].as_f64().unwrap();
    let lon = a["lon"].as_f64().unwrap();
    assert!(
        (lat - 52.3).abs() < 1e-4 && (lon - 4.76).abs() < 1e-4,
        "{a}"
    );
    assert_eq!(a["alt_baro"], 3000, "{a}");
    let fields: Vec<&str> = a["mlat"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for k in ["lat", "lon", "altitude", "gs", "track"] {
        assert!(fields.contains(&k), "{k} not in {fields:?}");
    }
    // The aircraft heard by a receiver is forwarded; the computed one
    // never is (readsb's --forward-mlat is off by default).
    assert!(contains(&out, &bytes(HEARD)), "heard frame not forwarded");
    assert!(!contains(&out, &MLAT_TS), "an MLAT result was forwarded");
    assert!(!contains(&out, &[0xA8, 0x35, 0xAF]), "A835AF was forwarded");
    let (_, metrics) = http_get(f.http, "/metrics");
    let metrics = String::from_utf8(metrics).unwrap();
    assert!(
        metrics.contains("airwaves_mlat_results_total 3\n"),
        "{metrics}"
    );
    assert!(
        metrics.contains("airwaves_aircraft{with=\"mlat\"} 1\n"),
        "{metrics}"
    );
    let _ = f.peer.child.kill();
}

#[test]
fn test_forward_mlat_keeps_the_mark() {
    let mut f = feeder(&["--forward-mlat"]);
    let (a, out) = run(&f);
    assert_eq!(a["type"], "mlat", "{a}");
    // Forwarded as received: the magic timestamp stays, so the next
    // receiver up the chain knows it too.
    let mut d = BeastDecoder::new();
    let forwarded: Vec<(Option<u64>, Vec<u8>)> = d
        .feed(&out)
        .map(|m| (m.timestamp.map(|t| t.ticks()), m.frame().to_vec()))
        .collect();
    for h in MLAT_FRAMES {
        assert!(
            forwarded.contains(&(Some(0xFF00_4D4C_4154), bytes(h))),
            "{h} not forwarded with its mark: {forwarded:?}"
        );
    }
    let _ = f.peer.child.kill();
}
