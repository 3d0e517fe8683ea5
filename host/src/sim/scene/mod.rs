//! Synthetic 1090 MHz scenes: an RTL-SDR style `.cu8` recording of many
//! overlapping Mode S and Mode A/C replies, with a truth list of every reply
//! in it, for measuring demodulators (recall per SNR, false frames).
//!
//! # Signal chain
//!
//! For each reply, in time order (Poisson arrivals, so sub-sample timing is
//! random and replies overlap at high rates):
//!
//! 1. the frame is built from an aircraft of a fixed random population
//!    (see [Traffic](#traffic)), with correct parity;
//! 2. it is rendered by [`Modulator`] (band-limited pulses: the exact
//!    integral of each pulse over each sample window) with a random
//!    amplitude from its SNR, the transmitter's pulse edges, amplitude
//!    slope and carrier offset (see [Transmitters](#transmitters)) and a
//!    uniform random phase, added onto the other replies;
//! 3. white Gaussian noise is added;
//! 4. the sum goes through a linear-phase Kaiser low-pass (cut-off
//!    [`SceneConfig::cutoff`] × f_s/2, designed with [`lowpass_f32`]),
//!    standing in for the receiver's response (tuner IF filter and
//!    RTL2832U decimation), with the cut-off measured on real captures
//!    (see [Receiver response](#receiver-response)); its delay is
//!    compensated, so the truth times are those of the filtered output;
//! 5. a DC offset is added on I and Q and the result is quantised to 8 bits
//!    (zero level 127.4, rounding, clipping: [`Quantiser`]).
//!
//! The output is streamed chunk by chunk ([`SceneConfig::chunk_samples`]);
//! the result does not depend on the chunk size (tested): replies and noise
//! come from separate generators and each reply is rendered exactly in every
//! chunk it touches.
//!
//! # Receiver response
//!
//! The default cut-off is [`RECEIVER_CUTOFF_HZ`] = 0.96 MHz (−6 dB), i.e.
//! 0.8 × f_s/2 at 2.4 MS/s and 0.96 × f_s/2 at 2.0 MS/s
//! ([`SceneConfig::receiver_cutoff`]). It was measured, not chosen, with
//! `benches/src/bin/pulse_shape.rs`: every decoded reply of a real
//! recording is fitted by least squares (start time on a 0.01-sample grid,
//! amplitude in closed form) with the magnitude of this generator's own
//! waveform for cut-offs 0.4 … 1.0 (1.0 is no filter: a Kaiser low-pass at
//! f_s/2 is the identity), and the cut-off with the least residual wins.
//! The same estimator run on scenes of known cut-off at the same SNR and
//! noise recovers it (0.7, 0.8, 0.9, 1.0 → most replies prefer 0.70, 0.80,
//! 0.90, 1.00), so it is not biased by noise. Results on real recordings:
//!
//! | recording | replies (SNR ≥ 10 dB) | least total residual | replies preferring |
//! |---|---|---|---|
//! | three R820T captures at 2.4 MS/s (`capture_16414…_2400k.cu8`, 2022) | 6 + 7 + 5 | 0.80, 0.80, 0.85 | 0.75: 3, 0.80: 8, 0.85: 7 |
//! | `modes1_2000k.cu8` (2.0 MS/s, antirez's `modes1.bin`, an older dongle) | 324 | 0.95 ≈ 1.00 | 0.95: 170, 1.00: 154 |
//!
//! At 2.4 MS/s the total residual of no filter is 1.8× that of 0.8 on
//! each capture. Both rates give about the same cut-off in Hz (0.96–1.0
//! MHz), which is what a fixed analogue IF filter would do; the published
//! facts agree in kind but do not pin it down: the RTL2832U's programmable
//! 32-tap FIR runs at 28.8 MHz (librtlsdr's default taps are −6 dB at
//! 1.44 MHz; M. Karcher, osmocom-sdr, July 2012) and a second, fixed
//! decimation filter follows it. The residual that remains on real
//! replies (0.03–0.09 of the reply's energy against 0.02 on scenes) comes
//! from what the scene does not model (multipath, other emitters).
//!
//! The *leak* (power of the sample just outside an isolated pulse edge,
//! over the pulse's flat-top power, by the edge's distance `δ` from that
//! sample's window, in samples) measured on the first 2.4 MS/s capture is
//! 0.077 / 0.034 / 0.016 / 0.021 / 0.028 for leading edges at
//! `δ` = 0–0.2 / … / 0.8–1; the scene gives 0.009 / 0.004 / 0.009 / 0.016 /
//! 0.012 at cut-off 0.8 and 0.001 / 0.001 / 0.000 / 0.001 / 0.000 with no
//! filter (the other two captures: 0.038 / 0.022 / 0.014 / 0.015 / 0.018
//! and, with only 18–42 edges a bin, 0.045 / 0.007 / 0.034 / 0.089 /
//! 0.056). Real edges leak at least as much as the filtered scene's.
//!
//! # Transmitters
//!
//! Each reply is drawn with (each item its own setting):
//!
//! - **Pulse edges**: rise time (10–90 %) uniform in 0.05–0.1 µs
//!   ([`SceneConfig::rise_us`]), decay time (90–10 %) uniform in
//!   0.05–0.2 µs ([`SceneConfig::fall_us`]): DO-181 limits them to 0.1 and
//!   0.2 µs (as quoted in the Rockwell Collins TDR-94 maintenance manual,
//!   34-50-96, "Mode S Reply Pulse Shape"); see
//!   [`Burst::with_edges`]. The pulse's 50 % width stays 0.5 µs.
//! - **Amplitude slope**: the amplitude changes steadily from the first to
//!   the last pulse by a Gaussian number of dB, standard deviation
//!   [`SceneConfig::slope_sd_db`] = 0.3 dB, clamped to ±2 dB (the same
//!   source: "the pulse amplitude variation between one pulse and any
//!   other pulse in a reply shall not exceed 2 dB"). The 0.3 dB is
//!   measured: fitting a linear trend to `|y| / (A r)` over each reply,
//!   real replies spread by 0.51 dB (rms, 18 replies at 2.4 MS/s) and
//!   0.31 dB (324 at 2.0 MS/s) against 0.43 and 0.26 dB for the estimator
//!   alone on flat scenes: 0.2–0.3 dB of real spread.
//! - **Carrier offset**: one per aircraft (a transponder's oscillator),
//!   Gaussian with standard deviation [`SceneConfig::carrier_sd_hz`] =
//!   125 kHz, clamped to ±[`SceneConfig::max_carrier_hz`] = 1 MHz (the
//!   reply frequency tolerance 1090 ± 1 MHz stated in the project's issue
//!   for Mode S; ATCRBS transponders are allowed ±3 MHz, TSO-C74c). The
//!   125 kHz is the spread of 11 aircraft in the 2.4 MS/s captures (mean
//!   offset of each from the phase advance between consecutive samples
//!   inside pulses: −277, −183, −43, +5, +25, +28, +41, +50, +95, +128,
//!   +130 kHz, the dongle's own error included). Mode A/C replies draw
//!   their own offset from the same law.
//!
//! [`SceneConfig::rise_us`] etc. set to zero (`airwaves scene
//! --ideal-pulses`) give the rectangular, flat pulses of earlier scenes.
//!
//! # SNR and amplitude
//!
//! SNR is the pulse power over the noise power in the receiver's
//! bandwidth, both at the output samples (what a decoder sees):
//! `SNR = A² / N`. `A` is the pulse amplitude, the magnitude of the flat
//! top that a long pulse reaches through the low-pass (DC gain 1), at the
//! reply's start (the slope moves later pulses by its dB); `N = 2 σ²` is
//! the power of the complex noise in one output sample, i.e. the noise
//! power in the whole band the dongle delivers (the low-pass's noise
//! bandwidth), with `σ` = [`SceneConfig::noise_rms`] per component in ADC
//! codes (the noise added before the filter is scaled up by `1/√Σh²` so
//! that `σ` holds after it). The real recordings give the same SNR by the
//! same definition (`pulse_shape` prints it: 11.6–27.6 dB for the replies
//! decoded at 2.4 MS/s, noise σ ≈ 4.2 codes). A 0.5 µs pulse is shorter
//! than the filter's response, so its filtered peak is somewhat below `A`
//! (more so at 2.0 MS/s than at 2.4 MS/s).
//!
//! # Traffic
//!
//! [`SceneConfig::aircraft`] aircraft with distinct random ICAO addresses,
//! callsigns, squawks, altitudes, and positions within about 200 NM of
//! 52.3° N 4.8° E, flying straight at constant speed. Each Mode S reply
//! picks an aircraft at random and one of (weights in %):
//!
//! | weight | frame |
//! |---|---|
//! | 5 | DF17 TC 4 identification |
//! | 25 | DF17 TC 11 airborne position, CPR even and odd alternately (from the aircraft's position at that time) |
//! | 15 | DF17 TC 19 ground velocity |
//! | 15 | DF11 all-call (90 % II 0 = acquisition squitter, else II 1–15) |
//! | 12 | DF4 altitude reply (AP = parity ⊕ address) |
//! | 8 | DF5 identity reply |
//! | 12 | DF20 Comm-B altitude reply (MB: BDS 2,0 identification or random) |
//! | 8 | DF21 Comm-B identity reply |
//!
//! Mode A/C replies (random squawk codes, 5 % with SPI) arrive at
//! [`SceneConfig::mode_ac_per_second`] with the same SNR distribution.
//!
//! # Truth file
//!
//! Lines starting with `#` are comments (the first ones record the
//! configuration). Every other line is one reply, in order of start time,
//! with whitespace-separated columns:
//!
//! | column | meaning |
//! |---|---|
//! | `sample` | leading edge of the first preamble (or F1) pulse, in samples from the start of the file, fractional; sample `n` is centred at `t = n` |
//! | `t12` | the same time in 12 MHz ticks (`round(sample · 12e6 / f_s)`) |
//! | `hex` | the frame, upper-case hex (14 or 28 digits); `A/C:` and 4 octal digits for a Mode A/C reply |
//! | `snr_db` | SNR as defined above |
//! | `amplitude` | pulse amplitude `A`, full scale 1.0 |
//! | `carrier_hz` | carrier offset, Hz |
//! | `flags` | `-`, or comma-separated: `modeac` (a Mode A/C reply), `spi`, `ovl_s` (overlaps another Mode S reply in time), `ovl_ac` (overlaps a Mode A/C reply) |
//! | `rise_us` | pulse rise time, 10–90 %, µs |
//! | `fall_us` | pulse decay time, 90–10 %, µs |
//! | `slope_db` | amplitude change from the first to the last pulse, dB |
//!
//! The first seven columns are those of earlier scenes (readers that take
//! seven columns keep working).
//!
//! Deterministic for a given configuration (seed included).

