//! Receiver counters and dump1090-fa's `stats.json`.
//!
//! [`Counters`] are cumulative since start (the pipeline adds to one copy
//! and hands snapshots on); [`StatsHistory`] keeps one snapshot per
//! minute for 15 minutes and writes `stats.json` with the periods
//! `latest` (since the last full minute), `last1min`, `last5min`,
//! `last15min` and `total`, each `{start, end, local, remote, cpr, cpu,
//! tracks, messages, max_distance}` as described in readsb's and
//! dump1090-fa's `README-json.md`.
//!
//! Counts over a period are differences of snapshots. Peaks (strongest
//! signal, largest distance) cannot be differenced, so `Counters` carries
//! them twice: since start, and since the last
//! [`clear_recent`](Counters::clear_recent) (the pipeline calls it each
//! time it takes a snapshot for [`StatsHistory::record`]); the history
//! folds the recent peaks into per-minute maxima.

use core::fmt::Write;

use airwaves_core::modes::adsb::AdsbRepr;
use airwaves_core::modes::demod::DemodStats;
use airwaves_core::modes::tracker::{RejectReason, TrackerStats, UpdateOutcome};

use super::json::JsonWriter;

/// Per-source message counters (local demodulator or remote Beast input).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SourceCounters {
    /// Mode S frames received (CRC-checked frames handed to the tracker).
    pub modes: u64,
    /// Mode A/C replies received.
    pub modeac: u64,
    /// Frames or messages rejected as invalid (bad CRC, length, content,
    /// malformed remote input; not unknown addresses).
    pub bad: u64,
    /// Frames rejected because their address was not known.
    pub unknown_icao: u64,
    /// Frames accepted, by bits repaired: 0, 1, 2, 3 or more.
    pub accepted: [u64; 4],
}

impl SourceCounters {
    /// Count one Mode S frame with `repaired_bits` bits repaired and the
    /// tracker's verdict on it.
    ///
    /// ```
    /// use airwaves::feed::stats::SourceCounters;
    /// use airwaves_core::modes::tracker::RejectReason;
    /// let mut c = SourceCounters::default();
    /// c.add_frame(5, Ok(()));
    /// c.add_frame(0, Err(RejectReason::UnknownAddress));
    /// c.add_frame(0, Err(RejectReason::Crc));
    /// assert_eq!((c.modes, c.accepted, c.unknown_icao, c.bad), (3, [0, 0, 0, 1], 1, 1));
    /// ```
    pub fn add_frame(&mut self, repaired_bits: u8, verdict: Result<(), RejectReason>) {
        self.modes += 1;
        match verdict {
            Ok(()) => {
                let i = usize::from(repaired_bits.min(3));
                if let Some(a) = self.accepted.get_mut(i) {
                    *a += 1;
                }
            }
            Err(RejectReason::UnknownAddress) => self.unknown_icao += 1,
            Err(_) => self.bad += 1,
        }
    }

    /// Frames accepted, all repair counts.
    pub fn accepted_total(&self) -> u64 {
        self.accepted.iter().sum()
    }

    fn delta(&self, e: &SourceCounters) -> SourceCounters {
        let mut accepted = [0; 4];
        for ((d, a), b) in accepted.iter_mut().zip(self.accepted).zip(e.accepted) {
            *d = a.saturating_sub(b);
        }
        SourceCounters {
            modes: self.modes.saturating_sub(e.modes),
            modeac: self.modeac.saturating_sub(e.modeac),
            bad: self.bad.saturating_sub(e.bad),
            unknown_icao: self.unknown_icao.saturating_sub(e.unknown_icao),
            accepted,
        }
    }
}

/// Where a frame came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameSource {
    /// The local demodulator.
    Local,
    /// Remote input (Beast binary over TCP).
    Remote,
}

