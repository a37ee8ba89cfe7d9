//! The helper pool: every chunk exactly once, stress from several user threads,
//! nesting, panics, run-time resizing, scoped caps and the spin window.
//!
//! The pool is global, so every test takes `LOCK` first and sets the size it needs:
//! the tests of this binary then run one at a time against the pool (the user threads
//! they start still share it, which is the point of the stress test).

#![cfg_attr(feature = "rayon", allow(unused_imports, dead_code))] // the own-pool tests are off

mod common;

use common::XorShift;
use std::collections::HashSet;
use std::hint::black_box;
use std::panic::{catch_unwind, panic_any, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, Once};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

use ndsimd_kernels::pool::{
    current_num_threads, num_threads, parked_helpers, run, run_copy, run_indexed, set_num_threads,
    set_spin_micros, spawned_helpers, spin_micros, with_threads, COPY_MAX, MAX_THREADS,
    MAX_THREADS_PER_CORE,
};

static LOCK: Mutex<()> = Mutex::new(());

/// Serialises the tests and resets the pool to 3 participants, default spin.
fn setup() -> MutexGuard<'static, ()> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        // Keep the planted panics quiet; anything else reaches the default hook.
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<Boom>().is_none() {
                default(info);
            }
        }));
    });
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    set_num_threads(3);
    set_spin_micros(200);
    guard
}

/// The payload of the planted panics.
#[derive(Debug, PartialEq)]
struct Boom(usize);

/// Runs `chunks` chunks and asserts each ran exactly once.
fn check_once(chunks: usize) {
    let counts: Vec<AtomicU32> = (0..chunks).map(|_| AtomicU32::new(0)).collect();
    run(chunks, &|i| {
        counts[i].fetch_add(1, Ordering::Relaxed);
    });
    for (i, c) in counts.iter().enumerate() {
        assert_eq!(c.load(Ordering::Relaxed), 1, "chunk {i} of {chunks}");
    }
}

/// Deadline for the waits below: generous, so emulators and loaded CI pass; a
/// broken pool fails the test instead of hanging it.
const PATIENCE: Duration = Duration::from_secs(60);

/// `n` rounds of a loop, or a hundredth of them (at least 2) under Miri, which
/// interprets each chunk hand-off a few thousand times slower: the CI's Miri lane
/// runs the tests below that use it.
fn rounds(n: usize) -> usize {
    if cfg!(miri) {
        n.div_ceil(100).max(2)
    } else {
        n
    }
}

/// Runs `n` chunks that each wait until all `n` have started, so it returns only if
/// `n` distinct threads took part; returns their ids and names.
fn rendezvous(n: usize) -> Vec<(ThreadId, Option<String>)> {
    let started = AtomicUsize::new(0);
    let seen = Mutex::new(Vec::new());
    run(n, &|_| {
        let me = thread::current();
        seen.lock()
            .unwrap()
            .push((me.id(), me.name().map(str::to_owned)));
        started.fetch_add(1, Ordering::SeqCst);
        let t0 = Instant::now();
        while started.load(Ordering::SeqCst) < n {
            assert!(
                t0.elapsed() < PATIENCE,
                "only {} of {n} participants came",
                started.load(Ordering::SeqCst)
            );
            thread::yield_now();
        }
    });
    seen.into_inner().unwrap()
}

/// A buffer that chunks write disjoint parts of, non-atomically.
struct Shared(*mut u64, usize);
// SAFETY: chunks write disjoint ranges (checked by the callers' index math), and the
// pool makes those writes visible to the caller before `run` returns.
unsafe impl Sync for Shared {}
impl Shared {
    /// # Safety
    /// No two live calls may cover the same range.
    #[allow(clippy::mut_from_ref)]
    unsafe fn range(&self, lo: usize, hi: usize) -> &mut [u64] {
        assert!(lo <= hi && hi <= self.1);
        // SAFETY: in bounds (asserted), disjoint by the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.0.add(lo), hi - lo) }
    }
}

