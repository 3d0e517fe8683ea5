//! Inference of the register an MB field carries: the caller's
//! [`Context`], the [`Score`] and [`Reject`] of one candidate ([`fit`]),
//! and the ranked [`Inference`] over all of them ([`infer`]). The checks
//! of each register are its [`Register::check`].

use core::fmt;

use super::{Bds, Error, Mb, Register};
use crate::modes::field56::Gated;

/// What the caller already knows about the aircraft, from ADS-B or from the
/// reply itself (the DF20 altitude field), to sharpen [`infer`]. Every
/// field is optional; `Context::default()` means "nothing known".
///
/// ```
/// use airwaves_core::modes::commb::Context;
/// let ctx = Context {
///     ground_speed_kt: Some(320.0),
///     track_deg: Some(250.0),
///     altitude_ft: Some(14_000.0),
///     ..Context::default()
/// };
/// assert!(ctx.vertical_rate_fpm.is_none() && !ctx.meteorological);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Context {
    /// Ground speed, kt.
    pub ground_speed_kt: Option<f32>,
    /// True track over the ground, degrees.
    pub track_deg: Option<f32>,
    /// Barometric (pressure) altitude, ft — e.g. the DF20 AC field.
    pub altitude_ft: Option<f32>,
    /// Vertical rate, ft/min (positive up).
    pub vertical_rate_fpm: Option<f32>,
    /// Also try the meteorological registers 4,4 and 4,5. They are rare and
    /// their loose layouts match many other registers, so, as in pyModeS,
    /// they are off by default.
    pub meteorological: bool,
}

/// How strongly the bits support a register: about the number of bits of
/// evidence, i.e. −log₂ of the chance that uniformly random MB bits would
/// pass the same checks (a fixed header is worth 8, each reserved or
/// status-gated zero bit 1, each range or cross-field check what it
/// excludes, each context match what it excludes).
///
/// Scores rank candidates of one reply and are only roughly comparable
/// across registers (real registers are not random: their zero bits are
/// weaker evidence than the model assumes). A higher score never hides a
/// competitor: see [`Inference::is_ambiguous`].
///
/// ```
/// use airwaves_core::modes::commb::Score;
/// assert!(Score(14) > Score(9));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Score(pub u16);

/// Why [`fit`] rejected a register: the first failed check, in the order
/// listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Reject {
    /// The buffer is shorter than [`MB_LEN`](super::MB_LEN).
    Truncated,
    /// No inference rules for this register ([`Bds::Unknown`]).
    Unsupported,
    /// The MB field is all zeros (only [`Bds::Empty`] fits it).
    Empty,
    /// The fixed header (first byte of 1,0, 2,0, 3,0) does not match.
    Header,
    /// A reserved bit (or an unassigned code) is set.
    Reserved,
    /// A field whose status bit is 0 is not all zeros.
    Status,
    /// A value lies outside its physical range.
    Range,
    /// Two fields contradict each other.
    Consistency,
    /// A value contradicts the caller's [`Context`].
    Context,
}

impl fmt::Display for Reject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reject::Truncated => "MB field truncated",
            Reject::Unsupported => "register not supported",
            Reject::Empty => "MB field empty",
            Reject::Header => "header mismatch",
            Reject::Reserved => "reserved bits set",
            Reject::Status => "data behind a cleared status bit",
            Reject::Range => "value out of range",
            Reject::Consistency => "fields inconsistent",
            Reject::Context => "contradicts context",
        })
    }
}

/// Most candidates [`infer`] can return: the fixed headers of 1,0, 2,0 and
/// 3,0 exclude each other, so at most 7 of the 9 registers pass together.
pub const MAX_CANDIDATES: usize = 8;

/// Context evidence (bits) by which one candidate must lead every other
/// for the context to separate them: a likelihood ratio of 16 : 1.
pub const SEPARATION_BITS: u16 = 4;

/// The registers that fit an MB field, best [`Score`] first, and whether
/// the choice among them is ambiguous.
///
/// ```
/// use airwaves_core::modes::commb::{infer, Bds, Context, Mb};
/// let mb = Mb::new_checked(&[0x20u8, 0x2C, 0xC3, 0x71, 0xC3, 0x1D, 0xE0][..])?;
/// let inference = infer(&mb, &Context::default())?;
/// assert_eq!(inference.best(), Some(Bds::AircraftIdentification));
/// assert!(!inference.is_ambiguous());
/// # Ok::<(), airwaves_core::modes::commb::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Inference {
    candidates: heapless::Vec<(Bds, Score), MAX_CANDIDATES>,
    best: Option<Bds>,
}

