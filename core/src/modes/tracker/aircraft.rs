//! The aircraft record: what the tracker keeps about one aircraft, in a
//! compact form (sentinels instead of `Option`s, packed flags), with
//! getters that return `Option`s and the upkeep every frame does (signal
//! average, ground state, staleness).

use super::ADDR_MASK;
use super::address::AddressType;
use super::position::{PositionFix, PositionSource};
use crate::modes::adsb::{Category, EmergencyState, nic_v2, nuc_p, rc_v2};
use crate::modes::cpr::{CprFrame, CprKind, Position, TimedFrame};

// Flag bits of `Aircraft::flags`.
pub(super) const F_GROUND_KNOWN: u32 = 1 << 0;
pub(super) const F_GROUND: u32 = 1 << 1;
pub(super) const F_POS: u32 = 1 << 2;
pub(super) const F_POS_SURFACE: u32 = 1 << 3;
pub(super) const F_CPR_EVEN: u32 = 1 << 4;
pub(super) const F_CPR_ODD: u32 = 1 << 5;
const F_CPR_EVEN_SURFACE: u32 = 1 << 6;
const F_CPR_ODD_SURFACE: u32 = 1 << 7;
pub(super) const F_TRUSTED: u32 = 1 << 8;
pub(super) const F_NIC_A: u32 = 1 << 9;
pub(super) const F_NIC_B: u32 = 1 << 10;
pub(super) const F_NIC_C: u32 = 1 << 11;
pub(super) const F_NIC_BARO: u32 = 1 << 12;
pub(super) const F_SIL_PER_SAMPLE: u32 = 1 << 13;
pub(super) const F_VEL: u32 = 1 << 14;
pub(super) const F_ALT: u32 = 1 << 15;
pub(super) const F_NIC_BARO_KNOWN: u32 = 1 << 16;
pub(super) const F_SIL_TYPE_KNOWN: u32 = 1 << 17;
pub(super) const F_MLAT_POS: u32 = 1 << 18;
pub(super) const F_MLAT_ALT: u32 = 1 << 19;
pub(super) const F_MLAT_VEL: u32 = 1 << 20;
pub(super) const F_HEARD_1090: u32 = 1 << 21;
pub(super) const F_HEARD_UAT: u32 = 1 << 22;
pub(super) const F_UAT_POS: u32 = 1 << 23;

/// How long a position not from MLAT keeps multilateration results from
/// overwriting the aircraft's data, ms (the aircraft's own ADS-B is
/// better than a computed position while it is this fresh).
pub const MLAT_YIELD_MS: u64 = 10_000;

/// The flags of the stored even (`odd = false`) or odd CPR frame: `(valid,
/// surface)`.
pub(super) const fn cpr_flags(odd: bool) -> (u32, u32) {
    if odd {
        (F_CPR_ODD, F_CPR_ODD_SURFACE)
    } else {
        (F_CPR_EVEN, F_CPR_EVEN_SURFACE)
    }
}

// The per-aircraft state stays compact on every target (u64/f64 are
// 8-aligned on ARM EABI too).
const _: () = assert!(core::mem::size_of::<Aircraft>() <= 200);

/// "Not available" for `u8` fields.
pub(super) const NONE_U8: u8 = u8::MAX;
/// "Not available" for `u16` fields.
pub(super) const NONE_U16: u16 = u16::MAX;
/// "Not available" for `i16` fields.
pub(super) const NONE_I16: i16 = i16::MIN;
/// "Not available" for `i32` fields.
pub(super) const NONE_I32: i32 = i32::MIN;

/// Number of signal levels averaged.
const SIGNAL_LEN: usize = 8;

/// A stored CPR frame (its format is the slot, its kind a flag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(super) struct CprSlot {
    pub(super) t_ms: u64,
    pub(super) lat: u32,
    pub(super) lon: u32,
}

