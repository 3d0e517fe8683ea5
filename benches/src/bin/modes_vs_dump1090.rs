//! Mode S decoding benchmark on a synthetic scene: recall per SNR band and
//! false frames of Debian's `dump1090-mutability` and of `airwaves decode`,
//! plus the instructions per input sample of both (callgrind).
//!
//! ```text
//! cargo build --release -p airwaves -p airwaves-benches
//! target/release/modes_vs_dump1090 [--seconds 10] [--rate 2400000] [--seed 1]
//!     [--fps 1000] [--airwaves PATH] [--dump1090 PATH] [--workdir DIR]
//!     [--callgrind-seconds 1] [--no-callgrind] [--check]
//! ```
//!
//! Steps:
//!
//! 1. `airwaves scene --seconds S --rate R --seed N --fps F OUT.cu8 TRUTH.txt`
//!    writes the scene and its truth list (one line per reply; see
//!    `host/src/scene.rs`).
//! 2. `dump1090-mutability --ifile OUT.cu8 --iformat UC8 --mlat --fix --raw`
//!    decodes it (`apt-get install -y dump1090-mutability`); its `@`-lines
//!    (`@` + 12 hex digits of 12 MHz timestamp + frame hex + `;`) are
//!    collected. That build only reads 2.4 MS/s, so at other rates its
//!    column is `n/a`.
//! 3. `airwaves decode --rate R OUT.cu8` is run the same way; it must print
//!    the same `@TTTTTTTTTTTTHEX;` (or `*HEX;`) lines on stdout. Until it
//!    exists its column reads `n/a`.
//! 4. Decoded frames are matched to the truth by exact hex and time (see
//!    [`match_frames`]): a decoder's (repaired) frame counts as correct only
//!    if it equals a transmitted frame, at that frame's time.
//! 5. `valgrind --tool=callgrind` counts the instructions of
//!    dump1090-mutability and of `airwaves decode` (AVR and JSON output;
//!    JSON parses every field of every frame) on 1 s and 2 s scenes; the
//!    difference over the extra samples is the marginal cost per input
//!    sample (start-up cancels out).
//! 6. With `--check`, exit non-zero unless airwaves meets the targets of
//!    [`verdict`] (the integration test `benches/tests/modes_vs_dump1090.rs`
//!    runs this on a short scene).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Width of an SNR band, dB.
const BAND_DB: f64 = 4.0;
/// Number of SNR bands: 0–4, 4–8, …, 24–28 dB.
const BANDS: usize = 7;
/// Largest time difference (12 MHz ticks, after removing the decoder's
/// constant offset) at which a decoded frame still matches a truth frame:
/// 10 µs, far below the time between two identical frames of an aircraft.
const TOLERANCE_TICKS: i64 = 120;

/// One transmitted Mode S frame of the truth list.
#[derive(Debug, Clone, PartialEq)]
struct TruthFrame {
    /// Start time in 12 MHz ticks.
    t12: i64,
    /// Upper-case hex.
    hex: String,
    /// SNR, dB.
    snr_db: f64,
    /// Overlapped by another reply (flag `ovl_s` or `ovl_ac`).
    overlapped: bool,
}

/// One frame reported by a decoder.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decoded {
    /// 12 MHz timestamp, if the output had one.
    t12: Option<i64>,
    /// Upper-case hex.
    hex: String,
}

/// Mode S lines of a truth file (comments and Mode A/C replies skipped).
fn parse_truth(text: &str) -> Result<Vec<TruthFrame>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let c: Vec<&str> = line.split_whitespace().collect();
        if c.len() < 7 {
            return Err(format!(
                "truth line {}: {} columns, expected 7",
                i + 1,
                c.len()
            ));
        }
        if c[6].split(',').any(|f| f == "modeac") {
            continue;
        }
        let bad = |what: &str| format!("truth line {}: bad {what}", i + 1);
        out.push(TruthFrame {
            t12: c[1].parse().map_err(|_| bad("t12"))?,
            hex: c[2].to_ascii_uppercase(),
            snr_db: c[3].parse().map_err(|_| bad("snr"))?,
            overlapped: c[6].split(',').any(|f| f == "ovl_s" || f == "ovl_ac"),
        });
    }
    Ok(out)
}

