//! USB traces in the text format of `../shared/rtl/fakeusb.c`.
//!
//! One line per control transfer, decoded by address space:
//!
//! ```text
//! # open                          (notes: open, claim 0, release 0, reset, close, bulk ...)
//! W usb 2000 <- 09                (block write: usb = block 1, sys = block 2)
//! R sys 3001 -> 00                (block read)
//! W demod p1 15 <- 01             (demod page write)
//! R demod pa 01 -> 00             (demod page read; page in hex)
//! W i2c 34 @05 <- 83 32 75        (I2C write: 8-bit address, register, data)
//! R i2c 34 @00 -> 69 00 02        (I2C read; @ is the pointer after the read)
//! W i2c c8 NAK                    (I2C transfer refused: no chip at that address)
//! ```
//!
//! [`TracingTransport`] writes it for every transfer through the seam;
//! [`TraceLine::parse`] reads it back, so our traces and librtlsdr's compare
//! line by line.

use super::usb::{UsbError, UsbStrings, UsbTransport};
use std::fmt;
use std::io::Write;
use std::time::Duration;

/// Direction of a register access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// `R`: device to host.
    Read,
    /// `W`: host to device.
    Write,
}

/// One decoded line of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceLine {
    /// `# text`: open, close, claim, release, reset, bulk transfers, errors.
    Note(String),
    /// Demod register access: page 0–15, register address, bytes.
    Demod {
        /// Read or write.
        dir: Dir,
        /// Demod page.
        page: u8,
        /// Register address in the page.
        addr: u8,
        /// Bytes moved, in wire order.
        data: Vec<u8>,
    },
    /// USB (block 1) or SYS (block 2) register access; other blocks print as `blk?` (block 0xff).
    Block {
        /// Read or write.
        dir: Dir,
        /// Block number (1 usb, 2 sys, 0xff unknown).
        block: u8,
        /// 16-bit register address.
        addr: u16,
        /// Bytes moved, in wire order.
        data: Vec<u8>,
    },
    /// I2C access through the demod's I2C bridge.
    I2c {
        /// Read or write.
        dir: Dir,
        /// 8-bit I2C address (0x34 R820T, 0x74 R828D, 0xa0 EEPROM).
        addr: u8,
        /// For writes the register (first byte sent); for reads the pointer as fakeusb prints it.
        reg: u8,
        /// Data bytes (after the register byte for writes).
        data: Vec<u8>,
    },
    /// I2C transfer that no chip acknowledged.
    I2cNak {
        /// Read or write.
        dir: Dir,
        /// 8-bit I2C address.
        addr: u8,
    },
}

/// A trace line that does not follow the format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceParseError {
    /// The offending line.
    pub line: String,
    /// What was wrong with it.
    pub reason: &'static str,
}

impl fmt::Display for TraceParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad trace line {:?}: {}", self.line, self.reason)
    }
}

impl std::error::Error for TraceParseError {}

fn hex_bytes(f: &mut fmt::Formatter<'_>, data: &[u8]) -> fmt::Result {
    for b in data {
        write!(f, " {b:02x}")?;
    }
    Ok(())
}

impl fmt::Display for TraceLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sym = |d: Dir| match d {
            Dir::Read => ('R', "->"),
            Dir::Write => ('W', "<-"),
        };
        match self {
            TraceLine::Note(s) => write!(f, "# {s}"),
            TraceLine::Demod {
                dir,
                page,
                addr,
                data,
            } => {
                let (c, a) = sym(*dir);
                write!(f, "{c} demod p{page:x} {addr:02x} {a}")?;
                hex_bytes(f, data)
            }
            TraceLine::Block {
                dir,
                block,
                addr,
                data,
            } => {
                let (c, a) = sym(*dir);
                let name = match block {
                    1 => "usb",
                    2 => "sys",
                    _ => "blk?",
                };
                write!(f, "{c} {name} {addr:04x} {a}")?;
                hex_bytes(f, data)
            }
            TraceLine::I2c {
                dir,
                addr,
                reg,
                data,
            } => {
                let (c, a) = sym(*dir);
                write!(f, "{c} i2c {addr:02x} @{reg:02x} {a}")?;
                hex_bytes(f, data)
            }
            TraceLine::I2cNak { dir, addr } => {
                let (c, _) = sym(*dir);
                write!(f, "{c} i2c {addr:02x} NAK")
            }
        }
    }
}

