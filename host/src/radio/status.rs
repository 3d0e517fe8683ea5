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
    /// The tuner gain the adaptive loop set, dB (`None` without it).
    pub gain_db: Option<f32>,
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
        if let Some(g) = self.gain_db {
            let _ = write!(s, "  gain {g:4.1} dB");
        }
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

/// I/Q pairs [`level_dbfs`] reads per buffer, at most.
pub const LEVEL_PAIRS: usize = 1024;

/// Mean power of cu8 I/Q against full scale (128 per component), dBFS;
/// NaN for a buffer without a whole pair.
///
/// A display figure, read once a second: it averages at most
/// [`LEVEL_PAIRS`] pairs spread evenly over `iq` (every pair of a short
/// buffer; every 128th of a dongle's 256 KiB), so that it costs about
/// 0.1 instructions per input sample instead of several. Noise-like input
/// reads within about 0.2 dB of the mean over every pair.
pub fn level_dbfs(iq: &[u8]) -> f32 {
    let pairs = iq.len() / 2;
    if pairs == 0 {
        return f32::NAN;
    }
    let stride = pairs.div_ceil(LEVEL_PAIRS);
    // Tenths of a code from the centre 127.4, squared.
    let sq = |b: u8| {
        let d = i32::from(b) * 10 - 1274;
        (d * d) as u32
    };
    let sum: u64 = iq[..2 * pairs]
        .chunks_exact(2)
        .step_by(stride)
        .map(|p| u64::from(sq(p[0]) + sq(p[1])))
        .sum();
    let n = pairs.div_ceil(stride);
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
        assert!(level_dbfs(&[9]).is_nan());
    }

    #[test]
    fn test_level_dbfs_of_a_long_buffer_reads_a_subset_evenly() {
        // 256 KiB: every 128th pair. Half amplitude on the pairs it reads,
        // nothing anywhere else, still reads −6 dB.
        let mut iq = vec![127u8; 262_144];
        for p in iq.chunks_exact_mut(2).step_by(128) {
            p[0] = 191;
        }
        assert!((level_dbfs(&iq) + 6.02).abs() < 0.1);
        // Varied input (a quadratic sequence): the subset agrees with
        // the mean over every pair.
        for (k, b) in iq.iter_mut().enumerate() {
            let k = k as u64;
            *b = ((k * k * 31 + k * 7) % 251) as u8;
        }
        let all = iq
            .iter()
            .map(|&b| (f64::from(b) - 127.4).powi(2))
            .sum::<f64>()
            / (iq.len() / 2) as f64
            / (128.0 * 128.0);
        let all = 10.0 * all.log10();
        assert!((f64::from(level_dbfs(&iq)) - all).abs() < 0.2, "{all}");
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
            gain_db: Some(16.6),
        }
        .to_string();
        assert_eq!(
            line,
            "    3.0 s   -12.0 dBFS  gain 16.6 dB  SNR  41.3 dB  stereo 100%  squelch closed  PI C201  \
             PS \"AIRWAVES\"  underruns 2  overruns 1"
        );
    }
}
