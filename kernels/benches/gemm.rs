//! GEMM throughput: square row-major products `C = A B` (`beta = 0`) on the active
//! tier, f64 at n = 64 .. 1024 and f32 at n = 1024, on 1 and 2 threads, reported in
//! GFLOP/s (criterion's "elements" are flops: `2 n³` per product).
//!
//! Quick run: `cargo bench -p ndsimd-kernels --bench gemm -- --warm-up-time 1
//! --measurement-time 3`; one size: append a filter such as `f64/1thread/256`.
//! Register-only FMA peaks per machine: docs/perf.md#machines-and-versions.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndsimd_kernels::gemm::{gemm, GemmElement, MatMut, MatRef};

fn square<T: GemmElement + From<i8>>(c: &mut Criterion, name: &str, sizes: &[usize]) {
    for threads in [1, 2] {
        let mut g = c.benchmark_group(format!("{name}/{threads}thread"));
        for &n in sizes {
            let a: Vec<T> = (0..n * n).map(|i| T::from((i % 13) as i8 - 6)).collect();
            let b: Vec<T> = (0..n * n).map(|i| T::from((i % 11) as i8 - 5)).collect();
            let mut out = vec![T::ZERO; n * n];
            g.throughput(Throughput::Elements(2 * (n as u64).pow(3)));
            if n >= 512 {
                g.sample_size(10);
            }
            g.bench_with_input(BenchmarkId::from_parameter(n), &n, |bench, &n| {
                bench.iter(|| {
                    let s = n as isize;
                    let am = MatRef::new(&a, 0, n, n, s, 1).unwrap();
                    let bm = MatRef::new(&b, 0, n, n, s, 1).unwrap();
                    let cm = MatMut::new(&mut out, 0, n, n, s, 1).unwrap();
                    gemm(T::ONE, am, bm, T::ZERO, cm, black_box(threads));
                })
            });
        }
        g.finish();
    }
}

fn benches(c: &mut Criterion) {
    square::<f64>(c, "f64", &[64, 128, 256, 512, 1024]);
    square::<f32>(c, "f32", &[1024]);
}

criterion_group!(gemm_benches, benches);
criterion_main!(gemm_benches);
