//! Tests of the FIR filters, decimators and designs.

extern crate std;

use super::kernels::quantise_q15_symmetric;
use super::*;
use crate::dsp::SplitProcess;
use crate::rng::Rng;
use crate::testing::{db, fir_response, fit_tone, proptest_config};
use core::f64::consts::PI;
use proptest::prelude::*;
use std::vec::Vec;

/// `y[t] = Σ h[k] x[t−k]` in f64.
fn conv(h: &[f64], x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|t| {
            h.iter()
                .enumerate()
                .take(t + 1)
                .map(|(k, &hk)| hk * x[t - k])
                .sum()
        })
        .collect()
}

fn to_f64<T: Tap>(h: &[T]) -> Vec<f64> {
    h.iter().map(|&t| t.to_f64()).collect()
}

/// Worst passband deviation (dB) up to `fp` and worst stop-band level
/// (dB, positive = attenuation) from `fs`, from the taps.
fn taps_spec(h: &[f64], fp: f64, fs: f64) -> (f64, f64) {
    let mut ripple = 0.0f64;
    let mut stop = 0.0f64;
    let pts = if cfg!(miri) { 16 } else { 2000 };
    for i in 0..=pts {
        let f = 0.5 * i as f64 / pts as f64;
        let m = fir_response(h, f);
        if f <= fp {
            ripple = ripple.max((20.0 * libm::log10(m)).abs());
        } else if f >= fs {
            stop = stop.max(m);
        }
    }
    (ripple, -20.0 * libm::log10(stop))
}

const CUTOFF: f64 = 0.1;
const ATTEN: f64 = 70.0;
// Transition width for 63 taps: (70 − 7.95) / (14.36 · 62) ≈ 0.0697.
const FP: f64 = 0.065;
const FS: f64 = 0.135;

fn lp() -> FirDesign {
    FirDesign::lowpass(CUTOFF, ATTEN)
}

#[test]
fn test_design_from_taps() {
    let mut h64 = [0.0; 63];
    lp().fill_f64(&mut h64);
    let f = Fir::<f32, 63>::design(&lp());
    let q = Fir::<i16, 63>::design(&lp());
    let (r64, s64) = taps_spec(&h64, FP, FS);
    let (r32, s32) = taps_spec(&to_f64(f.taps()), FP, FS);
    let (rq, sq) = taps_spec(&to_f64(q.taps()), FP, FS);
    assert!(
        s64 >= 68.0 && r64 < 0.01,
        "f64: {s64} dB stop, {r64} dB ripple"
    );
    assert!(
        s32 >= 68.0 && r32 < 0.01,
        "f32: {s32} dB stop, {r32} dB ripple"
    );
    assert!(sq >= 62.0 && rq < 0.01, "q15: {sq} dB stop, {rq} dB ripple");
    assert_eq!(q.taps().iter().map(|&t| t as i32).sum::<i32>(), 32768);
    // Exactly symmetric, so SymFir accepts them.
    let _ = SymFir::new(*q.taps());
    let _ = SymFir::new(*f.taps());
}

#[test]
fn test_quantise_symmetric() {
    let mut rng = Rng::new(3);
    for len in 1..40 {
        let mut src = [0.0f64; 40];
        let src = &mut src[..len];
        for i in 0..len.div_ceil(2) {
            let v = rng.uniform() * 0.1;
            src[i] = v;
            src[len - 1 - i] = v;
        }
        let mut q = [0i16; 40];
        let q = &mut q[..len];
        quantise_q15_symmetric(src, q);
        for i in 0..len {
            assert_eq!(q[i], q[len - 1 - i]);
            assert!((src[i] * 32768.0 - q[i] as f64).abs() <= 2.5);
        }
        let want = libm::round(src.iter().sum::<f64>() * 32768.0) as i64;
        let have: i64 = q.iter().map(|&v| v as i64).sum();
        let slack = if len % 2 == 0 { 1 } else { 0 };
        assert!((want - have).abs() <= slack, "len {len}: {want} vs {have}");
    }
}

