//! Writes the committed seed corpus, `fuzz/corpus/<target>/seed-*`, from
//! the project's own encoders: the modulator renders the demodulator's
//! I/Q bursts, the Beast/AVR encoders the stream decoders' input. Nothing
//! comes from recorded data, except the literal frames of [`REAL`] (hex
//! copied from the project's test captures) and the literal HTTP requests
//! and rtl_tcp commands, written as real clients send them.
//!
//! ```text
//! cargo run --manifest-path fuzz/Cargo.toml --example seeds [OUT_DIR]   # default fuzz/corpus
//! cargo run --manifest-path fuzz/Cargo.toml --example seeds -- --check  # verify the committed files
//! ```
//!
//! Every demodulator seed is decoded once here and must give the frames it
//! was made from, so the corpus starts on the paths that matter.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use airwaves::rtltcp::protocol::{Command, DirectSampling, Header, TunerType};
use airwaves_core::C32;
use airwaves_core::modes::crc;
use airwaves_core::modes::demod::{AddressFilter, DemodFrame, DemodState, Demodulator};
use airwaves_core::modes::encode::{
    AVR_MAX_LEN, BEAST_MAX_LEN, Timestamp, encode_avr, encode_beast,
};
use airwaves_core::modes::modulate::{Burst, Modulator, Quantiser};

/// DF17 airborne position, odd (ICAO 40621D; "The 1090 MHz Riddle").
const DF17_ODD: [u8; 14] = hex14("8D40621D58C386435CC412692AD6");
/// DF17 airborne position, even, same aircraft.
const DF17_EVEN: [u8; 14] = hex14("8D40621D58C382D690C8AC2863A7");
/// DF17 identification (ICAO 4840D6, KLM1023).
const DF17_IDENT: [u8; 14] = hex14("8D4840D6202CC371C32CE0576098");
/// DF17 airborne velocity (ICAO 485020).
const DF17_VELOCITY: [u8; 14] = hex14("8D485020994409940838175B284F");
/// DF11 all-call reply, ICAO 484FDE, remainder 0.
const DF11: [u8; 7] = [0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xE3];
/// DF20 Comm-B reply with a BDS 2,0 identification (AP address in the
/// parity).
const DF20: [u8; 14] = hex14("A000083E202CC371C31DE0AA1CCF");
/// DF5 identity reply (AP address 510AF9).
const DF5: [u8; 7] = [0x2A, 0x00, 0x51, 0x6D, 0x49, 0x2B, 0x80];

/// Comm-B MB fields from the register decoders' documented examples.
const MB: [[u8; 7]; 8] = [
    [0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x1D, 0xE0],
    [0x10, 0x01, 0x00, 0x80, 0xF5, 0x00, 0x00],
    [0x30, 0x80, 0x00, 0x05, 0x21, 0x03, 0x58],
    [0x85, 0xE4, 0x2F, 0x31, 0x30, 0x00, 0x00],
    [0x18, 0x5B, 0xD5, 0xCF, 0x40, 0x00, 0x00],
    [0x00, 0x01, 0xFB, 0x80, 0x00, 0x00, 0x00],
    [0x81, 0x95, 0x15, 0x36, 0xE0, 0x24, 0xD4],
    [0x8F, 0x39, 0xF9, 0x1A, 0x7E, 0x27, 0xC4],
];

const fn hex14(s: &str) -> [u8; 14] {
    let b = s.as_bytes();
    let mut out = [0u8; 14];
    let mut i = 0;
    while i < 14 {
        out[i] = (nibble(b[2 * i]) << 4) | nibble(b[2 * i + 1]);
        i += 1;
    }
    out
}

const fn nibble(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'A'..=b'F' => c - b'A' + 10,
        _ => panic!("not an upper-case hex digit"),
    }
}

/// A DF4 surveillance altitude reply from `address` (AP parity).
fn df4(address: u32) -> [u8; 7] {
    let mut f = [0x20, 0x00, 0x06, 0x18, 0, 0, 0];
    let p = crc::crc24(&f[..4]) ^ address;
    f[4..].copy_from_slice(&p.to_be_bytes()[1..]);
    f
}

/// `frame` with bit `bit` (0 = MSB of byte 0) flipped.
fn flip(frame: &[u8], bits: &[usize]) -> Vec<u8> {
    let mut f = frame.to_vec();
    for &b in bits {
        f[b / 8] ^= 0x80 >> (b % 8);
    }
    f
}

/// One reply to render: the frame, its start in µs, amplitude, carrier.
struct Reply<'a> {
    frame: &'a [u8],
    start_us: f64,
    amplitude: f32,
    carrier_hz: f32,
}

/// Demodulator seed: header, then `len_us` of noise with the replies.
struct DemodSeed<'a> {
    name: &'a str,
    rate_index: u8,
    flags: u8,
    cuts: [u16; 3],
    preseed: u32,
    len_us: f64,
    replies: &'a [Reply<'a>],
    /// Frames the demodulator must find in it, and their repaired bits.
    expect: (usize, u8),
}

/// Flag bits 4–5 = 2: soft repair of up to 2 bits (the default).
const SOFT2: u8 = 2 << 4;

const RATES: [u32; 6] = [
    2_400_000, 2_000_000, 3_000_000, 4_000_000, 6_000_000, 12_000_000,
];

