//! Preamble detection: the noise floor, the per-sample trigger, the
//! whole-sample (coarse) check, and the fine search over tick phases
//! (score and pulse centroids).

use super::history::DemodState;
use super::{CHUNK, DATA_START, Demodulator, HALF, PREAMBLE_PULSES, SPAN};

/// log2 of the chunks the noise floor is averaged over
/// ([`Demodulator::update_noise`]).
const NOISE_AVG_LOG2: u32 = 5;

/// Window of samples `[first, end)` relative to `j` holding the tick span
/// `[a, b)` + `p` for every `p` in `0..tps` (superset).
pub(super) const fn superset(a: usize, b: usize, tps: usize) -> (u8, u8) {
    ((a / tps) as u8, (b + tps - 1).div_ceil(tps) as u8)
}

/// Window of samples `[first, end)` lying inside `[a, b)` + `p` for every
/// `p` in `0..tps` (subset).
pub(super) const fn subset(a: usize, b: usize, tps: usize) -> (u8, u8) {
    ((a + tps - 1).div_ceil(tps) as u8, (b / tps) as u8)
}

impl Demodulator {
    /// Track the noise floor from every 16th sample of `[j, j + CHUNK)`: a
    /// stochastic-approximation tracker of the 25th percentile `q` of the
    /// power (16 samples per chunk, target 4 below; kept ×16), fairly
    /// robust to a channel busy with replies (half of the half-bits inside
    /// a reply hold only noise). For exponentially distributed noise power
    /// the mean is `q / ln(4/3)` ≈ 3.5 `q`; with many replies on the air
    /// the estimate runs high (≈ 1.4× at 60 % occupancy).
    ///
    /// The tracker wanders: with 16 samples a chunk and steps of up to a
    /// quarter, `3.5·q` on receiver noise moves by ±18 % (1 σ) from one
    /// millisecond to the next, and every threshold with it. The floor
    /// used is therefore its mean over the last `2^NOISE_AVG_LOG2` = 32
    /// chunks (a first-order average, 3.4 ms at 2.4 MS/s): ±6 % on the
    /// same noise, the same mean level, and a 6 dB step
    /// followed within 10 ms (90 % in the test). On the 250 replies/s scene of
    /// `modes_vs_dump1090` the steady floor finds 52.1 % of the replies at
    /// 8–12 dB where the wandering one found 49.0 %: a weak reply's
    /// preamble no longer meets thresholds set a sixth too high.
    pub(super) fn update_noise(&self, st: &mut DemodState, j: usize) {
        let Some(w) = st.c.get(j..=j + CHUNK) else {
            return;
        };
        if st.q16 == 0 {
            // First chunk: start from the 25th percentile of its 16 samples.
            let mut v = [0u32; CHUNK / 16];
            for (v, k) in v.iter_mut().zip((0..CHUNK).step_by(16)) {
                *v = w[k + 1].wrapping_sub(w[k]);
            }
            v.sort_unstable();
            st.q16 = v[CHUNK / 64].saturating_mul(16).clamp(16, 1 << 27);
        } else {
            let q = st.q16;
            let below = (0..CHUNK)
                .step_by(16)
                .filter(|&k| w[k + 1].wrapping_sub(w[k]).saturating_mul(16) < q)
                .count() as u32;
            // Up by up to 25 %, down by up to 75 % per chunk.
            st.q16 = if below > 4 {
                q - q * (below - 4) / 16
            } else {
                q + (q * (4 - below) / 16).max(1)
            }
            .clamp(16, 1 << 27);
        }
        // 3.5·q, averaged over the last 2^NOISE_AVG_LOG2 chunks (×256).
        let now = u64::from(st.q16) * 7 * 8;
        st.noise256 = if st.noise256 == 0 {
            now
        } else {
            st.noise256 - (st.noise256 >> NOISE_AVG_LOG2) + (now >> NOISE_AVG_LOG2)
        };
        st.noise = st.noise256.div_ceil(256).min(u64::from(u32::MAX)) as u32;
        let at = |q4: u16| {
            let t = (u64::from(st.noise) * u64::from(q4)) >> 4;
            // Never below 8 units per window sample (quantisation noise is 4).
            (t.min(u64::from(u32::MAX)) as u32).max(8 * u32::from(self.trig_win))
        };
        st.strict = at(self.trigger_q4);
        st.threshold = if st.quiet {
            at(self.trigger_q4.min(self.quiet_trigger_q4))
        } else {
            st.strict
        };
    }
}

