extern crate std;

use super::nexrad::{NexradError, NexradPayload};
use super::text::*;
use super::*;
use crate::uat::uplink::{self, dlac};
use proptest::prelude::*;
use std::vec::Vec;

proptest! {
    #![proptest_config(crate::testing::proptest_config())]

    #[test]
    fn test_records_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..160)) {
        let mut decoded = [0u8; 256];
        let n = dlac::decode(&bytes, &mut decoded);
        let _ = records(&decoded[..n]).count();
        let _ = records(&bytes).count();
    }

    #[test]
    fn test_dlac_round_trip(codes in proptest::collection::vec(1usize..64, 0..80)) {
        let text: Vec<u8> = codes.iter().filter(|&&c| c != 28).map(|&c| dlac::ALPHABET[c]).collect();
        let mut packed = [0u8; 60];
        let n = dlac_encode(&text, &mut packed).unwrap();
        prop_assert_eq!(n, (6 * text.len()).div_ceil(8));
        let mut out = [0u8; 90];
        let m = dlac::decode(&packed[..n], &mut out);
        prop_assert_eq!(&out[..text.len()], &text[..]);
        // At most one padding code, read as ETX.
        let tail = &out[text.len()..m];
        prop_assert!(tail.is_empty() || tail == [ETX]);
    }
}

const METAR: &str = "METAR KDEN 071753Z 27010KT 10SM FEW080 M02/M11 A3012";
const TAF: &str = "TAF KDEN 071720Z 0718/0824 27012KT P6SM SCT080";

#[test]
fn test_records() {
    let text = [
        METAR.as_bytes(),
        b"\x1e\x1e  \n\x1e",
        TAF.as_bytes(),
        b"\n\x1e\xffPIREP\x1eNOTAM\x1e\x03METAR KXXX",
    ]
    .concat();
    let all: Vec<TextRecord> = records(&text).collect();
    assert_eq!(all.len(), 3, "{all:?}");
    let want = TextRecord {
        kind: "METAR",
        location: "KDEN",
        time: "071753Z",
        body: "27010KT 10SM FEW080 M02/M11 A3012",
        text: METAR,
    };
    assert_eq!(all[0], want);
    assert_eq!(
        (all[1].kind, all[1].time, all[1].text),
        ("TAF", "071720Z", TAF)
    );
    let notam = ("NOTAM", "", "", "");
    assert_eq!(
        (all[2].kind, all[2].location, all[2].time, all[2].body),
        notam
    );
    // Not UTF-8: skipped; no separators at all: one record.
    assert_eq!(records(b"\xc3").count(), 0);
    assert_eq!(records(b" A  B\tC D E ").next().unwrap().body, "D E");
}

#[test]
fn test_dlac_encode() {
    // "METAR" = 13 5 20 1 18 = 001101 000101 010100 000001 010010 (00).
    let mut out = [0xFFu8; 8];
    assert_eq!(dlac_encode(b"METAR", &mut out), Ok(4));
    assert_eq!(
        out[..5],
        [0b0011_0100, 0b0101_0101, 0b0000_0001, 0b0100_1000, 0xFF]
    );
    // "A\x1e\x03" = 1 29 0: 000001 011101 000000 (000000 pad: ETX).
    assert_eq!(dlac_encode(b"A\x1e\x03", &mut out), Ok(3));
    assert_eq!(out[..3], [0b0000_0101, 0b1101_0000, 0]);
    let e = DlacEncodeError::Unencodable { byte: b'a', at: 2 };
    assert_eq!(dlac_encode(b"ABa", &mut out), Err(e));
    let tab = DlacEncodeError::Unencodable { byte: b'\t', at: 0 };
    assert_eq!(dlac_encode(b"\t", &mut out), Err(tab));
    let small = DlacEncodeError::BufferTooSmall {
        expected: 9,
        got: 8,
    };
    assert_eq!(dlac_encode(&[b'A'; 12], &mut out), Err(small));
}

fn time(hours: u8, minutes: u8) -> uplink::ProductTime {
    uplink::ProductTime {
        month_day: None,
        hours,
        minutes,
        seconds: None,
    }
}