/// A job of `chunks` chunks over `len` elements: each chunk writes its range
/// non-atomically; returns whether every element holds its expected value.
fn fill_job(len: usize, chunks: usize, salt: u64) -> bool {
    let mut out = vec![0u64; len];
    let shared = Shared(out.as_mut_ptr(), len);
    run(chunks, &|c| {
        let (lo, hi) = (c * len / chunks, (c + 1) * len / chunks);
        // SAFETY: the ranges of different chunks are disjoint.
        let part = unsafe { shared.range(lo, hi) };
        for (k, x) in part.iter_mut().enumerate() {
            *x = ((lo + k) as u64).wrapping_mul(salt) ^ c as u64;
        }
    });
    (0..chunks).all(|c| {
        let (lo, hi) = (c * len / chunks, (c + 1) * len / chunks);
        (lo..hi).all(|i| out[i] == (i as u64).wrapping_mul(salt) ^ c as u64)
    })
}

#[test]
fn every_chunk_runs_exactly_once() {
    let _g = setup();
    for chunks in 0..=rounds(1000) {
        check_once(chunks);
    }
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for threads in [1, 2, 3, 4, 7] {
        set_num_threads(threads);
        for _ in 0..rounds(200) {
            check_once(rng.below(rounds(5000) as u64) as usize);
        }
        check_once(rounds(100_000));
    }
}

