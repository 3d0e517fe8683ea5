//! A recording (`--ifile`, or standard input) as a source: read as fast as
//! the consumer takes it, or paced at the sample rate (`--throttle`).

use std::io::{self, Read};
use std::time::{Duration, Instant};

/// A `.cu8` byte stream, optionally paced.
pub(super) struct FileReader {
    input: Box<dyn Read + Send>,
    /// Bytes per second when paced (2 × the sample rate).
    pace: Option<f64>,
    /// When the first byte was read (the pacing's epoch).
    start: Option<Instant>,
    /// Bytes read so far.
    bytes: u64,
}

impl FileReader {
    /// `input`, paced at `rate` samples per second when given.
    pub(super) fn new(input: Box<dyn Read + Send>, rate: Option<u32>) -> FileReader {
        FileReader {
            input,
            pace: rate.map(|r| 2.0 * f64::from(r)),
            start: None,
            bytes: 0,
        }
    }

    /// Fill `buf` (even length) whole, or up to the end of the input; an odd
    /// byte at the very end (half a sample) is dropped. When paced, returns
    /// no sooner than the last byte is due.
    pub(super) fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let start = *self.start.get_or_insert_with(Instant::now);
        let mut n = 0;
        while n < buf.len() {
            match self.input.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let n = n & !1;
        self.bytes += n as u64;
        if let Some(bytes_per_s) = self.pace {
            let due = Duration::from_secs_f64(self.bytes as f64 / bytes_per_s);
            if let Some(wait) = due.checked_sub(start.elapsed()) {
                std::thread::sleep(wait);
            }
        }
        Ok(n)
    }
}
