//! Prometheus text exposition format 0.0.4 (`/metrics`).
//!
//! Each metric is written once with its `# HELP` and `# TYPE` lines, then
//! its samples `name{label="value",…} number`; counters end in `_total`.
//! A gauge whose value is unknown (no signal measured yet) keeps its HELP
//! and TYPE lines but has no sample. Label values are escaped (`\\`, `\"`,
//! `\n`).
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `airwaves_samples_processed_total`, `airwaves_samples_dropped_total` | counter | |
//! | `airwaves_frames_total` | counter | `source` = `local`, `remote` |
//! | `airwaves_modeac_total` | counter | `source` |
//! | `airwaves_uat_messages_total{link}` | counter | UAT messages received (`--uat-device`), downlink and uplink |
//! | `airwaves_mlat_results_total` | counter | multilateration results received (also in `airwaves_frames_total{source="remote"}`) |
//! | `airwaves_frames_by_df_total` | counter | `df` (24 = all Comm-D codes 24–31) |
//! | `airwaves_frames_accepted_total` | counter | |
//! | `airwaves_frames_rejected_total` | counter | `reason` = `length`, `crc`, `unknown_address`, `unsupported`, `altitude`, `velocity` |
//! | `airwaves_frames_repaired_total` | counter | `bits` = `0`, `1`, `2`, `3+` (accepted frames) |
//! | `airwaves_positions_total` | counter | `kind` = `global`, `local_aircraft`, `local_receiver` |
//! | `airwaves_positions_rejected_total` | counter | `reason` = `speed`, `range`, `inconsistent` |
//! | `airwaves_tracks_total` | counter | |
//! | `airwaves_tracks_single_message_total` | counter | aircraft removed after a single frame |
//! | `airwaves_aircraft` | gauge | `with` = `any`, `position`, `adsb`, `mlat`: heard (position received) in the last 60 s; `adsb` = any DF17/18 source; `mlat` = last position from MLAT |
//! | `airwaves_signal_dbfs`, `airwaves_noise_dbfs` | gauge | mean power since start |
//! | `airwaves_peak_signal_dbfs` | gauge | strongest frame since start |
//! | `airwaves_strong_signals_total` | counter | frames above −3 dBFS |
//! | `airwaves_max_distance_meters` | gauge | since start |
//! | `airwaves_cpu_seconds_total` | counter | `thread` = `demod`, `reader`, `background` |
//! | `airwaves_clients` | gauge | `port` = the caller's names |
//! | `airwaves_recent` | gauge | `field` = the graphs' series ([`write_series_metrics`]) |
//! | `airwaves_clients_dropped_total` | counter | `reason` = `slow`, `stalled` |
//! | `airwaves_demod_candidates_total` | counter | `stage` = `trigger`, `gap`, `coarse`, `preamble`, `sliced`: positions passing each stage of the Mode S demodulator |
//! | `airwaves_demod_second_chance_frames_total` | counter | `by` = `mlse`, `sequence`, `coherent`, `uncovered` |
//! | `airwaves_demod_coherent_attempts_total`, `airwaves_demod_cancelled_total` | counter | |
//! | `airwaves_demod_quiet_windows_total` | counter | quarter seconds scanned with the quiet-channel thresholds |

use crate::feed::series::{FIELDS, Series};
use core::fmt::Write;

use airwaves_core::modes::demod::DemodStats;
use airwaves_core::modes::tracker::{AddressType, Tracker};

use super::stats::Counters;

/// `df` label values for DF codes 0–23 (24–31 are summed as `24`).
const DF_LABELS: [&str; 24] = [
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16",
    "17", "18", "19", "20", "21", "22", "23",
];

/// Window for the `airwaves_aircraft` gauges, ms.
const RECENT_MS: u64 = 60_000;

/// Aircraft heard in the last 60 s at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecentAircraft {
    /// All of them.
    pub any: u32,
    /// With a position received in that time.
    pub with_position: u32,
    /// With ADS-B (any DF17/18 source; not MLAT).
    pub adsb: u32,
    /// Positioned by MLAT.
    pub mlat: u32,
}

