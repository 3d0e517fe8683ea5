//! `--demo`: a simulated sky around the receiver, rendered to RTL-SDR I/Q
//! for the real demodulator.
//!
//! [`DemoSky`] is a sample source: [`DemoSky::fill`] writes the next `cu8`
//! samples of what a dongle at [`DemoConfig::receiver`] would hear at
//! 1090 MHz, and advances simulated time by exactly that many samples.
//! Three parts, one job each:
//!
//! - [`sky`]: dozens of aircraft on realistic tracks (an airport with
//!   departures, arrivals and taxiing traffic, en-route traffic up to
//!   200 NM, light aircraft and helicopters), replaced when they leave;
//! - [`transponder`]: what each one sends and when (DO-260B squitter rates,
//!   DF11, DF0, and DF4/5/20/21 replies when rotating radars sweep it);
//! - [`render`]: frames to I/Q (the core `Modulator` for pulses, a
//!   pre-computed table of band-limited noise, one quantisation).
//!
//! # Signal level
//!
//! A reply's pulse amplitude (full scale 1.0) falls with the slant range
//! `d` as in free space: `A = level_at_100nm · (100 NM / d) ·
//! 10^((p + f)/20)`, capped at 0.95, with a per-aircraft transmitter
//! offset `p` in ±2 dB and a per-reply fade `f` in ±1.5 dB. With the
//! defaults (0.15 at 100 NM, 3 codes of noise) the SNR is about 14 dB at
//! 100 NM, 8 dB at 200 NM (where replies start to be lost) and saturates
//! near the airport. Aircraft below the radio horizon
//! (`1.23 (√h_ft + √50)` NM, a 50 ft antenna) are not heard at all. Each
//! aircraft has its own carrier offset (±100 kHz); each reply a random
//! carrier phase. Replies overlap wherever their times do.
//!
//! With [`DemoConfig::front_end`] set, levels are physical instead
//! ([`frontend`]): each aircraft transmits 51–57 dBm (125–500 W), replies
//! lose free-space path loss and the system loss, and the tuner gain
//! ([`DemoSky::set_gain`], or the tuner's AGC) sets where they and the
//! receiver's noise land on the 8-bit ADC; very strong replies compress
//! the LNA and clip.
//!
//! # Determinism
//!
//! Everything is a function of [`DemoConfig`] (seed included) and the
//! number of samples read: the output does not depend on how `fill` calls
//! split the stream (tested).

pub mod frontend;
mod paced;
pub mod render;
pub mod sky;
pub mod transponder;
pub mod uat;

use std::fmt;

pub use paced::{BLOCK as PACED_BLOCK, PacedSky, Render};

use airwaves_core::modes::adsb::{Callsign, Category};
use airwaves_core::modes::cpr::Position;
use airwaves_core::modes::modulate::Modulator;

use crate::rtl::r82xx::Gain;
use airwaves_core::rng::Rng;
use frontend::{FrontEnd, TunerAgc};
use render::Renderer;
pub use sky::SkyKind;
use sky::{FlightKind, Sky, bearing_distance};
use transponder::{Transmission, Transponders};

/// What to simulate. [`Default`]: 40 aircraft around 52.31° N 4.76° E at
/// 2.4 MS/s.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoConfig {
    /// The receiver's location (default 52.31° N, 4.76° E, near
    /// Schiphol); the airport is 4 NM north-east of it. |lat| ≤ 75°.
    pub receiver: Position,
    /// Sample rate, Hz (default 2.4e6; 2.0e6 works too; 1e6 ..= 12e6).
    pub sample_rate: f64,
    /// Number of aircraft, 1 ..= 1000 (default 40).
    pub aircraft: usize,
    /// Seed of every random choice (default 1).
    pub seed: u64,
    /// Noise rms per component (I or Q), ADC codes, 0 ..= 40 (default 3).
    pub noise_rms: f64,
    /// Pulse amplitude at 100 NM slant range, full scale 1.0, in (0, 1]
    /// (default 0.15).
    pub level_at_100nm: f64,
    /// DC offset added before quantisation, ADC codes (I, Q), each within
    /// ±20 (default (0.6, −0.4)).
    pub dc_offset: (f64, f64),
    /// Runway direction, degrees: the runway is `h`/`h + 180`, used in the
    /// direction `h + 180` (default 60: runway 06/24, landing and taking
    /// off on 24).
    pub runway_heading_deg: f64,
    /// Let a rare en-route flight squawk 7700 (1 in 150 new flights;
    /// default true).
    pub emergencies: bool,
    /// What kind of sky (default [`SkyKind::Airport`]).
    pub sky: SkyKind,
    /// Physical levels through this front end (then `noise_rms` and
    /// `level_at_100nm` are not used); `None` (default): the fixed levels
    /// above.
    pub front_end: Option<FrontEnd>,
    /// The tuner gain at the start, with a front end (default 49.6 dB).
    pub gain: Gain,
}