/// Frames in a decoder's output: `@` + 12 hex digits (timestamp) + hex +
/// `;` (dump1090 `--mlat`) or `*` + hex + `;` (AVR); other lines and frames
/// that are not 14 or 28 hex digits are ignored.
fn parse_decoded(text: &str) -> Vec<Decoded> {
    let is_hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let Some(body) = line.strip_suffix(';') else {
            continue;
        };
        let (t12, hex) = if let Some(rest) = body.strip_prefix('@') {
            if rest.len() < 12 || !is_hex(&rest[..12]) {
                continue;
            }
            (i64::from_str_radix(&rest[..12], 16).ok(), &rest[12..])
        } else if let Some(rest) = body.strip_prefix('*') {
            (None, rest)
        } else {
            continue;
        };
        if (hex.len() == 14 || hex.len() == 28) && is_hex(hex) {
            out.push(Decoded {
                t12,
                hex: hex.to_ascii_uppercase(),
            });
        }
    }
    out
}

/// Result of matching a decoder's frames to the truth.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Matching {
    /// Per truth frame: decoded at its time.
    hit: Vec<bool>,
    /// Decoded frames equal to no transmitted frame (or equal to one but
    /// far from its time).
    false_frames: usize,
    /// Decoded frames that repeat an already matched truth frame.
    duplicates: usize,
    /// The decoder's time offset removed before matching, ticks (median of
    /// decoder − truth over frames whose hex is unique in the truth).
    offset: i64,
}

/// Match decoded frames to truth frames: same hex and, when the decoder
/// gives a timestamp, the truth frame closest to it after removing the
/// decoder's typical offset, if within `|offset| +` [`TOLERANCE_TICKS`] of
/// it. dump1090-mutability's timestamps run 136 µs (one buffer overlap)
/// ahead on file input, but by 0 or 2 overlaps for a few frames at buffer
/// edges, hence the window of twice the offset. It stays far below the time
/// between two identical frames of one aircraft. Without timestamps, the
/// earliest unmatched frame with that hex is taken.
fn match_frames(truth: &[TruthFrame], decoded: &[Decoded]) -> Matching {
    let mut by_hex: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, t) in truth.iter().enumerate() {
        by_hex.entry(t.hex.as_str()).or_default().push(i);
    }
    let mut diffs: Vec<i64> = decoded
        .iter()
        .filter_map(|d| {
            let t = d.t12?;
            match by_hex.get(d.hex.as_str()) {
                Some(v) if v.len() == 1 => Some(t - truth[v[0]].t12),
                _ => None,
            }
        })
        .collect();
    diffs.sort_unstable();
    let offset = diffs.get(diffs.len() / 2).copied().unwrap_or(0);

    let mut hit = vec![false; truth.len()];
    let (mut false_frames, mut duplicates) = (0, 0);
    for d in decoded {
        let Some(cands) = by_hex.get(d.hex.as_str()) else {
            false_frames += 1;
            continue;
        };
        let chosen = match d.t12 {
            Some(t) => {
                let dist = |i: usize| (t - truth[i].t12 - offset).abs();
                cands
                    .iter()
                    .copied()
                    .min_by_key(|&i| dist(i))
                    .filter(|&i| dist(i) <= offset.abs() + TOLERANCE_TICKS)
            }
            None => cands.iter().copied().find(|&i| !hit[i]).or(Some(cands[0])),
        };
        match chosen {
            Some(i) if !hit[i] => hit[i] = true,
            Some(_) => duplicates += 1,
            None => false_frames += 1,
        }
    }
    Matching {
        hit,
        false_frames,
        duplicates,
        offset,
    }
}

/// SNR band of `snr_db` (0–4 dB is band 0; the last band takes the rest).
fn band(snr_db: f64) -> usize {
    ((snr_db.max(0.0) / BAND_DB) as usize).min(BANDS - 1)
}

/// `(frames, hits)` per SNR band.
type Bands = [(usize, usize); BANDS];

/// `(frames, hits)` per band; only clean (not overlapped) frames if
/// `clean_only`.
fn recall_by_band(truth: &[TruthFrame], hit: &[bool], clean_only: bool) -> Bands {
    let mut r = [(0, 0); BANDS];
    for (t, &h) in truth.iter().zip(hit) {
        if clean_only && t.overlapped {
            continue;
        }
        let b = &mut r[band(t.snr_db)];
        b.0 += 1;
        b.1 += usize::from(h);
    }
    r
}

