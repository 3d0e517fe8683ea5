//! UAT demodulator: RTL-SDR `cu8` I/Q bytes at [`SAMPLE_RATE`] (two
//! samples per bit) in, Reed–Solomon-corrected downlink and uplink
//! messages out.
//!
//! # Pipeline
//!
//! 1. **Discriminator.** Each sample is centred, `a = b − 127` per
//!    component (`b` the byte), and the lag product's imaginary part
//!    `Im D_n = Im{a_n · conj(a_(n−1))}` is formed as the scan reaches it:
//!    `arg D_n` is the phase step from sample `n − 1` to `n`.
//! 2. **Soft bits.** The bit starting at sample `m` is
//!    `y(m) = Im D_(m+1) + Im D_(m+2)`: the phase steps across the bit,
//!    weighted by the power (a differential detector, so a weak, noisy
//!    sample counts for little). A `1` moves the phase +108° per bit.
//! 3. **Sync search.** The signs of `y` at every sample go into two 36-bit
//!    shift registers, one per sample parity; a register within
//!    `max_sync_errors` (default 6) bits of [`DOWNLINK_SYNC`] or of its
//!    complement [`UPLINK_SYNC`] (counted by three look-ups in a 4 KiB
//!    table) marks a candidate.
//! 4. **Centre.** The differential slicing level is the midpoint of the
//!    mean `y` of the sync word's ones and of its zeros (a carrier offset
//!    adds the same phase step to every sample); the sync word must still
//!    have at most `max_sync_errors` bits wrong against it.
//! 5. **Carrier.** With the known modulation of the sync word taken out of
//!    its 73 samples, the carrier offset is estimated from their lag-1
//!    products and refined at lags 4 and 16, and the carrier's amplitude
//!    and phase from the last 32; the *coherence*, the share of the sync
//!    samples' power that follows the expected phase path (about
//!    `SNR/(1 + SNR)`, about 0.02 on noise), must reach 0.2. Of the two
//!    sample phases (the candidate's and the next), the more coherent is
//!    decoded first, the other if that fails.
//! 6. **Bits.** A strong sync word (coherence ≥ 0.75, about 5 dB) is first
//!    sliced differentially: bit = `y > centre`, a byte's confidence the
//!    least `|y − centre|` of its bits. If that does not decode, or the
//!    sync word is weaker, the message is read by coherent sequence
//!    detection: a 10-state Viterbi search over the CPFSK phase trellis
//!    with a carrier reference per survivor (module `trellis`), a byte's
//!    confidence the least path-metric margin of its bits. On generated
//!    messages the search decodes at 2–3 dB what differential detection
//!    decodes at 5–6 dB.
//! 7. **Reed–Solomon.** Downlink: long RS(48, 34) first (payload type not
//!    0), then basic RS(30, 18) (type 0), as dump978 does. Uplink: the six
//!    interleaved RS(92, 72) blocks, each of which must decode. Each code
//!    is tried errors-only first (up to `R/2` errors); if that fails and
//!    erasures are on, again with the `e` least confident bytes erased,
//!    `e` = 2, 4, … up to `R − 4`, accepting only corrections that leave
//!    at least two parity bytes unused (`2·errors + erasures ≤ R − 2`).
//!    On generated messages erasures add a few messages to differential
//!    detection at 5–6 dB and none to the trellis search (whose failures
//!    are whole-message, not a byte or two past the code's reach).
//! 8. After a message the scan resumes at its end; after a failure, at the
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
//! [`DemodState`]`<N, B>` keeps `N` samples (2 bytes each) and the
//! scratch of one message of up to `B` bytes (its bytes, confidences and
//! trellis decisions and margins: 179 bytes a byte). Uplink needs
//! `N ≥` [`UPLINK_STATE`] and `B` = 552 (the default: about 100 KiB of
//! scratch); downlink alone [`DOWNLINK_STATE`] and 48
//! ([`DownlinkState`], about 13 KiB), with which uplink is not searched.
//!
//! # Cost
//!
//! x86-64 instructions per input sample (callgrind, the `uat_vs_dump978`
//! scene of 60 aircraft and 4 uplinks a second): about 50, of which the
//! sync search (steps 1–3) is about 35 and the rest the candidates.

