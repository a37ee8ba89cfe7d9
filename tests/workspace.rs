//! `Workspace` results and the `_into` forms against the allocating forms: the
//! same bits (NaN payloads aside), on a fresh workspace and on one whose recycled
//! memory was filled with NaN first (so a slot that an operation forgets to clear
//! shows up), for standard and strided inputs and outputs.

mod common;

use common::{same_f64, Rng};
use ndsimd::{s, Array, ArrayView, Workspace};

fn data(rng: &mut Rng, shape: &[usize]) -> Array<f64> {
    let n = shape.iter().product();
    Array::from_shape_vec(shape, (0..n).map(|_| rng.edge_f64(1e300)).collect()).unwrap()
}

fn same(what: &str, got: &ArrayView<'_, f64>, want: &Array<f64>) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    for (i, (g, w)) in got.iter().zip(want.iter()).enumerate() {
        assert!(
            same_f64(*g, *w),
            "{what}: element {i}: got {g:?}, want {w:?}"
        );
    }
}

/// A workspace whose next slots come from memory full of NaN.
fn poisoned() -> Workspace {
    let mut ws = Workspace::with_capacity(1 << 20);
    ws.full(&[(1 << 20) / 8 - 64], f64::NAN).unwrap();
    ws.reset();
    ws
}

#[test]
fn every_workspace_op_matches_its_allocating_form_on_fresh_and_poisoned_memory() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    // A matrix and a strided, transposed view of a bigger one; an empty axis too.
    let a = data(&mut rng, &[37, 70]);
    let big = data(&mut rng, &[90, 60]);
    let b = big.slice(s![..;-2, 3..40]).unwrap().t().to_owned();
    let bv = big.slice(s![..;-2, 3..40]).unwrap();
    let bt = bv.t(); // 37 x 45, strided
    let row = data(&mut rng, &[70]);
    let empty = Array::<f64>::zeros(&[0, 5]);
    let sq = data(&mut rng, &[70, 70]);
    for (label, mut ws) in [("fresh", Workspace::new()), ("poisoned", poisoned())] {
        for round in 0..2 {
            let tag = |op: &str| format!("{label} round {round}: {op}");
            same(
                &tag("add"),
                &ws.add(&a, &row).unwrap().view(),
                &a.add(&row).unwrap(),
            );
            same(
                &tag("sub"),
                &ws.sub(&bt, 2.5).unwrap().view(),
                &bt.sub(2.5).unwrap(),
            );
            same(
                &tag("mul"),
                &ws.mul(&a, &a).unwrap().view(),
                &a.mul(&a).unwrap(),
            );
            same(
                &tag("div"),
                &ws.div(&row, &a).unwrap().view(),
                &row.div(&a).unwrap(),
            );
            same(
                &tag("maximum"),
                &ws.maximum(&a, &row).unwrap().view(),
                &a.maximum(&row).unwrap(),
            );
            same(
                &tag("minimum"),
                &ws.minimum(&bt, &b).unwrap().view(),
                &bt.minimum(&b).unwrap(),
            );
            same(&tag("neg"), &ws.neg(&bt).unwrap().view(), &bt.neg());
            same(&tag("abs"), &ws.abs(&a).unwrap().view(), &a.abs());
            same(&tag("sqrt"), &ws.sqrt(&bt).unwrap().view(), &bt.sqrt());
            same(&tag("exp"), &ws.exp(&bt).unwrap().view(), &bt.exp());
            same(&tag("log"), &ws.log(&bt).unwrap().view(), &bt.log());
            same(&tag("exp2"), &ws.exp2(&bt).unwrap().view(), &bt.exp2());
            same(&tag("log2"), &ws.log2(&bt).unwrap().view(), &bt.log2());
            same(&tag("log10"), &ws.log10(&bt).unwrap().view(), &bt.log10());
            same(&tag("expm1"), &ws.expm1(&bt).unwrap().view(), &bt.expm1());
            same(&tag("log1p"), &ws.log1p(&bt).unwrap().view(), &bt.log1p());
            same(&tag("tanh"), &ws.tanh(&bt).unwrap().view(), &bt.tanh());
            for axis in [0isize, 1, -1] {
                for keep in [false, true] {
                    let t = tag(&format!("axis {axis} keepdims {keep}"));
                    for x in [a.view(), bt.view()] {
                        same(
                            &t,
                            &ws.sum_axis(&x, axis, keep).unwrap().view(),
                            &x.sum_axis(axis, keep).unwrap(),
                        );
                        same(
                            &t,
                            &ws.prod_axis(&x, axis, keep).unwrap().view(),
                            &x.prod_axis(axis, keep).unwrap(),
                        );
                        same(
                            &t,
                            &ws.mean_axis(&x, axis, keep).unwrap().view(),
                            &x.mean_axis(axis, keep).unwrap(),
                        );
                        same(
                            &t,
                            &ws.max_axis(&x, axis, keep).unwrap().view(),
                            &x.max_axis(axis, keep).unwrap(),
                        );
                        same(
                            &t,
                            &ws.min_axis(&x, axis, keep).unwrap().view(),
                            &x.min_axis(axis, keep).unwrap(),
                        );
                    }
                }
            }
            // An empty axis: the identity everywhere (never recycled bytes).
            same(
                &tag("sum of an empty axis"),
                &ws.sum_axis(&empty, 0, false).unwrap().view(),
                &empty.sum_axis(0, false).unwrap(),
            );
            same(
                &tag("prod of an empty axis"),
                &ws.prod_axis(&empty, 0, true).unwrap().view(),
                &empty.prod_axis(0, true).unwrap(),
            );
            same(
                &tag("matmul"),
                &ws.matmul(&sq, &sq).unwrap().view(),
                &sq.matmul(&sq).unwrap(),
            );
            same(
                &tag("matmul strided"),
                &ws.matmul(&bt.t(), &a).unwrap().view(),
                &bt.t().matmul(&a).unwrap(),
            );
            same(
                &tag("dot"),
                &ws.dot(&a, &row).unwrap().view(),
                &a.dot(&row).unwrap(),
            );
            same(
                &tag("dot 1-d"),
                &ws.dot(&row, &row).unwrap().view(),
                &row.dot(&row).unwrap(),
            );
            same(&tag("copy"), &ws.copy(&bt).unwrap().view(), &bt.to_owned());
            same(
                &tag("zeros"),
                &ws.zeros::<f64>(&[3, 4]).unwrap().view(),
                &Array::zeros(&[3, 4]),
            );
            same(
                &tag("full"),
                &ws.full(&[5], -0.0).unwrap().view(),
                &Array::full(&[5], -0.0),
            );
            let c = ws.less(&a, &row).unwrap();
            assert_eq!(
                c.to_vec(),
                a.less(&row).unwrap().to_vec(),
                "{}",
                tag("less")
            );
            let c = ws.greater_equal(&bt, 0.0).unwrap();
            assert_eq!(
                c.to_vec(),
                bt.greater_equal(0.0).unwrap().to_vec(),
                "{}",
                tag("greater_equal")
            );
            // A chain of earlier results.
            let z = ws
                .sqrt(&ws.add(&ws.mul(&a, &row).unwrap(), &a).unwrap())
                .unwrap();
            same(
                &tag("chain"),
                &z.view(),
                &a.mul(&row).unwrap().add(&a).unwrap().sqrt(),
            );
            ws.reset();
        }
    }
}

