//! The simulated sky: aircraft, their roles and their motion.
//!
//! # Geometry
//!
//! Positions are latitude/longitude in degrees; motion is integrated on a
//! locally flat earth (a step of `d` NM along track `θ` moves
//! `d·cos θ / 60`° north and `d·sin θ / (60·cos lat)`° east), which is
//! exact to well under a metre per step. Distances and bearings for
//! guidance use the equirectangular approximation at the mean latitude.
//!
//! # Time
//!
//! Motion advances in fixed steps of [`STEP_S`] seconds of simulated time
//! (never in steps that depend on how the caller reads samples), so the
//! sky is a pure function of the configuration and the seed. Between steps
//! a flight's state is extrapolated along its track and vertical rate
//! ([`Flight::at`]).
//!
//! # Roles
//!
//! The population is fixed; each slot holds one [`FlightKind`]. The
//! airport lies [`AIRPORT_OFFSET_NM`] NM north-east of the receiver with
//! one runway (heading from [`DemoConfig::runway_heading_deg`], used in the
//! direction `+180°`, e.g. runway 24):
//!
//! - **Departure**: lines up, waits for the runway, rolls (4 kt/s), rotates
//!   at 145 kt, climbs at 2000–3000 ft/min, turns onto its departure
//!   heading above 1500 ft and becomes en-route traffic 40 NM out.
//! - **Arrival**: from 35–60 NM and 8000–12 000 ft to a point 16 NM out on
//!   the extended centreline, descending 300 ft per NM to go down to
//!   3000 ft, then a 3° glide path, touchdown, roll-out,
//!   taxi-in, parking; then the slot is reused.
//! - **Surface**: taxis at 8–18 kt near the terminal with stops, parks
//!   after 4–10 min.
//! - **En-route**: FL250–FL410, 400–500 kt, straight with occasional turns
//!   and level changes, crossing the area up to [`AREA_NM`] NM.
//! - **Light** and **Helicopter**: 500–4500 ft, 80–130 kt, wandering within
//!   30 NM for 10–40 min.
//!
//! A slot whose flight leaves the area, parks or ends its time is given a
//! new flight (new address and callsign) of the role furthest below its
//! share of the population (60 % en-route, 10 % each of the others, light
//! and helicopter sharing theirs), so the sky never empties and the
//! airport keeps working.
//!
//! # Kinds of sky ([`SkyKind`])
//!
//! - **Airport** (the default): the population above around the receiver,
//!   many strong replies within 10 NM plus en-route traffic to 200 NM.
//! - **Rural**: en-route traffic only, in an area centred
//!   [`RURAL_OFFSET_NM`] NM east of the receiver: nothing nearer than
//!   about 60 NM, most of it far and weak.
//! - **Mixed**: the rural sky plus one aircraft at 3000 ft and 360 kt
//!   that starts [`OVERFLIGHT_START_NM`] NM west of the receiver and passes
//!   0.5 NM north of it (closest at 200 s), then flies on east: a strong
//!   aircraft that approaches and leaves.

use std::collections::HashSet;
use std::f64::consts::PI;

use airwaves_core::modes::adsb::{Callsign, Category};
use airwaves_core::modes::cpr::Position;

use super::DemoConfig;
use airwaves_core::rng::Rng;

/// What kind of sky around the receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SkyKind {
    /// An airport 4 NM away and traffic to 200 NM.
    #[default]
    Airport,
    /// Far en-route traffic only.
    Rural,
    /// Rural plus one strong aircraft passing overhead.
    Mixed,
}

impl SkyKind {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Airport => "airport",
            Self::Rural => "rural",
            Self::Mixed => "mixed",
        }
    }
}

impl std::str::FromStr for SkyKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "airport" => Ok(Self::Airport),
            "rural" => Ok(Self::Rural),
            "mixed" => Ok(Self::Mixed),
            _ => Err(format!("sky {s:?}: use airport, rural or mixed")),
        }
    }
}

/// Distance of the rural traffic area's centre east of the receiver, NM.
pub const RURAL_OFFSET_NM: f64 = 260.0;
/// Where the mixed sky's overflight starts, NM west of the receiver.
pub const OVERFLIGHT_START_NM: f64 = 20.0;
/// The overflight's ground speed, kt.
pub const OVERFLIGHT_KT: f64 = 360.0;

/// Length of one motion step, s.
pub const STEP_S: f64 = 0.25;
/// Radius of the simulated area around the receiver, NM: flights beyond it
/// are replaced.
pub const AREA_NM: f64 = 200.0;
/// Distance of the airport reference point from the receiver, NM (to the
/// north-east).
pub const AIRPORT_OFFSET_NM: f64 = 4.0;
/// Half the runway length, NM.
const RUNWAY_HALF_NM: f64 = 0.9;
/// Distance of the approach entry point from the threshold, NM.
const APPROACH_ENTRY_NM: f64 = 16.0;
/// Glide path gradient, ft per NM (3°).
const GLIDE_FT_PER_NM: f64 = 318.0;
/// Departures become en-route traffic this far from the airport, NM.
const DEPARTURE_HANDOFF_NM: f64 = 40.0;
/// Light aircraft and helicopters stay within this range of the receiver,
/// NM.
const LIGHT_RANGE_NM: f64 = 30.0;

