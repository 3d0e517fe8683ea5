//! Writing NEXRAD payloads: the inverse of [`NexradPayload::parse`].

use super::*;

impl BlockHeader {
    /// Write the 3 header bytes, if `out` has room.
    fn emit(&self, rle: bool, out: &mut [u8]) {
        let n = self.number;
        let b0 = (u8::from(rle) << 7)
            | (u8::from(self.south) << 6)
            | (self.scale.code() << 4)
            | ((n >> 16) & 0x0F) as u8;
        if let Some(h) = out.get_mut(..HEADER_LEN) {
            h.copy_from_slice(&[b0, (n >> 8) as u8, n as u8]);
        }
    }
}

/// A NEXRAD payload that cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EmitError {
    /// The output is too small.
    BufferTooSmall {
        /// Bytes the payload takes.
        expected: usize,
        /// Bytes of output.
        got: usize,
    },
    /// A block number at or past [`MAX_BLOCK`].
    BlockNumber(u32),
    /// A bin's intensity above 7.
    Intensity {
        /// The bin.
        bin: usize,
        /// Its intensity.
        value: u8,
    },
    /// Offset bits other than 1 to [`MAX_OFFSET`] set.
    Offsets,
}

impl core::fmt::Display for EmitError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BufferTooSmall { expected, got } => {
                write!(f, "NEXRAD payload of {expected} bytes, {got} of room")
            }
            Self::BlockNumber(n) => write!(f, "NEXRAD block {n} lies past the pole"),
            Self::Intensity { bin, value } => {
                write!(f, "NEXRAD bin {bin} has intensity {value}, above 7")
            }
            Self::Offsets => f.write_str("NEXRAD empty-block offsets outside 1-116"),
        }
    }
}

impl core::error::Error for EmitError {}

/// Check the header and the room for `len` bytes.
fn check(header: &BlockHeader, len: usize, out: &[u8]) -> Result<(), EmitError> {
    if header.number >= MAX_BLOCK {
        return Err(EmitError::BlockNumber(header.number));
    }
    if out.len() < len {
        return Err(EmitError::BufferTooSmall {
            expected: len,
            got: out.len(),
        });
    }
    Ok(())
}

impl Block {
    /// The runs: `(length, intensity)`, each as long as it can be (1–32).
    fn runs(&self) -> impl Iterator<Item = (usize, u8)> + '_ {
        let mut at = 0;
        core::iter::from_fn(move || {
            let rest = self.bins.get(at..)?;
            let &v = rest.first()?;
            let len = rest.iter().take(32).take_while(|&&b| b == v).count();
            at += len;
            Some((len, v))
        })
    }

    /// Bytes [`emit`](Self::emit) writes: 3 and one per run (at most
    /// [`MAX_BLOCK_LEN`]).
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.runs().count()
    }

    /// Write the payload, runs as long as they can be; returns the bytes
    /// written.
    ///
    /// # Errors
    /// [`EmitError`]: a block past the pole, an intensity above 7 (nothing
    /// written), or `out` shorter than [`buffer_len`](Self::buffer_len).
    ///
    /// ```
    /// use airwaves_core::uat::fisb::nexrad::{Block, BlockHeader, Scale};
    /// let header = BlockHeader { south: false, scale: Scale::X1, number: 32_040 };
    /// let mut block = Block { header, bins: [0; 128] };
    /// block.bins[32..64].fill(3);
    /// let mut out = [0u8; 8];
    /// assert_eq!(block.emit(&mut out), Ok(7));
    /// // 32 bins a run: (32 − 1) << 3 | intensity.
    /// assert_eq!(out[..7], [0x80, 0x7D, 0x28, 0xF8, 0xFB, 0xF8, 0xF8]);
    /// ```
    pub fn emit(&self, out: &mut [u8]) -> Result<usize, EmitError> {
        if let Some((bin, &value)) = self.bins.iter().enumerate().find(|(_, v)| **v > 7) {
            return Err(EmitError::Intensity { bin, value });
        }
        let len = self.buffer_len();
        check(&self.header, len, out)?;
        self.header.emit(true, out);
        for (o, (run, v)) in out.iter_mut().skip(HEADER_LEN).zip(self.runs()) {
            *o = ((run - 1) << 3) as u8 | v;
        }
        Ok(len)
    }
}

impl EmptyBlocks {
    /// Bytes [`emit`](Self::emit) writes: 3, byte 3, and one per 8
    /// offsets past 4 up to the highest set (at most [`MAX_EMPTY_LEN`]).
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.bitmap_len()
    }

    fn bitmap_len(&self) -> usize {
        let highest = 127 - (self.offsets & OFFSET_MASK | 1).leading_zeros() as usize;
        1 + highest.saturating_sub(4).div_ceil(8)
    }

    /// Write the payload with the shortest bitmap; returns the bytes
    /// written.
    ///
    /// # Errors
    /// [`EmitError`]: a block past the pole, offset bits outside 1 to
    /// [`MAX_OFFSET`], or `out` shorter than
    /// [`buffer_len`](Self::buffer_len).
    ///
    /// ```
    /// use airwaves_core::uat::fisb::nexrad::{BlockHeader, EmptyBlocks, Scale};
    /// let header = BlockHeader { south: false, scale: Scale::X1, number: 32_040 };
    /// // Offsets 1 (byte 3 bit 4) and 5 (byte 4 bit 0); L = 2.
    /// let empty = EmptyBlocks { header, offsets: 1 << 1 | 1 << 5 };
    /// let mut out = [0u8; 8];
    /// assert_eq!(empty.emit(&mut out), Ok(5));
    /// assert_eq!(out[..5], [0x00, 0x7D, 0x28, 0x12, 0x01]);
    /// ```
    pub fn emit(&self, out: &mut [u8]) -> Result<usize, EmitError> {
        if self.offsets & !OFFSET_MASK != 0 {
            return Err(EmitError::Offsets);
        }
        let len = self.buffer_len();
        check(&self.header, len, out)?;
        self.header.emit(false, out);
        let bitmap = self.bitmap_len();
        for (k, o) in out.iter_mut().skip(HEADER_LEN).take(bitmap).enumerate() {
            *o = if k == 0 {
                (((self.offsets >> 1) & 0x0F) as u8) << 4 | bitmap as u8
            } else {
                (self.offsets >> (5 + 8 * (k - 1))) as u8
            };
        }
        Ok(len)
    }
}

impl NexradPayload {
    /// Bytes [`emit`](Self::emit) writes.
    pub fn buffer_len(&self) -> usize {
        match self {
            Self::Block(b) => b.buffer_len(),
            Self::Empty(e) => e.buffer_len(),
        }
    }

    /// Write the payload ([`Block::emit`], [`EmptyBlocks::emit`]).
    ///
    /// # Errors
    /// As those.
    pub fn emit(&self, out: &mut [u8]) -> Result<usize, EmitError> {
        match self {
            Self::Block(b) => b.emit(out),
            Self::Empty(e) => e.emit(out),
        }
    }
}