impl TraceLine {
    /// Parse one line (without its newline).
    pub fn parse(line: &str) -> Result<TraceLine, TraceParseError> {
        let bad = |reason| TraceParseError {
            line: line.to_string(),
            reason,
        };
        if let Some(rest) = line.strip_prefix("# ") {
            return Ok(TraceLine::Note(rest.to_string()));
        }
        let mut words = line.split_ascii_whitespace();
        let dir = match words.next() {
            Some("R") => Dir::Read,
            Some("W") => Dir::Write,
            _ => return Err(bad("expected R, W or #")),
        };
        let space = words.next().ok_or_else(|| bad("missing address space"))?;
        let hex8 = |s: Option<&str>, what| {
            s.and_then(|s| u8::from_str_radix(s, 16).ok())
                .ok_or_else(|| bad(what))
        };
        let data_after_arrow = |words: &mut std::str::SplitAsciiWhitespace<'_>| {
            let want = if dir == Dir::Read { "->" } else { "<-" };
            if words.next() != Some(want) {
                return Err(bad("missing or wrong arrow"));
            }
            words
                .map(|w| u8::from_str_radix(w, 16).map_err(|_| bad("bad data byte")))
                .collect::<Result<Vec<u8>, _>>()
        };
        match space {
            "demod" => {
                let page = words
                    .next()
                    .and_then(|p| p.strip_prefix('p'))
                    .and_then(|p| u8::from_str_radix(p, 16).ok())
                    .ok_or_else(|| bad("bad demod page"))?;
                let addr = hex8(words.next(), "bad demod address")?;
                let data = data_after_arrow(&mut words)?;
                Ok(TraceLine::Demod {
                    dir,
                    page,
                    addr,
                    data,
                })
            }
            "usb" | "sys" | "blk?" => {
                let block = match space {
                    "usb" => 1,
                    "sys" => 2,
                    _ => 0xff,
                };
                let addr = words
                    .next()
                    .and_then(|a| u16::from_str_radix(a, 16).ok())
                    .ok_or_else(|| bad("bad block address"))?;
                let data = data_after_arrow(&mut words)?;
                Ok(TraceLine::Block {
                    dir,
                    block,
                    addr,
                    data,
                })
            }
            "i2c" => {
                let addr = hex8(words.next(), "bad i2c address")?;
                let next = words.next().ok_or_else(|| bad("truncated i2c line"))?;
                if next == "NAK" {
                    return Ok(TraceLine::I2cNak { dir, addr });
                }
                let reg = hex8(next.strip_prefix('@'), "bad i2c register")?;
                let data = data_after_arrow(&mut words)?;
                Ok(TraceLine::I2c {
                    dir,
                    addr,
                    reg,
                    data,
                })
            }
            _ => Err(bad("unknown address space")),
        }
    }

    /// Parse a whole trace, skipping empty lines.
    pub fn parse_all(text: &str) -> Result<Vec<TraceLine>, TraceParseError> {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(TraceLine::parse)
            .collect()
    }

    /// Decode a control transfer the way fakeusb.c does. `i2c_pointer` is
    /// the per-address I2C pointer the trace keeps (updated here).
    fn decode(
        dir: Dir,
        value: u16,
        index: u16,
        data: &[u8],
        i2c_pointer: &mut [u8; 256],
    ) -> TraceLine {
        if value & 0xff == 0x20 && index & 0xff00 == 0 {
            return TraceLine::Demod {
                dir,
                page: (index & 0x0f) as u8,
                addr: (value >> 8) as u8,
                data: data.to_vec(),
            };
        }
        let block = (index >> 8) as u8;
        if block == 6 {
            let addr = value as u8;
            return match dir {
                Dir::Write => {
                    let reg = data.first().copied().unwrap_or(0);
                    i2c_pointer[addr as usize] = reg;
                    TraceLine::I2c {
                        dir,
                        addr,
                        reg,
                        data: data.get(1..).unwrap_or(&[]).to_vec(),
                    }
                }
                Dir::Read => {
                    // The EEPROM's pointer auto-increments; fakeusb prints it after the read.
                    if addr == 0xa0 {
                        i2c_pointer[0xa0] = i2c_pointer[0xa0].wrapping_add(data.len() as u8);
                    }
                    TraceLine::I2c {
                        dir,
                        addr,
                        reg: i2c_pointer[addr as usize],
                        data: data.to_vec(),
                    }
                }
            };
        }
        TraceLine::Block {
            dir,
            block: if block == 1 || block == 2 {
                block
            } else {
                0xff
            },
            addr: value,
            data: data.to_vec(),
        }
    }
}

