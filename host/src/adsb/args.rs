//! `airwaves adsb`'s command line: [`AdsbArgs`] and the parsers of its
//! values.

use crate::cli::{Gain, LocationArgs, TuningArgs, parse_gain_arg, parse_hz, parse_seconds};
use crate::demo::SkyKind;
use crate::feed::reduce::DEFAULT_INTERVAL_MS;
use crate::source::SourceArgs;
use crate::uat;
use std::net::IpAddr;
use std::path::PathBuf;

/// `airwaves adsb` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct AdsbArgs {
    /// Where the samples come from (default: dongle 0).
    #[command(flatten)]
    pub source: SourceArgs,
    /// Decode a simulated sky around --lat/--lon instead of a receiver
    /// (turns on --net and the web map on --http-port 8080).
    #[arg(long, conflicts_with_all = ["fake_device", "ifile", "rtl_tcp", "net_only"])]
    pub demo: bool,
    /// Aircraft in the simulated sky.
    #[arg(long, default_value_t = 40, requires = "demo")]
    pub demo_aircraft: usize,
    /// Random seed of the simulated sky.
    #[arg(long, default_value_t = 1, requires = "demo")]
    pub demo_seed: u64,
    /// Kind of simulated sky: airport (strong replies within 10 NM and far
    /// traffic), rural (weak far traffic only) or mixed (rural, and a
    /// strong aircraft that passes overhead 200 s in).
    #[arg(
        long,
        default_value = "airport",
        requires = "demo",
        value_name = "airport|rural|mixed"
    )]
    pub demo_sky: SkyKind,
    /// Speed of the simulated sky: N times real time, or max (as fast as
    /// it decodes, nothing dropped). Time in the feeder (--duration,
    /// stats.json) is signal time.
    #[arg(long, default_value = "1", requires = "demo", value_parser = parse_speed, value_name = "N|max")]
    pub demo_speed: f64,
    /// UAT aircraft in the simulated 978 MHz sky (with a FIS-B ground
    /// station: radar and METARs), decoded as a second receiver would
    /// (0: none). Only at --demo-speed 1 or less: rendered faster, the
    /// second sky would take a core of its own.
    #[arg(long, default_value_t = 12, requires = "demo")]
    pub demo_uat_aircraft: usize,
    /// Sample rate, Hz: 2.4M (default) or 2.0M.
    #[arg(long, default_value = "2.4M", value_parser = parse_hz)]
    pub rate: u64,
    /// Centre frequency, Hz.
    #[arg(long, default_value = "1090M", value_parser = parse_hz)]
    pub freq: u64,
    /// Gain, frequency correction and bias tee.
    #[command(flatten)]
    pub tuning: TuningArgs,
    /// Also decode Mode A/C replies.
    #[arg(long)]
    pub modeac: bool,
    /// Where the receiver is.
    #[command(flatten)]
    pub location: LocationArgs,
    /// Turn on the network ports.
    #[arg(long)]
    pub net: bool,
    /// No receiver: only network input (Beast on --net-bi-port and
    /// beast_in connectors), aggregated to the outputs.
    #[arg(long)]
    pub net_only: bool,
    /// Address the ports listen on (0.0.0.0 to share on the LAN).
    #[arg(long, default_value = "127.0.0.1")]
    pub net_bind_address: IpAddr,
    /// AVR (raw) output port, 0 to disable.
    #[arg(long, default_value_t = 30002)]
    pub net_ro_port: u16,
    /// SBS (BaseStation) output port, 0 to disable.
    #[arg(long, default_value_t = 30003)]
    pub net_sbs_port: u16,
    /// Beast input ports, comma-separated (30004 for other receivers,
    /// 30104 where mlat-client sends its results); 0 to disable.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "30004,30104",
        value_name = "PORT,..."
    )]
    pub net_bi_port: Vec<u16>,
    /// Also send multilateration results (Beast input frames stamped
    /// FF004D4C4154) on the outputs, as readsb's --forward-mlat; by default
    /// they only reach the aircraft table, never the feeds.
    #[arg(long)]
    pub forward_mlat: bool,
    /// Beast output port, 0 to disable.
    #[arg(long, default_value_t = 30005)]
    pub net_bo_port: u16,
    /// Reduced Beast output port (readsb's beast_reduce_out: positions
    /// about once a second per aircraft, the rest de-duplicated), 0 to
    /// disable.
    #[arg(long, default_value_t = 0)]
    pub net_beast_reduce_out_port: u16,
    /// Seconds between frames of one kind of one aircraft on the reduced
    /// Beast output (0.1 to 15).
    #[arg(long, default_value_t = DEFAULT_INTERVAL_MS as f64 / 1000.0, value_parser = parse_reduce_interval, value_name = "S")]
    pub net_beast_reduce_interval: f64,
    /// Seconds without output after which a port's clients get a
    /// heartbeat (readsb's; 0 turns it off).
    #[arg(long, default_value_t = 60.0, value_parser = parse_heartbeat, value_name = "S")]
    pub net_heartbeat: f64,
    /// The receiver's UUID, sent first on beast_reduce_plus_out
    /// connectors (as readsb does for ADS-B Exchange).
    #[arg(
        long,
        default_value = "/usr/local/share/adsbexchange/adsbx-uuid",
        value_name = "FILE"
    )]
    pub uuid_file: PathBuf,
    /// Outgoing connection HOST,PORT,PROTOCOL (beast_out, raw_out,
    /// sbs_out, beast_reduce_out, beast_reduce_plus_out, beast_in);
    /// repeatable; reconnects when lost.
    #[arg(long, value_name = "HOST,PORT,PROTOCOL")]
    pub net_connector: Vec<String>,
    /// HTTP port for the web map, JSON and /metrics (default 8080 with
    /// --demo, else off; 0 turns it off).
    #[arg(long)]
    pub http_port: Option<u16>,
    /// A name the web map is reached by, besides loopback names (bound to
    /// 127.0.0.1 only those are answered: a DNS-rebinding guard; on other
    /// addresses, naming any limits the map to them); repeatable.
    #[arg(long, value_name = "NAME")]
    pub http_host: Vec<String>,
    /// The one other origin (or *) whose pages may read the JSON
    /// (Access-Control-Allow-Origin); same origin only by default.
    #[arg(long, value_name = "ORIGIN")]
    pub cors_origin: Option<String>,
    /// Write aircraft.json, receiver.json and stats.json into DIR.
    #[arg(long, value_name = "DIR")]
    pub write_json: Option<PathBuf>,
    /// An aircraft database in tar1090-db's CSV form (aircraft.csv.gz):
    /// type, description, operator and registration in aircraft.json.
    #[arg(long, value_name = "FILE")]
    pub db_file: Option<PathBuf>,
    /// Keep what outlives a restart (the 24-hour range outline) in DIR
    /// (default: the --write-json directory).
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Seconds between JSON writes (finite, above 0: checked as parsed).
    #[arg(long, default_value_t = 1.0, value_parser = parse_seconds)]
    pub write_json_every: f64,
    /// Basemap tile URL template for the web map ({z}/{x}/{y}), when online.
    #[arg(long, value_name = "URL")]
    pub tiles: Option<String>,
    /// Show a table of aircraft on the terminal.
    #[arg(long)]
    pub interactive: bool,
    /// No status line.
    #[arg(long)]
    pub quiet: bool,
    /// Stop after this many seconds.
    #[arg(long, value_name = "S", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub duration: Option<f64>,
    /// A second receiver on 978 MHz for UAT: a dongle's index or serial,
    /// rtl_tcp:HOST:PORT, fake:EMULATOR-SPEC or file:F.cu8. Its aircraft
    /// join the same table (marked as heard on UAT) and outputs, as
    /// readsb shows dump978-fa's.
    #[arg(long, value_name = "SPEC", value_parser = parse_uat_device)]
    pub uat_device: Option<SourceArgs>,
    /// With a UAT receiver and --net: dump978-fa's raw lines on this port
    /// (0: off).
    #[arg(long, default_value_t = 30978)]
    pub net_uat_raw_port: u16,
    /// With a UAT receiver and --net: dump978-fa's JSON of every downlink
    /// message on this port (0: off).
    #[arg(long, default_value_t = 30979)]
    pub net_uat_json_port: u16,
    /// Tuner gain of the UAT receiver, dB, or agc (default: the largest,
    /// as dump978-fa).
    #[arg(long, default_value = "49.6", value_parser = parse_gain_arg, value_name = "DB|agc")]
    pub uat_gain: Gain,
}

