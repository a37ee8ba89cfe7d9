//! Dispatch cost of the helper pool against `rayon::scope` with the same split, and
//! a chunked f64 sum at 16Ki and 256Ki elements (serial, pool, rayon).
//!
//! `dispatch/*`: an empty job of `num_threads()` chunks, called back to back (the
//! helpers stay in their spin window): `*_empty` lets the caller run every chunk when
//! it is faster than the helpers (with the pool it usually is, and cancels them);
//! `*_rendezvous` makes each chunk wait until all have started, so every participant
//! must take part (the full post, wake, finish, retire round trip);
//! `cache_line_round_trip` is one cache line bounced to another spinning thread and
//! back, the floor under any job a helper takes part in. All need
//! `num_threads()` free cores, or a rendezvous waits on the scheduler. `sum/*`: `num_threads()` chunks, each summing
//! its part with the active tier's kernel, partials added on the caller. Quick run:
//! `cargo bench -p ndsimd-kernels --bench pool -- --warm-up-time 0.5 --measurement-time 2`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use crossbeam_utils::CachePadded;
use ndsimd_kernels::pool;
use ndsimd_kernels::KernelElement;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

fn dispatch(c: &mut Criterion) {
    let t = pool::num_threads();
    let mut g = c.benchmark_group(format!("dispatch/{t}threads"));
    pool::run(t, &|_| {}); // start the helpers
    g.bench_function("pool_run_empty", |b| {
        b.iter(|| {
            pool::run(black_box(t), &|i| {
                black_box(i);
            })
        })
    });
    g.bench_function("rayon_scope_empty", |b| {
        b.iter(|| {
            rayon::scope(|s| {
                for i in 0..black_box(t) {
                    s.spawn(move |_| {
                        black_box(i);
                    });
                }
            })
        })
    });
    // Every participant must take part: each chunk waits until all have arrived.
    let arrived = AtomicUsize::new(0);
    let mut target = 0;
    g.bench_function("pool_run_rendezvous", |b| {
        b.iter(|| {
            target += t;
            pool::run(t, &|_| rendezvous(&arrived, target))
        })
    });
    g.bench_function("rayon_scope_rendezvous", |b| {
        b.iter(|| {
            target += t;
            let (arrived, target) = (&arrived, target);
            rayon::scope(|s| {
                for _ in 0..t {
                    s.spawn(move |_| rendezvous(arrived, target));
                }
            })
        })
    });
    // The floor under every parallel job: one cache-line round trip between this
    // thread and another spinning one (we store an odd value, it answers with the
    // next even one). A job that involves a helper costs at least this.
    let line = CachePadded::new(AtomicU64::new(0));
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut last = 0;
            loop {
                let v = line.load(Ordering::Acquire);
                if v == u64::MAX {
                    return;
                }
                if v != last && v % 2 == 1 {
                    last = v + 1;
                    line.store(last, Ordering::Release);
                }
                std::hint::spin_loop();
            }
        });
        let mut v = 0u64;
        g.bench_function("cache_line_round_trip", |b| {
            b.iter(|| {
                v += 2;
                line.store(v - 1, Ordering::Release);
                while line.load(Ordering::Acquire) != v {
                    std::hint::spin_loop();
                }
            })
        });
        line.store(u64::MAX, Ordering::Release);
    });
    g.finish();
}

fn rendezvous(arrived: &AtomicUsize, target: usize) {
    arrived.fetch_add(1, Ordering::SeqCst);
    while arrived.load(Ordering::SeqCst) < target {
        std::hint::spin_loop();
    }
}

fn sum(c: &mut Criterion) {
    let t = pool::num_threads();
    let table = f64::table();
    let mut g = c.benchmark_group(format!("sum/{t}threads"));
    for n in [16 * 1024, 256 * 1024] {
        let a: Vec<f64> = (0..n).map(|i| (i % 1000) as f64 * 0.5).collect();
        let want: f64 = a.iter().sum();
        let partials: Vec<CachePadded<AtomicU64>> = (0..t)
            .map(|_| CachePadded::new(AtomicU64::new(0)))
            .collect();
        let part = |i: usize| &a[i * n / t..(i + 1) * n / t];
        let pool_sum = || {
            pool::run(t, &|i| {
                partials[i].store((table.sum)(part(i)).to_bits(), Ordering::Relaxed)
            });
            partials
                .iter()
                .map(|p| f64::from_bits(p.load(Ordering::Relaxed)))
                .sum::<f64>()
        };
        let rayon_sum = || {
            rayon::scope(|s| {
                for (i, p) in partials.iter().enumerate() {
                    let part = &part;
                    s.spawn(move |_| p.store((table.sum)(part(i)).to_bits(), Ordering::Relaxed));
                }
            });
            partials
                .iter()
                .map(|p| f64::from_bits(p.load(Ordering::Relaxed)))
                .sum::<f64>()
        };
        assert_eq!(pool_sum(), want);
        assert_eq!(rayon_sum(), want);
        g.bench_with_input(BenchmarkId::new("serial", n), &n, |b, _| {
            b.iter(|| (table.sum)(black_box(&a)))
        });
        g.bench_with_input(BenchmarkId::new("pool", n), &n, |b, _| b.iter(pool_sum));
        g.bench_with_input(BenchmarkId::new("rayon_scope", n), &n, |b, _| {
            b.iter(rayon_sum)
        });
    }
    g.finish();
}

criterion_group!(benches, dispatch, sum);
criterion_main!(benches);
