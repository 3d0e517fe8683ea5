//! The server's tests: the request parser on literal requests, the
//! server on real sockets.

use super::*;
use std::sync::Mutex;

fn get(target: &str) -> Vec<u8> {
    format!("GET {target} HTTP/1.1\r\nHost: test\r\n\r\n").into_bytes()
}

fn path_of(target: &str) -> Result<String, HttpError> {
    parse_request(&get(target)).map(|r| r.path)
}

#[test]
fn test_parse_ok() {
    let r = parse_request(
        b"GET /data/aircraft.json?a=1&b=%zz HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\nGET /next",
    )
    .unwrap();
    assert_eq!(r.method, Method::Get);
    assert_eq!(r.version, Version::Http11);
    assert_eq!(r.path, "/data/aircraft.json");
    assert_eq!(r.query, "a=1&b=%zz");
    assert!(r.keep_alive);
    assert_eq!(r.head_len, 68);
    let r = parse_request(b"\r\nHEAD / HTTP/1.0\nConnection: Keep-Alive\n\n").unwrap();
    assert_eq!(
        (r.method, r.version, r.path.as_str(), r.keep_alive),
        (Method::Head, Version::Http10, "/", true)
    );
    assert_eq!(r.head_len, 42);
    let r = parse_request(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    assert!(!r.keep_alive);
    let r = parse_request(
        b"GET / HTTP/1.1\r\nHost: x\r\nConnection: foo, close\r\nContent-Length: 0\r\n\r\n",
    )
    .unwrap();
    assert!(!r.keep_alive);
    let r =
        parse_request(b"GET http://example.com:8080/a/b?q HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    assert_eq!((r.path.as_str(), r.query.as_str()), ("/a/b", "q"));
    let r = parse_request(b"GET http://example.com HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    assert_eq!(r.path, "/");
}

#[test]
fn test_parse_paths() {
    for (target, want) in [
        ("/", "/"),
        ("//etc/passwd", "/etc/passwd"),
        ("/a/./b/", "/a/b/"),
        ("/a/.", "/a/"),
        ("/./", "/"),
        ("/web//index.html", "/web/index.html"),
        ("/%7Euser/%41", "/~user/A"),
        ("/caf%C3%A9", "/café"),
        ("/a%2Fb", "/a/b"),
        ("/...", "/..."),
        ("/a..b", "/a..b"),
    ] {
        assert_eq!(path_of(target).as_deref(), Ok(want), "{target}");
    }
    for target in [
        "/../../etc/passwd",
        "/%2e%2e/",
        "/web/..%2f..",
        "/a/..",
        "/%2E%2E",
        "/a/%2e./b",
    ] {
        assert_eq!(path_of(target), Err(HttpError::Traversal), "{target}");
    }
    for target in [
        "/%zz", "/%4", "/%", "/a%00b", "/a%5cb", "/a\\b", "/%ff", "/a%0a", "*", "a/b", "/x#frag",
    ] {
        assert_eq!(
            path_of(target).map_err(HttpError::status),
            Err(400),
            "{target}"
        );
    }
}

#[test]
fn test_parse_errors() {
    let status = |raw: &[u8]| parse_request(raw).map(|_| ()).map_err(HttpError::status);
    assert_eq!(
        parse_request(b"GET / HTTP/1.1\r\nHost: x\r\n"),
        Err(HttpError::Incomplete)
    );
    assert_eq!(parse_request(b""), Err(HttpError::Incomplete));
    assert_eq!(parse_request(b"\r\n\r\n"), Err(HttpError::Incomplete));
    assert_eq!(status(b"\x00\x01 junk"), Err(400));
    assert_eq!(status(b"GET /\r\n\r\n"), Err(400));
    assert_eq!(status(b"GET  / HTTP/1.1\r\nHost: x\r\n\r\n"), Err(400));
    assert_eq!(status(b"GET / HTTP/1.1 \r\nHost: x\r\n\r\n"), Err(400));
    assert_eq!(status(b"GET / HTTP/1\r\nHost: x\r\n\r\n"), Err(400));
    assert_eq!(status(b"GET / http/1.1\r\nHost: x\r\n\r\n"), Err(400));
    assert_eq!(status(b"GET / HTTP/2.0\r\nHost: x\r\n\r\n"), Err(505));
    assert_eq!(status(b"POST / HTTP/1.1\r\nHost: x\r\n\r\n"), Err(405));
    assert_eq!(status(b"get / HTTP/1.1\r\nHost: x\r\n\r\n"), Err(405));
    assert_eq!(status(b"G(T / HTTP/1.1\r\nHost: x\r\n\r\n"), Err(400));
    assert_eq!(status(b"GET / HTTP/1.1\r\n\r\n"), Err(400));
    assert_eq!(
        status(b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
        Err(400)
    );
    assert_eq!(
        status(b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n"),
        Err(400)
    );
    assert_eq!(
        status(b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"),
        Err(400)
    );
    assert_eq!(
        status(b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"),
        Err(400)
    );
    assert_eq!(
        status(b"GET / HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n"),
        Err(400)
    );
    assert_eq!(
        status(b"GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n"),
        Err(400)
    );
    assert_eq!(
        status(b"GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n"),
        Err(400)
    );
    assert_eq!(
        status(b"GET / HTTP/1.1\r\nHost: x\r\nA: b\x01c\r\n\r\n"),
        Err(400)
    );
    assert_eq!(status(b"GET /\r HTTP/1.1\r\nHost: x\r\n\r\n"), Err(400));
    let mut big = b"GET / HTTP/1.1\r\nHost: x\r\nX: ".to_vec();
    big.resize(MAX_HEAD, b'a');
    assert_eq!(parse_request(&big), Err(HttpError::HeadTooLarge));
    big.extend_from_slice(b"\r\n\r\n");
    assert_eq!(parse_request(&big), Err(HttpError::HeadTooLarge));
    assert_eq!(
        HttpError::MethodNotAllowed.to_string(),
        "method not allowed (GET and HEAD only)"
    );
}

/// Random inputs near valid requests: no panic, and every accepted
/// path is clean.
#[test]
fn test_http_date() {
    let at = |secs| http_date(UNIX_EPOCH + Duration::from_secs(secs));
    assert_eq!(at(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT");
    assert_eq!(at(0), "Thu, 01 Jan 1970 00:00:00 GMT");
    assert_eq!(at(951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT");
    assert_eq!(at(4_133_980_799), "Fri, 31 Dec 2100 23:59:59 GMT");
    assert_eq!(at(1_798_761_600), "Fri, 01 Jan 2027 00:00:00 GMT");
}

#[test]
fn test_parse_never_panics() {
    let seeds: [&[u8]; 4] = [
        b"GET /a/b/../c?x HTTP/1.1\r\nHost: x\r\n\r\n",
        b"HEAD //%2e%2e/%zz/%C3%A9 HTTP/1.0\r\nConnection: close\r\n\r\n",
        b"GET http://h/./. HTTP/1.1\nHost: y\nContent-Length: 0\n\n",
        b"\r\nGET /%5c%00 HTTP/1.1\r\nHost:\r\n\r\n",
    ];
    let alphabet = b"/.%25eE\\\r\n :?#\x00\x80azGET HTTP/1.";
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut accepted = 0;
    for i in 0..20_000 {
        let mut input = seeds[i % seeds.len()].to_vec();
        for _ in 0..(next() % 6) {
            let at = (next() % (input.len() as u64 + 1)) as usize;
            let b = alphabet[(next() % alphabet.len() as u64) as usize];
            match next() % 3 {
                0 => input.insert(at, b),
                1 if at < input.len() => input[at] = b,
                _ if at < input.len() => {
                    input.remove(at);
                }
                _ => {}
            }
        }
        if let Ok(r) = parse_request(&input) {
            accepted += 1;
            let p = &r.path;
            assert!(p.starts_with('/'), "{p:?}");
            assert!(
                !p.contains("//") && !p.contains('\\') && !p.contains('\0'),
                "{p:?}"
            );
            assert!(!p.split('/').any(|s| s == ".." || s == "."), "{p:?}");
            assert!(r.head_len <= input.len());
        }
    }
    assert!(accepted > 1000, "{accepted}");
}

/// A site that records the paths it is asked for.
#[derive(Default)]
struct TestSite {
    seen: Mutex<Vec<String>>,
}

impl Site for TestSite {
    fn get(&self, path: &str, query: &str) -> Option<Response> {
        self.seen.lock().unwrap().push(path.to_owned());
        match path {
            "/" => Some(Response::static_file("text/html", b"<html>map</html>")),
            "/data/aircraft.json" => Some(Response::json(
                format!("{{\"q\":\"{query}\"}}").into_bytes(),
            )),
            "/panic" => panic!("test site panics"),
            _ => None,
        }
    }
}

struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// Read one response (body by Content-Length, none for HEAD).
fn read_reply(s: &mut TcpStream, head_request: bool) -> Reply {
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        assert_eq!(
            s.read(&mut byte).unwrap(),
            1,
            "closed inside a head: {raw:?}"
        );
        raw.push(byte[0]);
    }
    let head = String::from_utf8(raw).unwrap();
    let status = head[9..12].parse().unwrap();
    let mut reply = Reply {
        status,
        head,
        body: Vec::new(),
    };
    let len: usize = reply
        .header("content-length")
        .expect("Content-Length")
        .parse()
        .unwrap();
    if !head_request {
        reply.body = vec![0; len];
        s.read_exact(&mut reply.body).unwrap();
    }
    reply
}

fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s
}

fn exchange(addr: SocketAddr, raw: &[u8]) -> Reply {
    let mut s = connect(addr);
    s.write_all(raw).unwrap();
    read_reply(&mut s, false)
}

fn assert_closed(s: &mut TcpStream) {
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "{rest:?}");
}

fn server() -> (Arc<TestSite>, ListenerHandle) {
    let site = Arc::new(TestSite::default());
    let handle = serve_http("127.0.0.1:0".parse().unwrap(), site.clone()).unwrap();
    (site, handle)
}

#[test]
fn test_http_host_guard_and_cors_origin() {
    let site = Arc::new(TestSite::default());
    let policy = HttpPolicy::for_bind(
        "127.0.0.1".parse().unwrap(),
        &["feeder.lan".into()],
        Some("https://map.example".into()),
        None,
    );
    let handle = serve_http_with("127.0.0.1:0".parse().unwrap(), site, policy).unwrap();
    let ask = |host: &str| {
        let mut s = connect(handle.local_addr());
        s.write_all(format!("GET /data/aircraft.json HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes())
            .unwrap();
        read_reply(&mut s, false)
    };
    // A rebound name is refused; loopback names and the listed one are
    // answered, with the one allowed origin.
    let r = ask("attacker.example:8080");
    assert_eq!(r.status, 403);
    assert!(String::from_utf8_lossy(&r.body).contains("--http-host"));
    assert_eq!(r.header("access-control-allow-origin"), None);
    for host in ["localhost:8080", "127.0.0.1", "[::1]:8080", "feeder.lan"] {
        let r = ask(host);
        assert_eq!(r.status, 200, "{host}");
        assert_eq!(
            r.header("access-control-allow-origin"),
            Some("https://map.example")
        );
    }
    drop(handle);
}

#[test]
fn test_http_keep_alive_head_404_405() {
    let (site, handle) = server();
    let mut s = connect(handle.local_addr());
    s.write_all(b"GET /data/aircraft.json?now=1 HTTP/1.1\r\nHost: a\r\n\r\n")
        .unwrap();
    let r = read_reply(&mut s, false);
    assert_eq!(r.status, 200);
    assert_eq!(r.body, b"{\"q\":\"now=1\"}");
    assert_eq!(r.header("content-length"), Some("13"));
    // Same origin only by default; the security headers on everything.
    assert_eq!(r.header("access-control-allow-origin"), None);
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(r.header("referrer-policy"), Some("no-referrer"));
    assert!(
        r.header("content-security-policy")
            .is_some_and(|c| c.contains("script-src 'self'"))
    );
    assert_eq!(r.header("cache-control"), Some("no-cache"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert!(
        r.header("date")
            .is_some_and(|d| d.ends_with(" GMT") && d.len() == 29)
    );
    // Same connection: the page, HEAD of it, a 404, two pipelined.
    s.write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n").unwrap();
    let r = read_reply(&mut s, false);
    assert_eq!((r.status, &r.body[..]), (200, &b"<html>map</html>"[..]));
    assert_eq!(r.header("access-control-allow-origin"), None);
    assert_eq!(r.header("cache-control"), Some("max-age=3600"));
    s.write_all(b"HEAD / HTTP/1.1\r\nHost: a\r\n\r\n").unwrap();
    let r = read_reply(&mut s, true);
    assert_eq!((r.status, r.header("content-length")), (200, Some("16")));
    s.write_all(b"GET /missing HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")
        .unwrap();
    assert_eq!(read_reply(&mut s, false).status, 404);
    assert_eq!(read_reply(&mut s, false).status, 200);
    // 405 names the methods and closes.
    s.write_all(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi")
        .unwrap();
    let r = read_reply(&mut s, false);
    assert_eq!((r.status, r.header("allow")), (405, Some("GET, HEAD")));
    assert_closed(&mut s);
    assert_eq!(
        *site.seen.lock().unwrap(),
        ["/data/aircraft.json", "/", "/", "/missing", "/"]
    );

    // HTTP/1.0 closes after the response; Connection: close too.
    let mut s = connect(handle.local_addr());
    s.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    assert_eq!(read_reply(&mut s, false).status, 200);
    assert_closed(&mut s);
    let mut s = connect(handle.local_addr());
    s.write_all(b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        .unwrap();
    assert_eq!(
        read_reply(&mut s, false).header("connection"),
        Some("close")
    );
    assert_closed(&mut s);
    // A panicking site gives 500.
    assert_eq!(exchange(handle.local_addr(), &get("/panic")).status, 500);
}

#[test]
fn test_http_bad_requests() {
    let (site, handle) = server();
    let addr = handle.local_addr();
    for (raw, status) in [
        (&b"\x00\x01 junk"[..], 400),
        (b"GET /\r\n\r\n", 400),
        (b"GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        (b"GET / HTTP/3.0\r\nHost: a\r\n\r\n", 505),
        (b"DELETE / HTTP/1.1\r\nHost: a\r\n\r\n", 405),
    ] {
        let mut s = connect(addr);
        s.write_all(raw).unwrap();
        assert_eq!(read_reply(&mut s, false).status, status, "{raw:?}");
        assert_closed(&mut s);
    }
    // Oversized head: 431 even though the head never ends.
    let mut s = connect(addr);
    let mut raw = b"GET / HTTP/1.1\r\nHost: a\r\nX-Big: ".to_vec();
    raw.resize(MAX_HEAD + 100, b'x');
    // The server may stop reading at 8 KiB and answer: ignore a reset.
    let _ = s.write_all(&raw);
    let r = read_reply(&mut s, false);
    assert_eq!(r.status, 431);
    assert!(site.seen.lock().unwrap().is_empty());
}

#[test]
fn test_http_traversal_never_reaches_site() {
    let (site, handle) = server();
    let addr = handle.local_addr();
    for target in [
        "/../../etc/passwd",
        "/%2e%2e/",
        "//etc/passwd",
        "/web/..%2f..",
        "/web/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/.%2e/x",
        "/a\\..\\b",
        "/%5c..%5c",
        "/x%00/../",
        "http://h/../x",
    ] {
        let r = exchange(addr, &get(target));
        assert!(matches!(r.status, 400 | 404), "{target}: {}", r.status);
    }
    let seen = site.seen.lock().unwrap();
    assert_eq!(*seen, ["/etc/passwd"]);
    for p in seen.iter() {
        assert!(!p.contains("..") && !p.contains("//") && !p.contains('\\'));
    }
}

#[test]
fn test_http_slowloris_does_not_hold_the_map() {
    let (_site, handle) = server();
    let addr = handle.local_addr();
    // 100 clients that send half a request head and then nothing, and 100
    // that send nothing at all.
    let mut slow: Vec<TcpStream> = (0..100).map(|_| connect(addr)).collect();
    for s in &mut slow {
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap();
    }
    let idle: Vec<TcpStream> = (0..100).map(|_| connect(addr)).collect();
    let deadline = Instant::now() + Duration::from_secs(10);
    while handle.active() < 200 {
        assert!(Instant::now() < deadline, "{}", handle.active());
        thread::sleep(Duration::from_millis(5));
    }
    // The map answers at once, well under the cap.
    let t0 = Instant::now();
    assert_eq!(exchange(addr, &get("/data/aircraft.json")).status, 200);
    assert!(t0.elapsed() < BUSY_TIMEOUT, "{:?}", t0.elapsed());
    // Busy: the slow heads get 408 and the idle ones are closed within
    // BUSY_TIMEOUT (and a slice), not REQUEST_TIMEOUT, until no more than
    // BUSY_CONNECTIONS are left (those keep the usual timeout).
    while handle.active() > BUSY_CONNECTIONS {
        assert!(t0.elapsed() < BUSY_TIMEOUT * 3, "{}", handle.active());
        thread::sleep(Duration::from_millis(20));
    }
    // Most slow heads were answered 408.
    let cut = slow
        .iter_mut()
        .map(|s| {
            s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
            let mut head = [0u8; 12];
            s.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.1 408")
        })
        .filter(|&cut| cut)
        .count();
    assert!(cut >= 50, "{cut}");
    assert_eq!(handle.refused(), 0);
    drop(idle);
}
