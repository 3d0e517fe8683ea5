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
//! with [`check_len`](Field56::check_len)): the 56-bit view
//! [`Field56`] that ADS-B's ME field shares. Every register type
//! implements [`Register`], one shape for all nine: `decode`/`encode`
//! between the 56 bits and the value, `check` for inference, and from
//! them `parse` (decode knowing the register; lenient: only a fixed header
//! is checked) and `emit` (encode; out-of-range values saturate, angles
//! wrap), which each type also offers as inherent methods. [`Repr`] wraps
//! them all. For every register `emit(parse(mb)) == mb` whenever `mb`'s reserved
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
//!
//! # Layout
//!
//! One file per register or pair of related registers (`capability`: 1,0
//! and 1,7; `identification`: 2,0; `advisory`: 3,0; `intention`: 4,0;
//! `meteo`: 4,4 and 4,5; `track`: 5,0; `heading`: 6,0), each with its
//! value types, its codec and its inference checks; `field` holds the bit
//! layouts, `quantise` the emit-side rounding, `infer` and `isa` the
//! inference. The register list itself is written once, in [`Repr`].

use core::fmt;

use crate::macros::enum_with_unknown;
use crate::modes::field56::{self, Field56};

mod advisory;
mod capability;
mod field;
mod heading;
mod identification;
mod infer;
mod intention;
mod isa;
mod meteo;
mod quantise;
mod track;

pub use advisory::{ResolutionAdvisory, ThreatIdentity};
pub use capability::{CommonUsageCapability, DataLinkCapability, GICB_REGISTERS};
pub use heading::HeadingAndSpeed;
pub use identification::AircraftIdentification;
pub use infer::{
    Context, Evidence, Inference, MAX_CANDIDATES, Reject, SEPARATION_BITS, Score, fit, infer,
};
pub use intention::{AutopilotModes, SelectedVerticalIntention, TargetAltitudeSource};
pub use meteo::{FigureOfMerit, Hazard, MeteorologicalHazard, MeteorologicalRoutine, Wind};
pub use track::TrackAndTurn;

/// Length of the MB field in bytes (56 bits).
pub const MB_LEN: usize = field56::LEN;

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

/// The MB kind of [`Field56`]: names the view `Mb` and reports a short
/// buffer as [`Error::Truncated`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MbKind {}

impl field56::Kind for MbKind {
    const NAME: &'static str = "Mb";
    type Error = Error;
    fn truncated(got: usize) -> Error {
        Error::Truncated {
            expected: MB_LEN,
            got,
        }
    }
}

/// A typed view over the 7-byte MB field of a DF20/DF21 reply: the shared
/// 56-bit view [`Field56`] read as Comm-B.
///
/// Bytes beyond the 7th are ignored. After
/// [`check_len`](Field56::check_len) (or
/// [`new_checked`](Field56::new_checked)) succeeds, no accessor panics.
pub type Mb<T> = Field56<T, MbKind>;

impl<T: AsRef<[u8]>> Mb<T> {
    /// The 56 MB bits as a big-endian integer (MB bit 1 is bit 55); the
    /// same as [`word`](Field56::word).
    ///
    /// # Panics
    ///
    /// If the buffer is shorter than [`MB_LEN`] (never after `check_len`).
    #[inline]
    pub fn bits(&self) -> u64 {
        self.word()
    }

    /// The first byte: the register number for BDS 1,0, 2,0 and 3,0.
    ///
    /// # Panics
    ///
    /// If the buffer is empty (never after `check_len`).
    #[inline]
    pub fn header(&self) -> u8 {
        self.first_byte()
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
        self.set_word(bits);
    }
}

enum_with_unknown! {
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
    pub enum Bds(u8) {
        /// 0,0: an all-zero MB field (the transponder had nothing to report).
        Empty = 0x00,
        /// 1,0: data link capability report.
        DataLinkCapability = 0x10,
        /// 1,7: common usage GICB capability report.
        CommonUsageCapability = 0x17,
        /// 2,0: aircraft identification.
        AircraftIdentification = 0x20,
        /// 3,0: ACAS active resolution advisory.
        ResolutionAdvisory = 0x30,
        /// 4,0: selected vertical intention.
        SelectedVerticalIntention = 0x40,
        /// 4,4: meteorological routine air report.
        MeteorologicalRoutine = 0x44,
        /// 4,5: meteorological hazard report.
        MeteorologicalHazard = 0x45,
        /// 5,0: track and turn report.
        TrackAndTurn = 0x50,
        /// 6,0: heading and speed report.
        HeadingAndSpeed = 0x60,
        ;
        /// Any other register, by number `0xXY`.
        Unknown(u8),
    }
}

impl fmt::Display for Bds {
    /// `BDS X,Y`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = u8::from(*self);
        write!(f, "BDS {:X},{:X}", v >> 4, v & 0xF)
    }
}

