//! The RTL2832U's test mode streams an 8-bit counter instead of samples:
//! [`CounterCheck`] counts the bytes missing from it (rtl_test's check).

/// Counter continuity: how many bytes are missing between consecutive counter bytes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CounterCheck {
    next: Option<u8>,
    /// Bytes checked.
    pub bytes: u64,
    /// Discontinuities seen.
    pub gaps: u64,
    /// Lower bound of lost bytes (each gap counts its distance mod 256).
    pub lost: u64,
}

impl CounterCheck {
    /// A check whose next byte must follow `last` (the end of a buffer
    /// already seen); `None` starts like [`CounterCheck::default`].
    pub fn after(last: Option<u8>) -> Self {
        CounterCheck {
            next: last.map(|b| b.wrapping_add(1)),
            ..CounterCheck::default()
        }
    }

    /// Check a block of counter bytes.
    pub fn feed(&mut self, data: &[u8]) {
        for &b in data {
            if let Some(want) = self.next {
                if b != want {
                    self.gaps += 1;
                    self.lost += u64::from(b.wrapping_sub(want));
                }
            }
            self.next = Some(b.wrapping_add(1));
        }
        self.bytes += data.len() as u64;
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_counter_check() {
        let mut c = CounterCheck::default();
        c.feed(&[250, 251, 252, 253, 254, 255, 0, 1]);
        assert_eq!((c.gaps, c.lost), (0, 0));
        c.feed(&[5, 6]);
        assert_eq!((c.gaps, c.lost, c.bytes), (1, 3, 10));
    }
}
