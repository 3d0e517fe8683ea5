//! Mode S parity: the 24-bit CRC, syndromes and bit-error repair.
//!
//! # The code
//!
//! Mode S protects every reply with a 24-bit cyclic code (ICAO Annex 10
//! Vol IV §3.1.2.3.3) whose generator is
//!
//! ```text
//! G(x) = x²⁴ + x²³ + … + x¹³ + x¹² + x¹⁰ + x³ + 1   (0x1FFF409; 0xFFF409 without x²⁴)
//! ```
//!
//! The CRC is computed most significant bit first with a zero initial value
//! and no final XOR: [`crc24`] of the first `N − 24` bits of a frame is the
//! remainder of `D(x)·x²⁴` by `G(x)`. The transponder sends it in the last
//! 24 bits, possibly XORed with an overlay (the "address/parity" and
//! "parity/interrogator identifier" fields).
//!
//! # The remainder (syndrome)
//!
//! [`remainder`] is the CRC of the first `N − 3` bytes XOR the last 3 bytes,
//! i.e. the remainder of the whole received frame polynomial by `G(x)`. What
//! it equals depends on the format:
//!
//! | format | last 24 bits | remainder of an error-free frame |
//! |---|---|---|
//! | DF17, DF18 (PI), DF11 replying to a squitter or to II = 0 | parity | `0` |
//! | DF11 all-call reply to an interrogator with II/SI code | parity ⊕ `CL‖IC` | the 7-bit code `CL‖IC` (e.g. 22 = SI 6) |
//! | DF0, 4, 5, 16, 20, 21, 24 (AP) | parity ⊕ address | the 24-bit ICAO address |
//!
//! So for AP formats the remainder *is* the address, and a transmission
//! error silently yields a different address; only PI formats whose expected
//! remainder is 0 can be checked and repaired.
//!
//! # Error repair
//!
//! The code is linear, so a frame `M` received as `M ⊕ E` has remainder
//! `rem(M) ⊕ rem(E)`. A single flipped bit at position `i` (0-based from the
//! first DF bit) of an `n`-bit frame contributes the fixed syndrome
//! `x^(n−1−i) mod G` ([`syndrome_of_bit`]). The 112 syndromes `x^0 … x^111`
//! are distinct, and so are all 6,216 XORs of two of them and the 112 single
//! ones (the code has minimum distance 6 over 112 bits: no 3-bit error
//! aliases a 1- or 2-bit one — both tested). Hence:
//!
//! - [`repair`] with `max_bits = 1` fixes any 1-bit error of a 56- or
//!   112-bit frame, using a 112-entry sorted table (448 B, binary search),
//! - [`repair`] with `max_bits ≥ 2` also fixes any 2-bit error of a 112-bit
//!   frame, using a sorted table of all 6,216 pair syndromes (6,216 × 4 B =
//!   24,864 B of read-only data, built by `const` evaluation with a heap
//!   sort, well below the `long_running_const_eval` threshold; binary
//!   search, 13 steps). Only code that calls [`repair`] links it; [`repair_single`]
//!   and [`repair_within`] use only the 448 B table.
//! - [`repair_within`] is the soft-decision variant: it flips only bits from
//!   a caller-supplied list (e.g. the least confident bits from the
//!   demodulator), up to 3 of them.
//!
//! Repair never flips any of the first 5 bits (the DF field): a syndrome
//! that points into the DF is reported as unrepairable, because a corrupted
//! DF would change how the whole frame is read. Repair is only meaningful for
//! formats whose error-free remainder is 0 (DF17, DF18, DF11 with IID 0):
//! for AP formats any syndrome is a plausible address.
//!
//! Two-bit repair multiplies the chance of accepting a wrong frame (a 4-bit
//! error may look like a different 2-bit one); decoders usually enable it
//! only for DF17/18 and keep the result on probation.

/// The 25-bit generator polynomial `G(x)`, with the `x²⁴` term.
pub const GENERATOR: u32 = 0x1FF_F409;

/// The generator without the implicit `x²⁴` term, as used in the shift
/// register.
pub const POLY: u32 = 0xFF_F409;

/// Bit length of a short (DF 0–15) frame.
pub const SHORT_BITS: usize = 56;

/// Bit length of a long (DF 16–31) frame.
pub const LONG_BITS: usize = 112;

/// Number of leading bits (the DF field) that repair never flips.
pub const PROTECTED_BITS: usize = 5;

/// Most candidate positions that [`repair_within`] considers; further
/// entries of the list are ignored.
pub const MAX_CANDIDATES: usize = 24;

const MASK24: u32 = 0xFF_FFFF;

/// Byte-wise CRC table: `TABLE[b]` is the CRC of the single byte `b`
/// (1 KiB).
static TABLE: [u32; 256] = make_table();

const fn make_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut b = 0;
    while b < 256 {
        let mut c = (b as u32) << 16;
        let mut k = 0;
        while k < 8 {
            c <<= 1;
            if c & 0x100_0000 != 0 {
                c ^= GENERATOR;
            }
            k += 1;
        }
        t[b] = c & MASK24;
        b += 1;
    }
    t
}

/// `POW[k] = x^k mod G(x)`, the syndrome of a flip `k` bits before the end
/// of a frame, for `k < 112`.
static POW: [u32; LONG_BITS] = make_pow();

const fn make_pow() -> [u32; LONG_BITS] {
    let mut p = [0u32; LONG_BITS];
    let mut s = 1u32;
    let mut k = 0;
    while k < LONG_BITS {
        p[k] = s;
        s <<= 1;
        if s & 0x100_0000 != 0 {
            s ^= GENERATOR;
        }
        k += 1;
    }
    p
}

/// Single-bit syndromes sorted: `syndrome << 8 | k`, `k = n − 1 − bit`.
static SINGLE: [u32; LONG_BITS] = make_single();

