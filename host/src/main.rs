//! `airwaves`: software-defined radio for the RTL-SDR.

mod selftest;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Software-defined radio for the RTL-SDR dongle.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the DSP primitives on synthetic signals and print their measured quality.
    DspSelftest,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::DspSelftest => {
            if selftest::report(&selftest::run_all()) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
