//! `airwaves dsp-selftest`: run core's DSP primitives on synthetic signals
//! and print what they measure against their targets.
//!
//! Every figure is measured here, on this machine, by running the real
//! primitive (not read from a table); the command exits non-zero if any
//! figure misses its target.

use crate::error::CommandError;
use airwaves_core::dsp::{
    SplitProcess,
    dc::{DcBlockerQ15, DcBlockerQ15State},
    deemph::{Deemphasis, DeemphasisState, TAU_50US, TAU_75US, analog_magnitude},
    fir::{Decimator, DecimatorState, FirDesign, SplitDecimate, SymFir},
    halfband::{HalfBand, HalfBandState},
    nco::{cos_sin_f32, cos_sin_q15},
    phase::{atan2, atan2_i16},
    resample::{Resampler, ResamplerState, design_f32, required_taps, taps_per_phase},
};
use std::f64::consts::PI;

/// One measured figure.
pub struct Check {
    /// What was measured.
    pub name: String,
    /// The measured value.
    pub value: f64,
    /// Unit of `value` and `target`.
    pub unit: &'static str,
    /// The target.
    pub target: f64,
    /// `true` when `value` must be at most `target`, `false` when at least.
    pub at_most: bool,
}

impl Check {
    /// Whether the figure meets its target.
    pub fn passes(&self) -> bool {
        if self.at_most {
            self.value <= self.target
        } else {
            self.value >= self.target
        }
    }
}

/// Run every check.
pub fn run_all() -> Vec<Check> {
    let mut checks = Vec::new();
    checks.extend(nco_checks());
    checks.extend(deemphasis_checks());
    checks.push(dc_blocker_check());
    checks.extend(decimator_checks());
    checks.extend(atan2_checks());
    checks.extend(resampler_checks());
    checks
}

/// Power of a decimator's output (second half, after settling) for a real
/// tone at `f` cycles per input sample.
fn decimated_power(f: f64, mut run: impl FnMut(&[f32], &mut [f32]) -> usize) -> f64 {
    let x: Vec<f32> = (0..65_536)
        .map(|i| ((2.0 * PI * f * i as f64).sin() * 0.5) as f32)
        .collect();
    let mut y = vec![0.0f32; x.len()];
    let n = run(&x, &mut y);
    let tail = &y[n / 2..n];
    tail.iter().map(|v| (*v as f64).powi(2)).sum::<f64>() / tail.len() as f64
}

/// Alias rejection of a 63-tap decimate-by-4 low-pass and of a 31-tap
/// half-band ×2 decimator: tones that fold onto the pass band, against a
/// pass-band tone.
fn decimator_checks() -> Vec<Check> {
    let design = FirDesign::lowpass(0.1, 70.0);
    let dec = Decimator::<_, 4>::new(SymFir::<f32, 63>::design(&design));
    let by4 = |f: f64| {
        decimated_power(f, |x, y| {
            dec.block(&mut DecimatorState::<f32, 63>::new(), x, y)
        })
    };
    // Output Nyquist is 0.125; the pass band ends at 0.065, so tones at
    // 0.25 − 0.065 and above fold onto it.
    let pass = by4(0.03);
    let worst = [0.185, 0.2, 0.3, 0.45]
        .iter()
        .map(|&f| by4(f))
        .fold(0.0f64, f64::max);
    let hb = HalfBand::<f32, 8>::design(70.0);
    let by2 = |f: f64| {
        decimated_power(f, |x, y| {
            hb.block(&mut HalfBandState::<f32, 8>::new(), x, y)
        })
    };
    let hb_pass = by2(0.05);
    let hb_worst = [0.4, 0.43, 0.47]
        .iter()
        .map(|&f| by2(f))
        .fold(0.0f64, f64::max);
    vec![
        Check {
            name: "FIR 63-tap decimate-by-4, alias rejection".into(),
            value: 10.0 * (pass / worst).log10(),
            unit: "dB",
            target: 60.0,
            at_most: false,
        },
        Check {
            name: "half-band 31-tap ×2 decimator, alias rejection".into(),
            value: 10.0 * (hb_pass / hb_worst).log10(),
            unit: "dB",
            target: 60.0,
            at_most: false,
        },
    ]
}

