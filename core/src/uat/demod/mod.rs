//! UAT demodulator: RTL-SDR `cu8` I/Q bytes at [`SAMPLE_RATE`] (two
//! samples per bit) in, Reed–Solomon-corrected downlink and uplink
//! messages out.
//!
//! # Pipeline
//!
//! 1. **Discriminator.** Each sample becomes `a = 5·b − 637` per component
//!    (`b` the byte; zero level 127.4) and the lag product
//!    `D_n = a_n · conj(a_(n−1)) / 32` is kept (`i16` pairs; `|D| ≤ 25,440`).
//!    `arg D_n` is the phase step from sample `n − 1` to `n`, `|D_n|` the
//!    power (¹⁶⁄₂₅ of `|b − 127.4|²`).
//! 2. **Soft bits.** The bit starting at sample `m` is
//!    `y(m) = Im D_(m+1) + Im D_(m+2)`: the phase steps across the bit,
//!    weighted by the power (a differential detector, so a weak, noisy
//!    sample counts for little). A `1` moves the phase +108° per bit.
//! 3. **Sync search.** The signs of `y` at every sample go into two 36-bit
//!    shift registers, one per sample parity; a register within
//!    `max_sync_errors` (default 4) bits of [`DOWNLINK_SYNC`] or of its
//!    complement [`UPLINK_SYNC`] marks a candidate.
//! 4. **Centre.** The slicing level is the midpoint of the mean `y` of the
//!    sync word's ones and of its zeros: this takes out the carrier offset
//!    (a transmitter or dongle off frequency adds the same phase step to
//!    every sample). The sync is re-checked against it. Of the two
//!    sample phases (the candidate's and the next), the one whose sync
//!    word stands further from the centre is decoded first, the other
//!    if that fails.
//! 5. **Bits and confidences.** Bit = `y > centre`; a byte's confidence is
//!    the least `|y − centre|` of its bits.
//! 6. **Reed–Solomon.** Downlink: long RS(48, 34) first (payload type not
//!    0), then basic RS(30, 18) (type 0), as dump978 does. Uplink: the six
//!    interleaved RS(92, 72) blocks, each of which must decode. Each code
//!    is tried errors-only first (up to `R/2` errors); if that fails and
//!    erasures are on, again with the `e` least confident bytes erased,
//!    `e` = 2, 4, … up to `R − 6`, accepting only corrections that leave
//!    at least two parity bytes unused (`2·errors + erasures ≤ R − 2`).
//!    Erasures let the code repair up to `R − 2` bytes instead of `R/2`
//!    when the soft values point at them.
//! 7. After a message the scan resumes at its end; after a failure, at the
//!    next sample (a candidate's second phase is not tried twice).
//!
//! # Output
//!
//! Each [`Message`] has the corrected data bytes (18, 34 or 432), the
//! link, the number of bytes corrected (dump978's `rs=`), the absolute
//! index of the first sync sample (counted from the first byte ever fed)
//! and the signal level in dBFS (mean power over the message relative to
//! a full-scale complex sine, as dump978's `rssi=`).
//!
//! # Streaming and memory
//!
//! Bytes are fed in blocks of any size (odd counts too); output does not
//! depend on the split (tested). A candidate waits until the longest
//! message after it has arrived; [`Demodulator::finish`] flushes the end.
//! [`DemodState`]`<N>` keeps `N` lag products (4 bytes each); uplink needs
//! `N ≥` [`UPLINK_STATE`] (64 KiB), downlink alone
//! [`DOWNLINK_STATE`] (8 KiB), with which uplink is not searched.

use super::rs::ReedSolomon;
use super::{
    BASIC_BYTES, BASIC_DATA, DOWNLINK_SYNC, LONG_BYTES, LONG_DATA, SYNC_BITS, UPLINK_BLOCK_BYTES,
    UPLINK_BLOCK_DATA, UPLINK_BLOCKS, UPLINK_BYTES, UPLINK_DATA, UPLINK_SYNC,
};

pub use super::SAMPLE_RATE;

