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
//! `num_threads()` free cores, or a rendezvous waits on the scheduler. `sum/*`:
//! `num_threads()` chunks, each summing its part with the active tier's kernel,
//! partials added on the caller. `carried/*`: a 16Ki add in two halves with the
//! closure's values by reference (`pool::run`) or carried in the helper's slot
//! (`pool::run_copy`), and on one thread. `handoff/*`: the same post and answer
//! without the pool, with the job's words in the line the helper watches or on
//! two more lines, against the work alone (the floor under any such protocol).
//! Quick run:
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
    // thread and another spinning one. A job that involves a helper costs at least
    // this.
    post_and_answer(&mut g, "cache_line_round_trip", Job::Bare, 0);
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

/// The output of [`carried`]'s add, shared with the helper: each chunk writes only
/// its own half.
#[derive(Clone, Copy)]
struct Out(*mut f64, usize);
// SAFETY: the chunks write disjoint halves of the buffer, which outlives the run.
unsafe impl Sync for Out {}
// SAFETY: as for `Sync`: a copy on a helper writes only its own half.
unsafe impl Send for Out {}

impl Out {
    /// Half `i` of the buffer.
    ///
    /// # Safety
    /// No two live calls may ask for the same half.
    #[allow(clippy::mut_from_ref)]
    unsafe fn half(&self, i: usize) -> &mut [f64] {
        let h = self.1 / 2;
        // SAFETY: in bounds, and disjoint by the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.0.add(i * h), h) }
    }
}

type Add = fn(&[f64], &[f64], &mut [f64]);

// The drivers' shape, three frames deep (the operation, the split, the pool's
// closure), as they were: each closure captures the one above by reference.
#[inline(never)]
fn by_reference(add: Add, x: &[f64], y: &[f64], out: Out) {
    let op = |i: usize, o: &mut [f64]| {
        let h = o.len();
        add(&x[i * h..(i + 1) * h], &y[i * h..(i + 1) * h], o)
    };
    by_reference_split(out, &op);
}

#[inline(never)]
fn by_reference_split(out: Out, op: &(dyn Fn(usize, &mut [f64]) + Sync)) {
    let first = black_box(0usize);
    let split = |i: usize| {
        // SAFETY: chunk `i` of two asks for half `i` only.
        op(first + i, unsafe { out.half(i) })
    };
    pool::run(2, &split);
}

// The same three frames as they are now: `move` closures of values, carried in the
// helper's slot (`pool::run_copy`).
#[inline(never)]
fn by_value(add: Add, x: &[f64], y: &[f64], out: Out) {
    let op = move |i: usize, o: &mut [f64]| {
        let h = o.len();
        add(&x[i * h..(i + 1) * h], &y[i * h..(i + 1) * h], o)
    };
    by_value_split(out, op);
}

#[inline(never)]
fn by_value_split(out: Out, op: impl Fn(usize, &mut [f64]) + Send + Sync + Copy) {
    let first = black_box(0usize);
    // SAFETY: chunk `i` of two asks for half `i` only.
    pool::run_copy(2, move |i| op(first + i, unsafe { out.half(i) }));
}

/// A 16Ki f64 add cut in two on the pool through three frames of closures, as the
/// drivers cut theirs: `by_reference`, each closure capturing the one above by
/// reference (so a helper reads them from the caller's stack, line after line,
/// each freshly written for the call); `by_value`, `move` closures carried in the
/// helper's slot; `one_thread`, the whole add on this thread.
fn carried(c: &mut Criterion) {
    let t = pool::num_threads();
    let mut g = c.benchmark_group(format!("carried/{t}threads"));
    let n = 16 * 1024;
    let a: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let b: Vec<f64> = (0..n).map(|i| (3 * i) as f64).collect();
    let mut out = vec![0.0f64; n];
    let add: Add = f64::table().add.vv;
    let want: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    pool::run(t, &|_| {}); // start the helpers

    // Each form runs once and is checked before it is timed: a filter may skip
    // the timing.
    let o = Out(out.as_mut_ptr(), n);
    by_reference(add, &a, &b, o);
    assert!(out == want, "by_reference");
    g.bench_function("by_reference", |bench| {
        bench.iter(|| by_reference(add, black_box(&a), black_box(&b), o))
    });
    out.fill(0.0);
    let o = Out(out.as_mut_ptr(), n);
    by_value(add, &a, &b, o);
    assert!(out == want, "by_value");
    g.bench_function("by_value", |bench| {
        bench.iter(|| by_value(add, black_box(&a), black_box(&b), o))
    });
    g.bench_function("one_thread", |bench| {
        bench.iter(|| add(black_box(&a), black_box(&b), &mut out))
    });
    g.finish();
}

