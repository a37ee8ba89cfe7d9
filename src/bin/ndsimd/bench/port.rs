//! The NumPy-port rows at 4Mi f64: `take`, `where`, `concatenate`, `cumsum`,
//! `argsort` on one thread, and as `par take`, `par where`, `par concatenate` (the
//! ones that split over the pool) on every thread, each against the plain Rust loop
//! doing the same on one thread (`collect`).
//! Inputs are made by `compare.py`'s formula, so `--compare` times NumPy on the
//! same data.

use super::compare::vec_of;
use super::runner::Runner;
use ndsimd::{concatenate, where_, Array};
use std::hint::black_box;

/// The indices `take` gathers: a scattered walk over the whole array.
pub fn take_indices(n: usize) -> Vec<i64> {
    (0..n).map(|i| ((i * 7919) % n) as i64).collect()
}

/// The rows, named `{prefix}op`: every one when `prefix` is empty, only the pool's
/// (see the module) otherwise.
pub fn port(r: &mut Runner, prefix: &str) {
    let n = 1 << 22;
    let name = |op: &str| format!("{prefix}{op}");
    let single = prefix.is_empty();
    // Made only when a row is selected; copied into ndsimd's own allocation
    // (huge pages, as NumPy's operands).
    let mut inputs: Option<(Array<f64>, Array<f64>)> = None;
    let make = || {
        (
            vec_of::<f64>(n, 7919, false).to_owned(),
            vec_of::<f64>(n, 104729, false).to_owned(),
        )
    };
    if r.wants(&name("take")) {
        let x = &inputs.get_or_insert_with(make).0;
        let sx = x.as_slice().unwrap();
        let idx = take_indices(n);
        let plain = || idx.iter().map(|&i| sx[i as usize]).collect::<Vec<f64>>();
        assert_eq!(x.take(&idx, 0).unwrap().to_vec(), plain(), "bench take");
        r.row(
            &name("take"),
            n,
            24 * n,
            "collect",
            &mut || drop(black_box(x.take(black_box(&idx), 0).unwrap())),
            &mut || drop(black_box(plain())),
        );
    }
    if r.wants(&name("where")) {
        let (x, y) = inputs.get_or_insert_with(make);
        let (x, y) = (&*x, &*y);
        let (sx, sy) = (x.as_slice().unwrap(), y.as_slice().unwrap());
        let cond = x.greater(y).unwrap();
        let sc = cond.as_slice().unwrap();
        let plain = || {
            sc.iter()
                .zip(sx.iter().zip(sy))
                .map(|(&c, (&a, &b))| if c { a } else { b })
                .collect::<Vec<f64>>()
        };
        assert_eq!(
            where_(&cond, x, y).unwrap().to_vec(),
            plain(),
            "bench where"
        );
        r.row(
            &name("where"),
            n,
            25 * n,
            "collect",
            &mut || drop(black_box(where_(black_box(&cond), x, y).unwrap())),
            &mut || drop(black_box(plain())),
        );
    }
    if r.wants(&name("concatenate")) {
        let (x, y) = inputs.get_or_insert_with(make);
        let (x, y) = (&*x, &*y);
        let (sx, sy) = (x.as_slice().unwrap(), y.as_slice().unwrap());
        let plain = || [sx, sy].concat();
        let views = [x.view(), y.view()];
        assert_eq!(
            concatenate(&views, 0).unwrap().to_vec(),
            plain(),
            "bench concatenate"
        );
        r.row(
            &name("concatenate"),
            n,
            32 * n,
            "collect",
            &mut || drop(black_box(concatenate(black_box(&views), 0).unwrap())),
            &mut || drop(black_box(plain())),
        );
    }
    if single && r.wants("cumsum") {
        let x = &inputs.get_or_insert_with(make).0;
        let sx = x.as_slice().unwrap();
        let plain = || {
            sx.iter()
                .scan(0.0, |acc, &v| {
                    *acc += v;
                    Some(*acc)
                })
                .collect::<Vec<f64>>()
        };
        assert_eq!(x.cumsum().unwrap().to_vec(), plain(), "bench cumsum");
        r.row(
            "cumsum",
            n,
            16 * n,
            "collect",
            &mut || drop(black_box(x.cumsum().unwrap())),
            &mut || drop(black_box(plain())),
        );
    }
    if single && r.wants("argsort") {
        let x = &inputs.get_or_insert_with(make).0;
        let sx = x.as_slice().unwrap();
        let plain = || {
            let mut i: Vec<usize> = (0..n).collect();
            i.sort_by(|&a, &b| sx[a].total_cmp(&sx[b]));
            i
        };
        let want: Vec<i64> = plain().into_iter().map(|i| i as i64).collect();
        assert_eq!(x.argsort().into_vec(), want, "bench argsort");
        r.row(
            "argsort",
            n,
            16 * n,
            "collect",
            &mut || drop(black_box(x.argsort())),
            &mut || drop(black_box(plain())),
        );
    }
}
