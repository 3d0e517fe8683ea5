use super::*;
use crate::rng::Rng;

/// Parse a hex string into `out`.
fn hex(s: &str, out: &mut [u8]) {
    assert_eq!(s.len(), 2 * out.len());
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
}

#[test]
fn test_alpha_is_primitive() {
    let mut seen = [false; 256];
    for &x in &EXP[..255] {
        assert!(x != 0 && !seen[x as usize]);
        seen[x as usize] = true;
    }
    for x in 1..=255u8 {
        assert_eq!(mul(x, div(1, x)), 1);
    }
}

#[test]
fn test_generator_has_its_roots() {
    for code in [
        ReedSolomon::DOWNLINK_BASIC,
        ReedSolomon::DOWNLINK_LONG,
        ReedSolomon::UPLINK,
    ] {
        let r = code.roots();
        assert_eq!(code.gen_poly[r], 1);
        for i in 0..r {
            let root = pow_alpha(FIRST_ROOT as usize + i);
            let mut v = 0u8;
            for k in (0..=r).rev() {
                v = mul(v, root) ^ code.gen_poly[k];
            }
            assert_eq!(v, 0, "root {i}");
        }
    }
}

// Parity from an independent implementation (Phil Karn's libfec, as
// dump978 builds it: symsize 8, gfpoly 0x187, fcr 120, prim 1), run on the
// data below.
const BASIC: &str = "01080f161d242b323940474e555c636a7178bc02652ce3e89335403cb486";
const LONG: &str = "052a4f7499bee3082d52779cc1e60b30557a9fc4e90e33587da2c7ec11365b80a5ca17163c32617e2b15bd4fa4b29641";
const UPLINK: &str = "0304070c131c27344354677c93acc7e40324476c93bce7144374a7dc134c87c4034487cc135ca7f44394e73c93ec47a40364c72c93fc67d443b4279c138c07840384078c139c27b48692d0ce67c39cc952d5c4902f1b0efdce2969f1";

#[test]
fn test_parity_matches_libfec() {
    let mut want = [0u8; 92];
    let mut block = [0u8; 92];

    hex(BASIC, &mut want[..30]);
    for (i, b) in block[..18].iter_mut().enumerate() {
        *b = (i * 7 + 1) as u8;
    }
    ReedSolomon::DOWNLINK_BASIC
        .encode(&mut block[..30])
        .unwrap();
    assert_eq!(block[..30], want[..30]);

    hex(LONG, &mut want[..48]);
    for (i, b) in block[..34].iter_mut().enumerate() {
        *b = ((i * 37 + 5) & 255) as u8;
    }
    ReedSolomon::DOWNLINK_LONG.encode(&mut block[..48]).unwrap();
    assert_eq!(block[..48], want[..48]);

    hex(UPLINK, &mut want);
    for (i, b) in block[..72].iter_mut().enumerate() {
        *b = ((i * i + 3) & 255) as u8;
    }
    ReedSolomon::UPLINK.encode(&mut block).unwrap();
    assert_eq!(block, want);
    assert!(ReedSolomon::UPLINK.is_codeword(&block));
}

#[test]
fn test_clean_block_needs_nothing() {
    let mut block = [0u8; 30];
    hex(BASIC, &mut block);
    assert_eq!(ReedSolomon::DOWNLINK_BASIC.decode(&mut block, &[]), Ok(0));
}

#[test]
fn test_literal_errors_corrected() {
    let mut clean = [0u8; 48];
    hex(LONG, &mut clean);
    let mut block = clean;
    block[0] ^= 0xff;
    block[20] ^= 0x01;
    block[47] ^= 0x80;
    assert_eq!(ReedSolomon::DOWNLINK_LONG.decode(&mut block, &[]), Ok(3));
    assert_eq!(block, clean);
}

/// Random data, `errors` random byte errors at distinct random places of
/// which the first `erased` are also reported as erasures.
fn corrupt(rng: &mut Rng, block: &mut [u8], errors: usize, erased: usize) -> ([u8; 20], usize) {
    let n = block.len();
    let mut pos = [0u8; 20];
    let mut k = 0;
    while k < errors {
        let p = rng.below(n as u64) as u8;
        if pos[..k].contains(&p) {
            continue;
        }
        pos[k] = p;
        block[p as usize] ^= 1 + rng.below(255) as u8;
        k += 1;
    }
    (pos, erased.min(errors))
}

