//! Instruction-count workload for the gain loop's level meter
//! (`airwaves_core::modes::level`), on the same receiver noise as the
//! demodulator's noise cases, so the two read side by side.

use crate::Case;
use airwaves_core::modes::level::{LevelMeter, LevelState};

/// Bytes per `block` call (one ring buffer of the feeder is 64× more).
const BLOCK: usize = 4096;

/// The meter over `n` samples of Gaussian receiver noise.
fn meter(n: usize) -> u64 {
    let mut src = vec![0u8; 1 << 18];
    crate::modes::gauss_u8(7, &mut src);
    let mut st = LevelState::new();
    let mut left = 2 * n;
    let mut pos = 0;
    while left > 0 {
        let k = left.min(BLOCK).min(src.len() - pos);
        LevelMeter::RTL_SDR.block(&mut st, std::hint::black_box(&src[pos..pos + k]));
        left -= k;
        pos = (pos + k) % src.len();
    }
    let s = st.stats();
    u64::from(s.noise_floor(50)) + s.samples()
}

/// The level meter cases.
pub static CASES: &[Case] = &[Case {
    name: "modes/level-meter/2400k-noise-gauss",
    run: meter,
}];
