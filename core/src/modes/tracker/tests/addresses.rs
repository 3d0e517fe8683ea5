//! The known-address filter, DF11, repaired bits and rejections.

use super::*;

/// vectors.md §7: AP frames are rejected for unknown addresses and
/// accepted after a DF11 or DF17 from the address; their fields.
#[test]
fn test_ap_frames_need_known_address() {
    // (hex, address, altitude, squawk, on ground)
    type Case = (&'static str, u32, Option<i32>, Option<u16>, Option<bool>);
    let cases: [Case; 8] = [
        ("2000171806A983", 0x4CA7E8, Some(36_000), None, Some(false)),
        ("20001718029FCD", 0x4891A6, Some(36_000), None, Some(false)),
        ("2A00516D492B80", 0x510AF9, None, Some(0x0356), None),
        ("200012b0d96e39", 0xA3ECCE, Some(29_000), None, Some(false)),
        ("02e19cb02512c3", 0x0D097E, Some(45_000), None, Some(false)),
        ("0621776e99b6ad", 0xA33325, None, None, Some(true)),
        (
            "80e1969058b5025b9850641d2974",
            0xAC049E,
            Some(35_000),
            None,
            Some(false),
        ),
        (
            "AE24238D15EE315463718B1AF755",
            0xA95FDC,
            None,
            Some(0x6246),
            None,
        ),
    ];
    for (i, (h, addr, alt, squawk, ground)) in cases.into_iter().enumerate() {
        let mut tr = tracker();
        assert_eq!(addr_of(h), addr);
        assert!(!tr.is_known(addr, 0));
        assert_eq!(
            feed(&mut tr, h, 0),
            Err(RejectReason::UnknownAddress),
            "{h}"
        );
        // Even-numbered cases learn the address from a DF11, odd ones
        // from a DF17 identification.
        if i % 2 == 0 {
            feed_bytes(&mut tr, &df11(addr), 1_000).unwrap();
        } else {
            let me = hex("202CC371C32CE0");
            feed_bytes(&mut tr, &df17(addr, me.try_into().unwrap()), 1_000).unwrap();
        }
        assert!(tr.is_known(addr, 1_000));
        let r = feed(&mut tr, h, 2_000).unwrap();
        assert_eq!((r.key, r.new_aircraft), (addr, false));
        let ac = tr.get(addr).unwrap();
        assert_eq!(ac.altitude_baro_ft(), alt, "{h}");
        assert_eq!(ac.squawk(), squawk, "{h}");
        if ground.is_some() {
            assert_eq!(ac.on_ground(), ground, "{h}");
        }
        assert_eq!(ac.messages(), 2);
        // No longer known 60 s after the trusted frame.
        assert_eq!(feed(&mut tr, h, 61_001), Err(RejectReason::UnknownAddress));
        assert_eq!(tr.stats().rejected_unknown_address, 2);
    }
    // DF4 with DR 1, UM 37.
    let h = "200CBE4ED80137";
    let addr = addr_of(h);
    let mut tr = tracker();
    assert_eq!(feed(&mut tr, h, 0), Err(RejectReason::UnknownAddress));
    feed_bytes(&mut tr, &df11(addr), 0).unwrap();
    feed(&mut tr, h, 0).unwrap();
}

/// vectors.md §7 DF11 rows and §1: a DF11 with remainder 0 adds the
/// aircraft; one with an II/SI code needs the address known.
#[test]
fn test_df11() {
    let mut tr = tracker();
    let r = feed(&mut tr, "5da039b46d7d81", 0).unwrap(); // IID 0
    assert_eq!((r.key, r.new_aircraft), (0xA039B4, true));
    assert!(tr.is_known(0xA039B4, 0));
    assert_eq!(tr.get(0xA039B4).unwrap().address_type(), AddressType::ModeS);

    let h = "5dab3d17d4ba29"; // IID 1
    assert_eq!(feed(&mut tr, h, 0), Err(RejectReason::UnknownAddress));
    feed(&mut tr, "8dab3d17ea486860015f4870b796", 500).unwrap();
    let r = feed(&mut tr, h, 1_000).unwrap();
    assert_eq!(r.key, 0xAB3D17);
    let ac = tr.get(0xAB3D17).unwrap();
    assert_eq!((ac.on_ground(), ac.messages()), (Some(false), 2)); // CA 5
    assert_eq!(ac.address_type(), AddressType::AdsbIcao);

    let mut tr = tracker();
    let h = "5da58fd4561b39";
    if feed(&mut tr, h, 0).is_err() {
        feed_bytes(&mut tr, &df11(0xA58FD4), 0).unwrap();
        feed(&mut tr, h, 0).unwrap();
    }
    assert_eq!(tr.get(0xA58FD4).unwrap().on_ground(), Some(false));

    // §1: 5D484FDEA248F5 has remainder 22 (SI 6).
    let mut tr = tracker();
    assert_eq!(
        feed(&mut tr, "5D484FDEA248F5", 0),
        Err(RejectReason::UnknownAddress)
    );
    feed_bytes(&mut tr, &df11(0x484FDE), 0).unwrap();
    feed(&mut tr, "5D484FDEA248F5", 0).unwrap();
    // A DF11 whose remainder is no valid code is a CRC error.
    let mut b = df11(0x484FDE);
    b[6] ^= 0x80;
    assert_eq!(feed_bytes(&mut tr, &b, 0), Err(RejectReason::Crc));
    // Capability codes (§7, synthetic DF11s with a valid parity).
    for (ca, ground) in [
        (0, None),
        (4, Some(true)),
        (5, Some(false)),
        (6, None),
        (7, None),
    ] {
        let mut tr = tracker();
        let mut b = df11(0x4CA2D4);
        b[0] = 0x58 | ca;
        Frame::new_unchecked(&mut b[..]).fill_parity(0);
        feed_bytes(&mut tr, &b, 0).unwrap();
        assert_eq!(Capability::from(ca).on_ground(), ground);
        assert_eq!(tr.get(0x4CA2D4).unwrap().on_ground(), ground);
    }
}

/// Repaired frames are trusted only up to `trusted_repaired_bits`.
#[test]
fn test_repaired_bits() {
    let b = hex("8D406B902015A678D4D220AA4BDA");
    let f = ReceivedFrame::new(&b, 0).with_repaired_bits(1);
    let mut tr = tracker();
    assert_eq!(tr.update(&f), Err(RejectReason::UnknownAddress));
    feed_bytes(&mut tr, &df11(0x406B90), 0).unwrap();
    tr.update(&f).unwrap(); // known: accepted
    assert_eq!(tr.get(0x406B90).unwrap().callsign(), Some("EZY85MH"));
    assert_eq!(tr.get(0x406B90).unwrap().last_trusted_ms(), Some(0));
    let mut tr = T16::new(TrackerConfig {
        trusted_repaired_bits: 1,
        ..TrackerConfig::DEFAULT
    });
    assert!(tr.update(&f).unwrap().new_aircraft);
    assert!(tr.is_known(0x406B90, 0));
}

/// vectors.md §10.1: in the dump1090_rs captures the DF0 frames count
/// once their address has been seen in a DF17 or DF11.
#[test]
fn test_capture_sequences() {
    let captures: [&[&str]; 3] = [
        &[
            "8dad929358b9c6273f002169c02e",
            "8daa2bc4f82100020049b8db9449",
            "02e1971ce17c84",
            "8da0aaa058bf163fcf860013e840",
        ],
        &[
            "8da8aac8990c30b51808aa24e573",
            "02e19838bff1d9",
            "8dada6b9990cf61e4848af2a8656",
            "8da4ba025885462008fa0a4a6eb2",
            "8da4ba0299115f301074a72db6ff",
        ],
        &[
            "8da79de99909932f780c9e2f2f8f",
            "8dac04d358a7820a86ac3709e689",
            "8dac04d3ea4288669b5c082751d4",
            "8da79de958bdf59c85104874adad",
            "5dad92936265f5",
        ],
    ];
    for frames in captures {
        let mut tr = tracker();
        for (i, h) in frames.iter().enumerate() {
            feed(&mut tr, h, 10 * i as u64).unwrap();
        }
        assert_eq!(tr.stats().accepted, frames.len() as u64);
    }
    // Alone, the DF0s are rejected.
    let mut tr = tracker();
    for h in ["02e1971ce17c84", "02e19838bff1d9"] {
        assert_eq!(feed(&mut tr, h, 0), Err(RejectReason::UnknownAddress));
    }
    assert_eq!(addr_of("02e1971ce17c84"), 0xAD9293);
    assert_eq!(addr_of("02e19838bff1d9"), 0xA8AAC8);
}

/// Length, CRC and unsupported formats; the DF counters.
#[test]
fn test_rejections() {
    let mut tr = tracker();
    assert_eq!(feed_bytes(&mut tr, &[], 0), Err(RejectReason::Length));
    assert_eq!(
        feed(&mut tr, "8D406B902015A6", 0),
        Err(RejectReason::Length)
    );
    // vectors.md §1: remainder 16.
    assert_eq!(
        feed(&mut tr, "8D4CA251204994B1C36E60A5343D", 0),
        Err(RejectReason::Crc)
    );
    let mut b = df17(0x123456, [0; 7]);
    b[0] = 0x98; // DF19
    assert_eq!(feed_bytes(&mut tr, &b, 0), Err(RejectReason::Unsupported));
    b[0] = 0x94; // DF18 CF 4
    Frame::new_unchecked(&mut b[..]).fill_parity(0);
    assert_eq!(feed_bytes(&mut tr, &b, 0), Err(RejectReason::Unsupported));
    assert_eq!(
        feed(&mut tr, "08000000000000", 0),
        Err(RejectReason::Unsupported)
    ); // DF1
    let s = tr.stats();
    assert_eq!(
        (s.rejected_length, s.rejected_crc, s.rejected_unsupported),
        (2, 1, 3)
    );
    assert_eq!(s.rejected(), 6);
    assert_eq!(
        (
            s.frames_by_df[17],
            s.frames_by_df[19],
            s.frames_by_df[18],
            s.frames_by_df[1]
        ),
        (2, 1, 1, 1)
    );
    assert!(tr.is_empty());
    assert_eq!(std::format!("{}", RejectReason::Crc), "parity check failed");
}
