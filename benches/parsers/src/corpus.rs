//! The message list: the pyModeS CSV files, hex-decoded once into
//! fixed-size frames so that only parsing is timed.

use std::fmt;
use std::path::{Path, PathBuf};

/// Length of a long (112-bit) Mode S frame, bytes.
pub const FRAME_LEN: usize = 14;

/// One 112-bit Mode S frame.
pub type Message = [u8; FRAME_LEN];

/// The CSV files read, relative to the data directory, and the class each
/// one is expected to hold.
pub const FILES: [(&str, Class); 3] = [
    ("pymodes_adsb.csv", Class::Df17),
    ("pymodes_commb_df20.csv", Class::CommB),
    ("pymodes_commb_df21.csv", Class::CommB),
];

/// Which part of the list a message belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// DF17 extended squitter (ADS-B).
    Df17,
    /// DF20/DF21 Comm-B replies.
    CommB,
}

/// The message list, split by class, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Corpus {
    /// DF17 messages.
    pub df17: Vec<Message>,
    /// DF20 and DF21 messages.
    pub commb: Vec<Message>,
    /// Every message: `df17` then `commb`.
    pub all: Vec<Message>,
}

/// Why the message list could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CorpusError {
    /// A file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error, as text.
        error: String,
    },
    /// A line has no 28-hex-digit field.
    NoFrame {
        /// The file.
        path: PathBuf,
        /// Line number, 1-based.
        line: usize,
    },
    /// A frame's downlink format does not belong in its file.
    WrongFormat {
        /// The file.
        path: PathBuf,
        /// Line number, 1-based.
        line: usize,
        /// The downlink format found (first 5 bits).
        df: u8,
    },
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorpusError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            CorpusError::NoFrame { path, line } => write!(
                f,
                "{}:{line}: no 28-hex-digit Mode S frame on this line",
                path.display()
            ),
            CorpusError::WrongFormat { path, line, df } => write!(
                f,
                "{}:{line}: DF{df} frame in a file of other formats",
                path.display()
            ),
        }
    }
}

impl std::error::Error for CorpusError {}

/// Value of one ASCII hex digit.
fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Decode exactly 28 hex digits into a frame; `None` for any other text.
pub fn decode_hex(text: &str) -> Option<Message> {
    let digits = text.as_bytes();
    if digits.len() != 2 * FRAME_LEN {
        return None;
    }
    let mut out = [0u8; FRAME_LEN];
    for (byte, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = (hex_digit(pair[0])? << 4) | hex_digit(pair[1])?;
    }
    Some(out)
}

/// The frame on one CSV line: the first comma-separated field that, with
/// surrounding quotes and white space removed, is 28 hex digits. A UTF-8
/// byte-order mark and a trailing `\r` are ignored. `Ok(None)` for a blank
/// line, `Err(())` for a line without a frame.
pub fn frame_of_line(line: &str) -> Result<Option<Message>, ()> {
    let line = line.trim_start_matches('\u{feff}').trim();
    if line.is_empty() {
        return Ok(None);
    }
    line.split(',')
        .find_map(|field| decode_hex(field.trim().trim_matches('"')))
        .map(Some)
        .ok_or(())
}

/// Whether a downlink format belongs to `class`.
fn belongs(class: Class, df: u8) -> bool {
    match class {
        Class::Df17 => df == 17,
        Class::CommB => df == 20 || df == 21,
    }
}

/// Append the frames of one file's text to `out`, checking each frame's
/// downlink format against `class`.
pub fn parse_file(
    path: &Path,
    text: &str,
    class: Class,
    out: &mut Vec<Message>,
) -> Result<(), CorpusError> {
    for (i, line) in text.lines().enumerate() {
        let frame = frame_of_line(line).map_err(|()| CorpusError::NoFrame {
            path: path.to_path_buf(),
            line: i + 1,
        })?;
        let Some(frame) = frame else { continue };
        let df = frame[0] >> 3;
        if !belongs(class, df) {
            return Err(CorpusError::WrongFormat {
                path: path.to_path_buf(),
                line: i + 1,
                df,
            });
        }
        out.push(frame);
    }
    Ok(())
}