impl DemodSeed<'_> {
    fn bytes(&self) -> Vec<u8> {
        let rate = RATES[usize::from(self.rate_index)];
        let m = Modulator::new(f64::from(rate)).expect("valid rate");
        let n = (self.len_us * m.samples_per_us()) as usize;
        // Receiver noise, about 2.5 LSB, from a fixed xorshift sequence.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut noise = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.04
        };
        let mut iq: Vec<C32> = (0..n).map(|_| C32::new(noise(), noise())).collect();
        for r in self.replies {
            let burst = Burst::new(r.start_us * m.samples_per_us(), r.amplitude)
                .with_carrier(r.carrier_hz, 0.3);
            m.add_mode_s(r.frame, &burst, &mut iq)
                .expect("7 or 14 bytes");
        }
        let mut out = vec![self.rate_index, self.flags];
        for c in self.cuts {
            out.extend_from_slice(&c.to_le_bytes());
        }
        out.extend_from_slice(&self.preseed.to_be_bytes()[1..]);
        let start = out.len();
        out.resize(start + 2 * n, 0);
        Quantiser::RTL_SDR.block(&iq, &mut out[start..]);
        out
    }

    /// Decode the seed as the fuzz target does (one shot): the number of
    /// frames and of repaired bits.
    fn decoded(&self, bytes: &[u8]) -> (usize, u8) {
        // The configuration the fuzz target derives from the flags.
        let f = self.flags;
        let d = Demodulator::new(RATES[usize::from(self.rate_index)])
            .expect("supported rate")
            .with_mlse(f & 2 == 0)
            .with_two_bit_repair(f & 4 != 0)
            .with_soft_repair(8, (f >> 4) & 3)
            .with_ap_repair(if f & 64 != 0 { 0 } else { 8 })
            .with_known_es_repair(if f & 128 != 0 { 64 } else { 0 }, 6);
        let mut st = DemodState::new();
        let mut filter = AddressFilter::<16>::new(AddressFilter::<16>::DEFAULT_TTL);
        if self.flags & 1 != 0 {
            filter.insert(self.preseed, 0);
        }
        let (mut n, mut repaired) = (0, 0);
        let mut count = |f: &DemodFrame| {
            n += 1;
            repaired += f.repaired_bits;
        };
        d.process(&mut st, &mut filter, &bytes[11..], &mut count);
        d.finish(&mut st, &mut filter, &mut count);
        (n, repaired)
    }
}

fn remainder(f: &[u8]) -> u32 {
    crc::remainder(f)
}

/// A reply on the tuned frequency.
fn r(frame: &[u8], start_us: f64, amplitude: f32) -> Reply<'_> {
    Reply {
        frame,
        start_us,
        amplitude,
        carrier_hz: 0.0,
    }
}

fn demod_seeds() -> Vec<(String, Vec<u8>)> {
    let one_bit = flip(&DF17_EVEN, &[40]);
    let two_bits = flip(&DF17_ODD, &[33, 90]);
    let df4 = df4(0x40621D);
    let seeds = [
        DemodSeed {
            name: "df17-2400k",
            rate_index: 0,
            flags: SOFT2,
            cuts: [0; 3],
            preseed: 0,
            len_us: 300.0,
            replies: &[r(&DF17_ODD, 30.2, 0.5)],
            expect: (1, 0),
        },
        DemodSeed {
            name: "df11-df17-2000k-cut",
            rate_index: 1,
            flags: SOFT2,
            cuts: [300, 301, 700],
            preseed: 0,
            len_us: 320.0,
            replies: &[r(&DF17_IDENT, 20.1, 0.7), r(&DF11, 180.2, 0.4)],
            expect: (2, 0),
        },
        DemodSeed {
            name: "df17-then-ap-df4-2400k",
            rate_index: 0,
            flags: SOFT2,
            cuts: [1000, 0, 0],
            preseed: 0,
            len_us: 300.0,
            replies: &[r(&DF17_EVEN, 10.0, 0.5), r(&df4, 160.1, 0.3)],
            expect: (2, 0),
        },
        DemodSeed {
            name: "preseeded-ap-df20-df5-2400k",
            rate_index: 0,
            flags: 1 | 8 | SOFT2,
            cuts: [96, 0, 0],
            preseed: remainder(&DF20),
            len_us: 340.0,
            replies: &[r(&DF20, 15.0, 0.6), r(&DF5, 180.0, 0.6)],
            expect: (1, 0),
        },
        DemodSeed {
            name: "repair-1bit-2000k-carrier",
            rate_index: 1,
            flags: 8 | SOFT2,
            cuts: [6, 0, 0],
            preseed: 0,
            len_us: 200.0,
            replies: &[Reply {
                frame: &one_bit,
                start_us: 25.7,
                amplitude: 0.25,
                carrier_hz: 120e3,
            }],
            expect: (1, 1),
        },
        DemodSeed {
            name: "repair-2bit-2400k",
            rate_index: 0,
            flags: 4 | SOFT2,
            cuts: [333, 444, 555],
            preseed: 0,
            len_us: 200.0,
            replies: &[r(&two_bits, 12.0, 0.8)],
            expect: (1, 2),
        },
        DemodSeed {
            name: "overlap-velocity-2400k",
            rate_index: 0,
            flags: SOFT2,
            cuts: [0; 3],
            preseed: 0,
            len_us: 300.0,
            replies: &[r(&DF17_VELOCITY, 10.0, 0.9), r(&DF11, 60.4, 0.1)],
            expect: (1, 0),
        },
        DemodSeed {
            name: "past-history-2400k",
            rate_index: 0,
            flags: SOFT2,
            cuts: [4000, 4100, 0],
            preseed: 0,
            len_us: 1000.0,
            replies: &[r(&DF17_ODD, 100.0, 0.5), r(&DF17_EVEN, 800.3, 0.5)],
            expect: (2, 0),
        },
        DemodSeed {
            name: "df17-6000k",
            rate_index: 4,
            flags: SOFT2,
            cuts: [1001, 0, 0],
            preseed: 0,
            len_us: 160.0,
            replies: &[r(&DF17_ODD, 8.0, 0.5)],
            expect: (1, 0),
        },
        DemodSeed {
            name: "noise-2000k",
            rate_index: 1,
            flags: 2 | SOFT2,
            cuts: [0; 3],
            preseed: 0,
            len_us: 400.0,
            replies: &[],
            expect: (0, 0),
        },
    ];
    let mut out = Vec::new();
    for s in &seeds {
        let b = s.bytes();
        let got = s.decoded(&b);
        assert!(
            got == s.expect,
            "demod seed {}: decoded (frames, repaired bits) {got:?}, made for {:?}",
            s.name,
            s.expect
        );
        out.push((s.name.to_string(), b));
    }
    out
}

