//! `aircraft.json` and `receiver.json` in the schema of readsb and
//! dump1090-fa (their `README-json.md`), as read by tar1090, SkyAware,
//! piaware and feeder scripts.
//!
//! JSON is written by hand (no serde at run time): keys in a fixed order,
//! a key only when its value is known and finite, strings escaped
//! (`"`, `\`, and every character below U+0020 or above U+007E as
//! `\uXXXX`).
//!
//! # `aircraft.json`
//!
//! `{"now":S,"messages":N,"aircraft":[…]}`: `now` in s since 1970 (one
//! decimal), `messages` the caller's total of Mode S messages, then one
//! object per aircraft not yet expired (`now − last seen ≤`
//! [`TrackerConfig::expiry_ms`](airwaves_core::modes::tracker::TrackerConfig::expiry_ms)),
//! with these keys when known:
//!
//! | key | value |
//! |---|---|
//! | `hex` | 6 lower-case hex digits, `~` prefix for a non-ICAO address |
//! | `type` | `adsb_icao`, `adsb_icao_nt`, `adsr_icao`, `tisb_icao`, `mlat`, `adsb_other`, `tisb_other`, `mode_s` |
//! | `flight` | callsign padded with spaces to 8 characters |
//! | `r` | registration, where it follows from the address by arithmetic (United States N-numbers, [`registration`]) |
//! | `t`, `desc`, `dbFlags`, `ownOp`, `year` | from `--db-file` ([`AircraftDb`]), whose registration also takes the place of the arithmetic one |
//! | `country`, `country_code` | (airwaves' own) the state the ICAO address was allocated to and its ISO 3166-1 alpha-2 code ([`country`]; no code for ICAO's own blocks) |
//! | `alt_baro` | ft, or `"ground"` when on the ground |
//! | `alt_geom` | ft (GNSS height; else barometric altitude + the TC 19 GNSS−baro difference) |
//! | `gs`, `ias`, `tas` | kt (`gs` one decimal) |
//! | `mach` | 3 decimals |
//! | `track`, `mag_heading` | degrees, 2 decimals |
//! | `baro_rate`, `geom_rate` | ft/min |
//! | `squawk` | 4 octal digits, a string |
//! | `emergency` | `none`, `general`, `lifeguard`, `minfuel`, `nordo`, `unlawful`, `downed`, `reserved` |
//! | `category` | `A0`…`D7` |
//! | `lat`, `lon` | degrees, 6 decimals |
//! | `nic`, `rc` | NIC; radius of containment in m (rounded up; for NIC 6 the supplements choose 0.3, 0.5 or 0.6 NM), omitted for NIC 0 |
//! | `seen_pos` | s since the position, one decimal |
//! | `version`, `nic_baro`, `nac_p`, `nac_v`, `sil`, `gva` | integers |
//! | `sil_type` | `perhour` / `persample` |
//! | `mlat` | the fields above whose value came from a multilateration result (`lat`, `lon`, `nic`, `rc` with an MLAT position; `altitude`, `alt_geom` with an MLAT altitude; `gs`, `track`, `baro_rate` with an MLAT velocity), named as readsb names them; else `[]` |
//! | `tisb` | for `tisb_*` types, the fields above that came from TIS-B (readsb's names: `callsign` for `flight`, `altitude` for `alt_baro`); else `[]` |
//! | `links` | (airwaves' own) only for an aircraft heard on UAT (978 MHz, `--uat-device`): the links it was heard on, `["uat"]` or `["1090","uat"]`; its `type` is then `adsr_icao`, `adsb_other`, `tisb_icao` or `tisb_other` as readsb shows UAT targets (unless also heard as `adsb_icao` on 1090 MHz) |
//! | `messages` | accepted frames from this aircraft |
//! | `seen` | s since the last frame, one decimal |
//! | `rssi` | mean signal of the last 8 frames, dBFS, one decimal |
//! | `r_dst`, `r_dir` | distance from the receiver in NM (3 decimals) and bearing from it in degrees (1 decimal), when the receiver and the position are known |
//!
//! Altitude, velocity and position older than
//! [`TrackerConfig::stale_ms`](airwaves_core::modes::tracker::TrackerConfig::stale_ms)
//! at `now` are left out, like readsb drops stale fields.

