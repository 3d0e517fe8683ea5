//! 16-bit PCM WAV writer (RIFF `WAVE`, `fmt ` chunk of 16 bytes, `data`).
//!
//! The header is written first with the sizes so far and fixed up by
//! [`WavWriter::update_header`] (the receiver calls it once a second, so a
//! file cut short by Ctrl-C is valid up to the last second) and by
//! [`WavWriter::finish`].

use std::io::{self, Seek, SeekFrom, Write};

/// Bytes before the samples.
pub const HEADER_LEN: u64 = 44;

/// A WAV file being written. Samples are little-endian `i16`, interleaved.
pub struct WavWriter<W: Write + Seek> {
    out: W,
    channels: u16,
    rate: u32,
    /// Bytes of samples written.
    data_len: u64,
}

impl<W: Write + Seek> WavWriter<W> {
    /// Start a file of `channels` (1 or 2) at `rate` Hz: writes the header
    /// (sizes 0 until updated).
    ///
    /// # Errors
    /// I/O errors of `out`; `InvalidInput` for 0 channels or a 0 rate.
    ///
    /// ```
    /// use airwaves::radio::wav::WavWriter;
    /// let mut w = WavWriter::new(std::io::Cursor::new(Vec::new()), 1, 48_000).unwrap();
    /// w.write(&[0, 1000, -1000]).unwrap();
    /// let bytes = w.finish().unwrap().into_inner();
    /// assert_eq!(bytes.len(), 44 + 6);
    /// assert_eq!(&bytes[40..44], &6u32.to_le_bytes());
    /// ```
    pub fn new(mut out: W, channels: u16, rate: u32) -> io::Result<Self> {
        if channels == 0 || rate == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "WAV needs at least one channel and a positive rate",
            ));
        }
        out.write_all(&header(channels, rate, 0))?;
        Ok(Self {
            out,
            channels,
            rate,
            data_len: 0,
        })
    }

    /// Append interleaved samples.
    ///
    /// # Errors
    /// I/O errors; `FileTooLarge` past the format's 4 GiB (nothing of
    /// `samples` is written then).
    pub fn write(&mut self, samples: &[i16]) -> io::Result<()> {
        self.check_room(2 * samples.len())?;
        let mut buf = [0u8; 1024];
        for chunk in samples.chunks(buf.len() / 2) {
            for (b, s) in buf.chunks_exact_mut(2).zip(chunk) {
                b.copy_from_slice(&s.to_le_bytes());
            }
            self.out.write_all(&buf[..2 * chunk.len()])?;
        }
        self.data_len += 2 * samples.len() as u64;
        Ok(())
    }

    /// Append interleaved samples given as little-endian `i16` bytes (see
    /// [`s16le`](super::pcm::s16le)); an odd length is refused.
    ///
    /// # Errors
    /// I/O errors; `InvalidInput` for an odd length; `FileTooLarge` past
    /// the format's 4 GiB (nothing is written then).
    pub fn write_s16le(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.len() % 2 != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "s16le samples are two bytes each",
            ));
        }
        self.check_room(bytes.len())?;
        self.out.write_all(bytes)?;
        self.data_len += bytes.len() as u64;
        Ok(())
    }

    /// `FileTooLarge` if `bytes` more would pass the format's 4 GiB.
    fn check_room(&self, bytes: usize) -> io::Result<()> {
        if HEADER_LEN - 8 + self.data_len + bytes as u64 > u64::from(u32::MAX) {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                "WAV files end at 4 GiB",
            ));
        }
        Ok(())
    }

    /// Rewrite the header with the sizes so far and return to the end.
    ///
    /// # Errors
    /// I/O errors of the seek or write.
    pub fn update_header(&mut self) -> io::Result<()> {
        self.out.flush()?;
        self.out.seek(SeekFrom::Start(0))?;
        self.out
            .write_all(&header(self.channels, self.rate, self.data_len as u32))?;
        self.out.seek(SeekFrom::End(0))?;
        self.out.flush()
    }

    /// Samples written (all channels).
    pub fn samples(&self) -> u64 {
        self.data_len / 2
    }

    /// Fix the header up and return the writer.
    ///
    /// # Errors
    /// I/O errors.
    pub fn finish(mut self) -> io::Result<W> {
        self.update_header()?;
        Ok(self.out)
    }
}

/// The 44-byte header for `data_len` bytes of samples.
fn header(channels: u16, rate: u32, data_len: u32) -> [u8; 44] {
    let block_align = 2 * channels;
    let mut h = [0u8; 44];
    let mut put = |at: usize, b: &[u8]| h[at..at + b.len()].copy_from_slice(b);
    put(0, b"RIFF");
    put(4, &(36u32.saturating_add(data_len)).to_le_bytes());
    put(8, b"WAVEfmt ");
    put(16, &16u32.to_le_bytes());
    put(20, &1u16.to_le_bytes()); // PCM
    put(22, &channels.to_le_bytes());
    put(24, &rate.to_le_bytes());
    put(28, &(rate * u32::from(block_align)).to_le_bytes());
    put(32, &block_align.to_le_bytes());
    put(34, &16u16.to_le_bytes());
    put(36, b"data");
    put(40, &data_len.to_le_bytes());
    h
}

#[cfg(test)]
mod test {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn test_header_and_samples() {
        let mut w = WavWriter::new(Cursor::new(Vec::new()), 2, 48_000).unwrap();
        w.write(&[1, -1, 0x1234, -32768]).unwrap();
        assert_eq!(w.samples(), 4);
        let v = w.finish().unwrap().into_inner();
        let want: [u8; 52] = [
            b'R', b'I', b'F', b'F', 44, 0, 0, 0, b'W', b'A', b'V', b'E', b'f', b'm', b't', b' ',
            16, 0, 0, 0, 1, 0, 2, 0, 0x80, 0xBB, 0, 0, 0x00, 0xEE, 0x02, 0, 4, 0, 16, 0, b'd',
            b'a', b't', b'a', 8, 0, 0, 0, 1, 0, 0xFF, 0xFF, 0x34, 0x12, 0x00, 0x80,
        ];
        assert_eq!(v, want);
    }

    #[test]
    fn test_update_header_keeps_appending_at_the_end() {
        let mut w = WavWriter::new(Cursor::new(Vec::new()), 1, 8000).unwrap();
        w.write(&[7]).unwrap();
        w.update_header().unwrap();
        w.write(&[8]).unwrap();
        let v = w.finish().unwrap().into_inner();
        assert_eq!(v.len(), 48);
        assert_eq!(&v[40..44], &4u32.to_le_bytes());
        assert_eq!(&v[44..], &[7, 0, 8, 0]);
    }

    #[test]
    fn test_s16le_bytes_are_the_same_samples() {
        let mut a = WavWriter::new(Cursor::new(Vec::new()), 2, 48_000).unwrap();
        a.write(&[1, -1, 0x1234, -32768]).unwrap();
        let mut b = WavWriter::new(Cursor::new(Vec::new()), 2, 48_000).unwrap();
        b.write_s16le(&[1, 0, 0xFF, 0xFF, 0x34, 0x12, 0x00, 0x80])
            .unwrap();
        assert!(b.write_s16le(&[1]).is_err());
        assert_eq!(b.samples(), 4);
        assert_eq!(
            a.finish().unwrap().into_inner(),
            b.finish().unwrap().into_inner()
        );
    }

    #[test]
    fn test_bad_format_is_refused() {
        assert!(WavWriter::new(Cursor::new(Vec::new()), 0, 8000).is_err());
        assert!(WavWriter::new(Cursor::new(Vec::new()), 1, 0).is_err());
    }
}
