//! What the HTTP server lets browsers do: which `Host` names it answers
//! (a guard against DNS rebinding), which other origin may read its JSON
//! (CORS), and the headers that keep a page from being sniffed, framed or
//! fed foreign scripts.
//!
//! - **Host.** A feeder bound to a loopback address answers only requests
//!   whose `Host` is a loopback name or address (`localhost`, `127.0.0.1`,
//!   `[::1]`, …) or one given with `--http-host`: a web page whose name was
//!   rebound to 127.0.0.1 sends its own name, and gets 403. Bound to other
//!   addresses it answers any name unless `--http-host` lists them. A
//!   request without `Host` (HTTP/1.0 tools) is answered: browsers always
//!   send one.
//! - **CORS.** JSON is same-origin by default: no
//!   `Access-Control-Allow-Origin` unless `--cors-origin ORIGIN` names the
//!   one origin allowed (or `*`).
//! - **Every response** has `X-Content-Type-Options: nosniff`,
//!   `Referrer-Policy: no-referrer` and a `Content-Security-Policy` that
//!   allows only the page's own scripts, styles and connections, images
//!   from itself (and the tile server, with `--tiles`), and no framing.

use std::fmt::Write as _;
use std::net::IpAddr;

/// The server's browser-facing rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpPolicy {
    /// Names (lower case, without port) accepted in `Host`, besides
    /// loopback addresses; `None`: any name.
    pub hosts: Option<Vec<String>>,
    /// The origin allowed to read JSON from other pages
    /// (`Access-Control-Allow-Origin`); `None`: same origin only.
    pub cors_origin: Option<String>,
    /// The `Content-Security-Policy` value.
    pub csp: String,
}

impl Default for HttpPolicy {
    /// Any host, same-origin JSON, the map's CSP without tiles.
    fn default() -> Self {
        HttpPolicy {
            hosts: None,
            cors_origin: None,
            csp: content_security_policy(None),
        }
    }
}

impl HttpPolicy {
    /// The policy of a server bound to `bind`: loopback names only when
    /// `bind` is a loopback address, `hosts` added (and, when given, the
    /// only other names answered on any address); `cors_origin` as given;
    /// the CSP allowing the tile server of `tiles` (an XYZ URL template).
    ///
    /// ```
    /// use airwaves::net::http_policy::HttpPolicy;
    /// let p = HttpPolicy::for_bind("127.0.0.1".parse().unwrap(), &[], None, None);
    /// assert!(p.host_allowed(Some("localhost:8080")) && p.host_allowed(Some("[::1]:80")));
    /// assert!(!p.host_allowed(Some("attacker.example")));
    /// let p = HttpPolicy::for_bind("0.0.0.0".parse().unwrap(), &[], None, None);
    /// assert!(p.host_allowed(Some("feeder.lan")));
    /// ```
    pub fn for_bind(
        bind: IpAddr,
        hosts: &[String],
        cors_origin: Option<String>,
        tiles: Option<&str>,
    ) -> HttpPolicy {
        let names: Vec<String> = hosts.iter().map(|h| normalise_host(h)).collect();
        let hosts = if bind.is_loopback() || !names.is_empty() {
            let mut all = vec!["localhost".to_string()];
            all.extend(names);
            Some(all)
        } else {
            None
        };
        HttpPolicy {
            hosts,
            cors_origin,
            csp: content_security_policy(tiles),
        }
    }

    /// Whether a request whose `Host` header is `host` is answered.
    pub fn host_allowed(&self, host: Option<&str>) -> bool {
        let (Some(names), Some(host)) = (&self.hosts, host) else {
            return true;
        };
        let host = normalise_host(host);
        let literal = host.trim_start_matches('[').trim_end_matches(']');
        literal.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
            || host.ends_with(".localhost")
            || names.contains(&host)
    }

    /// Append this policy's response headers (each ending in CRLF);
    /// `json`: the response is JSON (the one kind CORS applies to).
    pub fn write_headers(&self, json: bool, head: &mut String) {
        head.push_str("X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n");
        let _ = write!(head, "Content-Security-Policy: {}\r\n", self.csp);
        if json && let Some(origin) = &self.cors_origin {
            let _ = write!(head, "Access-Control-Allow-Origin: {origin}\r\n");
            if origin != "*" {
                head.push_str("Vary: Origin\r\n");
            }
        }
    }
}

