//! Squelch: mutes the audio (exact zeros) while no signal is present.
//!
//! Two detectors share one gate ([`SquelchParams`]: open threshold,
//! hysteresis, hang time):
//!
//! - [`LevelSquelch`] (any mode, any rate, complex channel samples): the
//!   channel power `P = ⟨|x|²⟩` (one-pole, [`SquelchParams::smoothing`])
//!   against a noise floor `F`. `F` is tracked from the signal itself:
//!   after a warm-up of 5 smoothing time constants `F = P`; then `F`
//!   follows `P` down at once and, only while the squelch is closed, rises
//!   at most [`SquelchParams::floor_rise_db_per_s`]. On its own that takes
//!   a carrier present from the first sample (an ATIS transmitter, a
//!   broadcast station, a repeater already keyed) for the floor, and the
//!   squelch never opens. So, given the power of the whole input band
//!   next to each channel sample ([`LevelSquelch::with_band`], measured by
//!   [`ChannelFrontEnd::process_with_band`](super::front::ChannelFrontEnd::process_with_band)),
//!   it also estimates the noise in the channel from the noise density
//!   outside it (averaged over [`REFERENCE_SMOOTHING`] smoothing time
//!   constants, without bias from the start):
//!   `N = B · max((P_band − P)/(f_s − B), N_q/f_s)` with `B` the channel's
//!   noise bandwidth, `f_s` the input rate and `N_q = 2 · (1/128)² / 12`
//!   the rounding noise of cu8 samples, and uses `min(F, N)` as the floor.
//!   Opens when `P > floor · 10^{open/10}`; closes when
//!   `P < floor · 10^{(open − hyst)/10}` has held for the hang time. The
//!   estimate assumes the noise is white across the input band: strong
//!   stations elsewhere in the band raise `N`, and then the tracked floor
//!   still opens the squelch on a carrier that appears later.
//! - [`NoiseSquelch`] (FM): the discriminator output above the voice band
//!   (4th-order Butterworth high-pass at [`NOISE_HIGHPASS_HZ`]) is noise,
//!   large without a carrier and falling as the carrier rises (FM quieting).
//!   Its power `Q` (phase step in cycles per sample, squared, smoothed) is
//!   read relative to `1/12`, the variance of a uniformly random phase
//!   step: opens when `10 log₁₀(12 Q) < −open`, closes when it rises
//!   above `−(open − hyst)` for the hang time.
//!
//! Both compare in the linear domain (no logarithm per sample).

use crate::C32;
use crate::dsp::SplitProcess;
use crate::dsp::iir::{Biquad, BiquadDesign, Df2tState};

/// Corner of the noise squelch's high-pass, Hz.
pub const NOISE_HIGHPASS_HZ: f64 = 4500.0;

/// Time constant of the level squelch's band reference, in units of
/// [`SquelchParams::smoothing`]: long enough that the modulation's ripple
/// on the channel and band powers (which reach the two measurements with
/// different delays) cancels in their difference.
pub const REFERENCE_SMOOTHING: f64 = 10.0;

/// Rounding noise power of cu8 samples, full scale 1.0 = 128 codes:
/// `2 · (1/128)² / 12` (I and Q).
pub const CU8_QUANTISATION_POWER: f64 = 2.0 / (128.0 * 128.0 * 12.0);

/// Squelch settings.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SquelchParams {
    /// Open threshold, dB: level above the floor ([`LevelSquelch`]) or
    /// noise below a random phase ([`NoiseSquelch`]). Default 6.
    pub open_db: f64,
    /// Hysteresis, dB: closes `hysteresis_db` below the open threshold
    /// (default 3).
    pub hysteresis_db: f64,
    /// Hang time, s: how long the close condition must hold (default 0.2).
    pub hang: f64,
    /// Smoothing time constant of the measured power, s (default 0.01).
    pub smoothing: f64,
    /// Fastest rise of the level squelch's noise floor while closed, dB/s
    /// (default 3).
    pub floor_rise_db_per_s: f64,
}

impl Default for SquelchParams {
    fn default() -> Self {
        Self {
            open_db: 6.0,
            hysteresis_db: 3.0,
            hang: 0.2,
            smoothing: 0.01,
            floor_rise_db_per_s: 3.0,
        }
    }
}

