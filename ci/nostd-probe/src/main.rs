//! Links `airwaves-core` with no global allocator and no `std`.
//!
//! Every public entry point of core is called through
//! `core::hint::black_box`, so none is optimised out: if anything in core's
//! dependency graph needs `alloc`, this binary fails to link ("no global
//! memory allocator found"). It is never run; CI only links it for
//! `thumbv7em-none-eabihf`.
#![no_std]
#![no_main]

use airwaves_core::dsp::{self, SplitProcess};
use airwaves_core::modes;
use airwaves_core::{C32, Ci16};
use core::hint::black_box as bb;

/// Use a value opaquely (results included) so nothing is optimised out.
fn keep<T>(x: T) {
    let _ = bb(x);
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

/// The entry point the linker looks for.
#[unsafe(no_mangle)]
pub extern "C" fn _start() -> ! {
    design_and_fixed();
    input();
    fir();
    iir();
    phase_and_rate();
    mode_s();
    tracker();
    modulate();
    demod();
    modeac();
    level();
    rds();
    uat();
    fm();
    am();
    rng();
    loop {
        keep(());
    }
}

fn design_and_fixed() {
    let mut h = [0.0f64; 31];
    dsp::design::lowpass(&mut h, bb(0.2), dsp::design::kaiser_beta(bb(60.0)), 1.0);
    let mut h32 = [0.0f32; 31];
    dsp::design::lowpass_f32(&mut h32, bb(0.2), bb(5.0), 1.0);
    let mut q = [0i16; 31];
    dsp::design::quantise_q15(&h, &mut q);
    keep((
        dsp::design::kaiser_len(bb(60.0), bb(0.05)),
        dsp::design::bessel_i0(bb(2.0)),
    ));
    keep((
        dsp::design::kaiser_window(3, 31, bb(5.0)),
        dsp::design::sinc(bb(0.3)),
    ));
    keep((
        dsp::fixed::mul_q15(bb(3), bb(4)),
        dsp::fixed::f32_to_q15(bb(0.3)),
    ));
    keep((
        dsp::fixed::q15_to_f32(bb(7)),
        dsp::fixed::sat16(bb(1 << 20)),
    ));
    keep(dsp::fixed::round_shift(bb(77), 3));
    keep((h, h32, q));
}

fn input() {
    use dsp::{convert, dc, nco};
    let bytes = bb([127u8; 64]);
    let mut c = [C32::default(); 32];
    let mut ci = [Ci16::default(); 32];
    let cu8 = convert::Cu8::new(bb(127.4));
    keep(cu8.to_c32(&bytes, &mut c));
    keep(cu8.to_ci16(&bytes, &mut ci));
    keep((cu8.c32([1, 2]), cu8.ci16([1, 2])));
    let s16 = bb([5i16; 64]);
    keep(convert::cs16_to_c32(&s16, &mut c));
    keep(convert::cs16_to_ci16(&s16, &mut ci));
    keep(convert::cs16le_to_c32(&bytes, &mut c));
    keep(convert::cs16le_to_ci16(&bytes, &mut ci));

    let blk = dc::DcBlocker::new(bb(1e-3));
    let mut st = dc::DcBlockerState::<C32>::new();
    let x = c;
    blk.block(&mut st, &x, &mut c);
    let blk = dc::DcBlockerQ15::new(bb(1e-3));
    let mut st = dc::DcBlockerQ15State::<num_complex_alias::C64>::new();
    let xi = ci;
    blk.block(&mut st, &xi, &mut ci);
    let mut st = dc::DcBlockerQ15State::<i64>::with_dc(bb(3));
    keep(blk.process(&mut st, bb(5i16)));

    keep((nco::cos_sin_q15(bb(123)), nco::cos_sin_f32(bb(456))));
    let osc = nco::Nco::new(bb(0.1));
    let mut st = nco::NcoState::new(bb(0));
    keep((osc.next_q15(&mut st), osc.next_f32(&mut st)));
    osc.fill_q15(&mut st, &mut ci);
    osc.fill_f32(&mut st, &mut c);
    let x = c;
    osc.block(&mut st, &x, &mut c);
    let xi = ci;
    osc.block(&mut st, &xi, &mut ci);
    let mut st = nco::Fs4State::new(bb(1));
    nco::Fs4Shift::DOWN.block(&mut st, &x, &mut c);
    nco::Fs4Shift::UP.block(&mut st, &xi, &mut ci);
    keep((c, ci));
}

/// `Complex<i64>` without naming num-complex here.
mod num_complex_alias {
    pub type C64 = airwaves_core::Complex<i64>;
}

fn fir() {
    use dsp::fir::{
        Decimate, Decimator, DecimatorState, Fir, FirDesign, FirState, SplitDecimate, SymFir,
    };
    use dsp::halfband::{Cascade, HalfBand, HalfBandState, halfband_f64};
    let d = FirDesign::lowpass(bb(0.1), bb(70.0)).with_gain(1.0);
    let mut h = [0.0f64; 15];
    d.fill_f64(&mut h);
    let mut t = [0i16; 15];
    d.fill(&mut t);
    let x = bb([0.25f32; 32]);
    let mut y = [0.0f32; 32];
    let f = Fir::<f32, 15>::design(&d);
    let mut st = FirState::<f32, 15>::new();
    f.block(&mut st, &x, &mut y);
    st.reset();
    let s = SymFir::<f32, 15>::design(&d);
    s.block(&mut st, &x, &mut y);
    keep((f.taps(), s.taps()));
    let xi = bb([Ci16::new(1000, -1000); 32]);
    let mut yi = [Ci16::default(); 32];
    let fq = SymFir::<i16, 15>::new(t);
    let mut st = FirState::<Ci16, 15>::new();
    fq.block(&mut st, &xi, &mut yi);
    let dec = Decimator::<_, 4>::new(Fir::<i16, 15>::new(t));
    let mut st = DecimatorState::<Ci16, 15>::new();
    keep((
        dec.block(&mut st, &xi, &mut yi),
        st.skip(),
        dec.fir(),
        dec.max_output(bb(33)),
    ));
    st.reset();

    let mut hb = [0.0f64; 4];
    halfband_f64(&mut hb, bb(6.0));
    let a = HalfBand::<f32, 4>::design(bb(70.0));
    let b = HalfBand::<f32, 8>::design(bb(70.0));
    let mut imp = [0.0f32; 15];
    a.impulse_response(&mut imp);
    let c = Cascade::new(a, b);
    let mut st = (
        HalfBandState::<C32, 4>::new(),
        HalfBandState::<C32, 8>::new(),
    );
    let xc = bb([C32::new(0.1, 0.2); 32]);
    let mut yc = [C32::default(); 32];
    keep(c.block(&mut st, &xc, &mut yc));
    st.0.reset();
    let q = HalfBand::<i16, 4>::design(bb(60.0));
    let mut st = HalfBandState::<i16, 4>::new();
    let xq = bb([100i16; 32]);
    let mut yq = [0i16; 32];
    keep((q.block(&mut st, &xq, &mut yq), q.taps()));
    keep((h, y, yi, hb, imp, yc, yq));
}

fn iir() {
    use dsp::{agc, deemph, iir};
    let x = bb([0.25f32; 32]);
    let mut y = [0.0f32; 32];
    let d = iir::BiquadDesign::lowpass(bb(1e3), 48e3, 0.707);
    let bq = d.to_f32();
    let mut s1 = iir::Df1State::<f32>::default();
    bq.block(&mut s1, &x, &mut y);
    let mut s2 = iir::Df2tState::<f32>::default();
    bq.block(&mut s2, &x, &mut y);
    keep((
        iir::BiquadDesign::highpass(bb(1e3), 48e3, 0.7),
        iir::BiquadDesign::notch(bb(1e3), 48e3, 5.0),
    ));
    keep((
        iir::BiquadDesign::bandpass(bb(1e3), 48e3, 2.0).magnitude(bb(0.1)),
        d.response(bb(0.2)),
    ));
    let xi = bb([1000i16; 32]);
    let mut yi = [0i16; 32];
    if let Some(q) = d.to_q15() {
        let mut st = iir::BiquadQ15State::default();
        q.block(&mut st, &xi, &mut yi);
    }
    let op = iir::OnePole::from_corner(bb(100.0), 48e3);
    let mut st = iir::OnePoleState::new(0.0f32);
    op.block(&mut st, &x, &mut y);
    let op = iir::OnePoleQ15::from_time_constant(bb(1e-3), 48e3);
    let mut st = iir::OnePoleQ15State::new(0);
    op.block(&mut st, &xi, &mut yi);

    let de = deemph::Deemphasis::new(deemph::TAU_75US, bb(48e3));
    let mut st = deemph::DeemphasisState::default();
    de.block(&mut st, &x, &mut y);
    let de = deemph::DeemphasisQ15::new(deemph::TAU_50US, bb(48e3));
    let mut st = deemph::DeemphasisQ15State::default();
    de.block(&mut st, &xi, &mut yi);
    keep(deemph::analog_magnitude(deemph::TAU_50US, bb(1e3)));

    let p = agc::AgcParams::default();
    let a = agc::Agc::new(&p, bb(48e3));
    let mut st = a.state();
    a.block(&mut st, &x, &mut y);
    keep((st.gain(), st.envelope()));
    let a = agc::AgcQ15::new(&p, bb(48e3));
    let mut st = a.state();
    a.block(&mut st, &xi, &mut yi);
    keep((st.gain(), st.envelope(), y, yi));
}

fn phase_and_rate() {
    use dsp::{magnitude as mag, phase, resample};
    keep((
        phase::atan2(bb(1.0), bb(2.0)),
        phase::atan2_i16(bb(3), bb(4)),
    ));
    keep(phase::atan2_i32(bb(3), bb(4)));
    let c = bb([C32::new(0.5, 0.25); 32]);
    let ci = bb([Ci16::new(900, -300); 32]);
    let mut y = [0.0f32; 32];
    let mut yi = [0i16; 32];
    let d = phase::Discriminator::new(bb(1.0));
    let mut st = phase::DiscriminatorState::<C32>::default();
    d.block(&mut st, &c, &mut y);
    let d = phase::DiscriminatorQ15::new();
    let mut st = phase::DiscriminatorState::<Ci16>::default();
    d.block(&mut st, &ci, &mut yi);

    let bytes = bb([100u8; 64]);
    let mut m16 = [0u16; 32];
    let mut m32 = [0u32; 32];
    mag::mag_cu8_block(&bytes, &mut m16);
    mag::mag_cu8_exact_block(&bytes, &mut m16);
    mag::mag_sq_cu8_block(&bytes, &mut m32);
    mag::mag_ci16_block(&ci, &mut m16);
    mag::mag_sq_ci16_block(&ci, &mut m32);
    mag::mag_f32_block(&c, &mut y);
    mag::mag_sq_f32_block(&c, &mut y);
    keep((
        mag::mag_cu8(bb(1), bb(2)),
        mag::mag_cu8_exact(bb(1), bb(2)),
        mag::mag_sq_cu8(1, 2),
    ));
    keep((
        mag::mag_ci16(ci[0]),
        mag::mag_sq_ci16(ci[0]),
        mag::sqrt_round(bb(99)),
    ));
    keep((mag::mag_f32(c[0]), mag::mag_sq_f32(c[0])));

    keep((
        resample::required_taps(bb(3), 20),
        resample::taps_per_phase(bb(1), 5, 80.0, 0.3),
    ));
    let mut taps = [0.0f32; 68];
    resample::design_f32(1, 5, bb(80.0), &mut taps);
    let r = resample::Resampler::new(1, 5, &taps);
    let mut st = resample::ResamplerState::<f32, 128>::new();
    let x = bb([0.25f32; 64]);
    let mut out = [0.0f32; 16];
    keep((
        r.process(&mut st, &x, &mut out),
        r.l(),
        r.m(),
        r.taps_per_phase(),
        st.phase(),
    ));
    st.reset();
    let mut taps = [0i16; 68];
    resample::design_q15(1, 5, bb(80.0), &mut taps);
    let r = resample::Resampler::new(1, 5, &taps);
    let mut st = resample::ResamplerState::<Ci16, 128>::new();
    let mut out = [Ci16::default(); 16];
    keep(r.process(&mut st, &ci, &mut out));
    keep((y, yi, m16, m32, out));
}

fn mode_s() {
    use modes::{adsb, altitude, commb, cpr, crc, encode, frame};
    let mut msg = bb([
        0x8Du8, 0x40, 0x6B, 0x90, 0x20, 0x15, 0xA6, 0x78, 0xD4, 0xD2, 0x20, 0xAA, 0x4B, 0xDA,
    ]);
    keep((
        crc::crc24(&msg),
        crc::remainder(&msg),
        crc::syndrome_of_bit(112, bb(40)),
    ));
    keep(crc::locate(112, bb(5), 2));
    keep(crc::repair(&mut msg, bb(0), 2));
    keep(crc::repair_single(&mut msg, bb(0)));
    keep(crc::repair_within(&mut msg, bb(0), &[40, 41, 50], 2));
    keep(crc::repair_likeliest(
        &mut msg,
        bb(0),
        &[40, 41, 50],
        &[1, 2, 3],
        4,
        bb(64),
        |r, _| r == 0,
    ));
    keep((
        altitude::decode_ac13(bb(0x1030)),
        altitude::decode_ac12(bb(0x3B)),
        altitude::decode_id13(bb(8)),
    ));

    if let Ok(f) = frame::Frame::new_checked(&msg[..]) {
        keep((f.df(), f.address(), f.altitude_ft(), f.squawk(), f.me()));
        if let Ok(r) = frame::Repr::parse(&f) {
            let mut out = [0u8; 14];
            keep(r.emit(&mut frame::Frame::new_unchecked(&mut out[..r.buffer_len()])));
        }
    }
    if let Ok(me) = adsb::AdsbRepr::parse(&msg[4..11]) {
        let mut out = [0u8; 7];
        me.emit(&mut out);
        keep((out, me.to_bytes()));
    }
    if let Ok(mb) = commb::Mb::new_checked(&msg[4..11]) {
        keep(commb::infer(&mb, &commb::Context::default()).map(|i| i.best()));
    }

    let a = cpr::CprFrame::airborne(false, bb(93_000), bb(51_372));
    let b = cpr::CprFrame::airborne(true, bb(74_158), bb(50_194));
    let p = cpr::decode_global_airborne(cpr::TimedFrame::new(a, 0), cpr::TimedFrame::new(b, 1000));
    let here = cpr::Position::new(bb(52.0), bb(4.0));
    keep((
        p,
        cpr::nl(bb(52.0)),
        cpr::decode_local(a, cpr::Reference::receiver(here, 200.0)),
    ));
    keep(cpr::decode_global_surface(
        cpr::TimedFrame::new(cpr::CprFrame::surface(false, 1, 2), 0),
        cpr::TimedFrame::new(cpr::CprFrame::surface(true, 3, 4), 5),
        cpr::Reference::aircraft(here),
        false,
    ));
    keep((
        cpr::distance_nm(here, here),
        cpr::implied_speed_kt(here, 0, here, 1),
    ));
    keep(cpr::CprFrame::encode(cpr::CprKind::Airborne, true, here));
    keep(
        cpr::SpeedCheck::for_kind(cpr::CprKind::Airborne)
            .max_reference_age_ms(cpr::CprKind::Surface),
    );

    let mut buf = [0u8; encode::BEAST_MAX_LEN];
    let ts = encode::Timestamp::from_ticks(bb(123_456));
    keep(encode::encode_beast(
        &mut buf,
        &msg,
        ts,
        encode::signal_byte(bb(0.5)),
    ));
    let mut avr = [0u8; encode::AVR_MAX_LEN];
    keep(encode::encode_avr(&mut avr, &msg, Some(ts)));
    let mut sink = Sink;
    keep(encode::write_avr(&mut sink, &msg).is_ok());
    keep(encode::write_avr_timestamped(&mut sink, &msg, ts).is_ok());
    keep(encode::write_beast(&mut sink, &msg, ts, 7).is_ok());
    let mut dec = encode::BeastDecoder::default();
    use encode::StreamDecoder;
    for m in dec.feed(bb(&buf[..])) {
        keep(m.frame());
    }
    let mut dec = encode::AvrDecoder::default();
    for m in dec.feed(bb(&avr[..])) {
        keep(m.frame());
    }
}

fn tracker() {
    use modes::tracker::{ReceivedFrame, Tracker, TrackerConfig};
    let here = modes::cpr::Position::new(bb(52.0), bb(4.0));
    let mut t = Tracker::<64>::new(TrackerConfig::with_receiver(here));
    let msg = bb([
        0x8Du8, 0x40, 0x6B, 0x90, 0x20, 0x15, 0xA6, 0x78, 0xD4, 0xD2, 0x20, 0xAA, 0x4B, 0xDA,
    ]);
    let f = ReceivedFrame::new(&msg, bb(1000))
        .with_signal(-10.0)
        .with_repaired_bits(0);
    keep(t.update(&f));
    keep((
        t.is_known(0x406B90, 1000),
        t.expire(bb(90_000)),
        t.len(),
        t.stats().positions(),
    ));
    for a in t.iter() {
        keep((
            a.address(),
            a.callsign(),
            a.altitude_baro_ft(),
            a.signal_dbfs(),
        ));
    }
    keep(t.get(0x406B90).map(|a| a.messages()));
}

fn modulate() {
    use modes::modulate::{Burst, Modulator, Quantiser};
    let Some(m) = Modulator::new(bb(2.4e6)) else {
        return;
    };
    let msg = bb([0x5Du8, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5]);
    let mut out = [C32::default(); 320];
    let burst = Burst::new(bb(3.3), 0.5).with_carrier(bb(1e5), 0.0);
    keep(m.add_mode_s(&msg, &burst, &mut out));
    m.add_mode_ac(bb(0x0808), false, &burst, &mut out);
    m.add_pulse(bb(1.0), 0.5, &burst, &mut out);
    keep((
        m.sample_rate_hz(),
        m.samples_per_us(),
        m.mode_s_len(7),
        m.mode_ac_len(),
    ));
    let q = Quantiser::new(bb(127.4), C32::new(0.01, 0.0));
    let mut bytes = [0u8; 640];
    keep((
        q.block(&out, &mut bytes).clipped,
        q.sample(out[0]),
        Quantiser::RTL_SDR.sample(out[1]),
    ));
}

fn fm() {
    use airwaves_core::fm::{generator, stereo, wbfm};
    let mut cfg = generator::GeneratorConfig::new(bb(-250e3));
    cfg.cnr_db = Some(bb(30.0));
    let Ok(g) = generator::Generator::new(cfg) else {
        return;
    };
    let mut gs = g.state();
    let tone = generator::Tone::new(bb(1000.0), 0.9);
    let mut iq = [[0u8; 2]; 480];
    g.fill(&mut gs, |t| tone.at(t), |_| 0.0, |_| 0.0, &mut iq);
    keep((gs.samples(), g.mpx(bb(0.1), 0.2, 0.0)));
    let fe = wbfm::FrontEnd::new(bb(-250e3));
    let mut fs = wbfm::FrontEndState::default();
    let mut mpx = [0f32; 64];
    let n = fe.process(&mut fs, &iq, &mut mpx).unwrap_or(0);
    let mono = wbfm::MonoDecoder::new(bb(75e-6));
    let mut ms = wbfm::MonoDecoderState::default();
    let mut audio = [0f32; 16];
    keep(mono.process(&mut ms, &mpx[..n], &mut audio).is_ok());
    let st = stereo::StereoDecoder::new(bb(50e-6));
    let mut ss = stereo::StereoDecoderState::default();
    let (mut l, mut r) = ([0f32; 16], [0f32; 16]);
    keep((
        st.process(&mut ss, &mpx[..n], &mut l, &mut r).is_ok(),
        ss.blend(),
        ss.pilot_level(),
        ss.pilot_snr_db(),
        fe.max_output(bb(480)),
    ));
    let cf = airwaves_core::fm::channel::ChannelFilter::with_atten(bb(0.1), bb(0.07), bb(60.0));
    let mut cs = airwaves_core::fm::channel::ChannelFilterState::default();
    let mut acc = 0i32;
    cf.process(&mut cs, &iq, |z| acc ^= z[0] ^ z[1]);
    keep((
        acc,
        cf.phase_step(),
        cf.gain(),
        cf.max_output(bb(48)),
        airwaves_core::fm::channel::ChannelFilter::new(bb(0.1), bb(0.07)).gain(),
        wbfm::FrontEnd::with_cutoff(bb(0.0), bb(120e3)).is_some(),
        fe.clone()
            .with_click_suppression(bb(false))
            .click_suppression(),
        fs.clicks(),
    ));
    if let Some(rx) = airwaves_core::fm::mono_q15::MonoReceiverQ15::new(bb(-250e3), bb(50e-6)) {
        let mut rs = airwaves_core::fm::mono_q15::MonoReceiverQ15State::default();
        let mut out = [0i16; 16];
        keep((
            rx.process(&mut rs, &iq, &mut out).is_ok(),
            rx.max_output(bb(480)),
            rs.clicks(),
        ));
    }
}

fn am() {
    use airwaves_core::am::{audio, envelope, front, generator, nbfm, receiver, squelch, sync};
    let mut cfg = generator::GeneratorConfig::am(bb(50e3));
    cfg.sample_rate = bb(300e3);
    cfg.cnr_db = Some(bb(20.0));
    cfg.fading = Some(generator::Fading {
        rate_hz: bb(2.0),
        depth_db: bb(10.0),
    });
    let Ok(g) = generator::Generator::new(cfg) else {
        return;
    };
    let mut gs = g.state();
    let voice = generator::VoiceLike {
        talk: bb(1.0),
        pause: bb(0.5),
    };
    let mut iq = [[0u8; 2]; 320];
    g.fill(&mut gs, |t| voice.at(t), &mut iq);
    keep((gs.samples(), g.config().amplitude));
    let nb = generator::Generator::new(generator::GeneratorConfig::nbfm(bb(1e3)));
    keep(nb.is_ok());

    let Ok(fe) = front::ChannelFrontEnd::new(bb(300_000), bb(50e3), front::ChannelFilter::Am8k33)
    else {
        return;
    };
    let mut fst = front::ChannelFrontEndState::default();
    let mut ch = [C32::default(); 32];
    let n = fe.process(&mut fst, &iq, &mut ch).unwrap_or(0);
    keep((
        fe.channel_rate(),
        fe.noise_bandwidth_hz(),
        fe.response(bb(1e3)),
        fe.taps().len(),
        fe.half_bands(),
        fe.decimation(),
        fe.input_rate(),
        fe.max_output(bb(320)),
        front::ChannelFilter::Nbfm12k5.cutoff_hz(),
        front::ChannelFilter::Am25k.transition_hz(),
    ));
    let fs = fe.channel_rate();
    let mut y = [0f32; 32];
    envelope::EnvelopeDetector.block(&mut (), &ch[..n], &mut y[..n]);
    let sd = sync::SyncDetector::new(&sync::SyncParams::default(), fs);
    let mut ss = sync::SyncDetectorState::default();
    sd.block(&mut ss, &ch[..n], &mut y[..n]);
    keep((ss.locked(), ss.frequency(), ss.carrier()));
    let nd = nbfm::NbfmDetector::new(fs, bb(5000.0), Some(nbfm::TAU_NBFM));
    let mut ns = nbfm::NbfmDetectorState::default();
    keep((nd.detect(&mut ns, ch[0]), nd.cycles_per_unit()));
    nd.block(&mut ns, &ch[..n], &mut y[..n]);
    let va = audio::VoiceAudio::new(fs, true, true, Some(&audio::voice_agc(bb(1000.0))));
    let mut vs = va.state();
    let x = y;
    va.block(&mut vs, &x[..n], &mut y[..n]);
    keep((va.gain(&vs), audio::AudioBand::new(fs).magnitude(bb(1e3))));
    let ab = audio::AudioBand::new(fs);
    let mut abs = audio::AudioBandState::default();
    keep(ab.process(&mut abs, bb(0.1)));
    let sp = squelch::SquelchParams::default();
    let ls = squelch::LevelSquelch::new(&sp, fs);
    let mut lss = squelch::LevelSquelchState::default();
    let mut open = [false; 32];
    ls.block(&mut lss, &ch[..n], &mut open[..n]);
    keep((lss.is_open(), lss.power(), lss.floor()));
    let qs = squelch::NoiseSquelch::new(&sp, fs);
    let mut qss = squelch::NoiseSquelchState::default();
    let x = y;
    qs.block(&mut qss, &x[..n], &mut open[..n]);
    keep((qss.is_open(), qss.noise_db()));
    squelch::mute(&open[..n], &mut y[..n]);
    keep(y);
    if let Ok(rs) = audio::AudioResampler::new(bb(300_000), 16, bb(48_000)) {
        let mut rss = audio::AudioResamplerState::default();
        let mut a = [0f32; 64];
        keep((
            rs.process(&mut rss, &y[..n], &mut a),
            rs.ratio(),
            rs.max_output(bb(8)),
        ));
    }

    let mut rc = receiver::ReceiverConfig::am(bb(300_000), bb(50e3));
    rc.mode = receiver::Mode::Synchronous(sync::SyncParams::default());
    rc.squelch = Some((receiver::SquelchKind::Level, sp));
    if let Ok(rx) = receiver::Receiver::new(&rc) {
        let mut rst = rx.state();
        let mut a = [0f32; 64];
        keep(rx.process(&mut rst, &iq, &mut a).is_ok());
        keep((
            rst.squelch_open(),
            rst.locked(),
            rst.level(),
            rx.channel_rate(),
        ));
        keep((
            rx.max_output(bb(320)),
            rx.front_end().decimation(),
            rx.resampler().ratio(),
        ));
    }
    let nc = receiver::ReceiverConfig::nbfm(bb(2_400_000), bb(0.0));
    keep(receiver::Receiver::new(&nc).is_ok());
}

fn rds() {
    use airwaves_core::rds::{block, decoder, encoder, group};
    let word = block::encode(bb(0x1234), block::Offset::A);
    keep((
        block::decode(word ^ bb(3), block::Offset::A).is_ok(),
        block::syndrome(word),
        block::checkword(bb(7)),
        block::Offset::CPrime.word(),
        block::Offset::D.position(),
    ));
    let program = group::Program::new(bb(0xC201))
        .with_ps(b"AIRWAVES")
        .with_rt(b"no alloc")
        .with_pty(bb(10), true, false)
        .with_clock(group::ClockTime {
            mjd: bb(60000),
            hour: 12,
            minute: 34,
            offset_half_hours: 2,
        });
    keep((
        program.group_0a(bb(1)),
        program.group_2a(bb(0)),
        program.rt_segments(),
    ));
    let Ok(enc) = encoder::Encoder::new(program, bb(240_000.0), 0.05) else {
        return;
    };
    let mut es = enc.start();
    let mut mpx = [0f32; 256];
    enc.fill(&mut es, &mut mpx);
    enc.add_to(&mut es, &mut mpx);
    keep((
        enc.next_sample(&mut es),
        enc.next_sample_locked(&mut es, bb(5)),
        es.groups(),
    ));
    let Ok(dec) = decoder::Decoder::new(bb(240_000.0)) else {
        return;
    };
    let mut ds = decoder::DecoderState::new();
    dec.process_block(&mut ds, &mpx, |g| keep((g.group_type(), g.version_b())));
    let mut station = group::Station::new();
    if let Some(g) = dec.process(&mut ds, bb(0.1)) {
        station.update(&g);
    }
    keep((
        ds.station().ps,
        ds.stats().block_error_rate(),
        ds.synced(),
        station.radiotext().map(|t| t.len()),
    ));
}

fn modeac() {
    use modes::modeac::{ModeAcDetector, ModeAcState};
    let Ok(d) = ModeAcDetector::new(bb(2_400_000)) else {
        return;
    };
    let d = d.with_min_snr_db(bb(13.0));
    let mut st = ModeAcState::new();
    let bytes = bb([127u8; 512]);
    let mut emit = |r: &modes::modeac::ModeAcReply| {
        keep((
            r.code,
            r.spi,
            r.timestamp,
            r.signal_dbfs,
            r.garbled,
            r.squawk(),
            r.altitude_ft(),
            r.to_bytes(),
        ))
    };
    d.process(&mut st, &bytes, &mut emit);
    d.finish(&mut st, &mut emit);
    keep((st.samples(), st.noise_dbfs(), d.ticks_per_sample()));
}

fn level() {
    use modes::level::{LevelMeter, LevelState, LevelStats};
    let meter = LevelMeter {
        decimation: bb(8),
        ..LevelMeter::RTL_SDR
    };
    let mut st = LevelState::new();
    meter.block(&mut st, &bb([127u8; 512]));
    let s = st.stats();
    let mut sum = LevelStats::default();
    sum.add(&s);
    keep((
        sum.noise_floor(bb(40)),
        sum.above(bb(200)),
        sum.samples(),
        LevelMeter::magnitude(bb(0), bb(255)),
    ));
    st.clear();
}

fn demod() {
    use modes::demod::{AddressFilter, DemodState, Demodulator};
    let Ok(d) = Demodulator::new(bb(2_400_000)) else {
        return;
    };
    let d = d
        .with_two_bit_repair(bb(false))
        .with_soft_repair(bb(8), 2)
        .with_ap_repair(bb(4))
        .with_ap_search(bb(64), 4)
        .with_known_es_repair(bb(0), 6)
        .with_mlse(bb(true))
        .with_trigger(bb(48));
    let mut st = DemodState::new();
    let mut filter = AddressFilter::<256>::new(AddressFilter::<256>::DEFAULT_TTL);
    filter.insert(bb(0x4840D6), 0);
    keep((
        filter.contains(0x4840D6, 1),
        filter.is_empty(),
        d.ticks_per_sample(),
    ));
    let bytes = bb([127u8; 512]);
    d.process(&mut st, &mut filter, &bytes, |f| {
        keep((
            f.bytes(),
            f.df(),
            f.timestamp,
            f.signal_dbfs,
            f.repaired_bits,
            f.address,
            f.phase,
        ))
    });
    d.finish(&mut st, &mut filter, |f| keep(f.bytes()));
    keep((st.stats(), st.noise_dbfs()));
    filter.clear();
}

/// A writer that discards everything (a stand-in for a UART).
struct Sink;

impl embedded_io::ErrorType for Sink {
    type Error = core::convert::Infallible;
}

impl embedded_io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        Ok(buf.len())
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

fn uat() {
    use airwaves_core::uat::{adsb, demod, modulate, rs, uplink};
    let code = rs::ReedSolomon::new(bb(12));
    let mut block = bb([0u8; 30]);
    keep((
        code.encode(&mut block),
        code.is_codeword(&block),
        code.roots(),
    ));
    keep(code.decode(&mut block, &bb([1u8, 2])));
    let d = demod::Demodulator::new()
        .with_erasures(bb(true))
        .with_coherent(bb(true))
        .with_uplink(bb(false))
        .with_max_sync_errors(bb(6));
    let mut st = demod::DownlinkState::new();
    let bytes = bb([127u8; 512]);
    let mut sink = |m: &demod::Message| {
        let view = adsb::Downlink::new_unchecked(m.bytes());
        keep((m.link, m.sample, m.errors, m.rssi_dbfs, view.check_len()));
        if let Ok(r) = adsb::DownlinkRepr::parse(&view) {
            let mut out = [0u8; 34];
            r.emit(&mut adsb::Downlink::new_unchecked(&mut out[..]));
            keep((
                out,
                r.buffer_len(),
                r.state.and_then(|s| s.speed_and_track()),
            ));
            if let Some(ms) = r.status {
                let mut text = [0u8; 8];
                keep((
                    ms.text(&mut text).len(),
                    ms.squawk(),
                    ms.category_code(),
                    ms.ident(),
                ));
            }
        }
    };
    d.process(&mut st, &bytes, &mut sink);
    d.finish(&mut st, &mut sink);
    keep(st.stats);
    let mut sent = [0u8; airwaves_core::uat::UPLINK_BYTES];
    keep(modulate::transmission(&bb([0u8; 18]), &mut sent));
    let m = modulate::Modulator::new(bb(airwaves_core::uat::SAMPLE_RATE));
    let mut iq = [C32::new(0.0, 0.0); 64];
    keep(m.add_message(&modulate::Burst::new(bb(0.0), 0.5), &bb([0u8; 18]), &mut iq));
    keep((iq, m.samples_for(bb(10))));
    let up = bb([0u8; 432]);
    let u = uplink::Uplink::new(&up[..]);
    keep((
        u.position(),
        u.position_valid(),
        u.utc_coupled(),
        u.slot_id(),
        u.tisb_site_id(),
    ));
    for f in u.info_frames() {
        if let Ok(a) = uplink::Apdu::parse(f.data) {
            let mut text = [0u8; 64];
            keep((
                a.product_id,
                a.time,
                a.flags,
                uplink::dlac::decode(a.payload, &mut text),
            ));
        }
    }
}

fn rng() {
    let mut r = airwaves_core::rng::Rng::new(bb(1));
    keep((r.next_u64(), r.uniform(), r.range(bb(-1.0), bb(1.0))));
    keep((r.below(bb(10)), r.normal(), r.clone()));
}
