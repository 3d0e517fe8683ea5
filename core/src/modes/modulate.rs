//! Mode S and Mode A/C transmitter model: renders replies as complex
//! baseband into a caller's buffer, and quantises the result to `cu8`.
//!
//! This is the test-signal side of the receiver: scene generators, the
//! demodulator's tests and benchmarks use it to make IQ with known content
//! and known timing. Nothing here allocates or panics, for any input.
//!
//! # Waveforms
//!
//! All times are from the leading edge of the first pulse (ICAO Annex 10
//! Vol IV §3.1.2.1 for Mode S, §3.1.1.6 for Mode A/C replies):
//!
//! - **Mode S** ([`Modulator::add_mode_s`]): preamble pulses at 0, 1.0, 3.5
//!   and 4.5 µs, each 0.5 µs wide; data bit `k` (0-based, MSB of byte 0
//!   first) occupies `8 + k … 9 + k` µs, a `1` being a pulse in its first
//!   half, a `0` one in its second half (pulse position modulation). 56 or
//!   112 bits: 64 or 120 µs in all.
//! - **Mode A/C** ([`Modulator::add_mode_ac`]): framing pulses F1 at 0 and
//!   F2 at 20.3 µs, between them 13 positions at `k · 1.45` µs
//!   (`k` = 1…13) for `C1 A1 C2 A2 C4 A4 X B1 D1 B2 D2 B4 D4`, and the SPI
//!   pulse at 24.65 µs; each pulse 0.45 µs wide. The order of the 13
//!   positions is exactly the bit order of a 13-bit identity code
//!   ([`IdentityCode::raw`](super::frame::IdentityCode::raw), bit 12 =
//!   C1 … bit 0 = D4), so `IdentityCode::from_squawk(0x7500).raw()` is
//!   the pulse pattern of a Mode A 7500 reply. Mode C replies carry the
//!   Gillham altitude code in the same positions.
//!
//! # Sampling and band limiting
//!
//! The time axis is in samples, and **sample `n` is centred at `t = n`**:
//! it holds the mean of the continuous signal over `n − ½ ≤ t < n + ½`
//! (an ideal integrate-and-dump sampler; one sample lasts `1 / f_s`). For a
//! rectangular pulse of amplitude `A` on `[t₀, t₁)` and a carrier offset
//! `ω` (radians per sample) with phase `φ` at the reply's start `s`, the
//! value added to sample `n` is the exact integral over the overlap
//! `[a, b) = [max(t₀, n − ½), min(t₁, n + ½))`:
//!
//! `∫ₐᵇ A e^{j(ω(t − s) + φ)} dt = A (b − a) sinc(ω (b − a) / 2) e^{j(ω(m − s) + φ)}`,
//! `m = (a + b) / 2`, `sinc x = sin x / x`.
//!
//! This choice (rather than raised-cosine edges) is documented here
//! because it has the properties a test signal needs:
//!
//! - **Exact and timing-faithful.** A pulse's rendered area is exactly
//!   `A · width · f_s` whatever its fractional start (tested), so a
//!   sub-sample shift moves energy between neighbouring samples without
//!   changing the total; overlapping replies add linearly.
//! - **Band-limited.** The sample-window integral is a `sinc` low-pass with
//!   its first null at `f_s`, so the rendered pulse has no aliasing
//!   staircase of nearest-sample rectangles. Real transponders' edges
//!   (0.05–0.1 µs rise) are much shorter than a sample at 2–2.4 MS/s
//!   (0.42–0.5 µs), so modelling them as instantaneous costs little; the
//!   receiver's own anti-alias filter (the RTL2832U decimator), which a
//!   scene generator applies after rendering, sets the final bandwidth.
//! - **Chunk-invariant.** Each sample's value depends only on its own
//!   window, so a reply that spans two buffers renders identically when
//!   drawn into each buffer with its start shifted by the buffer offset
//!   (starts may be negative or beyond the buffer; samples outside it are
//!   skipped).
//!
//! The carrier phase is continuous over a whole reply (one oscillator), as
//! in a real transponder.
//!
//! # Pulse edges and amplitude slope
//!
//! By default pulses are rectangles. [`Burst::with_edges`] gives every
//! pulse finite edges, as a transponder's are: a linear ramp whose
//! 10–90 % time is the rise (or decay) time, centred on the nominal edge
//! so the pulse's 50 % width and area are unchanged. DO-181 (as quoted in
//! the Rockwell Collins TDR-94 maintenance manual, §34-50-96 "Mode S Reply
//! Pulse Shape") bounds the rise time by 0.1 µs and the decay time by
//! 0.2 µs. The ramp integral over a sample window is done by 4-point
//! Gauss–Legendre quadrature (the flat part stays exact).
//! [`Burst::with_slope`] makes the amplitude change steadily over the
//! reply (dB per µs, one value per pulse, taken at the pulse's centre); the
//! same source bounds the variation between any two pulses of a reply by
//! 2 dB.
//!
//! # Quantisation
//!
//! [`Quantiser`] turns `C32` (full scale ±1.0) into RTL-SDR style `cu8`
//! bytes, the inverse of [`Cu8`](crate::dsp::convert::Cu8):
//! `b = clamp(⌊z + 128 (x + dc) + ½⌋, 0, 255)` with the zero level `z`
//! (127.4 for the RTL-SDR).

use core::fmt;

use crate::C32;