/// Open/close decision with hysteresis and hang.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Gate {
    hang: u32,
}

/// [`Gate`] state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct GateState {
    open: bool,
    hang: u32,
}

impl Gate {
    /// `open_cond`: above the open threshold; `close_cond`: below the
    /// close threshold.
    #[inline]
    fn update(&self, s: &mut GateState, open_cond: bool, close_cond: bool) -> bool {
        if !s.open {
            if open_cond {
                s.open = true;
                s.hang = self.hang;
            }
        } else if close_cond {
            if s.hang == 0 {
                s.open = false;
            } else {
                s.hang -= 1;
            }
        } else {
            s.hang = self.hang;
        }
        s.open
    }
}

fn db_to_lin(db: f64) -> f32 {
    libm::pow(10.0, db / 10.0) as f32
}

/// Level squelch on complex channel samples. As a [`SplitProcess`] it
/// returns whether the squelch is open after each sample, with the floor
/// tracked from the channel alone; [`process_with_band`](Self::process_with_band)
/// adds the noise reference from the input band (see the
/// [module docs](self)). State: [`LevelSquelchState`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LevelSquelch {
    alpha: f32,
    open: f32,
    close: f32,
    rise: f32,
    warmup: u32,
    gate: Gate,
    /// `(B / (f_s − B), B N_q / f_s)`, or `None` without a band reference.
    band: Option<(f32, f32)>,
    /// Smoothing of the band reference (time constant
    /// [`REFERENCE_SMOOTHING`] × the squelch's).
    alpha_ref: f32,
}

/// [`LevelSquelch`] state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LevelSquelchState {
    power: f32,
    floor: f32,
    /// Band reference, smoothed with `alpha_ref`: `P_band − |x|²`,
    /// `|x|²`, and the weight `w` of the samples so far (`1 − (1 − α)ⁿ`;
    /// dividing by it unbiases the averages from the start).
    diff: f32,
    chan: f32,
    w: f32,
    noise: f32,
    seen: u32,
    warm: bool,
    gate: GateState,
}

impl LevelSquelchState {
    /// Whether the squelch is open.
    pub fn is_open(&self) -> bool {
        self.gate.open
    }

    /// The smoothed channel power, full scale 1.0 (`|x|²`).
    pub fn power(&self) -> f32 {
        self.power
    }

    /// The noise floor tracked from the channel power (same units as
    /// [`power`](Self::power)).
    pub fn floor(&self) -> f32 {
        self.floor
    }

    /// The power of the whole input band, averaged over about
    /// [`REFERENCE_SMOOTHING`] smoothing time constants (0 without a band
    /// reference).
    pub fn band_power(&self) -> f32 {
        self.ratio(self.diff + self.chan)
    }

    /// The noise in the channel estimated from the band outside it,
    /// `N = B · max((P_band − P)/(f_s − B), N_q/f_s)`, averaged as
    /// [`band_power`](Self::band_power) (0 without a band reference).
    pub fn noise(&self) -> f32 {
        self.noise
    }

    fn ratio(&self, v: f32) -> f32 {
        if self.w > 0.0 { v / self.w } else { 0.0 }
    }

    /// The channel's signal-to-noise ratio `(P − N)/N` in dB (at least
    /// −60), against the band reference `N` with the channel power
    /// averaged as `N` is, if there is one, else against the tracked
    /// floor; `None` during the warm-up (5 smoothing time constants).
    pub fn snr_db(&self) -> Option<f32> {
        let (p, n) = if self.noise > 0.0 {
            (self.ratio(self.chan), self.noise)
        } else {
            (self.power, self.floor)
        };
        if !self.warm || n.is_nan() || n <= 0.0 {
            return None;
        }
        let s = (p - n).max(n * 1e-6);
        Some(10.0 * libm::log10f(s / n))
    }
}

