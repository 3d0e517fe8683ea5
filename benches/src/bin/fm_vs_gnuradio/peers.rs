//! The reference programs run on the same scenes: GNU Radio (`wfm_rcv`, `wfm_rcv_pll`) and Debian's rtl_fm behind fakeusb.c.

use super::*;

/// Little-endian float32 samples of a file.
pub(super) fn read_f32(path: &Path) -> Result<Vec<f64>, String> {
    let b = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
        .collect())
}

/// Split interleaved L R samples.
pub(super) fn deinterleave(x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    x.chunks_exact(2).map(|c| (c[0], c[1])).unzip()
}

/// Whether `python` can import GNU Radio (`apt-get install gnuradio`).
pub(super) fn gnuradio_installed(python: &str) -> bool {
    Command::new(python)
        .args(["-c", "import gnuradio.analog"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The flowgraph script, `benches/gnuradio/wfm.py`.
pub(super) fn gnuradio_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("gnuradio/wfm.py")
}

/// Channel filter of the GNU Radio flowgraph, Hz: (cutoff, transition).
/// Mono: ±100 kHz as the issue asks (and as airwaves' mono channel).
/// Stereo: 150 kHz, as airwaves' stereo channel and the best of those
/// tried for its separation (100/20: 28.3 dB, 120/16: 33.0, 150/20:
/// 33.7; `wfm_rcv_pll`'s one-sample discriminator droops 0.36 dB at
/// 38 kHz at 240 kHz, which caps it near 34 dB).
pub(super) fn gnuradio_channel(stereo: bool) -> (f64, f64) {
    if stereo { (150e3, 20e3) } else { (100e3, 20e3) }
}

/// GNU Radio on one scene file: audio and wall time.
pub(super) fn gnuradio(python: &str, cu8: &Path, stereo: bool) -> Result<(Audio, f64), String> {
    let out = cu8.with_extension("gr.f32");
    let (cutoff, transition) = gnuradio_channel(stereo);
    let t0 = Instant::now();
    let res = Command::new(python)
        .arg(gnuradio_script())
        .arg(if stereo { "stereo" } else { "mono" })
        .arg(cu8)
        .args([STATION_HZ, cutoff, transition].map(|v| v.to_string()))
        .arg(&out)
        .output()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    let wall = t0.elapsed().as_secs_f64();
    if !res.status.success() {
        return Err(format!(
            "GNU Radio failed ({}): {}",
            res.status,
            String::from_utf8_lossy(&res.stderr).trim()
        ));
    }
    let x = read_f32(&out)?;
    let _ = std::fs::remove_file(&out);
    let audio = if stereo {
        let (l, r) = deinterleave(&x);
        Audio {
            left: l,
            right: Some(r),
        }
    } else {
        Audio {
            left: x,
            right: None,
        }
    };
    Ok((audio, wall))
}

/// `fakeusb.so` built from `fakeusb_c` into `workdir` (gcc); `None`, with
/// the reason printed, if the source or gcc is missing.
pub(super) fn build_fakeusb(fakeusb_c: &Path, workdir: &Path) -> Option<PathBuf> {
    if !fakeusb_c.is_file() {
        eprintln!("rtl_fm: {} not found; skipped", fakeusb_c.display());
        return None;
    }
    let so = workdir.join("fakeusb.so");
    match Command::new("gcc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&so)
        .arg(fakeusb_c)
        .status()
    {
        Ok(s) if s.success() => Some(so),
        Ok(s) => {
            eprintln!("rtl_fm: gcc failed on fakeusb.c ({s}); skipped");
            None
        }
        Err(e) => {
            eprintln!("rtl_fm: cannot run gcc: {e}; skipped");
            None
        }
    }
}

/// rtl_fm's capture rate with `-M wbfm` and its default 170 kHz: six
/// times 170 kHz, samples per second.
pub(super) const RTL_FM_RATE: f64 = 1.02e6;
/// Where rtl_fm demodulates in its capture: a quarter of the capture rate
/// below the centre (see [`STATION_HZ`]), Hz.
pub(super) const RTL_FM_STATION_HZ: f64 = -RTL_FM_RATE / 4.0;

/// The `rtl_fm` command for one file through fakeusb: `-M wbfm` at its
/// default rate (170 kHz, captured at [`RTL_FM_RATE`]), 48 kHz s16 on
/// stdout. `xfer_us` paces fakeusb's transfers so that rtl_fm drops
/// nothing.
///
/// Its own rate, not 2.4 MS/s: with `-s 2400000` rtl_fm has no channel
/// filter at all (its boxcar decimation is by 1), and the +6 dB adjacent
/// station captures its discriminator (measured: SNR −17 to −24 dB).
pub(super) fn rtl_fm_command(rtl_fm: &str, so: &Path, cu8: &Path, xfer_us: u32) -> Command {
    let mut c = Command::new(rtl_fm);
    c.env("LD_PRELOAD", so)
        .env("FAKEUSB_IQFILE", cu8)
        .env("FAKEUSB_XFER_US", xfer_us.to_string())
        .args(["-M", "wbfm", "-f", "100000000", "-r", "48000", "-"]);
    c
}

/// Pacing of fakeusb transfers for rtl_fm, µs per 256 KiB transfer
/// (128.5 ms of signal at 1.02 MS/s).
pub(super) const RTL_FM_XFER_US: u32 = 30_000;

/// Run `cmd` (stdout and stderr captured) until it exits, or until its
/// stdout has been quiet for `quiet` after its first output, or `limit`
/// passed: rtl_fm through fakeusb does not exit at the end of the file.
/// It is then stopped with SIGINT (rtl_fm exits cleanly and valgrind
/// prints its totals), and killed if still running 10 s later.
/// Returns stdout and stderr.
pub(super) fn run_until_quiet(
    mut cmd: Command,
    quiet: Duration,
    limit: Duration,
) -> Result<(Vec<u8>, String), String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    let out = Arc::new(Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let sink = out.clone();
    let reader = thread::spawn(move || {
        let mut buf = [0u8; 65536];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend_from_slice(&buf[..n]);
        }
    });
    let mut stderr = child.stderr.take().ok_or("no stderr")?;
    let err_reader = thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let t0 = Instant::now();
    let (mut last_len, mut last_change) = (0, Instant::now());
    let len = || out.lock().unwrap_or_else(|e| e.into_inner()).len();
    loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            break;
        }
        let n = len();
        if n != last_len {
            (last_len, last_change) = (n, Instant::now());
        }
        if (n > 0 && last_change.elapsed() > quiet) || t0.elapsed() > limit {
            let _ = Command::new("kill")
                .args(["-INT", &child.id().to_string()])
                .status();
            let t1 = Instant::now();
            while child.try_wait().map_err(|e| e.to_string())?.is_none() {
                if t1.elapsed() > Duration::from_secs(10) {
                    let _ = child.kill();
                    break;
                }
                thread::sleep(Duration::from_millis(20));
            }
            break;
        }
        thread::sleep(Duration::from_millis(20));
    }
    let _ = child.wait();
    let _ = reader.join();
    let err = err_reader.join().unwrap_or_default();
    let bytes = std::mem::take(&mut *out.lock().unwrap_or_else(|e| e.into_inner()));
    Ok((bytes, err))
}

/// rtl_fm on one scene file of `seconds`: audio and wall time.
pub(super) fn rtl_fm(
    rtl_fm: &str,
    so: &Path,
    cu8: &Path,
    seconds: f64,
) -> Result<(Audio, f64), String> {
    let t0 = Instant::now();
    let (stdout, stderr) = run_until_quiet(
        rtl_fm_command(rtl_fm, so, cu8, RTL_FM_XFER_US),
        Duration::from_millis(1500),
        Duration::from_secs_f64(10.0 + 3.0 * seconds),
    )?;
    let wall = t0.elapsed().as_secs_f64();
    if stdout.is_empty() {
        return Err(format!(
            "rtl_fm gave no audio: {}",
            stderr.lines().last().unwrap_or("")
        ));
    }
    let left = stdout
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]) as f64 / 32768.0)
        .collect();
    Ok((Audio { left, right: None }, wall))
}
