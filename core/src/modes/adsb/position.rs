//! TC 5–8 surface and TC 9–18, 20–22 airborne positions (BDS 0,6 / 0,5).

use super::{field, get, put};
use crate::macros::enum_with_unknown;
use crate::modes::altitude::decode_ac12;

/// CPR format flag (ME bit 22).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CprFormat {
    /// F = 0.
    Even,
    /// F = 1.
    Odd,
}

impl CprFormat {
    /// True for [`CprFormat::Odd`].
    pub const fn is_odd(self) -> bool {
        matches!(self, CprFormat::Odd)
    }
}

impl From<bool> for CprFormat {
    /// `true` (F = 1) is odd.
    fn from(odd: bool) -> CprFormat {
        if odd { CprFormat::Odd } else { CprFormat::Even }
    }
}

/// Raw CPR-encoded position (ME bits 22–56), as used by both position
/// messages. Decoding to latitude/longitude needs a second message or a
/// reference position; see [`cpr`](crate::modes::cpr).
///
/// ```
/// use airwaves_core::modes::adsb::{CprFormat, CprPosition};
/// let p = CprPosition { format: CprFormat::Even, lat: 93000, lon: 51372 };
/// assert_eq!(p.lat_fraction(), 93000.0 / 131072.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CprPosition {
    /// Even or odd encoding (ME bit 22).
    pub format: CprFormat,
    /// Encoded latitude, 17 bits (ME bits 23–39), 0..131072.
    pub lat: u32,
    /// Encoded longitude, 17 bits (ME bits 40–56), 0..131072.
    pub lon: u32,
}

impl CprPosition {
    pub(super) fn from_word(w: u64) -> CprPosition {
        CprPosition {
            format: CprFormat::from(get(w, field::F) != 0),
            lat: get(w, field::LAT) as u32,
            lon: get(w, field::LON) as u32,
        }
    }

    fn put(&self, w: &mut u64) {
        put(w, field::F, self.format.is_odd() as u64);
        put(w, field::LAT, self.lat as u64);
        put(w, field::LON, self.lon as u64);
    }

    /// Latitude as a fraction of its zone, `lat / 2^17`.
    pub fn lat_fraction(&self) -> f64 {
        (self.lat & 0x1_FFFF) as f64 / 131_072.0
    }

    /// Longitude as a fraction of its zone, `lon / 2^17`.
    pub fn lon_fraction(&self) -> f64 {
        (self.lon & 0x1_FFFF) as f64 / 131_072.0
    }
}

/// Surface movement code (ME bits 6–12 of TC 5–8): quantised ground speed.
///
/// The DO-260B table (Riddle ch. "Surface position"):
///
/// | code | ground speed | step |
/// |---|---|---|
/// | 0 | not available | |
/// | 1 | stopped (< 0.125 kt) | |
/// | 2–8 | 0.125 ≤ v < 1 kt | 0.125 kt |
/// | 9–12 | 1 ≤ v < 2 kt | 0.25 kt |
/// | 13–38 | 2 ≤ v < 15 kt | 0.5 kt |
/// | 39–93 | 15 ≤ v < 70 kt | 1 kt |
/// | 94–108 | 70 ≤ v < 100 kt | 2 kt |
/// | 109–123 | 100 ≤ v < 175 kt | 5 kt |
/// | 124 | v ≥ 175 kt | |
/// | 125–127 | reserved | |
///
/// [`speed_kt`](Movement::speed_kt) returns the lower edge of the code's
/// bin (what pyModeS and rs1090 report).
///
/// ```
/// use airwaves_core::modes::adsb::Movement;
/// assert_eq!(Movement::from(41).speed_kt(), Some(17.0));
/// assert_eq!(Movement::from(0).speed_kt(), None);
/// assert_eq!(Movement::from_kt(17.4), Movement::from(41));
/// assert_eq!(u8::from(Movement::from(124)), 124);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Movement(u8);

impl From<u8> for Movement {
    /// The code's low 7 bits.
    fn from(code: u8) -> Movement {
        Movement(code & 0x7F)
    }
}

impl From<Movement> for u8 {
    fn from(m: Movement) -> u8 {
        m.0
    }
}

impl Movement {
    /// The 7-bit code.
    pub const fn code(self) -> u8 {
        self.0
    }

    /// Ground speed in knots (lower edge of the bin): `Some(0.0)` when
    /// stopped, `Some(175.0)` for "175 kt or more", `None` for "not
    /// available" (0) and the reserved codes 125–127.
    pub fn speed_kt(self) -> Option<f32> {
        let c = self.0 as f32;
        Some(match self.0 {
            1 => 0.0,
            2..=8 => (c - 1.0) * 0.125,
            9..=12 => 1.0 + (c - 9.0) * 0.25,
            13..=38 => 2.0 + (c - 13.0) * 0.5,
            39..=93 => c - 24.0,
            94..=108 => 70.0 + (c - 94.0) * 2.0,
            109..=123 => 100.0 + (c - 109.0) * 5.0,
            124 => 175.0,
            _ => return None,
        })
    }

