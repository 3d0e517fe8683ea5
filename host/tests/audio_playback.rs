//! `airwaves fm|am|nfm --out play` through the real cpal and the real ALSA
//! library, without a sound card.
//!
//! Each run gets a private `HOME` whose `.asoundrc` makes the default PCM
//! ALSA's own `file` plugin (it writes every frame played, raw, to a file)
//! on top of a sink. ALSA's `null` sink does not keep time (it is always
//! ready, so cpal's callback spins and the ring runs dry between the DSP's
//! blocks: honest underruns); so the sink here is `paced`, a small ALSA
//! I/O plugin built from [`PACED_C`] that consumes frames at its nominal
//! rate by the monotonic clock, as a sound card does, and that can
//! restrict the sample format, channel count and rate it accepts, or
//! report itself unplugged after a while.
//!
//! What the file plugin captured is then compared with `--out -` (raw
//! s16le) from the same input, aligned by cross-correlation (the device
//! starts with silence while the ring fills).
//!
//! Needs gcc and ALSA's headers (`libasound2-dev`, a build dependency);
//! without them the tests say so and pass.

mod support;

use airwaves_core::fm::generator::{Generator, GeneratorConfig, Tone};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const BIN: &str = env!("CARGO_BIN_EXE_airwaves");

/// An ALSA I/O plugin: a playback PCM that consumes what it is given at
/// its nominal rate (`pointer` follows the monotonic clock since `start`,
/// never past what was written: a late writer stalls it rather than
/// making it xrun). Poll wakes every half period through a timerfd.
/// Options: `format` (an ALSA format name), `channels`, `rate` (restrict
/// what the application may choose; by default S16_LE or FLOAT_LE, 1 to 8
/// channels, 8 to 192 kHz) and `hangup_ms` (report POLLERR|POLLHUP, a
/// device gone, once running that long).
const PACED_C: &str = r#"
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <errno.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    snd_pcm_ioplug_t io;
    int tfd;
    struct timespec t0;
    snd_pcm_uframes_t written, played;
    int running;
    long hangup_ms;
} paced_t;

static double since(const struct timespec *t0) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + 1e-9 * (double)(now.tv_nsec - t0->tv_nsec);
}

static void arm(paced_t *p, int on) {
    struct itimerspec its = {{0, 0}, {0, 0}};
    if (on) {
        long ns = (long)(1e9 * (double)p->io.period_size / (double)p->io.rate / 2.0);
        its.it_interval.tv_sec = ns / 1000000000L;
        its.it_interval.tv_nsec = ns % 1000000000L;
        its.it_value.tv_nsec = 1;
    }
    timerfd_settime(p->tfd, 0, &its, NULL);
}

static int paced_prepare(snd_pcm_ioplug_t *io) {
    paced_t *p = io->private_data;
    p->written = p->played = 0;
    p->running = 0;
    arm(p, 1);
    return 0;
}

static int paced_start(snd_pcm_ioplug_t *io) {
    paced_t *p = io->private_data;
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
    p->running = 1;
    return 0;
}

static int paced_stop(snd_pcm_ioplug_t *io) {
    paced_t *p = io->private_data;
    p->running = 0;
    arm(p, 0);
    return 0;
}

static snd_pcm_sframes_t paced_pointer(snd_pcm_ioplug_t *io) {
    paced_t *p = io->private_data;
    if (p->running) {
        double due = since(&p->t0) * (double)io->rate;
        snd_pcm_uframes_t d = due < (double)p->written ? (snd_pcm_uframes_t)due : p->written;
        if (d > p->played)
            p->played = d;
    }
    return (snd_pcm_sframes_t)(p->played % io->buffer_size);
}

static snd_pcm_sframes_t paced_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                        snd_pcm_uframes_t offset, snd_pcm_uframes_t size) {
    paced_t *p = io->private_data;
    (void)areas;
    (void)offset;
    p->written += size;
    return (snd_pcm_sframes_t)size;
}

