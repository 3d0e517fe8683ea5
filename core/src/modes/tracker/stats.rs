//! The tracker's counters.

use super::outcome::RejectReason;

/// Tracker counters, monotonic (for `stats.json` / Prometheus).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TrackerStats {
    /// Frames given to [`Tracker::update`](super::Tracker::update), by the 5-bit DF code of their
    /// first byte (24–31 are all Comm-D), rejected ones included.
    pub frames_by_df: [u64; 32],
    /// Frames accepted.
    pub accepted: u64,
    /// Rejected: [`RejectReason::Length`] (or an empty buffer).
    pub rejected_length: u64,
    /// Rejected: [`RejectReason::Crc`].
    pub rejected_crc: u64,
    /// Rejected: [`RejectReason::UnknownAddress`].
    pub rejected_unknown_address: u64,
    /// Rejected: [`RejectReason::Unsupported`].
    pub rejected_unsupported: u64,
    /// Rejected: [`RejectReason::AltitudeJump`].
    pub rejected_altitude: u64,
    /// Rejected: [`RejectReason::VelocityJump`].
    pub rejected_velocity: u64,
    /// Positions from global (even/odd pair) decoding.
    pub positions_global: u64,
    /// Positions from local decoding relative to the aircraft.
    pub positions_local_aircraft: u64,
    /// Positions from local decoding relative to the receiver.
    pub positions_local_receiver: u64,
    /// Positions rejected by the speed check.
    pub positions_rejected_speed: u64,
    /// Positions rejected as beyond the receiver's range.
    pub positions_rejected_range: u64,
    /// CPR decodes that failed as inconsistent (latitude beyond ±90°, or
    /// local result more than half a zone from the reference).
    pub positions_rejected_bad: u64,
    /// Position states reset after repeated rejections.
    pub position_resets: u64,
    /// Aircraft added to the table.
    pub aircraft_added: u64,
    /// Aircraft removed because not heard for [`TrackerConfig::expiry_ms`](super::TrackerConfig::expiry_ms).
    pub aircraft_expired: u64,
    /// Aircraft evicted (oldest first) to make room in a full table.
    pub aircraft_evicted: u64,
    /// Aircraft removed (expired or evicted) after a single frame: most
    /// are addresses made up by bit errors that the parity did not catch
    /// (readsb's and dump1090's `tracks.single_message`).
    pub aircraft_single_message: u64,
}

impl TrackerStats {
    /// All counters zero.
    ///
    /// ```
    /// use airwaves_core::modes::tracker::TrackerStats;
    /// assert_eq!(TrackerStats::new().rejected(), 0);
    /// ```
    pub const fn new() -> Self {
        TrackerStats {
            frames_by_df: [0; 32],
            accepted: 0,
            rejected_length: 0,
            rejected_crc: 0,
            rejected_unknown_address: 0,
            rejected_unsupported: 0,
            rejected_altitude: 0,
            rejected_velocity: 0,
            positions_global: 0,
            positions_local_aircraft: 0,
            positions_local_receiver: 0,
            positions_rejected_speed: 0,
            positions_rejected_range: 0,
            positions_rejected_bad: 0,
            position_resets: 0,
            aircraft_added: 0,
            aircraft_expired: 0,
            aircraft_evicted: 0,
            aircraft_single_message: 0,
        }
    }

    /// Frames rejected, all reasons.
    pub fn rejected(&self) -> u64 {
        self.rejected_length
            + self.rejected_crc
            + self.rejected_unknown_address
            + self.rejected_unsupported
            + self.rejected_altitude
            + self.rejected_velocity
    }

    /// Positions decoded and accepted, all sources.
    pub fn positions(&self) -> u64 {
        self.positions_global + self.positions_local_aircraft + self.positions_local_receiver
    }

    /// Count one rejection under its reason.
    pub(super) fn count_reject(&mut self, r: RejectReason) {
        let c = match r {
            RejectReason::Length => &mut self.rejected_length,
            RejectReason::Crc => &mut self.rejected_crc,
            RejectReason::UnknownAddress => &mut self.rejected_unknown_address,
            RejectReason::Unsupported => &mut self.rejected_unsupported,
            RejectReason::AltitudeJump => &mut self.rejected_altitude,
            RejectReason::VelocityJump => &mut self.rejected_velocity,
        };
        *c += 1;
    }
}
