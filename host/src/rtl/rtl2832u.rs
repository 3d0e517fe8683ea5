//! RTL2832U demodulator: pure register maths and the baseband sequences.
//!
//! Maths (facts §1.4, §1.8), all unit-tested against Appendix B:
//! - resampler ratio `floor(xtal·2²² / rate) & 0x0ffffffc`;
//! - IF word `−(IF·2²² / xtal)` in 22 bits (p1 0x19–0x1b);
//! - ppm word `(i16)(−ppm·2²⁴ / 10⁶)` in 14 bits (p1 0x3e–0x3f);
//! - FIR: 8 int8 + 8 int12 coefficients packed into 20 bytes.

use super::regs::{Block, DEMOD_CTL, DEMOD_CTL_1, Regs, USB_EPA_CTL, USB_EPA_MAXPKT, USB_SYSCTL};
use super::{Error, Result};

/// The RTL2832U reference crystal, Hz.
pub const XTAL_HZ: u32 = 28_800_000;

/// Default FIR coefficients (16 of the 32 symmetric taps).
pub const FIR_DEFAULT: [i16; 16] = [
    -54, -36, -41, -40, -32, -14, 14, 53, 101, 156, 215, 273, 327, 372, 404, 421,
];

/// Pack FIR coefficients for p1 0x1c–0x2f: 8 × int8, then 8 × int12 in
/// pairs of 3 bytes (`v0>>4`, `v0<<4 | v1>>8 & 0xf`, `v1 & 0xff`).
/// `None` if a coefficient is out of its range.
pub fn fir_bytes(fir: &[i16; 16]) -> Option<[u8; 20]> {
    let mut out = [0u8; 20];
    for (o, &c) in out.iter_mut().zip(&fir[..8]) {
        *o = i8::try_from(c).ok()? as u8;
    }
    for (i, pair) in fir[8..].chunks(2).enumerate() {
        let (v0, v1) = (pair[0], pair[1]);
        if !(-2048..=2047).contains(&v0) || !(-2048..=2047).contains(&v1) {
            return None;
        }
        out[8 + 3 * i] = (v0 >> 4) as u8;
        out[8 + 3 * i + 1] = ((v0 << 4) as u8) | (((v1 >> 8) & 0x0f) as u8);
        out[8 + 3 * i + 2] = v1 as u8;
    }
    Some(out)
}

/// True for sample rates the resampler supports: 225 001–300 000 and
/// 900 001–3 200 000 Hz.
pub fn valid_sample_rate(rate: u32) -> bool {
    (225_001..=300_000).contains(&rate) || (900_001..=3_200_000).contains(&rate)
}

/// Resampler ratio for `rate` (Hz) with the nominal crystal, and the real
/// rate it gives (Hz). Errors on an invalid rate.
pub fn resampler_ratio(rate: u32) -> Result<(u32, f64)> {
    if !valid_sample_rate(rate) {
        return Err(Error::SampleRate(rate));
    }
    let ratio = ((u64::from(XTAL_HZ) << 22) / u64::from(rate)) as u32 & 0x0fff_fffc;
    let real_ratio = ratio | ((ratio & 0x0800_0000) << 1);
    let real_rate = f64::from(XTAL_HZ) * f64::from(1u32 << 22) / f64::from(real_ratio);
    Ok((ratio, real_rate))
}

/// The crystal corrected by `ppm`: `xtal·(1 + ppm/10⁶)`, Hz.
pub fn corrected_xtal(xtal: u32, ppm: i32) -> f64 {
    f64::from(xtal) * (1.0 + f64::from(ppm) / 1e6)
}

/// The three bytes of p1 0x19–0x1b for IF `if_hz` with crystal `xtal_hz`.
pub fn if_bytes(if_hz: u32, xtal_hz: f64) -> [u8; 3] {
    let word = -((f64::from(if_hz) * f64::from(1u32 << 22) / xtal_hz) as i64);
    [((word >> 16) & 0x3f) as u8, (word >> 8) as u8, word as u8]
}

