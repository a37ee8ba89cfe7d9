//! softmax, log_softmax, logsumexp and sigmoid against a naive per-row reference
//! (f32 inputs computed in f64; f64 inputs with compensated sums), rows summing to
//! 1 within n·ε, inputs up to ±1e300, and the non-finite and empty cases.

mod common;

use common::Rng;
use ndsimd::Array;

/// (softmax row, logsumexp) of one row by the textbook steps in f64, the sum
/// compensated (Neumaier) so the reference is good to about one ε.
fn reference(row: &[f64]) -> (Vec<f64>, f64) {
    let mut m = f64::NEG_INFINITY;
    for &v in row {
        if v.is_nan() || v > m {
            m = v;
        }
    }
    if !m.is_finite() {
        m = 0.0;
    }
    let e: Vec<f64> = row.iter().map(|&v| (v - m).exp()).collect();
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for &t in &e {
        let u = s + t;
        c += if s.abs() >= t.abs() {
            s - u + t
        } else {
            t - u + s
        };
        s = u;
    }
    let s = s + c;
    (e.iter().map(|t| t / s).collect(), m + s.ln())
}

fn close(got: f64, want: f64, tol: f64) -> bool {
    (got.is_nan() && want.is_nan())
        || got == want
        || (got - want).abs() <= tol * want.abs().max(f64::MIN_POSITIVE)
}

#[test]
fn f64_rows_match_the_reference_and_sum_to_one() {
    let mut rng = Rng(0x5eed_50f7);
    for case in 0..200 {
        let (r, n) = (1 + rng.below(5), 1 + rng.below(300));
        let scale = [1.0, 30.0, 700.0, 1e5, 1e300][rng.below(5)];
        let xs: Vec<f64> = (0..r * n)
            .map(|_| (rng.int(-1 << 20, 1 << 20) as f64 / (1 << 20) as f64) * scale)
            .collect();
        let a = Array::from_shape_vec(&[r, n], xs.clone()).unwrap();
        let sm = a.softmax(1).unwrap().to_vec();
        let ls = a.log_softmax(-1).unwrap().to_vec();
        let lse = a.logsumexp(1, false).unwrap();
        assert_eq!(lse.shape(), &[r]);
        let lse = lse.to_vec();
        for i in 0..r {
            let row = &xs[i * n..(i + 1) * n];
            let (want, want_lse) = reference(row);
            let got = &sm[i * n..(i + 1) * n];
            let sum: f64 = got.iter().sum();
            assert!(
                (sum - 1.0).abs() <= n as f64 * f64::EPSILON,
                "case {case} row {i}: sums to {sum} (n {n})"
            );
            for j in 0..n {
                // exp's 1 ULP, the division's and the sum's roundings, and the
                // rounding of `x - max` magnified by exp (a relative |x - max| ε/2).
                let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let tol = (8.0 + (row[j] - m).abs()) * f64::EPSILON;
                assert!(
                    got[j].is_finite() && close(got[j], want[j], tol),
                    "case {case} [{i}, {j}]: {} vs {}",
                    got[j],
                    want[j]
                );
                let wl = row[j] - want_lse;
                assert!(
                    (ls[i * n + j] - wl).abs()
                        <= 4.0 * f64::EPSILON * (1.0 + row[j].abs() + want_lse.abs()),
                    "case {case} log_softmax [{i}, {j}]: {} vs {wl}",
                    ls[i * n + j]
                );
            }
            assert!(
                close(lse[i], want_lse, 4.0 * f64::EPSILON),
                "case {case} logsumexp {i}: {} vs {want_lse}",
                lse[i]
            );
        }
    }
}

