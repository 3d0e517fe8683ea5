//! RDS blocks: the (26,16) shortened cyclic code, offset words, syndromes
//! and burst-error correction (EN 50067 / IEC 62106 §B).
//!
//! A block is 26 bits, sent most significant first: 16 information bits
//! `m` then a 10-bit checkword `c' = (m(x) · x¹⁰ mod g(x)) ⊕ d`, where
//! `g(x) = x¹⁰ + x⁸ + x⁷ + x⁵ + x⁴ + x³ + 1` and `d` is the offset word of
//! the block's position in the group (A, B, C, C', D). Here a block is held
//! in the low 26 bits of a `u32`.
//!
//! The syndrome used here is the remainder `y(x) mod g(x)` of the received
//! word: an error-free block leaves exactly its offset word, and an error
//! pattern `e` adds `e(x) mod g(x)`. A 1024-entry table built at compile
//! time maps the syndrome of every burst of length 1 or 2 (26 + 25
//! patterns, all syndromes distinct) back to its pattern.
//!
//! Checking a block against the wrong offset usually fails, but the offset
//! differences A⊕B, A⊕D, B⊕C' and C⊕D are themselves syndromes of 2-bit
//! bursts, so such a block "corrects" to wrong data: the search for block
//! synchronisation must accept only error-free blocks (C⊕C' is not a
//! burst syndrome, so C and C' are never confused).

/// The generator polynomial `x¹⁰ + x⁸ + x⁷ + x⁵ + x⁴ + x³ + 1` as bits.
pub const POLY: u32 = 0x5B9;
/// Mask of the 26 bits of a block.
pub const BLOCK_MASK: u32 = (1 << 26) - 1;

/// The offset word added to a block's checkword, which names its position
/// in the group.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Offset {
    /// Block 1 (PI code): `0x0FC`.
    A,
    /// Block 2 (group type, PTY, …): `0x198`.
    B,
    /// Block 3 of a version A group: `0x168`.
    C,
    /// Block 3 of a version B group (PI code again): `0x350`.
    CPrime,
    /// Block 4: `0x1B4`.
    D,
}

impl Offset {
    /// All offsets, in search order.
    pub const ALL: [Offset; 5] = [Offset::A, Offset::B, Offset::C, Offset::CPrime, Offset::D];

    /// The 10-bit offset word.
    ///
    /// ```
    /// use airwaves_core::rds::block::Offset;
    /// assert_eq!(Offset::A.word(), 0x0FC);
    /// assert_eq!(Offset::CPrime.word(), 0x350);
    /// ```
    pub const fn word(self) -> u16 {
        match self {
            Offset::A => 0x0FC,
            Offset::B => 0x198,
            Offset::C => 0x168,
            Offset::CPrime => 0x350,
            Offset::D => 0x1B4,
        }
    }

    /// Position of the block in its group: 0 (A) ..= 3 (D); C and C' are 2.
    pub const fn position(self) -> usize {
        match self {
            Offset::A => 0,
            Offset::B => 1,
            Offset::C | Offset::CPrime => 2,
            Offset::D => 3,
        }
    }
}

/// `w(x) mod g(x)` for a word of up to 26 bits (bits above 25 ignored).
pub const fn syndrome(word: u32) -> u16 {
    let mut w = word & BLOCK_MASK;
    let mut i = 25;
    while i >= 10 {
        if (w >> i) & 1 != 0 {
            w ^= POLY << (i - 10);
        }
        i -= 1;
    }
    w as u16
}

/// The 10-bit checkword of `data` before the offset is added:
/// `data(x) · x¹⁰ mod g(x)`.
///
/// ```
/// use airwaves_core::rds::block::checkword;
/// assert_eq!(checkword(0x1234), 0x096);
/// ```
pub const fn checkword(data: u16) -> u16 {
    syndrome((data as u32) << 10)
}

/// The 26-bit block for `data` at position `offset`.
///
/// ```
/// use airwaves_core::rds::block::{encode, Offset};
/// assert_eq!(encode(0x0000, Offset::A), 0x0FC);
/// assert_eq!(encode(0x1234, Offset::A), 0x1234 << 10 | (0x096 ^ 0x0FC));
/// ```
pub const fn encode(data: u16, offset: Offset) -> u32 {
    ((data as u32) << 10) | (checkword(data) ^ offset.word()) as u32
}

/// Error pattern for every syndrome (0 where no burst of length ≤ 2 has
/// that syndrome).
static CORRECTION: [u32; 1024] = correction_table();