/// Everything the receiver counts, cumulative since start (except the
/// `recent_*` peaks). `Copy`, so a snapshot is a plain copy.
/// [`Default`] is [`Counters::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Counters {
    /// I/Q samples demodulated.
    pub samples_processed: u64,
    /// I/Q samples lost before demodulation (USB overruns, full ring).
    pub samples_dropped: u64,
    /// Messages from the local demodulator.
    pub local: SourceCounters,
    /// Messages from remote (Beast) input, MLAT results included.
    pub remote: SourceCounters,
    /// Multilateration results received (Beast input frames stamped
    /// [`MLAT_TIMESTAMP`](airwaves_core::modes::encode::MLAT_TIMESTAMP)).
    pub mlat_results: u64,
    /// UAT downlink (aircraft) messages from the 978 MHz receiver
    /// (`--uat-device`); the frames they become count as remote.
    pub uat_downlink: u64,
    /// UAT uplink (ground station) messages.
    pub uat_uplink: u64,
    /// Airborne CPR position messages accepted (ADS-B TC 9–18, 20–22).
    pub cpr_airborne: u64,
    /// Surface CPR position messages accepted (ADS-B TC 5–8).
    pub cpr_surface: u64,
    /// A copy of the tracker's counters.
    pub tracker: TrackerStats,
    /// Sum of the linear power (full scale = 1) of frames with a signal
    /// level.
    pub signal_power_sum: f64,
    /// Number of frames in `signal_power_sum`.
    pub signal_count: u64,
    /// Strongest frame since start, dBFS (`-inf` before any).
    pub peak_signal_dbfs: f64,
    /// Strongest frame since [`clear_recent`](Self::clear_recent), dBFS.
    pub recent_peak_signal_dbfs: f64,
    /// Frames stronger than −3 dBFS.
    pub strong_signals: u64,
    /// Sum of the linear noise power estimates (one per buffer).
    pub noise_power_sum: f64,
    /// Number of estimates in `noise_power_sum`.
    pub noise_count: u64,
    /// Largest distance of a position from the receiver since start, m.
    pub max_distance_m: f64,
    /// Largest distance since [`clear_recent`](Self::clear_recent), m.
    pub recent_max_distance_m: f64,
    /// CPU time of the demodulator thread, ms.
    pub cpu_demod_ms: u64,
    /// CPU time of the USB / network reader thread, ms.
    pub cpu_reader_ms: u64,
    /// CPU time of the background (network, output) threads, ms.
    pub cpu_background_ms: u64,
    /// Output clients disconnected for falling behind: `[slow, stalled]`
    /// (their buffer full; nothing taken from it for seconds).
    pub clients_dropped: [u64; 2],
    /// The tuner gain now, tenths of a dB (`None`: the tuner's AGC, or
    /// not known).
    pub gain_tenths: Option<i32>,
    /// Gain changes made by the adaptive gain loop since start.
    pub gain_changes: u64,
    /// The Mode S demodulator's stage counters (a copy).
    pub demod: DemodStats,
}

/// `10·log10(p)`, `-inf` for 0.
fn db(p: f64) -> f64 {
    10.0 * p.log10()
}

impl Default for Counters {
    fn default() -> Self {
        Self::new()
    }
}

impl Counters {
    /// All zero, peaks at `-inf` dBFS / 0 m.
    pub const fn new() -> Self {
        let zero = SourceCounters {
            modes: 0,
            modeac: 0,
            bad: 0,
            unknown_icao: 0,
            accepted: [0; 4],
        };
        Counters {
            samples_processed: 0,
            samples_dropped: 0,
            local: zero,
            remote: zero,
            cpr_airborne: 0,
            cpr_surface: 0,
            mlat_results: 0,
            uat_downlink: 0,
            uat_uplink: 0,
            tracker: TrackerStats::new(),
            signal_power_sum: 0.0,
            signal_count: 0,
            peak_signal_dbfs: f64::NEG_INFINITY,
            recent_peak_signal_dbfs: f64::NEG_INFINITY,
            strong_signals: 0,
            noise_power_sum: 0.0,
            noise_count: 0,
            max_distance_m: 0.0,
            recent_max_distance_m: 0.0,
            cpu_demod_ms: 0,
            cpu_reader_ms: 0,
            cpu_background_ms: 0,
            clients_dropped: [0; 2],
            gain_tenths: None,
            gain_changes: 0,
            demod: DemodStats::new(),
        }
    }

