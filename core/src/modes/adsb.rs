//! ADS-B extended squitter: the ME field of DF17/DF18 frames.
//!
//! The ME ("message, extended squitter") field is the 56 bits (7 bytes)
//! that follow the ICAO address in a DF17/DF18 frame, i.e. frame bytes
//! `4..11`. Bits are numbered as in the specifications: ME bit *n*
//! (1-based, most significant first) is message bit *n* + 32. The first five
//! bits are the type code (TC), which selects the layout of the other 51:
//!
//! | TC | content | BDS | [`AdsbRepr`] variant |
//! |---|---|---|---|
//! | 1–4 | identification and emitter category | 0,8 | [`Identification`](AdsbRepr::Identification) |
//! | 5–8 | surface position | 0,6 | [`SurfacePosition`](AdsbRepr::SurfacePosition) |
//! | 9–18 | airborne position, barometric altitude | 0,5 | [`AirbornePosition`](AdsbRepr::AirbornePosition) |
//! | 19 | airborne velocity, subtypes 1–4 | 0,9 | [`AirborneVelocity`](AdsbRepr::AirborneVelocity) |
//! | 20–22 | airborne position, GNSS height | 0,5 | [`AirbornePosition`](AdsbRepr::AirbornePosition) |
//! | 28 | aircraft status, subtypes 1–2 | 6,1 | [`AircraftStatus`](AdsbRepr::AircraftStatus) |
//! | 29 | target state and status, subtypes 0–1 | 6,2 | [`TargetState`](AdsbRepr::TargetState) |
//! | 31 | operational status, subtypes 0–1 | 6,5 | [`OperationalStatus`](AdsbRepr::OperationalStatus) |
//! | 0, 23–27, 30, other subtypes | kept verbatim | | [`Unknown`](AdsbRepr::Unknown) |
//!
//! As in smoltcp there are two layers:
//!
//! - [`Me`] is a typed view over the 7 bytes with one getter (and setter)
//!   per field, named after the field, reading raw codes.
//! - [`AdsbRepr`] is the parsed content: [`AdsbRepr::parse`] dispatches on
//!   TC and subtype, and [`AdsbRepr::emit`] writes it back. The structs
//!   store the transmitted codes (so nothing but reserved bits is lost: a
//!   parse→emit round trip reproduces every defined bit) and offer methods
//!   that turn codes into physical values (ft, kt, ft/min, degrees, hPa),
//!   returning `None` where the code means "not available".
//!
//! Parsing reads the 7 bytes into one `u64` and extracts each field with a
//! shift and a mask; it never allocates and never panics, and no input
//! makes it fail except a buffer shorter than 7 bytes.
//!
//! ```
//! use airwaves_core::modes::adsb::AdsbRepr;
//! // ME of 8D4840D6202CC371C32CE0576098 (The 1090 MHz Riddle, §3.5).
//! let me = [0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x2C, 0xE0];
//! let AdsbRepr::Identification(id) = AdsbRepr::parse(&me)? else { panic!() };
//! assert_eq!(id.callsign_str(), "KLM1023");
//! let mut out = [0u8; 7];
//! AdsbRepr::Identification(id).emit(&mut out);
//! assert_eq!(out, me);
//! # Ok::<(), airwaves_core::modes::adsb::ParseError>(())
//! ```
//!
//! # Sources
//!
//! Layouts and scalings follow RTCA DO-260B / ICAO Doc 9871 as described in
//! *The 1090 MHz Riddle* (Junzi Sun, 2nd ed.), chapters "Aircraft
//! identification", "Airborne position", "Surface position", "Airborne
//! velocity", "Operational status" and "Uncertainties", checked against the
//! published vectors in `shared/data/adsb/vectors.md`. Written from those
//! descriptions; no GPL code was consulted or copied.
//!
//! # Two points where sources disagree
//!
//! - **Vertical-rate source (ME bit 36)**: 0 = GNSS (geometric), 1 =
//!   barometric, as in DO-260B, the Riddle, pyModeS and dump1090-fa. rs1090
//!   and adsb_deku label it the other way round in their output; that is
//!   not followed here.
//! - **GNSS height (TC 20–22)**: DO-260 defines the altitude subfield once,
//!   for barometric altitude and GNSS height alike, and dump1090-fa and
//!   rs1090 decode both with the 12-bit altitude code (25 ft steps when
//!   Q = 1). The Riddle ("the decimal value of all 12 bits translates into
//!   the height of aircraft in meters") and pyModeS instead read the 12
//!   bits as an unsigned height in metres. [`AirbornePosition::altitude_ft`]
//!   follows DO-260/dump1090-fa; the raw code is kept in
//!   [`AirbornePosition::altitude_code`] for callers who need the other
//!   reading. No vector in the collection has TC 20–22.

