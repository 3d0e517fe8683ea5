//! What the feeder keeps across restarts, in `--state-dir` (default: the
//! `--write-json` directory): the range outline, `outline.bin`
//! ([`RangeOutline::encode`]), and the graphs' series, `series.bin`
//! ([`Series::encode`]).
//!
//! Files are written through a temporary name and a rename, so a crash
//! or a full disk leaves the last good file. A file that cannot be read
//! back (truncated, damaged, another receiver location) is reported,
//! moved aside as `*.bad` so the next save does not fail on it, and the
//! feeder starts afresh: never fatal.

use crate::feed::outline::RangeOutline;
use crate::feed::series::Series;
use airwaves_core::modes::cpr::Position;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often the state is saved while running.
pub const SAVE_EVERY: Duration = Duration::from_secs(60);

/// Name of the outline's state file.
pub const OUTLINE_FILE: &str = "outline.bin";
/// Name of the series' state file.
pub const SERIES_FILE: &str = "series.bin";

/// The state directory and when it was last saved.
#[derive(Debug)]
pub struct StateDir {
    dir: PathBuf,
    last_save: Option<Instant>,
    error_shown: bool,
}

impl StateDir {
    /// State kept in `dir` (created when first saved).
    pub fn new(dir: PathBuf) -> Self {
        StateDir {
            dir,
            last_save: None,
            error_shown: false,
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The saved outline for a receiver at `receiver`: `Ok(None)` when
    /// there is none, `Err` (a sentence) when one was there but refused;
    /// it has then been renamed to `outline.bin.bad`.
    pub fn load_outline(&self, receiver: Position) -> Result<Option<RangeOutline>, String> {
        let path = self.dir.join(OUTLINE_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: {e}; starting a new outline", path.display())),
        };
        RangeOutline::decode(&bytes, receiver)
            .map(Some)
            .map_err(|e| {
                let bad = self.dir.join(format!("{OUTLINE_FILE}.bad"));
                let aside = match std::fs::rename(&path, &bad) {
                    Ok(()) => format!(" (kept as {})", bad.display()),
                    Err(_) => String::new(),
                };
                format!("{}: {e}{aside}; starting a new outline", path.display())
            })
    }

    /// The saved series: `Ok(None)` when there are none, `Err` (a
    /// sentence) when a file was there but refused (it is then renamed to
    /// `series.bin.bad`).
    pub fn load_series(&self) -> Result<Option<Series>, String> {
        let path = self.dir.join(SERIES_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: {e}; starting new graphs", path.display())),
        };
        Series::decode(&bytes).map(Some).map_err(|e| {
            let bad = self.dir.join(format!("{SERIES_FILE}.bad"));
            let _ = std::fs::rename(&path, &bad);
            format!("{}: {e}; starting new graphs", path.display())
        })
    }

    /// Save what is given (outline, series) if [`SAVE_EVERY`] has passed
    /// since the last save, or now with `force`. A failure is reported once
    /// (until a save works) and changes nothing else.
    pub fn save(&mut self, outline: Option<&RangeOutline>, series: Option<&Series>, force: bool) {
        let due = self.last_save.is_none_or(|t| t.elapsed() >= SAVE_EVERY);
        if !(due || force) {
            return;
        }
        self.last_save = Some(Instant::now());
        let mut result = Ok(());
        if let Some(o) = outline {
            result = write_atomic(&self.dir, OUTLINE_FILE, &o.encode());
        }
        if let Some(s) = series {
            result = result.and_then(|()| write_atomic(&self.dir, SERIES_FILE, &s.encode()));
        }
        match result {
            Err(e) if !self.error_shown => {
                eprintln!(
                    "airwaves adsb: --state-dir {}: {e} (still running; outline and graphs are kept in memory)",
                    self.dir.display()
                );
                self.error_shown = true;
            }
            Err(_) => {}
            Ok(()) => self.error_shown = false,
        }
    }
}

/// Write `bytes` to `dir/name` through `.name.tmp` and a rename.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, dir.join(name))
}

#[cfg(test)]
mod test {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("airwaves-state-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn test_save_load_and_refuse_damaged() {
        let rx = Position::new(52.31, 4.76);
        let dir = temp("outline");
        let mut s = StateDir::new(dir.clone());
        assert!(matches!(s.load_outline(rx), Ok(None)));
        let mut o = RangeOutline::new(rx);
        o.add(1, Position::new(53.0, 4.76), Some(30_000), 1_000);
        o.add(1, Position::new(53.0, 4.76), Some(30_000), 2_000);
        s.save(Some(&o), None, false);
        let back = s.load_outline(rx).unwrap().unwrap();
        assert_eq!(back.sectors(3_000), 1);
        // Not due again within a minute; forced, it is written.
        o.add(2, Position::new(52.31, 6.0), None, 2_000);
        o.add(2, Position::new(52.31, 6.0), None, 2_500);
        s.save(Some(&o), None, false);
        assert_eq!(s.load_outline(rx).unwrap().unwrap().sectors(3_000), 1);
        s.save(Some(&o), None, true);
        assert_eq!(s.load_outline(rx).unwrap().unwrap().sectors(3_000), 2);
        // Truncated: reported, moved aside, and the next load starts afresh.
        let path = dir.join(OUTLINE_FILE);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let err = s.load_outline(rx).unwrap_err();
        assert!(err.contains("truncated"), "{err}");
        assert!(dir.join("outline.bin.bad").exists());
        assert!(matches!(s.load_outline(rx), Ok(None)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn test_unwritable_dir_is_not_fatal() {
        let file = temp("not-a-dir");
        std::fs::write(&file, b"x").unwrap();
        let mut s = StateDir::new(file.clone());
        let o = RangeOutline::new(Position::new(0.0, 0.0));
        s.save(Some(&o), None, true);
        assert!(s.error_shown);
        let _ = std::fs::remove_file(&file);
    }
}