/// `(df, frames, hits)` per downlink format, ascending.
fn recall_by_df(truth: &[TruthFrame], hit: &[bool]) -> Vec<(u8, usize, usize)> {
    let mut m: std::collections::BTreeMap<u8, (usize, usize)> = Default::default();
    for (t, &h) in truth.iter().zip(hit) {
        let df = u8::from_str_radix(t.hex.get(..2).unwrap_or("00"), 16).unwrap_or(0) >> 3;
        let e = m.entry(df).or_default();
        e.0 += 1;
        e.1 += usize::from(h);
    }
    m.into_iter().map(|(df, (n, h))| (df, n, h)).collect()
}

/// `hits / frames` as a percentage with one decimal, or `-` for no frames.
fn percent((frames, hits): (usize, usize)) -> String {
    if frames == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * hits as f64 / frames as f64)
    }
}

/// The recall table: one row per band plus a total row, for each decoder
/// (`None` = not run: `n/a`).
fn table(truth: &[TruthFrame], decoders: &[(&str, Option<&Matching>)]) -> String {
    let mut s = String::new();
    let mut head = String::from("| SNR dB | frames | clean |");
    let mut rule = String::from("|---|---:|---:|");
    for (name, _) in decoders {
        let _ = write!(head, " {name} all | {name} clean |");
        rule.push_str("---:|---:|");
    }
    let _ = writeln!(s, "{head}\n{rule}");
    let per: Vec<Option<(Bands, Bands)>> = decoders
        .iter()
        .map(|(_, m)| {
            m.map(|m| {
                (
                    recall_by_band(truth, &m.hit, false),
                    recall_by_band(truth, &m.hit, true),
                )
            })
        })
        .collect();
    let counts = recall_by_band(truth, &vec![false; truth.len()], false);
    let clean = recall_by_band(truth, &vec![false; truth.len()], true);
    let sum = |r: &[(usize, usize)]| r.iter().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    for b in 0..=BANDS {
        let (label, n, c) = if b < BANDS {
            let lo = b as f64 * BAND_DB;
            (
                format!("{lo:.0}–{:.0}", lo + BAND_DB),
                counts[b].0,
                clean[b].0,
            )
        } else {
            ("all".to_string(), sum(&counts).0, sum(&clean).0)
        };
        let _ = write!(s, "| {label} | {n} | {c} |");
        for p in &per {
            match p {
                Some((all, cl)) if b < BANDS => {
                    let _ = write!(s, " {} | {} |", percent(all[b]), percent(cl[b]));
                }
                Some((all, cl)) => {
                    let _ = write!(s, " {} | {} |", percent(sum(all)), percent(sum(cl)));
                }
                None => s.push_str(" n/a | n/a |"),
            }
        }
        s.push('\n');
    }
    for (name, m) in decoders {
        match m {
            Some(m) => {
                let _ = writeln!(
                    s,
                    "{name}: false frames {}, duplicates {}, time offset {} ticks",
                    m.false_frames, m.duplicates, m.offset
                );
                let by_df: Vec<String> = recall_by_df(truth, &m.hit)
                    .into_iter()
                    .map(|(df, n, h)| format!("DF{df} {}", percent((n, h))))
                    .collect();
                let _ = writeln!(s, "{name}: recall by DF (all SNR): {}", by_df.join(", "));
            }
            None => {
                let _ = writeln!(s, "{name}: n/a (not run)");
            }
        }
    }
    s
}

/// Instructions reported by callgrind on stderr (`Collected : N`).
fn callgrind_total(stderr: &str) -> Option<u64> {
    stderr
        .lines()
        .find_map(|l| l.split_once("Collected :").map(|(_, n)| n.trim()))
        .and_then(|n| n.parse().ok())
}

