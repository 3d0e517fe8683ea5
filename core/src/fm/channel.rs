//! Integer channel filter for wideband FM: cu8 at 2.4 MS/s straight to the
//! complex channel at 240 kS/s, with the frequency shift folded into the
//! taps (a frequency-translating decimator), in `i16 × i16 → i32`.
//!
//! # How
//!
//! The station sits at `offset` Hz. Shifting it to 0 Hz, low-pass
//! filtering with real taps `h[k]` and keeping every 10th sample is
//!
//! ```text
//! y[m] = Σₖ h[k] x[10m − k] e^{−jω(10m − k)}        ω = 2π·offset/fs
//!      = e^{−jω·10m} · z[m],   z[m] = Σₖ g[k] x[10m − k],   g[k] = h[k] e^{jωk}
//! ```
//!
//! so only every 10th output is computed, from the raw bytes, with complex
//! taps `g`, and no oscillator runs at the input rate. The leftover factor
//! `e^{−jω·10m}` turns the phase step of `z` by a constant `−10ω`, which
//! the discriminator subtracts ([`ChannelFilter::phase_step`]).
//!
//! Input bytes `b` become the odd integers `2b − 255` (the ADC's mid-code
//! 127.5 at 0; any DC residue of the dongle lies `offset` Hz away from the
//! station and is filtered out). Taps are quantised to `i16` with the
//! largest component at ±32000; the window of `N` complex samples and the
//! two tap rows (`[gᵣ, −gᵢ]` for the real part, `[gᵢ, gᵣ]` for the
//! imaginary part) are flat `i16` arrays, so each output is two integer
//! dot products that the compiler vectorises (`pmaddwd` on x86-64, `SMLAD`
//! on Cortex-M4/M7). Sums stay below 2²⁵ (|x| ≤ 255, Σ|g| < 2¹⁷·…): no
//! overflow for any input.
//!
//! # Filter
//!
//! Two lengths ([`Taps`]), Kaiser window for 80 dB, −6 dB at the
//! configured cutoff:
//!
//! - [`Taps::Fast`], 96 taps: the transition is 127 kHz wide (e.g. cutoff
//!   170 kHz: flat to about 106 kHz, 80 dB down from 234 kHz, so a station
//!   400 kHz away, whose modulation reaches down to about 272 kHz, is
//!   removed). The stereo channel and the Q15 receiver. 96 taps is the
//!   measured sweet spot for cost: 112 taps cost 14 instructions per input
//!   sample more (the loop no longer unrolls evenly), 128 taps 9 more.
//! - [`Taps::Sharp`], 192 taps: a 64 kHz transition, for the mono channel
//!   (−6 dB at 110 kHz: flat to about 78 kHz, 80 dB down from 142 kHz).
//!   Out of a 120 kHz channel of 96 taps, the FM sidebands beyond 56 kHz
//!   were already attenuated (THD −88 dB at CNR 50) while noise from
//!   120–184 kHz folded into the 240 kS/s channel. The sharp filter gains
//!   0.4 dB of mono SNR at CNR 40 (to within 0.1 dB of the f64 ideal
//!   receiver of `fm_vs_gnuradio`), nothing at CNR 20–8, and 21 dB of
//!   THD, for twice the channel filter's cost.

use crate::dsp::design::{kaiser_beta, lowpass};

/// Taps of the [`Taps::Fast`] channel filter (at 2.4 MS/s).
pub const TAPS: usize = 96;
/// Taps of the [`Taps::Sharp`] channel filter (at 2.4 MS/s).
pub const SHARP_TAPS: usize = 192;
const _: () = assert!(
    TAPS % 4 == 0 && SHARP_TAPS % TAPS == 0,
    "the dot products run in blocks of TAPS taps, each in chunks of 8 i16"
);
/// The longest filter: the size of the tap rows and of the history.
const MAX_TAPS: usize = SHARP_TAPS;
/// Stop-band attenuation of the Kaiser design, dB.
pub const ATTEN_DB: f64 = 80.0;
/// Input samples per output sample.
pub const DECIMATION: usize = 10;
/// Input samples per internal chunk.
const CHUNK_IN: usize = 480;
/// Room for the history kept between chunks (`taps − 1`).
const MAX_HIST: usize = MAX_TAPS - 1;