static int paced_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *pfd, unsigned int nfds,
                              unsigned short *revents) {
    paced_t *p = io->private_data;
    uint64_t ticks;
    (void)nfds;
    if ((pfd[0].revents & POLLIN) && read(p->tfd, &ticks, sizeof ticks) < 0 && errno != EAGAIN)
        return -errno;
    if (p->running && p->hangup_ms >= 0 && since(&p->t0) * 1000.0 >= (double)p->hangup_ms) {
        *revents = POLLERR | POLLHUP;
        return 0;
    }
    *revents = (pfd[0].revents & POLLIN) ? POLLOUT : 0;
    return 0;
}

static int paced_close(snd_pcm_ioplug_t *io) {
    paced_t *p = io->private_data;
    close(p->tfd);
    free(p);
    return 0;
}

static const snd_pcm_ioplug_callback_t paced_callback = {
    .start = paced_start,
    .stop = paced_stop,
    .pointer = paced_pointer,
    .transfer = paced_transfer,
    .prepare = paced_prepare,
    .poll_revents = paced_poll_revents,
    .close = paced_close,
};

SND_PCM_PLUGIN_DEFINE_FUNC(paced) {
    snd_config_iterator_t i, next;
    long channels = 0, rate = 0, hangup_ms = -1;
    const char *format = NULL;
    unsigned int access = SND_PCM_ACCESS_RW_INTERLEAVED;
    unsigned int fmts[2] = {SND_PCM_FORMAT_S16_LE, SND_PCM_FORMAT_FLOAT_LE};
    unsigned int nfmts = 2;
    paced_t *p;
    int err;
    (void)root;
    if (stream != SND_PCM_STREAM_PLAYBACK)
        return -EINVAL;
    snd_config_for_each(i, next, conf) {
        snd_config_t *n = snd_config_iterator_entry(i);
        const char *id;
        if (snd_config_get_id(n, &id) < 0)
            continue;
        if (!strcmp(id, "comment") || !strcmp(id, "type") || !strcmp(id, "hint"))
            continue;
        if (!strcmp(id, "channels") && snd_config_get_integer(n, &channels) == 0)
            continue;
        if (!strcmp(id, "rate") && snd_config_get_integer(n, &rate) == 0)
            continue;
        if (!strcmp(id, "hangup_ms") && snd_config_get_integer(n, &hangup_ms) == 0)
            continue;
        if (!strcmp(id, "format") && snd_config_get_string(n, &format) == 0)
            continue;
        SNDERR("paced: bad field %s", id);
        return -EINVAL;
    }
    if (format) {
        int f = snd_pcm_format_value(format);
        if (f < 0) {
            SNDERR("paced: unknown format %s", format);
            return -EINVAL;
        }
        fmts[0] = (unsigned int)f;
        nfmts = 1;
    }
    p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    p->hangup_ms = hangup_ms;
    p->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (p->tfd < 0) {
        err = -errno;
        free(p);
        return err;
    }
    p->io.version = SND_PCM_IOPLUG_VERSION;
    p->io.name = "paced sink";
    p->io.flags = SND_PCM_IOPLUG_FLAG_MONOTONIC;
    p->io.poll_fd = p->tfd;
    p->io.poll_events = POLLIN;
    p->io.callback = &paced_callback;
    p->io.private_data = p;
    err = snd_pcm_ioplug_create(&p->io, name, stream, mode);
    if (err < 0) {
        close(p->tfd);
        free(p);
        return err;
    }
    snd_pcm_ioplug_set_param_list(&p->io, SND_PCM_IOPLUG_HW_ACCESS, 1, &access);
    snd_pcm_ioplug_set_param_list(&p->io, SND_PCM_IOPLUG_HW_FORMAT, nfmts, fmts);
    snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_CHANNELS,
                                    channels ? channels : 1, channels ? channels : 8);
    snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_RATE,
                                    rate ? rate : 8000, rate ? rate : 192000);
    snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 64, 1 << 20);
    snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_PERIODS, 2, 64);
    *pcmp = p->io.pcm;
    return 0;
}

