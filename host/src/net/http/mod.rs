//! A small HTTP/1.1 server for the JSON feeds, `/metrics` and the map.
//!
//! What it serves comes from a [`Site`]; the server does the protocol:
//!
//! - `GET` and `HEAD` only (others get 405 with `Allow: GET, HEAD`);
//!   HTTP/1.0 and 1.1 (other versions 505); keep-alive (1.1 by default,
//!   1.0 with `Connection: keep-alive`) and pipelining;
//! - the request head (request line and headers) must fit [`MAX_HEAD`]
//!   bytes (else 431) and arrive within [`REQUEST_TIMEOUT`] (else 408;
//!   [`BUSY_TIMEOUT`] while many connections are open);
//!   an idle keep-alive connection is closed after [`REQUEST_TIMEOUT`];
//! - requests with a body (`Content-Length` > 0 or `Transfer-Encoding`)
//!   and HTTP/1.1 requests without `Host` get 400;
//! - the path is percent-decoded and normalised before the [`Site`] sees
//!   it: empty and `.` segments are removed, a `..` segment gives 404, and
//!   NUL, backslash, other control characters, invalid percent-encoding
//!   and invalid UTF-8 give 400. So the site only ever sees paths that
//!   start with `/`, contain none of those, and no `//`, `/./` or `/../`;
//! - every response has `Content-Length` and the [`HttpPolicy`]'s
//!   headers (no sniffing, no referrer, a Content-Security-Policy; CORS
//!   for JSON only when an origin is allowed); a `Host` the policy does not
//!   answer gets 403 (the DNS-rebinding guard);
//! - at most [`MAX_CONNECTIONS`] connections, each on its own thread; the
//!   excess gets 503 and is closed;
//! - a [`Site`] that panics gives 500.
//!
//! A request the parser rejects gets its error response and the connection
//! is closed; a 404 from the [`Site`] keeps it open.
//!
//! The request parser, [`parse_request`], is a pure function over bytes:
//! `httparse` tokenises the request line and the headers; what remains here
//! is what httparse leaves to the server: finding the end of the head (so
//! that "incomplete" means exactly "no blank line yet"), telling an
//! unsupported version (505) and method (405) from garbage (400), the
//! headers' meaning (Host, Connection, bodies) and the path's decoding and
//! normalisation.

use super::http_policy::HttpPolicy;
use super::listener::{Acceptor, ConnectionSlot, ListenerHandle, spawn_acceptor};
use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Largest request head (request line, headers and the blank line), bytes.
pub const MAX_HEAD: usize = 8 * 1024;

/// Most connections served at once (each has a thread; slow and idle ones
/// are cut short when many are open, see [`BUSY_TIMEOUT`]).
pub const MAX_CONNECTIONS: usize = 512;

/// Longest wait for a complete request head (and for an idle keep-alive
/// connection's next request); also the send timeout.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// [`REQUEST_TIMEOUT`] while more than [`BUSY_CONNECTIONS`] connections
/// are open: slow or idle clients (slowloris) then hold a slot for at most
/// this long, so the map keeps answering.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// Open connections above which [`BUSY_TIMEOUT`] applies.
pub const BUSY_CONNECTIONS: usize = 32;

/// How long a refused (503) connection is kept half-open so its client can
/// read the answer before the close.
const REFUSED_LINGER: Duration = Duration::from_secs(1);

/// A response from a [`Site`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// Status code, 200–599 (anything else is sent as 500).
    pub status: u16,
    /// `Content-Type`, e.g. `application/json` (the type the policy's
    /// CORS header applies to).
    pub content_type: &'static str,
    /// The body (sent for `GET`, its length only for `HEAD`).
    pub body: Cow<'static, [u8]>,
    /// `true`: `Cache-Control: max-age=3600` (static files); `false`:
    /// `Cache-Control: no-cache` (live data).
    pub cache: bool,
}

impl Response {
    /// A 200 response of live (uncached) JSON.
    ///
    /// ```
    /// use airwaves::net::http::Response;
    /// let r = Response::json(b"{}".to_vec());
    /// assert_eq!((r.status, r.content_type, r.cache), (200, "application/json", false));
    /// ```
    pub fn json(body: Vec<u8>) -> Self {
        Self {
            status: 200,
            content_type: "application/json",
            body: Cow::Owned(body),
            cache: false,
        }
    }

