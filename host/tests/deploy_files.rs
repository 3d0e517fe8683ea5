//! The files of `deploy/` (systemd unit, `/etc/default` config, udev rule,
//! kernel driver blacklist) agree with the program they install: the udev
//! rule names exactly the driver's known dongles, the default options are
//! accepted by `airwaves adsb`, and systemd finds nothing wrong with the
//! unit.

mod support;

use airwaves::rtl::usb::KNOWN_DEVICES;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use support::TempDir;

const DEPLOY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy");

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(DEPLOY).join(name)).unwrap()
}

/// `KEY="value"` assignments of a shell-style environment file.
fn assignments(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, v) = l.split_once('=').expect("KEY=value");
            (k.to_string(), v.trim_matches('"').to_string())
        })
        .collect()
}

#[test]
fn test_udev_rule_names_every_known_dongle() {
    let rules = read("60-airwaves-rtl-sdr.rules");
    let mut found = BTreeSet::new();
    for l in rules
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let field = |key: &str| {
            let at = l.find(key).unwrap_or_else(|| panic!("{key} in {l}")) + key.len();
            u16::from_str_radix(&l[at..at + 4], 16).unwrap()
        };
        assert!(
            l.contains("GROUP=\"plugdev\"") && l.contains("MODE=\"0660\""),
            "{l}"
        );
        found.insert((field("ATTRS{idVendor}==\""), field("ATTRS{idProduct}==\"")));
    }
    let known: BTreeSet<(u16, u16)> = KNOWN_DEVICES.iter().map(|&(v, p, _)| (v, p)).collect();
    assert_eq!(found, known);
}

#[test]
fn test_blacklist_names_the_dvb_driver_our_error_message_names() {
    let conf = read("blacklist-rtl-sdr.conf");
    let listed: Vec<&str> = conf
        .lines()
        .filter_map(|l| l.strip_prefix("blacklist "))
        .collect();
    assert!(listed.contains(&"dvb_usb_rtl28xxu"), "{listed:?}");
    let busy = airwaves::rtl::usb::UsbError::Busy.to_string();
    assert!(busy.contains("dvb_usb_rtl28xxu"), "{busy}");
}

#[test]
fn test_default_options_are_accepted_by_airwaves_adsb() {
    let vars = assignments(&read("airwaves.default"));
    let names: Vec<&str> = vars.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "ENABLED",
            "RECEIVER_OPTIONS",
            "DECODER_OPTIONS",
            "NET_OPTIONS",
            "JSON_OPTIONS"
        ]
    );
    let unit = read("airwaves-adsb.service");
    for (k, _) in &vars[1..] {
        assert!(
            unit.contains(&format!("${k}")),
            "the unit does not use ${k}"
        );
    }
    // The same options, on a file instead of a dongle, with the ports and
    // paths moved out of the way of the machine's own services.
    let dir = TempDir::new("deploy-defaults");
    let mut args: Vec<String> = vec!["adsb".into(), "--quiet".into()];
    for (_, v) in &vars[1..] {
        for a in v.split_whitespace() {
            args.push(match a {
                "8080" => "0".into(),
                "/run/airwaves" => dir.0.display().to_string(),
                "/var/lib/airwaves" => dir.0.join("state").display().to_string(),
                a => a.into(),
            });
        }
    }
    for port in [
        "--net-ro-port",
        "--net-sbs-port",
        "--net-bi-port",
        "--net-bo-port",
    ] {
        assert!(
            !args.iter().any(|a| a == port),
            "{port} set in the defaults"
        );
        args.extend([port.to_string(), "0".to_string()]);
    }
    args.extend(["--ifile".into(), "/dev/null".into()]);
    let out = Command::new(env!("CARGO_BIN_EXE_airwaves"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.0.join("aircraft.json").is_file());
    assert!(dir.0.join("state").join("series.bin").is_file());
}

#[test]
fn test_systemd_accepts_the_unit() {
    if !support::have("systemd-analyze") {
        return;
    }
    let dir = TempDir::new("deploy-unit");
    let unit = read("airwaves-adsb.service")
        .replace("/usr/local/bin/airwaves", env!("CARGO_BIN_EXE_airwaves"))
        .replace(
            "/etc/default/airwaves",
            &Path::new(DEPLOY)
                .join("airwaves.default")
                .canonicalize()
                .unwrap()
                .display()
                .to_string(),
        );
    let path = dir.0.join("airwaves-adsb.service");
    std::fs::write(&path, unit).unwrap();
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // Only complaints about this unit count (the host's own units may
    // have warnings of their own).
    let ours: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("airwaves-adsb.service"))
        .collect();
    assert!(ours.is_empty(), "{err}");
}
