//! The state an ICAO 24-bit address was allocated to, from the
//! allocation table of ICAO Annex 10, Volume III, Part I, Chapter 9
//! (each state a block of 2ᵏ addresses, aligned to its size), without a
//! database.
//!
//! The address says where the aircraft is *registered* (and, for a block
//! given to ICAO, that it is a temporary or special-use address), not
//! who operates it or where it flies. Addresses outside every block
//! (unallocated, or a block not listed here) give `None`.
//!
//! ```
//! use airwaves_core::modes::country::country;
//! let nl = country(0x4840D6).unwrap();
//! assert_eq!((nl.name, nl.iso_code()), ("Netherlands", Some("NL")));
//! assert_eq!(country(0xA835AF).unwrap().name, "United States");
//! assert!(country(0x000001).is_none());
//! ```

/// One allocated block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Block {
    /// First address (a multiple of the block's size).
    pub start: u32,
    /// log₂ of the number of addresses (10 for 1,024 … 20 for 1,048,576).
    pub size_log2: u8,
    /// ISO 3166-1 alpha-2 code of the state (`None` for ICAO's own
    /// blocks).
    pub iso: Option<[u8; 2]>,
    /// English short name.
    pub name: &'static str,
}

impl Block {
    /// The last address of the block.
    pub const fn end(&self) -> u32 {
        self.start + (1 << self.size_log2) - 1
    }

    /// Whether `address` is in the block.
    pub const fn contains(&self, address: u32) -> bool {
        address >= self.start && address <= self.end()
    }

    /// The ISO 3166-1 alpha-2 code as a string.
    pub fn iso_code(&self) -> Option<&str> {
        self.iso.as_ref().and_then(|c| core::str::from_utf8(c).ok())
    }
}

/// A [`Block`] of `2^size_log2` addresses from `start`; `iso` is the
/// two-letter code, or empty for ICAO's own blocks.
const fn block(start: u32, size_log2: u8, iso: &str, name: &'static str) -> Block {
    let iso = match iso.as_bytes() {
        [a, b] => Some([*a, *b]),
        _ => None,
    };
    Block {
        start,
        size_log2,
        iso,
        name,
    }
}

