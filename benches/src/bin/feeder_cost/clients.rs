//! The load on the feeder: Beast, AVR and SBS clients that count what they receive, and the HTTP poller of its JSON and metrics.

use super::*;

/// Counts Beast messages in a TCP stream that arrives in arbitrary pieces.
///
/// A message is `0x1A`, a type byte (`'1'` Mode A/C, `'2'` Mode S short,
/// `'3'` Mode S long), 6 bytes of 12 MHz timestamp, 1 byte of signal level
/// and 2, 7 or 14 bytes of message; every `0x1A` inside is sent twice. Other
/// types, and messages cut short by an unescaped `0x1A`, count as `other`,
/// and the counter resynchronises on the next `0x1A`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct BeastCounter {
    /// Complete Mode S messages (types `'2'` and `'3'`).
    pub(super) mode_s: u64,
    /// Complete Mode A/C messages (type `'1'`).
    pub(super) mode_ac: u64,
    /// Messages of other types, or cut short.
    pub(super) other: u64,
    /// Where the parser is.
    pub(super) state: BeastState,
}

/// Position of [`BeastCounter`] in the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum BeastState {
    /// Looking for `0x1A`.
    #[default]
    Hunt,
    /// After `0x1A`, before the type byte.
    Type,
    /// Inside a message of `kind`, with `left` payload bytes to come;
    /// `escape` after a `0x1A` that must be doubled.
    Body { kind: u8, left: u8, escape: bool },
}

/// The Beast escape byte.
pub(super) const BEAST_ESC: u8 = 0x1A;

impl BeastCounter {
    /// Payload bytes after the type byte (timestamp, signal, message), or
    /// `None` for types that carry no Mode S or Mode A/C message.
    pub(super) fn payload_len(kind: u8) -> Option<u8> {
        match kind {
            b'1' => Some(6 + 1 + 2),
            b'2' => Some(6 + 1 + 7),
            b'3' => Some(6 + 1 + 14),
            _ => None,
        }
    }

    /// Read the next piece of the stream.
    pub(super) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.state = self.step(b);
        }
    }

    /// The state after byte `b`.
    pub(super) fn step(&mut self, b: u8) -> BeastState {
        match self.state {
            BeastState::Hunt if b == BEAST_ESC => BeastState::Type,
            BeastState::Hunt => BeastState::Hunt,
            BeastState::Type => self.message_type(b),
            BeastState::Body {
                kind,
                left,
                escape: true,
            } => {
                if b == BEAST_ESC {
                    self.payload_byte(kind, left)
                } else {
                    // An unescaped 0x1A: the message was cut short and `b`
                    // is the type of the next one.
                    self.other += 1;
                    self.message_type(b)
                }
            }
            BeastState::Body { kind, left, .. } if b == BEAST_ESC => BeastState::Body {
                kind,
                left,
                escape: true,
            },
            BeastState::Body { kind, left, .. } => self.payload_byte(kind, left),
        }
    }

    /// The state after type byte `b` (which followed a single `0x1A`).
    pub(super) fn message_type(&mut self, b: u8) -> BeastState {
        match Self::payload_len(b) {
            Some(left) => BeastState::Body {
                kind: b,
                left,
                escape: false,
            },
            // An escaped 0x1A inside bytes we were skipping.
            None if b == BEAST_ESC => BeastState::Hunt,
            None => {
                self.other += 1;
                BeastState::Hunt
            }
        }
    }

    /// One payload byte of a `kind` message with `left` bytes to come
    /// (this one included).
    pub(super) fn payload_byte(&mut self, kind: u8, left: u8) -> BeastState {
        if left > 1 {
            return BeastState::Body {
                kind,
                left: left - 1,
                escape: false,
            };
        }
        if kind == b'1' {
            self.mode_ac += 1;
        } else {
            self.mode_s += 1;
        }
        BeastState::Hunt
    }
}

/// Counts the complete lines (ending in `\n`) of a text stream that start
/// with one of `prefixes`, across arbitrary pieces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LineCounter {
    /// Line starts that count, each at most 8 bytes.
    pub(super) prefixes: &'static [&'static [u8]],
    /// Complete matching lines.
    pub(super) lines: u64,
    /// Complete lines that did not match.
    pub(super) other: u64,
    /// First bytes of the current line.
    pub(super) head: [u8; 8],
    /// Bytes of the current line so far (saturating).
    pub(super) len: usize,
}