impl RecentAircraft {
    /// Count the aircraft of `tracker` at `now_ms` (its clock).
    pub fn count<const N: usize>(tracker: &Tracker<N>, now_ms: u64) -> Self {
        let mut c = RecentAircraft::default();
        for ac in tracker.iter() {
            if now_ms.saturating_sub(ac.last_seen_ms()) > RECENT_MS {
                continue;
            }
            c.any += 1;
            if ac
                .position()
                .is_some_and(|f| now_ms.saturating_sub(f.t_ms) <= RECENT_MS)
            {
                c.with_position += 1;
            }
            if !matches!(ac.address_type(), AddressType::ModeS | AddressType::Mlat) {
                c.adsb += 1;
            }
            if ac.mlat_position() {
                c.mlat += 1;
            }
        }
        c
    }
}

/// Writes metric families.
struct Exposition<'a> {
    out: &'a mut String,
}

impl Exposition<'_> {
    /// `# HELP` and `# TYPE` lines.
    fn family(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.out, "# HELP {name} {help}\n# TYPE {name} {kind}");
    }

    /// One sample; `labels` as (name, value) pairs; skipped unless finite.
    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        if !value.is_finite() {
            return;
        }
        self.out.push_str(name);
        if !labels.is_empty() {
            self.out.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                self.out.push_str(k);
                self.out.push_str("=\"");
                for c in v.chars() {
                    match c {
                        '\\' => self.out.push_str("\\\\"),
                        '"' => self.out.push_str("\\\""),
                        '\n' => self.out.push_str("\\n"),
                        c => self.out.push(c),
                    }
                }
                self.out.push('"');
            }
            self.out.push('}');
        }
        let _ = writeln!(self.out, " {value}");
    }

    /// A family with one unlabelled sample.
    fn single(&mut self, name: &str, kind: &str, help: &str, value: f64) {
        self.family(name, kind, help);
        self.sample(name, &[], value);
    }
}

/// Append the graphs' series as of their latest 10 s bucket (the graphs
/// page's hour), one gauge per field: `airwaves_recent{field="…"}`
/// ([`FIELDS`]); nothing before the first
/// bucket closes, and unknown fields are left out.
///
/// ```
/// use airwaves::feed::{metrics::write_series_metrics, series::{Sample, Series}};
/// let mut s = Series::new();
/// let mut v = Sample::UNKNOWN;
/// v.0[0] = 123.5;
/// s.record(0, &v);
/// s.record(10_000, &v);
/// let mut text = String::new();
/// write_series_metrics(&s, &mut text);
/// assert!(text.contains("\nairwaves_recent{field=\"messages_per_s\"} 123.5\n"));
/// assert!(!text.contains("gain_db"));
/// ```
pub fn write_series_metrics(series: &Series, out: &mut String) {
    let Some((_, latest)) = series.latest() else {
        return;
    };
    let mut e = Exposition { out };
    e.family(
        "airwaves_recent",
        "gauge",
        "The graphs' series over the last 10 s: messages/s, aircraft, range (NM), levels (dBFS), gain (dB), CPU (%).",
    );
    for (name, v) in FIELDS.iter().zip(latest.0) {
        e.sample("airwaves_recent", &[("field", name)], f64::from(v));
    }
}

