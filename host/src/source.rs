//! One source of I/Q buffers for every receiving command.
//!
//! [`SourceArgs`] (the command-line options) picks where the bytes come
//! from: a dongle (`--device INDEX|SERIAL`, default 0), the built-in
//! emulator (`--fake-device SPEC`), an rtl_tcp server (`--rtl-tcp
//! HOST:PORT`) or a recording (`--ifile FILE.cu8|-`, paced with
//! `--throttle`). [`Tuning`] (frequency, rate, gain or auto, ppm, bias tee,
//! test mode) is applied the same way to each: driver calls for a dongle,
//! rtl_tcp commands for a server; a recording only uses the rate (for
//! pacing).
//!
//! [`Source::next_buffer`] yields buffers of interleaved u8 I/Q in order. A dongle
//! streams through a reader thread and the buffer ring
//! ([`crate::rtl::stream::LiveDongle`]): a lost stick is reopened by serial
//! and the gap reported ([`Source::stats`]) without ending the stream.
//! [`count_stream`] checks the test-mode counter of any source.

pub use crate::cli::SourceArgs;
use crate::cli::{DongleArgs, GainError, TuningArgs, parse_gain};
use crate::rtl::counter::CounterCheck;
use crate::rtl::device::{Device, Selector};
use crate::rtl::fake::FakeConfig;
use crate::rtl::r82xx;
use crate::rtl::stream::{LiveDongle, LiveStats, ReopenPolicy, StreamOptions};
use crate::rtltcp::client::{Client, ClientError};
use crate::rtltcp::protocol::Command;
use std::fmt;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// Bytes per buffer from a file or an rtl_tcp server (a dongle's buffers
/// are its USB transfers, 256 KiB).
pub const CHUNK: usize = 262_144;
/// Longest wait for the rtl_tcp server's header or data.
pub const TCP_TIMEOUT: Duration = Duration::from_secs(5);
/// How long [`Source::next_buffer`] waits per poll of a dongle's ring.
const POLL: Duration = Duration::from_millis(200);

impl DongleArgs {
    /// The dongle selector for `--device`/`--fake-device`.
    pub fn selector(&self) -> Result<Selector, SourceError> {
        Ok(match &self.fake_device {
            Some(spec) => Selector::Fake(FakeConfig::parse(spec).map_err(SourceError::Rtl)?),
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
                std::fs::File::create(p).map_err(SourceError::Io)?,
            ))),
            None => None,
        };
        let dev = Device::open(&selector, trace).map_err(SourceError::Rtl)?;
        Ok((dev, selector))
    }
}

/// Receiver settings, applied the same way to every source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    /// Centre frequency, Hz (`None`: leave as is, e.g. for test mode).
    pub freq: Option<u64>,
    /// Sample rate, Hz.
    pub rate: u32,
    /// Tuner gain in tenths of a dB (nearest listed gain), `None` = tuner AGC.
    pub gain: Option<i32>,
    /// Frequency correction, ppm.
    pub ppm: i32,
    /// Antenna power on.
    pub bias_tee: bool,
    /// Stream the RTL2832U's 8-bit counter instead of samples.
    pub test_mode: bool,
}

impl Tuning {
    /// The tuning `args` ask for at `freq` and `rate` (samples, not the
    /// counter).
    ///
    /// # Errors
    /// A gain that is neither `auto` nor dB.
    pub fn from_args(args: &TuningArgs, freq: Option<u64>, rate: u32) -> Result<Tuning, GainError> {
        Ok(Tuning {
            freq,
            rate,
            gain: parse_gain(&args.gain)?,
            ppm: args.ppm,
            bias_tee: args.bias_tee,
            test_mode: false,
        })
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
    /// Bytes delivered by [`Source::next_buffer`].
    pub bytes: u64,
    /// Streaming counters of a dongle (zero for other sources).
    pub dongle: LiveStats,
}

enum Kind {
    Dongle(Box<LiveDongle>),
    RtlTcp(Client),
    File {
        input: Box<dyn Read + Send>,
        /// Bytes per second when throttled.
        pace: Option<f64>,
        start: Instant,
    },
}

/// A stream of interleaved u8 I/Q buffers.
pub struct Source {
    kind: Kind,
    /// The buffer [`Source::next_buffer`] lends (one allocation, reused).
    chunk: Vec<u8>,
    bytes: u64,
    description: String,
}

/// Apply `t` to an open device, in rtl_sdr's order (so a `--usb-trace`
/// diffs line for line against rtl_sdr under fakeusb).
pub fn tune_device(dev: &mut Device, t: &Tuning) -> Result<(), crate::rtl::Error> {
    dev.set_sample_rate(t.rate)?;
    if let Some(f) = t.freq {
        dev.set_center_freq(f)?;
    }
    if t.test_mode {
        dev.set_test_mode(true)?;
    } else {
        match t.gain {
            None => dev.set_gain_auto()?,
            Some(tenths) => {
                // rtl_sdr: manual mode while picking the gain, manual again, the gain.
                dev.set_gain_manual()?;
                let g = r82xx::nearest_gain(tenths);
                dev.set_gain_manual()?;
                dev.set_gain(g)?;
            }
        }
    }
    if t.ppm != 0 {
        dev.set_ppm(t.ppm)?;
    }
    if t.bias_tee {
        dev.set_bias_tee(true)?;
    }
    Ok(())
}

/// The rtl_tcp commands that apply `t`.
pub fn tuning_commands(t: &Tuning) -> Vec<Command> {
    let mut c = vec![Command::SetSampleRate(t.rate)];
    if let Some(f) = t.freq {
        c.push(Command::SetCenterFreq(u32::try_from(f).unwrap_or(u32::MAX)));
    }
    match t.gain {
        None => c.push(Command::SetGainMode { manual: false }),
        Some(g) => {
            c.push(Command::SetGainMode { manual: true });
            c.push(Command::SetGain(r82xx::nearest_gain(g)));
        }
    }
    if t.ppm != 0 {
        c.push(Command::SetFreqCorrection(t.ppm));
    }
    if t.bias_tee {
        c.push(Command::SetBiasTee(true));
    }
    if t.test_mode {
        c.push(Command::SetTestMode(true));
    }
    c
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
                Box::new(std::io::BufReader::new(std::fs::File::open(path).map_err(
                    |e| {
                        SourceError::Io(std::io::Error::new(
                            e.kind(),
                            format!("{}: {e}", path.display()),
                        ))
                    },
                )?))
            };
            return Ok(Source::new(
                Kind::File {
                    input,
                    pace: args.throttle.then(|| 2.0 * f64::from(tuning.rate)),
                    start: Instant::now(),
                },
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
            chunk: Vec::with_capacity(CHUNK),
            bytes: 0,
            description,
        }
    }