impl LineCounter {
    /// A counter for lines starting with any of `prefixes`.
    pub(super) fn new(prefixes: &'static [&'static [u8]]) -> Self {
        Self {
            prefixes,
            lines: 0,
            other: 0,
            head: [0; 8],
            len: 0,
        }
    }

    /// Read the next piece of the stream.
    pub(super) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' {
                let head = &self.head[..self.len.min(self.head.len())];
                if self.prefixes.iter().any(|p| head.starts_with(p)) {
                    self.lines += 1;
                } else {
                    self.other += 1;
                }
                self.len = 0;
            } else {
                if let Some(slot) = self.head.get_mut(self.len) {
                    *slot = b;
                }
                self.len = self.len.saturating_add(1);
            }
        }
    }
}

/// Output protocol of a feeder port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Protocol {
    /// Binary Beast (`--net-bo-port`).
    Beast,
    /// BaseStation text (`--net-sbs-port`).
    Sbs,
    /// AVR raw text (`--net-ro-port`).
    Avr,
}

/// Protocol of client `i` (from 0): Beast, SBS, AVR in turn.
pub(super) fn client_protocol(i: usize) -> Protocol {
    [Protocol::Beast, Protocol::Sbs, Protocol::Avr][i % 3]
}

/// The frame counter of one client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum FrameCounter {
    /// Beast messages.
    Beast(BeastCounter),
    /// SBS or AVR lines.
    Lines(LineCounter),
}

impl FrameCounter {
    /// A counter for `p`.
    pub(super) fn new(p: Protocol) -> Self {
        match p {
            Protocol::Beast => Self::Beast(BeastCounter::default()),
            Protocol::Sbs => Self::Lines(LineCounter::new(&[b"MSG,"])),
            Protocol::Avr => Self::Lines(LineCounter::new(&[b"*", b"@"])),
        }
    }

    /// Read the next piece of the stream.
    pub(super) fn feed(&mut self, bytes: &[u8]) {
        match self {
            Self::Beast(c) => c.feed(bytes),
            Self::Lines(c) => c.feed(bytes),
        }
    }

    /// Frames so far: Mode S Beast messages, or matching lines.
    pub(super) fn frames(&self) -> u64 {
        match self {
            Self::Beast(c) => c.mode_s,
            Self::Lines(c) => c.lines,
        }
    }
}

/// What one client received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ClientResult {
    /// Its protocol.
    pub(super) protocol: Protocol,
    /// Whether it connected at all.
    pub(super) connected: bool,
    /// Bytes received.
    pub(super) bytes: u64,
    /// Frames received (see [`FrameCounter::frames`]).
    pub(super) frames: u64,
}

/// A client: connect to `addr` (retrying until [`CONNECT_WITHIN`] has
/// passed or `stop` is set), then read and count until the feeder closes
/// the connection, or `stop` is set and nothing more arrives.
pub(super) fn spawn_client(
    addr: SocketAddr,
    protocol: Protocol,
    stop: Arc<AtomicBool>,
) -> JoinHandle<ClientResult> {
    std::thread::spawn(move || {
        let mut result = ClientResult {
            protocol,
            connected: false,
            bytes: 0,
            frames: 0,
        };
        let deadline = Instant::now() + CONNECT_WITHIN;
        let mut stream = loop {
            match TcpStream::connect_timeout(&addr, Duration::from_secs(1)) {
                Ok(s) => break s,
                Err(_) if Instant::now() < deadline && !stop.load(Ordering::Relaxed) => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(_) => return result,
            }
        };
        result.connected = true;
        if stream.set_read_timeout(Some(READ_TIMEOUT)).is_err() {
            return result;
        }
        let mut counter = FrameCounter::new(protocol);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    result.bytes += n as u64;
                    counter.feed(&buf[..n]);
                }
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        result.frames = counter.frames();
        result
    })
}

