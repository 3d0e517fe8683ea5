//! The feeder's decode stage: I/Q buffers and remote frames in, the
//! aircraft table and every output's bytes out.
//!
//! One [`Pipeline`] is owned by the decode thread. For each I/Q buffer it
//! runs the core Mode S demodulator (and, optionally, the Mode A/C
//! detector), gives every frame to the [`Tracker`], and appends the frame
//! to the enabled output batches: AVR `*HEX;` lines (port 30002), Beast
//! binary with the 12 MHz timestamp and signal byte (30005),
//! BaseStation `MSG` lines (30003) and, for aggregators, the reduced Beast
//! stream ([`BeastReducer`]: accepted frames only, thinned per aircraft).
//! Frames from Beast input (30004 or a `beast_in` connector) take the same
//! path after the tracker has checked them. The caller publishes the
//! batches (one network write per buffer, not per frame) and clears them
//! with [`Pipeline::clear_batches`].
//!
//! Nothing here knows about sockets or threads; nothing allocates per
//! frame (the batches and the line buffer grow to their working size and
//! are reused).
//!
//! # Clocks
//!
//! Frames carry two times:
//! - the **12 MHz timestamp** of the demodulator (ticks from the first
//!   sample; what Beast and `@` AVR carry, and what MLAT needs);
//! - the **tracker time**, unix ms, by [`Clock`]: the wall clock for live
//!   sources and throttled files, or the sample clock (start time plus the
//!   frame's sample time) for a file read as fast as possible, so that a
//!   replay tracks aircraft (CPR pairs, speeds) as they flew.

use crate::feed::outline::RangeOutline;
use crate::feed::reduce::BeastReducer;
use crate::feed::sbs::write_sbs;
use crate::feed::stats::{Counters, FrameSource};
use crate::mode_s::{ConfigError, tracker_config};
use airwaves_core::modes::cpr::{Position, distance_nm};
use airwaves_core::modes::demod::Demodulator;
use airwaves_core::modes::encode::{
    AVR_MAX_LEN, BEAST_MAX_LEN, Message, MessageKind, Timestamp, encode_avr, encode_beast,
    signal_byte,
};
use airwaves_core::modes::level::{LevelMeter, LevelState, LevelStats};
use airwaves_core::modes::modeac::{ModeAcDetector, ModeAcReply};
use airwaves_core::modes::receiver::{self, Decoded, ModeAc, Receiver, Sink};
use airwaves_core::modes::tracker::{
    PositionUpdate, ReceivedFrame, RejectReason, Tracker, UpdateOutcome,
};
use airwaves_core::uat::adsb::DownlinkRepr;
use airwaves_core::uat::esnt;

/// The Beast timestamp of frames translated from UAT (readsb's
/// `MAGIC_UAT_TIMESTAMP`, "MLAU"), so that a consumer tells them from
/// frames heard on 1090 MHz.
pub const UAT_TIMESTAMP: Timestamp = Timestamp::from_ticks(0xFF00_4D4C_4155);

/// Aircraft table capacity (readsb keeps no fixed limit; 1024 is several
/// times the busiest receivers' count).
pub const TRACKER_CAPACITY: usize = 1024;

/// Metres in a nautical mile.
const METRES_PER_NM: f64 = 1852.0;

/// Which outputs are formatted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutputSet {
    /// AVR `*HEX;` lines.
    pub avr: bool,
    /// Beast binary.
    pub beast: bool,
    /// BaseStation `MSG` lines.
    pub sbs: bool,
    /// Reduced Beast ([`BeastReducer`]).
    pub beast_reduce: bool,
}

/// Where the tracker's time comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// The `now_unix_ms` given with each buffer.
    Wall,
    /// `start_unix_ms` plus the frame's sample time.
    Samples {
        /// Unix time of the first sample, ms.
        start_unix_ms: u64,
    },
}

