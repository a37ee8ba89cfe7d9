//! Every method of the vector traits at every tier this host runs (capped by
//! `NDSIMD_TIER`: [`crate::available_tiers`]), against its scalar meaning, on IEEE
//! edge values: zeros of both signs, subnormals, the largest finite values,
//! infinities, NaNs with payloads, ties of rounding.

use super::{ByteVector, FloatVector, IntVector, Isa, Vector};
use crate::scalar::Arith;
use crate::{available_tiers, Tier};
use core::fmt::Debug;

/// What the checks need of an integer lane type.
trait Lane: Copy + Debug + PartialEq + Into<i64> {
    /// `x` truncated to the lane's width (`x as Self`).
    fn wrap(x: i64) -> Self;
    /// Bits of the lane.
    const BITS: u32;
}

impl Lane for i64 {
    fn wrap(x: i64) -> Self {
        x
    }
    const BITS: u32 = 64;
}

impl Lane for i32 {
    fn wrap(x: i64) -> Self {
        x as i32
    }
    const BITS: u32 = 32;
}

/// What the checks need of an element type beyond [`Arith`].
trait Float: Arith {
    /// The integer lanes of its vectors.
    type Lane: Lane;
    /// The element's bits, widened.
    fn bits(self) -> u64;
    /// The element with these bits (truncated to its width).
    fn of_bits(b: u64) -> Self;
    /// Values every operation meets.
    fn edges() -> Vec<Self>;
    /// Values `round_int` must convert exactly (magnitudes inside its contract).
    fn round_cases() -> Vec<Self>;
    /// `round_ties_even` as the lane type.
    fn round_even(self) -> Self::Lane;
    /// Integers `from_int` must convert as `as` does (inside its contract).
    fn int_cases() -> Vec<Self::Lane>;
    /// `i as Self`.
    fn from_lane(i: Self::Lane) -> Self;
    /// `2^-k`.
    fn half_ulps(k: i32) -> Self;
}

macro_rules! float_impl {
    ($t:ty, $lane:ty, $u:ty, top $top:literal, big $big:expr) => {
        impl Float for $t {
            type Lane = $lane;
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
            fn of_bits(b: u64) -> Self {
                <$t>::from_bits(b as $u)
            }
            fn edges() -> Vec<Self> {
                let nan_payload = <$t>::from_bits(<$t>::NAN.to_bits() | 3);
                vec![
                    0.0,
                    -0.0,
                    1.0,
                    -1.0,
                    0.5,
                    -1.5,
                    2.5,
                    3.0,
                    0.1,
                    -7.25,
                    1e30,
                    -1e-30,
                    <$t>::MIN_POSITIVE,
                    <$t>::MIN_POSITIVE / 4.0,
                    -<$t>::MIN_POSITIVE / 8.0,
                    <$t>::MAX,
                    -<$t>::MAX,
                    <$t>::INFINITY,
                    <$t>::NEG_INFINITY,
                    <$t>::NAN,
                    -<$t>::NAN,
                    nan_payload,
                    -nan_payload,
                ]
            }
            fn round_cases() -> Vec<Self> {
                let top: $t = $top;
                vec![
                    0.0,
                    -0.0,
                    0.5,
                    -0.5,
                    1.5,
                    -1.5,
                    2.5,
                    -2.5,
                    0.49999997,
                    -0.49999997,
                    1.0 - <$t>::EPSILON / 2.0,
                    8388607.5,
                    -8388607.5,
                    16777216.0,
                    123456.7,
                    -98765.43,
                    1e9,
                    -1e9 - 0.5,
                    top,
                    -top,
                    top - 1.0,
                ]
            }
            fn round_even(self) -> $lane {
                self.round_ties_even() as $lane
            }
            fn int_cases() -> Vec<$lane> {
                let big: i64 = $big;
                [
                    0,
                    1,
                    -1,
                    42,
                    -77_777,
                    16_777_217,
                    -16_777_217,
                    33_554_435,
                    i32::MAX as i64,
                    i32::MIN as i64,
                    big,
                    -big,
                    big - 1,
                    1 - big,
                ]
                .into_iter()
                .map(|x| x as $lane)
                .collect()
            }
            fn from_lane(i: $lane) -> Self {
                i as $t
            }
            fn half_ulps(k: i32) -> Self {
                <$t>::powi(2.0, -k)
            }
        }
    };
}
// `top`: the largest magnitude inside `round_int`'s contract, 2^51 - 0.5 for f64 (a
// tie, to 2^51) and 2^31 - 128 for f32 (the largest f32 below 2^31); `big`,
// `from_int`'s: 2^51 for f64, every i32 for f32.
float_impl!(f64, i64, u64, top 2251799813685247.5, big 1 << 51);
float_impl!(f32, i32, u32, top 2147483520.0, big i32::MAX as i64);