/// A seam wrapper that writes one trace line per transfer to `out`, then
/// forwards it to `inner`. Write errors on `out` are ignored (a trace never
/// stops the radio).
pub struct TracingTransport<T, W> {
    inner: T,
    out: W,
    i2c_pointer: [u8; 256],
}

impl<T: UsbTransport, W: Write + Send> TracingTransport<T, W> {
    /// Wrap `inner`; writes `# open` first, like fakeusb.c's `libusb_open`.
    pub fn new(inner: T, mut out: W) -> Self {
        let _ = writeln!(out, "# open");
        TracingTransport {
            inner,
            out,
            i2c_pointer: [0; 256],
        }
    }

    fn line(&mut self, line: &TraceLine) {
        let _ = writeln!(self.out, "{line}");
    }

    fn failed(&mut self, dir: Dir, value: u16, index: u16, data: &[u8], e: UsbError) {
        let line = TraceLine::decode(dir, value, index, data, &mut self.i2c_pointer);
        match line {
            TraceLine::I2c { dir, addr, .. } if e == UsbError::Pipe => {
                self.line(&TraceLine::I2cNak { dir, addr })
            }
            other => {
                let _ = writeln!(self.out, "# failed: {other} ({e})");
            }
        }
    }
}

impl<T: UsbTransport, W: Write + Send> UsbTransport for TracingTransport<T, W> {
    fn control_in(
        &mut self,
        rt: u8,
        req: u8,
        value: u16,
        index: u16,
        buf: &mut [u8],
        t: Duration,
    ) -> Result<usize, UsbError> {
        match self.inner.control_in(rt, req, value, index, buf, t) {
            Ok(n) => {
                let line =
                    TraceLine::decode(Dir::Read, value, index, &buf[..n], &mut self.i2c_pointer);
                self.line(&line);
                Ok(n)
            }
            Err(e) => {
                self.failed(Dir::Read, value, index, &[], e);
                Err(e)
            }
        }
    }

    fn control_out(
        &mut self,
        rt: u8,
        req: u8,
        value: u16,
        index: u16,
        data: &[u8],
        t: Duration,
    ) -> Result<usize, UsbError> {
        match self.inner.control_out(rt, req, value, index, data, t) {
            Ok(n) => {
                let line = TraceLine::decode(Dir::Write, value, index, data, &mut self.i2c_pointer);
                self.line(&line);
                Ok(n)
            }
            Err(e) => {
                self.failed(Dir::Write, value, index, data, e);
                Err(e)
            }
        }
    }

    fn bulk_in(&mut self, ep: u8, buf: &mut [u8], t: Duration) -> Result<usize, UsbError> {
        let r = self.inner.bulk_in(ep, buf, t);
        let _ = match r {
            Ok(n) => writeln!(self.out, "# bulk ep={ep:02x} len={n}"),
            Err(e) => writeln!(self.out, "# bulk ep={ep:02x} failed: {e}"),
        };
        r
    }

    fn clear_halt(&mut self, ep: u8) -> Result<(), UsbError> {
        let _ = writeln!(self.out, "# clear halt {ep:02x}");
        self.inner.clear_halt(ep)
    }

    fn reset(&mut self) -> Result<(), UsbError> {
        let _ = writeln!(self.out, "# reset");
        self.inner.reset()
    }

