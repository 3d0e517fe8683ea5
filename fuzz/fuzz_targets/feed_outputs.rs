//! The feeder's text outputs on arbitrary traffic: SBS lines,
//! `aircraft.json`, `receiver.json`, `stats.json` and the Prometheus
//! metrics, written from a [`Tracker`] fed fuzzer-chosen frames.
//!
//! Input layout: a 10-byte header, a string, then records.
//!
//! - byte 0, setup: bit 0 the receiver's location is known (52.3° N,
//!   4.76° E), bit 1 receiver-relative local CPR decoding, bit 2
//!   `receiver.json` gets the location from bytes 7–8 (possibly invalid);
//! - bytes 1–6: start time, ms since 1970, big-endian;
//! - bytes 7–8: `receiver.json` latitude `0.75·i8` and longitude `1.5·i8`
//!   degrees (so some are out of range);
//! - byte 9: length of the string that follows (0: none), used as the map
//!   tile URL in `receiver.json` and as a client port name in the
//!   metrics (so escaping is exercised);
//! - records `[dt, flags, signal, frame…]`: time step `dt²` ms; signal
//!   0 unknown (NaN), else `−(signal − 1)/4` dBFS; `flags`:
//!   - bit 0: 14-byte frame, else 7;
//!   - bits 1–2: 0 frame as given; 1 or 2 make it DF17 or DF18 (14 bytes)
//!     and 3 DF11 (7 bytes), with the CRC parity fixed up, so the tracker
//!     accepts it and positions, velocities and identifications happen;
//!   - bit 3: with a fix-up, the address of the last aircraft accepted
//!     (so CPR pairs form); without, that address is XORed into the CRC
//!     parity (an AP reply to it);
//!   - bit 4: expire the tracker after the update;
//!   - bit 5: write every document now (at most [`MAX_WRITES`] times,
//!     to keep runs fast; always done at the end);
//!   - bit 6: a remote frame (else local);
//!   - bit 7: one bit repaired.
//!
//! Checks: nothing panics; every SBS line is one CRLF-terminated line of
//! 22 comma-separated fields with well-formed values; every JSON document
//! parses with `serde_json`, holds only finite numbers and has its
//! expected shape; every metrics line is `# HELP`/`# TYPE` or
//! `name{labels} value` with a finite value and a declared name.
#![no_main]

use airwaves::feed::json::{ReceiverInfo, write_aircraft_json, write_receiver_json};
use airwaves::feed::metrics::write_metrics;
use airwaves::feed::sbs::write_sbs;
use airwaves::feed::stats::{Counters, FrameSource, StatsHistory};
use airwaves_core::modes::cpr::Position;
use airwaves_core::modes::cpr::distance_nm;
use airwaves_core::modes::crc;
use airwaves_core::modes::tracker::{
    PositionUpdate, ReceivedFrame, Tracker, TrackerConfig, UpdateOutcome,
};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// A small table, so that eviction happens.
const CAPACITY: usize = 8;

/// Most mid-run document writes per input.
const MAX_WRITES: usize = 8;

const RECEIVER: Position = Position::new(52.3, 4.76);

fn check_sbs(line: &str) {
    let body = line.strip_suffix("\r\n").expect("SBS line ends in CRLF");
    assert!(!body.contains(['\r', '\n']), "{line:?}");
    let f: Vec<&str> = body.split(',').collect();
    assert_eq!(f.len(), 22, "{line:?}");
    assert_eq!(f[0], "MSG", "{line:?}");
    let kind: u8 = f[1].parse().expect("transmission type");
    assert!((1..=8).contains(&kind), "{line:?}");
    assert_eq!((f[2], f[3], f[5]), ("1", "1", "1"), "{line:?}");
    let hex = f[4].strip_prefix('~').unwrap_or(f[4]);
    assert!(
        hex.len() == 6
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b)),
        "{line:?}"
    );
    for date in [f[6], f[8]] {
        let p: Vec<&str> = date.split('/').collect();
        assert!(
            p.len() == 3 && p.iter().all(|s| s.parse::<u32>().is_ok()),
            "{line:?}"
        );
    }
    for time in [f[7], f[9]] {
        assert!(time.len() == 12 && time.as_bytes()[2] == b':', "{line:?}");
    }
    assert!(
        f[10].bytes().all(|b| b.is_ascii_graphic() || b == b' '),
        "{line:?}"
    );
    for i in [11, 16] {
        assert!(
            f[i].is_empty() || f[i].parse::<i32>().is_ok(),
            "{i}: {line:?}"
        );
    }
    for i in [12, 13, 14, 15] {
        assert!(
            f[i].is_empty() || f[i].parse::<f64>().is_ok_and(f64::is_finite),
            "{i}: {line:?}"
        );
    }
    if !f[14].is_empty() {
        let (lat, lon): (f64, f64) = (f[14].parse().unwrap(), f[15].parse().unwrap());
        assert!(lat.abs() <= 90.0 && lon.abs() <= 180.0, "{line:?}");
    }
    assert!(
        f[17].is_empty() || (f[17].len() == 4 && f[17].bytes().all(|b| (b'0'..=b'7').contains(&b))),
        "{line:?}"
    );
    for flag in &f[18..] {
        assert!(matches!(*flag, "" | "0" | "-1"), "{line:?}");
    }
}

