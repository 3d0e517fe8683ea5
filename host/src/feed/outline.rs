//! Range outline: per 1° of bearing from the receiver, the farthest
//! position this receiver decoded in the last 24 hours, served as readsb's
//! `outline.json` and kept across restarts.
//!
//! # What counts
//!
//! Positions decoded from the local demodulator only (never Beast input
//! or MLAT results: the outline says what this antenna hears), and only
//! from an aircraft's second position on, so that every point has passed
//! the tracker's speed check against an earlier one: a lone phantom
//! position cannot stretch the outline for a day.
//!
//! # Memory
//!
//! 24 hourly buckets of 360 sectors, each holding its farthest point
//! (`f32` latitude and longitude: 0.4 m steps at 52°, far below the
//! 1° sector width): 24 × 360 × 16 B = 135 KiB, whatever the traffic. A
//! bucket is emptied when its hour comes round again, so the outline
//! spans the last 23–24 h. The per-aircraft position count is a map that
//! is cleared when it passes [`MAX_TRACKED`] keys.
//!
//! # `outline.json`
//!
//! `{"actualRange":{"last24h":{"points":[[lat,lon,alt],…]}}}`: one point
//! per sector that has one, in order of bearing (0° first), latitude and
//! longitude with 4 decimals, barometric altitude in ft (0 when unknown
//! or on the ground), as readsb writes it and tar1090 draws it.
//!
//! # State file
//!
//! [`RangeOutline::encode`] / [`RangeOutline::decode`], little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `AWOUTLN1` |
//! | 8 + 8 | receiver latitude, longitude (`f64`, degrees) |
//! | 4 | number of points `n` (`u32`, at most 24 × 360) |
//! | 22 × `n` | hour since 1970 (`u32`), sector (`u16`, 0–359), altitude (`i32`, ft, `i32::MIN` unknown), latitude, longitude, range (`f32`, degrees and m) |
//! | 8 | FNV-1a 64 of everything before |
//!
//! A file that is short, corrupt, from another receiver location or
//! inconsistent is refused with a [`StateError`]; the caller reports it
//! and starts afresh.

use super::fnv1a64;
use crate::json::JsonWriter;
use airwaves_core::modes::cpr::{Position, distance_nm};
use core::fmt::{self, Write};
use std::collections::HashMap;

use super::json::bearing_deg;

/// Bearing sectors (1° each).
pub const SECTORS: usize = 360;
/// Hourly buckets kept.
pub const HOURS: usize = 24;
/// Aircraft whose position counts are kept before the map is cleared.
pub const MAX_TRACKED: usize = 8192;

const HOUR_MS: u64 = 3_600_000;
const METRES_PER_NM: f64 = 1852.0;
const MAGIC: &[u8; 8] = b"AWOUTLN1";
const RECORD: usize = 22;
const NO_ALT: i32 = i32::MIN;
/// A location in the state file this far from the current one (m) is
/// another receiver.
const MOVED_M: f64 = 1000.0;

/// The farthest point of one sector in one hour (`range_m` 0: none).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Point {
    range_m: f32,
    lat: f32,
    lon: f32,
    alt_ft: i32,
}

const EMPTY: Point = Point {
    range_m: 0.0,
    lat: 0.0,
    lon: 0.0,
    alt_ft: NO_ALT,
};

/// One hour's bucket.
#[derive(Clone, Debug)]
struct Hour {
    /// Hours since 1970 this bucket holds (`u64::MAX`: none).
    hour: u64,
    points: [Point; SECTORS],
}

/// The range outline (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct RangeOutline {
    receiver: Position,
    hours: Box<[Hour]>,
    /// Positions seen per aircraft key (saturating at 2).
    seen: HashMap<u32, u8>,
}

/// Why a state file was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum StateError {
    /// Not an outline state file (magic).
    NotOutline,
    /// Shorter than its header or its point count says.
    Truncated,
    /// The checksum does not match: damaged.
    Checksum,
    /// Saved for a receiver elsewhere (its location, degrees).
    Moved {
        /// Latitude in the file.
        lat: f64,
        /// Longitude in the file.
        lon: f64,
    },
    /// A point with an impossible sector, position or range.
    BadPoint,
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::NotOutline => f.write_str("not an airwaves outline file"),
            StateError::Truncated => f.write_str("truncated"),
            StateError::Checksum => f.write_str("checksum mismatch (damaged)"),
            StateError::Moved { lat, lon } => {
                write!(f, "saved for a receiver at {lat:.4}, {lon:.4}")
            }
            StateError::BadPoint => f.write_str("a point out of range"),
        }
    }
}

impl std::error::Error for StateError {}

