//! Storage: the dense aircraft array and its open-addressing index of `2N`
//! `u16` cells (linear probing, Fibonacci hash of the 25-bit key,
//! backward-shift deletion; see the [module docs](super#memory-and-cost)).

use super::Tracker;
use super::address::AddressType;
use super::aircraft::Aircraft;

impl<const N: usize> Tracker<N> {
    /// Number of index cells.
    const CELLS: usize = 2 * N;

    #[inline]
    fn cell(&self, i: usize) -> u16 {
        self.index
            .get(i >> 1)
            .and_then(|row| row.get(i & 1))
            .copied()
            .unwrap_or(0)
    }

    #[inline]
    fn set_cell(&mut self, i: usize, v: u16) {
        if let Some(c) = self
            .index
            .get_mut(i >> 1)
            .and_then(|row| row.get_mut(i & 1))
        {
            *c = v;
        }
    }

    /// Home cell of a key: Fibonacci hashing, then `⌊h·2N / 2³²⌋`.
    #[inline]
    fn home(key: u32) -> usize {
        let h = key.wrapping_mul(0x9E37_79B1);
        ((u64::from(h) * Self::CELLS as u64) >> 32) as usize
    }

    #[inline]
    fn next(i: usize) -> usize {
        if i + 1 >= Self::CELLS { 0 } else { i + 1 }
    }

    fn key_at_cell(&self, c: u16) -> Option<u32> {
        self.aircraft
            .get(usize::from(c).wrapping_sub(1))
            .map(|a| a.key)
    }

    /// The index cell holding `key`.
    fn find_cell(&self, key: u32) -> Option<usize> {
        let mut i = Self::home(key);
        // The index is at most half full, so an empty cell ends the probe;
        // the bound only guards against a corrupted index.
        for _ in 0..Self::CELLS {
            let c = self.cell(i);
            if c == 0 {
                return None;
            }
            if self.key_at_cell(c) == Some(key) {
                return Some(i);
            }
            i = Self::next(i);
        }
        None
    }

    /// The slot holding `key`.
    pub(super) fn find(&self, key: u32) -> Option<usize> {
        self.find_cell(key).map(|c| usize::from(self.cell(c)) - 1)
    }

    /// Add a new entry, evicting the oldest if full; returns its slot and
    /// the evicted key.
    pub(super) fn insert(
        &mut self,
        key: u32,
        addr_type: AddressType,
        t: u64,
    ) -> (usize, Option<u32>) {
        let mut evicted = None;
        if self.len >= N {
            // O(N): the entry heard least recently.
            let (oldest, last_seen) = self
                .iter()
                .enumerate()
                .min_by_key(|(_, a)| a.last_seen_ms)
                .map_or((0, 0), |(i, a)| (i, a.last_seen_ms));
            if t.saturating_sub(last_seen) > self.config.expiry_ms {
                self.stats.aircraft_expired += 1;
            } else {
                self.stats.aircraft_evicted += 1;
                evicted = self.aircraft.get(oldest).map(|a| a.key);
            }
            self.remove(oldest);
        }
        let slot = self.len;
        if let Some(a) = self.aircraft.get_mut(slot) {
            *a = Aircraft::new(key, addr_type, t);
        }
        let mut i = Self::home(key);
        while self.cell(i) != 0 {
            i = Self::next(i);
        }
        self.set_cell(i, (slot + 1) as u16);
        self.len += 1;
        (slot, evicted)
    }

    /// Remove slot `s`: delete its index cell (shifting the cluster back),
    /// then move the last entry into the hole.
    pub(super) fn remove(&mut self, s: usize) {
        let Some((key, messages)) = self.aircraft.get(s).map(|a| (a.key, a.messages)) else {
            return;
        };
        // A track made by one frame (its first may have been rejected).
        if messages <= 1 {
            self.stats.aircraft_single_message += 1;
        }
        if let Some(mut hole) = self.find_cell(key) {
            // Backward-shift deletion (Knuth vol. 3, 6.4 Algorithm R).
            let mut j = hole;
            loop {
                j = Self::next(j);
                let c = self.cell(j);
                if c == 0 {
                    break;
                }
                let k = self.key_at_cell(c).map_or(j, Self::home);
                // The entry at j may move to the hole unless its home lies
                // cyclically in (hole, j].
                let stays = if hole <= j {
                    hole < k && k <= j
                } else {
                    hole < k || k <= j
                };
                if !stays {
                    self.set_cell(hole, c);
                    hole = j;
                }
            }
            self.set_cell(hole, 0);
        }
        let last = self.len.saturating_sub(1);
        if s != last {
            if let Some(moved) = self.aircraft.get(last).copied() {
                if let Some(c) = self.find_cell(moved.key) {
                    self.set_cell(c, (s + 1) as u16);
                }
                if let Some(a) = self.aircraft.get_mut(s) {
                    *a = moved;
                }
            }
        }
        self.len = last;
    }
}