    /// Count one Mode S frame given to the tracker and its result: the
    /// source's counters ([`SourceCounters::add_frame`]), the CPR message
    /// kinds of accepted DF17/18 frames, and for local frames the signal
    /// level ([`add_signal`](Self::add_signal)). The tracker's own counters
    /// are copied separately into [`tracker`](Self::tracker).
    ///
    /// ```
    /// use airwaves::feed::stats::{Counters, FrameSource};
    /// use airwaves_core::modes::tracker::{ReceivedFrame, Tracker, TrackerConfig};
    /// let mut tracker = Tracker::<8>::new(TrackerConfig::DEFAULT);
    /// let mut c = Counters::new();
    /// let pos = [0x8D, 0x40, 0x62, 0x1D, 0x58, 0xC3, 0x86, 0x43, 0x5C, 0xC4, 0x12, 0x69, 0x2A, 0xD6];
    /// let f = ReceivedFrame::new(&pos, 0).with_signal(-6.0);
    /// let r = tracker.update(&f);
    /// c.add_frame(FrameSource::Local, f.repaired_bits, f.signal_dbfs, &r);
    /// assert_eq!((c.local.accepted[0], c.cpr_airborne, c.signal_count), (1, 1, 1));
    /// ```
    pub fn add_frame(
        &mut self,
        source: FrameSource,
        repaired_bits: u8,
        signal_dbfs: f32,
        result: &Result<UpdateOutcome, RejectReason>,
    ) {
        let counters = match source {
            FrameSource::Local => &mut self.local,
            FrameSource::Remote => &mut self.remote,
        };
        counters.add_frame(repaired_bits, result.map(|_| ()));
        if let Ok(o) = result {
            // CPR messages, from the ADS-B message the tracker parsed.
            match o.adsb {
                Some(AdsbRepr::SurfacePosition(_)) => self.cpr_surface += 1,
                Some(AdsbRepr::AirbornePosition(_)) => self.cpr_airborne += 1,
                _ => {}
            }
        }
        if source == FrameSource::Local {
            self.add_signal(f64::from(signal_dbfs));
        }
    }

    /// Count one frame's signal level in dBFS (≤ 0); ignored unless finite.
    ///
    /// ```
    /// use airwaves::feed::stats::Counters;
    /// let mut c = Counters::new();
    /// c.add_signal(-10.0);
    /// c.add_signal(-1.0);
    /// assert_eq!((c.signal_count, c.strong_signals, c.peak_signal_dbfs), (2, 1, -1.0));
    /// // 10·log10((10^-1 + 10^-0.1) / 2) = -3.495
    /// assert!((c.mean_signal_dbfs().unwrap() - (-3.495)).abs() < 0.001);
    /// ```
    pub fn add_signal(&mut self, dbfs: f64) {
        if !dbfs.is_finite() {
            return;
        }
        self.signal_power_sum += 10f64.powf(dbfs / 10.0);
        self.signal_count += 1;
        if dbfs > -3.0 {
            self.strong_signals += 1;
        }
        self.peak_signal_dbfs = self.peak_signal_dbfs.max(dbfs);
        self.recent_peak_signal_dbfs = self.recent_peak_signal_dbfs.max(dbfs);
    }

    /// Count one noise estimate in dBFS; ignored unless finite.
    pub fn add_noise(&mut self, dbfs: f64) {
        if dbfs.is_finite() {
            self.noise_power_sum += 10f64.powf(dbfs / 10.0);
            self.noise_count += 1;
        }
    }

    /// Note the distance of a position from the receiver, m; ignored
    /// unless finite.
    pub fn add_distance_m(&mut self, m: f64) {
        if m.is_finite() {
            self.max_distance_m = self.max_distance_m.max(m);
            self.recent_max_distance_m = self.recent_max_distance_m.max(m);
        }
    }

    /// Reset the `recent_*` peaks (after taking a snapshot for
    /// [`StatsHistory::record`]).
    pub fn clear_recent(&mut self) {
        self.recent_peak_signal_dbfs = f64::NEG_INFINITY;
        self.recent_max_distance_m = 0.0;
    }

    /// Mean signal power of the counted frames, dBFS; `None` before any.
    pub fn mean_signal_dbfs(&self) -> Option<f64> {
        (self.signal_count > 0).then(|| db(self.signal_power_sum / self.signal_count as f64))
    }

    /// Mean noise power, dBFS; `None` before any estimate.
    pub fn mean_noise_dbfs(&self) -> Option<f64> {
        (self.noise_count > 0).then(|| db(self.noise_power_sum / self.noise_count as f64))
    }

    /// Mode S messages accepted from any source.
    pub fn messages(&self) -> u64 {
        self.local.accepted_total() + self.remote.accepted_total()
    }

