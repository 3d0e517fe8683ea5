//! Instruction-count workloads for the Mode S demodulator.
//!
//! The capture cases loop a recorded `cu8` file from
//! `../shared/data/adsb/` (relative to the workspace root) and fall back to
//! synthetic noise when it is absent; the noise cases use full-scale uniform
//! bytes ([`crate::noise_u8`]) and a realistic receiver noise floor
//! (Gaussian, σ ≈ 4 LSB per component).

use crate::Case;
use airwaves_core::modes::demod::{AddressFilter, DemodState, Demodulator};

/// Bytes per `process` call.
const BLOCK: usize = 4096;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/adsb/");

/// A capture file, or `None` when it is not there.
pub fn capture(name: &str) -> Option<Vec<u8>> {
    std::fs::read(format!("{DATA}{name}")).ok()
}

/// Gaussian-ish receiver noise around 127.4 (sum of 4 uniforms, σ ≈ 4 LSB).
pub fn gauss_u8(seed: u32, out: &mut [u8]) {
    let mut s = seed | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s >> 24
    };
    for b in out.iter_mut() {
        // Sum of four uniform bytes: mean 510, σ ≈ 147.8; scale to σ 4.
        let u = (next() + next() + next() + next()) as f32;
        *b = (127.4 + (u - 510.0) * (4.0 / 147.8))
            .round()
            .clamp(0.0, 255.0) as u8;
    }
}

/// Run the demodulator over `n` samples taken cyclically from `src`.
fn demod(rate: u32, src: &[u8], n: usize) -> u64 {
    let d = Demodulator::new(rate).expect("supported rate");
    let mut st = DemodState::new();
    let mut filter = AddressFilter::<512>::new(AddressFilter::<512>::DEFAULT_TTL);
    let mut sum = 0u64;
    let mut left = 2 * n;
    let mut pos = 0;
    while left > 0 {
        let k = left.min(BLOCK).min(src.len() - pos);
        d.process(&mut st, &mut filter, &src[pos..pos + k], |f| {
            sum = sum.wrapping_add(f.timestamp.get() ^ u64::from(f.bytes()[0]));
        });
        left -= k;
        pos = (pos + k) % src.len();
    }
    sum.wrapping_add(st.stats().triggers)
}

fn capture_or_noise(name: &str) -> Vec<u8> {
    capture(name).unwrap_or_else(|| {
        let mut v = vec![0u8; 1 << 18];
        gauss_u8(7, &mut v);
        v
    })
}

fn capture_2400k(n: usize) -> u64 {
    let src: Vec<u8> = [
        "capture_1641427457780_2400k.cu8",
        "capture_1641428106243_2400k.cu8",
        "capture_1641428165033_2400k.cu8",
    ]
    .iter()
    .flat_map(|f| capture_or_noise(f))
    .collect();
    demod(2_400_000, &src, n)
}

fn capture_2000k(n: usize) -> u64 {
    demod(2_000_000, &capture_or_noise("modes1_2000k.cu8"), n)
}

fn uniform_2400k(n: usize) -> u64 {
    let mut v = vec![0u8; 1 << 20];
    crate::noise_u8(11, &mut v);
    demod(2_400_000, &v, n)
}

fn gauss_2400k(n: usize) -> u64 {
    let mut v = vec![0u8; 1 << 20];
    gauss_u8(13, &mut v);
    demod(2_400_000, &v, n)
}

fn gauss_2000k(n: usize) -> u64 {
    let mut v = vec![0u8; 1 << 20];
    gauss_u8(17, &mut v);
    demod(2_000_000, &v, n)
}

/// The cases of this group.
pub static CASES: &[Case] = &[
    Case {
        name: "modes/demod/2400k-capture",
        run: capture_2400k,
    },
    Case {
        name: "modes/demod/2000k-capture",
        run: capture_2000k,
    },
    Case {
        name: "modes/demod/2400k-noise-gauss",
        run: gauss_2400k,
    },
    Case {
        name: "modes/demod/2000k-noise-gauss",
        run: gauss_2000k,
    },
    Case {
        name: "modes/demod/2400k-noise-uniform",
        run: uniform_2400k,
    },
];
