//! `airwaves decode`: demodulate a `.cu8` recording (or stdin) and print
//! one line per Mode S frame (and, with `--modeac`, per Mode A/C reply).
//!
//! Formats: `avr-ts` (`@` + 12 hex digits of the 12 MHz timestamp + frame
//! hex + `;`, dump1090's "mlat" text format), `avr` (`*HEX;`), `json` (one
//! object per frame with every decoded field). Mode A/C replies are written
//! as dump1090 does: 2 bytes, the squawk nibbles with `0x0080` for SPI
//! (`*7500;`). Input of any length is read in fixed chunks into the core
//! demodulator and Mode A/C detector; nothing allocates per sample. Lines
//! come out as each detector finishes a reply, so Mode A/C and Mode S lines
//! may be out of time order by up to ~150 µs.
//!
//! # JSON
//!
//! One object per line, keys in snake_case with the unit in the name
//! (`_ft`, `_kt`, `_deg`, `_fpm`, `_hpa`, `_c`, `_dbfs`, `_12mhz`), every
//! number finite (a non-finite value is written as `null`), strings
//! escaped. Always present: `type` (`"mode_s"` or `"mode_ac"`),
//! `timestamp_12mhz`, `signal_dbfs`. Mode S: `hex`, `df`, `icao` (the AA
//! field or the address recovered from the parity), `repaired_bits`, then
//! the fields of its downlink format:
//!
//! | DF | fields |
//! |---|---|
//! | 0, 16 | `vs_on_ground`, `cc` (DF0), `sl`, `ri`, `altitude_ft` |
//! | 4, 5, 20, 21 | `fs`, `alert`, `spi`, `on_ground`, `dr`, `um`, `altitude_ft` (4, 20) or `squawk` (5, 21); 20/21 also `commb` |
//! | 11 | `ca`, `ii` or `si` |
//! | 17, 18 | `ca` (17) or `cf` + `cf_name` (18), `tc`, `me_type` and the ADS-B fields below |
//! | 19 | `af` |
//! | 24 | `ke`, `nd` |
//!
//! `commb` is an object: `bds` (the inferred register, `"4,0"`, or `null`),
//! `bds_candidates` (every register that fits), `ambiguous`, and the
//! decoded fields of the inferred register.
//!
//! ADS-B (`me_type`): `identification` (`callsign`, `category`,
//! `category_description`), `surface_position` (`movement`,
//! `ground_speed_kt`, `track_deg`, CPR fields), `airborne_position`
//! (`surveillance_status`, `nic_b`, `altitude_baro_ft` or
//! `altitude_gnss_ft`, CPR fields), `airborne_velocity` (`subtype`,
//! ground: `velocity_ew_kt`, `velocity_ns_kt`, `ground_speed_kt`,
//! `track_deg`; air: `heading_deg`, `ias_kt` or `tas_kt`; both:
//! `vertical_rate_fpm`, `vertical_rate_source`, `gnss_baro_diff_ft`,
//! `nac_v`, ...), `emergency` (`emergency`, `squawk`), `acas_ra`,
//! `target_state` (selected altitude, baro setting, heading, modes),
//! `operational_status` (`version`, `nic_a`, `nac_p`, `gva`, `sil`, ...),
//! `unknown`. CPR fields are `cpr_odd`, `cpr_lat`, `cpr_lon`, `nuc_p`,
//! `utc_sync`, and `lat_deg`/`lon_deg`/`position_source` when the tracker
//! decoded a position from this frame (global from an even/odd pair, or
//! local from the aircraft's last position or, with `--lat/--lon`, the
//! receiver).
//!
//! Mode A/C: `code` (13 bits in pulse order, C1 … D4), `squawk`,
//! `altitude_ft` (when the code is a valid Gillham altitude, else `null`),
//! `spi`, `garbled`.