    /// The counts between `earlier` and `self` (saturating at 0). Peaks
    /// cannot be differenced: they are `self`'s (since start, and recent).
    ///
    /// ```
    /// use airwaves::feed::stats::Counters;
    /// let mut a = Counters::new();
    /// a.samples_processed = 100;
    /// let mut b = a;
    /// b.samples_processed = 350;
    /// b.tracker.positions_global = 4;
    /// let d = b.delta(&a);
    /// assert_eq!((d.samples_processed, d.tracker.positions_global), (250, 4));
    /// ```
    pub fn delta(&self, earlier: &Counters) -> Counters {
        let e = earlier;
        Counters {
            samples_processed: self.samples_processed.saturating_sub(e.samples_processed),
            samples_dropped: self.samples_dropped.saturating_sub(e.samples_dropped),
            local: self.local.delta(&e.local),
            remote: self.remote.delta(&e.remote),
            cpr_airborne: self.cpr_airborne.saturating_sub(e.cpr_airborne),
            cpr_surface: self.cpr_surface.saturating_sub(e.cpr_surface),
            mlat_results: self.mlat_results.saturating_sub(e.mlat_results),
            uat_downlink: self.uat_downlink.saturating_sub(e.uat_downlink),
            uat_uplink: self.uat_uplink.saturating_sub(e.uat_uplink),
            tracker: tracker_delta(&self.tracker, &e.tracker),
            signal_power_sum: (self.signal_power_sum - e.signal_power_sum).max(0.0),
            signal_count: self.signal_count.saturating_sub(e.signal_count),
            peak_signal_dbfs: self.peak_signal_dbfs,
            recent_peak_signal_dbfs: self.recent_peak_signal_dbfs,
            strong_signals: self.strong_signals.saturating_sub(e.strong_signals),
            noise_power_sum: (self.noise_power_sum - e.noise_power_sum).max(0.0),
            noise_count: self.noise_count.saturating_sub(e.noise_count),
            max_distance_m: self.max_distance_m,
            recent_max_distance_m: self.recent_max_distance_m,
            cpu_demod_ms: self.cpu_demod_ms.saturating_sub(e.cpu_demod_ms),
            cpu_reader_ms: self.cpu_reader_ms.saturating_sub(e.cpu_reader_ms),
            cpu_background_ms: self.cpu_background_ms.saturating_sub(e.cpu_background_ms),
            clients_dropped: [
                self.clients_dropped[0].saturating_sub(e.clients_dropped[0]),
                self.clients_dropped[1].saturating_sub(e.clients_dropped[1]),
            ],
            gain_tenths: self.gain_tenths,
            gain_changes: self.gain_changes.saturating_sub(e.gain_changes),
            demod: self.demod.delta(&e.demod),
        }
    }
}

/// Field-wise `a − b` of tracker counters (saturating).
fn tracker_delta(a: &TrackerStats, b: &TrackerStats) -> TrackerStats {
    let mut frames_by_df = [0; 32];
    for ((d, x), y) in frames_by_df
        .iter_mut()
        .zip(a.frames_by_df)
        .zip(b.frames_by_df)
    {
        *d = x.saturating_sub(y);
    }
    macro_rules! sub {
        ($($f:ident),*) => {
            TrackerStats { frames_by_df, $($f: a.$f.saturating_sub(b.$f)),* }
        };
    }
    sub!(
        accepted,
        rejected_length,
        rejected_crc,
        rejected_unknown_address,
        rejected_unsupported,
        rejected_altitude,
        rejected_velocity,
        positions_global,
        positions_local_aircraft,
        positions_local_receiver,
        positions_rejected_speed,
        positions_rejected_range,
        positions_rejected_bad,
        position_resets,
        aircraft_added,
        aircraft_expired,
        aircraft_evicted,
        aircraft_single_message
    )
}

/// Minutes kept (the longest window is 15 minutes, which needs the
/// snapshot 15 minutes before the last one).
const MINUTES: usize = 16;

/// A snapshot taken at a minute boundary, with the peaks of the minute
/// that ended there.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Boundary {
    t_ms: u64,
    counters: Counters,
    peak_signal_dbfs: f64,
    max_distance_m: f64,
}

/// One `Counters` snapshot per minute for the last 15 minutes, for
/// `stats.json`. Fixed size (about 10 KiB), no allocation.
#[derive(Clone, Debug)]
pub struct StatsHistory {
    start: Boundary,
    /// Ring of the last [`MINUTES`] boundaries; `ring[(head + i) % 16]`
    /// for `i < len`, oldest first.
    ring: [Boundary; MINUTES],
    head: usize,
    len: usize,
    /// End of the current minute, ms (on the grid `start + k·60 s`).
    next_boundary_ms: u64,
    /// Peaks seen so far in the current minute.
    minute_peak_signal_dbfs: f64,
    minute_max_distance_m: f64,
}

impl StatsHistory {
    /// Start at `start_unix_ms` (ms since 1970 UTC) with the counters then.
    pub fn new(start_unix_ms: u64, c0: Counters) -> Self {
        let start = Boundary {
            t_ms: start_unix_ms,
            counters: c0,
            peak_signal_dbfs: f64::NEG_INFINITY,
            max_distance_m: 0.0,
        };
        StatsHistory {
            start,
            ring: [start; MINUTES],
            head: 0,
            len: 0,
            next_boundary_ms: start_unix_ms.saturating_add(60_000),
            minute_peak_signal_dbfs: f64::NEG_INFINITY,
            minute_max_distance_m: 0.0,
        }
    }