fn frames() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("df17-odd", DF17_ODD.to_vec()),
        ("df17-ident", DF17_IDENT.to_vec()),
        ("df17-velocity", DF17_VELOCITY.to_vec()),
        ("df11", DF11.to_vec()),
        ("df20", DF20.to_vec()),
        ("df5", DF5.to_vec()),
        ("df4", df4(0x40621D).to_vec()),
    ]
}

fn stream_seed() -> Vec<u8> {
    let mut out = Vec::new();
    let mut t = 0x1A1A_0000_001Au64; // escapes in the timestamp
    for (_, f) in frames() {
        let mut b = [0u8; BEAST_MAX_LEN];
        let n = encode_beast(&mut b, &f, Timestamp::from_ticks(t), 0x1A).expect("valid frame");
        out.extend_from_slice(&b[..n]);
        let mut a = [0u8; AVR_MAX_LEN];
        let n = encode_avr(&mut a, &f, Some(Timestamp::from_ticks(t))).expect("valid frame");
        out.extend_from_slice(&a[..n]);
        let n = encode_avr(&mut a, &f, None).expect("valid frame");
        out.extend_from_slice(&a[..n]);
        t += 12_000;
    }
    out
}

fn cpr_seed(kind_byte: u8, reference: (f64, f64)) -> Vec<u8> {
    // The Riddle pair: even (93000, 51372), odd (74158, 50194), 1 s apart.
    let lat = ((reference.0 + 90.0) / 180.0 * f64::from(u32::MAX)) as u32;
    let lon = ((reference.1 + 180.0) / 360.0 * f64::from(u32::MAX)) as u32;
    let mut out = Vec::new();
    for v in [93_000u32, 51_372, 74_158, 50_194, 1_000, 0, lat, lon] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.push(kind_byte);
    out
}

fn tracker_seed(setup: u8, records: &[(u8, u8, &[u8])]) -> Vec<u8> {
    let mut out = vec![setup];
    for (dt, flags, f) in records {
        out.push(*dt);
        out.push(flags | u8::from(f.len() == 14));
        out.extend_from_slice(f);
    }
    out
}

/// Mode A/C replies (code, SPI, start µs, amplitude) rendered at 2.4 MS/s
/// (`rate_byte` 0) or 2.0 MS/s (1), after the 3-byte header.
fn modeac_seed(rate_byte: u8, cut: u16, replies: &[(u16, bool, f64, f32)]) -> Vec<u8> {
    let rate = if rate_byte == 0 { 2.4e6 } else { 2.0e6 };
    let m = Modulator::new(rate).expect("valid rate");
    let n = (120.0 * m.samples_per_us()) as usize;
    let mut iq = vec![C32::new(0.0, 0.0); n];
    for &(code, spi, start_us, amplitude) in replies {
        m.add_mode_ac(
            code,
            spi,
            &Burst::new(start_us * m.samples_per_us(), amplitude),
            &mut iq,
        );
    }
    let mut out = vec![rate_byte];
    out.extend_from_slice(&cut.to_le_bytes());
    let start = out.len();
    out.resize(start + 2 * n, 0);
    Quantiser::RTL_SDR.block(&iq, &mut out[start..]);
    out
}

/// The start of an RDS multiplex from the project's encoder (one `i8` per
/// sample), after the 3-byte header; also readable as group records.
fn rds_seed(rate_byte: u8, samples: usize) -> Vec<u8> {
    use airwaves_core::rds::{encoder::Encoder, group::Program};
    let rate = if rate_byte == 0 { 240_000.0 } else { 228_000.0 };
    let program = Program::new(0xC201)
        .with_ps(b"AIRWAVES")
        .with_rt(b"seed")
        .with_pty(10, true, false);
    let enc = Encoder::new(program, rate, 0.5).expect("valid rate");
    let mut st = enc.start();
    let mut y = vec![0f32; samples];
    enc.fill(&mut st, &mut y);
    let mut out = vec![rate_byte, 0x34, 0x12];
    out.extend(y.iter().map(|v| (v * 127.0).round() as i8 as u8));
    out
}

