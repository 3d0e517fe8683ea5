//! FIS-B products (DO-358) carried in uplink APDUs ([`Apdu`]): which
//! product an APDU holds ([`classify`]), NEXRAD precipitation blocks
//! ([`nexrad`]), generic text ([`text`]), and an information-frame writer
//! for test scenes ([`write_info_frame`]).
//!
//! # Products
//!
//! | product ID | what | module |
//! |---:|---|---|
//! | 63 | NEXRAD regional | [`nexrad`] |
//! | 64 | NEXRAD CONUS | [`nexrad`] |
//! | 413 | generic text (METAR, TAF, PIREP, NOTAM…), DLAC | [`text`] |
//!
//! Not supported: segmented APDUs (S flag set; their segments are not
//! reassembled, [`classify`] reports them as [`Product::Segmented`]), the
//! global block representation's other products (lightning, icing,
//! turbulence, cloud tops…), graphical NOTAMs/AIRMETs (product 8, 11,
//! 12…) and the text's tab compression when encoding.
//!
//! # Information frame and APDU header
//!
//! Bits from 0 at the MSB of the frame's byte 0:
//!
//! | bits | field |
//! |---|---|
//! | 0–8 | length: bytes after this 2-byte header (the APDU), ≤ 511 |
//! | 9–11 | reserved, 0 |
//! | 12–15 | frame type, 0 = FIS-B APDU |
//! | 16–18 | APDU flags A, G, P |
//! | 19–29 | product ID |
//! | 30 | S, segmentation |
//! | 31–32 | time option `t` |
//! | 33… | month (4 bits) and day (5) if `t ≥ 2`; hours (5); minutes (6); seconds (6) if `t` is odd |
//!
//! then zero bits to the byte, then the product's payload.

pub mod nexrad;
pub mod text;

use super::uplink::{Apdu, ProductTime};
use nexrad::{NexradError, NexradPayload};

/// Product ID of regional NEXRAD.
pub const NEXRAD_REGIONAL: u16 = 63;
/// Product ID of CONUS NEXRAD.
pub const NEXRAD_CONUS: u16 = 64;
/// Product ID of generic text.
pub const GENERIC_TEXT: u16 = 413;
/// Bytes of an information frame's header.
pub const FRAME_HEADER_LEN: usize = 2;
/// The longest APDU a frame holds (a 9-bit length).
pub const MAX_APDU_LEN: usize = 511;

/// What an APDU holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Product<'a> {
    /// NEXRAD, product 63 or 64.
    Nexrad {
        /// Product 64 (CONUS) rather than 63 (regional).
        conus: bool,
        /// The block or empty blocks.
        payload: NexradPayload,
    },
    /// Generic text, product 413: DLAC bytes, to decode with
    /// [`dlac::decode`](crate::uat::uplink::dlac::decode) into a caller's
    /// buffer and split with [`text::records`].
    Text(&'a [u8]),
    /// A segment of a segmented APDU (not reassembled).
    Segmented {
        /// Product ID.
        id: u16,
    },
    /// Any other product.
    Other {
        /// Product ID.
        id: u16,
        /// Its payload.
        payload: &'a [u8],
    },
}

/// Which product `apdu` holds, NEXRAD payloads parsed. Segmented APDUs are
/// [`Product::Segmented`] whatever their product.
///
/// # Errors
/// A NEXRAD payload that cannot be read ([`NexradPayload::parse`]).
pub fn classify<'a>(apdu: &Apdu<'a>) -> Result<Product<'a>, NexradError> {
    Ok(match apdu.product_id {
        id if apdu.segmented => Product::Segmented { id },
        id @ (NEXRAD_REGIONAL | NEXRAD_CONUS) => Product::Nexrad {
            conus: id == NEXRAD_CONUS,
            payload: NexradPayload::parse(apdu.payload)?,
        },
        GENERIC_TEXT => Product::Text(apdu.payload),
        id => Product::Other {
            id,
            payload: apdu.payload,
        },
    })
}

/// An information frame that cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FrameError {
    /// The output is too small.
    BufferTooSmall {
        /// Bytes the frame takes.
        expected: usize,
        /// Bytes of output.
        got: usize,
    },
    /// The APDU is longer than [`MAX_APDU_LEN`].
    TooLong {
        /// Its length.
        len: usize,
    },
    /// A product ID above 2047 (11 bits).
    ProductId(u16),
    /// A time out of range: hours 0–23, minutes and seconds 0–59, month
    /// 1–12, day 1–31.
    Time,
}

