//! UAT uplink (ground station) messages, DO-282B §2.2.3: a typed view
//! over the 432 corrected data bytes ([`Uplink`]), the information frames
//! of its application data ([`InfoFrames`]), the FIS-B APDU header of an
//! information frame ([`Apdu`], DO-358) and DLAC text ([`dlac`]).
//!
//! # Layout
//!
//! Bits from 0 at the MSB of byte 0:
//!
//! | bits | field |
//! |---|---|
//! | 0–22 | ground station latitude (`raw·360/2²⁴`°, minus 180 above 90) |
//! | 23–46 | longitude (`raw·360/2²⁴`°, minus 360 from 180) |
//! | 47 | position valid |
//! | 48 | UTC coupled |
//! | 50 | application data valid |
//! | 51–55 | slot ID |
//! | 56–59 | TIS-B site ID |
//! | bytes 8–431 | application data: information frames |
//!
//! An information frame is a 2-byte header, length (9 bits), reserved
//! (3), frame type (4), then `length` bytes. A header of length 0 and
//! type 0 ends the list; so does a frame that would run past the data.
//! Type 0 frames carry a FIS-B APDU: A, G and P flags, the product ID
//! (11 bits), the S flag, the time option (2 bits), then the time (hours
//! and minutes; option 1 adds seconds, 2 month and day before them, 3
//! both), then the product's payload.

use crate::modes::cpr::Position;

/// Bytes of an uplink message's data.
pub const LEN: usize = super::UPLINK_DATA;
/// Where the application data starts.
pub const APP_DATA: usize = 8;

/// A typed view over an uplink message's 432 data bytes. No accessor
/// panics whatever the buffer (missing bytes read as 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Uplink<T: AsRef<[u8]>> {
    buffer: T,
}

fn byte(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

impl<T: AsRef<[u8]>> Uplink<T> {
    /// A view of `buffer`.
    pub const fn new(buffer: T) -> Self {
        Self { buffer }
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// The ground station's position as sent (check
    /// [`position_valid`](Self::position_valid)).
    pub fn position(&self) -> Position {
        let b = self.b();
        let raw_lat = (u32::from(byte(b, 0)) << 15)
            | (u32::from(byte(b, 1)) << 7)
            | (u32::from(byte(b, 2)) >> 1);
        let raw_lon = (u32::from(byte(b, 2) & 1) << 23)
            | (u32::from(byte(b, 3)) << 15)
            | (u32::from(byte(b, 4)) << 7)
            | (u32::from(byte(b, 5)) >> 1);
        let mut lat = f64::from(raw_lat) * 360.0 / 16_777_216.0;
        if lat > 90.0 {
            lat -= 180.0;
        }
        let mut lon = f64::from(raw_lon) * 360.0 / 16_777_216.0;
        if lon >= 180.0 {
            lon -= 360.0;
        }
        Position { lat, lon }
    }

    /// Whether the position is valid.
    pub fn position_valid(&self) -> bool {
        byte(self.b(), 5) & 1 != 0
    }

    /// Whether the station's time is UTC coupled.
    pub fn utc_coupled(&self) -> bool {
        byte(self.b(), 6) & 0x80 != 0
    }

    /// Whether the application data is valid.
    pub fn app_data_valid(&self) -> bool {
        byte(self.b(), 6) & 0x20 != 0
    }

    /// The slot the station sends in (0–31).
    pub fn slot_id(&self) -> u8 {
        byte(self.b(), 6) & 0x1F
    }

    /// TIS-B site ID (0–15).
    pub fn tisb_site_id(&self) -> u8 {
        byte(self.b(), 7) >> 4
    }

    /// The information frames of the application data (none if it is not
    /// valid).
    pub fn info_frames(&self) -> InfoFrames<'_> {
        let b = self.b();
        let data = if self.app_data_valid() && b.len() > APP_DATA {
            &b[APP_DATA..]
        } else {
            &[]
        };
        InfoFrames { rest: data }
    }
}

/// The 8-byte header of an uplink message from a UAT-coupled station at
/// `position` (position valid, application data valid) in `slot` (0–31)
/// with TIS-B site `tisb_site` (0–15): the inverse of [`Uplink`]'s
/// accessors. Latitude and longitude are rounded to the 2⁻²⁴ circle
/// (about 2.4 m).
///
/// ```
/// use airwaves_core::modes::cpr::Position;
/// use airwaves_core::uat::uplink::{Uplink, header};
/// let h = header(Position { lat: 39.5, lon: -104.9 }, 17, 9);
/// let up = Uplink::new(&h[..]);
/// let p = up.position();
/// assert!((p.lat - 39.5).abs() < 1e-4 && (p.lon + 104.9).abs() < 1e-4);
/// assert_eq!((up.slot_id(), up.tisb_site_id(), up.position_valid()), (17, 9, true));
/// ```
pub fn header(position: Position, slot: u8, tisb_site: u8) -> [u8; APP_DATA] {
    let lat = if position.lat < 0.0 {
        position.lat + 180.0
    } else {
        position.lat
    };
    let lon = if position.lon < 0.0 {
        position.lon + 360.0
    } else {
        position.lon
    };
    let raw_lat = (libm::round(lat * 16_777_216.0 / 360.0) as u64) & 0x7F_FFFF;
    let raw_lon = (libm::round(lon * 16_777_216.0 / 360.0) as u64) & 0xFF_FFFF;
    let word = (raw_lat << 41)
        | (raw_lon << 17)
        | (1 << 16)
        | (1 << 15)
        | (1 << 13)
        | (u64::from(slot & 31) << 8)
        | (u64::from(tisb_site & 15) << 4);
    word.to_be_bytes()
}

/// One information frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InfoFrame<'a> {
    /// Frame type (0: FIS-B APDU).
    pub kind: u8,
    /// Its bytes after the header.
    pub data: &'a [u8],
}