use core::fmt;

use super::field56::{self, bytes_of, word_of};

/// Length of the ME field in bytes (56 bits).
pub const ME_LEN: usize = field56::LEN;

/// Field positions: first ME bit (1-based) and width in bits.
mod field {
    pub(crate) use crate::modes::field56::Bits as Field;

    // Common to all messages.
    pub const TC: Field = Field::new(1, 5);
    pub const ST: Field = Field::new(6, 3);

    // TC 1–4: identification. CA shares the subtype bits; the characters
    // are in `charset`.

    // TC 5–8: surface position.
    pub const MOVEMENT: Field = Field::new(6, 7);
    pub const TRACK_STATUS: Field = Field::new(13, 1);
    pub const TRACK: Field = Field::new(14, 7);

    // TC 9–18, 20–22: airborne position.
    pub const SS: Field = Field::new(6, 2);
    pub const NIC_B: Field = Field::new(8, 1);
    pub const ALT: Field = Field::new(9, 12);

    // Both position kinds.
    pub const T: Field = Field::new(21, 1);
    pub const F: Field = Field::new(22, 1);
    pub const LAT: Field = Field::new(23, 17);
    pub const LON: Field = Field::new(40, 17);

    // TC 19: airborne velocity.
    pub const IC: Field = Field::new(9, 1);
    pub const IFR: Field = Field::new(10, 1);
    pub const NAC_V: Field = Field::new(11, 3);
    pub const EW_DIR: Field = Field::new(14, 1);
    pub const EW: Field = Field::new(15, 10);
    pub const NS_DIR: Field = Field::new(25, 1);
    pub const NS: Field = Field::new(26, 10);
    pub const HDG_STATUS: Field = Field::new(14, 1);
    pub const HDG: Field = Field::new(15, 10);
    pub const AS_TYPE: Field = Field::new(25, 1);
    pub const AS: Field = Field::new(26, 10);
    pub const VR_SRC: Field = Field::new(36, 1);
    pub const VR_SIGN: Field = Field::new(37, 1);
    pub const VR: Field = Field::new(38, 9);
    pub const DIF_SIGN: Field = Field::new(49, 1);
    pub const DIF: Field = Field::new(50, 7);

    // TC 28: aircraft status.
    pub const EMERGENCY: Field = Field::new(9, 3);
    pub const MODE_A: Field = Field::new(12, 13);
    pub const ARA: Field = Field::new(9, 14);
    pub const RAC: Field = Field::new(23, 4);
    pub const RAT: Field = Field::new(27, 1);
    pub const MTE: Field = Field::new(28, 1);
    pub const TTI: Field = Field::new(29, 2);
    pub const TID: Field = Field::new(31, 26);

    // TC 29: target state and status.
    pub const TSS_ST: Field = Field::new(6, 2);
    pub const TSS_V1: Field = Field::new(8, 49);
    pub const TSS_SIL_SUPP: Field = Field::new(8, 1);
    pub const TSS_ALT_TYPE: Field = Field::new(9, 1);
    pub const TSS_ALT: Field = Field::new(10, 11);
    pub const TSS_BARO: Field = Field::new(21, 9);
    pub const TSS_HDG_STATUS: Field = Field::new(30, 1);
    pub const TSS_HDG: Field = Field::new(31, 9);
    pub const TSS_NAC_P: Field = Field::new(40, 4);
    pub const TSS_NIC_BARO: Field = Field::new(44, 1);
    pub const TSS_SIL: Field = Field::new(45, 2);
    pub const TSS_MODE_STATUS: Field = Field::new(47, 1);
    pub const TSS_AUTOPILOT: Field = Field::new(48, 1);
    pub const TSS_VNAV: Field = Field::new(49, 1);
    pub const TSS_ALT_HOLD: Field = Field::new(50, 1);
    pub const TSS_APPROACH: Field = Field::new(52, 1);
    pub const TSS_TCAS: Field = Field::new(53, 1);
    pub const TSS_LNAV: Field = Field::new(54, 1);

