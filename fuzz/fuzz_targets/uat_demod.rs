//! UAT demodulator on arbitrary `cu8` bytes: nothing panics, the messages
//! do not depend on how the stream is split into blocks, and every
//! message keeps the demodulator's contracts (18, 34 or 432 bytes, the
//! right payload type for its length, sample indices increasing and
//! inside the stream, at most the code's correction capacity); each
//! downlink message parses, and its parse emits back to the same bytes
//! where the payload type carries only the elements parsed.
//!
//! Input layout: bytes 0–1 a little-endian cut point (modulo the I/Q
//! length); the rest is interleaved `I, Q` bytes at 2.083333 MS/s.
#![no_main]

use airwaves_core::uat::adsb::{Downlink, DownlinkRepr};
use airwaves_core::uat::demod::{DemodState, Demodulator, Link, Message};
use libfuzzer_sys::fuzz_target;

const HEADER: usize = 2;

fn run<'a>(d: &Demodulator, blocks: impl Iterator<Item = &'a [u8]>) -> Vec<Message> {
    let mut st = Box::new(DemodState::<16_384>::new());
    let mut out = Vec::new();
    for b in blocks {
        d.process(&mut st, b, |m| out.push(m.clone()));
    }
    d.finish(&mut st, |m| out.push(m.clone()));
    out
}

fuzz_target!(|data: &[u8]| {
    if data.len() < HEADER {
        return;
    }
    let iq = &data[HEADER..];
    let cut = usize::from(u16::from_le_bytes([data[0], data[1]])) % (iq.len() + 1);
    let d = Demodulator::new();
    let whole = run(&d, core::iter::once(iq));
    let (a, b) = iq.split_at(cut);
    assert_eq!(
        whole,
        run(&d, [a, b].into_iter()),
        "block split changed the output (cut {cut})"
    );
    let samples = (iq.len() / 2) as u64;
    let mut last = None;
    for m in &whole {
        let bytes = m.bytes();
        match (m.link, bytes.len()) {
            (Link::Downlink, 18) => assert_eq!(bytes[0] >> 3, 0, "basic with type"),
            (Link::Downlink, 34) => assert_ne!(bytes[0] >> 3, 0, "long of type 0"),
            (Link::Uplink, 432) => {}
            other => panic!("{other:?}"),
        }
        assert!(m.sample < samples, "{m:?}");
        assert!(last.is_none_or(|l| m.sample > l), "out of order: {m:?}");
        last = Some(m.sample);
        let capacity = match bytes.len() {
            18 => 12,
            34 => 14,
            _ => 6 * 20,
        };
        assert!(usize::from(m.errors) <= capacity, "{m:?}");
        assert!(m.rssi_dbfs.is_finite() && m.rssi_dbfs <= 3.1, "{m:?}");
        if m.link == Link::Downlink {
            let view = Downlink::new_checked(bytes).expect("length fits the type");
            let repr = DownlinkRepr::parse(&view).expect("parses");
            let mut again = vec![0u8; repr.buffer_len()];
            repr.emit(&mut Downlink::new_unchecked(&mut again[..]));
            let back = DownlinkRepr::parse(&Downlink::new_checked(&again[..]).unwrap()).unwrap();
            assert_eq!(back.address, repr.address);
            assert_eq!(back.payload_type, repr.payload_type);
        }
    }
});
