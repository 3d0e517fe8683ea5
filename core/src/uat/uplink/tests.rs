extern crate std;

use super::*;
use std::vec::Vec;

/// DLAC codes of `text` (every character must be in the alphabet), packed.
fn dlac_pack(codes: &[u8]) -> Vec<u8> {
    let mut bits: Vec<bool> = Vec::new();
    for &c in codes {
        for k in (0..6).rev() {
            bits.push(c >> k & 1 == 1);
        }
    }
    bits.chunks(8)
        .map(|b| {
            b.iter()
                .enumerate()
                .fold(0u8, |v, (i, &x)| v | (u8::from(x) << (7 - i)))
        })
        .collect()
}

fn codes(text: &str) -> Vec<u8> {
    text.bytes()
        .map(|c| dlac::ALPHABET.iter().position(|&a| a == c).unwrap() as u8)
        .collect()
}

/// An uplink built byte by byte from the DO-282B layout: the station at
/// 39.5° N 104.9° W (raw 1,840,833 and 11,888,522), position valid, UTC
/// coupled, application data valid, slot 17, TIS-B site 9; one FIS-B
/// APDU (product 413, 17:53, a METAR in DLAC), one frame of type 14,
/// then the end.
fn literal() -> Vec<u8> {
    let mut b = std::vec![0u8; LEN];
    let (lat, lon) = (1_840_833u64, 11_888_522u64);
    let head = (lat << 41) | (lon << 17) | (1 << 16) | (1 << 15) | (1 << 13) | (17 << 8) | (9 << 4);
    b[..8].copy_from_slice(&head.to_be_bytes());
    let text = dlac_pack(&codes("METAR KDEN 071753Z 27010KT\x1e"));
    // APDU: flags 0, product 413 = 0b00110_011101, S 0, option 0, 17:53.
    let mut apdu = std::vec![(413u16 >> 6) as u8, ((413u16 & 0x3F) << 2) as u8];
    apdu.push(17 << 2 | (53 >> 4));
    apdu.push((53 & 0x0F) << 4);
    apdu.extend_from_slice(&text);
    let mut at = 8;
    let len = apdu.len();
    b[at] = (len >> 1) as u8;
    b[at + 1] = ((len & 1) << 7) as u8;
    b[at + 2..at + 2 + len].copy_from_slice(&apdu);
    at += 2 + len;
    // Length 3 = (1 << 1) | 1, type 14.
    b[at] = 1;
    b[at + 1] = (1 << 7) | 14;
    b[at + 2..at + 5].copy_from_slice(&[0xAA, 0xBB, 0xCC]);
    b
}

#[test]
fn test_literal_uplink_header() {
    let b = literal();
    let u = Uplink::new(&b[..]);
    let p = u.position();
    assert!((p.lat - 1_840_833.0 * 360.0 / 16_777_216.0).abs() < 1e-12);
    assert!(
        (p.lat - 39.5).abs() < 2e-5 && (p.lon + 104.9).abs() < 2e-5,
        "{p:?}"
    );
    assert!(u.position_valid() && u.utc_coupled() && u.app_data_valid());
    assert_eq!((u.slot_id(), u.tisb_site_id()), (17, 9));
}

#[test]
fn test_info_frames_and_fisb_text() {
    let b = literal();
    let u = Uplink::new(&b[..]);
    let frames: Vec<InfoFrame> = u.info_frames().collect();
    assert_eq!(frames.len(), 2);
    assert_eq!(
        frames[1],
        InfoFrame {
            kind: 14,
            data: &[0xAA, 0xBB, 0xCC]
        }
    );
    assert_eq!(frames[0].kind, 0);
    let apdu = Apdu::parse(frames[0].data).unwrap();
    assert_eq!(apdu.product_id, 413);
    assert_eq!(apdu.flags, [false; 3]);
    assert!(!apdu.segmented);
    assert_eq!(
        apdu.time,
        ProductTime {
            month_day: None,
            hours: 17,
            minutes: 53,
            seconds: None
        }
    );
    let mut out = [0u8; 64];
    let n = dlac::decode(apdu.payload, &mut out);
    let text = core::str::from_utf8(&out[..n]).unwrap();
    assert!(
        text.starts_with("METAR KDEN 071753Z 27010KT\x1e"),
        "{text:?}"
    );
}

#[test]
fn test_time_options() {
    // Option 3: month 12, day 7, 17:53:42, written field by field from
    // bit 15 on (byte 1's last bit and byte 2's first hold the option).
    let mut bits = 0u64;
    let mut at = 0;
    for (v, w) in [
        (0u64, 15),
        (3, 2),
        (12, 4),
        (7, 5),
        (17, 5),
        (53, 6),
        (42, 6),
    ] {
        bits |= v << (64 - at - w);
        at += w;
    }
    let raw = bits.to_be_bytes();
    let apdu = [raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], 0xEE];
    let a = Apdu::parse(&apdu).unwrap();
    assert_eq!(
        a.time,
        ProductTime {
            month_day: Some((12, 7)),
            hours: 17,
            minutes: 53,
            seconds: Some(42)
        }
    );
    assert_eq!(a.payload, &[0xEE]);
    // Too short for its option.
    assert_eq!(
        Apdu::parse(&apdu[..5]),
        Err(ApduError::Truncated {
            expected: 6,
            got: 5
        })
    );
    assert!(Apdu::parse(&[0, 0, 0]).is_err());
}

#[test]
fn test_dlac_tab_and_short_output() {
    // "A", tab of 3, "B".
    let packed = dlac_pack(&[1, 28, 3, 2]);
    let mut out = [0u8; 16];
    let n = dlac::decode(&packed, &mut out);
    assert_eq!(&out[..n], b"A   B");
    let mut small = [0u8; 2];
    assert_eq!(dlac::decode(&packed, &mut small), 2);
    assert_eq!(&small, b"A ");
}

#[test]
fn test_frames_stop_at_overrun_and_invalid_data() {
    let mut b = literal();
    // A frame that claims more bytes than there are ends the list.
    b[8] = 0xFF;
    b[9] = 0x80;
    assert_eq!(Uplink::new(&b[..]).info_frames().count(), 0);
    // No application data: no frames.
    let mut c = literal();
    c[6] &= !0x20;
    assert_eq!(Uplink::new(&c[..]).info_frames().count(), 0);
    // Short buffers read as zeros, without panicking.
    for len in 0..12 {
        let u = Uplink::new(&c[..len]);
        let _ = (u.position(), u.slot_id(), u.info_frames().count());
    }
}
