//! The one seam between where I/Q comes from and what consumes it.
//!
//! [`SampleSource`] is a stream of interleaved unsigned 8-bit I/Q (`.cu8`:
//! I, Q, I, Q…) that a consumer reads into its own buffer: the feeder
//! straight into a free buffer of its ring, the rtl_tcp server into its
//! ring, `fm`/`am`/`record` into one reused buffer. A source with a
//! stream of its own may instead fill the consumer's ring itself
//! ([`SampleSource::fill`]): the feeder's dongle path, where each USB
//! transfer is copied once, into the ring. Every source implements it:
//!
//! - [`Source`]: what the command line names ([`SourceArgs`]): a dongle
//!   (`--device INDEX|SERIAL`, default 0), the built-in emulator
//!   (`--fake-device SPEC`), an rtl_tcp server (`--rtl-tcp HOST:PORT`) or
//!   a recording (`--ifile FILE.cu8|-`, paced with `--throttle`), tuned by
//!   [`Tuning`]. A dongle ([`crate::rtl::stream::LiveDongle`]) either
//!   fills the consumer's ring from the consumer's source thread
//!   ([`SampleSource::fill`]: the one copy, transfer → ring) or, read with
//!   [`SampleSource::read`], streams through a reader thread and a ring of
//!   its own, each buffer copied into the reader's; a lost stick is
//!   reopened by serial and the gap reported ([`Source::stats`]) without
//!   ending the stream.
//! - [`crate::demo::PacedSky`]: the simulated sky, rendered at its sample
//!   rate.
//! - [`crate::rtltcp::file::FileSource`] and
//!   [`crate::rtltcp::serve::DongleSource`]: the sample halves of what the
//!   rtl_tcp server serves (their control halves take its commands).
//!
//! [`count_stream`] checks the test-mode counter of any source.

mod file;
pub use crate::recording::open_recording;
mod tuning;

use crate::cli::DongleArgs;
pub use crate::cli::SourceArgs;
use crate::ring::Producer;
use crate::rtl::counter::CounterCheck;
use crate::rtl::device::{Device, Selector};
use crate::rtl::fake::FakeConfig;
use crate::rtl::r82xx;
pub use crate::rtl::stream::Progress;
use crate::rtl::stream::{LiveDongle, LiveStats, ReopenPolicy, StreamOptions};
use crate::rtltcp::client::{Client, ClientError};
use crate::rtltcp::protocol::Command;
use file::FileReader;
use std::fmt;
use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32};
use std::time::{Duration, Instant};
pub use tuning::{Tuning, tune_device, tuning_commands};

/// Bytes per read buffer of the commands and the feeder's ring (a dongle's
/// USB transfers are the same 256 KiB, so one goes into one buffer whole).
pub const CHUNK: usize = 262_144;
/// Longest wait for the rtl_tcp server's header or data.
pub const TCP_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a read waits per poll of a dongle's ring.
const POLL: Duration = Duration::from_millis(200);

/// A stream of interleaved unsigned 8-bit I/Q bytes, read into the
/// caller's buffer.
pub trait SampleSource: Send {
    /// Error of a failed read.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Fill the front of `buf` with the next bytes, waiting until some are
    /// due, and return how many. The count is even (whole I/Q pairs) when
    /// `buf.len()` is; `Ok(0)` for a `buf` of 2 bytes or more means the
    /// stream has ended.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error>;

