//! NEXRAD precipitation, FIS-B products 63 (regional) and 64 (CONUS), in
//! the DO-358 global block representation: parse ([`NexradPayload::parse`])
//! and emit ([`Block::emit`], [`EmptyBlocks::emit`]), and where a block
//! lies ([`geometry`]).
//!
//! # Payload
//!
//! | bytes | field |
//! |---|---|
//! | 0, bit 7 | RLE flag: 1 run-length block, 0 empty-block bitmap |
//! | 0, bit 6 | N/S flag: 1 southern hemisphere |
//! | 0, bits 5–4 | scale factor: 0, 1, 2 ([`Scale`]; 3 is reserved) |
//! | 0, bits 3–0; 1; 2 | block number, 20 bits, MSB first |
//!
//! **Run-length block.** Every further byte is one run,
//! `(length − 1) << 3 | intensity`: 1–32 bins of intensity 0–7. The runs
//! fill the block's [`BINS`] bins exactly, row by row from the north-west
//! corner: 32 columns west to east, 4 rows north to south (bin `i` is row
//! `i / 32`, column `i % 32`).
//!
//! **Empty-block bitmap.** Byte 3's low nibble is `L`, the bitmap's length
//! in bytes counting byte 3; its high nibble's bits 4, 5, 6, 7 mark blocks
//! at offsets 1, 2, 3, 4 as empty. Bytes `3 + k` (`k = 1 … L − 1`) mark
//! offsets `5 + 8(k − 1)` (bit 0) to `12 + 8(k − 1)` (bit 7), so offsets
//! reach [`MAX_OFFSET`]. The header's block is empty too. An offset moves
//! along the header block's row of latitude, wrapping round the globe and
//! never onto the next row (see [`offset_block`]). An empty block has no
//! echo: all its bins are intensity 0. Bytes after the bitmap are ignored.
//!
//! # Grid
//!
//! At scale 0 a block is 4′ of latitude tall. Below 60° it is 48′ of
//! longitude wide, 450 to a ring of latitude: block `n` is in ring
//! `n / 450`, column `n % 450`, and column 0 starts at 0° going east. Ring
//! 0's south edge is on the equator; the N/S flag mirrors the rings, ring
//! 0's north edge then on the equator. From 60° on (`n ≥`
//! [`WIDE_BLOCK`] `= 60·15·450`) blocks are 96′ wide and only even numbers
//! are used; the numbering keeps the 48′ spacing, and an odd number is
//! read as the even one below it. Numbers from [`MAX_BLOCK`] on would lie
//! past the pole.
//!
//! Scale 1 makes every bin 5 times taller and wider, scale 2 9 times,
//! from the same north-west corner as the scale-0 block of that number.

mod emit;

pub use emit::EmitError;

/// Bins in a block.
pub const BINS: usize = 128;
/// Columns of bins in a block, west to east.
pub const COLUMNS: usize = 32;
/// Rows of bins in a block, north to south.
pub const ROWS: usize = 4;
/// Blocks (of 48′) in a ring of latitude.
pub const RING_BLOCKS: u32 = 450;
/// The first block at 60° of latitude, where blocks become 96′ wide.
pub const WIDE_BLOCK: u32 = 60 * 15 * RING_BLOCKS;
/// The first block number past the pole (90° at 15 rings a degree).
pub const MAX_BLOCK: u32 = 90 * 15 * RING_BLOCKS;
/// The largest offset an empty-block bitmap can mark (`L = 15`).
pub const MAX_OFFSET: u32 = 4 + 8 * 14;
/// Bytes of the block header.
pub const HEADER_LEN: usize = 3;
/// Most bytes a run-length block takes (one run per bin).
pub const MAX_BLOCK_LEN: usize = HEADER_LEN + BINS;
/// Most bytes an empty-block bitmap takes.
pub const MAX_EMPTY_LEN: usize = HEADER_LEN + 15;
/// Bits of [`EmptyBlocks::offsets`] that may be set: 1 to [`MAX_OFFSET`].
const OFFSET_MASK: u128 = ((1 << (MAX_OFFSET + 1)) - 1) & !1;