/// The state kept for one aircraft. Fields are private and compact
/// (sentinels instead of `Option`); the getters return `Option`s.
///
/// Units: feet, knots, ft/min, degrees (true north for track, magnetic
/// for the heading of TC 19 subtypes 3–4), dBFS, ms.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Aircraft {
    pub(super) key: u32,
    pub(super) addr_type: AddressType,
    pub(super) flags: u32,
    pub(super) first_seen_ms: u64,
    pub(super) last_seen_ms: u64,
    pub(super) trusted_ms: u64,
    pub(super) messages: u32,
    pub(super) signal: [f32; SIGNAL_LEN],
    pub(super) signal_len: u8,
    pub(super) signal_next: u8,
    pub(super) callsign: [u8; 8],
    pub(super) category: u8,
    pub(super) squawk: u16,
    pub(super) emergency: u8,
    pub(super) alt_baro: i32,
    pub(super) alt_t_ms: u64,
    pub(super) alt_gnss: i32,
    pub(super) gnss_diff: i16,
    pub(super) rate_baro: i16,
    pub(super) rate_gnss: i16,
    pub(super) ias: u16,
    pub(super) tas: u16,
    pub(super) gs: f32,
    pub(super) track: f32,
    pub(super) heading: f32,
    pub(super) mach: f32,
    pub(super) vel_t_ms: u64,
    pub(super) pos: Position,
    pub(super) pos_t_ms: u64,
    pub(super) pos_source: PositionSource,
    pub(super) pos_tc: u8,
    pub(super) cpr: [CprSlot; 2],
    pub(super) version: u8,
    pub(super) nac_p: u8,
    pub(super) nac_v: u8,
    pub(super) sil: u8,
    pub(super) gva: u8,
    pub(super) alt_rejects: u8,
    pub(super) vel_rejects: u8,
    pub(super) pos_rejects: u8,
}

impl Aircraft {
    /// A fresh entry for `key` first heard at `t_ms`.
    pub(super) const fn new(key: u32, addr_type: AddressType, t_ms: u64) -> Self {
        Aircraft {
            key,
            addr_type,
            flags: 0,
            first_seen_ms: t_ms,
            last_seen_ms: t_ms,
            trusted_ms: 0,
            messages: 0,
            signal: [0.0; SIGNAL_LEN],
            signal_len: 0,
            signal_next: 0,
            callsign: [0; 8],
            category: 0,
            squawk: NONE_U16,
            emergency: NONE_U8,
            alt_baro: NONE_I32,
            alt_t_ms: 0,
            alt_gnss: NONE_I32,
            gnss_diff: NONE_I16,
            rate_baro: NONE_I16,
            rate_gnss: NONE_I16,
            ias: NONE_U16,
            tas: NONE_U16,
            gs: f32::NAN,
            track: f32::NAN,
            heading: f32::NAN,
            mach: f32::NAN,
            vel_t_ms: 0,
            pos: Position::new(0.0, 0.0),
            pos_t_ms: 0,
            pos_source: PositionSource::Global,
            pos_tc: 0,
            cpr: [CprSlot {
                t_ms: 0,
                lat: 0,
                lon: 0,
            }; 2],
            version: NONE_U8,
            nac_p: NONE_U8,
            nac_v: NONE_U8,
            sil: NONE_U8,
            gva: NONE_U8,
            alt_rejects: 0,
            vel_rejects: 0,
            pos_rejects: 0,
        }
    }

    pub(super) const EMPTY: Aircraft = Aircraft::new(0, AddressType::ModeS, 0);

    #[inline]
    pub(super) fn flag(&self, f: u32) -> bool {
        self.flags & f != 0
    }

    #[inline]
    pub(super) fn set_flag(&mut self, f: u32, on: bool) {
        if on {
            self.flags |= f;
        } else {
            self.flags &= !f;
        }
    }

    /// The 24-bit address (ICAO, or non-ICAO if
    /// [`address_type`](Self::address_type) says so).
    pub fn address(&self) -> u32 {
        self.key & ADDR_MASK
    }

    /// The table key: [`address`](Self::address), plus [`NON_ICAO`](super::NON_ICAO) for a
    /// non-ICAO address.
    pub fn key(&self) -> u32 {
        self.key
    }

    /// The best source of the address heard so far.
    pub fn address_type(&self) -> AddressType {
        self.addr_type
    }

    /// Time the aircraft was added, ms.
    pub fn first_seen_ms(&self) -> u64 {
        self.first_seen_ms
    }

    /// Time of the last accepted frame, ms.
    pub fn last_seen_ms(&self) -> u64 {
        self.last_seen_ms
    }

