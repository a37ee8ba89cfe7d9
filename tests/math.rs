//! `exp`, `log`, `exp2`, `log2`, `log10`, `expm1`, `log1p`, `tanh`, `sin` and `cos`
//! through the array API: every layout (transposed, sliced, reversed, padded), every
//! form (allocating, `_into` a strided output, in place),
//! and long arrays cut over the pool, each bit-identical to the kernel run on the
//! elements alone (an element's result depends on nothing but its value).

mod common;

use common::{Layout, Rng};
use ndsimd::{Array, ArrayBase, Data, DataMut, Error, Result};
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
    let op = match name {
        "exp" => &t.exp,
        "log" => &t.log,
        "exp2" => &t.exp2,
        "log2" => &t.log2,
        "expm1" => &t.expm1,
        "log1p" => &t.log1p,
        "tanh" => &t.tanh,
        "sin" => &t.sin,
        "cos" => &t.cos,
        _ => &t.log10,
    };
    let mut out = vec![0.0; xs.len()];
    (op.map)(xs, &mut out);
    out
}

/// The functions under test.
const NAMES: [&str; 10] = [
    "exp", "log", "exp2", "log2", "log10", "expm1", "log1p", "tanh", "sin", "cos",
];

/// The allocating form of `name`.
fn alloc(name: &str, a: &ArrayBase<impl Data<Elem = f64>>) -> Array<f64> {
    match name {
        "exp" => a.exp(),
        "log" => a.log(),
        "exp2" => a.exp2(),
        "log2" => a.log2(),
        "expm1" => a.expm1(),
        "log1p" => a.log1p(),
        "tanh" => a.tanh(),
        "sin" => a.sin(),
        "cos" => a.cos(),
        _ => a.log10(),
    }
}

/// The `_into` form of `name`.
fn into(
    name: &str,
    a: &ArrayBase<impl Data<Elem = f64>>,
    out: &mut ArrayBase<impl DataMut<Elem = f64>>,
) -> Result<()> {
    match name {
        "exp" => a.exp_into(out),
        "log" => a.log_into(out),
        "exp2" => a.exp2_into(out),
        "log2" => a.log2_into(out),
        "expm1" => a.expm1_into(out),
        "log1p" => a.log1p_into(out),
        "tanh" => a.tanh_into(out),
        "sin" => a.sin_into(out),
        "cos" => a.cos_into(out),
        _ => a.log10_into(out),
    }
}

