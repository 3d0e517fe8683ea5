//! Aircraft tracker: a fixed-capacity table of the aircraft heard, fed with
//! received Mode S / ADS-B frames.
//!
//! [`Tracker<N>`](Tracker) holds up to `N` aircraft in caller-owned memory
//! (no allocation, `#![no_std]`); [`Tracker::update`] takes one received
//! frame and either merges it into the aircraft it belongs to or rejects it
//! with a [`RejectReason`]. Time is passed in (`u64` milliseconds of any
//! monotonic clock, as in [`cpr`](super::cpr)); nothing here reads a clock.
//!
//! # What is accepted
//!
//! | DF | address | accepted when |
//! |---|---|---|
//! | 11 | AA | remainder 0 (II 0 / squitter): always (it can add an aircraft); any other valid II/SI code: only for a [known](Tracker::is_known) address |
//! | 17 | AA | remainder 0 |
//! | 18 | AA (CF 0, 2, 6: ICAO; CF 1, 5: non-ICAO, keyed apart) | remainder 0; CF 3 (coarse TIS-B), 4 (management) and 7 are not decoded |
//! | 0, 4, 5, 16, 20, 21, 24 | recovered from the AP parity | only for a [known](Tracker::is_known) address |
//! | 19, others | | never ([`RejectReason::Unsupported`]) |
//!
//! An address is *known* while a DF11 with remainder 0, a DF17 or an ICAO
//! DF18 from it has been received within [`TrackerConfig::known_ms`] with at
//! most [`TrackerConfig::trusted_repaired_bits`] bits repaired. The address of
//! an AP frame is whatever its parity says, so any bit error turns it into a
//! random address: accepting AP frames only for known addresses rejects
//! almost all of those (a random 24-bit address hits one of `k` known ones
//! with probability `k/2²⁴`). Frames with more repaired bits than trusted are
//! likewise accepted only for known addresses, so they cannot add aircraft.
//! A demodulator can use [`Tracker::is_known`] as its address filter.
//!
//! # Plausibility
//!
//! CRC-valid frames can still be wrong (FRUIT overlaid on a frame, AP
//! frames whose parity hits a known address). Besides the CPR checks below,
//! each barometric altitude (DF0/4/16/20, ADS-B TC 9–18) must lie within
//! `max(500, min(100·Δt, 5000))` ft of the last one, and each ADS-B ground
//! velocity within `max(20, min(5·Δt, 200))` kt and (above 50 kt)
//! `max(20, min(10·Δt, 180))`° of the last one (Δt in s, plus
//! [`TrackerConfig::time_uncertainty_ms`]; the tolerances of pyModeS'
//! phantom notes). A frame failing either is rejected whole, CPR
//! included ([`RejectReason::AltitudeJump`], [`RejectReason::VelocityJump`]).
//! After [`TrackerConfig::max_plausibility_rejects`] consecutive rejections
//! the next value is accepted as the new reference, so a wrong first value
//! cannot lock the aircraft out.
//!
//! # Positions
//!
//! Each position message is kept as the aircraft's even or odd CPR frame
//! with its time and kind (airborne or surface), then:
//!
//! 1. **Global**: with the opposite frame of the same kind, received no
//!    more than 10 s (airborne) or 25 s / 50 s (surface, moving / at most
//!    25 kt) before it ([`cpr::decode_global_airborne`](super::cpr::decode_global_airborne),
//!    [`cpr::decode_global_surface`](super::cpr::decode_global_surface)). Surface frames are ambiguous by 90°:
//!    their reference is the receiver ([`TrackerConfig::receiver`]) or, if
//!    there is none, the aircraft's own last position; without either a
//!    surface aircraft gets no position. Airborne and surface frames are
//!    never paired.
//! 2. Else **local** relative to the aircraft's last position, while it is
//!    younger than [`SpeedCheck::max_reference_age_ms`](super::cpr::SpeedCheck::max_reference_age_ms) (the time to fly
//!    half a zone).
//! 3. Else **local relative to the receiver**, only if
//!    [`TrackerConfig::receiver_local_range_nm`] is set; the range used is
//!    capped at half a zone (180 NM airborne, 45 NM surface), and results
//!    more than half a zone from the receiver are rejected.
//!
//! Every new position must then be within [`TrackerConfig::max_range_nm`]
//! of the receiver (if known) and pass the [`SpeedCheck`](super::cpr::SpeedCheck) from the last
//! position (with the aircraft's ground speed + margin when a fresh one is
//! known, else 650 kt airborne / 200 kt surface; the allowance is widened by
//! [`TrackerConfig::time_uncertainty_ms`] of time-stamp uncertainty). A
//! rejected position is counted and its CPR frame dropped (both, for a
//! global pair), so it cannot pair again; the last position is kept. After
//! [`TrackerConfig::position_max_rejects`] rejections against the last
//! position (speed, or more than half a zone away) without a global decode
//! passing in between, the aircraft's position state is reset and it
//! re-acquires with the next global pair: that is how a track started by a
//! phantom recovers. Local results do not clear the count: decoded relative
//! to a wrong reference (e.g. one zone off, after a bad pair) they can form
//! a self-consistent wrong track, which only independent pairs expose.
//!
//! Positions and velocities older than [`TrackerConfig::stale_ms`] are
//! dropped (like dump1090-fa's `seen_pos` limit); aircraft not heard for
//! [`TrackerConfig::expiry_ms`] are removed.
//!
//! # Multilateration results
//!
//! mlat-client returns the positions a multilateration server computed as
//! synthesised DF18 frames (CF 2, ICAO address; CF 5 for a non-ICAO one):
//! an airborne position pair (TC 18, barometric altitude, NIC 0), an
//! altitude-only TC 0 frame, and TC 19 ground velocity, marked by the Beast
//! timestamp [`MLAT_TIMESTAMP`](crate::modes::encode::MLAT_TIMESTAMP).
//! Given as [`ReceivedFrame::as_mlat`], such a frame is checked and
//! decoded like any DF18 but:
//!
//! - an ICAO address is typed [`AddressType::Mlat`] (between TIS-B and
//!   non-ICAO ADS-B in the order of preference, as readsb ranks it);
//! - it does not make the address [known](Tracker::is_known);
//! - it yields to the aircraft's own data: while a position not from MLAT
//!   is younger than [`MLAT_YIELD_MS`], its content is ignored (the frame
//!   still counts as heard);
//! - the groups it sets (position, altitude, velocity) are marked as from
//!   MLAT ([`Aircraft::mlat_position`], [`Aircraft::mlat_altitude`],
//!   [`Aircraft::mlat_velocity`]) until a received frame sets them again.
//!
//! # UAT
//!
//! UAT (978 MHz) targets reach the tracker as the extended squitters
//! [`uat::esnt`](crate::uat::esnt) translates them into, given as
//! [`ReceivedFrame::as_uat`]: they are decoded like any DF18, and the
//! aircraft is marked as heard on UAT ([`Aircraft::heard_on_uat`], its
//! position as from UAT, [`Aircraft::uat_position`]). An aircraft heard
//! on both links is one entry with both marks.
//!
//! # Memory and cost
//!
//! The aircraft are stored densely in `[Aircraft; N]` (removal moves the
//! last entry into the hole), with an open-addressing index of `2N` `u16`
//! cells (linear probing, multiplicative hash of the 25-bit key). The index
//! is never more than half full, so a lookup takes on average about 1.5
//! probes when the address is present and 2.5 when it is absent (Knuth's
//! linear-probing estimates at load ½); deletion shifts the following
//! cluster back (no tombstones), so probe lengths do not degrade over time.
//! `update` is O(1) except when the table is full, when finding the entry to
//! evict scans all `N` (O(N)). Each `update` also checks one entry for
//! expiry (a round-robin sweep); [`Tracker::expire`] checks them all
//! (O(N)), e.g. once a second before output.
//!
//! `size_of::<Aircraft>()` is at most 200 bytes on every target (checked at
//! compile time; f64 latitude/longitude, f32 speeds and angles, `u64` ms
//! times, sentinels instead of `Option`s, packed flags), so a
//! `Tracker<256>` is about 51.5 KiB.
//!
//! # Time
//!
//! [`ReceivedFrame::t_ms`] is the reception time of the frame: it is used
//! for everything about the aircraft (CPR pairing, speed checks, last seen,
//! the known-address window). The `now_ms` argument of [`Tracker::update`]
//! and [`Tracker::expire`] is the current time, used only to expire other
//! entries. Both must come from the same clock.
//!
//! ```
//! use airwaves_core::modes::tracker::{ReceivedFrame, Tracker, TrackerConfig};
//! let mut tracker = Tracker::<16>::new(TrackerConfig::DEFAULT);
//! // The Riddle's airborne pair (odd at t = 0 s, even at t = 2 s).
//! let odd = [0x8D, 0x40, 0x62, 0x1D, 0x58, 0xC3, 0x86, 0x43, 0x5C, 0xC4, 0x12, 0x69, 0x2A, 0xD6];
//! let even = [0x8D, 0x40, 0x62, 0x1D, 0x58, 0xC3, 0x82, 0xD6, 0x90, 0xC8, 0xAC, 0x28, 0x63, 0xA7];
//! tracker.update(&ReceivedFrame::new(&odd, 0)).unwrap();
//! tracker.update(&ReceivedFrame::new(&even, 2_000)).unwrap();
//! let ac = tracker.get(0x40621D).unwrap();
//! let fix = ac.position().unwrap();
//! assert_eq!((fix.position.lat, fix.position.lon), (52.2572021484375, 3.91937255859375));
//! assert_eq!(ac.altitude_baro_ft(), Some(38_000));
//! ```

