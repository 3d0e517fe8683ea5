//! Reed–Solomon codes over GF(256) as UAT uses them (DO-282B): field
//! polynomial `x⁸ + x⁷ + x² + x + 1` (`0x187`), primitive element `α = x`,
//! generator `g(x) = Π_{i=0}^{R−1} (x − α^{120+i})` (first consecutive root
//! 120), codes shortened from (255, 255 − R):
//!
//! | code | block `n` | data `k` | roots `R` | corrects |
//! |---|---:|---:|---:|---|
//! | downlink basic | 30 | 18 | 12 | `2·errors + erasures ≤ 12` |
//! | downlink long | 48 | 34 | 14 | `2·errors + erasures ≤ 14` |
//! | uplink block (×6) | 92 | 72 | 20 | `2·errors + erasures ≤ 20` |
//!
//! A block is `n` bytes, data first, then the `R` parity bytes; byte `j`
//! is the coefficient of `x^(n−1−j)`, so its error locator is
//! `X_j = α^(n−1−j)`.
//!
//! Decoding (errors and erasures): syndromes `S_i = r(α^(120+i))` by
//! Horner's rule; if any is non-zero, the errata locator `Λ(x)` by
//! Berlekamp–Massey started from the erasure locator
//! `Γ(x) = Π (1 + X_k x)` (Blahut's errata form); its roots among the
//! block's positions by a Chien search, which must find exactly `deg Λ`
//! of them (else the block is uncorrectable: more errata than the code
//! can place, or some outside the shortened block); the values by Forney,
//! `e_j = X_j^(1−120) · Ω(X_j⁻¹) / Λ′(X_j⁻¹)` with
//! `Ω(x) = S(x)·Λ(x) mod x^R`. Nothing allocates; the work is
//! `O(R·n)` multiplications (table look-ups).

/// The field polynomial `x⁸ + x⁷ + x² + x + 1`.
pub const FIELD_POLY: u16 = 0x187;
/// The first consecutive root of the generator: `α^120`.
pub const FIRST_ROOT: u8 = 120;
/// The most parity bytes any UAT code has (the uplink blocks').
pub const MAX_ROOTS: usize = 20;

/// `α^i` for `i` in `0..510` (doubled so a sum of two logs needs no
/// reduction).
const EXP: [u8; 510] = {
    let mut t = [0u8; 510];
    let mut x: u16 = 1;
    let mut i = 0;
    while i < 255 {
        t[i] = x as u8;
        t[i + 255] = x as u8;
        x <<= 1;
        if x & 0x100 != 0 {
            x ^= FIELD_POLY;
        }
        i += 1;
    }
    t
};

/// `log_α(x)` for `x` in `1..=255` (`LOG[0]` is unused).
const LOG: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 255 {
        t[EXP[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// `a · b` in GF(256).
#[inline]
fn mul(a: u8, b: u8) -> u8 {
    if a == 0 || b == 0 {
        0
    } else {
        EXP[LOG[a as usize] as usize + LOG[b as usize] as usize]
    }
}

/// `α^e` for any non-negative exponent.
#[inline]
fn pow_alpha(e: usize) -> u8 {
    EXP[e % 255]
}

/// `a / b` in GF(256); `b` must not be 0.
#[inline]
fn div(a: u8, b: u8) -> u8 {
    debug_assert!(b != 0);
    if a == 0 {
        0
    } else {
        EXP[LOG[a as usize] as usize + 255 - LOG[b as usize] as usize]
    }
}

/// A block could not be corrected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RsError {
    /// The block length is not `roots < n ≤ 255`.
    BadLength {
        /// The length given.
        got: usize,
    },
    /// More erasures than parity bytes, or an erasure outside the block.
    BadErasures,
    /// The errata exceed what the code can correct.
    Uncorrectable,
}

impl core::fmt::Display for RsError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BadLength { got } => write!(f, "Reed-Solomon block of {got} bytes"),
            Self::BadErasures => f.write_str("too many or misplaced erasures"),
            Self::Uncorrectable => f.write_str("uncorrectable block"),
        }
    }
}

impl core::error::Error for RsError {}

/// One UAT Reed–Solomon code (its parity count; blocks are shortened to
/// whatever length is passed). Configuration only: encoding and decoding
/// keep no state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReedSolomon {
    roots: u8,
    /// `g(x)` coefficients, `gen[i]` of `x^i`, monic (`gen[roots] = 1`).
    gen_poly: [u8; MAX_ROOTS + 1],
}

