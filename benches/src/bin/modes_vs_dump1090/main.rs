//! Mode S decoding benchmark on a synthetic scene: recall per SNR band, per
//! overlap depth and false frames of `airwaves decode` and of three anchors,
//! Debian's `dump1090-mutability`, FlightAware's `dump1090-fa` and
//! wiedehopf's `readsb`, plus the instructions per input sample of each
//! (callgrind).
//!
//! ```text
//! cargo build --release -p airwaves -p airwaves-benches --bins
//! scripts/anchors     # optional: builds dump1090-fa and readsb into ../anchors
//! target/release/modes_vs_dump1090 [--seconds 10] [--rate 2400000] [--seed 1]
//!     [--fps 1000] [--fps-sweep 100,500,1500,3000] [--airwaves PATH]
//!     [--dump1090 PATH] [--dump1090-fa PATH] [--readsb PATH] [--no-anchors]
//!     [--scene-arg ARG]... [--workdir DIR] [--callgrind-seconds 1]
//!     [--no-callgrind] [--check]
//! ```
//!
//! Steps:
//!
//! 1. `airwaves scene --seconds S --rate R --seed N --fps F OUT.cu8 TRUTH.txt`
//!    writes the scene and its truth list (one line per reply, Mode A/C
//!    included; see `host/src/sim/scene/mod.rs`); each `--scene-arg ARG` is
//!    passed on (e.g. `--scene-arg --taps --scene-arg 1`).
//! 2. Each anchor decodes the file and prints `@`-lines (`@` + 12 hex digits
//!    of 12 MHz sample clock + frame hex + `;`), which are collected:
//!    - `dump1090-mutability --ifile OUT.cu8 --iformat UC8 --mlat --fix --raw`
//!      (`apt-get install -y dump1090-mutability`; CI has it);
//!    - `dump1090-fa --ifile OUT.cu8 --iformat UC8 --mlat --raw` with
//!      `--fix-2bit` and with `--fix` (its packaged default: one-bit repair);
//!      dump1090-fa exits 1 ("Abnormal exit") at the end of every file after
//!      draining its buffers, which is accepted;
//!    - `readsb --device-type ifile --ifile OUT.cu8 --iformat UC8 --mlat --raw
//!      --no-interactive` (its defaults: one-bit repair, preamble threshold 58).
//!
//!    dump1090-fa and readsb are built from their public sources by
//!    `scripts/anchors` (never committed, not in CI); they are taken from
//!    `--dump1090-fa PATH` / `--readsb PATH`, else from
//!    `$AIRWAVES_ANCHORS/bin/` (default `../anchors/bin/` beside the
//!    repository) when present; a missing anchor's column reads `n/a`, and
//!    `--no-anchors` leaves both out. All three anchors read only
//!    2.4 MS/s, so at other rates their columns are `n/a`.
//! 3. `airwaves decode --rate R --format avr-ts OUT.cu8` is run the same way.
//! 4. Decoded frames are matched to the truth by exact hex and time (see
//!    [`match_frames`]): a decoder's (repaired) frame counts as correct only
//!    if it equals a transmitted frame, at that frame's time.
//! 5. Recall is printed per SNR band ([`table`]) and per overlap depth
//!    ([`overlap_table`]): for each overlapped Mode S reply, the strongest
//!    other reply (Mode S or A/C) that overlaps it in time, its level
//!    relative to ours (SNR difference = power ratio) and where it starts
//!    relative to ours (before ours, in our preamble, in our data), all
//!    computed from the truth lines (start, length 8 + 56/112 µs, or a Mode
//!    A/C reply's 20.75/25.1 µs, SNR).
//! 6. `valgrind --tool=callgrind` counts the instructions of every decoder
//!    (airwaves with AVR and with JSON output; JSON parses every field of
//!    every frame) on 1 s and 2 s scenes; the difference over the extra
//!    samples is the marginal cost per input sample (start-up cancels out;
//!    the anchors' wall-clock housekeeping, slowed by valgrind, does not,
//!    but it is small next to demodulation).
//! 7. `--fps-sweep 100,500,1500,3000` runs steps 1–6 at each Mode S reply
//!    rate (same seed, seconds and sample rate) and ends with a compact
//!    table: recall (all, clean, overlapped, overlapped by a stronger reply),
//!    false frames and instructions per sample of every decoder per rate,
//!    and airwaves' total recall over each decoder's (a single run ends
//!    with the same table for its one rate).
//! 8. With `--check`, exit non-zero unless airwaves meets the targets of
//!    [`verdict`] against dump1090-mutability (the integration test
//!    `benches/tests/modes_vs_dump1090.rs` runs this with `--no-anchors`).

