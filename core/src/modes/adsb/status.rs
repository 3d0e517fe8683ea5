//! TC 28 aircraft status, TC 29 target state and status, TC 31
//! operational status (BDS 6,1 / 6,2 / 6,5).

use super::{field, get, put};
use crate::macros::enum_with_unknown;
use crate::modes::altitude::decode_id13;

// ---------------------------------------------------------------------------
// TC 28: aircraft status
// ---------------------------------------------------------------------------

/// Aircraft status, TC 28 (BDS 6,1).
///
/// ```
/// use airwaves_core::modes::adsb::{AircraftStatus, EmergencyState, EmergencyStatus};
/// let s = AircraftStatus::Emergency(EmergencyStatus { state: EmergencyState::None, mode_a_code: 0x12B6 });
/// let AircraftStatus::Emergency(e) = s else { unreachable!() };
/// assert_eq!(e.squawk(), 0x6513);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AircraftStatus {
    /// Subtype 1: emergency/priority status and Mode A code.
    Emergency(EmergencyStatus),
    /// Subtype 2: ACAS resolution advisory broadcast.
    AcasRa(AcasRa),
}

impl AircraftStatus {
    pub(super) fn from_word(w: u64, st: u8) -> Option<AircraftStatus> {
        match st {
            1 => Some(AircraftStatus::Emergency(EmergencyStatus {
                state: EmergencyState::from(get(w, field::EMERGENCY) as u8),
                mode_a_code: get(w, field::MODE_A) as u16,
            })),
            2 => Some(AircraftStatus::AcasRa(AcasRa {
                ara: get(w, field::ARA) as u16,
                rac: get(w, field::RAC) as u8,
                rat: get(w, field::RAT) != 0,
                mte: get(w, field::MTE) != 0,
                tti: get(w, field::TTI) as u8,
                tid: get(w, field::TID) as u32,
            })),
            _ => None,
        }
    }

    pub(super) fn to_word(self) -> u64 {
        let mut w = 0;
        match self {
            AircraftStatus::Emergency(e) => {
                put(&mut w, field::ST, 1);
                put(&mut w, field::EMERGENCY, e.state as u64);
                put(&mut w, field::MODE_A, e.mode_a_code as u64);
            }
            AircraftStatus::AcasRa(r) => {
                put(&mut w, field::ST, 2);
                put(&mut w, field::ARA, r.ara as u64);
                put(&mut w, field::RAC, r.rac as u64);
                put(&mut w, field::RAT, r.rat as u64);
                put(&mut w, field::MTE, r.mte as u64);
                put(&mut w, field::TTI, r.tti as u64);
                put(&mut w, field::TID, r.tid as u64);
            }
        }
        w
    }
}

enum_with_unknown! {
    /// Emergency/priority state (ME bits 9–11 of TC 28 subtype 1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[cfg_attr(feature = "defmt", derive(defmt::Format))]
    pub enum EmergencyState(u8 & 0b111) {
        /// 0: no emergency.
        None = 0,
        /// 1: general emergency (7700).
        General = 1,
        /// 2: lifeguard / medical emergency.
        Medical = 2,
        /// 3: minimum fuel.
        MinimumFuel = 3,
        /// 4: no communications (7600).
        NoCommunications = 4,
        /// 5: unlawful interference (7500).
        UnlawfulInterference = 5,
        /// 6: downed aircraft.
        DownedAircraft = 6,
        /// 7: reserved.
        Reserved = 7,
    }
}

/// Emergency/priority status, TC 28 subtype 1.
///
/// | ME bits | field |
/// |---|---|
/// | 9–11 | emergency state |
/// | 12–24 | Mode A code, 13 bits in ID13 order (`C1 A1 C2 A2 C4 A4 X B1 D1 B2 D2 B4 D4`) |
/// | 25–56 | reserved |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EmergencyStatus {
    /// Emergency/priority state.
    pub state: EmergencyState,
    /// The 13-bit Mode A code as transmitted.
    pub mode_a_code: u16,
}