/// Bytes of p1 0x3f and 0x3e (in that write order) for `ppm`.
pub fn ppm_bytes(ppm: i32) -> [u8; 2] {
    let offs = (-(f64::from(ppm)) * f64::from(1u32 << 24) / 1e6) as i64 as i16;
    [offs as u8, ((offs >> 8) & 0x3f) as u8]
}

/// Baseband init, facts §1.4 steps 1–16 (the first `USB_SYSCTL` write included).
pub fn init_baseband(r: &mut Regs) -> Result<()> {
    r.block_write(Block::Usb, USB_SYSCTL, &[0x09])?;
    r.block_write(Block::Usb, USB_EPA_MAXPKT, &[0x00, 0x02])?;
    r.block_write(Block::Usb, USB_EPA_CTL, &[0x10, 0x02])?;
    r.block_write(Block::Sys, DEMOD_CTL_1, &[0x22])?;
    r.block_write(Block::Sys, DEMOD_CTL, &[0xe8])?;
    soft_reset(r)?;
    r.demod_write(1, 0x15, &[0x00])?;
    r.demod_write(1, 0x16, &[0x00, 0x00])?;
    for addr in 0x16..=0x1b {
        r.demod_write(1, addr, &[0x00])?;
    }
    let fir = fir_bytes(&FIR_DEFAULT).ok_or(Error::Unsupported("FIR coefficient range"))?;
    for (i, b) in fir.iter().enumerate() {
        r.demod_write(1, 0x1c + i as u8, &[*b])?;
    }
    r.demod_write(0, 0x19, &[0x05])?;
    r.demod_write(1, 0x93, &[0xf0])?;
    r.demod_write(1, 0x94, &[0x0f])?;
    r.demod_write(1, 0x11, &[0x00])?;
    r.demod_write(1, 0x04, &[0x00])?;
    r.demod_write(0, 0x61, &[0x60])?;
    r.demod_write(0, 0x06, &[0x80])?;
    r.demod_write(1, 0xb1, &[0x1b])?;
    r.demod_write(0, 0x0d, &[0x83])
}

/// Demod soft reset: p1 0x01 ← 0x14, then 0x10.
pub fn soft_reset(r: &mut Regs) -> Result<()> {
    r.demod_write(1, 0x01, &[0x14])?;
    r.demod_write(1, 0x01, &[0x10])
}

/// Demod setup for a low-IF R82xx tuner: zero-IF off, one ADC, IF 3.57 MHz,
/// spectrum inversion.
pub fn setup_low_if(r: &mut Regs, xtal_hz: f64) -> Result<()> {
    r.demod_write(1, 0xb1, &[0x1a])?;
    r.demod_write(0, 0x08, &[0x4d])?;
    set_if(r, 3_570_000, xtal_hz)?;
    r.demod_write(1, 0x15, &[0x01])
}

/// Program the demod IF (p1 0x19, 0x1a, 0x1b, one byte each).
pub fn set_if(r: &mut Regs, if_hz: u32, xtal_hz: f64) -> Result<()> {
    let b = if_bytes(if_hz, xtal_hz);
    r.demod_write(1, 0x19, &[b[0]])?;
    r.demod_write(1, 0x1a, &[b[1]])?;
    r.demod_write(1, 0x1b, &[b[2]])
}

/// Program the resampler ratio: p1 0x9f ← ratio>>16, p1 0xa1 ← ratio & 0xffff (BE).
pub fn set_ratio(r: &mut Regs, ratio: u32) -> Result<()> {
    r.demod_write(1, 0x9f, &((ratio >> 16) as u16).to_be_bytes())?;
    r.demod_write(1, 0xa1, &(ratio as u16).to_be_bytes())
}

/// Program the sample-clock correction: p1 0x3f then p1 0x3e.
pub fn set_ppm_regs(r: &mut Regs, ppm: i32) -> Result<()> {
    let b = ppm_bytes(ppm);
    r.demod_write(1, 0x3f, &[b[0]])?;
    r.demod_write(1, 0x3e, &[b[1]])
}

