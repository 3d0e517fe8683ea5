//! The codes in the first byte of a frame: downlink format (DF, bits
//! 1–5) and the 3-bit CA, CF or FS (bits 6–8). Every value converts both
//! ways with `From<u8>`; codes with no assigned meaning are kept.

use super::field;

/// Downlink format (DF, bits 1–5). Codes 24–31 are all Comm-D; codes with
/// no assigned meaning are kept in `Unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DownlinkFormat {
    /// DF0: short air-air surveillance (ACAS).
    ShortAcas,
    /// DF4: surveillance, altitude reply.
    SurveillanceAltitude,
    /// DF5: surveillance, identity reply.
    SurveillanceIdentity,
    /// DF11: all-call reply (and acquisition squitter).
    AllCall,
    /// DF16: long air-air surveillance (ACAS).
    LongAcas,
    /// DF17: extended squitter from a Mode S transponder.
    ExtendedSquitter,
    /// DF18: extended squitter from a non-transponder device (ADS-B, TIS-B,
    /// ADS-R).
    ExtendedSquitterNonTransponder,
    /// DF19: military extended squitter.
    MilitaryExtendedSquitter,
    /// DF20: Comm-B, altitude reply.
    CommBAltitude,
    /// DF21: Comm-B, identity reply.
    CommBIdentity,
    /// DF24 (first two bits `11`): Comm-D extended length message.
    CommD,
    /// Any other code (1–3, 6–10, 12–15, 22, 23, or > 31).
    Unknown(u8),
}

impl From<u8> for DownlinkFormat {
    /// From the 5-bit DF code (24–31 all map to [`CommD`](Self::CommD)).
    fn from(v: u8) -> Self {
        match v {
            0 => Self::ShortAcas,
            4 => Self::SurveillanceAltitude,
            5 => Self::SurveillanceIdentity,
            11 => Self::AllCall,
            16 => Self::LongAcas,
            17 => Self::ExtendedSquitter,
            18 => Self::ExtendedSquitterNonTransponder,
            19 => Self::MilitaryExtendedSquitter,
            20 => Self::CommBAltitude,
            21 => Self::CommBIdentity,
            24..=31 => Self::CommD,
            v => Self::Unknown(v),
        }
    }
}

impl From<DownlinkFormat> for u8 {
    /// The DF code (`CommD` gives 24).
    fn from(v: DownlinkFormat) -> u8 {
        match v {
            DownlinkFormat::ShortAcas => 0,
            DownlinkFormat::SurveillanceAltitude => 4,
            DownlinkFormat::SurveillanceIdentity => 5,
            DownlinkFormat::AllCall => 11,
            DownlinkFormat::LongAcas => 16,
            DownlinkFormat::ExtendedSquitter => 17,
            DownlinkFormat::ExtendedSquitterNonTransponder => 18,
            DownlinkFormat::MilitaryExtendedSquitter => 19,
            DownlinkFormat::CommBAltitude => 20,
            DownlinkFormat::CommBIdentity => 21,
            DownlinkFormat::CommD => 24,
            DownlinkFormat::Unknown(v) => v,
        }
    }
}

impl DownlinkFormat {
    /// Frame length in bytes for this DF: 7 for codes 0–15, 14 otherwise.
    ///
    /// ```
    /// use airwaves_core::modes::frame::DownlinkFormat;
    /// assert_eq!(DownlinkFormat::AllCall.frame_len(), 7);
    /// assert_eq!(DownlinkFormat::from(17).frame_len(), 14);
    /// ```
    pub fn frame_len(self) -> usize {
        if u8::from(self) >= 16 {
            field::LONG_LEN
        } else {
            field::SHORT_LEN
        }
    }
}

/// Transponder capability (CA, bits 6–8 of DF11 and DF17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Capability {
    /// 0: level 1 transponder (surveillance only), no ability to set CA 7.
    Level1,
    /// 1–3: reserved.
    Reserved(u8),
    /// 4: level 2+ transponder, on the ground.
    Ground,
    /// 5: level 2+ transponder, airborne.
    Airborne,
    /// 6: level 2+ transponder, airborne or on the ground.
    GroundOrAirborne,
    /// 7: DR ≠ 0, or FS = 2, 3, 4 or 5; airborne or on the ground.
    DownlinkRequestOrAlert,
}

impl From<u8> for Capability {
    /// From the low 3 bits of `v`.
    fn from(v: u8) -> Self {
        match v & 7 {
            0 => Self::Level1,
            4 => Self::Ground,
            5 => Self::Airborne,
            6 => Self::GroundOrAirborne,
            7 => Self::DownlinkRequestOrAlert,
            v => Self::Reserved(v),
        }
    }
}

impl From<Capability> for u8 {
    fn from(v: Capability) -> u8 {
        match v {
            Capability::Level1 => 0,
            Capability::Reserved(v) => v & 7,
            Capability::Ground => 4,
            Capability::Airborne => 5,
            Capability::GroundOrAirborne => 6,
            Capability::DownlinkRequestOrAlert => 7,
        }
    }
}

impl Capability {
    /// `Some(true)` on the ground (CA 4), `Some(false)` airborne (CA 5),
    /// `None` when the code does not say.
    ///
    /// ```
    /// use airwaves_core::modes::frame::Capability;
    /// assert_eq!(Capability::from(5).on_ground(), Some(false));
    /// ```
    pub fn on_ground(self) -> Option<bool> {
        match self {
            Self::Ground => Some(true),
            Self::Airborne => Some(false),
            _ => None,
        }
    }
}