    /// Prepare a fresh stream (a device resets its FIFO, a file rewinds and
    /// restarts its clock). Sources with nothing to reset do nothing.
    fn start(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Fill the consumer's ring from the calling thread until `stop` is set,
    /// the ring's consumer goes away or the stream ends, where the source
    /// can do it with fewer copies than [`read`](Self::read) (a dongle:
    /// each USB transfer copied once, straight into the ring's next free
    /// buffer; one that finds none is dropped and counted in the ring).
    /// `progress` sees each delivery. `Ok(false)`: this source is read with
    /// [`read`](Self::read) instead, and nothing was done.
    fn fill(
        &mut self,
        producer: &mut Producer,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<bool, Self::Error> {
        let _ = (producer, stop, progress);
        Ok(false)
    }

    /// Set the tuner gain (tenths of a dB, manual) while the stream runs
    /// (a dongle read with [`read`](Self::read); one streaming in
    /// [`fill`](Self::fill) takes
    /// [`take_gain_requests`](Self::take_gain_requests) instead).
    /// `Ok(false)`: this source cannot change its gain (a file).
    fn set_gain(&mut self, tenths: i32) -> Result<bool, Self::Error> {
        let _ = tenths;
        Ok(false)
    }

    /// Whether this source can change its gain while it runs (through
    /// [`set_gain`](Self::set_gain), or for a dongle streaming in
    /// [`fill`](Self::fill), through [`take_gain_requests`](Self::take_gain_requests)).
    fn can_set_gain(&self) -> bool {
        false
    }

    /// Apply the gains put in `requests` (tenths of a dB;
    /// [`NO_GAIN_REQUEST`](crate::rtl::stream::NO_GAIN_REQUEST) for none) while [`fill`](Self::fill) streams.
    /// Sources read with [`read`](Self::read) ignore it.
    fn take_gain_requests(&mut self, requests: Arc<AtomicI32>) {
        let _ = requests;
    }

    /// Bytes lost before [`read`](Self::read) could see them: a dongle's
    /// own ring overflowing, its reopen gaps. Zero for sources that wait.
    fn lost_bytes(&self) -> u64 {
        0
    }
}

impl DongleArgs {
    /// The dongle selector for `--device`/`--fake-device`.
    pub fn selector(&self) -> Result<Selector, SourceError> {
        Ok(match &self.fake_device {
            Some(spec) => {
                let mut cfg = FakeConfig::parse(spec).map_err(SourceError::Rtl)?;
                if let Some((name, maker)) = &mut cfg.sky {
                    *maker = Some(
                        crate::demo::antenna_maker(name)
                            .map_err(|e| SourceError::Rtl(crate::rtl::Error::FakeSpec(e)))?,
                    );
                }
                Selector::Fake(cfg)
            }
            None => match self.device.parse::<usize>() {
                Ok(i) => Selector::Index(i),
                Err(_) => Selector::Serial(self.device.clone()),
            },
        })
    }

    /// Open the dongle or emulator (with the `--usb-trace` log if asked).
    pub fn open_device(&self) -> Result<(Device, Selector), SourceError> {
        let selector = self.selector()?;
        let trace: Option<Box<dyn Write + Send>> = match &self.usb_trace {
            Some(p) => Some(Box::new(std::io::BufWriter::new(
                std::fs::File::create(p).map_err(|e| {
                    SourceError::Io(std::io::Error::new(
                        e.kind(),
                        format!("--usb-trace {}: {e}", p.display()),
                    ))
                })?,
            ))),
            None => None,
        };
        let dev = Device::open(&selector, trace).map_err(SourceError::Rtl)?;
        Ok((dev, selector))
    }
}

/// Why a source could not open or read.
#[derive(Debug)]
pub enum SourceError {
    /// The dongle or emulator failed (settings, USB, gone for good).
    Rtl(crate::rtl::Error),
    /// The rtl_tcp server failed.
    Tcp(ClientError),
    /// A file failed.
    Io(std::io::Error),
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::Rtl(e) => e.fmt(f),
            SourceError::Tcp(e) => e.fmt(f),
            SourceError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SourceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SourceError::Rtl(e) => Some(e),
            SourceError::Tcp(e) => Some(e),
            SourceError::Io(e) => Some(e),
        }
    }
}

/// Counters of a source.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SourceStats {
    /// Bytes delivered by [`SampleSource::read`].
    pub bytes: u64,
    /// Streaming counters of a dongle (zero for other sources).
    pub dongle: LiveStats,
}

enum Kind {
    Dongle(Box<LiveDongle>),
    RtlTcp(Client),
    File(FileReader),
}

/// The source the command line names, opened and tuned.
pub struct Source {
    kind: Kind,
    bytes: u64,
    description: String,
}

impl Source {
    /// Open the source `args` names and apply `tuning`.
    pub fn open(args: &SourceArgs, tuning: &Tuning) -> Result<Source, SourceError> {
        Source::open_with(args, tuning, StreamOptions::default())
    }

