//! `firmware-check`: checks what the firmware printed under QEMU against
//! the host.
//!
//! ```text
//! firmware-check --data OUT_DIR --log firmware.log [--airwaves path/to/airwaves]
//! ```
//!
//! `OUT_DIR` is the firmware build script's output (the generated I/Q and
//! truth lists). Checks, each printed as `ok` or `FAIL`:
//!
//! - the run completed (`done ok`) and the instruction calibration is
//!   40 ± 0.5 instructions per timer tick;
//! - per Mode S scene (2.4 and 2.0 MS/s): the frames the firmware printed
//!   (AVR with 12 MHz timestamp, ICAO, repaired bits) are exactly those
//!   that airwaves-core decodes on the host from the same file, configured
//!   as `airwaves decode` is, and, with `--airwaves`, exactly the CLI's
//!   `avr-ts` output; every reply the truth list marks `required` was
//!   decoded (same bytes, timestamp within one sample), and no frame was
//!   decoded that was not transmitted;
//! - UAT: the downlink messages the firmware printed (raw line, corrected
//!   bytes, first sync sample) are exactly those of airwaves-core's
//!   downlink demodulator on the host from the same file, and, with
//!   `--airwaves`, the same messages (bytes and corrections) as `airwaves
//!   uat --ifile`; every message of the truth list was decoded with its
//!   bytes, within two samples of where it was sent, and nothing else;
//! - per FM chain (Q15, `f32`): the firmware's audio checksum equals the
//!   host's for the same chain on the same input, and the tone's SNR is at
//!   least [`MIN_TONE_SNR_DB`].
//!
//! Exit status 0 only if every check passed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use airwaves_core::fm::mono_q15::{CHANNEL_CUTOFF_HZ, MonoReceiverQ15, MonoReceiverQ15State};
use airwaves_core::fm::wbfm::{FrontEnd, FrontEndState, MonoDecoder, MonoDecoderState};
use airwaves_core::modes::demod::{AddressFilter, DemodState, Demodulator};
use airwaves_core::modes::encode::{AVR_MAX_LEN, Timestamp, encode_avr};
use airwaves_core::modes::tracker::{ReceivedFrame, Tracker, TrackerConfig};
use airwaves_core::uat::demod::{Demodulator as UatDemodulator, DownlinkState, Link};

