//! The 56-bit data field of long Mode S replies, shared by ADS-B and
//! Comm-B: the ME field of DF17/18 ([`adsb::Me`](super::adsb::Me)) and the
//! MB field of DF20/21 ([`commb::Mb`](super::commb::Mb)), message bytes
//! 4..11.
//!
//! Bits are numbered 1..=56 from the first (most significant) bit, as in
//! ICAO Doc 9871 and "The 1090 MHz Riddle"; field bit *n* is message bit
//! *n* + 32. The field is read as one big-endian `u64`, *the word* (field
//! bit 1 is word bit 55), and every subfield is one shift and mask.

use core::fmt;
use core::marker::PhantomData;

/// Length of the field in bytes (56 bits).
pub const LEN: usize = 7;

/// What a [`Field56`] view is read as: ME ([`adsb::MeKind`](super::adsb::MeKind))
/// or MB ([`commb::MbKind`](super::commb::MbKind)). The kind names the view
/// and its length error; the kind's module adds its own accessors.
pub trait Kind {
    /// Name of the view in `Debug` output (`"Me"`, `"Mb"`).
    const NAME: &'static str;
    /// The error of [`Field56::check_len`].
    type Error;
    /// The error for a buffer of `got` bytes, fewer than [`LEN`].
    fn truncated(got: usize) -> Self::Error;
}

/// A typed view over the 7 bytes of a 56-bit data field, read as kind `K`.
///
/// Bytes beyond the seventh are ignored. After
/// [`check_len`](Field56::check_len) (or
/// [`new_checked`](Field56::new_checked)) succeeds no accessor panics; with
/// [`new_unchecked`](Field56::new_unchecked) on a buffer shorter than 7
/// bytes accessors panic on the slice index.
pub struct Field56<T: AsRef<[u8]>, K> {
    buffer: T,
    kind: PhantomData<K>,
}

impl<T: AsRef<[u8]>, K: Kind> Field56<T, K> {
    /// Wrap a buffer without checking its length.
    ///
    /// ```
    /// use airwaves_core::modes::adsb::Me;
    /// use airwaves_core::modes::commb::Mb;
    /// let me = Me::new_unchecked([0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x2C, 0xE0]);
    /// assert_eq!(me.type_code(), 4);
    /// let mb = Mb::new_unchecked([0x20u8, 0x2C, 0xC3, 0x71, 0xC3, 0x1D, 0xE0]);
    /// assert_eq!(mb.header(), 0x20);
    /// ```
    pub const fn new_unchecked(buffer: T) -> Self {
        Field56 {
            buffer,
            kind: PhantomData,
        }
    }

    /// Wrap a buffer, checking that it holds at least [`LEN`] bytes.
    ///
    /// ```
    /// use airwaves_core::modes::adsb::{Me, ParseError};
    /// let frame = [0x8D, 0x40, 0x62, 0x1D, 0x58, 0xC3, 0x82, 0xD6, 0x90, 0xC8, 0xAC, 0x28, 0x63, 0xA7];
    /// let me = Me::new_checked(&frame[4..11])?;
    /// assert_eq!((me.type_code(), me.cpr_lat(), me.cpr_lon()), (11, 93000, 51372));
    /// assert!(Me::new_checked(&frame[..3]).is_err());
    /// # Ok::<(), ParseError>(())
    /// ```
    ///
    /// ```
    /// use airwaves_core::modes::commb::{Error, Mb};
    /// let msg = [0xA0u8, 0x00, 0x08, 0x3E, 0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x1D, 0xE0, 0xAA, 0x1C, 0xCF];
    /// let mb = Mb::new_checked(&msg[4..11])?;
    /// assert_eq!(mb.bits(), 0x20_2CC3_71C3_1DE0);
    /// assert!(Mb::new_checked(&msg[4..8]).is_err());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn new_checked(buffer: T) -> Result<Self, K::Error> {
        let view = Self::new_unchecked(buffer);
        view.check_len()?;
        Ok(view)
    }

    /// Check that the buffer holds at least [`LEN`] bytes.
    pub fn check_len(&self) -> Result<(), K::Error> {
        let got = self.buffer.as_ref().len();
        if got < LEN {
            Err(K::truncated(got))
        } else {
            Ok(())
        }
    }

    /// Give back the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The first byte.
    ///
    /// # Panics
    ///
    /// If the buffer is empty (never after `check_len`).
    #[inline]
    pub(crate) fn first_byte(&self) -> u8 {
        self.buffer.as_ref()[0]
    }

    /// The whole field as a 56-bit big-endian word (field bit 1 is bit 55).
    ///
    /// # Panics
    ///
    /// If the buffer is shorter than [`LEN`] (never after `check_len`).
    #[inline]
    pub fn word(&self) -> u64 {
        let b = self.buffer.as_ref();
        word_of(&[b[0], b[1], b[2], b[3], b[4], b[5], b[6]])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>, K: Kind> Field56<T, K> {
    /// Write the whole field (the top 8 bits of `word` are ignored).
    ///
    /// # Panics
    ///
    /// If the buffer is shorter than [`LEN`] (never after `check_len`).
    #[inline]
    pub fn set_word(&mut self, word: u64) {
        self.buffer.as_mut()[..LEN].copy_from_slice(&bytes_of(word));
    }
}

// The traits `derive` would give, without bounds on the kind marker.

impl<T: AsRef<[u8]> + Clone, K> Clone for Field56<T, K> {
    fn clone(&self) -> Self {
        Field56 {
            buffer: self.buffer.clone(),
            kind: PhantomData,
        }
    }
}

impl<T: AsRef<[u8]> + Copy, K> Copy for Field56<T, K> {}

impl<T: AsRef<[u8]> + PartialEq, K> PartialEq for Field56<T, K> {
    fn eq(&self, other: &Self) -> bool {
        self.buffer == other.buffer
    }
}

impl<T: AsRef<[u8]> + Eq, K> Eq for Field56<T, K> {}

impl<T: AsRef<[u8]> + fmt::Debug, K: Kind> fmt::Debug for Field56<T, K> {
    /// As the derived form would print a struct named after the kind:
    /// `Me { buffer: … }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(K::NAME)
            .field("buffer", &self.buffer)
            .finish()
    }
}