/// [`trigger`] over `[k, end)` of the state's history at its thresholds
/// (the quiet-channel ones if they are on).
#[inline(always)]
pub(super) fn trigger_in<const T: usize>(
    st: &DemodState,
    k: usize,
    end: usize,
) -> (Option<usize>, u64) {
    let t = (st.threshold, st.strict);
    if st.quiet {
        trigger::<T, true>(&st.c, k, end, t)
    } else {
        trigger::<T, false>(&st.c, k, end, t)
    }
}

/// Samples of the trigger window: those that can hold the first preamble
/// pulse `[p, p + 6)` ticks for any phase `p` in `0..t` (2 at 2.0 and
/// 2.4 MS/s).
pub(super) const fn trigger_window(t: usize) -> usize {
    (t - 1 + HALF).div_ceil(t)
}

/// First `d` such that, for `j = k + d < end`:
/// - the energy `p₁` of samples `[j, j + w)` exceeds `t` (the per-sample
///   trigger, tested on blocks of 8 positions so that it vectorises),
/// - the energy `q` of the samples wholly inside the 1.5–3.5 µs gap is
///   below half the pulse level, `q/n_q < p₁/w/2` (rejects the pulses inside
///   replies),
/// - the best `w`-sample window of pulse 3 reaches a quarter of `p₁` (a
///   pulse split over two samples keeps only about 0.72 of its power, and
///   noise varies both),
/// - with `QUIET` (the quiet-channel trigger `t` is below `strict`), if
///   `p₁` is not above `strict`, `p₁` and that window together exceed
///   `2·strict`: pulses 1 and 3 average above the strict trigger, one of
///   them faded (without it, noise positions passing the lower trigger
///   cost twice as much). Without `QUIET`, `strict` is not read.
///
/// Returns `(d, positions passing the first two tests)`.
#[inline]
pub(super) fn trigger<const T: usize, const QUIET: bool>(
    c: &[u32],
    k: usize,
    end: usize,
    (t, strict): (u32, u32),
) -> (Option<usize>, u64) {
    let w = const { trigger_window(T) };
    let (g0, g1) = const {
        let (a, b) = subset(18, 42, T);
        (a as usize, b as usize)
    };
    let (a3, b3) = const {
        let (a, b) = superset(42, 48, T);
        (a as usize, b as usize)
    };
    let check = |s: &[u32], i: usize| -> bool {
        let Some(v) = s.get(i..=i + b3) else {
            return false;
        };
        let p1 = v[w].wrapping_sub(v[0]);
        let mut e3 = 0;
        let mut x = a3;
        while x + w <= b3 {
            e3 = e3.max(v[x + w].wrapping_sub(v[x]));
            x += 1;
        }
        let (p1, e3) = (u64::from(p1), u64::from(e3));
        4 * e3 > p1 && (!QUIET || p1 > u64::from(strict) || p1 + e3 > 2 * u64::from(strict))
    };
    let mut seen = 0;
    let Some(n) = end.checked_sub(k) else {
        return (None, 0);
    };
    let Some(s) = c.get(k..end + b3.max(g1) + 1) else {
        return (None, 0);
    };
    // q < p₁·n_q/(2w), with n_q/(2w) rounded up to quarters and applied by
    // shifts (3/4 at 2.0 and 2.4 MS/s, exact).
    let quarters = const {
        let (a, b) = subset(18, 42, T);
        (4 * (b - a) as usize).div_ceil(2 * trigger_window(T))
    };
    let pass = |x: u32, y: u32, q0: u32, q1: u32| -> bool {
        let p1 = y.wrapping_sub(x);
        let q = q1.wrapping_sub(q0);
        let lim = match quarters {
            0..=3 => p1 - (p1 >> 2),
            4 => p1,
            5 => p1.saturating_add(p1 >> 2),
            6 | 7 => p1.saturating_add(p1 >> 1),
            _ => p1.saturating_mul(2),
        };
        (p1 > t) & (q < lim)
    };
    let mut base = 0;
    let (Some(xs), Some(ys)) = (s.get(..n), s.get(w..n + w)) else {
        return (None, 0);
    };
    let mut x8 = xs.chunks_exact(8);
    let mut y8 = ys.chunks_exact(8);
    for (x, y) in (&mut x8).zip(&mut y8) {
        let mut any = false;
        for i in 0..8 {
            any |= y[i].wrapping_sub(x[i]) > t;
        }
        if any {
            for i in 0..8 {
                if y[i].wrapping_sub(x[i]) > t {
                    let j = base + i;
                    let (Some(&q0), Some(&q1)) = (s.get(j + g0), s.get(j + g1)) else {
                        continue;
                    };
                    if pass(x[i], y[i], q0, q1) {
                        seen += 1;
                        if check(s, j) {
                            return (Some(j), seen);
                        }
                    }
                }
            }
        }
        base += 8;
    }
    for (i, (&x, &y)) in x8.remainder().iter().zip(y8.remainder()).enumerate() {
        let j = base + i;
        let (Some(&q0), Some(&q1)) = (s.get(j + g0), s.get(j + g1)) else {
            continue;
        };
        if pass(x, y, q0, q1) {
            seen += 1;
            if check(s, j) {
                return (Some(j), seen);
            }
        }
    }
    (None, seen)
}

