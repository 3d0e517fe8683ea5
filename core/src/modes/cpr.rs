//! Compact Position Reporting (CPR): decoding and encoding of the 17-bit
//! latitude/longitude fields of ADS-B airborne (TC 9–18, 20–22) and surface
//! (TC 5–8) position messages.
//!
//! Written from the CPR algorithm of RTCA DO-260B (Appendix A), as presented
//! in *The 1090 Megahertz Riddle* (J. Sun, 2021, ch. 5 and 6), and ICAO
//! Annex 10 Vol IV.
//!
//! # The encoding
//!
//! The globe is cut into `4·NZ − i` latitude zones (`NZ = 15`, `i = 0` for
//! an *even* frame, `1` for an *odd* one) of size
//!
//! `Dlat_i = S / (60 − i)`, with the span `S = 360°` airborne, `90°` surface,
//!
//! and every latitude zone into `max(NL(lat) − i, 1)` longitude zones of size
//! `Dlon_i = S / max(NL(lat) − i, 1)`. A frame carries the position inside
//! its zone as 17-bit fractions `YZ = lat_cpr·2¹⁷`, `XZ = lon_cpr·2¹⁷`.
//! `NL(lat)` is the number of longitude zones (59 at the equator, 1 above
//! 87°; see [`nl`]). Resolution: `Dlat/2¹⁷` ≈ 5.1 m airborne, 1.3 m surface
//! in latitude; about the same in longitude except close to the poles.
//!
//! Surface frames use the same 17 bits for a 4× smaller zone: DO-260B
//! encodes them with `Nb = 19` on 360° zones and sends the 17 low bits, which
//! is exactly the 90° formulation used here.
//!
//! # Decoding
//!
//! - **Global** ([`decode_global_airborne`], [`decode_global_surface`]): an
//!   even and an odd frame received close together. With
//!   `j = ⌊59·lat_cpr_e − 60·lat_cpr_o + ½⌋`,
//!   `lat_e = Dlat_0·(j mod 60 + lat_cpr_e)`,
//!   `lat_o = Dlat_1·(j mod 59 + lat_cpr_o)` (airborne: minus 360° if
//!   ≥ 270°). Both must lie in the same NL zone, otherwise the aircraft
//!   crossed a zone boundary between the two frames and the pair is
//!   rejected. The *newer* frame gives the answer:
//!   `m = ⌊lon_cpr_e·(NL − 1) − lon_cpr_o·NL + ½⌋`,
//!   `lon = Dlon_i·(m mod n_i + lon_cpr_i)` with `n_i = max(NL − i, 1)`.
//!   `j` and `m` are computed exactly in integers here.
//!   Surface results are ambiguous by 90°: the latitude is one of
//!   `lat`, `lat − 90°` (and `+90°` for the pole), the longitude one of
//!   `lon + k·90°`; the candidate nearest a reference is chosen.
//! - **Local** ([`decode_local`]): one frame and a reference position
//!   within half a zone: `j = ⌊lat_ref/Dlat_i − lat_cpr + ½⌋`,
//!   `lat = Dlat_i·(j + lat_cpr)`, then
//!   `m = ⌊lon_ref/Dlon_i − lon_cpr + ½⌋`, `lon = Dlon_i·(m + lon_cpr)`.
//!   This single-floor form is used on purpose: the Riddle's two-term form
//!   `⌊lat_ref/Dlat⌋ + ⌊mod(lat_ref, Dlat)/Dlat − lat_cpr + ½⌋` picks the
//!   wrong zone when the reference sits on a zone edge in floating point.
//!   Any result more than half a zone from the reference is rejected. An
//!   aircraft's own last position is a valid reference only while it
//!   cannot have flown half a zone since
//!   ([`SpeedCheck::max_reference_age_ms`]).
//!
//! Latitudes and longitudes are `f64` degrees, north and east positive;
//! results have `lat ∈ [−90, 90]`, `lon ∈ [−180, 180)`. Times are passed in
//! as `u64` milliseconds of any monotonic clock (`core` reads no clock).
//!
//! # Plausibility
//!
//! CRC-valid but corrupted frames (FRUIT phantoms) still decode, usually far
//! away. [`distance_nm`] and [`SpeedCheck`] reject a new position whose
//! implied speed from the previous one is impossible.
//!
//! Nothing here allocates or panics, for any input.

use core::fmt;

/// `2¹⁷`: one full zone in CPR units.
const CPR_SCALE: f64 = 131_072.0;
/// Mask of a 17-bit CPR field.
const CPR_MASK: u32 = 0x1_FFFF;
/// Half a zone in CPR units, for the integer `⌊x + ½⌋`.
const CPR_HALF: i64 = 65_536;

/// Mean Earth radius in nautical miles (IUGG 6371.0088 km; 1 NM = 1852 m).
pub const EARTH_RADIUS_NM: f64 = 6_371.008_8 / 1.852;

/// Largest time between the two frames of an airborne pair, ms (DO-260B: 10 s).
pub const AIRBORNE_MAX_PAIR_AGE_MS: u64 = 10_000;
/// Largest time between the two frames of a surface pair when the aircraft
/// moves faster than [`SURFACE_SLOW_KT`], ms (DO-260B: 25 s).
pub const SURFACE_MAX_PAIR_AGE_MS: u64 = 25_000;
/// Largest time between the two frames of a surface pair when the aircraft
/// is slow (≤ [`SURFACE_SLOW_KT`]) or stopped, ms (DO-260B: 50 s).
pub const SURFACE_SLOW_MAX_PAIR_AGE_MS: u64 = 50_000;
/// Ground speed at or below which a surface aircraft counts as slow, kt.
pub const SURFACE_SLOW_KT: f64 = 25.0;

/// Latitudes (degrees, ascending) at which `NL` drops by one: entry `k` is
/// the largest `f64` not above the exact transition from `NL = 59 − k` to
/// `58 − k`, `acos(√((1 − cos(π/30)) / (1 − cos(2π/n))))·180/π` with
/// `n = 59 − k`. Computed to 50 digits and rounded down, so that
/// [`nl`] equals `⌊2π / acos(1 − (1 − cos(π/30))/cos²(lat))⌋` exactly for
/// every `f64` (the test module checks the table against the closed form).
const NL_TRANSITIONS: [f64; 58] = [
    10.470471299968773, // NL 59 up to here
    14.828174368687508,
    18.18626357071418,
    21.02939492602934,
    23.5450448655714,
    25.829247070588554,
    27.938987101219162,
    29.91135685731838,
    31.77209707681102,
    33.53993436298545, // NL 50
    35.22899597796446,
    36.85025107593546,
    38.41241892412304,
    39.92256684333892,
    41.38651832260282,
    42.80914012243566,
    44.19454951419314,
    45.54626722660253,
    46.867332524987674,
    48.16039128096653, // NL 40
    49.42776439255703,
    50.67150165553845,
    51.89342469168786,
    53.09516152796016,
    54.27817472272918,
    55.4437844449506,
    56.59318756205934,
    57.72747353866127,
    58.84763776148471,
    59.954592766940465, // NL 30
    61.04917774246363,
    62.132166592103424,
    63.20427479381938,
    64.2661652256745,
    65.31845309682097,
    66.36171008382627,
    67.39646774084675,
    68.42322022083339,
    69.44242631144031,
    70.45451074987606, // NL 20
    71.4598647302899,
    72.45884544728952,
    73.4517744166787,
    74.43893415725142,
    75.42056256653362,
    76.39684390794473,
    77.36789461328192,
    78.33374082922751,
    79.2942822545693,
    80.24923213280515, // NL 10
    81.19801349271951,
    82.13956980510608,
    83.07199444719815,
    83.99173562980566,
    84.89166190702086,
    85.75541620944419,
    86.535369975121,
    87.0, // NL 2 up to and including 87°, NL 1 above
];

/// The number of longitude zones `NL(lat)` at latitude `lat` (degrees):
/// 59 from the equator to 10.47°, down to 2 at ±87° and 1 beyond.
///
/// Defined by DO-260B as `⌊2π / acos(1 − (1 − cos(π/(2·NZ)))/cos²(lat))⌋`
/// with `NL(0) = 59`, `NL(±87) = 2`, `NL(|lat| > 87) = 1`. It is computed
/// exactly, without `acos`, by a binary search in a table of the 58
/// transition latitudes: `NL = n` for `|lat|` in `(lat_{n+1}, lat_n]`.
/// Symmetric in `lat`; NaN gives 59.
///
/// ```
/// use airwaves_core::modes::cpr::nl;
/// assert_eq!(nl(0.0), 59);
/// assert_eq!(nl(52.2572), 36);
/// assert_eq!(nl(-87.0), 2);
/// assert_eq!(nl(87.000_001), 1);
/// ```
pub fn nl(lat: f64) -> u8 {
    let a = libm::fabs(lat);
    let below = NL_TRANSITIONS.partition_point(|&t| t < a);
    59 - below as u8
}

/// Whether a frame is an airborne or a surface position: they share the
/// field layout but not the zone size, so they must never be mixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CprKind {
    /// Airborne position (TC 9–18 barometric, 20–22 GNSS height): zones
    /// span 360°, `Dlat = 360/60°` even, `360/59°` odd.
    Airborne,
    /// Surface position (TC 5–8): zones span 90°, `Dlat = 90/60°` even,
    /// `90/59°` odd; decoded positions are ambiguous by 90°.
    Surface,
}

impl CprKind {
    /// The kind of position carried by an ADS-B type code (ME bits 1–5):
    /// 5–8 surface, 9–18 and 20–22 airborne, otherwise `None`.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::CprKind;
    /// assert_eq!(CprKind::from_type_code(11), Some(CprKind::Airborne));
    /// assert_eq!(CprKind::from_type_code(7), Some(CprKind::Surface));
    /// assert_eq!(CprKind::from_type_code(19), None);
    /// ```
    pub const fn from_type_code(tc: u8) -> Option<Self> {
        match tc {
            5..=8 => Some(CprKind::Surface),
            9..=18 | 20..=22 => Some(CprKind::Airborne),
            _ => None,
        }
    }

    /// The span `S` of a zone set, degrees: 360 airborne, 90 surface.
    const fn span(self) -> f64 {
        match self {
            CprKind::Airborne => 360.0,
            CprKind::Surface => 90.0,
        }
    }

