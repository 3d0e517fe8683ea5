//! Command-line pieces shared by the commands: where the samples come
//! from ([`SourceArgs`], flattened into every command that reads a
//! source) and the frequency, rate, offset and gain parsers.

use airwaves_core::modes::cpr::Position;
use std::fmt;
use std::path::PathBuf;

/// Parse "1090000000", "1090M", "2.4M", "100k" into Hz.
pub fn parse_hz(s: &str) -> Result<u64, String> {
    let (num, mult) = match s.chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1e3),
        Some('M') => (&s[..s.len() - 1], 1e6),
        Some('G') => (&s[..s.len() - 1], 1e9),
        _ => (s, 1.0),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a frequency (e.g. 1090000000 or 1090M)"))?;
    let hz = (v * mult).round();
    if !(0.0..=1e12).contains(&hz) {
        return Err(format!("{s:?} is out of range"));
    }
    Ok(hz as u64)
}

/// A gain argument that is neither `auto` nor a usable number of dB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GainError {
    /// Not a number (the argument as given).
    NotDb(String),
    /// A number outside -10 ..= 100 dB (the argument as given).
    OutOfRange(String),
}

impl fmt::Display for GainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GainError::NotDb(s) => write!(f, "gain {s:?}: use dB (e.g. 49.6), auto or agc"),
            GainError::OutOfRange(s) => write!(f, "gain {s:?} dB out of range"),
        }
    }
}

impl std::error::Error for GainError {}

/// Parse a gain argument: "auto" or dB (e.g. 49.6) into tenths of a dB.
pub fn parse_gain(s: &str) -> Result<Option<i32>, GainError> {
    if s == "auto" {
        return Ok(None);
    }
    let db: f64 = s.parse().map_err(|_| GainError::NotDb(s.to_string()))?;
    if !(-10.0..=100.0).contains(&db) {
        return Err(GainError::OutOfRange(s.to_string()));
    }
    Ok(Some((db * 10.0).round() as i32))
}

/// Which dongle: a real one by index or serial, or the emulator (shared
/// by every command that reads a source, and by `rtl-tcp`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct DongleArgs {
    /// Dongle index (0, 1, …) or serial number.
    #[arg(short = 'd', long = "device", default_value = "0")]
    pub device: String,
    /// Use the built-in emulator instead of a dongle:
    /// `r820t|r828d[,file=PATH][,loop][,sky=airport|rural|mixed][,serial=S][,fast][,speed=N][,fault=stall@N|timeout@N|nodevice@N|firstwrite|short|nolock]`.
    #[arg(long, value_name = "SPEC")]
    pub fake_device: Option<String>,
    /// Write every USB control transfer to FILE (fakeusb.c's text format).
    #[arg(long, value_name = "FILE")]
    pub usb_trace: Option<PathBuf>,
}

/// Where the samples come from (shared by `record`, `test-mode`, `adsb`,
/// `fm`, `am`, `nfm`): a dongle, or instead an rtl_tcp server or a file.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SourceArgs {
    /// The dongle (or emulator) when neither --rtl-tcp nor --ifile is given.
    #[command(flatten)]
    pub dongle: DongleArgs,
    /// Read from an rtl_tcp server (it is sent the rate, frequency, gain,
    /// ppm and bias-tee commands).
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["fake_device", "ifile"])]
    pub rtl_tcp: Option<String>,
    /// Read a .cu8 recording (or - for standard input) instead of a receiver.
    #[arg(long, value_name = "FILE.cu8", conflicts_with = "fake_device")]
    pub ifile: Option<PathBuf>,
    /// With --ifile: deliver at the sample rate instead of as fast as possible.
    #[arg(long, requires = "ifile")]
    pub throttle: bool,
}

/// The tuner settings every receiving command shares (`adsb`, `record`,
/// `fm`, `am`, `nfm`; their centre frequency and sample rate differ in
/// meaning, defaults and short flags, so each command declares those
/// itself). The gain is checked as the command line is parsed.
#[derive(clap::Args, Debug, Clone)]
pub struct TuningArgs {
    /// Tuner gain in dB (nearest listed gain); auto: airwaves' adaptive
    /// gain where the command has it (`adsb`: from the Mode S chain's
    /// measurements; `fm`, `am`, `nfm`: ADC headroom), else the tuner's
    /// AGC; agc: the tuner's AGC.
    #[arg(short = 'g', long, value_parser = parse_gain_arg, default_value = "auto", value_name = "DB|auto|agc")]
    pub gain: Gain,
    /// Frequency correction, ppm (-1000 to 1000).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true,
          value_parser = clap::value_parser!(i32).range(-1000..=1000))]
    pub ppm: i32,
    /// Turn the bias tee (antenna power) on.
    #[arg(long)]
    pub bias_tee: bool,
}

/// The receiver's location (`adsb`, `decode`).
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct LocationArgs {
    /// Receiver latitude, degrees north (with --lon): range rings,
    /// distances, surface and single-frame positions.
    #[arg(long, requires = "lon", allow_negative_numbers = true)]
    pub lat: Option<f64>,
    /// Receiver longitude, degrees east (with --lat).
    #[arg(long, requires = "lat", allow_negative_numbers = true)]
    pub lon: Option<f64>,
}

impl LocationArgs {
    /// The location, when both --lat and --lon are given.
    pub fn position(&self) -> Option<Position> {
        self.lat
            .zip(self.lon)
            .map(|(lat, lon)| Position::new(lat, lon))
    }
}

/// Tuner gain as asked for on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gain {
    /// `auto`: adaptive gain in software where there is a loop for it
    /// (the tuner's AGC elsewhere).
    Auto,
    /// `agc`: the tuner's own AGC.
    Agc,
    /// A fixed gain, tenths of a dB.
    Db(i32),
}

