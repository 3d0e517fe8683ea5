//! TC 19: airborne velocity (BDS 0,9).

use super::{field, get, put};

/// Airborne velocity, TC 19 subtypes 1–4 (BDS 0,9).
///
/// | ME bits | field |
/// |---|---|
/// | 1–5 | TC = 19 |
/// | 6–8 | subtype: 1/2 ground speed (normal/supersonic), 3/4 airspeed |
/// | 9 | intent change flag |
/// | 10 | IFR capability (reserved-A in version 2) |
/// | 11–13 | NACv (NUCr in version 0) |
/// | 14–35 | [`Velocity`], subtype-specific |
/// | 36 | vertical-rate source: **0 GNSS, 1 barometric** |
/// | 37 | vertical-rate sign, 1 = down |
/// | 38–46 | vertical rate, 64 ft/min × (code − 1), 0 = n/a |
/// | 47–48 | reserved |
/// | 49 | GNSS−baro sign, 1 = GNSS below baro |
/// | 50–56 | GNSS−baro difference, 25 ft × (code − 1), 0 = n/a |
///
/// ```
/// use airwaves_core::modes::adsb::*;
/// let v = AirborneVelocity {
///     intent_change: false,
///     ifr_capability: true,
///     nac_v: 0,
///     velocity: Velocity::Ground(GroundVelocity { supersonic: false, west: true, ew: 9, south: true, ns: 160 }),
///     vertical_rate: VerticalRate { source: VerticalRateSource::Gnss, down: true, code: 14 },
///     gnss_baro_diff: AltitudeDifference { below: false, code: 23 },
/// };
/// assert_eq!(AdsbRepr::AirborneVelocity(v).to_bytes(), [0x99, 0x44, 0x09, 0x94, 0x08, 0x38, 0x17]);
/// assert_eq!(v.gnss_baro_diff.ft(), Some(550));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AirborneVelocity {
    /// Intent change flag (ME bit 9).
    pub intent_change: bool,
    /// IFR capability flag (ME bit 10; reserved-A in version 2).
    pub ifr_capability: bool,
    /// NACv (NUCr in version 0), 3 bits, 0 = unknown.
    pub nac_v: u8,
    /// Horizontal velocity; its kind and `supersonic` give the subtype.
    pub velocity: Velocity,
    /// Vertical rate.
    pub vertical_rate: VerticalRate,
    /// GNSS height minus barometric altitude.
    pub gnss_baro_diff: AltitudeDifference,
}

/// Horizontal part of an airborne velocity message (ME bits 14–35).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Velocity {
    /// Subtypes 1 and 2: velocity over ground.
    Ground(GroundVelocity),
    /// Subtypes 3 and 4: airspeed and heading.
    Air(AirVelocity),
}

impl Velocity {
    /// The subtype, 1–4.
    pub const fn subtype(&self) -> u8 {
        match self {
            Velocity::Ground(g) => 1 + g.supersonic as u8,
            Velocity::Air(a) => 3 + a.supersonic as u8,
        }
    }
}

/// Ground velocity components (subtypes 1–2).
///
/// | ME bits | field |
/// |---|---|
/// | 14 | east-west direction, 1 = towards west |
/// | 15–24 | east-west speed code, (code − 1) kt, ×4 if supersonic, 0 = n/a |
/// | 25 | north-south direction, 1 = towards south |
/// | 26–35 | north-south speed code, as above |
///
/// ```
/// use airwaves_core::modes::adsb::GroundVelocity;
/// let g = GroundVelocity { supersonic: false, west: true, ew: 9, south: true, ns: 160 };
/// assert_eq!((g.ew_kt(), g.ns_kt()), (Some(-8), Some(-159)));
/// assert!((g.track_deg().unwrap() - 182.88).abs() < 0.01);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct GroundVelocity {
    /// Subtype 2: components in 4 kt units.
    pub supersonic: bool,
    /// East-west direction bit: true = towards west.
    pub west: bool,
    /// East-west speed code, 10 bits.
    pub ew: u16,
    /// North-south direction bit: true = towards south.
    pub south: bool,
    /// North-south speed code, 10 bits.
    pub ns: u16,
}

/// Signed speed from a direction bit and a 10-bit code.
#[inline]
fn component(negative: bool, code: u16, factor: i32) -> Option<i32> {
    let code = (code & 0x3FF) as i32;
    (code != 0).then(|| {
        let v = (code - 1) * factor;
        if negative { -v } else { v }
    })
}

/// Degrees in [0, 360) from an angle in radians.
#[inline]
fn degrees_0_360(rad: f32) -> f32 {
    let mut d = rad * (180.0 / core::f32::consts::PI);
    if d < 0.0 {
        d += 360.0;
    }
    if d >= 360.0 { 0.0 } else { d }
}

impl GroundVelocity {
    const fn factor(&self) -> i32 {
        if self.supersonic { 4 } else { 1 }
    }

    /// East component in knots (west negative); `None` if not available.
    pub fn ew_kt(&self) -> Option<i32> {
        component(self.west, self.ew, self.factor())
    }

