//! Comm-B: the 56-bit MB field of DF20/DF21 replies, its BDS registers,
//! and inference of which register a reply carries.
//!
//! A ground interrogator asks a Mode S transponder for one of its
//! *Comm-B Data Selector* (BDS) registers; the reply (DF20 with altitude,
//! DF21 with identity) carries the register's 56 bits in the MB field,
//! message bytes 4..11. The register number itself is **not** transmitted,
//! except that BDS 1,0, 2,0 and 3,0 start with their own number (`0x10`,
//! `0x20`, `0x30`). A receiver that did not send the interrogation must
//! therefore *infer* the register from the content; see [`infer`].
//!
//! # Bit numbering
//!
//! Bits are numbered 1..=56 from the first (most significant) MB bit, as in
//! ICAO Doc 9871 and "The 1090 MHz Riddle"; MB bit *n* is message bit
//! *n* + 32. Internally the field is read as one big-endian `u64` and every
//! field is a single shift and mask.
//!
//! # Registers
//!
//! | BDS | type | content |
//! |---|---|---|
//! | 1,0 | [`DataLinkCapability`] | header `0x10`, transponder and data link capabilities |
//! | 1,7 | [`CommonUsageCapability`] | bit array of the supported GICB registers |
//! | 2,0 | [`AircraftIdentification`] | header `0x20`, 8-character callsign |
//! | 3,0 | [`ResolutionAdvisory`] | header `0x30`, active ACAS resolution advisory |
//! | 4,0 | [`SelectedVerticalIntention`] | MCP/FCU and FMS selected altitude, QNH, autopilot modes |
//! | 4,4 | [`MeteorologicalRoutine`] | wind, temperature, pressure, turbulence, humidity |
//! | 4,5 | [`MeteorologicalHazard`] | hazard severities, temperature, pressure, radio height |
//! | 5,0 | [`TrackAndTurn`] | roll, true track, ground speed, track rate, TAS |
//! | 6,0 | [`HeadingAndSpeed`] | magnetic heading, IAS, Mach, vertical rates |
//!
//! Registers 4,0, 5,0 and 6,0 form Enhanced Surveillance (EHS); 4,4 and 4,5
//! are the Meteorological Routine/Hazard Air Reports (MRAR/MHR).
//!
//! Most fields are preceded by a *status* bit; a field whose status bit is
//! 0 decodes to `None` and is transmitted as all zeros. Signed fields are a
//! sign bit followed by the magnitude bits and read together as one two's
//! complement number (a set sign bit subtracts 2ⁿ, n = field width including
//! the sign). Angles with a sign bit (track, heading) are therefore simply
//! unsigned 11-bit fractions of a turn, LSB 360/2048 = 0.17578125°.
//!
//! Layouts, units and resolutions follow ICAO Doc 9871 (Technical
//! Provisions for Mode S Services and Extended Squitter) Appendix A as
//! presented in "The 1090 MHz Riddle" (Junzi Sun, 2020), chapters 16–19.
//!
//! # Parsing and emitting
//!
//! [`Mb`] is a typed view over the 7 MB bytes (caller-owned, checked once
//! with [`Mb::check_len`]). Each register type has `parse` (decode knowing
//! the register; lenient: only a fixed header is checked) and `emit`
//! (encode; out-of-range values saturate, angles wrap). [`Repr`] wraps them
//! all. For every register `emit(parse(mb)) == mb` whenever `mb`'s reserved
//! bits are zero, every field whose status bit is 0 is zero, and (2,0, 3,0)
//! no unassigned character code or TID bit beyond the TTI's data is set.
//!
//! # Inference
//!
//! [`fit`] checks one candidate register against the bits — fixed header,
//! reserved bits zero, every status bit consistent with its field, values
//! within physical ranges, fields consistent with each other — and, when
//! the caller supplies a [`Context`] (ground speed, track, altitude,
//! vertical rate known from ADS-B or from the DF20 altitude field), against
//! that reference. It returns a [`Score`] or the first [`Reject`] reason.
//! [`infer`] runs [`fit`] over the supported registers and returns every
//! register that passes, best score first, in an [`Inference`]. When more
//! than one passes, [`Inference::is_ambiguous`] is true and
//! [`Inference::best`] is `None`: the choice is never made silently. The
//! intrinsic score only ranks candidates; the context separates them, by
//! rejecting the ones it contradicts and by naming a best candidate when
//! its agreement with the context is strong evidence (at least
//! [`SEPARATION_BITS`] more than any other's).
//!
//! DF20/21 replies whose DR or UM fields are non-zero, or that needed error
//! correction, are less trustworthy inputs; filtering them is the frame
//! layer's job.

use super::altitude::decode_ac13;
use core::fmt;

/// Length of the MB field in bytes (56 bits).
pub const MB_LEN: usize = 7;

/// Errors of Comm-B parsing and construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error {
    /// The buffer is shorter than the 7-byte MB field.
    Truncated {
        /// Bytes needed.
        expected: usize,
        /// Bytes present.
        got: usize,
    },
    /// A self-identifying register (1,0, 2,0, 3,0) does not start with its
    /// own BDS number.
    Header {
        /// The first byte the register requires.
        expected: u8,
        /// The first byte found.
        got: u8,
    },
    /// The register has no decoder here ([`Bds::Empty`] or
    /// [`Bds::Unknown`]).
    Unsupported(Bds),
    /// A callsign character outside the 6-bit Mode S character set
    /// (`A`–`Z`, `0`–`9`, space), or a callsign longer than 8 characters.
    InvalidCharacter(u8),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated { expected, got } => {
                write!(f, "MB field truncated: need {expected} bytes, got {got}")
            }
            Error::Header { expected, got } => {
                write!(f, "register header {got:#04x}, expected {expected:#04x}")
            }
            Error::Unsupported(bds) => write!(f, "no decoder for {bds}"),
            Error::InvalidCharacter(c) => write!(f, "invalid callsign character {c:#04x}"),
        }
    }
}

impl core::error::Error for Error {}

/// Bit fields of the MB word: 1-based first bit and width, MSB first.
mod field {
    /// A run of `len` bits starting at MB bit `first` (1-based).
    #[derive(Clone, Copy)]
    pub struct Bits {
        pub first: u32,
        pub len: u32,
    }

    impl Bits {
        pub const fn new(first: u32, len: u32) -> Self {
            Bits { first, len }
        }
        const fn shift(self) -> u32 {
            57 - self.first - self.len
        }
        /// The field's bits in place in the MB word.
        pub const fn mask(self) -> u64 {
            ((1u64 << self.len) - 1) << self.shift()
        }
        /// The field's value.
        #[inline(always)]
        pub const fn get(self, mb: u64) -> u64 {
            (mb >> self.shift()) & ((1u64 << self.len) - 1)
        }
        /// The field's value read as `len`-bit two's complement.
        #[inline(always)]
        pub const fn get_signed(self, mb: u64) -> i32 {
            let v = self.get(mb) as i64;
            ((v << (64 - self.len)) >> (64 - self.len)) as i32
        }
        /// `mb` with the field replaced by the low `len` bits of `v`.
        #[inline(always)]
        pub const fn put(self, mb: u64, v: u64) -> u64 {
            (mb & !self.mask()) | ((v << self.shift()) & self.mask())
        }
    }

    /// A single flag bit.
    pub const fn bit(n: u32) -> Bits {
        Bits::new(n, 1)
    }

    /// A field preceded by its status bit.
    #[derive(Clone, Copy)]
    pub struct Gated {
        pub status: Bits,
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
        #[inline(always)]
        pub const fn valid(self, mb: u64) -> bool {
            mb & self.status.mask() != 0
        }
        #[inline(always)]
        pub const fn get(self, mb: u64) -> Option<u64> {
            if self.valid(mb) {
                Some(self.value.get(mb))
            } else {
                None
            }
        }
        #[inline(always)]
        pub const fn get_signed(self, mb: u64) -> Option<i32> {
            if self.valid(mb) {
                Some(self.value.get_signed(mb))
            } else {
                None
            }
        }
        /// Status 1, or status 0 with an all-zero value.
        #[inline(always)]
        pub const fn consistent(self, mb: u64) -> bool {
            self.valid(mb) || mb & self.value.mask() == 0
        }
        /// `mb` with status and value written (`None`: both zero).
        #[inline(always)]
        pub const fn put(self, mb: u64, v: Option<u64>) -> u64 {
            match v {
                Some(v) => self.value.put(mb | self.status.mask(), v),
                None => mb & !self.mask(),
            }
        }
    }

    /// The register number in bits 1–8 of 1,0, 2,0 and 3,0.
    pub const HEADER: Bits = Bits::new(1, 8);

    pub mod bds10 {
        use super::{Bits, bit};
        pub const CONTINUATION: Bits = bit(9);
        pub const RESERVED: Bits = Bits::new(10, 5);
        pub const OVERLAY: Bits = bit(15);
        pub const ACAS: Bits = bit(16);
        pub const SUBNETWORK: Bits = Bits::new(17, 7);
        pub const LEVEL5: Bits = bit(24);
        pub const SPECIFIC_SERVICES: Bits = bit(25);
        pub const UPLINK_ELM: Bits = Bits::new(26, 3);
        pub const DOWNLINK_ELM: Bits = Bits::new(29, 4);
        pub const IDENTIFICATION: Bits = bit(33);
        pub const SQUITTER: Bits = bit(34);
        pub const SIC: Bits = bit(35);
        pub const GICB: Bits = bit(36);
        pub const HYBRID: Bits = bit(37);
        pub const ACAS_RA: Bits = bit(38);
        pub const ACAS_VERSION: Bits = Bits::new(39, 2);
        pub const DTE: Bits = Bits::new(41, 16);
    }

    pub mod bds17 {
        use super::Bits;
        pub const SUPPORTED: Bits = Bits::new(1, 24);
        pub const RESERVED: Bits = Bits::new(25, 32);
    }

    pub mod bds20 {
        use super::Bits;
        /// Character `i` (0..8): six bits from MB bit 9 + 6·i.
        pub const fn char(i: u32) -> Bits {
            Bits::new(9 + 6 * i, 6)
        }
    }

    pub mod bds30 {
        use super::{Bits, bit};
        pub const ARA: Bits = Bits::new(9, 14);
        pub const RAC: Bits = Bits::new(23, 4);
        pub const RAT: Bits = bit(27);
        pub const MTE: Bits = bit(28);
        pub const TTI: Bits = Bits::new(29, 2);
        pub const TID: Bits = Bits::new(31, 26);
        pub const TID_ADDRESS: Bits = Bits::new(31, 24);
        pub const TID_ADDRESS_PAD: Bits = Bits::new(55, 2);
        pub const TIDA: Bits = Bits::new(31, 13);
        pub const TIDR: Bits = Bits::new(44, 7);
        pub const TIDB: Bits = Bits::new(51, 6);
    }

    pub mod bds40 {
        use super::{Bits, Gated, bit};
        pub const MCP: Gated = Gated::new(1, 12);
        pub const FMS: Gated = Gated::new(14, 12);
        pub const BARO: Gated = Gated::new(27, 12);
        pub const RESERVED_A: Bits = Bits::new(40, 8);
        pub const MODES: Gated = Gated::new(48, 3);
        pub const VNAV: Bits = bit(49);
        pub const ALT_HOLD: Bits = bit(50);
        pub const APPROACH: Bits = bit(51);
        pub const RESERVED_B: Bits = Bits::new(52, 2);
        pub const SOURCE: Gated = Gated::new(54, 2);
    }

    pub mod bds44 {
        use super::{Bits, Gated};
        pub const FOM: Bits = Bits::new(1, 4);
        /// Status bit 5; speed bits 6–14 and direction bits 15–23.
        pub const WIND: Gated = Gated::new(5, 18);
        pub const WIND_SPEED: Bits = Bits::new(6, 9);
        pub const WIND_DIRECTION: Bits = Bits::new(15, 9);
        pub const SAT: Bits = Bits::new(24, 11);
        pub const PRESSURE: Gated = Gated::new(35, 11);
        pub const TURBULENCE: Gated = Gated::new(47, 2);
        pub const HUMIDITY: Gated = Gated::new(50, 6);
    }

    pub mod bds45 {
        use super::{Bits, Gated};
        pub const TURBULENCE: Gated = Gated::new(1, 2);
        pub const WIND_SHEAR: Gated = Gated::new(4, 2);
        pub const MICROBURST: Gated = Gated::new(7, 2);
        pub const ICING: Gated = Gated::new(10, 2);
        pub const WAKE_VORTEX: Gated = Gated::new(13, 2);
        pub const SAT: Gated = Gated::new(16, 10);
        pub const PRESSURE: Gated = Gated::new(27, 11);
        pub const RADIO_HEIGHT: Gated = Gated::new(39, 12);
        pub const RESERVED: Bits = Bits::new(52, 5);
    }

    pub mod bds50 {
        use super::Gated;
        pub const ROLL: Gated = Gated::new(1, 10);
        pub const TRACK: Gated = Gated::new(12, 11);
        pub const GS: Gated = Gated::new(24, 10);
        pub const TRACK_RATE: Gated = Gated::new(35, 10);
        pub const TAS: Gated = Gated::new(46, 10);
    }

    pub mod bds60 {
        use super::Gated;
        pub const HEADING: Gated = Gated::new(1, 11);
        pub const IAS: Gated = Gated::new(13, 10);
        pub const MACH: Gated = Gated::new(24, 10);
        pub const BARO_RATE: Gated = Gated::new(35, 10);
        pub const INERTIAL_RATE: Gated = Gated::new(46, 10);
    }
}

use field::{Bits, Gated};

