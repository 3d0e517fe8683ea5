//! UAT (978 MHz) on the host: a `cu8` stream through the core demodulator
//! ([`airwaves_core::uat::demod`]) into dump978-fa's raw line format.
//!
//! # Raw lines
//!
//! One line per message, as dump978-fa writes them on TCP 30978 and
//! skyaware978 and uat2esnt read them: `-` (downlink) or `+` (uplink),
//! the data bytes in lower-case hex (18, 34 or 432 bytes, no parity),
//! `;`, then `rs=N;` when Reed–Solomon corrected `N` bytes, `rssi=X;` the
//! signal level in dBFS with one decimal, and `t=S.mmm;` the time in
//! seconds (for a file: since its first sample).

pub mod fisb;
pub mod input;
pub mod json;

use airwaves_core::uat::demod::{DemodState, Demodulator, Link, Message};
use std::fmt::Write as _;
use std::io::{self, Read, Write};

/// The sample rates the demodulator reads: two samples per bit,
/// 2,083,333.3 Hz, which an RTL-SDR is asked for as 2,083,333 or
/// 2,083,334.
pub const RATES: [u32; 2] = [2_083_333, 2_083_334];

/// Samples of history the host's demodulator keeps (128 KiB): twice the
/// least that uplink needs ([`airwaves_core::uat::demod::UPLINK_STATE`]),
/// so that it moves its history down a third as often.
pub const HISTORY: usize = 32_768;

/// What a decode run saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UatStats {
    /// Samples read.
    pub samples: u64,
    /// Downlink messages.
    pub downlink: u64,
    /// Uplink messages.
    pub uplink: u64,
    /// Sync words examined.
    pub candidates: u64,
    /// Of them, searched by the coherent trellis.
    pub searched: u64,
}

/// Append `msg`'s raw line (with its newline) to `line`; `seconds` is its
/// time.
pub fn raw_line(msg: &Message, seconds: f64, line: &mut String) {
    line.push(match msg.link {
        Link::Downlink => '-',
        Link::Uplink => '+',
    });
    for b in msg.bytes() {
        let _ = write!(line, "{b:02x}");
    }
    line.push(';');
    if msg.errors > 0 {
        let _ = write!(line, "rs={};", msg.errors);
    }
    let _ = writeln!(line, "rssi={:.1};t={seconds:.3};", msg.rssi_dbfs);
}

/// Demodulate `input` (`cu8` at [`airwaves_core::uat::SAMPLE_RATE`]) to
/// its end and write one raw line per message to `out`, times in seconds
/// from the first sample.
///
/// # Errors
/// A failing read or write.
pub fn decode_raw(input: &mut impl Read, out: &mut impl Write) -> io::Result<UatStats> {
    let mut lines = RawLines::new(out, None);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        lines.feed(&buf[..n])?;
    }
    lines.finish()
}

/// The UAT demodulator writing raw lines to `out` and, if asked, every
/// downlink message's JSON ([`json`]) to a second writer.
pub struct RawLines<'a, W: Write> {
    demod: Demodulator,
    st: Box<DemodState<HISTORY>>,
    writer: LineWriter<'a, W>,
}

/// The lines to their writers; the first write error is kept for the
/// caller.
struct LineWriter<'a, W: Write> {
    out: &'a mut W,
    json: Option<&'a mut dyn Write>,
    line: String,
    /// Seconds of the first sample (`None`: 0, a recording).
    t0: Option<f64>,
    failed: Option<io::Error>,
}

impl<W: Write> LineWriter<'_, W> {
    /// Write `m`'s lines unless a write has failed already.
    fn emit(&mut self, m: &Message) {
        if self.failed.is_some() {
            return;
        }
        self.line.clear();
        let t = self.t0.unwrap_or(0.0) + m.sample as f64 / airwaves_core::uat::SAMPLE_RATE;
        raw_line(m, t, &mut self.line);
        if let Err(e) = self.out.write_all(self.line.as_bytes()) {
            self.failed = Some(e);
            return;
        }
        let (Some(json), Some(r)) = (self.json.as_mut(), m.downlink()) else {
            return;
        };
        self.line.clear();
        json::write_downlink_line(&r, m, self.t0.map(|_| t), &mut self.line);
        if let Err(e) = json.write_all(self.line.as_bytes()) {
            self.failed = Some(e);
        }
    }

    fn check(&mut self) -> io::Result<()> {
        self.failed.take().map_or(Ok(()), Err)
    }
}