    /// Time of the last trusted DF11/17/18, ms (see
    /// [`Tracker::is_known`](super::Tracker::is_known)); `None` if none was received.
    pub fn last_trusted_ms(&self) -> Option<u64> {
        self.flag(F_TRUSTED).then_some(self.trusted_ms)
    }

    /// Accepted frames.
    pub fn messages(&self) -> u32 {
        self.messages
    }

    /// Mean signal level of the last 8 frames with a known level, dBFS:
    /// `10·log10(mean(10^(dBFS/10)))`, the average power.
    pub fn signal_dbfs(&self) -> Option<f32> {
        let n = usize::from(self.signal_len).min(SIGNAL_LEN);
        if n == 0 {
            return None;
        }
        let sum: f32 = self
            .signal
            .iter()
            .take(n)
            .map(|&d| libm::exp10f(d / 10.0))
            .sum();
        Some(10.0 * libm::log10f(sum / n as f32))
    }

    /// Callsign (TC 1–4), trailing spaces removed.
    pub fn callsign(&self) -> Option<&str> {
        if self.callsign[0] == 0 {
            return None;
        }
        let end = self
            .callsign
            .iter()
            .rposition(|&c| c != b' ')
            .map_or(0, |i| i + 1);
        core::str::from_utf8(self.callsign.get(..end).unwrap_or(&[])).ok()
    }

    /// Emitter category (TC 1–4).
    pub fn category(&self) -> Option<Category> {
        Category::new(self.category >> 3, self.category & 7)
    }

    /// Squawk as octal digits in hex nibbles (`0x7700` for 7700), from
    /// DF5/21 or TC 28.
    pub fn squawk(&self) -> Option<u16> {
        (self.squawk != NONE_U16).then_some(self.squawk)
    }

    /// Emergency/priority state (TC 28 subtype 1).
    pub fn emergency(&self) -> Option<EmergencyState> {
        (self.emergency != NONE_U8).then(|| EmergencyState::from(self.emergency))
    }

    /// Barometric altitude, ft (DF0/4/16/20, ADS-B TC 9–18).
    pub fn altitude_baro_ft(&self) -> Option<i32> {
        (self.alt_baro != NONE_I32).then_some(self.alt_baro)
    }

    /// Time of the last barometric altitude, ms.
    pub fn altitude_time_ms(&self) -> Option<u64> {
        self.flag(F_ALT).then_some(self.alt_t_ms)
    }

    /// GNSS height (HAE), ft (ADS-B TC 20–22).
    pub fn altitude_gnss_ft(&self) -> Option<i32> {
        (self.alt_gnss != NONE_I32).then_some(self.alt_gnss)
    }

    /// GNSS height minus barometric altitude, ft (TC 19).
    pub fn gnss_baro_diff_ft(&self) -> Option<i32> {
        (self.gnss_diff != NONE_I16).then_some(i32::from(self.gnss_diff))
    }

    /// Ground speed, kt (TC 19 subtypes 1–2, or surface movement).
    pub fn ground_speed_kt(&self) -> Option<f32> {
        (!self.gs.is_nan()).then_some(self.gs)
    }

    /// Track over ground, degrees from true north (TC 19 subtypes 1–2, or
    /// surface position).
    pub fn track_deg(&self) -> Option<f32> {
        (!self.track.is_nan()).then_some(self.track)
    }

    /// Magnetic heading, degrees (TC 19 subtypes 3–4).
    pub fn heading_deg(&self) -> Option<f32> {
        (!self.heading.is_nan()).then_some(self.heading)
    }

    /// Indicated airspeed, kt (TC 19 subtypes 3–4).
    pub fn ias_kt(&self) -> Option<u16> {
        (self.ias != NONE_U16).then_some(self.ias)
    }

    /// True airspeed, kt (TC 19 subtypes 3–4).
    pub fn tas_kt(&self) -> Option<u16> {
        (self.tas != NONE_U16).then_some(self.tas)
    }

    /// Mach number; not carried by ADS-B, set by Comm-B decoding (BDS 6,0)
    /// through [`set_mach`](Self::set_mach).
    pub fn mach(&self) -> Option<f32> {
        (!self.mach.is_nan()).then_some(self.mach)
    }

    /// Set the Mach number (e.g. from BDS 6,0); NaN clears it.
    pub fn set_mach(&mut self, mach: f32) {
        self.mach = mach;
    }

