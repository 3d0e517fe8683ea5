//! Coded fields kept as sent: the interrogator code in the PI field of
//! DF11, the 13-bit altitude code (AC) and the 13-bit identity code (ID).

use super::super::altitude::{decode_ac13, decode_id13};

/// Interrogator code that a DF11 all-call reply answers, recovered from its
/// remainder.
///
/// The PI field of DF11 is the parity XORed with 17 zero bits, the 3-bit
/// code label `CL` and the 4-bit interrogator code `IC` (Annex 10 Vol IV,
/// error protection of DF11): `CL = 0` means II code `IC` (0–15);
/// `CL = 1…4` means SI code `16·(CL − 1) + IC` (0–63). A spontaneous
/// acquisition squitter has remainder 0 = II 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum InterrogatorCode {
    /// Interrogator identifier, 0–15 (0 also for squitters).
    Ii(u8),
    /// Surveillance identifier, 0–63.
    Si(u8),
}

impl InterrogatorCode {
    /// Decode a DF11 remainder; `None` if it is no valid `CL‖IC` code (bits
    /// above the 7th set, or `CL > 4`), which indicates a corrupted frame.
    ///
    /// ```
    /// use airwaves_core::modes::frame::InterrogatorCode;
    /// assert_eq!(InterrogatorCode::from_remainder(22), Some(InterrogatorCode::Si(6)));
    /// assert_eq!(InterrogatorCode::from_remainder(1), Some(InterrogatorCode::Ii(1)));
    /// assert_eq!(InterrogatorCode::from_remainder(0x50), None);
    /// ```
    pub fn from_remainder(r: u32) -> Option<Self> {
        if r > 0x4F {
            return None;
        }
        let (cl, ic) = ((r >> 4) as u8, (r & 0xF) as u8);
        Some(if cl == 0 {
            Self::Ii(ic)
        } else {
            Self::Si(16 * (cl - 1) + ic)
        })
    }

    /// The 7-bit `CL‖IC` overlay of the parity field (values masked to 4 and
    /// 6 bits).
    ///
    /// ```
    /// use airwaves_core::modes::frame::InterrogatorCode;
    /// assert_eq!(InterrogatorCode::Si(6).overlay(), 22);
    /// ```
    pub fn overlay(self) -> u32 {
        match self {
            Self::Ii(ii) => u32::from(ii & 0xF),
            Self::Si(si) => {
                let si = u32::from(si & 0x3F);
                ((si / 16 + 1) << 4) | (si % 16)
            }
        }
    }
}

/// A raw 13-bit altitude code (AC, bits 20–32 of DF0/4/16/20), kept as sent
/// so that a frame re-encodes bit-exactly. See
/// [`altitude`](crate::modes::altitude) for the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AltitudeCode(u16);

impl AltitudeCode {
    /// From the raw code (bits above 13 are dropped).
    ///
    /// ```
    /// use airwaves_core::modes::frame::AltitudeCode;
    /// assert_eq!(AltitudeCode::from_raw(0x1030).feet(), Some(25_000));
    /// ```
    pub const fn from_raw(raw: u16) -> Self {
        Self(raw & 0x1FFF)
    }

    /// Encode an altitude in feet: 25 ft steps (Q = 1) for −1000…50 175 ft on
    /// a 25 ft grid, else Gillham (Q = 0) for multiples of 100 ft from
    /// −1200 to 126 700 ft; `None` otherwise.
    ///
    /// ```
    /// use airwaves_core::modes::frame::AltitudeCode;
    /// assert_eq!(AltitudeCode::from_feet(36_000).unwrap().feet(), Some(36_000));
    /// assert_eq!(AltitudeCode::from_feet(60_000).unwrap().feet(), Some(60_000));
    /// assert_eq!(AltitudeCode::from_feet(60_050), None);
    /// ```
    pub fn from_feet(ft: i32) -> Option<Self> {
        if (-1000..=50_175).contains(&ft) && (ft + 1000) % 25 == 0 {
            let n = ((ft + 1000) / 25) as u16;
            return Some(Self(
                ((n & 0x7E0) << 2) | ((n & 0x10) << 1) | (n & 0xF) | 0x10,
            ));
        }
        if !(-1200..=126_700).contains(&ft) || ft % 100 != 0 {
            return None;
        }
        // Gillham: 500 ft count in reflected Gray code over D2 D4 A1 A2 A4 B1
        // B2 B4, 100 ft count (1..=5, reversed on odd 500 ft counts) as the
        // Gray code of 1, 2, 3, 4, 7 over C1 C2 C4.
        let units = (ft + 1300) / 100;
        let n500 = (units - 1) / 5;
        let mut n100 = units - 5 * n500;
        if n500 % 2 == 1 {
            n100 = 6 - n100;
        }
        let g500 = (n500 ^ (n500 >> 1)) as u16;
        let c = if n100 == 5 { 7 } else { n100 as u16 };
        let g100 = c ^ (c >> 1);
        let ac = (bit(g100, 2) << 12)
            | (bit(g500, 5) << 11)
            | (bit(g100, 1) << 10)
            | (bit(g500, 4) << 9)
            | (bit(g100, 0) << 8)
            | (bit(g500, 3) << 7)
            | (bit(g500, 2) << 5)
            | (bit(g500, 1) << 3)
            | (bit(g500, 7) << 2)
            | (bit(g500, 0) << 1)
            | bit(g500, 6);
        Some(Self(ac))
    }

