//! Positions: the fix kept for an aircraft, and the CPR logic that makes
//! one from position messages (global pairing, local decoding relative to
//! the aircraft or the receiver, range and speed checks, reset after
//! repeated rejections; see the [module docs](super#positions)).

use super::aircraft::{Aircraft, CprSlot, F_CPR_EVEN, F_CPR_ODD, F_POS, F_POS_SURFACE, cpr_flags};
use super::config::TrackerConfig;
use super::outcome::PositionUpdate;
use super::stats::TrackerStats;
use crate::modes::adsb::CprPosition;
use crate::modes::cpr::{
    self, CprError, CprFrame, CprKind, Position, Reference, SpeedCheck, TimedFrame,
};

/// How a position was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PositionSource {
    /// Global decoding of an even/odd pair.
    Global,
    /// Local decoding relative to the aircraft's previous position.
    LocalAircraft,
    /// Local decoding relative to the receiver's location.
    LocalReceiver,
}

/// An aircraft's position with its time and provenance.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PositionFix {
    /// Latitude and longitude, degrees (CPR resolution ≈ 5 m airborne,
    /// 1.3 m surface).
    pub position: Position,
    /// Reception time of the frame that gave it, ms.
    pub t_ms: u64,
    /// How it was decoded.
    pub source: PositionSource,
    /// From an airborne or a surface position message.
    pub kind: CprKind,
}

impl Aircraft {
    pub(super) fn store_cpr(&mut self, f: TimedFrame) {
        let odd = f.frame.odd();
        let (valid, surface) = cpr_flags(odd);
        self.flags |= valid;
        self.set_flag(surface, f.frame.kind() == CprKind::Surface);
        self.cpr[usize::from(odd)] = CprSlot {
            t_ms: f.t_ms,
            lat: f.frame.lat(),
            lon: f.frame.lon(),
        };
    }

    pub(super) fn drop_cpr(&mut self, odd: bool) {
        self.flags &= !cpr_flags(odd).0;
    }

    pub(super) fn reset_position(&mut self) {
        self.flags &= !(F_POS | F_CPR_EVEN | F_CPR_ODD);
        self.pos_rejects = 0;
    }

    /// Handle one CPR position frame; see the module docs.
    pub(super) fn update_position(
        &mut self,
        cfg: &TrackerConfig,
        stats: &mut TrackerStats,
        kind: CprKind,
        cpr: CprPosition,
        t: u64,
        surface_kt: Option<f32>,
    ) -> PositionUpdate {
        let odd = cpr.format.is_odd();
        let new = TimedFrame::new(CprFrame::new(kind, odd, cpr.lat, cpr.lon), t);
        self.store_cpr(new);
        let check = self.speed_check(kind, t, cfg, surface_kt);
        let own = self.position();

        // 1. Global, from a pair of the same kind.
        let mut attempt: Option<(PositionSource, Result<Position, CprError>)> = None;
        if let Some(other) = self.cpr_frame(!odd) {
            if other.frame.kind() == kind && other.t_ms <= t {
                let global = match kind {
                    CprKind::Airborne => Some(cpr::decode_global_airborne(other, new)),
                    CprKind::Surface => {
                        let reference = match (cfg.receiver, own) {
                            (Some(rx), _) => Some(Reference::receiver(rx, cfg.max_range_nm)),
                            (None, Some(fix)) => Some(Reference::aircraft(fix.position)),
                            (None, None) => None,
                        };
                        let slow = surface_kt
                            .or_else(|| self.fresh_gs(t, cfg.stale_ms))
                            .is_some_and(|v| f64::from(v) <= cpr::SURFACE_SLOW_KT);
                        reference.map(|r| cpr::decode_global_surface(other, new, r, slow))
                    }
                };
                // Other errors (too old, zone crossing, no reference): try
                // local decoding.
                if let Some(r @ (Ok(_) | Err(CprError::InvalidLatitude | CprError::OutOfRange))) =
                    global
                {
                    attempt = Some((PositionSource::Global, r));
                }
            }
        }

        // 2./3. Local, relative to the aircraft, else to the receiver.
        if attempt.is_none() {
            let max_age = check.max_reference_age_ms(kind);
            if let Some(fix) = own.filter(|f| t.saturating_sub(f.t_ms) <= max_age) {
                let r = cpr::decode_local(new.frame, Reference::aircraft(fix.position));
                attempt = Some((PositionSource::LocalAircraft, r));
            } else if let (Some(rx), true) = (cfg.receiver, cfg.receiver_local_range_nm > 0.0) {
                let range = cfg.receiver_local_range_nm.min(kind.half_zone_nm());
                let r = cpr::decode_local(new.frame, Reference::receiver(rx, range));
                attempt = Some((PositionSource::LocalReceiver, r));
            }
        }
        let Some((source, decoded)) = attempt else {
            return PositionUpdate::Pending;
        };

        // Plausibility: range from the receiver, speed from the last fix.
        let verdict = decoded.and_then(|p| {
            if let Some(rx) = cfg.receiver {
                if cfg.max_range_nm.is_finite() && cpr::distance_nm(rx, p) > cfg.max_range_nm {
                    return Err(CprError::OutOfRange);
                }
            }
            match own {
                Some(fix) => {
                    let jitter_h = cfg.time_uncertainty_ms as f64 / 3_600_000.0;
                    let widened = SpeedCheck::new(
                        check.max_speed_kt,
                        check.slack_nm + check.max_speed_kt * jitter_h,
                    );
                    widened.check(fix.position, fix.t_ms, p, t).map(|()| p)
                }
                None => Ok(p),
            }
        });
        match verdict {
            Ok(p) => {
                self.pos = p;
                self.pos_t_ms = t;
                self.pos_source = source;
                if source == PositionSource::Global {
                    // Only an independent pair vouches for the track: local
                    // results follow the reference, right or wrong.
                    self.pos_rejects = 0;
                }
                self.flags |= F_POS;
                self.set_flag(F_POS_SURFACE, kind == CprKind::Surface);
                match source {
                    PositionSource::Global => stats.positions_global += 1,
                    PositionSource::LocalAircraft => stats.positions_local_aircraft += 1,
                    PositionSource::LocalReceiver => stats.positions_local_receiver += 1,
                }
                PositionUpdate::Decoded(source)
            }
            Err(e) => {
                match e {
                    CprError::SpeedExceeded => stats.positions_rejected_speed += 1,
                    CprError::OutOfRange => stats.positions_rejected_range += 1,
                    _ => stats.positions_rejected_bad += 1,
                }
                // Drop the frame (and the partner of a global pair) so
                // that it cannot pair again.
                self.drop_cpr(odd);
                if source == PositionSource::Global {
                    self.drop_cpr(!odd);
                }
                let against_own = e == CprError::SpeedExceeded
                    || (e == CprError::TooFarFromReference
                        && source == PositionSource::LocalAircraft);
                if against_own {
                    self.pos_rejects = self.pos_rejects.saturating_add(1);
                    if self.pos_rejects >= cfg.position_max_rejects {
                        self.reset_position();
                        stats.position_resets += 1;
                    }
                }
                PositionUpdate::Rejected(e)
            }
        }
    }
}
