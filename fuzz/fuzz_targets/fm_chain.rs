//! The wideband FM chains on arbitrary `cu8` I/Q at 2.4 MS/s with a
//! fuzzer-chosen configuration: `fm::wbfm::FrontEnd` (offset, channel
//! cutoff, click suppression) to the multiplex, then the mono decoder, the
//! stereo decoder (blend thresholds from the input) and the RDS decoder on
//! that multiplex, as the host wires them; and the fixed-point mono
//! receiver `fm::mono_q15::MonoReceiverQ15` on the same I/Q.
//!
//! Checks:
//! - the constructors refuse exactly the configurations their docs name
//!   (`FrontEnd::with_channel`: cutoff outside 50–200 kHz or |offset| >
//!   1 MHz; `MonoReceiverQ15::new`: |offset| > 1 MHz or `tau` not finite
//!   and positive); the decoders are built only with a valid `tau`, their
//!   documented precondition;
//! - the multiplex is finite and within ±`MPX_BOUND` (the discriminator
//!   reads at most π rad per sample, 1.6 × full deviation, and the 7-tap
//!   equaliser adds less than its 1.5 gain); mono and stereo audio are
//!   finite and within ±`AUDIO_BOUND` (`L, R = m ± d` with |d| ≤ 2|m| in
//!   the worst case);
//! - each stage gives at most its `max_output`, and a buffer one short is
//!   refused with `OutputTooShort`;
//! - the multiplex, the click count, the audio (bit for bit), the blend
//!   and the RDS groups do not depend on how the I/Q or the multiplex is
//!   split into blocks.
//!
//! Input layout (missing bytes read as 0): `flags` (bit 0: click
//! suppression off; bit 1: the 192-tap channel filter), `reps`, three `u16` cut points of the I/Q and one of
//! the multiplex (little-endian, fractions `c · n / 2¹⁶`), then
//! parameters, each a selector byte `s` (even: entry `s/2` of a table;
//! odd: the next 4 bytes as an `f32`): offset, cutoff, de-emphasis `tau`,
//! blend low and high (dB). The rest is the I/Q, interleaved `I, Q`
//! bytes, repeated `1 + reps % 64` times (at most `MAX_PAIRS` pairs).
#![no_main]

use airwaves_core::fm::channel::Taps;
use airwaves_core::fm::mono_q15::MonoReceiverQ15;
use airwaves_core::fm::stereo::StereoDecoder;
use airwaves_core::fm::wbfm::{FrontEnd, MPX_RATE, MonoDecoder};
use airwaves_core::rds::decoder::{Decoder, DecoderState};
use airwaves_core::rds::group::Group;
use libfuzzer_sys::fuzz_target;

#[path = "../support/reader.rs"]
mod reader;
use reader::Reader;

/// Longest stream after repetition, I/Q pairs (6.8 ms at 2.4 MS/s, 1638
/// multiplex samples: 25 blend updates).
const MAX_PAIRS: usize = 16_384;
/// Largest |MPX| (see the module docs).
const MPX_BOUND: f32 = 1.6 * 1.5;
/// Largest |audio|: the MPX bound times the gains of the de-emphasis,
/// resampler and audio filter (at most 2 together), times 3 for `m ± d`.
const AUDIO_BOUND: f32 = MPX_BOUND * 2.0 * 3.0;

/// Block ends: the cuts as fractions of `n`, sorted, then `n`.
fn ends(cuts: &[u16], n: usize) -> Vec<usize> {
    let mut e: Vec<usize> = cuts
        .iter()
        .map(|&c| (usize::from(c) * n) >> 16)
        .chain([n])
        .collect();
    e.sort_unstable();
    e
}

