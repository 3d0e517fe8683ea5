//! The web map in a real browser: headless Chromium loads the page from a
//! small HTTP server inside this test, which serves
//! [`airwaves::web::asset`] and fixture `data/aircraft.json` /
//! `data/receiver.json`; the assertions read the DOM Chromium dumps after a
//! few seconds of virtual time, and a screenshot is checked to be a real PNG.
//!
//! [`TestServer`] is an HTTP server around any handler; the headless runs
//! and the DOM reader are in `support/browser.rs`, shared with
//! `web_feeder.rs` (the real `airwaves adsb --demo` server in Chromium).
//!
//! Skipped, with a message, when `chromium` is not installed.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};

mod support;

use support::browser::{
    chromium_or_skip, dump_dom, elements, hexes, png_size, screenshot, text_of_id,
};

// ---------------------------------------------------------------------------
// A tiny HTTP server.

/// One HTTP response of [`TestServer`].
struct Response {
    /// HTTP status code, e.g. 200.
    status: u16,
    /// `Content-Type` header value.
    content_type: String,
    /// The body.
    body: Vec<u8>,
}

impl Response {
    /// 200 with `body` of type `content_type`.
    fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status: 200,
            content_type: content_type.to_owned(),
            body: body.into(),
        }
    }

    /// 200 with `value` as JSON.
    fn json(value: &Value) -> Response {
        Response::ok("application/json", value.to_string())
    }

    /// Error `status` (404, 503, …) with the code as a plain-text body.
    fn error(status: u16) -> Response {
        Response {
            status,
            content_type: "text/plain".to_owned(),
            body: format!("{status}\n").into_bytes(),
        }
    }

    /// The asset at `path` (relative to the page root, see
    /// [`airwaves::web::asset`]) or 404.
    fn asset(path: &str) -> Response {
        match airwaves::web::asset(path) {
            Some(a) => Response::ok(a.content_type, a.bytes),
            None => Response::error(404),
        }
    }
}