use std::collections::VecDeque;
use std::f64::consts::TAU;
use std::io::{self, Write};

use airwaves_core::C32;
use airwaves_core::dsp::design::{kaiser_beta, lowpass_f32};
use airwaves_core::modes::adsb::{
    AdsbRepr, AirbornePosition, AirborneVelocity, AltitudeDifference, Callsign, Category,
    CprFormat, CprPosition, GroundVelocity, Identification, Velocity, VerticalRate,
    VerticalRateSource,
};
use airwaves_core::modes::altitude::encode_ac12;
use airwaves_core::modes::commb::{AircraftIdentification, Mb};
use airwaves_core::modes::cpr::{CprFrame, CprKind, Position};
use airwaves_core::modes::frame::{
    AltitudeCode, Capability, FlightStatus, Frame, IdentityCode, InterrogatorCode, Repr,
};
use airwaves_core::modes::modulate::{Burst, Modulator, Quantiser};
use airwaves_core::rng::Rng;

/// What to generate. [`Default`] gives a 10 s, 2.4 MS/s scene with 1000
/// Mode S replies per second.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneConfig {
    /// Length of the recording, s (default 10).
    pub seconds: f64,
    /// Sample rate, Hz (default 2.4e6; 2.0e6 and others work too).
    pub sample_rate: f64,
    /// Seed of every random choice (default 1).
    pub seed: u64,
    /// Mean rate of Mode S replies, per second (default 1000).
    pub frames_per_second: f64,
    /// Mean rate of Mode A/C replies, per second (default 500).
    pub mode_ac_per_second: f64,
    /// Number of aircraft in the population (default 100).
    pub aircraft: usize,
    /// Lowest SNR, dB (default 0).
    pub snr_min_db: f64,
    /// Highest SNR, dB (default 25); each reply's SNR is uniform between.
    pub snr_max_db: f64,
    /// Largest carrier offset, Hz (default 1e6, the transponder reply
    /// frequency tolerance 1090 ± 1 MHz): offsets are clamped to ±this.
    pub max_carrier_hz: f64,
    /// Standard deviation of the carrier offset, Hz (default 125e3, measured,
    /// see [Transmitters](#transmitters)): each aircraft's transponder gets
    /// one Gaussian offset for the whole scene, each Mode A/C reply its own.
    pub carrier_sd_hz: f64,
    /// Pulse rise time (10–90 %), µs, uniform in `(min, max)` per reply
    /// (default (0.05, 0.1)); (0, 0) for rectangular leading edges.
    pub rise_us: (f64, f64),
    /// Pulse decay time (90–10 %), µs, uniform per reply (default
    /// (0.05, 0.2)).
    pub fall_us: (f64, f64),
    /// Standard deviation of the amplitude change from the first to the
    /// last pulse of a reply, dB (default 0.3, measured); clamped to
    /// ±[`SceneConfig::slope_max_db`].
    pub slope_sd_db: f64,
    /// Largest amplitude change over a reply, dB (default 2, the published
    /// bound between any two pulses of a reply).
    pub slope_max_db: f64,
    /// Noise standard deviation per component (I or Q) at the filter's
    /// output, ADC codes (default 3.0).
    pub noise_rms: f64,
    /// DC offset added before quantisation, ADC codes, `(I, Q)` (default
    /// (0.6, −0.4)).
    pub dc_offset: (f64, f64),
    /// Low-pass cut-off (−6 dB) as a fraction of f_s/2 (default 0.8).
    pub cutoff: f64,
    /// Low-pass length in taps (default 31; made odd if even).
    pub filter_taps: usize,
    /// Samples generated and written per step (default 262 144).
    pub chunk_samples: usize,
}

