//! The real USB path (rusb control transfers + the libusb async engine) of
//! our driver, against `../shared/rtl/fakeusb.c` preloaded in place of
//! libusb: no hardware.
//!
//! The child process (this test binary re-executed with `LD_PRELOAD`) opens
//! fakeusb's dongle through `libusb1-sys` (rusb's own enumeration calls
//! `libusb_ref_device`, which fakeusb lacks), wraps the handle in
//! [`RusbTransport::from_handle`], and runs the golden sequence (open →
//! 2.4 MS/s → 1090 MHz → gain 49.6 dB → reset buffer → stream → close)
//! through [`Device`] and [`DongleStream`]. It runs the same sequence on the
//! built-in emulator with a trace. The parent compares fakeusb's trace with
//! the emulator's: every control transfer equal, in order.
#![allow(unsafe_code)] // raw libusb open; the block has a SAFETY note

mod support;

use airwaves::rtl::device::{Device, Selector};
use airwaves::rtl::fake::FakeConfig;
use airwaves::rtl::stream::{DongleStream, Next, StreamOptions};
use airwaves::rtl::usb::UsbStrings;
use airwaves::rtl::usb::rusb_impl::RusbTransport;
use airwaves::source::{Tuning, tune_device};
use rusb::{Context, DeviceHandle, UsbContext};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr::{self, NonNull};
use std::time::Duration;
use support::fakeusb_so;

const CHILD_ENV: &str = "AIRWAVES_RTL_FAKEUSB_CHILD";

fn tmp(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Open fakeusb's dongle with only the calls fakeusb implements.
fn open_fake() -> DeviceHandle<Context> {
    let context = Context::new().expect("libusb_init");
    let mut list: *const *mut libusb1_sys::libusb_device = ptr::null();
    // SAFETY: a valid context and an out-pointer for the list; `list` then
    // holds n >= 1 devices, `raw` is an out-pointer, the list is freed once,
    // and rusb closes the opened handle on drop.
    let raw = unsafe {
        let n = libusb1_sys::libusb_get_device_list(context.as_raw(), &mut list);
        assert!(n >= 1, "no USB device: is fakeusb preloaded?");
        let mut raw = ptr::null_mut();
        let rc = libusb1_sys::libusb_open(*list, &mut raw);
        libusb1_sys::libusb_free_device_list(list, 1);
        assert_eq!(rc, 0, "libusb_open");
        raw
    };
    let raw = NonNull::new(raw).expect("libusb_open gave a handle");
    // SAFETY: `raw` is an open handle on `context`.
    unsafe { DeviceHandle::from_libusb(context, raw) }
}

/// The golden sequence; returns the number of bytes streamed.
fn golden(mut dev: Device) -> u64 {
    let tuning = Tuning {
        freq: Some(1_090_000_000),
        rate: 2_400_000,
        gain: Some(496),
        ppm: 0,
        bias_tee: false,
        test_mode: false,
    };
    tune_device(&mut dev, &tuning).unwrap();
    let opts = StreamOptions {
        transfers: 15,
        transfer_len: 262_144,
        ring_buffers: 8,
    };
    let mut stream = DongleStream::start(&mut dev, &opts).unwrap();
    let mut bytes = 0u64;
    for _ in 0..20 {
        match stream.next_with(Duration::from_secs(5), |b| b.len() as u64) {
            Next::Data(n) => bytes += n,
            other => panic!("{other:?}"),
        }
    }
    let end = stream.stop();
    assert!(end.result.is_ok(), "{end:?}");
    dev.close().unwrap();
    bytes
}

fn control_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn rusb_path_on_fakeusb_traces_like_the_emulator_and_streams() {
    let name = "rusb_path_on_fakeusb_traces_like_the_emulator_and_streams";
    let fake_trace = tmp("rtl_fakeusb_golden.trace");
    let emu_trace = tmp("rtl_fakeusb_golden.emu.trace");
    if std::env::var_os(CHILD_ENV).is_some() {
        // Child: fakeusb is libusb here.
        let handle = open_fake();
        let strings = UsbStrings {
            manufacturer: Some("Realtek".into()),
            product: Some("RTL2838UHIDIR".into()),
            serial: Some("00000001".into()),
        };
        let dev = Device::from_transport(Box::new(RusbTransport::from_handle(handle, strings)))
            .expect("our driver initialises fakeusb's dongle");
        let real = golden(dev);
        assert_eq!(real, 20 * 262_144, "streamed through the async engine");
        let out = std::fs::File::create(&emu_trace).unwrap();
        let emu = Device::open(
            &Selector::Fake(FakeConfig::parse("r820t").unwrap()),
            Some(Box::new(std::io::BufWriter::new(out))),
        )
        .unwrap();
        golden(emu);
        println!("CHILD-DONE {name}");
        return;
    }
    let Some(so) = fakeusb_so() else {
        return;
    };
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env("LD_PRELOAD", so)
        .env(CHILD_ENV, "1")
        .env("FAKEUSB_TRACE", &fake_trace)
        .env("FAKEUSB_XFER_US", "0")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(&format!("CHILD-DONE {name}")),
        "child failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let fake = control_lines(&fake_trace);
    let emu = control_lines(&emu_trace);
    assert!(fake.len() > 200, "fakeusb trace too short: {}", fake.len());
    for (i, (a, b)) in fake.iter().zip(&emu).enumerate() {
        assert_eq!(a, b, "line {i} differs (fakeusb vs emulator)");
    }
    assert_eq!(fake.len(), emu.len());
}
