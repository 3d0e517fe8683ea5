//! BDS 6,0: heading and speed report (Enhanced Surveillance).

use super::infer::{AIRBORNE_ALT_FT, MIN_AIRBORNE_SPEED, angle_diff, require, status_evidence};
use super::isa;
use super::quantise::{ANGLE11_LSB, MACH_LSB, clamp_signed, clamp_unsigned, quantize, wrap_angle};
use super::{Bds, Context, Evidence, Register, Reject, field, inherent_codec};

/// BDS 6,0 — heading and speed report (Doc 9871 Table A-2-96).
///
/// | bits | field | unit, range |
/// |---|---|---|
/// | 1, 2–12 | status, magnetic heading (sign bit 2) | 90/512°, 0..360 |
/// | 13, 14–23 | status, indicated airspeed | 1 kt, 0..1023 |
/// | 24, 25–34 | status, Mach | 2.048/512, 0..4.092 |
/// | 35, 36–45 | status, barometric altitude rate (sign bit 36) | 32 ft/min, −16384..+16352 |
/// | 46, 47–56 | status, inertial vertical velocity (sign bit 47) | 32 ft/min |
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HeadingAndSpeed {
    /// Magnetic heading, degrees (0.0..360.0, LSB 90/512°).
    pub magnetic_heading: Option<f32>,
    /// Indicated airspeed, kt (0..=1023).
    pub indicated_airspeed: Option<u16>,
    /// Mach number (0.0..=4.092, LSB 0.004).
    pub mach: Option<f32>,
    /// Barometric altitude rate, ft/min (multiple of 32, −16384..=16352).
    pub baro_vertical_rate: Option<i16>,
    /// Inertial vertical velocity, ft/min (multiple of 32, −16384..=16352).
    pub inertial_vertical_rate: Option<i16>,
}

impl Register for HeadingAndSpeed {
    const BDS: Bds = Bds::HeadingAndSpeed;

    fn decode(w: u64) -> Self {
        use field::bds60::*;
        HeadingAndSpeed {
            magnetic_heading: HEADING.get(w).map(|v| v as f32 * ANGLE11_LSB),
            indicated_airspeed: IAS.get(w).map(|v| v as u16),
            mach: MACH.get(w).map(|v| v as f32 * MACH_LSB),
            baro_vertical_rate: BARO_RATE.get_signed(w).map(|v| (v * 32) as i16),
            inertial_vertical_rate: INERTIAL_RATE.get_signed(w).map(|v| (v * 32) as i16),
        }
    }

    fn encode(&self) -> u64 {
        use field::bds60::*;
        let rate = |r: i16| clamp_signed(quantize(r as f32, 32.0), 10);
        let mut w = HEADING.put(0, self.magnetic_heading.map(|h| wrap_angle(h, 11)));
        w = IAS.put(
            w,
            self.indicated_airspeed
                .map(|s| clamp_unsigned(s as i64, 10)),
        );
        w = MACH.put(
            w,
            self.mach
                .map(|m| clamp_unsigned(quantize(m, MACH_LSB) as i64, 10)),
        );
        w = BARO_RATE.put(w, self.baro_vertical_rate.map(rate));
        INERTIAL_RATE.put(w, self.inertial_vertical_rate.map(rate))
    }

    fn check(w: u64, ctx: &Context) -> Result<Evidence, Reject> {
        use field::bds60::*;
        let mut bits = status_evidence(w, &GATED)?;
        let h = HeadingAndSpeed::decode(w);
        if let Some(ias) = h.indicated_airspeed {
            require(ias <= 500, Reject::Range)?;
            bits += 1;
        }
        if let Some(m) = h.mach {
            require(m <= 1.0, Reject::Range)?;
            bits += 2;
        }
        for vr in [h.baro_vertical_rate, h.inertial_vertical_rate]
            .into_iter()
            .flatten()
        {
            require(vr.unsigned_abs() <= 6000, Reject::Range)?;
            bits += 1;
        }
        if let (Some(b), Some(i)) = (h.baro_vertical_rate, h.inertial_vertical_rate) {
            let d = (b as i32 - i as i32).unsigned_abs();
            require(d <= 2500, Reject::Consistency)?;
            bits += if d <= 500 { 4 } else { 1 };
        }
        // Static pressure implied by IAS and Mach together; checked in the
        // pressure domain, converted to an altitude only when needed.
        let mut implied = None;
        if let (Some(ias), Some(m)) = (h.indicated_airspeed, h.mach) {
            if ias >= 60 || m >= 0.1 {
                require(ias > 0 && m > 0.0, Reject::Consistency)?;
                let p = isa::implied_pressure(ias as f32, m);
                require((isa::P_MIN..=isa::P_MAX).contains(&p), Reject::Consistency)?;
                bits += 1;
                implied = Some(p);
            }
        }
        let implied = |ctx_needs: bool| implied.filter(|_| ctx_needs).map(isa::altitude);
        if let (Some(ias), Some(a)) = (h.indicated_airspeed, ctx.altitude_ft) {
            if a >= AIRBORNE_ALT_FT {
                require(ias >= MIN_AIRBORNE_SPEED, Reject::Context)?;
            }
        }
        let mut ctx_bits = 0;
        let need_alt = ctx.altitude_ft.is_some() || ctx.ground_speed_kt.is_some();
        let implied = implied(need_alt);
        if let (Some(ref_alt), Some(alt)) = (ctx.altitude_ft, implied) {
            require(libm::fabsf(alt - ref_alt) <= 2000.0, Reject::Context)?;
            ctx_bits += 4;
        }
        if let Some(ref_gs) = ctx.ground_speed_kt {
            let alt = ctx.altitude_ft.or(implied);
            let mach = match (h.mach, h.indicated_airspeed, alt) {
                (Some(m), _, _) => Some(m),
                (None, Some(ias), Some(a)) => Some(isa::cas_to_mach(ias as f32, a)),
                _ => None,
            };
            if let (Some(m), Some(a)) = (mach, alt) {
                let tas = m * isa::speed_of_sound_kt(a);
                require(libm::fabsf(tas - ref_gs) <= 200.0, Reject::Context)?;
                ctx_bits += 1;
            }
        }
        if let (Some(ref_trk), Some(hdg)) = (ctx.track_deg, h.magnetic_heading) {
            // Magnetic variation plus wind drift.
            require(angle_diff(hdg, ref_trk) <= 60.0, Reject::Context)?;
            ctx_bits += 2;
        }
        if let Some(ref_vr) = ctx.vertical_rate_fpm {
            for vr in [h.baro_vertical_rate, h.inertial_vertical_rate]
                .into_iter()
                .flatten()
            {
                require(libm::fabsf(vr as f32 - ref_vr) <= 1500.0, Reject::Context)?;
                ctx_bits += 2;
            }
        }
        Ok(Evidence {
            intrinsic: bits,
            context: ctx_bits,
        })
    }
}

inherent_codec! {
    HeadingAndSpeed;
    /// Decode (cannot fail once the length is checked).
    ///
    /// ```
    /// use airwaves_core::modes::commb::{HeadingAndSpeed, Mb};
    /// let mb = Mb::new_unchecked([0x8Fu8, 0x39, 0xF9, 0x1A, 0x7E, 0x27, 0xC4]);
    /// let h = HeadingAndSpeed::parse(&mb)?;
    /// assert_eq!(h.indicated_airspeed, Some(252));
    /// assert_eq!(h.baro_vertical_rate, Some(-1920));
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    parse;
    /// Encode into `mb`; values saturate to their field ranges, the
    /// heading wraps, vertical rates round to 32 ft/min.
    emit;
}
