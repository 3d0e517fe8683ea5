//! What each aircraft's transponder sends, and when.
//!
//! # Squitters (DO-260B rates)
//!
//! | message | when | interval |
//! |---|---|---|
//! | DF17 TC 11 airborne position, even/odd alternating | airborne | 0.4–0.6 s |
//! | DF17 TC 6 surface position, even/odd alternating | on the ground, moving | 0.4–0.6 s |
//! | DF17 TC 6 surface position | on the ground, stopped | 4.8–5.2 s |
//! | DF17 TC 19 airborne velocity (ground speed, baro rate) | airborne | 0.4–0.6 s |
//! | DF17 TC 4 identification and category | always | 4.8–5.2 s |
//! | DF17 TC 31 operational status (airborne or surface subtype) | always | 2.4–2.6 s |
//! | DF17 TC 28 emergency/priority status with the Mode A code | always; squawking 7700 | 4.8–5.2 s; 0.7–0.9 s |
//! | DF11 acquisition squitter (II 0) | always | 0.8–1.2 s |
//! | DF0 short ACAS reply (to other aircraft's TCAS) | airborne | 1–3 s |
//!
//! DF11/17 carry CA 4 on the ground and CA 5 airborne; DF4/5/20/21 the
//! flight status (2/3 "alert" for a 7700 squawk), DF0 the VS bit.
//!
//! # Interrogated replies
//!
//! Two rotating Mode S radars sweep the sky ([`RADARS`]): an approach
//! radar at the airport (4.8 s per turn, 80 NM) that asks for altitude and
//! identity (DF4, DF5), and an en-route radar 40 NM south-west of the
//! receiver (10 s, 250 NM) with Enhanced Surveillance: DF4 and Comm-B
//! replies DF20 with BDS 4,0 (selected altitude), 5,0 (track and turn),
//! 6,0 (heading and speed), and DF21 with BDS 2,0 (identification). When
//! the beam crosses an aircraft it gets 2–4 interrogations 4–9 ms apart
//! (the beam's dwell), each answered with one reply.
//!
//! Every time is in integer nanoseconds of simulated time, and the queue is
//! ordered by (time, slot, message), so the sequence of transmissions is a
//! pure function of the seed.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use airwaves_core::modes::adsb::{
    AdsbRepr, AircraftStatus, CapabilityClass, CprFormat, CprPosition, EmergencyState,
    EmergencyStatus, Identification, Movement, OperationalStatus, SurfacePosition,
};
use airwaves_core::modes::commb::{
    AircraftIdentification, AutopilotModes, HeadingAndSpeed, Mb, SelectedVerticalIntention,
    TargetAltitudeSource, TrackAndTurn,
};
use airwaves_core::modes::cpr::{CprFrame, CprKind, Position};
use airwaves_core::modes::frame::{
    AltitudeCode, Capability, FlightStatus, IdentityCode, InterrogatorCode, Repr,
};

use super::sky::{Flight, Sky, advance, bearing_distance, wrap360};
use crate::sim::scene::{df17, df17_position, df17_velocity, emit};
use airwaves_core::rng::Rng;

/// Nanoseconds per second.
const NS: f64 = 1e9;

/// A rotating Mode S radar.
#[derive(Debug, Clone, Copy)]
pub struct Radar {
    /// Bearing of the radar from the receiver, degrees.
    pub bearing_deg: f64,
    /// Distance of the radar from the receiver, NM.
    pub distance_nm: f64,
    /// Time per turn, s.
    pub period_s: f64,
    /// Aircraft beyond this are not interrogated, NM.
    pub range_nm: f64,
    /// Enhanced Surveillance: asks for Comm-B registers.
    pub ehs: bool,
}

/// The two radars: approach (at the airport) and en-route.
pub const RADARS: [Radar; 2] = [
    Radar {
        bearing_deg: 45.0,
        distance_nm: super::sky::AIRPORT_OFFSET_NM,
        period_s: 4.8,
        range_nm: 80.0,
        ehs: false,
    },
    Radar {
        bearing_deg: 225.0,
        distance_nm: 40.0,
        period_s: 10.0,
        range_nm: 250.0,
        ehs: true,
    },
];

