//! Soak: several user threads run random operations at once for a set time, each
//! result checked against a naive reference, while a controller thread resizes the
//! pool (`set_num_threads`) and changes its spin window (helpers spin, then park)
//! and the workers inject panics into the closures the pool runs. Prints the ops
//! done per kind, the panics caught and every mismatch; exits 1 on any mismatch or
//! unexpected panic.
//!
//! ```text
//! cargo test --release --test soak                 # 2 s (the default under cargo test)
//! NDSIMD_SOAK_SECS=600 cargo test --release --test soak
//! cargo test --release --test soak -- --secs 600 --threads 8
//! ```
//!
//! A binary of its own (harness = false): its threads and the pool's are all there is.

mod common;

use common::Rng;
use ndsimd::scan::{count_byte_in, find_nonzero_in};
use ndsimd::{Array, SliceArg};
use ndsimd_kernels::pool;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

const KINDS: [&str; 7] = [
    "elementwise",
    "sum",
    "sum_axis",
    "matmul",
    "scan",
    "run+panic",
    "with_threads+panic",
];
/// The payload of every injected panic (the hook stays quiet for these only).
const INJECTED: &str = "soak: injected panic";

#[derive(Default)]
struct Stats {
    ops: [AtomicU64; KINDS.len()],
    mismatches: AtomicU64,
    caught: AtomicU64,
    resizes: AtomicU64,
}

impl Stats {
    fn mismatch(&self, what: String) {
        // The first few are printed in full; all are counted.
        if self.mismatches.fetch_add(1, Relaxed) < 20 {
            eprintln!("soak: MISMATCH {what}");
        }
    }
}

fn small(rng: &mut Rng) -> f64 {
    rng.int(-8, 8) as f64
}

fn random_vec(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| small(rng)).collect()
}

/// `a + b` with `b` a reversed row broadcast over `a`'s rows, or `a * t` with a
/// transposed operand: sizes past the pool's split threshold.
fn elementwise(rng: &mut Rng, st: &Stats) {
    let (r, c) = (rng.int(1, 300) as usize, rng.int(30, 400) as usize);
    let a = Array::from_shape_vec(&[r, c], random_vec(rng, r * c)).unwrap();
    let av = a.as_slice().unwrap();
    if rng.below(2) == 0 {
        let row = Array::from_vec(random_vec(rng, c));
        let rv = row.slice([SliceArg::from(..).with_step(-1)]).unwrap();
        let got = a.add(&rv).unwrap();
        let rs = row.as_slice().unwrap();
        let want: Vec<f64> = (0..r * c).map(|k| av[k] + rs[c - 1 - k % c]).collect();
        if got.to_vec() != want {
            st.mismatch(format!("add of a reversed row, {r}x{c}"));
        }
    } else {
        let t = Array::from_shape_vec(&[c, r], random_vec(rng, r * c)).unwrap();
        let ts = t.as_slice().unwrap();
        let got = a.mul(t.t()).unwrap();
        let want: Vec<f64> = (0..r * c)
            .map(|k| av[k] * ts[(k % c) * r + k / c])
            .collect();
        if got.to_vec() != want {
            st.mismatch(format!("mul by a transpose, {r}x{c}"));
        }
    }
}

/// Integers: every order of summation gives the exact sum.
fn sum(rng: &mut Rng, st: &Stats) {
    let n = rng.int(0, 300_000) as usize;
    let v = random_vec(rng, n);
    let want: f64 = v.iter().sum();
    let a = Array::from_vec(v.clone());
    let (got, want) = if rng.below(2) == 0 {
        (a.sum(), want)
    } else {
        // Every third element from the end: a strided, reversed view.
        let w: f64 = v.iter().rev().step_by(3).sum();
        (
            a.slice([SliceArg::from(..).with_step(-3)]).unwrap().sum(),
            w,
        )
    };
    if got != want {
        st.mismatch(format!("sum of {n}: {got} vs {want}"));
    }
}

