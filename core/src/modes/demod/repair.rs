//! Validation of a sliced frame (CRC remainder by format, the doubtful
//! DF11 code bit, known AP addresses) and repair of bit errors.

use super::slicer::Slice;
use super::{AddressFilter, DemodFrame, Demodulator, crc, is_ap};
use crate::modes::time::Ticks;

/// DF11 remainders below this are interrogator codes (II 0–15 with
/// CL = 0, SI 1–63 with CL = 1–4, as `CL·16 + code`).
const IC_LIMIT: u32 = 80;

impl Demodulator {
    /// Check a sliced frame with `repaired` bits already flipped.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn validate<const N: usize>(
        &self,
        sl: &Slice,
        mut bytes: [u8; 14],
        mut repaired: u8,
        ts: u64,
        p: usize,
        tps: usize,
        filter: &AddressFilter<N>,
    ) -> Option<DemodFrame> {
        let len = sl.n / 8;
        let mut rem = crc::remainder(bytes.get(..len)?);
        let df = bytes[0] >> 3;
        let aa = u32::from_be_bytes([0, bytes[1], bytes[2], bytes[3]]);
        if df == 11 && repaired == 0 && rem.is_power_of_two() && rem < IC_LIMIT {
            // A one-bit interrogator code, or code 0 (every acquisition
            // squitter, and most replies) with a slicing error in one of
            // the last 7 parity bits, whose syndrome is the bit itself?
            // Code 0 when that bit was too close to call.
            if sl.doubtful(sl.n - 1 - rem.trailing_zeros() as usize) {
                bytes[len - 1] ^= rem as u8;
                rem = 0;
                repaired = 1;
            }
        }
        let address = match df {
            17 | 18 if rem == 0 => aa,
            11 if rem < IC_LIMIT => aa,
            df if is_ap(df) && filter.contains(rem, ts) => rem,
            _ => return None,
        };
        Some(DemodFrame {
            data: bytes,
            len: len as u8,
            timestamp: Ticks(ts),
            phase: (p % tps) as u8,
            offset: p as u8,
            signal_dbfs: sl.level_dbfs(),
            repaired_bits: repaired,
            address,
        })
    }

    /// Repair of a sliced frame that failed validation (see the module
    /// docs of `demod`, step 8).
    pub(super) fn repair<const N: usize>(
        &self,
        sl: &Slice,
        ts: u64,
        p: usize,
        tps: usize,
        filter: &AddressFilter<N>,
    ) -> Option<DemodFrame> {
        let n = sl.n;
        let len = n / 8;
        let df = sl.bytes[0] >> 3;
        let rem = crc::remainder(sl.bytes.get(..len)?);
        let mut b = sl.bytes;
        match df {
            17 | 18 | 11 => {
                if let Some(k) = crc::repair_single(&mut b[..len], rem) {
                    return self.validate(sl, b, k, ts, p, tps, filter);
                }
                if df == 11 {
                    // Beyond one bit only for a known address, to
                    // interrogator code 0.
                    let k = self.repair_known(sl, &mut b, rem, filter, ts, 0)?;
                    return self.validate(sl, b, k, ts, p, tps, filter);
                }
                if self.soft_flips >= 2 {
                    let weak = sl.weakest(usize::from(self.soft_candidates));
                    let weak = weak.as_slice();
                    if let Some(k) = crc::repair_within(&mut b[..len], rem, weak, self.soft_flips) {
                        return self.validate(sl, b, k, ts, p, tps, filter);
                    }
                }
                if self.es_sets > 0 && filter.contains(address(&sl.bytes, &[]), ts) {
                    let more = usize::from(self.soft_flips);
                    if let Some(k) = self.repair_known(sl, &mut b, rem, filter, ts, more) {
                        return self.validate(sl, b, k, ts, p, tps, filter);
                    }
                }
                if self.two_bit {
                    if let Some(k) = crc::repair(&mut b[..len], rem, 2) {
                        return self.validate(sl, b, k, ts, p, tps, filter);
                    }
                }
                None
            }
            0 | 4 | 5 | 16 | 20 | 21 => {
                if self.ap_candidates == 0 || self.ap_sets == 0 || filter.is_empty() {
                    return None;
                }
                let weak = sl.weakest(usize::from(self.ap_candidates));
                let (weak, cost) = (weak.as_slice(), costs(sl, weak.as_slice()));
                let known = |r: u32, _: &[u8]| filter.contains(r, ts);
                let (sets, flips) = (usize::from(self.ap_sets), self.ap_flips);
                let k = crc::repair_likeliest(&mut b[..len], rem, weak, &cost, flips, sets, known)?;
                self.validate(sl, b, k, ts, p, tps, filter)
            }
            _ => None,
        }
    }

    /// Likelihood-ordered repair of DF11 (to interrogator code 0) or
    /// DF17/18 (beyond `more` flips) whose repaired address is known:
    /// remainder 0 after the flips and the AA, with the flips, in the
    /// filter. DF11 uses the AP search budget (`ap_sets`, `ap_flips`),
    /// DF17/18 its own (`es_sets`, `es_flips`, among the soft repair's
    /// candidates).
    fn repair_known<const N: usize>(
        &self,
        sl: &Slice,
        b: &mut [u8; 14],
        rem: u32,
        filter: &AddressFilter<N>,
        ts: u64,
        more: usize,
    ) -> Option<u8> {
        let (sets, flips, candidates) = match sl.n {
            crc::SHORT_BITS => (self.ap_sets, self.ap_flips, self.ap_candidates),
            _ => (self.es_sets, self.es_flips, self.soft_candidates),
        };
        if sets == 0 || candidates == 0 || filter.is_empty() {
            return None;
        }
        let weak = sl.weakest(usize::from(candidates));
        let (weak, cost) = (weak.as_slice(), costs(sl, weak.as_slice()));
        let aa = &sl.bytes;
        let ok = |r: u32, bits: &[u8]| {
            r == 0 && bits.len() > more && filter.contains(address(aa, bits), ts)
        };
        crc::repair_likeliest(
            &mut b[..sl.n / 8],
            rem,
            weak,
            &cost,
            flips,
            usize::from(sets),
            ok,
        )
    }
}

