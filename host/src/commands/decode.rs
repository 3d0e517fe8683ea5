//! `airwaves decode`: demodulate a recording ([`crate::decode`]) and print
//! one line per frame.

use crate::cli::LocationArgs;
use crate::decode::{DecodeOptions, Format, decode_with};
use crate::error::CommandError;
use std::io::{BufWriter, ErrorKind};
use std::path::PathBuf;

/// `airwaves decode` arguments.
#[derive(clap::Args, Debug, Clone)]
#[command(mut_arg("lat", |a| a.help(
    "Receiver latitude, degrees north (with --lon): local CPR decoding in JSON output"
)))]
pub struct DecodeArgs {
    /// Sample rate of the recording, Hz (2000000 and 2400000 are what feeders use).
    #[arg(long, default_value_t = 2_400_000)]
    pub rate: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::AvrTs)]
    pub format: Format,
    /// Also detect Mode A/C replies (squawk / Gillham altitude; 2.0 or 2.4 MS/s).
    #[arg(long)]
    pub modeac: bool,
    /// Where the receiver is (JSON output decodes local CPR from it).
    #[command(flatten)]
    pub location: LocationArgs,
    /// Input .cu8 file, or - for standard input.
    pub input: PathBuf,
}

/// `airwaves decode`: open the input, stream it through the demodulator.
/// A closed output pipe (`| head`) ends it without an error.
///
/// # Errors
/// An input that cannot be read, bad settings, a failing read or write.
pub fn run(args: &DecodeArgs) -> Result<(), CommandError> {
    let opts = DecodeOptions {
        modeac: args.modeac,
        receiver: args.location.position(),
        ..DecodeOptions::new(args.rate, args.format)
    };
    let input = &args.input;
    let mut source = super::open_input(input)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    match decode_with(&opts, &mut source, &mut out) {
        Ok(st) => {
            if opts.modeac {
                eprintln!(
                    "airwaves decode: {} samples, {} frames, {} Mode A/C replies",
                    st.samples, st.frames, st.mode_ac
                );
            } else {
                eprintln!(
                    "airwaves decode: {} samples, {} frames",
                    st.samples, st.frames
                );
            }
            Ok(())
        }
        // A closed pipe (`| head`) is a normal way to stop.
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CommandError::Io(e)),
    }
}
