//! ndsimd's whole-array and axis operations against the `ndarray` crate (0.16), in
//! one process, interleaved: each round times every library once per case (the
//! shared timing rule: samples of at least 20 ms, median of 5), 5 rounds, medians
//! (min–max) in µs per call, and "vs best" = the fastest peer's median time over
//! ours (above 1: we are faster). Answers are checked first: the elementwise ones
//! bit for bit, the sums within n·ε·Σ|x| (ndarray sums in another order).
//!
//!     cd benches/peers
//!     NDSIMD_NUM_THREADS=1 RAYON_NUM_THREADS=1 cargo run --release --bin arrays
//!     NDSIMD_NUM_THREADS=2 RAYON_NUM_THREADS=2 cargo run --release --bin arrays
//!
//! An argument runs only the cases whose name contains it (`-- sqrt`); the checks
//! run whatever it is.
//!
//! What each peer row is: `ndarray` is the plain call a user writes (`a.sum()`,
//! `&a + &b`, `Zip::for_each`, `sum_axis`, `fold_axis`), serial. With more than one
//! thread the rows `ndarray+rayon` add ndarray's own parallel forms
//! (`Zip::par_for_each`, `par_iter().sum()`) on rayon's pool of as many threads;
//! ndarray has no parallel axis reduction, so those rows stay serial.
use ndarray::parallel::prelude::*;
use ndarray::{Array1, Array2, Axis, Zip};
use ndsimd::Array;
use std::hint::black_box;

#[path = "../timing.rs"]
mod timing;
use timing::median;

type Case<'a> = (&'static str, Box<dyn FnMut() + 'a>);

/// Times `cases` (the first is ours) in `rounds` interleaved rounds and prints a row
/// per library.
fn race(task: &str, n: usize, rounds: usize, mut cases: Vec<Case>) {
    if let Some(f) = std::env::args().nth(1) {
        if !task.contains(f.as_str()) {
            return;
        }
    }
    let mut got: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    for _ in 0..rounds {
        for (i, (_, f)) in cases.iter_mut().enumerate() {
            got[i].push(timing::secs(f.as_mut()) * 1e6);
        }
    }
    let med: Vec<f64> = got.iter().map(|v| median(&mut v.clone())).collect();
    let best_peer = med[1..].iter().cloned().fold(f64::INFINITY, f64::min);
    for (i, (lib, _)) in cases.iter().enumerate() {
        let lo = got[i].iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = got[i].iter().cloned().fold(0.0, f64::max);
        let vs = if i == 0 {
            format!("{:.2}", best_peer / med[0])
        } else {
            String::new()
        };
        println!(
            "{:<22} {:>8} {:<14} {:>10.1} ({:>8.1}-{:>8.1}) {:>8}",
            task, n, lib, med[i], lo, hi, vs
        );
    }
}

/// Non-integer data with both signs (sums round), the same for both libraries.
fn data(n: usize, seed: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((i * 7 + seed * 13) % 29) as f64 * 0.37 - 5.0)
        .collect()
}

/// Asserts our result holds the same bits as ndarray's, element by element.
fn same_bits<'a>(ours: &Array<f64>, theirs: impl Iterator<Item = &'a f64>) {
    let ours = ours.as_slice().unwrap();
    let mut n = 0;
    for (i, (p, q)) in ours.iter().zip(theirs).enumerate() {
        assert_eq!(p.to_bits(), q.to_bits(), "element {i}: {p} against {q}");
        n += 1;
    }
    assert_eq!(n, ours.len(), "lengths differ");
}

/// Asserts `got` is within the summation bound of the exact-order sum of `xs`.
fn close(got: f64, want: f64, xs: impl Iterator<Item = f64>, what: &str) {
    let (mut n, mut mag) = (0usize, 0.0);
    for x in xs {
        n += 1;
        mag += x.abs();
    }
    let bound = n as f64 * f64::EPSILON * mag;
    assert!(
        (got - want).abs() <= bound,
        "{what}: {got} against {want} (bound {bound})"
    );
}