/// Whole-sample preamble check on the window `c` starting at the trigger
/// sample: pulse 1 (the trigger window) must average above 2 × the quiet
/// windows' mean, pulses 2–4 (the best trigger-sized window inside each
/// superset window) above 1.5 ×.
#[inline]
pub(super) fn coarse_ok<const T: usize>(c: &[u32]) -> bool {
    let w = const { trigger_window(T) };
    let q0 = const { subset(18, 42, T) };
    let q1 = const { subset(60, 96, T) };
    let pulses = const {
        [
            superset(12, 18, T),
            superset(42, 48, T),
            superset(54, 60, T),
        ]
    };
    let Some(c) = c.get(..=DATA_START) else {
        return false;
    };
    let e = |a: u8, b: u8| u64::from(c[usize::from(b)].wrapping_sub(c[usize::from(a)]));
    let q = e(q0.0, q0.1) + e(q1.0, q1.1);
    let nq = u64::from(q0.1 - q0.0 + q1.1 - q1.0);
    let w8 = w as u8;
    // p/n > 2·q/nq  ⇔  p·nq > 2·q·n
    if e(0, w8) * nq <= 2 * q * w as u64 {
        return false;
    }
    pulses.iter().all(|&(a, b)| {
        let mut best = 0u64;
        let mut k = a;
        while k + w8 <= b {
            best = best.max(e(k, k + w8));
            k += 1;
        }
        2 * best * nq > 3 * q * w as u64
    })
}

/// Ticks of the power integral kept for the preamble search.
pub(super) const U_LEN: usize = SPAN * 6 + DATA_START + 1;

/// `u[x] = G(x) − G(0)` for the first [`U_LEN`] ticks of the window `c`:
/// the integral of the power over ticks `[0, x)`, built by adding each
/// sample's power once per tick (`G(x + 1) = G(x) + m[⌊x/T⌋]`).
#[inline]
pub(super) fn tick_integral<const T: usize>(c: &[u32]) -> Option<[u32; U_LEN]> {
    let mut u = [0u32; U_LEN];
    let c = c.get(..U_LEN.div_ceil(T) + 1)?;
    let mut acc = 0u32;
    let mut x = 1;
    for p in c.windows(2) {
        let m = p[1].wrapping_sub(p[0]);
        for _ in 0..T {
            if let Some(v) = u.get_mut(x) {
                acc = acc.wrapping_add(m);
                *v = acc;
            }
            x += 1;
        }
    }
    Some(u)
}

/// Score of a preamble starting at tick `p` of the tick integral `u`, or
/// `None` if its four pulses do not all stand out; with the mean pulse
/// energy. `noise6` is the noise floor integrated over a half-bit; `quiet`
/// admits a preamble with a faded pulse (module `quiet`).
#[inline]
pub(super) fn preamble_score(
    u: &[u32; U_LEN],
    p: usize,
    noise6: u64,
    quiet: bool,
) -> Option<(i64, u32)> {
    const AT: [usize; 9] = [0, 6, 12, 18, 42, 48, 54, 60, 96];
    let v = u.get(p..=p + DATA_START)?;
    let d = |a: usize, b: usize| u64::from(v[AT[b]].wrapping_sub(v[AT[a]]));
    let e = [d(0, 1), d(2, 3), d(4, 5), d(6, 7)];
    let q_short = d(1, 2) + d(5, 6); // 12 ticks
    let q_long = d(3, 4) + d(7, 8); // 60 ticks
    let emin = e.iter().copied().min().unwrap_or(0);
    let esum: u64 = e.iter().sum();
    // The receiver's filter smears pulses into the 0.5 µs gaps, so only
    // the long gaps serve as the quiet reference:
    // each pulse (6 ticks) above 1.5 × their mean: emin/6 > 1.5·q_long/60,
    // the short gaps below twice the pulse mean, q_short/12 < 2·esum/24
    // (at 2 MS/s, sampled half a sample off, they are as loud as the
    // pulses),
    // the pulses above 2.5 × the noise floor (replies weaker than ~8 dB do
    // not decode by slicing). On a quiet channel a preamble with a pulse
    // faded by the noise passes too, each pulse above 1.25 × the floor, if
    // its mean pulse is above 3.5 × the floor: the quiet channel's second
    // chances (the coherent one above all) read some of those (module
    // `quiet`).
    if 20 * emin <= 3 * q_long || q_short >= esum {
        return None;
    }
    let faded = || quiet && 4 * emin > 5 * noise6 && esum > 14 * noise6;
    if 2 * emin <= 5 * noise6 && !faded() {
        return None;
    }
    Some((esum as i64 - 2 * q_short as i64, (esum / 4) as u32))
}

