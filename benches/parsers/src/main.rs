//! Mode S parsing throughput of `airwaves-core` side by side with the
//! `rs1090` and `adsb_deku` crates, on the same message list.
//!
//! ```text
//! parse_vs_crates [--data DIR] [--passes N]
//! parse_vs_crates --callgrind PARSER CLASS PASSES [--data DIR]
//! ```
//!
//! The list is the 12,000 messages of the pyModeS CSV files in `DIR`
//! (default `shared/data/adsb` beside the workspace): 2,000 DF17 and
//! 10,000 DF20/DF21. They are hex-decoded once into `[u8; 14]` frames;
//! only parsing is timed. What "parse" means for each crate is in
//! [`parsers`]. For each class (DF17, DF20/21, all) and parser the table
//! gives the messages parsed OK, the best and median rate over `N` passes
//! (single thread, passes of the three parsers interleaved) by wall clock
//! and by the thread's CPU clock (`CLOCK_THREAD_CPUTIME_ID`, which leaves
//! out the time spent waiting for a core on a loaded machine), and how many
//! times faster airwaves is. A second table counts the
//! messages on which a crate's decoded values differ from airwaves'.
//!
//! `--callgrind` runs `PASSES` passes of one parser (`airwaves`, `rs1090`,
//! `adsb_deku`) over one class (`df17`, `commb`, `all`) and prints a
//! checksum; `scripts/bench-parse` runs it under `valgrind
//! --tool=callgrind` at two pass counts and divides the difference by the
//! extra messages: instructions per message, set-up excluded.

mod corpus;
mod parsers;

use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use corpus::{Corpus, Message};
use cpu_time::ThreadTime;
use parsers::{Parser, Summary};

/// Default data directory: `shared/data/adsb` beside the workspace root.
pub const DEFAULT_DATA_DIR: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/adsb");

/// Default number of timed passes per parser and class.
const DEFAULT_PASSES: usize = 15;

/// Sums of the decoded values of one pass; identical passes give identical
/// tallies, and folding every value keeps the parse from being optimised
/// away.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Messages parsed OK.
    pub ok: usize,
    /// Comm-B messages whose register the parser named.
    pub named: usize,
    /// Order-dependent hash of every [`Summary`].
    pub hash: u64,
}

impl Tally {
    /// Fold one result in.
    fn add(&mut self, s: &Summary) {
        self.ok += 1;
        self.named += usize::from(s.register_named);
        for v in [
            u64::from(s.address),
            s.altitude_ft as u64,
            u64::from(s.squawk),
            s.ground_speed_kt as u64,
        ] {
            self.hash = (self.hash ^ v).wrapping_mul(0x100_0000_01B3);
        }
    }
}

/// Parse every message once.
#[inline(never)]
pub fn pass(parse: fn(&Message) -> Option<Summary>, messages: &[Message]) -> Tally {
    let mut tally = Tally::default();
    for m in messages {
        if let Some(s) = parse(black_box(m)) {
            tally.add(&s);
        }
    }
    black_box(tally)
}

/// The parts of the list timed separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// DF17 only.
    Df17,
    /// DF20/21 only.
    CommB,
    /// Everything.
    All,
}

impl Class {
    const ALL: [Class; 3] = [Class::Df17, Class::CommB, Class::All];

    fn name(self) -> &'static str {
        match self {
            Class::Df17 => "df17",
            Class::CommB => "commb",
            Class::All => "all",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Class::Df17 => "DF17 only",
            Class::CommB => "DF20/21 only",
            Class::All => "all",
        }
    }

    fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }

    fn messages(self, corpus: &Corpus) -> &[Message] {
        match self {
            Class::Df17 => &corpus.df17,
            Class::CommB => &corpus.commb,
            Class::All => &corpus.all,
        }
    }
}

/// Command line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Args {
    data: PathBuf,
    passes: usize,
    callgrind: Option<(Parser, Class, usize)>,
}

const USAGE: &str = "usage: parse_vs_crates [--data DIR] [--passes N]\n       \
                     parse_vs_crates --callgrind PARSER CLASS PASSES [--data DIR]\n\
                     PARSER: airwaves | rs1090 | adsb_deku; CLASS: df17 | commb | all";

