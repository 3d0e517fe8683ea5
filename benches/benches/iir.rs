//! Criterion benches for the iir group: biquads, one-pole, de-emphasis and
//! AGC. Each times one `block` call over 4096 samples; input, output and
//! state are prepared outside `b.iter`.

use std::hint::black_box;

use airwaves_benches::iir::{
    BLOCK, FS, agc_params, lowpass, noise_c32, noise_ci16, noise_f32, noise_q15,
};
use airwaves_core::dsp::SplitProcess;
use airwaves_core::dsp::agc::{Agc, AgcQ15};
use airwaves_core::dsp::deemph::{
    Deemphasis, DeemphasisQ15, DeemphasisQ15State, DeemphasisState, TAU_50US,
};
use airwaves_core::dsp::iir::{
    BiquadQ15State, Df1State, Df2tState, OnePole, OnePoleQ15, OnePoleQ15State, OnePoleState,
};
use airwaves_core::{C32, Ci16};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};

/// Time `p.block` over `x` with state `s`.
fn case<X: Copy, Y: Copy + Default, S, P: SplitProcess<X, Y, S>>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    p: &P,
    mut s: S,
    x: &[X],
) {
    let mut y = vec![Y::default(); x.len()];
    g.bench_function(name, |b| {
        b.iter(|| {
            p.block(&mut s, black_box(x), &mut y);
            black_box(&mut y);
        })
    });
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("iir");
    g.throughput(Throughput::Elements(BLOCK as u64));

    let (xf, xc, xq, xcq) = (noise_f32(1), noise_c32(1), noise_q15(1), noise_ci16(1));
    let bf = lowpass().to_f32();
    let bq = lowpass().to_q15().expect("in range");
    case(&mut g, "iir/f32/df1", &bf, Df1State::<f32>::default(), &xf);
    case(
        &mut g,
        "iir/f32/df2t",
        &bf,
        Df2tState::<f32>::default(),
        &xf,
    );
    case(
        &mut g,
        "iir/c32/df2t",
        &bf,
        Df2tState::<C32>::default(),
        &xc,
    );
    case(
        &mut g,
        "iir/q15/df1-ef",
        &bq,
        BiquadQ15State::default(),
        &xq,
    );
    case::<Ci16, Ci16, _, _>(
        &mut g,
        "iir/ci16/df1-ef",
        &bq,
        [BiquadQ15State::default(); 2],
        &xcq,
    );

    let of = OnePole::from_corner(100.0, FS);
    let oq = OnePoleQ15::from_corner(100.0, FS);
    case(
        &mut g,
        "onepole/f32",
        &of,
        OnePoleState::<f32>::default(),
        &xf,
    );
    case(&mut g, "onepole/q15", &oq, OnePoleQ15State::default(), &xq);

    let df = Deemphasis::new(TAU_50US, FS);
    let dq = DeemphasisQ15::new(TAU_50US, FS);
    case(&mut g, "deemph/f32", &df, DeemphasisState::default(), &xf);
    case(
        &mut g,
        "deemph/q15",
        &dq,
        DeemphasisQ15State::default(),
        &xq,
    );

    let af = Agc::new(&agc_params(), FS);
    let aq = AgcQ15::new(&agc_params(), FS);
    case::<f32, f32, _, _>(&mut g, "agc/f32", &af, af.state(), &xf);
    case::<C32, C32, _, _>(&mut g, "agc/c32", &af, af.state(), &xc);
    case::<i16, i16, _, _>(&mut g, "agc/q15", &aq, aq.state(), &xq);
    case::<Ci16, Ci16, _, _>(&mut g, "agc/ci16", &aq, aq.state(), &xcq);
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
