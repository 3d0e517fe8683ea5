//! What to tune: [`Tuning`] (frequency, rate, gain or tuner AGC, ppm,
//! bias tee, test mode), applied the same way to every source: driver calls
//! for a dongle ([`tune_device`]), rtl_tcp commands for a server
//! ([`tuning_commands`]); a recording uses only the rate (for pacing).

use crate::cli::TuningArgs;
use crate::rtl::device::Device;
use crate::rtl::r82xx;
use crate::rtltcp::protocol::Command;

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
    pub fn new(args: &TuningArgs, freq: Option<u64>, rate: u32) -> Tuning {
        Tuning {
            freq,
            rate,
            gain: args.gain.tuner(),
            ppm: args.ppm,
            bias_tee: args.bias_tee,
            test_mode: false,
        }
    }
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

#[cfg(test)]
pub(super) mod test {
    use super::*;

    /// 1090 MHz at `rate`, 49.6 dB: the tests' tuning.
    pub(in crate::source) fn tuning(rate: u32) -> Tuning {
        Tuning {
            freq: Some(1_090_000_000),
            rate,
            gain: Some(496),
            ppm: 0,
            bias_tee: false,
            test_mode: false,
        }
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
}
