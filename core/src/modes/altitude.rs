//! Altitude and identity codes of Mode S replies.
//!
//! Bits are named as in ICAO Annex 10 Vol IV. The 13-bit altitude code
//! (AC13, DF0/4/16/20) is, most significant bit first,
//! `C1 A1 C2 A2 C4 A4 M B1 Q B2 D2 B4 D4`; the 12-bit ADS-B code (AC12,
//! airborne position) is the same without `M`. The 13-bit identity code
//! (ID13, DF5/21) is `C1 A1 C2 A2 C4 A4 X B1 D1 B2 D2 B4 D4`.
//!
//! - `Q = 1`: the 11 remaining bits `N` give `25·N − 1000` ft.
//! - `Q = 0`: Gillham (Mode C) code in 100 ft steps: the 500 ft increments
//!   are the reflected Gray code `D2 D4 A1 A2 A4 B1 B2 B4` (D1 is never
//!   sent), the 100 ft step the 5-state code `C1 C2 C4`
//!   (001, 011, 010, 110, 100 ↦ 1..=5, reversed when the 500 ft count is
//!   odd); altitude = `500·n500 + 100·n100 − 1300` ft.
//! - `M = 1` (metric) is not used by any fielded transponder and yields
//!   `None`; an all-zero field means "not available" and yields `None`.

/// Decode a 13-bit altitude code (AC13) to feet; `None` if not available,
/// metric, or an invalid Gillham pattern. Bits above 13 are ignored.
///
/// ```
/// use airwaves_core::modes::altitude::decode_ac13;
/// assert_eq!(decode_ac13(0x1030), Some(25_000)); // Q = 1
/// assert_eq!(decode_ac13(0b0_0110_0010_0011), Some(50_000)); // Gillham
/// assert_eq!(decode_ac13(0), None);
/// ```
pub fn decode_ac13(ac13: u16) -> Option<i32> {
    let ac13 = ac13 & 0x1FFF;
    if ac13 == 0 || ac13 & 0x0040 != 0 {
        return None;
    }
    if ac13 & 0x0010 != 0 {
        let n = ((ac13 & 0x1F80) >> 2) | ((ac13 & 0x0020) >> 1) | (ac13 & 0x000F);
        return Some(25 * n as i32 - 1000);
    }
    gillham(ac13)
}

/// Decode a 12-bit ADS-B altitude code (AC12) to feet; `None` if not
/// available or an invalid Gillham pattern. Bits above 12 are ignored.
///
/// ```
/// use airwaves_core::modes::altitude::decode_ac12;
/// assert_eq!(decode_ac12(0x03B), Some(-325));
/// assert_eq!(decode_ac12(0), None);
/// ```
pub fn decode_ac12(ac12: u16) -> Option<i32> {
    let ac12 = ac12 & 0x0FFF;
    if ac12 == 0 {
        return None;
    }
    if ac12 & 0x0010 != 0 {
        let n = ((ac12 & 0x0FE0) >> 1) | (ac12 & 0x000F);
        return Some(25 * n as i32 - 1000);
    }
    // Insert M = 0 to form an AC13 and decode it as Gillham.
    gillham(((ac12 & 0x0FC0) << 1) | (ac12 & 0x003F))
}

/// The 12-bit ADS-B altitude code (AC13 without its M bit) for `ft`: the
/// 25 ft code (Q = 1) up to 50,175 ft, Gillham 100 ft steps above; 0
/// ("not available") if not encodable.
///
/// ```
/// use airwaves_core::modes::altitude::{decode_ac12, encode_ac12};
/// assert_eq!(encode_ac12(-325), 0x03B);
/// assert_eq!(decode_ac12(encode_ac12(38_000)), Some(38_000));
/// ```
pub fn encode_ac12(ft: i32) -> u16 {
    crate::modes::frame::AltitudeCode::from_feet(ft).map_or(0, |ac| {
        let ac = ac.raw();
        ((ac & 0x1F80) >> 1) | (ac & 0x3F)
    })
}

/// Bit `i` (12 = most significant) of a 13-bit field, as 0 or 1.
#[inline]
fn bit(v: u16, i: u32) -> u16 {
    (v >> i) & 1
}