/// How the pipeline is set up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipelineConfig {
    /// I/Q sample rate, Hz (2.4 or 2.0 MS/s; any rate the demodulator
    /// accepts).
    pub sample_rate: u32,
    /// Also detect Mode A/C replies (needs 2.0 or 2.4 MS/s).
    pub modeac: bool,
    /// The receiver's location (degrees): range check, surface and
    /// receiver-relative CPR decoding, distances.
    pub receiver: Option<Position>,
    /// Outputs to format.
    pub outputs: OutputSet,
    /// Tracker time source.
    pub clock: Clock,
    /// Send multilateration results on the outputs (readsb's
    /// `--forward-mlat`); off, they only reach the aircraft table.
    pub forward_mlat: bool,
    /// Interval of the reduced Beast stream, ms ([`BeastReducer`]).
    pub reduce_interval_ms: u64,
}

/// Encoded output waiting to be published.
#[derive(Debug, Default)]
pub struct Batches {
    /// AVR lines.
    pub avr: Vec<u8>,
    /// Beast messages.
    pub beast: Vec<u8>,
    /// SBS lines.
    pub sbs: String,
    /// Reduced Beast messages.
    pub beast_reduce: Vec<u8>,
}

/// The decode stage (see the module docs).
pub struct Pipeline {
    rx: Box<Receiver<TRACKER_CAPACITY, Option<ModeAc>>>,
    out: Outputs,
    /// Signal levels for the gain loop (measured once turned on).
    levels: Option<LevelState>,
}

/// Where a frame came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Local,
    Remote,
    /// A multilateration result from Beast input.
    Mlat,
}

impl Pipeline {
    /// Build the demodulator, detector and tracker for `config`.
    ///
    /// # Errors
    /// A sample rate the demodulator (or, with Mode A/C, the detector)
    /// does not support, or an invalid receiver location.
    pub fn new(config: PipelineConfig) -> Result<Pipeline, ConfigError> {
        let demod = Demodulator::new(config.sample_rate).map_err(ConfigError::Demod)?;
        let modeac = if config.modeac {
            let detector = ModeAcDetector::new(config.sample_rate).map_err(ConfigError::ModeAc)?;
            Some(ModeAc::new(detector))
        } else {
            None
        };
        let tracker_config = tracker_config(config.receiver)?;
        let (clock, start) = match config.clock {
            Clock::Samples { start_unix_ms } => (
                receiver::Clock::Samples {
                    epoch_ms: start_unix_ms,
                },
                start_unix_ms,
            ),
            Clock::Wall => (receiver::Clock::Arrival, 0),
        };
        let rx = Receiver::with_modeac(demod, modeac, tracker_config, clock)
            .map_err(ConfigError::Receiver)?;
        Ok(Pipeline {
            levels: None,
            rx: Box::new(rx),
            out: Outputs {
                config,
                counters: Counters::default(),
                batches: Batches::default(),
                buffer_ms: start,
                now_ms: start,
                line: String::with_capacity(256),
                outline: config.receiver.map(RangeOutline::new),
                reducer: BeastReducer::new(config.reduce_interval_ms),
            },
        })
    }

    /// Change which outputs are formatted (e.g. only those with clients).
    pub fn set_outputs(&mut self, outputs: OutputSet) {
        self.out.config.outputs = outputs;
    }

    /// The configuration.
    pub fn config(&self) -> &PipelineConfig {
        &self.out.config
    }

    /// Demodulate one buffer of interleaved u8 I/Q (any length; an odd
    /// trailing byte is ignored) received at `now_unix_ms` (used with
    /// [`Clock::Wall`]).
    pub fn process_iq(&mut self, iq: &[u8], now_unix_ms: u64) {
        self.out.buffer_ms = now_unix_ms;
        let iq = &iq[..iq.len() & !1];
        self.out.counters.samples_processed += (iq.len() / 2) as u64;
        self.rx.process(iq, now_unix_ms, &mut self.out);
        if let Some(levels) = &mut self.levels {
            LevelMeter::RTL_SDR.block(levels, iq);
        }
        let demod = self.rx.demod_state();
        self.out.counters.demod = demod.stats();
        if let Some(n) = demod.noise_dbfs() {
            self.out.counters.add_noise(f64::from(n));
        }
        self.after_batch();
    }