impl AdsbArgs {
    /// Whether a UAT receiver is asked for: `--uat-device`, or the demo's
    /// 978 MHz sky (`--demo-uat-aircraft` above 0, `--demo-speed` 1 or
    /// less).
    pub fn uat_wanted(&self) -> bool {
        self.uat_device.is_some()
            || (self.demo && self.demo_uat_aircraft > 0 && self.demo_speed <= 1.0)
    }
}

/// Parse `--uat-device` ([`uat::input::source_args`]).
pub fn parse_uat_device(s: &str) -> Result<SourceArgs, String> {
    uat::input::source_args(s)
}

/// Parse `--net-beast-reduce-interval`: seconds in [0.1, 15].
pub fn parse_reduce_interval(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.1..=15.0).contains(&v) => Ok(v),
        _ => Err(format!("reduce interval {s:?}: use seconds from 0.1 to 15")),
    }
}

/// Parse `--net-heartbeat`: seconds in [0, 3600], 0 for none.
pub fn parse_heartbeat(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=3600.0).contains(&v) => Ok(v),
        _ => Err(format!("heartbeat {s:?}: use seconds from 0 (off) to 3600")),
    }
}

/// Parse `--demo-speed`: a factor in (0, 1000], or `max` (infinite).
pub fn parse_speed(s: &str) -> Result<f64, String> {
    if s == "max" {
        return Ok(f64::INFINITY);
    }
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1000.0 => Ok(v),
        _ => Err(format!(
            "demo speed {s:?}: use a factor in (0, 1000] or max"
        )),
    }
}