    /// North component in knots (south negative); `None` if not available.
    pub fn ns_kt(&self) -> Option<i32> {
        component(self.south, self.ns, self.factor())
    }

    /// Ground speed `√(vₑ² + vₙ²)` in knots; `None` unless both components
    /// are available.
    pub fn speed_kt(&self) -> Option<f32> {
        let (e, n) = (self.ew_kt()? as f32, self.ns_kt()? as f32);
        Some(libm::sqrtf(e * e + n * n))
    }

    /// Track over ground `atan2(vₑ, vₙ)` in degrees clockwise from true
    /// north, in [0, 360); `None` unless both components are available.
    pub fn track_deg(&self) -> Option<f32> {
        let (e, n) = (self.ew_kt()? as f32, self.ns_kt()? as f32);
        Some(degrees_0_360(libm::atan2f(e, n)))
    }
}

/// Airspeed type (ME bit 25 of subtypes 3–4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AirspeedType {
    /// 0: indicated airspeed.
    Indicated,
    /// 1: true airspeed.
    True,
}

/// Airspeed and heading (subtypes 3–4).
///
/// | ME bits | field |
/// |---|---|
/// | 14 | magnetic heading status, 1 = available |
/// | 15–24 | magnetic heading, 360/1024° per unit |
/// | 25 | airspeed type, 0 = IAS, 1 = TAS |
/// | 26–35 | airspeed code, (code − 1) kt, ×4 if supersonic, 0 = n/a |
///
/// ```
/// use airwaves_core::modes::adsb::{AirVelocity, AirspeedType};
/// let a = AirVelocity { supersonic: false, heading_available: true, heading: 694,
///                       airspeed_type: AirspeedType::True, airspeed: 376 };
/// assert_eq!(a.airspeed_kt(), Some(375));
/// assert!((a.heading_deg().unwrap() - 243.98).abs() < 0.01);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AirVelocity {
    /// Subtype 4: airspeed in 4 kt units.
    pub supersonic: bool,
    /// Magnetic heading status: the heading is available.
    pub heading_available: bool,
    /// Magnetic heading code, 10 bits.
    pub heading: u16,
    /// IAS or TAS.
    pub airspeed_type: AirspeedType,
    /// Airspeed code, 10 bits.
    pub airspeed: u16,
}

impl AirVelocity {
    /// Magnetic heading `heading · 360/1024` degrees, if available.
    pub fn heading_deg(&self) -> Option<f32> {
        self.heading_available
            .then_some((self.heading & 0x3FF) as f32 * (360.0 / 1024.0))
    }

    /// Airspeed in knots; `None` if not available.
    pub fn airspeed_kt(&self) -> Option<u16> {
        let f = if self.supersonic { 4 } else { 1 };
        component(false, self.airspeed, f).map(|v| v as u16)
    }
}

/// Vertical-rate source (ME bit 36 of TC 19).
///
/// DO-260B, the Riddle, pyModeS and dump1090-fa: 0 = GNSS (geometric),
/// 1 = barometric. (rs1090 and adsb_deku label it the other way round.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum VerticalRateSource {
    /// 0: GNSS (geometric) rate.
    Gnss,
    /// 1: barometric rate.
    Baro,
}

/// Vertical rate (ME bits 36–46 of TC 19).
///
/// ```
/// use airwaves_core::modes::adsb::{VerticalRate, VerticalRateSource};
/// let vr = VerticalRate { source: VerticalRateSource::Baro, down: true, code: 37 };
/// assert_eq!(vr.fpm(), Some(-2304));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct VerticalRate {
    /// GNSS or barometric (ME bit 36).
    pub source: VerticalRateSource,
    /// Sign bit (ME bit 37): descending.
    pub down: bool,
    /// Rate code, 9 bits (ME bits 38–46), 0 = not available.
    pub code: u16,
}

impl VerticalRate {
    /// Vertical rate `±64 · (code − 1)` ft/min, climbing positive; `None`
    /// if not available.
    pub fn fpm(&self) -> Option<i32> {
        let code = (self.code & 0x1FF) as i32;
        (code != 0).then(|| {
            let v = (code - 1) * 64;
            if self.down { -v } else { v }
        })
    }
}

/// GNSS height minus barometric altitude (ME bits 49–56 of TC 19).
///
/// ```
/// use airwaves_core::modes::adsb::AltitudeDifference;
/// assert_eq!(AltitudeDifference { below: true, code: 5 }.ft(), Some(-100));
/// assert_eq!(AltitudeDifference { below: false, code: 0 }.ft(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AltitudeDifference {
    /// Sign bit (ME bit 49): GNSS height below barometric altitude.
    pub below: bool,
    /// Difference code, 7 bits (ME bits 50–56), 0 = not available.
    pub code: u8,
}

impl AltitudeDifference {
    /// The code for a GNSS − baro difference of `ft` (`|ft|/25 + 1`, capped
    /// at 127), or "not available" for `None`.
    ///
    /// ```
    /// use airwaves_core::modes::adsb::AltitudeDifference;
    /// assert_eq!(AltitudeDifference::from_ft(Some(-200)).ft(), Some(-200));
    /// assert_eq!(AltitudeDifference::from_ft(None).code, 0);
    /// ```
    pub fn from_ft(ft: Option<i32>) -> AltitudeDifference {
        match ft {
            Some(d) => AltitudeDifference {
                below: d < 0,
                code: (d.unsigned_abs() / 25 + 1).min(127) as u8,
            },
            None => AltitudeDifference {
                below: false,
                code: 0,
            },
        }
    }