const fn make_single() -> [u32; LONG_BITS] {
    let pow = make_pow();
    let mut t = [0u32; LONG_BITS];
    let mut k = 0;
    while k < LONG_BITS {
        t[k] = (pow[k] << 8) | k as u32;
        k += 1;
    }
    heap_sort(&mut t);
    t
}

/// Number of bit pairs in a 112-bit frame, `112·111/2`.
pub const PAIRS_112: usize = LONG_BITS * (LONG_BITS - 1) / 2;

/// Two-bit syndromes sorted: `syndrome << 8 | k_hi`, where `k_hi` is the
/// larger of the two `k = 111 − bit` values; the other one is found in
/// [`SINGLE`] from `syndrome ⊕ x^k_hi`.
static PAIRS: [u32; PAIRS_112] = make_pairs();

const fn make_pairs() -> [u32; PAIRS_112] {
    let pow = make_pow();
    let mut t = [0u32; PAIRS_112];
    let mut n = 0;
    let mut hi = 1;
    while hi < LONG_BITS {
        let mut lo = 0;
        while lo < hi {
            t[n] = ((pow[hi] ^ pow[lo]) << 8) | hi as u32;
            n += 1;
            lo += 1;
        }
        hi += 1;
    }
    heap_sort(&mut t);
    t
}

/// In-place heap sort usable in `const` evaluation (O(n log n)).
const fn heap_sort<const N: usize>(a: &mut [u32; N]) {
    // Build a max-heap.
    let mut start = N / 2;
    while start > 0 {
        start -= 1;
        sift_down(a, start, N);
    }
    let mut end = N;
    while end > 1 {
        end -= 1;
        let tmp = a[0];
        a[0] = a[end];
        a[end] = tmp;
        sift_down(a, 0, end);
    }
}

const fn sift_down<const N: usize>(a: &mut [u32; N], mut root: usize, end: usize) {
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && a[child] < a[child + 1] {
            child += 1;
        }
        if a[root] >= a[child] {
            return;
        }
        let tmp = a[root];
        a[root] = a[child];
        a[child] = tmp;
        root = child;
    }
}

/// Binary search of a table of `syndrome << 8 | payload` entries sorted by
/// syndrome; returns the payload.
#[inline]
fn lookup(table: &[u32], syndrome: u32) -> Option<u8> {
    let key = syndrome << 8;
    match table.binary_search_by(|e| (e & !0xFF).cmp(&key)) {
        Ok(i) => table.get(i).map(|e| *e as u8),
        Err(_) => None,
    }
}

/// CRC-24 of `data`: the remainder of `D(x)·x²⁴` by [`GENERATOR`], MSB
/// first, initial value 0, no final XOR. Table-driven, one lookup per byte.
///
/// ```
/// use airwaves_core::modes::crc::crc24;
/// // DF17 identification frame: CRC of the first 11 bytes = its last 3.
/// let f = [0x8D, 0x40, 0x6B, 0x90, 0x20, 0x15, 0xA6, 0x78, 0xD4, 0xD2, 0x20];
/// assert_eq!(crc24(&f), 0xAA4BDA);
/// assert_eq!(crc24(&[]), 0);
/// ```
#[inline]
pub fn crc24(data: &[u8]) -> u32 {
    let mut c = 0u32;
    for &b in data {
        c = ((c << 8) & MASK24) ^ TABLE[(((c >> 16) as u8) ^ b) as usize];
    }
    c
}

/// Remainder (syndrome) of a received frame: [`crc24`] of all but the last
/// 3 bytes, XOR the last 3 bytes (big-endian). Equivalently, the remainder
/// of the whole frame polynomial by [`GENERATOR`]; a frame shorter than 3
/// bytes is its own remainder.
///
/// It is 0 for an error-free DF17/DF18 (and DF11 with IID 0), the ICAO
/// address for AP formats (DF0/4/5/16/20/21/24), and the interrogator code
/// `CL‖IC` for DF11 replies to an interrogator (see the module docs).
///
/// ```
/// use airwaves_core::modes::crc::remainder;
/// let df17 = [0x8D, 0x40, 0x6B, 0x90, 0x20, 0x15, 0xA6, 0x78, 0xD4, 0xD2, 0x20, 0xAA, 0x4B, 0xDA];
/// assert_eq!(remainder(&df17), 0);
/// // DF5 (AP): the remainder is the address.
/// assert_eq!(remainder(&[0x2A, 0x00, 0x51, 0x6D, 0x49, 0x2B, 0x80]), 0x510AF9);
/// ```
#[inline]
pub fn remainder(msg: &[u8]) -> u32 {
    match msg.len().checked_sub(3) {
        Some(n) => {
            let (data, p) = msg.split_at(n);
            let parity = p.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
            crc24(data) ^ parity
        }
        None => msg.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b)),
    }
}

/// Syndrome of a single flipped bit: `x^(len_bits − 1 − bit) mod G(x)`.
/// `bit` counts from 0 at the first DF bit. XOR the syndromes of several
/// bits to get the syndrome of flipping all of them.
///
/// Returns 0 (the syndrome of "no error") when `bit >= len_bits` or
/// `len_bits > 112`.
///
/// ```
/// use airwaves_core::modes::crc::syndrome_of_bit;
/// assert_eq!(syndrome_of_bit(112, 111), 1); // last parity bit
/// assert_eq!(syndrome_of_bit(56, 32), 1 << 23); // first parity bit of a short frame
/// assert_eq!(syndrome_of_bit(56, 0), syndrome_of_bit(112, 56));
/// assert_eq!(syndrome_of_bit(56, 56), 0);
/// ```
#[inline]
pub const fn syndrome_of_bit(len_bits: usize, bit: usize) -> u32 {
    if bit >= len_bits || len_bits > LONG_BITS {
        return 0;
    }
    POW[len_bits - 1 - bit]
}

