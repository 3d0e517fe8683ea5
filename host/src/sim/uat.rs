//! Synthetic 978 MHz UAT scenes with truth: aircraft sending one ADS-B
//! message a second and ground stations sending uplink frames, rendered
//! through the core modulator ([`airwaves_core::uat::modulate`]), the
//! receiver's filter, noise and 8-bit quantisation.
//!
//! # What is modelled, and on what basis
//!
//! - **Timing** (DO-282B §2.1.4, in `docs/facts.md`): the UAT second
//!   starts with the ground segment, 32 uplink slots of 5.5 ms from 6 ms;
//!   aircraft transmit once a second at a random time in the ADS-B
//!   segment (188 ms – 1 s). Aircraft messages therefore overlap now and
//!   then (a long message lasts 403 µs), uplinks never with downlinks.
//! - **Messages**: each aircraft flies a straight line and sends the
//!   payload types a real transmitter cycles through: long messages
//!   alternate type 1 (state vector, mode status, auxiliary state vector)
//!   with type 2, or, for a basic-only transmitter, type 0 with a type 1
//!   every fourth second. Uplinks carry a ground-station header and
//!   random application data.
//! - **Signal**: continuous-phase FSK with raised-cosine frequency
//!   transitions of half a bit ([`Burst::transition`]); a carrier offset
//!   per transmitter (standard deviation [`UatSceneConfig::carrier_sd`])
//!   on top of the dongle's own offset ([`UatSceneConfig::dongle_offset`]);
//!   a random carrier phase.
//! - **Receiver**: a 31-tap Kaiser low-pass at the measured RTL-SDR
//!   response (0.96 MHz, as the Mode S scenes), complex Gaussian noise of
//!   [`UatSceneConfig::noise_rms`] ADC codes per component after it, and
//!   quantisation to `cu8` with zero level 127.4.
//! - **SNR**: signal power `A²` over the complex noise power per output
//!   sample, both after the filter: the noise in the receiver's whole
//!   band, as for the Mode S scenes.
//!
//! # Truth file
//!
//! A header of `#` lines, then one line per message in start order:
//! `sample link hex snr_db carrier_hz flags`, `sample` the first sync
//! sample (fractional), `link` `-` or `+`, `hex` the data bytes (as raw
//! lines print them), `flags` `ovl` if another transmission overlaps it,
//! else `-`.

use std::io::{self, Write};

use airwaves_core::C32;
use airwaves_core::dsp::design::{kaiser_beta, lowpass_f32};
use airwaves_core::modes::cpr::Position;
use airwaves_core::modes::modulate::Quantiser;
use airwaves_core::rng::Rng;
use airwaves_core::uat::adsb::{
    AddressQualifier, AirGround, Altitude, AuxStateVector, Downlink, DownlinkRepr, ModeStatus,
    Motion, StateVector,
};
use airwaves_core::uat::modulate::{Burst, Modulator};
use airwaves_core::uat::uplink;
use airwaves_core::uat::{SAMPLE_RATE, SYNC_BITS, UPLINK_DATA};

use super::scene::{RECEIVER_CUTOFF_HZ, complex_normal};

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct UatSceneConfig {
    /// Length, seconds.
    pub seconds: f64,
    /// Random seed.
    pub seed: u64,
    /// Aircraft, each one message a second.
    pub aircraft: usize,
    /// Uplink frames a second (ground stations in view × their slots).
    pub uplinks: usize,
    /// Lowest and highest SNR, dB, drawn uniformly per message.
    pub snr_db: (f64, f64),
    /// Standard deviation of the transmitters' carrier offsets, Hz.
    pub carrier_sd: f64,
    /// The dongle's own frequency error, Hz (shifts every transmitter).
    pub dongle_offset: f64,
    /// Noise rms per component after the filter, ADC codes.
    pub noise_rms: f64,
}