/// A typed view over the 7-byte MB field of a DF20/DF21 reply.
///
/// Bytes beyond the 7th are ignored. After [`Mb::check_len`] (or
/// [`Mb::new_checked`]) succeeds, no accessor panics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Mb<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Mb<T> {
    /// Wrap a buffer without checking its length.
    ///
    /// ```
    /// use airwaves_core::modes::commb::Mb;
    /// let mb = Mb::new_unchecked([0x20u8, 0x2C, 0xC3, 0x71, 0xC3, 0x1D, 0xE0]);
    /// assert_eq!(mb.header(), 0x20);
    /// ```
    pub const fn new_unchecked(buffer: T) -> Mb<T> {
        Mb { buffer }
    }

    /// Wrap a buffer, checking that it holds at least [`MB_LEN`] bytes.
    ///
    /// ```
    /// use airwaves_core::modes::commb::{Error, Mb};
    /// let msg = [0xA0u8, 0x00, 0x08, 0x3E, 0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x1D, 0xE0, 0xAA, 0x1C, 0xCF];
    /// let mb = Mb::new_checked(&msg[4..11])?;
    /// assert_eq!(mb.bits(), 0x20_2CC3_71C3_1DE0);
    /// assert!(Mb::new_checked(&msg[4..8]).is_err());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn new_checked(buffer: T) -> Result<Mb<T>, Error> {
        let mb = Mb::new_unchecked(buffer);
        mb.check_len()?;
        Ok(mb)
    }

    /// Ensure the buffer holds the whole MB field.
    pub fn check_len(&self) -> Result<(), Error> {
        let got = self.buffer.as_ref().len();
        if got < MB_LEN {
            Err(Error::Truncated {
                expected: MB_LEN,
                got,
            })
        } else {
            Ok(())
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The 56 MB bits as a big-endian integer (MB bit 1 is bit 55).
    ///
    /// # Panics
    ///
    /// If the buffer is shorter than [`MB_LEN`] (never after `check_len`).
    #[inline]
    pub fn bits(&self) -> u64 {
        let b = self.buffer.as_ref();
        u64::from_be_bytes([0, b[0], b[1], b[2], b[3], b[4], b[5], b[6]])
    }

    /// The first byte: the register number for BDS 1,0, 2,0 and 3,0.
    ///
    /// # Panics
    ///
    /// If the buffer is empty (never after `check_len`).
    #[inline]
    pub fn header(&self) -> u8 {
        self.buffer.as_ref()[0]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Mb<T> {
    /// Write the 56 MB bits (the top 8 bits of `bits` are ignored).
    ///
    /// # Panics
    ///
    /// If the buffer is shorter than [`MB_LEN`] (never after `check_len`).
    #[inline]
    pub fn set_bits(&mut self, bits: u64) {
        let b = bits.to_be_bytes();
        self.buffer.as_mut()[..MB_LEN].copy_from_slice(&b[1..]);
    }
}

/// A Comm-B Data Selector: the register number BDS1,BDS2 as one byte
/// `0xXY` for "BDS X,Y". Registers without a decoder here are kept as
/// [`Bds::Unknown`].
///
/// ```
/// use airwaves_core::modes::commb::Bds;
/// assert_eq!(Bds::from(0x50), Bds::TrackAndTurn);
/// assert_eq!(u8::from(Bds::HeadingAndSpeed), 0x60);
/// assert_eq!(Bds::from(0x05), Bds::Unknown(0x05));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Bds {
    /// 0,0: an all-zero MB field (the transponder had nothing to report).
    Empty,
    /// 1,0: data link capability report.
    DataLinkCapability,
    /// 1,7: common usage GICB capability report.
    CommonUsageCapability,
    /// 2,0: aircraft identification.
    AircraftIdentification,
    /// 3,0: ACAS active resolution advisory.
    ResolutionAdvisory,
    /// 4,0: selected vertical intention.
    SelectedVerticalIntention,
    /// 4,4: meteorological routine air report.
    MeteorologicalRoutine,
    /// 4,5: meteorological hazard report.
    MeteorologicalHazard,
    /// 5,0: track and turn report.
    TrackAndTurn,
    /// 6,0: heading and speed report.
    HeadingAndSpeed,
    /// Any other register, by number `0xXY`.
    Unknown(u8),
}

impl From<u8> for Bds {
    fn from(v: u8) -> Bds {
        match v {
            0x00 => Bds::Empty,
            0x10 => Bds::DataLinkCapability,
            0x17 => Bds::CommonUsageCapability,
            0x20 => Bds::AircraftIdentification,
            0x30 => Bds::ResolutionAdvisory,
            0x40 => Bds::SelectedVerticalIntention,
            0x44 => Bds::MeteorologicalRoutine,
            0x45 => Bds::MeteorologicalHazard,
            0x50 => Bds::TrackAndTurn,
            0x60 => Bds::HeadingAndSpeed,
            other => Bds::Unknown(other),
        }
    }
}

impl From<Bds> for u8 {
    fn from(b: Bds) -> u8 {
        match b {
            Bds::Empty => 0x00,
            Bds::DataLinkCapability => 0x10,
            Bds::CommonUsageCapability => 0x17,
            Bds::AircraftIdentification => 0x20,
            Bds::ResolutionAdvisory => 0x30,
            Bds::SelectedVerticalIntention => 0x40,
            Bds::MeteorologicalRoutine => 0x44,
            Bds::MeteorologicalHazard => 0x45,
            Bds::TrackAndTurn => 0x50,
            Bds::HeadingAndSpeed => 0x60,
            Bds::Unknown(v) => v,
        }
    }
}

impl fmt::Display for Bds {
    /// `BDS X,Y`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = u8::from(*self);
        write!(f, "BDS {:X},{:X}", v >> 4, v & 0xF)
    }
}

// ---------------------------------------------------------------------------
// Quantisation helpers (emit side). `as` casts from f32 saturate and map NaN
// to 0, so no input panics.

/// `round(x / lsb)` as an integer.
#[inline]
fn quantize(x: f32, lsb: f32) -> i32 {
    libm::roundf(x / lsb) as i32
}

/// Signed value clamped to the range of an `n`-bit two's complement field.
#[inline]
fn clamp_signed(v: i32, n: u32) -> u64 {
    let lim = 1i32 << (n - 1);
    v.clamp(-lim, lim - 1) as u32 as u64
}

/// Unsigned value clamped to an `n`-bit field.
#[inline]
fn clamp_unsigned(v: i64, n: u32) -> u64 {
    v.clamp(0, (1i64 << n) - 1) as u64
}

/// An angle in degrees wrapped into an `n`-bit fraction of a turn.
#[inline]
fn wrap_angle(deg: f32, n: u32) -> u64 {
    let lsb = 360.0 / (1u32 << n) as f32;
    (quantize(deg, lsb) as i64).rem_euclid(1i64 << n) as u64
}

/// Angle LSB of the 11-bit track and heading fields: 360/2048 = 90/512 °.
const ANGLE11_LSB: f32 = 360.0 / 2048.0;
/// Roll LSB: 45/256 °.
const ROLL_LSB: f32 = 45.0 / 256.0;
/// Track rate LSB: 8/256 °/s.
const TRACK_RATE_LSB: f32 = 8.0 / 256.0;
/// Mach LSB: 2.048/512.
const MACH_LSB: f32 = 2.048 / 512.0;
/// Wind direction LSB (BDS 4,4): 180/256 °.
const WIND_DIR_LSB: f32 = 180.0 / 256.0;
/// Temperature LSB (BDS 4,4 and 4,5): 0.25 °C.
const SAT_LSB: f32 = 0.25;
/// Humidity LSB (BDS 4,4): 100/64 %.
const HUMIDITY_LSB: f32 = 100.0 / 64.0;

// ---------------------------------------------------------------------------
// BDS 1,0

/// BDS 1,0 — data link capability report (Doc 9871 Table A-2-16).
///
/// | bits | field |
/// |---|---|
/// | 1–8 | `0x10` |
/// | 9 | continuation flag (registers 1,1…1,6 follow) |
/// | 10–14 | reserved (0) |
/// | 15 | overlay command capability |
/// | 16 | ACAS operational |
/// | 17–23 | Mode S subnetwork version |
/// | 24 | transponder enhanced protocol (level 5) |
/// | 25 | Mode S specific services capability |
/// | 26–28 | uplink ELM average throughput capability |
/// | 29–32 | downlink ELM throughput capability |
/// | 33 | aircraft identification capability |
/// | 34 | squitter capability |
/// | 35 | surveillance identifier (SI) code capability |
/// | 36 | common usage GICB capability report (toggles when 1,7 changes) |
/// | 37 | ACAS hybrid surveillance capability |
/// | 38 | ACAS generates resolution advisories (0: traffic advisories only) |
/// | 39–40 | ACAS RTCA DO-185 version (0: DO-185, 1: DO-185A, 2: DO-185B) |
/// | 41–56 | status of DTE sub-addresses 0–15 (bit 41 = sub-address 0) |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DataLinkCapability {
    /// Bit 9: continuation into registers 1,1 to 1,6.
    pub continuation: bool,
    /// Bit 15: overlay command capability.
    pub overlay_command: bool,
    /// Bit 16: ACAS operational.
    pub acas_operational: bool,
    /// Bits 17–23: Mode S subnetwork version number (0–127).
    pub subnetwork_version: u8,
    /// Bit 24: enhanced protocol (level 5 transponder).
    pub enhanced_protocol: bool,
    /// Bit 25: Mode S specific services capability.
    pub specific_services: bool,
    /// Bits 26–28: uplink ELM average throughput capability (0–7).
    pub uplink_elm: u8,
    /// Bits 29–32: downlink ELM throughput capability (0–15).
    pub downlink_elm: u8,
    /// Bit 33: aircraft identification capability.
    pub identification: bool,
    /// Bit 34: squitter capability.
    pub squitter: bool,
    /// Bit 35: surveillance identifier code capability.
    pub surveillance_identifier: bool,
    /// Bit 36: common usage GICB capability report.
    pub common_usage_gicb: bool,
    /// Bit 37: ACAS hybrid surveillance capability.
    pub hybrid_surveillance: bool,
    /// Bit 38: ACAS generates resolution advisories.
    pub acas_resolution_advisory: bool,
    /// Bits 39–40: ACAS RTCA DO-185 version (0–3).
    pub acas_version: u8,
    /// Bits 41–56: DTE sub-address status, sub-address 0 in the MSB.
    pub dte_status: u16,
}

impl DataLinkCapability {
    /// Decode; fails only if the first byte is not `0x10`. Reserved bits
    /// 10–14 are ignored.
    ///
    /// ```
    /// use airwaves_core::modes::commb::{DataLinkCapability, Mb};
    /// let mb = Mb::new_unchecked([0x10u8, 0x01, 0x00, 0x80, 0xF5, 0x00, 0x00]);
    /// let dlc = DataLinkCapability::parse(&mb)?;
    /// assert!(dlc.acas_operational && dlc.squitter);
    /// assert_eq!(dlc.acas_version, 1);
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    pub fn parse<T: AsRef<[u8]>>(mb: &Mb<T>) -> Result<Self, Error> {
        mb.check_len()?;
        let w = mb.bits();
        check_header(w, 0x10)?;
        Ok(Self::decode(w))
    }

    fn decode(w: u64) -> Self {
        use field::bds10::*;
        let f = |b: Bits| b.get(w) != 0;
        DataLinkCapability {
            continuation: f(CONTINUATION),
            overlay_command: f(OVERLAY),
            acas_operational: f(ACAS),
            subnetwork_version: SUBNETWORK.get(w) as u8,
            enhanced_protocol: f(LEVEL5),
            specific_services: f(SPECIFIC_SERVICES),
            uplink_elm: UPLINK_ELM.get(w) as u8,
            downlink_elm: DOWNLINK_ELM.get(w) as u8,
            identification: f(IDENTIFICATION),
            squitter: f(SQUITTER),
            surveillance_identifier: f(SIC),
            common_usage_gicb: f(GICB),
            hybrid_surveillance: f(HYBRID),
            acas_resolution_advisory: f(ACAS_RA),
            acas_version: ACAS_VERSION.get(w) as u8,
            dte_status: DTE.get(w) as u16,
        }
    }

    fn encode(&self) -> u64 {
        use field::bds10::*;
        let mut w = field::HEADER.put(0, 0x10);
        let flags = [
            (CONTINUATION, self.continuation),
            (OVERLAY, self.overlay_command),
            (ACAS, self.acas_operational),
            (LEVEL5, self.enhanced_protocol),
            (SPECIFIC_SERVICES, self.specific_services),
            (IDENTIFICATION, self.identification),
            (SQUITTER, self.squitter),
            (SIC, self.surveillance_identifier),
            (GICB, self.common_usage_gicb),
            (HYBRID, self.hybrid_surveillance),
            (ACAS_RA, self.acas_resolution_advisory),
        ];
        for (b, v) in flags {
            w = b.put(w, v as u64);
        }
        w = SUBNETWORK.put(w, self.subnetwork_version as u64);
        w = UPLINK_ELM.put(w, self.uplink_elm as u64);
        w = DOWNLINK_ELM.put(w, self.downlink_elm as u64);
        w = ACAS_VERSION.put(w, self.acas_version as u64);
        DTE.put(w, self.dte_status as u64)
    }

    /// Encode into `mb` (integer fields keep their low bits).
    ///
    /// # Panics
    ///
    /// If `mb` is shorter than [`MB_LEN`] (never after `check_len`).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, mb: &mut Mb<T>) {
        mb.set_bits(self.encode());
    }
}

fn check_header(w: u64, expected: u8) -> Result<(), Error> {
    let got = field::HEADER.get(w) as u8;
    if got == expected {
        Ok(())
    } else {
        Err(Error::Header { expected, got })
    }
}

// ---------------------------------------------------------------------------
// BDS 1,7

/// The registers announced by bits 1–24 of BDS 1,7, in bit order.
pub const GICB_REGISTERS: [u8; 24] = [
    0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x20, 0x21, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x48, 0x50,
    0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x5F, 0x60,
];

/// BDS 1,7 — common usage GICB capability report (Doc 9871 Table A-2-23).
///
/// Bits 1–24 each announce one register of [`GICB_REGISTERS`] (bit 1: 0,5
/// … bit 7: 2,0 … bit 16: 5,0 … bit 24: 6,0); bits 25–56 are reserved (0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CommonUsageCapability {
    /// Bits 1–24 as a 24-bit word: bit 1 is `1 << 23`.
    pub mask: u32,
}

impl CommonUsageCapability {
    /// Decode (cannot fail once the length is checked).
    ///
    /// ```
    /// use airwaves_core::modes::commb::{Bds, CommonUsageCapability, Mb};
    /// let mb = Mb::new_unchecked([0xFAu8, 0x81, 0xC1, 0, 0, 0, 0]);
    /// let cap = CommonUsageCapability::parse(&mb)?;
    /// assert!(cap.supports(Bds::TrackAndTurn));
    /// assert!(!cap.supports(Bds::MeteorologicalRoutine));
    /// assert_eq!(cap.registers().count(), 11);
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    pub fn parse<T: AsRef<[u8]>>(mb: &Mb<T>) -> Result<Self, Error> {
        mb.check_len()?;
        Ok(Self::decode(mb.bits()))
    }

    fn decode(w: u64) -> Self {
        CommonUsageCapability {
            mask: field::bds17::SUPPORTED.get(w) as u32,
        }
    }

    fn encode(&self) -> u64 {
        field::bds17::SUPPORTED.put(0, self.mask as u64)
    }

    /// Whether register `bds` is announced.
    pub fn supports(&self, bds: Bds) -> bool {
        let n = u8::from(bds);
        GICB_REGISTERS
            .iter()
            .position(|&r| r == n)
            .is_some_and(|i| self.mask & (1 << (23 - i)) != 0)
    }

    /// The announced registers, in bit order.
    pub fn registers(&self) -> impl Iterator<Item = Bds> + '_ {
        GICB_REGISTERS
            .iter()
            .enumerate()
            .filter(|(i, _)| self.mask & (1 << (23 - i)) != 0)
            .map(|(_, &r)| Bds::from(r))
    }

    /// Encode into `mb` (bits above 24 of `mask` are dropped).
    ///
    /// # Panics
    ///
    /// If `mb` is shorter than [`MB_LEN`] (never after `check_len`).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, mb: &mut Mb<T>) {
        mb.set_bits(self.encode());
    }
}

// ---------------------------------------------------------------------------
// BDS 2,0

/// The 6-bit Mode S character set (ICAO Annex 10 Vol IV Table 3-9); `#`
/// marks unassigned codes.
const CHARSET: &[u8; 64] = b"#ABCDEFGHIJKLMNOPQRSTUVWXYZ##### ###############0123456789######";

/// 6-bit code of an ASCII callsign character, if it has one.
fn char_code(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A' + 1),
        b'0'..=b'9' => Some(c - b'0' + 48),
        b' ' => Some(32),
        _ => None,
    }
}

/// BDS 2,0 — aircraft identification (Doc 9871 Table A-2-32).
///
/// Bits 1–8 are `0x20`; bits 9–56 hold eight 6-bit characters
/// (`A`–`Z` = 1–26, space = 32, `0`–`9` = 48–57), left-aligned and padded
/// with spaces, as in ADS-B type codes 1–4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AircraftIdentification {
    /// Eight ASCII characters; unassigned codes decode to `#` (which emits
    /// as code 0).
    pub chars: [u8; 8],
}

impl From<&super::adsb::Callsign> for AircraftIdentification {
    /// The callsign of an ADS-B identification message as a BDS 2,0
    /// identification: the same characters (an unassigned code, `#`,
    /// emits as code 0).
    ///
    /// ```
    /// use airwaves_core::modes::adsb::Callsign;
    /// use airwaves_core::modes::commb::{AircraftIdentification, Mb};
    /// let c = Callsign::from_ascii(b"KLM1023").unwrap();
    /// let mut mb = Mb::new_unchecked([0u8; 7]);
    /// AircraftIdentification::from(&c).emit(&mut mb);
    /// assert_eq!(mb.into_inner(), [0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x2C, 0xE0]);
    /// ```
    fn from(c: &super::adsb::Callsign) -> Self {
        let mut chars = [b' '; 8];
        for (d, &s) in chars.iter_mut().zip(c.as_str().as_bytes()) {
            *d = s;
        }
        AircraftIdentification { chars }
    }
}

impl AircraftIdentification {
    /// A callsign of at most 8 characters from `A`–`Z`, `0`–`9` and space,
    /// padded with spaces.
    ///
    /// ```
    /// use airwaves_core::modes::commb::AircraftIdentification;
    /// let id = AircraftIdentification::new("KLM1017")?;
    /// assert_eq!(&id.chars, b"KLM1017 ");
    /// assert!(AircraftIdentification::new("klm").is_err());
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    pub fn new(callsign: &str) -> Result<Self, Error> {
        let b = callsign.as_bytes();
        if b.len() > 8 {
            return Err(Error::InvalidCharacter(b[8]));
        }
        let mut chars = [b' '; 8];
        for (d, &c) in chars.iter_mut().zip(b) {
            char_code(c).ok_or(Error::InvalidCharacter(c))?;
            *d = c;
        }
        Ok(AircraftIdentification { chars })
    }

    /// Decode; fails only if the first byte is not `0x20`.
    ///
    /// ```
    /// use airwaves_core::modes::commb::{AircraftIdentification, Mb};
    /// let mb = Mb::new_unchecked([0x20u8, 0x2C, 0xC3, 0x71, 0xC3, 0x1D, 0xE0]);
    /// assert_eq!(AircraftIdentification::parse(&mb)?.as_str(), "KLM1017");
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    pub fn parse<T: AsRef<[u8]>>(mb: &Mb<T>) -> Result<Self, Error> {
        mb.check_len()?;
        let w = mb.bits();
        check_header(w, 0x20)?;
        Ok(Self::decode(w))
    }

    fn decode(w: u64) -> Self {
        let mut chars = [0u8; 8];
        for (i, c) in chars.iter_mut().enumerate() {
            *c = CHARSET[field::bds20::char(i as u32).get(w) as usize];
        }
        AircraftIdentification { chars }
    }

    fn encode(&self) -> u64 {
        let mut w = field::HEADER.put(0, 0x20);
        for (i, &c) in self.chars.iter().enumerate() {
            w = field::bds20::char(i as u32).put(w, char_code(c).unwrap_or(0) as u64);
        }
        w
    }

    /// The callsign without trailing spaces.
    pub fn as_str(&self) -> &str {
        let mut n = self.chars.len();
        while n > 0 && self.chars[n - 1] == b' ' {
            n -= 1;
        }
        // Characters come from CHARSET (ASCII) or from `new` (validated);
        // a hand-built non-UTF-8 array yields "".
        core::str::from_utf8(&self.chars[..n]).unwrap_or("")
    }

    /// Encode into `mb`; characters outside the set emit as code 0 (`#`).
    ///
    /// # Panics
    ///
    /// If `mb` is shorter than [`MB_LEN`] (never after `check_len`).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, mb: &mut Mb<T>) {
        mb.set_bits(self.encode());
    }
}

// ---------------------------------------------------------------------------
// BDS 3,0

/// Threat identity of a BDS 3,0 resolution advisory (TTI bits 29–30, TID
/// bits 31–56).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ThreatIdentity {
    /// TTI = 0: no identity data (TID is zero).
    None,
    /// TTI = 1: the threat's 24-bit Mode S address (bits 31–54; 55–56 are 0).
    Address(u32),
    /// TTI = 2: a Mode A/C threat located by altitude, range and bearing.
    Position {
        /// Bits 31–43: the threat's 13-bit altitude code (AC13, as in DF0/4).
        altitude_code: u16,
        /// Bits 44–50 (TIDR): 0 = no estimate, n = 1..=126 → (n − 1)/10 NM,
        /// 127 = more than 12.55 NM.
        range: u8,
        /// Bits 51–56 (TIDB): 0 = no estimate, n = 1..=60 → between
        /// 6(n − 1)° and 6n° clockwise from own heading; 61–63 unassigned.
        bearing: u8,
    },
    /// TTI = 3 (not assigned): the raw 26 TID bits.
    Reserved(u32),
}

impl ThreatIdentity {
    /// Threat altitude in feet (TTI = 2 only), via [`decode_ac13`].
    pub fn altitude(&self) -> Option<i32> {
        match self {
            ThreatIdentity::Position { altitude_code, .. } => decode_ac13(*altitude_code),
            _ => None,
        }
    }

    /// Threat range in NM (TTI = 2, range known): (n − 1)/10; 127 (more than
    /// 12.55 NM) returns 12.6.
    pub fn range_nm(&self) -> Option<f32> {
        match self {
            ThreatIdentity::Position { range, .. } if *range > 0 => Some((*range - 1) as f32 * 0.1),
            _ => None,
        }
    }
}

/// BDS 3,0 — ACAS active resolution advisory (Doc 9871 Table A-2-48;
/// Annex 10 Vol IV §4.3.8.4.2.2).
///
/// | bits | field |
/// |---|---|
/// | 1–8 | `0x30` |
/// | 9–22 | ARA: active resolution advisories (bit 9 = ARA bit 41 of the coordination reply) |
/// | 23–26 | RAC: RA complements received (not below, not above, not left, not right) |
/// | 27 | RAT: RA terminated |
/// | 28 | MTE: multiple threat encounter |
/// | 29–30 | TTI: threat type indicator |
/// | 31–56 | TID: threat identity, see [`ThreatIdentity`] |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ResolutionAdvisory {
    /// Bits 9–22, MB bit 9 in the MSB of the 14-bit value.
    pub ara: u16,
    /// Bits 23–26, MB bit 23 in the MSB of the 4-bit value.
    pub rac: u8,
    /// Bit 27: the RA has terminated.
    pub terminated: bool,
    /// Bit 28: more than one threat.
    pub multiple_threats: bool,
    /// Bits 29–56.
    pub threat: ThreatIdentity,
}

