//! A bounded version of a hostile user's load on the feeder: a dense demo
//! sky, 100 Beast clients that never read beside 20 that do, garbage on
//! Beast input and HTTP, slow HTTP heads, and connection churn. Readers
//! never starve, stalled clients are dropped and counted, the map keeps
//! answering, and memory after the churn stays within twice the idle
//! figure. The figures are printed for the README.

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};
use support::{Peer, free_port};

const AIRWAVES: &str = env!("CARGO_BIN_EXE_airwaves");

fn connect(port: u16) -> TcpStream {
    let t0 = Instant::now();
    loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(s) => return s,
            Err(e) if t0.elapsed() > Duration::from_secs(20) => panic!("connect {port}: {e}"),
            Err(_) => thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// One HTTP/1.1 GET (status, body, seconds it took).
fn http_get(port: u16, path: &str) -> (u16, Vec<u8>, f64) {
    let t0 = Instant::now();
    let mut s = connect(port);
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut r = Vec::new();
    let _ = s.read_to_end(&mut r);
    let status = std::str::from_utf8(r.get(9..12).unwrap_or_default())
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    let body = r
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or_else(Vec::new, |i| r[i + 4..].to_vec());
    (status, body, t0.elapsed().as_secs_f64())
}

/// The process's resident set and its peak, KiB (`/proc/PID/status`).
fn rss_kib(pid: u32) -> (u64, u64) {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The value of a metric sample line that starts with `prefix`.
fn metric(metrics: &str, prefix: &str) -> f64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(f64::NAN)
}

#[test]
fn test_dense_demo_idle_and_reading_clients_garbage_slowloris_and_churn() {
    if !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("skipping: no /proc");
        return;
    }
    let (bo, bi, http) = (free_port(), free_port(), free_port());
    let mut cmd = Command::new(AIRWAVES);
    cmd.args(["adsb", "--demo", "--demo-aircraft", "1000", "--quiet"])
        .args(["--net-ro-port", "0", "--net-sbs-port", "0"])
        .args([
            "--net-bo-port",
            &bo.to_string(),
            "--net-bi-port",
            &bi.to_string(),
        ])
        .args(["--http-port", &http.to_string(), "--duration", "90"]);
    let mut feeder = Peer::spawn(cmd);
    let pid = feeder.child.id();
    drop(connect(bo));
    thread::sleep(Duration::from_secs(3));
    let (idle_rss, _) = rss_kib(pid);

    // Churn first, on the idle feeder: 2 000 connections opened and closed
    // on the Beast output, half of them after reading a little.
    for i in 0..2_000 {
        let mut s = connect(bo);
        if i % 2 == 0 {
            s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
            let _ = s.read(&mut [0u8; 512]);
        }
    }
    thread::sleep(Duration::from_secs(3));
    let (churned_rss, _) = rss_kib(pid);
    assert!(
        churned_rss <= 2 * idle_rss,
        "RSS after churn {churned_rss} KiB, idle {idle_rss} KiB"
    );

    // 100 clients that never read (small receive buffers, as a stopped
    // client's kernel would give) and 20 that read.
    let stalled: Vec<TcpStream> = (0..100)
        .map(|_| {
            let s = connect(bo);
            socket2::SockRef::from(&s)
                .set_recv_buffer_size(16 * 1024)
                .unwrap();
            s
        })
        .collect();
    let mut readers: Vec<TcpStream> = (0..20).map(|_| connect(bo)).collect();
    for r in &mut readers {
        r.set_nonblocking(true).unwrap();
    }
    // Garbage on Beast input, and malformed HTTP.
    let mut garbage = connect(bi);
    let mut x = 0x9E37_79B9u32;
    let junk: Vec<u8> = (0..1 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    let _ = garbage.write_all(&junk);
    drop(garbage);
    for raw in [
        &b"\x00\x01\x02 junk\r\n\r\n"[..],
        b"GET /%zz HTTP/1.1\r\nHost: localhost\r\n\r\n",
    ] {
        let mut s = connect(http);
        let _ = s.write_all(raw);
    }
    // 64 slow HTTP heads that never finish.
    let slowloris: Vec<TcpStream> = (0..64)
        .map(|_| {
            let mut s = connect(http);
            let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n");
            s
        })
        .collect();

    // 20 s of reading; the map answers meanwhile.
    let mut got = vec![0u64; readers.len()];
    let mut buf = vec![0u8; 64 * 1024];
    let mut slowest_map = 0f64;
    let t0 = Instant::now();
    let mut last_map = Instant::now();
    while t0.elapsed() < Duration::from_secs(20) {
        for (r, g) in readers.iter_mut().zip(&mut got) {
            loop {
                match r.read(&mut buf) {
                    Ok(0) => panic!("a reading client was dropped\n{}", feeder.log()),
                    Ok(n) => *g += n as u64,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => panic!("{e}"),
                }
            }
        }
        if last_map.elapsed() >= Duration::from_secs(2) {
            last_map = Instant::now();
            let (st, _, secs) = http_get(http, "/data/aircraft.json");
            assert_eq!(st, 200, "the map did not answer under load");
            slowest_map = slowest_map.max(secs);
        }
        thread::sleep(Duration::from_millis(20));
    }
    assert!(
        feeder.child.try_wait().unwrap().is_none(),
        "exited\n{}",
        feeder.log()
    );
    let (_, metrics, _) = http_get(http, "/metrics");
    let metrics = String::from_utf8(metrics).unwrap();
    let dropped_stalled = metric(
        &metrics,
        "airwaves_clients_dropped_total{reason=\"stalled\"}",
    );
    let dropped_slow = metric(&metrics, "airwaves_clients_dropped_total{reason=\"slow\"}");
    let (loaded_rss, peak_rss) = rss_kib(pid);
    let least = *got.iter().min().unwrap();
    let per_s = |b: u64| b as f64 / t0.elapsed().as_secs_f64() / 1024.0;
    // Every stalled client dropped and counted; every reader fed.
    assert_eq!(dropped_stalled + dropped_slow, 100.0, "{metrics}");
    // stats.json counts them too (written once a second).
    let (_, stats, _) = http_get(http, "/data/stats.json");
    let stats: serde_json::Value = serde_json::from_slice(&stats).unwrap();
    let dropped = &stats["total"]["clients_dropped"];
    assert_eq!(
        dropped["slow"].as_f64().unwrap_or(-1.0) + dropped["stalled"].as_f64().unwrap_or(-1.0),
        100.0,
        "{stats}"
    );
    assert!(least > 100_000, "a reader got only {least} bytes");
    assert_eq!(
        metric(&metrics, "airwaves_clients{port=\"beast_out\"}"),
        20.0,
        "{metrics}"
    );

    eprintln!(
        "hostile load: RSS idle {:.1} MiB, after 2000 connect/close {:.1} MiB; with 100 stalled \
         and 20 reading clients {:.1} MiB (peak {:.1}); stalled clients dropped \
         {dropped_stalled} (slow {dropped_slow}) of 100; readers got at least {:.1} KiB/s each; \
         the map answered in at most {:.3} s",
        idle_rss as f64 / 1024.0,
        churned_rss as f64 / 1024.0,
        loaded_rss as f64 / 1024.0,
        peak_rss as f64 / 1024.0,
        per_s(least),
        slowest_map
    );
    // Not held by the slow heads: each of them gets 2 s while more than 32
    // connections are open, and a held map would wait 10 s (a bound that
    // catches holding, not a speed target).
    assert!(slowest_map < 5.0, "the map took {slowest_map:.1} s");
    // Bounded: 120 clients' buffers are at most 120 × 256 KiB.
    assert!(peak_rss < 128 * 1024, "peak RSS {peak_rss} KiB");
    drop((stalled, slowloris, readers));
    let _ = feeder.child.kill();
}
