//! UAT downlink (ADS-B) messages, DO-282B §2.2.4.5: a typed view over the
//! 18 or 34 corrected data bytes ([`Downlink`]) and their meaning
//! ([`DownlinkRepr`], parse and emit).
//!
//! # Layout
//!
//! Bits are counted from 0 at the MSB of byte 0. The payload type (bits
//! 0–4) decides which elements follow the header (DO-282B Table 2-10):
//!
//! | type | bytes 0–3 | 4–16 | 17–28 | 29–33 |
//! |---:|---|---|---|---|
//! | 0 (basic) | HDR | SV | — | — |
//! | 1 | HDR | SV | MS | AUXSV |
//! | 2, 5 | HDR | SV | reserved | AUXSV |
//! | 3 | HDR | SV | MS | TS |
//! | 4 | HDR | SV | reserved | TS |
//! | 6 | HDR | SV | TS at 24–28 | AUXSV |
//! | 7–10 | HDR | SV | reserved | reserved |
//! | 11–31 | HDR | reserved | | |
//!
//! - **HDR**: payload type (5 bits), address qualifier (3), address (24).
//! - **SV**, state vector: latitude (23 bits, `raw·360/2²⁴`°, minus 180
//!   above 90), longitude (24 bits, `raw·360/2²⁴`°, minus 360 above 180),
//!   altitude type (1 = geometric), altitude (12 bits, `25·raw − 1025` ft,
//!   0 = none), NIC (4), air/ground state (2). Airborne: north and east
//!   velocity (sign + 10 bits, `raw − 1` kt, ×4 if supersonic, 0 = none),
//!   vertical rate source (1 = barometric), sign and 9 bits (`64·(raw − 1)`
//!   ft/min). On the ground: ground speed (10 bits, `raw − 1` kt), track
//!   or heading type (2) and angle (9 bits, `raw·360/512`°), vehicle size
//!   code (4). Then UTC coupling (or the TIS-B site ID for TIS-B/ADS-R
//!   qualifiers).
//! - **MS**, mode status: emitter category and 8 call-sign characters in
//!   three base-40 groups of 16 bits (`c₀·1600 + c₁·40 + c₂`), emergency
//!   status, MOPS version, SIL, transmit MSO, SDA, NACp, NACv, NICbaro,
//!   capability and operational mode bits, CSID (1 = call sign, 0 = flight
//!   plan ID, i.e. squawk), SIL supplement, GVA, single antenna, NIC
//!   supplement.
//! - **AUXSV**: the secondary altitude (12 bits as above), of the type the
//!   primary is not.
//! - **TS**, target state: selected altitude type and 11 bits
//!   (`32·(raw − 1)` ft), barometric setting (9 bits, `800 + 0.8·(raw − 1)`
//!   hPa), selected heading (valid, sign, 8 bits of `180/256`°), mode
//!   indicators (valid, autopilot, VNAV, altitude hold, approach, LNAV).

use crate::macros::enum_with_unknown;
use crate::modes::cpr::Position;

/// Data bytes of a basic message.
pub const BASIC_LEN: usize = super::BASIC_DATA;
/// Data bytes of a long message.
pub const LONG_LEN: usize = super::LONG_DATA;

