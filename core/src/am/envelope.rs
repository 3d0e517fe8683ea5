//! Envelope (AM) detector: `y = |x|`.
//!
//! # Output SNR above threshold
//!
//! With `x = A (1 + m cos ωt) + n`, `n` complex white noise of density
//! `N₀` (W/Hz over the complex baseband) through the channel filter:
//! when `A ≫ |n|`, `|x| ≈ A (1 + m cos ωt) + n_I`, where the in-phase noise
//! `n_I = Re n` has density `N₀/2` on both sides of 0 Hz. The tone has
//! power `A² m² / 2`; the noise after an audio filter `H_a` is
//! `(N₀/2) ∫ |H_ch(f)|² |H_a(f)|² df` (over ±f). Defining the
//! carrier-to-noise ratio in a bandwidth `B` as `CNR = A² / (N₀ B)`:
//!
//! ```text
//! SNR = m² · CNR · B / B_a,     B_a = ∫ |H_ch(f) H_a(f)|² df  (two-sided, Hz)
//! ```
//!
//! With no audio filter, `B_a` is the channel's noise bandwidth `B_ch` and
//! `SNR = m² CNR_ch` (the CNR in the channel's own noise bandwidth). This
//! is the textbook `m² CNR B_ch / (2 W)` with `B_ch = 2W`. (The often-quoted
//! `m²/(2 + m²)` factor is the same result when the "signal" power is
//! counted with the carrier, `A²(1 + m²/2)`.) Below about 10 dB CNR in the
//! channel the envelope detector suffers the threshold effect (noise
//! multiplies the signal, `|x| ≈ |n|`); the synchronous detector
//! ([`super::sync`]) does not.

use crate::C32;
use crate::dsp::SplitProcess;

/// Envelope detector `|x|` (exact square root). Stateless: use `()` as
/// the state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EnvelopeDetector;

impl SplitProcess<C32, f32, ()> for EnvelopeDetector {
    #[inline]
    fn process(&self, _: &mut (), x: C32) -> f32 {
        libm::sqrtf(x.re * x.re + x.im * x.im)
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_magnitude() {
        let d = EnvelopeDetector;
        assert_eq!(d.process(&mut (), C32::new(3.0, -4.0)), 5.0);
        assert_eq!(d.process(&mut (), C32::new(0.0, 0.0)), 0.0);
    }
}