impl core::fmt::Display for FrameError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BufferTooSmall { expected, got } => {
                write!(f, "information frame of {expected} bytes, {got} of room")
            }
            Self::TooLong { len } => write!(f, "APDU of {len} bytes, past 511"),
            Self::ProductId(id) => write!(f, "product ID {id} does not fit 11 bits"),
            Self::Time => f.write_str("product time out of range"),
        }
    }
}

impl core::error::Error for FrameError {}

/// The APDU header of `product_id` and `time`, left-aligned, and its
/// length in bytes (4 to 6).
fn apdu_header(product_id: u16, time: &ProductTime) -> Result<(u64, usize), FrameError> {
    if product_id > 0x7FF {
        return Err(FrameError::ProductId(product_id));
    }
    let ok = time.hours < 24
        && time.minutes < 60
        && time.seconds.is_none_or(|s| s < 60)
        && time
            .month_day
            .is_none_or(|(m, d)| (1..=12).contains(&m) && (1..=31).contains(&d));
    if !ok {
        return Err(FrameError::Time);
    }
    let option = (u8::from(time.month_day.is_some()) << 1) | u8::from(time.seconds.is_some());
    let (mut bits, mut at) = (0u64, 0);
    let mut push = |v: u8, w: u32| {
        at += w;
        bits |= u64::from(v) << (64 - at);
    };
    push(0, 3);
    push((product_id >> 6) as u8, 5);
    push((product_id & 0x3F) as u8, 6);
    push(0, 1);
    push(option, 2);
    if let Some((month, day)) = time.month_day {
        push(month, 4);
        push(day, 5);
    }
    push(time.hours, 5);
    push(time.minutes, 6);
    if let Some(s) = time.seconds {
        push(s, 6);
    }
    Ok((bits, at.div_ceil(8) as usize))
}

/// Write a type-0 information frame holding one unsegmented FIS-B APDU:
/// the frame header, the APDU header (flags A, G, P and S 0; the time
/// option from which of `time`'s month/day and seconds are present) and
/// `payload`. Returns the bytes written, `2 + APDU length`.
///
/// # Errors
/// [`FrameError`] (nothing written): a product ID or time out of range,
/// an APDU past 511 bytes, or `out` too small.
///
/// ```
/// use airwaves_core::uat::fisb::write_info_frame;
/// use airwaves_core::uat::uplink::{Apdu, ProductTime};
/// let time = ProductTime { month_day: None, hours: 17, minutes: 53, seconds: None };
/// let mut out = [0u8; 8];
/// assert_eq!(write_info_frame(413, time, &[0xEE], &mut out), Ok(7));
/// assert_eq!(out[..7], [0x02, 0x80, 0x06, 0x74, 0x47, 0x50, 0xEE]);
/// let apdu = Apdu::parse(&out[2..7]).unwrap();
/// assert_eq!((apdu.product_id, apdu.time, apdu.payload), (413, time, &[0xEE][..]));
/// ```
pub fn write_info_frame(
    product_id: u16,
    time: ProductTime,
    payload: &[u8],
    out: &mut [u8],
) -> Result<usize, FrameError> {
    let (bits, head) = apdu_header(product_id, &time)?;
    let len = head + payload.len();
    if len > MAX_APDU_LEN {
        return Err(FrameError::TooLong { len });
    }
    let total = FRAME_HEADER_LEN + len;
    let Some(frame) = out.get_mut(..total) else {
        return Err(FrameError::BufferTooSmall {
            expected: total,
            got: out.len(),
        });
    };
    let (header, rest) = frame.split_at_mut(FRAME_HEADER_LEN);
    header.copy_from_slice(&[(len >> 1) as u8, ((len & 1) << 7) as u8]);
    let (apdu, body) = rest.split_at_mut(head);
    for (o, b) in apdu.iter_mut().zip(bits.to_be_bytes()) {
        *o = b;
    }
    body.copy_from_slice(payload);
    Ok(total)
}

#[cfg(test)]
mod tests;