impl Default for SceneConfig {
    fn default() -> Self {
        Self {
            seconds: 10.0,
            sample_rate: 2.4e6,
            seed: 1,
            frames_per_second: 1000.0,
            mode_ac_per_second: 500.0,
            aircraft: 100,
            snr_min_db: 0.0,
            snr_max_db: 25.0,
            max_carrier_hz: 1e6,
            carrier_sd_hz: 125e3,
            rise_us: (0.05, 0.1),
            fall_us: (0.05, 0.2),
            slope_sd_db: 0.3,
            slope_max_db: 2.0,
            noise_rms: 3.0,
            dc_offset: (0.6, -0.4),
            cutoff: 0.8,
            filter_taps: 31,
            chunk_samples: 1 << 18,
        }
    }
}

/// What [`generate`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SceneStats {
    /// Complex samples written (the `.cu8` file has twice as many bytes).
    pub samples: u64,
    /// Mode S replies.
    pub mode_s: u64,
    /// Mode A/C replies.
    pub mode_ac: u64,
    /// Mode S replies that overlap another reply (Mode S or A/C).
    pub mode_s_overlapped: u64,
    /// I or Q values clipped by the quantiser.
    pub clipped: u64,
}

/// The receiver's low-pass cut-off (−6 dB), Hz, measured on real
/// RTL-SDR captures (see [Receiver response](#receiver-response)).
pub const RECEIVER_CUTOFF_HZ: f64 = 0.96e6;