/// Control field of DF18 (CF, bits 6–8): what the extended squitter
/// carries and whose address it is (DO-260B, the CF field of DF18).
///
/// ```
/// use airwaves_core::modes::frame::{ControlField, Frame};
/// let f = Frame::new_unchecked([0x96, 0xA0, 0x82, 0xFB]);
/// assert_eq!(f.cf(), ControlField::AdsR);
/// assert_eq!(u8::from(ControlField::AdsR), 6);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ControlField {
    /// 0: ADS-B from a non-transponder device, ICAO 24-bit address.
    AdsbIcao,
    /// 1: ADS-B from a non-transponder device, non-ICAO (anonymous or
    /// ground vehicle) address.
    AdsbNonIcao,
    /// 2: fine-format TIS-B (ICAO address).
    TisbFine,
    /// 3: coarse-format TIS-B (airborne position and velocity).
    TisbCoarse,
    /// 4: TIS-B and ADS-R management message.
    TisbManagement,
    /// 5: fine-format TIS-B with a non-ICAO address.
    TisbNonIcao,
    /// 6: ADS-R (rebroadcast of ADS-B from another link, e.g. UAT).
    AdsR,
    /// 7: reserved.
    Reserved,
}

impl From<u8> for ControlField {
    /// From the low 3 bits of `v`.
    fn from(v: u8) -> Self {
        match v & 7 {
            0 => Self::AdsbIcao,
            1 => Self::AdsbNonIcao,
            2 => Self::TisbFine,
            3 => Self::TisbCoarse,
            4 => Self::TisbManagement,
            5 => Self::TisbNonIcao,
            6 => Self::AdsR,
            _ => Self::Reserved,
        }
    }
}

impl From<ControlField> for u8 {
    fn from(v: ControlField) -> u8 {
        match v {
            ControlField::AdsbIcao => 0,
            ControlField::AdsbNonIcao => 1,
            ControlField::TisbFine => 2,
            ControlField::TisbCoarse => 3,
            ControlField::TisbManagement => 4,
            ControlField::TisbNonIcao => 5,
            ControlField::AdsR => 6,
            ControlField::Reserved => 7,
        }
    }
}

/// Flight status (FS, bits 6–8 of DF4/5/20/21).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FlightStatus {
    /// 0: no alert, no SPI, airborne.
    Airborne,
    /// 1: no alert, no SPI, on the ground.
    Ground,
    /// 2: alert (squawk changed), no SPI, airborne.
    AlertAirborne,
    /// 3: alert, no SPI, on the ground.
    AlertGround,
    /// 4: alert and SPI (ident), airborne or on the ground.
    AlertSpi,
    /// 5: no alert, SPI (ident), airborne or on the ground.
    Spi,
    /// 6 (reserved) or 7 (not assigned).
    Reserved(u8),
}

impl From<u8> for FlightStatus {
    /// From the low 3 bits of `v`.
    fn from(v: u8) -> Self {
        match v & 7 {
            0 => Self::Airborne,
            1 => Self::Ground,
            2 => Self::AlertAirborne,
            3 => Self::AlertGround,
            4 => Self::AlertSpi,
            5 => Self::Spi,
            v => Self::Reserved(v),
        }
    }
}

impl From<FlightStatus> for u8 {
    fn from(v: FlightStatus) -> u8 {
        match v {
            FlightStatus::Airborne => 0,
            FlightStatus::Ground => 1,
            FlightStatus::AlertAirborne => 2,
            FlightStatus::AlertGround => 3,
            FlightStatus::AlertSpi => 4,
            FlightStatus::Spi => 5,
            FlightStatus::Reserved(v) => v & 7,
        }
    }
}

impl FlightStatus {
    /// `Some(true)` on the ground (FS 1, 3), `Some(false)` airborne (FS 0,
    /// 2), `None` when the code does not say.
    ///
    /// ```
    /// use airwaves_core::modes::frame::FlightStatus;
    /// assert_eq!(FlightStatus::from(3).on_ground(), Some(true));
    /// assert_eq!(FlightStatus::Spi.on_ground(), None);
    /// ```
    pub fn on_ground(self) -> Option<bool> {
        match self {
            Self::Ground | Self::AlertGround => Some(true),
            Self::Airborne | Self::AlertAirborne => Some(false),
            _ => None,
        }
    }

    /// The alert bit: the Mode A code has changed (FS 2, 3, 4).
    pub fn alert(self) -> bool {
        matches!(
            self,
            Self::AlertAirborne | Self::AlertGround | Self::AlertSpi
        )
    }

    /// The special position identification (ident) is active (FS 4, 5).
    pub fn spi(self) -> bool {
        matches!(self, Self::AlertSpi | Self::Spi)
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_enums_round_trip() {
        for v in 0..=255u8 {
            let df = DownlinkFormat::from(v);
            if !(25..=31).contains(&v) {
                assert_eq!(u8::from(df), v);
            }
            assert_eq!(u8::from(Capability::from(v)), v & 7);
            assert_eq!(u8::from(ControlField::from(v)), v & 7);
            assert_eq!(u8::from(FlightStatus::from(v)), v & 7);
        }
        assert!(FlightStatus::AlertSpi.alert() && FlightStatus::AlertSpi.spi());
        assert!(!FlightStatus::Airborne.alert());
    }
}
