//! The Mode S receive chain in one piece: cu8 I/Q in, tracked frames out.
//!
//! ```text
//!   I/Q ──► Demodulator ──► DemodFrame ──► Tracker ──► Sink::frame(Decoded)
//!             ▲    │                         │
//!             │    └─ trusted DF11/17/18 ──► known addresses ◄── trusted remote frames
//!             └────── AP formats accepted only for known addresses
//!   I/Q ──► ModeAcDetector (optional) ───────────────────────► Sink::mode_ac
//! ```
//!
//! A [`Receiver`] owns the demodulator and its state, the aircraft
//! [`Tracker`], the one set of known addresses that the demodulator
//! consults for AP-format replies, and its Mode A/C stage. Every user (the
//! feeder, `airwaves decode`, the demo, the firmware) runs this chain
//! instead of gluing the stages itself.
//!
//! # Mode A/C
//!
//! The Mode A/C stage is the receiver's type parameter `M`
//! ([`ModeAcStage`]): [`NoModeAc`] (the default; Mode S only, no state and
//! no detector code), [`ModeAc`] (a detector and its 3.6 KiB state) or
//! `Option<ModeAc>` (chosen at run time). [`Receiver::new`] builds a Mode S
//! receiver; it cannot fail and is `const`. [`Receiver::with_modeac`]
//! takes a stage and checks its rate.
//!
//! # Clocks
//!
//! Frames are stamped by the demodulator in [`Ticks`] (12 MHz from the
//! first sample). The tracker runs on milliseconds, on the caller's epoch,
//! chosen by [`Clock`]: [`Clock::Samples`] stamps each frame with the
//! epoch plus its sample time (a recording decoded as fast as it is read
//! is tracked as it flew); [`Clock::Arrival`] stamps every frame of a block
//! with the arrival time the caller passes in (a live source, on the wall
//! clock).
//!
//! Nothing here allocates; the chain's output does not depend on how the
//! I/Q stream is split into calls.

use super::demod::{AddressFilter, DemodFrame, DemodState, Demodulator};
use super::frame::Frame;
use super::modeac::{ModeAcDetector, ModeAcReply, ModeAcState};
use super::time::Ticks;
use super::tracker::{
    Aircraft, ReceivedFrame, RejectReason, Tracker, TrackerConfig, UpdateOutcome,
};

/// Where the tracker's time (ms) comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Clock {
    /// A frame's time is `epoch_ms` plus its sample time.
    Samples {
        /// Tracker time of the stream's first sample, ms.
        epoch_ms: u64,
    },
    /// Every frame of a block gets the arrival time passed with the block.
    Arrival,
}

/// Why a [`Receiver`] could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigError {
    /// The Mode A/C detector runs at another sample rate than the
    /// demodulator.
    RateMismatch,
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ConfigError::RateMismatch => {
                f.write_str("the Mode A/C detector and the demodulator differ in sample rate")
            }
        }
    }
}

impl core::error::Error for ConfigError {}

/// One demodulated frame after the tracker has seen it.
#[derive(Debug)]
pub struct Decoded<'a, const N: usize> {
    /// The frame as demodulated (bytes, 12 MHz timestamp, signal, repairs).
    pub frame: &'a DemodFrame,
    /// Its tracker time, ms (see [`Clock`]).
    pub t_ms: u64,
    /// What the tracker made of it.
    pub outcome: Result<UpdateOutcome, RejectReason>,
    /// The tracker after the update (for the aircraft's state).
    pub tracker: &'a Tracker<N>,
}

impl<const N: usize> Decoded<'_, N> {
    /// The 12 MHz reception time.
    pub fn ticks(&self) -> Ticks {
        self.frame.timestamp
    }

    /// The aircraft the frame updated, if the tracker accepted it.
    pub fn aircraft(&self) -> Option<&Aircraft> {
        self.outcome
            .as_ref()
            .ok()
            .and_then(|o| self.tracker.get(o.key))
    }
}