    /// [`Source::open`] with a chosen dongle stream shape.
    pub fn open_with(
        args: &SourceArgs,
        tuning: &Tuning,
        opts: StreamOptions,
    ) -> Result<Source, SourceError> {
        if tuning.freq.is_some_and(|f| f > u64::from(u32::MAX)) && args.rtl_tcp.is_some() {
            return Err(SourceError::Rtl(crate::rtl::Error::Frequency(
                tuning.freq.unwrap_or(0),
            )));
        }
        if let Some(addr) = &args.rtl_tcp {
            let mut client =
                Client::connect(addr.as_str(), TCP_TIMEOUT).map_err(SourceError::Tcp)?;
            for c in tuning_commands(tuning) {
                client.send(c).map_err(SourceError::Tcp)?;
            }
            let h = client.header();
            return Ok(Source::new(
                Kind::RtlTcp(client),
                format!("rtl_tcp {addr} ({:?}, {} gains)", h.tuner, h.gain_count),
            ));
        }
        if let Some(path) = &args.ifile {
            let input: Box<dyn Read + Send> = if path.as_os_str() == "-" {
                Box::new(std::io::stdin())
            } else {
                Box::new(std::io::BufReader::new(open_recording(path).map_err(
                    |e| {
                        SourceError::Io(std::io::Error::new(
                            e.kind(),
                            format!("{}: {e}", path.display()),
                        ))
                    },
                )?))
            };
            let pace = args.throttle.then_some(tuning.rate);
            return Ok(Source::new(
                Kind::File(FileReader::new(input, pace)),
                format!("file {}", path.display()),
            ));
        }
        let (mut dev, selector) = args.dongle.open_device()?;
        tune_device(&mut dev, tuning).map_err(SourceError::Rtl)?;
        if !tuning.test_mode && !dev.pll_locked() {
            eprintln!("airwaves: warning: tuner PLL not locked");
        }
        // A recording behind the emulator ends with "unplugged": that is
        // its end, not a loss to recover from (a looped one never ends).
        let policy = match &selector {
            Selector::Fake(cfg) if cfg.file.is_some() && !cfg.looped => {
                ReopenPolicy { max_attempts: 0 }
            }
            _ => ReopenPolicy::default(),
        };
        let description = describe(&dev);
        let live = LiveDongle::start(dev, &selector, opts, policy).map_err(SourceError::Rtl)?;
        Ok(Source::new(Kind::Dongle(Box::new(live)), description))
    }

    /// A dongle already opened and tuned (e.g. with a custom reopen policy).
    pub fn from_dongle(live: LiveDongle) -> Source {
        Source::new(Kind::Dongle(Box::new(live)), "dongle".to_string())
    }

    fn new(kind: Kind, description: String) -> Source {
        Source {
            kind,
            bytes: 0,
            description,
        }
    }

    /// What this source is (for a status line).
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Counters so far.
    pub fn stats(&self) -> SourceStats {
        SourceStats {
            bytes: self.bytes,
            dongle: match &self.kind {
                Kind::Dongle(live) => live.stats(),
                _ => LiveStats::default(),
            },
        }
    }

    /// Stop and close (a dongle goes to standby and is released).
    pub fn close(self) -> Result<SourceStats, SourceError> {
        let stats = self.stats();
        match self.kind {
            Kind::Dongle(live) => live
                .close()
                .map(|dongle| SourceStats { dongle, ..stats })
                .map_err(SourceError::Rtl),
            _ => Ok(stats),
        }
    }
}

impl SampleSource for Source {
    type Error = SourceError;

