//! Counting instructions on the emulated core.
//!
//! QEMU runs the image with `-icount shift=0`: its virtual clock advances
//! exactly 2⁰ ns per guest instruction, whatever the host's speed. The
//! MPS2's CMSDK APB timer 0 (at `0x4000_0000`) counts that virtual time at
//! the board's 25 MHz peripheral clock, so one timer tick is 40
//! instructions. [`Calibration::measure`] checks this on a loop of known
//! length instead of trusting it; the firmware prints the figure and
//! `scripts/firmware --check` requires it to be 40 ± 0.5 %.
//!
//! These are *instructions*, not cycles: a real Cortex-M4 takes 2 cycles
//! for most loads, 1–3 for a taken branch, 1 for a MAC; a Cortex-M7 can
//! issue two instructions per cycle but stalls on flash and cache misses.
//! QEMU emulates neither the timing nor DWT's `CYCCNT`.

use core::ptr::{read_volatile, write_volatile};

/// CMSDK APB timer 0 registers (ARM DDI 0479, §4.4): control, current
/// value (counts down), reload value.
const TIMER0_CTRL: *mut u32 = 0x4000_0000 as *mut u32;
const TIMER0_VALUE: *mut u32 = 0x4000_0004 as *mut u32;
const TIMER0_RELOAD: *mut u32 = 0x4000_0008 as *mut u32;

/// Instructions per timer tick that `-icount shift=0` and the 25 MHz
/// timer clock should give.
pub const EXPECTED_INSTRUCTIONS_PER_TICK: f64 = 40.0;

/// The free-running timer. Owning one means the timer has been started.
pub struct Timer(());

impl Timer {
    /// Start timer 0 counting down from `u32::MAX`, reloading there (a
    /// 32-bit wrap every 171.8 s of virtual time: 172 × 10⁹ instructions).
    pub fn start() -> Self {
        // SAFETY: 0x4000_0000..0x4000_000C are timer 0's control, value
        // and reload registers on the MPS2 (AN385/AN386/AN500 memory map);
        // nothing else in this program uses that timer.
        unsafe {
            write_volatile(TIMER0_CTRL, 0);
            write_volatile(TIMER0_RELOAD, u32::MAX);
            write_volatile(TIMER0_VALUE, u32::MAX);
            write_volatile(TIMER0_CTRL, 1);
        }
        Timer(())
    }

    /// The current count (decreasing).
    #[inline(always)]
    pub fn now(&self) -> u32 {
        // SAFETY: timer 0's value register, readable at any time.
        unsafe { read_volatile(TIMER0_VALUE) }
    }

    /// Ticks elapsed since `start` (a value of [`now`](Self::now)).
    #[inline(always)]
    pub fn since(&self, start: u32) -> u32 {
        start.wrapping_sub(self.now())
    }
}

/// The measured instructions per timer tick.
#[derive(Clone, Copy, Debug)]
pub struct Calibration {
    /// Loop iterations run.
    pub loops: u32,
    /// Instructions per iteration (`subs` + `bne`).
    pub per_loop: u32,
    /// Timer ticks they took.
    pub ticks: u32,
}

impl Calibration {
    /// Time `loops` iterations of a two-instruction loop (`subs r, #1;
    /// bne`). `loops` ≥ 1.
    pub fn measure(timer: &Timer, loops: u32) -> Self {
        let loops = loops.max(1);
        let t0 = timer.now();
        // SAFETY: a register-only countdown loop: no memory, no stack, the
        // flags are declared clobbered (asm! default without
        // `preserves_flags`).
        unsafe {
            core::arch::asm!(
                "2:",
                "subs {n}, {n}, #1",
                "bne 2b",
                n = inout(reg) loops => _,
                options(nomem, nostack),
            );
        }
        let ticks = timer.since(t0);
        Self {
            loops,
            per_loop: 2,
            ticks,
        }
    }

    /// Instructions per timer tick.
    pub fn instructions_per_tick(&self) -> f64 {
        f64::from(self.loops) * f64::from(self.per_loop) / f64::from(self.ticks.max(1))
    }

    /// `ticks` converted to instructions.
    pub fn instructions(&self, ticks: u32) -> f64 {
        f64::from(ticks) * self.instructions_per_tick()
    }
}

/// Accumulates the instructions spent in timed calls and the worst call
/// per input sample.
pub struct Meter<'a> {
    timer: &'a Timer,
    cal: &'a Calibration,
    ticks: u32,
    samples: usize,
    worst: f64,
}

impl<'a> Meter<'a> {
    /// A meter reading `timer`, converting with `cal`.
    pub fn new(timer: &'a Timer, cal: &'a Calibration) -> Self {
        Self {
            timer,
            cal,
            ticks: 0,
            samples: 0,
            worst: 0.0,
        }
    }

    /// Run `f`, which processes `samples` input samples, and count it.
    #[inline(always)]
    pub fn time<R>(&mut self, samples: usize, f: impl FnOnce() -> R) -> R {
        let t0 = self.timer.now();
        let r = f();
        let dt = self.timer.since(t0);
        self.ticks = self.ticks.wrapping_add(dt);
        self.samples += samples;
        if samples > 0 {
            self.worst = self.worst.max(self.cal.instructions(dt) / samples as f64);
        }
        r
    }

    /// Instructions counted so far.
    pub fn instructions(&self) -> f64 {
        self.cal.instructions(self.ticks)
    }

    /// Mean instructions per input sample.
    pub fn mean(&self) -> f64 {
        self.instructions() / self.samples.max(1) as f64
    }

    /// The worst call's instructions per input sample.
    pub fn worst(&self) -> f64 {
        self.worst
    }
}

/// A processor and clock to compare against: the cycles it has per input
/// sample at a given rate.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Short name, e.g. `M7@480MHz`.
    pub name: &'static str,
    /// Core clock, Hz.
    pub clock_hz: u32,
}

/// The budgets the issue names: an STM32H7-class Cortex-M7 at 480 MHz and
/// an STM32F4-class Cortex-M4F at 168 MHz.
pub const BUDGETS: [Budget; 2] = [
    Budget {
        name: "M7@480MHz",
        clock_hz: 480_000_000,
    },
    Budget {
        name: "M4@168MHz",
        clock_hz: 168_000_000,
    },
];

impl Budget {
    /// Cycles available per input sample at `rate_hz` samples/s.
    pub fn cycles_per_sample(&self, rate_hz: u32) -> u32 {
        self.clock_hz / rate_hz.max(1)
    }
}
