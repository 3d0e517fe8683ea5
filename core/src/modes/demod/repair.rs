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

    /// Repair of a sliced frame that failed validation.
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
                    return None;
                }
                if self.soft_flips >= 2 {
                    let weak = sl.weakest(usize::from(self.soft_candidates));
                    let weak = weak.as_slice();
                    if let Some(k) = crc::repair_within(&mut b[..len], rem, weak, self.soft_flips) {
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
                let k = usize::from(self.ap_candidates);
                if k == 0 || filter.is_empty() {
                    return None;
                }
                // One flip among the `k` least confident bits, then two
                // among the `ap_pair_candidates` least confident: the
                // recovered address must be known, and only one candidate
                // may give one.
                let known = |rem: u32| filter.contains(rem, ts);
                let flip = |b: &mut [u8; 14], bit: usize| b[bit / 8] ^= 0x80 >> (bit % 8);
                let weak = sl.weakest(k.max(usize::from(self.ap_pair_candidates)));
                let weak: &[u8] = weak.as_slice();
                let usable = |bit: &&u8| usize::from(**bit) >= crc::PROTECTED_BITS;
                let mut hit = None;
                for &bit in weak.iter().take(k).filter(usable) {
                    if known(rem ^ crc::syndrome_of_bit(n, usize::from(bit))) {
                        if hit.is_some() {
                            return None; // ambiguous
                        }
                        hit = Some(bit);
                    }
                }
                if let Some(bit) = hit {
                    flip(&mut b, usize::from(bit));
                    return self.validate(sl, b, 1, ts, p, tps, filter);
                }
                let pairs = usize::from(self.ap_pair_candidates).min(weak.len());
                let mut hit = None;
                for (i, &x) in weak[..pairs].iter().enumerate().filter(|(_, x)| usable(x)) {
                    let sx = rem ^ crc::syndrome_of_bit(n, usize::from(x));
                    for &y in weak[i + 1..pairs].iter().filter(usable) {
                        if known(sx ^ crc::syndrome_of_bit(n, usize::from(y))) {
                            if hit.is_some() {
                                return None; // ambiguous
                            }
                            hit = Some((x, y));
                        }
                    }
                }
                let (x, y) = hit?;
                flip(&mut b, usize::from(x));
                flip(&mut b, usize::from(y));
                self.validate(sl, b, 2, ts, p, tps, filter)
            }
            _ => None,
        }
    }
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
        // AP: two weak bits among the 8 least confident, one known address.
        flip(&mut bad, 47);
        let weak = [33, 47, 10, 12, 14, 50, 52, 54];
        let f = d
            .repair(&fake_slice(&bad, &weak), 0, 0, 5, &filter)
            .unwrap();
        assert_eq!(
            (f.bytes(), f.repaired_bits, f.address),
            (&df4[..], 2, 0x4D2023)
        );
        // ... not with pairs off, nor when one of them is confident.
        let no_pairs = d.with_ap_pair_repair(0);
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
}
