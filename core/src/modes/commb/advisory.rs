//! BDS 3,0: the ACAS resolution advisory in force, and the threat it
//! is against.

use super::infer::{require, require_header};
use super::{Bds, Context, Evidence, Register, Reject, field, inherent_codec};
use crate::modes::altitude::decode_ac13;

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

impl Register for ResolutionAdvisory {
    const BDS: Bds = Bds::ResolutionAdvisory;
    const HEADER: Option<u8> = Some(0x30);

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

    fn check(w: u64, _ctx: &Context) -> Result<Evidence, Reject> {
        use field::bds30::*;
        require_header::<Self>(w)?;
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
        Ok(Evidence::intrinsic(8 + extra))
    }
}

inherent_codec! {
    ResolutionAdvisory;
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
    parse;
    /// Encode into `mb` (integer fields keep their low bits).
    emit;
}