/// What a [`Receiver`] delivers.
pub trait Sink<const N: usize> {
    /// A Mode S frame, after the tracker.
    fn frame(&mut self, decoded: &Decoded<'_, N>);

    /// A Mode A/C reply (only with a detector). Default: ignored.
    fn mode_ac(&mut self, reply: &ModeAcReply) {
        let _ = reply;
    }
}

/// The Mode A/C stage of a [`Receiver`] (see the
/// [module docs](self#mode-ac)).
pub trait ModeAcStage {
    /// 12 MHz ticks per input sample of the detector; `None` without one.
    fn ticks_per_sample(&self) -> Option<u32>;

    /// Feed interleaved u8 I/Q (any length, as
    /// [`ModeAcDetector::process`]); `reply` gets every reply judged
    /// complete.
    fn process<F: FnMut(&ModeAcReply)>(&mut self, iq: &[u8], reply: F);

    /// End of stream (as [`ModeAcDetector::finish`]).
    fn finish<F: FnMut(&ModeAcReply)>(&mut self, reply: F);

    /// The detector's state; `None` without a detector.
    fn state(&self) -> Option<&ModeAcState>;
}

/// No Mode A/C detection: zero bytes, and no detector code linked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NoModeAc;

impl ModeAcStage for NoModeAc {
    fn ticks_per_sample(&self) -> Option<u32> {
        None
    }
    fn process<F: FnMut(&ModeAcReply)>(&mut self, _iq: &[u8], _reply: F) {}
    fn finish<F: FnMut(&ModeAcReply)>(&mut self, _reply: F) {}
    fn state(&self) -> Option<&ModeAcState> {
        None
    }
}

/// A Mode A/C detector and its stream state (3.6 KiB).
#[derive(Debug, Clone)]
pub struct ModeAc {
    detector: ModeAcDetector,
    state: ModeAcState,
}

impl ModeAc {
    /// `detector` with a fresh state (sample 0 = the receiver's first).
    pub const fn new(detector: ModeAcDetector) -> Self {
        ModeAc {
            detector,
            state: ModeAcState::new(),
        }
    }
}

impl ModeAcStage for ModeAc {
    fn ticks_per_sample(&self) -> Option<u32> {
        Some(self.detector.ticks_per_sample())
    }
    fn process<F: FnMut(&ModeAcReply)>(&mut self, iq: &[u8], reply: F) {
        self.detector.process(&mut self.state, iq, reply);
    }
    fn finish<F: FnMut(&ModeAcReply)>(&mut self, reply: F) {
        self.detector.finish(&mut self.state, reply);
    }
    fn state(&self) -> Option<&ModeAcState> {
        Some(&self.state)
    }
}

/// A stage chosen at run time: `None` is [`NoModeAc`].
impl<M: ModeAcStage> ModeAcStage for Option<M> {
    fn ticks_per_sample(&self) -> Option<u32> {
        self.as_ref().and_then(M::ticks_per_sample)
    }
    fn process<F: FnMut(&ModeAcReply)>(&mut self, iq: &[u8], reply: F) {
        if let Some(m) = self {
            m.process(iq, reply);
        }
    }
    fn finish<F: FnMut(&ModeAcReply)>(&mut self, reply: F) {
        if let Some(m) = self {
            m.finish(reply);
        }
    }
    fn state(&self) -> Option<&ModeAcState> {
        self.as_ref().and_then(M::state)
    }
}

/// Capacity of the known-address set: a power of two, ≥ 4× the busiest
/// receivers' aircraft count (8 KiB).
pub const KNOWN_CAPACITY: usize = 1024;

/// The Mode S receive chain with an `N`-aircraft table and the Mode A/C
/// stage `M` (none by default); see the [module docs](self).
//
// `repr(C)` with the demodulator's state first: the per-sample loop
// (`DemodState::convert`, inlined into `process`) then reaches the sample
// history with short offsets. In Rust's own layout the 7 KiB tracker came
// first, the history lay beyond the 4 KiB reach of a Thumb-2 load/store
// offset, and the loop took 69 instead of 65 instructions per 8 samples on
// the Cortex-M4 (firmware Mode S 32.7 instead of 32.2 per sample).
#[derive(Debug)]
#[repr(C)]
pub struct Receiver<const N: usize, M = NoModeAc> {
    state: DemodState,
    demod: Demodulator,
    known: AddressFilter<KNOWN_CAPACITY>,
    modeac: M,
    tracker: Tracker<N>,
    clock: Clock,
}

impl<const N: usize> Receiver<N> {
    /// A Mode S receiver for a stream starting now, with `demod` (its
    /// sample rate and options), the tracker's settings and its clock.
    /// The known addresses expire 60 s of sample time after their last
    /// trusted frame.
    ///
    /// Infallible (without a detector there is no rate to mismatch), so
    /// the caller's binding receives the receiver directly, with no
    /// `Result` of 23 KiB (at 32 aircraft) to unpack and move; `const`.
    pub const fn new(demod: Demodulator, tracker: TrackerConfig, clock: Clock) -> Self {
        Self::build(demod, NoModeAc, tracker, clock)
    }
}

impl<const N: usize, M> Receiver<N, M> {
    const fn build(demod: Demodulator, modeac: M, tracker: TrackerConfig, clock: Clock) -> Self {
        Receiver {
            demod,
            state: DemodState::new(),
            known: AddressFilter::new(AddressFilter::<KNOWN_CAPACITY>::DEFAULT_TTL),
            modeac,
            tracker: Tracker::new(tracker),
            clock,
        }
    }
}

impl<const N: usize, M: ModeAcStage> Receiver<N, M> {
    /// As [`new`](Receiver::new), with the Mode A/C stage `modeac` (see
    /// the [module docs](self#mode-ac)), which must run at the
    /// demodulator's rate.
    ///
    /// # Errors
    /// [`ConfigError::RateMismatch`] when the detector's rate differs.
    pub fn with_modeac(
        demod: Demodulator,
        modeac: M,
        tracker: TrackerConfig,
        clock: Clock,
    ) -> Result<Self, ConfigError> {
        match modeac.ticks_per_sample() {
            Some(tps) if tps != demod.ticks_per_sample() => Err(ConfigError::RateMismatch),
            _ => Ok(Self::build(demod, modeac, tracker, clock)),
        }
    }

