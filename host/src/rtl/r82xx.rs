//! Rafael Micro R820T / R820T2 / R828D tuner, driven through the demod's I2C
//! repeater, with a shadow copy of registers 0x05–0x22.
//!
//! Behaviour pinned to librtlsdr 0.6.0 (Debian bookworm), the reference of
//! the golden traces: every masked write goes on the wire (no skip when the
//! shadow already holds the value), PLL registers are written one by one,
//! and the SDM is the kHz successive-approximation value. Facts §1.6, §1.7.
//!
//! Reads start at register 0 and every byte comes back bit-reversed.
//! Status after reversal: byte 2 bit 6 = PLL locked, byte 4 bits 5:4 =
//! VCO fine tune, byte 4 bits 3:0 = filter-calibration code.

use super::regs::Regs;
use super::{Error, Result, TunerKind};

/// First writable register.
const REG_FIRST: u8 = 0x05;
/// Shadow covers 0x00..0x23 (librtlsdr's init write runs to 0x22).
const SHADOW_LEN: usize = 0x23;

/// Init values written from 0x05: 27 register values (0x05–0x1f) and the
/// three zeros of librtlsdr's 30-entry array (0x20–0x22).
pub const INIT_ARRAY: [u8; 30] = [
    0x83, 0x32, 0x75, // 05
    0xc0, 0x40, 0xd6, 0x6c, // 08
    0xf5, 0x63, 0x75, 0x68, // 0c
    0x6c, 0x83, 0x80, 0x00, // 10
    0x0f, 0x00, 0xc0, 0x30, // 14
    0x48, 0xcc, 0x60, 0x00, // 18
    0x54, 0xae, 0x4a, 0xc0, // 1c
    0x00, 0x00, 0x00, // 20
];

/// Standby writes (register, value), in order.
const STANDBY: [(u8, u8); 11] = [
    (0x06, 0xb1),
    (0x05, 0xa0),
    (0x07, 0x3a),
    (0x08, 0x40),
    (0x09, 0xc0),
    (0x0a, 0x36),
    (0x0c, 0x35),
    (0x0f, 0x68),
    (0x11, 0x03),
    (0x17, 0xf4),
    (0x19, 0x0c),
];

/// Tuner gains in tenths of a dB, as listed to users (29 entries).
pub const GAINS_TENTH_DB: [i32; 29] = [
    0, 9, 14, 27, 37, 77, 87, 125, 144, 157, 166, 197, 207, 229, 254, 280, 297, 328, 338, 364, 372,
    386, 402, 421, 434, 439, 445, 480, 496,
];

/// LNA gain increments per index step, tenths of a dB.
const LNA_STEPS: [i32; 16] = [0, 9, 13, 40, 38, 13, 31, 22, 26, 31, 26, 14, 19, 5, 35, 13];
/// Mixer gain increments per index step, tenths of a dB.
const MIXER_STEPS: [i32; 16] = [0, 5, 10, 10, 19, 9, 10, 25, 17, 10, 8, 16, 13, 6, 3, -8];

/// Tracking-filter / mux rows: (LO start MHz, open_d 0x17 bit 3, rf_mux_ploy 0x1a, tf_c 0x1b).
const MUX: [(u32, u8, u8, u8); 21] = [
    (0, 0x08, 0x02, 0xdf),
    (50, 0x08, 0x02, 0xbe),
    (55, 0x08, 0x02, 0x8b),
    (60, 0x08, 0x02, 0x7b),
    (65, 0x08, 0x02, 0x69),
    (70, 0x08, 0x02, 0x58),
    (75, 0x00, 0x02, 0x44),
    (80, 0x00, 0x02, 0x44),
    (90, 0x00, 0x02, 0x34),
    (100, 0x00, 0x02, 0x34),
    (110, 0x00, 0x02, 0x24),
    (120, 0x00, 0x02, 0x24),
    (140, 0x00, 0x02, 0x14),
    (180, 0x00, 0x02, 0x13),
    (220, 0x00, 0x02, 0x13),
    (250, 0x00, 0x02, 0x11),
    (280, 0x00, 0x02, 0x00),
    (310, 0x00, 0x41, 0x00),
    (450, 0x00, 0x41, 0x00),
    (588, 0x00, 0x40, 0x00),
    (650, 0x00, 0x40, 0x00),
];