/// Leading edges of the four Mode S preamble pulses, µs.
pub const PREAMBLE_PULSES_US: [f64; 4] = [0.0, 1.0, 3.5, 4.5];
/// Length of the Mode S preamble (the first data bit starts here), µs.
pub const PREAMBLE_US: f64 = 8.0;
/// Width of every Mode S pulse (preamble and data), µs.
pub const MODE_S_PULSE_US: f64 = 0.5;
/// Length of one Mode S data bit, µs.
pub const BIT_US: f64 = 1.0;
/// Width of a Mode A/C pulse, µs.
pub const MODE_AC_PULSE_US: f64 = 0.45;
/// Spacing of the Mode A/C code positions, µs.
pub const MODE_AC_SPACING_US: f64 = 1.45;
/// Leading edge of the second framing pulse F2, µs (14 × 1.45).
pub const MODE_AC_F2_US: f64 = 20.3;
/// Leading edge of the SPI pulse, µs (17 × 1.45).
pub const MODE_AC_SPI_US: f64 = 24.65;
/// Length of a Mode A/C reply with SPI, µs (end of the SPI pulse).
pub const MODE_AC_LEN_US: f64 = MODE_AC_SPI_US + MODE_AC_PULSE_US;

/// Errors from [`Modulator::add_mode_s`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ModulateError {
    /// The frame is neither 7 nor 14 bytes long.
    Length {
        /// The frame length given, bytes.
        got: usize,
    },
}

impl fmt::Display for ModulateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Length { got } => write!(f, "Mode S frame of {got} bytes, expected 7 or 14"),
        }
    }
}

impl core::error::Error for ModulateError {}

/// Where, how strong and on which carrier one reply is rendered.
///
/// ```
/// use airwaves_core::modes::modulate::Burst;
/// let b = Burst::new(100.25, 0.5).with_carrier(-50e3, 1.0);
/// assert_eq!((b.start, b.amplitude, b.carrier_hz, b.phase), (100.25, 0.5, -50e3, 1.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Burst {
    /// Leading edge of the first pulse, in samples of the output buffer
    /// (sample `n` is centred at `t = n`, see the
    /// [module docs](self#sampling-and-band-limiting)). May be negative or
    /// beyond the buffer; non-finite starts render nothing.
    pub start: f64,
    /// Pulse amplitude (complex envelope magnitude of a pulse's flat top),
    /// full scale 1.0.
    pub amplitude: f32,
    /// Carrier offset from the tuned frequency, Hz (positive = above).
    pub carrier_hz: f32,
    /// Carrier phase at `start`, radians.
    pub phase: f32,
    /// Rise time of every pulse's leading edge, 10 % to 90 % of the
    /// amplitude, µs (0 = instantaneous). The edge is a linear ramp of
    /// `rise_us / 0.8` µs centred on the nominal edge, so the pulse's
    /// 50 % points, its width and its area stay as for a rectangle.
    pub rise_us: f32,
    /// Decay time of every pulse's trailing edge, 90 % to 10 %, µs,
    /// modelled like [`rise_us`](Self::rise_us).
    pub fall_us: f32,
    /// Amplitude slope over the reply, dB per µs: a pulse whose centre is
    /// `u` µs after `start` has amplitude `amplitude · 10^(slope · u / 20)`
    /// (0 = flat; negative = droop).
    pub slope_db_per_us: f32,
}

impl Burst {
    /// A burst at `start` (samples) with `amplitude`, on the tuned
    /// frequency with phase 0.
    pub const fn new(start: f64, amplitude: f32) -> Self {
        Self {
            start,
            amplitude,
            carrier_hz: 0.0,
            phase: 0.0,
            rise_us: 0.0,
            fall_us: 0.0,
            slope_db_per_us: 0.0,
        }
    }

    /// The same burst with pulse edges of `rise_us` (10–90 %) and
    /// `fall_us` (90–10 %), µs, each a linear ramp centred on the nominal
    /// edge (see [`rise_us`](Self::rise_us)).
    ///
    /// ```
    /// use airwaves_core::modes::modulate::{Burst, Modulator};
    /// use airwaves_core::C32;
    /// let m = Modulator::new(20.0e6).unwrap(); // 20 samples per µs
    /// let mut buf = [C32::new(0.0, 0.0); 16];
    /// // 0.1 µs rise: a 2.5-sample ramp centred on t = 3.
    /// m.add_pulse(0.0, 0.5, &Burst::new(3.0, 1.0).with_edges(0.1, 0.1), &mut buf);
    /// assert!(buf[1].re == 0.0 && buf[2].re > 0.0 && buf[2].re < 0.5);
    /// let area: f32 = buf.iter().map(|c| c.re).sum();
    /// assert!((area - 10.0).abs() < 1e-4); // 0.5 µs × 20 samples/µs
    /// ```
    pub const fn with_edges(self, rise_us: f32, fall_us: f32) -> Self {
        Self {
            rise_us,
            fall_us,
            ..self
        }
    }

    /// The same burst with an amplitude slope of `db_per_us` dB per µs
    /// over the reply (see [`slope_db_per_us`](Self::slope_db_per_us)).
    pub const fn with_slope(self, db_per_us: f32) -> Self {
        Self {
            slope_db_per_us: db_per_us,
            ..self
        }
    }

    /// The same burst with carrier offset `carrier_hz` (Hz) and initial
    /// phase `phase` (radians).
    pub const fn with_carrier(self, carrier_hz: f32, phase: f32) -> Self {
        Self {
            carrier_hz,
            phase,
            ..self
        }
    }
}