use crate::json::JsonWriter;
use crate::mode_s::{ConfigError, tracker_config};
use airwaves_core::modes::{
    adsb::{
        AdsbRepr, AircraftStatus, AirspeedType, AltitudeSource, CprPosition, EmergencyState,
        TargetState, Velocity, VerticalRateSource,
    },
    commb::{self, Bds, Mb, ThreatIdentity},
    cpr::Position,
    demod::{DemodFrame, Demodulator},
    encode::{AVR_MAX_LEN, Timestamp, encode_avr},
    frame::{Capability, ControlField, Frame, InterrogatorCode},
    modeac::{ModeAcDetector, ModeAcReply},
    receiver::{Clock, Decoded, ModeAc, Receiver, Sink},
    tracker::{PositionSource, PositionUpdate},
};
use std::fmt::Write as _;
use std::io::{self, Read, Write};

/// Output line format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// `@TTTTTTTTTTTTHEX;` (12 MHz timestamp, dump1090 `--mlat` text).
    AvrTs,
    /// `*HEX;`.
    Avr,
    /// One JSON object per line with every decoded field.
    Json,
}

/// What `decode` does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecodeOptions {
    /// Sample rate of the input, samples/s.
    pub rate: u32,
    /// Output format.
    pub format: Format,
    /// Also detect Mode A/C replies (off by default, as in dump1090-fa).
    pub modeac: bool,
    /// The receiver's location (degrees), for local CPR decoding of single
    /// position messages and surface positions in JSON output.
    pub receiver: Option<Position>,
}

impl DecodeOptions {
    /// Mode S only, no receiver location.
    pub fn new(rate: u32, format: Format) -> Self {
        Self {
            rate,
            format,
            modeac: false,
            receiver: None,
        }
    }
}

/// Counters of one decode run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DecodeStats {
    /// I/Q samples read.
    pub samples: u64,
    /// Mode S frames written.
    pub frames: u64,
    /// Mode A/C replies written.
    pub mode_ac: u64,
}

/// Demodulate `input` as `opts` says and write one line per frame (and
/// Mode A/C reply) to `out`.
///
/// # Errors
/// An unsupported rate (Mode A/C needs 2.0 or 2.4 MS/s) or an invalid
/// receiver location (`InvalidInput`, wrapping the
/// [`crate::mode_s::ConfigError`]), or any read/write error.
pub fn decode_with(
    opts: &DecodeOptions,
    input: &mut impl Read,
    out: &mut impl Write,
) -> io::Result<DecodeStats> {
    let invalid = |e: ConfigError| io::Error::new(io::ErrorKind::InvalidInput, e);
    let demod = Demodulator::new(opts.rate).map_err(|e| invalid(ConfigError::Demod(e)))?;
    let modeac = if opts.modeac {
        let detector =
            ModeAcDetector::new(opts.rate).map_err(|e| invalid(ConfigError::ModeAc(e)))?;
        Some(ModeAc::new(detector))
    } else {
        None
    };
    let tracker_config = tracker_config(opts.receiver).map_err(invalid)?;
    // The tracker's clock is the recording's own sample time (ms from its
    // first sample): aircraft are tracked as they flew.
    let clock = Clock::Samples { epoch_ms: 0 };
    let mut rx = Box::new(
        Receiver::<AIRCRAFT, _>::with_modeac(demod, modeac, tracker_config, clock)
            .map_err(|e| invalid(ConfigError::Receiver(e)))?,
    );
    let mut buf = vec![0u8; 256 * 1024];
    let mut sink = LineSink {
        format: opts.format,
        out,
        line: String::with_capacity(1024),
        stats: DecodeStats::default(),
        err: None,
    };
    // Until the end of the input, or a signal (the frames so far are
    // flushed and counted).
    while !crate::stop::requested() {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        sink.stats.samples += (n / 2) as u64;
        rx.process(&buf[..n], 0, &mut sink);
        if let Some(e) = sink.err.take() {
            return Err(e);
        }
    }
    rx.finish(0, &mut sink);
    if let Some(e) = sink.err.take() {
        return Err(e);
    }
    sink.out.flush()?;
    Ok(sink.stats)
}

/// Aircraft table capacity (positions and Comm-B context for JSON).
const AIRCRAFT: usize = 1024;

/// Formats frames into one reused line buffer and writes them; the first
/// write error is kept and stops further output.
struct LineSink<'a, W: Write> {
    format: Format,
    out: &'a mut W,
    line: String,
    stats: DecodeStats,
    err: Option<io::Error>,
}

