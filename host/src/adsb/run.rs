//! `airwaves adsb`: the command line and the decode loop that ties the
//! source, the pipeline, the network and the HTTP site together.

use super::console::{self, Status};
use super::cpu;
use super::network::{BEAST_IN_QUEUE, Network, open_network, publish};
use super::pipeline::{Clock, Pipeline, PipelineConfig, TRACKER_CAPACITY};
use super::site::{FeederSite, Snapshot};
use super::source::{self as feed_source, End, Input, Shared};
use super::state::{StateDir, write_atomic};
use crate::autogain::control::{LoopConfig, LoopState, Measurement};
use crate::cli::{Gain, LocationArgs, TuningArgs, parse_gain_arg, parse_hz, parse_seconds};
use crate::demo::frontend::{FrontEnd, MAX_GAIN_TENTHS};
use crate::demo::uat::{UatSky, UatSkyConfig};
use crate::demo::{DemoConfig, DemoSky, PacedSky, SkyKind};
use crate::error::{AdsbError, CommandError};
use crate::feed::aircraft_db::AircraftDb;
use crate::feed::history::History;
use crate::feed::json::{ReceiverInfo, write_aircraft_json_with, write_receiver_json};
use crate::feed::metrics::{write_metrics, write_series_metrics};
use crate::feed::outline::RangeOutline;
use crate::feed::reduce::DEFAULT_INTERVAL_MS;
use crate::feed::series::{Sample, Series};
use crate::feed::stats::Counters;
use crate::feed::stats::StatsHistory;
use crate::net::http::serve_http_with;
use crate::net::http_policy::HttpPolicy;
use crate::net::listener::ListenerHandle;
use crate::ring::{self, Consumer};
use crate::source::{CHUNK, Source, SourceArgs, SourceError, Tuning};
use crate::uat::{
    self,
    fisb::FisbStore,
    input::{UatEvent, UatInput},
};
use airwaves_core::modes::cpr::Position;
use airwaves_core::modes::tracker::Tracker;
use airwaves_core::uat::adsb::{Downlink, DownlinkRepr};
use airwaves_core::uat::demod::Link;
use std::io::{IsTerminal, Write};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Ring buffers between the source and decode threads (16 × 256 KiB ≈
/// 0.9 s at 2.4 MS/s).
const RING_BUFFERS: usize = 16;
/// How long `--ifile` waits for `--net-connector`s before reading.
const CONNECTOR_WAIT: Duration = Duration::from_secs(5);
/// How long output is given to drain to clients at the end of a file.
const DRAIN: Duration = Duration::from_secs(3);
/// `outline.json` without a receiver location.
const EMPTY_OUTLINE: &str = r#"{"actualRange":{"last24h":{"points":[]}}}"#;

/// Version string of `receiver.json`.
const VERSION: &str = concat!("airwaves ", env!("CARGO_PKG_VERSION"));

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

/// Run `airwaves adsb` in three steps: open the network side, open the
/// input, then decode until the input ends, `--duration` passes or the
/// process is killed.
///
/// # Errors
/// [`AdsbError`]: bad options, a source that cannot open or fails, a port
/// that cannot be bound.
pub fn run(args: &AdsbArgs) -> Result<(), CommandError> {
    let settings = Settings::new(args)?;
    let outputs = open_outputs(args, &settings)?;
    let input = open_input_thread(args, &settings)?;
    Feeder::new(args, &settings, outputs, input)
        .run()
        .map_err(CommandError::from)
}

/// What the arguments come to, worked out once.
struct Settings {
    /// Sample rate, Hz.
    rate: u32,
    /// The receiver's location (the demo's default with `--demo`).
    receiver: Option<Position>,
    /// Network ports and connectors wanted.
    net_on: bool,
    /// The HTTP port, if any.
    http_port: Option<u16>,
    /// A file read as fast as possible: nothing may be dropped, and the
    /// tracker runs on sample time.
    lossless: bool,
    /// Wall-clock time at start, unix ms.
    start_unix_ms: u64,
    /// The feeder's time is signal time (the demo sky): the tracker's
    /// clock, `--duration` and the once-a-second work follow the samples.
    signal_clock: bool,
}

impl Settings {
    fn new(args: &AdsbArgs) -> Result<Settings, AdsbError> {
        let rate = u32::try_from(args.rate).map_err(|_| AdsbError::SampleRate)?;
        let receiver = args
            .location
            .position()
            .or_else(|| args.demo.then(|| DemoConfig::default().receiver));
        let net_on = args.net || args.net_only || args.demo || !args.net_connector.is_empty();
        let http_port = args
            .http_port
            .or(args.demo.then_some(8080))
            .filter(|&p| p != 0);
        Ok(Settings {
            rate,
            receiver,
            net_on,
            http_port,
            lossless: args.source.ifile.is_some() && !args.source.throttle,
            start_unix_ms: unix_ms(),
            signal_clock: args.demo,
        })
    }
}

/// The output side: network ports, the decode pipeline, the HTTP site.
struct Outputs {
    net: Network,
    pipeline: Pipeline,
    site: FeederSite,
    _http: Option<ListenerHandle>,
}

/// Step one: bind the ports, start the connectors, build the pipeline and
/// serve the site; with a file, give the connectors a chance to be up
/// before reading.
fn open_outputs(args: &AdsbArgs, settings: &Settings) -> Result<Outputs, AdsbError> {
    let net = open_network(args, settings.net_on)?;
    let clock = if settings.lossless || settings.signal_clock {
        Clock::Samples {
            start_unix_ms: settings.start_unix_ms,
        }
    } else {
        Clock::Wall
    };
    let mut pipeline = Pipeline::new(PipelineConfig {
        sample_rate: settings.rate,
        modeac: args.modeac,
        receiver: settings.receiver,
        outputs: net.outputs(),
        clock,
        forward_mlat: args.forward_mlat,
        reduce_interval_ms: (args.net_beast_reduce_interval * 1000.0).round() as u64,
    })
    .map_err(AdsbError::Config)?;
    let site = FeederSite::new();
    let http = open_http(args, settings.http_port, &site)?;
    if args.source.ifile.is_some() && !net.connectors.is_empty() {
        let deadline = Instant::now() + CONNECTOR_WAIT;
        for c in &net.connectors {
            let left = deadline.saturating_duration_since(Instant::now());
            c.wait_connected(left);
        }
    }
    // Format what the clients connected by now want.
    pipeline.set_outputs(net.outputs());
    Ok(Outputs {
        net,
        pipeline,
        site,
        _http: http,
    })
}

/// Serve the web map, JSON and metrics on `port` (the demo falls back to a
/// free port when its default is taken).
fn open_http(
    args: &AdsbArgs,
    port: Option<u16>,
    site: &FeederSite,
) -> Result<Option<ListenerHandle>, AdsbError> {
    let Some(port) = port else {
        return Ok(None);
    };
    let addr = SocketAddr::new(args.net_bind_address, port);
    let policy = HttpPolicy::for_bind(
        args.net_bind_address,
        &args.http_host,
        args.cors_origin.clone(),
        args.tiles.as_deref(),
    );
    let h = match serve_http_with(addr, Arc::new(site.clone()), policy.clone()) {
        Ok(h) => h,
        // The demo's default port taken (another feeder's map?): any free
        // port will do.
        Err(e) if args.demo && args.http_port.is_none() => {
            eprintln!("airwaves adsb: HTTP port {addr}: {e}; using a free port");
            serve_http_with(
                SocketAddr::new(args.net_bind_address, 0),
                Arc::new(site.clone()),
                policy,
            )
            .map_err(AdsbError::Http)?
        }
        Err(source) => return Err(AdsbError::HttpPort { addr, source }),
    };
    if !args.quiet {
        eprintln!("airwaves adsb: web map on http://{}/", h.local_addr());
    }
    Ok(Some(h))
}

/// The input side: the ring from the source thread, and the thread.
struct InputThread {
    consumer: Consumer,
    shared: Arc<Shared>,
    /// `None` with `--net-only`, and once joined.
    thread: Option<JoinHandle<End>>,
    /// The source can change its tuner gain while it runs.
    gain_settable: bool,
    /// The UAT receiver (`--uat-device`), while it runs.
    uat: Option<UatInput>,
}

/// Step two: open the source (none with `--net-only`) and start its
/// thread, which fills the ring.
fn open_input_thread(args: &AdsbArgs, settings: &Settings) -> Result<InputThread, AdsbError> {
    let shared = Arc::new(Shared::default());
    let (producer, consumer) = ring::ring(RING_BUFFERS, CHUNK).map_err(AdsbError::Ring)?;
    let mut gain_settable = false;
    let thread = if args.net_only {
        drop(producer);
        None
    } else {
        let input = open_input(
            args,
            settings.rate,
            settings.receiver,
            settings.start_unix_ms,
            settings.lossless,
        )?;
        gain_settable = input.source.can_set_gain();
        Some(
            feed_source::spawn(input, producer, shared.clone(), args.quiet)
                .map_err(AdsbError::SourceThread)?,
        )
    };
    // A second dongle that cannot be opened is reported; 1090 MHz goes on.
    let uat = if args.demo && args.uat_device.is_none() {
        demo_uat(args, settings)
    } else {
        open_uat(args, settings)
    };
    Ok(InputThread {
        consumer,
        shared,
        thread,
        gain_settable,
        uat,
    })
}

/// The demo's UAT sky ([`UatSky`]) at the demo's speed, as a second
/// receiver; none faster than real time (2 MS/s more to render and
/// demodulate N times over would take a core) or with
/// `--demo-uat-aircraft 0`.
fn demo_uat(args: &AdsbArgs, settings: &Settings) -> Option<UatInput> {
    if !args.uat_wanted() {
        return None;
    }
    let sky = UatSky::new(UatSkyConfig {
        receiver: settings.receiver.unwrap_or(DemoConfig::default().receiver),
        aircraft: args.demo_uat_aircraft,
        seed: args.demo_seed,
        start_unix_ms: settings.start_unix_ms,
    });
    let paced = PacedSky::new(sky, airwaves_core::uat::SAMPLE_RATE * args.demo_speed);
    let description = format!(
        "simulated 978 MHz sky, {} UAT aircraft",
        args.demo_uat_aircraft
    );
    announce_uat(
        uat::input::spawn_source(paced, description, settings.start_unix_ms),
        args.quiet,
    )
}

/// `--uat-device`, if given.
fn open_uat(args: &AdsbArgs, settings: &Settings) -> Option<UatInput> {
    let a = args.uat_device.as_ref()?;
    announce_uat(
        uat::input::spawn(a, args.uat_gain, settings.start_unix_ms),
        args.quiet,
    )
}

/// Say which UAT receiver runs, or why none does (the feeder goes on).
fn announce_uat<E: std::fmt::Display>(r: Result<UatInput, E>, quiet: bool) -> Option<UatInput> {
    match r {
        Ok(u) => {
            if !quiet {
                eprintln!("airwaves adsb: UAT receiver: {}", u.description);
            }
            Some(u)
        }
        Err(e) => {
            eprintln!("airwaves adsb: UAT receiver: {e}; continuing without it");
            None
        }
    }
}

/// Step three: the decode loop and what it keeps between turns.
struct Feeder<'a> {
    args: &'a AdsbArgs,
    lossless: bool,
    outputs: Outputs,
    input: InputThread,
    ticker: Ticker,
    console: Console,
    started: Instant,
    /// How long to wait for I/Q per turn.
    iq_wait: Duration,
    source_done: bool,
    exit_error: Option<AdsbError>,
    last_json_write: Option<Instant>,
    json_error_shown: bool,
    /// Where the outline is kept across restarts (`--state-dir`, else
    /// `--write-json`), when the receiver's location is known.
    state: Option<StateDir>,
    /// With the signal clock (`--demo`): signal time at sample 0, unix ms,
    /// and the sample rate.
    signal_clock: Option<(u64, f64)>,
    /// Signal time of the last once-a-second turn, ms.
    last_tick_ms: u64,
    /// The adaptive gain loop (`--gain auto` on a source that can take it).
    gain: Option<GainControl>,
}