/// The cost of flipping each of `weak`: its margin `|E₁ − E₀|`.
///
/// Under Gaussian noise of variance `σ²` on each half-bit energy and a
/// pulse adding `A` to one half, `ln p(E₁, E₀ | 1) − ln p(E₁, E₀ | 0) =
/// A·(E₁ − E₀)/σ²`: the log-likelihood ratio of a bit is its signed margin
/// times a factor common to the frame. A set of flips is the frame's error
/// pattern with log-probability `−(A/σ²)·Σ|E₁ − E₀|` relative to none, so
/// ordering sets by `Σ|E₁ − E₀|` orders them by likelihood, whatever `A`
/// and `σ`.
fn costs(sl: &Slice, weak: &[u8]) -> [u32; crc::MAX_CANDIDATES] {
    let mut c = [0; crc::MAX_CANDIDATES];
    for (c, &k) in c.iter_mut().zip(weak) {
        let k = usize::from(k);
        *c = sl
            .e1
            .get(k)
            .zip(sl.e0.get(k))
            .map_or(0, |(a, b)| a.abs_diff(*b));
    }
    c
}

/// The AA field (bits 8–31) of `bytes` with `bits` flipped.
fn address(bytes: &[u8; 14], bits: &[u8]) -> u32 {
    let mut aa = u32::from_be_bytes([0, bytes[1], bytes[2], bytes[3]]);
    for &k in bits.iter().filter(|&&k| (8..32).contains(&k)) {
        aa ^= 1 << (31 - k);
    }
    aa
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::super::LONG;
    use super::super::testkit::{Filter, random_df17, with_parity};
    use super::*;
    use crate::rng::Rng;

    /// A slice of `bytes` with confident bits except `weak` (confidence 1).
    fn fake_slice(bytes: &[u8], weak: &[usize]) -> Slice {
        let n = bytes.len() * 8;
        let mut s = Slice {
            bytes: [0; 14],
            n,
            e1: [0; LONG],
            e0: [0; LONG],
        };
        s.bytes[..bytes.len()].copy_from_slice(bytes);
        for k in 0..n {
            let one = bytes[k / 8] >> (7 - k % 8) & 1 == 1;
            let (hi, lo) = if weak.contains(&k) {
                (1001, 1000)
            } else {
                (100_000 + k as u32, 100)
            };
            (s.e1[k], s.e0[k]) = if one { (hi, lo) } else { (lo, hi) };
        }
        s
    }

    #[test]
    fn test_repair_policy() {
        let d = Demodulator::new(2_400_000).unwrap();
        let mut filter = Filter::new(Filter::DEFAULT_TTL);
        let mut rng = Rng::new(21);
        let good = random_df17(&mut rng);
        let flip = |b: &mut [u8], k: usize| b[k / 8] ^= 0x80 >> (k % 8);
        // Any single bit outside the DF: syndrome repair.
        let mut bad = good;
        flip(&mut bad, 60);
        let f = d.repair(&fake_slice(&bad, &[]), 0, 0, 5, &filter).unwrap();
        assert_eq!((f.bytes(), f.repaired_bits), (&good[..], 1));
        // Two weak bits: soft repair among the least confident.
        let mut bad = good;
        flip(&mut bad, 30);
        flip(&mut bad, 77);
        let f = d
            .repair(&fake_slice(&bad, &[30, 77, 9]), 0, 0, 5, &filter)
            .unwrap();
        assert_eq!((f.bytes(), f.repaired_bits), (&good[..], 2));
        // ... but not when they are confident, nor with soft repair off
        // (unless the exhaustive 2-bit repair is on).
        assert!(d.repair(&fake_slice(&bad, &[]), 0, 0, 5, &filter).is_none());
        let off = d.with_soft_repair(8, 0);
        assert!(
            off.repair(&fake_slice(&bad, &[30, 77]), 0, 0, 5, &filter)
                .is_none()
        );
        let two = off.with_two_bit_repair(true);
        let f = two
            .repair(&fake_slice(&bad, &[]), 0, 0, 5, &filter)
            .unwrap();
        assert_eq!((f.bytes(), f.repaired_bits), (&good[..], 2));
        // A DF bit is never repaired.
        let mut bad = good;
        flip(&mut bad, 2);
        assert!(
            two.repair(&fake_slice(&bad, &[2]), 0, 0, 5, &filter)
                .is_none()
        );
        // DF11: one bit at most.
        let df11 = with_parity(std::vec![0x5D, 0x4D, 0x20, 0x23, 0, 0, 0], 0);
        let mut bad = df11.clone();
        flip(&mut bad, 20);
        let f = two
            .repair(&fake_slice(&bad, &[]), 0, 0, 5, &filter)
            .unwrap();
        assert_eq!((f.bytes(), f.repaired_bits), (&df11[..], 1));
        flip(&mut bad, 40);
        assert!(
            two.repair(&fake_slice(&bad, &[20, 40]), 0, 0, 5, &filter)
                .is_none()
        );
        // AP: one weak bit giving a known address.
        let df4 = with_parity(std::vec![0x20, 0x00, 0x0F, 0x1F, 0, 0, 0], 0x4D2023);
        let mut bad = df4.clone();
        flip(&mut bad, 33);
        assert!(
            d.repair(&fake_slice(&bad, &[33]), 0, 0, 5, &filter)
                .is_none()
        );
        filter.insert(0x4D2023, 0);
        let f = d
            .repair(&fake_slice(&bad, &[33]), 0, 0, 5, &filter)
            .unwrap();
        assert_eq!(
            (f.bytes(), f.repaired_bits, f.address),
            (&df4[..], 1, 0x4D2023)
        );
        assert!(d.repair(&fake_slice(&bad, &[]), 0, 0, 5, &filter).is_none());
        // AP: two weak bits among the least confident, one known address.
        flip(&mut bad, 47);
        let weak = [33, 47, 10, 12, 14, 50, 52, 54];
        let f = d
            .repair(&fake_slice(&bad, &weak), 0, 0, 5, &filter)
            .unwrap();
        assert_eq!(
            (f.bytes(), f.repaired_bits, f.address),
            (&df4[..], 2, 0x4D2023)
        );
        // ... not when the search stops at single flips (the 8 weak bits'
        // 8 sets come first), nor when one of them is confident.
        let no_pairs = d.with_ap_search(8, 4);
        assert!(
            no_pairs
                .repair(&fake_slice(&bad, &weak), 0, 0, 5, &filter)
                .is_none()
        );
        assert!(
            d.repair(&fake_slice(&bad, &[33, 10, 12]), 0, 0, 5, &filter)
                .is_none()
        );
        // Two pairs that each give a known address: ambiguous, refused.
        let mut other = bad.clone();
        flip(&mut other, 50);
        flip(&mut other, 52);
        let rem2 = crc::remainder(&other[..7]);
        filter.insert(rem2, 0);
        assert!(
            d.repair(&fake_slice(&bad, &weak), 0, 0, 5, &filter)
                .is_none()
        );
    }

    /// A slice of `bytes` where `weak[i]` has margin `(i + 1)·100` (the
    /// first the least confident) and every other bit a margin near 10⁵.
    fn graded_slice(bytes: &[u8], weak: &[usize]) -> Slice {
        let mut s = fake_slice(bytes, &[]);
        for (i, &k) in weak.iter().enumerate() {
            let one = bytes[k / 8] >> (7 - k % 8) & 1 == 1;
            let (hi, lo) = (1000 + 100 * (i as u32 + 1), 1000);
            (s.e1[k], s.e0[k]) = if one { (hi, lo) } else { (lo, hi) };
        }
        s
    }

    fn flipped(good: &[u8], bits: &[usize]) -> std::vec::Vec<u8> {
        let mut b = good.to_vec();
        for &k in bits {
            b[k / 8] ^= 0x80 >> (k % 8);
        }
        b
    }

    #[test]
    fn test_repair_ap_likeliest() {
        let d = Demodulator::new(2_400_000).unwrap();
        let mut filter = Filter::new(Filter::DEFAULT_TTL);
        filter.insert(0x4D2023, 0);
        let df4 = with_parity(std::vec![0x20, 0x00, 0x0F, 0x1F, 0, 0, 0], 0x4D2023);
        // Three and four errors on weak bits, with decoys weaker still:
        // the one set that gives the known address.
        let weak = [40, 9, 51, 22, 17, 30, 44];
        for errors in [&[9, 22, 30][..], &[40, 9, 51, 44]] {
            let bad = flipped(&df4, errors);
            let f = d
                .repair(&graded_slice(&bad, &weak), 0, 0, 5, &filter)
                .unwrap();
            assert_eq!(
                (f.bytes(), usize::from(f.repaired_bits), f.address),
                (&df4[..], errors.len(), 0x4D2023)
            );
        }
        // Five errors: beyond the 4 flips.
        let bad = flipped(&df4, &[40, 9, 51, 22, 17]);
        assert!(
            d.repair(&graded_slice(&bad, &weak), 0, 0, 5, &filter)
                .is_none()
        );
        assert!(
            d.with_ap_search(128, 5)
                .repair(&graded_slice(&bad, &weak), 0, 0, 5, &filter)
                .is_some()
        );
        // The most expensive 4-set of the 7 weak bits comes after the
        // first 64 sets (127 sets of up to 7 bits are cheaper or equal):
        // not found with the default budget, found with 128 sets.
        let bad = flipped(&df4, &[22, 30, 44, 17]);
        let slice = graded_slice(&bad, &weak);
        assert!(d.repair(&slice, 0, 0, 5, &filter).is_none());
        let f = d
            .with_ap_search(128, 4)
            .repair(&slice, 0, 0, 5, &filter)
            .unwrap();
        assert_eq!((f.bytes(), f.repaired_bits), (&df4[..], 4));
        // A second known address reachable by another set: ambiguous.
        let bad = flipped(&df4, &[9, 22, 30]);
        let other = crc::remainder(&flipped(&bad, &[40, 51]));
        filter.insert(other, 0);
        assert!(
            d.repair(&graded_slice(&bad, &weak), 0, 0, 5, &filter)
                .is_none()
        );
    }

    #[test]
    fn test_repair_df11_known_address() {
        let d = Demodulator::new(2_400_000).unwrap();
        let mut filter = Filter::new(Filter::DEFAULT_TTL);
        filter.insert(0x123456, 0);
        let df11 = with_parity(std::vec![0x5D, 0x4D, 0x20, 0x23, 0x11, 0x22, 0x33], 0);
        let weak = [20, 41, 13, 50, 33];
        let bad = flipped(&df11, &[20, 41, 50]);
        // The AA 4D2023 is not known: one bit at most.
        assert!(
            d.repair(&graded_slice(&bad, &weak), 0, 0, 5, &filter)
                .is_none()
        );
        filter.insert(0x4D2023, 0);
        let f = d
            .repair(&graded_slice(&bad, &weak), 0, 0, 5, &filter)
            .unwrap();
        assert_eq!(
            (f.bytes(), f.repaired_bits, f.address),
            (&df11[..], 3, 0x4D2023)
        );
        // An error in the AA itself (bit 20): the repaired AA is known.
        assert!(
            d.with_ap_repair(0)
                .repair(&graded_slice(&bad, &weak), 0, 0, 5, &filter)
                .is_none()
        );
    }

    #[test]
    fn test_repair_df17_known_address() {
        let d = Demodulator::new(2_400_000).unwrap();
        let es = d.with_known_es_repair(128, 6);
        let mut filter = Filter::new(Filter::DEFAULT_TTL);
        let mut rng = Rng::new(5);
        let good = random_df17(&mut rng);
        let aa = u32::from_be_bytes([0, good[1], good[2], good[3]]);
        // 6 weak bits: their 63 sets come before any with a confident bit.
        // (No error in the AA: the search needs the AA as sliced known.)
        let weak = [60, 35, 101, 77, 45, 90];
        let bad = flipped(&good, &[60, 101, 77, 90, 45]);
        let slice = graded_slice(&bad, &weak);
        // Five errors: beyond the soft repair; the search is off by
        // default, and needs the AA known.
        assert!(d.repair(&slice, 0, 0, 5, &filter).is_none());
        filter.insert(0x00ABCD, 0);
        assert!(es.repair(&slice, 0, 0, 5, &filter).is_none());
        filter.insert(aa, 0);
        assert!(d.repair(&slice, 0, 0, 5, &filter).is_none());
        let f = es.repair(&slice, 0, 0, 5, &filter).unwrap();
        assert_eq!((f.bytes(), f.repaired_bits, f.address), (&good[..], 5, aa));
        // Seven errors: beyond its 6 flips.
        let bad = flipped(&good, &[60, 35, 101, 77, 45, 90, 70]);
        assert!(
            es.repair(&graded_slice(&bad, &weak), 0, 0, 5, &filter)
                .is_none()
        );
    }

    proptest::proptest! {
        #![proptest_config(crate::testing::proptest_config())]

        /// Whatever repair returns validates: DF17 remainder 0 (and a
        /// known AA beyond 3 flips), AP formats a known address, DF11
        /// remainder 0 when repaired; never more flips than allowed.
        #[test]
        fn prop_repaired_frames_validate(
            seed in 0u64..1 << 32,
            errors in proptest::collection::vec(5usize..112, 0..8),
            weak in proptest::collection::vec(5usize..112, 0..24),
            ap in proptest::bool::ANY,
        ) {
            let d = Demodulator::new(2_400_000).unwrap().with_known_es_repair(128, 6);
            let mut filter = Filter::new(Filter::DEFAULT_TTL);
            let mut rng = Rng::new(seed);
            let good = random_df17(&mut rng);
            filter.insert(0x4D2023, 0);
            filter.insert(u32::from_be_bytes([0, good[1], good[2], good[3]]), 0);
            let good = if ap {
                with_parity(std::vec![0xA0, 0, 0x0F, 0x1F, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0x4D2023)
            } else {
                good.to_vec()
            };
            // `flipped` of a repeated position flips it back: fewer errors.
            let bad = flipped(&good, &errors);
            if let Some(f) = d.repair(&graded_slice(&bad, &weak), 0, 0, 5, &filter) {
                let rem = crc::remainder(f.bytes());
                if ap {
                    proptest::prop_assert!(filter.contains(rem, 0));
                    proptest::prop_assert!(f.repaired_bits <= 4);
                } else {
                    proptest::prop_assert_eq!(rem, 0);
                    proptest::prop_assert!(f.repaired_bits <= 6);
                    if f.repaired_bits > 3 {
                        proptest::prop_assert!(filter.contains(f.address, 0));
                    }
                }
                proptest::prop_assert_eq!(f.bytes()[0] >> 3, good[0] >> 3);
            }
        }
    }
}