    /// Latitude zone size `Dlat_i = S/(60 − i)` in degrees.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::CprKind;
    /// assert_eq!(CprKind::Airborne.lat_zone(false), 6.0);
    /// assert_eq!(CprKind::Surface.lat_zone(true), 90.0 / 59.0);
    /// ```
    pub const fn lat_zone(self, odd: bool) -> f64 {
        self.span() / if odd { 59.0 } else { 60.0 }
    }

    /// Longitude zone size `Dlon_i = S/max(NL(lat) − i, 1)` in degrees at
    /// latitude `lat`.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::CprKind;
    /// assert_eq!(CprKind::Airborne.lon_zone(false, 52.0), 10.0); // NL 36
    /// assert_eq!(CprKind::Airborne.lon_zone(true, 88.0), 360.0); // NL 1
    /// ```
    pub fn lon_zone(self, odd: bool, lat: f64) -> f64 {
        self.span() / lon_zones(nl(lat), odd) as f64
    }

    /// Largest time between the two frames of a global pair, ms: 10 s
    /// airborne; surface 25 s, or 50 s when `slow` (ground speed at or
    /// below [`SURFACE_SLOW_KT`]). `slow` is ignored for airborne.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::CprKind;
    /// assert_eq!(CprKind::Airborne.max_pair_age_ms(false), 10_000);
    /// assert_eq!(CprKind::Surface.max_pair_age_ms(true), 50_000);
    /// ```
    pub const fn max_pair_age_ms(self, slow: bool) -> u64 {
        match (self, slow) {
            (CprKind::Airborne, _) => AIRBORNE_MAX_PAIR_AGE_MS,
            (CprKind::Surface, false) => SURFACE_MAX_PAIR_AGE_MS,
            (CprKind::Surface, true) => SURFACE_SLOW_MAX_PAIR_AGE_MS,
        }
    }
}

/// Number of longitude zones `n_i = max(NL − i, 1)`.
#[inline]
fn lon_zones(nl: u8, odd: bool) -> u8 {
    let n = nl.saturating_sub(odd as u8);
    if n == 0 { 1 } else { n }
}

/// The raw CPR content of one position message: format flag, kind and the
/// two 17-bit fields.
///
/// In an ADS-B ME field (bits numbered 1–56 from the most significant), F is
/// bit 22, `lat_cpr` bits 23–39 and `lon_cpr` bits 40–56; the kind follows
/// from the type code ([`CprKind::from_type_code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CprFrame {
    kind: CprKind,
    odd: bool,
    lat: u32,
    lon: u32,
}

impl CprFrame {
    /// A frame from its fields; bits of `lat`/`lon` above the 17th are
    /// ignored.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{CprFrame, CprKind};
    /// let f = CprFrame::new(CprKind::Airborne, false, 93000, 51372);
    /// assert_eq!((f.lat(), f.lon(), f.odd()), (93000, 51372, false));
    /// assert_eq!(CprFrame::new(CprKind::Surface, true, 0x3_FFFF, 0).lat(), 0x1_FFFF);
    /// ```
    pub const fn new(kind: CprKind, odd: bool, lat: u32, lon: u32) -> Self {
        CprFrame {
            kind,
            odd,
            lat: lat & CPR_MASK,
            lon: lon & CPR_MASK,
        }
    }

    /// An airborne frame, as [`CprFrame::new`].
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{CprFrame, CprKind};
    /// assert_eq!(CprFrame::airborne(true, 1, 2).kind(), CprKind::Airborne);
    /// ```
    pub const fn airborne(odd: bool, lat: u32, lon: u32) -> Self {
        Self::new(CprKind::Airborne, odd, lat, lon)
    }

    /// A surface frame, as [`CprFrame::new`].
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{CprFrame, CprKind};
    /// assert_eq!(CprFrame::surface(true, 1, 2).kind(), CprKind::Surface);
    /// ```
    pub const fn surface(odd: bool, lat: u32, lon: u32) -> Self {
        Self::new(CprKind::Surface, odd, lat, lon)
    }

    /// Airborne or surface.
    pub const fn kind(&self) -> CprKind {
        self.kind
    }

    /// The format flag F: `true` for an odd frame (`i = 1`).
    pub const fn odd(&self) -> bool {
        self.odd
    }

    /// The 17-bit latitude field `YZ` (fraction of a latitude zone × 2¹⁷).
    pub const fn lat(&self) -> u32 {
        self.lat
    }

    /// The 17-bit longitude field `XZ` (fraction of a longitude zone × 2¹⁷).
    pub const fn lon(&self) -> u32 {
        self.lon
    }

    /// Encode a position (the DO-260B CPR encoding): with `Dlat_i` of the kind,
    /// `YZ = ⌊2¹⁷·mod(lat, Dlat_i)/Dlat_i + ½⌋`,
    /// `Rlat = Dlat_i·(YZ/2¹⁷ + ⌊lat/Dlat_i⌋)`,
    /// `Dlon_i = S/max(NL(Rlat) − i, 1)`,
    /// `XZ = ⌊2¹⁷·mod(lon, Dlon_i)/Dlon_i + ½⌋`, both sent modulo 2¹⁷.
    ///
    /// Any finite longitude is accepted (it wraps). Errors with
    /// [`CprError::InvalidPosition`] if a coordinate is not finite or
    /// `|lat| > 90`.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{CprFrame, CprKind, Position};
    /// let p = Position::new(52.2572021484375, 3.91937255859375);
    /// let f = CprFrame::encode(CprKind::Airborne, false, p).unwrap();
    /// assert_eq!((f.lat(), f.lon()), (93000, 51372));
    /// ```
    pub fn encode(kind: CprKind, odd: bool, pos: Position) -> Result<Self, CprError> {
        if !pos.is_valid() {
            return Err(CprError::InvalidPosition);
        }
        let dlat = kind.lat_zone(odd);
        let (zone, yz) = split_zone(pos.lat / dlat);
        let rlat = dlat * (zone + yz as f64 / CPR_SCALE);
        let dlon = kind.lon_zone(odd, rlat);
        let (_, xz) = split_zone(pos.lon / dlon);
        Ok(Self::new(kind, odd, yz, xz))
    }
}

/// Split a position in zone units into `(⌊q⌋, ⌊2¹⁷·(q − ⌊q⌋) + ½⌋)`; the
/// second value is in `0..=2¹⁷` (the caller masks it).
fn split_zone(q: f64) -> (f64, u32) {
    let zone = libm::floor(q);
    let frac = libm::floor(CPR_SCALE * (q - zone) + 0.5);
    // `frac` is in 0..=2^17 for finite q; `as` saturates otherwise.
    (zone, frac as u32)
}

/// A [`CprFrame`] with its reception time in milliseconds (any monotonic
/// clock, the same for all frames of an aircraft).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TimedFrame {
    /// The CPR fields.
    pub frame: CprFrame,
    /// Reception time, ms.
    pub t_ms: u64,
}

impl TimedFrame {
    /// Pair a frame with its reception time in ms.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{CprFrame, TimedFrame};
    /// let t = TimedFrame::new(CprFrame::airborne(false, 93000, 51372), 1_000);
    /// assert_eq!(t.t_ms, 1_000);
    /// ```
    pub const fn new(frame: CprFrame, t_ms: u64) -> Self {
        TimedFrame { frame, t_ms }
    }
}

/// A position in degrees (WGS-84): latitude north positive, longitude east
/// positive.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Position {
    /// Latitude, degrees, −90…90.
    pub lat: f64,
    /// Longitude, degrees; decoders return −180 ≤ lon < 180.
    pub lon: f64,
}

impl Position {
    /// A position from latitude and longitude in degrees.
    ///
    /// ```
    /// use airwaves_core::modes::cpr::Position;
    /// let p = Position::new(52.258, 3.918);
    /// assert!(p.is_valid());
    /// assert!(!Position::new(91.0, 0.0).is_valid());
    /// ```
    pub const fn new(lat: f64, lon: f64) -> Self {
        Position { lat, lon }
    }

    /// Both coordinates finite and `|lat| ≤ 90` (any finite longitude is
    /// accepted; it is taken modulo 360°).
    pub fn is_valid(&self) -> bool {
        self.lat.is_finite() && self.lon.is_finite() && libm::fabs(self.lat) <= 90.0
    }
}

/// What a reference position for local or surface decoding is.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Reference {
    /// The reference position.
    pub position: Position,
    /// Reject decoded positions farther than this from the reference, NM
    /// (great circle). A non-finite value (`f64::INFINITY`) disables the
    /// check.
    pub max_range_nm: f64,
}

impl Reference {
    /// The aircraft's own last known position: only the half-zone check
    /// applies (no range limit). For local decoding it must be recent
    /// enough that the aircraft cannot have moved half a zone (≈ 180 NM
    /// airborne, 45 NM surface).
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{Position, Reference};
    /// let r = Reference::aircraft(Position::new(52.32, 4.73));
    /// assert_eq!(r.max_range_nm, f64::INFINITY);
    /// ```
    pub const fn aircraft(position: Position) -> Self {
        Reference {
            position,
            max_range_nm: f64::INFINITY,
        }
    }

    /// The receiver's location, with the farthest plausible reception
    /// range in NM (e.g. 250 NM airborne; less for surface traffic).
    ///
    /// ```
    /// use airwaves_core::modes::cpr::{Position, Reference};
    /// let r = Reference::receiver(Position::new(52.0, 4.0), 250.0);
    /// assert_eq!(r.max_range_nm, 250.0);
    /// ```
    pub const fn receiver(position: Position, max_range_nm: f64) -> Self {
        Reference {
            position,
            max_range_nm,
        }
    }
}

