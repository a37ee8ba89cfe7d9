//! Broadcasting arithmetic against a naive reference, over random shapes and
//! layouts (transposed, sliced, reversed), in every form: allocating, `_into` a
//! strided output, in place, and the operators.

mod common;

use common::{same_f64 as same, Layout, Rng};
use ndsimd::{Array, ArrayView, Error, SliceArg};

/// A random value, one in eight an IEEE edge case.
fn value(rng: &mut Rng) -> f64 {
    rng.edge_f64(f64::MAX)
}

/// A random strided view of `shape`: steps 1, 2, -1, -3, padding, permuted storage.
fn random_layout(rng: &mut Rng, shape: &[usize]) -> Layout<f64> {
    Layout::new(rng, shape, &[1, 1, 2, -1, -3], 2, true, value)
}

fn random_shape(rng: &mut Rng, max_rank: usize) -> Vec<usize> {
    let rank = rng.below(max_rank + 1);
    (0..rank)
        .map(|_| [0, 1, 1, 2, 3, 5][rng.below(6)])
        .collect()
}

/// A shape that broadcasts with `s`: drop leading axes, set some to 1.
fn compatible(rng: &mut Rng, s: &[usize]) -> Vec<usize> {
    let drop = rng.below(s.len() + 1);
    let mut t: Vec<usize> = s[drop..].to_vec();
    for d in t.iter_mut() {
        if rng.below(3) == 0 {
            *d = 1;
        }
    }
    if rng.below(4) == 0 {
        let mut lead = vec![1usize; rng.below(2) + 1];
        lead.extend(t);
        t = lead;
    }
    t
}

/// The reference: element by element through checked indexing.
fn reference(
    a: &ArrayView<f64>,
    b: &ArrayView<f64>,
    f: fn(f64, f64) -> f64,
) -> Option<(Vec<usize>, Vec<f64>)> {
    let (sa, sb) = (a.shape(), b.shape());
    let n = sa.len().max(sb.len());
    let mut shape = vec![0; n];
    for i in 0..n {
        let da = if i + sa.len() >= n {
            sa[i + sa.len() - n]
        } else {
            1
        };
        let db = if i + sb.len() >= n {
            sb[i + sb.len() - n]
        } else {
            1
        };
        shape[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return None;
        };
    }
    let size: usize = shape.iter().product();
    let mut out = Vec::with_capacity(size);
    let mut idx = vec![0usize; n];
    for _ in 0..size {
        let pick = |s: &[usize]| -> Vec<usize> {
            (0..s.len())
                .map(|k| if s[k] == 1 { 0 } else { idx[n - s.len() + k] })
                .collect()
        };
        let x = *a.get(&pick(sa)).unwrap();
        let y = *b.get(&pick(sb)).unwrap();
        out.push(f(x, y));
        for ax in (0..n).rev() {
            idx[ax] += 1;
            if idx[ax] < shape[ax] {
                break;
            }
            idx[ax] = 0;
        }
    }
    Some((shape, out))
}

fn check(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(same(*g, *w), "{what}: element {i}: got {g:?}, want {w:?}");
    }
}