    /// A dongle never ends: this blocks through a reopen. A recording
    /// fills `buf` whole until its end (an odd last byte, half a sample, is
    /// dropped); an rtl_tcp server's stream ends when the server closes.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, SourceError> {
        let want = buf.len() & !1;
        let buf = &mut buf[..want];
        if want == 0 {
            return Ok(0);
        }
        let n = match &mut self.kind {
            Kind::Dongle(live) => loop {
                if let Some(n) = live.read_timeout(buf, POLL).map_err(SourceError::Rtl)? {
                    break n;
                }
            },
            Kind::RtlTcp(client) => read_pairs(client, buf)?,
            Kind::File(file) => file.read(buf).map_err(SourceError::Io)?,
        };
        self.bytes += n as u64;
        Ok(n)
    }

    /// A dongle streams on this thread into the ring (one copy); other
    /// sources decline.
    fn fill(
        &mut self,
        producer: &mut Producer,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<bool, SourceError> {
        match &mut self.kind {
            Kind::Dongle(live) => {
                let bytes = &mut self.bytes;
                live.stream_into(producer, stop, &mut |p| {
                    *bytes += p.bytes as u64;
                    progress(p);
                })
                .map_err(SourceError::Rtl)?;
                Ok(true)
            }
            Kind::RtlTcp(_) | Kind::File(_) => Ok(false),
        }
    }

    /// An rtl_tcp server is sent manual mode and the gain; a dongle takes
    /// it between two reads.
    fn set_gain(&mut self, tenths: i32) -> Result<bool, SourceError> {
        match &mut self.kind {
            Kind::Dongle(live) => {
                live.set_gain(r82xx::nearest_gain(tenths))
                    .map_err(SourceError::Rtl)?;
                Ok(true)
            }
            Kind::RtlTcp(client) => {
                client
                    .send(Command::SetGainMode { manual: true })
                    .map_err(SourceError::Tcp)?;
                client
                    .send(Command::SetGain(r82xx::nearest_gain(tenths)))
                    .map_err(SourceError::Tcp)?;
                Ok(true)
            }
            Kind::File(_) => Ok(false),
        }
    }

    fn can_set_gain(&self) -> bool {
        matches!(self.kind, Kind::RtlTcp(_) | Kind::Dongle(_))
    }

    fn take_gain_requests(&mut self, requests: Arc<AtomicI32>) {
        if let Kind::Dongle(live) = &mut self.kind {
            live.take_gain_requests(requests);
        }
    }

    fn lost_bytes(&self) -> u64 {
        match &self.kind {
            Kind::Dongle(live) => {
                let s = live.stats();
                s.ring_dropped_bytes + s.gap_bytes
            }
            _ => 0,
        }
    }
}

/// Read `source` straight into the ring's next free buffer and commit
/// what it delivered. When every buffer is held, a live source is read
/// into `scratch` anyway (it keeps its pace) and the bytes are counted as
/// dropped; with no `scratch` (a source that can wait) nothing is read and
/// this returns `Ok(None)`. `Ok(Some(0))`: the stream has ended (nothing
/// is committed or counted).
pub fn read_into_ring<S: SampleSource + ?Sized>(
    source: &mut S,
    producer: &mut Producer,
    scratch: Option<&mut [u8]>,
) -> Result<Option<usize>, S::Error> {
    match producer.grant() {
        Some(mut grant) => {
            let n = source.read(&mut grant)?;
            if n > 0 {
                grant.commit(n);
            }
            Ok(Some(n))
        }
        None => match scratch {
            Some(scratch) => {
                let n = source.read(scratch)?;
                if n > 0 {
                    producer.record_drop(n);
                }
                Ok(Some(n))
            }
            None => Ok(None),
        },
    }
}

/// Read from an rtl_tcp server into `buf` (even length), keeping I/Q pairs
/// whole: an odd count waits for one more byte. `Ok(0)`: the server closed.
fn read_pairs(client: &mut Client, buf: &mut [u8]) -> Result<usize, SourceError> {
    let mut n = match client.read(buf) {
        Ok(n) => n,
        Err(ClientError::Closed) => return Ok(0),
        Err(e) => return Err(SourceError::Tcp(e)),
    };
    if n % 2 == 1 {
        match client.read_exact(&mut buf[n..n + 1]) {
            Ok(()) => n += 1,
            Err(ClientError::Closed) => n -= 1,
            Err(e) => return Err(SourceError::Tcp(e)),
        }
    }
    Ok(n)
}

/// Check the counter in everything `source` streams for `limit` (wall
/// time), after discarding `warm_up` of data. The first buffer counted may
/// start with a jump (stale FIFO): counting starts from its end. Returns
/// the check and the seconds measured.
pub fn count_stream<S: SampleSource + ?Sized>(
    source: &mut S,
    warm_up: Duration,
    limit: Duration,
) -> Result<(CounterCheck, f64), S::Error> {
    let mut buf = vec![0u8; CHUNK];
    let mut check = CounterCheck::default();
    let t0 = Instant::now();
    loop {
        match source.read(&mut buf)? {
            0 => return Ok((check, 0.0)),
            n if t0.elapsed() >= warm_up => {
                check = CounterCheck::after(buf[..n].last().copied());
                break;
            }
            _ => {}
        }
    }
    let start = Instant::now();
    while start.elapsed() < limit && !crate::stop::requested() {
        match source.read(&mut buf)? {
            0 => break,
            n => check.feed(&buf[..n]),
        }
    }
    Ok((check, start.elapsed().as_secs_f64()))
}

