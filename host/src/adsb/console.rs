//! What the feeder prints: a one-line status on stderr, a progress bar
//! for a file read as fast as possible, and the `--interactive` table.
//!
//! All three are formatted into a caller's `String` by pure functions
//! (tested here) and written by the decode thread once a second through
//! `Console`.

use super::network::Network;
use super::pipeline::Pipeline;
use super::source::Shared;
use airwaves_core::modes::cpr::{Position, distance_nm};
use airwaves_core::modes::tracker::Tracker;
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Figures of one status line.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Status {
    /// Mode S frames per second over the last interval.
    pub frames_per_s: f64,
    /// Aircraft in the table.
    pub aircraft: usize,
    /// Of those, with a position.
    pub with_position: usize,
    /// Positions decoded since start.
    pub positions: u64,
    /// Mean signal of the last interval, dBFS (NaN: none).
    pub signal_dbfs: f32,
    /// Noise floor, dBFS (NaN: unknown).
    pub noise_dbfs: f32,
    /// Samples lost (ring, USB gaps) since start.
    pub dropped_samples: u64,
    /// Network clients connected, all ports.
    pub clients: usize,
    /// Tuner gain, dB (`None`: the tuner's AGC or unknown).
    pub gain_db: Option<f64>,
    /// How the gain is set: `"auto"`, `"agc"`, `"fixed"` (empty: not
    /// shown).
    pub gain_mode: &'static str,
}

/// `airwaves adsb: 812 frames/s, 37 aircraft (29 with position), 5123
/// positions, signal -18.2 dBFS, noise -32.5 dBFS, 0 samples dropped, 3
/// clients`.
pub fn status_line(s: &Status, out: &mut String) {
    let _ = write!(
        out,
        "airwaves adsb: {:.0} frames/s, {} aircraft ({} with position), {} positions",
        s.frames_per_s, s.aircraft, s.with_position, s.positions
    );
    if s.signal_dbfs.is_finite() {
        let _ = write!(out, ", signal {:.1} dBFS", s.signal_dbfs);
    }
    if s.noise_dbfs.is_finite() {
        let _ = write!(out, ", noise {:.1} dBFS", s.noise_dbfs);
    }
    match (s.gain_db, s.gain_mode) {
        (_, "") => {}
        (Some(g), mode) => {
            let _ = write!(out, ", gain {g:.1} dB ({mode})");
        }
        (None, mode) => {
            let _ = write!(out, ", gain {mode}");
        }
    }
    let _ = write!(
        out,
        ", {} samples dropped, {} clients",
        s.dropped_samples, s.clients
    );
}