/// VCO range: LO·mix_div must lie in [VCO_MIN, 2·VCO_MIN) Hz.
const VCO_MIN_HZ: u64 = 1_770_000_000;

/// Board around the tuner; the RTL-SDR Blog V4 adds an HF upconverter,
/// an input triplexer on GPIO5 and a notch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Board {
    /// Any stick without special handling (RTL-SDR Blog V3, generic R820T, plain R828D).
    Generic,
    /// RTL-SDR Blog V4 (strings "RTLSDRBlog" / "Blog V4", R828D, 28.8 MHz crystal).
    BlogV4,
}

/// The Blog V4 upconverter's offset, and the HF/VHF boundary, Hz.
pub const V4_UPCONVERT_HZ: u64 = 28_800_000;

/// Blog V4 input bands (triplexer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum V4Band {
    /// rf ≤ 28.8 MHz: upconverter path (cable-2 input, GPIO5 low).
    Hf,
    /// 28.8 MHz < rf < 250 MHz: cable-1 input, GPIO5 high.
    Vhf,
    /// rf ≥ 250 MHz: air input, GPIO5 high.
    Uhf,
}

impl V4Band {
    /// Band of centre frequency `rf_hz`.
    pub fn of(rf_hz: u64) -> V4Band {
        if rf_hz <= V4_UPCONVERT_HZ {
            V4Band::Hf
        } else if rf_hz < 250_000_000 {
            V4Band::Vhf
        } else {
            V4Band::Uhf
        }
    }

    /// (0x06 bit 3 cable-2, 0x05 bit 6 cable-1, 0x05 bit 5 air-in off, GPIO5 level).
    pub fn switches(self) -> (u8, u8, u8, bool) {
        match self {
            V4Band::Hf => (0x08, 0x00, 0x20, false),
            V4Band::Vhf => (0x00, 0x40, 0x20, true),
            V4Band::Uhf => (0x00, 0x00, 0x00, true),
        }
    }
}

/// Blog V4 notch (0x17 bit 3): off (0x00) at ≤ 2.2 MHz, 85–112 MHz and
/// 172–242 MHz (broadcast FM and DAB), on (0x08) elsewhere.
pub fn v4_notch(rf_hz: u64) -> u8 {
    let off = rf_hz <= 2_200_000
        || (85_000_000..=112_000_000).contains(&rf_hz)
        || (172_000_000..=242_000_000).contains(&rf_hz);
    if off { 0x00 } else { 0x08 }
}

/// Mux row for local oscillator `lo_hz`: (open_d, rf_mux_ploy, tf_c).
pub fn mux_row(lo_hz: u64) -> (u8, u8, u8) {
    let mhz = lo_hz / 1_000_000;
    let row = MUX
        .iter()
        .rev()
        .find(|r| u64::from(r.0) <= mhz)
        .unwrap_or(&MUX[0]);
    (row.1, row.2, row.3)
}

/// Smallest mixer divider in {2, 4, …, 64} that puts the VCO in range, and
/// its `div_num = log2(mix_div) − 1`. `None` outside about 27.7–1770 MHz.
pub fn mixer_divider(lo_hz: u64) -> Option<(u32, u8)> {
    (1..=6u8).find_map(|k| {
        let vco = lo_hz << k;
        (VCO_MIN_HZ..2 * VCO_MIN_HZ)
            .contains(&vco)
            .then_some((1u32 << k, k - 1))
    })
}

