//! An aircraft database the user supplies (`--db-file`), in the CSV format
//! of tar1090-db (`aircraft.csv.gz`, as readsb's `--db-file` reads it):
//! one aircraft per line, fields separated by `;`:
//!
//! `ICAO;registration;type code;flags;description;year;owner/operator`
//!
//! e.g. `4840D6;PH-BXA;B738;00;BOEING 737-800;1999;KLM`. `flags` is a
//! string of `0`/`1` characters, character `j` setting bit `j` (bit 0
//! military, bit 1 interesting, bit 2 PIA, bit 3 LADD); the fields after
//! `flags` may be missing. The file may be gzipped (by its first bytes,
//! not its name).
//!
//! The lines are kept as they are, in one buffer, with a sorted index of
//! (address, line start): about the file's uncompressed size plus 8 bytes
//! per aircraft (tar1090-db: ~600,000 aircraft, ~30 MB). A lookup is a
//! binary search. Lines that do not parse (no address, or fewer than four
//! fields) are skipped and counted.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// Largest file read, bytes after decompression (tar1090-db is ~30 MB).
pub const MAX_BYTES: u64 = 256 << 20;

/// The database (see the [module docs](self)).
#[derive(Debug, Clone, Default)]
pub struct AircraftDb {
    text: Vec<u8>,
    /// (address, offset of the line's registration field), sorted.
    index: Vec<(u32, u32)>,
    skipped: usize,
}

/// One aircraft's fields (empty strings when absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbRecord<'a> {
    /// Registration (readsb's `r`).
    pub registration: &'a str,
    /// ICAO type designator (`t`), e.g. `B738`.
    pub type_code: &'a str,
    /// Flags (`dbFlags`): bit 0 military, 1 interesting, 2 PIA, 3 LADD.
    pub flags: u32,
    /// Type description (`desc`).
    pub description: &'a str,
    /// Year built (`year`).
    pub year: &'a str,
    /// Owner or operator (`ownOp`).
    pub owner_operator: &'a str,
}

/// Why a database could not be loaded.
#[derive(Debug)]
pub enum DbError {
    /// Reading (or decompressing) failed.
    Io(std::io::Error),
    /// Larger than [`MAX_BYTES`] uncompressed.
    TooLarge,
    /// No line parsed: not a tar1090-db CSV.
    NoAircraft {
        /// Lines that did not parse.
        skipped: usize,
    },
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DbError::Io(e) => write!(f, "{e}"),
            DbError::TooLarge => write!(f, "larger than {} MiB uncompressed", MAX_BYTES >> 20),
            DbError::NoAircraft { skipped } => write!(
                f,
                "no aircraft in it ({skipped} lines not in tar1090-db's ICAO;reg;type;flags;... form)"
            ),
        }
    }
}

impl std::error::Error for DbError {}

impl AircraftDb {
    /// Load `path` (gzipped or plain).
    ///
    /// # Errors
    /// See [`DbError`].
    pub fn load(path: &Path) -> Result<Self, DbError> {
        let file = std::fs::File::open(path).map_err(DbError::Io)?;
        let mut head = [0u8; 2];
        let mut file = std::io::BufReader::new(file);
        let n = {
            use std::io::BufRead;
            let buf = file.fill_buf().map_err(DbError::Io)?;
            let n = buf.len().min(2);
            head[..n].copy_from_slice(&buf[..n]);
            n
        };
        let reader: Box<dyn Read> = if n == 2 && head == [0x1F, 0x8B] {
            Box::new(flate2::read::MultiGzDecoder::new(file))
        } else {
            Box::new(file)
        };
        let mut text = Vec::new();
        reader
            .take(MAX_BYTES + 1)
            .read_to_end(&mut text)
            .map_err(DbError::Io)?;
        if text.len() as u64 > MAX_BYTES {
            return Err(DbError::TooLarge);
        }
        Self::from_text(text)
    }