    /// Feed interleaved u8 I/Q (any length; an odd byte is kept for the
    /// next call) that arrived at `arrival_ms` (tracker time, used with
    /// [`Clock::Arrival`]; ignored with [`Clock::Samples`]); every frame
    /// and reply judged complete goes to `sink`.
    pub fn process(&mut self, iq: &[u8], arrival_ms: u64, sink: &mut impl Sink<N>) {
        self.run(Some(iq), arrival_ms, sink);
    }

    /// End of stream: flush the frames and replies still held, as if
    /// silence followed (`arrival_ms` as in [`process`](Self::process)).
    pub fn finish(&mut self, arrival_ms: u64, sink: &mut impl Sink<N>) {
        self.run(None, arrival_ms, sink);
    }

    /// [`process`](Self::process) `iq`, or [`finish`](Self::finish) for
    /// `None`.
    fn run(&mut self, iq: Option<&[u8]>, arrival_ms: u64, sink: &mut impl Sink<N>) {
        let Receiver {
            demod,
            state,
            known,
            modeac,
            tracker,
            clock,
        } = self;
        let mut track = Track {
            tracker,
            clock: *clock,
            arrival_ms,
            sink,
        };
        // One callback (one type) for both calls: the demodulator's scan
        // is then instantiated once, as its inlining was measured with.
        let mut frame = |f: &DemodFrame| track.frame(f);
        match iq {
            Some(iq) => demod.process(state, known, iq, &mut frame),
            None => demod.finish(state, known, &mut frame),
        }
        let mut reply = |r: &ModeAcReply| track.sink.mode_ac(r);
        match iq {
            Some(iq) => modeac.process(iq, &mut reply),
            None => modeac.finish(&mut reply),
        }
    }

    /// Track a frame received elsewhere (e.g. Beast input, or an MLAT
    /// result: [`ReceivedFrame::as_mlat`]) at its tracker time `rx.t_ms`,
    /// bits already corrected. A trusted DF11/17/18 (accepted, received
    /// without repair, not MLAT) makes its address known to the local
    /// demodulator too, so that the aircraft's AP-format replies are
    /// accepted here.
    pub fn track_remote(&mut self, rx: &ReceivedFrame<'_>) -> Result<UpdateOutcome, RejectReason> {
        let outcome = self.tracker.update(rx);
        if outcome.is_ok() && rx.repaired_bits == 0 && !rx.mlat {
            let address = Frame::new_checked(rx.bytes)
                .ok()
                .filter(|f| matches!(f.df_code(), 11 | 17 | 18))
                .and_then(|f| f.address());
            if let Some(a) = address {
                self.known.insert(a, self.now().get());
            }
        }
        outcome
    }

