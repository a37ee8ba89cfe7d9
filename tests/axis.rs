//! Axis reductions (`sum_axis` .. `argmin_axis`) against a reference built from the
//! whole-array reductions of each lane: every axis of ranks 1..=4 (negative axes too),
//! keepdims, size-0 axes, non-contiguous inputs (permuted, sliced with steps,
//! reversed), the NaN and signed-zero rules, and the error messages.
//!
//! max/min/argmax/argmin must equal the whole-array `max`/`min`/`argmax`/`argmin` of
//! each lane bit for bit (NaN payloads and zero signs included); sum/mean/prod must be
//! within `(n + 2)·ε·Σ|x|` of an `f64` reference (prod: relatively), and exact on
//! integer data.

mod common;

use common::{Layout, Rng};
use ndsimd::{s, Array, ArrayView, Element, Error};

/// What values a test array holds.
#[derive(Clone, Copy, Debug)]
enum Vals {
    /// Integers in -1000..=1000 (sums exact).
    Int,
    /// Eighths in -125..=125 mixed with ±0, ±inf and NaNs of two payloads.
    Edge,
    /// Magnitudes in [0.5, 2] with random signs (products stay finite).
    Prod,
    /// Only ±0.
    Zeros,
}

fn value<T: Element>(rng: &mut Rng, vals: Vals) -> T {
    let x = match vals {
        Vals::Int => rng.below(2001) as f64 - 1000.0,
        Vals::Edge => {
            if rng.below(6) == 0 {
                [
                    0.0,
                    -0.0,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    f64::NAN,
                    -f64::NAN,
                    3.0,
                    3.0,
                ][rng.below(8)]
            } else {
                (rng.below(2001) as f64 - 1000.0) / 8.0
            }
        }
        Vals::Prod => {
            let m = 0.5 + rng.below(1001) as f64 * 1.5 / 1000.0;
            if rng.below(2) == 0 {
                m
            } else {
                -m
            }
        }
        Vals::Zeros => [0.0, -0.0][rng.below(2)],
    };
    T::from_f64(x).unwrap()
}

/// A view of `shape`. `kind` 0: standard layout; 1: permuted storage; 2: sliced
/// with steps (1, 2, -1, -3) and padding; 3: both.
fn layout<T: Element>(rng: &mut Rng, shape: &[usize], kind: usize, vals: Vals) -> Layout<T> {
    let (permute, slice) = (kind & 1 != 0, kind & 2 != 0);
    let (steps, pad): (&[isize], usize) = if slice {
        (&[1, 2, -1, -3], 2)
    } else {
        (&[1], 0)
    };
    Layout::new(rng, shape, steps, pad, permute, |r| value(r, vals))
}

/// The lanes along axis `k` of `v`, one per output position in row-major order.
fn lanes<T: Element>(v: &ArrayView<'_, T>, k: usize) -> Vec<Vec<T>> {
    let shape = v.shape();
    let rest: Vec<usize> = (0..shape.len()).filter(|&a| a != k).collect();
    let count: usize = rest.iter().map(|&a| shape[a]).product();
    let mut out = Vec::with_capacity(count);
    let mut idx = vec![0usize; shape.len()];
    for mut p in 0..count {
        for &a in rest.iter().rev() {
            idx[a] = p % shape[a];
            p /= shape[a];
        }
        let lane = (0..shape[k])
            .map(|j| {
                idx[k] = j;
                *v.get(&idx).unwrap()
            })
            .collect();
        out.push(lane);
    }
    out
}

fn bits<T: Element>(x: T) -> u64 {
    x.to_f64().unwrap().to_bits()
}

fn expected_shape(shape: &[usize], k: usize, keepdims: bool) -> Vec<usize> {
    let mut s = shape.to_vec();
    if keepdims {
        s[k] = 1;
    } else {
        s.remove(k);
    }
    s
}

