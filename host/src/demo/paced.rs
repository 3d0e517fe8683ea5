//! The simulated sky as a live source: [`PacedSky`] renders it at its
//! sample rate, as a dongle would deliver it (the 1090 MHz [`DemoSky`],
//! or the 978 MHz [`UatSky`](super::uat::UatSky)).

use super::DemoSky;
use crate::source::{SampleSource, SourceError};
use std::time::{Duration, Instant};

/// Most bytes rendered per read (≈ 27 ms at 2.4 MS/s): small enough that
/// frames reach the map promptly.
pub const BLOCK: usize = 131_072;

/// A sky that renders `cu8` on demand.
pub trait Render: Send {
    /// Whether it has a front end whose gain can be set.
    const GAIN: bool = false;

    /// Write the next `out.len() / 2` samples.
    fn fill(&mut self, out: &mut [u8]);

    /// Set the tuner gain the sky's front end applies, tenths of a dB;
    /// `false` if it has none.
    fn set_gain(&mut self, _tenths: i32) -> bool {
        false
    }
}

impl Render for DemoSky {
    const GAIN: bool = true;

    fn fill(&mut self, out: &mut [u8]) {
        DemoSky::fill(self, out);
    }

    fn set_gain(&mut self, tenths: i32) -> bool {
        DemoSky::set_gain(self, crate::rtl::r82xx::Gain::Manual(tenths));
        true
    }
}

/// A [`DemoSky`] (or another [`Render`]) paced at real time (or `speed` times it): each read
/// renders at most [`BLOCK`](crate::demo::PACED_BLOCK) bytes, once the
/// samples before them are due. It never ends. Its tuner gain is set with
/// [`SampleSource::set_gain`], as a dongle's would be.
#[derive(Debug)]
pub struct PacedSky<S: Render = DemoSky> {
    sky: Box<S>,
    /// Samples per second of wall time (the rate × the speed; infinite:
    /// as fast as it renders).
    rate: f64,
    /// When the first read happened (sample 0's wall time).
    start: Option<Instant>,
    /// Samples rendered so far.
    samples: u64,
}

impl<S: Render> PacedSky<S> {
    /// Pace `sky` at `rate` samples per second (`f64::INFINITY`: no
    /// pacing).
    pub fn new(sky: S, rate: f64) -> PacedSky<S> {
        PacedSky {
            sky: Box::new(sky),
            rate,
            start: None,
            samples: 0,
        }
    }
}

impl<S: Render + std::fmt::Debug> SampleSource for PacedSky<S> {
    type Error = SourceError;

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, SourceError> {
        let start = *self.start.get_or_insert_with(Instant::now);
        if self.rate.is_finite() {
            let due = Duration::from_secs_f64(self.samples as f64 / self.rate);
            if let Some(wait) = due.checked_sub(start.elapsed()) {
                std::thread::sleep(wait);
            }
        }
        let n = BLOCK.min(buf.len()) & !1;
        self.sky.fill(&mut buf[..n]);
        self.samples += (n / 2) as u64;
        Ok(n)
    }

    fn set_gain(&mut self, tenths: i32) -> Result<bool, SourceError> {
        Ok(self.sky.set_gain(tenths))
    }

    fn can_set_gain(&self) -> bool {
        S::GAIN
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::demo::DemoConfig;

    #[test]
    fn test_paced_at_the_rate_and_identical_to_the_sky() {
        let cfg = DemoConfig {
            aircraft: 5,
            ..DemoConfig::default()
        };
        let mut paced = PacedSky::new(DemoSky::new(&cfg, 0).unwrap(), cfg.sample_rate);
        let mut sky = DemoSky::new(&cfg, 0).unwrap();
        // 0.2 s of samples in reads larger and smaller than a block.
        let total = (0.2 * cfg.sample_rate) as usize * 2;
        let mut got = vec![0u8; total];
        let t0 = Instant::now();
        let mut at = 0;
        for len in [300_001, 7, 2, 50_000].into_iter().cycle() {
            if at >= total {
                break;
            }
            let len = len.min(total - at);
            let n = paced.read(&mut got[at..at + len]).unwrap();
            assert!(n <= BLOCK && n % 2 == 0 && (len < 2 || n > 0), "{len}: {n}");
            at += n;
        }
        // The last block is delivered once the samples before it are due.
        let t = t0.elapsed().as_secs_f64();
        assert!(
            t >= 0.2 - BLOCK as f64 / 2.0 / cfg.sample_rate - 0.01,
            "{t} s"
        );
        let mut want = vec![0u8; total];
        sky.fill(&mut want);
        assert!(got == want, "the split must not change the bytes");
    }

    /// Unpaced, it renders as fast as it can; a gain set through the
    /// source seam is the gain the sky's front end applies.
    #[test]
    fn test_unpaced_and_gain_through_the_seam() {
        let cfg = DemoConfig {
            aircraft: 5,
            front_end: Some(crate::demo::frontend::FrontEnd::default()),
            ..DemoConfig::default()
        };
        let mut paced = PacedSky::new(DemoSky::new(&cfg, 0).unwrap(), f64::INFINITY);
        let mut buf = vec![0u8; 2 * BLOCK];
        let t0 = Instant::now();
        let mut n = 0;
        while n < 2 * 2_400_000 {
            n += paced.read(&mut buf).unwrap();
        }
        assert!(t0.elapsed().as_secs_f64() < 1.0, "{:?}", t0.elapsed());
        assert!(paced.can_set_gain());
        assert_eq!(paced.sky.gain_tenths(), Some(496));
        assert!(paced.set_gain(300).unwrap());
        paced.read(&mut buf).unwrap();
        assert_eq!(paced.sky.gain_tenths(), Some(297));
        assert_eq!(paced.sky.stats().gain_changes, 1);
    }
}