impl SceneConfig {
    /// The cut-off [`SceneConfig::cutoff`] for a sample rate: the measured
    /// [`RECEIVER_CUTOFF_HZ`] as a fraction of `f_s / 2`, at most 1 (0.8 at
    /// 2.4 MS/s, 0.96 at 2.0 MS/s).
    pub fn receiver_cutoff(sample_rate: f64) -> f64 {
        (RECEIVER_CUTOFF_HZ / (0.5 * sample_rate)).min(1.0)
    }

    /// Check every setting.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidInput`], saying which setting, for a
    /// configuration out of range: non-positive or non-finite sample rate,
    /// negative or non-finite duration, reply rates outside 0…1e6/s,
    /// aircraft outside 1…100 000, a low-pass outside 1…[`MAX_TAPS`] taps,
    /// cut-off outside (0, 1], zero chunk,
    /// non-finite SNR, carrier, noise or DC offset.
    pub fn validate(&self) -> io::Result<()> {
        let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, what.to_string());
        if Modulator::new(self.sample_rate).is_none() {
            return Err(bad(&format!(
                "sample rate {} Hz: must be finite and above 0",
                self.sample_rate
            )));
        }
        if !(1..=MAX_TAPS).contains(&self.filter_taps) {
            return Err(bad(&format!(
                "low-pass of {} taps: use 1 ..= {MAX_TAPS}",
                self.filter_taps
            )));
        }
        if !(self.seconds >= 0.0 && self.seconds.is_finite()) {
            return Err(bad("bad duration"));
        }
        let rate_ok = |r: f64| (0.0..=MAX_REPLY_RATE).contains(&r);
        if !(rate_ok(self.frames_per_second) && rate_ok(self.mode_ac_per_second)) {
            return Err(bad("reply rates must be in 0 ..= 1e6 per second"));
        }
        if !(1..=MAX_AIRCRAFT).contains(&self.aircraft) || self.chunk_samples == 0 {
            return Err(bad("need 1 ..= 100000 aircraft and a non-empty chunk"));
        }
        let finite = [
            self.snr_min_db,
            self.snr_max_db,
            self.max_carrier_hz,
            self.carrier_sd_hz,
            self.rise_us.0,
            self.rise_us.1,
            self.fall_us.0,
            self.fall_us.1,
            self.slope_sd_db,
            self.slope_max_db,
            self.noise_rms,
            self.dc_offset.0,
            self.dc_offset.1,
        ];
        if finite.iter().any(|v| !v.is_finite()) {
            return Err(bad("SNR, carrier, noise and DC offset must be finite"));
        }
        if !(self.cutoff > 0.0 && self.cutoff <= 1.0) {
            return Err(bad("cut-off must be in (0, 1]"));
        }
        if !(self.snr_min_db <= self.snr_max_db && self.noise_rms >= 0.0) {
            return Err(bad("bad SNR range or noise level"));
        }
        let range_ok = |(lo, hi): (f64, f64)| {
            (0.0..=MAX_EDGE_US).contains(&lo) && lo <= hi && hi <= MAX_EDGE_US
        };
        if !(range_ok(self.rise_us) && range_ok(self.fall_us)) {
            return Err(bad(
                "pulse rise and decay times must be ranges within 0 ..= 0.25 µs",
            ));
        }
        if !(self.max_carrier_hz >= 0.0
            && self.carrier_sd_hz >= 0.0
            && self.slope_sd_db >= 0.0
            && self.slope_max_db >= 0.0)
        {
            return Err(bad("carrier and slope spreads and bounds must be >= 0"));
        }
        Ok(())
    }
}