/// Renders Mode S and Mode A/C replies at a given sample rate (the
/// configuration; the buffer is the only state).
///
/// ```
/// use airwaves_core::modes::modulate::{Burst, Modulator};
/// use airwaves_core::C32;
/// let m = Modulator::new(2.0e6).unwrap();
/// let mut buf = [C32::new(0.0, 0.0); 140];
/// // DF11 all-call; start 0.5 puts every half-bit exactly on one sample.
/// let frame = [0x5D, 0x48, 0x40, 0xD6, 0x29, 0x4B, 0x6E];
/// m.add_mode_s(&frame, &Burst::new(0.5, 1.0), &mut buf)?;
/// assert_eq!(buf[1].re, 1.0); // preamble pulse 1
/// assert_eq!(buf[2].re, 0.0);
/// assert_eq!(buf[17].re, 0.0); // first data bit is 0: pulse in its second half
/// assert_eq!(buf[18].re, 1.0);
/// # Ok::<(), airwaves_core::modes::modulate::ModulateError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Modulator {
    /// Sample rate, Hz.
    rate: f64,
    /// Samples per µs.
    per_us: f64,
}

impl Modulator {
    /// A modulator for `sample_rate_hz` (any finite rate > 0, e.g. 2.0e6 or
    /// 2.4e6); `None` otherwise.
    ///
    /// ```
    /// use airwaves_core::modes::modulate::Modulator;
    /// assert_eq!(Modulator::new(2.4e6).unwrap().samples_per_us(), 2.4);
    /// assert!(Modulator::new(0.0).is_none());
    /// ```
    pub fn new(sample_rate_hz: f64) -> Option<Self> {
        (sample_rate_hz.is_finite() && sample_rate_hz > 0.0).then_some(Self {
            rate: sample_rate_hz,
            per_us: sample_rate_hz * 1e-6,
        })
    }

    /// The sample rate, Hz.
    pub const fn sample_rate_hz(&self) -> f64 {
        self.rate
    }

    /// Samples per microsecond.
    pub const fn samples_per_us(&self) -> f64 {
        self.per_us
    }

    /// Duration of a Mode S reply of `frame_len` bytes (preamble included),
    /// in samples: `(8 + 8 · frame_len) µs · f_s`.
    ///
    /// ```
    /// use airwaves_core::modes::modulate::Modulator;
    /// assert_eq!(Modulator::new(2.0e6).unwrap().mode_s_len(14), 240.0);
    /// ```
    pub fn mode_s_len(&self, frame_len: usize) -> f64 {
        (PREAMBLE_US + BIT_US * 8.0 * frame_len as f64) * self.per_us
    }

    /// Duration of a Mode A/C reply (to the end of the SPI pulse position),
    /// in samples.
    pub fn mode_ac_len(&self) -> f64 {
        MODE_AC_LEN_US * self.per_us
    }

    /// Add one rectangular pulse of `width_us` µs whose leading edge is
    /// `offset_us` µs after `burst.start`, with the burst's amplitude and
    /// carrier (the carrier phase is referred to `burst.start`). Samples
    /// outside `out` are skipped. See the
    /// [module docs](self#sampling-and-band-limiting) for the integral.
    ///
    /// ```
    /// use airwaves_core::modes::modulate::{Burst, Modulator};
    /// use airwaves_core::C32;
    /// let m = Modulator::new(2.0e6).unwrap();
    /// let mut buf = [C32::new(0.0, 0.0); 4];
    /// m.add_pulse(0.0, 0.5, &Burst::new(1.25, 1.0), &mut buf);
    /// assert_eq!(buf.map(|c| c.re), [0.0, 0.25, 0.75, 0.0]);
    /// ```
    pub fn add_pulse(&self, offset_us: f64, width_us: f64, burst: &Burst, out: &mut [C32]) {
        let omega = core::f64::consts::TAU * f64::from(burst.carrier_hz) / self.rate;
        let t0 = burst.start + offset_us * self.per_us;
        let t1 = t0 + width_us * self.per_us;
        self.render(t0, t1, omega, burst, out);
    }

    /// Render one pulse whose 50 % points are `t0` and `t1` (samples),
    /// with carrier `omega` rad/sample, the burst's edges
    /// ([`Burst::with_edges`]) and amplitude slope
    /// ([`Burst::with_slope`]).
    #[inline]
    fn render(&self, t0: f64, t1: f64, omega: f64, burst: &Burst, out: &mut [C32]) {
        if !(t0.is_finite() && t1.is_finite() && t1 > t0) {
            return;
        }
        // Amplitude at the pulse's centre, µs after the burst's start.
        let centre_us = (0.5 * (t0 + t1) - burst.start) / self.per_us;
        let amp = f64::from(burst.amplitude)
            * libm::pow(10.0, f64::from(burst.slope_db_per_us) * centre_us / 20.0);
        // Ramp lengths (0 → 100 %), samples: a linear ramp's 10–90 % time
        // is 0.8 of its length. Shortened together if they would overlap.
        let mut up = f64::from(burst.rise_us.max(0.0)) / 0.8 * self.per_us;
        let mut down = f64::from(burst.fall_us.max(0.0)) / 0.8 * self.per_us;
        if !(up.is_finite() && down.is_finite()) {
            return;
        }
        let width = t1 - t0;
        if 0.5 * (up + down) > width {
            let k = width / (0.5 * (up + down));
            up *= k;
            down *= k;
        }
        let flat0 = t0 + 0.5 * up;
        let flat1 = t1 - 0.5 * down;
        self.rect(flat0, flat1, amp, omega, burst, out);
        if up > 0.0 {
            self.ramp(t0 - 0.5 * up, flat0, true, amp, omega, burst, out);
        }
        if down > 0.0 {
            self.ramp(flat1, t1 + 0.5 * down, false, amp, omega, burst, out);
        }
    }

