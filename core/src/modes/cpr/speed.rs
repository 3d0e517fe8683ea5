//! The speed plausibility check between two successive positions.

use super::distance::distance_nm;
use super::error::CprError;
use super::position::Position;
use super::zones::CprKind;

/// Plausibility limit on the speed between two successive positions of an
/// aircraft, to reject CRC-valid phantoms that decode far away. A move is
/// accepted if `distance ≤ max_speed_kt·Δt + slack_nm`; the slack absorbs
/// CPR quantisation and time-stamp jitter over short gaps.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SpeedCheck {
    /// Largest plausible ground speed, kt.
    pub max_speed_kt: f64,
    /// Distance always allowed regardless of time, NM.
    pub slack_nm: f64,
}

impl SpeedCheck {
    /// Airborne, ground speed unknown: 650 kt (≈ 1200 km/h), 0.1 NM slack.
    pub const AIRBORNE: SpeedCheck = SpeedCheck::new(650.0, 0.1);
    /// Surface, ground speed unknown: 200 kt (above any take-off roll; the
    /// surface movement field ends at 175 kt), 0.02 NM slack.
    pub const SURFACE: SpeedCheck = SpeedCheck::new(200.0, 0.02);
    /// Margin added to a known ground speed, airborne, kt.
    pub const AIRBORNE_MARGIN_KT: f64 = 100.0;
    /// Margin added to a known ground speed, surface, kt.
    pub const SURFACE_MARGIN_KT: f64 = 40.0;

    /// A limit of `max_speed_kt` with `slack_nm` always allowed.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::SpeedCheck;
    /// assert_eq!(SpeedCheck::new(650.0, 0.1), SpeedCheck::AIRBORNE);
    /// ```
    pub const fn new(max_speed_kt: f64, slack_nm: f64) -> Self {
        SpeedCheck {
            max_speed_kt,
            slack_nm,
        }
    }

    /// The fixed limit for a kind when the ground speed is unknown.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{CprKind, SpeedCheck};
    /// assert_eq!(SpeedCheck::for_kind(CprKind::Surface), SpeedCheck::SURFACE);
    /// ```
    pub const fn for_kind(kind: CprKind) -> Self {
        match kind {
            CprKind::Airborne => Self::AIRBORNE,
            CprKind::Surface => Self::SURFACE,
        }
    }

    /// A limit from a known ground speed (kt): `gs + margin` with
    /// [`Self::AIRBORNE_MARGIN_KT`] or [`Self::SURFACE_MARGIN_KT`], and the
    /// kind's slack. A negative or NaN speed counts as 0.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{CprKind, SpeedCheck};
    /// assert_eq!(SpeedCheck::with_ground_speed(CprKind::Airborne, 445.0).max_speed_kt, 545.0);
    /// ```
    pub fn with_ground_speed(kind: CprKind, gs_kt: f64) -> Self {
        let gs = if gs_kt > 0.0 { gs_kt } else { 0.0 };
        let base = Self::for_kind(kind);
        let margin = match kind {
            CprKind::Airborne => Self::AIRBORNE_MARGIN_KT,
            CprKind::Surface => Self::SURFACE_MARGIN_KT,
        };
        SpeedCheck::new(gs + margin, base.slack_nm)
    }

    /// How long an aircraft's own position stays usable as a local
    /// decoding reference, ms: the time to fly half a latitude zone
    /// (3° ≈ 180 NM airborne, 0.75° ≈ 45 NM surface) at `max_speed_kt`.
    /// Beyond it the aircraft may have left the zone, and local decoding
    /// would silently return a wrong position (still within half a zone of
    /// the reference, so nothing rejects it): re-acquire with a global pair.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{CprKind, SpeedCheck};
    /// let ms = SpeedCheck::AIRBORNE.max_reference_age_ms(CprKind::Airborne);
    /// assert_eq!(ms, 996_923); // 180 NM at 650 kt ≈ 16.6 min
    /// ```
    pub fn max_reference_age_ms(&self, kind: CprKind) -> u64 {
        let half_zone_nm = kind.half_zone_nm();
        // Saturating: a zero or negative speed gives u64::MAX, NaN 0.
        (half_zone_nm / self.max_speed_kt * 3_600_000.0) as u64
    }

    /// Accept the move from `prev` (at `t_prev_ms`) to `new` (at
    /// `t_new_ms`), or reject it with [`CprError::SpeedExceeded`]. NaN
    /// positions are rejected.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{Position, SpeedCheck};
    /// let a = Position::new(52.0, 4.0);
    /// let b = Position::new(52.01, 4.0); // 0.6 NM
    /// assert!(SpeedCheck::AIRBORNE.check(a, 0, b, 5_000).is_ok());
    /// assert!(SpeedCheck::AIRBORNE.check(a, 0, b, 1_000).is_err());
    /// ```
    pub fn check(
        &self,
        prev: Position,
        t_prev_ms: u64,
        new: Position,
        t_new_ms: u64,
    ) -> Result<(), CprError> {
        let dt_h = t_prev_ms.abs_diff(t_new_ms) as f64 / 3_600_000.0;
        let allowed = self.max_speed_kt * dt_h + self.slack_nm;
        if distance_nm(prev, new) <= allowed {
            Ok(())
        } else {
            Err(CprError::SpeedExceeded)
        }
    }
}
