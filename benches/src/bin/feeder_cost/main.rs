//! Cost of the whole feeder — demod, decode, tracker, every output, ten
//! network clients — at 2.4 MS/s from a file at real-time pace: CPU share of
//! one core and peak resident memory of `airwaves adsb` and of Debian's
//! `dump1090-mutability` on the same scene (issue 5: under 10 % of one core
//! and under 30 MiB for airwaves).
//!
//! ```text
//! cargo build --release -p airwaves -p airwaves-benches
//! target/release/feeder_cost [--seconds 20] [--clients 10] [--airwaves PATH]
//!     [--dump1090 PATH] [--workdir DIR] [--check]
//! ```
//!
//! Steps:
//!
//! 1. `airwaves scene --seconds S --seed 1 OUT.cu8 TRUTH.txt` writes a busy
//!    sky: 2.4 MS/s, about 1000 Mode S replies/s from 100 aircraft.
//! 2. Each feeder reads the file with `--throttle` (real-time pace) and
//!    every output on a free local port (found by binding port 0):
//!    `airwaves adsb --ifile OUT.cu8 --throttle --net … --http-port P4
//!    --lat 52.3 --lon 4.8 --quiet`, and `dump1090-mutability --ifile
//!    OUT.cu8 --iformat UC8 --throttle --net … --write-json DIR --quiet`
//!    (this Debian build has no HTTP server, so its JSON goes to a
//!    directory, written once a second like ours is served).
//! 3. `--clients N` (default 10) clients connect as soon as the ports
//!    listen, in turn Beast, SBS, AVR (4 Beast, 3 SBS, 3 AVR for 10), and
//!    read until the feeder closes the connection: Beast messages are
//!    counted by [`BeastCounter`], SBS `MSG,` lines and AVR `*…;`/`@…;`
//!    lines by [`LineCounter`]. For airwaves a poller also fetches
//!    `/data/aircraft.json` and `/metrics` once a second over HTTP/1.1.
//! 4. While the feeder runs, `/proc/PID/stat` (user + system ticks, all
//!    threads) and `/proc/PID/status` (`VmHWM`, `VmRSS`) are sampled every
//!    200 ms; the last good sample before exit gives the peak resident set.
//!    CPU time is this program's `cutime + cstime` (`/proc/self/stat`)
//!    gained across reaping the feeder, which counts to its very end, or
//!    the last sample if larger. Ticks are `USER_HZ` = 100 per second.
//!    CPU thus also counts any process the feeder starts and waits for;
//!    the resident set is the feeder process's alone.
//! 5. The table gives wall time, CPU seconds, CPU % of one core (CPU s /
//!    wall s), peak RSS, the frames the clients received, and the aircraft
//!    in the final `aircraft.json`; airwaves' figures carry the issue's
//!    targets and "(target met)" or "(over target)".
//! 6. With `--check`, exit non-zero if a feeder failed (bad exit status,
//!    hung, or could not start), if any airwaves client received no frames,
//!    if airwaves served no `aircraft.json`, or if its Beast clients
//!    received fewer messages than dump1090-mutability's. The CPU and
//!    memory targets are printed, never asserted: the machine is shared.

use std::fmt::Write as _;
use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

mod clients;
mod procfs;
use clients::*;
use procfs::*;

/// Clock ticks per second of `/proc/*/stat` times (`USER_HZ`, 100 on Linux).
const USER_HZ: f64 = 100.0;
/// Interval between `/proc` samples of the running feeder.
const SAMPLE_EVERY: Duration = Duration::from_millis(200);
/// Interval between checks whether the feeder has exited.
const EXIT_POLL: Duration = Duration::from_millis(20);
/// Interval between HTTP polls of airwaves' JSON and metrics.
const HTTP_EVERY: Duration = Duration::from_secs(1);
/// How long clients keep trying to connect after the feeder started.
const CONNECT_WITHIN: Duration = Duration::from_secs(10);
/// Read timeout of clients and HTTP requests (the stop flag is checked
/// between reads).
const READ_TIMEOUT: Duration = Duration::from_millis(500);
/// Issue 5's target: CPU share of one core, percent.
const CPU_TARGET_PERCENT: f64 = 10.0;
/// Issue 5's target: peak resident set, MiB.
const RSS_TARGET_MIB: f64 = 30.0;
/// Receiver position passed to both feeders, degrees (the scene's sky).
const LAT: &str = "52.3";
/// See [`LAT`].
const LON: &str = "4.8";

/// Ports of one feeder run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ports {
    /// AVR output.
    avr: u16,
    /// SBS output.
    sbs: u16,
    /// Beast output.
    beast: u16,
    /// HTTP (airwaves only).
    http: u16,
}

