//! The scan over the history: every trigger position goes through the
//! coarse and fine preamble checks, slicing, validation, repair and the
//! MLSE second chance; a valid frame goes to the sink and feeds the
//! address filter.

use super::cancel::Evidence;
use super::coherent::Budget;
use super::history::DemodState;
use super::mlse::Prior;
use super::preamble::{
    U_LEN, centroid_phase, coarse_ok, preamble_score, tick_integral, trigger_in,
};
use super::quiet::{QUIET_CHANCE_LEVEL, QUIET_COHERENT_FACTOR};
use super::sequence::{Amplitudes, MAX_SAMPLES, Rejected, fit_phase, sequence_fit, sequence_slice};
use super::slicer::{Slice, slice};
use super::{
    AddressFilter, CHUNK, DATA_START, DemodFrame, Demodulator, FRAME_TICKS, HALF, LONG, MIN_T,
    SPAN, TICK_HZ, cancel, coherent, crc,
};

/// A decoded frame, its bit count, and the evidence of other energy
/// under it when the slice's energies were measured (not synthetic).
type Found = (DemodFrame, usize, Option<Evidence>);

/// Phases tried per preamble before repair.
const TRIES: usize = 3;

impl Demodulator {
    /// Scan every trigger position whose look-ahead has arrived.
    pub(super) fn scan<const N: usize, F: FnMut(&DemodFrame)>(
        &self,
        st: &mut DemodState,
        filter: &mut AddressFilter<N>,
        sink: &mut F,
    ) {
        match self.tps {
            1 => self.scan_t::<1, N, F>(st, filter, sink),
            2 => self.scan_t::<2, N, F>(st, filter, sink),
            3 => self.scan_t::<3, N, F>(st, filter, sink),
            4 => self.scan_t::<4, N, F>(st, filter, sink),
            5 => self.scan_t::<5, N, F>(st, filter, sink),
            _ => self.scan_t::<6, N, F>(st, filter, sink),
        }
    }

    /// [`scan`](Self::scan) at `T` ticks per sample (a constant, so that
    /// divisions by it compile to multiplies).
    fn scan_t<const T: usize, const N: usize, F: FnMut(&DemodFrame)>(
        &self,
        st: &mut DemodState,
        filter: &mut AddressFilter<N>,
        sink: &mut F,
    ) {
        let look = usize::from(self.look);
        while st.scan + look < st.len {
            let j = st.scan;
            let abs = st.base + j as u64;
            if abs >= st.next_chunk {
                self.update_load(st, abs);
                self.update_noise(st, j);
                st.next_chunk = (abs / CHUNK as u64 + 1) * CHUNK as u64;
            }
            let end = (st.len - look).min(j + (st.next_chunk - abs) as usize);
            let (found, seen) = trigger_in::<T>(st, j, end);
            st.stats.triggers += seen;
            let found = found.map(|d| j + d);
            match found {
                None => st.scan = end,
                Some(jj) => {
                    st.scan = jj + 1;
                    st.stats.gap += 1;
                    if let Some(found) = self.fine::<T, N>(st, jj, filter) {
                        let next = self.accept::<T, N, F>(st, jj, found, filter, sink);
                        st.scan = next.max(jj + 1);
                    }
                }
            }
        }
    }

