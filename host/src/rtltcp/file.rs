//! A `.cu8` recording served as if it came from a dongle.
//!
//! [`open`] gives two halves sharing the sample rate: [`FileControl`]
//! records every setting a client makes (and checks it as the RTL2832U +
//! R820T would: rate ranges, gain index, crystal), and [`FileSource`] reads
//! the file paced at the current sample rate (2 bytes per sample), so a
//! rate command changes the pace at once.
//!
//! At the end of the file the stream ends (the session closes after the
//! queued data is sent) unless looping was asked for; each new client starts
//! again from the beginning of the file.

use super::device::Control;
use super::protocol::{DirectSampling, Header, R82XX_GAINS_TENTH_DB};
use crate::recording::Recording;
use crate::source::SampleSource;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Nominal RTL2832U crystal, Hz.
const RTL_XTAL_HZ: u32 = 28_800_000;
/// Allowed deviation of the RTL2832U crystal, Hz.
const RTL_XTAL_TOLERANCE_HZ: u32 = 1_000;
/// Longest stretch one `read` covers, seconds (a rate change acts this fast).
const READ_SPAN_S: f64 = 0.02;
/// If the reader falls this far behind the clock, the clock restarts
/// instead of bursting to catch up.
const MAX_LAG: Duration = Duration::from_secs(1);

/// `true` if the RTL2832U resampler takes `hz`: 225 001–300 000 or
/// 900 001–3 200 000 samples/s.
pub fn valid_sample_rate(hz: u32) -> bool {
    (225_001..=300_000).contains(&hz) || (900_001..=3_200_000).contains(&hz)
}

/// Every rtl_tcp setting, as last applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Centre frequency, Hz.
    pub center_freq: u32,
    /// Sample rate, Hz.
    pub sample_rate: u32,
    /// Manual gain (false: tuner AGC).
    pub manual_gain: bool,
    /// Tuner gain, tenths of a dB.
    pub gain_tenth_db: i32,
    /// Frequency correction, ppm.
    pub ppm: i32,
    /// Last IF gain set: (stage, tenths of a dB).
    pub if_gain: Option<(u16, i16)>,
    /// Test-counter mode.
    pub test_mode: bool,
    /// RTL2832 digital AGC.
    pub agc: bool,
    /// Direct-sampling mode.
    pub direct_sampling: DirectSampling,
    /// Offset tuning.
    pub offset_tuning: bool,
    /// RTL2832 crystal, Hz.
    pub rtl_xtal: u32,
    /// Tuner crystal, Hz.
    pub tuner_xtal: u32,
    /// Bias tee on.
    pub bias_tee: bool,
}

/// A setting the emulated R820T dongle refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingError {
    /// Sample rate outside 225 001–300 000 and 900 001–3 200 000 Hz.
    SampleRate(u32),
    /// Gain index beyond the 29-entry R820T list.
    GainIndex {
        /// Index asked for.
        index: u32,
        /// Entries in the list.
        count: u32,
    },
    /// Direct-sampling mode other than 0, 1, 2.
    DirectSampling(u32),
    /// RTL2832 crystal outside 28.8 MHz ± 1 kHz.
    RtlXtal(u32),
    /// Tuner crystal of 0 Hz.
    TunerXtal(u32),
    /// Centre frequency of 0 Hz.
    CenterFreq(u32),
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SettingError::SampleRate(hz) => write!(
                f,
                "sample rate {hz} Hz outside 225001-300000 and 900001-3200000 Hz"
            ),
            SettingError::GainIndex { index, count } => {
                write!(f, "gain index {index} outside 0..{count}")
            }
            SettingError::DirectSampling(m) => {
                write!(f, "direct-sampling mode {m} is not 0 (off), 1 (I) or 2 (Q)")
            }
            SettingError::RtlXtal(hz) => {
                write!(f, "RTL2832 crystal {hz} Hz outside 28.8 MHz +- 1 kHz")
            }
            SettingError::TunerXtal(hz) => write!(f, "tuner crystal {hz} Hz is not usable"),
            SettingError::CenterFreq(hz) => write!(f, "centre frequency {hz} Hz is not usable"),
        }
    }
}

impl std::error::Error for SettingError {}

