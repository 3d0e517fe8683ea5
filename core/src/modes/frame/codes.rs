//! The codes in the first byte of a frame: downlink format (DF, bits
//! 1–5) and the 3-bit CA, CF or FS (bits 6–8). Every value converts both
//! ways with `From<u8>`; codes with no assigned meaning are kept.

use super::field;
use crate::macros::enum_with_unknown;

enum_with_unknown! {
    /// Downlink format (DF, bits 1–5). Codes 24–31 are all Comm-D (24
    /// converts back); codes with no assigned meaning are kept in `Unknown`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[cfg_attr(feature = "defmt", derive(defmt::Format))]
    pub enum DownlinkFormat(u8) {
        /// DF0: short air-air surveillance (ACAS).
        ShortAcas = 0,
        /// DF4: surveillance, altitude reply.
        SurveillanceAltitude = 4,
        /// DF5: surveillance, identity reply.
        SurveillanceIdentity = 5,
        /// DF11: all-call reply (and acquisition squitter).
        AllCall = 11,
        /// DF16: long air-air surveillance (ACAS).
        LongAcas = 16,
        /// DF17: extended squitter from a Mode S transponder.
        ExtendedSquitter = 17,
        /// DF18: extended squitter from a non-transponder device (ADS-B,
        /// TIS-B, ADS-R).
        ExtendedSquitterNonTransponder = 18,
        /// DF19: military extended squitter.
        MilitaryExtendedSquitter = 19,
        /// DF20: Comm-B, altitude reply.
        CommBAltitude = 20,
        /// DF21: Comm-B, identity reply.
        CommBIdentity = 21,
        /// DF24 (first two bits `11`, codes 24–31): Comm-D extended length
        /// message.
        CommD = 24 | 25..=31,
        ;
        /// Any other code (1–3, 6–10, 12–15, 22, 23, or > 31).
        Unknown(u8),
    }
}

impl DownlinkFormat {
    /// Whether the format's parity is overlaid with the address (AP: DF0,
    /// 4, 5, 16, 20, 21, 24–31), so that its address is recovered from the
    /// remainder and cannot be verified: such a frame is accepted only for
    /// an address known from a frame that can be.
    ///
    /// ```
    /// use airwaves_core::modes::frame::DownlinkFormat;
    /// assert!(DownlinkFormat::from(20).has_address_parity());
    /// assert!(!DownlinkFormat::ExtendedSquitter.has_address_parity());
    /// ```
    #[inline]
    pub fn has_address_parity(self) -> bool {
        Self::code_has_address_parity(u8::from(self))
    }

    /// [`has_address_parity`](Self::has_address_parity) of a 5-bit DF
    /// code, as a bit test (the demodulator's form, per candidate frame).
    #[inline]
    pub const fn code_has_address_parity(df: u8) -> bool {
        matches!(df, 0 | 4 | 5 | 16 | 20 | 21 | 24..=31)
    }

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

enum_with_unknown! {
    /// Transponder capability (CA, bits 6–8 of DF11 and DF17); from the
    /// low 3 bits of a `u8`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[cfg_attr(feature = "defmt", derive(defmt::Format))]
    pub enum Capability(u8 & 0x07) {
        /// 0: level 1 transponder (surveillance only), no ability to set
        /// CA 7.
        Level1 = 0,
        /// 4: level 2+ transponder, on the ground.
        Ground = 4,
        /// 5: level 2+ transponder, airborne.
        Airborne = 5,
        /// 6: level 2+ transponder, airborne or on the ground.
        GroundOrAirborne = 6,
        /// 7: DR ≠ 0, or FS = 2, 3, 4 or 5; airborne or on the ground.
        DownlinkRequestOrAlert = 7,
        ;
        /// 1–3: reserved.
        Reserved(u8),
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

enum_with_unknown! {
    /// Control field of DF18 (CF, bits 6–8): what the extended squitter
    /// carries and whose address it is (DO-260B, the CF field of DF18);
    /// from the low 3 bits of a `u8`.
    ///
    /// ```
    /// use airwaves_core::modes::frame::{ControlField, Frame};
    /// let f = Frame::new_unchecked([0x96, 0xA0, 0x82, 0xFB]);
    /// assert_eq!(f.cf(), ControlField::AdsR);
    /// assert_eq!(u8::from(ControlField::AdsR), 6);
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[cfg_attr(feature = "defmt", derive(defmt::Format))]
    pub enum ControlField(u8 & 0x07) {
        /// 0: ADS-B from a non-transponder device, ICAO 24-bit address.
        AdsbIcao = 0,
        /// 1: ADS-B from a non-transponder device, non-ICAO (anonymous or
        /// ground vehicle) address.
        AdsbNonIcao = 1,
        /// 2: fine-format TIS-B (ICAO address).
        TisbFine = 2,
        /// 3: coarse-format TIS-B (airborne position and velocity).
        TisbCoarse = 3,
        /// 4: TIS-B and ADS-R management message.
        TisbManagement = 4,
        /// 5: fine-format TIS-B with a non-ICAO address.
        TisbNonIcao = 5,
        /// 6: ADS-R (rebroadcast of ADS-B from another link, e.g. UAT).
        AdsR = 6,
        /// 7: reserved.
        Reserved = 7,
    }
}

enum_with_unknown! {
    /// Flight status (FS, bits 6–8 of DF4/5/20/21); from the low 3 bits of
    /// a `u8`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[cfg_attr(feature = "defmt", derive(defmt::Format))]
    pub enum FlightStatus(u8 & 0x07) {
        /// 0: no alert, no SPI, airborne.
        Airborne = 0,
        /// 1: no alert, no SPI, on the ground.
        Ground = 1,
        /// 2: alert (squawk changed), no SPI, airborne.
        AlertAirborne = 2,
        /// 3: alert, no SPI, on the ground.
        AlertGround = 3,
        /// 4: alert and SPI (ident), airborne or on the ground.
        AlertSpi = 4,
        /// 5: no alert, SPI (ident), airborne or on the ground.
        Spi = 5,
        ;
        /// 6 (reserved) or 7 (not assigned).
        Reserved(u8),
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
            assert_eq!(
                df.has_address_parity(),
                matches!(v, 0 | 4 | 5 | 16 | 20 | 21 | 24..=31),
                "{v}"
            );
        }
        assert!(FlightStatus::AlertSpi.alert() && FlightStatus::AlertSpi.spi());
        assert!(!FlightStatus::Airborne.alert());
    }
}
