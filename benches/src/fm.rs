//! Instruction-count workloads for the wideband FM receiver chain.
//!
//! Each case runs `n` cu8 input samples at 2.4 MS/s (a generated stereo
//! station at −250 kHz with a 1 kHz tone, CNR 30 dB, a +6 dB adjacent
//! station at +400 kHz) through the whole chain in blocks of [`BLOCK`]:
//! front end to MPX at 240 kHz, then the mono or stereo decoder to 48 kHz.
//! Costs are per *input* sample.

use airwaves_core::dsp::deemph::TAU_50US;
use airwaves_core::fm::generator::{Adjacent, Generator, GeneratorConfig, Tone};
use airwaves_core::fm::mono_q15::{MonoReceiverQ15, MonoReceiverQ15State};
use airwaves_core::fm::stereo::{StereoDecoder, StereoDecoderState};
use airwaves_core::fm::wbfm::{FrontEnd, FrontEndState, MonoDecoder, MonoDecoderState};

use crate::{BLOCK, Case, blocks};

/// Station offset from the centre of the generated block, Hz.
pub const OFFSET_HZ: f64 = -250e3;

/// One block of generated stereo FM (cu8 pairs).
pub fn fm_block() -> Vec<[u8; 2]> {
    fm_iq(BLOCK)
}

/// `n` samples of the generated stereo FM station (cu8 pairs), the scene
/// of [`fm_block`] continued.
pub fn fm_iq(n: usize) -> Vec<[u8; 2]> {
    let mut cfg = GeneratorConfig::new(OFFSET_HZ);
    cfg.cnr_db = Some(30.0);
    cfg.adjacent = Some(Adjacent {
        offset_hz: 400e3,
        level_db: 6.0,
        tone_hz: 2500.0,
    });
    let g = Generator::new(cfg).expect("valid generator configuration");
    let mut s = g.state();
    let tone = Tone::new(1000.0, 0.9);
    let mut iq = vec![[0u8; 2]; n];
    g.fill(&mut s, |t| tone.at(t), |_| 0.0, |_| 0.0, &mut iq);
    iq
}

/// The cases of this group.
pub static CASES: &[Case] = &[
    Case {
        name: "wbfm/f32/mono",
        run: |n| {
            let x = fm_block();
            let fe = FrontEnd::mono(OFFSET_HZ).expect("offset within ±1 MHz");
            let dec = MonoDecoder::new(TAU_50US);
            let mut fs = FrontEndState::default();
            let mut ds = MonoDecoderState::default();
            let mut mpx = vec![0.0f32; fe.max_output(BLOCK)];
            blocks(
                n,
                &x,
                1,
                |x, y: &mut [f32]| {
                    let k = fe.process(&mut fs, x, &mut mpx).unwrap_or(0);
                    let _ = dec.process(&mut ds, &mpx[..k], y);
                },
                |y: &f32| y.to_bits() as u64,
            )
        },
    },
    Case {
        name: "wbfm/f32/stereo",
        run: |n| {
            let x = fm_block();
            let fe = FrontEnd::new(OFFSET_HZ);
            let dec = StereoDecoder::new(TAU_50US);
            let mut fs = FrontEndState::default();
            let mut ds = StereoDecoderState::default();
            let mut mpx = vec![0.0f32; fe.max_output(BLOCK)];
            let mut right = vec![0.0f32; dec.max_output(fe.max_output(BLOCK))];
            blocks(
                n,
                &x,
                1,
                |x, y: &mut [f32]| {
                    let k = fe.process(&mut fs, x, &mut mpx).unwrap_or(0);
                    let _ = dec.process(&mut ds, &mpx[..k], y, &mut right);
                },
                |y: &f32| y.to_bits() as u64,
            )
        },
    },
    Case {
        name: "wbfm/q15/mono",
        run: |n| {
            let x = fm_block();
            let rx = MonoReceiverQ15::new(OFFSET_HZ, TAU_50US).expect("valid receiver");
            let mut st = MonoReceiverQ15State::default();
            blocks(
                n,
                &x,
                1,
                |x, y: &mut [i16]| {
                    let _ = rx.process(&mut st, x, y);
                },
                |y: &i16| *y as u64,
            )
        },
    },
];