    /// True for code 1 (stopped).
    pub const fn is_stopped(self) -> bool {
        self.0 == 1
    }

    /// The code whose bin holds `kt`; NaN or negative give code 0 (not
    /// available).
    pub fn from_kt(kt: f32) -> Movement {
        // `as u8` truncates toward zero and saturates; arguments are ≥ 0.
        Movement(if kt.is_nan() || kt < 0.0 {
            0
        } else if kt < 0.125 {
            1
        } else if kt < 1.0 {
            1 + (kt * 8.0) as u8
        } else if kt < 2.0 {
            9 + ((kt - 1.0) * 4.0) as u8
        } else if kt < 15.0 {
            13 + ((kt - 2.0) * 2.0) as u8
        } else if kt < 70.0 {
            39 + (kt - 15.0) as u8
        } else if kt < 100.0 {
            94 + ((kt - 70.0) * 0.5) as u8
        } else if kt < 175.0 {
            109 + ((kt - 100.0) * 0.2) as u8
        } else {
            124
        })
    }
}

/// Surface position, TC 5–8 (BDS 0,6).
///
/// | ME bits | field |
/// |---|---|
/// | 1–5 | TC (5–8: NUCp 9–6 / NIC) |
/// | 6–12 | movement ([`Movement`]) |
/// | 13 | ground-track status (1 = valid) |
/// | 14–20 | ground track, 360/128° per unit, true north |
/// | 21 | T, UTC synchronised |
/// | 22 | F, CPR format |
/// | 23–39 / 40–56 | CPR latitude / longitude |
///
/// ```
/// use airwaves_core::modes::adsb::{CprFormat, CprPosition, Movement, SurfacePosition};
/// let mut p = SurfacePosition::new(7, CprPosition { format: CprFormat::Odd, lat: 39195, lon: 110320 }).unwrap();
/// p.movement = Movement::from(41);
/// (p.track_valid, p.track) = (true, 33);
/// assert_eq!(p.track_deg(), Some(92.8125));
/// assert!(SurfacePosition::new(9, p.cpr).is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SurfacePosition {
    tc: u8,
    /// Quantised ground speed.
    pub movement: Movement,
    /// Ground-track status: the track is valid.
    pub track_valid: bool,
    /// Ground track code, 7 bits, 360/128° units.
    pub track: u8,
    /// T flag: time of applicability synchronised to UTC.
    pub utc_sync: bool,
    /// CPR-encoded position.
    pub cpr: CprPosition,
}

impl SurfacePosition {
    /// A surface position with type code `tc` (5–8), movement "not
    /// available", invalid track and T = 0; `None` if `tc` is out of range.
    pub const fn new(tc: u8, cpr: CprPosition) -> Option<SurfacePosition> {
        if tc >= 5 && tc <= 8 {
            Some(SurfacePosition {
                tc,
                movement: Movement(0),
                track_valid: false,
                track: 0,
                utc_sync: false,
                cpr,
            })
        } else {
            None
        }
    }

    pub(super) fn from_word(w: u64) -> SurfacePosition {
        SurfacePosition {
            tc: get(w, field::TC) as u8,
            movement: Movement(get(w, field::MOVEMENT) as u8),
            track_valid: get(w, field::TRACK_STATUS) != 0,
            track: get(w, field::TRACK) as u8,
            utc_sync: get(w, field::T) != 0,
            cpr: CprPosition::from_word(w),
        }
    }

    pub(super) fn to_word(self) -> u64 {
        let mut w = 0;
        put(&mut w, field::MOVEMENT, self.movement.0 as u64);
        put(&mut w, field::TRACK_STATUS, self.track_valid as u64);
        put(&mut w, field::TRACK, self.track as u64);
        put(&mut w, field::T, self.utc_sync as u64);
        self.cpr.put(&mut w);
        w
    }

    /// The type code, 5–8.
    pub const fn type_code(&self) -> u8 {
        self.tc
    }

    /// Ground speed in knots, see [`Movement::speed_kt`].
    pub fn speed_kt(&self) -> Option<f32> {
        self.movement.speed_kt()
    }

    /// Ground track in degrees from true north, `track · 360/128`, if valid.
    pub fn track_deg(&self) -> Option<f32> {
        self.track_valid
            .then_some((self.track & 0x7F) as f32 * (360.0 / 128.0))
    }

    /// NUCp (version 0) of this type code, see [`nuc_p`].
    pub fn nuc_p(&self) -> Option<u8> {
        nuc_p(self.tc)
    }
}