/// `got` within `bound` of `want` (an f64 reference), exactly when `exact`; NaN and
/// infinities by class.
fn close<T: Element>(what: &str, got: T, want: f64, exact: bool, bound: f64) {
    let g = got.to_f64().unwrap();
    if want.is_nan() {
        assert!(g.is_nan(), "{what}: got {g}, want NaN");
    } else if want.is_infinite() {
        assert_eq!(g, want, "{what}");
    } else if exact {
        assert_eq!(g, want, "{what}: integer data must be exact");
    } else {
        assert!(
            (g - want).abs() <= bound,
            "{what}: got {g}, want {want} (bound {bound})"
        );
    }
}

/// Checks every reduction of `v` along every axis (both signs) and both keepdims.
fn check_all<T: Element>(v: &ArrayView<'_, T>, vals: Vals, ctx: &str) {
    let eps = T::epsilon().to_f64().unwrap();
    let nd = v.ndim() as isize;
    for axis in -nd..nd {
        let k = if axis < 0 { axis + nd } else { axis } as usize;
        let n = v.shape()[k];
        let ls = lanes(v, k);
        for keepdims in [false, true] {
            let what = format!(
                "{ctx}, shape {:?}, axis {axis}, keepdims {keepdims}",
                v.shape()
            );
            let shape = expected_shape(v.shape(), k, keepdims);
            // Value reductions with a bound.
            let sum = v.sum_axis(axis, keepdims).unwrap();
            let mean = v.mean_axis(axis, keepdims).unwrap();
            let prod = v.prod_axis(axis, keepdims).unwrap();
            for r in [&sum, &mean, &prod] {
                assert_eq!(r.shape(), &shape[..], "{what}");
                assert!(r.is_standard_layout(), "{what}");
            }
            let (sum, mean, prod) = (sum.to_vec(), mean.to_vec(), prod.to_vec());
            for (i, lane) in ls.iter().enumerate() {
                let xs: Vec<f64> = lane.iter().map(|x| x.to_f64().unwrap()).collect();
                let abs: f64 = xs.iter().map(|x| x.abs()).sum();
                let exact = matches!(vals, Vals::Int | Vals::Zeros);
                let want: f64 = xs.iter().sum();
                let b = (n as f64 + 2.0) * eps * abs;
                close(&format!("{what}: sum[{i}]"), sum[i], want, exact, b);
                let nf = n as f64;
                let mb = b / nf.max(1.0) + 3.0 * eps * (want / nf).abs();
                close(&format!("{what}: mean[{i}]"), mean[i], want / nf, false, mb);
                if matches!(vals, Vals::Zeros) || n == 0 {
                    // NumPy's sum starts from +0: a sum of zeros is +0.
                    assert_eq!(bits(sum[i]), 0, "{what}: sum[{i}] of zeros must be +0");
                }
                if matches!(vals, Vals::Prod | Vals::Zeros) || n == 0 {
                    let want: f64 = xs.iter().product();
                    let pb = 2.0 * (nf + 2.0) * eps * want.abs();
                    close(&format!("{what}: prod[{i}]"), prod[i], want, false, pb);
                    assert_eq!(
                        prod[i].is_sign_negative(),
                        want.is_sign_negative(),
                        "{what}: prod[{i}] sign"
                    );
                }
            }
            // The extremes: bit for bit the whole-array reductions of each lane.
            let results = [
                v.max_axis(axis, keepdims).map(|a| a.to_vec()),
                v.min_axis(axis, keepdims).map(|a| a.to_vec()),
            ];
            let args = [v.argmax_axis(axis, keepdims), v.argmin_axis(axis, keepdims)];
            if n == 0 {
                for r in &results {
                    assert!(r.is_err(), "{what}: an empty axis must be an error");
                }
                for r in &args {
                    assert!(r.is_err(), "{what}: an empty axis must be an error");
                }
                continue;
            }
            for r in &args {
                assert_eq!(r.as_ref().unwrap().shape(), &shape[..], "{what}");
            }
            for (i, lane) in ls.iter().enumerate() {
                let l = Array::from_vec(lane.clone());
                let want = [l.max().unwrap(), l.min().unwrap()];
                for (o, r) in results.iter().enumerate() {
                    let got = r.as_ref().unwrap()[i];
                    assert_eq!(
                        bits(got),
                        bits(want[o]),
                        "{what}: {}[{i}] = {got:?}, lane {lane:?}",
                        ["max", "min"][o]
                    );
                }
                let want = [l.argmax().unwrap(), l.argmin().unwrap()];
                for (o, r) in args.iter().enumerate() {
                    let got = r.as_ref().unwrap().as_slice().unwrap()[i] as usize;
                    assert_eq!(
                        got,
                        want[o],
                        "{what}: {}[{i}], lane {lane:?}",
                        ["argmax", "argmin"][o]
                    );
                }
            }
        }
    }
}

