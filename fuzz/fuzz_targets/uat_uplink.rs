//! UAT uplink parsing on arbitrary bytes: the header view, the
//! information frames, FIS-B APDU headers and DLAC text never panic; the
//! frames tile the application data (each within it, in order), APDU
//! times are in their fields' ranges, and DLAC output stays within its
//! buffer and the alphabet (tabs as spaces). Every APDU also goes
//! through the FIS-B products (`uat::fisb`): NEXRAD payloads that parse
//! have geometry within the globe and emit back to the bytes they were
//! read from (up to trailing bytes), and text records split without
//! panicking, each a trimmed part of the decoded text.
//!
//! Input layout: the uplink message's data bytes (432 expected; any
//! length is accepted).
#![no_main]

use airwaves_core::uat::fisb::nexrad::NexradPayload;
use airwaves_core::uat::fisb::{self, Product, text};
use airwaves_core::uat::uplink::{Apdu, Uplink, dlac};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let u = Uplink::new(data);
    let p = u.position();
    assert!(
        (-90.0..=90.0).contains(&p.lat) && (-180.0..180.0).contains(&p.lon),
        "{p:?}"
    );
    assert!(u.slot_id() < 32 && u.tisb_site_id() < 16);
    let mut used = 0;
    for f in u.info_frames() {
        assert!(f.kind < 16);
        used += 2 + f.data.len();
        assert!(used <= data.len().saturating_sub(8), "frames past the data");
        if f.kind != 0 {
            continue;
        }
        let Ok(a) = Apdu::parse(f.data) else { continue };
        assert!(a.product_id < 2048);
        assert!(a.time.hours < 32 && a.time.minutes < 64);
        if let Some((m, d)) = a.time.month_day {
            assert!(m < 16 && d < 32);
        }
        assert!(a.time.seconds.is_none_or(|s| s < 64));
        let mut out = [0u8; 256];
        let n = dlac::decode(a.payload, &mut out);
        assert!(n <= out.len());
        assert!(
            out[..n]
                .iter()
                .all(|c| c == &b' ' || dlac::ALPHABET.contains(c))
        );
        match fisb::classify(&a) {
            Ok(Product::Nexrad { payload, .. }) => check_nexrad(&payload, a.payload),
            Ok(Product::Text(_)) => {
                for r in text::records(&out[..n]) {
                    assert!(!r.text.is_empty() && r.text.trim() == r.text);
                    assert!(r.text.starts_with(r.kind));
                }
            }
            _ => {}
        }
    }
});

/// A parsed NEXRAD payload lies on the globe and re-emits to its bytes.
fn check_nexrad(p: &NexradPayload, bytes: &[u8]) {
    let h = p.header();
    if let Some(g) = h.geometry() {
        assert!((-90.0..=90.0).contains(&g.north_deg), "{g:?}");
        assert!((-180.0..180.0).contains(&g.west_deg), "{g:?}");
        assert!(g.height_deg > 0.0 && g.width_deg > 0.0);
    }
    let mut out = [0u8; 160];
    let n = p.emit(&mut out).expect("a parsed payload emits");
    let back = NexradPayload::parse(&out[..n]).expect("emitted bytes parse");
    assert_eq!(&back, p);
    if matches!(p, NexradPayload::Block(_)) {
        // Shortest runs: never longer than what was read.
        assert!(n <= bytes.len());
    }
}