/// One Comm-B register: its number, its 56-bit layout both ways, and the
/// checks by which [`infer`] decides whether an MB field can be it.
///
/// A register implements `decode`, `encode` and `check`; `parse` and
/// `emit` follow from them, the same for all. Each register type also has
/// inherent `parse` and `emit` that call these, so callers need not import
/// the trait.
///
/// ```
/// use airwaves_core::modes::commb::{Bds, Mb, Register, TrackAndTurn};
/// fn decode<R: Register>(mb: &[u8; 7]) -> Option<R> {
///     R::parse(&Mb::new_unchecked(mb)).ok()
/// }
/// let t: TrackAndTurn = decode(&[0x81, 0x95, 0x15, 0x36, 0xE0, 0x24, 0xD4]).unwrap();
/// assert_eq!(t.ground_speed, Some(438));
/// assert_eq!(TrackAndTurn::BDS, Bds::TrackAndTurn);
/// ```
pub trait Register: Sized {
    /// The register number.
    const BDS: Bds;

    /// The first byte of a self-identifying register (1,0, 2,0 and 3,0
    /// start with their own number); `None` for the others.
    const HEADER: Option<u8> = None;

    /// Decode the 56 MB bits (as from [`Mb::bits`]); cannot fail, and does
    /// not check the header.
    fn decode(bits: u64) -> Self;

    /// Encode to the 56 MB bits, header included; out-of-range values
    /// saturate, angles wrap.
    fn encode(&self) -> u64;

    /// How well the register explains `bits` (not all zero): the checks of
    /// [`fit`] for this register, header included, in the order of
    /// [`Reject`], against the caller's [`Context`].
    fn check(bits: u64, ctx: &Context) -> Result<Evidence, Reject>;

    /// Decode `mb` as this register: fails only if `mb` is shorter than
    /// [`MB_LEN`] or (1,0, 2,0, 3,0) its first byte is not [`Self::HEADER`].
    fn parse<T: AsRef<[u8]>>(mb: &Mb<T>) -> Result<Self, Error> {
        mb.check_len()?;
        let bits = mb.bits();
        if let Some(expected) = Self::HEADER {
            let got = field::HEADER.get(bits) as u8;
            if got != expected {
                return Err(Error::Header { expected, got });
            }
        }
        Ok(Self::decode(bits))
    }

    /// Encode into `mb`.
    ///
    /// # Panics
    ///
    /// If `mb` is shorter than [`MB_LEN`] (never after `check_len`).
    fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, mb: &mut Mb<T>) {
        mb.set_bits(self.encode());
    }
}

/// Inherent `parse` and `emit` of a register type, calling [`Register`]:
/// `$parse_doc` documents `parse`, `$emit_doc` documents `emit` (its
/// `# Panics` section is added).
macro_rules! inherent_codec {
    (
        $name:ident;
        $(#[$parse_doc:meta])* parse;
        $(#[$emit_doc:meta])* emit;
    ) => {
        impl $name {
            $(#[$parse_doc])*
            pub fn parse<T: AsRef<[u8]>>(
                mb: &$crate::modes::commb::Mb<T>,
            ) -> Result<Self, $crate::modes::commb::Error> {
                <Self as $crate::modes::commb::Register>::parse(mb)
            }

            $(#[$emit_doc])*
            ///
            /// # Panics
            ///
            /// If `mb` is shorter than [`MB_LEN`](crate::modes::commb::MB_LEN)
            /// (never after `check_len`).
            pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
                &self,
                mb: &mut $crate::modes::commb::Mb<T>,
            ) {
                <Self as $crate::modes::commb::Register>::emit(self, mb)
            }
        }
    };
}
use inherent_codec;

/// Declares [`Repr`] and its dispatch from one list of the supported
/// registers, each named alike as [`Bds`] variant, type and `Repr` variant.
macro_rules! registers {
    ($( $(#[$doc:meta])* $name:ident, )+) => {
        /// A decoded Comm-B register of any supported kind.
        #[derive(Debug, Clone, Copy, PartialEq)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        pub enum Repr {
            $( $(#[$doc])* $name($name), )+
        }

        $(
            impl From<$name> for Repr {
                fn from(r: $name) -> Repr {
                    Repr::$name(r)
                }
            }
        )+

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
                match bds {
                    $( Bds::$name => <$name as Register>::parse(mb).map(Repr::$name), )+
                    Bds::Empty | Bds::Unknown(_) => Err(Error::Unsupported(bds)),
                }
            }

            /// The register this value belongs to.
            pub fn bds(&self) -> Bds {
                match self {
                    $( Repr::$name(_) => $name::BDS, )+
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
                    $( Repr::$name(r) => Register::emit(r, mb), )+
                }
            }
        }

        /// [`Register::check`] of register `bds`; [`Reject::Unsupported`]
        /// for [`Bds::Empty`] and [`Bds::Unknown`].
        fn check(bds: Bds, bits: u64, ctx: &Context) -> Result<Evidence, Reject> {
            match bds {
                $( Bds::$name => $name::check(bits, ctx), )+
                Bds::Empty | Bds::Unknown(_) => Err(Reject::Unsupported),
            }
        }
    };
}

registers! {
    /// BDS 1,0.
    DataLinkCapability,
    /// BDS 1,7.
    CommonUsageCapability,
    /// BDS 2,0.
    AircraftIdentification,
    /// BDS 3,0.
    ResolutionAdvisory,
    /// BDS 4,0.
    SelectedVerticalIntention,
    /// BDS 4,4.
    MeteorologicalRoutine,
    /// BDS 4,5.
    MeteorologicalHazard,
    /// BDS 5,0.
    TrackAndTurn,
    /// BDS 6,0.
    HeadingAndSpeed,
}

#[cfg(test)]
mod tests;