/// Flip bit `bit` (0 = MSB of byte 0). Out-of-range bits are ignored.
#[inline]
fn flip(msg: &mut [u8], bit: usize) {
    if let Some(b) = msg.get_mut(bit / 8) {
        *b ^= 0x80 >> (bit % 8);
    }
}

/// Bit positions located by [`locate`]: up to 3 positions (0-based from the
/// first DF bit), in increasing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BitErrors {
    bits: [u8; 3],
    len: u8,
}

impl BitErrors {
    /// No error.
    ///
    /// ```
    /// use airwaves_core::modes::crc::BitErrors;
    /// assert!(BitErrors::NONE.bits().is_empty());
    /// ```
    pub const NONE: Self = Self {
        bits: [0; 3],
        len: 0,
    };

    fn from_slice(bits: &[u8]) -> Self {
        let mut e = Self::NONE;
        for (d, s) in e.bits.iter_mut().zip(bits) {
            *d = *s;
        }
        e.len = bits.len().min(3) as u8;
        e.bits[..e.len as usize].sort_unstable();
        e
    }

    /// The bit positions, in increasing order.
    pub fn bits(&self) -> &[u8] {
        &self.bits[..usize::from(self.len).min(3)]
    }

    /// Number of bits.
    pub fn count(&self) -> u8 {
        self.len
    }

    /// Flip these bits in `msg` (positions beyond `msg` are ignored).
    pub fn apply(&self, msg: &mut [u8]) {
        for &b in self.bits() {
            flip(msg, usize::from(b));
        }
    }
}

/// Frame length in bits if `len` is a Mode S length (7 or 14 bytes).
#[inline]
fn frame_bits(len: usize) -> Option<usize> {
    match len {
        7 => Some(SHORT_BITS),
        14 => Some(LONG_BITS),
        _ => None,
    }
}

/// `k = n − 1 − bit` to a bit position, if it lies outside the DF field.
#[inline]
fn position(n: usize, k: u8) -> Option<u8> {
    let k = usize::from(k);
    let bit = n.checked_sub(1 + k)?;
    (bit >= PROTECTED_BITS).then_some(bit as u8)
}

/// Locate the 1-bit error of an `n`-bit frame with the given syndrome.
#[inline]
fn locate_single(n: usize, syndrome: u32) -> Option<u8> {
    position(n, lookup(&SINGLE, syndrome)?)
}

/// Locate the bits whose flip explains `syndrome` in a frame of `len_bits`
/// (56 or 112) bits, trying 1 bit and, if `max_bits ≥ 2` and the frame is
/// 112 bits, 2 bits. Returns `Some(BitErrors::NONE)` for syndrome 0, `None`
/// if no pattern fits, the frame length is not 56/112, `max_bits` is 0 (and
/// the syndrome non-zero), or the pattern would touch the DF field.
///
/// ```
/// use airwaves_core::modes::crc::{locate, syndrome_of_bit};
/// let s = syndrome_of_bit(112, 40) ^ syndrome_of_bit(112, 90);
/// assert_eq!(locate(112, s, 2).unwrap().bits(), &[40, 90]);
/// assert_eq!(locate(112, s, 1), None);
/// ```
pub fn locate(len_bits: usize, syndrome: u32, max_bits: u8) -> Option<BitErrors> {
    let syndrome = syndrome & MASK24;
    if syndrome == 0 {
        return Some(BitErrors::NONE);
    }
    if max_bits == 0 || (len_bits != SHORT_BITS && len_bits != LONG_BITS) {
        return None;
    }
    if let Some(k) = lookup(&SINGLE, syndrome) {
        // Syndromes are unique, so a k outside this frame means no 1-bit
        // error fits; with d_min = 6 no 2-bit one does either (for 112).
        return position(len_bits, k).map(|b| BitErrors::from_slice(&[b]));
    }
    if max_bits < 2 || len_bits != LONG_BITS {
        return None;
    }
    let hi = lookup(&PAIRS, syndrome)?;
    let lo = lookup(&SINGLE, syndrome ^ POW.get(usize::from(hi))?)?;
    let a = position(LONG_BITS, hi)?;
    let b = position(LONG_BITS, lo)?;
    Some(BitErrors::from_slice(&[a, b]))
}

/// Repair `msg` (7 or 14 bytes) in place given its `syndrome` (normally
/// [`remainder`]`(msg)`, for a format whose error-free remainder is 0).
/// Flips at most `max_bits` bits: 1 for any frame, 2 only for 112-bit frames
/// (values above 2 act as 2). Never flips a bit of the DF field.
///
/// Returns the number of bits flipped (`Some(0)` if the syndrome is 0), or
/// `None`, leaving `msg` untouched, if no allowed pattern fits.
///
/// Links the 24 KiB pair table; use [`repair_single`] where only 1-bit
/// repair is wanted.
///
/// ```
/// use airwaves_core::modes::crc::{remainder, repair};
/// let good = [0x8D, 0x40, 0x6B, 0x90, 0x20, 0x15, 0xA6, 0x78, 0xD4, 0xD2, 0x20, 0xAA, 0x4B, 0xDA];
/// let mut m = good;
/// m[3] ^= 0x10;
/// m[9] ^= 0x01;
/// let s = remainder(&m);
/// assert_eq!(repair(&mut m, s, 2), Some(2));
/// assert_eq!(m, good);
/// ```
pub fn repair(msg: &mut [u8], syndrome: u32, max_bits: u8) -> Option<u8> {
    let e = locate(frame_bits(msg.len())?, syndrome, max_bits)?;
    e.apply(msg);
    Some(e.count())
}

