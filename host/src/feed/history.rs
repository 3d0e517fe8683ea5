//! Position history for replay: every aircraft's track over the last
//! 24 hours, in bounded memory and in compact files.
//!
//! # What is kept
//!
//! Once a second the feeder offers each aircraft's latest position
//! ([`History::offer`]); a point is kept when the aircraft has none yet,
//! when [`EVERY_S`] have passed since its last point, or when
//! [`TURN_S`] have passed and its track turned by [`TURN_DEG`] or more
//! (so turns are drawn round, straight legs cost little). Points go into
//! the chunk of their [`CHUNK_S`]-second interval.
//!
//! # Where
//!
//! With a directory (`--state-dir`), a chunk is written when its interval
//! ends, as `<start>.bin` (start in Unix seconds), through a temporary
//! name and a rename, and leaves memory: memory holds the open chunk only
//! (300 aircraft: ~40 points a minute each, ~20 B a point, ~240 KiB per 10
//! minutes). Without one, closed chunks stay in memory up to
//! [`MEMORY_CAP`] bytes, the oldest dropped first. Either way chunks older
//! than [`KEEP_S`] are dropped (files deleted).
//!
//! # Chunk format (file and `/data/replay/<start>.bin`)
//!
//! Little-endian: magic `AWHIST01`, start (`u64`, Unix s), point count
//! `n` (`u32`), `n` points of [`POINT_BYTES`] bytes, then FNV-1a 64 of
//! everything before. A point: time (`u32`, Unix s), address (`u32`: 24
//! bits, bit 24 non-ICAO, bit 25 on the ground, bit 26 MLAT), latitude and
//! longitude (`i32`, 10⁻⁷ degrees), barometric altitude (`i16`, units of
//! 25 ft, `i16::MIN` unknown), track (`u8`, 360/256 degrees, 255 with the
//! flag `gs` = 255 unknown) and ground speed (`u8`, 4 kt units, 255
//! unknown). The replay page reads the points with a `DataView`.

use super::fnv1a64;
use airwaves_core::modes::tracker::{Aircraft, NON_ICAO};
use std::collections::{HashMap, VecDeque};
use std::io;
use std::path::{Path, PathBuf};

/// Seconds of one chunk.
pub const CHUNK_S: u64 = 600;
/// Seconds kept.
pub const KEEP_S: u64 = 24 * 3600;
/// A point at least this often per aircraft, s.
pub const EVERY_S: u64 = 15;
/// A turn of [`TURN_DEG`] gets a point after this many seconds.
pub const TURN_S: u64 = 3;
/// Track change that counts as a turn, degrees.
pub const TURN_DEG: f32 = 10.0;
/// Bytes of closed chunks kept in memory without a directory.
pub const MEMORY_CAP: usize = 24 << 20;
/// Bytes of one point.
pub const POINT_BYTES: usize = 20;

const MAGIC: &[u8; 8] = b"AWHIST01";
const HEAD: usize = 8 + 8 + 4;
const FLAG_NON_ICAO: u32 = 1 << 24;
const FLAG_GROUND: u32 = 1 << 25;
const FLAG_MLAT: u32 = 1 << 26;

/// The last point kept of an aircraft.
#[derive(Debug, Clone, Copy)]
struct Last {
    t_s: u64,
    pos_t_ms: u64,
    track: f32,
}

/// A chunk in memory: its start and encoded points.
#[derive(Debug, Clone)]
struct Chunk {
    start_s: u64,
    points: Vec<u8>,
}

/// One chunk in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkInfo {
    /// Start, Unix s.
    pub start_s: u64,
    /// Points in it.
    pub points: u32,
}

/// The position history (see the [module docs](self)).
#[derive(Debug)]
pub struct History {
    dir: Option<PathBuf>,
    open: Chunk,
    /// Closed chunks in memory (without a directory).
    closed: VecDeque<Chunk>,
    /// Closed chunks on disk (with a directory), in order.
    files: VecDeque<ChunkInfo>,
    last: HashMap<u32, Last>,
    /// A write failure not yet reported.
    pub write_error: Option<String>,
}