fn same(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn check_range(x: &[f32], bound: f32, what: &str) {
    for (i, &v) in x.iter().enumerate() {
        assert!(v.is_finite() && v.abs() <= bound, "{what}[{i}] = {v}");
    }
}

fn front(fe: &FrontEnd, iq: &[[u8; 2]], ends: &[usize]) -> (Vec<f32>, u32) {
    let mut s = Default::default();
    let mut out = Vec::new();
    let mut start = 0;
    for &end in ends {
        let x = &iq[start..end];
        let want = fe.max_output(x.len());
        let mut y = vec![0.0f32; want];
        if want > 0 {
            assert!(fe.process(&mut s, x, &mut y[..want - 1]).is_err());
        }
        let n = fe.process(&mut s, x, &mut y).expect("sized by max_output");
        assert!(n <= want);
        out.extend_from_slice(&y[..n]);
        start = end;
    }
    (out, s.clicks())
}

fn mono(d: &MonoDecoder, mpx: &[f32], ends: &[usize]) -> Vec<f32> {
    let mut s = Default::default();
    let mut out = Vec::new();
    let mut start = 0;
    for &end in ends {
        let x = &mpx[start..end];
        let want = d.max_output(x.len());
        let mut y = vec![0.0f32; want];
        if want > 0 {
            assert!(d.process(&mut s, x, &mut y[..want - 1]).is_err());
        }
        let n = d.process(&mut s, x, &mut y).expect("sized by max_output");
        assert!(n <= want);
        out.extend_from_slice(&y[..n]);
        start = end;
    }
    out
}

fn stereo(d: &StereoDecoder, mpx: &[f32], ends: &[usize]) -> (Vec<f32>, Vec<f32>, u32) {
    let mut s = Default::default();
    let (mut left, mut right) = (Vec::new(), Vec::new());
    let mut start = 0;
    for &end in ends {
        let x = &mpx[start..end];
        let want = d.max_output(x.len());
        let (mut l, mut r) = (vec![0.0f32; want], vec![0.0f32; want]);
        if want > 0 {
            assert!(d.process(&mut s, x, &mut l, &mut r[..want - 1]).is_err());
        }
        let n = d.process(&mut s, x, &mut l, &mut r).expect("sized");
        assert!(n <= want);
        left.extend_from_slice(&l[..n]);
        right.extend_from_slice(&r[..n]);
        start = end;
    }
    assert!((0.0..=1.0).contains(&s.blend()), "blend {}", s.blend());
    (left, right, s.blend().to_bits())
}

fn rds(d: &Decoder, mpx: &[f32], ends: &[usize]) -> Vec<Group> {
    let mut s = DecoderState::new();
    let mut out = Vec::new();
    let mut start = 0;
    for &end in ends {
        d.process_block(&mut s, &mpx[start..end], |g| out.push(*g));
        start = end;
    }
    out
}

fn q15(rx: &MonoReceiverQ15, iq: &[[u8; 2]], ends: &[usize]) -> (Vec<i16>, u32) {
    let mut s = Default::default();
    let mut out = Vec::new();
    let mut start = 0;
    for &end in ends {
        let x = &iq[start..end];
        let want = rx.max_output(x.len());
        let mut y = vec![0i16; want];
        if want > 0 {
            assert!(rx.process(&mut s, x, &mut y[..want - 1]).is_err());
        }
        let n = rx.process(&mut s, x, &mut y).expect("sized by max_output");
        assert!(n <= want);
        out.extend_from_slice(&y[..n]);
        start = end;
    }
    (out, s.clicks())
}

fuzz_target!(|data: &[u8]| {
    let mut r = Reader { d: data };
    let flags = r.u8();
    let reps = 1 + usize::from(r.u8() % 64);
    let iq_cuts = [r.u16(), r.u16(), r.u16()];
    let mpx_cut = [r.u16()];
    let offset = r.param(&[-250e3, 0.0, 300e3, 1e6, -1e6, 600e3]);
    let cutoff = r.param(&[170e3, 120e3, 50e3, 200e3]);
    let tau = r.param(&[50e-6, 75e-6, 1e-6, 1e-3]);
    let blend_low = r.param(&[47.0, 0.0, 30.0]);
    let blend_high = r.param(&[55.0, 47.0, 90.0]);

    let body: Vec<[u8; 2]> = r.d.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
    let n = (body.len() * reps).min(MAX_PAIRS);
    let iq: Vec<[u8; 2]> = body.iter().copied().cycle().take(n).collect();
    let iq_ends = ends(&iq_cuts, n);
    let offset_ok = (-1e6..=1e6).contains(&offset);
    let tau_ok = tau.is_finite() && tau > 0.0;

    let q = MonoReceiverQ15::new(offset, tau);
    assert_eq!(q.is_some(), offset_ok && tau_ok, "{offset} {tau}");
    if let Some(q) = q {
        let (a, ca) = q15(&q, &iq, &[n]);
        let (b, cb) = q15(&q, &iq, &iq_ends);
        assert_eq!((a, ca), (b, cb), "Q15: block split changed the audio");
    }

    let taps = if flags & 2 == 0 {
        Taps::Fast
    } else {
        Taps::Sharp
    };
    let fe = FrontEnd::with_channel(offset, cutoff, taps);
    assert_eq!(
        fe.is_some(),
        offset_ok && (50e3..=200e3).contains(&cutoff),
        "{offset} {cutoff}"
    );
    let Some(fe) = fe else { return };
    let fe = fe.with_click_suppression(flags & 1 == 0);
    let (mpx, clicks) = front(&fe, &iq, &[n]);
    let (mpx2, clicks2) = front(&fe, &iq, &iq_ends);
    assert!(
        same(&mpx, &mpx2),
        "MPX: block split changed it ({iq_ends:?})"
    );
    assert_eq!(clicks, clicks2);
    check_range(&mpx, MPX_BOUND, "mpx");
    let mpx_ends = ends(&mpx_cut, mpx.len());

    let d = Decoder::new(f64::from(MPX_RATE)).expect("the MPX rate");
    assert_eq!(rds(&d, &mpx, &[mpx.len()]), rds(&d, &mpx, &mpx_ends));

    if !tau_ok {
        return;
    }
    let m = MonoDecoder::new(tau);
    let a = mono(&m, &mpx, &[mpx.len()]);
    assert!(same(&a, &mono(&m, &mpx, &mpx_ends)), "mono: split");
    check_range(&a, AUDIO_BOUND / 3.0, "mono");

    let mut s = StereoDecoder::new(tau);
    if blend_low.is_finite() && blend_high.is_finite() {
        s.blend_low_db = blend_low as f32;
        s.blend_high_db = blend_high as f32;
    }
    let (l, rr, b) = stereo(&s, &mpx, &[mpx.len()]);
    let (l2, r2, b2) = stereo(&s, &mpx, &mpx_ends);
    assert!(same(&l, &l2) && same(&rr, &r2) && b == b2, "stereo: split");
    check_range(&l, AUDIO_BOUND, "left");
    check_range(&rr, AUDIO_BOUND, "right");
});
