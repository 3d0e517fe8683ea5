//! Makes the test signals that the firmware holds in flash, with the
//! project's own transmitter models (`airwaves-core` built for the host):
//!
//! - `modes_2400k.cu8`, `modes_2000k.cu8`: the same short 1090 MHz scene at
//!   2.4 and 2.0 MS/s (RTL-SDR `cu8`), 60 ms long: the nine kinds of
//!   [`KINDS`] (DF11, DF17 identification / even and odd position /
//!   velocity, DF4, DF5, DF20, DF21) from each of the five [`AIRCRAFT`]
//!   (5–22 dB), plus two deliberate overlaps, in white Gaussian noise
//!   (no extra low-pass: the modulator's integrate-and-dump sampling is
//!   the band limit); `modes_*.truth`: one line per transmitted reply (see
//!   [`write_truth`]); `aircraft.truth`: each aircraft's address,
//!   callsign, altitude and position.
//! - `fm_2400k.cu8`: 100 ms of broadcast FM at 2.4 MS/s (the Q15 receiver's
//!   input rate): stereo with pilot, a 1 kHz tone in L and R, 50 µs
//!   pre-emphasis, CNR 30 dB in 200 kHz, and a +6 dB adjacent station.
//! - `uat_2083k.cu8`: 30 ms of 978 MHz UAT at 2.083334 MS/s: sixteen
//!   downlink (ADS-B) messages, long and basic, from four aircraft
//!   (6–20 dB, carriers up to ±8 kHz), made by the core's CPFSK modulator
//!   in white Gaussian noise; `uat.truth`: one line per message, `sample
//!   hex snr_db` (see [`render_uat`]); `uat_noise.cu8`: 20 ms of the same
//!   noise without messages (the sync search's own cost).
//! - `params.rs`: the constants the firmware needs to process them.
//!
//! Everything is deterministic (fixed seeds), and written only to `OUT_DIR`:
//! nothing generated is committed. `scripts/firmware` finds `OUT_DIR`
//! through cargo's JSON messages and checks the firmware's output against
//! the host's decode of these same files.

use std::f64::consts::TAU;
use std::fmt::Write as _;
use std::path::Path;

use airwaves_core::C32;
use airwaves_core::dsp::deemph::TAU_50US;
use airwaves_core::fm::generator::{Adjacent, Generator, GeneratorConfig, Tone};
use airwaves_core::modes::adsb::{
    AdsbRepr, AirbornePosition, AirborneVelocity, AltitudeDifference, Callsign, Category,
    CprFormat, CprPosition, GroundVelocity, Identification, Velocity, VerticalRate,
    VerticalRateSource,
};
use airwaves_core::modes::commb::{AircraftIdentification, Mb};
use airwaves_core::modes::cpr::{CprFrame, CprKind, Position};
use airwaves_core::modes::frame::{
    AltitudeCode, Capability, FlightStatus, Frame, IdentityCode, InterrogatorCode, Repr,
};
use airwaves_core::modes::modulate::{Burst, Modulator, Quantiser};
use airwaves_core::rng::Rng;

/// Length of the Mode S scene, µs.
const MODES_US: f64 = 60_000.0;
/// Noise per component, ADC codes.
const NOISE_RMS: f64 = 3.0;

/// FM scene: station offset, tone, length.
const FM_OFFSET_HZ: f64 = -250e3;
const FM_TONE_HZ: f64 = 1000.0;
const FM_SAMPLES: usize = 240_000;
const FM_CNR_DB: f64 = 30.0;

/// One aircraft of the scene.
struct Aircraft {
    icao: u32,
    callsign: &'static [u8],
    squawk: u16,
    alt_ft: i32,
    lat: f64,
    lon: f64,
    /// Reply SNR, dB (peak pulse power over noise power per sample).
    snr_db: f64,
    carrier_hz: f64,
}