impl ResolutionAdvisory {
    /// Decode; fails only if the first byte is not `0x30`. TID bits that
    /// the TTI leaves undefined are ignored.
    ///
    /// ```
    /// use airwaves_core::modes::commb::{Mb, ResolutionAdvisory, ThreatIdentity};
    /// // Own RA bit 9 set, threat address 0x4840D6.
    /// let mb = Mb::new_unchecked([0x30u8, 0x80, 0x00, 0x05, 0x21, 0x03, 0x58]);
    /// let ra = ResolutionAdvisory::parse(&mb)?;
    /// assert_eq!(ra.ara, 0x2000);
    /// assert_eq!(ra.threat, ThreatIdentity::Address(0x4840D6));
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    pub fn parse<T: AsRef<[u8]>>(mb: &Mb<T>) -> Result<Self, Error> {
        mb.check_len()?;
        let w = mb.bits();
        check_header(w, 0x30)?;
        Ok(Self::decode(w))
    }

    fn decode(w: u64) -> Self {
        use field::bds30::*;
        let threat = match TTI.get(w) {
            0 => ThreatIdentity::None,
            1 => ThreatIdentity::Address(TID_ADDRESS.get(w) as u32),
            2 => ThreatIdentity::Position {
                altitude_code: TIDA.get(w) as u16,
                range: TIDR.get(w) as u8,
                bearing: TIDB.get(w) as u8,
            },
            _ => ThreatIdentity::Reserved(TID.get(w) as u32),
        };
        ResolutionAdvisory {
            ara: ARA.get(w) as u16,
            rac: RAC.get(w) as u8,
            terminated: RAT.get(w) != 0,
            multiple_threats: MTE.get(w) != 0,
            threat,
        }
    }

    fn encode(&self) -> u64 {
        use field::bds30::*;
        let mut w = field::HEADER.put(0, 0x30);
        w = ARA.put(w, self.ara as u64);
        w = RAC.put(w, self.rac as u64);
        w = RAT.put(w, self.terminated as u64);
        w = MTE.put(w, self.multiple_threats as u64);
        match self.threat {
            ThreatIdentity::None => w,
            ThreatIdentity::Address(a) => TID_ADDRESS.put(TTI.put(w, 1), a as u64),
            ThreatIdentity::Position {
                altitude_code,
                range,
                bearing,
            } => {
                w = TTI.put(w, 2);
                w = TIDA.put(w, altitude_code as u64);
                w = TIDR.put(w, range as u64);
                TIDB.put(w, bearing as u64)
            }
            ThreatIdentity::Reserved(v) => TID.put(TTI.put(w, 3), v as u64),
        }
    }

    /// Encode into `mb` (integer fields keep their low bits).
    ///
    /// # Panics
    ///
    /// If `mb` is shorter than [`MB_LEN`] (never after `check_len`).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, mb: &mut Mb<T>) {
        mb.set_bits(self.encode());
    }
}

// ---------------------------------------------------------------------------
// BDS 4,0

/// Autopilot modes of BDS 4,0 (bits 49–51, valid when bit 48 is set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AutopilotModes {
    /// Bit 49: VNAV mode engaged.
    pub vnav: bool,
    /// Bit 50: altitude hold mode engaged.
    pub alt_hold: bool,
    /// Bit 51: approach mode engaged.
    pub approach: bool,
}

/// Target altitude source of BDS 4,0 (bits 55–56).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TargetAltitudeSource {
    /// 0: unknown.
    Unknown,
    /// 1: aircraft altitude.
    Aircraft,
    /// 2: MCP/FCU selected altitude.
    McpFcu,
    /// 3: FMS selected altitude.
    Fms,
}

impl From<u8> for TargetAltitudeSource {
    /// The low two bits select the source.
    fn from(v: u8) -> Self {
        match v & 3 {
            0 => TargetAltitudeSource::Unknown,
            1 => TargetAltitudeSource::Aircraft,
            2 => TargetAltitudeSource::McpFcu,
            _ => TargetAltitudeSource::Fms,
        }
    }
}

impl From<TargetAltitudeSource> for u8 {
    fn from(s: TargetAltitudeSource) -> u8 {
        s as u8
    }
}

/// BDS 4,0 — selected vertical intention (Doc 9871 Table A-2-64).
///
/// | bits | field | unit |
/// |---|---|---|
/// | 1, 2–13 | status, MCP/FCU selected altitude | 16 ft, 0–65 520 ft |
/// | 14, 15–26 | status, FMS selected altitude | 16 ft |
/// | 27, 28–39 | status, barometric pressure setting − 800 | 0.1 hPa, 800–1209.5 hPa |
/// | 40–47 | reserved (0) | |
/// | 48, 49–51 | status, VNAV / alt hold / approach modes | |
/// | 52–53 | reserved (0) | |
/// | 54, 55–56 | status, target altitude source | |
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SelectedVerticalIntention {
    /// MCP/FCU selected altitude, ft (multiple of 16, 0..=65520).
    pub mcp_altitude: Option<u16>,
    /// FMS selected altitude, ft (multiple of 16, 0..=65520).
    pub fms_altitude: Option<u16>,
    /// Barometric pressure setting (QNH/QFE), hPa (800.0..=1209.5, 0.1 hPa).
    pub baro_setting: Option<f32>,
    /// Autopilot modes.
    pub modes: Option<AutopilotModes>,
    /// Target altitude source.
    pub target_source: Option<TargetAltitudeSource>,
}

impl SelectedVerticalIntention {
    /// Decode (cannot fail once the length is checked).
    ///
    /// ```
    /// use airwaves_core::modes::commb::{Mb, SelectedVerticalIntention};
    /// let mb = Mb::new_unchecked([0x85u8, 0xE4, 0x2F, 0x31, 0x30, 0x00, 0x00]);
    /// let s = SelectedVerticalIntention::parse(&mb)?;
    /// assert_eq!(s.mcp_altitude, Some(3008));
    /// assert_eq!(s.fms_altitude, Some(3008));
    /// assert!((s.baro_setting.unwrap() - 1020.0).abs() < 0.01);
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    pub fn parse<T: AsRef<[u8]>>(mb: &Mb<T>) -> Result<Self, Error> {
        mb.check_len()?;
        Ok(Self::decode(mb.bits()))
    }

    fn decode(w: u64) -> Self {
        use field::bds40::*;
        SelectedVerticalIntention {
            mcp_altitude: MCP.get(w).map(|v| (v * 16) as u16),
            fms_altitude: FMS.get(w).map(|v| (v * 16) as u16),
            baro_setting: BARO.get(w).map(|v| 800.0 + v as f32 * 0.1),
            modes: MODES.valid(w).then(|| AutopilotModes {
                vnav: VNAV.get(w) != 0,
                alt_hold: ALT_HOLD.get(w) != 0,
                approach: APPROACH.get(w) != 0,
            }),
            target_source: SOURCE.get(w).map(|v| TargetAltitudeSource::from(v as u8)),
        }
    }

    fn encode(&self) -> u64 {
        use field::bds40::*;
        let alt = |a: u16| clamp_unsigned((a as i64 + 8) / 16, 12);
        let mut w = MCP.put(0, self.mcp_altitude.map(alt));
        w = FMS.put(w, self.fms_altitude.map(alt));
        w = BARO.put(
            w,
            self.baro_setting
                .map(|p| clamp_unsigned(quantize(p - 800.0, 0.1) as i64, 12)),
        );
        w = MODES.put(
            w,
            self.modes
                .map(|m| ((m.vnav as u64) << 2) | ((m.alt_hold as u64) << 1) | m.approach as u64),
        );
        SOURCE.put(w, self.target_source.map(|s| u8::from(s) as u64))
    }

    /// Encode into `mb`; altitudes round to 16 ft and saturate at
    /// 65 520 ft, the pressure setting saturates to 800.0–1209.5 hPa.
    ///
    /// # Panics
    ///
    /// If `mb` is shorter than [`MB_LEN`] (never after `check_len`).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, mb: &mut Mb<T>) {
        mb.set_bits(self.encode());
    }
}

// ---------------------------------------------------------------------------
// BDS 4,4 and 4,5

/// Severity of a meteorological hazard (2-bit code, Doc 4444 definitions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Hazard {
    /// 0: nil.
    Nil,
    /// 1: light.
    Light,
    /// 2: moderate.
    Moderate,
    /// 3: severe.
    Severe,
}

impl From<u8> for Hazard {
    /// The low two bits select the level.
    fn from(v: u8) -> Self {
        match v & 3 {
            0 => Hazard::Nil,
            1 => Hazard::Light,
            2 => Hazard::Moderate,
            _ => Hazard::Severe,
        }
    }
}

impl From<Hazard> for u8 {
    fn from(h: Hazard) -> u8 {
        h as u8
    }
}

/// Figure of merit / source of BDS 4,4 (bits 1–4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FigureOfMerit {
    /// 0: invalid.
    Invalid,
    /// 1: INS.
    Ins,
    /// 2: GNSS.
    Gnss,
    /// 3: DME/DME.
    DmeDme,
    /// 4: VOR/DME.
    VorDme,
    /// 5–15: reserved.
    Unknown(u8),
}

impl From<u8> for FigureOfMerit {
    fn from(v: u8) -> Self {
        match v {
            0 => FigureOfMerit::Invalid,
            1 => FigureOfMerit::Ins,
            2 => FigureOfMerit::Gnss,
            3 => FigureOfMerit::DmeDme,
            4 => FigureOfMerit::VorDme,
            other => FigureOfMerit::Unknown(other),
        }
    }
}

impl From<FigureOfMerit> for u8 {
    fn from(f: FigureOfMerit) -> u8 {
        match f {
            FigureOfMerit::Invalid => 0,
            FigureOfMerit::Ins => 1,
            FigureOfMerit::Gnss => 2,
            FigureOfMerit::DmeDme => 3,
            FigureOfMerit::VorDme => 4,
            FigureOfMerit::Unknown(v) => v,
        }
    }
}

/// Wind of BDS 4,4.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Wind {
    /// Speed, kt (0..=511).
    pub speed: u16,
    /// Direction the wind blows from, degrees true (0..360, LSB 180/256°).
    pub direction: f32,
}

/// BDS 4,4 — meteorological routine air report (Doc 9871 Table A-2-68).
///
/// | bits | field | unit |
/// |---|---|---|
/// | 1–4 | figure of merit / source | |
/// | 5, 6–14, 15–23 | status, wind speed, wind direction | 1 kt; 180/256° |
/// | 24–34 | static air temperature, sign bit 24 (no status bit) | 0.25 °C |
/// | 35, 36–46 | status, average static pressure | 1 hPa |
/// | 47, 48–49 | status, turbulence | [`Hazard`] |
/// | 50, 51–56 | status, humidity | 100/64 % |
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MeteorologicalRoutine {
    /// Bits 1–4.
    pub figure_of_merit: FigureOfMerit,
    /// Wind speed and direction.
    pub wind: Option<Wind>,
    /// Static air temperature, °C (−256.0..=255.75, LSB 0.25).
    pub static_air_temperature: f32,
    /// Average static pressure, hPa (0..=2047).
    pub static_pressure: Option<u16>,
    /// Turbulence.
    pub turbulence: Option<Hazard>,
    /// Humidity, % (0..=98.4375, LSB 100/64).
    pub humidity: Option<f32>,
}

impl MeteorologicalRoutine {
    /// Decode (cannot fail once the length is checked).
    ///
    /// ```
    /// use airwaves_core::modes::commb::{Mb, MeteorologicalRoutine};
    /// let mb = Mb::new_unchecked([0x18u8, 0x5B, 0xD5, 0xCF, 0x40, 0x00, 0x00]);
    /// let m = MeteorologicalRoutine::parse(&mb)?;
    /// assert_eq!(m.wind.unwrap().speed, 22);
    /// assert_eq!(m.static_air_temperature, -48.75);
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    pub fn parse<T: AsRef<[u8]>>(mb: &Mb<T>) -> Result<Self, Error> {
        mb.check_len()?;
        Ok(Self::decode(mb.bits()))
    }

    fn decode(w: u64) -> Self {
        use field::bds44::*;
        MeteorologicalRoutine {
            figure_of_merit: FigureOfMerit::from(FOM.get(w) as u8),
            wind: WIND.valid(w).then(|| Wind {
                speed: WIND_SPEED.get(w) as u16,
                direction: WIND_DIRECTION.get(w) as f32 * WIND_DIR_LSB,
            }),
            static_air_temperature: SAT.get_signed(w) as f32 * SAT_LSB,
            static_pressure: PRESSURE.get(w).map(|v| v as u16),
            turbulence: TURBULENCE.get(w).map(|v| Hazard::from(v as u8)),
            humidity: HUMIDITY.get(w).map(|v| v as f32 * HUMIDITY_LSB),
        }
    }

    fn encode(&self) -> u64 {
        use field::bds44::*;
        let mut w = FOM.put(0, u8::from(self.figure_of_merit) as u64);
        if let Some(wind) = self.wind {
            w = WIND.put(w, Some(0));
            w = WIND_SPEED.put(w, clamp_unsigned(wind.speed as i64, 9));
            w = WIND_DIRECTION.put(w, wrap_angle(wind.direction, 9));
        }
        w = SAT.put(
            w,
            clamp_signed(quantize(self.static_air_temperature, SAT_LSB), 11),
        );
        w = PRESSURE.put(
            w,
            self.static_pressure.map(|p| clamp_unsigned(p as i64, 11)),
        );
        w = TURBULENCE.put(w, self.turbulence.map(|h| u8::from(h) as u64));
        HUMIDITY.put(
            w,
            self.humidity
                .map(|h| clamp_unsigned(quantize(h, HUMIDITY_LSB) as i64, 6)),
        )
    }

    /// Encode into `mb`; values saturate to their field ranges, the wind
    /// direction wraps.
    ///
    /// # Panics
    ///
    /// If `mb` is shorter than [`MB_LEN`] (never after `check_len`).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, mb: &mut Mb<T>) {
        mb.set_bits(self.encode());
    }
}

/// BDS 4,5 — meteorological hazard report (Doc 9871 Table A-2-69).
///
/// | bits | field | unit |
/// |---|---|---|
/// | 1–3, 4–6, 7–9, 10–12, 13–15 | status + 2-bit level: turbulence, wind shear, microburst, icing, wake vortex | [`Hazard`] |
/// | 16, 17–26 | status, static air temperature (sign bit 17) | 0.25 °C |
/// | 27, 28–38 | status, average static pressure | 1 hPa |
/// | 39, 40–51 | status, radio height | 16 ft |
/// | 52–56 | reserved (0) | |
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MeteorologicalHazard {
    /// Turbulence.
    pub turbulence: Option<Hazard>,
    /// Wind shear.
    pub wind_shear: Option<Hazard>,
    /// Microburst.
    pub microburst: Option<Hazard>,
    /// Icing.
    pub icing: Option<Hazard>,
    /// Wake vortex.
    pub wake_vortex: Option<Hazard>,
    /// Static air temperature, °C (−128.0..=127.75, LSB 0.25).
    pub static_air_temperature: Option<f32>,
    /// Average static pressure, hPa (0..=2047).
    pub static_pressure: Option<u16>,
    /// Radio height, ft (multiple of 16, 0..=65520).
    pub radio_height: Option<u16>,
}

impl MeteorologicalHazard {
    /// Decode (cannot fail once the length is checked).
    ///
    /// ```
    /// use airwaves_core::modes::commb::{Mb, MeteorologicalHazard};
    /// let mb = Mb::new_unchecked([0x00u8, 0x01, 0xFB, 0x80, 0x00, 0x00, 0x00]);
    /// let m = MeteorologicalHazard::parse(&mb)?;
    /// assert_eq!(m.static_air_temperature, Some(-4.5));
    /// assert_eq!(m.turbulence, None);
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    pub fn parse<T: AsRef<[u8]>>(mb: &Mb<T>) -> Result<Self, Error> {
        mb.check_len()?;
        Ok(Self::decode(mb.bits()))
    }

    fn decode(w: u64) -> Self {
        use field::bds45::*;
        let hazard = |g: Gated| g.get(w).map(|v| Hazard::from(v as u8));
        MeteorologicalHazard {
            turbulence: hazard(TURBULENCE),
            wind_shear: hazard(WIND_SHEAR),
            microburst: hazard(MICROBURST),
            icing: hazard(ICING),
            wake_vortex: hazard(WAKE_VORTEX),
            static_air_temperature: SAT.get_signed(w).map(|v| v as f32 * SAT_LSB),
            static_pressure: PRESSURE.get(w).map(|v| v as u16),
            radio_height: RADIO_HEIGHT.get(w).map(|v| (v * 16) as u16),
        }
    }

    fn encode(&self) -> u64 {
        use field::bds45::*;
        let h = |x: Option<Hazard>| x.map(|h| u8::from(h) as u64);
        let mut w = TURBULENCE.put(0, h(self.turbulence));
        w = WIND_SHEAR.put(w, h(self.wind_shear));
        w = MICROBURST.put(w, h(self.microburst));
        w = ICING.put(w, h(self.icing));
        w = WAKE_VORTEX.put(w, h(self.wake_vortex));
        w = SAT.put(
            w,
            self.static_air_temperature
                .map(|t| clamp_signed(quantize(t, SAT_LSB), 10)),
        );
        w = PRESSURE.put(
            w,
            self.static_pressure.map(|p| clamp_unsigned(p as i64, 11)),
        );
        RADIO_HEIGHT.put(
            w,
            self.radio_height
                .map(|r| clamp_unsigned((r as i64 + 8) / 16, 12)),
        )
    }

    /// Encode into `mb`; values saturate to their field ranges.
    ///
    /// # Panics
    ///
    /// If `mb` is shorter than [`MB_LEN`] (never after `check_len`).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, mb: &mut Mb<T>) {
        mb.set_bits(self.encode());
    }
}

// ---------------------------------------------------------------------------
// BDS 5,0

/// BDS 5,0 — track and turn report (Doc 9871 Table A-2-80).
///
/// | bits | field | unit, range |
/// |---|---|---|
/// | 1, 2–11 | status, roll angle (sign bit 2; + = right wing down) | 45/256°, −90..+90 |
/// | 12, 13–23 | status, true track angle (sign bit 13) | 90/512°, 0..360 |
/// | 24, 25–34 | status, ground speed | 2 kt, 0..2046 |
/// | 35, 36–45 | status, track angle rate (sign bit 36; + = turning right) | 8/256 °/s, −16..+16 |
/// | 46, 47–56 | status, true airspeed | 2 kt, 0..2046 |
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TrackAndTurn {
    /// Roll angle, degrees (−90.0..=89.82, LSB 45/256°).
    pub roll: Option<f32>,
    /// True track angle, degrees (0.0..360.0, LSB 90/512°).
    pub true_track: Option<f32>,
    /// Ground speed, kt (even, 0..=2046).
    pub ground_speed: Option<u16>,
    /// Track angle rate, °/s (−16.0..=15.97, LSB 1/32 °/s).
    pub track_rate: Option<f32>,
    /// True airspeed, kt (even, 0..=2046).
    pub true_airspeed: Option<u16>,
}

