//! `autogain [SECONDS] [SKY…]`: per demo sky (airport, rural, mixed), the
//! frames the real receive chain decodes from the physical front-end model
//! at every fixed tuner gain (the sweep), under the tuner's AGC (modelled:
//! the strongest peak kept at −1 dBFS), under a readsb-like rule (noise
//! floor 34–36 on the 0–255 scale, lowered when loud samples pass 0.1 %)
//! and under airwaves' loop (`--gain auto`), the last two from both ends
//! of the gain range.
//!
//! Frames are counted after the first 60 s of signal (convergence);
//! changes per minute over the same span. For the mixed sky, the time the
//! loop takes to come back to its gain from before the strong aircraft
//! came within 10 NM (at 100 s of signal) once it is beyond 10 NM again
//! (at 300 s), and its changes per minute outside the pass. Default
//! length: 600 s (480 s for the mixed sky).

use airwaves::autogain::harness::{Policy, RunReport, run, run_loop, run_readsb_like, sky_config};
use airwaves::demo::SkyKind;
use airwaves::demo::frontend::{GAINS_TENTH_DB, gain_index};
use airwaves::rtl::r82xx::Gain;
use std::process::ExitCode;

/// Frames before this second are convergence.
const SETTLE_S: usize = 60;

fn main() -> ExitCode {
    let mut seconds = None;
    let mut skies = Vec::new();
    for a in std::env::args().skip(1) {
        if let Ok(s) = a.parse::<u32>() {
            if s <= SETTLE_S as u32 {
                eprintln!("autogain: SECONDS must be above {SETTLE_S}");
                return ExitCode::FAILURE;
            }
            seconds = Some(s);
        } else {
            match a.parse::<SkyKind>() {
                Ok(k) => skies.push(k),
                Err(e) => {
                    eprintln!("autogain: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    if skies.is_empty() {
        skies = vec![SkyKind::Airport, SkyKind::Rural, SkyKind::Mixed];
    }
    for kind in skies {
        let s = seconds.unwrap_or(if kind == SkyKind::Mixed { 480 } else { 600 });
        if let Err(e) = one_sky(kind, s) {
            eprintln!("autogain: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Gain changes per minute after [`SETTLE_S`].
fn changes_per_min(r: &RunReport) -> f64 {
    let n = r
        .changes
        .iter()
        .filter(|(t, _, _)| *t > SETTLE_S as f64)
        .count();
    n as f64 * 60.0 / (r.frames_per_s.len() - SETTLE_S) as f64
}

fn db(t: i32) -> f64 {
    f64::from(t) / 10.0
}

fn one_sky(kind: SkyKind, seconds: u32) -> Result<(), airwaves::demo::DemoError> {
    let cfg = sky_config(kind, 1);
    println!(
        "\n== sky {}: {seconds} s of signal at 2.4 MS/s, frames after {SETTLE_S} s ==",
        kind.name()
    );
    println!("fixed gain sweep:");
    let mut best = (0, 0u64);
    for &g in &GAINS_TENTH_DB {
        let r = run(&cfg, seconds, Policy::Fixed(g))?;
        let f = r.frames_from(SETTLE_S);
        println!("  {:>5.1} dB  {f:>7}", db(g));
        if f > best.1 {
            best = (g, f);
        }
    }
    println!("  best fixed: {:.1} dB, {} frames", db(best.0), best.1);
    let pct = |f: u64| 100.0 * f as f64 / best.1.max(1) as f64;
    let agc = run(&cfg, seconds, Policy::TunerAgc)?;
    let mean = agc.gain_per_s.iter().map(|&g| db(g)).sum::<f64>() / agc.gain_per_s.len() as f64;
    println!(
        "tuner AGC:              {:>7} frames ({:>5.1} %), mean gain {mean:.1} dB",
        agc.frames_from(SETTLE_S),
        pct(agc.frames_from(SETTLE_S))
    );
    for start in [0, 496] {
        let from = airwaves::demo::DemoConfig {
            gain: Gain::Manual(start),
            ..cfg.clone()
        };
        let rb = run_readsb_like(&from, seconds)?;
        println!(
            "readsb-like from {:>4.1} dB: {:>7} frames ({:>5.1} %), ends at {:.1} dB, {:.2} changes/min",
            db(start),
            rb.frames_from(SETTLE_S),
            pct(rb.frames_from(SETTLE_S)),
            db(*rb.gain_per_s.last().unwrap_or(&0)),
            changes_per_min(&rb)
        );
        let (lp, log) = run_loop(&from, seconds)?;
        let end = *lp.gain_per_s.last().unwrap_or(&0);
        // Settled: from this second on, always within 2 steps of the end.
        let settled = lp
            .gain_per_s
            .iter()
            .rposition(|&g| gain_index(g).abs_diff(gain_index(end)) > 2)
            .map_or(0, |i| i + 1);
        // First within two steps of the best fixed gain.
        let near_best = lp
            .gain_per_s
            .iter()
            .position(|&g| gain_index(g).abs_diff(gain_index(best.0)) <= 2)
            .map_or("never".to_string(), |i| format!("{} s", i + 1));
        println!(
            "airwaves from {:>4.1} dB:  {:>7} frames ({:>5.1} %), within 2 steps of the best fixed gain after {near_best}, ends at {:.1} dB, within 2 steps of it from {settled} s, {:.2} changes/min",
            db(start),
            lp.frames_from(SETTLE_S),
            pct(lp.frames_from(SETTLE_S)),
            db(end),
            changes_per_min(&lp)
        );
        if kind == SkyKind::Mixed && lp.gain_per_s.len() > 300 {
            let before = lp.gain_per_s[99];
            let lowest = lp.gain_per_s[100..300]
                .iter()
                .min()
                .copied()
                .unwrap_or(before);
            let back = lp.gain_per_s[300..].iter().position(|&g| g >= before);
            // Settled spans: before the pass, and after the return.
            let settled = |t: f64| {
                (SETTLE_S as f64..100.0).contains(&t) || back.is_some_and(|b| t > (300 + b) as f64)
            };
            let quiet_s = 40.0 + back.map_or(0.0, |b| (lp.gain_per_s.len() - 300 - b) as f64);
            let n = lp.changes.iter().filter(|(t, _, _)| settled(*t)).count();
            println!(
                "  strong aircraft within 10 NM 100-300 s: gain {:.1} dB before, lowest {:.1} dB, back to {:.1} dB {}; outside the pass {:.2} changes/min",
                db(before),
                db(lowest),
                db(before),
                back.map_or("never".to_string(), |s| format!("{s} s after it left")),
                n as f64 * 60.0 / quiet_s
            );
        }
        for (t, c) in &log {
            println!("    {t:6.1} s  {c}");
        }
    }
    Ok(())
}