type Op = (&'static str, fn(f64, f64) -> f64);
const OPS: [Op; 4] = [
    ("add", |x, y| x + y),
    ("sub", |x, y| x - y),
    ("mul", |x, y| x * y),
    ("div", |x, y| x / y),
];

fn run_op(name: &str, a: &ArrayView<f64>, b: &ArrayView<f64>) -> Result<Array<f64>, Error> {
    match name {
        "add" => a.add(b),
        "sub" => a.sub(b),
        "mul" => a.mul(b),
        _ => a.div(b),
    }
}

/// `a op b` through the operator (`&a + &b`, ...).
fn operator(name: &str, a: &ArrayView<f64>, b: &ArrayView<f64>) -> Array<f64> {
    match name {
        "add" => a + b,
        "sub" => a - b,
        "mul" => a * b,
        _ => a / b,
    }
}

fn run_into(
    name: &str,
    a: &ArrayView<f64>,
    b: &ArrayView<f64>,
    out: &mut ndsimd::ArrayViewMut<f64>,
) -> Result<(), Error> {
    match name {
        "add" => a.add_into(b, out),
        "sub" => a.sub_into(b, out),
        "mul" => a.mul_into(b, out),
        _ => a.div_into(b, out),
    }
}

#[test]
fn broadcasting_every_form_matches_reference() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let mut compared = 0;
    for case in 0..1500 {
        let sa = random_shape(&mut rng, 5);
        let sb = if rng.below(2) == 0 {
            compatible(&mut rng, &sa)
        } else {
            random_shape(&mut rng, 3)
        };
        let (sa, sb) = if rng.below(2) == 0 {
            (sa, sb)
        } else {
            (sb, sa)
        };
        let la = random_layout(&mut rng, &sa);
        let lb = random_layout(&mut rng, &sb);
        let (a, b) = (la.view(), lb.view());
        let (name, f) = OPS[case % 4];
        let what = format!("case {case}: {name} {sa:?} {sb:?}");
        match reference(&a, &b, f) {
            None => {
                let e = run_op(name, &a, &b).unwrap_err();
                let msg = e.to_string();
                assert!(
                    msg.contains(&format!("{sa:?}")) && msg.contains(&format!("{sb:?}")),
                    "{what}: {msg}"
                );
            }
            Some((shape, want)) => {
                compared += 1;
                let got = run_op(name, &a, &b).unwrap();
                assert_eq!(got.shape(), &shape[..], "{what}");
                check(&got.to_vec(), &want, &what);

                // Into a strided, reversed output view.
                let lo = random_layout(&mut rng, &shape);
                let mut obase = lo.base.clone();
                {
                    let mut ov = obase
                        .view_mut()
                        .permuted_axes(&lo.perm)
                        .unwrap()
                        .slice_move(&lo.args[..])
                        .unwrap();
                    run_into(name, &a, &b, &mut ov).unwrap();
                    check(&ov.to_vec(), &want, &format!("{what} into"));
                }
                // Elements of the base outside the view are untouched.
                let touched = {
                    let mut marker = Array::<f64>::zeros(lo.base.shape());
                    let mut mv = marker
                        .view_mut()
                        .permuted_axes(&lo.perm)
                        .unwrap()
                        .slice_move(&lo.args[..])
                        .unwrap();
                    mv.fill(1.0);
                    marker
                };
                for ((o, b0), m) in obase.iter().zip(lo.base.iter()).zip(touched.iter()) {
                    if *m == 0.0 {
                        assert!(same(*o, *b0), "{what}: into wrote outside its view");
                    }
                }

                // In place, when the result has a's shape.
                if shape == sa {
                    let mut abase = la.base.clone();
                    let mut av = abase
                        .view_mut()
                        .permuted_axes(&la.perm)
                        .unwrap()
                        .slice_move(&la.args[..])
                        .unwrap();
                    match name {
                        "add" => av += &b,
                        "sub" => av -= &b,
                        "mul" => av *= &b,
                        _ => av /= &b,
                    }
                    check(&av.to_vec(), &want, &format!("{what} in place"));
                }

                // Operators.
                let op = operator(name, &a, &b);
                check(&op.to_vec(), &want, &format!("{what} operator"));
            }
        }
    }
    assert!(compared > 700, "too few compatible cases: {compared}");
}

#[test]
fn scalars_on_either_side() {
    let mut rng = Rng(7);
    for _ in 0..200 {
        let shape = random_shape(&mut rng, 4);
        let l = random_layout(&mut rng, &shape);
        let a = l.view();
        let s = value(&mut rng);
        let want: Vec<f64> = a.iter().map(|&x| x - s).collect();
        check(&a.sub(s).unwrap().to_vec(), &want, "a - s");
        check(&(&a - s).to_vec(), &want, "a - s op");
        let want: Vec<f64> = a.iter().map(|&x| s / x).collect();
        check(&(s / &a).to_vec(), &want, "s / a");
        let want: Vec<f64> = a.iter().map(|&x| -x).collect();
        check(&a.neg().to_vec(), &want, "neg");
        check(&(-&a).to_vec(), &want, "neg op");
        let want: Vec<f64> = a
            .iter()
            .map(|&x| f64::from_bits(x.to_bits() & !(1 << 63)))
            .collect();
        check(&a.abs().to_vec(), &want, "abs");
        let mut o = l.base.clone();
        let mut ov = o
            .view_mut()
            .permuted_axes(&l.perm)
            .unwrap()
            .slice_move(&l.args[..])
            .unwrap();
        let src = ov.to_owned();
        ov.abs_assign();
        check(&ov.to_vec(), &want, "abs_assign strided");
        ov *= 2.0;
        let want2: Vec<f64> = want.iter().map(|x| x * 2.0).collect();
        check(&ov.to_vec(), &want2, "scalar assign strided");
        let mut out = Array::<f64>::zeros(src.shape());
        src.neg_into(&mut out.view_mut()).unwrap();
        check(
            &out.to_vec(),
            &src.iter().map(|&x| -x).collect::<Vec<_>>(),
            "neg_into",
        );
    }
}

