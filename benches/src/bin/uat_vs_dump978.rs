//! UAT decoding benchmark on synthetic 978 MHz scenes: messages recovered
//! per SNR band (downlink and uplink), overlapped messages, false messages
//! and instructions per input sample of `airwaves uat` and of FlightAware's
//! `dump978-fa`, side by side.
//!
//! ```text
//! cargo build --release -p airwaves -p airwaves-benches --bins
//! scripts/anchors     # optional: builds dump978-fa into ../anchors
//! target/release/uat_vs_dump978 [--seconds 10] [--seed 1] [--aircraft 60]
//!     [--uplinks 4] [--snr-min 0] [--snr-max 25] [--airwaves PATH]
//!     [--dump978-fa PATH] [--no-anchors] [--workdir DIR]
//!     [--callgrind-seconds 1] [--no-callgrind] [--check]
//! ```
//!
//! 1. `airwaves scene --uat …` writes the scene and its truth (one line per
//!    message: start sample, link, data hex, SNR, carrier, overlap flag;
//!    see `host/src/sim/uat.rs`).
//! 2. `airwaves uat --ifile F` and `dump978-fa --file F --format CU8
//!    --raw-stdout` decode it; both print raw lines (`-hex;…` / `+hex;…`).
//!    dump978-fa is built from its public source by `scripts/anchors`
//!    (never committed, not in CI), taken from `--dump978-fa PATH` or
//!    `$AIRWAVES_ANCHORS/bin/` (default `../anchors/bin/`); without it its
//!    columns read `n/a`.
//! 3. A decoded message counts if its link and data bytes equal a
//!    transmitted message's (each transmitted message counts once; every
//!    message of the scene differs from every other). Anything else is a
//!    false message.
//! 4. Recall per SNR band of 2 dB, overall, for overlapped messages;
//!    false messages; airwaves' downlink total over dump978-fa's.
//! 5. `valgrind --tool=callgrind` on scenes of 1 s and 2 s: the difference
//!    over the extra samples is the marginal cost per input sample.
//! 6. `--check`: exit non-zero unless airwaves decodes every clean message
//!    from 12 dB up, has no false message, and (with dump978-fa) finds at
//!    least as many downlink messages as it with no more false ones.

use airwaves_benches::peers::{anchor_binary, callgrind_total};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

/// SNR band width, dB.
const BAND_DB: f64 = 2.0;
/// Bands: 0–2 … 24–26 dB.
const BANDS: usize = 13;

/// One transmitted message.
#[derive(Debug, Clone)]
struct Truth {
    key: String,
    snr_db: f64,
    overlapped: bool,
}

fn parse_truth(text: &str) -> Result<Vec<Truth>, String> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() < 6 {
                return Err(format!("bad truth line: {l}"));
            }
            Ok(Truth {
                key: format!("{}{}", f[1], f[2]),
                snr_db: f[3].parse().map_err(|_| format!("bad SNR: {l}"))?,
                overlapped: f[5] == "ovl",
            })
        })
        .collect()
}

/// What one decoder found.
#[derive(Debug, Clone, Default)]
struct Found {
    hit: Vec<bool>,
    false_msgs: usize,
    duplicates: usize,
}

/// Match raw lines to the truth by link and data bytes.
fn match_lines(truth: &[Truth], raw: &str) -> Found {
    let index: HashMap<&str, usize> = truth
        .iter()
        .enumerate()
        .map(|(i, t)| (t.key.as_str(), i))
        .collect();
    let mut f = Found {
        hit: vec![false; truth.len()],
        ..Found::default()
    };
    for line in raw.lines() {
        let key = line.split(';').next().unwrap_or("");
        if !(key.starts_with('-') || key.starts_with('+')) {
            continue;
        }
        match index.get(key.to_ascii_lowercase().as_str()) {
            Some(&i) if f.hit[i] => f.duplicates += 1,
            Some(&i) => f.hit[i] = true,
            None => f.false_msgs += 1,
        }
    }
    f
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Airwaves,
    Dump978,
}

#[derive(Debug, Clone)]
struct Decoder {
    label: &'static str,
    kind: Kind,
    program: PathBuf,
}

impl Decoder {
    fn command(&self, cu8: &Path) -> Command {
        let mut c = Command::new(&self.program);
        match self.kind {
            Kind::Airwaves => {
                c.arg("uat").arg("--ifile").arg(cu8);
            }
            Kind::Dump978 => {
                c.arg("--file")
                    .arg(cu8)
                    .args(["--format", "CU8", "--raw-stdout"]);
            }
        }
        c
    }

