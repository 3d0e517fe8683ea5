//! `airwaves scene`: write a synthetic 1090 MHz scene and its truth list
//! ([`crate::sim::scene`]).

use crate::cli::{bounded, parse_seconds};
use crate::error::CommandError;
use crate::sim::scene::{MAX_TAPS, SceneConfig, generate};
use crate::sim::uat::{self, UatSceneConfig};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

/// `airwaves scene` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct SceneArgs {
    /// Length, seconds.
    #[arg(long, default_value_t = 10.0, value_parser = parse_seconds, allow_negative_numbers = true)]
    pub seconds: f64,
    /// Sample rate, Hz.
    #[arg(long, default_value_t = 2_400_000.0)]
    pub rate: f64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Mean Mode S replies per second.
    #[arg(long, default_value_t = 1000.0)]
    pub fps: f64,
    /// Mean Mode A/C replies per second.
    #[arg(long, default_value_t = 500.0)]
    pub modeac_rate: f64,
    /// Number of aircraft.
    #[arg(long, default_value_t = 100)]
    pub aircraft: usize,
    /// Lowest SNR, dB.
    #[arg(long, default_value_t = 0.0)]
    pub snr_min: f64,
    /// Highest SNR, dB.
    #[arg(long, default_value_t = 25.0)]
    pub snr_max: f64,
    /// Largest carrier offset, Hz (the 1090 ± 1 MHz reply tolerance).
    #[arg(long, default_value_t = 1e6)]
    pub max_carrier: f64,
    /// Standard deviation of the transponders' carrier offsets, Hz.
    #[arg(long, default_value_t = 125e3)]
    pub carrier_sd: f64,
    /// Rectangular pulses with a flat amplitude (no rise or decay time,
    /// no amplitude change over a reply), as scenes were before.
    #[arg(long)]
    pub ideal_pulses: bool,
    /// Low-pass cut-off (−6 dB) as a fraction of fs/2 [default: 0.96 MHz,
    /// the measured receiver response, i.e. 0.8 at 2.4 MS/s, 0.96 at 2.0 MS/s]
    #[arg(long)]
    pub cutoff: Option<f64>,
    /// Low-pass length, taps (1 = no filter; at most 1023).
    #[arg(long, default_value_t = 31, value_parser = bounded(1, MAX_TAPS))]
    pub taps: usize,
    /// Noise rms per component, ADC codes.
    #[arg(long, default_value_t = 3.0)]
    pub noise: f64,
    /// A 978 MHz UAT scene instead (2083333 samples/s; aircraft send one
    /// ADS-B message a second, ground stations --uplinks frames): uses
    /// --seconds, --seed, --aircraft, --snr-min, --snr-max and --noise.
    #[arg(long)]
    pub uat: bool,
    /// With --uat: uplink frames a second (0–32).
    #[arg(long, default_value_t = 4, value_parser = bounded(0, 32))]
    pub uplinks: usize,
    /// Output .cu8 file.
    pub out: PathBuf,
    /// Output truth list.
    pub truth: PathBuf,
}

/// `airwaves scene`: generate, then print what was generated.
///
/// # Errors
/// Bad settings or a file that cannot be written ([`CommandError::Io`]).
pub fn run(args: &SceneArgs) -> Result<(), CommandError> {
    if args.uat {
        return run_uat(args);
    }
    let cfg = SceneConfig {
        seconds: args.seconds,
        sample_rate: args.rate,
        seed: args.seed,
        frames_per_second: args.fps,
        mode_ac_per_second: args.modeac_rate,
        aircraft: args.aircraft,
        snr_min_db: args.snr_min,
        snr_max_db: args.snr_max,
        max_carrier_hz: args.max_carrier,
        carrier_sd_hz: args.carrier_sd,
        cutoff: args
            .cutoff
            .unwrap_or_else(|| SceneConfig::receiver_cutoff(args.rate)),
        filter_taps: args.taps,
        noise_rms: args.noise,
        ..SceneConfig::default()
    };
    let cfg = if args.ideal_pulses {
        SceneConfig {
            rise_us: (0.0, 0.0),
            fall_us: (0.0, 0.0),
            slope_sd_db: 0.0,
            ..cfg
        }
    } else {
        cfg
    };
    // Every setting first, then both files: neither is touched unless the
    // scene can be made and both can be opened.
    cfg.validate().map_err(CommandError::Io)?;
    let s = write_scene(args, |o, t| generate(&cfg, o, t))?;
    eprintln!(
        "scene: {} samples, {} Mode S ({} overlapped), {} Mode A/C, {} clipped values",
        s.samples, s.mode_s, s.mode_s_overlapped, s.mode_ac, s.clipped
    );
    Ok(())
}

