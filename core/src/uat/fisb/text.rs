//! FIS-B text, product 413 (generic text): its records ([`records`]) and a
//! DLAC encoder ([`dlac_encode`]) to go with [`dlac::decode`].
//!
//! # Payload
//!
//! The payload is DLAC text (6-bit codes, MSB first). Decoded with
//! [`dlac::decode`] into a caller's buffer it is ASCII: records separated
//! by `0x1E` (record separator), ending at `0x03` (ETX). A record is words
//! separated by spaces, `TYPE LOCATION TIME BODY…`:
//!
//! ```text
//! METAR KDEN 071753Z 27010KT 10SM FEW080 M02/M11 A3012
//! TAF KDEN 071720Z 0718/0824 27012KT P6SM SCT080
//! ```
//!
//! [`dlac::decode`]: crate::uat::uplink::dlac::decode

use crate::uat::uplink::dlac::ALPHABET;

/// The record separator.
pub const RS: u8 = 0x1E;
/// End of text.
pub const ETX: u8 = 0x03;
/// The DLAC tab code: the next code counts spaces, so `\t` itself cannot
/// be written.
const TAB: usize = 28;

/// One record of a text product, split into its first three words and the
/// rest. Missing words are empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TextRecord<'a> {
    /// The first word: `METAR`, `SPECI`, `TAF`, `PIREP`, `NOTAM`, `WINDS`…
    pub kind: &'a str,
    /// The second word, usually an ICAO location (`KDEN`).
    pub location: &'a str,
    /// The third word, usually the issue time (`071753Z`: day, hour,
    /// minute, UTC).
    pub time: &'a str,
    /// The rest, trimmed.
    pub body: &'a str,
    /// The whole record, trimmed.
    pub text: &'a str,
}

/// The first word of `s` (after leading whitespace) and what follows it.
fn word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    match s.find(|c: char| c.is_ascii_whitespace()) {
        Some(i) => s.split_at(i),
        None => (s, ""),
    }
}

impl<'a> TextRecord<'a> {
    /// Split a record's text at ASCII whitespace.
    ///
    /// ```
    /// use airwaves_core::uat::fisb::text::TextRecord;
    /// let r = TextRecord::parse(" TAF KDEN 071720Z 0718/0824 27012KT\n");
    /// assert_eq!((r.kind, r.location, r.time), ("TAF", "KDEN", "071720Z"));
    /// assert_eq!(r.body, "0718/0824 27012KT");
    /// assert_eq!(r.text, "TAF KDEN 071720Z 0718/0824 27012KT");
    /// ```
    pub fn parse(text: &'a str) -> Self {
        let text = text.trim();
        let (kind, rest) = word(text);
        let (location, rest) = word(rest);
        let (time, rest) = word(rest);
        Self {
            kind,
            location,
            time,
            body: rest.trim(),
            text,
        }
    }
}

/// The records of DLAC-decoded text, in order.
#[derive(Debug, Clone)]
pub struct Records<'a> {
    rest: &'a [u8],
}

/// The records of `decoded` (DLAC text already decoded to ASCII): up to
/// the first ETX, split at record separators; records that are blank
/// after trimming or not UTF-8 are skipped.
///
/// ```
/// use airwaves_core::uat::fisb::text::records;
/// let mut r = records(b"METAR KDEN 071753Z 27010KT\x1e\x1eNOTAM\x1e\x03\x03");
/// assert_eq!(r.next().unwrap().location, "KDEN");
/// assert_eq!(r.next().unwrap().kind, "NOTAM");
/// assert!(r.next().is_none());
/// ```
pub fn records(decoded: &[u8]) -> Records<'_> {
    let end = decoded
        .iter()
        .position(|&b| b == ETX)
        .unwrap_or(decoded.len());
    Records {
        rest: decoded.get(..end).unwrap_or_default(),
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = TextRecord<'a>;

    fn next(&mut self) -> Option<TextRecord<'a>> {
        while !self.rest.is_empty() {
            let (record, rest) = match self.rest.iter().position(|&b| b == RS) {
                Some(i) => (self.rest.get(..i)?, self.rest.get(i + 1..)?),
                None => (self.rest, &[][..]),
            };
            self.rest = rest;
            match core::str::from_utf8(record.trim_ascii()) {
                Ok(text) if !text.is_empty() => return Some(TextRecord::parse(text)),
                _ => {}
            }
        }
        None
    }
}

/// Text that cannot be DLAC-encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DlacEncodeError {
    /// A byte with no DLAC code (lower case, `\t`, most controls, `@` and
    /// above other than `A`–`Z` and `|`). Bytes before it were written.
    Unencodable {
        /// The byte.
        byte: u8,
        /// Its index in the text.
        at: usize,
    },
    /// The output is too small.
    BufferTooSmall {
        /// Bytes the encoded text takes.
        expected: usize,
        /// Bytes of output.
        got: usize,
    },
}

impl core::fmt::Display for DlacEncodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Unencodable { byte, at } => {
                write!(f, "byte {byte:#04x} at {at} has no DLAC code")
            }
            Self::BufferTooSmall { expected, got } => {
                write!(f, "DLAC text of {expected} bytes, {got} of room")
            }
        }
    }
}

impl core::error::Error for DlacEncodeError {}

/// Bytes of `chars` characters DLAC-encoded: `⌈6·chars / 8⌉`.
pub const fn dlac_encoded_len(chars: usize) -> usize {
    (6 * chars).div_ceil(8)
}

/// Encode ASCII `text` as DLAC into `out`: every byte's 6-bit code in
/// [`ALPHABET`], packed MSB first, the last byte padded with 0 bits;
/// returns [`dlac_encoded_len`]`(text.len())`. Spaces stay spaces (no tab
/// compression). When 6 or more bits pad the end (a length of 3 mod 4),
/// [`dlac::decode`](crate::uat::uplink::dlac::decode) reads them as one
/// more code 0, ETX, which ends the text anyway.
///
/// # Errors
/// [`DlacEncodeError::BufferTooSmall`] (nothing written), or
/// [`DlacEncodeError::Unencodable`] for the first byte with no code.
///
/// ```
/// use airwaves_core::uat::fisb::text::dlac_encode;
/// let mut out = [0u8; 4];
/// assert_eq!(dlac_encode(b"METAR", &mut out), Ok(4));
/// assert_eq!(out, [0x34, 0x55, 0x01, 0x48]);
/// ```
pub fn dlac_encode(text: &[u8], out: &mut [u8]) -> Result<usize, DlacEncodeError> {
    let len = dlac_encoded_len(text.len());
    let Some(out) = out.get_mut(..len) else {
        return Err(DlacEncodeError::BufferTooSmall {
            expected: len,
            got: out.len(),
        });
    };
    out.fill(0);
    let (mut acc, mut bits, mut n) = (0u16, 0, 0);
    for (at, &byte) in text.iter().enumerate() {
        let code = match ALPHABET.iter().position(|&a| a == byte) {
            Some(c) if c != TAB => c as u16,
            _ => return Err(DlacEncodeError::Unencodable { byte, at }),
        };
        acc = (acc << 6) | code;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            if let Some(o) = out.get_mut(n) {
                *o = (acc >> bits) as u8;
            }
            n += 1;
            acc &= (1 << bits) - 1;
        }
    }
    if let (true, Some(o)) = (bits > 0, out.get_mut(n)) {
        *o = (acc << (8 - bits)) as u8;
    }
    Ok(len)
}