/// Reset the bulk FIFO: USB_EPA_CTL ← 0x1002, then 0x0000.
pub fn reset_fifo(r: &mut Regs) -> Result<()> {
    r.block_write(Block::Usb, USB_EPA_CTL, &[0x10, 0x02])?;
    r.block_write(Block::Usb, USB_EPA_CTL, &[0x00, 0x00])
}

/// p0 0x19 values: SDR mode with digital AGC off / on, and the counter test mode.
pub mod mode {
    /// Normal SDR mode, RTL digital AGC off.
    pub const NORMAL: u8 = 0x05;
    /// Normal SDR mode, RTL digital AGC on.
    pub const DIGITAL_AGC: u8 = 0x25;
    /// Test mode: the bulk endpoint streams an 8-bit counter.
    pub const TEST_COUNTER: u8 = 0x03;
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_fir_packing() {
        assert_eq!(
            fir_bytes(&FIR_DEFAULT).unwrap(),
            [
                0xca, 0xdc, 0xd7, 0xd8, 0xe0, 0xf2, 0x0e, 0x35, 0x06, 0x50, 0x9c, 0x0d, 0x71, 0x11,
                0x14, 0x71, 0x74, 0x19, 0x41, 0xa5
            ]
        );
        let mut bad = FIR_DEFAULT;
        bad[0] = 128;
        assert_eq!(fir_bytes(&bad), None);
        bad = FIR_DEFAULT;
        bad[15] = 2048;
        assert_eq!(fir_bytes(&bad), None);
    }

    #[test]
    fn test_resampler_ratio() {
        let cases = [
            (2_400_000, 0x0300_0000),
            (2_048_000, 0x0384_0000),
            (2_000_000, 0x0399_9998),
            (1_024_000, 0x0708_0000),
            (2_560_000, 0x02d0_0000),
            (3_200_000, 0x0240_0000),
            (250_000, 0x0ccc_cccc),
        ];
        for (rate, ratio) in cases {
            assert_eq!(resampler_ratio(rate).unwrap().0, ratio, "rate {rate}");
        }
        let real = resampler_ratio(2_000_000).unwrap().1;
        assert!((real - 2_000_000.053).abs() < 0.001, "{real}");
        for bad in [0, 225_000, 300_001, 900_000, 3_200_001] {
            assert!(matches!(resampler_ratio(bad), Err(Error::SampleRate(r)) if r == bad));
        }
        assert!(resampler_ratio(225_001).is_ok() && resampler_ratio(900_001).is_ok());
    }

    #[test]
    fn test_if_bytes() {
        let x = f64::from(XTAL_HZ);
        assert_eq!(if_bytes(3_570_000, x), [0x38, 0x11, 0x12]);
        assert_eq!(if_bytes(4_570_000, x), [0x35, 0xd8, 0x2e]);
        assert_eq!(if_bytes(2_300_000, x), [0x3a, 0xe3, 0x8f]);
        assert_eq!(if_bytes(1_815_000, x), [0x3b, 0xf7, 0x78]);
        assert_eq!(if_bytes(1_625_000, x), [0x3c, 0x63, 0x8f]);
        // +100 ppm crystal: the IF word shrinks in magnitude.
        assert_ne!(
            if_bytes(3_570_000, corrected_xtal(XTAL_HZ, 100)),
            [0x38, 0x11, 0x12]
        );
    }

    #[test]
    fn test_ppm_bytes() {
        assert_eq!(ppm_bytes(0), [0x00, 0x00]);
        assert_eq!(ppm_bytes(1), [0xf0, 0x3f]);
        assert_eq!(ppm_bytes(-1), [0x10, 0x00]);
        assert_eq!(ppm_bytes(50), [0xba, 0x3c]);
        assert_eq!(ppm_bytes(-50), [0x46, 0x03]);
    }
}