/// What a flight is doing in the simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlightKind {
    /// Taking off from the airport and climbing out.
    Departure,
    /// Approaching, landing and taxiing in.
    Arrival,
    /// Taxiing or parked on the airport surface.
    Surface,
    /// Cruising at FL250–FL410.
    EnRoute,
    /// Light aircraft (general aviation), low and slow.
    Light,
    /// Helicopter, low and slow.
    Helicopter,
}

/// Phase of a flight (what its pilot is doing).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Holding short / lined up, waiting for the runway.
    LineUp,
    /// Take-off roll.
    Roll,
    /// Climbing out (departure) towards its cruise level.
    Climb,
    /// Straight and level (or changing level), with occasional turns.
    Cruise,
    /// Flying to the approach entry point.
    Inbound,
    /// On the localiser and glide path.
    Final,
    /// Decelerating on the runway.
    Rollout,
    /// Taxiing (arrivals and surface traffic).
    Taxi,
    /// Stopped on the ground (a taxi stop or parked).
    Stopped,
    /// Light aircraft / helicopter wandering.
    Wander,
}

/// One simulated flight: identity, state at the last motion step, and the
/// targets its pilot steers towards.
#[derive(Debug, Clone)]
pub struct Flight {
    /// ICAO 24-bit address.
    pub icao: u32,
    /// Callsign (flight number or registration).
    pub callsign: Callsign,
    /// ADS-B emitter category.
    pub category: Category,
    /// Mode A code, 4 octal digits as hex nibbles (`0x7700`).
    pub squawk: u16,
    /// Role.
    pub kind: FlightKind,
    /// Position at [`Sky::time_s`], degrees.
    pub lat: f64,
    /// Longitude at [`Sky::time_s`], degrees.
    pub lon: f64,
    /// Barometric altitude, ft.
    pub alt_ft: f64,
    /// Ground speed, kt.
    pub gs_kt: f64,
    /// Track over ground, degrees from true north, 0–360.
    pub track_deg: f64,
    /// Vertical rate, ft/min (positive up).
    pub vr_fpm: f64,
    /// On the ground.
    pub on_ground: bool,
    /// Altitude the crew has selected, ft.
    pub selected_alt_ft: f64,
    /// Transponder carrier offset, Hz.
    pub carrier_hz: f32,
    /// Transmitter power relative to nominal, dB.
    pub power_db: f64,
    /// Rate of turn in the last step, °/s (positive = right).
    pub turn_dps: f64,
    phase: Phase,
    /// Seconds left in the current phase or leg.
    timer_s: f64,
    /// Seconds left before the slot is reused (surface, light).
    life_s: f64,
    tgt_track: f64,
    tgt_gs: f64,
    tgt_alt: f64,
    /// Climb or descent rate used to reach `tgt_alt`, ft/min.
    climb_fpm: f64,
    /// Heading flown after take-off, degrees.
    departure_track: f64,
    /// Cruise level of a departure, ft.
    cruise_alt: f64,
    /// Flies straight and level for ever (the mixed sky's overflight).
    scripted: bool,
}

impl Flight {
    /// The flight's state extrapolated `dt` seconds past the last step
    /// (along its track at its ground speed and vertical rate).
    pub fn at(&self, dt: f64) -> (Position, f64) {
        let p = advance(
            Position::new(self.lat, self.lon),
            self.track_deg,
            self.gs_kt * dt / 3600.0,
        );
        let alt = if self.on_ground {
            self.alt_ft
        } else {
            self.alt_ft + self.vr_fpm * dt / 60.0
        };
        (p, alt)
    }
}

/// The airport: reference point, runway thresholds and the direction in
/// use.
#[derive(Debug, Clone, Copy)]
pub struct Airport {
    /// Airport reference point (runway centre).
    pub reference: Position,
    /// Threshold where landings touch down and take-offs start.
    pub threshold: Position,
    /// Direction of the runway in use, degrees.
    pub heading_deg: f64,
    /// Field elevation, ft.
    pub elevation_ft: f64,
}

impl Airport {
    fn new(receiver: Position, runway_heading_deg: f64) -> Self {
        let reference = advance(receiver, 45.0, AIRPORT_OFFSET_NM);
        let heading_deg = wrap360(runway_heading_deg + 180.0);
        Self {
            reference,
            threshold: advance(reference, heading_deg + 180.0, RUNWAY_HALF_NM),
            heading_deg,
            elevation_ft: 0.0,
        }
    }

    /// The approach entry point on the extended centreline.
    fn approach_entry(&self) -> Position {
        advance(self.threshold, self.heading_deg + 180.0, APPROACH_ENTRY_NM)
    }
}