mod trellis;

use super::adsb::{Downlink, DownlinkRepr};
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

/// The smallest state, for downlink only (a microcontroller's): 2,048
/// samples and the scratch of one long message, about 13 KiB.
pub type DownlinkState = DemodState<DOWNLINK_STATE, LONG_BYTES>;
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

    /// What a downlink message says; `None` for an uplink (or a length
    /// its payload type does not fit).
    pub fn downlink(&self) -> Option<DownlinkRepr> {
        if self.link != Link::Downlink {
            return None;
        }
        DownlinkRepr::parse(&Downlink::new_unchecked(self.bytes())).ok()
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
    /// Candidates given a coherent trellis search.
    pub searched: u64,
    /// Downlink messages out.
    pub downlink: u64,
    /// Uplink messages out.
    pub uplink: u64,
    /// Messages that needed erasures to decode.
    pub by_erasure: u64,
}

/// The demodulator's state: the sample history, the sync registers and
/// the scratch of one message. `N` samples, scratch for `B` bytes (48
/// for downlink, 552 for uplink too); see the module docs for sizes.
#[derive(Debug, Clone)]
pub struct DemodState<const N: usize = UPLINK_STATE, const B: usize = UPLINK_BYTES> {
    /// The samples (`cu8` pairs).
    x: [[u8; 2]; N],
    len: usize,
    /// Absolute sample index of `x[0]`.
    base: u64,
    /// Next bit-start position to shift into a register.
    scan: usize,
    /// Positions below this are not candidates again (the second phase
    /// of a failed candidate).
    skip_until: usize,
    regs: [u64; 2],
    odd_byte: Option<u8>,
    /// Scratch: one message's bytes and their confidences.
    raw: [u8; B],
    conf: [u16; B],
    /// Scratch: the trellis search's decisions, one mask of states a bit.
    choices: [[u16; 8]; B],
    /// Scratch: path-metric differences at each state and bit.
    deltas: [[[u16; 10]; 8]; B],
    msg: Message,
    /// What has happened so far.
    pub stats: DemodStats,
}

impl<const N: usize, const B: usize> Default for DemodState<N, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const B: usize> DemodState<N, B> {
    /// An empty state.
    pub const fn new() -> Self {
        const { assert!(N >= DOWNLINK_STATE && B >= LONG_BYTES) };
        Self {
            x: [[0; 2]; N],
            len: 0,
            base: 0,
            scan: 0,
            skip_until: 0,
            regs: [UNMATCHED; 2],
            odd_byte: None,
            raw: [0; B],
            conf: [0; B],
            choices: [[0; 8]; B],
            deltas: [[[0; 10]; 8]; B],
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
                searched: 0,
                downlink: 0,
                uplink: 0,
                by_erasure: 0,
            },
        }
    }

    /// Soft bit at position `m`: `Im D_(m+1) + Im D_(m+2)`.
    #[inline(always)]
    fn y(&self, m: usize) -> i32 {
        im_lag(&self.x, m + 1) + im_lag(&self.x, m + 2)
    }
}

/// How bits are decided.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Slicer {
    /// Differential detection against this centre.
    Differential(i32),
    /// The coherent trellis search with the carrier from the sync word.
    Coherent(trellis::Carrier),
}

/// A sync register that matches neither sync word (18 bits off each):
/// the registers after a message, until 36 new bits have shifted in.
const UNMATCHED: u64 = DOWNLINK_SYNC ^ 0x3_FFFF;

