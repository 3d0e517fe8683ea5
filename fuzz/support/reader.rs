//! The header reader shared by the `am_chain` and `fm_chain` targets
//! (included with `#[path]`): parameters from the first fuzz bytes.

#![allow(dead_code)]

/// Reads the header; bytes past the end read as 0.
pub struct Reader<'a> {
    /// The bytes not read yet.
    pub d: &'a [u8],
}

impl Reader<'_> {
    /// The next byte.
    pub fn u8(&mut self) -> u8 {
        match self.d.split_first() {
            Some((&b, rest)) => {
                self.d = rest;
                b
            }
            None => 0,
        }
    }

    /// The next `u16`, little-endian.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// The next `u32`, little-endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// A table entry (even selector) or any `f32` (odd).
    pub fn param(&mut self, table: &[f64]) -> f64 {
        let s = self.u8();
        if s.is_multiple_of(2) {
            table[usize::from(s / 2) % table.len()]
        } else {
            f64::from(f32::from_bits(self.u32()))
        }
    }

    /// A table entry (even selector), a `u32` near the range (`s % 4 ==
    /// 1`: `lo / 2 + v % (2 hi)`) or any `u32`.
    pub fn rate(&mut self, table: &[u32], lo: u32, hi: u32) -> u32 {
        let s = self.u8();
        match s % 4 {
            0 | 2 => table[usize::from(s / 2) % table.len()],
            1 => lo / 2 + self.u32() % (2 * hi),
            _ => self.u32(),
        }
    }
}
