//! Measure the receiver's pulse response from decoded Mode S replies in a
//! `.cu8` recording, so that synthetic scenes can be checked against real
//! captures with the same estimator.
//!
//! `pulse_shape RECORDING.cu8 RATE FRAMES.txt [MIN_SNR_DB]`, where
//! `FRAMES.txt` is the output of `airwaves decode --format avr-ts` on the
//! recording (`@TTTTTTTTTTTTHEX;`, 12 MHz ticks). Replies with a fitted SNR
//! below `MIN_SNR_DB` (default 18) are skipped.
//!
//! # What it measures
//!
//! The recording is converted to complex baseband `y[n] = (b − 127.4)/128`
//! with its mean removed. The noise power `N` (complex, per sample) is the
//! median of `|y|²` divided by `ln 2` (the median of an exponential
//! distribution with mean `N`), robust to the replies in the file.
//!
//! For every decoded reply, with its bits known, the magnitude of the
//! samples around it is fitted by least squares with `A · |r_c(n − t₀)|`,
//! where `r_c` is the reply rendered exactly as `airwaves scene` renders it
//! (rectangular pulses integrated over each sample window,
//! [`Modulator`]) and then filtered by the scene's low-pass with cut-off
//! `c` × f_s/2 (31-tap Kaiser, β for 60 dB), or not filtered (`none`).
//! For each `c` the start `t₀` (samples) is searched on a 0.01-sample grid
//! and `A` solved in closed form; the figure of merit is the normalised
//! residual `Σ (|y| − A|r|)² / (A² Σ |r|²)`. The table lists, per `c`, the
//! residual summed over the strong replies and how many replies prefer it.
//!
//! With `t₀` from the best `c`, every *isolated edge* (a pulse edge with at
//! least 1 µs of silence on its outer side: the leading edge of a pulse
//! after a `1 0` bit pair and of preamble pulses 1 and 3, the trailing edge
//! of preamble pulses 2 and 4 and of a pulse before a `1 0` pair) gives one
//! *leak* value: the power of the sample just outside the edge, i.e. the
//! sample whose window `[k − ½, k + ½)` ends within one sample of the edge
//! without containing it, as a fraction of the pulse's power:
//! `L = (|y[k]|² − N) / A²`. An ideal integrate-and-dump sampler gives
//! `L = 0`; a band-limited receiver spreads part of the pulse into that
//! sample, the more the closer the edge is to the window boundary. `L` is
//! averaged in bins of `δ`, the distance (samples, 0…1) from the edge to
//! the boundary of that outside sample's window.
//!
//! The carrier offset of each reply is the phase of
//! `Σ y[n+1] · conj(y[n])` over consecutive samples that both lie well
//! inside pulses (template ≥ 0.5), times `f_s / 2π`.

use std::f64::consts::{LN_2, TAU};
use std::process::ExitCode;

use airwaves_core::C32;
use airwaves_core::dsp::design::{kaiser_beta, lowpass_f32};
use airwaves_core::modes::modulate::{Burst, Modulator};

/// Candidate responses: cut-offs as a fraction of f_s/2 (`None` = no
/// filter).
const CUTOFFS: [Option<f64>; 14] = [
    Some(0.4),
    Some(0.45),
    Some(0.5),
    Some(0.55),
    Some(0.6),
    Some(0.65),
    Some(0.7),
    Some(0.75),
    Some(0.8),
    Some(0.85),
    Some(0.9),
    Some(0.95),
    Some(1.0),
    None,
];
const TAPS: usize = 31;
const DELTA_BINS: usize = 5;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !(3..=4).contains(&args.len()) {
        eprintln!("usage: pulse_shape RECORDING.cu8 RATE FRAMES.txt [MIN_SNR_DB]");
        return ExitCode::FAILURE;
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pulse_shape: {e}");
            ExitCode::FAILURE
        }
    }
}

struct Fit {
    t0: f64,
    amp: f64,
    resid: f64,
}