/// Bit offsets (from the MSB of byte 0) and widths.
mod field {
    pub const PAYLOAD_TYPE: (usize, usize) = (0, 5);
    pub const QUALIFIER: (usize, usize) = (5, 3);
    pub const ADDRESS: (usize, usize) = (8, 24);
    pub const LAT: (usize, usize) = (32, 23);
    pub const LON: (usize, usize) = (55, 24);
    pub const ALT_GEO: usize = 79;
    pub const ALT: (usize, usize) = (80, 12);
    pub const NIC: (usize, usize) = (92, 4);
    pub const AIR_GROUND: (usize, usize) = (96, 2);
    pub const NS_SIGN: usize = 99;
    pub const NS: (usize, usize) = (100, 10);
    pub const EW_SIGN: usize = 110;
    pub const EW: (usize, usize) = (111, 10);
    pub const VV_BARO: usize = 121;
    pub const VV_SIGN: usize = 122;
    pub const VV: (usize, usize) = (123, 9);
    pub const GS: (usize, usize) = (100, 10);
    pub const TRACK_TYPE: (usize, usize) = (110, 2);
    pub const TRACK: (usize, usize) = (112, 9);
    pub const SIZE: (usize, usize) = (121, 4);
    pub const UTC: usize = 132;
    pub const FEEDBACK: (usize, usize) = (133, 3);
    pub const SITE: (usize, usize) = (132, 4);
    pub const CALL: [usize; 3] = [136, 152, 168];
    pub const EMERGENCY: (usize, usize) = (184, 3);
    pub const MOPS: (usize, usize) = (187, 3);
    pub const SIL: (usize, usize) = (190, 2);
    pub const MSO: (usize, usize) = (192, 6);
    pub const SDA: (usize, usize) = (198, 2);
    pub const NAC_P: (usize, usize) = (200, 4);
    pub const NAC_V: (usize, usize) = (204, 3);
    pub const NIC_BARO: usize = 207;
    /// uat_in, es_in, tcas_op, tcas_ra, ident, atc, csid, sil_supp.
    pub const FLAGS: (usize, usize) = (208, 8);
    pub const GVA: (usize, usize) = (216, 2);
    pub const SINGLE_ANTENNA: usize = 218;
    pub const NIC_SUPP: usize = 219;
    pub const AUX_ALT: (usize, usize) = (232, 12);
    /// Target state in types 3 and 4; in type 6 it starts at byte 24.
    pub const TS: usize = 232;
    pub const TS6: usize = 192;
}

/// `len` bits (≤ 32) of `b` from bit `start`; bits past the buffer read 0.
fn get(b: &[u8], (start, len): (usize, usize)) -> u32 {
    let mut v = 0u32;
    for i in start..start + len {
        let bit = b.get(i / 8).map_or(0, |x| (x >> (7 - i % 8)) & 1);
        v = (v << 1) | u32::from(bit);
    }
    v
}

fn flag(b: &[u8], i: usize) -> bool {
    get(b, (i, 1)) == 1
}

/// Write the low `len` bits of `v` from bit `start`; bits past the buffer
/// are dropped.
fn put(b: &mut [u8], (start, len): (usize, usize), v: u32) {
    for k in 0..len {
        let i = start + k;
        let bit = (v >> (len - 1 - k)) & 1;
        if let Some(x) = b.get_mut(i / 8) {
            let m = 1 << (7 - i % 8);
            if bit == 1 {
                *x |= m;
            } else {
                *x &= !m;
            }
        }
    }
}

fn set_flag(b: &mut [u8], i: usize, on: bool) {
    put(b, (i, 1), u32::from(on));
}

enum_with_unknown! {
    /// Who the address belongs to and how it reached us (HDR address
    /// qualifier, DO-282B Table 2-11).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[cfg_attr(feature = "defmt", derive(defmt::Format))]
    pub enum AddressQualifier(u8 & 0b111) {
        /// 0: ADS-B target with an ICAO address.
        AdsbIcao = 0,
        /// 1: ADS-B target with a self-assigned (anonymous) address.
        AdsbOther = 1,
        /// 2: TIS-B target with an ICAO address.
        TisbIcao = 2,
        /// 3: TIS-B target with a track file number.
        TisbTrackFile = 3,
        /// 4: surface vehicle.
        Vehicle = 4,
        /// 5: fixed ADS-B beacon.
        FixedBeacon = 5,
        /// 6: ADS-R target with a non-ICAO address.
        AdsrOther = 6,
        /// 7: reserved.
        Reserved = 7,
    }
}

impl AddressQualifier {
    /// Whether the message was rebroadcast by a ground station (TIS-B or
    /// ADS-R) rather than sent by the target itself.
    pub fn is_rebroadcast(self) -> bool {
        matches!(self, Self::TisbIcao | Self::TisbTrackFile | Self::AdsrOther)
    }
}

/// A downlink message that cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ParseError {
    /// Not 18 bytes for payload type 0 or 34 for the others.
    BadLength {
        /// What the payload type needs.
        expected: usize,
        /// What was given.
        got: usize,
    },
}

impl core::fmt::Display for ParseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BadLength { expected, got } => {
                write!(
                    f,
                    "UAT downlink of {got} bytes, payload type needs {expected}"
                )
            }
        }
    }
}

impl core::error::Error for ParseError {}

