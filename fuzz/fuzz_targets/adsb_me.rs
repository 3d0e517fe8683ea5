//! ADS-B ME field: parse → emit → parse must agree, and nothing panics.
#![no_main]

use airwaves_core::modes::adsb::AdsbRepr;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(repr) = AdsbRepr::parse(data) else {
        return;
    };
    let bytes = repr.to_bytes();
    let again = AdsbRepr::parse(&bytes).expect("re-parse of emitted ME");
    assert_eq!(repr, again);
});
