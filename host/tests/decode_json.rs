//! `airwaves decode --format json`: every line parses as JSON, and the
//! decoded fields of literal frames (rendered by the project's modulator)
//! match the values in `../shared/data/adsb/vectors.md`; Mode A/C replies
//! with `--modeac`; and every line of the real captures parses.

mod support;

use airwaves_core::C32;
use airwaves_core::modes::frame::{Frame, IdentityCode};
use airwaves_core::modes::modulate::{Burst, Modulator, Quantiser};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// Bytes of a hex string.
fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// A DF11 all-call reply (II 0) from `addr`, with its parity.
fn df11(addr: u32) -> Vec<u8> {
    let mut f = vec![
        0x5D,
        (addr >> 16) as u8,
        (addr >> 8) as u8,
        addr as u8,
        0,
        0,
        0,
    ];
    Frame::new_unchecked(&mut f[..]).fill_parity(0);
    f
}

/// A temporary file path unique to this test process.
fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("airwaves-{}-{name}", std::process::id()))
}

/// Render Mode S frames and Mode A/C replies (code, SPI) 300 µs apart at
/// 2.4 MS/s, ~25 dB over receiver noise, into a `.cu8` file.
fn render(frames: &[Vec<u8>], mode_ac: &[(u16, bool)], name: &str) -> PathBuf {
    let m = Modulator::new(2.4e6).unwrap();
    let n = frames.len() + mode_ac.len();
    let mut iq = vec![C32::default(); 720 * (n + 2)];
    for (i, f) in frames.iter().enumerate() {
        let b = Burst::new(720.0 * (i + 1) as f64 + 0.3, 0.6);
        m.add_mode_s(f, &b, &mut iq).unwrap();
    }
    for (j, &(code, spi)) in mode_ac.iter().enumerate() {
        let b = Burst::new(720.0 * (frames.len() + j + 1) as f64 + 0.6, 0.5);
        m.add_mode_ac(code, spi, &b, &mut iq);
    }
    // Deterministic receiver noise, σ ≈ 3 LSB.
    let mut x = 0x1234_5678u32;
    let mut noise = || {
        let mut s = 0.0f32;
        for _ in 0..4 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            s += (x as f32 / u32::MAX as f32) - 0.5;
        }
        s * 3.0 * 1.73 / 128.0
    };
    for z in iq.iter_mut() {
        *z += C32::new(noise(), noise());
    }
    let mut bytes = vec![0u8; 2 * iq.len()];
    Quantiser::RTL_SDR.block(&iq, &mut bytes);
    let path = temp(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Run `airwaves decode` and parse every output line as a JSON object.
fn decode_json(args: &[&str]) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_airwaves"))
        .arg("decode")
        .args(["--format", "json"])
        .args(args)
        .output()
        .expect("run airwaves");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            assert!(v.is_object(), "{l}");
            check_keys(&v, l);
            v
        })
        .collect()
}

/// Every key is snake_case; nested objects too.
fn check_keys(v: &Value, line: &str) {
    if let Value::Object(m) = v {
        for (k, v) in m {
            assert!(
                k.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "key {k} in {line}"
            );
            check_keys(v, line);
        }
    }
}

/// The object whose `hex` is `h`.
fn by_hex<'a>(all: &'a [Value], h: &str) -> &'a Value {
    all.iter()
        .find(|v| v["hex"] == h)
        .unwrap_or_else(|| panic!("{h} not decoded"))
}

fn close(v: &Value, want: f64, tol: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() <= tol)
}

