//! UAT Reed–Solomon decoding against an exhaustive reference: for short
//! codes over GF(256) (`n` ≤ 7 bytes, `k` ≤ 2 data bytes, so at most
//! 65,536 codewords) every codeword is enumerated and the nearest ones to
//! the received block found by brute force, erasures counted as free.
//! The decoder must return the unique codeword within its radius
//! (`2·errors + erasures ≤ R`) whenever there is one, and otherwise either
//! fail or return a codeword within `(R + ρ)/2` of the input outside the
//! erasures; a failure leaves the block untouched.
//!
//! Input layout: byte 0 picks `k` (1 or 2) and `n` (`k + 2 … 7`), the
//! next `k` bytes the data, then one byte per block position: error value
//! (0: none), then an erasure mask byte.
#![no_main]

use airwaves_core::uat::rs::ReedSolomon;
use libfuzzer_sys::fuzz_target;

fn distance(a: &[u8], b: &[u8], erased: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .enumerate()
        .filter(|(i, (x, y))| x != y && !erased.contains(&(*i as u8)))
        .count()
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let k = 1 + usize::from(data[0] & 1);
    let n = (k + 2 + usize::from(data[0] >> 1) % (8 - k - 2)).min(7);
    let r = n - k;
    if data.len() < 1 + k + n + 1 {
        return;
    }
    let code = ReedSolomon::new(r);
    let mut sent = [0u8; 7];
    sent[..k].copy_from_slice(&data[1..1 + k]);
    code.encode(&mut sent[..n]).unwrap();
    let mut got = sent;
    for (g, e) in got[..n].iter_mut().zip(&data[1 + k..1 + k + n]) {
        *g ^= e;
    }
    let mask = data[1 + k + n];
    let erased: Vec<u8> = (0..n as u8).filter(|i| mask >> i & 1 == 1).collect();
    let rho = erased.len();

    // The reference: every codeword's distance outside the erasures.
    let mut best = usize::MAX;
    let mut nearest = Vec::new();
    let mut word = [0u8; 7];
    for v in 0..1usize << (8 * k) {
        for (j, w) in word[..k].iter_mut().enumerate() {
            *w = (v >> (8 * (k - 1 - j))) as u8;
        }
        code.encode(&mut word[..n]).unwrap();
        let dist = distance(&word[..n], &got[..n], &erased);
        if dist < best {
            best = dist;
            nearest.clear();
        }
        if dist == best {
            nearest.push(word);
        }
    }

    let mut block = got;
    let result = code.decode(&mut block[..n], &erased);
    let within = rho <= r && 2 * best + rho <= r;
    if within {
        // Inside the radius the nearest codeword is unique.
        assert_eq!(nearest.len(), 1, "two codewords within the radius");
        assert!(result.is_ok(), "failed within the radius: {result:?}");
        assert_eq!(block[..n], nearest[0][..n], "decoded to another codeword");
    }
    match result {
        Ok(_) => {
            assert!(code.is_codeword(&block[..n]));
            assert!(2 * distance(&block[..n], &got[..n], &erased) + rho <= r);
        }
        Err(_) => assert_eq!(block, got, "a failure changed the block"),
    }
});