/// Parse `text` as JSON with only finite numbers.
fn parse_json(text: &str) -> Value {
    fn finite(v: &Value) -> bool {
        match v {
            Value::Number(n) => n.as_f64().is_some_and(f64::is_finite),
            Value::Array(a) => a.iter().all(finite),
            Value::Object(o) => o.values().all(finite),
            _ => true,
        }
    }
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(finite(&v), "{text}");
    v
}

fn check_aircraft_json(text: &str, tracker: &Tracker<CAPACITY>) {
    let v = parse_json(text);
    assert!(v["now"].is_number() && v["messages"].is_u64(), "{text}");
    let list = v["aircraft"].as_array().expect("aircraft array");
    assert!(list.len() <= tracker.len());
    for a in list {
        let hex = a["hex"].as_str().expect("hex");
        let hex = hex.strip_prefix('~').unwrap_or(hex);
        assert!(
            hex.len() == 6
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
            "{a}"
        );
        assert!(a["messages"].as_u64().is_some_and(|n| n > 0), "{a}");
        assert!(a["seen"].as_f64().is_some_and(|s| s >= 0.0), "{a}");
        if let Some(lat) = a.get("lat") {
            let (lat, lon) = (lat.as_f64().unwrap(), a["lon"].as_f64().unwrap());
            assert!(lat.abs() <= 90.0 && lon.abs() <= 180.0, "{a}");
        }
        if let Some(f) = a.get("flight") {
            assert_eq!(f.as_str().map(str::len), Some(8), "{a}");
        }
    }
}

/// A metric or label name: `[a-zA-Z_:][a-zA-Z0-9_:]*`.
fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_' || c == b':')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b':')
}

/// `{k="v",…}` at the start of `s` (escapes `\\ \" \n` in values); the
/// rest after `}`.
fn strip_labels(s: &str) -> Option<&str> {
    let mut rest = s.strip_prefix('{')?;
    loop {
        let eq = rest.find('=')?;
        if !is_name(&rest[..eq]) {
            return None;
        }
        rest = rest[eq + 1..].strip_prefix('"')?;
        let mut chars = rest.char_indices();
        let end = loop {
            match chars.next()? {
                (_, '\\') => match chars.next()?.1 {
                    '\\' | '"' | 'n' => {}
                    _ => return None,
                },
                (i, '"') => break i,
                (_, '\n') => return None,
                _ => {}
            }
        };
        rest = &rest[end + 1..];
        if let Some(r) = rest.strip_prefix(',') {
            rest = r;
        } else {
            return rest.strip_prefix('}');
        }
    }
}

fn check_metrics(text: &str) {
    assert!(text.ends_with('\n'));
    let mut family = "";
    for line in text.lines() {
        if let Some(help) = line.strip_prefix("# HELP ") {
            let (name, _) = help.split_once(' ').expect("HELP name text");
            assert!(is_name(name), "{line:?}");
            family = name;
        } else if let Some(t) = line.strip_prefix("# TYPE ") {
            let (name, kind) = t.split_once(' ').expect("TYPE name kind");
            assert_eq!(name, family, "{line:?}");
            assert!(matches!(kind, "counter" | "gauge"), "{line:?}");
        } else {
            let name_end = line.find(['{', ' ']).expect("sample name");
            let name = &line[..name_end];
            assert!(is_name(name) && name == family, "{line:?} in {family}");
            let rest = &line[name_end..];
            let rest = if rest.starts_with('{') {
                strip_labels(rest).unwrap_or_else(|| panic!("labels: {line:?}"))
            } else {
                rest
            };
            let value = rest.strip_prefix(' ').expect("space before the value");
            assert!(value.parse::<f64>().is_ok_and(f64::is_finite), "{line:?}");
        }
    }
}

/// Everything the run has built up.
struct Run {
    tracker: Tracker<CAPACITY>,
    counters: Counters,
    history: StatsHistory,
    receiver: Option<Position>,
    info: ReceiverInfo,
    label: String,
    records: usize,
    writes: usize,
}

impl Run {
    fn write_documents(&mut self, now: u64) {
        let mut s = String::new();
        let messages = self.counters.messages();
        write_aircraft_json(&self.tracker, now, messages, self.receiver, &mut s);
        check_aircraft_json(&s, &self.tracker);

        s.clear();
        write_receiver_json(&self.info, &mut s);
        let v = parse_json(&s);
        assert_eq!(v["version"].as_str(), Some(self.info.version));
        assert_eq!(v["tiles"].as_str(), self.info.tiles.as_deref(), "{s}");
        assert_eq!(
            v.get("lat").is_some(),
            self.info.position.is_some_and(|p| p.is_valid()),
            "{s}"
        );

        self.history.record(now, &self.counters);
        self.counters.clear_recent();
        s.clear();
        self.history.write_stats_json(now, &self.counters, &mut s);
        let v = parse_json(&s);
        for key in ["latest", "last1min", "last5min", "last15min", "total"] {
            assert!(v[key].is_object(), "{key}: {s}");
        }

        s.clear();
        let clients = [("30003", self.records), (self.label.as_str(), 1)];
        write_metrics(&self.counters, &self.tracker, now, &clients, &mut s);
        check_metrics(&s);
    }