    /// Measure signal levels (core [`LevelMeter::RTL_SDR`], one sample in
    /// 8) from the next buffer on, for [`take_levels`](Self::take_levels).
    pub fn measure_levels(&mut self) {
        self.levels.get_or_insert_with(LevelState::new);
    }

    /// The levels measured since the last call (`None` unless
    /// [`measure_levels`](Self::measure_levels) was called).
    pub fn take_levels(&mut self) -> Option<LevelStats> {
        let levels = self.levels.as_mut()?;
        let stats = levels.stats();
        levels.clear();
        Some(stats)
    }

    /// Flush the frames still held by the demodulator (end of a file).
    pub fn finish(&mut self) {
        self.rx.finish(self.out.buffer_ms, &mut self.out);
        self.after_batch();
    }

    /// A frame from Beast input, received at `now_unix_ms`. Mode S frames
    /// are checked by the tracker (parity, known address for AP formats)
    /// and forwarded only if they pass; Mode A/C replies are forwarded.
    /// A trusted DF11/17/18 heard remotely lets the local demodulator
    /// accept that aircraft's AP-format replies (the receiver's one set of
    /// known addresses). A multilateration result ([`Message::is_mlat`])
    /// is tracked as such and forwarded only with
    /// [`PipelineConfig::forward_mlat`], so that a feed never passes off a
    /// computed position as a received one.
    pub fn process_remote(&mut self, m: &Message, now_unix_ms: u64) {
        self.out.buffer_ms = self.out.buffer_ms.max(now_unix_ms);
        let ticks = m.timestamp.map_or(0, Timestamp::ticks);
        let signal = m.signal.unwrap_or(0);
        let mlat = m.is_mlat();
        match m.kind() {
            // A heartbeat (an all-zero Mode A/C message, readsb's and
            // ours): the link is alive, nothing was received.
            MessageKind::ModeAc if ticks == 0 && m.frame() == [0, 0] => {}
            MessageKind::ModeAc => {
                self.out.counters.remote.modeac += 1;
                self.out.emit(m.frame(), ticks, signal, None);
            }
            _ => {
                // An MLAT result's signal byte is not a level heard here.
                let dbfs = if signal == 0 || mlat {
                    f32::NAN
                } else {
                    20.0 * (f32::from(signal) / 255.0).log10()
                };
                let mut rx = ReceivedFrame::new(m.frame(), now_unix_ms).with_signal(dbfs);
                if mlat {
                    rx = rx.as_mlat();
                    self.out.counters.mlat_results += 1;
                }
                let origin = if mlat { Origin::Mlat } else { Origin::Remote };
                self.track_remote(&rx, ticks, signal, origin);
            }
        }
        self.after_batch();
    }

    /// A UAT downlink message from the 978 MHz receiver, heard at
    /// `now_unix_ms` at `rssi_dbfs`: translated into extended squitters
    /// ([`esnt`]), tracked as heard on UAT, and forwarded on AVR, Beast
    /// (timestamp [`UAT_TIMESTAMP`], readsb's mark for UAT) and SBS like
    /// remote frames.
    pub fn process_uat(&mut self, msg: &DownlinkRepr, rssi_dbfs: f32, now_unix_ms: u64) {
        self.out.buffer_ms = self.out.buffer_ms.max(now_unix_ms);
        self.out.counters.uat_downlink += 1;
        let mut frames = [[0u8; 14]; esnt::MAX_FRAMES];
        let n = esnt::translate(msg, &mut frames);
        let dbfs = if rssi_dbfs.is_finite() {
            rssi_dbfs.min(0.0)
        } else {
            f32::NAN
        };
        let signal = if dbfs.is_nan() {
            0
        } else {
            signal_byte(10f32.powf(dbfs / 10.0))
        };
        for bytes in &frames[..n] {
            let rx = ReceivedFrame::new(bytes, now_unix_ms)
                .with_signal(dbfs)
                .as_uat();
            self.track_remote(&rx, UAT_TIMESTAMP.ticks(), signal, Origin::Remote);
        }
        self.after_batch();
    }

