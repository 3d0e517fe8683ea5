//! `airwaves fm|am|nfm` end to end, on the real binary: generated I/Q in,
//! WAV or raw audio out, measured.

use airwaves_core::fm::generator::{Generator, GeneratorConfig, Tone};
use airwaves_core::rds::encoder::Encoder;
use airwaves_core::rds::group::Program;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

mod support;

const BIN: &str = env!("CARGO_BIN_EXE_airwaves");
/// The generated FM station's offset from the recording's centre, Hz.
const FM_OFFSET: f64 = -250e3;
/// Seconds of generated FM.
const FM_SECONDS: f64 = 2.0;

fn tmp(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("radio-{}-{name}", std::process::id()))
}

/// A stereo station at −250 kHz: 1 kHz on the left, 2 kHz on the right
/// (each half scale, audio level 0.9), 9 % pilot, 50 µs pre-emphasis, RDS
/// PS "AIRWAVES" at 4 % of the deviation; 2.4 MS/s cu8. Generated once
/// into the target's temporary directory (written under a private name,
/// then renamed, so concurrent test runs never read half a file) and
/// reused by later runs.
fn fm_scene() -> &'static Path {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        let p = Path::new(env!("CARGO_TARGET_TMPDIR")).join("radio-fm-scene-v2.cu8");
        let len = 2 * (2.4e6 * FM_SECONDS) as u64;
        if std::fs::metadata(&p).is_ok_and(|m| m.len() == len) {
            return p;
        }
        let g = Generator::new(GeneratorConfig::new(FM_OFFSET)).unwrap();
        let mut s = g.state();
        let enc = Encoder::new(Program::new(0xC201).with_ps(b"AIRWAVES"), 2.4e6, 0.04).unwrap();
        let mut es = enc.start();
        let (l, r) = (Tone::new(1000.0, 0.5), Tone::new(2000.0, 0.5));
        let mut iq = vec![[0u8; 2]; (2.4e6 * FM_SECONDS) as usize];
        g.fill(
            &mut s,
            |t| l.at(t),
            |t| r.at(t),
            |_| f64::from(enc.next_sample(&mut es)),
            &mut iq,
        );
        let part = tmp("fm.cu8.part");
        std::fs::write(&part, iq.concat()).unwrap();
        std::fs::rename(&part, &p).unwrap();
        p
    })
}

/// cu8 at `rate`: a carrier at `offset` Hz (amplitude 0.3), AM by `depth`
/// and FM by `dev` Hz with a `tone` Hz sine.
fn narrow_scene(name: &str, rate: f64, offset: f64, tone: f64, depth: f64, dev: f64) -> PathBuf {
    // 2 s: the voice AGC settles within the first second.
    let p = tmp(name);
    std::fs::write(&p, support::narrow_iq(rate, 2.0, offset, tone, depth, dev)).unwrap();
    p
}

fn airwaves(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run airwaves")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn check(o: &Output) {
    assert!(o.status.success(), "failed: {}", stderr(o));
}

/// A parsed 16-bit PCM WAV.
struct Wav {
    channels: usize,
    rate: u32,
    data: Vec<u8>,
}

impl Wav {
    fn read(p: &Path) -> Wav {
        let b = std::fs::read(p).unwrap();
        assert_eq!(&b[0..4], b"RIFF");
        assert_eq!(&b[8..16], b"WAVEfmt ");
        assert_eq!(u16::from_le_bytes([b[20], b[21]]), 1, "PCM");
        assert_eq!(u16::from_le_bytes([b[34], b[35]]), 16, "16-bit");
        assert_eq!(&b[36..40], b"data");
        let len = u32::from_le_bytes(b[40..44].try_into().unwrap()) as usize;
        assert_eq!(len, b.len() - 44, "data size fixed up");
        assert_eq!(
            u32::from_le_bytes(b[4..8].try_into().unwrap()) as usize,
            b.len() - 8
        );
        Wav {
            channels: u16::from_le_bytes([b[22], b[23]]) as usize,
            rate: u32::from_le_bytes(b[24..28].try_into().unwrap()),
            data: b[44..].to_vec(),
        }
    }