#[test]
fn long_strided_runs_cross_gather_blocks() {
    // Runs longer than the engine's gather block, with negative and odd strides.
    let n = 1000;
    let base = Array::<f64>::arange(0.0, (3 * n) as f64, 1.0).unwrap();
    let a = base
        .slice([SliceArg::Slice {
            start: None,
            stop: None,
            step: -3,
        }])
        .unwrap();
    let b = Array::<f64>::arange(0.0, n as f64, 1.0).unwrap();
    let got = a.add(&b).unwrap();
    let want: Vec<f64> = (0..n)
        .map(|i| (3 * n - 1 - 3 * i) as f64 + i as f64)
        .collect();
    assert_eq!(got.to_vec(), want);
    let mut out = Array::<f64>::zeros(&[2 * n]);
    let mut ov = out
        .slice_mut([SliceArg::Slice {
            start: None,
            stop: None,
            step: -2,
        }])
        .unwrap();
    a.add_into(&b, &mut ov).unwrap();
    assert_eq!(ov.to_vec(), want);
}

#[test]
fn f32_and_row_broadcast() {
    let m = Array::<f32>::arange(0.0, 12.0, 1.0)
        .unwrap()
        .into_shape(&[3, 4])
        .unwrap();
    let row = Array::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0]);
    let col = Array::<f32>::from_vec(vec![10.0, 20.0, 30.0])
        .into_shape(&[3, 1])
        .unwrap();
    let r = (&m + &row).to_vec();
    assert_eq!(
        r,
        (0..12)
            .map(|i| i as f32 + (i % 4 + 1) as f32)
            .collect::<Vec<_>>()
    );
    let c = (&m * &col).to_vec();
    assert_eq!(
        c,
        (0..12)
            .map(|i| i as f32 * (10 * (i / 4 + 1)) as f32)
            .collect::<Vec<_>>()
    );
    let owned = m.clone() + &row;
    assert_eq!(owned.to_vec(), r);
}

#[test]
fn errors_name_shapes_and_operators_panic_with_the_same_message() {
    let a = Array::<f64>::zeros(&[2, 3]);
    let b = Array::<f64>::zeros(&[4, 1, 2]);
    let err = a.mul(&b).unwrap_err();
    assert_eq!(
        err.to_string(),
        "operands could not be broadcast together in mul: shapes [2, 3] and [4, 1, 2]"
    );
    let panic = std::panic::catch_unwind(|| &a * &b).unwrap_err();
    assert_eq!(panic.downcast_ref::<String>().unwrap(), &err.to_string());

    let mut out = Array::<f64>::zeros(&[3, 2]);
    let e = a.add_into(&a, &mut out).unwrap_err();
    assert_eq!(
        e,
        Error::WrongOutputShape {
            expected: vec![2, 3],
            found: vec![3, 2]
        }
    );
    assert_eq!(
        e.to_string(),
        "output array has shape [3, 2] but the result has shape [2, 3]"
    );

    // In place may not grow the array.
    let mut small = Array::<f64>::zeros(&[3]);
    let e = small.try_add_assign(&a).unwrap_err();
    assert!(
        e.to_string().contains("[3]") && e.to_string().contains("[2, 3]"),
        "{e}"
    );
    let e2 = std::panic::catch_unwind(move || {
        let mut s = Array::<f64>::zeros(&[3]);
        s += &Array::<f64>::zeros(&[2, 3]);
    })
    .unwrap_err();
    assert_eq!(e2.downcast_ref::<String>().unwrap(), &e.to_string());
}

fn np_maximum(x: f64, y: f64) -> f64 {
    if x.is_nan() || x > y {
        x
    } else {
        y
    }
}

fn np_minimum(x: f64, y: f64) -> f64 {
    if x.is_nan() || x < y {
        x
    } else {
        y
    }
}

/// maximum/minimum copy an input bit for bit (NaN payloads, zero signs), so they
/// are compared exactly, NaN included.
#[test]
fn maximum_minimum_broadcast_bit_exact() {
    let mut rng = Rng(0xfeed);
    for case in 0..600 {
        let sa = random_shape(&mut rng, 4);
        let sb = compatible(&mut rng, &sa);
        let (sa, sb) = if case % 2 == 0 { (sa, sb) } else { (sb, sa) };
        let (la, lb) = (random_layout(&mut rng, &sa), random_layout(&mut rng, &sb));
        let (a, b) = (la.view(), lb.view());
        for (name, f) in [
            ("maximum", np_maximum as fn(f64, f64) -> f64),
            ("minimum", np_minimum),
        ] {
            let Some((shape, want)) = reference(&a, &b, f) else {
                continue;
            };
            let got = if name == "maximum" {
                a.maximum(&b)
            } else {
                a.minimum(&b)
            }
            .unwrap();
            assert_eq!(got.shape(), &shape[..]);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g.to_bits(),
                    w.to_bits(),
                    "case {case} {name} {sa:?} {sb:?} element {i}"
                );
            }
        }
    }
}