/// Append the Prometheus exposition of `c`, the tracker's aircraft at
/// `now_unix_ms` (its clock, ms) and the connected `clients` per output
/// port name (e.g. `("30003", 2)`) to `out`. See the [module docs](self)
/// for the metrics.
///
/// ```
/// use airwaves::feed::{metrics::write_metrics, stats::Counters};
/// use airwaves_core::modes::tracker::{Tracker, TrackerConfig};
/// let tracker = Tracker::<8>::new(TrackerConfig::DEFAULT);
/// let mut c = Counters::new();
/// c.samples_processed = 2_400_000;
/// let mut text = String::new();
/// write_metrics(&c, &tracker, 0, &[("30003", 1)], &mut text);
/// assert!(text.contains("\nairwaves_samples_processed_total 2400000\n"));
/// assert!(text.contains("\nairwaves_clients{port=\"30003\"} 1\n"));
/// ```
pub fn write_metrics<const N: usize>(
    c: &Counters,
    tracker: &Tracker<N>,
    now_unix_ms: u64,
    clients: &[(&str, usize)],
    out: &mut String,
) {
    let t = &c.tracker;
    let mut e = Exposition { out };
    let n = |v: u64| v as f64;

    e.single(
        "airwaves_samples_processed_total",
        "counter",
        "I/Q samples demodulated.",
        n(c.samples_processed),
    );
    if let Some(g) = c.gain_tenths {
        e.single(
            "airwaves_gain_db",
            "gauge",
            "Tuner gain now, dB (absent under the tuner's AGC).",
            f64::from(g) / 10.0,
        );
    }
    e.single(
        "airwaves_gain_changes_total",
        "counter",
        "Tuner gain changes made by the adaptive gain loop.",
        n(c.gain_changes),
    );
    e.single(
        "airwaves_samples_dropped_total",
        "counter",
        "I/Q samples lost before demodulation (USB overrun, full ring).",
        n(c.samples_dropped),
    );

    e.family(
        "airwaves_frames_total",
        "counter",
        "Mode S frames received, by source.",
    );
    e.sample(
        "airwaves_frames_total",
        &[("source", "local")],
        n(c.local.modes),
    );
    e.sample(
        "airwaves_frames_total",
        &[("source", "remote")],
        n(c.remote.modes),
    );
    e.single(
        "airwaves_mlat_results_total",
        "counter",
        "Multilateration results received on Beast input (also counted as remote frames).",
        n(c.mlat_results),
    );
    e.family(
        "airwaves_uat_messages_total",
        "counter",
        "UAT (978 MHz) messages received, by link.",
    );
    e.sample(
        "airwaves_uat_messages_total",
        &[("link", "downlink")],
        n(c.uat_downlink),
    );
    e.sample(
        "airwaves_uat_messages_total",
        &[("link", "uplink")],
        n(c.uat_uplink),
    );
    e.family(
        "airwaves_modeac_total",
        "counter",
        "Mode A/C replies received, by source.",
    );
    e.sample(
        "airwaves_modeac_total",
        &[("source", "local")],
        n(c.local.modeac),
    );
    e.sample(
        "airwaves_modeac_total",
        &[("source", "remote")],
        n(c.remote.modeac),
    );

    e.family(
        "airwaves_frames_by_df_total",
        "counter",
        "Mode S frames given to the tracker, by downlink format (24: Comm-D, codes 24-31).",
    );
    for (df, label) in DF_LABELS.iter().enumerate() {
        let v = t.frames_by_df.get(df).copied().unwrap_or(0);
        let known = matches!(df, 0 | 4 | 5 | 11 | 16 | 17 | 18 | 19 | 20 | 21);
        if known || v > 0 {
            e.sample("airwaves_frames_by_df_total", &[("df", label)], n(v));
        }
    }
    let comm_d: u64 = t.frames_by_df.iter().skip(24).sum();
    e.sample("airwaves_frames_by_df_total", &[("df", "24")], n(comm_d));

    e.single(
        "airwaves_frames_accepted_total",
        "counter",
        "Mode S frames accepted by the tracker.",
        n(t.accepted),
    );
    e.family(
        "airwaves_frames_rejected_total",
        "counter",
        "Mode S frames rejected by the tracker, by reason.",
    );
    for (reason, v) in [
        ("length", t.rejected_length),
        ("crc", t.rejected_crc),
        ("unknown_address", t.rejected_unknown_address),
        ("unsupported", t.rejected_unsupported),
        ("altitude", t.rejected_altitude),
        ("velocity", t.rejected_velocity),
    ] {
        e.sample(
            "airwaves_frames_rejected_total",
            &[("reason", reason)],
            n(v),
        );
    }
    e.family(
        "airwaves_frames_repaired_total",
        "counter",
        "Accepted Mode S frames (local and remote) by number of bits repaired (3+: three or more).",
    );
    for (i, bits) in ["0", "1", "2", "3+"].iter().enumerate() {
        let v = c.local.accepted.get(i).copied().unwrap_or(0)
            + c.remote.accepted.get(i).copied().unwrap_or(0);
        e.sample("airwaves_frames_repaired_total", &[("bits", bits)], n(v));
    }

    e.family(
        "airwaves_positions_total",
        "counter",
        "CPR positions decoded and accepted, by kind of decoding.",
    );
    for (kind, v) in [
        ("global", t.positions_global),
        ("local_aircraft", t.positions_local_aircraft),
        ("local_receiver", t.positions_local_receiver),
    ] {
        e.sample("airwaves_positions_total", &[("kind", kind)], n(v));
    }
    e.family(
        "airwaves_positions_rejected_total",
        "counter",
        "CPR positions rejected, by reason.",
    );
    for (reason, v) in [
        ("speed", t.positions_rejected_speed),
        ("range", t.positions_rejected_range),
        ("inconsistent", t.positions_rejected_bad),
    ] {
        e.sample(
            "airwaves_positions_rejected_total",
            &[("reason", reason)],
            n(v),
        );
    }
    e.single(
        "airwaves_tracks_total",
        "counter",
        "Aircraft added to the tracker.",
        n(t.aircraft_added),
    );
    e.single(
        "airwaves_tracks_single_message_total",
        "counter",
        "Aircraft removed after a single frame (mostly addresses made up by bit errors).",
        n(t.aircraft_single_message),
    );

    let RecentAircraft {
        any,
        with_position: with_pos,
        adsb,
        mlat,
    } = RecentAircraft::count(tracker, now_unix_ms);
    let (any, with_pos, adsb, mlat) = (any as u64, with_pos as u64, adsb as u64, mlat as u64);
    e.family(
        "airwaves_aircraft",
        "gauge",
        "Aircraft heard in the last 60 s: all, with a position received in that time, with ADS-B (DF17/18), positioned by MLAT.",
    );
    e.sample("airwaves_aircraft", &[("with", "any")], n(any));
    e.sample("airwaves_aircraft", &[("with", "position")], n(with_pos));
    e.sample("airwaves_aircraft", &[("with", "adsb")], n(adsb));
    e.sample("airwaves_aircraft", &[("with", "mlat")], n(mlat));

    e.single(
        "airwaves_signal_dbfs",
        "gauge",
        "Mean signal power of received frames since start, dBFS.",
        c.mean_signal_dbfs().unwrap_or(f64::NAN),
    );
    e.single(
        "airwaves_noise_dbfs",
        "gauge",
        "Mean noise power since start, dBFS.",
        c.mean_noise_dbfs().unwrap_or(f64::NAN),
    );
    e.single(
        "airwaves_peak_signal_dbfs",
        "gauge",
        "Strongest frame since start, dBFS.",
        c.peak_signal_dbfs,
    );
    e.single(
        "airwaves_strong_signals_total",
        "counter",
        "Frames received above -3 dBFS.",
        n(c.strong_signals),
    );
    e.single(
        "airwaves_max_distance_meters",
        "gauge",
        "Largest distance of a position from the receiver since start, metres.",
        c.max_distance_m,
    );
    e.family(
        "airwaves_cpu_seconds_total",
        "counter",
        "CPU time by thread, seconds.",
    );
    for (thread, ms) in [
        ("demod", c.cpu_demod_ms),
        ("reader", c.cpu_reader_ms),
        ("background", c.cpu_background_ms),
    ] {
        e.sample(
            "airwaves_cpu_seconds_total",
            &[("thread", thread)],
            ms as f64 / 1000.0,
        );
    }
    write_demod(&mut e, &c.demod);
    e.family(
        "airwaves_clients",
        "gauge",
        "Connected clients by output port.",
    );
    for &(port, count) in clients {
        e.sample("airwaves_clients", &[("port", port)], count as f64);
    }
    e.family(
        "airwaves_clients_dropped_total",
        "counter",
        "Output clients disconnected for falling behind: slow (buffer full), stalled (nothing taken for seconds).",
    );
    for (reason, count) in ["slow", "stalled"].into_iter().zip(c.clients_dropped) {
        e.sample(
            "airwaves_clients_dropped_total",
            &[("reason", reason)],
            count as f64,
        );
    }
}