impl TrackAndTurn {
    /// Decode (cannot fail once the length is checked).
    ///
    /// ```
    /// use airwaves_core::modes::commb::{Mb, TrackAndTurn};
    /// let mb = Mb::new_unchecked([0x81u8, 0x95, 0x15, 0x36, 0xE0, 0x24, 0xD4]);
    /// let t = TrackAndTurn::parse(&mb)?;
    /// assert_eq!(t.roll, Some(2.109375));
    /// assert_eq!(t.ground_speed, Some(438));
    /// assert_eq!(t.true_airspeed, Some(424));
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    pub fn parse<T: AsRef<[u8]>>(mb: &Mb<T>) -> Result<Self, Error> {
        mb.check_len()?;
        Ok(Self::decode(mb.bits()))
    }

    fn decode(w: u64) -> Self {
        use field::bds50::*;
        TrackAndTurn {
            roll: ROLL.get_signed(w).map(|v| v as f32 * ROLL_LSB),
            true_track: TRACK.get(w).map(|v| v as f32 * ANGLE11_LSB),
            ground_speed: GS.get(w).map(|v| (v * 2) as u16),
            track_rate: TRACK_RATE.get_signed(w).map(|v| v as f32 * TRACK_RATE_LSB),
            true_airspeed: TAS.get(w).map(|v| (v * 2) as u16),
        }
    }

    fn encode(&self) -> u64 {
        use field::bds50::*;
        let speed = |s: u16| clamp_unsigned((s as i64 + 1) / 2, 10);
        let mut w = ROLL.put(
            0,
            self.roll.map(|r| clamp_signed(quantize(r, ROLL_LSB), 10)),
        );
        w = TRACK.put(w, self.true_track.map(|t| wrap_angle(t, 11)));
        w = GS.put(w, self.ground_speed.map(speed));
        w = TRACK_RATE.put(
            w,
            self.track_rate
                .map(|r| clamp_signed(quantize(r, TRACK_RATE_LSB), 10)),
        );
        TAS.put(w, self.true_airspeed.map(speed))
    }

    /// Encode into `mb`; roll and track rate saturate, the track wraps,
    /// speeds round up to even knots and saturate at 2046 kt.
    ///
    /// # Panics
    ///
    /// If `mb` is shorter than [`MB_LEN`] (never after `check_len`).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, mb: &mut Mb<T>) {
        mb.set_bits(self.encode());
    }
}

// ---------------------------------------------------------------------------
// BDS 6,0

/// BDS 6,0 — heading and speed report (Doc 9871 Table A-2-96).
///
/// | bits | field | unit, range |
/// |---|---|---|
/// | 1, 2–12 | status, magnetic heading (sign bit 2) | 90/512°, 0..360 |
/// | 13, 14–23 | status, indicated airspeed | 1 kt, 0..1023 |
/// | 24, 25–34 | status, Mach | 2.048/512, 0..4.092 |
/// | 35, 36–45 | status, barometric altitude rate (sign bit 36) | 32 ft/min, −16384..+16352 |
/// | 46, 47–56 | status, inertial vertical velocity (sign bit 47) | 32 ft/min |
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HeadingAndSpeed {
    /// Magnetic heading, degrees (0.0..360.0, LSB 90/512°).
    pub magnetic_heading: Option<f32>,
    /// Indicated airspeed, kt (0..=1023).
    pub indicated_airspeed: Option<u16>,
    /// Mach number (0.0..=4.092, LSB 0.004).
    pub mach: Option<f32>,
    /// Barometric altitude rate, ft/min (multiple of 32, −16384..=16352).
    pub baro_vertical_rate: Option<i16>,
    /// Inertial vertical velocity, ft/min (multiple of 32, −16384..=16352).
    pub inertial_vertical_rate: Option<i16>,
}

impl HeadingAndSpeed {
    /// Decode (cannot fail once the length is checked).
    ///
    /// ```
    /// use airwaves_core::modes::commb::{HeadingAndSpeed, Mb};
    /// let mb = Mb::new_unchecked([0x8Fu8, 0x39, 0xF9, 0x1A, 0x7E, 0x27, 0xC4]);
    /// let h = HeadingAndSpeed::parse(&mb)?;
    /// assert_eq!(h.indicated_airspeed, Some(252));
    /// assert_eq!(h.baro_vertical_rate, Some(-1920));
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    pub fn parse<T: AsRef<[u8]>>(mb: &Mb<T>) -> Result<Self, Error> {
        mb.check_len()?;
        Ok(Self::decode(mb.bits()))
    }

    fn decode(w: u64) -> Self {
        use field::bds60::*;
        HeadingAndSpeed {
            magnetic_heading: HEADING.get(w).map(|v| v as f32 * ANGLE11_LSB),
            indicated_airspeed: IAS.get(w).map(|v| v as u16),
            mach: MACH.get(w).map(|v| v as f32 * MACH_LSB),
            baro_vertical_rate: BARO_RATE.get_signed(w).map(|v| (v * 32) as i16),
            inertial_vertical_rate: INERTIAL_RATE.get_signed(w).map(|v| (v * 32) as i16),
        }
    }

    fn encode(&self) -> u64 {
        use field::bds60::*;
        let rate = |r: i16| clamp_signed(quantize(r as f32, 32.0), 10);
        let mut w = HEADING.put(0, self.magnetic_heading.map(|h| wrap_angle(h, 11)));
        w = IAS.put(
            w,
            self.indicated_airspeed
                .map(|s| clamp_unsigned(s as i64, 10)),
        );
        w = MACH.put(
            w,
            self.mach
                .map(|m| clamp_unsigned(quantize(m, MACH_LSB) as i64, 10)),
        );
        w = BARO_RATE.put(w, self.baro_vertical_rate.map(rate));
        INERTIAL_RATE.put(w, self.inertial_vertical_rate.map(rate))
    }

    /// Encode into `mb`; values saturate to their field ranges, the
    /// heading wraps, vertical rates round to 32 ft/min.
    ///
    /// # Panics
    ///
    /// If `mb` is shorter than [`MB_LEN`] (never after `check_len`).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, mb: &mut Mb<T>) {
        mb.set_bits(self.encode());
    }
}

// ---------------------------------------------------------------------------
// Repr

/// A decoded Comm-B register of any supported kind.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Repr {
    /// BDS 1,0.
    DataLinkCapability(DataLinkCapability),
    /// BDS 1,7.
    CommonUsageCapability(CommonUsageCapability),
    /// BDS 2,0.
    AircraftIdentification(AircraftIdentification),
    /// BDS 3,0.
    ResolutionAdvisory(ResolutionAdvisory),
    /// BDS 4,0.
    SelectedVerticalIntention(SelectedVerticalIntention),
    /// BDS 4,4.
    MeteorologicalRoutine(MeteorologicalRoutine),
    /// BDS 4,5.
    MeteorologicalHazard(MeteorologicalHazard),
    /// BDS 5,0.
    TrackAndTurn(TrackAndTurn),
    /// BDS 6,0.
    HeadingAndSpeed(HeadingAndSpeed),
}

impl Repr {
    /// Decode `mb` as register `bds` (known, or chosen by [`infer`]).
    ///
    /// ```
    /// use airwaves_core::modes::commb::{Bds, Mb, Repr};
    /// let mb = Mb::new_checked(&[0x81u8, 0x95, 0x15, 0x36, 0xE0, 0x24, 0xD4][..])?;
    /// let Repr::TrackAndTurn(t) = Repr::parse(&mb, Bds::TrackAndTurn)? else { panic!() };
    /// assert_eq!(t.ground_speed, Some(438));
    /// assert!(Repr::parse(&mb, Bds::Unknown(0x51)).is_err());
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    pub fn parse<T: AsRef<[u8]>>(mb: &Mb<T>, bds: Bds) -> Result<Repr, Error> {
        Ok(match bds {
            Bds::DataLinkCapability => Repr::DataLinkCapability(DataLinkCapability::parse(mb)?),
            Bds::CommonUsageCapability => {
                Repr::CommonUsageCapability(CommonUsageCapability::parse(mb)?)
            }
            Bds::AircraftIdentification => {
                Repr::AircraftIdentification(AircraftIdentification::parse(mb)?)
            }
            Bds::ResolutionAdvisory => Repr::ResolutionAdvisory(ResolutionAdvisory::parse(mb)?),
            Bds::SelectedVerticalIntention => {
                Repr::SelectedVerticalIntention(SelectedVerticalIntention::parse(mb)?)
            }
            Bds::MeteorologicalRoutine => {
                Repr::MeteorologicalRoutine(MeteorologicalRoutine::parse(mb)?)
            }
            Bds::MeteorologicalHazard => {
                Repr::MeteorologicalHazard(MeteorologicalHazard::parse(mb)?)
            }
            Bds::TrackAndTurn => Repr::TrackAndTurn(TrackAndTurn::parse(mb)?),
            Bds::HeadingAndSpeed => Repr::HeadingAndSpeed(HeadingAndSpeed::parse(mb)?),
            Bds::Empty | Bds::Unknown(_) => return Err(Error::Unsupported(bds)),
        })
    }

    /// The register this value belongs to.
    pub fn bds(&self) -> Bds {
        match self {
            Repr::DataLinkCapability(_) => Bds::DataLinkCapability,
            Repr::CommonUsageCapability(_) => Bds::CommonUsageCapability,
            Repr::AircraftIdentification(_) => Bds::AircraftIdentification,
            Repr::ResolutionAdvisory(_) => Bds::ResolutionAdvisory,
            Repr::SelectedVerticalIntention(_) => Bds::SelectedVerticalIntention,
            Repr::MeteorologicalRoutine(_) => Bds::MeteorologicalRoutine,
            Repr::MeteorologicalHazard(_) => Bds::MeteorologicalHazard,
            Repr::TrackAndTurn(_) => Bds::TrackAndTurn,
            Repr::HeadingAndSpeed(_) => Bds::HeadingAndSpeed,
        }
    }

    /// Bytes `emit` writes: always [`MB_LEN`].
    pub const fn buffer_len(&self) -> usize {
        MB_LEN
    }

    /// Encode into `mb`.
    ///
    /// # Panics
    ///
    /// If `mb` is shorter than [`MB_LEN`] (never after `check_len`).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, mb: &mut Mb<T>) {
        match self {
            Repr::DataLinkCapability(r) => r.emit(mb),
            Repr::CommonUsageCapability(r) => r.emit(mb),
            Repr::AircraftIdentification(r) => r.emit(mb),
            Repr::ResolutionAdvisory(r) => r.emit(mb),
            Repr::SelectedVerticalIntention(r) => r.emit(mb),
            Repr::MeteorologicalRoutine(r) => r.emit(mb),
            Repr::MeteorologicalHazard(r) => r.emit(mb),
            Repr::TrackAndTurn(r) => r.emit(mb),
            Repr::HeadingAndSpeed(r) => r.emit(mb),
        }
    }
}

// ---------------------------------------------------------------------------
// Inference

/// What the caller already knows about the aircraft, from ADS-B or from the
/// reply itself (the DF20 altitude field), to sharpen [`infer`]. Every
/// field is optional; `Context::default()` means "nothing known".
///
/// ```
/// use airwaves_core::modes::commb::Context;
/// let ctx = Context {
///     ground_speed_kt: Some(320.0),
///     track_deg: Some(250.0),
///     altitude_ft: Some(14_000.0),
///     ..Context::default()
/// };
/// assert!(ctx.vertical_rate_fpm.is_none() && !ctx.meteorological);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Context {
    /// Ground speed, kt.
    pub ground_speed_kt: Option<f32>,
    /// True track over the ground, degrees.
    pub track_deg: Option<f32>,
    /// Barometric (pressure) altitude, ft — e.g. the DF20 AC field.
    pub altitude_ft: Option<f32>,
    /// Vertical rate, ft/min (positive up).
    pub vertical_rate_fpm: Option<f32>,
    /// Also try the meteorological registers 4,4 and 4,5. They are rare and
    /// their loose layouts match many other registers, so, as in pyModeS,
    /// they are off by default.
    pub meteorological: bool,
}

/// How strongly the bits support a register: about the number of bits of
/// evidence, i.e. −log₂ of the chance that uniformly random MB bits would
/// pass the same checks (a fixed header is worth 8, each reserved or
/// status-gated zero bit 1, each range or cross-field check what it
/// excludes, each context match what it excludes).
///
/// Scores rank candidates of one reply and are only roughly comparable
/// across registers (real registers are not random: their zero bits are
/// weaker evidence than the model assumes). A higher score never hides a
/// competitor: see [`Inference::is_ambiguous`].
///
/// ```
/// use airwaves_core::modes::commb::Score;
/// assert!(Score(14) > Score(9));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Score(pub u16);

/// Why [`fit`] rejected a register: the first failed check, in the order
/// listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Reject {
    /// The buffer is shorter than [`MB_LEN`].
    Truncated,
    /// No inference rules for this register ([`Bds::Unknown`]).
    Unsupported,
    /// The MB field is all zeros (only [`Bds::Empty`] fits it).
    Empty,
    /// The fixed header (first byte of 1,0, 2,0, 3,0) does not match.
    Header,
    /// A reserved bit (or an unassigned code) is set.
    Reserved,
    /// A field whose status bit is 0 is not all zeros.
    Status,
    /// A value lies outside its physical range.
    Range,
    /// Two fields contradict each other.
    Consistency,
    /// A value contradicts the caller's [`Context`].
    Context,
}

impl fmt::Display for Reject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reject::Truncated => "MB field truncated",
            Reject::Unsupported => "register not supported",
            Reject::Empty => "MB field empty",
            Reject::Header => "header mismatch",
            Reject::Reserved => "reserved bits set",
            Reject::Status => "data behind a cleared status bit",
            Reject::Range => "value out of range",
            Reject::Consistency => "fields inconsistent",
            Reject::Context => "contradicts context",
        })
    }
}

/// Most candidates [`infer`] can return: the fixed headers of 1,0, 2,0 and
/// 3,0 exclude each other, so at most 7 of the 9 registers pass together.
pub const MAX_CANDIDATES: usize = 8;

/// Context evidence (bits) by which one candidate must lead every other
/// for the context to separate them: a likelihood ratio of 16 : 1.
pub const SEPARATION_BITS: u16 = 4;

/// The registers that fit an MB field, best [`Score`] first, and whether
/// the choice among them is ambiguous.
///
/// ```
/// use airwaves_core::modes::commb::{infer, Bds, Context, Mb};
/// let mb = Mb::new_checked(&[0x20u8, 0x2C, 0xC3, 0x71, 0xC3, 0x1D, 0xE0][..])?;
/// let inference = infer(&mb, &Context::default())?;
/// assert_eq!(inference.best(), Some(Bds::AircraftIdentification));
/// assert!(!inference.is_ambiguous());
/// # Ok::<(), airwaves_core::modes::commb::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Inference {
    candidates: heapless::Vec<(Bds, Score), MAX_CANDIDATES>,
    best: Option<Bds>,
}

impl Inference {
    /// Every register that passed, best score first (ties in the order
    /// [`infer`] tries them). Candidates the context separated from the
    /// best one stay listed.
    pub fn candidates(&self) -> &[(Bds, Score)] {
        &self.candidates
    }

    /// More than one register passed and the context did not separate
    /// them: the caller must not treat any one of them as decoded.
    pub fn is_ambiguous(&self) -> bool {
        self.best.is_none() && !self.candidates.is_empty()
    }

    /// The register, if exactly one passed, or if the context evidence of
    /// one leads every other candidate's by at least [`SEPARATION_BITS`]
    /// (e.g. a 6,0 whose IAS and Mach reproduce the DF20 altitude against a
    /// 5,0 reading the context says nothing about).
    pub fn best(&self) -> Option<Bds> {
        self.best
    }

    /// Whether `bds` passed.
    pub fn contains(&self, bds: Bds) -> bool {
        self.candidates.iter().any(|(b, _)| *b == bds)
    }

    /// No register passed.
    pub fn is_empty(&self) -> bool {
        self.candidates.is_empty()
    }

    /// The score of `bds`, if it passed.
    pub fn score(&self, bds: Bds) -> Option<Score> {
        self.candidates
            .iter()
            .find(|(b, _)| *b == bds)
            .map(|(_, s)| *s)
    }

    /// Insert keeping descending score order (stable for ties).
    fn insert(&mut self, bds: Bds, score: Score) {
        let at = self
            .candidates
            .iter()
            .position(|(_, s)| *s < score)
            .unwrap_or(self.candidates.len());
        // Capacity covers every register `infer` tries; should it ever be
        // exceeded the lowest-ranked candidate is dropped, never a panic.
        if self.candidates.is_full() {
            if at >= self.candidates.len() {
                return;
            }
            self.candidates.pop();
        }
        let _ = self.candidates.insert(at, (bds, score));
    }
}

/// Registers [`infer`] tries, in tie-break order; the last two only with
/// [`Context::meteorological`].
const REGISTERS: [Bds; 9] = [
    Bds::DataLinkCapability,
    Bds::CommonUsageCapability,
    Bds::AircraftIdentification,
    Bds::ResolutionAdvisory,
    Bds::SelectedVerticalIntention,
    Bds::TrackAndTurn,
    Bds::HeadingAndSpeed,
    Bds::MeteorologicalRoutine,
    Bds::MeteorologicalHazard,
];

