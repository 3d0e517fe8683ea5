//! Mode S frame: parse → emit → parse must agree, and nothing panics.
#![no_main]

use airwaves_core::modes::frame::{Frame, Repr};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(frame) = Frame::new_checked(data) else {
        return;
    };
    // Every accessor must be total on a checked frame.
    let _ = (
        frame.df(),
        frame.address(),
        frame.altitude_ft(),
        frame.squawk(),
    );
    let Ok(repr) = Repr::parse(&frame) else {
        return;
    };
    let mut buf = [0u8; 14];
    let out = &mut buf[..repr.buffer_len()];
    repr.emit(&mut Frame::new_unchecked(&mut *out))
        .expect("emit into buffer_len bytes");
    let again = Repr::parse(&Frame::new_unchecked(&*out)).expect("re-parse of emitted frame");
    assert_eq!(repr, again);
});
