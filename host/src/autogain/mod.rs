//! Adaptive tuner gain: the 1090 MHz feeder's loop (`control`), the
//! audio receivers' headroom loop (`headroom`).

pub mod control;
pub mod harness;
pub mod headroom;

/// A decoded frame at or above this signal level (dBFS) is strong.
pub const STRONG_DBFS: f32 = -3.0;

/// A gain change, tenths of a dB, and why (`R`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change<R> {
    /// The gain before.
    pub from: i32,
    /// The gain now.
    pub to: i32,
    /// Why.
    pub reason: R,
}

impl<R: std::fmt::Display> std::fmt::Display for Change<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let dir = if self.to < self.from {
            "lowered"
        } else {
            "raised"
        };
        write!(
            f,
            "gain {dir} {:.1} → {:.1} dB: {}",
            f64::from(self.from) / 10.0,
            f64::from(self.to) / 10.0,
            self.reason
        )
    }
}