#[test]
fn f32_matches_an_f64_reference_along_either_axis() {
    let mut rng = Rng(99);
    let xs: Vec<f32> = (0..6 * 50)
        .map(|_| rng.int(-4000, 4000) as f32 / 40.0)
        .collect();
    let a = Array::from_shape_vec(&[6, 50], xs.clone()).unwrap();
    for axis in [0isize, 1] {
        let sm = a.softmax(axis).unwrap();
        let t = if axis == 0 { sm.t().to_owned() } else { sm };
        let v = t.to_vec();
        let at = if axis == 0 {
            a.t().to_owned()
        } else {
            a.clone()
        };
        let rows = at.to_vec();
        let (r, n) = (at.shape()[0], at.shape()[1]);
        for i in 0..r {
            let row: Vec<f64> = rows[i * n..(i + 1) * n].iter().map(|&x| x as f64).collect();
            let (want, _) = reference(&row);
            let sum: f64 = v[i * n..(i + 1) * n].iter().map(|&x| x as f64).sum();
            assert!(
                (sum - 1.0).abs() <= n as f64 * f32::EPSILON as f64,
                "axis {axis}: {sum}"
            );
            let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            for j in 0..n {
                let tol = (8.0 + (row[j] - m).abs()) * f32::EPSILON as f64;
                assert!(
                    // Below f32's normal range only the absolute error counts.
                    close(v[i * n + j] as f64, want[j], tol)
                        || (v[i * n + j] as f64 - want[j]).abs() <= f32::MIN_POSITIVE as f64,
                    "axis {axis} [{i}, {j}]: {} vs {}",
                    v[i * n + j],
                    want[j]
                );
            }
        }
    }
}

#[test]
fn huge_inputs_never_overflow() {
    let a = Array::from_shape_vec(
        &[3, 3],
        vec![1e300, -1e300, 0.0, 1e300, 1e300, 1e300, -1e308, 1e308, 0.0],
    )
    .unwrap();
    let s = a.softmax(1).unwrap().to_vec();
    assert_eq!(s[..3], [1.0, 0.0, 0.0]);
    assert!(s[3..6]
        .iter()
        .all(|&v: &f64| (v - 1.0 / 3.0).abs() <= f64::EPSILON));
    assert_eq!(s[6..], [0.0, 1.0, 0.0]);
    let l = a.logsumexp(1, true).unwrap();
    assert_eq!(l.shape(), &[3, 1]);
    assert_eq!(l.to_vec(), [1e300, 1e300, 1e308]);
    let ls = a.log_softmax(1).unwrap().to_vec();
    assert_eq!(ls[..3], [0.0, -2e300, -1e300]);
}

#[test]
fn non_finite_rows_and_empty_axes() {
    let ninf = f64::NEG_INFINITY;
    let a = Array::from_shape_vec(
        &[4, 2],
        vec![ninf, ninf, f64::NAN, 1.0, f64::INFINITY, 1.0, ninf, 2.0],
    )
    .unwrap();
    let s = a.softmax(1).unwrap().to_vec();
    assert!(s[0].is_nan() && s[1].is_nan(), "all -inf row: {s:?}");
    assert!(s[2].is_nan() && s[3].is_nan(), "NaN row: {s:?}");
    assert!(s[4].is_nan() && s[5] == 0.0, "+inf row: {s:?}");
    assert_eq!(s[6..], [0.0, 1.0]);
    let l = a.logsumexp(1, false).unwrap().to_vec();
    assert_eq!(l[0], ninf);
    assert!(l[1].is_nan());
    assert_eq!(l[2], f64::INFINITY);
    assert_eq!(l[3], 2.0);
    let ls = a.log_softmax(1).unwrap().to_vec();
    assert!(ls[0].is_nan() && ls[2].is_nan());
    assert_eq!(ls[6..], [ninf, 0.0]);
    // An empty axis: empty results of the same shape, -inf for logsumexp.
    let e = Array::<f64>::zeros(&[3, 0]);
    assert_eq!(e.softmax(1).unwrap().shape(), &[3, 0]);
    assert_eq!(e.log_softmax(-1).unwrap().shape(), &[3, 0]);
    assert_eq!(e.logsumexp(1, false).unwrap().to_vec(), vec![ninf; 3]);
    assert_eq!(e.logsumexp(1, true).unwrap().shape(), &[3, 1]);
    assert_eq!(e.logsumexp(0, false).unwrap().shape(), &[0]);
    let err = e.softmax(2).unwrap_err().to_string();
    assert!(err.contains("axis 2"), "{err}");
}