#[test]
fn a_poisoned_workspace_hands_out_its_nans() {
    let ws = poisoned();
    let e = ws.empty::<f64>(&[1000]).unwrap();
    assert!(e.iter().all(|v| v.is_nan()));
}

#[test]
fn workspace_results_are_aligned_and_reuse_memory_after_reset() {
    let mut ws = Workspace::new();
    let x = Array::from_vec(vec![1.0f32; 100]);
    let mut ptrs = Vec::new();
    for _ in 0..3 {
        let a = ws.add(&x, &x).unwrap();
        let b = ws.mul(&a, 3.0f32).unwrap();
        for r in [&a, &b] {
            assert_eq!(r.as_slice().unwrap().as_ptr() as usize % 64, 0);
        }
        ptrs.push((
            a.as_slice().unwrap().as_ptr(),
            b.as_slice().unwrap().as_ptr(),
        ));
        assert_eq!(b.to_vec(), vec![6.0; 100]);
        ws.reset();
    }
    // The first pass may grow into a bigger chunk; from then on, the same memory.
    assert_eq!(ptrs[1], ptrs[2], "{ptrs:?}");
    let bytes = ws.allocated_bytes();
    for _ in 0..10 {
        let _ = ws.add(&x, &x).unwrap();
        ws.reset();
    }
    assert_eq!(ws.allocated_bytes(), bytes, "a steady loop does not grow");
}

#[test]
fn workspace_errors_name_the_shapes() {
    let ws = Workspace::new();
    let a = Array::<f64>::zeros(&[2, 3]);
    let b = Array::<f64>::zeros(&[4]);
    assert_eq!(
        ws.add(&a, &b).unwrap_err().to_string(),
        "operands could not be broadcast together in add: shapes [2, 3] and [4]"
    );
    assert!(ws
        .matmul(&a, &a)
        .unwrap_err()
        .to_string()
        .contains("[2, 3]"));
    assert!(ws.sum_axis(&a, 2, false).is_err());
    assert!(ws
        .max_axis(&Array::<f64>::zeros(&[0, 2]), 0, false)
        .is_err());
    assert!(ws
        .dot(&Array::<f64>::zeros(&[2, 2, 2]), &a)
        .unwrap_err()
        .to_string()
        .contains("more than 2"));
    assert!(ws.zeros::<f64>(&[1 << 62, 4]).is_err());
}

