//! The table of recently seen ICAO addresses that lets AP-format replies
//! through.

use super::TICK_HZ;

/// (whose parity is overlaid with the address).
///
/// Open addressing with linear probing over at most 16 slots from the
/// multiplicative hash of the address; capacity `N` (a power of two, 16 …
/// 65,536). Entries expire `ttl` ticks (12 MHz) after they were last
/// inserted; an insertion into a full probe window evicts its oldest entry.
/// Times are kept in units of 2¹⁶ ticks (5.46 ms) and compared with
/// wrapping arithmetic (period 271 days). Memory: `8·N` bytes.
#[derive(Clone)]
pub struct AddressFilter<const N: usize> {
    /// `address | VALID`, or 0 for a never-used slot.
    keys: [u32; N],
    /// Last insertion time, ticks >> 16.
    seen: [u32; N],
    ttl: u32,
    count: usize,
}

impl<const N: usize> core::fmt::Debug for AddressFilter<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AddressFilter")
            .field("capacity", &N)
            .field("used_slots", &self.count)
            .field("ttl_ticks", &(u64::from(self.ttl) << TIME_SHIFT))
            .finish_non_exhaustive()
    }
}

const VALID: u32 = 1 << 31;
const TIME_SHIFT: u32 = 16;
const PROBE: usize = 16;

impl<const N: usize> AddressFilter<N> {
    /// Default time to live: 60 s of sample time.
    pub const DEFAULT_TTL: u64 = 60 * TICK_HZ as u64;

    /// An empty filter whose entries expire after `ttl` 12 MHz ticks.
    ///
    /// ```
    /// use airwaves_core::modes::demod::AddressFilter;
    /// let mut f = AddressFilter::<256>::new(AddressFilter::<256>::DEFAULT_TTL);
    /// f.insert(0x4D2023, 0);
    /// assert!(f.contains(0x4D2023, 12_000_000));
    /// assert!(!f.contains(0x4D2023, 61 * 12_000_000));
    /// ```
    pub const fn new(ttl: u64) -> Self {
        const {
            assert!(N.is_power_of_two() && N >= 16 && N <= 65536);
        }
        let t = ttl >> TIME_SHIFT;
        Self {
            keys: [0; N],
            seen: [0; N],
            ttl: if t > u32::MAX as u64 {
                u32::MAX
            } else {
                t as u32
            },
            count: 0,
        }
    }

    #[inline]
    fn home(addr: u32) -> usize {
        let bits = N.trailing_zeros();
        if bits == 0 {
            return 0;
        }
        (addr.wrapping_mul(0x9E37_79B1) >> (32 - bits)) as usize
    }

    #[inline]
    fn fresh(&self, i: usize, now: u32) -> bool {
        now.wrapping_sub(self.seen[i]) <= self.ttl
    }

    /// Record `addr` (24 bits; higher bits ignored) as seen at `now`
    /// (12 MHz ticks).
    pub fn insert(&mut self, addr: u32, now: u64) {
        let key = (addr & 0xFF_FFFF) | VALID;
        let t = (now >> TIME_SHIFT) as u32;
        let h = Self::home(addr & 0xFF_FFFF);
        let mut free: Option<usize> = None;
        let mut oldest = (0u32, h);
        for k in 0..PROBE.min(N) {
            let i = (h + k) & (N - 1);
            let e = self.keys[i];
            if e == key {
                self.seen[i] = t;
                return;
            }
            if e == 0 {
                // Never used: nothing beyond it in this chain.
                let slot = free.unwrap_or(i);
                if slot == i {
                    self.count += 1;
                }
                self.keys[slot] = key;
                self.seen[slot] = t;
                return;
            }
            let age = t.wrapping_sub(self.seen[i]);
            if free.is_none() && age > self.ttl {
                free = Some(i);
            }
            if age >= oldest.0 {
                oldest = (age, i);
            }
        }
        let slot = free.unwrap_or(oldest.1);
        self.keys[slot] = key;
        self.seen[slot] = t;
    }

    /// Whether `addr` was inserted within the last `ttl` ticks before
    /// `now`.
    pub fn contains(&self, addr: u32, now: u64) -> bool {
        if addr > 0xFF_FFFF || self.count == 0 {
            return false;
        }
        let key = addr | VALID;
        let t = (now >> TIME_SHIFT) as u32;
        let h = Self::home(addr);
        for k in 0..PROBE.min(N) {
            let i = (h + k) & (N - 1);
            let e = self.keys[i];
            if e == key {
                return self.fresh(i, t);
            }
            if e == 0 {
                return false;
            }
        }
        false
    }

    /// Whether no address was ever inserted (or [`clear`](Self::clear) was
    /// called since).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Forget every address.
    pub fn clear(&mut self) {
        self.keys = [0; N];
        self.count = 0;
    }
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use crate::rng::Rng;
    use std::vec::Vec;

    #[test]
    fn test_address_filter() {
        const TTL: u64 = 60 * TICK_HZ as u64;
        let mut f = AddressFilter::<16>::new(TTL);
        assert!(f.is_empty());
        assert!(!f.contains(0x4D2023, 0));
        f.insert(0x4D2023, 0);
        assert!(!f.is_empty());
        assert!(f.contains(0x4D2023, 0));
        assert!(f.contains(0x4D2023, TTL - (1 << 17)));
        assert!(!f.contains(0x4D2023, TTL + (1 << 17)));
        assert!(!f.contains(0x4D2024, 0));
        // Refresh extends the lifetime.
        f.insert(0x4D2023, TTL / 2);
        assert!(f.contains(0x4D2023, TTL + (1 << 17)));
        // Only 24 bits count; larger queries never match.
        f.insert(0xFF4D_2025, 0);
        assert!(f.contains(0x4D2025, 0));
        assert!(!f.contains(0x0100_0000 | 0x4D2025, 0));
        // Overfill: 16 slots, 40 addresses; the newest are all kept and
        // nothing panics.
        for a in 0..40u32 {
            f.insert(0x100 + a, 1_000_000 * u64::from(a));
        }
        assert!(f.contains(0x100 + 39, 40_000_000));
        let kept = (0..40u32)
            .filter(|a| f.contains(0x100 + a, 40_000_000))
            .count();
        assert!((8..=16).contains(&kept), "{kept}");
        // Expired entries are reused.
        let late = 1000 * TTL;
        f.insert(0xABCDEF, late);
        assert!(f.contains(0xABCDEF, late));
        assert!(!f.contains(0x100 + 39, late));
        f.clear();
        assert!(f.is_empty() && !f.contains(0xABCDEF, late));
    }

    #[test]
    fn test_address_filter_many() {
        // A realistic load: 300 aircraft in a 512-entry table.
        let mut f = AddressFilter::<512>::new(AddressFilter::<512>::DEFAULT_TTL);
        let mut rng = Rng::new(3);
        let addrs: Vec<u32> = (0..300)
            .map(|_| rng.next_u64() as u32 & 0xFF_FFFF)
            .collect();
        for &a in &addrs {
            f.insert(a, 0);
        }
        assert!(addrs.iter().all(|&a| f.contains(a, 1)));
        let strangers = (0..if cfg!(miri) { 500 } else { 10_000 })
            .filter(|_| f.contains(rng.next_u64() as u32 & 0xFF_FFFF, 1))
            .count();
        assert!(strangers <= 2, "{strangers}");
    }
}