    /// What this source is (for a status line).
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The next buffer of I/Q bytes (even length), or `None` at the end of
    /// a recording or when the rtl_tcp server closes. A dongle never ends:
    /// this blocks through a reopen.
    pub fn next_buffer(&mut self) -> Result<Option<&[u8]>, SourceError> {
        let chunk = &mut self.chunk;
        match &mut self.kind {
            Kind::Dongle(live) => loop {
                let got = live
                    .next_with(POLL, |b| {
                        chunk.clear();
                        chunk.extend_from_slice(b);
                    })
                    .map_err(SourceError::Rtl)?;
                if got.is_some() {
                    break;
                }
            },
            Kind::RtlTcp(client) => {
                chunk.resize(CHUNK, 0);
                let mut n = match client.read(chunk) {
                    Ok(n) => n,
                    Err(ClientError::Closed) => return Ok(None),
                    Err(e) => return Err(SourceError::Tcp(e)),
                };
                // Keep I/Q pairs whole.
                if n % 2 == 1 {
                    match client.read_exact(&mut chunk[n..n + 1]) {
                        Ok(()) => n += 1,
                        Err(ClientError::Closed) => n -= 1,
                        Err(e) => return Err(SourceError::Tcp(e)),
                    }
                }
                chunk.truncate(n);
                if n == 0 {
                    return Ok(None);
                }
            }
            Kind::File { input, pace, start } => {
                chunk.resize(CHUNK, 0);
                let mut n = 0;
                while n < CHUNK {
                    match input.read(&mut chunk[n..]) {
                        Ok(0) => break,
                        Ok(k) => n += k,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(SourceError::Io(e)),
                    }
                }
                chunk.truncate(n & !1);
                if chunk.is_empty() {
                    return Ok(None);
                }
                if let Some(bytes_per_s) = pace {
                    let due =
                        Duration::from_secs_f64((self.bytes + n as u64) as f64 / *bytes_per_s);
                    let elapsed = start.elapsed();
                    if due > elapsed {
                        std::thread::sleep(due - elapsed);
                    }
                }
            }
        }
        self.bytes += self.chunk.len() as u64;
        Ok(Some(&self.chunk))
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

/// Check the counter in every buffer of `source` for `limit` (wall time),
/// after discarding `warm_up` of data. The first buffer counted may start
/// with a jump (stale FIFO): counting starts from its end. Returns the
/// check and the seconds measured.
pub fn count_stream(
    source: &mut Source,
    warm_up: Duration,
    limit: Duration,
) -> Result<(CounterCheck, f64), SourceError> {
    let mut check = CounterCheck::default();
    let t0 = Instant::now();
    loop {
        match source.next_buffer()? {
            Some(first) if t0.elapsed() >= warm_up => {
                check = CounterCheck::after(first.last().copied());
                break;
            }
            Some(_) => {}
            None => return Ok((check, 0.0)),
        }
    }
    let start = Instant::now();
    while start.elapsed() < limit {
        match source.next_buffer()? {
            Some(buf) => check.feed(buf),
            None => break,
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

    fn tuning(rate: u32) -> Tuning {
        Tuning {
            freq: Some(1_090_000_000),
            rate,
            gain: Some(496),
            ppm: 0,
            bias_tee: false,
            test_mode: false,
        }
    }

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
        while let Some(b) = s.next_buffer().unwrap() {
            assert!(b.len() <= CHUNK && b.len() % 2 == 0);
            got.extend_from_slice(b);
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
        while s.next_buffer().unwrap().is_some() {}
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
    fn test_tuning_commands() {
        let mut t = tuning(2_400_000);
        t.gain = Some(500);
        t.ppm = -3;
        t.bias_tee = true;
        assert_eq!(
            tuning_commands(&t),
            vec![
                Command::SetSampleRate(2_400_000),
                Command::SetCenterFreq(1_090_000_000),
                Command::SetGainMode { manual: true },
                Command::SetGain(496),
                Command::SetFreqCorrection(-3),
                Command::SetBiasTee(true),
            ]
        );
        t.gain = None;
        t.ppm = 0;
        t.bias_tee = false;
        t.test_mode = true;
        assert_eq!(
            tuning_commands(&t),
            vec![
                Command::SetSampleRate(2_400_000),
                Command::SetCenterFreq(1_090_000_000),
                Command::SetGainMode { manual: false },
                Command::SetTestMode(true),
            ]
        );
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
