//! BaseStation ("SBS-1") text output, the format served on TCP port 30003
//! by Kinetic's BaseStation and by dump1090 / readsb, read by Virtual
//! Radar Server, PlanePlotter and many feeder scripts.
//!
//! One CRLF-terminated line per frame, 22 comma-separated fields:
//!
//! | # | field | here |
//! |---|---|---|
//! | 1 | message type | `MSG` |
//! | 2 | transmission type | 1–8, see below |
//! | 3 | session id | `1` |
//! | 4 | aircraft id | `1` |
//! | 5 | hex ident | 6 upper-case hex digits; `~` prefix for a non-ICAO address (DF18 CF 1/5), as dump1090-fa |
//! | 6 | flight id | `1` |
//! | 7, 8 | date, time generated | `YYYY/MM/DD`, `HH:MM:SS.mmm` UTC: reception time of the frame |
//! | 9, 10 | date, time logged | the same for the time the line is written |
//! | 11 | callsign | trailing spaces removed |
//! | 12 | altitude | ft, integer (barometric; GNSS height for ADS-B TC 20–22) |
//! | 13 | ground speed | kt, one decimal |
//! | 14 | track | degrees from true north, one decimal |
//! | 15, 16 | latitude, longitude | degrees, 5 decimals, only when this frame gave a new position |
//! | 17 | vertical rate | ft/min, integer (barometric or GNSS, as sent) |
//! | 18 | squawk | 4 octal digits |
//! | 19 | alert | `-1` squawk changed, else `0` |
//! | 20 | emergency | `-1` emergency, else `0` |
//! | 21 | SPI | `-1` ident active, else `0` |
//! | 22 | on ground | `-1` on the ground, `0` airborne |
//!
//! Fields a transmission type does not carry, or that the frame leaves
//! unknown, are empty. The transmission types and the fields each fills
//! follow the BaseStation socket description (woodair.net, "Barebones42
//! socket data") as dump1090 implements it:
//!
//! | type | frames | fields |
//! |---|---|---|
//! | 1 ES identification | DF17/18 TC 1–4 | callsign |
//! | 2 ES surface position | DF17/18 TC 5–8 | ground speed, track (when valid), lat/lon, on ground = `-1` |
//! | 3 ES airborne position | DF17/18 TC 9–18, 20–22 | altitude, lat/lon, alert (surveillance status 2), emergency (status 1, or the aircraft's squawk 7500/7600/7700), SPI (status 3), on ground = `0` |
//! | 4 ES airborne velocity | DF17/18 TC 19 | ground speed, track (subtypes 1–2), vertical rate |
//! | 5 surveillance altitude | DF4, DF20 | altitude, alert, SPI, on ground (from FS) |
//! | 6 surveillance identity | DF5, DF21 | squawk, alert, emergency (squawk 7500/7600/7700), SPI, on ground (from FS) |
//! | 7 air-to-air | DF0, DF16 | altitude, on ground (VS) |
//! | 8 all-call reply | DF11 | on ground (CA 4 / 5; empty otherwise) |
//!
//! Other frames (ADS-B TC 0, 23–31, DF19, DF24) give no line. Every value
//! comes from the frame itself; the aircraft supplies only the position
//! that this frame's CPR decoded to and, for type 3, its squawk.

use core::fmt::Write;

use airwaves_core::modes::adsb::{AdsbRepr, SurveillanceStatus};
use airwaves_core::modes::frame::{DownlinkFormat, Frame};
use airwaves_core::modes::tracker::{Aircraft, NON_ICAO, PositionUpdate, UpdateOutcome};

/// The content of one SBS line, before formatting.
#[derive(Default)]
struct Line<'a> {
    callsign: Option<&'a str>,
    altitude_ft: Option<i32>,
    ground_speed_kt: Option<f32>,
    track_deg: Option<f32>,
    position: Option<(f64, f64)>,
    vertical_rate_fpm: Option<i32>,
    squawk: Option<u16>,
    alert: Option<bool>,
    emergency: Option<bool>,
    spi: Option<bool>,
    on_ground: Option<bool>,
}

