//! `exp` and `log` through the array API: every layout (transposed, sliced,
//! reversed, padded), every form (allocating, `_into` a strided output, in place),
//! and long arrays cut over the pool, each bit-identical to the kernel run on the
//! elements alone (an element's result depends on nothing but its value).

mod common;

use common::{Layout, Rng};
use ndsimd::{Array, Error};
use ndsimd_kernels::KernelElement;

fn value(rng: &mut Rng) -> f64 {
    match rng.below(4) {
        0 => rng.edge_f64(800.0),
        1 => rng.int(-800, 800) as f64 / 3.0,
        _ => rng.int(0, 1 << 20) as f64 / 4096.0,
    }
}

/// The active tier's kernel over `xs` as one contiguous slice.
fn kernel(name: &str, xs: &[f64]) -> Vec<f64> {
    let t = f64::table();
    let op = if name == "exp" { &t.exp } else { &t.log };
    let mut out = vec![0.0; xs.len()];
    (op.map)(xs, &mut out);
    out
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn every_layout_and_form_matches_the_kernel() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..300 {
        let rank = rng.below(4);
        let shape: Vec<usize> = (0..rank)
            .map(|_| [0, 1, 2, 3, 7, 17][rng.below(6)])
            .collect();
        let layout = Layout::new(&mut rng, &shape, &[1, 1, 2, -1, -3], 2, true, value);
        let a = layout.view();
        let xs = a.to_vec();
        for name in ["exp", "log"] {
            let want = bits(&kernel(name, &xs));
            let got = if name == "exp" { a.exp() } else { a.log() };
            assert_eq!(got.shape(), a.shape(), "case {case}");
            assert_eq!(bits(&got.to_vec()), want, "case {case} {name} allocating");
            // `_into` a contiguous output, then a strided view of the same shape.
            let mut out = Array::<f64>::zeros(&shape);
            let r = if name == "exp" {
                a.exp_into(&mut out)
            } else {
                a.log_into(&mut out)
            };
            r.unwrap();
            assert_eq!(bits(&out.to_vec()), want, "case {case} {name} into");
            let out_layout = Layout::new(&mut rng, &shape, &[1, 2, -1], 1, false, |_| -7.0);
            let mut out_base = out_layout.base.clone();
            let mut view = out_base.slice_mut(&out_layout.args[..]).unwrap();
            let r = if name == "exp" {
                a.exp_into(&mut view)
            } else {
                a.log_into(&mut view)
            };
            r.unwrap();
            assert_eq!(bits(&view.to_vec()), want, "case {case} {name} into a view");
            // In place, on a strided view of a larger array.
            let in_layout = Layout::new(&mut rng, &shape, &[1, 2, -1, -3], 2, false, value);
            let mut in_base = in_layout.base.clone();
            let mut inner = in_base.slice_mut(&in_layout.args[..]).unwrap();
            let want_in = bits(&kernel(name, &inner.to_vec()));
            if name == "exp" {
                inner.exp_assign();
            } else {
                inner.log_assign();
            }
            assert_eq!(bits(&inner.to_vec()), want_in, "case {case} {name} assign");
        }
    }
}

#[test]
fn wrong_output_shape_is_an_error_and_leaves_out_alone() {
    let a = Array::from_vec(vec![1.0, 2.0, 3.0]);
    let mut out = Array::from_vec(vec![5.0; 4]);
    let e = a.exp_into(&mut out).unwrap_err();
    assert!(matches!(e, Error::WrongOutputShape { .. }), "{e}");
    let e = a.log_into(&mut out).unwrap_err();
    assert!(e.to_string().contains("[3]"), "{e}");
    assert_eq!(out.to_vec(), vec![5.0; 4]);
}

#[test]
fn long_arrays_on_the_pool_match_one_kernel_call() {
    let mut rng = Rng(7);
    for n in [8191, 8192, 1 << 14, (1 << 16) + 3, 1 << 18] {
        let xs: Vec<f64> = (0..n).map(|_| value(&mut rng)).collect();
        let a = Array::from_vec(xs.clone());
        for name in ["exp", "log"] {
            let want = bits(&kernel(name, &xs));
            let got = if name == "exp" { a.exp() } else { a.log() };
            assert_eq!(bits(&got.to_vec()), want, "{name} n {n}");
            let mut out = Array::<f64>::zeros(&[n]);
            if name == "exp" {
                a.exp_into(&mut out).unwrap();
            } else {
                a.log_into(&mut out).unwrap();
            }
            assert_eq!(bits(&out.to_vec()), want, "{name}_into n {n}");
            let mut b = a.clone();
            if name == "exp" {
                b.exp_assign();
            } else {
                b.log_assign();
            }
            assert_eq!(bits(&b.to_vec()), want, "{name}_assign n {n}");
        }
    }
}

#[test]
fn f32_arrays_too() {
    let a = Array::from_vec(vec![0.0f32, 1.0, -1.0, 88.0, 89.0, f32::NAN]);
    let e = a.exp();
    assert_eq!(e.to_vec()[..2], [1.0, std::f32::consts::E]);
    assert_eq!(e.to_vec()[4], f32::INFINITY);
    assert!(e.to_vec()[5].is_nan());
    let l = a.log().to_vec();
    assert_eq!(l[..2], [f32::NEG_INFINITY, 0.0]);
    assert!(l[2].is_nan() && l[5].is_nan());
}