fn main() {
    let threads = ndsimd::num_threads();
    let par = threads > 1;
    if par {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .expect("rayon's global pool");
    }
    let rounds = 5;
    println!(
        "ndsimd against the ndarray crate, {threads} thread(s) (ndarray serial{}); f64; {rounds} rounds; µs medians (min-max); vs best = best peer time / ours",
        if par { ", and ndarray+rayon where it has a parallel form" } else { "" }
    );
    println!(
        "{:<22} {:>8} {:<14} {:>10} {:>19} {:>8}",
        "case", "n", "library", "µs", "", "vs best"
    );

    for n in [16usize << 10, 256 << 10, 1 << 20, 4 << 20] {
        let (va, vb) = (data(n, 1), data(n, 2));
        let (a, b) = (Array::from_vec(va.clone()), Array::from_vec(vb.clone()));
        let (na, nb) = (Array1::from(va.clone()), Array1::from(vb.clone()));
        let mut out = Array::<f64>::zeros(&[n]);
        let mut nout = Array1::<f64>::zeros(n);

        // Whole-array sum.
        let want: f64 = va.iter().sum();
        close(a.sum(), want, va.iter().cloned(), "ndsimd sum");
        close(na.sum(), want, va.iter().cloned(), "ndarray sum");
        let mut cases: Vec<Case> = vec![
            (
                "ndsimd",
                Box::new(|| {
                    black_box(black_box(&a).sum());
                }),
            ),
            (
                "ndarray",
                Box::new(|| {
                    black_box(black_box(&na).sum());
                }),
            ),
        ];
        if par {
            let s = na.as_slice().unwrap();
            close(
                s.par_iter().sum::<f64>(),
                want,
                va.iter().cloned(),
                "rayon sum",
            );
            cases.push((
                "ndarray+rayon",
                Box::new(move || {
                    black_box(black_box(s).par_iter().sum::<f64>());
                }),
            ));
        }
        race("sum", n, rounds, cases);

        // a + b into a preallocated output.
        a.add_into(&b, &mut out).unwrap();
        Zip::from(&mut nout)
            .and(&na)
            .and(&nb)
            .for_each(|o, &x, &y| *o = x + y);
        same_bits(&out, nout.iter());
        let mut cases: Vec<Case> = vec![
            (
                "ndsimd",
                Box::new(|| a.add_into(&b, black_box(&mut out)).unwrap()),
            ),
            (
                "ndarray",
                Box::new(|| {
                    Zip::from(black_box(&mut nout))
                        .and(&na)
                        .and(&nb)
                        .for_each(|o, &x, &y| *o = x + y)
                }),
            ),
        ];
        if par {
            let (na, nb, mut pout) = (&na, &nb, Array1::<f64>::zeros(n));
            cases.push((
                "ndarray+rayon",
                Box::new(move || {
                    Zip::from(black_box(&mut pout))
                        .and(na)
                        .and(nb)
                        .par_for_each(|o, &x, &y| *o = x + y)
                }),
            ));
        }
        race("add into", n, rounds, cases);

        // a + b, allocating the result.
        let (na, nb) = (Array1::from(va.clone()), Array1::from(vb.clone()));
        let s = a.add(&b).unwrap();
        let t = &na + &nb;
        same_bits(&s, t.iter());
        race(
            "add (allocating)",
            n,
            rounds,
            vec![
                (
                    "ndsimd",
                    Box::new(|| {
                        black_box(black_box(&a).add(&b).unwrap());
                    }),
                ),
                (
                    "ndarray",
                    Box::new(|| {
                        black_box(black_box(&na) + &nb);
                    }),
                ),
            ],
        );

        // Square root into a preallocated output (both correctly rounded).
        let va_pos: Vec<f64> = va.iter().map(|x| x.abs()).collect();
        let (p, np) = (Array::from_vec(va_pos.clone()), Array1::from(va_pos));
        let mut out = Array::<f64>::zeros(&[n]);
        let mut nout = Array1::<f64>::zeros(n);
        p.sqrt_into(&mut out).unwrap();
        Zip::from(&mut nout)
            .and(&np)
            .for_each(|o, &x| *o = x.sqrt());
        same_bits(&out, nout.iter());
        let mut cases: Vec<Case> = vec![
            (
                "ndsimd",
                Box::new(|| p.sqrt_into(black_box(&mut out)).unwrap()),
            ),
            (
                "ndarray",
                Box::new(|| {
                    Zip::from(black_box(&mut nout))
                        .and(&np)
                        .for_each(|o, &x| *o = x.sqrt())
                }),
            ),
        ];
        if par {
            let (np, mut pout) = (&np, Array1::<f64>::zeros(n));
            cases.push((
                "ndarray+rayon",
                Box::new(move || {
                    Zip::from(black_box(&mut pout))
                        .and(np)
                        .par_for_each(|o, &x| *o = x.sqrt())
                }),
            ));
        }
        race("sqrt into", n, rounds, cases);
    }

    // 1024 x 1024: axis reductions and a row broadcast.
    let (rows, cols) = (1024usize, 1024usize);
    let vm = data(rows * cols, 3);
    let m = Array::from_shape_vec(&[rows, cols], vm.clone()).unwrap();
    let nm = Array2::from_shape_vec((rows, cols), vm.clone()).unwrap();
    let n = rows * cols;
    for axis in [0usize, 1] {
        let ours = m.sum_axis(axis as isize, false).unwrap();
        let theirs = nm.sum_axis(Axis(axis));
        let lanes = if axis == 0 { cols } else { rows };
        for j in 0..lanes {
            let lane: Vec<f64> = if axis == 0 {
                (0..rows).map(|i| vm[i * cols + j]).collect()
            } else {
                vm[j * cols..(j + 1) * cols].to_vec()
            };
            let want: f64 = lane.iter().sum();
            close(
                ours.as_slice().unwrap()[j],
                want,
                lane.iter().cloned(),
                "ndsimd sum_axis",
            );
            close(theirs[j], want, lane.iter().cloned(), "ndarray sum_axis");
        }
        race(
            if axis == 0 {
                "sum_axis(0) 1024²"
            } else {
                "sum_axis(1) 1024²"
            },
            n,
            rounds,
            vec![
                (
                    "ndsimd",
                    Box::new(|| {
                        black_box(black_box(&m).sum_axis(axis as isize, false).unwrap());
                    }),
                ),
                (
                    "ndarray",
                    Box::new(|| {
                        black_box(black_box(&nm).sum_axis(Axis(axis)));
                    }),
                ),
            ],
        );
    }
    let ours = m.max_axis(1, false).unwrap();
    let theirs = nm.fold_axis(Axis(1), f64::NEG_INFINITY, |&acc, &x| acc.max(x));
    assert!(ours
        .as_slice()
        .unwrap()
        .iter()
        .zip(theirs.iter())
        .all(|(p, q)| p == q));
    race(
        "max_axis(1) 1024²",
        n,
        rounds,
        vec![
            (
                "ndsimd",
                Box::new(|| {
                    black_box(black_box(&m).max_axis(1, false).unwrap());
                }),
            ),
            (
                "ndarray",
                Box::new(|| {
                    black_box(
                        black_box(&nm).fold_axis(Axis(1), f64::NEG_INFINITY, |&acc, &x| acc.max(x)),
                    );
                }),
            ),
        ],
    );

    // Matrix + row, into a preallocated output.
    let vr = data(cols, 4);
    let (row, nrow) = (Array::from_vec(vr.clone()), Array1::from(vr));
    let mut out = Array::<f64>::zeros(&[rows, cols]);
    let mut nout = Array2::<f64>::zeros((rows, cols));
    m.add_into(&row, &mut out).unwrap();
    Zip::from(&mut nout)
        .and(&nm)
        .and_broadcast(&nrow)
        .for_each(|o, &x, &y| *o = x + y);
    same_bits(&out, nout.iter());
    let mut pout = Array2::<f64>::zeros((rows, cols));
    let mut cases: Vec<Case> = vec![
        (
            "ndsimd",
            Box::new(|| m.add_into(&row, black_box(&mut out)).unwrap()),
        ),
        (
            "ndarray",
            Box::new(|| {
                Zip::from(black_box(&mut nout))
                    .and(&nm)
                    .and_broadcast(&nrow)
                    .for_each(|o, &x, &y| *o = x + y)
            }),
        ),
    ];
    if par {
        cases.push((
            "ndarray+rayon",
            Box::new(|| {
                Zip::from(black_box(&mut pout))
                    .and(&nm)
                    .and_broadcast(&nrow)
                    .par_for_each(|o, &x, &y| *o = x + y)
            }),
        ));
    }
    race("+ row, into 1024²", n, rounds, cases);
}
