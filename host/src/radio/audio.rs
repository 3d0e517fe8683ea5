//! Audio to the sound card: a fixed-capacity single-producer /
//! single-consumer ring of samples between the DSP thread and the cpal
//! callback, and the cpal output stream that drains it.
//!
//! The ring ([`ring`]) is lock-free and safe code only: each slot is an
//! `AtomicU32` holding an `f32`'s bits; the writer publishes with a
//! `Release` store of its index, the reader acquires it (and the other way
//! round for free space). The callback never allocates, locks or blocks:
//! it copies what is there and plays silence for the rest.
//!
//! - **Underrun**: the callback wanted more than the ring held. It plays
//!   silence and waits until the ring holds [`Consumer`]'s pre-fill again
//!   (so one underrun is one gap, not a crackle per callback).
//! - **Overrun**: the DSP thread had more than the ring could take. A live
//!   source drops the excess (the dongle does not wait); a file waits for
//!   room, so it plays at the sound card's pace.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// Shared part of the ring.
struct Shared {
    slots: Box<[AtomicU32]>,
    /// `capacity − 1` (capacity is a power of two).
    mask: usize,
    /// Samples read so far (wrapping); written by the consumer only.
    read: AtomicUsize,
    /// Samples written so far (wrapping); written by the producer only.
    write: AtomicUsize,
    underruns: AtomicU64,
    overruns: AtomicU64,
    /// Samples dropped by overruns.
    dropped: AtomicU64,
}

/// The writing end of the ring (the DSP thread).
pub struct Producer {
    shared: Arc<Shared>,
}

/// The reading end of the ring (the audio callback).
pub struct Consumer {
    shared: Arc<Shared>,
    /// Samples a refill must reach before playback (re)starts.
    prefill: usize,
    /// Playing (false: waiting for the pre-fill).
    playing: bool,
    /// Samples per frame: reads are kept to whole frames.
    channels: usize,
}

