//! The narrowband receiver (`core::am::receiver::Receiver`) on arbitrary
//! `cu8` I/Q with a fuzzer-chosen configuration: envelope AM, synchronous
//! AM or NBFM, any channel filter, with or without voice band and AGC, no
//! squelch, level squelch or noise squelch, any input and audio rate.
//!
//! Checks:
//! - an invalid configuration comes back from `Receiver::new` as the
//!   documented `ConfigError` (input rate, offset, audio rate, noise
//!   squelch outside NBFM), never a panic;
//! - the audio is finite and bounded (`AUDIO_BOUND` × the chain's unit:
//!   ±1.0 = the AM envelope, `f_ch / (2 Δf)` the largest NBFM reading,
//!   times the AGC's largest gain);
//! - a fresh receiver gives at most `max_output(n)` samples; a buffer one
//!   short is refused with `OutputTooShort` and nothing processed;
//! - the audio (bit for bit) and the final squelch / lock state do not
//!   depend on how the stream is split into blocks.
//!
//! Input layout (missing bytes read as 0): `flags`, `reps`, three `u16`
//! cut points (little-endian, as fractions of the stream: `c · n / 2¹⁶`),
//! then parameters, each a selector byte `s` (even: entry `s/2` of a table
//! of sensible values; odd: the next 4 bytes, an `f32` bit pattern, or for
//! rates a `u32`), in this order: input rate, offset (table: fractions of
//! the rate), audio rate; for synchronous AM the tracking and acquisition
//! bandwidths and the largest offset; for NBFM the deviation and the
//! de-emphasis; with AGC its target, attack, decay, hang and largest gain;
//! with a squelch its open threshold, hysteresis, hang, smoothing and
//! floor rise. The rest is the I/Q stream, interleaved `I, Q` bytes,
//! repeated `1 + reps % 64` times (at most `MAX_PAIRS` pairs) so that short
//! inputs reach past the chain's warm-up.
//!
//! `flags`: bits 0–1 mode (envelope, synchronous, NBFM, NBFM without
//! de-emphasis), bits 2–3 channel filter, bits 4–5 squelch (none, level,
//! noise, level), bit 6 voice band, bit 7 AGC.
#![no_main]

use airwaves_core::am::ConfigError;
use airwaves_core::am::front::{ChannelFilter, MAX_INPUT_RATE, MIN_INPUT_RATE};
use airwaves_core::am::receiver::{Mode, Receiver, ReceiverConfig, SquelchKind};
use airwaves_core::am::squelch::SquelchParams;
use airwaves_core::am::sync::SyncParams;
use airwaves_core::dsp::agc::AgcParams;
use libfuzzer_sys::fuzz_target;

#[path = "../support/reader.rs"]
mod reader;
use reader::Reader;

/// Longest stream after repetition, I/Q pairs (68 ms at 240 kS/s: past
/// the squelch's 50 ms warm-up at the default smoothing, and about 10 ms
/// per input under AddressSanitizer).
const MAX_PAIRS: usize = 16_384;
/// Largest audio magnitude per unit of the chain's scale: the gains of
/// the channel filter, the half-bands, the DC blocker, the voice band-pass
/// and the resampler (each at most about 2 on any input) multiplied.
const AUDIO_BOUND: f64 = 64.0;

const INPUT_RATES: [u32; 12] = [
    300_000, 2_400_000, 240_000, 1_024_000, 1_200_000, 2_048_000, 3_200_000, 1_800_000, 960_000,
    250_000, 2_560_000, 1_400_000,
];
const AUDIO_RATES: [u32; 9] = [
    48_000, 44_100, 8_000, 16_000, 22_050, 96_000, 24_000, 11_025, 32_000,
];
const FILTERS: [ChannelFilter; 4] = [
    ChannelFilter::Am8k33,
    ChannelFilter::Am25k,
    ChannelFilter::Nbfm12k5,
    ChannelFilter::Nbfm25k,
];

/// The receiver over `iq` in blocks ending at `ends` (sorted, the last is
/// `iq.len()`); before each non-empty block, a call with an output one
/// sample short must fail and change nothing.
fn run(rx: &Receiver, iq: &[[u8; 2]], ends: &[usize]) -> (Vec<f32>, bool, bool) {
    let mut s = rx.state();
    let mut out = Vec::new();
    let mut start = 0;
    for &end in ends {
        let x = &iq[start..end];
        let want = rx.max_output(x.len());
        let mut y = vec![0.0f32; want];
        if want > 0 {
            let e = rx.process(&mut s, x, &mut y[..want - 1]).unwrap_err();
            assert_eq!((e.expected, e.got), (want, want - 1));
        }
        let n = rx.process(&mut s, x, &mut y).expect("sized by max_output");
        assert!(n <= want, "{n} > max_output {want}");
        out.extend_from_slice(&y[..n]);
        start = end;
    }
    (out, s.squelch_open(), s.locked())
}