    /// A database from CSV text.
    ///
    /// # Errors
    /// [`DbError::NoAircraft`] when no line parses.
    ///
    /// ```
    /// use airwaves::feed::aircraft_db::AircraftDb;
    /// let db = AircraftDb::from_text(b"4840D6;PH-BXA;B738;00;BOEING 737-800;1999;KLM\n".to_vec()).unwrap();
    /// let r = db.get(0x4840D6).unwrap();
    /// assert_eq!((r.registration, r.type_code, r.owner_operator), ("PH-BXA", "B738", "KLM"));
    /// ```
    pub fn from_text(text: Vec<u8>) -> Result<Self, DbError> {
        let mut index = Vec::new();
        let mut skipped = 0;
        let mut start = 0usize;
        while start < text.len() {
            let end = text[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(text.len(), |i| start + i);
            let line = &text[start..end];
            match parse_key(line) {
                Some((addr, rest)) if u32::try_from(start + rest).is_ok() => {
                    index.push((addr, (start + rest) as u32));
                }
                _ if line.iter().all(u8::is_ascii_whitespace) => {}
                _ => skipped += 1,
            }
            start = end + 1;
        }
        if index.is_empty() {
            return Err(DbError::NoAircraft { skipped });
        }
        index.sort_by_key(|&(a, _)| a);
        index.dedup_by_key(|&mut (a, _)| a);
        Ok(AircraftDb {
            text,
            index,
            skipped,
        })
    }

    /// Aircraft in the database.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether it holds no aircraft (never, once loaded).
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Lines skipped because they did not parse.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// The record of `address` (24 bits).
    pub fn get(&self, address: u32) -> Option<DbRecord<'_>> {
        let i = self
            .index
            .binary_search_by_key(&address, |&(a, _)| a)
            .ok()?;
        let off = self.index.get(i)?.1 as usize;
        let rest = self.text.get(off..)?;
        let line = &rest[..rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let mut f = line.split(|&b| b == b';').map(field);
        let registration = f.next().unwrap_or("");
        let type_code = f.next().unwrap_or("");
        let flags = f
            .next()
            .unwrap_or("")
            .bytes()
            .take(32)
            .enumerate()
            .fold(0u32, |acc, (j, c)| acc | (u32::from(c == b'1') << j));
        Some(DbRecord {
            registration,
            type_code,
            flags,
            description: f.next().unwrap_or(""),
            year: f.next().unwrap_or(""),
            owner_operator: f.next().unwrap_or(""),
        })
    }
}

/// A field as text: trimmed, empty unless valid UTF-8 without control
/// characters.
fn field(b: &[u8]) -> &str {
    match std::str::from_utf8(b) {
        Ok(s) if !s.chars().any(char::is_control) => s.trim(),
        _ => "",
    }
}

/// The address of a line and the offset of what follows its `;`, when it
/// has at least four fields.
fn parse_key(line: &[u8]) -> Option<(u32, usize)> {
    let semi = line.iter().position(|&b| b == b';')?;
    let hex = std::str::from_utf8(&line[..semi]).ok()?.trim();
    if hex.len() != 6 {
        return None;
    }
    let addr = u32::from_str_radix(hex, 16).ok()?;
    let fields = line.iter().filter(|&&b| b == b';').count() + 1;
    (fields >= 4).then_some((addr, semi + 1))
}

#[cfg(test)]
mod test {
    use super::*;
    use std::io::Write;

    const CSV: &str = "\
4840D6;PH-BXA;B738;00;BOEING 737-800;1999;KLM\n\
AE1234;;C17;1001;BOEING C-17 Globemaster 3\r\n\
not a line\n\
\n\
3C6589;D-AIBA;A319;;\n\
A835AF;N628TS;GLF5\n\
ZZZZZZ;X;Y;0\n";

    #[test]
    fn test_lines_and_fields() {
        let db = AircraftDb::from_text(CSV.as_bytes().to_vec()).unwrap();
        assert_eq!(db.len(), 3);
        // "not a line", A835AF (three fields), ZZZZZZ; the empty line is not counted.
        assert_eq!(db.skipped(), 3);
        let klm = db.get(0x4840D6).unwrap();
        assert_eq!(
            klm,
            DbRecord {
                registration: "PH-BXA",
                type_code: "B738",
                flags: 0,
                description: "BOEING 737-800",
                year: "1999",
                owner_operator: "KLM",
            }
        );
        let mil = db.get(0xAE1234).unwrap();
        assert_eq!((mil.registration, mil.flags), ("", 0b1001));
        assert_eq!(mil.description, "BOEING C-17 Globemaster 3", "CR stripped");
        assert_eq!(db.get(0x3C6589).unwrap().owner_operator, "");
        assert!(db.get(0xA835AF).is_none());
        assert!(db.get(0x000001).is_none());
    }

    #[test]
    fn test_gzip_and_errors() {
        let dir = std::env::temp_dir().join(format!("airwaves-db-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let gz = dir.join("aircraft.csv.gz");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(CSV.as_bytes()).unwrap();
        std::fs::write(&gz, e.finish().unwrap()).unwrap();
        let db = AircraftDb::load(&gz).unwrap();
        assert_eq!(db.get(0x4840D6).unwrap().type_code, "B738");
        // Plain text works too, whatever the name.
        let plain = dir.join("aircraft.csv.gz.txt");
        std::fs::write(&plain, CSV).unwrap();
        assert_eq!(AircraftDb::load(&plain).unwrap().len(), 3);
        // A truncated gzip, garbage, a missing file: errors, not panics.
        let bytes = std::fs::read(&gz).unwrap();
        std::fs::write(&gz, &bytes[..bytes.len() / 2]).unwrap();
        assert!(matches!(AircraftDb::load(&gz), Err(DbError::Io(_))));
        std::fs::write(&plain, b"\x00\x01garbage\n").unwrap();
        assert!(matches!(
            AircraftDb::load(&plain),
            Err(DbError::NoAircraft { skipped: 1 })
        ));
        assert!(matches!(
            AircraftDb::load(&dir.join("missing")),
            Err(DbError::Io(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