/// Infer which register an MB field carries.
///
/// An all-zero field yields the single candidate [`Bds::Empty`]. Otherwise
/// every register of 1,0, 1,7, 2,0, 3,0, 4,0, 5,0 and 6,0 (plus 4,4 and 4,5
/// when [`Context::meteorological`] is set) is checked with [`fit`], and
/// all that pass are returned, best score first. Nothing is picked
/// silently: with two or more candidates [`Inference::is_ambiguous`] is
/// true unless the [`Context`] separates them — it removes the candidates
/// it contradicts, and [`Inference::best`] names a survivor only when its
/// context evidence leads by [`SEPARATION_BITS`].
///
/// ```
/// use airwaves_core::modes::commb::{infer, Bds, Context, Mb};
/// // The Riddle's DF21 example, FFFB23286004A7: roll −0.2°, track 250.5°,
/// // GS 322 kt, TAS 334 kt as BDS 5,0.
/// let mb = Mb::new_checked(&[0xFFu8, 0xFB, 0x23, 0x28, 0x60, 0x04, 0xA7][..])?;
/// let ctx = Context { ground_speed_kt: Some(320.0), track_deg: Some(250.0), ..Context::default() };
/// assert_eq!(infer(&mb, &ctx)?.best(), Some(Bds::TrackAndTurn));
/// # Ok::<(), airwaves_core::modes::commb::Error>(())
/// ```
pub fn infer<T: AsRef<[u8]>>(mb: &Mb<T>, ctx: &Context) -> Result<Inference, Error> {
    mb.check_len()?;
    let w = mb.bits();
    let mut out = Inference::default();
    if w == 0 {
        out.insert(Bds::Empty, Score(56));
        out.best = Some(Bds::Empty);
        return Ok(out);
    }
    let tried = if ctx.meteorological { 9 } else { 7 };
    // Best and second-best context evidence, and who holds the best.
    let (mut lead, mut lead_ctx, mut second_ctx) = (None, 0u16, 0u16);
    for bds in &REGISTERS[..tried] {
        if let Ok((intrinsic, context)) = fit_word(*bds, w, ctx) {
            out.insert(*bds, Score(intrinsic + context));
            if lead.is_none() || context > lead_ctx {
                if lead.is_some() {
                    second_ctx = lead_ctx;
                }
                lead = Some(*bds);
                lead_ctx = context;
            } else {
                second_ctx = second_ctx.max(context);
            }
        }
    }
    out.best = match out.candidates.len() {
        1 => lead,
        n if n > 1 && lead_ctx >= second_ctx + SEPARATION_BITS => lead,
        _ => None,
    };
    Ok(out)
}

/// Check how well register `bds` explains an MB field.
///
/// Checks run in the order of [`Reject`]: fixed header, reserved bits,
/// status bits (a field whose status bit is 0 must be zero), physical
/// ranges, cross-field consistency, then the caller's [`Context`]. Every
/// register needs at least one non-zero bit (else [`Reject::Empty`]);
/// [`Bds::Empty`] fits only the all-zero field.
///
/// | register | range | consistency | context |
/// |---|---|---|---|
/// | 1,0 | — | — | — |
/// | 1,7 | — | 2,0 announced (every Mode S aircraft supports it) | — |
/// | 2,0 | characters in the set, first one not a space | — | — |
/// | 3,0 | TTI ≠ 3, TID bits beyond the TTI's data zero (reserved), bearing code ≤ 60 | — | — |
/// | 4,0 | selected altitudes ≤ 50 000 ft, QNH 850–1100 hPa | an altitude or QNH present | — |
/// | 4,4 | source code ≤ 4, wind ≤ 250 kt, SAT −80…+60 °C, pressure ≤ 1100 hPa | wind present | — |
/// | 4,5 | SAT −80…+60 °C, pressure ≤ 1100 hPa, radio height ≤ 10 000 ft | — | — |
/// | 5,0 | \|roll\| ≤ 50°, GS ≤ 700 kt, TAS ≤ 560 kt | \|GS − TAS\| ≤ 200 kt | \|GS − ref\| ≤ 30 kt, \|track − ref\| ≤ 20°, \|TAS − ref GS\| ≤ 200 kt; at ref altitude ≥ 15 000 ft, GS and TAS ≥ 60 kt |
/// | 6,0 | IAS ≤ 500 kt, Mach ≤ 1, \|rates\| ≤ 6000 ft/min | \|baro − inertial rate\| ≤ 2500 ft/min; IAS and Mach imply a pressure altitude of −2000…55 000 ft | \|implied altitude − ref\| ≤ 2000 ft, \|TAS − ref GS\| ≤ 200 kt, \|heading − ref track\| ≤ 60°, \|rates − ref\| ≤ 1500 ft/min; at ref altitude ≥ 15 000 ft, IAS ≥ 60 kt |
///
/// Soft checks only add to the score: a 5,0 track rate matching the
/// coordinated-turn rate `1091·tan(roll)/TAS` °/s, 6,0 baro and inertial
/// rates within 500 ft/min, 4,0 selected altitudes within 8 ft of a
/// multiple of 100 ft.
///
/// The IAS/Mach altitude treats IAS as calibrated airspeed and solves the
/// subsonic compressible pitot relations of the ICAO standard atmosphere
/// (Doc 7488): impact pressure `qc = p₀((1 + 0.2(CAS/a₀)²)^3.5 − 1)` and
/// `qc/p = (1 + 0.2M²)^3.5 − 1` give the static pressure `p`, hence the
/// pressure altitude. On the 1,704 DF20 replies of the pyModeS corpus whose
/// 6,0 reading lands within 2000 ft of the reply's own altitude field, 99 %
/// land within 300 ft and all within 600 ft.
///
/// ```
/// use airwaves_core::modes::commb::{fit, Bds, Context, Mb, Reject};
/// // The Riddle's DF20 example, E519F331602401: as BDS 5,0 GS 394 kt but
/// // TAS 2 kt (a 392 kt wind); as BDS 6,0 IAS 249 kt at Mach 0.788, i.e.
/// // FL380 — the reply's own altitude.
/// let mb = Mb::new_checked(&[0xE5u8, 0x19, 0xF3, 0x31, 0x60, 0x24, 0x01][..]).unwrap();
/// let ctx = Context { altitude_ft: Some(38_000.0), ..Context::default() };
/// assert_eq!(fit(Bds::TrackAndTurn, &mb, &ctx), Err(Reject::Consistency));
/// assert!(fit(Bds::HeadingAndSpeed, &mb, &ctx).is_ok());
/// ```
pub fn fit<T: AsRef<[u8]>>(bds: Bds, mb: &Mb<T>, ctx: &Context) -> Result<Score, Reject> {
    if mb.check_len().is_err() {
        return Err(Reject::Truncated);
    }
    fit_word(bds, mb.bits(), ctx).map(|(i, c)| Score(i + c))
}

/// Intrinsic and context evidence, in bits.
type Evidence = (u16, u16);

fn fit_word(bds: Bds, w: u64, ctx: &Context) -> Result<Evidence, Reject> {
    if bds == Bds::Empty {
        return if w == 0 {
            Ok((56, 0))
        } else {
            Err(Reject::Reserved)
        };
    }
    if let Bds::Unknown(_) = bds {
        return Err(Reject::Unsupported);
    }
    if w == 0 {
        return Err(Reject::Empty);
    }
    let intrinsic = |r: Result<u16, Reject>| r.map(|b| (b, 0));
    match bds {
        Bds::DataLinkCapability => intrinsic(fit_10(w)),
        Bds::CommonUsageCapability => intrinsic(fit_17(w)),
        Bds::AircraftIdentification => intrinsic(fit_20(w)),
        Bds::ResolutionAdvisory => intrinsic(fit_30(w)),
        Bds::SelectedVerticalIntention => intrinsic(fit_40(w)),
        Bds::MeteorologicalRoutine => intrinsic(fit_44(w)),
        Bds::MeteorologicalHazard => intrinsic(fit_45(w)),
        Bds::TrackAndTurn => fit_50(w, ctx),
        Bds::HeadingAndSpeed => fit_60(w, ctx),
        Bds::Empty | Bds::Unknown(_) => Err(Reject::Unsupported),
    }
}

/// `Ok(())` if `cond`, else `Err(r)`.
#[inline]
fn require(cond: bool, r: Reject) -> Result<(), Reject> {
    if cond { Ok(()) } else { Err(r) }
}

/// Status consistency of gated fields; evidence = width of each absent field.
fn status_evidence(w: u64, fields: &[Gated]) -> Result<u16, Reject> {
    let mut bits = 0;
    for g in fields {
        require(g.consistent(w), Reject::Status)?;
        if !g.valid(w) {
            bits += g.value.len as u16;
        }
    }
    Ok(bits)
}

/// Smallest absolute difference of two angles in degrees (0..=180).
fn angle_diff(a: f32, b: f32) -> f32 {
    let d = libm::fmodf(libm::fabsf(a - b), 360.0);
    if d > 180.0 { 360.0 - d } else { d }
}

fn fit_10(w: u64) -> Result<u16, Reject> {
    require(field::HEADER.get(w) == 0x10, Reject::Header)?;
    require(field::bds10::RESERVED.get(w) == 0, Reject::Reserved)?;
    Ok(8 + 5)
}

fn fit_17(w: u64) -> Result<u16, Reject> {
    use field::bds17::*;
    require(RESERVED.get(w) == 0, Reject::Reserved)?;
    let cap = CommonUsageCapability::decode(w);
    require(
        cap.supports(Bds::AircraftIdentification),
        Reject::Consistency,
    )?;
    Ok(32 + 1)
}

fn fit_20(w: u64) -> Result<u16, Reject> {
    require(field::HEADER.get(w) == 0x20, Reject::Header)?;
    for i in 0..8 {
        let code = field::bds20::char(i).get(w) as usize;
        require(CHARSET[code] != b'#', Reject::Range)?;
        if i == 0 {
            require(code != 32, Reject::Range)?;
        }
    }
    // Each character in the 37 of 64 assigned codes: 0.79 bit.
    Ok(8 + 6)
}

fn fit_30(w: u64) -> Result<u16, Reject> {
    use field::bds30::*;
    require(field::HEADER.get(w) == 0x30, Reject::Header)?;
    let extra = match TTI.get(w) {
        0 => {
            require(TID.get(w) == 0, Reject::Reserved)?;
            26
        }
        1 => {
            require(TID_ADDRESS_PAD.get(w) == 0, Reject::Reserved)?;
            2
        }
        2 => {
            require(TIDB.get(w) <= 60, Reject::Range)?;
            0
        }
        _ => return Err(Reject::Reserved),
    };
    Ok(8 + extra)
}

/// Lowest and highest plausible barometric pressure setting, hPa.
const QNH_RANGE: (f32, f32) = (850.0, 1100.0);
/// Highest plausible selected altitude, ft.
const MAX_SELECTED_ALT: u64 = 50_000;

fn fit_40(w: u64) -> Result<u16, Reject> {
    use field::bds40::*;
    require(
        RESERVED_A.get(w) == 0 && RESERVED_B.get(w) == 0,
        Reject::Reserved,
    )?;
    let mut bits = 10 + status_evidence(w, &[MCP, FMS, BARO, MODES, SOURCE])?;
    let mcp = MCP.get(w).map(|v| v * 16);
    let fms = FMS.get(w).map(|v| v * 16);
    let baro = BARO.get(w).map(|v| 800.0 + v as f32 * 0.1);
    for alt in [mcp, fms].into_iter().flatten() {
        require(alt <= MAX_SELECTED_ALT, Reject::Range)?;
        // Selected altitudes are set in 100 ft steps (metric ones at
        // random), sent rounded to 16 ft: within 8 ft of a multiple of 100.
        if (alt + 8) % 100 <= 16 {
            bits += 2;
        }
    }
    if let Some(p) = baro {
        require(p >= QNH_RANGE.0 && p <= QNH_RANGE.1, Reject::Range)?;
        bits += 1;
    }
    require(
        mcp.is_some() || fms.is_some() || baro.is_some(),
        Reject::Consistency,
    )?;
    Ok(bits)
}

/// Plausible static air temperature, °C.
const SAT_RANGE: (f32, f32) = (-80.0, 60.0);

fn fit_44(w: u64) -> Result<u16, Reject> {
    use field::bds44::*;
    require(FOM.get(w) <= 4, Reject::Reserved)?;
    let mut bits = 2 + status_evidence(w, &[WIND, PRESSURE, TURBULENCE, HUMIDITY])?;
    let m = MeteorologicalRoutine::decode(w);
    let wind = m.wind.ok_or(Reject::Consistency);
    if let Ok(wind) = wind {
        require(wind.speed <= 250, Reject::Range)?;
        bits += 1;
    }
    let t = m.static_air_temperature;
    require(t >= SAT_RANGE.0 && t <= SAT_RANGE.1, Reject::Range)?;
    bits += 2;
    if let Some(p) = m.static_pressure {
        require(p <= 1100, Reject::Range)?;
        bits += 1;
    }
    wind?;
    Ok(bits)
}

fn fit_45(w: u64) -> Result<u16, Reject> {
    use field::bds45::*;
    require(RESERVED.get(w) == 0, Reject::Reserved)?;
    let mut bits = 5 + status_evidence(
        w,
        &[
            TURBULENCE,
            WIND_SHEAR,
            MICROBURST,
            ICING,
            WAKE_VORTEX,
            SAT,
            PRESSURE,
            RADIO_HEIGHT,
        ],
    )?;
    let m = MeteorologicalHazard::decode(w);
    if let Some(t) = m.static_air_temperature {
        require(t >= SAT_RANGE.0 && t <= SAT_RANGE.1, Reject::Range)?;
        bits += 1;
    }
    if let Some(p) = m.static_pressure {
        require(p <= 1100, Reject::Range)?;
        bits += 1;
    }
    if let Some(h) = m.radio_height {
        require(h <= 10_000, Reject::Range)?;
        bits += 3;
    }
    Ok(bits)
}

/// Pressure altitude above every airport (the highest is near 14 500 ft):
/// an aircraft reporting it is airborne.
const AIRBORNE_ALT_FT: f32 = 15_000.0;
/// Least airspeed (and ground speed) of an airborne aircraft there, kt.
const MIN_AIRBORNE_SPEED: u16 = 60;

fn fit_50(w: u64, ctx: &Context) -> Result<Evidence, Reject> {
    use field::bds50::*;
    let mut bits = status_evidence(w, &[ROLL, TRACK, GS, TRACK_RATE, TAS])?;
    let t = TrackAndTurn::decode(w);
    if let Some(roll) = t.roll {
        require(libm::fabsf(roll) <= 50.0, Reject::Range)?;
        bits += 1;
    }
    if let Some(gs) = t.ground_speed {
        require(gs <= 700, Reject::Range)?;
        bits += 2;
    }
    if let Some(tas) = t.true_airspeed {
        require(tas <= 560, Reject::Range)?;
        bits += 2;
    }
    if let (Some(gs), Some(tas)) = (t.ground_speed, t.true_airspeed) {
        // The difference is the wind component along the track.
        require(gs.abs_diff(tas) <= 200, Reject::Consistency)?;
        bits += 1;
    }
    if let (Some(roll), Some(rate), Some(v)) =
        (t.roll, t.track_rate, t.true_airspeed.or(t.ground_speed))
    {
        // Coordinated turn: rate = g·tan(roll)/V = 1091·tan(roll)/V[kt] °/s.
        if v >= 50 {
            let expected = 1091.0 * libm::tanf(roll * (core::f32::consts::PI / 180.0)) / v as f32;
            if libm::fabsf(rate - expected) <= 0.5 + 0.25 * libm::fabsf(expected) {
                bits += 4;
            }
        }
    }
    if ctx.altitude_ft.is_some_and(|a| a >= AIRBORNE_ALT_FT) {
        for v in [t.ground_speed, t.true_airspeed].into_iter().flatten() {
            require(v >= MIN_AIRBORNE_SPEED, Reject::Context)?;
        }
    }
    let mut ctx_bits = 0;
    if let Some(ref_gs) = ctx.ground_speed_kt {
        if let Some(gs) = t.ground_speed {
            require(libm::fabsf(gs as f32 - ref_gs) <= 30.0, Reject::Context)?;
            ctx_bits += 3;
        } else if let Some(tas) = t.true_airspeed {
            require(libm::fabsf(tas as f32 - ref_gs) <= 200.0, Reject::Context)?;
            ctx_bits += 1;
        }
    }
    if let (Some(ref_trk), Some(trk)) = (ctx.track_deg, t.true_track) {
        require(angle_diff(trk, ref_trk) <= 20.0, Reject::Context)?;
        ctx_bits += 3;
    }
    Ok((bits, ctx_bits))
}

/// The ICAO standard atmosphere (Doc 7488) below 20 km, in the units of
/// Mode S (ft, kt), and the subsonic pitot relations.
mod isa {
    const FT: f32 = 0.3048;
    /// Sea-level pressure, Pa.
    const P0: f32 = 101_325.0;
    /// Sea-level temperature, K.
    const T0: f32 = 288.15;
    /// Tropospheric lapse rate, K/m.
    const LAPSE: f32 = 0.0065;
    /// Tropopause: height (m), pressure (Pa), temperature (K).
    const H11: f32 = 11_000.0;
    const P11: f32 = 22_632.06;
    const T11: f32 = 216.65;
    /// g/(L·R) and R·T11/g.
    const EXPONENT: f32 = 5.255_88;
    const SCALE11: f32 = 6_341.62;
    /// Sea-level speed of sound, kt.
    pub const A0_KT: f32 = 661.4786;

    /// Square root of a finite `x` (0 for `x` ≤ 0 or NaN): a bit-level
    /// first guess (3.5 % off) and three Newton steps, exact to within an
    /// ulp or two. Used instead of `libm::sqrtf`, whose x86 inline assembly
    /// Miri cannot run.
    pub fn sqrt(x: f32) -> f32 {
        if x.is_nan() || x <= 0.0 {
            return 0.0;
        }
        if x.is_infinite() {
            return x;
        }
        let mut y = f32::from_bits((x.to_bits() >> 1) + 0x1FBD_1DF5);
        for _ in 0..3 {
            y = 0.5 * (y + x / y);
        }
        y
    }

    /// Static pressure (Pa) at pressure altitude `h` (ft).
    pub fn pressure(h_ft: f32) -> f32 {
        let h = h_ft * FT;
        if h < H11 {
            P0 * libm::powf(1.0 - LAPSE * h / T0, EXPONENT)
        } else {
            P11 * libm::expf(-(h - H11) / SCALE11)
        }
    }

    /// Pressure altitude (ft) of static pressure `p` (Pa).
    pub fn altitude(p: f32) -> f32 {
        let h = if p >= P11 {
            T0 / LAPSE * (1.0 - libm::powf(p / P0, 1.0 / EXPONENT))
        } else {
            H11 + SCALE11 * libm::logf(P11 / p)
        };
        h / FT
    }

    /// Speed of sound (kt) at pressure altitude `h` (ft), ISA temperature.
    pub fn speed_of_sound_kt(h_ft: f32) -> f32 {
        let h = h_ft * FT;
        let t = if h < H11 { T0 - LAPSE * h } else { T11 };
        A0_KT * sqrt(t / T0)
    }

    /// Static pressure (Pa) at −2000 ft and at 55 000 ft: the pressure
    /// altitudes a Mode S aircraft can report.
    pub const P_MAX: f32 = 108_865.7;
    pub const P_MIN: f32 = 9_119.8;

    /// `qc/p = (1 + 0.2 M²)^3.5 − 1` for Mach `m` (x^3.5 = x³·√x).
    fn impact_ratio(m: f32) -> f32 {
        let x = 1.0 + 0.2 * m * m;
        x * x * x * sqrt(x) - 1.0
    }