    /// Take a snapshot `c` at `now_unix_ms` (call about once a second):
    /// folds its recent peaks into the current minute and, once the minute
    /// is over, keeps `c` as the minute's end. A gap of several minutes
    /// between calls closes one long "minute"; the next ends on the
    /// original one-minute grid.
    pub fn record(&mut self, now_unix_ms: u64, c: &Counters) {
        self.minute_peak_signal_dbfs = self.minute_peak_signal_dbfs.max(c.recent_peak_signal_dbfs);
        self.minute_max_distance_m = self.minute_max_distance_m.max(c.recent_max_distance_m);
        if now_unix_ms < self.next_boundary_ms {
            return;
        }
        let b = Boundary {
            t_ms: now_unix_ms,
            counters: *c,
            peak_signal_dbfs: self.minute_peak_signal_dbfs,
            max_distance_m: self.minute_max_distance_m,
        };
        if self.len < MINUTES {
            self.ring[(self.head + self.len) % MINUTES] = b;
            self.len += 1;
        } else {
            self.ring[self.head] = b;
            self.head = (self.head + 1) % MINUTES;
        }
        let k = (now_unix_ms - self.start.t_ms) / 60_000 + 1;
        self.next_boundary_ms = self.start.t_ms.saturating_add(k.saturating_mul(60_000));
        self.minute_peak_signal_dbfs = f64::NEG_INFINITY;
        self.minute_max_distance_m = 0.0;
    }

    /// The boundary `back` minutes before the last one (0 = the last);
    /// the start if there are not that many.
    fn boundary(&self, back: usize) -> &Boundary {
        if back >= self.len {
            &self.start
        } else {
            &self.ring[(self.head + self.len - 1 - back) % MINUTES]
        }
    }

    /// The last `minutes` full minutes: (from, to, peak signal, max
    /// distance over the minutes in between).
    fn window(&self, minutes: usize) -> (&Boundary, &Boundary, f64, f64) {
        let to = self.boundary(0);
        let from = self.boundary(minutes);
        let (mut peak, mut dist) = (f64::NEG_INFINITY, 0.0f64);
        for back in 0..minutes.min(self.len) {
            let b = self.boundary(back);
            peak = peak.max(b.peak_signal_dbfs);
            dist = dist.max(b.max_distance_m);
        }
        (from, to, peak, dist)
    }

    /// Append dump1090-fa's `stats.json` for `now_unix_ms`, `current`
    /// being the counters now (their recent peaks count towards `latest`).
    /// A window without a full minute yet is empty (`start` = `end`).
    pub fn write_stats_json(&self, now_unix_ms: u64, current: &Counters, out: &mut String) {
        let mut top = JsonWriter::object(out);
        let last = self.boundary(0);
        let latest_peak = self
            .minute_peak_signal_dbfs
            .max(current.recent_peak_signal_dbfs);
        let latest_dist = self
            .minute_max_distance_m
            .max(current.recent_max_distance_m);
        write_period(
            top.key("latest"),
            last.t_ms,
            now_unix_ms,
            &current.delta(&last.counters),
            latest_peak,
            latest_dist,
        );
        for (key, minutes) in [("last1min", 1), ("last5min", 5), ("last15min", 15)] {
            let (from, to, peak, dist) = self.window(minutes);
            write_period(
                top.key(key),
                from.t_ms,
                to.t_ms,
                &to.counters.delta(&from.counters),
                peak,
                dist,
            );
        }
        write_period(
            top.key("total"),
            self.start.t_ms,
            now_unix_ms,
            &current.delta(&self.start.counters),
            current.peak_signal_dbfs,
            current.max_distance_m,
        );
        // As readsb: the tuner gain in dB at the top level, when known.
        if let Some(g) = current.gain_tenths {
            top.float("gain_db", f64::from(g) / 10.0, 1);
        }
        top.close_object();
    }
}

/// Write `[a, b, c, d]`.
fn write_array(out: &mut String, v: &[u64]) {
    let mut a = JsonWriter::array(out);
    for x in v {
        let _ = write!(a.element(), "{x}");
    }
    a.close_array();
}

/// Clamp to the JSON-safe integer range of `i64`.
fn int(v: u64) -> i64 {
    v.min(i64::MAX as u64) as i64
}