impl EmergencyStatus {
    /// The squawk as octal digits in hex nibbles (`0x7700` for 7700), via
    /// [`decode_id13`](crate::modes::altitude::decode_id13).
    pub fn squawk(&self) -> u16 {
        decode_id13(self.mode_a_code)
    }
}

/// ACAS resolution advisory broadcast, TC 28 subtype 2; fields as in the
/// BDS 3,0 register, kept raw.
///
/// | ME bits | field |
/// |---|---|
/// | 9–22 | ARA, active resolution advisories |
/// | 23–26 | RAC, RA complement record |
/// | 27 | RAT, RA terminated |
/// | 28 | MTE, multiple threat encounter |
/// | 29–30 | TTI, threat type indicator |
/// | 31–56 | TID, threat identity data |
///
/// ```
/// use airwaves_core::modes::adsb::AcasRa;
/// let ra = AcasRa { ara: 0, rac: 0, rat: false, mte: false, tti: 1, tid: 0x484FDE << 2 };
/// assert_eq!(ra.threat_address(), Some(0x484FDE));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AcasRa {
    /// Active resolution advisories, 14 bits.
    pub ara: u16,
    /// RA complement record, 4 bits.
    pub rac: u8,
    /// RA terminated.
    pub rat: bool,
    /// Multiple threat encounter.
    pub mte: bool,
    /// Threat type indicator, 2 bits: 1 = TID holds a Mode S address,
    /// 2 = altitude/range/bearing.
    pub tti: u8,
    /// Threat identity data, 26 bits.
    pub tid: u32,
}

impl AcasRa {
    /// The threat's 24-bit Mode S address (TID bits 1–24) when TTI = 1.
    pub fn threat_address(&self) -> Option<u32> {
        (self.tti & 3 == 1).then_some((self.tid >> 2) & 0xFF_FFFF)
    }
}

// ---------------------------------------------------------------------------
// TC 29: target state and status
// ---------------------------------------------------------------------------

/// Target state and status, TC 29 (BDS 6,2). The subtype is 2 bits (ME
/// bits 6–7).
///
/// ```
/// use airwaves_core::modes::adsb::TargetState;
/// let t = TargetState::V1 { bits: 0x1234 };
/// assert_eq!(t.subtype(), 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TargetState {
    /// Subtype 0 (DO-260A, version 1): ME bits 8–56 kept raw.
    V1 {
        /// ME bits 8–56, 49 bits, bit 56 least significant.
        bits: u64,
    },
    /// Subtype 1 (DO-260B, version 2).
    V2(TargetStateV2),
}

impl TargetState {
    pub(super) fn from_word(w: u64) -> Option<TargetState> {
        match get(w, field::TSS_ST) {
            0 => Some(TargetState::V1 {
                bits: get(w, field::TSS_V1),
            }),
            1 => Some(TargetState::V2(TargetStateV2::from_word(w))),
            _ => None,
        }
    }

    pub(super) fn to_word(self) -> u64 {
        match self {
            TargetState::V1 { bits } => {
                let mut w = 0;
                put(&mut w, field::TSS_V1, bits);
                w
            }
            TargetState::V2(t) => t.to_word(),
        }
    }

    /// The subtype: 0 for version 1, 1 for version 2.
    pub const fn subtype(&self) -> u8 {
        match self {
            TargetState::V1 { .. } => 0,
            TargetState::V2(_) => 1,
        }
    }
}