fn shapes_for_rank(rank: usize) -> Vec<Vec<usize>> {
    match rank {
        1 => vec![vec![1], vec![5], vec![16], vec![37], vec![0]],
        2 => vec![
            vec![3, 4],
            vec![1, 7],
            vec![7, 1],
            vec![5, 33],
            vec![33, 5],
            vec![2, 0],
            vec![0, 3],
            vec![4, 40],
        ],
        3 => vec![
            vec![2, 3, 4],
            vec![3, 1, 20],
            vec![2, 17, 3],
            vec![4, 5, 18],
            vec![2, 0, 3],
            vec![1, 1, 1],
        ],
        4 => vec![
            vec![2, 3, 2, 3],
            vec![2, 1, 3, 17],
            vec![3, 2, 17, 2],
            vec![1, 2, 0, 2],
        ],
        _ => unreachable!(),
    }
}

fn sweep<T: Element>(seed: u64) {
    let mut rng = Rng(seed);
    for rank in 1..=4 {
        for shape in shapes_for_rank(rank) {
            for kind in 0..4 {
                for vals in [Vals::Int, Vals::Edge, Vals::Prod, Vals::Zeros] {
                    let lay = layout::<T>(&mut rng, &shape, kind, vals);
                    let v = lay.view();
                    assert_eq!(v.shape(), &shape[..]);
                    check_all(&v, vals, &format!("{} layout {kind} {vals:?}", T::DTYPE));
                }
            }
        }
    }
}

#[test]
fn every_axis_every_layout_f64() {
    sweep::<f64>(0x9E37_79B9_7F4A_7C15);
}

#[test]
fn every_axis_every_layout_f32() {
    sweep::<f32>(0xD1B5_4A32_D192_ED03);
}

/// Bands: runs longer than a band (2048 elements), with NaNs and zeros in several
/// bands, on the slab path (contiguous and gathered runs) and the lane path.
#[test]
fn long_runs_cross_bands() {
    let mut rng = Rng(7);
    for shape in [vec![3, 5000], vec![5000, 3], vec![2, 3, 2100]] {
        for kind in 0..4 {
            let lay = layout::<f64>(&mut rng, &shape, kind, Vals::Edge);
            check_all(&lay.view(), Vals::Edge, &format!("long, layout {kind}"));
            let lay = layout::<f32>(&mut rng, &shape, kind, Vals::Zeros);
            check_all(
                &lay.view(),
                Vals::Zeros,
                &format!("long zeros, layout {kind}"),
            );
        }
    }
}