impl Default for UatSceneConfig {
    /// 10 s, 60 aircraft, 4 uplinks a second, SNR 0–25 dB, transmitters
    /// 2 kHz apart (rms), the dongle 5 kHz off, noise 3 codes.
    fn default() -> Self {
        Self {
            seconds: 10.0,
            seed: 1,
            aircraft: 60,
            uplinks: 4,
            snr_db: (0.0, 25.0),
            carrier_sd: 2e3,
            dongle_offset: 5e3,
            noise_rms: 3.0,
        }
    }
}

/// Counts of what was generated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UatSceneStats {
    /// Samples written.
    pub samples: u64,
    /// Downlink messages.
    pub downlink: u64,
    /// Uplink messages.
    pub uplink: u64,
    /// Messages overlapped by another.
    pub overlapped: u64,
}

/// Filter length.
const TAPS: usize = 31;
/// Samples a chunk.
const CHUNK: usize = 1 << 16;

/// One transmission.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    /// First sample (absolute, fractional).
    pub start: f64,
    /// Past its last sample.
    pub end: f64,
    /// Data bytes (18, 34 or 432).
    pub data: Vec<u8>,
    /// Amplitude, full scale 1.
    pub amplitude: f32,
    pub snr_db: f64,
    pub carrier_hz: f64,
    pub phase: f64,
    pub overlapped: bool,
}

/// The receiver of a UAT scene as a stream: transmissions in, `cu8` out
/// (see the module docs: the 31-tap receiver filter, noise after it,
/// quantisation). Transmissions are pushed in start order, ahead of the
/// samples that hold them.
pub(crate) struct UatRenderer {
    pub modulator: Modulator,
    /// The receiver filter (one tap of 1: none).
    taps: Vec<f32>,
    sigma_in: f32,
    /// Noise drawn from this table instead of the generator (the demo's
    /// light receiver).
    noise_table: Option<Vec<C32>>,
    sigma_out: f64,
    noise: Rng,
    events: std::collections::VecDeque<Event>,
    /// xin[i] is the filter input at absolute sample c0 − d + i.
    xin: Vec<C32>,
    y: Vec<C32>,
    /// Samples written so far.
    c0: u64,
}

impl UatRenderer {
    /// Noise `noise_rms` ADC codes per component after the filter.
    pub fn new(noise_rms: f64, seed: u64) -> Self {
        let mut taps = vec![0f32; TAPS];
        let cutoff = (RECEIVER_CUTOFF_HZ / (0.5 * SAMPLE_RATE)).min(1.0);
        lowpass_f32(&mut taps, 0.5 * cutoff, kaiser_beta(60.0), 1.0);
        Self::with_taps(taps, noise_rms, seed)
    }

    /// A cheaper receiver for the live demo (about a quarter of the
    /// work): no receiver filter (the raised-cosine transitions already
    /// keep the signal in band), and noise from a table of 2¹⁶ samples
    /// read from a random place each chunk.
    pub fn light(noise_rms: f64, seed: u64) -> Self {
        let mut r = Self::with_taps(vec![1.0], noise_rms, seed);
        let table = (0..1 << 16)
            .map(|_| complex_normal(&mut r.noise, r.sigma_in))
            .collect();
        r.noise_table = Some(table);
        r
    }

    fn with_taps(taps: Vec<f32>, noise_rms: f64, seed: u64) -> Self {
        let gain2: f64 = taps.iter().map(|&h| f64::from(h).powi(2)).sum();
        let sigma_out = noise_rms / 128.0;
        let sigma_in = (sigma_out / gain2.sqrt()) as f32;
        let d = taps.len() / 2;
        let mut noise = Rng::new(seed);
        let mut xin = vec![C32::new(0.0, 0.0); CHUNK + 2 * d];
        for x in &mut xin[..2 * d] {
            *x = complex_normal(&mut noise, sigma_in);
        }
        Self {
            modulator: Modulator::new(SAMPLE_RATE),
            taps,
            sigma_in,
            noise_table: None,
            sigma_out,
            noise,
            events: std::collections::VecDeque::new(),
            xin,
            y: vec![C32::new(0.0, 0.0); CHUNK],
            c0: 0,
        }
    }