mod address;
mod aircraft;
mod config;
mod index;
mod merge;
mod outcome;
mod plausibility;
mod position;
mod received;
mod stats;
#[cfg(test)]
mod tests;

pub use address::{AddressType, NON_ICAO};
pub use aircraft::{Aircraft, MLAT_YIELD_MS};
pub use config::TrackerConfig;
pub use outcome::{PositionUpdate, RejectReason, UpdateOutcome};
pub use position::{PositionFix, PositionSource};
pub use received::ReceivedFrame;
pub use stats::TrackerStats;

use crate::modes::adsb::{self, AdsbRepr};
use crate::modes::altitude::decode_ac12;
use crate::modes::frame::{DownlinkFormat, Frame};
use aircraft::{
    F_HEARD_1090, F_HEARD_UAT, F_MLAT_ALT, F_MLAT_POS, F_MLAT_VEL, F_TRUSTED, F_UAT_POS,
};

/// Mask of the 24-bit address in a key.
const ADDR_MASK: u32 = 0xFF_FFFF;

/// A table of up to `N` aircraft; see the [module docs](self).
///
/// `N` must be in `1..=32767` (checked at compile time).
#[derive(Clone, Debug)]
pub struct Tracker<const N: usize> {
    config: TrackerConfig,
    stats: TrackerStats,
    len: usize,
    cursor: usize,
    aircraft: [Aircraft; N],
    /// `2N` cells, two per row: 0 = empty, else slot index + 1.
    index: [[u16; 2]; N],
}