#[test]
fn zero_and_one_chunk() {
    let _g = setup();
    run(0, &|_| panic!("no chunk to run"));
    let me = thread::current().id();
    let hits = AtomicU32::new(0);
    run(1, &|i| {
        assert_eq!(i, 0);
        assert_eq!(thread::current().id(), me);
        hits.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(hits.into_inner(), 1);
}

#[test]
// The own pool's helpers specifically (rayon's pool has its own size and threads).
#[cfg(not(feature = "rayon"))]
fn helpers_take_part_and_are_named() {
    let _g = setup();
    set_num_threads(4);
    let seen = rendezvous(4);
    let me = thread::current().id();
    let ids: HashSet<_> = seen.iter().map(|s| s.0).collect();
    assert_eq!(ids.len(), 4);
    assert!(ids.contains(&me));
    for (id, name) in &seen {
        if *id != me {
            let name = name.as_deref().unwrap_or("");
            assert!(name.starts_with("ndsimd-worker-"), "helper named {name:?}");
        }
    }
    assert!(spawned_helpers() >= 3);
}

#[test]
fn stress_from_several_user_threads() {
    let _g = setup();
    let failures = AtomicUsize::new(0);
    let jobs = AtomicUsize::new(0);
    thread::scope(|s| {
        for t in 0..4u64 {
            let (failures, jobs) = (&failures, &jobs);
            s.spawn(move || {
                let mut rng = XorShift(0x1234_5678 + t * 0x9E37_79B9);
                for _ in 0..rounds(2500) {
                    let len = rng.below(rounds(4096) as u64) as usize;
                    let chunks = 1 + rng.below(48) as usize;
                    let ok = match rng.below(8) {
                        // A nested job inside each chunk.
                        0 => {
                            let total = AtomicU64::new(0);
                            run(chunks, &|c| {
                                run(5, &|k| {
                                    total.fetch_add((c * 5 + k) as u64, Ordering::Relaxed);
                                })
                            });
                            let n = (chunks * 5) as u64;
                            total.into_inner() == n * (n - 1) / 2
                        }
                        // Under a cap.
                        1 => with_threads(2, || fill_job(len, chunks, rng.next() | 1)),
                        _ => fill_job(len, chunks, rng.next() | 1),
                    };
                    if !ok {
                        failures.fetch_add(1, Ordering::Relaxed);
                    }
                    jobs.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    assert_eq!(jobs.into_inner(), 4 * rounds(2500));
    assert_eq!(failures.into_inner(), 0);
}

/// `WORDS` values a `run_copy` closure carries by value.
#[derive(Clone, Copy)]
struct Cargo<const WORDS: usize>([u64; WORDS]);

/// One `run_copy` job of `chunks` chunks whose closure carries `cargo` by value:
/// each chunk records what it saw of the cargo (a sum of its words) and, when
/// `meet` participants are asked for, first waits until that many chunks have
/// started, so that the helpers run chunks from their copies. Returns whether
/// every chunk ran once and saw this job's cargo, and the closure's size.
fn copy_job<const WORDS: usize>(cargo: Cargo<WORDS>, chunks: usize, meet: usize) -> (bool, usize) {
    let seen: Vec<AtomicU64> = (0..chunks).map(|_| AtomicU64::new(0)).collect();
    let runs: Vec<AtomicU32> = (0..chunks).map(|_| AtomicU32::new(0)).collect();
    let started = AtomicUsize::new(0);
    let (seen, runs, started) = (&seen[..], &runs[..], &started);
    let job = move |i: usize| {
        if started.fetch_add(1, Ordering::SeqCst) < meet {
            let t0 = Instant::now();
            while started.load(Ordering::SeqCst) < meet {
                assert!(t0.elapsed() < PATIENCE, "participants did not meet");
                thread::yield_now();
            }
        }
        let sum = cargo.0.iter().fold(0u64, |s, &w| s.wrapping_add(w));
        seen[i].store(sum ^ i as u64, Ordering::Relaxed);
        runs[i].fetch_add(1, Ordering::Relaxed);
    };
    run_copy(chunks, job);
    let want = cargo.0.iter().fold(0u64, |s, &w| s.wrapping_add(w));
    let ok = (0..chunks).all(|i| {
        runs[i].load(Ordering::Relaxed) == 1 && seen[i].load(Ordering::Relaxed) == want ^ i as u64
    });
    (ok, std::mem::size_of_val(&job))
}

/// How many participants a test job may wait for: `n` on the own pool; none with
/// the `rayon` feature, whose pool has its own size (and whose threads share the
/// caller's closure, as `run`'s do there).
fn meet(n: usize) -> usize {
    if cfg!(feature = "rayon") {
        0
    } else {
        n
    }
}

/// A `Cargo` of fresh words from `rng`.
fn cargo<const WORDS: usize>(rng: &mut XorShift) -> Cargo<WORDS> {
    Cargo(std::array::from_fn(|_| rng.next()))
}

/// The words that make `copy_job`'s closure exactly `COPY_MAX` bytes on 64-bit
/// targets (beside the words: two slices, a reference and a count).
const FULL: usize = (COPY_MAX - 48) / 8;

#[test]
fn run_copy_carries_each_jobs_values() {
    let _g = setup();
    let mut rng = XorShift(0xC0FF_EE00_D15E_A5E5);
    for threads in [2, 3, 4] {
        set_num_threads(threads);
        for round in 0..rounds(300) {
            let chunks = 1 + (round % 9);
            let meet = meet(threads.min(chunks));
            // Copied to the helpers (the closure of 10 words fills the payload on
            // 64-bit targets), and too big for the payload (run as `run` runs it).
            let small = copy_job(cargo::<1>(&mut rng), chunks, meet);
            let full = copy_job(cargo::<FULL>(&mut rng), chunks, meet);
            let over = copy_job(cargo::<{ FULL + 1 }>(&mut rng), chunks, meet);
            assert!(
                small.0 && full.0 && over.0,
                "round {round}: {small:?} {full:?} {over:?}"
            );
            if cfg!(target_pointer_width = "64") {
                assert_eq!((full.1, over.1), (COPY_MAX, COPY_MAX + 8));
            }
            // Back to back, no waiting: helpers late or early, copies or not.
            assert!(
                copy_job(cargo::<FULL>(&mut rng), 64, 0).0,
                "64 chunks, round {round}"
            );
        }
    }
    // A closure of no bytes (it captures nothing: a static) is carried too.
    static ZST_HITS: [AtomicU32; 8] = [const { AtomicU32::new(0) }; 8];
    for _ in 0..rounds(100) {
        run_copy(8, |i| {
            ZST_HITS[i].fetch_add(1, Ordering::Relaxed);
        });
    }
    assert!(ZST_HITS
        .iter()
        .all(|h| h.load(Ordering::Relaxed) == rounds(100) as u32));
    // Aligned to more than a cache line: run by reference.
    #[derive(Clone, Copy)]
    #[repr(align(128))]
    struct Wide(u64);
    let wide = Wide(rng.next());
    let hits: Vec<AtomicU64> = (0..16).map(|_| AtomicU64::new(0)).collect();
    let hits = &hits[..];
    run_copy(16, move |i| {
        hits[i].fetch_add(wide.0, Ordering::Relaxed);
    });
    assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == wide.0));
}

#[test]
fn run_copy_panics_reach_the_caller() {
    let _g = setup();
    set_num_threads(2);
    for round in 0..rounds(50) {
        let counts: Vec<AtomicU32> = (0..20).map(|_| AtomicU32::new(0)).collect();
        let counts = &counts[..];
        let bad = round % 20;
        let r = catch_unwind(AssertUnwindSafe(|| {
            run_copy(20, move |i| {
                counts[i].fetch_add(1, Ordering::Relaxed);
                if i == bad {
                    panic_any(Boom(i));
                }
            })
        }));
        assert_eq!(r.unwrap_err().downcast_ref::<Boom>(), Some(&Boom(bad)));
        assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        let mut rng = XorShift(round as u64 + 1);
        assert!(copy_job(cargo::<FULL>(&mut rng), 2, meet(2)).0);
    }
}

/// Runs `chunks` chunks with `run_indexed` and returns, per chunk, the participant
/// index and the thread that ran it.
fn indexed(chunks: usize, wait_for: usize) -> Vec<(Option<usize>, ThreadId)> {
    let seen = Mutex::new(vec![None; chunks]);
    let started = AtomicUsize::new(0);
    run_indexed(chunks, &|i, p| {
        seen.lock().unwrap()[i] = Some((p, thread::current().id()));
        started.fetch_add(1, Ordering::SeqCst);
        let t0 = Instant::now();
        while started.load(Ordering::SeqCst) < wait_for {
            assert!(t0.elapsed() < PATIENCE, "participants did not come");
            thread::yield_now();
        }
    });
    seen.into_inner()
        .unwrap()
        .into_iter()
        .map(Option::unwrap)
        .collect()
}

#[test]
#[cfg_attr(
    feature = "rayon",
    ignore = "rayon's threads have no participant index"
)]
fn run_indexed_numbers_participants() {
    let _g = setup();
    let me = thread::current().id();
    // Every participant shows up (each chunk waits for all three to start).
    let all = indexed(3, 3);
    let ps: HashSet<_> = all.iter().map(|&(p, _)| p.unwrap()).collect();
    assert_eq!(ps, HashSet::from([0, 1, 2]));
    let mut rng = XorShift(0xC0FFEE);
    for _ in 0..300 {
        let chunks = 1 + rng.below(40) as usize;
        let seen = indexed(chunks, 1);
        let bound = chunks.min(3);
        for &(p, t) in &seen {
            let p = p.unwrap();
            assert!(p < bound, "participant {p} with {chunks} chunks");
            // One thread per index, one index per thread; the caller is 0.
            assert_eq!(t == me, p == 0, "chunks {chunks}: {seen:?}");
            for &(q, u) in &seen {
                assert_eq!(p == q.unwrap(), t == u, "chunks {chunks}: {seen:?}");
            }
        }
    }
    // Serial runs: everything on the caller, as participant 0.
    let serial = with_threads(1, || indexed(7, 1));
    assert!(serial.iter().all(|&(p, t)| p == Some(0) && t == me));
    // Nested: inline on the outer chunk's thread, as its participant 0.
    run_indexed(4, &|_, _| {
        let outer = thread::current().id();
        let inner = indexed(5, 1);
        assert!(inner.iter().all(|&(p, t)| p == Some(0) && t == outer));
    });
}

#[test]
fn nested_runs_are_inline() {
    let _g = setup();
    let counts: Vec<AtomicU32> = (0..8 * 50 * 3).map(|_| AtomicU32::new(0)).collect();
    run(8, &|i| {
        let outer = thread::current().id();
        assert_eq!(current_num_threads(), 1);
        run(50, &|j| {
            assert_eq!(thread::current().id(), outer);
            run(3, &|k| {
                assert_eq!(thread::current().id(), outer);
                counts[(i * 50 + j) * 3 + k].fetch_add(1, Ordering::Relaxed);
            });
        });
    });
    assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    // Nested inside a job that really runs on several threads.
    set_num_threads(2);
    let started = AtomicUsize::new(0);
    let inner = AtomicU32::new(0);
    run(2, &|_| {
        started.fetch_add(1, Ordering::SeqCst);
        let t0 = Instant::now();
        while started.load(Ordering::SeqCst) < 2 {
            assert!(t0.elapsed() < PATIENCE);
            thread::yield_now();
        }
        run(100, &|_| {
            inner.fetch_add(1, Ordering::Relaxed);
        });
    });
    assert_eq!(inner.into_inner(), 200);
    assert_eq!(current_num_threads(), 2);
}

#[test]
fn panic_reaches_caller_after_other_chunks_and_pool_recovers() {
    let _g = setup();
    for round in 0..rounds(50) {
        let counts: Vec<AtomicU32> = (0..100).map(|_| AtomicU32::new(0)).collect();
        let bad = round % 100;
        let r = catch_unwind(AssertUnwindSafe(|| {
            run(100, &|i| {
                counts[i].fetch_add(1, Ordering::Relaxed);
                if i == bad {
                    panic_any(Boom(i));
                }
            })
        }));
        let payload = r.expect_err("the panic must reach the caller");
        assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(bad)));
        assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        assert!(fill_job(1000, 7, 3 + round as u64));
    }

    // Every chunk panics: the first payload comes back, all chunks still ran.
    let ran = AtomicU32::new(0);
    let r = catch_unwind(AssertUnwindSafe(|| {
        run(64, &|i| {
            ran.fetch_add(1, Ordering::Relaxed);
            panic_any(Boom(i));
        })
    }));
    assert!(r.unwrap_err().downcast_ref::<Boom>().is_some());
    assert_eq!(ran.into_inner(), 64);

    // A panic on a helper specifically (both chunks wait for each other, so the
    // helper runs one of them).
    set_num_threads(2);
    let me = thread::current().id();
    let started = AtomicUsize::new(0);
    let r = catch_unwind(AssertUnwindSafe(|| {
        run(2, &|_| {
            started.fetch_add(1, Ordering::SeqCst);
            let t0 = Instant::now();
            while started.load(Ordering::SeqCst) < 2 {
                assert!(t0.elapsed() < PATIENCE);
                thread::yield_now();
            }
            if thread::current().id() != me {
                panic_any(Boom(777));
            }
        })
    }));
    assert_eq!(r.unwrap_err().downcast_ref::<Boom>(), Some(&Boom(777)));
    assert_eq!(rendezvous(2).len(), 2);
    assert!(fill_job(10_000, 16, 5));

    // An inline run propagates the panic too, and the cap comes back after it.
    let r = catch_unwind(AssertUnwindSafe(|| {
        with_threads(1, || run(4, &|i| panic_any(Boom(i))))
    }));
    assert_eq!(r.unwrap_err().downcast_ref::<Boom>(), Some(&Boom(0)));
    assert_eq!(current_num_threads(), 2);
}

#[test]
// The own pool's helpers specifically (rayon's pool has its own size and threads).
#[cfg(not(feature = "rayon"))]
fn set_num_threads_at_run_time() {
    let _g = setup();
    for n in [1, 2, 5, 3, 1, 4, 2] {
        set_num_threads(n);
        assert_eq!(num_threads(), n);
        assert_eq!(current_num_threads(), n);
        // Growing really adds participants.
        assert_eq!(rendezvous(n).len(), n);
        // Shrinking really removes them.
        let ids = Mutex::new(HashSet::new());
        run(64, &|_| {
            ids.lock().unwrap().insert(thread::current().id());
            thread::sleep(Duration::from_micros(50));
        });
        assert!(ids.into_inner().unwrap().len() <= n);
        assert!(fill_job(5000, 13, n as u64 | 1));
    }
    set_num_threads(0);
    assert_eq!(num_threads(), 1);

    // Resizing while another user thread runs jobs.
    let stop = AtomicBool::new(false);
    thread::scope(|s| {
        s.spawn(|| {
            let mut n = 1;
            while !stop.load(Ordering::Relaxed) {
                n = n % 4 + 1;
                set_num_threads(n);
                thread::sleep(Duration::from_micros(100));
            }
        });
        let mut rng = XorShift(42);
        for _ in 0..2000 {
            let len = rng.below(3000) as usize;
            assert!(fill_job(len, 1 + rng.below(20) as usize, rng.next() | 1));
        }
        stop.store(true, Ordering::Relaxed);
    });
}

#[test]
fn with_threads_caps_and_nests() {
    let _g = setup();
    let me = thread::current().id();
    with_threads(1, || {
        assert_eq!(current_num_threads(), 1);
        run(100, &|_| assert_eq!(thread::current().id(), me));
        // An inner cap wins, and never goes beyond the pool.
        with_threads(2, || {
            assert_eq!(current_num_threads(), 2);
            assert_eq!(rendezvous(2).len(), 2);
        });
        with_threads(64, || assert_eq!(current_num_threads(), 3));
        assert_eq!(current_num_threads(), 1);
        run(100, &|_| assert_eq!(thread::current().id(), me));
    });
    assert_eq!(current_num_threads(), 3);
    with_threads(2, || {
        let ids = Mutex::new(HashSet::new());
        run(64, &|_| {
            ids.lock().unwrap().insert(thread::current().id());
            thread::sleep(Duration::from_micros(50));
        });
        assert!(ids.into_inner().unwrap().len() <= 2);
        assert!(fill_job(4096, 9, 11));
        with_threads(1, || assert!(fill_job(4096, 9, 13)));
        assert_eq!(current_num_threads(), 2);
    });
    // with_threads(0) is with_threads(1); the cap is per thread.
    with_threads(0, || {
        assert_eq!(current_num_threads(), 1);
        thread::scope(|s| {
            s.spawn(|| assert_eq!(current_num_threads(), 3));
        });
    });
    assert_eq!(with_threads(2, || 7), 7);
}

/// Waits until `cond` holds, failing after `PATIENCE`.
fn eventually(what: &str, cond: impl Fn() -> bool) {
    let t0 = Instant::now();
    while !cond() {
        assert!(t0.elapsed() < PATIENCE, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(1));
    }
}

/// Helpers that park right after each job, posted to back to back: the caller wakes
/// only helpers it sees asleep, reading that flag with no fence after its post, so a
/// helper just going to sleep can miss its wake-up and must find the post by itself.
/// Each job here returns only when every participant came.
#[test]
#[cfg(not(feature = "rayon"))]
fn helpers_going_to_sleep_still_come() {
    let _g = setup();
    set_spin_micros(0);
    for i in 0..3000 {
        // A trivial job first, so the next post lands as its helpers go to sleep.
        run(3, &|c| {
            black_box(c);
        });
        if i % 2 == 1 {
            // With one more, the wait for all of them falls at another moment.
            run(3, &|c| {
                black_box(c);
            });
        }
        assert_eq!(rendezvous(3).len(), 3);
    }
    set_spin_micros(200);
}

#[test]
// The own pool's helpers specifically (rayon's pool has its own size and threads).
#[cfg(not(feature = "rayon"))]
fn spin_window_then_park() {
    let _g = setup();
    assert_eq!(spin_micros(), 200);
    // No spinning: helpers park right after each job, and every job wakes them.
    set_spin_micros(0);
    assert_eq!(rendezvous(3).len(), 3);
    eventually("all helpers parked", || {
        parked_helpers() == spawned_helpers()
    });
    for i in 0..300 {
        assert!(fill_job(2000, 3, i | 1));
    }
    assert_eq!(rendezvous(3).len(), 3);

    // A long window: the two helpers of the last job stay awake...
    set_spin_micros(60_000_000);
    assert_eq!(rendezvous(3).len(), 3);
    thread::sleep(Duration::from_millis(20));
    assert!(parked_helpers() <= spawned_helpers() - 2);
    // ...until the window shrinks: spinning helpers see the change.
    set_spin_micros(0);
    eventually("spinning helpers parked", || {
        parked_helpers() == spawned_helpers()
    });
    set_spin_micros(200);
    assert!(fill_job(10_000, 8, 17));
}

#[test]
#[cfg(feature = "rayon")]
fn rayon_feature_runs_chunks_on_rayons_pool() {
    let _g = setup();
    // The test thread is not one of rayon's, so every chunk of a parallel run lands on
    // rayon's workers, and the own pool never starts a helper.
    let on_rayon = AtomicUsize::new(0);
    run(16, &|_| {
        if rayon::current_thread_index().is_some() {
            on_rayon.fetch_add(1, Ordering::Relaxed);
        }
    });
    assert_eq!(on_rayon.into_inner(), 16);
    assert_eq!(spawned_helpers(), 0);
}

/// `NDSIMD_NUM_THREADS` above `MAX_THREADS_PER_CORE` per core is capped, and 0 or
/// garbage falls back to the default, each with one warning on stderr. The pool reads
/// the variable once per process, so each value runs this test again in a child (with
/// `NDSIMD_POOL_CHILD` set to make it the child), which reports the pool it got.
#[test]
fn num_threads_from_the_environment_is_capped_and_checked() {
    let name = "num_threads_from_the_environment_is_capped_and_checked";
    if std::env::var_os("NDSIMD_POOL_CHILD").is_some() {
        println!("threads={} again={}", num_threads(), num_threads());
        run(4 * num_threads(), &|_| {});
        println!("helpers={}", spawned_helpers());
        return;
    }
    // Under qemu-user (the CI's emulated lanes) a child of another architecture
    // cannot start without the emulator; the check is for the native lanes.
    if std::env::var_os("NDSIMD_EMULATED").is_some() {
        return;
    }
    let child = |value: Option<&str>| {
        let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
        cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env("NDSIMD_POOL_CHILD", "1");
        match value {
            Some(v) => cmd.env("NDSIMD_NUM_THREADS", v),
            None => cmd.env_remove("NDSIMD_NUM_THREADS"),
        };
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{value:?}: {stdout}\n{stderr}");
        let field = |key: &str| -> usize {
            let at = stdout
                .find(key)
                .unwrap_or_else(|| panic!("{key} in {stdout}"))
                + key.len();
            let digits: String = stdout[at..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().unwrap()
        };
        let (threads, again, helpers) = (field("threads="), field("again="), field("helpers="));
        assert_eq!(threads, again);
        (threads, helpers, stderr)
    };
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    let (default, _, stderr) = child(None);
    assert!(!stderr.contains("NDSIMD_NUM_THREADS"), "{stderr}");

    let cap = (MAX_THREADS_PER_CORE * cores).min(MAX_THREADS);
    let (threads, helpers, stderr) = child(Some("100000"));
    assert_eq!(threads, cap);
    // The own pool really started no more than that (rayon's has its own size).
    #[cfg(not(feature = "rayon"))]
    assert_eq!(helpers, cap - 1);
    let _ = helpers;
    let warning = format!(
        "ndsimd: NDSIMD_NUM_THREADS=100000 is more than {MAX_THREADS_PER_CORE} threads per \
         core ({cores} cores here) or {MAX_THREADS} in all; using {cap}\n"
    );
    assert_eq!(stderr.matches(&warning).count(), 1, "{stderr}");
    assert_eq!(stderr.matches("NDSIMD_NUM_THREADS").count(), 1, "{stderr}");

    for bad in ["0", "lots"] {
        let (threads, _, stderr) = child(Some(bad));
        assert_eq!(threads, default, "{bad}");
        let warning = format!(
            "ndsimd: ignoring NDSIMD_NUM_THREADS=\"{bad}\": not a thread count (an integer \
             from 1); using the default\n"
        );
        assert_eq!(stderr.matches(&warning).count(), 1, "{bad}: {stderr}");
    }
    // A count within the cap is taken as given, quietly.
    let (threads, _, stderr) = child(Some(&cap.to_string()));
    assert_eq!(threads, cap);
    assert!(!stderr.contains("NDSIMD_NUM_THREADS"), "{stderr}");
}
