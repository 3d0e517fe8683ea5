use super::*;
use airwaves_core::modes::cpr::Position;
use airwaves_core::uat::fisb::nexrad::{Block, EmptyBlocks, Scale};
use airwaves_core::uat::fisb::text::dlac_encode;
use airwaves_core::uat::fisb::{NEXRAD_CONUS, NEXRAD_REGIONAL, write_info_frame};
use airwaves_core::uat::uplink::{self, ProductTime};

const DENVER: Position = Position {
    lat: 39.5,
    lon: -104.9,
};

fn time(hours: u8, minutes: u8) -> ProductTime {
    ProductTime {
        month_day: None,
        hours,
        minutes,
        seconds: None,
    }
}

/// An uplink from the Denver station in slot 17 carrying `frames`
/// (product ID, time, payload).
fn uplink_with(frames: &[(u16, ProductTime, Vec<u8>)]) -> Vec<u8> {
    let mut data = vec![0u8; uplink::LEN];
    data[..8].copy_from_slice(&uplink::header(DENVER, 17, 3));
    let mut at = uplink::APP_DATA;
    for (id, t, payload) in frames {
        at += write_info_frame(*id, *t, payload, &mut data[at..]).unwrap();
    }
    data
}

/// Block 32,040 (4.8° N, 72° E) with an echo of intensity 5 in its
/// first row, or `number` as given.
fn block(number: u32, level: u8) -> Vec<u8> {
    let mut bins = [0u8; 128];
    bins[..10].fill(level);
    let b = Block {
        header: BlockHeader {
            south: false,
            scale: Scale::X1,
            number,
        },
        bins,
    };
    let mut out = vec![0u8; b.buffer_len()];
    b.emit(&mut out).unwrap();
    out
}

fn text(t: &str) -> Vec<u8> {
    let mut out = vec![0u8; t.len()];
    let n = dlac_encode(t.as_bytes(), &mut out).unwrap();
    out.truncate(n);
    out
}

