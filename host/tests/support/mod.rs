//! Helpers shared by the integration tests that run real peers (Debian's
//! `rtl_tcp`, `rtl_sdr`, `rtl_433`, the `airwaves` binary) and
//! `fakeusb.c`. Each test binary uses a subset, hence `dead_code`.
#![allow(dead_code)]

pub mod browser;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// `../shared/rtl/fakeusb.c` beside the checkout.
pub const FAKEUSB_C: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/rtl/fakeusb.c");

/// `airwaves adsb` arguments that turn off the AVR, SBS and Beast output
/// ports: a feeder already running on the machine holds their defaults
/// (30002, 30003, 30005).
pub const NO_OUTPUT_PORTS: [&str; 6] = [
    "--net-ro-port",
    "0",
    "--net-sbs-port",
    "0",
    "--net-bo-port",
    "0",
];

/// Say why a test that needs `../shared` does not run: a "skipping" line,
/// or, under `CI=true`, a failure (CI always has `../shared` beside the
/// clone, so a golden test must never pass there without running).
///
/// # Panics
/// Under `CI=true`.
pub fn skip_missing_shared(what: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{what} is missing (CI=true: the shared test material must be present)"
    );
    eprintln!("skipping: {what} is missing");
}

/// `fakeusb.so`, built once per test binary (a file of its own, so that
/// test binaries running at the same time never load a half-written one);
/// `None`, with the reason printed, if the source or gcc is missing.
pub fn fakeusb_so() -> Option<&'static Path> {
    static SO: OnceLock<Option<PathBuf>> = OnceLock::new();
    SO.get_or_init(|| {
        if !Path::new(FAKEUSB_C).is_file() {
            skip_missing_shared(FAKEUSB_C);
            return None;
        }
        let so = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("fakeusb-{}.so", std::process::id()));
        match Command::new("gcc")
            .args(["-shared", "-fPIC", "-O2", "-o"])
            .arg(&so)
            .arg(FAKEUSB_C)
            .status()
        {
            Ok(s) if s.success() => Some(so),
            Ok(s) => panic!("gcc failed on fakeusb.c: {s}"),
            Err(e) => {
                eprintln!("skipped: cannot run gcc: {e}");
                None
            }
        }
    })
    .as_deref()
}

/// A child process killed (and reaped) on drop, with its stderr lines.
pub struct Peer {
    pub child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Peer {
    /// Start `cmd` with stdin and stdout closed and stderr collected.
    pub fn spawn(mut cmd: Command) -> Peer {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn peer");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let sink = lines.clone();
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Peer { child, lines }
    }

    /// The first log line containing `needle`, waiting up to `timeout`.
    pub fn wait_line(&self, needle: &str, timeout: Duration) -> Option<String> {
        let t0 = Instant::now();
        loop {
            if let Some(l) = self
                .lines
                .lock()
                .unwrap()
                .iter()
                .find(|l| l.contains(needle))
            {
                return Some(l.clone());
            }
            if t0.elapsed() > timeout {
                return None;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Wait for the process to exit by itself.
    pub fn wait_exit(&mut self, timeout: Duration) -> bool {
        let t0 = Instant::now();
        while t0.elapsed() < timeout {
            if let Ok(Some(_)) = self.child.try_wait() {
                // Let the stderr thread collect the last lines.
                thread::sleep(Duration::from_millis(100));
                return true;
            }
            thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Everything it wrote on stderr so far.
    pub fn log(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A per-test scratch directory, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("airwaves-test-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether `tool` is on the PATH; says so when it is not.
pub fn have(tool: &str) -> bool {
    let found = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(tool).is_file()));
    if !found {
        eprintln!("skipped: `{tool}` not installed (scripts/setup --test installs it)");
    }
    found
}

/// Pseudo-random bytes (xorshift), so that any shift or loss shows.
pub fn pattern(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 7) as u8
        })
        .collect()
}

/// A TCP port free on 127.0.0.1 right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether something listens on 127.0.0.1:`port` (from `/proc/net/tcp`,
/// without connecting: a probe connection would start some servers'
/// streams).
pub fn listening(port: u16) -> bool {
    let want = format!("0100007F:{port:04X}");
    std::fs::read_to_string("/proc/net/tcp").is_ok_and(|t| {
        t.lines().any(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.len() > 3 && f[1] == want && f[3] == "0A"
        })
    })
}

/// `airwaves rtl-tcp ARGS` on a free port; returns the peer and its address.
pub fn our_rtl_tcp_server(args: &[&str]) -> (Peer, std::net::SocketAddr) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_airwaves"));
    cmd.args(["rtl-tcp", "-a", "127.0.0.1", "-p", "0"])
        .args(args);
    let peer = Peer::spawn(cmd);
    let line = peer
        .wait_line("listening on", Duration::from_secs(10))
        .unwrap_or_else(|| panic!("server did not start:\n{}", peer.log()));
    let addr = line
        .split_whitespace()
        .find_map(|w| w.trim_end_matches(',').parse().ok())
        .expect("address in the listening line");
    (peer, addr)
}

/// Debian's `rtl_tcp` on 127.0.0.1:`port`, running on fakeusb.so (`so`)
/// that plays `iq` and writes its control transfers to `trace`.
pub fn debian_rtl_tcp(so: &Path, port: u16, iq: &Path, trace: &Path) -> Peer {
    let mut cmd = Command::new("rtl_tcp");
    cmd.args(["-a", "127.0.0.1", "-p", &port.to_string()])
        .env("LD_PRELOAD", so)
        .env("FAKEUSB_IQFILE", iq)
        .env("FAKEUSB_TRACE", trace)
        .env("FAKEUSB_XFER_US", "5000");
    Peer::spawn(cmd)
}

/// `Ok` if `expected` appears in `lines` in order (other lines between).
pub fn subsequence(lines: &[&str], expected: &[&str]) -> Result<(), String> {
    let mut it = lines.iter();
    for want in expected {
        if !it.any(|l| l == want) {
            return Err(format!("missing (in order): {want}"));
        }
    }
    Ok(())
}

/// cu8 I/Q at `rate` for `seconds`: a carrier at `offset` Hz (amplitude
/// 0.3 of full scale), AM by `depth` and FM by `dev` Hz with a `tone` Hz
/// sine.
pub fn narrow_iq(rate: f64, seconds: f64, offset: f64, tone: f64, depth: f64, dev: f64) -> Vec<u8> {
    let n = (rate * seconds) as usize;
    let mut out = Vec::with_capacity(2 * n);
    let mut phase = 0.0f64;
    for i in 0..n {
        let t = i as f64 / rate;
        let m = (2.0 * std::f64::consts::PI * tone * t).sin();
        let a = 0.3 * (1.0 + depth * m);
        phase += 2.0 * std::f64::consts::PI * (offset + dev * m) / rate;
        out.push((a * phase.cos() * 128.0 + 127.4).round() as u8);
        out.push((a * phase.sin() * 128.0 + 127.4).round() as u8);
    }
    out
}

// ------------------------------------------------------------ scenes

/// `airwaves scene` of `seconds` with `seed` into `dir`; returns the .cu8.
pub fn make_scene(dir: &Path, seconds: f64, seed: u64) -> PathBuf {
    let cu8 = dir.join(format!("scene-{seed}.cu8"));
    let truth = dir.join(format!("scene-{seed}.txt"));
    let st = Command::new(env!("CARGO_BIN_EXE_airwaves"))
        .args([
            "scene",
            "--seconds",
            &seconds.to_string(),
            "--seed",
            &seed.to_string(),
        ])
        .arg(&cu8)
        .arg(&truth)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    cu8
}

/// `airwaves scene --uat` with the options `args` into `dir`; returns the
/// .cu8 and the text of its truth list.
pub fn make_uat_scene(dir: &Path, args: &[&str]) -> (PathBuf, String) {
    let cu8 = dir.join("uat.cu8");
    let truth = dir.join("uat.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_airwaves"))
        .args(["scene", "--uat"])
        .args(args)
        .arg(&cu8)
        .arg(&truth)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (cu8, std::fs::read_to_string(&truth).unwrap())
}

// ------------------------------------------------------------ TCP and HTTP

/// Accept one connection on `l` and read it to the end (in a thread).
pub fn sink(l: TcpListener) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        let mut v = Vec::new();
        s.read_to_end(&mut v).unwrap();
        v
    })
}