    /// The sample time reached: ticks of the samples demodulated so far.
    pub fn now(&self) -> Ticks {
        let tps = u64::from(self.demod.ticks_per_sample());
        Ticks(self.state.stats().samples.saturating_mul(tps))
    }

    /// Remove aircraft not heard for the tracker's expiry time at `now_ms`
    /// (tracker time); returns how many. Call about once a second.
    pub fn expire(&mut self, now_ms: u64) -> usize {
        self.tracker.expire(now_ms)
    }

    /// The aircraft table.
    pub fn tracker(&self) -> &Tracker<N> {
        &self.tracker
    }

    /// The aircraft table, mutably (e.g. to change its configuration).
    pub fn tracker_mut(&mut self) -> &mut Tracker<N> {
        &mut self.tracker
    }

    /// The demodulator's state: its counters and noise floor.
    pub fn demod_state(&self) -> &DemodState {
        &self.state
    }

    /// The demodulator (its rate and options).
    pub fn demodulator(&self) -> &Demodulator {
        &self.demod
    }

    /// The Mode A/C detector's state, if there is a detector.
    pub fn modeac_state(&self) -> Option<&ModeAcState> {
        self.modeac.state()
    }

    /// Whether `address` is known to the demodulator at sample time `now`
    /// (its AP-format replies are accepted).
    pub fn is_known(&self, address: u32, now: Ticks) -> bool {
        self.known.contains(address, now.get())
    }

    /// The tracker's clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }
}

/// The per-frame half of [`Receiver`], borrowed apart so the demodulator's
/// callback can update the tracker while the demodulator holds its state.
struct Track<'a, const N: usize, S: Sink<N>> {
    tracker: &'a mut Tracker<N>,
    clock: Clock,
    arrival_ms: u64,
    sink: &'a mut S,
}