    /// Fine preamble search over the tick phases of samples `j .. j+SPAN`,
    /// then slicing, validation and repair: the frame and its bit count.
    fn fine<const T: usize, const N: usize>(
        &self,
        st: &mut DemodState,
        j: usize,
        filter: &AddressFilter<N>,
    ) -> Option<Found> {
        let look = usize::from(self.look);
        let c = st.c.get(j..=j + look)?;
        if !coarse_ok::<T>(c) {
            return None;
        }
        st.stats.coarse += 1;
        // Best phases by score, highest first.
        let mut best: [(i64, usize, u32); TRIES] = [(i64::MIN, 0, 0); TRIES];
        let noise6 = u64::from(st.noise) * HALF as u64;
        let u = tick_integral::<T>(c)?;
        for p in 0..SPAN * T {
            let Some((s, level)) = preamble_score(&u, p, noise6, st.quiet) else {
                continue;
            };
            if let Some(k) = best.iter().position(|b| s > b.0) {
                best.copy_within(k..TRIES - 1, k + 1);
                best[k] = (s, p, level);
            }
        }
        if best[0].0 == i64::MIN {
            return None;
        }
        st.stats.preambles += 1;
        let abs0 = (st.base + j as u64) * T as u64;
        // Skip a preamble already tried from the previous trigger.
        if abs0 + best[0].1 as u64 == st.last_fail {
            return None;
        }
        // Phases to try: the pulse centroid first (sub-sample timing that
        // the piecewise-linear score cannot give at 2 MS/s), then the best
        // scores.
        let level0 = best[0].2;
        let mut tries = [(0usize, 0u32); TRIES + 1];
        let mut nt = 0;
        if let Some(pc) = centroid_phase::<T>(c, best[0].1, st.noise) {
            tries[0] = (pc, level0);
            nt = 1;
        }
        for &(s, p, level) in best.iter() {
            if s != i64::MIN && !tries[..nt].iter().any(|t| t.0 == p) {
                tries[nt] = (p, level);
                nt += 1;
            }
        }
        // The first two slices (normally the centroid and the best score)
        // are kept for the second chances.
        let mut kept: [Option<(usize, u32, Slice)>; 2] = [None, None];
        for &(p, level) in &tries[..nt] {
            let Some(sl) = slice::<T>(c, p + DATA_START, level / 4, !filter.is_empty()) else {
                continue;
            };
            st.stats.sliced += 1;
            let ts = abs0 + p as u64;
            if let Some(f) = self.validate(&sl, sl.bytes, 0, ts, p, T, filter) {
                return Some(self.found(f, &sl, &u, p));
            }
            if let Some(slot) = kept.iter_mut().find(|k| k.is_none()) {
                *slot = Some((p, level, sl));
            }
        }
        // Repair, on both kept slices.
        for (p, _, sl) in kept.iter().flatten() {
            if let Some(f) = self.repair(sl, abs0 + *p as u64, *p, T, filter) {
                return Some(self.found(f, sl, &u, *p));
            }
        }
        let first = kept[0].as_ref().map(|(p, _, sl)| (*p, sl.bytes));
        // The second chances read replies whose pulses average above 5 ×
        // the noise floor; on a quiet channel above 3 × (module `quiet`).
        let chance = if st.quiet { QUIET_CHANCE_LEVEL } else { 5 };
        if self.mlse && u64::from(level0) > chance * noise6 {
            // Sequence estimation on the half-bit energies of the first
            // slice kept (the centroid timing): cheap, and it copes with a
            // weaker reply overlapping this one.
            if let Some(&(p, level, ref sl)) = kept.iter().flatten().next() {
                let ts = abs0 + p as u64;
                if u64::from(level) > 5 * noise6 {
                    if let Some(sl2) = sl.mlse(&Prior::from_preamble(&u, p, T, st.noise)) {
                        if let Some(f) = self
                            .validate(&sl2, sl2.bytes, 0, ts, p, T, filter)
                            .or_else(|| self.repair(&sl2, ts, p, T, filter))
                        {
                            st.stats.mlse += 1;
                            return Some(self.found(f, &sl2, &u, p));
                        }
                    }
                }
            }
            // Sequence estimation on the sample amplitudes, at the timing
            // of the best box fit to the preamble or a tick either side
            // (whether or not a plain slice passed its checks: straddled
            // replies often fail them). Each preamble once; the next
            // timings only if the first looks like a reply. The first
            // bits are read at each timing, the whole reply only at the
            // one whose first bits the model fits best.
            let fitted = fit_phase::<T>(c, st.noise).filter(|&q| {
                let fresh = abs0 + q as u64 != st.last_sequence;
                st.last_sequence = abs0 + q as u64;
                fresh
            });
            let near = fitted
                .into_iter()
                .flat_map(|q| [q, q.wrapping_sub(1), q + 1]);
            let ap = !filter.is_empty();
            // Read in full: the timing whose first bits fit best, and the
            // fitted timing too if that is another.
            let mut reads: [Option<(f32, usize)>; 2] = [None, None];
            for (i, pf) in near.filter(|&q| q < SPAN * T).enumerate() {
                match sequence_fit::<T>(c, Amplitudes::Power, pf, st.noise, ap) {
                    Ok(fit) if i == 0 => reads[0] = Some((fit, pf)),
                    Ok(fit) if reads[1].is_none_or(|(best, _)| fit < best) => {
                        reads[1] = Some((fit, pf));
                    }
                    Ok(_) => {}
                    Err(Rejected::NotReply) => break,
                    Err(_) => continue,
                }
            }
            if let [Some(q), Some(side)] = reads {
                if side.0 < q.0 {
                    reads = [Some(side), Some(q)];
                } else {
                    reads[1] = None;
                }
            }
            for (_, pf) in reads.into_iter().flatten() {
                let Ok(sl2) = sequence_slice::<T>(c, Amplitudes::Power, pf, st.noise, ap) else {
                    continue;
                };
                let ts = abs0 + pf as u64;
                if let Some(f) = self.sequence_frame::<T, N>(&sl2, ts, pf, filter) {
                    st.stats.sequence += 1;
                    return Some((f, sl2.n, None));
                }
            }
            // The coherent reading, from the first plain slice's bits, at
            // the fitted timing or that slice's.
            if let Some(first) = first {
                let p = fitted.unwrap_or(first.0);
                if let Some(found) = self.coherent::<T, N>(st, j, p, first, filter) {
                    return Some(found);
                }
            }
        }
        st.last_fail = abs0 + best[0].1 as u64;
        None
    }