/// What an interrogation asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ask {
    /// DF4 altitude.
    Altitude,
    /// DF5 identity.
    Identity,
    /// DF21, BDS 2,0.
    Bds20,
    /// DF20, BDS 4,0.
    Bds40,
    /// DF20, BDS 5,0.
    Bds50,
    /// DF20, BDS 6,0.
    Bds60,
}

/// A scheduled transmission kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Msg {
    Position,
    Velocity,
    Identification,
    Status,
    Emergency,
    Squitter,
    Acas,
    /// A radar beam crosses the aircraft (index into [`RADARS`]).
    Sweep(u8),
    /// An interrogation to answer.
    Reply(Ask),
}

/// One queue entry; ordered by time, then slot, then kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Scheduled {
    t_ns: u64,
    slot: u32,
    msg: Msg,
}

/// A frame to put on the air.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transmission {
    /// Leading edge of the first preamble pulse, ns from the start.
    pub t_ns: u64,
    /// Slot of the sending aircraft in the [`Sky`].
    pub slot: usize,
    /// The frame (the first `len` bytes).
    pub bytes: [u8; 14],
    /// 7 or 14.
    pub len: usize,
}

/// Counts of what was transmitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TransmitStats {
    /// Frames by downlink format.
    pub by_df: [u64; 32],
}

/// Every aircraft's transponder: the queue of what is due next.
#[derive(Debug, Clone)]
pub struct Transponders {
    queue: BinaryHeap<Reverse<Scheduled>>,
    /// Next airborne / surface position is odd, per slot.
    odd: Vec<bool>,
    /// Rotation phase of each radar at t = 0, degrees.
    radar_phase: [f64; 2],
    radar_pos: [Position; 2],
    rng: Rng,
    stats: TransmitStats,
}

impl Transponders {
    /// Transponders for every flight of `sky` (at time 0), first messages
    /// spread over one interval.
    pub fn new(sky: &Sky, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let radar_phase = [rng.range(0.0, 360.0), rng.range(0.0, 360.0)];
        let rx = sky.receiver();
        let radar_pos = RADARS.map(|r| advance(rx, r.bearing_deg, r.distance_nm));
        let mut t = Self {
            queue: BinaryHeap::new(),
            odd: Vec::with_capacity(sky.flights().len()),
            radar_phase,
            radar_pos,
            rng,
            stats: TransmitStats::default(),
        };
        for slot in 0..sky.flights().len() {
            let odd = t.rng.below(2) == 1;
            t.odd.push(odd);
            for (msg, first) in [
                (Msg::Position, 0.5),
                (Msg::Velocity, 0.5),
                (Msg::Identification, 5.0),
                (Msg::Status, 2.5),
                (Msg::Emergency, 5.0),
                (Msg::Squitter, 1.0),
                (Msg::Acas, 3.0),
            ] {
                let at = t.rng.range(0.0, first);
                t.push(at * NS, slot, msg);
            }
            for r in 0..RADARS.len() {
                let at = t.next_sweep(r, sky, slot, 0.0);
                t.push(at * NS, slot, Msg::Sweep(r as u8));
            }
        }
        t
    }

    /// What has been sent so far.
    pub fn stats(&self) -> &TransmitStats {
        &self.stats
    }

    /// Time of the next scheduled event, ns.
    pub fn next_ns(&self) -> Option<u64> {
        self.queue.peek().map(|e| e.0.t_ns)
    }

    fn push(&mut self, t_ns: f64, slot: usize, msg: Msg) {
        self.queue.push(Reverse(Scheduled {
            t_ns: t_ns as u64,
            slot: slot as u32,
            msg,
        }));
    }

    /// First time at or after `t_s` when radar `r`'s beam points at the
    /// flight in `slot` (at its bearing at `t_s`).
    fn next_sweep(&self, r: usize, sky: &Sky, slot: usize, t_s: f64) -> f64 {
        let radar = RADARS[r];
        let brg = sky
            .state_at(slot, t_s)
            .map_or(0.0, |(_, p, _)| bearing_distance(self.radar_pos[r], p).0);
        let beam = self.radar_phase[r] + 360.0 * t_s / radar.period_s;
        t_s + wrap360(brg - beam) / 360.0 * radar.period_s
    }