fn parse_count(text: Option<&String>, what: &str) -> Result<usize, String> {
    let text = text.ok_or_else(|| format!("{what}: missing value\n{USAGE}"))?;
    match text.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{what}: expected a positive integer, got {text:?}")),
    }
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut out = Args {
        data: PathBuf::from(DEFAULT_DATA_DIR),
        passes: DEFAULT_PASSES,
        callgrind: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--data" => {
                out.data = it
                    .next()
                    .ok_or_else(|| format!("--data: missing directory\n{USAGE}"))?
                    .into();
            }
            "--passes" => out.passes = parse_count(it.next(), "--passes")?,
            "--callgrind" => {
                let parser = it.next().ok_or_else(|| USAGE.to_string())?;
                let parser = Parser::from_name(parser)
                    .ok_or_else(|| format!("unknown parser {parser:?}\n{USAGE}"))?;
                let class = it.next().ok_or_else(|| USAGE.to_string())?;
                let class = Class::from_name(class)
                    .ok_or_else(|| format!("unknown class {class:?}\n{USAGE}"))?;
                let passes = parse_count(it.next(), "--callgrind PASSES")?;
                out.callgrind = Some((parser, class, passes));
            }
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    Ok(out)
}

/// Timings of one parser on one class.
struct Timing {
    tally: Tally,
    /// Wall-clock seconds per pass, sorted ascending.
    wall: Vec<f64>,
    /// On-CPU seconds per pass, sorted ascending (empty without a thread
    /// CPU clock).
    cpu: Vec<f64>,
}

impl Timing {
    /// Messages per second at the fastest and the median pass of `times`.
    fn rates(times: &[f64], n: usize) -> Option<(f64, f64)> {
        let best = times.first()?;
        Some((n as f64 / best, n as f64 / times[times.len() / 2]))
    }
}

/// Time every parser on `messages`, passes interleaved so that machine
/// noise spreads over all three. The tally of every pass must be the same.
fn time_class(messages: &[Message], passes: usize) -> Result<Vec<Timing>, String> {
    let mut timings: Vec<Timing> = Parser::ALL
        .iter()
        .map(|p| Timing {
            // Warm-up pass: caches, branch predictors, lazy statics.
            tally: pass(p.function(), messages),
            wall: Vec::with_capacity(passes),
            cpu: Vec::with_capacity(passes),
        })
        .collect();
    for _ in 0..passes {
        for (parser, timing) in Parser::ALL.iter().zip(&mut timings) {
            let cpu_start = ThreadTime::try_now();
            let start = Instant::now();
            let tally = pass(parser.function(), messages);
            let elapsed = start.elapsed().max(Duration::from_nanos(1));
            if let Ok(cpu) = cpu_start.and_then(|t| t.try_elapsed()) {
                timing
                    .cpu
                    .push(cpu.max(Duration::from_nanos(1)).as_secs_f64());
            }
            if tally != timing.tally {
                return Err(format!("{}: passes disagree", parser.name()));
            }
            timing.wall.push(elapsed.as_secs_f64());
        }
    }
    for t in &mut timings {
        t.wall.sort_by(f64::total_cmp);
        t.cpu.sort_by(f64::total_cmp);
        if t.cpu.len() != t.wall.len() {
            t.cpu.clear();
        }
    }
    Ok(timings)
}

/// Messages on which `parser`'s result differs from airwaves', per field:
/// (accepted by one only, address, altitude, squawk, ground speed).
fn differences(parser: Parser, messages: &[Message]) -> [usize; 5] {
    let mut d = [0; 5];
    for m in messages {
        match (parsers::parse_airwaves(m), parser.function()(m)) {
            (Some(a), Some(b)) => {
                d[1] += usize::from(a.address != b.address);
                d[2] += usize::from(a.altitude_ft != b.altitude_ft);
                d[3] += usize::from(a.squawk != b.squawk);
                d[4] += usize::from(a.ground_speed_kt != b.ground_speed_kt);
            }
            (None, None) => {}
            _ => d[0] += 1,
        }
    }
    d
}

const DEFINITION: &str = "\
\"parse\" = parity check (DF17: remainder must be 0, else rejected; DF20/21: ICAO
address recovered from AP) + downlink-format fields (DF20 altitude, DF21 squawk)
+ DF17: the whole ME into the crate's typed representation, plus altitude of
  airborne positions and ground speed/track of velocities
+ DF20/21: the crate's normal Comm-B handling of MB:
    airwaves  commb::infer (7 registers; context: DF20 altitude) + typed decode
              of every candidate register
    rs1090    every BDS hypothesis (0,5 1,0 1,7 1,8 1,9 2,0 2,1 3,0 4,0 4,4 4,5
              5,0 6,0 6,5) decoded and range-checked (default feature bds-infer)
    adsb_deku first MB byte read as a BDS 1,0 / 2,0 header, otherwise raw bytes
Rates: single thread, M messages/s over all messages of the class (rejected
ones included), fastest and median of the passes; passes of the three parsers
interleaved. Wall clock, and on-CPU time (thread CPU clock: excludes time spent
waiting for a core on a loaded machine). \"× faster\" uses the on-CPU best.";

