//! What the feeder keeps of the FIS-B uplink (UAT ground stations): the
//! stations heard, the latest NEXRAD image of each product, the latest
//! text report per kind and location; rendered as `/data/fisb.json` for
//! the map's radar layer and weather panel.
//!
//! # `fisb.json` (airwaves' own)
//!
//! ```text
//! {"now":S,
//!  "stations":[{"lat":D,"lon":D,"slot":N,"seen":S}],
//!  "nexrad":[{"product":"regional"|"conus","time":"HH:MM","age":S,
//!             "blocks":[{"n":D,"w":D,"h":D,"wd":D,"bins":"128 digits 0–7"}]}],
//!  "text":[{"kind":"METAR","location":"KDEN","time":"071753Z","text":"…","age":S}]}
//! ```
//!
//! `now` and `seen`/`age` in seconds; a block's north edge `n`, west edge
//! `w` (degrees), height `h` and width `wd` (degrees); `bins` its 32 × 4
//! intensities west→east, north→south. Only blocks with an echo
//! (intensity ≥ 2 somewhere) are listed; a block later reported empty
//! is taken off. Text reports are newest first. The blocks of an image
//! are rendered again only when they change, not every second.
//!
//! # Bounds
//!
//! At most [`MAX_BLOCKS`] blocks per product (about 2.6 MiB at most), kept
//! [`NEXRAD_KEEP_MS`]; at most [`MAX_REPORTS`] reports, kept
//! [`TEXT_KEEP_MS`]; stations are forgotten after [`STATION_KEEP_MS`].

use crate::json::{JsonWriter, push_json_string};
use airwaves_core::uat::fisb::nexrad::{BINS, BlockHeader, NexradPayload};
use airwaves_core::uat::fisb::{self, Product, text};
use airwaves_core::uat::uplink::{Apdu, Uplink, dlac};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// Blocks kept per NEXRAD product.
pub const MAX_BLOCKS: usize = 10_000;
/// How long a NEXRAD block is kept, ms (images are sent every few
/// minutes).
pub const NEXRAD_KEEP_MS: u64 = 15 * 60_000;
/// Text reports kept.
pub const MAX_REPORTS: usize = 2_000;
/// How long a text report is kept, ms.
pub const TEXT_KEEP_MS: u64 = 2 * 3_600_000;
/// How long a ground station is listed after its last uplink, ms.
pub const STATION_KEEP_MS: u64 = 60_000;

/// One NEXRAD block as last received.
#[derive(Debug, Clone)]
struct StoredBlock {
    header: BlockHeader,
    bins: [u8; BINS],
    /// Product time, minutes of the day.
    minutes: u16,
    received_ms: u64,
}

/// One NEXRAD product's blocks.
#[derive(Debug, Default)]
struct Image {
    blocks: HashMap<(u32, bool, u8), StoredBlock>,
    /// Product time of the newest block, minutes of the day.
    minutes: u16,
    received_ms: u64,
    /// The `blocks` array as last rendered, and whether the blocks have
    /// changed since (the JSON is written every second; the blocks change
    /// only when an uplink brings some or they expire).
    blocks_json: String,
    dirty: bool,
}

impl Image {
    /// Render the `blocks` array into `blocks_json` if the blocks changed.
    fn render_blocks(&mut self) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        self.blocks_json.clear();
        let mut blocks = JsonWriter::array(&mut self.blocks_json);
        let mut sorted: Vec<&StoredBlock> = self.blocks.values().collect();
        sorted.sort_by_key(|b| (b.header.scale.code(), b.header.south, b.header.number));
        for b in sorted {
            let Some(g) = b.header.geometry() else {
                continue;
            };
            let mut bo = JsonWriter::object(blocks.element());
            bo.float("n", g.north_deg, 5);
            bo.float("w", g.west_deg, 5);
            bo.float("h", g.height_deg, 6);
            bo.float("wd", g.width_deg, 6);
            let bins: String = b.bins.iter().map(|&v| char::from(b'0' + (v & 7))).collect();
            push_json_string(bo.key("bins"), &bins);
            bo.int("t", i64::from(b.minutes));
            bo.close_object();
        }
        blocks.close_array();
    }
}

/// The latest text report of a kind and location.
#[derive(Debug, Clone)]
struct Report {
    time: String,
    text: String,
    received_ms: u64,
}

/// A ground station.
#[derive(Debug, Clone, Copy)]
struct Station {
    lat: f64,
    lon: f64,
    slot: u8,
    last_ms: u64,
}

/// FIS-B products received (see the module docs).
#[derive(Debug, Default)]
pub struct FisbStore {
    stations: HashMap<(i32, i32), Station>,
    /// Regional (63) and CONUS (64).
    nexrad: [Image; 2],
    reports: BTreeMap<(String, String), Report>,
    /// APDUs that could not be read.
    pub bad_apdus: u64,
    /// DLAC scratch.
    scratch: Vec<u8>,
}

