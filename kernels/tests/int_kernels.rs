//! The integer kernels (`i32`, `i64`, `u8`) at every tier against the scalar oracles
//! of `scalar::int`, bit for bit, and the oracles against Rust's own wrapping
//! arithmetic: every length up to three of the widest vectors (64 `u8` lanes) plus a
//! tail, every start offset within a vector, and the edge values that overflow.

mod common;

use common::{each_tier, XorShift};
use ndsimd_kernels::scalar::int::{self, IntArith};
use ndsimd_kernels::{BinaryOp, CmpOp, IntKernelElement, IntTable};
use std::mem::MaybeUninit;

/// Lengths `0..=3 * 64 + 3` cover every tail of every tier for every integer width.
const MAX_LEN: usize = 3 * 64 + 3;

trait TestInt: IntKernelElement + IntArith + PartialEq {
    fn edges() -> Vec<Self>;
    fn random(rng: &mut XorShift) -> Self;
    /// The rule of each binary op, written independently of the oracles.
    fn rule(op: &str, x: Self, y: Self) -> Self;
}

macro_rules! test_int {
    ($t:ty) => {
        impl TestInt for $t {
            fn edges() -> Vec<$t> {
                vec![
                    0,
                    1,
                    <$t>::MAX,
                    <$t>::MIN,
                    <$t>::MAX - 1,
                    <$t>::MIN.wrapping_add(1),
                    2,
                    <$t>::MAX / 2,
                ]
            }
            fn random(rng: &mut XorShift) -> $t {
                let r = rng.next();
                if r & 3 == 0 {
                    let e = Self::edges();
                    e[(r >> 8) as usize % e.len()]
                } else {
                    (r >> 16) as $t
                }
            }
            fn rule(op: &str, x: $t, y: $t) -> $t {
                match op {
                    "add" => x.wrapping_add(y),
                    "sub" => x.wrapping_sub(y),
                    _ => x.wrapping_mul(y),
                }
            }
        }
    };
}
test_int!(i32);
test_int!(i64);
test_int!(u8);

fn inputs<T: TestInt>(rng: &mut XorShift, n: usize) -> Vec<T> {
    (0..n).map(|_| T::random(rng)).collect()
}