impl History {
    /// An empty history in memory.
    pub fn in_memory() -> Self {
        History {
            dir: None,
            open: Chunk {
                start_s: 0,
                points: Vec::new(),
            },
            closed: VecDeque::new(),
            files: VecDeque::new(),
            last: HashMap::new(),
            write_error: None,
        }
    }

    /// A history kept in `dir`, with the chunks already there that are
    /// younger than [`KEEP_S`] at `now_s` (older ones are deleted). Files
    /// that are not chunks, or whose length disagrees with their point
    /// count, are reported in the returned list and left out (renamed
    /// `*.bad`).
    pub fn in_dir(dir: PathBuf, now_s: u64) -> (Self, Vec<String>) {
        let mut h = History::in_memory();
        let mut problems = Vec::new();
        let mut found = Vec::new();
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                let path = e.path();
                let Some(start_s) = chunk_start(&path) else {
                    continue;
                };
                if start_s + CHUNK_S + KEEP_S <= now_s {
                    let _ = std::fs::remove_file(&path);
                    continue;
                }
                match check_file(&path) {
                    Ok(points) => found.push(ChunkInfo { start_s, points }),
                    Err(why) => {
                        let _ = std::fs::rename(&path, path.with_extension("bin.bad"));
                        problems.push(format!("{}: {why}; left out of the replay", path.display()));
                    }
                }
            }
        }
        found.sort_by_key(|c| c.start_s);
        // The interval still open (flushed at the last exit): go on
        // filling it rather than overwrite it when it closes.
        let open_start = now_s - now_s % CHUNK_S;
        if found.last().is_some_and(|c| c.start_s == open_start) {
            let path = dir.join(format!("{open_start}.bin"));
            if let Ok(b) = std::fs::read(&path)
                && let Ok((_, n)) = decode(&b)
            {
                found.pop();
                h.open = Chunk {
                    start_s: open_start,
                    points: b[HEAD..HEAD + n as usize * POINT_BYTES].to_vec(),
                };
            }
        }
        h.files = found.into();
        h.dir = Some(dir);
        (h, problems)
    }

    /// Offer aircraft `ac`'s latest position at `now_s` (Unix s); kept or
    /// not by the rules in the [module docs](self).
    pub fn offer(&mut self, ac: &Aircraft, now_s: u64) {
        let Some(fix) = ac.position().filter(|f| f.position.is_valid()) else {
            return;
        };
        let key = ac.key();
        let track = ac.track_deg().unwrap_or(f32::NAN);
        let t_s = fix.t_ms / 1000;
        let keep = match self.last.get(&key) {
            None => true,
            Some(l) if l.pos_t_ms == fix.t_ms => false,
            Some(l) => {
                let dt = t_s.saturating_sub(l.t_s);
                let turn = (track - l.track).abs();
                let turn = turn.min(360.0 - turn);
                dt >= EVERY_S || (dt >= TURN_S && turn >= TURN_DEG)
            }
        };
        if !keep {
            return;
        }
        self.last.insert(
            key,
            Last {
                t_s,
                pos_t_ms: fix.t_ms,
                track,
            },
        );
        self.roll(now_s.max(t_s));
        let mut addr = ac.address() & 0xFF_FFFF;
        if key & NON_ICAO != 0 {
            addr |= FLAG_NON_ICAO;
        }
        if ac.on_ground() == Some(true) {
            addr |= FLAG_GROUND;
        }
        if ac.mlat_position() {
            addr |= FLAG_MLAT;
        }
        let alt = ac
            .altitude_baro_ft()
            .map_or(i16::MIN, |a| (a / 25).clamp(-4000, 32_000) as i16);
        let trk = if track.is_finite() {
            ((track.rem_euclid(360.0) / 360.0 * 256.0) as u32).min(255) as u8
        } else {
            255
        };
        let gs = ac
            .ground_speed_kt()
            .filter(|v| v.is_finite())
            .map_or(255, |v| (v / 4.0).round().clamp(0.0, 254.0) as u8);
        let p = &mut self.open.points;
        p.extend_from_slice(&(t_s as u32).to_le_bytes());
        p.extend_from_slice(&addr.to_le_bytes());
        p.extend_from_slice(&((fix.position.lat * 1e7).round() as i32).to_le_bytes());
        p.extend_from_slice(&((fix.position.lon * 1e7).round() as i32).to_le_bytes());
        p.extend_from_slice(&alt.to_le_bytes());
        p.push(trk);
        p.push(gs);
    }

    /// Close the open chunk if `now_s` is past its interval, forget
    /// aircraft not heard for a chunk, drop what is older than
    /// [`KEEP_S`]. Call once a second.
    pub fn roll(&mut self, now_s: u64) {
        let start = now_s - now_s % CHUNK_S;
        if self.open.start_s == start {
            return;
        }
        if self.open.start_s > start {
            return; // the clock went back: keep filling the open chunk
        }
        let closed = std::mem::replace(
            &mut self.open,
            Chunk {
                start_s: start,
                points: Vec::with_capacity(64 * 1024),
            },
        );
        if !closed.points.is_empty() {
            self.close(closed);
        }
        self.last.retain(|_, l| l.t_s + CHUNK_S > now_s);
        let oldest = now_s.saturating_sub(KEEP_S + CHUNK_S);
        while self.closed.front().is_some_and(|c| c.start_s < oldest) {
            self.closed.pop_front();
        }
        while let Some(f) = self.files.front().copied().filter(|f| f.start_s < oldest) {
            self.files.pop_front();
            if let Some(dir) = &self.dir {
                let _ = std::fs::remove_file(dir.join(format!("{}.bin", f.start_s)));
            }
        }
    }

    /// Write the open chunk out now (at exit), so a restart keeps it.
    pub fn flush(&mut self) {
        if self.dir.is_none() || self.open.points.is_empty() {
            return;
        }
        let open = self.open.clone();
        if let Some(dir) = &self.dir
            && let Err(e) = write_chunk(dir, &open)
        {
            self.write_error = Some(format!("{}: {e}", dir.display()));
        }
    }

    fn close(&mut self, chunk: Chunk) {
        match &self.dir {
            Some(dir) => {
                let info = ChunkInfo {
                    start_s: chunk.start_s,
                    points: (chunk.points.len() / POINT_BYTES) as u32,
                };
                match write_chunk(dir, &chunk) {
                    Ok(()) => {
                        self.files.retain(|f| f.start_s != info.start_s);
                        self.files.push_back(info);
                    }
                    // Kept in memory instead: nothing lost while the disk
                    // is full.
                    Err(e) => {
                        self.write_error = Some(format!("{}: {e}", dir.display()));
                        self.closed.push_back(chunk);
                    }
                }
            }
            None => self.closed.push_back(chunk),
        }
        let mut bytes: usize = self.closed.iter().map(|c| c.points.len()).sum();
        while bytes > MEMORY_CAP {
            let Some(c) = self.closed.pop_front() else {
                break;
            };
            bytes -= c.points.len();
        }
    }

    /// The chunks there are, oldest first, the open one last.
    pub fn index(&self) -> Vec<ChunkInfo> {
        let mut v: Vec<ChunkInfo> = self.files.iter().copied().collect();
        v.extend(self.closed.iter().map(|c| ChunkInfo {
            start_s: c.start_s,
            points: (c.points.len() / POINT_BYTES) as u32,
        }));
        if !self.open.points.is_empty() {
            v.push(ChunkInfo {
                start_s: self.open.start_s,
                points: (self.open.points.len() / POINT_BYTES) as u32,
            });
        }
        v.sort_by_key(|c| c.start_s);
        v.dedup_by_key(|c| c.start_s);
        v
    }

    /// The chunk starting at `start_s` in the chunk format, or `None`.
    /// A file that is damaged gives `Err`.
    pub fn chunk(&self, start_s: u64) -> Option<Result<Vec<u8>, String>> {
        if self.open.start_s == start_s && !self.open.points.is_empty() {
            return Some(Ok(encode(&self.open)));
        }
        if let Some(c) = self.closed.iter().find(|c| c.start_s == start_s) {
            return Some(Ok(encode(c)));
        }
        let dir = self.dir.as_ref()?;
        self.files.iter().find(|f| f.start_s == start_s)?;
        let path = dir.join(format!("{start_s}.bin"));
        Some(
            std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| decode(&b).map(|_| b)),
        )
    }

    /// Bytes of points held in memory.
    pub fn memory_bytes(&self) -> usize {
        self.open.points.capacity()
            + self
                .closed
                .iter()
                .map(|c| c.points.capacity())
                .sum::<usize>()
    }
}