impl Ports {
    /// Four distinct free local ports: bound to port 0 together, then
    /// released for the feeder to take.
    fn free() -> Result<Self, String> {
        let bind = || {
            TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
                .and_then(|l| Ok((l.local_addr()?.port(), l)))
                .map_err(|e| format!("cannot find a free port: {e}"))
        };
        let (avr, _a) = bind()?;
        let (sbs, _s) = bind()?;
        let (beast, _b) = bind()?;
        let (http, _h) = bind()?;
        Ok(Self {
            avr,
            sbs,
            beast,
            http,
        })
    }

    /// Port of `p`.
    fn of(&self, p: Protocol) -> u16 {
        match p {
            Protocol::Beast => self.beast,
            Protocol::Sbs => self.sbs,
            Protocol::Avr => self.avr,
        }
    }
}

/// The two feeders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Feeder {
    /// `airwaves adsb`.
    Airwaves,
    /// Debian's `dump1090-mutability`.
    Dump1090,
}

impl Feeder {
    /// Name in the table.
    fn name(self) -> &'static str {
        match self {
            Self::Airwaves => "airwaves adsb",
            Self::Dump1090 => "dump1090-mutability",
        }
    }
}

/// The command line of `feeder` on `cu8`; dump1090-mutability writes its
/// JSON into `json_dir`.
fn feeder_command(
    o: &Options,
    feeder: Feeder,
    cu8: &Path,
    ports: &Ports,
    json_dir: &Path,
) -> Command {
    let port = |p: u16| p.to_string();
    let mut c;
    match feeder {
        Feeder::Airwaves => {
            c = Command::new(&o.airwaves);
            c.arg("adsb").arg("--ifile").arg(cu8).arg("--throttle");
        }
        Feeder::Dump1090 => {
            c = Command::new(&o.dump1090);
            c.arg("--ifile")
                .arg(cu8)
                .args(["--iformat", "UC8", "--throttle"]);
        }
    }
    c.args(["--net", "--net-bind-address", "127.0.0.1"])
        .args(["--net-ro-port", &port(ports.avr)])
        .args(["--net-sbs-port", &port(ports.sbs)])
        .args(["--net-bo-port", &port(ports.beast)])
        .args(["--net-bi-port", "0"])
        .args(["--lat", LAT, "--lon", LON]);
    match feeder {
        Feeder::Airwaves => {
            c.args(["--http-port", &port(ports.http)]);
        }
        Feeder::Dump1090 => {
            c.args(["--net-ri-port", "0"])
                .arg("--write-json")
                .arg(json_dir);
        }
    }
    c.arg("--quiet");
    c
}

/// Measured figures of one feeder run.
#[derive(Debug, Clone, PartialEq)]
struct Run {
    /// Wall time from start to exit, s.
    wall_s: f64,
    /// CPU time, s.
    cpu_s: f64,
    /// Peak resident set, MiB.
    peak_rss_mib: f64,
    /// Resident set at the last sample, MiB.
    last_rss_mib: f64,
    /// Per client, in connection order.
    clients: Vec<ClientResult>,
    /// Aircraft in the final `aircraft.json`.
    aircraft: Option<usize>,
    /// HTTP polls (airwaves only).
    http: Option<HttpResult>,
    /// Why the run failed, if it did (exit status, hang, missing output).
    failure: Option<String>,
}

impl Run {
    /// Frames the clients of `p` received, in total.
    fn frames(&self, p: Protocol) -> u64 {
        self.clients
            .iter()
            .filter(|c| c.protocol == p)
            .map(|c| c.frames)
            .sum()
    }

    /// Number of clients of `p`.
    fn clients_of(&self, p: Protocol) -> usize {
        self.clients.iter().filter(|c| c.protocol == p).count()
    }

    /// CPU share of one core, percent.
    fn cpu_percent(&self) -> f64 {
        100.0 * self.cpu_s / self.wall_s.max(1e-9)
    }
}

/// Last lines of a feeder's stderr file, for error messages.
fn stderr_tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(8)..].join("\n")
}

