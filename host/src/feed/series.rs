//! Time series of the receiver's health for the graphs page (graphs1090's
//! job): messages per second, aircraft with and without position, the
//! farthest position, signal and noise, gain and CPU, over the last hour,
//! day and week.
//!
//! The feeder gives one [`Sample`] a second ([`Series::record`]); samples
//! are averaged into buckets of 10 s (the hour: 360 buckets), 5 min (the
//! day: 288) and 30 min (the week: 336), except the farthest position,
//! which is the bucket's largest. Memory: 984 buckets of 40 bytes, 39 KiB,
//! whatever the traffic.
//!
//! # JSON (`/data/history/hour.json`, `day.json`, `week.json`)
//!
//! `{"step":S,"fields":[…],"points":[[t,v1,v2,…],…]}`: `t` the bucket's
//! start in Unix seconds, then the fields in the order of `fields`
//! ([`FIELDS`]), `null` where unknown (no frame, AGC gain), oldest first.
//!
//! # State file
//!
//! [`Series::encode`] / [`Series::decode`]: magic `AWSERIE1`, per
//! resolution its bucket count (`u32`) and buckets (`u64` start, then
//! [`FIELD_COUNT`] `f32`s; NaN unknown), then the FNV-1a 64 of everything
//! before; little-endian.

use super::fnv1a64;
use crate::feed::metrics::RecentAircraft;
use crate::feed::stats::Counters;
use crate::json::JsonWriter;
use airwaves_core::modes::tracker::Tracker;
use std::collections::VecDeque;
use std::fmt::Write;

/// The fields of a sample, as named in the JSON.
pub const FIELDS: [&str; FIELD_COUNT] = [
    "messages_per_s",
    "aircraft",
    "aircraft_with_position",
    "max_range_nm",
    "signal_dbfs",
    "noise_dbfs",
    "gain_db",
    "cpu_percent",
    "peak_signal_dbfs",
];

/// Number of fields of a sample.
pub const FIELD_COUNT: usize = 9;

/// Index of the farthest-position field (kept as a maximum).
const MAX_RANGE: usize = 3;
/// Index of the peak-signal field (kept as a maximum).
const PEAK: usize = 8;

/// The resolutions: name, bucket length in seconds, buckets kept.
pub const RESOLUTIONS: [(&str, u64, usize); 3] =
    [("hour", 10, 360), ("day", 300, 288), ("week", 1800, 336)];

const MAGIC: &[u8; 8] = b"AWSERIE1";

/// One second's (or one bucket's) values; NaN where unknown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample(pub [f32; FIELD_COUNT]);

impl Sample {
    /// All unknown.
    pub const UNKNOWN: Sample = Sample([f32::NAN; FIELD_COUNT]);

    /// The sample of the time from `prev` to `now` (counters), `dt_ms` of
    /// signal time and `wall_ms` of wall-clock time (for the CPU share),
    /// with the aircraft of `tracker` heard (and positioned) in the last
    /// 60 s at `now_ms` ([`RecentAircraft`]). `now.recent_*` must cover just this interval.
    pub fn from_counters<const N: usize>(
        prev: &Counters,
        now: &Counters,
        dt_ms: u64,
        wall_ms: u64,
        tracker: &Tracker<N>,
        now_ms: u64,
    ) -> Sample {
        let mut v = [f32::NAN; FIELD_COUNT];
        if dt_ms > 0 {
            let msgs = now.messages().saturating_sub(prev.messages());
            v[0] = (msgs as f64 * 1000.0 / dt_ms as f64) as f32;
        }
        let recent = RecentAircraft::count(tracker, now_ms);
        v[1] = recent.any as f32;
        v[2] = recent.with_position as f32;
        if now.recent_max_distance_m > 0.0 {
            v[MAX_RANGE] = (now.recent_max_distance_m / METRES_PER_NM) as f32;
        }
        let d = now.delta(prev);
        if d.signal_count > 0 {
            v[4] = (10.0 * (d.signal_power_sum / d.signal_count as f64).log10()) as f32;
        }
        if d.noise_count > 0 {
            v[5] = (10.0 * (d.noise_power_sum / d.noise_count as f64).log10()) as f32;
        }
        if let Some(g) = now.gain_tenths {
            v[6] = g as f32 / 10.0;
        }
        if wall_ms > 0 {
            let cpu = d.cpu_demod_ms + d.cpu_reader_ms + d.cpu_background_ms;
            v[7] = (cpu as f64 * 100.0 / wall_ms as f64) as f32;
        }
        if now.recent_peak_signal_dbfs.is_finite() {
            v[PEAK] = now.recent_peak_signal_dbfs as f32;
        }
        Sample(v)
    }
}

/// Metres in a nautical mile.
const METRES_PER_NM: f64 = 1852.0;

/// Sums of the samples in the open bucket.
#[derive(Debug, Clone, Copy)]
struct Accum {
    start_s: u64,
    sum: [f64; FIELD_COUNT],
    n: [u32; FIELD_COUNT],
}

