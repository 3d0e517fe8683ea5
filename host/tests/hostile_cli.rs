//! Bad command lines run as a hostile user would, on the real binary: each
//! fails with its return code and a one-line message naming what is wrong
//! (the path, the value), never a panic, and leaves every existing file
//! byte for byte as it was.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_airwaves");

fn airwaves(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

/// A file of `len` bytes of a pattern no command writes.
fn keep(dir: &Path, name: &str, len: usize) -> (PathBuf, Vec<u8>) {
    let p = dir.join(name);
    let bytes: Vec<u8> = (0..len).map(|i| (i * 131 + i / 7) as u8).collect();
    std::fs::write(&p, &bytes).unwrap();
    (p, bytes)
}

/// The run failed cleanly: a non-zero code, a message that says `needle`,
/// no panic.
fn failed_clearly(o: &Output, needle: &str) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success(), "succeeded: {err}");
    assert!(err.contains(needle), "{needle:?} not in: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn failing_runs_leave_existing_outputs_as_they_were() {
    let dir = TempDir::new("keep");
    let (wav, wav_bytes) = keep(&dir.0, "keep.wav", 100_000);
    let (cu8, cu8_bytes) = keep(&dir.0, "keep.cu8", 50_000);
    let (txt, txt_bytes) = keep(&dir.0, "keep.txt", 3_000);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (wav_s, cu8_s, txt_s) = (s(&wav), s(&cu8), s(&txt));
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // A recording that does not exist, into an existing WAV.
        (
            vec!["fm", "100M", "--ifile", "/nonexistent.cu8", "--out", &wav_s],
            "/nonexistent.cu8",
        ),
        // A dongle that is not there.
        (vec!["nfm", "446M", "--device", "99", "--out", &wav_s], "RTL-SDR"),
        // A frequency the tuner refuses.
        (
            vec![
                "record",
                "--freq",
                "0",
                "--fake-device",
                "r820t",
                "-n",
                "1000",
                &cu8_s,
            ],
            "0",
        ),
        // A scene that cannot be made, and one whose truth file cannot be
        // created.
        (vec!["scene", "--rate", "0", &cu8_s, &txt_s], "rate"),
        (
            vec!["scene", "--seconds", "0.1", &cu8_s, "/proc/airwaves/x.txt"],
            "/proc/airwaves/x.txt",
        ),
    ];
    for (args, needle) in &cases {
        let o = airwaves(args);
        failed_clearly(&o, needle);
        for (p, bytes) in [(&wav, &wav_bytes), (&cu8, &cu8_bytes), (&txt, &txt_bytes)] {
            assert!(
                std::fs::read(p).unwrap() == *bytes,
                "{args:?} changed {}",
                p.display()
            );
        }
    }
}

#[test]
fn record_rate_and_sample_count_are_exact() {
    let dir = TempDir::new("rate");
    let out = dir.0.join("x.cu8");
    let out_s = out.to_str().unwrap();
    // Refused with the number given, not a clamped one.
    let o = airwaves(&[
        "record",
        "-f",
        "100M",
        "--fake-device",
        "r820t",
        "--rate",
        "1e12",
        out_s,
    ]);
    let err = failed_clearly(&o, "1000000000000 Hz");
    assert!(!err.contains("4294967295"), "{err}");
    assert!(!out.exists());
    // 200 000 samples: 400 000 bytes written and reported.
    let o = airwaves(&[
        "record",
        "-f",
        "100M",
        "--fake-device",
        "r820t,fast",
        "-n",
        "200000",
        out_s,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(std::fs::metadata(&out).unwrap().len(), 400_000);
    assert!(err.contains("200000 samples; 400000 bytes"), "{err}");
}