impl<W: Write> Sink<AIRCRAFT> for LineSink<'_, W> {
    fn frame(&mut self, d: &Decoded<'_, AIRCRAFT>) {
        if self.err.is_some() {
            return;
        }
        self.line.clear();
        match self.format {
            Format::Json => json_frame(d, &mut self.line),
            format => avr_line(
                format,
                d.frame.bytes(),
                d.frame.timestamp.get(),
                &mut self.line,
            ),
        }
        match self.out.write_all(self.line.as_bytes()) {
            Ok(()) => self.stats.frames += 1,
            Err(e) => self.err = Some(e),
        }
    }

    fn mode_ac(&mut self, r: &ModeAcReply) {
        if self.err.is_some() {
            return;
        }
        self.line.clear();
        match self.format {
            Format::Json => json_mode_ac(r, &mut self.line),
            format => avr_line(format, &r.to_bytes(), r.timestamp.get(), &mut self.line),
        }
        match self.out.write_all(self.line.as_bytes()) {
            Ok(()) => self.stats.mode_ac += 1,
            Err(e) => self.err = Some(e),
        }
    }
}

/// One AVR line (with its newline) for `bytes` (2, 7 or 14).
fn avr_line(format: Format, bytes: &[u8], timestamp: u64, line: &mut String) {
    let ts = (format == Format::AvrTs).then(|| Timestamp::from_ticks(timestamp));
    let mut avr = [0u8; AVR_MAX_LEN];
    if let Ok(n) = encode_avr(&mut avr, bytes, ts) {
        line.push_str(std::str::from_utf8(&avr[..n]).unwrap_or(""));
    }
}

/// A Mode A/C reply as one JSON object.
fn json_mode_ac(r: &ModeAcReply, s: &mut String) {
    let mut o = JsonWriter::object(s);
    o.string("type", "mode_ac");
    o.uint("timestamp_12mhz", r.timestamp.get());
    o.num("signal_dbfs", f64::from(r.signal_dbfs), 1);
    o.uint("code", u64::from(r.code));
    o.hex_digits("squawk", u32::from(r.squawk()), 4);
    o.opt_int("altitude_ft", r.altitude_ft().map(i64::from));
    o.boolean("spi", r.spi);
    o.boolean("garbled", r.garbled);
    o.close_object();
    s.push('\n');
}

