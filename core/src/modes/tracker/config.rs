//! The tracker's settings.

use crate::modes::cpr::Position;

/// Tracker settings (`&self` configuration, kept apart from the table).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TrackerConfig {
    /// The receiver's location: the reference for surface global decoding,
    /// the centre of the [`max_range_nm`](Self::max_range_nm) check, and
    /// the reference for receiver-relative local decoding. `None`: no range
    /// check, and surface positions need the aircraft's own last position.
    pub receiver: Option<Position>,
    /// Positions farther than this from the receiver are rejected, NM
    /// (default 300; `f64::INFINITY` disables the check).
    pub max_range_nm: f64,
    /// Local decoding relative to the receiver (for aircraft without a
    /// global fix) for aircraft within this range, NM; capped at half a
    /// zone (180 NM airborne, 45 NM surface). 0 (default) disables it: a
    /// single frame then never gives a position without a previous fix.
    pub receiver_local_range_nm: f64,
    /// Remove aircraft not heard for this long, ms (default 60 000).
    pub expiry_ms: u64,
    /// Drop positions and velocities older than this, ms (default 60 000).
    pub stale_ms: u64,
    /// An address stays [known](super::Tracker::is_known) this long after its last
    /// trusted DF11/17/18, ms (default 60 000; effectively at most
    /// [`expiry_ms`](Self::expiry_ms)).
    pub known_ms: u64,
    /// A DF11/17/18 with at most this many repaired bits is trusted: it can
    /// add an aircraft and makes its address known (default 0: only frames
    /// received without error).
    pub trusted_repaired_bits: u8,
    /// Time-stamp uncertainty, ms (default 1000), added to Δt in the speed
    /// check (a move is accepted up to `max_speed·(Δt + uncertainty) +
    /// slack`) and in the altitude and velocity tolerances. Covers
    /// receivers that stamp frames coarsely (e.g. whole seconds) or late.
    pub time_uncertainty_ms: u64,
    /// Consecutive implausible altitudes (or ground velocities) rejected
    /// before the next one is accepted as the new reference (default 2).
    pub max_plausibility_rejects: u8,
    /// Positions rejected against the aircraft's last position (speed
    /// check, or more than half a zone away) with no global decode passing
    /// in between, after which its position state is reset (default 4).
    pub position_max_rejects: u8,
}

impl TrackerConfig {
    /// The defaults: no receiver location, 300 NM range, no
    /// receiver-relative decoding, 60 s expiry, staleness and known-address
    /// window, only error-free frames trusted, 1 s time uncertainty, 2
    /// plausibility rejects, 4 position rejects.
    ///
    /// ```
    /// use airwaves_core::modes::tracker::TrackerConfig;
    /// assert_eq!(TrackerConfig::DEFAULT.expiry_ms, 60_000);
    /// assert_eq!(TrackerConfig::default(), TrackerConfig::DEFAULT);
    /// ```
    pub const DEFAULT: TrackerConfig = TrackerConfig {
        receiver: None,
        max_range_nm: 300.0,
        receiver_local_range_nm: 0.0,
        expiry_ms: 60_000,
        stale_ms: 60_000,
        known_ms: 60_000,
        trusted_repaired_bits: 0,
        time_uncertainty_ms: 1_000,
        max_plausibility_rejects: 2,
        position_max_rejects: 4,
    };

    /// The defaults with a receiver location.
    ///
    /// ```
    /// use airwaves_core::modes::{cpr::Position, tracker::TrackerConfig};
    /// let c = TrackerConfig::with_receiver(Position::new(52.0, 4.0));
    /// assert_eq!(c.receiver, Some(Position::new(52.0, 4.0)));
    /// ```
    pub const fn with_receiver(receiver: Position) -> Self {
        TrackerConfig {
            receiver: Some(receiver),
            ..Self::DEFAULT
        }
    }
}

impl Default for TrackerConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}
