extern crate std;

use super::*;
use crate::C32;
use crate::modes::modulate::Quantiser;
use crate::rng::Rng;
use crate::uat::SAMPLE_RATE;
use crate::uat::modulate::{Burst, Modulator};

/// Add the transmission of `data` as `burst` into `out`.
fn transmit(data: &[u8], burst: &Burst, out: &mut [C32]) {
    Modulator::new(SAMPLE_RATE)
        .add_message(burst, data, out)
        .unwrap();
}

/// Complex noise of `sigma` (full-scale units) per component, then cu8.
fn to_cu8(rng: &mut Rng, x: &mut [C32], sigma: f32, out: &mut [u8]) {
    for v in x.iter_mut() {
        v.re += sigma * rng.normal() as f32;
        v.im += sigma * rng.normal() as f32;
    }
    Quantiser::RTL_SDR.block(x, out);
}

/// Every message in `bytes`, fed in blocks of `split`.
fn run<const N: usize>(demod: &Demodulator, bytes: &[u8], split: usize) -> std::vec::Vec<Message> {
    let mut st = std::boxed::Box::new(DemodState::<N>::new());
    let mut got = std::vec::Vec::new();
    for chunk in bytes.chunks(split) {
        demod.process(&mut st, chunk, |m| got.push(m.clone()));
    }
    demod.finish(&mut st, |m| got.push(m.clone()));
    got
}

fn data(rng: &mut Rng, n: usize, payload_type: u8) -> std::vec::Vec<u8> {
    let mut d: std::vec::Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
    d[0] = (payload_type << 3) | (d[0] & 7);
    d
}

#[test]
#[cfg_attr(miri, ignore)]
fn test_clean_messages_of_every_kind() {
    let mut rng = Rng::new(1);
    let basic = data(&mut rng, BASIC_DATA, 0);
    let long = data(&mut rng, LONG_DATA, 1);
    let up = data(&mut rng, UPLINK_DATA, 0);
    let mut x = std::vec![C32::new(0.0, 0.0); 30_000];
    transmit(&basic, &Burst::new(1000.3, 0.3), &mut x);
    transmit(&long, &Burst::new(3000.0, 0.2), &mut x);
    transmit(&up, &Burst::new(5000.7, 0.5), &mut x);
    let mut bytes = std::vec![0u8; 60_000];
    to_cu8(&mut rng, &mut x, 0.01, &mut bytes);
    let got = run::<UPLINK_STATE>(&Demodulator::new(), &bytes, 4096);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0].bytes(), &basic[..]);
    assert_eq!(got[0].link, Link::Downlink);
    assert!(got[0].sample.abs_diff(1000) <= 1);
    assert_eq!(got[1].bytes(), &long[..]);
    assert!(got[1].sample.abs_diff(3000) <= 1);
    assert_eq!(got[2].bytes(), &up[..]);
    assert_eq!(got[2].link, Link::Uplink);
    assert!(got.iter().all(|m| m.errors == 0));
    // 0.2 full scale: −14 dBFS.
    assert!(
        (got[1].rssi_dbfs + 14.0).abs() < 1.0,
        "{}",
        got[1].rssi_dbfs
    );
}

