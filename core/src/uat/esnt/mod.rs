//! UAT downlink messages as 1090 MHz extended squitters (DF18), the way
//! the ecosystem's `uat2esnt` hands UAT targets to a Mode S tracker and to
//! Beast/AVR consumers: one [`DownlinkRepr`] becomes up to [`MAX_FRAMES`]
//! 112-bit frames with their parity.
//!
//! # Addresses
//!
//! | UAT address qualifier | DF18 CF | tracker type (readsb `type`) |
//! |---|---|---|
//! | 0 ADS-B, ICAO | 6 ADS-R | `adsr_icao` |
//! | 1 ADS-B self-assigned, 4 vehicle, 5 beacon, 6 ADS-R non-ICAO | 1 non-ICAO ADS-B | `adsb_other` |
//! | 2 TIS-B, ICAO | 2 fine TIS-B | `tisb_icao` |
//! | 3 TIS-B track file | 5 fine TIS-B, non-ICAO | `tisb_other` |
//! | 7 reserved | — (nothing) | |
//!
//! ADS-B with an ICAO address goes out as ADS-R (CF 6), as `uat2esnt`
//! writes it and readsb shows it: 1090 MHz users see a rebroadcast, not a
//! transponder of their own link.
//!
//! # Frames
//!
//! | UAT content | extended squitter |
//! |---|---|
//! | state vector, airborne, with position | TC 9–18 (barometric) or 20–22 (GNSS height) from the NIC, as an even **and** an odd CPR frame so a tracker decodes it at once |
//! | state vector, on the ground, with position | TC 5–8 from the NIC, movement and track, even and odd |
//! | airborne north/east velocity, vertical rate | TC 19 subtype 1 (subtype 2 for supersonic), with the mode status's NACv and the GNSS − baro difference when the auxiliary state vector carries the other altitude |
//! | mode status with a call sign | TC 1–4 identification; the emitter category `c` (0–31) is set `A + c/8`, so TC `4 − c/8`, category `c mod 8`; codes 32–39 (none in 1090 ES) become A0, no information |
//! | mode status with a squawk or an emergency | TC 28 subtype 1 |
//! | target state | TC 29 subtype 1 (selected altitude `code = alt/32 + 1`, baro `(hPa − 800)/0.8 + 1`, heading `deg·256/180` mod 512) |
//! | mode status | TC 31 operational status (version, NACp, SIL, GVA, NICbaro) |
//!
//! The barometric altitude goes in the position whenever the message has
//! one (from the state vector or the auxiliary one); otherwise the
//! geometric altitude, as GNSS height (TC 20–22).

use super::adsb::{AddressQualifier, AirGround, Altitude, Direction, DownlinkRepr, Motion};
use crate::modes::adsb::{
    AdsbRepr, AirbornePosition, AirborneVelocity, AircraftStatus, AltitudeDifference, Callsign,
    CapabilityClass, Category, CprFormat, CprPosition, EmergencyState, EmergencyStatus,
    GroundVelocity, Identification, Movement, OperationalStatus, SurfacePosition, TargetState,
    TargetStateV2, Velocity, VerticalRate, VerticalRateSource,
};
use crate::modes::altitude::encode_ac12;
use crate::modes::cpr::{CprFrame, CprKind, Position};
use crate::modes::frame::{ControlField, Frame, IdentityCode, Repr};

/// Most frames one downlink message becomes: two positions, velocity,
/// identification, status, target state, operational status.
pub const MAX_FRAMES: usize = 7;

/// One 112-bit extended squitter, parity included.
pub type EsFrame = [u8; 14];

/// The DF18 control field a qualifier maps to (see the module docs);
/// `None` for the reserved qualifier.
pub fn control_field(q: AddressQualifier) -> Option<ControlField> {
    Some(match q {
        AddressQualifier::AdsbIcao => ControlField::AdsR,
        AddressQualifier::TisbIcao => ControlField::TisbFine,
        AddressQualifier::TisbTrackFile => ControlField::TisbNonIcao,
        AddressQualifier::AdsbOther
        | AddressQualifier::Vehicle
        | AddressQualifier::FixedBeacon
        | AddressQualifier::AdsrOther => ControlField::AdsbNonIcao,
        _ => return None,
    })
}