    /// Channel `c` as ±1.0.
    fn channel(&self, c: usize) -> Vec<f64> {
        self.data
            .chunks_exact(2)
            .skip(c)
            .step_by(self.channels)
            .map(|s| f64::from(i16::from_le_bytes([s[0], s[1]])) / 32767.0)
            .collect()
    }

    fn frames(&self) -> usize {
        self.data.len() / 2 / self.channels
    }
}

/// Amplitude of the `f` Hz component of `x` (sampled at `rate`) over
/// `[from, from + 1 s)` (or to the end, if sooner).
fn amplitude(x: &[f64], rate: u32, f: f64, from: f64) -> f64 {
    let start = (from * f64::from(rate)) as usize;
    let w = 2.0 * std::f64::consts::PI * f / f64::from(rate);
    let seg = &x[start..(start + rate as usize).min(x.len())];
    let (mut c, mut s) = (0.0, 0.0);
    for (i, v) in seg.iter().enumerate() {
        c += v * (w * i as f64).cos();
        s += v * (w * i as f64).sin();
    }
    2.0 * (c * c + s * s).sqrt() / seg.len() as f64
}

/// Power of `x` over the same window, less the `tones`' power: the rest.
fn residual_rms(x: &[f64], rate: u32, tones: &[f64], from: f64) -> f64 {
    let start = (from * f64::from(rate)) as usize;
    let seg = &x[start..(start + rate as usize).min(x.len())];
    let total: f64 = seg.iter().map(|v| v * v).sum::<f64>() / seg.len() as f64;
    let tone: f64 = tones
        .iter()
        .map(|&f| amplitude(x, rate, f, from).powi(2) / 2.0)
        .sum();
    (total - tone).max(0.0).sqrt()
}

fn db(x: f64) -> f64 {
    20.0 * x.log10()
}

fn fm_args<'a>(file: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "fm", "100M", "--ifile", file, "--rate", "2400000", "--offset", "-250k", "--out", out,
    ];
    a.extend_from_slice(extra);
    a
}

#[test]
fn fm_stereo_rds_to_wav_and_the_same_samples_on_stdout() {
    let scene = fm_scene().to_str().unwrap();
    let wav_path = tmp("stereo.wav");
    let wav = wav_path.to_str().unwrap();
    let extra = ["--stereo", "--rds", "--deemph", "50"];
    let o = airwaves(&fm_args(scene, wav, &extra));
    check(&o);
    let err = stderr(&o);
    assert!(err.contains("PS \"AIRWAVES\""), "{err}");
    assert!(err.contains("PI C201"), "{err}");
    assert!(err.contains("stereo 100%"), "{err}");

    let w = Wav::read(&wav_path);
    assert_eq!((w.channels, w.rate), (2, 48_000));
    assert!((w.frames() as i64 - 96_000).abs() <= 2, "{}", w.frames());
    let (l, r) = (w.channel(0), w.channel(1));
    let (l1, l2) = (
        amplitude(&l, 48_000, 1000.0, 0.8),
        amplitude(&l, 48_000, 2000.0, 0.8),
    );
    let (r1, r2) = (
        amplitude(&r, 48_000, 1000.0, 0.8),
        amplitude(&r, 48_000, 2000.0, 0.8),
    );
    // Each tone at 0.9 × 0.5 of full deviation.
    assert!((db(l1 / 0.45)).abs() < 0.2, "left 1 kHz {l1}");
    assert!((db(r2 / 0.45)).abs() < 0.2, "right 2 kHz {r2}");
    let (sep_l, sep_r) = (db(l1 / l2), db(r2 / r1));
    eprintln!("separation: left {sep_l:.1} dB, right {sep_r:.1} dB");
    assert!(sep_l >= 40.0 && sep_r >= 40.0, "{sep_l} {sep_r}");
    let rest = residual_rms(&l, 48_000, &[1000.0, 2000.0], 0.8);
    eprintln!("left SINAD {:.1} dB", db(l1 / 2f64.sqrt() / rest));
    assert!(db(l1 / 2f64.sqrt() / rest) > 40.0);

    // `--out -`: the same samples, raw.
    let o = airwaves(&fm_args(scene, "-", &extra));
    check(&o);
    assert_eq!(o.stdout, w.data);
    std::fs::remove_file(wav_path).unwrap();
}

