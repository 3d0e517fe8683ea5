//! Criterion benches for the phase, magnitude and resampling primitives.
//! Each times one block call of [`BLOCK`] input samples; buffers, taps and
//! state are prepared outside `b.iter`.

use std::hint::black_box;

use airwaves_benches::phase::{BLOCK, HIST, RATIOS, c32_block, ci16_block, cu8_block};
use airwaves_core::dsp::SplitProcess;
use airwaves_core::dsp::magnitude::{
    mag_ci16_block, mag_cu8_block, mag_cu8_exact_block, mag_f32_block,
};
use airwaves_core::dsp::phase::{
    Discriminator, DiscriminatorQ15, DiscriminatorState, atan2, atan2_i16,
};
use airwaves_core::dsp::resample::{Resampler, ResamplerState};
use airwaves_core::{C32, Ci16};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn phase(c: &mut Criterion) {
    let mut g = c.benchmark_group("phase");
    g.throughput(Throughput::Elements(BLOCK as u64));
    let xc = c32_block();
    let xq = ci16_block();

    let mut y = vec![0f32; BLOCK];
    g.bench_function("atan2/f32", |b| {
        b.iter(|| {
            for (x, y) in black_box(&xc).iter().zip(y.iter_mut()) {
                *y = atan2(x.im, x.re);
            }
        })
    });
    let mut yq = vec![0i16; BLOCK];
    g.bench_function("atan2/i16", |b| {
        b.iter(|| {
            for (x, y) in black_box(&xq).iter().zip(yq.iter_mut()) {
                *y = atan2_i16(x.im, x.re);
            }
        })
    });

    let d = Discriminator::new(1.0);
    let mut s = DiscriminatorState::<C32>::default();
    g.bench_function("fm/f32", |b| {
        b.iter(|| d.block(&mut s, black_box(&xc), &mut y))
    });
    let dq = DiscriminatorQ15::new();
    let mut s = DiscriminatorState::<Ci16>::default();
    g.bench_function("fm/q15", |b| {
        b.iter(|| dq.block(&mut s, black_box(&xq), &mut yq))
    });
    g.finish();
}

fn magnitude(c: &mut Criterion) {
    let mut g = c.benchmark_group("mag");
    g.throughput(Throughput::Elements(BLOCK as u64));
    let xc = c32_block();
    let xq = ci16_block();
    let cu8 = cu8_block();
    let mut y = vec![0f32; BLOCK];
    g.bench_function("f32", |b| b.iter(|| mag_f32_block(black_box(&xc), &mut y)));
    let mut yq = vec![0u16; BLOCK];
    g.bench_function("q15", |b| {
        b.iter(|| mag_ci16_block(black_box(&xq), &mut yq))
    });
    g.bench_function("cu8", |b| {
        b.iter(|| mag_cu8_block(black_box(&cu8), &mut yq))
    });
    g.bench_function("cu8-exact", |b| {
        b.iter(|| mag_cu8_exact_block(black_box(&cu8), &mut yq))
    });
    g.finish();
}

fn resample(c: &mut Criterion) {
    let mut g = c.benchmark_group("resample");
    g.throughput(Throughput::Elements(BLOCK as u64));
    let xc = c32_block();
    let xr: Vec<f32> = xc.iter().map(|v| v.re).collect();
    let xq: Vec<i16> = ci16_block().iter().map(|v| v.re).collect();
    for r in &RATIOS {
        let tf = r.taps_f32();
        let tq = r.taps_q15();
        let rf = Resampler::new(r.l, r.m, &tf);
        let rq = Resampler::new(r.l, r.m, &tq);

        let mut s = ResamplerState::<f32, HIST>::new();
        let mut y = vec![0f32; rf.max_output(BLOCK)];
        g.bench_with_input(BenchmarkId::new("f32", r.name), &xr, |b, x| {
            b.iter(|| rf.process(&mut s, black_box(x), &mut y))
        });
        let mut s = ResamplerState::<i16, HIST>::new();
        let mut y = vec![0i16; rq.max_output(BLOCK)];
        g.bench_with_input(BenchmarkId::new("q15", r.name), &xq, |b, x| {
            b.iter(|| rq.process(&mut s, black_box(x), &mut y))
        });
        let mut s = ResamplerState::<C32, HIST>::new();
        let mut y = vec![C32::default(); rf.max_output(BLOCK)];
        g.bench_with_input(BenchmarkId::new("c32", r.name), &xc, |b, x| {
            b.iter(|| rf.process(&mut s, black_box(x), &mut y))
        });
    }
    g.finish();
}

criterion_group!(benches, phase, magnitude, resample);
criterion_main!(benches);
