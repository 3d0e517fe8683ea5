//! Mode S demodulator on arbitrary `cu8` bytes: nothing panics, and the
//! demodulator keeps its own contracts:
//!
//! - the frames do not depend on how the stream is split into blocks (the
//!   one-shot run and the split run give identical output);
//! - every frame has a length that matches its DF (7 bytes below DF16, 14
//!   from DF16), a DF that can be validated, and a CRC remainder that
//!   agrees with its format and its repaired-bit count; its address is the
//!   AA field (DF11/17/18) or a known address equal to the remainder (AP
//!   formats);
//! - timestamps are non-decreasing, `phase` is `timestamp mod tps`, and
//!   no frame starts after the end of the stream.
//!
//! Input layout (the rest is interleaved `I, Q` bytes):
//!
//! | byte | meaning |
//! |---|---|
//! | 0 | rate: `b % 6` selects 2.4, 2.0, 3, 4, 6, 12 MS/s |
//! | 1 | flags: bit 0 pre-seed the address filter, bit 1 sequence second chances (MLSE, amplitude search) off, bit 2 exhaustive 2-bit repair, bit 3 fixed-size blocks instead of cut points, bits 4–5 soft-repair flips (0–3), bit 6 known-address repair (AP formats, DF11 beyond one bit) off, bit 7 DF17/18 known-address repair beyond the soft flips on |
//! | 2–7 | three little-endian `u16` cut points (taken modulo the I/Q length), or with flag bit 3 the block size `b[2] + 1` |
//! | 8–10 | the pre-seeded address (big-endian, 24 bits) |
#![no_main]

use airwaves_core::modes::crc;
use airwaves_core::modes::demod::{AddressFilter, DemodFrame, DemodState, Demodulator};
use libfuzzer_sys::fuzz_target;

/// Most flips of the known-address search of AP formats and DF11 (the
/// demodulator's default).
const AP_FLIPS: u8 = 4;
/// Most flips of the DF17/18 known-address search, when flag bit 7 is on.
const ES_FLIPS: u8 = 6;
/// Bytes of the control header before the I/Q bytes.
const HEADER: usize = 11;
/// The supported rates, selected by header byte 0.
const RATES: [u32; 6] = [
    2_400_000, 2_000_000, 3_000_000, 4_000_000, 6_000_000, 12_000_000,
];
/// A small filter, so that eviction happens too.
const FILTER: usize = 16;

/// The comparable content of a frame (`signal_dbfs` by its bits, so a NaN
/// level is still compared exactly).
fn key(f: &DemodFrame) -> (Vec<u8>, u64, u8, u32, u8, u32) {
    (
        f.bytes().to_vec(),
        f.timestamp.get(),
        f.phase,
        f.signal_dbfs.to_bits(),
        f.repaired_bits,
        f.address,
    )
}

/// Run `demod` over `blocks` from a fresh state, then `finish`.
fn run<'a>(
    demod: &Demodulator,
    seed: Option<u32>,
    blocks: impl Iterator<Item = &'a [u8]>,
) -> Vec<DemodFrame> {
    let mut state = DemodState::new();
    let mut filter = AddressFilter::<FILTER>::new(AddressFilter::<FILTER>::DEFAULT_TTL);
    if let Some(a) = seed {
        filter.insert(a, 0);
    }
    let mut out = Vec::new();
    let mut bytes = 0;
    for b in blocks {
        bytes += b.len();
        demod.process(&mut state, &mut filter, b, |f| out.push(*f));
    }
    assert_eq!(state.stats().samples, (bytes / 2) as u64, "samples counted");
    demod.finish(&mut state, &mut filter, |f| out.push(*f));
    out
}