/// Bits equal, or both NaN: which NaN an operation on two returns is the hardware's
/// (and the compiler's) choice.
fn same<T: Float>(got: T, want: T) -> bool {
    got.bits() == want.bits() || (got.is_nan() && want.is_nan())
}

/// The lanes of `v`.
///
/// # Safety
/// The CPU has `V`'s ISA features.
#[inline(always)]
unsafe fn lanes<V: Vector>(v: V) -> Vec<V::T> {
    let mut out = vec![V::T::default(); V::N];
    // SAFETY: `out` holds `N` lanes; the caller runs with `V`'s features.
    unsafe { v.store(out.as_mut_ptr()) };
    out
}

/// A vector of the `N` lanes of `x`.
///
/// # Safety
/// The CPU has `V`'s ISA features. `x.len() != V::N` panics, not UB.
#[inline(always)]
unsafe fn vector<V: Vector>(x: &[V::T]) -> V {
    assert_eq!(x.len(), V::N);
    // SAFETY: `x` holds `N` lanes; the caller runs with `V`'s features.
    unsafe { V::load(x.as_ptr()) }
}

/// `xs` cut into vectors of `n`, the last one padded with `xs[0]`.
fn chunks<T: Copy>(xs: &[T], n: usize) -> Vec<Vec<T>> {
    xs.chunks(n)
        .map(|c| {
            let mut c = c.to_vec();
            c.resize(n, xs[0]);
            c
        })
        .collect()
}

/// Every pair of edge values (and a third operand for the multiply-adds), plus
/// triples whose fused and unfused multiply-add differ: `(1 + e)(1 - e) - 1`
/// is `-e²` rounded once and `0` rounded twice.
fn operands<T: Float>() -> (Vec<T>, Vec<T>, Vec<T>) {
    let e = T::edges();
    let (mut a, mut b, mut c) = (vec![], vec![], vec![]);
    for (i, &x) in e.iter().enumerate() {
        for (j, &y) in e.iter().enumerate() {
            a.push(x);
            b.push(y);
            c.push(e[(i * 7 + j * 3 + 1) % e.len()]);
        }
    }
    let eps = T::half_ulps(if T::CANONICAL_LANES == 32 { 30 } else { 13 });
    for sign in [T::ONE, -T::ONE] {
        a.push(T::ONE + eps);
        b.push(T::ONE - eps);
        c.push(-sign);
    }
    (a, b, c)
}

