//! BDS 4,0: selected vertical intention (Enhanced Surveillance): the
//! altitudes selected on the MCP/FCU and FMS, the pressure setting and
//! the autopilot modes.

use super::infer::{require, status_evidence};
use super::quantise::{clamp_unsigned, quantize};
use super::{Bds, Context, Evidence, Register, Reject, field, inherent_codec};
use crate::macros::enum_with_unknown;

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

enum_with_unknown! {
    /// Target altitude source of BDS 4,0 (bits 55–56).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[cfg_attr(feature = "defmt", derive(defmt::Format))]
    pub enum TargetAltitudeSource(u8 & 0b11) {
        /// 0: unknown.
        Unknown = 0,
        /// 1: aircraft altitude.
        Aircraft = 1,
        /// 2: MCP/FCU selected altitude.
        McpFcu = 2,
        /// 3: FMS selected altitude.
        Fms = 3,
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

/// Lowest and highest plausible barometric pressure setting, hPa.
const QNH_RANGE: (f32, f32) = (850.0, 1100.0);
/// Highest plausible selected altitude, ft.
const MAX_SELECTED_ALT: u64 = 50_000;

impl Register for SelectedVerticalIntention {
    const BDS: Bds = Bds::SelectedVerticalIntention;

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

    fn check(w: u64, _ctx: &Context) -> Result<Evidence, Reject> {
        use field::bds40::*;
        require(
            RESERVED_A.get(w) == 0 && RESERVED_B.get(w) == 0,
            Reject::Reserved,
        )?;
        let mut bits = 10 + status_evidence(w, &GATED)?;
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
        Ok(Evidence::intrinsic(bits))
    }
}

inherent_codec! {
    SelectedVerticalIntention;
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
    parse;
    /// Encode into `mb`; altitudes round to 16 ft and saturate at
    /// 65 520 ft, the pressure setting saturates to 800.0–1209.5 hPa.
    emit;
}