    /// Handle the next scheduled event (the caller has advanced `sky` to
    /// its time): schedule what follows it and return the frame it puts on
    /// the air, if any.
    pub fn fire(&mut self, sky: &Sky) -> Option<Transmission> {
        let Reverse(ev) = self.queue.pop()?;
        let slot = ev.slot as usize;
        let t_s = ev.t_ns as f64 / NS;
        let (f, pos, alt) = sky.state_at(slot, t_s)?;
        let alt25 = (alt / 25.0).round() as i32 * 25;
        let ground = f.on_ground;
        let ca = if ground {
            Capability::Ground
        } else {
            Capability::Airborne
        };
        let rng = &mut self.rng;
        let mut again = |lo: f64, hi: f64| t_s + rng.range(lo, hi);
        let (next, frame) = match ev.msg {
            Msg::Position => {
                let odd = self.odd[slot];
                self.odd[slot] = !odd;
                if ground {
                    let moving = f.gs_kt >= 0.5;
                    let next = if moving {
                        again(0.4, 0.6)
                    } else {
                        again(4.8, 5.2)
                    };
                    (next, surface_position(f, pos, odd))
                } else {
                    let cpr = CprFrame::encode(CprKind::Airborne, odd, pos)
                        .unwrap_or(CprFrame::airborne(odd, 0, 0));
                    (again(0.4, 0.6), Some(df17_position(f.icao, alt25, cpr)))
                }
            }
            Msg::Velocity => {
                let frame = (!ground).then(|| {
                    let (s, c) = f.track_deg.to_radians().sin_cos();
                    df17_velocity(
                        f.icao,
                        (f.gs_kt * s).round() as i32,
                        (f.gs_kt * c).round() as i32,
                        f.vr_fpm.round() as i32,
                        true,
                        Some(75),
                    )
                });
                (again(0.4, 0.6), frame)
            }
            Msg::Identification => {
                let me = AdsbRepr::Identification(Identification {
                    category: f.category,
                    callsign: f.callsign,
                });
                (again(4.8, 5.2), Some(df17(ca, f.icao, &me)))
            }
            Msg::Status => (again(2.4, 2.6), Some(df17(ca, f.icao, &status(f)))),
            Msg::Emergency => {
                let emergency = f.squawk == 0x7700;
                let me = AdsbRepr::AircraftStatus(AircraftStatus::Emergency(EmergencyStatus {
                    state: if emergency {
                        EmergencyState::General
                    } else {
                        EmergencyState::None
                    },
                    mode_a_code: IdentityCode::from_squawk(f.squawk).raw(),
                }));
                let next = if emergency {
                    again(0.7, 0.9)
                } else {
                    again(4.8, 5.2)
                };
                (next, Some(df17(ca, f.icao, &me)))
            }
            Msg::Squitter => {
                let frame = emit(&Repr::AllCall {
                    ca,
                    aa: f.icao,
                    iid: InterrogatorCode::Ii(0),
                });
                (again(0.8, 1.2), Some(frame))
            }
            Msg::Acas => {
                let frame = (!ground).then(|| {
                    emit(&Repr::ShortAcas {
                        address: f.icao,
                        vs: false,
                        cc: true,
                        sl: 6,
                        ri: 3,
                        altitude: altitude_code(alt25),
                    })
                });
                (again(1.0, 3.0), frame)
            }
            Msg::Sweep(r) => {
                let r = usize::from(r);
                let radar = RADARS[r];
                let (_, d) = bearing_distance(self.radar_pos[r], pos);
                if d <= radar.range_nm {
                    let n = 2 + self.rng.below(3);
                    let mut t = t_s;
                    for k in 0..n {
                        let ask = match (radar.ehs, k) {
                            (false, 0) | (true, 0) => Ask::Altitude,
                            (false, _) => Ask::Identity,
                            (true, _) if ground => Ask::Bds20,
                            (true, _) => match self.rng.below(4) {
                                0 => Ask::Bds20,
                                1 => Ask::Bds40,
                                2 => Ask::Bds50,
                                _ => Ask::Bds60,
                            },
                        };
                        self.push(t * NS, slot, Msg::Reply(ask));
                        t += self.rng.range(0.004, 0.009);
                    }
                }
                let next = self.next_sweep(r, sky, slot, t_s + 0.5 * radar.period_s);
                (next, None)
            }
            Msg::Reply(ask) => {
                // One-shot: not rescheduled.
                let frame = reply(f, alt25, ask);
                let len = if frame[0] & 0x80 != 0 { 14 } else { 7 };
                self.stats.by_df[usize::from(frame[0] >> 3)] += 1;
                return Some(Transmission {
                    t_ns: ev.t_ns,
                    slot,
                    bytes: frame,
                    len,
                });
            }
        };
        self.push(next * NS, slot, ev.msg);
        let bytes = frame?;
        let len = if bytes[0] & 0x80 != 0 { 14 } else { 7 };
        self.stats.by_df[usize::from(bytes[0] >> 3)] += 1;
        Some(Transmission {
            t_ns: ev.t_ns,
            slot,
            bytes,
            len,
        })
    }
}