/// Lowest tone SNR accepted from either FM chain, dB (both measure about
/// 65 dB on this recording: CNR 30 dB with a +6 dB adjacent station).
const MIN_TONE_SNR_DB: f64 = 55.0;
/// Accepted instructions per timer tick.
const CALIBRATION: (f64, f64) = (39.8, 40.2);
/// Address filter capacity of `airwaves decode` (host/src/decode.rs).
const FILTER: usize = 1024;
/// The firmware's aircraft table capacity (firmware/src/modes.rs).
const AIRCRAFT: usize = 32;
/// Largest accepted distance of a decoded position from the transmitted
/// one, degrees (CPR resolution is about 5 m ≈ 0.00005°).
const POSITION_TOLERANCE_DEG: f64 = 0.001;

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("firmware-check: {e}");
            eprintln!("usage: firmware-check --data OUT_DIR --log FILE [--airwaves BIN]");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(report) => {
            println!(
                "firmware-check: {} passed, {} failed",
                report.passed, report.failed
            );
            if report.failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("firmware-check: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Command-line arguments.
struct Args {
    data: PathBuf,
    log: PathBuf,
    airwaves: Option<PathBuf>,
}

impl Args {
    fn parse(mut it: impl Iterator<Item = String>) -> Result<Self, String> {
        let (mut data, mut log, mut airwaves) = (None, None, None);
        while let Some(a) = it.next() {
            let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
            match a.as_str() {
                "--data" => data = Some(PathBuf::from(value()?)),
                "--log" => log = Some(PathBuf::from(value()?)),
                "--airwaves" => airwaves = Some(PathBuf::from(value()?)),
                _ => return Err(format!("unknown argument {a:?}")),
            }
        }
        Ok(Self {
            data: data.ok_or("--data is required")?,
            log: log.ok_or("--log is required")?,
            airwaves,
        })
    }
}

/// Pass/fail counts.
#[derive(Default)]
struct Report {
    passed: u32,
    failed: u32,
}

impl Report {
    fn check(&mut self, ok: bool, what: &str) {
        if ok {
            self.passed += 1;
            println!("ok   {what}");
        } else {
            self.failed += 1;
            println!("FAIL {what}");
        }
    }
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn run(args: &Args) -> Result<Report, String> {
    let log = String::from_utf8(read(&args.log)?).map_err(|_| "log is not UTF-8")?;
    let log = Log::parse(&log);
    let mut r = Report::default();
    r.check(log.done_ok, "firmware ran every stage (`done ok`)");
    r.check(
        log.calibration
            .is_some_and(|c| (CALIBRATION.0..=CALIBRATION.1).contains(&c)),
        &format!(
            "calibration: {} instructions per timer tick, expected 40 (-icount shift=0, 25 MHz timer)",
            log.calibration
                .map_or("missing".into(), |c| format!("{c:.3}"))
        ),
    );
    for (rate, name) in [(2_400_000u32, "modes_2400k"), (2_000_000, "modes_2000k")] {
        let iq = read(&args.data.join(format!("{name}.cu8")))?;
        let truth = String::from_utf8(read(&args.data.join(format!("{name}.truth")))?)
            .map_err(|_| "truth list is not UTF-8")?;
        let firmware = log.frames.get(&rate).cloned().unwrap_or_default();
        let (host, host_aircraft) = decode_host(rate, &iq)?;
        r.check(
            firmware == host,
            &format!(
                "{rate} S/s: firmware frames ({}) identical to airwaves-core on the host ({})",
                firmware.len(),
                host.len()
            ),
        );
        if firmware != host {
            print_diff(&firmware, &host);
        }
        if let Some(bin) = &args.airwaves {
            let cli = decode_cli(bin, rate, &args.data.join(format!("{name}.cu8")))?;
            let fw: Vec<&str> = firmware.iter().map(|f| f.avr.as_str()).collect();
            r.check(
                fw == cli.iter().map(String::as_str).collect::<Vec<_>>(),
                &format!(
                    "{rate} S/s: firmware frames identical to `airwaves decode --format avr-ts` ({})",
                    cli.len()
                ),
            );
        }
        check_truth(&mut r, rate, &truth, &firmware)?;
        let fw_aircraft = log.aircraft.get(&rate).cloned().unwrap_or_default();
        r.check(
            fw_aircraft == host_aircraft,
            &format!(
                "{rate} S/s: firmware aircraft table ({}) identical to the core's tracker on the host ({})",
                fw_aircraft.len(),
                host_aircraft.len()
            ),
        );
        let sent = String::from_utf8(read(&args.data.join("aircraft.truth"))?)
            .map_err(|_| "aircraft truth is not UTF-8")?;
        check_aircraft(&mut r, rate, &sent, &fw_aircraft)?;
    }
    check_uat(&mut r, args, &log.uat)?;
    let params = String::from_utf8(read(&args.data.join("params.rs"))?)
        .map_err(|_| "params.rs is not UTF-8")?;
    let offset_hz = param(&params, "FM_OFFSET_HZ")?;
    let tau = param(&params, "FM_TAU")?;
    let fm = read(&args.data.join("fm_2400k.cu8"))?;
    let (pairs, _) = fm.as_chunks::<2>();
    let chains = [
        ("fm_q15", fm_q15(pairs, offset_hz, tau)?),
        ("fm_f32", fm_f32(pairs, offset_hz, tau)?),
    ];
    for (chain, host) in chains {
        let fw = log.fm.get(chain);
        r.check(
            fw.is_some_and(|f| f.checksum == host),
            &format!(
                "{chain}: firmware audio checksum {} equals the host's {host:016x}",
                fw.map_or("missing".into(), |f| format!("{:016x}", f.checksum))
            ),
        );
        r.check(
            fw.is_some_and(|f| f.snr_db >= MIN_TONE_SNR_DB),
            &format!(
                "{chain}: tone SNR {} dB ≥ {MIN_TONE_SNR_DB} dB",
                fw.map_or("missing".into(), |f| format!("{:.1}", f.snr_db))
            ),
        );
    }
    Ok(r)
}

/// One frame as the firmware prints it and the host re-creates it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Frame {
    /// `@TTTTTTTTTTTTHEX;`: 12 MHz timestamp and bytes.
    avr: String,
    icao: u32,
    repaired: u8,
}

impl Frame {
    /// The timestamp and the hex digits of the frame.
    fn split(&self) -> Option<(u64, &str)> {
        let s = self.avr.strip_prefix('@')?.strip_suffix(';')?;
        let (ts, hex) = s.split_at_checked(12)?;
        Some((u64::from_str_radix(ts, 16).ok()?, hex))
    }
}

/// One FM chain's summary line.
struct FmLine {
    checksum: u64,
    snr_db: f64,
}

/// What the firmware printed.
#[derive(Default)]
struct Log {
    done_ok: bool,
    calibration: Option<f64>,
    frames: HashMap<u32, Vec<Frame>>,
    /// `aircraft …` lines per rate, from `aircraft` on.
    aircraft: HashMap<u32, Vec<String>>,
    fm: HashMap<String, FmLine>,
    /// `uat … frame` lines: the raw line and the first sync sample.
    uat: Vec<(String, u64)>,
}

impl Log {
    fn parse(text: &str) -> Self {
        let mut log = Log::default();
        for line in text.lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            let field = |key: &str| {
                w.iter()
                    .position(|&x| x == key)
                    .and_then(|i| w.get(i + 1).copied())
            };
            match w.as_slice() {
                ["done", "ok"] => log.done_ok = true,
                ["calibration", ..] => {
                    log.calibration = field("instructions_per_tick").and_then(|v| v.parse().ok());
                }
                ["modes", rate, "frame", avr, ..] => {
                    let (Ok(rate), Some(icao), Some(repaired)) = (
                        rate.parse::<u32>(),
                        field("icao").and_then(|v| u32::from_str_radix(v, 16).ok()),
                        field("repaired").and_then(|v| v.parse().ok()),
                    ) else {
                        continue;
                    };
                    log.frames.entry(rate).or_default().push(Frame {
                        avr: (*avr).to_string(),
                        icao,
                        repaired,
                    });
                }
                ["modes", rate, "aircraft", ..] => {
                    if let (Ok(rate), Some(i)) = (rate.parse::<u32>(), line.find("aircraft")) {
                        log.aircraft
                            .entry(rate)
                            .or_default()
                            .push(line[i..].trim_end().to_string());
                    }
                }
                ["uat", _, "frame", raw, "sample", sample, ..] => {
                    if let Ok(sample) = sample.parse() {
                        log.uat.push(((*raw).to_string(), sample));
                    }
                }
                [chain, "done", ..] if chain.starts_with("fm_") => {
                    let checksum = field("fnv1a64").and_then(|v| u64::from_str_radix(v, 16).ok());
                    let snr = field("tone_snr_db").and_then(|v| v.parse().ok());
                    if let (Some(checksum), Some(snr_db)) = (checksum, snr) {
                        log.fm
                            .insert((*chain).to_string(), FmLine { checksum, snr_db });
                    }
                }
                _ => {}
            }
        }
        log
    }
}

/// Decode `iq` at `rate` with airwaves-core on the host, as `airwaves
/// decode` does (default demodulator, 1024-address filter, 256 KiB reads),
/// and give each frame to an aircraft tracker as the firmware does.
fn decode_host(rate: u32, iq: &[u8]) -> Result<(Vec<Frame>, Vec<String>), String> {
    let demod = Demodulator::new(rate).map_err(|e| e.to_string())?;
    let mut state = DemodState::new();
    let mut filter = AddressFilter::<FILTER>::new(AddressFilter::<FILTER>::DEFAULT_TTL);
    let mut tracker = Tracker::<AIRCRAFT>::new(TrackerConfig::DEFAULT);
    let mut frames = Vec::new();
    let mut sink = |f: &airwaves_core::modes::demod::DemodFrame| {
        let t_ms = f.timestamp.get() / 12_000;
        let rx = ReceivedFrame::new(f.bytes(), t_ms)
            .with_signal(f.signal_dbfs)
            .with_repaired_bits(f.repaired_bits);
        let _ = tracker.update(&rx);
        let mut avr = [0u8; AVR_MAX_LEN];
        let n = encode_avr(
            &mut avr,
            f.bytes(),
            Some(Timestamp::from_ticks(f.timestamp.get())),
        )
        .unwrap_or(0);
        frames.push(Frame {
            avr: String::from_utf8_lossy(&avr[..n]).trim_end().to_string(),
            icao: f.address,
            repaired: f.repaired_bits,
        });
    };
    for block in iq.chunks(256 * 1024) {
        demod.process(&mut state, &mut filter, block, &mut sink);
    }
    demod.finish(&mut state, &mut filter, &mut sink);
    Ok((frames, aircraft_lines(&tracker)))
}

/// The tracker's table as the firmware prints it:
/// `aircraft ICAO callsign CS altitude_ft ALT position LAT,LON`.
fn aircraft_lines(tracker: &Tracker<AIRCRAFT>) -> Vec<String> {
    tracker
        .iter()
        .map(|a| {
            format!(
                "aircraft {:06X} callsign {} altitude_ft {} position {}",
                a.address(),
                a.callsign().unwrap_or("-"),
                a.altitude_baro_ft().map_or("-".into(), |v| v.to_string()),
                a.position().map_or("-".into(), |p| format!(
                    "{:.5},{:.5}",
                    p.position.lat, p.position.lon
                ))
            )
        })
        .collect()
}

/// Every decoded aircraft field equals what `aircraft.truth` says was
/// sent (position within [`POSITION_TOLERANCE_DEG`]), and the strongest
/// aircraft (first line) has its callsign and position decoded.
fn check_aircraft(r: &mut Report, rate: u32, sent: &str, table: &[String]) -> Result<(), String> {
    let mut truth = HashMap::new();
    let mut first = None;
    for line in sent.lines().filter(|l| !l.starts_with('#')) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let [icao, cs, alt, lat, lon] = w.as_slice() else {
            return Err(format!("bad aircraft truth line {line:?}"));
        };
        let num = |v: &str| {
            v.parse::<f64>()
                .map_err(|_| format!("bad number in {line:?}"))
        };
        first.get_or_insert(icao.to_string());
        truth.insert(
            icao.to_string(),
            (cs.to_string(), num(alt)?, num(lat)?, num(lon)?),
        );
    }
    let mut wrong = Vec::new();
    let mut strongest_complete = false;
    for line in table {
        let w: Vec<&str> = line.split_whitespace().collect();
        let [_, icao, _, cs, _, alt, _, pos] = w.as_slice() else {
            wrong.push(line.clone());
            continue;
        };
        let Some((t_cs, t_alt, t_lat, t_lon)) = truth.get(*icao) else {
            wrong.push(line.clone());
            continue;
        };
        let cs_ok = *cs == "-" || cs == t_cs;
        let alt_ok = *alt == "-" || alt.parse::<f64>().ok() == Some(*t_alt);
        let pos_ok = *pos == "-"
            || pos.split_once(',').is_some_and(|(lat, lon)| {
                let near = |v: &str, t: f64| {
                    v.parse::<f64>()
                        .is_ok_and(|v| (v - t).abs() <= POSITION_TOLERANCE_DEG)
                };
                near(lat, *t_lat) && near(lon, *t_lon)
            });
        if !(cs_ok && alt_ok && pos_ok) {
            wrong.push(line.clone());
        }
        if first.as_deref() == Some(*icao) {
            strongest_complete = *cs != "-" && *pos != "-";
        }
    }
    r.check(
        wrong.is_empty() && strongest_complete,
        &format!(
            "{rate} S/s: decoded callsigns, altitudes and positions match what was sent ({} wrong; strongest aircraft complete: {strongest_complete})",
            wrong.len()
        ),
    );
    for l in wrong {
        println!("     wrong {l}");
    }
    Ok(())
}