impl Default for DemoConfig {
    fn default() -> Self {
        Self {
            receiver: Position::new(52.31, 4.76),
            sample_rate: 2.4e6,
            aircraft: 40,
            seed: 1,
            noise_rms: 3.0,
            level_at_100nm: 0.15,
            dc_offset: (0.6, -0.4),
            runway_heading_deg: 60.0,
            emergencies: true,
            sky: SkyKind::Airport,
            front_end: None,
            gain: Gain::Manual(frontend::MAX_GAIN_TENTHS),
        }
    }
}

/// The emulated dongle's antenna (`--fake-device r820t,sky=NAME`): the
/// demo sky of kind NAME through the physical front end, at the gain the
/// driver programmed into the emulated tuner.
impl crate::rtl::fake::Antenna for DemoSky {
    fn fill(&mut self, gain: Gain, buf: &mut [u8]) {
        self.set_gain(gain);
        DemoSky::fill(self, buf);
    }

    fn gain_tenths(&self) -> Option<i32> {
        DemoSky::gain_tenths(self)
    }
}

/// The [`AntennaMaker`](crate::rtl::fake::AntennaMaker) of the demo sky
/// `name` (`airport`, `rural`, `mixed`) with the default front end.
///
/// # Errors
/// An unknown sky name (the message says which are known).
pub fn antenna_maker(name: &str) -> Result<crate::rtl::fake::AntennaMaker, String> {
    let kind: SkyKind = name.parse()?;
    Ok(crate::rtl::fake::AntennaMaker(std::sync::Arc::new(
        move |rate| {
            let cfg = DemoConfig {
                sky: kind,
                sample_rate: rate,
                front_end: Some(FrontEnd::default()),
                ..DemoConfig::default()
            };
            DemoSky::new(&cfg, 0)
                .ok()
                .map(|s| Box::new(s) as Box<dyn crate::rtl::fake::Antenna>)
        },
    )))
}

/// A [`DemoConfig`] value out of range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DemoError {
    /// Not a finite rate in 1e6 ..= 12e6 Hz.
    SampleRate(f64),
    /// Not 1 ..= 1000 aircraft.
    Aircraft(usize),
    /// Not a valid position with |lat| ≤ 75°.
    Receiver(Position),
    /// Noise rms not finite in 0 ..= 40 codes.
    Noise(f64),
    /// Level at 100 NM not in (0, 1].
    Level(f64),
    /// DC offset not finite within ±20 codes.
    DcOffset(f64, f64),
    /// Runway heading not finite.
    RunwayHeading(f64),
    /// A front-end value not finite, or a noise bandwidth not in (0, 1].
    FrontEnd,
}

impl fmt::Display for DemoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SampleRate(r) => write!(f, "demo sample rate {r} Hz: need 1e6 ..= 12e6"),
            Self::Aircraft(n) => write!(f, "demo with {n} aircraft: need 1 ..= 1000"),
            Self::Receiver(p) => write!(
                f,
                "demo receiver at {}, {}: need a valid position within 75° of the equator",
                p.lat, p.lon
            ),
            Self::Noise(n) => write!(f, "demo noise {n} codes rms: need 0 ..= 40"),
            Self::Level(l) => write!(f, "demo level {l} at 100 NM: need (0, 1]"),
            Self::DcOffset(i, q) => write!(f, "demo DC offset ({i}, {q}): need within ±20 codes"),
            Self::RunwayHeading(h) => write!(f, "demo runway heading {h}: not finite"),
            Self::FrontEnd => write!(
                f,
                "demo front end: every value must be finite, the noise bandwidth in (0, 1]"
            ),
        }
    }
}

