//! The demo's 978 MHz sky (`airwaves adsb --demo`): UAT aircraft around
//! the receiver and a FIS-B ground station at it, rendered through the
//! core modulator and the scene's receiver model
//! ([`crate::sim::uat`]) as a stream of `cu8` at
//! [`SAMPLE_RATE`], paced like the
//! 1090 MHz sky ([`PacedSky`](super::PacedSky)).
//!
//! # What it sends
//!
//! - **Aircraft**: [`UatSkyConfig::aircraft`] general-aviation aircraft
//!   within about 100 km, one ADS-B message a second each, at a random
//!   time of the ADS-B segment; SNR falls 20 dB a decade of distance
//!   (30 dB at 10 km), between 4 and 35 dB.
//! - **Ground station** at the receiver, slot 17, every second (30 dB):
//!   FIS-B regional NEXRAD (product 63) of a rain cell that drifts
//!   north-east at 40 kt across the receiver's area (intensity
//!   `7·exp(−(r/15 km)²)`, plus a weaker trailing cell), its blocks
//!   (scale 0, 4′ × 48′) sent in turn, those without echo as empty-block
//!   bitmaps so the echo moves on the map; and every fifth second a
//!   generic text product (413) with METARs and a TAF stamped with the
//!   sky's UTC time.
//!
//! The radar grid is drawn only between 0° and 59° N (the block
//! numbering's simple part); elsewhere the station sends text only.

use super::paced::Render;
use crate::sim::uat::{Aircraft, UatRenderer};
use airwaves_core::modes::cpr::Position;
use airwaves_core::rng::Rng;
use airwaves_core::uat::fisb::nexrad::{
    BINS, Block, BlockHeader, EmptyBlocks, RING_BLOCKS, Scale, geometry,
};
use airwaves_core::uat::fisb::text::dlac_encode;
use airwaves_core::uat::fisb::{GENERIC_TEXT, NEXRAD_REGIONAL, write_info_frame};
use airwaves_core::uat::uplink::{self, ProductTime};
use airwaves_core::uat::{SAMPLE_RATE, UPLINK_DATA};
use std::f64::consts::TAU;

/// What the UAT sky holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UatSkyConfig {
    /// The receiver (and ground station) position.
    pub receiver: Position,
    /// UAT aircraft (default 12).
    pub aircraft: usize,
    /// Seed.
    pub seed: u64,
    /// Unix time of sample 0, ms (the products' times).
    pub start_unix_ms: u64,
}

/// The ground station's slot.
const SLOT: u8 = 17;
/// Rain-cell drift, kt, towards 45°.
const CELL_KT: f64 = 40.0;
/// Rain-cell radius (1/e of the intensity), km.
const CELL_KM: f64 = 15.0;
/// Half the radar area's side, degrees of latitude.
const AREA_DEG: f64 = 0.6;
/// Kilometres per degree of latitude.
const KM_PER_DEG: f64 = 111.2;

/// The stream (see the module docs).
pub struct UatSky {
    cfg: UatSkyConfig,
    rng: Rng,
    fleet: Vec<Aircraft>,
    renderer: UatRenderer,
    /// The next second to schedule.
    next_second: u64,
    /// The radar area's blocks, sent in turn.
    blocks: Vec<u32>,
    cursor: usize,
}

impl std::fmt::Debug for UatSky {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UatSky")
            .field("cfg", &self.cfg)
            .field("next_second", &self.next_second)
            .finish_non_exhaustive()
    }
}

impl UatSky {
    /// The sky of `cfg`.
    pub fn new(cfg: UatSkyConfig) -> Self {
        let mut rng = Rng::new(cfg.seed ^ 0x0978);
        let span = (0.8, 0.8 / cfg.receiver.lat.to_radians().cos().max(0.2));
        let fleet = (0..cfg.aircraft)
            .map(|i| Aircraft::around(&mut rng, i, cfg.receiver, span, (3e3, 2e3)))
            .collect();
        Self {
            cfg,
            rng,
            fleet,
            renderer: UatRenderer::light(3.0, cfg.seed ^ 0x6e6f_6973),
            next_second: 0,
            blocks: radar_blocks(cfg.receiver),
            cursor: 0,
        }
    }

    /// Schedule second `k`'s transmissions.
    fn schedule(&mut self, k: u64) {
        let second = k as f64 * SAMPLE_RATE;
        let mut events = Vec::with_capacity(self.fleet.len() + 1);
        let start = second + (0.006 + 0.0055 * f64::from(SLOT)) * SAMPLE_RATE;
        let data = self.uplink(k);
        let phase = self.rng.range(0.0, TAU);
        events.push(self.renderer.event(start, data, 30.0, 1e3, phase));
        for a in &self.fleet {
            let km = distance_km(self.cfg.receiver, a.position(k)).max(1.0);
            let snr = (30.0 - 20.0 * (km / 10.0).log10()).clamp(4.0, 35.0);
            let start = second + (0.188 + 0.81 * self.rng.uniform()) * SAMPLE_RATE;
            let phase = self.rng.range(0.0, TAU);
            let e = self
                .renderer
                .event(start, a.message(k), snr, a.carrier_hz(), phase);
            events.push(e);
        }
        events.sort_by(|a, b| a.start.total_cmp(&b.start));
        for e in events {
            self.renderer.push(e);
        }
    }

