//! The async bulk engine (`src/usb_async.rs`) against the real libusb-1.0
//! API as emulated by `../shared/rtl/fakeusb.c`, with no hardware.
//!
//! fakeusb must be loaded with `LD_PRELOAD` before the process starts, so
//! each test re-executes this test binary with `--exact <name>` and
//! `LD_PRELOAD=fakeusb.so`; the child (marked by `AIRWAVES_FAKEUSB_CHILD`)
//! runs the body. Tests skip with a message when `../shared/rtl/fakeusb.c`
//! or `gcc` is missing.
//!
//! The device is opened through `libusb1-sys` directly (device list, then
//! `libusb_open`, then `rusb::DeviceHandle::from_libusb`): rusb's own
//! enumeration calls `libusb_ref_device` and `libusb_unref_device`, which
//! fakeusb does not implement, so the real libusb would get fakeusb's pointers.
#![allow(unsafe_code)] // raw libusb open + a counting allocator; each block has a SAFETY note

mod support;

use airwaves::usb_async;
use support::fakeusb_so;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rusb::{Context, DeviceHandle, UsbContext};
use usb_async::{BulkStream, Flow, StopReason, StreamConfig, StreamError};

const CHILD_ENV: &str = "AIRWAVES_FAKEUSB_CHILD";
const S: usize = 262_144;

// ---------------------------------------------------------------- harness

/// Counts heap allocations made on threads that opted in.
struct CountingAlloc;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn note_allocation() {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: forwards every call unchanged to the system allocator; the
// bookkeeping touches only an atomic and a const-initialised thread local.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Heap allocations made by `f` on this thread.
fn allocations_in<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (r, ALLOCATIONS.load(Ordering::Relaxed) - before)
}

fn shared_rtl() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/rtl")
}

/// In the parent: re-runs test `name` in a child with fakeusb preloaded and
/// `env` set, asserts it passed, and returns false. In the child: returns
/// true, and the caller runs the body.
fn run_in_child(name: &str, env: &[(&str, &str)]) -> bool {
    if std::env::var_os(CHILD_ENV).is_some() {
        return true;
    }
    run_child(name, env, &[]);
    false
}

