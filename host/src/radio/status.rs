//! The once-a-second status line on stderr.

use super::audio::RingStats;
use super::demod::DemodStatus;
use std::fmt::Write as _;

/// Everything one status line shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StatusLine {
    /// Input level (mean I/Q power against full scale), dBFS.
    pub level_dbfs: f32,
    /// The demodulator's estimates.
    pub demod: DemodStatus,
    /// Squelch state: `None` without `--squelch`, else open.
    pub squelch_open: Option<bool>,
    /// Audio ring counters (`None` unless playing).
    pub ring: Option<RingStats>,
    /// Seconds of audio produced.
    pub seconds: f64,
}

/// Bytes shown as text: printable ASCII kept, others as `.`.
fn printable(b: &[u8]) -> String {
    b.iter()
        .map(|&c| {
            if (0x20..0x7f).contains(&c) {
                c as char
            } else {
                '.'
            }
        })
        .collect()
}

impl std::fmt::Display for StatusLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = String::new();
        let _ = write!(s, "{:7.1} s  {:6.1} dBFS", self.seconds, self.level_dbfs);
        let d = &self.demod;
        if d.snr_db.is_finite() {
            let _ = write!(s, "  SNR {:5.1} dB", d.snr_db);
        } else {
            s.push_str("  SNR   -  ");
        }
        if let Some(b) = d.blend {
            if b > 0.0 {
                let _ = write!(s, "  stereo {:3.0}%", 100.0 * b);
            } else {
                s.push_str("  mono       ");
            }
        }
        if let Some(open) = self.squelch_open {
            s.push_str(if open {
                "  squelch open  "
            } else {
                "  squelch closed"
            });
        }
        if let Some(st) = &d.rds {
            match st.pi {
                Some(pi) => {
                    let _ = write!(s, "  PI {pi:04X}");
                }
                None => s.push_str("  PI ----"),
            }
            match &st.ps {
                Some(ps) => {
                    let _ = write!(s, "  PS \"{}\"", printable(ps));
                }
                None => s.push_str("  PS -"),
            }
            if let Some(rt) = st.radiotext() {
                let _ = write!(s, "  RT \"{}\"", printable(rt).trim_end());
            }
        }
        if let Some(r) = &self.ring {
            let _ = write!(s, "  underruns {}  overruns {}", r.underruns, r.overruns);
        }
        f.write_str(&s)
    }
}

/// Mean power of cu8 I/Q against full scale (128 per component), dBFS
/// (−∞ for an empty buffer gives NaN).
pub fn level_dbfs(iq: &[u8]) -> f32 {
    let n = iq.len() / 2;
    if n == 0 {
        return f32::NAN;
    }
    let sum: u64 = iq[..2 * n]
        .iter()
        .map(|&b| {
            let v = (i32::from(b) * 10 - 1274).unsigned_abs() as u64;
            v * v
        })
        .sum();
    // Values are in tenths of a code; full scale is 128 per component.
    let p = sum as f64 / 100.0 / n as f64 / (128.0 * 128.0);
    (10.0 * p.max(1e-12).log10()) as f32
}

#[cfg(test)]
mod test {
    use super::*;
    use airwaves_core::rds::group::Station;

    #[test]
    fn test_level_dbfs() {
        // A full-scale constant-envelope point (I = 255, Q = 127.4) is 0 dBFS.
        assert!((level_dbfs(&[255, 127]) - (-0.01)).abs() < 0.05);
        // Half amplitude: −6 dB.
        assert!((level_dbfs(&[191, 127, 63, 127]) + 6.02).abs() < 0.1);
        assert!(level_dbfs(&[]).is_nan());
    }

    #[test]
    fn test_line_shows_every_part() {
        let mut st = Station::new();
        st.pi = Some(0xC201);
        st.ps = Some(*b"AIRWAVES");
        let line = StatusLine {
            level_dbfs: -12.04,
            demod: DemodStatus {
                snr_db: 41.26,
                blend: Some(1.0),
                rds: Some(st),
            },
            squelch_open: Some(false),
            ring: Some(RingStats {
                underruns: 2,
                overruns: 1,
                dropped: 10,
            }),
            seconds: 3.0,
        }
        .to_string();
        assert_eq!(
            line,
            "    3.0 s   -12.0 dBFS  SNR  41.3 dB  stereo 100%  squelch closed  PI C201  \
             PS \"AIRWAVES\"  underruns 2  overruns 1"
        );
    }
}
