//! The feeder's source thread: I/Q from a dongle, an rtl_tcp server, a
//! file or the simulated sky, copied into the ring of fixed buffers.
//!
//! A live source never waits for the decoder: when every ring buffer is
//! still held, the buffer is dropped and counted
//! ([`crate::ring::RingStats`]). A file read as fast as possible waits for
//! a free buffer instead, so that nothing is lost. An rtl_tcp server that
//! closes is reconnected every [`RECONNECT`]; a lost dongle is reopened by
//! serial inside [`Source`]. The thread ends at the end of a file, on a
//! stop request, or when the consumer is gone.

use super::cpu;
use crate::demo::DemoSky;
use crate::ring::Producer;
use crate::source::{Source, SourceArgs, SourceError, SourceStats, Tuning};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Wait between rtl_tcp reconnection attempts.
pub const RECONNECT: Duration = Duration::from_secs(2);

/// Bytes of I/Q the demo renders per ring buffer (≈ 27 ms at 2.4 MS/s):
/// small enough that frames reach the map promptly.
const DEMO_CHUNK: usize = 131_072;

/// What the thread reads.
pub enum Input {
    /// A dongle, emulator, rtl_tcp server or file, opened already.
    Radio {
        /// The open source.
        source: Box<Source>,
        /// How to reopen it after an rtl_tcp server closes (`None`: the
        /// end of the stream is the end).
        reopen: Option<(SourceArgs, Tuning)>,
        /// Wait for free ring buffers instead of dropping (an unthrottled
        /// file).
        lossless: bool,
    },
    /// The simulated sky, paced at its sample rate.
    Demo {
        /// The sky.
        sky: Box<DemoSky>,
        /// Its sample rate, Hz.
        sample_rate: f64,
    },
}

/// Counters the source thread shares while it runs.
#[derive(Debug, Default)]
pub struct Shared {
    /// CPU time of the source thread, ms.
    pub cpu_ms: AtomicU64,
    /// Bytes delivered into the ring.
    pub bytes: AtomicU64,
    /// Bytes lost in a dongle's own ring or its reopen gaps.
    pub device_lost_bytes: AtomicU64,
    /// Set to ask the thread to stop.
    pub stop: AtomicBool,
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
    let mut last_cpu = Instant::now();
    let mut account = |shared: &Shared, force: bool| {
        if force || last_cpu.elapsed() >= Duration::from_millis(500) {
            if let Some(ms) = cpu::thread_cpu_ms() {
                shared.cpu_ms.store(ms, Ordering::Relaxed);
            }
            last_cpu = Instant::now();
        }
    };
    match input {
        Input::Demo {
            mut sky,
            sample_rate,
        } => {
            let start = Instant::now();
            let mut samples = 0u64;
            while !shared.stop.load(Ordering::Relaxed) && producer.consumer_alive() {
                let due = Duration::from_secs_f64(samples as f64 / sample_rate);
                if let Some(wait) = due.checked_sub(start.elapsed()) {
                    std::thread::sleep(wait);
                }
                match producer.grant() {
                    Some(mut g) => {
                        let n = DEMO_CHUNK.min(g.len()) & !1;
                        sky.fill(&mut g[..n]);
                        g.commit(n);
                        shared.bytes.fetch_add(n as u64, Ordering::Relaxed);
                    }
                    None => {
                        // The decoder is behind: keep simulated time with
                        // real time, as a dongle would, and count the loss.
                        let mut scratch = [0u8; 4096];
                        let mut left = DEMO_CHUNK;
                        while left > 0 {
                            let n = left.min(scratch.len());
                            sky.fill(&mut scratch[..n]);
                            left -= n;
                        }
                        producer.record_drop(DEMO_CHUNK);
                    }
                }
                samples += (DEMO_CHUNK / 2) as u64;
                account(shared, false);
            }
            account(shared, true);
            End::Finished
        }
        Input::Radio {
            mut source,
            reopen,
            lossless,
        } => loop {
            if shared.stop.load(Ordering::Relaxed) || !producer.consumer_alive() {
                account(shared, true);
                return End::Finished;
            }
            match source.next_buffer() {
                Ok(Some(buf)) => {
                    if lossless {
                        push_waiting(&mut producer, buf, shared);
                    } else {
                        producer.push(buf);
                    }
                    shared.bytes.fetch_add(buf.len() as u64, Ordering::Relaxed);
                    let s: SourceStats = source.stats();
                    shared.device_lost_bytes.store(
                        s.dongle.ring_dropped_bytes + s.dongle.gap_bytes,
                        Ordering::Relaxed,
                    );
                }
                Ok(None) | Err(_) if reopen.is_some() => {
                    let Some((args, tuning)) = &reopen else {
                        continue;
                    };
                    if !quiet {
                        eprintln!(
                            "airwaves adsb: lost {}; reconnecting every {} s",
                            source.description(),
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
                                *source = s;
                                break;
                            }
                            Err(e) if !quiet => eprintln!("airwaves adsb: reconnect: {e}"),
                            Err(_) => {}
                        }
                    }
                }
                Ok(None) => {
                    account(shared, true);
                    return End::Finished;
                }
                Err(e) => {
                    account(shared, true);
                    return End::Failed(e);
                }
            }
            account(shared, false);
        },
    }
}

/// Copy `data` into the ring, waiting for free buffers (a file replay).
fn push_waiting(producer: &mut Producer, mut data: &[u8], shared: &Shared) {
    while !data.is_empty() {
        if shared.stop.load(Ordering::Relaxed) || !producer.consumer_alive() {
            return;
        }
        match producer.grant() {
            Some(mut g) => {
                let n = data.len().min(g.len());
                g[..n].copy_from_slice(&data[..n]);
                g.commit(n);
                data = &data[n..];
            }
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
}