/// Groups as 9-byte records (presence mask, four big-endian blocks).
fn rds_group_seed() -> Vec<u8> {
    use airwaves_core::rds::group::Program;
    let program = Program::new(0xC201)
        .with_ps(b"AIRWAVES")
        .with_rt(b"Mode S and FM in Rust\r")
        .with_pty(10, true, false);
    let mut out = vec![0, 0, 0];
    let mut groups = Vec::new();
    for seg in 0..4 {
        groups.push(program.group_0a(seg));
    }
    for seg in 0..program.rt_segments() {
        groups.push(program.group_2a(seg));
    }
    for (i, g) in groups.iter().enumerate() {
        out.push(if i == 2 { 0b1011 } else { 0b1111 });
        for b in g {
            out.extend_from_slice(&b.to_be_bytes());
        }
    }
    out
}

/// Length of the radio chains' seeds, bytes (the targets repeat the I/Q
/// `1 + reps` times; small inputs keep libFuzzer's mutations fast).
const RADIO_SEED_LEN: usize = 1024;

/// Header bytes common to `am_chain` and `fm_chain`: flags, repetitions,
/// and three I/Q cut points at 1/4, 1/2 and 3/4 of the stream.
fn radio_header(flags: u8, reps: u8) -> Vec<u8> {
    let mut h = vec![flags, reps];
    for c in [0x4000u16, 0x8000, 0xC000] {
        h.extend_from_slice(&c.to_le_bytes());
    }
    h
}

/// Appends I/Q from `fill` (called with the number of pairs that fit).
fn with_iq(mut head: Vec<u8>, fill: impl FnOnce(&mut [[u8; 2]])) -> Vec<u8> {
    let mut iq = vec![[0u8; 2]; (RADIO_SEED_LEN - head.len()) / 2];
    fill(&mut iq);
    head.extend(iq.iter().flatten());
    head
}