const AIRCRAFT: [Aircraft; 5] = [
    Aircraft {
        icao: 0x4840D6,
        callsign: b"KLM1023",
        squawk: 0x1000,
        alt_ft: 38_000,
        lat: 52.2572,
        lon: 3.9194,
        snr_db: 22.0,
        carrier_hz: 40e3,
    },
    Aircraft {
        icao: 0x40621D,
        callsign: b"EZY85MH",
        squawk: 0x7421,
        alt_ft: 12_025,
        lat: 51.9,
        lon: 4.4,
        snr_db: 17.0,
        carrier_hz: -85e3,
    },
    Aircraft {
        icao: 0x485020,
        callsign: b"TRA6512",
        squawk: 0x2331,
        alt_ft: 5_500,
        lat: 52.5,
        lon: 5.1,
        snr_db: 13.0,
        carrier_hz: 120e3,
    },
    Aircraft {
        icao: 0x3C6DD1,
        callsign: b"DLH4AB",
        squawk: 0x6612,
        alt_ft: 24_975,
        lat: 52.9,
        lon: 6.2,
        snr_db: 9.0,
        carrier_hz: -20e3,
    },
    Aircraft {
        icao: 0xA1B2C3,
        callsign: b"UAL960",
        squawk: 0x0470,
        alt_ft: 41_000,
        lat: 53.4,
        lon: 2.7,
        snr_db: 5.0,
        carrier_hz: 65e3,
    },
];

/// What each aircraft sends, in order (AP formats last: the receiver
/// accepts them only once a DF11/17 has made the address known).
#[derive(Clone, Copy)]
enum Kind {
    AllCall,
    Ident,
    PosEven,
    PosOdd,
    Velocity,
    Df4,
    Df5,
    Df20,
    Df21,
}

const KINDS: [Kind; 9] = [
    Kind::AllCall,
    Kind::Ident,
    Kind::PosEven,
    Kind::PosOdd,
    Kind::Velocity,
    Kind::Df4,
    Kind::Df5,
    Kind::Df20,
    Kind::Df21,
];

/// Replies in the scene: every kind from every aircraft.
const FRAMES: usize = AIRCRAFT.len() * KINDS.len();

/// One reply placed in the scene.
struct Reply {
    bytes: [u8; 14],
    len: usize,
    /// Leading edge of the first preamble pulse, µs from the start.
    start_us: f64,
    snr_db: f64,
    carrier_hz: f64,
    phase: f64,
}

impl Reply {
    fn duration_us(&self) -> f64 {
        8.0 + 8.0 * self.len as f64
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=memory.x");
    // The runtime's linker script (which includes memory.x).
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out);
    // memory.x must be on the linker's search path.
    std::fs::copy("memory.x", out.join("memory.x")).expect("copy memory.x");
    println!("cargo:rustc-link-search={}", out.display());

    let replies = schedule();
    for (rate, name) in [(2.4e6, "modes_2400k"), (2.0e6, "modes_2000k")] {
        let iq = render_modes(&replies, rate);
        write(out, &format!("{name}.cu8"), &iq);
        write(
            out,
            &format!("{name}.truth"),
            write_truth(&replies, rate).as_bytes(),
        );
    }
    write(out, "fm_2400k.cu8", &render_fm());
    let (uat, uat_truth) = render_uat();
    write(out, "uat_2083k.cu8", &uat);
    write(out, "uat.truth", uat_truth.as_bytes());
    write(out, "uat_noise.cu8", &render_uat_noise());
    let mut aircraft = String::from("# icao callsign altitude_ft lat lon\n");
    for a in &AIRCRAFT {
        let cs = std::str::from_utf8(a.callsign).expect("ASCII callsign");
        let _ = writeln!(
            aircraft,
            "{:06X} {cs} {} {} {}",
            a.icao, a.alt_ft, a.lat, a.lon
        );
    }
    write(out, "aircraft.truth", aircraft.as_bytes());

    let mut params = String::new();
    let _ = writeln!(params, "/// Station offset of the FM recording, Hz.");
    let _ = writeln!(params, "pub const FM_OFFSET_HZ: f64 = {FM_OFFSET_HZ:?};");
    let _ = writeln!(params, "/// The FM recording's test tone (L and R), Hz.");
    let _ = writeln!(params, "pub const FM_TONE_HZ: f64 = {FM_TONE_HZ:?};");
    let _ = writeln!(
        params,
        "/// The FM recording's de-emphasis time constant, s."
    );
    let _ = writeln!(params, "pub const FM_TAU: f64 = {TAU_50US:?};");
    write(out, "params.rs", params.as_bytes());
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap_or_else(|e| panic!("write {name}: {e}"));
}

