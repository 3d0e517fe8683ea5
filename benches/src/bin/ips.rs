//! Run one workload: `ips NAME N` runs case NAME over N samples; `ips --list`
//! lists the cases; `ips --fm-cu8 N` writes N samples of the FM cases'
//! station as cu8 I/Q to stdout (the input of the whole-command figures).
//! `scripts/ips` runs it under callgrind at two lengths and prints the
//! marginal instructions per input sample.

use std::io::Write as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--list" => {
            for c in airwaves_benches::all_cases() {
                println!("{}", c.name);
            }
            ExitCode::SUCCESS
        }
        [flag, n] if flag == "--fm-cu8" => {
            let Ok(n) = n.parse::<usize>() else {
                eprintln!("ips: N must be a whole number, got {n:?}");
                return ExitCode::FAILURE;
            };
            let iq = airwaves_benches::fm::fm_iq(n);
            match std::io::stdout().lock().write_all(iq.as_flattened()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("ips: writing stdout: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        [name, n] => {
            let Ok(n) = n.parse::<usize>() else {
                eprintln!("ips: N must be a whole number, got {n:?}");
                return ExitCode::FAILURE;
            };
            let Some(case) = airwaves_benches::all_cases().find(|c| c.name == name) else {
                eprintln!("ips: no case named {name:?} (see --list)");
                return ExitCode::FAILURE;
            };
            let v = (case.run)(n);
            println!("{}", std::hint::black_box(v) & 1);
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("usage: ips --list | ips NAME N | ips --fm-cu8 N");
            ExitCode::FAILURE
        }
    }
}