/// `f` as one JSON object with every decoded field of its downlink format
/// (see the [module docs](self#json)). The tracker (after its update with
/// the frame) supplies positions and the Comm-B context.
fn json_frame(d: &Decoded<'_, AIRCRAFT>, s: &mut String) {
    let f: &DemodFrame = d.frame;
    let bytes = f.bytes();
    let frame = Frame::new_unchecked(bytes);
    let mut o = JsonWriter::object(s);
    o.string("type", "mode_s");
    o.uint("timestamp_12mhz", f.timestamp.get());
    o.num("signal_dbfs", f64::from(f.signal_dbfs), 1);
    o.hex("hex", bytes);
    o.uint("df", u64::from(f.df()));
    o.hex_digits("icao", f.address, 6);
    o.uint("repaired_bits", u64::from(f.repaired_bits));
    let df = f.df();
    match df {
        0 | 16 => {
            o.boolean("vs_on_ground", frame.vs());
            if df == 0 {
                o.boolean("cc", frame.cc());
            }
            o.uint("sl", u64::from(frame.sl()));
            o.uint("ri", u64::from(frame.ri()));
            o.opt_int("altitude_ft", frame.altitude_ft().map(i64::from));
        }
        4 | 5 | 20 | 21 => {
            let fs = frame.fs();
            o.uint("fs", u64::from(u8::from(fs)));
            o.boolean("alert", fs.alert());
            o.boolean("spi", fs.spi());
            match fs.on_ground() {
                Some(g) => o.boolean("on_ground", g),
                None => o.null("on_ground"),
            }
            o.uint("dr", u64::from(frame.dr()));
            o.uint("um", u64::from(frame.um()));
            if df == 4 || df == 20 {
                o.opt_int("altitude_ft", frame.altitude_ft().map(i64::from));
            } else {
                match frame.squawk() {
                    Some(sq) => o.hex_digits("squawk", u32::from(sq), 4),
                    None => o.null("squawk"),
                }
            }
            if df >= 20 {
                let ac = d.tracker.get(f.address).map(|a| {
                    (
                        a.ground_speed_kt(),
                        a.track_deg(),
                        a.vertical_rate_baro_fpm(),
                    )
                });
                let ctx = commb::Context {
                    ground_speed_kt: ac.and_then(|a| a.0),
                    track_deg: ac.and_then(|a| a.1),
                    altitude_ft: if df == 20 {
                        frame.altitude_ft().map(|a| a as f32)
                    } else {
                        None
                    },
                    vertical_rate_fpm: ac.and_then(|a| a.2).map(|v| v as f32),
                    meteorological: false,
                };
                let mut c = o.nested("commb");
                json_commb(frame.mb(), &ctx, &mut c);
                c.close_object();
            }
        }
        11 => {
            o.uint("ca", u64::from(u8::from(frame.ca())));
            o.string("ca_name", capability_name(frame.ca()));
            match frame.iid() {
                Some(InterrogatorCode::Ii(v)) => o.uint("ii", u64::from(v)),
                Some(InterrogatorCode::Si(v)) => o.uint("si", u64::from(v)),
                None => o.null("ii"),
            }
        }
        17 | 18 => {
            if df == 17 {
                o.uint("ca", u64::from(u8::from(frame.ca())));
                o.string("ca_name", capability_name(frame.ca()));
            } else {
                let cf = frame.cf();
                o.uint("cf", u64::from(u8::from(cf)));
                o.string("cf_name", control_field_name(cf));
            }
            let tisb_coarse = df == 18 && matches!(frame.cf(), ControlField::TisbCoarse);
            let tisb_mgmt = df == 18
                && matches!(
                    frame.cf(),
                    ControlField::TisbManagement | ControlField::Reserved
                );
            let me = frame.me();
            o.uint("tc", u64::from(me[0] >> 3));
            if tisb_mgmt || tisb_coarse {
                // Coarse TIS-B and management messages do not use the
                // ADS-B ME layouts.
                o.string("me_type", "not_decoded");
            } else {
                let position = match (&d.outcome, d.aircraft()) {
                    (Ok(out), Some(a)) => match out.position {
                        PositionUpdate::Decoded(src) => a.position().map(|fix| (fix.position, src)),
                        _ => None,
                    },
                    _ => None,
                };
                json_adsb(me, position, &mut o);
            }
        }
        19 => o.uint("af", u64::from(frame.af())),
        24 => {
            o.boolean("ke", frame.ke());
            o.uint("nd", u64::from(frame.nd()));
        }
        _ => {}
    }
    o.close_object();
    s.push('\n');
}

fn capability_name(ca: Capability) -> &'static str {
    match ca {
        Capability::Level1 => "level1",
        Capability::Reserved(_) => "reserved",
        Capability::Ground => "ground",
        Capability::Airborne => "airborne",
        Capability::GroundOrAirborne => "ground_or_airborne",
        Capability::DownlinkRequestOrAlert => "dr_or_alert",
    }
}

fn control_field_name(cf: ControlField) -> &'static str {
    match cf {
        ControlField::AdsbIcao => "adsb_icao",
        ControlField::AdsbNonIcao => "adsb_non_icao",
        ControlField::TisbFine => "tisb_fine",
        ControlField::TisbCoarse => "tisb_coarse",
        ControlField::TisbManagement => "tisb_management",
        ControlField::TisbNonIcao => "tisb_non_icao",
        ControlField::AdsR => "adsr",
        ControlField::Reserved => "reserved",
    }
}

fn emergency_name(e: EmergencyState) -> &'static str {
    match e {
        EmergencyState::None => "none",
        EmergencyState::General => "general",
        EmergencyState::Medical => "medical",
        EmergencyState::MinimumFuel => "minimum_fuel",
        EmergencyState::NoCommunications => "no_communications",
        EmergencyState::UnlawfulInterference => "unlawful_interference",
        EmergencyState::DownedAircraft => "downed_aircraft",
        EmergencyState::Reserved => "reserved",
    }
}