/// The replies, in start order: each aircraft's nine replies spread over the
/// scene with random gaps, then two deliberate overlaps.
fn schedule() -> Vec<Reply> {
    let mut rng = Rng::new(0x4149_5257_4156_4553);
    let mut replies = Vec::with_capacity(FRAMES);
    // Interleave the aircraft: slot k carries kind k / 5 of aircraft k % 5,
    // so every AP reply comes after its aircraft's DF11 and DF17s.
    let slots = FRAMES as f64;
    let slot_us = (MODES_US - 400.0) / slots;
    for k in 0..FRAMES {
        let a = &AIRCRAFT[k % AIRCRAFT.len()];
        let kind = KINDS[k / AIRCRAFT.len()];
        let (bytes, len) = frame(a, kind);
        // Somewhere in the first 70 % of the slot (replies are ≤ 120 µs,
        // slots ~1.3 ms): no overlaps by chance.
        let start_us = 100.0 + k as f64 * slot_us + 0.7 * slot_us * rng.uniform();
        replies.push(Reply {
            bytes,
            len,
            start_us,
            snr_db: a.snr_db,
            carrier_hz: a.carrier_hz,
            phase: TAU * rng.uniform(),
        });
    }
    // Overlaps: a strong DF17 that starts 30 µs into a reply 12 dB weaker
    // (garbling its tail; the strong one must still decode), and a weak
    // DF11 that starts inside a strong reply's data (it may be lost).
    let garbled = replies.len() - 12; // a late weak-ish reply
    let t = replies[garbled].start_us + 30.0;
    let (bytes, len) = frame(&AIRCRAFT[0], Kind::Velocity);
    replies.push(Reply {
        bytes,
        len,
        start_us: t,
        snr_db: replies[garbled].snr_db + 12.0,
        carrier_hz: -60e3,
        phase: 1.0,
    });
    let host = replies.len() - 20;
    let t = replies[host].start_us + 50.0;
    let (bytes, len) = frame(&AIRCRAFT[2], Kind::AllCall);
    replies.push(Reply {
        bytes,
        len,
        start_us: t,
        snr_db: replies[host].snr_db - 10.0,
        carrier_hz: 90e3,
        phase: 2.0,
    });
    replies.sort_by(|a, b| a.start_us.total_cmp(&b.start_us));
    replies
}

/// The frame of `kind` from aircraft `a`, with correct parity.
fn frame(a: &Aircraft, kind: Kind) -> ([u8; 14], usize) {
    let alt = AltitudeCode::from_feet(a.alt_ft).expect("altitudes are on the 25 ft grid");
    let identity = IdentityCode::from_squawk(a.squawk);
    let callsign = Callsign::from_ascii(a.callsign).expect("valid callsign");
    let repr = match kind {
        Kind::AllCall => Repr::AllCall {
            ca: Capability::Airborne,
            aa: a.icao,
            iid: InterrogatorCode::Ii(0),
        },
        Kind::Ident => es(
            a.icao,
            AdsbRepr::Identification(Identification {
                category: Category::new(4, 3).expect("TC 4 CA 3"),
                callsign,
            }),
        ),
        Kind::PosEven | Kind::PosOdd => {
            let odd = matches!(kind, Kind::PosOdd);
            let cpr = CprFrame::encode(CprKind::Airborne, odd, Position::new(a.lat, a.lon))
                .expect("valid position");
            let mut p = AirbornePosition::new(
                11,
                CprPosition {
                    format: CprFormat::from(odd),
                    lat: cpr.lat(),
                    lon: cpr.lon(),
                },
            )
            .expect("TC 11");
            // The 12-bit altitude field: the 13-bit code without its M bit.
            let ac = alt.raw();
            p.altitude_code = ((ac & 0x1F80) >> 1) | (ac & 0x3F);
            es(a.icao, AdsbRepr::AirbornePosition(p))
        }
        Kind::Velocity => es(
            a.icao,
            AdsbRepr::AirborneVelocity(AirborneVelocity {
                intent_change: false,
                ifr_capability: true,
                nac_v: 1,
                velocity: Velocity::Ground(GroundVelocity {
                    supersonic: false,
                    west: a.icao & 1 == 1,
                    ew: 150 + (a.icao % 200) as u16,
                    south: a.icao & 2 == 2,
                    ns: 80 + (a.icao % 300) as u16,
                }),
                vertical_rate: VerticalRate {
                    source: VerticalRateSource::Baro,
                    down: a.alt_ft > 20_000,
                    code: 1 + (a.icao % 30) as u16,
                },
                gnss_baro_diff: AltitudeDifference {
                    below: false,
                    code: 5,
                },
            }),
        ),
        Kind::Df4 => Repr::SurveillanceAltitude {
            address: a.icao,
            fs: FlightStatus::Airborne,
            dr: 0,
            um: 0,
            altitude: alt,
        },
        Kind::Df5 => Repr::SurveillanceIdentity {
            address: a.icao,
            fs: FlightStatus::Airborne,
            dr: 0,
            um: 0,
            identity,
        },
        Kind::Df20 => Repr::CommBAltitude {
            address: a.icao,
            fs: FlightStatus::Airborne,
            dr: 0,
            um: 0,
            altitude: alt,
            mb: bds20(callsign),
        },
        Kind::Df21 => Repr::CommBIdentity {
            address: a.icao,
            fs: FlightStatus::Airborne,
            dr: 0,
            um: 0,
            identity,
            mb: bds20(callsign),
        },
    };
    let mut b = [0u8; 14];
    let len = repr.buffer_len();
    repr.emit(&mut Frame::new_unchecked(&mut b[..len]))
        .expect("buffer is exactly buffer_len bytes");
    (b, len)
}