    fn run(&self, cu8: &Path) -> Result<String, String> {
        let out = self
            .command(cu8)
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("{}: cannot run {}: {e}", self.label, self.program.display()))?;
        if !out.status.success() {
            return Err(format!(
                "{}: {}: {}",
                self.label,
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

#[derive(Debug, Clone)]
struct Options {
    seconds: f64,
    seed: u64,
    aircraft: usize,
    uplinks: usize,
    snr: (f64, f64),
    airwaves: PathBuf,
    dump978: Option<PathBuf>,
    workdir: PathBuf,
    callgrind_seconds: f64,
    callgrind: bool,
    check: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut o = Options {
            seconds: 10.0,
            seed: 1,
            aircraft: 60,
            uplinks: 4,
            snr: (0.0, 25.0),
            airwaves: airwaves_benches::peers::release_airwaves(),
            dump978: None,
            workdir: std::env::temp_dir().join("airwaves-uat-bench"),
            callgrind_seconds: 1.0,
            callgrind: true,
            check: false,
        };
        let (mut given, mut anchors) = (None, true);
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--no-callgrind" => o.callgrind = false,
                "--check" => o.check = true,
                "--no-anchors" => anchors = false,
                _ => {
                    let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
                    let num = |v: &str| {
                        v.parse::<f64>()
                            .ok()
                            .filter(|x| x.is_finite())
                            .ok_or_else(|| format!("{a}: not a number: {v}"))
                    };
                    let count = |v: &str| v.parse::<usize>().map_err(|_| format!("{a}: {v}"));
                    match a.as_str() {
                        "--seconds" => o.seconds = num(v)?,
                        "--seed" => o.seed = v.parse().map_err(|_| format!("--seed: {v}"))?,
                        "--aircraft" => o.aircraft = count(v)?,
                        "--uplinks" => o.uplinks = count(v)?,
                        "--snr-min" => o.snr.0 = num(v)?,
                        "--snr-max" => o.snr.1 = num(v)?,
                        "--airwaves" => o.airwaves = v.into(),
                        "--dump978-fa" => given = Some(PathBuf::from(v)),
                        "--workdir" => o.workdir = v.into(),
                        "--callgrind-seconds" => o.callgrind_seconds = num(v)?,
                        _ => return Err(format!("unknown option {a}")),
                    }
                }
            }
        }
        if anchors {
            o.dump978 = given.or_else(|| anchor_binary("dump978-fa"));
        }
        Ok(o)
    }

    fn decoders(&self) -> Vec<Decoder> {
        let mut v = Vec::new();
        if let Some(p) = &self.dump978 {
            v.push(Decoder {
                label: "dump978-fa",
                kind: Kind::Dump978,
                program: p.clone(),
            });
        }
        v.push(Decoder {
            label: "airwaves",
            kind: Kind::Airwaves,
            program: self.airwaves.clone(),
        });
        v
    }

    /// `airwaves scene --uat` of `seconds`; returns the truth text.
    fn scene(&self, seconds: f64, cu8: &Path, truth: &Path) -> Result<String, String> {
        let out = Command::new(&self.airwaves)
            .args(["scene", "--uat"])
            .args(["--seconds", &seconds.to_string()])
            .args(["--seed", &self.seed.to_string()])
            .args(["--aircraft", &self.aircraft.to_string()])
            .args(["--uplinks", &self.uplinks.to_string()])
            .args(["--snr-min", &self.snr.0.to_string()])
            .args(["--snr-max", &self.snr.1.to_string()])
            .arg(cu8)
            .arg(truth)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.airwaves.display()))?;
        if !out.status.success() {
            return Err(format!(
                "airwaves scene: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        std::fs::read_to_string(truth).map_err(|e| format!("{}: {e}", truth.display()))
    }
}

fn band(snr_db: f64) -> usize {
    ((snr_db / BAND_DB).floor().max(0.0) as usize).min(BANDS - 1)
}

fn percent(hits: usize, of: usize) -> String {
    if of == 0 {
        "–".into()
    } else {
        format!("{:.1} %", 100.0 * hits as f64 / of as f64)
    }
}

/// `(hits, messages)` of `link` (`'-'` or `'+'`) passing `keep`.
fn count(truth: &[Truth], f: &Found, link: char, keep: impl Fn(&Truth) -> bool) -> (usize, usize) {
    let mut n = (0, 0);
    for (t, &h) in truth.iter().zip(&f.hit) {
        if t.key.starts_with(link) && keep(t) {
            n.1 += 1;
            n.0 += usize::from(h);
        }
    }
    n
}

/// A summary row: its name, the link, which messages it counts.
type Row = (&'static str, char, fn(&Truth) -> bool);

/// Messages of `link` passing `keep`.
fn total(truth: &[Truth], link: char, keep: impl Fn(&Truth) -> bool) -> usize {
    truth
        .iter()
        .filter(|t| t.key.starts_with(link) && keep(t))
        .count()
}

fn tables(truth: &[Truth], results: &[(&str, Option<Found>)]) {
    println!("\nDownlink recall per SNR band (signal power over noise in the receiver's band):\n");
    let mut head = String::from("| SNR, dB | messages |");
    let mut rule = String::from("|---|---:|");
    for (label, _) in results {
        head += &format!(" {label} |");
        rule += "---:|";
    }
    println!("{head}\n{rule}");
    for b in 0..BANDS {
        let in_band = |t: &Truth| band(t.snr_db) == b;
        let n = total(truth, '-', in_band);
        if n == 0 {
            continue;
        }
        let mut row = format!(
            "| {}–{} | {n} |",
            b as f64 * BAND_DB,
            (b + 1) as f64 * BAND_DB
        );
        for (_, r) in results {
            row += &match r {
                Some(f) => {
                    let (h, n) = count(truth, f, '-', in_band);
                    format!(" {} |", percent(h, n))
                }
                None => " n/a |".into(),
            };
        }
        println!("{row}");
    }
    println!("\n{head}\n{rule}");
    let rows: [Row; 4] = [
        ("downlink, all", '-', |_| true),
        ("downlink, overlapped", '-', |t| t.overlapped),
        ("uplink, all", '+', |_| true),
        ("uplink, 12 dB and up", '+', |t| t.snr_db >= 12.0),
    ];
    for (name, link, keep) in rows {
        let n = total(truth, link, keep);
        let mut row = format!("| {name} | {n} |");
        for (_, r) in results {
            row += &match r {
                Some(f) => {
                    let (h, n) = count(truth, f, link, keep);
                    format!(" {h} ({}) |", percent(h, n))
                }
                None => " n/a |".into(),
            };
        }
        println!("{row}");
    }
    let mut row = String::from("| false messages | |");
    for (_, r) in results {
        row += &match r {
            Some(f) => format!(" {} |", f.false_msgs),
            None => " n/a |".into(),
        };
    }
    println!("{row}");
}

/// Marginal instructions per input sample of each decoder.
fn instructions(o: &Options, decoders: &[Decoder]) -> Result<Vec<(String, f64)>, String> {
    let mut counts: Vec<Vec<(String, u64, u64)>> = Vec::new();
    for seconds in [o.callgrind_seconds, 2.0 * o.callgrind_seconds] {
        let cu8 = o.workdir.join(format!("ips_{seconds}.cu8"));
        o.scene(seconds, &cu8, &o.workdir.join(format!("ips_{seconds}.txt")))?;
        let samples = std::fs::metadata(&cu8).map_err(|e| e.to_string())?.len() / 2;
        let mut v = Vec::new();
        for d in decoders {
            let cmd = d.command(&cu8);
            let out = Command::new("valgrind")
                .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
                .arg(cmd.get_program())
                .args(cmd.get_args())
                .stdout(Stdio::null())
                .output()
                .map_err(|e| format!("valgrind: {e} (apt-get install valgrind)"))?;
            match callgrind_total(&String::from_utf8_lossy(&out.stderr)) {
                Some(n) => v.push((d.label.to_string(), n, samples)),
                None => eprintln!("valgrind printed no count for {}; left out", d.label),
            }
        }
        counts.push(v);
    }
    println!(
        "\nInstructions (callgrind, x86-64) on scenes of {} s and {} s; marginal = difference / extra samples:\n",
        o.callgrind_seconds,
        2.0 * o.callgrind_seconds
    );
    println!("| decoder | short | long | per input sample |\n|---|---:|---:|---:|");
    let mut out = Vec::new();
    for (name, a, na) in &counts[0] {
        if let Some((_, b, nb)) = counts[1].iter().find(|(n, _, _)| n == name) {
            let per = (*b as f64 - *a as f64) / (*nb as f64 - *na as f64);
            println!("| {name} | {a} | {b} | {per:.1} |");
            out.push((name.clone(), per));
        }
    }
    Ok(out)
}

/// What `--check` requires; the list of misses.
fn verdict(truth: &[Truth], ours: &Found, anchor: Option<&Found>) -> Vec<String> {
    let mut miss = Vec::new();
    let strong_clean = |t: &Truth| t.snr_db >= 12.0 && !t.overlapped;
    for link in ['-', '+'] {
        let (h, n) = count(truth, ours, link, strong_clean);
        if h < n {
            miss.push(format!("{link}: {h} of {n} clean messages from 12 dB up"));
        }
    }
    if ours.false_msgs > 0 {
        miss.push(format!("{} false messages", ours.false_msgs));
    }
    if let Some(a) = anchor {
        let (ho, _) = count(truth, ours, '-', |_| true);
        let (ha, _) = count(truth, a, '-', |_| true);
        if ho < ha || ours.false_msgs > a.false_msgs {
            miss.push(format!(
                "downlink {ho} against dump978-fa's {ha}, false {} against {}",
                ours.false_msgs, a.false_msgs
            ));
        }
    }
    miss
}

fn run(o: &Options) -> Result<bool, String> {
    std::fs::create_dir_all(&o.workdir).map_err(|e| format!("{}: {e}", o.workdir.display()))?;
    let cu8 = o.workdir.join("scene.cu8");
    let truth = parse_truth(&o.scene(o.seconds, &cu8, &o.workdir.join("scene.txt"))?)?;
    println!(
        "Scene: {} s, seed {}, {} aircraft (one message a second), {} uplinks a second, SNR {}–{} dB: {} downlink ({} overlapped), {} uplink messages",
        o.seconds,
        o.seed,
        o.aircraft,
        o.uplinks,
        o.snr.0,
        o.snr.1,
        truth.iter().filter(|t| t.key.starts_with('-')).count(),
        truth
            .iter()
            .filter(|t| t.key.starts_with('-') && t.overlapped)
            .count(),
        truth.iter().filter(|t| t.key.starts_with('+')).count(),
    );
    let decoders = o.decoders();
    let mut results: Vec<(&str, Option<Found>)> = Vec::new();
    if o.dump978.is_none() {
        results.push(("dump978-fa", None));
    }
    for d in &decoders {
        match d.run(&cu8) {
            Ok(raw) => results.push((d.label, Some(match_lines(&truth, &raw)))),
            Err(e) => {
                eprintln!("{e}");
                results.push((d.label, None));
            }
        }
    }
    tables(&truth, &results);
    let get = |name: &str| {
        results
            .iter()
            .find(|(l, _)| *l == name)
            .and_then(|(_, f)| f.as_ref())
    };
    let ours = get("airwaves").ok_or("airwaves did not run")?;
    let anchor = get("dump978-fa");
    if let Some(a) = anchor {
        let (ho, _) = count(&truth, ours, '-', |_| true);
        let (ha, _) = count(&truth, a, '-', |_| true);
        let (uo, _) = count(&truth, ours, '+', |_| true);
        let (ua, _) = count(&truth, a, '+', |_| true);
        println!(
            "\nairwaves / dump978-fa: downlink {ho} / {ha} = {:.3}×, uplink {uo} / {ua}; false {} / {}",
            ho as f64 / ha.max(1) as f64,
            ours.false_msgs,
            a.false_msgs
        );
    }
    if o.callgrind {
        let ips = instructions(o, &decoders)?;
        if let (Some(a), Some(d)) = (
            ips.iter().find(|(n, _)| n == "airwaves"),
            ips.iter().find(|(n, _)| n == "dump978-fa"),
        ) {
            println!(
                "\nairwaves / dump978-fa instructions per sample: {:.3}×",
                a.1 / d.1
            );
        }
    }
    if o.check {
        let miss = verdict(&truth, ours, anchor);
        for m in &miss {
            println!("MISS: {m}");
        }
        if miss.is_empty() {
            println!("check passed");
        }
        return Ok(miss.is_empty());
    }
    Ok(true)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match Options::parse(&args).and_then(|o| run(&o)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("uat_vs_dump978: {e}");
            ExitCode::from(2)
        }
    }
}
