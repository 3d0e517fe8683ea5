//! The FM benchmark (`fm_vs_gnuradio`) on short scenes with `--check`:
//! airwaves against the f64 reference, GNU Radio 3.10 (`wfm_rcv`,
//! `wfm_rcv_pll`; `scripts/setup --test` installs it) and `rtl_fm`
//! (through `../shared/rtl/fakeusb.c`). A receiver that is not installed
//! reads `n/a`; one that is installed must run. The table is printed.

use std::path::PathBuf;
use std::process::Command;

#[test]
#[cfg_attr(miri, ignore)]
fn test_fm_vs_gnuradio_check() {
    let bench = PathBuf::from(env!("CARGO_BIN_EXE_fm_vs_gnuradio"));
    let workdir = std::env::temp_dir().join(format!("airwaves-fm-bench-{}", std::process::id()));
    let out = Command::new(&bench)
        .args(["--seconds", "2", "--no-callgrind", "--check"])
        .arg("--workdir")
        .arg(&workdir)
        .output()
        .expect("run fm_vs_gnuradio");
    let _ = std::fs::remove_dir_all(&workdir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "fm_vs_gnuradio --check failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("check passed"), "{stdout}");
    assert!(
        stdout.contains("| mono SNR dB, CNR 40 |"),
        "no table:\n{stdout}"
    );
}
