extern crate std;

use super::*;
use proptest::prelude::*;
use std::vec::Vec;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// Header bytes from the layout: RLE, N/S, scale, then 20 bits of number.
fn header(rle: bool, south: bool, scale: u8, number: u32) -> [u8; 3] {
    let b0 = (u8::from(rle) << 7) | (u8::from(south) << 6) | (scale << 4) | (number >> 16) as u8;
    [b0, (number >> 8) as u8, number as u8]
}

/// Block 32,040, north, scale 0: runs of 32 × 0, 32 × 3, 10 × 7, 22 × 1,
/// 32 × 0, each `(len − 1) << 3 | intensity`.
fn rle_literal() -> Vec<u8> {
    let mut p = header(true, false, 0, 32_040).to_vec();
    p.extend_from_slice(&[31 << 3, 31 << 3 | 3, 9 << 3 | 7, 21 << 3 | 1, 31 << 3]);
    p
}

#[test]
fn test_parse_rle_block() {
    let p = rle_literal();
    assert_eq!(p[..3], [0x80, 0x7D, 0x28]);
    let Ok(NexradPayload::Block(b)) = NexradPayload::parse(&p) else {
        panic!("{:?}", NexradPayload::parse(&p));
    };
    let want = BlockHeader {
        south: false,
        scale: Scale::X1,
        number: 32_040,
    };
    assert_eq!(b.header, want);
    let mut bins = [0u8; 128];
    bins[32..64].fill(3);
    bins[64..74].fill(7);
    bins[74..96].fill(1);
    assert_eq!(b.bins, bins);
    // The same runs come back out.
    let mut out = [0u8; MAX_BLOCK_LEN];
    assert_eq!(b.emit(&mut out), Ok(p.len()));
    assert_eq!(&out[..p.len()], &p[..]);
}

#[test]
fn test_geometry() {
    // 32,040 = 71·450 + 90: north edge 72·4′ = 4.8°, west 90·48′ = 72°.
    let g = geometry(32_040, false, Scale::X1).unwrap();
    assert!(close(g.north_deg, 4.8) && close(g.west_deg, 72.0), "{g:?}");
    assert!(close(g.height_deg, 4.0 / 60.0) && close(g.width_deg, 0.8));
    // Bin 33: row 1, column 1: 1′ lower, 1.5′ further east.
    let b = g.bin(33).unwrap();
    assert!(close(b.north_deg, 4.8 - 1.0 / 60.0) && close(b.west_deg, 72.025));
    assert!(close(b.height_deg, 1.0 / 60.0) && close(b.width_deg, 0.025));
    assert!(g.bin(128).is_none());
    // 405,751 south at scale 1: ring 901, column 301, odd, so 300. North
    // edge −901·4′ = −3604′; west 300·48′ = 240° = −120°; 5·4′ = 20′ tall,
    // 5·96′ = 8° wide; bins 5′ by 15′.
    let g = geometry(405_751, true, Scale::X5).unwrap();
    assert!(close(g.north_deg, -3604.0 / 60.0) && close(g.west_deg, -120.0));
    assert!(
        close(g.height_deg, 1.0 / 3.0) && close(g.width_deg, 8.0),
        "{g:?}"
    );
    let b = g.bin(33).unwrap();
    assert!(close(b.north_deg, -3609.0 / 60.0) && close(b.west_deg, -119.75));
    // Scale 2, ring 0 south: from the equator, 36′ by 7.2°.
    let g = geometry(0, true, Scale::X9).unwrap();
    assert!(close(g.north_deg, 0.0) && close(g.height_deg, 0.6) && close(g.width_deg, 7.2));
    // Columns 224, 225 and 449: 179.2° E, 180° (written −180°), 0.8° W;
    // the last bin of column 449 at scale 9 wraps past 180° again.
    let west = |n| geometry(n, false, Scale::X1).unwrap().west_deg;
    assert!(close(west(224), 179.2) && close(west(225), -180.0) && close(west(449), -0.8));
    let g = geometry(224, false, Scale::X9).unwrap();
    // 179.2° + 31·0.225° = 186.175° = −173.825°.
    assert!(close(
        g.bin(127).unwrap().west_deg,
        179.2 + 31.0 * 0.225 - 360.0
    ));
    // The last ring ends at the pole; the next number is past it.
    let g = geometry(MAX_BLOCK - 1, false, Scale::X1).unwrap();
    assert!(close(g.north_deg, 90.0) && close(g.width_deg, 1.6));
    assert_eq!(geometry(MAX_BLOCK, false, Scale::X1), None);
}

