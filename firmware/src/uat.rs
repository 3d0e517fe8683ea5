//! The UAT stage: the 978 MHz downlink demodulator
//! ([`DownlinkState`]: 2,048 samples of history and a 48-byte message
//! scratch, about 13 KiB) on a flash-held `cu8` scene at 2.083334 MS/s;
//! one `uat … frame` line per message, as dump978-fa's raw line (`-hex;`
//! and `rs=N;` when Reed–Solomon corrected bytes) with its sample.
//!
//! Only the demodulator is timed; the messages are kept in a
//! fixed-capacity list and printed afterwards. The scene is dense (533
//! messages a second, several times a busy sky), so its mean is mostly
//! the messages' cost: the stage also runs 20 ms of noise alone, the
//! sync search's floor, and prints the instructions a message adds, so
//! that a sky of `R` messages a second costs about `floor + R ·
//! per_message / 2 083 334` per sample.

use airwaves_core::uat::adsb::{Downlink, DownlinkRepr, LONG_LEN};
use airwaves_core::uat::demod::{Demodulator, DownlinkState, Link};
use cortex_m_semihosting::hprintln;

use crate::Cost;
use crate::cost::{Calibration, Meter, Timer};

/// The rate the scene is sampled at (two samples per bit).
pub const RATE_HZ: u32 = 2_083_334;
/// Bytes per block fed to the demodulator (4,096 samples, 2 ms).
const BLOCK_BYTES: usize = 8 * 1024;
/// Messages kept for printing (the scene has 16).
const MAX_MESSAGES: usize = 32;

/// One message kept: first sync sample, corrected bytes, data.
struct Kept {
    sample: u64,
    errors: u16,
    len: usize,
    data: [u8; LONG_LEN],
}

/// Run the scene `iq` and print `uat 2083334 …` lines.
///
/// # Errors
/// More messages than [`MAX_MESSAGES`].
pub fn run(
    iq: &[u8],
    noise: &[u8],
    timer: &Timer,
    cal: &Calibration,
) -> Result<Cost, &'static str> {
    // The floor: noise alone (a fresh state).
    let floor = {
        let demod = Demodulator::new();
        let mut st = DownlinkState::new();
        let mut meter = Meter::new(timer, cal);
        let mut found = 0usize;
        for block in noise.chunks(BLOCK_BYTES) {
            meter.time(block.len() / 2, || {
                demod.process(&mut st, block, |_| found += 1)
            });
        }
        if found > 0 {
            return Err("a UAT message found in noise");
        }
        meter.mean()
    };
    let demod = Demodulator::new();
    let mut st = DownlinkState::new();
    let mut kept: heapless::Vec<Kept, MAX_MESSAGES> = heapless::Vec::new();
    let mut lost = 0usize;
    let mut keep = |m: &airwaves_core::uat::demod::Message| {
        let bytes = m.bytes();
        if m.link != Link::Downlink || bytes.len() > LONG_LEN {
            return;
        }
        let mut data = [0u8; LONG_LEN];
        data[..bytes.len()].copy_from_slice(bytes);
        let k = Kept {
            sample: m.sample,
            errors: m.errors,
            len: bytes.len(),
            data,
        };
        if kept.push(k).is_err() {
            lost += 1;
        }
    };
    let mut meter = Meter::new(timer, cal);
    for block in iq.chunks(BLOCK_BYTES) {
        meter.time(block.len() / 2, || demod.process(&mut st, block, &mut keep));
    }
    meter.time(0, || demod.finish(&mut st, &mut keep));
    if lost > 0 {
        return Err("more UAT messages than the list holds");
    }
    for k in &kept {
        let data = &k.data[..k.len];
        let mut hex = [0u8; 2 * LONG_LEN];
        for (i, b) in data.iter().enumerate() {
            hex[2 * i] = HEX[usize::from(b >> 4)];
            hex[2 * i + 1] = HEX[usize::from(b & 15)];
        }
        let hex = core::str::from_utf8(&hex[..2 * data.len()]).map_err(|_| "hex not ASCII")?;
        let address = DownlinkRepr::parse(&Downlink::new_unchecked(data)).map_or(0, |r| r.address);
        hprintln!(
            "uat {} frame -{};rs={}; sample {} address {:06X}",
            RATE_HZ,
            hex,
            k.errors,
            k.sample,
            address
        );
    }
    let (instructions, mean, worst) = (meter.instructions(), meter.mean(), meter.worst());
    let samples = iq.len() / 2;
    let per_message = (instructions - floor * samples as f64) / kept.len().max(1) as f64;
    hprintln!(
        "uat {} done samples {} messages {} candidates {} instructions {:.0} per_sample {:.1} worst_block_per_sample {:.1} floor_per_sample {:.1} per_message {:.0}",
        RATE_HZ,
        samples,
        kept.len(),
        st.stats.candidates,
        instructions,
        mean,
        worst,
        floor,
        per_message
    );
    Ok(Cost {
        chain: "uat downlink",
        rate_hz: RATE_HZ,
        mean,
        worst,
    })
}

/// Lower-case hex digits, as dump978-fa writes them.
const HEX: &[u8; 16] = b"0123456789abcdef";