/// A progress bar: `[#########...........]  45.0 %  12.3 of 27.1 s  35.2× real time`.
/// `done_s`/`total_s`: signal time read and in the file, s; `wall_s`: time
/// spent.
pub fn progress_bar(done_s: f64, total_s: f64, wall_s: f64, out: &mut String) {
    const WIDTH: usize = 30;
    let frac = if total_s > 0.0 {
        (done_s / total_s).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let filled = (frac * WIDTH as f64).round() as usize;
    out.push('[');
    for i in 0..WIDTH {
        out.push(if i < filled { '#' } else { '.' });
    }
    let speed = if wall_s > 0.0 { done_s / wall_s } else { 0.0 };
    let _ = write!(
        out,
        "] {:5.1} %  {:.1} of {:.1} s  {:.1}x real time",
        100.0 * frac,
        done_s,
        total_s,
        speed
    );
}

/// The `--interactive` table (like dump1090's): one row per aircraft,
/// most recently heard first, at most `rows` rows, with the distance when
/// the receiver is known. Starts with the ANSI "home, clear screen"
/// sequence.
pub fn interactive_table<const N: usize>(
    tracker: &Tracker<N>,
    now_ms: u64,
    receiver: Option<Position>,
    rows: usize,
    out: &mut String,
) {
    out.push_str("\x1b[H\x1b[2J");
    let _ = writeln!(
        out,
        " Hex    Flight   Squawk  Alt(ft)  Spd(kt) Trk  V/R(fpm)  Lat       Lon        Dist(NM) RSSI   Msgs  Age"
    );
    let _ = writeln!(out, "{}", "-".repeat(104));
    let mut list: Vec<_> = tracker.iter().collect();
    list.sort_by_key(|a| std::cmp::Reverse(a.last_seen_ms()));
    for a in list.into_iter().take(rows) {
        let _ = write!(out, " {:06X} ", a.address());
        let _ = write!(out, "{:<8} ", a.callsign().unwrap_or("").trim_end());
        match a.squawk() {
            Some(sq) => {
                let _ = write!(out, "{sq:04X}    ");
            }
            None => out.push_str("        "),
        }
        match (a.on_ground(), a.altitude_baro_ft()) {
            (Some(true), _) => out.push_str("ground   "),
            (_, Some(alt)) => {
                let _ = write!(out, "{alt:<8} ");
            }
            _ => out.push_str("         "),
        }
        opt(out, a.ground_speed_kt().map(|v| format!("{v:.0}")), 8);
        opt(out, a.track_deg().map(|v| format!("{v:.0}")), 5);
        opt(
            out,
            a.vertical_rate_baro_fpm()
                .or(a.vertical_rate_gnss_fpm())
                .map(|v| v.to_string()),
            10,
        );
        let pos = a.position();
        opt(out, pos.map(|p| format!("{:.5}", p.position.lat)), 10);
        opt(out, pos.map(|p| format!("{:.5}", p.position.lon)), 11);
        opt(
            out,
            receiver
                .zip(pos)
                .map(|(r, p)| format!("{:.1}", distance_nm(r, p.position))),
            9,
        );
        opt(out, a.signal_dbfs().map(|v| format!("{v:.1}")), 7);
        let _ = write!(out, "{:<5} ", a.messages());
        let age = now_ms.saturating_sub(a.last_seen_ms()) / 1000;
        let _ = writeln!(out, "{age}");
    }
}

/// `v` left-aligned in `width` columns, blank when `None`.
fn opt(out: &mut String, v: Option<String>, width: usize) {
    let _ = write!(out, "{:<width$}", v.unwrap_or_default());
}

/// The status line, progress bar and interactive table.
pub(super) struct Console {
    pub(super) quiet: bool,
    pub(super) interactive: bool,
    /// stderr is a terminal: redraw one line in place each second (else a
    /// new line every 10 s).
    pub(super) tty: bool,
    /// For a file read as fast as possible: its length in bytes and rate.
    pub(super) progress: Option<(Option<u64>, u32)>,
    pub(super) last: Instant,
    pub(super) frames_at_last: u64,
    pub(super) text: String,
    /// How the gain is set (`auto`, `agc`, `fixed`).
    pub(super) gain_mode: &'static str,
}

impl Console {
    pub(super) fn tick(
        &mut self,
        pipeline: &Pipeline,
        net: &Network,
        shared: &Shared,
        started: Instant,
        finished: bool,
    ) {
        if self.quiet {
            return;
        }
        if self.interactive {
            self.text.clear();
            interactive_table(
                pipeline.tracker(),
                pipeline.now_ms(),
                pipeline.config().receiver,
                40,
                &mut self.text,
            );
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(self.text.as_bytes());
            let _ = out.flush();
        }
        self.text.clear();
        if let (Some((total, rate)), true) = (self.progress, self.tty) {
            let per_s = 2.0 * f64::from(rate);
            let done = shared.bytes.load(Ordering::Relaxed) as f64 / per_s;
            let total = total.map_or(done, |b| b as f64 / per_s);
            self.text.push('\r');
            progress_bar(done, total, started.elapsed().as_secs_f64(), &mut self.text);
            eprint!("{}", self.text);
            return;
        }
        if !(self.tty || finished || self.last.elapsed() >= Duration::from_secs(10)) {
            return;
        }
        let c = pipeline.counters();
        let t = pipeline.tracker();
        let frames = c.messages();
        let status = Status {
            frames_per_s: (frames - self.frames_at_last.min(frames)) as f64
                / self.last.elapsed().as_secs_f64().max(1e-3),
            aircraft: t.len(),
            with_position: t.iter().filter(|a| a.position().is_some()).count(),
            positions: c.tracker.positions(),
            signal_dbfs: c.mean_signal_dbfs().map_or(f32::NAN, |v| v as f32),
            noise_dbfs: c.mean_noise_dbfs().map_or(f32::NAN, |v| v as f32),
            dropped_samples: c.samples_dropped,
            clients: net.clients().iter().map(|c| c.1).sum(),
            gain_db: c.gain_tenths.map(|t| f64::from(t) / 10.0),
            gain_mode: self.gain_mode,
        };
        self.frames_at_last = frames;
        self.last = Instant::now();
        if self.tty {
            self.text.push('\r');
            status_line(&status, &mut self.text);
            self.text.push_str("\x1b[K");
            eprint!("{}", self.text);
        } else {
            status_line(&status, &mut self.text);
            eprintln!("{}", self.text);
        }
    }

    pub(super) fn end(&self) {
        if self.tty && !self.quiet {
            eprintln!();
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use airwaves_core::modes::tracker::{ReceivedFrame, TrackerConfig};

    #[test]
    fn status_and_progress() {
        let mut s = String::new();
        status_line(
            &Status {
                frames_per_s: 812.4,
                aircraft: 37,
                with_position: 29,
                positions: 5123,
                signal_dbfs: -18.24,
                noise_dbfs: f32::NAN,
                dropped_samples: 0,
                clients: 3,
                gain_db: None,
                gain_mode: "",
            },
            &mut s,
        );
        assert_eq!(
            s,
            "airwaves adsb: 812 frames/s, 37 aircraft (29 with position), 5123 positions, \
             signal -18.2 dBFS, 0 samples dropped, 3 clients"
        );
        for (db, mode, shown) in [
            (Some(33.8), "auto", ", gain 33.8 dB (auto), "),
            (None, "agc", ", gain agc, "),
        ] {
            s.clear();
            let st = Status {
                gain_db: db,
                gain_mode: mode,
                ..Status::default()
            };
            status_line(&st, &mut s);
            assert!(s.contains(shown), "{s}");
        }
        let mut p = String::new();
        progress_bar(13.5, 27.0, 0.5, &mut p);
        assert_eq!(
            p,
            "[###############...............]  50.0 %  13.5 of 27.0 s  27.0x real time"
        );
        p.clear();
        progress_bar(5.0, 0.0, 0.0, &mut p);
        assert!(p.starts_with("[##############################] 100.0 %"));
    }

    #[test]
    fn interactive_rows() {
        let mut t = Tracker::<16>::new(TrackerConfig::DEFAULT);
        // Identification KLM1023 and an even/odd position pair (ICAO 4840D6
        // and 40621D, the standard worked examples).
        let frames: [(&str, u64); 3] = [
            ("8D4840D6202CC371C32CE0576098", 1_000),
            ("8D40621D58C382D690C8AC2863A7", 2_000),
            ("8D40621D58C386435CC412692AD6", 2_500),
        ];
        for (hex, t_ms) in frames {
            let b: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            t.update(&ReceivedFrame::new(&b, t_ms)).unwrap();
        }
        let mut s = String::new();
        interactive_table(&t, 4_000, Some(Position::new(52.0, 4.0)), 10, &mut s);
        let rows: Vec<&str> = s.lines().skip(2).collect();
        assert_eq!(rows.len(), 2);
        // Most recent first.
        assert!(rows[0].starts_with(" 40621D "), "{}", rows[0]);
        assert!(rows[0].contains("38000"), "{}", rows[0]);
        assert!(rows[0].contains("52.26578  3.93891"), "{}", rows[0]);
        assert!(rows[1].starts_with(" 4840D6 KLM1023 "), "{}", rows[1]);
    }
}
