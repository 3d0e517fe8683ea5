use super::*;

const TRUTH: &str = "\
# header
# sample t12 hex snr_db amplitude carrier_hz flags
100.0000 500 5D484FDEA248F5 3.99 0.1 0.0 -
200.0000 1000 2000171806A983 4.00 0.1 0.0 ovl_s
210.0000 1050 A/C:7500 10.00 0.1 0.0 modeac,ovl_s
300.0000 1500 5D484FDEA248F5 24.90 0.1 0.0 ovl_ac
5000.0000 25000 8d4840d6202cc371c32ce0576098 30.00 0.1 0.0 -
";

fn truth() -> Vec<TruthFrame> {
    parse_truth(TRUTH).unwrap()
}

#[test]
fn test_parse_truth() {
    let t = truth();
    assert_eq!(t.len(), 4);
    assert_eq!(
        t[0],
        TruthFrame {
            t12: 500,
            hex: "5D484FDEA248F5".into(),
            snr_db: 3.99,
            overlapped: false,
            overlap: None,
        }
    );
    assert!(t[1].overlapped && t[2].overlapped && !t[3].overlapped);
    // The DF4 at 1000 ticks (83.3–147.3 µs) is overlapped by the DF11
    // before it, the Mode A/C reply 50 ticks later and, strongest, the
    // DF11 500 ticks later (20.9 dB above it); that DF11 in turn by the
    // weaker DF4, which started 500 ticks before.
    let o = t[1].overlap.unwrap();
    assert!((o.rel_db - 20.9).abs() < 1e-9 && (o.start_us - 500.0 / 12.0).abs() < 1e-9);
    let o = t[2].overlap.unwrap();
    assert!((o.rel_db + 20.9).abs() < 1e-9 && (o.start_us + 500.0 / 12.0).abs() < 1e-9);
    assert_eq!(t[3].overlap, None);
    assert_eq!(t[3].hex, "8D4840D6202CC371C32CE0576098");
    assert!(parse_truth("1 2 3\n").is_err());
}

#[test]
fn test_parse_decoded() {
    let d = parse_decoded(
        "@0000000001F45d484fdea248f5;\n*8D4840D6202CC371C32CE0576098;\nCRC: 000000\n@00000000FF22;\n*ABCD;\n@zz00000001F45D484FDEA248F5;\n",
    );
    assert_eq!(
        d,
        [
            Decoded {
                t12: Some(500),
                hex: "5D484FDEA248F5".into()
            },
            Decoded {
                t12: None,
                hex: "8D4840D6202CC371C32CE0576098".into()
            },
        ]
    );
}

#[test]
fn test_match_with_offset() {
    let t = truth();
    // Decoder clock 1633 ticks ahead; the two identical DF11s are told
    // apart by time; one far-off copy, one unknown frame, one repeat.
    let dec = |t12: i64, hex: &str| Decoded {
        t12: Some(t12),
        hex: hex.into(),
    };
    let d = [
        dec(1000 + 1633, "2000171806A983"),
        dec(1500 + 1633 + 3, "5D484FDEA248F5"),
        dec(25000 + 1633, "8D4840D6202CC371C32CE0576098"),
        dec(25000 + 1634, "8D4840D6202CC371C32CE0576098"),
        dec(9000, "5D484FDEA248F5"),
        // No offset (dump1090's first buffer): still the DF11 at 500.
        dec(510, "5D484FDEA248F5"),
        // Twice the offset (a buffer edge): a repeat of the DF11 at 1500.
        dec(1500 + 2 * 1633 - 5, "5D484FDEA248F5"),
        dec(1000, "5D000000000000"),
    ];
    let m = match_frames(&t, &d);
    assert_eq!(m.offset, 1633);
    assert_eq!(m.hit, [true, true, true, true]);
    assert_eq!((m.false_frames, m.duplicates), (2, 2));
}

#[test]
fn test_match_without_timestamps() {
    let t = truth();
    let dec = |hex: &str| Decoded {
        t12: None,
        hex: hex.into(),
    };
    let d = [
        dec("5D484FDEA248F5"),
        dec("5D484FDEA248F5"),
        dec("5D484FDEA248F5"),
    ];
    let m = match_frames(&t, &d);
    assert_eq!(m.hit, [true, false, true, false]);
    assert_eq!((m.false_frames, m.duplicates, m.offset), (0, 1, 0));
}

#[test]
fn test_verdict() {
    let truth: Vec<TruthFrame> = [2.0, 14.0, 15.0, 22.0, 23.0]
        .iter()
        .map(|&snr_db| TruthFrame {
            t12: 0,
            hex: String::new(),
            snr_db,
            overlapped: false,
            overlap: None,
        })
        .collect();
    let m = |hit: [bool; 5], false_frames| Matching {
        hit: hit.to_vec(),
        false_frames,
        duplicates: 0,
        offset: 0,
    };
    let dump = m([false, true, false, true, false], 3);
    assert!(verdict(&truth, &dump, &m([false, true, true, true, true], 3)).is_empty());
    // Equal in the two bands where dump1090 decodes: two misses; total
    // 1.0×: a third.
    let tie = m([false, true, false, true, false], 0);
    assert_eq!(verdict(&truth, &dump, &tie).len(), 3);
    // More false frames: a miss.
    assert_eq!(verdict(&truth, &dump, &m([true; 5], 4)).len(), 1);
}

