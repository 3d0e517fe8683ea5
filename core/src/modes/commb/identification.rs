//! BDS 2,0: aircraft identification, the callsign in the 6-bit character
//! set that ADS-B identification uses too.

use super::infer::{require, require_header};
use super::{Bds, Context, Error, Evidence, Register, Reject, field, inherent_codec};
use crate::modes::adsb::Callsign;
use crate::modes::charset::{self, CHARSET, code_of};

/// BDS 2,0 — aircraft identification (Doc 9871 Table A-2-32).
///
/// Bits 1–8 are `0x20`; bits 9–56 hold eight 6-bit characters
/// (`A`–`Z` = 1–26, space = 32, `0`–`9` = 48–57), left-aligned and padded
/// with spaces, as in ADS-B type codes 1–4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AircraftIdentification {
    /// Eight ASCII characters; unassigned codes decode to `#` (which emits
    /// as code 0).
    pub chars: [u8; 8],
}

impl From<&Callsign> for AircraftIdentification {
    /// The callsign of an ADS-B identification message as a BDS 2,0
    /// identification: the same characters (an unassigned code, `#`,
    /// emits as code 0).
    ///
    /// ```
    /// use airwaves_core::modes::adsb::Callsign;
    /// use airwaves_core::modes::commb::{AircraftIdentification, Mb};
    /// let c = Callsign::from_ascii(b"KLM1023").unwrap();
    /// let mut mb = Mb::new_unchecked([0u8; 7]);
    /// AircraftIdentification::from(&c).emit(&mut mb);
    /// assert_eq!(mb.into_inner(), [0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x2C, 0xE0]);
    /// ```
    fn from(c: &Callsign) -> Self {
        let mut chars = [b' '; 8];
        for (d, &s) in chars.iter_mut().zip(c.as_str().as_bytes()) {
            *d = s;
        }
        AircraftIdentification { chars }
    }
}

impl AircraftIdentification {
    /// A callsign of at most 8 characters from `A`–`Z`, `0`–`9` and space,
    /// padded with spaces.
    ///
    /// ```
    /// use airwaves_core::modes::commb::AircraftIdentification;
    /// let id = AircraftIdentification::new("KLM1017")?;
    /// assert_eq!(&id.chars, b"KLM1017 ");
    /// assert!(AircraftIdentification::new("klm").is_err());
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    pub fn new(callsign: &str) -> Result<Self, Error> {
        let b = callsign.as_bytes();
        if b.len() > 8 {
            return Err(Error::InvalidCharacter(b[8]));
        }
        let mut chars = [b' '; 8];
        for (d, &c) in chars.iter_mut().zip(b) {
            code_of(c).ok_or(Error::InvalidCharacter(c))?;
            *d = c;
        }
        Ok(AircraftIdentification { chars })
    }

    /// The callsign without trailing spaces.
    pub fn as_str(&self) -> &str {
        let mut n = self.chars.len();
        while n > 0 && self.chars[n - 1] == b' ' {
            n -= 1;
        }
        // Characters come from CHARSET (ASCII) or from `new` (validated);
        // a hand-built non-UTF-8 array yields "".
        core::str::from_utf8(&self.chars[..n]).unwrap_or("")
    }
}

impl Register for AircraftIdentification {
    const BDS: Bds = Bds::AircraftIdentification;
    const HEADER: Option<u8> = Some(0x20);

    fn decode(w: u64) -> Self {
        let chars = charset::codes(w).map(|c| CHARSET[c as usize]);
        AircraftIdentification { chars }
    }

    fn encode(&self) -> u64 {
        let codes = self.chars.map(|c| code_of(c).unwrap_or(0));
        charset::put_codes(field::HEADER.put(0, 0x20), codes)
    }

    fn check(w: u64, _ctx: &Context) -> Result<Evidence, Reject> {
        require_header::<Self>(w)?;
        for i in 0..8 {
            let code = field::bds20::char(i).get(w) as usize;
            require(CHARSET[code] != b'#', Reject::Range)?;
            if i == 0 {
                require(code != 32, Reject::Range)?;
            }
        }
        // Each character in the 37 of 64 assigned codes: 0.79 bit.
        Ok(Evidence::intrinsic(8 + 6))
    }
}

inherent_codec! {
    AircraftIdentification;
    /// Decode; fails only if the first byte is not `0x20`.
    ///
    /// ```
    /// use airwaves_core::modes::commb::{AircraftIdentification, Mb};
    /// let mb = Mb::new_unchecked([0x20u8, 0x2C, 0xC3, 0x71, 0xC3, 0x1D, 0xE0]);
    /// assert_eq!(AircraftIdentification::parse(&mb)?.as_str(), "KLM1017");
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    parse;
    /// Encode into `mb`; characters outside the set emit as code 0 (`#`).
    emit;
}