/// A minimal HTTP/1.1 server on 127.0.0.1 at a port the OS picks, for
/// browsers in tests: each connection gets its own thread, one `GET` or
/// `HEAD` request and `Connection: close`. The handler maps the request path
/// (query string included) to a [`Response`]. Stopped and joined on drop.
struct TestServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl TestServer {
    /// Binds and starts serving `handler`.
    fn start<F>(handler: F) -> std::io::Result<TestServer>
    where
        F: Fn(&str) -> Response + Send + Sync + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let handler = Arc::new(handler);
        let stop_flag = stop.clone();
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stop_flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let handler = handler.clone();
                std::thread::spawn(move || {
                    // A browser's idle pre-connection just times out here.
                    let _ = serve_one(conn, &*handler);
                });
            }
        });
        Ok(TestServer {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT` followed by `path` (which starts with `/`).
    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Reads one request from `conn` and writes the handler's response.
fn serve_one(
    conn: TcpStream,
    handler: &(dyn Fn(&str) -> Response + Send + Sync),
) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" || header == "\n" {
            break;
        }
    }
    let mut parts = request_line.split_ascii_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let response = match method {
        "GET" | "HEAD" if path.starts_with('/') => handler(path),
        _ => Response::error(405),
    };
    let mut out = conn;
    write!(
        out,
        "HTTP/1.1 {} X\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        response.status,
        response.content_type,
        response.body.len()
    )?;
    if method != "HEAD" {
        out.write_all(&response.body)?;
    }
    out.flush()
}

// ---------------------------------------------------------------------------
// The fixture receiver.

const RECEIVER_LAT: f64 = 50.033;
const RECEIVER_LON: f64 = 8.570;
/// `now` of the first aircraft.json: 2025-12-03 14:00:00 UTC.
const FIRST_NOW: f64 = 1_764_770_400.0;
/// Messages added between successive aircraft.json: the page shows this as msg/s.
const MESSAGES_PER_S: u64 = 250;

/// A fixture aircraft: JSON fields plus, for moving ones, how it moves.
struct Plane {
    hex: &'static str,
    /// Fields of `aircraft[]` apart from position; lat/lon are added per step.
    fields: Value,
    /// Start position, or `None` for an aircraft without position.
    pos: Option<(f64, f64)>,
    /// NM moved per aircraft.json (exaggerated, so the trails show).
    nm_per_step: f64,
    /// Feet climbed per aircraft.json.
    ft_per_step: f64,
}

fn fleet() -> Vec<Plane> {
    vec![
        Plane {
            hex: "4ca1fa",
            fields: json!({"flight": "RYR12AB ", "squawk": "2201", "alt_baro": 37000, "gs": 447.2, "track": 95.3,
                "baro_rate": 0, "category": "A3", "rssi": -14.2, "messages": 1204, "seen": 0.2, "seen_pos": 0.4, "type": "adsb_icao"}),
            pos: Some((50.62, 7.10)),
            nm_per_step: 3.0,
            ft_per_step: 0.0,
        },
        Plane {
            hex: "3c6589",
            fields: json!({"flight": "DLH4TK  ", "squawk": "1000", "alt_baro": 4200, "gs": 236.0, "track": 250.0,
                "baro_rate": 2240, "category": "A3", "rssi": -6.1, "messages": 845, "seen": 0.1, "seen_pos": 0.1, "type": "adsb_icao"}),
            pos: Some((50.10, 8.30)),
            nm_per_step: 2.0,
            ft_per_step: 900.0,
        },
        Plane {
            hex: "406b90",
            fields: json!({"flight": "EZY77PQ ", "squawk": "7700", "alt_baro": 16500, "gs": 310.0, "track": 20.0,
                "baro_rate": -2400, "category": "A3", "rssi": -18.5, "messages": 512, "seen": 0.6, "seen_pos": 0.9,
                "emergency": "general", "type": "adsb_icao"}),
            pos: Some((49.45, 8.95)),
            nm_per_step: 2.5,
            ft_per_step: -400.0,
        },
        Plane {
            hex: "4b1805",
            fields: json!({"flight": "SWR1085 ", "alt_baro": "ground", "gs": 14.0, "track": 181.0,
                "category": "A3", "rssi": -3.2, "messages": 98, "seen": 1.4, "seen_pos": 1.4, "type": "adsb_icao"}),
            pos: Some((50.040, 8.560)),
            nm_per_step: 0.0,
            ft_per_step: 0.0,
        },
        Plane {
            hex: "484f6b",
            fields: json!({"flight": "KLM1023 ", "squawk": "4453", "alt_baro": 24025, "gs": 402.0, "track": 301.0,
                "geom_rate": 640, "category": "A3", "rssi": -22.8, "messages": 61, "seen": 3.7, "type": "adsb_icao"}),
            pos: None,
            nm_per_step: 0.0,
            ft_per_step: 0.0,
        },
        Plane {
            hex: "3e2d71",
            fields: json!({"flight": "CHX12   ", "alt_baro": 1450, "gs": 108.0, "track": 140.0, "baro_rate": -320,
                "category": "A7", "rssi": -19.9, "messages": 310, "seen": 0.9, "seen_pos": 2.0, "r_dst": 14.2}),
            pos: Some((50.21, 8.78)),
            nm_per_step: 0.8,
            ft_per_step: 0.0,
        },
        Plane {
            hex: "a1b2c3",
            fields: json!({"r": "N2085A", "country": "United States", "country_code": "US", "category": "A1", "rssi": -27.5, "messages": 14, "seen": 12.5, "seen_pos": 22.0}),
            pos: Some((49.70, 9.55)),
            nm_per_step: 0.0,
            ft_per_step: 0.0,
        },
    ]
}

/// `aircraft.json` for poll number `step` (0, 1, …): moving aircraft have
/// advanced `step` times, `now` by `step` seconds, `messages` by
/// [`MESSAGES_PER_S`] per second.
fn aircraft_json(step: u32) -> Value {
    let k = f64::from(step);
    let aircraft: Vec<Value> = fleet()
        .into_iter()
        .map(|p| {
            let mut a = p.fields.clone();
            a["hex"] = json!(p.hex);
            if let Some((lat, lon)) = p.pos {
                let track = a["track"].as_f64().unwrap_or(0.0).to_radians();
                let nm = p.nm_per_step * k;
                a["lat"] = json!(lat + nm * track.cos() / 60.0);
                a["lon"] = json!(lon + nm * track.sin() / (60.0 * lat.to_radians().cos()));
            }
            if let Some(alt) = a["alt_baro"].as_f64() {
                a["alt_baro"] = json!((alt + p.ft_per_step * k).round());
            }
            a
        })
        .collect();
    json!({
        "now": FIRST_NOW + k,
        "messages": 1_000_000 + MESSAGES_PER_S * u64::from(step),
        "aircraft": aircraft,
    })
}

fn receiver_json(tiles: Option<&str>) -> Value {
    let mut r = json!({"lat": RECEIVER_LAT, "lon": RECEIVER_LON, "refresh": 1000, "version": "airwaves-test 0.1"});
    if let Some(t) = tiles {
        r["tiles"] = json!(t);
    }
    r
}

/// Points of the fixture's `outline.json`: one every 10° of bearing, 60 to
/// 150 NM from the receiver (flat-earth offsets, close enough for a
/// drawing).
const OUTLINE_POINTS: usize = 36;

fn outline_json() -> Value {
    let points: Vec<Value> = (0..OUTLINE_POINTS)
        .map(|i| {
            let brg = (i as f64 * 10.0).to_radians();
            let nm = 60.0 + 90.0 * ((i * 7 % 11) as f64 / 10.0);
            let lat = RECEIVER_LAT + nm / 60.0 * brg.cos();
            let lon = RECEIVER_LON + nm / 60.0 * brg.sin() / RECEIVER_LAT.to_radians().cos();
            json!([lat, lon, 30_000 + 100 * i])
        })
        .collect();
    json!({"actualRange": {"last24h": {"points": points}}})
}

/// A map tile drawn as SVG, so that the tiles path needs no network.
fn tile_svg(path: &str) -> Response {
    Response::ok(
        "image/svg+xml",
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"256\" height=\"256\">\
             <rect width=\"256\" height=\"256\" fill=\"#243447\" stroke=\"#3b5570\"/>\
             <text x=\"8\" y=\"20\" fill=\"#9fb6cc\" font-size=\"12\">{path}</text></svg>"
        ),
    )
}

/// How the fixture server behaves.
struct FixtureOptions {
    /// URL prefix of the page, e.g. `/airwaves` (empty for the root).
    prefix: &'static str,
    /// `tiles` of receiver.json.
    tiles: Option<&'static str>,
    /// aircraft.json requests answered 503 before the first good one.
    failures_first: u32,
    /// Answer every aircraft.json with 503.
    always_fail: bool,
}

/// Request counters of the fixture server.
#[derive(Default)]
struct Counters {
    aircraft: AtomicU32,
    tiles: AtomicU32,
}

/// Serves the page under `opts.prefix`, the fixture JSON and SVG tiles.
fn fixture_server(opts: FixtureOptions) -> (TestServer, Arc<Counters>) {
    let counters = Arc::new(Counters::default());
    let seen = counters.clone();
    let server = TestServer::start(move |full_path| {
        let Some(path) = full_path.strip_prefix(opts.prefix) else {
            return Response::error(404);
        };
        let path = path.split('?').next().unwrap_or(path);
        match path {
            "/data/receiver.json" => Response::json(&receiver_json(opts.tiles)),
            "/data/outline.json" => Response::json(&outline_json()),
            "/data/aircraft.json" => {
                let n = seen.aircraft.fetch_add(1, Ordering::SeqCst);
                if opts.always_fail || n < opts.failures_first {
                    Response::error(503)
                } else {
                    Response::json(&aircraft_json(n - opts.failures_first))
                }
            }
            p if p.starts_with("/tiles/") => {
                seen.tiles.fetch_add(1, Ordering::SeqCst);
                tile_svg(p)
            }
            "/test/interact.html" => Response::ok("text/html; charset=utf-8", INTERACT_HTML),
            p => Response::asset(p),
        }
    })
    .expect("start the test server");
    (server, counters)
}

/// A page that loads the map in a same-origin iframe, drives it with DOM
/// events (header clicks, row and marker clicks, Esc, zoom button, wheel,
/// drag) and writes what it saw as JSON into `<pre id="result">`, which
/// `--dump-dom` prints (the iframe's own DOM is not dumped).
const INTERACT_HTML: &str = r#"<!doctype html>
<html><body>
<iframe id="app" src="/" style="width:1200px;height:800px;border:0"></iframe>
<pre id="result">pending</pre>
<script>
'use strict';
const log = {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(cond, what) {
  for (let i = 0; i < 100; i++) { try { if (cond()) return; } catch (e) { /* not loaded yet */ } await sleep(100); }
  throw new Error('timed out waiting for ' + what);
}
async function run() {
  const frame = document.getElementById('app');
  await until(() => frame.contentWindow.airwaves && frame.contentDocument.querySelectorAll('tbody tr').length === 7, 'rows');
  const w = frame.contentWindow, d = frame.contentDocument, v = w.airwaves.view;
  const altCol = [...d.querySelectorAll('#aircraft-table thead th')].findIndex((t) => t.dataset.key === 'alt');
  const rows = () => [...d.querySelectorAll('#aircraft-table tbody tr')].map((tr) => [tr.dataset.hex, tr.cells[altCol].textContent]);
  const th = (k) => d.querySelector(`th[data-key="${k}"]`);
  const selected = () => ({
    rows: [...d.querySelectorAll('tbody tr.selected')].map((e) => e.dataset.hex),
    markers: [...d.querySelectorAll('g.aircraft.selected')].map((e) => e.dataset.hex),
    details: !d.getElementById('details').hidden,
  });
  const mercX = (lon) => (lon + 180) / 360;
  const mercY = (lat) => { const l = lat * Math.PI / 180; return (1 - Math.log(Math.tan(l) + 1 / Math.cos(l)) / Math.PI) / 2; };
  const centredOn = (hex) => { const a = w.airwaves.planes.get(hex).d; return Math.abs(v.cx - mercX(a.lon)) < 1e-9 && Math.abs(v.cy - mercY(a.lat)) < 1e-9; };

  // The range outline is drawn and the button toggles it.
  await until(() => d.getElementById('range-outline'), 'the range outline');
  log.outlinePoints = Number(d.getElementById('range-outline').dataset.points);
  d.getElementById('outline').click();
  log.outlineHidden = d.getElementById('range-outline') === null && d.getElementById('outline').getAttribute('aria-pressed') === 'false';
  d.getElementById('outline').click();
  log.outlineShownAgain = d.getElementById('range-outline') !== null;

  th('alt').click(); log.altFirst = rows(); log.altFirstClass = th('alt').className;
  th('alt').click(); log.altSecond = rows(); log.altSecondClass = th('alt').className;
  th('flight').click(); log.flight = rows().map((r) => r[0]);

  d.querySelector('tr[data-hex="4ca1fa"]').click();
  log.rowClick = selected();
  log.rowClickCentred = centredOn('4ca1fa');
  await sleep(1500);
  log.followAfterUpdate = centredOn('4ca1fa');
  d.dispatchEvent(new w.KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
  log.afterEsc = selected();

  d.querySelector('g.aircraft[data-hex="3c6589"]').dispatchEvent(new w.MouseEvent('click', { bubbles: true }));
  log.markerClick = selected();
  d.getElementById('map').dispatchEvent(new w.MouseEvent('click', { bubbles: true }));
  log.afterMapClick = selected();

  let z = v.z; d.getElementById('zoom-in').click(); log.zoomButton = v.z - z;
  z = v.z; d.getElementById('zoom-out').click(); log.zoomOutButton = v.z - z;
  const r = d.getElementById('map').getBoundingClientRect();
  z = v.z;
  d.getElementById('map').dispatchEvent(new w.WheelEvent('wheel', { deltaY: -200, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true, cancelable: true }));
  log.wheelZoom = v.z - z;

  d.querySelector('tr[data-hex="4ca1fa"]').click();
  const before = [v.cx, v.cy];
  const ptr = (type, x, y) => d.getElementById('map').dispatchEvent(new w.PointerEvent(type, { pointerId: 7, clientX: x, clientY: y, bubbles: true }));
  ptr('pointerdown', 300, 300); ptr('pointermove', 340, 330); ptr('pointermove', 400, 360); ptr('pointerup', 400, 360);
  log.dragMoved = [v.cx - before[0], v.cy - before[1]];
  log.followAfterDrag = d.getElementById('follow').getAttribute('aria-pressed');
  const afterDrag = [v.cx, v.cy];
  await sleep(1500);
  log.stayedAfterDrag = v.cx === afterDrag[0] && v.cy === afterDrag[1];
  log.selectedAfterDrag = selected();

  // Trails have an age limit: 11 minutes later only the new point is left.
  const moving = w.airwaves.planes.get('4ca1fa');
  log.trailBeforeGap = moving.trail.length;
  const later = { ...moving.d, lat: moving.d.lat + 0.5, seen_pos: 0 };
  w.airwaves.apply({ now: w.airwaves.lastUpdate + 660, messages: 0, aircraft: [later] });
  log.trailAfterGap = w.airwaves.planes.get('4ca1fa').trail.length;
  log.trailDrawnAfterGap = d.querySelector('g.trail[data-hex="4ca1fa"]') !== null;
}
run().catch((e) => { log.error = String(e); }).finally(() => {
  document.getElementById('result').textContent = JSON.stringify(log);
});
</script>
</body></html>
"#;

// ---------------------------------------------------------------------------
// Tests.

#[test]
fn test_dom_under_sub_path_with_tiles() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let (server, counters) = fixture_server(FixtureOptions {
        prefix: "/airwaves",
        tiles: Some("tiles/{z}/{x}/{y}.svg"),
        failures_first: 1,
        always_fail: false,
    });
    let dom = dump_dom(&chromium, &server.url("/airwaves/?icao=406B90"), 6000).unwrap();
    let polls = counters.aircraft.load(Ordering::SeqCst);
    assert!(
        polls >= 4,
        "only {polls} aircraft.json requests in 6 s of virtual time"
    );

    let fleet = fleet();
    let all: BTreeSet<String> = fleet.iter().map(|p| p.hex.to_owned()).collect();
    let positioned: BTreeSet<String> = fleet
        .iter()
        .filter(|p| p.pos.is_some())
        .map(|p| p.hex.to_owned())
        .collect();

    // One table row per aircraft, one marker per aircraft with a position.
    let rows = hexes(&dom, "tr", "");
    assert_eq!(rows.len(), all.len(), "rows {rows:?}");
    assert_eq!(rows.iter().cloned().collect::<BTreeSet<_>>(), all);
    let markers = hexes(&dom, "g", "aircraft");
    assert_eq!(markers.len(), positioned.len(), "markers {markers:?}");
    assert_eq!(markers.iter().cloned().collect::<BTreeSet<_>>(), positioned);

    // Sorted by distance, ascending: the taxiing aircraft at the airport
    // first, the one without a position (no distance) last.
    assert_eq!(rows.first().map(String::as_str), Some("4b1805"));
    assert_eq!(rows.last().map(String::as_str), Some("484f6b"));
    let dist_th = elements(&dom, "th")
        .into_iter()
        .find(|e| e.attr("data-key") == Some("dist"))
        .unwrap();
    assert!(dist_th.has_class("asc"), "{dist_th:?}");

    // The 7700 row, and only it, is highlighted; so is its marker.
    let trs = elements(&dom, "tr");
    for tr in trs.iter().filter(|e| e.attr("data-hex").is_some()) {
        let hex = tr.attr("data-hex").unwrap();
        assert_eq!(tr.has_class("emergency"), hex == "406b90", "{tr:?}");
        assert_eq!(tr.has_class("no-pos"), hex == "484f6b", "{tr:?}");
        assert_eq!(
            tr.has_class("selected"),
            hex == "406b90",
            "?icao= selects: {tr:?}"
        );
    }
    // The registration from aircraft.json's `r` in its column.
    let row = trs
        .iter()
        .find(|e| e.attr("data-hex") == Some("a1b2c3"))
        .unwrap();
    let cells = &dom[row.end..];
    let cells = &cells[..cells.find("</tr>").unwrap()];
    assert!(cells.contains(">N2085A<"), "{cells:.400}");
    // The state of registry: its code, named in the cell's title.
    assert!(
        cells.contains("title=\"United States\">US<"),
        "{cells:.400}"
    );
    let gs = elements(&dom, "g");
    let marker = |hex: &str| {
        gs.iter()
            .find(|e| e.has_class("aircraft") && e.attr("data-hex") == Some(hex))
            .unwrap()
    };
    assert!(marker("406b90").has_class("emergency"));
    assert!(marker("406b90").has_class("selected"));
    assert_eq!(
        gs.iter().filter(|e| e.has_class("selected")).count(),
        2,
        "one marker, one trail"
    );
    let details = elements(&dom, "div")
        .into_iter()
        .find(|e| e.attr("id") == Some("details"))
        .unwrap();
    assert!(
        details.attr("hidden").is_none(),
        "details of the selection shown"
    );
    assert!(dom[details.end..].contains("squawk 7700: emergency"));
    assert!(marker("4b1805").has_class("ground"));
    assert!(!marker("4ca1fa").has_class("ground"));
    assert!(marker("a1b2c3").has_class("stale"), "seen_pos 22 s");

    // The marker label carries callsign and altitude.
    let label = &dom[marker("4ca1fa").end..];
    assert!(
        label[..label.find("</g>").unwrap()].contains(">RYR12AB<"),
        "{label:.300}"
    );
    assert!(
        label[..label.find("</g>").unwrap()].contains(">FL370 447kt<"),
        "{label:.300}"
    );

    // Receiver, five labelled range rings, a graticule.
    assert!(
        gs.iter().any(|e| e.attr("id") == Some("receiver")),
        "no receiver marker"
    );
    let rings: Vec<_> = elements(&dom, "path")
        .into_iter()
        .filter(|e| e.has_class("range-ring"))
        .collect();
    assert_eq!(
        rings
            .iter()
            .map(|e| e.attr("data-nm").unwrap())
            .collect::<Vec<_>>(),
        ["25", "50", "100", "150", "200"]
    );
    for nm in [25, 50, 100, 150, 200] {
        assert!(dom.contains(&format!(">{nm} NM<")), "ring label {nm} NM");
    }
    assert!(dom.contains("class=\"graticule\""));

    // Trails of the moving aircraft (polylines), none for the still ones.
    let trails = hexes(&dom, "g", "trail");
    for moving in ["4ca1fa", "3c6589", "406b90", "3e2d71"] {
        assert!(
            trails.iter().any(|h| h == moving),
            "no trail for {moving}: {trails:?}"
        );
    }
    assert!(
        !trails.iter().any(|h| h == "4b1805" || h == "a1b2c3"),
        "{trails:?}"
    );
    assert!(elements(&dom, "polyline").len() >= 4);

    // Tiles from the relative template, under the overlay.
    let images = elements(&dom, "image");
    assert!(!images.is_empty(), "no tiles");
    for img in &images {
        let href = img.attr("href").unwrap();
        assert!(
            href.starts_with("tiles/") && href.ends_with(".svg"),
            "{href}"
        );
    }
    assert!(dom.find("id=\"layer-tiles\"").unwrap() < dom.find("id=\"layer-aircraft\"").unwrap());
    assert!(
        counters.tiles.load(Ordering::SeqCst) > 0,
        "the browser fetched no tile"
    );

    // Header: counts, message rate, version, update time (UTC, hh:mm:ssZ);
    // the failed first poll's message is gone.
    assert_eq!(text_of_id(&dom, "count-total").as_deref(), Some("7"));
    assert_eq!(text_of_id(&dom, "count-pos").as_deref(), Some("6"));
    assert_eq!(text_of_id(&dom, "msg-rate").as_deref(), Some("250"));
    assert_eq!(
        text_of_id(&dom, "rx-version").as_deref(),
        Some("airwaves-test 0.1")
    );
    let updated = text_of_id(&dom, "last-update").unwrap();
    assert!(
        updated.starts_with("14:00:") && updated.ends_with('Z') && updated.len() == 9,
        "{updated}"
    );
    let status = elements(&dom, "div")
        .into_iter()
        .find(|e| e.attr("id") == Some("status"))
        .unwrap();
    assert!(
        status.attr("hidden").is_some(),
        "status still shown after recovery: {status:?}"
    );
}

#[test]
fn test_dead_receiver_shows_no_data_message() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let (server, counters) = fixture_server(FixtureOptions {
        prefix: "",
        tiles: None,
        failures_first: 0,
        always_fail: true,
    });
    let dom = dump_dom(&chromium, &server.url("/"), 3000).unwrap();
    assert!(counters.aircraft.load(Ordering::SeqCst) >= 2);
    let status = elements(&dom, "div")
        .into_iter()
        .find(|e| e.attr("id") == Some("status"))
        .unwrap();
    assert!(status.attr("hidden").is_none(), "{status:?}");
    assert_eq!(
        text_of_id(&dom, "status").as_deref(),
        Some("no data from receiver")
    );
    assert!(hexes(&dom, "tr", "").is_empty());
    assert_eq!(text_of_id(&dom, "count-total").as_deref(), Some("0"));
    // receiver.json did load: the receiver and its rings are drawn.
    assert!(dom.contains("id=\"receiver\""));
    assert_eq!(
        elements(&dom, "path")
            .iter()
            .filter(|e| e.has_class("range-ring"))
            .count(),
        5
    );
}

#[test]
fn test_screenshots() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let (server, _) = fixture_server(FixtureOptions {
        prefix: "",
        tiles: None,
        failures_first: 0,
        always_fail: false,
    });
    for (name, path, width, height) in [
        ("desktop", "/?icao=4ca1fa", 1280, 900),
        ("phone", "/", 390, 844),
    ] {
        let png = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("web_map-{name}.png"));
        screenshot(&chromium, &server.url(path), 8000, &png, width, height).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        let (w, h) = png_size(&bytes).unwrap();
        println!(
            "screenshot ({name}): {} ({w}x{h}, {} bytes)",
            png.display(),
            bytes.len()
        );
        assert_eq!((w, h), (width, height));
        assert!(
            bytes.len() > 20_000,
            "{} is only {} bytes: a blank page?",
            png.display(),
            bytes.len()
        );
    }
}

/// Altitude cell text as a sort value: ground below 0 ft, blank as `None`.
fn altitude_cell(text: &str) -> Option<f64> {
    match text {
        "" => None,
        "ground" => Some(-1.0),
        t => Some(t.replace(',', "").parse().unwrap()),
    }
}

#[test]
fn test_interactions() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let (server, _) = fixture_server(FixtureOptions {
        prefix: "",
        tiles: None,
        failures_first: 0,
        always_fail: false,
    });
    let dom = dump_dom(&chromium, &server.url("/test/interact.html"), 20_000).unwrap();
    let result = text_of_id(&dom, "result").unwrap();
    let log: Value = serde_json::from_str(&result).unwrap_or_else(|e| panic!("{e}: {result}"));
    assert!(log.get("error").is_none(), "{log:#}");

    // Altitude sort: first click descending, second ascending, blanks last both times.
    for (key, desc) in [("altFirst", true), ("altSecond", false)] {
        let alts: Vec<Option<f64>> = log[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| altitude_cell(r[1].as_str().unwrap()))
            .collect();
        assert_eq!(alts.last(), Some(&None), "{key}: {alts:?}");
        let known: Vec<f64> = alts.iter().flatten().copied().collect();
        assert_eq!(known.len(), 6, "{key}: {alts:?}");
        assert!(
            known
                .windows(2)
                .all(|w| if desc { w[0] >= w[1] } else { w[0] <= w[1] }),
            "{key}: {alts:?}"
        );
    }
    assert!(
        log["altFirstClass"].as_str().unwrap().contains("desc"),
        "{log:#}"
    );
    assert!(
        log["altSecondClass"].as_str().unwrap().contains("asc"),
        "{log:#}"
    );
    // Callsign sort, ascending, aircraft without one last.
    assert_eq!(
        log["flight"],
        json!([
            "3e2d71", "3c6589", "406b90", "484f6b", "4ca1fa", "4b1805", "a1b2c3"
        ])
    );

    // Select from the table: row, marker and details; the map follows it.
    let one = |hex: &str| json!({"rows": [hex], "markers": [hex], "details": true});
    let none = json!({"rows": [], "markers": [], "details": false});
    assert_eq!(log["rowClick"], one("4ca1fa"));
    assert_eq!(log["rowClickCentred"], json!(true));
    assert_eq!(
        log["followAfterUpdate"],
        json!(true),
        "recentred after the next update"
    );
    assert_eq!(log["afterEsc"], none);
    assert_eq!(log["markerClick"], one("3c6589"));
    assert_eq!(log["afterMapClick"], none);

    // Zoom: buttons one level each way, the wheel half a level (deltaY -200).
    for (key, levels) in [
        ("zoomButton", 1.0),
        ("zoomOutButton", -1.0),
        ("wheelZoom", 0.5),
    ] {
        assert!(
            (log[key].as_f64().unwrap() - levels).abs() < 1e-9,
            "{key}: {log:#}"
        );
    }

    // Drag pans against the pointer, turns follow off and the map stays put.
    let moved = log["dragMoved"].as_array().unwrap();
    assert!(
        moved[0].as_f64().unwrap() < 0.0 && moved[1].as_f64().unwrap() < 0.0,
        "{log:#}"
    );
    assert_eq!(log["followAfterDrag"], json!("false"));
    assert_eq!(log["stayedAfterDrag"], json!(true));
    assert_eq!(log["selectedAfterDrag"], one("4ca1fa"));
    // The trail's age limit (10 minutes): after an 11-minute gap only the
    // new point is left, and no line is drawn.
    assert!(log["trailBeforeGap"].as_u64().unwrap() >= 2, "{log:#}");
    assert_eq!(log["trailAfterGap"], json!(1), "{log:#}");
    assert_eq!(log["trailDrawnAfterGap"], json!(false), "{log:#}");
    // The range outline: every point drawn, toggled off and on.
    assert_eq!(log["outlinePoints"], json!(OUTLINE_POINTS), "{log:#}");
    assert_eq!(log["outlineHidden"], json!(true), "{log:#}");
    assert_eq!(log["outlineShownAgain"], json!(true), "{log:#}");
}

#[test]
fn test_dom_reader() {
    let dom = r#"<tr data-hex="abc" class="emergency selected"><td>x</td></tr><div id="s" hidden="">no &amp; data</div><input disabled/>"#;
    let trs = elements(dom, "tr");
    assert_eq!(trs.len(), 1);
    assert_eq!(trs[0].name, "tr");
    assert_eq!(trs[0].attr("data-hex"), Some("abc"));
    assert!(trs[0].has_class("selected") && !trs[0].has_class("emerg"));
    let div = &elements(dom, "div")[0];
    assert_eq!(div.attr("hidden"), Some(""));
    assert_eq!(text_of_id(dom, "s").as_deref(), Some("no & data"));
    assert_eq!(elements(dom, "input")[0].attr("disabled"), Some(""));
    assert_eq!(text_of_id(dom, "nope"), None);
    assert!(png_size(b"not a png").is_err());
}
