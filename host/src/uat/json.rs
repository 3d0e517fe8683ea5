//! dump978-fa's JSON for a UAT downlink message: one object per line, as
//! dump978-fa writes it on TCP 30979 (`--json-port`) and skyaware978
//! reads it.
//!
//! Keys in dump978-fa's order and names, each present only when the
//! message carries it: `address_qualifier` (`adsb_icao`, `adsb_other`,
//! `tisb_icao`, `tisb_trackfile`, `vehicle`, `fixed_beacon`,
//! `adsr_other`, `reserved`), `address` (6 hex digits), `position`
//! (`lat`, `lon`, 5 decimals), `pressure_altitude` or
//! `geometric_altitude` (ft), `nic`, `airground_state` (`airborne`,
//! `supersonic`, `ground`, `reserved`), `north_velocity`,
//! `east_velocity`, `vv_src`, `vertical_velocity_barometric` or
//! `_geometric` (kt, ft/min), `ground_speed`, `magnetic_heading`,
//! `true_heading`, `true_track` (1 decimal), `aircraft_size` (`length`,
//! `width`, m), `utc_coupled`, `uplink_feedback`, `tisb_site_id`,
//! `emitter_category` (`A0`…`D7`), `callsign` or `flightplan_id`,
//! `emergency` (`none`, `general`, `medical`, `minfuel`, `nordo`,
//! `unlawful`, `downed`, `reserved`), `mops_version`, `sil`,
//! `transmit_mso`, `sda`, `nac_p`, `nac_v`, `nic_baro`,
//! `capability_codes` and `operational_modes` (flags), `sil_supplement`
//! (`per_hour`, `per_sample`), `gva`, `single_antenna`,
//! `nic_supplement`, `selected_altitude_type` (`mcp_fcu`, `fms`),
//! `selected_altitude_mcp` or `_fms`, `barometric_pressure_setting`,
//! `selected_heading`, `mode_indicators`; then `metadata` (`rssi`,
//! `errors`, `received_at` in seconds). Not written: the ground GPS
//! antenna offsets (not decoded).

use crate::json::JsonWriter;
use airwaves_core::uat::adsb::{
    AddressQualifier, AirGround, Altitude, Direction, DownlinkRepr, Motion, VEHICLE_SIZES_M,
};
use airwaves_core::uat::demod::Message;

/// Round to `d` decimals, as dump978-fa does before writing.
fn round(v: f64, d: i32) -> f64 {
    let k = 10f64.powi(d);
    (v * k).round() / k
}

/// Append the JSON line (object and newline) of the downlink message `r`
/// decoded from `m`, received at Unix time `received_at` (seconds; `None`
/// leaves it out), as dump978-fa serves them on 30979.
pub fn write_downlink_line(
    r: &DownlinkRepr,
    m: &Message,
    received_at: Option<f64>,
    out: &mut String,
) {
    write_downlink(r, m.rssi_dbfs, m.errors, received_at, out);
    out.push('\n');
}