    /// Complex noise power per output sample (full scale 1).
    pub fn noise_power(&self) -> f64 {
        2.0 * self.sigma_out * self.sigma_out
    }

    /// A transmission of `data` from `start` (samples) at `snr_db` (signal
    /// power over [`noise_power`](Self::noise_power)), on `carrier_hz`
    /// with `phase`, its end from the bits sent.
    pub fn event(
        &self,
        start: f64,
        data: Vec<u8>,
        snr_db: f64,
        carrier_hz: f64,
        phase: f64,
    ) -> Event {
        let bits = SYNC_BITS + 8 * bytes_sent(data.len());
        Event {
            start,
            end: start + self.modulator.samples_for(bits) + 1.0,
            amplitude: (self.noise_power() * 10f64.powf(snr_db / 10.0)).sqrt() as f32,
            data,
            snr_db,
            carrier_hz,
            phase,
            overlapped: false,
        }
    }

    /// Samples written so far.
    pub fn samples(&self) -> u64 {
        self.c0
    }

    /// Add a transmission (starting at or after the last one pushed).
    pub fn push(&mut self, e: Event) {
        self.events.push_back(e);
    }

    /// Write the next `out.len() / 2` samples.
    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(2 * CHUNK) {
            let len = chunk.len() / 2;
            self.fill_chunk(len);
            Quantiser::RTL_SDR.block(&self.y[..len], &mut chunk[..2 * len]);
        }
    }

    fn fill_chunk(&mut self, len: usize) {
        let d = self.taps.len() / 2;
        // Input region [r0, r1) in absolute samples of the output.
        let r0 = self.c0 as f64 + d as f64;
        let r1 = r0 + len as f64;
        let region = &mut self.xin[2 * d..2 * d + len];
        region.fill(C32::new(0.0, 0.0));
        while self.events.front().is_some_and(|e| e.end < r0 - d as f64) {
            self.events.pop_front();
        }
        for e in self.events.iter().take_while(|e| e.start - 2.0 < r1) {
            let burst = Burst {
                offset_hz: e.carrier_hz,
                phase: e.phase,
                ..Burst::new(e.start - r0, e.amplitude)
            };
            let _ = self.modulator.add_message(&burst, &e.data, region);
        }
        match &mut self.noise_table {
            Some(table) => {
                let at = self.noise.below(table.len() as u64) as usize;
                let (tail, head) = (&table[at..], &table[..at]);
                for (x, n) in region.iter_mut().zip(tail.iter().chain(head).cycle()) {
                    *x += *n;
                }
            }
            None => {
                for x in region.iter_mut() {
                    *x += complex_normal(&mut self.noise, self.sigma_in);
                }
            }
        }
        for (j, yj) in self.y[..len].iter_mut().enumerate() {
            let mut acc = C32::new(0.0, 0.0);
            for (h, x) in self.taps.iter().zip(&self.xin[j..]) {
                acc += x * *h;
            }
            *yj = acc;
        }
        self.xin.copy_within(len..len + 2 * d, 0);
        self.c0 += len as u64;
    }
}

/// An aircraft of a scene (and of the demo's UAT sky).
pub(crate) struct Aircraft {
    address: u32,
    start: Position,
    north_kt: i32,
    east_kt: i32,
    altitude_ft: i32,
    vertical_fpm: i32,
    callsign: [u8; 8],
    basic_only: bool,
    carrier_hz: f64,
}

impl Aircraft {
    fn random(rng: &mut Rng, i: usize, cfg: &UatSceneConfig) -> Self {
        let denver = Position {
            lat: 39.0,
            lon: -104.7,
        };
        let carrier = (cfg.dongle_offset, cfg.carrier_sd);
        Self::around(rng, i, denver, (1.5, 2.0), carrier)
    }