impl RangeOutline {
    /// An empty outline around `receiver`.
    pub fn new(receiver: Position) -> Self {
        let hour = Hour {
            hour: u64::MAX,
            points: [EMPTY; SECTORS],
        };
        RangeOutline {
            receiver,
            hours: vec![hour; HOURS].into_boxed_slice(),
            seen: HashMap::new(),
        }
    }

    /// The receiver's location.
    pub fn receiver(&self) -> Position {
        self.receiver
    }

    /// A position of aircraft `key` decoded locally at `t_ms` (unix ms),
    /// with its barometric altitude (`None` unknown or on the ground).
    /// Counted from the aircraft's second position on.
    pub fn add(&mut self, key: u32, pos: Position, alt_ft: Option<i32>, t_ms: u64) {
        if !pos.is_valid() {
            return;
        }
        if self.seen.len() >= MAX_TRACKED && !self.seen.contains_key(&key) {
            self.seen.clear();
        }
        let n = self.seen.entry(key).or_insert(0);
        *n = n.saturating_add(1).min(2);
        if *n < 2 {
            return;
        }
        let range_m = distance_nm(self.receiver, pos) * METRES_PER_NM;
        let sector = (bearing_deg(self.receiver, pos) as usize).min(SECTORS - 1);
        let hour = t_ms / HOUR_MS;
        let bucket = &mut self.hours[(hour % HOURS as u64) as usize];
        if bucket.hour != hour {
            bucket.hour = hour;
            bucket.points = [EMPTY; SECTORS];
        }
        let p = &mut bucket.points[sector];
        if range_m as f32 > p.range_m {
            *p = Point {
                range_m: range_m as f32,
                lat: pos.lat as f32,
                lon: pos.lon as f32,
                alt_ft: alt_ft.unwrap_or(NO_ALT),
            };
        }
    }

    /// The farthest point of each sector over the 24 h up to `now_ms`.
    /// The hour after `now_ms`'s counts too: points stamped by a clock
    /// that has since stepped back (NTP correcting a Pi's), or by an
    /// accelerated demo run before a restart, are not dropped for that.
    fn farthest(&self, now_ms: u64) -> [Point; SECTORS] {
        let now_hour = now_ms / HOUR_MS;
        let mut out = [EMPTY; SECTORS];
        for h in self.hours.iter() {
            if h.hour > now_hour + 1 || now_hour.saturating_sub(h.hour) >= HOURS as u64 {
                continue;
            }
            for (o, p) in out.iter_mut().zip(&h.points) {
                if p.range_m > o.range_m {
                    *o = *p;
                }
            }
        }
        out
    }

    /// Sectors with a point in the 24 h up to `now_ms`.
    pub fn sectors(&self, now_ms: u64) -> usize {
        self.farthest(now_ms)
            .iter()
            .filter(|p| p.range_m > 0.0)
            .count()
    }

    /// The farthest range in the 24 h up to `now_ms`, m (0 if none).
    pub fn max_range_m(&self, now_ms: u64) -> f64 {
        self.farthest(now_ms)
            .iter()
            .map(|p| f64::from(p.range_m))
            .fold(0.0, f64::max)
    }

    /// Append `outline.json` as of `now_ms` (see the [module docs](self)).
    ///
    /// ```
    /// use airwaves::feed::outline::RangeOutline;
    /// use airwaves_core::modes::cpr::Position;
    /// let mut o = RangeOutline::new(Position::new(52.0, 4.0));
    /// let north = Position::new(53.0, 4.0);
    /// o.add(0xABCDEF, north, Some(35_000), 1_000); // first: not counted
    /// o.add(0xABCDEF, north, Some(35_000), 2_000);
    /// let mut s = String::new();
    /// o.write_json(3_000, &mut s);
    /// assert_eq!(s, r#"{"actualRange":{"last24h":{"points":[[53.0000,4.0000,35000]]}}}"#);
    /// ```
    pub fn write_json(&self, now_ms: u64, out: &mut String) {
        let mut top = JsonWriter::object(out);
        let mut range = JsonWriter::object(top.key("actualRange"));
        let mut day = JsonWriter::object(range.key("last24h"));
        let mut list = JsonWriter::array(day.key("points"));
        for p in self.farthest(now_ms).iter().filter(|p| p.range_m > 0.0) {
            let alt = if p.alt_ft == NO_ALT { 0 } else { p.alt_ft };
            let _ = write!(list.element(), "[{:.4},{:.4},{alt}]", p.lat, p.lon);
        }
        list.close_array();
        day.close_object();
        range.close_object();
        top.close_object();
    }