/// Append the BaseStation line for one accepted frame to `out` and return
/// `true`, or return `false` and leave `out` untouched if the frame has no
/// BaseStation message (see the [module docs](self)).
///
/// `frame` is the frame given to the tracker, `outcome` and `aircraft`
/// what [`Tracker::update`](airwaves_core::modes::tracker::Tracker::update)
/// returned and the aircraft after it; `frame_unix_ms` is the frame's
/// reception time and `now_unix_ms` the time of writing, both in ms since
/// 1970-01-01 UTC. Appends at most about 200 bytes; allocates only if
/// `out` must grow.
///
/// ```
/// use airwaves::feed::sbs::write_sbs;
/// use airwaves_core::modes::tracker::{ReceivedFrame, Tracker, TrackerConfig};
/// let mut tracker = Tracker::<16>::new(TrackerConfig::DEFAULT);
/// let ident = [0x8D, 0x48, 0x40, 0xD6, 0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x2C, 0xE0, 0x57, 0x60, 0x98];
/// let t = 1_700_000_000_000;
/// let outcome = tracker.update(&ReceivedFrame::new(&ident, t)).unwrap();
/// let mut line = String::new();
/// assert!(write_sbs(&ident, &outcome, tracker.get(outcome.key).unwrap(), t, t + 5, &mut line));
/// assert_eq!(
///     line,
///     "MSG,1,1,1,4840D6,1,2023/11/14,22:13:20.000,2023/11/14,22:13:20.005,KLM1023,,,,,,,,,,,\r\n"
/// );
/// ```
pub fn write_sbs(
    frame: &[u8],
    outcome: &UpdateOutcome,
    aircraft: &Aircraft,
    frame_unix_ms: u64,
    now_unix_ms: u64,
    out: &mut String,
) -> bool {
    let Ok(frame) = Frame::new_checked(frame) else {
        return false;
    };
    let decoded = matches!(outcome.position, PositionUpdate::Decoded(_));
    let position = if decoded {
        aircraft
            .position()
            .map(|fix| (fix.position.lat, fix.position.lon))
    } else {
        None
    };
    // The ADS-B message as the tracker parsed it.
    let repr = outcome.adsb;
    let mut line = Line::default();
    let kind = match frame.df() {
        DownlinkFormat::ExtendedSquitter | DownlinkFormat::ExtendedSquitterNonTransponder => {
            let Some(repr) = &repr else {
                return false;
            };
            match *repr {
                AdsbRepr::Identification(ref id) => {
                    line.callsign = Some(id.callsign_str());
                    1
                }
                AdsbRepr::SurfacePosition(p) => {
                    line.ground_speed_kt = p.speed_kt();
                    line.track_deg = p.track_deg();
                    line.position = position;
                    line.on_ground = Some(true);
                    2
                }
                AdsbRepr::AirbornePosition(p) => {
                    let status = p.surveillance_status;
                    line.altitude_ft = p.altitude_ft();
                    line.position = position;
                    line.alert = Some(status == SurveillanceStatus::TemporaryAlert);
                    line.emergency = Some(
                        status == SurveillanceStatus::PermanentAlert
                            || aircraft.squawk().is_some_and(is_emergency_squawk),
                    );
                    line.spi = Some(status == SurveillanceStatus::Spi);
                    line.on_ground = Some(false);
                    3
                }
                AdsbRepr::AirborneVelocity(v) => {
                    line.ground_speed_kt = v.ground_speed_kt();
                    line.track_deg = v.track_deg();
                    line.vertical_rate_fpm = v.vertical_rate.fpm();
                    4
                }
                _ => return false,
            }
        }
        DownlinkFormat::SurveillanceAltitude | DownlinkFormat::CommBAltitude => {
            let fs = frame.fs();
            line.altitude_ft = frame.altitude_ft();
            line.alert = Some(fs.alert());
            line.spi = Some(fs.spi());
            line.on_ground = fs.on_ground();
            5
        }
        DownlinkFormat::SurveillanceIdentity | DownlinkFormat::CommBIdentity => {
            let fs = frame.fs();
            line.squawk = frame.squawk();
            line.alert = Some(fs.alert());
            line.emergency = line.squawk.map(is_emergency_squawk);
            line.spi = Some(fs.spi());
            line.on_ground = fs.on_ground();
            6
        }
        DownlinkFormat::ShortAcas | DownlinkFormat::LongAcas => {
            line.altitude_ft = frame.altitude_ft();
            line.on_ground = Some(frame.vs());
            7
        }
        DownlinkFormat::AllCall => {
            line.on_ground = frame.ca().on_ground();
            8
        }
        _ => return false,
    };
    let non_icao = if outcome.key & NON_ICAO != 0 { "~" } else { "" };
    let _ = write!(
        out,
        "MSG,{kind},1,1,{non_icao}{:06X},1,",
        outcome.key & 0xFF_FFFF
    );
    write_date_time(out, frame_unix_ms, '/', ',');
    out.push(',');
    write_date_time(out, now_unix_ms, '/', ',');
    out.push(',');
    write_fields(out, &line);
    out.push_str("\r\n");
    true
}