/// The in-place form of `name`.
fn assign(name: &str, a: &mut ArrayBase<impl DataMut<Elem = f64>>) {
    match name {
        "exp" => a.exp_assign(),
        "log" => a.log_assign(),
        "exp2" => a.exp2_assign(),
        "log2" => a.log2_assign(),
        "expm1" => a.expm1_assign(),
        "log1p" => a.log1p_assign(),
        "tanh" => a.tanh_assign(),
        "sin" => a.sin_assign(),
        "cos" => a.cos_assign(),
        _ => a.log10_assign(),
    }
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
        for name in NAMES {
            let want = bits(&kernel(name, &xs));
            let got = alloc(name, &a);
            assert_eq!(got.shape(), a.shape(), "case {case}");
            assert_eq!(bits(&got.to_vec()), want, "case {case} {name} allocating");
            // `_into` a contiguous output, then a strided view of the same shape.
            let mut out = Array::<f64>::zeros(&shape);
            into(name, &a, &mut out).unwrap();
            assert_eq!(bits(&out.to_vec()), want, "case {case} {name} into");
            let out_layout = Layout::new(&mut rng, &shape, &[1, 2, -1], 1, false, |_| -7.0);
            let mut out_base = out_layout.base.clone();
            let mut view = out_base.slice_mut(&out_layout.args[..]).unwrap();
            into(name, &a, &mut view).unwrap();
            assert_eq!(bits(&view.to_vec()), want, "case {case} {name} into a view");
            // In place, on a strided view of a larger array.
            let in_layout = Layout::new(&mut rng, &shape, &[1, 2, -1, -3], 2, false, value);
            let mut in_base = in_layout.base.clone();
            let mut inner = in_base.slice_mut(&in_layout.args[..]).unwrap();
            let want_in = bits(&kernel(name, &inner.to_vec()));
            assign(name, &mut inner);
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
    for name in NAMES {
        let e = into(name, &a, &mut out).unwrap_err();
        assert!(e.to_string().contains("[3]"), "{name}: {e}");
    }
    assert_eq!(out.to_vec(), vec![5.0; 4]);
}

#[test]
fn long_arrays_on_the_pool_match_one_kernel_call() {
    let mut rng = Rng(7);
    for n in [8191, 8192, 1 << 14, (1 << 16) + 3, 1 << 18] {
        let xs: Vec<f64> = (0..n).map(|_| value(&mut rng)).collect();
        let a = Array::from_vec(xs.clone());
        for name in NAMES {
            let want = bits(&kernel(name, &xs));
            let got = alloc(name, &a);
            assert_eq!(bits(&got.to_vec()), want, "{name} n {n}");
            let mut out = Array::<f64>::zeros(&[n]);
            into(name, &a, &mut out).unwrap();
            assert_eq!(bits(&out.to_vec()), want, "{name}_into n {n}");
            let mut b = a.clone();
            assign(name, &mut b);
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

#[test]
fn exp2_log2_log10_values() {
    let a = Array::from_vec(vec![0.0f32, 1.0, 1024.0, -1.0, f32::INFINITY]);
    assert_eq!(a.log2().to_vec()[..3], [f32::NEG_INFINITY, 0.0, 10.0]);
    assert!(a.log10().to_vec()[3].is_nan());
    assert_eq!(a.log10().to_vec()[4], f32::INFINITY);
    assert_eq!(a.exp2().to_vec()[..2], [1.0, 2.0]);
    let b = Array::from_vec(vec![1e-300, 0.001, 1e22]);
    assert_eq!(b.log10().to_vec(), [-300.0, -3.0, 22.0]);
    assert_eq!(
        Array::from_vec(vec![-1074.0, 1023.0]).exp2().to_vec(),
        [f64::from_bits(1), 2f64.powi(1023)]
    );
}

#[test]
fn expm1_log1p_tanh_values() {
    // Exact near 0 where exp(x) - 1 and log(1 + x) give 0; -0 kept; NumPy's edges.
    let a = Array::from_vec(vec![1e-20, -0.0, f64::NEG_INFINITY, 1000.0, f64::NAN]);
    let e = a.expm1().to_vec();
    assert_eq!(e[..4], [1e-20, 0.0, -1.0, f64::INFINITY]);
    assert!(e[1].is_sign_negative() && e[4].is_nan());
    let l = a.log1p().to_vec();
    assert_eq!(l[..2], [1e-20, 0.0]);
    assert!(l[1].is_sign_negative() && l[2].is_nan() && l[4].is_nan());
    let t = a.tanh().to_vec();
    assert_eq!(t[..4], [1e-20, 0.0, -1.0, 1.0]);
    assert!(t[1].is_sign_negative() && t[4].is_nan());
    let b = Array::from_vec(vec![-1.0f32, -2.0, 1e-30, 9.5]);
    assert_eq!(b.log1p().to_vec()[0], f32::NEG_INFINITY);
    assert!(b.log1p().to_vec()[1].is_nan());
    assert_eq!(b.expm1().to_vec()[2], 1e-30);
    assert_eq!(b.tanh().to_vec()[2..], [1e-30, 1.0]);
}

/// `pow` broadcasts as NumPy (a matrix to a row and to a column), and every form
/// (allocating, `_into` a strided view, in place, the scalar `powf` forms) gives
/// the bits of the kernel on the elements alone.
#[test]
fn pow_broadcasts_and_every_form_matches_the_kernel() {
    let t = f64::table();
    let kernel = |x: &[f64], y: &[f64]| {
        let mut o = vec![0.0; x.len()];
        (t.pow.vv)(x, y, &mut o);
        o
    };
    let m = Array::from_shape_vec(&[2, 3], vec![0.5, -2.0, 3.0, 9.0, 1.5, -0.0]).unwrap();
    let row = Array::from_vec(vec![2.0, 3.0, -1.0]);
    let col = Array::from_shape_vec(&[2, 1], vec![0.5, -2.0]).unwrap();
    let r = m.pow(&row).unwrap();
    assert_eq!(r.shape(), &[2, 3]);
    let want = kernel(&m.to_vec(), &[2.0, 3.0, -1.0, 2.0, 3.0, -1.0]);
    assert_eq!(bits(&r.to_vec()), bits(&want));
    assert_eq!(r.to_vec()[..3], [0.25, -8.0, 1.0 / 3.0]);
    assert_eq!(r.to_vec()[5], f64::NEG_INFINITY); // -0 to the power -1
    let c = m.pow(&col).unwrap();
    let want = kernel(&m.to_vec(), &[0.5, 0.5, 0.5, -2.0, -2.0, -2.0]);
    assert_eq!(bits(&c.to_vec()), bits(&want));
    assert!(c.to_vec()[1].is_nan()); // negative to a non-integer power
    let e = m.pow(&Array::<f64>::zeros(&[4])).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
    // Into a transposed (strided) output, and in place on a transposed view.
    let mut out = Array::<f64>::zeros(&[3, 2]);
    let mut view = out.view_mut().reversed_axes();
    m.pow_into(&row, &mut view).unwrap();
    assert_eq!(bits(&view.to_vec()), bits(&r.to_vec()));
    let mut acc = m.clone();
    acc.try_pow_assign(&row).unwrap();
    assert_eq!(bits(&acc.to_vec()), bits(&r.to_vec()));
    assert!(acc.try_pow_assign(&Array::<f64>::ones(&[3, 2, 3])).is_err());
    // The scalar exponent: pow with a scalar, powf, powf_into, powf_assign.
    let mt = m.t();
    let want = kernel(&mt.to_vec(), &[2.5; 6]);
    assert_eq!(bits(&mt.pow(2.5).unwrap().to_vec()), bits(&want));
    assert_eq!(bits(&mt.powf(2.5).to_vec()), bits(&want));
    let mut o = Array::<f64>::zeros(&[3, 2]);
    mt.powf_into(2.5, &mut o).unwrap();
    assert_eq!(bits(&o.to_vec()), bits(&want));
    let e = mt
        .powf_into(2.5, &mut Array::<f64>::zeros(&[2, 3]))
        .unwrap_err();
    assert!(e.to_string().contains("[3, 2]"), "{e}");
    let mut b = m.clone();
    b.view_mut().reversed_axes().powf_assign(2.5);
    assert_eq!(bits(&b.t().to_vec()), bits(&want));
    // Long arrays cut over the pool: the same bits as one kernel call.
    let mut rng = Rng(11);
    for n in [8191, (1 << 16) + 3] {
        let xs: Vec<f64> = (0..n).map(|_| value(&mut rng)).collect();
        let a = Array::from_vec(xs.clone());
        let want = kernel(&xs, &vec![1.75; n]);
        assert_eq!(bits(&a.powf(1.75).to_vec()), bits(&want), "n {n}");
        let mut o = Array::<f64>::zeros(&[n]);
        a.powf_into(1.75, &mut o).unwrap();
        assert_eq!(bits(&o.to_vec()), bits(&want), "into n {n}");
        let mut c = a.clone();
        c.powf_assign(1.75);
        assert_eq!(bits(&c.to_vec()), bits(&want), "assign n {n}");
        assert_eq!(bits(&a.pow(&a).unwrap().to_vec()), bits(&kernel(&xs, &xs)));
    }
    // f32 too.
    let a32 = Array::from_vec(vec![2.0f32, -2.0, 0.0]);
    assert_eq!(a32.powf(3.0).to_vec(), [8.0, -8.0, 0.0]);
}