/// A DF17 from `icao` carrying `me`.
fn es(icao: u32, me: AdsbRepr) -> Repr {
    Repr::ExtendedSquitter {
        ca: Capability::Airborne,
        aa: icao,
        me: me.to_bytes(),
    }
}

/// The MB field of a BDS 2,0 (aircraft identification) Comm-B reply.
fn bds20(callsign: Callsign) -> [u8; 7] {
    let mut mb = Mb::new_unchecked([0u8; 7]);
    AircraftIdentification::from(&callsign).emit(&mut mb);
    mb.into_inner()
}

/// Render the scene at `rate` into `cu8` bytes: replies (the modulator's
/// exactly integrated pulses on their carriers) plus white Gaussian noise,
/// quantised with the RTL-SDR's zero level 127.4 and a small DC offset.
fn render_modes(replies: &[Reply], rate: f64) -> Vec<u8> {
    let m = Modulator::new(rate).expect("valid rate");
    let n = (MODES_US * 1e-6 * rate).round() as usize;
    let sigma = NOISE_RMS / 128.0;
    let noise_power = 2.0 * sigma * sigma;
    let mut y = vec![C32::new(0.0, 0.0); n];
    for r in replies {
        let amp = (noise_power * 10f64.powf(r.snr_db / 10.0)).sqrt() as f32;
        let start = r.start_us * 1e-6 * rate;
        let burst = Burst::new(start, amp).with_carrier(r.carrier_hz as f32, r.phase as f32);
        m.add_mode_s(&r.bytes[..r.len], &burst, &mut y)
            .expect("frames are 7 or 14 bytes");
    }
    let mut rng = Rng::new(0x6E6F_6973_6531_3039 ^ rate as u64);
    for v in &mut y {
        let (i, q) = (rng.normal(), rng.normal());
        *v += C32::new((sigma * i) as f32, (sigma * q) as f32);
    }
    let mut bytes = vec![0u8; 2 * n];
    Quantiser::new(127.4, C32::new(0.6 / 128.0, -0.4 / 128.0)).block(&y, &mut bytes);
    bytes
}