fn json(store: &mut FisbStore, now_ms: u64) -> serde_json::Value {
    let mut s = String::new();
    store.write_json(now_ms, &mut s);
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

#[test]
fn test_store_keeps_images_reports_and_stations() {
    let mut store = FisbStore::new();
    let up = uplink_with(&[
        (NEXRAD_REGIONAL, time(17, 55), block(32_040, 5)),
        (NEXRAD_CONUS, time(17, 50), block(32_041, 3)),
        (
            413,
            time(17, 53),
            text(
                "METAR KDEN 071753Z 27010KT 10SM FEW080 M02/M11 A3012\x1eTAF KDEN 071720Z 0718/0824 27012KT P6SM SCT080\x1e\x03",
            ),
        ),
    ]);
    store.add_uplink(&up, 1_000_000);
    assert_eq!(store.blocks(), [1, 1]);
    assert_eq!(store.reports(), 2);
    let v = json(&mut store, 1_002_500);
    assert_eq!(v["now"], 1002.5);
    let st = &v["stations"][0];
    assert_eq!(
        (st["slot"].as_i64(), st["seen"].as_f64()),
        (Some(17), Some(2.5))
    );
    assert!((st["lat"].as_f64().unwrap() - 39.5).abs() < 1e-4);
    let regional = &v["nexrad"][0];
    assert_eq!(regional["product"], "regional");
    assert_eq!(regional["time"], "17:55");
    let b = &regional["blocks"][0];
    assert_eq!((b["n"].as_f64(), b["w"].as_f64()), (Some(4.8), Some(72.0)));
    assert!((b["h"].as_f64().unwrap() - 4.0 / 60.0).abs() < 1e-6);
    assert_eq!(
        b["bins"].as_str().unwrap(),
        format!("{}{}", "5".repeat(10), "0".repeat(118))
    );
    assert_eq!(v["nexrad"][1]["product"], "conus");
    let kinds: Vec<&str> = v["text"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["METAR", "TAF"]);
    assert_eq!(v["text"][0]["location"], "KDEN");
    assert_eq!(v["text"][0]["time"], "071753Z");
    assert_eq!(
        v["text"][0]["text"],
        "METAR KDEN 071753Z 27010KT 10SM FEW080 M02/M11 A3012"
    );
}

#[test]
fn test_newer_reports_and_empty_blocks_replace_older() {
    let mut store = FisbStore::new();
    store.add_uplink(
        &uplink_with(&[
            (NEXRAD_REGIONAL, time(17, 55), block(32_040, 5)),
            (413, time(17, 53), text("METAR KDEN 071753Z 27010KT\x03")),
        ]),
        0,
    );
    // The block is reported empty (a bitmap naming it), the METAR newer.
    let empty = EmptyBlocks {
        header: BlockHeader {
            south: false,
            scale: Scale::X1,
            number: 32_039,
        },
        offsets: 1 << 1,
    };
    let mut e = vec![0u8; empty.buffer_len()];
    empty.emit(&mut e).unwrap();
    store.add_uplink(
        &uplink_with(&[
            (NEXRAD_REGIONAL, time(18, 0), e),
            (413, time(18, 53), text("METAR KDEN 071853Z 28012KT\x03")),
        ]),
        60_000,
    );
    assert_eq!(store.blocks(), [0, 0]);
    let v = json(&mut store, 60_000);
    assert_eq!(v["nexrad"], serde_json::json!([]));
    assert_eq!(v["text"].as_array().unwrap().len(), 1);
    assert_eq!(v["text"][0]["time"], "071853Z");
}

/// The blocks' JSON, rendered once and kept, follows every change: a
/// block cleared by a bitmap, one expired, one added.
#[test]
fn test_blocks_json_follows_changes() {
    let mut store = FisbStore::new();
    let west = |v: &serde_json::Value| -> Vec<f64> {
        v["nexrad"][0]["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["w"].as_f64().unwrap())
            .collect()
    };
    store.add_uplink(
        &uplink_with(&[
            (NEXRAD_REGIONAL, time(17, 55), block(32_040, 5)),
            (NEXRAD_REGIONAL, time(17, 55), block(32_041, 6)),
        ]),
        0,
    );
    assert_eq!(west(&json(&mut store, 0)), [72.0, 72.8]);
    assert_eq!(west(&json(&mut store, 1_000)), [72.0, 72.8]);
    let empty = EmptyBlocks {
        header: BlockHeader {
            south: false,
            scale: Scale::X1,
            number: 32_040,
        },
        offsets: 0,
    };
    let mut e = vec![0u8; empty.buffer_len()];
    empty.emit(&mut e).unwrap();
    store.add_uplink(&uplink_with(&[(NEXRAD_REGIONAL, time(18, 0), e)]), 2_000);
    assert_eq!(west(&json(&mut store, 2_000)), [72.8]);
    store.add_uplink(
        &uplink_with(&[(NEXRAD_REGIONAL, time(18, 5), block(32_042, 4))]),
        NEXRAD_KEEP_MS / 2,
    );
    assert_eq!(west(&json(&mut store, NEXRAD_KEEP_MS / 2)), [72.8, 73.6]);
    // The first two were received at 0: 32,041 expires, 32,042 stays.
    assert_eq!(west(&json(&mut store, NEXRAD_KEEP_MS + 1)), [73.6]);
}

#[test]
fn test_old_data_expires_and_garbage_is_counted() {
    let mut store = FisbStore::new();
    store.add_uplink(
        &uplink_with(&[
            (NEXRAD_REGIONAL, time(17, 55), block(32_040, 5)),
            (413, time(17, 53), text("METAR KDEN 071753Z 27010KT\x03")),
            // A NEXRAD payload with the reserved scale code.
            (NEXRAD_REGIONAL, time(17, 55), vec![0xB0, 0, 1, 0x08]),
        ]),
        0,
    );
    assert_eq!(store.bad_apdus, 1);
    let v = json(&mut store, NEXRAD_KEEP_MS + 1);
    assert_eq!(v["nexrad"], serde_json::json!([]));
    assert_eq!(v["stations"], serde_json::json!([]));
    assert_eq!(v["text"].as_array().unwrap().len(), 1);
    let v = json(&mut store, TEXT_KEEP_MS + 1);
    assert_eq!(v["text"], serde_json::json!([]));
    // Random bytes as an uplink: nothing panics.
    let mut rng = airwaves_core::rng::Rng::new(7);
    for _ in 0..200 {
        let mut data: Vec<u8> = (0..uplink::LEN).map(|_| rng.below(256) as u8).collect();
        data[6] |= 0x20;
        store.add_uplink(&data, 0);
    }
    let _ = json(&mut store, 0);
}