/// [`repair`] limited to one bit; uses only the 448-byte single-bit table.
///
/// ```
/// use airwaves_core::modes::crc::{remainder, repair_single};
/// let mut m = [0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5 ^ 0x04];
/// // This DF11 answered SI 6 (remainder 22), so its syndrome must be
/// // taken relative to that code.
/// let s = remainder(&m) ^ 22;
/// assert_eq!(repair_single(&mut m, s), Some(1));
/// assert_eq!(m[6], 0xF5);
/// ```
pub fn repair_single(msg: &mut [u8], syndrome: u32) -> Option<u8> {
    let n = frame_bits(msg.len())?;
    let syndrome = syndrome & MASK24;
    if syndrome == 0 {
        return Some(0);
    }
    let bit = locate_single(n, syndrome)?;
    flip(msg, usize::from(bit));
    Some(1)
}

/// Soft-decision repair: find the smallest set of at most `max_bits`
/// (clamped to 3) positions from `candidates` whose combined syndrome
/// ([`syndrome_of_bit`] XORed) equals `syndrome`, and flip them in `msg`
/// (7 or 14 bytes).
///
/// Candidates in the DF field, beyond the frame, or repeated are skipped;
/// only the first [`MAX_CANDIDATES`] usable entries are considered. If two
/// different sets of the smallest size fit, the result is ambiguous and
/// `None` is returned with `msg` untouched. Cost: one hash look-up per
/// candidate pair, at most 1 + 24 + C(24,2) = 301 look-ups.
///
/// ```
/// use airwaves_core::modes::crc::{remainder, repair_within};
/// let good = [0x8D, 0x40, 0x6B, 0x90, 0x20, 0x15, 0xA6, 0x78, 0xD4, 0xD2, 0x20, 0xAA, 0x4B, 0xDA];
/// let mut m = good;
/// for bit in [20usize, 50, 77] {
///     m[bit / 8] ^= 0x80 >> (bit % 8);
/// }
/// // The demodulator's least confident bits, in any order.
/// let weak = [9u8, 77, 33, 20, 101, 50];
/// let s = remainder(&m);
/// assert_eq!(repair_within(&mut m, s, &weak, 3), Some(3));
/// assert_eq!(m, good);
/// ```
pub fn repair_within(msg: &mut [u8], syndrome: u32, candidates: &[u8], max_bits: u8) -> Option<u8> {
    let n = frame_bits(msg.len())?;
    let syndrome = syndrome & MASK24;
    if syndrome == 0 {
        return Some(0);
    }
    // Usable candidates and their syndromes.
    let mut pos = [0u8; MAX_CANDIDATES];
    let mut syn = [0u32; MAX_CANDIDATES];
    let mut m = 0usize;
    for &c in candidates {
        if m == MAX_CANDIDATES {
            break;
        }
        let cu = usize::from(c);
        if cu < PROTECTED_BITS || cu >= n || pos[..m].contains(&c) {
            continue;
        }
        pos[m] = c;
        syn[m] = syndrome_of_bit(n, cu);
        m += 1;
    }
    let (pos, syn) = (&pos[..m], &syn[..m]);

    let max_bits = max_bits.min(3);
    // Candidate index by syndrome: open addressing over `SLOTS` slots
    // holding index + 1 (0 = empty). Single-bit syndromes of one frame
    // length are distinct, so a look-up finds at most one candidate.
    const SLOTS: usize = 64;
    let slot = |s: u32| (s ^ s >> 6 ^ s >> 12 ^ s >> 18) as usize % SLOTS;
    let mut table = [0u8; SLOTS];
    for (i, &s) in syn.iter().enumerate() {
        let mut h = slot(s);
        while table[h] != 0 {
            h = (h + 1) % SLOTS;
        }
        table[h] = i as u8 + 1;
    }
    let find = |s: u32| -> Option<usize> {
        let mut h = slot(s);
        loop {
            let i = usize::from(table[h]).checked_sub(1)?;
            if syn[i] == s {
                return Some(i);
            }
            h = (h + 1) % SLOTS;
        }
    };
    // Records a fit; returns true when it is the second one (ambiguous).
    fn note(found: &mut Option<BitErrors>, set: &[u8]) -> bool {
        if found.is_some() {
            return true;
        }
        *found = Some(BitErrors::from_slice(set));
        false
    }
    let mut found: Option<BitErrors> = None;
    for weight in 1..=max_bits {
        // Each set is found once: from its smallest indices, the last
        // index by look-up and required to be the largest.
        let ambiguous = match weight {
            1 => find(syndrome).is_some_and(|i| note(&mut found, &pos[i..=i])),
            2 => (0..m).any(|i| {
                find(syndrome ^ syn[i])
                    .is_some_and(|j| j > i && note(&mut found, &[pos[i], pos[j]]))
            }),
            _ => (0..m).any(|i| {
                let si = syndrome ^ syn[i];
                (i + 1..m).any(|j| {
                    find(si ^ syn[j])
                        .is_some_and(|k| k > j && note(&mut found, &[pos[i], pos[j], pos[k]]))
                })
            }),
        };
        if ambiguous {
            return None;
        }
        if found.is_some() {
            break;
        }
    }
    let e = found?;
    e.apply(msg);
    Some(e.count())
}

/// Most flip sets [`repair_likeliest`] examines in one call.
pub const MAX_SETS: usize = 128;

/// Most bits [`repair_likeliest`] flips.
pub const MAX_LIKELY_BITS: u8 = 6;