/// Target state and status, version 2 (TC 29 subtype 1).
///
/// | ME bits | field |
/// |---|---|
/// | 8 | SIL supplement |
/// | 9 | selected altitude type: 0 MCP/FCU, 1 FMS |
/// | 10–20 | selected altitude, 32 ft × (code − 1), 0 = n/a |
/// | 21–29 | barometric pressure setting, 800 + 0.8 × (code − 1) hPa, 0 = n/a |
/// | 30 | selected heading status |
/// | 31–39 | selected heading, 180/256° per unit |
/// | 40–43 | NACp |
/// | 44 | NICbaro |
/// | 45–46 | SIL |
/// | 47 | status of MCP/FCU mode bits (48–50, 52, 54 valid) |
/// | 48 / 49 / 50 | autopilot / VNAV / altitude hold engaged |
/// | 51 | reserved (ADS-R flag) |
/// | 52 / 53 / 54 | approach / TCAS operational / LNAV |
/// | 55–56 | reserved |
///
/// ```
/// use airwaves_core::modes::adsb::TargetStateV2;
/// let t = TargetStateV2 { selected_altitude: 532, baro_setting: 267, heading_available: true,
///                         selected_heading: 95, ..TargetStateV2::default() };
/// assert_eq!(t.selected_altitude_ft(), Some(16_992));
/// assert_eq!(t.baro_setting_hpa(), Some(1012.8));
/// assert!((t.selected_heading_deg().unwrap() - 66.8).abs() < 0.01);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TargetStateV2 {
    /// SIL supplement: probability per sample (true) or per hour.
    pub sil_supplement: bool,
    /// Selected altitude source: FMS (true) or MCP/FCU (false).
    pub fms_altitude: bool,
    /// Selected altitude code, 11 bits.
    pub selected_altitude: u16,
    /// Barometric pressure setting code, 9 bits.
    pub baro_setting: u16,
    /// Selected heading status: the heading is available.
    pub heading_available: bool,
    /// Selected heading code, 9 bits (sign bit and 8 bits).
    pub selected_heading: u16,
    /// NACp, 4 bits.
    pub nac_p: u8,
    /// NICbaro: barometric altitude cross-checked.
    pub nic_baro: bool,
    /// SIL, 2 bits.
    pub sil: u8,
    /// Status of the MCP/FCU mode bits: autopilot, VNAV, altitude hold,
    /// approach and LNAV are valid only when set.
    pub mode_valid: bool,
    /// Autopilot engaged.
    pub autopilot: bool,
    /// VNAV mode engaged.
    pub vnav: bool,
    /// Altitude hold mode engaged.
    pub alt_hold: bool,
    /// Approach mode engaged.
    pub approach: bool,
    /// TCAS/ACAS operational (independent of `mode_valid`).
    pub tcas_operational: bool,
    /// LNAV mode engaged.
    pub lnav: bool,
}

impl TargetStateV2 {
    pub(super) fn from_word(w: u64) -> TargetStateV2 {
        let b = |f| get(w, f) != 0;
        TargetStateV2 {
            sil_supplement: b(field::TSS_SIL_SUPP),
            fms_altitude: b(field::TSS_ALT_TYPE),
            selected_altitude: get(w, field::TSS_ALT) as u16,
            baro_setting: get(w, field::TSS_BARO) as u16,
            heading_available: b(field::TSS_HDG_STATUS),
            selected_heading: get(w, field::TSS_HDG) as u16,
            nac_p: get(w, field::TSS_NAC_P) as u8,
            nic_baro: b(field::TSS_NIC_BARO),
            sil: get(w, field::TSS_SIL) as u8,
            mode_valid: b(field::TSS_MODE_STATUS),
            autopilot: b(field::TSS_AUTOPILOT),
            vnav: b(field::TSS_VNAV),
            alt_hold: b(field::TSS_ALT_HOLD),
            approach: b(field::TSS_APPROACH),
            tcas_operational: b(field::TSS_TCAS),
            lnav: b(field::TSS_LNAV),
        }
    }