impl Corpus {
    /// Read [`FILES`] from `dir`.
    pub fn load(dir: &Path) -> Result<Corpus, CorpusError> {
        let mut corpus = Corpus::default();
        for (name, class) in FILES {
            let path = dir.join(name);
            let text = std::fs::read_to_string(&path).map_err(|e| CorpusError::Io {
                path: path.clone(),
                error: e.to_string(),
            })?;
            let list = match class {
                Class::Df17 => &mut corpus.df17,
                Class::CommB => &mut corpus.commb,
            };
            parse_file(&path, &text, class, list)?;
        }
        corpus.all = corpus.df17.iter().chain(&corpus.commb).copied().collect();
        Ok(corpus)
    }
}

#[cfg(test)]
mod test {
    use super::*;

    static FRAME_BYTES: Message = [
        0x8D, 0x40, 0x6B, 0x90, 0x99, 0x45, 0xDE, 0x10, 0x00, 0x04, 0x05, 0x99, 0x9B, 0xE4,
    ];

    #[test]
    fn test_decode_hex() {
        assert_eq!(
            decode_hex("8D406B909945DE10000405999BE4"),
            Some(FRAME_BYTES)
        );
        assert_eq!(
            decode_hex("8d406b909945de10000405999be4"),
            Some(FRAME_BYTES)
        );
        assert_eq!(decode_hex("8D406B909945DE10000405999BE"), None);
        assert_eq!(decode_hex("8D406B909945DE10000405999BEG"), None);
        assert_eq!(decode_hex("8D406B90"), None);
    }

    #[test]
    fn test_frame_of_line() {
        // pymodes_adsb.csv: quoted frame in the second field.
        assert_eq!(
            frame_of_line(r#"1457996400,"8D406B909945DE10000405999BE4","406B90",19"#),
            Ok(Some(FRAME_BYTES))
        );
        // Comm-B files: byte-order mark, frame last, CRLF line ends.
        let df20 = frame_of_line("\u{feff}1495353600,4D010D,A00015B7C26E1370AA00005DD34A\r")
            .unwrap()
            .unwrap();
        assert_eq!(df20[0], 0xA0);
        assert_eq!(df20[13], 0x4A);
        assert_eq!(frame_of_line("  \r"), Ok(None));
        assert_eq!(frame_of_line("1495353600,4D010D,A00015B7"), Err(()));
    }

    #[test]
    fn test_parse_file() {
        let path = Path::new("x.csv");
        let mut out = Vec::new();
        let text = "1,A00015B7C26E1370AA00005DD34A\r\n\r\n2,A80011BBA87A11353FE7FBAB3D1D\r\n";
        parse_file(path, text, Class::CommB, &mut out).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out[1][0] >> 3, 21);
        let err = parse_file(path, text, Class::Df17, &mut out).unwrap_err();
        assert_eq!(
            err,
            CorpusError::WrongFormat {
                path: path.to_path_buf(),
                line: 1,
                df: 20
            }
        );
        let err = parse_file(path, "1,2,3\n", Class::Df17, &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.csv:1: no 28-hex-digit Mode S frame on this line"
        );
    }

    #[test]
    fn test_load_missing_dir() {
        let err = Corpus::load(Path::new("/nonexistent/airwaves")).unwrap_err();
        assert!(matches!(err, CorpusError::Io { .. }), "{err}");
    }

    #[test]
    fn test_load_shared() {
        let dir = Path::new(crate::DEFAULT_DATA_DIR);
        if !dir.exists() {
            eprintln!("skipped: {} not found", dir.display());
            return;
        }
        let corpus = Corpus::load(dir).unwrap();
        assert_eq!(corpus.df17.len(), 2_000);
        assert_eq!(corpus.commb.len(), 10_000);
        assert_eq!(corpus.all.len(), 12_000);
    }
}