/// The information frames of an uplink message, in order.
#[derive(Debug, Clone)]
pub struct InfoFrames<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for InfoFrames<'a> {
    type Item = InfoFrame<'a>;

    fn next(&mut self) -> Option<InfoFrame<'a>> {
        let [h0, h1, tail @ ..] = self.rest else {
            return None;
        };
        let len = (usize::from(*h0) << 1) | usize::from(*h1 >> 7);
        let kind = h1 & 0x0F;
        if (len == 0 && kind == 0) || len > tail.len() {
            self.rest = &[];
            return None;
        }
        let (data, rest) = tail.split_at(len);
        self.rest = rest;
        Some(InfoFrame { kind, data })
    }
}

/// A FIS-B APDU that cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ApduError {
    /// Shorter than its header.
    Truncated {
        /// Bytes its time option needs.
        expected: usize,
        /// Bytes there are.
        got: usize,
    },
}

impl core::fmt::Display for ApduError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Truncated { expected, got } => {
                write!(f, "FIS-B APDU of {got} bytes, its header needs {expected}")
            }
        }
    }
}

impl core::error::Error for ApduError {}

/// When a product was made, as far as the APDU says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ProductTime {
    /// Month and day, with time options 2 and 3.
    pub month_day: Option<(u8, u8)>,
    /// Hours (UTC).
    pub hours: u8,
    /// Minutes.
    pub minutes: u8,
    /// Seconds, with time options 1 and 3.
    pub seconds: Option<u8>,
}

/// A FIS-B APDU: its header and payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Apdu<'a> {
    /// Application method flags A, G, P.
    pub flags: [bool; 3],
    /// Product ID (DO-358: 63 NEXRAD regional, 64 CONUS, 413 generic
    /// text, …).
    pub product_id: u16,
    /// Segmentation flag S.
    pub segmented: bool,
    /// Product time.
    pub time: ProductTime,
    /// The product's own bytes.
    pub payload: &'a [u8],
}