impl Gain {
    /// What the tuner is set to when it opens: a fixed gain, or its AGC
    /// (`None`, for `auto` and `agc`: a command that runs the adaptive
    /// loop sets its starting gain itself).
    pub fn tuner(self) -> Option<i32> {
        match self {
            Gain::Db(t) => Some(t),
            Gain::Auto | Gain::Agc => None,
        }
    }
}

/// [`parse_gain`] as a [`Gain`], with `agc` (for clap).
pub fn parse_gain_arg(s: &str) -> Result<Gain, GainError> {
    if s == "agc" {
        return Ok(Gain::Agc);
    }
    parse_gain(s).map(|g| g.map_or(Gain::Auto, Gain::Db))
}

/// Parse a signed frequency offset: `-250k`, `30000`, `+0.1M`.
pub fn parse_offset(s: &str) -> Result<f64, String> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let hz = parse_hz(rest)? as f64;
    Ok(if neg { -hz } else { hz })
}

/// Parse a sample rate in Hz (suffixes as [`parse_hz`]) that fits a `u32`.
pub fn parse_rate(s: &str) -> Result<u32, String> {
    let hz = parse_hz(s)?;
    u32::try_from(hz)
        .ok()
        .filter(|&r| r > 0)
        .ok_or_else(|| format!("rate {s:?} out of range"))
}

/// Parse a dongle sample rate (`2.4M`, `2048000`) and check it against
/// what the RTL2832U's resampler takes.
pub fn parse_dongle_rate(s: &str) -> Result<u32, String> {
    let hz = parse_hz(s)?;
    u32::try_from(hz)
        .ok()
        .filter(|&r| crate::rtl::rtl2832u::valid_sample_rate(r))
        .ok_or_else(|| format!("{hz} Hz: the RTL2832U takes 225001-300000 or 900001-3200000 Hz"))
}

/// Parse a duration in seconds: finite and positive (`nan`, `inf`, 0 and
/// negative values are refused).
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v < 1e9 => Ok(v),
        Ok(_) => Err(format!("{s}: use a number of seconds above 0")),
        Err(_) => Err(format!("{s:?} is not a number of seconds")),
    }
}

/// [`parse_seconds`], or 0 for "no limit".
pub fn parse_seconds_or_zero(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(0.0) => Ok(0.0),
        _ => parse_seconds(s).map_err(|e| format!("{e} (or 0: no limit)")),
    }
}

/// Parse a level in dB: any finite number.
pub fn parse_db(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("{s:?} is not a level in dB")),
    }
}

/// A parser of whole numbers in `lo ..= hi`, whose error names the bounds.
pub fn bounded(lo: usize, hi: usize) -> impl Fn(&str) -> Result<usize, String> + Clone {
    move |s: &str| match s.parse::<usize>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        _ => Err(format!("{s}: use {lo} to {hi}")),
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_number_parsers() {
        assert_eq!(parse_seconds("2.5"), Ok(2.5));
        for bad in ["nan", "inf", "-1", "0", "x", "1e300"] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_seconds_or_zero("0"), Ok(0.0));
        assert!(
            parse_seconds_or_zero("-1")
                .unwrap_err()
                .contains("no limit")
        );
        assert_eq!(parse_db("-3"), Ok(-3.0));
        assert!(parse_db("nan").is_err() && parse_db("-inf").is_err());
        let b = bounded(2, 4096);
        assert_eq!(b("64"), Ok(64));
        assert_eq!(b("1000000000").unwrap_err(), "1000000000: use 2 to 4096");
        assert!(b("-1").is_err() && b("1").is_err());
    }

    #[test]
    fn test_parse_dongle_rate() {
        assert_eq!(parse_dongle_rate("2.4M"), Ok(2_400_000));
        assert_eq!(parse_dongle_rate("250k"), Ok(250_000));
        for bad in ["1e12", "0", "500k", "3.3M"] {
            let e = parse_dongle_rate(bad).unwrap_err();
            assert!(e.contains("225001-300000"), "{bad}: {e}");
        }
        assert!(
            parse_dongle_rate("1e12")
                .unwrap_err()
                .starts_with("1000000000000 Hz")
        );
    }

    #[test]
    fn test_parse_hz() {
        assert_eq!(parse_hz("1090000000"), Ok(1_090_000_000));
        assert_eq!(parse_hz("1090M"), Ok(1_090_000_000));
        assert_eq!(parse_hz("2.4M"), Ok(2_400_000));
        assert_eq!(parse_hz("100k"), Ok(100_000));
        assert!(parse_hz("abc").is_err());
        assert!(parse_hz("-5").is_err());
    }

    #[test]
    fn test_parse_gain() {
        assert_eq!(parse_gain("auto"), Ok(None));
        assert_eq!(parse_gain_arg("auto"), Ok(Gain::Auto));
        assert_eq!(parse_gain_arg("agc"), Ok(Gain::Agc));
        assert_eq!(parse_gain_arg("33.8"), Ok(Gain::Db(338)));
        assert_eq!(Gain::Db(338).tuner(), Some(338));
        assert_eq!(Gain::Agc.tuner(), None);
        assert!(parse_gain_arg("AGC").is_err());
        assert_eq!(parse_gain("49.6"), Ok(Some(496)));
        assert_eq!(parse_gain("0"), Ok(Some(0)));
        assert!(parse_gain("loud").is_err());
        assert!(parse_gain("500").is_err());
    }

    #[test]
    fn test_parse_offset() {
        assert_eq!(parse_offset("-250k"), Ok(-250e3));
        assert_eq!(parse_offset("+0.1M"), Ok(100e3));
        assert_eq!(parse_offset("30000"), Ok(30e3));
        assert!(parse_offset("-x").is_err());
    }
}
