//! The feeder's decode stage: I/Q buffers and remote frames in, the
//! aircraft table and every output's bytes out.
//!
//! One [`Pipeline`] is owned by the decode thread. For each I/Q buffer it
//! runs the core Mode S demodulator (and, optionally, the Mode A/C
//! detector), gives every frame to the [`Tracker`], and appends the frame
//! to the enabled output batches: AVR `*HEX;` lines (port 30002), Beast
//! binary with the 12 MHz timestamp and signal byte (30005) and
//! BaseStation `MSG` lines (30003). Frames from Beast input (30004 or a
//! `beast_in` connector) take the same path after the tracker has checked
//! them. The caller publishes the batches (one network write per buffer,
//! not per frame) and clears them with [`Pipeline::clear_batches`].
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

use crate::feed::sbs::write_sbs;
use crate::feed::stats::{Counters, FrameSource};
use crate::mode_s::{ConfigError, tracker_config};
use airwaves_core::modes::cpr::{Position, distance_nm};
use airwaves_core::modes::demod::{AddressFilter, DemodFrame, DemodState, Demodulator};
use airwaves_core::modes::encode::{
    AVR_MAX_LEN, BEAST_MAX_LEN, Message, MessageKind, Timestamp, encode_avr, encode_beast,
    signal_byte,
};
use airwaves_core::modes::modeac::{ModeAcDetector, ModeAcReply, ModeAcState};
use airwaves_core::modes::tracker::{PositionUpdate, ReceivedFrame, RejectReason, Tracker};

/// Aircraft table capacity (readsb keeps no fixed limit; 1024 is several
/// times the busiest receivers' count).
pub const TRACKER_CAPACITY: usize = 1024;

/// Addresses remembered by the demodulator's AP-format filter.
const FILTER_CAPACITY: usize = 1024;

/// Metres in a nautical mile.
const METRES_PER_NM: f64 = 1852.0;

/// 12 MHz ticks per ms.
const TICKS_PER_MS: u64 = 12_000;

/// Which outputs are formatted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutputSet {
    /// AVR `*HEX;` lines.
    pub avr: bool,
    /// Beast binary.
    pub beast: bool,
    /// BaseStation `MSG` lines.
    pub sbs: bool,
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
}

/// The decode stage (see the module docs).
pub struct Pipeline {
    config: PipelineConfig,
    demod: Demodulator,
    state: DemodState,
    filter: Box<AddressFilter<FILTER_CAPACITY>>,
    modeac: Option<(ModeAcDetector, Box<ModeAcState>)>,
    tracker: Box<Tracker<TRACKER_CAPACITY>>,
    counters: Counters,
    batches: Batches,
    /// Tracker time of the current buffer (wall clock), unix ms.
    buffer_ms: u64,
    /// Latest tracker time seen, unix ms.
    now_ms: u64,
    /// Scratch for one SBS line.
    line: String,
}