fn run(args: &[String]) -> Result<(), String> {
    let bytes = std::fs::read(&args[0]).map_err(|e| format!("{}: {e}", args[0]))?;
    let rate: f64 = args[1].parse().map_err(|_| "bad rate".to_string())?;
    let frames_txt = std::fs::read_to_string(&args[2]).map_err(|e| format!("{}: {e}", args[2]))?;
    let min_snr_db: f64 = match args.get(3) {
        Some(s) => s.parse().map_err(|_| "bad MIN_SNR_DB".to_string())?,
        None => 18.0,
    };
    let m = Modulator::new(rate).ok_or("bad rate")?;

    let mut y: Vec<C32> = bytes
        .chunks_exact(2)
        .map(|p| {
            C32::new(
                (f32::from(p[0]) - 127.4) / 128.0,
                (f32::from(p[1]) - 127.4) / 128.0,
            )
        })
        .collect();
    let mean = y.iter().fold(C32::new(0.0, 0.0), |a, &b| a + b) / y.len() as f32;
    for v in &mut y {
        *v -= mean;
    }
    let mut p: Vec<f64> = y.iter().map(|v| f64::from(v.norm_sqr())).collect();
    p.sort_by(f64::total_cmp);
    let noise = p[p.len() / 2] / LN_2;

    let filters: Vec<Vec<f32>> = CUTOFFS
        .iter()
        .map(|c| match c {
            Some(c) => {
                let mut t = vec![0f32; TAPS];
                lowpass_f32(&mut t, 0.5 * c, kaiser_beta(60.0), 1.0);
                t
            }
            None => vec![1.0],
        })
        .collect();

    let mut sum_resid = vec![0f64; CUTOFFS.len()];
    let mut wins = vec![0usize; CUTOFFS.len()];
    let mut leak_lead = [(0f64, 0usize); DELTA_BINS];
    let mut leak_trail = [(0f64, 0usize); DELTA_BINS];
    let mut used = 0usize;
    let mut carriers: Vec<(String, f64)> = Vec::new();
    let mut trends: Vec<f64> = Vec::new();
    println!(
        "# {}: {} samples at {rate} Hz, noise power {:.3e} (full scale 1)",
        args[0],
        y.len(),
        noise
    );
    println!(
        "# per reply: t12 hex snr_db best_cutoff t0 carrier_hz resid(best) resid(0.8) resid(1.0) resid(none) trend_db"
    );
    for line in frames_txt.lines() {
        let Some((t12, frame)) = parse_avr_ts(line) else {
            continue;
        };
        let t_est = t12 as f64 * rate / 12e6;
        let fits: Vec<Fit> = filters
            .iter()
            .map(|h| fit(&m, &frame, h, &y, t_est))
            .collect();
        let (best, bf) = fits
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.resid.total_cmp(&b.1.resid))
            .ok_or("no filters")?;
        let snr_db = 10.0 * (bf.amp * bf.amp / noise).log10();
        if snr_db.is_nan() || snr_db < min_snr_db || !bf.resid.is_finite() {
            continue;
        }
        used += 1;
        for (k, f) in fits.iter().enumerate() {
            sum_resid[k] += f.resid;
        }
        wins[best] += 1;
        let (lo, tmpl) = template(&m, &frame, &filters[best], bf.t0, y.len());
        // Carrier from consecutive strong samples.
        let mut z = C32::new(0.0, 0.0);
        for k in 0..tmpl.len().saturating_sub(1) {
            if tmpl[k] >= 0.5 && tmpl[k + 1] >= 0.5 {
                z += y[lo + k + 1] * y[lo + k].conj();
            }
        }
        let carrier = f64::from(z.im.atan2(z.re)) * rate / TAU;
        // Amplitude trend: |y| / (A r) against time over the reply, for
        // samples well inside pulses; dB from first to last bit.
        let dur = m.mode_s_len(frame.len());
        let (mut sw, mut sx, mut sq, mut sxx, mut sxq) = (0f64, 0f64, 0f64, 0f64, 0f64);
        for (k, &r) in tmpl.iter().enumerate() {
            if r >= 0.7 {
                let x = ((lo + k) as f64 - bf.t0) / dur;
                let q = f64::from(y[lo + k].norm_sqr().sqrt()) / (bf.amp * f64::from(r));
                sw += 1.0;
                sx += x;
                sq += q;
                sxx += x * x;
                sxq += x * q;
            }
        }
        let slope = (sw * sxq - sx * sq) / (sw * sxx - sx * sx);
        let icept = (sq - slope * sx) / sw;
        let trend_db = 20.0 * ((icept + slope) / icept).log10();
        trends.push(trend_db);
        let icao = frame_hex(&frame);
        carriers.push((icao.clone(), carrier));
        edges(&m, &frame, bf, &y, noise, &mut leak_lead, &mut leak_trail);
        println!(
            "{t12} {icao} {snr_db:.1} {} {:.3} {carrier:.0} {:.4} {:.4} {:.4} {:.4} {:.2}",
            label(CUTOFFS[best]),
            bf.t0,
            bf.resid,
            fits[8].resid,
            fits[12].resid,
            fits[13].resid,
            trends.last().copied().unwrap_or(0.0)
        );
    }
    println!("# {used} replies at SNR >= {min_snr_db} dB");
    println!("# cutoff  sum_resid  preferred_by");
    for (k, c) in CUTOFFS.iter().enumerate() {
        println!("{:>8} {:>10.4} {:>5}", label(*c), sum_resid[k], wins[k]);
    }
    println!("# leak L = (|y_outside|^2 - N) / A^2 by delta (edge to window boundary, samples)");
    println!("# delta      leading(n)        trailing(n)");
    for b in 0..DELTA_BINS {
        let f = |(s, n): (f64, usize)| {
            if n > 0 {
                format!("{:>7.4} ({n:>3})", s / n as f64)
            } else {
                "      - (  0)".to_string()
            }
        };
        println!(
            "{:.1}-{:.1}  {}   {}",
            b as f64 / DELTA_BINS as f64,
            (b + 1) as f64 / DELTA_BINS as f64,
            f(leak_lead[b]),
            f(leak_trail[b])
        );
    }
    Ok(())
}