/// How much larger than at scale 0 a block's bins are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Scale {
    /// Code 0: bins 1′ tall, 1.5′ wide (3′ from 60°).
    X1 = 0,
    /// Code 1: bins 5 times larger each way.
    X5 = 1,
    /// Code 2: bins 9 times larger each way.
    X9 = 2,
}

impl Scale {
    /// The scale of a 2-bit code; `None` for the reserved code 3.
    ///
    /// ```
    /// use airwaves_core::uat::fisb::nexrad::Scale;
    /// assert_eq!(Scale::from_code(1).map(Scale::factor), Some(5));
    /// assert_eq!(Scale::from_code(3), None);
    /// ```
    pub const fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(Self::X1),
            1 => Some(Self::X5),
            2 => Some(Self::X9),
            _ => None,
        }
    }

    /// The 2-bit code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// How many scale-0 bins a bin spans each way: 1, 5 or 9.
    pub const fn factor(self) -> u32 {
        match self {
            Self::X1 => 1,
            Self::X5 => 5,
            Self::X9 => 9,
        }
    }
}

/// Which block a payload is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BlockHeader {
    /// Southern hemisphere (the N/S flag).
    pub south: bool,
    /// Scale factor.
    pub scale: Scale,
    /// Block number, below [`MAX_BLOCK`] when parsed.
    pub number: u32,
}

impl BlockHeader {
    /// Where the block lies ([`geometry`]).
    pub fn geometry(&self) -> Option<BlockGeometry> {
        geometry(self.number, self.south, self.scale)
    }
}

/// A rectangle of latitude and longitude, degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BlockGeometry {
    /// Latitude of the north edge, −90 to 90 (south negative).
    pub north_deg: f64,
    /// Longitude of the west edge, −180 (inclusive) to 180 (east positive).
    pub west_deg: f64,
    /// Height, degrees of latitude (south of `north_deg`).
    pub height_deg: f64,
    /// Width, degrees of longitude (east of `west_deg`).
    pub width_deg: f64,
}

impl BlockGeometry {
    /// Bin `i` of the block (row `i / 32` from the north, column `i % 32`
    /// from the west): a quarter of its height and a 32nd of its width.
    /// `None` if `i ≥ 128`.
    pub fn bin(&self, i: usize) -> Option<Self> {
        if i >= BINS {
            return None;
        }
        let (height, width) = (
            self.height_deg / ROWS as f64,
            self.width_deg / COLUMNS as f64,
        );
        Some(Self {
            north_deg: self.north_deg - (i / COLUMNS) as f64 * height,
            west_deg: wrap(self.west_deg + (i % COLUMNS) as f64 * width),
            height_deg: height,
            width_deg: width,
        })
    }
}

/// A longitude in 0–540° brought to −180–180°.
fn wrap(lon: f64) -> f64 {
    if lon >= 180.0 { lon - 360.0 } else { lon }
}

/// Where block `number` lies, at scale `scale` in the hemisphere `south`
/// says. With ring `r = number / 450` and column `c = number % 450`
/// (made even from 60° on), in minutes of arc:
///
/// - north edge `4(r + 1)` (north) or `−4r` (south);
/// - west edge `48c`, brought into −180–180°;
/// - height `4f` and width `48f` (`96f` from 60°), `f` = [`Scale::factor`].
///
/// `None` if `number ≥` [`MAX_BLOCK`].
///
/// ```
/// use airwaves_core::uat::fisb::nexrad::{geometry, Scale};
/// // Ring 71, column 90: 4.8° N, 72° E, 4′ by 48′.
/// let g = geometry(32_040, false, Scale::X1).unwrap();
/// assert!((g.north_deg - 4.8).abs() < 1e-12 && (g.west_deg - 72.0).abs() < 1e-12);
/// assert!((g.height_deg - 4.0 / 60.0).abs() < 1e-12 && (g.width_deg - 0.8).abs() < 1e-12);
/// ```
pub fn geometry(number: u32, south: bool, scale: Scale) -> Option<BlockGeometry> {
    if number >= MAX_BLOCK {
        return None;
    }
    let (ring, mut column) = (number / RING_BLOCKS, number % RING_BLOCKS);
    let mut width_min = 48;
    if number >= WIDE_BLOCK {
        column &= !1;
        width_min = 96;
    }
    let north_min = if south {
        -4.0 * f64::from(ring)
    } else {
        4.0 * f64::from(ring + 1)
    };
    let f = f64::from(scale.factor());
    Some(BlockGeometry {
        north_deg: north_min / 60.0,
        west_deg: wrap(f64::from(48 * column) / 60.0),
        height_deg: 4.0 * f / 60.0,
        width_deg: f64::from(width_min) * f / 60.0,
    })
}

