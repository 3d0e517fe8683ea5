//! Merging a frame's content into the aircraft record: the Mode S header
//! (ground state, squawk), and a decoded ADS-B message (identity,
//! velocities, status and integrity fields); position messages go on to the
//! CPR logic ([`position`](super::position)).

use super::aircraft::{
    Aircraft, F_NIC_A, F_NIC_B, F_NIC_BARO, F_NIC_BARO_KNOWN, F_NIC_C, F_SIL_PER_SAMPLE,
    F_SIL_TYPE_KNOWN, F_VEL,
};
use super::config::TrackerConfig;
use super::outcome::PositionUpdate;
use super::stats::TrackerStats;
use crate::modes::adsb::{
    self, AdsbRepr, AircraftStatus, OperationalStatus, TargetState, Velocity, VerticalRateSource,
};
use crate::modes::cpr::CprKind;
use crate::modes::frame::{DownlinkFormat, Frame};

impl Aircraft {
    /// Merge what the Mode S header says: the ground state (DF11/17 CA,
    /// DF0/16 VS, DF4/5/20/21 FS) and the squawk (DF5/21).
    pub(super) fn apply_surveillance<T: AsRef<[u8]>>(&mut self, frame: &Frame<T>) {
        match frame.df() {
            DownlinkFormat::AllCall | DownlinkFormat::ExtendedSquitter => {
                self.set_on_ground(frame.ca().on_ground());
            }
            DownlinkFormat::ShortAcas | DownlinkFormat::LongAcas => {
                self.set_on_ground(Some(frame.vs()));
            }
            DownlinkFormat::SurveillanceAltitude | DownlinkFormat::CommBAltitude => {
                self.set_on_ground(frame.fs().on_ground());
            }
            DownlinkFormat::SurveillanceIdentity | DownlinkFormat::CommBIdentity => {
                self.set_on_ground(frame.fs().on_ground());
                if let Some(sq) = frame.squawk() {
                    self.squawk = sq;
                }
            }
            _ => {}
        }
    }

    /// Merge an ADS-B ME field; returns the effect on the position.
    pub(super) fn apply_adsb(
        &mut self,
        cfg: &TrackerConfig,
        stats: &mut TrackerStats,
        repr: &AdsbRepr,
        t: u64,
    ) -> PositionUpdate {
        match repr {
            AdsbRepr::Identification(id) => {
                self.callsign = id.callsign();
                self.category = (id.category.type_code() << 3) | (id.category.ca() & 7);
                PositionUpdate::None
            }
            AdsbRepr::SurfacePosition(p) => {
                self.set_on_ground(Some(true));
                let speed = p.speed_kt();
                if let Some(v) = speed {
                    self.gs = v;
                    self.track = p.track_deg().unwrap_or(self.track);
                    self.vel_t_ms = t;
                    self.flags |= F_VEL;
                }
                self.pos_tc = p.type_code();
                self.update_position(cfg, stats, CprKind::Surface, p.cpr, t, speed)
            }
            AdsbRepr::AirbornePosition(p) => {
                self.set_on_ground(Some(false));
                if let Some(alt) = p.altitude_ft() {
                    match p.altitude_source() {
                        adsb::AltitudeSource::Baro => self.set_altitude(alt, t),
                        adsb::AltitudeSource::Gnss => self.alt_gnss = alt,
                    }
                }
                self.set_flag(F_NIC_B, p.nic_b);
                self.pos_tc = p.type_code();
                self.update_position(cfg, stats, CprKind::Airborne, p.cpr, t, None)
            }
            AdsbRepr::AirborneVelocity(v) => {
                match v.velocity {
                    Velocity::Ground(_) => {
                        if let Some(gs) = v.ground_speed_kt() {
                            self.gs = gs;
                            self.vel_rejects = 0;
                        }
                        if let Some(trk) = v.track_deg() {
                            self.track = trk;
                        }
                    }
                    Velocity::Air(a) => {
                        if let Some(h) = a.heading_deg() {
                            self.heading = h;
                        }
                        if let Some((speed, kind)) = v.airspeed_kt() {
                            match kind {
                                adsb::AirspeedType::Indicated => self.ias = speed,
                                adsb::AirspeedType::True => self.tas = speed,
                            }
                        }
                    }
                }
                if let Some(r) = v.vertical_rate.fpm() {
                    let r = r.clamp(i32::from(i16::MIN) + 1, i32::from(i16::MAX)) as i16;
                    match v.vertical_rate.source {
                        VerticalRateSource::Baro => self.rate_baro = r,
                        VerticalRateSource::Gnss => self.rate_gnss = r,
                    }
                }
                if let Some(d) = v.gnss_baro_diff.ft() {
                    self.gnss_diff = d as i16; // ±3150 ft
                }
                self.nac_v = v.nac_v & 7;
                self.vel_t_ms = t;
                self.flags |= F_VEL;
                PositionUpdate::None
            }
            AdsbRepr::AircraftStatus(AircraftStatus::Emergency(e)) => {
                self.squawk = e.squawk();
                self.emergency = u8::from(e.state);
                PositionUpdate::None
            }
            AdsbRepr::TargetState(TargetState::V2(s)) => {
                self.nac_p = s.nac_p & 0xF;
                self.sil = s.sil & 3;
                self.set_flag(F_NIC_BARO, s.nic_baro);
                self.set_flag(F_SIL_PER_SAMPLE, s.sil_supplement);
                self.flags |= F_NIC_BARO_KNOWN | F_SIL_TYPE_KNOWN;
                PositionUpdate::None
            }
            AdsbRepr::OperationalStatus(o) => {
                self.apply_operational_status(o);
                PositionUpdate::None
            }
            _ => PositionUpdate::None,
        }
    }

    fn apply_operational_status(&mut self, o: &OperationalStatus) {
        self.version = o.version & 7;
        self.nac_p = o.nac_p & 0xF;
        self.sil = o.sil & 3;
        self.set_flag(F_NIC_A, o.nic_a);
        self.set_flag(F_SIL_PER_SAMPLE, o.sil_supplement);
        self.flags |= F_SIL_TYPE_KNOWN;
        match o.nic_c() {
            // Surface: supplement C; bit 53 is track/heading, not NICbaro.
            Some(c) => self.set_flag(F_NIC_C, c),
            None => {
                self.gva = o.gva & 3;
                self.set_flag(F_NIC_BARO, o.nic_baro_or_trk_hdg);
                self.flags |= F_NIC_BARO_KNOWN;
            }
        }
    }
}
