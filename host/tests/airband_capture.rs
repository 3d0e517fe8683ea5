//! The narrowband AM chain (`airwaves_core::am`) on a real airband capture:
//! `../shared/data/am/airband_127350k_300k.cu8` (127.35 MHz centre, 300 kS/s,
//! station at +50 kHz, measured +50.12 kHz; very weak: bytes 125..130).
//!
//! For the envelope and the synchronous detector: writes a 48 kHz WAV under
//! the test's target tmp dir (path printed) and asserts that the DC is
//! removed, nothing clips, and speech stands well above the noise between
//! transmissions (90th vs 10th percentile of the 300–3000 Hz energy in
//! 100 ms windows). Skips if the capture is absent.
//!
//! Measured: the carrier is present (PLL locked) for the whole 6 s and the
//! speech starts at about 2.3 s; 100 ms energy p10 −42.6 dB, p90 −20.6 dB
//! (envelope) / −20.8 dB (sync): 22 dB speech/pause; |mean| < 1e-6;
//! peak 0.58 / 0.71.

mod support;

use airwaves_core::am::receiver::{Mode, Receiver, ReceiverConfig};
use airwaves_core::am::sync::SyncParams;
use std::io::Write;
use std::path::{Path, PathBuf};

const CAPTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/data/am/airband_127350k_300k.cu8"
);
const RATE: u32 = 300_000;
const OFFSET_HZ: f64 = 50e3;
const AUDIO_RATE: u32 = 48_000;

/// A 16-bit mono PCM WAV: the 44-byte header, then the samples (±1.0 full
/// scale, saturated).
fn write_wav(path: &Path, rate: u32, audio: &[f32]) -> std::io::Result<()> {
    let data = (audio.len() * 2) as u32;
    let mut out = Vec::with_capacity(44 + data as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&(rate * 2).to_le_bytes()); // bytes per second
    out.extend_from_slice(&2u16.to_le_bytes()); // block align
    out.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data.to_le_bytes());
    for &v in audio {
        let s = (v * 32767.0).round().clamp(-32768.0, 32767.0) as i16;
        out.extend_from_slice(&s.to_le_bytes());
    }
    std::fs::File::create(path)?.write_all(&out)
}

/// Figures of one run.
#[derive(Debug)]
struct Figures {
    mean: f64,
    peak: f32,
    /// 10th, 50th and 90th percentile of the 100 ms window energy, dB.
    p10: f64,
    p50: f64,
    p90: f64,
}

fn measure(audio: &[f32]) -> Figures {
    // Skip the first 0.5 s (AGC and filters settling).
    let a = &audio[AUDIO_RATE as usize / 2..];
    let mean = a.iter().map(|&v| v as f64).sum::<f64>() / a.len() as f64;
    let peak = a.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let win = AUDIO_RATE as usize / 10;
    let mut e: Vec<f64> = a
        .chunks_exact(win)
        .map(|w| {
            let p = w.iter().map(|&v| v as f64 * v as f64).sum::<f64>() / win as f64;
            10.0 * p.max(1e-30).log10()
        })
        .collect();
    e.sort_by(f64::total_cmp);
    let pct = |q: usize| e[(e.len() - 1) * q / 100];
    Figures {
        mean,
        peak,
        p10: pct(10),
        p50: pct(50),
        p90: pct(90),
    }
}

fn run(iq: &[[u8; 2]], cfg: ReceiverConfig, name: &str) -> (Figures, Vec<f32>) {
    let rx = Receiver::new(&cfg).expect("receiver");
    let mut st = rx.state();
    let mut audio = Vec::with_capacity(rx.max_output(iq.len()));
    // Feed it in 64 KiB blocks, as a dongle would.
    let mut buf = vec![0.0f32; rx.max_output(32_768)];
    for block in iq.chunks(32_768) {
        let n = rx.process(&mut st, block, &mut buf).expect("process");
        audio.extend_from_slice(&buf[..n]);
    }
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("airband_{name}.wav"));
    write_wav(&path, AUDIO_RATE, &audio).expect("write wav");
    let f = measure(&audio);
    println!(
        "{name}: {} s of audio → {}; mean {:.2e}, peak {:.3}, 100 ms energy p10 {:.1} / p50 {:.1} / p90 {:.1} dB, \
         speech/pause (p90 − p10) {:.1} dB, PLL locked at end: {}",
        audio.len() as f64 / AUDIO_RATE as f64,
        path.display(),
        f.mean,
        f.peak,
        f.p10,
        f.p50,
        f.p90,
        f.p90 - f.p10,
        st.locked()
    );
    (f, audio)
}

#[test]
fn airband_capture_envelope_and_sync() {
    let bytes = match std::fs::read(CAPTURE) {
        Ok(b) => b,
        Err(e) => {
            support::skip_missing_shared(&format!("{CAPTURE} ({e})"));
            return;
        }
    };
    let iq: Vec<[u8; 2]> = bytes.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
    for (mode, name) in [
        (Mode::Envelope, "envelope"),
        (Mode::Synchronous(SyncParams::default()), "sync"),
    ] {
        let cfg = ReceiverConfig {
            mode,
            ..ReceiverConfig::am(RATE, OFFSET_HZ)
        };
        let (f, audio) = run(&iq, cfg, name);
        // Energy timeline, 0.5 s steps.
        let line: Vec<String> = audio
            .chunks(AUDIO_RATE as usize / 2)
            .map(|w| {
                let p = w.iter().map(|&v| v as f64 * v as f64).sum::<f64>() / w.len() as f64;
                format!("{:.0}", 10.0 * p.max(1e-30).log10())
            })
            .collect();
        println!("{name}: energy per 0.5 s, dB: {}", line.join(" "));
        assert!(f.mean.abs() < 1e-3, "{name}: DC {:.2e}", f.mean);
        assert!(f.peak < 0.99, "{name}: clipping, peak {}", f.peak);
        assert!(
            f.p90 - f.p10 >= 15.0,
            "{name}: speech/pause {:.1} dB",
            f.p90 - f.p10
        );
    }
}
