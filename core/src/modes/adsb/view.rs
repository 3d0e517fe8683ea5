//! The [`Me`] typed view: one getter and setter per ME field.

use super::{AdsbRepr, ParseError, field, get, put};
use crate::modes::charset;
use crate::modes::field56::{self, Field56};
use field::Field;

/// The ME kind of [`Field56`]: names the view `Me` and reports a short
/// buffer as [`ParseError::Truncated`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeKind {}

impl field56::Kind for MeKind {
    const NAME: &'static str = "Me";
    type Error = ParseError;
    fn truncated(got: usize) -> ParseError {
        ParseError::Truncated {
            expected: field56::LEN,
            got,
        }
    }
}

/// A read/write view of an ME field (7 bytes): the shared 56-bit view
/// [`Field56`] read as ADS-B.
///
/// Getters return the raw code of one field at the bit position the
/// specification gives it; which getters are meaningful depends on
/// [`type_code`](Field56::type_code) (and for TC 19/28/29/31 on the
/// subtype). Each getter's documentation gives its ME bit range. Setters
/// write the low bits of the value into the field and leave every other
/// bit alone.
///
/// Bytes beyond the seventh are ignored. After
/// [`check_len`](Field56::check_len) (or [`new_checked`](Field56::new_checked))
/// succeeds no accessor panics; with [`new_unchecked`](Field56::new_unchecked)
/// on a buffer shorter than 7 bytes accessors panic on the slice index.
pub type Me<T> = Field56<T, MeKind>;

impl<T: AsRef<[u8]>> Me<T> {
    /// The 8 callsign character codes (6-bit, ME bits 9–56; TC 1–4).
    pub fn callsign_codes(&self) -> [u8; 8] {
        charset::codes(self.word())
    }

    /// Parse the content; same as [`AdsbRepr::parse`] on the buffer.
    pub fn repr(&self) -> AdsbRepr {
        AdsbRepr::from_word(self.word())
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Me<T> {
    #[inline]
    fn update(&mut self, f: Field, value: u64) {
        let mut w = self.word();
        put(&mut w, f, value);
        self.set_word(w);
    }

    /// Set the 8 callsign character codes (low 6 bits of each).
    pub fn set_callsign_codes(&mut self, codes: [u8; 8]) {
        self.set_word(charset::put_codes(self.word(), codes));
    }
}

/// Conversion of a field's raw bits to and from the getter's type.
trait Bits: Sized {
    fn from_bits(v: u64) -> Self;
    fn to_bits(self) -> u64;
}

impl Bits for bool {
    #[inline(always)]
    fn from_bits(v: u64) -> Self {
        v != 0
    }
    #[inline(always)]
    fn to_bits(self) -> u64 {
        self as u64
    }
}

macro_rules! impl_bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            #[inline(always)]
            fn from_bits(v: u64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_bits(self) -> u64 {
                self as u64
            }
        }
    )*};
}
impl_bits!(u8, u16, u32, u64);

