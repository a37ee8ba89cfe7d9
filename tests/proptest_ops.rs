//! Property tests: random chains of operations on random shapes, layouts and views
//! (slices with negative steps, transposes, new axes, broadcast operands) against a
//! naive row-major reference. Elementwise results must match bit for bit (NaN for
//! NaN); sums within `n·ε·Σ|x|`. The kernels run at the process's tier: CI runs
//! this binary once per tier the host has (`NDSIMD_TIER`; the lane `proptest`).
//! `PROPTEST_CASES` sets the number of cases (default 4096: a case takes well
//! under a millisecond).

mod common;

use common::{same_f64 as same, Layout, Rng};
use ndsimd::{Array, ArrayView, SliceArg};
use proptest::prelude::*;

/// A row-major reference array.
#[derive(Clone, Debug)]
struct Ref {
    shape: Vec<usize>,
    data: Vec<f64>,
}

fn c_index(shape: &[usize], idx: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
}

impl Ref {
    fn of(v: &ArrayView<f64>) -> Ref {
        Ref {
            shape: v.shape().to_vec(),
            data: naive_values(v),
        }
    }

    /// `f(index)` over every index of `shape`, in row-major order.
    fn from_fn(shape: &[usize], mut f: impl FnMut(&[usize]) -> f64) -> Ref {
        let n: usize = shape.iter().product();
        let mut data = Vec::with_capacity(n);
        let mut idx = vec![0usize; shape.len()];
        for _ in 0..n {
            data.push(f(&idx));
            for ax in (0..idx.len()).rev() {
                idx[ax] += 1;
                if idx[ax] < shape[ax] {
                    break;
                }
                idx[ax] = 0;
            }
        }
        Ref {
            shape: shape.to_vec(),
            data,
        }
    }

    fn at(&self, idx: &[usize]) -> f64 {
        self.data[c_index(&self.shape, idx)]
    }
}

/// The elements of `v` in row-major order, through checked indexing only.
fn naive_values(v: &ArrayView<f64>) -> Vec<f64> {
    Ref::from_fn(v.shape(), |i| *v.get(i).expect("in range")).data
}

/// A value, one in eight an IEEE edge case.
fn value(rng: &mut Rng) -> f64 {
    rng.edge_f64(1e300)
}

fn assert_same(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(same(g, w), "{what}: element {i}: got {g:?}, want {w:?}");
    }
}

/// One step of a chain: how to view the current array, then what to do with it.
#[derive(Clone, Debug)]
enum Step {
    /// Reverse the axes (`.t()`).
    Transpose,
    /// `..;step` on one axis (negative steps walk backwards).
    Stride { axis: usize, step: isize },
    /// A new axis of length 1 at `axis` (clamped to the rank).
    NewAxis { axis: usize },
    /// A binary op with a broadcast-compatible operand in a random layout.
    Binary { op: usize, seed: u64, form: usize },
    /// A binary op with a scalar on the right.
    Scalar { op: usize, x: i16 },
    /// `neg`, `abs` or `sqrt`.
    Unary { op: usize },
}

type Binary = (&'static str, fn(f64, f64) -> f64);

const BINARY: [Binary; 6] = [
    ("add", |x, y| x + y),
    ("sub", |x, y| x - y),
    ("mul", |x, y| x * y),
    ("div", |x, y| x / y),
    ("maximum", |x, y| {
        if x.is_nan() {
            x
        } else if y.is_nan() || y >= x {
            y
        } else {
            x
        }
    }),
    ("minimum", |x, y| {
        if x.is_nan() {
            x
        } else if y.is_nan() || y <= x {
            y
        } else {
            x
        }
    }),
];

fn binary(op: usize, a: &ArrayView<f64>, b: ArrayView<f64>) -> Array<f64> {
    match op {
        0 => a.add(b),
        1 => a.sub(b),
        2 => a.mul(b),
        3 => a.div(b),
        4 => a.maximum(b),
        _ => a.minimum(b),
    }
    .expect("compatible shapes")
}

fn step_strategy() -> impl Strategy<Value = Step> {
    prop_oneof![
        Just(Step::Transpose),
        (0..4usize, prop::sample::select(vec![-3isize, -2, -1, 2]))
            .prop_map(|(axis, step)| Step::Stride { axis, step }),
        (0..5usize).prop_map(|axis| Step::NewAxis { axis }),
        (0..6usize, any::<u64>(), 0..3usize).prop_map(|(op, seed, form)| Step::Binary {
            op,
            seed: seed | 1,
            form
        }),
        (0..6usize, -8i16..8).prop_map(|(op, x)| Step::Scalar { op, x }),
        (0..3usize).prop_map(|op| Step::Unary { op }),
    ]
}

/// A shape that broadcasts against `s`: leading axes dropped or added, some set to 1.
fn compatible(rng: &mut Rng, s: &[usize]) -> Vec<usize> {
    let drop = rng.below(s.len() + 1);
    let mut t: Vec<usize> = s[drop..]
        .iter()
        .map(|&d| if rng.below(3) == 0 { 1 } else { d })
        .collect();
    if rng.below(4) == 0 && t.len() < 5 {
        t.insert(0, 1);
    }
    t
}

/// Broadcasts `r` to `shape` (which it is compatible with).
fn broadcast(r: &Ref, shape: &[usize]) -> Ref {
    let off = shape.len() - r.shape.len();
    Ref::from_fn(shape, |idx| {
        let j: Vec<usize> = r
            .shape
            .iter()
            .enumerate()
            .map(|(k, &d)| if d == 1 { 0 } else { idx[off + k] })
            .collect();
        r.at(&j)
    })
}

fn broadcast_shape(a: &[usize], b: &[usize]) -> Vec<usize> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let da = if i + a.len() >= n {
                a[i + a.len() - n]
            } else {
                1
            };
            let db = if i + b.len() >= n {
                b[i + b.len() - n]
            } else {
                1
            };
            if da == 1 {
                db
            } else {
                da
            }
        })
        .collect()
}

