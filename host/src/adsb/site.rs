//! What the feeder's HTTP port serves: the built-in web map, the JSON
//! of the last snapshot, and Prometheus metrics.
//!
//! | path | content |
//! |---|---|
//! | `/`, `/index.html`, other assets | the web map ([`crate::web`]) |
//! | `/data/aircraft.json` (also `/aircraft.json`) | readsb / dump1090-fa `aircraft.json` |
//! | `/data/receiver.json` (also `/receiver.json`) | `receiver.json` |
//! | `/data/stats.json` (also `/stats.json`) | `stats.json` |
//! | `/data/outline.json` (also `/outline.json`) | readsb's range outline ([`crate::feed::outline`]) |
//! | `/data/fisb.json` | FIS-B from the UAT uplink: stations, NEXRAD, text reports ([`crate::uat::fisb`]) |
//! | `/data/history/hour.json`, `day.json`, `week.json` | the graphs' time series ([`crate::feed::series`]) |
//! | `/graphs` | the graphs page |
//! | `/data/replay/index.json` | the replay's chunks: `{"now":S,"chunk_s":600,"keep_s":86400,"chunks":[{"start":S,"points":N},…]}` |
//! | `/data/replay/<start>.bin` | one chunk of positions ([`crate::feed::history`]'s format) |
//! | `/metrics` | Prometheus text format 0.0.4 |
//!
//! The decode thread renders a new [`Snapshot`] about once a second and
//! swaps it in; a request clones the `Arc` of the body it needs, so HTTP
//! never waits on decoding and decoding never waits on HTTP.

use crate::feed::history::History;
use crate::json::JsonWriter;
use crate::net::http::{Response, Site};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// Rendered JSON documents and metrics, shared with the HTTP threads.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// `aircraft.json`.
    pub aircraft: Arc<[u8]>,
    /// `receiver.json`.
    pub receiver: Arc<[u8]>,
    /// `stats.json`.
    pub stats: Arc<[u8]>,
    /// Prometheus metrics.
    pub metrics: Arc<[u8]>,
    /// `outline.json`.
    pub outline: Arc<[u8]>,
    /// The graphs' series: hour, day, week.
    pub series: [Arc<[u8]>; 3],
    /// `fisb.json`: the UAT uplink's weather ([`crate::uat::fisb`]).
    pub fisb: Arc<[u8]>,
}

/// The feeder's [`Site`].
#[derive(Debug, Clone, Default)]
pub struct FeederSite {
    snapshot: Arc<RwLock<Snapshot>>,
    history: Arc<OnceLock<Arc<Mutex<History>>>>,
}

impl FeederSite {
    /// A site with an empty snapshot.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replace the snapshot.
    pub fn publish(&self, s: Snapshot) {
        // A poisoned lock only means a panicking writer: take it anyway.
        let mut g = self.snapshot.write().unwrap_or_else(|e| e.into_inner());
        *g = s;
    }

    /// Serve the replay from `history` (shared with the decode thread);
    /// the first call counts.
    pub fn set_history(&self, history: Arc<Mutex<History>>) {
        let _ = self.history.set(history);
    }

    /// `/data/replay/…`: the index, or one chunk.
    fn replay(&self, name: &str) -> Option<Response> {
        let history = self.history.get()?;
        if name == "index.json" {
            let index = history.lock().unwrap_or_else(|e| e.into_inner()).index();
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let mut out = String::with_capacity(64 + 40 * index.len());
            let mut o = JsonWriter::object(&mut out);
            o.int("now", now as i64);
            o.int("chunk_s", crate::feed::history::CHUNK_S as i64);
            o.int("keep_s", crate::feed::history::KEEP_S as i64);
            let mut list = JsonWriter::array(o.key("chunks"));
            for c in index {
                let mut e = JsonWriter::object(list.element());
                e.int("start", c.start_s as i64);
                e.int("points", i64::from(c.points));
                e.close_object();
            }
            list.close_array();
            o.close_object();
            return Some(Response::json(out.into_bytes()));
        }
        let start: u64 = name.strip_suffix(".bin")?.parse().ok()?;
        let chunk = history
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .chunk(start)?;
        Some(match chunk {
            Ok(bytes) => Response {
                content_type: "application/octet-stream",
                ..Response::json(bytes)
            },
            Err(why) => Response::text(500, format!("chunk {start}: {why}\n").into_bytes()),
        })
    }

    fn current(&self) -> Snapshot {
        self.snapshot
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Site for FeederSite {
    fn get(&self, path: &str, _query: &str) -> Option<Response> {
        let json = |body: Arc<[u8]>| Some(Response::json(body.to_vec()));
        match path {
            "/data/aircraft.json" | "/aircraft.json" => json(self.current().aircraft),
            "/data/receiver.json" | "/receiver.json" => json(self.current().receiver),
            "/data/stats.json" | "/stats.json" => json(self.current().stats),
            "/data/outline.json" | "/outline.json" => json(self.current().outline),
            "/data/fisb.json" => json(self.current().fisb),
            "/data/history/hour.json" => json(self.current().series[0].clone()),
            "/data/history/day.json" => json(self.current().series[1].clone()),
            "/data/history/week.json" => json(self.current().series[2].clone()),
            p if p.starts_with("/data/replay/") => self.replay(&p["/data/replay/".len()..]),
            "/graphs" => crate::web::asset("/graphs.html")
                .map(|a| Response::static_file(a.content_type, a.bytes)),
            "/metrics" => Some(Response {
                content_type: "text/plain; version=0.0.4; charset=utf-8",
                ..Response::text(200, self.current().metrics.to_vec())
            }),
            _ => crate::web::asset(path).map(|a| Response::static_file(a.content_type, a.bytes)),
        }
    }
}
