//! Getting a lost dongle back: reopen the same stick by serial number, with
//! exponential backoff, and restore its settings.
//!
//! A feeder must survive a USB glitch or a replug. When a read fails with
//! NoDevice, [`Reopener::reopen`] retries `open` (by serial, because bus
//! indices change on re-enumeration) after 0.5, 1, 2, 4, 8, 8, … seconds,
//! re-applies the captured [`Settings`] and reports how long the gap was.
//! Time is passed in (the `sleep` callback) so tests run instantly.

use super::device::{Device, Selector, Settings};
use super::usb::UsbError;
use super::{Error, Result};
use std::time::Duration;

/// First wait before reopening.
pub const BACKOFF_START: Duration = Duration::from_millis(500);
/// Longest wait between attempts.
pub const BACKOFF_MAX: Duration = Duration::from_secs(8);

/// Remembers how to find and configure a dongle again.
#[derive(Debug, Clone)]
pub struct Reopener {
    selector: Selector,
    settings: Settings,
}

/// A successful reopen.
pub struct Reopened {
    /// The device, configured and with its FIFO reset.
    pub device: Device,
    /// Open attempts made (1 = first try worked).
    pub attempts: u32,
    /// Total time waited between attempts.
    pub waited: Duration,
}

/// True for errors worth retrying: any USB failure (gone, not yet
/// re-enumerated, permissions not yet applied by udev, briefly busy),
/// as opposed to a setting or an unsupported tuner.
pub fn is_device_lost(e: &Error) -> bool {
    e.usb_kind().is_some()
}

impl Reopener {
    /// Capture how `dev`, opened with `selector`, can be found again: an
    /// index becomes the stick's serial number when it has one.
    pub fn new(dev: &Device, selector: &Selector) -> Reopener {
        let selector = match (selector, dev.strings().serial.as_ref()) {
            (Selector::Index(_), Some(serial)) => Selector::Serial(serial.clone()),
            (other, _) => other.clone(),
        };
        Reopener {
            selector,
            settings: dev.settings(),
        }
    }

    /// The selector reopen uses.
    pub fn selector(&self) -> &Selector {
        &self.selector
    }

    /// Update the settings to restore (after the caller changed the device).
    pub fn remember(&mut self, dev: &Device) {
        self.settings = dev.settings();
    }

    /// Try up to `max_attempts` times, calling `sleep` with the backoff
    /// before each attempt. Errors that are not "device lost" (e.g. an
    /// unsupported tuner now answering) stop at once.
    pub fn reopen(&self, max_attempts: u32, mut sleep: impl FnMut(Duration)) -> Result<Reopened> {
        let mut wait = BACKOFF_START;
        let mut waited = Duration::ZERO;
        let mut last = Error::Usb {
            op: "reopen",
            source: UsbError::NotFound,
        };
        for attempt in 1..=max_attempts {
            sleep(wait);
            waited += wait;
            wait = (wait * 2).min(BACKOFF_MAX);
            match Device::open(&self.selector, None).and_then(|mut d| {
                d.apply(&self.settings)?;
                Ok(d)
            }) {
                Ok(device) => {
                    return Ok(Reopened {
                        device,
                        attempts: attempt,
                        waited,
                    });
                }
                Err(e) if is_device_lost(&e) => last = e,
                Err(e) => return Err(e),
            }
        }
        Err(last)
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::rtl::fake::FakeConfig;
    use crate::rtl::r82xx::Gain;

    #[test]
    fn test_nodevice_mid_stream_then_reopen() {
        let cfg = FakeConfig::parse("r820t,fast,serial=FEEDER01,fault=nodevice@2").unwrap();
        let selector = Selector::Fake(cfg);
        let mut dev = Device::open(&selector, None).unwrap();
        dev.set_sample_rate(2_400_000).unwrap();
        dev.set_center_freq(1_090_000_000).unwrap();
        dev.set_gain(496).unwrap();
        dev.set_test_mode(true).unwrap();
        dev.reset_buffer().unwrap();
        let reopener = Reopener::new(&dev, &selector);
        let mut buf = vec![0u8; 8192];
        dev.read_sync(&mut buf).unwrap();
        dev.read_sync(&mut buf).unwrap();
        let e = dev.read_sync(&mut buf).unwrap_err();
        assert!(is_device_lost(&e), "{e}");
        drop(dev);
        let mut sleeps = Vec::new();
        let back = reopener.reopen(5, |d| sleeps.push(d)).unwrap();
        assert_eq!((back.attempts, back.waited), (1, BACKOFF_START));
        let mut dev = back.device;
        let s = dev.settings();
        assert_eq!(s.sample_rate, Some(2_400_000));
        assert_eq!(s.center_freq, Some(1_090_000_000));
        assert_eq!(s.gain, Gain::Manual(496));
        assert!(s.test_mode);
        assert_eq!(dev.strings().serial.as_deref(), Some("FEEDER01"));
        // Streaming resumes with the counter.
        let n = dev.read_sync(&mut buf).unwrap();
        assert!(buf[..n].windows(2).all(|w| w[1] == w[0].wrapping_add(1)));
    }

    #[test]
    fn test_backoff_and_give_up() {
        // An emulator whose file cannot be opened never comes back: the
        // attempts and the exponential waits are reported, not a panic.
        let cfg = FakeConfig::parse("r820t,fast,file=/nonexistent/airwaves.cu8").unwrap();
        let reopener = Reopener {
            selector: Selector::Fake(cfg),
            settings: Settings {
                sample_rate: None,
                center_freq: None,
                gain: Gain::Auto,
                ppm: 0,
                bias_tee: false,
                digital_agc: false,
                test_mode: false,
                direct_sampling: 0,
            },
        };
        let mut sleeps = Vec::new();
        let r = reopener.reopen(6, |d| sleeps.push(d.as_millis()));
        assert!(matches!(r, Err(Error::FakeSpec(_))));
        // A spec error is not "device lost": one attempt only.
        assert_eq!(sleeps, vec![500]);
        // A serial no stick has: retried with doubling waits, capped.
        let reopener = Reopener {
            selector: Selector::Serial("airwaves-test-no-such-serial".into()),
            ..reopener
        };
        let mut sleeps = Vec::new();
        let r = reopener.reopen(6, |d| sleeps.push(d.as_millis()));
        assert!(r.is_err_and(|e| is_device_lost(&e)));
        assert_eq!(sleeps, vec![500, 1000, 2000, 4000, 8000, 8000]);
    }

    #[test]
    fn test_index_becomes_serial() {
        let dev = Device::open(
            &Selector::Fake(FakeConfig::parse("r820t,fast,serial=ABC").unwrap()),
            None,
        )
        .unwrap();
        let r = Reopener::new(&dev, &Selector::Index(0));
        assert_eq!(r.selector(), &Selector::Serial("ABC".into()));
    }
}