/// One period object; `d` holds the counts over the period.
fn write_period(
    out: &mut String,
    start_ms: u64,
    end_ms: u64,
    d: &Counters,
    peak_dbfs: f64,
    max_distance_m: f64,
) {
    let mut o = JsonWriter::object(out);
    o.float("start", start_ms as f64 / 1000.0, 1);
    o.float("end", end_ms as f64 / 1000.0, 1);
    {
        let mut l = JsonWriter::object(o.key("local"));
        l.int("samples_processed", int(d.samples_processed));
        l.int("samples_dropped", int(d.samples_dropped));
        l.int("modeac", int(d.local.modeac));
        l.int("modes", int(d.local.modes));
        l.int("bad", int(d.local.bad));
        l.int("unknown_icao", int(d.local.unknown_icao));
        write_array(l.key("accepted"), &d.local.accepted);
        if let Some(s) = d.mean_signal_dbfs() {
            l.float("signal", s, 1);
        }
        if let Some(n) = d.mean_noise_dbfs() {
            l.float("noise", n, 1);
        }
        l.float("peak_signal", peak_dbfs, 1);
        l.int("strong_signals", int(d.strong_signals));
        l.close_object();
    }
    {
        let mut r = JsonWriter::object(o.key("remote"));
        r.int("modeac", int(d.remote.modeac));
        r.int("modes", int(d.remote.modes));
        r.int("bad", int(d.remote.bad));
        r.int("unknown_icao", int(d.remote.unknown_icao));
        write_array(r.key("accepted"), &d.remote.accepted);
        r.close_object();
    }
    {
        let t = &d.tracker;
        let mut c = JsonWriter::object(o.key("cpr"));
        c.int("surface", int(d.cpr_surface));
        c.int("airborne", int(d.cpr_airborne));
        c.int("global_ok", int(t.positions_global));
        c.int("global_bad", int(t.positions_rejected_bad));
        c.int("global_range", int(t.positions_rejected_range));
        c.int("global_speed", int(t.positions_rejected_speed));
        c.int(
            "local_ok",
            int(t.positions_local_aircraft + t.positions_local_receiver),
        );
        c.int("local_aircraft_relative", int(t.positions_local_aircraft));
        c.int("local_receiver_relative", int(t.positions_local_receiver));
        c.close_object();
    }
    {
        let mut c = JsonWriter::object(o.key("cpu"));
        c.int("demod", int(d.cpu_demod_ms));
        c.int("reader", int(d.cpu_reader_ms));
        c.int("background", int(d.cpu_background_ms));
        c.close_object();
    }
    {
        let mut t = JsonWriter::object(o.key("tracks"));
        t.int("all", int(d.tracker.aircraft_added));
        t.int("single_message", int(d.tracker.aircraft_single_message));
        t.close_object();
    }
    {
        // Not in readsb's files: output clients dropped for falling behind.
        let [slow, stalled] = d.clients_dropped;
        let mut c = JsonWriter::object(o.key("clients_dropped"));
        c.int("slow", int(slow));
        c.int("stalled", int(stalled));
        c.close_object();
    }
    o.int("messages", int(d.messages()));
    o.float("max_distance", max_distance_m, 0);
    o.close_object();
}

#[cfg(test)]
mod test {
    use super::*;
    use serde_json::Value;

    const START: u64 = 1_700_000_000_000;

    /// The counters after `s` seconds of a synthetic receiver: 2.4 M
    /// samples, 10 local frames (one repaired), 2 remote, 3 global
    /// positions, 1 ms CPU per second; signal −20 dBFS, noise −30 dBFS,
    /// and a −1 dBFS peak at second 90 only.
    fn counters_at(s: u64) -> Counters {
        let mut c = Counters::new();
        c.samples_processed = 2_400_000 * s;
        c.local.modes = 10 * s;
        c.local.accepted = [9 * s, s, 0, 0];
        c.remote.modes = 2 * s;
        c.remote.accepted = [2 * s, 0, 0, 0];
        c.tracker.positions_global = 3 * s;
        c.tracker.aircraft_added = s / 60;
        c.tracker.aircraft_single_message = s / 30;
        c.cpu_demod_ms = s;
        c.clients_dropped = [s / 30, s / 10];
        c.signal_power_sum = 0.01 * 10.0 * s as f64;
        c.signal_count = 10 * s;
        c.noise_power_sum = 0.001 * s as f64;
        c.noise_count = s;
        c.peak_signal_dbfs = if s >= 90 { -1.0 } else { -20.0 };
        c.recent_peak_signal_dbfs = if s == 90 { -1.0 } else { -20.0 };
        c.max_distance_m = 1000.0 * s.min(100) as f64;
        c.recent_max_distance_m = if s <= 100 { 1000.0 * s as f64 } else { 0.0 };
        c
    }

