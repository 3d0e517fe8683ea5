//! The zone geometry: the number of longitude zones `NL(lat)`, airborne and
//! surface zone sizes, and the largest time between the frames of a pair.

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
pub(super) const NL_TRANSITIONS: [f64; 58] = [
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
    pub(super) const fn span(self) -> f64 {
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

    /// Half an even latitude zone in nautical miles (1° of latitude =
    /// 60 NM): 180 NM airborne, 45 NM surface; the farthest a local
    /// decoding reference may be from the aircraft.
    pub(crate) fn half_zone_nm(self) -> f64 {
        self.lat_zone(false) / 2.0 * 60.0
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
pub(super) fn lon_zones(nl: u8, odd: bool) -> u8 {
    let n = nl.saturating_sub(odd as u8);
    if n == 0 { 1 } else { n }
}