/// The float methods of `V` against their scalar meaning.
///
/// # Safety
/// The CPU has `V`'s features (the caller is compiled with them).
#[inline(always)]
unsafe fn check_floats<V: FloatVector>(tier: Tier)
where
    V::T: Float,
    V::Int: IntVector<T = <V::T as Float>::Lane>,
{
    let n = V::N;
    let (xa, xb, xc) = operands::<V::T>();
    let (ca, cb, cc) = (chunks(&xa, n), chunks(&xb, n), chunks(&xc, n));
    let one = V::T::ONE;
    // SAFETY: (the whole body) the caller's contract; every pointer handed to a
    // vector method is a slice of `N` elements.
    unsafe {
        assert!(
            lanes(V::zero()).iter().all(|x| x.bits() == 0),
            "{tier} zero"
        );
        let mut fused_seen = false;
        for ((a, b), c) in ca.iter().zip(&cb).zip(&cc) {
            let (va, vb, vc) = (vector::<V>(a), vector::<V>(b), vector::<V>(c));
            let lane_of = |v: V| lanes(v);
            let got = [
                ("load/store", lane_of(va)),
                ("splat", lane_of(V::splat(a[0]))),
                ("add", lane_of(V::add(va, vb))),
                ("sub", lane_of(V::sub(va, vb))),
                ("mul", lane_of(V::mul(va, vb))),
                ("div", lane_of(V::div(va, vb))),
                ("mul_add", lane_of(V::mul_add(va, vb, vc))),
                ("madd", lane_of(V::madd(va, vb, vc))),
                ("select(lt)", lane_of(V::select(V::lt(va, vb), va, vb))),
                ("and_bits", lane_of(V::and_bits(va, vb))),
                ("or_bits", lane_of(V::or_bits(va, vb))),
                ("from_bits(to_bits)", lane_of(V::from_bits(V::to_bits(va)))),
            ];
            let bits = |x: V::T| x.bits();
            for j in 0..n {
                let (x, y, z) = (a[j], b[j], c[j]);
                let fused = x.mul_add(y, z);
                fused_seen |= !same(fused, x * y + z);
                let want: [(bool, V::T); 12] = [
                    (true, x),
                    (true, a[0]),
                    (false, x + y),
                    (false, x - y),
                    (false, x * y),
                    (false, x / y),
                    (false, fused),
                    (false, if V::FMA { fused } else { x * y + z }),
                    (true, if x < y { x } else { y }),
                    (true, V::T::of_bits(x.bits() & y.bits())),
                    (true, V::T::of_bits(x.bits() | y.bits())),
                    (true, x),
                ];
                for ((name, got), (exact, want)) in got.iter().zip(want) {
                    let ok = if exact {
                        bits(got[j]) == bits(want)
                    } else {
                        same(got[j], want)
                    };
                    assert!(
                        ok,
                        "{tier} {name}({x:?}, {y:?}, {z:?}) = {:?}, want {want:?}",
                        got[j]
                    );
                }
            }
            // The comparisons, read through `select` and `any`.
            let as_lanes = |m: V::Mask| lanes(V::select(m, V::splat(one), V::zero()));
            let masks = [
                ("eq", as_lanes(V::eq(va, vb))),
                ("lt", as_lanes(V::lt(va, vb))),
                ("le", as_lanes(V::le(va, vb))),
                ("gt", as_lanes(V::gt(va, vb))),
                ("ge", as_lanes(V::ge(va, vb))),
                ("unord", as_lanes(V::unord(va, vb))),
                (
                    "mask_or",
                    as_lanes(V::mask_or(V::lt(va, vb), V::unord(va, vb))),
                ),
                (
                    "mask_and",
                    as_lanes(V::mask_and(V::le(va, vb), V::ge(va, vb))),
                ),
            ];
            for j in 0..n {
                let (x, y) = (a[j], b[j]);
                let want = [
                    x == y,
                    x < y,
                    x <= y,
                    x > y,
                    x >= y,
                    x.is_nan() || y.is_nan(),
                    x < y || x.is_nan() || y.is_nan(),
                    // `<=` and `>=` both: `==`.
                    x == y,
                ];
                for ((name, got), want) in masks.iter().zip(want) {
                    assert_eq!(got[j] == one, want, "{tier} {name}({x:?}, {y:?})");
                }
            }
            let lt_any = a.iter().zip(b).any(|(x, y)| x < y);
            assert_eq!(V::any(V::lt(va, vb)), lt_any, "{tier} any(lt) {a:?} {b:?}");
            assert!(!V::any(V::lt(va, va)), "{tier} any of nothing");
            // max and min: `a` NaN-free, a NaN in `b` comes out NaN.
            for (name, got) in [
                ("max", lanes(V::max(va, vb))),
                ("min", lanes(V::min(va, vb))),
            ] {
                for j in 0..n {
                    let (x, y) = (a[j], b[j]);
                    if x.is_nan() {
                        continue;
                    }
                    let ok = if y.is_nan() {
                        got[j].is_nan()
                    } else if x == y {
                        got[j] == x
                    } else {
                        let bigger = if x > y { x } else { y };
                        let smaller = if x < y { x } else { y };
                        bits(got[j]) == bits(if name == "max" { bigger } else { smaller })
                    };
                    assert!(ok, "{tier} {name}({x:?}, {y:?}) = {:?}", got[j]);
                }
            }
            let signs = a
                .iter()
                .enumerate()
                .map(|(j, x)| u32::from(x.is_sign_negative()) << j)
                .sum::<u32>();
            assert_eq!(V::signs(va), signs, "{tier} signs {a:?}");
            let want: Vec<_> = a
                .iter()
                .map(|x| <V::T as Float>::Lane::wrap(x.bits() as i64))
                .collect();
            assert_eq!(lanes(V::to_bits(va)), want, "{tier} to_bits {a:?}");
        }
        assert!(
            fused_seen,
            "no case tells a fused multiply-add from a plain one"
        );
        // Conversions.
        for x in chunks(&V::T::round_cases(), n) {
            let got = lanes(V::round_int(vector::<V>(&x)));
            let want: Vec<_> = x.iter().map(|x| x.round_even()).collect();
            assert_eq!(got, want, "{tier} round_int {x:?}");
        }
        for i in chunks(&V::T::int_cases(), n) {
            let got = lanes(V::from_int(vector::<V::Int>(&i)));
            for (g, &i) in got.iter().zip(&i) {
                let want = V::T::from_lane(i);
                assert_eq!(g.bits(), want.bits(), "{tier} from_int({i:?}) = {g:?}");
            }
        }
        // The table lookup: a table of edge values (NaN payloads kept), indices of
        // every size and sign.
        let e = V::T::edges();
        let table: Vec<V::T> = (0..2 * n).map(|k| e[(k * 5 + 3) % e.len()]).collect();
        let (lo, hi) = (vector::<V>(&table[..n]), vector::<V>(&table[n..]));
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut idx: Vec<i64> = vec![i64::MIN, i64::MAX, -1, 0];
        idx.extend(0..2 * n as i64);
        idx.extend((0..64).map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s as i64 >> (s % 60)
        }));
        let idx: Vec<<V::T as Float>::Lane> = idx.into_iter().map(Lane::wrap).collect();
        for ix in chunks(&idx, n) {
            let got = lanes(V::lookup2(lo, hi, vector::<V::Int>(&ix)));
            for (g, &i) in got.iter().zip(&ix) {
                let want = table[(i.into() as usize) & (2 * n - 1)];
                assert_eq!(g.bits(), want.bits(), "{tier} lookup2 index {i:?}");
            }
        }
        let big: Vec<V::T> = (0..131).map(|k| e[(k * 7 + 1) % e.len()]).collect();
        // The 32-entry lookup: every index, in order and scrambled.
        let t32 = &big[..32];
        let mut i32x: Vec<i64> = (0..32).collect();
        i32x.extend((0..64).map(|k| (k * 13 + 5) % 32));
        let i32x: Vec<<V::T as Float>::Lane> = i32x.into_iter().map(Lane::wrap).collect();
        for ix in chunks(&i32x, n) {
            let got = lanes(V::table32(t32.as_ptr(), vector::<V::Int>(&ix)));
            for (g, &i) in got.iter().zip(&ix) {
                let want = t32[i.into() as usize];
                assert_eq!(g.bits(), want.bits(), "{tier} table32 index {i:?}");
            }
        }
        // getexp / getmant against their scalar meaning (`Arith`), which is
        // checked against its definition: |x| = getmant(x) 2^k with getmant in
        // [0.75, 1.5) and k = getexp(x), or getexp(x) + 1 where getmant < 1.
        // Finite: below +Inf in magnitude (NaN is not).
        let finite = |x: V::T| x.abs_bits() < one / V::T::ZERO;
        let mut fin: Vec<V::T> = e
            .iter()
            .copied()
            .filter(|&x| finite(x) && x != V::T::ZERO)
            .collect();
        let two = one + one;
        let (three, half) = (two + one, one / two);
        let below = |x: V::T| V::T::of_bits(x.bits() - 1);
        fin.extend([
            three / two,
            below(three / two),
            three / (two + two),
            below(two),
        ]);
        fin.extend([
            half * below(three / two),
            V::T::of_bits(1),
            V::T::of_bits(3),
        ]);
        for c in chunks(&fin, n) {
            let x = vector::<V>(&c);
            let ge = lanes(V::getexp(x));
            let gm = lanes(V::getmant(x));
            for ((&xi, &g), &m) in c.iter().zip(&ge).zip(&gm) {
                assert_eq!(g.bits(), xi.getexp().bits(), "{tier} getexp {xi:?}");
                assert_eq!(m.bits(), xi.getmant().bits(), "{tier} getmant {xi:?}");
                assert!(
                    m >= three / (two + two) && m < three / two,
                    "getmant {xi:?}"
                );
                // |x| / m is a power of two, 2^getexp or twice that (exact steps;
                // halved first where it could overflow).
                let ax = xi.abs_bits();
                let (mut p, mut k) = if ax >= one {
                    (ax / two / m, one)
                } else {
                    (ax / m, V::T::ZERO)
                };
                while p >= two {
                    p = p / two;
                    k = k + one;
                }
                while p < one {
                    p = p * two;
                    k = k - one;
                }
                assert!(p == one, "getmant {xi:?}: |x| / m not a power of two");
                let want = if m < one { k - one } else { k };
                assert_eq!(g.bits(), want.bits(), "getexp {xi:?}");
            }
        }
        // scalef against its definition: a times 2^floor(b), by exact doublings
        // and halvings, for normal results.
        let sm = |k: u32| V::T::small(k);
        let quarter = half / two;
        let neg = |x: V::T| V::T::ZERO - x;
        let bs = [
            V::T::ZERO,
            half,
            neg(half),
            one,
            one + half + quarter,
            neg(sm(3) + quarter),
            sm(20),
            neg(sm(20) + half),
            sm(100),
            neg(sm(100) + quarter),
        ];
        let as_ = [
            one,
            three / two,
            neg(one + quarter),
            below(two),
            three / (two + two),
        ];
        let pairs: Vec<(V::T, V::T)> = as_
            .iter()
            .flat_map(|&a| bs.iter().map(move |&b| (a, b)))
            .collect();
        let (pa, pb): (Vec<V::T>, Vec<V::T>) = pairs.into_iter().unzip();
        for (ca, cb) in chunks(&pa, n).into_iter().zip(chunks(&pb, n)) {
            let got = lanes(V::scalef(vector::<V>(&ca), vector::<V>(&cb)));
            for ((&g, &a), &b) in got.iter().zip(&ca).zip(&cb) {
                let mut want = a;
                let mut k = V::T::ZERO;
                while k + one <= b {
                    want = want * two;
                    k = k + one;
                }
                while k > b {
                    want = want / two;
                    k = k - one;
                }
                assert_eq!(g.bits(), want.bits(), "{tier} scalef {a:?} {b:?}");
                assert_eq!(a.scalef(b).bits(), want.bits(), "scalef {a:?} {b:?}");
            }
        }
        // not_pos_finite: NaN, ±0, negatives and ±Inf; positive subnormals not.
        for c in chunks(&e, n) {
            let m = V::not_pos_finite(vector::<V>(&c));
            let got = lanes(V::select(m, V::splat(one), V::zero()));
            for (&g, &xi) in got.iter().zip(&c) {
                let pos_finite = xi > V::T::ZERO && finite(xi);
                assert_eq!(g == one, !pos_finite, "{tier} not_pos_finite {xi:?}");
            }
            let m = V::not_pos_normal(vector::<V>(&c));
            let got = lanes(V::select(m, V::splat(one), V::zero()));
            for (&g, &xi) in got.iter().zip(&c) {
                let pos_normal = xi >= V::T::MIN_POSITIVE && finite(xi);
                assert_eq!(g == one, !pos_normal, "{tier} not_pos_normal {xi:?}");
            }
        }
        // The memory lookup: a table longer than any vector pair, every index in
        // it, in order and scrambled, the last one included.
        let mut gidx: Vec<i64> = (0..131).collect();
        gidx.extend((0..131).map(|k| (k * 37 + 11) % 131));
        gidx.extend([130, 0, 130, 129]);
        let gidx: Vec<<V::T as Float>::Lane> = gidx.into_iter().map(Lane::wrap).collect();
        for ix in chunks(&gidx, n) {
            let got = lanes(V::gather(big.as_ptr(), vector::<V::Int>(&ix)));
            for (g, &i) in got.iter().zip(&ix) {
                let want = big[i.into() as usize];
                assert_eq!(g.bits(), want.bits(), "{tier} gather index {i:?}");
            }
        }
    }
}