impl<const N: usize> Tracker<N> {
    /// An empty tracker.
    ///
    /// ```
    /// use airwaves_core::modes::tracker::{Tracker, TrackerConfig};
    /// let t = Tracker::<64>::new(TrackerConfig::DEFAULT);
    /// assert!(t.is_empty());
    /// assert_eq!(t.capacity(), 64);
    /// ```
    // Out of line: the table (`[Aircraft::EMPTY; N]`, not a memset) is
    // assembled in this call's frame and the tracker written straight to
    // where the caller wants it. Inlined into a larger constructor
    // (`modes::receiver::Receiver`), it was built in a temporary and then
    // copied, and the temporary stayed in the caller's frame for as long
    // as the caller ran (6.6 KiB at 32 aircraft on the firmware).
    #[inline(never)]
    pub const fn new(config: TrackerConfig) -> Self {
        const {
            assert!(
                N >= 1 && N <= 32767,
                "Tracker capacity must be in 1..=32767"
            )
        };
        Tracker {
            config,
            stats: TrackerStats::new(),
            len: 0,
            cursor: 0,
            aircraft: [Aircraft::EMPTY; N],
            index: [[0; 2]; N],
        }
    }

    /// The configuration.
    pub fn config(&self) -> &TrackerConfig {
        &self.config
    }

    /// The configuration, to change it (takes effect from the next
    /// update).
    pub fn config_mut(&mut self) -> &mut TrackerConfig {
        &mut self.config
    }

    /// The counters.
    pub fn stats(&self) -> &TrackerStats {
        &self.stats
    }

    /// Number of aircraft in the table.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No aircraft in the table.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The capacity `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// The aircraft in the table, in no particular order. Call
    /// [`expire`](Self::expire) first to drop the ones not heard lately.
    pub fn iter(&self) -> impl Iterator<Item = &Aircraft> {
        self.aircraft.iter().take(self.len)
    }

    /// The aircraft with table key `key` (the 24-bit address, plus
    /// [`NON_ICAO`] for non-ICAO addresses).
    pub fn get(&self, key: u32) -> Option<&Aircraft> {
        self.find(key).and_then(|i| self.aircraft.get(i))
    }

    /// The aircraft with table key `key`, mutably (e.g. to add Comm-B
    /// data with [`Aircraft::set_mach`]).
    pub fn get_mut(&mut self, key: u32) -> Option<&mut Aircraft> {
        self.find(key).and_then(|i| self.aircraft.get_mut(i))
    }