impl std::error::Error for DemoError {}

/// Where an aircraft really is (for tests and checks), at
/// [`DemoSky::now_ms`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TruthAircraft {
    /// ICAO 24-bit address.
    pub address: u32,
    /// Callsign as sent (flight number or registration).
    pub callsign: Callsign,
    /// Emitter category as sent.
    pub category: Category,
    /// Mode A code, octal digits as hex nibbles (`0x7700`).
    pub squawk: u16,
    /// Role in the simulation.
    pub kind: FlightKind,
    /// Position, degrees.
    pub position: Position,
    /// Barometric altitude, ft.
    pub altitude_ft: f64,
    /// Ground speed, kt.
    pub ground_speed_kt: f64,
    /// Track over ground, degrees from true north, 0–360.
    pub track_deg: f64,
    /// Vertical rate, ft/min (positive up).
    pub vertical_rate_fpm: f64,
    /// On the ground.
    pub on_ground: bool,
    /// Distance from the receiver, NM.
    pub range_nm: f64,
}

/// Counts since the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DemoStats {
    /// Frames transmitted, by downlink format (heard or not).
    pub sent_by_df: [u64; 32],
    /// Frames rendered into the I/Q (above the radio horizon).
    pub rendered: u64,
    /// I or Q values clipped by the quantiser.
    pub clipped: u64,
    /// Tuner gain changes applied (by [`DemoSky::set_gain`] or the AGC).
    pub gain_changes: u64,
}

/// The simulated sky as a `cu8` sample source.
#[derive(Debug)]
pub struct DemoSky {
    sky: Sky,
    transponders: Transponders,
    renderer: Renderer,
    /// Fades and carrier phases.
    link: Rng,
    rate: f64,
    level: f64,
    samples: u64,
    start_ms: u64,
    rendered: u64,
    receiver: Position,
    front_end: Option<FrontEnd>,
    /// The gain asked for.
    gain: Gain,
    /// The gain the model applies now, tenths of a dB.
    applied: Option<i32>,
    agc: TunerAgc,
    gain_changes: u64,
}

/// Height of the receiving antenna for the radio horizon, ft.
const ANTENNA_FT: f64 = 50.0;
/// Largest pulse amplitude, full scale (without a front end).
const MAX_AMPLITUDE: f64 = 0.95;
/// A transponder's nominal power, dBm (250 W).
const TX_DBM: f64 = 54.0;