    /// The ground station's uplink in second `k`.
    fn uplink(&mut self, k: u64) -> Vec<u8> {
        let mut data = vec![0u8; UPLINK_DATA];
        data[..uplink::APP_DATA].copy_from_slice(&uplink::header(self.cfg.receiver, SLOT, 1));
        let unix_s = self.cfg.start_unix_ms / 1000 + k;
        let (day, hours, minutes) = utc(unix_s);
        let time = ProductTime {
            month_day: None,
            hours,
            minutes,
            seconds: None,
        };
        let mut at = uplink::APP_DATA;
        // Room for the end-of-frames marker.
        let end = UPLINK_DATA - 2;
        if k % 5 == 0 {
            let text = reports(day, hours, minutes, k);
            let mut dlac = vec![0u8; text.len()];
            if let Ok(n) = dlac_encode(text.as_bytes(), &mut dlac) {
                if let Ok(w) = write_info_frame(GENERIC_TEXT, time, &dlac[..n], &mut data[at..end])
                {
                    at += w;
                }
            }
        }
        let hours_f = k as f64 / 3600.0;
        let mut payload = [0u8; 3 + BINS];
        for _ in 0..self.blocks.len() {
            let number = self.blocks[self.cursor];
            let header = BlockHeader {
                south: false,
                scale: Scale::X1,
                number,
            };
            let bins = self.bins(number, hours_f);
            let n = if bins.iter().any(|&b| b >= 2) {
                Block { header, bins }.emit(&mut payload)
            } else {
                EmptyBlocks { header, offsets: 0 }.emit(&mut payload)
            };
            let Ok(n) = n else {
                self.cursor = (self.cursor + 1) % self.blocks.len();
                continue;
            };
            match write_info_frame(NEXRAD_REGIONAL, time, &payload[..n], &mut data[at..end]) {
                Ok(w) => at += w,
                Err(_) => break,
            }
            self.cursor = (self.cursor + 1) % self.blocks.len();
        }
        data
    }

    /// Intensities of block `number`'s bins `hours` after the start.
    fn bins(&self, number: u32, hours: f64) -> [u8; BINS] {
        let mut bins = [0u8; BINS];
        let Some(g) = geometry(number, false, Scale::X1) else {
            return bins;
        };
        let rx = self.cfg.receiver;
        let cos = rx.lat.to_radians().cos().max(0.2);
        // The main cell starts 40 km south-west of the receiver; the
        // trailing one 25 km behind it.
        let drift_km = CELL_KT * 1.852 * hours;
        let along = drift_km / std::f64::consts::SQRT_2;
        let cells = [
            (-28.3 + along, -28.3 + along, 7.0),
            (-46.0 + along, -46.0 + along, 4.5),
        ];
        for (i, b) in bins.iter_mut().enumerate() {
            let (r, c) = ((i / 32) as f64, (i % 32) as f64);
            let lat = g.north_deg - (r + 0.5) * g.height_deg / 4.0;
            let lon = g.west_deg + (c + 0.5) * g.width_deg / 32.0;
            let (north_km, east_km) = (
                (lat - rx.lat) * KM_PER_DEG,
                (lon - rx.lon) * KM_PER_DEG * cos,
            );
            let v: f64 = cells
                .iter()
                .map(|&(n, e, peak)| {
                    let d2 = (north_km - n).powi(2) + (east_km - e).powi(2);
                    peak * (-d2 / (CELL_KM * CELL_KM)).exp()
                })
                .fold(0.0, f64::max);
            *b = if v >= 2.0 { v.min(7.0) as u8 } else { 0 };
        }
        bins
    }
}

impl Render for UatSky {
    fn fill(&mut self, out: &mut [u8]) {
        // Schedule a second ahead of the samples asked for.
        let upto = self.renderer.samples() + (out.len() / 2) as u64;
        while (self.next_second as f64) * SAMPLE_RATE < upto as f64 + SAMPLE_RATE {
            self.schedule(self.next_second);
            self.next_second += 1;
        }
        self.renderer.fill(out);
    }
}