/// The allocated blocks, in address order.
pub const BLOCKS: &[Block] = &[
    block(0x004000, 10, "ZW", "Zimbabwe"),
    block(0x006000, 12, "MZ", "Mozambique"),
    block(0x008000, 15, "ZA", "South Africa"),
    block(0x010000, 15, "EG", "Egypt"),
    block(0x018000, 15, "LY", "Libya"),
    block(0x020000, 15, "MA", "Morocco"),
    block(0x028000, 15, "TN", "Tunisia"),
    block(0x030000, 10, "BW", "Botswana"),
    block(0x032000, 12, "BI", "Burundi"),
    block(0x034000, 12, "CM", "Cameroon"),
    block(0x035000, 10, "KM", "Comoros"),
    block(0x036000, 12, "CG", "Congo"),
    block(0x038000, 12, "CI", "Côte d'Ivoire"),
    block(0x03E000, 12, "GA", "Gabon"),
    block(0x040000, 12, "ET", "Ethiopia"),
    block(0x042000, 12, "GQ", "Equatorial Guinea"),
    block(0x044000, 12, "GH", "Ghana"),
    block(0x046000, 12, "GN", "Guinea"),
    block(0x048000, 10, "GW", "Guinea-Bissau"),
    block(0x04A000, 10, "LS", "Lesotho"),
    block(0x04C000, 12, "KE", "Kenya"),
    block(0x050000, 12, "LR", "Liberia"),
    block(0x054000, 12, "MG", "Madagascar"),
    block(0x058000, 12, "MW", "Malawi"),
    block(0x05A000, 10, "MV", "Maldives"),
    block(0x05C000, 12, "ML", "Mali"),
    block(0x05E000, 10, "MR", "Mauritania"),
    block(0x060000, 10, "MU", "Mauritius"),
    block(0x062000, 12, "NE", "Niger"),
    block(0x064000, 12, "NG", "Nigeria"),
    block(0x068000, 12, "UG", "Uganda"),
    block(0x06A000, 10, "QA", "Qatar"),
    block(0x06C000, 12, "CF", "Central African Republic"),
    block(0x06E000, 12, "RW", "Rwanda"),
    block(0x070000, 12, "SN", "Senegal"),
    block(0x074000, 10, "SC", "Seychelles"),
    block(0x076000, 10, "SL", "Sierra Leone"),
    block(0x078000, 12, "SO", "Somalia"),
    block(0x07A000, 10, "SZ", "Eswatini"),
    block(0x07C000, 12, "SD", "Sudan"),
    block(0x080000, 12, "TZ", "Tanzania"),
    block(0x084000, 12, "TD", "Chad"),
    block(0x088000, 12, "TG", "Togo"),
    block(0x08A000, 12, "ZM", "Zambia"),
    block(0x08C000, 12, "CD", "DR Congo"),
    block(0x090000, 12, "AO", "Angola"),
    block(0x094000, 10, "BJ", "Benin"),
    block(0x096000, 10, "CV", "Cabo Verde"),
    block(0x098000, 10, "DJ", "Djibouti"),
    block(0x09A000, 12, "GM", "Gambia"),
    block(0x09C000, 12, "BF", "Burkina Faso"),
    block(0x09E000, 10, "ST", "São Tomé and Príncipe"),
    block(0x0A0000, 15, "DZ", "Algeria"),
    block(0x0A8000, 12, "BS", "Bahamas"),
    block(0x0AA000, 10, "BB", "Barbados"),
    block(0x0AB000, 10, "BZ", "Belize"),
    block(0x0AC000, 12, "CO", "Colombia"),
    block(0x0AE000, 12, "CR", "Costa Rica"),
    block(0x0B0000, 12, "CU", "Cuba"),
    block(0x0B2000, 12, "SV", "El Salvador"),
    block(0x0B4000, 12, "GT", "Guatemala"),
    block(0x0B6000, 12, "GY", "Guyana"),
    block(0x0B8000, 12, "HT", "Haiti"),
    block(0x0BA000, 12, "HN", "Honduras"),
    block(0x0BC000, 10, "VC", "Saint Vincent and the Grenadines"),
    block(0x0BE000, 12, "JM", "Jamaica"),
    block(0x0C0000, 12, "NI", "Nicaragua"),
    block(0x0C2000, 12, "PA", "Panama"),
    block(0x0C4000, 12, "DO", "Dominican Republic"),
    block(0x0C6000, 12, "TT", "Trinidad and Tobago"),
    block(0x0C8000, 12, "SR", "Suriname"),
    block(0x0CA000, 10, "AG", "Antigua and Barbuda"),
    block(0x0CC000, 10, "GD", "Grenada"),
    block(0x0D0000, 15, "MX", "Mexico"),
    block(0x0D8000, 15, "VE", "Venezuela"),
    block(0x100000, 20, "RU", "Russia"),
    block(0x201000, 10, "NA", "Namibia"),
    block(0x202000, 10, "ER", "Eritrea"),
    block(0x300000, 18, "IT", "Italy"),
    block(0x340000, 18, "ES", "Spain"),
    block(0x380000, 18, "FR", "France"),
    block(0x3C0000, 18, "DE", "Germany"),
    block(0x400000, 18, "GB", "United Kingdom"),
    block(0x440000, 15, "AT", "Austria"),
    block(0x448000, 15, "BE", "Belgium"),
    block(0x450000, 15, "BG", "Bulgaria"),
    block(0x458000, 15, "DK", "Denmark"),
    block(0x460000, 15, "FI", "Finland"),
    block(0x468000, 15, "GR", "Greece"),
    block(0x470000, 15, "HU", "Hungary"),
    block(0x478000, 15, "NO", "Norway"),
    block(0x480000, 15, "NL", "Netherlands"),
    block(0x488000, 15, "PL", "Poland"),
    block(0x490000, 15, "PT", "Portugal"),
    block(0x498000, 15, "CZ", "Czechia"),
    block(0x4A0000, 15, "RO", "Romania"),
    block(0x4A8000, 15, "SE", "Sweden"),
    block(0x4B0000, 15, "CH", "Switzerland"),
    block(0x4B8000, 15, "TR", "Türkiye"),
    block(0x4C0000, 15, "RS", "Serbia"),
    block(0x4C8000, 10, "CY", "Cyprus"),
    block(0x4CA000, 12, "IE", "Ireland"),
    block(0x4CC000, 12, "IS", "Iceland"),
    block(0x4D0000, 10, "LU", "Luxembourg"),
    block(0x4D2000, 10, "MT", "Malta"),
    block(0x4D4000, 10, "MC", "Monaco"),
    block(0x500000, 10, "SM", "San Marino"),
    block(0x501000, 10, "AL", "Albania"),
    block(0x501C00, 10, "HR", "Croatia"),
    block(0x502C00, 10, "LV", "Latvia"),
    block(0x503C00, 10, "LT", "Lithuania"),
    block(0x504C00, 10, "MD", "Moldova"),
    block(0x505C00, 10, "SK", "Slovakia"),
    block(0x506C00, 10, "SI", "Slovenia"),
    block(0x507C00, 10, "UZ", "Uzbekistan"),
    block(0x508000, 15, "UA", "Ukraine"),
    block(0x510000, 10, "BY", "Belarus"),
    block(0x511000, 10, "EE", "Estonia"),
    block(0x512000, 10, "MK", "North Macedonia"),
    block(0x513000, 10, "BA", "Bosnia and Herzegovina"),
    block(0x514000, 10, "GE", "Georgia"),
    block(0x515000, 10, "TJ", "Tajikistan"),
    block(0x516000, 10, "ME", "Montenegro"),
    block(0x600000, 10, "AM", "Armenia"),
    block(0x600800, 10, "AZ", "Azerbaijan"),
    block(0x601000, 10, "KG", "Kyrgyzstan"),
    block(0x601800, 10, "TM", "Turkmenistan"),
    block(0x680000, 10, "BT", "Bhutan"),
    block(0x681000, 10, "FM", "Micronesia"),
    block(0x682000, 10, "MN", "Mongolia"),
    block(0x683000, 10, "KZ", "Kazakhstan"),
    block(0x684000, 10, "PW", "Palau"),
    block(0x700000, 12, "AF", "Afghanistan"),
    block(0x702000, 12, "BD", "Bangladesh"),
    block(0x704000, 12, "MM", "Myanmar"),
    block(0x706000, 12, "KW", "Kuwait"),
    block(0x708000, 12, "LA", "Laos"),
    block(0x70A000, 12, "NP", "Nepal"),
    block(0x70C000, 10, "OM", "Oman"),
    block(0x70E000, 12, "KH", "Cambodia"),
    block(0x710000, 15, "SA", "Saudi Arabia"),
    block(0x718000, 15, "KR", "South Korea"),
    block(0x720000, 15, "KP", "North Korea"),
    block(0x728000, 15, "IQ", "Iraq"),
    block(0x730000, 15, "IR", "Iran"),
    block(0x738000, 15, "IL", "Israel"),
    block(0x740000, 15, "JO", "Jordan"),
    block(0x748000, 15, "LB", "Lebanon"),
    block(0x750000, 15, "MY", "Malaysia"),
    block(0x758000, 15, "PH", "Philippines"),
    block(0x760000, 15, "PK", "Pakistan"),
    block(0x768000, 15, "SG", "Singapore"),
    block(0x770000, 15, "LK", "Sri Lanka"),
    block(0x778000, 15, "SY", "Syria"),
    block(0x780000, 18, "CN", "China"),
    block(0x7C0000, 18, "AU", "Australia"),
    block(0x800000, 18, "IN", "India"),
    block(0x840000, 18, "JP", "Japan"),
    block(0x880000, 15, "TH", "Thailand"),
    block(0x888000, 15, "VN", "Viet Nam"),
    block(0x890000, 12, "YE", "Yemen"),
    block(0x894000, 12, "BH", "Bahrain"),
    block(0x895000, 10, "BN", "Brunei"),
    block(0x896000, 12, "AE", "United Arab Emirates"),
    block(0x897000, 10, "SB", "Solomon Islands"),
    block(0x898000, 12, "PG", "Papua New Guinea"),
    block(0x899000, 10, "TW", "Taiwan"),
    block(0x8A0000, 15, "ID", "Indonesia"),
    block(0x900000, 10, "MH", "Marshall Islands"),
    block(0x901000, 10, "CK", "Cook Islands"),
    block(0x902000, 10, "WS", "Samoa"),
    block(0xA00000, 20, "US", "United States"),
    block(0xC00000, 18, "CA", "Canada"),
    block(0xC80000, 15, "NZ", "New Zealand"),
    block(0xC88000, 12, "FJ", "Fiji"),
    block(0xC8A000, 10, "NR", "Nauru"),
    block(0xC8C000, 10, "LC", "Saint Lucia"),
    block(0xC8D000, 10, "TO", "Tonga"),
    block(0xC8E000, 10, "KI", "Kiribati"),
    block(0xC90000, 10, "VU", "Vanuatu"),
    block(0xE00000, 18, "AR", "Argentina"),
    block(0xE40000, 18, "BR", "Brazil"),
    block(0xE80000, 12, "CL", "Chile"),
    block(0xE84000, 12, "EC", "Ecuador"),
    block(0xE88000, 12, "PY", "Paraguay"),
    block(0xE8C000, 12, "PE", "Peru"),
    block(0xE90000, 12, "UY", "Uruguay"),
    block(0xE94000, 12, "BO", "Bolivia"),
    block(0xF00000, 15, "", "ICAO (temporary assignments)"),
    block(0xF09000, 10, "", "ICAO (special use)"),
];