#[test]
fn keepdims_and_negative_axes() {
    let a = Array::<f64>::arange(0.0, 24.0, 1.0)
        .unwrap()
        .into_shape(&[2, 3, 4])
        .unwrap();
    assert_eq!(a.sum_axis(1, true).unwrap().shape(), &[2, 1, 4]);
    assert_eq!(a.sum_axis(1, false).unwrap().shape(), &[2, 4]);
    assert_eq!(
        a.sum_axis(-3, false).unwrap(),
        a.sum_axis(0, false).unwrap()
    );
    assert_eq!(a.max_axis(-1, true).unwrap().shape(), &[2, 3, 1]);
    assert_eq!(
        a.max_axis(-1, false).unwrap().to_vec(),
        vec![3.0, 7.0, 11.0, 15.0, 19.0, 23.0]
    );
    assert_eq!(
        a.sum_axis(1, false).unwrap().to_vec(),
        vec![12.0, 15.0, 18.0, 21.0, 48.0, 51.0, 54.0, 57.0]
    );
    let i = a.argmin_axis(-2, true).unwrap();
    assert_eq!(i.shape(), &[2, 1, 4]);
    assert_eq!(i.as_slice().unwrap(), &[0; 8]);
    assert_eq!(i.get(&[1, 0, 3]), Some(&0));
    assert_eq!(i.get(&[1, 1, 3]), None);
    assert_eq!(i.clone().into_vec(), vec![0; 8]);
    assert_eq!((i.ndim(), i.len(), i.is_empty()), (3, 8, false));
    // 1-D to 0-D and back.
    let v = Array::from_vec(vec![2.0, 5.0, 1.0]);
    let m = v.max_axis(0, false).unwrap();
    assert_eq!((m.shape(), m.to_vec()), (&[][..], vec![5.0]));
    assert_eq!(v.max_axis(-1, true).unwrap().shape(), &[1]);
    let i = v.argmax_axis(0, false).unwrap();
    assert_eq!(
        (i.shape(), i.as_slice().unwrap(), i.get(&[])),
        (&[][..], &[1][..], Some(&1))
    );
}

#[test]
fn size_zero() {
    let a = Array::<f64>::zeros(&[2, 0, 3]);
    assert_eq!(a.sum_axis(1, false).unwrap(), Array::zeros(&[2, 3]));
    assert_eq!(a.prod_axis(1, true).unwrap(), Array::ones(&[2, 1, 3]));
    let m = a.mean_axis(1, false).unwrap();
    assert_eq!(m.shape(), &[2, 3]);
    assert!(m.iter().all(|x| x.is_nan()));
    // Another axis empty: an empty result, no error.
    for axis in [0, 2, -1] {
        assert_eq!(a.max_axis(axis, false).unwrap().len(), 0);
        assert_eq!(a.argmin_axis(axis, false).unwrap().len(), 0);
        assert_eq!(a.sum_axis(axis, true).unwrap().len(), 0);
    }
    assert_eq!(a.max_axis(0, false).unwrap().shape(), &[0, 3]);
    assert_eq!(a.argmax_axis(2, true).unwrap().shape(), &[2, 0, 1]);
    // The empty axis itself: an error naming the axis and the shape.
    let msg = |e: Error| e.to_string();
    assert_eq!(
        msg(a.max_axis(1, false).unwrap_err()),
        "max along axis 1 of an array of shape [2, 0, 3] has no value: the axis is empty"
    );
    assert_eq!(
        msg(a.min_axis(-2, true).unwrap_err()),
        "min along axis -2 of an array of shape [2, 0, 3] has no value: the axis is empty"
    );
    assert_eq!(
        msg(a.argmax_axis(1, false).unwrap_err()),
        "argmax along axis 1 of an array of shape [2, 0, 3] has no value: the axis is empty"
    );
    assert_eq!(
        msg(a.argmin_axis(1, false).unwrap_err()),
        "argmin along axis 1 of an array of shape [2, 0, 3] has no value: the axis is empty"
    );
    // Both empty (NumPy raises too).
    assert!(Array::<f32>::zeros(&[0, 0]).max_axis(0, false).is_err());
    assert!(Array::<f32>::zeros(&[0, 0]).argmin_axis(1, false).is_err());
}

