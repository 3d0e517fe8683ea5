//! Test helpers shared by core's unit tests (compiled only for tests): f64
//! measurement of tones, responses, the proptest
//! configuration (smaller under miri), and hex test vectors.

#![allow(dead_code)]

extern crate std;

use core::f64::consts::PI;
use std::vec::Vec;

/// Proptest configuration: 256 cases normally, 4 under miri, no failure
/// persistence files (miri isolation forbids them, CI needs no state).
pub fn proptest_config() -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases: if cfg!(miri) { 4 } else { 256 },
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}

/// Bytes of a hex string (test vectors are written as literal hex).
///
/// # Panics
/// Panics on an odd length or a non-hex digit.
pub fn hex(s: &str) -> Vec<u8> {
    assert!(s.len() % 2 == 0, "odd-length hex {s:?}");
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex digit"))
        .collect()
}

/// Whether a block processor gives the same output when `x` is fed in one
/// call and when it is split at `cuts` (each taken modulo `len + 1`,
/// sorted), starting from the same state `s0`.
pub fn same_for_any_split<X: Copy, Y: Default + Copy + PartialEq, S: Clone>(
    x: &[X],
    cuts: &[usize],
    s0: S,
    block: impl Fn(&mut S, &[X], &mut [Y]),
) -> bool {
    let mut one = std::vec![Y::default(); x.len()];
    let mut s = s0.clone();
    block(&mut s, x, &mut one);
    let mut parts = std::vec![Y::default(); x.len()];
    let mut s = s0;
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (x.len() + 1)).collect();
    cuts.sort_unstable();
    let mut start = 0;
    for end in cuts.into_iter().chain([x.len()]) {
        block(&mut s, &x[start..end], &mut parts[start..end]);
        start = end;
    }
    one == parts
}

/// `10 log10(x)`.
pub fn db(power_ratio: f64) -> f64 {
    10.0 * libm::log10(power_ratio)
}

/// Least-squares fit of `a cos(2πfn) + b sin(2πfn) + c` to `y` at the known
/// frequency `f` (cycles per sample). Returns `(amplitude, dc, residual_rms)`.
pub fn fit_tone(y: &[f64], f: f64) -> (f64, f64, f64) {
    // Normal equations of the 3×3 system, solved by Cramer's rule.
    let mut m = [[0.0f64; 3]; 3];
    let mut r = [0.0f64; 3];
    for (n, &v) in y.iter().enumerate() {
        let w = 2.0 * PI * f * n as f64;
        let basis = [libm::cos(w), libm::sin(w), 1.0];
        for i in 0..3 {
            r[i] += basis[i] * v;
            for j in 0..3 {
                m[i][j] += basis[i] * basis[j];
            }
        }
    }
    let det3 = |a: [[f64; 3]; 3]| {
        a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
            - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
            + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
    };
    let d = det3(m);
    let mut coef = [0.0; 3];
    for (k, c) in coef.iter_mut().enumerate() {
        let mut mk = m;
        for i in 0..3 {
            mk[i][k] = r[i];
        }
        *c = det3(mk) / d;
    }
    let mut res = 0.0;
    for (n, &v) in y.iter().enumerate() {
        let w = 2.0 * PI * f * n as f64;
        let e = v - (coef[0] * libm::cos(w) + coef[1] * libm::sin(w) + coef[2]);
        res += e * e;
    }
    let amp = libm::sqrt(coef[0] * coef[0] + coef[1] * coef[1]);
    (amp, coef[2], libm::sqrt(res / y.len() as f64))
}

/// Signal-to-(noise + distortion) ratio in dB of a tone at `f` (cycles per
/// sample) in `y`: the fitted tone's power over the residual's (DC removed).
pub fn tone_sinad_db(y: &[f64], f: f64) -> f64 {
    let (amp, _dc, res) = fit_tone(y, f);
    db((amp * amp / 2.0) / (res * res).max(1e-300))
}

/// |H(f)| of real FIR taps `h` at `f` cycles per sample.
pub fn fir_response(h: &[f64], f: f64) -> f64 {
    let (mut re, mut im) = (0.0, 0.0);
    for (n, &t) in h.iter().enumerate() {
        let w = -2.0 * PI * f * n as f64;
        re += t * libm::cos(w);
        im += t * libm::sin(w);
    }
    libm::sqrt(re * re + im * im)
}

/// `../shared/data/<rel>` beside the checkout, read whole.
///
/// When it cannot be read, the test skips with a "skipping" line and
/// `None`; but under `CI=true` (the test command CI runs), a missing file is
/// a failure, so that golden tests never pass without running.
///
/// # Panics
/// Under `CI=true`, when the file cannot be read.
pub fn shared_data(rel: &str) -> Option<Vec<u8>> {
    let path = std::format!("{}/../../shared/data/{rel}", env!("CARGO_MANIFEST_DIR"));
    match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "{path}: {e} (CI=true: the shared test data must be present)"
            );
            std::eprintln!("skipping: {path}: {e}");
            None
        }
    }
}

/// [`shared_data`] as UTF-8 text.
///
/// # Panics
/// As [`shared_data`], and when the file is not UTF-8.
pub fn shared_text(rel: &str) -> Option<std::string::String> {
    shared_data(rel).map(|b| std::string::String::from_utf8(b).expect("UTF-8 test data"))
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "heavy under miri")]
    fn test_fit_tone_recovers_amplitude() {
        let f = 0.0123;
        let y: Vec<f64> = (0..4000)
            .map(|n| 0.7 * libm::sin(2.0 * PI * f * n as f64 + 0.3) + 0.1)
            .collect();
        let (amp, dc, res) = fit_tone(&y, f);
        assert!((amp - 0.7).abs() < 1e-9 && (dc - 0.1).abs() < 1e-9 && res < 1e-9);
        let mut rng = crate::rng::Rng::new(7);
        let noisy: Vec<f64> = y.iter().map(|v| v + 0.007 * rng.normal()).collect();
        // Tone power 0.245, noise power 4.9e-5: 36.99 dB.
        let s = tone_sinad_db(&noisy, f);
        assert!((s - 36.99).abs() < 0.3, "{s}");
    }
}