/// The demodulator's stage counters ([`DemodStats`]).
fn write_demod(e: &mut Exposition<'_>, d: &DemodStats) {
    let n = |v: u64| v as f64;
    e.family(
        "airwaves_demod_candidates_total",
        "counter",
        "Mode S demodulator positions passing each stage: the per-sample trigger, the gap and pulse-3 tests, the coarse and the fine preamble checks; phases sliced.",
    );
    for (stage, v) in [
        ("trigger", d.triggers),
        ("gap", d.gap),
        ("coarse", d.coarse),
        ("preamble", d.preambles),
        ("sliced", d.sliced),
    ] {
        e.sample("airwaves_demod_candidates_total", &[("stage", stage)], n(v));
    }
    e.family(
        "airwaves_demod_second_chance_frames_total",
        "counter",
        "Mode S frames found by a second chance: sequence estimation on half-bit energies (mlse) or sample amplitudes (sequence), the coherent reading, or under a cancelled reply (uncovered).",
    );
    for (by, v) in [
        ("mlse", d.mlse),
        ("sequence", d.sequence),
        ("coherent", d.coherent),
        ("uncovered", d.uncovered),
    ] {
        e.sample(
            "airwaves_demod_second_chance_frames_total",
            &[("by", by)],
            n(v),
        );
    }
    e.single(
        "airwaves_demod_coherent_attempts_total",
        "counter",
        "Coherent second chances tried (rationed per second of signal).",
        n(d.coherent_tried),
    );
    e.single(
        "airwaves_demod_cancelled_total",
        "counter",
        "Decoded replies subtracted from the signal to uncover others under them.",
        n(d.cancelled),
    );
    e.single(
        "airwaves_demod_quiet_windows_total",
        "counter",
        "Quarter seconds of signal scanned with the quiet-channel thresholds (after a quarter second with fewer than 300 frames a second).",
        n(d.quiet_windows),
    );
}