    /// Impact pressure (Pa) of calibrated airspeed `cas` (kt).
    fn impact_pressure(cas_kt: f32) -> f32 {
        P0 * impact_ratio(cas_kt / A0_KT)
    }

    /// Static pressure (Pa) at which `cas` (kt) corresponds to Mach `m`
    /// (`m` > 0).
    pub fn implied_pressure(cas_kt: f32, m: f32) -> f32 {
        impact_pressure(cas_kt) / impact_ratio(m)
    }

    /// Mach of calibrated airspeed `cas` (kt) at pressure altitude `h` (ft).
    pub fn cas_to_mach(cas_kt: f32, h_ft: f32) -> f32 {
        let r = impact_pressure(cas_kt) / pressure(h_ft);
        sqrt(5.0 * (libm::powf(r + 1.0, 2.0 / 7.0) - 1.0))
    }
}

fn fit_60(w: u64, ctx: &Context) -> Result<Evidence, Reject> {
    use field::bds60::*;
    let mut bits = status_evidence(w, &[HEADING, IAS, MACH, BARO_RATE, INERTIAL_RATE])?;
    let h = HeadingAndSpeed::decode(w);
    if let Some(ias) = h.indicated_airspeed {
        require(ias <= 500, Reject::Range)?;
        bits += 1;
    }
    if let Some(m) = h.mach {
        require(m <= 1.0, Reject::Range)?;
        bits += 2;
    }
    for vr in [h.baro_vertical_rate, h.inertial_vertical_rate]
        .into_iter()
        .flatten()
    {
        require(vr.unsigned_abs() <= 6000, Reject::Range)?;
        bits += 1;
    }
    if let (Some(b), Some(i)) = (h.baro_vertical_rate, h.inertial_vertical_rate) {
        let d = (b as i32 - i as i32).unsigned_abs();
        require(d <= 2500, Reject::Consistency)?;
        bits += if d <= 500 { 4 } else { 1 };
    }
    // Static pressure implied by IAS and Mach together; checked in the
    // pressure domain, converted to an altitude only when needed.
    let mut implied = None;
    if let (Some(ias), Some(m)) = (h.indicated_airspeed, h.mach) {
        if ias >= 60 || m >= 0.1 {
            require(ias > 0 && m > 0.0, Reject::Consistency)?;
            let p = isa::implied_pressure(ias as f32, m);
            require((isa::P_MIN..=isa::P_MAX).contains(&p), Reject::Consistency)?;
            bits += 1;
            implied = Some(p);
        }
    }
    let implied = |ctx_needs: bool| implied.filter(|_| ctx_needs).map(isa::altitude);
    if let (Some(ias), Some(a)) = (h.indicated_airspeed, ctx.altitude_ft) {
        if a >= AIRBORNE_ALT_FT {
            require(ias >= MIN_AIRBORNE_SPEED, Reject::Context)?;
        }
    }
    let mut ctx_bits = 0;
    let need_alt = ctx.altitude_ft.is_some() || ctx.ground_speed_kt.is_some();
    let implied = implied(need_alt);
    if let (Some(ref_alt), Some(alt)) = (ctx.altitude_ft, implied) {
        require(libm::fabsf(alt - ref_alt) <= 2000.0, Reject::Context)?;
        ctx_bits += 4;
    }
    if let Some(ref_gs) = ctx.ground_speed_kt {
        let alt = ctx.altitude_ft.or(implied);
        let mach = match (h.mach, h.indicated_airspeed, alt) {
            (Some(m), _, _) => Some(m),
            (None, Some(ias), Some(a)) => Some(isa::cas_to_mach(ias as f32, a)),
            _ => None,
        };
        if let (Some(m), Some(a)) = (mach, alt) {
            let tas = m * isa::speed_of_sound_kt(a);
            require(libm::fabsf(tas - ref_gs) <= 200.0, Reject::Context)?;
            ctx_bits += 1;
        }
    }
    if let (Some(ref_trk), Some(hdg)) = (ctx.track_deg, h.magnetic_heading) {
        // Magnetic variation plus wind drift.
        require(angle_diff(hdg, ref_trk) <= 60.0, Reject::Context)?;
        ctx_bits += 2;
    }
    if let Some(ref_vr) = ctx.vertical_rate_fpm {
        for vr in [h.baro_vertical_rate, h.inertial_vertical_rate]
            .into_iter()
            .flatten()
        {
            require(libm::fabsf(vr as f32 - ref_vr) <= 1500.0, Reject::Context)?;
            ctx_bits += 2;
        }
    }
    Ok((bits, ctx_bits))
}

#[cfg(test)]
mod test {
    extern crate std;

    use super::*;
    use crate::testing::proptest_config;
    use proptest::prelude::*;
    use std::string::String;
    use std::vec::Vec;

    use crate::testing::hex;

    /// The MB field (bytes 4..11) of a 14-byte DF20/21 message in hex.
    fn mb_of(msg: &str) -> [u8; 7] {
        let b = hex(msg);
        assert_eq!(b.len(), 14, "{msg}");
        b[4..11].try_into().unwrap()
    }

    fn parse_as(msg: &str, bds: Bds) -> Repr {
        let b = mb_of(msg);
        Repr::parse(&Mb::new_checked(&b[..]).unwrap(), bds).unwrap()
    }

    /// DF20 altitude (AC13, message bits 20–32) as context; none for DF21.
    fn own_context(msg: &[u8]) -> Context {
        let altitude_ft = if msg[0] >> 3 == 20 {
            let ac13 = (u16::from(msg[2] & 0x1F) << 8) | u16::from(msg[3]);
            decode_ac13(ac13).map(|a| a as f32)
        } else {
            None
        };
        Context {
            altitude_ft,
            ..Context::default()
        }
    }

    fn infer_hex(msg: &str, ctx: &Context) -> Inference {
        let b = mb_of(msg);
        infer(&Mb::new_checked(&b[..]).unwrap(), ctx).unwrap()
    }

    fn bds_list(inf: &Inference) -> Vec<Bds> {
        inf.candidates().iter().map(|(b, _)| *b).collect()
    }

    fn close(a: Option<f32>, b: f32, tol: f32) -> bool {
        a.is_some_and(|a| (a - b).abs() <= tol)
    }

    // -- view and enums ----------------------------------------------------

    static KLM1017: [u8; 14] = [
        0xA0, 0x00, 0x08, 0x3E, 0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x1D, 0xE0, 0xAA, 0x1C, 0xCF,
    ];

    #[test]
    fn test_deconstruct() {
        let mb = Mb::new_checked(&KLM1017[4..11]).unwrap();
        assert_eq!(mb.header(), 0x20);
        assert_eq!(mb.bits(), 0x20_2CC3_71C3_1DE0);
        // A longer buffer is fine: only the first 7 bytes are read.
        let mb = Mb::new_checked(&KLM1017[4..]).unwrap();
        assert_eq!(mb.bits(), 0x20_2CC3_71C3_1DE0);
    }

    #[test]
    fn test_construct() {
        let mut buf = [0u8; 7];
        let mut mb = Mb::new_checked(&mut buf[..]).unwrap();
        mb.set_bits(0xFF20_2CC3_71C3_1DE0);
        assert_eq!(buf, KLM1017[4..11]);
    }

    #[test]
    fn test_malformed_length() {
        for n in 0..MB_LEN {
            let b = [0x20u8; 7];
            let short = &b[..n];
            let err = Error::Truncated {
                expected: 7,
                got: n,
            };
            assert_eq!(Mb::new_checked(short).unwrap_err(), err);
            let mb = Mb::new_unchecked(short);
            assert_eq!(AircraftIdentification::parse(&mb), Err(err));
            assert_eq!(DataLinkCapability::parse(&mb), Err(err));
            assert_eq!(ResolutionAdvisory::parse(&mb), Err(err));
            assert_eq!(TrackAndTurn::parse(&mb), Err(err));
            assert_eq!(Repr::parse(&mb, Bds::HeadingAndSpeed), Err(err));
            assert_eq!(infer(&mb, &Context::default()), Err(err));
            assert_eq!(
                fit(Bds::TrackAndTurn, &mb, &Context::default()),
                Err(Reject::Truncated)
            );
        }
    }

    #[test]
    fn test_bds_codes() {
        for v in 0..=255u8 {
            assert_eq!(u8::from(Bds::from(v)), v);
        }
        assert_eq!(Bds::from(0x17), Bds::CommonUsageCapability);
        assert_eq!(std::format!("{}", Bds::TrackAndTurn), "BDS 5,0");
        assert_eq!(std::format!("{}", Bds::Unknown(0x5F)), "BDS 5,F");
        assert_eq!(
            Repr::parse(&Mb::new_unchecked(&[0u8; 7]), Bds::Empty),
            Err(Error::Unsupported(Bds::Empty))
        );
    }

    #[test]
    fn test_wrong_header() {
        let mb = Mb::new_unchecked(&KLM1017[4..11]);
        assert_eq!(
            DataLinkCapability::parse(&mb),
            Err(Error::Header {
                expected: 0x10,
                got: 0x20
            })
        );
        assert!(ResolutionAdvisory::parse(&mb).is_err());
    }

    // -- vectors.md §8, parse ----------------------------------------------

    #[test]
    fn test_parse_bds10() {
        let Repr::DataLinkCapability(d) =
            parse_as("A800178D10010080F50000D5893C", Bds::DataLinkCapability)
        else {
            unreachable!()
        };
        assert_eq!(
            d,
            DataLinkCapability {
                continuation: false,
                overlay_command: false,
                acas_operational: true,
                subnetwork_version: 0,
                enhanced_protocol: false,
                specific_services: true,
                uplink_elm: 0,
                downlink_elm: 0,
                identification: true,
                squitter: true,
                surveillance_identifier: true,
                common_usage_gicb: true,
                hybrid_surveillance: false,
                acas_resolution_advisory: true,
                acas_version: 1,
                dte_status: 0,
            }
        );
    }

    #[test]
    fn test_parse_bds17() {
        let Repr::CommonUsageCapability(c) =
            parse_as("A0000638FA81C10000000081A92F", Bds::CommonUsageCapability)
        else {
            unreachable!()
        };
        let regs: Vec<u8> = c.registers().map(u8::from).collect();
        assert_eq!(
            regs,
            [
                0x05, 0x06, 0x07, 0x08, 0x09, 0x20, 0x40, 0x50, 0x51, 0x52, 0x60
            ]
        );
    }

    #[test]
    fn test_parse_bds20() {
        for (msg, callsign) in [
            ("A000083E202CC371C31DE0AA1CCF", "KLM1017"),
            ("A0001993202422F2E37CE038738E", "IBK2873"),
            ("A0001838201584F23468207CDFA5", "EXS2MF"),
        ] {
            let Repr::AircraftIdentification(id) = parse_as(msg, Bds::AircraftIdentification)
            else {
                unreachable!()
            };
            assert_eq!(id.as_str(), callsign, "{msg}");
        }
    }

    #[test]
    fn test_parse_bds40() {
        let Repr::SelectedVerticalIntention(s) = parse_as(
            "A000029C85E42F313000007047D3",
            Bds::SelectedVerticalIntention,
        ) else {
            unreachable!()
        };
        assert_eq!(s.mcp_altitude, Some(3008));
        assert_eq!(s.fms_altitude, Some(3008));
        assert!(close(s.baro_setting, 1020.0, 0.01));
        assert_eq!(s.modes, None);
        assert_eq!(s.target_source, None);

        // Riddle fig. 17.1: raw 1500 ×16 ft, raw 2132 → 1013.2 hPa.
        let Repr::SelectedVerticalIntention(s) = parse_as(
            "A8001EBCAEE57730A80106DE1344",
            Bds::SelectedVerticalIntention,
        ) else {
            unreachable!()
        };
        assert_eq!(s.mcp_altitude, Some(24_000));
        assert_eq!(s.fms_altitude, Some(24_000));
        assert!(close(s.baro_setting, 1013.2, 0.01));
        assert_eq!(s.modes, Some(AutopilotModes::default()));
        assert_eq!(s.target_source, Some(TargetAltitudeSource::McpFcu));
    }

    #[test]
    fn test_parse_bds44() {
        let Repr::MeteorologicalRoutine(m) =
            parse_as("A0001692185BD5CF400000DFC696", Bds::MeteorologicalRoutine)
        else {
            unreachable!()
        };
        assert_eq!(m.figure_of_merit, FigureOfMerit::Ins);
        let wind = m.wind.unwrap();
        assert_eq!(wind.speed, 22);
        assert_eq!(wind.direction, 344.53125);
        assert_eq!(m.static_air_temperature, -48.75);
        assert_eq!(m.static_pressure, None);
        assert_eq!(m.turbulence, None);
        assert_eq!(m.humidity, None);
    }

    #[test]
    fn test_parse_bds45() {
        let Repr::MeteorologicalHazard(m) =
            parse_as("A00004190001FB80000000000000", Bds::MeteorologicalHazard)
        else {
            unreachable!()
        };
        assert_eq!(
            m,
            MeteorologicalHazard {
                static_air_temperature: Some(-4.5),
                ..MeteorologicalHazard::default()
            }
        );
    }

    #[test]
    fn test_parse_bds50() {
        // (message, roll °, track °, GS kt, track rate °/s, TAS kt); exact
        // multiples of the LSBs.
        let rows = [
            (
                "A000139381951536E024D4CCF6B5",
                2.109375,
                114.2578125,
                438,
                0.125,
                424,
            ),
            (
                "A0001691FFD263377FFCE02B2BF9",
                -0.3515625,
                53.61328125,
                442,
                -0.03125,
                448,
            ),
            (
                "A80006ACF9363D3BBF9CE98F1E1D",
                -9.66796875,
                140.2734375,
                476,
                -0.40625,
                466,
            ),
        ];
        for (msg, roll, trk, gs, rate, tas) in rows {
            let Repr::TrackAndTurn(t) = parse_as(msg, Bds::TrackAndTurn) else {
                unreachable!()
            };
            assert_eq!(t.roll.map(f64::from), Some(roll), "{msg}");
            assert_eq!(t.true_track.map(f64::from), Some(trk));
            assert_eq!(t.ground_speed, Some(gs));
            assert_eq!(t.track_rate.map(f64::from), Some(rate));
            assert_eq!(t.true_airspeed, Some(tas));
        }
    }

    #[test]
    fn test_parse_bds60() {
        let rows = [
            (
                "A00004128F39F91A7E27C46ADC21",
                42.71484375,
                252,
                0.42,
                -1920,
                -1920,
            ),
            (
                "A80004AAA74A072BFDEFC1D5CB4F",
                110.390625,
                259,
                0.700,
                -2144,
                -2016,
            ),
        ];
        for (msg, hdg, ias, mach, baro, ins) in rows {
            let Repr::HeadingAndSpeed(h) = parse_as(msg, Bds::HeadingAndSpeed) else {
                unreachable!()
            };
            assert_eq!(h.magnetic_heading.map(f64::from), Some(hdg), "{msg}");
            assert_eq!(h.indicated_airspeed, Some(ias));
            assert!(close(h.mach, mach, 1e-6));
            assert_eq!(h.baro_vertical_rate, Some(baro));
            assert_eq!(h.inertial_vertical_rate, Some(ins));
        }
    }

    #[test]
    fn test_parse_bds30() {
        // No §8 row; synthetic from the Annex 10 layout: RA active (ARA
        // bit 41 = MB bit 9), "not below" complement, threat a Mode A/C
        // target at 25 000 ft (AC13 with Q = 1), range code 21 (2.0 NM),
        // bearing code 16 (90–96°).
        let tida: u64 = 0x1030;
        assert_eq!(decode_ac13(tida as u16), Some(25_000));
        let mut w = field::HEADER.put(0, 0x30);
        w = field::bds30::ARA.put(w, 0x2000);
        w = field::bds30::RAC.put(w, 0b1000);
        w = field::bds30::TTI.put(w, 2);
        w = field::bds30::TIDA.put(w, tida);
        w = field::bds30::TIDR.put(w, 21);
        w = field::bds30::TIDB.put(w, 16);
        let b = &w.to_be_bytes()[1..];
        let ra = ResolutionAdvisory::parse(&Mb::new_unchecked(b)).unwrap();
        assert_eq!(ra.ara, 0x2000);
        assert_eq!(ra.rac, 0b1000);
        assert!(!ra.terminated && !ra.multiple_threats);
        assert_eq!(ra.threat.altitude(), Some(25_000));
        assert!(close(ra.threat.range_nm(), 2.0, 1e-6));
        let inf = infer(&Mb::new_unchecked(b), &Context::default()).unwrap();
        assert_eq!(inf.best(), Some(Bds::ResolutionAdvisory));
        // TTI = 3 is not assigned.
        let w3 = field::bds30::TTI.put(w, 3);
        assert_eq!(
            fit(
                Bds::ResolutionAdvisory,
                &Mb::new_unchecked(&w3.to_be_bytes()[1..]),
                &Context::default()
            ),
            Err(Reject::Reserved)
        );
    }

    // -- vectors.md §8, inference ------------------------------------------

    /// Every §8 row: the registers `infer` returns without context, with
    /// the DF20 altitude as context, and with the meteorological registers
    /// enabled.
    #[test]
    fn test_infer_vectors() {
        use Bds::*;
        #[rustfmt::skip]
        let rows: [(&str, &[Bds], &[Bds]); 15] = [
            ("A800178D10010080F50000D5893C", &[DataLinkCapability], &[DataLinkCapability]),
            // pyModeS also lists 4,5 (severe turbulence, moderate wind
            // shear, light microburst, −63 °C): with the meteorological
            // registers on, the ambiguity is reported.
            ("A0000638FA81C10000000081A92F", &[CommonUsageCapability], &[CommonUsageCapability, MeteorologicalHazard]),
            ("A000083E202CC371C31DE0AA1CCF", &[AircraftIdentification], &[AircraftIdentification]),
            ("A0001993202422F2E37CE038738E", &[AircraftIdentification], &[AircraftIdentification]),
            ("A0001838201584F23468207CDFA5", &[AircraftIdentification], &[AircraftIdentification]),
            ("A000029C85E42F313000007047D3", &[SelectedVerticalIntention], &[SelectedVerticalIntention]),
            ("A8001EBCAEE57730A80106DE1344", &[SelectedVerticalIntention], &[SelectedVerticalIntention]),
            // MRAR/MHR are only tried on request.
            ("A0001692185BD5CF400000DFC696", &[], &[MeteorologicalRoutine]),
            ("A00004190001FB80000000000000", &[], &[MeteorologicalHazard]),
            ("A000139381951536E024D4CCF6B5", &[TrackAndTurn], &[TrackAndTurn]),
            ("A0001691FFD263377FFCE02B2BF9", &[TrackAndTurn], &[TrackAndTurn]),
            ("A80006ACF9363D3BBF9CE98F1E1D", &[TrackAndTurn], &[TrackAndTurn]),
            ("A00004128F39F91A7E27C46ADC21", &[HeadingAndSpeed], &[HeadingAndSpeed]),
            ("A80004AAA74A072BFDEFC1D5CB4F", &[HeadingAndSpeed], &[HeadingAndSpeed]),
            // The Riddle ch. 19 pair, see `test_infer_riddle_pair`.
            ("A0001838E519F33160240142D7FA", &[HeadingAndSpeed], &[HeadingAndSpeed]),
        ];
        for (msg, plain, with_meteo) in rows {
            let msg_bytes = hex(msg);
            let got = bds_list(&infer_hex(msg, &Context::default()));
            assert_eq!(got, plain, "{msg} without context");
            let inf = infer_hex(msg, &own_context(&msg_bytes));
            assert_eq!(bds_list(&inf), plain, "{msg} with its own altitude");
            assert_eq!(inf.best(), plain.first().copied());
            let mut ctx = own_context(&msg_bytes);
            ctx.meteorological = true;
            let inf = infer_hex(msg, &ctx);
            assert_eq!(bds_list(&inf), with_meteo, "{msg} with 4,4/4,5");
            assert_eq!(inf.is_ambiguous(), with_meteo.len() > 1);
        }
    }