/// Amplitude ratio (dB) of a tone at `f` through `run`, after the
/// filter's transient.
fn tone_gain_db(f: f64, amp: f64, n: usize, run: &mut dyn FnMut(&[f64]) -> Vec<f64>) -> f64 {
    let x: Vec<f64> = (0..n)
        .map(|t| amp * libm::cos(2.0 * PI * f * t as f64 + 0.3))
        .collect();
    let y = run(&x);
    let (a, _, _) = fit_tone(&y[128..], f);
    20.0 * libm::log10(a / amp)
}

fn run_f32<F: SplitProcess<f32, f32, FirState<f32, 63>>>(
    f: &F,
) -> impl FnMut(&[f64]) -> Vec<f64> + '_ {
    move |x: &[f64]| {
        let mut s = FirState::new();
        x.iter()
            .map(|&v| f.process(&mut s, v as f32) as f64)
            .collect()
    }
}

fn run_q15<F: SplitProcess<i16, i16, FirState<i16, 63>>>(
    f: &F,
) -> impl FnMut(&[f64]) -> Vec<f64> + '_ {
    move |x: &[f64]| {
        let mut s = FirState::new();
        x.iter()
            .map(|&v| f.process(&mut s, crate::dsp::fixed::f32_to_q15(v as f32)) as f64 / 32768.0)
            .collect()
    }
}

fn freqs(lo: f64, hi: f64, k: usize) -> impl Iterator<Item = f64> {
    (0..k).map(move |i| lo + (hi - lo) * i as f64 / (k - 1) as f64)
}

