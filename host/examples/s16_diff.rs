//! Compare two raw s16le audio files (what `airwaves fm --out -` writes)
//! sample by sample, within a tolerance.
//!
//! ```text
//! cargo run --release -p airwaves --example s16_diff -- REFERENCE OTHER [MAX_LSB]
//! ```
//!
//! Prints the number of samples, how many differ, the largest difference
//! in LSB and the reference's rms in dBFS. Exits 0 when both files hold the
//! same number of samples, no sample differs by more than MAX_LSB (default
//! 1), and the reference is not near silence (rms above −40 dBFS, so that
//! two empty or muted outputs cannot pass); 1 otherwise, with the reason
//! on stderr; 2 on a usage or I/O error.

use std::process::ExitCode;

/// The quietest reference rms (dBFS) that counts as audio.
const MIN_RMS_DBFS: f64 = -40.0;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (a, b, tol) = match args.as_slice() {
        [a, b] => (a, b, 1),
        [a, b, t] => match t.parse::<u32>() {
            Ok(t) => (a, b, t),
            Err(_) => return usage(&format!("MAX_LSB {t:?} is not a whole number")),
        },
        _ => return usage("expected REFERENCE OTHER [MAX_LSB]"),
    };
    let (ra, rb) = match (read(a), read(b)) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        (Err(e), _) | (_, Err(e)) => return usage(&e),
    };
    let c = compare(&ra, &rb);
    println!(
        "{} samples, {} differ, max |Δ| {} LSB, reference rms {:.1} dBFS",
        ra.len(),
        c.differing,
        c.max_abs_diff,
        c.rms_dbfs
    );
    match c.verdict(ra.len(), rb.len(), tol) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("s16_diff: {why}");
            ExitCode::FAILURE
        }
    }
}

fn usage(why: &str) -> ExitCode {
    eprintln!("s16_diff: {why}\nusage: s16_diff REFERENCE OTHER [MAX_LSB]");
    ExitCode::from(2)
}

/// The samples of a raw s16le file.
fn read(path: &str) -> Result<Vec<i16>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    if bytes.len() % 2 != 0 {
        return Err(format!("{path}: odd length {}, not s16le", bytes.len()));
    }
    Ok(bytes
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect())
}

/// How two sample streams differ, over their common length.
#[derive(Debug, PartialEq)]
struct Comparison {
    /// Samples whose values are not equal.
    differing: usize,
    /// The largest absolute difference, LSB.
    max_abs_diff: u32,
    /// The reference's rms relative to full scale (32768), dB.
    rms_dbfs: f64,
}

impl Comparison {
    /// `Ok` when the lengths match, the largest difference is within
    /// `tol` LSB and the reference is audio, not silence.
    fn verdict(&self, len_a: usize, len_b: usize, tol: u32) -> Result<(), String> {
        if len_a != len_b {
            return Err(format!("lengths differ: {len_a} and {len_b} samples"));
        }
        if self.max_abs_diff > tol {
            return Err(format!(
                "{} samples differ, by up to {} LSB (tolerance {tol})",
                self.differing, self.max_abs_diff
            ));
        }
        if self.rms_dbfs <= MIN_RMS_DBFS {
            return Err(format!(
                "the reference is near silence ({:.1} dBFS)",
                self.rms_dbfs
            ));
        }
        Ok(())
    }
}

fn compare(reference: &[i16], other: &[i16]) -> Comparison {
    let mut differing = 0;
    let mut max_abs_diff = 0;
    for (&x, &y) in reference.iter().zip(other) {
        let d = (i32::from(x) - i32::from(y)).unsigned_abs();
        differing += usize::from(d != 0);
        max_abs_diff = max_abs_diff.max(d);
    }
    let power = reference
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        / reference.len().max(1) as f64;
    Comparison {
        differing,
        max_abs_diff,
        rms_dbfs: 10.0 * (power / (32768.0 * 32768.0)).log10(),
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_identical_audio_passes() {
        let a = [1000i16, -2000, 16000, -32768];
        let c = compare(&a, &a);
        assert_eq!((c.differing, c.max_abs_diff), (0, 0));
        assert!((c.rms_dbfs - (-5.076)).abs() < 0.001, "{}", c.rms_dbfs);
        assert_eq!(c.verdict(4, 4, 0), Ok(()));
    }

    #[test]
    fn test_one_lsb_passes_two_fail() {
        let a = [1000i16, -2000, 16000, 5];
        let c = compare(&a, &[1001, -2000, 15999, 5]);
        assert_eq!((c.differing, c.max_abs_diff), (2, 1));
        assert_eq!(c.verdict(4, 4, 1), Ok(()));
        let c = compare(&a, &[1000, -2002, 16000, 5]);
        assert_eq!((c.differing, c.max_abs_diff), (1, 2));
        assert!(c.verdict(4, 4, 1).unwrap_err().contains("up to 2 LSB"));
    }

    #[test]
    fn test_extreme_difference_does_not_overflow() {
        let c = compare(&[i16::MIN], &[i16::MAX]);
        assert_eq!(c.max_abs_diff, 65535);
    }

    #[test]
    fn test_length_and_silence_fail() {
        let a = [1000i16; 8];
        let c = compare(&a, &a[..7]);
        assert!(c.verdict(8, 7, 1).unwrap_err().contains("lengths differ"));
        let quiet = [3i16; 8];
        let c = compare(&quiet, &quiet);
        assert!(c.verdict(8, 8, 1).unwrap_err().contains("silence"));
        let c = compare(&[], &[]);
        assert!(c.verdict(0, 0, 1).unwrap_err().contains("silence"));
    }
}