#[test]
fn test_parse_empty_bitmap() {
    // Block 32,398 (ring 71, column 448), L = 3; offsets 1 and 4 (byte 3
    // bits 4, 7), 5 and 12 (byte 4 bits 0, 7), 15 (byte 5 bit 2).
    let mut p = header(false, true, 1, 32_398).to_vec();
    p.extend_from_slice(&[1 << 7 | 1 << 4 | 3, 1 << 7 | 1, 1 << 2, 0xAA]);
    let Ok(NexradPayload::Empty(e)) = NexradPayload::parse(&p) else {
        panic!("{:?}", NexradPayload::parse(&p));
    };
    let offsets = 1 << 1 | 1 << 4 | 1 << 5 | 1 << 12 | 1 << 15;
    assert_eq!(e.offsets, offsets);
    assert_eq!((e.header.south, e.header.scale), (true, Scale::X5));
    // Offsets wrap within ring 71 (31,950 to 32,399).
    let numbers: Vec<u32> = e.blocks().map(|h| h.number).collect();
    assert_eq!(numbers, [32_398, 32_399, 31_952, 31_953, 31_960, 31_963]);
    assert!(e.blocks().all(|h| h.south && h.scale == Scale::X5));
    // Emitted with the shortest bitmap: the same bytes, the 0xAA not.
    let mut out = [0u8; MAX_EMPTY_LEN];
    assert_eq!(e.emit(&mut out), Ok(6));
    assert_eq!(out[..6], p[..6]);
    // Wide rows: 225 blocks 2 numbers apart; 405,449 reads as 405,448.
    let e = EmptyBlocks {
        header: BlockHeader {
            south: false,
            scale: Scale::X1,
            number: 405_449,
        },
        offsets: 1 << 1 | 1 << 2 | 1 << MAX_OFFSET,
    };
    let numbers: Vec<u32> = e.blocks().map(|h| h.number).collect();
    assert_eq!(numbers, [405_449, 405_000, 405_002, 405_000 + 2 * 115]);
    // Numbers no payload can hold do not panic.
    let mut wild = e;
    wild.header.number = u32::MAX;
    assert_eq!(wild.blocks().count(), 4);
    assert_eq!(geometry(u32::MAX, true, Scale::X9), None);
    // Only the header: L = 1.
    let e = EmptyBlocks { offsets: 0, ..e };
    assert_eq!(e.emit(&mut out), Ok(4));
    assert_eq!(out[..4], [0x06, 0x2F, 0xC9, 0x01]);
}

#[test]
fn test_parse_errors() {
    use NexradError::*;
    let p = rle_literal();
    let parse = NexradPayload::parse;
    assert_eq!(
        parse(&p[..2]),
        Err(Truncated {
            expected: 3,
            got: 2
        })
    );
    assert_eq!(parse(&header(true, false, 3, 0)), Err(ReservedScale));
    assert_eq!(
        parse(&header(true, false, 0, 607_500)),
        Err(BlockNumber(607_500))
    );
    assert_eq!(
        parse(&header(true, false, 0, 0xF_FFFF)),
        Err(BlockNumber(0xF_FFFF))
    );
    assert_eq!(parse(&p[..3]), Err(TooFewBins { got: 0 }));
    assert_eq!(parse(&p[..7]), Err(TooFewBins { got: 96 }));
    let mut long = p.clone();
    long.push(0);
    assert_eq!(parse(&long), Err(TooManyBins { got: 129 }));
    // 3 × 32 + 31 bins, then a run of 3.
    let over = [&p[..3], &[31 << 3, 31 << 3, 31 << 3, 30 << 3, 2 << 3][..]].concat();
    assert_eq!(parse(&over), Err(TooManyBins { got: 130 }));
    let empty = header(false, false, 0, 5);
    assert_eq!(
        parse(&empty),
        Err(Truncated {
            expected: 4,
            got: 3
        })
    );
    assert_eq!(
        parse(&[empty[0], empty[1], empty[2], 0xF0]),
        Err(BitmapLength)
    );
    let short = [empty[0], empty[1], empty[2], 0x04, 0, 0];
    assert_eq!(
        parse(&short),
        Err(Truncated {
            expected: 7,
            got: 6
        })
    );
    let err = std::string::ToString::to_string(&TooFewBins { got: 96 });
    assert_eq!(err, "NEXRAD runs cover 96 of 128 bins");
}

