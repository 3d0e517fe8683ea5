//! The FM stages: 100 ms of broadcast FM (cu8 at 2.4 MS/s, a 1 kHz tone)
//! through the integer mono receiver ([`MonoReceiverQ15`]) and through the
//! `f32` front end and mono decoder, 1 ms (2400 samples) per call.
//!
//! Printed per chain: the audio's FNV-1a 64 checksum (over the Q15 samples
//! as little-endian `i16`, or the `f32` samples' IEEE bits as
//! little-endian `u32`), which the host recomputes with the same chain on
//! the same input; the audio level (RMS, dB re full scale) and the tone's
//! SNR after the first 20 ms. Only the receivers are timed.

use airwaves_core::fm::channel::{ChannelFilter, ChannelFilterState};
use airwaves_core::fm::mono_q15::{CHANNEL_CUTOFF_HZ, MonoReceiverQ15, MonoReceiverQ15State};
use airwaves_core::fm::wbfm::{
    AUDIO_DECIMATION, AUDIO_RATE, FrontEnd, FrontEndState, MPX_DECIMATION, MonoDecoder,
    MonoDecoderState,
};
use cortex_m_semihosting::hprintln;

use crate::Cost;
use crate::cost::{Calibration, Meter, Timer};
use crate::params::{FM_OFFSET_HZ, FM_TAU, FM_TONE_HZ};

/// Input samples per call (1 ms).
const BLOCK: usize = 2400;
/// Audio samples at most: 100 ms at 48 kHz.
const MAX_AUDIO: usize = 4800;
/// Audio samples skipped before measuring (20 ms: the filters settle).
const SETTLE: usize = 960;
const INPUT_RATE: u32 = airwaves_core::fm::wbfm::INPUT_RATE;

/// The Q15 receiver on `iq` (cu8 bytes); prints `fm_q15 …`.
///
/// # Errors
/// If the recording gives more audio than [`MAX_AUDIO`] or the receiver
/// cannot be configured.
pub fn run_q15(iq: &[u8], timer: &Timer, cal: &Calibration) -> Result<Cost, &'static str> {
    let rx = MonoReceiverQ15::new(FM_OFFSET_HZ, FM_TAU).ok_or("bad FM receiver settings")?;
    let mut state = MonoReceiverQ15State::default();
    let (pairs, _) = iq.as_chunks::<2>();
    let mut audio = [0i16; MAX_AUDIO];
    let mut n = 0;
    let mut meter = Meter::new(timer, cal);
    for block in pairs.chunks(BLOCK) {
        let out = audio.get_mut(n..).ok_or("audio buffer full")?;
        n += meter
            .time(block.len(), || rx.process(&mut state, block, out))
            .map_err(|_| "audio buffer too short")?;
    }
    let audio = &audio[..n];
    let mut sum = Fnv1a::new();
    for v in audio {
        sum.write(&v.to_le_bytes());
    }
    let x = |i: usize| f64::from(audio[i]) / 32768.0;
    report("fm_q15", pairs.len(), n, sum.0, &x, &meter)
}

/// The `f32` front end (mono channel filter) and mono decoder on `iq`;
/// prints `fm_f32 …`.
///
/// # Errors
/// If the recording gives more audio than [`MAX_AUDIO`].
pub fn run_f32(iq: &[u8], timer: &Timer, cal: &Calibration) -> Result<Cost, &'static str> {
    let fe = FrontEnd::with_cutoff(FM_OFFSET_HZ, CHANNEL_CUTOFF_HZ).ok_or("bad FM front end")?;
    let dec = MonoDecoder::new(FM_TAU);
    let mut fe_state = FrontEndState::default();
    let mut dec_state = MonoDecoderState::default();
    let (pairs, _) = iq.as_chunks::<2>();
    let mut mpx = [0.0f32; BLOCK / MPX_DECIMATION];
    let mut audio = [0.0f32; MAX_AUDIO];
    let mut n = 0;
    let mut meter = Meter::new(timer, cal);
    for block in pairs.chunks(BLOCK) {
        let out = audio.get_mut(n..).ok_or("audio buffer full")?;
        n += meter.time(block.len(), || {
            let m = fe
                .process(&mut fe_state, block, &mut mpx)
                .map_err(|_| "MPX buffer too short")?;
            dec.process(&mut dec_state, &mpx[..m], out)
                .map_err(|_| "audio buffer too short")
        })?;
    }
    let audio = &audio[..n];
    let mut sum = Fnv1a::new();
    for v in audio {
        sum.write(&v.to_bits().to_le_bytes());
    }
    let x = |i: usize| f64::from(audio[i]);
    report("fm_f32", pairs.len(), n, sum.0, &x, &meter)
}