impl LevelSquelch {
    /// A level squelch at sample rate `fs` Hz.
    ///
    /// ```
    /// use airwaves_core::am::squelch::{LevelSquelch, SquelchParams};
    /// let sq = LevelSquelch::new(&SquelchParams::default(), 18_750.0);
    /// ```
    ///
    /// # Panics
    /// Panics unless `fs`, `smoothing` are positive, `hang ≥ 0` and
    /// `0 ≤ hysteresis_db ≤ |open_db|`.
    pub fn new(p: &SquelchParams, fs: f64) -> Self {
        check(p, fs);
        Self {
            alpha: (1.0 - libm::exp(-1.0 / (p.smoothing * fs))) as f32,
            open: db_to_lin(p.open_db),
            close: db_to_lin(p.open_db - p.hysteresis_db),
            rise: libm::pow(10.0, p.floor_rise_db_per_s / 10.0 / fs) as f32,
            warmup: libm::ceil(5.0 * p.smoothing * fs) as u32,
            gate: Gate {
                hang: libm::round(p.hang * fs) as u32,
            },
            band: None,
            alpha_ref: (1.0 - libm::exp(-1.0 / (REFERENCE_SMOOTHING * p.smoothing * fs))) as f32,
        }
    }

    /// The same squelch with the band reference: the channel's noise
    /// bandwidth `noise_bandwidth_hz` (`B`, e.g.
    /// [`ChannelFrontEnd::noise_bandwidth_hz`](super::front::ChannelFrontEnd::noise_bandwidth_hz))
    /// and the input rate `input_rate` (`f_s`, the width of the band whose
    /// power is passed to [`process_with_band`](Self::process_with_band)).
    ///
    /// ```
    /// use airwaves_core::am::squelch::{LevelSquelch, SquelchParams};
    /// let sq = LevelSquelch::new(&SquelchParams::default(), 18_750.0)
    ///     .with_band(7_300.0, 300_000.0);
    /// ```
    ///
    /// # Panics
    /// Panics unless `0 < noise_bandwidth_hz < input_rate`.
    pub fn with_band(mut self, noise_bandwidth_hz: f64, input_rate: f64) -> Self {
        let b = noise_bandwidth_hz;
        assert!(
            b > 0.0 && b < input_rate,
            "need 0 < noise bandwidth < input rate"
        );
        self.band = Some((
            (b / (input_rate - b)) as f32,
            (b * CU8_QUANTISATION_POWER / input_rate) as f32,
        ));
        self
    }

    /// One channel sample `x` and the band power next to it (`band`, mean
    /// `|x|²` of the input, full scale 1.0, from
    /// [`ChannelFrontEnd::process_with_band`](super::front::ChannelFrontEnd::process_with_band));
    /// returns whether the squelch is open. Without
    /// [`with_band`](Self::with_band), `band` is ignored and this is
    /// [`process`](SplitProcess::process).
    #[inline]
    pub fn process_with_band(&self, s: &mut LevelSquelchState, x: C32, band: f32) -> bool {
        s.power += self.alpha * (x.norm_sqr() - s.power);
        let reference = if let Some((k, q)) = self.band {
            let a = self.alpha_ref;
            let p = x.norm_sqr();
            s.diff += a * ((band - p) - s.diff);
            s.chan += a * (p - s.chan);
            s.w += a * (1.0 - s.w);
            s.noise = (k * s.diff / s.w).max(q);
            s.noise
        } else {
            f32::INFINITY
        };
        if s.seen < self.warmup {
            s.seen += 1;
            s.floor = s.power;
            return false;
        }
        s.warm = true;
        if s.power < s.floor {
            s.floor = s.power;
        } else if !s.gate.open {
            s.floor = (s.floor * self.rise).min(s.power);
        }
        let floor = s.floor.min(reference);
        let open = s.power > floor * self.open;
        let close = s.power < floor * self.close;
        self.gate.update(&mut s.gate, open, close)
    }
}

impl SplitProcess<C32, bool, LevelSquelchState> for LevelSquelch {
    /// The squelch with the tracked floor only (any band reference set
    /// with [`LevelSquelch::with_band`] is left out).
    #[inline]
    fn process(&self, s: &mut LevelSquelchState, x: C32) -> bool {
        let plain = Self {
            band: None,
            ..*self
        };
        plain.process_with_band(s, x, 0.0)
    }
}

/// Noise squelch on the discriminator output, in cycles per sample. As a
/// [`SplitProcess`] it returns whether the squelch is open. State:
/// [`NoiseSquelchState`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoiseSquelch {
    hp: [Biquad; 2],
    alpha: f32,
    open: f32,
    close: f32,
    gate: Gate,
}