/// Open `path` for serving at `sample_rate` Hz; `looping` restarts the file
/// at its end instead of ending the stream.
pub fn open(
    path: &Path,
    sample_rate: u32,
    looping: bool,
) -> Result<(FileSource, FileControl), FileError> {
    if !valid_sample_rate(sample_rate) {
        return Err(FileError::Setting(SettingError::SampleRate(sample_rate)));
    }
    let io = |source| FileError::Io {
        path: path.to_owned(),
        source,
    };
    let recording = Recording::open(path, looping).map_err(io)?;
    let rate = Arc::new(AtomicU32::new(sample_rate));
    let source = FileSource {
        recording,
        path: path.to_owned(),
        rate: rate.clone(),
        clock: Clock {
            rate: sample_rate,
            epoch: Instant::now(),
            bytes: 0,
        },
    };
    let control = FileControl {
        settings: Settings {
            center_freq: 100_000_000,
            sample_rate,
            manual_gain: false,
            gain_tenth_db: 0,
            ppm: 0,
            if_gain: None,
            test_mode: false,
            agc: false,
            direct_sampling: DirectSampling::Off,
            offset_tuning: false,
            rtl_xtal: RTL_XTAL_HZ,
            tuner_xtal: RTL_XTAL_HZ,
            bias_tee: false,
        },
        rate,
    };
    Ok((source, control))
}

/// Error of the file source.
#[derive(Debug)]
pub enum FileError {
    /// Opening, reading or seeking the file failed.
    Io {
        /// The recording.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The initial setting is not one a dongle takes.
    Setting(SettingError),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            FileError::Setting(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FileError::Io { source, .. } => Some(source),
            FileError::Setting(e) => Some(e),
        }
    }
}

/// The settings half: records what clients set.
#[derive(Debug)]
pub struct FileControl {
    settings: Settings,
    rate: Arc<AtomicU32>,
}

impl FileControl {
    /// The settings in force.
    pub fn settings(&self) -> Settings {
        self.settings
    }
}

impl Control for FileControl {
    type Error = SettingError;

    fn header(&self) -> Header {
        Header::R820T
    }
    fn set_center_freq(&mut self, hz: u32) -> Result<(), SettingError> {
        if hz == 0 {
            return Err(SettingError::CenterFreq(hz));
        }
        self.settings.center_freq = hz;
        Ok(())
    }
    fn set_sample_rate(&mut self, hz: u32) -> Result<(), SettingError> {
        if !valid_sample_rate(hz) {
            return Err(SettingError::SampleRate(hz));
        }
        self.settings.sample_rate = hz;
        self.rate.store(hz, Ordering::Relaxed);
        Ok(())
    }
    fn set_gain_mode(&mut self, manual: bool) -> Result<(), SettingError> {
        self.settings.manual_gain = manual;
        Ok(())
    }
    fn set_gain(&mut self, tenth_db: i32) -> Result<(), SettingError> {
        self.settings.gain_tenth_db = tenth_db;
        Ok(())
    }
    fn set_freq_correction(&mut self, ppm: i32) -> Result<(), SettingError> {
        self.settings.ppm = ppm;
        Ok(())
    }
    fn set_if_gain(&mut self, stage: u16, tenth_db: i16) -> Result<(), SettingError> {
        self.settings.if_gain = Some((stage, tenth_db));
        Ok(())
    }
    fn set_test_mode(&mut self, on: bool) -> Result<(), SettingError> {
        self.settings.test_mode = on;
        Ok(())
    }
    fn set_agc_mode(&mut self, on: bool) -> Result<(), SettingError> {
        self.settings.agc = on;
        Ok(())
    }
    fn set_direct_sampling(&mut self, mode: DirectSampling) -> Result<(), SettingError> {
        if let DirectSampling::Other(m) = mode {
            return Err(SettingError::DirectSampling(m));
        }
        self.settings.direct_sampling = mode;
        Ok(())
    }
    fn set_offset_tuning(&mut self, on: bool) -> Result<(), SettingError> {
        self.settings.offset_tuning = on;
        Ok(())
    }
    fn set_rtl_xtal(&mut self, hz: u32) -> Result<(), SettingError> {
        if hz.abs_diff(RTL_XTAL_HZ) > RTL_XTAL_TOLERANCE_HZ {
            return Err(SettingError::RtlXtal(hz));
        }
        self.settings.rtl_xtal = hz;
        Ok(())
    }
    fn set_tuner_xtal(&mut self, hz: u32) -> Result<(), SettingError> {
        if hz == 0 {
            return Err(SettingError::TunerXtal(hz));
        }
        self.settings.tuner_xtal = hz;
        Ok(())
    }
    fn set_gain_by_index(&mut self, index: u32) -> Result<(), SettingError> {
        let gain = R82XX_GAINS_TENTH_DB
            .get(index as usize)
            .ok_or(SettingError::GainIndex {
                index,
                count: R82XX_GAINS_TENTH_DB.len() as u32,
            })?;
        self.settings.gain_tenth_db = *gain;
        Ok(())
    }
    fn set_bias_tee(&mut self, on: bool) -> Result<(), SettingError> {
        self.settings.bias_tee = on;
        Ok(())
    }
}