impl<'a> Apdu<'a> {
    /// Read the APDU of a type-0 information frame's bytes.
    ///
    /// # Errors
    /// [`ApduError::Truncated`] if the bytes are shorter than the header
    /// their time option asks for.
    pub fn parse(data: &'a [u8]) -> Result<Self, ApduError> {
        let truncated = |expected| ApduError::Truncated {
            expected,
            got: data.len(),
        };
        if data.len() < 4 {
            return Err(truncated(4));
        }
        let option = ((data[1] & 1) << 1) | (data[2] >> 7);
        let head = match option {
            0 => 4,
            1 | 2 => 5,
            _ => 6,
        };
        if data.len() < head {
            return Err(truncated(head));
        }
        let (d2, d3, d4, d5) = (data[2], data[3], byte(data, 4), byte(data, 5));
        let time = match option {
            0 => ProductTime {
                month_day: None,
                hours: (d2 & 0x7C) >> 2,
                minutes: ((d2 & 3) << 4) | (d3 >> 4),
                seconds: None,
            },
            1 => ProductTime {
                month_day: None,
                hours: (d2 & 0x7C) >> 2,
                minutes: ((d2 & 3) << 4) | (d3 >> 4),
                seconds: Some(((d3 & 0x0F) << 2) | (d4 >> 6)),
            },
            2 => ProductTime {
                month_day: Some(((d2 & 0x78) >> 3, ((d2 & 7) << 2) | (d3 >> 6))),
                hours: (d3 & 0x3E) >> 1,
                minutes: ((d3 & 1) << 5) | (d4 >> 3),
                seconds: None,
            },
            _ => ProductTime {
                month_day: Some(((d2 & 0x78) >> 3, ((d2 & 7) << 2) | (d3 >> 6))),
                hours: (d3 & 0x3E) >> 1,
                minutes: ((d3 & 1) << 5) | (d4 >> 3),
                // Six bits, contiguous after the minutes (dump978's legacy
                // decoder reads five, leaving one bit between).
                seconds: Some(((d4 & 7) << 3) | (d5 >> 5)),
            },
        };
        Ok(Self {
            flags: [
                data[0] & 0x80 != 0,
                data[0] & 0x40 != 0,
                data[0] & 0x20 != 0,
            ],
            product_id: (u16::from(data[0] & 0x1F) << 6) | u16::from(data[1] >> 2),
            segmented: data[1] & 2 != 0,
            time,
            payload: &data[head..],
        })
    }
}

/// DLAC text (DO-358): 6-bit characters packed MSB first, four in three
/// bytes.
pub mod dlac {
    /// The 64 characters: 0 end of text (ETX, `0x03`), 1–26 `A`–`Z`,
    /// 27 `0x1A`, 28 tab (the next character is a count of spaces), 29
    /// record separator (`0x1E`), 30 new line, 31 `|`, 32–63 ASCII
    /// 32–63 (space, punctuation, digits).
    pub const ALPHABET: &[u8; 64] =
        b"\x03ABCDEFGHIJKLMNOPQRSTUVWXYZ\x1A\t\x1E\n| !\"#$%&'()*+,-./0123456789:;<=>?";

    /// The tab code.
    const TAB: u8 = 28;

    /// The `i`-th 6-bit code of `data`.
    fn code(data: &[u8], i: usize) -> u8 {
        let bit = 6 * i;
        let hi = u16::from(data[bit / 8]) << 8;
        let lo = data.get(bit / 8 + 1).map_or(0, |&b| u16::from(b));
        (((hi | lo) >> (10 - bit % 8)) & 0x3F) as u8
    }

    /// Decode `data` into ASCII in `out`, tabs expanded to their spaces;
    /// returns the bytes written (decoding stops when `out` is full).
    /// Control codes (ETX, `0x1A`, `0x1E`, new line) are written as they
    /// are: a caller splits records on `0x1E` and stops at `0x03`.
    ///
    /// ```
    /// use airwaves_core::uat::uplink::dlac;
    /// // "METAR" = 13 5 20 1 18, packed 6 bits each.
    /// let mut out = [0u8; 8];
    /// let n = dlac::decode(&[0x34, 0x55, 0x01, 0x48], &mut out);
    /// assert_eq!(&out[..n], b"METAR");
    /// ```
    pub fn decode(data: &[u8], out: &mut [u8]) -> usize {
        let codes = data.len() * 8 / 6;
        let mut n = 0;
        let mut i = 0;
        while i < codes && n < out.len() {
            let c = code(data, i);
            i += 1;
            if c == TAB {
                if i < codes {
                    let spaces = usize::from(code(data, i));
                    i += 1;
                    let room = out.len() - n;
                    out[n..n + spaces.min(room)].fill(b' ');
                    n += spaces.min(room);
                }
            } else {
                out[n] = ALPHABET[usize::from(c)];
                n += 1;
            }
        }
        n
    }
}

#[cfg(test)]
mod tests;
