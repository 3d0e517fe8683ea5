//! Criterion benches for the input primitives: conversion, DC blocking,
//! NCO mixing and the `fs/4` shift. Each times one block call of
//! [`BLOCK`] samples; buffers and state are prepared outside `b.iter`.

use std::hint::black_box;

use airwaves_benches::input::{BLOCK, c32_block, ci16_block, cs16_block, cs16le_block, cu8_block};
use airwaves_core::dsp::SplitProcess;
use airwaves_core::dsp::convert::{Cu8, cs16_to_c32, cs16_to_ci16, cs16le_to_c32, cs16le_to_ci16};
use airwaves_core::dsp::dc::{DcBlocker, DcBlockerQ15, DcBlockerQ15State, DcBlockerState};
use airwaves_core::dsp::nco::{Fs4Shift, Fs4State, Nco, NcoState};
use airwaves_core::{C32, Ci16, Complex};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn convert(c: &mut Criterion) {
    let mut g = c.benchmark_group("input/convert");
    g.throughput(Throughput::Elements(BLOCK as u64));
    let cu8 = cu8_block();
    let cs16 = cs16_block();
    let cs16le = cs16le_block();
    let mut y = vec![C32::default(); BLOCK];
    let mut q = vec![Ci16::default(); BLOCK];
    let conv = Cu8::RTL_SDR;
    g.bench_function("cu8/f32", |b| {
        b.iter(|| conv.to_c32(black_box(&cu8), &mut y))
    });
    g.bench_function("cu8/q15", |b| {
        b.iter(|| conv.to_ci16(black_box(&cu8), &mut q))
    });
    g.bench_function("cs16/f32", |b| {
        b.iter(|| cs16_to_c32(black_box(&cs16), &mut y))
    });
    g.bench_function("cs16/q15", |b| {
        b.iter(|| cs16_to_ci16(black_box(&cs16), &mut q))
    });
    g.bench_function("cs16le/f32", |b| {
        b.iter(|| cs16le_to_c32(black_box(&cs16le), &mut y))
    });
    g.bench_function("cs16le/q15", |b| {
        b.iter(|| cs16le_to_ci16(black_box(&cs16le), &mut q))
    });
    g.finish();
}

fn dc(c: &mut Criterion) {
    let mut g = c.benchmark_group("input/dc");
    g.throughput(Throughput::Elements(BLOCK as u64));
    let xc = c32_block();
    let xr: Vec<f32> = xc.iter().map(|v| v.re).collect();
    let xq = ci16_block();
    let xqr: Vec<i16> = xq.iter().map(|v| v.re).collect();
    let float = DcBlocker::new(1e-3);
    let fixed = DcBlockerQ15::new(1e-3);

    let mut y = vec![0f32; BLOCK];
    let mut s = DcBlockerState::<f32>::new();
    g.bench_function("f32/real", |b| {
        b.iter(|| float.block(&mut s, black_box(&xr), &mut y))
    });
    let mut y = vec![C32::default(); BLOCK];
    let mut s = DcBlockerState::<C32>::new();
    g.bench_function("f32/complex", |b| {
        b.iter(|| float.block(&mut s, black_box(&xc), &mut y))
    });
    let mut y = vec![0i16; BLOCK];
    let mut s = DcBlockerQ15State::<i64>::new();
    g.bench_function("q15/real", |b| {
        b.iter(|| fixed.block(&mut s, black_box(&xqr), &mut y))
    });
    let mut y = vec![Ci16::default(); BLOCK];
    let mut s = DcBlockerQ15State::<Complex<i64>>::new();
    g.bench_function("q15/complex", |b| {
        b.iter(|| fixed.block(&mut s, black_box(&xq), &mut y))
    });
    g.finish();
}

fn nco(c: &mut Criterion) {
    let mut g = c.benchmark_group("input/nco");
    g.throughput(Throughput::Elements(BLOCK as u64));
    let xc = c32_block();
    let xq = ci16_block();
    let nco = Nco::new(0.123_456);
    let mut y = vec![C32::default(); BLOCK];
    let mut q = vec![Ci16::default(); BLOCK];
    let mut s = NcoState::default();
    g.bench_function("f32/mix", |b| {
        b.iter(|| nco.block(&mut s, black_box(&xc), &mut y))
    });
    g.bench_function("q15/mix", |b| {
        b.iter(|| nco.block(&mut s, black_box(&xq), &mut q))
    });
    g.bench_function("f32/osc", |b| b.iter(|| nco.fill_f32(&mut s, &mut y)));
    g.bench_function("q15/osc", |b| b.iter(|| nco.fill_q15(&mut s, &mut q)));
    // Baseline for the mixers: the multiply-free fs/4 shift.
    let mut s = Fs4State::default();
    g.bench_function("fs4/f32/up", |b| {
        b.iter(|| Fs4Shift::UP.block(&mut s, black_box(&xc), &mut y))
    });
    g.bench_function("fs4/q15/up", |b| {
        b.iter(|| Fs4Shift::UP.block(&mut s, black_box(&xq), &mut q))
    });
    g.finish();
}

criterion_group!(benches, convert, dc, nco);
criterion_main!(benches);