/// `--gain auto`: the loop, and the counters it last read.
struct GainControl {
    config: LoopConfig,
    state: LoopState,
    strong_at: u64,
    frames_at: u64,
    rate: f64,
}

impl GainControl {
    /// Account for one buffer of `samples` just decoded by `pipeline`; a
    /// change is logged with its reason, asked of the source thread and
    /// counted.
    fn after_buffer(
        &mut self,
        pipeline: &mut Pipeline,
        samples: usize,
        shared: &Shared,
        quiet: bool,
    ) {
        let Some(level) = pipeline.take_levels() else {
            return;
        };
        let c = pipeline.counters_mut();
        let strong = c.strong_signals;
        let frames = c.local.accepted_total();
        let m = Measurement {
            seconds: samples as f64 / self.rate,
            level,
            strong_frames: strong.saturating_sub(self.strong_at),
            frames: frames.saturating_sub(self.frames_at),
        };
        (self.strong_at, self.frames_at) = (strong, frames);
        if let Some(change) = self.config.update(&mut self.state, &m) {
            if !quiet {
                eprintln!("airwaves adsb: {change}");
            }
            shared.gain_request.store(change.to, Ordering::Relaxed);
            c.gain_tenths = Some(change.to);
            c.gain_changes += 1;
        }
    }
}