/// A typed view over a downlink message's data bytes. No accessor panics
/// whatever the buffer (missing bytes read as 0); after
/// [`check_len`](Self::check_len) the buffer is exactly as long as the
/// payload type needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Downlink<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Downlink<T> {
    /// A view without checking the length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// A view whose length matches its payload type.
    ///
    /// # Errors
    /// [`ParseError::BadLength`].
    pub fn new_checked(buffer: T) -> Result<Self, ParseError> {
        let d = Self::new_unchecked(buffer);
        d.check_len()?;
        Ok(d)
    }

    /// Whether the length matches the payload type (18 bytes for type 0,
    /// 34 otherwise).
    ///
    /// # Errors
    /// [`ParseError::BadLength`].
    pub fn check_len(&self) -> Result<(), ParseError> {
        let got = self.buffer.as_ref().len();
        let expected = if got == 0 || self.payload_type() == 0 {
            BASIC_LEN
        } else {
            LONG_LEN
        };
        if got == expected {
            Ok(())
        } else {
            Err(ParseError::BadLength { expected, got })
        }
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// Payload type, 0–31.
    pub fn payload_type(&self) -> u8 {
        get(self.b(), field::PAYLOAD_TYPE) as u8
    }

    /// Address qualifier.
    pub fn qualifier(&self) -> AddressQualifier {
        AddressQualifier::from(get(self.b(), field::QUALIFIER) as u8)
    }

    /// The 24-bit address.
    pub fn address(&self) -> u32 {
        get(self.b(), field::ADDRESS)
    }

    /// Whether the payload type carries a state vector (0–10).
    pub fn has_state_vector(&self) -> bool {
        self.payload_type() <= 10
    }

    /// Whether it carries mode status (types 1 and 3).
    pub fn has_mode_status(&self) -> bool {
        matches!(self.payload_type(), 1 | 3)
    }

    /// Whether it carries an auxiliary state vector (types 1, 2, 5, 6).
    pub fn has_aux_state_vector(&self) -> bool {
        matches!(self.payload_type(), 1 | 2 | 5 | 6)
    }

    /// First bit of the target state, if the type carries one (3, 4, 6).
    fn target_state_at(&self) -> Option<usize> {
        match self.payload_type() {
            3 | 4 => Some(field::TS),
            6 => Some(field::TS6),
            _ => None,
        }
    }

    /// Raw latitude (23 bits) and longitude (24 bits).
    pub fn raw_position(&self) -> (u32, u32) {
        (get(self.b(), field::LAT), get(self.b(), field::LON))
    }

    /// Raw altitude (12 bits; 0 = none) and whether it is geometric.
    pub fn raw_altitude(&self) -> (u16, bool) {
        (
            get(self.b(), field::ALT) as u16,
            flag(self.b(), field::ALT_GEO),
        )
    }

    /// Navigation integrity category, 0–15.
    pub fn nic(&self) -> u8 {
        get(self.b(), field::NIC) as u8
    }
}

/// Air/ground state (DO-282B Table 2-21).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AirGround {
    /// Airborne, velocities in 1 kt steps.
    Subsonic,
    /// Airborne, velocities in 4 kt steps.
    Supersonic,
    /// On the ground.
    Ground,
    /// Code 3.
    Reserved,
}

/// An altitude and what it measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Altitude {
    /// Pressure altitude, ft.
    Pressure(i32),
    /// Geometric (GNSS) altitude, ft.
    Geometric(i32),
}

/// What a ground target's direction means.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Direction {
    /// True track, degrees.
    TrueTrack(f32),
    /// Magnetic heading, degrees.
    MagneticHeading(f32),
    /// True heading, degrees.
    TrueHeading(f32),
}

/// How the target moves.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Motion {
    /// Airborne velocities.
    Airborne {
        /// North velocity, kt (negative: south).
        north_kt: Option<i32>,
        /// East velocity, kt (negative: west).
        east_kt: Option<i32>,
        /// Vertical rate, ft/min, and whether barometric (else geometric).
        vertical_fpm: Option<(i32, bool)>,
    },
    /// On the ground.
    Ground {
        /// Ground speed, kt.
        speed_kt: Option<u16>,
        /// Track or heading.
        direction: Option<Direction>,
        /// Vehicle length/width code (0 = none, 1–15 as DO-282B
        /// Table 2-35).
        size: u8,
    },
    /// Reserved air/ground state: nothing decoded.
    Unknown,
}

