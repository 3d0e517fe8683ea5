//! Write a generated FM stereo broadcast scene as 2.4 MS/s cu8, for
//! `airwaves fm --ifile FILE --rate 2400000 --offset -250k`.
//!
//! ```text
//! cargo run --release -p airwaves --example fm_scene -- OUT.cu8 [SECONDS]
//! ```
//!
//! The station sits at −250 kHz: 1 kHz on the left, 2 kHz on the right
//! (each at half scale), 9 % pilot, 50 µs pre-emphasis, RDS PS "AIRWAVES"
//! at 4 % of the deviation, a carrier-to-noise ratio of 30 dB in 200 kHz,
//! and a +6 dB adjacent station 400 kHz above it. Everything is
//! deterministic (noise seed 1), so the same command always writes the
//! same bytes. `scripts/cross --check` feeds it to the x86-64 and the
//! ARM builds of `airwaves fm` and compares their audio. SECONDS defaults
//! to 2 and must lie in (0, 600].

use airwaves_core::fm::generator::{Adjacent, Generator, GeneratorConfig, Tone};
use airwaves_core::rds::encoder::Encoder;
use airwaves_core::rds::group::Program;
use std::io::Write;
use std::process::ExitCode;

/// The station's offset from the centre of the I/Q, Hz.
const OFFSET_HZ: f64 = -250e3;
/// The I/Q sample rate, Hz.
const RATE: f64 = 2.4e6;
/// I/Q samples generated and written per block (one block is 128 KiB).
const BLOCK: usize = 65_536;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fm_scene: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (out, seconds) = match args.as_slice() {
        [out] => (out, 2.0),
        [out, s] => (
            out,
            s.parse::<f64>()
                .map_err(|_| format!("SECONDS {s:?} is not a number"))?,
        ),
        _ => return Err("usage: fm_scene OUT.cu8 [SECONDS]".into()),
    };
    if !(seconds > 0.0 && seconds <= 600.0) {
        return Err(format!("SECONDS {seconds} is not in (0, 600]"));
    }
    let cfg = GeneratorConfig {
        cnr_db: Some(30.0),
        adjacent: Some(Adjacent {
            offset_hz: 400e3,
            level_db: 6.0,
            tone_hz: 3000.0,
        }),
        ..GeneratorConfig::new(OFFSET_HZ)
    };
    let g = Generator::new(cfg).map_err(|e| e.to_string())?;
    let mut state = g.state();
    let enc = Encoder::new(Program::new(0xC201).with_ps(b"AIRWAVES"), RATE, 0.04)
        .map_err(|e| e.to_string())?;
    let mut es = enc.start();
    let (left, right) = (Tone::new(1000.0, 0.5), Tone::new(2000.0, 0.5));

    let file = std::fs::File::create(out).map_err(|e| format!("{out}: {e}"))?;
    let mut w = std::io::BufWriter::new(file);
    let mut iq = vec![[0u8; 2]; BLOCK];
    let mut left_to_write = (RATE * seconds).round() as usize;
    while left_to_write > 0 {
        let n = left_to_write.min(BLOCK);
        g.fill(
            &mut state,
            |t| left.at(t),
            |t| right.at(t),
            |_| f64::from(enc.next_sample(&mut es)),
            &mut iq[..n],
        );
        w.write_all(iq[..n].as_flattened())
            .map_err(|e| format!("{out}: {e}"))?;
        left_to_write -= n;
    }
    w.flush().map_err(|e| format!("{out}: {e}"))
}
