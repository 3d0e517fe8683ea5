//! The web map and graphs of a running `airwaves adsb --demo` in headless
//! Chromium: the real feeder's HTTP server, the simulated sky through the
//! real demodulator. The map's own behaviour against fixture data is in
//! `web_map.rs`; the Chromium helpers in `support/browser.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod support;

use support::browser::{chromium_or_skip, dump_dom, elements, hexes, png_size, screenshot};

/// A demo sky at 30× real time for up to 100 s, no Beast input.
const FAST_DEMO: &[&str] = &[
    "--demo-speed",
    "30",
    "--net-bi-port",
    "0",
    "--duration",
    "3000",
];

/// A running `airwaves adsb --demo` with its HTTP server on a free port,
/// every other port off unless `extra` sets it; killed when dropped.
struct DemoFeeder {
    port: u16,
    child: std::process::Child,
}

impl DemoFeeder {
    /// The body of `path` on its HTTP server (waiting for it to listen).
    fn get(&self, path: &str) -> Vec<u8> {
        support::http_get(self.port, path).1
    }

    /// The URL of `path` on its HTTP server.
    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for DemoFeeder {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn demo_feeder(extra: &[&str]) -> DemoFeeder {
    let port = support::free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_airwaves"))
        .args([
            "adsb",
            "--demo",
            "--quiet",
            "--http-port",
            &port.to_string(),
        ])
        .args(support::NO_OUTPUT_PORTS)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    DemoFeeder { port, child }
}

/// The real thing: `airwaves adsb --demo` (the simulated sky through the
/// real demodulator, served by the binary's own HTTP server), loaded in
/// headless Chromium. The table and the map show the aircraft that the
/// feeder's `aircraft.json` lists; a screenshot is kept.
#[test]
fn test_map_of_a_running_demo_feeder() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let mlat_port = support::free_port();
    let feeder = demo_feeder(&["--net-bi-port", &mlat_port.to_string(), "--duration", "90"]);
    // "Within seconds the map fills": wait for 15 aircraft with positions.
    let t0 = Instant::now();
    let listed = |body: &[u8]| -> (BTreeSet<String>, BTreeSet<String>) {
        let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let list = v["aircraft"].as_array().cloned().unwrap_or_default();
        let hex = |a: &Value| a["hex"].as_str().unwrap_or("").to_owned();
        (
            list.iter().map(hex).collect(),
            list.iter()
                .filter(|a| a["lat"].is_number())
                .map(hex)
                .collect(),
        )
    };
    loop {
        let body = feeder.get("/data/aircraft.json");
        let (_, with_pos) = listed(&body);
        if with_pos.len() >= 15 {
            println!(
                "demo: {} aircraft with a position after {:.1} s",
                with_pos.len(),
                t0.elapsed().as_secs_f64()
            );
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(40),
            "only {} aircraft with a position after 40 s",
            with_pos.len()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    // An MLAT result fed through the MLAT port (30104's role) shows as
    // MLAT: aircraft.json types it so and the map marks it.
    let mut mlat = support::connect(mlat_port, Duration::from_secs(10));
    mlat.write_all(&support::mlat_results_stream()).unwrap();
    let t1 = Instant::now();
    loop {
        let body = feeder.get("/data/aircraft.json");
        let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let list = v["aircraft"].as_array().cloned().unwrap_or_default();
        if let Some(a) = list
            .iter()
            .find(|a| a["hex"] == "a835af" && a["lat"].is_number())
        {
            assert_eq!(a["type"], "mlat", "{a}");
            break;
        }
        assert!(t1.elapsed() < Duration::from_secs(10), "no MLAT aircraft");
        std::thread::sleep(Duration::from_millis(200));
    }
    // The range outline has points by now (aircraft with two positions).
    let outline_points = |body: &[u8]| -> usize {
        let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        v["actualRange"]["last24h"]["points"]
            .as_array()
            .map_or(0, Vec::len)
    };
    let t2 = Instant::now();
    let outline_before = loop {
        let n = outline_points(&feeder.get("/data/outline.json"));
        if n >= 3 {
            break n;
        }
        assert!(
            t2.elapsed() < Duration::from_secs(20),
            "outline: {n} points"
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    let url = feeder.url("/");
    let before = listed(&feeder.get("/data/aircraft.json"));
    let dom = dump_dom(&chromium, &url, 4000).unwrap();
    let after = listed(&feeder.get("/data/aircraft.json"));
    let rows: BTreeSet<String> = hexes(&dom, "tr", "").into_iter().collect();
    let markers: BTreeSet<String> = hexes(&dom, "g", "aircraft").into_iter().collect();
    println!(
        "DOM: {} rows, {} markers; aircraft.json: {} aircraft, {} with a position",
        rows.len(),
        markers.len(),
        after.0.len(),
        after.1.len()
    );
    // Every row and marker is an aircraft the feeder lists (before or
    // after the page loaded: aircraft appear and expire meanwhile) …
    let listed_any: BTreeSet<String> = before.0.union(&after.0).cloned().collect();
    let positioned_any: BTreeSet<String> = before.1.union(&after.1).cloned().collect();
    assert!(
        rows.is_subset(&listed_any),
        "rows {rows:?} vs {listed_any:?}"
    );
    assert!(markers.is_subset(&positioned_any), "markers {markers:?}");
    // … and every aircraft listed both times is shown.
    let stable: BTreeSet<String> = before.0.intersection(&after.0).cloned().collect();
    let stable_pos: BTreeSet<String> = before.1.intersection(&after.1).cloned().collect();
    assert!(
        stable.is_subset(&rows),
        "missing rows: {:?}",
        stable.difference(&rows)
    );
    assert!(
        stable_pos.is_subset(&markers),
        "missing markers: {:?}",
        stable_pos.difference(&markers)
    );
    assert!(markers.len() >= 15, "{} markers", markers.len());
    let drawn = elements(&dom, "path")
        .iter()
        .find(|e| e.attr("id") == Some("range-outline"))
        .and_then(|e| e.attr("data-points")?.parse::<usize>().ok())
        .expect("the range outline is drawn");
    assert!(
        drawn >= outline_before,
        "{drawn} of {outline_before} points"
    );
    println!("range outline: {drawn} points drawn");
    // The built-in basemap (the network is off): the Dutch coast and the
    // borders around the receiver.
    let paths = elements(&dom, "path");
    for id in ["coastline", "borders"] {
        let p = paths
            .iter()
            .find(|e| e.attr("id") == Some(id))
            .unwrap_or_else(|| panic!("no {id} drawn"));
        assert!(
            p.attr("d").is_some_and(|d| d.matches('L').count() > 50),
            "{id}"
        );
    }
    let mlat_markers = hexes(&dom, "g", "mlat");
    assert_eq!(mlat_markers, ["a835af"], "MLAT markers");
    let gs = elements(&dom, "g");
    // The demo's 978 MHz sky through the UAT demodulator: its aircraft
    // are marked as heard on UAT, the FIS-B radar image is drawn, the
    // weather panel lists the METARs and the TAF.
    let uat_listed: BTreeSet<String> = {
        let v: Value = serde_json::from_slice(&feeder.get("/data/aircraft.json")).unwrap();
        v["aircraft"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["links"] == serde_json::json!(["uat"]))
            .map(|a| a["hex"].as_str().unwrap().to_owned())
            .collect()
    };
    let uat_markers: BTreeSet<String> = hexes(&dom, "g", "uat").into_iter().collect();
    assert!(uat_markers.len() >= 6, "UAT markers {uat_markers:?}");
    assert!(uat_listed.len() >= 6, "UAT aircraft {uat_listed:?}");
    let nexrad = gs
        .iter()
        .find(|e| e.attr("id") == Some("layer-nexrad"))
        .expect("the radar layer");
    let blocks: usize = nexrad.attr("data-blocks").unwrap().parse().unwrap();
    assert!(blocks >= 3, "{blocks} radar blocks drawn");
    assert_eq!(nexrad.attr("data-product"), Some("regional"));
    let weather = elements(&dom, "div")
        .into_iter()
        .find(|e| e.attr("id") == Some("weather"))
        .expect("the weather panel");
    let reports: usize = weather.attr("data-reports").unwrap().parse().unwrap();
    assert_eq!(reports, 4, "METARs of 3 stations and a TAF");
    println!(
        "UAT: {} markers, {blocks} radar blocks, {reports} weather reports",
        uat_markers.len()
    );
    assert!(gs.iter().any(|e| e.attr("id") == Some("receiver")));

    let png = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web_map-demo-feeder.png");
    screenshot(&chromium, &url, 4000, &png, 1280, 900).unwrap();
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(png_size(&bytes).unwrap(), (1280, 900));
    assert!(bytes.len() > 20_000, "a blank page? {} bytes", bytes.len());
    println!("screenshot of the demo feeder's map: {}", png.display());
}

/// The graphs page (graphs1090's job) of a demo feeder running at 30×
/// real time: every plot has points once the hour has 10 s buckets; a
/// screenshot is kept.
#[test]
fn test_graphs_of_a_running_demo_feeder() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let feeder = demo_feeder(FAST_DEMO);
    let t0 = Instant::now();
    let points = loop {
        let body = feeder.get("/data/history/hour.json");
        let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let n = v["points"].as_array().map_or(0, Vec::len);
        if n >= 12 {
            break v;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(90),
            "{n} buckets after 90 s"
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    let fields: Vec<&str> = points["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(fields[0], "messages_per_s");
    let url = feeder.url("/graphs");
    let dom = dump_dom(&chromium, &url, 4000).unwrap();
    for id in ["messages", "aircraft", "range", "signal", "gain", "cpu"] {
        let chart = elements(&dom, "section")
            .into_iter()
            .find(|e| e.attr("id") == Some(&format!("chart-{id}")))
            .unwrap_or_else(|| panic!("no chart {id}"));
        let n: usize = chart.attr("data-points").unwrap().parse().unwrap();
        assert!(n >= 10, "chart {id}: {n} points");
    }
    let metrics = feeder.get("/metrics");
    let metrics = String::from_utf8(metrics).unwrap();
    assert!(
        metrics.contains("airwaves_recent{field=\"messages_per_s\"}"),
        "{metrics}"
    );
    let png = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web_map-graphs.png");
    screenshot(&chromium, &url, 4000, &png, 1280, 900).unwrap();
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(png_size(&bytes).unwrap(), (1280, 900));
    println!("screenshot of the graphs page: {}", png.display());
}

/// Replay (`/?replay=T`) of a demo feeder's history at 30× real time:
/// aircraft are drawn where they were at T, and a minute later they have
/// moved.
#[test]
fn test_replay_moves_an_aircraft() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let feeder = demo_feeder(FAST_DEMO);
    // Wait until the history spans 200 s of signal (about 7 s of wall
    // time at 30x; longer on a loaded machine).
    let t0 = Instant::now();
    let point_time = |bin: &[u8], i: usize| {
        let o = 20 + i * 20;
        u64::from(u32::from_le_bytes(bin[o..o + 4].try_into().unwrap()))
    };
    let t_first = loop {
        let index: Value =
            serde_json::from_slice(&feeder.get("/data/replay/index.json")).unwrap_or(Value::Null);
        let chunks = index["chunks"].as_array().cloned().unwrap_or_default();
        if let (Some(first), Some(last)) = (chunks.first(), chunks.last()) {
            let get = |c: &Value| {
                let start = c["start"].as_u64().unwrap();
                feeder.get(&format!("/data/replay/{start}.bin"))
            };
            let (a, b) = (get(first), get(last));
            if a.len() > 40 && b.len() > 40 {
                assert_eq!(&a[..8], b"AWHIST01");
                let n = (b.len() - 28) / 20;
                let (t_first, t_last) = (point_time(&a, 0), point_time(&b, n - 1));
                if t_last >= t_first + 200 {
                    break t_first;
                }
            }
        }
        assert!(
            t0.elapsed() < Duration::from_secs(90),
            "history too short after 90 s"
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    let (t1, t2) = (t_first + 120, t_first + 180);
    let markers = |t: u64| -> BTreeMap<String, String> {
        let dom = dump_dom(&chromium, &feeder.url(&format!("/?replay={t}")), 5000).unwrap();
        assert!(
            dom.contains(&format!("data-replay-time=\"{t}\"")),
            "not at {t}"
        );
        elements(&dom, "g")
            .into_iter()
            .filter(|e| e.has_class("aircraft"))
            .filter_map(|e| {
                Some((
                    e.attr("data-hex")?.to_owned(),
                    e.attr("transform")?.to_owned(),
                ))
            })
            .collect()
    };
    let (a, b) = (markers(t1), markers(t2));
    assert!(a.len() >= 10, "{} aircraft at {t1}", a.len());
    let moved = a
        .iter()
        .filter(|(hex, pos)| b.get(*hex).is_some_and(|p| p != *pos))
        .count();
    println!(
        "replay: {} aircraft at T, {} at T+60 s, {moved} moved",
        a.len(),
        b.len()
    );
    assert!(moved >= 5, "{moved} of {} moved", a.len());
}