pub fn listener() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let p = l.local_addr().unwrap().port();
    (l, p)
}

/// Connect to 127.0.0.1:`port`, retrying until it listens.
pub fn connect(port: u16, timeout: Duration) -> TcpStream {
    let t0 = Instant::now();
    loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(s) => return s,
            Err(e) if t0.elapsed() > timeout => panic!("connect {port}: {e}"),
            Err(_) => thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// One HTTP/1.1 GET; returns (status, body).
pub fn http_get(port: u16, path: &str) -> (u16, Vec<u8>) {
    http_raw(
        port,
        format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// Send `request` and return (status, body).
pub fn http_raw(port: u16, request: &[u8]) -> (u16, Vec<u8>) {
    let mut s = connect(port, Duration::from_secs(10));
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request).unwrap();
    let mut v = Vec::new();
    let _ = s.read_to_end(&mut v);
    let text = String::from_utf8_lossy(&v);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = match v.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(i) => v[i + 4..].to_vec(),
        None => Vec::new(),
    };
    (status, body)
}

// ------------------------------------------------------------ MLAT results

/// mlat-client's results for A835AF (N628TS) at 52.3° N 4.76° E,
/// 3,000 ft, 200 kt north and 100 kt west, −640 ft/min: even and odd
/// TC 18 positions and a TC 19 velocity, as DF18 CF 2 (written from the
/// layout of mlat-client's results by an independent generator).
pub const MLAT_FRAMES: [&str; 3] = [
    "92A835AF901502DDDEF3B61949EC",
    "92A835AF901506491AECF115B1EB",
    "92A835AF99046519382C00B5C721",
];

/// The magic timestamp of an MLAT result.
pub const MLAT_TS: [u8; 6] = [0xFF, 0x00, 0x4D, 0x4C, 0x41, 0x54];

/// Bytes of a hex string (even length, no separators).
pub fn bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// One Beast long-frame message: `1A 33`, timestamp, signal, frame, every
/// 0x1A after the type doubled.
pub fn beast(ts: [u8; 6], signal: u8, frame: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1A, b'3'];
    for &b in ts.iter().chain([signal].iter()).chain(frame) {
        out.push(b);
        if b == 0x1A {
            out.push(0x1A);
        }
    }
    out
}

/// [`MLAT_FRAMES`] as one Beast stream, stamped [`MLAT_TS`].
pub fn mlat_results_stream() -> Vec<u8> {
    MLAT_FRAMES
        .iter()
        .flat_map(|h| beast(MLAT_TS, 0xFF, &bytes(h)))
        .collect()
}
