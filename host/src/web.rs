//! The offline web map served by `airwaves adsb`, built into the binary.
//!
//! The map (`web/index.html`, `web/app.js`, `web/style.css`, `web/icon.svg`)
//! and the graphs page (`web/graphs.html`, `web/graphs.js`, drawing
//! `data/history/<hour|day|week>.json`) are plain HTML, CSS and ES2020
//! with no framework and nothing loaded from the internet: system fonts, an SVG map drawn by the script, and raster tiles
//! only when `receiver.json` names an XYZ template in its `tiles` field (the
//! page substitutes `{z}`, `{x}`, `{y}` and `{s}`; the assets themselves hold
//! no tile server address).
//!
//! The map's basemap (`web/basemap.bin`: coastlines, borders and land from
//! Natural Earth's public-domain 1:50m countries, by `scripts/basemap`
//! from the npm package world-atlas; 193 KiB) is drawn unless `--tiles`
//! gives online tiles.
//!
//! The page expects the HTTP server to answer, relative to the page's own
//! URL (so it works under any sub-path):
//!
//! - `data/aircraft.json`, polled every `refresh` ms: the readsb /
//!   dump1090-fa schema (`now` in Unix seconds, `messages` total,
//!   `aircraft[]` with `hex`, `flight`, `squawk`, `alt_baro` (ft or
//!   `"ground"`), `gs` (kt), `track` (°), `baro_rate`/`geom_rate` (ft/min),
//!   `lat`, `lon`, `seen`/`seen_pos` (s), `rssi` (dBFS), `messages`,
//!   `category`, `r_dst` (NM), `type`);
//! - `data/receiver.json`, fetched until it succeeds once: `lat`, `lon`,
//!   `refresh` (ms), `version`, optional `tiles`.
//!
//! Everything else comes from [`asset`].

/// One file of the web page.
#[derive(Debug)]
pub struct Asset {
    /// Absolute URL path below the page's root, e.g. `/app.js`.
    pub path: &'static str,
    /// Value for the HTTP `Content-Type` header.
    pub content_type: &'static str,
    /// The file's contents, as built into the binary.
    pub bytes: &'static [u8],
}

/// Every file of the web page, `/index.html` first.
pub const ASSETS: &[Asset] = &[
    Asset {
        path: "/index.html",
        content_type: "text/html; charset=utf-8",
        bytes: include_bytes!("../web/index.html"),
    },
    Asset {
        path: "/app.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../web/app.js"),
    },
    Asset {
        path: "/style.css",
        content_type: "text/css; charset=utf-8",
        bytes: include_bytes!("../web/style.css"),
    },
    Asset {
        path: "/graphs.html",
        content_type: "text/html; charset=utf-8",
        bytes: include_bytes!("../web/graphs.html"),
    },
    Asset {
        path: "/graphs.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../web/graphs.js"),
    },
    Asset {
        path: "/basemap.bin",
        content_type: "application/octet-stream",
        bytes: include_bytes!("../web/basemap.bin"),
    },
    Asset {
        path: "/icon.svg",
        content_type: "image/svg+xml",
        bytes: include_bytes!("../web/icon.svg"),
    },
];

/// The asset served at URL path `path`, or `None` when there is none.
///
/// `path` is the request path relative to the page's root, starting with
/// `/`; `/` is `/index.html`. A query string or fragment (`?…`, `#…`) is
/// ignored. Matching is exact and case-sensitive: no directory traversal,
/// no percent-decoding (no asset name needs it).
pub fn asset(path: &str) -> Option<&'static Asset> {
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let path = if path == "/" { "/index.html" } else { path };
    ASSETS.iter().find(|a| a.path == path)
}

#[cfg(test)]
mod test {
    use super::*;

    /// XML namespace names: identifiers that are never fetched.
    const NAMESPACE_URLS: &[&str] = &["http://www.w3.org/2000/svg"];

    #[test]
    fn test_every_asset_has_a_content_type_and_contents() {
        for a in ASSETS {
            assert!(a.path.starts_with('/'), "{}", a.path);
            assert!(!a.content_type.is_empty(), "{}", a.path);
            assert!(!a.bytes.is_empty(), "{}", a.path);
            let ext = a.path.rsplit('.').next().unwrap();
            let expected = match ext {
                "html" => "text/html",
                "js" => "text/javascript",
                "css" => "text/css",
                "svg" => "image/svg+xml",
                "bin" => "application/octet-stream",
                _ => panic!("no content type known for {}", a.path),
            };
            assert!(
                a.content_type.starts_with(expected),
                "{}: {}",
                a.path,
                a.content_type
            );
            assert!(
                ext == "bin" || std::str::from_utf8(a.bytes).is_ok(),
                "{} is not UTF-8",
                a.path
            );
        }
    }

    #[test]
    fn test_paths_are_unique() {
        for (i, a) in ASSETS.iter().enumerate() {
            assert!(
                ASSETS[i + 1..].iter().all(|b| b.path != a.path),
                "{}",
                a.path
            );
        }
    }