/// Samples from a sync word's first sample to the end of the longest
/// downlink message after it, with the two products the last bit reads
/// and one sample for the second phase.
const DOWNLINK_SPAN: usize = 2 * (SYNC_BITS + 8 * LONG_BYTES) + 4;
/// The same for an uplink message.
const UPLINK_SPAN: usize = 2 * (SYNC_BITS + 8 * UPLINK_BYTES) + 4;
/// Smallest state that searches uplink as well.
pub const UPLINK_STATE: usize = 16_384;
/// Smallest state for downlink only.
pub const DOWNLINK_STATE: usize = 2_048;
/// Mask of a sync register.
const SYNC_MASK: u64 = (1 << SYNC_BITS) - 1;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Link {
    /// Aircraft (or vehicle) to all: an ADS-B message, basic or long.
    Downlink,
    /// Ground station to aircraft: FIS-B and TIS-B.
    Uplink,
}

/// A corrected UAT message.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Downlink or uplink.
    pub link: Link,
    /// Index of the first sync sample, from the first byte ever fed.
    pub sample: u64,
    /// Bytes corrected by Reed–Solomon (erasures included).
    pub errors: u16,
    /// Mean power over the message, dBFS.
    pub rssi_dbfs: f32,
    len: u16,
    data: [u8; UPLINK_DATA],
}

impl Message {
    /// The data bytes: 18 (basic), 34 (long) or 432 (uplink).
    pub fn bytes(&self) -> &[u8] {
        &self.data[..self.len as usize]
    }
}

/// Counters of what the demodulator did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DemodStats {
    /// Samples fed.
    pub samples: u64,
    /// Sync candidates examined.
    pub candidates: u64,
    /// Downlink messages out.
    pub downlink: u64,
    /// Uplink messages out.
    pub uplink: u64,
    /// Messages that needed erasures to decode.
    pub by_erasure: u64,
}

/// The demodulator's state: the lag-product history and the sync
/// registers. `N` products; see the module docs for sizes.
#[derive(Debug, Clone)]
pub struct DemodState<const N: usize = UPLINK_STATE> {
    d: [[i16; 2]; N],
    len: usize,
    /// Absolute sample index of `d[0]`.
    base: u64,
    /// Next bit-start position to shift into a register.
    scan: usize,
    /// Positions below this are not candidates again (the second phase
    /// of a failed candidate).
    skip_until: usize,
    regs: [u64; 2],
    filled: [u8; 2],
    prev: [i32; 2],
    odd_byte: Option<u8>,
    /// Scratch: one message's bytes and their confidences.
    raw: [u8; UPLINK_BYTES],
    conf: [u16; UPLINK_BYTES],
    msg: Message,
    /// What has happened so far.
    pub stats: DemodStats,
}

impl<const N: usize> Default for DemodState<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> DemodState<N> {
    /// An empty state.
    pub const fn new() -> Self {
        const { assert!(N >= DOWNLINK_STATE) };
        Self {
            d: [[0; 2]; N],
            len: 0,
            base: 0,
            scan: 0,
            skip_until: 0,
            regs: [0; 2],
            filled: [0; 2],
            prev: [0; 2],
            odd_byte: None,
            raw: [0; UPLINK_BYTES],
            conf: [0; UPLINK_BYTES],
            msg: Message {
                link: Link::Downlink,
                sample: 0,
                errors: 0,
                rssi_dbfs: 0.0,
                len: 0,
                data: [0; UPLINK_DATA],
            },
            stats: DemodStats {
                samples: 0,
                candidates: 0,
                downlink: 0,
                uplink: 0,
                by_erasure: 0,
            },
        }
    }

    /// Soft bit at position `m`: `Im D_(m+1) + Im D_(m+2)`.
    #[inline(always)]
    fn y(&self, m: usize) -> i32 {
        i32::from(self.d[m + 1][1]) + i32::from(self.d[m + 2][1])
    }
}

/// UAT demodulator configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Demodulator {
    max_sync_errors: u8,
    erasures: bool,
    uplink: bool,
}

impl Default for Demodulator {
    fn default() -> Self {
        Self::new()
    }
}

impl Demodulator {
    /// Defaults: sync words with up to 4 bit errors, erasure decoding on,
    /// uplink searched (if the state is large enough).
    pub const fn new() -> Self {
        Self {
            max_sync_errors: 4,
            erasures: true,
            uplink: true,
        }
    }

    /// Erasure decoding on or off (off: errors-only, as dump978).
    pub const fn with_erasures(self, on: bool) -> Self {
        Self {
            erasures: on,
            ..self
        }
    }

    /// Whether to search uplink messages.
    pub const fn with_uplink(self, on: bool) -> Self {
        Self { uplink: on, ..self }
    }

