//! The receiving loop: source → [`Demodulator`] → squelch → resampler to
//! the audio rate → sink (sound card, WAV, raw stdout), with the status
//! line once a second.
//!
//! One thread does the DSP (the caller's); a dongle has its own reader
//! thread behind [`Source`], and the sound card its callback thread behind
//! the [`audio`](super::audio) ring.

use super::args::Output;
use super::audio::{AudioError, Playback, RingStats};
use super::demod::{AUDIO_RATE, ConfigError, Demodulator};
use super::pcm::s16le;
use super::status::{StatusLine, level_dbfs};
use super::wav::WavWriter;
use crate::autogain::headroom::{HeadroomConfig, HeadroomState};
use crate::source::{CHUNK, SampleSource, Source, SourceArgs, SourceError, Tuning};
use airwaves_core::dsp::resample::{Resampler, ResamplerState, design_f32, taps_per_phase};
use airwaves_core::modes::level::{LevelMeter, LevelState};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::time::{Duration, Instant};

/// Why a receiver stopped with an error.
#[derive(Debug)]
pub enum RadioError {
    /// Options that do not make a receiver.
    Config(ConfigError),
    /// The sound card.
    Audio(AudioError),
    /// The I/Q source.
    Source(SourceError),
    /// Writing the audio (`what`: the file or stream).
    Io {
        /// What was being written.
        what: String,
        /// The failure.
        source: io::Error,
    },
}

impl std::fmt::Display for RadioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RadioError::Config(e) => e.fmt(f),
            RadioError::Audio(e) => e.fmt(f),
            RadioError::Source(e) => e.fmt(f),
            RadioError::Io { what, source } => write!(f, "{what}: {source}"),
        }
    }
}

impl std::error::Error for RadioError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RadioError::Config(e) => Some(e),
            RadioError::Audio(e) => Some(e),
            RadioError::Source(e) => Some(e),
            RadioError::Io { source, .. } => Some(source),
        }
    }
}

impl From<ConfigError> for RadioError {
    fn from(e: ConfigError) -> Self {
        RadioError::Config(e)
    }
}

/// A receiver ready to run.
pub struct Plan {
    /// Command name for messages (`fm`, `am`, `nfm`).
    pub name: &'static str,
    /// Station frequency, Hz (for the start-up message).
    pub freq: u64,
    /// How the source is tuned (the centre is the station less the offset).
    pub tuning: Tuning,
    /// Where the I/Q comes from.
    pub source: SourceArgs,
    /// The DSP.
    pub demod: Box<dyn Demodulator>,
    /// Squelch threshold on the SNR estimate, dB.
    pub squelch: Option<f32>,
    /// Audio rate, Hz (`None`: the sound card's, or 48000).
    pub audio_rate: Option<u32>,
    /// Sound device for [`Output::Play`] (a cpal device id; `None`: the
    /// default device).
    pub audio_device: Option<String>,
    /// Where the audio goes.
    pub out: Output,
    /// Run the headroom loop ([`crate::autogain::headroom`]) from the gain
    /// in `tuning` (`--gain auto` on a live source).
    pub auto_gain: bool,
}

/// Largest interpolation factor of the audio resampler.
const MAX_AUDIO_L: u32 = 1024;
/// History of the audio resampler (≥ its taps per phase).
const AUDIO_HIST: usize = 2048;
/// Squelch hysteresis, dB.
const SQUELCH_HYSTERESIS_DB: f32 = 2.0;

/// 48 kHz → the audio rate, per channel, with `core::dsp::resample`.
pub struct AudioResampler {
    l: u32,
    m: u32,
    taps: Vec<f32>,
    states: Vec<ResamplerState<f32, AUDIO_HIST>>,
    de: Vec<f32>,
    re: Vec<f32>,
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

impl AudioResampler {
    /// A resampler from 48 kHz to `rate` Hz for `channels` interleaved
    /// channels; flat to 15 kHz (or 80 % of the lower Nyquist frequency),
    /// 80 dB stop band.
    ///
    /// # Errors
    /// [`ConfigError`] for a rate outside 8 kHz ..= 192 kHz or whose ratio
    /// to 48 kHz needs more than 1024 phases.
    ///
    /// ```
    /// use airwaves::radio::pipeline::AudioResampler;
    /// let mut r = AudioResampler::new(44_100, 1).unwrap();
    /// let mut y = Vec::new();
    /// r.process(&[0.0; 480], &mut y);
    /// assert_eq!(y.len(), 441);
    /// assert!(AudioResampler::new(44_101, 1).is_err());
    /// ```
    pub fn new(rate: u32, channels: usize) -> Result<AudioResampler, ConfigError> {
        if !(8_000..=192_000).contains(&rate) {
            return Err(ConfigError::AudioRate(rate));
        }
        let g = gcd(rate, AUDIO_RATE);
        let (l, m) = (rate / g, AUDIO_RATE / g);
        if l > MAX_AUDIO_L {
            return Err(ConfigError::AudioRatio { rate, l, m });
        }
        let nyq = 0.5 * f64::from(rate.min(AUDIO_RATE));
        let k = taps_per_phase(l, m, 80.0, (15_000.0 / nyq).min(0.8));
        if k > AUDIO_HIST {
            return Err(ConfigError::AudioTaps { rate, taps: k });
        }
        let mut taps = vec![0.0f32; l as usize * k];
        design_f32(l, m, 80.0, &mut taps);
        Ok(AudioResampler {
            l,
            m,
            taps,
            states: (0..channels).map(|_| ResamplerState::new()).collect(),
            de: Vec::new(),
            re: Vec::new(),
        })
    }