impl<'a, W: Write> RawLines<'a, W> {
    /// Raw lines to `out`; a line's time is `t0` plus its sample's time
    /// (`t0` the Unix time the stream began, for a live source; `None`
    /// for a recording, whose times start at 0).
    pub fn new(out: &'a mut W, t0: Option<f64>) -> Self {
        Self {
            demod: Demodulator::new(),
            st: Box::new(DemodState::new()),
            writer: LineWriter {
                out,
                json: None,
                line: String::new(),
                t0,
                failed: None,
            },
        }
    }

    /// Also write each downlink message's JSON line to `json`.
    pub fn with_json(mut self, json: &'a mut dyn Write) -> Self {
        self.writer.json = Some(json);
        self
    }

    /// Feed the next `cu8` bytes.
    ///
    /// # Errors
    /// The first failed write.
    pub fn feed(&mut self, bytes: &[u8]) -> io::Result<()> {
        let w = &mut self.writer;
        self.demod.process(&mut self.st, bytes, |m| w.emit(m));
        w.check()
    }

    /// Flush the writers (a live source's lines then reach a pipe as
    /// they are decoded, not a buffer later).
    ///
    /// # Errors
    /// A failed flush.
    pub fn flush(&mut self) -> io::Result<()> {
        self.writer.out.flush()?;
        if let Some(j) = self.writer.json.as_mut() {
            j.flush()?;
        }
        Ok(())
    }

    /// End of stream: decode what is left, flush; what was decoded.
    ///
    /// # Errors
    /// The first failed write.
    pub fn finish(mut self) -> io::Result<UatStats> {
        let w = &mut self.writer;
        self.demod.finish(&mut self.st, |m| w.emit(m));
        w.check()?;
        w.out.flush()?;
        if let Some(j) = w.json.as_mut() {
            j.flush()?;
        }
        let s = self.st.stats;
        Ok(UatStats {
            samples: s.samples,
            downlink: s.downlink,
            uplink: s.uplink,
            candidates: s.candidates,
            searched: s.searched,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airwaves_core::C32;
    use airwaves_core::modes::modulate::Quantiser;
    use airwaves_core::uat::modulate::{Burst, Modulator};

    #[test]
    fn test_raw_lines_of_a_recording() {
        let m = Modulator::new(airwaves_core::uat::SAMPLE_RATE);
        let mut x = vec![C32::new(0.0, 0.0); 20_000];
        let mut long = [0u8; 34];
        long[0] = 1 << 3;
        long[1..4].copy_from_slice(&[0xA1, 0xB2, 0xC3]);
        m.add_message(&Burst::new(2083.0, 0.5), &long, &mut x)
            .unwrap();
        let up: Vec<u8> = (0..432).map(|i| (i * 7) as u8).collect();
        m.add_message(&Burst::new(6000.0, 0.25), &up, &mut x)
            .unwrap();
        let mut cu8 = vec![0u8; 40_000];
        Quantiser::RTL_SDR.block(&x, &mut cu8);
        let mut out = Vec::new();
        let st = decode_raw(&mut &cu8[..], &mut out).unwrap();
        assert_eq!((st.samples, st.downlink, st.uplink), (20_000, 1, 1));
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "-08a1b2c3000000000000000000000000000000000000000000000000000000000000;rssi=-6.0;t=0.001;"
        );
        assert!(lines[1].starts_with("+00070e15"), "{}", lines[1]);
        assert!(lines[1].ends_with(";rssi=-12.0;t=0.003;"), "{}", lines[1]);
        assert_eq!(lines[1].find(';'), Some(1 + 864));
    }

    #[test]
    fn test_raw_line_reports_corrections() {
        let mut line = String::new();
        let m = {
            let mut st = DemodState::<2048>::new();
            let mut x = vec![C32::new(0.0, 0.0); 1500];
            let basic = [0u8; 18];
            Modulator::new(airwaves_core::uat::SAMPLE_RATE)
                .add_message(&Burst::new(100.0, 0.5), &basic, &mut x)
                .unwrap();
            let mut cu8 = vec![0u8; 3000];
            Quantiser::RTL_SDR.block(&x, &mut cu8);
            // Corrupt byte 5: conjugating its samples (Q mirrored about
            // the zero level) turns every phase step, so every bit, over.
            for k in (100 + 72 + 80)..(100 + 72 + 96) {
                cu8[2 * k + 1] = 255 - cu8[2 * k + 1];
            }
            let mut got = None;
            let d = Demodulator::new();
            d.process(&mut st, &cu8, |m| got = Some(m.clone()));
            d.finish(&mut st, |m| got = Some(m.clone()));
            got.unwrap()
        };
        assert_eq!(m.bytes(), &[0u8; 18]);
        assert!(m.errors > 0);
        raw_line(&m, 1.5, &mut line);
        assert!(line.starts_with(&format!("-{};rs={};rssi=", "00".repeat(18), m.errors)));
        assert!(line.ends_with(";t=1.500;\n"));
    }
}
