//! `airwaves uat`: demodulate a 978 MHz `cu8` recording ([`crate::uat`])
//! and print dump978-fa's raw lines.

use crate::error::CommandError;
use crate::uat::{RATES, decode_raw};
use std::io::{BufWriter, ErrorKind};
use std::path::PathBuf;

/// `airwaves uat` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct UatArgs {
    /// Input .cu8 file at 2083334 (or 2083333) samples/s, or - for stdin.
    #[arg(long)]
    pub ifile: PathBuf,
    /// Sample rate of the recording, Hz: two samples per UAT bit.
    #[arg(long, default_value_t = 2_083_334)]
    pub rate: u32,
}

/// `airwaves uat`: stream the input through the UAT demodulator, one raw
/// line per message on stdout, a summary on stderr. A closed output pipe
/// ends it without an error.
///
/// # Errors
/// A rate other than two samples per bit, an input that cannot be read,
/// a failing read or write.
pub fn run(args: &UatArgs) -> Result<(), CommandError> {
    if !RATES.contains(&args.rate) {
        return Err(CommandError::Invalid(
            "--rate: the UAT demodulator reads 2083334 (or 2083333) samples/s, two per bit",
        ));
    }
    let input = &args.ifile;
    let mut source = super::open_input(input)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    match decode_raw(&mut source, &mut out) {
        Ok(st) => {
            eprintln!(
                "airwaves uat: {} samples, {} downlink, {} uplink messages ({} sync candidates, {} searched)",
                st.samples, st.downlink, st.uplink, st.candidates, st.searched
            );
            Ok(())
        }
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CommandError::Io(e)),
    }
}