/// The AC13 altitude code for `ft` (a multiple of 25), "not available" if
/// out of range.
fn altitude_code(ft: i32) -> AltitudeCode {
    AltitudeCode::from_feet(ft).unwrap_or(AltitudeCode::from_raw(0))
}

/// DF17 TC 6 surface position.
fn surface_position(f: &Flight, pos: Position, odd: bool) -> Option<[u8; 14]> {
    let cpr = CprFrame::encode(CprKind::Surface, odd, pos).ok()?;
    let mut p = SurfacePosition::new(
        6,
        CprPosition {
            format: CprFormat::from(odd),
            lat: cpr.lat(),
            lon: cpr.lon(),
        },
    )?;
    p.movement = Movement::from_kt(f.gs_kt as f32);
    p.track_valid = f.gs_kt >= 0.5;
    p.track = ((f.track_deg * 128.0 / 360.0).round() as i64).rem_euclid(128) as u8;
    p.utc_sync = true;
    Some(df17(
        Capability::Ground,
        f.icao,
        &AdsbRepr::SurfacePosition(p),
    ))
}

/// DF17 TC 31 operational status (version 2), airborne or surface subtype.
fn status(f: &Flight) -> AdsbRepr {
    let heavy = f.category.ca() == 5;
    let capability = if f.on_ground {
        CapabilityClass::Surface {
            cc: 0,
            length_width: if heavy { 14 } else { 10 },
        }
    } else {
        CapabilityClass::Airborne(0x2100)
    };
    AdsbRepr::OperationalStatus(OperationalStatus {
        capability,
        operational_mode: 0,
        version: 2,
        nic_a: false,
        nac_p: 9,
        gva: 2,
        sil: 3,
        nic_baro_or_trk_hdg: !f.on_ground,
        hrd: false,
        sil_supplement: false,
    })
}

/// Flight status of DF4/5/20/21.
fn flight_status(f: &Flight) -> FlightStatus {
    match (f.squawk == 0x7700, f.on_ground) {
        (true, true) => FlightStatus::AlertGround,
        (true, false) => FlightStatus::AlertAirborne,
        (false, true) => FlightStatus::Ground,
        (false, false) => FlightStatus::Airborne,
    }
}