#[test]
fn axis_out_of_range() {
    let a = Array::<f64>::zeros(&[2, 3]);
    for axis in [2, -3, 100, isize::MIN] {
        let e = a.sum_axis(axis, false).unwrap_err();
        assert_eq!(e, Error::AxisOutOfRange { axis, ndim: 2 });
        assert!(a.prod_axis(axis, false).is_err());
        assert!(a.mean_axis(axis, true).is_err());
        assert!(a.max_axis(axis, false).is_err());
        assert!(a.min_axis(axis, false).is_err());
        assert!(a.argmax_axis(axis, false).is_err());
        assert!(a.argmin_axis(axis, true).is_err());
    }
    assert_eq!(
        a.max_axis(2, false).unwrap_err().to_string(),
        "axis 2 is out of range for an array with 2 dimensions"
    );
    // A 0-D array has no axis at all.
    let z = Array::from_elem(&[], 1.0f32);
    for axis in [0, -1] {
        assert_eq!(
            z.sum_axis(axis, false).unwrap_err(),
            Error::AxisOutOfRange { axis, ndim: 0 }
        );
        assert!(z.max_axis(axis, true).is_err());
        assert!(z.argmax_axis(axis, false).is_err());
        assert!(z.mean_axis(axis, false).is_err());
    }
}

fn nan_with(payload: u64) -> f64 {
    f64::from_bits(0x7FF8_0000_0000_0000 | payload)
}

/// NaN propagation: the first NaN along the axis, its bits, on every path.
#[test]
fn nan_rules() {
    let (p, q) = (nan_with(0x1234), nan_with(0x5678));
    for cols in [3, 40, 2100] {
        // Column c holds [1, p, q] along axis 0 for c even, [q, 5, p] for c odd.
        let mut v = Vec::new();
        for r in 0..3 {
            for c in 0..cols {
                v.push(match (c % 2, r) {
                    (0, 0) => 1.0,
                    (0, 1) => p,
                    (0, _) => q,
                    (_, 0) => q,
                    (_, 1) => 5.0,
                    _ => p,
                });
            }
        }
        let a = Array::from_shape_vec(&[3, cols], v).unwrap();
        for view in [a.view(), a.t().to_owned().t().to_owned().view()] {
            for m in [view.max_axis(0, false), view.min_axis(0, false)] {
                let m = m.unwrap().to_vec();
                for (c, x) in m.iter().enumerate() {
                    let want = if c % 2 == 0 { p } else { q };
                    assert_eq!(x.to_bits(), want.to_bits(), "cols {cols} col {c}");
                }
            }
            let im = view.argmax_axis(0, false).unwrap();
            let jm = view.argmin_axis(0, false).unwrap();
            for c in 0..cols {
                let want = if c % 2 == 0 { 1 } else { 0 };
                assert_eq!(im.as_slice().unwrap()[c], want);
                assert_eq!(jm.as_slice().unwrap()[c], want);
            }
            assert!(view.sum_axis(0, false).unwrap().iter().all(|x| x.is_nan()));
        }
        // Along the last axis of the transpose: the lane path, same answers.
        let t = a.t().to_owned();
        let m = t.max_axis(1, false).unwrap().to_vec();
        assert_eq!(m[0].to_bits(), p.to_bits());
        assert_eq!(m[1].to_bits(), q.to_bits());
        assert_eq!(
            &t.argmax_axis(1, false).unwrap().as_slice().unwrap()[..2],
            &[1, 0]
        );
    }
    // A NaN after the extreme still wins; the extreme before a NaN does not.
    let a = Array::from_shape_vec(&[3, 20], {
        let mut v = vec![0.0; 60];
        v[0] = 9.0;
        v[40] = f64::NAN;
        v
    })
    .unwrap();
    assert_eq!(a.argmax_axis(0, false).unwrap().as_slice().unwrap()[0], 2);
    assert!(a.max_axis(0, false).unwrap().to_vec()[0].is_nan());
}