/// All flights and the simulated clock.
#[derive(Debug, Clone)]
pub struct Sky {
    receiver: Position,
    /// Centre of the traffic area (the receiver, or far east of it).
    centre: Position,
    shares: &'static [(FlightKind, f64)],
    airport: Airport,
    flights: Vec<Flight>,
    rng: Rng,
    used: HashSet<u32>,
    /// Time of the last motion step, s.
    time_s: f64,
    steps: u64,
    respawns: u64,
    emergencies: bool,
}

/// Share of each role in the population, in the order used for tie-breaks.
const SHARES: [(FlightKind, f64); 6] = [
    (FlightKind::EnRoute, 0.6),
    (FlightKind::Departure, 0.1),
    (FlightKind::Arrival, 0.1),
    (FlightKind::Surface, 0.1),
    (FlightKind::Light, 0.05),
    (FlightKind::Helicopter, 0.05),
];

/// The rural sky's population.
const RURAL_SHARES: [(FlightKind, f64); 1] = [(FlightKind::EnRoute, 1.0)];

/// Seconds of simulated time run before time 0, so the sky starts in a
/// lived-in state (aircraft on approach, departures climbing).
const WARM_UP_S: f64 = 600.0;

impl Sky {
    /// A sky of `cfg.aircraft` flights around `cfg.receiver`, warmed up so
    /// that time 0 finds the airport busy. Configuration is assumed valid
    /// ([`DemoSky::new`](super::DemoSky::new) checks it).
    pub fn new(cfg: &DemoConfig, seed: u64) -> Self {
        let (centre, shares): (Position, &'static [(FlightKind, f64)]) = match cfg.sky {
            SkyKind::Airport => (cfg.receiver, &SHARES),
            SkyKind::Rural | SkyKind::Mixed => {
                (advance(cfg.receiver, 90.0, RURAL_OFFSET_NM), &RURAL_SHARES)
            }
        };
        let mut sky = Self {
            receiver: cfg.receiver,
            centre,
            shares,
            airport: Airport::new(cfg.receiver, cfg.runway_heading_deg),
            flights: Vec::with_capacity(cfg.aircraft),
            rng: Rng::new(seed),
            used: HashSet::new(),
            time_s: 0.0,
            steps: 0,
            respawns: 0,
            emergencies: cfg.emergencies,
        };
        for _ in 0..cfg.aircraft {
            let kind = sky.most_needed(None);
            let f = sky.spawn(kind, true);
            sky.flights.push(f);
        }
        let warm_steps = (WARM_UP_S / STEP_S) as u64;
        for _ in 0..warm_steps {
            sky.step();
        }
        sky.time_s = 0.0;
        sky.steps = 0;
        sky.respawns = 0;
        if cfg.sky == SkyKind::Mixed {
            let mut f = sky.spawn(FlightKind::EnRoute, true);
            let p = advance(advance(cfg.receiver, 0.0, 0.5), 270.0, OVERFLIGHT_START_NM);
            (f.lat, f.lon) = (p.lat, p.lon);
            f.alt_ft = 3000.0;
            f.gs_kt = OVERFLIGHT_KT;
            f.track_deg = 90.0;
            f.vr_fpm = 0.0;
            (f.tgt_track, f.tgt_gs, f.tgt_alt) = (90.0, OVERFLIGHT_KT, 3000.0);
            f.selected_alt_ft = 3000.0;
            f.scripted = true;
            sky.flights.push(f);
        }
        sky
    }

    /// The flights (one per slot, slots never change).
    pub fn flights(&self) -> &[Flight] {
        &self.flights
    }

    /// Time of the last motion step, s from the start.
    pub fn time_s(&self) -> f64 {
        self.time_s
    }

    /// The receiver's position.
    pub fn receiver(&self) -> Position {
        self.receiver
    }

    /// The airport.
    pub fn airport(&self) -> Airport {
        self.airport
    }

    /// Flights replaced since time 0.
    pub fn respawns(&self) -> u64 {
        self.respawns
    }

    /// Run motion steps until the next one would pass `t_s`; afterwards
    /// `time_s() ≤ t_s < time_s() + STEP_S` (unless `t_s` is in the past).
    pub fn advance_to(&mut self, t_s: f64) {
        while ((self.steps + 1) as f64) * STEP_S <= t_s {
            self.step();
        }
    }

    /// State of flight `i` at `t_s` (at or after the last step): position
    /// and altitude extrapolated.
    pub fn state_at(&self, i: usize, t_s: f64) -> Option<(&Flight, Position, f64)> {
        let f = self.flights.get(i)?;
        let (p, alt) = f.at((t_s - self.time_s).max(0.0));
        Some((f, p, alt))
    }

    /// The role furthest below its share, for a new flight in a new slot
    /// (`None`) or in slot `reuse` (whose flight is not counted).
    fn most_needed(&self, reuse: Option<usize>) -> FlightKind {
        let n = match reuse {
            Some(_) => self.flights.len(),
            None => self.flights.len() + 1,
        } as f64;
        let mut best = (FlightKind::EnRoute, f64::MIN);
        for &(kind, share) in self.shares {
            let have = self
                .flights
                .iter()
                .enumerate()
                .filter(|&(j, f)| f.kind == kind && Some(j) != reuse)
                .count() as f64;
            let deficit = share * n - have;
            if deficit > best.1 {
                best = (kind, deficit);
            }
        }
        best.0
    }