SND_PCM_PLUGIN_SYMBOL(paced);
"#;

fn tmp(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("play-{}-{name}", std::process::id()))
}

/// The `paced` plugin, built once into the target's temporary directory
/// (under a private name, then renamed, so concurrent runs never load a
/// half-written one; the name changes with the source); `None`, with the
/// reason printed, without gcc or ALSA's headers.
fn paced_plugin() -> Option<&'static Path> {
    static SO: OnceLock<Option<PathBuf>> = OnceLock::new();
    SO.get_or_init(|| {
        if !Path::new("/usr/include/alsa/pcm_external.h").is_file() {
            eprintln!("skipped: no ALSA headers (libasound2-dev)");
            return None;
        }
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        PACED_C.hash(&mut h);
        let so = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("alsa-paced-{:016x}.so", h.finish()));
        if so.is_file() {
            return Some(so);
        }
        let src = tmp("paced.c");
        std::fs::write(&src, PACED_C).unwrap();
        let part = tmp("paced.so.part");
        let built = Command::new("gcc")
            .args(["-shared", "-fPIC", "-DPIC", "-O2", "-Wall", "-Werror", "-o"])
            .arg(&part)
            .arg(&src)
            .arg("-lasound")
            .status();
        let _ = std::fs::remove_file(&src);
        match built {
            Ok(s) if s.success() => {
                std::fs::rename(&part, &so).unwrap();
                Some(so)
            }
            Ok(s) => panic!("gcc failed on the paced plugin: {s}"),
            Err(e) => {
                eprintln!("skipped: cannot run gcc: {e}");
                None
            }
        }
    })
    .as_deref()
}

/// A private home for one run: `.asoundrc` is `config` after the `paced`
/// plugin's definition.
fn alsa_home(name: &str, config: &str) -> Option<PathBuf> {
    let so = paced_plugin()?;
    let home = tmp(name);
    std::fs::create_dir_all(&home).unwrap();
    let rc = format!("pcm_type.paced {{ lib \"{}\" }}\n{config}\n", so.display());
    std::fs::write(home.join(".asoundrc"), rc).unwrap();
    Some(home)
}

/// The default PCM: ALSA's file plugin writing raw frames to `capture`
/// on top of `slave` (a PCM definition).
fn default_file_pcm(capture: &Path, slave: &str) -> String {
    format!(
        "pcm.!default {{\n type file\n slave.pcm {slave}\n file \"{}\"\n format \"raw\"\n}}",
        capture.display()
    )
}