/// Check every frame against the format rules, in order.
fn check(frames: &[DemodFrame], demod: &Demodulator, seed: Option<u32>, max_rep: u8, samples: u64) {
    let tps = u64::from(demod.ticks_per_sample());
    // Addresses the demodulator may have put in its filter so far.
    let mut known: Vec<u32> = seed.into_iter().collect();
    let mut last = 0u64;
    // The stream plus the silence `finish` appends (at most one frame's
    // look-ahead, well under 2048 samples).
    let end = (samples + 2048) * tps;
    for f in frames {
        let b = f.bytes();
        let df = f.df();
        let want_len = if df < 16 { 7 } else { 14 };
        assert_eq!(b.len(), want_len, "DF{df} length: {f:?}");
        assert!(f.timestamp.get() >= last, "timestamps go back: {frames:?}");
        last = f.timestamp.get();
        assert!(
            f.timestamp.get() < end,
            "frame after the end of the stream: {f:?}"
        );
        assert_eq!(u64::from(f.phase), f.timestamp.get() % tps, "{f:?}");
        assert!(f.repaired_bits <= max_rep, "{f:?} (max {max_rep})");
        assert!(f.signal_dbfs.is_finite(), "{f:?}");
        let rem = crc::remainder(b);
        let aa = u32::from_be_bytes([0, b[1], b[2], b[3]]);
        match df {
            17 | 18 => {
                assert_eq!(rem, 0, "{f:?}");
                assert_eq!(f.address, aa, "{f:?}");
                // Beyond the soft repair's 3 flips only to a known AA.
                if f.repaired_bits > 3 {
                    assert!(known.contains(&aa), "DF{df} AA not known: {f:?}");
                }
            }
            11 => {
                assert!(rem < 80, "{f:?}");
                // Repair assumes interrogator code 0; beyond one bit only
                // towards a known AA, with at most the AP search's flips.
                if f.repaired_bits > 0 {
                    assert_eq!(rem, 0, "{f:?}");
                }
                if f.repaired_bits > 1 {
                    assert!(f.repaired_bits <= AP_FLIPS, "{f:?}");
                    assert!(known.contains(&aa), "DF11 AA not known: {f:?}");
                }
                assert_eq!(f.address, aa, "{f:?}");
            }
            0 | 4 | 5 | 16 | 20 | 21 | 24..=31 => {
                // The likelihood-ordered search: at most its flips.
                assert!(f.repaired_bits <= AP_FLIPS, "{f:?}");
                assert_eq!(rem, f.address, "{f:?}");
                assert!(known.contains(&rem), "AP address not known: {f:?}");
            }
            _ => panic!("DF{df} emitted: {f:?}"),
        }
        let trusted = match df {
            11 => f.repaired_bits == 0 && rem == 0,
            17 => f.repaired_bits <= 1,
            18 => f.repaired_bits <= 1 && b[0] & 7 == 0,
            _ => false,
        };
        if trusted {
            known.push(f.address);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((head, iq)) = data.split_first_chunk::<HEADER>() else {
        return;
    };
    let rate = RATES[usize::from(head[0]) % RATES.len()];
    let flags = head[1];
    let soft_flips = (flags >> 4) & 3;
    let two_bit = flags & 4 != 0;
    let (ap, es) = (flags & 64 == 0, flags & 128 != 0);
    let demod = Demodulator::new(rate)
        .expect("supported rate")
        .with_mlse(flags & 2 == 0)
        .with_two_bit_repair(two_bit)
        .with_soft_repair(8, soft_flips)
        .with_ap_repair(if ap { 8 } else { 0 })
        .with_known_es_repair(if es { 64 } else { 0 }, ES_FLIPS);
    let seed = (flags & 1 != 0).then(|| u32::from_be_bytes([0, head[8], head[9], head[10]]));
    let max_rep = 1
        .max(soft_flips)
        .max(if two_bit { 2 } else { 0 })
        .max(if ap { AP_FLIPS } else { 0 })
        .max(if es { ES_FLIPS } else { 0 });

    let whole = run(&demod, seed, core::iter::once(iq));
    check(&whole, &demod, seed, max_rep, (iq.len() / 2) as u64);

    let split = if flags & 8 != 0 {
        run(&demod, seed, iq.chunks(usize::from(head[2]) + 1))
    } else {
        let mut cuts = [0usize; 3];
        for (c, b) in cuts.iter_mut().zip(head[2..8].chunks_exact(2)) {
            *c = usize::from(u16::from_le_bytes([b[0], b[1]])) % (iq.len() + 1);
        }
        cuts.sort_unstable();
        let [a, b, c] = cuts;
        let blocks = [&iq[..a], &iq[a..b], &iq[b..c], &iq[c..]];
        run(&demod, seed, blocks.into_iter())
    };
    let (w, s): (Vec<_>, Vec<_>) = (
        whole.iter().map(key).collect(),
        split.iter().map(key).collect(),
    );
    assert_eq!(w, s, "one-shot and split runs differ");
});