/// Maximum error of the f32 and Q15 atan2 over a dense grid of the plane.
fn atan2_checks() -> Vec<Check> {
    let (mut err_f32, mut err_q15) = (0.0f64, 0.0f64);
    for k in 0..200_000u32 {
        let a = k as f64 / 200_000.0 * 2.0 * PI - PI;
        let r = 0.05 + 0.95 * ((k.wrapping_mul(2_654_435_761) >> 8) as f64 / 16_777_216.0);
        let (y, x) = (r * a.sin(), r * a.cos());
        let exact = y.atan2(x);
        err_f32 = err_f32.max((atan2(y as f32, x as f32) as f64 - exact).abs());
        let (yi, xi) = ((y * 32767.0).round() as i16, (x * 32767.0).round() as i16);
        let exact_i = (yi as f64).atan2(xi as f64);
        let got = atan2_i16(yi, xi) as f64 / 32768.0 * PI;
        let mut e = (got - exact_i).abs();
        if e > PI {
            e = 2.0 * PI - e;
        }
        err_q15 = err_q15.max(e);
    }
    vec![
        Check {
            name: "atan2 f32, max error".into(),
            value: err_f32,
            unit: "rad",
            target: 1e-4,
            at_most: true,
        },
        Check {
            name: "atan2 Q15 (binary angle), max error".into(),
            value: err_q15,
            unit: "rad",
            target: 2.0 * PI / 65536.0 * 2.0,
            at_most: true,
        },
    ]
}

/// Alias rejection of the rational resampler: a tone in the stop band of
/// 240 kHz → 48 kHz and 250 kHz → 44.1 kHz against a pass-band tone.
fn resampler_checks() -> Vec<Check> {
    let mut out = Vec::new();
    for (fs_in, l, m, label) in [
        (240_000.0, 1, 5, "240 → 48 kHz"),
        (250_000.0, 441, 2500, "250 → 44.1 kHz"),
    ] {
        let fs_out = fs_in * l as f64 / m as f64;
        // Flat to 15 kHz; the stop band starts at fs_out − 15 kHz.
        let k = taps_per_phase(l, m, 80.0, 15_000.0 / (fs_out / 2.0));
        let mut taps = vec![0.0f32; required_taps(l, k)];
        design_f32(l, m, 80.0, &mut taps);
        let r = Resampler::new(l, m, &taps);
        let power = |f: f64| {
            let x: Vec<f32> = (0..(fs_in as usize / 4))
                .map(|i| (2.0 * PI * f * i as f64 / fs_in).sin() as f32 * 0.5)
                .collect();
            let mut y = vec![0.0f32; r.max_output(x.len())];
            let mut st = ResamplerState::<f32, 256>::new();
            let n = r.process(&mut st, &x, &mut y);
            let tail = &y[n / 2..n];
            tail.iter().map(|v| (*v as f64).powi(2)).sum::<f64>() / tail.len() as f64
        };
        let pass = power(1_000.0);
        // The worst alias: a tone just above the stop edge folds into the pass band.
        let stop_edge = fs_out - 15_000.0;
        let worst = [
            stop_edge + 500.0,
            stop_edge + 5_000.0,
            fs_out + 3_000.0,
            2.0 * fs_out - 7_000.0,
        ]
        .iter()
        .map(|&f| power(f))
        .fold(0.0f64, f64::max);
        out.push(Check {
            name: format!("resampler {label}, alias rejection"),
            value: 10.0 * (pass / worst).log10(),
            unit: "dB",
            target: 70.0,
            at_most: false,
        });
    }
    out
}

/// Maximum error of the fixed-point and f32 sin/cos over 2¹⁸ phases.
fn nco_checks() -> Vec<Check> {
    let (mut err_q15, mut err_f32) = (0.0f64, 0.0f64);
    for k in 0..(1u32 << 18) {
        let phase = k << 14 | (k.wrapping_mul(2_654_435_761) & 0x3FFF);
        let theta = phase as f64 / 4_294_967_296.0 * 2.0 * PI;
        let (c, s) = (theta.cos(), theta.sin());
        let q = cos_sin_q15(phase);
        let f = cos_sin_f32(phase);
        err_q15 = err_q15
            .max((q.re as f64 / 32768.0 - c).abs())
            .max((q.im as f64 / 32768.0 - s).abs());
        err_f32 = err_f32
            .max((f.re as f64 - c).abs())
            .max((f.im as f64 - s).abs());
    }
    vec![
        Check {
            name: "NCO sin/cos max error, Q15".into(),
            value: err_q15,
            unit: "",
            target: 1e-4,
            at_most: true,
        },
        Check {
            name: "NCO sin/cos max error, f32".into(),
            value: err_f32,
            unit: "",
            target: 1e-4,
            at_most: true,
        },
    ]
}