    /// Track a frame not from the local demodulator and pass it to the
    /// outputs with its Beast timestamp and signal byte.
    fn track_remote(&mut self, rx: &ReceivedFrame<'_>, ticks: u64, signal: u8, origin: Origin) {
        let outcome = self.rx.track_remote(rx);
        let tracked = Tracked {
            bytes: rx.bytes,
            ticks,
            signal,
            dbfs: rx.signal_dbfs,
            repaired: 0,
            t_ms: rx.t_ms,
            arrival_ms: rx.t_ms,
            outcome: &outcome,
            tracker: self.rx.tracker(),
        };
        self.out.mode_s(&tracked, origin);
    }

    /// Count a UAT uplink (ground station) message.
    pub fn count_uat_uplink(&mut self) {
        self.out.counters.uat_uplink += 1;
    }

    fn after_batch(&mut self) {
        self.out.counters.tracker = *self.rx.tracker().stats();
    }

    /// Move the wall clock to `now_unix_ms` without data (so that aircraft
    /// expire while the inputs are quiet). Ignored with [`Clock::Samples`].
    pub fn advance_wall_clock(&mut self, now_unix_ms: u64) {
        if self.out.config.clock == Clock::Wall {
            self.out.buffer_ms = self.out.buffer_ms.max(now_unix_ms);
        }
    }

    /// Remove aircraft not heard for the tracker's expiry time, as of the
    /// pipeline's current time. Call about once a second.
    pub fn expire(&mut self) -> usize {
        let now = self.now_ms();
        self.rx.expire(now)
    }

    /// The pipeline's current time (the latest frame or buffer time), unix
    /// ms.
    pub fn now_ms(&self) -> u64 {
        self.out.now_ms.max(self.out.buffer_ms)
    }

    /// The aircraft table.
    pub fn tracker(&self) -> &Tracker<TRACKER_CAPACITY> {
        self.rx.tracker()
    }

    /// Counters so far (the caller adds drops and CPU times it measures).
    pub fn counters(&self) -> &Counters {
        &self.out.counters
    }

    /// Mutable counters, for what the caller measures (USB drops, CPU).
    pub fn counters_mut(&mut self) -> &mut Counters {
        &mut self.out.counters
    }

    /// The range outline of the positions decoded here (`None` without a
    /// receiver location).
    pub fn outline(&self) -> Option<&RangeOutline> {
        self.out.outline.as_ref()
    }

    /// Replace the range outline (one loaded from a state file); ignored
    /// unless it is for this pipeline's receiver location.
    pub fn set_outline(&mut self, outline: RangeOutline) {
        if self.out.outline.is_some() && Some(outline.receiver()) == self.out.config.receiver {
            self.out.outline = Some(outline);
        }
    }

    /// The output waiting to be published.
    pub fn batches(&self) -> &Batches {
        &self.out.batches
    }

    /// Empty the batches (keeping their capacity).
    pub fn clear_batches(&mut self) {
        self.out.batches.avr.clear();
        self.out.batches.beast.clear();
        self.out.batches.sbs.clear();
        self.out.batches.beast_reduce.clear();
    }
}

/// One Mode S frame after the tracker, local or remote.
struct Tracked<'a> {
    bytes: &'a [u8],
    ticks: u64,
    signal: u8,
    dbfs: f32,
    repaired: u8,
    /// Tracker time of the frame, unix ms.
    t_ms: u64,
    /// Arrival time of its buffer, unix ms.
    arrival_ms: u64,
    outcome: &'a Result<UpdateOutcome, RejectReason>,
    tracker: &'a Tracker<TRACKER_CAPACITY>,
}

/// The pipeline's output half: counters and encoded batches, fed by the
/// receiver as a [`Sink`] and by Beast input.
struct Outputs {
    config: PipelineConfig,
    counters: Counters,
    batches: Batches,
    /// Tracker time of the current buffer (wall clock), unix ms.
    buffer_ms: u64,
    /// Latest tracker time seen, unix ms.
    now_ms: u64,
    /// Scratch for one SBS line.
    line: String,
    /// The range outline of local positions (with a receiver location).
    outline: Option<RangeOutline>,
    /// What the reduced Beast stream has passed on.
    reducer: BeastReducer,
}

