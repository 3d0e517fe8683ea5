//! airwaves on a microcontroller: the Mode S demodulator and decoder, and
//! the FM receivers, on I/Q held in flash, on a Cortex-M4F emulated by
//! QEMU (`mps2-an386`), with the results and the cost printed through
//! semihosting.
//!
//! Stages, in order (each prints `<stage> …` lines, parsed by
//! `firmware/check`):
//!
//! 1. `calibration`: instructions per timer tick ([`cost`]).
//! 2. `modes 2400000` and `modes 2000000`: the 1090 MHz scenes made by
//!    `build.rs`, fed in 16 KiB blocks (as DMA buffers would arrive) to
//!    [`Demodulator`](airwaves_core::modes::demod::Demodulator), each frame
//!    then given to the aircraft [`Tracker`](airwaves_core::modes::tracker::Tracker);
//!    one `frame` line per frame in `airwaves decode`'s `avr-ts` format,
//!    the aircraft table, and the cost ([`modes`]).
//! 3. `fm_q15` and `fm_f32`: 100 ms of broadcast FM through the integer
//!    mono receiver and the `f32` front end + mono decoder: an FNV-1a
//!    checksum of the audio, its level, the test tone's SNR and the cost
//!    ([`fm`]).
//! 4. `fm_channel`: the channel filter alone, the first block of both FM
//!    chains (cost only).
//! 5. `uat 2083334`: 30 ms of 978 MHz UAT through the downlink
//!    demodulator (about 13 KiB of state); one `frame` line per message
//!    as dump978-fa's raw line, and the cost, split into the sync
//!    search's (on 20 ms of noise) and each message's ([`uat`]).
//! 6. `cost`: the table of instructions per input sample against the
//!    cycle budgets of a Cortex-M7 at 480 MHz and a Cortex-M4 at 168 MHz;
//!    `stack`: the peak stack use (the stack is painted at reset).
//!
//! Exit status (through semihosting, QEMU's own): 0 when every stage ran,
//! 1 on any error or panic.
#![no_std]
#![no_main]

mod cost;
mod fm;
mod modes;
mod uat;

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};

use crate::cost::{BUDGETS, Calibration, EXPECTED_INSTRUCTIONS_PER_TICK, Timer};

// The panic handler: prints the message and exits QEMU with status 1.
use panic_semihosting as _;

/// Constants of the generated signals (`build.rs`).
mod params {
    include!(concat!(env!("OUT_DIR"), "/params.rs"));
}

/// Bytes of flash-held I/Q, in a section of their own (`.testdata`, see
/// `memory.x`) so that code and data sizes can be stated without them.
#[unsafe(link_section = ".testdata")]
static MODES_2400K: [u8; include_bytes!(concat!(env!("OUT_DIR"), "/modes_2400k.cu8")).len()] =
    *include_bytes!(concat!(env!("OUT_DIR"), "/modes_2400k.cu8"));
#[unsafe(link_section = ".testdata")]
static MODES_2000K: [u8; include_bytes!(concat!(env!("OUT_DIR"), "/modes_2000k.cu8")).len()] =
    *include_bytes!(concat!(env!("OUT_DIR"), "/modes_2000k.cu8"));
#[unsafe(link_section = ".testdata")]
static UAT_2083K: [u8; include_bytes!(concat!(env!("OUT_DIR"), "/uat_2083k.cu8")).len()] =
    *include_bytes!(concat!(env!("OUT_DIR"), "/uat_2083k.cu8"));
#[unsafe(link_section = ".testdata")]
static UAT_NOISE: [u8; include_bytes!(concat!(env!("OUT_DIR"), "/uat_noise.cu8")).len()] =
    *include_bytes!(concat!(env!("OUT_DIR"), "/uat_noise.cu8"));
#[unsafe(link_section = ".testdata")]
static FM_2400K: [u8; include_bytes!(concat!(env!("OUT_DIR"), "/fm_2400k.cu8")).len()] =
    *include_bytes!(concat!(env!("OUT_DIR"), "/fm_2400k.cu8"));

/// One stage: runs, prints its lines, returns its cost row or an error.
type Stage = fn(&Timer, &Calibration) -> Result<Cost, &'static str>;

/// Loop iterations of the calibration (2 × 10⁷ instructions).
const CALIBRATION_LOOPS: u32 = 10_000_000;

/// One row of the cost table.
#[derive(Clone, Copy, Debug)]
pub struct Cost {
    /// What ran.
    pub chain: &'static str,
    /// Its input rate, samples/s.
    pub rate_hz: u32,
    /// Mean instructions per input sample.
    pub mean: f64,
    /// The worst block's instructions per input sample.
    pub worst: f64,
}