/// The start of a chunk file named `<start>.bin`.
fn chunk_start(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    let start: u64 = name.strip_suffix(".bin")?.parse().ok()?;
    (start % CHUNK_S == 0).then_some(start)
}

/// A chunk file's point count, if its length agrees with its header.
fn check_file(path: &Path) -> Result<u32, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    decode(&bytes).map(|(_, n)| n)
}

fn encode(c: &Chunk) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEAD + c.points.len() + 8);
    v.extend_from_slice(MAGIC);
    v.extend_from_slice(&c.start_s.to_le_bytes());
    v.extend_from_slice(&((c.points.len() / POINT_BYTES) as u32).to_le_bytes());
    v.extend_from_slice(&c.points);
    let sum = fnv1a64(&v);
    v.extend_from_slice(&sum.to_le_bytes());
    v
}

/// Check a chunk: its start and point count.
///
/// # Errors
/// A sentence: not a chunk, truncated, damaged.
pub fn decode(bytes: &[u8]) -> Result<(u64, u32), String> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err("not an airwaves history chunk".into());
    }
    if bytes.len() < HEAD + 8 {
        return Err("truncated".into());
    }
    let start = u64::from_le_bytes(bytes[8..16].try_into().map_err(|_| "truncated")?);
    let n = u32::from_le_bytes(bytes[16..20].try_into().map_err(|_| "truncated")?);
    let end = HEAD + n as usize * POINT_BYTES;
    if bytes.len() != end + 8 {
        return Err("truncated".into());
    }
    let sum = u64::from_le_bytes(bytes[end..].try_into().map_err(|_| "truncated")?);
    if fnv1a64(&bytes[..end]) != sum {
        return Err("checksum mismatch (damaged)".into());
    }
    Ok((start, n))
}