impl DemoSky {
    /// A sky for `cfg` whose sample 0 is at `start_unix_ms` (ms since the
    /// Unix epoch, or any other clock: it only offsets
    /// [`now_ms`](Self::now_ms)).
    ///
    /// # Errors
    /// [`DemoError`] for a configuration value out of range.
    pub fn new(cfg: &DemoConfig, start_unix_ms: u64) -> Result<Self, DemoError> {
        let rate = cfg.sample_rate;
        if !(rate.is_finite() && (1e6..=12e6).contains(&rate)) {
            return Err(DemoError::SampleRate(rate));
        }
        if !(1..=1000).contains(&cfg.aircraft) {
            return Err(DemoError::Aircraft(cfg.aircraft));
        }
        if !(cfg.receiver.is_valid() && cfg.receiver.lat.abs() <= 75.0) {
            return Err(DemoError::Receiver(cfg.receiver));
        }
        if !(0.0..=40.0).contains(&cfg.noise_rms) {
            return Err(DemoError::Noise(cfg.noise_rms));
        }
        if !(cfg.level_at_100nm > 0.0 && cfg.level_at_100nm <= 1.0) {
            return Err(DemoError::Level(cfg.level_at_100nm));
        }
        let (i, q) = cfg.dc_offset;
        if !(i.abs() <= 20.0 && q.abs() <= 20.0) {
            return Err(DemoError::DcOffset(i, q));
        }
        if !cfg.runway_heading_deg.is_finite() {
            return Err(DemoError::RunwayHeading(cfg.runway_heading_deg));
        }
        if let Some(fe) = &cfg.front_end {
            let values = [
                fe.system_loss_db,
                fe.nf_lna_db,
                fe.nf_back_db,
                fe.full_scale_at_0db_dbm,
                fe.lna_saturation_dbm,
            ];
            if !(values.iter().all(|v| v.is_finite())
                && fe.noise_bandwidth > 0.0
                && fe.noise_bandwidth <= 1.0)
            {
                return Err(DemoError::FrontEnd);
            }
        }
        let modulator = Modulator::new(rate).ok_or(DemoError::SampleRate(rate))?;
        let sky = Sky::new(cfg, cfg.seed);
        let transponders = Transponders::new(&sky, cfg.seed ^ 0x7472_616E_7370_6F6E);
        Ok(Self {
            renderer: Renderer::new(
                modulator,
                cfg.noise_rms,
                cfg.dc_offset,
                cfg.seed ^ 0x6E6F_6973_6564_656D,
            ),
            sky,
            transponders,
            link: Rng::new(cfg.seed ^ 0x6C69_6E6B_6275_6467),
            rate,
            level: cfg.level_at_100nm,
            samples: 0,
            start_ms: start_unix_ms,
            rendered: 0,
            receiver: cfg.receiver,
            front_end: cfg.front_end,
            gain: cfg.gain,
            applied: None,
            agc: TunerAgc::new(),
            gain_changes: 0,
        })
    }

    /// Set the tuner gain (a listed gain nearest a manual value, or the
    /// tuner's AGC); it applies from the next [`fill`](Self::fill). Without
    /// a front end it changes nothing.
    pub fn set_gain(&mut self, gain: Gain) {
        self.gain = match gain {
            Gain::Manual(t) => Gain::Manual(crate::rtl::r82xx::nearest_gain(t)),
            Gain::Auto => Gain::Auto,
        };
    }

    /// The tuner gain the model applies now, tenths of a dB (`None`
    /// without a front end).
    pub fn gain_tenths(&self) -> Option<i32> {
        self.front_end.map(|_| match self.gain {
            Gain::Manual(t) => t,
            Gain::Auto => self.agc.gain_tenths(),
        })
    }

    /// Bring the renderer to the gain asked for (noise level, LNA
    /// saturation).
    fn apply_gain(&mut self) {
        let (Some(fe), Some(g)) = (self.front_end, self.gain_tenths()) else {
            return;
        };
        if self.applied == Some(g) {
            return;
        }
        if self.applied.is_some() {
            self.gain_changes += 1;
        }
        self.applied = Some(g);
        self.renderer
            .set_noise_rms(fe.noise_rms_codes(self.rate, g));
        self.renderer.set_saturation(fe.saturation_amplitude(g));
    }

    /// Write the next `out.len() / 2` I/Q samples (RTL-SDR `cu8`: I, Q
    /// bytes, zero at 127.4) and advance simulated time by as many samples.
    /// A trailing odd byte is left unchanged. Any length works; the bytes
    /// do not depend on how the stream is split into calls.
    pub fn fill(&mut self, out: &mut [u8]) {
        let n = (out.len() / 2) as u64;
        self.apply_gain();
        let s0 = self.samples;
        let s1 = s0 + n;
        while let Some(t_ns) = self.transponders.next_ns() {
            let start = t_ns as f64 * self.rate * 1e-9;
            if start >= s1 as f64 {
                break;
            }
            self.sky.advance_to(t_ns as f64 * 1e-9);
            if let Some(tx) = self.transponders.fire(&self.sky) {
                self.put_on_air(&tx, start);
            }
        }
        self.renderer.fill(s0, out);
        self.samples = s1;
        let peak = self.renderer.take_peak();
        if self.front_end.is_some() && self.gain == Gain::Auto {
            self.agc.update(peak, n as f64 / self.rate);
        }
        // Motion up to now (never past the next event, so the steps taken
        // do not depend on where calls end).
        let now = s1 as f64 / self.rate;
        let next = self.transponders.next_ns().map_or(now, |t| t as f64 * 1e-9);
        self.sky.advance_to(now.min(next));
    }