#[test]
fn fm_mono_is_the_sum() {
    let scene = fm_scene().to_str().unwrap();
    let p = tmp("mono.wav");
    let o = airwaves(&fm_args(
        scene,
        p.to_str().unwrap(),
        &["--mono", "--deemph", "50"],
    ));
    check(&o);
    let err = stderr(&o);
    assert!(!err.contains("PS "), "no RDS without --rds: {err}");
    let w = Wav::read(&p);
    assert_eq!(w.channels, 1);
    let m = w.channel(0);
    // (L + R)/2: each tone at half of 0.45.
    for f in [1000.0, 2000.0] {
        let a = amplitude(&m, 48_000, f, 0.8);
        assert!(db(a / 0.225).abs() < 0.2, "{f} Hz: {a}");
    }
    std::fs::remove_file(p).unwrap();
}

#[test]
fn fm_deemphasis_75_against_50() {
    let scene = fm_scene().to_str().unwrap();
    let mut amps = Vec::new();
    for tau in ["50", "75"] {
        let p = tmp(&format!("deemph{tau}.wav"));
        check(&airwaves(&fm_args(
            scene,
            p.to_str().unwrap(),
            &["--deemph", tau],
        )));
        let w = Wav::read(&p);
        amps.push((
            amplitude(&w.channel(0), 48_000, 1000.0, 0.8),
            amplitude(&w.channel(1), 48_000, 2000.0, 0.8),
        ));
        std::fs::remove_file(p).unwrap();
    }
    // 75 µs on a 50 µs station: |1 + j2πf·50µ| / |1 + j2πf·75µ|,
    // −0.462 dB at 1 kHz, −1.314 dB at 2 kHz.
    let d1 = db(amps[1].0 / amps[0].0);
    let d2 = db(amps[1].1 / amps[0].1);
    assert!((d1 + 0.462).abs() < 0.05, "{d1}");
    assert!((d2 + 1.314).abs() < 0.05, "{d2}");
}

#[test]
fn fm_audio_rate_44100() {
    let scene = fm_scene().to_str().unwrap();
    let p = tmp("fm44.wav");
    check(&airwaves(&fm_args(
        scene,
        p.to_str().unwrap(),
        &["--audio-rate", "44100", "--deemph", "50"],
    )));
    let w = Wav::read(&p);
    assert_eq!((w.channels, w.rate), (2, 44_100));
    assert!((w.frames() as i64 - 88_200).abs() <= 2, "{}", w.frames());
    let l = w.channel(0);
    let a = amplitude(&l, 44_100, 1000.0, 0.8);
    assert!(db(a / 0.45).abs() < 0.2, "{a}");
    assert!(db(a / amplitude(&l, 44_100, 2000.0, 0.8)) > 40.0);
    std::fs::remove_file(p).unwrap();
}

#[test]
fn fm_from_the_emulated_dongle() {
    // The emulator plays the recording as the dongle's samples; tuned
    // 250 kHz above the station by default, it is where the generator put it.
    let spec = format!("r820t,file={}", fm_scene().display());
    let p = tmp("fake.wav");
    let o = airwaves(&[
        "fm",
        "100M",
        "--fake-device",
        &spec,
        "--rds",
        "--deemph",
        "50",
        "--out",
        p.to_str().unwrap(),
    ]);
    check(&o);
    let err = stderr(&o);
    assert!(err.contains("centre 100.2500 MHz"), "{err}");
    assert!(err.contains("PS \"AIRWAVES\""), "{err}");
    let w = Wav::read(&p);
    assert!(w.frames() > 90_000, "{}", w.frames());
    let (l, r) = (w.channel(0), w.channel(1));
    let sep = db(amplitude(&l, 48_000, 1000.0, 0.8) / amplitude(&l, 48_000, 2000.0, 0.8));
    assert!(sep > 40.0, "{sep}");
    assert!(amplitude(&r, 48_000, 2000.0, 0.8) > 0.4);
    std::fs::remove_file(p).unwrap();
}

