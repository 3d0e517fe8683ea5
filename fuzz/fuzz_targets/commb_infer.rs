//! Comm-B inference and every register parser on arbitrary MB fields.
#![no_main]

use airwaves_core::modes::commb::{Context, Mb, infer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(mb) = Mb::new_checked(data) else {
        return;
    };
    let _ = infer(&mb, &Context::default());
    let ctx = Context {
        altitude_ft: Some(30_000.0),
        meteorological: true,
        ..Context::default()
    };
    if let Ok(inf) = infer(&mb, &ctx) {
        assert!(inf.candidates().len() <= 8);
    }
});