    /// Aircraft `i`, starting within `± span` degrees (lat, lon) of
    /// `centre`, carrier offset `carrier.0 + carrier.1 · N(0, 1)` Hz.
    pub(crate) fn around(
        rng: &mut Rng,
        i: usize,
        centre: Position,
        span: (f64, f64),
        carrier: (f64, f64),
    ) -> Self {
        let mut callsign = [36u8; 8];
        callsign[0] = 23; // N
        for c in callsign.iter_mut().take(6).skip(1) {
            *c = rng.below(10) as u8;
        }
        Self {
            address: 0xA0_0000 + (i as u32) * 97 + rng.below(90) as u32,
            start: Position {
                lat: centre.lat + rng.range(-span.0, span.0),
                lon: centre.lon + rng.range(-span.1, span.1),
            },
            north_kt: rng.range(-200.0, 200.0) as i32,
            east_kt: rng.range(-200.0, 200.0) as i32,
            altitude_ft: 25 * (rng.range(1000.0, 17_000.0) / 25.0) as i32,
            vertical_fpm: 64 * rng.range(-15.0, 15.0) as i32,
            callsign,
            basic_only: rng.uniform() < 0.3,
            carrier_hz: carrier.0 + carrier.1 * rng.normal(),
        }
    }

    /// Where the aircraft is in second `k`.
    pub(crate) fn position(&self, k: u64) -> Position {
        let t_h = k as f64 / 3600.0;
        let lat = self.start.lat + f64::from(self.north_kt) * t_h / 60.0;
        let lon =
            self.start.lon + f64::from(self.east_kt) * t_h / 60.0 / lat.to_radians().cos().max(0.1);
        Position { lat, lon }
    }

    /// Its carrier offset, Hz.
    pub(crate) fn carrier_hz(&self) -> f64 {
        self.carrier_hz
    }

    /// The message sent in second `k` (data bytes).
    pub(crate) fn message(&self, k: u64) -> Vec<u8> {
        let Position { lat, lon } = self.position(k);
        let payload_type = match (self.basic_only, k % 4) {
            (true, 0) => 1,
            (true, _) => 0,
            (false, k) => 1 + (k % 2) as u8,
        };
        let alt = self.altitude_ft + (f64::from(self.vertical_fpm) * k as f64 / 60.0) as i32;
        let repr = DownlinkRepr {
            payload_type,
            qualifier: AddressQualifier::AdsbIcao,
            address: self.address,
            state: Some(StateVector {
                position: Some(Position { lat, lon }),
                altitude: Some(Altitude::Pressure(25 * (alt / 25))),
                nic: 8,
                air_ground: AirGround::Subsonic,
                motion: Motion::Airborne {
                    north_kt: Some(self.north_kt),
                    east_kt: Some(self.east_kt),
                    vertical_fpm: Some((self.vertical_fpm, true)),
                },
                utc_coupled: true,
                uplink_feedback: Some(0),
                tisb_site_id: None,
            }),
            status: Some(ModeStatus {
                emitter_category: 1,
                chars: self.callsign,
                is_callsign: true,
                emergency: 0,
                mops_version: 2,
                sil: 3,
                transmit_mso: (k % 64) as u8,
                sda: 2,
                nac_p: 9,
                nac_v: 1,
                nic_baro: true,
                flags: 0x80,
                gva: 2,
                single_antenna: false,
                nic_supplement: false,
            }),
            aux: Some(AuxStateVector {
                altitude: Some(Altitude::Geometric(25 * ((alt + 150) / 25))),
            }),
            target: None,
        };
        let mut data = vec![0u8; repr.buffer_len()];
        repr.emit(&mut Downlink::new_unchecked(&mut data[..]));
        data
    }
}