#[test]
fn comparisons_broadcast_with_nan_rules() {
    let mut rng = Rng(0xc0ffee);
    type Cmp = fn(f64, f64) -> bool;
    let ops: [(&str, Cmp); 6] = [
        ("equal", |x, y| x == y),
        ("not_equal", |x, y| x != y),
        ("less", |x, y| x < y),
        ("less_equal", |x, y| x <= y),
        ("greater", |x, y| x > y),
        ("greater_equal", |x, y| x >= y),
    ];
    for case in 0..400 {
        let sa = random_shape(&mut rng, 4);
        let sb = compatible(&mut rng, &sa);
        let (la, lb) = (random_layout(&mut rng, &sa), random_layout(&mut rng, &sb));
        let (a, b) = (la.view(), lb.view());
        let s = value(&mut rng);
        for (name, f) in ops {
            let run = |x: &ArrayView<f64>, y: ndsimd::Operand<f64>| -> Array<bool> {
                let y = match y {
                    ndsimd::Operand::Scalar(v) => return cmp_scalar(name, x, v),
                    ndsimd::Operand::Array(v) => v,
                };
                match name {
                    "equal" => x.equal(&y),
                    "not_equal" => x.not_equal(&y),
                    "less" => x.less(&y),
                    "less_equal" => x.less_equal(&y),
                    "greater" => x.greater(&y),
                    _ => x.greater_equal(&y),
                }
                .unwrap()
            };
            // Array against array, through the float reference mapped to 0/1.
            let (shape, _) = reference(&a, &b, |x, _| x).unwrap();
            let got = run(&a, ndsimd::Operand::Array(b.view()));
            assert_eq!(got.shape(), &shape[..]);
            // Check each element through broadcasting by index.
            let gv = got.to_vec();
            let n = shape.len();
            let mut idx = vec![0usize; n];
            for g in &gv {
                let pick = |s: &[usize]| -> Vec<usize> {
                    (0..s.len())
                        .map(|q| if s[q] == 1 { 0 } else { idx[n - s.len() + q] })
                        .collect()
                };
                let x = *a.get(&pick(&sa)).unwrap();
                let y = *b.get(&pick(&sb)).unwrap();
                assert_eq!(*g, f(x, y), "case {case} {name} {x} {y}");
                for ax in (0..n).rev() {
                    idx[ax] += 1;
                    if idx[ax] < shape[ax] {
                        break;
                    }
                    idx[ax] = 0;
                }
            }
            // Array against scalar.
            let gs = run(&a, ndsimd::Operand::Scalar(s));
            let ws: Vec<bool> = a.iter().map(|&x| f(x, s)).collect();
            assert_eq!(gs.to_vec(), ws, "case {case} {name} scalar {s}");
        }
    }
}

fn cmp_scalar(name: &str, x: &ArrayView<f64>, s: f64) -> Array<bool> {
    match name {
        "equal" => x.equal(s),
        "not_equal" => x.not_equal(s),
        "less" => x.less(s),
        "less_equal" => x.less_equal(s),
        "greater" => x.greater(s),
        _ => x.greater_equal(s),
    }
    .unwrap()
}

#[test]
fn sqrt_and_mul_add_on_strided_views() {
    let mut rng = Rng(99);
    for _ in 0..300 {
        let shape = random_shape(&mut rng, 4);
        let (l1, l2) = (
            random_layout(&mut rng, &shape),
            random_layout(&mut rng, &shape),
        );
        let (a, b) = (l1.view(), l2.view());
        let want: Vec<f64> = a.iter().map(|x| x.sqrt()).collect();
        check(&a.sqrt().to_vec(), &want, "sqrt");
        let s = value(&mut rng);
        let got = a.mul_add(&b, s).unwrap();
        let want: Vec<f64> = a
            .iter()
            .zip(b.iter())
            .map(|(x, y)| x.mul_add(*y, s))
            .collect();
        check(&got.to_vec(), &want, "mul_add");
        let mut o = l1.base.clone();
        let mut ov = o
            .view_mut()
            .permuted_axes(&l1.perm)
            .unwrap()
            .slice_move(&l1.args[..])
            .unwrap();
        b.mul_add_into(s, &a, &mut ov).unwrap();
        let want: Vec<f64> = b
            .iter()
            .zip(a.iter())
            .map(|(y, x)| y.mul_add(s, *x))
            .collect();
        check(&ov.to_vec(), &want, "mul_add_into strided");
    }
    let a = Array::<f64>::zeros(&[2, 3]);
    let e = a.mul_add(&Array::<f64>::zeros(&[4]), 1.0).unwrap_err();
    assert!(
        e.to_string().contains("[2, 3]") && e.to_string().contains("[4]"),
        "{e}"
    );
}