    /// The frame of a slice `sl` from the amplitude sequence search
    /// (timestamp `ts`, phase `p`): validated, else repaired. A DF11
    /// whose parity leaves a nonzero interrogator code is a squitter with
    /// errors in its last bits as often as a reply to an interrogator;
    /// from this search, take code 0 only.
    fn sequence_frame<const T: usize, const N: usize>(
        &self,
        sl: &Slice,
        ts: u64,
        p: usize,
        filter: &AddressFilter<N>,
    ) -> Option<DemodFrame> {
        self.validate(sl, sl.bytes, 0, ts, p, T, filter)
            .or_else(|| self.repair(sl, ts, p, T, filter))
            .filter(|f| f.df() != 11 || crc::remainder(f.bytes()) == 0)
    }

    /// Coherent second chance (module `coherent`) for the candidate at
    /// trigger sample `j` whose preamble starts near window tick `p`, if
    /// the budget allows an attempt: the bits of its first plain slice
    /// (`first`: timing and bits) give the carrier, the window's samples
    /// are projected onto it, and the amplitude sequence search reads
    /// them at the timing within two ticks of `p` that the projected
    /// preamble fits best.
    fn coherent<const T: usize, const N: usize>(
        &self,
        st: &mut DemodState,
        j: usize,
        p: usize,
        (p0, bytes): (usize, [u8; 14]),
        filter: &AddressFilter<N>,
    ) -> Option<Found> {
        if !(MIN_T..=HALF).contains(&T) {
            return None;
        }
        let budget = Budget {
            per_second: if st.quiet {
                self.coherent_per_s.saturating_mul(QUIET_COHERENT_FACTOR)
            } else {
                self.coherent_per_s
            },
        };
        if !budget.take(st, st.base + j as u64, TICK_HZ / T as u32) {
            return None;
        }
        let look = usize::from(self.look).min(MAX_SAMPLES);
        st.stats.coherent_tried += 1;
        // A long DF (≥ 16) reads 112 bits, a short one 56.
        let n = if bytes[0] >> 7 == 1 {
            LONG
        } else {
            crc::SHORT_BITS
        };
        let mut amps = [0.0f32; MAX_SAMPLES];
        coherent::project::<T>(st, j, j * T + p0, &bytes[..n / 8], &mut amps[..look])?;
        let q = coherent::best_timing::<T>(&amps[..look], p)?;
        let c = st.c.get(j..=j + look)?;
        let ap = !filter.is_empty();
        let amps = Amplitudes::Coherent(&amps[..look]);
        let sl = sequence_slice::<T>(c, amps, q, st.noise, ap).ok()?;
        let ts = (st.base + j as u64) * T as u64 + q as u64;
        let f = self.sequence_frame::<T, N>(&sl, ts, q, filter)?;
        st.stats.coherent += 1;
        Some((f, sl.n, None))
    }

    /// A decoded frame, its bit count and, when cancellation is on, the
    /// evidence of other energy under it read off its slice `sl` (phase
    /// `p` of the window's tick integral `u`).
    fn found(&self, f: DemodFrame, sl: &Slice, u: &[u32; U_LEN], p: usize) -> Found {
        let ev = self.cancels().then(|| {
            let e = |a: usize, b: usize| match (u.get(p + a), u.get(p + b)) {
                (Some(x), Some(y)) => u64::from(y.wrapping_sub(*x)),
                _ => 0,
            };
            Evidence::new(&sl.e1[..sl.n], &sl.e0[..sl.n], f.bytes(), e)
        });
        (f, sl.n, ev)
    }