use core::fmt::Write;

use crate::feed::aircraft_db::AircraftDb;
use airwaves_core::modes::adsb::EmergencyState;
use airwaves_core::modes::country::country;
use airwaves_core::modes::cpr::{Position, distance_nm};
use airwaves_core::modes::registration::registration;
use airwaves_core::modes::tracker::{AddressType, Aircraft, NON_ICAO, Tracker};

pub(crate) use crate::json::{JsonWriter, push_json_string};

/// readsb's `type` for an address type.
pub fn address_type_name(t: AddressType) -> &'static str {
    match t {
        AddressType::AdsbIcao => "adsb_icao",
        AddressType::AdsbIcaoNonTransponder => "adsb_icao_nt",
        AddressType::AdsR => "adsr_icao",
        AddressType::TisbIcao => "tisb_icao",
        AddressType::Mlat => "mlat",
        AddressType::AdsbOther => "adsb_other",
        AddressType::TisbOther => "tisb_other",
        AddressType::ModeS => "mode_s",
    }
}

/// readsb's `emergency` value.
pub fn emergency_name(e: EmergencyState) -> &'static str {
    match e {
        EmergencyState::None => "none",
        EmergencyState::General => "general",
        EmergencyState::Medical => "lifeguard",
        EmergencyState::MinimumFuel => "minfuel",
        EmergencyState::NoCommunications => "nordo",
        EmergencyState::UnlawfulInterference => "unlawful",
        EmergencyState::DownedAircraft => "downed",
        EmergencyState::Reserved => "reserved",
    }
}

/// Initial great-circle bearing from `from` to `to`, degrees 0–360
/// clockwise from true north.
pub fn bearing_deg(from: Position, to: Position) -> f64 {
    let (p1, p2) = (from.lat.to_radians(), to.lat.to_radians());
    let dl = (to.lon - from.lon).to_radians();
    let y = dl.sin() * p2.cos();
    let x = p1.cos() * p2.sin() - p1.sin() * p2.cos() * dl.cos();
    y.atan2(x).to_degrees().rem_euclid(360.0)
}

/// Append `aircraft.json` for every aircraft of `tracker` not expired at
/// `now_unix_ms` (ms since 1970 UTC, the tracker's clock) to `out`;
/// `messages_total` is the `messages` total, `receiver` the receiver's
/// location for `r_dst` / `r_dir`. See the [module docs](self) for the
/// keys.
///
/// ```
/// use airwaves::feed::json::write_aircraft_json;
/// use airwaves_core::modes::tracker::{ReceivedFrame, Tracker, TrackerConfig};
/// let mut tracker = Tracker::<16>::new(TrackerConfig::DEFAULT);
/// let ident = [0x8D, 0x48, 0x40, 0xD6, 0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x2C, 0xE0, 0x57, 0x60, 0x98];
/// tracker.update(&ReceivedFrame::new(&ident, 1_700_000_000_000)).unwrap();
/// let mut json = String::new();
/// write_aircraft_json(&tracker, 1_700_000_000_500, 1, None, &mut json);
/// assert_eq!(
///     json,
///     r#"{"now":1700000000.5,"messages":1,"aircraft":[{"hex":"4840d6","type":"adsb_icao","flight":"KLM1023 ","country":"Netherlands","country_code":"NL","category":"A0","mlat":[],"tisb":[],"messages":1,"seen":0.5}]}"#
/// );
/// ```
pub fn write_aircraft_json<const N: usize>(
    tracker: &Tracker<N>,
    now_unix_ms: u64,
    messages_total: u64,
    receiver: Option<Position>,
    out: &mut String,
) {
    write_aircraft_json_with(tracker, now_unix_ms, messages_total, receiver, None, out);
}