#[test]
fn reductions_on_any_layout() {
    let mut rng = Rng(4242);
    for _ in 0..400 {
        let shape = random_shape(&mut rng, 4);
        let l = random_layout(&mut rng, &shape);
        let a = l.view();
        let v = a.to_vec();
        if v.is_empty() {
            assert_eq!(a.sum().to_bits(), 0.0f64.to_bits());
            assert_eq!(a.prod(), 1.0);
            assert!(a.mean().is_nan());
            assert!(
                a.max().is_err() && a.min().is_err() && a.argmax().is_err() && a.argmin().is_err()
            );
            continue;
        }
        // argmax/argmin: first NaN, else first index equal to the extreme.
        let first_nan = v.iter().position(|x| x.is_nan());
        let want_am = first_nan.unwrap_or_else(|| {
            let m = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            v.iter().position(|&x| x == m).unwrap()
        });
        assert_eq!(a.argmax().unwrap(), want_am, "{v:?}");
        let want_an = first_nan.unwrap_or_else(|| {
            let m = v.iter().cloned().fold(f64::INFINITY, f64::min);
            v.iter().position(|&x| x == m).unwrap()
        });
        assert_eq!(a.argmin().unwrap(), want_an, "{v:?}");
        let mx = a.max().unwrap();
        match first_nan {
            Some(i) => assert_eq!(mx.to_bits(), v[i].to_bits()),
            None => assert_eq!(mx, v[want_am]),
        }
        // sum: within the documented bound of an exactly rounded reference.
        if v.iter().all(|x| x.is_finite() && x.abs() < 1e300) {
            let abs: f64 = v.iter().map(|x| x.abs()).sum();
            let exact = neumaier(&v);
            let bound = (v.len() as f64 / 32.0 + 7.0) * f64::EPSILON * abs * 2.0;
            assert!((a.sum() - exact).abs() <= bound, "{} vs {exact}", a.sum());
        }
    }
    // Integer-valued data sums exactly, whatever the layout.
    let base = Array::<f64>::arange(-500.0, 1500.0, 1.0).unwrap();
    let rev = base
        .slice([SliceArg::Slice {
            start: None,
            stop: None,
            step: -3,
        }])
        .unwrap();
    let want: f64 = rev.iter().sum();
    assert_eq!(rev.sum(), want);
    assert_eq!(
        rev.vdot(&rev).unwrap(),
        rev.iter().map(|x| x * x).sum::<f64>()
    );
    assert_eq!(
        Array::from_vec(vec![-0.0f64]).sum().to_bits(),
        0.0f64.to_bits()
    );
    let d = Array::<f64>::zeros(&[2, 2]);
    assert!(d.vdot(&Array::<f64>::zeros(&[3])).is_err());
}

/// Compensated (Neumaier) summation: a reference accurate to about one rounding.
fn neumaier(v: &[f64]) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for &x in v {
        let t = s + x;
        c += if s.abs() >= x.abs() {
            (s - t) + x
        } else {
            (x - t) + s
        };
        s = t;
    }
    s + c
}

/// Large reductions split over the pool: max/min/argmax/argmin are exact whatever
/// the thread count (first NaN, zero rule, first index), sums stay in the bound.
#[test]
fn parallel_reductions_match_one_thread() {
    use ndsimd_kernels::pool::with_threads;
    let n = 300_000;
    let mut rng = Rng(777);
    let base: Vec<f64> = (0..n)
        .map(|_| (rng.below(2001) as f64 - 1000.0) / 8.0)
        .collect();
    let mut cases: Vec<Vec<f64>> = vec![base.clone()];
    for &at in &[0usize, 1, 65_535, 65_536, 150_000, n - 1] {
        let mut v = base.clone();
        v[at] = f64::from_bits(0x7ff8_0000_0000_0000 | at as u64);
        if at + 70_000 < n {
            v[at + 70_000] = f64::from_bits(0xfff8_0000_0000_0001);
        }
        cases.push(v);
    }
    // The maximum (125.0) repeated in several pieces: the first index must win.
    let mut ties = base.clone();
    for &at in &[10usize, 100_000, 299_000] {
        ties[at] = 200.0;
    }
    cases.push(ties);
    let mut zeros = vec![-0.0f64; n];
    zeros[250_000] = 0.0;
    cases.push(zeros);
    for v in cases {
        let a = Array::from_vec(v.clone());
        let one = with_threads(1, || {
            (
                a.max().unwrap(),
                a.min().unwrap(),
                a.argmax().unwrap(),
                a.argmin().unwrap(),
                a.sum(),
            )
        });
        let many = (
            a.max().unwrap(),
            a.min().unwrap(),
            a.argmax().unwrap(),
            a.argmin().unwrap(),
            a.sum(),
        );
        assert_eq!(one.0.to_bits(), many.0.to_bits());
        assert_eq!(one.1.to_bits(), many.1.to_bits());
        assert_eq!((one.2, one.3), (many.2, many.3));
        let first_nan = v.iter().position(|x| x.is_nan());
        if let Some(i) = first_nan {
            assert_eq!(many.2, i);
            assert_eq!(many.0.to_bits(), v[i].to_bits());
        } else {
            let m = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(many.2, v.iter().position(|&x| x == m).unwrap());
            let abs: f64 = v.iter().map(|x| x.abs()).sum();
            let bound = (n as f64 / 32.0 + 6.0 + 64.0) * f64::EPSILON * abs;
            assert!((many.4 - neumaier(&v)).abs() <= bound);
            // Integer-valued eighths: exact on one thread and on many.
            assert_eq!(one.4, neumaier(&v));
            assert_eq!(many.4, neumaier(&v));
        }
    }
    let z = Array::from_vec({
        let mut z = vec![-0.0f64; n];
        z[250_000] = 0.0;
        z
    });
    assert_eq!(z.max().unwrap().to_bits(), 0.0f64.to_bits());
    assert_eq!(z.min().unwrap().to_bits(), (-0.0f64).to_bits());
}

