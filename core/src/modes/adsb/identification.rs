//! TC 1–4: aircraft identification and emitter category (BDS 0,8).

use core::fmt;

use super::{field, get, put};
pub use crate::modes::charset::CHARSET;
use crate::modes::charset::{self, code_of};

/// Aircraft identification and emitter category, TC 1–4 (BDS 0,8).
///
/// | ME bits | field |
/// |---|---|
/// | 1–5 | TC (1 = set D, 2 = set C, 3 = set B, 4 = set A) |
/// | 6–8 | CA, the category within the set |
/// | 9–56 | 8 characters, 6 bits each |
///
/// ```
/// use airwaves_core::modes::adsb::{Callsign, Category, Identification};
/// let id = Identification {
///     category: Category::new(4, 3).unwrap(),
///     callsign: Callsign::from_ascii(b"KLM1023").unwrap(),
/// };
/// assert_eq!(id.callsign_str(), "KLM1023");
/// assert_eq!(&id.callsign(), b"KLM1023 ");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Identification {
    /// Emitter category (carries the type code).
    pub category: Category,
    /// The 8-character identification.
    pub callsign: Callsign,
}

impl Identification {
    pub(super) fn from_word(w: u64) -> Identification {
        Identification {
            category: Category {
                tc: get(w, field::TC) as u8,
                ca: get(w, field::ST) as u8,
            },
            callsign: Callsign::from_codes(charset::codes(w)),
        }
    }

    pub(super) fn to_word(self) -> u64 {
        let mut w = 0;
        put(&mut w, field::ST, self.category.ca as u64);
        charset::put_codes(w, self.callsign.codes)
    }

    /// The callsign as 8 ASCII bytes, trailing spaces kept; characters
    /// outside the charset read `#`.
    pub fn callsign(&self) -> [u8; 8] {
        *self.callsign.as_bytes()
    }

    /// The callsign with trailing spaces removed.
    pub fn callsign_str(&self) -> &str {
        self.callsign.as_str()
    }
}

/// ADS-B emitter category set, chosen by the identification type code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CategorySet {
    /// TC 4: aircraft by weight and performance.
    A,
    /// TC 3: other airborne emitters (gliders, balloons, UAVs…).
    B,
    /// TC 2: surface vehicles and obstacles.
    C,
    /// TC 1: reserved.
    D,
}

/// Emitter category: identification type code (1–4) and CA (0–7).
///
/// Displayed as set letter and number, e.g. `A3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Category {
    tc: u8,
    ca: u8,
}

impl Category {
    /// A category from type code `tc` (1–4) and `ca` (0–7); `None`
    /// outside those ranges.
    ///
    /// ```
    /// use airwaves_core::modes::adsb::{Category, CategorySet};
    /// let c = Category::new(4, 3).unwrap();
    /// assert_eq!((c.set(), c.ca()), (CategorySet::A, 3));
    /// assert_eq!(c.description(), "large (75 000 to 300 000 lb)");
    /// assert!(Category::new(5, 0).is_none());
    /// ```
    pub const fn new(tc: u8, ca: u8) -> Option<Category> {
        if tc >= 1 && tc <= 4 && ca <= 7 {
            Some(Category { tc, ca })
        } else {
            None
        }
    }

    /// The identification type code, 1–4.
    pub const fn type_code(self) -> u8 {
        self.tc
    }

    /// The category number within the set (CA, ME bits 6–8), 0–7.
    pub const fn ca(self) -> u8 {
        self.ca
    }

    /// The category set.
    pub const fn set(self) -> CategorySet {
        match self.tc {
            4 => CategorySet::A,
            3 => CategorySet::B,
            2 => CategorySet::C,
            _ => CategorySet::D,
        }
    }