/// [`write_aircraft_json`] with the user's aircraft database: for an
/// aircraft in it, `r` (its registration, over the arithmetic one), `t`,
/// `desc`, `dbFlags`, `ownOp` and `year` as readsb writes them.
pub fn write_aircraft_json_with<const N: usize>(
    tracker: &Tracker<N>,
    now_unix_ms: u64,
    messages_total: u64,
    receiver: Option<Position>,
    db: Option<&AircraftDb>,
    out: &mut String,
) {
    let cfg = tracker.config();
    let mut top = JsonWriter::object(out);
    top.float("now", now_unix_ms as f64 / 1000.0, 1);
    top.int("messages", messages_total.min(i64::MAX as u64) as i64);
    let list = top.key("aircraft");
    let mut arr = JsonWriter::array(list);
    for ac in tracker.iter() {
        if now_unix_ms.saturating_sub(ac.last_seen_ms()) > cfg.expiry_ms {
            continue;
        }
        write_one(ac, now_unix_ms, cfg.stale_ms, receiver, db, arr.element());
    }
    arr.close_array();
    top.close_object();
}

/// Which tracker group set an aircraft.json field (for the `mlat` list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Group {
    Position,
    Altitude,
    Velocity,
    Other,
}

/// The name readsb and dump1090-fa give a field in the `mlat` and `tisb`
/// lists: the aircraft.json key, except `callsign` for `flight` and
/// `altitude` for `alt_baro`.
fn source_field_name(key: &str) -> &str {
    match key {
        "flight" => "callsign",
        "alt_baro" => "altitude",
        k => k,
    }
}

/// Seconds from `t_ms` to `now_ms`, 0 if `t_ms` is later.
fn age_s(now_ms: u64, t_ms: u64) -> f64 {
    now_ms.saturating_sub(t_ms) as f64 / 1000.0
}