/// Elementwise ops split over the pool give the same bits as one thread.
#[test]
fn parallel_elementwise_matches_one_thread() {
    use ndsimd_kernels::pool::with_threads;
    let n = 200_003;
    let mut rng = Rng(31337);
    let a = Array::from_vec((0..n).map(|_| value(&mut rng)).collect());
    let b = Array::from_vec((0..n).map(|_| value(&mut rng)).collect());
    let one = with_threads(1, || {
        (
            a.div(&b).unwrap(),
            a.sqrt(),
            a.maximum(&b).unwrap(),
            a.mul(2.5).unwrap(),
        )
    });
    let many = (
        a.div(&b).unwrap(),
        a.sqrt(),
        a.maximum(&b).unwrap(),
        a.mul(2.5).unwrap(),
    );
    for (x, y) in [
        (&one.0, &many.0),
        (&one.1, &many.1),
        (&one.2, &many.2),
        (&one.3, &many.3),
    ] {
        assert!(x
            .iter()
            .zip(y.iter())
            .all(|(p, q)| p.to_bits() == q.to_bits()));
    }
}

/// New broadcast results with runs long enough to be written straight into a fresh
/// allocation (no zeroing pass): every way an operand can lie along the run (a row
/// of the result, a broadcast row, one value per run on either side), 2-D and 3-D,
/// small and large enough for the pool, every operation and the operators, on one
/// thread and on the pool, against the index-by-index reference.
#[test]
fn long_runs_broadcast_into_new_arrays() {
    use ndsimd_kernels::pool::with_threads;
    let mut rng = Rng(0x5eed_0fb0_a5a5);
    let pairs: [(&[usize], &[usize]); 10] = [
        (&[5, 100], &[100]),
        (&[100], &[5, 100]),
        (&[5, 100], &[5, 1]),
        (&[5, 1], &[5, 100]),
        (&[1, 100], &[7, 1]),
        (&[7, 1], &[1, 100]),
        (&[3, 4, 70], &[4, 70]),
        (&[3, 1, 70], &[1, 4, 70]),
        (&[4, 1, 1], &[1, 3, 80]),
        (&[300, 200], &[300, 1]),
    ];
    for (sa, sb) in pairs {
        let na: usize = sa.iter().product();
        let nb: usize = sb.iter().product();
        let a = Array::from_shape_vec(sa, (0..na).map(|_| value(&mut rng)).collect()).unwrap();
        let b = Array::from_shape_vec(sb, (0..nb).map(|_| value(&mut rng)).collect()).unwrap();
        for (name, f) in OPS {
            let (shape, want) = reference(&a.view(), &b.view(), f).unwrap();
            let what = format!("{name} {sa:?} {sb:?}");
            for threads in [1, 2] {
                let got = with_threads(threads, || run_op(name, &a.view(), &b.view()).unwrap());
                assert_eq!(got.shape(), &shape[..], "{what}");
                check(&got.to_vec(), &want, &format!("{what} {threads} thread(s)"));
            }
            let op = operator(name, &a.view(), &b.view());
            check(&op.to_vec(), &want, &format!("{what} operator"));
        }
        let (shape, want) = reference(&a.view(), &b.view(), np_maximum).unwrap();
        let got = a.maximum(&b).unwrap();
        assert_eq!(got.shape(), &shape[..]);
        check(&got.to_vec(), &want, &format!("maximum {sa:?} {sb:?}"));
    }
}