#[test]
#[cfg_attr(miri, ignore)]
fn test_carrier_offsets_and_phases() {
    let mut rng = Rng::new(2);
    for (i, off) in [-150e3, -60e3, 0.0, 45e3, 150e3].into_iter().enumerate() {
        let long = data(&mut rng, LONG_DATA, 1 + i as u8);
        let mut x = std::vec![C32::new(0.0, 0.0); 3000];
        let burst = Burst {
            offset_hz: off,
            phase: i as f64,
            ..Burst::new(500.0 + 0.25 * i as f64, 0.1)
        };
        transmit(&long, &burst, &mut x);
        let mut bytes = std::vec![0u8; 6000];
        to_cu8(&mut rng, &mut x, 0.01, &mut bytes);
        let got = run::<DOWNLINK_STATE>(&Demodulator::new(), &bytes, 1000);
        assert_eq!(got.len(), 1, "offset {off}");
        assert_eq!(got[0].bytes(), &long[..]);
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn test_output_independent_of_split() {
    let mut rng = Rng::new(3);
    let mut x = std::vec![C32::new(0.0, 0.0); 40_000];
    let mut want = std::vec::Vec::new();
    for k in 0..20 {
        let d = data(
            &mut rng,
            if k % 3 == 0 { BASIC_DATA } else { LONG_DATA },
            (k % 3 != 0) as u8,
        );
        transmit(
            &d,
            &Burst::new(100.0 + 1900.0 * k as f64 + rng.uniform(), 0.05),
            &mut x,
        );
        want.push(d);
    }
    let mut bytes = std::vec![0u8; 80_000];
    to_cu8(&mut rng, &mut x, 0.008, &mut bytes);
    let demod = Demodulator::new();
    let whole = run::<DOWNLINK_STATE>(&demod, &bytes, bytes.len());
    assert_eq!(whole.len(), 20);
    for split in [1, 3, 1001, 2048, 7777] {
        assert_eq!(
            run::<DOWNLINK_STATE>(&demod, &bytes, split),
            whole,
            "split {split}"
        );
    }
    // The large state gives the same downlink messages.
    assert_eq!(run::<UPLINK_STATE>(&demod, &bytes, 5000), whole);
    for (m, d) in whole.iter().zip(&want) {
        assert_eq!(m.bytes(), &d[..]);
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn test_noise_gives_nothing() {
    let mut rng = Rng::new(4);
    let mut x = std::vec![C32::new(0.0, 0.0); 400_000];
    let mut bytes = std::vec![0u8; 800_000];
    to_cu8(&mut rng, &mut x, 0.03, &mut bytes);
    let mut st = std::boxed::Box::new(DemodState::<UPLINK_STATE>::new());
    let demod = Demodulator::new();
    let mut n = 0;
    demod.process(&mut st, &bytes, |_| n += 1);
    demod.finish(&mut st, |_| n += 1);
    assert_eq!(n, 0);
    // About 7e-5 sync candidates a position at 6 bits allowed; hardly
    // any coherent enough to search.
    assert!(st.stats.candidates < 100, "{:?}", st.stats);
    assert!(st.stats.searched <= 2, "{:?}", st.stats);
}

/// At a low SNR, erasures decode messages errors-only decoding cannot
/// (differential detection at 6 dB: signal power over complex noise power
/// per sample), and the coherent search decodes more than differential
/// detection (4 dB); nothing false either way.
#[test]
#[cfg_attr(miri, ignore)]
fn test_erasures_and_coherent_search_recover_more() {
    let d = Demodulator::new().with_coherent(false);
    let (with, f1) = decode_rates(6.0, &d);
    let (without, f2) = decode_rates(6.0, &d.with_erasures(false));
    assert!(with > without, "{with} with erasures, {without} without");
    assert!(with < 200, "the test must sit where errors happen: {with}");
    let (coherent, f3) = decode_rates(4.0, &Demodulator::new());
    let (differential, f4) = decode_rates(4.0, &d);
    assert!(
        coherent > differential + 50,
        "{coherent} coherent, {differential} differential"
    );
    assert_eq!((f1, f2, f3, f4), (0, 0, 0, 0));
}

/// Messages decoded correctly (and false ones) out of 200 long ones at
/// `snr_db`, amplitude 0.05 full scale, random timing and carrier offset,
/// by `demod`.
fn decode_rates(snr_db: f32, demod: &Demodulator) -> (usize, usize) {
    let mut rng = Rng::new(5);
    let mut x = std::vec![C32::new(0.0, 0.0); 200 * 1000];
    let mut sent = std::vec::Vec::new();
    for k in 0..200 {
        let d = data(&mut rng, LONG_DATA, 1);
        let burst = Burst {
            offset_hz: rng.normal() * 30e3,
            ..Burst::new(100.0 + 1000.0 * k as f64 + rng.uniform(), 0.05)
        };
        transmit(&d, &burst, &mut x);
        sent.push(d);
    }
    let sigma = 0.05 / libm::sqrtf(2.0) * libm::powf(10.0, -snr_db / 20.0);
    let mut bytes = std::vec![0u8; 400_000];
    to_cu8(&mut rng, &mut x, sigma, &mut bytes);
    let got = run::<DOWNLINK_STATE>(demod, &bytes, 8192);
    let right = got
        .iter()
        .filter(|m| sent.iter().any(|d| d[..] == *m.bytes()))
        .count();
    (right, got.len() - right)
}

/// Prints the decode rate against SNR (`cargo test --release --
/// --ignored --nocapture snr_curve`).
#[test]
#[ignore]
fn snr_curve() {
    for snr_db in [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0] {
        let d = Demodulator::new();
        std::println!(
            "{snr_db} dB (right, false): all {:?}, sync 6 {:?}, errors only {:?}, differential {:?}, differential errors only {:?}",
            decode_rates(snr_db, &d),
            decode_rates(snr_db, &d.with_max_sync_errors(6)),
            decode_rates(snr_db, &d.with_erasures(false)),
            decode_rates(snr_db, &d.with_coherent(false)),
            decode_rates(snr_db, &d.with_coherent(false).with_erasures(false)),
        );
    }
}

/// A stream that starts inside a sync word: the register matches before
/// a whole sync word lies behind it (fuzzing found the underflow), and
/// the message after it is still found.
#[test]
#[cfg_attr(miri, ignore)]
fn test_stream_starting_inside_a_sync_word() {
    let mut rng = Rng::new(9);
    let long = data(&mut rng, LONG_DATA, 1);
    let mut x = std::vec![C32::new(0.0, 0.0); 2000];
    transmit(&long, &Burst::new(-2.0, 0.3), &mut x);
    transmit(&long, &Burst::new(1000.0, 0.3), &mut x);
    let mut bytes = std::vec![0u8; 4000];
    to_cu8(&mut rng, &mut x, 0.005, &mut bytes);
    let got = run::<DOWNLINK_STATE>(&Demodulator::new(), &bytes, 4000);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].sample, 1000);
}

/// The smallest state decodes downlink messages as the full one does and
/// fits a microcontroller (under 16 KiB).
#[test]
#[cfg_attr(miri, ignore)]
fn test_downlink_state_is_small_and_decodes() {
    assert!(core::mem::size_of::<DownlinkState>() < 16 * 1024);
    let mut rng = Rng::new(11);
    let long = data(&mut rng, LONG_DATA, 2);
    let basic = data(&mut rng, BASIC_DATA, 0);
    let mut x = std::vec![C32::new(0.0, 0.0); 3000];
    transmit(&long, &Burst::new(100.0, 0.1), &mut x);
    transmit(&basic, &Burst::new(1500.0, 0.02), &mut x);
    let mut bytes = std::vec![0u8; 6000];
    to_cu8(&mut rng, &mut x, 0.01, &mut bytes);
    let d = Demodulator::new();
    let mut st = std::boxed::Box::new(DownlinkState::new());
    let mut got = std::vec::Vec::new();
    for chunk in bytes.chunks(999) {
        d.process(&mut st, chunk, |m| got.push(m.clone()));
    }
    d.finish(&mut st, |m| got.push(m.clone()));
    assert_eq!(got, run::<UPLINK_STATE>(&d, &bytes, 4096));
    assert_eq!(got.len(), 2);
    assert_eq!(got[1].bytes(), &basic[..]);
}
