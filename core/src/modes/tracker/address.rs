//! Addresses: the table key of a frame and how far its address can be
//! trusted (see the [module docs](super#what-is-accepted)).

use super::outcome::RejectReason;
use super::{ADDR_MASK, Tracker};
use crate::modes::frame::{ControlField, DownlinkFormat, Frame, InterrogatorCode};

/// Flag bit set in a table key (bit 24, above the 24-bit address) for
/// non-ICAO addresses (DF18 CF 1 and 5: anonymous ADS-B, TIS-B track
/// numbers). They live in a separate key space from ICAO addresses, so an
/// anonymous address never collides with an aircraft's ICAO address.
pub const NON_ICAO: u32 = 1 << 24;

/// Where an aircraft's address comes from; the best source heard is kept
/// (the variants are in order of preference).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum AddressType {
    /// DF17: ADS-B from a Mode S transponder, ICAO address.
    AdsbIcao,
    /// DF18 CF 0: ADS-B from a non-transponder device, ICAO address.
    AdsbIcaoNonTransponder,
    /// DF18 CF 6: ADS-R rebroadcast, ICAO address.
    AdsR,
    /// DF18 CF 2: fine TIS-B, ICAO address.
    TisbIcao,
    /// A multilateration result (see [`ReceivedFrame::mlat`](super::ReceivedFrame::mlat)),
    /// ICAO address.
    Mlat,
    /// DF18 CF 1: ADS-B with a non-ICAO (anonymous or vehicle) address.
    AdsbOther,
    /// DF18 CF 5: fine TIS-B with a non-ICAO address (track number).
    TisbOther,
    /// Only Mode S replies heard (DF11 and AP formats).
    ModeS,
}

impl AddressType {
    /// Whether the address is an ICAO 24-bit address (false for
    /// [`AdsbOther`](Self::AdsbOther) and [`TisbOther`](Self::TisbOther)).
    ///
    /// ```
    /// use airwaves_core::modes::tracker::AddressType;
    /// assert!(AddressType::AdsR.is_icao());
    /// assert!(!AddressType::TisbOther.is_icao());
    /// ```
    pub const fn is_icao(self) -> bool {
        !matches!(self, AddressType::AdsbOther | AddressType::TisbOther)
    }
}

/// How a frame's address is to be treated.
pub(super) struct Source {
    pub(super) key: u32,
    pub(super) addr_type: AddressType,
    /// The frame may add the aircraft to the table.
    pub(super) can_create: bool,
    /// The frame refreshes the known-address window.
    pub(super) trusted: bool,
}

impl<const N: usize> Tracker<N> {
    /// The key and treatment of a frame, or why it is rejected outright.
    pub(super) fn classify<T: AsRef<[u8]>>(
        &self,
        frame: &Frame<T>,
        repaired: u8,
    ) -> Result<Source, RejectReason> {
        let ok_bits = repaired <= self.config.trusted_repaired_bits;
        let pi = |addr_type, key, icao: bool| Source {
            key,
            addr_type,
            can_create: ok_bits,
            trusted: ok_bits && icao,
        };
        match frame.df() {
            DownlinkFormat::AllCall => {
                let s = frame.syndrome();
                if s == 0 {
                    Ok(pi(AddressType::ModeS, frame.aa(), true))
                } else if InterrogatorCode::from_remainder(s).is_some() {
                    Ok(Source {
                        key: frame.aa(),
                        addr_type: AddressType::ModeS,
                        can_create: false,
                        trusted: false,
                    })
                } else {
                    Err(RejectReason::Crc)
                }
            }
            DownlinkFormat::ExtendedSquitter => {
                if frame.syndrome() != 0 {
                    return Err(RejectReason::Crc);
                }
                Ok(pi(AddressType::AdsbIcao, frame.aa(), true))
            }
            DownlinkFormat::ExtendedSquitterNonTransponder => {
                if frame.syndrome() != 0 {
                    return Err(RejectReason::Crc);
                }
                let aa = frame.aa();
                match frame.cf() {
                    ControlField::AdsbIcao => Ok(pi(AddressType::AdsbIcaoNonTransponder, aa, true)),
                    ControlField::AdsbNonIcao => {
                        Ok(pi(AddressType::AdsbOther, aa | NON_ICAO, false))
                    }
                    ControlField::TisbFine => Ok(pi(AddressType::TisbIcao, aa, true)),
                    ControlField::TisbNonIcao => {
                        Ok(pi(AddressType::TisbOther, aa | NON_ICAO, false))
                    }
                    ControlField::AdsR => Ok(pi(AddressType::AdsR, aa, true)),
                    _ => Err(RejectReason::Unsupported),
                }
            }
            df if df.has_address_parity() => Ok(Source {
                key: frame.syndrome() & ADDR_MASK,
                addr_type: AddressType::ModeS,
                can_create: false,
                trusted: false,
            }),
            _ => Err(RejectReason::Unsupported),
        }
    }
}