impl Sink<TRACKER_CAPACITY> for Outputs {
    fn frame(&mut self, d: &Decoded<'_, TRACKER_CAPACITY>) {
        let f = d.frame;
        let power = 10f32.powf(f.signal_dbfs / 10.0);
        let tracked = Tracked {
            bytes: f.bytes(),
            ticks: f.timestamp.get(),
            signal: signal_byte(power),
            dbfs: f.signal_dbfs,
            repaired: f.repaired_bits,
            t_ms: d.t_ms,
            arrival_ms: self.buffer_ms,
            outcome: &d.outcome,
            tracker: d.tracker,
        };
        self.mode_s(&tracked, Origin::Local);
    }

    fn mode_ac(&mut self, r: &ModeAcReply) {
        self.counters.local.modeac += 1;
        let bytes = r.to_bytes();
        self.emit(&bytes, r.timestamp.get(), 0, None);
    }
}

impl Outputs {
    /// Count and forward one tracked Mode S frame.
    fn mode_s(&mut self, f: &Tracked<'_>, origin: Origin) {
        let t_ms = f.t_ms;
        self.now_ms = self.now_ms.max(t_ms);
        let source = match origin {
            Origin::Local => FrameSource::Local,
            Origin::Remote | Origin::Mlat => FrameSource::Remote,
        };
        self.counters
            .add_frame(source, f.repaired, f.dbfs, f.outcome);
        if origin == Origin::Mlat && !self.config.forward_mlat {
            return;
        }
        if origin != Origin::Local
            && !matches!(
                f.outcome,
                Ok(_) | Err(RejectReason::AltitudeJump | RejectReason::VelocityJump)
            )
        {
            // Unverifiable or corrupt: not forwarded.
            return;
        }
        let accepted = match f.outcome {
            Ok(o) => f.tracker.get(o.key).map(|a| (o, a)),
            Err(_) => None,
        };
        self.line.clear();
        if self.config.outputs.sbs
            && let Some((o, a)) = accepted
        {
            let arrival = f.arrival_ms.max(t_ms);
            write_sbs(f.bytes, o, a, t_ms, arrival, &mut self.line);
        }
        if let Some((o, a)) = accepted
            && matches!(o.position, PositionUpdate::Decoded(_))
            && let Some(rx_pos) = self.config.receiver
            && let Some(fix) = a.position()
        {
            self.counters
                .add_distance_m(distance_nm(rx_pos, fix.position) * METRES_PER_NM);
            if origin == Origin::Local
                && let Some(outline) = &mut self.outline
            {
                let alt = a.altitude_baro_ft().filter(|_| a.on_ground() != Some(true));
                outline.add(o.key, fix.position, alt, t_ms);
            }
        }
        let line = std::mem::take(&mut self.line);
        self.emit(f.bytes, f.ticks, f.signal, Some(&line));
        self.line = line;
        if self.config.outputs.beast_reduce
            && let Some((o, _)) = accepted
            && self.reducer.admit(o.key, f.bytes, t_ms)
        {
            let mut buf = [0u8; BEAST_MAX_LEN];
            let ts = Timestamp::from_ticks(f.ticks);
            if let Ok(n) = encode_beast(&mut buf, f.bytes, ts, f.signal) {
                self.batches.beast_reduce.extend_from_slice(&buf[..n]);
            }
        }
    }

    /// Append one frame to the enabled batches (`sbs`: its SBS line).
    fn emit(&mut self, bytes: &[u8], ticks: u64, signal: u8, sbs: Option<&str>) {
        let outputs = self.config.outputs;
        if outputs.avr {
            let mut buf = [0u8; AVR_MAX_LEN];
            if let Ok(n) = encode_avr(&mut buf, bytes, None) {
                self.batches.avr.extend_from_slice(&buf[..n]);
            }
        }
        if outputs.beast {
            let mut buf = [0u8; BEAST_MAX_LEN];
            if let Ok(n) = encode_beast(&mut buf, bytes, Timestamp::from_ticks(ticks), signal) {
                self.batches.beast.extend_from_slice(&buf[..n]);
            }
        }
        if outputs.sbs
            && let Some(line) = sbs
        {
            self.batches.sbs.push_str(line);
        }
    }
}