    /// Record once a second for `secs` seconds; the parsed `stats.json`.
    fn run(secs: u64) -> Value {
        let mut h = StatsHistory::new(START, counters_at(0));
        for s in 1..=secs {
            h.record(START + 1000 * s, &counters_at(s));
        }
        let mut out = String::new();
        let now = START + 1000 * secs + 500;
        h.write_stats_json(now, &counters_at(secs), &mut out);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    }

    fn secs(v: &Value) -> f64 {
        v["end"].as_f64().unwrap() - v["start"].as_f64().unwrap()
    }

    #[test]
    fn test_two_minutes() {
        let v = run(150);
        let t0 = START as f64 / 1000.0;
        // Boundaries at 60 s and 120 s; latest runs from 120 s to now.
        let latest = &v["latest"];
        assert_eq!(latest["start"].as_f64().unwrap(), t0 + 120.0);
        assert_eq!(latest["end"].as_f64().unwrap(), t0 + 150.5);
        assert_eq!(latest["local"]["samples_processed"], 2_400_000 * 30);
        let m1 = &v["last1min"];
        assert_eq!((m1["start"].as_f64().unwrap(), secs(m1)), (t0 + 60.0, 60.0));
        assert_eq!(m1["local"]["samples_processed"], 2_400_000 * 60);
        assert_eq!(m1["local"]["modes"], 600);
        assert_eq!(m1["local"]["accepted"], serde_json::json!([540, 60, 0, 0]));
        assert_eq!(m1["remote"]["accepted"], serde_json::json!([120, 0, 0, 0]));
        assert_eq!(m1["messages"], 720);
        assert_eq!(m1["cpr"]["global_ok"], 180);
        assert_eq!(m1["cpu"]["demod"], 60);
        assert_eq!(m1["tracks"]["all"], 1);
        assert_eq!(m1["tracks"]["single_message"], 2);
        assert_eq!(m1["clients_dropped"]["slow"], 2);
        assert_eq!(m1["clients_dropped"]["stalled"], 6);
        assert_eq!(m1["local"]["signal"], -20.0);
        assert_eq!(m1["local"]["noise"], -30.0);
        // The −1 dBFS peak at 90 s is in minute 2 only; distances grow to
        // 100 km at 100 s.
        assert_eq!(m1["local"]["peak_signal"], -1.0);
        assert_eq!(m1["max_distance"], 100_000.0);
        // Only two minutes so far: the 5 and 15 minute windows span them.
        for k in ["last5min", "last15min"] {
            assert_eq!((v[k]["start"].as_f64().unwrap(), secs(&v[k])), (t0, 120.0));
            assert_eq!(v[k]["local"]["modes"], 1200);
        }
        assert_eq!(latest["local"]["peak_signal"], -20.0);
        assert_eq!(latest["max_distance"], 0.0);
        let total = &v["total"];
        assert_eq!(total["local"]["modes"], 1500);
        assert_eq!(total["local"]["peak_signal"], -1.0);
        assert_eq!(secs(total), 150.5);
        assert!(v.get("gain_db").is_none(), "no gain known");
    }

    /// The tuner gain at the top level as readsb writes it, in dB.
    #[test]
    fn test_gain_db() {
        let mut c = Counters::new();
        c.gain_tenths = Some(338);
        let h = StatsHistory::new(START, c);
        let mut s = String::new();
        h.write_stats_json(START + 1000, &c, &mut s);
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["gain_db"], 33.8);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_twenty_minutes() {
        let v = run(1200);
        let t0 = START as f64 / 1000.0;
        for (k, minutes) in [("last1min", 1u64), ("last5min", 5), ("last15min", 15)] {
            let w = &v[k];
            assert_eq!(w["end"].as_f64().unwrap(), t0 + 1200.0, "{k}");
            assert_eq!(secs(w), 60.0 * minutes as f64, "{k}");
            assert_eq!(w["local"]["modes"], 600 * minutes, "{k}");
            assert_eq!(
                w["local"]["samples_processed"],
                144_000_000 * minutes,
                "{k}"
            );
            assert_eq!(w["cpr"]["global_ok"], 180 * minutes, "{k}");
            // The peak and the distances were more than 15 minutes ago.
            assert_eq!(w["local"]["peak_signal"], -20.0, "{k}");
            assert_eq!(w["max_distance"], 0.0, "{k}");
        }
        assert_eq!(v["latest"]["local"]["modes"], 0);
        assert_eq!(v["total"]["local"]["modes"], 12_000);
        assert_eq!(v["total"]["max_distance"], 100_000.0);
        assert_eq!(v["total"]["local"]["peak_signal"], -1.0);
    }