/// Fields 11–22 (no leading or trailing comma).
fn write_fields(out: &mut String, l: &Line<'_>) {
    if let Some(c) = l.callsign {
        // Callsign characters are A–Z, 0–9, space and `#`: nothing to escape.
        out.push_str(c.trim_end());
    }
    out.push(',');
    if let Some(a) = l.altitude_ft {
        let _ = write!(out, "{a}");
    }
    out.push(',');
    write_f32(out, l.ground_speed_kt, 1);
    out.push(',');
    write_f32(out, l.track_deg, 1);
    out.push(',');
    match l.position {
        Some((lat, lon)) if lat.is_finite() && lon.is_finite() => {
            let _ = write!(out, "{lat:.5},{lon:.5}");
        }
        _ => out.push(','),
    }
    out.push(',');
    if let Some(v) = l.vertical_rate_fpm {
        let _ = write!(out, "{v}");
    }
    out.push(',');
    if let Some(s) = l.squawk {
        let _ = write!(out, "{s:04X}");
    }
    for flag in [l.alert, l.emergency, l.spi, l.on_ground] {
        out.push(',');
        match flag {
            Some(true) => out.push_str("-1"),
            Some(false) => out.push('0'),
            None => {}
        }
    }
}

/// A finite value with `decimals` decimals; nothing for `None` or NaN.
fn write_f32(out: &mut String, v: Option<f32>, decimals: usize) {
    if let Some(v) = v.filter(|v| v.is_finite()) {
        let _ = write!(out, "{v:.decimals$}");
    }
}

/// Squawks 7500 (hijack), 7600 (radio failure), 7700 (emergency), given
/// as octal digits in hex nibbles.
fn is_emergency_squawk(squawk: u16) -> bool {
    matches!(squawk, 0x7500 | 0x7600 | 0x7700)
}

/// The proleptic Gregorian date `(year, month 1–12, day 1–31)` of a day
/// number counted from 1970-01-01 (Howard Hinnant's `civil_from_days`,
/// "chrono-Compatible Low-Level Date Algorithms"). Exact for every day
/// within `i64::MAX − 719 468` of the epoch (never panics beyond).
///
/// ```
/// use airwaves::feed::sbs::civil_from_days;
/// assert_eq!(civil_from_days(0), (1970, 1, 1));
/// assert_eq!(civil_from_days(19_675), (2023, 11, 14));
/// ```
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days.saturating_add(719_468); // shift the epoch to 0000-03-01
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // day of era, 0..=146096
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365; // 0..=399
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of the March-based year, 0..=365
    let mp = (5 * doy + 2) / 153; // March = 0 … February = 11
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Append `YYYY<sep>MM<sep>DD<between>HH:MM:SS.mmm` (UTC) for a time in ms
/// since 1970-01-01 UTC.
///
/// ```
/// use airwaves::feed::sbs::write_date_time;
/// let mut s = String::new();
/// write_date_time(&mut s, 1_457_996_401_234, '/', ',');
/// assert_eq!(s, "2016/03/14,23:00:01.234");
/// ```
pub fn write_date_time(out: &mut String, unix_ms: u64, sep: char, between: char) {
    let secs = unix_ms / 1000;
    let (y, mo, d) = civil_from_days((secs / 86_400) as i64);
    let sod = secs % 86_400;
    let _ = write!(
        out,
        "{y:04}{sep}{mo:02}{sep}{d:02}{between}{:02}:{:02}:{:02}.{:03}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60,
        unix_ms % 1000
    );
}

#[cfg(test)]
mod test {
    use super::*;
    use airwaves_core::modes::frame::Capability;
    use airwaves_core::modes::tracker::{ReceivedFrame, Tracker, TrackerConfig};

