//! `airwaves decode`: demodulate a `.cu8` recording (or stdin) and print
//! one line per Mode S frame.
//!
//! Formats: `avr-ts` (`@` + 12 hex digits of the 12 MHz timestamp + frame
//! hex + `;`, dump1090's "mlat" text format), `avr` (`*HEX;`), `json` (one
//! object per frame with its decoded fields). Input of any length is read
//! in fixed chunks into the core demodulator; nothing allocates per frame.

use airwaves_core::modes::{
    adsb::AdsbRepr,
    demod::{AddressFilter, DemodFrame, DemodState, Demodulator},
    encode::{AVR_MAX_LEN, Timestamp, encode_avr},
    frame::Frame,
};
use std::fmt::Write as _;
use std::io::{self, Read, Write};

/// Output line format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// `@TTTTTTTTTTTTHEX;` (12 MHz timestamp, dump1090 `--mlat` text).
    AvrTs,
    /// `*HEX;`.
    Avr,
    /// One JSON object per line with the decoded fields.
    Json,
}

/// Counters of one decode run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DecodeStats {
    /// I/Q samples read.
    pub samples: u64,
    /// Frames written.
    pub frames: u64,
}

/// Demodulate `input` (cu8 at `rate` samples/s) and write one line per
/// frame to `out`.
///
/// # Errors
/// An unsupported rate (`InvalidInput`), or any read/write error.
pub fn decode(
    rate: u32,
    format: Format,
    input: &mut impl Read,
    out: &mut impl Write,
) -> io::Result<DecodeStats> {
    let demod = Demodulator::new(rate)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    let mut state = DemodState::new();
    let mut filter = AddressFilter::<1024>::new(AddressFilter::<1024>::DEFAULT_TTL);
    let mut buf = vec![0u8; 256 * 1024];
    let mut sink = LineSink {
        format,
        out,
        line: String::with_capacity(512),
        stats: DecodeStats::default(),
        err: None,
    };
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        sink.stats.samples += (n / 2) as u64;
        demod.process(&mut state, &mut filter, &buf[..n], |f| sink.frame(f));
        if let Some(e) = sink.err.take() {
            return Err(e);
        }
    }
    demod.finish(&mut state, &mut filter, |f| sink.frame(f));
    if let Some(e) = sink.err.take() {
        return Err(e);
    }
    sink.out.flush()?;
    Ok(sink.stats)
}

/// Formats frames into one reused line buffer and writes them; the first
/// write error is kept and stops further output.
struct LineSink<'a, W: Write> {
    format: Format,
    out: &'a mut W,
    line: String,
    stats: DecodeStats,
    err: Option<io::Error>,
}

impl<W: Write> LineSink<'_, W> {
    fn frame(&mut self, f: &DemodFrame) {
        if self.err.is_some() {
            return;
        }
        self.line.clear();
        format_frame(self.format, f, &mut self.line);
        match self.out.write_all(self.line.as_bytes()) {
            Ok(()) => self.stats.frames += 1,
            Err(e) => self.err = Some(e),
        }
    }
}

/// One output line (with its newline) for `f`.
fn format_frame(format: Format, f: &DemodFrame, line: &mut String) {
    match format {
        Format::AvrTs | Format::Avr => {
            let ts = (format == Format::AvrTs).then(|| Timestamp::from_ticks(f.timestamp));
            let mut avr = [0u8; AVR_MAX_LEN];
            if let Ok(n) = encode_avr(&mut avr, f.bytes(), ts) {
                line.push_str(std::str::from_utf8(&avr[..n]).unwrap_or(""));
            }
        }
        Format::Json => json_frame(f, line),
    }
}

