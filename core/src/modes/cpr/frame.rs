//! The raw CPR content of a position message, alone and with its reception
//! time.

use super::CPR_MASK;
use super::zones::CprKind;

/// The raw CPR content of one position message: format flag, kind and the
/// two 17-bit fields.
///
/// In an ADS-B ME field (bits numbered 1–56 from the most significant), F is
/// bit 22, `lat_cpr` bits 23–39 and `lon_cpr` bits 40–56; the kind follows
/// from the type code ([`CprKind::from_type_code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CprFrame {
    pub(super) kind: CprKind,
    pub(super) odd: bool,
    pub(super) lat: u32,
    pub(super) lon: u32,
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
