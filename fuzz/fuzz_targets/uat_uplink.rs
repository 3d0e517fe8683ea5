//! UAT uplink parsing on arbitrary bytes: the header view, the
//! information frames, FIS-B APDU headers and DLAC text never panic; the
//! frames tile the application data (each within it, in order), APDU
//! times are in their fields' ranges, and DLAC output stays within its
//! buffer and the alphabet (tabs as spaces).
//!
//! Input layout: the uplink message's data bytes (432 expected; any
//! length is accepted).
#![no_main]

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
    }
});