/// A broadcast over a large standard-layout output is cut into whole runs for the
/// pool: rows, columns and a 3-D mix give the same bits as one thread and as the
/// index-by-index reference.
#[test]
fn parallel_broadcast_matches_reference() {
    use ndsimd_kernels::pool::with_threads;
    let mut rng = Rng(2024);
    for (sa, sb) in [
        (vec![700usize, 300], vec![300usize]),
        (vec![700, 300], vec![700, 1]),
        (vec![40, 50, 60], vec![50, 1]),
        (vec![3, 70_000], vec![1, 70_000]),
    ] {
        let na: usize = sa.iter().product();
        let nb: usize = sb.iter().product();
        let a = Array::from_shape_vec(&sa, (0..na).map(|_| value(&mut rng)).collect()).unwrap();
        let b = Array::from_shape_vec(&sb, (0..nb).map(|_| value(&mut rng)).collect()).unwrap();
        let (shape, want) = reference(&a.view(), &b.view(), |x, y| x - y).unwrap();
        let many = a.sub(&b).unwrap();
        let one = with_threads(1, || a.sub(&b).unwrap());
        assert_eq!(many.shape(), &shape[..]);
        check(&many.to_vec(), &want, "parallel broadcast");
        check(&one.to_vec(), &want, "one-thread broadcast");
        let cmp = a.less(&b).unwrap();
        let wantc: Vec<bool> =
            reference(&a.view(), &b.view(), |x, y| if x < y { 1.0 } else { 0.0 })
                .unwrap()
                .1
                .iter()
                .map(|&v| v == 1.0)
                .collect();
        assert_eq!(cmp.to_vec(), wantc);
    }
}