/// Runs the chain from a base array in a random layout; checks every intermediate.
fn run_chain(shape: Vec<usize>, seed: u64, steps: Vec<Step>) {
    let mut rng = Rng(seed | 1);
    let layout = Layout::new(&mut rng, &shape, &[1, 2, -1, -3], 2, true, value);
    let mut cur: Array<f64> = layout.view().to_owned();
    let mut want = Ref::of(&layout.view());
    assert_same(&cur.to_vec(), &want.data, "start");
    // The current view of `cur` is built fresh for each step from these view steps.
    for (n, step) in steps.iter().enumerate() {
        let what = format!("step {n} {step:?} on {:?}", want.shape);
        let nd = want.shape.len();
        match *step {
            Step::Transpose => {
                let v = cur.t();
                let mut s = want.shape.clone();
                s.reverse();
                let w = Ref::from_fn(&s, |i| {
                    let j: Vec<usize> = i.iter().rev().copied().collect();
                    want.at(&j)
                });
                assert_eq!(v.shape(), &w.shape[..], "{what}");
                assert_same(&v.to_vec(), &w.data, &what);
                // Materialise through an op so later steps run on the permuted layout.
                cur = v.mul(1.0).expect("scalar");
                want = w;
            }
            Step::Stride { axis, step } => {
                if nd == 0 {
                    continue;
                }
                let ax = axis % nd;
                let mut args = vec![SliceArg::from(..); nd];
                args[ax] = SliceArg::from(..).with_step(step);
                let v = cur.slice(&args[..]).expect("a full slice with a step");
                let len = want.shape[ax];
                let (first, stride): (isize, isize) = if step > 0 {
                    (0, step)
                } else {
                    (len as isize - 1, step)
                };
                let count = len.div_ceil(step.unsigned_abs());
                let mut s = want.shape.clone();
                s[ax] = count;
                let w = Ref::from_fn(&s, |i| {
                    let mut j = i.to_vec();
                    j[ax] = (first + i[ax] as isize * stride) as usize;
                    want.at(&j)
                });
                assert_eq!(v.shape(), &w.shape[..], "{what}");
                assert_same(&v.to_vec(), &w.data, &what);
                // An op reading the strided view directly.
                cur = v.add(0.0).expect("scalar");
                want = Ref {
                    shape: w.shape,
                    data: w.data.iter().map(|x| x + 0.0).collect(),
                };
            }
            Step::NewAxis { axis } => {
                if nd >= 5 {
                    continue;
                }
                let at = axis.min(nd);
                let v = cur.insert_axis(at as isize).expect("in range");
                let mut s = want.shape.clone();
                s.insert(at, 1);
                assert_eq!(v.shape(), &s[..], "{what}");
                cur = v.to_owned();
                want.shape = s;
            }
            Step::Binary { op, seed, form } => {
                let mut r = Rng(seed);
                let os = compatible(&mut r, &want.shape);
                let lo = Layout::new(&mut r, &os, &[1, 2, -1, -3], 2, true, value);
                let other = lo.view();
                let oref = Ref::of(&other);
                // Either side may be the broadcast one.
                let swap = form == 2;
                let out_shape = broadcast_shape(&want.shape, &os);
                let (x, y) = (broadcast(&want, &out_shape), broadcast(&oref, &out_shape));
                let f = BINARY[op].1;
                let w: Vec<f64> = if swap {
                    y.data.iter().zip(&x.data).map(|(&a, &b)| f(a, b)).collect()
                } else {
                    x.data.iter().zip(&y.data).map(|(&a, &b)| f(a, b)).collect()
                };
                let got = if swap {
                    binary(op, &other, cur.view())
                } else if form == 1 && out_shape == want.shape {
                    // In place, through a reversed view of the current array.
                    let mut c = cur.clone();
                    let rev: Vec<SliceArg> = vec![SliceArg::from(..).with_step(-1); nd];
                    {
                        let mut m = c.slice_mut(&rev[..]).expect("reversed");
                        let o2 = other.slice(&rev[nd - os.len()..]).expect("reversed");
                        match op {
                            0 => m.try_add_assign(o2),
                            1 => m.try_sub_assign(o2),
                            2 => m.try_mul_assign(o2),
                            3 => m.try_div_assign(o2),
                            4 => m.try_maximum_assign(o2),
                            _ => m.try_minimum_assign(o2),
                        }
                        .expect("same shape");
                    }
                    c
                } else {
                    binary(op, &cur.view(), other)
                };
                assert_eq!(got.shape(), &out_shape[..], "{what} {}", BINARY[op].0);
                assert_same(
                    &got.to_vec(),
                    &w,
                    &format!("{what} {} with {os:?}", BINARY[op].0),
                );
                cur = got;
                want = Ref {
                    shape: out_shape,
                    data: w,
                };
            }
            Step::Scalar { op, x } => {
                let x = f64::from(x) / 4.0;
                let got = binary_scalar(op, &cur.view(), x);
                let f = BINARY[op].1;
                let w: Vec<f64> = want.data.iter().map(|&a| f(a, x)).collect();
                assert_same(&got.to_vec(), &w, &what);
                cur = got;
                want.data = w;
            }
            Step::Unary { op } => {
                let (got, f): (Array<f64>, fn(f64) -> f64) = match op {
                    0 => (cur.neg(), |x: f64| -x),
                    1 => (cur.abs(), f64::abs),
                    _ => (cur.sqrt(), f64::sqrt),
                };
                let w: Vec<f64> = want.data.iter().map(|&a| f(a)).collect();
                assert_same(&got.to_vec(), &w, &what);
                cur = got;
                want.data = w;
            }
        }
        assert_eq!(cur.shape(), &want.shape[..], "{what}");
    }
    check_reductions(&cur, &want);
}