fn sum_axis(rng: &mut Rng, st: &Stats) {
    let (r, c) = (rng.int(1, 600) as usize, rng.int(1, 600) as usize);
    let v = random_vec(rng, r * c);
    let a = Array::from_shape_vec(&[r, c], v.clone()).unwrap();
    let ax = rng.below(2);
    let got = a.sum_axis(ax as isize, false).unwrap().to_vec();
    let want: Vec<f64> = if ax == 0 {
        (0..c).map(|j| (0..r).map(|i| v[i * c + j]).sum()).collect()
    } else {
        (0..r).map(|i| v[i * c..(i + 1) * c].iter().sum()).collect()
    };
    if got != want {
        st.mismatch(format!("sum_axis({ax}) of {r}x{c}"));
    }
}

fn matmul(rng: &mut Rng, st: &Stats) {
    let (m, n, k) = (
        rng.int(1, 160) as usize,
        rng.int(1, 160) as usize,
        rng.int(1, 160) as usize,
    );
    let a = Array::from_shape_vec(&[m, k], random_vec(rng, m * k)).unwrap();
    let b = Array::from_shape_vec(&[n, k], random_vec(rng, n * k)).unwrap();
    // B is read through a transpose: a column-major operand.
    let got = a.matmul(&b.t()).unwrap();
    let (av, bv) = (a.as_slice().unwrap(), b.as_slice().unwrap());
    let g = got.as_slice().unwrap();
    for i in 0..m {
        for j in 0..n {
            let s: f64 = (0..k).map(|p| av[i * k + p] * bv[j * k + p]).sum();
            if g[i * n + j] != s {
                st.mismatch(format!(
                    "matmul {m}x{k}x{n} at ({i},{j}): {} vs {s}",
                    g[i * n + j]
                ));
                return;
            }
        }
    }
}

fn scan(rng: &mut Rng, st: &Stats, hay: &[u8], counts: &[u64; 256]) {
    let needle = rng.below(256) as u8;
    let got = count_byte_in(hay, needle);
    if got != counts[needle as usize] {
        st.mismatch(format!(
            "count_byte_in({needle}): {got} vs {}",
            counts[needle as usize]
        ));
    }
    let mut zeros = vec![0u8; rng.int(1, 2 << 20) as usize];
    let at = rng.below(zeros.len() + 1);
    if at < zeros.len() {
        zeros[at] = 1 + rng.below(255) as u8;
    }
    let want = (at < zeros.len()).then_some(at as u64 & !7);
    if find_nonzero_in(&zeros) != want {
        st.mismatch(format!(
            "find_nonzero_in with a needle at {at} of {}",
            zeros.len()
        ));
    }
}

/// A pool run whose chunk `bad` panics: the panic reaches the caller with its
/// payload; the next run (no panic) calls every chunk exactly once.
fn run_panic(rng: &mut Rng, st: &Stats) {
    let chunks = rng.int(2, 200) as usize;
    let bad = rng.below(chunks);
    let r = panic::catch_unwind(|| {
        pool::run(chunks, &|i| {
            if i == bad {
                panic::panic_any(INJECTED);
            }
        })
    });
    match r {
        Err(p) if p.downcast_ref::<&str>() == Some(&INJECTED) => {
            st.caught.fetch_add(1, Relaxed);
        }
        Err(_) => st.mismatch("pool::run resumed another payload".into()),
        Ok(()) => st.mismatch(format!(
            "pool::run swallowed the panic of chunk {bad} of {chunks}"
        )),
    }
    let hits: Vec<AtomicUsize> = (0..chunks).map(|_| AtomicUsize::new(0)).collect();
    pool::run(chunks, &|i| {
        hits[i].fetch_add(1, Relaxed);
    });
    if let Some(i) = hits.iter().position(|h| h.load(Relaxed) != 1) {
        st.mismatch(format!(
            "after a panic, chunk {i} of {chunks} ran {} times",
            hits[i].load(Relaxed)
        ));
    }
}