    // TC 31: operational status.
    pub const OPS_CC: Field = Field::new(9, 16);
    pub const OPS_CC_SURFACE: Field = Field::new(9, 12);
    pub const OPS_LW: Field = Field::new(21, 4);
    pub const OPS_OM: Field = Field::new(25, 16);
    pub const OPS_VERSION: Field = Field::new(41, 3);
    pub const OPS_NIC_A: Field = Field::new(44, 1);
    pub const OPS_NAC_P: Field = Field::new(45, 4);
    pub const OPS_GVA: Field = Field::new(49, 2);
    pub const OPS_SIL: Field = Field::new(51, 2);
    pub const OPS_NIC_BARO: Field = Field::new(53, 1);
    pub const OPS_HRD: Field = Field::new(54, 1);
    pub const OPS_SIL_SUPP: Field = Field::new(55, 1);
}

use field::Field;

/// Extract a field from the 56-bit ME word (ME bit 1 = word bit 55).
#[inline(always)]
const fn get(word: u64, f: Field) -> u64 {
    f.get(word)
}

/// Insert a field into the 56-bit ME word; bits of `value` beyond the
/// field's width are dropped.
#[inline(always)]
fn put(word: &mut u64, f: Field, value: u64) {
    *word = f.put(*word, value);
}

/// Error from [`AdsbRepr::parse`] and [`Me::new_checked`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ParseError {
    /// The buffer is shorter than the 7-byte ME field.
    Truncated {
        /// Bytes needed ([`ME_LEN`]).
        expected: usize,
        /// Bytes given.
        got: usize,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Truncated { expected, got } => {
                write!(f, "ME field truncated: need {expected} bytes, got {got}")
            }
        }
    }
}

impl core::error::Error for ParseError {}

#[cold]
#[inline(never)]
fn short_buffer(got: usize) -> ! {
    panic!("ME buffer too short: need {ME_LEN} bytes, got {got}")
}

mod identification;
mod position;
mod status;
mod velocity;
mod view;

pub use identification::{CHARSET, Callsign, Category, CategorySet, Identification};
pub use position::{
    AirbornePosition, AltitudeSource, CprFormat, CprPosition, Movement, SurfacePosition,
    SurveillanceStatus, nic_v2, nuc_p, rc_v2,
};
pub use status::{
    AcasRa, AircraftStatus, CapabilityClass, EmergencyState, EmergencyStatus, OperationalStatus,
    TargetState, TargetStateV2,
};
pub use velocity::{
    AirVelocity, AirborneVelocity, AirspeedType, AltitudeDifference, GroundVelocity, Velocity,
    VerticalRate, VerticalRateSource,
};
pub use view::{Me, MeKind};

// ---------------------------------------------------------------------------
// Repr
// ---------------------------------------------------------------------------

/// Parsed content of an ME field.
///
/// Each variant holds only what its layout defines; reserved bits are not
/// kept (they are emitted as 0). Type codes and subtypes without a decoder
/// here are kept whole in [`AdsbRepr::Unknown`], never dropped.
///
/// ```
/// use airwaves_core::modes::adsb::AdsbRepr;
/// // ME of 8D485020994409940838175B284F (Riddle ch. 7).
/// let me = [0x99, 0x44, 0x09, 0x94, 0x08, 0x38, 0x17];
/// let AdsbRepr::AirborneVelocity(v) = AdsbRepr::parse(&me)? else { panic!() };
/// assert_eq!(v.vertical_rate.fpm(), Some(-832));
/// assert!((v.ground_speed_kt().unwrap() - 159.20).abs() < 0.01);
/// assert_eq!(AdsbRepr::AirborneVelocity(v).to_bytes(), me);
/// # Ok::<(), airwaves_core::modes::adsb::ParseError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AdsbRepr {
    /// TC 1–4: identification and emitter category (BDS 0,8).
    Identification(Identification),
    /// TC 5–8: surface position (BDS 0,6).
    SurfacePosition(SurfacePosition),
    /// TC 9–18 and 20–22: airborne position (BDS 0,5).
    AirbornePosition(AirbornePosition),
    /// TC 19, subtypes 1–4: airborne velocity (BDS 0,9).
    AirborneVelocity(AirborneVelocity),
    /// TC 28, subtypes 1–2: aircraft status (BDS 6,1).
    AircraftStatus(AircraftStatus),
    /// TC 29, subtypes 0–1: target state and status (BDS 6,2).
    TargetState(TargetState),
    /// TC 31, subtypes 0–1: aircraft operational status (BDS 6,5).
    OperationalStatus(OperationalStatus),
    /// Any other type code or subtype, kept verbatim.
    Unknown {
        /// The type code (ME bits 1–5); [`emit`](AdsbRepr::emit) writes
        /// it over the first five bits of `bytes`.
        tc: u8,
        /// The whole ME field.
        bytes: [u8; ME_LEN],
    },
}

