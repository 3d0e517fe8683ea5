//! A `.cu8` recording on disk: opened with a clear error for a directory,
//! and read in passes of whole I/Q pairs, once or looping. The rtl_tcp
//! server's file source and the dongle emulator (`--fake-device
//! …,file=F[,loop]`) both play recordings through [`Recording`]; the
//! command-line sources and `decode` open theirs with [`open_recording`].

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// Open a recording for reading; a directory is refused here, when it is
/// named, rather than when the first read fails.
///
/// # Errors
/// The open's error, or [`io::ErrorKind::IsADirectory`].
pub fn open_recording(path: &Path) -> io::Result<File> {
    let file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, not a recording",
        ));
    }
    Ok(file)
}

/// A recording read in passes of whole I/Q pairs: an odd last byte is left
/// out of every pass, so I and Q never swap places on the next one (a
/// dongle never sends half a pair either).
#[derive(Debug)]
pub struct Recording {
    file: File,
    /// Bytes in a pass: the file's length rounded down to whole pairs.
    pass_len: u64,
    /// Bytes of this pass read (or skipped) so far.
    pos: u64,
    looping: bool,
}

impl Recording {
    /// Open `path` ([`open_recording`]); `looping` starts a new pass at the
    /// end of each instead of ending.
    ///
    /// # Errors
    /// As [`open_recording`], or the file's metadata cannot be read.
    pub fn open(path: &Path, looping: bool) -> io::Result<Recording> {
        let file = open_recording(path)?;
        let len = file.metadata()?.len();
        Ok(Recording {
            file,
            pass_len: len & !1,
            pos: 0,
            looping,
        })
    }

    /// Read up to `buf.len()` bytes of the pass, starting the next pass at
    /// its end when looping; `Ok(0)` at the end otherwise (and for a
    /// recording without a whole pair). A file that has become shorter
    /// ends its pass where it now ends.
    ///
    /// # Errors
    /// A read or seek error.
    pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos >= self.pass_len {
            if !self.looping || self.pass_len == 0 {
                return Ok(0);
            }
            self.rewind()?;
        }
        let left = usize::try_from(self.pass_len - self.pos).unwrap_or(usize::MAX);
        let want = buf.len().min(left);
        loop {
            match self.file.read(&mut buf[..want]) {
                // Shorter than it was at the start: the pass ends here.
                Ok(0) => {
                    self.pass_len = self.pos & !1;
                    return if self.looping && self.pass_len > 0 {
                        self.rewind()?;
                        self.read(buf)
                    } else {
                        Ok(0)
                    };
                }
                Ok(n) => {
                    self.pos += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Back to the first byte.
    ///
    /// # Errors
    /// The seek's error.
    pub fn rewind(&mut self) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(0))?;
        self.pos = 0;
        Ok(())
    }

    /// Skip `n` bytes (what a dongle's overflow loses): around the loop
    /// when looping, else at most to the end of the pass.
    ///
    /// # Errors
    /// The seek's error.
    pub fn skip(&mut self, n: u64) -> io::Result<()> {
        let to = if self.looping && self.pass_len > 0 {
            (self.pos + n % self.pass_len) % self.pass_len
        } else {
            (self.pos + n).min(self.pass_len)
        };
        self.file.seek(SeekFrom::Start(to))?;
        self.pos = to;
        Ok(())
    }
}

#[cfg(test)]
mod test {
    use super::*;

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("airwaves-rec-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        p
    }

    /// Everything a recording yields in reads of `chunk`, up to `limit`.
    fn drain(r: &mut Recording, chunk: usize, limit: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; chunk];
        while out.len() < limit {
            match r.read(&mut buf).unwrap() {
                0 => break,
                n => out.extend_from_slice(&buf[..n]),
            }
        }
        out
    }

    #[test]
    fn test_once_then_end_and_loop_in_whole_pairs() {
        let p = temp("odd", &[1, 2, 3, 4, 5, 6, 7]);
        let once = drain(&mut Recording::open(&p, false).unwrap(), 4, 100);
        assert_eq!(once, [1, 2, 3, 4, 5, 6]);
        let looped = drain(&mut Recording::open(&p, true).unwrap(), 5, 20);
        assert_eq!(&looped[..18], &[1, 2, 3, 4, 5, 6].repeat(3)[..]);
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn test_skip_wraps_when_looping_and_stops_at_the_end_otherwise() {
        let p = temp("skip", &[0, 1, 2, 3, 4, 5, 6, 7]);
        let mut r = Recording::open(&p, true).unwrap();
        r.skip(10).unwrap();
        assert_eq!(drain(&mut r, 2, 2), [2, 3]);
        let mut r = Recording::open(&p, false).unwrap();
        r.skip(10).unwrap();
        assert!(drain(&mut r, 2, 2).is_empty());
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn test_directory_and_empty_file() {
        let err = Recording::open(&std::env::temp_dir(), true).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::IsADirectory);
        let p = temp("one", &[9]);
        assert!(drain(&mut Recording::open(&p, true).unwrap(), 4, 10).is_empty());
        std::fs::remove_file(&p).unwrap();
    }
}