#[entry]
fn main() -> ! {
    let ok = run();
    debug::exit(if ok {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    // Not reached under QEMU; on a board without a debugger, park.
    loop {
        cortex_m::asm::wfi();
    }
}

/// Every stage; `false` if one failed (its error already printed).
fn run() -> bool {
    hprintln!("airwaves firmware: thumbv7em-none-eabihf (Cortex-M4F / M7), I/Q in flash");
    let timer = Timer::start();
    let cal = Calibration::measure(&timer, CALIBRATION_LOOPS);
    hprintln!(
        "calibration loops {} instructions {} ticks {} instructions_per_tick {:.3} expected {:.1}",
        cal.loops,
        u64::from(cal.loops) * u64::from(cal.per_loop),
        cal.ticks,
        cal.instructions_per_tick(),
        EXPECTED_INSTRUCTIONS_PER_TICK
    );

    let mut costs: heapless::Vec<Cost, 6> = heapless::Vec::new();
    let mut ok = true;
    let stages: [(&str, Stage); 6] = [
        ("modes 2400000", |t, c| {
            modes::run(2_400_000, &MODES_2400K, t, c)
        }),
        ("modes 2000000", |t, c| {
            modes::run(2_000_000, &MODES_2000K, t, c)
        }),
        ("fm_q15", |t, c| fm::run_q15(&FM_2400K, t, c)),
        ("fm_f32", |t, c| fm::run_f32(&FM_2400K, t, c)),
        ("fm_channel", |t, c| fm::run_channel(&FM_2400K, t, c)),
        ("uat 2083334", |t, c| uat::run(&UAT_2083K, &UAT_NOISE, t, c)),
    ];
    for (name, stage) in stages {
        match stage(&timer, &cal) {
            Ok(c) => {
                // Capacity = number of stages.
                let _ = costs.push(c);
            }
            Err(e) => {
                hprintln!("{name} error: {e}");
                ok = false;
            }
        }
    }
    print_costs(&costs);
    let (used, total) = stack_use();
    hprintln!("stack peak_bytes {used} of {total}");
    hprintln!("done {}", if ok { "ok" } else { "with errors" });
    ok
}

/// The cost table: mean and worst-block instructions per input sample,
/// and the cycles per sample each budget allows at that rate.
fn print_costs(costs: &[Cost]) {
    hprintln!(
        "cost: instructions per input sample on the emulated core (QEMU -icount: instructions, not cycles)"
    );
    hprintln!(
        "cost {:<14} {:>9} {:>8} {:>8} {:>14} {:>14}",
        "chain",
        "rate",
        "mean",
        "worst",
        BUDGETS[0].name,
        BUDGETS[1].name
    );
    for c in costs {
        let budget = |i: usize| {
            let b = BUDGETS[i].cycles_per_sample(c.rate_hz);
            (b, 100.0 * c.mean / f64::from(b.max(1)))
        };
        let (b0, p0) = budget(0);
        let (b1, p1) = budget(1);
        hprintln!(
            "cost {:<14} {:>6.1}MS/s {:>8.1} {:>8.1} {:>5} ({:>4.0} %) {:>5} ({:>4.0} %)",
            c.chain,
            f64::from(c.rate_hz) / 1e6,
            c.mean,
            c.worst,
            b0,
            p0,
            b1,
            p1
        );
    }
    hprintln!(
        "cost budgets are cycles per input sample (clock / rate); % = mean instructions / budget"
    );
}

/// Peak stack use: the runtime paints the stack with
/// [`STACK_PAINT_VALUE`](cortex_m_rt::STACK_PAINT_VALUE) at reset; the
/// lowest word no longer painted marks the deepest the stack has been.
/// Returns `(used, total)` bytes.
fn stack_use() -> (usize, usize) {
    unsafe extern "C" {
        static _stack_start: u32;
        static _stack_end: u32;
    }
    let top = (&raw const _stack_start) as usize;
    let bottom = (&raw const _stack_end) as usize;
    let mut p = bottom;
    while p < top {
        // SAFETY: `p` is a word-aligned address in `_stack_end.._stack_start`,
        // RAM the runtime owns for the stack; reading it has no side effect.
        let v = unsafe { core::ptr::read_volatile(p as *const u32) };
        if v != cortex_m_rt::STACK_PAINT_VALUE {
            break;
        }
        p += 4;
    }
    (top - p, top - bottom)
}