    /// A 200 response of static, cacheable content.
    pub fn static_file(content_type: &'static str, body: &'static [u8]) -> Self {
        Self {
            status: 200,
            content_type,
            body: Cow::Borrowed(body),
            cache: true,
        }
    }

    /// A plain-text response with `status`, not cached.
    pub fn text(status: u16, body: impl Into<Cow<'static, [u8]>>) -> Self {
        Self {
            status,
            content_type: "text/plain; charset=utf-8",
            body: body.into(),
            cache: false,
        }
    }
}

/// What the server serves. Called from connection threads, concurrently.
pub trait Site: Send + Sync + 'static {
    /// The resource at `path` (percent-decoded and normalised, see the
    /// module docs) with the raw `query` (after `?`, not decoded, may be
    /// empty); `None` gives 404.
    fn get(&self, path: &str, query: &str) -> Option<Response>;
}

/// A request method the server serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `HEAD`: as `GET` without the body.
    Head,
}

/// HTTP version of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// `HTTP/1.0`.
    Http10,
    /// `HTTP/1.1`.
    Http11,
}

/// A parsed request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The method.
    pub method: Method,
    /// The version.
    pub version: Version,
    /// The normalised, percent-decoded path (starts with `/`).
    pub path: String,
    /// The raw query (after `?`), possibly empty.
    pub query: String,
    /// Whether the connection stays open after the response.
    pub keep_alive: bool,
    /// The `Host` header's value, if any.
    pub host: Option<String>,
    /// Bytes of the input the head took (including leading blank lines
    /// and the blank line that ends it).
    pub head_len: usize,
}

/// What is wrong with a request, by the status it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpError {
    /// No blank line ending the head yet (read more).
    Incomplete,
    /// 400: malformed; the reason is for the response body.
    BadRequest(&'static str),
    /// 404: the path leaves the root (a `..` segment).
    Traversal,
    /// 405: a well-formed method other than `GET` and `HEAD`.
    MethodNotAllowed,
    /// 431: the head is longer than [`MAX_HEAD`].
    HeadTooLarge,
    /// 505: a well-formed `HTTP/x.y` other than 1.0 and 1.1.
    VersionNotSupported,
}

impl HttpError {
    /// The status code of the response (0 for [`HttpError::Incomplete`]).
    pub const fn status(self) -> u16 {
        match self {
            Self::Incomplete => 0,
            Self::BadRequest(_) => 400,
            Self::Traversal => 404,
            Self::MethodNotAllowed => 405,
            Self::HeadTooLarge => 431,
            Self::VersionNotSupported => 505,
        }
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Incomplete => f.write_str("incomplete request head"),
            Self::BadRequest(why) => write!(f, "bad request: {why}"),
            Self::Traversal => f.write_str("path leaves the root"),
            Self::MethodNotAllowed => f.write_str("method not allowed (GET and HEAD only)"),
            Self::HeadTooLarge => write!(f, "request head longer than {MAX_HEAD} bytes"),
            Self::VersionNotSupported => {
                f.write_str("HTTP version not supported (1.0 and 1.1 only)")
            }
        }
    }
}

impl std::error::Error for HttpError {}

/// Length of the request head at the start of `buf` (through the blank
/// line that ends it, CRLF or bare LF line ends, blank lines before the
/// request line skipped), or `None` if it is not complete.
pub fn find_head_end(buf: &[u8]) -> Option<usize> {
    let start = buf.iter().position(|&b| b != b'\r' && b != b'\n')?;
    let mut line_start = start;
    for (i, &b) in buf.iter().enumerate().skip(start) {
        if b == b'\n' {
            let line = buf.get(line_start..i)?;
            if line.is_empty() || line == b"\r" {
                return Some(i + 1);
            }
            line_start = i + 1;
        }
    }
    None
}

/// Most header lines a request may have (more get 431, like a head
/// longer than [`MAX_HEAD`]).
pub const MAX_HEADERS: usize = 64;

