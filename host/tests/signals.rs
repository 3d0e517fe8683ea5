//! SIGINT and SIGTERM, as rtl_fm and rtl_sdr users send them: every
//! command finishes its files, prints its summary and exits 0; a second
//! signal exits at once with 130.

mod support;

use std::io::Write;
use std::net::TcpListener;
use std::process::Command;
use std::time::{Duration, Instant};
use support::{Peer, TempDir};

const BIN: &str = env!("CARGO_BIN_EXE_airwaves");

fn signal(peer: &Peer, name: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{name}"), &peer.child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{name}");
}

/// Wait for the exit; its code.
fn exit_code(peer: &mut Peer, timeout: Duration) -> Option<i32> {
    assert!(peer.wait_exit(timeout), "still running: {}", peer.log());
    peer.child.wait().unwrap().code()
}

/// A 1 s looping scene behind the emulator.
fn scene(dir: &TempDir) -> String {
    let cu8 = dir.0.join("s.cu8");
    let ok = Command::new(BIN)
        .args(["scene", "--seconds", "1"])
        .arg(&cu8)
        .arg(dir.0.join("s.txt"))
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok);
    format!("r820t,file={},loop", cu8.display())
}

/// Start `cmd`, wait for its stderr line with `ready`, then `settle`
/// longer (a hook such as a client's connection runs here), send `name` and
/// require exit code 0. Returns the ended peer with its log.
fn stopped_by(cmd: Command, ready: &str, settle: impl FnOnce(), name: &str) -> Peer {
    let mut peer = Peer::spawn(cmd);
    assert!(
        peer.wait_line(ready, Duration::from_secs(30)).is_some(),
        "{}",
        peer.log()
    );
    settle();
    signal(&peer, name);
    assert_eq!(
        exit_code(&mut peer, Duration::from_secs(20)),
        Some(0),
        "{}",
        peer.log()
    );
    peer
}

fn le32(b: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes(b[at..at + 4].try_into().unwrap()))
}

#[test]
fn sigint_completes_the_wav_and_exits_0() {
    let dir = TempDir::new("sig-fm");
    let spec = scene(&dir);
    // fm writes stereo by default, am and nfm mono: 48 000 frames of
    // 4 or 2 bytes a second.
    for (command, freq, frame) in [("fm", "100M", 4), ("am", "120M", 2), ("nfm", "446M", 2)] {
        let wav = dir.0.join(format!("{command}.wav"));
        let mut cmd = Command::new(BIN);
        cmd.args([command, freq, "--fake-device", &spec, "--out"])
            .arg(&wav);
        // After the first status line (about 1 s of audio).
        stopped_by(cmd, " s ", || (), "INT");
        // The header covers every byte written: RIFF size and data size.
        let b = std::fs::read(&wav).unwrap();
        assert!(b.len() > 44 + 48_000 * frame, "{command}: {}", b.len());
        assert_eq!(le32(&b, 4) + 8, b.len() as u64, "{command}");
        assert_eq!(le32(&b, 40) + 44, b.len() as u64, "{command}");
    }
}

#[test]
fn sigterm_ends_record_and_rtl_tcp_with_their_totals() {
    let dir = TempDir::new("sig-rec");
    let spec = scene(&dir);
    let out = dir.0.join("r.cu8");
    let mut cmd = Command::new(BIN);
    cmd.args(["record", "-f", "1090M", "--fake-device", &spec])
        .arg(&out);
    let half_a_second = || std::thread::sleep(Duration::from_millis(500));
    let rec = stopped_by(cmd, "tuner", half_a_second, "TERM");
    let line = rec
        .wait_line("samples;", Duration::from_secs(1))
        .expect("summary");
    let len = std::fs::metadata(&out).unwrap().len();
    assert!(len > 0);
    assert!(
        line.contains(&format!("{} samples; {len} bytes", len / 2)),
        "{line}"
    );

    let port = support::free_port().to_string();
    let mut cmd = Command::new(BIN);
    cmd.args(["rtl-tcp", "-p", &port, "--ifile"])
        .arg(dir.0.join("s.cu8"));
    // A client in the middle of its session when the signal comes.
    let mut client = None;
    let connect = || {
        let mut c =
            std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).unwrap();
        let mut got = [0u8; 4096];
        std::io::Read::read_exact(&mut c, &mut got).unwrap();
        client = Some(c);
    };
    let srv = stopped_by(cmd, "listening", connect, "INT");
    assert!(srv.log().contains("stopped: 1 sessions"), "{}", srv.log());
    drop(client);

    // test-mode: its totals, after a signal as after --seconds.
    let mut cmd = Command::new(BIN);
    cmd.args(["test-mode", "--fake-device", "r820t"]);
    let tm = stopped_by(cmd, "tuner", half_a_second, "TERM");
    let line = tm.wait_line(" bytes; ", Duration::from_secs(1));
    assert!(
        line.is_some_and(|l| l.starts_with("airwaves test-mode: ") && l.contains("0 gaps")),
        "{}",
        tm.log()
    );
}

#[test]
fn sigint_writes_the_feeders_json_then_a_second_signal_exits_at_once() {
    let dir = TempDir::new("sig-adsb");
    let json = dir.0.join("json");
    let mut cmd = Command::new(BIN);
    cmd.args(["adsb", "--demo", "--quiet", "--write-json"])
        .arg(&json);
    let mut feeder = Peer::spawn(cmd);
    let t0 = Instant::now();
    while !json.join("aircraft.json").exists() && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
    }
    signal(&feeder, "INT");
    assert_eq!(
        exit_code(&mut feeder, Duration::from_secs(20)),
        Some(0),
        "{}",
        feeder.log()
    );
    let text = std::fs::read_to_string(json.join("aircraft.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(v["aircraft"].is_array(), "{text}");

    // A source that never sends a byte: the first signal cannot end the
    // read that waits for one; the second exits at once.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let held = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        // rtl_tcp's header: "RTL0", tuner 5 (R820T), 29 gains.
        s.write_all(b"RTL0\0\0\0\x05\0\0\0\x1d").unwrap();
        std::thread::sleep(Duration::from_secs(10));
    });
    let mut cmd = Command::new(BIN);
    cmd.args(["record", "-f", "1090M", "--rtl-tcp", &addr])
        .arg(dir.0.join("never.cu8"));
    let mut rec = Peer::spawn(cmd);
    assert!(
        rec.wait_line("rtl_tcp", Duration::from_secs(20)).is_some(),
        "{}",
        rec.log()
    );
    signal(&rec, "INT");
    std::thread::sleep(Duration::from_millis(300));
    let t1 = Instant::now();
    signal(&rec, "INT");
    assert_eq!(
        exit_code(&mut rec, Duration::from_secs(3)),
        Some(130),
        "{}",
        rec.log()
    );
    assert!(t1.elapsed() < Duration::from_secs(3));
    drop(held);
}