    pub(super) fn to_word(self) -> u64 {
        let mut w = 0;
        let mut p = |f, v: u64| put(&mut w, f, v);
        p(field::TSS_ST, 1);
        p(field::TSS_SIL_SUPP, self.sil_supplement as u64);
        p(field::TSS_ALT_TYPE, self.fms_altitude as u64);
        p(field::TSS_ALT, self.selected_altitude as u64);
        p(field::TSS_BARO, self.baro_setting as u64);
        p(field::TSS_HDG_STATUS, self.heading_available as u64);
        p(field::TSS_HDG, self.selected_heading as u64);
        p(field::TSS_NAC_P, self.nac_p as u64);
        p(field::TSS_NIC_BARO, self.nic_baro as u64);
        p(field::TSS_SIL, self.sil as u64);
        p(field::TSS_MODE_STATUS, self.mode_valid as u64);
        p(field::TSS_AUTOPILOT, self.autopilot as u64);
        p(field::TSS_VNAV, self.vnav as u64);
        p(field::TSS_ALT_HOLD, self.alt_hold as u64);
        p(field::TSS_APPROACH, self.approach as u64);
        p(field::TSS_TCAS, self.tcas_operational as u64);
        p(field::TSS_LNAV, self.lnav as u64);
        w
    }

    /// Selected altitude `32 · (code − 1)` ft; `None` if not available.
    pub fn selected_altitude_ft(&self) -> Option<i32> {
        let code = (self.selected_altitude & 0x7FF) as i32;
        (code != 0).then_some((code - 1) * 32)
    }

    /// Barometric pressure setting `800 + 0.8 · (code − 1)` hPa (mb);
    /// `None` if not available.
    pub fn baro_setting_hpa(&self) -> Option<f32> {
        let code = (self.baro_setting & 0x1FF) as u32;
        // Exact in tenths, then one rounding to f32.
        (code != 0).then(|| (8000 + 8 * (code - 1)) as f32 / 10.0)
    }

    /// Selected heading `code · 180/256` degrees, if available.
    pub fn selected_heading_deg(&self) -> Option<f32> {
        self.heading_available
            .then_some((self.selected_heading & 0x1FF) as f32 * (180.0 / 256.0))
    }
}

// ---------------------------------------------------------------------------
// TC 31: operational status
// ---------------------------------------------------------------------------

/// Capability class of an operational status message, with its subtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CapabilityClass {
    /// Subtype 0: airborne capability class, ME bits 9–24 (bit 9 = MSB).
    Airborne(u16),
    /// Subtype 1: surface capability class and length/width code.
    Surface {
        /// Surface capability class, 12 bits, ME bits 9–20.
        cc: u16,
        /// Length/width code, 4 bits, ME bits 21–24.
        length_width: u8,
    },
}

/// Aircraft operational status, TC 31 subtypes 0 (airborne) and 1
/// (surface) (BDS 6,5). Field meanings are those of version 2 (DO-260B);
/// versions 0 and 1 use the same positions with the differences noted.
///
/// | ME bits | field |
/// |---|---|
/// | 6–8 | subtype: 0 airborne, 1 surface |
/// | 9–24 | airborne capability class / surface capability class (9–20) + length/width (21–24) |
/// | 25–40 | operational mode |
/// | 41–43 | ADS-B version: 0 DO-260, 1 DO-260A, 2 DO-260B |
/// | 44 | NIC supplement-A |
/// | 45–48 | NACp |
/// | 49–50 | GVA (version 1: BAQ; surface: reserved) |
/// | 51–52 | SIL |
/// | 53 | airborne: NICbaro; surface: track angle (0) / heading (1) |
/// | 54 | HRD, horizontal reference: 0 true north, 1 magnetic north |
/// | 55 | SIL supplement (version 2): 0 per hour, 1 per sample |
/// | 56 | reserved |
///
/// ```
/// use airwaves_core::modes::adsb::{CapabilityClass, OperationalStatus};
/// let ops = OperationalStatus { capability: CapabilityClass::Airborne(0x2100), operational_mode: 0x0200,
///     version: 2, nic_a: false, nac_p: 10, gva: 2, sil: 3, nic_baro_or_trk_hdg: true,
///     hrd: false, sil_supplement: false };
/// assert_eq!((ops.acas_operational(), ops.target_state_capable(), ops.sda()), (Some(true), true, 2));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OperationalStatus {
    /// Capability class; its variant gives the subtype.
    pub capability: CapabilityClass,
    /// Operational mode, 16 bits (ME bits 25–40, bit 25 = MSB).
    pub operational_mode: u16,
    /// ADS-B version number, 3 bits.
    pub version: u8,
    /// NIC supplement-A.
    pub nic_a: bool,
    /// NACp, 4 bits.
    pub nac_p: u8,
    /// GVA (BAQ in version 1; reserved bits on the surface), 2 bits.
    pub gva: u8,
    /// SIL, 2 bits.
    pub sil: u8,
    /// Airborne: NICbaro. Surface: track angle (false) or heading (true).
    pub nic_baro_or_trk_hdg: bool,
    /// HRD: horizontal reference is magnetic north (true) or true north.
    pub hrd: bool,
    /// SIL supplement: per sample (true) or per hour (false).
    pub sil_supplement: bool,
}