/// The integer methods of `I` against wrapping `i64` arithmetic.
///
/// # Safety
/// The CPU has `I`'s features (the caller is compiled with them).
#[inline(always)]
unsafe fn check_ints<I: IntVector>(tier: Tier)
where
    I::T: Lane,
{
    let bits = <I::T as Lane>::BITS;
    let edges: Vec<i64> = vec![
        0,
        1,
        -1,
        2,
        0x3ff,
        -0x3ff,
        1 << 31,
        i32::MAX as i64,
        i32::MIN as i64,
        i64::MAX,
        i64::MIN,
        0x0123_4567_89ab_cdef,
        -0x0123_4567_89ab_cdef,
    ];
    let mut a = vec![];
    let mut b = vec![];
    for &x in &edges {
        for &y in &edges {
            a.push(I::T::wrap(x));
            b.push(I::T::wrap(y));
        }
    }
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let shl = |x: i64, s: u32| I::T::wrap(((x as u64) << s) as i64);
    let shr = |x: i64, s: u32| I::T::wrap((((x as u64) & mask) >> s) as i64);
    // SAFETY: (the whole body) the caller's contract; every pointer handed to a
    // vector method is a slice of `N` lanes.
    unsafe {
        for (a, b) in chunks(&a, I::N).iter().zip(&chunks(&b, I::N)) {
            let (va, vb) = (vector::<I>(a), vector::<I>(b));
            // 23 is the exponent field's place in an f32's bits; 31 moves the
            // lowest bit of an i32 to its sign.
            let got = [
                ("load/store", lanes(va)),
                ("splat", lanes(I::splat(a[0]))),
                ("add", lanes(I::add(va, vb))),
                ("sub", lanes(I::sub(va, vb))),
                ("and", lanes(I::and(va, vb))),
                ("or", lanes(I::or(va, vb))),
                ("shl 1", lanes(I::shl::<1>(va))),
                ("shl 23", lanes(I::shl::<23>(va))),
                ("shl 31", lanes(I::shl::<31>(va))),
                ("shr 1", lanes(I::shr::<1>(va))),
                ("shr 23", lanes(I::shr::<23>(va))),
                ("shr 31", lanes(I::shr::<31>(va))),
            ];
            for j in 0..I::N {
                let (x, y) = (a[j].into(), b[j].into());
                let want = [
                    a[j],
                    a[0],
                    I::T::wrap(x.wrapping_add(y)),
                    I::T::wrap(x.wrapping_sub(y)),
                    I::T::wrap(x & y),
                    I::T::wrap(x | y),
                    shl(x, 1),
                    shl(x, 23),
                    shl(x, 31),
                    shr(x, 1),
                    shr(x, 23),
                    shr(x, 31),
                ];
                for ((name, got), want) in got.iter().zip(want) {
                    assert_eq!(got[j], want, "{tier} {name}({x:#x}, {y:#x})");
                }
            }
        }
    }
}