#[cfg(test)]
mod test {
    use super::*;
    use airwaves_core::modes::tracker::{ReceivedFrame, TrackerConfig};
    use std::collections::HashMap;

    use crate::feed::testing::hex;

    fn is_name(s: &str) -> bool {
        let mut ch = s.chars();
        ch.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
            && ch.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    }

    /// A parsed sample line: name, labels, value.
    type Sample = (String, Vec<(String, String)>, f64);

    /// Parse one sample line, or say what is wrong with it.
    fn parse_sample(line: &str) -> Result<Sample, String> {
        let (head, value) = line.rsplit_once(' ').ok_or("no value")?;
        let value: f64 = value.parse().map_err(|_| format!("bad value {value}"))?;
        let (name, labels) = match head.split_once('{') {
            None => (head, Vec::new()),
            Some((name, rest)) => {
                let body = rest.strip_suffix('}').ok_or("unclosed labels")?;
                let mut labels = Vec::new();
                let mut s = body;
                while !s.is_empty() {
                    let (k, r) = s.split_once("=\"").ok_or("label without =\"")?;
                    if !is_name(k) || k.contains(':') {
                        return Err(format!("bad label name {k}"));
                    }
                    // Value up to the first unescaped quote.
                    let mut v = String::new();
                    let mut it = r.char_indices();
                    let end = loop {
                        match it.next().ok_or("unterminated label value")? {
                            (i, '"') => break i,
                            (_, '\\') => match it.next().ok_or("dangling escape")?.1 {
                                'n' => v.push('\n'),
                                c @ ('\\' | '"') => v.push(c),
                                c => return Err(format!("bad escape \\{c}")),
                            },
                            (_, c) => v.push(c),
                        }
                    };
                    labels.push((k.to_string(), v));
                    s = &r[end + 1..];
                    s = s.strip_prefix(',').unwrap_or(s);
                }
                (name, labels)
            }
        };
        if !is_name(name) {
            return Err(format!("bad metric name {name}"));
        }
        Ok((name.to_string(), labels, value))
    }