    /// Resample interleaved `x` into `y` (cleared first).
    pub fn process(&mut self, x: &[f32], y: &mut Vec<f32>) {
        let ch = self.states.len();
        let frames = x.len() / ch;
        let rs = Resampler::new(self.l, self.m, &self.taps);
        let max = rs.max_output(frames);
        y.clear();
        y.resize(max * ch, 0.0);
        self.de.resize(frames, 0.0);
        self.re.resize(max, 0.0);
        let mut got = 0;
        for (c, st) in self.states.iter_mut().enumerate() {
            for (d, s) in self.de.iter_mut().zip(x.iter().skip(c).step_by(ch)) {
                *d = *s;
            }
            got = rs.process(st, &self.de, &mut self.re);
            for (o, v) in y.iter_mut().skip(c).step_by(ch).zip(&self.re[..got]) {
                *o = *v;
            }
        }
        y.truncate(got * ch);
    }
}

/// The audio sink.
enum Sink {
    Play(Playback),
    Wav(WavWriter<BufWriter<std::fs::File>>, String),
    Raw(BufWriter<io::Stdout>),
}

impl Sink {
    /// Queue or write `x`; files and stdout get it as s16le through
    /// `scratch`, converted in one pass.
    fn write(&mut self, x: &[f32], scratch: &mut Vec<u8>) -> Result<(), RadioError> {
        let io_err = |what: &str, source| RadioError::Io {
            what: what.to_string(),
            source,
        };
        match self {
            Sink::Play(p) => p.write(x).map_err(|e| io_err("audio", e)),
            Sink::Wav(w, name) => w
                .write_s16le(s16le(x, scratch))
                .map_err(|e| io_err(name, e)),
            Sink::Raw(out) => out
                .write_all(s16le(x, scratch))
                .map_err(|e| io_err("stdout", e)),
        }
    }

    /// Once a second: keep the WAV header current, push raw audio out.
    fn tick(&mut self) -> Result<(), RadioError> {
        match self {
            Sink::Play(_) => Ok(()),
            Sink::Wav(w, name) => w.update_header().map_err(|source| RadioError::Io {
                what: name.clone(),
                source,
            }),
            Sink::Raw(out) => out.flush().map_err(|source| RadioError::Io {
                what: "stdout".into(),
                source,
            }),
        }
    }

    fn ring(&self) -> Option<RingStats> {
        match self {
            Sink::Play(p) => Some(p.stats()),
            _ => None,
        }
    }

    /// Let the sound card play out what is queued (no-op for files).
    fn drain(&mut self) {
        if let Sink::Play(p) = self {
            p.drain(Duration::from_secs(2));
        }
    }