/// The block `address` (24 bits) belongs to: binary search over
/// [`BLOCKS`], O(log n).
pub fn country(address: u32) -> Option<&'static Block> {
    let i = BLOCKS.partition_point(|b| b.start <= address);
    let b = BLOCKS.get(i.checked_sub(1)?)?;
    b.contains(address).then_some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_blocks_sorted_aligned_disjoint() {
        for b in BLOCKS {
            assert!((10..=20).contains(&b.size_log2), "{b:?}");
            assert_eq!(b.start % (1 << b.size_log2), 0, "{b:?}");
            assert!(b.end() <= 0xFF_FFFF, "{b:?}");
            if let Some(c) = b.iso {
                assert!(c.iter().all(u8::is_ascii_uppercase), "{b:?}");
            }
        }
        for w in BLOCKS.windows(2) {
            assert!(w[0].end() < w[1].start, "{:?} overlaps {:?}", w[0], w[1]);
        }
    }

    #[test]
    fn test_known_addresses() {
        let iso = |a: u32| country(a).and_then(Block::iso_code);
        // Aircraft of the published test vectors and the demo, then
        // block edges.
        let expected = [
            (0x4840D6, Some("NL")),
            (0x40621D, Some("GB")),
            (0x3C6589, Some("DE")),
            (0x39C4D2, Some("FR")),
            (0x4CA1FA, Some("IE")),
            (0xA835AF, Some("US")),
            (0x7C1234, Some("AU")),
            (0xC0FFEE, Some("CA")),
            (0x780A3B, Some("CN")),
            (0x896000, Some("AE")),
            (0x47FFFF, Some("NO")),
            (0x480000, Some("NL")),
            (0x5003FF, Some("SM")),
            (0x500400, None),
            (0xE94FFF, Some("BO")),
        ];
        for (a, want) in expected {
            assert_eq!(iso(a), want, "{a:06X}");
        }
        // ICAO's own blocks have no state.
        assert_eq!(country(0xF00001).unwrap().iso, None);
        // Unallocated.
        for a in [0x000000, 0x003FFF, 0x200000, 0xB00000, 0xFFFFFF] {
            assert!(country(a).is_none(), "{a:06X}");
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "heavy under miri")]
    fn test_search_matches_linear_scan() {
        for a in (0..0x100_0000u32).step_by(0x3FD) {
            let linear = BLOCKS.iter().find(|b| b.contains(a));
            assert_eq!(country(a), linear, "{a:06X}");
        }
    }
}