/// The shifts only 64-bit lanes have: 52 is the exponent field's place in an f64's
/// bits, 63 the sign's.
///
/// # Safety
/// The CPU has `I`'s features (the caller is compiled with them).
#[inline(always)]
unsafe fn check_wide_shifts<I: IntVector<T = i64>>(tier: Tier) {
    let xs = [
        0,
        1,
        -1,
        0x3ff,
        -0x3ff,
        i64::MAX,
        i64::MIN,
        0x0123_4567_89ab_cdef,
    ];
    // SAFETY: the caller's contract; every pointer handed to a vector method is a
    // slice of `N` lanes.
    unsafe {
        for x in chunks(&xs, I::N) {
            let v = vector::<I>(&x);
            let got = [
                lanes(I::shl::<52>(v)),
                lanes(I::shr::<52>(v)),
                lanes(I::shl::<63>(v)),
                lanes(I::shr::<63>(v)),
            ];
            for (j, &x) in x.iter().enumerate() {
                let u = x as u64;
                let want = [u << 52, u >> 52, u << 63, u >> 63].map(|w| w as i64);
                for (k, got) in got.iter().enumerate() {
                    assert_eq!(got[j], want[k], "{tier} shift {k} of {x:#x}");
                }
            }
        }
    }
}

/// The byte methods of `B`.
///
/// # Safety
/// The CPU has `B`'s features (the caller is compiled with them).
#[inline(always)]
unsafe fn check_bytes<B: ByteVector>(tier: Tier) {
    let n = B::N;
    let hay: Vec<u8> = (0..n).map(|j| [10u8, 0, 255, 10, 7][j % 5]).collect();
    let total: usize = hay.iter().map(|&b| b as usize).sum();
    // SAFETY: the caller's contract; every pointer handed to a vector method is a
    // slice of `N` bytes.
    unsafe {
        let v = vector::<B>(&hay);
        assert_eq!(lanes(v), hay, "{tier} load/store");
        assert_eq!(B::sum(v), total, "{tier} sum");
        assert_eq!(lanes(B::splat(3)), vec![3; n], "{tier} splat");
        for needle in [0u8, 10, 255, 99] {
            let count = hay.iter().filter(|&&b| b == needle).count();
            let hits = B::eq(v, B::splat(needle));
            let want: Vec<u8> = hay
                .iter()
                .map(|&b| if b == needle { 0xff } else { 0 })
                .collect();
            assert_eq!(lanes(hits), want, "{tier} eq {needle}");
            assert_eq!(B::sum(hits), 255 * count, "{tier} sum of eq {needle}");
            assert_eq!(
                B::sum(B::sub(B::splat(0), hits)),
                count,
                "{tier} sub {needle}"
            );
            let minus_one = B::splat(0xff);
            let tally = B::tally(B::splat(1), v, B::splat(needle), minus_one);
            assert_eq!(B::sum(tally), n + count, "{tier} tally {needle}");
            assert_eq!(B::is_zero(hits), count == 0, "{tier} is_zero {needle}");
        }
        let z = vector::<B>(&vec![0u8; n]);
        assert!(B::is_zero(B::or(z, z)), "{tier} or of zeros");
        assert!(!B::is_zero(B::or(z, v)), "{tier} or");
    }
}