/// One aircraft object.
fn write_one(
    ac: &Aircraft,
    now: u64,
    stale_ms: u64,
    receiver: Option<Position>,
    db: Option<&AircraftDb>,
    out: &mut String,
) {
    let fresh = |t: Option<u64>| t.is_some_and(|t| now.saturating_sub(t) <= stale_ms);
    let alt_fresh = fresh(ac.altitude_time_ms());
    let vel_fresh = fresh(ac.velocity_time_ms());
    let tisb = matches!(
        ac.address_type(),
        AddressType::TisbIcao | AddressType::TisbOther
    );
    // Fields written that came from ES messages, with the group that set
    // them, for the `tisb` and `mlat` lists.
    let mut es_keys: [(&str, Group); 24] = [("", Group::Other); 24];
    let mut n_es = 0;
    let mut o = JsonWriter::object(out);
    {
        let h = o.key("hex");
        h.push('"');
        if ac.key() & NON_ICAO != 0 {
            h.push('~');
        }
        let _ = write!(h, "{:06x}\"", ac.address());
    }
    o.string("type", address_type_name(ac.address_type()));
    // Start an ES-derived member: note its field for the source lists.
    macro_rules! es {
        ($o:expr, $key:expr) => {
            es!($o, $key, Group::Other)
        };
        ($o:expr, $key:expr, $group:expr) => {{
            if let Some(slot) = es_keys.get_mut(n_es) {
                *slot = ($key, $group);
                n_es += 1;
            }
            $o.key($key)
        }};
    }
    if let Some(c) = ac.callsign() {
        let mut padded = [b' '; 8];
        for (d, s) in padded.iter_mut().zip(c.bytes()) {
            *d = s;
        }
        let s = core::str::from_utf8(&padded).unwrap_or("");
        push_json_string(es!(o, "flight"), s);
    }
    let record = db
        .filter(|_| ac.key() & NON_ICAO == 0)
        .and_then(|db| db.get(ac.address()));
    if let Some(d) = record {
        for (k, v) in [
            ("r", d.registration),
            ("t", d.type_code),
            ("desc", d.description),
        ] {
            if !v.is_empty() {
                o.string(k, v);
            }
        }
        if d.flags != 0 {
            o.int("dbFlags", i64::from(d.flags));
        }
        for (k, v) in [("ownOp", d.owner_operator), ("year", d.year)] {
            if !v.is_empty() {
                o.string(k, v);
            }
        }
    }
    if ac.key() & NON_ICAO == 0 {
        if record.is_none_or(|d| d.registration.is_empty())
            && let Some(r) = registration(ac.address())
        {
            o.string("r", r.as_str());
        }
        if let Some(b) = country(ac.address()) {
            o.string("country", b.name);
            if let Some(code) = b.iso_code() {
                o.string("country_code", code);
            }
        }
    }
    let baro = ac.altitude_baro_ft().filter(|_| alt_fresh);
    if ac.on_ground() == Some(true) {
        o.string("alt_baro", "ground");
    } else if let Some(a) = baro {
        let _ = write!(es!(o, "alt_baro", Group::Altitude), "{a}");
    }
    let geom = ac
        .altitude_gnss_ft()
        .or_else(|| Some(baro? + ac.gnss_baro_diff_ft()?));
    if let Some(g) = geom {
        let _ = write!(es!(o, "alt_geom", Group::Altitude), "{g}");
    }
    if vel_fresh {
        if let Some(v) = ac.ground_speed_kt().filter(|v| v.is_finite()) {
            let _ = write!(es!(o, "gs", Group::Velocity), "{v:.1}");
        }
        if let Some(v) = ac.ias_kt() {
            let _ = write!(es!(o, "ias"), "{v}");
        }
        if let Some(v) = ac.tas_kt() {
            let _ = write!(es!(o, "tas"), "{v}");
        }
    }
    if let Some(m) = ac.mach().filter(|m| m.is_finite()) {
        o.float("mach", f64::from(m), 3);
    }
    if vel_fresh {
        if let Some(v) = ac.track_deg().filter(|v| v.is_finite()) {
            let _ = write!(es!(o, "track", Group::Velocity), "{v:.2}");
        }
        if let Some(v) = ac.heading_deg().filter(|v| v.is_finite()) {
            let _ = write!(es!(o, "mag_heading"), "{v:.2}");
        }
        if let Some(v) = ac.vertical_rate_baro_fpm() {
            let _ = write!(es!(o, "baro_rate", Group::Velocity), "{v}");
        }
        if let Some(v) = ac.vertical_rate_gnss_fpm() {
            let _ = write!(es!(o, "geom_rate"), "{v}");
        }
    }
    if let Some(s) = ac.squawk() {
        let _ = write!(o.key("squawk"), "\"{s:04x}\"");
    }
    if let Some(e) = ac.emergency() {
        o.string("emergency", emergency_name(e));
    }
    if let Some(c) = ac.category() {
        let _ = write!(o.key("category"), "\"{c}\"");
    }
    let fix = ac
        .position()
        .filter(|f| now.saturating_sub(f.t_ms) <= stale_ms && f.position.is_valid());
    if let Some(f) = fix {
        let _ = write!(es!(o, "lat", Group::Position), "{:.6}", f.position.lat);
        let _ = write!(es!(o, "lon", Group::Position), "{:.6}", f.position.lon);
    }
    if let Some(nic) = ac.nic() {
        let _ = write!(es!(o, "nic", Group::Position), "{nic}");
        if let Some(rc) = ac.radius_of_containment_m() {
            let _ = write!(es!(o, "rc", Group::Position), "{rc}");
        }
    }
    if let Some(f) = fix {
        o.float("seen_pos", age_s(now, f.t_ms), 1);
    }
    if let Some(v) = ac.adsb_version() {
        o.int("version", i64::from(v));
    }
    if let Some(b) = ac.nic_baro() {
        let _ = write!(es!(o, "nic_baro"), "{}", u8::from(b));
    }
    if let Some(v) = ac.nac_p() {
        let _ = write!(es!(o, "nac_p"), "{v}");
    }
    if let Some(v) = ac.nac_v() {
        let _ = write!(es!(o, "nac_v"), "{v}");
    }
    if let Some(v) = ac.sil() {
        let _ = write!(es!(o, "sil"), "{v}");
    }
    if let Some(per_sample) = ac.sil_per_sample() {
        let t = if per_sample { "persample" } else { "perhour" };
        push_json_string(es!(o, "sil_type"), t);
    }
    if let Some(v) = ac.gva() {
        let _ = write!(es!(o, "gva"), "{v}");
    }
    {
        let mut list = JsonWriter::array(o.key("mlat"));
        for &(k, group) in es_keys.iter().take(n_es) {
            let from_mlat = match group {
                Group::Position => ac.mlat_position(),
                Group::Altitude => ac.mlat_altitude(),
                Group::Velocity => ac.mlat_velocity(),
                Group::Other => false,
            };
            if from_mlat {
                push_json_string(list.element(), source_field_name(k));
            }
        }
        list.close_array();
    }
    {
        let mut list = JsonWriter::array(o.key("tisb"));
        if tisb {
            for &(k, _) in es_keys.iter().take(n_es) {
                push_json_string(list.element(), source_field_name(k));
            }
        }
        list.close_array();
    }
    if ac.heard_on_uat() {
        let mut list = JsonWriter::array(o.key("links"));
        if ac.heard_on_1090() {
            push_json_string(list.element(), "1090");
        }
        push_json_string(list.element(), "uat");
        list.close_array();
    }
    o.int("messages", i64::from(ac.messages()));
    o.float("seen", age_s(now, ac.last_seen_ms()), 1);
    if let Some(r) = ac.signal_dbfs() {
        o.float("rssi", f64::from(r), 1);
    }
    if let (Some(rx), Some(f)) = (receiver.filter(Position::is_valid), fix) {
        o.float("r_dst", distance_nm(rx, f.position), 3);
        o.float("r_dir", bearing_deg(rx, f.position), 1);
    }
    o.close_object();
}