fn report(corpus: &Corpus, passes: usize) -> Result<(), String> {
    println!("{DEFINITION}\n");
    println!(
        "messages: {} DF17, {} DF20/21; {passes} timed passes after one warm-up\n",
        corpus.df17.len(),
        corpus.commb.len()
    );
    println!(
        "| class | parser | parsed OK | register named | M msg/s wall best | wall median | M msg/s on-CPU best | on-CPU median | ns/msg on-CPU best | airwaves × faster |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for class in Class::ALL {
        let messages = class.messages(corpus);
        let n = messages.len();
        let timings = time_class(messages, passes)?;
        // Ratios from the on-CPU best where the kernel gives it.
        let key = |t: &Timing| {
            Timing::rates(&t.cpu, n)
                .or(Timing::rates(&t.wall, n))
                .map_or(0.0, |r| r.0)
        };
        let ours = key(&timings[0]);
        for (parser, t) in Parser::ALL.iter().zip(&timings) {
            let named = if class == Class::Df17 {
                "–".to_string()
            } else {
                t.tally.named.to_string()
            };
            let (wall_best, wall_median) = Timing::rates(&t.wall, n).unwrap_or((0.0, 0.0));
            let cpu = match Timing::rates(&t.cpu, n) {
                Some((best, median)) => {
                    format!(
                        "{:.2} | {:.2} | {:.0}",
                        best / 1e6,
                        median / 1e6,
                        1e9 / best
                    )
                }
                None => "n/a | n/a | n/a".to_string(),
            };
            println!(
                "| {} | {} | {} | {named} | {:.2} | {:.2} | {cpu} | {:.1} |",
                class.title(),
                parser.name(),
                t.tally.ok,
                wall_best / 1e6,
                wall_median / 1e6,
                ours / key(t),
            );
        }
    }
    println!("\n\"register named\" (DF20/21):");
    for p in Parser::ALL {
        println!("  {:<9} {}", p.name(), p.names_register());
    }
    println!(
        "\nmessages where a crate's result differs from airwaves' (all {}):",
        corpus.all.len()
    );
    println!("| parser | accepted by one only | address | altitude | squawk | ground speed |");
    println!("|---|---:|---:|---:|---:|---:|");
    for p in &Parser::ALL[1..] {
        let d = differences(*p, &corpus.all);
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            p.name(),
            d[0],
            d[1],
            d[2],
            d[3],
            d[4]
        );
    }
    Ok(())
}

fn run(args: &[String]) -> Result<(), String> {
    let args = parse_args(args)?;
    let corpus = Corpus::load(&args.data).map_err(|e| e.to_string())?;
    match args.callgrind {
        Some((parser, class, passes)) => {
            let messages = class.messages(&corpus);
            let mut tally = Tally::default();
            for _ in 0..passes {
                tally = pass(parser.function(), messages);
            }
            println!(
                "{} {} passes={passes} messages={} ok={} named={} hash={:016x}",
                parser.name(),
                class.name(),
                messages.len(),
                tally.ok,
                tally.named,
                tally.hash
            );
            Ok(())
        }
        None => report(&corpus, args.passes),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parse_vs_crates: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;

    fn strings(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn test_parse_args() {
        let a = parse_args(&strings(&["--passes", "3", "--data", "/d"])).unwrap();
        assert_eq!(a.passes, 3);
        assert_eq!(a.data, PathBuf::from("/d"));
        assert_eq!(a.callgrind, None);
        let a = parse_args(&strings(&["--callgrind", "rs1090", "commb", "2"])).unwrap();
        assert_eq!(a.callgrind, Some((Parser::Rs1090, Class::CommB, 2)));
        assert!(parse_args(&strings(&["--passes", "0"])).is_err());
        assert!(parse_args(&strings(&["--passes"])).is_err());
        assert!(parse_args(&strings(&["--callgrind", "dump1090", "all", "1"])).is_err());
        assert!(parse_args(&strings(&["--callgrind", "airwaves", "df11", "1"])).is_err());
        assert!(parse_args(&strings(&["--fast"])).is_err());
    }

    #[test]
    fn test_rates() {
        assert_eq!(Timing::rates(&[], 10), None);
        assert_eq!(Timing::rates(&[0.5, 1.0, 2.0], 10), Some((20.0, 10.0)));
    }

    #[test]
    fn test_pass_tally() {
        let good = corpus::decode_hex("8D485020994409940838175B284F").unwrap();
        let mut bad = good;
        bad[13] ^= 1;
        let t = pass(parsers::parse_airwaves, &[good, bad, good]);
        assert_eq!(t.ok, 2);
        assert_eq!(t.named, 0);
        let once = pass(parsers::parse_airwaves, &[good]);
        assert_ne!(t.hash, once.hash);
        for p in Parser::ALL {
            assert_eq!(pass(p.function(), &[good, bad, good]), t, "{p:?}");
        }
    }
}