impl ReedSolomon {
    /// The downlink basic code, RS(30, 18).
    pub const DOWNLINK_BASIC: Self = Self::new(12);
    /// The downlink long code, RS(48, 34).
    pub const DOWNLINK_LONG: Self = Self::new(14);
    /// The uplink block code, RS(92, 72).
    pub const UPLINK: Self = Self::new(20);

    /// The code with `roots` parity bytes (1 … [`MAX_ROOTS`]).
    ///
    /// # Panics
    /// If `roots` is 0 or above [`MAX_ROOTS`] (at compile time for the
    /// constants).
    pub const fn new(roots: usize) -> Self {
        assert!(roots > 0 && roots <= MAX_ROOTS);
        let mut g = [0u8; MAX_ROOTS + 1];
        g[0] = 1;
        // Multiply by (x + α^(FIRST_ROOT + i)) for each root; g[i] is the
        // coefficient of x^i.
        let mut i = 0;
        while i < roots {
            let r = EXP[(FIRST_ROOT as usize + i) % 255];
            let mut j = i + 1;
            while j > 0 {
                // g[j] = g[j-1] + r·g[j]
                let prod = if g[j] == 0 {
                    0
                } else {
                    EXP[LOG[g[j] as usize] as usize + LOG[r as usize] as usize]
                };
                g[j] = g[j - 1] ^ prod;
                j -= 1;
            }
            g[0] = if g[0] == 0 {
                0
            } else {
                EXP[LOG[g[0] as usize] as usize + LOG[r as usize] as usize]
            };
            i += 1;
        }
        Self {
            roots: roots as u8,
            gen_poly: g,
        }
    }

    /// Parity bytes per block.
    pub const fn roots(&self) -> usize {
        self.roots as usize
    }

    /// Fill the last [`roots`](Self::roots) bytes of `block` with the
    /// parity of the bytes before them (systematic encoding: the remainder
    /// of `d(x)·x^R` divided by `g(x)`).
    ///
    /// # Errors
    /// [`RsError::BadLength`] unless `roots < block.len() ≤ 255`.
    pub fn encode(&self, block: &mut [u8]) -> Result<(), RsError> {
        let r = self.roots();
        let n = block.len();
        if n <= r || n > 255 {
            return Err(RsError::BadLength { got: n });
        }
        let (data, parity) = block.split_at_mut(n - r);
        parity.fill(0);
        // LFSR division: parity[0] holds the x^(R−1) coefficient.
        for &d in data.iter() {
            let feedback = d ^ parity[0];
            parity.copy_within(1.., 0);
            parity[r - 1] = 0;
            if feedback != 0 {
                for (i, p) in parity.iter_mut().enumerate() {
                    *p ^= mul(feedback, self.gen_poly[r - 1 - i]);
                }
            }
        }
        Ok(())
    }

    /// Whether `block` is a codeword (every syndrome zero).
    pub fn is_codeword(&self, block: &[u8]) -> bool {
        let mut s = [0u8; MAX_ROOTS];
        self.syndromes(block, &mut s);
        s[..self.roots()].iter().all(|&x| x == 0)
    }

    fn syndromes(&self, block: &[u8], s: &mut [u8; MAX_ROOTS]) {
        for (i, si) in s.iter_mut().take(self.roots()).enumerate() {
            let beta = pow_alpha(FIRST_ROOT as usize + i);
            let lb = LOG[beta as usize] as usize;
            let mut acc = 0u8;
            for &b in block {
                acc = if acc == 0 {
                    b
                } else {
                    EXP[LOG[acc as usize] as usize + lb] ^ b
                };
            }
            *si = acc;
        }
    }