/// Command-line options.
#[derive(Debug, Clone)]
struct Options {
    seconds: f64,
    rate: f64,
    seed: u64,
    fps: f64,
    airwaves: PathBuf,
    dump1090: String,
    workdir: PathBuf,
    callgrind_seconds: f64,
    callgrind: bool,
    /// Fail unless airwaves meets the issue's targets (see [`verdict`]).
    check: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self, String> {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
        let mut o = Options {
            seconds: 10.0,
            rate: 2.4e6,
            seed: 1,
            fps: 1000.0,
            airwaves: target.join("release/airwaves"),
            dump1090: "dump1090-mutability".into(),
            workdir: std::env::temp_dir().join("airwaves-modes-bench"),
            callgrind_seconds: 1.0,
            callgrind: true,
            check: false,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "--no-callgrind" {
                o.callgrind = false;
                continue;
            }
            if a == "--check" {
                o.check = true;
                continue;
            }
            let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
            let num = |v: &str| {
                v.parse::<f64>()
                    .map_err(|_| format!("{a}: not a number: {v}"))
            };
            match a.as_str() {
                "--seconds" => o.seconds = num(v)?,
                "--rate" => o.rate = num(v)?,
                "--seed" => o.seed = v.parse().map_err(|_| format!("--seed: {v}"))?,
                "--fps" => o.fps = num(v)?,
                "--airwaves" => o.airwaves = v.into(),
                "--dump1090" => o.dump1090 = v.clone(),
                "--workdir" => o.workdir = v.into(),
                "--callgrind-seconds" => o.callgrind_seconds = num(v)?,
                _ => return Err(format!("unknown option {a}")),
            }
        }
        Ok(o)
    }
}

