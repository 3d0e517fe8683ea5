//! A dongle (or the emulator) behind the rtl_tcp server: [`DongleControl`]
//! implements [`Control`] and [`DongleSource`] implements [`SampleSource`].
//!
//! Both halves share one [`LiveDongle`] behind a mutex: commands change the
//! device's settings (which a reopen after a loss re-applies), the source
//! pulls buffers from its stream. The source holds the lock only while it
//! waits at most [`POLL`] for a buffer, so a command waits no longer.

use super::device::Control;
use super::protocol::{DirectSampling, Header, TunerType};
use crate::rtl::rtl2832u::XTAL_HZ;
use crate::rtl::stream::LiveDongle;
use crate::rtl::usb::UsbError;
use crate::rtl::{Error, Result, TunerKind, r82xx};
use crate::source::SampleSource;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Longest wait for a buffer while holding the dongle.
pub const POLL: Duration = Duration::from_millis(50);

type Shared = Arc<Mutex<LiveDongle>>;

fn lock(shared: &Shared) -> MutexGuard<'_, LiveDongle> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// Split a streaming dongle into the server's two halves.
pub fn serve_parts(mut live: LiveDongle) -> (DongleControl, DongleSource) {
    let (tuner, gain_count) = match live.device() {
        Some(d) => (d.tuner_kind(), d.gains().len() as u32),
        None => (TunerKind::R820t, r82xx::GAINS_TENTH_DB.len() as u32),
    };
    let header = Header {
        tuner: match tuner {
            TunerKind::E4000 => TunerType::E4000,
            TunerKind::Fc0012 => TunerType::Fc0012,
            TunerKind::Fc0013 => TunerType::Fc0013,
            TunerKind::Fc2580 => TunerType::Fc2580,
            TunerKind::R820t => TunerType::R820t,
            TunerKind::R828d => TunerType::R828d,
        },
        gain_count,
    };
    let shared = Arc::new(Mutex::new(live));
    (
        DongleControl {
            shared: Arc::clone(&shared),
            header,
        },
        DongleSource { shared },
    )
}

/// The command half: each rtl_tcp command is one device call.
pub struct DongleControl {
    shared: Shared,
    header: Header,
}

impl DongleControl {
    fn with<T>(
        &mut self,
        f: impl FnOnce(&mut crate::rtl::device::Device) -> Result<T>,
    ) -> Result<T> {
        let mut live = lock(&self.shared);
        match live.device() {
            Some(dev) => f(dev),
            None => Err(Error::Usb {
                op: "rtl_tcp command",
                source: UsbError::NoDevice,
            }),
        }
    }

    /// The device's settings now (for the server's closing report).
    pub fn settings(&mut self) -> Option<crate::rtl::device::Settings> {
        lock(&self.shared).device().map(|d| d.settings())
    }

    /// Streaming counters of the dongle.
    pub fn stats(&self) -> crate::rtl::stream::LiveStats {
        lock(&self.shared).stats()
    }
}

impl Control for DongleControl {
    type Error = Error;

    fn header(&self) -> Header {
        self.header
    }
    fn set_center_freq(&mut self, hz: u32) -> Result<()> {
        self.with(|d| d.set_center_freq(u64::from(hz)))
    }
    fn set_sample_rate(&mut self, hz: u32) -> Result<()> {
        self.with(|d| d.set_sample_rate(hz).map(|_| ()))
    }
    fn set_gain_mode(&mut self, manual: bool) -> Result<()> {
        self.with(|d| {
            if manual {
                d.set_gain_manual()
            } else {
                d.set_gain_auto()
            }
        })
    }
    fn set_gain(&mut self, tenth_db: i32) -> Result<()> {
        self.with(|d| d.set_gain(r82xx::nearest_gain(tenth_db)))
    }
    fn set_freq_correction(&mut self, ppm: i32) -> Result<()> {
        self.with(|d| d.set_ppm(ppm))
    }
    fn set_if_gain(&mut self, _stage: u16, _tenth_db: i16) -> Result<()> {
        Err(Error::Unsupported(
            "IF gain stages (the R82xx has none to set)",
        ))
    }
    fn set_test_mode(&mut self, on: bool) -> Result<()> {
        self.with(|d| d.set_test_mode(on))
    }
    fn set_agc_mode(&mut self, on: bool) -> Result<()> {
        self.with(|d| d.set_agc_mode(on))
    }
    fn set_direct_sampling(&mut self, mode: DirectSampling) -> Result<()> {
        let m = match mode {
            DirectSampling::Off => 0,
            DirectSampling::IBranch => 1,
            DirectSampling::QBranch => 2,
            DirectSampling::Other(v) => return Err(Error::DirectSampling(v.min(255) as u8)),
        };
        self.with(|d| d.set_direct_sampling(m))
    }
    fn set_offset_tuning(&mut self, _on: bool) -> Result<()> {
        Err(Error::Unsupported(
            "offset tuning (R82xx tuners use a low IF)",
        ))
    }
    fn set_rtl_xtal(&mut self, hz: u32) -> Result<()> {
        if hz == XTAL_HZ {
            Ok(())
        } else {
            Err(Error::Unsupported(
                "a crystal other than 28.8 MHz (use --ppm for the correction)",
            ))
        }
    }
    fn set_tuner_xtal(&mut self, hz: u32) -> Result<()> {
        self.set_rtl_xtal(hz)
    }
    fn set_gain_by_index(&mut self, index: u32) -> Result<()> {
        self.with(|d| {
            let g = *d
                .gains()
                .get(index as usize)
                .ok_or(Error::Unsupported("gain index beyond the gain list"))?;
            d.set_gain(g)
        })
    }
    fn set_bias_tee(&mut self, on: bool) -> Result<()> {
        self.with(|d| d.set_bias_tee(on))
    }
}