/// Parse the request head at the start of `buf` (bytes after it, e.g. a
/// pipelined request, are ignored; see [`Request::head_len`]).
///
/// ```
/// use airwaves::net::http::{parse_request, HttpError, Method};
/// let r = parse_request(b"GET /data/%61ircraft.json?x=1 HTTP/1.1\r\nHost: a\r\n\r\n").unwrap();
/// assert_eq!((r.method, r.path.as_str(), r.query.as_str()), (Method::Get, "/data/aircraft.json", "x=1"));
/// assert_eq!(parse_request(b"GET /../etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n"), Err(HttpError::Traversal));
/// ```
///
/// # Errors
///
/// See [`HttpError`]; the first problem found is reported, in the order:
/// size, syntax of the request line and headers (version included),
/// method, target, the headers' meaning.
pub fn parse_request(buf: &[u8]) -> Result<Request, HttpError> {
    let Some(head_len) = find_head_end(buf) else {
        // Reject what can never become a request line without waiting for
        // the rest.
        let start = buf
            .iter()
            .position(|&b| b != b'\r' && b != b'\n')
            .unwrap_or(buf.len());
        let first = buf.get(start..).unwrap_or_default();
        let line = first.split(|&b| b == b'\n').next().unwrap_or_default();
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if !line.iter().all(|&b| (0x20..=0x7E).contains(&b)) {
            return Err(HttpError::BadRequest("bad bytes in the request line"));
        }
        return Err(if buf.len() >= MAX_HEAD {
            HttpError::HeadTooLarge
        } else {
            HttpError::Incomplete
        });
    };
    if head_len > MAX_HEAD {
        return Err(HttpError::HeadTooLarge);
    }
    let start = buf
        .iter()
        .position(|&b| b != b'\r' && b != b'\n')
        .unwrap_or(0);
    let head = buf.get(start..head_len).unwrap_or_default();
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut fields);
    match parsed.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        // A head that ends in a blank line but that httparse would still
        // read on from (e.g. a lone CR line).
        Ok(httparse::Status::Partial) => {
            return Err(HttpError::BadRequest("malformed request head"));
        }
        Err(httparse::Error::Version) => return Err(version_error(head)),
        Err(httparse::Error::TooManyHeaders) => return Err(HttpError::HeadTooLarge),
        Err(httparse::Error::HeaderName | httparse::Error::NewLine) => {
            return Err(HttpError::BadRequest("bad header line"));
        }
        Err(httparse::Error::HeaderValue) => {
            return Err(HttpError::BadRequest("control character in a header value"));
        }
        Err(_) => {
            return Err(HttpError::BadRequest(
                "request line is not METHOD SP TARGET SP VERSION",
            ));
        }
    }
    let version = match parsed.version {
        Some(1) => Version::Http11,
        _ => Version::Http10,
    };
    // httparse has checked that the method is a token.
    let method = match parsed.method {
        Some("GET") => Method::Get,
        Some("HEAD") => Method::Head,
        _ => return Err(HttpError::MethodNotAllowed),
    };
    let target = parsed.path.unwrap_or_default().as_bytes();
    let (path, query) = parse_target(target)?;
    let headers = parse_headers(parsed.headers)?;
    if version == Version::Http11 && headers.hosts == 0 {
        return Err(HttpError::BadRequest("HTTP/1.1 request without Host"));
    }
    let keep_alive = match version {
        Version::Http11 => !headers.close,
        Version::Http10 => headers.keep_alive && !headers.close,
    };
    Ok(Request {
        method,
        version,
        path,
        query,
        keep_alive,
        host: headers.host,
        head_len,
    })
}

/// The error for a request line whose version httparse refused: 505 for
/// a well-formed `METHOD SP TARGET SP HTTP/d.d` (another version), else
/// 400.
fn version_error(head: &[u8]) -> HttpError {
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut parts = line.split(|&b| b == b' ');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(_), Some(_), Some([b'H', b'T', b'T', b'P', b'/', major, b'.', minor]), None)
            if major.is_ascii_digit() && minor.is_ascii_digit() =>
        {
            HttpError::VersionNotSupported
        }
        _ => HttpError::BadRequest("bad HTTP version"),
    }
}