/// Runs test `name` in a child process with fakeusb preloaded, under the
/// `wrapper` command (e.g. valgrind) if not empty; asserts it passed.
fn run_child(name: &str, env: &[(&str, &str)], wrapper: &[&str]) {
    let Some(so) = fakeusb_so() else {
        return;
    };
    let trace = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.trace"));
    let exe = std::env::current_exe().expect("own test binary");
    let mut cmd = match wrapper {
        [] => Command::new(&exe),
        [program, args @ ..] => {
            let mut c = Command::new(program);
            c.args(args).arg(&exe);
            c
        }
    };
    let out = cmd
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env("LD_PRELOAD", so)
        .env(CHILD_ENV, "1")
        .env("FAKEUSB_TRACE", &trace)
        .envs(env.iter().copied())
        .output()
        .expect("re-execute the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("--- child {name} stdout:\n{stdout}--- child stderr:\n{stderr}");
    assert!(out.status.success(), "child {name} failed: {}", out.status);
    assert!(
        stdout.contains(&format!("CHILD-DONE {name}")),
        "child did not run {name}"
    );
}

/// Opens fakeusb's dongle using only functions fakeusb implements, and
/// claims interface 0.
fn open_fake() -> DeviceHandle<Context> {
    let context = Context::new().expect("libusb_init");
    let mut list: *const *mut libusb1_sys::libusb_device = ptr::null();
    // SAFETY: a valid context and an out-pointer for the list.
    let n = unsafe { libusb1_sys::libusb_get_device_list(context.as_raw(), &mut list) };
    assert!(n >= 1, "no USB device: is fakeusb preloaded?");
    // SAFETY: `list` holds `n >= 1` device pointers; the descriptor is
    // plain old data written by the call.
    let (desc, rc) = unsafe {
        let mut desc = std::mem::zeroed::<libusb1_sys::libusb_device_descriptor>();
        let rc = libusb1_sys::libusb_get_device_descriptor(*list, &mut desc);
        (desc, rc)
    };
    assert_eq!(rc, 0);
    assert_eq!(
        (desc.idVendor, desc.idProduct),
        (0x0bda, 0x2838),
        "not fakeusb's dongle: is it preloaded?"
    );
    let mut raw = ptr::null_mut();
    // SAFETY: `list[0]` is a device from the list; `raw` is an out-pointer.
    let rc = unsafe { libusb1_sys::libusb_open(*list, &mut raw) };
    // SAFETY: the list came from libusb_get_device_list and is freed once.
    unsafe { libusb1_sys::libusb_free_device_list(list, 1) };
    assert_eq!(rc, 0, "libusb_open");
    let raw = NonNull::new(raw).expect("libusb_open gave a handle");
    // SAFETY: `raw` is an open handle on `context`; rusb closes it on drop.
    let handle = unsafe { DeviceHandle::from_libusb(context, raw) };
    handle.claim_interface(0).expect("claim interface 0");
    handle
}

fn rate_mb_s(bytes: u64, t: Duration) -> f64 {
    bytes as f64 / t.as_secs_f64() / 1e6
}

/// Checks fakeusb's 8-bit counter continues from `next` through `bytes`.
fn check_counter(next: &mut Option<u8>, bytes: &[u8], position: u64) {
    let mut expect = next.unwrap_or(bytes[0]);
    if let Some(i) = bytes.iter().position(|&b| {
        let bad = b != expect;
        expect = expect.wrapping_add(1);
        bad
    }) {
        panic!(
            "counter gap at stream byte {}: got {}",
            position + i as u64,
            bytes[i]
        );
    }
    *next = Some(expect);
}

// ---------------------------------------------------------------- tests

#[test]
fn counter_stream_is_gapless_in_order_and_allocation_free() {
    let name = "counter_stream_is_gapless_in_order_and_allocation_free";
    if !run_in_child(name, &[("FAKEUSB_XFER_US", "0")]) {
        return;
    }
    let handle = open_fake();
    let config = StreamConfig::default();
    let mut stream = BulkStream::new(&handle, config).expect("allocate stream");
    let stop = AtomicBool::new(false);
    const WANT: u64 = 400;
    let mut next = Some(0); // fakeusb's counter starts at 0
    let mut seen = 0u64;
    let mut delivered = 0u64;
    let mut sink = |b: &[u8]| {
        check_counter(&mut next, b, seen);
        seen += b.len() as u64;
        delivered += 1;
        if delivered == WANT {
            Flow::Stop
        } else {
            Flow::Continue
        }
    };
    let t = Instant::now();
    let (end, allocations) = allocations_in(|| stream.run(&stop, &mut sink));
    let elapsed = t.elapsed();
    assert_eq!(end, Ok(StopReason::Sink));
    assert_eq!(allocations, 0, "run allocated");
    assert_eq!(delivered, WANT);
    assert_eq!(seen, WANT * S as u64);
    let st = stream.stats();
    assert_eq!(
        (st.transfers, st.bytes, st.short_transfers, st.errors),
        (WANT, WANT * S as u64, 0, 0)
    );
    assert_eq!(stream.in_flight(), 0);
    // The same with a sink that only copies into a ring-sized buffer, as the
    // driver's sink will: the engine's own cost on top of fakeusb's fill.
    let mut ring = vec![0u8; 4 * S];
    let mut at = 0;
    let mut copied = 0u64;
    let t2 = Instant::now();
    let end = stream.run(&stop, &mut |b: &[u8]| {
        ring[at..at + b.len()].copy_from_slice(b);
        at = (at + b.len()) % ring.len();
        copied += 1;
        if copied == WANT {
            Flow::Stop
        } else {
            Flow::Continue
        }
    });
    let copy_elapsed = t2.elapsed();
    assert_eq!(end, Ok(StopReason::Sink));
    println!(
        "copy: {} transfers x {} B in {:?} = {:.0} MB/s (fakeusb fill + memcpy)",
        WANT,
        S,
        copy_elapsed,
        rate_mb_s(WANT * S as u64, copy_elapsed)
    );
    println!(
        "counter: {} transfers x {} B in {:?} = {:.0} MB/s (fakeusb fill + byte check)",
        WANT,
        S,
        elapsed,
        rate_mb_s(seen, elapsed)
    );
    println!("CHILD-DONE {name}");
}

/// A pseudo-random capture: xorshift bytes (seeded), 10 full transfers and
/// one short one of 1000 bytes.
fn write_capture(path: &Path) -> Vec<u8> {
    let mut x: u32 = 0x1234_5678;
    let data: Vec<u8> = (0..10 * S + 1000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect();
    std::fs::write(path, &data).expect("write capture");
    data
}

#[test]
fn iq_file_is_exact_and_end_of_file_is_no_device() {
    let name = "iq_file_is_exact_and_end_of_file_is_no_device";
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("usb_async_capture.cu8");
    if std::env::var_os(CHILD_ENV).is_none() {
        write_capture(&path);
    }
    if !run_in_child(
        name,
        &[("FAKEUSB_IQFILE", path.to_str().expect("utf-8 path"))],
    ) {
        return;
    }
    let want = std::fs::read(&path).expect("capture");
    let handle = open_fake();
    let mut stream = BulkStream::new(&handle, StreamConfig::default()).expect("allocate stream");
    let mut got = Vec::with_capacity(want.len() + S);
    let mut sizes = Vec::with_capacity(64);
    let stop = AtomicBool::new(false);
    let t = Instant::now();
    let end = stream.run(&stop, &mut |b: &[u8]| {
        got.extend_from_slice(b);
        sizes.push(b.len());
        Flow::Continue
    });
    let elapsed = t.elapsed();
    assert_eq!(end, Err(StreamError::NoDevice), "end of file = unplugged");
    assert_eq!(got.len(), want.len());
    assert!(got == want, "bytes differ from the file");
    assert_eq!(sizes[..10], [S; 10]);
    assert_eq!(sizes[10..], [1000], "short transfer passed with its length");
    let st = stream.stats();
    assert_eq!((st.bytes, st.short_transfers), (want.len() as u64, 2));
    assert_eq!(st.transfers, 12, "10 full + 1 short + the NO_DEVICE one");
    assert_eq!(stream.in_flight(), 0);
    // A stopped device stays stopped: the next run ends the same way.
    assert_eq!(
        stream.run(&stop, &mut |_: &[u8]| Flow::Continue),
        Err(StreamError::NoDevice)
    );
    println!(
        "file: {} B in {:?} = {:.0} MB/s",
        got.len(),
        elapsed,
        rate_mb_s(got.len() as u64, elapsed)
    );
    println!("CHILD-DONE {name}");
}

#[test]
fn stop_and_drop_with_transfers_in_flight() {
    let name = "stop_and_drop_with_transfers_in_flight";
    if !run_in_child(name, &[("FAKEUSB_XFER_US", "500")]) {
        return;
    }
    let handle = open_fake();
    let config = StreamConfig {
        transfers: 8,
        transfer_len: 16 * 512,
        event_timeout: Duration::from_millis(10),
        ..StreamConfig::default()
    };
    // fakeusb completes one transfer per event call and cancelled transfers
    // consume no counter bytes, so across every round and stream below the
    // counter must continue exactly: a lost, repeated or zombie transfer
    // (one freed or forgotten while fakeusb still held it) shows as a gap.
    let mut next = Some(0u8);
    let mut seen = 0u64;
    // Stop from another thread, 20 times, with one stream on a dedicated
    // thread per round (the stream borrows the handle: scoped threads).
    for round in 0..20u32 {
        let stop = AtomicBool::new(false);
        let (end, stats) = std::thread::scope(|s| {
            let worker = s.spawn(|| {
                let mut stream = BulkStream::new(&handle, config).expect("allocate");
                let end = stream.run(&stop, &mut |b: &[u8]| {
                    check_counter(&mut next, b, seen);
                    seen += b.len() as u64;
                    Flow::Continue
                });
                assert_eq!(stream.in_flight(), 0);
                (end, stream.stats())
            });
            std::thread::sleep(Duration::from_millis(5 + u64::from(round % 4) * 5));
            stop.store(true, Ordering::Relaxed);
            worker.join().expect("stream thread")
        });
        assert_eq!(end, Ok(StopReason::Requested), "round {round}");
        assert!(stats.transfers > 0, "round {round}: nothing streamed");
    }

    // A sink that panics leaves transfers in flight; the next run drains
    // them first and streams again; dropping drains them too.
    let stop = AtomicBool::new(false);
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for reuse in [true, false, true] {
        let mut stream = BulkStream::new(&handle, config).expect("allocate");
        let mut calls = 0;
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            stream.run(&stop, &mut |b: &[u8]| {
                check_counter(&mut next, b, seen);
                seen += b.len() as u64;
                calls += 1;
                if calls == 3 {
                    panic!("sink panics on purpose");
                }
                Flow::Continue
            })
        }));
        assert!(panicked.is_err());
        assert_eq!(stream.in_flight(), config.transfers - 1);
        if reuse {
            let mut n = 0;
            let end = stream.run(&stop, &mut |b: &[u8]| {
                check_counter(&mut next, b, seen);
                seen += b.len() as u64;
                n += 1;
                if n == 50 { Flow::Stop } else { Flow::Continue }
            });
            assert_eq!(end, Ok(StopReason::Sink));
            assert_eq!(stream.in_flight(), 0);
        }
        drop(stream); // cancels and waits before freeing
    }
    std::panic::set_hook(quiet);
    println!("stop/drop: {seen} counter bytes with no gap over 20 stopped runs and 3 panics");
    println!("CHILD-DONE {name}");
}