/// About a microsecond of work that touches no memory: a chain of dependent
/// multiply-adds, so both threads of [`handoff`] work the same time whatever the
/// caches do.
fn busy(steps: u64) -> u64 {
    let mut x = 1u64;
    for i in 0..steps {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
    }
    x
}

/// What a slot of [`handoff`] holds: the line both threads post and answer on (a
/// sequence number and seven words of job), then two lines of job the helper reads
/// after it sees the post, as the pool's `run_copy` payload.
#[repr(C, align(128))]
struct Post {
    seq: AtomicU64,
    fields: [AtomicU64; 7],
    payload: [[AtomicU64; 8]; 2],
}

/// The floor under a job that a helper takes part in, without the pool: the
/// caller posts (a store another thread is spinning on), both work [`HANDOFF_WORK`]
/// steps, the helper answers on the same line, the caller waits for it.
/// `in_line`: the job's words are on the line the helper watches; `two_lines`: on
/// the two lines after it, read once the post is seen; `work_alone`: the work on
/// this thread only. A job's cost beyond `work_alone` is what any pool protocol
/// of one post and one answer pays here (docs/perf.md#what-a-hand-off-costs).
fn handoff(c: &mut Criterion) {
    let mut g = c.benchmark_group("handoff");
    g.bench_function("work_alone", |b| b.iter(|| busy(HANDOFF_WORK)));
    post_and_answer(&mut g, "in_line", Job::InLine, HANDOFF_WORK);
    post_and_answer(&mut g, "two_lines", Job::TwoLines, HANDOFF_WORK);
    g.finish();
}

/// What [`post_and_answer`] sends with each post.
#[derive(Clone, Copy, PartialEq)]
enum Job {
    /// Nothing but the sequence number.
    Bare,
    /// Seven words on the line of the sequence number.
    InLine,
    /// Those, and two more lines the helper reads after it sees the post.
    TwoLines,
}

/// Times, as `name` in `g`, a post from this thread (an odd sequence number, with
/// `job`'s words written first) that another thread spinning on the line answers
/// with the next even number, each side working `work` steps of [`busy`] in
/// between; the other thread lives for this bench only.
fn post_and_answer(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    job: Job,
    work: u64,
) {
    let post = Post {
        seq: AtomicU64::new(0),
        fields: Default::default(),
        payload: Default::default(),
    };
    let lines = if job == Job::TwoLines { 2 } else { 0 };
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut last = 0;
            loop {
                let v = post.seq.load(Ordering::Acquire);
                if v == u64::MAX {
                    return;
                }
                if v == last || v.is_multiple_of(2) {
                    std::hint::spin_loop();
                    continue;
                }
                if job != Job::Bare {
                    let mut words = post.fields[0].load(Ordering::Relaxed);
                    for line in &post.payload[..lines] {
                        words += line[0].load(Ordering::Relaxed) + line[7].load(Ordering::Relaxed);
                    }
                    black_box(words);
                }
                busy(work);
                last = v + 1;
                post.seq.store(last, Ordering::Release);
            }
        });
        let mut v = 0u64;
        g.bench_function(name, |b| {
            b.iter(|| {
                v += 2;
                if job != Job::Bare {
                    for w in post.payload[..lines].iter().flatten().chain(&post.fields) {
                        w.store(v, Ordering::Relaxed);
                    }
                }
                post.seq.store(v - 1, Ordering::Release);
                busy(work);
                while post.seq.load(Ordering::Acquire) != v {
                    std::hint::spin_loop();
                }
            })
        });
        post.seq.store(u64::MAX, Ordering::Release);
    });
}

/// The steps of [`busy`] each side of [`handoff`] works: about a microsecond.
const HANDOFF_WORK: u64 = 1000;

criterion_group!(benches, dispatch, sum, carried, handoff);
criterion_main!(benches);