    /// Bit errors allowed in a sync word (0 … 8).
    pub const fn with_max_sync_errors(self, n: u8) -> Self {
        Self {
            max_sync_errors: if n > 8 { 8 } else { n },
            ..self
        }
    }

    fn span<const N: usize>(&self) -> usize {
        if self.uplink && N >= UPLINK_STATE {
            UPLINK_SPAN
        } else {
            DOWNLINK_SPAN
        }
    }

    /// Feed `bytes` (interleaved I, Q) and pass every message completed
    /// to `sink`.
    pub fn process<const N: usize>(
        &self,
        st: &mut DemodState<N>,
        bytes: &[u8],
        mut sink: impl FnMut(&Message),
    ) {
        let mut rest = bytes;
        if let Some(i) = st.odd_byte.take() {
            match rest.split_first() {
                Some((&q, tail)) => {
                    self.push(st, i, q, &mut sink);
                    rest = tail;
                }
                None => {
                    st.odd_byte = Some(i);
                    return;
                }
            }
        }
        let mut pairs = rest.chunks_exact(2);
        for p in &mut pairs {
            self.push(st, p[0], p[1], &mut sink);
        }
        if let [i] = pairs.remainder() {
            st.odd_byte = Some(*i);
        }
        let limit = st.len.saturating_sub(self.span::<N>());
        self.scan(st, limit, &mut sink);
    }

    /// End of stream: decode what still fits.
    pub fn finish<const N: usize>(&self, st: &mut DemodState<N>, mut sink: impl FnMut(&Message)) {
        let limit = st.len.saturating_sub(3);
        self.scan(st, limit, &mut sink);
    }

    #[inline(always)]
    fn push<const N: usize>(
        &self,
        st: &mut DemodState<N>,
        i: u8,
        q: u8,
        sink: &mut impl FnMut(&Message),
    ) {
        if st.len == N {
            let limit = st.len - self.span::<N>();
            self.scan(st, limit, sink);
            // Keep what the next candidate can still reach back to.
            let from = st.scan.saturating_sub(2 * SYNC_BITS);
            st.d.copy_within(from..st.len, 0);
            st.len -= from;
            st.scan -= from;
            st.skip_until = st.skip_until.saturating_sub(from);
            st.base += from as u64;
        }
        let a = [5 * i32::from(i) - 637, 5 * i32::from(q) - 637];
        let p = st.prev;
        // a · conj(p) = (a0 p0 + a1 p1) + j(a1 p0 − a0 p1), / 32.
        let re = (a[0] * p[0] + a[1] * p[1]) >> 5;
        let im = (a[1] * p[0] - a[0] * p[1]) >> 5;
        st.d[st.len] = [re as i16, im as i16];
        st.len += 1;
        st.prev = a;
        st.stats.samples += 1;
    }

    fn scan<const N: usize>(
        &self,
        st: &mut DemodState<N>,
        limit: usize,
        sink: &mut impl FnMut(&Message),
    ) {
        let max = u32::from(self.max_sync_errors);
        let span = self.span::<N>();
        while st.scan < limit {
            let m = st.scan;
            st.scan += 1;
            let k = m & 1;
            st.regs[k] = ((st.regs[k] << 1) | u64::from(st.y(m) > 0)) & SYNC_MASK;
            if (st.filled[k] as usize) < SYNC_BITS {
                st.filled[k] += 1;
                continue;
            }
            if m < st.skip_until {
                continue;
            }
            let down = (st.regs[k] ^ DOWNLINK_SYNC).count_ones();
            let link = if down <= max {
                Link::Downlink
            } else if SYNC_BITS as u32 - down <= max && span == UPLINK_SPAN {
                Link::Uplink
            } else {
                continue;
            };
            let m0 = m + 2 - 2 * SYNC_BITS;
            st.stats.candidates += 1;
            if let Some(end) = self.candidate(st, m0, link, sink) {
                st.scan = end;
                st.filled = [0; 2];
            } else {
                st.skip_until = m + 2;
            }
        }
    }