use airwaves_benches::peers::{anchor_binary, callgrind_total};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use airwaves_core::modes::modulate::{
    BIT_US, MODE_AC_F2_US, MODE_AC_LEN_US, MODE_AC_PULSE_US, PREAMBLE_US,
};

/// Width of an SNR band, dB.
const BAND_DB: f64 = 4.0;
/// Number of SNR bands: 0–4, 4–8, …, 24–28 dB.
const BANDS: usize = 7;
/// Largest time difference (12 MHz ticks, after removing the decoder's
/// constant offset) at which a decoded frame still matches a truth frame:
/// 10 µs, far below the time between two identical frames of an aircraft.
const TOLERANCE_TICKS: i64 = 120;
/// 12 MHz ticks per µs.
const TICKS_PER_US: f64 = 12.0;
/// Slack when recomputing overlaps from truth times, µs: the truth's `t12`
/// is rounded to 1/12 µs, while the generator's `ovl_*` flags come from
/// exact times.
const OVERLAP_SLACK_US: f64 = 0.2;

/// The strongest other reply that overlaps a Mode S frame in time.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Overlap {
    /// Its SNR minus the frame's, dB: the power ratio of the two replies.
    rel_db: f64,
    /// Its start minus the frame's, µs; negative when the frame starts
    /// inside it.
    start_us: f64,
}

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
    /// The strongest overlapping reply, found from the truth's times and
    /// lengths (`None` when not overlapped).
    overlap: Option<Overlap>,
}

/// One frame reported by a decoder.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decoded {
    /// 12 MHz timestamp, if the output had one.
    t12: Option<i64>,
    /// Upper-case hex.
    hex: String,
}

/// One reply of the truth list (Mode S or A/C), for overlap geometry.
struct Span {
    start_us: f64,
    end_us: f64,
    snr_db: f64,
    /// Index in the Mode S frame list, for Mode S replies.
    frame: Option<usize>,
}

