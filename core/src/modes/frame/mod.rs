//! Mode S downlink frames: a typed view over the raw bytes ([`Frame`]) and
//! the decoded header fields ([`Repr`]).
//!
//! # Layout
//!
//! Bits are numbered 1…56 or 1…112 from the first DF bit, as in ICAO
//! Annex 10 Vol IV §3.1.2 (the MSB of byte 0 is bit 1). A frame is short
//! (56 bits, 7 bytes) when its first bit is 0 (DF 0–15) and long (112 bits,
//! 14 bytes) otherwise (DF 16–31). DF 24 (Comm-D, ELM) is any frame whose
//! first two bits are `11`: the next three bits are not part of its DF.
//!
//! | DF | bits 6–8 | 9–32 | 33–56 / 33–88 | last 24 bits |
//! |---|---|---|---|---|
//! | 0 short ACAS | VS 6, CC 7 | SL 9–11, RI 14–17, AC 20–32 | — | AP |
//! | 4 / 5 surveillance | FS | DR 9–13, UM 14–19, AC/ID 20–32 | — | AP |
//! | 11 all-call | CA | AA | — | PI (parity ⊕ interrogator code) |
//! | 16 long ACAS | VS 6 | SL 9–11, RI 14–17, AC 20–32 | MV | AP |
//! | 17 extended squitter | CA | AA | ME | PI |
//! | 18 non-transponder ES | CF | AA | ME | PI |
//! | 19 military ES | AF | (AF = 0: AA) | (AF = 0: ME) | (AF = 0: PI) |
//! | 20 / 21 Comm-B | FS | DR, UM, AC/ID 20–32 | MB | AP |
//! | 24 Comm-D | spare 3, KE 4, ND 5–8 | MD 9–88 | | AP |
//!
//! AP = parity ⊕ the 24-bit ICAO address, so the address of an AP frame is
//! recovered by [`crc::remainder`] (it cannot be
//! checked). PI formats are checked by requiring the remainder to be 0 (or
//! a valid interrogator code for DF11).
//!
//! # Panics
//!
//! No accessor or setter of [`Frame`] panics, whatever the buffer: bytes
//! beyond the buffer read as 0 and writes to them are dropped. Once
//! [`Frame::check_len`] has succeeded the buffer is exactly 7 or 14 bytes as
//! the DF requires, and every accessor returns the real field.

// This module: the byte layout, the `Frame` view (getters and setters)
// and `FrameError`. The first-byte codes (DF, CA, CF, FS):
mod codes;
// Coded fields (interrogator code, altitude code, identity code):
mod fields;
// `Repr`: parse a frame into its format's fields, emit it back:
mod repr;

#[cfg(test)]
mod tests;

pub use codes::{Capability, ControlField, DownlinkFormat, FlightStatus};
pub use fields::{AltitudeCode, IdentityCode, InterrogatorCode};
pub use repr::{RawFrame, Repr};

use core::fmt;

use super::altitude::{decode_ac13, decode_id13};
use super::crc;

/// Byte ranges and bit masks of the frame fields.
mod field {
    pub type Field = core::ops::Range<usize>;

    /// Length of a short (DF 0–15) frame.
    pub const SHORT_LEN: usize = 7;
    /// Length of a long (DF 16–31) frame.
    pub const LONG_LEN: usize = 14;

    /// Byte 0, bits 1–5: the downlink format.
    pub const DF_SHIFT: u8 = 3;
    /// Byte 0, bit 1: set for long frames.
    pub const LONG_BIT: u8 = 0x80;
    /// Byte 0, bits 1–2 both set: DF 24 (Comm-D).
    pub const COMM_D_MASK: u8 = 0xC0;
    /// Byte 0, bits 6–8: CA, CF, AF or FS.
    pub const LOW3: u8 = 0x07;
    /// Byte 0, bit 6: VS (DF0/16).
    pub const VS: u8 = 0x04;
    /// Byte 0, bit 7: CC (DF0).
    pub const CC: u8 = 0x02;
    /// Byte 0, bit 4: KE (DF24).
    pub const KE: u8 = 0x10;
    /// Byte 0, bits 5–8: ND (DF24).
    pub const ND: u8 = 0x0F;