/// Append the JSON object (no newline) of the downlink message `r`,
/// received with `rssi_dbfs` after `errors` corrections at Unix time
/// `received_at` (seconds; `None` leaves it out).
pub fn write_downlink(
    r: &DownlinkRepr,
    rssi_dbfs: f32,
    errors: u16,
    received_at: Option<f64>,
    out: &mut String,
) {
    let mut o = JsonWriter::object(out);
    o.string(
        "address_qualifier",
        match r.qualifier {
            AddressQualifier::AdsbIcao => "adsb_icao",
            AddressQualifier::AdsbOther => "adsb_other",
            AddressQualifier::TisbIcao => "tisb_icao",
            AddressQualifier::TisbTrackFile => "tisb_trackfile",
            AddressQualifier::Vehicle => "vehicle",
            AddressQualifier::FixedBeacon => "fixed_beacon",
            AddressQualifier::AdsrOther => "adsr_other",
            AddressQualifier::Reserved => "reserved",
        },
    );
    o.string("address", &format!("{:06x}", r.address));
    if let Some(sv) = &r.state {
        if let Some(p) = sv.position {
            let mut pos = o.nested("position");
            pos.float("lat", round(p.lat, 5), 5);
            pos.float("lon", round(p.lon, 5), 5);
            pos.close_object();
        }
        match sv.altitude {
            Some(Altitude::Pressure(ft)) => o.int("pressure_altitude", ft),
            Some(Altitude::Geometric(ft)) => o.int("geometric_altitude", ft),
            None => {}
        }
        o.uint("nic", u64::from(sv.nic));
        o.string(
            "airground_state",
            match sv.air_ground {
                AirGround::Subsonic => "airborne",
                AirGround::Supersonic => "supersonic",
                AirGround::Ground => "ground",
                AirGround::Reserved => "reserved",
            },
        );
        match sv.motion {
            Motion::Airborne {
                north_kt,
                east_kt,
                vertical_fpm,
            } => {
                if let Some(n) = north_kt {
                    o.int("north_velocity", n);
                }
                if let Some(e) = east_kt {
                    o.int("east_velocity", e);
                }
                if let Some((v, baro)) = vertical_fpm {
                    o.string("vv_src", if baro { "barometric" } else { "geometric" });
                    let key = if baro {
                        "vertical_velocity_barometric"
                    } else {
                        "vertical_velocity_geometric"
                    };
                    o.int(key, v);
                }
                if let Some((gs, track)) = sv.speed_and_track() {
                    o.float("ground_speed", round(f64::from(gs), 1), 1);
                    o.float("true_track", round(f64::from(track), 1), 1);
                }
            }
            Motion::Ground {
                speed_kt,
                direction,
                size,
            } => {
                if let Some(gs) = speed_kt {
                    o.uint("ground_speed", u64::from(gs));
                }
                match direction {
                    Some(Direction::MagneticHeading(a)) => {
                        o.float("magnetic_heading", round(f64::from(a), 1), 1)
                    }
                    Some(Direction::TrueHeading(a)) => {
                        o.float("true_heading", round(f64::from(a), 1), 1)
                    }
                    Some(Direction::TrueTrack(a)) => {
                        o.float("true_track", round(f64::from(a), 1), 1)
                    }
                    None => {}
                }
                if size != 0 {
                    let (l, w) = VEHICLE_SIZES_M[usize::from(size & 15)];
                    let mut s = o.nested("aircraft_size");
                    s.float("length", f64::from(l), 1);
                    s.float("width", f64::from(w), 1);
                    s.close_object();
                }
            }
            Motion::Unknown => {}
        }
        if let Some(site) = sv.tisb_site_id {
            o.uint("tisb_site_id", u64::from(site));
        } else {
            o.boolean("utc_coupled", sv.utc_coupled);
            if let Some(f) = sv.uplink_feedback {
                o.uint("uplink_feedback", u64::from(f));
            }
        }
    }
    if let Some(ms) = &r.status {
        if let Some(c) = ms.category_code() {
            o.string("emitter_category", core::str::from_utf8(&c).unwrap_or(""));
        }
        let mut buf = [0u8; 8];
        let text = ms.text(&mut buf);
        if !text.is_empty() {
            if ms.is_callsign {
                o.string("callsign", text);
            } else if ms.squawk().is_some() {
                o.string("flightplan_id", text);
            }
        }
        o.string(
            "emergency",
            [
                "none", "general", "medical", "minfuel", "nordo", "unlawful", "downed", "reserved",
            ][usize::from(ms.emergency & 7)],
        );
        o.uint("mops_version", u64::from(ms.mops_version));
        o.uint("sil", u64::from(ms.sil));
        o.uint("transmit_mso", u64::from(ms.transmit_mso));
        o.uint("sda", u64::from(ms.sda));
        o.uint("nac_p", u64::from(ms.nac_p));
        o.uint("nac_v", u64::from(ms.nac_v));
        o.uint("nic_baro", u64::from(ms.nic_baro));
        let flag = |bit: u8| ms.flags & (0x80 >> bit) != 0;
        let mut cc = o.nested("capability_codes");
        cc.boolean("uat_in", flag(0));
        cc.boolean("es_in", flag(1));
        cc.boolean("tcas_operational", flag(2));
        cc.close_object();
        let mut om = o.nested("operational_modes");
        om.boolean("tcas_ra_active", flag(3));
        om.boolean("ident_active", flag(4));
        om.boolean("atc_services", flag(5));
        om.close_object();
        o.string(
            "sil_supplement",
            if flag(7) { "per_sample" } else { "per_hour" },
        );
        o.uint("gva", u64::from(ms.gva));
        o.boolean("single_antenna", ms.single_antenna);
        o.boolean("nic_supplement", ms.nic_supplement);
    }
    if let Some(ts) = &r.target {
        if let Some((ft, fms)) = ts.selected_altitude_ft {
            o.string(
                "selected_altitude_type",
                if fms { "fms" } else { "mcp_fcu" },
            );
            o.int(
                if fms {
                    "selected_altitude_fms"
                } else {
                    "selected_altitude_mcp"
                },
                ft,
            );
        }
        if let Some(hpa) = ts.baro_setting_hpa {
            o.float("barometric_pressure_setting", round(f64::from(hpa), 1), 1);
        }
        if let Some(h) = ts.selected_heading_deg {
            o.float("selected_heading", round(f64::from(h), 1), 1);
        }
        if let Some(m) = ts.modes {
            let mut mi = o.nested("mode_indicators");
            for (i, key) in ["autopilot", "vnav", "altitude_hold", "approach", "lnav"]
                .into_iter()
                .enumerate()
            {
                mi.boolean(key, m & (0x10 >> i) != 0);
            }
            mi.close_object();
        }
    }
    let mut meta = o.nested("metadata");
    meta.float("rssi", round(f64::from(rssi_dbfs), 1), 1);
    meta.uint("errors", u64::from(errors));
    if let Some(t) = received_at {
        meta.float("received_at", t, 3);
    }
    meta.close_object();
    o.close_object();
}