fuzz_target!(|data: &[u8]| {
    let mut r = Reader { d: data };
    let flags = r.u8();
    let reps = 1 + usize::from(r.u8() % 64);
    let cuts = [r.u16(), r.u16(), r.u16()];
    let input_rate = r.rate(&INPUT_RATES, MIN_INPUT_RATE, MAX_INPUT_RATE);
    let fs = f64::from(input_rate);
    let offset_hz = match r.u8() {
        s if s.is_multiple_of(2) => {
            [0.2, 0.0, -0.3, 0.45, -0.458, 0.1][usize::from(s / 2) % 6] * fs
        }
        _ => f64::from(f32::from_bits(r.u32())),
    };
    let audio_rate = r.rate(&AUDIO_RATES, 8_000, 96_000);
    let mode = match flags & 3 {
        0 => Mode::Envelope,
        1 => Mode::Synchronous(SyncParams {
            track_bw_hz: r.param(&[30.0, 5.0, 100.0, 900.0]),
            acquire_bw_hz: r.param(&[300.0, 50.0, 900.0, 10.0]),
            max_offset_hz: r.param(&[2000.0, 100.0, 9000.0, 1e9]),
        }),
        m => Mode::Nbfm {
            deviation_hz: r.param(&[5000.0, 2500.0, 300.0, 9000.0]),
            tau: (m == 2).then(|| r.param(&[750e-6, 75e-6, 50e-6, 0.5])),
        },
    };
    let agc = (flags & 0x80 != 0).then(|| AgcParams {
        target: r.param(&[0.3, 1.0, 0.01]),
        attack: r.param(&[5e-3, 1e-4, 0.1]),
        decay: r.param(&[0.5, 0.01, 5.0]),
        hang: r.param(&[0.3, 0.0, 0.01]),
        max_gain: r.param(&[1000.0, 1.0, 1e5]),
    });
    let kind = match (flags >> 4) & 3 {
        0 => None,
        2 => Some(SquelchKind::Noise),
        _ => Some(SquelchKind::Level),
    };
    let squelch = kind.map(|k| {
        let p = SquelchParams {
            open_db: r.param(&[6.0, 3.0, 10.0, 0.0, 20.0, -200.0]),
            hysteresis_db: r.param(&[3.0, 0.0, 1.0, 6.0]),
            hang: r.param(&[0.2, 0.0, 0.01, 0.05]),
            smoothing: r.param(&[0.01, 1e-3, 1e-4, 0.1]),
            floor_rise_db_per_s: r.param(&[3.0, 0.0, 30.0, 1000.0]),
        };
        (k, p)
    });
    let cfg = ReceiverConfig {
        input_rate,
        offset_hz,
        filter: FILTERS[usize::from(flags >> 2) & 3],
        mode,
        audio_rate,
        voice_band: flags & 0x40 != 0,
        agc,
        squelch,
    };
    let rx = match Receiver::new(&cfg) {
        Ok(rx) => rx,
        Err(e) => {
            // The documented reasons, checked in order.
            let rate_ok = (MIN_INPUT_RATE..=MAX_INPUT_RATE).contains(&input_rate);
            // False for a NaN offset too.
            let offset_ok = offset_hz.abs() < fs / 2.0 - 10e3;
            if !rate_ok {
                assert_eq!(e, ConfigError::InputRate, "{cfg:?}");
            } else if !offset_ok {
                assert_eq!(e, ConfigError::Offset, "{cfg:?}");
            } else if !(8_000..=96_000).contains(&audio_rate) {
                assert_eq!(e, ConfigError::AudioRate, "{cfg:?}");
            }
            let nbfm = matches!(mode, Mode::Nbfm { .. });
            if kind == Some(SquelchKind::Noise) && !nbfm && rate_ok && e != ConfigError::Offset {
                assert!(
                    matches!(e, ConfigError::Parameter | ConfigError::AudioRate),
                    "{e:?} {cfg:?}"
                );
            }
            return;
        }
    };
    assert!((MIN_INPUT_RATE..=MAX_INPUT_RATE).contains(&input_rate));
    assert!(offset_hz.abs() < fs / 2.0 - 10e3, "{cfg:?}");
    assert!((8_000..=96_000).contains(&audio_rate), "{cfg:?}");

    let body: Vec<[u8; 2]> = r.d.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
    let n = (body.len() * reps).min(MAX_PAIRS);
    let iq: Vec<[u8; 2]> = body.iter().copied().cycle().take(n).collect();

    let (whole, open, locked) = run(&rx, &iq, &[n]);
    let mut ends: Vec<usize> = cuts
        .iter()
        .map(|&c| (usize::from(c) * n) >> 16)
        .chain([n])
        .collect();
    ends.sort_unstable();
    let (split, open2, locked2) = run(&rx, &iq, &ends);
    assert_eq!(whole.len(), split.len(), "block split changed the length");
    assert!(
        whole
            .iter()
            .zip(&split)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "block split changed the audio (ends {ends:?})"
    );
    assert_eq!((open, locked), (open2, locked2));

    let fs_ch = rx.channel_rate();
    let unit = match mode {
        Mode::Nbfm { deviation_hz, .. } => (fs_ch / (2.0 * deviation_hz)).max(1.0),
        _ => 1.0,
    };
    let gain = agc.map_or(1.0, |a| a.max_gain.max(1.0));
    let bound = AUDIO_BOUND * unit * gain;
    for (i, &v) in whole.iter().enumerate() {
        assert!(v.is_finite(), "audio[{i}] = {v} ({cfg:?})");
        assert!(
            f64::from(v.abs()) <= bound,
            "audio[{i}] = {v}, bound {bound} ({cfg:?})"
        );
    }
});