/// A `Host` value without its port, in lower case, without a final dot.
fn normalise_host(host: &str) -> String {
    let host = host.trim();
    let name = if host.starts_with('[') {
        host.find(']').map_or(host, |end| &host[..=end])
    } else if host.matches(':').count() == 1 {
        host.split(':').next().unwrap_or(host)
    } else {
        host
    };
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// The map's `Content-Security-Policy`: its own scripts, styles and
/// fetches only; images from itself and the tile server of `tiles`.
///
/// ```
/// use airwaves::net::http_policy::content_security_policy;
/// let csp = content_security_policy(Some("https://{s}.tile.example.org/{z}/{x}/{y}.png"));
/// assert!(csp.contains("img-src 'self' data: https://*.tile.example.org;"), "{csp}");
/// assert!(csp.contains("script-src 'self';"));
/// ```
pub fn content_security_policy(tiles: Option<&str>) -> String {
    let tile_source = tiles.and_then(tile_origin);
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; \
         img-src 'self' data:{}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        tile_source.map(|s| format!(" {s}")).unwrap_or_default()
    )
}

/// The CSP source of an XYZ template's server: scheme and host (`{s}`
/// sub-domains as `*`), port kept; `None` for a relative template (served
/// from here) or one that is not http(s).
fn tile_origin(template: &str) -> Option<String> {
    let (scheme, rest) = template.split_once("://")?;
    if !(scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("http")) {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.replace("{s}", "*");
    // Only what a CSP host source may hold: no quotes, spaces or `;`.
    let ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-.:*[]".contains(c));
    ok.then(|| format!("{}://{host}", scheme.to_ascii_lowercase()))
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_hosts_on_loopback() {
        let p = HttpPolicy::for_bind(
            "127.0.0.1".parse().unwrap(),
            &["Feeder.Local".to_string()],
            None,
            None,
        );
        for ok in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1:8080",
            "127.1.2.3",
            "[::1]:8080",
            "[::1]",
            "feeder.local",
            "feeder.local.:80",
            "map.localhost",
        ] {
            assert!(p.host_allowed(Some(ok)), "{ok}");
        }
        for bad in [
            "attacker.example",
            "attacker.example:8080",
            "127.0.0.1.attacker.example",
            "192.168.1.5",
            "[::2]",
            "",
        ] {
            assert!(!p.host_allowed(Some(bad)), "{bad}");
        }
        // Without Host (HTTP/1.0): answered.
        assert!(p.host_allowed(None));
    }

    #[test]
    fn test_hosts_on_other_addresses() {
        let any = HttpPolicy::for_bind("0.0.0.0".parse().unwrap(), &[], None, None);
        assert!(any.host_allowed(Some("whatever.example")));
        let listed = HttpPolicy::for_bind(
            "0.0.0.0".parse().unwrap(),
            &["feeder.lan".to_string()],
            None,
            None,
        );
        assert!(listed.host_allowed(Some("feeder.lan:8080")));
        assert!(!listed.host_allowed(Some("other.lan")));
    }

    #[test]
    fn test_headers() {
        let mut head = String::new();
        HttpPolicy::default().write_headers(true, &mut head);
        assert!(head.contains("X-Content-Type-Options: nosniff\r\n"));
        assert!(head.contains("Referrer-Policy: no-referrer\r\n"));
        assert!(head.contains("Content-Security-Policy: default-src 'self';"));
        assert!(!head.contains("Access-Control"), "{head}");
        let p = HttpPolicy {
            cors_origin: Some("https://tar1090.example".into()),
            ..HttpPolicy::default()
        };
        let mut json = String::new();
        p.write_headers(true, &mut json);
        assert!(
            json.contains(
                "Access-Control-Allow-Origin: https://tar1090.example\r\nVary: Origin\r\n"
            )
        );
        let mut html = String::new();
        p.write_headers(false, &mut html);
        assert!(!html.contains("Access-Control"));
    }

    #[test]
    fn test_tile_origins() {
        assert_eq!(
            tile_origin("https://tile.openstreetmap.org/{z}/{x}/{y}.png").as_deref(),
            Some("https://tile.openstreetmap.org")
        );
        assert_eq!(
            tile_origin("http://10.0.0.2:8080/t/{z}/{x}/{y}").as_deref(),
            Some("http://10.0.0.2:8080")
        );
        assert_eq!(tile_origin("/tiles/{z}/{x}/{y}.png"), None);
        assert_eq!(tile_origin("javascript://x/{z}/{x}/{y}"), None);
        assert_eq!(tile_origin("https://a'b;c/{z}/{x}/{y}"), None);
        assert!(!content_security_policy(Some("https://x y/{z}")).contains("x y"));
    }
}
