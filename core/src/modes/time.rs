//! Mode S time: the 12 MHz sample clock of the demodulator, the Beast
//! timestamp and MLAT, and its conversions.
//!
//! Two clocks meet in the receive chain:
//! - [`Ticks`]: a count of a 12 MHz clock from the first sample of the
//!   stream. Every supported sample rate divides 12 MHz, so a sample's time
//!   is exact: `ticks = samples · 12·10⁶ / rate`. Frames, Mode A/C replies
//!   and the demodulator's known-address set are stamped with it.
//! - the tracker's clock, milliseconds on any epoch the caller chooses
//!   (unix time for a live feeder, the stream's own time for a recording);
//!   [`Ticks::as_ms`] and [`Ticks::after_ms`] convert between the two.

/// A time on the 12 MHz Mode S clock: ticks since the stream's first
/// sample (an arbitrary epoch). One tick is 83.3 ns; `u64` lasts 48,700
/// years. Beast output keeps the low 48 bits (see
/// [`Timestamp`](super::encode::Timestamp)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Ticks(pub u64);

impl Ticks {
    /// Ticks per second: 12 MHz.
    pub const HZ: u64 = 12_000_000;
    /// Ticks per millisecond.
    pub const PER_MS: u64 = Self::HZ / 1000;
    /// The epoch (the first sample).
    pub const ZERO: Ticks = Ticks(0);

    /// The time of sample number `samples` at `rate_hz` samples per second
    /// (`rate_hz` a divisor of 12 MHz for an exact result; 0 gives 0):
    /// `samples · 12·10⁶ / rate_hz`, rounded down.
    ///
    /// ```
    /// use airwaves_core::modes::time::Ticks;
    /// assert_eq!(Ticks::from_samples(2_400_000, 2_400_000), Ticks(12_000_000));
    /// assert_eq!(Ticks::from_samples(3, 2_000_000).get(), 18);
    /// ```
    pub const fn from_samples(samples: u64, rate_hz: u32) -> Ticks {
        if rate_hz == 0 {
            return Ticks(0);
        }
        // 128-bit: samples · 12e6 overflows u64 after 48,700 years / rate
        // ratio, i.e. never for a real stream, but cheaply never.
        Ticks((samples as u128 * Self::HZ as u128 / rate_hz as u128) as u64)
    }

    /// `secs` whole seconds.
    pub const fn from_secs(secs: u64) -> Ticks {
        Ticks(secs.saturating_mul(Self::HZ))
    }

    /// `ms` whole milliseconds.
    pub const fn from_ms(ms: u64) -> Ticks {
        Ticks(ms.saturating_mul(Self::PER_MS))
    }

    /// The tick count.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Whole milliseconds since the epoch (rounded down).
    ///
    /// ```
    /// use airwaves_core::modes::time::Ticks;
    /// assert_eq!(Ticks(23_999).as_ms(), 1);
    /// ```
    pub const fn as_ms(self) -> u64 {
        self.0 / Self::PER_MS
    }

    /// The tracker time (ms) of this instant when the epoch was at
    /// `epoch_ms`: `epoch_ms + as_ms()`, saturating.
    ///
    /// ```
    /// use airwaves_core::modes::time::Ticks;
    /// assert_eq!(Ticks::from_secs(2).after_ms(1_700_000_000_000), 1_700_000_002_000);
    /// ```
    pub const fn after_ms(self, epoch_ms: u64) -> u64 {
        epoch_ms.saturating_add(self.as_ms())
    }

    /// Seconds since the epoch, as `f64` (exact below 2⁵³ ticks, 23 years).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / Self::HZ as f64
    }
}

impl core::ops::Add for Ticks {
    type Output = Ticks;
    fn add(self, rhs: Ticks) -> Ticks {
        Ticks(self.0.saturating_add(rhs.0))
    }
}

impl core::ops::Sub for Ticks {
    type Output = Ticks;
    /// The interval from `rhs` to `self`, 0 if `rhs` is later.
    fn sub(self, rhs: Ticks) -> Ticks {
        Ticks(self.0.saturating_sub(rhs.0))
    }
}

impl From<Ticks> for u64 {
    fn from(t: Ticks) -> u64 {
        t.0
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_conversions() {
        assert_eq!(Ticks::HZ, 12_000_000);
        assert_eq!(Ticks::PER_MS, 12_000);
        // Every rate that divides 12 MHz gives whole ticks per sample.
        for (rate, tps) in [(2_400_000, 5), (2_000_000, 6), (12_000_000, 1)] {
            assert_eq!(Ticks::from_samples(1, rate), Ticks(tps));
            assert_eq!(Ticks::from_samples(rate.into(), rate), Ticks::from_secs(1));
        }
        assert_eq!(Ticks::from_samples(5, 0), Ticks::ZERO);
        assert_eq!(Ticks::from_samples(u64::MAX, 12_000_000), Ticks(u64::MAX));
        assert_eq!(Ticks::from_ms(1500), Ticks(18_000_000));
        assert_eq!(Ticks::from_ms(1500).as_ms(), 1500);
        assert_eq!(Ticks(11_999).as_ms(), 0);
        assert_eq!(Ticks::from_secs(u64::MAX), Ticks(u64::MAX));
        assert_eq!(Ticks(5) - Ticks(7), Ticks::ZERO);
        assert_eq!(Ticks(5) + Ticks(7), Ticks(12));
        assert_eq!(Ticks(u64::MAX).after_ms(u64::MAX), u64::MAX);
        assert!((Ticks(18_000_000).as_secs_f64() - 1.5).abs() < 1e-12);
        assert_eq!(u64::from(Ticks(9)), 9);
    }
}