/// Write the extended squitters for `msg` into `out`; returns how many
/// (0 for the reserved address qualifier or a message with nothing a
/// squitter can carry).
///
/// ```
/// use airwaves_core::uat::adsb::{AddressQualifier, DownlinkRepr};
/// use airwaves_core::uat::esnt;
/// let msg = DownlinkRepr { payload_type: 0, qualifier: AddressQualifier::AdsbIcao,
///     address: 0xA1B2C3, state: None, status: None, aux: None, target: None };
/// let mut out = [[0u8; 14]; esnt::MAX_FRAMES];
/// assert_eq!(esnt::translate(&msg, &mut out), 0);
/// ```
pub fn translate(msg: &DownlinkRepr, out: &mut [EsFrame; MAX_FRAMES]) -> usize {
    let Some(cf) = control_field(msg.qualifier) else {
        return 0;
    };
    let mut w = Writer {
        cf,
        aa: msg.address & 0xFF_FFFF,
        out,
        n: 0,
    };
    let baro_ft = baro_altitude(msg);
    if let Some(sv) = &msg.state {
        if let Some(pos) = sv.position {
            match sv.air_ground {
                AirGround::Subsonic | AirGround::Supersonic => {
                    for odd in [false, true] {
                        if let Some(me) = airborne_position(sv.nic, sv.altitude, baro_ft, pos, odd)
                        {
                            w.push(&me);
                        }
                    }
                }
                AirGround::Ground => {
                    for odd in [false, true] {
                        if let Some(me) = surface_position(sv.nic, &sv.motion, pos, odd) {
                            w.push(&me);
                        }
                    }
                }
                AirGround::Reserved => {}
            }
        }
        let supersonic = sv.air_ground == AirGround::Supersonic;
        let nac_v = msg.status.map_or(0, |s| s.nac_v);
        if let Some(me) = velocity(&sv.motion, supersonic, nac_v, gnss_baro_diff(msg)) {
            w.push(&me);
        }
    }
    if let Some(st) = &msg.status {
        if st.is_callsign {
            let mut buf = [0u8; 8];
            let text = st.text(&mut buf);
            // Codes past D7 have no extended squitter category: set A,
            // "no information" (A0).
            let c = st.emitter_category;
            let category = if c < 32 {
                Category::new(4 - c / 8, c % 8)
            } else {
                Category::new(4, 0)
            };
            if let (Some(category), Some(callsign), false) = (
                category,
                Callsign::from_ascii(text.as_bytes()),
                text.is_empty(),
            ) {
                w.push(&AdsbRepr::Identification(Identification {
                    category,
                    callsign,
                }));
            }
        }
        let squawk = st.squawk();
        if squawk.is_some() || st.emergency != 0 {
            w.push(&AdsbRepr::AircraftStatus(AircraftStatus::Emergency(
                EmergencyStatus {
                    state: EmergencyState::from(st.emergency),
                    mode_a_code: squawk.map_or(0, |s| IdentityCode::from_squawk(s).raw()),
                },
            )));
        }
        let on_ground = msg
            .state
            .is_some_and(|sv| sv.air_ground == AirGround::Ground);
        w.push(&AdsbRepr::OperationalStatus(OperationalStatus {
            capability: if on_ground {
                CapabilityClass::Surface {
                    cc: 0,
                    length_width: 0,
                }
            } else {
                CapabilityClass::Airborne(0)
            },
            operational_mode: 0,
            version: st.mops_version.min(2),
            nic_a: false,
            nac_p: st.nac_p,
            gva: st.gva,
            sil: st.sil,
            nic_baro_or_trk_hdg: st.nic_baro,
            hrd: false,
            sil_supplement: false,
        }));
    }
    if let Some(ts) = &msg.target {
        let (selected_altitude, fms_altitude) =
            ts.selected_altitude_ft.map_or((0, false), |(ft, fms)| {
                ((ft.clamp(0, 65_472) / 32 + 1) as u16, fms)
            });
        let baro_setting = ts.baro_setting_hpa.map_or(0, |hpa| {
            let code = libm::roundf((hpa - 800.0) / 0.8) + 1.0;
            if code.is_finite() && (1.0..=511.0).contains(&code) {
                code as u16
            } else {
                0
            }
        });
        let heading = ts
            .selected_heading_deg
            .filter(|d| d.is_finite())
            .map(|d| (libm::roundf(wrap360(d) * 256.0 / 180.0) as u16) & 0x1FF);
        let modes = ts.modes.unwrap_or(0);
        let status = msg.status;
        w.push(&AdsbRepr::TargetState(TargetState::V2(TargetStateV2 {
            sil_supplement: false,
            fms_altitude,
            selected_altitude,
            baro_setting,
            heading_available: heading.is_some(),
            selected_heading: heading.unwrap_or(0),
            nac_p: status.map_or(0, |s| s.nac_p),
            nic_baro: status.is_some_and(|s| s.nic_baro),
            sil: status.map_or(0, |s| s.sil),
            mode_valid: ts.modes.is_some(),
            autopilot: modes & 0x10 != 0,
            vnav: modes & 0x08 != 0,
            alt_hold: modes & 0x04 != 0,
            approach: modes & 0x02 != 0,
            tcas_operational: false,
            lnav: modes & 0x01 != 0,
        })));
    }
    w.n
}