/// Write a scene as `cu8` to `out` and its truth to `truth`.
///
/// # Errors
/// A failing write, or a configuration out of range
/// ([`io::ErrorKind::InvalidInput`]: non-finite or negative length,
/// more than 10,000 aircraft, more than 32 uplinks a second, non-finite
/// SNR, carrier or noise).
pub fn generate(
    cfg: &UatSceneConfig,
    out: &mut impl Write,
    truth: &mut impl Write,
) -> io::Result<UatSceneStats> {
    let bad =
        |what: &str| io::Error::new(io::ErrorKind::InvalidInput, format!("UAT scene: {what}"));
    if !(cfg.seconds.is_finite() && cfg.seconds >= 0.0) {
        return Err(bad("length must be a non-negative number of seconds"));
    }
    if cfg.aircraft > 10_000 || cfg.uplinks > 32 {
        return Err(bad("at most 10,000 aircraft and 32 uplinks a second"));
    }
    if ![
        cfg.snr_db.0,
        cfg.snr_db.1,
        cfg.carrier_sd,
        cfg.dongle_offset,
        cfg.noise_rms,
    ]
    .iter()
    .all(|v| v.is_finite())
        || cfg.noise_rms <= 0.0
    {
        return Err(bad("SNR, carrier and noise must be finite, noise positive"));
    }
    let mut renderer = UatRenderer::new(cfg.noise_rms, cfg.seed ^ 0x7561_745f_6e6f_6973);

    // Every event of the scene, in start order.
    let mut rng = Rng::new(cfg.seed);
    let fleet: Vec<Aircraft> = (0..cfg.aircraft)
        .map(|i| Aircraft::random(&mut rng, i, cfg))
        .collect();
    let seconds = cfg.seconds.ceil() as u64;
    let mut events = Vec::new();
    let event = |rng: &mut Rng, start: f64, data: Vec<u8>, carrier_hz: f64| {
        let snr_db = rng.range(cfg.snr_db.0, cfg.snr_db.1.max(cfg.snr_db.0));
        let phase = rng.range(0.0, std::f64::consts::TAU);
        renderer.event(start, data, snr_db, carrier_hz, phase)
    };
    for k in 0..seconds {
        let second = k as f64 * SAMPLE_RATE;
        let mut slots: Vec<u64> = (0..32).collect();
        for i in 0..cfg.uplinks {
            let j = i + rng.below((32 - i) as u64) as usize;
            slots.swap(i, j);
            let slot = slots[i];
            let start = second + (0.006 + 0.0055 * slot as f64) * SAMPLE_RATE + rng.uniform();
            let data = uplink_data(&mut rng, slot as u8);
            let carrier = cfg.dongle_offset + cfg.carrier_sd * rng.normal();
            events.push(event(&mut rng, start, data, carrier));
        }
        for a in &fleet {
            let start = second + (0.188 + 0.81 * rng.uniform()) * SAMPLE_RATE;
            events.push(event(&mut rng, start, a.message(k), a.carrier_hz));
        }
    }
    let total = (cfg.seconds * SAMPLE_RATE).round() as u64;
    events.retain(|e| e.end + 1.0 < total as f64);
    events.sort_by(|a, b| a.start.total_cmp(&b.start));
    for i in 0..events.len() {
        let mut j = i + 1;
        while j < events.len() && events[j].start < events[i].end {
            events[i].overlapped = true;
            events[j].overlapped = true;
            j += 1;
        }
    }

    writeln!(truth, "# airwaves synthetic 978 MHz UAT scene, {cfg:?}")?;
    writeln!(truth, "# samples {total} at {SAMPLE_RATE} Hz")?;
    writeln!(
        truth,
        "# snr_db = A^2/N: signal power over complex noise power per output sample (the receiver's whole band), both after the low-pass"
    )?;
    writeln!(truth, "# sample link hex snr_db carrier_hz flags")?;
    let mut stats = UatSceneStats {
        samples: total,
        ..UatSceneStats::default()
    };
    for e in &events {
        let link = if e.data.len() == UPLINK_DATA {
            '+'
        } else {
            '-'
        };
        if link == '+' {
            stats.uplink += 1;
        } else {
            stats.downlink += 1;
        }
        stats.overlapped += u64::from(e.overlapped);
        let hex: String = e.data.iter().map(|b| format!("{b:02x}")).collect();
        writeln!(
            truth,
            "{:.3} {link} {hex} {:.2} {:.0} {}",
            e.start,
            e.snr_db,
            e.carrier_hz,
            if e.overlapped { "ovl" } else { "-" }
        )?;
    }

    for e in events {
        renderer.push(e);
    }
    let mut bytes = vec![0u8; 2 * CHUNK];
    let mut done = 0u64;
    while done < total {
        let len = CHUNK.min((total - done) as usize);
        renderer.fill(&mut bytes[..2 * len]);
        out.write_all(&bytes[..2 * len])?;
        done += len as u64;
    }
    out.flush()?;
    truth.flush()?;
    Ok(stats)
}

