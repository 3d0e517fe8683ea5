//! Measurements on 48 kHz audio: the tone's frequency, amplitude, SNR
//! (tone power over everything else in [`BAND_LO_HZ`]–[`BAND_HI_HZ`]),
//! THD, and stereo separation. All in f64.
//!
//! SNR: the tone `a cos(2πfn) + b sin(2πfn) + c` is fitted by least
//! squares (its frequency refined around the nominal one, so a receiver
//! whose output rate is slightly off is not penalised) and subtracted; the
//! residual, Hann-windowed, goes through an FFT and its power in the band
//! is summed. The band power is normalised so that white noise of variance
//! σ² reads `σ² · band / (fs/2)`.
//!
//! Weighted SNR ([`tone_weighted`]): each FFT bin's power, and the tone's,
//! is multiplied by a weight `w(f)` first. With `w = 1/|H(f)|²`, `H` a
//! receiver's measured response relative to the analog de-emphasis curve,
//! this is the SNR the receiver would give with its response corrected to
//! that curve: a receiver whose de-emphasis rolls the treble off too far
//! reads less noise, and this takes that advantage away.

use std::f64::consts::PI;

/// Lower edge of the noise band, Hz.
pub const BAND_LO_HZ: f64 = 100.0;
/// Upper edge of the noise band, Hz.
pub const BAND_HI_HZ: f64 = 15_000.0;
/// Audio rate of the measured signals, Hz.
const FS: f64 = super::AUDIO_RATE;
/// Shortest signal measured, samples.
const MIN_LEN: usize = 4096;

/// A measured tone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToneFigures {
    /// Fitted frequency, cycles per sample.
    pub freq: f64,
    /// Peak amplitude.
    pub amplitude: f64,
    /// Tone power over the residual's power in the band, dB.
    pub snr_db: f64,
    /// Harmonics 2–5 (fitted) over the fundamental, power, dB.
    pub thd_db: f64,
}

/// Least-squares fit of `a cos(2πfn) + b sin(2πfn) + c` to `y`: `(a, b, c)`.
pub fn fit(y: &[f64], f: f64) -> (f64, f64, f64) {
    let mut m = [[0.0f64; 3]; 3];
    let mut r = [0.0f64; 3];
    for (n, (c, s)) in oscillator(f, y.len()).enumerate() {
        let basis = [c, s, 1.0];
        for i in 0..3 {
            r[i] += basis[i] * y[n];
            for j in 0..3 {
                m[i][j] += basis[i] * basis[j];
            }
        }
    }
    let v = solve3(m, r);
    (v[0], v[1], v[2])
}

/// `(cos 2πfn, sin 2πfn)` for `n = 0..len`, by rotation, renormalised
/// every 1024 steps (error below 1e-12 over a million samples).
fn oscillator(f: f64, len: usize) -> impl Iterator<Item = (f64, f64)> {
    let (ds, dc) = (2.0 * PI * f).sin_cos();
    let (mut c, mut s) = (1.0f64, 0.0f64);
    (0..len).map(move |n| {
        let out = (c, s);
        (c, s) = (c * dc - s * ds, s * dc + c * ds);
        if n % 1024 == 1023 {
            let (es, ec) = (2.0 * PI * f * (n + 1) as f64).sin_cos();
            (c, s) = (ec, es);
        }
        out
    })
}

/// Solve a 3×3 system by Gaussian elimination with partial pivoting.
fn solve3(mut m: [[f64; 3]; 3], mut r: [f64; 3]) -> [f64; 3] {
    for col in 0..3 {
        let piv = (col..3)
            .max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))
            .unwrap_or(col);
        m.swap(col, piv);
        r.swap(col, piv);
        for row in col + 1..3 {
            let k = m[row][col] / m[col][col];
            let pivot = m[col];
            for (v, p) in m[row][col..].iter_mut().zip(&pivot[col..]) {
                *v -= k * p;
            }
            r[row] -= k * r[col];
        }
    }
    let mut x = [0.0; 3];
    for row in (0..3).rev() {
        let mut v = r[row];
        for j in row + 1..3 {
            v -= m[row][j] * x[j];
        }
        x[row] = v / m[row][row];
    }
    x
}

/// Amplitude of the fitted tone at `f`.
fn amplitude(y: &[f64], f: f64) -> f64 {
    let (a, b, _) = fit(y, f);
    a.hypot(b)
}