/// Where a frame came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Local,
    Remote,
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
            let d = ModeAcDetector::new(config.sample_rate).map_err(ConfigError::ModeAc)?;
            Some((d, Box::new(ModeAcState::new())))
        } else {
            None
        };
        let tracker_config = tracker_config(config.receiver)?;
        let start = match config.clock {
            Clock::Samples { start_unix_ms } => start_unix_ms,
            Clock::Wall => 0,
        };
        Ok(Pipeline {
            config,
            demod,
            state: DemodState::new(),
            filter: Box::new(AddressFilter::new(
                AddressFilter::<FILTER_CAPACITY>::DEFAULT_TTL,
            )),
            modeac,
            tracker: Box::new(Tracker::new(tracker_config)),
            counters: Counters::default(),
            batches: Batches::default(),
            buffer_ms: start,
            now_ms: start,
            line: String::with_capacity(256),
        })
    }

    /// Change which outputs are formatted (e.g. only those with clients).
    pub fn set_outputs(&mut self, outputs: OutputSet) {
        self.config.outputs = outputs;
    }

    /// The configuration.
    pub fn config(&self) -> &PipelineConfig {
        &self.config
    }

    /// Demodulate one buffer of interleaved u8 I/Q (any length; an odd
    /// trailing byte is ignored) received at `now_unix_ms` (used with
    /// [`Clock::Wall`]).
    pub fn process_iq(&mut self, iq: &[u8], now_unix_ms: u64) {
        self.buffer_ms = now_unix_ms;
        let iq = &iq[..iq.len() & !1];
        self.counters.samples_processed += (iq.len() / 2) as u64;
        let (mut sink, demod, state, filter, modeac) = self.split();
        demod.process(state, filter, iq, |f| sink.local(f));
        if let Some((d, s)) = modeac {
            d.process(s, iq, |r| sink.mode_ac(r));
        }
        let line = sink.line;
        self.line = line;
        if let Some(n) = self.state.noise_dbfs() {
            self.counters.add_noise(f64::from(n));
        }
        self.after_batch();
    }

    /// Flush the frames still held by the demodulator (end of a file).
    pub fn finish(&mut self) {
        let (mut sink, demod, state, filter, modeac) = self.split();
        demod.finish(state, filter, |f| sink.local(f));
        if let Some((d, s)) = modeac {
            d.finish(s, |r| sink.mode_ac(r));
        }
        self.line = sink.line;
        self.after_batch();
    }

    /// The frame sink and the detectors, borrowed apart.
    #[allow(clippy::type_complexity)]
    fn split(
        &mut self,
    ) -> (
        FrameSink<'_>,
        &Demodulator,
        &mut DemodState,
        &mut AddressFilter<FILTER_CAPACITY>,
        Option<(&ModeAcDetector, &mut ModeAcState)>,
    ) {
        let Pipeline {
            config,
            demod,
            state,
            filter,
            modeac,
            tracker,
            counters,
            batches,
            buffer_ms,
            now_ms,
            line,
        } = self;
        let sink = FrameSink {
            tracker,
            counters,
            batches,
            config,
            buffer_ms: *buffer_ms,
            now_ms,
            line: std::mem::take(line),
        };
        let modeac = modeac.as_mut().map(|(d, s)| (&*d, &mut **s));
        (sink, demod, state, filter, modeac)
    }

    /// A frame from Beast input, received at `now_unix_ms`. Mode S frames
    /// are checked by the tracker (parity, known address for AP formats)
    /// and forwarded only if they pass; Mode A/C replies are forwarded.
    pub fn process_remote(&mut self, m: &Message, now_unix_ms: u64) {
        self.buffer_ms = self.buffer_ms.max(now_unix_ms);
        let (mut sink, _, state, filter, _) = self.split();
        sink.buffer_ms = now_unix_ms;
        match m.kind() {
            MessageKind::ModeAc => {
                sink.counters.remote.modeac += 1;
                let ts = m.timestamp.unwrap_or_default();
                sink.emit(m.frame(), ts.ticks(), m.signal.unwrap_or(0), None);
            }
            _ => {
                let ticks = m.timestamp.map_or(0, Timestamp::ticks);
                let signal = m.signal.unwrap_or(0);
                let dbfs = if signal == 0 {
                    f32::NAN
                } else {
                    20.0 * (f32::from(signal) / 255.0).log10()
                };
                let addr = sink.mode_s(m.frame(), ticks, signal, dbfs, 0, Origin::Remote);
                // A DF11/17/18 address heard remotely lets the local
                // demodulator accept that aircraft's AP-format replies.
                if let Some(a) = addr {
                    let now = state.stats().samples * TICKS_PER_SECOND
                        / u64::from(sink.config.sample_rate).max(1);
                    filter.insert(a, now);
                }
            }
        }
        self.line = sink.line;
        self.after_batch();
    }

    fn after_batch(&mut self) {
        let c = &mut self.counters;
        c.tracker = *self.tracker.stats();
    }

    /// Move the wall clock to `now_unix_ms` without data (so that aircraft
    /// expire while the inputs are quiet). Ignored with [`Clock::Samples`].
    pub fn advance_wall_clock(&mut self, now_unix_ms: u64) {
        if self.config.clock == Clock::Wall {
            self.buffer_ms = self.buffer_ms.max(now_unix_ms);
        }
    }

    /// Remove aircraft not heard for the tracker's expiry time, as of the
    /// pipeline's current time. Call about once a second.
    pub fn expire(&mut self) -> usize {
        self.tracker.expire(self.now_ms())
    }

    /// The pipeline's current time (the latest frame or buffer time), unix
    /// ms.
    pub fn now_ms(&self) -> u64 {
        self.now_ms.max(self.buffer_ms)
    }

    /// The aircraft table.
    pub fn tracker(&self) -> &Tracker<TRACKER_CAPACITY> {
        &self.tracker
    }

    /// Counters so far (the caller adds drops and CPU times it measures).
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Mutable counters, for what the caller measures (USB drops, CPU).
    pub fn counters_mut(&mut self) -> &mut Counters {
        &mut self.counters
    }

    /// The output waiting to be published.
    pub fn batches(&self) -> &Batches {
        &self.batches
    }

    /// Empty the batches (keeping their capacity).
    pub fn clear_batches(&mut self) {
        self.batches.avr.clear();
        self.batches.beast.clear();
        self.batches.sbs.clear();
    }
}