/// Integer and fractional (SDM) parts of `vco_hz / (2·xtal_hz)`, the
/// fraction found by binary expansion in kHz with truncated steps
/// (librtlsdr 0.6.0's arithmetic, which can differ by 1 LSB from the exact
/// `round(frac·65536)`): for n = 2, 4, 8, … 32768, while the remaining kHz
/// exceed 1, a step of `2·xtal_kHz / n` kHz adds `65536 / n`.
pub fn pll_nint_sdm(vco_hz: u64, xtal_hz: u32) -> (u32, u16) {
    let two_ref = 2 * u64::from(xtal_hz);
    let nint = (vco_hz / two_ref) as u32;
    let mut frac_khz = (vco_hz - two_ref * u64::from(nint)) / 1000;
    let two_ref_khz = 2 * ((u64::from(xtal_hz) + 500) / 1000);
    let mut sdm: u32 = 0;
    let mut n: u64 = 2;
    while frac_khz > 1 {
        let step = two_ref_khz / n;
        if frac_khz > step {
            sdm += 65536 / n as u32;
            frac_khz -= step;
            if n >= 0x8000 {
                break;
            }
        }
        n <<= 1;
        if n > 0x8000 * 2 {
            break;
        }
    }
    (nint, sdm as u16)
}

/// Register 0x14 for `nint`: `ni | si << 6` with `ni = (nint−13)/4`,
/// `si = nint − 4·ni − 13`.
pub fn nint_reg(nint: u32) -> u8 {
    let ni = (nint - 13) / 4;
    let si = nint - 4 * ni - 13;
    (ni | (si << 6)) as u8
}

/// IF filter for bandwidth `bw_hz`: (0x0a bit 4, 0x0b value under mask 0xef, IF Hz).
pub fn bandwidth_regs(bw_hz: u32) -> (u8, u8, u32) {
    const LPF: [u32; 10] = [
        1_700_000, 1_600_000, 1_550_000, 1_450_000, 1_200_000, 900_000, 700_000, 550_000, 450_000,
        350_000,
    ];
    const HP_BW1: u32 = 350_000;
    const HP_BW2: u32 = 380_000;
    if bw_hz > 7_000_000 {
        return (0x10, 0x0b, 4_570_000);
    }
    if bw_hz > 6_000_000 {
        return (0x10, 0x2a, 4_570_000);
    }
    if bw_hz > 2_430_000 {
        return (0x10, 0x6b, 3_570_000);
    }
    let mut bw = bw_hz;
    let mut reg_0b = 0x80u8;
    let mut if_hz = 2_300_000u32;
    let mut real_bw = 0u32;
    if bw > LPF[0] + HP_BW1 {
        bw -= HP_BW2;
        if_hz += HP_BW2;
        real_bw += HP_BW2;
    } else {
        reg_0b |= 0x20;
    }
    if bw > LPF[0] {
        bw -= HP_BW1;
        if_hz += HP_BW1;
        real_bw += HP_BW1;
    } else {
        reg_0b |= 0x40;
    }
    // Narrowest low-pass that still passes `bw`.
    let first_below = LPF.iter().position(|&c| bw > c).unwrap_or(LPF.len());
    let i = first_below.saturating_sub(1);
    reg_0b |= 15 - i as u8;
    real_bw += LPF[i];
    if_hz -= real_bw / 2;
    (0x00, reg_0b, if_hz)
}

/// LNA and mixer gain indices for a manual gain of `tenths` dB: step LNA
/// and mixer alternately until the running total reaches the request.
pub fn manual_gain_indices(tenths: i32) -> (u8, u8) {
    let (mut lna, mut mix, mut total) = (0usize, 0usize, 0i32);
    for _ in 0..15 {
        if total >= tenths {
            break;
        }
        lna += 1;
        total += LNA_STEPS[lna];
        if total >= tenths {
            break;
        }
        mix += 1;
        total += MIXER_STEPS[mix];
    }
    (lna as u8, mix as u8)
}