/// State vector.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StateVector {
    /// Position, if any of latitude, longitude or NIC is non-zero (the
    /// encoding has no "no position" value otherwise).
    pub position: Option<Position>,
    /// Altitude.
    pub altitude: Option<Altitude>,
    /// Navigation integrity category.
    pub nic: u8,
    /// Air/ground state.
    pub air_ground: AirGround,
    /// Velocities.
    pub motion: Motion,
    /// UTC coupled (ADS-B targets) — for TIS-B/ADS-R it is `false`.
    pub utc_coupled: bool,
    /// Uplink feedback (ADS-B targets: how many ground uplinks it
    /// receives, a 3-bit code) — for TIS-B/ADS-R `None`.
    pub uplink_feedback: Option<u8>,
    /// TIS-B site ID (TIS-B and ADS-R targets).
    pub tisb_site_id: Option<u8>,
}

/// Length and width of each vehicle size code (DO-282B Table 2-35), m;
/// code 0 is "no data".
pub const VEHICLE_SIZES_M: [(f32, f32); 16] = [
    (0.0, 0.0),
    (15.0, 23.0),
    (25.0, 28.5),
    (25.0, 34.0),
    (35.0, 33.0),
    (35.0, 38.0),
    (45.0, 39.5),
    (45.0, 45.0),
    (55.0, 45.0),
    (55.0, 52.0),
    (65.0, 59.5),
    (65.0, 67.0),
    (75.0, 72.5),
    (75.0, 80.0),
    (85.0, 80.0),
    (85.0, 90.0),
];

impl StateVector {
    /// Ground speed (kt) and true track (degrees) from the velocities.
    pub fn speed_and_track(&self) -> Option<(f32, f32)> {
        match self.motion {
            Motion::Airborne {
                north_kt: Some(n),
                east_kt: Some(e),
                ..
            } => {
                let (n, e) = (n as f32, e as f32);
                let speed = libm::sqrtf(n * n + e * e);
                let mut track = libm::atan2f(e, n).to_degrees();
                if track < 0.0 {
                    track += 360.0;
                }
                Some((speed, track))
            }
            Motion::Ground {
                speed_kt: Some(s),
                direction: Some(Direction::TrueTrack(t)),
                ..
            } => Some((f32::from(s), t)),
            _ => None,
        }
    }
}

/// Mode status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ModeStatus {
    /// Emitter category, 0–39 (`A0` = 0 … `D7` = 31).
    pub emitter_category: u8,
    /// The 8 characters, base-40 codes (0–9 digits, 10–35 letters, 36
    /// space).
    pub chars: [u8; 8],
    /// CSID: the characters are a call sign (else a flight plan ID, the
    /// squawk).
    pub is_callsign: bool,
    /// Emergency/priority status, 0–7.
    pub emergency: u8,
    /// UAT MOPS version.
    pub mops_version: u8,
    /// Source integrity level.
    pub sil: u8,
    /// Transmit MSO.
    pub transmit_mso: u8,
    /// System design assurance.
    pub sda: u8,
    /// Navigation accuracy category for position.
    pub nac_p: u8,
    /// Navigation accuracy category for velocity.
    pub nac_v: u8,
    /// Barometric altitude integrity.
    pub nic_baro: bool,
    /// Capability and operational mode bits, MSB first: UAT in, 1090ES
    /// in, TCAS operational, TCAS RA active, IDENT, ATC services, CSID,
    /// SIL supplement.
    pub flags: u8,
    /// Geometric vertical accuracy.
    pub gva: u8,
    /// Single antenna.
    pub single_antenna: bool,
    /// NIC supplement.
    pub nic_supplement: bool,
}

/// Base-40 characters: digits, letters, space; 37–39 shown as `?`.
const BASE40: &[u8; 40] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ ???";

impl ModeStatus {
    /// The base-40 codes of `text` (digits, capitals, space; at most 8,
    /// padded with spaces), for [`chars`](Self::chars): the inverse of
    /// [`text`](Self::text). `None` for a longer text or another
    /// character.
    ///
    /// ```
    /// use airwaves_core::uat::adsb::ModeStatus;
    /// let c = ModeStatus::chars_of("N978AW").unwrap();
    /// assert_eq!(c, [23, 9, 7, 8, 10, 32, 36, 36]);
    /// assert_eq!(ModeStatus::chars_of("n978"), None);
    /// ```
    pub fn chars_of(text: &str) -> Option<[u8; 8]> {
        let mut out = [36u8; 8];
        if text.len() > out.len() {
            return None;
        }
        for (o, c) in out.iter_mut().zip(text.bytes()) {
            *o = BASE40[..37].iter().position(|&b| b == c)? as u8;
        }
        Some(out)
    }