    fn after_update(&mut self, bytes: &[u8], outcome: &UpdateOutcome, t: u64) {
        let Some(a) = self.tracker.get(outcome.key) else {
            panic!("updated aircraft {:06x} missing", outcome.key);
        };
        let mut line = String::new();
        if write_sbs(bytes, outcome, a, t, t + 5, &mut line) {
            check_sbs(&line);
        } else {
            assert!(line.is_empty());
        }
        if matches!(outcome.position, PositionUpdate::Decoded(_))
            && let (Some(rx), Some(fix)) = (self.receiver, a.position())
        {
            self.counters
                .add_distance_m(distance_nm(rx, fix.position) * 1852.0);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((header, rest)) = data.split_first_chunk::<10>() else {
        return;
    };
    let setup = header[0];
    let mut time = [0u8; 8];
    time[2..].copy_from_slice(&header[1..7]);
    let mut now = u64::from_be_bytes(time);
    let Some((label, mut rest)) = rest.split_at_checked(usize::from(header[9])) else {
        return;
    };
    let label = String::from_utf8_lossy(label).into_owned();

    let receiver = (setup & 1 != 0).then_some(RECEIVER);
    let mut config = match receiver {
        Some(rx) => TrackerConfig::with_receiver(rx),
        None => TrackerConfig::DEFAULT,
    };
    if setup & 2 != 0 {
        config.receiver_local_range_nm = 200.0;
    }
    let info_position = if setup & 4 != 0 {
        Some(Position::new(
            f64::from(header[7] as i8) * 0.75,
            f64::from(header[8] as i8) * 1.5,
        ))
    } else {
        receiver
    };
    let mut run = Run {
        tracker: Tracker::new(config),
        counters: Counters::new(),
        history: StatsHistory::new(now, Counters::new()),
        receiver,
        info: ReceiverInfo {
            version: "airwaves fuzz",
            refresh_ms: 1000,
            history: 0,
            position: info_position,
            tiles: (!label.is_empty()).then(|| label.clone()),
            gain_db: (!label.is_empty()).then(|| f64::from(label.len() as u8) / 5.0),
        },
        label,
        records: 0,
        writes: 0,
    };
    let mut last_address = 0u32;
    while let [dt, flags, signal, tail @ ..] = rest {
        let fixup = (flags >> 1) & 3;
        let len = match fixup {
            1 | 2 => 14,
            3 => 7,
            _ if flags & 1 != 0 => 14,
            _ => 7,
        };
        let Some((bytes, tail)) = tail.split_at_checked(len) else {
            break;
        };
        rest = tail;
        run.records += 1;
        now = now.saturating_add(u64::from(*dt) * u64::from(*dt));
        let mut frame = [0u8; 14];
        let frame = &mut frame[..len];
        frame.copy_from_slice(bytes);
        let same = flags & 8 != 0;
        if fixup != 0 {
            let df = [0, 17, 18, 11][usize::from(fixup)];
            frame[0] = (df << 3) | (frame[0] & 7);
            if same {
                frame[1..4].copy_from_slice(&last_address.to_be_bytes()[1..]);
            }
            let parity = crc::crc24(&frame[..len - 3]);
            frame[len - 3..].copy_from_slice(&parity.to_be_bytes()[1..]);
        } else if same {
            let parity = crc::crc24(&frame[..len - 3]) ^ last_address;
            frame[len - 3..].copy_from_slice(&parity.to_be_bytes()[1..]);
        }
        let dbfs = if *signal == 0 {
            f32::NAN
        } else {
            -f32::from(signal - 1) / 4.0
        };
        let source = if flags & 64 != 0 {
            FrameSource::Remote
        } else {
            FrameSource::Local
        };
        let rx = ReceivedFrame::new(frame, now)
            .with_signal(dbfs)
            .with_repaired_bits(flags >> 7);
        let result = run.tracker.update(&rx);
        run.counters
            .add_frame(source, rx.repaired_bits, rx.signal_dbfs, &result);
        run.counters.samples_processed += u64::from(*dt) * 2400;
        run.counters.add_noise(-30.0 - f64::from(*signal) / 8.0);
        if let Ok(outcome) = &result {
            last_address = outcome.key & 0xFF_FFFF;
            run.after_update(frame, outcome, now);
        }
        if flags & 16 != 0 {
            run.tracker.expire(now);
        }
        run.counters.tracker = *run.tracker.stats();
        if flags & 32 != 0 && run.writes < MAX_WRITES {
            run.writes += 1;
            run.write_documents(now);
        }
    }
    run.write_documents(now);
});