/// `am_chain` seeds: the header of the target's layout (every parameter
/// from its table: selector bytes only) and a signal from the project's
/// AM / NBFM generator with a 1 kHz tone, CNR 20 dB.
fn am_chain_seeds() -> Vec<(String, Vec<u8>)> {
    use airwaves_core::am::generator::{Generator, GeneratorConfig, Modulation};
    use airwaves_core::am::receiver::{Mode, Receiver, ReceiverConfig};
    // (name, flags, selectors, rate, modulation, receiver mode)
    let seeds: [(&str, u8, &[u8], u32, Modulation); 3] = [
        (
            // Envelope AM, 8.33 kHz, level squelch, voice band, AGC; 300
            // kS/s, station at +60 kHz, 48 kHz audio.
            "envelope-level-agc-300k",
            (1 << 4) | 0x40 | 0x80,
            &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            300_000,
            Modulation::Am { depth: 0.8 },
        ),
        (
            // Synchronous AM, 25 kHz channel, voice band, 44.1 kHz audio.
            "sync-25k-300k",
            1 | (1 << 2) | 0x40,
            &[0, 0, 2, 0, 0, 0],
            300_000,
            Modulation::Am { depth: 0.5 },
        ),
        (
            // NBFM ±5 kHz, 25 kHz channel, 750 µs, noise squelch; 240 kS/s,
            // station at +48 kHz.
            "nbfm-noise-squelch-240k",
            2 | (3 << 2) | (2 << 4) | 0x40,
            &[4, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            240_000,
            Modulation::Nbfm {
                deviation_hz: 5000.0,
            },
        ),
    ];
    seeds
        .iter()
        .map(|&(name, flags, selectors, rate, modulation)| {
            let offset = 0.2 * f64::from(rate);
            let mut cfg = ReceiverConfig::am(rate, offset);
            if let Modulation::Nbfm { .. } = modulation {
                cfg = ReceiverConfig::nbfm(rate, offset);
            } else if flags & 3 == 1 {
                cfg.mode = Mode::Synchronous(Default::default());
            }
            assert!(Receiver::new(&cfg).is_ok(), "am_chain seed {name}");
            let mut head = radio_header(flags, 31);
            head.extend_from_slice(selectors);
            let seed = with_iq(head, |iq| {
                let mut c = GeneratorConfig::am(offset);
                c.sample_rate = f64::from(rate);
                c.modulation = modulation;
                c.cnr_db = Some(20.0);
                let g = Generator::new(c).expect("valid generator");
                let mut s = g.state();
                let w = 2.0 * std::f64::consts::PI * 1000.0;
                g.fill(&mut s, |t| (w * t).sin(), iq);
            });
            (name.to_string(), seed)
        })
        .collect()
}

/// `fm_chain` seeds: header (every parameter from its table), then
/// broadcast FM at 2.4 MS/s from the project's generator, station at
/// −250 kHz, 1 kHz on the left, 400 Hz on the right.
fn fm_chain_seeds() -> Vec<(String, Vec<u8>)> {
    use airwaves_core::fm::generator::{Generator, GeneratorConfig};
    // (name, flags, selectors: offset, cutoff, tau, blend low, high; CNR)
    let seeds: [(&str, u8, [u8; 5], Option<f64>); 3] = [
        // Stereo channel filter, 50 µs, click suppression, clean.
        ("stereo-50us", 0, [0, 0, 0, 0, 0], None),
        // Mono channel filter, 75 µs, click suppression off, CNR 8 dB
        // (clicks); blend from 0 to 47 dB.
        ("mono-75us-cnr8", 1, [0, 2, 2, 2, 2], Some(8.0)),
        // The 192-tap channel filter at 120 kHz, 75 µs, CNR 20 dB.
        ("sharp-75us-cnr20", 2, [0, 2, 2, 0, 0], Some(20.0)),
    ];
    seeds
        .iter()
        .map(|&(name, flags, selectors, cnr_db)| {
            let mut head = radio_header(flags, 31);
            head.extend_from_slice(&0x9000u16.to_le_bytes());
            head.extend_from_slice(&selectors);
            let seed = with_iq(head, |iq| {
                let mut c = GeneratorConfig::new(-250e3);
                c.cnr_db = cnr_db;
                c.tau = Some(if flags == 0 { 50e-6 } else { 75e-6 });
                let g = Generator::new(c).expect("valid generator");
                let mut s = g.state();
                let w = 2.0 * std::f64::consts::PI;
                g.fill(
                    &mut s,
                    |t| (w * 1000.0 * t).sin(),
                    |t| (w * 400.0 * t).sin(),
                    |_| 0.0,
                    iq,
                );
            });
            (name.to_string(), seed)
        })
        .collect()
}

/// Real frames of one aircraft (ICAO 4D2023) and two others, from the
/// test captures (`modes1_2000k`, `capture_1641427457780_2400k`).
const REAL: [&str; 13] = [
    "5d4d20237a55a6",               // DF11 all-call
    "8d4d20232004d0f4cb1820b0efd4", // DF17 identification
    "8d4d2023586b30a5a99ddf267240", // DF17 airborne position, even
    "8d4d2023586b543cb98a1faf2586", // DF17 airborne position, odd
    "8d4d2023991094ad487c14fc9e3d", // DF17 airborne velocity
    "20000f1f684a6c",               // DF4 altitude (AP)
    "280010248c796b",               // DF5 identity (AP)
    "a0200eb02004d0f4cb18200ba365", // DF20 Comm-B (AP)
    "a8201024fa8103000000004da3bc", // DF21 Comm-B (AP)
    "02e60eb9be4118",               // DF0 air-air (AP)
    "8f4d2023587f345e35837e2218b2", // DF17 CA 7 airborne position
    "8daa2bc4f82100020049b8db9449", // DF17 TC 31 operational status
    "8dac04d3ea4288669b5c082751d4", // DF17 TC 29 target state
];

/// Bytes from a hex string (either case).
fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// Request heads as browsers, tar1090, curl and Prometheus send them,
/// plus the malformed and hostile ones the server must refuse.
const HTTP_REQUESTS: [(&str, &str); 9] = [
    (
        "tar1090-aircraft",
        "GET /data/aircraft.json?_=1701620000123 HTTP/1.1\r\nHost: 192.168.1.10:8080\r\n\
         User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0\r\n\
         Accept: application/json, text/javascript, */*; q=0.01\r\n\
         X-Requested-With: XMLHttpRequest\r\nReferer: http://192.168.1.10:8080/\r\n\
         Accept-Encoding: gzip, deflate\r\nAccept-Language: en-US,en;q=0.5\r\n\
         Connection: keep-alive\r\n\r\n",
    ),
    (
        "curl-receiver",
        "GET /data/receiver.json HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n",
    ),
    (
        "prometheus-metrics",
        "GET /metrics HTTP/1.1\r\nHost: feeder:8080\r\nUser-Agent: Prometheus/2.48.0\r\n\
         Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n\
         Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n",
    ),
    ("http10-root", "GET / HTTP/1.0\r\n\r\n"),
    (
        "head-close-lf",
        "\r\nHEAD /data/stats.json HTTP/1.1\nHost: a\nConnection: close\n\n",
    ),
    (
        "absolute-pipelined",
        "GET http://feeder/index.html HTTP/1.1\r\nHost: feeder\r\n\r\nGET /%64ata/./aircraft.json HTTP/1.1\r\nHost: feeder\r\n\r\n",
    ),
    (
        "traversal-encoded",
        "GET /data/%2e%2e/%2E%2E/etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n",
    ),
    (
        "post-with-body",
        "POST /data HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc",
    ),
    (
        "incomplete",
        "GET /data/aircraft.json HTTP/1.1\r\nHost: a\r\n",
    ),
];

/// `net_inputs` seeds: connector specs (part 0) and Beast streams
/// (part 1) built with `encode_beast` from the seed and real frames.
fn net_inputs_seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (name, spec) in [
        ("spec-beast-out", "feed.adsbexchange.com,30004,beast_out"),
        ("spec-ipv6-beast-in", "::1,30005,beast_in"),
        ("spec-spaces-sbs", " 127.0.0.1 , 30003 , sbs_out"),
        ("spec-bad-port", "host,0,raw_out"),
    ] {
        let mut b = vec![0];
        b.extend_from_slice(spec.as_bytes());
        out.push((name.to_string(), b));
    }
    let mut frames: Vec<Vec<u8>> = frames().into_iter().map(|(_, f)| f).collect();
    frames.extend(REAL.iter().map(|h| unhex(h)));
    let mut stream = Vec::new();
    let mut t = 0x0000_1A00_0000u64;
    for (i, f) in frames.iter().enumerate() {
        let mut b = [0u8; BEAST_MAX_LEN];
        let signal = if i % 4 == 0 { 0x1A } else { 0x40 + i as u8 };
        let n = encode_beast(&mut b, f, Timestamp::from_ticks(t), signal).expect("valid frame");
        stream.extend_from_slice(&b[..n]);
        if i % 5 == 2 {
            // Junk and a cut message between good ones.
            stream.extend_from_slice(&[0x00, 0x1A, 0x1A, 0x1A, b'3', 0x12]);
        }
        t += 0x1A1A;
    }
    // [part 1, flags, n, lengths…, stream]
    for (name, flags, lengths) in [
        ("beast-exact-split", 0x80, &[3u8, 0, 17, 1][..]),
        ("beast-full-channel", 0x01, &[64][..]),
        ("beast-receiver-gone", 0x40, &[][..]),
    ] {
        let mut b = vec![1, flags, lengths.len() as u8];
        b.extend_from_slice(lengths);
        b.extend_from_slice(&stream);
        out.push((name.to_string(), b));
    }
    out
}

