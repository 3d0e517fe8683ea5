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

/// The run failed cleanly: a non-zero code, no panic, and stderr ends with
/// one line that says `needle` (status lines may come before it; no hint
/// or usage lines after it).
fn failed_clearly(o: &Output, needle: &str) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success(), "succeeded: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let last = err.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
    assert!(
        last.contains(needle),
        "{needle:?} not the last line of: {err}"
    );
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
        (
            vec!["am", "120M", "--ifile", "/nonexistent.cu8", "--out", &wav_s],
            "/nonexistent.cu8",
        ),
        // A dongle that is not there.
        (
            vec!["nfm", "446M", "--device", "99", "--out", &wav_s],
            "RTL-SDR",
        ),
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
        (
            vec!["scene", "--rate", "0", &cu8_s, &txt_s],
            "sample rate 0 Hz",
        ),
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

#[test]
fn nonsense_numbers_and_unbounded_sizes_are_refused_at_once() {
    let dir = TempDir::new("numbers");
    let (cu8, _) = keep(&dir.0, "f.cu8", 4_096);
    let cu8 = cu8.to_str().unwrap();
    let wav = dir.0.join("never.wav");
    let wav = wav.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        // UAT needs two samples per bit.
        (&["uat", "--ifile", cu8, "--rate", "2400000"], "2083334"),
        // A second receiver named by nothing.
        (
            &["adsb", "--ifile", cu8, "--uat-device", "file:"],
            "the file missing",
        ),
        (&["adsb", "--ifile", cu8, "--uat-gain", "loud"], "loud"),
        // Sizes that would abort on allocation: refused, with the bound.
        (
            &[
                "rtl-tcp",
                "-p",
                "0",
                "--buffer-size",
                "1000000000000",
                "--ifile",
                cu8,
            ],
            "512 to 4194304",
        ),
        (
            &[
                "rtl-tcp",
                "-p",
                "0",
                "--buffers",
                "1000000000",
                "--ifile",
                cu8,
            ],
            "2 to 4096",
        ),
        (
            &[
                "rtl-tcp",
                "-p",
                "0",
                "--buffers",
                "4096",
                "--buffer-size",
                "4194304",
                "--ifile",
                cu8,
            ],
            "256 MiB",
        ),
        (
            &["rtl-tcp", "-p", "0", "--buffer-size", "513", "--ifile", cu8],
            "even",
        ),
        // Durations that ran forever or ended at once.
        (&["adsb", "--demo", "--duration", "nan"], "seconds"),
        (&["adsb", "--demo", "--duration", "-1"], "seconds"),
        (
            &["rtl-tcp", "-p", "0", "--seconds=-1", "--ifile", cu8],
            "no limit",
        ),
        (
            &["test-mode", "--fake-device", "r820t", "--seconds", "inf"],
            "seconds",
        ),
        (&["scene", "--seconds", "nan", "a.cu8", "a.txt"], "seconds"),
        // A filter length that aborted on allocation after truncating both
        // outputs.
        (
            &["scene", "--taps", "1000000000000", "a.cu8", "a.txt"],
            "1 to 1023",
        ),
        (&["adsb", "--demo", "--write-json-every", "inf"], "seconds"),
        // The demo sky's kind and speed, and the gain modes.
        (
            &["adsb", "--demo", "--demo-sky", "city"],
            "airport, rural or mixed",
        ),
        (&["adsb", "--demo", "--demo-speed", "0"], "(0, 1000] or max"),
        (
            &["adsb", "--demo", "--demo-speed", "nan"],
            "(0, 1000] or max",
        ),
        (&["adsb", "--demo", "--gain", "AGC"], "auto or agc"),
        (
            &[
                "test-mode",
                "--fake-device",
                "r820t,sky=city",
                "--seconds",
                "1",
            ],
            "airport, rural or mixed",
        ),
        // A squelch that silenced everything with rc 0.
        (
            &[
                "fm",
                "100M",
                "--ifile",
                cu8,
                "--squelch",
                "nan",
                "--out",
                wav,
            ],
            "dB",
        ),
        (
            &[
                "fm",
                "100M",
                "--ifile",
                cu8,
                "--ppm",
                "1000000000",
                "--out",
                wav,
            ],
            "-1000..=1000",
        ),
    ];
    for (args, needle) in cases {
        let o = airwaves(args);
        failed_clearly(&o, needle);
        assert_ne!(o.status.code(), Some(134), "{args:?} aborted");
    }
    assert!(!Path::new(wav).exists());
}