/// Bytes sent (with parity) for `data_len` data bytes.
pub(crate) fn bytes_sent(data_len: usize) -> usize {
    use airwaves_core::uat::{BASIC_BYTES, BASIC_DATA, LONG_BYTES, LONG_DATA, UPLINK_BYTES};
    match data_len {
        BASIC_DATA => BASIC_BYTES,
        LONG_DATA => LONG_BYTES,
        _ => UPLINK_BYTES,
    }
}

/// An uplink frame's 432 data bytes: the ground station's header
/// (position near the scene's aircraft, slot ID, application data valid)
/// and random application data.
fn uplink_data(rng: &mut Rng, slot: u8) -> Vec<u8> {
    let mut data: Vec<u8> = (0..UPLINK_DATA).map(|_| rng.below(256) as u8).collect();
    let hdr = uplink::header(
        Position {
            lat: 39.5,
            lon: -104.9,
        },
        slot,
        slot % 15 + 1,
    );
    data[..8].copy_from_slice(&hdr);
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_scene_decodes_and_truth_matches() {
        let cfg = UatSceneConfig {
            seconds: 2.0,
            aircraft: 20,
            uplinks: 3,
            snr_db: (20.0, 25.0),
            ..UatSceneConfig::default()
        };
        let mut cu8 = Vec::new();
        let mut truth = Vec::new();
        let st = generate(&cfg, &mut cu8, &mut truth).unwrap();
        assert_eq!(cu8.len() as u64, 2 * st.samples);
        assert_eq!(st.samples, (2.0 * SAMPLE_RATE).round() as u64);
        assert!(st.downlink >= 36 && st.uplink == 6, "{st:?}");
        let truth = String::from_utf8(truth).unwrap();
        let want: Vec<(f64, String)> = truth
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                (f[0].parse().unwrap(), format!("{}{}", f[1], f[2]))
            })
            .collect();
        assert_eq!(want.len() as u64, st.downlink + st.uplink);
        let mut raw = Vec::new();
        crate::uat::decode_raw(&mut &cu8[..], &mut raw).unwrap();
        let raw = String::from_utf8(raw).unwrap();
        let got: Vec<&str> = raw.lines().map(|l| &l[..l.find(';').unwrap()]).collect();
        // At 20–25 dB every message is decoded unless another overlaps it.
        let clean = truth.lines().filter(|l| l.ends_with(" -")).count();
        let found = want
            .iter()
            .filter(|(_, h)| got.contains(&h.as_str()))
            .count();
        assert!(found >= clean, "{found} found, {clean} clean");
        // And nothing that was not sent.
        for g in &got {
            assert!(want.iter().any(|(_, h)| h == g), "false message {g}");
        }
    }

    #[test]
    fn test_bad_settings_refused() {
        for cfg in [
            UatSceneConfig {
                seconds: f64::NAN,
                ..UatSceneConfig::default()
            },
            UatSceneConfig {
                uplinks: 33,
                ..UatSceneConfig::default()
            },
            UatSceneConfig {
                noise_rms: 0.0,
                ..UatSceneConfig::default()
            },
        ] {
            let e = generate(&cfg, &mut io::sink(), &mut io::sink()).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        }
    }
}