    /// One motion step of every flight, then replacement of finished ones.
    fn step(&mut self) {
        let dt = STEP_S;
        let runway_busy = self.runway_busy();
        let mut taking_off = false;
        for i in 0..self.flights.len() {
            let done = {
                let airport = self.airport;
                let receiver = self.centre;
                let f = &mut self.flights[i];
                let done = pilot(
                    f,
                    &airport,
                    receiver,
                    &mut self.rng,
                    runway_busy || taking_off,
                );
                if f.phase == Phase::Roll {
                    taking_off = true;
                }
                fly(f, dt);
                done
            };
            if done {
                let kind = self.most_needed(Some(i));
                self.flights[i] = self.spawn(kind, false);
                self.respawns += 1;
            }
        }
        self.steps += 1;
        self.time_s = self.steps as f64 * STEP_S;
    }

    /// A departure may not start its roll while another rolls or an
    /// arrival is within 3 NM of the threshold or rolling out.
    fn runway_busy(&self) -> bool {
        self.flights.iter().any(|f| match f.phase {
            Phase::Roll | Phase::Rollout => true,
            Phase::Final => {
                let (_, d) = bearing_distance(Position::new(f.lat, f.lon), self.airport.threshold);
                d < 3.0
            }
            _ => false,
        })
    }

    /// A new flight of `kind`. `initial`: spread over the whole area and
    /// every stage (at start-up); else entering the area from its edge.
    fn spawn(&mut self, kind: FlightKind, initial: bool) -> Flight {
        let (callsign, category, icao) = self.identity(kind);
        let rng = &mut self.rng;
        let squawk = if matches!(kind, FlightKind::Light | FlightKind::Helicopter) {
            0x7000
        } else if self.emergencies && kind == FlightKind::EnRoute && rng.below(150) == 0 {
            0x7700
        } else {
            // First digit 1–6 (clear of the special 7xxx codes), then octal.
            (0..3).fold(1 + rng.below(6) as u16, |acc, _| {
                (acc << 4) | rng.below(8) as u16
            })
        };
        let ap = self.airport;
        let mut f = Flight {
            icao,
            callsign,
            category,
            squawk,
            kind,
            lat: ap.reference.lat,
            lon: ap.reference.lon,
            alt_ft: ap.elevation_ft,
            gs_kt: 0.0,
            track_deg: 0.0,
            vr_fpm: 0.0,
            on_ground: true,
            selected_alt_ft: 0.0,
            carrier_hz: rng.range(-100e3, 100e3) as f32,
            power_db: rng.range(-2.0, 2.0),
            turn_dps: 0.0,
            phase: Phase::Stopped,
            timer_s: 0.0,
            life_s: f64::INFINITY,
            tgt_track: 0.0,
            tgt_gs: 0.0,
            tgt_alt: ap.elevation_ft,
            climb_fpm: 0.0,
            departure_track: 0.0,
            cruise_alt: 0.0,
            scripted: false,
        };
        match kind {
            FlightKind::Departure => {
                let p = advance(ap.threshold, ap.heading_deg + 90.0, rng.range(0.03, 0.15));
                (f.lat, f.lon) = (p.lat, p.lon);
                f.track_deg = ap.heading_deg;
                f.tgt_track = ap.heading_deg;
                f.phase = Phase::LineUp;
                f.climb_fpm = rng.range(2000.0, 3000.0);
                f.departure_track = wrap360(ap.heading_deg + rng.range(-120.0, 120.0));
                f.cruise_alt = 1000.0 * (20 + rng.below(17)) as f64;
                f.selected_alt_ft = 6000.0;
            }
            FlightKind::Arrival => {
                let entry = ap.approach_entry();
                let d = if initial {
                    rng.range(20.0, 60.0)
                } else {
                    rng.range(35.0, 60.0)
                };
                let p = advance(entry, rng.range(0.0, 360.0), d);
                (f.lat, f.lon) = (p.lat, p.lon);
                f.alt_ft = 1000.0 * (8 + rng.below(5)) as f64;
                f.on_ground = false;
                f.gs_kt = rng.range(260.0, 300.0);
                f.track_deg = bearing_distance(p, entry).0;
                f.phase = Phase::Inbound;
                f.cruise_alt = f.alt_ft;
                f.tgt_alt = f.alt_ft;
                f.selected_alt_ft = f.alt_ft;
                f.climb_fpm = 1500.0;
            }
            FlightKind::Surface => {
                let p = advance(ap.reference, rng.range(0.0, 360.0), rng.range(0.2, 1.0));
                (f.lat, f.lon) = (p.lat, p.lon);
                f.track_deg = rng.range(0.0, 360.0);
                f.phase = Phase::Taxi;
                f.life_s = rng.range(240.0, 600.0);
            }
            FlightKind::EnRoute => {
                let (p, track) = if initial {
                    // Uniform over the disc.
                    let r = AREA_NM * rng.uniform().sqrt();
                    (
                        advance(self.centre, rng.range(0.0, 360.0), r),
                        rng.range(0.0, 360.0),
                    )
                } else {
                    let p = advance(self.centre, rng.range(0.0, 360.0), AREA_NM - 5.0);
                    let aim = advance(self.centre, rng.range(0.0, 360.0), rng.range(0.0, 120.0));
                    (p, bearing_distance(p, aim).0)
                };
                (f.lat, f.lon) = (p.lat, p.lon);
                f.alt_ft = 1000.0 * (25 + rng.below(17)) as f64;
                f.on_ground = false;
                f.gs_kt = rng.range(400.0, 500.0);
                f.track_deg = track;
                f.phase = Phase::Cruise;
                f.timer_s = rng.range(60.0, 600.0);
                f.climb_fpm = 1500.0;
            }
            FlightKind::Light | FlightKind::Helicopter => {
                let heli = kind == FlightKind::Helicopter;
                let p = advance(
                    self.centre,
                    rng.range(0.0, 360.0),
                    LIGHT_RANGE_NM * rng.uniform().sqrt(),
                );
                (f.lat, f.lon) = (p.lat, p.lon);
                f.alt_ft = if heli {
                    100.0 * (5 + rng.below(11)) as f64
                } else {
                    500.0 * (3 + rng.below(7)) as f64
                };
                f.on_ground = false;
                f.gs_kt = if heli {
                    rng.range(80.0, 120.0)
                } else {
                    rng.range(90.0, 130.0)
                };
                f.track_deg = rng.range(0.0, 360.0);
                f.phase = Phase::Wander;
                f.timer_s = rng.range(60.0, 300.0);
                f.life_s = rng.range(600.0, 2400.0);
                f.climb_fpm = 500.0;
            }
        }
        f.tgt_track = f.track_deg;
        f.tgt_gs = f.gs_kt;
        if !f.on_ground && kind != FlightKind::Arrival {
            f.tgt_alt = f.alt_ft;
            f.selected_alt_ft = f.alt_ft;
        }
        f
    }