/// Preamble start (tick of the window) from the amplitude centroids of the
/// four pulses around the rough start `p`: each pulse's samples within half
/// a pulse of it, weighted by `√m − √noise`, have their centres averaged;
/// the pulse centre lies 3 ticks after its start. With a box (or any
/// symmetric) response the amplitude centroid is unbiased whatever the
/// sub-sample phase, unlike the power-based score, which at 2 MS/s is
/// linear within a sample. Returns `None` if the pulses carry no amplitude.
pub(super) fn centroid_phase<const T: usize>(c: &[u32], p: usize, noise: u32) -> Option<usize> {
    let floor = libm::sqrtf(noise as f32);
    let (mut sw, mut swx) = (0.0f32, 0.0f32);
    for o in PREAMBLE_PULSES {
        let a = (p + o).saturating_sub(3) / T;
        let b = (p + o + 9).div_ceil(T);
        for i in a..b {
            let m = c.get(i + 1)?.wrapping_sub(*c.get(i)?);
            let amp = (libm::sqrtf(m as f32) - floor).max(0.0);
            // Centre of sample i minus the pulse-centre offset.
            let x = (i * T) as f32 + 0.5 * T as f32 - (o + 3) as f32;
            sw += amp;
            swx += amp * x;
        }
    }
    if sw <= 0.0 {
        return None;
    }
    let t = swx / sw;
    let hi = (SPAN * T - 1) as f32;
    Some((t + 0.5).clamp(0.0, hi) as usize)
}

#[cfg(test)]
mod test {
    use super::*;

    /// The noise floor of one second of receiver noise (σ = 3 LSB per
    /// component, as a dongle's at moderate gain), read every
    /// millisecond after the first 20: its mean within 10 % of the mean
    /// power, its wander under 10 % (1 σ; 18 % before it was averaged
    /// over chunks). Then the noise doubles in σ (a 6 dB gain step): the
    /// floor is within 20 % of the new level 10 ms later.
    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_noise_floor_is_steady_and_follows_a_step() {
        extern crate std;
        use super::super::testkit::{Filter, Modulator};
        use super::super::{DemodState, Demodulator};
        use std::vec::Vec;
        let rate = 2_400_000;
        let ms = 2400;
        let mut quiet = Modulator::new(rate, 3.0, 11, 1000 * ms).bytes();
        let loud = Modulator::new(rate, 6.0, 12, 30 * ms).bytes();
        let power = |b: &[u8]| -> f64 {
            let sq = |x: u8| f64::from(5 * i32::from(x) - 637).powi(2);
            b.chunks(2).map(|p| sq(p[0]) + sq(p[1])).sum::<f64>() / (b.len() / 2) as f64
        };
        let (p_quiet, p_loud) = (power(&quiet), power(&loud));
        quiet.extend_from_slice(&loud);
        let d = Demodulator::new(rate).unwrap();
        let mut st = DemodState::new();
        let mut filter = Filter::new(Filter::DEFAULT_TTL);
        let mut floor = Vec::new();
        for b in quiet.chunks(2 * ms) {
            d.process(&mut st, &mut filter, b, |_| {});
            floor.push(f64::from(st.noise));
        }
        let settled = &floor[20..1000];
        let mean = settled.iter().sum::<f64>() / settled.len() as f64;
        let sd =
            (settled.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / settled.len() as f64).sqrt();
        std::eprintln!(
            "floor {mean:.0} ± {:.1} % against a mean power of {p_quiet:.0}; 10 ms after the step {} against {p_loud:.0}",
            100.0 * sd / mean,
            floor[1010]
        );
        assert!(
            (mean / p_quiet - 1.0).abs() < 0.1,
            "{mean} against {p_quiet}"
        );
        assert!(sd < 0.1 * mean, "wander {sd} of {mean}");
        assert!(
            (floor[1010] / p_loud - 1.0).abs() < 0.2,
            "{} against {p_loud}",
            floor[1010]
        );
    }

