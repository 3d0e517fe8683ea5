//! HTTP request heads from untrusted clients (the web map's server).
//!
//! Input: the bytes a client sent, as is.
//!
//! Checks: [`parse_request`] never panics; an accepted request's head is
//! within the input and no longer than [`MAX_HEAD`], [`find_head_end`]
//! gives the same length, and parsing just the head gives the same
//! request (bytes after it are ignored); its path is clean (starts with
//! `/`, no `.`, `..` or empty segment, no NUL, control character or
//! backslash) and normalised: percent-encoding it again and parsing
//! gives the same path. Every prefix of an accepted head cut inside it
//! (at each line end, and in the middle) is `Incomplete`, so a request
//! split across reads is never refused. `Incomplete` is returned only
//! when the head has no end yet.
#![no_main]

use airwaves::net::http::{HttpError, MAX_HEAD, find_head_end, parse_request};
use libfuzzer_sys::fuzz_target;

/// `path` with every byte outside `A–Z a–z 0–9 - . _ ~ /` percent-encoded.
fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len() * 3);
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn check_clean_path(path: &str) {
    let rest = path.strip_prefix('/').expect("path starts with /");
    assert!(
        !path
            .chars()
            .any(|c| c == '\\' || c == '\0' || c.is_ascii_control()),
        "{path:?}"
    );
    let segments: Vec<&str> = rest.split('/').collect();
    for (i, s) in segments.iter().enumerate() {
        assert!(*s != ".." && *s != ".", "{path:?}");
        // Only the last segment may be empty (a trailing slash).
        assert!(!s.is_empty() || i + 1 == segments.len(), "{path:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let head_end = find_head_end(data);
    match parse_request(data) {
        Ok(r) => {
            assert!(r.head_len <= data.len() && r.head_len <= MAX_HEAD);
            assert_eq!(head_end, Some(r.head_len));
            assert_eq!(parse_request(&data[..r.head_len]).as_ref(), Ok(&r));
            check_clean_path(&r.path);
            assert!(r.query.is_ascii());
            let again = format!("GET {} HTTP/1.0\r\n\r\n", percent_encode(&r.path));
            let r2 = parse_request(again.as_bytes()).expect("a clean path parses");
            assert_eq!(r2.path, r.path);
            let head = &data[..r.head_len];
            let cuts = head
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b == b'\n' || b == b'\r')
                .flat_map(|(i, _)| [i, i + 1])
                .chain([r.head_len / 2, r.head_len - 1])
                .filter(|&cut| cut < r.head_len);
            for cut in cuts {
                assert_eq!(
                    parse_request(&head[..cut]),
                    Err(HttpError::Incomplete),
                    "cut at {cut}"
                );
            }
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            if e == HttpError::Incomplete {
                assert_eq!(head_end, None);
                assert!(data.len() < MAX_HEAD);
            } else {
                assert!(matches!(e.status(), 400 | 404 | 405 | 431 | 505), "{e:?}");
            }
            if let Some(n) = head_end {
                assert!(n <= data.len());
            }
        }
    }
});