    /// The raw 13-bit code.
    pub const fn raw(self) -> u16 {
        self.0
    }

    /// Altitude in feet ([`decode_ac13`]); `None` if not available, metric
    /// or invalid.
    pub fn feet(self) -> Option<i32> {
        decode_ac13(self.0)
    }
}

/// A raw 13-bit identity (Mode A) code (ID, bits 20–32 of DF5/21), kept as
/// sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct IdentityCode(u16);

impl IdentityCode {
    /// From the raw code (bits above 13 are dropped).
    ///
    /// ```
    /// use airwaves_core::modes::frame::IdentityCode;
    /// assert_eq!(IdentityCode::from_raw(0x0808).squawk(), 0x1200);
    /// ```
    pub const fn from_raw(raw: u16) -> Self {
        Self(raw & 0x1FFF)
    }

    /// Encode a squawk given as octal digits in hex nibbles (`0x7500` for
    /// 7500); each nibble's low 3 bits are used, the X bit is 0.
    ///
    /// ```
    /// use airwaves_core::modes::frame::IdentityCode;
    /// assert_eq!(IdentityCode::from_squawk(0x7500).raw(), 0x0AA2);
    /// ```
    pub fn from_squawk(squawk: u16) -> Self {
        let d = |i: u32| (squawk >> (4 * i)) & 7;
        let (a, b, c, dd) = (d(3), d(2), d(1), d(0));
        // Bit positions (0 = LSB): A4 7, A2 9, A1 11; B4 1, B2 3, B1 5;
        // C4 8, C2 10, C1 12; D4 0, D2 2, D1 4.
        Self(
            (bit(a, 2) << 7)
                | (bit(a, 1) << 9)
                | (bit(a, 0) << 11)
                | (bit(b, 2) << 1)
                | (bit(b, 1) << 3)
                | (bit(b, 0) << 5)
                | (bit(c, 2) << 8)
                | (bit(c, 1) << 10)
                | (bit(c, 0) << 12)
                | bit(dd, 2)
                | (bit(dd, 1) << 2)
                | (bit(dd, 0) << 4),
        )
    }

    /// The raw 13-bit code.
    pub const fn raw(self) -> u16 {
        self.0
    }

    /// The squawk as octal digits in hex nibbles ([`decode_id13`]).
    pub fn squawk(self) -> u16 {
        decode_id13(self.0)
    }
}

/// Bit `i` of `v` (0 = LSB), as 0 or 1.
const fn bit(v: u16, i: u32) -> u16 {
    (v >> i) & 1
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_field_codes() {
        // AC13 and ID13 rows of §7.
        assert_eq!(AltitudeCode::from_raw(0x1030).feet(), Some(25_000));
        assert_eq!(AltitudeCode::from_raw(0).feet(), None);
        assert_eq!(
            AltitudeCode::from_raw(0b0_0110_0010_0011).feet(),
            Some(50_000)
        );
        assert_eq!(IdentityCode::from_raw(0x0808).squawk(), 0x1200);
        assert_eq!(IdentityCode::from_raw(0x0AA2).squawk(), 0x7500);
        assert_eq!(IdentityCode::from_squawk(0x1200).raw(), 0x0808);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_altitude_encode() {
        for ft in (-1200..=126_700).step_by(25) {
            match AltitudeCode::from_feet(ft) {
                Some(c) => assert_eq!(c.feet(), Some(ft), "{ft}"),
                None => assert!(ft % 100 != 0 && !(-1000..=50_175).contains(&ft), "{ft}"),
            }
        }
        assert_eq!(AltitudeCode::from_feet(-1300), None);
        assert_eq!(AltitudeCode::from_feet(126_800), None);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_squawk_encode() {
        for sq in 0..0o10000u16 {
            let nib =
                ((sq >> 9) & 7) << 12 | ((sq >> 6) & 7) << 8 | ((sq >> 3) & 7) << 4 | (sq & 7);
            assert_eq!(IdentityCode::from_squawk(nib).squawk(), nib);
        }
    }

    #[test]
    fn test_interrogator_codes() {
        for r in 0..0x50u32 {
            let c = InterrogatorCode::from_remainder(r).unwrap();
            assert_eq!(c.overlay(), r);
        }
        for si in 0..64 {
            let c = InterrogatorCode::Si(si);
            assert_eq!(InterrogatorCode::from_remainder(c.overlay()), Some(c));
        }
        assert_eq!(InterrogatorCode::from_remainder(0x50), None);
        assert_eq!(InterrogatorCode::from_remainder(0x100), None);
    }
}
