//! The 6-bit character set of aircraft identification, and the eight
//! characters that ADS-B identification (TC 1–4, ME) and Comm-B BDS 2,0
//! (MB) both carry in bits 9–56 of the 56-bit field.

use super::field56::Bits;

/// The 6-bit character set of aircraft identification (ICAO Annex 10
/// Vol IV, IA-5 subset): A–Z = 1–26, space = 32, 0–9 = 48–57; every other
/// code is unused and shown as `#`.
pub const CHARSET: &[u8; 64] = b"#ABCDEFGHIJKLMNOPQRSTUVWXYZ##### ###############0123456789######";

/// The 6-bit code of an ASCII callsign character (`A`–`Z`, `0`–`9`,
/// space), if it has one; the inverse of [`CHARSET`] on those characters.
pub(crate) const fn code_of(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A' + 1),
        b'0'..=b'9' | b' ' => Some(c),
        _ => None,
    }
}

/// Character `i` (0..8): six bits from field bit 9 + 6·i.
pub(crate) const fn char_bits(i: u32) -> Bits {
    Bits::new(9 + 6 * i, 6)
}

/// The 8 six-bit character codes in bits 9–56 of `word`.
#[inline]
pub(crate) fn codes(word: u64) -> [u8; 8] {
    let mut codes = [0u8; 8];
    for (i, c) in codes.iter_mut().enumerate() {
        *c = char_bits(i as u32).get(word) as u8;
    }
    codes
}

/// `word` with bits 9–56 replaced by 8 codes (the low 6 bits of each).
pub(crate) fn put_codes(word: u64, codes: [u8; 8]) -> u64 {
    codes
        .iter()
        .enumerate()
        .fold(word, |w, (i, &c)| char_bits(i as u32).put(w, c as u64))
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_code_of_inverts_charset() {
        for c in 0..=255u8 {
            match code_of(c) {
                Some(code) => assert_eq!(CHARSET[code as usize], c),
                None => assert!(c == b'#' || !CHARSET.contains(&c)),
            }
        }
    }

    #[test]
    fn test_codes_round_trip() {
        let codes = [11, 12, 13, 49, 48, 50, 51, 32];
        let w = put_codes(0x20 << 48, codes);
        assert_eq!(w, 0x20_2CC3_71C3_2CE0);
        assert_eq!(super::codes(w), codes);
    }
}
