//! The feeder's inputs, opened once at start: the 1090 MHz source (a
//! dongle, rtl_tcp, a file or the demo sky) on its thread filling the
//! ring, and the UAT receiver (`--uat-device`, or the demo's 978 MHz sky)
//! on its own.

use super::args::AdsbArgs;
use super::run::Settings;
use super::source::{self as feed_source, End, Input, Shared};
use crate::cli::Gain;
use crate::demo::frontend::{FrontEnd, MAX_GAIN_TENTHS};
use crate::demo::uat::{UatSky, UatSkyConfig};
use crate::demo::{DemoConfig, DemoSky, PacedSky};
use crate::error::AdsbError;
use crate::ring::{self, Consumer};
use crate::source::{CHUNK, Source, SourceError, Tuning};
use crate::uat::{self, input::UatInput};
use airwaves_core::modes::cpr::Position;
use std::sync::Arc;
use std::thread::JoinHandle;

/// Ring buffers between the source and decode threads (16 × 256 KiB ≈
/// 0.9 s at 2.4 MS/s).
const RING_BUFFERS: usize = 16;

/// The input side: the ring from the source thread, and the thread.
pub(super) struct InputThread {
    pub(super) consumer: Consumer,
    pub(super) shared: Arc<Shared>,
    /// `None` with `--net-only`, and once joined.
    pub(super) thread: Option<JoinHandle<End>>,
    /// The source can change its tuner gain while it runs.
    pub(super) gain_settable: bool,
    /// The UAT receiver (`--uat-device`), while it runs.
    pub(super) uat: Option<UatInput>,
}

/// Step two: open the source (none with `--net-only`) and start its
/// thread, which fills the ring.
pub(super) fn open_input_thread(
    args: &AdsbArgs,
    settings: &Settings,
) -> Result<InputThread, AdsbError> {
    let shared = Arc::new(Shared::default());
    let (producer, consumer) = ring::ring(RING_BUFFERS, CHUNK).map_err(AdsbError::Ring)?;
    let mut gain_settable = false;
    let thread = if args.net_only {
        drop(producer);
        None
    } else {
        let input = open_input(
            args,
            settings.rate,
            settings.receiver,
            settings.start_unix_ms,
            settings.lossless,
        )?;
        gain_settable = input.source.can_set_gain();
        Some(
            feed_source::spawn(input, producer, shared.clone(), args.quiet)
                .map_err(AdsbError::SourceThread)?,
        )
    };
    // A second dongle that cannot be opened is reported; 1090 MHz goes on.
    let uat = if args.demo && args.uat_device.is_none() {
        demo_uat(args, settings)
    } else {
        open_uat(args, settings)
    };
    Ok(InputThread {
        consumer,
        shared,
        thread,
        gain_settable,
        uat,
    })
}

/// The demo's UAT sky ([`UatSky`]) at the demo's speed, as a second
/// receiver; none faster than real time (2 MS/s more to render and
/// demodulate N times over would take a core) or with
/// `--demo-uat-aircraft 0`.
fn demo_uat(args: &AdsbArgs, settings: &Settings) -> Option<UatInput> {
    if !args.uat_wanted() {
        return None;
    }
    let sky = UatSky::new(UatSkyConfig {
        receiver: settings.receiver.unwrap_or(DemoConfig::default().receiver),
        aircraft: args.demo_uat_aircraft,
        seed: args.demo_seed,
        start_unix_ms: settings.start_unix_ms,
    });
    let paced = PacedSky::new(sky, airwaves_core::uat::SAMPLE_RATE * args.demo_speed);
    let description = format!(
        "simulated 978 MHz sky, {} UAT aircraft",
        args.demo_uat_aircraft
    );
    announce_uat(
        uat::input::spawn_source(paced, description, settings.start_unix_ms),
        args.quiet,
    )
}

/// `--uat-device`, if given.
fn open_uat(args: &AdsbArgs, settings: &Settings) -> Option<UatInput> {
    let a = args.uat_device.as_ref()?;
    announce_uat(
        uat::input::spawn(a, args.uat_gain, settings.start_unix_ms),
        args.quiet,
    )
}

/// Say which UAT receiver runs, or why none does (the feeder goes on).
fn announce_uat<E: std::fmt::Display>(r: Result<UatInput, E>, quiet: bool) -> Option<UatInput> {
    match r {
        Ok(u) => {
            if !quiet {
                eprintln!("airwaves adsb: UAT receiver: {}", u.description);
            }
            Some(u)
        }
        Err(e) => {
            eprintln!("airwaves adsb: UAT receiver: {e}; continuing without it");
            None
        }
    }
}

/// Open the source the arguments name.
fn open_input(
    args: &AdsbArgs,
    rate: u32,
    receiver: Option<Position>,
    start_unix_ms: u64,
    lossless: bool,
) -> Result<Input, AdsbError> {
    if args.demo {
        let config = DemoConfig {
            receiver: receiver.unwrap_or(DemoConfig::default().receiver),
            sample_rate: f64::from(rate),
            aircraft: args.demo_aircraft,
            seed: args.demo_seed,
            sky: args.demo_sky,
            front_end: Some(FrontEnd::default()),
            gain: match args.tuning.gain {
                // The loop starts at the top.
                Gain::Auto => crate::rtl::r82xx::Gain::Manual(MAX_GAIN_TENTHS),
                Gain::Agc => crate::rtl::r82xx::Gain::Auto,
                Gain::Db(t) => crate::rtl::r82xx::Gain::Manual(crate::rtl::r82xx::nearest_gain(t)),
            },
            ..DemoConfig::default()
        };
        let sky = DemoSky::new(&config, start_unix_ms).map_err(AdsbError::Demo)?;
        if !args.quiet {
            eprintln!(
                "airwaves adsb: simulated {} sky, {} aircraft around {:.4}, {:.4}, {} real time",
                args.demo_sky.name(),
                args.demo_aircraft,
                config.receiver.lat,
                config.receiver.lon,
                if args.demo_speed.is_finite() {
                    format!("{}×", args.demo_speed)
                } else {
                    "as fast as it decodes, not".to_string()
                },
            );
        }
        return Ok(Input {
            source: Box::new(PacedSky::new(sky, f64::from(rate) * args.demo_speed)),
            description: "the simulated sky".to_string(),
            reopen: None,
            lossless: args.demo_speed.is_infinite(),
        });
    }
    let mut tuning = Tuning::new(&args.tuning, Some(args.freq), rate);
    if args.tuning.gain == Gain::Auto && args.source.ifile.is_none() {
        // The loop starts at the top, in manual mode.
        tuning.gain = Some(MAX_GAIN_TENTHS);
    }
    let source = Source::open(&args.source, &tuning).map_err(|source| {
        // The hint only where a missing or unreachable stick is the problem.
        let usb = matches!(&source, SourceError::Rtl(e) if e.usb_kind().is_some());
        let dongle = args.source.ifile.is_none()
            && args.source.rtl_tcp.is_none()
            && args.source.dongle.fake_device.is_none();
        AdsbError::Open {
            source,
            hint: usb && dongle,
        }
    })?;
    if !args.quiet {
        eprintln!("airwaves adsb: reading {}", source.description());
    }
    let reopen = args
        .source
        .rtl_tcp
        .is_some()
        .then(|| (args.source.clone(), tuning));
    Ok(Input {
        description: source.description().to_string(),
        source: Box::new(source),
        reopen,
        lossless,
    })
}
