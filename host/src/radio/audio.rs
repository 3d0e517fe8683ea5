//! Audio to the sound card: a fixed-capacity single-producer /
//! single-consumer ring of samples between the DSP thread and the cpal
//! callback, and the cpal output stream that drains it.
//!
//! The ring ([`ring`]) is `heapless::spsc`'s lock-free queue, with the
//! counters and the end mark in atomics beside it. The callback never
//! allocates, locks or blocks: it copies what is there and plays silence
//! for the rest.
//!
//! - **Underrun**: the callback wanted more than the ring held. It plays
//!   silence and waits until the ring holds [`Consumer`]'s pre-fill again
//!   (so one underrun is one gap, not a crackle per callback).
//! - **Overrun**: the DSP thread had more than the ring could take. A live
//!   source drops the excess (the dongle does not wait); a file waits for
//!   room, so it plays at the sound card's pace.
//! - The device's own underruns (ALSA's xruns: the callback thread was not
//!   scheduled in time) are counted as underruns too.
//! - The end of the audio ([`Producer::finish`]) is not an underrun: the
//!   last partial read plays out, without waiting for a pre-fill.
//!
//! Only cpal's error callback (a failed device, not the data path) takes
//! a lock, to keep the cause for the message.
//!
//! [`Playback`] opens the default output device or one named by
//! `--audio-device`, picks a configuration that plays the audio rate
//! (preferring the audio's channel count and `f32`, then `i16`), and
//! converts to whatever sample format the device takes: `f32`, `f64`,
//! signed or unsigned 8/16/24/32/64-bit integers (mono is copied to every
//! device channel, stereo goes to the first two, or is averaged for a mono
//! device).

use super::pcm::to_i16;
use heapless::spsc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Most samples a [`ring`] holds: 2¹⁸ (0.68 s of 192 kHz stereo).
pub const MAX_RING: usize = 1 << 18;

/// The queue behind every ring (`heapless` holds `N − 1`).
type Queue = spsc::Queue<f32, { MAX_RING + 1 }>;

/// What both ends share besides the queue: the counters and the end mark.
struct Shared {
    underruns: AtomicU64,
    overruns: AtomicU64,
    /// Samples dropped by overruns.
    dropped: AtomicU64,
    /// The producer has written its last sample.
    ended: AtomicBool,
}

/// The writing end of the ring (the DSP thread).
pub struct Producer {
    queue: spsc::Producer<'static, f32>,
    /// Samples the ring may hold (≤ [`MAX_RING`]).
    capacity: usize,
    shared: Arc<Shared>,
}

/// The reading end of the ring (the audio callback).
pub struct Consumer {
    queue: spsc::Consumer<'static, f32>,
    /// Samples the ring may hold.
    capacity: usize,
    shared: Arc<Shared>,
    /// Samples a refill must reach before playback (re)starts.
    prefill: usize,
    /// Playing (false: waiting for the pre-fill).
    playing: bool,
    /// Samples per frame: reads are kept to whole frames.
    channels: usize,
}

/// A ring of `capacity` samples (rounded up to a power of two, at least 2,
/// at most [`MAX_RING`]) for frames of `channels` samples; playback starts
/// (and restarts after an underrun) once `prefill` samples are queued
/// (clamped to half the capacity).
///
/// The queue is `heapless::spsc`'s, whose ends borrow it: for them to live
/// on two threads (one of them cpal's `'static` callback) it is leaked, so
/// each ring keeps its 1 MiB until the process exits (a receiver opens
/// one).
///
/// ```
/// use airwaves::radio::audio::ring;
/// let (mut p, mut c) = ring(8, 2, 0);
/// assert_eq!(p.push(&[0.5, -0.5, 0.25, -0.25]), 4);
/// let mut y = [0.0; 2];
/// c.pop(&mut y);
/// assert_eq!(y, [0.5, -0.5]);
/// let mut y = [0.0; 4];
/// c.pop(&mut y); // one frame, then silence: an underrun
/// assert_eq!(y, [0.25, -0.25, 0.0, 0.0]);
/// assert_eq!(c.stats().underruns, 1);
/// ```
pub fn ring(capacity: usize, channels: usize, prefill: usize) -> (Producer, Consumer) {
    let capacity = capacity.max(2).next_power_of_two().min(MAX_RING);
    let queue: &'static mut Queue = Box::leak(Box::default());
    let (tx, rx) = queue.split();
    let shared = Arc::new(Shared {
        underruns: AtomicU64::new(0),
        overruns: AtomicU64::new(0),
        dropped: AtomicU64::new(0),
        ended: AtomicBool::new(false),
    });
    (
        Producer {
            queue: tx,
            capacity,
            shared: Arc::clone(&shared),
        },
        Consumer {
            queue: rx,
            capacity,
            shared,
            prefill: prefill.min(capacity / 2),
            playing: false,
            channels: channels.max(1),
        },
    )
}

/// Ring counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RingStats {
    /// Times the callback ran dry while playing.
    pub underruns: u64,
    /// Times the producer found the ring full and dropped samples.
    pub overruns: u64,
    /// Samples dropped by overruns.
    pub dropped: u64,
}