impl OperationalStatus {
    pub(super) fn from_word(w: u64, st: u8) -> Option<OperationalStatus> {
        let capability = match st {
            0 => CapabilityClass::Airborne(get(w, field::OPS_CC) as u16),
            1 => CapabilityClass::Surface {
                cc: get(w, field::OPS_CC_SURFACE) as u16,
                length_width: get(w, field::OPS_LW) as u8,
            },
            _ => return None,
        };
        Some(OperationalStatus {
            capability,
            operational_mode: get(w, field::OPS_OM) as u16,
            version: get(w, field::OPS_VERSION) as u8,
            nic_a: get(w, field::OPS_NIC_A) != 0,
            nac_p: get(w, field::OPS_NAC_P) as u8,
            gva: get(w, field::OPS_GVA) as u8,
            sil: get(w, field::OPS_SIL) as u8,
            nic_baro_or_trk_hdg: get(w, field::OPS_NIC_BARO) != 0,
            hrd: get(w, field::OPS_HRD) != 0,
            sil_supplement: get(w, field::OPS_SIL_SUPP) != 0,
        })
    }

    pub(super) fn to_word(self) -> u64 {
        let mut w = 0;
        match self.capability {
            CapabilityClass::Airborne(cc) => {
                put(&mut w, field::OPS_CC, cc as u64);
            }
            CapabilityClass::Surface { cc, length_width } => {
                put(&mut w, field::ST, 1);
                put(&mut w, field::OPS_CC_SURFACE, cc as u64);
                put(&mut w, field::OPS_LW, length_width as u64);
            }
        }
        put(&mut w, field::OPS_OM, self.operational_mode as u64);
        put(&mut w, field::OPS_VERSION, self.version as u64);
        put(&mut w, field::OPS_NIC_A, self.nic_a as u64);
        put(&mut w, field::OPS_NAC_P, self.nac_p as u64);
        put(&mut w, field::OPS_GVA, self.gva as u64);
        put(&mut w, field::OPS_SIL, self.sil as u64);
        put(&mut w, field::OPS_NIC_BARO, self.nic_baro_or_trk_hdg as u64);
        put(&mut w, field::OPS_HRD, self.hrd as u64);
        put(&mut w, field::OPS_SIL_SUPP, self.sil_supplement as u64);
        w
    }

    /// The subtype: 0 airborne, 1 surface.
    pub const fn subtype(&self) -> u8 {
        match self.capability {
            CapabilityClass::Airborne(_) => 0,
            CapabilityClass::Surface { .. } => 1,
        }
    }

    /// Airborne capability bit at ME bit `n` (9–24).
    const fn cc_bit(&self, n: u32) -> bool {
        match self.capability {
            CapabilityClass::Airborne(cc) => (cc >> (24 - n)) & 1 != 0,
            CapabilityClass::Surface { cc, .. } => n <= 20 && (cc >> (20 - n)) & 1 != 0,
        }
    }

    /// Operational-mode bit at ME bit `n` (25–40).
    const fn om_bit(&self, n: u32) -> bool {
        (self.operational_mode >> (40 - n)) & 1 != 0
    }