    /// `±25 · (code − 1)` ft, GNSS above baro positive; `None` if not
    /// available.
    pub fn ft(&self) -> Option<i32> {
        let code = (self.code & 0x7F) as i32;
        (code != 0).then(|| {
            let v = (code - 1) * 25;
            if self.below { -v } else { v }
        })
    }
}

impl AirborneVelocity {
    pub(super) fn from_word(w: u64) -> Option<AirborneVelocity> {
        let st = get(w, field::ST) as u8;
        let velocity = match st {
            1 | 2 => Velocity::Ground(GroundVelocity {
                supersonic: st == 2,
                west: get(w, field::EW_DIR) != 0,
                ew: get(w, field::EW) as u16,
                south: get(w, field::NS_DIR) != 0,
                ns: get(w, field::NS) as u16,
            }),
            3 | 4 => Velocity::Air(AirVelocity {
                supersonic: st == 4,
                heading_available: get(w, field::HDG_STATUS) != 0,
                heading: get(w, field::HDG) as u16,
                airspeed_type: if get(w, field::AS_TYPE) != 0 {
                    AirspeedType::True
                } else {
                    AirspeedType::Indicated
                },
                airspeed: get(w, field::AS) as u16,
            }),
            _ => return None,
        };
        Some(AirborneVelocity {
            intent_change: get(w, field::IC) != 0,
            ifr_capability: get(w, field::IFR) != 0,
            nac_v: get(w, field::NAC_V) as u8,
            velocity,
            vertical_rate: VerticalRate {
                source: if get(w, field::VR_SRC) != 0 {
                    VerticalRateSource::Baro
                } else {
                    VerticalRateSource::Gnss
                },
                down: get(w, field::VR_SIGN) != 0,
                code: get(w, field::VR) as u16,
            },
            gnss_baro_diff: AltitudeDifference {
                below: get(w, field::DIF_SIGN) != 0,
                code: get(w, field::DIF) as u8,
            },
        })
    }

    pub(super) fn to_word(self) -> u64 {
        let mut w = 0;
        put(&mut w, field::ST, self.velocity.subtype() as u64);
        put(&mut w, field::IC, self.intent_change as u64);
        put(&mut w, field::IFR, self.ifr_capability as u64);
        put(&mut w, field::NAC_V, self.nac_v as u64);
        match self.velocity {
            Velocity::Ground(g) => {
                put(&mut w, field::EW_DIR, g.west as u64);
                put(&mut w, field::EW, g.ew as u64);
                put(&mut w, field::NS_DIR, g.south as u64);
                put(&mut w, field::NS, g.ns as u64);
            }
            Velocity::Air(a) => {
                put(&mut w, field::HDG_STATUS, a.heading_available as u64);
                put(&mut w, field::HDG, a.heading as u64);
                let tas = matches!(a.airspeed_type, AirspeedType::True);
                put(&mut w, field::AS_TYPE, tas as u64);
                put(&mut w, field::AS, a.airspeed as u64);
            }
        }
        let baro = matches!(self.vertical_rate.source, VerticalRateSource::Baro);
        put(&mut w, field::VR_SRC, baro as u64);
        put(&mut w, field::VR_SIGN, self.vertical_rate.down as u64);
        put(&mut w, field::VR, self.vertical_rate.code as u64);
        put(&mut w, field::DIF_SIGN, self.gnss_baro_diff.below as u64);
        put(&mut w, field::DIF, self.gnss_baro_diff.code as u64);
        w
    }

    /// The subtype, 1–4.
    pub const fn subtype(&self) -> u8 {
        self.velocity.subtype()
    }

    /// Ground speed in knots (subtypes 1–2 with both components).
    pub fn ground_speed_kt(&self) -> Option<f32> {
        match &self.velocity {
            Velocity::Ground(g) => g.speed_kt(),
            Velocity::Air(_) => None,
        }
    }

    /// Track over ground in degrees (subtypes 1–2 with both components).
    pub fn track_deg(&self) -> Option<f32> {
        match &self.velocity {
            Velocity::Ground(g) => g.track_deg(),
            Velocity::Air(_) => None,
        }
    }

    /// Magnetic heading in degrees (subtypes 3–4, if available).
    pub fn heading_deg(&self) -> Option<f32> {
        match &self.velocity {
            Velocity::Air(a) => a.heading_deg(),
            Velocity::Ground(_) => None,
        }
    }

    /// Airspeed in knots and its type (subtypes 3–4, if available).
    pub fn airspeed_kt(&self) -> Option<(u16, AirspeedType)> {
        match &self.velocity {
            Velocity::Air(a) => a.airspeed_kt().map(|v| (v, a.airspeed_type)),
            Velocity::Ground(_) => None,
        }
    }
}