    /// IDENT active.
    pub fn ident(&self) -> bool {
        self.flags & 0x08 != 0
    }

    /// The characters as text, trailing spaces dropped, into `out`;
    /// returns the used part.
    pub fn text<'a>(&self, out: &'a mut [u8; 8]) -> &'a str {
        let mut n = 0;
        for (o, &c) in out.iter_mut().zip(&self.chars) {
            *o = BASE40[usize::from(c.min(39))];
        }
        for (i, &c) in out.iter().enumerate() {
            if c != b' ' {
                n = i + 1;
            }
        }
        core::str::from_utf8(&out[..n]).unwrap_or("")
    }

    /// The flight plan ID as a squawk (`0x7500` for 7500), when the CSID
    /// says so and it is four octal digits.
    pub fn squawk(&self) -> Option<u16> {
        if self.is_callsign {
            return None;
        }
        let mut buf = [0u8; 8];
        let t = self.text(&mut buf).as_bytes();
        if t.len() != 4 || !t.iter().all(|c| (b'0'..=b'7').contains(c)) {
            return None;
        }
        Some(t.iter().fold(0u16, |v, &c| (v << 4) | u16::from(c - b'0')))
    }

    /// Emitter category as the two characters readsb and dump978 show
    /// (`A0` … `D7`), for codes below 32.
    pub fn category_code(&self) -> Option<[u8; 2]> {
        (self.emitter_category < 32).then(|| {
            [
                b'A' + self.emitter_category / 8,
                b'0' + self.emitter_category % 8,
            ]
        })
    }
}

/// Auxiliary state vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AuxStateVector {
    /// The secondary altitude (the type the state vector's is not).
    pub altitude: Option<Altitude>,
}

/// Target state.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TargetState {
    /// Selected altitude, ft, and whether from the FMS (else MCP/FCU).
    pub selected_altitude_ft: Option<(i32, bool)>,
    /// Barometric pressure setting, hPa.
    pub baro_setting_hpa: Option<f32>,
    /// Selected heading, degrees (−180 … 180).
    pub selected_heading_deg: Option<f32>,
    /// Mode indicators, if valid: autopilot, VNAV, altitude hold,
    /// approach, LNAV (bits 4 … 0).
    pub modes: Option<u8>,
}

/// A downlink message's meaning.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DownlinkRepr {
    /// Payload type, 0–31.
    pub payload_type: u8,
    /// Address qualifier.
    pub qualifier: AddressQualifier,
    /// 24-bit address.
    pub address: u32,
    /// State vector (types 0–10).
    pub state: Option<StateVector>,
    /// Mode status (types 1, 3).
    pub status: Option<ModeStatus>,
    /// Auxiliary state vector (types 1, 2, 5, 6).
    pub aux: Option<AuxStateVector>,
    /// Target state (types 3, 4, 6).
    pub target: Option<TargetState>,
}

fn altitude_from(raw: u32, geometric: bool) -> Option<Altitude> {
    (raw != 0).then(|| {
        let ft = 25 * raw as i32 - 1025;
        if geometric {
            Altitude::Geometric(ft)
        } else {
            Altitude::Pressure(ft)
        }
    })
}

fn altitude_raw(a: Option<Altitude>) -> (u32, bool) {
    match a {
        None => (0, false),
        Some(Altitude::Pressure(ft)) => (((ft + 1025) / 25).clamp(1, 4095) as u32, false),
        Some(Altitude::Geometric(ft)) => (((ft + 1025) / 25).clamp(1, 4095) as u32, true),
    }
}

/// Sign-and-magnitude velocity: `raw − 1` (×`scale`), 0 = none.
fn velocity(b: &[u8], sign: usize, mag: (usize, usize), scale: i32) -> Option<i32> {
    let raw = get(b, mag) as i32;
    (raw != 0).then(|| {
        let v = (raw - 1) * scale;
        if flag(b, sign) { -v } else { v }
    })
}