    /// Callsign, category and a fresh ICAO address for a new flight.
    fn identity(&mut self, kind: FlightKind) -> (Callsign, Category, u32) {
        /// Operator, first address and span of its country's block (an
        /// approximation of the ICAO allocations), long-haul share.
        const AIRLINES: [(&str, u32, u32); 14] = [
            ("KLM", 0x484000, 0x2000),
            ("KLM", 0x484000, 0x2000),
            ("TRA", 0x486000, 0x1000),
            ("EZY", 0x400000, 0x8000),
            ("BAW", 0x400000, 0x8000),
            ("DLH", 0x3C0000, 0x8000),
            ("RYR", 0x4CA000, 0x1000),
            ("AFR", 0x390000, 0x8000),
            ("UAE", 0x896000, 0x1000),
            ("SAS", 0x478000, 0x1000),
            ("IBE", 0x340000, 0x4000),
            ("EJU", 0x440000, 0x2000),
            ("WZZ", 0x471000, 0x1000),
            ("KLC", 0x485000, 0x1000),
        ];
        const LETTERS: &[u8; 26] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let rng = &mut self.rng;
        let (text, ca, base, span) = match kind {
            FlightKind::Light | FlightKind::Helicopter => {
                let mut s = String::from("PH");
                for _ in 0..3 {
                    s.push(char::from(LETTERS[rng.below(26) as usize]));
                }
                let ca = if kind == FlightKind::Helicopter { 7 } else { 1 };
                (s, ca, 0x480000, 0x4000)
            }
            _ => {
                let (op, base, span) = AIRLINES[rng.below(AIRLINES.len() as u64) as usize];
                let mut s = String::from(op);
                if rng.below(10) < 3 {
                    s.push_str(&format!("{}", 1 + rng.below(99)));
                    for _ in 0..2 {
                        s.push(char::from(LETTERS[rng.below(26) as usize]));
                    }
                } else {
                    s.push_str(&format!("{}", 1 + rng.below(9999)));
                }
                let heavy = op == "UAE" || (op == "KLM" && rng.below(3) == 0);
                (s, if heavy { 5 } else { 3 }, base, span)
            }
        };
        let callsign = Callsign::from_ascii(text.as_bytes())
            .unwrap_or_else(|| Callsign::from_ascii(b"DEMO").expect("literal callsign is valid"));
        let category = Category::new(4, ca).expect("set A, category 1..=7");
        let icao = loop {
            let a = base + rng.below(u64::from(span)) as u32;
            if a != 0 && self.used.insert(a) {
                break a;
            }
        };
        (callsign, category, icao)
    }
}