impl Shared {
    fn stats(&self) -> RingStats {
        RingStats {
            underruns: self.underruns.load(Ordering::Relaxed),
            overruns: self.overruns.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
        }
    }
}

impl Producer {
    /// Capacity in samples.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Free slots now.
    pub fn free(&self) -> usize {
        self.capacity.saturating_sub(self.queue.len())
    }

    /// Queue as much of `x` as fits; returns how many samples were queued.
    pub fn push(&mut self, x: &[f32]) -> usize {
        let n = x.len().min(self.free());
        for (i, &v) in x[..n].iter().enumerate() {
            // Cannot fail: the queue holds more than `capacity`.
            if self.queue.enqueue(v).is_err() {
                return i;
            }
        }
        n
    }

    /// Queue all of `x`: waiting for room if `wait` (polling every
    /// millisecond while `alive` holds), otherwise dropping what does not
    /// fit (counted as one overrun). `channels` keeps drops to whole
    /// frames. Returns the samples queued.
    pub fn push_all(
        &mut self,
        x: &[f32],
        channels: usize,
        wait: bool,
        alive: &AtomicBool,
    ) -> usize {
        let mut done = 0;
        loop {
            let room = self.free() / channels * channels;
            let n = room.min(x.len() - done);
            done += self.push(&x[done..done + n]);
            if done == x.len() {
                return done;
            }
            if !wait || !alive.load(Ordering::Relaxed) {
                let s = &self.shared;
                s.overruns.fetch_add(1, Ordering::Relaxed);
                s.dropped
                    .fetch_add((x.len() - done) as u64, Ordering::Relaxed);
                return done;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> RingStats {
        self.shared.stats()
    }

    /// Mark the end of the audio: what is queued plays out (even below the
    /// pre-fill), and running dry after it is not an underrun.
    pub fn finish(&mut self) {
        self.shared.ended.store(true, Ordering::Release);
    }
}

impl Consumer {
    /// Samples queued now, and whether the producer has finished.
    fn queued(&self) -> (usize, bool) {
        // Read `ended` before the length: once it is set, the producer
        // has written its last sample, and the length seen is final.
        let ended = self.shared.ended.load(Ordering::Acquire);
        (self.queue.len(), ended)
    }

    /// Before a callback that will [`pop`](Self::pop) `want` samples in
    /// all: when waiting, (re)start playing only if the ring holds the
    /// pre-fill and `want` (or the producer has finished), so that a large
    /// device buffer does not run dry at once. Returns whether playing.
    pub fn prime(&mut self, want: usize) -> bool {
        if !self.playing {
            let (avail, ended) = self.queued();
            let start = if ended {
                1
            } else {
                self.prefill.max(want.min(self.capacity)).max(1)
            };
            self.playing = avail >= start;
        }
        self.playing
    }

    /// Fill `y` (a whole number of frames) from the ring, silence for
    /// whatever is missing (an underrun, unless the producer has
    /// finished); while waiting ([`prime`](Self::prime) with `y.len()`),
    /// silence only. Never blocks or allocates.
    pub fn pop(&mut self, y: &mut [f32]) {
        self.prime(y.len());
        if !self.playing {
            y.fill(0.0);
            return;
        }
        let (avail, ended) = self.queued();
        let n = avail.min(y.len()) / self.channels * self.channels;
        for v in &mut y[..n] {
            // Present: `avail` were queued.
            *v = self.queue.dequeue().unwrap_or(0.0);
        }
        if n < y.len() {
            y[n..].fill(0.0);
            if !ended {
                self.shared.underruns.fetch_add(1, Ordering::Relaxed);
            }
            self.playing = false;
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> RingStats {
        self.shared.stats()
    }
}

/// Why the sound card cannot be used.
#[derive(Debug)]
pub enum AudioError {
    /// The system has no default output device.
    NoDefaultDevice,
    /// No output device has this name.
    NoSuchDevice {
        /// The name asked for.
        name: String,
        /// The output devices there are.
        available: Vec<String>,
    },
    /// The device's own rate (Hz) is outside 8 000 ..= 192 000 Hz and no
    /// `--audio-rate` was given.
    DeviceRate(u32),
    /// The device does not play this rate (Hz).
    Rate {
        /// The rate asked for, Hz.
        rate: u32,
        /// The rates and ranges it plays, Hz.
        plays: Vec<String>,
    },
    /// The device takes no PCM sample format we write.
    NoSampleFormat,
    /// The device's sample format is one we do not know.
    UnknownFormat(cpal::SampleFormat),
    /// cpal failed while doing `op`.
    Cpal {
        /// What was being done: "listing devices", "reading the default
        /// configuration", "listing configurations", "opening the stream",
        /// "starting the stream".
        op: &'static str,
        /// cpal's error.
        source: cpal::Error,
    },
}

impl AudioError {
    fn cpal(op: &'static str) -> impl FnOnce(cpal::Error) -> AudioError {
        move |source| AudioError::Cpal { op, source }
    }
}

impl std::fmt::Display for AudioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no usable sound device (")?;
        match self {
            AudioError::NoDefaultDevice => f.write_str("no default output device")?,
            AudioError::NoSuchDevice { name, available } => write!(
                f,
                "no output device {name:?}; there are: {}",
                if available.is_empty() {
                    "none".to_string()
                } else {
                    available.join(", ")
                }
            )?,
            AudioError::DeviceRate(rate) => write!(
                f,
                "the device's rate is {rate} Hz: use --audio-rate (8000 to 192000 Hz)"
            )?,
            AudioError::Rate { rate, plays } => write!(
                f,
                "the device does not play {rate} Hz; it plays {} Hz: use --audio-rate",
                plays.join(", ")
            )?,
            AudioError::NoSampleFormat => {
                f.write_str("the device takes no PCM sample format we can write")?
            }
            AudioError::UnknownFormat(format) => write!(f, "device sample format {format}")?,
            AudioError::Cpal { op, source } => write!(f, "{op}: {source}")?,
        }
        f.write_str(
            "): write a file with --out FILE.wav, or raw s16le audio to stdout with --out -",
        )
    }
}

impl std::error::Error for AudioError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AudioError::Cpal { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The output device named `name` (a cpal device id, e.g. an ALSA PCM
/// name such as `default`, `hw:CARD=1,DEV=0`, or a PCM of `~/.asoundrc`
/// that has a `hint`), or the default one.
fn find_device(name: Option<&str>) -> Result<cpal::Device, AudioError> {
    use cpal::traits::{DeviceTrait, HostTrait};
    let host = cpal::default_host();
    let Some(name) = name else {
        return host
            .default_output_device()
            .ok_or(AudioError::NoDefaultDevice);
    };
    let devices = host
        .devices()
        .map_err(AudioError::cpal("listing devices"))?;
    let mut seen = Vec::new();
    for d in devices {
        let Ok(id) = d.id() else { continue };
        if id.id() == name {
            return Ok(d);
        }
        seen.push(id.id().to_string());
    }
    Err(AudioError::NoSuchDevice {
        name: name.to_string(),
        available: seen,
    })
}

/// Preference among sample formats (higher is better; 0: not playable).
/// `f32` is what our audio is; `i16` is what most cards take natively.
fn format_rank(f: cpal::SampleFormat) -> u8 {
    use cpal::SampleFormat as F;
    match f {
        F::F32 => 12,
        F::I16 => 11,
        F::I32 => 10,
        F::I24 => 9,
        F::F64 => 8,
        F::U16 => 7,
        F::U32 => 6,
        F::U24 => 5,
        F::I64 => 4,
        F::U64 => 3,
        F::I8 => 2,
        F::U8 => 1,
        _ => 0,
    }
}

/// The device channel count and sample format to play `channels`-channel
/// audio at `rate` Hz, from the device's `supported` configurations:
/// those that play `rate` and a sample format we convert to; among them
/// the audio's own channel count first, then stereo, then more channels
/// (fewest first), then mono; then the best [`format_rank`].
fn choose_config(
    supported: &[cpal::SupportedStreamConfigRange],
    rate: u32,
    channels: usize,
) -> Result<&cpal::SupportedStreamConfigRange, AudioError> {
    let channel_rank = |c: u16| -> i64 {
        match usize::from(c) {
            c if c == channels => i64::MAX,
            2 => i64::MAX - 1,
            0 => i64::MIN,
            1 => 0,
            c => i64::MAX - 1 - c as i64,
        }
    };
    let best = supported
        .iter()
        .filter(|s| {
            (s.min_sample_rate()..=s.max_sample_rate()).contains(&rate)
                && format_rank(s.sample_format()) > 0
                && s.channels() > 0
        })
        .max_by_key(|s| (channel_rank(s.channels()), format_rank(s.sample_format())));
    if let Some(s) = best {
        return Ok(s);
    }
    let mut rates: Vec<String> = supported
        .iter()
        .filter(|s| format_rank(s.sample_format()) > 0)
        .map(|s| {
            if s.min_sample_rate() == s.max_sample_rate() {
                s.min_sample_rate().to_string()
            } else {
                format!("{}-{}", s.min_sample_rate(), s.max_sample_rate())
            }
        })
        .collect();
    rates.sort();
    rates.dedup();
    Err(if rates.is_empty() {
        AudioError::NoSampleFormat
    } else {
        AudioError::Rate { rate, plays: rates }
    })
}

/// The device period to ask for: [`PERIOD_MS`] within the device's
/// `range` (cpal then uses two of them), or the device's default when the
/// range is unknown. A device left to itself may pick periods of a second
/// or more.
fn period(range: &cpal::SupportedBufferSize, rate: u32) -> cpal::BufferSize {
    match range {
        cpal::SupportedBufferSize::Range { min, max } if min <= max => {
            let frames = u64::from(rate) * u64::from(PERIOD_MS) / 1000;
            let frames = u32::try_from(frames).unwrap_or(u32::MAX);
            cpal::BufferSize::Fixed(frames.clamp(*min, *max))
        }
        _ => cpal::BufferSize::Default,
    }
}

/// Device period, ms: the sound card holds two, so this is half its
/// latency (less, and a busy machine starves it; more, and the sound lags).
const PERIOD_MS: u32 = 50;

/// A sample format a device may take, converted from ±1.0.
trait DeviceSample: cpal::SizedSample + Send + 'static {
    /// `x` (±1.0 full scale) in this format: floats unchanged, integers
    /// scaled by their largest positive value, rounded and saturated;
    /// unsigned ones offset by half their range.
    fn from_unit(x: f32) -> Self;
}

/// ±1.0 scaled to a signed integer of `bits`, rounded and saturated.
fn scale(x: f32, bits: u32) -> i64 {
    let full = ((1u64 << (bits - 1)) - 1) as f64;
    (f64::from(x) * full).round().clamp(-full - 1.0, full) as i64
}

macro_rules! device_sample {
    ($($t:ty => $conv:expr;)*) => {
        $(impl DeviceSample for $t {
            fn from_unit(x: f32) -> Self {
                let conv: fn(f32) -> $t = $conv;
                conv(x)
            }
        })*
    };
}

device_sample! {
    f32 => |x| x;
    f64 => f64::from;
    i16 => to_i16;
    i8 => |x| scale(x, 8) as i8;
    i32 => |x| scale(x, 32) as i32;
    i64 => |x| (f64::from(x.clamp(-1.0, 1.0)) * i64::MAX as f64) as i64;
    cpal::I24 => |x| cpal::I24::new_unchecked(scale(x, 24) as i32);
    u8 => |x| (scale(x, 8) + (1 << 7)) as u8;
    u16 => |x| (i32::from(to_i16(x)) + (1 << 15)) as u16;
    u32 => |x| (scale(x, 32) + (1 << 31)) as u32;
    u64 => |x| (i64::from_unit(x) as u64) ^ (1 << 63);
    cpal::U24 => |x| cpal::U24::new_unchecked((scale(x, 24) + (1 << 23)) as i32);
}

/// Audio the ring holds, ms (at least; rounded up to a power of two).
pub const RING_MS: usize = 500;
/// Audio queued before playback starts, from a file (the DSP is always
/// ahead: this only covers the first blocks), ms.
pub const PREFILL_FILE_MS: usize = 100;
/// Audio queued before playback starts, from a live source, ms: more
/// than a dongle's burst (one USB transfer, 16 × 32 × 512 bytes, holds
/// 109 ms of I/Q at 1.2 MS/s) plus the device's two periods.
pub const PREFILL_LIVE_MS: usize = 250;

/// Samples the callback converts per step (its scratch buffer).
const SCRATCH: usize = 4096;

/// State shared with cpal's error callback.
struct Health {
    /// Cleared when the stream fails for good.
    alive: AtomicBool,
    /// Why it failed (set once, on the error path only).
    cause: std::sync::Mutex<Option<String>>,
    /// Device latency after the last callback, µs (for [`Playback::drain`]).
    latency_us: AtomicU64,
}

/// A playing cpal output stream fed by a [`Producer`].
pub struct Playback {
    /// Kept alive while playing.
    _stream: cpal::Stream,
    producer: Producer,
    channels: usize,
    rate: u32,
    device_channels: u16,
    format: cpal::SampleFormat,
    /// The source is live: drop on overrun instead of waiting.
    live: bool,
    health: Arc<Health>,
}

impl Playback {
    /// Open the output device `device` (a cpal device id; default: the
    /// default device) for `channels` (1 or 2) channels of audio at `rate`
    /// Hz (default: the device's default rate), with a ring of about
    /// [`RING_MS`], playback starting once [`PREFILL_FILE_MS`] (a file) or
    /// [`PREFILL_LIVE_MS`] (a `live` source) are queued. The device
    /// configuration is chosen as described in the [module](self) docs. A
    /// `live` source drops audio when the ring is full; otherwise
    /// [`Playback::write`] waits.
    ///
    /// # Errors
    /// [`AudioError`] when there is no such device, it does not play
    /// `rate` (or, without one, its rate is outside 8 to 192 kHz), takes no
    /// sample format we convert to, or will not start.
    pub fn open(
        device: Option<&str>,
        rate: Option<u32>,
        channels: usize,
        live: bool,
    ) -> Result<Playback, AudioError> {
        use cpal::traits::{DeviceTrait, StreamTrait};
        let channels = channels.max(1);
        let dev = find_device(device)?;
        let rate = match rate {
            Some(r) => r,
            None => dev
                .default_output_config()
                .map_err(AudioError::cpal("reading the default configuration"))?
                .sample_rate(),
        };
        if !(8_000..=192_000).contains(&rate) {
            return Err(AudioError::DeviceRate(rate));
        }
        let supported: Vec<_> = dev
            .supported_output_configs()
            .map_err(AudioError::cpal("listing configurations"))?
            .collect();
        let chosen = choose_config(&supported, rate, channels)?;
        let (device_channels, format) = (chosen.channels(), chosen.sample_format());
        let config = cpal::StreamConfig {
            channels: device_channels,
            sample_rate: rate,
            buffer_size: period(chosen.buffer_size(), rate),
        };
        // At least two device periods, should the device insist on long ones.
        let device_period = match config.buffer_size {
            cpal::BufferSize::Fixed(n) => n as usize * channels,
            cpal::BufferSize::Default => 0,
        };
        let cap = (rate as usize * RING_MS / 1000 * channels)
            .max(2 * device_period)
            .max(SCRATCH);
        let prefill_ms = if live {
            PREFILL_LIVE_MS
        } else {
            PREFILL_FILE_MS
        };
        let prefill = rate as usize * prefill_ms / 1000 * channels;
        let (producer, consumer) = ring(cap, channels, prefill);
        let health = Arc::new(Health {
            alive: AtomicBool::new(true),
            cause: std::sync::Mutex::new(None),
            latency_us: AtomicU64::new(0),
        });
        let feed = Feed {
            consumer,
            scratch: vec![0.0; SCRATCH / channels * channels],
            channels,
            dev_channels: usize::from(device_channels),
        };
        let stream = match format {
            cpal::SampleFormat::F32 => build::<f32>(&dev, config, feed, &health),
            cpal::SampleFormat::F64 => build::<f64>(&dev, config, feed, &health),
            cpal::SampleFormat::I8 => build::<i8>(&dev, config, feed, &health),
            cpal::SampleFormat::I16 => build::<i16>(&dev, config, feed, &health),
            cpal::SampleFormat::I24 => build::<cpal::I24>(&dev, config, feed, &health),
            cpal::SampleFormat::I32 => build::<i32>(&dev, config, feed, &health),
            cpal::SampleFormat::I64 => build::<i64>(&dev, config, feed, &health),
            cpal::SampleFormat::U8 => build::<u8>(&dev, config, feed, &health),
            cpal::SampleFormat::U16 => build::<u16>(&dev, config, feed, &health),
            cpal::SampleFormat::U24 => build::<cpal::U24>(&dev, config, feed, &health),
            cpal::SampleFormat::U32 => build::<u32>(&dev, config, feed, &health),
            cpal::SampleFormat::U64 => build::<u64>(&dev, config, feed, &health),
            other => return Err(AudioError::UnknownFormat(other)),
        }
        .map_err(AudioError::cpal("opening the stream"))?;
        stream
            .play()
            .map_err(AudioError::cpal("starting the stream"))?;
        Ok(Playback {
            _stream: stream,
            producer,
            channels,
            rate,
            device_channels,
            format,
            live,
            health,
        })
    }

    /// The audio rate being played, Hz.
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// What the device was opened with, for messages:
    /// e.g. `"2 ch f32 at 48000 Hz"`.
    pub fn device_config(&self) -> String {
        format!(
            "{} ch {} at {} Hz",
            self.device_channels, self.format, self.rate
        )
    }

    /// Queue interleaved audio (±1.0 full scale).
    ///
    /// # Errors
    /// When the stream has failed (device unplugged): the error names the
    /// cause and `--out FILE.wav`.
    pub fn write(&mut self, x: &[f32]) -> std::io::Result<()> {
        if !self.health.alive.load(Ordering::Relaxed) {
            let cause = match self.health.cause.lock() {
                Ok(c) => c.clone().unwrap_or_default(),
                Err(_) => String::new(),
            };
            return Err(std::io::Error::other(format!(
                "the sound device failed ({cause}); --out FILE.wav writes a file instead"
            )));
        }
        self.producer
            .push_all(x, self.channels, !self.live, &self.health.alive);
        Ok(())
    }

    /// Mark the end of the audio and wait (up to `limit`) until the ring
    /// and then the device's buffer have played out.
    pub fn drain(&mut self, limit: Duration) {
        self.producer.finish();
        let t0 = std::time::Instant::now();
        while self.producer.free() < self.producer.capacity()
            && t0.elapsed() < limit
            && self.health.alive.load(Ordering::Relaxed)
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        let latency = Duration::from_micros(self.health.latency_us.load(Ordering::Relaxed));
        if self.health.alive.load(Ordering::Relaxed) {
            std::thread::sleep(latency.min(limit.saturating_sub(t0.elapsed())));
        }
    }

    /// The ring's counters (device underruns included).
    pub fn stats(&self) -> RingStats {
        self.producer.stats()
    }
}

/// Build the output stream for device samples of type `T`. The data
/// callback only copies and converts (no allocation, no lock); the error
/// callback counts xruns as underruns and ends playback on anything else.
fn build<T: DeviceSample>(
    dev: &cpal::Device,
    config: cpal::StreamConfig,
    mut feed: Feed,
    health: &Arc<Health>,
) -> Result<cpal::Stream, cpal::Error> {
    use cpal::traits::DeviceTrait;
    let rate = u64::from(config.sample_rate.max(1));
    let dch = u64::from(config.channels.max(1));
    let shared = Arc::clone(&feed.consumer.shared);
    let on_data = {
        let health = Arc::clone(health);
        move |data: &mut [T], info: &cpal::OutputCallbackInfo| {
            feed.fill(data, T::from_unit);
            let t = info.timestamp();
            // What the device holds once this buffer is queued.
            let queued = t.playback.duration_since(t.callback).as_micros() as u64
                + data.len() as u64 / dch * 1_000_000 / rate;
            health.latency_us.store(queued, Ordering::Relaxed);
        }
    };
    let on_error = {
        let health = Arc::clone(health);
        move |e: cpal::Error| {
            if e.kind() == cpal::ErrorKind::Xrun {
                shared.underruns.fetch_add(1, Ordering::Relaxed);
                return;
            }
            eprintln!("airwaves: audio: {e}");
            if let Ok(mut c) = health.cause.lock() {
                c.get_or_insert_with(|| e.to_string());
            }
            health.alive.store(false, Ordering::Release);
        }
    };
    dev.build_output_stream::<T, _, _>(config, on_data, on_error, None)
}

/// The callback's side: the consumer and a scratch buffer allocated once.
struct Feed {
    consumer: Consumer,
    scratch: Vec<f32>,
    channels: usize,
    dev_channels: usize,
}

impl Feed {
    /// Fill the device buffer `data` (interleaved, `dev_channels`) from
    /// the ring, converting each sample with `conv`: mono to every device
    /// channel; stereo to the first two (silence beyond), or their mean
    /// for a mono device.
    fn fill<T: Copy>(&mut self, data: &mut [T], conv: impl Fn(f32) -> T) {
        let (ch, dch) = (self.channels, self.dev_channels.max(1));
        if !self.consumer.prime(data.len() / dch * ch) {
            data.fill(conv(0.0));
            return;
        }
        let frames_per_step = self.scratch.len() / ch;
        for out in data.chunks_mut(frames_per_step * dch) {
            let frames = out.len() / dch;
            let src = &mut self.scratch[..frames * ch];
            self.consumer.pop(src);
            for (o, s) in out.chunks_exact_mut(dch).zip(src.chunks_exact(ch)) {
                for (k, v) in o.iter_mut().enumerate() {
                    let x = match (ch, dch, k) {
                        (1, _, _) => s[0],
                        (_, 1, _) => 0.5 * (s[0] + s[1]),
                        (_, _, k) if k < ch => s[k],
                        _ => 0.0,
                    };
                    *v = conv(x);
                }
            }
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_ring_order_wrap_and_capacity() {
        let (mut p, mut c) = ring(6, 1, 0);
        assert_eq!(p.capacity(), 8);
        assert_eq!(p.push(&[1.0, 2.0, 3.0, 4.0, 5.0]), 5);
        let mut y = [0.0; 3];
        c.pop(&mut y);
        assert_eq!(y, [1.0, 2.0, 3.0]);
        // 2 queued, 6 free: only 6 of 7 fit.
        assert_eq!(p.push(&[6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]), 6);
        let mut y = [0.0; 8];
        c.pop(&mut y);
        assert_eq!(y, [4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]);
        assert_eq!(c.stats(), RingStats::default());
    }

    #[test]
    fn test_underrun_plays_silence_and_waits_for_prefill() {
        let (mut p, mut c) = ring(16, 2, 4);
        p.push(&[1.0, -1.0]);
        let mut y = [9.0; 4];
        c.pop(&mut y);
        // Below the pre-fill: silence, nothing consumed, no underrun.
        assert_eq!(y, [0.0; 4]);
        assert_eq!(c.stats().underruns, 0);
        p.push(&[2.0, -2.0, 3.0, -3.0]);
        let mut y = [9.0; 4];
        c.pop(&mut y);
        assert_eq!(y, [1.0, -1.0, 2.0, -2.0]);
        c.pop(&mut y);
        assert_eq!(y, [3.0, -3.0, 0.0, 0.0]);
        assert_eq!(c.stats().underruns, 1);
        // After the underrun it waits for the pre-fill again.
        p.push(&[4.0, -4.0]);
        let mut y = [9.0; 2];
        c.pop(&mut y);
        assert_eq!(y, [0.0, 0.0]);
    }

    #[test]
    fn test_overrun_drops_whole_frames_and_counts() {
        let (mut p, _c) = ring(8, 2, 0);
        let alive = AtomicBool::new(true);
        let x: Vec<f32> = (0..11).map(|i| i as f32).collect();
        assert_eq!(p.push_all(&x[..6], 2, false, &alive), 6);
        // 2 free: one frame of the next 3 frames fits.
        assert_eq!(p.push_all(&x[6..], 2, false, &alive), 2);
        let s = p.stats();
        assert_eq!((s.overruns, s.dropped), (1, 3));
    }

    #[test]
    fn test_threads_see_every_sample_in_order() {
        let (mut p, mut c) = ring(256, 1, 0);
        let alive = AtomicBool::new(true);
        let total = 200_000usize;
        let reader = std::thread::spawn(move || {
            let mut next = 0usize;
            let mut y = [0.0f32; 37];
            // Silence while the writer is descheduled: on a loaded machine
            // the reader may spin through billions of samples of it.
            let mut silent = 0u64;
            while next < total {
                c.pop(&mut y);
                for &v in &y {
                    if v == 0.0 {
                        silent += 1;
                    } else if v as usize == next % 1000 + 1 {
                        next += 1;
                    } else {
                        panic!("sample {v} at {next}");
                    }
                }
            }
            silent
        });
        let x: Vec<f32> = (0..total).map(|i| (i % 1000 + 1) as f32).collect();
        for b in x.chunks(101) {
            p.push_all(b, 1, true, &alive);
        }
        // The end mark: without it a reader that ran dry near the end waits
        // for a refill of 37 samples that never comes.
        p.finish();
        let _ = reader.join().unwrap();
        assert_eq!(p.stats().overruns, 0);
    }

    #[test]
    fn test_feed_maps_mono_to_device_channels() {
        let (mut p, c) = ring(64, 1, 0);
        p.push(&[0.5, -0.5]);
        let mut f = Feed {
            consumer: c,
            scratch: vec![0.0; 16],
            channels: 1,
            dev_channels: 2,
        };
        let mut out = [7i16; 6];
        // 2 of the 3 frames wanted: wait (silence), nothing consumed.
        f.fill(&mut out, to_i16);
        assert_eq!(out, [0; 6]);
        p.push(&[0.25]);
        f.fill(&mut out, to_i16);
        assert_eq!(out, [16384, 16384, -16384, -16384, 8192, 8192]);
        assert_eq!(f.consumer.stats(), RingStats::default());
    }

    #[test]
    fn test_feed_stereo_to_mono_is_the_mean_and_to_four_channels_the_first_two() {
        let (mut p, c) = ring(64, 2, 0);
        let mut f = Feed {
            consumer: c,
            scratch: vec![0.0; 4],
            channels: 2,
            dev_channels: 1,
        };
        p.push(&[0.5, -0.25, 1.0, 0.0, -1.0, -1.0]);
        let mut mono = [0.0f32; 3];
        f.fill(&mut mono, |x| x);
        assert_eq!(mono, [0.125, 0.5, -1.0]);
        f.dev_channels = 4;
        p.push(&[0.5, -0.5, 0.25, -0.25]);
        let mut quad = [9.0f32; 8];
        f.fill(&mut quad, |x| x);
        assert_eq!(quad, [0.5, -0.5, 0.0, 0.0, 0.25, -0.25, 0.0, 0.0]);
    }

    #[test]
    fn test_prime_waits_for_a_large_device_buffer() {
        // Pre-fill 4, but the device wants 12 samples at once: playing at
        // 4 would run dry at once (an underrun per start).
        let (mut p, mut c) = ring(32, 1, 4);
        p.push(&[1.0; 8]);
        assert!(!c.prime(12));
        let mut y = [9.0; 12];
        c.pop(&mut y);
        assert_eq!(y, [0.0; 12]);
        p.push(&[2.0; 4]);
        assert!(c.prime(12));
        c.pop(&mut y);
        assert_eq!(&y[..8], &[1.0; 8]);
        assert_eq!(&y[8..], &[2.0; 4]);
        assert_eq!(c.stats().underruns, 0);
    }

    #[test]
    fn test_finish_plays_out_below_the_prefill_without_an_underrun() {
        let (mut p, mut c) = ring(32, 1, 8);
        p.push(&[0.5; 3]);
        let mut y = [9.0; 4];
        c.pop(&mut y);
        assert_eq!(y, [0.0; 4]);
        p.finish();
        c.pop(&mut y);
        assert_eq!(y, [0.5, 0.5, 0.5, 0.0]);
        c.pop(&mut y);
        assert_eq!(y, [0.0; 4]);
        assert_eq!(c.stats(), RingStats::default());
    }

    #[test]
    fn test_device_sample_conversions() {
        assert_eq!(i16::from_unit(1.0), 32767);
        assert_eq!(i16::from_unit(-1.0), -32767);
        assert_eq!(i16::from_unit(-2.0), -32768);
        assert_eq!(i16::from_unit(0.5), 16384);
        assert_eq!(u16::from_unit(0.0), 32768);
        assert_eq!(u16::from_unit(1.0), 65535);
        assert_eq!(u16::from_unit(-1.0), 1);
        assert_eq!(i8::from_unit(0.5), 64);
        assert_eq!(u8::from_unit(-1.0), 1);
        assert_eq!(u8::from_unit(0.0), 128);
        assert_eq!(i32::from_unit(1.0), i32::MAX);
        assert_eq!(i32::from_unit(-3.0), i32::MIN);
        assert_eq!(i32::from_unit(0.25), 536_870_912);
        assert_eq!(u32::from_unit(0.0), 1 << 31);
        assert_eq!(cpal::I24::from_unit(1.0).inner(), 8_388_607);
        assert_eq!(cpal::I24::from_unit(-1.5).inner(), -8_388_608);
        assert_eq!(cpal::U24::from_unit(0.0).inner(), 8_388_608);
        assert_eq!(i64::from_unit(0.0), 0);
        assert_eq!(i64::from_unit(1.0), i64::MAX);
        assert_eq!(u64::from_unit(0.0), 1 << 63);
        // 64-bit: to f64's precision (2^63 − 1 rounds to 2^63).
        assert_eq!(i64::from_unit(-1.0), i64::MIN);
        assert_eq!(u64::from_unit(-1.0), 0);
        assert_eq!(f32::from_unit(0.3), 0.3);
        assert_eq!(f64::from_unit(0.5), 0.5);
        // The integer formats agree with the s16 of `--out -` to 1 LSB.
        for i in -100..=100 {
            let x = i as f32 / 100.0 * 0.999;
            let s = i32::from(to_i16(x));
            assert!((i32::from_unit(x) / 65536 - s).abs() <= 1, "{x}");
            assert!(
                (cpal::I24::from_unit(x).inner() / 256 - s).abs() <= 1,
                "{x}"
            );
        }
    }

    fn range(
        ch: u16,
        min: u32,
        max: u32,
        f: cpal::SampleFormat,
    ) -> cpal::SupportedStreamConfigRange {
        cpal::SupportedStreamConfigRange::new(
            ch,
            min,
            max,
            cpal::SupportedBufferSize::Range { min: 64, max: 8192 },
            f,
        )
    }

    #[test]
    fn test_choose_config() {
        use cpal::SampleFormat::{DsdU8, F32, I16, I32, U8};
        let pick = |s: &[cpal::SupportedStreamConfigRange], rate, ch| {
            choose_config(s, rate, ch).map(|r| (r.channels(), r.sample_format()))
        };
        // A typical card: s16 and s32, 2 channels, 44.1 or 48 kHz.
        let card = [
            range(2, 44_100, 44_100, I16),
            range(2, 48_000, 48_000, I16),
            range(2, 44_100, 44_100, I32),
            range(2, 48_000, 48_000, I32),
        ];
        assert_eq!(pick(&card, 48_000, 1).unwrap(), (2, I16));
        assert_eq!(pick(&card, 44_100, 2).unwrap(), (2, I16));
        let e = pick(&card, 32_000, 2).unwrap_err().to_string();
        assert!(
            e.contains("does not play 32000 Hz; it plays 44100, 48000 Hz"),
            "{e}"
        );
        assert!(e.contains("--out FILE.wav"), "{e}");
        // Our channel count first, then stereo, then more, then mono.
        let many = [
            range(1, 8_000, 96_000, F32),
            range(2, 8_000, 96_000, I16),
            range(6, 8_000, 96_000, F32),
            range(4, 8_000, 96_000, F32),
        ];
        assert_eq!(pick(&many, 48_000, 1).unwrap(), (1, F32));
        assert_eq!(pick(&many, 48_000, 2).unwrap(), (2, I16));
        assert_eq!(pick(&many[2..], 48_000, 2).unwrap(), (4, F32));
        assert_eq!(pick(&many[..1], 48_000, 2).unwrap(), (1, F32));
        // f32 over i16 over u8; DSD never.
        let fmts = [range(2, 48_000, 48_000, U8), range(2, 48_000, 48_000, F32)];
        assert_eq!(pick(&fmts, 48_000, 2).unwrap(), (2, F32));
        let dsd = [range(2, 48_000, 48_000, DsdU8)];
        let e = pick(&dsd, 48_000, 2).unwrap_err().to_string();
        assert!(e.contains("no PCM sample format"), "{e}");
    }

    #[test]
    fn test_period_is_50_ms_within_the_device_range() {
        let r = |min, max| cpal::SupportedBufferSize::Range { min, max };
        assert_eq!(
            period(&r(16, 65_536), 48_000),
            cpal::BufferSize::Fixed(2400)
        );
        assert_eq!(period(&r(16, 1024), 44_100), cpal::BufferSize::Fixed(1024));
        assert_eq!(period(&r(4096, 8192), 8_000), cpal::BufferSize::Fixed(4096));
        assert_eq!(
            period(&r(1, u32::MAX), u32::MAX),
            cpal::BufferSize::Fixed(214_748_364)
        );
        assert_eq!(
            period(&cpal::SupportedBufferSize::Unknown, 48_000),
            cpal::BufferSize::Default
        );
    }

    #[test]
    fn test_the_callback_never_allocates() {
        let (mut p, c) = ring(1 << 14, 2, 256);
        let mut f = Feed {
            consumer: c,
            scratch: vec![0.0; SCRATCH],
            channels: 2,
            dev_channels: 2,
        };
        let x: Vec<f32> = (0..9000).map(|i| (i % 200) as f32 / 200.0 - 0.5).collect();
        let mut out16 = vec![0i16; 6000];
        let mut out32 = vec![0.0f32; 5000];
        let mut outu8 = vec![0u8; 3000];
        let n = crate::test_alloc::allocations(|| {
            for _ in 0..4 {
                p.push(&x);
                f.fill(&mut out16, i16::from_unit);
                f.fill(&mut out32, f32::from_unit);
                f.fill(&mut outu8, u8::from_unit);
                f.fill(&mut out16, i16::from_unit); // runs dry: an underrun
            }
        });
        assert_eq!(n, 0);
        // The counter does count.
        assert!(crate::test_alloc::allocations(|| drop(std::hint::black_box(vec![1u8; 10]))) > 0);
        assert!(f.consumer.stats().underruns > 0);
        assert!(out32.iter().any(|&v| v != 0.0));
    }
}