    /// Whether `address` (24-bit ICAO) was heard in a trusted DF11
    /// (remainder 0), DF17 or ICAO DF18 within
    /// [`TrackerConfig::known_ms`] of `now_ms`: the condition for accepting
    /// its AP-format frames. O(1).
    ///
    /// ```
    /// use airwaves_core::modes::tracker::{ReceivedFrame, Tracker, TrackerConfig};
    /// let mut t = Tracker::<8>::new(TrackerConfig::DEFAULT);
    /// let df11 = [0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xE3]; // 484FDE, remainder 0
    /// assert!(!t.is_known(0x484FDE, 0));
    /// t.update(&ReceivedFrame::new(&df11, 0)).unwrap();
    /// assert!(t.is_known(0x484FDE, 59_000));
    /// assert!(!t.is_known(0x484FDE, 61_000));
    /// ```
    pub fn is_known(&self, address: u32, now_ms: u64) -> bool {
        self.get(address & ADDR_MASK)
            .is_some_and(|a| self.known(a, now_ms))
    }

    fn known(&self, a: &Aircraft, t: u64) -> bool {
        let window = self.config.known_ms.min(self.config.expiry_ms);
        a.flag(F_TRUSTED) && t.saturating_sub(a.trusted_ms) <= window
    }

    /// Remove every aircraft not heard for [`TrackerConfig::expiry_ms`] at
    /// `now_ms`, and drop positions and velocities older than
    /// [`TrackerConfig::stale_ms`]. Returns the number removed. O(N).
    pub fn expire(&mut self, now_ms: u64) -> usize {
        let mut removed = 0;
        let mut i = 0;
        while i < self.len {
            if self.expire_slot(i, now_ms) {
                removed += 1;
            } else {
                i += 1;
            }
        }
        removed
    }

    /// Expire or clean slot `i`; true if it was removed.
    fn expire_slot(&mut self, i: usize, now: u64) -> bool {
        let (expiry, stale) = (self.config.expiry_ms, self.config.stale_ms);
        let Some(a) = self.aircraft.get_mut(i) else {
            return false;
        };
        if now.saturating_sub(a.last_seen_ms) > expiry {
            self.remove(i);
            self.stats.aircraft_expired += 1;
            true
        } else {
            a.clear_stale(now, stale);
            false
        }
    }

    /// Feed one received frame; see the [module docs](self) for what is
    /// accepted. Its time, `frame.t_ms`, is the tracker's clock: for the
    /// frame's aircraft and to expire one other entry per call (round
    /// robin).
    ///
    /// ```
    /// use airwaves_core::modes::tracker::{RejectReason, ReceivedFrame, Tracker, TrackerConfig};
    /// let mut t = Tracker::<8>::new(TrackerConfig::DEFAULT);
    /// let df5 = [0x2A, 0x00, 0x51, 0x6D, 0x49, 0x2B, 0x80]; // AP address 510AF9
    /// assert_eq!(t.update(&ReceivedFrame::new(&df5, 0)), Err(RejectReason::UnknownAddress));
    /// ```
    pub fn update(&mut self, frame: &ReceivedFrame<'_>) -> Result<UpdateOutcome, RejectReason> {
        let r = self.update_inner(frame, frame.t_ms);
        match r {
            Ok(_) => self.stats.accepted += 1,
            Err(e) => self.stats.count_reject(e),
        }
        r
    }