#[test]
fn json_fields_match_the_vectors() {
    let literal = [
        "8D4840D6202CC371C32CE0576098", // identification KLM1023
        "8D485020994409940838175B284F", // velocity ST 1
        "8DA05F219B06B6AF189400CBC33F", // velocity ST 3
        "8D40621D58C386435CC412692AD6", // airborne position, odd
        "8D40621D58C382D690C8AC2863A7", // airborne position, even
        "8DA2C1B6E112B600000000760759", // TC 28 squawk 6513
        "8DA05629EA21485CBF3F8CADAEEB", // TC 29 target state
        "8DACC040F8210002004AB8569C35", // TC 31 operational status
        "96A082FB213B1CF2113820D6EDDF", // DF18 CF 6 (ADS-R) identification
        "5D484FDEA248F5",               // DF11, SI 6
    ];
    let df20 = "A000139381951536E024D4CCF6B5"; // BDS 5,0
    let df5 = "2A00516D492B80"; // squawk 0356
    let mut frames: Vec<Vec<u8>> = literal.iter().map(|h| hex(h)).collect();
    for ap in [df20, df5] {
        let f = hex(ap);
        let addr = Frame::new_unchecked(&f[..]).address().unwrap();
        frames.push(df11(addr)); // makes the address known
        frames.push(f);
    }
    let path = render(&frames, &[], "vectors.cu8");
    let all = decode_json(&[path.to_str().unwrap()]);
    std::fs::remove_file(&path).ok();
    assert_eq!(all.len(), frames.len(), "one object per frame");
    for v in &all {
        assert_eq!(v["type"], "mode_s");
        assert!(v["timestamp_12mhz"].is_u64() && v["signal_dbfs"].is_f64());
    }

    let id = by_hex(&all, literal[0]);
    assert_eq!(id["icao"], "4840D6");
    assert_eq!(id["df"], 17);
    assert_eq!(id["tc"], 4);
    assert_eq!(id["me_type"], "identification");
    assert_eq!(id["callsign"], "KLM1023");
    assert_eq!(id["category"], "A0");

    let v1 = by_hex(&all, literal[1]);
    assert_eq!(v1["subtype"], 1);
    assert!(close(&v1["ground_speed_kt"], 159.20, 0.01), "{v1}");
    assert!(close(&v1["track_deg"], 182.88, 0.01), "{v1}");
    assert_eq!(v1["vertical_rate_fpm"], -832);
    assert_eq!(v1["vertical_rate_source"], "gnss");
    assert_eq!(v1["gnss_baro_diff_ft"], 550);
    assert_eq!(v1["nac_v"], 0);

    let v3 = by_hex(&all, literal[2]);
    assert_eq!(v3["subtype"], 3);
    assert!(close(&v3["heading_deg"], 243.98, 0.01), "{v3}");
    assert_eq!(v3["tas_kt"], 375);
    assert_eq!(v3["vertical_rate_fpm"], -2304);
    assert_eq!(v3["vertical_rate_source"], "baro");
    assert!(v3["gnss_baro_diff_ft"].is_null());

    let odd = by_hex(&all, literal[3]);
    assert_eq!(odd["me_type"], "airborne_position");
    assert_eq!(odd["cpr_odd"], true);
    assert_eq!(odd["altitude_baro_ft"], 38_000);
    assert!(odd.get("lat_deg").is_none(), "one frame gives no position");
    let even = by_hex(&all, literal[4]);
    assert_eq!(even["cpr_odd"], false);
    assert_eq!(even["position_source"], "global");
    assert!(close(&even["lat_deg"], 52.2572021484375, 1e-6), "{even}");
    assert!(close(&even["lon_deg"], 3.91937255859375, 1e-6), "{even}");

    let em = by_hex(&all, literal[5]);
    assert_eq!(em["me_type"], "emergency");
    assert_eq!(em["emergency"], "none");
    assert_eq!(em["squawk"], "6513");

    let ts = by_hex(&all, literal[6]);
    assert_eq!(ts["me_type"], "target_state");
    assert_eq!(ts["selected_altitude_ft"], 16_992);
    assert_eq!(ts["selected_altitude_source"], "mcp_fcu");
    assert!(close(&ts["baro_setting_hpa"], 1012.8, 0.05), "{ts}");
    assert!(close(&ts["selected_heading_deg"], 66.8, 0.1), "{ts}");
    for (k, want) in [
        ("autopilot", true),
        ("vnav", true),
        ("alt_hold", false),
        ("approach", false),
        ("tcas_operational", true),
        ("lnav", true),
    ] {
        assert_eq!(ts[k], want, "{k}");
    }

    let op = by_hex(&all, literal[7]);
    assert_eq!(op["me_type"], "operational_status");
    assert_eq!(op["version"], 2);
    assert_eq!(op["nic_a"], false);
    assert_eq!(op["nac_p"], 10);
    assert_eq!(op["gva"], 2);
    assert_eq!(op["sil"], 3);
    assert_eq!(op["sda"], 2);

    let adsr = by_hex(&all, literal[8]);
    assert_eq!(adsr["df"], 18);
    assert_eq!(adsr["cf"], 6);
    assert_eq!(adsr["cf_name"], "adsr");
    assert_eq!(adsr["icao"], "A082FB");
    assert_eq!(adsr["callsign"], "N132DS");
    assert_eq!(adsr["category"], "A1");

    let ac = by_hex(&all, literal[9]);
    assert_eq!(ac["df"], 11);
    assert_eq!(ac["icao"], "484FDE");
    assert_eq!(ac["ca"], 5);
    assert_eq!(ac["si"], 6);

    let b50 = by_hex(&all, df20);
    assert_eq!(b50["df"], 20);
    assert!(b50["altitude_ft"].is_i64());
    let c = &b50["commb"];
    assert_eq!(c["bds"], "5,0", "{b50}");
    assert_eq!(c["ambiguous"], false);
    assert!(close(&c["roll_deg"], 2.109375, 1e-3), "{c}");
    assert!(close(&c["true_track_deg"], 114.258, 1e-3), "{c}");
    assert_eq!(c["ground_speed_kt"], 438);
    assert!(close(&c["track_rate_deg_s"], 0.125, 1e-3), "{c}");
    assert_eq!(c["tas_kt"], 424);

    let sq = by_hex(&all, df5);
    assert_eq!(sq["df"], 5);
    assert_eq!(sq["icao"], "510AF9");
    assert_eq!(sq["fs"], 2);
    assert_eq!(sq["dr"], 0);
    assert_eq!(sq["squawk"], "0356");
}

