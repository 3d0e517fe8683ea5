//! The feeder's second receiver: a 978 MHz source (`airwaves adsb
//! --uat-device SPEC`) read and demodulated on a thread of its own, its
//! messages handed to the decode thread over a bounded channel.
//!
//! ```text
//! UAT source ──▶ UAT thread (core demodulator) ──bounded channel──▶ decode thread
//!                                                                     (Pipeline::process_uat, FIS-B)
//! ```
//!
//! The channel holds [`QUEUE`] messages; a decode thread that falls that
//! far behind loses the newest, counted in [`UatInput::dropped`]. A
//! source that fails (an unplugged second dongle, a closed rtl_tcp
//! server) ends this thread with [`UatEvent::Failed`]; the 1090 MHz
//! receiver goes on.

use crate::cli::{DongleArgs, Gain, SourceArgs, TuningArgs};
use crate::source::{CHUNK, SampleSource, Source, SourceError, Tuning};
use crate::uat::HISTORY;
use airwaves_core::uat::demod::{DemodState, Demodulator, Message};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

/// Messages the channel holds (a busy ground-station view sends a few
/// hundred a second).
pub const QUEUE: usize = 4096;

/// The UAT centre frequency, Hz.
pub const FREQ_HZ: u64 = 978_000_000;

/// The sample rate asked of the UAT source, Hz (two samples per bit).
pub const RATE: u32 = 2_083_334;

/// What the UAT thread sends.
#[derive(Debug)]
pub enum UatEvent {
    /// A message and its time, unix ms.
    Message(Box<Message>, u64),
    /// The source failed; the thread has ended.
    Failed(String),
    /// The source ended (a recording's end, or a stop request).
    Ended,
}

/// The running UAT thread.
pub struct UatInput {
    /// Its messages.
    pub rx: Receiver<UatEvent>,
    /// What the source is.
    pub description: String,
    dropped: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl UatInput {
    /// Messages lost because the channel was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

impl Drop for UatInput {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            // A blocked read ends with its source's own timeout.
            let _ = t.join();
        }
    }
}

/// The source a `--uat-device` SPEC names:
///
/// | SPEC | source |
/// |---|---|
/// | `0`, `1`, … or a serial number | a dongle |
/// | `rtl_tcp:HOST:PORT` | an rtl_tcp server |
/// | `fake:EMULATOR-SPEC` | the built-in emulator (`--fake-device` syntax) |
/// | `file:PATH.cu8` | a recording at 2.083334 MS/s, delivered at its sample rate |
///
/// # Errors
/// An empty SPEC or an empty part after its prefix.
pub fn source_args(spec: &str) -> Result<SourceArgs, String> {
    let nonempty = |s: &str, what: &str| {
        if s.is_empty() {
            Err(format!("--uat-device {spec}: {what} missing"))
        } else {
            Ok(s.to_owned())
        }
    };
    let mut args = SourceArgs::default();
    if let Some(addr) = spec.strip_prefix("rtl_tcp:") {
        args.rtl_tcp = Some(nonempty(addr, "HOST:PORT")?);
    } else if let Some(fake) = spec.strip_prefix("fake:") {
        args.dongle = DongleArgs {
            device: "0".into(),
            fake_device: Some(nonempty(fake, "the emulator's spec")?),
            usb_trace: None,
        };
    } else if let Some(path) = spec.strip_prefix("file:") {
        args.ifile = Some(PathBuf::from(nonempty(path, "the file")?));
        args.throttle = true;
    } else {
        args.dongle = DongleArgs {
            device: nonempty(spec, "the device")?,
            fake_device: None,
            usb_trace: None,
        };
    }
    Ok(args)
}

/// Open the source (at 978 MHz, [`RATE`], `gain`) and start its thread;
/// message times are `t0_unix_ms` plus the sample time.
///
/// # Errors
/// The source cannot be opened; the thread cannot be started.
pub fn spawn(args: &SourceArgs, gain: Gain, t0_unix_ms: u64) -> Result<UatInput, SourceError> {
    let tuning_args = TuningArgs {
        gain,
        ppm: 0,
        bias_tee: false,
    };
    let tuning = Tuning::new(&tuning_args, Some(FREQ_HZ), RATE);
    let source = Source::open(args, &tuning)?;
    let description = source.description().to_owned();
    spawn_source(source, description, t0_unix_ms).map_err(SourceError::Io)
}

/// Start the thread on an open `source` of `cu8` at
/// [`airwaves_core::uat::SAMPLE_RATE`] (a device, or the demo's UAT sky);
/// message times are `t0_unix_ms` plus the sample time.
///
/// # Errors
/// The thread cannot be started.
pub fn spawn_source<S: SampleSource + 'static>(
    mut source: S,
    description: String,
    t0_unix_ms: u64,
) -> std::io::Result<UatInput> {
    let (tx, rx) = sync_channel(QUEUE);
    let dropped = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (d, s) = (dropped.clone(), stop.clone());
    let thread = std::thread::Builder::new()
        .name("uat".into())
        .spawn(move || run(&mut source, &tx, &d, &s, t0_unix_ms))?;
    Ok(UatInput {
        rx,
        description,
        dropped,
        stop,
        thread: Some(thread),
    })
}

/// The thread: read, demodulate, send.
fn run<S: SampleSource>(
    source: &mut S,
    tx: &SyncSender<UatEvent>,
    dropped: &AtomicU64,
    stop: &AtomicBool,
    t0_unix_ms: u64,
) {
    let demod = Demodulator::new();
    let mut st: Box<DemodState<HISTORY>> = Box::new(DemodState::new());
    let mut buf = vec![0u8; CHUNK];
    let ms_per_sample = 1000.0 / airwaves_core::uat::SAMPLE_RATE;
    let mut gone = false;
    let mut send = |m: &Message| {
        let t = t0_unix_ms + (m.sample as f64 * ms_per_sample) as u64;
        match tx.try_send(UatEvent::Message(Box::new(m.clone()), t)) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                dropped.fetch_add(1, Ordering::Relaxed);
            }
            Err(TrySendError::Disconnected(_)) => gone = true,
        }
    };
    let end = loop {
        if stop.load(Ordering::Relaxed) || crate::stop::requested() {
            break UatEvent::Ended;
        }
        match source.read(&mut buf) {
            Ok(0) => {
                demod.finish(&mut st, &mut send);
                break UatEvent::Ended;
            }
            Ok(n) => demod.process(&mut st, &buf[..n], &mut send),
            Err(e) => break UatEvent::Failed(format!("UAT receiver: {e}")),
        }
    };
    if !gone {
        // Blocks only while the decode thread is alive and behind.
        let _ = tx.send(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_source_args() {
        let tcp = source_args("rtl_tcp:127.0.0.1:1234").unwrap();
        assert_eq!(tcp.rtl_tcp.as_deref(), Some("127.0.0.1:1234"));
        assert_eq!(source_args("00000978").unwrap().dongle.device, "00000978");
        let fake = source_args("fake:r828d,serial=978").unwrap();
        assert_eq!(fake.dongle.fake_device.as_deref(), Some("r828d,serial=978"));
        let file = source_args("file:/tmp/u.cu8").unwrap();
        assert!(file.throttle && file.ifile.unwrap().ends_with("u.cu8"));
        for bad in ["", "file:", "fake:", "rtl_tcp:"] {
            assert!(source_args(bad).unwrap_err().contains("missing"), "{bad}");
        }
    }
}
