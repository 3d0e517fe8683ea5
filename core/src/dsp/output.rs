//! Output-size checks shared by every block method that writes into a
//! caller's slice: the [`OutputTooShort`] error of the receivers' fallible
//! block calls, and the out-of-line panic of the filters' `block`.

/// An output slice too short for what a block call would write: `got`
/// samples given where `expected` (the call's `max_output`) are needed.
/// Nothing is processed when this is returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OutputTooShort {
    /// The length needed.
    pub expected: usize,
    /// The length given.
    pub got: usize,
}

impl OutputTooShort {
    /// `Ok` if an output of `got` samples holds the `expected` ones, else
    /// the error naming both.
    ///
    /// ```
    /// use airwaves_core::dsp::output::OutputTooShort;
    /// assert_eq!(OutputTooShort::check(4, 4), Ok(()));
    /// assert_eq!(OutputTooShort::check(5, 4), Err(OutputTooShort { expected: 5, got: 4 }));
    /// ```
    pub fn check(expected: usize, got: usize) -> Result<(), Self> {
        if got < expected {
            Err(OutputTooShort { expected, got })
        } else {
            Ok(())
        }
    }
}

impl core::fmt::Display for OutputTooShort {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "output buffer too short: need {}, got {}",
            self.expected, self.got
        )
    }
}

impl core::error::Error for OutputTooShort {}

/// Panic for a filter `block` given an output slice of `have` samples
/// where `max_output` asks for `need` (kept out of line, off the hot path).
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn output_too_short(have: usize, need: usize) -> ! {
    panic!("output slice holds {have} samples, max_output needs {need}")
}