/// `airwaves decode --rate RATE --format avr-ts FILE`, one line per frame.
fn decode_cli(bin: &Path, rate: u32, file: &Path) -> Result<Vec<String>, String> {
    let out = Command::new(bin)
        .args(["decode", "--rate", &rate.to_string(), "--format", "avr-ts"])
        .arg(file)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} decode failed: {}",
            bin.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect())
}

/// The UAT checks (see the module docs).
fn check_uat(r: &mut Report, args: &Args, firmware: &[(String, u64)]) -> Result<(), String> {
    let file = args.data.join("uat_2083k.cu8");
    let iq = read(&file)?;
    // The firmware's demodulator, state and block size, on the host.
    let demod = UatDemodulator::new();
    let mut st = DownlinkState::new();
    let mut host = Vec::new();
    let mut keep = |m: &airwaves_core::uat::demod::Message| {
        if m.link == Link::Downlink {
            host.push((uat_raw(m.bytes(), m.errors), m.sample));
        }
    };
    for block in iq.chunks(8 * 1024) {
        demod.process(&mut st, block, &mut keep);
    }
    demod.finish(&mut st, &mut keep);
    r.check(
        firmware == host,
        &format!(
            "UAT: firmware messages ({}) identical to airwaves-core's downlink demodulator on the host ({})",
            firmware.len(),
            host.len()
        ),
    );
    if firmware != host {
        for i in 0..firmware.len().max(host.len()) {
            println!(
                "     #{i}: firmware {:?}\n     #{i}: host     {:?}",
                firmware.get(i),
                host.get(i)
            );
        }
    }
    if let Some(bin) = &args.airwaves {
        let out = Command::new(bin)
            .args(["uat", "--ifile"])
            .arg(&file)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        // `-hex;` then `rs=N;` only when N > 0: the same bytes and count.
        let cli: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| {
                let mut f = l.split(';');
                let hex = f.next().unwrap_or("");
                let rs = f.find_map(|x| x.strip_prefix("rs=")).unwrap_or("0");
                format!("{hex};rs={rs};")
            })
            .collect();
        let fw: Vec<&str> = firmware.iter().map(|(l, _)| l.as_str()).collect();
        r.check(
            out.status.success() && fw == cli.iter().map(String::as_str).collect::<Vec<_>>(),
            &format!(
                "UAT: firmware messages identical to `airwaves uat --ifile` ({})",
                cli.len()
            ),
        );
    }
    let truth = String::from_utf8(read(&args.data.join("uat.truth"))?)
        .map_err(|_| "UAT truth is not UTF-8")?;
    let mut sent = Vec::new();
    for line in truth
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let w: Vec<&str> = line.split_whitespace().collect();
        let (Some(start), Some(hex)) = (w.first().and_then(|v| v.parse::<f64>().ok()), w.get(1))
        else {
            return Err(format!("bad UAT truth line {line:?}"));
        };
        sent.push((start, (*hex).to_string()));
    }
    let found = |start: f64, hex: &str| {
        firmware.iter().any(|(l, s)| {
            l.strip_prefix('-').and_then(|l| l.split(';').next()) == Some(hex)
                && (*s as f64 - start).abs() <= 2.0
        })
    };
    let missed: Vec<&String> = sent
        .iter()
        .filter(|(t, h)| !found(*t, h))
        .map(|(_, h)| h)
        .collect();
    r.check(
        missed.is_empty(),
        &format!(
            "UAT: all {} messages sent were decoded (missed: {missed:?})",
            sent.len()
        ),
    );
    let extra = firmware
        .iter()
        .filter(|(l, _)| {
            let hex = l.strip_prefix('-').and_then(|l| l.split(';').next());
            !sent.iter().any(|(_, h)| Some(h.as_str()) == hex)
        })
        .count();
    r.check(
        extra == 0,
        &format!("UAT: {extra} messages that were not sent"),
    );
    Ok(())
}