/// The block `offset` blocks east of `number` on the same row, wrapping
/// round the globe: `ring·450 + (c + offset) mod 450`. From 60° on the
/// row has 225 blocks, each 2 numbers apart, so an offset counts blocks,
/// not numbers: `ring·450 + 2·((c/2 + offset) mod 225)` (our choice;
/// DO-358 is not at hand). Meant for numbers below [`MAX_BLOCK`]; larger
/// ones give meaningless numbers (wrapping, never panicking).
///
/// ```
/// use airwaves_core::uat::fisb::nexrad::offset_block;
/// assert_eq!(offset_block(449, 1), 0);
/// assert_eq!(offset_block(405_448, 2), 405_002);
/// ```
pub const fn offset_block(number: u32, offset: u32) -> u32 {
    let column = number % RING_BLOCKS;
    let moved = if number >= WIDE_BLOCK {
        let half = RING_BLOCKS / 2;
        2 * ((column / 2 + offset % half) % half)
    } else {
        (column + offset % RING_BLOCKS) % RING_BLOCKS
    };
    (number - column).wrapping_add(moved)
}

/// A run-length block: 128 intensities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Block {
    /// Which block.
    pub header: BlockHeader,
    /// Intensity (0–7) of every bin, row by row from the north-west.
    pub bins: [u8; BINS],
}

/// Empty blocks: the header's and those its bitmap marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EmptyBlocks {
    /// The first empty block.
    pub header: BlockHeader,
    /// Bit `k` set: the block `k` east of the header's is empty
    /// ([`offset_block`]), for `k` from 1 to [`MAX_OFFSET`]; the other
    /// bits are 0.
    pub offsets: u128,
}

/// A NEXRAD payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum NexradPayload {
    /// A run-length block (RLE flag 1).
    Block(Block),
    /// An empty-block bitmap (RLE flag 0).
    Empty(EmptyBlocks),
}

/// A NEXRAD payload that cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum NexradError {
    /// Shorter than its header or its bitmap.
    Truncated {
        /// Bytes it needs.
        expected: usize,
        /// Bytes there are.
        got: usize,
    },
    /// Scale factor 3, which is reserved.
    ReservedScale,
    /// A block number at or past [`MAX_BLOCK`].
    BlockNumber(u32),
    /// The runs end before the block's 128th bin.
    TooFewBins {
        /// Bins the runs cover.
        got: usize,
    },
    /// A run goes past the block's 128th bin.
    TooManyBins {
        /// Bins covered up to the end of that run.
        got: usize,
    },
    /// A bitmap length `L` of 0 (it counts its own byte).
    BitmapLength,
}

impl core::fmt::Display for NexradError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Truncated { expected, got } => {
                write!(f, "NEXRAD payload of {got} bytes, needs {expected}")
            }
            Self::ReservedScale => f.write_str("NEXRAD scale factor 3 is reserved"),
            Self::BlockNumber(n) => write!(f, "NEXRAD block {n} lies past the pole"),
            Self::TooFewBins { got } => write!(f, "NEXRAD runs cover {got} of 128 bins"),
            Self::TooManyBins { got } => write!(f, "NEXRAD runs cover {got} bins, past 128"),
            Self::BitmapLength => f.write_str("NEXRAD empty-block bitmap of length 0"),
        }
    }
}

