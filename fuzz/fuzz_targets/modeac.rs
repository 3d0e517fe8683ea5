//! Mode A/C detector on arbitrary `cu8` bytes: nothing panics, the replies
//! do not depend on how the stream is split into blocks, and every reply
//! keeps the detector's contracts (a 13-bit code, squawk digits 0–7, a
//! Gillham altitude only where the code is valid, timestamps
//! non-decreasing and inside the stream).
//!
//! Input layout: byte 0 selects the rate (`b % 2`: 2.4 or 2.0 MS/s), bytes
//! 1–2 a little-endian cut point (modulo the I/Q length); the rest is
//! interleaved `I, Q` bytes.
#![no_main]

use airwaves_core::modes::modeac::{ModeAcDetector, ModeAcReply, ModeAcState};
use libfuzzer_sys::fuzz_target;

const HEADER: usize = 3;
const RATES: [u32; 2] = [2_400_000, 2_000_000];

fn key(r: &ModeAcReply) -> (u16, bool, u64, u32, bool) {
    (
        r.code,
        r.spi,
        r.timestamp.get(),
        r.signal_dbfs.to_bits(),
        r.garbled,
    )
}

fn run<'a>(d: &ModeAcDetector, blocks: impl Iterator<Item = &'a [u8]>) -> Vec<ModeAcReply> {
    let mut st = ModeAcState::new();
    let mut out = Vec::new();
    for b in blocks {
        d.process(&mut st, b, |r| out.push(*r));
    }
    d.finish(&mut st, |r| out.push(*r));
    out
}

fuzz_target!(|data: &[u8]| {
    if data.len() < HEADER {
        return;
    }
    let rate = RATES[usize::from(data[0] % 2)];
    let iq = &data[HEADER..];
    let cut = usize::from(u16::from_le_bytes([data[1], data[2]])) % (iq.len() + 1);
    let d = ModeAcDetector::new(rate).expect("supported rate");
    let whole = run(&d, core::iter::once(iq));
    let (a, b) = iq.split_at(cut);
    let split = run(&d, [a, b].into_iter());
    assert_eq!(
        whole.iter().map(key).collect::<Vec<_>>(),
        split.iter().map(key).collect::<Vec<_>>(),
        "block split changed the output (cut {cut})"
    );
    let ticks = u64::from(d.ticks_per_sample()) * (iq.len() / 2) as u64;
    let mut last = 0;
    for r in &whole {
        assert!(r.code < 1 << 13, "{r:?}");
        let sq = r.squawk();
        assert!((0..4).all(|k| (sq >> (4 * k)) & 0xF < 8), "{r:?}");
        if let Some(alt) = r.altitude_ft() {
            assert!((-1200..=127_000).contains(&alt), "{r:?}");
        }
        assert!(
            r.timestamp.get() >= last && r.timestamp.get() <= ticks,
            "{r:?}"
        );
        last = r.timestamp.get();
        let _ = r.to_bytes();
    }
});