/// 12 MHz ticks per second: ticks = samples · 12e6 / rate.
const TICKS_PER_SECOND: u64 = 12_000_000;

/// The per-frame half of [`Pipeline`], split off so the demodulator's
/// callback can borrow it while the demodulator borrows its own state.
struct FrameSink<'a> {
    tracker: &'a mut Tracker<TRACKER_CAPACITY>,
    counters: &'a mut Counters,
    batches: &'a mut Batches,
    config: &'a PipelineConfig,
    buffer_ms: u64,
    now_ms: &'a mut u64,
    /// Scratch for one SBS line (the pipeline's, lent for the call).
    line: String,
}

impl FrameSink<'_> {
    fn frame_ms(&self, ticks: u64, origin: Origin) -> u64 {
        match (self.config.clock, origin) {
            (Clock::Samples { start_unix_ms }, Origin::Local) => {
                start_unix_ms + ticks / TICKS_PER_MS
            }
            _ => self.buffer_ms,
        }
    }

    fn local(&mut self, f: &DemodFrame) {
        let power = 10f32.powf(f.signal_dbfs / 10.0);
        self.mode_s(
            f.bytes(),
            f.timestamp,
            signal_byte(power),
            f.signal_dbfs,
            f.repaired_bits,
            Origin::Local,
        );
    }

    fn mode_ac(&mut self, r: &ModeAcReply) {
        self.counters.local.modeac += 1;
        let bytes = r.to_bytes();
        self.emit(&bytes, r.timestamp, 0, None);
    }

    /// Track and forward one Mode S frame; returns the address of a
    /// trusted DF11/17/18 frame (for the AP filter).
    fn mode_s(
        &mut self,
        bytes: &[u8],
        ticks: u64,
        signal: u8,
        dbfs: f32,
        repaired: u8,
        origin: Origin,
    ) -> Option<u32> {
        let t_ms = self.frame_ms(ticks, origin);
        *self.now_ms = (*self.now_ms).max(t_ms);
        let rx = ReceivedFrame::new(bytes, t_ms)
            .with_signal(dbfs)
            .with_repaired_bits(repaired);
        let outcome = self.tracker.update(&rx, t_ms);
        let source = match origin {
            Origin::Local => FrameSource::Local,
            Origin::Remote => FrameSource::Remote,
        };
        self.counters.add_frame(source, &rx, &outcome);
        if origin == Origin::Remote
            && !matches!(
                outcome,
                Ok(_) | Err(RejectReason::AltitudeJump | RejectReason::VelocityJump)
            )
        {
            // Unverifiable or corrupt: not forwarded.
            return None;
        }
        let sbs = match &outcome {
            Ok(o) => self.tracker.get(o.key).map(|a| (o, a)),
            Err(_) => None,
        };
        self.line.clear();
        if self.config.outputs.sbs
            && let Some((o, a)) = sbs
        {
            write_sbs(bytes, o, a, t_ms, self.buffer_ms.max(t_ms), &mut self.line);
        }
        if let Ok(o) = &outcome
            && matches!(o.position, PositionUpdate::Decoded(_))
            && let (Some(rx_pos), Some(a)) = (self.config.receiver, self.tracker.get(o.key))
            && let Some(fix) = a.position()
        {
            self.counters
                .add_distance_m(distance_nm(rx_pos, fix.position) * METRES_PER_NM);
        }
        let line = std::mem::take(&mut self.line);
        self.emit(bytes, ticks, signal, Some(&line));
        self.line = line;
        let df = bytes.first().map_or(0, |b| b >> 3);
        match outcome {
            Ok(_) if matches!(df, 11 | 17 | 18) && repaired == 0 => {
                airwaves_core::modes::frame::Frame::new_checked(bytes)
                    .ok()
                    .and_then(|f| f.address())
            }
            _ => None,
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