    /// Barometric vertical rate, ft/min, climbing positive (TC 19).
    pub fn vertical_rate_baro_fpm(&self) -> Option<i32> {
        (self.rate_baro != NONE_I16).then_some(i32::from(self.rate_baro))
    }

    /// GNSS (geometric) vertical rate, ft/min, climbing positive (TC 19).
    pub fn vertical_rate_gnss_fpm(&self) -> Option<i32> {
        (self.rate_gnss != NONE_I16).then_some(i32::from(self.rate_gnss))
    }

    /// Time of the last velocity (TC 19 or surface movement), ms.
    pub fn velocity_time_ms(&self) -> Option<u64> {
        self.flag(F_VEL).then_some(self.vel_t_ms)
    }

    /// On the ground (`true`) or airborne, from DF11/17 CA, DF0/16 VS,
    /// DF4/5/20/21 FS, or the kind of the last ADS-B position; `None` if
    /// nothing said.
    pub fn on_ground(&self) -> Option<bool> {
        self.flag(F_GROUND_KNOWN).then(|| self.flag(F_GROUND))
    }

    /// The last accepted position, unless older than
    /// [`TrackerConfig::stale_ms`](super::TrackerConfig::stale_ms) at the last update or expiry sweep.
    pub fn position(&self) -> Option<PositionFix> {
        self.flag(F_POS).then_some(PositionFix {
            position: self.pos,
            t_ms: self.pos_t_ms,
            source: self.pos_source,
            kind: if self.flag(F_POS_SURFACE) {
                CprKind::Surface
            } else {
                CprKind::Airborne
            },
        })
    }

    /// Whether the last position came from a multilateration result.
    pub fn mlat_position(&self) -> bool {
        self.flag(F_POS) && self.flag(F_MLAT_POS)
    }

    /// Whether the last barometric altitude came from a multilateration
    /// result.
    pub fn mlat_altitude(&self) -> bool {
        self.flag(F_ALT) && self.flag(F_MLAT_ALT)
    }

    /// Whether the last velocity came from a multilateration result.
    pub fn mlat_velocity(&self) -> bool {
        self.flag(F_VEL) && self.flag(F_MLAT_VEL)
    }

    /// Whether frames of the aircraft were heard on 1090 MHz (Mode S,
    /// not MLAT results).
    pub fn heard_on_1090(&self) -> bool {
        self.flag(F_HEARD_1090)
    }

    /// Whether UAT (978 MHz) messages of the aircraft were heard.
    pub fn heard_on_uat(&self) -> bool {
        self.flag(F_HEARD_UAT)
    }

    /// Whether the last position came from a UAT message.
    pub fn uat_position(&self) -> bool {
        self.flag(F_POS) && self.flag(F_UAT_POS)
    }

    /// Whether the aircraft has a position of its own (not from MLAT) no
    /// older than [`MLAT_YIELD_MS`] at `t_ms`.
    pub(super) fn has_own_position(&self, t_ms: u64) -> bool {
        self.flag(F_POS)
            && !self.flag(F_MLAT_POS)
            && t_ms.saturating_sub(self.pos_t_ms) <= MLAT_YIELD_MS
    }

    /// The stored even (`odd = false`) or odd CPR frame with its reception
    /// time, waiting to be paired.
    pub fn cpr_frame(&self, odd: bool) -> Option<TimedFrame> {
        let (valid, surface) = cpr_flags(odd);
        if !self.flag(valid) {
            return None;
        }
        let kind = if self.flag(surface) {
            CprKind::Surface
        } else {
            CprKind::Airborne
        };
        let s = self.cpr[usize::from(odd)];
        Some(TimedFrame::new(
            CprFrame::new(kind, odd, s.lat, s.lon),
            s.t_ms,
        ))
    }

    /// ADS-B version from TC 31 (0 DO-260, 1 DO-260A, 2 DO-260B).
    pub fn adsb_version(&self) -> Option<u8> {
        (self.version != NONE_U8).then_some(self.version)
    }

    /// NIC of the last position message (version 1 and 2, DO-260B table
    /// from its type code and the supplements A, B, C); `None` before a
    /// position message and a TC 31 giving the version.
    pub fn nic(&self) -> Option<u8> {
        self.supplements()
            .and_then(|(tc, a, b, c)| nic_v2(tc, a, b, c))
    }

