//! `airwaves adsb`: the decode loop that ties the inputs (`inputs.rs`),
//! the pipeline, the network and the HTTP site together, with the
//! once-a-second work (`ticker.rs`) and the console (`console.rs`).

use super::args::AdsbArgs;
use super::console::Console;
use super::inputs::{InputThread, open_input_thread};
use super::network::{BEAST_IN_QUEUE, Network, open_network, publish};
use super::pipeline::{Clock, Pipeline, PipelineConfig};
use super::site::FeederSite;
use super::source::{End, Shared};
use super::state::StateDir;
use super::ticker::{Ticker, load_db, write_json_dir};
use crate::autogain::control::{LoopConfig, LoopState, Measurement};
use crate::cli::Gain;
use crate::demo::DemoConfig;
use crate::demo::frontend::MAX_GAIN_TENTHS;
use crate::error::{AdsbError, CommandError};
use crate::feed::history::History;
use crate::feed::json::{ReceiverInfo, write_receiver_json};
use crate::feed::outline::RangeOutline;
use crate::feed::series::Series;
use crate::feed::stats::StatsHistory;
use crate::net::http::serve_http_with;
use crate::net::http_policy::HttpPolicy;
use crate::net::listener::ListenerHandle;
use crate::ring;
use crate::uat::{self, fisb::FisbStore, input::UatEvent};
use airwaves_core::modes::cpr::Position;
use airwaves_core::uat::demod::Link;
use std::io::IsTerminal;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long `--ifile` waits for `--net-connector`s before reading.
const CONNECTOR_WAIT: Duration = Duration::from_secs(5);
/// How long output is given to drain to clients at the end of a file.
const DRAIN: Duration = Duration::from_secs(3);

/// Version string of `receiver.json`.
const VERSION: &str = concat!("airwaves ", env!("CARGO_PKG_VERSION"));

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
pub(super) struct Settings {
    /// Sample rate, Hz.
    pub(super) rate: u32,
    /// The receiver's location (the demo's default with `--demo`).
    pub(super) receiver: Option<Position>,
    /// Network ports and connectors wanted.
    pub(super) net_on: bool,
    /// The HTTP port, if any.
    pub(super) http_port: Option<u16>,
    /// A file read as fast as possible: nothing may be dropped, and the
    /// tracker runs on sample time.
    pub(super) lossless: bool,
    /// Wall-clock time at start, unix ms.
    pub(super) start_unix_ms: u64,
    /// The feeder's time is signal time (the demo sky): the tracker's
    /// clock, `--duration` and the once-a-second work follow the samples.
    pub(super) signal_clock: bool,
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
                    match (m.link, m.downlink()) {
                        (Link::Downlink, Some(r)) => {
                            pipeline.process_uat(&r, m.rssi_dbfs, t_ms);
                            if hubs.is_some_and(|h| h.json.clients() > 0) {
                                uat::json::write_downlink_line(&r, &m, Some(seconds), &mut json);
                            }
                        }
                        (Link::Downlink, None) => {}
                        (Link::Uplink, _) => {
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

/// Wall-clock time, unix ms.
pub(super) fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
