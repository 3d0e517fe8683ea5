//! Command-line options of `airwaves fm`, `airwaves am` and `airwaves nfm`.

use crate::cli::{SourceArgs, TuningArgs, parse_db, parse_hz, parse_offset, parse_rate};
use std::path::PathBuf;

/// Where the audio goes (`--out`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// The default sound device (`play`).
    Play,
    /// Raw interleaved s16le on standard output (`-`).
    Stdout,
    /// A 16-bit PCM WAV file (any other value).
    Wav(PathBuf),
}

/// Parse `--out`: `play`, `-` or a file name ending in `.wav`.
pub fn parse_output(s: &str) -> Result<Output, String> {
    match s {
        "play" => Ok(Output::Play),
        "-" => Ok(Output::Stdout),
        "" => Err("use play, - or FILE.wav".into()),
        f if f.to_ascii_lowercase().ends_with(".wav") => Ok(Output::Wav(f.into())),
        f => Err(format!(
            "{f:?}: use play (sound card), - (raw s16le on stdout) or FILE.wav"
        )),
    }
}

/// Options shared by every receiver command.
#[derive(clap::Args, Debug, Clone)]
pub struct ReceiverArgs {
    /// Station frequency, Hz: 98.5M, 127.35M, 446006250.
    #[arg(value_parser = parse_hz)]
    pub freq: u64,
    /// Gain, ppm, bias tee.
    #[command(flatten)]
    pub tuning: TuningArgs,
    /// Mute the audio while the SNR estimate is below DB (with 2 dB of
    /// hysteresis); off by default.
    #[arg(long, value_name = "DB", allow_negative_numbers = true, value_parser = parse_db)]
    pub squelch: Option<f32>,
    /// Audio rate, Hz (default: the sound card's rate for play, 48000
    /// otherwise).
    #[arg(long, value_name = "HZ", value_parser = parse_rate)]
    pub audio_rate: Option<u32>,
    /// Sound device for --out play: a device id as cpal lists it, e.g. an
    /// ALSA PCM such as default, hw:CARD=1,DEV=0, or a PCM of ~/.asoundrc
    /// that has a hint (default: the default device).
    #[arg(long, value_name = "NAME")]
    pub audio_device: Option<String>,
    /// Audio out: play (sound card), FILE.wav, or - (raw s16le on stdout).
    #[arg(long, value_parser = parse_output, default_value = "play", value_name = "play|FILE.wav|-")]
    pub out: Output,
    /// Sample rate, Hz (FM: 2400000 only; AM/NFM: default 1200000, any
    /// rate whose ratio to 48 kHz is simple).
    #[arg(long, value_name = "HZ", value_parser = parse_rate)]
    pub rate: Option<u32>,
    /// The station's offset from the centre of the I/Q, Hz (e.g. -250k).
    /// A dongle or rtl_tcp server is tuned that far from the station so
    /// its DC spike misses it (default -250k for FM, -50k for AM/NFM); a
    /// recording's default is 0.
    #[arg(long, value_name = "HZ", value_parser = parse_offset, allow_hyphen_values = true)]
    pub offset: Option<f64>,
    /// Where the I/Q comes from.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// `airwaves fm`: broadcast FM.
#[derive(clap::Args, Debug, Clone)]
pub struct FmArgs {
    /// Shared receiver options.
    #[command(flatten)]
    pub rx: ReceiverArgs,
    /// Decode stereo (the default).
    #[arg(long, conflicts_with = "mono")]
    pub stereo: bool,
    /// Mono only (a narrower channel filter: fewer clicks on weak stations).
    #[arg(long)]
    pub mono: bool,
    /// De-emphasis, µs: 75 (Americas, Korea) or 50 (elsewhere).
    #[arg(long, default_value = "75", value_parser = ["75", "50"])]
    pub deemph: String,
    /// Decode RDS (station name, RadioText) and show it in the status line.
    #[arg(long)]
    pub rds: bool,
}

/// `airwaves am`: AM (airband, broadcast).
#[derive(clap::Args, Debug, Clone)]
pub struct AmArgs {
    /// Shared receiver options.
    #[command(flatten)]
    pub rx: ReceiverArgs,
    /// Synchronous detector (carrier PLL) instead of the envelope.
    #[arg(long)]
    pub sync: bool,
}

/// `airwaves nfm`: narrowband FM (±5 kHz).
#[derive(clap::Args, Debug, Clone)]
pub struct NfmArgs {
    /// Shared receiver options.
    #[command(flatten)]
    pub rx: ReceiverArgs,
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_parse_output() {
        assert_eq!(parse_output("play"), Ok(Output::Play));
        assert_eq!(parse_output("-"), Ok(Output::Stdout));
        assert_eq!(parse_output("a/b.WAV"), Ok(Output::Wav("a/b.WAV".into())));
        assert!(parse_output("out.mp3").unwrap_err().contains("FILE.wav"));
    }
}