#[test]
fn test_write_info_frame_time_options() {
    let t = time(17, 53);
    let mut out = [0u8; 16];
    for (month_day, seconds, head) in [
        (None, None, 4),
        (None, Some(42), 5),
        (Some((12, 7)), None, 5),
        (Some((12, 7)), Some(42), 6),
    ] {
        let t = uplink::ProductTime {
            month_day,
            seconds,
            ..t
        };
        let n = write_info_frame(2047, t, &[1, 2], &mut out).unwrap();
        assert_eq!(n, 2 + head + 2);
        assert_eq!(
            out[..2],
            [((head + 2) >> 1) as u8, (((head + 2) & 1) << 7) as u8]
        );
        let a = uplink::Apdu::parse(&out[2..n]).unwrap();
        assert_eq!((a.product_id, a.time, a.payload), (2047, t, &[1u8, 2][..]));
        assert_eq!((a.flags, a.segmented), ([false; 3], false));
    }
    let write = |id, t, len, out: &mut [u8]| write_info_frame(id, t, &[0; 512][..len], out);
    assert_eq!(
        write(2048, t, 0, &mut out),
        Err(FrameError::ProductId(2048))
    );
    assert_eq!(write(1, time(24, 0), 0, &mut out), Err(FrameError::Time));
    assert_eq!(write(1, time(0, 60), 0, &mut out), Err(FrameError::Time));
    let big = &mut [0u8; 600][..];
    assert_eq!(write(1, t, 508, big), Err(FrameError::TooLong { len: 512 }));
    assert_eq!(write(1, t, 507, big), Ok(513));
    let small = FrameError::BufferTooSmall {
        expected: 16,
        got: 15,
    };
    assert_eq!(write(1, t, 10, &mut out[..15]), Err(small));
}

/// A whole uplink: header bits as in the uplink tests' literal (position
/// valid, UTC coupled, application data valid, slot 17, TIS-B site 9),
/// then a CONUS NEXRAD block, a regional empty-block bitmap, a text
/// product with a METAR and a TAF, and zeros (the end of the frames).
#[test]
fn test_uplink_round_trip() {
    let mut b = [0u8; uplink::LEN];
    let head: u64 = (1 << 16) | (1 << 15) | (1 << 13) | (17 << 8) | (9 << 4);
    b[..8].copy_from_slice(&head.to_be_bytes());
    // Block 32,040, north, scale 0; runs of 32 × 0, 3, 7, 0.
    let rle = [0x80, 0x7D, 0x28, 31 << 3, 31 << 3 | 3, 31 << 3 | 7, 31 << 3];
    let empty = [0x00, 0x7D, 0x28, 1 << 4 | 2, 1];
    let text = std::format!("{METAR}\x1e{TAF}\x1e\x03");
    let mut dlac_text = [0u8; 128];
    let n = dlac_encode(text.as_bytes(), &mut dlac_text).unwrap();
    let mut at = uplink::APP_DATA;
    for (id, payload) in [(64, &rle[..]), (63, &empty[..]), (413, &dlac_text[..n])] {
        at += write_info_frame(id, time(17, 53), payload, &mut b[at..]).unwrap();
    }
    assert!(at + 2 <= uplink::LEN && b[at..].iter().all(|&x| x == 0));

    let u = uplink::Uplink::new(&b[..]);
    assert!(u.app_data_valid());
    let mut products = u.info_frames().map(|f| {
        assert_eq!(f.kind, 0);
        let apdu = uplink::Apdu::parse(f.data).unwrap();
        assert_eq!(apdu.time, time(17, 53));
        classify(&apdu).unwrap()
    });
    let Some(Product::Nexrad {
        conus: true,
        payload: NexradPayload::Block(block),
    }) = products.next()
    else {
        panic!("no CONUS block");
    };
    assert_eq!(
        (block.header.number, block.bins[63], block.bins[64]),
        (32_040, 3, 7)
    );
    let Some(Product::Nexrad {
        conus: false,
        payload: NexradPayload::Empty(e),
    }) = products.next()
    else {
        panic!("no regional empty blocks");
    };
    let numbers: Vec<u32> = e.blocks().map(|h| h.number).collect();
    assert_eq!(numbers, [32_040, 32_041, 32_045]);
    let Some(Product::Text(payload)) = products.next() else {
        panic!("no text");
    };
    assert!(products.next().is_none());
    let mut decoded = [0u8; 160];
    let m = dlac::decode(payload, &mut decoded);
    let texts: Vec<&str> = records(&decoded[..m]).map(|r| r.text).collect();
    assert_eq!(texts, [METAR, TAF]);
}

#[test]
fn test_classify_other_and_segmented() {
    let mut out = [0u8; 16];
    let n = write_info_frame(8, time(1, 2), &[9, 9], &mut out).unwrap();
    let mut apdu = uplink::Apdu::parse(&out[2..n]).unwrap();
    let other = Product::Other {
        id: 8,
        payload: &[9, 9],
    };
    assert_eq!(classify(&apdu), Ok(other));
    apdu.segmented = true;
    apdu.product_id = 63;
    assert_eq!(classify(&apdu), Ok(Product::Segmented { id: 63 }));
    apdu.segmented = false;
    assert_eq!(
        classify(&apdu),
        Err(NexradError::Truncated {
            expected: 3,
            got: 2
        })
    );
}
