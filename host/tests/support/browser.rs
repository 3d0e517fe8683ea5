//! Headless Chromium for the web map's tests: running it on a page
//! ([`dump_dom`], [`screenshot`]) and reading what it dumps ([`elements`],
//! [`text_of_id`], [`hexes`]) without an HTML parser crate. Skipped, with a
//! message, when `chromium` is not installed ([`chromium_or_skip`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Headless Chromium.

/// The `chromium` binary found by `which`, or `None`.
pub fn find_chromium() -> Option<PathBuf> {
    let out = Command::new("which").arg("chromium").output().ok()?;
    let path = String::from_utf8(out.stdout).ok()?;
    let path = path.trim();
    (out.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
}

/// A fresh directory under the test target dir, named after `label`.
pub fn scratch_dir(label: &str) -> PathBuf {
    static SERIAL: AtomicU32 = AtomicU32::new(0);
    let n = SERIAL.fetch_add(1, Ordering::SeqCst);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("web_map-{label}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Runs headless Chromium on `url` with `extra` arguments, letting the page
/// run for `budget_ms` of virtual time (timers fire fast, network waits are
/// real); kills it after 120 s of wall time. Returns its stdout, or an
/// error when Chromium fails or the page throws an uncaught exception (its
/// console goes to stderr, which is scanned for `Uncaught`).
pub fn run_chromium(
    chromium: &Path,
    url: &str,
    budget_ms: u32,
    extra: &[String],
) -> Result<String, String> {
    let dir = scratch_dir("chromium");
    let stdout_path = dir.join("stdout");
    let stderr_path = dir.join("stderr");
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
        ])
        .arg("--disable-background-networking")
        // The network is off: every request but 127.0.0.1 goes to a proxy
        // that refuses it (so the basemap must be the built-in one).
        .args([
            "--proxy-server=http://127.0.0.1:9",
            "--proxy-bypass-list=127.0.0.1",
        ])
        .args(["--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--virtual-time-budget={budget_ms}"))
        .args(extra)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).map_err(|e| e.to_string())?)
        .stderr(std::fs::File::create(&stderr_path).map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", chromium.display()))?;
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("chromium on {url} timed out"));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = std::fs::read_to_string(&stdout_path).map_err(|e| e.to_string())?;
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    if !status.success() {
        return Err(format!("chromium on {url}: {status}\n{stderr}"));
    }
    let uncaught: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE") && l.contains("Uncaught"))
        .collect();
    if !uncaught.is_empty() {
        return Err(format!("{url} threw:\n{}", uncaught.join("\n")));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(stdout)
}

/// The serialised DOM of `url` after `budget_ms` of virtual time.
pub fn dump_dom(chromium: &Path, url: &str, budget_ms: u32) -> Result<String, String> {
    let dom = run_chromium(chromium, url, budget_ms, &["--dump-dom".to_owned()])?;
    if dom.contains("<html") {
        Ok(dom)
    } else {
        Err(format!("chromium printed no DOM for {url}: {dom:?}"))
    }
}

/// A PNG screenshot of `url` at `width`×`height` CSS pixels, written to
/// `png`, after `budget_ms` of virtual time.
pub fn screenshot(
    chromium: &Path,
    url: &str,
    budget_ms: u32,
    png: &Path,
    width: u32,
    height: u32,
) -> Result<(), String> {
    let _ = std::fs::remove_file(png);
    run_chromium(
        chromium,
        url,
        budget_ms,
        &[
            format!("--screenshot={}", png.display()),
            format!("--window-size={width},{height}"),
        ],
    )?;
    if png.exists() {
        Ok(())
    } else {
        Err(format!("chromium wrote no {}", png.display()))
    }
}

/// Width and height from a PNG's IHDR, or why `bytes` is not a PNG.
pub fn png_size(bytes: &[u8]) -> Result<(u32, u32), String> {
    const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    if bytes.len() < 33 || bytes[..8] != SIGNATURE || &bytes[12..16] != b"IHDR" {
        return Err(format!("not a PNG ({} bytes)", bytes.len()));
    }
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    if !bytes.ends_with(&[0xae, 0x42, 0x60, 0x82]) {
        return Err("PNG has no IEND".to_owned());
    }
    Ok((be(16), be(20)))
}

// ---------------------------------------------------------------------------
// Reading the dumped DOM.

/// A start tag in serialised HTML.
#[derive(Debug)]
pub struct Element<'a> {
    /// Tag name, lower case as Chromium writes it.
    pub name: &'a str,
    /// Attributes in order, values with `&quot;`, `&amp;`, `&lt;`, `&gt;` decoded.
    attrs: Vec<(&'a str, String)>,
    /// Byte offset just after the tag's `>`.
    pub end: usize,
}

impl Element<'_> {
    /// The value of attribute `name`, if present.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the `class` attribute lists `class`.
    pub fn has_class(&self, class: &str) -> bool {
        self.attr("class")
            .is_some_and(|c| c.split_ascii_whitespace().any(|c| c == class))
    }
}

pub fn decode_entities(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Every start tag named `tag` in `dom` (Chromium's serialisation: double
/// quoted attribute values, `>` never raw inside them).
pub fn elements<'a>(dom: &'a str, tag: &str) -> Vec<Element<'a>> {
    let mut found = Vec::new();
    let mut rest = 0;
    while let Some(i) = dom[rest..].find('<') {
        let start = rest + i + 1;
        let name_len = dom[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(0);
        let name = &dom[start..start + name_len];
        let Some(close) = dom[start..].find('>') else {
            break;
        };
        let end = start + close + 1;
        rest = end;
        if name != tag {
            continue;
        }
        let mut attrs = Vec::new();
        let mut s = dom[start + name_len..end - 1].trim_start();
        while !s.is_empty() && s != "/" {
            let n = s.find(['=', ' ', '/']).unwrap_or(s.len());
            let attr = &s[..n];
            s = &s[n..];
            if let Some(v) = s.strip_prefix("=\"") {
                let q = v.find('"').unwrap_or(v.len());
                attrs.push((attr, decode_entities(&v[..q])));
                s = v.get(q + 1..).unwrap_or("");
            } else {
                attrs.push((attr, String::new()));
                s = s.strip_prefix('/').unwrap_or(s);
            }
            s = s.trim_start();
        }
        found.push(Element { name, attrs, end });
    }
    found
}

/// The text right after the start tag of the element with `id` (up to the
/// next tag), entities decoded; `None` when no element has that id.
pub fn text_of_id(dom: &str, id: &str) -> Option<String> {
    let needle = format!(" id=\"{id}\"");
    let at = dom.find(&needle)?;
    let open = at + dom[at..].find('>')? + 1;
    let close = open + dom[open..].find('<')?;
    Some(decode_entities(&dom[open..close]))
}

/// The `data-hex` values of the `tag` elements with class `class`
/// (any class when `class` is empty), in document order.
pub fn hexes(dom: &str, tag: &str, class: &str) -> Vec<String> {
    elements(dom, tag)
        .iter()
        .filter(|e| class.is_empty() || e.has_class(class))
        .filter_map(|e| e.attr("data-hex").map(str::to_owned))
        .collect()
}

/// The `chromium` binary, or `None` after saying the test is skipped.
pub fn chromium_or_skip() -> Option<PathBuf> {
    let found = find_chromium();
    if found.is_none() {
        eprintln!("skipping: chromium is not installed (`which chromium` found nothing)");
    }
    found
}