/// Run airwaves with ALSA reading only `home`'s configuration.
fn airwaves(home: Option<&Path>, args: &[&str]) -> Output {
    let mut c = Command::new(BIN);
    c.args(args).env_remove("ALSA_CONFIG_PATH");
    if let Some(h) = home {
        c.env("HOME", h).env("XDG_CONFIG_HOME", h.join(".config"));
    }
    c.output().expect("run airwaves")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn check(o: &Output) {
    assert!(o.status.success(), "failed: {}", stderr(o));
}

/// `name`: a stereo FM station at −250 kHz, `seconds` long at 2.4 MS/s cu8: 1 kHz
/// on the left, 2 kHz on the right, 9 % pilot, 50 µs pre-emphasis.
fn fm_scene(name: &str, seconds: f64) -> PathBuf {
    let g = Generator::new(GeneratorConfig::new(-250e3)).unwrap();
    let mut s = g.state();
    let (l, r) = (Tone::new(1000.0, 0.5), Tone::new(2000.0, 0.5));
    let mut iq = vec![[0u8; 2]; (2.4e6 * seconds) as usize];
    g.fill(&mut s, |t| l.at(t), |t| r.at(t), |_| 0.0, &mut iq);
    let p = tmp(name);
    std::fs::write(&p, iq.concat()).unwrap();
    p
}

/// cu8 at 240 kS/s, `seconds` long: a carrier at 0 Hz, AM by `depth` and
/// FM by `dev` Hz with a `tone` Hz sine (see [`support::narrow_iq`]).
fn narrow_scene(name: &str, seconds: f64, tone: f64, depth: f64, dev: f64) -> PathBuf {
    let p = tmp(name);
    std::fs::write(
        &p,
        support::narrow_iq(240e3, seconds, 0.0, tone, depth, dev),
    )
    .unwrap();
    p
}

/// Interleaved s16le as i16.
fn s16(b: &[u8]) -> Vec<i16> {
    b.chunks_exact(2)
        .map(|s| i16::from_le_bytes([s[0], s[1]]))
        .collect()
}

/// Interleaved f32le samples converted as `--out -` does (×32767,
/// rounded, saturated).
fn f32_as_s16(b: &[u8]) -> Vec<i16> {
    b.chunks_exact(4)
        .map(|s| {
            let x = f32::from_le_bytes([s[0], s[1], s[2], s[3]]);
            (x * 32767.0).round().clamp(-32768.0, 32767.0) as i16
        })
        .collect()
}

/// The frame lag of `reference` (`ch` interleaved channels) within
/// `captured` (same layout): the least squared difference (the largest
/// cross-correlation, the energies being equal) over 4096 frames of the
/// reference from its first sound. These hold the onset from silence: the
/// test tones are periodic, so a window from the middle would fit every
/// period.
fn align(captured: &[i16], reference: &[i16], ch: usize) -> usize {
    let first = reference.iter().position(|&v| v != 0).unwrap_or(0) / ch * ch;
    let w = &reference[first..(first + 4096 * ch).min(reference.len())];
    let mut best = (u64::MAX, 0usize);
    for lag in 0..=(captured.len() - reference.len()) / ch {
        let mut ssd = 0u64;
        for (a, b) in captured[lag * ch + first..].iter().zip(w) {
            let d = i64::from(*a) - i64::from(*b);
            ssd += (d * d) as u64;
            if ssd >= best.0 {
                break;
            }
        }
        if ssd < best.0 {
            best = (ssd, lag);
        }
    }
    best.1
}

/// How `captured` matches `reference` once aligned: (lag in frames,
/// largest difference in LSB, fraction of samples equal).
/// Remove a test's private ALSA home, its scene and its capture.
fn clean_up(home: &Path, scene: &str, capture: &Path) {
    std::fs::remove_dir_all(home).unwrap();
    let _ = std::fs::remove_file(scene);
    let _ = std::fs::remove_file(capture);
}

fn compare(captured: &[i16], reference: &[i16], ch: usize) -> (usize, i32, f64) {
    assert!(
        captured.len() >= reference.len(),
        "captured {} samples, expected at least {}",
        captured.len(),
        reference.len()
    );
    let lag = align(captured, reference, ch);
    let seg = &captured[lag * ch..lag * ch + reference.len()];
    let mut worst = 0;
    let mut equal = 0usize;
    for (a, b) in seg.iter().zip(reference) {
        let d = (i32::from(*a) - i32::from(*b)).abs();
        worst = worst.max(d);
        equal += usize::from(d == 0);
    }
    // Before the audio: only the silence played while the ring filled.
    assert!(
        captured[..lag * ch].iter().all(|&v| v == 0),
        "sound before the aligned start"
    );
    (lag, worst, equal as f64 / reference.len() as f64)
}

/// The last status line (the exit summary) of a run's stderr.
fn summary(err: &str) -> &str {
    err.lines()
        .rev()
        .find(|l| l.contains(" dBFS"))
        .unwrap_or_else(|| panic!("no status line in {err}"))
}

fn fm_args<'a>(scene: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "fm", "100M", "--ifile", scene, "--rate", "2400000", "--offset", "-250k", "--stereo",
        "--out", out,
    ];
    a.extend_from_slice(extra);
    a
}

