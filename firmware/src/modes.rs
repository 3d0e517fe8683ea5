//! The Mode S stage: demodulate a flash-held `cu8` scene, decode each frame
//! into the aircraft table, print the frames and the aircraft.
//!
//! Only the demodulator and the tracker are timed (formatting and
//! semihosting output come after): frames are kept in a fixed-capacity
//! list while the I/Q runs.

use airwaves_core::modes::demod::{DemodFrame, Demodulator};
use airwaves_core::modes::encode::{AVR_MAX_LEN, Timestamp, encode_avr};
use airwaves_core::modes::receiver::{Clock, Decoded, Receiver, Sink};
use airwaves_core::modes::tracker::TrackerConfig;
use cortex_m_semihosting::hprintln;

use crate::Cost;
use crate::cost::{Calibration, Meter, Timer};

/// Bytes per block fed to the demodulator (8192 samples, 3.4 ms at
/// 2.4 MS/s): what a DMA half-buffer would hold.
const BLOCK_BYTES: usize = 16 * 1024;
/// Frames kept for printing (the scenes have fewer than 64).
const MAX_FRAMES: usize = 128;
/// Aircraft table capacity.
const AIRCRAFT: usize = 32;

/// Keeps the demodulated frames for printing after the timed run.
struct Kept {
    frames: heapless::Vec<DemodFrame, MAX_FRAMES>,
    lost: usize,
}

impl Sink<AIRCRAFT> for Kept {
    fn frame(&mut self, d: &Decoded<'_, AIRCRAFT>) {
        // Rejections (unknown address, implausible moves) are counted by
        // the tracker itself.
        if self.frames.push(*d.frame).is_err() {
            self.lost += 1;
        }
    }
}

/// Run the scene `iq` (cu8 at `rate_hz`) and print `modes <rate> …` lines.
///
/// # Errors
/// An unsupported rate, or more frames than [`MAX_FRAMES`].
pub fn run(
    rate_hz: u32,
    iq: &[u8],
    timer: &Timer,
    cal: &Calibration,
) -> Result<Cost, &'static str> {
    let demod = Demodulator::new(rate_hz).map_err(|_| "unsupported sample rate")?;
    // The tracker's clock is the scene's own sample time (ms from its
    // first sample), as the host's `airwaves decode` uses.
    let clock = Clock::Samples { epoch_ms: 0 };
    // Mode S only (no Mode A/C state or code), built in place.
    let mut rx = Receiver::<AIRCRAFT>::new(demod, TrackerConfig::DEFAULT, clock);
    let mut kept = Kept {
        frames: heapless::Vec::new(),
        lost: 0,
    };

    let mut meter = Meter::new(timer, cal);
    for block in iq.chunks(BLOCK_BYTES) {
        meter.time(block.len() / 2, || rx.process(block, 0, &mut kept));
    }
    // The flush counts as time, not as samples.
    meter.time(0, || rx.finish(0, &mut kept));
    if kept.lost > 0 {
        return Err("more frames than the list holds");
    }
    let (frames, tracker) = (&kept.frames, rx.tracker());

    let samples = iq.len() / 2;
    let tps = u64::from(rx.demodulator().ticks_per_sample());
    for f in frames {
        let mut avr = [0u8; AVR_MAX_LEN];
        let n = encode_avr(
            &mut avr,
            f.bytes(),
            Some(Timestamp::from_ticks(f.timestamp.get())),
        )
        .map_err(|_| "AVR encoding failed")?;
        // encode_avr writes ASCII ending in ";\n".
        let line = core::str::from_utf8(&avr[..n]).map_err(|_| "AVR line not ASCII")?;
        hprintln!(
            "modes {} frame {} sample {} df {} icao {:06X} dbfs {:.1} repaired {}",
            rate_hz,
            line.trim_end(),
            f.timestamp.get() / tps,
            f.df(),
            f.address,
            f.signal_dbfs,
            f.repaired_bits
        );
    }
    for a in tracker.iter() {
        hprintln!(
            "modes {} aircraft {:06X} callsign {} altitude_ft {} position {}",
            rate_hz,
            a.address(),
            a.callsign().unwrap_or("-"),
            Opt(a.altitude_baro_ft()),
            Opt(a.position().map(|p| LatLon(p.position.lat, p.position.lon)))
        );
    }
    let (instructions, mean, worst) = (meter.instructions(), meter.mean(), meter.worst());
    hprintln!(
        "modes {} done samples {} frames {} aircraft {} positions {} instructions {:.0} per_sample {:.1} worst_block_per_sample {:.1}",
        rate_hz,
        samples,
        frames.len(),
        tracker.len(),
        tracker.stats().positions(),
        instructions,
        mean,
        worst
    );
    Ok(Cost {
        chain: "modes+decode",
        rate_hz,
        mean,
        worst,
    })
}

/// Prints a value or `-`.
struct Opt<T>(Option<T>);

impl<T: core::fmt::Display> core::fmt::Display for Opt<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match &self.0 {
            Some(v) => v.fmt(f),
            None => f.write_str("-"),
        }
    }
}

/// Latitude, longitude in degrees, printed `lat,lon` to 5 decimals.
struct LatLon(f64, f64);

impl core::fmt::Display for LatLon {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:.5},{:.5}", self.0, self.1)
    }
}