    fn finish(self) -> Result<(), RadioError> {
        match self {
            Sink::Play(_) => Ok(()),
            Sink::Wav(w, name) => w
                .finish()
                .map(|_| ())
                .map_err(|source| RadioError::Io { what: name, source }),
            Sink::Raw(mut out) => out.flush().map_err(|source| RadioError::Io {
                what: "stdout".into(),
                source,
            }),
        }
    }
}

/// The gain the headroom loop starts from when none is given, tenths of a
/// dB: mid-range, a few windows from either end.
pub const GAIN_START_TENTHS: i32 = 297;

/// Input bytes per demodulator call.
const STEP: usize = 65_536;

/// A closed pipe is how `| aplay` or `| head` says stop.
fn is_broken_pipe(e: &RadioError) -> bool {
    matches!(e, RadioError::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
}

/// Run `plan` until the source ends (a recording, an rtl_tcp server
/// closing) or fails.
///
/// # Errors
/// [`RadioError`]; a broken pipe on stdout is a normal end, not an error.
pub fn run(mut plan: Plan) -> Result<(), RadioError> {
    let channels = plan.demod.channels();
    let live = plan.source.ifile.is_none();
    // The sound card first: without one, fail before touching the dongle.
    // A file is created last, once the source is open, so that a failing
    // run leaves an existing file as it was.
    let mut play = None;
    let rate = match &plan.out {
        Output::Play => {
            // Check a given rate before opening the stream.
            if let Some(rate) = plan.audio_rate
                && rate != AUDIO_RATE
            {
                AudioResampler::new(rate, channels)?;
            }
            let p = Playback::open(
                plan.audio_device.as_deref(),
                plan.audio_rate,
                channels,
                live,
            )
            .map_err(RadioError::Audio)?;
            let rate = p.rate();
            play = Some(p);
            rate
        }
        Output::Stdout | Output::Wav(_) => plan.audio_rate.unwrap_or(AUDIO_RATE),
    };
    let mut resampler = if rate == AUDIO_RATE {
        None
    } else {
        Some(AudioResampler::new(rate, channels)?)
    };
    let mut source = Source::open(&plan.source, &plan.tuning).map_err(RadioError::Source)?;
    let mut sink = match (&plan.out, play) {
        (_, Some(p)) => Sink::Play(p),
        (Output::Wav(path), None) => {
            let name = path.display().to_string();
            let io_error = |source| RadioError::Io {
                what: name.clone(),
                source,
            };
            let file = std::fs::File::create(path).map_err(io_error)?;
            let w =
                WavWriter::new(BufWriter::new(file), channels as u16, rate).map_err(io_error)?;
            Sink::Wav(w, name)
        }
        _ => Sink::Raw(BufWriter::with_capacity(1 << 16, io::stdout())),
    };
    let device = match &sink {
        Sink::Play(p) => format!(" (sound device: {})", p.device_config()),
        _ => String::new(),
    };
    eprintln!(
        "airwaves {}: {:.4} MHz from {}, centre {:.4} MHz at {} S/s; audio {} Hz, {}{}",
        plan.name,
        plan.freq as f64 / 1e6,
        source.description(),
        plan.tuning.freq.unwrap_or(0) as f64 / 1e6,
        plan.tuning.rate,
        rate,
        if channels == 2 { "stereo" } else { "mono" },
        device,
    );
    let mut gain = GainLoop::new(&plan, &source);
    let mut iq = vec![0u8; CHUNK];
    let mut audio = vec![0.0f32; plan.demod.max_output(STEP)];
    let mut resampled = Vec::new();
    let mut scratch = Vec::new();
    let mut squelch_open = plan.squelch.map(|_| false);
    let mut level = f32::NAN;
    let mut produced = 0u64;
    let tty = io::stderr().is_terminal();
    let mut last = Instant::now();
    let status =
        |plan: &Plan, level, squelch_open, ring, produced: u64, gain: &Option<GainLoop>| {
            StatusLine {
                level_dbfs: level,
                demod: plan.demod.status(),
                squelch_open,
                ring,
                seconds: produced as f64 / f64::from(AUDIO_RATE) / channels as f64,
                gain_db: gain.as_ref().map(|g| g.gain_tenths() as f32 / 10.0),
            }
        };
    let result = (|| -> Result<(), RadioError> {
        loop {
            // A signal ends the run as the end of a recording would: the
            // WAV's header is completed and the summary printed.
            if crate::stop::requested() {
                return Ok(());
            }
            let buf = match source.read(&mut iq) {
                Ok(0) => return Ok(()),
                Ok(n) => &iq[..n],
                // A non-looping recording behind the emulator ends with
                // the stick "unplugged": that is its end.
                Err(SourceError::Rtl(_)) if emulated_recording(&plan.source) => return Ok(()),
                Err(e) => return Err(RadioError::Source(e)),
            };
            level = level_dbfs(buf);
            if let Some(g) = &mut gain {
                g.measure(buf, &mut source, plan.name, tty);
            }
            for step in buf.chunks(STEP) {
                let n = plan.demod.process(step, &mut audio);
                produced += n as u64;
                if let (Some(thr), Some(open)) = (plan.squelch, squelch_open.as_mut()) {
                    let snr = plan.demod.status().snr_db;
                    *open = if *open {
                        snr >= thr - SQUELCH_HYSTERESIS_DB
                    } else {
                        snr >= thr
                    };
                    if !*open {
                        audio[..n].fill(0.0);
                    }
                }
                let out = match &mut resampler {
                    Some(r) => {
                        r.process(&audio[..n], &mut resampled);
                        &resampled[..]
                    }
                    None => &audio[..n],
                };
                sink.write(out, &mut scratch)?;
            }
            if last.elapsed() >= Duration::from_secs(1) {
                last = Instant::now();
                sink.tick()?;
                let line = status(&plan, level, squelch_open, sink.ring(), produced, &gain);
                if tty {
                    eprint!("\r{line}\x1b[K");
                } else {
                    eprintln!("{line}");
                }
            }
        }
    })();
    let _ = source.close();
    // The summary counts what the sound card played, to the end.
    sink.drain();
    let line = status(&plan, level, squelch_open, sink.ring(), produced, &gain);
    if tty {
        eprint!("\r{line}\x1b[K\n");
    } else {
        eprintln!("{line}");
    }
    let finished = sink.finish();
    match result.and(finished) {
        Err(e) if is_broken_pipe(&e) => Ok(()),
        other => other,
    }
}

/// The headroom loop on a live source: the core level meter on every
/// read, a gain change sent to the source when the loop asks for one.
struct GainLoop {
    config: HeadroomConfig,
    state: HeadroomState,
    meter: LevelMeter,
    level: LevelState,
    rate: f64,
}

impl GainLoop {
    /// `None` unless `plan` asks for the loop and `source` can change its
    /// gain while it streams (said on stderr when it cannot).
    fn new(plan: &Plan, source: &Source) -> Option<GainLoop> {
        if !plan.auto_gain {
            return None;
        }
        if !source.can_set_gain() {
            eprintln!(
                "airwaves {}: {} cannot change its gain while streaming; gain stays as opened",
                plan.name,
                source.description()
            );
            return None;
        }
        let start = plan.tuning.gain.unwrap_or(GAIN_START_TENTHS);
        Some(GainLoop {
            config: HeadroomConfig::default(),
            state: HeadroomState::new(start),
            meter: LevelMeter::RTL_SDR,
            level: LevelState::new(),
            rate: f64::from(plan.tuning.rate),
        })
    }

    fn gain_tenths(&self) -> i32 {
        self.state.gain_tenths()
    }

    /// Measure `buf` (cu8 just read); change the gain if the loop says so.
    fn measure(&mut self, buf: &[u8], source: &mut Source, name: &str, tty: bool) {
        self.level.clear();
        self.meter.block(&mut self.level, buf);
        let seconds = (buf.len() / 2) as f64 / self.rate;
        let Some(change) = self
            .config
            .update(&mut self.state, &self.level.stats(), seconds)
        else {
            return;
        };
        let lead = if tty { "\r\x1b[K" } else { "" };
        match source.set_gain(change.to) {
            Ok(_) => eprintln!("{lead}airwaves {name}: {change}"),
            Err(e) => eprintln!("{lead}airwaves {name}: setting gain: {e}"),
        }
    }
}

/// `--fake-device …,file=…` without `loop`.
fn emulated_recording(args: &SourceArgs) -> bool {
    args.dongle.fake_device.as_deref().is_some_and(|spec| {
        let parts: Vec<&str> = spec.split(',').collect();
        parts.iter().any(|p| p.starts_with("file=")) && !parts.contains(&"loop")
    })
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_audio_resampler_44100_keeps_the_tone_and_the_count() {
        let mut r = AudioResampler::new(44_100, 2).unwrap();
        let x: Vec<f32> = (0..48_000)
            .flat_map(|i| {
                let t = i as f32 / 48_000.0;
                let v = 0.5 * (std::f32::consts::TAU * 1000.0 * t).sin();
                [v, -v]
            })
            .collect();
        let mut y = Vec::new();
        let mut all = Vec::new();
        for c in x.chunks(2 * 4801) {
            r.process(c, &mut y);
            all.extend_from_slice(&y);
        }
        assert_eq!(all.len(), 2 * 44_100);
        // Past the filter delay, left is the tone at 44.1 kHz and right its negative.
        let peak = all[20_000..]
            .chunks_exact(2)
            .map(|f| f[0])
            .fold(0.0f32, f32::max);
        assert!((peak - 0.5).abs() < 0.005, "{peak}");
        assert!(
            all[20_000..]
                .chunks_exact(2)
                .all(|f| (f[0] + f[1]).abs() < 1e-6)
        );
    }

    #[test]
    fn test_audio_resampler_refuses_odd_rates() {
        assert!(AudioResampler::new(44_101, 1).is_err());
        assert!(AudioResampler::new(4_000, 1).is_err());
        assert!(AudioResampler::new(16_000, 1).is_ok());
    }

    #[test]
    fn test_emulated_recording() {
        let mut a = SourceArgs::default();
        assert!(!emulated_recording(&a));
        a.dongle.fake_device = Some("r820t,file=x.cu8".into());
        assert!(emulated_recording(&a));
        a.dongle.fake_device = Some("r820t,file=x.cu8,loop".into());
        assert!(!emulated_recording(&a));
    }
}