/// Bit errors of a sync register against [`DOWNLINK_SYNC`] (36 minus
/// them against [`UPLINK_SYNC`]), three table look-ups.
#[inline(always)]
fn sync_errors(reg: u64) -> u32 {
    let x = (reg ^ DOWNLINK_SYNC) as usize;
    u32::from(POPCOUNT12[x & 0xFFF])
        + u32::from(POPCOUNT12[(x >> 12) & 0xFFF])
        + u32::from(POPCOUNT12[(x >> 24) & 0xFFF])
}

/// Set bits of every 12-bit value.
static POPCOUNT12: [u8; 4096] = {
    let mut t = [0u8; 4096];
    let mut i = 0;
    while i < 4096 {
        t[i] = (i as u32).count_ones() as u8;
        i += 1;
    }
    t
};

/// Append whole I/Q pairs (`pairs.len()` even, room for them checked by
/// the caller) to the sample history.
fn fill<const N: usize, const B: usize>(st: &mut DemodState<N, B>, pairs: &[u8]) {
    let n = pairs.len() / 2;
    let at = st.len;
    st.x[at..at + n]
        .as_flattened_mut()
        .copy_from_slice(&pairs[..2 * n]);
    st.len += n;
    st.stats.samples += n as u64;
}

/// A byte centred: `b − 127` (the zero level is 127.4; the 0.4 left is
/// far below the noise and adds no bias to the phase steps' signs).
#[inline(always)]
fn centred(b: u8) -> i32 {
    i32::from(b) - 127
}

/// A sample centred ([`centred`]) per component.
#[inline(always)]
fn centred_pair(s: [u8; 2]) -> [i32; 2] {
    [centred(s[0]), centred(s[1])]
}

/// `Im{a · conj(p)} = a1 p0 − a0 p1` of two centred samples (at most
/// 2·128² in size).
#[inline(always)]
fn im_cross(a: [i32; 2], p: [i32; 2]) -> i32 {
    a[1] * p[0] - a[0] * p[1]
}

/// `Im D_n = Im{a_n · conj(a_(n−1))}` (`n ≥ 1`).
#[inline(always)]
fn im_lag(x: &[[u8; 2]], n: usize) -> i32 {
    im_cross(centred_pair(x[n]), centred_pair(x[n - 1]))
}

/// UAT demodulator configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Demodulator {
    max_sync_errors: u8,
    erasures: bool,
    uplink: bool,
    coherent: bool,
}

impl Default for Demodulator {
    fn default() -> Self {
        Self::new()
    }
}

impl Demodulator {
    /// Defaults: sync words with up to 6 bit errors, erasure decoding on,
    /// the coherent trellis search on, uplink searched (if the state is
    /// large enough).
    pub const fn new() -> Self {
        Self {
            max_sync_errors: 6,
            erasures: true,
            uplink: true,
            coherent: true,
        }
    }

    /// Erasure decoding on or off (off: errors-only, as dump978).
    pub const fn with_erasures(self, on: bool) -> Self {
        Self {
            erasures: on,
            ..self
        }
    }