/// Appends frames until `out` is full.
struct Writer<'a> {
    cf: ControlField,
    aa: u32,
    out: &'a mut [EsFrame; MAX_FRAMES],
    n: usize,
}

impl Writer<'_> {
    fn push(&mut self, me: &AdsbRepr) {
        let Some(slot) = self.out.get_mut(self.n) else {
            return;
        };
        let repr = Repr::ExtendedSquitterNonTransponder {
            cf: self.cf,
            aa: self.aa,
            me: me.to_bytes(),
        };
        *slot = [0; 14];
        if repr.emit(&mut Frame::new_unchecked(&mut slot[..])).is_ok() {
            self.n += 1;
        }
    }
}

/// The message's pressure altitude, ft, from the state vector or the
/// auxiliary state vector.
fn baro_altitude(msg: &DownlinkRepr) -> Option<i32> {
    let sv = msg.state.and_then(|s| s.altitude);
    let aux = msg.aux.and_then(|a| a.altitude);
    [sv, aux].into_iter().find_map(|a| match a {
        Some(Altitude::Pressure(ft)) => Some(ft),
        _ => None,
    })
}

/// Geometric minus pressure altitude, ft, when the message has both.
fn gnss_baro_diff(msg: &DownlinkRepr) -> Option<i32> {
    let sv = msg.state.and_then(|s| s.altitude)?;
    let aux = msg.aux.and_then(|a| a.altitude)?;
    match (sv, aux) {
        (Altitude::Pressure(p), Altitude::Geometric(g))
        | (Altitude::Geometric(g), Altitude::Pressure(p)) => Some(g - p),
        _ => None,
    }
}

fn cpr(kind: CprKind, pos: Position, odd: bool) -> Option<CprPosition> {
    let f = CprFrame::encode(kind, odd, pos).ok()?;
    Some(CprPosition {
        format: CprFormat::from(odd),
        lat: f.lat(),
        lon: f.lon(),
    })
}

/// Airborne position: barometric TC 9–18 by NIC (DO-260B Table 2-14),
/// else GNSS height TC 20–22.
fn airborne_position(
    nic: u8,
    altitude: Option<Altitude>,
    baro_ft: Option<i32>,
    pos: Position,
    odd: bool,
) -> Option<AdsbRepr> {
    let cpr = cpr(CprKind::Airborne, pos, odd)?;
    let (tc, code) = match (baro_ft, altitude) {
        (Some(ft), _) => (baro_type_code(nic), encode_ac12(ft)),
        (None, Some(Altitude::Geometric(ft))) => (
            match nic {
                11 => 20,
                10 => 21,
                _ => 22,
            },
            encode_ac12(ft),
        ),
        _ => (baro_type_code(nic), 0),
    };
    let mut p = AirbornePosition::new(tc, cpr)?;
    p.altitude_code = code;
    Some(AdsbRepr::AirbornePosition(p))
}