/// The UAT scene: four aircraft (basic-only ones send type 0, the others
/// long types 1 and 2), sixteen messages 1.6 ms apart with a random
/// 0–0.8 ms lead, each at its aircraft's SNR (signal power over the noise
/// power per complex sample) and carrier; then Gaussian noise of 3 ADC
/// codes rms per component and the RTL-SDR's quantisation. Returns the
/// `cu8` bytes and the truth list: `#` header, then per message `sample
/// hex snr_db` (`sample` the first sync bit's leading edge, samples from
/// the first; `hex` the data bytes as dump978-fa's raw lines print them).
fn render_uat() -> (Vec<u8>, String) {
    use airwaves_core::uat::SAMPLE_RATE;
    use airwaves_core::uat::adsb::{
        AddressQualifier, AirGround, Altitude, Downlink, DownlinkRepr, ModeStatus, Motion,
        StateVector,
    };
    use airwaves_core::uat::modulate::{Burst as UatBurst, Modulator as UatModulator};
    // (address, base-40 call sign, basic only, SNR dB, carrier Hz)
    const UAT: [(u32, &str, bool, f64, f64); 4] = [
        (0xA0_0978, "N978AW", false, 20.0, 3e3),
        (0xA4_1B2C, "N41BC", true, 14.0, -5e3),
        (0xAB_CDEF, "N9UAT", false, 9.0, 8e3),
        (0xA7_7777, "N77GA", false, 6.0, -2e3),
    ];
    let n = (0.030 * SAMPLE_RATE).round() as usize;
    let m = UatModulator::new(SAMPLE_RATE);
    let sigma = NOISE_RMS / 128.0;
    let noise_power = 2.0 * sigma * sigma;
    let mut rng = Rng::new(0x5541_545f_3937_3821);
    let mut y = vec![C32::new(0.0, 0.0); n];
    let mut truth = String::from("# sample hex snr_db\n");
    for k in 0..16usize {
        let (address, call, basic, snr_db, carrier_hz) = UAT[k % 4];
        let chars = ModeStatus::chars_of(call).expect("call signs are base-40 text");
        let lat = 39.7 + 0.1 * (k % 4) as f64 + 0.001 * k as f64;
        let repr = DownlinkRepr {
            payload_type: if basic { 0 } else { 1 + (k / 4 % 2) as u8 },
            qualifier: AddressQualifier::AdsbIcao,
            address,
            state: Some(StateVector {
                position: Some(Position::new(lat, -104.9 + 0.05 * k as f64)),
                altitude: Some(Altitude::Pressure(4_500 + 1_000 * (k % 4) as i32)),
                nic: 8,
                air_ground: AirGround::Subsonic,
                motion: Motion::Airborne {
                    north_kt: Some(90 + k as i32),
                    east_kt: Some(-40),
                    vertical_fpm: Some((320, true)),
                },
                utc_coupled: true,
                uplink_feedback: Some(0),
                tisb_site_id: None,
            }),
            status: Some(ModeStatus {
                emitter_category: 1,
                chars,
                is_callsign: true,
                emergency: 0,
                mops_version: 2,
                sil: 3,
                transmit_mso: k as u8,
                sda: 2,
                nac_p: 9,
                nac_v: 1,
                nic_baro: true,
                flags: 0,
                gva: 2,
                single_antenna: false,
                nic_supplement: false,
            }),
            aux: None,
            target: None,
        };
        let mut data = vec![0u8; repr.buffer_len()];
        repr.emit(&mut Downlink::new_unchecked(&mut data[..]));
        let start = (0.0016 * k as f64 + 0.0008 * rng.uniform() + 0.0003) * SAMPLE_RATE;
        let amplitude = (noise_power * 10f64.powf(snr_db / 10.0)).sqrt() as f32;
        let burst = UatBurst {
            offset_hz: carrier_hz,
            phase: TAU * rng.uniform(),
            ..UatBurst::new(start, amplitude)
        };
        m.add_message(&burst, &data, &mut y)
            .expect("downlink messages are 18 or 34 bytes");
        let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
        let _ = writeln!(truth, "{start:.3} {hex} {snr_db}");
    }
    for v in &mut y {
        let (i, q) = (rng.normal(), rng.normal());
        *v += C32::new((sigma * i) as f32, (sigma * q) as f32);
    }
    let mut bytes = vec![0u8; 2 * n];
    Quantiser::RTL_SDR.block(&y, &mut bytes);
    (bytes, truth)
}