/// Length of a [`ChannelFilter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Taps {
    /// [`TAPS`] = 96 taps: 127 kHz transition.
    Fast,
    /// [`SHARP_TAPS`] = 192 taps: 64 kHz transition, twice the cost.
    Sharp,
}

impl Taps {
    /// The number of taps.
    pub const fn count(self) -> usize {
        match self {
            Taps::Fast => TAPS,
            Taps::Sharp => SHARP_TAPS,
        }
    }
}

/// Frequency-translating decimating channel filter, cu8 → complex `i32`
/// at a tenth of the input rate. State: [`ChannelFilterState`].
#[derive(Clone, Debug)]
pub struct ChannelFilter {
    /// `[gᵣ, −gᵢ]` per window position, oldest sample first (the first
    /// `taps.count()` entries; the rest are zero).
    re: [[i16; 2]; MAX_TAPS],
    /// `[gᵢ, gᵣ]` per window position, oldest sample first.
    im: [[i16; 2]; MAX_TAPS],
    taps: Taps,
    /// Phase step of `z` to subtract, radians per output sample, in
    /// `[−π, π)`.
    phase_step: f64,
    /// DC gain of the taps (output units per input unit, input units being
    /// `2b − 255`).
    gain: f64,
}

/// [`ChannelFilter`] state: the last `taps − 1` input samples and the
/// decimation phase (room for the longest filter, so one state type
/// serves both lengths).
#[derive(Clone, Debug)]
pub struct ChannelFilterState {
    buf: [[i16; 2]; MAX_HIST + CHUNK_IN],
    /// Input samples still to read before the next output.
    due: usize,
}

impl Default for ChannelFilterState {
    fn default() -> Self {
        Self {
            buf: [[0; 2]; MAX_HIST + CHUNK_IN],
            due: 0,
        }
    }
}

impl ChannelFilter {
    /// A [`Taps::Fast`] filter for a station `offset` cycles per input
    /// sample from the centre (|offset| ≤ 0.5) with its −6 dB point at
    /// `cutoff` cycles per input sample (0 < cutoff < 0.5).
    pub fn new(offset: f64, cutoff: f64) -> Self {
        Self::with_atten(offset, cutoff, ATTEN_DB)
    }

    /// [`new`](Self::new) with a Kaiser window for `atten_db` of stop-band
    /// attenuation.
    pub fn with_atten(offset: f64, cutoff: f64, atten_db: f64) -> Self {
        Self::design(offset, cutoff, atten_db, Taps::Fast)
    }

    /// [`new`](Self::new) with `taps` taps.
    pub fn with_taps(offset: f64, cutoff: f64, taps: Taps) -> Self {
        Self::design(offset, cutoff, ATTEN_DB, taps)
    }

    fn design(offset: f64, cutoff: f64, atten_db: f64, taps: Taps) -> Self {
        let n = taps.count();
        let mut h = [0.0f64; MAX_TAPS];
        let h = &mut h[..n];
        lowpass(h, cutoff, kaiser_beta(atten_db), 1.0);
        let peak = h.iter().fold(0.0f64, |a, &v| a.max(v.abs()));
        let scale = 32000.0 / peak;
        let mut re = [[0i16; 2]; MAX_TAPS];
        let mut im = [[0i16; 2]; MAX_TAPS];
        let w = 2.0 * core::f64::consts::PI * offset;
        for (j, (r, i)) in re[..n].iter_mut().zip(im[..n].iter_mut()).enumerate() {
            // Window position j holds x[10m − k] with k = n − 1 − j.
            let k = (n - 1 - j) as f64;
            let a = h[n - 1 - j] * scale;
            let gr = libm::round(a * libm::cos(w * k)) as i16;
            let gi = libm::round(a * libm::sin(w * k)) as i16;
            *r = [gr, gi.saturating_neg()];
            *i = [gi, gr];
        }
        let turns = offset * DECIMATION as f64;
        let frac = turns - libm::floor(turns + 0.5);
        Self {
            re,
            im,
            taps,
            phase_step: 2.0 * core::f64::consts::PI * frac,
            gain: scale,
        }
    }