fn label(c: Option<f64>) -> String {
    c.map_or("none".to_string(), |c| format!("{c:.2}"))
}

fn frame_hex(f: &[u8]) -> String {
    f.iter().map(|b| format!("{b:02X}")).collect()
}

fn parse_avr_ts(line: &str) -> Option<(u64, Vec<u8>)> {
    let s = line.trim().strip_prefix('@')?.strip_suffix(';')?;
    if s.len() != 12 + 14 && s.len() != 12 + 28 {
        return None;
    }
    let t = u64::from_str_radix(&s[..12], 16).ok()?;
    let hex = &s[12..];
    let bytes = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    Some((t, bytes))
}

/// `|r(n)|` for `n` in `lo..lo + out.len()`, `lo` the first value returned
/// (zero away from the reply): the reply rendered at `t0` with amplitude 1,
/// filtered by `h` (delay compensated).
fn template(m: &Modulator, frame: &[u8], h: &[f32], t0: f64, len: usize) -> (usize, Vec<f32>) {
    let d = h.len() / 2;
    let dur = m.mode_s_len(frame.len());
    let lo = (t0.floor() as i64 - 4).max(0) as usize;
    let hi = ((t0 + dur).ceil() as usize + 5).min(len);
    let mut out = vec![0f32; hi.saturating_sub(lo)];
    if hi <= lo {
        return (lo, out);
    }
    // x[i] is absolute sample lo − d + i.
    let mut x = vec![C32::new(0.0, 0.0); hi - lo + 2 * d];
    let _ = m.add_mode_s(frame, &Burst::new(t0 - (lo as f64 - d as f64), 1.0), &mut x);
    for (j, o) in out.iter_mut().enumerate() {
        let mut acc = C32::new(0.0, 0.0);
        for (k, &c) in h.iter().enumerate() {
            acc += x[j + k] * c;
        }
        *o = acc.norm_sqr().sqrt();
    }
    (lo, out)
}