/// Split the request target into the normalised path and the raw query.
fn parse_target(target: &[u8]) -> Result<(String, String), HttpError> {
    if !target.iter().all(|&b| (0x21..=0x7E).contains(&b)) {
        return Err(HttpError::BadRequest("bad character in the target"));
    }
    // Absolute form (`http://host/path`): keep the path.
    let target = match target
        .strip_prefix(b"http://")
        .or_else(|| target.strip_prefix(b"https://"))
    {
        Some(rest) => match rest.iter().position(|&b| b == b'/' || b == b'?') {
            Some(i) if rest.get(i) == Some(&b'/') => rest.get(i..).unwrap_or_default(),
            _ => b"/",
        },
        None => target,
    };
    if target.contains(&b'#') {
        return Err(HttpError::BadRequest("fragment in the target"));
    }
    let (raw_path, query) = match target.iter().position(|&b| b == b'?') {
        Some(i) => (
            target.get(..i).unwrap_or_default(),
            target.get(i + 1..).unwrap_or_default(),
        ),
        None => (target, &b""[..]),
    };
    if raw_path.first() != Some(&b'/') {
        return Err(HttpError::BadRequest("target does not start with /"));
    }
    let decoded = percent_decode(raw_path)?;
    if decoded.iter().any(|&b| b == b'\\' || b < 0x20 || b == 0x7F) {
        return Err(HttpError::BadRequest(
            "control character or backslash in the path",
        ));
    }
    let decoded =
        String::from_utf8(decoded).map_err(|_| HttpError::BadRequest("path is not UTF-8"))?;
    let mut path = String::with_capacity(decoded.len());
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => return Err(HttpError::Traversal),
            s => {
                path.push('/');
                path.push_str(s);
            }
        }
    }
    if path.is_empty() || decoded.ends_with('/') || decoded.ends_with("/.") {
        path.push('/');
    }
    // The query is ASCII: checked above.
    let query = String::from_utf8_lossy(query).into_owned();
    Ok((path, query))
}

fn percent_decode(s: &[u8]) -> Result<Vec<u8>, HttpError> {
    fn hex(b: u8) -> Option<u8> {
        char::from(b)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    }
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.iter();
    while let Some(&b) = bytes.next() {
        if b == b'%' {
            let (Some(hi), Some(lo)) = (
                bytes.next().copied().and_then(hex),
                bytes.next().copied().and_then(hex),
            ) else {
                return Err(HttpError::BadRequest("bad percent-encoding"));
            };
            out.push(hi << 4 | lo);
        } else {
            out.push(b);
        }
    }
    Ok(out)
}

/// What the server needs from the headers.
#[derive(Debug, Default)]
struct Headers {
    hosts: usize,
    host: Option<String>,
    close: bool,
    keep_alive: bool,
}

/// What the server needs from the headers httparse has checked (names
/// are tokens, values free of control characters).
fn parse_headers(fields: &[httparse::Header<'_>]) -> Result<Headers, HttpError> {
    let mut h = Headers::default();
    for field in fields {
        let (name, value) = (field.name, field.value.trim_ascii());
        if name.eq_ignore_ascii_case("host") {
            h.hosts += 1;
            if h.hosts > 1 {
                return Err(HttpError::BadRequest("more than one Host"));
            }
            h.host = Some(String::from_utf8_lossy(value).into_owned());
        } else if name.eq_ignore_ascii_case("connection") {
            for option in value.split(|&b| b == b',').map(<[u8]>::trim_ascii) {
                h.close |= option.eq_ignore_ascii_case(b"close");
                h.keep_alive |= option.eq_ignore_ascii_case(b"keep-alive");
            }
        } else if name.eq_ignore_ascii_case("content-length") {
            if !value.iter().all(u8::is_ascii_digit) || value.is_empty() {
                return Err(HttpError::BadRequest("bad Content-Length"));
            }
            if value.iter().any(|&b| b != b'0') {
                return Err(HttpError::BadRequest("request with a body"));
            }
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(HttpError::BadRequest("request with a body"));
        }
    }
    Ok(h)
}

/// The reason phrase of a status code.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Status",
    }
}