/// The frequency near `f` (within ±3 Hz) where the fitted amplitude peaks:
/// a grid of quarter bins, then golden-section refinement.
pub fn refine_freq(y: &[f64], f: f64) -> f64 {
    let n = y.len() as f64;
    let step = 0.25 / n;
    let span = (3.0 / FS / step).ceil() as i64;
    let best = (-span..=span)
        .map(|k| f + k as f64 * step)
        .max_by(|&a, &b| amplitude(y, a).total_cmp(&amplitude(y, b)))
        .unwrap_or(f);
    let (mut lo, mut hi) = (best - step, best + step);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..30 {
        let (x1, x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if amplitude(y, x1) > amplitude(y, x2) {
            hi = x2;
        } else {
            lo = x1;
        }
    }
    (lo + hi) / 2.0
}

/// The largest power of two not above `len`.
fn pow2_floor(len: usize) -> usize {
    if len == 0 { 0 } else { 1 << len.ilog2() }
}

/// Measure the tone near `f` (cycles per sample) in `y` (the first
/// power-of-two samples are used). `None` if `y` is shorter than 4096
/// samples or holds no tone.
pub fn tone(y: &[f64], f: f64) -> Option<ToneFigures> {
    tone_weighted(y, f, &|_| 1.0)
}

/// The amplitude of the tone near `f` (cycles per sample; within ±3 Hz)
/// in the first power-of-two samples of `y`.
pub fn tone_amplitude(y: &[f64], f: f64) -> Option<f64> {
    let y = &y[..pow2_floor(y.len())];
    if y.len() < MIN_LEN || y.iter().any(|v| !v.is_finite()) {
        return None;
    }
    Some(amplitude(y, refine_freq(y, f)))
}

/// [`tone`] with the tone's power and every bin of the noise weighted by
/// `weight(Hz)` (see the module's documentation); the THD is unweighted.
pub fn tone_weighted(y: &[f64], f: f64, weight: &dyn Fn(f64) -> f64) -> Option<ToneFigures> {
    let y = &y[..pow2_floor(y.len())];
    if y.len() < MIN_LEN || y.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let f = refine_freq(y, f);
    let (a, b, c) = fit(y, f);
    let amp = a.hypot(b);
    if amp <= 0.0 {
        return None;
    }
    let residual: Vec<f64> = oscillator(f, y.len())
        .zip(y)
        .map(|((co, si), &v)| v - a * co - b * si - c)
        .collect();
    let noise = band_power_weighted(&residual, BAND_LO_HZ / FS, BAND_HI_HZ / FS, weight);
    // Harmonics fitted on the residual: the fundamental would leak into
    // their fits over a non-integer number of cycles.
    let harmonics: f64 = (2..=5)
        .map(|h| h as f64 * f)
        .filter(|&fh| fh < 0.5)
        .map(|fh| amplitude(&residual, fh).powi(2))
        .sum();
    Some(ToneFigures {
        freq: f,
        amplitude: amp,
        snr_db: 10.0 * (weight(f * FS) * amp * amp / 2.0 / noise.max(1e-300)).log10(),
        thd_db: 10.0 * (harmonics / (amp * amp)).max(1e-30).log10(),
    })
}

/// Stereo separation, dB: the tone near `f` in `on` over the same tone
/// (at the frequency fitted in `on`) in `off`.
pub fn separation_db(on: &[f64], off: &[f64], f: f64) -> Option<f64> {
    let n = pow2_floor(on.len().min(off.len()));
    if n < MIN_LEN {
        return None;
    }
    let f = refine_freq(&on[..n], f);
    let (a_on, a_off) = (amplitude(&on[..n], f), amplitude(&off[..n], f));
    Some(20.0 * (a_on / a_off.max(1e-300)).log10())
}

/// Power of `x` between `lo` and `hi` (cycles per sample), Hann-windowed
/// periodogram, each bin's power multiplied by `weight(Hz)`; `x.len()`
/// must be a power of two.
pub fn band_power_weighted(x: &[f64], lo: f64, hi: f64, weight: &dyn Fn(f64) -> f64) -> f64 {
    let n = x.len();
    let w: Vec<f64> = (0..n)
        .map(|i| 0.5 - 0.5 * (2.0 * PI * i as f64 / n as f64).cos())
        .collect();
    let w2: f64 = w.iter().map(|v| v * v).sum();
    let mut re: Vec<f64> = x.iter().zip(&w).map(|(a, b)| a * b).collect();
    let mut im = vec![0.0; n];
    fft(&mut re, &mut im);
    let (k0, k1) = (
        (lo * n as f64).ceil() as usize,
        (hi * n as f64).floor() as usize,
    );
    let s: f64 = (k0..=k1.min(n / 2))
        .map(|k| (re[k] * re[k] + im[k] * im[k]) * weight(k as f64 / n as f64 * FS))
        .sum();
    2.0 * s / (n as f64 * w2)
}

/// In-place radix-2 FFT (forward, unnormalised); the length must be a
/// power of two.
fn fft(re: &mut [f64], im: &mut [f64]) {
    let n = re.len();
    debug_assert!(n.is_power_of_two() && im.len() == n);
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            re.swap(i, j);
            im.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let (ws, wc) = (-2.0 * PI / len as f64).sin_cos();
        for start in (0..n).step_by(len) {
            let (mut cr, mut ci) = (1.0f64, 0.0f64);
            for k in 0..len / 2 {
                let (a, b) = (start + k, start + k + len / 2);
                let (tr, ti) = (re[b] * cr - im[b] * ci, re[b] * ci + im[b] * cr);
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
                (cr, ci) = (cr * wc - ci * ws, cr * ws + ci * wc);
            }
        }
        len <<= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic uniform noise in ±√3 (variance 1).
    fn noise(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * 3f64.sqrt()
            })
            .collect()
    }

    #[test]
    fn test_fft_matches_dft() {
        let x = noise(64, 3);
        let (mut re, mut im) = (x.clone(), vec![0.0; 64]);
        fft(&mut re, &mut im);
        for k in [0, 1, 5, 31, 32, 63] {
            let (mut sr, mut si) = (0.0, 0.0);
            for (n, v) in x.iter().enumerate() {
                let a = -2.0 * PI * (k * n) as f64 / 64.0;
                sr += v * a.cos();
                si += v * a.sin();
            }
            assert!(
                (re[k] - sr).abs() < 1e-9 && (im[k] - si).abs() < 1e-9,
                "{k}"
            );
        }
    }

    #[test]
    fn test_snr_of_tone_in_white_noise() {
        // Tone amplitude 1 (power 0.5) in white noise of variance 1e-4:
        // band noise 1e-4 · 14.9 kHz / 24 kHz, so SNR = 10 log10(0.5 /
        // 6.208e-5) = 39.06 dB.
        let n = 1 << 16;
        let f = 1000.3 / FS;
        let y: Vec<f64> = noise(n, 9)
            .iter()
            .enumerate()
            .map(|(i, v)| (2.0 * PI * f * i as f64 + 0.7).cos() + 0.3 + 0.01 * v)
            .collect();
        let t = tone(&y, 1000.0 / FS).unwrap();
        assert!((t.freq * FS - 1000.3).abs() < 0.01, "{}", t.freq * FS);
        assert!((t.amplitude - 1.0).abs() < 1e-3, "{}", t.amplitude);
        assert!((t.snr_db - 39.06).abs() < 0.2, "{}", t.snr_db);
        // Weighted: a flat weight changes nothing; a weight of 4 above
        // 7.55 kHz (half the 100 Hz–15 kHz band) raises the noise by
        // (1 + 4)/2: 3.98 dB less.
        let flat = tone_weighted(&y, 1000.0 / FS, &|_| 3.0).unwrap();
        assert!((flat.snr_db - t.snr_db).abs() < 1e-9);
        let treble = tone_weighted(&y, 1000.0 / FS, &|hz| if hz > 7550.0 { 4.0 } else { 1.0 });
        let d = t.snr_db - treble.unwrap().snr_db;
        assert!((d - 3.98).abs() < 0.1, "{d}");
        let a = tone_amplitude(&y, 1000.0 / FS).unwrap();
        assert!((a - 1.0).abs() < 1e-3, "{a}");
    }

    #[test]
    fn test_thd_and_out_of_band() {
        // 1 % second harmonic (−40 dB), a 19 kHz pilot outside the band:
        // THD −40 dB, SNR = THD+N⁻¹ = 40 dB (the pilot does not count).
        let n = 1 << 15;
        let f = 1000.0 / FS;
        let y: Vec<f64> = (0..n)
            .map(|i| {
                let w = 2.0 * PI * f * i as f64;
                w.sin() + 0.01 * (2.0 * w).sin() + 0.1 * (w * 19.0).cos()
            })
            .collect();
        let t = tone(&y, f).unwrap();
        assert!((t.thd_db + 40.0).abs() < 0.05, "{}", t.thd_db);
        assert!((t.snr_db - 40.0).abs() < 0.1, "{}", t.snr_db);
    }

    #[test]
    fn test_separation() {
        let n = 1 << 14;
        let f = 1000.0 / FS;
        let on: Vec<f64> = (0..n).map(|i| (2.0 * PI * f * i as f64).sin()).collect();
        let off: Vec<f64> = on.iter().map(|v| 1e-3 * v).collect();
        assert!((separation_db(&on, &off, f).unwrap() - 60.0).abs() < 1e-6);
        assert_eq!(separation_db(&on[..100], &off, f), None);
        assert_eq!(tone(&on[..4000], f), None);
    }
}