fn baro_type_code(nic: u8) -> u8 {
    match nic {
        11 => 9,
        10 => 10,
        8 | 9 => 11,
        7 => 12,
        6 => 13,
        5 => 14,
        4 => 15,
        2 | 3 => 16,
        1 => 17,
        _ => 18,
    }
}

/// Surface position: TC 5–8 by NIC, movement and track from the ground
/// motion.
fn surface_position(nic: u8, motion: &Motion, pos: Position, odd: bool) -> Option<AdsbRepr> {
    let cpr = cpr(CprKind::Surface, pos, odd)?;
    let tc = match nic {
        11 => 5,
        10 => 6,
        8 | 9 => 7,
        _ => 8,
    };
    let mut p = SurfacePosition::new(tc, cpr)?;
    if let Motion::Ground {
        speed_kt,
        direction,
        ..
    } = motion
    {
        if let Some(kt) = speed_kt {
            p.movement = Movement::from_kt(f32::from(*kt));
        }
        let deg = match direction {
            Some(
                Direction::TrueTrack(d) | Direction::TrueHeading(d) | Direction::MagneticHeading(d),
            ) => Some(*d),
            None => None,
        };
        if let Some(d) = deg.filter(|d| d.is_finite()) {
            p.track_valid = true;
            p.track = (libm::roundf(wrap360(d) * 128.0 / 360.0) as u8) & 0x7F;
        }
    }
    Some(AdsbRepr::SurfacePosition(p))
}

/// `deg` in [0, 360) (finite input).
fn wrap360(deg: f32) -> f32 {
    let r = libm::fmodf(deg, 360.0);
    if r < 0.0 { r + 360.0 } else { r }
}

/// Ground velocity code of a signed speed in `unit` kt: `(negative,
/// |v|/unit + 1)` capped at 1023.
fn speed_code(v: i32, unit: u32) -> (bool, u16) {
    (v < 0, (v.unsigned_abs() / unit + 1).min(1023) as u16)
}

/// TC 19 subtype 1 (subtype 2, 4 kt units, when supersonic).
fn velocity(
    motion: &Motion,
    supersonic: bool,
    nac_v: u8,
    diff_ft: Option<i32>,
) -> Option<AdsbRepr> {
    let Motion::Airborne {
        north_kt,
        east_kt,
        vertical_fpm,
    } = *motion
    else {
        return None;
    };
    if north_kt.is_none() && east_kt.is_none() && vertical_fpm.is_none() {
        return None;
    }
    let unit = if supersonic { 4 } else { 1 };
    let (south, ns) = north_kt.map_or((false, 0), |v| speed_code(v, unit));
    let (west, ew) = east_kt.map_or((false, 0), |v| speed_code(v, unit));
    let vertical_rate = match vertical_fpm {
        Some((fpm, baro)) => VerticalRate {
            source: if baro {
                VerticalRateSource::Baro
            } else {
                VerticalRateSource::Gnss
            },
            down: fpm < 0,
            code: (fpm.unsigned_abs() / 64 + 1).min(511) as u16,
        },
        None => VerticalRate {
            source: VerticalRateSource::Baro,
            down: false,
            code: 0,
        },
    };
    Some(AdsbRepr::AirborneVelocity(AirborneVelocity {
        intent_change: false,
        ifr_capability: false,
        nac_v: nac_v & 7,
        velocity: Velocity::Ground(GroundVelocity {
            supersonic,
            west,
            ew,
            south,
            ns,
        }),
        vertical_rate,
        gnss_baro_diff: AltitudeDifference::from_ft(diff_ft),
    }))
}

#[cfg(test)]
mod tests;