fn put_velocity(b: &mut [u8], sign: usize, mag: (usize, usize), v: Option<i32>, scale: i32) {
    let max = (1 << mag.1) - 1;
    match v {
        None => {
            set_flag(b, sign, false);
            put(b, mag, 0);
        }
        Some(v) => {
            set_flag(b, sign, v < 0);
            put(b, mag, ((v.abs() / scale) + 1).min(max) as u32);
        }
    }
}

impl DownlinkRepr {
    /// Decode a checked message.
    ///
    /// # Errors
    /// [`ParseError::BadLength`] if the buffer does not fit the payload
    /// type.
    pub fn parse<T: AsRef<[u8]>>(msg: &Downlink<T>) -> Result<Self, ParseError> {
        msg.check_len()?;
        let b = msg.b();
        let qualifier = msg.qualifier();
        let state = msg.has_state_vector().then(|| parse_state(b, qualifier));
        let status = msg.has_mode_status().then(|| parse_status(b));
        let aux = msg.has_aux_state_vector().then(|| AuxStateVector {
            altitude: altitude_from(get(b, field::AUX_ALT), !flag(b, field::ALT_GEO)),
        });
        let target = msg.target_state_at().map(|at| parse_target(b, at));
        Ok(Self {
            payload_type: msg.payload_type(),
            qualifier,
            address: msg.address(),
            state,
            status,
            aux,
            target,
        })
    }

    /// Bytes [`emit`](Self::emit) writes: 18 for type 0, 34 otherwise.
    pub const fn buffer_len(&self) -> usize {
        if self.payload_type == 0 {
            BASIC_LEN
        } else {
            LONG_LEN
        }
    }

    /// Write the message into `msg` (at least
    /// [`buffer_len`](Self::buffer_len) bytes; the rest is left alone).
    /// Elements the payload type has no room for are not written; the
    /// secondary altitude's type follows the primary's.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, msg: &mut Downlink<T>) {
        let len = self.buffer_len().min(msg.buffer.as_ref().len());
        let b = &mut msg.buffer.as_mut()[..len];
        b.fill(0);
        put(b, field::PAYLOAD_TYPE, u32::from(self.payload_type));
        put(b, field::QUALIFIER, u32::from(u8::from(self.qualifier)));
        put(b, field::ADDRESS, self.address & 0xFF_FFFF);
        let view = Downlink::new_unchecked(&*b);
        let (sv, ms, aux, ts) = (
            view.has_state_vector(),
            view.has_mode_status(),
            view.has_aux_state_vector(),
            view.target_state_at(),
        );
        if let (true, Some(s)) = (sv, &self.state) {
            emit_state(b, s, self.qualifier);
        }
        if let (true, Some(s)) = (ms, &self.status) {
            emit_status(b, s);
        }
        if let (true, Some(a)) = (aux, &self.aux) {
            let (raw, _) = altitude_raw(a.altitude);
            put(b, field::AUX_ALT, raw);
        }
        if let (Some(at), Some(t)) = (ts, &self.target) {
            emit_target(b, at, t);
        }
    }
}

fn parse_state(b: &[u8], q: AddressQualifier) -> StateVector {
    let (raw_lat, raw_lon) = (get(b, field::LAT), get(b, field::LON));
    let nic = get(b, field::NIC) as u8;
    let position = (raw_lat != 0 || raw_lon != 0 || nic != 0).then(|| {
        let mut lat = f64::from(raw_lat) * 360.0 / 16_777_216.0;
        if lat > 90.0 {
            lat -= 180.0;
        }
        let mut lon = f64::from(raw_lon) * 360.0 / 16_777_216.0;
        if lon >= 180.0 {
            lon -= 360.0;
        }
        Position { lat, lon }
    });
    let altitude = altitude_from(get(b, field::ALT), flag(b, field::ALT_GEO));
    let air_ground = match get(b, field::AIR_GROUND) {
        0 => AirGround::Subsonic,
        1 => AirGround::Supersonic,
        2 => AirGround::Ground,
        _ => AirGround::Reserved,
    };
    let motion = match air_ground {
        AirGround::Subsonic | AirGround::Supersonic => {
            let scale = if air_ground == AirGround::Supersonic {
                4
            } else {
                1
            };
            Motion::Airborne {
                north_kt: velocity(b, field::NS_SIGN, field::NS, scale),
                east_kt: velocity(b, field::EW_SIGN, field::EW, scale),
                vertical_fpm: velocity(b, field::VV_SIGN, field::VV, 64)
                    .map(|v| (v, flag(b, field::VV_BARO))),
            }
        }
        AirGround::Ground => {
            let gs = get(b, field::GS);
            let angle = get(b, field::TRACK) as f32 * 360.0 / 512.0;
            Motion::Ground {
                speed_kt: (gs != 0).then(|| (gs - 1) as u16),
                direction: match get(b, field::TRACK_TYPE) {
                    1 => Some(Direction::TrueTrack(angle)),
                    2 => Some(Direction::MagneticHeading(angle)),
                    3 => Some(Direction::TrueHeading(angle)),
                    _ => None,
                },
                size: get(b, field::SIZE) as u8,
            }
        }
        AirGround::Reserved => Motion::Unknown,
    };
    let rebroadcast = q.is_rebroadcast();
    StateVector {
        position,
        altitude,
        nic,
        air_ground,
        motion,
        utc_coupled: !rebroadcast && flag(b, field::UTC),
        uplink_feedback: (!rebroadcast).then(|| get(b, field::FEEDBACK) as u8),
        tisb_site_id: rebroadcast.then(|| get(b, field::SITE) as u8),
    }
}

