//! `airwaves fm`, `airwaves am`, `airwaves nfm`: receivers with audio.
//!
//! ```text
//! source (dongle, --fake-device, --rtl-tcp, --ifile) ──▶ Demodulator ──▶ squelch ──▶ 48 kHz → audio rate ──▶ sink
//!   tuned `--offset` away from the station           (demod, narrow)    (--squelch)   (core resampler)       play / FILE.wav / -
//! ```
//!
//! - [`args`]: the command-line options.
//! - [`demod`]: the [`demod::Demodulator`] trait (cu8 in,
//!   48 kHz audio out, a status snapshot) and broadcast FM over
//!   `airwaves_core::fm` with RDS.
//! - [`narrow`]: AM (envelope, synchronous) and narrowband FM from any
//!   input rate, to be replaced by `core::am` behind the same trait.
//! - [`pipeline`]: the loop, the sinks and the audio-rate resampler.
//! - [`audio`]: the lock-free ring to the cpal callback, and playback.
//! - [`pcm`]: `f32` audio to 16-bit samples.
//! - [`wav`]: the WAV writer.
//! - [`status`]: the status line.
//!
//! A dongle or rtl_tcp server is tuned to the station less the offset
//! (−250 kHz for FM at 2.4 MS/s, −50 kHz for AM/NFM at 1.2 MS/s by
//! default), so the station is shifted back digitally and the DC spike at
//! the centre stays out of the channel. With `--ifile`, `--offset` says
//! where the station sits in the recording (default: the centre).
//!
//! Ctrl-C: the WAV header is rewritten every second, so an interrupted
//! file is valid up to the last second.

pub mod args;
pub mod audio;
pub mod demod;
pub mod narrow;
pub mod pcm;
pub mod pipeline;
pub mod status;
pub mod wav;

pub use args::{AmArgs, FmArgs, NfmArgs, ReceiverArgs};
pub use pipeline::RadioError;

use crate::cli::Gain;
use crate::error::CommandError;
use crate::source::Tuning;
use demod::{ConfigError, Demodulator, FmOptions, FmReceiver};
use narrow::{NarrowMode, NarrowOptions, NarrowReceiver};
use pipeline::Plan;

/// FM input rate, S/s.
const FM_RATE: u32 = airwaves_core::fm::wbfm::INPUT_RATE;
/// Default AM/NFM input rate, S/s.
const NARROW_RATE: u32 = 1_200_000;
/// Default offset of a live FM receiver from the station, Hz.
const FM_LIVE_OFFSET_HZ: f64 = -250e3;
/// Default offset of a live AM/NFM receiver from the station, Hz.
const NARROW_LIVE_OFFSET_HZ: f64 = -50e3;

/// The station's offset in the I/Q and the tuning that puts it there.
fn tuning(rx: &ReceiverArgs, rate: u32, live_offset: f64) -> Result<(f64, Tuning), ConfigError> {
    let offset = rx.offset.unwrap_or(if rx.source.ifile.is_some() {
        0.0
    } else {
        live_offset
    });
    let centre = rx.freq as f64 - offset;
    if centre < 0.0 {
        return Err(ConfigError::CentreBelowZero(offset));
    }
    Ok((
        offset,
        Tuning::new(&rx.tuning, Some(centre.round() as u64), rate),
    ))
}

fn plan(
    name: &'static str,
    rx: &ReceiverArgs,
    mut tuning: Tuning,
    demod: Box<dyn Demodulator>,
) -> Plan {
    // `--gain auto` on a live source: the headroom loop, from mid-range.
    let auto_gain = rx.tuning.gain == Gain::Auto && rx.source.ifile.is_none();
    if auto_gain {
        tuning.gain = Some(pipeline::GAIN_START_TENTHS);
    }
    Plan {
        auto_gain,
        name,
        freq: rx.freq,
        tuning,
        source: rx.source.clone(),
        demod,
        squelch: rx.squelch,
        audio_rate: rx.audio_rate,
        audio_device: rx.audio_device.clone(),
        out: rx.out.clone(),
    }
}

impl From<RadioError> for CommandError {
    fn from(e: RadioError) -> Self {
        CommandError::Radio(Box::new(e))
    }
}

/// `airwaves fm`.
///
/// # Errors
/// [`CommandError::Radio`] for bad options, no sound card, or a failing
/// source.
pub fn run_fm(args: &FmArgs) -> Result<(), CommandError> {
    Ok(fm(args)?)
}

fn fm(args: &FmArgs) -> Result<(), RadioError> {
    let rate = args.rx.rate.unwrap_or(FM_RATE);
    if rate != FM_RATE {
        return Err(ConfigError::FmRate(rate).into());
    }
    let (offset, tuning) = tuning(&args.rx, rate, FM_LIVE_OFFSET_HZ)?;
    let demod = FmReceiver::new(&FmOptions {
        offset_hz: offset,
        stereo: !args.mono,
        deemph_us: if args.deemph == "50" { 50 } else { 75 },
        rds: args.rds,
    })?;
    pipeline::run(plan("fm", &args.rx, tuning, Box::new(demod)))
}

fn narrow(name: &'static str, rx: &ReceiverArgs, mode: NarrowMode) -> Result<(), RadioError> {
    let rate = rx.rate.unwrap_or(NARROW_RATE);
    let (offset, tuning) = tuning(rx, rate, NARROW_LIVE_OFFSET_HZ)?;
    let demod = NarrowReceiver::new(&NarrowOptions {
        rate,
        offset_hz: offset,
        mode,
    })?;
    pipeline::run(plan(name, rx, tuning, Box::new(demod)))
}

/// `airwaves am`.
///
/// # Errors
/// [`CommandError::Radio`] for bad options, no sound card, or a failing
/// source.
pub fn run_am(args: &AmArgs) -> Result<(), CommandError> {
    let mode = if args.sync {
        NarrowMode::SyncAm
    } else {
        NarrowMode::Am
    };
    Ok(narrow("am", &args.rx, mode)?)
}

/// `airwaves nfm`.
///
/// # Errors
/// [`CommandError::Radio`] for bad options, no sound card, or a failing
/// source.
pub fn run_nfm(args: &NfmArgs) -> Result<(), CommandError> {
    Ok(narrow("nfm", &args.rx, NarrowMode::Nfm)?)
}