/// The reply to one interrogation.
fn reply(f: &Flight, alt25: i32, ask: Ask) -> [u8; 14] {
    let (address, fs, dr, um) = (f.icao, flight_status(f), 0, 0);
    let altitude = altitude_code(alt25);
    let identity = IdentityCode::from_squawk(f.squawk);
    match ask {
        Ask::Altitude => emit(&Repr::SurveillanceAltitude {
            address,
            fs,
            dr,
            um,
            altitude,
        }),
        Ask::Identity => emit(&Repr::SurveillanceIdentity {
            address,
            fs,
            dr,
            um,
            identity,
        }),
        Ask::Bds20 => emit(&Repr::CommBIdentity {
            address,
            fs,
            dr,
            um,
            identity,
            mb: bds20(f),
        }),
        Ask::Bds40 | Ask::Bds50 | Ask::Bds60 => emit(&Repr::CommBAltitude {
            address,
            fs,
            dr,
            um,
            altitude,
            mb: match ask {
                Ask::Bds40 => bds40(f),
                Ask::Bds50 => bds50(f),
                _ => bds60(f, alt25),
            },
        }),
    }
}

/// BDS 2,0: the callsign.
fn bds20(f: &Flight) -> [u8; 7] {
    let mut mb = Mb::new_unchecked([0u8; 7]);
    if let Ok(id) = AircraftIdentification::new(f.callsign.as_str().trim_end()) {
        id.emit(&mut mb);
    }
    mb.into_inner()
}

/// BDS 4,0: selected altitude (16 ft steps), standard pressure above the
/// transition altitude, autopilot modes.
fn bds40(f: &Flight) -> [u8; 7] {
    let sel = ((f.selected_alt_ft / 16.0).round() * 16.0).clamp(0.0, 65_520.0) as u16;
    let level = f.vr_fpm.abs() < 100.0;
    let s = SelectedVerticalIntention {
        mcp_altitude: Some(sel),
        fms_altitude: Some(sel),
        baro_setting: Some(if f.alt_ft > 6000.0 { 1013.2 } else { 1021.0 }),
        modes: Some(AutopilotModes {
            vnav: !level,
            alt_hold: level,
            approach: false,
        }),
        target_source: Some(TargetAltitudeSource::McpFcu),
    };
    let mut mb = Mb::new_unchecked([0u8; 7]);
    s.emit(&mut mb);
    mb.into_inner()
}

/// BDS 5,0: roll from the rate of turn (`tan φ = V ω / g`), true track,
/// ground speed, track rate, true airspeed (no wind: = ground speed).
fn bds50(f: &Flight) -> [u8; 7] {
    let v = f.gs_kt * 0.514_444; // m/s
    let roll = (v * f.turn_dps.to_radians() / 9.806_65).atan().to_degrees();
    let gs = f.gs_kt.round() as u16;
    let t = TrackAndTurn {
        roll: Some(roll as f32),
        true_track: Some(f.track_deg as f32),
        ground_speed: Some(gs),
        track_rate: Some(f.turn_dps as f32),
        true_airspeed: Some(gs),
    };
    let mut mb = Mb::new_unchecked([0u8; 7]);
    t.emit(&mut mb);
    mb.into_inner()
}

