//! Helpers shared by the integration tests that run real peers (Debian's
//! `rtl_tcp`, `rtl_sdr`, `rtl_433`, the `airwaves` binary) and
//! `fakeusb.c`. Each test binary uses a subset, hence `dead_code`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// `../shared/rtl/fakeusb.c` beside the checkout.
pub const FAKEUSB_C: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/rtl/fakeusb.c");

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
