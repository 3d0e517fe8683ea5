//! rtl_tcp against real peers on 127.0.0.1:
//!
//! - our client against Debian's `rtl_tcp` running on `fakeusb.c` (an
//!   LD_PRELOAD libusb stand-in emulating an RTL2832U + R820T): every byte
//!   equals the file, and each command we send shows its register writes;
//! - our server (`airwaves rtl-tcp`) read by Debian's `rtl_433` and by our
//!   client;
//! - garbage, partial commands, a second client and a client that never
//!   reads: the server keeps serving with counted drops and bounded memory.
//!
//! Peers: `apt-get install -y rtl-sdr rtl-433 gcc`; each test skips with a
//! message when its tool is missing, and when `/work/shared` (for
//! fakeusb.c) is absent.

mod support;

use airwaves::rtltcp::client::{Client, ClientError};
use airwaves::rtltcp::protocol::{Command, Header, TunerType};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command as Process, Stdio};
use std::thread;
use std::time::{Duration, Instant};
use support::{TempDir, free_port, have, our_rtl_tcp_server, pattern, subsequence};

/// Connect, retrying while the server starts up or winds down a session.
fn connect_retry(addr: SocketAddr, within: Duration) -> Client {
    let t0 = Instant::now();
    loop {
        match Client::connect(addr, Duration::from_secs(5)) {
            Ok(c) => return c,
            Err(_) if t0.elapsed() < within => {
                thread::sleep(Duration::from_millis(50));
            }
            Err(e) => panic!("cannot connect to {addr}: {e}"),
        }
    }
}

fn read_until_closed(c: &mut Client) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = vec![0u8; 65_536];
    loop {
        match c.read(&mut buf) {
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(ClientError::Closed) => return got,
            Err(e) => panic!("after {} bytes: {e}", got.len()),
        }
    }
}

#[test]
fn our_client_against_debian_rtl_tcp_on_fakeusb() {
    let Some(so) = support::fakeusb_so() else {
        return;
    };
    if !have("gcc") || !have("rtl_tcp") {
        return;
    }
    let dir = TempDir::new("fakeusb");
    // 4 full 256 KiB transfers and a short last one.
    let data = pattern(4 * 262_144 + 1_000, 11);
    let iq = dir.0.join("iq.cu8");
    std::fs::write(&iq, &data).unwrap();
    let trace = dir.0.join("session.trace");
    let port = free_port();
    let server = support::debian_rtl_tcp(so, port, &iq, &trace);
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let mut c = connect_retry(addr, Duration::from_secs(10));
    assert_eq!(
        c.header(),
        Header {
            tuner: TunerType::R820t,
            gain_count: 29
        }
    );
    for cmd in [
        Command::SetSampleRate(2_400_000),
        Command::SetCenterFreq(1_090_000_000),
        Command::SetGainMode { manual: true },
        Command::SetGain(496),
        Command::SetFreqCorrection(50),
        Command::SetAgcMode(true),
        Command::SetBiasTee(true),
    ] {
        c.send(cmd).unwrap();
    }
    // The device reports "unplugged" at the end of the file; rtl_tcp keeps
    // the connection, so read exactly the file's length.
    let mut got = vec![0u8; data.len()];
    c.read_exact(&mut got)
        .unwrap_or_else(|e| panic!("{e}\n{}", server.log()));
    assert!(got == data, "streamed bytes differ from the file");

    // Register writes (facts: rtl2832u.md §1.6, §1.8, Appendix B; the same
    // lines as librtlsdr-0.6.0_rtl_tcp_session.trace), in command order,
    // after the FIFO reset that starts streaming.
    let expected = [
        "W i2c 34 @0b <- 8f", // 2.4 Msps: tuner bandwidth, IF 1.815 MHz
        "W demod p1 19 <- 3b",
        "W demod p1 1a <- f7",
        "W demod p1 1b <- 78",
        "W demod p1 9f <- 03 00", // then the resampler ratio 0x03000000
        "W demod p1 a1 <- 00 00",
        "W i2c 34 @14 <- 06", // 1090 MHz: nint 37, SDM 0xe906
        "W i2c 34 @16 <- e9",
        "W i2c 34 @15 <- 06",
        "W i2c 34 @0c <- 68", // manual gain: VGA 16.3 dB
        "W i2c 34 @05 <- 1f", // 49.6 dB: LNA 15, mixer 14
        "W i2c 34 @07 <- 6e",
        "W demod p1 3f <- ba", // +50 ppm: -838 = 0x3cba (14 bits)
        "W demod p1 3e <- 3c",
        "W demod p0 19 <- 25", // RTL2832 digital AGC on
        "R sys 3004 -> 00",    // bias tee: GPIO 0 output, then high
        "W sys 3004 <- 00",
        "W sys 3003 <- 01",
        "W sys 3001 <- 01",
    ];
    let t0 = Instant::now();
    let result = loop {
        let text = std::fs::read_to_string(&trace).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let Some(start) = lines.iter().position(|l| *l == "W usb 2148 <- 00 00") else {
            if t0.elapsed() > Duration::from_secs(5) {
                break Err("no FIFO reset in the trace".to_string());
            }
            thread::sleep(Duration::from_millis(50));
            continue;
        };
        let r = subsequence(&lines[start..], &expected);
        if r.is_ok() || t0.elapsed() > Duration::from_secs(5) {
            break r;
        }
        thread::sleep(Duration::from_millis(50));
    };
    if let Err(e) = result {
        panic!(
            "{e}\ntrace:\n{}",
            std::fs::read_to_string(&trace).unwrap_or_default()
        );
    }
    drop(server);
}