#[test]
fn errors_name_the_path_and_give_no_dongle_hint_where_a_dongle_is_not_the_problem() {
    let dir = TempDir::new("paths");
    let d = dir.0.to_str().unwrap();
    let wav = dir.0.join("never.wav");
    let wav = wav.to_str().unwrap();
    // A directory where a recording belongs: refused when named, with the
    // path (rtl-tcp used to start and fail per client).
    for args in [
        vec!["decode", d],
        vec!["uat", "--ifile", d],
        vec!["fm", "100M", "--ifile", d, "--out", wav],
        vec!["rtl-tcp", "-p", "0", "--ifile", d],
        vec!["adsb", "--ifile", d],
    ] {
        let err = failed_clearly(&airwaves(&args), d);
        assert!(err.contains("directory"), "{args:?}: {err}");
    }
    // The trace file's path, and no "no dongle?" hint for problems that
    // are not a missing dongle.
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "adsb",
                "--fake-device",
                "r820t",
                "--usb-trace",
                "/proc/airwaves/t",
                "--duration",
                "1",
            ],
            "/proc/airwaves/t",
        ),
        (
            &[
                "record",
                "-f",
                "100M",
                "--fake-device",
                "r820t",
                "--usb-trace",
                "/proc/airwaves/t",
                "-n",
                "10",
                wav,
            ],
            "/proc/airwaves/t",
        ),
        (
            &["adsb", "--fake-device", "bogus", "--duration", "1"],
            "bogus",
        ),
        (&["adsb", "--ppm", "1000000000"], "-1000..=1000"),
    ];
    for (args, needle) in cases {
        let err = failed_clearly(&airwaves(args), needle);
        assert!(!err.contains("no dongle?"), "{args:?}: {err}");
    }
}

#[test]
fn a_full_disk_is_named() {
    // /dev/full: every write fails with ENOSPC.
    let dir = TempDir::new("full");
    let other = dir.0.join("a.cu8");
    let other = other.to_str().unwrap();
    for args in [
        vec![
            "record",
            "-f",
            "100M",
            "--fake-device",
            "r820t,fast",
            "-n",
            "100000",
            "/dev/full",
        ],
        vec!["scene", "--seconds", "0.1", other, "/dev/full"],
        vec!["scene", "--seconds", "0.1", "/dev/full", other],
    ] {
        let err = failed_clearly(&airwaves(&args), "writing /dev/full");
        assert!(err.contains("No space left"), "{args:?}: {err}");
    }
}

#[test]
fn a_command_flood_is_logged_as_a_count() {
    use std::io::{Read, Write};
    use std::time::Duration;
    let dir = TempDir::new("flood");
    let (cu8, _) = keep(&dir.0, "f.cu8", 1 << 16);
    let port = support::free_port().to_string();
    let mut cmd = Command::new(BIN);
    cmd.args(["rtl-tcp", "-p", &port, "--loop", "--ifile"])
        .arg(&cu8);
    let mut srv = support::Peer::spawn(cmd);
    assert!(
        srv.wait_line("listening", Duration::from_secs(20))
            .is_some(),
        "{}",
        srv.log()
    );
    let mut c = std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).unwrap();
    let mut header = [0u8; 12];
    c.read_exact(&mut header).unwrap();
    // 10 000 commands in one burst: gain, frequency, and unknown codes.
    let mut burst = Vec::new();
    for i in 0..10_000u32 {
        burst.push([0x04, 0x01, 0xFF][i as usize % 3]);
        burst.extend_from_slice(&(100_000_000 + i).to_be_bytes());
    }
    c.write_all(&burst).unwrap();
    drop(c);
    let ended = srv.wait_line(" commands (", Duration::from_secs(20));
    assert!(
        ended.is_some_and(|l| l.contains("10000 commands")),
        "{}",
        srv.log()
    );
    let _ = Command::new("kill")
        .args(["-INT", &srv.child.id().to_string()])
        .status();
    assert!(srv.wait_exit(Duration::from_secs(20)), "{}", srv.log());
    let log = srv.log();
    let lines = log.lines().count();
    assert!(lines < 100, "{lines} lines:\n{log}");
    assert!(log.contains("more commands not logged"), "{log}");
}

#[test]
fn a_reset_flood_on_beast_input_is_logged_as_a_count() {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let port = support::free_port();
    let mut cmd = Command::new(BIN);
    cmd.args([
        "adsb",
        "--net-only",
        "--quiet",
        "--net-bi-port",
        &port.to_string(),
    ]);
    cmd.args(support::NO_OUTPUT_PORTS);
    let mut feeder = support::Peer::spawn(cmd);
    let t0 = Instant::now();
    while !support::listening(port) {
        assert!(t0.elapsed() < Duration::from_secs(20), "{}", feeder.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    // 200 peers that send a byte of garbage and reset (linger 0: RST).
    for _ in 0..200 {
        let s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let s = socket2::Socket::from(s);
        s.set_linger(Some(Duration::ZERO)).unwrap();
        let mut s = std::net::TcpStream::from(s);
        let _ = s.write_all(b"\x1a3");
    }
    // The burst has stopped: its count comes once its 10 s window ends,
    // without waiting for another error or the end.
    let count = feeder.wait_line("more connection errors not logged", Duration::from_secs(30));
    let _ = Command::new("kill")
        .args(["-INT", &feeder.child.id().to_string()])
        .status();
    assert!(
        feeder.wait_exit(Duration::from_secs(20)),
        "{}",
        feeder.log()
    );
    let log = feeder.log();
    let count = count.unwrap_or_else(|| panic!("no count:\n{log}"));
    let suppressed: u64 = count
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{count}"));
    let printed = log
        .lines()
        .filter(|l| l.starts_with("beast-in: 127.0.0.1"))
        .count();
    assert!(printed <= 10, "{printed} lines:\n{log}");
    assert!(printed as u64 + suppressed >= 100, "{log}");
}