    use crate::feed::testing::hex;

    /// A valid DF11 acquisition squitter (CA 5) from `addr`, to make an
    /// address known to the tracker.
    fn df11(addr: u32) -> [u8; 7] {
        let mut f = Frame::new_unchecked([0u8; 7]);
        f.set_df(DownlinkFormat::AllCall);
        f.set_ca(Capability::Airborne);
        f.set_aa(addr);
        f.fill_parity(0);
        f.into_inner()
    }

    /// Feed `frames` (hex, unix ms) through one tracker; the SBS line of
    /// each (empty if none), logged 250 ms after reception.
    fn lines(frames: &[(&str, u64)]) -> Vec<String> {
        let mut tracker = Tracker::<16>::new(TrackerConfig::DEFAULT);
        frames
            .iter()
            .map(|&(h, t)| {
                let bytes = if let Some(a) = h.strip_prefix("DF11:") {
                    df11(u32::from_str_radix(a, 16).unwrap()).to_vec()
                } else {
                    hex(h)
                };
                let outcome = tracker
                    .update(&ReceivedFrame::new(&bytes, t))
                    .unwrap_or_else(|e| panic!("{h}: {e}"));
                let ac = tracker.get(outcome.key).unwrap();
                let mut s = String::from("junk|");
                let wrote = write_sbs(&bytes, &outcome, ac, t, t + 250, &mut s);
                let s = s.strip_prefix("junk|").unwrap().to_string();
                assert_eq!(wrote, !s.is_empty(), "{h}");
                if wrote {
                    assert!(s.ends_with("\r\n"), "{s}");
                    assert_eq!(s.trim_end().split(',').count(), 22, "{s}");
                }
                s
            })
            .collect()
    }

    /// 2016-03-14 23:00:00 UTC, the Riddle's time stamps 1457996400 ff.
    const T0: u64 = 1_457_996_400_000;

    #[test]
    fn test_identification_and_velocity() {
        let l = lines(&[
            ("8D4840D6202CC371C32CE0576098", T0),
            ("8D485020994409940838175B284F", T0 + 1_234),
            ("8DA05F219B06B6AF189400CBC33F", T0 + 2_000),
        ]);
        assert_eq!(
            l[0],
            "MSG,1,1,1,4840D6,1,2016/03/14,23:00:00.000,2016/03/14,23:00:00.250,KLM1023,,,,,,,,,,,\r\n"
        );
        assert_eq!(
            l[1],
            "MSG,4,1,1,485020,1,2016/03/14,23:00:01.234,2016/03/14,23:00:01.484,,,159.2,182.9,,,-832,,,,,\r\n"
        );
        // Airspeed subtype: no ground speed or track, baro rate.
        assert_eq!(
            l[2],
            "MSG,4,1,1,A05F21,1,2016/03/14,23:00:02.000,2016/03/14,23:00:02.250,,,,,,,-2304,,,,,\r\n"
        );
    }

    #[test]
    fn test_airborne_position() {
        let l = lines(&[
            ("8D40621D58C386435CC412692AD6", T0),
            ("8D40621D58C382D690C8AC2863A7", T0 + 2_000),
        ]);
        // The first (odd) frame alone gives no position.
        assert_eq!(
            l[0],
            "MSG,3,1,1,40621D,1,2016/03/14,23:00:00.000,2016/03/14,23:00:00.250,,38000,,,,,,,0,0,0,0\r\n"
        );
        assert_eq!(
            l[1],
            "MSG,3,1,1,40621D,1,2016/03/14,23:00:02.000,2016/03/14,23:00:02.250,,38000,,,52.25720,3.91937,,,0,0,0,0\r\n"
        );
    }