/// Signed zeros: max gives +0 over -0 and min -0 under +0 whichever comes first, on
/// the slab path (where the elementwise kernels alone would keep the later zero) and
/// the lane path; argmax/argmin count them equal, so the first wins.
#[test]
fn signed_zero_rules() {
    for cols in [1, 3, 40, 2100, 4500] {
        for (first, second) in [(0.0f64, -0.0), (-0.0, 0.0), (0.0, 0.0), (-0.0, -0.0)] {
            let mut v = vec![first; cols];
            v.extend(vec![second; cols]);
            v.extend(vec![-1.0; cols]);
            let a = Array::from_shape_vec(&[3, cols], v).unwrap();
            let any_pos = first == 0.0 && first.is_sign_positive()
                || second == 0.0 && second.is_sign_positive();
            let any_neg = first.is_sign_negative() || second.is_sign_negative();
            let t = a.t().to_owned();
            for (m, n) in [
                (a.max_axis(0, false), a.min_axis(0, true)),
                (t.max_axis(1, false), t.min_axis(1, true)),
                (a.t().max_axis(1, false), a.t().min_axis(1, true)),
            ] {
                for x in m.unwrap().iter() {
                    assert_eq!(x.is_sign_negative(), !any_pos, "{first} {second} {cols}");
                    assert_eq!(*x, 0.0);
                }
                for x in n.unwrap().iter() {
                    assert_eq!(*x, -1.0);
                }
            }
            // Min over zeros only.
            let z = a.slice(s![..2, ..]).unwrap();
            for x in z.min_axis(0, false).unwrap().iter() {
                assert_eq!(x.is_sign_negative(), any_neg, "{first} {second} {cols}");
            }
            for x in z.t().min_axis(1, false).unwrap().iter() {
                assert_eq!(x.is_sign_negative(), any_neg);
            }
            assert!(z.argmax_axis(0, false).unwrap().iter().all(|&i| i == 0));
            assert!(z.argmin_axis(0, false).unwrap().iter().all(|&i| i == 0));
            assert!(z.t().argmax_axis(1, false).unwrap().iter().all(|&i| i == 0));
            // Sums of zeros are +0 (NumPy's sum starts from +0).
            assert!(z
                .sum_axis(0, false)
                .unwrap()
                .iter()
                .all(|x| x.to_bits() == 0));
            assert!(z
                .t()
                .sum_axis(1, false)
                .unwrap()
                .iter()
                .all(|x| x.to_bits() == 0));
        }
    }
}

/// The documented orders: along a contiguous axis each sum is the whole-array
/// kernel's sum of the row, bit for bit; along a leading axis of a standard array
/// the rows are added in axis order, `((0 + x0) + x1) + ..`.
#[test]
fn summation_orders() {
    let mut rng = Rng(99);
    let (r, c) = (37, 300);
    let v: Vec<f64> = (0..r * c)
        .map(|_| (rng.below(1 << 30) as f64 - (1 << 29) as f64) * 1e-7)
        .collect();
    let a = Array::from_shape_vec(&[r, c], v.clone()).unwrap();
    let rows = a.sum_axis(1, false).unwrap().to_vec();
    for (i, got) in rows.iter().enumerate() {
        let row = a.slice(s![i, ..]).unwrap();
        assert_eq!(got.to_bits(), row.sum().to_bits(), "row {i}");
    }
    let cols = a.sum_axis(0, false).unwrap().to_vec();
    for (j, got) in cols.iter().enumerate() {
        let seq = (0..r).fold(0.0, |s, i| s + v[i * c + j]);
        assert_eq!(got.to_bits(), seq.to_bits(), "col {j}");
    }
    let prods = a.prod_axis(0, false).unwrap().to_vec();
    for (j, got) in prods.iter().enumerate() {
        let seq = (0..r).fold(1.0, |s, i| s * v[i * c + j]);
        assert_eq!(got.to_bits(), seq.to_bits(), "col {j}");
    }
    let means = a.mean_axis(0, false).unwrap().to_vec();
    for (j, got) in means.iter().enumerate() {
        assert_eq!(*got, cols[j] / r as f64);
    }
}

