//! Beast and AVR input streams: arbitrary bytes never panic, and every
//! message that comes out has a valid Mode S length.
#![no_main]

use airwaves_core::modes::encode::{AvrDecoder, BeastDecoder, StreamDecoder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut beast = BeastDecoder::default();
    for m in beast.feed(data) {
        assert!(matches!(m.frame().len(), 2 | 7 | 14));
    }
    let mut avr = AvrDecoder::default();
    for m in avr.feed(data) {
        assert!(matches!(m.frame().len(), 2 | 7 | 14));
    }
});