fn binary_ops<T: TestInt>(t: &IntTable<T>) -> [(&'static str, &BinaryOp<T>); 3] {
    [("add", &t.add), ("sub", &t.sub), ("mul", &t.mul)]
}

fn cmp_ops<T: TestInt>(t: &IntTable<T>) -> [(&'static str, &CmpOp<T>); 6] {
    [
        ("eq", &t.eq),
        ("ne", &t.ne),
        ("lt", &t.lt),
        ("le", &t.le),
        ("gt", &t.gt),
        ("ge", &t.ge),
    ]
}

fn uninit<T: Copy>(out: &mut [MaybeUninit<T>]) -> Vec<T> {
    out.iter()
        // SAFETY: the buffers are created initialised (`MaybeUninit::new`), so this
        // reads written values whatever the kernel did.
        .map(|x| unsafe { x.assume_init() })
        .collect()
}

fn check<T: TestInt>() {
    let scalar = T::int_table_for(ndsimd_kernels::Tier::Scalar).unwrap();
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    each_tier(|tier| {
        let t = T::int_table_for(tier).unwrap();
        assert_eq!(t.tier, tier);
        for n in 0..=MAX_LEN {
            for off in [0usize, 1, 3] {
                let a = inputs::<T>(&mut rng, n + off);
                let b = inputs::<T>(&mut rng, n + off);
                let (a, b) = (&a[off..], &b[off..]);
                let s = T::random(&mut rng);
                for ((name, op), (_, oracle)) in binary_ops(t).into_iter().zip(binary_ops(scalar)) {
                    let want: Vec<T> = a
                        .iter()
                        .zip(b)
                        .map(|(&x, &y)| T::rule(name, x, y))
                        .collect();
                    let mut o = vec![T::ZERO; n];
                    (oracle.vv)(a, b, &mut o);
                    assert_eq!(o, want, "oracle {name} vv, n={n}");
                    (op.vv)(a, b, &mut o);
                    assert_eq!(o, want, "{name} vv, n={n} off={off}");
                    let want_vs: Vec<T> = a.iter().map(|&x| T::rule(name, x, s)).collect();
                    (op.vs)(a, s, &mut o);
                    assert_eq!(o, want_vs, "{name} vs, n={n}");
                    let want_sv: Vec<T> = b.iter().map(|&y| T::rule(name, s, y)).collect();
                    (op.sv)(s, b, &mut o);
                    assert_eq!(o, want_sv, "{name} sv, n={n}");
                    let mut u = vec![MaybeUninit::new(T::ZERO); n];
                    (op.vv_uninit.get())(a, b, &mut u);
                    assert_eq!(uninit(&mut u), want, "{name} vv_uninit, n={n}");
                    (op.vs_uninit.get())(a, s, &mut u);
                    assert_eq!(uninit(&mut u), want_vs, "{name} vs_uninit, n={n}");
                    (op.sv_uninit.get())(s, b, &mut u);
                    assert_eq!(uninit(&mut u), want_sv, "{name} sv_uninit, n={n}");
                    let mut acc = a.to_vec();
                    (op.assign_vv)(&mut acc, b);
                    assert_eq!(acc, want, "{name} assign_vv, n={n}");
                    let mut acc = a.to_vec();
                    (op.assign_vs)(&mut acc, s);
                    assert_eq!(acc, want_vs, "{name} assign_vs, n={n}");
                    let mut acc = a.to_vec();
                    (op.assign_vv4)(&mut acc, [b, a, b, b]);
                    let want4: Vec<T> = (0..n)
                        .map(|i| {
                            let r = T::rule(name, a[i], b[i]);
                            let r = T::rule(name, r, a[i]);
                            T::rule(name, T::rule(name, r, b[i]), b[i])
                        })
                        .collect();
                    assert_eq!(acc, want4, "{name} assign_vv4, n={n}");
                }
                for ((name, op), (_, oracle)) in cmp_ops(t).into_iter().zip(cmp_ops(scalar)) {
                    let (mut o, mut w) = (vec![false; n], vec![false; n]);
                    (oracle.vv)(a, b, &mut w);
                    (op.vv)(a, b, &mut o);
                    assert_eq!(o, w, "{name} vv, n={n}");
                    (oracle.vs)(a, s, &mut w);
                    (op.vs)(a, s, &mut o);
                    assert_eq!(o, w, "{name} vs, n={n}");
                }
                let want = a.iter().fold(0i64, |acc, &x| acc.wrapping_add(x.widen()));
                assert_eq!((scalar.sum)(a), want, "oracle sum, n={n}");
                assert_eq!((t.sum)(a), want, "sum, n={n} off={off}");
            }
        }
        // Sums that overflow the element type but not 64 bits, and 64-bit wrapping.
        let big = vec![T::edges()[2]; 1000];
        assert_eq!((t.sum)(&big), 1000 * T::edges()[2].widen());
    });
}

#[test]
fn i32_kernels_match_the_oracle_at_every_tier() {
    check::<i32>();
}

#[test]
fn i64_kernels_match_the_oracle_at_every_tier() {
    check::<i64>();
    each_tier(|tier| {
        let t = i64::int_table_for(tier).unwrap();
        assert_eq!((t.sum)(&[i64::MAX; 3]), i64::MAX.wrapping_mul(3));
    });
}

#[test]
fn u8_kernels_match_the_oracle_at_every_tier() {
    check::<u8>();
}

#[test]
fn comparison_oracles_are_the_integer_order() {
    let mut out = [false; 3];
    int::lt::vv(&[i32::MIN, 0, 5], &[0, 0, -5], &mut out);
    assert_eq!(out, [true, false, false]);
    int::ge::vs(&[200u8, 1, 128], 128, &mut out);
    assert_eq!(out, [true, false, true]);
}