/// Mode S lines of a truth file (comments skipped; Mode A/C replies count
/// only as overlapping replies), each with its strongest overlapping reply.
fn parse_truth(text: &str) -> Result<Vec<TruthFrame>, String> {
    let mut out = Vec::new();
    let mut spans = Vec::new();
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
        let bad = |what: &str| format!("truth line {}: bad {what}", i + 1);
        let t12: i64 = c[1].parse().map_err(|_| bad("t12"))?;
        let snr_db: f64 = c[3].parse().map_err(|_| bad("snr"))?;
        let flags: Vec<&str> = c[6].split(',').collect();
        let start_us = t12 as f64 / TICKS_PER_US;
        if flags.contains(&"modeac") {
            let len_us = if flags.contains(&"spi") {
                MODE_AC_LEN_US
            } else {
                MODE_AC_F2_US + MODE_AC_PULSE_US
            };
            spans.push(Span {
                start_us,
                end_us: start_us + len_us,
                snr_db,
                frame: None,
            });
            continue;
        }
        let hex = c[2].to_ascii_uppercase();
        spans.push(Span {
            start_us,
            end_us: start_us + PREAMBLE_US + BIT_US * 4.0 * hex.len() as f64,
            snr_db,
            frame: Some(out.len()),
        });
        out.push(TruthFrame {
            t12,
            hex,
            snr_db,
            overlapped: flags.iter().any(|&f| f == "ovl_s" || f == "ovl_ac"),
            overlap: None,
        });
    }
    spans.sort_by(|a, b| a.start_us.total_cmp(&b.start_us));
    // The longest reply is a 120 µs Mode S frame: no reply that starts
    // earlier than that before ours can reach it.
    let longest = PREAMBLE_US + BIT_US * 112.0 + OVERLAP_SLACK_US;
    for (k, s) in spans.iter().enumerate() {
        let Some(f) = s.frame else { continue };
        if !out[f].overlapped {
            continue;
        }
        let before = spans[..k]
            .iter()
            .rev()
            .take_while(|o| o.start_us > s.start_us - longest)
            .filter(|o| o.end_us + OVERLAP_SLACK_US > s.start_us);
        let after = spans[k + 1..]
            .iter()
            .take_while(|o| o.start_us < s.end_us + OVERLAP_SLACK_US);
        out[f].overlap = before
            .chain(after)
            .max_by(|a, b| a.snr_db.total_cmp(&b.snr_db))
            .map(|o| Overlap {
                rel_db: o.snr_db - s.snr_db,
                start_us: o.start_us - s.start_us,
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

/// Rows of the overlap table: a frame counts in every row whose test it
/// passes (clean frames only in the first).
const OVERLAP_ROWS: [&str; 14] = [
    "clean (no other reply overlaps)",
    "overlapped, all",
    "strongest other ≥ 6 dB weaker",
    "strongest other 0–6 dB weaker",
    "strongest other 0–3 dB stronger",
    "strongest other 3–6 dB stronger",
    "strongest other 6–10 dB stronger",
    "strongest other ≥ 10 dB stronger",
    "weaker, starts before ours",
    "weaker, starts in our preamble (0–8 µs)",
    "weaker, starts in our data (≥ 8 µs)",
    "stronger, starts before ours",
    "stronger, starts in our preamble (0–8 µs)",
    "stronger, starts in our data (≥ 8 µs)",
];

/// Indices into [`OVERLAP_ROWS`] of the rows that `f` counts in. An
/// overlapped frame whose overlapping reply could not be found again from
/// the truth's times (none expected) counts only as "overlapped, all".
fn overlap_rows(f: &TruthFrame) -> Vec<usize> {
    if !f.overlapped {
        return vec![0];
    }
    let mut rows = vec![1];
    if let Some(o) = f.overlap {
        rows.push(match o.rel_db {
            r if r < -6.0 => 2,
            r if r < 0.0 => 3,
            r if r < 3.0 => 4,
            r if r < 6.0 => 5,
            r if r < 10.0 => 6,
            _ => 7,
        });
        let at = if o.start_us < 0.0 {
            0
        } else if o.start_us < PREAMBLE_US {
            1
        } else {
            2
        };
        rows.push(if o.rel_db < 0.0 { 8 } else { 11 } + at);
    }
    rows
}

/// `(frames, hits)` per row of [`OVERLAP_ROWS`].
fn recall_by_overlap(truth: &[TruthFrame], hit: &[bool]) -> [(usize, usize); OVERLAP_ROWS.len()] {
    let mut r = [(0, 0); OVERLAP_ROWS.len()];
    for (t, &h) in truth.iter().zip(hit) {
        for row in overlap_rows(t) {
            r[row].0 += 1;
            r[row].1 += usize::from(h);
        }
    }
    r
}

/// The overlap-depth table: frames and each decoder's recall per row of
/// [`OVERLAP_ROWS`] (`None` = not run: `n/a`).
fn overlap_table(truth: &[TruthFrame], decoders: &[(&str, Option<&Matching>)]) -> String {
    let mut s = String::from("| overlap | frames |");
    let mut rule = String::from("|---|---:|");
    for (name, _) in decoders {
        let _ = write!(s, " {name} |");
        rule.push_str("---:|");
    }
    let _ = writeln!(s, "\n{rule}");
    let counts = recall_by_overlap(truth, &vec![false; truth.len()]);
    let per: Vec<_> = decoders
        .iter()
        .map(|(_, m)| m.map(|m| recall_by_overlap(truth, &m.hit)))
        .collect();
    for (row, label) in OVERLAP_ROWS.iter().enumerate() {
        let _ = write!(s, "| {label} | {} |", counts[row].0);
        for p in &per {
            match p {
                Some(r) => {
                    let _ = write!(s, " {} |", percent(r[row]));
                }
                None => s.push_str(" n/a |"),
            }
        }
        s.push('\n');
    }
    let unplaced = truth
        .iter()
        .filter(|t| t.overlapped && t.overlap.is_none())
        .count();
    if unplaced > 0 {
        let _ = writeln!(
            s,
            "({unplaced} overlapped frames whose overlapping reply was not found from the truth times: in \"overlapped, all\" only)"
        );
    }
    s
}

/// Which program a [`Decoder`] runs, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Debian's dump1090-mutability, `--fix`.
    Mutability,
    /// dump1090-fa with `--fix-2bit`.
    Fa2Bit,
    /// dump1090-fa with `--fix` (its packaged default).
    FaFix,
    /// readsb with its defaults (one-bit repair).
    Readsb,
    /// `airwaves decode`.
    Airwaves,
}

/// A decoder under test: a label for the tables, its kind and program.
#[derive(Debug, Clone, PartialEq)]
struct Decoder {
    label: &'static str,
    kind: Kind,
    program: PathBuf,
}

impl Decoder {
    fn new(kind: Kind, program: impl Into<PathBuf>) -> Self {
        let label = match kind {
            Kind::Mutability => "dump1090-mutability",
            Kind::Fa2Bit => "dump1090-fa --fix-2bit",
            Kind::FaFix => "dump1090-fa --fix",
            Kind::Readsb => "readsb",
            Kind::Airwaves => "airwaves",
        };
        Decoder {
            label,
            kind,
            program: program.into(),
        }
    }

    /// The anchors read 2.4 MS/s only (their demodulator is `demod_2400`).
    fn reads_rate(&self, rate: f64) -> bool {
        self.kind == Kind::Airwaves || (rate - 2.4e6).abs() < 1.0
    }

    /// The command that decodes `cu8` at `rate` and prints timestamped raw
    /// frames on stdout (`format`: airwaves' output format).
    fn command(&self, cu8: &Path, rate: f64, format: &str) -> Command {
        let mut c = Command::new(&self.program);
        match self.kind {
            Kind::Mutability | Kind::Fa2Bit | Kind::FaFix => {
                let fix = match self.kind {
                    Kind::Fa2Bit => "--fix-2bit",
                    _ => "--fix",
                };
                c.arg("--ifile")
                    .arg(cu8)
                    .args(["--iformat", "UC8", "--mlat", fix, "--raw"]);
            }
            Kind::Readsb => {
                c.args(["--device-type", "ifile", "--ifile"])
                    .arg(cu8)
                    .args(["--iformat", "UC8", "--mlat", "--raw", "--no-interactive"]);
            }
            Kind::Airwaves => {
                c.arg("decode")
                    .args(["--rate", &rate.to_string()])
                    .args(["--format", format])
                    .arg(cu8);
            }
        }
        c
    }

    /// Whether exit status `code` means the whole file was decoded:
    /// dump1090-fa exits 1 at every end of file ("Abnormal exit": its
    /// reader thread ends first), after draining its buffers.
    fn exit_ok(&self, code: Option<i32>) -> bool {
        code == Some(0) || (matches!(self.kind, Kind::Fa2Bit | Kind::FaFix) && code == Some(1))
    }
}

/// Command-line options.
#[derive(Debug, Clone)]
struct Options {
    seconds: f64,
    rate: f64,
    seed: u64,
    fps: f64,
    /// Mode S reply rates of `--fps-sweep` (empty: one run at `fps`).
    fps_sweep: Vec<f64>,
    airwaves: PathBuf,
    dump1090: String,
    /// dump1090-fa binary (`--dump1090-fa`, else `$AIRWAVES_ANCHORS/bin/`).
    dump1090_fa: Option<PathBuf>,
    /// readsb binary (`--readsb`, else `$AIRWAVES_ANCHORS/bin/`).
    readsb: Option<PathBuf>,
    /// Extra arguments for `airwaves scene` (`--scene-arg`, repeatable),
    /// e.g. `--scene-arg --taps --scene-arg 1` to vary the generator.
    scene_args: Vec<String>,
    workdir: PathBuf,
    callgrind_seconds: f64,
    callgrind: bool,
    /// Fail unless airwaves meets the issue's targets (see [`verdict`]).
    check: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut o = Options {
            seconds: 10.0,
            rate: 2.4e6,
            seed: 1,
            fps: 1000.0,
            fps_sweep: Vec::new(),
            airwaves: airwaves_benches::peers::release_airwaves(),
            dump1090: "dump1090-mutability".into(),
            dump1090_fa: None,
            readsb: None,
            scene_args: Vec::new(),
            workdir: std::env::temp_dir().join("airwaves-modes-bench"),
            callgrind_seconds: 1.0,
            callgrind: true,
            check: false,
        };
        let (mut fa, mut readsb, mut anchors) = (None, None, true);
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--no-callgrind" => o.callgrind = false,
                "--check" => o.check = true,
                "--no-anchors" => anchors = false,
                _ => {
                    let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
                    o.set(a, v, &mut fa, &mut readsb)?;
                }
            }
        }
        if anchors {
            o.dump1090_fa = fa.or_else(|| anchor_binary("dump1090-fa"));
            o.readsb = readsb.or_else(|| anchor_binary("readsb"));
        }
        Ok(o)
    }

    /// Apply option `a` with value `v` (`--dump1090-fa` and `--readsb` go to
    /// `fa` and `readsb`, resolved after all options are read).
    fn set(
        &mut self,
        a: &str,
        v: &str,
        fa: &mut Option<PathBuf>,
        readsb: &mut Option<PathBuf>,
    ) -> Result<(), String> {
        let num = |v: &str| {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x > 0.0)
                .ok_or_else(|| format!("{a}: not a positive number: {v}"))
        };
        match a {
            "--seconds" => self.seconds = num(v)?,
            "--rate" => self.rate = num(v)?,
            "--seed" => self.seed = v.parse().map_err(|_| format!("--seed: {v}"))?,
            "--fps" => self.fps = num(v)?,
            "--fps-sweep" => self.fps_sweep = v.split(',').map(num).collect::<Result<_, _>>()?,
            "--airwaves" => self.airwaves = v.into(),
            "--dump1090" => self.dump1090 = v.into(),
            "--dump1090-fa" => *fa = Some(v.into()),
            "--readsb" => *readsb = Some(v.into()),
            "--scene-arg" => self.scene_args.push(v.into()),
            "--workdir" => self.workdir = v.into(),
            "--callgrind-seconds" => self.callgrind_seconds = num(v)?,
            _ => return Err(format!("unknown option {a}")),
        }
        Ok(())
    }

    /// Every decoder to run, anchors first, airwaves last.
    fn decoders(&self) -> Vec<Decoder> {
        let mut v = vec![Decoder::new(Kind::Mutability, &self.dump1090)];
        if let Some(p) = &self.dump1090_fa {
            v.push(Decoder::new(Kind::Fa2Bit, p));
            v.push(Decoder::new(Kind::FaFix, p));
        }
        if let Some(p) = &self.readsb {
            v.push(Decoder::new(Kind::Readsb, p));
        }
        v.push(Decoder::new(Kind::Airwaves, &self.airwaves));
        v
    }
}