/// Status and body of a raw HTTP/1.x response (`Content-Length`,
/// `Transfer-Encoding: chunked`, or read to close).
pub(super) fn parse_http_response(raw: &[u8]) -> Result<(u16, Vec<u8>), String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("HTTP: no end of headers")?;
    let head = std::str::from_utf8(&raw[..end]).map_err(|_| "HTTP: headers not UTF-8")?;
    let body = &raw[end + 4..];
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let mut parts = status_line.split_whitespace();
    if !parts.next().is_some_and(|v| v.starts_with("HTTP/1.")) {
        return Err(format!("HTTP: bad status line {status_line:?}"));
    }
    let status: u16 = parts
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("HTTP: bad status line {status_line:?}"))?;
    let mut length = None;
    let mut chunked = false;
    for l in lines {
        let Some((k, v)) = l.split_once(':') else {
            return Err(format!("HTTP: bad header {l:?}"));
        };
        let v = v.trim();
        if k.eq_ignore_ascii_case("content-length") {
            length = Some(
                v.parse::<usize>()
                    .map_err(|_| format!("HTTP: bad Content-Length {v:?}"))?,
            );
        } else if k.eq_ignore_ascii_case("transfer-encoding") {
            chunked = v.eq_ignore_ascii_case("chunked");
        }
    }
    if chunked {
        return Ok((status, dechunk(body)?));
    }
    match length {
        Some(n) if body.len() < n => Err(format!("HTTP: body {} of {n} bytes", body.len())),
        Some(n) => Ok((status, body[..n].to_vec())),
        None => Ok((status, body.to_vec())),
    }
}

/// Body of a `Transfer-Encoding: chunked` message.
pub(super) fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let eol = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("HTTP: chunk size line cut short")?;
        let size_text = std::str::from_utf8(&data[..eol]).map_err(|_| "HTTP: bad chunk size")?;
        let size_hex = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_hex, 16)
            .map_err(|_| format!("HTTP: bad chunk size {size_text:?}"))?;
        data = &data[eol + 2..];
        if size == 0 {
            return Ok(out);
        }
        if data.len() < size + 2 || &data[size..size + 2] != b"\r\n" {
            return Err("HTTP: chunk cut short".into());
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

/// `GET path` from `addr` with HTTP/1.1 and `Connection: close`; the body
/// of a 200 response.
pub(super) fn http_get(addr: SocketAddr, path: &str) -> Result<Vec<u8>, String> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(1))
        .map_err(|e| format!("connect {addr}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(2)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAccept: */*\r\n\r\n"
    )
    .map_err(|e| format!("send to {addr}: {e}"))?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)
        .map_err(|e| format!("read from {addr}: {e}"))?;
    match parse_http_response(&raw)? {
        (200, body) => Ok(body),
        (status, _) => Err(format!("GET {path}: status {status}")),
    }
}

/// Number of objects in the top-level `"aircraft"` array of an
/// `aircraft.json` (dump1090 and readsb layout), or `None` if it has none.
/// Strings are skipped, so braces inside them do not count.
pub(super) fn count_json_aircraft(json: &str) -> Option<usize> {
    let key = json.find("\"aircraft\"")?;
    let rest = json[key + "\"aircraft\"".len()..].trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('[')?;
    let (mut depth, mut count) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for c in rest.chars() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => {
                if depth == 0 && c == '{' {
                    count += 1;
                }
                depth += 1;
            }
            ']' if depth == 0 => return Some(count),
            '}' | ']' => depth = depth.checked_sub(1)?,
            _ => {}
        }
    }
    None
}

/// What the HTTP poller saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct HttpResult {
    /// Successful requests (both paths).
    pub(super) ok: u64,
    /// Failed requests, and the last error.
    pub(super) failed: u64,
    /// Last error message.
    pub(super) last_error: Option<String>,
    /// Aircraft in the last `aircraft.json` received.
    pub(super) aircraft: Option<usize>,
}

/// Fetch `/data/aircraft.json` and `/metrics` from `addr` every
/// [`HTTP_EVERY`] until `stop` is set.
pub(super) fn spawn_http_poller(addr: SocketAddr, stop: Arc<AtomicBool>) -> JoinHandle<HttpResult> {
    std::thread::spawn(move || {
        let mut r = HttpResult::default();
        let mut next = Instant::now() + Duration::from_millis(500);
        while !stop.load(Ordering::Relaxed) {
            if Instant::now() < next {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            next += HTTP_EVERY;
            for path in ["/data/aircraft.json", "/metrics"] {
                match http_get(addr, path) {
                    Ok(body) => {
                        r.ok += 1;
                        if path.ends_with(".json") {
                            match count_json_aircraft(&String::from_utf8_lossy(&body)) {
                                Some(n) => r.aircraft = Some(n),
                                None => {
                                    r.failed += 1;
                                    r.last_error = Some(format!("{path}: no \"aircraft\" array"));
                                }
                            }
                        }
                    }
                    Err(e) => {
                        r.failed += 1;
                        r.last_error = Some(e);
                    }
                }
            }
        }
        r
    })
}