/// The firmware's raw line for a message: `-hex;rs=N;`.
fn uat_raw(bytes: &[u8], errors: u16) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("-{hex};rs={errors};")
}

/// Print both lists side by side where they differ.
fn print_diff(firmware: &[Frame], host: &[Frame]) {
    for i in 0..firmware.len().max(host.len()) {
        let (a, b) = (firmware.get(i), host.get(i));
        if a != b {
            println!("     #{i}: firmware {a:?}\n     #{i}: host     {b:?}");
        }
    }
}

/// One line of a truth list.
struct Truth {
    t12: u64,
    hex: String,
    required: bool,
}

/// Required replies found, and no frame that was not transmitted.
fn check_truth(r: &mut Report, rate: u32, text: &str, frames: &[Frame]) -> Result<(), String> {
    let mut truth = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let w: Vec<&str> = line.split_whitespace().collect();
        let [t12, hex, _snr, required, _flags] = w.as_slice() else {
            return Err(format!("bad truth line {line:?}"));
        };
        truth.push(Truth {
            t12: t12
                .parse()
                .map_err(|_| format!("bad truth line {line:?}"))?,
            hex: (*hex).to_string(),
            required: *required == "yes",
        });
    }
    // One sample of timing error is allowed.
    let tolerance = u64::from(12_000_000 / rate);
    let found = |t: &Truth| {
        frames.iter().any(|f| {
            f.split()
                .is_some_and(|(ts, hex)| hex == t.hex && ts.abs_diff(t.t12) <= tolerance)
        })
    };
    let required: Vec<&Truth> = truth.iter().filter(|t| t.required).collect();
    let missed: Vec<&&Truth> = required.iter().filter(|t| !found(t)).collect();
    let optional = truth.iter().filter(|t| !t.required).count();
    let optional_found = truth.iter().filter(|t| !t.required && found(t)).count();
    r.check(
        missed.is_empty(),
        &format!(
            "{rate} S/s: {} of {} required replies decoded (and {optional_found} of {optional} weak or garbled ones)",
            required.len() - missed.len(),
            required.len()
        ),
    );
    for t in missed {
        println!("     missed {} at {}", t.hex, t.t12);
    }
    let unexpected: Vec<&Frame> = frames
        .iter()
        .filter(|f| {
            !f.split().is_some_and(|(ts, hex)| {
                truth
                    .iter()
                    .any(|t| t.hex == hex && ts.abs_diff(t.t12) <= tolerance)
            })
        })
        .collect();
    r.check(
        unexpected.is_empty(),
        &format!(
            "{rate} S/s: {} decoded frames that were not transmitted",
            unexpected.len()
        ),
    );
    for f in unexpected {
        println!("     unexpected {}", f.avr);
    }
    Ok(())
}