    /// A frame decoded at trigger sample `j` with `bits` bits: if
    /// cancellation is on and other energy lies under it, subtract it,
    /// search again for replies that started under it before `j`, pass it
    /// to the sink and return `j + 1` (the scan goes on through its
    /// cleaned span); otherwise pass it on and return the sample after
    /// its last bit.
    fn accept<const T: usize, const N: usize, F: FnMut(&DemodFrame)>(
        &self,
        st: &mut DemodState,
        j: usize,
        (f, bits, ev): Found,
        filter: &mut AddressFilter<N>,
        sink: &mut F,
    ) -> usize {
        let end = j + (usize::from(f.offset) + DATA_START + bits * 2 * HALF) / T;
        let uncovered = st.base + (j as u64) < st.cancelled_until;
        if self.cancels() {
            let r0 = j * T + usize::from(f.offset);
            let noise = st.noise;
            let ev = ev.unwrap_or_else(|| Evidence::from_history::<T>(st, r0, f.bytes()));
            let fit = ev
                .busy(noise)
                .then(|| cancel::fit::<T>(st, r0, f.bytes()))
                .flatten();
            if let Some(fit) = fit.filter(|x| x.worth(st, noise)) {
                cancel::subtract(st, &fit);
                st.stats.cancelled += 1;
                st.cancelled_until = st.cancelled_until.max(st.base + fit.hi as u64);
                self.search_under::<T, N, F>(st, j, f.timestamp.get(), filter, sink);
                self.emit(st, f, uncovered, filter, sink);
                st.floor = st.base + j as u64 + 1;
                return j + 1;
            }
        }
        self.emit(st, f, uncovered, filter, sink);
        st.floor = st.base + end as u64;
        end
    }

    /// After the reply at trigger sample `js` was subtracted: every
    /// trigger position from where a reply overlapping it could start (a
    /// whole reply earlier, not before the scan's last resume point) up
    /// to `js` is tried again, failed candidates included. Frames found
    /// that start before the subtracted one (at tick `before`) are
    /// subtracted too (when their fit is good) and passed on, in order;
    /// the scan meets the others when it goes on through the span.
    fn search_under<const T: usize, const N: usize, F: FnMut(&DemodFrame)>(
        &self,
        st: &mut DemodState,
        js: usize,
        before: u64,
        filter: &mut AddressFilter<N>,
        sink: &mut F,
    ) {
        let floor = st.floor.saturating_sub(st.base) as usize;
        let mut k = js.saturating_sub(FRAME_TICKS / T + 1).max(floor);
        st.last_fail = u64::MAX;
        st.last_sequence = u64::MAX;
        while k < js {
            let (found, _) = trigger_in::<T>(st, k, js);
            let Some(jj) = found.map(|d| k + d) else {
                break;
            };
            k = jj + 1;
            let Some((w, bits, _)) = self
                .fine::<T, N>(st, jj, filter)
                .filter(|(w, ..)| w.timestamp.get() < before)
            else {
                continue;
            };
            let r0 = jj * T + usize::from(w.offset);
            if let Some(fit) = cancel::fit::<T>(st, r0, w.bytes()).filter(cancel::Fit::good) {
                cancel::subtract(st, &fit);
                st.stats.cancelled += 1;
                st.cancelled_until = st.cancelled_until.max(st.base + fit.hi as u64);
            } else {
                k = jj + (usize::from(w.offset) + DATA_START + bits * 2 * HALF) / T;
            }
            self.emit(st, w, true, filter, sink);
        }
    }

    /// Pass a validated frame to the sink and feed the filter, unless a
    /// cancellation left it behind: it repeats the last frame, or it
    /// starts before the last frame (the scan goes on through a cancelled
    /// reply's span from the sample after its trigger, where phases reach
    /// back before the reply's own start: what it finds there is what the
    /// subtraction left of that reply). Output stays in timestamp order.
    fn emit<const N: usize, F: FnMut(&DemodFrame)>(
        &self,
        st: &mut DemodState,
        f: DemodFrame,
        uncovered: bool,
        filter: &mut AddressFilter<N>,
        sink: &mut F,
    ) {
        let ts = f.timestamp.get();
        let (last, last_ts) = st.last_emit;
        let behind = last_ts != u64::MAX && ts < last_ts;
        if behind || last == f.data && last_ts.abs_diff(ts) <= 2 * u64::from(self.tps) {
            return;
        }
        st.last_emit = (f.data, ts);
        st.stats.uncovered += u64::from(uncovered);
        let df = f.data[0] >> 3;
        let clean_pi = match df {
            11 => f.repaired_bits == 0 && crc::remainder(f.bytes()) == 0,
            17 => f.repaired_bits <= 1,
            18 => f.repaired_bits <= 1 && (f.data[0] & 7) == 0,
            _ => false,
        };
        if clean_pi {
            filter.insert(f.address, f.timestamp.get());
        }
        st.load_frames = st.load_frames.saturating_add(1);
        sink(&f);
    }
}