/// The block numbers of the radar area around `rx` (none outside 0–59° N).
fn radar_blocks(rx: Position) -> Vec<u32> {
    if !(0.5..59.0).contains(&rx.lat) {
        return Vec::new();
    }
    let lon_span = AREA_DEG / rx.lat.to_radians().cos().max(0.2);
    let ring = |lat: f64| (lat * 15.0).floor() as i64;
    let column = |lon: f64| ((lon.rem_euclid(360.0)) / 0.8).floor() as i64;
    let mut out = Vec::new();
    for r in ring(rx.lat - AREA_DEG)..=ring(rx.lat + AREA_DEG) {
        let (c0, c1) = (column(rx.lon - lon_span), column(rx.lon + lon_span));
        let mut c = c0;
        loop {
            out.push((r * RING_BLOCKS as i64 + c) as u32);
            if c == c1 {
                break;
            }
            c = (c + 1) % RING_BLOCKS as i64;
        }
    }
    out
}

/// Day of the month, hours and minutes (UTC) of `unix_s`.
fn utc(unix_s: u64) -> (u8, u8, u8) {
    let days = (unix_s / 86_400) as i64;
    let s = unix_s % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    (day as u8, (s / 3600) as u8, (s / 60 % 60) as u8)
}

/// The text product: METARs of three stations and a TAF, at `day`,
/// `hours`:`minutes`, the wind veering with `k`.
fn reports(day: u8, hours: u8, minutes: u8, k: u64) -> String {
    let wind = 250 + (k / 60 % 6) * 10;
    let gust = 12 + k / 30 % 8;
    let z = format!("{day:02}{hours:02}{minutes:02}Z");
    let taf_from = format!("{day:02}{hours:02}");
    [
        format!("METAR KDEN {z} {wind:03}{gust:02}KT 10SM FEW080 SCT120 M02/M11 A3012"),
        format!("METAR KAPA {z} {:03}08KT 9SM -RA BKN045 OVC080 01/M03 A3009", wind + 10),
        format!("METAR KBJC {z} {wind:03}{:02}G22KT 6SM -SHRA BKN035 02/M01 A3007", gust + 2),
        format!("TAF KDEN {z} {taf_from}/{:02}{hours:02} {wind:03}12KT P6SM SCT080 TEMPO 2023 5SM -RA BKN045", day % 28 + 1),
    ]
    .join("\u{1e}")
        + "\u{1e}\u{3}"
}

fn distance_km(a: Position, b: Position) -> f64 {
    let cos = a.lat.to_radians().cos();
    let (n, e) = (
        (b.lat - a.lat) * KM_PER_DEG,
        (b.lon - a.lon) * KM_PER_DEG * cos,
    );
    (n * n + e * e).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uat::fisb::FisbStore;
    use airwaves_core::uat::demod::{DemodState, Demodulator, Link};

    #[test]
    fn test_utc() {
        // 2026-12-07 17:53:00 UTC.
        assert_eq!(utc(1_796_665_980), (7, 17, 53));
        assert_eq!(utc(0), (1, 0, 0));
    }

    /// Eight seconds of the sky through the real demodulator: every
    /// aircraft heard, the uplink every second, and the FIS-B store
    /// holding the METARs and an echo near the receiver.
    #[test]
    fn test_the_sky_decodes_into_aircraft_and_weather() {
        let cfg = UatSkyConfig {
            receiver: Position::new(52.31, 4.76),
            aircraft: 6,
            seed: 3,
            start_unix_ms: 1_796_665_980_000,
        };
        let mut sky = UatSky::new(cfg);
        let demod = Demodulator::new();
        let mut st: Box<DemodState<{ crate::uat::HISTORY }>> = Box::new(DemodState::new());
        let mut store = FisbStore::new();
        let mut addresses = std::collections::BTreeSet::new();
        let mut uplinks = 0;
        let mut buf = vec![0u8; 1 << 18];
        let total = (8.0 * SAMPLE_RATE) as usize;
        let mut done = 0;
        while done < total {
            let n = buf.len().min(2 * (total - done));
            sky.fill(&mut buf[..n]);
            demod.process(&mut st, &buf[..n], |m| match m.link {
                Link::Downlink => {
                    let r = m.downlink().unwrap();
                    addresses.insert(r.address);
                }
                Link::Uplink => {
                    uplinks += 1;
                    store.add_uplink(m.bytes(), 0);
                }
            });
            done += n / 2;
        }
        assert_eq!(addresses.len(), 6);
        assert!(uplinks >= 7, "{uplinks}");
        assert_eq!(store.bad_apdus, 0);
        let mut json = String::new();
        store.write_json(0, &mut json);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let kinds: Vec<&str> = v["text"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds.iter().filter(|k| **k == "METAR").count(), 3, "{json}");
        assert!(v["text"][0]["time"].as_str().unwrap().starts_with("0717"));
        let blocks = v["nexrad"][0]["blocks"].as_array().unwrap();
        assert!(blocks.len() >= 5, "{}", blocks.len());
        for b in blocks {
            let (n, w) = (b["n"].as_f64().unwrap(), b["w"].as_f64().unwrap());
            assert!((n - 52.31).abs() < 0.7 && (w - 4.76).abs() < 2.0, "{b}");
        }
    }
}