/// BDS 6,0: magnetic heading (2° west variation), IAS and Mach from the
/// true airspeed in the ISA, vertical rates.
fn bds60(f: &Flight, alt_ft: i32) -> [u8; 7] {
    let alt = f64::from(alt_ft.max(0));
    let temp_k = (288.15 - 1.98 * alt / 1000.0).max(216.65);
    let sound_kt = 661.47 * (temp_k / 288.15).sqrt();
    let ias = f.gs_kt / (1.0 + 0.02 * alt / 1000.0);
    let vr = f.vr_fpm.round().clamp(-16_384.0, 16_352.0) as i16;
    let h = HeadingAndSpeed {
        magnetic_heading: Some(wrap360(f.track_deg + 2.0) as f32),
        indicated_airspeed: Some(ias.round() as u16),
        mach: Some((f.gs_kt / sound_kt) as f32),
        baro_vertical_rate: Some(vr),
        inertial_vertical_rate: Some(vr),
    };
    let mut mb = Mb::new_unchecked([0u8; 7]);
    h.emit(&mut mb);
    mb.into_inner()
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::demo::DemoConfig;
    use airwaves_core::modes::commb::{self, Bds};
    use airwaves_core::modes::frame::Frame;

    /// Run the transponders of a 40-aircraft sky for `secs` and collect
    /// every transmission.
    fn run(secs: f64) -> (Sky, Vec<Transmission>) {
        let cfg = DemoConfig::default();
        let mut sky = Sky::new(&cfg, 1);
        let mut tx = Transponders::new(&sky, 2);
        let mut out = Vec::new();
        while let Some(t) = tx.next_ns() {
            if t as f64 / NS >= secs {
                break;
            }
            sky.advance_to(t as f64 / NS);
            out.extend(tx.fire(&sky));
        }
        (sky, out)
    }

    /// Every frame parses with a valid parity and the sender's address;
    /// the rates per aircraft are those of DO-260B; the Comm-B registers
    /// are what their inference says.
    #[test]
    fn test_rates_and_content() {
        let secs = 60.0;
        let (sky, out) = run(secs);
        let mut per_slot = vec![[0u32; 32]; sky.flights().len()];
        let mut bds = std::collections::BTreeSet::new();
        let mut last = 0;
        for t in &out {
            assert!(t.t_ns >= last, "out of order");
            last = t.t_ns;
            let b = &t.bytes[..t.len];
            let f = Frame::new_checked(b).unwrap();
            let repr = Repr::parse(&f).unwrap();
            assert!(repr.address().is_some());
            per_slot[t.slot][usize::from(f.df_code())] += 1;
            if f.df_code() == 20 || f.df_code() == 21 {
                let inf =
                    commb::infer(&Mb::new_unchecked(f.mb()), &commb::Context::default()).unwrap();
                bds.extend(inf.candidates().iter().map(|c| format!("{:?}", c.0)));
            }
        }
        // Aircraft that stayed in their slot all minute and airborne send
        // about 2 positions + 2 velocities per second.
        let df17: Vec<u32> = per_slot.iter().map(|c| c[17]).collect();
        let median = {
            let mut v = df17.clone();
            v.sort_unstable();
            v[v.len() / 2]
        };
        // 2 + 2 + 0.2 + 0.4 + 0.2 per second.
        assert!((260..=310).contains(&median), "{df17:?}");
        let df11: Vec<u32> = per_slot.iter().map(|c| c[11]).collect();
        assert!(
            df11.iter().filter(|&&n| (50..=70).contains(&n)).count() > 30,
            "{df11:?}"
        );
        for df in [0, 4, 5, 20, 21] {
            let n: u32 = per_slot.iter().map(|c| c[df]).sum();
            assert!(n > 20, "DF{df}: {n}");
        }
        for b in [
            Bds::AircraftIdentification,
            Bds::SelectedVerticalIntention,
            Bds::TrackAndTurn,
            Bds::HeadingAndSpeed,
        ] {
            assert!(bds.contains(&format!("{b:?}")), "{b:?} never fits: {bds:?}");
        }
    }

    /// A 7700 squawk shows as "alert" in the flight status, with the code
    /// in the identity field; on the ground the status says so.
    #[test]
    fn test_alert_and_ground_status() {
        let sky = Sky::new(&DemoConfig::default(), 1);
        let mut f = sky.flights()[0].clone();
        f.squawk = 0x7700;
        f.on_ground = false;
        let b = reply(&f, 35_000, Ask::Identity);
        let frame = Frame::new_checked(&b[..7]).unwrap();
        assert_eq!(frame.fs(), FlightStatus::AlertAirborne);
        assert_eq!(frame.squawk(), Some(0x7700));
        f.squawk = 0x1234;
        f.on_ground = true;
        let b = reply(&f, 0, Ask::Altitude);
        let frame = Frame::new_checked(&b[..7]).unwrap();
        assert_eq!(frame.fs(), FlightStatus::Ground);
        assert_eq!(frame.altitude_ft(), Some(0));
        let b = reply(&f, 0, Ask::Bds20);
        let frame = Frame::new_checked(&b[..]).unwrap();
        assert_eq!(frame.squawk(), Some(0x1234));
        let id = AircraftIdentification::parse(&Mb::new_unchecked(frame.mb())).unwrap();
        assert_eq!(id.as_str().trim_end(), f.callsign.as_str().trim_end());
    }
}
