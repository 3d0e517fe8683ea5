//! The Mode S stage: demodulate a flash-held `cu8` scene, decode each frame
//! into the aircraft table, print the frames and the aircraft.
//!
//! Only the demodulator and the tracker are timed (formatting and
//! semihosting output come after): frames are kept in a fixed-capacity
//! list while the I/Q runs.

use airwaves_core::modes::demod::{AddressFilter, DemodFrame, DemodState, Demodulator};
use airwaves_core::modes::encode::{AVR_MAX_LEN, Timestamp, encode_avr};
use airwaves_core::modes::tracker::{ReceivedFrame, Tracker, TrackerConfig};
use cortex_m_semihosting::hprintln;

use crate::Cost;
use crate::cost::{Calibration, Meter, Timer};

/// Bytes per block fed to the demodulator (8192 samples, 3.4 ms at
/// 2.4 MS/s): what a DMA half-buffer would hold.
const BLOCK_BYTES: usize = 16 * 1024;
/// Frames kept for printing (the scenes have fewer than 64).
const MAX_FRAMES: usize = 128;
/// Addresses the demodulator remembers: the same capacity as the host's
/// `airwaves decode`, so both accept the same AP frames.
const FILTER: usize = 1024;
/// Aircraft table capacity.
const AIRCRAFT: usize = 32;
/// 12 MHz ticks per millisecond (the tracker's clock).
const TICKS_PER_MS: u64 = 12_000;

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
    let mut state = DemodState::new();
    let mut filter = AddressFilter::<FILTER>::new(AddressFilter::<FILTER>::DEFAULT_TTL);
    let mut tracker = Tracker::<AIRCRAFT>::new(TrackerConfig::DEFAULT);
    let mut frames: heapless::Vec<DemodFrame, MAX_FRAMES> = heapless::Vec::new();
    let mut lost = 0usize;
    let mut sink = |f: &DemodFrame| {
        let t_ms = f.timestamp / TICKS_PER_MS;
        let rx = ReceivedFrame::new(f.bytes(), t_ms)
            .with_signal(f.signal_dbfs)
            .with_repaired_bits(f.repaired_bits);
        // Rejections (unknown address, implausible moves) are counted by
        // the tracker itself.
        let _ = tracker.update(&rx, t_ms);
        if frames.push(*f).is_err() {
            lost += 1;
        }
    };

    let mut meter = Meter::new(timer, cal);
    for block in iq.chunks(BLOCK_BYTES) {
        meter.time(block.len() / 2, || {
            demod.process(&mut state, &mut filter, block, &mut sink);
        });
    }
    // The flush counts as time, not as samples.
    meter.time(0, || demod.finish(&mut state, &mut filter, &mut sink));
    if lost > 0 {
        return Err("more frames than the list holds");
    }

    let samples = iq.len() / 2;
    let tps = u64::from(demod.ticks_per_sample());
    for f in &frames {
        let mut avr = [0u8; AVR_MAX_LEN];
        let n = encode_avr(
            &mut avr,
            f.bytes(),
            Some(Timestamp::from_ticks(f.timestamp)),
        )
        .map_err(|_| "AVR encoding failed")?;
        // encode_avr writes ASCII ending in ";\n".
        let line = core::str::from_utf8(&avr[..n]).map_err(|_| "AVR line not ASCII")?;
        hprintln!(
            "modes {} frame {} sample {} df {} icao {:06X} dbfs {:.1} repaired {}",
            rate_hz,
            line.trim_end(),
            f.timestamp / tps,
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