    /// vectors.md §8 last row: "5,0 vs 6,0, fit both; needs context"
    /// (Riddle ch. 19, pyModeS). Both replies fit both registers' *bit
    /// pattern* (status bits, reserved bits, single-field ranges): the first
    /// check that fails is a cross-field one. The DF20 reply is 6,0 (as 5,0
    /// its GS 394 kt against TAS 2 kt needs a 392 kt wind; its IAS 249 kt
    /// at Mach 0.788 puts it at FL380, its own altitude); the DF21 reply is
    /// 5,0 (as 6,0 its barometric rate 0 and inertial rate +5344 ft/min
    /// contradict each other). The brief's consistency rules separate them
    /// without context, where the Riddle needed the ADS-B reference (GS
    /// 320 kt, track 250°, 14 000 ft) for the second; that reference
    /// confirms the same answer.
    #[test]
    fn test_infer_riddle_pair() {
        let none = Context::default();
        let df20 = mb_of("A0001838E519F33160240142D7FA");
        let df20 = Mb::new_unchecked(&df20[..]);
        assert_eq!(
            fit(Bds::TrackAndTurn, &df20, &none),
            Err(Reject::Consistency)
        );
        assert!(fit(Bds::HeadingAndSpeed, &df20, &none).is_ok());
        let own = own_context(&hex("A0001838E519F33160240142D7FA"));
        assert_eq!(own.altitude_ft, Some(38_000.0));
        let with_alt = fit(Bds::HeadingAndSpeed, &df20, &own).unwrap();
        assert!(with_alt > fit(Bds::HeadingAndSpeed, &df20, &none).unwrap());
        let Repr::HeadingAndSpeed(h) = Repr::parse(&df20, Bds::HeadingAndSpeed).unwrap() else {
            unreachable!()
        };
        assert_eq!(h.indicated_airspeed, Some(249));
        assert!(close(h.mach, 0.788, 1e-6));

        let df21 = mb_of("A8001EBCFFFB23286004A73F6A5B");
        let df21 = Mb::new_unchecked(&df21[..]);
        assert_eq!(
            fit(Bds::HeadingAndSpeed, &df21, &none),
            Err(Reject::Consistency)
        );
        assert_eq!(infer(&df21, &none).unwrap().best(), Some(Bds::TrackAndTurn));
        let adsb = Context {
            ground_speed_kt: Some(320.0),
            track_deg: Some(250.0),
            altitude_ft: Some(14_000.0),
            ..Context::default()
        };
        assert_eq!(infer(&df21, &adsb).unwrap().best(), Some(Bds::TrackAndTurn));
        let Repr::TrackAndTurn(t) = Repr::parse(&df21, Bds::TrackAndTurn).unwrap() else {
            unreachable!()
        };
        assert_eq!(t.ground_speed, Some(322));
        assert_eq!(t.true_airspeed, Some(334));
        assert!(close(t.true_track, 250.49, 0.01));
    }

    /// A real reply that fits both 5,0 and 6,0 (pyModeS: "BDS50,BDS60"):
    /// as 5,0 roll 15.3°, GS 198 kt, TAS 232 kt; as 6,0 IAS 219 kt at Mach
    /// 0.396, which implies 9 880 ft. Reported ambiguous without context,
    /// never silently resolved; the DF20 altitude (9 950 ft) confirms the
    /// 6,0 reading and separates it, while the 5,0 reading stays listed.
    #[test]
    fn test_infer_ambiguous_until_context() {
        let msg = "A00006B68AF9B718E3C474A87B83";
        let inf = infer_hex(msg, &Context::default());
        assert!(inf.is_ambiguous());
        assert_eq!(inf.best(), None);
        assert_eq!(
            bds_list(&inf),
            [Bds::HeadingAndSpeed, Bds::TrackAndTurn],
            "{inf:?}"
        );
        let own = own_context(&hex(msg));
        assert_eq!(own.altitude_ft, Some(9950.0));
        let inf = infer_hex(msg, &own);
        assert!(!inf.is_ambiguous());
        assert_eq!(inf.best(), Some(Bds::HeadingAndSpeed), "{inf:?}");
        assert!(inf.contains(Bds::TrackAndTurn));
        // A reference altitude 5 000 ft off contradicts the 6,0 reading
        // and leaves 5,0.
        let far = Context {
            altitude_ft: Some(15_000.0),
            ..Context::default()
        };
        assert_eq!(bds_list(&infer_hex(msg, &far)), [Bds::TrackAndTurn]);
    }

    #[test]
    fn test_infer_empty() {
        let inf = infer(&Mb::new_unchecked(&[0u8; 7]), &Context::default()).unwrap();
        assert_eq!(inf.best(), Some(Bds::Empty));
        let mb = Mb::new_unchecked(&[0u8; 7]);
        assert_eq!(
            fit(Bds::TrackAndTurn, &mb, &Context::default()),
            Err(Reject::Empty)
        );
        assert_eq!(
            fit(Bds::Unknown(0x51), &mb, &Context::default()),
            Err(Reject::Unsupported)
        );
    }

    /// The standard atmosphere helpers against independently computed
    /// values (ISA tables, Doc 7488).
    #[test]
    fn test_isa() {
        assert!((isa::pressure(-2000.0) - isa::P_MAX).abs() < 1.0);
        assert!((isa::pressure(55_000.0) - isa::P_MIN).abs() < 1.0);
        // 36 089 ft: tropopause, 22 632 Pa; FL100: 69 682 Pa.
        assert!((isa::pressure(36_089.24) - 22_632.06).abs() < 2.0);
        assert!((isa::pressure(10_000.0) - 69_681.7).abs() < 5.0);
        for h in [
            -1000.0f32, 0.0, 5000.0, 20_000.0, 36_000.0, 41_000.0, 50_000.0,
        ] {
            assert!((isa::altitude(isa::pressure(h)) - h).abs() < 2.0, "{h}");
        }
        assert!((isa::speed_of_sound_kt(0.0) - 661.48).abs() < 0.01);
        assert!((isa::speed_of_sound_kt(40_000.0) - 573.57).abs() < 0.05);
        // The Riddle's DF20 example: IAS 249 kt at Mach 0.788 is FL380.
        let alt = isa::altitude(isa::implied_pressure(249.0, 0.788));
        assert!((alt - 38_086.0).abs() < 30.0, "{alt}");
        assert!((isa::cas_to_mach(249.0, 38_086.0) - 0.788).abs() < 1e-3);
        for x in [1e-30f32, 1e-6, 0.5, 1.0, 2.0, 1.2345, 99.0, 4.0e5, 3.0e38] {
            let r = isa::sqrt(x);
            let back = r as f64 * r as f64;
            assert!((back - x as f64).abs() <= x as f64 * 5e-7, "{x}");
        }
        assert_eq!(isa::sqrt(0.0), 0.0);
        assert_eq!(isa::sqrt(-1.0), 0.0);
        assert_eq!(isa::sqrt(f32::NAN), 0.0);
        // At sea level CAS = TAS: Mach = CAS / a0.
        assert!((isa::cas_to_mach(300.0, 0.0) - 300.0 / 661.4786).abs() < 1e-4);
    }

    // -- emit and round trips ----------------------------------------------

    /// Every §8 row re-emits to its own MB bits.
    #[test]
    fn test_emit() {
        let rows = [
            ("A800178D10010080F50000D5893C", Bds::DataLinkCapability),
            ("A0000638FA81C10000000081A92F", Bds::CommonUsageCapability),
            ("A000083E202CC371C31DE0AA1CCF", Bds::AircraftIdentification),
            ("A0001993202422F2E37CE038738E", Bds::AircraftIdentification),
            ("A0001838201584F23468207CDFA5", Bds::AircraftIdentification),
            (
                "A000029C85E42F313000007047D3",
                Bds::SelectedVerticalIntention,
            ),
            (
                "A8001EBCAEE57730A80106DE1344",
                Bds::SelectedVerticalIntention,
            ),
            ("A0001692185BD5CF400000DFC696", Bds::MeteorologicalRoutine),
            ("A00004190001FB80000000000000", Bds::MeteorologicalHazard),
            ("A000139381951536E024D4CCF6B5", Bds::TrackAndTurn),
            ("A0001691FFD263377FFCE02B2BF9", Bds::TrackAndTurn),
            ("A80006ACF9363D3BBF9CE98F1E1D", Bds::TrackAndTurn),
            ("A00004128F39F91A7E27C46ADC21", Bds::HeadingAndSpeed),
            ("A80004AAA74A072BFDEFC1D5CB4F", Bds::HeadingAndSpeed),
            ("A0001838E519F33160240142D7FA", Bds::HeadingAndSpeed),
            ("A8001EBCFFFB23286004A73F6A5B", Bds::TrackAndTurn),
        ];
        for (msg, bds) in rows {
            let repr = parse_as(msg, bds);
            assert_eq!(repr.bds(), bds);
            assert_eq!(repr.buffer_len(), MB_LEN);
            let mut out = [0u8; 7];
            repr.emit(&mut Mb::new_unchecked(&mut out[..]));
            assert_eq!(out, mb_of(msg), "{msg}");
        }
    }

    #[test]
    fn test_emit_saturates() {
        let t = TrackAndTurn {
            roll: Some(120.0),
            true_track: Some(-90.0),
            ground_speed: Some(5000),
            track_rate: Some(f32::NAN),
            true_airspeed: Some(3),
        };
        let mut out = [0u8; 7];
        t.emit(&mut Mb::new_unchecked(&mut out[..]));
        let back = TrackAndTurn::parse(&Mb::new_unchecked(&out[..])).unwrap();
        assert_eq!(back.roll, Some(511.0 * 45.0 / 256.0));
        assert_eq!(back.true_track, Some(270.0));
        assert_eq!(back.ground_speed, Some(2046));
        assert_eq!(back.track_rate, Some(0.0));
        assert_eq!(back.true_airspeed, Some(4));

        let h = HeadingAndSpeed {
            magnetic_heading: Some(720.5),
            indicated_airspeed: Some(2000),
            mach: Some(-1.0),
            baro_vertical_rate: Some(i16::MIN),
            inertial_vertical_rate: Some(i16::MAX),
        };
        h.emit(&mut Mb::new_unchecked(&mut out[..]));
        let back = HeadingAndSpeed::parse(&Mb::new_unchecked(&out[..])).unwrap();
        assert!(close(back.magnetic_heading, 0.5, 0.1));
        assert_eq!(back.indicated_airspeed, Some(1023));
        assert_eq!(back.mach, Some(0.0));
        assert_eq!(back.baro_vertical_rate, Some(-16384));
        assert_eq!(back.inertial_vertical_rate, Some(16352));

        let s = SelectedVerticalIntention {
            mcp_altitude: Some(u16::MAX),
            fms_altitude: Some(35_000),
            baro_setting: Some(500.0),
            ..SelectedVerticalIntention::default()
        };
        s.emit(&mut Mb::new_unchecked(&mut out[..]));
        let back = SelectedVerticalIntention::parse(&Mb::new_unchecked(&out[..])).unwrap();
        assert_eq!(back.mcp_altitude, Some(65_520));
        assert_eq!(back.fms_altitude, Some(35_008));
        assert_eq!(back.baro_setting, Some(800.0));

        let id = AircraftIdentification::new("N3550U").unwrap();
        id.emit(&mut Mb::new_unchecked(&mut out[..]));
        assert_eq!(
            AircraftIdentification::parse(&Mb::new_unchecked(&out[..]))
                .unwrap()
                .as_str(),
            "N3550U"
        );
        assert_eq!(
            AircraftIdentification::new("ABCDEFGHI"),
            Err(Error::InvalidCharacter(b'I'))
        );
    }

    /// Zero what `emit(parse(·))` cannot reproduce: reserved bits, fields
    /// whose status bit is 0, TID bits the TTI leaves undefined, and
    /// unassigned callsign codes (they decode to `#`, which emits as 0).
    fn canonical(bds: Bds, w: u64) -> u64 {
        let gated = |w: u64, fields: &[Gated]| {
            fields
                .iter()
                .fold(w, |w, g| if g.valid(w) { w } else { w & !g.mask() })
        };
        match bds {
            Bds::DataLinkCapability => field::bds10::RESERVED.put(field::HEADER.put(w, 0x10), 0),
            Bds::CommonUsageCapability => field::bds17::RESERVED.put(w, 0),
            Bds::AircraftIdentification => (0..8).fold(field::HEADER.put(w, 0x20), |w, i| {
                let c = field::bds20::char(i);
                if CHARSET[c.get(w) as usize] == b'#' {
                    c.put(w, 0)
                } else {
                    w
                }
            }),
            Bds::ResolutionAdvisory => {
                use field::bds30::*;
                let w = field::HEADER.put(w, 0x30);
                match TTI.get(w) {
                    0 => TID.put(w, 0),
                    1 => TID_ADDRESS_PAD.put(w, 0),
                    _ => w,
                }
            }
            Bds::SelectedVerticalIntention => {
                use field::bds40::*;
                let w = RESERVED_B.put(RESERVED_A.put(w, 0), 0);
                gated(w, &[MCP, FMS, BARO, MODES, SOURCE])
            }
            Bds::MeteorologicalRoutine => {
                use field::bds44::*;
                gated(w, &[WIND, PRESSURE, TURBULENCE, HUMIDITY])
            }
            Bds::MeteorologicalHazard => {
                use field::bds45::*;
                let w = RESERVED.put(w, 0);
                gated(
                    w,
                    &[
                        TURBULENCE,
                        WIND_SHEAR,
                        MICROBURST,
                        ICING,
                        WAKE_VORTEX,
                        SAT,
                        PRESSURE,
                        RADIO_HEIGHT,
                    ],
                )
            }
            Bds::TrackAndTurn => {
                use field::bds50::*;
                gated(w, &[ROLL, TRACK, GS, TRACK_RATE, TAS])
            }
            Bds::HeadingAndSpeed => {
                use field::bds60::*;
                gated(w, &[HEADING, IAS, MACH, BARO_RATE, INERTIAL_RATE])
            }
            Bds::Empty | Bds::Unknown(_) => w,
        }
    }

    const SUPPORTED: [Bds; 9] = [
        Bds::DataLinkCapability,
        Bds::CommonUsageCapability,
        Bds::AircraftIdentification,
        Bds::ResolutionAdvisory,
        Bds::SelectedVerticalIntention,
        Bds::MeteorologicalRoutine,
        Bds::MeteorologicalHazard,
        Bds::TrackAndTurn,
        Bds::HeadingAndSpeed,
    ];

    fn opt<T: core::fmt::Debug>(s: impl Strategy<Value = T>) -> impl Strategy<Value = Option<T>> {
        proptest::option::of(s)
    }

    fn emit_parse(repr: &Repr) -> Repr {
        let mut out = [0u8; 7];
        repr.emit(&mut Mb::new_unchecked(&mut out[..]));
        Repr::parse(&Mb::new_unchecked(&out[..]), repr.bds()).unwrap()
    }