    /// Bits 9–32: the announced address (DF11/17/18).
    pub const AA: Field = 1..4;
    /// Bits 33–88: ME (DF17/18), MB (DF20/21), MV (DF16).
    pub const ME: Field = 4..11;
    /// Bits 9–88: MD (DF24) or the body of a DF19.
    pub const MD: Field = 1..11;
}

/// Errors from [`Frame::check_len`], [`Repr::parse`] and [`Repr::emit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FrameError {
    /// The buffer is not as long as its DF requires (7 bytes for DF 0–15,
    /// 14 for DF 16–31; an empty buffer expects 7).
    Length {
        /// Required length in bytes.
        expected: usize,
        /// Actual length in bytes.
        got: usize,
    },
    /// The remainder of a PI frame (DF11/17/18) is not 0 (nor a valid
    /// interrogator code for DF11).
    Parity {
        /// The remainder found ([`crc::remainder`]).
        syndrome: u32,
    },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Length { expected, got } => {
                write!(f, "Mode S frame length {got} bytes, expected {expected}")
            }
            Self::Parity { syndrome } => write!(f, "Mode S parity error, syndrome {syndrome:06X}"),
        }
    }
}

impl core::error::Error for FrameError {}

/// A typed view over a Mode S frame held in any byte buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Frame<T: AsRef<[u8]>> {
    buffer: T,
}

/// Length of a frame whose first byte is `b0`: 14 if its first bit is set
/// (DF ≥ 16), else 7.
#[inline]
const fn len_for(b0: u8) -> usize {
    if b0 & field::LONG_BIT != 0 {
        field::LONG_LEN
    } else {
        field::SHORT_LEN
    }
}

impl<T: AsRef<[u8]>> Frame<T> {
    /// Wrap a buffer without checking its length.
    ///
    /// ```
    /// use airwaves_core::modes::frame::{DownlinkFormat, Frame};
    /// let f = Frame::new_unchecked([0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5]);
    /// assert_eq!(f.df(), DownlinkFormat::AllCall);
    /// ```
    pub const fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// Wrap a buffer and check that its length matches the DF.
    ///
    /// ```
    /// use airwaves_core::modes::frame::{Frame, FrameError};
    /// let bytes = [0x8D, 0x40, 0x6B, 0x90, 0x20, 0x15, 0xA6, 0x78, 0xD4, 0xD2, 0x20, 0xAA, 0x4B, 0xDA];
    /// let f = Frame::new_checked(&bytes[..]).unwrap();
    /// assert_eq!(f.aa(), 0x406B90);
    /// assert_eq!(
    ///     Frame::new_checked(&bytes[..7]).unwrap_err(),
    ///     FrameError::Length { expected: 14, got: 7 }
    /// );
    /// ```
    pub fn new_checked(buffer: T) -> Result<Self, FrameError> {
        let f = Self::new_unchecked(buffer);
        f.check_len()?;
        Ok(f)
    }