enum_with_unknown! {
    /// Surveillance status (ME bits 6–7 of airborne position).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[cfg_attr(feature = "defmt", derive(defmt::Format))]
    pub enum SurveillanceStatus(u8 & 0b11) {
        /// 0: no condition.
        NoCondition = 0,
        /// 1: permanent alert (emergency).
        PermanentAlert = 1,
        /// 2: temporary alert (Mode A code change other than emergency).
        TemporaryAlert = 2,
        /// 3: SPI (ident) condition.
        Spi = 3,
    }
}

/// What the altitude field of an airborne position holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AltitudeSource {
    /// TC 9–18: barometric (pressure) altitude.
    Baro,
    /// TC 20–22: GNSS height above the WGS-84 ellipsoid (HAE).
    Gnss,
}

/// Airborne position, TC 9–18 (barometric altitude) and 20–22 (GNSS
/// height) (BDS 0,5).
///
/// | ME bits | field |
/// |---|---|
/// | 1–5 | TC (NUCp / NIC) |
/// | 6–7 | surveillance status |
/// | 8 | NIC supplement-B (version 2) / single-antenna flag (versions 0–1) |
/// | 9–20 | altitude code (AC12: Q bit = bit 16) |
/// | 21 | T, UTC synchronised |
/// | 22 | F, CPR format |
/// | 23–39 / 40–56 | CPR latitude / longitude |
///
/// ```
/// use airwaves_core::modes::adsb::{AirbornePosition, CprFormat, CprPosition};
/// let mut p = AirbornePosition::new(11, CprPosition { format: CprFormat::Even, lat: 93000, lon: 51372 }).unwrap();
/// p.altitude_code = 0xC38;
/// assert_eq!(p.altitude_ft(), Some(38_000));
/// assert!(AirbornePosition::new(19, p.cpr).is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AirbornePosition {
    tc: u8,
    /// Surveillance status.
    pub surveillance_status: SurveillanceStatus,
    /// NIC supplement-B (single-antenna flag before version 2).
    pub nic_b: bool,
    /// The 12-bit altitude code, 0 = not available; see
    /// [`altitude_ft`](AirbornePosition::altitude_ft).
    pub altitude_code: u16,
    /// T flag: time of applicability synchronised to UTC.
    pub utc_sync: bool,
    /// CPR-encoded position.
    pub cpr: CprPosition,
}

impl AirbornePosition {
    /// An airborne position with type code `tc` (9–18 or 20–22), no
    /// condition, altitude not available, flags clear; `None` if `tc` is
    /// out of range.
    pub const fn new(tc: u8, cpr: CprPosition) -> Option<AirbornePosition> {
        if matches!(tc, 9..=18 | 20..=22) {
            Some(AirbornePosition {
                tc,
                surveillance_status: SurveillanceStatus::NoCondition,
                nic_b: false,
                altitude_code: 0,
                utc_sync: false,
                cpr,
            })
        } else {
            None
        }
    }

    pub(super) fn from_word(w: u64) -> AirbornePosition {
        AirbornePosition {
            tc: get(w, field::TC) as u8,
            surveillance_status: SurveillanceStatus::from(get(w, field::SS) as u8),
            nic_b: get(w, field::NIC_B) != 0,
            altitude_code: get(w, field::ALT) as u16,
            utc_sync: get(w, field::T) != 0,
            cpr: CprPosition::from_word(w),
        }
    }

    pub(super) fn to_word(self) -> u64 {
        let mut w = 0;
        put(&mut w, field::SS, self.surveillance_status as u64);
        put(&mut w, field::NIC_B, self.nic_b as u64);
        put(&mut w, field::ALT, self.altitude_code as u64);
        put(&mut w, field::T, self.utc_sync as u64);
        self.cpr.put(&mut w);
        w
    }

    /// The type code, 9–18 or 20–22.
    pub const fn type_code(&self) -> u8 {
        self.tc
    }

    /// Barometric altitude (TC 9–18) or GNSS height (TC 20–22).
    pub const fn altitude_source(&self) -> AltitudeSource {
        if self.tc <= 18 {
            AltitudeSource::Baro
        } else {
            AltitudeSource::Gnss
        }
    }

    /// Altitude in feet, decoded from the AC12 code with
    /// [`decode_ac12`](crate::modes::altitude::decode_ac12) (25 ft steps when
    /// Q = 1, Gillham 100 ft steps otherwise); `None` if the code is 0
    /// (not available) or not a valid Gillham pattern.
    ///
    /// For TC 20–22 this is the GNSS height (HAE) read the DO-260 /
    /// dump1090-fa way; the Riddle and pyModeS read the same 12 bits as
    /// metres — see the [module docs](super).
    pub fn altitude_ft(&self) -> Option<i32> {
        decode_ac12(self.altitude_code)
    }