/// Likelihood-ordered soft-decision repair: examine the flip sets of at
/// most `max_bits` (≤ [`MAX_LIKELY_BITS`]) of the `candidates` in
/// increasing total cost, the first `max_sets` (≤ [`MAX_SETS`]) of them,
/// and flip in `msg` (7 or 14 bytes) the one set that `accept` takes.
///
/// `costs[i]` is the cost of flipping `candidates[i]`: the bit's
/// log-likelihood ratio up to a factor common to the frame (the demodulator
/// passes `|E₁ − E₀|`, see `demod::repair`), so a set's cost, the sum of
/// its bits' costs, orders the sets by the probability that they are the
/// frame's errors, most probable first. `accept(residual, bits)` gets the
/// syndrome left after the flips (`syndrome` XOR the bits'
/// [`syndrome_of_bit`]) and the set's positions; it says whether the
/// repaired frame validates (remainder 0, or a known address).
///
/// Returns the number of bits flipped, or `None` (with `msg` untouched)
/// when no examined set is accepted, or when two are (ambiguous): a second
/// accepted set among the `max_sets` most likely leaves no margin to trust
/// the first. Candidates in the DF field, beyond the frame, or repeated are
/// skipped; only the first [`MAX_CANDIDATES`] usable ones count.
///
/// Sets are enumerated best-first from a binary heap of at most
/// `max_sets + 1` keys (`cost << 24 | candidate mask`, 8 bytes each, on the
/// stack: 1 KiB at [`MAX_SETS`]): with the candidates sorted by cost, the
/// successors of a set whose largest index is `t` are the set plus `t + 1`
/// and the set with `t` replaced by `t + 1`; each subset is reached exactly
/// once, never before a cheaper one. Cost: about `max_sets · (2 log₂
/// max_sets + max_bits)` steps plus the `accept` calls. A random syndrome
/// is accepted by a set with probability `P` (`2⁻²⁴` for remainder 0,
/// `A·2⁻²⁴` for one of `A` known addresses), so a frame that cannot be
/// repaired yields a false one with probability at most `max_sets · P`.
///
/// ```
/// use airwaves_core::modes::crc::{remainder, repair_likeliest};
/// let good = [0x8D, 0x40, 0x6B, 0x90, 0x20, 0x15, 0xA6, 0x78, 0xD4, 0xD2, 0x20, 0xAA, 0x4B, 0xDA];
/// let mut m = good;
/// for bit in [20usize, 50, 77, 90] {
///     m[bit / 8] ^= 0x80 >> (bit % 8);
/// }
/// let weak = [9u8, 77, 33, 20, 101, 50, 90];
/// let cost = [1u32, 2, 3, 4, 5, 6, 7];
/// let s = remainder(&m);
/// assert_eq!(repair_likeliest(&mut m, s, &weak, &cost, 4, 128, |r, _| r == 0), Some(4));
/// assert_eq!(m, good);
/// ```
pub fn repair_likeliest(
    msg: &mut [u8],
    syndrome: u32,
    candidates: &[u8],
    costs: &[u32],
    max_bits: u8,
    max_sets: usize,
    mut accept: impl FnMut(u32, &[u8]) -> bool,
) -> Option<u8> {
    let n = frame_bits(msg.len())?;
    let max_bits = u32::from(max_bits.min(MAX_LIKELY_BITS));
    let max_sets = max_sets.min(MAX_SETS);
    // Usable candidates, sorted by cost (insertion sort, at most 24).
    let mut pos = [0u8; MAX_CANDIDATES];
    let mut syn = [0u32; MAX_CANDIDATES];
    let mut cost = [0u32; MAX_CANDIDATES];
    let mut m = 0usize;
    for (&c, &w) in candidates.iter().zip(costs) {
        let cu = usize::from(c);
        if m == MAX_CANDIDATES || cu < PROTECTED_BITS || cu >= n || pos[..m].contains(&c) {
            continue;
        }
        let mut at = m;
        while at > 0 && cost[at - 1] > w {
            (pos[at], syn[at], cost[at]) = (pos[at - 1], syn[at - 1], cost[at - 1]);
            at -= 1;
        }
        (pos[at], syn[at], cost[at]) = (c, syndrome_of_bit(n, cu), w);
        m += 1;
    }
    if m == 0 || max_bits == 0 {
        return None;
    }
    let mut heap = Heap {
        keys: [0; MAX_SETS + 1],
        len: 0,
    };
    let key = |c: u64, mask: u32| c << 24 | u64::from(mask);
    heap.push(key(u64::from(cost[0]), 1));
    let mut found: Option<u32> = None;
    for _ in 0..max_sets {
        let Some(k) = heap.peek() else { break };
        let (c, mask) = (k >> 24, (k & 0xFF_FFFF) as u32);
        let top = (31 - mask.leading_zeros()) as usize;
        // The set's successors take its place (one sift instead of a pop
        // and a push; keys are unique, so the order is the same).
        if let Some(&next) = cost[..m].get(top + 1) {
            let bit = 1 << (top + 1);
            heap.replace_top(key(
                c - u64::from(cost[top]) + u64::from(next),
                mask ^ 1 << top | bit,
            ));
            if mask.count_ones() < max_bits {
                heap.push(key(c + u64::from(next), mask | bit));
            }
        } else {
            heap.pop();
        }
        let mut bits = [0u8; MAX_LIKELY_BITS as usize];
        let (mut s, mut b, mut rest) = (syndrome, 0, mask);
        while rest != 0 && b < bits.len() {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            s ^= syn[i];
            bits[b] = pos[i];
            b += 1;
        }
        if accept(s & MASK24, &bits[..b]) {
            if found.is_some() {
                return None; // ambiguous
            }
            found = Some(mask);
        }
    }
    let mut rest = found?;
    let count = rest.count_ones() as u8;
    while rest != 0 {
        flip(msg, usize::from(pos[rest.trailing_zeros() as usize]));
        rest &= rest - 1;
    }
    Some(count)
}