/// What `receiver.json` says about the receiver.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverInfo {
    /// Software version string, e.g. `"airwaves 0.1.0"`.
    pub version: &'static str,
    /// How often `aircraft.json` is rewritten, ms (the web map polls at
    /// this interval).
    pub refresh_ms: u32,
    /// Number of valid `history_N.json` files.
    pub history: u32,
    /// The receiver's location, degrees; omitted when `None` or not
    /// [valid](Position::is_valid).
    pub position: Option<Position>,
    /// Map tile URL template for the web map (`"tiles"`), when set.
    pub tiles: Option<String>,
    /// The tuner gain now, dB (`"gain_db"`), when known.
    pub gain_db: Option<f64>,
}

/// Append `receiver.json`:
/// `{"version":…,"refresh":…,"history":…,"lat":…,"lon":…,"outlineJson":true,"tiles":…}`
/// (`lat`/`lon` with 6 decimals and `outlineJson`, readsb's flag that
/// `outline.json` is served, only when the location is known; `tiles` only
/// when set).
///
/// ```
/// use airwaves::feed::json::{ReceiverInfo, write_receiver_json};
/// use airwaves_core::modes::cpr::Position;
/// let r = ReceiverInfo {
///     version: "airwaves 0.1.0",
///     refresh_ms: 1000,
///     history: 0,
///     position: Some(Position::new(52.3, 4.76)),
///     tiles: None,
///     gain_db: Some(33.8),
/// };
/// let mut json = String::new();
/// write_receiver_json(&r, &mut json);
/// assert_eq!(
///     json,
///     r#"{"version":"airwaves 0.1.0","refresh":1000,"history":0,"lat":52.300000,"lon":4.760000,"outlineJson":true,"gain_db":33.8}"#
/// );
/// ```
pub fn write_receiver_json(r: &ReceiverInfo, out: &mut String) {
    let mut o = JsonWriter::object(out);
    o.string("version", r.version);
    o.int("refresh", i64::from(r.refresh_ms));
    o.int("history", i64::from(r.history));
    if let Some(p) = r.position.filter(Position::is_valid) {
        o.float("lat", p.lat, 6);
        o.float("lon", p.lon, 6);
        // There is a range outline (tar1090 then loads outline.json).
        o.key("outlineJson").push_str("true");
    }
    if let Some(t) = &r.tiles {
        o.string("tiles", t);
    }
    if let Some(g) = r.gain_db {
        o.float("gain_db", g, 1);
    }
    o.close_object();
}