/// CPR fields and, if decoded from this frame, the position.
fn json_cpr(
    cpr: &CprPosition,
    position: Option<(Position, PositionSource)>,
    o: &mut JsonWriter<'_>,
) {
    o.boolean("cpr_odd", cpr.format.is_odd());
    o.uint("cpr_lat", u64::from(cpr.lat));
    o.uint("cpr_lon", u64::from(cpr.lon));
    if let Some((p, src)) = position {
        o.num("lat_deg", p.lat, 6);
        o.num("lon_deg", p.lon, 6);
        o.string(
            "position_source",
            match src {
                PositionSource::Global => "global",
                PositionSource::LocalAircraft => "local_aircraft",
                PositionSource::LocalReceiver => "local_receiver",
            },
        );
    }
}

/// The fields of an ADS-B ME field.
fn json_adsb(me: &[u8], position: Option<(Position, PositionSource)>, o: &mut JsonWriter<'_>) {
    let Ok(repr) = AdsbRepr::parse(me) else {
        o.string("me_type", "invalid");
        return;
    };
    match repr {
        AdsbRepr::Identification(id) => {
            o.string("me_type", "identification");
            o.string("callsign", id.callsign_str().trim_end());
            o.display("category", id.category);
            o.string("category_description", id.category.description());
        }
        AdsbRepr::SurfacePosition(p) => {
            o.string("me_type", "surface_position");
            o.uint("movement", u64::from(p.movement.code()));
            o.opt_num("ground_speed_kt", p.speed_kt().map(f64::from), 2);
            o.boolean("stopped", p.movement.is_stopped());
            o.opt_num("track_deg", p.track_deg().map(f64::from), 2);
            o.opt_int("nuc_p", p.nuc_p().map(i64::from));
            o.boolean("utc_sync", p.utc_sync);
            json_cpr(&p.cpr, position, o);
        }
        AdsbRepr::AirbornePosition(p) => {
            o.string("me_type", "airborne_position");
            o.uint(
                "surveillance_status",
                u64::from(u8::from(p.surveillance_status)),
            );
            o.boolean("nic_b", p.nic_b);
            let key = match p.altitude_source() {
                AltitudeSource::Baro => "altitude_baro_ft",
                AltitudeSource::Gnss => "altitude_gnss_ft",
            };
            o.opt_int(key, p.altitude_ft().map(i64::from));
            o.opt_int("nuc_p", p.nuc_p().map(i64::from));
            o.boolean("utc_sync", p.utc_sync);
            json_cpr(&p.cpr, position, o);
        }
        AdsbRepr::AirborneVelocity(v) => {
            o.string("me_type", "airborne_velocity");
            o.uint("subtype", u64::from(v.subtype()));
            o.boolean("intent_change", v.intent_change);
            o.boolean("ifr_capability", v.ifr_capability);
            o.uint("nac_v", u64::from(v.nac_v));
            match v.velocity {
                Velocity::Ground(g) => {
                    o.boolean("supersonic", g.supersonic);
                    o.opt_int("velocity_ew_kt", g.ew_kt().map(i64::from));
                    o.opt_int("velocity_ns_kt", g.ns_kt().map(i64::from));
                    o.opt_num("ground_speed_kt", g.speed_kt().map(f64::from), 2);
                    o.opt_num("track_deg", g.track_deg().map(f64::from), 2);
                }
                Velocity::Air(a) => {
                    o.boolean("supersonic", a.supersonic);
                    o.opt_num("heading_deg", a.heading_deg().map(f64::from), 2);
                    let key = match a.airspeed_type {
                        AirspeedType::Indicated => "ias_kt",
                        AirspeedType::True => "tas_kt",
                    };
                    o.opt_int(key, a.airspeed_kt().map(i64::from));
                }
            }
            o.opt_int("vertical_rate_fpm", v.vertical_rate.fpm().map(i64::from));
            o.string(
                "vertical_rate_source",
                match v.vertical_rate.source {
                    VerticalRateSource::Gnss => "gnss",
                    VerticalRateSource::Baro => "baro",
                },
            );
            o.opt_int("gnss_baro_diff_ft", v.gnss_baro_diff.ft().map(i64::from));
        }
        AdsbRepr::AircraftStatus(AircraftStatus::Emergency(e)) => {
            o.string("me_type", "emergency");
            o.string("emergency", emergency_name(e.state));
            o.hex_digits("squawk", u32::from(e.squawk()), 4);
        }
        AdsbRepr::AircraftStatus(AircraftStatus::AcasRa(ra)) => {
            o.string("me_type", "acas_ra");
            o.uint("ara", u64::from(ra.ara));
            o.uint("rac", u64::from(ra.rac));
            o.boolean("rat", ra.rat);
            o.boolean("mte", ra.mte);
            o.uint("tti", u64::from(ra.tti));
            match ra.threat_address() {
                Some(a) => o.hex_digits("threat_icao", a, 6),
                None => o.null("threat_icao"),
            }
        }
        AdsbRepr::TargetState(TargetState::V1 { bits }) => {
            o.string("me_type", "target_state");
            o.uint("subtype", 0);
            o.uint("bits", bits);
        }
        AdsbRepr::TargetState(TargetState::V2(t)) => {
            o.string("me_type", "target_state");
            o.uint("subtype", 1);
            o.opt_int(
                "selected_altitude_ft",
                t.selected_altitude_ft().map(i64::from),
            );
            o.string(
                "selected_altitude_source",
                if t.fms_altitude { "fms" } else { "mcp_fcu" },
            );
            o.opt_num("baro_setting_hpa", t.baro_setting_hpa().map(f64::from), 1);
            o.opt_num(
                "selected_heading_deg",
                t.selected_heading_deg().map(f64::from),
                2,
            );
            o.uint("nac_p", u64::from(t.nac_p));
            o.boolean("nic_baro", t.nic_baro);
            o.uint("sil", u64::from(t.sil));
            o.boolean("sil_supplement", t.sil_supplement);
            o.boolean("mode_valid", t.mode_valid);
            o.boolean("autopilot", t.autopilot);
            o.boolean("vnav", t.vnav);
            o.boolean("alt_hold", t.alt_hold);
            o.boolean("approach", t.approach);
            o.boolean("tcas_operational", t.tcas_operational);
            o.boolean("lnav", t.lnav);
        }
        AdsbRepr::OperationalStatus(s) => {
            o.string("me_type", "operational_status");
            o.uint("subtype", u64::from(s.subtype()));
            o.uint("version", u64::from(s.version));
            o.boolean("nic_a", s.nic_a);
            o.uint("nac_p", u64::from(s.nac_p));
            o.uint("gva", u64::from(s.gva));
            o.uint("sil", u64::from(s.sil));
            o.boolean("sil_supplement", s.sil_supplement);
            o.boolean("nic_baro_or_trk_hdg", s.nic_baro_or_trk_hdg);
            o.boolean("hrd", s.hrd);
            o.uint("operational_mode", u64::from(s.operational_mode));
            match s.acas_operational() {
                Some(v) => o.boolean("acas_operational", v),
                None => o.null("acas_operational"),
            }
            o.boolean("es_in_1090", s.es_in_1090());
            o.boolean("uat_in", s.uat_in());
            o.boolean("tcas_ra_active", s.tcas_ra_active());
            o.boolean("ident_active", s.ident_active());
            o.boolean("single_antenna", s.single_antenna());
            o.uint("sda", u64::from(s.sda()));
            o.opt_int("nac_v", s.surface_nac_v().map(i64::from));
            match s.nic_c() {
                Some(v) => o.boolean("nic_c", v),
                None => o.null("nic_c"),
            }
            o.opt_int("length_width", s.length_width().map(i64::from));
            o.opt_int("gps_antenna_offset", s.gps_antenna_offset().map(i64::from));
        }
        AdsbRepr::Unknown { .. } => o.string("me_type", "unknown"),
    }
}