/// [`NoiseSquelch`] state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoiseSquelchState {
    hp: [Df2tState<f32>; 2],
    noise: f32,
    gate: GateState,
}

impl Default for NoiseSquelchState {
    /// Closed, with the noise at its no-signal level.
    fn default() -> Self {
        Self {
            hp: Default::default(),
            noise: 1.0 / 12.0,
            gate: GateState::default(),
        }
    }
}

impl NoiseSquelchState {
    /// Whether the squelch is open.
    pub fn is_open(&self) -> bool {
        self.gate.open
    }

    /// The out-of-band noise relative to a random phase, dB.
    pub fn noise_db(&self) -> f32 {
        10.0 * libm::log10f(12.0 * self.noise)
    }
}

impl NoiseSquelch {
    /// A noise squelch at sample rate `fs` Hz (> 2 × [`NOISE_HIGHPASS_HZ`]).
    ///
    /// ```
    /// use airwaves_core::am::squelch::{NoiseSquelch, SquelchParams};
    /// let sq = NoiseSquelch::new(&SquelchParams::default(), 18_750.0);
    /// ```
    ///
    /// # Panics
    /// As [`LevelSquelch::new`], and if `fs ≤ 2 × NOISE_HIGHPASS_HZ`.
    pub fn new(p: &SquelchParams, fs: f64) -> Self {
        check(p, fs);
        assert!(
            fs > 2.0 * NOISE_HIGHPASS_HZ,
            "rate too low for the noise squelch"
        );
        let hp = |q| BiquadDesign::highpass(NOISE_HIGHPASS_HZ, fs, q).to_f32();
        Self {
            hp: [hp(0.541_196_1), hp(1.306_563)],
            alpha: (1.0 - libm::exp(-1.0 / (p.smoothing * fs))) as f32,
            open: db_to_lin(-p.open_db) / 12.0,
            close: db_to_lin(p.hysteresis_db - p.open_db) / 12.0,
            gate: Gate {
                hang: libm::round(p.hang * fs) as u32,
            },
        }
    }
}

impl SplitProcess<f32, bool, NoiseSquelchState> for NoiseSquelch {
    #[inline]
    fn process(&self, s: &mut NoiseSquelchState, x: f32) -> bool {
        let mut y = x;
        for (b, st) in self.hp.iter().zip(s.hp.iter_mut()) {
            y = b.process(st, y);
        }
        s.noise += self.alpha * (y * y - s.noise);
        let open = s.noise < self.open;
        let close = s.noise > self.close;
        self.gate.update(&mut s.gate, open, close)
    }
}

fn check(p: &SquelchParams, fs: f64) {
    assert!(
        fs > 0.0 && p.smoothing > 0.0 && p.hang >= 0.0,
        "need fs > 0, smoothing > 0, hang >= 0"
    );
    assert!(
        p.open_db.is_finite() && (0.0..=p.open_db.abs()).contains(&p.hysteresis_db),
        "need 0 <= hysteresis <= |open threshold|"
    );
}