/// The LNA's share of a manual gain of `tenths` dB, tenths of a dB: the
/// LNA steps up to the index [`manual_gain_indices`] picks (the rest is
/// the mixer's).
pub fn lna_gain_tenths(tenths: i32) -> i32 {
    let (lna, _) = manual_gain_indices(tenths);
    LNA_STEPS[..=usize::from(lna)].iter().sum()
}

/// The gain of LNA index `lna` and mixer index `mix` (0–15 each), tenths
/// of a dB: the inverse of [`manual_gain_indices`] for listed gains.
pub fn gain_from_indices(lna: u8, mix: u8) -> i32 {
    let (l, m) = (usize::from(lna.min(15)), usize::from(mix.min(15)));
    LNA_STEPS[..=l].iter().sum::<i32>() + MIXER_STEPS[..=m].iter().sum::<i32>()
}

/// The gain from the list closest to `tenths` (ties go to the lower gain).
pub fn nearest_gain(tenths: i32) -> i32 {
    *GAINS_TENTH_DB
        .iter()
        .min_by_key(|&&g| (g - tenths).abs())
        .unwrap_or(&0)
}

/// Tuner gain control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gain {
    /// Tuner AGC (LNA and mixer automatic, VGA fixed at 26.5 dB).
    Auto,
    /// Manual gain in tenths of a dB (LNA + mixer, VGA 16.3 dB).
    Manual(i32),
}

/// Fixed configuration of one tuner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct R82xxConfig {
    /// R820t or R828d.
    pub chip: TunerKind,
    /// 8-bit I2C address: 0x34 (R820T) or 0x74 (R828D).
    pub i2c_addr: u8,
    /// Nominal tuner crystal, Hz (28.8 MHz shared with the RTL; 16 MHz on plain R828D boards).
    pub xtal_hz: u32,
    /// Board the tuner sits on.
    pub board: Board,
}

impl R82xxConfig {
    /// VCO power reference for the fine-tune check: 2 for R820T, 1 for R828D.
    pub fn vco_power_ref(&self) -> u8 {
        if self.chip == TunerKind::R828d { 1 } else { 2 }
    }
}

/// What a retune changed outside the tuner, for the device to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TuneOutcome {
    /// Blog V4: new GPIO5 level when the triplexer band changed.
    pub gpio5: Option<bool>,
}

/// The tuner: configuration plus shadow registers and tuning state.
#[derive(Debug, Clone)]
pub struct R82xx {
    cfg: R82xxConfig,
    /// Reference actually used for the PLL (crystal with ppm applied), Hz.
    xtal_hz: u32,
    shadow: [u8; SHADOW_LEN],
    if_hz: u32,
    has_lock: bool,
    r828d_input: Option<u8>,
    v4_band: Option<V4Band>,
}