/// A ring of `capacity` samples (rounded up to a power of two, at least 2)
/// for frames of `channels` samples; playback starts (and restarts after an
/// underrun) once `prefill` samples are queued (clamped to half the
/// capacity).
///
/// ```
/// use airwaves::radio::audio::ring;
/// let (mut p, mut c) = ring(8, 2, 0);
/// assert_eq!(p.push(&[0.5, -0.5]), 2);
/// let mut y = [0.0; 4];
/// c.pop(&mut y); // one frame, then silence: an underrun
/// assert_eq!(y, [0.5, -0.5, 0.0, 0.0]);
/// assert_eq!(c.stats().underruns, 1);
/// ```
pub fn ring(capacity: usize, channels: usize, prefill: usize) -> (Producer, Consumer) {
    let cap = capacity.max(2).next_power_of_two();
    let shared = Arc::new(Shared {
        slots: (0..cap).map(|_| AtomicU32::new(0)).collect(),
        mask: cap - 1,
        read: AtomicUsize::new(0),
        write: AtomicUsize::new(0),
        underruns: AtomicU64::new(0),
        overruns: AtomicU64::new(0),
        dropped: AtomicU64::new(0),
    });
    let channels = channels.max(1);
    (
        Producer {
            shared: Arc::clone(&shared),
        },
        Consumer {
            shared,
            prefill: prefill.min(cap / 2),
            playing: false,
            channels,
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
        self.shared.mask + 1
    }

    /// Free slots now.
    pub fn free(&self) -> usize {
        let s = &self.shared;
        let used = s
            .write
            .load(Ordering::Relaxed)
            .wrapping_sub(s.read.load(Ordering::Acquire));
        self.capacity() - used
    }

    /// Queue as much of `x` as fits; returns how many samples were queued.
    pub fn push(&mut self, x: &[f32]) -> usize {
        let s = &self.shared;
        let n = x.len().min(self.free());
        let w = s.write.load(Ordering::Relaxed);
        for (i, v) in x[..n].iter().enumerate() {
            s.slots[w.wrapping_add(i) & s.mask].store(v.to_bits(), Ordering::Relaxed);
        }
        s.write.store(w.wrapping_add(n), Ordering::Release);
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
}

impl Consumer {
    /// Fill `y` (a whole number of frames) from the ring, silence for
    /// whatever is missing. Never blocks or allocates.
    pub fn pop(&mut self, y: &mut [f32]) {
        let s = &self.shared;
        let r = s.read.load(Ordering::Relaxed);
        let avail = s.write.load(Ordering::Acquire).wrapping_sub(r);
        if !self.playing {
            if avail < self.prefill.max(1) {
                y.fill(0.0);
                return;
            }
            self.playing = true;
        }
        let n = avail.min(y.len()) / self.channels * self.channels;
        for (i, v) in y[..n].iter_mut().enumerate() {
            *v = f32::from_bits(s.slots[r.wrapping_add(i) & s.mask].load(Ordering::Relaxed));
        }
        s.read.store(r.wrapping_add(n), Ordering::Release);
        if n < y.len() {
            y[n..].fill(0.0);
            s.underruns.fetch_add(1, Ordering::Relaxed);
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
pub struct AudioError(String);

impl std::fmt::Display for AudioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no usable sound device ({}): write a file with --out FILE.wav, \
             or raw s16le audio to stdout with --out -",
            self.0
        )
    }
}

impl std::error::Error for AudioError {}

/// The default output device's default sample rate, Hz.
///
/// # Errors
/// [`AudioError`] when there is no output device (as in CI).
pub fn default_rate() -> Result<u32, AudioError> {
    use cpal::traits::{DeviceTrait, HostTrait};
    let device = cpal::default_host()
        .default_output_device()
        .ok_or_else(|| AudioError("no default output device".into()))?;
    let config = device
        .default_output_config()
        .map_err(|e| AudioError(e.to_string()))?;
    Ok(config.sample_rate())
}

/// Samples the callback converts per step (its scratch buffer).
const SCRATCH: usize = 4096;

/// A playing cpal output stream fed by a [`Producer`].
pub struct Playback {
    /// Kept alive while playing.
    _stream: cpal::Stream,
    producer: Producer,
    channels: usize,
    /// The source is live: drop on overrun instead of waiting.
    live: bool,
    /// Cleared when the stream reports an error.
    alive: Arc<AtomicBool>,
}

impl Playback {
    /// Open the default output device at `rate` Hz for `channels` (1 or 2)
    /// channels of audio (mapped onto the device's channels: mono to every
    /// channel, stereo to the first two), with a ring of about half a
    /// second, playback starting once 100 ms are queued. A `live` source
    /// drops audio when the ring is full; otherwise [`Playback::write`]
    /// waits.
    ///
    /// # Errors
    /// [`AudioError`] when there is no device, or it takes neither `f32`
    /// nor `i16` samples at this rate.
    pub fn open(rate: u32, channels: usize, live: bool) -> Result<Playback, AudioError> {
        use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
        let device = cpal::default_host()
            .default_output_device()
            .ok_or_else(|| AudioError("no default output device".into()))?;
        let supported = device
            .default_output_config()
            .map_err(|e| AudioError(e.to_string()))?;
        let dev_channels = usize::from(supported.channels()).max(1);
        let config = cpal::StreamConfig {
            channels: supported.channels(),
            sample_rate: rate,
            buffer_size: cpal::BufferSize::Default,
        };
        let cap = (rate as usize / 2 * channels).max(SCRATCH);
        let (producer, consumer) = ring(cap, channels, rate as usize / 10 * channels);
        let alive = Arc::new(AtomicBool::new(true));
        let on_error = {
            let alive = Arc::clone(&alive);
            move |e: cpal::Error| {
                eprintln!("airwaves: audio: {e}");
                alive.store(false, Ordering::Relaxed);
            }
        };
        let mut feed = Feed {
            consumer,
            scratch: vec![0.0; SCRATCH / channels * channels],
            channels,
            dev_channels,
        };
        let stream = match supported.sample_format() {
            cpal::SampleFormat::F32 => device.build_output_stream::<f32, _, _>(
                config,
                move |data, _| feed.fill(data, |v| v),
                on_error,
                None,
            ),
            cpal::SampleFormat::I16 => device.build_output_stream::<i16, _, _>(
                config,
                move |data, _| feed.fill(data, to_i16),
                on_error,
                None,
            ),
            other => {
                return Err(AudioError(format!("device sample format {other:?}")));
            }
        }
        .map_err(|e| AudioError(e.to_string()))?;
        stream.play().map_err(|e| AudioError(e.to_string()))?;
        Ok(Playback {
            _stream: stream,
            producer,
            channels,
            live,
            alive,
        })
    }

    /// Queue interleaved audio (±1.0 full scale).
    ///
    /// # Errors
    /// When the stream has failed (device unplugged).
    pub fn write(&mut self, x: &[f32]) -> std::io::Result<()> {
        if !self.alive.load(Ordering::Relaxed) {
            return Err(std::io::Error::other("the audio stream failed"));
        }
        self.producer
            .push_all(x, self.channels, !self.live, &self.alive);
        Ok(())
    }

    /// Wait (up to `limit`) until the ring has played out.
    pub fn drain(&self, limit: Duration) {
        let t0 = std::time::Instant::now();
        while self.producer.free() < self.producer.capacity()
            && t0.elapsed() < limit
            && self.alive.load(Ordering::Relaxed)
        {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The ring's counters.
    pub fn stats(&self) -> RingStats {
        self.producer.stats()
    }
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
    /// the ring, converting each sample with `conv`.
    fn fill<T: Copy>(&mut self, data: &mut [T], conv: impl Fn(f32) -> T) {
        let (ch, dch) = (self.channels, self.dev_channels);
        let frames_per_step = self.scratch.len() / ch;
        for out in data.chunks_mut(frames_per_step * dch) {
            let frames = out.len() / dch;
            let src = &mut self.scratch[..frames * ch];
            self.consumer.pop(src);
            for (o, s) in out.chunks_exact_mut(dch).zip(src.chunks_exact(ch)) {
                for (k, v) in o.iter_mut().enumerate() {
                    // Mono to every channel; stereo to the first two,
                    // silence beyond.
                    let x = match (ch, k) {
                        (1, _) => s[0],
                        (_, k) if k < ch => s[k],
                        _ => 0.0,
                    };
                    *v = conv(x);
                }
            }
        }
    }
}

/// ±1.0 to a saturated, rounded `i16`.
pub fn to_i16(x: f32) -> i16 {
    (x * 32767.0).round().clamp(-32768.0, 32767.0) as i16
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
        let mut y = [9.0; 8];
        c.pop(&mut y);
        assert_eq!(y, [1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.0, 0.0]);
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
            let mut silent = 0;
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
        let mut out = [0i16; 6];
        f.fill(&mut out, to_i16);
        assert_eq!(out, [16384, 16384, -16384, -16384, 0, 0]);
    }
}