    /// The constant phase step that the frequency shift leaves on the
    /// output, radians per output sample in `[−π, π)`: subtract it from
    /// `arg(z[m] z*[m−1])`.
    pub fn phase_step(&self) -> f64 {
        self.phase_step
    }

    /// DC gain: an input of constant value `v` (in units of `2b − 255`)
    /// at the station's frequency gives outputs of magnitude `gain · v`.
    pub fn gain(&self) -> f64 {
        self.gain
    }

    /// The filter's length.
    pub fn taps(&self) -> Taps {
        self.taps
    }

    /// The most outputs `input_len` samples can give: `⌈input_len / 10⌉`.
    pub fn max_output(&self, input_len: usize) -> usize {
        input_len.div_ceil(DECIMATION)
    }

    /// Filter `iq` and call `out(z)` for every output sample, `z = [re,
    /// im]`, in order. Identical for any split of the input.
    #[inline]
    pub fn process(
        &self,
        state: &mut ChannelFilterState,
        iq: &[[u8; 2]],
        out: impl FnMut([i32; 2]),
    ) {
        // One monomorphised loop per length: the dot products unroll over
        // a length known at compile time.
        match self.taps {
            Taps::Fast => self.run::<TAPS>(state, iq, out),
            Taps::Sharp => self.run::<SHARP_TAPS>(state, iq, out),
        }
    }

    /// [`process`](Self::process) for a filter of `N` taps, `N` =
    /// `self.taps().count()` (otherwise nothing is output): a caller that
    /// dispatches on [`taps`](Self::taps) itself gets its `out` inlined
    /// into each length's loop.
    #[inline]
    pub(crate) fn run<const N: usize>(
        &self,
        state: &mut ChannelFilterState,
        iq: &[[u8; 2]],
        mut out: impl FnMut([i32; 2]),
    ) {
        if N != self.taps.count() {
            return;
        }
        let hist = N - 1;
        let (Ok(a), Ok(b)) = (
            <&[[i16; 2]; N]>::try_from(&self.re[..N]),
            <&[[i16; 2]; N]>::try_from(&self.im[..N]),
        ) else {
            return;
        };
        for x in iq.chunks(CHUNK_IN) {
            let len = x.len();
            let fresh = state.buf[hist..hist + len].as_flattened_mut();
            for (d, &b) in fresh.iter_mut().zip(x.as_flattened()) {
                *d = b as i16 * 2 - 255;
            }
            let mut i = state.due;
            while i < len {
                let w = &state.buf[i..i + N];
                out(dot2(w, a, b));
                i += DECIMATION;
            }
            state.due = i - len;
            state.buf.copy_within(len..len + hist, 0);
        }
    }
}

/// The dot products of the window `x` with the tap rows `a` and `b`, in
/// `i32`, in blocks of [`TAPS`] taps: a block is a loop of fixed length,
/// which the compiler unrolls completely; a single loop over the 192 taps
/// of [`Taps::Sharp`] is not unrolled and costs half as much again
/// (measured).
#[inline]
fn dot2<const N: usize>(x: &[[i16; 2]], a: &[[i16; 2]; N], b: &[[i16; 2]; N]) -> [i32; 2] {
    let Ok(x) = <&[[i16; 2]; N]>::try_from(x) else {
        return [0, 0];
    };
    let (x, a, b) = (x.as_flattened(), a.as_flattened(), b.as_flattened());
    let mut out = [0i32; 2];
    for k in 0..N / TAPS {
        let r = 2 * TAPS * k..2 * TAPS * (k + 1);
        out[0] = out[0].wrapping_add(dot(&x[r.clone()], &a[r.clone()]));
        out[1] = out[1].wrapping_add(dot(&x[r.clone()], &b[r]));
    }
    out
}

/// Dot product in `i32` over whole chunks of 8: eight lanes, the shape
/// that compiles to `pmaddwd` (x86-64, AArch64 NEON likewise). Fusing
/// the two dot products of [`dot2`] into one loop defeats it (measured).
#[cfg(not(target_arch = "arm"))]
#[inline]
fn dot(x: &[i16], a: &[i16]) -> i32 {
    let mut acc = [0i32; 8];
    for (x, a) in x.chunks_exact(8).zip(a.chunks_exact(8)) {
        for l in 0..8 {
            acc[l] = acc[l].wrapping_add(x[l] as i32 * a[l] as i32);
        }
    }
    acc.iter().fold(0i32, |s, &v| s.wrapping_add(v))
}

