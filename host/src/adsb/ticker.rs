//! The feeder's once-a-second work: [`Ticker`] brings the counters up to
//! date and renders every document of the site (aircraft, receiver,
//! stats, metrics, outline, the graphs' series, FIS-B) into a
//! [`Snapshot`]; [`write_json_dir`] writes it for `--write-json`.

use super::cpu;
use super::network::Network;
use super::pipeline::{Pipeline, TRACKER_CAPACITY};
use super::run::unix_ms;
use super::site::Snapshot;
use super::source::Shared;
use super::state::write_atomic;
use crate::feed::aircraft_db::AircraftDb;
use crate::feed::history::History;
use crate::feed::json::{ReceiverInfo, write_aircraft_json_with, write_receiver_json};
use crate::feed::metrics::{write_metrics, write_series_metrics};
use crate::feed::series::{Sample, Series};
use crate::feed::stats::{Counters, StatsHistory};
use crate::uat::fisb::FisbStore;
use airwaves_core::modes::cpr::Position;
use airwaves_core::modes::tracker::Tracker;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// `outline.json` without a receiver location.
const EMPTY_OUTLINE: &str = r#"{"actualRange":{"last24h":{"points":[]}}}"#;

/// Renders the once-a-second snapshot: JSON, stats, metrics.
pub(super) struct Ticker {
    pub(super) history: StatsHistory,
    pub(super) receiver_json: Arc<[u8]>,
    /// What `receiver_json` was rendered from (again when the gain moves).
    pub(super) receiver_info: ReceiverInfo,
    pub(super) receiver: Option<Position>,
    pub(super) shared: Arc<Shared>,
    /// The user's aircraft database (`--db-file`).
    pub(super) db: Option<AircraftDb>,
    /// The graphs' time series, and their JSON per resolution.
    pub(super) series: Series,
    pub(super) series_json: [Arc<[u8]>; 3],
    /// Counters, signal time and wall time of the last sample.
    pub(super) last_sample: Option<(Counters, u64, Instant)>,
    /// Positions for the replay (shared with the site).
    pub(super) positions: Arc<Mutex<History>>,
    /// FIS-B from the UAT uplink (`--uat-device`, `--demo`).
    pub(super) fisb: FisbStore,
}

/// Load `--db-file`; a file that cannot be used is reported and the
/// feeder runs without it.
pub(super) fn load_db(path: &Path) -> Option<AircraftDb> {
    match AircraftDb::load(path) {
        Ok(db) => {
            eprintln!(
                "airwaves adsb: --db-file {}: {} aircraft ({} lines skipped)",
                path.display(),
                db.len(),
                db.skipped()
            );
            Some(db)
        }
        Err(e) => {
            eprintln!(
                "airwaves adsb: --db-file {}: {e}; going on without it",
                path.display()
            );
            None
        }
    }
}