impl R82xx {
    /// A tuner in reset state (call [`R82xx::init`] before use).
    pub fn new(cfg: R82xxConfig) -> Self {
        R82xx {
            cfg,
            xtal_hz: cfg.xtal_hz,
            shadow: [0; SHADOW_LEN],
            if_hz: 3_570_000,
            has_lock: false,
            r828d_input: None,
            v4_band: None,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &R82xxConfig {
        &self.cfg
    }

    /// The shadow register file (index = register number, 0x00–0x22).
    pub fn shadow(&self) -> &[u8; SHADOW_LEN] {
        &self.shadow
    }

    /// Current IF, Hz (3.57 MHz after init; set by [`R82xx::set_bandwidth`]).
    pub fn if_hz(&self) -> u32 {
        self.if_hz
    }

    /// Whether the PLL reported lock after the last tune.
    pub fn pll_locked(&self) -> bool {
        self.has_lock
    }

    /// Apply a crystal correction of `ppm` to the PLL reference.
    pub fn set_ppm(&mut self, ppm: i32) {
        self.xtal_hz = super::rtl2832u::corrected_xtal(self.cfg.xtal_hz, ppm).round() as u32;
    }

    fn write(&mut self, r: &mut Regs, reg: u8, data: &[u8]) -> Result<()> {
        let start = usize::from(reg);
        self.shadow[start..start + data.len()].copy_from_slice(data);
        r.i2c_write(self.cfg.i2c_addr, reg, data)
    }

    fn write_reg(&mut self, r: &mut Regs, reg: u8, value: u8) -> Result<()> {
        self.write(r, reg, &[value])
    }

    fn write_mask(&mut self, r: &mut Regs, reg: u8, value: u8, mask: u8) -> Result<()> {
        let v = (self.shadow[usize::from(reg)] & !mask) | (value & mask);
        self.write_reg(r, reg, v)
    }

    /// Read `N` status bytes (from register 0), bit-reversed into logical order.
    fn read_status<const N: usize>(&mut self, r: &mut Regs) -> Result<[u8; N]> {
        r.i2c_write(self.cfg.i2c_addr, 0x00, &[])?;
        let mut buf = [0u8; N];
        r.i2c_read(self.cfg.i2c_addr, &mut buf)?;
        Ok(buf.map(u8::reverse_bits))
    }

    /// Power-on init: init array, IF filter calibration, DVB-T system
    /// settings and the LNA/AGC setup. The caller holds the I2C repeater on.
    pub fn init(&mut self, r: &mut Regs) -> Result<()> {
        self.write(r, REG_FIRST, &INIT_ARRAY)?;
        self.calibrate_filter(r)?;
        // System frequency selection (DVB-T path).
        self.write_mask(r, 0x1d, 0xe5, 0xc7)?;
        self.write_mask(r, 0x1c, 0x24, 0xf8)?;
        self.write_reg(r, 0x0d, 0x53)?;
        self.write_reg(r, 0x0e, 0x75)?;
        self.write_mask(r, 0x05, 0x00, 0x60)?;
        self.write_mask(r, 0x06, 0x00, 0x08)?;
        self.write_mask(r, 0x11, 0x38, 0x38)?;
        self.write_mask(r, 0x17, 0x30, 0x30)?;
        self.write_mask(r, 0x0a, 0x40, 0x60)?;
        // LNA / AGC setup.
        self.write_mask(r, 0x1d, 0x00, 0x38)?;
        self.write_mask(r, 0x1c, 0x00, 0x04)?;
        self.write_mask(r, 0x06, 0x00, 0x40)?;
        self.write_mask(r, 0x1a, 0x30, 0x30)?;
        self.write_mask(r, 0x1d, 0x18, 0x38)?;
        self.write_mask(r, 0x1c, 0x04, 0x04)?;
        self.write_mask(r, 0x1e, 0x0e, 0x1f)?;
        self.write_mask(r, 0x1a, 0x20, 0x30)?;
        self.r828d_input = None;
        self.v4_band = None;
        Ok(())
    }

    /// IF filter calibration (PLL at 56 MHz, trigger, read the code; two tries).
    fn calibrate_filter(&mut self, r: &mut Regs) -> Result<()> {
        self.write_mask(r, 0x0c, 0x00, 0x0f)?;
        self.write_mask(r, 0x13, 49, 0x3f)?;
        self.write_mask(r, 0x1d, 0x00, 0x38)?;
        let mut code = 0;
        for _ in 0..2 {
            self.write_mask(r, 0x0b, 0x6b, 0x60)?;
            self.write_mask(r, 0x0f, 0x04, 0x04)?;
            self.write_mask(r, 0x10, 0x00, 0x03)?;
            self.set_pll(r, 56_000_000)?;
            self.write_mask(r, 0x0b, 0x10, 0x10)?;
            self.write_mask(r, 0x0b, 0x00, 0x10)?;
            self.write_mask(r, 0x0f, 0x00, 0x04)?;
            let st = self.read_status::<5>(r)?;
            code = st[4] & 0x0f;
            if code != 0 && code != 0x0f {
                break;
            }
        }
        if code == 0x0f {
            code = 0;
        }
        self.write_mask(r, 0x0a, 0x10 | code, 0x1f)?;
        self.write_mask(r, 0x0b, 0x6b, 0xef)?;
        self.write_mask(r, 0x07, 0x00, 0x80)?;
        self.write_mask(r, 0x06, 0x10, 0x30)?;
        self.write_mask(r, 0x1e, 0x60, 0x60)?;
        self.write_mask(r, 0x05, 0x00, 0x80)?;
        self.write_mask(r, 0x1f, 0x00, 0x80)?;
        self.write_mask(r, 0x0f, 0x00, 0x80)?;
        self.write_mask(r, 0x19, 0x60, 0x60)
    }

    /// Program the PLL to `lo_hz`; records the lock state.
    fn set_pll(&mut self, r: &mut Regs, lo_hz: u64) -> Result<()> {
        let (mix_div, mut div_num) = mixer_divider(lo_hz).ok_or(Error::Frequency(lo_hz))?;
        self.write_mask(r, 0x10, 0x00, 0x10)?;
        self.write_mask(r, 0x1a, 0x00, 0x0c)?;
        self.write_mask(r, 0x12, 0x80, 0xe0)?;
        let st = self.read_status::<5>(r)?;
        let fine = (st[4] >> 4) & 3;
        let vco_ref = self.cfg.vco_power_ref();
        if fine > vco_ref {
            div_num = div_num.saturating_sub(1);
        } else if fine < vco_ref {
            div_num += 1;
        }
        self.write_mask(r, 0x10, div_num << 5, 0xe0)?;
        let vco = lo_hz * u64::from(mix_div);
        let (nint, sdm) = pll_nint_sdm(vco, self.xtal_hz);
        if nint > 128 / u32::from(vco_ref) - 1 || nint < 13 {
            return Err(Error::Frequency(lo_hz));
        }
        self.write_reg(r, 0x14, nint_reg(nint))?;
        self.write_mask(r, 0x12, if sdm == 0 { 0x08 } else { 0x00 }, 0x08)?;
        self.write_reg(r, 0x16, (sdm >> 8) as u8)?;
        self.write_reg(r, 0x15, sdm as u8)?;
        let mut st = self.read_status::<3>(r)?;
        if st[2] & 0x40 == 0 {
            self.write_mask(r, 0x12, 0x60, 0xe0)?;
            st = self.read_status::<3>(r)?;
        }
        self.has_lock = st[2] & 0x40 != 0;
        self.write_mask(r, 0x1a, 0x08, 0x08)
    }

    fn set_mux(&mut self, r: &mut Regs, lo_hz: u64) -> Result<()> {
        let (open_d, mux, tf_c) = mux_row(lo_hz);
        self.write_mask(r, 0x17, open_d, 0x08)?;
        self.write_mask(r, 0x1a, mux, 0xc3)?;
        self.write_reg(r, 0x1b, tf_c)?;
        // Crystal capacitance "high cap 0 pF".
        self.write_mask(r, 0x10, 0x00, 0x0b)?;
        self.write_mask(r, 0x08, 0x00, 0x3f)?;
        self.write_mask(r, 0x09, 0x00, 0x3f)
    }

    /// Tune to centre frequency `rf_hz` (LO = rf + IF; Blog V4 adds 28.8 MHz
    /// below 28.8 MHz). The caller holds the I2C repeater on and applies
    /// the returned GPIO change.
    pub fn set_freq(&mut self, r: &mut Regs, rf_hz: u64) -> Result<TuneOutcome> {
        let v4 = self.cfg.board == Board::BlogV4;
        let tuned = if v4 && rf_hz < V4_UPCONVERT_HZ {
            rf_hz + V4_UPCONVERT_HZ
        } else {
            rf_hz
        };
        let lo = tuned + u64::from(self.if_hz);
        if mixer_divider(lo).is_none() {
            return Err(Error::Frequency(rf_hz));
        }
        self.set_mux(r, lo)?;
        self.set_pll(r, lo)?;
        let mut outcome = TuneOutcome::default();
        if v4 {
            let band = V4Band::of(rf_hz);
            if band == V4Band::Hf {
                // Bypass the tracking filter on HF.
                self.write_mask(r, 0x1a, 0x40, 0xc3)?;
                self.write_reg(r, 0x1b, 0x00)?;
            }
            self.write_mask(r, 0x17, v4_notch(rf_hz), 0x08)?;
            if self.v4_band != Some(band) {
                let (cable2, cable1, air_off, gpio5) = band.switches();
                self.write_mask(r, 0x06, cable2, 0x08)?;
                self.write_mask(r, 0x05, cable1, 0x40)?;
                self.write_mask(r, 0x05, air_off, 0x20)?;
                self.v4_band = Some(band);
                outcome.gpio5 = Some(gpio5);
            }
        } else if self.cfg.chip == TunerKind::R828d {
            let input = if rf_hz > 345_000_000 { 0x00 } else { 0x60 };
            if self.r828d_input != Some(input) {
                self.write_mask(r, 0x05, input, 0x60)?;
                self.r828d_input = Some(input);
            }
        }
        Ok(outcome)
    }

    /// Set the IF filter for bandwidth `bw_hz` and return the new IF (Hz).
    pub fn set_bandwidth(&mut self, r: &mut Regs, bw_hz: u32) -> Result<u32> {
        let (reg_0a, reg_0b, if_hz) = bandwidth_regs(bw_hz);
        self.write_mask(r, 0x0a, reg_0a, 0x10)?;
        self.write_mask(r, 0x0b, reg_0b, 0xef)?;
        self.if_hz = if_hz;
        Ok(if_hz)
    }

    /// Tuner AGC or a manual gain (tenths of a dB, clamped to 0..=496).
    pub fn set_gain(&mut self, r: &mut Regs, gain: Gain) -> Result<()> {
        match gain {
            Gain::Auto => {
                self.write_mask(r, 0x05, 0x00, 0x10)?;
                self.write_mask(r, 0x07, 0x10, 0x10)?;
                self.write_mask(r, 0x0c, 0x0b, 0x9f)
            }
            Gain::Manual(tenths) => {
                self.write_mask(r, 0x05, 0x10, 0x10)?;
                self.write_mask(r, 0x07, 0x00, 0x10)?;
                let _status = self.read_status::<4>(r)?;
                self.write_mask(r, 0x0c, 0x08, 0x9f)?;
                let (lna, mix) = manual_gain_indices(tenths);
                self.write_mask(r, 0x05, lna, 0x0f)?;
                self.write_mask(r, 0x07, mix, 0x0f)
            }
        }
    }

    /// Put the tuner in standby (close, direct sampling).
    pub fn standby(&mut self, r: &mut Regs) -> Result<()> {
        for (reg, value) in STANDBY {
            self.write_reg(r, reg, value)?;
        }
        self.v4_band = None;
        self.r828d_input = None;
        Ok(())
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_pll_vectors() {
        // Appendix B, 0.6.0 arithmetic.
        let x = 28_800_000;
        let lo = 1_090_000_000 + 1_815_000;
        assert_eq!(mixer_divider(lo), Some((2, 0)));
        let (nint, sdm) = pll_nint_sdm(lo * 2, x);
        assert_eq!((nint, nint_reg(nint), sdm), (37, 0x06, 0xe906));
        let (nint, sdm) = pll_nint_sdm((1_090_000_000 + 3_570_000) * 2, x);
        assert_eq!((nint, sdm), (37, 0xf89e));
        let lo = 100_000_000 + 1_815_000;
        assert_eq!(mixer_divider(lo), Some((32, 4)));
        let (nint, sdm) = pll_nint_sdm(lo * 32, x);
        assert_eq!((nint, nint_reg(nint), sdm), (56, 0xca, 0x905a));
        let (nint, sdm) = pll_nint_sdm((100_000_000 + 3_570_000) * 32, x);
        assert_eq!((nint, nint_reg(nint), sdm), (57, 0x0b, 0x89f6));
        // Filter calibration PLL (trace: 0x14 <- 84, 16 <- 1c, 15 <- 72).
        assert_eq!(mixer_divider(56_000_000), Some((32, 4)));
        let (nint, sdm) = pll_nint_sdm(56_000_000 * 32, x);
        assert_eq!((nint_reg(nint), sdm), (0x84, 0x1c72));
        // Out of range both ends.
        assert_eq!(mixer_divider(27_000_000), None);
        assert_eq!(mixer_divider(1_800_000_000), None);
        assert!(mixer_divider(28_000_000).is_some());
    }

    #[test]
    fn test_bandwidth() {
        assert_eq!(bandwidth_regs(2_400_000), (0x00, 0x8f, 1_815_000));
        assert_eq!(bandwidth_regs(2_048_000), (0x00, 0xaf, 1_625_000));
        assert_eq!(bandwidth_regs(1_024_000), (0x00, 0xeb, 1_700_000));
        assert_eq!(bandwidth_regs(2_560_000), (0x10, 0x6b, 3_570_000));
        assert_eq!(bandwidth_regs(3_200_000), (0x10, 0x6b, 3_570_000));
        assert_eq!(bandwidth_regs(6_000_000), (0x10, 0x6b, 3_570_000));
        assert_eq!(bandwidth_regs(6_500_000), (0x10, 0x2a, 4_570_000));
        assert_eq!(bandwidth_regs(8_000_000), (0x10, 0x0b, 4_570_000));
    }

    #[test]
    fn test_gain_walk() {
        assert_eq!(manual_gain_indices(496), (15, 14));
        assert_eq!(manual_gain_indices(0), (0, 0));
        assert_eq!(manual_gain_indices(9), (1, 0));
        assert_eq!(manual_gain_indices(10), (1, 1));
        assert_eq!(nearest_gain(490), 496);
        assert_eq!(nearest_gain(-50), 0);
        assert_eq!(nearest_gain(1000), 496);
        assert_eq!(nearest_gain(200), 197);
        // 49.6 dB is LNA index 15 (33.5 dB) and mixer index 14.
        assert_eq!(lna_gain_tenths(496), 335);
        assert_eq!(lna_gain_tenths(0), 0);
        assert_eq!(lna_gain_tenths(9), 9);
        // Every listed gain comes back from its indices.
        for g in GAINS_TENTH_DB {
            let (l, m) = manual_gain_indices(g);
            assert_eq!(gain_from_indices(l, m), g);
        }
    }

    #[test]
    fn test_mux_rows() {
        assert_eq!(mux_row(1_815_000), (0x08, 0x02, 0xdf));
        assert_eq!(mux_row(1_091_815_000), (0x00, 0x40, 0x00));
        assert_eq!(mux_row(101_815_000), (0x00, 0x02, 0x34));
        assert_eq!(mux_row(449_000_000), (0x00, 0x41, 0x00));
    }

    #[test]
    fn test_v4_bands_and_notch() {
        assert_eq!(V4Band::of(7_100_000), V4Band::Hf);
        assert_eq!(V4Band::of(28_800_000), V4Band::Hf);
        assert_eq!(V4Band::of(28_800_001), V4Band::Vhf);
        assert_eq!(V4Band::of(249_999_999), V4Band::Vhf);
        assert_eq!(V4Band::of(250_000_000), V4Band::Uhf);
        assert_eq!(v4_notch(1_000_000), 0x00);
        assert_eq!(v4_notch(7_000_000), 0x08);
        assert_eq!(v4_notch(98_000_000), 0x00);
        assert_eq!(v4_notch(144_000_000), 0x08);
        assert_eq!(v4_notch(200_000_000), 0x00);
        assert_eq!(v4_notch(1_090_000_000), 0x08);
    }
}