/// Write a scene as `cu8` to `out` and its truth list to `truth`.
///
/// # Errors
/// A configuration out of range ([`SceneConfig::validate`]), and any write
/// error.
pub fn generate(
    cfg: &SceneConfig,
    out: &mut impl Write,
    truth: &mut impl Write,
) -> io::Result<SceneStats> {
    cfg.validate()?;
    let modulator = Modulator::new(cfg.sample_rate)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "bad sample rate"))?;

    // Filter: odd length, delay d compensated.
    let taps_len = cfg.filter_taps | 1;
    let d = taps_len / 2;
    let mut taps = vec![0f32; taps_len];
    lowpass_f32(&mut taps, 0.5 * cfg.cutoff, kaiser_beta(60.0), 1.0);
    let gain2: f64 = taps.iter().map(|&h| f64::from(h) * f64::from(h)).sum();
    let sigma_out = cfg.noise_rms / 128.0;
    let sigma_in = (sigma_out / gain2.sqrt()) as f32;
    let noise_power = 2.0 * sigma_out * sigma_out;
    let quantiser = Quantiser::new(
        127.4,
        C32::new(
            (cfg.dc_offset.0 / 128.0) as f32,
            (cfg.dc_offset.1 / 128.0) as f32,
        ),
    );

    let total = (cfg.seconds * cfg.sample_rate).round() as u64;
    writeln!(truth, "# airwaves synthetic 1090 MHz scene, {cfg:?}")?;
    writeln!(truth, "# samples {total}")?;
    writeln!(
        truth,
        "# snr_db = A^2/N: pulse flat-top power over complex noise power per output sample (the receiver's whole band), both after the low-pass"
    )?;
    writeln!(
        truth,
        "# sample t12 hex snr_db amplitude carrier_hz flags rise_us fall_us slope_db"
    )?;

    let mut traffic = Traffic::new(cfg, &modulator, noise_power, d as f64 + 1.0, total);
    let mut noise = Rng::new(cfg.seed ^ 0x6E6F_6973_655F_7631);
    let mut stats = SceneStats {
        samples: total,
        ..SceneStats::default()
    };

    let n = cfg.chunk_samples;
    // xin[i] is the filter input at absolute sample c0 − d + i.
    let mut xin = vec![C32::new(0.0, 0.0); n + 2 * d];
    for x in &mut xin[..2 * d] {
        *x = complex_normal(&mut noise, sigma_in);
    }
    let mut y = vec![C32::new(0.0, 0.0); n];
    let mut bytes = vec![0u8; 2 * n];
    let mut pending: VecDeque<Event> = VecDeque::new();
    let mut peeked = traffic.next_event();

    let mut c0 = 0u64;
    while c0 < total {
        let len = n.min((total - c0) as usize);
        // The new input region: absolute [r0, r1).
        let r0 = (c0 + d as u64) as f64;
        let r1 = r0 + len as f64;
        while let Some(e) = peeked.take_if(|e| e.start < r1) {
            for p in pending.iter_mut() {
                if p.end > e.start {
                    p.overlaps(&e);
                }
            }
            let mut e = e;
            for p in pending.iter() {
                if p.end > e.start {
                    e.overlaps(p);
                }
            }
            pending.push_back(e);
            peeked = traffic.next_event();
        }
        let region = &mut xin[2 * d..2 * d + len];
        region.fill(C32::new(0.0, 0.0));
        for e in &pending {
            if e.end + 1.0 > r0 && e.start - 1.0 < r1 {
                e.render(&modulator, r0, region);
            }
        }
        for x in region.iter_mut() {
            *x += complex_normal(&mut noise, sigma_in);
        }
        for (j, yj) in y[..len].iter_mut().enumerate() {
            let mut acc = C32::new(0.0, 0.0);
            for (h, x) in taps.iter().zip(&xin[j..j + taps_len]) {
                acc += x * *h;
            }
            *yj = acc;
        }
        let q = quantiser.block(&y[..len], &mut bytes[..2 * len]);
        stats.clipped += q.clipped as u64;
        out.write_all(&bytes[..2 * len])?;
        // Write the truth of replies rendered in full (in start order).
        while pending.front().is_some_and(|e| e.end + 1.0 < r1) {
            if let Some(e) = pending.pop_front() {
                e.write_truth(truth, cfg.sample_rate, &mut stats)?;
            }
        }
        xin.copy_within(len..len + 2 * d, 0);
        c0 += len as u64;
    }
    for e in pending {
        e.write_truth(truth, cfg.sample_rate, &mut stats)?;
    }
    out.flush()?;
    truth.flush()?;
    Ok(stats)
}

/// Largest accepted reply rate, per second.
const MAX_REPLY_RATE: f64 = 1e6;
/// Longest accepted pulse rise or decay time, µs (longer edges would eat
/// the 0.45 µs Mode A/C pulses).
const MAX_EDGE_US: f64 = 0.25;
/// Largest accepted population.
const MAX_AIRCRAFT: usize = 100_000;
/// Longest low-pass [`SceneConfig::filter_taps`] accepts (a 60 dB Kaiser
/// low-pass needs far fewer; the bound keeps the filter's buffers small).
pub const MAX_TAPS: usize = 1023;

/// What a reply is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Reply {
    ModeS { bytes: [u8; 14], len: usize },
    ModeAc { code: u16, squawk: u16, spi: bool },
}

/// One reply placed in the scene.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Event {
    reply: Reply,
    /// Absolute start and end, samples.
    start: f64,
    end: f64,
    amplitude: f32,
    carrier_hz: f32,
    phase: f32,
    /// Pulse rise and decay times, µs.
    rise_us: f32,
    fall_us: f32,
    /// Amplitude change from the reply's start to its end, dB.
    slope_db: f32,
    snr_db: f64,
    ovl_s: bool,
    ovl_ac: bool,
}

impl Event {
    /// Record that `other` overlaps this reply.
    fn overlaps(&mut self, other: &Event) {
        match other.reply {
            Reply::ModeS { .. } => self.ovl_s = true,
            Reply::ModeAc { .. } => self.ovl_ac = true,
        }
    }

    /// Render into `region`, whose first sample is absolute sample `r0`.
    fn render(&self, m: &Modulator, r0: f64, region: &mut [C32]) {
        let len_us = (self.end - self.start) / m.samples_per_us();
        let burst = Burst::new(self.start - r0, self.amplitude)
            .with_carrier(self.carrier_hz, self.phase)
            .with_edges(self.rise_us, self.fall_us)
            .with_slope(if len_us > 0.0 {
                (f64::from(self.slope_db) / len_us) as f32
            } else {
                0.0
            });
        match self.reply {
            Reply::ModeS { bytes, len } => {
                // Lengths are always 7 or 14.
                let _ = m.add_mode_s(&bytes[..len], &burst, region);
            }
            Reply::ModeAc { code, spi, .. } => m.add_mode_ac(code, spi, &burst, region),
        }
    }