/// A fixed-capacity binary min-heap of `u64` keys for [`repair_likeliest`].
struct Heap {
    keys: [u64; MAX_SETS + 1],
    len: usize,
}

impl Heap {
    /// Insert `k`; a full heap drops it (cannot happen: each of at most
    /// [`MAX_SETS`] pops pushes at most two keys onto one).
    fn push(&mut self, k: u64) {
        if self.len >= self.keys.len() {
            return;
        }
        // Move parents down into the hole until `k` fits.
        let mut i = self.len;
        self.len += 1;
        while i > 0 {
            let up = (i - 1) / 2;
            let parent = self.keys[up];
            if parent <= k {
                break;
            }
            self.keys[i] = parent;
            i = up;
        }
        self.keys[i] = k;
    }

    /// The smallest key.
    fn peek(&self) -> Option<u64> {
        (self.len > 0).then_some(self.keys[0])
    }

    /// Replace the smallest key by `k` (not empty).
    fn replace_top(&mut self, k: u64) {
        self.sift_down(k, self.len);
    }

    /// Remove and return the smallest key.
    fn pop(&mut self) -> Option<u64> {
        let n = self.len.checked_sub(1)?;
        let top = self.keys[0];
        self.len = n;
        self.sift_down(self.keys[n], n);
        Some(top)
    }