#[test]
fn test_emit_errors() {
    let header = BlockHeader {
        south: false,
        scale: Scale::X1,
        number: 7,
    };
    let mut b = Block {
        header,
        bins: [0; 128],
    };
    // All zeros: 4 runs of 32.
    assert_eq!(b.buffer_len(), 7);
    let mut out = [0u8; 6];
    let too_small = EmitError::BufferTooSmall {
        expected: 7,
        got: 6,
    };
    assert_eq!(b.emit(&mut out), Err(too_small));
    b.bins[5] = 8;
    let bad = EmitError::Intensity { bin: 5, value: 8 };
    assert_eq!(b.emit(&mut [0; MAX_BLOCK_LEN]), Err(bad));
    b.bins[5] = 0;
    b.header.number = MAX_BLOCK;
    let past = Err(EmitError::BlockNumber(MAX_BLOCK));
    assert_eq!(b.emit(&mut [0; MAX_BLOCK_LEN]), past);
    for offsets in [1, 1 << (MAX_OFFSET + 1), 1 << 127] {
        let e = EmptyBlocks { header, offsets };
        assert_eq!(e.emit(&mut [0; MAX_EMPTY_LEN]), Err(EmitError::Offsets));
    }
}

proptest! {
    #![proptest_config(crate::testing::proptest_config())]

    #[test]
    fn test_block_round_trip(
        bins in proptest::collection::vec(0u8..8, 128),
        number in 0..MAX_BLOCK,
        south: bool,
        scale in 0u8..3,
        runny: bool,
    ) {
        let mut block = Block {
            header: BlockHeader { south, scale: Scale::from_code(scale).unwrap(), number },
            bins: bins.try_into().unwrap(),
        };
        if runny {
            // Long runs too: each bin copies the one before most of the time.
            for i in 1..128 {
                if block.bins[i] > 1 {
                    block.bins[i] = block.bins[i - 1];
                }
            }
        }
        let mut out = [0u8; MAX_BLOCK_LEN];
        let n = block.emit(&mut out).unwrap();
        prop_assert_eq!(n, block.buffer_len());
        prop_assert_eq!(NexradPayload::parse(&out[..n]), Ok(NexradPayload::Block(block)));
    }

    #[test]
    fn test_empty_round_trip(offsets: u128, number in 0..MAX_BLOCK, south: bool) {
        let header = BlockHeader { south, scale: Scale::X9, number };
        let mask = ((1u128 << (MAX_OFFSET + 1)) - 1) & !1;
        let e = EmptyBlocks { header, offsets: offsets & mask };
        let mut out = [0u8; MAX_EMPTY_LEN];
        let n = e.emit(&mut out).unwrap();
        prop_assert_eq!(n, e.buffer_len());
        prop_assert_eq!(NexradPayload::parse(&out[..n]), Ok(NexradPayload::Empty(e)));
        // Every block stays on the header's row.
        prop_assert!(e.blocks().all(|h| h.number / 450 == number / 450));
    }

    #[test]
    fn test_parse_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..160)) {
        if let Ok(p) = NexradPayload::parse(&bytes) {
            let mut out = [0u8; MAX_BLOCK_LEN];
            let n = p.emit(&mut out).unwrap();
            prop_assert_eq!(NexradPayload::parse(&out[..n]), Ok(p));
            prop_assert!(p.header().geometry().is_some());
        }
    }
}