/// Gain (dB) of a real processor at `f` Hz, measured with a tone after the
/// transient has died away.
fn tone_gain_db(fs: f64, f: f64, mut step: impl FnMut(f32) -> f32) -> f64 {
    let settle = (fs * 0.05) as usize;
    let n = (fs * 0.05) as usize;
    let (mut pin, mut pout) = (0.0f64, 0.0f64);
    for i in 0..settle + n {
        let x = (2.0 * PI * f * i as f64 / fs).sin() * 0.5;
        let y = step(x as f32) as f64;
        if i >= settle {
            pin += x * x;
            pout += y * y;
        }
    }
    10.0 * (pout / pin).log10()
}

/// De-emphasis against the analog curve 1/√(1 + (2πfτ)²), 30 Hz–15 kHz.
fn deemphasis_checks() -> Vec<Check> {
    let freqs = [30.0, 100.0, 300.0, 1e3, 3e3, 5e3, 8e3, 10e3, 12e3, 15e3];
    let mut out = Vec::new();
    for (tau, label) in [(TAU_75US, "75"), (TAU_50US, "50")] {
        for fs in [48_000.0, 44_100.0, 240_000.0] {
            let de = Deemphasis::new(tau, fs);
            let mut worst = 0.0f64;
            for &f in &freqs {
                let mut st = DeemphasisState::default();
                let g = tone_gain_db(fs, f, |x| de.process(&mut st, x));
                let want = 20.0 * analog_magnitude(tau, f).log10();
                worst = worst.max((g - want).abs());
            }
            out.push(Check {
                name: format!(
                    "de-emphasis {label} µs at {} kHz, worst deviation",
                    fs / 1e3
                ),
                value: worst,
                unit: "dB",
                target: 0.5,
                at_most: true,
            });
        }
    }
    out
}

/// Residual DC of the Q15 DC blocker after a constant input.
fn dc_blocker_check() -> Check {
    let dc = DcBlockerQ15::new(1e-3);
    let mut st = DcBlockerQ15State::<i64>::new();
    let mut last = 0i16;
    for _ in 0..100_000 {
        last = dc.process(&mut st, -9830); // −0.3 full scale
    }
    Check {
        name: "DC blocker Q15, output for constant −0.3 FS".into(),
        value: last.unsigned_abs() as f64,
        unit: "LSB",
        target: 0.0,
        at_most: true,
    }
}

/// A figure in plain notation where it reads well, else scientific.
fn figure(v: f64) -> String {
    if v == 0.0 || (0.01..1e5).contains(&v.abs()) {
        format!("{v:.3}")
    } else {
        format!("{v:.2e}")
    }
}

/// `airwaves dsp-selftest`: run every check and print the report.
///
/// # Errors
/// [`CommandError::CheckFailed`] when a check is out of bounds.
pub fn run() -> Result<(), CommandError> {
    if report(&run_all()) {
        Ok(())
    } else {
        Err(CommandError::CheckFailed)
    }
}

/// Print the checks as a table; returns whether all passed.
pub fn report(checks: &[Check]) -> bool {
    let mut ok = true;
    println!(
        "{:<52} {:>16} {:>18}  result",
        "check", "measured", "target"
    );
    for c in checks {
        let pass = c.passes();
        ok &= pass;
        let rel = if c.at_most { "≤" } else { "≥" };
        println!(
            "{:<52} {:>12} {:<3} {} {:>12} {:<3}  {}",
            c.name,
            figure(c.value),
            c.unit,
            rel,
            figure(c.target),
            c.unit,
            if pass { "ok" } else { "FAIL" }
        );
    }
    ok
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_checks_pass_and_can_fail() {
        let checks = run_all();
        assert!(checks.len() >= 9);
        for c in &checks {
            assert!(c.passes(), "{}: {}", c.name, c.value);
        }
        let bad = Check {
            name: "x".into(),
            value: 2.0,
            unit: "",
            target: 1.0,
            at_most: true,
        };
        assert!(!bad.passes());
    }
}