/// `airwaves scene --uat`.
fn run_uat(args: &SceneArgs) -> Result<(), CommandError> {
    let cfg = UatSceneConfig {
        seconds: args.seconds,
        seed: args.seed,
        aircraft: args.aircraft,
        uplinks: args.uplinks,
        snr_db: (args.snr_min, args.snr_max),
        noise_rms: args.noise,
        ..UatSceneConfig::default()
    };
    let s = write_scene(args, |o, t| uat::generate(&cfg, o, t))?;
    eprintln!(
        "scene: {} samples, {} UAT downlink, {} uplink ({} overlapped)",
        s.samples, s.downlink, s.uplink, s.overlapped
    );
    Ok(())
}

/// Open both outputs and run `generate` into them; a write error names
/// the file it came from.
fn write_scene<S>(
    args: &SceneArgs,
    generate: impl FnOnce(&mut Noted, &mut Noted) -> std::io::Result<S>,
) -> Result<S, CommandError> {
    let [out, truth] = open_outputs([&args.out, &args.truth])?;
    // Which file a write error came from: each writer notes its own.
    let mut o = Noted::new(out);
    let mut t = Noted::new(truth);
    generate(&mut o, &mut t)
        .and_then(|s| o.flush().and(t.flush()).map(|()| s))
        .map_err(|source| {
            let failed = [(o.failed, &args.out), (t.failed, &args.truth)];
            match failed.into_iter().find(|f| f.0) {
                Some((_, path)) => CommandError::Write {
                    path: path.clone(),
                    source,
                },
                None => CommandError::Io(source),
            }
        })
}

/// Open every output file for writing, and truncate them only once all
/// have opened: a file that cannot be opened leaves the others as they
/// were (one this call created is removed again).
fn open_outputs<const N: usize>(paths: [&Path; N]) -> Result<[File; N], CommandError> {
    let mut files = Vec::with_capacity(N);
    let mut created = Vec::new();
    for path in paths {
        let existed = path.exists();
        let opened = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path);
        match opened {
            Ok(f) => {
                if !existed {
                    created.push(path);
                }
                files.push(f);
            }
            Err(source) => {
                for p in created {
                    let _ = std::fs::remove_file(p);
                }
                return Err(CommandError::Create {
                    path: path.to_path_buf(),
                    source,
                });
            }
        }
    }
    for (f, path) in files.iter().zip(paths) {
        // Regular files only: /dev/null or a pipe has no length to cut.
        if !f.metadata().is_ok_and(|m| m.is_file()) {
            continue;
        }
        f.set_len(0).map_err(|source| CommandError::Create {
            path: path.to_path_buf(),
            source,
        })?;
    }
    Ok(files
        .try_into()
        .unwrap_or_else(|_| unreachable!("one file per path")))
}

/// A buffered file that notes whether a write to it failed.
struct Noted {
    file: std::io::BufWriter<File>,
    failed: bool,
}

impl Noted {
    fn new(file: File) -> Self {
        Noted {
            file: std::io::BufWriter::new(file),
            failed: false,
        }
    }

    fn note<T>(&mut self, r: std::io::Result<T>) -> std::io::Result<T> {
        self.failed |= r.is_err();
        r
    }
}

impl Write for Noted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.file.write(buf);
        self.note(r)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.file.flush();
        self.note(r)
    }
}