/// Build [`CORRECTION`]: all bursts of length 1 and 2 within 26 bits.
const fn correction_table() -> [u32; 1024] {
    let mut t = [0u32; 1024];
    let mut i = 0;
    while i < 26 {
        t[syndrome(1 << i) as usize] = 1 << i;
        if i < 25 {
            t[syndrome(3 << i) as usize] = 3 << i;
        }
        i += 1;
    }
    t
}

/// A block that passed its check, possibly after correction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Checked {
    /// The 16 information bits.
    pub data: u16,
    /// Number of bits corrected: 0, 1 or 2.
    pub corrected: u8,
}

/// A block whose errors are not a burst of 2 bits or fewer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Uncorrectable;

impl core::fmt::Display for Uncorrectable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("RDS block has errors beyond a 2-bit burst")
    }
}

impl core::error::Error for Uncorrectable {}

/// Check the 26-bit `block` against `offset` and correct a burst of up to
/// 2 bits.
///
/// ```
/// use airwaves_core::rds::block::{decode, encode, Offset};
/// let b = encode(0xC0DE, Offset::B);
/// assert_eq!(decode(b ^ (0b11 << 17), Offset::B).unwrap().data, 0xC0DE);
/// assert!(decode(b ^ (0b1001 << 14), Offset::B).is_err()); // 4-bit burst
/// assert!(decode(b, Offset::C).is_err());
/// ```
pub fn decode(block: u32, offset: Offset) -> Result<Checked, Uncorrectable> {
    let s = syndrome(block) ^ offset.word();
    if s == 0 {
        return Ok(Checked {
            data: (block >> 10) as u16,
            corrected: 0,
        });
    }
    let e = CORRECTION[s as usize];
    if e == 0 {
        return Err(Uncorrectable);
    }
    Ok(Checked {
        data: ((block ^ e) >> 10) as u16,
        corrected: e.count_ones() as u8,
    })
}

#[cfg(test)]
mod test {
    use super::*;

    /// Checkwords (before offset) computed by an independent long division.
    static CHECKWORDS: [(u16, u16); 4] = [
        (0x0000, 0x000),
        (0x1234, 0x096),
        (0xABCD, 0x05B),
        (0xFFFF, 0x0CD),
    ];

    #[test]
    fn test_checkword() {
        for &(d, c) in &CHECKWORDS {
            assert_eq!(checkword(d), c, "{d:04x}");
        }
    }

    #[test]
    fn test_syndrome_of_valid_block_is_offset() {
        for o in Offset::ALL {
            for &(d, _) in &CHECKWORDS {
                assert_eq!(syndrome(encode(d, o)), o.word());
                assert_eq!(
                    decode(encode(d, o), o),
                    Ok(Checked {
                        data: d,
                        corrected: 0
                    })
                );
            }
        }
    }

    #[test]
    fn test_correction_table_unique() {
        let mut n = 0;
        for (s, &e) in CORRECTION.iter().enumerate() {
            if e != 0 {
                assert_eq!(syndrome(e) as usize, s);
                n += 1;
            }
        }
        assert_eq!(n, 51, "all 51 bursts have distinct syndromes");
    }

    #[test]
    fn test_wrong_offset() {
        let c = encode(0x1234, Offset::C);
        let cp = encode(0x1234, Offset::CPrime);
        assert_eq!(decode(c, Offset::CPrime), Err(Uncorrectable));
        assert_eq!(decode(cp, Offset::C), Err(Uncorrectable));
        // A⊕B is the syndrome of a 2-bit burst: miscorrected, not rejected.
        let r = decode(encode(0x1234, Offset::A), Offset::B).unwrap();
        assert_eq!(r.corrected, 2);
        assert_ne!(r.data, 0x1234);
    }

    #[test]
    fn test_correct_bursts() {
        let b = encode(0xABCD, Offset::C);
        for i in 0..26 {
            let r = decode(b ^ (1 << i), Offset::C).unwrap();
            assert_eq!((r.data, r.corrected), (0xABCD, 1));
            if i < 25 {
                let r = decode(b ^ (3 << i), Offset::C).unwrap();
                assert_eq!((r.data, r.corrected), (0xABCD, 2));
            }
        }
        // A 3-bit burst and two separated errors are not corrected to the
        // original data.
        assert_ne!(decode(b ^ (7 << 5), Offset::C).map(|c| c.data), Ok(0xABCD));
        assert_ne!(
            decode(b ^ (1 << 3 | 1 << 20), Offset::C).map(|c| c.data),
            Ok(0xABCD)
        );
    }
}
