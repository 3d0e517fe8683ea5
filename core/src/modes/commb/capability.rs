//! BDS 1,0 (data link capability) and BDS 1,7 (common usage GICB
//! capability): what the transponder can do and which registers it
//! serves.

use super::field;
use super::infer::{require, require_header};
use super::{Bds, Context, Evidence, Register, Reject, inherent_codec};
use crate::modes::field56::Bits;

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

impl Register for DataLinkCapability {
    const BDS: Bds = Bds::DataLinkCapability;
    const HEADER: Option<u8> = Some(0x10);

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

    fn check(w: u64, _ctx: &Context) -> Result<Evidence, Reject> {
        require_header::<Self>(w)?;
        require(field::bds10::RESERVED.get(w) == 0, Reject::Reserved)?;
        Ok(Evidence::intrinsic(8 + 5))
    }
}

inherent_codec! {
    DataLinkCapability;
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
    parse;
    /// Encode into `mb` (integer fields keep their low bits).
    emit;
}

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
}

impl Register for CommonUsageCapability {
    const BDS: Bds = Bds::CommonUsageCapability;

    fn decode(w: u64) -> Self {
        CommonUsageCapability {
            mask: field::bds17::SUPPORTED.get(w) as u32,
        }
    }

    fn encode(&self) -> u64 {
        field::bds17::SUPPORTED.put(0, self.mask as u64)
    }

    fn check(w: u64, _ctx: &Context) -> Result<Evidence, Reject> {
        use field::bds17::*;
        require(RESERVED.get(w) == 0, Reject::Reserved)?;
        let cap = CommonUsageCapability::decode(w);
        require(
            cap.supports(Bds::AircraftIdentification),
            Reject::Consistency,
        )?;
        Ok(Evidence::intrinsic(32 + 1))
    }
}

inherent_codec! {
    CommonUsageCapability;
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
    parse;
    /// Encode into `mb` (bits above 24 of `mask` are dropped).
    emit;
}