    /// Put `last` into the hole at the root of the first `n` keys: move
    /// the smaller child up into the hole until `last` fits.
    fn sift_down(&mut self, last: u64, n: usize) {
        let mut i = 0;
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let c = if l + 1 < n && self.keys[l + 1] < self.keys[l] {
                l + 1
            } else {
                l
            };
            let child = self.keys[c];
            if child >= last {
                break;
            }
            self.keys[i] = child;
            i = c;
        }
        self.keys[i] = last;
    }
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// `repair_likeliest` visits every set of at most `max_bits` of the
    /// candidates once, in non-decreasing cost, and stops at `max_sets`.
    #[test]
    fn test_repair_likeliest_order() {
        let mut msg = [
            0x8Du8, 0x40, 0x6B, 0x90, 0x20, 0x15, 0xA6, 0x78, 0xD4, 0xD2, 0x20, 0xAA, 0x4B, 0xDA,
        ];
        let cand = [50u8, 9, 77, 33, 20, 101, 64, 12];
        let cost = [7u32, 3, 12, 3, 30, 1, 9, 22];
        let cost_of = |b: u8| cost[cand.iter().position(|&c| c == b).unwrap()];
        let mut seen: Vec<(u32, Vec<u8>)> = Vec::new();
        let r = repair_likeliest(&mut msg, 1, &cand, &cost, 3, MAX_SETS, |_, bits| {
            let mut v = bits.to_vec();
            v.sort_unstable();
            seen.push((v.iter().map(|&b| cost_of(b)).sum(), v));
            false
        });
        assert_eq!(r, None);
        assert_eq!(seen.len(), 8 + 28 + 56);
        assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "{seen:?}");
        let mut sets: Vec<_> = seen.iter().map(|s| s.1.clone()).collect();
        sets.sort();
        sets.dedup();
        assert_eq!(sets.len(), 92);
        // The first 20 only.
        let mut n = 0;
        repair_likeliest(&mut msg, 1, &cand, &cost, 3, 20, |_, _| {
            n += 1;
            false
        });
        assert_eq!(n, 20);
    }

    /// The cheapest accepted set wins only when it is the only one.
    #[test]
    fn test_repair_likeliest_ambiguity() {
        let good = [
            0x8Du8, 0x40, 0x6B, 0x90, 0x20, 0x15, 0xA6, 0x78, 0xD4, 0xD2, 0x20, 0xAA, 0x4B, 0xDA,
        ];
        let mut m = good;
        for bit in [20usize, 50, 77] {
            flip(&mut m, bit);
        }
        let s = remainder(&m);
        let cand = [9u8, 77, 33, 20, 101, 50];
        let cost = [100u32, 2, 100, 3, 100, 4];
        // A decoy: the set {9, 33} "validates" too (residual check by set).
        let decoy = |r: u32, bits: &[u8]| r == 0 || bits == [9, 33] || bits == [33, 9];
        let mut a = m;
        // {77, 20, 50} costs 9 and comes first; {9, 33} costs 200.
        assert_eq!(
            repair_likeliest(&mut a, s, &cand, &cost, 3, 8, decoy),
            Some(3)
        );
        assert_eq!(a, good);
        let mut a = m;
        assert_eq!(
            repair_likeliest(&mut a, s, &cand, &cost, 3, 64, decoy),
            None
        );
        assert_eq!(a, m);
        // Too few flips allowed.
        assert_eq!(
            repair_likeliest(&mut a, s, &cand, &cost, 2, 64, |r, _| r == 0),
            None
        );
    }

    use crate::testing::hex;

    /// Bit-at-a-time reference: remainder of the whole frame polynomial.
    fn reference_remainder(msg: &[u8]) -> u32 {
        let mut r = 0u32;
        for i in 0..msg.len() * 8 {
            let bit = (msg[i / 8] >> (7 - i % 8)) & 1;
            r = (r << 1) | u32::from(bit);
            if r & 0x100_0000 != 0 {
                r ^= GENERATOR;
            }
        }
        r
    }

    /// §1 rows: (hex, expected remainder).
    static REMAINDERS: [(&str, u32); 16] = [
        ("8D406B902015A678D4D220AA4BDA", 0),
        ("8D4CA251204994B1C36E60A5343D", 0x000010),
        ("8d8960ed58bf053cf11bc5932b7d", 0),
        ("8d45cab390c39509496ca9a32912", 0),
        ("8d49d3d4e1089d00000000744c3b", 0),
        ("8d74802958c904e6ef4ba0184d5c", 0),
        ("8d4400cd9b0000b4f87000e71a10", 0),
        ("8d4065de58a1054a7ef0218e226a", 0),
        ("c80b2dca34aa21dd821a04cb64d4", 10_719_924),
        ("a800089d8094e33a6004e4b8a522", 4_805_588),
        ("a8000614a50b6d32bed000bbe0ed", 5_659_991),
        ("a0000410bc900010a40000f5f477", 11_727_682),
        ("b0001718c65632b0a82040715b65", 353_333),
        ("A0001838CA380031440000F24177", 0x3C6DD0),
        ("5D484FDEA248F5", 22),
        ("5dab3d17d4ba29", 1),
    ];

    /// §1 address/parity recovery rows (AP formats).
    static AP_ADDRESSES: [(&str, u32); 8] = [
        ("02e19cb02512c3", 0x0D097E),
        ("80e1969058b5025b9850641d2974", 0xAC049E),
        ("0621776e99b6ad", 0xA33325),
        ("AE24238D15EE315463718B1AF755", 0xA95FDC),
        ("200012b0d96e39", 0xA3ECCE),
        ("2A00516D492B80", 0x510AF9),
        ("20001718029FCD", 0x4891A6),
        ("2000171806A983", 0x4CA7E8),
    ];

    #[test]
    fn test_remainder_vectors() {
        for (h, want) in REMAINDERS.iter().chain(AP_ADDRESSES.iter()) {
            let m = hex(h);
            assert_eq!(remainder(&m), *want, "{h}");
            assert_eq!(reference_remainder(&m), *want, "{h} (reference)");
        }
    }

    #[test]
    fn test_df20_payload_crc() {
        // RIDDLE §11.3: CRC of the payload = 0xCE2CA7; XOR parity F24177 = 3C6DD0.
        let m = hex("A0001838CA380031440000F24177");
        assert_eq!(crc24(&m[..11]), 0xCE2CA7);
        assert_eq!(crc24(&m[..11]) ^ 0xF24177, 0x3C6DD0);
    }

    #[test]
    fn test_df11_interrogator_code() {
        // 5D484FDEA248F5: AA 484FDE, remainder 22 = CL 001, IC 0110 → SI 6.
        let m = hex("5D484FDEA248F5");
        let r = remainder(&m);
        assert_eq!(r, 22);
        assert_eq!((r >> 4, r & 0xF), (1, 6));
    }

    #[test]
    fn test_short_inputs() {
        assert_eq!(remainder(&[]), 0);
        assert_eq!(remainder(&[0x12, 0x34]), 0x1234);
        assert_eq!(remainder(&[0x12, 0x34, 0x56]), 0x123456);
        assert_eq!(crc24(&[]), 0);
    }

    #[test]
    fn test_table_matches_reference() {
        for b in 0..=255u8 {
            assert_eq!(crc24(&[b]), reference_remainder(&[b, 0, 0, 0]));
        }
    }

    #[test]
    fn test_syndrome_of_bit() {
        let m = hex("8D406B902015A678D4D220AA4BDA");
        for n in [56usize, 112] {
            let bytes = &m[..n / 8];
            let base = remainder(bytes);
            for bit in 0..n {
                let mut c = bytes.to_vec();
                c[bit / 8] ^= 0x80 >> (bit % 8);
                assert_eq!(remainder(&c) ^ base, syndrome_of_bit(n, bit), "{n} {bit}");
            }
        }
        assert_eq!(syndrome_of_bit(113, 0), 0);
        assert_eq!(syndrome_of_bit(112, 112), 0);
    }

    #[cfg_attr(miri, ignore = "heavy under miri")]
    #[test]
    fn test_tables_sorted_and_unique() {
        assert!(
            SINGLE.windows(2).all(|w| w[0] >> 8 < w[1] >> 8),
            "1-bit collision"
        );
        assert!(
            PAIRS.windows(2).all(|w| w[0] >> 8 < w[1] >> 8),
            "2-bit collision"
        );
        // No pair syndrome equals a single-bit one.
        for e in PAIRS.iter() {
            assert_eq!(lookup(&SINGLE, e >> 8), None);
        }
        assert_eq!(PAIRS.len(), 6216);
    }

    fn frames() -> [(Vec<u8>, usize); 2] {
        [
            (hex("8D406B902015A678D4D220AA4BDA"), 112),
            // DF11 all-call with IID 0 (remainder 0).
            (hex("5da039b46d7d81"), 56),
        ]
    }

    #[test]
    fn test_repair_single_bit() {
        for (good, n) in frames() {
            assert_eq!(remainder(&good), 0);
            for bit in 0..n {
                let mut m = good.clone();
                m[bit / 8] ^= 0x80 >> (bit % 8);
                let s = remainder(&m);
                let mut m2 = m.clone();
                if bit < PROTECTED_BITS {
                    assert_eq!(repair(&mut m, s, 2), None, "DF bit {bit}");
                    assert_eq!(repair_single(&mut m2, s), None);
                } else {
                    assert_eq!(repair(&mut m, s, 1), Some(1), "bit {bit}");
                    assert_eq!(m, good);
                    assert_eq!(repair_single(&mut m2, s), Some(1));
                    assert_eq!(m2, good);
                }
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_repair_two_bits() {
        let (good, _) = &frames()[0];
        let mut cases = 0;
        for a in 0..112 {
            for b in a + 1..112 {
                let mut m = good.clone();
                m[a / 8] ^= 0x80 >> (a % 8);
                m[b / 8] ^= 0x80 >> (b % 8);
                let s = remainder(&m);
                assert_eq!(repair(&mut m.clone(), s, 1), None, "{a},{b} with 1 bit");
                let r = repair(&mut m, s, 2);
                if a < PROTECTED_BITS {
                    assert_eq!(r, None, "{a},{b} touches DF");
                } else {
                    assert_eq!(r, Some(2), "{a},{b}");
                    assert_eq!(&m, good);
                }
                cases += 1;
            }
        }
        assert_eq!(cases, 6216);
    }

    #[test]
    fn test_short_frame_no_two_bit() {
        let (good, _) = &frames()[1];
        let mut m = good.clone();
        m[2] ^= 0x40;
        m[5] ^= 0x02;
        let s = remainder(&m);
        assert_eq!(repair(&mut m, s, 2), None);
    }

    #[test]
    fn test_repair_bad_lengths() {
        assert_eq!(repair(&mut [0u8; 8], 1, 2), None);
        assert_eq!(repair(&mut [], 1, 2), None);
        assert_eq!(repair_within(&mut [0u8; 3], 1, &[5], 1), None);
        assert_eq!(repair(&mut [0u8; 14], 0, 0), Some(0));
        assert_eq!(repair(&mut [0u8; 14], 1, 0), None);
    }

    #[test]
    fn test_repair_within() {
        let (good, _) = &frames()[0];
        let mut m = good.clone();
        for bit in [8usize, 60, 100] {
            m[bit / 8] ^= 0x80 >> (bit % 8);
        }
        let s = remainder(&m);
        // Not all three candidates present → no fit.
        assert_eq!(repair_within(&mut m.clone(), s, &[8, 60, 99], 3), None);
        // Too few bits allowed.
        assert_eq!(repair_within(&mut m.clone(), s, &[8, 60, 100], 2), None);
        // DF bits, duplicates and out-of-range positions are skipped.
        let cands = [0u8, 1, 8, 8, 60, 200, 100, 60, 7];
        assert_eq!(repair_within(&mut m, s, &cands, 5), Some(3));
        assert_eq!(&m, good);
        // A DF-bit error is never repaired.
        let mut m = good.clone();
        m[0] ^= 0x08;
        let s = remainder(&m);
        assert_eq!(repair_within(&mut m, s, &[4, 5, 6], 3), None);
    }

    /// Exhaustive reference for [`repair_within`]: every set of at most
    /// `max_bits` usable candidates, smallest weight first; `None` if no
    /// set or two sets of that weight fit.
    fn reference_within(n: usize, syndrome: u32, cands: &[u8], max_bits: u8) -> Option<Vec<u8>> {
        let mut usable: Vec<u8> = Vec::new();
        for &c in cands {
            let cu = usize::from(c);
            if usable.len() < MAX_CANDIDATES
                && cu >= PROTECTED_BITS
                && cu < n
                && !usable.contains(&c)
            {
                usable.push(c);
            }
        }
        let m = usable.len();
        let syn = |c: u8| syndrome_of_bit(n, usize::from(c));
        for w in 1..=usize::from(max_bits.min(3)) {
            let mut fits: Vec<Vec<u8>> = Vec::new();
            for i in 0..m {
                for j in i..m {
                    for k in j..m {
                        let set: Vec<u8> = match w {
                            1 if j == i && k == i => std::vec![usable[i]],
                            2 if j > i && k == j => std::vec![usable[i], usable[j]],
                            3 if j > i && k > j => std::vec![usable[i], usable[j], usable[k]],
                            _ => continue,
                        };
                        if set.iter().fold(0, |a, &c| a ^ syn(c)) == syndrome & MASK24 {
                            fits.push(set);
                        }
                    }
                }
            }
            match fits.len() {
                0 => continue,
                1 => return fits.pop(),
                _ => return None,
            }
        }
        None
    }

    proptest::proptest! {
        #![proptest_config(crate::testing::proptest_config())]

        /// The hashed search finds what the exhaustive one finds, for
        /// errors inside and outside the candidates and random syndromes.
        #[test]
        fn prop_repair_within_matches_reference(
            long in proptest::bool::ANY,
            cands in proptest::collection::vec(0u8..120, 0..30),
            errs in proptest::collection::vec(0usize..30, 0..4),
            random in proptest::option::of(1u32..0x100_0000),
            max_bits in 0u8..4,
        ) {
            let n = if long { LONG_BITS } else { SHORT_BITS };
            let syndrome = random.unwrap_or_else(|| {
                errs.iter()
                    .filter_map(|&e| cands.get(e))
                    .filter(|&&c| usize::from(c) < n)
                    .fold(0, |a, &c| a ^ syndrome_of_bit(n, usize::from(c)))
            });
            let mut msg = std::vec![0u8; n / 8];
            let got = repair_within(&mut msg, syndrome, &cands, max_bits);
            match reference_within(n, syndrome, &cands, max_bits) {
                _ if syndrome & MASK24 == 0 => proptest::prop_assert_eq!(got, Some(0)),
                Some(set) => {
                    proptest::prop_assert_eq!(got, Some(set.len() as u8));
                    let mut want = std::vec![0u8; n / 8];
                    for c in set {
                        want[usize::from(c) / 8] ^= 0x80 >> (c % 8);
                    }
                    proptest::prop_assert_eq!(msg, want);
                }
                None => {
                    proptest::prop_assert_eq!(got, None);
                    proptest::prop_assert!(msg.iter().all(|&b| b == 0));
                }
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn test_no_three_bit_alias() {
        // d_min = 6: no 3-bit error has a 1- or 2-bit syndrome.
        for (a, pa) in POW.iter().enumerate() {
            for (b, pb) in POW.iter().enumerate().skip(a + 1) {
                for pc in POW.iter().skip(b + 1) {
                    let s = pa ^ pb ^ pc;
                    assert_eq!(lookup(&SINGLE, s), None);
                    assert_eq!(lookup(&PAIRS, s), None);
                }
            }
        }
    }
}