/// Decide `f`'s targets for this step; true when the flight is finished
/// and its slot should be reused.
fn pilot(
    f: &mut Flight,
    ap: &Airport,
    receiver: Position,
    rng: &mut Rng,
    runway_busy: bool,
) -> bool {
    let pos = Position::new(f.lat, f.lon);
    f.timer_s -= STEP_S;
    f.life_s -= STEP_S;
    match f.phase {
        Phase::LineUp => {
            f.tgt_gs = 0.0;
            if !runway_busy && f.timer_s <= 0.0 {
                // Move onto the centreline and roll.
                (f.lat, f.lon) = (ap.threshold.lat, ap.threshold.lon);
                f.phase = Phase::Roll;
            }
        }
        Phase::Roll => {
            f.tgt_track = ap.heading_deg;
            f.tgt_gs = 170.0;
            if f.gs_kt >= 145.0 {
                f.on_ground = false;
                f.phase = Phase::Climb;
                f.tgt_alt = f.cruise_alt;
            }
        }
        Phase::Climb => {
            f.tgt_gs = if f.alt_ft < 10_000.0 { 250.0 } else { 440.0 };
            if f.alt_ft > ap.elevation_ft + 1500.0 {
                f.tgt_track = f.departure_track;
            }
            f.selected_alt_ft = if f.alt_ft < 5000.0 {
                6000.0
            } else {
                f.cruise_alt
            };
            if bearing_distance(pos, ap.reference).1 > DEPARTURE_HANDOFF_NM {
                f.kind = FlightKind::EnRoute;
                f.phase = Phase::Cruise;
                f.timer_s = rng.range(120.0, 600.0);
            }
        }
        Phase::Cruise if f.scripted => {}
        Phase::Cruise => {
            if f.timer_s <= 0.0 {
                f.timer_s = rng.range(120.0, 600.0);
                match rng.below(3) {
                    0 => {
                        let turn = rng.range(15.0, 45.0);
                        f.tgt_track =
                            wrap360(f.track_deg + if rng.below(2) == 0 { turn } else { -turn });
                    }
                    1 => {
                        let up = rng.below(2) == 0;
                        f.tgt_alt = (f.tgt_alt + if up { 2000.0 } else { -2000.0 })
                            .clamp(25_000.0, 41_000.0);
                        f.selected_alt_ft = f.tgt_alt;
                    }
                    _ => {}
                }
            }
            f.tgt_gs = f.tgt_gs.max(400.0);
            return bearing_distance(pos, receiver).1 > AREA_NM + 5.0;
        }
        Phase::Inbound => {
            let entry = ap.approach_entry();
            let (brg, d) = bearing_distance(pos, entry);
            f.tgt_track = brg;
            f.tgt_gs = if d < 15.0 { 200.0 } else { 260.0 };
            // Descent profile: 300 ft per NM to go, down to 3000 ft.
            f.tgt_alt = (3000.0 + 300.0 * d).min(f.cruise_alt);
            f.selected_alt_ft = ((f.tgt_alt / 1000.0).floor() * 1000.0).max(3000.0);
            if d < 2.0 {
                f.phase = Phase::Final;
            }
        }
        Phase::Final => {
            // Localiser: steer onto the centreline; glide path: 3°.
            let (brg, d) = bearing_distance(pos, ap.threshold);
            let off = wrap180(brg - ap.heading_deg); // + = centreline is to the right
            let xtrack = d * (off * PI / 180.0).sin();
            let along = d * (off * PI / 180.0).cos();
            f.tgt_track = wrap360(ap.heading_deg + (xtrack * 30.0).clamp(-30.0, 30.0));
            f.tgt_gs = if along > 4.0 { 160.0 } else { 140.0 };
            f.tgt_alt = (ap.elevation_ft + along * GLIDE_FT_PER_NM).min(3000.0);
            f.climb_fpm = 2000.0;
            f.selected_alt_ft = 3000.0;
            if along < 0.05 {
                f.on_ground = true;
                f.alt_ft = ap.elevation_ft;
                f.vr_fpm = 0.0;
                f.phase = Phase::Rollout;
            }
        }
        Phase::Rollout => {
            f.tgt_gs = 20.0;
            if f.gs_kt <= 21.0 {
                f.phase = Phase::Taxi;
                f.tgt_track = wrap360(ap.heading_deg + 90.0);
                f.timer_s = rng.range(20.0, 40.0);
                f.life_s = rng.range(60.0, 150.0);
            }
        }
        Phase::Taxi => {
            f.tgt_gs = f.tgt_gs.clamp(8.0, 18.0);
            if f.timer_s <= 0.0 {
                if rng.below(10) < 3 {
                    f.phase = Phase::Stopped;
                    f.tgt_gs = 0.0;
                    f.timer_s = rng.range(20.0, 60.0);
                } else {
                    f.tgt_track = rng.range(0.0, 360.0);
                    f.tgt_gs = rng.range(8.0, 18.0);
                    f.timer_s = rng.range(20.0, 60.0);
                }
            }
            let (brg, d) = bearing_distance(pos, ap.reference);
            if d > 1.2 {
                f.tgt_track = brg;
            }
            if f.life_s <= 0.0 {
                f.phase = Phase::Stopped;
                f.tgt_gs = 0.0;
                f.timer_s = rng.range(20.0, 40.0);
                // Parked: finished after the stop.
                f.life_s = f64::NEG_INFINITY;
            }
        }
        Phase::Stopped => {
            f.tgt_gs = 0.0;
            if f.timer_s <= 0.0 {
                if f.life_s == f64::NEG_INFINITY {
                    return true;
                }
                f.phase = Phase::Taxi;
                f.tgt_gs = rng.range(8.0, 18.0);
                f.timer_s = rng.range(20.0, 60.0);
            }
        }
        Phase::Wander => {
            if f.timer_s <= 0.0 {
                f.timer_s = rng.range(60.0, 300.0);
                f.tgt_track = rng.range(0.0, 360.0);
                if rng.below(3) == 0 {
                    let step = if f.kind == FlightKind::Helicopter {
                        200.0
                    } else {
                        500.0
                    };
                    f.tgt_alt = (f.tgt_alt + if rng.below(2) == 0 { step } else { -step })
                        .clamp(500.0, 4500.0);
                    f.selected_alt_ft = f.tgt_alt;
                }
            }
            let (brg, d) = bearing_distance(pos, receiver);
            if d > LIGHT_RANGE_NM {
                f.tgt_track = brg;
            }
            return f.life_s <= 0.0;
        }
    }
    false
}