#[test]
#[cfg_attr(miri, ignore)]
fn test_tones_f32() {
    let n = 1024;
    for f in [Fir::<f32, 63>::design(&lp())] {
        let sym = SymFir::new(*f.taps());
        for (name, run) in [
            (
                "direct",
                &mut run_f32(&f) as &mut dyn FnMut(&[f64]) -> Vec<f64>,
            ),
            ("sym", &mut run_f32(&sym)),
        ] {
            let mut ripple = 0.0f64;
            for fr in freqs(0.0, FP, 9) {
                ripple = ripple.max(tone_gain_db(fr, 0.5, n, run).abs());
            }
            let mut stop = f64::INFINITY;
            for fr in freqs(FS, 0.5, 23) {
                stop = stop.min(-tone_gain_db(fr, 0.5, n, run));
            }
            assert!(ripple < 0.01, "{name}: ripple {ripple} dB");
            assert!(stop >= 60.0, "{name}: stop band {stop} dB");
        }
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn test_tones_q15() {
    let n = 2048;
    let q = Fir::<i16, 63>::design(&lp());
    let sym = SymFir::new(*q.taps());
    for (name, run) in [
        (
            "direct",
            &mut run_q15(&q) as &mut dyn FnMut(&[f64]) -> Vec<f64>,
        ),
        ("sym", &mut run_q15(&sym)),
    ] {
        let mut ripple = 0.0f64;
        for fr in freqs(0.0, FP, 9) {
            ripple = ripple.max(tone_gain_db(fr, 0.5, n, run).abs());
        }
        let mut stop = f64::INFINITY;
        for fr in freqs(FS, 0.5, 23) {
            stop = stop.min(-tone_gain_db(fr, 0.5, n, run));
        }
        assert!(ripple < 0.01, "{name}: ripple {ripple} dB");
        assert!(stop >= 55.0, "{name}: stop band {stop} dB");
    }
}

/// SNR (dB) of `y` against the reference `r`, after `skip` samples.
fn snr_db(r: &[f64], y: &[f64], skip: usize) -> f64 {
    let (mut s, mut e) = (0.0, 0.0);
    for (a, b) in r[skip..].iter().zip(&y[skip..]) {
        s += a * a;
        e += (a - b) * (a - b);
    }
    db(s / e.max(1e-300))
}

#[test]
fn test_q15_snr_vs_f64() {
    let n = if cfg!(miri) { 96 } else { 4096 };
    let mut h64 = [0.0; 63];
    lp().fill_f64(&mut h64);
    let q = SymFir::<i16, 63>::design(&lp());
    let qc = Fir::new(*q.taps());
    // −6 dBFS passband tone, real and complex.
    let f0 = 0.0371;
    let xi: Vec<i16> = (0..n)
        .map(|t| crate::dsp::fixed::f32_to_q15(0.5 * libm::cos(2.0 * PI * f0 * t as f64) as f32))
        .collect();
    let xq: Vec<i16> = (0..n)
        .map(|t| crate::dsp::fixed::f32_to_q15(0.5 * libm::sin(2.0 * PI * f0 * t as f64) as f32))
        .collect();
    let rr = conv(
        &h64,
        &xi.iter().map(|&v| v as f64 / 32768.0).collect::<Vec<_>>(),
    );
    let rq = conv(
        &h64,
        &xq.iter().map(|&v| v as f64 / 32768.0).collect::<Vec<_>>(),
    );
    let mut s = FirState::new();
    let y: Vec<f64> = xi
        .iter()
        .map(|&v| q.process(&mut s, v) as f64 / 32768.0)
        .collect();
    let snr = snr_db(&rr, &y, 63);
    assert!(snr >= 70.0, "real SNR {snr} dB");
    let mut s = FirState::new();
    let (mut yr, mut yi) = (Vec::new(), Vec::new());
    for (&a, &b) in xi.iter().zip(&xq) {
        let v: Ci16 = qc.process(&mut s, Ci16::new(a, b));
        yr.push(v.re as f64 / 32768.0);
        yi.push(v.im as f64 / 32768.0);
    }
    let snr_re = snr_db(&rr, &yr, 63);
    let snr_im = snr_db(&rq, &yi, 63);
    assert!(
        snr_re >= 70.0 && snr_im >= 70.0,
        "complex SNR {snr_re} / {snr_im} dB"
    );
}

#[test]
fn test_f32_vs_f64() {
    let n = if cfg!(miri) { 32 } else { 2000 };
    let f = Fir::<f32, 63>::design(&lp());
    let h = to_f64(f.taps());
    let mut rng = Rng::new(11);
    let x: Vec<f64> = (0..n).map(|_| (rng.normal() * 0.3) as f32 as f64).collect();
    let r = conv(&h, &x);
    let mut s = FirState::new();
    let mut sc = FirState::new();
    for (t, (&v, &rv)) in x.iter().zip(&r).enumerate() {
        let y: f32 = f.process(&mut s, v as f32);
        assert!((y as f64 - rv).abs() < 1e-6, "t={t}: {y} vs {rv}");
        let c: C32 = f.process(&mut sc, C32::new(v as f32, -v as f32));
        assert!((c.re as f64 - rv).abs() < 1e-6 && (c.im as f64 + rv).abs() < 1e-6);
    }
}

/// Direct ≡ symmetric ≡ decimator (every M-th direct output) for odd and
/// even lengths.
fn check_equivalence<const N: usize>(seed: u64) {
    let n = if cfg!(miri) { 24 } else { 600 };
    let mut rng = Rng::new(seed);
    let d = FirDesign::lowpass(0.2, 60.0);
    let (f, sf) = (Fir::<f32, N>::design(&d), SymFir::<f32, N>::design(&d));
    let (q, sq) = (Fir::<i16, N>::design(&d), SymFir::<i16, N>::design(&d));
    let dec_f = Decimator::<_, 3>::new(sf);
    let dec_q = Decimator::<_, 3>::new(sq);
    let dec_qd = Decimator::<_, 3>::new(q);
    let x: Vec<C32> = (0..n)
        .map(|_| {
            C32::new(
                rng.uniform() as f32 * 2.0 - 1.0,
                rng.uniform() as f32 * 2.0 - 1.0,
            )
        })
        .collect();
    let xq: Vec<Ci16> = x
        .iter()
        .map(|v| Ci16::new((v.re * 32767.0) as i16, (v.im * 32767.0) as i16))
        .collect();
    let (mut s1, mut s2, mut s3) = (FirState::new(), FirState::new(), DecimatorState::new());
    let (mut q1, mut q2, mut q3, mut q4) = (
        FirState::new(),
        FirState::new(),
        DecimatorState::new(),
        DecimatorState::new(),
    );
    let (mut r1, mut r2) = (FirState::new(), FirState::new());
    for (t, (&v, &vq)) in x.iter().zip(&xq).enumerate() {
        let a: C32 = f.process(&mut s1, v);
        let b: C32 = sf.process(&mut s2, v);
        assert!((a - b).l1_norm() < 1e-5, "t={t}");
        let ra: f32 = f.process(&mut r1, v.re);
        let rb: f32 = sf.process(&mut r2, v.re);
        assert!((ra - a.re).abs() < 1e-6 && (rb - b.re).abs() < 1e-6);
        let c = dec_f.process(&mut s3, v);
        assert_eq!(c.is_some(), t % 3 == 0);
        if let Some(c) = c {
            assert_eq!(c, b);
        }
        let qa: Ci16 = q.process(&mut q1, vq);
        let qb: Ci16 = sq.process(&mut q2, vq);
        assert_eq!(qa, qb, "t={t}");
        let qc = dec_q.process(&mut q3, vq);
        let qd = dec_qd.process(&mut q4, vq);
        assert_eq!(qc, qd);
        if let Some(c) = qc {
            assert_eq!(c, qa);
        }
    }
}

#[test]
fn test_equivalence() {
    check_equivalence::<1>(1);
    check_equivalence::<7>(3);
    check_equivalence::<8>(4);
    if !cfg!(miri) {
        check_equivalence::<2>(2);
        check_equivalence::<23>(5);
        check_equivalence::<32>(6);
        check_equivalence::<63>(7);
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn test_decimator_alias_rejection() {
    // Decimating by 4 after the 63-tap low-pass: tones in the stop band
    // fold down; they must stay ≥ 60 dB (f32) / 55 dB (Q15) down.
    let n = 4096;
    let f = Decimator::<_, 4>::new(SymFir::<f32, 63>::design(&lp()));
    let q = Decimator::<_, 4>::new(SymFir::<i16, 63>::design(&lp()));
    // (Avoiding tones that fold exactly onto DC, where the fit is
    // degenerate.)
    for fr in freqs(FS, 0.49, 17) {
        let x: Vec<f32> = (0..n)
            .map(|t| 0.5 * libm::cos(2.0 * PI * fr * t as f64) as f32)
            .collect();
        let mut y = [0.0f32; 1024];
        let k = f.block(&mut DecimatorState::new(), &x, &mut y);
        let yf: Vec<f64> = y[32..k].iter().map(|&v| v as f64).collect();
        let a = fit_tone(&yf, 4.0 * fr).0;
        assert!(-20.0 * libm::log10(a / 0.5) >= 60.0, "f32 at {fr}: {a}");
        let xq: Vec<i16> = x
            .iter()
            .map(|&v| crate::dsp::fixed::f32_to_q15(v))
            .collect();
        let mut y = [0i16; 1024];
        let k = q.block(&mut DecimatorState::new(), &xq, &mut y);
        let yq: Vec<f64> = y[32..k].iter().map(|&v| v as f64 / 32768.0).collect();
        let a = fit_tone(&yq, 4.0 * fr).0;
        assert!(-20.0 * libm::log10(a / 0.5) >= 55.0, "q15 at {fr}: {a}");
    }
}

#[test]
fn test_saturation_and_headroom() {
    // Gain 1.9 (L1 62 259 LSB): legal; a full-scale input saturates.
    let f = Fir::new([31130i16, 31129]);
    let mut s = FirState::new();
    assert_eq!(f.process(&mut s, i16::MAX), 31129);
    assert_eq!(f.process(&mut s, i16::MAX), i16::MAX);
    let mut s = FirState::new();
    let _ = f.process(&mut s, i16::MIN);
    assert_eq!(f.process(&mut s, i16::MIN), i16::MIN);
    // The extreme legal case: L1 = 65 535 with all-minimum inputs.
    let f = Fir::new([-32768i16, -32767]);
    let mut s = FirState::new();
    let _ = f.process(&mut s, i16::MIN);
    assert_eq!(f.process(&mut s, i16::MIN), i16::MAX);
}

#[test]
#[should_panic(expected = "L1 norm")]
fn test_headroom_panics() {
    let _ = Fir::new([-32768i16, -32768]);
}

#[test]
#[should_panic(expected = "not symmetric")]
fn test_asymmetric_panics() {
    let _ = SymFir::new([1.0f32, 2.0, 3.0]);
}

#[test]
#[should_panic(expected = "max_output")]
fn test_short_output_panics() {
    let d = Decimator::<_, 2>::new(Fir::new([1.0f32]));
    let _ = d.block(&mut DecimatorState::new(), &[0.0; 5], &mut [0.0; 2]);
}

#[test]
fn test_decimator_count() {
    let d = Decimator::<_, 3>::new(Fir::new([1.0f32]));
    let mut s = DecimatorState::new();
    let mut y = [0.0f32; 4];
    // Identity filter: outputs are inputs 0, 3, 6, ...
    let x: Vec<f32> = (0..10).map(|v| v as f32).collect();
    assert_eq!(d.block(&mut s, &x[..4], &mut y), 2);
    assert_eq!(y[..2], [0.0, 3.0]);
    assert_eq!(s.skip(), 2);
    assert_eq!(d.block(&mut s, &x[4..5], &mut y), 0);
    assert_eq!(d.block(&mut s, &x[5..], &mut y), 2);
    assert_eq!(y[..2], [6.0, 9.0]);
    assert_eq!(d.block(&mut s, &[], &mut []), 0);
}

// -- block-split invariance ------------------------------------------

fn split_points(len: usize, cuts: &[usize]) -> Vec<usize> {
    let mut c: Vec<usize> = cuts.iter().map(|&c| c % (len + 1)).collect();
    c.push(0);
    c.push(len);
    c.sort_unstable();
    c
}

fn split_1to1<X: Sample, F: SplitProcess<X, X, FirState<X, N>>, const N: usize>(
    f: &F,
    x: &[X],
    cuts: &[usize],
) {
    let mut whole = std::vec![X::ZERO; x.len()];
    f.block(&mut FirState::new(), x, &mut whole);
    let mut parts = std::vec![X::ZERO; x.len()];
    let mut s = FirState::new();
    for w in split_points(x.len(), cuts).windows(2) {
        f.block(&mut s, &x[w[0]..w[1]], &mut parts[w[0]..w[1]]);
    }
    assert_eq!(whole, parts);
}

fn split_dec<X: Sample, D: SplitDecimate<X, S>, S: Default>(d: &D, x: &[X], cuts: &[usize]) {
    let mut whole = std::vec![X::ZERO; d.max_output(x.len())];
    let k = d.block(&mut S::default(), x, &mut whole);
    assert_eq!(k, x.len().div_ceil(D::RATIO));
    let mut parts = Vec::new();
    let mut s = S::default();
    for w in split_points(x.len(), cuts).windows(2) {
        let mut y = std::vec![X::ZERO; d.max_output(w[1] - w[0])];
        let k = d.block(&mut s, &x[w[0]..w[1]], &mut y);
        parts.extend_from_slice(&y[..k]);
    }
    assert_eq!(&whole[..k], &parts[..]);
    // Per-sample processing agrees too.
    let mut s = S::default();
    let one: Vec<X> = x.iter().filter_map(|&v| d.process(&mut s, v)).collect();
    assert_eq!(one, parts);
}

/// Cheap symmetric test taps (a triangle with unit DC gain): the
/// split-invariance properties need no designed response, and designs
/// are slow under miri.
fn tri<const N: usize>() -> [f64; N] {
    let mut h = [0.0; N];
    for (k, v) in h.iter_mut().enumerate() {
        *v = (1 + k.min(N - 1 - k)) as f64;
    }
    let s: f64 = h.iter().sum();
    h.map(|v| v / s)
}

fn taps_f32<const N: usize>() -> [f32; N] {
    tri::<N>().map(|v| v as f32)
}

fn taps_q15<const N: usize>() -> [i16; N] {
    let mut q = [0; N];
    quantise_q15_symmetric(&tri::<N>(), &mut q);
    q
}

/// Input length for the properties (shorter under miri).
const MAX_LEN: usize = if cfg!(miri) { 24 } else { 200 };

fn arb_f32(max: usize) -> impl Strategy<Value = Vec<f32>> {
    proptest::collection::vec(-1.0f32..1.0, 0..max)
}

fn arb_i16(max: usize) -> impl Strategy<Value = Vec<i16>> {
    proptest::collection::vec(any::<i16>(), 0..max)
}

fn cuts() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(0usize..1000, 0..6)
}

fn c32s(v: &[f32]) -> Vec<C32> {
    v.chunks_exact(2).map(|c| C32::new(c[0], c[1])).collect()
}

fn ci16s(v: &[i16]) -> Vec<Ci16> {
    v.chunks_exact(2).map(|c| Ci16::new(c[0], c[1])).collect()
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn prop_split_fir_f32(x in arb_f32(MAX_LEN), c in cuts()) {
        split_1to1(&Fir::new(taps_f32::<9>()), &x, &c);
        split_1to1(&SymFir::new(taps_f32::<9>()), &x, &c);
        split_1to1(&SymFir::new(taps_f32::<10>()), &c32s(&x), &c);
        split_1to1(&Fir::new(taps_f32::<10>()), &c32s(&x), &c);
    }

    #[test]
    fn prop_split_fir_q15(x in arb_i16(MAX_LEN), c in cuts()) {
        split_1to1(&Fir::new(taps_q15::<9>()), &x, &c);
        split_1to1(&SymFir::new(taps_q15::<10>()), &x, &c);
        split_1to1(&SymFir::new(taps_q15::<9>()), &ci16s(&x), &c);
        split_1to1(&Fir::new(taps_q15::<10>()), &ci16s(&x), &c);
    }

    #[test]
    fn prop_split_decimator_f32(x in arb_f32(MAX_LEN), c in cuts()) {
        split_dec::<f32, _, DecimatorState<f32, 9>>(
            &Decimator::<_, 3>::new(Fir::new(taps_f32::<9>())), &x, &c);
        split_dec::<f32, _, DecimatorState<f32, 10>>(
            &Decimator::<_, 4>::new(SymFir::new(taps_f32::<10>())), &x, &c);
        split_dec::<C32, _, DecimatorState<C32, 9>>(
            &Decimator::<_, 5>::new(SymFir::new(taps_f32::<9>())), &c32s(&x), &c);
        split_dec::<C32, _, DecimatorState<C32, 4>>(
            &Decimator::<_, 1>::new(Fir::new(taps_f32::<4>())), &c32s(&x), &c);
    }

    #[test]
    fn prop_split_decimator_q15(x in arb_i16(MAX_LEN), c in cuts()) {
        split_dec::<i16, _, DecimatorState<i16, 9>>(
            &Decimator::<_, 2>::new(SymFir::new(taps_q15::<9>())), &x, &c);
        split_dec::<i16, _, DecimatorState<i16, 10>>(
            &Decimator::<_, 3>::new(Fir::new(taps_q15::<10>())), &x, &c);
        split_dec::<Ci16, _, DecimatorState<Ci16, 10>>(
            &Decimator::<_, 4>::new(SymFir::new(taps_q15::<10>())), &ci16s(&x), &c);
        split_dec::<Ci16, _, DecimatorState<Ci16, 3>>(
            &Decimator::<_, 7>::new(Fir::new(taps_q15::<3>())), &ci16s(&x), &c);
    }
}
