//! Plausibility checks on one aircraft's new values: a barometric altitude
//! against the last one, a ground velocity against the last one, and the
//! speed limit a new position must respect (see the [module
//! docs](super#plausibility) for the tolerances).

use super::aircraft::{Aircraft, F_ALT, F_VEL, NONE_I32};
use super::config::TrackerConfig;
use super::outcome::RejectReason;
use crate::modes::cpr::{CprKind, SpeedCheck};

impl Aircraft {
    /// Fresh ground speed at `t`, kt.
    pub(super) fn fresh_gs(&self, t: u64, stale_ms: u64) -> Option<f32> {
        if self.flag(F_VEL) && t.saturating_sub(self.vel_t_ms) <= stale_ms && !self.gs.is_nan() {
            Some(self.gs)
        } else {
            None
        }
    }

    /// Check a barometric altitude against the last one (see the module
    /// docs); counts the rejection.
    pub(super) fn check_altitude(
        &mut self,
        alt: i32,
        t: u64,
        cfg: &TrackerConfig,
    ) -> Result<(), RejectReason> {
        if self.alt_baro == NONE_I32
            || !self.flag(F_ALT)
            || t.saturating_sub(self.alt_t_ms) > cfg.stale_ms
            || self.alt_rejects >= cfg.max_plausibility_rejects
        {
            return Ok(());
        }
        let dt_s = (t.saturating_sub(self.alt_t_ms) + cfg.time_uncertainty_ms) as f32 / 1000.0;
        let tol = (100.0 * dt_s).clamp(500.0, 5000.0);
        if (alt - self.alt_baro).unsigned_abs() as f32 > tol {
            self.alt_rejects = self.alt_rejects.saturating_add(1);
            return Err(RejectReason::AltitudeJump);
        }
        Ok(())
    }

    pub(super) fn set_altitude(&mut self, alt: i32, t: u64) {
        self.alt_baro = alt;
        self.alt_t_ms = t;
        self.alt_rejects = 0;
        self.flags |= F_ALT;
    }

    /// Check a ground velocity against the last one (see the module docs);
    /// counts the rejection.
    pub(super) fn check_velocity(
        &mut self,
        gs: f32,
        track: Option<f32>,
        t: u64,
        cfg: &TrackerConfig,
    ) -> Result<(), RejectReason> {
        let Some(prev) = self.fresh_gs(t, cfg.stale_ms) else {
            return Ok(());
        };
        if self.vel_rejects >= cfg.max_plausibility_rejects {
            return Ok(());
        }
        let dt_s = (t.saturating_sub(self.vel_t_ms) + cfg.time_uncertainty_ms) as f32 / 1000.0;
        let gs_tol = (5.0 * dt_s).clamp(20.0, 200.0);
        let mut bad = libm::fabsf(gs - prev) > gs_tol;
        if let (Some(trk), false) = (track, self.track.is_nan()) {
            if prev >= 50.0 {
                let d = libm::fabsf(libm::fmodf(trk - self.track + 540.0, 360.0) - 180.0);
                bad |= d > (10.0 * dt_s).clamp(20.0, 180.0);
            }
        }
        if bad {
            self.vel_rejects = self.vel_rejects.saturating_add(1);
            return Err(RejectReason::VelocityJump);
        }
        Ok(())
    }

    /// The speed limit for a new position of `kind` at `t`.
    pub(super) fn speed_check(
        &self,
        kind: CprKind,
        t: u64,
        cfg: &TrackerConfig,
        surface_kt: Option<f32>,
    ) -> SpeedCheck {
        match surface_kt.or_else(|| self.fresh_gs(t, cfg.stale_ms)) {
            Some(gs) => SpeedCheck::with_ground_speed(kind, f64::from(gs)),
            None => SpeedCheck::for_kind(kind),
        }
    }
}