impl Inference {
    /// Every register that passed, best score first (ties in the order
    /// [`infer`] tries them). Candidates the context separated from the
    /// best one stay listed.
    pub fn candidates(&self) -> &[(Bds, Score)] {
        &self.candidates
    }

    /// More than one register passed and the context did not separate
    /// them: the caller must not treat any one of them as decoded.
    pub fn is_ambiguous(&self) -> bool {
        self.best.is_none() && !self.candidates.is_empty()
    }

    /// The register, if exactly one passed, or if the context evidence of
    /// one leads every other candidate's by at least [`SEPARATION_BITS`]
    /// (e.g. a 6,0 whose IAS and Mach reproduce the DF20 altitude against a
    /// 5,0 reading the context says nothing about).
    pub fn best(&self) -> Option<Bds> {
        self.best
    }

    /// Whether `bds` passed.
    pub fn contains(&self, bds: Bds) -> bool {
        self.candidates.iter().any(|(b, _)| *b == bds)
    }

    /// No register passed.
    pub fn is_empty(&self) -> bool {
        self.candidates.is_empty()
    }

    /// The score of `bds`, if it passed.
    pub fn score(&self, bds: Bds) -> Option<Score> {
        self.candidates
            .iter()
            .find(|(b, _)| *b == bds)
            .map(|(_, s)| *s)
    }

    /// Insert keeping descending score order (stable for ties).
    fn insert(&mut self, bds: Bds, score: Score) {
        let at = self
            .candidates
            .iter()
            .position(|(_, s)| *s < score)
            .unwrap_or(self.candidates.len());
        // Capacity covers every register `infer` tries; should it ever be
        // exceeded the lowest-ranked candidate is dropped, never a panic.
        if self.candidates.is_full() {
            if at >= self.candidates.len() {
                return;
            }
            self.candidates.pop();
        }
        let _ = self.candidates.insert(at, (bds, score));
    }
}

/// Registers [`infer`] tries, in tie-break order; the last two only with
/// [`Context::meteorological`].
const REGISTERS: [Bds; 9] = [
    Bds::DataLinkCapability,
    Bds::CommonUsageCapability,
    Bds::AircraftIdentification,
    Bds::ResolutionAdvisory,
    Bds::SelectedVerticalIntention,
    Bds::TrackAndTurn,
    Bds::HeadingAndSpeed,
    Bds::MeteorologicalRoutine,
    Bds::MeteorologicalHazard,
];

/// Infer which register an MB field carries.
///
/// An all-zero field yields the single candidate [`Bds::Empty`]. Otherwise
/// every register of 1,0, 1,7, 2,0, 3,0, 4,0, 5,0 and 6,0 (plus 4,4 and 4,5
/// when [`Context::meteorological`] is set) is checked with [`fit`], and
/// all that pass are returned, best score first. Nothing is picked
/// silently: with two or more candidates [`Inference::is_ambiguous`] is
/// true unless the [`Context`] separates them — it removes the candidates
/// it contradicts, and [`Inference::best`] names a survivor only when its
/// context evidence leads by [`SEPARATION_BITS`].
///
/// ```
/// use airwaves_core::modes::commb::{infer, Bds, Context, Mb};
/// // The Riddle's DF21 example, FFFB23286004A7: roll −0.2°, track 250.5°,
/// // GS 322 kt, TAS 334 kt as BDS 5,0.
/// let mb = Mb::new_checked(&[0xFFu8, 0xFB, 0x23, 0x28, 0x60, 0x04, 0xA7][..])?;
/// let ctx = Context { ground_speed_kt: Some(320.0), track_deg: Some(250.0), ..Context::default() };
/// assert_eq!(infer(&mb, &ctx)?.best(), Some(Bds::TrackAndTurn));
/// # Ok::<(), airwaves_core::modes::commb::Error>(())
/// ```
pub fn infer<T: AsRef<[u8]>>(mb: &Mb<T>, ctx: &Context) -> Result<Inference, Error> {
    mb.check_len()?;
    let w = mb.bits();
    let mut out = Inference::default();
    if w == 0 {
        out.insert(Bds::Empty, Score(56));
        out.best = Some(Bds::Empty);
        return Ok(out);
    }
    let tried = if ctx.meteorological { 9 } else { 7 };
    // Best and second-best context evidence, and who holds the best.
    let (mut lead, mut lead_ctx, mut second_ctx) = (None, 0u16, 0u16);
    for bds in &REGISTERS[..tried] {
        if let Ok(evidence) = fit_word(*bds, w, ctx) {
            let context = evidence.context;
            out.insert(*bds, evidence.score());
            if lead.is_none() || context > lead_ctx {
                if lead.is_some() {
                    second_ctx = lead_ctx;
                }
                lead = Some(*bds);
                lead_ctx = context;
            } else {
                second_ctx = second_ctx.max(context);
            }
        }
    }
    out.best = match out.candidates.len() {
        1 => lead,
        n if n > 1 && lead_ctx >= second_ctx + SEPARATION_BITS => lead,
        _ => None,
    };
    Ok(out)
}