/// `time` as an HTTP date (IMF-fixdate, RFC 9110 §5.6.7), e.g.
/// `Sun, 06 Nov 1994 08:49:37 GMT`. Times before 1970 give the epoch.
pub fn http_date(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian), in
    // 400-year eras of 146 097 days counted from 0000-03-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let weekday = WEEKDAYS.get((days % 7) as usize).copied().unwrap_or("Thu");
    let month = MONTHS.get((month - 1) as usize).copied().unwrap_or("Jan");
    format!(
        "{weekday}, {day:02} {month} {year} {:02}:{:02}:{:02} GMT",
        rem / 3_600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Write one response. `body: false` for `HEAD` (length still sent).
fn write_response(
    out: &mut impl Write,
    response: &Response,
    policy: &HttpPolicy,
    body: bool,
    keep_alive: bool,
) -> io::Result<()> {
    let status = if (200..=599).contains(&response.status) {
        response.status
    } else {
        500
    };
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nServer: airwaves\r\nDate: {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: {}\r\n",
        reason(status),
        http_date(SystemTime::now()),
        response.content_type,
        response.body.len(),
        if response.cache {
            "max-age=3600"
        } else {
            "no-cache"
        },
    );
    policy.write_headers(
        response.content_type.starts_with("application/json"),
        &mut head,
    );
    if status == 405 {
        head.push_str("Allow: GET, HEAD\r\n");
    }
    head.push_str(if keep_alive {
        "Connection: keep-alive\r\n\r\n"
    } else {
        "Connection: close\r\n\r\n"
    });
    let mut bytes = head.into_bytes();
    if body {
        bytes.extend_from_slice(&response.body);
    }
    out.write_all(&bytes)?;
    out.flush()
}

fn error_response(status: u16, message: &str) -> Response {
    Response::text(
        status,
        format!("{status} {}: {message}\n", reason(status)).into_bytes(),
    )
}

/// What the connection does after the request it just read.
enum Next {
    KeepAlive,
    Close,
}

/// Answer one parsed request from the site.
fn respond(
    stream: &mut TcpStream,
    site: &dyn Site,
    policy: &HttpPolicy,
    request: &Request,
) -> io::Result<Next> {
    if !policy.host_allowed(request.host.as_deref()) {
        let r = error_response(
            403,
            "this Host is not served (a guard against DNS rebinding); --http-host NAME allows it",
        );
        write_response(stream, &r, policy, request.method == Method::Get, false)?;
        return Ok(Next::Close);
    }
    let answer = catch_unwind(AssertUnwindSafe(|| site.get(&request.path, &request.query)));
    let (response, keep_alive) = match answer {
        Ok(Some(r)) => (r, request.keep_alive),
        Ok(None) => (error_response(404, "no such resource"), request.keep_alive),
        Err(_) => (error_response(500, "the site failed"), false),
    };
    write_response(
        stream,
        &response,
        policy,
        request.method == Method::Get,
        keep_alive,
    )?;
    Ok(if keep_alive {
        Next::KeepAlive
    } else {
        Next::Close
    })
}

/// Serve requests on one connection until it closes, errs or times out.
fn serve_connection(
    mut stream: TcpStream,
    site: &dyn Site,
    policy: &HttpPolicy,
    slot: &ConnectionSlot,
) -> io::Result<()> {
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(REQUEST_TIMEOUT))?;
    stream.set_write_timeout(Some(REQUEST_TIMEOUT))?;
    let mut buf = vec![0u8; MAX_HEAD];
    let mut filled = 0;
    while !slot.stopping() {
        let begun = Instant::now();
        // Read until the head is complete (or cannot become a request).
        while matches!(
            parse_request(buf.get(..filled).unwrap_or_default()),
            Err(HttpError::Incomplete)
        ) {
            let too_slow = |stream: &mut TcpStream| {
                let r = error_response(408, "request head too slow");
                write_response(stream, &r, policy, true, false)
            };
            let allowed = if slot.active() > BUSY_CONNECTIONS {
                BUSY_TIMEOUT
            } else {
                REQUEST_TIMEOUT
            };
            let left = allowed.saturating_sub(begun.elapsed());
            if left.is_zero() {
                // An idle keep-alive connection just closes.
                if filled == 0 {
                    return Ok(());
                }
                return too_slow(&mut stream);
            }
            // Wait in short slices, so that a server turning busy cuts the
            // wait short.
            stream.set_read_timeout(Some(left.min(BUSY_TIMEOUT)))?;
            match stream.read(buf.get_mut(filled..).unwrap_or_default()) {
                Ok(0) => return Ok(()),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => return Err(e),
            }
        }
        let request = match parse_request(buf.get(..filled).unwrap_or_default()) {
            Ok(r) => r,
            Err(e) => {
                return write_response(
                    &mut stream,
                    &error_response(e.status(), &e.to_string()),
                    policy,
                    true,
                    false,
                );
            }
        };
        let next = respond(&mut stream, site, policy, &request)?;
        buf.copy_within(request.head_len..filled, 0);
        filled -= request.head_len;
        if let Next::Close = next {
            break;
        }
    }
    let _ = stream.shutdown(Shutdown::Write);
    Ok(())
}