/// Run `airwaves scene` at `fps` Mode S replies/s; returns the truth text.
fn make_scene(
    o: &Options,
    seconds: f64,
    fps: f64,
    cu8: &Path,
    truth: &Path,
) -> Result<String, String> {
    let out = Command::new(&o.airwaves)
        .arg("scene")
        .args(["--seconds", &seconds.to_string()])
        .args(["--rate", &o.rate.to_string()])
        .args(["--seed", &o.seed.to_string()])
        .args(["--fps", &fps.to_string()])
        .args(&o.scene_args)
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

/// Run decoder `d` on `cu8` and parse its stdout; `None` if it cannot run
/// or fails.
fn run_decoder(d: &Decoder, cu8: &Path, rate: f64) -> Option<Vec<Decoded>> {
    match d.command(cu8, rate, "avr-ts").output() {
        Ok(out) if d.exit_ok(out.status.code()) => {
            Some(parse_decoded(&String::from_utf8_lossy(&out.stdout)))
        }
        Ok(out) => {
            eprintln!(
                "{}: failed ({}): {}",
                d.label,
                out.status,
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            );
            None
        }
        Err(e) => {
            eprintln!("{}: cannot run {}: {e}", d.label, d.program.display());
            None
        }
    }
}

/// Instructions (callgrind) of every decoder that reads the rate, plus
/// airwaves with JSON output, on a scene of `seconds` at `fps`:
/// `(label, instructions, samples)`. A decoder that does not run is left
/// out with a message.
fn count_instructions(
    o: &Options,
    decoders: &[Decoder],
    seconds: f64,
    fps: f64,
) -> Result<Vec<(String, u64, u64)>, String> {
    let cu8 = o.workdir.join(format!("ips_{seconds}_{fps}.cu8"));
    let truth = o.workdir.join(format!("ips_{seconds}_{fps}.txt"));
    make_scene(o, seconds, fps, &cu8, &truth)?;
    let samples = std::fs::metadata(&cu8).map_err(|e| e.to_string())?.len() / 2;
    let mut runs: Vec<(String, Command)> = Vec::new();
    for d in decoders.iter().filter(|d| d.reads_rate(o.rate)) {
        runs.push((d.label.to_string(), d.command(&cu8, o.rate, "avr-ts")));
        if d.kind == Kind::Airwaves {
            runs.push((
                format!("{} (JSON output)", d.label),
                d.command(&cu8, o.rate, "json"),
            ));
        }
    }
    let mut counts = Vec::new();
    for (label, cmd) in runs {
        let out = Command::new("valgrind")
            .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
            .arg(cmd.get_program())
            .args(cmd.get_args())
            .stdout(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("valgrind: {e} (apt-get install valgrind)"))?;
        match callgrind_total(&String::from_utf8_lossy(&out.stderr)) {
            Some(n) => counts.push((label, n, samples)),
            None => eprintln!("valgrind printed no instruction count for {label}; left out"),
        }
    }
    Ok(counts)
}

/// Marginal instructions per input sample of each decoder: callgrind on
/// scenes of `callgrind_seconds` and twice that, the difference divided by
/// the extra samples. Prints the table; returns `(label, per sample)`.
fn instructions(o: &Options, decoders: &[Decoder], fps: f64) -> Result<Vec<(String, f64)>, String> {
    let short = count_instructions(o, decoders, o.callgrind_seconds, fps)?;
    let long = count_instructions(o, decoders, 2.0 * o.callgrind_seconds, fps)?;
    println!(
        "\nInstructions (callgrind, x86-64) on scenes of {} s and {} s at {fps} Mode S replies/s; marginal = difference / extra samples, so start-up cancels out:\n",
        o.callgrind_seconds,
        2.0 * o.callgrind_seconds
    );
    println!("| decoder | instructions, short | instructions, long | marginal per input sample |");
    println!("|---|---:|---:|---:|");
    let mut out = Vec::new();
    for (name, a, na) in &short {
        let Some((_, b, nb)) = long.iter().find(|(n, _, _)| n == name) else {
            continue;
        };
        let per = (*b as f64 - *a as f64) / (*nb as f64 - *na as f64);
        println!("| {name} | {a} | {b} | {per:.1} |");
        out.push((name.clone(), per));
    }
    Ok(out)
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
    let (dt, at) = (hits(dump), hits(ours));
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

/// Truth frames a decoder matched.
fn hits(m: &Matching) -> usize {
    m.hit.iter().filter(|&&h| h).count()
}

/// One comparison: the truth of a scene and each decoder's matching
/// (`None`: not run).
struct Comparison {
    truth: Vec<TruthFrame>,
    results: Vec<(Decoder, Option<Matching>)>,
}

/// Make a scene at `fps`, run every decoder on it, print the SNR-band and
/// overlap tables.
fn compare(o: &Options, decoders: &[Decoder], fps: f64) -> Result<Comparison, String> {
    let cu8 = o.workdir.join(format!("scene_{fps}.cu8"));
    let truth_path = o.workdir.join(format!("scene_{fps}.txt"));
    let truth = parse_truth(&make_scene(o, o.seconds, fps, &cu8, &truth_path)?)?;
    println!(
        "scene: {} s at {} S/s, seed {}, {} Mode S replies/s → {} Mode S frames ({} overlapped), files in {}",
        o.seconds,
        o.rate,
        o.seed,
        fps,
        truth.len(),
        truth.iter().filter(|t| t.overlapped).count(),
        o.workdir.display()
    );
    let mut results = Vec::new();
    for d in decoders {
        let m = if d.reads_rate(o.rate) {
            run_decoder(d, &cu8, o.rate).map(|dec| match_frames(&truth, &dec))
        } else {
            eprintln!("{}: reads 2.4 MS/s only; skipped", d.label);
            None
        };
        results.push((d.clone(), m));
    }
    let cols: Vec<(&str, Option<&Matching>)> =
        results.iter().map(|(d, m)| (d.label, m.as_ref())).collect();
    println!(
        "\nRecall (share of transmitted Mode S frames decoded exactly, at their time), by SNR band; `clean` = not overlapped by another reply:\n"
    );
    print!("{}", table(&truth, &cols));
    println!(
        "\nRecall by overlap: the strongest other reply (Mode S or A/C) overlapping each frame, its level against ours (SNR difference) and where it starts against ours:\n"
    );
    print!("{}", overlap_table(&truth, &cols));
    Ok(Comparison { truth, results })
}

/// One row of the sweep summary.
struct SweepRow {
    fps: f64,
    label: &'static str,
    /// Recall: all, clean, overlapped, overlapped by a stronger reply.
    recall: [String; 4],
    false_frames: Option<usize>,
    total: Option<usize>,
    per_sample: Option<f64>,
}

/// The `--fps-sweep` summary table; `airwaves ÷` is airwaves' total
/// recall over the row's decoder's at that rate.
fn sweep_table(rows: &[SweepRow]) -> String {
    let mut s = String::from(
        "| Mode S replies/s | decoder | recall | clean | overlapped | overlapped by a stronger reply | false frames | instructions / sample | airwaves ÷ |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let ours = rows
            .iter()
            .find(|x| x.fps == r.fps && x.label == "airwaves")
            .and_then(|x| x.total);
        let ratio = match (ours, r.total) {
            (Some(a), Some(t)) if t > 0 => format!("{:.2}×", a as f64 / t as f64),
            _ => "-".into(),
        };
        let opt = |v: Option<String>| v.unwrap_or_else(|| "n/a".into());
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {ratio} |",
            r.fps,
            r.label,
            r.recall[0],
            r.recall[1],
            r.recall[2],
            r.recall[3],
            opt(r.false_frames.map(|f| f.to_string())),
            opt(r.per_sample.map(|p| format!("{p:.1}")))
        );
    }
    s
}

/// The sweep rows of one comparison.
fn sweep_rows(fps: f64, c: &Comparison, per_sample: &[(String, f64)]) -> Vec<SweepRow> {
    let sum = |r: &[(usize, usize)]| r.iter().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let stronger = |t: &TruthFrame| t.overlap.is_some_and(|o| o.rel_db >= 0.0);
    c.results
        .iter()
        .map(|(d, m)| {
            let recall = match m {
                Some(m) => {
                    let ov = recall_by_overlap(&c.truth, &m.hit);
                    let st = c
                        .truth
                        .iter()
                        .zip(&m.hit)
                        .filter(|(t, _)| stronger(t))
                        .fold((0, 0), |a, (_, &h)| (a.0 + 1, a.1 + usize::from(h)));
                    [
                        percent(sum(&recall_by_band(&c.truth, &m.hit, false))),
                        percent(ov[0]),
                        percent(ov[1]),
                        percent(st),
                    ]
                }
                None => std::array::from_fn(|_| "n/a".to_string()),
            };
            SweepRow {
                fps,
                label: d.label,
                recall,
                false_frames: m.as_ref().map(|m| m.false_frames),
                total: m.as_ref().map(hits),
                per_sample: per_sample
                    .iter()
                    .find(|(n, _)| n == d.label)
                    .map(|(_, p)| *p),
            }
        })
        .collect()
}

fn run(o: &Options) -> Result<(), String> {
    std::fs::create_dir_all(&o.workdir).map_err(|e| format!("{}: {e}", o.workdir.display()))?;
    let decoders = o.decoders();
    if o.fps_sweep.is_empty() {
        let c = compare(o, &decoders, o.fps)?;
        if o.check {
            let get = |k: Kind| {
                c.results
                    .iter()
                    .find(|(d, _)| d.kind == k)
                    .and_then(|(_, m)| m.as_ref())
            };
            let (Some(d), Some(a)) = (get(Kind::Mutability), get(Kind::Airwaves)) else {
                return Err("--check needs dump1090-mutability and airwaves to run".into());
            };
            let misses = verdict(&c.truth, d, a);
            if !misses.is_empty() {
                return Err(format!("targets missed:\n  {}", misses.join("\n  ")));
            }
            println!(
                "\ncheck passed: more frames than dump1090-mutability in every band where it decodes any, {:.2}× its total, {} false frames against its {}",
                hits(a) as f64 / hits(d).max(1) as f64,
                a.false_frames,
                d.false_frames
            );
        }
        let per_sample = if o.callgrind {
            instructions(o, &decoders, o.fps)?
        } else {
            Vec::new()
        };
        println!("\nSummary:\n");
        print!("{}", sweep_table(&sweep_rows(o.fps, &c, &per_sample)));
        return Ok(());
    }
    let mut rows = Vec::new();
    for &fps in &o.fps_sweep {
        println!("\n## {fps} Mode S replies/s\n");
        let c = compare(o, &decoders, fps)?;
        let per_sample = if o.callgrind {
            instructions(o, &decoders, fps)?
        } else {
            Vec::new()
        };
        rows.extend(sweep_rows(fps, &c, &per_sample));
    }
    println!(
        "\n## Sweep: {} s scenes at {} S/s, seed {}\n",
        o.seconds, o.rate, o.seed
    );
    print!("{}", sweep_table(&rows));
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
mod tests;