    proptest! {
        #![proptest_config(proptest_config())]

        /// `emit(parse(mb)) == mb` for every register, over random fields.
        #[test]
        fn prop_bits_round_trip(raw in any::<u64>(), which in 0usize..9) {
            let bds = SUPPORTED[which];
            let w = canonical(bds, raw & ((1 << 56) - 1));
            let b = &w.to_be_bytes()[1..];
            let repr = Repr::parse(&Mb::new_unchecked(b), bds).unwrap();
            let mut out = [0u8; 7];
            repr.emit(&mut Mb::new_unchecked(&mut out[..]));
            prop_assert_eq!(&out[..], b, "{}", bds);
        }

        /// `parse(emit(repr)) == repr` for random valid EHS values.
        #[test]
        fn prop_repr_round_trip_ehs(
            roll in opt(-512i32..512), trk in opt(0u32..2048), gs in opt(0u16..1024),
            rate in opt(-512i32..512), tas in opt(0u16..1024),
            hdg in opt(0u32..2048), ias in opt(0u16..1024), mach in opt(0u32..1024),
            baro in opt(-512i16..512), ins in opt(-512i16..512),
            mcp in opt(0u16..4096), fms in opt(0u16..4096), qnh in opt(0u32..4096),
            modes in opt(any::<(bool, bool, bool)>()), src in opt(0u8..4),
        ) {
            let t = Repr::TrackAndTurn(TrackAndTurn {
                roll: roll.map(|r| r as f32 * ROLL_LSB),
                true_track: trk.map(|t| t as f32 * ANGLE11_LSB),
                ground_speed: gs.map(|g| g * 2),
                track_rate: rate.map(|r| r as f32 * TRACK_RATE_LSB),
                true_airspeed: tas.map(|t| t * 2),
            });
            prop_assert_eq!(emit_parse(&t), t);
            let h = Repr::HeadingAndSpeed(HeadingAndSpeed {
                magnetic_heading: hdg.map(|h| h as f32 * ANGLE11_LSB),
                indicated_airspeed: ias,
                mach: mach.map(|m| m as f32 * MACH_LSB),
                baro_vertical_rate: baro.map(|b| b * 32),
                inertial_vertical_rate: ins.map(|i| i * 32),
            });
            prop_assert_eq!(emit_parse(&h), h);
            let s = Repr::SelectedVerticalIntention(SelectedVerticalIntention {
                mcp_altitude: mcp.map(|a| a * 16),
                fms_altitude: fms.map(|a| a * 16),
                baro_setting: qnh.map(|q| 800.0 + q as f32 * 0.1),
                modes: modes.map(|(vnav, alt_hold, approach)| AutopilotModes { vnav, alt_hold, approach }),
                target_source: src.map(TargetAltitudeSource::from),
            });
            prop_assert_eq!(emit_parse(&s), s);
        }

        /// `parse(emit(repr)) == repr` for callsigns, capabilities, RAs and
        /// the meteorological reports.
        #[test]
        fn prop_repr_round_trip_other(
            callsign in "[A-Z][A-Z0-9]{0,7}",
            dlc in any::<(u64, u16)>(),
            mask in 0u32..(1 << 24),
            ara in 0u16..(1 << 14), rac in 0u8..16, rat in any::<bool>(), mte in any::<bool>(),
            tti in 0u8..4, tid in 0u32..(1 << 26),
            fom in 0u8..16, wind in opt((0u16..512, 0u32..512)), sat44 in -1024i32..1024,
            p44 in opt(0u16..2048), turb in opt(0u8..4), hum in opt(0u8..64),
            hz in proptest::array::uniform5(opt(0u8..4)), sat45 in opt(-512i32..512),
            p45 in opt(0u16..2048), rh in opt(0u16..4096),
        ) {
            let id = Repr::AircraftIdentification(AircraftIdentification::new(&callsign).unwrap());
            prop_assert_eq!(emit_parse(&id), id);
            let Repr::AircraftIdentification(back) = emit_parse(&id) else { unreachable!() };
            prop_assert_eq!(back.as_str(), callsign.as_str());

            // Any DataLinkCapability built from in-range fields.
            let (f, dte) = dlc;
            let bit = |n: u32| (f >> n) & 1 != 0;
            let d = Repr::DataLinkCapability(DataLinkCapability {
                continuation: bit(0), overlay_command: bit(1), acas_operational: bit(2),
                subnetwork_version: (f >> 8) as u8 & 0x7F, enhanced_protocol: bit(3),
                specific_services: bit(4), uplink_elm: (f >> 16) as u8 & 7,
                downlink_elm: (f >> 20) as u8 & 15, identification: bit(5), squitter: bit(6),
                surveillance_identifier: bit(7), common_usage_gicb: bit(24),
                hybrid_surveillance: bit(25), acas_resolution_advisory: bit(26),
                acas_version: (f >> 28) as u8 & 3, dte_status: dte,
            });
            prop_assert_eq!(emit_parse(&d), d);

            let c = Repr::CommonUsageCapability(CommonUsageCapability { mask });
            prop_assert_eq!(emit_parse(&c), c);

            let threat = match tti {
                0 => ThreatIdentity::None,
                1 => ThreatIdentity::Address(tid >> 2),
                2 => ThreatIdentity::Position {
                    altitude_code: (tid >> 13) as u16,
                    range: (tid >> 6) as u8 & 0x7F,
                    bearing: tid as u8 & 0x3F,
                },
                _ => ThreatIdentity::Reserved(tid),
            };
            let r = Repr::ResolutionAdvisory(ResolutionAdvisory {
                ara, rac, terminated: rat, multiple_threats: mte, threat,
            });
            prop_assert_eq!(emit_parse(&r), r);

            let m = Repr::MeteorologicalRoutine(MeteorologicalRoutine {
                figure_of_merit: FigureOfMerit::from(fom),
                wind: wind.map(|(speed, dir)| Wind { speed, direction: dir as f32 * WIND_DIR_LSB }),
                static_air_temperature: sat44 as f32 * SAT_LSB,
                static_pressure: p44,
                turbulence: turb.map(Hazard::from),
                humidity: hum.map(|h| h as f32 * HUMIDITY_LSB),
            });
            prop_assert_eq!(emit_parse(&m), m);

            let hz = hz.map(|h| h.map(Hazard::from));
            let mh = Repr::MeteorologicalHazard(MeteorologicalHazard {
                turbulence: hz[0], wind_shear: hz[1], microburst: hz[2], icing: hz[3],
                wake_vortex: hz[4],
                static_air_temperature: sat45.map(|t| t as f32 * SAT_LSB),
                static_pressure: p45,
                radio_height: rh.map(|r| r * 16),
            });
            prop_assert_eq!(emit_parse(&mh), mh);
        }

        /// Inference never panics, every candidate passes `fit` with the
        /// score reported, and the ambiguity flag matches the list.
        #[test]
        fn prop_infer_total(
            raw in any::<[u8; 7]>(),
            gs in opt(0.0f32..800.0), trk in opt(-720.0f32..720.0),
            alt in opt(-2000.0f32..60_000.0), vr in opt(-8000.0f32..8000.0),
            meteorological in any::<bool>(),
        ) {
            let ctx = Context {
                ground_speed_kt: gs, track_deg: trk, altitude_ft: alt,
                vertical_rate_fpm: vr, meteorological,
            };
            let mb = Mb::new_unchecked(&raw[..]);
            let inf = infer(&mb, &ctx).unwrap();
            for &(bds, score) in inf.candidates() {
                prop_assert_eq!(fit(bds, &mb, &ctx), Ok(score));
                prop_assert!(Repr::parse(&mb, bds).is_ok() || bds == Bds::Empty);
            }
            prop_assert!(inf.candidates().windows(2).all(|p| p[0].1 >= p[1].1));
            prop_assert_eq!(inf.is_ambiguous(), inf.best().is_none() && !inf.is_empty());
            if inf.candidates().len() == 1 {
                prop_assert_eq!(inf.best(), Some(inf.candidates()[0].0));
            }
            // Supplying context never adds a candidate.
            let plain = infer(&mb, &Context { meteorological, ..Context::default() }).unwrap();
            for &(bds, _) in inf.candidates() {
                prop_assert!(plain.contains(bds));
            }
        }
    }

    // -- pyModeS golden decodes and the 10 000-reply corpus ----------------

    /// A JSON value, as much of JSON as `pymodes_golden.json` uses.
    #[derive(Debug, Clone, PartialEq)]
    enum Json {
        Str(String),
        Num(f64),
        Obj(Vec<(String, Json)>),
        Other,
    }

    /// A minimal recursive-descent JSON reader (core has no serde).
    struct JsonReader<'a> {
        s: &'a [u8],
        i: usize,
    }

    impl JsonReader<'_> {
        fn ws(&mut self) {
            while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
        }
        fn eat(&mut self, c: u8) {
            self.ws();
            assert_eq!(self.s[self.i], c, "JSON at {}", self.i);
            self.i += 1;
        }
        fn string(&mut self) -> String {
            self.eat(b'"');
            let mut out = String::new();
            while self.s[self.i] != b'"' {
                if self.s[self.i] == b'\\' {
                    self.i += 1;
                }
                out.push(self.s[self.i] as char);
                self.i += 1;
            }
            self.i += 1;
            out
        }
        fn value(&mut self) -> Json {
            self.ws();
            match self.s[self.i] {
                b'"' => Json::Str(self.string()),
                b'{' => {
                    self.i += 1;
                    let mut fields = Vec::new();
                    self.ws();
                    if self.s[self.i] == b'}' {
                        self.i += 1;
                        return Json::Obj(fields);
                    }
                    loop {
                        let k = self.string();
                        self.eat(b':');
                        fields.push((k, self.value()));
                        self.ws();
                        self.i += 1;
                        if self.s[self.i - 1] == b'}' {
                            return Json::Obj(fields);
                        }
                    }
                }
                b'-' | b'0'..=b'9' => {
                    let start = self.i;
                    while self.i < self.s.len() && b"+-.eE0123456789".contains(&self.s[self.i]) {
                        self.i += 1;
                    }
                    let t = core::str::from_utf8(&self.s[start..self.i]).unwrap();
                    Json::Num(t.parse().unwrap())
                }
                _ => {
                    // true / false / null
                    while self.i < self.s.len() && self.s[self.i].is_ascii_alphabetic() {
                        self.i += 1;
                    }
                    Json::Other
                }
            }
        }
    }

    fn data_file(name: &str) -> Option<String> {
        crate::testing::shared_text(&std::format!("adsb/{name}"))
    }

    /// pyModeS's "BDS50,BDS60" as register numbers.
    fn pymodes_set(s: &str) -> Vec<Bds> {
        let mut v: Vec<Bds> = s
            .split(',')
            .map(|t| Bds::from(u8::from_str_radix(t.trim_start_matches("BDS"), 16).unwrap()))
            .collect();
        v.sort();
        v
    }

    /// Compare every DF20/21 entry of `pymodes_golden.json` (pyModeS
    /// `infer` plus its field decoders) with ours, with the DF20 altitude
    /// as context as pyModeS uses it.
    ///
    /// Result on the 400 DF20/21 entries: 371 identical register sets —
    /// 7 of them pyModeS's "BDS50,BDS60": 3 we also flag ambiguous, 4 we
    /// list the same but name a best one because its IAS/Mach reproduce the
    /// DF20 altitude (pyModeS's `infer` without a reference leaves them
    /// open) — and two disagreement categories:
    /// - **we resolve, pyModeS lists two** (12) — pyModeS's list minus a
    ///   reading our extra rules reject. 9 are DF21 replies pyModeS gives as
    ///   "BDS50,BDS60" whose 6,0 reading fails a cross-field rule pyModeS
    ///   does not apply without an altitude: baro and inertial rates
    ///   5 000+ ft/min apart (e.g. `A800142A8019A928BFF4A9CFD079`: −64 vs
    ///   +5408), or IAS/Mach implying an impossible altitude
    ///   (`A800179C80FB251F202C85785F58`: IAS 402 kt at Mach 0.496 means
    ///   −12 600 ft); their 5,0 readings are coherent (GS ≈ TAS, roll
    ///   matching the track rate). 3 are DF20 replies at FL330+ carrying a
    ///   lone MCP altitude (`C0780000000000`: 33 008 ft), whose 6,0 reading
    ///   (heading 181°, IAS 0 kt) the context rejects. The rejected register
    ///   must fail with [`Reject::Consistency`] or [`Reject::Context`].
    /// - **4,5 only in pyModeS** (17) — pyModeS's list adds the
    ///   meteorological hazard report (with 4,0, 1,7 or 6,0); our default
    ///   inference leaves 4,4 and 4,5 out (opt-in, as pyModeS v3 does), so
    ///   the other registers must match exactly.
    ///
    /// A third category, **we stay ambiguous where pyModeS picks one**
    /// (pyModeS's pick among our candidates), would be accepted but does not
    /// occur. The one reply pyModeS fits to nothing we fit to nothing.
    /// Field values agree exactly wherever both name one register.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_golden_pymodes() {
        let Some(text) = data_file("pymodes_golden.json") else {
            return;
        };
        let Json::Obj(entries) = (JsonReader {
            s: text.as_bytes(),
            i: 0,
        })
        .value() else {
            panic!("golden file is not an object")
        };
        let (mut total, mut same, mut subset, mut meteo_only, mut ours_ambiguous) = (0, 0, 0, 0, 0);
        let (mut fields_checked, mut both_ambiguous, mut separated) = (0, 0, 0);
        for (msg, entry) in &entries {
            let Json::Obj(fields) = entry else {
                panic!("{msg}: not an object")
            };
            let bytes = hex(msg);
            let df = bytes[0] >> 3;
            if df != 20 && df != 21 {
                continue;
            }
            total += 1;
            let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
            let num = |k: &str| match get(k) {
                Some(Json::Num(n)) => Some(n as f32),
                _ => None,
            };
            let theirs = match get("bds") {
                Some(Json::Str(s)) => pymodes_set(&s),
                _ => Vec::new(),
            };
            let ctx = own_context(&bytes);
            let mb = Mb::new_unchecked(&bytes[4..11]);
            let inf = infer(&mb, &ctx).unwrap();
            let mut ours = bds_list(&inf);
            ours.sort();
            let without_meteo: Vec<Bds> = theirs
                .iter()
                .copied()
                .filter(|b| !matches!(b, Bds::MeteorologicalHazard | Bds::MeteorologicalRoutine))
                .collect();
            if ours == theirs {
                same += 1;
                if inf.is_ambiguous() {
                    both_ambiguous += 1;
                } else if ours.len() > 1 {
                    separated += 1;
                }
            } else if ours == without_meteo {
                meteo_only += 1;
            } else if !ours.is_empty() && ours.iter().all(|b| without_meteo.contains(b)) {
                subset += 1;
                for &b in without_meteo.iter().filter(|b| !ours.contains(b)) {
                    let why = fit(b, &mb, &ctx);
                    std::eprintln!("{msg}: pyModeS {theirs:?}, we reject {b}: {why:?}");
                    assert!(
                        matches!(why, Err(Reject::Consistency | Reject::Context)),
                        "{msg}"
                    );
                }
            } else if theirs.len() == 1 && ours.contains(&theirs[0]) {
                ours_ambiguous += 1;
            } else {
                panic!("{msg}: ours {ours:?} ({inf:?}), pyModeS {theirs:?}");
            }
            // Field values, where both name exactly one register.
            let (Some(best), [single]) = (inf.best(), theirs.as_slice()) else {
                continue;
            };
            if best != *single {
                continue;
            }
            match Repr::parse(&mb, best).unwrap() {
                Repr::TrackAndTurn(t) => {
                    assert_eq!(t.roll, num("roll"), "{msg}");
                    assert_eq!(t.true_track, num("true_track"), "{msg}");
                    assert_eq!(t.ground_speed.map(f32::from), num("groundspeed"));
                    assert_eq!(t.track_rate, num("track_rate"), "{msg}");
                    assert_eq!(t.true_airspeed.map(f32::from), num("true_airspeed"));
                }
                Repr::HeadingAndSpeed(h) => {
                    assert_eq!(h.magnetic_heading, num("magnetic_heading"), "{msg}");
                    assert_eq!(
                        h.indicated_airspeed.map(f32::from),
                        num("indicated_airspeed")
                    );
                    let (a, b) = (h.mach, num("mach"));
                    assert!(a.zip(b).is_some_and(|(a, b)| (a - b).abs() < 1e-5) || a == b);
                    assert_eq!(
                        h.baro_vertical_rate.map(f32::from),
                        num("baro_vertical_rate")
                    );
                    assert_eq!(
                        h.inertial_vertical_rate.map(f32::from),
                        num("inertial_vertical_rate")
                    );
                }
                Repr::SelectedVerticalIntention(s) => {
                    assert_eq!(s.mcp_altitude.map(f32::from), num("selected_altitude_mcp"));
                    assert_eq!(s.fms_altitude.map(f32::from), num("selected_altitude_fms"));
                    let (a, b) = (s.baro_setting, num("baro_pressure_setting"));
                    assert!(a.zip(b).is_some_and(|(a, b)| (a - b).abs() < 0.01) || a == b);
                }
                Repr::AircraftIdentification(id) => {
                    let Some(Json::Str(cs)) = get("callsign") else {
                        panic!("{msg}: no callsign")
                    };
                    assert_eq!(id.as_str(), cs.replace('_', " ").trim_end(), "{msg}");
                }
                _ => {}
            }
            fields_checked += 1;
        }
        std::eprintln!(
            "golden DF20/21: {total} replies; same set {same} (both ambiguous \
             {both_ambiguous}, separated by the DF20 altitude {separated}), we resolve pyModeS's ambiguity {subset}, differ only by \
             4,5 {meteo_only}, we stay ambiguous {ours_ambiguous}; field values compared \
             on {fields_checked}"
        );
        assert_eq!(total, 400);
        assert!(same >= total * 90 / 100, "agreement {same}/{total}");
        assert!(subset <= total * 5 / 100 && ours_ambiguous <= total * 2 / 100);
        assert!(meteo_only <= 20);
        assert!(fields_checked >= 350);
    }

    /// Inference over all 10 000 replies of `pymodes_commb_df20.csv` and
    /// `pymodes_commb_df21.csv` (`unix_ts,ICAO,HEX`, UTF-8 BOM): it never
    /// panics, and the distribution of outcomes is printed and bounded.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_corpus_distribution() {
        use std::collections::BTreeMap;
        for (name, df) in [
            ("pymodes_commb_df20.csv", 20u8),
            ("pymodes_commb_df21.csv", 21),
        ] {
            let Some(text) = data_file(name) else {
                return;
            };
            let text = text.trim_start_matches('\u{feff}');
            let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
            let (mut n, mut none, mut ambiguous, mut resolved_by_context) = (0, 0, 0, 0);
            let mut meteo_extra = 0;
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let hexstr = line.trim().rsplit(',').next().unwrap();
                let bytes = hex(hexstr);
                assert_eq!(bytes.len(), 14, "{line}");
                assert_eq!(bytes[0] >> 3, df, "{line}");
                n += 1;
                let mb = Mb::new_checked(&bytes[4..11]).unwrap();
                let ctx = own_context(&bytes);
                let inf = infer(&mb, &ctx).unwrap();
                let plain = infer(&mb, &Context::default()).unwrap();
                if plain.is_ambiguous() && !inf.is_ambiguous() {
                    resolved_by_context += 1;
                }
                let key = if inf.is_empty() {
                    none += 1;
                    String::from("none")
                } else if let Some(b) = inf.best() {
                    let others = inf.candidates().len() - 1;
                    if others > 0 {
                        std::format!("{b} (+{others} separated)")
                    } else {
                        std::format!("{b}")
                    }
                } else {
                    ambiguous += 1;
                    let mut names: Vec<String> = inf
                        .candidates()
                        .iter()
                        .map(|(b, _)| std::format!("{b}"))
                        .collect();
                    names.sort();
                    std::format!("ambiguous {}", names.join(" | "))
                };
                *outcomes.entry(key).or_default() += 1;
                let meteo = Context {
                    meteorological: true,
                    ..ctx
                };
                if infer(&mb, &meteo).unwrap().candidates().len() > inf.candidates().len() {
                    meteo_extra += 1;
                }
                // Every candidate decodes.
                for &(bds, _) in inf.candidates() {
                    if bds != Bds::Empty {
                        Repr::parse(&mb, bds).unwrap();
                    }
                }
            }
            std::eprintln!("{name}: {n} replies");
            for (k, v) in &outcomes {
                std::eprintln!("  {v:5}  {k}");
            }
            std::eprintln!(
                "  none {none}, ambiguous {ambiguous}, resolved only by the DF20 altitude \
                 {resolved_by_context}, gaining a 4,4/4,5 candidate if enabled {meteo_extra}"
            );
            assert_eq!(n, 5000);
            // Most replies get exactly one register; an EHS-heavy corpus
            // leaves few unexplained and few ambiguous.
            assert!(none * 100 <= n, "{none} of {n} fit no register");
            assert!(ambiguous * 20 <= n, "{ambiguous} of {n} ambiguous");
        }
    }
}