    /// Try both sample phases of a sync word starting at `m0`; the end
    /// position of a decoded message.
    fn candidate<const N: usize>(
        &self,
        st: &mut DemodState<N>,
        m0: usize,
        link: Link,
        sink: &mut impl FnMut(&Message),
    ) -> Option<usize> {
        let pattern = match link {
            Link::Downlink => DOWNLINK_SYNC,
            Link::Uplink => UPLINK_SYNC,
        };
        let a = sync_fit(st, m0, pattern, self.max_sync_errors);
        let b = sync_fit(st, m0 + 1, pattern, self.max_sync_errors);
        let mut order = [(m0, a), (m0 + 1, b)];
        if b.map(|f| f.1) > a.map(|f| f.1) {
            order.swap(0, 1);
        }
        for (start, fit) in order {
            let Some((centre, _)) = fit else { continue };
            if let Some(end) = self.decode_at(st, start, centre, link) {
                sink(&st.msg);
                return Some(end);
            }
        }
        None
    }

    /// Slice and correct the message whose sync starts at `start`; on
    /// success `st.msg` holds it and the end position is returned.
    fn decode_at<const N: usize>(
        &self,
        st: &mut DemodState<N>,
        start: usize,
        centre: i32,
        link: Link,
    ) -> Option<usize> {
        let data = start + 2 * SYNC_BITS;
        let nbytes = match link {
            Link::Downlink => LONG_BYTES,
            Link::Uplink => UPLINK_BYTES,
        };
        // Bytes that fit (only short of the whole at the stream's end).
        let fit = (st.len.saturating_sub(data + 3) / 16).min(nbytes);
        if fit < BASIC_BYTES || (link == Link::Uplink && fit < UPLINK_BYTES) {
            return None;
        }
        for byte in 0..fit {
            let mut v = 0u8;
            let mut c = u16::MAX;
            for bit in 0..8 {
                let s = st.y(data + 16 * byte + 2 * bit) - centre;
                v = (v << 1) | u8::from(s > 0);
                c = c.min(s.unsigned_abs().min(u32::from(u16::MAX)) as u16);
            }
            st.raw[byte] = v;
            st.conf[byte] = c;
        }
        let (len, errors, erased) = match link {
            Link::Downlink => self.correct_downlink(st, fit)?,
            Link::Uplink => self.correct_uplink(st)?,
        };
        let bits = match len {
            BASIC_DATA => 8 * BASIC_BYTES,
            LONG_DATA => 8 * LONG_BYTES,
            _ => 8 * UPLINK_BYTES,
        };
        let end = data + 2 * bits;
        let mut power = 0u64;
        for d in &st.d[start + 1..end.min(st.len)] {
            let (re, im) = (i64::from(d[0]), i64::from(d[1]));
            power += libm::sqrt((re * re + im * im) as f64) as u64;
        }
        let n = (end.min(st.len) - start - 1).max(1) as f64;
        // |D| = 25/32 |b − 127.4|²; full scale |b − 127.4|² = 127.4².
        let mean = power as f64 / n * 32.0 / 25.0 / (127.4 * 127.4);
        st.msg.rssi_dbfs = if mean > 0.0 {
            (10.0 * libm::log10(mean)) as f32
        } else {
            -100.0
        };
        st.msg.link = link;
        st.msg.sample = st.base + start as u64;
        st.msg.errors = errors as u16;
        st.msg.len = len as u16;
        match link {
            Link::Downlink => st.stats.downlink += 1,
            Link::Uplink => st.stats.uplink += 1,
        }
        if erased {
            st.stats.by_erasure += 1;
        }
        Some(end)
    }

    /// Correct one block: errors only, then (if on) with the 2, 4, … up
    /// to `R − 6` least confident bytes erased, keeping two parity bytes
    /// unused. `block` gets the corrected bytes; returns the bytes
    /// corrected and whether erasures were needed.
    fn ladder(
        &self,
        code: &ReedSolomon,
        raw: &[u8],
        conf: &[u16],
        type_ok: fn(u8) -> bool,
        block: &mut [u8],
    ) -> Option<(usize, bool)> {
        let n = raw.len();
        block[..n].copy_from_slice(raw);
        if let Ok(e) = code.decode(&mut block[..n], &[]) {
            if type_ok(block[0] >> 3) {
                return Some((e, false));
            }
        }
        if !self.erasures {
            return None;
        }
        let mut order = [0u8; UPLINK_BLOCK_BYTES];
        least_confident(conf, &mut order[..n]);
        let r = code.roots();
        let mut e = 2;
        while e + 4 <= r {
            block[..n].copy_from_slice(raw);
            if let Ok(found) = code.decode(&mut block[..n], &order[..e]) {
                if 2 * found.saturating_sub(e) + e + 2 <= r && type_ok(block[0] >> 3) {
                    return Some((found, true));
                }
            }
            e += 2;
        }
        None
    }