/// The integer channel filter alone (cu8 → complex `i32` at 240 kS/s, the
/// first block of both chains), to show where their cost goes; prints
/// `fm_channel …` with an XOR of its outputs.
///
/// # Errors
/// None in practice; the signature matches the other stages.
pub fn run_channel(iq: &[u8], timer: &Timer, cal: &Calibration) -> Result<Cost, &'static str> {
    let fs = f64::from(INPUT_RATE);
    let cf = ChannelFilter::new(FM_OFFSET_HZ / fs, CHANNEL_CUTOFF_HZ / fs);
    let mut state = ChannelFilterState::default();
    let (pairs, _) = iq.as_chunks::<2>();
    let mut fold = 0u32;
    let mut outputs = 0usize;
    let mut meter = Meter::new(timer, cal);
    for block in pairs.chunks(BLOCK) {
        meter.time(block.len(), || {
            cf.process(&mut state, block, |z| {
                fold = fold.rotate_left(5) ^ z[0] as u32 ^ (z[1] as u32).rotate_left(16);
                outputs += 1;
            });
        });
    }
    let (instructions, mean, worst) = (meter.instructions(), meter.mean(), meter.worst());
    hprintln!(
        "fm_channel done samples {} outputs {} fold {:08x} instructions {:.0} per_sample {:.1} worst_block_per_sample {:.1}",
        pairs.len(),
        outputs,
        fold,
        instructions,
        mean,
        worst
    );
    Ok(Cost {
        chain: "fm_channel",
        rate_hz: INPUT_RATE,
        mean,
        worst,
    })
}

/// Print the `<chain> done …` line and return the cost row.
fn report(
    chain: &'static str,
    samples: usize,
    audio_len: usize,
    checksum: u64,
    x: &dyn Fn(usize) -> f64,
    meter: &Meter<'_>,
) -> Result<Cost, &'static str> {
    if audio_len != samples / (MPX_DECIMATION * AUDIO_DECIMATION) || audio_len <= SETTLE {
        return Err("unexpected audio length");
    }
    let (level_db, snr_db) = tone(x, SETTLE, audio_len);
    let (instructions, mean, worst) = (meter.instructions(), meter.mean(), meter.worst());
    hprintln!(
        "{} done samples {} audio {} fnv1a64 {:016x} level_dbfs {:.2} tone_snr_db {:.1} instructions {:.0} per_sample {:.1} worst_block_per_sample {:.1}",
        chain,
        samples,
        audio_len,
        checksum,
        level_db,
        snr_db,
        instructions,
        mean,
        worst
    );
    Ok(Cost {
        chain,
        rate_hz: INPUT_RATE,
        mean,
        worst,
    })
}

/// Level (RMS, dB re full scale) and SNR (dB) of the test tone in
/// `x(from..to)`: the tone's power is the DFT bin at [`FM_TONE_HZ`]
/// (whole periods: 48 samples each at 48 kHz, so no leakage), the noise
/// everything else but DC.
fn tone(x: &dyn Fn(usize) -> f64, from: usize, to: usize) -> (f64, f64) {
    let period = (f64::from(AUDIO_RATE) / FM_TONE_HZ) as usize;
    let to = from + (to - from) / period * period;
    let len = (to - from) as f64;
    let w = core::f64::consts::TAU * FM_TONE_HZ / f64::from(AUDIO_RATE);
    let (mut re, mut im, mut dc, mut power) = (0.0, 0.0, 0.0, 0.0);
    for i in from..to {
        let v = x(i);
        let phase = w * (i - from) as f64;
        re += v * libm::cos(phase);
        im += v * libm::sin(phase);
        dc += v;
        power += v * v;
    }
    let power = power / len;
    let tone = 2.0 * (re * re + im * im) / (len * len);
    let dc = (dc / len) * (dc / len);
    let noise = (power - tone - dc).max(1e-30);
    (10.0 * libm::log10(power), 10.0 * libm::log10(tone / noise))
}

/// FNV-1a, 64 bits.
struct Fnv1a(u64);

impl Fnv1a {
    fn new() -> Self {
        Self(0xCBF2_9CE4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
}
