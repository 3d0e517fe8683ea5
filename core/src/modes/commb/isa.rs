//! The ICAO standard atmosphere (Doc 7488) below 20 km, in the units of
//! Mode S (ft, kt), and the subsonic pitot relations.

const FT: f32 = 0.3048;
/// Sea-level pressure, Pa.
const P0: f32 = 101_325.0;
/// Sea-level temperature, K.
const T0: f32 = 288.15;
/// Tropospheric lapse rate, K/m.
const LAPSE: f32 = 0.0065;
/// Tropopause: height (m), pressure (Pa), temperature (K).
const H11: f32 = 11_000.0;
const P11: f32 = 22_632.06;
const T11: f32 = 216.65;
/// g/(L·R) and R·T11/g.
const EXPONENT: f32 = 5.255_88;
const SCALE11: f32 = 6_341.62;
/// Sea-level speed of sound, kt.
pub(super) const A0_KT: f32 = 661.4786;

/// Square root of a finite `x` (0 for `x` ≤ 0 or NaN): a bit-level
/// first guess (3.5 % off) and three Newton steps, exact to within an
/// ulp or two. Used instead of `libm::sqrtf`, whose x86 inline assembly
/// Miri cannot run.
pub(super) fn sqrt(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 {
        return 0.0;
    }
    if x.is_infinite() {
        return x;
    }
    let mut y = f32::from_bits((x.to_bits() >> 1) + 0x1FBD_1DF5);
    for _ in 0..3 {
        y = 0.5 * (y + x / y);
    }
    y
}

/// Static pressure (Pa) at pressure altitude `h` (ft).
pub(super) fn pressure(h_ft: f32) -> f32 {
    let h = h_ft * FT;
    if h < H11 {
        P0 * libm::powf(1.0 - LAPSE * h / T0, EXPONENT)
    } else {
        P11 * libm::expf(-(h - H11) / SCALE11)
    }
}

/// Pressure altitude (ft) of static pressure `p` (Pa).
pub(super) fn altitude(p: f32) -> f32 {
    let h = if p >= P11 {
        T0 / LAPSE * (1.0 - libm::powf(p / P0, 1.0 / EXPONENT))
    } else {
        H11 + SCALE11 * libm::logf(P11 / p)
    };
    h / FT
}

/// Speed of sound (kt) at pressure altitude `h` (ft), ISA temperature.
pub(super) fn speed_of_sound_kt(h_ft: f32) -> f32 {
    let h = h_ft * FT;
    let t = if h < H11 { T0 - LAPSE * h } else { T11 };
    A0_KT * sqrt(t / T0)
}

/// Static pressure (Pa) at −2000 ft and at 55 000 ft: the pressure
/// altitudes a Mode S aircraft can report.
pub(super) const P_MAX: f32 = 108_865.7;
pub(super) const P_MIN: f32 = 9_119.8;

/// `qc/p = (1 + 0.2 M²)^3.5 − 1` for Mach `m` (x^3.5 = x³·√x).
fn impact_ratio(m: f32) -> f32 {
    let x = 1.0 + 0.2 * m * m;
    x * x * x * sqrt(x) - 1.0
}

/// Impact pressure (Pa) of calibrated airspeed `cas` (kt).
fn impact_pressure(cas_kt: f32) -> f32 {
    P0 * impact_ratio(cas_kt / A0_KT)
}

/// Static pressure (Pa) at which `cas` (kt) corresponds to Mach `m`
/// (`m` > 0).
pub(super) fn implied_pressure(cas_kt: f32, m: f32) -> f32 {
    impact_pressure(cas_kt) / impact_ratio(m)
}

/// Mach of calibrated airspeed `cas` (kt) at pressure altitude `h` (ft).
pub(super) fn cas_to_mach(cas_kt: f32, h_ft: f32) -> f32 {
    let r = impact_pressure(cas_kt) / pressure(h_ft);
    sqrt(5.0 * (libm::powf(r + 1.0, 2.0 / 7.0) - 1.0))
}