    /// Call `f(a, b, y)` for every sample `y` of `out` whose window
    /// `[n − ½, n + ½)` overlaps `[t0, t1)`, with the overlap `[a, b)`
    /// (`b > a`).
    #[inline]
    fn each_overlap(t0: f64, t1: f64, out: &mut [C32], mut f: impl FnMut(f64, f64, &mut C32)) {
        if t1 <= t0 {
            return;
        }
        let len = out.len() as f64;
        let lo = libm::floor(t0 + 0.5).clamp(0.0, len);
        let hi = libm::ceil(t1 + 0.5).clamp(0.0, len);
        if hi <= lo {
            return;
        }
        // `lo`, `hi` are integers in 0..=len, so the casts are exact.
        let (lo, hi) = (lo as usize, hi as usize);
        let Some(dst) = out.get_mut(lo..hi) else {
            return;
        };
        for (k, y) in dst.iter_mut().enumerate() {
            let n = (lo + k) as f64;
            let a = t0.max(n - 0.5);
            let b = t1.min(n + 0.5);
            if b > a {
                f(a, b, y);
            }
        }
    }

    /// Add the flat part `[t0, t1)` with amplitude `amp`: the exact
    /// integral over each sample window (module docs).
    #[inline]
    fn rect(&self, t0: f64, t1: f64, amp: f64, omega: f64, burst: &Burst, out: &mut [C32]) {
        let phase = f64::from(burst.phase);
        Self::each_overlap(t0, t1, out, |a, b, y| {
            let w = b - a;
            let mag = amp * w * sinc(0.5 * omega * w);
            let (s, c) = libm::sincos(omega * (0.5 * (a + b) - burst.start) + phase);
            y.re += (mag * c) as f32;
            y.im += (mag * s) as f32;
        });
    }

    /// Add a linear ramp on `[t0, t1)`: envelope `amp (t − t0)/(t1 − t0)`
    /// if `rising`, else `amp (t1 − t)/(t1 − t0)`, integrated over each
    /// sample window by 4-point Gauss–Legendre quadrature (the integrand,
    /// a line times `e^{jωt}` over at most one sample with `|ω| ≤ π`, is
    /// integrated to about `(ω w)⁸ / 10⁷` relative error).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn ramp(
        &self,
        t0: f64,
        t1: f64,
        rising: bool,
        amp: f64,
        omega: f64,
        burst: &Burst,
        out: &mut [C32],
    ) {
        // Nodes and weights on [−1, 1].
        const X: [f64; 4] = [
            -0.861_136_311_594_052_6,
            -0.339_981_043_584_856_3,
            0.339_981_043_584_856_3,
            0.861_136_311_594_052_6,
        ];
        const W: [f64; 4] = [
            0.347_854_845_137_453_9,
            0.652_145_154_862_546_1,
            0.652_145_154_862_546_1,
            0.347_854_845_137_453_9,
        ];
        let len = t1 - t0;
        let phase = f64::from(burst.phase);
        Self::each_overlap(t0, t1, out, |a, b, y| {
            let w = b - a;
            let (mut re, mut im) = (0f64, 0f64);
            for (x, g) in X.iter().zip(W) {
                let t = 0.5 * (a + b) + 0.5 * w * x;
                let env = if rising { t - t0 } else { t1 - t } / len;
                let (s, c) = libm::sincos(omega * (t - burst.start) + phase);
                re += g * env * c;
                im += g * env * s;
            }
            let scale = 0.5 * w * amp;
            y.re += (scale * re) as f32;
            y.im += (scale * im) as f32;
        });
    }

    /// Add a Mode S reply (7 or 14 bytes: preamble, then the bits MSB
    /// first) into `out`. Runs of pulses that touch (a `1` after a `0`)
    /// are rendered as one pulse, which is the same waveform.
    ///
    /// # Errors
    /// [`ModulateError::Length`] if `frame` is not 7 or 14 bytes (nothing is
    /// rendered).
    pub fn add_mode_s(
        &self,
        frame: &[u8],
        burst: &Burst,
        out: &mut [C32],
    ) -> Result<(), ModulateError> {
        if frame.len() != 7 && frame.len() != 14 {
            return Err(ModulateError::Length { got: frame.len() });
        }
        let omega = core::f64::consts::TAU * f64::from(burst.carrier_hz) / self.rate;
        let at = |us: f64| burst.start + us * self.per_us;
        for p in PREAMBLE_PULSES_US {
            self.render(at(p), at(p + MODE_S_PULSE_US), omega, burst, out);
        }
        // Bit k's pulse starts at half-bit 2k (a 1) or 2k + 1 (a 0) from
        // the data start and lasts one half-bit; a pulse that starts where
        // the previous one ends extends it.
        let mut run: Option<(u32, u32)> = None; // [first, end) in half-bits
        let bits = frame.len() as u32 * 8;
        for k in 0..bits {
            let byte = frame.get((k / 8) as usize).copied().unwrap_or(0);
            let one = byte & (0x80 >> (k % 8)) != 0;
            let h = 2 * k + u32::from(!one);
            run = match run {
                Some((first, end)) if end == h => Some((first, h + 1)),
                Some((first, end)) => {
                    self.render_half_bits(first, end, omega, burst, out);
                    Some((h, h + 1))
                }
                None => Some((h, h + 1)),
            };
        }
        if let Some((first, end)) = run {
            self.render_half_bits(first, end, omega, burst, out);
        }
        Ok(())
    }

    /// Render the data-field half-bits `[first, end)`.
    #[inline]
    fn render_half_bits(&self, first: u32, end: u32, omega: f64, burst: &Burst, out: &mut [C32]) {
        let half = 0.5 * BIT_US * self.per_us;
        let t = burst.start + PREAMBLE_US * self.per_us;
        self.render(
            t + f64::from(first) * half,
            t + f64::from(end) * half,
            omega,
            burst,
            out,
        );
    }

    /// Add a Mode A/C reply into `out`: F1, the code pulses of `code` (13
    /// bits, bit 12 = C1 at 1.45 µs … bit 0 = D4 at 18.85 µs, the layout of
    /// [`IdentityCode::raw`](super::frame::IdentityCode::raw); bits above
    /// 13 are ignored), F2, and the SPI pulse if `spi`.
    ///
    /// ```
    /// use airwaves_core::modes::frame::IdentityCode;
    /// use airwaves_core::modes::modulate::{Burst, Modulator};
    /// use airwaves_core::C32;
    /// let m = Modulator::new(20.0e6).unwrap(); // 20 samples per µs
    /// let mut buf = [C32::new(0.0, 0.0); 520];
    /// let code = IdentityCode::from_squawk(0x7500).raw();
    /// m.add_mode_ac(code, false, &Burst::new(0.0, 1.0), &mut buf);
    /// let pulses = buf.iter().map(|c| c.re).sum::<f32>() / (0.45 * 20.0);
    /// assert!((pulses - (2.0 + code.count_ones() as f32)).abs() < 1e-4);
    /// ```
    pub fn add_mode_ac(&self, code: u16, spi: bool, burst: &Burst, out: &mut [C32]) {
        let omega = core::f64::consts::TAU * f64::from(burst.carrier_hz) / self.rate;
        let mut pulse = |us: f64| {
            let t0 = burst.start + us * self.per_us;
            self.render(t0, t0 + MODE_AC_PULSE_US * self.per_us, omega, burst, out);
        };
        pulse(0.0);
        for k in 1..=13u32 {
            if code & (1 << (13 - k)) != 0 {
                pulse(f64::from(k) * MODE_AC_SPACING_US);
            }
        }
        pulse(MODE_AC_F2_US);
        if spi {
            pulse(MODE_AC_SPI_US);
        }
    }
}

