//! Registrations that follow from the ICAO 24-bit address by arithmetic,
//! without a database.
//!
//! # United States
//!
//! The FAA assigns the addresses `A00001 … ADF7C7` to the N-numbers
//! `N1 … N99999` in their sorting order, one address each (915,399). An
//! N-number is `N`, a digit 1–9, up to four more digits, then up to two
//! letters (`A`–`Z` without `I` and `O`: 24), at most five characters
//! after the `N`. In the order, a prefix comes first, then its letter
//! suffixes (`X`, then `XA … XZ`, for each letter `X`, while they fit),
//! then its ten one-digit extensions, each with everything below it. So
//! the block of a prefix of `k` digits holds
//!
//! `S₅ = 1`, `S₄ = 1 + 24 + 10·S₅ = 35`, `Sₖ = 1 + 24·25 + 10·Sₖ₊₁`
//! (`S₃ = 951`, `S₂ = 10,111`, `S₁ = 101,711`),
//!
//! and `9·S₁ = 915,399`. Known pairs: `A00001` = N1, `A00002` = N1A,
//! `A835AF` = N628TS, `ADF7C7` = N99999.
//!
//! ```
//! use airwaves_core::modes::registration::{registration, us_address};
//! assert_eq!(registration(0xA835AF).unwrap().as_str(), "N628TS");
//! assert_eq!(us_address("N628TS"), Some(0xA835AF));
//! assert!(registration(0x4840D6).is_none()); // not arithmetic
//! ```

use core::fmt;

/// First address of the United States' N-number block (N1).
const US_FIRST: u32 = 0xA0_0001;

/// Letters of N-number suffixes: `A`–`Z` without `I` and `O`.
const LETTERS: &[u8; 24] = b"ABCDEFGHJKLMNPQRSTUVWXYZ";

/// Addresses in the block of a prefix of `k + 1` digits (`Sₖ₊₁` above).
const SIZES: [u32; 5] = [101_711, 10_111, 951, 35, 1];

/// Addresses taken by the letter suffixes of a prefix of `digits`
/// digits: for 1–3 digits 24 single letters, each followed by its 24
/// two-letter extensions; for 4 digits the single letters alone.
const fn letter_block(digits: usize) -> u32 {
    if digits < 4 { 24 * 25 } else { 24 }
}

/// A registration of at most 6 ASCII characters.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Registration {
    bytes: [u8; 6],
    len: u8,
}

impl Registration {
    const fn empty() -> Self {
        Self {
            bytes: [0; 6],
            len: 0,
        }
    }

    fn push(&mut self, b: u8) {
        if let Some(slot) = self.bytes.get_mut(usize::from(self.len)) {
            *slot = b;
            self.len += 1;
        }
    }

    /// The registration as text, e.g. `"N628TS"`.
    pub fn as_str(&self) -> &str {
        let b = self.bytes.get(..usize::from(self.len)).unwrap_or(&[]);
        core::str::from_utf8(b).unwrap_or("")
    }
}

impl fmt::Display for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Registration({})", self.as_str())
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for Registration {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "{=str}", self.as_str());
    }
}

/// The registration that address `address` maps to by arithmetic, or
/// `None` where the state's assignment is not arithmetic (or not known
/// here). Today: the United States' N-numbers ([`us_n_number`]).
pub fn registration(address: u32) -> Option<Registration> {
    us_n_number(address)
}

/// The N-number of a United States address (`A00001 … ADF7C7`), or
/// `None` outside that block.
///
/// ```
/// use airwaves_core::modes::registration::us_n_number;
/// assert_eq!(us_n_number(0xA00001).unwrap().as_str(), "N1");
/// assert_eq!(us_n_number(0xADF7C7).unwrap().as_str(), "N99999");
/// assert!(us_n_number(0xADF7C8).is_none());
/// ```
pub fn us_n_number(address: u32) -> Option<Registration> {
    let mut off = address.checked_sub(US_FIRST)?;
    if off >= 9 * SIZES[0] {
        return None;
    }
    let mut r = Registration::empty();
    r.push(b'N');
    r.push(b'1' + (off / SIZES[0]) as u8);
    off %= SIZES[0];
    // `off` is now the offset inside the block of a prefix of `digits`
    // digits: 0 is the prefix itself, then its letters, then its
    // one-digit extensions.
    for (digits, &child) in SIZES.iter().enumerate().skip(1) {
        if off == 0 {
            return Some(r);
        }
        off -= 1;
        if off < letter_block(digits) {
            if digits < 4 {
                r.push(LETTERS[(off / 25) as usize]);
                if off % 25 > 0 {
                    r.push(LETTERS[(off % 25 - 1) as usize]);
                }
            } else {
                // Four digits: one letter fits.
                r.push(LETTERS[off as usize]);
            }
            return Some(r);
        }
        off -= letter_block(digits);
        r.push(b'0' + (off / child) as u8);
        off %= child;
    }
    Some(r)
}