    fn bulk_reader(
        &mut self,
        config: &crate::usb_async::StreamConfig,
    ) -> Result<Box<dyn super::usb::BulkReader>, UsbError> {
        self.inner.bulk_reader(config)
    }

    fn strings(&mut self) -> Result<UsbStrings, UsbError> {
        self.inner.strings()
    }

    fn claim(&mut self) -> Result<(), UsbError> {
        let _ = writeln!(self.out, "# claim 0");
        self.inner.claim()
    }

    fn release(&mut self) -> Result<(), UsbError> {
        let _ = writeln!(self.out, "# release 0");
        let r = self.inner.release();
        let _ = writeln!(self.out, "# close");
        let _ = self.out.flush();
        r
    }
}

/// A cloneable in-memory `Write` whose text tests can read back.
#[cfg(test)]
#[derive(Clone, Default)]
pub struct SharedLog(pub std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

#[cfg(test)]
impl Write for SharedLog {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
impl SharedLog {
    /// Everything written so far.
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
    /// Forget everything written so far.
    pub fn clear(&self) {
        self.0.lock().unwrap().clear();
    }
}

#[cfg(test)]
mod test {
    use super::*;

    static LINES: &[&str] = &[
        "# open",
        "W usb 2000 <- 09",
        "W usb 2158 <- 00 02",
        "R sys 3001 -> 00",
        "W demod p1 15 <- 01",
        "R demod pa 01 -> 00",
        "W i2c 34 @05 <- 83 32 75 c0 40 d6 6c",
        "W i2c 34 @00 <-",
        "R i2c 34 @00 -> 69 00 02 00 14",
        "W i2c c8 NAK",
        "R i2c c6 NAK",
        "# bulk ep=81 len=262144",
    ];

    #[test]
    fn test_parse_emit_round_trip() {
        for l in LINES {
            let parsed = TraceLine::parse(l).unwrap();
            assert_eq!(parsed.to_string(), *l);
        }
        assert_eq!(
            TraceLine::parse("W demod p1 9f <- 03 00").unwrap(),
            TraceLine::Demod {
                dir: Dir::Write,
                page: 1,
                addr: 0x9f,
                data: vec![3, 0]
            }
        );
    }

    #[test]
    fn test_parse_malformed() {
        for l in [
            "",
            "X usb 2000 <- 09",
            "W usb",
            "W usb 2000 -> 09",
            "W usb zz <- 09",
            "W demod q1 15 <- 01",
            "W i2c 34 05 <- 01",
            "W bogus 00 <- 00",
            "W usb 2000 <- 0g",
        ] {
            assert!(TraceLine::parse(l).is_err(), "{l:?} parsed");
        }
    }

    #[test]
    fn test_decode_like_fakeusb() {
        let mut ptr = [0u8; 256];
        let d = |dir, v, i, data: &[u8], p: &mut [u8; 256]| {
            TraceLine::decode(dir, v, i, data, p).to_string()
        };
        assert_eq!(
            d(Dir::Write, 0x0120, 0x0011, &[0x18], &mut ptr),
            "W demod p1 01 <- 18"
        );
        assert_eq!(
            d(Dir::Read, 0x0120, 0x000a, &[0], &mut ptr),
            "R demod pa 01 -> 00"
        );
        assert_eq!(
            d(Dir::Write, 0x2148, 0x0110, &[0x10, 2], &mut ptr),
            "W usb 2148 <- 10 02"
        );
        assert_eq!(
            d(Dir::Read, 0x3001, 0x0200, &[1], &mut ptr),
            "R sys 3001 -> 01"
        );
        assert_eq!(
            d(Dir::Write, 0x34, 0x0610, &[0x05, 0x83], &mut ptr),
            "W i2c 34 @05 <- 83"
        );
        assert_eq!(
            d(Dir::Write, 0xa0, 0x0610, &[0x09], &mut ptr),
            "W i2c a0 @09 <-"
        );
        assert_eq!(
            d(Dir::Read, 0xa0, 0x0600, &[0x14], &mut ptr),
            "R i2c a0 @0a -> 14"
        );
    }
}
