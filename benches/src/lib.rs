//! Workloads shared by the criterion benches and the instruction counter.
//!
//! Each module lists [`Case`]s: a named primitive run over `n` input
//! samples. `src/bin/ips.rs` runs one case under callgrind at two lengths and
//! reports the marginal instructions per input sample; the criterion benches
//! time the same calls.

pub mod fir;
pub mod fm;
pub mod iir;
pub mod input;
pub mod level;
pub mod modes;
pub mod peers;
pub mod phase;

/// One benchmarked primitive.
pub struct Case {
    /// Stable name, e.g. `fir/q15/sym63`.
    pub name: &'static str,
    /// Run the primitive over `n` input samples (set-up included; the
    /// instruction counter subtracts it by differencing two lengths).
    /// Returns a value derived from the output so nothing is optimised away.
    pub run: fn(n: usize) -> u64,
}

/// Every case, in a stable order.
pub fn all_cases() -> impl Iterator<Item = &'static Case> {
    input::CASES
        .iter()
        .chain(fir::CASES)
        .chain(iir::CASES)
        .chain(phase::CASES)
        .chain(modes::CASES)
        .chain(level::CASES)
        .chain(fm::CASES)
}

/// Input samples per block call in every sample-based workload.
pub const BLOCK: usize = 4096;

/// Run `f(input[..k·m], output[..m])` over `n` samples in blocks of
/// [`BLOCK`] samples (`k` input elements per sample); return `sum` of the
/// first output, a checksum that keeps the work from being optimised away.
pub fn blocks<X, Y: Default + Clone>(
    n: usize,
    x: &[X],
    k: usize,
    mut f: impl FnMut(&[X], &mut [Y]),
    sum: impl Fn(&Y) -> u64,
) -> u64 {
    let mut y = vec![Y::default(); BLOCK];
    let mut left = n;
    while left > 0 {
        let m = left.min(BLOCK);
        f(std::hint::black_box(&x[..k * m]), &mut y[..m]);
        std::hint::black_box(&mut y);
        left -= m;
    }
    sum(&y[0])
}

/// A deterministic pseudo-random byte stream (xorshift32) for workloads.
pub fn noise_u8(seed: u32, out: &mut [u8]) {
    let mut s = seed | 1;
    for b in out.iter_mut() {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        *b = (s >> 24) as u8;
    }
}