struct HttpAcceptor {
    site: Arc<dyn Site>,
    policy: Arc<HttpPolicy>,
    /// Refused connections kept open a moment so the 503 is read.
    lingering: VecDeque<(Instant, TcpStream)>,
}

impl Acceptor for HttpAcceptor {
    fn accept(&mut self, stream: TcpStream, peer: SocketAddr, slot: ConnectionSlot) {
        let site = Arc::clone(&self.site);
        let policy = Arc::clone(&self.policy);
        let spawned = thread::Builder::new().name("http".into()).spawn(move || {
            if let Err(e) = serve_connection(stream, &*site, &policy, &slot) {
                // Resets and broken pipes are the client's business.
                if !matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionReset
                        | io::ErrorKind::BrokenPipe
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::WouldBlock
                ) {
                    eprintln!("http: {peer}: {e}");
                }
            }
        });
        if let Err(e) = spawned {
            eprintln!("http: cannot start a connection thread: {e}");
        }
    }

    fn refuse(&mut self, stream: TcpStream) {
        self.idle();
        // Read what already arrived (so the close is not a reset), answer,
        // and keep the socket a moment. Nothing here can block: the socket
        // is non-blocking and the answer fits any send buffer.
        if stream.set_nonblocking(true).is_err() {
            return;
        }
        let mut scratch = [0u8; 1024];
        for _ in 0..MAX_HEAD / scratch.len() {
            if !matches!((&stream).read(&mut scratch), Ok(n) if n > 0) {
                break;
            }
        }
        let _ = write_response(
            &mut &stream,
            &error_response(503, "too many connections"),
            &self.policy,
            true,
            false,
        );
        let _ = stream.shutdown(Shutdown::Write);
        if self.lingering.len() >= MAX_CONNECTIONS {
            self.lingering.pop_front();
        }
        self.lingering.push_back((Instant::now(), stream));
    }

    fn idle(&mut self) {
        while self
            .lingering
            .front()
            .is_some_and(|(t, _)| t.elapsed() > REFUSED_LINGER)
        {
            self.lingering.pop_front();
        }
    }
}

/// Serve `site` over HTTP on `addr` (see the module docs).
///
/// # Errors
///
/// Binding `addr` or starting the accept thread failed.
pub fn serve_http(addr: SocketAddr, site: Arc<dyn Site>) -> io::Result<ListenerHandle> {
    serve_http_with(addr, site, HttpPolicy::default())
}

/// [`serve_http`] under `policy` (hosts answered, CORS, security headers).
///
/// # Errors
/// The address cannot be bound.
pub fn serve_http_with(
    addr: SocketAddr,
    site: Arc<dyn Site>,
    policy: HttpPolicy,
) -> io::Result<ListenerHandle> {
    spawn_acceptor(
        addr,
        "http",
        MAX_CONNECTIONS,
        HttpAcceptor {
            site,
            policy: Arc::new(policy),
            lingering: VecDeque::new(),
        },
    )
}

#[cfg(test)]
mod tests;