/// The address of a United States N-number (upper case, with the `N`),
/// or `None` if it is not a valid N-number. The inverse of
/// [`us_n_number`].
///
/// ```
/// use airwaves_core::modes::registration::us_address;
/// assert_eq!(us_address("N1A"), Some(0xA00002));
/// assert_eq!(us_address("N1I"), None); // no I or O
/// assert_eq!(us_address("N123456"), None); // too long
/// ```
pub fn us_address(reg: &str) -> Option<u32> {
    let rest = reg.as_bytes().strip_prefix(b"N")?;
    if rest.is_empty() || rest.len() > 5 {
        return None;
    }
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let (num, letters) = rest.split_at(digits);
    let first = *num.first()?;
    if first == b'0' || letters.len() > 2 || (letters.len() == 2 && digits > 3) {
        return None;
    }
    let letter = |b: &u8| LETTERS.iter().position(|l| l == b).map(|i| i as u32);
    let mut off = u32::from(first - b'1') * SIZES[0];
    // Inside the block of the prefix num[..k].
    for (k, &d) in num.iter().enumerate().skip(1) {
        off += 1 + letter_block(k) + u32::from(d - b'0') * SIZES[k];
    }
    match letters {
        [] => {}
        [a] => {
            let i = letter(a)?;
            off += 1 + if digits < 4 { 25 * i } else { i };
        }
        [a, b] => off += 1 + 25 * letter(a)? + 1 + letter(b)?,
        _ => return None,
    }
    Some(US_FIRST + off)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_known_pairs() {
        for (address, reg) in [
            (0xA0_0001, "N1"),
            (0xA0_0002, "N1A"),
            (0xA0_0003, "N1AA"),
            (0xA0_001A, "N1AZ"),
            (0xA0_001B, "N1B"),
            (0xA8_35AF, "N628TS"),
            (0xAD_F7C7, "N99999"),
        ] {
            assert_eq!(us_n_number(address).unwrap().as_str(), reg, "{address:06X}");
            assert_eq!(us_address(reg), Some(address), "{reg}");
        }
        assert!(us_n_number(0xA0_0000).is_none());
        assert!(us_n_number(0xAD_F7C8).is_none());
        assert!(registration(0x48_40D6).is_none());
    }

    /// Every address of the block maps to a distinct, well-formed
    /// N-number, in increasing order, and back.
    #[test]
    #[cfg_attr(miri, ignore = "heavy under miri")]
    fn test_whole_block_round_trip() {
        let mut last = Registration::empty();
        for address in US_FIRST..US_FIRST + 9 * SIZES[0] {
            let r = us_n_number(address).unwrap();
            let s = r.as_str();
            assert!(s.len() >= 2 && s.len() <= 6, "{s}");
            assert_eq!(us_address(s), Some(address), "{s}");
            // The FAA order is the order of the strings with letters
            // sorting before digits: map them so that byte order works.
            let key =
                |r: &Registration| r.bytes.map(|b| if b.is_ascii_digit() { b + 64 } else { b });
            assert!(key(&last) < key(&r) || last.len == 0, "{last} !< {s}");
            last = r;
        }
    }

    #[test]
    fn test_invalid_n_numbers() {
        for bad in [
            "", "N", "N0", "N01", "1AB", "N1I", "N1O", "N1ABC", "N1234AB", "N123456", "N12345A",
            "n1", "N1a", "N-1",
        ] {
            assert_eq!(us_address(bad), None, "{bad}");
        }
    }
}