impl<const N: usize, S: Sink<N>> Track<'_, N, S> {
    fn frame(&mut self, f: &DemodFrame) {
        let t_ms = match self.clock {
            Clock::Samples { epoch_ms } => f.timestamp.after_ms(epoch_ms),
            Clock::Arrival => self.arrival_ms,
        };
        let rx = ReceivedFrame::new(f.bytes(), t_ms)
            .with_signal(f.signal_dbfs)
            .with_repaired_bits(f.repaired_bits);
        let outcome = self.tracker.update(&rx);
        self.sink.frame(&Decoded {
            frame: f,
            t_ms,
            outcome,
            tracker: self.tracker,
        });
    }
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use crate::C32;
    use crate::modes::crc::{crc24, remainder};
    use crate::modes::modulate::{Burst, Modulator, Quantiser};
    use crate::rng::Rng;
    use crate::testing::hex;
    use std::vec::Vec;

    /// Frames (bytes, tracker ms, accepted) and Mode A/C codes, in order.
    #[derive(Default, Debug, PartialEq)]
    struct Log {
        frames: Vec<(Vec<u8>, u64, bool)>,
        modeac: Vec<u16>,
    }

    impl<const N: usize> Sink<N> for Log {
        fn frame(&mut self, d: &Decoded<'_, N>) {
            self.frames
                .push((d.frame.bytes().to_vec(), d.t_ms, d.outcome.is_ok()));
            assert_eq!(d.aircraft().is_some(), d.outcome.is_ok());
            assert_eq!(d.ticks().get(), d.frame.timestamp.get());
        }
        fn mode_ac(&mut self, r: &ModeAcReply) {
            self.modeac.push(r.code);
        }
    }

    /// A DF`df` all-call-style AP reply (56 bits) from `address`: parity
    /// overlaid with the address.
    fn ap_frame(df: u8, address: u32) -> [u8; 7] {
        let mut f = [df << 3, 0x00, 0x12, 0x34, 0, 0, 0];
        let p = crc24(&f[..4]) ^ address;
        f[4..].copy_from_slice(&p.to_be_bytes()[1..]);
        assert_eq!(remainder(&f), address);
        f
    }

    const DF17: &str = "8D4840D6202CC371C32CE0576098";

    /// `replies` (frame, start in µs) rendered at `rate` into `us` µs of
    /// cu8 with receiver noise (σ 2.5 LSB) and 26 dB SNR.
    fn render(rate: u32, us: f64, replies: &[(&[u8], f64)]) -> Vec<u8> {
        let m = Modulator::new(f64::from(rate)).unwrap();
        let n = (us * m.samples_per_us()) as usize;
        let mut x = std::vec![C32::new(0.0, 0.0); n];
        for &(f, at) in replies {
            m.add_mode_s(f, &Burst::new(at * m.samples_per_us(), 0.4), &mut x)
                .unwrap();
        }
        let mut rng = Rng::new(7);
        for v in &mut x {
            *v += C32::new(rng.normal() as f32, rng.normal() as f32) * (2.5 / 128.0);
        }
        let mut iq = std::vec![0u8; 2 * n];
        Quantiser::RTL_SDR.block(&x, &mut iq);
        iq
    }

    /// A DF17 of 4840D6, then 2 ms later a DF5 (AP) reply from it: the DF5
    /// is accepted only because the DF17 made the address known.
    ///
    /// The replies start a quarter µs after a whole µs: at 2.0 MS/s that
    /// centres each half-bit on a sample. On a whole µs every half-bit
    /// straddles two samples (the worst phase, see the demodulator's
    /// test_2mhz_sampling_phase): over noise seeds 0–39 the DF17 was then
    /// decoded for only 22 of 40 seeds (16 of 40 with the former
    /// xorshift64* noise), against 40 of 40 at +0.25 µs (and at 2.4 MS/s).
    fn scene(rate: u32) -> Vec<u8> {
        let df17 = hex(DF17);
        let df5 = ap_frame(5, 0x4840D6);
        render(rate, 4_000.0, &[(&df17, 500.25), (&df5, 2_500.25)])
    }

    fn receiver(rate: u32, modeac: bool, clock: Clock) -> Receiver<8, Option<ModeAc>> {
        Receiver::with_modeac(
            Demodulator::new(rate).unwrap(),
            modeac.then(|| ModeAc::new(ModeAcDetector::new(rate).unwrap())),
            TrackerConfig::DEFAULT,
            clock,
        )
        .unwrap()
    }

    /// `iq` through `rx` in one call, then the flush.
    fn run<M: ModeAcStage>(mut rx: Receiver<8, M>, iq: &[u8]) -> Log {
        let mut log = Log::default();
        rx.process(iq, 0, &mut log);
        rx.finish(0, &mut log);
        log
    }

    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_chain_tracks_and_accepts_ap_after_trusted() {
        let iq = scene(2_400_000);
        let mut rx = receiver(2_400_000, false, Clock::Samples { epoch_ms: 1_000 });
        let mut log = Log::default();
        rx.process(&iq, 0, &mut log);
        rx.finish(0, &mut log);
        assert_eq!(log.frames.len(), 2, "{log:?}");
        assert!(log.frames.iter().all(|f| f.2), "{log:?}");
        assert_eq!(log.frames[1].0, ap_frame(5, 0x4840D6));
        assert_eq!(rx.tracker().len(), 1);
        // Sample clock: epoch plus sample time (0.5 and 2.5 ms).
        assert_eq!((log.frames[0].1, log.frames[1].1), (1_000, 1_002));
        assert_eq!(rx.clock(), Clock::Samples { epoch_ms: 1_000 });
        assert!(rx.modeac_state().is_none());
        assert_eq!(rx.demodulator().ticks_per_sample(), 5);
    }

    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_without_the_trusted_frame_the_ap_reply_is_not_accepted() {
        let df5 = ap_frame(5, 0x4840D6);
        let iq = render(2_000_000, 2_000.0, &[(&df5, 500.0)]);
        let mut rx = receiver(2_000_000, false, Clock::Arrival);
        let mut log = Log::default();
        rx.process(&iq, 0, &mut log);
        rx.finish(0, &mut log);
        assert!(log.frames.is_empty(), "{log:?}");
        assert!(rx.tracker().is_empty());
    }

    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_any_split_same_output() {
        let iq = scene(2_000_000);
        let run = |cuts: &[usize]| {
            let mut rx = receiver(2_000_000, true, Clock::Samples { epoch_ms: 0 });
            let mut log = Log::default();
            let mut at = 0;
            for &c in cuts.iter().chain([iq.len()].iter()) {
                rx.process(&iq[at..c], 0, &mut log);
                at = c;
            }
            rx.finish(0, &mut log);
            log
        };
        let whole = run(&[]);
        assert_eq!(whole.frames.len(), 2);
        for cuts in [&[1usize][..], &[7, 7, 4_001], &[2_000, 9_999, 12_000]] {
            assert_eq!(run(cuts), whole, "{cuts:?}");
        }
    }

    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_arrival_clock_and_remote_known() {
        let df5 = ap_frame(5, 0x4840D6);
        let iq = render(2_000_000, 2_000.0, &[(&df5, 500.25)]); // see `scene`
        let mut rx = receiver(2_000_000, false, Clock::Arrival);
        assert!(!rx.is_known(0x4840D6, rx.now()));
        // A corrupt remote frame is rejected and teaches nothing.
        let mut bad = hex(DF17);
        bad[5] ^= 1;
        assert!(rx.track_remote(&ReceivedFrame::new(&bad, 5_000)).is_err());
        assert!(!rx.is_known(0x4840D6, rx.now()));
        // A trusted DF17 from Beast input makes the address known here.
        assert!(
            rx.track_remote(&ReceivedFrame::new(&hex(DF17), 5_000))
                .is_ok()
        );
        assert!(rx.is_known(0x4840D6, rx.now()));
        let mut log = Log::default();
        rx.process(&iq, 5_010, &mut log);
        rx.finish(5_020, &mut log);
        assert_eq!(log.frames.len(), 1, "{log:?}");
        // Arrival clock: the block's time, for frames flushed by finish too.
        assert!(log.frames[0].2);
        assert!(matches!(log.frames[0].1, 5_010 | 5_020));
        assert!(rx.now() >= Ticks::from_samples(4_000, 2_000_000));
        assert_eq!(rx.expire(5_020 + 61_000), 1);
        assert!(rx.tracker().is_empty());
        rx.tracker_mut().config_mut().expiry_ms = 1;
        assert!(rx.demod_state().stats().samples >= 4_000);
    }

    #[test]
    fn test_rate_mismatch() {
        let r = Receiver::<8, _>::with_modeac(
            Demodulator::new(2_400_000).unwrap(),
            ModeAc::new(ModeAcDetector::new(2_000_000).unwrap()),
            TrackerConfig::DEFAULT,
            Clock::Arrival,
        );
        assert_eq!(r.err(), Some(ConfigError::RateMismatch));
        // Without a detector there is no rate to differ.
        let r = Receiver::<8, Option<ModeAc>>::with_modeac(
            Demodulator::new(2_400_000).unwrap(),
            None,
            TrackerConfig::DEFAULT,
            Clock::Arrival,
        );
        assert!(r.is_ok());
    }

    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_every_stage_type_same_frames() {
        let iq = scene(2_400_000);
        let demod = Demodulator::new(2_400_000).unwrap();
        let clock = Clock::Samples { epoch_ms: 0 };
        let cfg = TrackerConfig::DEFAULT;
        // Mode S only: no Mode A/C state is stored.
        assert_eq!(core::mem::size_of::<NoModeAc>(), 0);
        let plain = run(Receiver::<8>::new(demod, cfg, clock), &iq);
        assert_eq!(plain.frames.len(), 2, "{plain:?}");
        let none = run(receiver(2_400_000, false, clock), &iq);
        let detector = ModeAc::new(ModeAcDetector::new(2_400_000).unwrap());
        let always = run(
            Receiver::with_modeac(demod, detector, cfg, clock).unwrap(),
            &iq,
        );
        let chosen = run(receiver(2_400_000, true, clock), &iq);
        assert_eq!(none, plain);
        assert_eq!(always, chosen);
        assert_eq!(always.frames, plain.frames);
    }
}
