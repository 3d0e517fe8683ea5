//! The streaming driver against real peers on 127.0.0.1:
//!
//! - Debian's `rtl_433 -d rtl_tcp:…` reads `airwaves rtl-tcp --fake-device
//!   r820t`: header accepted, its commands applied (the emulator's USB trace
//!   shows the register writes);
//! - `airwaves record --rtl-tcp` against Debian's `rtl_tcp` running on
//!   `fakeusb.c` with a generated file: every byte equal, and our commands
//!   show their register writes in fakeusb's trace;
//! - `airwaves test-mode --rtl-tcp` against our server on the emulator: the
//!   counter crosses USB emulation, the ring, TCP and back without a gap.
//!
//! Peers: `apt-get install -y rtl-sdr rtl-433 gcc`; each test skips with a
//! message when its tool or `/work/shared` (for fakeusb.c) is missing.

mod support;

use std::process::{Command as Process, Stdio};
use std::thread;
use std::time::{Duration, Instant};
use support::{TempDir, free_port, have, our_rtl_tcp_server, pattern, subsequence};

/// Whether a socket listens on 127.0.0.1:`port` (Linux `/proc/net/tcp`).
#[test]
fn debian_rtl_433_reads_our_server_on_the_emulator() {
    if !have("rtl_433") {
        return;
    }
    let dir = TempDir::new("rtl433");
    let trace = dir.0.join("usb.trace");
    let (mut server, addr) = our_rtl_tcp_server(&[
        "--fake-device",
        "r820t",
        "--usb-trace",
        trace.to_str().unwrap(),
        "--seconds",
        "4",
    ]);
    let out = Process::new("rtl_433")
        .args(["-d", &format!("rtl_tcp:{addr}"), "-T", "2"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("rtl_tcp connected"), "{text}");
    assert!(text.contains("Tuner: R820T"), "{text}");
    assert!(!text.contains("Bad rtl_tcp header"), "{text}");
    assert!(
        server.wait_exit(Duration::from_secs(10)),
        "server did not stop:\n{}",
        server.log()
    );
    let log = server.log();
    // rtl_433's defaults: 250 kS/s, tuner AGC, 433.92 MHz, all applied.
    for want in [
        "set_sample_rate 250000: applied",
        "set_gain_mode 0: applied",
        "set_center_freq 433920000: applied",
        "center_freq: Some(433920000)",
        "sample_rate: Some(250000)",
    ] {
        assert!(log.contains(want), "missing {want:?} in\n{log}");
    }
    // On the wire, after the FIFO reset of the session: the resampler for
    // 250 kS/s (28.8 MHz × 2^22 / 250 000, masked to 28 bits = 0x0ccccccc)
    // and the tuner's PLL retuned.
    let text = std::fs::read_to_string(&trace).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let session = lines
        .iter()
        .rposition(|l| *l == "W usb 2148 <- 00 00")
        .expect("FIFO reset in the trace");
    subsequence(
        &lines[session..],
        &["W demod p1 9f <- 0c cc", "W demod p1 a1 <- cc cc"],
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", lines[session..].join("\n")));
    assert!(
        lines[session..]
            .iter()
            .any(|l| l.starts_with("W i2c 34 @14")),
        "no PLL write after the session started"
    );
}

#[test]
fn record_from_debian_rtl_tcp_on_fakeusb_every_byte_equal() {
    let Some(so) = support::fakeusb_so() else {
        return;
    };
    if !have("gcc") || !have("rtl_tcp") {
        return;
    }
    let dir = TempDir::new("record");
    let data = pattern(3 * 262_144 + 4_000, 23);
    let iq = dir.0.join("iq.cu8");
    std::fs::write(&iq, &data).unwrap();
    let trace = dir.0.join("rtl_tcp.trace");
    let port = free_port();
    let server = support::debian_rtl_tcp(so, port, &iq, &trace);
    // Wait for the listening socket without connecting to it (a probe
    // connection would start rtl_tcp's stream and consume the file).
    let t0 = Instant::now();
    while !support::listening(port) {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "rtl_tcp did not start:\n{}",
            server.log()
        );
        thread::sleep(Duration::from_millis(20));
    }
    let out_path = dir.0.join("out.cu8");
    let out = Process::new(env!("CARGO_BIN_EXE_airwaves"))
        .args([
            "record",
            "--rtl-tcp",
            &format!("127.0.0.1:{port}"),
            "-f",
            "1090M",
            "-s",
            "2.4M",
            "-g",
            "49.6",
            "-n",
            &(data.len() / 2).to_string(),
        ])
        .arg(&out_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        server.log()
    );
    let got = std::fs::read(&out_path).unwrap();
    assert_eq!(got.len(), data.len());
    assert!(got == data, "recorded bytes differ from the file");
    // Our commands, as register writes after the FIFO reset (same lines
    // as librtlsdr-0.6.0_rtl_tcp_session.trace).
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| *l == "W usb 2148 <- 00 00")
        .expect("FIFO reset in the trace");
    subsequence(
        &lines[start..],
        &[
            "W demod p1 9f <- 03 00",
            "W demod p1 a1 <- 00 00",
            "W i2c 34 @14 <- 06",
            "W i2c 34 @16 <- e9",
            "W i2c 34 @15 <- 06",
            "W i2c 34 @05 <- 1f",
            "W i2c 34 @07 <- 6e",
        ],
    )
    .unwrap_or_else(|e| panic!("{e}\n{text}"));
}

#[test]
fn test_mode_through_our_server_counter_without_gap() {
    let (_server, addr) = our_rtl_tcp_server(&["--fake-device", "r820t", "-s", "2400000"]);
    let out = Process::new(env!("CARGO_BIN_EXE_airwaves"))
        .args([
            "test-mode",
            "--rtl-tcp",
            &addr.to_string(),
            "-s",
            "2.4M",
            "--seconds",
            "1.5",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(" 0 gaps, lost at least 0 bytes"),
        "{stdout}"
    );
    // About 2.4 MS/s arrived (1.5 s → 7.2 MB; allow for start-up).
    let bytes: u64 = stdout
        .split_whitespace()
        .nth(1)
        .and_then(|w| w.parse().ok())
        .expect("byte count");
    assert!(bytes > 5_000_000, "{stdout}");
}