    /// Correct `block` in place, given the byte positions believed wrong
    /// (`erasures`, each `< block.len()`, no repeats). Returns the number of
    /// bytes it found in error, erasures included (dump978's `rs=` count:
    /// 0 for a clean block).
    ///
    /// # Errors
    /// [`RsError::BadLength`], [`RsError::BadErasures`], or
    /// [`RsError::Uncorrectable`] (then `block` is left unchanged).
    pub fn decode(&self, block: &mut [u8], erasures: &[u8]) -> Result<usize, RsError> {
        let r = self.roots();
        let n = block.len();
        if n <= r || n > 255 {
            return Err(RsError::BadLength { got: n });
        }
        if erasures.len() > r || erasures.iter().any(|&e| e as usize >= n) {
            return Err(RsError::BadErasures);
        }
        let mut s = [0u8; MAX_ROOTS];
        self.syndromes(block, &mut s);
        if s[..r].iter().all(|&x| x == 0) {
            return Ok(0);
        }

        // Erasure locator Γ(x) = Π (1 + X_k x); Λ and B start from it.
        let mut lambda = [0u8; MAX_ROOTS + 1];
        lambda[0] = 1;
        for &e in erasures {
            let x = pow_alpha(n - 1 - e as usize);
            for j in (1..=r).rev() {
                lambda[j] ^= mul(x, lambda[j - 1]);
            }
        }
        let rho = erasures.len();
        let mut b = lambda;
        let mut l = rho;
        for step in rho + 1..=r {
            // Discrepancy Δ = Σ Λ_i S_(step−1−i).
            let mut delta = 0u8;
            for i in 0..step {
                delta ^= mul(lambda[i], s[step - 1 - i]);
            }
            // x·B(x)
            let mut xb = [0u8; MAX_ROOTS + 1];
            xb[1..].copy_from_slice(&b[..MAX_ROOTS]);
            if delta == 0 {
                b = xb;
                continue;
            }
            let mut t = lambda;
            for i in 0..=r {
                t[i] ^= mul(delta, xb[i]);
            }
            if 2 * l < step + rho {
                l = step + rho - l;
                for i in 0..=r {
                    b[i] = div(lambda[i], delta);
                }
            } else {
                b = xb;
            }
            lambda = t;
        }
        let deg = (0..=r).rev().find(|&i| lambda[i] != 0).unwrap_or(0);
        // Beyond the code's radius (2·errors + erasures ≤ R) the locator
        // may still have roots, but they name the wrong bytes.
        if deg == 0 || deg != l || 2 * (l - rho) + rho > r {
            return Err(RsError::Uncorrectable);
        }

        // Chien search over the block's own positions.
        let mut pos = [0u8; MAX_ROOTS];
        let mut found = 0;
        for j in 0..n {
            // X_j⁻¹ = α^(−(n−1−j)).
            let inv = pow_alpha(255 - (n - 1 - j) % 255);
            let mut v = 0u8;
            let mut xp = 1u8;
            for &c in &lambda[..=deg] {
                v ^= mul(c, xp);
                xp = mul(xp, inv);
            }
            if v == 0 {
                if found == deg {
                    return Err(RsError::Uncorrectable);
                }
                pos[found] = j as u8;
                found += 1;
            }
        }
        if found != deg {
            return Err(RsError::Uncorrectable);
        }

        // Ω(x) = S(x)·Λ(x) mod x^R.
        let mut omega = [0u8; MAX_ROOTS];
        for (i, o) in omega.iter_mut().take(r).enumerate() {
            let mut acc = 0u8;
            for j in 0..=i.min(deg) {
                acc ^= mul(lambda[j], s[i - j]);
            }
            *o = acc;
        }

        // Forney: e = X^(1−fcr) Ω(X⁻¹) / Λ′(X⁻¹). Compute all first, apply
        // after, so a failure leaves the block untouched.
        let mut values = [0u8; MAX_ROOTS];
        for (k, &j) in pos[..found].iter().enumerate() {
            let p = n - 1 - j as usize;
            let inv = pow_alpha(255 - p % 255);
            let mut num = 0u8;
            let mut xp = 1u8;
            for &c in &omega[..r] {
                num ^= mul(c, xp);
                xp = mul(xp, inv);
            }
            // Λ′(x) = Σ_{i odd} Λ_i x^(i−1).
            let mut den = 0u8;
            let inv2 = mul(inv, inv);
            let mut xp = 1u8;
            let mut i = 1;
            while i <= deg {
                den ^= mul(lambda[i], xp);
                xp = mul(xp, inv2);
                i += 2;
            }
            if den == 0 {
                return Err(RsError::Uncorrectable);
            }
            // X^(1−fcr) = α^(p·(1 − 120)) = α^(p·(256 − 120) mod 255)…
            let scale = pow_alpha((p * (255 + 1 - FIRST_ROOT as usize)) % 255);
            values[k] = mul(scale, div(num, den));
        }
        for (k, &j) in pos[..found].iter().enumerate() {
            block[j as usize] ^= values[k];
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests;
