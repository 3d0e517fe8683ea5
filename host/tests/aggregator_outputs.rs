//! What aggregators get from `airwaves adsb`: the reduced Beast stream
//! (readsb's `beast_reduce_out`) against full Beast from the same scene,
//! and heartbeats on quiet output ports.

mod support;

use airwaves_core::modes::encode::{BeastDecoder, StreamDecoder};
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::process::Command;
use std::time::{Duration, Instant};
use support::{Peer, TempDir, connect, free_port, listener, make_scene, sink};

const AIRWAVES: &str = env!("CARGO_BIN_EXE_airwaves");

/// Per address: DF17/18 frames, and (even, odd) airborne positions.
fn summary(bytes: &[u8]) -> (usize, HashMap<u32, (usize, usize, usize)>, usize) {
    let mut d = BeastDecoder::new();
    let (mut frames, mut modeac) = (0, 0);
    let mut by: HashMap<u32, (usize, usize, usize)> = HashMap::new();
    for m in d.feed(bytes) {
        frames += 1;
        let f = m.frame();
        if f.len() == 2 {
            modeac += 1;
            continue;
        }
        let df = f[0] >> 3;
        if f.len() == 14 && matches!(df, 17 | 18) {
            let addr = u32::from_be_bytes([0, f[1], f[2], f[3]]);
            let e = by.entry(addr).or_default();
            e.0 += 1;
            let tc = f[4] >> 3;
            if (9..=18).contains(&tc) || (20..=22).contains(&tc) {
                if f[6] & 0x04 == 0 {
                    e.1 += 1;
                } else {
                    e.2 += 1;
                }
            }
        }
    }
    (frames, by, modeac)
}

/// A 30 s scene through beast_out and beast_reduce_out connectors: the
/// reduced stream is a fraction of the bytes and still has every ADS-B
/// aircraft, with even and odd positions for every one that had both.
#[test]
fn test_reduced_beast_against_full() {
    let dir = TempDir::new("reduce");
    let seconds = 30.0;
    let cu8 = make_scene(&dir.0, seconds, 7);
    let (lf, pf) = listener();
    let (lr, pr) = listener();
    let (full, reduced) = (sink(lf), sink(lr));
    let mut p = Peer::spawn({
        let mut c = Command::new(AIRWAVES);
        c.args(["adsb", "--net", "--quiet", "--lat", "52.3", "--lon", "4.8"]);
        c.args(support::NO_OUTPUT_PORTS);
        c.args(["--net-bi-port", "0"]);
        c.args(["--modeac", "--ifile"]).arg(&cu8);
        c.args(["--net-connector", &format!("127.0.0.1,{pf},beast_out")]);
        c.args([
            "--net-connector",
            &format!("127.0.0.1,{pr},beast_reduce_out"),
        ]);
        c
    });
    assert!(p.wait_exit(Duration::from_secs(120)), "{}", p.log());
    let (full, reduced) = (full.join().unwrap(), reduced.join().unwrap());
    let (n_full, by_full, modeac_full) = summary(&full);
    let (n_red, by_red, modeac_red) = summary(&reduced);
    println!(
        "reduced Beast: {:.0} B/s of signal, {} frames; full Beast: {:.0} B/s, {} frames; {:.1} % of the bytes",
        reduced.len() as f64 / seconds,
        n_red,
        full.len() as f64 / seconds,
        n_full,
        100.0 * reduced.len() as f64 / full.len() as f64
    );
    assert!(n_full > 5_000, "{n_full} frames in the full stream");
    assert!(
        reduced.len() * 100 < full.len() * 40,
        "{} of {} bytes",
        reduced.len(),
        full.len()
    );
    assert_eq!(
        modeac_red, 0,
        "Mode A/C in the reduced stream ({modeac_full} in full)"
    );
    // Aircraft heard more than once (a lone frame with repaired bits is
    // not accepted by the tracker, and only accepted frames are reduced).
    let full_es: HashSet<u32> = by_full
        .iter()
        .filter(|(_, c)| c.0 >= 2)
        .map(|(a, _)| *a)
        .collect();
    let red_es: HashSet<u32> = by_red.keys().copied().collect();
    assert!(red_es.iter().all(|a| by_full.contains_key(a)));
    let missing: Vec<_> = full_es.difference(&red_es).collect();
    assert!(missing.is_empty(), "ADS-B aircraft lost: {missing:06X?}");
    for (addr, &(_, even, odd)) in &by_full {
        if even >= 2 && odd >= 2 {
            let &(_, e, o) = by_red.get(addr).unwrap();
            assert!(
                e >= 1 && o >= 1,
                "{addr:06X}: {e} even, {o} odd of {even}, {odd}"
            );
        }
    }
}

/// Output ports with nothing to send get readsb's heartbeats.
#[test]
fn test_heartbeats_on_quiet_ports() {
    let (ro, sbs, bo, bi) = (free_port(), free_port(), free_port(), free_port());
    let mut p = Peer::spawn({
        let mut c = Command::new(AIRWAVES);
        c.args(["adsb", "--net-only", "--net", "--quiet"]);
        c.args(["--net-bi-port", &bi.to_string()]);
        c.args([
            "--net-ro-port",
            &ro.to_string(),
            "--net-sbs-port",
            &sbs.to_string(),
        ]);
        c.args(["--net-bo-port", &bo.to_string(), "--net-heartbeat", "1"]);
        c.args(["--duration", "20"]);
        c
    });
    for (port, want) in [
        (bo, &[0x1A, b'1', 0, 0, 0, 0, 0, 0, 0, 0, 0][..]),
        (ro, b"*0000;\n"),
        (sbs, b"\r\n"),
    ] {
        let mut s = connect(port, Duration::from_secs(10));
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let t0 = Instant::now();
        let mut got = vec![0u8; want.len()];
        s.read_exact(&mut got)
            .unwrap_or_else(|e| panic!("port {port}: {e}\n{}", p.log()));
        assert_eq!(got, want, "port {port}");
        assert!(t0.elapsed() < Duration::from_secs(4), "{:?}", t0.elapsed());
    }
    let _ = p.child.kill();
}