/// Wall-clock pacing: `bytes` bytes are due `bytes / (2 rate)` s after `epoch`.
#[derive(Debug)]
struct Clock {
    rate: u32,
    epoch: Instant,
    bytes: u64,
}

impl Clock {
    fn restart(&mut self, rate: u32) {
        self.rate = rate;
        self.epoch = Instant::now();
        self.bytes = 0;
    }

    fn due(&self) -> Instant {
        self.epoch + Duration::from_secs_f64(self.bytes as f64 / (2.0 * f64::from(self.rate)))
    }
}

/// The streaming half: the file's bytes at the pace of the sample rate.
#[derive(Debug)]
pub struct FileSource {
    /// The file, in passes of whole I/Q pairs.
    recording: Recording,
    path: PathBuf,
    rate: Arc<AtomicU32>,
    clock: Clock,
}

impl FileSource {
    fn io_error(&self, source: io::Error) -> FileError {
        FileError::Io {
            path: self.path.clone(),
            source,
        }
    }
}

impl SampleSource for FileSource {
    type Error = FileError;

    fn start(&mut self) -> Result<(), FileError> {
        self.recording.rewind().map_err(|e| self.io_error(e))?;
        self.clock.restart(self.rate.load(Ordering::Relaxed));
        Ok(())
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, FileError> {
        let rate = self.rate.load(Ordering::Relaxed);
        if rate != self.clock.rate || Instant::now() > self.clock.due() + MAX_LAG {
            self.clock.restart(rate);
        }
        let span = ((2.0 * f64::from(rate) * READ_SPAN_S) as usize & !1).max(2);
        let want = span.min(buf.len());
        let n = self
            .recording
            .read(&mut buf[..want])
            .map_err(|e| self.io_error(e))?;
        self.clock.bytes += n as u64;
        let due = self.clock.due();
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        Ok(n)
    }
}

#[cfg(test)]
mod test {
    use super::super::device::{ApplyError, apply};
    use super::super::protocol::Command;
    use super::*;

    fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
        let p = std::env::temp_dir().join(format!("airwaves-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn test_control_records_every_command() {
        let p = temp_file("ctl.cu8", &[0; 4]);
        let (_src, mut ctl) = open(&p, 2_048_000, false).unwrap();
        for c in [
            Command::SetCenterFreq(1_090_000_000),
            Command::SetSampleRate(2_400_000),
            Command::SetGainMode { manual: true },
            Command::SetGain(496),
            Command::SetFreqCorrection(-12),
            Command::SetIfGain {
                stage: 3,
                gain: -20,
            },
            Command::SetTestMode(true),
            Command::SetAgcMode(true),
            Command::SetDirectSampling(DirectSampling::QBranch),
            Command::SetOffsetTuning(true),
            Command::SetRtlXtal(28_800_500),
            Command::SetTunerXtal(16_000_000),
            Command::SetBiasTee(true),
        ] {
            apply(c, &mut ctl).unwrap();
        }
        let s = ctl.settings();
        assert_eq!(
            s,
            Settings {
                center_freq: 1_090_000_000,
                sample_rate: 2_400_000,
                manual_gain: true,
                gain_tenth_db: 496,
                ppm: -12,
                if_gain: Some((3, -20)),
                test_mode: true,
                agc: true,
                direct_sampling: DirectSampling::QBranch,
                offset_tuning: true,
                rtl_xtal: 28_800_500,
                tuner_xtal: 16_000_000,
                bias_tee: true,
            }
        );
        apply(Command::SetGainByIndex(5), &mut ctl).unwrap();
        assert_eq!(ctl.settings().gain_tenth_db, 77);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn test_control_refuses_bad_values() {
        let p = temp_file("bad.cu8", &[0; 4]);
        let (_src, mut ctl) = open(&p, 2_048_000, false).unwrap();
        let before = ctl.settings();
        for (c, e) in [
            (
                Command::SetSampleRate(300_001),
                SettingError::SampleRate(300_001),
            ),
            (Command::SetSampleRate(0), SettingError::SampleRate(0)),
            (
                Command::SetGainByIndex(29),
                SettingError::GainIndex {
                    index: 29,
                    count: 29,
                },
            ),
            (
                Command::SetDirectSampling(DirectSampling::Other(3)),
                SettingError::DirectSampling(3),
            ),
            (
                Command::SetRtlXtal(28_802_000),
                SettingError::RtlXtal(28_802_000),
            ),
            (Command::SetTunerXtal(0), SettingError::TunerXtal(0)),
            (Command::SetCenterFreq(0), SettingError::CenterFreq(0)),
        ] {
            match apply(c, &mut ctl) {
                Err(ApplyError::Control(got)) => assert_eq!(got, e),
                other => panic!("{c}: {other:?}"),
            }
        }
        assert!(matches!(
            apply(Command::Unknown(0x40, 1), &mut ctl),
            Err(ApplyError::Unknown(0x40, 1))
        ));
        assert_eq!(ctl.settings(), before);
        assert!(open(&p, 100, false).is_err());
        assert!(open(Path::new("/nonexistent/x.cu8"), 2_048_000, false).is_err());
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn test_source_reads_paced_and_ends() {
        let data: Vec<u8> = (0..12_000u32).map(|i| i as u8).collect();
        let p = temp_file("pace.cu8", &data);
        // 250 kHz: 500 000 bytes/s, so 12 000 bytes take 24 ms.
        let (mut src, _ctl) = open(&p, 250_000, false).unwrap();
        src.start().unwrap();
        let t0 = Instant::now();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = src.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        let dt = t0.elapsed();
        assert_eq!(got, data);
        assert!(dt >= Duration::from_millis(23), "{dt:?}");
        assert!(dt < Duration::from_secs(10), "{dt:?}");
        // A new session starts again at the beginning.
        src.start().unwrap();
        assert_eq!(src.read(&mut buf).unwrap(), 4096);
        assert_eq!(buf[..4], [0, 1, 2, 3]);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn test_rate_command_changes_pace() {
        let data = vec![7u8; 200_000];
        let p = temp_file("rate.cu8", &data);
        let (mut src, mut ctl) = open(&p, 3_200_000, false).unwrap();
        src.start().unwrap();
        let mut buf = vec![0u8; 65_536];
        // 3.2 Msps: 128 000 bytes take 20 ms.
        let t0 = Instant::now();
        let mut n = 0;
        while n < 128_000 {
            n += src.read(&mut buf).unwrap();
        }
        let fast = t0.elapsed();
        // 250 kHz: 20 000 bytes take 40 ms.
        ctl.set_sample_rate(250_000).unwrap();
        let t1 = Instant::now();
        let mut m = 0;
        while m < 20_000 {
            m += src.read(&mut buf).unwrap();
        }
        let slow = t1.elapsed();
        // The change is seen: 20 000 bytes at 250 kHz take at least 40 ms,
        // and (on any machine) more than a tenth of what 6.4 times as many
        // bytes took at 3.2 MHz.
        assert!(slow >= Duration::from_millis(39), "{slow:?}");
        assert!(slow * 10 > fast, "{fast:?} {slow:?}");
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn test_source_loops() {
        let p = temp_file("loop.cu8", &[1, 2, 3, 4]);
        let (mut src, _ctl) = open(&p, 3_200_000, true).unwrap();
        src.start().unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 3];
        while got.len() < 10 {
            let n = src.read(&mut buf).unwrap();
            assert!(n > 0);
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(&got[..10], &[1, 2, 3, 4, 1, 2, 3, 4, 1, 2]);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn test_odd_length_loop_keeps_i_and_q() {
        // Five bytes: two pairs and half of one. The half pair is never
        // served, so I stays I on every pass.
        let p = temp_file("odd.cu8", &[1, 2, 3, 4, 5]);
        let (mut src, _ctl) = open(&p, 3_200_000, true).unwrap();
        src.start().unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 3];
        while got.len() < 12 {
            let n = src.read(&mut buf).unwrap();
            assert!(n > 0);
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(&got[..12], &[1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]);
        // Without looping the stream ends after the last whole pair.
        let (mut src, _ctl) = open(&p, 3_200_000, false).unwrap();
        src.start().unwrap();
        let mut all = Vec::new();
        loop {
            let n = src.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
        }
        assert_eq!(all, [1, 2, 3, 4]);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn test_directory_is_refused_at_open() {
        let e = open(&std::env::temp_dir(), 2_048_000, false).err().unwrap();
        let msg = e.to_string();
        assert!(msg.contains("directory"), "{msg}");
        assert!(
            msg.contains(&std::env::temp_dir().display().to_string()),
            "{msg}"
        );
    }
}