/// `with_threads` around an op that panics, inside an outer cap of 1: when it
/// unwinds the outer cap must be back (exact whatever the controller does, since a
/// cap of 1 never depends on the pool's size).
fn with_threads_panic(rng: &mut Rng, st: &Stats) {
    let n = rng.int(2, 6) as usize;
    let v = random_vec(rng, 50_000);
    pool::with_threads(1, || {
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            pool::with_threads(n, || {
                let got = Array::from_vec(v.clone()).mul(2.0).unwrap();
                if got.to_vec().iter().zip(&v).any(|(g, x)| *g != 2.0 * x) {
                    st.mismatch(format!("mul under with_threads({n})"));
                }
                panic::panic_any(INJECTED);
            })
        }));
        match r {
            Ok(()) => st.mismatch("with_threads swallowed a panic".into()),
            Err(_) => {
                st.caught.fetch_add(1, Relaxed);
            }
        }
        if pool::current_num_threads() != 1 {
            st.mismatch(format!(
                "with_threads({n}) unwound without restoring the cap of 1"
            ));
        }
    });
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut secs: f64 = std::env::var("NDSIMD_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let mut users = 4usize;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--secs" => secs = args.next().and_then(|s| s.parse().ok()).expect("--secs N"),
            "--threads" => {
                users = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--threads N")
            }
            // What cargo test passes to every test binary.
            _ => {}
        }
    }
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<&str>() != Some(&INJECTED) {
            default_hook(info);
        }
    }));

    let st = Arc::new(Stats::default());
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(secs);

    let controller = {
        let (st, stop) = (st.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut rng = Rng(0x50a4);
            while !stop.load(Relaxed) {
                pool::set_num_threads(rng.int(1, 6) as usize);
                pool::set_spin_micros([0, 20, 200, 5000][rng.below(4)]);
                st.resizes.fetch_add(1, Relaxed);
                // Sometimes long enough for the helpers to park.
                std::thread::sleep(Duration::from_millis([5, 20, 80][rng.below(3)]));
            }
        })
    };

    let workers: Vec<_> = (0..users)
        .map(|w| {
            let st = st.clone();
            std::thread::spawn(move || {
                let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((w as u64 + 1) * 0x2545_f491));
                let hay: Vec<u8> = (0..(3 << 20) + 13).map(|_| rng.next() as u8).collect();
                let mut counts = [0u64; 256];
                for &b in &hay {
                    counts[b as usize] += 1;
                }
                while Instant::now() < deadline {
                    let kind = rng.below(KINDS.len());
                    match kind {
                        0 => elementwise(&mut rng, &st),
                        1 => sum(&mut rng, &st),
                        2 => sum_axis(&mut rng, &st),
                        3 => matmul(&mut rng, &st),
                        4 => scan(&mut rng, &st, &hay, &counts),
                        5 => run_panic(&mut rng, &st),
                        _ => with_threads_panic(&mut rng, &st),
                    }
                    st.ops[kind].fetch_add(1, Relaxed);
                }
            })
        })
        .collect();
    let mut died = 0;
    for w in workers {
        if w.join().is_err() {
            died += 1;
        }
    }
    stop.store(true, Relaxed);
    controller.join().expect("the controller thread");

    let total: u64 = st.ops.iter().map(|o| o.load(Relaxed)).sum();
    let per: Vec<String> = KINDS
        .iter()
        .zip(&st.ops)
        .map(|(k, o)| format!("{k} {}", o.load(Relaxed)))
        .collect();
    let mismatches = st.mismatches.load(Relaxed);
    println!(
        "soak: {:.1} s, {users} user threads, {total} ops ({}), {} injected panics caught, {} pool resizes, {mismatches} mismatches, {died} workers died",
        start.elapsed().as_secs_f64(),
        per.join(", "),
        st.caught.load(Relaxed),
        st.resizes.load(Relaxed),
    );
    if mismatches > 0 || died > 0 {
        std::process::exit(1);
    }
}