#[test]
fn test_bands_and_table() {
    assert_eq!(band(0.0), 0);
    assert_eq!(band(3.99), 0);
    assert_eq!(band(4.0), 1);
    assert_eq!(band(24.9), 6);
    assert_eq!(band(30.0), 6);
    assert_eq!(band(-1.0), 0);
    let t = truth();
    let hit = [true, false, true, true];
    let all = recall_by_band(&t, &hit, false);
    assert_eq!(all[0], (1, 1));
    assert_eq!(all[1], (1, 0));
    assert_eq!(all[6], (2, 2));
    let clean = recall_by_band(&t, &hit, true);
    assert_eq!(clean[1], (0, 0));
    assert_eq!(clean[6], (1, 1));
    let m = Matching {
        hit: hit.to_vec(),
        false_frames: 2,
        duplicates: 0,
        offset: 0,
    };
    let s = table(&t, &[("d", Some(&m)), ("a", None)]);
    assert!(
        s.contains("| 0–4 | 1 | 1 | 100.0% | 100.0% | n/a | n/a |"),
        "{s}"
    );
    assert!(s.contains("| 4–8 | 1 | 0 | 0.0% | - | n/a | n/a |"), "{s}");
    assert!(
        s.contains("| all | 4 | 2 | 75.0% | 100.0% | n/a | n/a |"),
        "{s}"
    );
    assert!(s.contains("d: false frames 2"), "{s}");
    assert!(
        s.contains("d: recall by DF (all SNR): DF4 0.0%, DF11 100.0%, DF17 100.0%"),
        "{s}"
    );
    assert_eq!(recall_by_df(&t, &hit), [(4, 1, 0), (11, 2, 2), (17, 1, 1)]);
    assert_eq!(percent((3, 1)), "33.3%");
}