/// `sin x / x`, with the series near 0.
#[inline]
fn sinc(x: f64) -> f64 {
    if x.abs() < 1e-4 {
        1.0 - x * x / 6.0
    } else {
        libm::sin(x) / x
    }
}

/// What [`Quantiser::block`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Quantised {
    /// Complex samples written (`min(x.len(), out.len() / 2)`).
    pub samples: usize,
    /// Values (I or Q, each counted) that fell outside 0…255 and were
    /// clipped; non-finite values count as clipped and read as 0.
    pub clipped: usize,
}

/// Final 8-bit quantisation to `cu8`, the inverse of
/// [`Cu8`](crate::dsp::convert::Cu8): each of I and Q becomes
/// `clamp(⌊z + 128 (x + dc) + ½⌋, 0, 255)` (round half up, then clip),
/// with zero level `z` and DC offset `dc` (full-scale units, separate for I
/// and Q).
///
/// ```
/// use airwaves_core::modes::modulate::Quantiser;
/// use airwaves_core::C32;
/// let q = Quantiser::new(127.4, C32::new(0.0, 0.0));
/// assert_eq!(q.sample(C32::new(0.0, 1.0)), ([127, 255], 0));
/// assert_eq!(q.sample(C32::new(-1.0, 2.0)), ([0, 255], 2));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Quantiser {
    /// Zero level, codes.
    zero: f32,
    /// DC offset of I and Q, full-scale units (kept as plain `f32`s so
    /// that the type can derive `defmt::Format`).
    dc: [f32; 2],
}

impl Default for Quantiser {
    /// [`Quantiser::RTL_SDR`].
    fn default() -> Self {
        Self::RTL_SDR
    }
}

impl Quantiser {
    /// Zero level 127.4 (the RTL-SDR's, as in
    /// [`Cu8::RTL_SDR`](crate::dsp::convert::Cu8::RTL_SDR)), no DC offset.
    pub const RTL_SDR: Self = Self::new(127.4, C32::new(0.0, 0.0));

    /// A quantiser with zero level `zero` (codes) and DC offset `dc`
    /// (full-scale units: one code is 1/128).
    ///
    /// ```
    /// use airwaves_core::modes::modulate::Quantiser;
    /// use airwaves_core::C32;
    /// let q = Quantiser::new(127.4, C32::new(1.0 / 128.0, -1.0 / 128.0));
    /// assert_eq!(q.sample(C32::new(0.0, 0.0)).0, [128, 126]);
    /// ```
    pub const fn new(zero: f32, dc: C32) -> Self {
        Self {
            zero,
            dc: [dc.re, dc.im],
        }
    }