impl Accum {
    fn new(start_s: u64) -> Self {
        Accum {
            start_s,
            sum: [0.0; FIELD_COUNT],
            n: [0; FIELD_COUNT],
        }
    }

    fn add(&mut self, s: &Sample) {
        for (i, &v) in s.0.iter().enumerate() {
            if !v.is_finite() {
                continue;
            }
            let v = f64::from(v);
            if i == MAX_RANGE || i == PEAK {
                self.sum[i] = if self.n[i] == 0 {
                    v
                } else {
                    self.sum[i].max(v)
                };
            } else {
                self.sum[i] += v;
            }
            self.n[i] += 1;
        }
    }

    fn result(&self) -> Sample {
        let mut out = [f32::NAN; FIELD_COUNT];
        for (i, o) in out.iter_mut().enumerate() {
            if self.n[i] > 0 {
                *o = if i == MAX_RANGE || i == PEAK {
                    self.sum[i] as f32
                } else {
                    (self.sum[i] / f64::from(self.n[i])) as f32
                };
            }
        }
        Sample(out)
    }
}

/// One resolution: closed buckets and the open one.
#[derive(Debug, Clone)]
struct Ring {
    step_s: u64,
    len: usize,
    buckets: VecDeque<(u64, Sample)>,
    open: Option<Accum>,
}

impl Ring {
    fn record(&mut self, t_s: u64, s: &Sample) -> bool {
        let start = t_s - t_s % self.step_s;
        let open_start = self.open.as_ref().map(|a| a.start_s);
        if open_start.is_some_and(|o| o > start) {
            return false; // time went back: ignore
        }
        let mut closed = false;
        if open_start != Some(start) {
            if let Some(a) = self.open.take() {
                self.push(a.start_s, a.result());
                closed = true;
            }
            self.open = Some(Accum::new(start));
        }
        if let Some(a) = &mut self.open {
            a.add(s);
        }
        closed
    }

    fn push(&mut self, start_s: u64, s: Sample) {
        if self.buckets.back().is_some_and(|&(t, _)| t >= start_s) {
            return;
        }
        if self.buckets.len() == self.len {
            self.buckets.pop_front();
        }
        self.buckets.push_back((start_s, s));
    }
}

/// The series at every resolution (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct Series {
    rings: [Ring; 3],
}

impl Default for Series {
    fn default() -> Self {
        Self::new()
    }
}

impl Series {
    /// Empty series.
    pub fn new() -> Self {
        let ring = |(_, step_s, len): (&str, u64, usize)| Ring {
            step_s,
            len,
            buckets: VecDeque::with_capacity(len),
            open: None,
        };
        Series {
            rings: RESOLUTIONS.map(ring),
        }
    }

    /// Add the sample of the second at `t_ms` (unix ms); returns, per
    /// resolution, whether a bucket was closed (its JSON changed).
    pub fn record(&mut self, t_ms: u64, s: &Sample) -> [bool; 3] {
        let t_s = t_ms / 1000;
        let mut out = [false; 3];
        for (o, r) in out.iter_mut().zip(&mut self.rings) {
            *o = r.record(t_s, s);
        }
        out
    }

    /// The closed buckets of resolution `i` (0 hour, 1 day, 2 week).
    pub fn buckets(&self, i: usize) -> impl Iterator<Item = &(u64, Sample)> {
        self.rings.get(i).into_iter().flat_map(|r| r.buckets.iter())
    }

    /// The latest closed bucket of the hour (10 s): the values `/metrics`
    /// shows.
    pub fn latest(&self) -> Option<&(u64, Sample)> {
        self.rings[0].buckets.back()
    }

    /// Append the JSON of resolution `i` (see the [module docs](self)).
    ///
    /// ```
    /// use airwaves::feed::series::{Sample, Series};
    /// let mut s = Series::new();
    /// let mut v = Sample::UNKNOWN;
    /// v.0[0] = 100.0;
    /// s.record(1_000_000, &v);
    /// s.record(1_010_000, &v); // the next 10 s: the first bucket closes
    /// let mut json = String::new();
    /// s.write_json(0, &mut json);
    /// assert!(json.starts_with(r#"{"step":10,"fields":["messages_per_s","#));
    /// assert!(json.ends_with(r#""points":[[1000,100,null,null,null,null,null,null,null,null]]}"#));
    /// ```
    pub fn write_json(&self, i: usize, out: &mut String) {
        let step = self.rings.get(i).map_or(0, |r| r.step_s);
        let mut o = JsonWriter::object(out);
        o.int("step", step as i64);
        {
            let mut f = JsonWriter::array(o.key("fields"));
            for name in FIELDS {
                crate::json::push_json_string(f.element(), name);
            }
            f.close_array();
        }
        let mut pts = JsonWriter::array(o.key("points"));
        for (t, s) in self.buckets(i) {
            let p = pts.element();
            let _ = write!(p, "[{t}");
            for v in s.0 {
                if v.is_finite() {
                    // Three significant decimals are plenty for a plot.
                    let _ = write!(p, ",{}", (v * 1000.0).round() / 1000.0);
                } else {
                    p.push_str(",null");
                }
            }
            p.push(']');
        }
        pts.close_array();
        o.close_object();
    }

