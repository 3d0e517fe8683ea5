//! The receiving front end as physics: what an R820T/R828D dongle at a
//! given tuner gain makes of a reply of a given power at a given range.
//!
//! One job: turn powers (dBm at the antenna) into ADC units (full scale
//! 1.0 per component, 128 codes) at a tuner gain, with the noise, the
//! compression and the automatic gain of the tuner. The demo sky
//! ([`super::DemoSky`]) renders with it; the gain it applies is the one set
//! through the driver's gain table ([`GAINS_TENTH_DB`], the same list the
//! R82xx driver offers).
//!
//! # The maths (powers in dBm, gains and losses in dB)
//!
//! - **Path**: free-space loss at 1090 MHz over the slant range `d` (km),
//!   `FSPL = 20 log10 d + 20 log10 1090 + 32.44` (133.2 dB at 100 km).
//!   Received power `P = P_tx − FSPL − L`, with transponder powers
//!   `P_tx` of 125–500 W (51–57 dBm) and `L` the system loss (cable,
//!   connectors, antenna patterns; default 3 dB, both antennas counted as
//!   0 dBi).
//! - **Noise**: thermal noise `kT₀B` = −174 dBm/Hz + 10 log10 `B` in the
//!   noise bandwidth `B` = 0.8 × the sample rate (the demo's noise is
//!   low-passed to 0.8 × f_s/2), raised by the noise figure `NF(g)` of the
//!   cascade (Friis): `F = F_lna + (F_back − 1) / G(g)`, where `F_lna` is
//!   the LNA's noise factor (NF 3.5 dB), `F_back` that of the stages after
//!   the gain-controlled ones (NF 30 dB) and `G(g)` the tuner gain `g` as
//!   a power ratio. At 49.6 dB `NF` ≈ 3.5 dB; at 30 dB 5.1 dB; at 20 dB
//!   10.9 dB; at 0 dB 30 dB: low gain costs sensitivity.
//! - **Scale**: a power `P_fs(g) = P_fs0 − g` at the antenna reaches ADC
//!   full scale (a carrier of amplitude 1.0, power 1.0); `P_fs0` = −34.5 dBm
//!   puts the noise at σ ≈ 6 codes per component at 49.6 dB (−24 dBFS), as
//!   R820T sticks show at full gain with an antenna. A reply of power `P`
//!   has amplitude `A = 10^((P − P_fs(g))/20)`; the noise σ per component
//!   is `128 · sqrt(10^((N − P_fs(g))/10) / 2)` codes.
//! - **Compression**: the LNA output saturates (Rapp model, smoothness 2):
//!   `|y| = |x| / (1 + (|x|/A_sat)⁴)^¼`, phase kept, with `A_sat` the
//!   amplitude at the ADC of an input at the LNA's saturation output power
//!   (−5 dBm) less its gain (the LNA share of `g`, from the driver's
//!   LNA/mixer walk). It acts on the sum of everything on the air, so a
//!   very strong reply also squeezes what overlaps it.
//! - **ADC**: 8 bits, I and Q each clipped at full scale and rounded
//!   (core [`Quantiser`](airwaves_core::modes::modulate::Quantiser)):
//!   quantisation noise is 1/12 code² per component whatever the gain.
//!
//! # Tuner AGC
//!
//! [`TunerAgc`] models the R82xx's own AGC as it acts on bursty 1090 MHz
//! signals: it keeps the strongest envelope it sees near full scale
//! (−1 dBFS), falling at once on a louder peak and creeping up one gain
//! step every [`TunerAgc::RISE_S`] without one.

pub use crate::rtl::r82xx::GAINS_TENTH_DB;
use crate::rtl::r82xx::{lna_gain_tenths, nearest_gain};
use airwaves_core::C32;

/// 1090 MHz, in MHz.
pub const FREQ_MHZ: f64 = 1090.0;
/// Thermal noise density at 290 K, dBm/Hz.
pub const KT0_DBM_HZ: f64 = -174.0;
/// The highest tuner gain, tenths of a dB.
pub const MAX_GAIN_TENTHS: i32 = GAINS_TENTH_DB[GAINS_TENTH_DB.len() - 1];