    /// One value to a code; `true` if clipped.
    #[inline(always)]
    fn code(&self, x: f32, dc: f32) -> (u8, bool) {
        let v = libm::floorf(self.zero + 128.0 * (x + dc) + 0.5);
        if (0.0..=255.0).contains(&v) {
            // In range and integral: exact.
            (v as u8, false)
        } else if v > 255.0 {
            (255, true)
        } else {
            (0, true)
        }
    }

    /// One sample to `[I, Q]` codes and the number of them clipped (0–2).
    #[inline]
    pub fn sample(&self, x: C32) -> ([u8; 2], u8) {
        let (i, ci) = self.code(x.re, self.dc[0]);
        let (q, cq) = self.code(x.im, self.dc[1]);
        ([i, q], u8::from(ci) + u8::from(cq))
    }

    /// Quantise `x` into interleaved `I, Q` bytes: converts
    /// `n = min(x.len(), out.len() / 2)` samples; bytes past `2n` are left
    /// alone.
    ///
    /// ```
    /// use airwaves_core::modes::modulate::Quantiser;
    /// use airwaves_core::C32;
    /// let mut out = [0u8; 5];
    /// let r = Quantiser::RTL_SDR.block(&[C32::new(0.5, -0.5); 3], &mut out);
    /// assert_eq!((r.samples, r.clipped), (2, 0));
    /// assert_eq!(out, [191, 63, 191, 63, 0]);
    /// ```
    pub fn block(&self, x: &[C32], out: &mut [u8]) -> Quantised {
        let mut clipped = 0;
        let mut samples = 0;
        for (s, o) in x.iter().zip(out.chunks_exact_mut(2)) {
            let (b, c) = self.sample(*s);
            o.copy_from_slice(&b);
            clipped += usize::from(c);
            samples += 1;
        }
        Quantised { samples, clipped }
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::dsp::convert::Cu8;

    extern crate std;
    use std::vec;
    use std::vec::Vec;

    const ZERO: C32 = C32::new(0.0, 0.0);

    /// DF17 identification, The 1090 MHz Riddle §3.5.
    static FRAME_BYTES: [u8; 14] = [
        0x8D, 0x48, 0x40, 0xD6, 0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x2C, 0xE0, 0x57, 0x60, 0x98,
    ];

    fn bits(frame: &[u8]) -> impl Iterator<Item = bool> + '_ {
        (0..frame.len() * 8).map(move |k| frame[k / 8] & (0x80 >> (k % 8)) != 0)
    }

    /// Sum of `|x|²` over the time window `[t0, t1)` (samples) at a rate
    /// high enough that windows cover whole samples.
    fn energy(buf: &[C32], t0: f64, t1: f64) -> f64 {
        let lo = (libm::ceil(t0) as usize).min(buf.len());
        let hi = (libm::ceil(t1) as usize).min(buf.len());
        buf[lo..hi].iter().map(|c| f64::from(c.norm_sqr())).sum()
    }

    #[test]
    fn test_half_bit_energy() {
        // 20 MS/s: 10 samples per half-bit; a fractional start and a
        // carrier offset.
        let m = Modulator::new(20e6).unwrap();
        let start = 7.37;
        let burst = Burst::new(start, 0.8).with_carrier(120e3, 0.3);
        let mut buf = vec![ZERO; 2500];
        m.add_mode_s(&FRAME_BYTES, &burst, &mut buf).unwrap();
        let per = m.samples_per_us();
        for (k, one) in bits(&FRAME_BYTES).enumerate() {
            let b0 = start + (8.0 + k as f64) * per;
            let first = energy(&buf, b0, b0 + 0.5 * per);
            let second = energy(&buf, b0 + 0.5 * per, b0 + per);
            let (on, off) = if one {
                (first, second)
            } else {
                (second, first)
            };
            // A half-bit holds 10 samples of 0.64; the boundary samples
            // share with neighbours.
            assert!(on > 0.64 * 8.0, "bit {k}: on {on}");
            assert!(off < 0.64 * 1.0, "bit {k}: off {off}");
        }
        // 2 MS/s with start 0.5: every half-bit is exactly one sample.
        let m = Modulator::new(2e6).unwrap();
        let mut buf = vec![ZERO; 260];
        m.add_mode_s(&FRAME_BYTES, &Burst::new(0.5, 1.0), &mut buf)
            .unwrap();
        let mut want = vec![0.0f32; 260];
        for p in [1, 3, 8, 10] {
            want[p] = 1.0;
        }
        for (k, one) in bits(&FRAME_BYTES).enumerate() {
            want[17 + 2 * k + usize::from(!one)] = 1.0;
        }
        let got: Vec<f32> = buf.iter().map(|c| c.re).collect();
        assert_eq!(got, want);
        assert!(buf.iter().all(|c| c.im == 0.0));
    }

    #[test]
    fn test_pulse_area_independent_of_offset() {
        for rate in [2.0e6, 2.4e6, 3.2e6] {
            let m = Modulator::new(rate).unwrap();
            let want = 0.7 * 0.5 * m.samples_per_us();
            for i in 0..50 {
                let start = 3.0 + f64::from(i) / 50.0;
                let mut buf = [ZERO; 12];
                m.add_pulse(0.0, 0.5, &Burst::new(start, 0.7), &mut buf);
                let area: f64 = buf.iter().map(|c| f64::from(c.re)).sum();
                assert!((area - want).abs() < 1e-6, "{rate} {start}: {area}");
                // Centre of mass follows the start exactly.
                let com: f64 = buf
                    .iter()
                    .enumerate()
                    .map(|(n, c)| n as f64 * f64::from(c.re))
                    .sum::<f64>()
                    / area;
                let centre = start + 0.25 * m.samples_per_us();
                // Sampling moves the centroid by ∫(round(t) − t) dt / width,
                // at most (1/8) / width.
                let width = 0.5 * m.samples_per_us();
                assert!(
                    (com - centre).abs() <= 0.125 / width + 1e-6,
                    "{rate} {start}: {com}"
                );
            }
        }
    }