impl<'a> Feeder<'a> {
    /// Publish valid (empty) documents and set up the console.
    fn new(
        args: &'a AdsbArgs,
        settings: &Settings,
        mut outputs: Outputs,
        input: InputThread,
    ) -> Feeder<'a> {
        let adaptive = args.tuning.gain == Gain::Auto && input.gain_settable;
        let (gain_tenths, gain_mode) = match args.tuning.gain {
            Gain::Db(t) => (Some(crate::rtl::r82xx::nearest_gain(t)), "fixed"),
            Gain::Auto if adaptive => (Some(MAX_GAIN_TENTHS), "auto"),
            // A file or network input only: no tuner to speak of.
            _ if args.source.ifile.is_some() || args.net_only => (None, ""),
            Gain::Auto | Gain::Agc => (None, "agc"),
        };

        let receiver_info = ReceiverInfo {
            version: VERSION,
            refresh_ms: 1000,
            history: 0,
            position: settings.receiver,
            tiles: args.tiles.clone(),
            gain_db: gain_tenths.map(|t| f64::from(t) / 10.0),
        };
        let mut receiver_json = String::new();
        write_receiver_json(&receiver_info, &mut receiver_json);
        let pipeline = &mut outputs.pipeline;
        pipeline.counters_mut().gain_tenths = gain_tenths;
        if adaptive {
            pipeline.measure_levels();
        }
        pipeline.advance_wall_clock(settings.start_unix_ms);
        let mut ticker = Ticker {
            history: StatsHistory::new(settings.start_unix_ms, *pipeline.counters()),
            receiver_json: Arc::from(receiver_json.into_bytes()),
            receiver_info,
            receiver: settings.receiver,
            shared: input.shared.clone(),
            db: args.db_file.as_deref().and_then(load_db),
            series: Series::new(),
            series_json: Default::default(),
            last_sample: None,
            positions: Arc::new(Mutex::new(History::in_memory())),
            fisb: FisbStore::new(),
        };
        // Valid (empty) documents from the first request on.
        outputs
            .site
            .publish(ticker.snapshot(&mut outputs.pipeline, &outputs.net, 0));
        let started = Instant::now();
        let console = Console {
            quiet: args.quiet,
            interactive: args.interactive,
            tty: std::io::stderr().is_terminal(),
            progress: settings.lossless.then(|| {
                let total_bytes = args
                    .source
                    .ifile
                    .as_deref()
                    .filter(|p| p.as_os_str() != "-")
                    .and_then(|p| std::fs::metadata(p).ok())
                    .map(|m| m.len());
                (total_bytes, settings.rate)
            }),
            last: Instant::now(),
            frames_at_last: 0,
            text: String::new(),
            gain_mode,
        };
        let (state, series) = open_state(args, &mut outputs.pipeline);
        if let Some(series) = series {
            ticker.series = series;
            // Rendered again at the next tick.
            ticker.series_json = Default::default();
        }
        if let Some(state) = &state {
            let now_s = settings.start_unix_ms / 1000;
            let (history, problems) = History::in_dir(state.dir().join("history"), now_s);
            for p in problems {
                eprintln!("airwaves adsb: {p}");
            }
            ticker.positions = Arc::new(Mutex::new(history));
        }
        outputs.site.set_history(ticker.positions.clone());
        // I/Q waits briefly when Beast input must also be served.
        let iq_wait =
            Duration::from_millis(if outputs.net.beast_rx.is_some() || input.uat.is_some() {
                20
            } else {
                200
            });
        Feeder {
            args,
            lossless: settings.lossless,
            source_done: input.thread.is_none(),
            outputs,
            input,
            ticker,
            console,
            started,
            iq_wait,
            exit_error: None,
            last_json_write: None,
            json_error_shown: false,
            state,
            signal_clock: settings
                .signal_clock
                .then_some((settings.start_unix_ms, f64::from(settings.rate))),
            last_tick_ms: settings.start_unix_ms,
            gain: adaptive.then(|| GainControl {
                config: LoopConfig::default(),
                state: LoopState::new(MAX_GAIN_TENTHS),
                strong_at: 0,
                frames_at: 0,
                rate: f64::from(settings.rate),
            }),
        }
    }

    /// Seconds of signal decoded (signal clock) or of wall time since the
    /// start.
    fn elapsed_s(&self) -> f64 {
        match self.signal_clock {
            Some((start, _)) => {
                self.outputs.pipeline.now_ms().saturating_sub(start) as f64 / 1000.0
            }
            None => self.started.elapsed().as_secs_f64(),
        }
    }

    /// Decode until the input ends or time is up, then let clients read
    /// what was published.
    fn run(mut self) -> Result<(), AdsbError> {
        let mut last_tick = Instant::now();
        loop {
            if !self.source_done {
                self.take_iq();
            }
            self.take_beast();
            self.take_uat();
            publish(&mut self.outputs.pipeline, &self.outputs.net, self.lossless);
            // A file ends the run; a live source that failed leaves
            // network input (if any) to serve.
            let finished = self.source_done
                && (self.args.source.ifile.is_some()
                    || (self.outputs.net.beast_rx.is_none() && self.input.uat.is_none())
                    || self.exit_error.is_some());
            // A signal ends the run as --duration does: JSON written, the
            // summary printed.
            let out_of_time = crate::stop::requested()
                || self.args.duration.is_some_and(|d| self.elapsed_s() >= d);
            // Once a second of wall time, and with the signal clock once
            // a second of signal.
            let signal_due = self.signal_clock.is_some()
                && self.outputs.pipeline.now_ms() >= self.last_tick_ms + 1000;
            if last_tick.elapsed() < Duration::from_secs(1)
                && !signal_due
                && !finished
                && !out_of_time
            {
                continue;
            }
            last_tick = Instant::now();
            self.last_tick_ms = self.outputs.pipeline.now_ms();
            self.tick(finished, out_of_time);
            if finished || out_of_time {
                break;
            }
        }
        self.shut_down()
    }

    /// Decode the next buffer of I/Q, or notice that the source ended.
    fn take_iq(&mut self) {
        let pipeline = &mut self.outputs.pipeline;
        match self.input.consumer.pop_timeout(self.iq_wait) {
            Ok(buf) => {
                pipeline.set_outputs(self.outputs.net.outputs());
                let now = match self.signal_clock {
                    // Signal time at the end of this buffer.
                    Some((start, rate)) => {
                        let samples =
                            pipeline.counters().samples_processed + (buf.len() / 2) as u64;
                        start + (samples as f64 * 1000.0 / rate) as u64
                    }
                    None => unix_ms(),
                };
                pipeline.process_iq(&buf, now);
                if let Some(g) = &mut self.gain {
                    g.after_buffer(pipeline, buf.len() / 2, &self.input.shared, self.args.quiet);
                }
            }
            Err(ring::PopError::Timeout) => {}
            Err(_) => {
                // The source thread has ended: flush the demodulator.
                self.source_done = true;
                pipeline.finish();
                if let Some(h) = self.input.thread.take() {
                    match h.join() {
                        Ok(End::Finished) => {}
                        Ok(End::Failed(e)) => {
                            let e = AdsbError::Source(e);
                            if (self.outputs.net.beast_rx.is_some() || self.input.uat.is_some())
                                && self.args.source.ifile.is_none()
                            {
                                eprintln!("{}; serving the other inputs only", e.message());
                            } else {
                                self.exit_error = Some(e);
                            }
                        }
                        Err(_) => self.exit_error = Some(AdsbError::SourcePanicked),
                    }
                }
            }
        }
    }

    /// Decode the Beast input waiting (without I/Q, wait for some).
    fn take_beast(&mut self) {
        let Some(rx) = &self.outputs.net.beast_rx else {
            return;
        };
        let first = if self.source_done {
            rx.recv_timeout(Duration::from_millis(100)).ok()
        } else {
            rx.try_recv().ok()
        };
        if let Some(f) = first {
            let pipeline = &mut self.outputs.pipeline;
            pipeline.set_outputs(self.outputs.net.outputs());
            pipeline.process_remote(&f.message, unix_ms());
            for f in rx.try_iter().take(BEAST_IN_QUEUE) {
                pipeline.process_remote(&f.message, unix_ms());
            }
        }
    }

    /// Decode the UAT messages waiting (without I/Q or Beast input, wait
    /// briefly for some).
    fn take_uat(&mut self) {
        let Some(uat) = &self.input.uat else {
            return;
        };
        let first = if self.source_done && self.outputs.net.beast_rx.is_none() {
            uat.rx.recv_timeout(Duration::from_millis(100)).ok()
        } else {
            uat.rx.try_recv().ok()
        };
        let Some(first) = first else {
            return;
        };
        let pipeline = &mut self.outputs.pipeline;
        pipeline.set_outputs(self.outputs.net.outputs());
        let hubs = self.outputs.net.uat.as_ref();
        let mut ended = None;
        let (mut raw, mut json) = (String::new(), String::new());
        for ev in std::iter::once(first).chain(uat.rx.try_iter().take(uat::input::QUEUE)) {
            match ev {
                UatEvent::Message(m, t_ms) => {
                    let seconds = t_ms as f64 / 1000.0;
                    if hubs.is_some_and(|h| h.raw.clients() > 0) {
                        uat::raw_line(&m, seconds, &mut raw);
                    }
                    match m.link {
                        Link::Downlink => {
                            let Ok(r) = DownlinkRepr::parse(&Downlink::new_unchecked(m.bytes()))
                            else {
                                continue;
                            };
                            pipeline.process_uat(&r, m.rssi_dbfs, t_ms);
                            if hubs.is_some_and(|h| h.json.clients() > 0) {
                                uat::json::write_downlink(
                                    &r,
                                    m.rssi_dbfs,
                                    m.errors,
                                    Some(seconds),
                                    &mut json,
                                );
                                json.push('\n');
                            }
                        }
                        Link::Uplink => {
                            pipeline.count_uat_uplink();
                            self.ticker.fisb.add_uplink(m.bytes(), t_ms);
                        }
                    }
                }
                UatEvent::Failed(e) => ended = Some(Some(e)),
                UatEvent::Ended => ended = Some(None),
            }
        }
        if let Some(h) = hubs {
            if !raw.is_empty() {
                h.raw.publish(raw.as_bytes());
            }
            if !json.is_empty() {
                h.json.publish(json.as_bytes());
            }
        }
        if let Some(why) = ended {
            match why {
                Some(e) => eprintln!("airwaves adsb: {e}; 1090 MHz goes on"),
                None if !self.args.quiet => eprintln!("airwaves adsb: the UAT input has ended"),
                None => {}
            }
            self.input.uat = None;
        }
    }

    /// The once-a-second work: snapshot, `--write-json`, site, console.
    fn tick(&mut self, finished: bool, out_of_time: bool) {
        let dropped = self.input.consumer.stats().bytes_dropped / 2;
        let out = &mut self.outputs;
        let snap = self.ticker.snapshot(&mut out.pipeline, &out.net, dropped);
        if let Some(dir) = &self.args.write_json {
            let due = self
                .last_json_write
                .is_none_or(|t| t.elapsed().as_secs_f64() >= self.args.write_json_every);
            if due || finished || out_of_time {
                self.last_json_write = Some(Instant::now());
                match write_json_dir(dir, &snap) {
                    Err(e) if !self.json_error_shown => {
                        eprintln!(
                            "airwaves adsb: --write-json {}: {e} (still serving)",
                            dir.display()
                        );
                        self.json_error_shown = true;
                    }
                    Err(_) => {}
                    Ok(()) => self.json_error_shown = false,
                }
            }
        }
        out.site.publish(snap);
        if self.args.net_heartbeat > 0.0 {
            out.net
                .heartbeat(Duration::from_secs_f64(self.args.net_heartbeat));
        }
        if let Some(state) = &mut self.state {
            let outline = out.pipeline.outline();
            state.save(outline, Some(&self.ticker.series), finished || out_of_time);
        }
        if finished || out_of_time {
            self.ticker
                .positions
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .flush();
        }
        self.console.tick(
            &out.pipeline,
            &out.net,
            &self.input.shared,
            self.started,
            finished,
        );
    }

    /// Stop the source, drain the output to clients, close the connectors.
    fn shut_down(mut self) -> Result<(), AdsbError> {
        self.console.end();
        self.input.shared.stop.store(true, Ordering::Relaxed);
        drop(self.input.consumer);
        // Let clients read what was published.
        let deadline = Instant::now() + DRAIN;
        let uat_hubs = self.outputs.net.uat.iter().flat_map(|u| [&u.raw, &u.json]);
        for h in self.outputs.net.hubs().chain(uat_hubs) {
            h.flush(deadline.saturating_duration_since(Instant::now()));
        }
        self.outputs.net.connectors.clear();
        if let Some(h) = self.input.thread.take() {
            let _ = h.join();
        }
        match self.exit_error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Renders the once-a-second snapshot: JSON, stats, metrics.
struct Ticker {
    history: StatsHistory,
    receiver_json: Arc<[u8]>,
    /// What `receiver_json` was rendered from (again when the gain moves).
    receiver_info: ReceiverInfo,
    receiver: Option<Position>,
    shared: Arc<Shared>,
    /// The user's aircraft database (`--db-file`).
    db: Option<AircraftDb>,
    /// The graphs' time series, and their JSON per resolution.
    series: Series,
    series_json: [Arc<[u8]>; 3],
    /// Counters, signal time and wall time of the last sample.
    last_sample: Option<(Counters, u64, Instant)>,
    /// Positions for the replay (shared with the site).
    positions: Arc<Mutex<History>>,
    /// FIS-B from the UAT uplink (`--uat-device`, `--demo`).
    fisb: FisbStore,
}

/// Load `--db-file`; a file that cannot be used is reported and the
/// feeder runs without it.
fn load_db(path: &Path) -> Option<AircraftDb> {
    match AircraftDb::load(path) {
        Ok(db) => {
            eprintln!(
                "airwaves adsb: --db-file {}: {} aircraft ({} lines skipped)",
                path.display(),
                db.len(),
                db.skipped()
            );
            Some(db)
        }
        Err(e) => {
            eprintln!(
                "airwaves adsb: --db-file {}: {e}; going on without it",
                path.display()
            );
            None
        }
    }
}

impl Ticker {
    /// Expire aircraft, bring the measured counters (CPU, drops) up to
    /// date and render every document. `ring_dropped` is the samples the
    /// source thread could not queue.
    fn snapshot(&mut self, pipeline: &mut Pipeline, net: &Network, ring_dropped: u64) -> Snapshot {
        pipeline.advance_wall_clock(unix_ms());
        let now = pipeline.now_ms();
        pipeline.expire();
        let c = pipeline.counters_mut();
        c.cpu_demod_ms = cpu::thread_cpu_ms().unwrap_or(0);
        c.cpu_reader_ms = self.shared.cpu_ms.load(Ordering::Relaxed);
        let total = cpu::process_cpu_ms().unwrap_or(0);
        c.cpu_background_ms = total.saturating_sub(c.cpu_demod_ms + c.cpu_reader_ms);
        c.samples_dropped =
            ring_dropped + self.shared.device_lost_bytes.load(Ordering::Relaxed) / 2;
        c.remote.bad = net.beast_stats.counts().malformed;
        c.clients_dropped = net.hubs().fold([0, 0], |[slow, stalled], h| {
            let s = h.stats();
            [slow + s.dropped_slow, stalled + s.dropped_stalled]
        });
        let counters = *pipeline.counters();
        let gain_db = counters.gain_tenths.map(|t| f64::from(t) / 10.0);
        if gain_db != self.receiver_info.gain_db {
            self.receiver_info.gain_db = gain_db;
            let mut r = String::new();
            write_receiver_json(&self.receiver_info, &mut r);
            self.receiver_json = Arc::from(r.into_bytes());
        }
        self.history.record(now, &counters);
        self.record_series(now, &counters, pipeline.tracker());
        self.record_history(now, pipeline.tracker());
        pipeline.counters_mut().clear_recent();
        let mut a = String::with_capacity(64 * 1024);
        write_aircraft_json_with(
            pipeline.tracker(),
            now,
            counters.messages(),
            self.receiver,
            self.db.as_ref(),
            &mut a,
        );
        let mut s = String::with_capacity(8 * 1024);
        self.history.write_stats_json(now, &counters, &mut s);
        let mut m = String::with_capacity(8 * 1024);
        write_metrics(&counters, pipeline.tracker(), now, &net.clients(), &mut m);
        write_series_metrics(&self.series, &mut m);
        let mut o = String::with_capacity(16 * 1024);
        match pipeline.outline() {
            Some(outline) => outline.write_json(now, &mut o),
            None => o.push_str(EMPTY_OUTLINE),
        }
        let mut f = String::new();
        self.fisb.write_json(now, &mut f);
        Snapshot {
            fisb: Arc::from(f.into_bytes()),
            aircraft: Arc::from(a.into_bytes()),
            receiver: self.receiver_json.clone(),
            stats: Arc::from(s.into_bytes()),
            metrics: Arc::from(m.into_bytes()),
            outline: Arc::from(o.into_bytes()),
            series: self.series_json.clone(),
        }
    }

    /// Offer every aircraft's latest position to the replay's history.
    fn record_history(&mut self, now: u64, tracker: &Tracker<TRACKER_CAPACITY>) {
        let mut h = self.positions.lock().unwrap_or_else(|e| e.into_inner());
        let now_s = now / 1000;
        for ac in tracker.iter() {
            h.offer(ac, now_s);
        }
        h.roll(now_s);
        if let Some(e) = h.write_error.take() {
            eprintln!("airwaves adsb: history: {e} (kept in memory)");
        }
    }

    /// Add this tick's sample to the graphs' series; render the JSON of
    /// every resolution whose bucket closed (or that was never rendered).
    fn record_series(
        &mut self,
        now: u64,
        counters: &Counters,
        tracker: &Tracker<TRACKER_CAPACITY>,
    ) {
        let wall = Instant::now();
        let closed = match &self.last_sample {
            Some((prev, t, w)) if now > *t => {
                let wall_ms = wall.duration_since(*w).as_millis() as u64;
                let s = Sample::from_counters(prev, counters, now - t, wall_ms, tracker, now);
                self.series.record(now, &s)
            }
            Some(_) => [false; 3],
            None => [true; 3],
        };
        if self.last_sample.as_ref().is_none_or(|(_, t, _)| now > *t) {
            self.last_sample = Some((*counters, now, wall));
        }
        for (i, changed) in closed.into_iter().enumerate() {
            if changed || self.series_json[i].is_empty() {
                let mut j = String::with_capacity(32 * 1024);
                self.series.write_json(i, &mut j);
                self.series_json[i] = Arc::from(j.into_bytes());
            }
        }
    }
}

/// The status line, progress bar and interactive table.
struct Console {
    quiet: bool,
    interactive: bool,
    /// stderr is a terminal: redraw one line in place each second (else a
    /// new line every 10 s).
    tty: bool,
    /// For a file read as fast as possible: its length in bytes and rate.
    progress: Option<(Option<u64>, u32)>,
    last: Instant,
    frames_at_last: u64,
    text: String,
    /// How the gain is set (`auto`, `agc`, `fixed`).
    gain_mode: &'static str,
}

impl Console {
    fn tick(
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
            console::interactive_table(
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
            console::progress_bar(done, total, started.elapsed().as_secs_f64(), &mut self.text);
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
            console::status_line(&status, &mut self.text);
            self.text.push_str("\x1b[K");
            eprint!("{}", self.text);
        } else {
            console::status_line(&status, &mut self.text);
            eprintln!("{}", self.text);
        }
    }

    fn end(&self) {
        if self.tty && !self.quiet {
            eprintln!();
        }
    }
}

/// Open the source the arguments name.
fn open_input(
    args: &AdsbArgs,
    rate: u32,
    receiver: Option<Position>,
    start_unix_ms: u64,
    lossless: bool,
) -> Result<Input, AdsbError> {
    if args.demo {
        let config = DemoConfig {
            receiver: receiver.unwrap_or(DemoConfig::default().receiver),
            sample_rate: f64::from(rate),
            aircraft: args.demo_aircraft,
            seed: args.demo_seed,
            sky: args.demo_sky,
            front_end: Some(FrontEnd::default()),
            gain: match args.tuning.gain {
                // The loop starts at the top.
                Gain::Auto => crate::rtl::r82xx::Gain::Manual(MAX_GAIN_TENTHS),
                Gain::Agc => crate::rtl::r82xx::Gain::Auto,
                Gain::Db(t) => crate::rtl::r82xx::Gain::Manual(crate::rtl::r82xx::nearest_gain(t)),
            },
            ..DemoConfig::default()
        };
        let sky = DemoSky::new(&config, start_unix_ms).map_err(AdsbError::Demo)?;
        if !args.quiet {
            eprintln!(
                "airwaves adsb: simulated {} sky, {} aircraft around {:.4}, {:.4}, {} real time",
                args.demo_sky.name(),
                args.demo_aircraft,
                config.receiver.lat,
                config.receiver.lon,
                if args.demo_speed.is_finite() {
                    format!("{}×", args.demo_speed)
                } else {
                    "as fast as it decodes, not".to_string()
                },
            );
        }
        return Ok(Input {
            source: Box::new(PacedSky::new(sky, f64::from(rate) * args.demo_speed)),
            description: "the simulated sky".to_string(),
            reopen: None,
            lossless: args.demo_speed.is_infinite(),
        });
    }
    let mut tuning = Tuning::new(&args.tuning, Some(args.freq), rate);
    if args.tuning.gain == Gain::Auto && args.source.ifile.is_none() {
        // The loop starts at the top, in manual mode.
        tuning.gain = Some(MAX_GAIN_TENTHS);
    }
    let source = Source::open(&args.source, &tuning).map_err(|source| {
        // The hint only where a missing or unreachable stick is the problem.
        let usb = matches!(&source, SourceError::Rtl(e) if e.usb_kind().is_some());
        let dongle = args.source.ifile.is_none()
            && args.source.rtl_tcp.is_none()
            && args.source.dongle.fake_device.is_none();
        AdsbError::Open {
            source,
            hint: usb && dongle,
        }
    })?;
    if !args.quiet {
        eprintln!("airwaves adsb: reading {}", source.description());
    }
    let reopen = args
        .source
        .rtl_tcp
        .is_some()
        .then(|| (args.source.clone(), tuning));
    Ok(Input {
        description: source.description().to_string(),
        source: Box::new(source),
        reopen,
        lossless,
    })
}

/// The state directory (`--state-dir`, else `--write-json`) with the
/// outline loaded into `pipeline` (with a receiver location) and the
/// graphs' series returned; `None` without a directory. A refused state
/// file is reported, never fatal.
fn open_state(args: &AdsbArgs, pipeline: &mut Pipeline) -> (Option<StateDir>, Option<Series>) {
    let Some(dir) = args.state_dir.clone().or_else(|| args.write_json.clone()) else {
        return (None, None);
    };
    let state = StateDir::new(dir);
    if let Some(receiver) = pipeline.outline().map(RangeOutline::receiver) {
        match state.load_outline(receiver) {
            Ok(Some(outline)) => pipeline.set_outline(outline),
            Ok(None) => {}
            Err(why) => eprintln!("airwaves adsb: {why}"),
        }
    }
    let series = match state.load_series() {
        Ok(s) => s,
        Err(why) => {
            eprintln!("airwaves adsb: {why}");
            None
        }
    };
    (Some(state), series)
}

/// Write the snapshot's JSON into `dir`, each file through a temporary
/// name and a rename so readers never see half a file.
fn write_json_dir(dir: &Path, snap: &Snapshot) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, body) in [
        ("aircraft.json", &snap.aircraft),
        ("receiver.json", &snap.receiver),
        ("stats.json", &snap.stats),
        ("outline.json", &snap.outline),
    ] {
        write_atomic(dir, name, body)?;
    }
    Ok(())
}

/// Wall-clock time, unix ms.
fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
