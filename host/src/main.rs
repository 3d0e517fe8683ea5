//! `airwaves`: software-defined radio for the RTL-SDR.

use airwaves::commands::{decode, dongle, rtl_tcp, scene, uat};
use airwaves::{adsb, radio, selftest};
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
    Decode(decode::DecodeArgs),
    /// Demodulate a 978 MHz UAT .cu8 recording and print dump978-fa's raw lines.
    Uat(uat::UatArgs),
    /// List RTL-SDR dongles: index, serial, tuner, USB strings.
    Devices(dongle::DevicesArgs),
    /// Record u8 I/Q from a dongle (or --fake-device) to a .cu8 file, like rtl_sdr.
    Record(dongle::RecordArgs),
    /// Stream the RTL2832U's test counter and count lost bytes, like rtl_test.
    TestMode(dongle::TestModeArgs),
    /// Write a synthetic 1090 MHz scene (.cu8) and its truth list.
    Scene(scene::SceneArgs),
    /// Serve I/Q to one rtl_tcp client at a time (rtl_433, SDR#, GQRX, airwaves).
    RtlTcp(rtl_tcp::RtlTcpArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    if let Err(e) = airwaves::stop::install() {
        eprintln!("airwaves: cannot handle signals ({e}): Ctrl-C will cut files short");
    }
    let (name, result) = match cli.command {
        Command::Adsb(args) => ("adsb", adsb::run(&args)),
        Command::Fm(args) => ("fm", radio::run_fm(&args)),
        Command::Am(args) => ("am", radio::run_am(&args)),
        Command::Nfm(args) => ("nfm", radio::run_nfm(&args)),
        Command::DspSelftest => ("dsp-selftest", selftest::run()),
        Command::Devices(args) => ("devices", dongle::devices(&args)),
        Command::Record(args) => ("record", dongle::record(&args)),
        Command::TestMode(args) => ("test-mode", dongle::test_mode(&args)),
        Command::Decode(args) => ("decode", decode::run(&args)),
        Command::Uat(args) => ("uat", uat::run(&args)),
        Command::RtlTcp(args) => ("rtl-tcp", rtl_tcp::run_cli(&args)),
        Command::Scene(args) => ("scene", scene::run(&args)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(message) = e.message(name) {
                eprintln!("{message}");
            }
            ExitCode::FAILURE
        }
    }
}

/// A value the command line refuses is one line on stderr, `airwaves:
/// invalid value 'nan' for '--duration <S>': …` (clap's message with its
/// possible values, without its trailing hint), exit code 2 as clap's own;
/// clap's other errors (missing or unknown arguments, with their usage
/// lines), `--help` and `--version` print as clap prints them.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if !matches!(
        e.kind(),
        ErrorKind::InvalidValue | ErrorKind::ValueValidation
    ) {
        e.exit()
    }
    let text = e.to_string();
    let line: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .collect();
    let line = line.join(" ");
    eprintln!(
        "airwaves: {}",
        line.strip_prefix("error: ").unwrap_or(&line)
    );
    ExitCode::from(2)
}