    fn write_truth(&self, w: &mut impl Write, rate: f64, stats: &mut SceneStats) -> io::Result<()> {
        let t12 = (self.start * 12e6 / rate).round() as u64;
        let mut flags: Vec<&str> = Vec::new();
        let hex = match self.reply {
            Reply::ModeS { bytes, len } => {
                stats.mode_s += 1;
                if self.ovl_s || self.ovl_ac {
                    stats.mode_s_overlapped += 1;
                }
                bytes[..len].iter().map(|b| format!("{b:02X}")).collect()
            }
            Reply::ModeAc { squawk, spi, .. } => {
                stats.mode_ac += 1;
                flags.push("modeac");
                if spi {
                    flags.push("spi");
                }
                format!("A/C:{squawk:04X}")
            }
        };
        if self.ovl_s {
            flags.push("ovl_s");
        }
        if self.ovl_ac {
            flags.push("ovl_ac");
        }
        let flags = if flags.is_empty() {
            "-".to_string()
        } else {
            flags.join(",")
        };
        writeln!(
            w,
            "{:.4} {} {} {:.2} {:.6} {:.1} {} {:.3} {:.3} {:.2}",
            self.start,
            t12,
            hex,
            self.snr_db,
            self.amplitude,
            self.carrier_hz,
            flags,
            self.rise_us,
            self.fall_us,
            self.slope_db
        )
    }
}

/// Complex Gaussian with standard deviation `sigma` per component.
pub(crate) fn complex_normal(rng: &mut Rng, sigma: f32) -> C32 {
    let i = rng.normal() as f32;
    let q = rng.normal() as f32;
    C32::new(sigma * i, sigma * q)
}

/// Exponential with mean `1 / rate`.
fn exponential(rng: &mut Rng, rate: f64) -> f64 {
    -(1.0 - rng.uniform()).ln() / rate
}

/// One aircraft of the population.
#[derive(Debug, Clone)]
struct Aircraft {
    icao: u32,
    callsign: Callsign,
    category: Category,
    squawk: u16,
    alt_ft: i32,
    /// Position at t = 0, degrees.
    lat: f64,
    lon: f64,
    /// Velocity north and east, kt.
    vn_kt: f64,
    ve_kt: f64,
    vr_fpm: i32,
    /// Next position message is odd.
    odd: bool,
    /// Transponder carrier offset, Hz.
    carrier_hz: f64,
}

impl Aircraft {
    fn random(rng: &mut Rng, icao: u32) -> Self {
        const AIRLINES: [&str; 12] = [
            "KLM", "BAW", "DLH", "EZY", "RYR", "AFR", "UAE", "SAS", "TRA", "IBE", "EJU", "WZZ",
        ];
        let airline = AIRLINES[rng.below(AIRLINES.len() as u64) as usize];
        let cs = format!("{airline}{}", 1 + rng.below(9999));
        let callsign = Callsign::from_ascii(cs.as_bytes())
            .unwrap_or_else(|| Callsign::from_ascii(b"TEST").expect("literal callsign is valid"));
        let squawk = (0..4).fold(0u16, |acc, _| (acc << 4) | rng.below(8) as u16);
        let speed = rng.range(120.0, 480.0);
        let track = rng.range(0.0, TAU);
        let climbing = rng.below(3);
        Self {
            icao,
            callsign,
            category: Category::new(4, 1 + rng.below(5) as u8).expect("TC 4, CA 1..=5"),
            squawk,
            alt_ft: 1000 + 25 * rng.below(1561) as i32, // 1000..=40000 ft
            lat: 52.3 + rng.range(-3.0, 3.0),
            lon: 4.8 + rng.range(-4.5, 4.5),
            vn_kt: speed * track.cos(),
            ve_kt: speed * track.sin(),
            vr_fpm: match climbing {
                0 => 0,
                1 => 64 * rng.below(40) as i32,
                _ => -64 * rng.below(40) as i32,
            },
            odd: rng.below(2) == 1,
            carrier_hz: 0.0,
        }
    }

    /// Position at `t` seconds (flat-earth straight line; plenty for CPR).
    fn position(&self, t: f64) -> Position {
        let h = t / 3600.0;
        let lat = self.lat + self.vn_kt * h / 60.0;
        let lon = self.lon + self.ve_kt * h / (60.0 * lat.to_radians().cos());
        Position::new(lat, lon)
    }
}

/// Build a DF17 frame carrying `me` from `icao` with capability `ca`.
pub(crate) fn df17(ca: Capability, icao: u32, me: &AdsbRepr) -> [u8; 14] {
    emit(&Repr::ExtendedSquitter {
        ca,
        aa: icao,
        me: me.to_bytes(),
    })
}

/// Build a DF17 identification (TC 1–4) frame.
fn df17_identification(icao: u32, category: Category, callsign: Callsign) -> [u8; 14] {
    let me = AdsbRepr::Identification(Identification { category, callsign });
    df17(Capability::Airborne, icao, &me)
}

/// Build a DF17 airborne position (TC 11) frame; `alt_ft` on a 25 ft grid
/// in −1000…50 175 (else "not available").
pub(crate) fn df17_position(icao: u32, alt_ft: i32, cpr: CprFrame) -> [u8; 14] {
    let format = CprFormat::from(cpr.odd());
    let cpr = CprPosition {
        format,
        lat: cpr.lat(),
        lon: cpr.lon(),
    };
    let mut p = AirbornePosition::new(11, cpr).expect("TC 11 is an airborne position");
    p.altitude_code = encode_ac12(alt_ft);
    let me = AdsbRepr::AirbornePosition(p).to_bytes();
    emit(&Repr::ExtendedSquitter {
        ca: Capability::Airborne,
        aa: icao,
        me,
    })
}

