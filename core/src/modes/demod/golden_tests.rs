//! Golden tests on real captures (`../shared/data/adsb`): every frame
//! listed next to a capture is found, at any block split.

extern crate std;
use super::testkit::*;
use super::*;
use std::string::String;
use std::vec::Vec;
use std::{eprintln, format};

fn load(name: &str) -> Option<Vec<u8>> {
    crate::testing::shared_data(&format!("adsb/{name}"))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// `(sample offset, hex)` rows of a `*.frames.txt`.
fn expected(name: &str) -> Vec<(u64, String)> {
    let Some(t) = load(name) else {
        return Vec::new();
    };
    String::from_utf8(t)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].parse().unwrap(), f[2].to_lowercase())
        })
        .collect()
}

/// Decode a capture, assert every listed frame is found (bytes and
/// timestamp within 4 samples); returns (listed, extra) counts.
fn check_capture(stem: &str, rate: u32) -> (usize, usize) {
    let Some(bytes) = load(&format!("{stem}.cu8")) else {
        return (0, 0);
    };
    let want = expected(&format!("{stem}.frames.txt"));
    let d = Demodulator::new(rate).unwrap();
    let (got, stats) = run_blocks(&d, &bytes, 1 << 20);
    let tps = u64::from(d.ticks_per_sample());
    let mut missing = 0;
    let mut used = std::vec![false; got.len()];
    let near =
        |f: &DemodFrame, off: u64| (f.timestamp.get() as f64 / tps as f64 - off as f64).abs();
    for (off, h) in &want {
        let hit = got
            .iter()
            .enumerate()
            .filter(|(i, f)| !used[*i] && hex(f.bytes()) == *h && near(f, *off) < 4.0)
            .map(|(i, _)| i)
            .next();
        match hit {
            Some(i) => used[i] = true,
            None => {
                eprintln!("  MISSING {off} {h}");
                missing += 1;
            }
        }
    }
    let extra: Vec<&DemodFrame> = got
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(f, _)| f)
        .collect();
    eprintln!(
        "{stem}: want {} got {} missing {missing} extra {} stats {stats:?}",
        want.len(),
        got.len(),
        extra.len()
    );
    for f in &extra {
        eprintln!(
            "  extra {:>8.1} DF{:<2} {:06x} rep {} {:.1} dBFS {}",
            f.timestamp.get() as f64 / tps as f64,
            f.df(),
            f.address,
            f.repaired_bits,
            f.signal_dbfs,
            hex(f.bytes())
        );
    }
    assert_eq!(missing, 0, "{stem}: expected frames missing");
    assert_plausible(&got);
    // Any block split gives the same frames (frames straddle blocks).
    for block in [4097, 777] {
        let (again, _) = run_blocks(&d, &bytes, block);
        assert_eq!(again, got, "{stem}: block size {block}");
    }
    (want.len(), extra.len())
}

#[test]
#[cfg_attr(miri, ignore)]
fn test_captures() {
    let mut report = String::new();
    for (stem, rate) in [
        ("capture_1641427457780_2400k", 2_400_000),
        ("capture_1641428106243_2400k", 2_400_000),
        ("capture_1641428165033_2400k", 2_400_000),
        ("modes1_2000k", 2_000_000),
    ] {
        let (want, extra) = check_capture(stem, rate);
        report += &format!(" {stem}: {want} + {extra} extra;");
    }
    eprintln!("captures:{report}");
}