#[test]
fn mode_ac_replies_with_modeac_only() {
    let code_7500 = IdentityCode::from_squawk(0x7500).raw();
    // Gillham code of 12,300 ft (C1 C2 C4 / D2 D4 A1 A2 A4 B1 B2 B4).
    let alt = (0u16..0x2000)
        .find(|&c| c & 0x50 == 0 && airwaves_core::modes::altitude::decode_ac13(c) == Some(12_300))
        .unwrap();
    let frames = vec![hex("8D4840D6202CC371C32CE0576098")];
    let path = render(&frames, &[(code_7500, true), (alt, false)], "modeac.cu8");
    let p = path.to_str().unwrap();
    let off = decode_json(&[p]);
    assert_eq!(off.len(), 1, "Mode A/C is off by default");
    let on = decode_json(&["--modeac", p]);
    let acs: Vec<&Value> = on.iter().filter(|v| v["type"] == "mode_ac").collect();
    assert_eq!(on.len(), 3);
    assert_eq!(acs.len(), 2);
    assert_eq!(acs[0]["squawk"], "7500");
    assert_eq!(acs[0]["spi"], true);
    assert_eq!(acs[0]["code"], u64::from(code_7500));
    assert_eq!(acs[1]["altitude_ft"], 12_300);
    assert_eq!(acs[1]["spi"], false);
    // AVR: 2 bytes, squawk nibbles with 0x0080 for SPI.
    let out = Command::new(env!("CARGO_BIN_EXE_airwaves"))
        .args(["decode", "--modeac", "--format", "avr", p])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("*7580;\n"), "{text}");
    assert!(text.contains("*8D4840D6202CC371C32CE0576098;\n"), "{text}");
    std::fs::remove_file(&path).ok();
}

#[test]
fn receiver_location_is_checked() {
    let out = Command::new(env!("CARGO_BIN_EXE_airwaves"))
        .args(["decode", "--lat", "95", "--lon", "0", "-"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("latitude"));
}

#[test]
fn real_captures_give_valid_json() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/adsb");
    if !dir.is_dir() {
        support::skip_missing_shared("../shared/data/adsb");
        return;
    }
    for (name, rate) in [
        ("capture_1641427457780_2400k", "2400000"),
        ("modes1_2000k", "2000000"),
    ] {
        let cu8 = dir.join(format!("{name}.cu8"));
        let all = decode_json(&[
            "--rate",
            rate,
            "--modeac",
            "--lat",
            "52.0",
            "--lon",
            "4.0",
            cu8.to_str().unwrap(),
        ]);
        let mode_s = all.iter().filter(|v| v["type"] == "mode_s").count();
        assert!(mode_s >= 5, "{name}: {mode_s}");
        let with_me = all.iter().filter(|v| v.get("me_type").is_some()).count();
        eprintln!(
            "{name}: {} objects ({mode_s} Mode S, {with_me} ADS-B)",
            all.len()
        );
        for v in &all {
            assert!(v["timestamp_12mhz"].is_u64());
            if v["type"] == "mode_s" {
                let df = v["df"].as_u64().unwrap();
                if df == 17 {
                    assert!(v["me_type"].is_string(), "{v}");
                }
            }
        }
    }
}