/// The sample half: the dongle's stream, read straight from its ring into
/// the server's buffers.
pub struct DongleSource {
    shared: Shared,
}

impl SampleSource for DongleSource {
    type Error = Error;

    /// Reset the FIFO for a new client: the stream restarts and what was
    /// queued for the previous client is discarded.
    fn start(&mut self) -> Result<()> {
        lock(&self.shared).restart()
    }

    /// Holds the dongle at most [`POLL`] per wait, so a command waits no
    /// longer.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        loop {
            if let Some(n) = lock(&self.shared).read_timeout(buf, POLL)? {
                return Ok(n);
            }
        }
    }

    fn lost_bytes(&self) -> u64 {
        let s = lock(&self.shared).stats();
        s.ring_dropped_bytes + s.gap_bytes
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::rtl::counter::CounterCheck;
    use crate::rtl::device::{Device, Selector};
    use crate::rtl::fake::FakeConfig;
    use crate::rtl::r82xx::Gain;
    use crate::rtl::stream::{ReopenPolicy, StreamOptions};
    use crate::rtltcp::client::Client;
    use crate::rtltcp::protocol::Command;
    use crate::rtltcp::server::{Server, ServerConfig};
    use std::sync::atomic::Ordering;
    use std::time::Instant;

    #[test]
    fn test_server_on_the_emulator_streams_the_counter_and_applies_commands() {
        let selector = Selector::Fake(FakeConfig::parse("r820t,speed=4").unwrap());
        let mut dev = Device::open(&selector, None).unwrap();
        dev.set_sample_rate(2_400_000).unwrap();
        let opts = StreamOptions {
            transfers: 4,
            transfer_len: 65_536,
            ring_buffers: 32,
        };
        let live = LiveDongle::start(dev, &selector, opts, ReopenPolicy { max_attempts: 0 })
            .unwrap()
            .quiet(true);
        let (control, source) = serve_parts(live);
        let server = Server::bind("127.0.0.1:0", ServerConfig::default(), control, source).unwrap();
        let addr = server.local_addr().unwrap();
        let stop = server.stop_flag();
        let running = std::thread::spawn(move || server.run());
        let mut c = Client::connect(addr, Duration::from_secs(5)).unwrap();
        assert_eq!(
            c.header(),
            Header {
                tuner: TunerType::R820t,
                gain_count: 29
            }
        );
        for cmd in [
            Command::SetTestMode(true),
            Command::SetGainByIndex(28),
            Command::SetCenterFreq(1_090_000_000),
            Command::SetBiasTee(true),
            // Refused (logged, counted), the session goes on.
            Command::SetIfGain { stage: 1, gain: 30 },
            Command::SetOffsetTuning(true),
            Command::SetSampleRate(5_000_000),
        ] {
            c.send(cmd).unwrap();
        }
        // Skip what was streamed before test mode took effect, then check
        // the counter for 1 s of wall time (4 s of stream time).
        let mut buf = vec![0u8; 65_536];
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_millis(300) {
            c.read(&mut buf).unwrap();
        }
        let mut check = CounterCheck::default();
        let n = c.read(&mut buf).unwrap();
        check.feed(&buf[n - 1..n]);
        let mut bytes = 0;
        let t1 = Instant::now();
        while t1.elapsed() < Duration::from_secs(1) {
            let n = c.read(&mut buf).unwrap();
            check.feed(&buf[..n]);
            bytes += n;
        }
        assert_eq!((check.gaps, check.lost), (0, 0));
        assert!(bytes > 10_000_000, "{bytes} bytes in 1 s at 4 x 4.8 MB/s");
        drop(c);
        stop.store(true, Ordering::Relaxed);
        let mut stopped = running.join().unwrap().unwrap();
        assert_eq!(stopped.stats.commands, 7);
        assert_eq!(stopped.stats.commands_failed, 3);
        let s = stopped.control.settings().unwrap();
        assert!(s.test_mode && s.bias_tee);
        assert_eq!(s.gain, Gain::Manual(496));
        assert_eq!(s.center_freq, Some(1_090_000_000));
        assert_eq!(s.sample_rate, Some(2_400_000));
    }
}