/// `feed_outputs` header: setup byte, start time, `receiver.json`
/// position, string.
fn feed_header(setup: u8, start_ms: u64, rx: [u8; 2], label: &str) -> Vec<u8> {
    let mut out = vec![setup];
    out.extend_from_slice(&start_ms.to_be_bytes()[2..]);
    out.extend_from_slice(&rx);
    out.push(u8::try_from(label.len()).expect("short label"));
    out.extend_from_slice(label.as_bytes());
    out
}

/// `feed_outputs` seeds: real traffic of one aircraft, the Riddle pair
/// near a receiver, and fix-up records for the fuzzer to mutate.
fn feed_outputs_seeds() -> Vec<(String, Vec<u8>)> {
    let record = |dt: u8, flags: u8, signal: u8, f: &[u8]| {
        let mut r = vec![dt, flags | u8::from(f.len() == 14), signal];
        r.extend_from_slice(f);
        r
    };
    let mut real = feed_header(0, 1_641_427_457_780, [0, 0], "");
    for (i, h) in REAL.iter().enumerate() {
        let f = unhex(h);
        // Documents after the identification and at the end; the odd
        // position 1 s after the even one.
        let flags = if i == 1 || i == REAL.len() - 1 { 32 } else { 0 };
        real.extend(record(if i == 3 { 32 } else { 5 }, flags, 40 + i as u8, &f));
    }
    let tiles = "https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png";
    let mut riddle = feed_header(1 | 2, 1_700_000_000_000, [0x46, 0x03], tiles);
    riddle.extend(record(0, 0, 1, &DF11));
    riddle.extend(record(0, 0, 0, &DF17_IDENT));
    riddle.extend(record(3, 64, 0, &DF17_EVEN));
    riddle.extend(record(30, 32, 9, &DF17_ODD));
    riddle.extend(record(2, 0, 20, &DF17_VELOCITY));
    riddle.extend(record(250, 16 | 32, 5, &DF17_ODD));
    let odd = "\"quoted\\\n\u{2708}\u{1}";
    let mut fixups = feed_header(1 | 4, 4_102_444_800_000, [0x7F, 0x80], odd);
    // DF17 with TC 4 identification, TC 11 position pair (same address),
    // TC 19 velocity; DF18; DF11; an AP DF4 to the last address.
    let mut me = [0u8; 14];
    me[1..4].copy_from_slice(&[0xAB, 0xCD, 0xEF]);
    me[4] = 4 << 3;
    me[5..11].copy_from_slice(&[0x10, 0x82, 0x18, 0x20, 0x82, 0x08]);
    fixups.extend(record(1, 2, 50, &me));
    me[4] = 11 << 3;
    me[5..11].copy_from_slice(&[0x30, 0x00, 0x6A, 0xD5, 0x2B, 0x11]);
    fixups.extend(record(1, 2 | 8, 50, &me));
    me[6] |= 0x04;
    me[7..11].copy_from_slice(&[0x5A, 0x1B, 0x44, 0x70]);
    fixups.extend(record(2, 2 | 8 | 32, 50, &me));
    me[4..11].copy_from_slice(&[0x99, 0x44, 0x09, 0x94, 0x08, 0x38, 0x17]);
    fixups.extend(record(1, 2 | 8 | 128, 60, &me));
    fixups.extend(record(1, 4, 70, &me));
    fixups.extend(record(1, 6, 80, &DF11));
    fixups.extend(record(1, 8 | 64, 90, &df4(0)));
    vec![
        ("real-4d2023".to_string(), real),
        ("riddle-receiver".to_string(), riddle),
        ("fixups-escapes".to_string(), fixups),
    ]
}

/// `rtltcp_commands` seeds: a split byte, then what clients send after
/// the header (tuning for ADS-B, FM, HF direct sampling), one stream
/// prefixed with a real header.
fn rtltcp_seeds() -> Vec<(String, Vec<u8>)> {
    let commands = |list: &[Command]| -> Vec<u8> { list.iter().flat_map(|c| c.encode()).collect() };
    let adsb = commands(&[
        Command::SetSampleRate(2_400_000),
        Command::SetCenterFreq(1_090_000_000),
        Command::SetFreqCorrection(-2),
        Command::SetGainMode { manual: true },
        Command::SetGain(496),
        Command::SetAgcMode(false),
        Command::SetBiasTee(true),
    ]);
    let fm = commands(&[
        Command::SetSampleRate(1_024_000),
        Command::SetCenterFreq(98_800_000),
        Command::SetGainMode { manual: false },
        Command::SetIfGain {
            stage: 1,
            gain: -30,
        },
        Command::SetGainByIndex(28),
        Command::SetOffsetTuning(true),
        Command::SetTestMode(false),
    ]);
    let hf = commands(&[
        Command::SetDirectSampling(DirectSampling::QBranch),
        Command::SetCenterFreq(7_100_000),
        Command::SetRtlXtal(28_800_000),
        Command::SetTunerXtal(28_800_000),
        Command::Unknown(0x20, 1),
    ]);
    let mut with_header = vec![3];
    with_header.extend_from_slice(&Header::R820T.encode());
    with_header.extend_from_slice(&adsb);
    let mut r828d = vec![0];
    let h = Header {
        tuner: TunerType::R828d,
        gain_count: 29,
    };
    r828d.extend_from_slice(&h.encode());
    r828d.extend_from_slice(&fm[..7]);
    let seed = |split: u8, body: &[u8]| {
        let mut v = vec![split];
        v.extend_from_slice(body);
        v
    };
    vec![
        ("adsb".to_string(), seed(4, &adsb)),
        ("fm".to_string(), seed(0, &fm)),
        ("hf-direct".to_string(), seed(255, &hf)),
        ("header-r820t-adsb".to_string(), with_header),
        ("header-r828d-cut".to_string(), r828d),
    ]
}

