//! BDS 4,4 and 4,5: the meteorological routine and hazard air reports
//! (MRAR, MHR).

use super::infer::{require, status_evidence};
use super::quantise::{
    HUMIDITY_LSB, SAT_LSB, WIND_DIR_LSB, clamp_signed, clamp_unsigned, quantize, wrap_angle,
};
use super::{Bds, Context, Evidence, Register, Reject, field, inherent_codec};
use crate::macros::enum_with_unknown;
use crate::modes::field56::Gated;

enum_with_unknown! {
    /// Severity of a meteorological hazard (2-bit code, Doc 4444 definitions).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[cfg_attr(feature = "defmt", derive(defmt::Format))]
    pub enum Hazard(u8 & 0b11) {
        /// 0: nil.
        Nil = 0,
        /// 1: light.
        Light = 1,
        /// 2: moderate.
        Moderate = 2,
        /// 3: severe.
        Severe = 3,
    }
}

enum_with_unknown! {
    /// Figure of merit / source of BDS 4,4 (bits 1–4).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[cfg_attr(feature = "defmt", derive(defmt::Format))]
    pub enum FigureOfMerit(u8) {
        /// 0: invalid.
        Invalid = 0,
        /// 1: INS.
        Ins = 1,
        /// 2: GNSS.
        Gnss = 2,
        /// 3: DME/DME.
        DmeDme = 3,
        /// 4: VOR/DME.
        VorDme = 4,
        ;
        /// 5–15: reserved.
        Unknown(u8),
    }
}

/// Wind of BDS 4,4.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Wind {
    /// Speed, kt (0..=511).
    pub speed: u16,
    /// Direction the wind blows from, degrees true (0..360, LSB 180/256°).
    pub direction: f32,
}

/// BDS 4,4 — meteorological routine air report (Doc 9871 Table A-2-68).
///
/// | bits | field | unit |
/// |---|---|---|
/// | 1–4 | figure of merit / source | |
/// | 5, 6–14, 15–23 | status, wind speed, wind direction | 1 kt; 180/256° |
/// | 24–34 | static air temperature, sign bit 24 (no status bit) | 0.25 °C |
/// | 35, 36–46 | status, average static pressure | 1 hPa |
/// | 47, 48–49 | status, turbulence | [`Hazard`] |
/// | 50, 51–56 | status, humidity | 100/64 % |
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MeteorologicalRoutine {
    /// Bits 1–4.
    pub figure_of_merit: FigureOfMerit,
    /// Wind speed and direction.
    pub wind: Option<Wind>,
    /// Static air temperature, °C (−256.0..=255.75, LSB 0.25).
    pub static_air_temperature: f32,
    /// Average static pressure, hPa (0..=2047).
    pub static_pressure: Option<u16>,
    /// Turbulence.
    pub turbulence: Option<Hazard>,
    /// Humidity, % (0..=98.4375, LSB 100/64).
    pub humidity: Option<f32>,
}

/// Plausible static air temperature, °C.
const SAT_RANGE: (f32, f32) = (-80.0, 60.0);

impl Register for MeteorologicalRoutine {
    const BDS: Bds = Bds::MeteorologicalRoutine;

    fn decode(w: u64) -> Self {
        use field::bds44::*;
        MeteorologicalRoutine {
            figure_of_merit: FigureOfMerit::from(FOM.get(w) as u8),
            wind: WIND.valid(w).then(|| Wind {
                speed: WIND_SPEED.get(w) as u16,
                direction: WIND_DIRECTION.get(w) as f32 * WIND_DIR_LSB,
            }),
            static_air_temperature: SAT.get_signed(w) as f32 * SAT_LSB,
            static_pressure: PRESSURE.get(w).map(|v| v as u16),
            turbulence: TURBULENCE.get(w).map(|v| Hazard::from(v as u8)),
            humidity: HUMIDITY.get(w).map(|v| v as f32 * HUMIDITY_LSB),
        }
    }

    fn encode(&self) -> u64 {
        use field::bds44::*;
        let mut w = FOM.put(0, u8::from(self.figure_of_merit) as u64);
        if let Some(wind) = self.wind {
            w = WIND.put(w, Some(0));
            w = WIND_SPEED.put(w, clamp_unsigned(wind.speed as i64, 9));
            w = WIND_DIRECTION.put(w, wrap_angle(wind.direction, 9));
        }
        w = SAT.put(
            w,
            clamp_signed(quantize(self.static_air_temperature, SAT_LSB), 11),
        );
        w = PRESSURE.put(
            w,
            self.static_pressure.map(|p| clamp_unsigned(p as i64, 11)),
        );
        w = TURBULENCE.put(w, self.turbulence.map(|h| u8::from(h) as u64));
        HUMIDITY.put(
            w,
            self.humidity
                .map(|h| clamp_unsigned(quantize(h, HUMIDITY_LSB) as i64, 6)),
        )
    }

    fn check(w: u64, _ctx: &Context) -> Result<Evidence, Reject> {
        use field::bds44::*;
        require(FOM.get(w) <= 4, Reject::Reserved)?;
        let mut bits = 2 + status_evidence(w, &GATED)?;
        let m = MeteorologicalRoutine::decode(w);
        let wind = m.wind.ok_or(Reject::Consistency);
        if let Ok(wind) = wind {
            require(wind.speed <= 250, Reject::Range)?;
            bits += 1;
        }
        let t = m.static_air_temperature;
        require(t >= SAT_RANGE.0 && t <= SAT_RANGE.1, Reject::Range)?;
        bits += 2;
        if let Some(p) = m.static_pressure {
            require(p <= 1100, Reject::Range)?;
            bits += 1;
        }
        wind?;
        Ok(Evidence::intrinsic(bits))
    }
}