/// Move `f` one step towards its targets.
fn fly(f: &mut Flight, dt: f64) {
    let turn_rate = if f.on_ground { 10.0 } else { 3.0 }; // °/s
    let accel = match f.phase {
        Phase::Roll => 4.0,
        Phase::Rollout => 3.0,
        _ if f.on_ground => 2.0,
        _ => 1.0,
    }; // kt/s
    let diff = wrap180(f.tgt_track - f.track_deg);
    let turn = diff.clamp(-turn_rate * dt, turn_rate * dt);
    f.turn_dps = turn / dt;
    f.track_deg = wrap360(f.track_deg + turn);
    f.gs_kt += (f.tgt_gs - f.gs_kt).clamp(-accel * dt, accel * dt);
    f.gs_kt = f.gs_kt.max(0.0);
    if f.on_ground {
        f.vr_fpm = 0.0;
    } else {
        let want = f.tgt_alt - f.alt_ft;
        let rate = if f.phase == Phase::Climb {
            f.climb_fpm
        } else {
            f.climb_fpm.max(500.0)
        };
        f.vr_fpm = (want * 60.0 / dt).clamp(-rate, rate);
        f.alt_ft += f.vr_fpm * dt / 60.0;
    }
    let p = advance(
        Position::new(f.lat, f.lon),
        f.track_deg,
        f.gs_kt * dt / 3600.0,
    );
    (f.lat, f.lon) = (p.lat, p.lon);
}

/// `p` moved `nm` NM along `bearing_deg` (flat earth).
pub fn advance(p: Position, bearing_deg: f64, nm: f64) -> Position {
    let b = bearing_deg.to_radians();
    let lat = p.lat + nm * b.cos() / 60.0;
    let mid = (0.5 * (p.lat + lat)).to_radians().cos();
    let mut lon = p.lon + nm * b.sin() / (60.0 * mid);
    if lon >= 180.0 {
        lon -= 360.0;
    } else if lon < -180.0 {
        lon += 360.0;
    }
    Position::new(lat, lon)
}

/// Bearing (degrees, 0–360) and distance (NM) from `a` to `b`
/// (equirectangular).
pub fn bearing_distance(a: Position, b: Position) -> (f64, f64) {
    let mid = (0.5 * (a.lat + b.lat)).to_radians().cos();
    let dx = wrap180(b.lon - a.lon) * 60.0 * mid;
    let dy = (b.lat - a.lat) * 60.0;
    (wrap360(dx.atan2(dy).to_degrees()), dx.hypot(dy))
}

/// Angle in [−180, 180).
pub fn wrap180(a: f64) -> f64 {
    (a + 180.0).rem_euclid(360.0) - 180.0
}

/// Angle in [0, 360).
pub fn wrap360(a: f64) -> f64 {
    a.rem_euclid(360.0)
}

#[cfg(test)]
mod test {
    use super::*;

    fn cfg(aircraft: usize) -> DemoConfig {
        DemoConfig {
            aircraft,
            ..DemoConfig::default()
        }
    }

    #[test]
    fn test_geometry() {
        let a = Position::new(52.0, 4.0);
        let b = advance(a, 90.0, 60.0);
        let (brg, d) = bearing_distance(a, b);
        assert!((brg - 90.0).abs() < 0.5, "{brg}");
        assert!((d - 60.0).abs() < 0.01, "{d}");
        let c = advance(a, 225.0, 10.0);
        let (brg, d) = bearing_distance(a, c);
        assert!((brg - 225.0).abs() < 0.01 && (d - 10.0).abs() < 0.001);
        // Agrees with the great-circle distance of cpr to 0.5 %.
        let g = airwaves_core::modes::cpr::distance_nm(a, advance(a, 30.0, 150.0));
        assert!((g - 150.0).abs() < 0.75, "{g}");
        assert_eq!(wrap180(190.0), -170.0);
        assert_eq!(wrap360(-10.0), 350.0);
    }