    /// ACAS operational (airborne CC, ME bit 11). Version 2 sends
    /// "TCAS operational"; version 1 sends "not TCAS" (inverted). `None` on
    /// the surface and for other versions.
    pub const fn acas_operational(&self) -> Option<bool> {
        match (self.capability, self.version) {
            (CapabilityClass::Airborne(_), 2) => Some(self.cc_bit(11)),
            (CapabilityClass::Airborne(_), 1) => Some(!self.cc_bit(11)),
            _ => None,
        }
    }

    /// 1090ES IN capability (ME bit 12; CDTI in version 1).
    pub const fn es_in_1090(&self) -> bool {
        self.cc_bit(12)
    }

    /// Air-referenced velocity report capability (airborne, ME bit 15).
    pub const fn arv(&self) -> bool {
        matches!(self.capability, CapabilityClass::Airborne(_)) && self.cc_bit(15)
    }

    /// Target state report capability (airborne, ME bit 16).
    pub const fn target_state_capable(&self) -> bool {
        matches!(self.capability, CapabilityClass::Airborne(_)) && self.cc_bit(16)
    }

    /// Target change report capability (airborne, ME bits 17–18): 0 none,
    /// 1 TC+0 only, 2 multiple TC reports, 3 reserved.
    pub const fn target_change_capability(&self) -> u8 {
        match self.capability {
            CapabilityClass::Airborne(cc) => ((cc >> 6) & 3) as u8,
            CapabilityClass::Surface { .. } => 0,
        }
    }

    /// UAT IN capability (airborne ME bit 19, surface ME bit 16).
    pub const fn uat_in(&self) -> bool {
        match self.capability {
            CapabilityClass::Airborne(_) => self.cc_bit(19),
            CapabilityClass::Surface { .. } => self.cc_bit(16),
        }
    }

    /// Position offset applied (surface, ME bit 11).
    pub const fn poa(&self) -> bool {
        matches!(self.capability, CapabilityClass::Surface { .. }) && self.cc_bit(11)
    }

    /// Class B2 transmit power below 70 W (surface, ME bit 15).
    pub const fn b2_low(&self) -> bool {
        matches!(self.capability, CapabilityClass::Surface { .. }) && self.cc_bit(15)
    }

    /// NACv (surface, ME bits 17–19).
    pub const fn surface_nac_v(&self) -> Option<u8> {
        match self.capability {
            CapabilityClass::Surface { cc, .. } => Some(((cc >> 1) & 7) as u8),
            CapabilityClass::Airborne(_) => None,
        }
    }

    /// NIC supplement-C (surface, ME bit 20).
    pub const fn nic_c(&self) -> Option<bool> {
        match self.capability {
            CapabilityClass::Surface { cc, .. } => Some(cc & 1 != 0),
            CapabilityClass::Airborne(_) => None,
        }
    }

    /// Length/width code (surface, ME bits 21–24).
    pub const fn length_width(&self) -> Option<u8> {
        match self.capability {
            CapabilityClass::Surface { length_width, .. } => Some(length_width & 0xF),
            CapabilityClass::Airborne(_) => None,
        }
    }

    /// TCAS/ACAS resolution advisory active (OM, ME bit 27).
    pub const fn tcas_ra_active(&self) -> bool {
        self.om_bit(27)
    }

    /// IDENT switch active (OM, ME bit 28).
    pub const fn ident_active(&self) -> bool {
        self.om_bit(28)
    }

    /// Single antenna flag (OM, ME bit 30).
    pub const fn single_antenna(&self) -> bool {
        self.om_bit(30)
    }

    /// System design assurance, SDA (OM, ME bits 31–32).
    pub const fn sda(&self) -> u8 {
        ((self.operational_mode >> 8) & 3) as u8
    }

    /// GPS antenna offset (surface OM, ME bits 33–40).
    pub const fn gps_antenna_offset(&self) -> Option<u8> {
        match self.capability {
            CapabilityClass::Surface { .. } => Some(self.operational_mode as u8),
            CapabilityClass::Airborne(_) => None,
        }
    }
}