    #[test]
    fn test_surface_position() {
        // The Riddle's surface pair needs a reference: a receiver at
        // Schiphol. Movement 42 = 18 kt, track 50 = 140.625°; movement 40
        // = 16 kt, track 35 = 98.4375°; the position from the pair.
        let mut tracker = Tracker::<4>::new(TrackerConfig::with_receiver(
            airwaves_core::modes::cpr::Position::new(51.990, 4.375),
        ));
        let mut s = String::new();
        for (h, t) in [
            ("8C4841753AAB238733C8CD4020B1", T0 + 10_000),
            ("8C4841753A8A35323FAEBDAC702D", T0 + 12_000),
        ] {
            let b = hex(h);
            let o = tracker.update(&ReceivedFrame::new(&b, t)).unwrap();
            assert!(write_sbs(&b, &o, tracker.get(o.key).unwrap(), t, t, &mut s));
        }
        assert_eq!(
            s,
            "MSG,2,1,1,484175,1,2016/03/14,23:00:10.000,2016/03/14,23:00:10.000,,,18.0,140.6,,,,,,,,-1\r\n\
             MSG,2,1,1,484175,1,2016/03/14,23:00:12.000,2016/03/14,23:00:12.000,,,16.0,98.4,52.32061,4.73473,,,,,,-1\r\n"
        );
    }

    #[test]
    fn test_mode_s_replies() {
        let l = lines(&[
            // DF11 from A039B4 (IID 0, CA 5 airborne): type 8.
            ("5da039b46d7d81", T0),
            // DF4 36000 ft from 4CA7E8, known through a DF11.
            ("DF11:4CA7E8", T0),
            ("2000171806A983", T0 + 100),
            // DF5 FS 2 (alert, airborne), squawk 0356, from 510AF9.
            ("DF11:510AF9", T0),
            ("2A00516D492B80", T0 + 200),
            // DF21 squawk 6246 from A95FDC (FS 6: ground unknown).
            ("DF11:A95FDC", T0),
            ("AE24238D15EE315463718B1AF755", T0 + 300),
            // DF20 from 3C6DD0.
            ("DF11:3C6DD0", T0),
            ("A0001838CA380031440000F24177", T0 + 400),
            // DF0 45000 ft from 0D097E; DF16 35000 ft from AC049E.
            ("DF11:0D097E", T0),
            ("02e19cb02512c3", T0 + 500),
            ("DF11:AC049E", T0),
            ("80e1969058b5025b9850641d2974", T0 + 600),
        ]);
        let head = |ty: u8, hex: &str, ms: u64| {
            format!(
                "MSG,{ty},1,1,{hex},1,2016/03/14,23:00:00.{ms:03},2016/03/14,23:00:00.{:03},",
                ms + 250
            )
        };
        assert_eq!(l[0], head(8, "A039B4", 0) + ",,,,,,,,,,,0\r\n");
        assert_eq!(l[2], head(5, "4CA7E8", 100) + ",36000,,,,,,,0,,0,0\r\n");
        assert_eq!(l[4], head(6, "510AF9", 200) + ",,,,,,,0356,-1,0,0,0\r\n");
        assert_eq!(l[6], head(6, "A95FDC", 300) + ",,,,,,,6246,0,0,0,\r\n");
        assert!(l[8].starts_with(&head(5, "3C6DD0", 400)), "{}", l[8]);
        assert_eq!(l[10], head(7, "0D097E", 500) + ",45000,,,,,,,,,,0\r\n");
        assert_eq!(l[12], head(7, "AC049E", 600) + ",35000,,,,,,,,,,0\r\n");
    }

    #[test]
    fn test_no_message() {
        // TC 31 operational status, TC 28 aircraft status: accepted by the
        // tracker, no SBS line.
        let l = lines(&[
            ("8dacc040f8210002004ab8569c35", T0),
            ("8DA2C1B6E112B600000000760759", T0),
        ]);
        assert_eq!(l, ["", ""]);
        // A buffer of the wrong length writes nothing.
        let mut tracker = Tracker::<4>::new(TrackerConfig::DEFAULT);
        let b = hex("8D4840D6202CC371C32CE0576098");
        let o = tracker.update(&ReceivedFrame::new(&b, 0)).unwrap();
        let mut s = String::new();
        assert!(!write_sbs(
            &b[..7],
            &o,
            tracker.get(o.key).unwrap(),
            0,
            0,
            &mut s
        ));
        assert!(s.is_empty());
    }