macro_rules! me_fields {
    ($( $(#[$doc:meta])* $get:ident, $set:ident: $ty:ty = $field:ident; )*) => {
        impl<T: AsRef<[u8]>> Me<T> {
            $(
                $(#[$doc])*
                #[inline]
                pub fn $get(&self) -> $ty {
                    <$ty as Bits>::from_bits(get(self.word(), field::$field))
                }
            )*
        }
        impl<T: AsRef<[u8]> + AsMut<[u8]>> Me<T> {
            $(
                #[doc = concat!("Set the field read by [`Field56::", stringify!($get),
                    "`]; bits beyond its width are dropped.")]
                #[inline]
                pub fn $set(&mut self, value: $ty) {
                    self.update(field::$field, Bits::to_bits(value));
                }
            )*
        }
    };
}

me_fields! {
    /// Type code, ME bits 1–5.
    type_code, set_type_code: u8 = TC;
    /// Subtype, ME bits 6–8 (TC 19, 28, 31; for TC 1–4 the emitter
    /// category CA). TC 29 uses only bits 6–7: see [`Field56::tss_subtype`].
    subtype, set_subtype: u8 = ST;
    /// Surface movement code, ME bits 6–12 (TC 5–8); see [`Movement`](super::Movement).
    movement, set_movement: u8 = MOVEMENT;
    /// Ground-track status, ME bit 13 (TC 5–8): track valid.
    track_status, set_track_status: bool = TRACK_STATUS;
    /// Ground track code, ME bits 14–20 (TC 5–8), 360/128° units.
    track, set_track: u8 = TRACK;
    /// Surveillance status, ME bits 6–7 (TC 9–18, 20–22).
    surveillance_status, set_surveillance_status: u8 = SS;
    /// NIC supplement-B (single-antenna flag before version 2), ME bit 8
    /// (TC 9–18, 20–22).
    nic_b, set_nic_b: bool = NIC_B;
    /// 12-bit altitude code, ME bits 9–20 (TC 9–18, 20–22).
    altitude_code, set_altitude_code: u16 = ALT;
    /// Time flag T (UTC synchronised), ME bit 21 (TC 5–18, 20–22).
    utc_sync, set_utc_sync: bool = T;
    /// CPR format F (true = odd), ME bit 22 (TC 5–18, 20–22).
    cpr_odd, set_cpr_odd: bool = F;
    /// 17-bit CPR latitude, ME bits 23–39 (TC 5–18, 20–22).
    cpr_lat, set_cpr_lat: u32 = LAT;
    /// 17-bit CPR longitude, ME bits 40–56 (TC 5–18, 20–22).
    cpr_lon, set_cpr_lon: u32 = LON;
    /// Intent change flag, ME bit 9 (TC 19).
    intent_change, set_intent_change: bool = IC;
    /// IFR capability flag (reserved-A in version 2), ME bit 10 (TC 19).
    ifr_capability, set_ifr_capability: bool = IFR;
    /// NACv (NUCr in version 0), ME bits 11–13 (TC 19).
    nac_v, set_nac_v: u8 = NAC_V;
    /// East-west direction (true = west), ME bit 14 (TC 19 subtypes 1–2).
    ew_west, set_ew_west: bool = EW_DIR;
    /// East-west velocity code, ME bits 15–24 (TC 19 subtypes 1–2).
    ew_velocity, set_ew_velocity: u16 = EW;
    /// North-south direction (true = south), ME bit 25 (TC 19 subtypes 1–2).
    ns_south, set_ns_south: bool = NS_DIR;
    /// North-south velocity code, ME bits 26–35 (TC 19 subtypes 1–2).
    ns_velocity, set_ns_velocity: u16 = NS;
    /// Magnetic heading status, ME bit 14 (TC 19 subtypes 3–4).
    heading_status, set_heading_status: bool = HDG_STATUS;
    /// Magnetic heading code, ME bits 15–24 (TC 19 subtypes 3–4), 360/1024°.
    heading, set_heading: u16 = HDG;
    /// Airspeed type (false = IAS, true = TAS), ME bit 25 (TC 19 subtypes 3–4).
    airspeed_type, set_airspeed_type: bool = AS_TYPE;
    /// Airspeed code, ME bits 26–35 (TC 19 subtypes 3–4).
    airspeed, set_airspeed: u16 = AS;
    /// Vertical-rate source (false = GNSS, true = barometric), ME bit 36 (TC 19).
    vr_source_baro, set_vr_source_baro: bool = VR_SRC;
    /// Vertical-rate sign (true = down), ME bit 37 (TC 19).
    vr_down, set_vr_down: bool = VR_SIGN;
    /// Vertical-rate code, ME bits 38–46 (TC 19).
    vertical_rate, set_vertical_rate: u16 = VR;
    /// GNSS-minus-baro sign (true = GNSS below baro), ME bit 49 (TC 19).
    diff_below, set_diff_below: bool = DIF_SIGN;
    /// GNSS-minus-baro difference code, ME bits 50–56 (TC 19).
    gnss_baro_diff, set_gnss_baro_diff: u8 = DIF;
    /// Emergency/priority state, ME bits 9–11 (TC 28 subtype 1).
    emergency_state, set_emergency_state: u8 = EMERGENCY;
    /// Mode A code (ID13 bit order), ME bits 12–24 (TC 28 subtype 1).
    mode_a_code, set_mode_a_code: u16 = MODE_A;
    /// Active resolution advisories, ME bits 9–22 (TC 28 subtype 2).
    ara, set_ara: u16 = ARA;
    /// RA complement record, ME bits 23–26 (TC 28 subtype 2).
    rac, set_rac: u8 = RAC;
    /// RA terminated, ME bit 27 (TC 28 subtype 2).
    rat, set_rat: bool = RAT;
    /// Multiple threat encounter, ME bit 28 (TC 28 subtype 2).
    mte, set_mte: bool = MTE;
    /// Threat type indicator, ME bits 29–30 (TC 28 subtype 2).
    tti, set_tti: u8 = TTI;
    /// Threat identity data, ME bits 31–56 (TC 28 subtype 2).
    tid, set_tid: u32 = TID;
    /// Target-state subtype, ME bits 6–7 (TC 29).
    tss_subtype, set_tss_subtype: u8 = TSS_ST;
    /// SIL supplement, ME bit 8 (TC 29 subtype 1).
    tss_sil_supplement, set_tss_sil_supplement: bool = TSS_SIL_SUPP;
    /// Selected altitude type (false = MCP/FCU, true = FMS), ME bit 9 (TC 29 subtype 1).
    selected_altitude_fms, set_selected_altitude_fms: bool = TSS_ALT_TYPE;
    /// Selected altitude code, ME bits 10–20 (TC 29 subtype 1).
    selected_altitude, set_selected_altitude: u16 = TSS_ALT;
    /// Barometric pressure setting code, ME bits 21–29 (TC 29 subtype 1).
    baro_setting, set_baro_setting: u16 = TSS_BARO;
    /// Selected heading status, ME bit 30 (TC 29 subtype 1).
    selected_heading_status, set_selected_heading_status: bool = TSS_HDG_STATUS;
    /// Selected heading code, ME bits 31–39 (TC 29 subtype 1), 180/256°.
    selected_heading, set_selected_heading: u16 = TSS_HDG;
    /// NACp, ME bits 40–43 (TC 29 subtype 1).
    tss_nac_p, set_tss_nac_p: u8 = TSS_NAC_P;
    /// NICbaro, ME bit 44 (TC 29 subtype 1).
    tss_nic_baro, set_tss_nic_baro: bool = TSS_NIC_BARO;
    /// SIL, ME bits 45–46 (TC 29 subtype 1).
    tss_sil, set_tss_sil: u8 = TSS_SIL;
    /// Status of the MCP/FCU mode bits, ME bit 47 (TC 29 subtype 1).
    mode_status, set_mode_status: bool = TSS_MODE_STATUS;
    /// Autopilot engaged, ME bit 48 (TC 29 subtype 1).
    autopilot, set_autopilot: bool = TSS_AUTOPILOT;
    /// VNAV engaged, ME bit 49 (TC 29 subtype 1).
    vnav, set_vnav: bool = TSS_VNAV;
    /// Altitude hold engaged, ME bit 50 (TC 29 subtype 1).
    alt_hold, set_alt_hold: bool = TSS_ALT_HOLD;
    /// Approach mode engaged, ME bit 52 (TC 29 subtype 1).
    approach, set_approach: bool = TSS_APPROACH;
    /// TCAS/ACAS operational, ME bit 53 (TC 29 subtype 1).
    tcas_operational, set_tcas_operational: bool = TSS_TCAS;
    /// LNAV engaged, ME bit 54 (TC 29 subtype 1).
    lnav, set_lnav: bool = TSS_LNAV;
    /// Capability class, ME bits 9–24 (TC 31 subtype 0).
    capability_class, set_capability_class: u16 = OPS_CC;
    /// Surface capability class, ME bits 9–20 (TC 31 subtype 1).
    surface_capability_class, set_surface_capability_class: u16 = OPS_CC_SURFACE;
    /// Length/width code, ME bits 21–24 (TC 31 subtype 1).
    length_width, set_length_width: u8 = OPS_LW;
    /// Operational mode, ME bits 25–40 (TC 31).
    operational_mode, set_operational_mode: u16 = OPS_OM;
    /// ADS-B version number, ME bits 41–43 (TC 31).
    version, set_version: u8 = OPS_VERSION;
    /// NIC supplement-A, ME bit 44 (TC 31).
    nic_a, set_nic_a: bool = OPS_NIC_A;
    /// NACp, ME bits 45–48 (TC 31).
    ops_nac_p, set_ops_nac_p: u8 = OPS_NAC_P;
    /// GVA (BAQ in version 1; reserved on the surface), ME bits 49–50 (TC 31).
    gva, set_gva: u8 = OPS_GVA;
    /// SIL, ME bits 51–52 (TC 31).
    ops_sil, set_ops_sil: u8 = OPS_SIL;
    /// NICbaro (airborne) / track-angle-or-heading (surface), ME bit 53 (TC 31).
    nic_baro_or_trk_hdg, set_nic_baro_or_trk_hdg: bool = OPS_NIC_BARO;
    /// Horizontal reference direction (false = true north), ME bit 54 (TC 31).
    hrd, set_hrd: bool = OPS_HRD;
    /// SIL supplement (false = per hour, true = per sample), ME bit 55 (TC 31).
    ops_sil_supplement, set_ops_sil_supplement: bool = OPS_SIL_SUPP;
}