/// Dot product in `i32` on 32-bit ARM (Cortex-M4/M7, ARMv7-A): one
/// accumulator, products in I/Q pairs, and a loop that stays a loop. LLVM's
/// parallel-DSP pass, which turns such pairs into `SMLAD` (two 16 × 16
/// multiply-accumulates and one 32-bit load per operand pair), works only
/// on loops; with the length known the loop is unrolled completely and
/// every tap costs `LDRSH`, `LDRSH`, `SMLABB`. The length therefore goes
/// through [`core::hint::black_box`], which costs a store and a load per
/// call and changes no result. Measured on a Cortex-M4F under QEMU
/// (`scripts/firmware`): the Q15 FM chain 170 → 119 instructions per
/// input sample, the `f32` one 161 → 110; the eight-lane form above, 191
/// and 179.
#[cfg(target_arch = "arm")]
#[inline]
fn dot(x: &[i16], a: &[i16]) -> i32 {
    let n = core::hint::black_box(x.len());
    let mut acc = 0i32;
    for (x, a) in x[..n].chunks_exact(2).zip(a.chunks_exact(2)) {
        acc = acc
            .wrapping_add(x[0] as i32 * a[0] as i32)
            .wrapping_add(x[1] as i32 * a[1] as i32);
    }
    acc
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// A complex tone at `f` cycles per sample, amplitude 100 codes.
    fn tone(f: f64, n: usize) -> Vec<[u8; 2]> {
        (0..n)
            .map(|k| {
                let p = 2.0 * core::f64::consts::PI * f * k as f64;
                [
                    libm::round(127.5 + 100.0 * libm::cos(p)) as u8,
                    libm::round(127.5 + 100.0 * libm::sin(p)) as u8,
                ]
            })
            .collect()
    }

    fn power(cf: &ChannelFilter, x: &[[u8; 2]]) -> f64 {
        let mut st = ChannelFilterState::default();
        let mut acc = 0.0;
        let mut n = 0usize;
        cf.process(&mut st, x, |z| {
            n += 1;
            if n > 20 {
                acc += (z[0] as f64).powi(2) + (z[1] as f64).powi(2);
            }
        });
        acc / (n - 20) as f64
    }

    /// |H(f)|² of the quantised taps at `f` cycles per input sample.
    fn response(cf: &ChannelFilter, f: f64) -> f64 {
        let (mut sr, mut si) = (0.0, 0.0);
        let n = cf.taps().count();
        for (j, (r, i)) in cf.re[..n].iter().zip(&cf.im[..n]).enumerate() {
            // Tap for delay k = n − 1 − j: g = r[0] + j·i[0].
            let k = (n - 1 - j) as f64;
            let (c, s) = (
                libm::cos(2.0 * core::f64::consts::PI * f * k),
                libm::sin(2.0 * core::f64::consts::PI * f * k),
            );
            let (gr, gi) = (r[0] as f64, i[0] as f64);
            // g · e^{−j2πfk}
            sr += gr * c + gi * s;
            si += gi * c - gr * s;
        }
        sr * sr + si * si
    }

    /// Check a filter for a station at −250 kHz: the gain as documented
    /// (a real tone through the bytes), flat within 0.1 dB at the offsets
    /// `flat_khz` from the station, −6 dB ± 0.5 at `cutoff_khz`, and more
    /// than 78 dB down from `stop_khz` to the band edges (quantised taps);
    /// returns the worst stop-band level, dB.
    fn check_response(cf: &ChannelFilter, flat_khz: &[f64], cutoff_khz: f64, stop_khz: f64) -> f64 {
        let p0 = power(cf, &tone(-250.0 / 2400.0, 24_000));
        let amp = libm::sqrt(p0) / (200.0 * cf.gain());
        assert!((amp - 1.0).abs() < 0.01, "amplitude {amp}");
        let h0 = response(cf, -250.0 / 2400.0);
        let db = |f_khz: f64| 10.0 * libm::log10(response(cf, (f_khz - 250.0) / 2400.0) / h0);
        for &f in flat_khz {
            assert!(db(f).abs() < 0.1, "{f} kHz: {} dB", db(f));
        }
        let c = db(cutoff_khz);
        assert!((c + 6.0).abs() < 0.5, "cutoff: {c} dB");
        let mut worst = f64::NEG_INFINITY;
        for k in 0..=1000 {
            let f = stop_khz + (1200.0 - stop_khz) * k as f64 / 1000.0;
            worst = worst.max(db(f)).max(db(-f));
        }
        assert!(worst < -78.0, "stop band {worst:.1} dB");
        worst
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_passband_and_stopband() {
        // Cutoff 170 kHz: flat to ±100 kHz, 80 dB down from 234 kHz.
        let cf = ChannelFilter::new(-250.0 / 2400.0, 170.0 / 2400.0);
        let worst = check_response(&cf, &[-100.0, -50.0, 50.0, 100.0], 170.0, 234.0);
        std::eprintln!("channel filter: worst stop band {worst:.1} dB");
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_sharp_passband_and_stopband() {
        // The mono channel, cutoff 110 kHz: flat over the ±75 kHz of
        // deviation, 80 dB down from 142 kHz (half the fast filter's
        // transition).
        let cf = ChannelFilter::with_taps(-250.0 / 2400.0, 110.0 / 2400.0, Taps::Sharp);
        assert_eq!(cf.taps(), Taps::Sharp);
        let worst = check_response(&cf, &[-75.0, -40.0, 40.0, 75.0], 110.0, 142.0);
        std::eprintln!("sharp channel filter: worst stop band {worst:.1} dB");
        // The fast filter with the same cutoff is still 30 dB above that
        // there (its transition is twice as wide).
        let fast = ChannelFilter::new(-250.0 / 2400.0, 110.0 / 2400.0);
        let hf = response(&fast, -250.0 / 2400.0);
        let fast_db = 10.0 * libm::log10(response(&fast, -108.0 / 2400.0) / hf);
        assert!(fast_db > -50.0, "fast filter at 142 kHz: {fast_db:.1} dB");
    }

    #[test]
    fn test_phase_step() {
        let cf = ChannelFilter::new(-250.0 / 2400.0, 0.07);
        // −250 kHz seen at 240 kS/s is −10 kHz: −1/24 turn per sample.
        let want = -2.0 * core::f64::consts::PI / 24.0;
        assert!((cf.phase_step() - want).abs() < 1e-12);
    }

    /// 3000 samples of a fixed pattern give 300 outputs, the same when the
    /// input is split at `cuts`.
    fn assert_split_free(cf: &ChannelFilter, cuts: &[usize]) {
        let x: Vec<[u8; 2]> = (0..3000u32)
            .map(|k| [(k * 37 % 256) as u8, (k * 101 % 256) as u8])
            .collect();
        let run = |cuts: &[usize]| {
            let mut st = ChannelFilterState::default();
            let mut y = Vec::new();
            let mut start = 0;
            for &end in cuts.iter().chain(&[x.len()]) {
                cf.process(&mut st, &x[start..end], |z| y.push(z));
                start = end;
            }
            y
        };
        let whole = run(&[]);
        assert_eq!(whole.len(), 300);
        assert_eq!(run(cuts), whole);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_same_for_any_split() {
        let cf = ChannelFilter::new(0.1, 0.07);
        assert_split_free(&cf, &[1, 9, 10, 11, 499, 1000, 2999]);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_sharp_same_for_any_split_and_longer_memory() {
        let cf = ChannelFilter::with_taps(0.1, 0.05, Taps::Sharp);
        assert_split_free(&cf, &[1, 9, 10, 11, 479, 480, 481, 1000, 2999]);
        // An impulse is seen for 192 input samples: 19 or 20 outputs.
        let mut imp = [[128u8, 128]; 600];
        imp[100] = [255, 128];
        let mut st = ChannelFilterState::default();
        let mut hits = 0;
        let base = {
            let mut st0 = ChannelFilterState::default();
            let mut v = Vec::new();
            cf.process(&mut st0, &[[128u8, 128]; 600], |z| v.push(z));
            v
        };
        let mut k = 0;
        cf.process(&mut st, &imp, |z| {
            if z != base[k] {
                hits += 1;
            }
            k += 1;
        });
        assert!((19..=20).contains(&hits), "{hits} outputs see the impulse");
    }
}