impl core::error::Error for NexradError {}

impl NexradPayload {
    /// Read an APDU payload of product 63 or 64.
    ///
    /// # Errors
    /// [`NexradError`]: too short, reserved scale, a block past the pole,
    /// runs that do not cover exactly 128 bins, or a bitmap length of 0.
    ///
    /// ```
    /// use airwaves_core::uat::fisb::nexrad::{NexradPayload, Scale};
    /// // Block 32,040, then four runs of 32 bins: intensities 0, 3, 7, 0.
    /// let payload = [0x80, 0x7D, 0x28, 0xF8, 0xFB, 0xFF, 0xF8];
    /// let NexradPayload::Block(b) = NexradPayload::parse(&payload).unwrap() else {
    ///     panic!()
    /// };
    /// assert_eq!((b.header.number, b.header.scale), (32_040, Scale::X1));
    /// assert_eq!((b.bins[31], b.bins[32], b.bins[64], b.bins[127]), (0, 3, 7, 0));
    /// ```
    pub fn parse(payload: &[u8]) -> Result<Self, NexradError> {
        let [b0, b1, b2, rest @ ..] = payload else {
            return Err(NexradError::Truncated {
                expected: HEADER_LEN,
                got: payload.len(),
            });
        };
        let scale = Scale::from_code((b0 >> 4) & 3).ok_or(NexradError::ReservedScale)?;
        let number = (u32::from(b0 & 0x0F) << 16) | (u32::from(*b1) << 8) | u32::from(*b2);
        if number >= MAX_BLOCK {
            return Err(NexradError::BlockNumber(number));
        }
        let header = BlockHeader {
            south: b0 & 0x40 != 0,
            scale,
            number,
        };
        if b0 & 0x80 != 0 {
            let mut bins = [0u8; BINS];
            let mut at = 0;
            for &run in rest {
                let end = at + usize::from(run >> 3) + 1;
                let Some(span) = bins.get_mut(at..end) else {
                    return Err(NexradError::TooManyBins { got: end });
                };
                span.fill(run & 7);
                at = end;
            }
            if at < BINS {
                return Err(NexradError::TooFewBins { got: at });
            }
            return Ok(Self::Block(Block { header, bins }));
        }
        let Some(&first) = rest.first() else {
            return Err(NexradError::Truncated {
                expected: HEADER_LEN + 1,
                got: payload.len(),
            });
        };
        let len = usize::from(first & 0x0F);
        if len == 0 {
            return Err(NexradError::BitmapLength);
        }
        let Some(bitmap) = rest.get(1..len) else {
            return Err(NexradError::Truncated {
                expected: HEADER_LEN + len,
                got: payload.len(),
            });
        };
        let mut offsets = u128::from(first >> 4) << 1;
        for (k, &b) in bitmap.iter().enumerate() {
            offsets |= u128::from(b) << (5 + 8 * k);
        }
        Ok(Self::Empty(EmptyBlocks { header, offsets }))
    }

    /// The header, whichever kind.
    pub fn header(&self) -> BlockHeader {
        match self {
            Self::Block(b) => b.header,
            Self::Empty(e) => e.header,
        }
    }
}

impl EmptyBlocks {
    /// The empty blocks: the header's (its number as sent), then the
    /// offsets' in increasing offset, all with the header's hemisphere
    /// and scale.
    pub fn blocks(&self) -> impl Iterator<Item = BlockHeader> + Clone + use<> {
        let header = self.header;
        let mut rest = (self.offsets & OFFSET_MASK) | 1;
        core::iter::from_fn(move || {
            if rest == 0 {
                return None;
            }
            let k = rest.trailing_zeros();
            rest &= rest - 1;
            let number = if k == 0 {
                header.number
            } else {
                offset_block(header.number, k)
            };
            Some(BlockHeader { number, ..header })
        })
    }
}

#[cfg(test)]
mod tests;