impl Ticker {
    /// Expire aircraft, bring the measured counters (CPU, drops) up to
    /// date and render every document. `ring_dropped` is the samples the
    /// source thread could not queue.
    pub(super) fn snapshot(
        &mut self,
        pipeline: &mut Pipeline,
        net: &Network,
        ring_dropped: u64,
    ) -> Snapshot {
        pipeline.advance_wall_clock(unix_ms());
        let now = pipeline.now_ms();
        pipeline.expire();
        let c = pipeline.counters_mut();
        c.cpu_demod_ms = cpu::thread_cpu_ms().unwrap_or(0);
        c.cpu_reader_ms = self.shared.cpu_ms.load(Ordering::Relaxed);
        let total = cpu::process_cpu_ms().unwrap_or(0);
        c.cpu_background_ms = total.saturating_sub(c.cpu_demod_ms + c.cpu_reader_ms);
        c.samples_dropped =
            ring_dropped + self.shared.device_lost_bytes.load(Ordering::Relaxed) / 2;
        c.remote.bad = net.beast_stats.counts().malformed;
        c.clients_dropped = net.hubs().fold([0, 0], |[slow, stalled], h| {
            let s = h.stats();
            [slow + s.dropped_slow, stalled + s.dropped_stalled]
        });
        let counters = *pipeline.counters();
        let gain_db = counters.gain_tenths.map(|t| f64::from(t) / 10.0);
        if gain_db != self.receiver_info.gain_db {
            self.receiver_info.gain_db = gain_db;
            let mut r = String::new();
            write_receiver_json(&self.receiver_info, &mut r);
            self.receiver_json = Arc::from(r.into_bytes());
        }
        self.history.record(now, &counters);
        self.record_series(now, &counters, pipeline.tracker());
        self.record_history(now, pipeline.tracker());
        pipeline.counters_mut().clear_recent();
        let mut a = String::with_capacity(64 * 1024);
        write_aircraft_json_with(
            pipeline.tracker(),
            now,
            counters.messages(),
            self.receiver,
            self.db.as_ref(),
            &mut a,
        );
        let mut s = String::with_capacity(8 * 1024);
        self.history.write_stats_json(now, &counters, &mut s);
        let mut m = String::with_capacity(8 * 1024);
        write_metrics(&counters, pipeline.tracker(), now, &net.clients(), &mut m);
        write_series_metrics(&self.series, &mut m);
        let mut o = String::with_capacity(16 * 1024);
        match pipeline.outline() {
            Some(outline) => outline.write_json(now, &mut o),
            None => o.push_str(EMPTY_OUTLINE),
        }
        let mut f = String::new();
        self.fisb.write_json(now, &mut f);
        Snapshot {
            fisb: Arc::from(f.into_bytes()),
            aircraft: Arc::from(a.into_bytes()),
            receiver: self.receiver_json.clone(),
            stats: Arc::from(s.into_bytes()),
            metrics: Arc::from(m.into_bytes()),
            outline: Arc::from(o.into_bytes()),
            series: self.series_json.clone(),
        }
    }

    /// Offer every aircraft's latest position to the replay's history.
    fn record_history(&mut self, now: u64, tracker: &Tracker<TRACKER_CAPACITY>) {
        let mut h = self.positions.lock().unwrap_or_else(|e| e.into_inner());
        let now_s = now / 1000;
        for ac in tracker.iter() {
            h.offer(ac, now_s);
        }
        h.roll(now_s);
        if let Some(e) = h.write_error.take() {
            eprintln!("airwaves adsb: history: {e} (kept in memory)");
        }
    }

    /// Add this tick's sample to the graphs' series; render the JSON of
    /// every resolution whose bucket closed (or that was never rendered).
    fn record_series(
        &mut self,
        now: u64,
        counters: &Counters,
        tracker: &Tracker<TRACKER_CAPACITY>,
    ) {
        let wall = Instant::now();
        let closed = match &self.last_sample {
            Some((prev, t, w)) if now > *t => {
                let wall_ms = wall.duration_since(*w).as_millis() as u64;
                let s = Sample::from_counters(prev, counters, now - t, wall_ms, tracker, now);
                self.series.record(now, &s)
            }
            Some(_) => [false; 3],
            None => [true; 3],
        };
        if self.last_sample.as_ref().is_none_or(|(_, t, _)| now > *t) {
            self.last_sample = Some((*counters, now, wall));
        }
        for (i, changed) in closed.into_iter().enumerate() {
            if changed || self.series_json[i].is_empty() {
                let mut j = String::with_capacity(32 * 1024);
                self.series.write_json(i, &mut j);
                self.series_json[i] = Arc::from(j.into_bytes());
            }
        }
    }
}

/// Write the snapshot's JSON into `dir`, each file through a temporary
/// name and a rename so readers never see half a file.
pub(super) fn write_json_dir(dir: &Path, snap: &Snapshot) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, body) in [
        ("aircraft.json", &snap.aircraft),
        ("receiver.json", &snap.receiver),
        ("stats.json", &snap.stats),
        ("outline.json", &snap.outline),
    ] {
        write_atomic(dir, name, body)?;
    }
    Ok(())
}