    #[test]
    fn test_window_geometry() {
        // 2.4 MS/s: 1.2 samples per half-bit.
        assert_eq!(trigger_window(5), 2);
        assert_eq!(subset(18, 42, 5), (5, 8));
        assert_eq!(superset(42, 48, 5), (8, 11));
        // 2.0 MS/s: one sample per half-bit.
        assert_eq!(trigger_window(6), 2);
        assert_eq!(subset(18, 42, 6), (4, 7));
        assert_eq!(superset(42, 48, 6), (7, 9));
        assert_eq!(trigger_window(1), 6);
    }

    /// Prefix sums of 40 samples of power 1 with pulse 1 (samples 0–1,
    /// `p1` in all) and pulse 3 (samples 8–9, `e3`) at 2.4 MS/s.
    fn preamble(p1: u32, e3: u32) -> [u32; 41] {
        let mut m = [1u32; 40];
        m[..2].fill(p1 / 2);
        m[8..10].fill(e3 / 2);
        let mut c = [0u32; 41];
        for k in 0..40 {
            c[k + 1] = c[k] + m[k];
        }
        c
    }

    /// The quiet-channel trigger (40 against a strict 60) takes a faded
    /// pulse 1 only if pulses 1 and 3 together pass twice the strict
    /// trigger; a pulse 1 above the strict trigger needs only the usual
    /// pulse-3 test; the strict trigger ignores the faded one.
    #[test]
    fn test_quiet_trigger_pairs_pulses_1_and_3() {
        let at0 = |c: &[u32], quiet: bool| {
            let (t, strict) = if quiet { (40, 60) } else { (60, 60) };
            let (found, _) = if quiet {
                trigger::<5, true>(c, 0, 1, (t, strict))
            } else {
                trigger::<5, false>(c, 0, 1, (t, strict))
            };
            found == Some(0)
        };
        // Faded pulse 1 (50), strong pulse 3: 50 + 80 > 120.
        assert!(at0(&preamble(50, 80), true));
        assert!(!at0(&preamble(50, 80), false));
        // Faded pulse 1, pulse 3 too weak for the pair: 50 + 60 ≤ 120.
        assert!(!at0(&preamble(50, 60), true));
        // Pulse 1 above the strict trigger: the pulse-3 test alone
        // (4·20 > 70).
        assert!(at0(&preamble(70, 20), true));
        assert!(at0(&preamble(70, 20), false));
        assert!(!at0(&preamble(70, 16), true));
    }

    /// Tick integral of a preamble at tick 0 over noise of 1 per tick:
    /// pulses 1–3 of `strong` per half-bit, pulse 4 of `faded`.
    fn ticks(strong: u32, faded: u32) -> [u32; U_LEN] {
        let mut u = [0u32; U_LEN];
        for t in 1..U_LEN {
            let pulse = PREAMBLE_PULSES
                .iter()
                .position(|&a| (a..a + 6).contains(&(t - 1)));
            let e = match pulse {
                Some(3) => faded / 6,
                Some(_) => strong / 6,
                None => 1,
            };
            u[t] = u[t - 1] + e;
        }
        u
    }

    /// The fine check takes a faded pulse (12 per half-bit over noise of 6:
    /// below 2.5 ×, above 1.25 ×) only on a quiet channel and only if
    /// the four pulses average above 3.5 × the noise.
    #[test]
    fn test_faded_pulse_needs_quiet_and_a_strong_mean() {
        let noise6 = 6;
        let ok = |strong, faded, quiet| {
            preamble_score(&ticks(strong, faded), 0, noise6, quiet).is_some()
        };
        assert!(ok(42, 42, false) && ok(42, 42, true));
        assert!(!ok(42, 12, false));
        assert!(ok(42, 12, true), "mean (3·42 + 12)/4 > 21");
        assert!(ok(30, 12, true), "mean (3·30 + 12)/4 > 21");
        assert!(!ok(30, 12, false));
        assert!(!ok(24, 12, true), "mean (3·24 + 12)/4 ≤ 21");
        assert!(!ok(42, 6, true), "below 1.25 ×");
    }
}