    /// `(data length, corrected bytes, erasures used)` of a downlink
    /// message in `st.raw[..fit]`, copied into `st.msg.data`.
    fn correct_downlink<const N: usize>(
        &self,
        st: &mut DemodState<N>,
        fit: usize,
    ) -> Option<(usize, usize, bool)> {
        let mut block = [0u8; LONG_BYTES];
        if fit >= LONG_BYTES {
            let long = self.ladder(
                &ReedSolomon::DOWNLINK_LONG,
                &st.raw[..LONG_BYTES],
                &st.conf[..LONG_BYTES],
                |t| t != 0,
                &mut block,
            );
            if let Some((e, er)) = long {
                st.msg.data[..LONG_DATA].copy_from_slice(&block[..LONG_DATA]);
                return Some((LONG_DATA, e, er));
            }
        }
        let (e, er) = self.ladder(
            &ReedSolomon::DOWNLINK_BASIC,
            &st.raw[..BASIC_BYTES],
            &st.conf[..BASIC_BYTES],
            |t| t == 0,
            &mut block,
        )?;
        st.msg.data[..BASIC_DATA].copy_from_slice(&block[..BASIC_DATA]);
        Some((BASIC_DATA, e, er))
    }

    /// The six interleaved blocks of an uplink message in `st.raw`.
    fn correct_uplink<const N: usize>(
        &self,
        st: &mut DemodState<N>,
    ) -> Option<(usize, usize, bool)> {
        let mut total = 0;
        let mut any_erased = false;
        for j in 0..UPLINK_BLOCKS {
            let mut raw = [0u8; UPLINK_BLOCK_BYTES];
            let mut conf = [0u16; UPLINK_BLOCK_BYTES];
            for i in 0..UPLINK_BLOCK_BYTES {
                raw[i] = st.raw[UPLINK_BLOCKS * i + j];
                conf[i] = st.conf[UPLINK_BLOCKS * i + j];
            }
            let mut block = [0u8; UPLINK_BLOCK_BYTES];
            let (e, er) = self.ladder(&ReedSolomon::UPLINK, &raw, &conf, |_| true, &mut block)?;
            total += e;
            any_erased |= er;
            st.msg.data[j * UPLINK_BLOCK_DATA..(j + 1) * UPLINK_BLOCK_DATA]
                .copy_from_slice(&block[..UPLINK_BLOCK_DATA]);
        }
        Some((UPLINK_DATA, total, any_erased))
    }
}

/// The slicing centre of the sync word starting at `m0` and how far its
/// bits stand from it (`Σ ±(y − centre)`), if no more than `max` of them
/// fall on the wrong side.
fn sync_fit<const N: usize>(
    st: &DemodState<N>,
    m0: usize,
    pattern: u64,
    max: u8,
) -> Option<(i32, i64)> {
    if m0 + 2 * SYNC_BITS + 1 >= st.len {
        return None;
    }
    let (mut ones, mut zeros) = (0i64, 0i64);
    let mut n1 = 0i64;
    for i in 0..SYNC_BITS {
        let y = i64::from(st.y(m0 + 2 * i));
        if pattern >> (SYNC_BITS - 1 - i) & 1 == 1 {
            ones += y;
            n1 += 1;
        } else {
            zeros += y;
        }
    }
    let n0 = SYNC_BITS as i64 - n1;
    let centre = ((ones * n0 + zeros * n1) / (2 * n0 * n1)) as i32;
    let mut wrong = 0u8;
    let mut margin = 0i64;
    for i in 0..SYNC_BITS {
        let s = i64::from(st.y(m0 + 2 * i) - centre);
        let one = pattern >> (SYNC_BITS - 1 - i) & 1 == 1;
        if (s > 0) != one {
            wrong += 1;
        }
        margin += if one { s } else { -s };
    }
    (wrong <= max && margin > 0).then_some((centre, margin))
}

/// Fill `order` with the indices `0..conf.len()` by increasing confidence
/// (insertion sort: at most 92 entries, mostly in order already).
fn least_confident(conf: &[u16], order: &mut [u8]) {
    for (i, o) in order.iter_mut().enumerate() {
        *o = i as u8;
    }
    for i in 1..order.len() {
        let mut j = i;
        while j > 0 && conf[order[j - 1] as usize] > conf[order[j] as usize] {
            order.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests;