/// Check how well register `bds` explains an MB field.
///
/// Checks run in the order of [`Reject`]: fixed header, reserved bits,
/// status bits (a field whose status bit is 0 must be zero), physical
/// ranges, cross-field consistency, then the caller's [`Context`]. Every
/// register needs at least one non-zero bit (else [`Reject::Empty`]);
/// [`Bds::Empty`] fits only the all-zero field.
///
/// | register | range | consistency | context |
/// |---|---|---|---|
/// | 1,0 | — | — | — |
/// | 1,7 | — | 2,0 announced (every Mode S aircraft supports it) | — |
/// | 2,0 | characters in the set, first one not a space | — | — |
/// | 3,0 | TTI ≠ 3, TID bits beyond the TTI's data zero (reserved), bearing code ≤ 60 | — | — |
/// | 4,0 | selected altitudes ≤ 50 000 ft, QNH 850–1100 hPa | an altitude or QNH present | — |
/// | 4,4 | source code ≤ 4, wind ≤ 250 kt, SAT −80…+60 °C, pressure ≤ 1100 hPa | wind present | — |
/// | 4,5 | SAT −80…+60 °C, pressure ≤ 1100 hPa, radio height ≤ 10 000 ft | — | — |
/// | 5,0 | \|roll\| ≤ 50°, GS ≤ 700 kt, TAS ≤ 560 kt | \|GS − TAS\| ≤ 200 kt | \|GS − ref\| ≤ 30 kt, \|track − ref\| ≤ 20°, \|TAS − ref GS\| ≤ 200 kt; at ref altitude ≥ 15 000 ft, GS and TAS ≥ 60 kt |
/// | 6,0 | IAS ≤ 500 kt, Mach ≤ 1, \|rates\| ≤ 6000 ft/min | \|baro − inertial rate\| ≤ 2500 ft/min; IAS and Mach imply a pressure altitude of −2000…55 000 ft | \|implied altitude − ref\| ≤ 2000 ft, \|TAS − ref GS\| ≤ 200 kt, \|heading − ref track\| ≤ 60°, \|rates − ref\| ≤ 1500 ft/min; at ref altitude ≥ 15 000 ft, IAS ≥ 60 kt |
///
/// Soft checks only add to the score: a 5,0 track rate matching the
/// coordinated-turn rate `1091·tan(roll)/TAS` °/s, 6,0 baro and inertial
/// rates within 500 ft/min, 4,0 selected altitudes within 8 ft of a
/// multiple of 100 ft.
///
/// The IAS/Mach altitude treats IAS as calibrated airspeed and solves the
/// subsonic compressible pitot relations of the ICAO standard atmosphere
/// (Doc 7488): impact pressure `qc = p₀((1 + 0.2(CAS/a₀)²)^3.5 − 1)` and
/// `qc/p = (1 + 0.2M²)^3.5 − 1` give the static pressure `p`, hence the
/// pressure altitude. On the 1,704 DF20 replies of the pyModeS corpus whose
/// 6,0 reading lands within 2000 ft of the reply's own altitude field, 99 %
/// land within 300 ft and all within 600 ft.
///
/// ```
/// use airwaves_core::modes::commb::{fit, Bds, Context, Mb, Reject};
/// // The Riddle's DF20 example, E519F331602401: as BDS 5,0 GS 394 kt but
/// // TAS 2 kt (a 392 kt wind); as BDS 6,0 IAS 249 kt at Mach 0.788, i.e.
/// // FL380 — the reply's own altitude.
/// let mb = Mb::new_checked(&[0xE5u8, 0x19, 0xF3, 0x31, 0x60, 0x24, 0x01][..]).unwrap();
/// let ctx = Context { altitude_ft: Some(38_000.0), ..Context::default() };
/// assert_eq!(fit(Bds::TrackAndTurn, &mb, &ctx), Err(Reject::Consistency));
/// assert!(fit(Bds::HeadingAndSpeed, &mb, &ctx).is_ok());
/// ```
pub fn fit<T: AsRef<[u8]>>(bds: Bds, mb: &Mb<T>, ctx: &Context) -> Result<Score, Reject> {
    if mb.check_len().is_err() {
        return Err(Reject::Truncated);
    }
    fit_word(bds, mb.bits(), ctx).map(Evidence::score)
}