/// Run `feeder` on `cu8` with `o.clients` clients (and the HTTP poller for
/// airwaves) until it exits; `Err` if it cannot be started at all.
fn run_feeder(o: &Options, feeder: Feeder, cu8: &Path, seconds: f64) -> Result<Run, String> {
    let tag = match feeder {
        Feeder::Airwaves => "airwaves",
        Feeder::Dump1090 => "dump1090",
    };
    let json_dir = o.workdir.join(format!("{tag}-json"));
    let _ = std::fs::remove_dir_all(&json_dir);
    std::fs::create_dir_all(&json_dir).map_err(|e| format!("{}: {e}", json_dir.display()))?;
    let stderr_path = o.workdir.join(format!("{tag}.stderr"));
    let stderr = std::fs::File::create(&stderr_path)
        .map_err(|e| format!("{}: {e}", stderr_path.display()))?;
    let ports = Ports::free()?;
    let mut cmd = feeder_command(o, feeder, cu8, &ports, &json_dir);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(stderr));

    let ticks_before = children_ticks()?;
    let started = Instant::now();
    let mut child: Child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", cmd.get_program().to_string_lossy()))?;
    let pid = child.id();
    let stop = Arc::new(AtomicBool::new(false));
    let local = |port: u16| SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let clients: Vec<_> = (0..o.clients)
        .map(|i| {
            let p = client_protocol(i);
            spawn_client(local(ports.of(p)), p, stop.clone())
        })
        .collect();
    let poller =
        (feeder == Feeder::Airwaves).then(|| spawn_http_poller(local(ports.http), stop.clone()));

    // Real-time pace plus start-up, drain and a wide margin.
    let limit = Duration::from_secs_f64(2.0 * seconds + 30.0);
    let mut last: Option<ProcSample> = None;
    let mut next_sample = Instant::now();
    let mut failure = None;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(e) => {
                failure = Some(format!("wait: {e}"));
                break None;
            }
        }
        if started.elapsed() > limit {
            failure = Some(format!(
                "still running after {:.0} s: killed",
                limit.as_secs_f64()
            ));
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        if Instant::now() >= next_sample {
            if let Some(s) = sample(pid) {
                last = Some(s);
            }
            next_sample += SAMPLE_EVERY;
        }
        std::thread::sleep(EXIT_POLL);
    };
    let wall_s = started.elapsed().as_secs_f64();
    let ticks_after = children_ticks()?;
    stop.store(true, Ordering::Relaxed);
    let clients: Vec<ClientResult> = clients
        .into_iter()
        .map(|h| h.join().map_err(|_| "client thread panicked".to_string()))
        .collect::<Result<_, _>>()?;
    let http = match poller {
        Some(h) => Some(h.join().map_err(|_| "HTTP poller panicked".to_string())?),
        None => None,
    };

    if let Some(status) = status
        && !status.success()
    {
        failure = Some(format!("exited with {status}"));
    }
    if let Some(f) = &mut failure {
        let tail = stderr_tail(&stderr_path);
        if !tail.is_empty() {
            let _ = write!(f, "; stderr:\n{tail}");
        }
    }
    let waited = ticks_after.saturating_sub(ticks_before);
    let sampled = last.map_or(0, |s| s.cpu_ticks);
    let aircraft = match feeder {
        Feeder::Airwaves => http.as_ref().and_then(|h| h.aircraft),
        Feeder::Dump1090 => std::fs::read_to_string(json_dir.join("aircraft.json"))
            .ok()
            .and_then(|t| count_json_aircraft(&t)),
    };
    let mib = |kib: u64| kib as f64 / 1024.0;
    Ok(Run {
        wall_s,
        cpu_s: waited.max(sampled) as f64 / USER_HZ,
        peak_rss_mib: mib(last.map_or(0, |s| s.hwm_kib)),
        last_rss_mib: mib(last.map_or(0, |s| s.rss_kib)),
        clients,
        aircraft,
        http,
        failure,
    })
}

/// `value` with its target: "(target met)" or "(over target)".
fn against(value: f64, target: f64, unit: &str) -> String {
    let verdict = if value < target {
        "target met"
    } else {
        "over target"
    };
    format!("{value:.1} {unit} (< {target} {unit}: {verdict})")
}