inherent_codec! {
    MeteorologicalRoutine;
    /// Decode (cannot fail once the length is checked).
    ///
    /// ```
    /// use airwaves_core::modes::commb::{Mb, MeteorologicalRoutine};
    /// let mb = Mb::new_unchecked([0x18u8, 0x5B, 0xD5, 0xCF, 0x40, 0x00, 0x00]);
    /// let m = MeteorologicalRoutine::parse(&mb)?;
    /// assert_eq!(m.wind.unwrap().speed, 22);
    /// assert_eq!(m.static_air_temperature, -48.75);
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    parse;
    /// Encode into `mb`; values saturate to their field ranges, the wind
    /// direction wraps.
    emit;
}

/// BDS 4,5 — meteorological hazard report (Doc 9871 Table A-2-69).
///
/// | bits | field | unit |
/// |---|---|---|
/// | 1–3, 4–6, 7–9, 10–12, 13–15 | status + 2-bit level: turbulence, wind shear, microburst, icing, wake vortex | [`Hazard`] |
/// | 16, 17–26 | status, static air temperature (sign bit 17) | 0.25 °C |
/// | 27, 28–38 | status, average static pressure | 1 hPa |
/// | 39, 40–51 | status, radio height | 16 ft |
/// | 52–56 | reserved (0) | |
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MeteorologicalHazard {
    /// Turbulence.
    pub turbulence: Option<Hazard>,
    /// Wind shear.
    pub wind_shear: Option<Hazard>,
    /// Microburst.
    pub microburst: Option<Hazard>,
    /// Icing.
    pub icing: Option<Hazard>,
    /// Wake vortex.
    pub wake_vortex: Option<Hazard>,
    /// Static air temperature, °C (−128.0..=127.75, LSB 0.25).
    pub static_air_temperature: Option<f32>,
    /// Average static pressure, hPa (0..=2047).
    pub static_pressure: Option<u16>,
    /// Radio height, ft (multiple of 16, 0..=65520).
    pub radio_height: Option<u16>,
}

impl Register for MeteorologicalHazard {
    const BDS: Bds = Bds::MeteorologicalHazard;

    fn decode(w: u64) -> Self {
        use field::bds45::*;
        let hazard = |g: Gated| g.get(w).map(|v| Hazard::from(v as u8));
        MeteorologicalHazard {
            turbulence: hazard(TURBULENCE),
            wind_shear: hazard(WIND_SHEAR),
            microburst: hazard(MICROBURST),
            icing: hazard(ICING),
            wake_vortex: hazard(WAKE_VORTEX),
            static_air_temperature: SAT.get_signed(w).map(|v| v as f32 * SAT_LSB),
            static_pressure: PRESSURE.get(w).map(|v| v as u16),
            radio_height: RADIO_HEIGHT.get(w).map(|v| (v * 16) as u16),
        }
    }

    fn encode(&self) -> u64 {
        use field::bds45::*;
        let h = |x: Option<Hazard>| x.map(|h| u8::from(h) as u64);
        let mut w = TURBULENCE.put(0, h(self.turbulence));
        w = WIND_SHEAR.put(w, h(self.wind_shear));
        w = MICROBURST.put(w, h(self.microburst));
        w = ICING.put(w, h(self.icing));
        w = WAKE_VORTEX.put(w, h(self.wake_vortex));
        w = SAT.put(
            w,
            self.static_air_temperature
                .map(|t| clamp_signed(quantize(t, SAT_LSB), 10)),
        );
        w = PRESSURE.put(
            w,
            self.static_pressure.map(|p| clamp_unsigned(p as i64, 11)),
        );
        RADIO_HEIGHT.put(
            w,
            self.radio_height
                .map(|r| clamp_unsigned((r as i64 + 8) / 16, 12)),
        )
    }

    fn check(w: u64, _ctx: &Context) -> Result<Evidence, Reject> {
        use field::bds45::*;
        require(RESERVED.get(w) == 0, Reject::Reserved)?;
        let mut bits = 5 + status_evidence(w, &GATED)?;
        let m = MeteorologicalHazard::decode(w);
        if let Some(t) = m.static_air_temperature {
            require(t >= SAT_RANGE.0 && t <= SAT_RANGE.1, Reject::Range)?;
            bits += 1;
        }
        if let Some(p) = m.static_pressure {
            require(p <= 1100, Reject::Range)?;
            bits += 1;
        }
        if let Some(h) = m.radio_height {
            require(h <= 10_000, Reject::Range)?;
            bits += 3;
        }
        Ok(Evidence::intrinsic(bits))
    }
}

inherent_codec! {
    MeteorologicalHazard;
    /// Decode (cannot fail once the length is checked).
    ///
    /// ```
    /// use airwaves_core::modes::commb::{Mb, MeteorologicalHazard};
    /// let mb = Mb::new_unchecked([0x00u8, 0x01, 0xFB, 0x80, 0x00, 0x00, 0x00]);
    /// let m = MeteorologicalHazard::parse(&mb)?;
    /// assert_eq!(m.static_air_temperature, Some(-4.5));
    /// assert_eq!(m.turbulence, None);
    /// # Ok::<(), airwaves_core::modes::commb::Error>(())
    /// ```
    parse;
    /// Encode into `mb`; values saturate to their field ranges.
    emit;
}