    /// Description from DO-260B (ADS-B emitter category sets A–D).
    pub const fn description(self) -> &'static str {
        match (self.tc, self.ca) {
            (1, _) => "reserved",
            (_, 0) => "no category information",
            (4, 1) => "light (< 15 500 lb)",
            (4, 2) => "small (15 500 to 75 000 lb)",
            (4, 3) => "large (75 000 to 300 000 lb)",
            (4, 4) => "high vortex large (e.g. B757)",
            (4, 5) => "heavy (> 300 000 lb)",
            (4, 6) => "high performance (> 5 g and > 400 kt)",
            (4, 7) => "rotorcraft",
            (3, 1) => "glider / sailplane",
            (3, 2) => "lighter-than-air",
            (3, 3) => "parachutist / skydiver",
            (3, 4) => "ultralight / hang-glider / paraglider",
            (3, 6) => "unmanned aerial vehicle",
            (3, 7) => "space / trans-atmospheric vehicle",
            (2, 1) => "surface vehicle: emergency",
            (2, 2) => "surface vehicle: service",
            (2, 3) => "point obstacle (incl. tethered balloon)",
            (2, 4) => "cluster obstacle",
            (2, 5) => "line obstacle",
            _ => "reserved",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = match self.set() {
            CategorySet::A => 'A',
            CategorySet::B => 'B',
            CategorySet::C => 'C',
            CategorySet::D => 'D',
        };
        write!(f, "{set}{}", self.ca)
    }
}

/// An 8-character aircraft identification.
///
/// Keeps the transmitted 6-bit codes (so codes outside the charset survive
/// a round trip) together with their ASCII rendering, where unused codes
/// read `#`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Callsign {
    codes: [u8; 8],
    ascii: [u8; 8],
}

impl Callsign {
    /// From 8 six-bit codes (higher bits are ignored).
    ///
    /// ```
    /// use airwaves_core::modes::adsb::Callsign;
    /// let cs = Callsign::from_codes([11, 12, 13, 49, 48, 50, 51, 32]);
    /// assert_eq!(cs.as_str(), "KLM1023");
    /// let odd = Callsign::from_codes([0, 1, 32, 32, 32, 32, 32, 32]);
    /// assert_eq!((odd.as_str(), odd.is_valid()), ("#A", false));
    /// ```
    pub fn from_codes(codes: [u8; 8]) -> Callsign {
        let mut cs = Callsign {
            codes,
            ascii: [0; 8],
        };
        for (c, a) in cs.codes.iter_mut().zip(cs.ascii.iter_mut()) {
            *c &= 0x3F;
            *a = CHARSET[*c as usize];
        }
        cs
    }

    /// From up to 8 ASCII characters (`A`–`Z`, `0`–`9`, space), padded
    /// with spaces; `None` for longer input or other characters.
    ///
    /// ```
    /// use airwaves_core::modes::adsb::Callsign;
    /// assert_eq!(Callsign::from_ascii(b"EZY85MH").unwrap().as_bytes(), b"EZY85MH ");
    /// assert!(Callsign::from_ascii(b"ezy").is_none());
    /// assert!(Callsign::from_ascii(b"TOOLONG12").is_none());
    /// ```
    pub fn from_ascii(s: &[u8]) -> Option<Callsign> {
        if s.len() > 8 {
            return None;
        }
        let mut codes = [32u8; 8];
        for (c, &b) in codes.iter_mut().zip(s) {
            *c = code_of(b)?;
        }
        Some(Callsign::from_codes(codes))
    }

    /// The 6-bit codes as transmitted.
    pub const fn codes(&self) -> [u8; 8] {
        self.codes
    }

    /// ASCII rendering, 8 bytes, trailing spaces kept, unused codes as `#`.
    pub const fn as_bytes(&self) -> &[u8; 8] {
        &self.ascii
    }

    /// ASCII rendering with trailing spaces removed.
    pub fn as_str(&self) -> &str {
        let mut n = self.ascii.len();
        while n > 0 && self.ascii[n - 1] == b' ' {
            n -= 1;
        }
        // Every byte comes from CHARSET, which is ASCII.
        core::str::from_utf8(&self.ascii[..n]).unwrap_or("")
    }

    /// True if every code is in the charset (no `#`).
    pub fn is_valid(&self) -> bool {
        !self.ascii.contains(&b'#')
    }
}

impl fmt::Display for Callsign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