/// Ground-velocity code for a signed speed: `(negative, |v| + 1)`, capped
/// at 1023.
fn velocity_code(v: i32) -> (bool, u16) {
    (v < 0, (v.unsigned_abs() + 1).min(1023) as u16)
}

/// Build a DF17 airborne velocity (TC 19, subtype 1) frame from east and
/// north speeds (kt), a vertical rate (ft/min, barometric if `baro`) and a
/// GNSS − baro difference (ft, `None` = not available).
pub(crate) fn df17_velocity(
    icao: u32,
    ve_kt: i32,
    vn_kt: i32,
    vr_fpm: i32,
    baro: bool,
    gnss_baro_ft: Option<i32>,
) -> [u8; 14] {
    let (west, ew) = velocity_code(ve_kt);
    let (south, ns) = velocity_code(vn_kt);
    let v = AirborneVelocity {
        intent_change: false,
        ifr_capability: true,
        nac_v: 0,
        velocity: Velocity::Ground(GroundVelocity {
            supersonic: false,
            west,
            ew,
            south,
            ns,
        }),
        vertical_rate: VerticalRate {
            source: if baro {
                VerticalRateSource::Baro
            } else {
                VerticalRateSource::Gnss
            },
            down: vr_fpm < 0,
            code: (vr_fpm.unsigned_abs() / 64 + 1).min(511) as u16,
        },
        gnss_baro_diff: AltitudeDifference::from_ft(gnss_baro_ft),
    };
    let me = AdsbRepr::AirborneVelocity(v).to_bytes();
    emit(&Repr::ExtendedSquitter {
        ca: Capability::Airborne,
        aa: icao,
        me,
    })
}

/// Write a [`Repr`] into a 14-byte array (the first 7 used for short
/// frames); parity is filled by `emit` (`fill_parity` with the address for
/// AP formats, the interrogator code for DF11, 0 for DF17).
pub(crate) fn emit(repr: &Repr) -> [u8; 14] {
    let mut b = [0u8; 14];
    let len = repr.buffer_len();
    repr.emit(&mut Frame::new_unchecked(&mut b[..len]))
        .expect("buffer is exactly buffer_len bytes");
    b
}

/// The MB field of a BDS 2,0 (aircraft identification) Comm-B reply.
fn bds20(callsign: Callsign) -> [u8; 7] {
    let mut mb = Mb::new_unchecked([0u8; 7]);
    AircraftIdentification::from(&callsign).emit(&mut mb);
    mb.into_inner()
}

/// The event source: the population and the two Poisson processes.
struct Traffic {
    rng: Rng,
    aircraft: Vec<Aircraft>,
    rate: f64,
    s_per_sample: f64,
    ac_per_sample: f64,
    next_s: f64,
    next_ac: f64,
    /// Replies must end before this sample.
    limit: f64,
    len_short: f64,
    len_long: f64,
    len_ac: f64,
    noise_power: f64,
    snr: (f64, f64),
    max_carrier_hz: f64,
    carrier_sd_hz: f64,
    rise_us: (f64, f64),
    fall_us: (f64, f64),
    slope_sd_db: f64,
    slope_max_db: f64,
}

impl Traffic {
    fn new(cfg: &SceneConfig, m: &Modulator, noise_power: f64, begin: f64, total: u64) -> Self {
        let mut rng = Rng::new(cfg.seed);
        let mut aircraft: Vec<Aircraft> = Vec::with_capacity(cfg.aircraft);
        let mut seen = std::collections::HashSet::new();
        while aircraft.len() < cfg.aircraft {
            let icao = 1 + rng.below(0xFF_FFFE) as u32;
            if seen.insert(icao) {
                aircraft.push(Aircraft::random(&mut rng, icao));
            }
        }
        let s_per_sample = cfg.frames_per_second / cfg.sample_rate;
        let ac_per_sample = cfg.mode_ac_per_second / cfg.sample_rate;
        let mut t = Self {
            rng,
            aircraft,
            rate: cfg.sample_rate,
            s_per_sample,
            ac_per_sample,
            next_s: begin,
            next_ac: begin,
            limit: total as f64 - 1.0,
            len_short: m.mode_s_len(7),
            len_long: m.mode_s_len(14),
            len_ac: m.mode_ac_len(),
            noise_power,
            snr: (cfg.snr_min_db, cfg.snr_max_db),
            max_carrier_hz: cfg.max_carrier_hz,
            carrier_sd_hz: cfg.carrier_sd_hz,
            rise_us: cfg.rise_us,
            fall_us: cfg.fall_us,
            slope_sd_db: cfg.slope_sd_db,
            slope_max_db: cfg.slope_max_db,
        };
        for i in 0..t.aircraft.len() {
            let c = t.carrier();
            t.aircraft[i].carrier_hz = c;
        }
        t.next_s = t.arrival(begin, s_per_sample);
        t.next_ac = t.arrival(begin, ac_per_sample);
        t
    }

    /// A transponder carrier offset: Gaussian, clamped to the tolerance.
    fn carrier(&mut self) -> f64 {
        (self.carrier_sd_hz * self.rng.normal()).clamp(-self.max_carrier_hz, self.max_carrier_hz)
    }