    /// The state file's bytes (see the [module docs](self#state-file)).
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(48 * 1024);
        v.extend_from_slice(MAGIC);
        for r in &self.rings {
            v.extend_from_slice(&(r.buckets.len() as u32).to_le_bytes());
            for (t, s) in &r.buckets {
                v.extend_from_slice(&t.to_le_bytes());
                for x in s.0 {
                    v.extend_from_slice(&x.to_le_bytes());
                }
            }
        }
        let sum = fnv1a64(&v);
        v.extend_from_slice(&sum.to_le_bytes());
        v
    }

    /// Series from a state file.
    ///
    /// # Errors
    /// A sentence: not a series file, truncated, damaged or inconsistent;
    /// nothing is taken from it then.
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err("not an airwaves series file".into());
        }
        let Some(body_len) = bytes.len().checked_sub(8) else {
            return Err("truncated".into());
        };
        if body_len < 8 {
            return Err("truncated".into());
        }
        let (body, sum) = bytes.split_at(body_len);
        let mut out = Series::new();
        let mut at = 8usize;
        let take = |at: &mut usize, n: usize| -> Result<&[u8], String> {
            let s = body.get(*at..*at + n).ok_or("truncated")?;
            *at += n;
            Ok(s)
        };
        for r in &mut out.rings {
            let n = u32::from_le_bytes(take(&mut at, 4)?.try_into().map_err(|_| "truncated")?);
            if n as usize > r.len {
                return Err("more buckets than kept".into());
            }
            for _ in 0..n {
                let t = u64::from_le_bytes(take(&mut at, 8)?.try_into().map_err(|_| "truncated")?);
                let mut s = Sample::UNKNOWN;
                for x in &mut s.0 {
                    *x = f32::from_le_bytes(take(&mut at, 4)?.try_into().map_err(|_| "truncated")?);
                }
                if t % r.step_s != 0 || r.buckets.back().is_some_and(|&(last, _)| last >= t) {
                    return Err("buckets out of order".into());
                }
                r.buckets.push_back((t, s));
            }
        }
        if at != body.len() {
            return Err("trailing bytes".into());
        }
        if fnv1a64(body).to_le_bytes() != sum {
            return Err("checksum mismatch (damaged)".into());
        }
        Ok(out)
    }
}

#[cfg(test)]
mod test {
    use super::*;

    fn sample(msgs: f32, range: f32) -> Sample {
        let mut s = Sample::UNKNOWN;
        s.0[0] = msgs;
        s.0[MAX_RANGE] = range;
        s
    }

    #[test]
    fn test_buckets_mean_and_max() {
        let mut s = Series::new();
        let t0 = 1_764_770_400_000; // an hour boundary
        // 10 s of 100 msg/s with one far position, then 10 s of 200.
        for i in 0..10 {
            s.record(
                t0 + i * 1000,
                &sample(100.0, if i == 3 { 150.0 } else { 20.0 }),
            );
        }
        let closed = s.record(t0 + 10_000, &sample(200.0, f32::NAN));
        assert_eq!(closed, [true, false, false]);
        let (t, b) = *s.latest().unwrap();
        assert_eq!(t, t0 / 1000);
        assert_eq!((b.0[0], b.0[MAX_RANGE]), (100.0, 150.0));
        assert!(b.0[1].is_nan(), "never known");
        // A day's worth: the hour keeps 360 buckets, the day closes 5-min
        // buckets.
        for i in 11..86_400 {
            s.record(t0 + i * 1000, &sample(i as f32, 1.0));
        }
        assert_eq!(s.buckets(0).count(), 360);
        assert_eq!(s.buckets(1).count(), 287);
        assert_eq!(s.buckets(2).count(), 47);
        let first_day = s.buckets(1).nth(1).unwrap();
        assert_eq!(first_day.0, t0 / 1000 + 300);
        // Mean of 300..599 for the second 5-minute bucket.
        assert_eq!(first_day.1.0[0], 449.5);
        // Time going back is ignored.
        assert_eq!(s.record(t0, &sample(1.0, 1.0)), [false; 3]);
    }

    #[test]
    fn test_state_round_trip_and_damage() {
        let mut s = Series::new();
        for i in 0..4_000u64 {
            s.record(1_000_000_000 + i * 1000, &sample(i as f32, 2.0));
        }
        let bytes = s.encode();
        let back = Series::decode(&bytes).unwrap();
        for i in 0..3 {
            let (mut a, mut b) = (String::new(), String::new());
            s.write_json(i, &mut a);
            back.write_json(i, &mut b);
            assert_eq!(a, b);
        }
        for cut in [0, 7, 8, 12, bytes.len() / 2, bytes.len() - 1] {
            assert!(Series::decode(&bytes[..cut]).is_err(), "cut {cut}");
        }
        for i in (0..bytes.len()).step_by(53) {
            let mut b = bytes.clone();
            b[i] ^= 0x04;
            assert!(Series::decode(&b).is_err(), "flip at {i}");
        }
    }
}