#[cfg(feature = "defmt")]
impl<T: AsRef<[u8]> + defmt::Format, K: Kind> defmt::Format for Field56<T, K> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "{=str} {{ buffer: {} }}", K::NAME, self.buffer)
    }
}

/// The 7 bytes as a big-endian 56-bit word.
#[inline(always)]
pub(crate) const fn word_of(b: &[u8; LEN]) -> u64 {
    u64::from_be_bytes([0, b[0], b[1], b[2], b[3], b[4], b[5], b[6]])
}

/// The low 56 bits of a word as 7 bytes.
#[inline(always)]
pub(crate) const fn bytes_of(word: u64) -> [u8; LEN] {
    let b = word.to_be_bytes();
    [b[1], b[2], b[3], b[4], b[5], b[6], b[7]]
}

/// A run of `len` bits starting at field bit `first` (1-based, MSB first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bits {
    /// First bit, 1..=56.
    pub first: u32,
    /// Width in bits, 1..=56 − `first` + 1.
    pub len: u32,
}

impl Bits {
    /// Bits `first..first + len`.
    pub const fn new(first: u32, len: u32) -> Self {
        Bits { first, len }
    }

    const fn shift(self) -> u32 {
        57 - self.first - self.len
    }

    /// The field's bits in place in the word.
    pub const fn mask(self) -> u64 {
        ((1u64 << self.len) - 1) << self.shift()
    }

    /// The field's value.
    #[inline(always)]
    pub const fn get(self, word: u64) -> u64 {
        (word >> self.shift()) & ((1u64 << self.len) - 1)
    }

    /// The field's value read as `len`-bit two's complement.
    #[inline(always)]
    pub const fn get_signed(self, word: u64) -> i32 {
        let v = self.get(word) as i64;
        ((v << (64 - self.len)) >> (64 - self.len)) as i32
    }

    /// `word` with the field replaced by the low `len` bits of `v`.
    #[inline(always)]
    pub const fn put(self, word: u64, v: u64) -> u64 {
        (word & !self.mask()) | ((v << self.shift()) & self.mask())
    }
}

/// A single flag bit.
pub(crate) const fn bit(n: u32) -> Bits {
    Bits::new(n, 1)
}

/// A field preceded by its status bit: the value is valid only when the
/// status bit is 1, and is sent as all zeros otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Gated {
    /// The status bit.
    pub status: Bits,
    /// The value bits after it.
    pub value: Bits,
}

impl Gated {
    /// Status bit at `status`, value in the `len` bits after it.
    pub const fn new(status: u32, len: u32) -> Self {
        Gated {
            status: bit(status),
            value: Bits::new(status + 1, len),
        }
    }

    /// Status bit and value together.
    pub const fn mask(self) -> u64 {
        self.status.mask() | self.value.mask()
    }

    /// The status bit is set.
    #[inline(always)]
    pub const fn valid(self, word: u64) -> bool {
        word & self.status.mask() != 0
    }

    /// The value, if the status bit is set.
    #[inline(always)]
    pub const fn get(self, word: u64) -> Option<u64> {
        if self.valid(word) {
            Some(self.value.get(word))
        } else {
            None
        }
    }

    /// The value as two's complement, if the status bit is set.
    #[inline(always)]
    pub const fn get_signed(self, word: u64) -> Option<i32> {
        if self.valid(word) {
            Some(self.value.get_signed(word))
        } else {
            None
        }
    }

    /// Status 1, or status 0 with an all-zero value.
    #[inline(always)]
    pub const fn consistent(self, word: u64) -> bool {
        self.valid(word) || word & self.value.mask() == 0
    }

    /// `word` with status and value written (`None`: both zero).
    #[inline(always)]
    pub const fn put(self, word: u64, v: Option<u64>) -> u64 {
        match v {
            Some(v) => self.value.put(word | self.status.mask(), v),
            None => word & !self.mask(),
        }
    }
}