#[test]
fn index_results_are_i64_arrays() {
    let a = Array::from_shape_vec(&[2, 3], vec![1.0, 9.0, 3.0, 8.0, 2.0, 8.0]).unwrap();
    let i: Array<i64> = a.argmax_axis(1, true).unwrap();
    assert_eq!(i.shape(), &[2, 1]);
    assert_eq!(i.get(&[1, 0]), Some(&0));
    assert_eq!(i.get(&[2, 0]), None);
    assert_eq!(i, a.argmax_axis(-1, true).unwrap());
    assert_ne!(i, a.argmax_axis(-1, false).unwrap());
    assert_eq!(
        format!("{:?}", a.argmax_axis(0, false).unwrap().to_vec()),
        "[1, 0, 1]"
    );
}

/// Every op along every axis of `v`, as bits: values for sum..min, indices for
/// argmax/argmin.
fn all_ops_bits(v: &ArrayView<'_, f64>) -> Vec<(String, Vec<u64>)> {
    let mut out = Vec::new();
    for k in 0..v.ndim() as isize {
        let vals = |name: &str, r: Array<f64>| {
            (
                format!("{name}_axis({k})"),
                r.to_vec().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            )
        };
        let idx = |name: &str, r: Array<i64>| {
            (
                format!("{name}_axis({k})"),
                r.iter().map(|&i| i as u64).collect::<Vec<_>>(),
            )
        };
        out.push(vals("sum", v.sum_axis(k, false).unwrap()));
        out.push(vals("prod", v.prod_axis(k, false).unwrap()));
        out.push(vals("mean", v.mean_axis(k, true).unwrap()));
        out.push(vals("max", v.max_axis(k, false).unwrap()));
        out.push(vals("min", v.min_axis(k, false).unwrap()));
        out.push(idx("argmax", v.argmax_axis(k, false).unwrap()));
        out.push(idx("argmin", v.argmin_axis(k, true).unwrap()));
    }
    out
}

/// Large inputs go parallel on the pool; every op along every axis must give the
/// same bits on one thread as on the default pool (output pieces are disjoint and
/// each output element is reduced in an order that does not depend on the split).
#[test]
fn parallel_matches_one_thread_bit_for_bit() {
    let mut rng = Rng(0x05ee_da11);
    for shape in [
        vec![512, 1024],
        vec![1024, 512],
        vec![64, 128, 64],
        vec![40000, 3],
    ] {
        let len: usize = shape.iter().product();
        let mut data: Vec<f64> = (0..len).map(|_| value(&mut rng, Vals::Prod)).collect();
        // NaNs of two payloads and ±0 scattered, plus whole columns of zeros of
        // mixed signs so the max/min zero-sign repair runs.
        for _ in 0..len / 500 {
            let at = rng.below(len);
            data[at] = [f64::NAN, nan_with(0x123), 0.0, -0.0][rng.below(4)];
        }
        let last = *shape.last().unwrap();
        for (i, x) in data.iter_mut().enumerate() {
            if i % last == 1 {
                *x = if (i / last) % 3 == 0 { 0.0 } else { -0.0 };
            }
        }
        let a = Array::from_shape_vec(&shape, data).unwrap();
        let t = a.t();
        let stepped = a.slice(s![..;1, ..;2]).ok();
        let mut views = vec![("standard", a.view()), ("transposed", t)];
        if let (2, Some(st)) = (shape.len(), stepped.as_ref()) {
            views.push(("stepped", st.view()));
        }
        for (layout, v) in &views {
            let one = ndsimd::with_threads(1, || all_ops_bits(v));
            let many = all_ops_bits(v);
            for ((name, x), (_, y)) in one.iter().zip(&many) {
                let first = x.iter().zip(y).position(|(p, q)| p != q);
                assert!(
                    first.is_none() && x.len() == y.len(),
                    "{layout} {shape:?} {name}: 1 thread and {} threads differ at {first:?}",
                    ndsimd::num_threads()
                );
            }
        }
    }
}