/// A long `vdot` on the pool: exact on integer data for 1, 2 and 3 threads, and
/// within the documented bound on random data (the pieces' grouping may differ).
#[test]
fn parallel_vdot_exact_and_within_bound() {
    use ndsimd_kernels::pool::with_threads;
    let n = 300_007;
    let ints = |seed: u64| -> Vec<f64> {
        let mut rng = Rng(seed);
        (0..n).map(|_| (rng.next() % 41) as f64 - 20.0).collect()
    };
    let (x, y) = (Array::from_vec(ints(5)), Array::from_vec(ints(6)));
    let exact: f64 = x.iter().zip(y.iter()).map(|(p, q)| p * q).sum();
    for threads in [1, 2, 3] {
        assert_eq!(with_threads(threads, || x.vdot(&y).unwrap()), exact);
    }
    let mut rng = Rng(77);
    let a: Vec<f64> = (0..n)
        .map(|_| (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        .collect();
    let b: Vec<f64> = (0..n)
        .map(|_| (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        .collect();
    let (xa, xb) = (Array::from_vec(a.clone()), Array::from_vec(b.clone()));
    let abs: f64 = a.iter().zip(&b).map(|(p, q)| (p * q).abs()).sum();
    let reference: f64 = a.iter().zip(&b).map(|(p, q)| p * q).sum();
    let bound = (n as f64 / 32.0 + 8.0 + 64.0) * f64::EPSILON * abs * 2.0;
    for threads in [1, 2, 3] {
        let got = with_threads(threads, || xa.vdot(&xb).unwrap());
        assert!(
            (got - reference).abs() <= bound,
            "{threads} threads: {got} vs {reference}"
        );
    }
}

/// Contiguous operands that do not start on a cache line (views past the start of
/// their buffers, at the same and at different offsets): the output's head goes
/// through a kernel call of its own, and every element must still be written
/// right, on one thread and split over the pool; the same for the in-place forms.
#[test]
fn outputs_off_a_cache_line_are_written_whole() {
    let mut rng = Rng(77);
    for n in [255usize, 256, 257, 300, 1000, 40_000] {
        for (oa, ob, oo) in [(1usize, 1usize, 1usize), (3, 3, 3), (1, 2, 5), (0, 0, 7)] {
            let fill = |rng: &mut Rng, k: usize| -> Array<f64> {
                Array::from_vec((0..n + k).map(|_| value(rng)).collect())
            };
            let (a, b) = (fill(&mut rng, oa), fill(&mut rng, ob));
            let (va, vb) = (
                a.slice([SliceArg::from(oa as isize..)]).unwrap(),
                b.slice([SliceArg::from(ob as isize..)]).unwrap(),
            );
            let (xa, xb) = (va.to_vec(), vb.to_vec());
            let mut out = Array::<f64>::full(&[n + oo], 123.0);
            for threads in [1usize, 2] {
                ndsimd::with_threads(threads, || {
                    let mut o = out.slice_mut([SliceArg::from(oo as isize..)]).unwrap();
                    va.add_into(&vb, &mut o).unwrap();
                    let want: Vec<f64> = xa.iter().zip(&xb).map(|(x, y)| x + y).collect();
                    check(
                        &o.to_vec(),
                        &want,
                        &format!("add_into n {n} offsets {oa} {ob} {oo}"),
                    );
                    va.mul_into(2.5, &mut o).unwrap();
                    let want: Vec<f64> = xa.iter().map(|x| x * 2.5).collect();
                    check(
                        &o.to_vec(),
                        &want,
                        &format!("mul_into n {n} offsets {oa} {oo}"),
                    );
                    va.sqrt_into(&mut o).unwrap();
                    let want: Vec<f64> = xa.iter().map(|x| x.sqrt()).collect();
                    check(
                        &o.to_vec(),
                        &want,
                        &format!("sqrt_into n {n} offsets {oa} {oo}"),
                    );
                    va.mul_add_into(&vb, &va, &mut o).unwrap();
                    let want: Vec<f64> =
                        xa.iter().zip(&xb).map(|(x, y)| x.mul_add(*y, *x)).collect();
                    check(
                        &o.to_vec(),
                        &want,
                        &format!("mul_add_into n {n} offsets {oa} {ob} {oo}"),
                    );
                    // With scalars: the kernel in blocks, the scalar repeated.
                    va.mul_add_into(2.5, &vb, &mut o).unwrap();
                    let want: Vec<f64> = xa
                        .iter()
                        .zip(&xb)
                        .map(|(x, y)| x.mul_add(2.5, *y))
                        .collect();
                    check(
                        &o.to_vec(),
                        &want,
                        &format!("mul_add_into(2.5, b) n {n} offsets {oa} {oo}"),
                    );
                    va.mul_add_into(&vb, -1.0, &mut o).unwrap();
                    let want: Vec<f64> = xa
                        .iter()
                        .zip(&xb)
                        .map(|(x, y)| x.mul_add(*y, -1.0))
                        .collect();
                    check(
                        &o.to_vec(),
                        &want,
                        &format!("mul_add_into(b, -1) n {n} offsets {oa} {oo}"),
                    );
                    let got = va.mul_add(0.5, 3.0).unwrap();
                    let want: Vec<f64> = xa.iter().map(|x| x.mul_add(0.5, 3.0)).collect();
                    check(
                        &got.to_vec(),
                        &want,
                        &format!("mul_add(0.5, 3) n {n} offset {oa}"),
                    );
                    // A comparison into a bool view off a line, and allocating.
                    let mut flags = Array::from_elem(&[n + oo], true);
                    let mut f = flags.slice_mut([SliceArg::from(oo as isize..)]).unwrap();
                    va.less_into(&vb, &mut f).unwrap();
                    let want: Vec<bool> = xa.iter().zip(&xb).map(|(x, y)| x < y).collect();
                    assert_eq!(f.to_vec(), want, "less_into n {n} offsets {oa} {ob} {oo}");
                    assert_eq!(va.less(&vb).unwrap().to_vec(), want, "less n {n}");
                    let want: Vec<bool> = xa.iter().map(|x| *x >= 0.5).collect();
                    assert_eq!(va.greater_equal(0.5).unwrap().to_vec(), want, "ge n {n}");
                });
            }
            // In place: the contiguous fast path (head apart, pieces on the pool).
            for threads in [1usize, 2] {
                ndsimd::with_threads(threads, || {
                    let mut o = out.slice_mut([SliceArg::from(oo as isize..)]).unwrap();
                    o.as_slice_mut().unwrap().copy_from_slice(&xa);
                    o.try_sub_assign(&vb).unwrap();
                    let want: Vec<f64> = xa.iter().zip(&xb).map(|(x, y)| x - y).collect();
                    check(
                        &o.to_vec(),
                        &want,
                        &format!("sub_assign n {n} offsets {ob} {oo}"),
                    );
                    o.try_div_assign(-4.0).unwrap();
                    let want: Vec<f64> = want.iter().map(|x| x / -4.0).collect();
                    check(&o.to_vec(), &want, &format!("div_assign n {n} offset {oo}"));
                    o.abs_assign();
                    let want: Vec<f64> = want.iter().map(|x| x.abs()).collect();
                    check(&o.to_vec(), &want, &format!("abs_assign n {n} offset {oo}"));
                });
            }
            // The elements before the view are never touched.
            assert!(out.as_slice().unwrap()[..oo].iter().all(|&x| x == 123.0));
        }
    }
}