/// Every check over the vectors of `I`.
///
/// # Safety
/// The CPU has `I`'s features (the caller is compiled with them).
#[inline(always)]
unsafe fn check<I: Isa>(tier: Tier) {
    // SAFETY: the caller's contract.
    unsafe {
        check_floats::<I::F64>(tier);
        check_floats::<I::F32>(tier);
        check_ints::<<I::F64 as FloatVector>::Int>(tier);
        check_ints::<<I::F32 as FloatVector>::Int>(tier);
        check_wide_shifts::<<I::F64 as FloatVector>::Int>(tier);
        check_bytes::<I::Bytes>(tier);
    }
}

/// Runs [`check`] for `$isa` inside a function compiled with `$features`.
macro_rules! check_with {
    ($tier:expr, $features:literal, $isa:ty) => {{
        #[target_feature(enable = $features)]
        fn with_features(tier: Tier) {
            // SAFETY: the features are enabled here, and `available_tiers` lists
            // only tiers this CPU has.
            unsafe { check::<$isa>(tier) }
        }
        // SAFETY: as above.
        unsafe { with_features($tier) }
    }};
}

#[test]
fn every_vector_method_matches_its_scalar_meaning_at_every_tier() {
    for tier in available_tiers() {
        match tier {
            // SAFETY: the portable "vectors" need no features.
            Tier::Scalar => unsafe { check::<super::scalar::Scalar>(tier) },
            #[cfg(target_arch = "x86_64")]
            Tier::Sse2 => check_with!(tier, "sse2", super::sse2::Sse2),
            #[cfg(target_arch = "x86_64")]
            Tier::Avx2 => check_with!(tier, "avx2,fma", super::avx2::Avx2),
            #[cfg(target_arch = "x86_64")]
            Tier::Avx512 => check_with!(
                tier,
                "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma",
                super::avx512::Avx512
            ),
            #[cfg(target_arch = "aarch64")]
            Tier::Neon => check_with!(tier, "neon", super::neon::Neon),
            #[allow(unreachable_patterns)]
            other => panic!("no vector check for the tier {other}"),
        }
    }
}