fn binary_scalar(op: usize, a: &ArrayView<f64>, x: f64) -> Array<f64> {
    match op {
        0 => a.add(x),
        1 => a.sub(x),
        2 => a.mul(x),
        3 => a.div(x),
        4 => a.maximum(x),
        _ => a.minimum(x),
    }
    .expect("a scalar broadcasts")
}

/// Sums within `n·ε·Σ|x|` (finite data only: the order of an overflow or of
/// infinities of both signs is not fixed); max and min exact.
fn check_reductions(cur: &Array<f64>, want: &Ref) {
    let finite = want.data.iter().all(|x| x.is_finite());
    let n = want.data.len() as f64;
    if finite {
        let exact: f64 = want.data.iter().sum();
        let mag: f64 = want.data.iter().map(|x| x.abs()).sum();
        let got = cur.sum();
        assert!(
            (got - exact).abs() <= n * f64::EPSILON * mag,
            "sum {got} vs {exact}"
        );
        // Along each axis, on a reversed view.
        for ax in 0..want.shape.len() {
            let rev: Vec<SliceArg> = vec![SliceArg::from(..).with_step(-1); want.shape.len()];
            let v = cur.slice(&rev[..]).expect("reversed");
            let got = v.sum_axis(ax as isize, false).expect("axis in range");
            let mut s = want.shape.clone();
            let len = s.remove(ax);
            let w = Ref::from_fn(&s, |i| {
                let mut j = i.to_vec();
                j.insert(ax, 0);
                (0..len)
                    .map(|k| {
                        j[ax] = len - 1 - k;
                        let jj: Vec<usize> = j
                            .iter()
                            .zip(&want.shape)
                            .map(|(&x, &d)| d - 1 - x)
                            .collect();
                        want.at(&jj)
                    })
                    .sum()
            });
            assert_eq!(got.shape(), &w.shape[..]);
            for (g, e) in got.to_vec().iter().zip(&w.data) {
                assert!(
                    (g - e).abs() <= len as f64 * f64::EPSILON * mag,
                    "sum_axis({ax}) {g} vs {e}"
                );
            }
        }
    }
    if !want.data.is_empty() {
        let nan = want.data.iter().any(|x| x.is_nan());
        let max = cur.max().expect("non-empty");
        let min = cur.min().expect("non-empty");
        if nan {
            assert!(
                max.is_nan() && min.is_nan(),
                "a NaN propagates through max and min"
            );
        } else {
            let m = want.data.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let l = want.data.iter().copied().fold(f64::INFINITY, f64::min);
            assert_eq!(max, m);
            assert_eq!(min, l);
        }
    } else {
        assert!(
            cur.max().is_err() && cur.min().is_err(),
            "max/min of an empty array"
        );
    }
}

fn config() -> ProptestConfig {
    let mut c = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = 4096;
    }
    c
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn op_chains_match_reference(
        shape in prop::collection::vec(0..5usize, 0..5),
        seed in any::<u64>(),
        steps in prop::collection::vec(step_strategy(), 1..8),
    ) {
        run_chain(shape, seed, steps);
    }
}

/// The lane that runs this binary per tier must really get that tier.
#[test]
fn runs_at_the_requested_tier() {
    if let Ok(t) = std::env::var("NDSIMD_TIER") {
        assert_eq!(ndsimd_kernels::active_tier().name(), t);
    }
}