#[test]
fn test_options() {
    let args: Vec<String> = [
        "--seconds",
        "2",
        "--rate",
        "2000000",
        "--no-callgrind",
        "--seed",
        "7",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let o = Options::parse(&args).unwrap();
    assert_eq!(
        (o.seconds, o.rate, o.seed, o.callgrind),
        (2.0, 2e6, 7, false)
    );
    assert!(Options::parse(&["--bogus".to_string(), "1".to_string()]).is_err());
    assert!(Options::parse(&["--seconds".to_string()]).is_err());
    let strs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let o = Options::parse(&strs(&[
        "--fps-sweep",
        "100,500,1500,3000",
        "--dump1090-fa",
        "/x/dump1090",
        "--readsb",
        "/x/readsb",
    ]))
    .unwrap();
    assert_eq!(o.fps_sweep, [100.0, 500.0, 1500.0, 3000.0]);
    let kinds: Vec<Kind> = o.decoders().iter().map(|d| d.kind).collect();
    assert_eq!(
        kinds,
        [
            Kind::Mutability,
            Kind::Fa2Bit,
            Kind::FaFix,
            Kind::Readsb,
            Kind::Airwaves
        ]
    );
    // --no-anchors wins over the paths and over $AIRWAVES_ANCHORS.
    let o = Options::parse(&strs(&["--readsb", "/x/readsb", "--no-anchors"])).unwrap();
    assert_eq!(o.decoders().len(), 2);
    assert!(Options::parse(&strs(&["--fps-sweep", "100,x"])).is_err());
    let o = Options::parse(&strs(&["--scene-arg", "--taps", "--scene-arg", "1"])).unwrap();
    assert_eq!(o.scene_args, ["--taps", "1"]);
    assert!(Options::parse(&strs(&["--fps", "-1"])).is_err());
}

#[test]
fn test_decoder_commands() {
    let cu8 = Path::new("/s.cu8");
    let args = |k: Kind, rate: f64| -> Vec<String> {
        Decoder::new(k, "/bin/x")
            .command(cu8, rate, "avr-ts")
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        args(Kind::Fa2Bit, 2.4e6).join(" "),
        "--ifile /s.cu8 --iformat UC8 --mlat --fix-2bit --raw"
    );
    assert_eq!(
        args(Kind::Mutability, 2.4e6).join(" "),
        "--ifile /s.cu8 --iformat UC8 --mlat --fix --raw"
    );
    assert_eq!(
        args(Kind::Readsb, 2.4e6).join(" "),
        "--device-type ifile --ifile /s.cu8 --iformat UC8 --mlat --raw --no-interactive"
    );
    assert_eq!(
        args(Kind::Airwaves, 2e6).join(" "),
        "decode --rate 2000000 --format avr-ts /s.cu8"
    );
    let fa = Decoder::new(Kind::FaFix, "/x");
    let rs = Decoder::new(Kind::Readsb, "/x");
    assert!(fa.exit_ok(Some(1)) && fa.exit_ok(Some(0)) && !fa.exit_ok(Some(2)));
    assert!(!rs.exit_ok(Some(1)) && !fa.exit_ok(None));
    assert!(!rs.reads_rate(2e6) && rs.reads_rate(2.4e6));
    assert!(Decoder::new(Kind::Airwaves, "/x").reads_rate(2e6));
}

#[test]
fn test_overlap_rows_and_table() {
    let f = |overlapped, overlap: Option<(f64, f64)>| TruthFrame {
        t12: 0,
        hex: "5D484FDEA248F5".into(),
        snr_db: 10.0,
        overlapped,
        overlap: overlap.map(|(rel_db, start_us)| Overlap { rel_db, start_us }),
    };
    assert_eq!(overlap_rows(&f(false, None)), [0]);
    assert_eq!(overlap_rows(&f(true, None)), [1]);
    assert_eq!(overlap_rows(&f(true, Some((-7.0, -3.0)))), [1, 2, 8]);
    assert_eq!(overlap_rows(&f(true, Some((-1.0, 7.9)))), [1, 3, 9]);
    assert_eq!(overlap_rows(&f(true, Some((0.0, 8.0)))), [1, 4, 13]);
    assert_eq!(overlap_rows(&f(true, Some((3.0, 0.0)))), [1, 5, 12]);
    assert_eq!(overlap_rows(&f(true, Some((9.9, -0.1)))), [1, 6, 11]);
    assert_eq!(overlap_rows(&f(true, Some((10.0, 50.0)))), [1, 7, 13]);
    let truth = [f(false, None), f(true, Some((4.0, 2.0))), f(true, None)];
    let m = Matching {
        hit: vec![true, false, true],
        false_frames: 0,
        duplicates: 0,
        offset: 0,
    };
    let s = overlap_table(&truth, &[("a", Some(&m)), ("b", None)]);
    assert!(
        s.contains("| clean (no other reply overlaps) | 1 | 100.0% | n/a |"),
        "{s}"
    );
    assert!(s.contains("| overlapped, all | 2 | 50.0% | n/a |"), "{s}");
    assert!(
        s.contains("| strongest other 3–6 dB stronger | 1 | 0.0% | n/a |"),
        "{s}"
    );
    assert!(
        s.contains("| weaker, starts before ours | 0 | - | n/a |"),
        "{s}"
    );
    assert!(s.contains("(1 overlapped frames whose"), "{s}");
}

#[test]
fn test_overlap_from_real_truth_lines() {
    // Lines of an `airwaves scene` truth file (seed 1): a DF20 whose
    // data is entered 7.4 µs in by a weaker DF11, and a Mode A/C reply
    // with SPI (25.1 µs) that ends 0.1 µs after a DF17 starts.
    let text = "\
3245.4727 16227 A80006362014A574CB8E2086DA95 23.79 0.513044 48253.0 ovl_s
3334.3474 16672 2000173F7AB555 15.53 0.198095 -11100.1 ovl_s
9000.0000 45000 A/C:1200 20.00 0.1 0.0 modeac,spi
9060.0000 45300 8DD832CA9940A42FF0400799E6E9 7.88 0.082118 -72099.4 ovl_ac
";
    let t = parse_truth(text).unwrap();
    let o = t[0].overlap.unwrap();
    assert!((o.rel_db - (15.53 - 23.79)).abs() < 1e-9);
    assert!((o.start_us - 445.0 / 12.0).abs() < 1e-9);
    assert_eq!(overlap_rows(&t[0]), [1, 2, 10]);
    let o = t[1].overlap.unwrap();
    assert!(o.rel_db > 8.0 && o.start_us < 0.0);
    let o = t[2].overlap.unwrap();
    assert!((o.rel_db - 12.12).abs() < 1e-9 && (o.start_us + 25.0).abs() < 1e-9);
    assert_eq!(overlap_rows(&t[2]), [1, 7, 11]);
}

#[test]
fn test_sweep_table() {
    let row = |label, total: Option<usize>, per_sample| SweepRow {
        fps: 500.0,
        label,
        recall: std::array::from_fn(|i| format!("{i}%")),
        false_frames: total.map(|_| 3),
        total,
        per_sample,
    };
    let s = sweep_table(&[
        row("dump1090-fa --fix-2bit", Some(100), Some(50.0)),
        row("readsb", None, None),
        row("airwaves", Some(150), Some(28.94)),
    ]);
    assert!(
        s.contains("| 500 | dump1090-fa --fix-2bit | 0% | 1% | 2% | 3% | 3 | 50.0 | 1.50× |"),
        "{s}"
    );
    assert!(
        s.contains("| 500 | readsb | 0% | 1% | 2% | 3% | n/a | n/a | - |"),
        "{s}"
    );
    assert!(
        s.contains("| 500 | airwaves | 0% | 1% | 2% | 3% | 3 | 28.9 | 1.00× |"),
        "{s}"
    );
}