fn write_chunk(dir: &Path, c: &Chunk) -> io::Result<()> {
    crate::adsb::state::write_atomic(dir, &format!("{}.bin", c.start_s), &encode(c))
}

#[cfg(test)]
mod test {
    use super::*;
    use airwaves_core::modes::cpr::{CprFrame, CprKind, Position};
    use airwaves_core::modes::tracker::{ReceivedFrame, Tracker, TrackerConfig};

    /// A DF17 airborne position (TC 11) of `addr` at `p`, even or odd.
    fn position(addr: u32, odd: bool, p: Position) -> [u8; 14] {
        let f = CprFrame::encode(CprKind::Airborne, odd, p).unwrap();
        let (lat, lon) = (f.lat(), f.lon());
        let mut b = [0u8; 14];
        b[0] = 0x8D;
        b[1..4].copy_from_slice(&addr.to_be_bytes()[1..]);
        let me: u64 = (11 << 51)
            | (0x0150 << 36)
            | (u64::from(odd) << 34)
            | (u64::from(lat) << 17)
            | u64::from(lon);
        b[4..11].copy_from_slice(&me.to_be_bytes()[1..]);
        let crc = airwaves_core::modes::crc::crc24(&b[..11]);
        b[11..].copy_from_slice(&crc.to_be_bytes()[1..]);
        b
    }

