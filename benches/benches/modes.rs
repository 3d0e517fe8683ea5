//! Criterion benches for the Mode S demodulator: throughput of
//! `Demodulator::process` on a recorded capture and on receiver noise.
//! Input, state and filter are prepared outside the timed closure.

use airwaves_benches::modes::{capture, gauss_u8};
use airwaves_core::modes::demod::{AddressFilter, DemodState, Demodulator};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("modes/demod");
    let mut noise = vec![0u8; 1 << 19];
    gauss_u8(5, &mut noise);
    let cases: Vec<(&str, u32, Vec<u8>)> = [
        (
            "2400k-capture",
            2_400_000,
            capture("capture_1641427457780_2400k.cu8"),
        ),
        ("2000k-capture", 2_000_000, capture("modes1_2000k.cu8")),
    ]
    .into_iter()
    .filter_map(|(n, r, v)| v.map(|v| (n, r, v)))
    .chain([
        ("2400k-noise", 2_400_000, noise.clone()),
        ("2000k-noise", 2_000_000, noise),
    ])
    .collect();
    for (name, rate, bytes) in &cases {
        let d = Demodulator::new(*rate).unwrap();
        let mut st = DemodState::new();
        let mut filter = AddressFilter::<512>::new(AddressFilter::<512>::DEFAULT_TTL);
        g.throughput(Throughput::Elements((bytes.len() / 2) as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), bytes, |b, bytes| {
            b.iter(|| {
                let mut n = 0u32;
                for blk in bytes.chunks(16384) {
                    d.process(&mut st, &mut filter, black_box(blk), |_| n += 1);
                }
                n
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