    fn update_inner(
        &mut self,
        rx: &ReceivedFrame<'_>,
        now_ms: u64,
    ) -> Result<UpdateOutcome, RejectReason> {
        let Some(&b0) = rx.bytes.first() else {
            return Err(RejectReason::Length);
        };
        if let Some(c) = self.stats.frames_by_df.get_mut(usize::from(b0 >> 3)) {
            *c += 1;
        }
        self.sweep_step(now_ms);
        let frame = Frame::new_checked(rx.bytes).map_err(|_| RejectReason::Length)?;
        let t = rx.t_ms;
        let df = frame.df();
        let mut src = self.classify(&frame, rx.repaired_bits)?;
        if rx.mlat {
            // Computed elsewhere, not heard: it does not vouch for the
            // address (the known-address window).
            src.trusted = false;
            if src.addr_type.is_icao() {
                src.addr_type = AddressType::Mlat;
            }
        }

        // Find or add the aircraft.
        let mut new_aircraft = false;
        let mut evicted = None;
        let found = self.find(src.key);
        let live = found.filter(|&i| {
            self.aircraft
                .get(i)
                .is_some_and(|a| t.saturating_sub(a.last_seen_ms) <= self.config.expiry_ms)
        });
        let idx = match live {
            Some(i) => {
                if !src.can_create && !self.aircraft.get(i).is_some_and(|a| self.known(a, t)) {
                    return Err(RejectReason::UnknownAddress);
                }
                i
            }
            None if !src.can_create => return Err(RejectReason::UnknownAddress),
            None => {
                new_aircraft = true;
                self.stats.aircraft_added += 1;
                match found {
                    Some(i) => {
                        // Expired but not swept yet: start afresh.
                        self.stats.aircraft_expired += 1;
                        if let Some(a) = self.aircraft.get_mut(i) {
                            *a = Aircraft::new(src.key, src.addr_type, t);
                        }
                        i
                    }
                    None => {
                        let (i, e) = self.insert(src.key, src.addr_type, t);
                        evicted = e;
                        i
                    }
                }
            }
        };

        let cfg = self.config;
        let Some(ac) = self.aircraft.get_mut(idx) else {
            return Err(RejectReason::UnknownAddress);
        };
        ac.clear_stale(t, cfg.stale_ms);

        // Content and plausibility checks (nothing applied yet).
        let yields = rx.mlat && ac.has_own_position(t);
        let adsb = match df {
            DownlinkFormat::ExtendedSquitter | DownlinkFormat::ExtendedSquitterNonTransponder
                if !yields =>
            {
                AdsbRepr::parse(frame.me()).ok()
            }
            _ => None,
        };
        let altitude = match (&adsb, df) {
            (Some(AdsbRepr::AirbornePosition(p)), _) => match p.altitude_source() {
                adsb::AltitudeSource::Baro => p.altitude_ft(),
                adsb::AltitudeSource::Gnss => None,
            },
            _ if yields => None,
            // TC 0 (no position) may still carry the barometric altitude
            // (ME bits 9–20), as mlat-client's altitude-only results do.
            (Some(AdsbRepr::Unknown { tc: 0, bytes }), _) => {
                decode_ac12((u16::from(bytes[1]) << 4) | u16::from(bytes[2] >> 4))
            }
            (
                None,
                DownlinkFormat::ShortAcas
                | DownlinkFormat::SurveillanceAltitude
                | DownlinkFormat::LongAcas
                | DownlinkFormat::CommBAltitude,
            ) => frame.altitude_ft(),
            _ => None,
        };
        if let Some(alt) = altitude {
            ac.check_altitude(alt, t, &cfg)?;
        }
        if let Some(AdsbRepr::AirborneVelocity(v)) = &adsb {
            if let Some(gs) = v.ground_speed_kt() {
                ac.check_velocity(gs, v.track_deg(), t, &cfg)?;
            }
        }

        // Apply.
        ac.last_seen_ms = ac.last_seen_ms.max(t);
        ac.messages = ac.messages.saturating_add(1);
        ac.push_signal(rx.signal_dbfs);
        ac.addr_type = ac.addr_type.min(src.addr_type);
        if src.trusted {
            ac.trusted_ms = t;
            ac.flags |= F_TRUSTED;
        }
        if let Some(alt) = altitude {
            if !matches!(adsb, Some(AdsbRepr::AirbornePosition(_))) {
                ac.set_altitude(alt, t);
            }
        }
        ac.apply_surveillance(&frame);
        let position = match &adsb {
            Some(repr) => ac.apply_adsb(&cfg, &mut self.stats, repr, t),
            None => PositionUpdate::None,
        };
        if altitude.is_some() {
            ac.set_flag(F_MLAT_ALT, rx.mlat);
        }
        if matches!(position, PositionUpdate::Decoded(_)) {
            ac.set_flag(F_MLAT_POS, rx.mlat);
            ac.set_flag(F_UAT_POS, rx.uat);
        }
        if !rx.mlat {
            ac.flags |= if rx.uat { F_HEARD_UAT } else { F_HEARD_1090 };
        }
        if matches!(adsb, Some(AdsbRepr::AirborneVelocity(_))) {
            ac.set_flag(F_MLAT_VEL, rx.mlat);
        }
        Ok(UpdateOutcome {
            key: src.key,
            df,
            new_aircraft,
            evicted,
            position,
            adsb,
        })
    }

    /// Expire or clean one entry per call, round robin.
    fn sweep_step(&mut self, now: u64) {
        if self.len == 0 {
            return;
        }
        if self.cursor >= self.len {
            self.cursor = 0;
        }
        if !self.expire_slot(self.cursor, now) {
            self.cursor += 1;
        }
    }
}