/// The cost table: one row per feeder; `Err` rows read `n/a` with the
/// reason below the table.
fn table(rows: &[(Feeder, &Result<Run, String>)]) -> String {
    let mut s = String::from(
        "| feeder | wall s | CPU s | CPU % of one core | peak RSS MiB | Beast msgs | SBS lines | AVR lines | aircraft in JSON |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut notes = String::new();
    for (feeder, run) in rows {
        let name = feeder.name();
        match run {
            Ok(r) => {
                let (cpu, rss) = if *feeder == Feeder::Airwaves {
                    (
                        against(r.cpu_percent(), CPU_TARGET_PERCENT, "%"),
                        against(r.peak_rss_mib, RSS_TARGET_MIB, "MiB"),
                    )
                } else {
                    (
                        format!("{:.1} %", r.cpu_percent()),
                        format!("{:.1} MiB", r.peak_rss_mib),
                    )
                };
                let frames = |p: Protocol| format!("{} ({} clients)", r.frames(p), r.clients_of(p));
                let _ = writeln!(
                    s,
                    "| {name} | {:.1} | {:.2} | {cpu} | {rss} | {} | {} | {} | {} |",
                    r.wall_s,
                    r.cpu_s,
                    frames(Protocol::Beast),
                    frames(Protocol::Sbs),
                    frames(Protocol::Avr),
                    r.aircraft.map_or("-".to_string(), |n| n.to_string()),
                );
                let per: Vec<String> = r
                    .clients
                    .iter()
                    .map(|c| {
                        let p = match c.protocol {
                            Protocol::Beast => "beast",
                            Protocol::Sbs => "sbs",
                            Protocol::Avr => "avr",
                        };
                        if c.connected {
                            format!("{p} {} ({} B)", c.frames, c.bytes)
                        } else {
                            format!("{p} not connected")
                        }
                    })
                    .collect();
                let _ = writeln!(notes, "{name}: clients: {}", per.join(", "));
                let _ = writeln!(
                    notes,
                    "{name}: resident set at the last sample {:.1} MiB",
                    r.last_rss_mib
                );
                if let Some(h) = &r.http {
                    let _ = writeln!(
                        notes,
                        "{name}: HTTP /data/aircraft.json + /metrics: {} ok, {} failed{}",
                        h.ok,
                        h.failed,
                        h.last_error
                            .as_ref()
                            .map_or(String::new(), |e| format!(" (last: {e})"))
                    );
                }
                if let Some(f) = &r.failure {
                    let _ = writeln!(notes, "{name}: FAILED: {f}");
                }
            }
            Err(e) => {
                let _ = writeln!(
                    s,
                    "| {name} | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |"
                );
                let _ = writeln!(notes, "{name}: n/a: {e}");
            }
        }
    }
    s.push('\n');
    s.push_str(&notes);
    s
}

/// What `--check` requires (see the module docs); returns the misses.
fn verdict(airwaves: &Result<Run, String>, dump: &Result<Run, String>) -> Vec<String> {
    let mut misses = Vec::new();
    for (feeder, run) in [(Feeder::Airwaves, airwaves), (Feeder::Dump1090, dump)] {
        match run {
            Err(e) => misses.push(format!("{} did not run: {e}", feeder.name())),
            Ok(Run {
                failure: Some(f), ..
            }) => misses.push(format!("{} failed: {f}", feeder.name())),
            Ok(_) => {}
        }
    }
    if let Ok(a) = airwaves {
        for (i, c) in a.clients.iter().enumerate() {
            if c.frames == 0 {
                misses.push(format!(
                    "airwaves client {i} ({:?}) received no frames{}",
                    c.protocol,
                    if c.connected {
                        ""
                    } else {
                        " (never connected)"
                    }
                ));
            }
        }
        if a.aircraft.is_none() {
            misses.push("airwaves served no aircraft.json over HTTP".into());
        }
        if let Ok(d) = dump {
            let (ab, db) = (a.frames(Protocol::Beast), d.frames(Protocol::Beast));
            if ab < db {
                misses.push(format!(
                    "Beast messages to clients: airwaves {ab}, below dump1090-mutability's {db}"
                ));
            }
        }
    }
    misses
}

/// Command-line options.
#[derive(Debug, Clone)]
struct Options {
    /// Scene length, s.
    seconds: f64,
    /// The `airwaves` binary.
    airwaves: PathBuf,
    /// The `dump1090-mutability` binary (looked up in `PATH`).
    dump1090: String,
    /// Where the scene, JSON and logs go.
    workdir: PathBuf,
    /// Network clients per feeder.
    clients: usize,
    /// Fail unless the checks of [`verdict`] pass.
    check: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut o = Options {
            seconds: 20.0,
            airwaves: airwaves_benches::peers::release_airwaves(),
            dump1090: "dump1090-mutability".into(),
            workdir: std::env::temp_dir().join("airwaves-feeder-cost"),
            clients: 10,
            check: false,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "--check" {
                o.check = true;
                continue;
            }
            let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
            match a.as_str() {
                "--seconds" => {
                    o.seconds = v
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
                        .ok_or_else(|| {
                            format!("--seconds: not a number of seconds in (0, 3600]: {v}")
                        })?;
                }
                "--clients" => {
                    o.clients = v
                        .parse::<usize>()
                        .ok()
                        .filter(|n| (1..=1000).contains(n))
                        .ok_or_else(|| format!("--clients: not a count in 1..=1000: {v}"))?;
                }
                "--airwaves" => o.airwaves = v.into(),
                "--dump1090" => o.dump1090 = v.clone(),
                "--workdir" => o.workdir = v.into(),
                _ => return Err(format!("unknown option {a}")),
            }
        }
        Ok(o)
    }
}