/// Free-space path loss at 1090 MHz over `d_km` km, dB (`d_km` ≥ 1 m).
///
/// ```
/// use airwaves::demo::frontend::fspl_db;
/// assert!((fspl_db(100.0) - 133.19).abs() < 0.01);
/// ```
pub fn fspl_db(d_km: f64) -> f64 {
    20.0 * d_km.max(1e-3).log10() + 20.0 * FREQ_MHZ.log10() + 32.44
}

/// Transmitter power of `watts` W, in dBm (250 W is 54.0 dBm).
///
/// ```
/// use airwaves::demo::frontend::watts_dbm;
/// assert!((watts_dbm(250.0) - 53.98).abs() < 0.01);
/// ```
pub fn watts_dbm(watts: f64) -> f64 {
    10.0 * (watts * 1e3).log10()
}

/// The front end's fixed properties (configuration). [`Default`]: the
/// values in the module docs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrontEnd {
    /// Cable, connector and antenna-pattern loss between the two antennas'
    /// 0 dBi and the tuner input, dB (default 3).
    pub system_loss_db: f64,
    /// LNA noise figure, dB (default 3.5).
    pub nf_lna_db: f64,
    /// Noise figure of the stages after the gain-controlled ones, referred
    /// to their input, dB (default 30).
    pub nf_back_db: f64,
    /// Antenna power that reaches ADC full scale at tuner gain 0 dB, dBm
    /// (default −34.5).
    pub full_scale_at_0db_dbm: f64,
    /// LNA saturation output power (Rapp), dBm (default −5).
    pub lna_saturation_dbm: f64,
    /// Noise bandwidth as a share of the sample rate (default 0.8).
    pub noise_bandwidth: f64,
}

impl Default for FrontEnd {
    fn default() -> Self {
        Self {
            system_loss_db: 3.0,
            nf_lna_db: 3.5,
            nf_back_db: 30.0,
            full_scale_at_0db_dbm: -34.5,
            lna_saturation_dbm: -5.0,
            noise_bandwidth: 0.8,
        }
    }
}