    /// The coherent trellis search on or off (off: differential
    /// detection only).
    pub const fn with_coherent(self, on: bool) -> Self {
        Self {
            coherent: on,
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

    fn span<const N: usize, const B: usize>(&self) -> usize {
        if self.uplink && N >= UPLINK_STATE && B >= UPLINK_BYTES {
            UPLINK_SPAN
        } else {
            DOWNLINK_SPAN
        }
    }

    /// Feed `bytes` (interleaved I, Q) and pass every message completed
    /// to `sink`.
    pub fn process<const N: usize, const B: usize>(
        &self,
        st: &mut DemodState<N, B>,
        bytes: &[u8],
        mut sink: impl FnMut(&Message),
    ) {
        let mut rest = bytes;
        if let Some(i) = st.odd_byte.take() {
            match rest.split_first() {
                Some((&q, tail)) => {
                    self.make_room(st, &mut sink);
                    fill(st, &[i, q]);
                    rest = tail;
                }
                None => {
                    st.odd_byte = Some(i);
                    return;
                }
            }
        }
        while rest.len() >= 2 {
            self.make_room(st, &mut sink);
            let n = (rest.len() / 2).min(N - st.len);
            let (now, later) = rest.split_at(2 * n);
            fill(st, now);
            rest = later;
        }
        if let [i] = rest {
            st.odd_byte = Some(*i);
        }
        let limit = st.len.saturating_sub(self.span::<N, B>());
        self.scan(st, limit, &mut sink);
    }

    /// End of stream: decode what still fits.
    pub fn finish<const N: usize, const B: usize>(
        &self,
        st: &mut DemodState<N, B>,
        mut sink: impl FnMut(&Message),
    ) {
        let limit = st.len.saturating_sub(3);
        self.scan(st, limit, &mut sink);
    }

    /// If the history is full: scan what can be scanned, then drop what no
    /// candidate can reach back to any more.
    fn make_room<const N: usize, const B: usize>(
        &self,
        st: &mut DemodState<N, B>,
        sink: &mut impl FnMut(&Message),
    ) {
        if st.len < N {
            return;
        }
        let limit = st.len - self.span::<N, B>();
        self.scan(st, limit, sink);
        // Even, so that every position keeps its sync register's parity.
        let from = st.scan.saturating_sub(2 * SYNC_BITS) & !1;
        st.x.copy_within(from..st.len, 0);
        st.len -= from;
        st.scan -= from;
        st.skip_until = st.skip_until.saturating_sub(from);
        st.base += from as u64;
    }

    fn scan<const N: usize, const B: usize>(
        &self,
        st: &mut DemodState<N, B>,
        limit: usize,
        sink: &mut impl FnMut(&Message),
    ) {
        let max = u32::from(self.max_sync_errors);
        let uplink = self.span::<N, B>() == UPLINK_SPAN;
        // No sync word while `lo < errors < hi` (errors against the
        // downlink word; the uplink word is its complement).
        let lo = max;
        let hi = if uplink {
            SYNC_BITS as u32 - max
        } else {
            u32::MAX
        };
        let quiet = |e: u32| e.wrapping_sub(lo + 1) < hi.wrapping_sub(lo + 1);
        let link_of = |e: u32| {
            if e <= lo {
                Link::Downlink
            } else {
                Link::Uplink
            }
        };
        while st.scan < limit {
            // The tight loop on locals: the next position whose register
            // is within `max` bits of a sync word.
            let x = &st.x[..limit + 2];
            let mut m = st.scan;
            // `ra` is the register of position m's parity, `rb` the other;
            // `d1` is Im D_(m+1) and `c1` the centred sample m + 1, carried.
            let (mut ra, mut rb) = (st.regs[m & 1], st.regs[(m + 1) & 1]);
            let mut hit = None;
            let mut c1 = centred_pair(x[m + 1]);
            let mut d1 = im_lag(x, m + 1);
            // One position: the bit starting at m goes into `reg`.
            let mut step = |m: usize, reg: &mut u64| {
                let c2 = centred_pair(x[m + 2]);
                let d2 = im_cross(c2, c1);
                *reg = ((*reg << 1) | u64::from(d1 + d2 > 0)) & SYNC_MASK;
                (c1, d1) = (c2, d2);
                sync_errors(*reg)
            };
            while m < limit {
                let e = step(m, &mut ra);
                m += 1;
                if !quiet(e) {
                    hit = Some(link_of(e));
                    break;
                }
                if m == limit {
                    break;
                }
                let e = step(m, &mut rb);
                m += 1;
                if !quiet(e) {
                    hit = Some(link_of(e));
                    break;
                }
            }
            // `ra` belongs to the first position's parity, `rb` to the
            // other, wherever the loop stopped.
            let first = st.scan;
            st.regs[first & 1] = ra;
            st.regs[(first + 1) & 1] = rb;
            st.scan = m;
            let Some(link) = hit else { break };
            // `m − 1` is the start of the sync word's last bit.
            let last = m - 1;
            // (A register not yet refilled after the stream's start can
            // match before a whole sync word lies behind it.)
            let Some(m0) = (last + 2).checked_sub(2 * SYNC_BITS) else {
                continue;
            };
            if last < st.skip_until {
                continue;
            }
            st.stats.candidates += 1;
            if let Some(end) = self.candidate(st, m0, link, sink) {
                st.scan = end;
                st.regs = [UNMATCHED; 2];
            } else {
                st.skip_until = last + 2;
            }
        }
    }

    /// Try both sample phases of a sync word starting at `m0`; the end
    /// position of a decoded message.
    fn candidate<const N: usize, const B: usize>(
        &self,
        st: &mut DemodState<N, B>,
        m0: usize,
        link: Link,
        sink: &mut impl FnMut(&Message),
    ) -> Option<usize> {
        let pattern = match link {
            Link::Downlink => DOWNLINK_SYNC,
            Link::Uplink => UPLINK_SYNC,
        };
        let mut tries = [None, None];
        for (t, start) in tries.iter_mut().zip([m0, m0 + 1]) {
            let Some((centre, margin)) = sync_fit(st, start, pattern, self.max_sync_errors) else {
                continue;
            };
            *t = if self.coherent {
                trellis::Carrier::from_sync(st, start, pattern)
                    .filter(|c| c.coherence() >= trellis::MIN_COHERENCE)
                    .map(|c| (start, c.coherence(), centre, Some(c)))
            } else {
                Some((start, margin as f32, centre, None))
            };
        }
        if tries[1].map(|t| t.1) > tries[0].map(|t| t.1) {
            tries.swap(0, 1);
        }
        for (start, _, centre, carrier) in tries.into_iter().flatten() {
            // A strong sync word is sliced differentially first (cheap, and
            // as good at high SNR); the trellis search when that fails or
            // the sync word is weak.
            let strong = carrier.is_none_or(|c| c.coherence() >= trellis::STRONG_COHERENCE);
            let first = strong.then_some(Slicer::Differential(centre));
            let second = carrier.map(Slicer::Coherent);
            for slicer in [first, second].into_iter().flatten() {
                if let Some(end) = self.decode_at(st, start, slicer, link) {
                    sink(&st.msg);
                    return Some(end);
                }
            }
        }
        None
    }

    /// Slice and correct the message whose sync starts at `start`; on
    /// success `st.msg` holds it and the end position is returned.
    fn decode_at<const N: usize, const B: usize>(
        &self,
        st: &mut DemodState<N, B>,
        start: usize,
        slicer: Slicer,
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
        match slicer {
            Slicer::Differential(centre) => {
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
            }
            Slicer::Coherent(carrier) => {
                st.stats.searched += 1;
                trellis::detect(st, start, &carrier, 8 * fit);
            }
        }
        let res = match link {
            Link::Downlink => self.correct_downlink(st, fit),
            Link::Uplink => self.correct_uplink(st),
        };
        let (len, errors, erased) = res?;
        let bits = match len {
            BASIC_DATA => 8 * BASIC_BYTES,
            LONG_DATA => 8 * LONG_BYTES,
            _ => 8 * UPLINK_BYTES,
        };
        let end = data + 2 * bits;
        let mut power = 0.0f64;
        let stop = end.min(st.len);
        for &[i, q] in &st.x[start..stop] {
            let (i, q) = (f64::from(i) - 127.4, f64::from(q) - 127.4);
            power += i * i + q * q;
        }
        // Relative to a full-scale complex sine, |b − 127.4| = 127.4.
        let mean = power / (stop - start).max(1) as f64 / (127.4 * 127.4);
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
        while e + 2 <= r {
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
    fn correct_downlink<const N: usize, const B: usize>(
        &self,
        st: &mut DemodState<N, B>,
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
    fn correct_uplink<const N: usize, const B: usize>(
        &self,
        st: &mut DemodState<N, B>,
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
fn sync_fit<const N: usize, const B: usize>(
    st: &DemodState<N, B>,
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