/// Evidence for a register in bits (see [`Score`]): from the bits alone,
/// and from their agreement with the caller's [`Context`]. What
/// [`Register::check`] returns.
///
/// ```
/// use airwaves_core::modes::commb::{Evidence, Score};
/// let e = Evidence { intrinsic: 13, context: 4 };
/// assert_eq!(e.score(), Score(17));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Evidence {
    /// Bits of evidence from the MB field alone.
    pub intrinsic: u16,
    /// Bits of evidence from agreement with the [`Context`].
    pub context: u16,
}

impl Evidence {
    /// Evidence from the bits alone: `intrinsic` bits, no context.
    pub const fn intrinsic(intrinsic: u16) -> Evidence {
        Evidence {
            intrinsic,
            context: 0,
        }
    }

    /// The total, `intrinsic + context`.
    pub const fn score(self) -> Score {
        Score(self.intrinsic + self.context)
    }
}

fn fit_word(bds: Bds, w: u64, ctx: &Context) -> Result<Evidence, Reject> {
    if bds == Bds::Empty {
        return if w == 0 {
            Ok(Evidence::intrinsic(56))
        } else {
            Err(Reject::Reserved)
        };
    }
    if let Bds::Unknown(_) = bds {
        return Err(Reject::Unsupported);
    }
    if w == 0 {
        return Err(Reject::Empty);
    }
    super::check(bds, w, ctx)
}

/// `Ok(())` if `cond`, else `Err(r)`.
#[inline]
pub(super) fn require(cond: bool, r: Reject) -> Result<(), Reject> {
    if cond { Ok(()) } else { Err(r) }
}

/// Status consistency of gated fields; evidence = width of each absent field.
pub(super) fn status_evidence(w: u64, fields: &[Gated]) -> Result<u16, Reject> {
    let mut bits = 0;
    for g in fields {
        require(g.consistent(w), Reject::Status)?;
        if !g.valid(w) {
            bits += g.value.len as u16;
        }
    }
    Ok(bits)
}

/// Smallest absolute difference of two angles in degrees (0..=180).
pub(super) fn angle_diff(a: f32, b: f32) -> f32 {
    let d = libm::fmodf(libm::fabsf(a - b), 360.0);
    if d > 180.0 { 360.0 - d } else { d }
}

/// `Ok(())` if bits 1–8 of `w` are the register's [`Register::HEADER`]
/// (always, for registers without one).
pub(super) fn require_header<R: Register>(w: u64) -> Result<(), Reject> {
    let header = super::field::HEADER.get(w);
    require(R::HEADER.is_none_or(|h| header == h as u64), Reject::Header)
}

/// Pressure altitude above every airport (the highest is near 14 500 ft):
/// an aircraft reporting it is airborne.
pub(super) const AIRBORNE_ALT_FT: f32 = 15_000.0;
/// Least airspeed (and ground speed) of an airborne aircraft there, kt.
pub(super) const MIN_AIRBORNE_SPEED: u16 = 60;