    #[test]
    fn test_non_icao_and_emergency() {
        // DF18 CF 5 (TIS-B, non-ICAO address) airborne position, 700 ft.
        let l = lines(&[("95298FCA680946499671468C7ACA", T0)]);
        assert!(
            l[0].starts_with("MSG,3,1,1,~298FCA,1,") && l[0].contains(",700,"),
            "{}",
            l[0]
        );
        // DF5 squawking 7700: emergency flag set.
        let mut f = Frame::new_unchecked([0u8; 7]);
        f.set_df(DownlinkFormat::SurveillanceIdentity);
        f.set_id13(airwaves_core::modes::frame::IdentityCode::from_squawk(0x7700).raw());
        f.fill_parity(0x4CA7E8);
        let df5 = f.into_inner();
        let mut tracker = Tracker::<4>::new(TrackerConfig::DEFAULT);
        tracker
            .update(&ReceivedFrame::new(&df11(0x4CA7E8), 0))
            .unwrap();
        let o = tracker.update(&ReceivedFrame::new(&df5, 1)).unwrap();
        let mut s = String::new();
        assert!(write_sbs(
            &df5,
            &o,
            tracker.get(o.key).unwrap(),
            1,
            1,
            &mut s
        ));
        assert_eq!(
            s,
            "MSG,6,1,1,4CA7E8,1,1970/01/01,00:00:00.001,1970/01/01,00:00:00.001,,,,,,,,7700,0,-1,0,0\r\n"
        );
    }

    /// The 2,000 DF17 frames of pyModeS' `pymodes_adsb.csv` (one
    /// aircraft, 406B90 EZY85MH, times in whole seconds): one line per
    /// identification, position and velocity frame, each with 22 fields;
    /// a latitude and longitude exactly on the frames that decoded a
    /// position.
    #[test]
    fn test_recorded_frames() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/data/adsb/pymodes_adsb.csv"
        );
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "{path}: {e} (CI=true: the shared test data must be present)"
                );
                eprintln!("skipping: {path}: {e}");
                return;
            }
        };
        let mut tracker = Tracker::<8>::new(TrackerConfig::DEFAULT);
        let mut out = String::new();
        let (mut frames, mut decoded) = (0, 0);
        let mut by_type = [0usize; 9];
        for row in text.lines() {
            let cols: Vec<&str> = row.split(',').collect();
            let t = cols[0].parse::<u64>().unwrap() * 1000;
            let b = hex(cols[1].trim_matches('"'));
            let o = tracker.update(&ReceivedFrame::new(&b, t)).unwrap();
            let ac = tracker.get(o.key).unwrap();
            out.clear();
            frames += 1;
            if !write_sbs(&b, &o, ac, t, t, &mut out) {
                continue;
            }
            let f: Vec<&str> = out.trim_end_matches("\r\n").split(',').collect();
            assert_eq!(f.len(), 22, "{out}");
            assert_eq!(f[4], "406B90");
            let ty: usize = f[1].parse().unwrap();
            by_type[ty] += 1;
            let has_pos = !f[14].is_empty() && !f[15].is_empty();
            let was_decoded = matches!(o.position, PositionUpdate::Decoded(_));
            assert_eq!(has_pos, was_decoded, "{out}");
            decoded += usize::from(was_decoded);
            match ty {
                1 => assert_eq!(f[10], "EZY85MH"),
                3 => assert!(f[11].parse::<i32>().is_ok() && f[21] == "0", "{out}"),
                4 => assert!(f[12].parse::<f32>().is_ok() && f[16].parse::<i32>().is_ok()),
                _ => panic!("{out}"),
            }
        }
        assert_eq!(frames, 2_000);
        assert_eq!(decoded, 933);
        assert_eq!(decoded as u64, tracker.stats().positions());
        // The file holds 98 TC 4, 937 TC 11 and 965 TC 19 frames.
        assert_eq!(by_type, [0, 98, 0, 937, 965, 0, 0, 0, 0]);
    }

    /// `civil_from_days` against a day-by-day count from 1970 over 800
    /// years (every leap rule), and known dates.
    #[test]
    fn test_civil_from_days() {
        let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let (mut y, mut m, mut d) = (1970i64, 1u32, 1u32);
        for days in 0..(800 * 366) {
            assert_eq!(civil_from_days(days), (y, m, d), "day {days}");
            let len = match m {
                2 if leap(y) => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            d += 1;
            if d > len {
                d = 1;
                m += 1;
                if m > 12 {
                    m = 1;
                    y += 1;
                }
            }
        }
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        let mut s = String::new();
        write_date_time(&mut s, 1_700_000_000_123, '-', 'T');
        assert_eq!(s, "2023-11-14T22:13:20.123");
    }
}