    /// Check that the buffer is 7 bytes for DF 0–15 or 14 bytes for DF
    /// 16–31. After this succeeds every accessor returns the real field.
    pub fn check_len(&self) -> Result<(), FrameError> {
        let b = self.buffer.as_ref();
        let expected = b.first().map_or(field::SHORT_LEN, |&b0| len_for(b0));
        if b.len() == expected {
            Ok(())
        } else {
            Err(FrameError::Length {
                expected,
                got: b.len(),
            })
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The frame bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    #[inline]
    fn byte(&self, i: usize) -> u8 {
        self.buffer.as_ref().get(i).copied().unwrap_or(0)
    }

    #[inline]
    fn field(&self, f: field::Field) -> &[u8] {
        self.buffer.as_ref().get(f).unwrap_or(&[])
    }

    /// Whether the frame is long (first bit set: DF ≥ 16, 112 bits).
    #[inline]
    pub fn is_long(&self) -> bool {
        self.byte(0) & field::LONG_BIT != 0
    }

    /// The raw 5-bit DF code (bits 1–5; for Comm-D this includes KE and
    /// the spare bit).
    #[inline]
    pub fn df_code(&self) -> u8 {
        self.byte(0) >> field::DF_SHIFT
    }

    /// Downlink format (bits 1–5; any code ≥ 24 is Comm-D).
    #[inline]
    pub fn df(&self) -> DownlinkFormat {
        DownlinkFormat::from(self.df_code())
    }

    /// Capability (CA, bits 6–8; DF11/17).
    #[inline]
    pub fn ca(&self) -> Capability {
        Capability::from(self.byte(0))
    }

    /// Control field (CF, bits 6–8; DF18).
    #[inline]
    pub fn cf(&self) -> ControlField {
        ControlField::from(self.byte(0))
    }

    /// Application field (AF, bits 6–8; DF19), 0–7.
    #[inline]
    pub fn af(&self) -> u8 {
        self.byte(0) & field::LOW3
    }

    /// Flight status (FS, bits 6–8; DF4/5/20/21).
    #[inline]
    pub fn fs(&self) -> FlightStatus {
        FlightStatus::from(self.byte(0))
    }

    /// Vertical status (VS, bit 6; DF0/16): `true` on the ground.
    #[inline]
    pub fn vs(&self) -> bool {
        self.byte(0) & field::VS != 0
    }

    /// Cross-link capability (CC, bit 7; DF0): `true` if the transponder
    /// supports cross-link (DF0 → DF16 on request).
    #[inline]
    pub fn cc(&self) -> bool {
        self.byte(0) & field::CC != 0
    }

    /// Sensitivity level of the ACAS (SL, bits 9–11; DF0/16), 0–7 (0 =
    /// ACAS inoperative).
    #[inline]
    pub fn sl(&self) -> u8 {
        self.byte(1) >> 5
    }

    /// Reply information (RI, bits 14–17; DF0/16), 0–15: 0 no ACAS, 2–4
    /// ACAS resolution capabilities, 8–14 maximum airspeed class.
    #[inline]
    pub fn ri(&self) -> u8 {
        ((self.byte(1) & 0x07) << 1) | (self.byte(2) >> 7)
    }

    /// Downlink request (DR, bits 9–13; DF4/5/20/21), 0–31.
    #[inline]
    pub fn dr(&self) -> u8 {
        self.byte(1) >> 3
    }

    /// Utility message (UM, bits 14–19; DF4/5/20/21), 0–63: IIS (4 bits)
    /// then IDS (2 bits).
    #[inline]
    pub fn um(&self) -> u8 {
        ((self.byte(1) & 0x07) << 3) | (self.byte(2) >> 5)
    }

    /// Bits 20–32 as a 13-bit value: AC (DF0/4/16/20) or ID (DF5/21).
    #[inline]
    fn bits20_32(&self) -> u16 {
        (u16::from(self.byte(2) & 0x1F) << 8) | u16::from(self.byte(3))
    }

    /// Altitude code (AC, bits 20–32; DF0/4/16/20), raw 13 bits.
    #[inline]
    pub fn ac13(&self) -> u16 {
        self.bits20_32()
    }

    /// Identity code (ID, bits 20–32; DF5/21), raw 13 bits.
    #[inline]
    pub fn id13(&self) -> u16 {
        self.bits20_32()
    }

    /// Altitude in feet from AC for DF0/4/16/20; `None` for other formats
    /// or when the code is not available, metric or invalid.
    pub fn altitude_ft(&self) -> Option<i32> {
        match self.df_code() {
            0 | 4 | 16 | 20 => decode_ac13(self.ac13()),
            _ => None,
        }
    }

    /// Squawk (octal digits in hex nibbles) from ID for DF5/21; `None` for
    /// other formats.
    pub fn squawk(&self) -> Option<u16> {
        match self.df_code() {
            5 | 21 => Some(decode_id13(self.id13())),
            _ => None,
        }
    }

    /// Announced address (AA, bits 9–32; DF11/17/18, and DF19 with AF 0).
    #[inline]
    pub fn aa(&self) -> u32 {
        (u32::from(self.byte(1)) << 16) | (u32::from(self.byte(2)) << 8) | u32::from(self.byte(3))
    }

    /// The last 24 bits (AP or PI), big-endian.
    #[inline]
    pub fn parity(&self) -> u32 {
        let b = self.buffer.as_ref();
        let n = b.len();
        b.get(n.saturating_sub(3)..)
            .unwrap_or(&[])
            .iter()
            .fold(0, |acc, &x| (acc << 8) | u32::from(x))
    }

    /// The remainder of the whole frame ([`crc::remainder`]).
    #[inline]
    pub fn syndrome(&self) -> u32 {
        crc::remainder(self.buffer.as_ref())
    }

    /// The ICAO address: AA for DF11/17/18 (and DF19 with AF 0), the
    /// address recovered from AP parity for DF0/4/5/16/20/21/24; `None`
    /// for other formats. AP addresses cannot be verified: a bit error
    /// gives a wrong address.
    pub fn address(&self) -> Option<u32> {
        match self.df() {
            DownlinkFormat::AllCall
            | DownlinkFormat::ExtendedSquitter
            | DownlinkFormat::ExtendedSquitterNonTransponder => Some(self.aa()),
            DownlinkFormat::MilitaryExtendedSquitter => (self.af() == 0).then(|| self.aa()),
            df if df.has_address_parity() => Some(self.syndrome()),
            _ => None,
        }
    }

    /// Interrogator code of a DF11 reply, from its remainder; `None` for
    /// other formats or if the remainder is no valid code (a corrupted
    /// frame).
    pub fn iid(&self) -> Option<InterrogatorCode> {
        if self.df() != DownlinkFormat::AllCall {
            return None;
        }
        InterrogatorCode::from_remainder(self.syndrome())
    }

    /// Extended squitter message (ME, bits 33–88; DF17/18/19), 7 bytes
    /// (empty if the buffer is shorter than 11 bytes).
    #[inline]
    pub fn me(&self) -> &[u8] {
        self.field(field::ME)
    }

    /// ME as a 56-bit integer (ME bit 1 is bit 55), for shift-and-mask
    /// decoding; 0 if the buffer is shorter than 11 bytes.
    #[inline]
    pub fn me_bits(&self) -> u64 {
        let me = self.me();
        if me.len() != 7 {
            return 0;
        }
        me.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
    }

    /// Comm-B message (MB, bits 33–88; DF20/21), 7 bytes.
    #[inline]
    pub fn mb(&self) -> &[u8] {
        self.field(field::ME)
    }

    /// ACAS message (MV, bits 33–88; DF16), 7 bytes.
    #[inline]
    pub fn mv(&self) -> &[u8] {
        self.field(field::ME)
    }

    /// Comm-D message (MD, bits 9–88; DF24), 10 bytes.
    #[inline]
    pub fn md(&self) -> &[u8] {
        self.field(field::MD)
    }

    /// Control, ELM (KE, bit 4; DF24): `true` for an uplink ELM
    /// acknowledgement, `false` for a downlink ELM segment.
    #[inline]
    pub fn ke(&self) -> bool {
        self.byte(0) & field::KE != 0
    }

    /// Number of D-segment (ND, bits 5–8; DF24), 0–15.
    #[inline]
    pub fn nd(&self) -> u8 {
        self.byte(0) & field::ND
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Frame<T> {
    #[inline]
    fn byte_mut(&mut self, i: usize) -> Option<&mut u8> {
        self.buffer.as_mut().get_mut(i)
    }

    #[inline]
    fn set_bits(&mut self, i: usize, mask: u8, value: u8) {
        if let Some(b) = self.byte_mut(i) {
            *b = (*b & !mask) | (value & mask);
        }
    }

    #[inline]
    fn set_field(&mut self, f: field::Field, value: &[u8]) {
        if let Some(d) = self.buffer.as_mut().get_mut(f) {
            for (d, s) in d.iter_mut().zip(value) {
                *d = *s;
            }
        }
    }

    /// Set the DF (bits 1–5). Comm-D sets bits 1–3 to `110` and keeps KE
    /// and ND; `Unknown(v)` writes the low 5 bits of `v`.
    pub fn set_df(&mut self, df: DownlinkFormat) {
        match df {
            DownlinkFormat::CommD => self.set_bits(0, 0xE0, field::COMM_D_MASK),
            df => self.set_bits(0, 0xF8, u8::from(df) << field::DF_SHIFT),
        }
    }

    /// Set CA (bits 6–8).
    pub fn set_ca(&mut self, ca: Capability) {
        self.set_bits(0, field::LOW3, u8::from(ca));
    }

    /// Set CF (bits 6–8).
    pub fn set_cf(&mut self, cf: ControlField) {
        self.set_bits(0, field::LOW3, u8::from(cf));
    }

    /// Set AF (bits 6–8, low 3 bits of `af`).
    pub fn set_af(&mut self, af: u8) {
        self.set_bits(0, field::LOW3, af);
    }

    /// Set FS (bits 6–8).
    pub fn set_fs(&mut self, fs: FlightStatus) {
        self.set_bits(0, field::LOW3, u8::from(fs));
    }

    /// Set VS (bit 6).
    pub fn set_vs(&mut self, on_ground: bool) {
        self.set_bits(0, field::VS, if on_ground { 0xFF } else { 0 });
    }

    /// Set CC (bit 7).
    pub fn set_cc(&mut self, cc: bool) {
        self.set_bits(0, field::CC, if cc { 0xFF } else { 0 });
    }

    /// Set SL (bits 9–11, low 3 bits of `sl`).
    pub fn set_sl(&mut self, sl: u8) {
        self.set_bits(1, 0xE0, sl << 5);
    }

    /// Set RI (bits 14–17, low 4 bits of `ri`).
    pub fn set_ri(&mut self, ri: u8) {
        self.set_bits(1, 0x07, ri >> 1);
        self.set_bits(2, 0x80, ri << 7);
    }

    /// Set DR (bits 9–13, low 5 bits of `dr`).
    pub fn set_dr(&mut self, dr: u8) {
        self.set_bits(1, 0xF8, dr << 3);
    }

    /// Set UM (bits 14–19, low 6 bits of `um`).
    pub fn set_um(&mut self, um: u8) {
        self.set_bits(1, 0x07, um >> 3);
        self.set_bits(2, 0xE0, um << 5);
    }

    /// Set AC (bits 20–32, low 13 bits of `ac`).
    pub fn set_ac13(&mut self, ac: u16) {
        self.set_bits(2, 0x1F, (ac >> 8) as u8);
        self.set_bits(3, 0xFF, ac as u8);
    }

    /// Set ID (bits 20–32, low 13 bits of `id`).
    pub fn set_id13(&mut self, id: u16) {
        self.set_ac13(id);
    }

    /// Set AA (bits 9–32, low 24 bits of `aa`).
    pub fn set_aa(&mut self, aa: u32) {
        let b = aa.to_be_bytes();
        self.set_field(field::AA, &b[1..]);
    }

    /// Set ME (bits 33–88). No-op on a short buffer.
    pub fn set_me(&mut self, me: &[u8; 7]) {
        self.set_field(field::ME, me);
    }

    /// Set MB (bits 33–88).
    pub fn set_mb(&mut self, mb: &[u8; 7]) {
        self.set_field(field::ME, mb);
    }

    /// Set MV (bits 33–88).
    pub fn set_mv(&mut self, mv: &[u8; 7]) {
        self.set_field(field::ME, mv);
    }

    /// Set MD (bits 9–88).
    pub fn set_md(&mut self, md: &[u8; 10]) {
        self.set_field(field::MD, md);
    }

    /// Set KE (bit 4, DF24).
    pub fn set_ke(&mut self, ke: bool) {
        self.set_bits(0, field::KE, if ke { 0xFF } else { 0 });
    }

    /// Set ND (bits 5–8, DF24, low 4 bits of `nd`).
    pub fn set_nd(&mut self, nd: u8) {
        self.set_bits(0, field::ND, nd);
    }

    /// Write the last 24 bits verbatim (low 24 bits of `p`).
    pub fn set_parity(&mut self, p: u32) {
        let b = self.buffer.as_mut();
        let n = b.len();
        if let Some(d) = b.get_mut(n.saturating_sub(3)..) {
            let src = p.to_be_bytes();
            for (d, s) in d.iter_mut().rev().zip(src.iter().rev()) {
                *d = *s;
            }
        }
    }

    /// Compute the CRC of all but the last 3 bytes and write it XOR
    /// `overlay` into them: `overlay` = 0 for DF17/18 (PI), the ICAO
    /// address for AP formats, [`InterrogatorCode::overlay`] for DF11.
    /// Afterwards [`syndrome`](Frame::syndrome) returns `overlay`.
    ///
    /// ```
    /// use airwaves_core::modes::frame::Frame;
    /// let mut f = Frame::new_unchecked([0x20, 0x00, 0x17, 0x18, 0, 0, 0]);
    /// f.fill_parity(0x4CA7E8);
    /// assert_eq!(f.into_inner(), [0x20, 0x00, 0x17, 0x18, 0x06, 0xA9, 0x83]);
    /// ```
    pub fn fill_parity(&mut self, overlay: u32) {
        let b = self.buffer.as_ref();
        let n = b.len().saturating_sub(3);
        let c = crc::crc24(b.get(..n).unwrap_or(&[]));
        self.set_parity(c ^ (overlay & 0xFF_FFFF));
    }
}