/// `f` as one JSON object: timing, level, repair, and the decoded fields
/// that apply to its downlink format.
fn json_frame(f: &DemodFrame, s: &mut String) {
    let hex: String = f.bytes().iter().map(|b| format!("{b:02X}")).collect();
    let _ = write!(
        s,
        "{{\"timestamp\":{},\"hex\":\"{hex}\",\"df\":{},\"icao\":\"{:06X}\",\"signal_dbfs\":{:.1},\"repaired_bits\":{}",
        f.timestamp,
        f.df(),
        f.address,
        f.signal_dbfs,
        f.repaired_bits
    );
    let frame = Frame::new_unchecked(f.bytes());
    if let Some(alt) = frame.altitude_ft() {
        let _ = write!(s, ",\"altitude_ft\":{alt}");
    }
    if let Some(sq) = frame.squawk() {
        let _ = write!(s, ",\"squawk\":\"{sq:04X}\"");
    }
    if matches!(f.df(), 17 | 18) {
        let me = &f.bytes()[4..11];
        let tc = me[0] >> 3;
        let _ = write!(s, ",\"tc\":{tc}");
        match AdsbRepr::parse(me) {
            Ok(AdsbRepr::Identification(id)) => {
                let _ = write!(
                    s,
                    ",\"callsign\":\"{}\",\"category\":\"{}\"",
                    id.callsign_str(),
                    id.category
                );
            }
            Ok(AdsbRepr::AirbornePosition(p)) => {
                if let Some(a) = p.altitude_ft() {
                    let _ = write!(s, ",\"altitude_ft\":{a}");
                }
                let _ = write!(
                    s,
                    ",\"cpr_odd\":{},\"cpr_lat\":{},\"cpr_lon\":{}",
                    p.cpr.format == airwaves_core::modes::adsb::CprFormat::Odd,
                    p.cpr.lat,
                    p.cpr.lon
                );
            }
            Ok(AdsbRepr::AirborneVelocity(v)) => {
                if let Some(gs) = v.ground_speed_kt() {
                    let _ = write!(s, ",\"ground_speed_kt\":{gs:.1}");
                }
                if let Some(t) = v.track_deg() {
                    let _ = write!(s, ",\"track_deg\":{t:.1}");
                }
                if let Some(vr) = v.vertical_rate.fpm() {
                    let _ = write!(s, ",\"vertical_rate_fpm\":{vr}");
                }
            }
            _ => {}
        }
    }
    s.push_str("}\n");
}

#[cfg(test)]
mod test {
    use super::*;

    /// A DF17 identification frame rendered by the project's modulator at
    /// 2.4 MS/s decodes back to the same bytes, in every format.
    #[test]
    fn test_decode_synthetic_frame() {
        use airwaves_core::C32;
        use airwaves_core::modes::modulate::{Burst, Modulator, Quantiser};
        let frame = [
            0x8Du8, 0x48, 0x40, 0xD6, 0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x2C, 0xE0, 0x57, 0x60, 0x98,
        ];
        let m = Modulator::new(2.4e6).unwrap();
        let mut iq = vec![C32::default(); 4000];
        m.add_mode_s(&frame, &Burst::new(1000.3, 0.6), &mut iq)
            .unwrap();
        let mut bytes = vec![0u8; 8000];
        Quantiser::RTL_SDR.block(&iq, &mut bytes);
        let run = |format| {
            let mut out = Vec::new();
            let st = decode(2_400_000, format, &mut &bytes[..], &mut out).unwrap();
            assert_eq!(st.samples, 4000);
            assert_eq!(st.frames, 1);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(run(Format::Avr), "*8D4840D6202CC371C32CE0576098;\n");
        let ts = run(Format::AvrTs);
        assert!(
            ts.starts_with('@') && ts.ends_with("8D4840D6202CC371C32CE0576098;\n"),
            "{ts}"
        );
        // Sample 1000.3 at 5 ticks per sample, to within a tick or two.
        let t = u64::from_str_radix(&ts[1..13], 16).unwrap();
        assert!(t.abs_diff(5002) <= 3, "timestamp {t}");
        let json = run(Format::Json);
        assert!(json.contains("\"callsign\":\"KLM1023\""), "{json}");
        assert!(json.contains("\"icao\":\"4840D6\""), "{json}");
    }

    #[test]
    fn test_bad_rate_and_garbage() {
        let mut out = Vec::new();
        let e = decode(1_000_000, Format::Avr, &mut &[0u8; 10][..], &mut out).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        // Arbitrary bytes, odd length: no panic, no frames from noise.
        let garbage: Vec<u8> = (0..200_001u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let st = decode(2_400_000, Format::AvrTs, &mut &garbage[..], &mut out).unwrap();
        assert_eq!(st.samples, 100_000);
    }
}