/// Why a CPR position could not be decoded or was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CprError {
    /// The two frames of a global pair are further apart in time than the
    /// kind allows (10 s airborne, 25/50 s surface).
    AgeExceeded,
    /// The frame claimed to be newer was received before the other one.
    OutOfOrder,
    /// Both frames of a global pair have the same format (both even or both
    /// odd).
    SameFormat,
    /// Airborne and surface frames mixed, or a frame of the wrong kind for
    /// the decoder.
    KindMismatch,
    /// The even and odd latitudes fall in different NL zones: the aircraft
    /// crossed a zone boundary between the frames (or one is corrupt).
    ZoneMismatch,
    /// The decoded latitude is beyond ±90°: corrupt or inconsistent frames.
    InvalidLatitude,
    /// A reference or a position to encode is not finite or has
    /// `|lat| > 90`.
    InvalidPosition,
    /// The locally decoded position is more than half a zone from the
    /// reference, so the reference cannot resolve the ambiguity.
    TooFarFromReference,
    /// The decoded position is farther from the reference than its
    /// `max_range_nm`.
    OutOfRange,
    /// The position implies a speed above the plausibility limit.
    SpeedExceeded,
}

impl fmt::Display for CprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CprError::AgeExceeded => "CPR frames too far apart in time",
            CprError::OutOfOrder => "newer CPR frame received before the older one",
            CprError::SameFormat => "CPR pair needs one even and one odd frame",
            CprError::KindMismatch => "airborne and surface CPR frames mixed",
            CprError::ZoneMismatch => "CPR frames in different longitude zones",
            CprError::InvalidLatitude => "decoded latitude beyond 90 degrees",
            CprError::InvalidPosition => "invalid position",
            CprError::TooFarFromReference => "more than half a CPR zone from the reference",
            CprError::OutOfRange => "position beyond the maximum range from the reference",
            CprError::SpeedExceeded => "implied speed exceeds the plausible limit",
        })
    }
}

impl core::error::Error for CprError {}

/// Wrap a finite longitude into `[−180, 180)`.
#[inline]
fn wrap180(lon: f64) -> f64 {
    let l = libm::fmod(lon, 360.0); // (−360, 360), exact
    // Both corrections are exact (Sterbenz), so the result is in range.
    if l >= 180.0 {
        l - 360.0
    } else if l < -180.0 {
        l + 360.0
    } else {
        l
    }
}

/// Check the kinds, formats and times of a global pair; returns
/// `(even, odd)`.
fn check_pair(
    older: TimedFrame,
    newer: TimedFrame,
    kind: CprKind,
    slow: bool,
) -> Result<(CprFrame, CprFrame), CprError> {
    if older.frame.kind != kind || newer.frame.kind != kind {
        return Err(CprError::KindMismatch);
    }
    if older.frame.odd == newer.frame.odd {
        return Err(CprError::SameFormat);
    }
    let age = newer
        .t_ms
        .checked_sub(older.t_ms)
        .ok_or(CprError::OutOfOrder)?;
    if age > kind.max_pair_age_ms(slow) {
        return Err(CprError::AgeExceeded);
    }
    Ok(if newer.frame.odd {
        (older.frame, newer.frame)
    } else {
        (newer.frame, older.frame)
    })
}

/// Global latitudes in `[0, S)`: `(j, lat_e, lat_o)` with the zone index
/// `j = ⌊(59·YZ_e − 60·YZ_o + 2¹⁶)/2¹⁷⌋` computed exactly.
fn global_lats(even: CprFrame, odd: CprFrame, kind: CprKind) -> (i64, f64, f64) {
    let (ye, yo) = (even.lat as i64, odd.lat as i64);
    let j = (59 * ye - 60 * yo + CPR_HALF).div_euclid(1 << 17);
    let lat_e = kind.lat_zone(false) * (j.rem_euclid(60) as f64 + ye as f64 / CPR_SCALE);
    let lat_o = kind.lat_zone(true) * (j.rem_euclid(59) as f64 + yo as f64 / CPR_SCALE);
    (j, lat_e, lat_o)
}

/// Global longitude in `[0, S)` from the newer frame, with NL of the
/// decoded latitude: `(m, lon)`.
fn global_lon(even: CprFrame, odd: CprFrame, newer_odd: bool, nl: u8, kind: CprKind) -> (i64, f64) {
    let (xe, xo, nl_i) = (even.lon as i64, odd.lon as i64, nl as i64);
    let m = (xe * (nl_i - 1) - xo * nl_i + CPR_HALF).div_euclid(1 << 17);
    let ni = lon_zones(nl, newer_odd);
    let x = if newer_odd { xo } else { xe };
    let lon = (kind.span() / ni as f64) * (m.rem_euclid(ni as i64) as f64 + x as f64 / CPR_SCALE);
    (m, lon)
}

/// Globally unambiguous airborne position from an even/odd pair
/// (DO-260B; Riddle ch. 5, eq. 5.18–5.23). The newer frame is the reference: the
/// result is its position.
///
/// Errors: [`CprError::KindMismatch`] unless both frames are airborne,
/// [`CprError::SameFormat`], [`CprError::OutOfOrder`] if
/// `newer.t_ms < older.t_ms`, [`CprError::AgeExceeded`] beyond
/// [`AIRBORNE_MAX_PAIR_AGE_MS`], [`CprError::InvalidLatitude`] if a
/// latitude lands beyond ±90°, [`CprError::ZoneMismatch`] if
/// `NL(lat_e) ≠ NL(lat_o)`.
///
/// ```
/// use airwaves_core::modes::cpr::{decode_global_airborne, CprFrame, TimedFrame};
/// let odd = TimedFrame::new(CprFrame::airborne(true, 74158, 50194), 1_457_996_400_000);
/// let even = TimedFrame::new(CprFrame::airborne(false, 93000, 51372), 1_457_996_402_000);
/// let p = decode_global_airborne(odd, even).unwrap();
/// assert_eq!((p.lat, p.lon), (52.2572021484375, 3.91937255859375));
/// ```
pub fn decode_global_airborne(older: TimedFrame, newer: TimedFrame) -> Result<Position, CprError> {
    let (even, odd) = check_pair(older, newer, CprKind::Airborne, false)?;
    let (_, mut lat_e, mut lat_o) = global_lats(even, odd, CprKind::Airborne);
    // Southern hemisphere: zones counted on from 360°.
    if lat_e >= 270.0 {
        lat_e -= 360.0;
    }
    if lat_o >= 270.0 {
        lat_o -= 360.0;
    }
    if libm::fabs(lat_e) > 90.0 || libm::fabs(lat_o) > 90.0 {
        return Err(CprError::InvalidLatitude);
    }
    let nl_e = nl(lat_e);
    if nl_e != nl(lat_o) {
        return Err(CprError::ZoneMismatch);
    }
    let lat = if newer.frame.odd { lat_o } else { lat_e };
    let (_, lon) = global_lon(even, odd, newer.frame.odd, nl_e, CprKind::Airborne);
    Ok(Position::new(lat, wrap180(lon)))
}

/// Globally decoded surface position from an even/odd pair and a
/// reference (DO-260B; Riddle §6.4.1). The newer frame is the
/// reference frame.
///
/// Surface zones span 90°, so the pair fixes the position only modulo 90°:
/// the latitude candidates are `lat`, `lat − 90°` (and `lat + 90°` for the
/// north pole, since −90°, 0° and 90° all encode as 0), the longitude
/// candidates `lon + k·90°`; the candidates nearest `reference` are chosen
/// (a latitude tie keeps `lat`, a longitude tie goes east). NL is taken at the chosen
/// latitude. The answer is right only if the aircraft is within 45° of
/// latitude and longitude of the reference; pass a receiver reference with
/// a realistic `max_range_nm` to reject the rest ([`CprError::OutOfRange`]);
/// 45° of arc is 2700 NM.
///
/// `slow`: ground speed at or below [`SURFACE_SLOW_KT`], which allows 50 s
/// between the frames instead of 25 s.
///
/// Errors as [`decode_global_airborne`] (with surface frames), plus
/// [`CprError::InvalidPosition`] for an invalid reference and
/// [`CprError::OutOfRange`].
///
/// ```
/// use airwaves_core::modes::cpr::*;
/// let even = TimedFrame::new(CprFrame::surface(false, 115609, 116941), 1_000);
/// let odd = TimedFrame::new(CprFrame::surface(true, 39199, 110269), 3_000);
/// let rx = Reference::receiver(Position::new(51.990, 4.375), 50.0);
/// let p = decode_global_surface(even, odd, rx, false).unwrap();
/// assert!((p.lat - 52.320607).abs() < 5e-7 && (p.lon - 4.734735).abs() < 5e-7);
/// ```
pub fn decode_global_surface(
    older: TimedFrame,
    newer: TimedFrame,
    reference: Reference,
    slow: bool,
) -> Result<Position, CprError> {
    let (even, odd) = check_pair(older, newer, CprKind::Surface, slow)?;
    let r = reference.position;
    if !r.is_valid() {
        return Err(CprError::InvalidPosition);
    }
    let (_, lat_e, lat_o) = global_lats(even, odd, CprKind::Surface);
    let lat_new = if newer.frame.odd { lat_o } else { lat_e };
    // Hemisphere: the latitude candidate nearest the reference.
    let mut shift = 0.0;
    for s in [-90.0, 90.0] {
        let c = lat_new + s;
        if libm::fabs(c) <= 90.0 && libm::fabs(c - r.lat) < libm::fabs(lat_new + shift - r.lat) {
            shift = s;
        }
    }
    let (lat_e, lat_o) = (lat_e + shift, lat_o + shift);
    let nl_e = nl(lat_e);
    if nl_e != nl(lat_o) {
        return Err(CprError::ZoneMismatch);
    }
    let lat = lat_new + shift;
    let (_, lon0) = global_lon(even, odd, newer.frame.odd, nl_e, CprKind::Surface);
    // Longitude: the quadrant nearest the reference.
    let k = libm::floor(wrap180(r.lon - lon0) / 90.0 + 0.5);
    let lon = wrap180(lon0 + 90.0 * k);
    let pos = Position::new(lat, lon);
    check_range(reference, pos)?;
    Ok(pos)
}

/// Reject `pos` beyond the reference's `max_range_nm`.
#[inline]
fn check_range(reference: Reference, pos: Position) -> Result<(), CprError> {
    // Both positions are valid here, so the distance is never NaN.
    if reference.max_range_nm.is_finite()
        && distance_nm(reference.position, pos) > reference.max_range_nm
    {
        return Err(CprError::OutOfRange);
    }
    Ok(())
}