fn all_seeds() -> Vec<(String, String, Vec<u8>)> {
    let mut v = Vec::new();
    let mut add = |target: &str, name: &str, bytes: Vec<u8>| {
        v.push((target.to_string(), format!("seed-{name}"), bytes));
    };
    for (name, b) in demod_seeds() {
        add("demod", &name, b);
    }
    for (name, f) in frames() {
        add("frame_roundtrip", name, f.clone());
        if f.len() == 14 && f[0] >> 3 == 17 {
            add("adsb_me", name, f[4..11].to_vec());
        }
    }
    for (i, mb) in MB.iter().enumerate() {
        add("commb_infer", &format!("mb{i}"), mb.to_vec());
    }
    add("stream_decoders", "beast-avr", stream_seed());
    add(
        "modeac",
        "squawk-7500-spi-2400k",
        modeac_seed(0, 0, &[(0x0FAD, true, 10.0, 0.5)]),
    );
    add(
        "modeac",
        "two-overlapping-2000k",
        modeac_seed(
            1,
            101,
            &[(0x1234, false, 5.0, 0.6), (0x0555, false, 17.3, 0.3)],
        ),
    );
    add("rds", "mpx-240k", rds_seed(0, 4096));
    add("rds", "mpx-228k", rds_seed(1, 4096));
    add("rds", "groups", rds_group_seed());
    add("cpr", "airborne-pair", cpr_seed(0, (52.25, 3.92)));
    add("cpr", "surface-pair", cpr_seed(3, (52.32, 3.86)));
    let df4 = df4(0x40621D);
    add(
        "tracker",
        "riddle-pair-then-ap",
        tracker_seed(
            1,
            &[
                (0, 0, &DF17_ODD),
                (45, 0, &DF17_EVEN),
                (10, 0, &DF11),
                (10, 16 | 32, &df4),
                (3, 8, &DF17_IDENT),
            ],
        ),
    );
    add(
        "tracker",
        "eviction-expiry",
        tracker_seed(
            2 | 4,
            &[
                (0, 0, &DF11),
                (1, 0, &DF17_IDENT),
                (1, 0, &DF17_VELOCITY),
                (1, 2, &DF17_ODD),
                (1, 16, &DF20),
                (1, 0, &DF5),
                (255, 8, &DF17_EVEN),
            ],
        ),
    );
    for (name, req) in HTTP_REQUESTS {
        add("http_request", name, req.as_bytes().to_vec());
    }
    for (name, b) in net_inputs_seeds() {
        add("net_inputs", &name, b);
    }
    for (name, b) in feed_outputs_seeds() {
        add("feed_outputs", &name, b);
    }
    for (name, b) in rtltcp_seeds() {
        add("rtltcp_commands", &name, b);
    }
    for (name, b) in am_chain_seeds() {
        add("am_chain", &name, b);
    }
    for (name, b) in fm_chain_seeds() {
        add("fm_chain", &name, b);
    }
    for (name, b) in uat_demod_seeds() {
        add("uat_demod", &name, b);
    }
    add("uat_uplink", "fisb-text", uat_uplink_seed());
    add("uat_uplink", "fisb-nexrad", uat_nexrad_seed());
    // RS(4, 2) with one error; RS(7, 1) with two errors and two erasures.
    add(
        "uat_rs",
        "rs4-2-one-error",
        vec![1, 0x12, 0x34, 0, 0x55, 0, 0, 0],
    );
    add(
        "uat_rs",
        "rs7-1-errors-erasures",
        vec![8, 0xA5, 1, 0, 2, 0, 0, 3, 0, 0b0100_0100],
    );
    v
}

/// An uplink message: header (station 39.5° N 104.9° W, slot 17,
/// application data valid), one FIS-B APDU (product 413, 17:53, DLAC
/// "METAR KDEN"), one type-14 frame, the end.
fn uat_uplink_seed() -> Vec<u8> {
    let mut b = vec![0u8; 432];
    let head: u64 = (1_840_833 << 41)
        | (11_888_522 << 17)
        | (1 << 16)
        | (1 << 15)
        | (1 << 13)
        | (17 << 8)
        | (9 << 4);
    b[..8].copy_from_slice(&head.to_be_bytes());
    // "METAR KDEN" in DLAC: 13 5 20 1 18 32 11 4 5 14, packed 6 bits each.
    let codes = [13u8, 5, 20, 1, 18, 32, 11, 4, 5, 14];
    let mut bits = 0u128;
    for c in codes {
        bits = (bits << 6) | u128::from(c);
    }
    let text = (bits << (128 - 60)).to_be_bytes();
    let mut apdu = vec![
        (413u16 >> 6) as u8,
        ((413u16 & 0x3F) << 2) as u8,
        17 << 2 | (53 >> 4),
        (53 & 0x0F) << 4,
    ];
    apdu.extend_from_slice(&text[..8]);
    b[8] = (apdu.len() >> 1) as u8;
    b[9] = ((apdu.len() & 1) << 7) as u8;
    b[10..10 + apdu.len()].copy_from_slice(&apdu);
    let at = 10 + apdu.len();
    b[at] = 1;
    b[at + 1] = (1 << 7) | 14;
    b[at + 2..at + 5].copy_from_slice(&[0xAA, 0xBB, 0xCC]);
    b
}

