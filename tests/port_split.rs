//! `take`, `where_` and `concatenate` split over the pool and (for `take` and
//! `where_`) streamed out: the same elements as a naive loop, on one and two threads,
//! with streaming forced on and off, at lengths around the staging block and the
//! pool's split; a bad index reports the first bad one in output order.
//!
//! Its own test binary: it moves the process-wide streaming threshold.

mod common;

use common::Rng;
use ndsimd::{concatenate, where_, Array, ArrayView};
use ndsimd_kernels::stream::{set_stream_min, stream_min};

/// Around the staging block (1024), two pool pieces (16Ki), and odd sizes past both.
const LENGTHS: [usize; 9] = [1, 7, 1023, 1024, 1025, 16_383, 32_768, 40_001, 70_001];

/// Values with IEEE edge cases; compared by bits.
fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    (0..n).map(|_| rng.edge_f64(f64::MAX)).collect()
}

/// Panics naming `what` and the first element whose bits differ.
fn same(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    if let Some(i) = (0..got.len()).find(|&i| got[i].to_bits() != want[i].to_bits()) {
        panic!("{what}: element {i} is {:e}, want {:e}", got[i], want[i]);
    }
}

/// Runs `check` on one and two threads, streaming forced on and off.
fn every_way(check: impl Fn(&str)) {
    let default = stream_min();
    for threads in [1, 2] {
        for min in [1, usize::MAX] {
            set_stream_min(min);
            let how = format!("threads {threads}, stream_min {min}");
            ndsimd::with_threads(threads, || check(&how));
        }
    }
    set_stream_min(default);
}

// One test only: the threshold is process-wide.
#[test]
fn split_and_streamed_selection_equals_the_naive_loop() {
    every_way(|how| {
        for n in LENGTHS {
            let x = data(n, 1);
            let y = data(n, 2);
            let (ax, ay) = (Array::from_vec(x.clone()), Array::from_vec(y.clone()));

            // take: scattered, repeated and negative indices; 1-D and along the last
            // axis of a 2-D array (rows of the output restart the index list).
            let mut rng = Rng(n as u64 | 1);
            let idx: Vec<i64> = (0..n)
                .map(|_| rng.int(-(n as isize), n as isize - 1) as i64)
                .collect();
            let at = |i: i64, len: usize| {
                if i < 0 {
                    (i + len as i64) as usize
                } else {
                    i as usize
                }
            };
            let want: Vec<f64> = idx.iter().map(|&i| x[at(i, n)]).collect();
            let got = ax.take(&idx, 0).unwrap();
            same(&got.to_vec(), &want, &format!("take n={n}, {how}"));
            if n % 7 == 0 || n == 1025 {
                let rows = if n % 7 == 0 { 7 } else { 5 };
                let cols = n / rows;
                let m = ArrayView::from_slice(&x[..rows * cols], &[rows, cols]).unwrap();
                let k: Vec<i64> = idx
                    .iter()
                    .map(|&i| i % cols as i64)
                    .take(cols + 3)
                    .collect();
                let want: Vec<f64> = (0..rows)
                    .flat_map(|r| k.iter().map(move |&i| (r, i)))
                    .map(|(r, i)| x[r * cols + at(i, cols)])
                    .collect();
                let got = m.take(&k, 1).unwrap();
                assert_eq!(got.shape(), &[rows, cols + 3]);
                same(&got.to_vec(), &want, &format!("take axis 1 n={n}, {how}"));
            }
            // The first bad index in output order is the one reported.
            if n > 2 {
                let mut bad = idx.clone();
                bad[n - 1] = n as i64 + 5;
                bad[n / 2] = -(n as i64) - 1;
                let e = ax.take(&bad, 0).unwrap_err().to_string();
                let first = format!(
                    "index {} is out of bounds for axis 0 with size {n}",
                    -(n as i64) - 1
                );
                assert_eq!(e, first, "{how}");
            }

            // where_: array/array, array/scalar, scalar/array, scalar/scalar.
            let c: Vec<bool> = x.iter().zip(&y).map(|(a, b)| a > b || a.is_nan()).collect();
            let ac = Array::from_vec(c.clone());
            let pick = |a: &dyn Fn(usize) -> f64, b: &dyn Fn(usize) -> f64| {
                (0..n)
                    .map(|i| if c[i] { a(i) } else { b(i) })
                    .collect::<Vec<f64>>()
            };
            let cases = [
                (where_(&ac, &ax, &ay).unwrap(), pick(&|i| x[i], &|i| y[i])),
                (where_(&ac, &ax, -0.0).unwrap(), pick(&|i| x[i], &|_| -0.0)),
                (
                    where_(&ac, f64::NAN, &ay).unwrap(),
                    pick(&|_| f64::NAN, &|i| y[i]),
                ),
                (where_(&ac, 1.5, 2.5).unwrap(), pick(&|_| 1.5, &|_| 2.5)),
            ];
            for (k, (got, want)) in cases.iter().enumerate() {
                same(
                    &got.to_vec(),
                    want,
                    &format!("where_ case {k} n={n}, {how}"),
                );
            }

            // concatenate: 1-D of three parts (one empty), and along the last axis of
            // 2-D arrays, where every output row interleaves the parts.
            let empty = Array::<f64>::zeros(&[0]);
            let got = concatenate(&[ax.view(), empty.view(), ay.view()], 0).unwrap();
            same(
                &got.to_vec(),
                &[&x[..], &y[..]].concat(),
                &format!("concatenate n={n}, {how}"),
            );
            let rows = 3;
            let (w1, w2) = (n / rows, (n / 2) / rows);
            if w1 > 0 && w2 > 0 {
                let a = ArrayView::from_slice(&x[..rows * w1], &[rows, w1]).unwrap();
                let b = ArrayView::from_slice(&y[..rows * w2], &[rows, w2]).unwrap();
                let got = concatenate(&[a.clone(), b, a], 1).unwrap();
                let want: Vec<f64> = (0..rows)
                    .flat_map(|r| {
                        [
                            &x[r * w1..(r + 1) * w1],
                            &y[r * w2..(r + 1) * w2],
                            &x[r * w1..(r + 1) * w1],
                        ]
                        .concat()
                    })
                    .collect();
                assert_eq!(got.shape(), &[rows, 2 * w1 + w2]);
                same(
                    &got.to_vec(),
                    &want,
                    &format!("concatenate axis 1 n={n}, {how}"),
                );
            }
        }
    });
}
