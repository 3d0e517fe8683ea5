//! Criterion benches for the fir primitives: one block of
//! [`BLOCK`](airwaves_benches::fir::BLOCK) input samples per iteration, with
//! input, output and state prepared outside the timed call. Throughput is
//! in input samples (decimators included).

use std::hint::black_box;

use airwaves_benches::fir::{BLOCK, Cascade3State, FromNoise, HB_ATTEN, cascade3, lp32, lp63};
use airwaves_core::dsp::SplitProcess;
use airwaves_core::dsp::fir::{Decimator, DecimatorState, Fir, FirState, SplitDecimate, SymFir};
use airwaves_core::dsp::halfband::{HalfBand, HalfBandState};
use airwaves_core::{C32, Ci16};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};

/// Time `f.block` over one block of a 1:1 filter.
fn one<X: FromNoise, F: SplitProcess<X, X, S>, S>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    f: F,
    mut s: S,
) {
    let x = X::noise(BLOCK);
    let mut y = vec![X::default(); BLOCK];
    g.bench_function(name, |b| {
        b.iter(|| f.block(&mut s, black_box(&x), black_box(&mut y)))
    });
}

/// Time `d.block` over one block of a decimator.
fn dec<X: FromNoise, D: SplitDecimate<X, S>, S>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    d: D,
    mut s: S,
) {
    let x = X::noise(BLOCK);
    let mut y = vec![X::default(); d.max_output(BLOCK)];
    g.bench_function(name, |b| {
        b.iter(|| black_box(d.block(&mut s, black_box(&x), black_box(&mut y))))
    });
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("fir");
    g.throughput(Throughput::Elements(BLOCK as u64));

    // 1:1 filters; `direct` is the baseline for `sym` in each type.
    one::<f32, _, _>(
        &mut g,
        "f32/direct63",
        Fir::<f32, 63>::design(&lp63()),
        FirState::new(),
    );
    one::<f32, _, _>(
        &mut g,
        "f32/sym63",
        SymFir::<f32, 63>::design(&lp63()),
        FirState::new(),
    );
    one::<f32, _, _>(
        &mut g,
        "f32/sym32",
        SymFir::<f32, 32>::design(&lp32()),
        FirState::new(),
    );
    one::<C32, _, _>(
        &mut g,
        "c32/direct63",
        Fir::<f32, 63>::design(&lp63()),
        FirState::new(),
    );
    one::<C32, _, _>(
        &mut g,
        "c32/sym63",
        SymFir::<f32, 63>::design(&lp63()),
        FirState::new(),
    );
    one::<i16, _, _>(
        &mut g,
        "q15/direct63",
        Fir::<i16, 63>::design(&lp63()),
        FirState::new(),
    );
    one::<i16, _, _>(
        &mut g,
        "q15/sym63",
        SymFir::<i16, 63>::design(&lp63()),
        FirState::new(),
    );
    one::<i16, _, _>(
        &mut g,
        "q15/sym32",
        SymFir::<i16, 32>::design(&lp32()),
        FirState::new(),
    );
    one::<Ci16, _, _>(
        &mut g,
        "ci16/direct63",
        Fir::<i16, 63>::design(&lp63()),
        FirState::new(),
    );
    one::<Ci16, _, _>(
        &mut g,
        "ci16/sym63",
        SymFir::<i16, 63>::design(&lp63()),
        FirState::new(),
    );

    // Decimators by 4.
    let f = || Decimator::<_, 4>::new(SymFir::<f32, 63>::design(&lp63()));
    let q = || Decimator::<_, 4>::new(SymFir::<i16, 63>::design(&lp63()));
    dec::<f32, _, _>(&mut g, "f32/sym63-dec4", f(), DecimatorState::new());
    dec::<C32, _, _>(&mut g, "c32/sym63-dec4", f(), DecimatorState::new());
    dec::<i16, _, _>(&mut g, "q15/sym63-dec4", q(), DecimatorState::new());
    dec::<Ci16, _, _>(&mut g, "ci16/sym63-dec4", q(), DecimatorState::new());
    let qd = Decimator::<_, 4>::new(Fir::<i16, 63>::design(&lp63()));
    dec::<i16, _, _>(&mut g, "q15/direct63-dec4", qd, DecimatorState::new());

    // Half-band ×2 and the three-stage ×8 cascade.
    let hf = HalfBand::<f32, 8>::design(HB_ATTEN);
    let hq = HalfBand::<i16, 8>::design(HB_ATTEN);
    dec::<f32, _, _>(&mut g, "f32/hb31", hf, HalfBandState::new());
    dec::<C32, _, _>(&mut g, "c32/hb31", hf, HalfBandState::new());
    dec::<i16, _, _>(&mut g, "q15/hb31", hq, HalfBandState::new());
    dec::<Ci16, _, _>(&mut g, "ci16/hb31", hq, HalfBandState::new());
    dec::<C32, _, Cascade3State<C32>>(
        &mut g,
        "c32/hb-cascade3",
        cascade3::<f32>(),
        Default::default(),
    );
    dec::<Ci16, _, Cascade3State<Ci16>>(
        &mut g,
        "ci16/hb-cascade3",
        cascade3::<i16>(),
        Default::default(),
    );

    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