    /// The state file's bytes (see the [module docs](self#state-file)).
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(64 * 1024);
        v.extend_from_slice(MAGIC);
        v.extend_from_slice(&self.receiver.lat.to_le_bytes());
        v.extend_from_slice(&self.receiver.lon.to_le_bytes());
        let count_at = v.len();
        v.extend_from_slice(&0u32.to_le_bytes());
        let mut n = 0u32;
        for h in self.hours.iter().filter(|h| h.hour != u64::MAX) {
            let Ok(hour) = u32::try_from(h.hour) else {
                continue;
            };
            for (sector, p) in h.points.iter().enumerate() {
                if p.range_m <= 0.0 {
                    continue;
                }
                v.extend_from_slice(&hour.to_le_bytes());
                v.extend_from_slice(&(sector as u16).to_le_bytes());
                v.extend_from_slice(&p.alt_ft.to_le_bytes());
                v.extend_from_slice(&p.lat.to_le_bytes());
                v.extend_from_slice(&p.lon.to_le_bytes());
                v.extend_from_slice(&p.range_m.to_le_bytes());
                n += 1;
            }
        }
        v[count_at..count_at + 4].copy_from_slice(&n.to_le_bytes());
        let sum = fnv1a64(&v);
        v.extend_from_slice(&sum.to_le_bytes());
        v
    }

    /// An outline from a state file, for a receiver at `receiver`.
    ///
    /// # Errors
    /// See [`StateError`]: nothing is taken from a file that fails any
    /// check.
    pub fn decode(bytes: &[u8], receiver: Position) -> Result<Self, StateError> {
        const HEAD: usize = 8 + 16 + 4;
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(StateError::NotOutline);
        }
        if bytes.len() < HEAD + 8 {
            return Err(StateError::Truncated);
        }
        let f64_at = |i: usize| f64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or([0; 8]));
        let n = u32::from_le_bytes(bytes[24..28].try_into().unwrap_or([0; 4])) as usize;
        if n > HOURS * SECTORS {
            return Err(StateError::BadPoint);
        }
        let end = HEAD + n * RECORD;
        if bytes.len() < end + 8 {
            return Err(StateError::Truncated);
        }
        let sum = u64::from_le_bytes(bytes[end..end + 8].try_into().unwrap_or([0; 8]));
        if fnv1a64(&bytes[..end]) != sum {
            return Err(StateError::Checksum);
        }
        let saved = Position::new(f64_at(8), f64_at(16));
        if !saved.is_valid() || distance_nm(saved, receiver) * METRES_PER_NM > MOVED_M {
            return Err(StateError::Moved {
                lat: saved.lat,
                lon: saved.lon,
            });
        }
        let mut o = RangeOutline::new(receiver);
        for r in bytes[HEAD..end].chunks_exact(RECORD) {
            let u32_at = |i: usize| u32::from_le_bytes(r[i..i + 4].try_into().unwrap_or([0; 4]));
            let f32_at = |i: usize| f32::from_le_bytes(r[i..i + 4].try_into().unwrap_or([0; 4]));
            let hour = u64::from(u32_at(0));
            let sector = usize::from(u16::from_le_bytes([r[4], r[5]]));
            let p = Point {
                alt_ft: u32_at(6) as i32,
                lat: f32_at(10),
                lon: f32_at(14),
                range_m: f32_at(18),
            };
            let valid = sector < SECTORS
                && Position::new(f64::from(p.lat), f64::from(p.lon)).is_valid()
                && p.range_m.is_finite()
                && p.range_m > 0.0;
            if !valid {
                return Err(StateError::BadPoint);
            }
            let bucket = &mut o.hours[(hour % HOURS as u64) as usize];
            if bucket.hour != hour {
                if bucket.hour != u64::MAX && bucket.hour > hour {
                    // An older hour sharing the slot of a newer one.
                    continue;
                }
                bucket.hour = hour;
                bucket.points = [EMPTY; SECTORS];
            }
            bucket.points[sector] = p;
        }
        Ok(o)
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use serde_json::Value;

    const RX: Position = Position::new(52.31, 4.76);
    const T0: u64 = 1_764_770_400_000; // 2025-12-03 14:00 UTC, an hour start

    /// A point `nm` from the receiver on bearing `brg` (spherical).
    fn at(brg: f64, nm: f64) -> Position {
        let d = nm * METRES_PER_NM / 6_371_008.8;
        let (p1, l1, b) = (RX.lat.to_radians(), RX.lon.to_radians(), brg.to_radians());
        let p2 = (p1.sin() * d.cos() + p1.cos() * d.sin() * b.cos()).asin();
        let l2 = l1 + (b.sin() * d.sin() * p1.cos()).atan2(d.cos() - p1.sin() * p2.sin());
        Position::new(p2.to_degrees(), l2.to_degrees())
    }

    fn points(o: &RangeOutline, now: u64) -> Vec<Value> {
        let mut s = String::new();
        o.write_json(now, &mut s);
        let v: Value = serde_json::from_str(&s).unwrap();
        v["actualRange"]["last24h"]["points"]
            .as_array()
            .unwrap()
            .clone()
    }

    #[test]
    fn test_farthest_per_sector_in_bearing_order() {
        let mut o = RangeOutline::new(RX);
        // Two aircraft, each seen twice; sectors 10° and 200°.
        for (key, brg, nm) in [(1, 200.5, 120.0), (2, 10.5, 80.0), (2, 10.5, 95.0)] {
            o.add(key, at(brg, nm - 1.0), Some(30_000), T0);
            o.add(key, at(brg, nm), Some(31_000), T0 + 1_000);
        }
        // A closer position in the same sector does not replace it.
        o.add(2, at(10.7, 50.0), Some(1_000), T0 + 2_000);
        let p = points(&o, T0 + 3_000);
        assert_eq!(p.len(), 2, "{p:?}");
        let far10 = at(10.5, 95.0);
        assert!((p[0][0].as_f64().unwrap() - far10.lat).abs() < 1e-4);
        assert!((p[0][1].as_f64().unwrap() - far10.lon).abs() < 1e-4);
        assert_eq!(p[0][2], 31_000);
        assert_eq!(o.sectors(T0), 2);
        assert!((o.max_range_m(T0) - 120.0 * METRES_PER_NM).abs() < 5.0);
    }

    #[test]
    fn test_lone_position_not_counted() {
        let mut o = RangeOutline::new(RX);
        o.add(7, at(90.0, 250.0), None, T0);
        assert!(points(&o, T0).is_empty());
        o.add(7, at(90.0, 240.0), None, T0 + 1_000);
        assert_eq!(points(&o, T0)[0][2], 0, "unknown altitude is 0");
    }

    #[test]
    fn test_24_hours() {
        let mut o = RangeOutline::new(RX);
        o.add(1, at(45.0, 100.0), Some(10_000), T0);
        o.add(1, at(45.0, 100.0), Some(10_000), T0);
        o.add(2, at(135.0, 60.0), Some(10_000), T0 + 5 * HOUR_MS);
        o.add(2, at(135.0, 60.0), Some(10_000), T0 + 5 * HOUR_MS);
        assert_eq!(o.sectors(T0 + 23 * HOUR_MS + 59 * 60_000), 2);
        // 24 h later the first hour has gone; the second stays.
        assert_eq!(o.sectors(T0 + 24 * HOUR_MS), 1);
        // Its bucket is reused by the new hour.
        o.add(3, at(300.0, 30.0), None, T0 + 24 * HOUR_MS);
        o.add(3, at(300.0, 30.0), None, T0 + 24 * HOUR_MS);
        assert_eq!(o.sectors(T0 + 24 * HOUR_MS), 2);
        assert_eq!(o.sectors(T0 + 30 * HOUR_MS), 1);
        // A point of the next hour is shown (the clock stepped back, or a
        // demo ran ahead of it before a restart); one later than that not.
        assert_eq!(o.sectors(T0 + 23 * HOUR_MS + 59 * 60_000), 2);
        assert_eq!(o.sectors(T0 + 22 * HOUR_MS), 1);
    }

    #[test]
    fn test_state_round_trip_and_damage() {
        let mut o = RangeOutline::new(RX);
        for s in 0..360 {
            let brg = f64::from(s) + 0.5;
            o.add(
                s,
                at(brg, 10.0 + f64::from(s) / 4.0),
                Some(s as i32 * 100),
                T0,
            );
            o.add(
                s,
                at(brg, 10.0 + f64::from(s) / 4.0),
                Some(s as i32 * 100),
                T0,
            );
        }
        o.add(1000, at(5.5, 200.0), None, T0 + 3 * HOUR_MS);
        o.add(1000, at(5.5, 200.0), None, T0 + 3 * HOUR_MS);
        let bytes = o.encode();
        assert_eq!(bytes.len(), 8 + 16 + 4 + 361 * RECORD + 8);
        let back = RangeOutline::decode(&bytes, RX).unwrap();
        let now = T0 + 4 * HOUR_MS;
        assert_eq!(points(&back, now), points(&o, now));
        assert_eq!(back.sectors(now), 360);
        // Truncated anywhere, one bit flipped anywhere: refused.
        for cut in [0, 7, 8, 30, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                RangeOutline::decode(&bytes[..cut], RX).is_err(),
                "cut {cut}"
            );
        }
        for i in (0..bytes.len()).step_by(97) {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert!(RangeOutline::decode(&b, RX).is_err(), "flip at {i}");
        }
        // Another receiver location.
        assert!(matches!(
            RangeOutline::decode(&bytes, Position::new(48.0, 11.0)),
            Err(StateError::Moved { .. })
        ));
        assert_eq!(
            RangeOutline::decode(b"garbage!", RX).unwrap_err(),
            StateError::NotOutline
        );
    }
}