    #[test]
    fn test_frame_energy_independent_of_offset() {
        let m = Modulator::new(2.4e6).unwrap();
        // Total area (not energy) is exact: (4 + 112) pulses × 0.5 µs.
        let want = 116.0 * 0.5 * 2.4;
        for i in 0..10 {
            let mut buf = vec![ZERO; 300];
            let start = 2.0 + f64::from(i) * 0.1;
            m.add_mode_s(&FRAME_BYTES, &Burst::new(start, 1.0), &mut buf)
                .unwrap();
            let area: f64 = buf.iter().map(|c| f64::from(c.re)).sum();
            assert!((area - want).abs() < 1e-4, "{area}");
        }
    }

    #[test]
    fn test_carrier() {
        // A long pulse: interior samples have magnitude A·sinc(ω/2) and
        // phase ω(n − s) + φ.
        let m = Modulator::new(2.4e6).unwrap();
        let (f, phi, s) = (150e3f32, 0.5f32, 10.0);
        let burst = Burst::new(s, 0.5).with_carrier(f, phi);
        let mut buf = [ZERO; 64];
        m.add_pulse(0.0, 20.0, &burst, &mut buf);
        let w = core::f64::consts::TAU * f64::from(f) / 2.4e6;
        for (n, y) in buf.iter().enumerate().take(55).skip(11) {
            let mag = 0.5 * sinc(w / 2.0);
            let ph = w * (n as f64 - s) + f64::from(phi);
            assert!((f64::from(y.re) - mag * libm::cos(ph)).abs() < 1e-6);
            assert!((f64::from(y.im) - mag * libm::sin(ph)).abs() < 1e-6);
        }
        assert_eq!(buf[9], ZERO);
    }

    /// Rendering `burst` into one buffer equals rendering it into two
    /// halves split at `at`, the second with its start shifted.
    fn assert_chunk_invariant(m: &Modulator, burst: Burst, at: usize) {
        let mut whole = vec![ZERO; 400];
        m.add_mode_s(&FRAME_BYTES, &burst, &mut whole).unwrap();
        let mut parts = vec![ZERO; 400];
        let (a, b) = parts.split_at_mut(at);
        m.add_mode_s(&FRAME_BYTES, &burst, a).unwrap();
        let shifted = Burst {
            start: burst.start - at as f64,
            ..burst
        };
        m.add_mode_s(&FRAME_BYTES, &shifted, b).unwrap();
        for (x, y) in whole.iter().zip(&parts) {
            assert!((x - y).l1_norm() < 1e-6);
        }
    }

    #[test]
    fn test_chunk_invariance() {
        let m = Modulator::new(2.4e6).unwrap();
        assert_chunk_invariant(&m, Burst::new(33.71, 0.3).with_carrier(-77e3, 2.0), 150);
    }

    #[test]
    fn test_edges_keep_area_and_chunk_invariance() {
        let m = Modulator::new(2.4e6).unwrap();
        let flat = Burst::new(33.71, 0.3);
        let shaped = flat.with_edges(0.08, 0.17);
        let (mut a, mut b) = (vec![ZERO; 400], vec![ZERO; 400]);
        m.add_mode_s(&FRAME_BYTES, &flat, &mut a).unwrap();
        m.add_mode_s(&FRAME_BYTES, &shaped, &mut b).unwrap();
        let area = |v: &[C32]| v.iter().map(|c| f64::from(c.re)).sum::<f64>();
        // Same pulse area (to f32 rounding), different samples.
        assert!(
            (area(&a) - area(&b)).abs() < 1e-4,
            "{} {}",
            area(&a),
            area(&b)
        );
        assert!(a.iter().zip(&b).any(|(x, y)| (x - y).l1_norm() > 1e-3));
        // Chunk invariance with edges, slope and carrier.
        let burst = shaped.with_carrier(-77e3, 2.0).with_slope(-0.015);
        assert_chunk_invariant(&m, burst, 151);
    }

    #[test]
    fn test_slope_scales_pulses() {
        // 20 samples per µs; pulses at 0 and 10 µs with a −0.1 dB/µs slope:
        // the second is 1 dB below the first.
        let m = Modulator::new(20.0e6).unwrap();
        let burst = Burst::new(0.5, 1.0).with_slope(-0.1);
        let mut buf = vec![ZERO; 240];
        m.add_pulse(0.0, 0.5, &burst, &mut buf);
        m.add_pulse(10.0, 0.5, &burst, &mut buf);
        let p1 = f64::from(buf[5].re);
        let p2 = f64::from(buf[205].re);
        // Centre 0.25 µs after the start: −0.025 dB.
        assert!((p1 - 10f64.powf(-0.025 / 20.0)).abs() < 1e-6, "{p1}");
        assert!((20.0 * (p2 / p1).log10() + 1.0).abs() < 1e-4, "{p1} {p2}");
    }

