//! Quantisation on the emit side, and the resolutions (LSBs) of the
//! fractional fields. `as` casts from `f32` saturate and map NaN to 0, so
//! no input panics.

/// `round(x / lsb)` as an integer.
#[inline]
pub(super) fn quantize(x: f32, lsb: f32) -> i32 {
    libm::roundf(x / lsb) as i32
}

/// Signed value clamped to the range of an `n`-bit two's complement field.
#[inline]
pub(super) fn clamp_signed(v: i32, n: u32) -> u64 {
    let lim = 1i32 << (n - 1);
    v.clamp(-lim, lim - 1) as u32 as u64
}

/// Unsigned value clamped to an `n`-bit field.
#[inline]
pub(super) fn clamp_unsigned(v: i64, n: u32) -> u64 {
    v.clamp(0, (1i64 << n) - 1) as u64
}

/// An angle in degrees wrapped into an `n`-bit fraction of a turn.
#[inline]
pub(super) fn wrap_angle(deg: f32, n: u32) -> u64 {
    let lsb = 360.0 / (1u32 << n) as f32;
    (quantize(deg, lsb) as i64).rem_euclid(1i64 << n) as u64
}

/// Angle LSB of the 11-bit track and heading fields: 360/2048 = 90/512 °.
pub(super) const ANGLE11_LSB: f32 = 360.0 / 2048.0;
/// Roll LSB: 45/256 °.
pub(super) const ROLL_LSB: f32 = 45.0 / 256.0;
/// Track rate LSB: 8/256 °/s.
pub(super) const TRACK_RATE_LSB: f32 = 8.0 / 256.0;
/// Mach LSB: 2.048/512.
pub(super) const MACH_LSB: f32 = 2.048 / 512.0;
/// Wind direction LSB (BDS 4,4): 180/256 °.
pub(super) const WIND_DIR_LSB: f32 = 180.0 / 256.0;
/// Temperature LSB (BDS 4,4 and 4,5): 0.25 °C.
pub(super) const SAT_LSB: f32 = 0.25;
/// Humidity LSB (BDS 4,4): 100/64 %.
pub(super) const HUMIDITY_LSB: f32 = 100.0 / 64.0;