    use crate::feed::testing::hex;

    /// Real frames through a tracker, counted by source and verdict.
    #[test]
    fn test_add_frame() {
        use airwaves_core::modes::cpr::Position;
        use airwaves_core::modes::tracker::{ReceivedFrame, Tracker, TrackerConfig};
        let mut tr = Tracker::<8>::new(TrackerConfig::with_receiver(Position::new(51.99, 4.375)));
        let mut c = Counters::new();
        let frames: [(&str, FrameSource, u8, f32); 8] = [
            // Surface position, an airborne pair (the second with a bit
            // repaired: accepted, the address being known) and a velocity
            // without a level: local.
            ("8C4841753AAB238733C8CD4020B1", FrameSource::Local, 0, -2.0),
            ("8D40621D58C386435CC412692AD6", FrameSource::Local, 0, -12.0),
            ("8D40621D58C382D690C8AC2863A7", FrameSource::Local, 1, -12.0),
            (
                "8D485020994409940838175B284F",
                FrameSource::Local,
                0,
                f32::NAN,
            ),
            // Identification from remote input, 0 and 5 bits repaired.
            (
                "8D4840D6202CC371C32CE0576098",
                FrameSource::Remote,
                0,
                -30.0,
            ),
            (
                "8D4840D6202CC371C32CE0576098",
                FrameSource::Remote,
                5,
                -30.0,
            ),
            // DF4 from an unknown address; DF17 with a bad CRC.
            ("2000171806A983", FrameSource::Local, 0, -20.0),
            (
                "8D4CA251204994B1C36E60A5343D",
                FrameSource::Remote,
                0,
                -20.0,
            ),
        ];
        for (h, src, bits, dbfs) in frames {
            let b = hex(h);
            let f = ReceivedFrame::new(&b, 1_000)
                .with_signal(dbfs)
                .with_repaired_bits(bits);
            let r = tr.update(&f);
            c.add_frame(src, bits, dbfs, &r);
        }
        assert_eq!(
            c.local,
            SourceCounters {
                modes: 5,
                modeac: 0,
                bad: 0,
                unknown_icao: 1,
                accepted: [3, 1, 0, 0],
            }
        );
        assert_eq!(
            c.remote,
            SourceCounters {
                modes: 3,
                modeac: 0,
                bad: 1,
                unknown_icao: 0,
                accepted: [1, 0, 0, 1],
            }
        );
        assert_eq!((c.cpr_surface, c.cpr_airborne, c.messages()), (1, 2, 6));
        // Local levels only, NaN skipped: −2, −12, −12, −20 dBFS.
        assert_eq!((c.signal_count, c.strong_signals), (4, 1));
        assert_eq!(c.peak_signal_dbfs, -2.0);
        let mean = 10.0 * ((10f64.powf(-0.2) + 2.0 * 10f64.powf(-1.2) + 0.01) / 4.0).log10();
        assert!((c.mean_signal_dbfs().unwrap() - mean).abs() < 1e-12);
        c.add_noise(f64::NAN);
        assert_eq!(c.mean_noise_dbfs(), None);
        assert_eq!(Counters::default(), Counters::new());
    }

    /// Before the first minute every window but `latest` and `total` is
    /// empty; a gap closes one long minute and the grid is kept.
    #[test]
    fn test_empty_and_gap() {
        let mut h = StatsHistory::new(START, Counters::new());
        let mut out = String::new();
        h.write_stats_json(START + 10_000, &counters_at(10), &mut out);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(secs(&v["last1min"]), 0.0);
        assert_eq!(v["last1min"]["local"]["modes"], 0);
        assert!(v["last1min"]["local"].get("signal").is_none());
        assert_eq!(v["latest"]["local"]["modes"], 100);

        h.record(START + 250_000, &counters_at(250));
        h.record(START + 299_000, &counters_at(299));
        h.record(START + 300_000, &counters_at(300));
        let mut out = String::new();
        h.write_stats_json(START + 300_000, &counters_at(300), &mut out);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(secs(&v["last1min"]), 50.0);
        assert_eq!(v["last1min"]["local"]["modes"], 500);
        assert_eq!(secs(&v["last5min"]), 300.0);
    }
}