#[test]
fn into_forms_match_the_allocating_forms_with_any_output_layout() {
    let mut rng = Rng(7);
    let a = data(&mut rng, &[33, 20]);
    let b = data(&mut rng, &[20, 17]);
    let v = data(&mut rng, &[20]);
    for axis in [0isize, 1] {
        for keep in [false, true] {
            let want = a.sum_axis(axis, keep).unwrap();
            // Standard and transposed (strided) outputs, pre-filled with NaN.
            let mut out = Array::from_elem(want.shape(), f64::NAN);
            a.sum_axis_into(axis, keep, &mut out).unwrap();
            same("sum_axis_into", &out.view(), &want);
            if want.ndim() == 2 {
                let mut t = Array::from_elem(&[want.shape()[1], want.shape()[0]], f64::NAN);
                a.max_axis_into(axis, keep, &mut t.view_mut().reversed_axes())
                    .unwrap();
                same(
                    "max_axis_into, transposed out",
                    &t.t(),
                    &a.max_axis(axis, keep).unwrap(),
                );
            }
            let mut out = Array::from_elem(want.shape(), f64::NAN);
            a.mean_axis_into(axis, keep, &mut out).unwrap();
            same(
                "mean_axis_into",
                &out.view(),
                &a.mean_axis(axis, keep).unwrap(),
            );
            let mut i = Array::<i64>::zeros(want.shape());
            a.argmax_axis_into(axis, keep, &mut i).unwrap();
            assert_eq!(i, a.argmax_axis(axis, keep).unwrap());
            a.argmin_axis_into(axis, keep, &mut i).unwrap();
            assert_eq!(i, a.argmin_axis(axis, keep).unwrap());
        }
    }
    let mut o = Array::from_elem(&[33, 17], f64::NAN);
    a.dot_into(&b, &mut o).unwrap();
    same("dot_into", &o.view(), &a.dot(&b).unwrap());
    let mut o = Array::from_elem(&[33], f64::NAN);
    a.dot_into(&v, &mut o).unwrap();
    same("dot_into matvec", &o.view(), &a.dot(&v).unwrap());
    let mut o = Array::from_elem(&[33, 33], f64::NAN);
    a.inner_into(&a, &mut o).unwrap();
    same("inner_into", &o.view(), &a.inner(&a).unwrap());
    let mut o = Array::from_elem(&[33, 33], f64::NAN);
    a.inner_into(&a, &mut o.view_mut().reversed_axes()).unwrap();
    same("inner_into, transposed out", &o.t(), &a.inner(&a).unwrap());
    let mut o = Array::from_elem(&[20, 20], f64::NAN);
    v.outer_into(&v, &mut o).unwrap();
    same("outer_into", &o.view(), &v.outer(&v).unwrap());
}

#[test]
fn into_forms_refuse_a_wrong_output_naming_both_shapes() {
    let a = Array::<f64>::zeros(&[3, 4]);
    let mut out = Array::<f64>::zeros(&[4]);
    let msg = "output array has shape [4] but the result has shape [3]";
    assert_eq!(
        a.sum_axis_into(1, false, &mut out).unwrap_err().to_string(),
        msg
    );
    assert_eq!(
        a.min_axis_into(1, false, &mut out).unwrap_err().to_string(),
        msg
    );
    let msg = "output array has shape [4] but the result has shape [3, 1]";
    assert_eq!(
        a.mean_axis_into(1, true, &mut out).unwrap_err().to_string(),
        msg
    );
    let mut i = Array::<i64>::zeros(&[4]);
    assert_eq!(
        a.argmax_axis_into(1, false, &mut i)
            .unwrap_err()
            .to_string(),
        "output array has shape [4] but the result has shape [3]"
    );
    let mut o = Array::<f64>::zeros(&[3, 3]);
    assert_eq!(
        a.inner_into(&a, &mut o.view_mut().slice_move(s![.., ..2]).unwrap())
            .unwrap_err()
            .to_string(),
        "output array has shape [3, 2] but the result has shape [3, 3]"
    );
    assert_eq!(
        a.outer_into(&a, &mut o).unwrap_err().to_string(),
        "output array has shape [3, 3] but the result has shape [12, 12]"
    );
    assert_eq!(
        a.copy_into(&mut o).unwrap_err().to_string(),
        "output array has shape [3, 3] but the result has shape [3, 4]"
    );
    assert!(a.dot_into(&a, &mut o).is_err());
}