    #[test]
    fn test_exposition_grammar() {
        let mut tr = Tracker::<8>::new(TrackerConfig::DEFAULT);
        let t0 = 1_700_000_000_000;
        for (h, t) in [
            ("8D40621D58C386435CC412692AD6", t0),
            ("8D40621D58C382D690C8AC2863A7", t0 + 2_000),
            ("8D4840D6202CC371C32CE0576098", t0 + 2_000),
        ] {
            let b = hex(h);
            tr.update(&ReceivedFrame::new(&b, t)).unwrap();
        }
        // A frame with a bad CRC: counted as rejected.
        let bad = hex("8D4CA251204994B1C36E60A5343D");
        assert!(tr.update(&ReceivedFrame::new(&bad, t0)).is_err());
        let mut c = Counters::new();
        c.samples_processed = 123;
        c.local.accepted = [5, 2, 1, 0];
        c.local.modes = 9;
        c.tracker = *tr.stats();
        c.add_signal(-12.0);
        c.add_noise(-30.0);
        c.add_distance_m(42_000.0);
        c.cpu_demod_ms = 1500;
        c.demod.preambles = 7;
        c.demod.coherent = 3;
        c.demod.quiet_windows = 40;
        let mut out = String::new();
        write_metrics(
            &c,
            &tr,
            t0 + 3_000,
            &[("30003", 2), ("weird \"port\"\\\n", 0)],
            &mut out,
        );

        let mut help: HashMap<String, usize> = HashMap::new();
        let mut kind: HashMap<String, String> = HashMap::new();
        let mut samples: Vec<Sample> = Vec::new();
        for line in out.lines() {
            if let Some(rest) = line.strip_prefix("# HELP ") {
                let (name, text) = rest.split_once(' ').unwrap();
                assert!(is_name(name) && !text.is_empty(), "{line}");
                *help.entry(name.to_string()).or_default() += 1;
            } else if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, k) = rest.split_once(' ').unwrap();
                assert!(matches!(k, "counter" | "gauge"), "{line}");
                assert!(
                    kind.insert(name.to_string(), k.to_string()).is_none(),
                    "{line}"
                );
                assert!(help.contains_key(name), "TYPE before HELP: {line}");
            } else {
                let s = parse_sample(line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
                assert!(kind.contains_key(&s.0), "sample before its TYPE: {line}");
                samples.push(s);
            }
        }
        assert!(out.ends_with('\n'));
        assert!(help.values().all(|&n| n == 1));
        assert_eq!(
            help.keys().collect::<std::collections::BTreeSet<_>>(),
            kind.keys().collect()
        );
        for (name, k) in &kind {
            assert_eq!(k == "counter", name.ends_with("_total"), "{name}");
        }
        let get = |name: &str, label: Option<(&str, &str)>| {
            samples
                .iter()
                .find(|(n, l, _)| {
                    n == name && label.is_none_or(|(k, v)| l.iter().any(|(a, b)| a == k && b == v))
                })
                .map(|s| s.2)
        };
        assert_eq!(get("airwaves_samples_processed_total", None), Some(123.0));
        assert_eq!(
            get("airwaves_frames_total", Some(("source", "local"))),
            Some(9.0)
        );
        assert_eq!(
            get("airwaves_frames_by_df_total", Some(("df", "17"))),
            Some(4.0)
        );
        assert_eq!(
            get("airwaves_frames_rejected_total", Some(("reason", "crc"))),
            Some(1.0)
        );
        assert_eq!(
            get("airwaves_frames_repaired_total", Some(("bits", "1"))),
            Some(2.0)
        );
        assert_eq!(
            get("airwaves_positions_total", Some(("kind", "global"))),
            Some(1.0)
        );
        assert_eq!(get("airwaves_aircraft", Some(("with", "any"))), Some(2.0));
        assert_eq!(
            get("airwaves_aircraft", Some(("with", "position"))),
            Some(1.0)
        );
        assert_eq!(get("airwaves_signal_dbfs", None), Some(-12.0));
        assert_eq!(get("airwaves_max_distance_meters", None), Some(42_000.0));
        assert_eq!(
            get("airwaves_cpu_seconds_total", Some(("thread", "demod"))),
            Some(1.5)
        );
        assert_eq!(
            get(
                "airwaves_demod_candidates_total",
                Some(("stage", "preamble"))
            ),
            Some(7.0)
        );
        assert_eq!(
            get(
                "airwaves_demod_second_chance_frames_total",
                Some(("by", "coherent"))
            ),
            Some(3.0)
        );
        assert_eq!(get("airwaves_demod_quiet_windows_total", None), Some(40.0));
        assert_eq!(
            get("airwaves_clients", Some(("port", "weird \"port\"\\\n"))),
            Some(0.0)
        );

        // With nothing measured, the signal gauges have no sample.
        let mut out = String::new();
        write_metrics(&Counters::new(), &tr, t0 + 100_000, &[], &mut out);
        assert!(out.contains("# TYPE airwaves_signal_dbfs gauge\n# HELP airwaves_noise_dbfs"));
        assert!(out.contains("\nairwaves_aircraft{with=\"any\"} 0\n"));
    }
}