/// `--gain auto` (the default) on the emulated dongle streaming the
/// airport demo sky through the front-end model, at the gain the driver
/// writes into the R82xx registers: the replies of the nearest aircraft
/// clip at the starting 29.7 dB, so the headroom loop lowers the gain,
/// says why, and the status line shows the gain it set.
#[test]
fn nfm_headroom_loop_on_the_emulated_dongle() {
    let p = tmp("gain.wav");
    let child = Command::new(BIN)
        .args(["nfm", "1090M", "--fake-device", "r820t,sky=airport"])
        .args(["--out", p.to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(6));
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("gain lowered 29.7 → "), "{err}");
    assert!(err.contains("of the samples clip"), "{err}");
    // The last status line shows a gain below the start.
    let last = err.lines().rev().find(|l| l.contains(" gain ")).unwrap();
    let g: f64 = last
        .split(" gain ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    assert!(g < 29.7, "{last}");
    let _ = std::fs::remove_file(p);
}

#[test]
fn fm_from_our_rtl_tcp_server_and_killed_mid_file() {
    // The server plays the recording from its emulated dongle in real
    // time (looping it), so the receiver runs until it is killed; the WAV
    // header, rewritten every second, stays valid up to the last second.
    let spec = format!("r820t,file={}", fm_scene().display());
    let (_server, addr) = support::our_rtl_tcp_server(&["--fake-device", &spec]);
    let p = tmp("tcp.wav");
    let log = tmp("tcp.log");
    let mut child = Command::new(BIN)
        .args([
            "fm",
            "100M",
            "--rtl-tcp",
            &addr.to_string(),
            "--rds",
            "--deemph",
            "50",
        ])
        .arg("--out")
        .arg(&p)
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let header_len = |p: &Path| {
        std::fs::read(p)
            .ok()
            .filter(|b| b.len() >= 44)
            .map_or(0, |b| {
                u32::from_le_bytes(b[40..44].try_into().unwrap()) as usize
            })
    };
    let t0 = std::time::Instant::now();
    // 1.6 s of stereo audio in the header.
    while header_len(&p) < 4 * 76_800 && t0.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let err = std::fs::read_to_string(&log).unwrap();
    let b = std::fs::read(&p).unwrap();
    let len = header_len(&p);
    assert!(
        len >= 4 * 76_800,
        "{len} bytes after {:?}: {err}",
        t0.elapsed()
    );
    assert!(b.len() >= 44 + len);
    assert!(err.contains("rtl_tcp"), "{err}");
    assert!(err.contains("PS \"AIRWAVES\""), "{err}");
    let w = Wav {
        channels: 2,
        rate: 48_000,
        data: b[44..44 + len].to_vec(),
    };
    let l = w.channel(0);
    // 0.6 .. 1.6 s.
    let sep = db(amplitude(&l, 48_000, 1000.0, 0.6) / amplitude(&l, 48_000, 2000.0, 0.6));
    assert!(sep > 40.0, "{sep}");
    std::fs::remove_file(p).unwrap();
    std::fs::remove_file(log).unwrap();
}

#[test]
fn am_envelope_and_sync_give_the_tone() {
    let f = narrow_scene("am.cu8", 240_000.0, 30e3, 1000.0, 0.5, 0.0);
    for sync in [false, true] {
        let p = tmp(&format!("am{sync}.wav"));
        let mut args = vec![
            "am",
            "127.35M",
            "--ifile",
            f.to_str().unwrap(),
            "--rate",
            "240000",
            "--offset",
            "30k",
            "--out",
            p.to_str().unwrap(),
        ];
        if sync {
            args.push("--sync");
        }
        check(&airwaves(&args));
        let w = Wav::read(&p);
        assert_eq!(w.channels, 1);
        assert!(w.frames().abs_diff(96_000) <= 2, "{}", w.frames());
        let x = w.channel(0);
        // Skip the first second: the carrier's DC step and the voice AGC
        // settling. The AGC sets the level (speech at about 0.3).
        let a = amplitude(&x[48_000..], 48_000, 1000.0, 0.0);
        assert!((0.1..0.9).contains(&a), "sync {sync}: {a}");
        let rest = residual_rms(&x[48_000..], 48_000, &[1000.0], 0.0);
        assert!(db(a / 2f64.sqrt() / rest) > 30.0, "sync {sync}: {a} {rest}");
        std::fs::remove_file(p).unwrap();
    }
    std::fs::remove_file(f).unwrap();
}

#[test]
fn nfm_gives_the_tone_and_squelch_mutes() {
    let f = narrow_scene("nfm.cu8", 1_200_000.0, -50e3, 1500.0, 0.0, 3000.0);
    let file = f.to_str().unwrap();
    let run = |squelch: &str| {
        let p = tmp(&format!("nfm{squelch}.wav"));
        let o = airwaves(&[
            "nfm",
            "446.00625M",
            "--ifile",
            file,
            "--offset",
            "-50k",
            "--squelch",
            squelch,
            "--out",
            p.to_str().unwrap(),
        ]);
        check(&o);
        let w = Wav::read(&p);
        std::fs::remove_file(p).unwrap();
        (w, stderr(&o))
    };
    let (w, err) = run("10");
    assert!(err.contains("squelch open"), "{err}");
    assert!(w.frames().abs_diff(96_000) <= 2, "{}", w.frames());
    let x = w.channel(0);
    let a = amplitude(&x[4800..], 48_000, 1500.0, 0.0);
    // ±3 kHz of ±5 kHz full scale through 750 µs de-emphasis at 1.5 kHz
    // (× 0.140).
    assert!((a - 0.084).abs() < 0.01, "{a}");
    assert!(db(a / 2f64.sqrt() / residual_rms(&x[4800..], 48_000, &[1500.0], 0.0)) > 30.0);

    let (w, err) = run("100");
    assert!(err.contains("squelch closed"), "{err}");
    assert!(w.channel(0).iter().all(|&v| v == 0.0));
    std::fs::remove_file(f).unwrap();
}

#[test]
fn play_without_a_sound_card_names_the_file_option() {
    let scene = fm_scene().to_str().unwrap();
    let o = airwaves(&fm_args(scene, "play", &[]));
    if o.status.success() {
        eprintln!("a sound device is present: played");
        return;
    }
    let err = stderr(&o);
    assert!(err.contains("--out FILE.wav"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_options_are_clear_errors() {
    let scene = fm_scene().to_str().unwrap();
    let w = tmp("never.wav");
    let w = w.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "fm", "100M", "--ifile", scene, "--rate", "2000000", "--out", w,
            ],
            "2400000",
        ),
        (
            &["fm", "100M", "--ifile", scene, "--out", "x.mp3"],
            "FILE.wav",
        ),
        (
            &["fm", "100M", "--ifile", scene, "--deemph", "60", "--out", w],
            "60",
        ),
        (
            &[
                "fm", "100M", "--ifile", scene, "--offset", "-1.5M", "--out", w,
            ],
            "1 MHz",
        ),
        (
            &["fm", "1x0M", "--ifile", scene, "--out", w],
            "not a frequency",
        ),
        (
            &[
                "fm", "100M", "--ifile", scene, "--mono", "--stereo", "--out", w,
            ],
            "--stereo",
        ),
        (
            &[
                "fm",
                "100M",
                "--ifile",
                scene,
                "--audio-rate",
                "44101",
                "--out",
                w,
            ],
            "44101",
        ),
        (
            &["fm", "100M", "--ifile", scene, "--gain", "loud", "--out", w],
            "auto",
        ),
        (
            &["fm", "100M", "--ifile", "/nonexistent/x.cu8", "--out", w],
            "/nonexistent/x.cu8",
        ),
        (
            &["am", "1M", "--ifile", scene, "--rate", "240001", "--out", w],
            "240001",
        ),
        (
            &[
                "nfm", "1M", "--ifile", scene, "--rate", "240000", "--offset", "115k", "--out", w,
            ],
            "offset",
        ),
        (
            &["fm", "100M", "--fake-device", "r820t,speed=0", "--out", w],
            "speed",
        ),
    ];
    for (args, needle) in cases {
        let o = airwaves(args);
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_file(w);
}