impl AdsbRepr {
    /// Parse an ME field: the first [`ME_LEN`] bytes of `me` (further bytes
    /// are ignored). Fails only if `me` is shorter than 7 bytes.
    pub fn parse(me: &[u8]) -> Result<AdsbRepr, ParseError> {
        match me.first_chunk::<ME_LEN>() {
            Some(b) => Ok(AdsbRepr::from_bytes(b)),
            None => Err(ParseError::Truncated {
                expected: ME_LEN,
                got: me.len(),
            }),
        }
    }

    /// Parse an ME field given as an array; cannot fail.
    ///
    /// ```
    /// use airwaves_core::modes::adsb::AdsbRepr;
    /// let repr = AdsbRepr::from_bytes(&[0xC8, 0, 0, 0, 0, 0, 0]);
    /// assert_eq!(repr.type_code(), 25);
    /// assert!(matches!(repr, AdsbRepr::Unknown { tc: 25, .. }));
    /// ```
    pub fn from_bytes(me: &[u8; ME_LEN]) -> AdsbRepr {
        AdsbRepr::from_word(word_of(me))
    }

    fn from_word(w: u64) -> AdsbRepr {
        let tc = get(w, field::TC) as u8;
        let st = get(w, field::ST) as u8;
        let parsed = match tc {
            1..=4 => Some(AdsbRepr::Identification(Identification::from_word(w))),
            5..=8 => Some(AdsbRepr::SurfacePosition(SurfacePosition::from_word(w))),
            9..=18 | 20..=22 => Some(AdsbRepr::AirbornePosition(AirbornePosition::from_word(w))),
            19 => AirborneVelocity::from_word(w).map(AdsbRepr::AirborneVelocity),
            28 => AircraftStatus::from_word(w, st).map(AdsbRepr::AircraftStatus),
            29 => TargetState::from_word(w).map(AdsbRepr::TargetState),
            31 => OperationalStatus::from_word(w, st).map(AdsbRepr::OperationalStatus),
            _ => None,
        };
        parsed.unwrap_or_else(|| AdsbRepr::Unknown {
            tc,
            bytes: bytes_of(w),
        })
    }

    /// Bytes needed by [`emit`](AdsbRepr::emit): always [`ME_LEN`].
    pub const fn buffer_len(&self) -> usize {
        ME_LEN
    }

    /// The type code this content is sent with.
    pub fn type_code(&self) -> u8 {
        match self {
            AdsbRepr::Identification(id) => id.category.type_code(),
            AdsbRepr::SurfacePosition(p) => p.type_code(),
            AdsbRepr::AirbornePosition(p) => p.type_code(),
            AdsbRepr::AirborneVelocity(_) => 19,
            AdsbRepr::AircraftStatus(_) => 28,
            AdsbRepr::TargetState(_) => 29,
            AdsbRepr::OperationalStatus(_) => 31,
            AdsbRepr::Unknown { tc, .. } => *tc & 0x1F,
        }
    }

    /// The 7 ME bytes of this content. Reserved bits are 0; fields wider
    /// than their bit width keep only their low bits.
    pub fn to_bytes(&self) -> [u8; ME_LEN] {
        let mut w = match self {
            AdsbRepr::Identification(id) => id.to_word(),
            AdsbRepr::SurfacePosition(p) => p.to_word(),
            AdsbRepr::AirbornePosition(p) => p.to_word(),
            AdsbRepr::AirborneVelocity(v) => v.to_word(),
            AdsbRepr::AircraftStatus(s) => s.to_word(),
            AdsbRepr::TargetState(t) => t.to_word(),
            AdsbRepr::OperationalStatus(o) => o.to_word(),
            AdsbRepr::Unknown { bytes, .. } => word_of(bytes),
        };
        put(&mut w, field::TC, self.type_code() as u64);
        bytes_of(w)
    }

    /// Write the ME field into the first [`ME_LEN`] bytes of `me`.
    ///
    /// # Panics
    ///
    /// If `me` is shorter than [`ME_LEN`] bytes.
    pub fn emit(&self, me: &mut [u8]) {
        match me.first_chunk_mut::<ME_LEN>() {
            Some(out) => *out = self.to_bytes(),
            None => short_buffer(me.len()),
        }
    }
}

#[cfg(test)]
mod tests;