/// Run `airwaves scene`; returns the truth text.
fn make_scene(o: &Options, seconds: f64, cu8: &Path, truth: &Path) -> Result<String, String> {
    let out = Command::new(&o.airwaves)
        .arg("scene")
        .args(["--seconds", &seconds.to_string()])
        .args(["--rate", &o.rate.to_string()])
        .args(["--seed", &o.seed.to_string()])
        .args(["--fps", &o.fps.to_string()])
        .arg(cu8)
        .arg(truth)
        .output()
        .map_err(|e| {
            format!(
                "cannot run {}: {e} (cargo build --release -p airwaves)",
                o.airwaves.display()
            )
        })?;
    if !out.status.success() {
        return Err(format!(
            "{} scene failed: {}",
            o.airwaves.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(truth).map_err(|e| format!("{}: {e}", truth.display()))
}

/// Run a decoder and parse its stdout; `None` if it cannot run or fails.
fn run_decoder(cmd: &mut Command, name: &str) -> Option<Vec<Decoded>> {
    match cmd.output() {
        Ok(out) if out.status.success() => {
            Some(parse_decoded(&String::from_utf8_lossy(&out.stdout)))
        }
        Ok(out) => {
            eprintln!(
                "{name}: failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            );
            None
        }
        Err(e) => {
            eprintln!("{name}: cannot run: {e}");
            None
        }
    }
}

fn dump1090_command(o: &Options, cu8: &Path) -> Command {
    let mut c = Command::new(&o.dump1090);
    c.arg("--ifile")
        .arg(cu8)
        .args(["--iformat", "UC8", "--mlat", "--fix", "--raw"]);
    c
}

/// `airwaves decode` of `cu8` at the scene's rate with output `format`.
fn airwaves_command(o: &Options, cu8: &Path, format: &str) -> Command {
    let mut c = Command::new(&o.airwaves);
    c.arg("decode")
        .args(["--rate", &o.rate.to_string()])
        .args(["--format", format])
        .arg(cu8);
    c
}

/// The decoders whose instructions are counted: a name and the command
/// that decodes a scene file (dump1090-mutability only at 2.4 MS/s, the
/// one rate it reads).
fn decoders(o: &Options, cu8: &Path) -> Vec<(&'static str, Command)> {
    let mut list = Vec::new();
    if (o.rate - 2.4e6).abs() < 1.0 {
        list.push((
            "dump1090-mutability --mlat --fix --raw",
            dump1090_command(o, cu8),
        ));
    }
    list.push((
        "airwaves decode --format avr-ts",
        airwaves_command(o, cu8, "avr-ts"),
    ));
    list.push((
        "airwaves decode --format json",
        airwaves_command(o, cu8, "json"),
    ));
    list
}

/// Instructions (callgrind) of each of [`decoders`] on a scene of
/// `seconds`: `(name, instructions, samples)`.
fn count_instructions(o: &Options, seconds: f64) -> Result<Vec<(&'static str, u64, u64)>, String> {
    let cu8 = o.workdir.join(format!("ips_{seconds}.cu8"));
    let truth = o.workdir.join(format!("ips_{seconds}.txt"));
    make_scene(o, seconds, &cu8, &truth)?;
    let samples = std::fs::metadata(&cu8).map_err(|e| e.to_string())?.len() / 2;
    let mut counts = Vec::new();
    for (name, cmd) in decoders(o, &cu8) {
        let out = Command::new("valgrind")
            .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
            .arg(cmd.get_program())
            .args(cmd.get_args())
            .stdout(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("valgrind: {e} (apt-get install valgrind)"))?;
        let n = callgrind_total(&String::from_utf8_lossy(&out.stderr))
            .ok_or_else(|| format!("valgrind printed no instruction count for {name}"))?;
        counts.push((name, n, samples));
    }
    Ok(counts)
}

/// Total recall must be at least this multiple of dump1090-mutability's.
const MIN_TOTAL_RATIO: f64 = 1.1;

/// The issue's targets for airwaves against dump1090-mutability: in every
/// SNR band at least as many frames, and strictly more wherever
/// dump1090-mutability decodes any; at least [`MIN_TOTAL_RATIO`] times its
/// total; no more false frames. Returns the list of misses.
fn verdict(truth: &[TruthFrame], dump: &Matching, ours: &Matching) -> Vec<String> {
    let mut misses = Vec::new();
    let d = recall_by_band(truth, &dump.hit, false);
    let a = recall_by_band(truth, &ours.hit, false);
    for b in 0..BANDS {
        let (dh, ah) = (d[b].1, a[b].1);
        if ah < dh || (dh > 0 && ah == dh) {
            misses.push(format!(
                "band {}–{} dB: airwaves {ah} frames, dump1090-mutability {dh}",
                b as f64 * BAND_DB,
                (b + 1) as f64 * BAND_DB
            ));
        }
    }
    let total = |m: &Matching| m.hit.iter().filter(|&&h| h).count();
    let (dt, at) = (total(dump), total(ours));
    if (at as f64) < MIN_TOTAL_RATIO * dt as f64 {
        misses.push(format!(
            "total: airwaves {at} frames, below {MIN_TOTAL_RATIO} × dump1090-mutability's {dt}"
        ));
    }
    if ours.false_frames > dump.false_frames {
        misses.push(format!(
            "false frames: airwaves {}, dump1090-mutability {}",
            ours.false_frames, dump.false_frames
        ));
    }
    misses
}

fn run(o: &Options) -> Result<(), String> {
    std::fs::create_dir_all(&o.workdir).map_err(|e| format!("{}: {e}", o.workdir.display()))?;
    let cu8 = o.workdir.join("scene.cu8");
    let truth_path = o.workdir.join("scene.txt");
    let truth = parse_truth(&make_scene(o, o.seconds, &cu8, &truth_path)?)?;
    println!(
        "scene: {} s at {} S/s, seed {}, {} Mode S frames/s → {} Mode S frames ({} overlapped), files in {}",
        o.seconds,
        o.rate,
        o.seed,
        o.fps,
        truth.len(),
        truth.iter().filter(|t| t.overlapped).count(),
        o.workdir.display()
    );

    let dump = if (o.rate - 2.4e6).abs() < 1.0 {
        run_decoder(&mut dump1090_command(o, &cu8), "dump1090-mutability")
    } else {
        eprintln!("dump1090-mutability: reads 2.4 MS/s only; skipped");
        None
    };
    let airwaves = run_decoder(&mut airwaves_command(o, &cu8, "avr-ts"), "airwaves decode");

    let m_dump = dump.as_ref().map(|d| match_frames(&truth, d));
    let m_aw = airwaves.as_ref().map(|d| match_frames(&truth, d));
    println!(
        "\nRecall (share of transmitted Mode S frames decoded exactly, at their time), by SNR band; `clean` = not overlapped by another reply:\n"
    );
    print!(
        "{}",
        table(
            &truth,
            &[
                ("dump1090-mutability", m_dump.as_ref()),
                ("airwaves", m_aw.as_ref())
            ]
        )
    );

    if o.check {
        let (Some(d), Some(a)) = (&m_dump, &m_aw) else {
            return Err("--check needs both decoders to run".into());
        };
        let misses = verdict(&truth, d, a);
        if !misses.is_empty() {
            return Err(format!("targets missed:\n  {}", misses.join("\n  ")));
        }
        let total = |m: &Matching| m.hit.iter().filter(|&&h| h).count();
        println!(
            "\ncheck passed: more frames than dump1090-mutability in every band where it decodes any, {:.2}× its total, {} false frames against its {}",
            total(a) as f64 / total(d).max(1) as f64,
            a.false_frames,
            d.false_frames
        );
    }

    if o.callgrind {
        let short = count_instructions(o, o.callgrind_seconds)?;
        let long = count_instructions(o, 2.0 * o.callgrind_seconds)?;
        println!(
            "\nInstructions (callgrind, x86-64) on scenes of {} s and {} s; marginal = difference / extra samples, so start-up cancels out:\n",
            o.callgrind_seconds,
            2.0 * o.callgrind_seconds
        );
        println!(
            "| decoder | instructions, short | instructions, long | marginal per input sample |"
        );
        println!("|---|---:|---:|---:|");
        for ((name, a, na), (_, b, nb)) in short.iter().zip(&long) {
            println!(
                "| {name} | {a} | {b} | {:.1} |",
                (*b as f64 - *a as f64) / (*nb as f64 - *na as f64)
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = Options::parse(&args).and_then(|o| run(&o));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("modes_vs_dump1090: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRUTH: &str = "\
# header
# sample t12 hex snr_db amplitude carrier_hz flags
100.0000 500 5D484FDEA248F5 3.99 0.1 0.0 -
200.0000 1000 2000171806A983 4.00 0.1 0.0 ovl_s
210.0000 1050 A/C:7500 10.00 0.1 0.0 modeac,ovl_s
300.0000 1500 5D484FDEA248F5 24.90 0.1 0.0 ovl_ac
5000.0000 25000 8d4840d6202cc371c32ce0576098 30.00 0.1 0.0 -
";

    fn truth() -> Vec<TruthFrame> {
        parse_truth(TRUTH).unwrap()
    }

    #[test]
    fn test_parse_truth() {
        let t = truth();
        assert_eq!(t.len(), 4);
        assert_eq!(
            t[0],
            TruthFrame {
                t12: 500,
                hex: "5D484FDEA248F5".into(),
                snr_db: 3.99,
                overlapped: false
            }
        );
        assert!(t[1].overlapped && t[2].overlapped && !t[3].overlapped);
        assert_eq!(t[3].hex, "8D4840D6202CC371C32CE0576098");
        assert!(parse_truth("1 2 3\n").is_err());
    }

    #[test]
    fn test_parse_decoded() {
        let d = parse_decoded(
            "@0000000001F45d484fdea248f5;\n*8D4840D6202CC371C32CE0576098;\nCRC: 000000\n@00000000FF22;\n*ABCD;\n@zz00000001F45D484FDEA248F5;\n",
        );
        assert_eq!(
            d,
            [
                Decoded {
                    t12: Some(500),
                    hex: "5D484FDEA248F5".into()
                },
                Decoded {
                    t12: None,
                    hex: "8D4840D6202CC371C32CE0576098".into()
                },
            ]
        );
    }

    #[test]
    fn test_match_with_offset() {
        let t = truth();
        // Decoder clock 1633 ticks ahead; the two identical DF11s are told
        // apart by time; one far-off copy, one unknown frame, one repeat.
        let dec = |t12: i64, hex: &str| Decoded {
            t12: Some(t12),
            hex: hex.into(),
        };
        let d = [
            dec(1000 + 1633, "2000171806A983"),
            dec(1500 + 1633 + 3, "5D484FDEA248F5"),
            dec(25000 + 1633, "8D4840D6202CC371C32CE0576098"),
            dec(25000 + 1634, "8D4840D6202CC371C32CE0576098"),
            dec(9000, "5D484FDEA248F5"),
            // No offset (dump1090's first buffer): still the DF11 at 500.
            dec(510, "5D484FDEA248F5"),
            // Twice the offset (a buffer edge): a repeat of the DF11 at 1500.
            dec(1500 + 2 * 1633 - 5, "5D484FDEA248F5"),
            dec(1000, "5D000000000000"),
        ];
        let m = match_frames(&t, &d);
        assert_eq!(m.offset, 1633);
        assert_eq!(m.hit, [true, true, true, true]);
        assert_eq!((m.false_frames, m.duplicates), (2, 2));
    }

    #[test]
    fn test_match_without_timestamps() {
        let t = truth();
        let dec = |hex: &str| Decoded {
            t12: None,
            hex: hex.into(),
        };
        let d = [
            dec("5D484FDEA248F5"),
            dec("5D484FDEA248F5"),
            dec("5D484FDEA248F5"),
        ];
        let m = match_frames(&t, &d);
        assert_eq!(m.hit, [true, false, true, false]);
        assert_eq!((m.false_frames, m.duplicates, m.offset), (0, 1, 0));
    }

    #[test]
    fn test_verdict() {
        let truth: Vec<TruthFrame> = [2.0, 14.0, 15.0, 22.0, 23.0]
            .iter()
            .map(|&snr_db| TruthFrame {
                t12: 0,
                hex: String::new(),
                snr_db,
                overlapped: false,
            })
            .collect();
        let m = |hit: [bool; 5], false_frames| Matching {
            hit: hit.to_vec(),
            false_frames,
            duplicates: 0,
            offset: 0,
        };
        let dump = m([false, true, false, true, false], 3);
        assert!(verdict(&truth, &dump, &m([false, true, true, true, true], 3)).is_empty());
        // Equal in the two bands where dump1090 decodes: two misses; total
        // 1.0×: a third.
        let tie = m([false, true, false, true, false], 0);
        assert_eq!(verdict(&truth, &dump, &tie).len(), 3);
        // More false frames: a miss.
        assert_eq!(verdict(&truth, &dump, &m([true; 5], 4)).len(), 1);
    }

    #[test]
    fn test_bands_and_table() {
        assert_eq!(band(0.0), 0);
        assert_eq!(band(3.99), 0);
        assert_eq!(band(4.0), 1);
        assert_eq!(band(24.9), 6);
        assert_eq!(band(30.0), 6);
        assert_eq!(band(-1.0), 0);
        let t = truth();
        let hit = [true, false, true, true];
        let all = recall_by_band(&t, &hit, false);
        assert_eq!(all[0], (1, 1));
        assert_eq!(all[1], (1, 0));
        assert_eq!(all[6], (2, 2));
        let clean = recall_by_band(&t, &hit, true);
        assert_eq!(clean[1], (0, 0));
        assert_eq!(clean[6], (1, 1));
        let m = Matching {
            hit: hit.to_vec(),
            false_frames: 2,
            duplicates: 0,
            offset: 0,
        };
        let s = table(&t, &[("d", Some(&m)), ("a", None)]);
        assert!(
            s.contains("| 0–4 | 1 | 1 | 100.0% | 100.0% | n/a | n/a |"),
            "{s}"
        );
        assert!(s.contains("| 4–8 | 1 | 0 | 0.0% | - | n/a | n/a |"), "{s}");
        assert!(
            s.contains("| all | 4 | 2 | 75.0% | 100.0% | n/a | n/a |"),
            "{s}"
        );
        assert!(s.contains("d: false frames 2"), "{s}");
        assert!(
            s.contains("d: recall by DF (all SNR): DF4 0.0%, DF11 100.0%, DF17 100.0%"),
            "{s}"
        );
        assert_eq!(recall_by_df(&t, &hit), [(4, 1, 0), (11, 2, 2), (17, 1, 1)]);
        assert_eq!(percent((3, 1)), "33.3%");
    }

    #[test]
    fn test_callgrind_total() {
        let err = "==1== Callgrind, a call-graph generating cache profiler\n==1== Events    : Ir\n==1== Collected : 123456789\n==1==\n==1== I   refs:      123,456,789\n";
        assert_eq!(callgrind_total(err), Some(123_456_789));
        assert_eq!(callgrind_total("nothing"), None);
    }

    #[test]
    fn test_options() {
        let args: Vec<String> = [
            "--seconds",
            "2",
            "--rate",
            "2000000",
            "--no-callgrind",
            "--seed",
            "7",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let o = Options::parse(&args).unwrap();
        assert_eq!(
            (o.seconds, o.rate, o.seed, o.callgrind),
            (2.0, 2e6, 7, false)
        );
        assert!(Options::parse(&["--bogus".to_string(), "1".to_string()]).is_err());
        assert!(Options::parse(&["--seconds".to_string()]).is_err());
    }
}