/// Least-squares fit of `A |r(n − t0)|` to `|y|` over the reply, `t0`
/// searched around `t_est`.
fn fit(m: &Modulator, frame: &[u8], h: &[f32], y: &[C32], t_est: f64) -> Fit {
    let mut best = Fit {
        t0: t_est,
        amp: 0.0,
        resid: f64::INFINITY,
    };
    let eval = |t0: f64, best: &mut Fit| {
        let (lo, r) = template(m, frame, h, t0, y.len());
        let (mut sy, mut rr) = (0f64, 0f64);
        for (k, &rk) in r.iter().enumerate() {
            sy += f64::from(y[lo + k].norm_sqr().sqrt()) * f64::from(rk);
            rr += f64::from(rk) * f64::from(rk);
        }
        if rr <= 0.0 {
            return;
        }
        let a = sy / rr;
        let mut e = 0f64;
        for (k, &rk) in r.iter().enumerate() {
            let d = f64::from(y[lo + k].norm_sqr().sqrt()) - a * f64::from(rk);
            e += d * d;
        }
        let e = e / (a * a * rr);
        if e < best.resid {
            *best = Fit {
                t0,
                amp: a,
                resid: e,
            };
        }
    };
    // Coarse: ±4 samples in 0.1; fine: ±0.1 in 0.01.
    for k in -40..=40 {
        eval(t_est + f64::from(k) * 0.1, &mut best);
    }
    let c = best.t0;
    for k in -10..=10 {
        eval(c + f64::from(k) * 0.01, &mut best);
    }
    best
}

/// Half-bit slot occupancy of a Mode S reply (0.5 µs slots from the first
/// preamble pulse): 16 preamble slots then two per bit.
fn slots(frame: &[u8]) -> Vec<bool> {
    let mut s = vec![false; 16];
    for p in [0, 2, 7, 9] {
        s[p] = true;
    }
    for k in 0..frame.len() * 8 {
        let one = frame[k / 8] & (0x80 >> (k % 8)) != 0;
        s.push(one);
        s.push(!one);
    }
    s
}

#[allow(clippy::too_many_arguments)]
fn edges(
    m: &Modulator,
    frame: &[u8],
    f: &Fit,
    y: &[C32],
    noise: f64,
    lead: &mut [(f64, usize); DELTA_BINS],
    trail: &mut [(f64, usize); DELTA_BINS],
) {
    let s = slots(frame);
    let half = 0.5 * m.samples_per_us();
    let a2 = f.amp * f.amp;
    let occupied = |i: isize| i >= 0 && (i as usize) < s.len() && s[i as usize];
    for i in 0..s.len() as isize {
        if !occupied(i) {
            continue;
        }
        // Leading edge, silence on slots i−1 and i−2.
        if !occupied(i - 1) && !occupied(i - 2) {
            let te = f.t0 + i as f64 * half;
            // Outside sample k: window [k − ½, k + ½) with k + ½ <= te.
            let k = (te - 0.5).floor();
            let delta = te - (k + 0.5);
            if k >= 0.0 && (k as usize) < y.len() {
                let l = (f64::from(y[k as usize].norm_sqr()) - noise) / a2;
                let b = ((delta * DELTA_BINS as f64) as usize).min(DELTA_BINS - 1);
                lead[b].0 += l;
                lead[b].1 += 1;
            }
        }
        // Trailing edge, silence on slots i+1 and i+2.
        if !occupied(i + 1) && !occupied(i + 2) {
            let te = f.t0 + (i + 1) as f64 * half;
            // Outside sample k: window [k − ½, k + ½) with k − ½ >= te.
            let k = (te + 0.5).ceil();
            let delta = (k - 0.5) - te;
            if (k as usize) < y.len() {
                let l = (f64::from(y[k as usize].norm_sqr()) - noise) / a2;
                let b = ((delta * DELTA_BINS as f64) as usize).min(DELTA_BINS - 1);
                trail[b].0 += l;
                trail[b].1 += 1;
            }
        }
    }
}