#[test]
fn fm_stereo_plays_through_alsa_as_on_stdout() {
    let capture = tmp("fm-f32.raw");
    let slave = "{ type paced format FLOAT_LE channels 2 rate 48000 }";
    let Some(home) = alsa_home("fm-f32", &default_file_pcm(&capture, slave)) else {
        return;
    };
    let scene = fm_scene("fm1.cu8", 1.5);
    let scene = scene.to_str().unwrap();
    let reference = airwaves(None, &fm_args(scene, "-", &[]));
    check(&reference);
    let reference = s16(&reference.stdout);
    assert_eq!(reference.len(), 2 * 72_000);

    let t0 = std::time::Instant::now();
    let o = airwaves(Some(&home), &fm_args(scene, "play", &[]));
    let took = t0.elapsed().as_secs_f64();
    check(&o);
    let err = stderr(&o);
    assert!(err.contains("sound device: 2 ch f32 at 48000 Hz"), "{err}");
    assert!(summary(&err).ends_with("underruns 0  overruns 0"), "{err}");
    // Played in real time: 1.5 s of audio takes 1.5 s or more.
    assert!(took >= 1.45, "{took} s");

    let captured = f32_as_s16(&std::fs::read(&capture).unwrap());
    let (lag, worst, equal) = compare(&captured, &reference, 2);
    eprintln!(
        "fm f32: {took:.2} s; leading silence {lag} frames; worst {worst} LSB; {:.3} % equal",
        100.0 * equal
    );
    assert!(worst <= 1 && equal >= 0.99, "{worst} {equal}");
    // Everything after the audio is the drain's silence.
    assert!(
        captured[lag * 2 + reference.len()..]
            .iter()
            .all(|&v| v == 0)
    );
    clean_up(&home, scene, &capture);
}