/// Locally unambiguous position from one frame and a reference (DO-260B;
/// Riddle §5.4.4 and §6.4.2), airborne or surface according to
/// the frame's kind.
///
/// `j = ⌊lat_ref/Dlat_i − YZ/2¹⁷ + ½⌋`, `lat = Dlat_i·(j + YZ/2¹⁷)`,
/// `m = ⌊lon_ref/Dlon_i − XZ/2¹⁷ + ½⌋`, `lon = Dlon_i·(m + XZ/2¹⁷)`, with
/// `Dlon_i` at the decoded latitude.
///
/// The reference must be within half a zone of the aircraft (half of
/// 6°/360°·NL airborne, 1.5°/90°·NL surface): a result more than half a
/// zone from it in latitude or longitude is rejected with
/// [`CprError::TooFarFromReference`] (this also catches floating-point
/// edge cases). A receiver reference also rejects results beyond its
/// `max_range_nm` ([`CprError::OutOfRange`]).
/// [`CprError::InvalidPosition`] for an invalid reference,
/// [`CprError::InvalidLatitude`] if the result is beyond ±90°.
///
/// ```
/// use airwaves_core::modes::cpr::*;
/// let even = CprFrame::airborne(false, 93000, 51372);
/// let r = Reference::receiver(Position::new(52.258, 3.918), 250.0);
/// let p = decode_local(even, r).unwrap();
/// assert_eq!((p.lat, p.lon), (52.2572021484375, 3.91937255859375));
/// ```
pub fn decode_local(frame: CprFrame, reference: Reference) -> Result<Position, CprError> {
    let r = reference.position;
    if !r.is_valid() {
        return Err(CprError::InvalidPosition);
    }
    let kind = frame.kind;
    let dlat = kind.lat_zone(frame.odd);
    let y = frame.lat as f64 / CPR_SCALE;
    let j = libm::floor(r.lat / dlat - y + 0.5);
    let lat = dlat * (j + y);
    if libm::fabs(lat) > 90.0 {
        return Err(CprError::InvalidLatitude);
    }
    if libm::fabs(lat - r.lat) > dlat / 2.0 {
        return Err(CprError::TooFarFromReference);
    }
    let dlon = kind.lon_zone(frame.odd, lat);
    let x = frame.lon as f64 / CPR_SCALE;
    let ref_lon = wrap180(r.lon);
    let m = libm::floor(ref_lon / dlon - x + 0.5);
    let lon = dlon * (m + x);
    if libm::fabs(lon - ref_lon) > dlon / 2.0 {
        return Err(CprError::TooFarFromReference);
    }
    let pos = Position::new(lat, wrap180(lon));
    check_range(reference, pos)?;
    Ok(pos)
}

/// Great-circle distance between two positions in nautical miles
/// (haversine on a sphere of radius [`EARTH_RADIUS_NM`]; within 0.5 % of
/// the WGS-84 geodesic).
///
/// ```
/// use airwaves_core::modes::cpr::{distance_nm, Position};
/// let d = distance_nm(Position::new(0.0, 0.0), Position::new(1.0, 0.0));
/// assert!((d - 60.04).abs() < 0.01);
/// ```
pub fn distance_nm(a: Position, b: Position) -> f64 {
    let rad = core::f64::consts::PI / 180.0;
    let (p1, p2) = (a.lat * rad, b.lat * rad);
    let s_dlat = libm::sin((p2 - p1) / 2.0);
    let s_dlon = libm::sin((b.lon - a.lon) * rad / 2.0);
    let h = s_dlat * s_dlat + libm::cos(p1) * libm::cos(p2) * s_dlon * s_dlon;
    2.0 * EARTH_RADIUS_NM * libm::asin(libm::sqrt(h.clamp(0.0, 1.0)))
}

/// Speed in knots implied by moving from `a` at `t_a_ms` to `b` at
/// `t_b_ms` (order of the times does not matter); infinite for a move in
/// zero time, 0 for no move.
///
/// ```
/// use airwaves_core::modes::cpr::{implied_speed_kt, Position};
/// let v = implied_speed_kt(Position::new(0.0, 0.0), 0, Position::new(1.0, 0.0), 3_600_000);
/// assert!((v - 60.04).abs() < 0.01);
/// ```
pub fn implied_speed_kt(a: Position, t_a_ms: u64, b: Position, t_b_ms: u64) -> f64 {
    let d = distance_nm(a, b);
    let dt_h = t_a_ms.abs_diff(t_b_ms) as f64 / 3_600_000.0;
    if d == 0.0 { 0.0 } else { d / dt_h }
}

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
        let half_zone_nm = kind.lat_zone(false) / 2.0 * 60.0;
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

#[cfg(test)]
mod test {
    use super::*;
    use crate::testing::proptest_config;
    use proptest::prelude::*;

    /// The bytes of a hex string of 14 bytes (112 bits).
    fn hex14(s: &str) -> [u8; 14] {
        assert_eq!(s.len(), 28, "{s}");
        let mut out = [0u8; 14];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        out
    }

    /// The CPR fields of a DF17/18 position message: ME = bytes 4..11; TC
    /// = ME bits 1–5, F = bit 22, lat = bits 23–39, lon = bits 40–56.
    fn cpr(hex: &str) -> CprFrame {
        let b = hex14(hex);
        let me = b[4..11].iter().fold(0u64, |acc, &x| (acc << 8) | x as u64);
        let tc = (me >> 51) as u8;
        let kind = CprKind::from_type_code(tc).expect("position type code");
        CprFrame::new(
            kind,
            (me >> 34) & 1 == 1,
            ((me >> 17) & 0x1_FFFF) as u32,
            (me & 0x1_FFFF) as u32,
        )
    }

    /// `actual` equals `expected` to `dp` decimal places (|Δ| ≤ ½·10^−dp).
    #[track_caller]
    fn assert_dp(actual: f64, expected: f64, dp: i32) {
        let tol = 0.5 * libm::pow(10.0, -dp as f64) * (1.0 + 1e-9);
        assert!(
            libm::fabs(actual - expected) <= tol,
            "{actual} != {expected} to {dp} dp"
        );
    }

    /// `actual` equals a full-precision `expected` within 2 ulp (the
    /// published digits come from other evaluation orders).
    #[track_caller]
    fn assert_full(actual: f64, expected: f64) {
        let ulp = expected.next_up() - expected;
        assert!(
            libm::fabs(actual - expected) <= 2.0 * ulp,
            "{actual} != {expected} within 2 ulp"
        );
    }

    #[track_caller]
    fn assert_pos(p: Position, lat: f64, lon: f64, dp: i32) {
        assert_dp(p.lat, lat, dp);
        assert_dp(p.lon, lon, dp);
    }

    fn at(frame: CprFrame, t_ms: u64) -> TimedFrame {
        TimedFrame::new(frame, t_ms)
    }

    /// Global airborne decode with `newer` received 1 s after `older`.
    fn air_pair(older: CprFrame, newer: CprFrame) -> Result<Position, CprError> {
        decode_global_airborne(at(older, 0), at(newer, 1_000))
    }

    /// Global surface decode, `newer` 1 s after `older`, unlimited range.
    fn sfc_pair(
        older: CprFrame,
        newer: CprFrame,
        lat: f64,
        lon: f64,
    ) -> Result<Position, CprError> {
        let r = Reference::receiver(Position::new(lat, lon), f64::INFINITY);
        decode_global_surface(at(older, 0), at(newer, 1_000), r, false)
    }

    fn local(frame: CprFrame, lat: f64, lon: f64) -> Result<Position, CprError> {
        decode_local(frame, Reference::aircraft(Position::new(lat, lon)))
    }

    // ---------------------------------------------------------------- NL

    /// The closed form of the transition latitude from NL = n to n − 1.
    fn transition_f64(n: u32) -> f64 {
        let a = 1.0 - libm::cos(core::f64::consts::PI / 30.0);
        let b = 1.0 - libm::cos(2.0 * core::f64::consts::PI / n as f64);
        libm::acos(libm::sqrt(a / b)).to_degrees()
    }

    /// The DO-260B closed form of NL, valid away from the transitions.
    fn nl_closed_form(lat: f64) -> u8 {
        if lat == 0.0 {
            return 59;
        }
        let a = 1.0 - libm::cos(core::f64::consts::PI / 30.0);
        let c = libm::cos(lat.to_radians());
        let arg = 1.0 - a / (c * c);
        if arg < -1.0 {
            return 1;
        }
        libm::floor(2.0 * core::f64::consts::PI / libm::acos(arg)) as u8
    }