    /// Link budget for one transmission, and into the renderer.
    fn put_on_air(&mut self, tx: &Transmission, start: f64) {
        let t_s = tx.t_ns as f64 * 1e-9;
        let Some((f, pos, alt)) = self.sky.state_at(tx.slot, t_s) else {
            return;
        };
        let fade = self.link.range(-1.5, 1.5);
        let phase = self.link.range(0.0, std::f64::consts::TAU) as f32;
        let (_, ground_nm) = bearing_distance(self.receiver, pos);
        let horizon = 1.23 * (alt.max(0.0).sqrt() + ANTENNA_FT.sqrt());
        if ground_nm > horizon {
            return;
        }
        let slant = ground_nm.hypot(alt.max(0.0) / 6076.1).max(0.05);
        let amplitude = match (self.front_end, self.applied) {
            (Some(fe), Some(g)) => {
                // 51–57 dBm: the ±2 dB offset spread over ±3 dB.
                let tx = TX_DBM + 1.5 * f.power_db;
                fe.amplitude(fe.received_dbm(tx, slant * 1.852) + fade, g)
            }
            _ => (self.level * (100.0 / slant) * 10f64.powf((f.power_db + fade) / 20.0))
                .min(MAX_AMPLITUDE),
        };
        let carrier = f.carrier_hz;
        self.renderer
            .push(start, &tx.bytes[..tx.len], amplitude as f32, carrier, phase);
        self.rendered += 1;
    }

    /// Simulated time now (the end of the samples written so far), ms on
    /// the clock of `start_unix_ms`.
    pub fn now_ms(&self) -> u64 {
        self.start_ms + (self.samples as f64 * 1000.0 / self.rate) as u64
    }

    /// Samples written so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// The sample rate, Hz.
    pub fn sample_rate(&self) -> f64 {
        self.rate
    }

    /// Counts of what was sent and rendered.
    pub fn stats(&self) -> DemoStats {
        DemoStats {
            sent_by_df: self.transponders.stats().by_df,
            rendered: self.rendered,
            clipped: self.renderer.clipped(),
            gain_changes: self.gain_changes,
        }
    }

    /// Every aircraft as it is at [`now_ms`](Self::now_ms).
    pub fn aircraft(&self) -> impl Iterator<Item = TruthAircraft> + '_ {
        let now = self.samples as f64 / self.rate;
        let rx = self.receiver;
        (0..self.sky.flights().len()).filter_map(move |i| {
            let (f, position, altitude_ft) = self.sky.state_at(i, now)?;
            Some(TruthAircraft {
                address: f.icao,
                callsign: f.callsign,
                category: f.category,
                squawk: f.squawk,
                kind: f.kind,
                position,
                altitude_ft,
                ground_speed_kt: f.gs_kt,
                track_deg: f.track_deg,
                vertical_rate_fpm: if f.on_ground { 0.0 } else { f.vr_fpm },
                on_ground: f.on_ground,
                range_nm: bearing_distance(rx, position).1,
            })
        })
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use airwaves_core::modes::demod::Demodulator;
    use airwaves_core::modes::receiver::{Clock, Decoded, Receiver, Sink};
    use airwaves_core::modes::tracker::{PositionFix, TrackerConfig};
    use std::collections::HashMap;

    const START_MS: u64 = 1_700_000_000_000;

    fn small() -> DemoConfig {
        DemoConfig {
            aircraft: 12,
            seed: 4,
            ..DemoConfig::default()
        }
    }

    fn read(cfg: &DemoConfig, chunks: &[usize]) -> Vec<u8> {
        let mut sky = DemoSky::new(cfg, START_MS).unwrap();
        let total: usize = chunks.iter().sum();
        let mut out = vec![0u8; 2 * total];
        let mut at = 0;
        for &c in chunks {
            sky.fill(&mut out[2 * at..2 * (at + c)]);
            at += c;
        }
        assert_eq!(sky.samples(), total as u64);
        out
    }