/// The value of `pub const NAME: f64 = VALUE;` in the build script's
/// `params.rs`.
fn param(text: &str, name: &str) -> Result<f64, String> {
    text.lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix("pub const ")?.strip_prefix(name)?;
            let value = rest.strip_prefix(": f64 = ")?.strip_suffix(';')?;
            value.parse().ok()
        })
        .ok_or_else(|| format!("params.rs has no f64 {name}"))
}

/// FNV-1a, 64 bits (the firmware's checksum).
fn fnv1a64(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// The Q15 mono receiver on the host; checksum of its audio.
fn fm_q15(iq: &[[u8; 2]], offset_hz: f64, tau: f64) -> Result<u64, String> {
    let rx = MonoReceiverQ15::new(offset_hz, tau).ok_or("bad FM receiver settings")?;
    let mut state = MonoReceiverQ15State::default();
    let mut audio = vec![0i16; rx.max_output(iq.len())];
    let n = rx
        .process(&mut state, iq, &mut audio)
        .map_err(|e| e.to_string())?;
    Ok(fnv1a64(audio[..n].iter().flat_map(|v| v.to_le_bytes())))
}

/// The `f32` front end and mono decoder on the host; checksum of its
/// audio's IEEE bits.
fn fm_f32(iq: &[[u8; 2]], offset_hz: f64, tau: f64) -> Result<u64, String> {
    let fe = FrontEnd::with_cutoff(offset_hz, CHANNEL_CUTOFF_HZ).ok_or("bad FM front end")?;
    let dec = MonoDecoder::new(tau);
    let mut mpx = vec![0f32; fe.max_output(iq.len())];
    let m = fe
        .process(&mut FrontEndState::default(), iq, &mut mpx)
        .map_err(|e| e.to_string())?;
    let mut audio = vec![0f32; dec.max_output(m)];
    let n = dec
        .process(&mut MonoDecoderState::default(), &mpx[..m], &mut audio)
        .map_err(|e| e.to_string())?;
    Ok(fnv1a64(
        audio[..n].iter().flat_map(|v| v.to_bits().to_le_bytes()),
    ))
}

#[cfg(test)]
mod test {
    use super::*;

    static LOG: &str = "\
calibration loops 10 instructions 20 ticks 1 instructions_per_tick 40.000 expected 40.0
modes 2400000 frame @000000001DAF5D4840D6F8740F; sample 1519 df 11 icao 4840D6 dbfs -10.0 repaired 0
uat 2083334 frame -0a0b;rs=2; sample 1521 address 000000
fm_q15 done samples 240000 audio 4800 fnv1a64 8e4e2bbcac0bcb55 level_dbfs -3.93 tone_snr_db 65.5 instructions 1 per_sample 1 worst_block_per_sample 1
done ok
";

    #[test]
    fn test_parse_log() {
        let log = Log::parse(LOG);
        assert!(log.done_ok);
        assert_eq!(log.calibration, Some(40.0));
        let f = &log.frames[&2_400_000][0];
        assert_eq!(f.avr, "@000000001DAF5D4840D6F8740F;");
        assert_eq!((f.icao, f.repaired), (0x4840D6, 0));
        assert_eq!(f.split(), Some((0x1DAF, "5D4840D6F8740F")));
        assert_eq!(log.fm["fm_q15"].checksum, 0x8e4e_2bbc_ac0b_cb55);
        assert_eq!(log.uat, [("-0a0b;rs=2;".to_string(), 1521)]);
        assert_eq!(uat_raw(&[10, 11], 2), "-0a0b;rs=2;");
        assert!(!Log::parse("done with errors").done_ok);
    }

    #[test]
    fn test_truth_rules() {
        let frames = Log::parse(LOG).frames.remove(&2_400_000).unwrap();
        let mut r = Report::default();
        // Found within one sample (5 ticks at 2.4 MS/s).
        let truth = "# c\n7599 5D4840D6F8740F 22.0 yes -\n";
        check_truth(&mut r, 2_400_000, truth, &frames).unwrap();
        assert_eq!((r.passed, r.failed), (2, 0));
        // Six ticks off: missed, and the frame counts as unexpected.
        let truth = "7605 5D4840D6F8740F 22.0 yes -\n";
        let mut r = Report::default();
        check_truth(&mut r, 2_400_000, truth, &frames).unwrap();
        assert_eq!((r.passed, r.failed), (0, 2));
        assert!(check_truth(&mut r, 2_400_000, "1 2 3\n", &frames).is_err());
    }

    #[test]
    fn test_aircraft_rules() {
        let sent = "# h\n4840D6 KLM1023 38000 52.2572 3.9194\n40621D EZY85MH 12025 51.9 4.4\n";
        let good = [
            "aircraft 4840D6 callsign KLM1023 altitude_ft 38000 position 52.25721,3.91937".into(),
            "aircraft 40621D callsign - altitude_ft - position -".into(),
        ];
        let mut r = Report::default();
        check_aircraft(&mut r, 2_400_000, sent, &good).unwrap();
        assert_eq!((r.passed, r.failed), (1, 0));
        // A wrong altitude, or the strongest aircraft without a position.
        for bad in [
            "aircraft 4840D6 callsign KLM1023 altitude_ft 38025 position 52.25721,3.91937",
            "aircraft 4840D6 callsign KLM1023 altitude_ft 38000 position -",
            "aircraft 4840D6 callsign KLM1023 altitude_ft 38000 position 52.26000,3.91937",
        ] {
            let mut r = Report::default();
            check_aircraft(&mut r, 2_400_000, sent, &[bad.into()]).unwrap();
            assert_eq!((r.passed, r.failed), (0, 1), "{bad}");
        }
    }

    #[test]
    fn test_param() {
        let text = "/// doc\npub const FM_TAU: f64 = 5e-5;\npub const FM_TONE_HZ: f64 = 1000.0;\n";
        assert_eq!(param(text, "FM_TAU"), Ok(5e-5));
        assert_eq!(param(text, "FM_TONE_HZ"), Ok(1000.0));
        assert!(param(text, "FM_OFFSET_HZ").is_err());
    }

    #[test]
    fn test_fnv1a64() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fnv1a64(*b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(*b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
