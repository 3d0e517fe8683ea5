//! The one JSON writer: objects and arrays appended to a reused `String`,
//! commas handled, strings escaped, nothing allocated beyond the string's
//! growth.
//!
//! Keys are trusted ASCII literals of the caller (snake_case or readsb's
//! names: nothing to escape, checked in debug builds). String values are
//! escaped so that the output is pure ASCII: `"` and `\` with a backslash,
//! every character outside printable ASCII (control characters, DEL and
//! all non-ASCII) as `\uXXXX` UTF-16 units. Numbers are written with
//! Rust's formatting, which never gives an exponent for `{:.N}`.
//!
//! Two conventions for numbers that are not finite, both needed: readsb's
//! files leave the key out ([`float`](JsonWriter::float)), `airwaves
//! decode` writes `null` ([`num`](JsonWriter::num)).

use core::fmt::Write;

/// Writes the members of one JSON object or array.
pub struct JsonWriter<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> JsonWriter<'a> {
    /// Open an object: writes `{`.
    pub fn object(out: &'a mut String) -> Self {
        out.push('{');
        JsonWriter { out, first: true }
    }

    /// Open an array: writes `[`.
    pub fn array(out: &'a mut String) -> Self {
        out.push('[');
        JsonWriter { out, first: true }
    }

    fn sep(&mut self) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
    }

    /// Start member `key` and return the output to write its value to.
    pub fn key(&mut self, key: &str) -> &mut String {
        debug_assert!(
            key.bytes()
                .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
        );
        self.sep();
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
        self.out
    }

    /// Start the next array element and return the output to write it to.
    pub fn element(&mut self) -> &mut String {
        self.sep();
        self.out
    }

    /// Open a nested object as member `key`.
    pub fn nested(&mut self, key: &str) -> JsonWriter<'_> {
        JsonWriter::object(self.key(key))
    }

    /// `"key":v` for an integer.
    pub fn int(&mut self, key: &str, v: impl Into<i64>) {
        let _ = write!(self.key(key), "{}", v.into());
    }

    /// `"key":v` for an unsigned integer.
    pub fn uint(&mut self, key: &str, v: u64) {
        let _ = write!(self.key(key), "{v}");
    }

    /// `"key":v` with `decimals` decimals, only if `v` is finite (readsb's
    /// convention: an unknown value has no key).
    pub fn float(&mut self, key: &str, v: f64, decimals: usize) {
        if v.is_finite() {
            let _ = write!(self.key(key), "{v:.decimals$}");
        }
    }

    /// `"key":v` with `decimals` decimals; `null` if `v` is not finite.
    pub fn num(&mut self, key: &str, v: f64, decimals: usize) {
        if v.is_finite() {
            let _ = write!(self.key(key), "{v:.decimals$}");
        } else {
            self.null(key);
        }
    }

    /// [`num`](Self::num), or `null` for `None`.
    pub fn opt_num(&mut self, key: &str, v: Option<f64>, decimals: usize) {
        match v {
            Some(v) => self.num(key, v, decimals),
            None => self.null(key),
        }
    }

    /// [`int`](Self::int), or `null` for `None`.
    pub fn opt_int(&mut self, key: &str, v: Option<i64>) {
        match v {
            Some(v) => self.int(key, v),
            None => self.null(key),
        }
    }

    /// `"key":true` or `"key":false`.
    pub fn boolean(&mut self, key: &str, v: bool) {
        self.key(key).push_str(if v { "true" } else { "false" });
    }

    /// `"key":null`.
    pub fn null(&mut self, key: &str) {
        self.key(key).push_str("null");
    }

    /// `"key":"v"`, `v` escaped.
    pub fn string(&mut self, key: &str, v: &str) {
        push_json_string(self.key(key), v);
    }

    /// `"key":"…"` with anything `Display`, escaped as it is formatted
    /// (no intermediate `String`).
    pub fn display(&mut self, key: &str, v: impl core::fmt::Display) {
        let out = self.key(key);
        out.push('"');
        let _ = write!(Escaped(out), "{v}");
        out.push('"');
    }

    /// `"key":"HEX"`: `bytes` as one upper-case hex string.
    pub fn hex(&mut self, key: &str, bytes: &[u8]) {
        const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
        let out = self.key(key);
        out.push('"');
        for &b in bytes {
            out.push(char::from(DIGITS[usize::from(b >> 4)]));
            out.push(char::from(DIGITS[usize::from(b & 0xF)]));
        }
        out.push('"');
    }

    /// `"key":"…"`: the low `digits` nibbles of `v` in upper-case hex (ICAO
    /// addresses: 6; squawks, four octal digits held in nibbles: 4).
    pub fn hex_digits(&mut self, key: &str, v: u32, digits: usize) {
        let _ = write!(self.key(key), "\"{v:0digits$X}\"");
    }

    /// Close an object: writes `}`.
    pub fn close_object(self) {
        self.out.push('}');
    }

    /// Close an array: writes `]`.
    pub fn close_array(self) {
        self.out.push(']');
    }
}

/// Append `s` as a JSON string literal with its quotes (escaped as the
/// [module docs](self) say).
pub fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    let _ = Escaped(out).write_str(s);
    out.push('"');
}

/// A `fmt::Write` that escapes what it is given into the inside of a JSON
/// string.
struct Escaped<'s>(&'s mut String);

impl core::fmt::Write for Escaped<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        for c in s.chars() {
            match c {
                '"' => self.0.push_str("\\\""),
                '\\' => self.0.push_str("\\\\"),
                ' '..='~' => self.0.push(c),
                _ => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        write!(self.0, "\\u{u:04x}")?;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_object_array_and_values() {
        let mut s = String::new();
        let mut o = JsonWriter::object(&mut s);
        o.int("i", -3i32);
        o.uint("u", 7);
        o.float("f", 1.25, 1);
        o.float("skipped", f64::NAN, 1);
        o.num("n", f64::INFINITY, 1);
        o.opt_num("on", Some(2.0), 0);
        o.opt_int("oi", None);
        o.boolean("b", true);
        o.string("s", "a\"b\\c");
        o.display("d", format_args!("{}-{}", 1, "x"));
        o.hex("h", &[0x8D, 0x0A]);
        o.hex_digits("icao", 0x4840D6, 6);
        let mut inner = o.nested("o");
        inner.null("z");
        inner.close_object();
        let mut a = JsonWriter::array(o.key("a"));
        a.element().push('1');
        push_json_string(a.element(), "é\u{1F600}\n\u{7f}");
        a.close_array();
        o.close_object();
        assert_eq!(
            s,
            r#"{"i":-3,"u":7,"f":1.2,"n":null,"on":2,"oi":null,"b":true,"s":"a\"b\\c","d":"1-x","h":"8D0A","icao":"4840D6","o":{"z":null},"a":[1,"\u00e9\ud83d\ude00\u000a\u007f"]}"#
        );
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["a"][1], "é\u{1F600}\n\u{7f}");
        assert_eq!(v["s"], "a\"b\\c");
    }
}
