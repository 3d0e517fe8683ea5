//! `airwaves`: software-defined radio for the RTL-SDR.

use airwaves::{adsb, decode, radio, rtl, rtltcp, scene, selftest};
use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Software-defined radio for the RTL-SDR dongle.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// ADS-B / Mode S feeder: dongle, rtl_tcp, file or --demo in; AVR 30002,
    /// SBS 30003, Beast 30004/30005, JSON, /metrics and the web map out.
    Adsb(Box<adsb::AdsbArgs>),
    /// Broadcast FM receiver (stereo, RDS) with audio: sound card, WAV or raw stdout.
    Fm(Box<radio::FmArgs>),
    /// AM receiver (envelope or --sync) with audio: airband, broadcast.
    Am(Box<radio::AmArgs>),
    /// Narrowband FM receiver (±5 kHz) with audio.
    Nfm(Box<radio::NfmArgs>),
    /// Run the DSP primitives on synthetic signals and print their measured quality.
    DspSelftest,
    /// Demodulate a .cu8 recording (or - for stdin) and print one line per Mode S frame.
    Decode {
        /// Sample rate of the recording, Hz (2000000 and 2400000 are what feeders use).
        #[arg(long, default_value_t = 2_400_000)]
        rate: u32,
        /// Output format.
        #[arg(long, value_enum, default_value_t = decode::Format::AvrTs)]
        format: decode::Format,
        /// Also detect Mode A/C replies (squawk / Gillham altitude; 2.0 or 2.4 MS/s).
        #[arg(long)]
        modeac: bool,
        /// Receiver latitude, degrees north (with --lon): local CPR decoding in JSON output.
        #[arg(long, requires = "lon", allow_negative_numbers = true)]
        lat: Option<f64>,
        /// Receiver longitude, degrees east (with --lat).
        #[arg(long, requires = "lat", allow_negative_numbers = true)]
        lon: Option<f64>,
        /// Input .cu8 file, or - for standard input.
        input: std::path::PathBuf,
    },
    /// List RTL-SDR dongles: index, serial, tuner, USB strings.
    Devices(rtl::cli::DevicesArgs),
    /// Record u8 I/Q from a dongle (or --fake-device) to a .cu8 file, like rtl_sdr.
    Record(rtl::cli::RecordArgs),
    /// Stream the RTL2832U's test counter and count lost bytes, like rtl_test.
    TestMode(rtl::cli::TestModeArgs),
    /// Write a synthetic 1090 MHz scene (.cu8) and its truth list.
    Scene {
        /// Length, seconds.
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
        /// Sample rate, Hz.
        #[arg(long, default_value_t = 2_400_000.0)]
        rate: f64,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Mean Mode S replies per second.
        #[arg(long, default_value_t = 1000.0)]
        fps: f64,
        /// Mean Mode A/C replies per second.
        #[arg(long, default_value_t = 500.0)]
        modeac_rate: f64,
        /// Number of aircraft.
        #[arg(long, default_value_t = 100)]
        aircraft: usize,
        /// Lowest SNR, dB.
        #[arg(long, default_value_t = 0.0)]
        snr_min: f64,
        /// Highest SNR, dB.
        #[arg(long, default_value_t = 25.0)]
        snr_max: f64,
        /// Largest carrier offset, Hz.
        #[arg(long, default_value_t = 150e3)]
        max_carrier: f64,
        /// Low-pass cut-off as a fraction of fs/2.
        #[arg(long, default_value_t = 0.8)]
        cutoff: f64,
        /// Low-pass length, taps (1 = no filter).
        #[arg(long, default_value_t = 31)]
        taps: usize,
        /// Noise rms per component, ADC codes.
        #[arg(long, default_value_t = 3.0)]
        noise: f64,
        /// Output .cu8 file.
        out: std::path::PathBuf,
        /// Output truth list.
        truth: std::path::PathBuf,
    },
    /// Serve I/Q to one rtl_tcp client at a time (rtl_433, SDR#, GQRX, airwaves).
    RtlTcp(rtltcp::RtlTcpArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Adsb(args) => match adsb::run(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        },
        Command::Fm(args) => radio_exit("fm", radio::run_fm(&args)),
        Command::Am(args) => radio_exit("am", radio::run_am(&args)),
        Command::Nfm(args) => radio_exit("nfm", radio::run_nfm(&args)),
        Command::DspSelftest => {
            if selftest::report(&selftest::run_all()) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Command::Devices(args) => rtl::cli::devices(&args),
        Command::Record(args) => rtl::cli::record(&args),
        Command::TestMode(args) => rtl::cli::test_mode(&args),
        Command::Decode {
            rate,
            format,
            modeac,
            lat,
            lon,
            input,
        } => {
            let opts = decode::DecodeOptions {
                modeac,
                receiver: lat
                    .zip(lon)
                    .map(|(lat, lon)| airwaves_core::modes::cpr::Position::new(lat, lon)),
                ..decode::DecodeOptions::new(rate, format)
            };
            run_decode(&opts, &input)
        }
        Command::RtlTcp(args) => rtltcp::run_cli(&args),
        Command::Scene {
            seconds,
            rate,
            seed,
            fps,
            modeac_rate,
            aircraft,
            snr_min,
            snr_max,
            max_carrier,
            cutoff,
            taps,
            noise,
            out,
            truth,
        } => {
            let cfg = scene::SceneConfig {
                seconds,
                sample_rate: rate,
                seed,
                frames_per_second: fps,
                mode_ac_per_second: modeac_rate,
                aircraft,
                snr_min_db: snr_min,
                snr_max_db: snr_max,
                max_carrier_hz: max_carrier,
                cutoff,
                filter_taps: taps,
                noise_rms: noise,
                ..scene::SceneConfig::default()
            };
            let run = || -> std::io::Result<scene::SceneStats> {
                let mut o = std::io::BufWriter::new(std::fs::File::create(&out)?);
                let mut t = std::io::BufWriter::new(std::fs::File::create(&truth)?);
                scene::generate(&cfg, &mut o, &mut t)
            };
            match run() {
                Ok(s) => {
                    eprintln!(
                        "scene: {} samples, {} Mode S ({} overlapped), {} Mode A/C, {} clipped values",
                        s.samples, s.mode_s, s.mode_s_overlapped, s.mode_ac, s.clipped
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("airwaves scene: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// The exit status of a receiver command, with its error on stderr.
fn radio_exit(cmd: &str, r: Result<(), radio::RadioError>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("airwaves {cmd}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `airwaves decode`: open the input, stream it through the demodulator.
fn run_decode(opts: &decode::DecodeOptions, input: &std::path::Path) -> ExitCode {
    use std::io::{BufWriter, ErrorKind, Read};
    let mut source: Box<dyn Read> = if input.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(input) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("airwaves decode: cannot read {}: {e}", input.display());
                return ExitCode::FAILURE;
            }
        }
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    match decode::decode_with(opts, &mut source, &mut out) {
        Ok(st) => {
            if opts.modeac {
                eprintln!(
                    "airwaves decode: {} samples, {} frames, {} Mode A/C replies",
                    st.samples, st.frames, st.mode_ac
                );
            } else {
                eprintln!(
                    "airwaves decode: {} samples, {} frames",
                    st.samples, st.frames
                );
            }
            ExitCode::SUCCESS
        }
        // A closed pipe (`| head`) is a normal way to stop.
        Err(e) if e.kind() == ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("airwaves decode: {e}");
            ExitCode::FAILURE
        }
    }
}