#[test]
fn debian_rtl_433_reads_our_rtl_tcp_server() {
    if !have("rtl_433") {
        return;
    }
    let dir = TempDir::new("rtl433");
    let iq = dir.0.join("noise.cu8");
    std::fs::write(&iq, pattern(1 << 20, 5)).unwrap();
    let (server, addr) = our_rtl_tcp_server(&["--ifile", iq.to_str().unwrap(), "--loop"]);
    let out = Process::new("rtl_433")
        .args(["-d", &format!("rtl_tcp:{addr}")])
        .args(["-f", "868000000", "-s", "1024000", "-g", "28", "-p", "5"])
        .args(["-T", "2"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("rtl_tcp connected") && text.contains("Tuner: R820T"),
        "rtl_433 did not accept the header:\n{text}"
    );
    assert!(
        text.contains("Time expired"),
        "rtl_433 did not run to -T:\n{text}"
    );
    let ended = server
        .wait_line("ended (client closed)", Duration::from_secs(5))
        .unwrap_or_else(|| panic!("no session end:\n{}", server.log()));
    for applied in [
        "set_sample_rate 1024000: applied",
        "set_center_freq 868000000: applied",
        "set_gain_mode 1: applied",
        "set_gain 280: applied",
        "set_freq_correction 5: applied",
    ] {
        assert!(
            server.wait_line(applied, Duration::from_secs(1)).is_some(),
            "server did not apply {applied:?}:\n{}\nrtl_433:\n{text}",
            server.log()
        );
    }
    // Two seconds at 1.024 Msps is about 4 MB; well over 1 MB must have gone.
    let sent: u64 = ended
        .split("sent ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    eprintln!("rtl_433: {ended}");
    assert!(sent > 1_000_000, "{ended}");
}

#[test]
fn our_client_reads_our_server_every_byte() {
    let dir = TempDir::new("bytes");
    let data = pattern(3_000_000, 7);
    let iq = dir.0.join("bytes.cu8");
    std::fs::write(&iq, &data).unwrap();
    let (server, addr) = our_rtl_tcp_server(&["--ifile", iq.to_str().unwrap(), "-s", "3200000"]);
    let mut c = connect_retry(addr, Duration::from_secs(5));
    assert_eq!(c.header(), Header::R820T);
    c.send(Command::SetGainByIndex(28)).unwrap();
    let got = read_until_closed(&mut c);
    assert_eq!(got.len(), data.len());
    assert!(got == data, "bytes differ");
    let ended = server
        .wait_line("ended (end of source)", Duration::from_secs(5))
        .unwrap_or_else(|| panic!("{}", server.log()));
    assert!(ended.contains("sent 3000000 bytes"), "{ended}");
    assert!(ended.contains("dropped 0 buffers"), "{ended}");
    assert!(
        server
            .wait_line("set_gain_by_index 28: applied", Duration::from_secs(1))
            .is_some()
    );
}

fn vm_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[test]
fn garbage_partial_second_and_stalled_clients() {
    let dir = TempDir::new("abuse");
    let data = pattern(1 << 20, 9);
    let iq = dir.0.join("loop.cu8");
    std::fs::write(&iq, &data).unwrap();
    let (server, addr) = our_rtl_tcp_server(&[
        "--ifile",
        iq.to_str().unwrap(),
        "-s",
        "3200000",
        "--loop",
        "--buffers",
        "8",
        "--buffer-size",
        "16384",
    ]);

    // Client A: header, then a command cut in three, garbage, and never a
    // read: the server must drop and count.
    let mut a = TcpStream::connect(addr).unwrap();
    let mut header = [0u8; 12];
    a.read_exact(&mut header).unwrap();
    assert_eq!(Header::parse(&header).unwrap(), Header::R820T);
    let freq = Command::SetCenterFreq(433_920_000).encode();
    for piece in [&freq[..2], &freq[2..3], &freq[3..]] {
        a.write_all(piece).unwrap();
        thread::sleep(Duration::from_millis(30));
    }
    a.write_all(&[0xde, 0xad, 0xbe, 0xef, 0x00]).unwrap();
    a.write_all(&Command::SetSampleRate(12).encode()).unwrap();
    a.write_all(&Command::SetGainByIndex(1000).encode())
        .unwrap();
    a.write_all(&Command::SetBiasTee(true).encode()).unwrap();

    // Client B while A is served: closed at once, no header.
    let mut b = TcpStream::connect(addr).unwrap();
    b.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let t0 = Instant::now();
    let mut one = [0u8; 1];
    let n = b.read(&mut one).unwrap_or(0);
    assert_eq!(n, 0, "second client got data");
    assert!(t0.elapsed() < Duration::from_secs(1));
    assert!(
        server
            .wait_line("refused", Duration::from_secs(2))
            .is_some()
    );

    // A stalls for 2.5 s at 6.4 MB/s: ~16 MB offered, the kernel's socket
    // buffers and the 128 KiB ring take a few MB, the rest is dropped.
    let pid = server.child.id();
    thread::sleep(Duration::from_millis(500));
    let rss_early = vm_rss_kib(pid).unwrap();
    thread::sleep(Duration::from_millis(2000));
    let rss_late = vm_rss_kib(pid).unwrap();
    assert!(
        rss_late < rss_early + 1024,
        "server memory grew: {rss_early} -> {rss_late} KiB"
    );
    assert!(rss_late < 32 * 1024, "server uses {rss_late} KiB");
    drop(a);
    let ended = server
        .wait_line("ended (client closed)", Duration::from_secs(5))
        .unwrap_or_else(|| panic!("{}", server.log()));
    let dropped: u64 = ended
        .split("dropped ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    eprintln!("stalled client: RSS {rss_early} -> {rss_late} KiB; {ended}");
    assert!(dropped > 100, "expected counted drops: {ended}");
    assert!(ended.contains("5 commands (3 failed)"), "{ended}");
    for line in [
        "set_center_freq 433920000: applied",
        "unknown 0xde",
        "set_sample_rate 12: refused",
        "set_gain_by_index 1000: refused",
        "set_bias_tee 1: applied",
    ] {
        assert!(
            server.wait_line(line, Duration::from_secs(1)).is_some(),
            "{line:?} missing:\n{}",
            server.log()
        );
    }

    // The server keeps serving: C gets the file from its start.
    let mut c = connect_retry(addr, Duration::from_secs(3));
    let mut got = vec![0u8; 200_000];
    c.read_exact(&mut got).unwrap();
    assert!(got == data[..200_000], "third client got wrong bytes");
}