/// One line about an open dongle: serial, tuner, board, strings.
pub fn describe(dev: &Device) -> String {
    let s = dev.strings();
    format!(
        "serial {}, tuner {}{}, {} / {}",
        s.serial.as_deref().unwrap_or("-"),
        dev.tuner_kind(),
        if dev.board() == r82xx::Board::BlogV4 {
            " (RTL-SDR Blog V4)"
        } else {
            ""
        },
        s.manufacturer.as_deref().unwrap_or("-"),
        s.product.as_deref().unwrap_or("-"),
    )
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::source::tuning::test::tuning;

    fn temp_file(name: &str, data: &[u8]) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("airwaves-src-{}-{name}", std::process::id()));
        std::fs::write(&p, data).unwrap();
        p
    }

    #[test]
    fn test_ifile_every_byte_then_end() {
        let data: Vec<u8> = (0..600_001u32).map(|i| (i * 7 + i / 300) as u8).collect();
        let p = temp_file("exact.cu8", &data);
        let args = SourceArgs {
            ifile: Some(p.clone()),
            ..SourceArgs::default()
        };
        let mut s = Source::open(&args, &tuning(2_400_000)).unwrap();
        let mut got = Vec::new();
        // Reads of any size: full until the end, whole pairs only.
        let mut buf = vec![0u8; CHUNK];
        for len in [CHUNK, 1_000, 7, 1].into_iter().cycle() {
            let n = s.read(&mut buf[..len]).unwrap();
            if n == 0 && len >= 2 {
                break;
            }
            assert_eq!(n % 2, 0);
            assert!(n == len & !1 || got.len() + n == 600_000, "{len}: {n}");
            got.extend_from_slice(&buf[..n]);
        }
        // The odd last byte is half a sample: dropped.
        assert_eq!(got, data[..600_000]);
        assert_eq!(s.stats().bytes, 600_000);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn test_ifile_throttled_at_the_rate() {
        let p = temp_file("throttle.cu8", &[128u8; 600_000]);
        let args = SourceArgs {
            ifile: Some(p.clone()),
            throttle: true,
            ..SourceArgs::default()
        };
        // 600 000 bytes at 1 MS/s (2 MB/s): 0.3 s.
        let mut s = Source::open(&args, &tuning(1_000_000)).unwrap();
        let t0 = Instant::now();
        let mut buf = vec![0u8; CHUNK];
        while s.read(&mut buf).unwrap() > 0 {}
        let t = t0.elapsed().as_secs_f64();
        // Paced: never faster than the rate; the upper bound only catches a
        // hang (wall-clock limits break on a loaded machine).
        assert!((0.28..30.0).contains(&t), "{t} s");
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn test_missing_ifile_is_a_clear_error() {
        let args = SourceArgs {
            ifile: Some("/nonexistent/airwaves.cu8".into()),
            ..SourceArgs::default()
        };
        let e = Source::open(&args, &tuning(2_400_000)).err().unwrap();
        assert!(e.to_string().contains("/nonexistent/airwaves.cu8"), "{e}");
    }

    #[test]
    fn test_fake_dongle_counter_through_the_source() {
        let args = SourceArgs {
            dongle: DongleArgs {
                fake_device: Some("r820t,speed=10".into()),
                ..DongleArgs::default()
            },
            ..SourceArgs::default()
        };
        let mut t = tuning(2_400_000);
        t.test_mode = true;
        let mut s = Source::open(&args, &t).unwrap();
        assert!(s.description().contains("R820T"), "{}", s.description());
        let (c, _) = count_stream(&mut s, Duration::ZERO, Duration::from_millis(500)).unwrap();
        assert_eq!((c.gaps, c.lost), (0, 0));
        assert!(c.bytes > 5_000_000, "{c:?}");
        let stats = s.close().unwrap();
        assert_eq!(stats.dongle.gaps, 0);
    }

    #[test]
    fn test_bad_fake_spec_is_a_clear_error() {
        let args = SourceArgs {
            dongle: DongleArgs {
                fake_device: Some("r820t,speed=0".into()),
                ..DongleArgs::default()
            },
            ..SourceArgs::default()
        };
        let e = Source::open(&args, &tuning(2_400_000)).err().unwrap();
        assert!(e.to_string().contains("speed"), "{e}");
    }
}
