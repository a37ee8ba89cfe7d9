//! The integer rows: `i64 sum` and `i64 add` at 1Ki–4Mi on one thread, and as
//! `par i64 …` on the pool, each against the plain Rust loop doing the same
//! (`collect`). Inputs are made by `compare.py`'s
//! formula for small values, so `--compare` times NumPy on the same data.

use super::runner::Runner;
use super::SIZES;
use ndsimd::Array;
use std::hint::black_box;

/// `(i * k) % 7 - 3`: `compare.py`'s small values, as `i64`.
pub fn ints_of(n: usize, k: usize) -> Array<i64> {
    Array::from_vec((0..n).map(|i| ((i * k) % 7) as i64 - 3).collect())
}

pub fn ints(r: &mut Runner, prefix: &str) {
    let (sum, add) = (format!("{prefix}i64 sum"), format!("{prefix}i64 add"));
    for &n in &SIZES {
        if r.wants(&sum) {
            let x = ints_of(n, 7919);
            let sx = x.as_slice().unwrap();
            let plain = || sx.iter().fold(0i64, |s, &v| s.wrapping_add(v));
            assert_eq!(x.sum(), plain(), "bench i64 sum");
            r.row(
                &sum,
                n,
                8 * n,
                "collect",
                &mut || {
                    black_box(black_box(&x).sum());
                },
                &mut || {
                    black_box(plain());
                },
            );
        }
        if r.wants(&add) {
            let (x, y) = (ints_of(n, 7919), ints_of(n, 104729));
            let (sx, sy) = (x.as_slice().unwrap(), y.as_slice().unwrap());
            let plain = || {
                sx.iter()
                    .zip(sy)
                    .map(|(&a, &b)| a.wrapping_add(b))
                    .collect::<Vec<i64>>()
            };
            assert_eq!(x.add(&y).unwrap().to_vec(), plain(), "bench i64 add");
            r.row(
                &add,
                n,
                24 * n,
                "collect",
                &mut || drop(black_box(black_box(&x).add(&y).unwrap())),
                &mut || drop(black_box(plain())),
            );
        }
    }
}