#[test]
fn sigmoid_is_stable_for_large_inputs() {
    let xs = vec![
        0.0,
        1.0,
        -1.0,
        40.0,
        -40.0,
        800.0,
        -800.0,
        -745.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let s = Array::from_vec(xs.clone()).sigmoid().to_vec();
    for (&x, &y) in xs.iter().zip(&s) {
        let want = if x >= 0.0 {
            1.0 / (1.0 + (-x).exp())
        } else {
            x.exp() / (1.0 + x.exp())
        };
        assert!(
            close(y, want, 2.0 * f64::EPSILON),
            "sigmoid({x}) = {y}, want {want}"
        );
    }
    assert_eq!(s[6], 0.0);
    assert!(s[7] > 0.0, "sigmoid(-745) keeps the subnormal");
    assert!(s[8].is_nan());
    assert_eq!((s[9], s[10]), (1.0, 0.0));
    let m = Array::from_shape_vec(&[2, 2], vec![0.0f32, 100.0, -100.0, 1.0]).unwrap();
    let t = m.t().sigmoid();
    assert_eq!(t.shape(), &[2, 2]);
    assert_eq!(
        t.to_vec()[..3],
        [
            0.5,
            0.0f32.max((-100f32).exp() / (1.0 + (-100f32).exp())),
            1.0
        ]
    );
}

#[test]
fn the_row_by_row_path_agrees_with_the_general_path() {
    let mut rng = Rng(3);
    for (r, c) in [(1, 1), (3, 17), (64, 300), (5, 1025)] {
        let xs: Vec<f64> = (0..r * c)
            .map(|_| rng.int(-9000, 9000) as f64 / 7.0)
            .collect();
        let a = Array::from_shape_vec(&[r, c], xs).unwrap();
        // The transpose's axis 0 is not contiguous: the general path (its sums in
        // axis order, the row path's pairwise: equal up to the sums' rounding).
        let general = a.t().to_owned().softmax(0).unwrap().t().to_owned().to_vec();
        let fused = a.softmax(1).unwrap().to_vec();
        for (i, (&f, &g)) in fused.iter().zip(&general).enumerate() {
            assert!(
                (f - g).abs() <= c as f64 * f64::EPSILON * g,
                "{r}x{c} [{i}]: {f} vs {g}"
            );
        }
    }
}

#[test]
fn rows_cut_over_the_pool_give_each_row_its_own_result() {
    // 64 rows of 1024: long enough for the pool's pieces of whole rows.
    let mut rng = Rng(0x5eed_0c01);
    let (r, n) = (64, 1024);
    let xs: Vec<f64> = (0..r * n)
        .map(|_| rng.int(-1 << 20, 1 << 20) as f64 / 1024.0)
        .collect();
    let a = Array::from_shape_vec(&[r, n], xs.clone()).unwrap();
    let (sm, ls) = (
        a.softmax(1).unwrap().to_vec(),
        a.log_softmax(1).unwrap().to_vec(),
    );
    for i in 0..r {
        let row = Array::from_shape_vec(&[1, n], xs[i * n..(i + 1) * n].to_vec()).unwrap();
        assert_eq!(
            row.softmax(1).unwrap().to_vec(),
            sm[i * n..(i + 1) * n],
            "row {i}"
        );
        assert_eq!(
            row.log_softmax(1).unwrap().to_vec(),
            ls[i * n..(i + 1) * n],
            "row {i}"
        );
        let s: f64 = sm[i * n..(i + 1) * n].iter().sum();
        assert!(
            (s - 1.0).abs() <= n as f64 * f64::EPSILON,
            "row {i} sums to {s}"
        );
    }
}