fn emit_state(b: &mut [u8], s: &StateVector, q: AddressQualifier) {
    if let Some(p) = s.position {
        let lat = if p.lat < 0.0 { p.lat + 180.0 } else { p.lat };
        let lon = if p.lon < 0.0 { p.lon + 360.0 } else { p.lon };
        let raw_lat = libm::round(lat * 16_777_216.0 / 360.0) as u32 & 0x7F_FFFF;
        let raw_lon = libm::round(lon * 16_777_216.0 / 360.0) as u32 & 0xFF_FFFF;
        put(b, field::LAT, raw_lat);
        put(b, field::LON, raw_lon);
    }
    let (raw_alt, geo) = altitude_raw(s.altitude);
    set_flag(b, field::ALT_GEO, geo);
    put(b, field::ALT, raw_alt);
    put(b, field::NIC, u32::from(s.nic & 15));
    let (ag, scale) = match s.air_ground {
        AirGround::Subsonic => (0, 1),
        AirGround::Supersonic => (1, 4),
        AirGround::Ground => (2, 1),
        AirGround::Reserved => (3, 1),
    };
    put(b, field::AIR_GROUND, ag);
    match s.motion {
        Motion::Airborne {
            north_kt,
            east_kt,
            vertical_fpm,
        } => {
            put_velocity(b, field::NS_SIGN, field::NS, north_kt, scale);
            put_velocity(b, field::EW_SIGN, field::EW, east_kt, scale);
            put_velocity(b, field::VV_SIGN, field::VV, vertical_fpm.map(|v| v.0), 64);
            set_flag(b, field::VV_BARO, vertical_fpm.is_some_and(|v| v.1));
        }
        Motion::Ground {
            speed_kt,
            direction,
            size,
        } => {
            put(
                b,
                field::GS,
                speed_kt.map_or(0, |v| u32::from(v).min(1022) + 1),
            );
            let (kind, angle) = match direction {
                None => (0, 0.0),
                Some(Direction::TrueTrack(a)) => (1, a),
                Some(Direction::MagneticHeading(a)) => (2, a),
                Some(Direction::TrueHeading(a)) => (3, a),
            };
            put(b, field::TRACK_TYPE, kind);
            put(
                b,
                field::TRACK,
                (libm::roundf(angle * 512.0 / 360.0) as u32) & 511,
            );
            put(b, field::SIZE, u32::from(size & 15));
        }
        Motion::Unknown => {}
    }
    if q.is_rebroadcast() {
        put(b, field::SITE, u32::from(s.tisb_site_id.unwrap_or(0) & 15));
    } else {
        set_flag(b, field::UTC, s.utc_coupled);
        put(
            b,
            field::FEEDBACK,
            u32::from(s.uplink_feedback.unwrap_or(0) & 7),
        );
    }
}