    #[test]
    fn test_nl_table_matches_closed_form() {
        for (k, &t) in NL_TRANSITIONS.iter().enumerate() {
            let n = 59 - k as u32;
            let f = transition_f64(n);
            assert!(
                libm::fabs(t - f) < 1e-12,
                "NL {n}: table {t} vs formula {f}"
            );
        }
        assert_eq!(NL_TRANSITIONS[57], 87.0);
        assert!(NL_TRANSITIONS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn test_nl_boundaries() {
        for (k, &t) in NL_TRANSITIONS.iter().enumerate() {
            let n = 59 - k as u8;
            for s in [1.0, -1.0] {
                // At the table value (≤ the exact transition): still n.
                assert_eq!(nl(s * t), n, "at {t}");
                assert_eq!(nl(s * t.next_down()), n, "below {t}");
                assert_eq!(nl(s * t.next_up()), n - 1, "above {t}");
                // Away from the transition, the closed form is reliable.
                for d in [1e-9, 1e-6, 1e-3] {
                    assert_eq!(nl(s * (t - d)), n);
                    assert_eq!(nl_closed_form(t - d), n, "closed form {t}-{d}");
                    assert_eq!(nl(s * (t + d)), n - 1);
                    assert_eq!(nl_closed_form(t + d), n - 1, "closed form {t}+{d}");
                }
            }
        }
    }

    #[test]
    fn test_nl_special_values() {
        assert_eq!(nl(0.0), 59);
        assert_eq!(nl(-0.0), 59);
        assert_eq!(nl(0.1), 59);
        assert_eq!(nl(-0.1), 59);
        assert_eq!(nl(45.0), 42);
        assert_eq!(nl(80.0), 10);
        assert_eq!(nl(87.0), 2);
        assert_eq!(nl(-87.0), 2);
        assert_eq!(nl(87.5), 1);
        assert_eq!(nl(-87.5), 1);
        assert_eq!(nl(90.0), 1);
        assert_eq!(nl(-90.0), 1);
        assert_eq!(nl(f64::INFINITY), 1);
        assert_eq!(nl(f64::NAN), 59);
        // §3.6: 66.38° NL 23, 66.36° NL 24.
        assert_eq!(nl(66.38), 23);
        assert_eq!(nl(66.36), 24);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_nl_sweep_against_closed_form() {
        // Every 0.001° from −90 to 90, skipping 1e-9 around transitions.
        for i in -90_000..=90_000 {
            let lat = i as f64 / 1000.0;
            if NL_TRANSITIONS
                .iter()
                .any(|&t| libm::fabs(libm::fabs(lat) - t) < 1e-9)
            {
                continue;
            }
            assert_eq!(nl(lat), nl_closed_form(lat), "lat {lat}");
        }
    }

    // ------------------------------------------------------- §3 airborne

    /// §3.1 Riddle: global, even newer; intermediates; local.
    #[test]
    fn test_riddle_airborne() {
        let even = cpr("8D40621D58C382D690C8AC2863A7");
        let odd = cpr("8D40621D58C386435CC412692AD6");
        assert_eq!(even, CprFrame::airborne(false, 93000, 51372));
        assert_eq!(odd, CprFrame::airborne(true, 74158, 50194));

        let (j, lat_e, lat_o) = global_lats(even, odd, CprKind::Airborne);
        assert_eq!(j, 8);
        assert_full(lat_e, 52.2572021484375);
        assert_full(lat_o, 52.26578017412606);
        assert_eq!((nl(lat_e), nl(lat_o)), (36, 36));
        let (m, _) = global_lon(even, odd, false, 36, CprKind::Airborne);
        assert_eq!(m, 0);
        assert_eq!(lon_zones(36, false), 36);

        // t0 = 1457996402 (even, most recent), t1 = 1457996400 (odd).
        let p = decode_global_airborne(at(odd, 1_457_996_400_000), at(even, 1_457_996_402_000))
            .unwrap();
        assert_full(p.lat, 52.2572021484375);
        assert_full(p.lon, 3.91937255859375);

        // Local, ref (52.258, 3.918): dLat = 6, j = 8; dLon = 10, m = 0.
        let p = local(even, 52.258, 3.918).unwrap();
        assert_eq!(libm::floor(52.258 / 6.0 - 93000.0 / CPR_SCALE + 0.5), 8.0);
        assert_eq!(CprKind::Airborne.lon_zone(false, p.lat), 10.0);
        assert_eq!(libm::floor(3.918 / 10.0 - 51372.0 / CPR_SCALE + 0.5), 0.0);
        assert_full(p.lat, 52.2572021484375);
        assert_full(p.lon, 3.91937255859375);
    }

    /// §3.2 pyModeS / rs1090 pair, global both ways and local.
    #[test]
    fn test_pymodes_pair() {
        let even = cpr("8D40058B58C901375147EFD09357");
        let odd = cpr("8D40058B58C904A87F402D3B8C59");
        assert!(!even.odd() && odd.odd());

        let p = air_pair(even, odd).unwrap(); // odd newer
        assert_pos(p, 49.81755, 6.08442, 5);
        assert_full(p.lat, 49.81755143505031);
        assert_full(p.lon, 6.084421518686655);

        let p = air_pair(odd, even).unwrap(); // even newer
        assert_pos(p, 49.82410, 6.06785, 5);
        assert_full(p.lat, 49.8240966796875);
        assert_full(p.lon, 6.067850213301809);

        assert_pos(local(even, 49.0, 6.0).unwrap(), 49.82410, 6.06785, 5);
        assert_pos(local(odd, 49.0, 6.0).unwrap(), 49.81755, 6.08442, 5);
    }

    /// §3.3 numerical edge case: reference on a zone edge.
    #[test]
    fn test_local_zone_edge() {
        let f = cpr("8D06A15358BF17FF7D4A84B47B95");
        assert_eq!(f, CprFrame::airborne(true, 131006, 84612));
        let (lat_ref, lon_ref) = (30.508474576271183, 36.000000000000003);
        let p = local(f, lat_ref, lon_ref).unwrap();
        assert_dp(p.lat, 30.50540, 5);
        // The published 33.44787 is truncated: the value is 33.4478759765625
        // (= 7.2·(4 + 84612/2¹⁷), exact), 33.44788 to 5 dp.
        assert!(libm::fabs(p.lon - 33.44787) < 1e-5);
        assert_eq!(p.lon, 7.2 * (4.0 + 84612.0 / CPR_SCALE));

        // The trap: the two-term index lands one zone off (≈ 36.607°),
        // which the half-zone check would reject.
        let dlat = 360.0 / 59.0;
        let y = 131006.0 / CPR_SCALE;
        let two_term =
            libm::floor(lat_ref / dlat) + libm::floor(libm::fmod(lat_ref, dlat) / dlat - y + 0.5);
        let trap_lat = dlat * (two_term + y);
        assert!(libm::fabs(trap_lat - 36.607) < 1e-3, "{trap_lat}");
        assert!(libm::fabs(trap_lat - lat_ref) > dlat / 2.0);
    }

    /// §3.4 rs1090 second pair.
    #[test]
    fn test_rs1090_pair() {
        let odd = cpr("8d4d224f58bf07c2d41a9a353d70");
        let even = cpr("8d4d224f58bf003b221b34aa5b8d");
        assert_eq!(odd, CprFrame::airborne(true, 123242, 6810));
        assert_eq!(even, CprFrame::airborne(false, 7569, 6964));
        let p = air_pair(odd, even).unwrap(); // even newer, as in rs1090
        assert_pos(p, 42.34648, 0.43471, 5);
        assert_dp(p.lat, 42.346, 3);
        assert_dp(p.lon, 0.4347, 4);
        let p = air_pair(even, odd).unwrap();
        assert_pos(p, 42.34736, 0.43498, 5);
    }

    /// §3.5 dump1090-fa `cprtests.c`: (even lat, even lon, odd lat, odd
    /// lon, even-newer lat/lon, odd-newer lat/lon).
    type FaAirborneRow = (u32, u32, u32, u32, f64, f64, f64, f64);
    static FA_AIRBORNE: [FaAirborneRow; 2] = [
        (
            80536, 9432, 61720, 9192, 51.686646, 0.700156, 51.686763, 0.701294,
        ),
        (
            80534, 9413, 61714, 9144, 51.686554, 0.698745, 51.686484, 0.697632,
        ),
    ];

    #[test]
    fn test_fa_global_airborne() {
        for (el, eo, ol, oo, e_lat, e_lon, o_lat, o_lon) in FA_AIRBORNE {
            let even = CprFrame::airborne(false, el, eo);
            let odd = CprFrame::airborne(true, ol, oo);
            assert_pos(air_pair(odd, even).unwrap(), e_lat, e_lon, 6);
            assert_pos(air_pair(even, odd).unwrap(), o_lat, o_lon, 6);
        }
    }

    #[test]
    fn test_fa_relative_airborne() {
        let refs = [
            (52.00, 0.00),
            (48.70, 0.00),
            (54.60, 0.00),
            (52.00, 5.40),
            (52.00, -4.10),
        ];
        for (rlat, rlon) in refs {
            for (el, eo, ol, oo, e_lat, e_lon, o_lat, o_lon) in FA_AIRBORNE {
                let even = CprFrame::airborne(false, el, eo);
                let odd = CprFrame::airborne(true, ol, oo);
                assert_pos(local(even, rlat, rlon).unwrap(), e_lat, e_lon, 6);
                assert_pos(local(odd, rlat, rlon).unwrap(), o_lat, o_lon, 6);
            }
        }
    }

    type FaSurfaceRow = (f64, f64, u32, u32, u32, u32, f64, f64, f64, f64);

    /// (ref lat, ref lon, even lat, even lon, odd lat, odd lon, even-newer
    /// lat/lon, odd-newer lat/lon), every row of `cprGlobalSurfaceTests`.
    #[rustfmt::skip]
    static FA_SURFACE: [FaSurfaceRow; 23] = [
        (52.00, -180.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 - 180.0, 52.209976, 0.176507 - 180.0),
        (52.00, -140.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 - 180.0, 52.209976, 0.176507 - 180.0),
        (52.00, -130.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 - 90.0, 52.209976, 0.176507 - 90.0),
        (52.00, -50.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 - 90.0, 52.209976, 0.176507 - 90.0),
        (52.00, -40.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
        (52.00, -10.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
        (52.00, 0.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
        (52.00, 10.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
        (52.00, 40.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
        (52.00, 50.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 + 90.0, 52.209976, 0.176507 + 90.0),
        (52.00, 130.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 + 90.0, 52.209976, 0.176507 + 90.0),
        (52.00, 140.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 - 180.0, 52.209976, 0.176507 - 180.0),
        (52.00, 180.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601 - 180.0, 52.209976, 0.176507 - 180.0),
        (90.00, 0.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
        (52.00, 0.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
        (8.00, 0.00, 105730, 9259, 29693, 8997, 52.209984, 0.176601, 52.209976, 0.176507),
        (7.00, 0.00, 105730, 9259, 29693, 8997, 52.209984 - 90.0, 0.135269, 52.209976 - 90.0, 0.134299),
        (-52.00, 0.00, 105730, 9259, 29693, 8997, 52.209984 - 90.0, 0.135269, 52.209976 - 90.0, 0.134299),
        (-90.00, 0.00, 105730, 9259, 29693, 8997, 52.209984 - 90.0, 0.135269, 52.209976 - 90.0, 0.134299),
        (-46.00, -180.00, 0, 0, 0, 0, -90.0, -180.0, -90.0, -180.0),
        (-44.00, -180.00, 0, 0, 0, 0, 0.0, -180.0, 0.0, -180.0),
        (44.00, -180.00, 0, 0, 0, 0, 0.0, -180.0, 0.0, -180.0),
        (46.00, -180.00, 0, 0, 0, 0, 90.0, -180.0, 90.0, -180.0),
    ];

    #[test]
    fn test_fa_global_surface() {
        for (rlat, rlon, el, eo, ol, oo, e_lat, e_lon, o_lat, o_lon) in FA_SURFACE {
            let even = CprFrame::surface(false, el, eo);
            let odd = CprFrame::surface(true, ol, oo);
            let p = sfc_pair(odd, even, rlat, rlon).unwrap();
            assert_pos(p, e_lat, e_lon, 6);
            let p = sfc_pair(even, odd, rlat, rlon).unwrap();
            assert_pos(p, o_lat, o_lon, 6);
        }
    }

    #[test]
    fn test_fa_relative_surface() {
        let refs = [
            (52.00, 0.00),
            (51.46, 0.00),
            (52.95, 0.00),
            (52.00, 1.40),
            (52.00, -1.05),
        ];
        let even = CprFrame::surface(false, 105730, 9259);
        let odd = CprFrame::surface(true, 29693, 8997);
        for (rlat, rlon) in refs {
            assert_pos(local(even, rlat, rlon).unwrap(), 52.209984, 0.176601, 6);
            assert_pos(local(odd, rlat, rlon).unwrap(), 52.209976, 0.176507, 6);
        }
    }

    /// The surface ambiguity: 45° of arc is the most a reference may be off.
    #[test]
    fn test_surface_reference_too_far() {
        let even = TimedFrame::new(CprFrame::surface(false, 105730, 9259), 0);
        let odd = TimedFrame::new(CprFrame::surface(true, 29693, 8997), 1_000);
        let ambiguity_nm = 45.0 * 60.0;
        // FA accepts a reference at the south pole (52° of arc away)...
        let pole = Position::new(-90.0, 0.0);
        assert!(decode_global_surface(even, odd, Reference::aircraft(pole), false).is_ok());
        // ...which a 45° range limit rejects.
        let r = Reference::receiver(pole, ambiguity_nm);
        assert_eq!(
            decode_global_surface(even, odd, r, false),
            Err(CprError::OutOfRange)
        );
        // A realistic receiver range around Cambridge.
        let near = Reference::receiver(Position::new(52.0, 0.0), 50.0);
        assert!(decode_global_surface(even, odd, near, false).is_ok());
        let far = Reference::receiver(Position::new(51.0, 0.0), 50.0);
        assert_eq!(
            decode_global_surface(even, odd, far, false),
            Err(CprError::OutOfRange)
        );
    }

    /// §3.6: NL mismatch between the even and odd latitudes.
    #[test]
    fn test_zone_mismatch() {
        let even = CprFrame::airborne(false, 8192, 0);
        let odd = CprFrame::airborne(true, 114688, 0);
        let (_, lat_e, lat_o) = global_lats(even, odd, CprKind::Airborne);
        assert_dp(lat_e, 66.38, 2);
        assert_dp(lat_o, 66.36, 2);
        assert_eq!((nl(lat_e), nl(lat_o)), (23, 24));
        assert_eq!(air_pair(odd, even), Err(CprError::ZoneMismatch));
        assert_eq!(air_pair(even, odd), Err(CprError::ZoneMismatch));
    }

    /// §3.6: a surface frame paired with an airborne one.
    #[test]
    fn test_surface_airborne_mix() {
        let even = cpr("8F485A33397C737A27D1B18072CD");
        let odd = cpr("8D485A33581D663872E86A3BBFFF");
        assert_eq!(even, CprFrame::surface(false, 113939, 119217));
        assert_eq!(odd, CprFrame::airborne(true, 72761, 59498));
        // Odd newer.
        assert_eq!(air_pair(even, odd), Err(CprError::KindMismatch));
        assert_eq!(sfc_pair(even, odd, 52.3, 4.7), Err(CprError::KindMismatch));
        // Without the kind guard the pair lands at ≈ 113.22°, which the
        // latitude check rejects as well.
        let forced = CprFrame::airborne(false, even.lat(), even.lon());
        let (_, _, lat_o) = global_lats(forced, odd, CprKind::Airborne);
        assert_dp(lat_o, 113.22, 2);
        assert_eq!(air_pair(forced, odd), Err(CprError::InvalidLatitude));
    }

    /// §3.6 rs1090 regression (ICAO 3949E8): a pair decoding 500+ km away
    /// 8 s after the previous fix must fail the speed check.
    #[test]
    fn test_rs1090_speed_regression() {
        let odd1 = cpr("8d3949e858ab05a2c11a30c334bf");
        let even1 = cpr("8d3949e858ab0211c74e97f9a5f3");
        let p0 = decode_global_airborne(at(odd1, 100_000), at(even1, 103_000)).unwrap();
        assert!(
            libm::fabs(p0.lat - 39.1) < 0.1 && libm::fabs(p0.lon - 36.4) < 0.1,
            "{p0:?}"
        );

        let even2 = cpr("8f3949e86cb503a343e9c6ecf4cd");
        let odd2 = cpr("8f3949e86cb5073d9daa5f6f9d4c");
        let p1 = decode_global_airborne(at(even2, 110_000), at(odd2, 111_000)).unwrap();
        let km = distance_nm(p0, p1) * 1.852;
        assert!(km > 500.0, "{km} km");
        let kmh = implied_speed_kt(p0, 103_000, p1, 111_000) * 1.852;
        assert!(kmh > 1200.0, "{kmh} km/h");
        assert_eq!(
            SpeedCheck::AIRBORNE.check(p0, 103_000, p1, 111_000),
            Err(CprError::SpeedExceeded)
        );
        // Local decoding from p0 cannot make the new frames plausible
        // either: it is either rejected or as far away.
        for f in [even2, odd2] {
            if let Ok(p) = decode_local(f, Reference::aircraft(p0)) {
                assert!(SpeedCheck::AIRBORNE.check(p0, 103_000, p, 111_000).is_err());
            }
        }
    }

    /// §3.6 large gap (ICAO 39C424): after 168 min the aircraft is
    /// re-acquired ≈ 2900 km west by a fresh global pair. Post-gap frames
    /// and their positions from rs1090 `cpr.rs`
    /// `test_regression_position_decode_after_large_gap`.
    #[test]
    fn test_large_gap_reacquire() {
        // Times in ms from 1754260360.77 s.
        let odd_a = cpr("8d39c42469b974b6a05ab914104f");
        let even_b = cpr("8d39c42478b9713304a5e41f6bc1");
        let odd_c = cpr("8d39c42478b974b6325a6e2724f8");
        let p_b = decode_global_airborne(at(odd_a, 0), at(even_b, 930)).unwrap();
        assert_pos(p_b, 43.7989, 52.9452, 4);
        let p_c = decode_global_airborne(at(even_b, 930), at(odd_c, 1_970)).unwrap();
        assert_pos(p_c, 43.7975, 52.9425, 4);
        let p_a = local(odd_a, p_b.lat, p_b.lon).unwrap();
        assert_pos(p_a, 43.8001, 52.9474, 4);

        // 10 089.6 s later.
        let t0 = 10_091_570;
        let after = [
            ("8f39c42490c3746e522aed52d00d", 0, 43.3692, 26.4329),
            ("8f39c42490c3746e722ad4e90929", 490, 43.3700, 26.4313),
            ("8f39c42490c370ea0050448bbfd0", 1_530, 43.3711, 26.4288),
            ("8f39c42490c3746ebc2a9937916b", 1_970, 43.3717, 26.4274),
            ("8f39c42490c380ea3650192a742d", 2_460, 43.3723, 26.4260),
        ];
        // The stale pre-gap position must not be paired with new frames.
        let first = at(cpr(after[0].0), t0);
        assert_eq!(
            decode_global_airborne(at(even_b, 930), first),
            Err(CprError::AgeExceeded)
        );
        // Nor used as a local reference: after 168 min the aircraft may be
        // zones away, and local decoding would silently return a wrong
        // position within half a zone of the stale reference.
        let age = first.t_ms - 1_970;
        assert!(age > SpeedCheck::AIRBORNE.max_reference_age_ms(CprKind::Airborne));
        let stale = decode_local(first.frame, Reference::aircraft(p_c)).unwrap();
        assert!(distance_nm(stale, p_c) < 180.0);

        // Fresh global pair, then local decoding from it.
        let even = at(cpr(after[2].0), t0 + after[2].1);
        let odd = at(cpr(after[1].0), t0 + after[1].1);
        let p = decode_global_airborne(odd, even).unwrap();
        assert_pos(p, after[2].2, after[2].3, 4);
        // rs1090 says "~2,900 km west"; the great-circle distance between
        // its own before/after positions is 2127 km (26.5° of longitude
        // at 43.6°N).
        let km = distance_nm(p_c, p) * 1.852;
        assert!((2100.0..2200.0).contains(&km), "{km} km");
        assert!(p.lon < p_c.lon - 26.0);
        // 2900 km in 168 min is ≈ 560 kt: plausible.
        assert!(SpeedCheck::AIRBORNE.check(p_c, 1_970, p, even.t_ms).is_ok());
        assert!(distance_nm(stale, p) * 1.852 > 1500.0);
        let mut last = (p, even.t_ms);
        for (hex, dt, lat, lon) in after {
            let q = local(cpr(hex), last.0.lat, last.0.lon).unwrap();
            assert_pos(q, lat, lon, 4);
            SpeedCheck::AIRBORNE
                .check(last.0, last.1, q, t0 + dt)
                .unwrap();
            last = (q, t0 + dt);
        }
    }

    #[test]
    fn test_pair_checks() {
        let even = CprFrame::airborne(false, 93000, 51372);
        let odd = CprFrame::airborne(true, 74158, 50194);
        assert!(decode_global_airborne(at(odd, 0), at(even, 10_000)).is_ok());
        assert_eq!(
            decode_global_airborne(at(odd, 0), at(even, 10_001)),
            Err(CprError::AgeExceeded)
        );
        assert_eq!(
            decode_global_airborne(at(odd, 5_000), at(even, 4_999)),
            Err(CprError::OutOfOrder)
        );
        assert_eq!(
            decode_global_airborne(at(even, 0), at(even, 1)),
            Err(CprError::SameFormat)
        );
        let s_even = CprFrame::surface(false, 115609, 116941);
        let s_odd = CprFrame::surface(true, 39199, 110269);
        let r = Reference::aircraft(Position::new(51.99, 4.375));
        assert_eq!(
            decode_global_airborne(at(s_even, 0), at(s_odd, 1)),
            Err(CprError::KindMismatch)
        );
        assert_eq!(
            decode_global_surface(at(even, 0), at(odd, 1), r, false),
            Err(CprError::KindMismatch)
        );
        assert!(decode_global_surface(at(s_even, 0), at(s_odd, 25_000), r, false).is_ok());
        assert_eq!(
            decode_global_surface(at(s_even, 0), at(s_odd, 25_001), r, false),
            Err(CprError::AgeExceeded)
        );
        assert!(decode_global_surface(at(s_even, 0), at(s_odd, 50_000), r, true).is_ok());
        assert_eq!(
            decode_global_surface(at(s_even, 0), at(s_odd, 50_001), r, true),
            Err(CprError::AgeExceeded)
        );
        let bad = Reference::aircraft(Position::new(f64::NAN, 0.0));
        assert_eq!(
            decode_global_surface(at(s_even, 0), at(s_odd, 1), bad, false),
            Err(CprError::InvalidPosition)
        );
        assert_eq!(decode_local(even, bad), Err(CprError::InvalidPosition));
        let bad = Reference::aircraft(Position::new(90.5, 0.0));
        assert_eq!(decode_local(even, bad), Err(CprError::InvalidPosition));
    }

    #[test]
    fn test_local_rejections() {
        let even = CprFrame::airborne(false, 93000, 51372); // 52.2572, 3.9194
        // A reference more than half a zone (3°) away picks another zone:
        // still half a zone from the reference, so accepted but wrong;
        // exactly the ambiguity a receiver range limit catches.
        let p = local(even, 48.0, 3.9).unwrap();
        assert_dp(p.lat, 46.2572, 4);
        let r = Reference::receiver(Position::new(48.0, 3.9), 250.0);
        assert!(decode_local(even, r).is_ok());
        let r = Reference::receiver(Position::new(50.0, 3.9), 120.0);
        assert_eq!(decode_local(even, r), Err(CprError::OutOfRange));
        let r = Reference::receiver(Position::new(50.0, 3.9), 150.0);
        assert!(decode_local(even, r).is_ok());
        // Reference near the pole: the decoded latitude would pass 90°.
        let top = CprFrame::airborne(false, 13107, 0); // 0.1 zone
        assert_eq!(local(top, 89.9, 0.0), Err(CprError::InvalidLatitude));
        // Longitude wraps across the antimeridian.
        let f = CprFrame::encode(CprKind::Airborne, true, Position::new(10.0, -179.999)).unwrap();
        let p = local(f, 10.0, 179.99).unwrap();
        assert_dp(p.lon, -179.999, 4);
        let p = local(f, 10.0, 540.0 - 0.01).unwrap();
        assert_dp(p.lon, -179.999, 4);
    }

    // -------------------------------------------------------- §4 surface

    /// §4.1 Riddle surface example: global (odd newer) and local.
    #[test]
    fn test_riddle_surface() {
        let even = cpr("8C4841753AAB238733C8CD4020B1");
        let odd = cpr("8C4841753A8A35323FAEBDAC702D");
        assert_eq!(even, CprFrame::surface(false, 115609, 116941));
        assert_eq!(odd, CprFrame::surface(true, 39199, 110269));

        let (j, lat_e, lat_o) = global_lats(even, odd, CprKind::Surface);
        assert_eq!(j, 34);
        assert_full(lat_e, 52.32304000854492);
        assert_full(lat_o, 52.320607072215964);
        assert_eq!((nl(lat_e), nl(lat_o)), (36, 36));
        let (m, lon1) = global_lon(even, odd, true, 36, CprKind::Surface);
        assert_eq!(m, 1);
        assert_eq!(lon_zones(36, true), 35);
        assert_full(lon1, 4.734734671456474);
        assert_full(lat_o - 90.0, -37.679392927784036);

        // t0 = 1457996410 (even), t1 = 1457996412 (odd, newer).
        let r = Reference::receiver(Position::new(51.990, 4.375), 100.0);
        let p = decode_global_surface(
            at(even, 1_457_996_410_000),
            at(odd, 1_457_996_412_000),
            r,
            false,
        )
        .unwrap();
        assert_pos(p, 52.320607, 4.734735, 6);
        assert_full(p.lon, 4.734734671456474);

        // Local from the previous result.
        let f = cpr("8C4841753A9A153237AEF0F275BE");
        assert_eq!(f, CprFrame::surface(true, 39195, 110320));
        let p = local(f, 52.320607, 4.734735).unwrap();
        assert_full(p.lat, 52.32056051997815);
        assert_full(p.lon, 4.735735212053571);

        // rs1090 decodes the even frame alone with ref (51.99, 4.375) and
        // accepts (52.32061, 4.73473) at 1e-3; the exact local answer:
        let p = local(even, 51.99, 4.375).unwrap();
        assert_pos(p, 52.32304, 4.73047, 5);
    }

    /// §4.2 Toulouse LFBO pair (pyModeS), São Paulo pair, zone mismatch.
    #[test]
    fn test_lfbo_surface() {
        let even = cpr("903a23ff426a38565950432ebf95");
        let odd = cpr("903a23ff426a4e65f7487a775d17");
        assert_eq!(even.kind(), CprKind::Surface);
        assert!(!even.odd() && odd.odd());

        assert_pos(
            sfc_pair(even, odd, 43.63, 1.37).unwrap(),
            43.62646,
            1.37476,
            5,
        );
        assert_pos(
            sfc_pair(odd, even, 43.63, 1.37).unwrap(),
            43.62648,
            1.37462,
            5,
        );
        assert_pos(
            sfc_pair(even, odd, -43.5, 1.37).unwrap(),
            -46.37354,
            1.44350,
            5,
        );
        assert_pos(
            sfc_pair(even, odd, 43.63, -178.63).unwrap(),
            43.62646,
            -178.62524,
            5,
        );
        assert_pos(
            sfc_pair(even, odd, 43.63, 91.37).unwrap(),
            43.62646,
            91.37476,
            5,
        );
        assert_pos(local(odd, 43.63, 1.37).unwrap(), 43.62646, 1.37476, 5);

        // São Paulo, ms time stamps, odd newer.
        let e = cpr("8FE48C033A9FA184B934E744C6FD");
        let o = cpr("8FE48C033A9FA68F7C3D39B1C2F0");
        let r = Reference::receiver(Position::new(-23.4265448, -46.4816258), 30.0);
        let p = decode_global_surface(at(e, 1_565_608_663_102), at(o, 1_565_608_666_214), r, false)
            .unwrap();
        assert!(libm::fabs(p.lat - -23.4265448) < 0.05, "{p:?}");
        assert!(libm::fabs(p.lon - -46.4816258) < 0.05, "{p:?}");

        // Zone mismatch, ref (50, 0), even newer.
        let e = CprFrame::surface(false, 28672, 0);
        let o = CprFrame::surface(true, 122880, 0);
        assert_eq!(sfc_pair(o, e, 50.0, 0.0), Err(CprError::ZoneMismatch));
    }

    // ------------------------------------------------------- §9 phantoms

    /// §9 TC 11 altitude ghost (ICAO 484556): its CPR fields, paired with
    /// the real neighbours or decoded locally, give positions the speed
    /// check rejects. Neighbour frames and times (s after 04:33:26) from
    /// pyModeS `docs/interesting_messages.md`.
    #[test]
    fn test_tc11_phantom_position() {
        let real = [
            ("8D48455658AF86664DF2CD7CC4E9", 559),
            ("8D48455658AF86664FF2B565BE0F", 1_091),
            ("8D48455658AF82FB9200E0A1E0EF", 1_539),
            ("8D48455658AF866653F28A1F8833", 2_049),
            ("8D48455658AF82FB9600B56A1E6C", 2_500),
            ("8D48455658AF866657F2602DF150", 2_993),
        ];
        let phantom = at(cpr("8D4845565C6AAA206D6E6095C950"), 3_221);
        let after = [
            ("8D48455658AF82FB9A0084CD3801", 3_559),
            ("8D48455658AF82FB9C00691B39C4", 4_141),
        ];
        let frames: [TimedFrame; 6] = core::array::from_fn(|i| at(cpr(real[i].0), real[i].1));
        // The real track: each frame paired with the latest frame of the
        // other format; successive fixes pass the speed check.
        let mut last: Option<(Position, u64)> = None;
        for i in 1..6 {
            let Some(older) = frames[..i]
                .iter()
                .rev()
                .find(|f| f.frame.odd() != frames[i].frame.odd())
            else {
                continue;
            };
            let p = decode_global_airborne(*older, frames[i]).unwrap();
            if let Some((q, t)) = last {
                SpeedCheck::AIRBORNE.check(q, t, p, frames[i].t_ms).unwrap();
            }
            last = Some((p, frames[i].t_ms));
        }
        let (last, t_last) = last.unwrap();
        // Over the Netherlands / Germany at FL340 (KLM90J EDDB → EHAM).
        assert!(
            (51.0..54.0).contains(&last.lat) && (5.0..14.0).contains(&last.lon),
            "{last:?}"
        );

        // The phantom (even) paired with the latest odd frame.
        assert!(!phantom.frame.odd() && frames[5].frame.odd());
        match decode_global_airborne(frames[5], phantom) {
            Ok(p) => assert_eq!(
                SpeedCheck::AIRBORNE.check(last, t_last, p, phantom.t_ms),
                Err(CprError::SpeedExceeded),
                "{p:?}"
            ),
            Err(e) => assert_eq!(e, CprError::ZoneMismatch),
        }
        // Decoded locally from the last real position.
        if let Ok(p) = decode_local(phantom.frame, Reference::aircraft(last)) {
            assert_eq!(
                SpeedCheck::AIRBORNE.check(last, t_last, p, phantom.t_ms),
                Err(CprError::SpeedExceeded),
                "{p:?}"
            );
        }
        // The following real frames stay consistent with the track.
        for (hex, t) in after {
            let p = decode_local(cpr(hex), Reference::aircraft(last)).unwrap();
            SpeedCheck::AIRBORNE.check(last, t_last, p, t).unwrap();
        }
    }

    // ------------------------------------------------- plausibility

    #[test]
    fn test_distance_and_speed() {
        let a = Position::new(52.0, 4.0);
        assert_eq!(distance_nm(a, a), 0.0);
        // One degree of latitude ≈ 60.04 NM; quarter circumference.
        let d = distance_nm(Position::new(0.0, 0.0), Position::new(0.0, 90.0));
        assert_dp(d, core::f64::consts::FRAC_PI_2 * EARTH_RADIUS_NM, 9);
        // Antipodes and wrap-around.
        let d = distance_nm(Position::new(0.0, 0.0), Position::new(0.0, 180.0));
        assert_dp(d, core::f64::consts::PI * EARTH_RADIUS_NM, 9);
        let d = distance_nm(Position::new(10.0, 179.5), Position::new(10.0, -179.5));
        assert!(d < 60.0 && d > 58.0, "{d}");
        // Speed: 600 NM in one hour.
        let b = Position::new(
            52.0 + 600.0 / EARTH_RADIUS_NM * 180.0 / core::f64::consts::PI,
            4.0,
        );
        assert_dp(implied_speed_kt(a, 0, b, 3_600_000), 600.0, 6);
        assert_dp(implied_speed_kt(b, 3_600_000, a, 0), 600.0, 6);
        assert_eq!(implied_speed_kt(a, 5, a, 5), 0.0);
        assert_eq!(implied_speed_kt(a, 5, b, 5), f64::INFINITY);
        assert!(SpeedCheck::AIRBORNE.check(a, 0, b, 3_600_000).is_ok());
        let gs = SpeedCheck::with_ground_speed(CprKind::Airborne, 445.0);
        assert_eq!(gs.check(a, 0, b, 3_600_000), Err(CprError::SpeedExceeded));
        assert!(SpeedCheck::SURFACE.check(a, 0, b, 3_600_000).is_err());
        assert_eq!(
            SpeedCheck::with_ground_speed(CprKind::Surface, f64::NAN).max_speed_kt,
            SpeedCheck::SURFACE_MARGIN_KT
        );
        // Slack: a 5 m jitter at the same time is fine.
        let c = Position::new(52.00004, 4.0);
        assert!(SpeedCheck::SURFACE.check(a, 7, c, 7).is_ok());
        let nan = Position::new(f64::NAN, 0.0);
        assert!(SpeedCheck::AIRBORNE.check(a, 0, nan, 1_000).is_err());
    }

    #[test]
    fn test_error_display() {
        extern crate std;
        use std::string::ToString;
        assert_eq!(
            CprError::ZoneMismatch.to_string(),
            "CPR frames in different longitude zones"
        );
        let e: &dyn core::error::Error = &CprError::AgeExceeded;
        assert!(!e.to_string().is_empty());
    }

    // ------------------------------------------------------ encoding

    #[test]
    fn test_encode_vectors() {
        // Riddle §5: the even/odd frames of 8D40621D… re-encoded from the
        // decoded positions.
        let e = CprFrame::encode(
            CprKind::Airborne,
            false,
            Position::new(52.2572021484375, 3.91937255859375),
        );
        assert_eq!(e, Ok(CprFrame::airborne(false, 93000, 51372)));
        let odd = CprFrame::airborne(true, 74158, 50194);
        let p = air_pair(CprFrame::airborne(false, 93000, 51372), odd).unwrap();
        assert_eq!(CprFrame::encode(CprKind::Airborne, true, p), Ok(odd));
        // Surface, Riddle §6: odd frame from its decoded position.
        let sodd = CprFrame::surface(true, 39199, 110269);
        let p = Position::new(52.320607072215964, 4.734734671456474);
        assert_eq!(CprFrame::encode(CprKind::Surface, true, p), Ok(sodd));
        // Poles and the equator.
        let n = CprFrame::encode(CprKind::Airborne, false, Position::new(90.0, 0.0)).unwrap();
        assert_eq!((n.lat(), n.lon()), (0, 0));
        let s = CprFrame::encode(CprKind::Surface, true, Position::new(-90.0, -180.0)).unwrap();
        assert_eq!((s.lat(), s.lon()), (0, 0));
        assert_eq!(
            CprFrame::encode(CprKind::Airborne, false, Position::new(90.1, 0.0)),
            Err(CprError::InvalidPosition)
        );
        assert_eq!(
            CprFrame::encode(CprKind::Airborne, false, Position::new(0.0, f64::INFINITY)),
            Err(CprError::InvalidPosition)
        );
    }

    /// Decoded minus true position within half a CPR unit in each axis.
    #[track_caller]
    fn assert_within_resolution(kind: CprKind, odd: bool, got: Position, truth: Position) {
        let dlat = kind.lat_zone(odd);
        let dlon = kind.lon_zone(odd, got.lat);
        let unit = 0.5 / CPR_SCALE * (1.0 + 1e-6);
        let dl = libm::fabs(got.lat - truth.lat);
        let dn = libm::fabs(wrap180(got.lon - truth.lon));
        assert!(dl <= dlat * unit + 1e-12, "lat {got:?} vs {truth:?}");
        assert!(dn <= dlon * unit + 1e-12, "lon {got:?} vs {truth:?}");
        // In metres: half the ≈ 5 m (airborne) / 1.25 m (surface) unit in
        // each axis: at most 4.08 m / 1.02 m up to 80° of latitude (up to
        // 6.2 m / 1.55 m at 86.5°, where NL drops to 2 and 1).
        if libm::fabs(truth.lat) <= 80.0 {
            let m = distance_nm(got, truth) * 1852.0;
            let limit = match kind {
                CprKind::Airborne => 4.1,
                CprKind::Surface => 1.03,
            };
            assert!(m <= limit, "{m} m: {got:?} vs {truth:?}");
        }
    }

    /// One round trip: encode both formats, decode globally with each
    /// newer, and locally from a nearby reference.
    fn round_trip(kind: CprKind, truth: Position, ref_offset: (f64, f64)) {
        let even = CprFrame::encode(kind, false, truth).unwrap();
        let odd = CprFrame::encode(kind, true, truth).unwrap();
        // A boundary within one CPR unit may put the two frames in
        // different NL zones: then ZoneMismatch is the right answer.
        let d = kind.lat_zone(true) / CPR_SCALE;
        let near_boundary = nl(truth.lat - d) != nl(truth.lat + d);
        let r = Reference::aircraft(Position::new(
            (truth.lat + ref_offset.0).clamp(-90.0, 90.0),
            truth.lon + ref_offset.1,
        ));
        for (older, newer) in [(even, odd), (odd, even)] {
            let got = match kind {
                CprKind::Airborne => decode_global_airborne(at(older, 0), at(newer, 1)),
                CprKind::Surface => decode_global_surface(at(older, 0), at(newer, 1), r, false),
            };
            match got {
                Ok(p) => assert_within_resolution(kind, newer.odd(), p, truth),
                Err(e) => {
                    assert_eq!(e, CprError::ZoneMismatch, "{truth:?}");
                    assert!(near_boundary, "{truth:?}");
                }
            }
        }
        for f in [even, odd] {
            let p = decode_local(f, r).unwrap();
            assert_within_resolution(kind, f.odd(), p, truth);
        }
    }

    proptest! {
        #![proptest_config(proptest_config())]

        #[test]
        fn prop_round_trip_airborne(
            lat in -90.0f64..=90.0,
            lon in -180.0f64..180.0,
            dlat in -1.0f64..1.0,
            dlon in -1.0f64..1.0,
        ) {
            // Local references within 1°: well inside half a zone
            // (3° of latitude, ≥ 3° of longitude).
            round_trip(CprKind::Airborne, Position::new(lat, lon), (dlat, dlon));
        }

        #[test]
        fn prop_round_trip_surface(
            lat in -90.0f64..=90.0,
            lon in -180.0f64..180.0,
            dlat in -0.25f64..0.25,
            dlon in -0.25f64..0.25,
        ) {
            round_trip(CprKind::Surface, Position::new(lat, lon), (dlat, dlon));
        }

        /// No input panics; results are always in range.
        #[test]
        fn prop_decode_any_fields(
            el in 0u32..1 << 17, eo in 0u32..1 << 17,
            ol in 0u32..1 << 17, oo in 0u32..1 << 17,
            rlat in -90.0f64..=90.0, rlon in -1000.0f64..1000.0,
            surface: bool, slow: bool,
        ) {
            let kind = if surface { CprKind::Surface } else { CprKind::Airborne };
            let even = CprFrame::new(kind, false, el, eo);
            let odd = CprFrame::new(kind, true, ol, oo);
            let r = Reference::receiver(Position::new(rlat, rlon), 500.0);
            let ok = |p: Position| {
                libm::fabs(p.lat) <= 90.0 && (-180.0..180.0).contains(&p.lon)
            };
            let results = [
                decode_global_airborne(at(even, 0), at(odd, 1)),
                decode_global_airborne(at(odd, 0), at(even, 1)),
                decode_global_surface(at(even, 0), at(odd, 1), r, slow),
                decode_global_surface(at(odd, 0), at(even, 1), r, slow),
                decode_local(even, r),
                decode_local(odd, r),
            ];
            for p in results.into_iter().flatten() {
                prop_assert!(ok(p), "{:?}", p);
            }
        }
    }

    /// A dense deterministic sweep of the round trip (heavy: not under
    /// miri).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_round_trip_sweep() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..20_000 {
            let p = Position::new(next() * 180.0 - 90.0, next() * 360.0 - 180.0);
            let off = (next() - 0.5, next() - 0.5);
            round_trip(CprKind::Airborne, p, off);
            round_trip(CprKind::Surface, p, (off.0 / 4.0, off.1 / 4.0));
        }
        // Every NL transition, just inside and outside.
        for &t in &NL_TRANSITIONS {
            for d in [-2e-5, -1e-6, 0.0, 1e-6, 2e-5] {
                for lon in [-180.0, -0.001, 0.0, 33.3, 179.9999] {
                    round_trip(CprKind::Airborne, Position::new(t + d, lon), (0.1, 0.1));
                    round_trip(
                        CprKind::Surface,
                        Position::new(-(t + d), lon),
                        (0.01, -0.01),
                    );
                }
            }
        }
    }
}