/// Zero `y` wherever the matching `open` flag is false.
///
/// ```
/// use airwaves_core::am::squelch::mute;
/// let mut y = [1.0f32, 2.0, 3.0];
/// mute(&[true, false, true], &mut y);
/// assert_eq!(y, [1.0, 0.0, 3.0]);
/// ```
pub fn mute(open: &[bool], y: &mut [f32]) {
    for (v, &o) in y.iter_mut().zip(open) {
        if !o {
            *v = 0.0;
        }
    }
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use crate::rng::Rng;

    /// Complex noise of power `n` plus a carrier of power `c`.
    fn sample(rng: &mut Rng, c: f64, n: f64) -> C32 {
        let s = libm::sqrt(n / 2.0);
        C32::new(
            (libm::sqrt(c) + s * rng.normal()) as f32,
            (s * rng.normal()) as f32,
        )
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_level_thresholds_and_hysteresis() {
        // From 1 s of noise (power 1e-4), jump to a total power `db` above
        // it for 0.5 s: opens from 5–6 dB (the floor, the minimum of the
        // smoothed power, sits ≈ 0.7 dB under the mean noise). Then, opened
        // at +12 dB, step down 1 dB per 0.5 s: stays open down to 3 dB and
        // closes at 1–2 dB (3 dB hysteresis; the close condition must
        // hold for the whole 0.2 s hang, so fluctuations of the measured
        // power around the close level delay it).
        let fs = 18_750.0;
        let sq = LevelSquelch::new(&SquelchParams::default(), fs);
        let n = 1e-4;
        let run =
            |s: &mut LevelSquelchState, db: f64, secs: f64, seed: u64| -> std::vec::Vec<bool> {
                let mut rng = Rng::new(seed);
                let c = n * (libm::pow(10.0, db / 10.0) - 1.0).max(0.0);
                (0..(fs * secs) as usize)
                    .map(|_| sq.process(s, sample(&mut rng, c, n)))
                    .collect()
            };
        let mut opens = std::vec::Vec::new();
        for tenth in (40..=90).step_by(5) {
            let db = tenth as f64 / 10.0;
            let mut s = LevelSquelchState::default();
            assert!(run(&mut s, 0.0, 1.0, 1).iter().all(|&o| !o));
            let v = run(&mut s, db, 0.5, 2);
            opens.push((db, v[v.len() / 2..].iter().all(|&o| o)));
        }
        std::eprintln!("open after a jump to: {opens:?}");
        let first_open = opens.iter().find(|o| o.1).map(|o| o.0);
        assert!(opens.iter().skip_while(|o| !o.1).all(|o| o.1));
        assert!(
            first_open.is_some_and(|d| (5.0..=6.0).contains(&d)),
            "{first_open:?}"
        );
        let mut s = LevelSquelchState::default();
        run(&mut s, 0.0, 1.0, 1);
        assert!(*run(&mut s, 12.0, 0.5, 3).last().unwrap());
        let mut closed_at = None;
        for db in (0..=11).rev() {
            let v = run(&mut s, db as f64, 0.5, 4 + db);
            if closed_at.is_none() && !*v.last().unwrap() {
                closed_at = Some(db);
            }
        }
        std::eprintln!("closed on the way down at {closed_at:?} dB");
        assert!(
            closed_at.is_some_and(|d| (1..=2).contains(&d)),
            "{closed_at:?}"
        );
        assert!(!s.is_open());
    }

    /// `secs` of channel samples (noise power `n`, a carrier of power
    /// `c` from sample 0) with the band power that goes with them: the
    /// same white noise over a band `band_hz` wide, of which the channel
    /// (noise bandwidth `b`) sees `n`.
    fn band_scene(rng: &mut Rng, c: f64, n: f64, b: f64, band_hz: f64) -> (C32, f32) {
        let x = sample(rng, c, n);
        // The band's noise: density n / b over band_hz, averaged over the
        // 16 input samples per channel sample (2 · 16 real Gaussians).
        let per = n / b * band_hz;
        let mut acc = 0.0;
        for _ in 0..32 {
            let g = rng.normal();
            acc += g * g * per / 2.0;
        }
        (x, (c + acc / 16.0) as f32)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_carrier_from_the_start_opens_with_the_band_reference() {
        // A carrier 10 dB over the channel noise from the first sample: the
        // tracked floor alone takes it for the floor and never opens; with
        // the band reference it opens right after the 50 ms warm-up.
        let fs = 18_750.0;
        let (b, band_hz) = (7_300.0, 300_000.0);
        let p = SquelchParams::default();
        let plain = LevelSquelch::new(&p, fs);
        let banded = plain.with_band(b, band_hz);
        let (mut s1, mut s2) = (LevelSquelchState::default(), LevelSquelchState::default());
        let mut rng = Rng::new(21);
        let mut first_open = None;
        for i in 0..(fs as usize) {
            let (x, band) = band_scene(&mut rng, 1e-3, 1e-4, b, band_hz);
            assert!(!plain.process(&mut s1, x));
            if banded.process_with_band(&mut s2, x, band) && first_open.is_none() {
                first_open = Some(i);
            }
        }
        let ms = first_open.map(|i| i as f64 / fs * 1e3);
        std::eprintln!(
            "carrier from sample 0: opens after {ms:?} ms; noise reference {:.3e} (true 1e-4), SNR {:?} dB",
            s2.noise(),
            s2.snr_db()
        );
        assert!(ms.is_some_and(|t| (50.0..55.0).contains(&t)), "{ms:?}");
        assert!(s2.is_open());
        assert!((s2.noise() / 1e-4 - 1.0).abs() < 0.1, "{}", s2.noise());
        assert!((s2.snr_db().unwrap() - 10.0).abs() < 0.5);
        assert_eq!(s1.snr_db().map(|d| d < 1.0), Some(true));
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_band_reference_noise_only_stays_closed() {
        // 20 s of noise only with the band reference: never opens, and the
        // SNR (signal = P − N) reads far below the 6 dB threshold.
        let fs = 18_750.0;
        let (b, band_hz) = (7_300.0, 300_000.0);
        let sq = LevelSquelch::new(&SquelchParams::default(), fs).with_band(b, band_hz);
        let mut s = LevelSquelchState::default();
        let mut rng = Rng::new(22);
        for _ in 0..20 * fs as usize {
            let (x, band) = band_scene(&mut rng, 0.0, 1e-4, b, band_hz);
            assert!(!sq.process_with_band(&mut s, x, band));
        }
        assert!(s.snr_db().unwrap() < -5.0, "{:?}", s.snr_db());
    }

    #[test]
    fn test_band_reference_floor_is_quantisation() {
        // A band no noisier than the channel (P_band = P): the reference
        // falls back to the cu8 rounding noise in the channel.
        let sq =
            LevelSquelch::new(&SquelchParams::default(), 10_000.0).with_band(5_000.0, 250_000.0);
        let mut s = LevelSquelchState::default();
        for _ in 0..1000 {
            sq.process_with_band(&mut s, C32::new(0.1, 0.0), 0.01);
        }
        let q = (5_000.0 * CU8_QUANTISATION_POWER / 250_000.0) as f32;
        assert_eq!(s.noise(), q);
        assert!(s.is_open());
        assert!((s.snr_db().unwrap() - 10.0 * libm::log10f(0.01 / q)).abs() < 0.01);
    }

    #[test]
    fn test_hang() {
        let fs = 10_000.0;
        let p = SquelchParams {
            hang: 0.05,
            ..SquelchParams::default()
        };
        let sq = LevelSquelch::new(&p, fs);
        let mut s = LevelSquelchState::default();
        let quiet = C32::new(0.01, 0.0);
        let loud = C32::new(0.1, 0.0);
        for _ in 0..2000 {
            sq.process(&mut s, quiet);
        }
        for _ in 0..2000 {
            sq.process(&mut s, loud);
        }
        assert!(s.is_open());
        // The smoothed power falls below the close level (+3 dB) after
        // τ ln 99 ≈ 460 samples (10 ms smoothing, 20 dB step), then the
        // 500 samples of hang.
        let closed_after = (0..2000).position(|_| !sq.process(&mut s, quiet)).unwrap();
        assert!((940..990).contains(&closed_after), "{closed_after}");
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_noise_squelch() {
        // Discriminator output of pure noise: the squelch stays closed;
        // of a clean 1 kHz FM tone: it opens.
        let fs = 18_750.0;
        let sq = NoiseSquelch::new(&SquelchParams::default(), fs);
        let mut s = NoiseSquelchState::default();
        let mut rng = Rng::new(5);
        let d = crate::dsp::phase::Discriminator::new(0.5 / core::f32::consts::PI);
        let mut ds = Default::default();
        for _ in 0..fs as usize {
            let x = C32::new(rng.normal() as f32, rng.normal() as f32);
            let v = crate::dsp::SplitProcess::process(&d, &mut ds, x);
            assert!(!sq.process(&mut s, v));
        }
        std::eprintln!("noise only: {:.1} dB", s.noise_db());
        let mut ph = 0.0f64;
        let mut opened = false;
        for i in 0..fs as usize {
            let f = 2500.0 * libm::sin(2.0 * core::f64::consts::PI * 1000.0 * i as f64 / fs);
            ph += 2.0 * core::f64::consts::PI * f / fs;
            let x = C32::new(
                (libm::cos(ph) + 0.05 * rng.normal()) as f32,
                (libm::sin(ph) + 0.05 * rng.normal()) as f32,
            );
            let v = crate::dsp::SplitProcess::process(&d, &mut ds, x);
            opened = sq.process(&mut s, v);
        }
        std::eprintln!("signal: {:.1} dB", s.noise_db());
        assert!(opened);
    }
}
