//! The FM benchmark (`fm_vs_gnuradio`) on short scenes with `--check`:
//! airwaves against the f64 reference, GNU Radio 3.10 (`wfm_rcv`,
//! `wfm_rcv_pll`; `scripts/setup --test` installs it) and `rtl_fm`
//! (through `../shared/rtl/fakeusb.c`). A receiver that is not installed
//! reads `n/a`; one that is installed must run. The table is printed.

mod support;

use std::ffi::OsStr;
use std::path::PathBuf;

#[test]
#[cfg_attr(miri, ignore)]
fn test_fm_vs_gnuradio_check() {
    let bench = PathBuf::from(env!("CARGO_BIN_EXE_fm_vs_gnuradio"));
    let args = ["--seconds", "2", "--no-callgrind", "--check"].map(OsStr::new);
    let stdout = support::run_check(&bench, &args, "");
    assert!(
        stdout.contains("| mono SNR dB, CNR 40 |"),
        "no table:\n{stdout}"
    );
}
