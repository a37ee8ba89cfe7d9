//! Elementwise operations of DESIGN §8's op set (f64 add, mul, div at 1Ki..4Mi in
//! the allocating and `_into` forms, f32 add at 4Mi, a row broadcast), each next
//! to its anchor: the same loop over plain slices. Compare with
//! `benches/bench_numpy.py` run right before or after, on the same machine.

// The tests' generator, so benches and tests draw data the same way.
#[path = "../tests/common/mod.rs"]
mod common;

use common::Rng;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndsimd::Array;

const SIZES: [usize; 4] = [1 << 10, 1 << 14, 1 << 18, 1 << 22];

fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng(seed | 1);
    (0..n)
        .map(|_| 1.0 + (rng.next() % 1000) as f64 / 64.0)
        .collect()
}

macro_rules! binary_group {
    ($c:expr, $name:literal, $method:ident, $into:ident, $op:tt) => {{
        let mut g = $c.benchmark_group($name);
        for &n in &SIZES {
            let a = Array::from_vec(data(n, 1));
            let b = Array::from_vec(data(n, 2));
            let mut out = Array::<f64>::zeros(&[n]);
            // Verify the answer before the clock.
            a.$into(&b, &mut out).unwrap();
            let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
            assert!(out.iter().zip(sa.iter().zip(sb)).all(|(o, (x, y))| *o == *x $op *y));
            g.throughput(Throughput::Bytes(24 * n as u64));
            g.bench_with_input(BenchmarkId::new("into", n), &n, |bch, _| {
                bch.iter(|| a.$into(&b, black_box(&mut out)).unwrap())
            });
            g.bench_with_input(BenchmarkId::new("alloc", n), &n, |bch, _| {
                bch.iter(|| black_box(a.$method(&b).unwrap()))
            });
            let mut plain = vec![0.0; n];
            g.bench_with_input(BenchmarkId::new("anchor_slice_loop", n), &n, |bch, _| {
                bch.iter(|| {
                    for ((o, &x), &y) in plain.iter_mut().zip(sa).zip(sb) {
                        *o = x $op y;
                    }
                    black_box(&mut plain);
                })
            });
        }
        g.finish();
    }};
}

fn elementwise(c: &mut Criterion) {
    binary_group!(c, "add", add, add_into, +);
    binary_group!(c, "mul", mul, mul_into, *);
    binary_group!(c, "div", div, div_into, /);

    let n = 1 << 22;
    let mut g = c.benchmark_group("f32_add");
    let a: Array<f32> = Array::from_vec(data(n, 3).iter().map(|&x| x as f32).collect());
    let b: Array<f32> = Array::from_vec(data(n, 4).iter().map(|&x| x as f32).collect());
    let mut out = Array::<f32>::zeros(&[n]);
    a.add_into(&b, &mut out).unwrap();
    assert_eq!(
        out.get(&[7]),
        Some(&(a.get(&[7]).unwrap() + b.get(&[7]).unwrap()))
    );
    g.throughput(Throughput::Bytes(12 * n as u64));
    g.bench_function(BenchmarkId::new("into", n), |bch| {
        bch.iter(|| a.add_into(&b, black_box(&mut out)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("row_broadcast");
    let m = Array::from_vec(data(1 << 20, 5))
        .into_shape(&[1024, 1024])
        .unwrap();
    let row = Array::from_vec(data(1024, 6));
    let mut out = Array::<f64>::zeros(&[1024, 1024]);
    m.add_into(&row, &mut out).unwrap();
    assert_eq!(
        out.get(&[3, 5]),
        Some(&(m.get(&[3, 5]).unwrap() + row.get(&[5]).unwrap()))
    );
    g.throughput(Throughput::Bytes(16 << 20));
    g.bench_function("into_1024x1024", |bch| {
        bch.iter(|| m.add_into(&row, black_box(&mut out)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, elementwise);
criterion_main!(benches);