#[test]
fn nfm_on_a_mono_s16_device_at_44100() {
    let capture = tmp("nfm-s16.raw");
    let slave = "{ type paced format S16_LE channels 1 rate 44100 }";
    let Some(home) = alsa_home("nfm-s16", &default_file_pcm(&capture, slave)) else {
        return;
    };
    let scene = narrow_scene("nfm.cu8", 1.0, 1000.0, 0.0, 3000.0);
    let scene = scene.to_str().unwrap();
    let args = |out: &'static str, extra: &[&'static str]| -> Vec<String> {
        let mut a: Vec<String> = ["nfm", "100M", "--ifile", scene, "--rate", "240000"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.extend(["--out".to_string(), out.to_string()]);
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let refs = args("-", &["--audio-rate", "44100"]);
    let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
    let reference = airwaves(None, &refs);
    check(&reference);
    let reference = s16(&reference.stdout);

    // No --audio-rate: the device's rate, 44.1 kHz, is the audio rate.
    let play = args("play", &[]);
    let play: Vec<&str> = play.iter().map(String::as_str).collect();
    let o = airwaves(Some(&home), &play);
    check(&o);
    let err = stderr(&o);
    assert!(err.contains("audio 44100 Hz, mono"), "{err}");
    assert!(err.contains("sound device: 1 ch i16 at 44100 Hz"), "{err}");
    assert!(summary(&err).ends_with("underruns 0  overruns 0"), "{err}");
    let captured = s16(&std::fs::read(&capture).unwrap());
    let (lag, worst, equal) = compare(&captured, &reference, 1);
    eprintln!(
        "nfm i16: leading silence {lag} frames; worst {worst} LSB; {:.3} % equal",
        100.0 * equal
    );
    assert!(worst <= 1 && equal >= 0.99, "{worst} {equal}");
    clean_up(&home, scene, &capture);
}

#[test]
fn am_mono_to_both_channels_of_a_u16_device() {
    let capture = tmp("am-u16.raw");
    let slave = "{ type paced format U16_LE channels 2 }";
    let Some(home) = alsa_home("am-u16", &default_file_pcm(&capture, slave)) else {
        return;
    };
    let scene = narrow_scene("am.cu8", 1.0, 1000.0, 0.5, 0.0);
    let scene = scene.to_str().unwrap();
    let base = ["am", "100M", "--ifile", scene, "--rate", "240000", "--out"];
    let reference = airwaves(None, &[&base[..], &["-"]].concat());
    check(&reference);
    let reference = s16(&reference.stdout);
    let o = airwaves(Some(&home), &[&base[..], &["play"]].concat());
    check(&o);
    let err = stderr(&o);
    assert!(err.contains("sound device: 2 ch u16 at 48000 Hz"), "{err}");
    assert!(summary(&err).ends_with("underruns 0  overruns 0"), "{err}");
    // Unsigned: offset binary; the same sample on both channels.
    let raw = std::fs::read(&capture).unwrap();
    let frames: Vec<[i16; 2]> = raw
        .chunks_exact(4)
        .map(|f| {
            let s = |i: usize| (u16::from_le_bytes([f[i], f[i + 1]]) ^ 0x8000) as i16;
            [s(0), s(2)]
        })
        .collect();
    assert!(frames.iter().all(|f| f[0] == f[1]));
    let left: Vec<i16> = frames.iter().map(|f| f[0]).collect();
    let (lag, worst, equal) = compare(&left, &reference, 1);
    eprintln!(
        "am u16: leading silence {lag} frames; worst {worst} LSB; {:.3} % equal",
        100.0 * equal
    );
    assert!(worst <= 1 && equal >= 0.99, "{worst} {equal}");
    clean_up(&home, scene, &capture);
}

#[test]
fn fm_stereo_on_a_mono_s32_device_is_the_mean() {
    let capture = tmp("fm-s32.raw");
    let slave = "{ type paced format S32_LE channels 1 rate 48000 }";
    let Some(home) = alsa_home("fm-s32", &default_file_pcm(&capture, slave)) else {
        return;
    };
    let scene = fm_scene("fm2.cu8", 1.0);
    let scene = scene.to_str().unwrap();
    let reference = airwaves(None, &fm_args(scene, "-", &[]));
    check(&reference);
    let mean: Vec<i16> = s16(&reference.stdout)
        .chunks_exact(2)
        .map(|f| ((i32::from(f[0]) + i32::from(f[1])) / 2) as i16)
        .collect();
    let o = airwaves(Some(&home), &fm_args(scene, "play", &[]));
    check(&o);
    let err = stderr(&o);
    assert!(err.contains("sound device: 1 ch i32 at 48000 Hz"), "{err}");
    let captured: Vec<i16> = std::fs::read(&capture)
        .unwrap()
        .chunks_exact(4)
        .map(|s| (i32::from_le_bytes([s[0], s[1], s[2], s[3]]) as f64 / 65536.0).round() as i16)
        .collect();
    let (lag, worst, equal) = compare(&captured, &mean, 1);
    eprintln!(
        "fm→mono i32: leading silence {lag} frames; worst {worst} LSB; {:.3} % equal",
        100.0 * equal
    );
    // The mean of two rounded samples against the rounded mean: ≤ 1 LSB.
    assert!(worst <= 1, "{worst}");
    clean_up(&home, scene, &capture);
}

#[test]
fn alsa_null_does_not_keep_time_underruns_are_counted_and_nothing_is_lost() {
    // ALSA's own null sink under the file plugin: always ready, so the
    // callback drains the ring faster than the DSP fills it.
    let capture = tmp("null.raw");
    let Some(home) = alsa_home("null", &default_file_pcm(&capture, "\"null\"")) else {
        return;
    };
    let scene = fm_scene("fm3.cu8", 1.0);
    let scene = scene.to_str().unwrap();
    let reference = airwaves(None, &fm_args(scene, "-", &[]));
    check(&reference);
    let reference = s16(&reference.stdout);
    let o = airwaves(Some(&home), &fm_args(scene, "play", &[]));
    check(&o);
    let err = stderr(&o);
    // cpal's default for a PCM that takes anything: stereo f32 at 48 kHz.
    assert!(err.contains("sound device: 2 ch f32 at 48000 Hz"), "{err}");
    let line = summary(&err);
    let underruns: u64 = line
        .split("underruns ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(underruns >= 1, "{line}");
    assert!(line.ends_with("overruns 0"), "{line}");
    // What was played is the reference in order, every frame of it, with
    // only silence between: match greedily, skipping captured silence.
    let captured = f32_as_s16(&std::fs::read(&capture).unwrap());
    let (cap, rf) = (captured.chunks_exact(2), reference.chunks_exact(2));
    let (mut i, mut gaps, mut in_gap) = (0usize, 0usize, false);
    let rf: Vec<&[i16]> = rf.collect();
    for f in cap {
        if i < rf.len() && f == rf[i] {
            i += 1;
            in_gap = false;
        } else {
            assert_eq!(
                f,
                [0, 0],
                "frame {i} of the reference: {f:?} ≠ {:?}",
                rf.get(i)
            );
            if !in_gap && i > 0 && i < rf.len() {
                gaps += 1;
            }
            in_gap = true;
        }
    }
    assert_eq!(i, rf.len(), "reference frames played");
    eprintln!("null: {underruns} underruns, {gaps} silent gaps, every frame played");
    clean_up(&home, scene, &capture);
}

#[test]
fn a_device_unplugged_mid_stream_is_a_clear_error() {
    let capture = tmp("hangup.raw");
    let slave = "{ type paced hangup_ms 300 }";
    let Some(home) = alsa_home("hangup", &default_file_pcm(&capture, slave)) else {
        return;
    };
    let scene = fm_scene("fm4.cu8", 1.5);
    let scene = scene.to_str().unwrap();
    let o = airwaves(Some(&home), &fm_args(scene, "play", &[]));
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("sound device failed"), "{err}");
    assert!(err.contains("--out FILE.wav"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // It stopped when the device went, not at the end of the audio: the
    // device (stereo f32) took well under a second of the 1.5 s.
    let played = std::fs::metadata(&capture).unwrap().len() as f64 / 8.0 / 48e3;
    eprintln!(
        "unplugged after {played:.3} s: {}",
        err.lines().last().unwrap_or("")
    );
    assert!(played > 0.2 && played < 0.8, "{played} s");
    clean_up(&home, scene, &capture);
}

#[test]
fn audio_device_by_name_and_the_rates_a_device_refuses() {
    let capture = tmp("named.raw");
    // A named PCM with a hint (so that cpal lists it); no default PCM
    // beyond ALSA's own, which has no card behind it.
    let pcm = format!(
        "pcm.airwaves_test {{\n type file\n slave.pcm {{ type paced format S16_LE rate 44100 }}\n \
         file \"{}\"\n format \"raw\"\n hint {{ show on description \"test sink\" }}\n}}",
        capture.display()
    );
    let Some(home) = alsa_home("named", &pcm) else {
        return;
    };
    let scene = narrow_scene("named.cu8", 0.5, 1000.0, 0.0, 3000.0);
    let scene = scene.to_str().unwrap();
    let base = [
        "nfm", "100M", "--ifile", scene, "--rate", "240000", "--out", "play",
    ];
    let o = airwaves(
        Some(&home),
        &[&base[..], &["--audio-device", "airwaves_test"]].concat(),
    );
    check(&o);
    assert!(
        stderr(&o).contains("sound device: 1 ch i16 at 44100 Hz"),
        "{}",
        stderr(&o)
    );
    let played = s16(&std::fs::read(&capture).unwrap());
    assert!(played.len() >= 22_050, "{}", played.len());
    assert!(played.iter().any(|&v| v.abs() > 1000));

    let o = airwaves(
        Some(&home),
        &[&base[..], &["--audio-device", "no_such_pcm"]].concat(),
    );
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(err.contains("no output device \"no_such_pcm\""), "{err}");
    assert!(err.contains("airwaves_test"), "{err}");
    assert!(err.contains("--out FILE.wav"), "{err}");

    let o = airwaves(
        Some(&home),
        &[
            &base[..],
            &["--audio-device", "airwaves_test", "--audio-rate", "48000"],
        ]
        .concat(),
    );
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(
        err.contains("does not play 48000 Hz; it plays 44100 Hz"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    clean_up(&home, scene, &capture);
}