    /// Two simulated hours of motion: the population stays full with the
    /// role mix kept, addresses stay distinct, everything stays in the
    /// area, flights are replaced, and departures, arrivals and taxiing
    /// aircraft keep appearing.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_long_run_respawn() {
        let c = cfg(40);
        let mut sky = Sky::new(&c, 11);
        let mut seen_roll = 0;
        let mut seen_final = 0;
        let mut seen_landing = false;
        let mut seen_takeoff = false;
        let mut prev_ground: Vec<(u32, bool)> = Vec::new();
        for minute in 1..=120 {
            sky.advance_to(60.0 * f64::from(minute));
            let fl = sky.flights();
            assert_eq!(fl.len(), 40);
            let addrs: HashSet<u32> = fl.iter().map(|f| f.icao).collect();
            assert_eq!(addrs.len(), 40, "duplicate addresses");
            for f in fl {
                let (_, d) = bearing_distance(sky.receiver(), Position::new(f.lat, f.lon));
                assert!(d < AREA_NM + 10.0, "{f:?} at {d} NM");
                assert!((-100.0..45_000.0).contains(&f.alt_ft), "{f:?}");
                assert!((0.0..600.0).contains(&f.gs_kt), "{f:?}");
                assert!(
                    !f.on_ground || f.alt_ft == sky.airport().elevation_ft,
                    "{f:?}"
                );
                if let Some(&(_, g)) = prev_ground.iter().find(|(a, _)| *a == f.icao) {
                    seen_landing |= g != f.on_ground && f.on_ground;
                    seen_takeoff |= g != f.on_ground && !f.on_ground;
                }
            }
            prev_ground = fl.iter().map(|f| (f.icao, f.on_ground)).collect();
            seen_roll += fl
                .iter()
                .filter(|f| f.kind == FlightKind::Departure)
                .count();
            seen_final += fl.iter().filter(|f| f.kind == FlightKind::Arrival).count();
            let on_ground = fl.iter().filter(|f| f.on_ground).count();
            let enroute = fl.iter().filter(|f| f.kind == FlightKind::EnRoute).count();
            assert!(on_ground >= 1, "minute {minute}: nobody on the ground");
            assert!(enroute >= 15, "minute {minute}: {enroute} en-route");
        }
        assert!(sky.respawns() > 40, "{}", sky.respawns());
        assert!(
            seen_roll > 60 && seen_final > 60,
            "{seen_roll} {seen_final}"
        );
        assert!(seen_landing && seen_takeoff);
    }

    /// Same seed, same sky; another seed, another sky.
    #[test]
    fn test_deterministic() {
        let c = cfg(12);
        let mut a = Sky::new(&c, 5);
        let mut b = Sky::new(&c, 5);
        a.advance_to(30.0);
        b.advance_to(30.0);
        let key = |s: &Sky| {
            s.flights()
                .iter()
                .map(|f| (f.icao, f.lat.to_bits(), f.alt_ft.to_bits()))
                .collect::<Vec<_>>()
        };
        assert_eq!(key(&a), key(&b));
        assert_ne!(key(&a), key(&Sky::new(&c, 6)));
    }

    /// A departure rolls, lifts off at about 145 kt and climbs at its
    /// chosen rate; an arrival on final descends at about 700–900 ft/min
    /// and lands on the threshold.
    #[test]
    fn test_airport_traffic() {
        let mut sky = Sky::new(&cfg(40), 3);
        let mut lifted = None;
        let mut landed = None;
        for k in 0..(1800.0 / STEP_S) as u32 {
            let before: Vec<(u32, bool)> = sky
                .flights()
                .iter()
                .map(|f| (f.icao, f.on_ground))
                .collect();
            sky.advance_to(f64::from(k + 1) * STEP_S);
            for (f, (a, g)) in sky.flights().iter().zip(before) {
                if f.icao != a || g == f.on_ground {
                    continue;
                }
                if f.on_ground {
                    let (_, d) =
                        bearing_distance(Position::new(f.lat, f.lon), sky.airport().threshold);
                    landed.get_or_insert((d, f.gs_kt));
                } else {
                    lifted.get_or_insert((f.gs_kt, f.vr_fpm, f.climb_fpm));
                }
            }
        }
        let (gs, vr, climb) = lifted.expect("a take-off in 30 min");
        assert!((145.0..155.0).contains(&gs), "{gs}");
        assert!(
            (2000.0..=3000.0).contains(&climb) && vr > 0.0,
            "{vr} {climb}"
        );
        let (d, gs) = landed.expect("a landing in 30 min");
        assert!(d < 0.3 && (120.0..170.0).contains(&gs), "{d} {gs}");
    }
}
