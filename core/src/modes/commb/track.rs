//! BDS 5,0: track and turn report (Enhanced Surveillance).

use super::infer::{AIRBORNE_ALT_FT, MIN_AIRBORNE_SPEED, angle_diff, require, status_evidence};
use super::quantise::{
    ANGLE11_LSB, ROLL_LSB, TRACK_RATE_LSB, clamp_signed, clamp_unsigned, quantize, wrap_angle,
};
use super::{Bds, Context, Evidence, Register, Reject, field, inherent_codec};

/// BDS 5,0 — track and turn report (Doc 9871 Table A-2-80).
///
/// | bits | field | unit, range |
/// |---|---|---|
/// | 1, 2–11 | status, roll angle (sign bit 2; + = right wing down) | 45/256°, −90..+90 |
/// | 12, 13–23 | status, true track angle (sign bit 13) | 90/512°, 0..360 |
/// | 24, 25–34 | status, ground speed | 2 kt, 0..2046 |
/// | 35, 36–45 | status, track angle rate (sign bit 36; + = turning right) | 8/256 °/s, −16..+16 |
/// | 46, 47–56 | status, true airspeed | 2 kt, 0..2046 |
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TrackAndTurn {
    /// Roll angle, degrees (−90.0..=89.82, LSB 45/256°).
    pub roll: Option<f32>,
    /// True track angle, degrees (0.0..360.0, LSB 90/512°).
    pub true_track: Option<f32>,
    /// Ground speed, kt (even, 0..=2046).
    pub ground_speed: Option<u16>,
    /// Track angle rate, °/s (−16.0..=15.97, LSB 1/32 °/s).
    pub track_rate: Option<f32>,
    /// True airspeed, kt (even, 0..=2046).
    pub true_airspeed: Option<u16>,
}

impl Register for TrackAndTurn {
    const BDS: Bds = Bds::TrackAndTurn;

    fn decode(w: u64) -> Self {
        use field::bds50::*;
        TrackAndTurn {
            roll: ROLL.get_signed(w).map(|v| v as f32 * ROLL_LSB),
            true_track: TRACK.get(w).map(|v| v as f32 * ANGLE11_LSB),
            ground_speed: GS.get(w).map(|v| (v * 2) as u16),
            track_rate: TRACK_RATE.get_signed(w).map(|v| v as f32 * TRACK_RATE_LSB),
            true_airspeed: TAS.get(w).map(|v| (v * 2) as u16),
        }
    }

    fn encode(&self) -> u64 {
        use field::bds50::*;
        let speed = |s: u16| clamp_unsigned((s as i64 + 1) / 2, 10);
        let mut w = ROLL.put(
            0,
            self.roll.map(|r| clamp_signed(quantize(r, ROLL_LSB), 10)),
        );
        w = TRACK.put(w, self.true_track.map(|t| wrap_angle(t, 11)));
        w = GS.put(w, self.ground_speed.map(speed));
        w = TRACK_RATE.put(
            w,
            self.track_rate
                .map(|r| clamp_signed(quantize(r, TRACK_RATE_LSB), 10)),
        );
        TAS.put(w, self.true_airspeed.map(speed))
    }

    fn check(w: u64, ctx: &Context) -> Result<Evidence, Reject> {
        use field::bds50::*;
        let mut bits = status_evidence(w, &GATED)?;
        let t = TrackAndTurn::decode(w);
        if let Some(roll) = t.roll {
            require(libm::fabsf(roll) <= 50.0, Reject::Range)?;
            bits += 1;
        }
        if let Some(gs) = t.ground_speed {
            require(gs <= 700, Reject::Range)?;
            bits += 2;
        }
        if let Some(tas) = t.true_airspeed {
            require(tas <= 560, Reject::Range)?;
            bits += 2;
        }
        if let (Some(gs), Some(tas)) = (t.ground_speed, t.true_airspeed) {
            // The difference is the wind component along the track.
            require(gs.abs_diff(tas) <= 200, Reject::Consistency)?;
            bits += 1;
        }
        if let (Some(roll), Some(rate), Some(v)) =
            (t.roll, t.track_rate, t.true_airspeed.or(t.ground_speed))
        {
            // Coordinated turn: rate = g·tan(roll)/V = 1091·tan(roll)/V[kt] °/s.
            if v >= 50 {
                let expected =
                    1091.0 * libm::tanf(roll * (core::f32::consts::PI / 180.0)) / v as f32;
                if libm::fabsf(rate - expected) <= 0.5 + 0.25 * libm::fabsf(expected) {
                    bits += 4;
                }
            }
        }
        if ctx.altitude_ft.is_some_and(|a| a >= AIRBORNE_ALT_FT) {
            for v in [t.ground_speed, t.true_airspeed].into_iter().flatten() {
                require(v >= MIN_AIRBORNE_SPEED, Reject::Context)?;
            }
        }
        let mut ctx_bits = 0;
        if let Some(ref_gs) = ctx.ground_speed_kt {
            if let Some(gs) = t.ground_speed {
                require(libm::fabsf(gs as f32 - ref_gs) <= 30.0, Reject::Context)?;
                ctx_bits += 3;
            } else if let Some(tas) = t.true_airspeed {
                require(libm::fabsf(tas as f32 - ref_gs) <= 200.0, Reject::Context)?;
                ctx_bits += 1;
            }
        }
        if let (Some(ref_trk), Some(trk)) = (ctx.track_deg, t.true_track) {
            require(angle_diff(trk, ref_trk) <= 20.0, Reject::Context)?;
            ctx_bits += 3;
        }
        Ok(Evidence {
            intrinsic: bits,
            context: ctx_bits,
        })
    }
}

inherent_codec! {
    TrackAndTurn;
    /// Decode (cannot fail once the length is checked).
    ///
    /// ```
    /// use airwaves_core::modes::commb::{Mb, TrackAndTurn};
    /// let mb = Mb::new_unchecked([0x81u8, 0x95, 0x15, 0x36, 0xE0, 0x24, 0xD4]);
    /// let t = TrackAndTurn::parse(&mb)?;
    /// assert_eq!(t.roll, Some(2.109375));
    /// assert_eq!(t.ground_speed, Some(438));
    /// assert_eq!(t.true_airspeed, Some(424));
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    parse;
    /// Encode into `mb`; roll and track rate saturate, the track wraps,
    /// speeds round up to even knots and saturate at 2046 kt.
    emit;
}