    fn arrival(&mut self, from: f64, rate: f64) -> f64 {
        if rate > 0.0 {
            from + exponential(&mut self.rng, rate)
        } else {
            f64::INFINITY
        }
    }

    /// The next reply in start order, `None` when the scene is full.
    fn next_event(&mut self) -> Option<Event> {
        loop {
            let mode_s = self.next_s <= self.next_ac;
            let start = self.next_s.min(self.next_ac);
            if start >= self.limit {
                return None;
            }
            let snr_db = self.rng.range(self.snr.0, self.snr.1);
            let amplitude = (10f64.powf(snr_db / 10.0) * self.noise_power).sqrt() as f32;
            let phase = self.rng.range(0.0, TAU) as f32;
            let rise_us = self.rng.range(self.rise_us.0, self.rise_us.1) as f32;
            let fall_us = self.rng.range(self.fall_us.0, self.fall_us.1) as f32;
            let slope_db = (self.slope_sd_db * self.rng.normal())
                .clamp(-self.slope_max_db, self.slope_max_db) as f32;
            let carrier_hz;
            let (reply, len) = if mode_s {
                self.next_s = self.arrival(start, self.s_per_sample);
                let (bytes, len, carrier) = self.mode_s_frame(start / self.rate);
                carrier_hz = carrier as f32;
                let dur = if len == 7 {
                    self.len_short
                } else {
                    self.len_long
                };
                (Reply::ModeS { bytes, len }, dur)
            } else {
                self.next_ac = self.arrival(start, self.ac_per_sample);
                carrier_hz = self.carrier() as f32;
                let squawk = (0..4).fold(0u16, |acc, _| (acc << 4) | self.rng.below(8) as u16);
                let spi = self.rng.below(20) == 0;
                let code = IdentityCode::from_squawk(squawk).raw();
                let dur = if spi {
                    self.len_ac
                } else {
                    self.len_ac - (MODE_AC_SPI_GAP_US * self.rate * 1e-6)
                };
                (Reply::ModeAc { code, squawk, spi }, dur)
            };
            if start + len >= self.limit {
                continue;
            }
            return Some(Event {
                reply,
                start,
                end: start + len,
                amplitude,
                carrier_hz,
                phase,
                rise_us,
                fall_us,
                slope_db,
                snr_db,
                ovl_s: false,
                ovl_ac: false,
            });
        }
    }

    /// A random Mode S frame from a random aircraft at time `t` s, with the
    /// aircraft's carrier offset (Hz).
    fn mode_s_frame(&mut self, t: f64) -> ([u8; 14], usize, f64) {
        let i = self.rng.below(self.aircraft.len() as u64) as usize;
        let pick = self.rng.below(100);
        let random_mb = self.rng.next_u64().to_be_bytes();
        let ii = if self.rng.below(10) == 0 {
            1 + self.rng.below(15) as u8
        } else {
            0
        };
        let mb_kind = self.rng.below(2);
        let a = &mut self.aircraft[i];
        let altitude = AltitudeCode::from_feet(a.alt_ft).unwrap_or(AltitudeCode::from_raw(0));
        let identity = IdentityCode::from_squawk(a.squawk);
        let mb = if mb_kind == 0 {
            bds20(a.callsign)
        } else {
            [
                random_mb[0],
                random_mb[1],
                random_mb[2],
                random_mb[3],
                random_mb[4],
                random_mb[5],
                random_mb[6],
            ]
        };
        let (fs, dr, um, address) = (FlightStatus::Airborne, 0, 0, a.icao);
        let bytes = match pick {
            0..5 => df17_identification(a.icao, a.category, a.callsign),
            5..30 => {
                let odd = a.odd;
                a.odd = !a.odd;
                let pos = a.position(t);
                let cpr = CprFrame::encode(CprKind::Airborne, odd, pos)
                    .unwrap_or(CprFrame::airborne(odd, 0, 0));
                df17_position(a.icao, a.alt_ft, cpr)
            }
            30..45 => df17_velocity(
                a.icao,
                a.ve_kt.round() as i32,
                a.vn_kt.round() as i32,
                a.vr_fpm,
                true,
                Some(150),
            ),
            45..60 => emit(&Repr::AllCall {
                ca: Capability::Airborne,
                aa: a.icao,
                iid: InterrogatorCode::Ii(ii),
            }),
            60..72 => emit(&Repr::SurveillanceAltitude {
                address,
                fs,
                dr,
                um,
                altitude,
            }),
            72..80 => emit(&Repr::SurveillanceIdentity {
                address,
                fs,
                dr,
                um,
                identity,
            }),
            80..92 => emit(&Repr::CommBAltitude {
                address,
                fs,
                dr,
                um,
                altitude,
                mb,
            }),
            _ => emit(&Repr::CommBIdentity {
                address,
                fs,
                dr,
                um,
                identity,
                mb,
            }),
        };
        let len = if bytes[0] & 0x80 != 0 { 14 } else { 7 };
        (bytes, len, a.carrier_hz)
    }
}

/// Gap between the end of F2 and the end of the SPI pulse, µs (a reply
/// without SPI ends at F2).
const MODE_AC_SPI_GAP_US: f64 =
    airwaves_core::modes::modulate::MODE_AC_SPI_US - airwaves_core::modes::modulate::MODE_AC_F2_US;

#[cfg(test)]
mod tests;