#[cfg(test)]
mod tests {
    use super::*;
    use airwaves_core::uat::adsb::Downlink;

    /// The core's literal type-1 message (see its tests).
    const TYPE1: &str = "08a1b2c33555575220001f5801e619e09809d90d024a840b16938a90001ff0000000";

    #[test]
    fn test_type1_as_dump978_writes_it() {
        let bytes: Vec<u8> = (0..34)
            .map(|i| u8::from_str_radix(&TYPE1[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        let r = DownlinkRepr::parse(&Downlink::new_checked(&bytes[..]).unwrap()).unwrap();
        let mut s = String::new();
        write_downlink(&r, -12.34, 2, Some(1_765_000_000.5), &mut s);
        let want = concat!(
            r#"{"address_qualifier":"adsb_icao","address":"a1b2c3","#,
            r#""position":{"lat":37.50001,"lon":-122.25586},"pressure_altitude":11500,"#,
            r#""nic":8,"airground_state":"airborne","north_velocity":120,"east_velocity":-50,"#,
            r#""vv_src":"barometric","vertical_velocity_barometric":-512,"#,
            r#""ground_speed":130.0,"true_track":337.4,"utc_coupled":true,"uplink_feedback":0,"#,
            r#""emitter_category":"A1","callsign":"N123AB","emergency":"none","mops_version":2,"#,
            r#""sil":3,"transmit_mso":5,"sda":2,"nac_p":9,"nac_v":1,"nic_baro":1,"#,
            r#""capability_codes":{"uat_in":true,"es_in":false,"tcas_operational":false},"#,
            r#""operational_modes":{"tcas_ra_active":false,"ident_active":true,"atc_services":false},"#,
            r#""sil_supplement":"per_hour","gva":2,"single_antenna":false,"nic_supplement":true,"#,
            r#""metadata":{"rssi":-12.3,"errors":2,"received_at":1765000000.500}}"#
        );
        assert_eq!(s, want);
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["position"]["lat"], 37.50001);
    }
}