    /// The bytes do not depend on how `fill` calls split the stream, and
    /// are a function of the seed.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_split_invariance_and_determinism() {
        let cfg = small();
        let whole = read(&cfg, &[1_200_000]);
        let mut chunks = Vec::new();
        let mut rng = Rng::new(3);
        let mut left = 1_200_000;
        while left > 0 {
            let most = if rng.below(4) == 0 { 10 } else { 90_000 };
            let c = (1 + rng.below(most) as usize).min(left);
            chunks.push(c);
            left -= c;
        }
        assert!(chunks.len() > 20);
        let split = read(&cfg, &chunks);
        let first = whole.iter().zip(&split).position(|(a, b)| a != b);
        assert_eq!(first, None, "streams differ from byte {first:?}");
        assert!(whole == read(&cfg, &[1_200_000]));
        let other = read(&DemoConfig { seed: 5, ..cfg }, &[1_200_000]);
        assert!(whole != other);
        // An odd length leaves its last byte alone and time moves by the
        // whole samples only.
        let mut sky = DemoSky::new(&small(), START_MS).unwrap();
        let mut odd = [0xAAu8; 7];
        sky.fill(&mut odd);
        assert_eq!((odd[6], sky.samples()), (0xAA, 3));
        assert_eq!(&odd[..6], &whole[..6]);
    }

    /// The gain set through the driver on the emulated dongle is the gain
    /// the sky's front end applies: the noise floor follows it, and the
    /// tuner AGC mode (gain mode auto) is the AGC model.
    #[test]
    fn test_emulator_gain_through_the_driver() {
        use crate::rtl::device::{Device, Selector};
        use crate::rtl::fake::FakeConfig;
        use airwaves_core::modes::level::{LevelMeter, LevelState};
        let mut cfg = FakeConfig::parse("r820t,fast,sky=rural").unwrap();
        if let Some((name, maker)) = &mut cfg.sky {
            *maker = Some(antenna_maker(name).unwrap());
        }
        let mut dev = Device::open(&Selector::Fake(cfg), None).unwrap();
        dev.set_sample_rate(2_400_000).unwrap();
        dev.set_center_freq(1_090_000_000).unwrap();
        let floor = |dev: &mut Device| {
            dev.reset_buffer().unwrap();
            let mut buf = vec![0u8; 1 << 18];
            let n = dev.read_sync(&mut buf).unwrap();
            let mut st = LevelState::new();
            LevelMeter::RTL_SDR.block(&mut st, &buf[..n]);
            st.stats().noise_floor(50)
        };
        dev.set_gain(496).unwrap();
        let high = floor(&mut dev);
        dev.set_gain(297).unwrap();
        let mid = floor(&mut dev);
        dev.set_gain(0).unwrap();
        let low = floor(&mut dev);
        // σ ≈ 6 codes (median ≈ 14 on the 0–255 scale), 0.74 codes, and
        // nothing but quantisation.
        assert!((11..=17).contains(&high), "{high}");
        assert!((1..=3).contains(&mid), "{mid}");
        assert!(low <= 1, "{low}");
        assert!(FakeConfig::parse("r820t,sky=").is_err());
        assert!(antenna_maker("city").unwrap_err().contains("airport"));
    }

    /// The lead's pipeline runs it on a source thread.
    #[test]
    fn test_send() {
        fn send<T: Send>(_: &T) {}
        send(&DemoSky::new(&small(), 0).unwrap());
    }

    #[test]
    fn test_bad_config() {
        let bad = [
            DemoConfig {
                sample_rate: f64::NAN,
                ..DemoConfig::default()
            },
            DemoConfig {
                sample_rate: 100e6,
                ..DemoConfig::default()
            },
            DemoConfig {
                aircraft: 0,
                ..DemoConfig::default()
            },
            DemoConfig {
                receiver: Position::new(95.0, 0.0),
                ..DemoConfig::default()
            },
            DemoConfig {
                noise_rms: -1.0,
                ..DemoConfig::default()
            },
            DemoConfig {
                level_at_100nm: 0.0,
                ..DemoConfig::default()
            },
            DemoConfig {
                dc_offset: (f64::INFINITY, 0.0),
                ..DemoConfig::default()
            },
            DemoConfig {
                runway_heading_deg: f64::NAN,
                ..DemoConfig::default()
            },
        ];
        for cfg in bad {
            let e = DemoSky::new(&cfg, 0).unwrap_err();
            assert!(!e.to_string().is_empty());
        }
    }

    /// Real-time factor of rendering alone (printed, not asserted).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_render_speed() {
        let cfg = DemoConfig::default();
        let t0 = std::time::Instant::now();
        let mut sky = DemoSky::new(&cfg, START_MS).unwrap();
        let setup = t0.elapsed();
        let mut buf = vec![0u8; 2 * 262_144];
        let seconds = 20.0;
        let t0 = std::time::Instant::now();
        while (sky.samples() as f64) < seconds * cfg.sample_rate {
            sky.fill(&mut buf);
        }
        let wall = t0.elapsed().as_secs_f64();
        let simulated = sky.samples() as f64 / cfg.sample_rate;
        eprintln!(
            "demo render: {simulated:.1} s of 2.4 MS/s in {wall:.3} s: real-time factor {:.0}, \
             {:.2} % of one core; set-up {:.0} ms; {} replies rendered, {} values clipped",
            simulated / wall,
            100.0 * wall / simulated,
            setup.as_secs_f64() * 1e3,
            sky.stats().rendered,
            sky.stats().clipped,
        );
        assert!(sky.stats().rendered > 1000);
    }

    /// Run the real demodulator and tracker on 25 s of demo, at both
    /// RTL-SDR rates.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_end_to_end_decode() {
        end_to_end(&DemoConfig::default());
        end_to_end(&DemoConfig {
            sample_rate: 2.0e6,
            seed: 2,
            ..DemoConfig::default()
        });
    }

    /// An accepted frame: its DF, tracker time, and its aircraft's address
    /// and position fix.
    type Accepted = (u8, u64, Option<(u32, Option<PositionFix>)>);

    /// The accepted frames of one block.
    struct Accepts(Vec<Accepted>);

    impl Sink<256> for Accepts {
        fn frame(&mut self, d: &Decoded<'_, 256>) {
            if d.outcome.is_ok() {
                let ac = d.aircraft().map(|a| (a.address(), a.position()));
                self.0.push((d.frame.df(), d.t_ms, ac));
            }
        }
    }

    /// 25 s of `cfg` through the receive chain (demodulator and tracker): no false
    /// aircraft, ≥ 90 % of those within 100 NM located, every position
    /// within 0.2 NM of the truth, callsigns, squawks and ground state
    /// right, DF4/5/11/17/20/21 all decoded.
    fn end_to_end(cfg: &DemoConfig) {
        let rx = cfg.receiver;
        let mut sky = DemoSky::new(cfg, START_MS).unwrap();
        let rate = cfg.sample_rate as u32;
        let demod = Demodulator::new(rate).unwrap();
        let clock = Clock::Samples { epoch_ms: START_MS };
        let mut receiver = Box::new(Receiver::<256>::new(
            demod,
            TrackerConfig::with_receiver(rx),
            clock,
        ));
        // Truth: per address, (time, state) at the end of every block.
        let mut truth: HashMap<u32, Vec<(u64, TruthAircraft)>> = HashMap::new();
        let mut frames = Accepts(Vec::new());
        let mut by_df = [0u64; 32];
        let mut checked_positions = 0u64;
        let mut worst_nm = 0f64;
        let block = rate as usize / 10; // 0.1 s
        let mut buf = vec![0u8; 2 * block];
        let seconds = 25;
        for _ in 0..seconds * 10 {
            sky.fill(&mut buf);
            let now = sky.now_ms();
            for a in sky.aircraft() {
                truth.entry(a.address).or_default().push((now, a));
            }
            frames.0.clear();
            receiver.process(&buf, 0, &mut frames);
            for &(df, t_ms, ac) in &frames.0 {
                by_df[usize::from(df)] += 1;
                let Some((address, fix)) = ac else {
                    continue;
                };
                let Some(fix) = fix else {
                    continue;
                };
                if fix.t_ms != t_ms {
                    continue;
                }
                // The truth at the end of this block, taken back to
                // the frame's time along its track.
                let hist = truth.get(&address).expect("no false aircraft");
                let &(t_truth, a) = hist.last().unwrap();
                let back = (t_truth - t_ms) as f64 / 1000.0;
                let p = sky::advance(
                    a.position,
                    a.track_deg + 180.0,
                    a.ground_speed_kt * back / 3600.0,
                );
                let err = airwaves_core::modes::cpr::distance_nm(p, fix.position);
                worst_nm = worst_nm.max(err);
                assert!(
                    err < 0.2,
                    "{:06X} {}: fix {:?} truth {p:?}: {err:.3} NM",
                    a.address,
                    a.callsign.as_str(),
                    fix
                );
                checked_positions += 1;
            }
        }
        let now = sky.now_ms();
        // No false aircraft.
        let tracker = receiver.tracker();
        for ac in tracker.iter() {
            assert!(
                truth.contains_key(&ac.address()),
                "false aircraft {:06X}",
                ac.address()
            );
        }
        // ≥ 90 % of the aircraft within 100 NM, present for the last 15 s,
        // have a position.
        let mut near = 0;
        let mut located = 0;
        let mut ground_checked = 0;
        let mut squawks = 0;
        let mut callsigns = 0;
        let mut missing = Vec::new();
        for a in sky.aircraft() {
            let hist = &truth[&a.address];
            let long_enough = hist.first().is_some_and(|&(t, _)| t + 15_000 <= now);
            let ac = tracker.get(a.address);
            if let Some(ac) = ac {
                if let Some(cs) = ac.callsign() {
                    assert_eq!(cs.trim_end(), a.callsign.as_str().trim_end());
                    callsigns += 1;
                }
                if let Some(sq) = ac.squawk() {
                    assert_eq!(sq, a.squawk, "{:06X}", a.address);
                    squawks += 1;
                }
                if a.on_ground && ac.position().is_some() {
                    assert_eq!(ac.on_ground(), Some(true), "{:06X}", a.address);
                    ground_checked += 1;
                }
            }
            if a.range_nm <= 100.0 && long_enough {
                near += 1;
                if ac.is_some_and(|ac| ac.position().is_some()) {
                    located += 1;
                } else {
                    missing.push((a.address, a.kind, a.range_nm, a.altitude_ft));
                }
            }
        }
        let far_located = sky
            .aircraft()
            .filter(|a| a.range_nm > 180.0)
            .filter(|a| {
                tracker
                    .get(a.address)
                    .is_some_and(|ac| ac.position().is_some())
            })
            .count();
        eprintln!(
            "demo decode, {seconds} s at {rate} S/s, seed {}: {} frames accepted (DF0 {}, DF4 {}, DF5 {}, DF11 {}, \
             DF17 {}, DF20 {}, DF21 {}), {} aircraft tracked, {located}/{near} within 100 NM \
             located, {far_located} beyond 180 NM located, {checked_positions} positions \
             checked (worst {worst_nm:.4} NM), {callsigns} callsigns, {squawks} squawks, \
             {ground_checked} on the ground; {} replies rendered",
            cfg.seed,
            tracker.stats().accepted,
            by_df[0],
            by_df[4],
            by_df[5],
            by_df[11],
            by_df[17],
            by_df[20],
            by_df[21],
            tracker.len(),
            sky.stats().rendered,
        );
        assert!(near >= 10, "{near}");
        assert!(
            located * 10 >= near * 9,
            "{located}/{near} located; missing {missing:x?}"
        );
        assert!(checked_positions > 1000);
        assert!(
            callsigns >= near * 8 / 10 && squawks >= 5,
            "{callsigns} {squawks}"
        );
        assert!(ground_checked >= 1);
        for df in [4, 5, 11, 17, 20, 21] {
            assert!(by_df[df] > 10, "DF{df}: {}", by_df[df]);
        }
    }
}