/// dB to a power ratio.
fn power(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

impl FrontEnd {
    /// Power at the tuner input of a transmitter of `tx_dbm` at `slant_km`,
    /// dBm: `P_tx − FSPL − L`.
    ///
    /// ```
    /// use airwaves::demo::frontend::FrontEnd;
    /// // 250 W at 100 km: 54.0 − 133.2 − 3 dB.
    /// let p = FrontEnd::default().received_dbm(54.0, 100.0);
    /// assert!((p + 82.19).abs() < 0.01);
    /// ```
    pub fn received_dbm(&self, tx_dbm: f64, slant_km: f64) -> f64 {
        tx_dbm - fspl_db(slant_km) - self.system_loss_db
    }

    /// Noise figure of the cascade at tuner gain `gain_tenths`, dB:
    /// `10 log10(F_lna + (F_back − 1)/G)`.
    pub fn noise_figure_db(&self, gain_tenths: i32) -> f64 {
        let g = power(f64::from(gain_tenths) / 10.0);
        10.0 * (power(self.nf_lna_db) + (power(self.nf_back_db) - 1.0) / g).log10()
    }

    /// Input-referred noise power in the noise bandwidth at `sample_rate`
    /// Hz and `gain_tenths`, dBm.
    pub fn noise_dbm(&self, sample_rate: f64, gain_tenths: i32) -> f64 {
        KT0_DBM_HZ
            + 10.0 * (self.noise_bandwidth * sample_rate).log10()
            + self.noise_figure_db(gain_tenths)
    }

    /// Antenna power that reaches ADC full scale at `gain_tenths`, dBm.
    pub fn full_scale_dbm(&self, gain_tenths: i32) -> f64 {
        self.full_scale_at_0db_dbm - f64::from(gain_tenths) / 10.0
    }

    /// Amplitude at the ADC (full scale 1.0) of a signal of `dbm` at the
    /// antenna, before compression and clipping.
    pub fn amplitude(&self, dbm: f64, gain_tenths: i32) -> f64 {
        10f64.powf((dbm - self.full_scale_dbm(gain_tenths)) / 20.0)
    }

    /// Noise rms per component (I or Q) at the ADC, codes (128 = full
    /// scale), without quantisation.
    pub fn noise_rms_codes(&self, sample_rate: f64, gain_tenths: i32) -> f64 {
        let n = self.noise_dbm(sample_rate, gain_tenths) - self.full_scale_dbm(gain_tenths);
        128.0 * (power(n) / 2.0).sqrt()
    }

    /// Rapp saturation amplitude at the ADC (full scale 1.0) at
    /// `gain_tenths`: the input that drives the LNA to its saturation
    /// output, carried to the ADC.
    pub fn saturation_amplitude(&self, gain_tenths: i32) -> f64 {
        let lna_db = f64::from(lna_gain_tenths(gain_tenths)) / 10.0;
        self.amplitude(self.lna_saturation_dbm - lna_db, gain_tenths)
    }
}

/// The LNA's compression of a sample `x` (ADC units) with saturation
/// amplitude `a_sat`: Rapp, smoothness 2, phase kept.
///
/// ```
/// use airwaves::demo::frontend::compress;
/// use airwaves_core::C32;
/// let y = compress(C32::new(1.0, 0.0), 1.0); // at saturation: −3 dB
/// assert!((y.re - 0.8409).abs() < 1e-4 && y.im == 0.0);
/// assert!((compress(C32::new(0.01, 0.0), 1.0).re - 0.01).abs() < 1e-9);
/// ```
#[inline]
pub fn compress(x: C32, a_sat: f32) -> C32 {
    let r2 = (x.re * x.re + x.im * x.im) / (a_sat * a_sat);
    let k = 1.0 / (1.0 + r2 * r2).sqrt().sqrt();
    C32::new(x.re * k, x.im * k)
}

/// The index in [`GAINS_TENTH_DB`] of the listed gain nearest `tenths`.
pub fn gain_index(tenths: i32) -> usize {
    let g = nearest_gain(tenths);
    GAINS_TENTH_DB.iter().position(|&x| x == g).unwrap_or(0)
}

/// The tuner's own AGC (state): the strongest envelope kept near full
/// scale.
#[derive(Debug, Clone, PartialEq)]
pub struct TunerAgc {
    index: usize,
    /// Seconds since the last change.
    since_s: f64,
}

impl TunerAgc {
    /// Seconds without a peak above the target before one step up.
    pub const RISE_S: f64 = 0.2;
    /// Target peak amplitude (−1 dBFS).
    pub const TARGET: f64 = 0.891;

    /// Start at the highest gain.
    pub fn new() -> Self {
        Self {
            index: GAINS_TENTH_DB.len() - 1,
            since_s: 0.0,
        }
    }

    /// The gain now, tenths of a dB.
    pub fn gain_tenths(&self) -> i32 {
        GAINS_TENTH_DB[self.index]
    }

    /// Account for `seconds` of signal whose largest envelope (before
    /// compression and clipping) was `peak` (full scale 1.0): fall to the
    /// highest gain that puts `peak` at or below the target, or rise a step
    /// after [`RISE_S`](Self::RISE_S) of quiet. Returns the gain now.
    pub fn update(&mut self, peak: f64, seconds: f64) -> i32 {
        self.since_s += seconds;
        if peak > Self::TARGET {
            let over = 20.0 * (peak / Self::TARGET).log10();
            let want = f64::from(self.gain_tenths()) / 10.0 - over;
            let i = GAINS_TENTH_DB
                .iter()
                .rposition(|&g| f64::from(g) / 10.0 <= want)
                .unwrap_or(0);
            if i < self.index {
                self.index = i;
                self.since_s = 0.0;
            }
        } else if self.since_s >= Self::RISE_S && self.index + 1 < GAINS_TENTH_DB.len() {
            // Rise only if the step keeps the peak under the target.
            let step = f64::from(GAINS_TENTH_DB[self.index + 1] - self.gain_tenths()) / 10.0;
            if peak * 10f64.powf(step / 20.0) <= Self::TARGET {
                self.index += 1;
            }
            self.since_s = 0.0;
        }
        self.gain_tenths()
    }
}

impl Default for TunerAgc {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod test {
    use super::*;

    /// The figures stated in the module docs.
    #[test]
    fn test_link_budget() {
        let fe = FrontEnd::default();
        assert!((fspl_db(100.0) - 133.19).abs() < 0.01);
        assert!((fspl_db(1.0) - 93.19).abs() < 0.01);
        assert!((watts_dbm(125.0) - 50.97).abs() < 0.01);
        assert!((watts_dbm(500.0) - 56.99).abs() < 0.01);
        for (g, nf) in [(496, 3.52), (300, 5.10), (200, 10.87), (0, 30.0)] {
            let got = fe.noise_figure_db(g);
            assert!((got - nf).abs() < 0.05, "{g}: {got}");
        }
        // −174 + 10 log10(1.92e6) + 3.52 = −107.65 dBm at 2.4 MS/s.
        assert!((fe.noise_dbm(2.4e6, 496) + 107.65).abs() < 0.05);
        let sigma = fe.noise_rms_codes(2.4e6, 496);
        assert!((sigma - 6.0).abs() < 0.3, "{sigma}");
        // 20 dB less gain: 10× less noise amplitude, plus the worse NF.
        let low = fe.noise_rms_codes(2.4e6, 297);
        assert!(low < sigma / 8.0 && low > sigma / 12.0, "{low}");
        // Full scale at 49.6 dB: −84.1 dBm; a 250 W reply at 100 km is
        // 1.9 dB above it.
        let a = fe.amplitude(fe.received_dbm(54.0, 100.0), 496);
        assert!((20.0 * a.log10() - 1.91).abs() < 0.05, "{a}");
        // The LNA saturates 45.6 dB above full scale at 49.6 dB (−38.5 dBm
        // in), 29.5 dB above it at 0 dB (−5 dBm in).
        let s = 20.0 * fe.saturation_amplitude(496).log10();
        assert!((s - 45.6).abs() < 0.05, "{s}");
        let s0 = 20.0 * fe.saturation_amplitude(0).log10();
        assert!((s0 - 29.5).abs() < 0.05, "{s0}");
    }

    #[test]
    fn test_compression_monotonic_and_bounded() {
        let mut last = 0.0;
        for k in 0..200 {
            let x = 0.05 * f64::from(k) as f32;
            let y = compress(C32::new(x, 0.0), 1.0).re;
            assert!(y >= last && y <= 1.0 + 1e-6, "{x}: {y}");
            last = y;
        }
        // Phase is kept.
        let y = compress(C32::new(3.0, 4.0), 1.0);
        assert!((y.im / y.re - 4.0 / 3.0).abs() < 1e-5);
    }

    #[test]
    fn test_gain_index() {
        assert_eq!(gain_index(496), 28);
        assert_eq!(gain_index(0), 0);
        assert_eq!(gain_index(200), 11); // nearest is 19.7
        assert_eq!(GAINS_TENTH_DB.len(), 29);
    }

    /// The AGC falls at once to put a loud peak under −1 dBFS, and climbs
    /// back a step per RISE_S once the peaks are gone.
    #[test]
    fn test_tuner_agc() {
        let mut agc = TunerAgc::new();
        assert_eq!(agc.gain_tenths(), 496);
        // A peak 20 dB over full scale at 49.6 dB: down to ≤ 28.6 dB.
        let g = agc.update(10.0, 0.01);
        assert_eq!(g, 280);
        // The same source now reads 10 × 10^(−21.6/20): under the target.
        let peak = 10.0 * 10f64.powf(-21.6 / 20.0);
        for _ in 0..100 {
            assert_eq!(agc.update(peak, 0.01), 280, "must not rise into it");
        }
        // Quiet: a step per 0.2 s back to the top.
        let mut t = 0.0;
        while agc.update(0.05, 0.01) < 496 {
            t += 0.01;
            assert!(t < 29.0 * 0.25);
        }
        assert!(t > 10.0 * 0.19, "{t}");
    }
}