/// An uplink with two NEXRAD regional frames (core's FIS-B writers): a
/// run-length block with an echo and an empty-block bitmap.
fn uat_nexrad_seed() -> Vec<u8> {
    use airwaves_core::modes::cpr::Position;
    use airwaves_core::uat::fisb::nexrad::{Block, BlockHeader, EmptyBlocks, Scale};
    use airwaves_core::uat::fisb::{NEXRAD_REGIONAL, write_info_frame};
    use airwaves_core::uat::uplink::{self, ProductTime};
    let mut b = vec![0u8; 432];
    b[..8].copy_from_slice(&uplink::header(Position::new(39.5, -104.9), 17, 9));
    let header = BlockHeader {
        south: false,
        scale: Scale::X1,
        number: 32_040,
    };
    let mut bins = [0u8; 128];
    bins[20..60].fill(4);
    bins[30..40].fill(7);
    let mut payload = [0u8; 160];
    let time = ProductTime {
        month_day: None,
        hours: 17,
        minutes: 55,
        seconds: None,
    };
    let mut at = 8;
    let n = Block { header, bins }
        .emit(&mut payload)
        .expect("block fits");
    at += write_info_frame(NEXRAD_REGIONAL, time, &payload[..n], &mut b[at..]).expect("frame fits");
    let empty = EmptyBlocks {
        header,
        offsets: 0b1011_0110,
    };
    let n = empty.emit(&mut payload).expect("bitmap fits");
    write_info_frame(NEXRAD_REGIONAL, time, &payload[..n], &mut b[at..]).expect("frame fits");
    b
}

/// UAT messages rendered by the core modulator (a long and a basic
/// downlink message and an uplink frame, one strong, one weak), after the
/// 2-byte cut point; each decodes to the message it was made from.
fn uat_demod_seeds() -> Vec<(String, Vec<u8>)> {
    use airwaves_core::uat::demod::{DemodState, Demodulator};
    use airwaves_core::uat::modulate as uat;
    let m = uat::Modulator::new(airwaves_core::uat::SAMPLE_RATE);
    let long: Vec<u8> = (0..34u8)
        .map(|i| if i == 0 { 0x08 } else { i * 7 })
        .collect();
    let basic: Vec<u8> = (0..18u8)
        .map(|i| if i == 0 { 0x02 } else { 255 - i })
        .collect();
    let up: Vec<u8> = (0..432u32).map(|i| (i * 13 % 251) as u8).collect();
    // (name, messages as (data, start sample, amplitude), samples)
    type Case<'a> = (&'a str, Vec<(&'a [u8], f64, f32)>, usize);
    let cases: [Case; 2] = [
        (
            "downlink-long-basic",
            vec![(&long, 20.5, 0.3), (&basic, 1000.0, 0.05)],
            1700,
        ),
        ("uplink", vec![(&up, 30.0, 0.2)], 9100),
    ];
    let mut v = Vec::new();
    for (name, msgs, len) in cases {
        let mut iq = vec![C32::new(0.0, 0.0); len];
        for (data, start, amplitude) in &msgs {
            let burst = uat::Burst {
                offset_hz: 20e3,
                ..uat::Burst::new(*start, *amplitude)
            };
            m.add_message(&burst, data, &mut iq).expect("a UAT length");
        }
        let mut out = vec![0x40, 0x02];
        out.resize(2 + 2 * len, 0);
        Quantiser::RTL_SDR.block(&iq, &mut out[2..]);
        let d = Demodulator::new();
        let mut st = Box::new(DemodState::<16_384>::new());
        let mut got = Vec::new();
        d.process(&mut st, &out[2..], |msg| got.push(msg.bytes().to_vec()));
        d.finish(&mut st, |msg| got.push(msg.bytes().to_vec()));
        let want: Vec<Vec<u8>> = msgs.iter().map(|(data, _, _)| data.to_vec()).collect();
        assert_eq!(got, want, "seed {name} decodes to its messages");
        v.push((name.to_string(), out));
    }
    v
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = args.iter().any(|a| a == "--check");
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"));
    let mut stale = 0;
    for (target, name, bytes) in all_seeds() {
        let path = dir.join(&target).join(&name);
        if check {
            if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
                eprintln!("stale or missing: {}", path.display());
                stale += 1;
            }
            continue;
        }
        if let Err(e) =
            std::fs::create_dir_all(dir.join(&target)).and_then(|()| std::fs::write(&path, &bytes))
        {
            eprintln!("{}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("{:>6} B  {}", bytes.len(), path.display());
    }
    if stale > 0 {
        eprintln!("{stale} seed files differ: run the seeds example to regenerate");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
