//! CPR decoding on arbitrary fields, times and references: no panic, and
//! every position returned is a valid latitude/longitude.
#![no_main]

use airwaves_core::modes::cpr::{
    CprFrame, CprKind, Position, Reference, TimedFrame, decode_global_airborne,
    decode_global_surface, decode_local,
};
use libfuzzer_sys::fuzz_target;

fn u32_at(d: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([d[i], d[i + 1], d[i + 2], d[i + 3]])
}

fuzz_target!(|d: &[u8]| {
    if d.len() < 33 {
        return;
    }
    let kind = if d[32] & 1 == 0 {
        CprKind::Airborne
    } else {
        CprKind::Surface
    };
    let a = CprFrame::new(kind, false, u32_at(d, 0), u32_at(d, 4));
    let b = CprFrame::new(kind, true, u32_at(d, 8), u32_at(d, 12));
    let (ta, tb) = (u32_at(d, 16) as u64, u32_at(d, 20) as u64);
    let lat = (u32_at(d, 24) as f64 / u32::MAX as f64) * 180.0 - 90.0;
    let lon = (u32_at(d, 28) as f64 / u32::MAX as f64) * 360.0 - 180.0;
    let reference = Position::new(lat, lon);
    let check = |p: Position| assert!(p.is_valid(), "{p:?}");
    if let Ok(p) = decode_global_airborne(TimedFrame::new(a, ta), TimedFrame::new(b, tb)) {
        check(p);
    }
    if let Ok(p) = decode_global_surface(
        TimedFrame::new(a, ta),
        TimedFrame::new(b, tb),
        Reference::receiver(reference, 300.0),
        d[32] & 2 != 0,
    ) {
        check(p);
    }
    if let Ok(p) = decode_local(a, Reference::aircraft(reference)) {
        check(p);
    }
});