    /// An aircraft flying north from 52° N at 0.001° a second (216 kt).
    fn fly(tr: &mut Tracker<16>, h: &mut History, t0: u64, seconds: u64) {
        for i in 0..seconds {
            let t_ms = (t0 + i) * 1000;
            let p = Position::new(52.0 + i as f64 * 0.001, 4.0);
            let f = position(0x4840D6, i % 2 == 1, p);
            let _ = tr.update(&ReceivedFrame::new(&f, t_ms));
            if let Some(ac) = tr.get(0x4840D6) {
                h.offer(ac, t0 + i);
            }
            h.roll(t0 + i);
        }
    }

    #[test]
    fn test_thinning_chunks_and_format() {
        let mut tr = Tracker::<16>::new(TrackerConfig::DEFAULT);
        let mut h = History::in_memory();
        let t0 = 1_764_770_400; // a chunk boundary
        fly(&mut tr, &mut h, t0, 1_300);
        let idx = h.index();
        assert_eq!(idx.len(), 3, "{idx:?}");
        assert_eq!(idx[0].start_s, t0);
        // A straight leg: one point each 15 s (the first at the first fix).
        assert!((38..=42).contains(&idx[0].points), "{idx:?}");
        let bytes = h.chunk(t0).unwrap().unwrap();
        let (start, n) = decode(&bytes).unwrap();
        assert_eq!((start, n), (t0, idx[0].points));
        let p = &bytes[HEAD..HEAD + POINT_BYTES];
        let addr = u32::from_le_bytes(p[4..8].try_into().unwrap());
        assert_eq!(addr, 0x4840D6);
        let lat = i32::from_le_bytes(p[8..12].try_into().unwrap()) as f64 / 1e7;
        assert!((lat - 52.0).abs() < 0.01, "{lat}");
        let alt = i16::from_le_bytes(p[16..18].try_into().unwrap());
        assert_eq!(alt, 3_000 / 25);
        assert!(h.chunk(t0 + 1).is_none());
    }

    #[test]
    fn test_files_restart_and_damage() {
        let dir = std::env::temp_dir().join(format!("airwaves-hist-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let t0 = 1_764_770_400;
        let (mut h, problems) = History::in_dir(dir.clone(), t0);
        assert!(problems.is_empty());
        let mut tr = Tracker::<16>::new(TrackerConfig::DEFAULT);
        fly(&mut tr, &mut h, t0, 1_300);
        h.flush();
        assert!(dir.join(format!("{t0}.bin")).exists());
        assert!(h.memory_bytes() < 200 * 1024);
        // A restart finds them all, the flushed open one included, and
        // goes on filling that one.
        let (mut h2, problems) = History::in_dir(dir.clone(), t0 + 1_300);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(h2.index(), h.index());
        assert_eq!(
            h2.chunk(t0).unwrap().unwrap(),
            h.chunk(t0).unwrap().unwrap()
        );
        let open = t0 + 2 * CHUNK_S;
        let before = h2.index().last().unwrap().points;
        fly(&mut tr, &mut h2, t0 + 1_300, 100);
        let after = h2.index();
        assert_eq!(after.last().unwrap().start_s, open);
        assert!(after.last().unwrap().points > before);
        // A truncated file is reported and left out; a day later the rest
        // are deleted.
        let f = dir.join(format!("{}.bin", t0 + CHUNK_S));
        let b = std::fs::read(&f).unwrap();
        std::fs::write(&f, &b[..b.len() - 5]).unwrap();
        std::fs::write(dir.join("notes.txt"), b"not a chunk").unwrap();
        let (h3, problems) = History::in_dir(dir.clone(), t0 + 1_300);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("truncated"), "{problems:?}");
        assert_eq!(h3.index().len(), 2);
        let (h4, _) = History::in_dir(dir.clone(), t0 + KEEP_S + 3 * CHUNK_S);
        assert!(h4.index().is_empty());
        assert!(!dir.join(format!("{t0}.bin")).exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