/// Run `airwaves scene`; returns the number of Mode S replies in the truth.
fn make_scene(o: &Options, cu8: &Path, truth: &Path) -> Result<usize, String> {
    let out = Command::new(&o.airwaves)
        .arg("scene")
        .args(["--seconds", &o.seconds.to_string()])
        .args(["--seed", "1"])
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
            "airwaves scene failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = std::fs::read_to_string(truth).map_err(|e| format!("{}: {e}", truth.display()))?;
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty() && !l.contains("modeac"))
        .count())
}

/// `Err` with the reason when this `airwaves` binary has no `adsb`
/// command (it lands with issue 5).
fn airwaves_has_adsb(o: &Options) -> Result<(), String> {
    let out = Command::new(&o.airwaves)
        .args(["adsb", "--help"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", o.airwaves.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} has no `adsb` command yet: {}",
            o.airwaves.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ))
    }
}

fn run(o: &Options) -> Result<(), String> {
    std::fs::create_dir_all(&o.workdir).map_err(|e| format!("{}: {e}", o.workdir.display()))?;
    let cu8 = o.workdir.join("scene.cu8");
    let truth = o.workdir.join("scene.txt");
    let replies = make_scene(o, &cu8, &truth)?;
    println!(
        "scene: {} s at 2.4 MS/s, seed 1, {replies} Mode S replies ({:.0}/s), files in {}",
        o.seconds,
        replies as f64 / o.seconds,
        o.workdir.display()
    );
    println!(
        "each feeder: --throttle (real time), AVR + SBS + Beast outputs, {} clients, JSON once a second\n",
        o.clients
    );

    let airwaves =
        airwaves_has_adsb(o).and_then(|()| run_feeder(o, Feeder::Airwaves, &cu8, o.seconds));
    let dump = run_feeder(o, Feeder::Dump1090, &cu8, o.seconds)
        .map_err(|e| format!("{e} (apt-get install dump1090-mutability)"));
    print!(
        "{}",
        table(&[(Feeder::Airwaves, &airwaves), (Feeder::Dump1090, &dump)])
    );
    println!(
        "targets (issue 5) for airwaves: CPU under {CPU_TARGET_PERCENT} % of one core, peak RSS under {RSS_TARGET_MIB} MiB; printed, not checked (shared machine)"
    );

    if o.check {
        let misses = verdict(&airwaves, &dump);
        if !misses.is_empty() {
            return Err(format!("check failed:\n  {}", misses.join("\n  ")));
        }
        println!(
            "\ncheck passed: both feeders ran, every airwaves client received frames, airwaves served aircraft.json, and its Beast clients received at least as many messages as dump1090-mutability's"
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match Options::parse(&args).and_then(|o| run(&o)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("feeder_cost: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `/proc/PID/stat` line whose command name holds a space and a
    /// parenthesis: utime 250, stime 31, cutime 7, cstime 3.
    const STAT: &str = "4242 (dump1090 (m)) S 1 4242 4242 0 -1 4194560 1520 0 0 0 250 31 7 3 20 0 3 0 123456 52498432 2310 18446744073709551615 1 1 0 0 0 0 0 4096 17415 0 0 0 17 1 0 0 0 0 0\n";

    const STATUS: &str = "Name:\tairwaves\nUmask:\t0022\nState:\tS (sleeping)\nVmPeak:\t  120000 kB\nVmHWM:\t    9216 kB\nVmRSS:\t    8704 kB\nThreads:\t7\n";

    #[test]
    fn test_parse_proc_stat() {
        assert_eq!(stat_cpu_ticks(STAT), Some(281));
        assert_eq!(stat_children_ticks(STAT), Some(10));
        // Cut short before stime, no parenthesis, not a number.
        assert_eq!(stat_cpu_ticks("1 (x) S 1 1 1 0 -1 0 0 0 0 0 250"), None);
        assert_eq!(stat_cpu_ticks("1 x S"), None);
        assert_eq!(
            stat_cpu_ticks("1 (x) S 1 1 1 0 -1 0 0 0 0 0 ab 31 0 0"),
            None
        );
    }

    #[test]
    fn test_parse_proc_status() {
        assert_eq!(status_kib(STATUS, "VmHWM"), Some(9216));
        assert_eq!(status_kib(STATUS, "VmRSS"), Some(8704));
        // VmPeak is not VmHWM; a zombie has neither.
        assert_eq!(status_kib("Name:\tx\nState:\tZ (zombie)\n", "VmHWM"), None);
        assert_eq!(status_kib("VmHWMx:\t5 kB\n", "VmHWM"), None);
        assert_eq!(status_kib("VmHWM:\t5 MB\n", "VmHWM"), None);
    }

    #[test]
    fn test_sample_self() {
        let s = sample(std::process::id()).expect("/proc/self readable on Linux");
        assert!(s.hwm_kib >= s.rss_kib && s.rss_kib > 0, "{s:?}");
        assert!(children_ticks().is_ok());
    }

    /// Two Mode S messages (short with an escaped 0x1A in its timestamp,
    /// long with one in its message), a status message of type '4', a
    /// Mode A/C message and a long message cut short by the next one.
    fn beast_stream() -> Vec<u8> {
        let mut v = vec![0x1A, b'2', 0, 0, 0x1A, 0x1A, 0, 0, 1, 0x80];
        v.extend_from_slice(&[0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5]);
        v.extend_from_slice(&[0x1A, b'3', 0, 0, 0, 0, 0, 2, 0x40]);
        v.extend_from_slice(&[
            0x8D, 0x48, 0x40, 0xD6, 0x20, 0x2C, 0x1A, 0x1A, 0x71, 0xC3, 0x2C, 0xE0, 0x57, 0x60,
            0x98,
        ]);
        v.extend_from_slice(&[0x1A, b'4', 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]);
        v.extend_from_slice(&[0x1A, b'1', 0, 0, 0, 0, 0, 3, 0x20, 0x12, 0x34]);
        v.extend_from_slice(&[0x1A, b'3', 0, 0, 0, 0, 0, 4, 0x40, 0x8D, 0x48]);
        v.extend_from_slice(&[0x1A, b'2', 0, 0, 0, 0, 0, 5, 0x50]);
        v.extend_from_slice(&[0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5]);
        v
    }

    #[test]
    fn test_beast_counting() {
        let stream = beast_stream();
        let mut whole = BeastCounter::default();
        whole.feed(&stream);
        assert_eq!(
            (whole.mode_s, whole.mode_ac, whole.other),
            (3, 1, 2),
            "{whole:?}"
        );
        assert_eq!(whole.state, BeastState::Hunt);
        // Split at every position, and fed a byte at a time: same counts.
        for cut in 0..=stream.len() {
            let mut c = BeastCounter::default();
            c.feed(&stream[..cut]);
            c.feed(&stream[cut..]);
            assert_eq!(c, whole, "cut at {cut}");
        }
        let mut c = BeastCounter::default();
        for b in &stream {
            c.feed(std::slice::from_ref(b));
        }
        assert_eq!(c, whole);
        // A message not yet complete is not counted.
        let mut c = BeastCounter::default();
        c.feed(&stream[..stream.len() - 1]);
        assert_eq!(c.mode_s, 2);
        // Leading garbage before the first 0x1A is skipped.
        let mut c = BeastCounter::default();
        c.feed(&[0x33, 0x32, 0x00]);
        c.feed(&stream);
        assert_eq!(c, whole);
    }

    #[test]
    fn test_line_counting() {
        let avr = b"*8D4840D6202CC371C32CE0576098;\r\n@0000000001F45D484FDEA248F5;\n\nCRC: 000000\n*5D484F";
        let sbs = b"MSG,3,1,1,4840D6,1,2026/12/03,14:58:51.000,2026/12/03,14:58:51.000,,38000,,,52.2572,3.9193,,,0,0,0,0\nSTA,,5,179,400AE7\nMSG,8,1,1,4840D6,1,,,,,,,,,,,,,,,,\n";
        for cut in 0..=avr.len() {
            let mut c = FrameCounter::new(Protocol::Avr);
            c.feed(&avr[..cut]);
            c.feed(&avr[cut..]);
            assert_eq!(c.frames(), 2, "cut at {cut}");
            let FrameCounter::Lines(l) = c else {
                panic!("AVR counts lines")
            };
            assert_eq!(l.other, 2);
        }
        for cut in 0..=sbs.len() {
            let mut c = FrameCounter::new(Protocol::Sbs);
            c.feed(&sbs[..cut]);
            c.feed(&sbs[cut..]);
            assert_eq!(c.frames(), 2, "cut at {cut}");
        }
        // Beast bytes are not lines.
        let mut c = FrameCounter::new(Protocol::Sbs);
        c.feed(&beast_stream());
        assert_eq!(c.frames(), 0);
    }

    #[test]
    fn test_client_protocols() {
        let p: Vec<Protocol> = (0..10).map(client_protocol).collect();
        let n = |x: Protocol| p.iter().filter(|&&q| q == x).count();
        assert_eq!(
            (n(Protocol::Beast), n(Protocol::Sbs), n(Protocol::Avr)),
            (4, 3, 3)
        );
    }

    #[test]
    fn test_count_json_aircraft() {
        let dump = r#"{ "now" : 1796309940.1,
  "messages" : 481,
  "aircraft" : [
    {"hex":"7cddb3","flight":"EJU7517 ","altitude":33075,"mlat":[],"tisb":[],"messages":2},
    {"hex":"a03a54","squawk":"0542","mlat":[],"tisb":[],"messages":2,"seen":0.5}
  ]
}"#;
        assert_eq!(count_json_aircraft(dump), Some(2));
        let ours = r#"{"now":1.0,"aircraft":[{"hex":"abc","flight":"A{B]\"}C"},{"hex":"def","nav_modes":["vnav"]},{"hex":"123"}],"messages":3}"#;
        assert_eq!(count_json_aircraft(ours), Some(3));
        assert_eq!(count_json_aircraft(r#"{"aircraft":[]}"#), Some(0));
        assert_eq!(count_json_aircraft(r#"{"aircraft":[{"hex":"1"}"#), None);
        assert_eq!(count_json_aircraft(r#"{"planes":[]}"#), None);
        assert_eq!(count_json_aircraft(r#"{"aircraft":3}"#), None);
    }

    #[test]
    fn test_parse_http_response() {
        let r = parse_http_response(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 4\r\n\r\nabcdEXTRA",
        );
        assert_eq!(r, Ok((200, b"abcd".to_vec())));
        let r = parse_http_response(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\na;x=1\r\npedia in\r\n\r\n0\r\n\r\n",
        );
        assert_eq!(r, Ok((200, b"Wikipedia in\r\n".to_vec())));
        assert_eq!(
            parse_http_response(b"HTTP/1.0 404 Not Found\r\n\r\nnope"),
            Ok((404, b"nope".to_vec()))
        );
        assert!(parse_http_response(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc").is_err());
        assert!(parse_http_response(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n").is_err());
        assert!(parse_http_response(b"SSH-2.0-x\r\n\r\n").is_err());
        assert!(
            parse_http_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nab")
                .is_err()
        );
    }

    #[test]
    fn test_http_get_and_client_on_local_server() {
        // A one-shot HTTP server and a Beast server on loopback.
        let http = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let http_addr = http.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let (mut s, _) = http.accept().unwrap();
            let mut req = Vec::new();
            let mut buf = [0u8; 256];
            while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = s.read(&mut buf).unwrap();
                req.extend_from_slice(&buf[..n]);
            }
            let body = br#"{"aircraft":[{"hex":"abc"}]}"#;
            write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )
            .unwrap();
            s.write_all(body).unwrap();
            String::from_utf8(req).unwrap()
        });
        let body = http_get(http_addr, "/data/aircraft.json").unwrap();
        let req = server.join().unwrap();
        assert!(
            req.starts_with("GET /data/aircraft.json HTTP/1.1\r\n"),
            "{req}"
        );
        assert!(req.contains("Connection: close\r\n"), "{req}");
        assert_eq!(
            count_json_aircraft(std::str::from_utf8(&body).unwrap()),
            Some(1)
        );

        let beast = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let beast_addr = beast.local_addr().unwrap();
        let client = spawn_client(
            beast_addr,
            Protocol::Beast,
            Arc::new(AtomicBool::new(false)),
        );
        let (mut s, _) = beast.accept().unwrap();
        let stream = beast_stream();
        for piece in stream.chunks(5) {
            s.write_all(piece).unwrap();
        }
        drop(s);
        let r = client.join().unwrap();
        assert_eq!(
            r,
            ClientResult {
                protocol: Protocol::Beast,
                connected: true,
                bytes: stream.len() as u64,
                frames: 3
            }
        );
    }

    fn run_with(clients: &[(Protocol, u64)], failure: Option<&str>) -> Run {
        Run {
            wall_s: 20.0,
            cpu_s: 1.5,
            peak_rss_mib: 12.25,
            last_rss_mib: 11.0,
            clients: clients
                .iter()
                .map(|&(protocol, frames)| ClientResult {
                    protocol,
                    connected: frames > 0,
                    bytes: frames * 20,
                    frames,
                })
                .collect(),
            aircraft: Some(97),
            http: None,
            failure: failure.map(str::to_string),
        }
    }

    #[test]
    fn test_table_and_verdict() {
        use Protocol::*;
        let aw = Ok(run_with(
            &[(Beast, 900), (Sbs, 500), (Avr, 900), (Beast, 900)],
            None,
        ));
        let dump = Ok(run_with(
            &[(Beast, 400), (Sbs, 300), (Avr, 400), (Beast, 400)],
            None,
        ));
        let s = table(&[(Feeder::Airwaves, &aw), (Feeder::Dump1090, &dump)]);
        assert!(
            s.contains("| airwaves adsb | 20.0 | 1.50 | 7.5 % (< 10 %: target met) | 12.2 MiB (< 30 MiB: target met) | 1800 (2 clients) | 500 (1 clients) | 900 (1 clients) | 97 |"),
            "{s}"
        );
        assert!(
            s.contains(
                "| dump1090-mutability | 20.0 | 1.50 | 7.5 % | 12.2 MiB | 800 (2 clients) |"
            ),
            "{s}"
        );
        assert!(
            s.contains("airwaves adsb: clients: beast 900 (18000 B), sbs 500"),
            "{s}"
        );
        assert!(verdict(&aw, &dump).is_empty());
        assert_eq!(
            against(31.0, 30.0, "MiB"),
            "31.0 MiB (< 30 MiB: over target)"
        );

        // Fewer Beast messages than dump1090, a silent client, no JSON.
        let mut weak = run_with(&[(Beast, 300), (Sbs, 0), (Avr, 900), (Beast, 300)], None);
        weak.aircraft = None;
        let m = verdict(&Ok(weak), &dump);
        assert_eq!(m.len(), 3, "{m:?}");
        assert!(m[0].contains("client 1 (Sbs) received no frames (never connected)"));
        // A failed or missing feeder.
        let failed = Ok(run_with(
            &[(Beast, 900)],
            Some("exited with exit status: 1"),
        ));
        assert_eq!(verdict(&aw, &failed).len(), 1);
        let missing: Result<Run, String> = Err("no adsb command".into());
        let m = verdict(&missing, &dump);
        assert_eq!(m, ["airwaves adsb did not run: no adsb command"]);
        let s = table(&[(Feeder::Airwaves, &missing)]);
        assert!(s.contains("| airwaves adsb | n/a | n/a |"), "{s}");
        assert!(s.contains("airwaves adsb: n/a: no adsb command"), "{s}");
    }

    #[test]
    fn test_feeder_commands() {
        let o = Options::parse(&[]).unwrap();
        let ports = Ports {
            avr: 1,
            sbs: 2,
            beast: 3,
            http: 4,
        };
        let args = |f| {
            let c = feeder_command(&o, f, Path::new("s.cu8"), &ports, Path::new("j"));
            c.get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            args(Feeder::Airwaves),
            "adsb --ifile s.cu8 --throttle --net --net-bind-address 127.0.0.1 --net-ro-port 1 --net-sbs-port 2 --net-bo-port 3 --net-bi-port 0 --lat 52.3 --lon 4.8 --http-port 4 --quiet"
        );
        assert_eq!(
            args(Feeder::Dump1090),
            "--ifile s.cu8 --iformat UC8 --throttle --net --net-bind-address 127.0.0.1 --net-ro-port 1 --net-sbs-port 2 --net-bo-port 3 --net-bi-port 0 --lat 52.3 --lon 4.8 --net-ri-port 0 --write-json j --quiet"
        );
        let p = Ports::free().unwrap();
        let all = [p.avr, p.sbs, p.beast, p.http];
        assert!(all.iter().all(|&x| x != 0));
        assert!((1..4).all(|i| !all[..i].contains(&all[i])), "{all:?}");
    }

    #[test]
    fn test_options() {
        let args: Vec<String> = [
            "--seconds",
            "8",
            "--clients",
            "4",
            "--check",
            "--dump1090",
            "/x/d",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let o = Options::parse(&args).unwrap();
        assert_eq!((o.seconds, o.clients, o.check), (8.0, 4, true));
        assert_eq!(o.dump1090, "/x/d");
        let o = Options::parse(&[]).unwrap();
        assert_eq!((o.seconds, o.clients, o.check), (20.0, 10, false));
        assert!(o.airwaves.ends_with("release/airwaves"));
        let bad = |a: &[&str]| {
            Options::parse(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>()).is_err()
        };
        assert!(bad(&["--bogus", "1"]));
        assert!(bad(&["--seconds"]));
        assert!(bad(&["--seconds", "-1"]));
        assert!(bad(&["--seconds", "NaN"]));
        assert!(bad(&["--clients", "0"]));
        assert!(bad(&["--clients", "many"]));
    }
}