    /// Horizontal radius of containment of the last position message in
    /// metres, rounded up (the `Rc` beside [`nic`](Self::nic) in the same
    /// table, where the supplements tell NIC 6's 0.3, 0.5 and 0.6 NM
    /// apart); `None` when the NIC is unknown or 0.
    pub fn radius_of_containment_m(&self) -> Option<u32> {
        self.supplements()
            .and_then(|(tc, a, b, c)| rc_v2(tc, a, b, c))
    }

    /// The position type code and NIC supplements A, B, C as the version
    /// 2 table reads them. Version 1 has one supplement (TC 31's, here A)
    /// and its ME bit 8 is the single-antenna flag, so A stands in for B
    /// (TC 11: 9 or 8; TC 13: 0.6 or 0.5 NM; TC 16: 3 or 2).
    fn supplements(&self) -> Option<(u8, bool, bool, bool)> {
        let a = self.flag(F_NIC_A);
        match self.adsb_version() {
            Some(1) if self.pos_tc != 0 => Some((self.pos_tc, a, a, false)),
            Some(v) if v >= 2 && self.pos_tc != 0 => {
                Some((self.pos_tc, a, self.flag(F_NIC_B), self.flag(F_NIC_C)))
            }
            _ => None,
        }
    }

    /// NUCp of the last position message's type code (version 0).
    pub fn nuc_p(&self) -> Option<u8> {
        if self.pos_tc == 0 {
            None
        } else {
            nuc_p(self.pos_tc)
        }
    }

    /// NACp, 0–11 (TC 31, or TC 29 version 2).
    pub fn nac_p(&self) -> Option<u8> {
        (self.nac_p != NONE_U8).then_some(self.nac_p)
    }

    /// NACv, 0–4 (TC 19).
    pub fn nac_v(&self) -> Option<u8> {
        (self.nac_v != NONE_U8).then_some(self.nac_v)
    }

    /// SIL, 0–3 (TC 31, or TC 29 version 2).
    pub fn sil(&self) -> Option<u8> {
        (self.sil != NONE_U8).then_some(self.sil)
    }

    /// SIL supplement: probability per sample (`true`) or per hour.
    pub fn sil_per_sample(&self) -> Option<bool> {
        self.flag(F_SIL_TYPE_KNOWN)
            .then(|| self.flag(F_SIL_PER_SAMPLE))
    }

    /// GVA, 0–3 (TC 31 airborne).
    pub fn gva(&self) -> Option<u8> {
        (self.gva != NONE_U8).then_some(self.gva)
    }

    /// NICbaro: the barometric altitude is cross-checked (TC 31 airborne,
    /// TC 29 version 2).
    pub fn nic_baro(&self) -> Option<bool> {
        self.flag(F_NIC_BARO_KNOWN).then(|| self.flag(F_NIC_BARO))
    }

    // ----------------------------------------------------------- upkeep

    pub(super) fn push_signal(&mut self, dbfs: f32) {
        if !dbfs.is_finite() {
            return;
        }
        let i = usize::from(self.signal_next) % SIGNAL_LEN;
        if let Some(s) = self.signal.get_mut(i) {
            *s = dbfs;
        }
        self.signal_next = ((i + 1) % SIGNAL_LEN) as u8;
        if usize::from(self.signal_len) < SIGNAL_LEN {
            self.signal_len += 1;
        }
    }

    pub(super) fn set_on_ground(&mut self, on_ground: Option<bool>) {
        if let Some(g) = on_ground {
            self.flags |= F_GROUND_KNOWN;
            self.set_flag(F_GROUND, g);
        }
    }

    /// Drop the position and velocity if older than `stale_ms` at `t`.
    pub(super) fn clear_stale(&mut self, t: u64, stale_ms: u64) {
        if self.flag(F_POS) && t.saturating_sub(self.pos_t_ms) > stale_ms {
            self.flags &= !F_POS;
        }
        if self.flag(F_VEL) && t.saturating_sub(self.vel_t_ms) > stale_ms {
            self.flags &= !F_VEL;
            self.gs = f32::NAN;
            self.track = f32::NAN;
            self.heading = f32::NAN;
            self.ias = NONE_U16;
            self.tas = NONE_U16;
            self.rate_baro = NONE_I16;
            self.rate_gnss = NONE_I16;
        }
    }
}