/// The stop/drop test and the counter test under valgrind: no invalid
/// access (a transfer or buffer freed while fakeusb still holds it would be
/// one) and no definite leak. About 10 s; run with `--ignored`.
#[test]
#[ignore = "slow: runs two child tests under valgrind"]
fn under_valgrind() {
    if Command::new("valgrind").arg("--version").output().is_err() {
        eprintln!("skipped: valgrind not installed");
        return;
    }
    let valgrind = [
        "valgrind",
        "--error-exitcode=99",
        "--leak-check=full",
        "--errors-for-leak-kinds=definite",
    ];
    for name in [
        "stop_and_drop_with_transfers_in_flight",
        "counter_stream_is_gapless_in_order_and_allocation_free",
    ] {
        run_child(name, &[("FAKEUSB_XFER_US", "0")], &valgrind);
    }
}

/// Field offsets of `struct xfer` in fakeusb.c and of `struct
/// libusb_transfer` in the system's libusb.h, measured by compiling them
/// (fakeusb.c is `#include`d by a generated probe, not copied), against
/// libusb1-sys's Rust struct.
#[test]
fn transfer_layout_matches_fakeusb_and_libusb_h() {
    let src = shared_rtl().join("fakeusb.c");
    if !src.is_file() {
        eprintln!("skipped: {} not found", src.display());
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let fields = [
        "dev_handle",
        "flags",
        "endpoint",
        "type",
        "timeout",
        "status",
        "length",
        "actual_length",
        "callback",
        "user_data",
        "buffer",
        "num_iso_packets",
    ];
    use libusb1_sys::libusb_transfer as T;
    let rust = [
        std::mem::offset_of!(T, dev_handle),
        std::mem::offset_of!(T, flags),
        std::mem::offset_of!(T, endpoint),
        std::mem::offset_of!(T, transfer_type),
        std::mem::offset_of!(T, timeout),
        std::mem::offset_of!(T, status),
        std::mem::offset_of!(T, length),
        std::mem::offset_of!(T, actual_length),
        std::mem::offset_of!(T, callback),
        std::mem::offset_of!(T, user_data),
        std::mem::offset_of!(T, buffer),
        std::mem::offset_of!(T, num_iso_packets),
    ];
    let probe = |name: &str, include: &str, ty: &str| -> Option<Vec<usize>> {
        let c = dir.join(format!("{name}.c"));
        let exe = dir.join(name);
        let mut text = format!("{include}\n#include <stddef.h>\nint main(void) {{\n");
        for f in fields {
            text += &format!("  printf(\"%zu \", offsetof({ty}, {f}));\n");
        }
        text += &format!("  printf(\"%zu\\n\", sizeof({ty}));\n  return 0;\n}}\n");
        std::fs::write(&c, text).expect("write probe");
        let ok = Command::new("gcc")
            .arg("-o")
            .arg(&exe)
            .arg(&c)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            eprintln!("skipped {name}: could not compile the probe");
            return None;
        }
        let out = Command::new(&exe).output().expect("run probe");
        Some(
            String::from_utf8(out.stdout)
                .expect("utf-8")
                .split_whitespace()
                .map(|n| n.parse().expect("number"))
                .collect(),
        )
    };
    let fake = probe(
        "layout_fakeusb",
        &format!("#include \"{}\"", src.display()),
        "struct xfer",
    );
    if let Some(fake) = fake {
        println!("fakeusb struct xfer offsets {fake:?}; libusb1-sys {rust:?}");
        assert_eq!(fake[..fields.len()], rust, "fakeusb struct xfer layout");
        // fakeusb allocates sizeof(struct xfer) + 64 bytes.
        assert!(std::mem::size_of::<T>() <= fake[fields.len()] + 64);
    }
    let header = Path::new("/usr/include/libusb-1.0/libusb.h");
    if header.is_file() {
        let real = probe(
            "layout_libusb_h",
            "#include <stdio.h>\n#include <libusb-1.0/libusb.h>",
            "struct libusb_transfer",
        )
        .expect("libusb.h probe");
        println!("libusb.h offsets {real:?}");
        assert_eq!(
            real[..fields.len()],
            rust,
            "libusb.h struct libusb_transfer"
        );
    } else {
        eprintln!("libusb.h not installed: real layout not checked");
    }
}
