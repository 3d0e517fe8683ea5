//! The seam between the rtl_tcp server and what it serves: [`Control`]
//! takes the 14 rtl_tcp settings, [`crate::source::SampleSource`] (the
//! one source seam of every command) yields the I/Q bytes.
//!
//! Two halves, so that commands (one thread) and streaming (another) never
//! wait for each other. Implemented by [`super::file::FileControl`] /
//! [`super::file::FileSource`] (a `.cu8` recording) and, for a dongle or the
//! emulator, by [`super::serve::DongleControl`] /
//! [`super::serve::DongleSource`].

use super::protocol::{Command, DirectSampling, Header};
use std::fmt;

/// The settings an rtl_tcp client can change, one method per command.
///
/// Each call applies one setting and reports failure (out of range, device
/// error) through `Self::Error`; a failed call leaves the previous setting in
/// force.
pub trait Control: Send {
    /// Error of a failed setting.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Tuner type and gain count announced to each client.
    fn header(&self) -> Header;
    /// 0x01: centre frequency, Hz.
    fn set_center_freq(&mut self, hz: u32) -> Result<(), Self::Error>;
    /// 0x02: sample rate, Hz (the RTL2832U takes 225 001–300 000 and
    /// 900 001–3 200 000).
    fn set_sample_rate(&mut self, hz: u32) -> Result<(), Self::Error>;
    /// 0x03: `true` = manual gain, `false` = tuner AGC.
    fn set_gain_mode(&mut self, manual: bool) -> Result<(), Self::Error>;
    /// 0x04: tuner gain, tenths of a dB (takes effect in manual mode).
    fn set_gain(&mut self, tenth_db: i32) -> Result<(), Self::Error>;
    /// 0x05: frequency correction, ppm.
    fn set_freq_correction(&mut self, ppm: i32) -> Result<(), Self::Error>;
    /// 0x06: IF gain of `stage`, tenths of a dB.
    fn set_if_gain(&mut self, stage: u16, tenth_db: i16) -> Result<(), Self::Error>;
    /// 0x07: stream the 8-bit test counter instead of samples.
    fn set_test_mode(&mut self, on: bool) -> Result<(), Self::Error>;
    /// 0x08: RTL2832 digital AGC.
    fn set_agc_mode(&mut self, on: bool) -> Result<(), Self::Error>;
    /// 0x09: direct sampling.
    fn set_direct_sampling(&mut self, mode: DirectSampling) -> Result<(), Self::Error>;
    /// 0x0a: offset tuning.
    fn set_offset_tuning(&mut self, on: bool) -> Result<(), Self::Error>;
    /// 0x0b: RTL2832 crystal, Hz.
    fn set_rtl_xtal(&mut self, hz: u32) -> Result<(), Self::Error>;
    /// 0x0c: tuner crystal, Hz.
    fn set_tuner_xtal(&mut self, hz: u32) -> Result<(), Self::Error>;
    /// 0x0d: tuner gain by index into the tuner's gain list
    /// (0 ..= gain count − 1).
    fn set_gain_by_index(&mut self, index: u32) -> Result<(), Self::Error>;
    /// 0x0e: bias tee (antenna power).
    fn set_bias_tee(&mut self, on: bool) -> Result<(), Self::Error>;
}

/// Why [`apply`] did not apply a command.
#[derive(Debug)]
pub enum ApplyError<E> {
    /// The code is not one of the 14 rtl_tcp commands; ignored, as rtl_tcp does.
    Unknown(u8, u32),
    /// The control refused or failed.
    Control(E),
}

impl<E: fmt::Display> fmt::Display for ApplyError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplyError::Unknown(c, p) => write!(f, "unknown command 0x{c:02x} (param {p}) ignored"),
            ApplyError::Control(e) => e.fmt(f),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for ApplyError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ApplyError::Unknown(..) => None,
            ApplyError::Control(e) => Some(e),
        }
    }
}

/// Apply one decoded command to `control`.
pub fn apply<C: Control + ?Sized>(
    command: Command,
    control: &mut C,
) -> Result<(), ApplyError<C::Error>> {
    let r = match command {
        Command::SetCenterFreq(hz) => control.set_center_freq(hz),
        Command::SetSampleRate(hz) => control.set_sample_rate(hz),
        Command::SetGainMode { manual } => control.set_gain_mode(manual),
        Command::SetGain(g) => control.set_gain(g),
        Command::SetFreqCorrection(ppm) => control.set_freq_correction(ppm),
        Command::SetIfGain { stage, gain } => control.set_if_gain(stage, gain),
        Command::SetTestMode(on) => control.set_test_mode(on),
        Command::SetAgcMode(on) => control.set_agc_mode(on),
        Command::SetDirectSampling(m) => control.set_direct_sampling(m),
        Command::SetOffsetTuning(on) => control.set_offset_tuning(on),
        Command::SetRtlXtal(hz) => control.set_rtl_xtal(hz),
        Command::SetTunerXtal(hz) => control.set_tuner_xtal(hz),
        Command::SetGainByIndex(i) => control.set_gain_by_index(i),
        Command::SetBiasTee(on) => control.set_bias_tee(on),
        Command::Unknown(c, p) => return Err(ApplyError::Unknown(c, p)),
    };
    r.map_err(ApplyError::Control)
}
