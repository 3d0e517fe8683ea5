//! The feeder's source thread: I/Q from a dongle, an rtl_tcp server, a
//! file or the simulated sky, into the ring. A dongle streams on this
//! thread, each USB transfer copied once into a free ring buffer
//! ([`SampleSource::fill`]); the others are read straight into a free
//! buffer ([`SampleSource::read`] on the grant: no copy in between).
//!
//! A live source never waits for the decoder: when every ring buffer is
//! still held, what it delivers is read into a scratch buffer, dropped and
//! counted
//! ([`crate::ring::RingStats`]). A file read as fast as possible waits for
//! a free buffer instead, so that nothing is lost. An rtl_tcp server that
//! closes is reconnected every [`RECONNECT`]; a lost dongle is reopened by
//! serial inside [`Source`]. The thread ends at the end of a file, on a
//! stop request, or when the consumer is gone.

use super::cpu;
use crate::ring::Producer;
use crate::source::{
    CHUNK, Progress, SampleSource, Source, SourceArgs, SourceError, Tuning, read_into_ring,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Wait between rtl_tcp reconnection attempts.
pub const RECONNECT: Duration = Duration::from_secs(2);

/// What the thread reads.
pub struct Input {
    /// The source, opened already: a dongle, emulator, rtl_tcp server or
    /// file ([`Source`]), or the simulated sky ([`crate::demo::PacedSky`]).
    pub source: Box<dyn SampleSource<Error = SourceError>>,
    /// What it is, for the loss message.
    pub description: String,
    /// How to reopen it after an rtl_tcp server closes (`None`: the end of
    /// the stream is the end).
    pub reopen: Option<(SourceArgs, Tuning)>,
    /// Wait for free ring buffers instead of dropping (an unthrottled file).
    pub lossless: bool,
}

/// Counters the source thread shares while it runs.
#[derive(Debug)]
pub struct Shared {
    /// CPU time of the source thread, ms.
    pub cpu_ms: AtomicU64,
    /// Bytes delivered into the ring.
    pub bytes: AtomicU64,
    /// Bytes lost in a dongle's own ring or its reopen gaps.
    pub device_lost_bytes: AtomicU64,
    /// Set to ask the thread to stop.
    pub stop: AtomicBool,
    /// A tuner gain to apply (tenths of a dB; [`NO_GAIN`]: none), taken by
    /// the thread between reads, or by a dongle between transfers.
    pub gain_request: Arc<AtomicI32>,
    /// The gain last applied ([`NO_GAIN`]: none yet), re-applied after a
    /// reconnection.
    pub gain_applied: AtomicI32,
}

/// No gain in [`Shared::gain_request`] / [`Shared::gain_applied`].
pub const NO_GAIN: i32 = crate::rtl::stream::NO_GAIN_REQUEST;

impl Shared {
    /// Nothing counted, no gain asked for.
    pub fn new() -> Self {
        Self {
            cpu_ms: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            device_lost_bytes: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            gain_request: Arc::new(AtomicI32::new(NO_GAIN)),
            gain_applied: AtomicI32::new(NO_GAIN),
        }
    }
}

impl Default for Shared {
    fn default() -> Self {
        Self::new()
    }
}

/// How the source ended.
#[derive(Debug)]
pub enum End {
    /// End of file, or a stop request.
    Finished,
    /// A source error that could not be recovered.
    Failed(SourceError),
}

/// Start the source thread.
///
/// # Errors
/// The thread could not be spawned.
pub fn spawn(
    input: Input,
    producer: Producer,
    shared: Arc<Shared>,
    quiet: bool,
) -> std::io::Result<JoinHandle<End>> {
    std::thread::Builder::new()
        .name("airwaves-source".into())
        .spawn(move || run(input, producer, &shared, quiet))
}

fn run(input: Input, mut producer: Producer, shared: &Shared, quiet: bool) -> End {
    let Input {
        mut source,
        mut description,
        reopen,
        lossless,
    } = input;
    let mut last_cpu = Instant::now();
    let mut account = |shared: &Shared, force: bool| {
        if force || last_cpu.elapsed() >= Duration::from_millis(500) {
            if let Some(ms) = cpu::thread_cpu_ms() {
                shared.cpu_ms.store(ms, Ordering::Relaxed);
            }
            last_cpu = Instant::now();
        }
    };
    // A dongle streams on this thread straight into the ring: one copy;
    // it applies gain requests between its transfers.
    source.take_gain_requests(shared.gain_request.clone());
    let filled = {
        let mut progress = |p: Progress| {
            shared.bytes.fetch_add(p.bytes as u64, Ordering::Relaxed);
            shared
                .device_lost_bytes
                .store(p.lost_bytes, Ordering::Relaxed);
            account(shared, false);
        };
        source.fill(&mut producer, &shared.stop, &mut progress)
    };
    match filled {
        Ok(false) => {}
        Ok(true) => {
            account(shared, true);
            return End::Finished;
        }
        Err(e) => {
            account(shared, true);
            return End::Failed(e);
        }
    }
    // Where a live source's bytes go when every ring buffer is held: read
    // (the source keeps its pace) and counted as dropped.
    let mut scratch = if lossless {
        Vec::new()
    } else {
        vec![0u8; CHUNK]
    };
    loop {
        if shared.stop.load(Ordering::Relaxed) || !producer.consumer_alive() {
            account(shared, true);
            return End::Finished;
        }
        let g = shared.gain_request.swap(NO_GAIN, Ordering::Relaxed);
        if g != NO_GAIN {
            match source.set_gain(g) {
                Ok(true) => shared.gain_applied.store(g, Ordering::Relaxed),
                Ok(false) => {}
                Err(e) if !quiet => eprintln!("airwaves adsb: setting gain: {e}"),
                Err(_) => {}
            }
        }
        let scratch = (!lossless).then_some(&mut scratch[..]);
        let read = match read_into_ring(&mut *source, &mut producer, scratch) {
            Ok(None) => {
                // A file replay waits for the decoder to free a buffer.
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
            Ok(Some(n)) => Ok(n),
            Err(e) => Err(e),
        };
        match read {
            Ok(n) if n > 0 => {
                shared.bytes.fetch_add(n as u64, Ordering::Relaxed);
                shared
                    .device_lost_bytes
                    .store(source.lost_bytes(), Ordering::Relaxed);
            }
            Ok(_) | Err(_) if reopen.is_some() => {
                let Some((args, tuning)) = &reopen else {
                    continue;
                };
                if !quiet {
                    eprintln!(
                        "airwaves adsb: lost {description}; reconnecting every {} s",
                        RECONNECT.as_secs()
                    );
                }
                loop {
                    if shared.stop.load(Ordering::Relaxed) {
                        return End::Finished;
                    }
                    std::thread::sleep(RECONNECT);
                    match Source::open(args, tuning) {
                        Ok(s) => {
                            if !quiet {
                                eprintln!("airwaves adsb: reconnected to {}", s.description());
                            }
                            description = s.description().to_string();
                            source = Box::new(s);
                            // The loop's gain, not the one opened with.
                            let g = shared.gain_applied.load(Ordering::Relaxed);
                            if g != NO_GAIN {
                                let _ = source.set_gain(g);
                            }
                            break;
                        }
                        Err(e) if !quiet => eprintln!("airwaves adsb: reconnect: {e}"),
                        Err(_) => {}
                    }
                }
            }
            Ok(_) => {
                account(shared, true);
                return End::Finished;
            }
            Err(e) => {
                account(shared, true);
                return End::Failed(e);
            }
        }
        account(shared, false);
    }
}