#[cfg(test)]
mod test {
    use super::*;
    use airwaves_core::modes::tracker::{ReceivedFrame, TrackerConfig};
    use serde_json::Value;

    use crate::feed::testing::hex;

    const T0: u64 = 1_457_996_400_000;

    fn feed<const N: usize>(tr: &mut Tracker<N>, frames: &[(&str, u64, f32)]) {
        for &(h, t, dbfs) in frames {
            let b = hex(h);
            tr.update(&ReceivedFrame::new(&b, t).with_signal(dbfs))
                .unwrap_or_else(|e| panic!("{h}: {e}"));
        }
    }

    /// The Riddle's aircraft 40621D (position pair) and 485020 (velocity),
    /// plus KLM1023's identification, with a receiver near Amsterdam.
    #[test]
    fn test_aircraft_json() {
        let mut tr = Tracker::<16>::new(TrackerConfig::DEFAULT);
        feed(
            &mut tr,
            &[
                ("8D40621D58C386435CC412692AD6", T0, -10.0),
                ("8D40621D58C382D690C8AC2863A7", T0 + 2_000, -10.0),
                ("8D485020994409940838175B284F", T0 + 2_500, -20.0),
                ("8D4840D6202CC371C32CE0576098", T0 + 3_000, f32::NAN),
            ],
        );
        let rx = Position::new(52.3, 4.76);
        let mut s = String::from("prefix");
        write_aircraft_json(&tr, T0 + 4_000, 1234, Some(rx), &mut s);
        let json = s.strip_prefix("prefix").unwrap();
        let v: Value = serde_json::from_str(json).unwrap();
        assert_eq!(v["now"], 1_457_996_404.0);
        assert_eq!(v["messages"], 1234);
        let list = v["aircraft"].as_array().unwrap();
        assert_eq!(list.len(), 3);
        let find = |h: &str| list.iter().find(|a| a["hex"] == h).unwrap().clone();

        // Whole object, literally.
        let a = find("40621d");
        assert!(json.contains(
            r#"{"hex":"40621d","type":"adsb_icao","country":"United Kingdom","country_code":"GB","alt_baro":38000,"lat":52.257202,"lon":3.919373,"seen_pos":2.0,"mlat":[],"tisb":[],"messages":2,"seen":2.0,"rssi":-10.0,"r_dst":30.986,"r_dir":265.6}"#
        ), "{json}");
        // r_dst agrees with the haversine distance.
        let d = distance_nm(rx, Position::new(52.2572021484375, 3.91937255859375));
        assert!((a["r_dst"].as_f64().unwrap() - d).abs() < 1e-3);

        let b = find("485020");
        assert_eq!(b["gs"], 159.2);
        assert_eq!(b["track"], 182.88);
        assert_eq!(b["geom_rate"], -832);
        assert_eq!(b["nac_v"], 0);
        assert_eq!(b["rssi"], -20.0);
        assert_eq!(b["seen"], 1.5);
        assert!(b.get("baro_rate").is_none() && b.get("lat").is_none());
        assert!(b.get("alt_geom").is_none()); // no baro altitude to add to

        let c = find("4840d6");
        assert_eq!(c["flight"], "KLM1023 ");
        assert_eq!(c["category"], "A0");
        assert!(c.get("rssi").is_none());

        // A United States address carries its N-number; others none.
        feed(&mut tr, &[("5DA835AFB4FD2F", T0 + 3_500, -12.0)]);
        let mut s = String::new();
        write_aircraft_json(&tr, T0 + 4_000, 1234, None, &mut s);
        let v: Value = serde_json::from_str(&s).unwrap();
        let list = v["aircraft"].as_array().unwrap();
        let us = list.iter().find(|a| a["hex"] == "a835af").unwrap();
        assert_eq!(us["r"], "N628TS", "{s}");
        assert!(
            list.iter().filter(|a| a.get("r").is_some()).count() == 1,
            "{s}"
        );

        // 61 s later everything has expired: the list is empty.
        let mut s = String::new();
        write_aircraft_json(&tr, T0 + 64_001, 0, None, &mut s);
        assert_eq!(s, r#"{"now":1457996464.0,"messages":0,"aircraft":[]}"#);
    }

    /// Stale position and velocity are dropped; ground altitude; TIS-B
    /// lists its fields; status and quality fields.
    #[test]
    fn test_fields() {
        let cfg = TrackerConfig {
            expiry_ms: 300_000,
            stale_ms: 60_000,
            ..TrackerConfig::DEFAULT
        };
        let mut tr = Tracker::<16>::new(cfg);
        feed(
            &mut tr,
            &[
                ("8D40621D58C386435CC412692AD6", T0, -3.0),
                ("8D40621D58C382D690C8AC2863A7", T0 + 2_000, -3.0),
                // TC 31 v2 for ACC040, then its squawk from TC 28.
                ("8dacc040f8210002004ab8569c35", T0, -3.0),
                // DF18 CF 5 TIS-B airborne position, 700 ft.
                ("95298FCA680946499671468C7ACA", T0, -3.0),
                // Surface movement (ground) for 484175.
                ("8C4841753AAB238733C8CD4020B1", T0, -3.0),
                // TC 28 emergency status: squawk 6513.
                ("8DA2C1B6E112B600000000760759", T0, -3.0),
            ],
        );
        let mut s = String::new();
        write_aircraft_json(&tr, T0 + 62_001, 0, None, &mut s);
        let v: Value = serde_json::from_str(&s).unwrap();
        let list = v["aircraft"].as_array().unwrap();
        let find = |h: &str| list.iter().find(|a| a["hex"] == h).unwrap().clone();
        let a = find("40621d");
        // Position 60.001 s old: gone; altitude too.
        assert!(a.get("lat").is_none() && a.get("seen_pos").is_none());
        assert!(a.get("alt_baro").is_none());
        let q = find("acc040");
        assert_eq!(
            (&q["version"], &q["nac_p"], &q["sil"], &q["sil_type"]),
            (
                &Value::from(2),
                &Value::from(10),
                &Value::from(3),
                &Value::from("perhour")
            )
        );
        assert_eq!(
            (&q["gva"], &q["nic_baro"]),
            (&Value::from(2), &Value::from(1))
        );
        let t = find("~298fca");
        assert_eq!(t["type"], "tisb_other");
        assert_eq!(t["tisb"], serde_json::json!([]));
        let g = find("484175");
        assert_eq!(g["alt_baro"], "ground");
        let e = find("a2c1b6");
        assert_eq!(
            (&e["squawk"], &e["emergency"]),
            (&Value::from("6513"), &Value::from("none"))
        );

        // A fresh TIS-B position lists lat/lon under "tisb".
        let mut s = String::new();
        write_aircraft_json(&tr, T0 + 1_000, 0, None, &mut s);
        let v: Value = serde_json::from_str(&s).unwrap();
        let t = v["aircraft"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["hex"] == "~298fca")
            .unwrap()
            .clone();
        assert_eq!(t["alt_baro"], 700);
        // readsb's field names: "altitude" for alt_baro.
        assert_eq!(t["tisb"], serde_json::json!(["altitude"]), "{t}");
        assert_eq!(t["mlat"], serde_json::json!([]), "{t}");
    }

    /// `--db-file` fields, readsb's keys; the database's registration
    /// over the arithmetic one.
    #[test]
    fn test_db_fields() {
        let db = AircraftDb::from_text(
            b"4840D6;PH-BXA;B738;01;BOEING 737-800;1999;KLM\nA835AF;;GLF5;;\n".to_vec(),
        )
        .unwrap();
        let mut tr = Tracker::<16>::new(TrackerConfig::DEFAULT);
        feed(
            &mut tr,
            &[
                ("8D4840D6202CC371C32CE0576098", T0, -10.0),
                ("92A835AF99046519382C00B5C721", T0, -10.0),
            ],
        );
        let mut s = String::new();
        write_aircraft_json_with(&tr, T0, 0, None, Some(&db), &mut s);
        let v: Value = serde_json::from_str(&s).unwrap();
        let list = v["aircraft"].as_array().unwrap();
        let find = |h: &str| list.iter().find(|a| a["hex"] == h).unwrap().clone();
        let klm = find("4840d6");
        assert_eq!(
            (
                &klm["r"],
                &klm["t"],
                &klm["desc"],
                &klm["dbFlags"],
                &klm["ownOp"],
                &klm["year"]
            ),
            (
                &Value::from("PH-BXA"),
                &Value::from("B738"),
                &Value::from("BOEING 737-800"),
                &Value::from(2),
                &Value::from("KLM"),
                &Value::from("1999")
            )
        );
        // No registration in the database: the N-number from the address.
        let n = find("a835af");
        assert_eq!(
            (&n["r"], &n["t"]),
            (&Value::from("N628TS"), &Value::from("GLF5"))
        );
        assert!(n.get("desc").is_none() && n.get("dbFlags").is_none());
    }

    /// mlat-client's results for A835AF (DF18 CF 2 TC 18 pair, TC 19):
    /// typed `mlat`, the fields they set listed under `mlat`.
    #[test]
    fn test_mlat_fields() {
        let mut tr = Tracker::<16>::new(TrackerConfig::DEFAULT);
        for h in [
            "92A835AF901502DDDEF3B61949EC",
            "92A835AF901506491AECF115B1EB",
            "92A835AF99046519382C00B5C721",
        ] {
            let b = hex(h);
            tr.update(&ReceivedFrame::new(&b, T0).as_mlat()).unwrap();
        }
        let mut s = String::new();
        write_aircraft_json(&tr, T0 + 500, 0, None, &mut s);
        let v: Value = serde_json::from_str(&s).unwrap();
        let a = &v["aircraft"][0];
        assert_eq!(a["type"], "mlat");
        assert_eq!(a["r"], "N628TS");
        assert_eq!(
            a["mlat"],
            serde_json::json!(["altitude", "gs", "track", "baro_rate", "lat", "lon"]),
            "{a}"
        );
        assert_eq!(a["tisb"], serde_json::json!([]));
        assert_eq!(a["alt_baro"], 3000);
    }

    #[test]
    fn test_escape_and_receiver() {
        let mut s = String::new();
        push_json_string(&mut s, "a\"b\\c\n\u{7f}é😀");
        assert_eq!(s, r#""a\"b\\c\u000a\u007f\u00e9\ud83d\ude00""#);
        let back: String = serde_json::from_str(&s).unwrap();
        assert_eq!(back, "a\"b\\c\n\u{7f}é😀");

        let r = ReceiverInfo {
            version: "x\"y",
            refresh_ms: 1000,
            history: 120,
            position: Some(Position::new(f64::NAN, 4.0)),
            tiles: Some("https://tile/{z}/{x}/{y}.png".into()),
            gain_db: None,
        };
        let mut s = String::new();
        write_receiver_json(&r, &mut s);
        assert_eq!(
            s,
            r#"{"version":"x\"y","refresh":1000,"history":120,"tiles":"https://tile/{z}/{x}/{y}.png"}"#
        );
    }

    #[test]
    fn test_helpers() {
        let o = Position::new(0.0, 0.0);
        assert!((bearing_deg(o, Position::new(1.0, 0.0)) - 0.0).abs() < 1e-9);
        assert!((bearing_deg(o, Position::new(0.0, 1.0)) - 90.0).abs() < 1e-9);
        assert!((bearing_deg(o, Position::new(-1.0, 0.0)) - 180.0).abs() < 1e-9);
        assert!((bearing_deg(o, Position::new(0.0, -1.0)) - 270.0).abs() < 1e-9);
        assert_eq!(address_type_name(AddressType::AdsR), "adsr_icao");
        assert_eq!(
            emergency_name(EmergencyState::UnlawfulInterference),
            "unlawful"
        );
    }
}