    #[test]
    fn test_overlap_adds() {
        let m = Modulator::new(2.4e6).unwrap();
        let b1 = Burst::new(5.3, 0.3).with_carrier(10e3, 0.0);
        let b2 = Burst::new(60.9, 0.2).with_carrier(-90e3, 1.0);
        let mut both = vec![ZERO; 400];
        m.add_mode_s(&FRAME_BYTES, &b1, &mut both).unwrap();
        m.add_mode_ac(0x0AA2, true, &b2, &mut both);
        let mut one = vec![ZERO; 400];
        let mut two = vec![ZERO; 400];
        m.add_mode_s(&FRAME_BYTES, &b1, &mut one).unwrap();
        m.add_mode_ac(0x0AA2, true, &b2, &mut two);
        for ((x, y), z) in both.iter().zip(&one).zip(&two) {
            assert!((x - (y + z)).l1_norm() < 1e-6);
        }
    }

    #[test]
    fn test_mode_ac_positions() {
        // 20 MS/s, start ½: a pulse at µs `t` fills samples 20t + 1 …
        // 20t + 9.
        let m = Modulator::new(20e6).unwrap();
        let code = 0b1_0000_0000_0001; // C1 and D4
        let mut buf = vec![ZERO; 520];
        m.add_mode_ac(code, true, &Burst::new(0.5, 1.0), &mut buf);
        let on: Vec<usize> = buf
            .iter()
            .enumerate()
            .filter(|(_, c)| c.re > 0.99)
            .map(|(n, _)| n)
            .collect();
        let mut want = Vec::new();
        for us in [0.0, 1.45, 18.85, 20.3, 24.65] {
            let first = libm::round(us * 20.0) as usize + 1;
            want.extend(first..first + 9);
        }
        assert_eq!(on, want);
    }

    #[test]
    fn test_malformed_length() {
        let m = Modulator::new(2.4e6).unwrap();
        let mut buf = [ZERO; 10];
        for n in [0, 1, 6, 8, 13, 15] {
            assert_eq!(
                m.add_mode_s(&[0u8; 15][..n], &Burst::new(0.0, 1.0), &mut buf),
                Err(ModulateError::Length { got: n })
            );
        }
        assert!(buf.iter().all(|c| *c == ZERO));
    }

    #[test]
    fn test_degenerate_inputs_do_not_panic() {
        let m = Modulator::new(2.4e6).unwrap();
        let mut buf = [ZERO; 16];
        for start in [
            f64::NAN,
            f64::INFINITY,
            -1e300,
            1e300,
            -1e9,
            1e9,
            -290.0,
            15.9,
        ] {
            m.add_mode_s(&FRAME_BYTES, &Burst::new(start, 1.0), &mut buf)
                .unwrap();
            m.add_mode_ac(0xFFFF, true, &Burst::new(start, 1.0), &mut buf);
            m.add_pulse(1e300, -5.0, &Burst::new(start, 1.0), &mut buf);
        }
        m.add_mode_s(&FRAME_BYTES, &Burst::new(1.0, 1.0), &mut [])
            .unwrap();
        assert!(Modulator::new(f64::NAN).is_none());
        assert!(Modulator::new(-1.0).is_none());
    }

    #[test]
    fn test_quantise_exact() {
        let q = Quantiser::RTL_SDR;
        let code = |x: f32| q.sample(C32::new(x, 0.0)).0[0];
        assert_eq!(code(0.0), 127); // 127.4
        assert_eq!(code(0.8 / 128.0), 128); // 128.2
        assert_eq!(code(0.1 / 128.0), 128); // 127.5 rounds up
        assert_eq!(code(-0.4 / 128.0), 127); // 127.0
        assert_eq!(code(-1.0 / 128.0), 126); // 126.4
        assert_eq!(code(127.0 / 128.0), 254); // 254.4
        assert_eq!(code(127.5 / 128.0), 255); // 254.9
        assert_eq!(code(1.0), 255); // 255.4 rounds to 255, not clipped
        assert_eq!(q.sample(C32::new(1.0, 0.0)).1, 0);
        assert_eq!(q.sample(C32::new(128.2 / 128.0, 0.0)), ([255, 127], 1));
        assert_eq!(code(-127.0 / 128.0), 0); // 0.4
        assert_eq!(q.sample(C32::new(-127.0 / 128.0, 0.0)).1, 0);
        assert_eq!(q.sample(C32::new(-1.0, 0.0)), ([0, 127], 1)); // −0.6 → −1
        assert_eq!(q.sample(C32::new(f32::NAN, 0.0)), ([0, 127], 1));
        let q = Quantiser::new(127.4, C32::new(0.5 / 128.0, -0.5 / 128.0));
        assert_eq!(q.sample(ZERO).0, [128, 127]); // 127.9, 126.9
        // Round trip through the converter: within half a code.
        for b in 0..=255u8 {
            let x = Cu8::RTL_SDR.c32([b, 255 - b]);
            assert_eq!(Quantiser::RTL_SDR.sample(x), ([b, 255 - b], 0));
        }
    }

    #[test]
    fn test_quantise_block_lengths() {
        let x = [C32::new(0.25, -0.25); 4];
        let mut out = [7u8; 7];
        let r = Quantiser::RTL_SDR.block(&x, &mut out);
        assert_eq!(
            r,
            Quantised {
                samples: 3,
                clipped: 0
            }
        );
        assert_eq!(out, [159, 95, 159, 95, 159, 95, 7]);
        let r = Quantiser::RTL_SDR.block(&x[..1], &mut out);
        assert_eq!(r.samples, 1);
    }
}