impl FisbStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Take in one uplink message's 432 data bytes received at `now_ms`.
    pub fn add_uplink(&mut self, data: &[u8], now_ms: u64) {
        let up = Uplink::new(data);
        if up.position_valid() {
            let p = up.position();
            let key = ((p.lat * 1e3).round() as i32, (p.lon * 1e3).round() as i32);
            self.stations.insert(
                key,
                Station {
                    lat: p.lat,
                    lon: p.lon,
                    slot: up.slot_id(),
                    last_ms: now_ms,
                },
            );
        }
        for frame in up.info_frames().filter(|f| f.kind == 0) {
            let Ok(apdu) = Apdu::parse(frame.data) else {
                self.bad_apdus += 1;
                continue;
            };
            match fisb::classify(&apdu) {
                Ok(Product::Nexrad { conus, payload }) => {
                    self.add_nexrad(conus, &apdu, payload, now_ms)
                }
                Ok(Product::Text(dlac_bytes)) => self.add_text(dlac_bytes, now_ms),
                Ok(_) => {}
                Err(_) => self.bad_apdus += 1,
            }
        }
        self.expire(now_ms);
    }

    fn add_nexrad(&mut self, conus: bool, apdu: &Apdu<'_>, payload: NexradPayload, now_ms: u64) {
        let image = &mut self.nexrad[usize::from(conus)];
        let minutes = u16::from(apdu.time.hours) * 60 + u16::from(apdu.time.minutes);
        image.minutes = minutes;
        image.received_ms = now_ms;
        image.dirty = true;
        let mut put = |header: BlockHeader, bins: [u8; BINS]| {
            let key = (header.number, header.south, header.scale.code());
            let has_echo = bins.iter().any(|&b| b >= 2);
            if !has_echo {
                image.blocks.remove(&key);
            } else if image.blocks.len() < MAX_BLOCKS || image.blocks.contains_key(&key) {
                image.blocks.insert(
                    key,
                    StoredBlock {
                        header,
                        bins,
                        minutes,
                        received_ms: now_ms,
                    },
                );
            }
        };
        match payload {
            NexradPayload::Block(b) => put(b.header, b.bins),
            NexradPayload::Empty(e) => {
                for header in e.blocks() {
                    put(header, [0; BINS]);
                }
            }
        }
    }

    fn add_text(&mut self, dlac_bytes: &[u8], now_ms: u64) {
        // Four characters in three bytes; tabs may expand (bounded).
        self.scratch.resize(dlac_bytes.len() * 4 + 256, 0);
        let n = dlac::decode(dlac_bytes, &mut self.scratch);
        for r in text::records(&self.scratch[..n]) {
            if r.kind.is_empty() || r.location.is_empty() {
                continue;
            }
            let key = (r.kind.to_owned(), r.location.to_owned());
            if self.reports.len() >= MAX_REPORTS && !self.reports.contains_key(&key) {
                // Full: the oldest report makes room.
                if let Some(oldest) = self
                    .reports
                    .iter()
                    .min_by_key(|(_, v)| v.received_ms)
                    .map(|(k, _)| k.clone())
                {
                    self.reports.remove(&oldest);
                }
            }
            self.reports.insert(
                key,
                Report {
                    time: r.time.to_owned(),
                    text: r.text.to_owned(),
                    received_ms: now_ms,
                },
            );
        }
    }

    fn expire(&mut self, now_ms: u64) {
        let old = |t: u64, keep: u64| now_ms.saturating_sub(t) > keep;
        self.stations
            .retain(|_, s| !old(s.last_ms, STATION_KEEP_MS));
        for image in &mut self.nexrad {
            let before = image.blocks.len();
            image
                .blocks
                .retain(|_, b| !old(b.received_ms, NEXRAD_KEEP_MS));
            image.dirty |= image.blocks.len() != before;
        }
        self.reports
            .retain(|_, r| !old(r.received_ms, TEXT_KEEP_MS));
    }

    /// Text reports held.
    pub fn reports(&self) -> usize {
        self.reports.len()
    }

    /// NEXRAD blocks with an echo held, regional and CONUS.
    pub fn blocks(&self) -> [usize; 2] {
        [self.nexrad[0].blocks.len(), self.nexrad[1].blocks.len()]
    }

    /// Render `fisb.json` as of `now_ms` into `out`.
    pub fn write_json(&mut self, now_ms: u64, out: &mut String) {
        self.expire(now_ms);
        let age = |t: u64| now_ms.saturating_sub(t) as f64 / 1000.0;
        let mut o = JsonWriter::object(out);
        o.float("now", now_ms as f64 / 1000.0, 1);
        {
            let mut list = JsonWriter::array(o.key("stations"));
            let mut stations: Vec<&Station> = self.stations.values().collect();
            stations.sort_by_key(|s| s.slot);
            for s in stations {
                let mut e = JsonWriter::object(list.element());
                e.float("lat", s.lat, 5);
                e.float("lon", s.lon, 5);
                e.int("slot", i64::from(s.slot));
                e.float("seen", age(s.last_ms), 1);
                e.close_object();
            }
            list.close_array();
        }
        {
            let mut list = JsonWriter::array(o.key("nexrad"));
            for (i, image) in self.nexrad.iter_mut().enumerate() {
                if image.blocks.is_empty() {
                    continue;
                }
                image.render_blocks();
                let mut e = JsonWriter::object(list.element());
                push_json_string(e.key("product"), if i == 0 { "regional" } else { "conus" });
                let _ = write!(
                    e.key("time"),
                    "\"{:02}:{:02}\"",
                    image.minutes / 60,
                    image.minutes % 60
                );
                e.float("age", age(image.received_ms), 1);
                e.key("blocks").push_str(&image.blocks_json);
                e.close_object();
            }
            list.close_array();
        }
        {
            let mut list = JsonWriter::array(o.key("text"));
            let mut reports: Vec<(&(String, String), &Report)> = self.reports.iter().collect();
            reports.sort_by(|a, b| b.1.received_ms.cmp(&a.1.received_ms).then(a.0.cmp(b.0)));
            for ((kind, location), r) in reports {
                let mut e = JsonWriter::object(list.element());
                push_json_string(e.key("kind"), kind);
                push_json_string(e.key("location"), location);
                push_json_string(e.key("time"), &r.time);
                push_json_string(e.key("text"), &r.text);
                e.float("age", age(r.received_ms), 1);
                e.close_object();
            }
            list.close_array();
        }
        o.close_object();
    }
}

#[cfg(test)]
mod tests;