    /// The basemap: its header, and arcs near the demo receiver (52.3° N
    /// 4.8° E: the Dutch coast) decoded as app.js decodes them.
    #[test]
    fn test_basemap_holds_the_coast_near_amsterdam() {
        let b = asset("/basemap.bin").unwrap().bytes;
        assert_eq!(&b[..8], b"AWBASE01");
        let f = |o: usize| f64::from_le_bytes(b[o..o + 8].try_into().unwrap());
        let (sx, sy, tx, ty) = (f(8), f(16), f(24), f(32));
        let mut o = 44;
        let mut varint = || {
            let (mut n, mut shift) = (0u64, 0);
            loop {
                let byte = b[o];
                o += 1;
                n |= u64::from(byte & 0x7F) << shift;
                shift += 7;
                if byte & 0x80 == 0 {
                    return n;
                }
            }
        };
        let n_arcs = u32::from_le_bytes(b[40..44].try_into().unwrap());
        let (mut near_coast, mut near_border) = (0, 0);
        for _ in 0..n_arcs {
            let kind = varint(); // one byte, < 128
            let n = varint();
            let (mut qx, mut qy) = (0i64, 0i64);
            let mut near = false;
            for _ in 0..n {
                let zz = |v: u64| {
                    if v % 2 == 1 {
                        -((v as i64 + 1) / 2)
                    } else {
                        (v / 2) as i64
                    }
                };
                qx += zz(varint());
                qy += zz(varint());
                let (lon, lat) = (qx as f64 * sx + tx, qy as f64 * sy + ty);
                near |= (lat - 52.3).abs() < 1.0 && (lon - 4.8).abs() < 1.5;
            }
            if near {
                if kind == 0 {
                    near_coast += 1;
                } else {
                    near_border += 1;
                }
            }
        }
        assert!(near_coast >= 1, "no coastline near Amsterdam");
        assert!(near_border >= 1, "no border near Amsterdam (NL/BE, NL/DE)");
    }

    #[test]
    fn test_root_resolves_to_index() {
        let root = asset("/").expect("/ resolves");
        assert_eq!(root.path, "/index.html");
        assert!(root.content_type.starts_with("text/html"));
        assert_eq!(asset("/?t=1").map(|a| a.path), Some("/index.html"));
        assert_eq!(asset("/app.js?v=2").map(|a| a.path), Some("/app.js"));
        assert_eq!(asset("/style.css").map(|a| a.path), Some("/style.css"));
    }

    #[test]
    fn test_unknown_paths_are_none() {
        for p in [
            "",
            "index.html",
            "/index.htm",
            "/APP.JS",
            "/../app.js",
            "/web/app.js",
            "/data/aircraft.json",
            "//app.js",
        ] {
            assert!(asset(p).is_none(), "{p:?}");
        }
    }

    #[test]
    fn test_page_references_only_its_own_assets() {
        for (page, script) in [("/index.html", "app.js"), ("/graphs.html", "graphs.js")] {
            let html = std::str::from_utf8(asset(page).unwrap().bytes).unwrap();
            let src = format!("src=\"{script}\"");
            for needed in [src.as_str(), "href=\"style.css\"", "href=\"icon.svg\""] {
                assert!(html.contains(needed), "{page} lacks {needed}");
            }
            // Every relative reference of the page is an asset (or the
            // page itself with a query: a graphs range, the replay).
            for attr in ["src=\"", "href=\""] {
                for part in html.split(attr).skip(1) {
                    let target = &part[..part.find('"').unwrap()];
                    assert!(
                        target.starts_with('?') || asset(&format!("/{target}")).is_some(),
                        "{page} references {target}"
                    );
                }
            }
        }
    }

    #[test]
    fn test_no_asset_fetches_from_the_internet() {
        for a in ASSETS.iter().filter(|a| !a.path.ends_with(".bin")) {
            let mut text = std::str::from_utf8(a.bytes).unwrap().to_owned();
            for ns in NAMESPACE_URLS {
                text = text.replace(ns, "");
            }
            let lower = text.to_ascii_lowercase();
            for bad in [
                "http://", "https://", "ws://", "wss://", "src=\"//", "url(//", "@import",
            ] {
                assert!(!lower.contains(bad), "{} contains {bad:?}", a.path);
            }
        }
        // The one place a tile server address may come from is receiver.json.
        let js = std::str::from_utf8(asset("/app.js").unwrap().bytes).unwrap();
        assert!(
            js.contains("r.tiles"),
            "app.js reads the tiles template from receiver.json"
        );
        assert!(js.contains("'{z}'") && js.contains("'{x}'") && js.contains("'{y}'"));
    }

    #[test]
    fn test_script_uses_relative_data_urls() {
        let js = std::str::from_utf8(asset("/app.js").unwrap().bytes).unwrap();
        assert!(js.contains("'data/aircraft.json'"));
        assert!(js.contains("'data/receiver.json'"));
        assert!(!js.contains("'/data/"), "data URLs must be relative");
    }
}