/// Gillham (Mode C) altitude of an AC13 whose M and Q bits are 0.
fn gillham(ac13: u16) -> Option<i32> {
    let (c1, a1, c2, a2, c4, a4) = (
        bit(ac13, 12),
        bit(ac13, 11),
        bit(ac13, 10),
        bit(ac13, 9),
        bit(ac13, 8),
        bit(ac13, 7),
    );
    let (b1, b2, d2, b4, d4) = (
        bit(ac13, 5),
        bit(ac13, 3),
        bit(ac13, 2),
        bit(ac13, 1),
        bit(ac13, 0),
    );
    let gray500 =
        (d2 << 7) | (d4 << 6) | (a1 << 5) | (a2 << 4) | (a4 << 3) | (b1 << 2) | (b2 << 1) | b4;
    let n500 = gray_to_binary(gray500) as i32;
    let mut n100 = match gray_to_binary((c1 << 2) | (c2 << 1) | c4) {
        7 => 5,
        v @ 1..=4 => v as i32,
        _ => return None,
    };
    if n500 % 2 == 1 {
        n100 = 6 - n100;
    }
    Some(500 * n500 + 100 * n100 - 1300)
}

/// Reflected-binary Gray code to binary.
fn gray_to_binary(mut g: u16) -> u16 {
    let mut b = g;
    while g > 1 {
        g >>= 1;
        b ^= g;
    }
    b
}

/// Decode a 13-bit identity code (ID13) to the four-digit Mode A squawk,
/// returned as its octal digits packed in hex nibbles (`0x7500` for 7500),
/// the way squawks are printed.
///
/// ```
/// use airwaves_core::modes::altitude::decode_id13;
/// assert_eq!(decode_id13(0x0808), 0x1200);
/// assert_eq!(decode_id13(0x0AA2), 0x7500);
/// ```
pub fn decode_id13(id13: u16) -> u16 {
    let v = id13 & 0x1FFF;
    let a = (bit(v, 7) << 2) | (bit(v, 9) << 1) | bit(v, 11);
    let b = (bit(v, 1) << 2) | (bit(v, 3) << 1) | bit(v, 5);
    let c = (bit(v, 8) << 2) | (bit(v, 10) << 1) | bit(v, 12);
    let d = (bit(v, 0) << 2) | (bit(v, 2) << 1) | bit(v, 4);
    (a << 12) | (b << 8) | (c << 4) | d
}

#[cfg(test)]
mod test {
    use super::*;

    /// AC12 values from the airborne-position vectors (ME bits 9–20).
    static AC12_VECTORS: [(u16, i32); 7] = [
        (0x03B, -325),
        (0x03C, -300),
        (0x03D, -275),
        (0x058, 0),
        (0x059, 25),
        (0x05A, 50),
        (0x05C, 100),
    ];

    #[test]
    fn test_ac12_q_bit() {
        for (raw, ft) in AC12_VECTORS {
            assert_eq!(decode_ac12(raw), Some(ft), "{raw:#05x}");
        }
        assert_eq!(decode_ac12(0x0B0), Some(1000));
        assert_eq!(decode_ac12(0x1F0), Some(5000));
    }

    #[test]
    fn test_ac13() {
        assert_eq!(decode_ac13(0x1030), Some(25_000));
        assert_eq!(decode_ac13(0b0_0110_0010_0011), Some(50_000));
        assert_eq!(decode_ac13(0), None);
        assert_eq!(decode_ac13(0x0040), None, "metric");
    }

    /// Every Gillham altitude from −1200 ft to 126 700 ft survives an
    /// encode (written here from the code's definition) and decode.
    #[test]
    fn test_gillham_round_trip() {
        fn binary_to_gray(b: u16) -> u16 {
            b ^ (b >> 1)
        }
        for alt in (-1200..=126_700).step_by(100) {
            let units = (alt + 1300) / 100; // ≥ 1
            let n500 = (units - 1) / 5;
            let mut n100 = units - 5 * n500; // 1..=5
            if n500 % 2 == 1 {
                n100 = 6 - n100;
            }
            let g500 = binary_to_gray(n500 as u16);
            let g100 = binary_to_gray(if n100 == 5 { 7 } else { n100 as u16 });
            let b = |v: u16, i: u32| (v >> i) & 1;
            let (d2, d4, a1, a2, a4, b1, b2, b4) = (
                b(g500, 7),
                b(g500, 6),
                b(g500, 5),
                b(g500, 4),
                b(g500, 3),
                b(g500, 2),
                b(g500, 1),
                b(g500, 0),
            );
            let (c1, c2, c4) = (b(g100, 2), b(g100, 1), b(g100, 0));
            let ac13 = (c1 << 12)
                | (a1 << 11)
                | (c2 << 10)
                | (a2 << 9)
                | (c4 << 8)
                | (a4 << 7)
                | (b1 << 5)
                | (b2 << 3)
                | (d2 << 2)
                | (b4 << 1)
                | d4;
            assert_eq!(decode_ac13(ac13), Some(alt), "alt {alt} code {ac13:#06x}");
        }
    }

    #[test]
    fn test_identity() {
        assert_eq!(decode_id13(0x0808), 0x1200);
        assert_eq!(decode_id13(0x0AA2), 0x7500);
        assert_eq!(decode_id13(0), 0x0000);
    }
}