/// A register as the JSON string `"X,Y"` (`"4,0"`).
fn push_bds(s: &mut String, b: Bds) {
    let n = u8::from(b);
    let _ = write!(s, "\"{:X},{:X}\"", n >> 4, n & 0xF);
}

/// The Comm-B inference for an MB field and the inferred register's
/// fields.
fn json_commb(mb: &[u8], ctx: &commb::Context, o: &mut JsonWriter<'_>) {
    let Ok(view) = Mb::new_checked(mb) else {
        o.null("bds");
        return;
    };
    let inference = match commb::infer(&view, ctx) {
        Ok(i) => i,
        Err(_) => {
            o.null("bds");
            return;
        }
    };
    match inference.best() {
        Some(b) => push_bds(o.key("bds"), b),
        None => o.null("bds"),
    }
    let mut list = JsonWriter::array(o.key("bds_candidates"));
    for (b, _) in inference.candidates() {
        push_bds(list.element(), *b);
    }
    list.close_array();
    o.boolean("ambiguous", inference.is_ambiguous());
    let Some(bds) = inference.best() else { return };
    let Ok(repr) = commb::Repr::parse(&view, bds) else {
        return;
    };
    let f = |v: Option<f32>| v.map(f64::from);
    let u = |v: Option<u16>| v.map(i64::from);
    match repr {
        commb::Repr::DataLinkCapability(d) => {
            o.boolean("acas_operational", d.acas_operational);
            o.uint("subnetwork_version", u64::from(d.subnetwork_version));
            o.boolean("enhanced_protocol", d.enhanced_protocol);
            o.boolean("specific_services", d.specific_services);
            o.uint("uplink_elm", u64::from(d.uplink_elm));
            o.uint("downlink_elm", u64::from(d.downlink_elm));
            o.boolean("identification_capability", d.identification);
            o.boolean("squitter_capability", d.squitter);
            o.boolean("surveillance_identifier", d.surveillance_identifier);
            o.boolean("common_usage_gicb", d.common_usage_gicb);
            o.boolean("acas_resolution_advisory", d.acas_resolution_advisory);
            o.uint("acas_version", u64::from(d.acas_version));
            o.uint("dte_status", u64::from(d.dte_status));
        }
        commb::Repr::CommonUsageCapability(c) => {
            let mut list = JsonWriter::array(o.key("supported_bds"));
            for b in c.registers() {
                push_bds(list.element(), b);
            }
            list.close_array();
        }
        commb::Repr::AircraftIdentification(id) => {
            o.string("callsign", id.as_str().trim_end());
        }
        commb::Repr::ResolutionAdvisory(ra) => {
            o.uint("ara", u64::from(ra.ara));
            o.uint("rac", u64::from(ra.rac));
            o.boolean("terminated", ra.terminated);
            o.boolean("multiple_threats", ra.multiple_threats);
            match ra.threat {
                ThreatIdentity::Address(a) => o.hex_digits("threat_icao", a, 6),
                ThreatIdentity::Position { .. } => {
                    o.opt_int("threat_altitude_ft", ra.threat.altitude().map(i64::from));
                    o.opt_num("threat_range_nm", f(ra.threat.range_nm()), 2);
                }
                ThreatIdentity::None | ThreatIdentity::Reserved(_) => o.null("threat_icao"),
            }
        }
        commb::Repr::SelectedVerticalIntention(v) => {
            o.opt_int("mcp_altitude_ft", u(v.mcp_altitude));
            o.opt_int("fms_altitude_ft", u(v.fms_altitude));
            o.opt_num("baro_setting_hpa", f(v.baro_setting), 1);
            if let Some(m) = v.modes {
                o.boolean("vnav", m.vnav);
                o.boolean("alt_hold", m.alt_hold);
                o.boolean("approach", m.approach);
            }
            if let Some(t) = v.target_source {
                o.uint("target_altitude_source", u64::from(u8::from(t)));
            }
        }
        commb::Repr::MeteorologicalRoutine(m) => {
            o.uint("figure_of_merit", u64::from(u8::from(m.figure_of_merit)));
            if let Some(w) = m.wind {
                o.uint("wind_speed_kt", u64::from(w.speed));
                o.num("wind_direction_deg", f64::from(w.direction), 2);
            }
            o.num(
                "static_air_temperature_c",
                f64::from(m.static_air_temperature),
                2,
            );
            o.opt_int("static_pressure_hpa", u(m.static_pressure));
            o.opt_int("turbulence", m.turbulence.map(|h| i64::from(u8::from(h))));
            o.opt_num("humidity_pct", f(m.humidity), 1);
        }
        commb::Repr::MeteorologicalHazard(m) => {
            let h = |v: Option<commb::Hazard>| v.map(|h| i64::from(u8::from(h)));
            o.opt_int("turbulence", h(m.turbulence));
            o.opt_int("wind_shear", h(m.wind_shear));
            o.opt_int("microburst", h(m.microburst));
            o.opt_int("icing", h(m.icing));
            o.opt_int("wake_vortex", h(m.wake_vortex));
            o.opt_num("static_air_temperature_c", f(m.static_air_temperature), 2);
            o.opt_int("static_pressure_hpa", u(m.static_pressure));
            o.opt_int("radio_height_ft", u(m.radio_height));
        }
        commb::Repr::TrackAndTurn(t) => {
            o.opt_num("roll_deg", f(t.roll), 4);
            o.opt_num("true_track_deg", f(t.true_track), 3);
            o.opt_int("ground_speed_kt", u(t.ground_speed));
            o.opt_num("track_rate_deg_s", f(t.track_rate), 3);
            o.opt_int("tas_kt", u(t.true_airspeed));
        }
        commb::Repr::HeadingAndSpeed(h) => {
            o.opt_num("magnetic_heading_deg", f(h.magnetic_heading), 3);
            o.opt_int("ias_kt", u(h.indicated_airspeed));
            o.opt_num("mach", f(h.mach), 3);
            o.opt_int(
                "baro_vertical_rate_fpm",
                h.baro_vertical_rate.map(i64::from),
            );
            o.opt_int(
                "inertial_vertical_rate_fpm",
                h.inertial_vertical_rate.map(i64::from),
            );
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;

    /// A DF17 identification frame rendered by the project's modulator at
    /// 2.4 MS/s decodes back to the same bytes, in every format.
    #[test]
    fn test_decode_synthetic_frame() {
        use airwaves_core::C32;
        use airwaves_core::modes::modulate::{Burst, Modulator, Quantiser};
        let frame = [
            0x8Du8, 0x48, 0x40, 0xD6, 0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x2C, 0xE0, 0x57, 0x60, 0x98,
        ];
        let m = Modulator::new(2.4e6).unwrap();
        let mut iq = vec![C32::default(); 4000];
        m.add_mode_s(&frame, &Burst::new(1000.3, 0.6), &mut iq)
            .unwrap();
        let mut bytes = vec![0u8; 8000];
        Quantiser::RTL_SDR.block(&iq, &mut bytes);
        let run = |format| {
            let mut out = Vec::new();
            let opts = DecodeOptions::new(2_400_000, format);
            let st = decode_with(&opts, &mut &bytes[..], &mut out).unwrap();
            assert_eq!(st.samples, 4000);
            assert_eq!(st.frames, 1);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(run(Format::Avr), "*8D4840D6202CC371C32CE0576098;\n");
        let ts = run(Format::AvrTs);
        assert!(
            ts.starts_with('@') && ts.ends_with("8D4840D6202CC371C32CE0576098;\n"),
            "{ts}"
        );
        // Sample 1000.3 at 5 ticks per sample, to within a tick or two.
        let t = u64::from_str_radix(&ts[1..13], 16).unwrap();
        assert!(t.abs_diff(5002) <= 3, "timestamp {t}");
        let json = run(Format::Json);
        assert!(json.contains("\"callsign\":\"KLM1023\""), "{json}");
        assert!(json.contains("\"icao\":\"4840D6\""), "{json}");
    }

    #[test]
    fn test_bad_rate_and_garbage() {
        let mut out = Vec::new();
        let opts = DecodeOptions::new(1_000_000, Format::Avr);
        let e = decode_with(&opts, &mut &[0u8; 10][..], &mut out).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        // Arbitrary bytes, odd length: no panic, no frames from noise.
        let garbage: Vec<u8> = (0..200_001u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let opts = DecodeOptions {
            modeac: true,
            ..DecodeOptions::new(2_400_000, Format::AvrTs)
        };
        let st = decode_with(&opts, &mut &garbage[..], &mut out).unwrap();
        assert_eq!(st.mode_ac, 0);
        assert_eq!(st.samples, 100_000);
    }
}