fn parse_status(b: &[u8]) -> ModeStatus {
    let mut chars = [0u8; 8];
    let g: [u32; 3] = field::CALL.map(|at| get(b, (at, 16)));
    let emitter_category = ((g[0] / 1600) % 40) as u8;
    let digits = [
        g[0] / 40,
        g[0],
        g[1] / 1600,
        g[1] / 40,
        g[1],
        g[2] / 1600,
        g[2] / 40,
        g[2],
    ];
    for (c, d) in chars.iter_mut().zip(digits) {
        *c = (d % 40) as u8;
    }
    let flags = get(b, field::FLAGS) as u8;
    ModeStatus {
        emitter_category,
        chars,
        is_callsign: flags & 0x02 != 0,
        emergency: get(b, field::EMERGENCY) as u8,
        mops_version: get(b, field::MOPS) as u8,
        sil: get(b, field::SIL) as u8,
        transmit_mso: get(b, field::MSO) as u8,
        sda: get(b, field::SDA) as u8,
        nac_p: get(b, field::NAC_P) as u8,
        nac_v: get(b, field::NAC_V) as u8,
        nic_baro: flag(b, field::NIC_BARO),
        flags,
        gva: get(b, field::GVA) as u8,
        single_antenna: flag(b, field::SINGLE_ANTENNA),
        nic_supplement: flag(b, field::NIC_SUPP),
    }
}

fn emit_status(b: &mut [u8], s: &ModeStatus) {
    let c = s.chars.map(|c| u32::from(c.min(39)));
    let g = [
        u32::from(s.emitter_category.min(39)) * 1600 + c[0] * 40 + c[1],
        c[2] * 1600 + c[3] * 40 + c[4],
        c[5] * 1600 + c[6] * 40 + c[7],
    ];
    for (at, v) in field::CALL.into_iter().zip(g) {
        put(b, (at, 16), v);
    }
    put(b, field::EMERGENCY, u32::from(s.emergency));
    put(b, field::MOPS, u32::from(s.mops_version));
    put(b, field::SIL, u32::from(s.sil));
    put(b, field::MSO, u32::from(s.transmit_mso));
    put(b, field::SDA, u32::from(s.sda));
    put(b, field::NAC_P, u32::from(s.nac_p));
    put(b, field::NAC_V, u32::from(s.nac_v));
    set_flag(b, field::NIC_BARO, s.nic_baro);
    let flags = (s.flags & !0x02) | if s.is_callsign { 0x02 } else { 0 };
    put(b, field::FLAGS, u32::from(flags));
    put(b, field::GVA, u32::from(s.gva));
    set_flag(b, field::SINGLE_ANTENNA, s.single_antenna);
    set_flag(b, field::NIC_SUPP, s.nic_supplement);
}

fn parse_target(b: &[u8], at: usize) -> TargetState {
    let raw_alt = get(b, (at + 1, 11)) as i32;
    let raw_baro = get(b, (at + 12, 9));
    let heading = flag(b, at + 21).then(|| {
        let h = get(b, (at + 23, 8)) as f32 * 180.0 / 256.0;
        if flag(b, at + 22) { -h } else { h }
    });
    TargetState {
        selected_altitude_ft: (raw_alt != 0).then(|| (32 * (raw_alt - 1), flag(b, at))),
        baro_setting_hpa: (raw_baro != 0).then(|| 800.0 + 0.8 * (raw_baro - 1) as f32),
        selected_heading_deg: heading,
        modes: flag(b, at + 31).then(|| get(b, (at + 32, 5)) as u8),
    }
}

fn emit_target(b: &mut [u8], at: usize, t: &TargetState) {
    if let Some((ft, fms)) = t.selected_altitude_ft {
        set_flag(b, at, fms);
        put(b, (at + 1, 11), ((ft / 32) + 1).clamp(1, 2047) as u32);
    }
    if let Some(hpa) = t.baro_setting_hpa {
        let raw = libm::roundf((hpa - 800.0) / 0.8) as i32 + 1;
        put(b, (at + 12, 9), raw.clamp(1, 511) as u32);
    }
    if let Some(h) = t.selected_heading_deg {
        set_flag(b, at + 21, true);
        set_flag(b, at + 22, h < 0.0);
        put(
            b,
            (at + 23, 8),
            (libm::roundf(h.abs() * 256.0 / 180.0) as u32).min(255),
        );
    }
    if let Some(m) = t.modes {
        set_flag(b, at + 31, true);
        put(b, (at + 32, 5), u32::from(m & 31));
    }
}

#[cfg(test)]
mod tests;