/// 20 ms of UAT-rate noise only, as in [`render_uat`].
fn render_uat_noise() -> Vec<u8> {
    let n = (0.020 * airwaves_core::uat::SAMPLE_RATE).round() as usize;
    let sigma = NOISE_RMS / 128.0;
    let mut rng = Rng::new(0x6E6F_6973_655F_3937);
    let y: Vec<C32> = (0..n)
        .map(|_| {
            let (i, q) = (rng.normal(), rng.normal());
            C32::new((sigma * i) as f32, (sigma * q) as f32)
        })
        .collect();
    let mut bytes = vec![0u8; 2 * n];
    Quantiser::RTL_SDR.block(&y, &mut bytes);
    bytes
}

/// The truth list for the scene at `rate`: a `#` header, then per reply
/// `t12 hex snr_db required flags`, where `t12` is the leading edge of the
/// first preamble pulse in 12 MHz ticks from the first sample (the
/// demodulator's timestamp convention: sample `n` spans ticks
/// `[n·tps, (n+1)·tps)` and the modulator centres sample `n` at `t = n`,
/// hence the half sample), `required` is `yes` for replies a receiver must
/// decode and `flags` is `-` or `ovl`.
///
/// Required: SNR ≥ 16 dB; if overlapped, at least 6 dB above every reply
/// it overlaps; and at 2.0 MS/s, where a sample *is* a half-bit, a
/// preamble starting within 0.3 sample of a sample boundary. The bounds
/// are where the chain's recall is whole, measured on isolated DF11
/// replies (airwaves-core's demodulator test kit, 40 per tenth of a
/// sample, `test_2mhz_sampling_phase`): at 16 dB 100 % at 2.4 MS/s and at
/// 2.0 MS/s within 0.3 sample of the boundary (37 and 35 of 40 at 0.4 and
/// 0.5 since the amplitude sequence search; 70 % and 18 % before it); at
/// 13 dB only 90–99 % at either rate, so a 13 dB reply is sometimes lost to
/// its noise draw and is counted among the optional ones.
fn write_truth(replies: &[Reply], rate: f64) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# airwaves firmware Mode S scene at {rate} S/s: {} replies",
        replies.len()
    );
    let _ = writeln!(s, "# t12 hex snr_db required flags");
    for (i, r) in replies.iter().enumerate() {
        let end = r.start_us + r.duration_us();
        let mut overlapped = false;
        let mut dominates = true;
        for (j, o) in replies.iter().enumerate() {
            if i != j && o.start_us < end && r.start_us < o.start_us + o.duration_us() {
                overlapped = true;
                dominates &= r.snr_db >= o.snr_db + 6.0;
            }
        }
        let start = r.start_us * 1e-6 * rate;
        // Distance of the leading edge from a sample boundary (n + ½ in the
        // modulator's time axis), samples.
        let off_boundary = (start.fract() - 0.5).abs();
        let timing_ok = rate > 2.2e6 || off_boundary <= 0.3;
        let required = r.snr_db >= 16.0 && (!overlapped || dominates) && timing_ok;
        let t12 = ((start + 0.5) * 12e6 / rate).round() as u64;
        let hex: String = r.bytes[..r.len]
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect();
        let _ = writeln!(
            s,
            "{t12} {hex} {:.1} {} {}",
            r.snr_db,
            if required { "yes" } else { "no" },
            if overlapped { "ovl" } else { "-" }
        );
    }
    s
}

/// 100 ms of stereo FM with a 1 kHz tone in L and R.
fn render_fm() -> Vec<u8> {
    let mut cfg = GeneratorConfig::new(FM_OFFSET_HZ);
    cfg.tau = Some(TAU_50US);
    cfg.cnr_db = Some(FM_CNR_DB);
    cfg.seed = 11;
    cfg.adjacent = Some(Adjacent {
        offset_hz: 400e3,
        level_db: 6.0,
        tone_hz: 2500.0,
    });
    let g = Generator::new(cfg).expect("valid FM scene");
    let mut state = g.state();
    let tone = Tone::new(FM_TONE_HZ, 1.0);
    let mut iq = vec![[0u8; 2]; FM_SAMPLES];
    g.fill(&mut state, |t| tone.at(t), |t| tone.at(t), |_| 0.0, &mut iq);
    iq.concat()
}