#[test]
fn test_errors_and_erasures_within_capacity() {
    let mut rng = Rng::new(17);
    for (code, n) in [
        (ReedSolomon::DOWNLINK_BASIC, 30),
        (ReedSolomon::DOWNLINK_LONG, 48),
        (ReedSolomon::UPLINK, 92),
    ] {
        let r = code.roots();
        // Fewer under miri (interpreted, about a thousand times slower).
        for trial in 0..if cfg!(miri) { 20 } else { 400 } {
            let mut clean = [0u8; 92];
            for b in clean[..n - r].iter_mut() {
                *b = rng.below(256) as u8;
            }
            code.encode(&mut clean[..n]).unwrap();
            let erased = trial % (r + 1);
            let errors = erased + rng.below(((r - erased) / 2 + 1) as u64) as usize;
            let mut block = clean;
            let (pos, ne) = corrupt(&mut rng, &mut block[..n], errors, erased);
            let got = code.decode(&mut block[..n], &pos[..ne]);
            assert_eq!(got, Ok(errors), "n {n} errors {errors} erased {ne}");
            assert_eq!(block[..n], clean[..n]);
        }
    }
}

#[test]
fn test_erasures_that_were_right_cost_nothing() {
    let mut clean = [0u8; 30];
    hex(BASIC, &mut clean);
    let mut block = clean;
    block[3] ^= 0x55;
    // 12 erasures, one of them the real error: 2·0 + 12 ≤ 12.
    let erasures = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    assert_eq!(
        ReedSolomon::DOWNLINK_BASIC.decode(&mut block, &erasures),
        Ok(12)
    );
    assert_eq!(block, clean);
}

#[test]
fn test_beyond_capacity_never_gives_a_non_codeword() {
    let mut rng = Rng::new(5);
    let code = ReedSolomon::DOWNLINK_BASIC;
    let mut failed = 0;
    let trials = if cfg!(miri) { 100 } else { 2000 };
    for _ in 0..trials {
        let mut clean = [0u8; 30];
        for b in clean[..18].iter_mut() {
            *b = rng.below(256) as u8;
        }
        code.encode(&mut clean).unwrap();
        let mut block = clean;
        corrupt(&mut rng, &mut block, 7, 0);
        let before = block;
        match code.decode(&mut block, &[]) {
            Ok(_) => assert!(code.is_codeword(&block)),
            Err(e) => {
                assert_eq!(e, RsError::Uncorrectable);
                assert_eq!(block, before, "a failed decode leaves the block");
                failed += 1;
            }
        }
    }
    // A shortened RS(30,18) seldom mis-corrects 7 errors.
    assert!(failed > trials * 95 / 100, "{failed}");
}

#[test]
fn test_bad_arguments() {
    let code = ReedSolomon::DOWNLINK_BASIC;
    let mut tiny = [0u8; 12];
    assert_eq!(code.encode(&mut tiny), Err(RsError::BadLength { got: 12 }));
    let mut block = [0u8; 30];
    assert_eq!(code.decode(&mut block, &[30]), Err(RsError::BadErasures));
    assert_eq!(code.decode(&mut block, &[0; 13]), Err(RsError::BadErasures));
}

/// RS(3, 1) with one erasure has one parity byte to spare: it fills the
/// erasure and cannot also correct an error (fuzzing found it once did,
/// to a codeword two bytes away).
#[test]
fn test_no_correction_beyond_the_radius() {
    let code = ReedSolomon::new(2);
    let mut sent = [0x0A, 0, 0];
    code.encode(&mut sent).unwrap();
    let mut got = [sent[0] ^ 0xE6, sent[1] ^ 0xA5, sent[2] ^ 0x30];
    let before = got;
    assert_eq!(code.decode(&mut got, &[1]), Err(RsError::Uncorrectable));
    assert_eq!(got, before);
    // One erasure alone is filled.
    let mut one = sent;
    one[1] ^= 0x77;
    assert_eq!(code.decode(&mut one, &[1]), Ok(1));
    assert_eq!(one, sent);
}