    /// NUCp (version 0) of this type code, see [`nuc_p`].
    pub fn nuc_p(&self) -> Option<u8> {
        nuc_p(self.tc)
    }
}

/// NUCp, the version-0 position uncertainty category, of a position type
/// code: TC 0 → 0, 5–8 → 9–6, 9–18 → 9–0, 20 → 9, 21 → 8, 22 → 0
/// (Riddle, "Uncertainties", table "Mapping between TC and NUCp").
/// `None` for type codes that carry no position.
///
/// ```
/// use airwaves_core::modes::adsb::nuc_p;
/// assert_eq!(nuc_p(11), Some(7));
/// assert_eq!(nuc_p(19), None);
/// ```
pub const fn nuc_p(tc: u8) -> Option<u8> {
    match tc {
        0 => Some(0),
        5..=8 => Some(14 - tc),
        9..=18 => Some(18 - tc),
        20 => Some(9),
        21 => Some(8),
        22 => Some(0),
        _ => None,
    }
}

/// NIC (versions 2) of a position type code with the NIC supplements A
/// (TC 31 ME bit 44), B (airborne position ME bit 8) and C (surface TC 31
/// capability class) — DO-260B table 2-14 as given by the Riddle,
/// "Uncertainties", version 2. Supplements matter only for TC 7, 8, 11, 13
/// and 16; `None` for combinations the table does not define and for
/// type codes without a position.
///
/// ```
/// use airwaves_core::modes::adsb::nic_v2;
/// assert_eq!(nic_v2(11, true, true, false), Some(9));
/// assert_eq!(nic_v2(11, false, false, false), Some(8));
/// assert_eq!(nic_v2(11, true, false, false), None);
/// assert_eq!(nic_v2(8, true, false, true), Some(7));
/// ```
pub const fn nic_v2(tc: u8, nic_a: bool, nic_b: bool, nic_c: bool) -> Option<u8> {
    match (tc, nic_a, nic_b, nic_c) {
        (5, ..) | (9, ..) | (20, ..) => Some(11),
        (6, ..) | (10, ..) | (21, ..) => Some(10),
        (7, true, _, _) => Some(9),
        (7, false, _, _) => Some(8),
        (8, true, _, true) => Some(7),
        (8, true, _, false) | (8, false, _, true) => Some(6),
        (8, false, _, false) => Some(0),
        (11, true, true, _) => Some(9),
        (11, false, false, _) => Some(8),
        (12, ..) => Some(7),
        (13, false, _, _) | (13, true, true, _) => Some(6),
        (14, ..) => Some(5),
        (15, ..) => Some(4),
        (16, true, true, _) => Some(3),
        (16, false, false, _) => Some(2),
        (17, ..) => Some(1),
        (18, ..) | (22, ..) => Some(0),
        _ => None,
    }
}

/// Horizontal radius of containment `Rc` in metres, rounded up as readsb
/// prints it, for the same inputs as [`nic_v2`] (the same table's `Rc`
/// column): where one NIC has several radii (NIC 6: 0.3, 0.5 or 0.6 NM)
/// the supplements choose. `None` where the table gives none (NIC 0:
/// unknown, or beyond 20 NM) or does not define the combination.
///
/// ```
/// use airwaves_core::modes::adsb::rc_v2;
/// assert_eq!(rc_v2(11, false, false, false), Some(186)); // 0.1 NM
/// assert_eq!(rc_v2(13, false, true, false), Some(556)); // 0.3 NM
/// assert_eq!(rc_v2(13, false, false, false), Some(926)); // 0.5 NM
/// assert_eq!(rc_v2(13, true, true, false), Some(1112)); // 0.6 NM
/// assert_eq!(rc_v2(18, false, false, false), None);
/// ```
pub const fn rc_v2(tc: u8, nic_a: bool, nic_b: bool, nic_c: bool) -> Option<u32> {
    match (tc, nic_a, nic_b, nic_c) {
        (5, ..) | (9, ..) | (20, ..) => Some(8), // 7.5 m
        (6, ..) | (10, ..) | (21, ..) => Some(25),
        (7, true, _, _) | (11, true, true, _) => Some(75),
        (7, false, _, _) | (11, false, false, _) => Some(186), // 0.1 NM
        (8, true, _, true) | (12, ..) => Some(371),            // 0.2 NM
        (8, true, _, false) | (13, false, true, _) => Some(556), // 0.3 NM
        (13, false, false, _) => Some(926),                    // 0.5 NM
        (8, false, _, true) | (13, true, true, _) => Some(1112), // 0.6 NM
        (14, ..) => Some(1852),                                // 1 NM
        (15, ..) => Some(3704),                                // 2 NM
        (16, true, true, _) => Some(7408),                     // 4 NM
        (16, false, false, _) => Some(14816),                  // 8 NM
        (17, ..) => Some(37040),                               // 20 NM
        _ => None,
    }
}
