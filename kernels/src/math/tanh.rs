//! `tanh` of `f64` and `f32`, from [`super::expm1`].
//!
//! `tanh |x| = e / (e + 2)` with `e = expm1(2|x|)`, `|x|` clamped to 20 (10 for
//! `f32`, where the result is 1 after rounding). This form does not magnify
//! `e`'s relative error (the quotient's is `2/(e+2)` times it, at most 1), unlike
//! `-expm1(-2|x|)/(expm1(-2|x|) + 2)`, which doubles it near 1. `e` comes
//! unrounded as `e + el` ([`super::expm1`]'s parts: its rounding would otherwise
//! show twice over where `e` sits low in its binade and the result high in its
//! own), `d = e + 2` is split exactly (Fast2Sum) into `d + derr`, and the quotient
//! `w = n/d` (`n = e`, or past `e = 2` `n = 2` and `tanh = 1 - w`, so that
//! `1/d = w/2` or `(1 - w)/2` keeps its precision) is corrected by its remainder
//! `n - w d`, exact by one fma: `n/(d + derr) = w + (rem - w derr)/d`. What is
//! left is one rounding and terms near 2^-58 relative: within 0.7 ULP
//! (measured 0.58 for `f64`, 0.66 for `f32`). The sign of `x` is or-ed back in
//! (`-0` kept); tiny `x` give `x` (`e = 2x`, `w = x`); NaN in, NaN out.

use super::expm1::{expm1_core_v32, expm1_core_v64, expm1_parts_f32, expm1_parts_f64};
use super::Raw;
use crate::vector::{FloatVector, IntVector, Vector};

/// `tanh x` for `f64` within 0.7 ULP (the module doc has the algorithm): `±1`
/// for `|x| > 19.1`, `x` itself for tiny `x` (`-0` kept), NaN for NaN.
///
/// ```
/// use ndsimd_kernels::math::tanh_f64;
/// assert_eq!(tanh_f64(0.0), 0.0);
/// assert!(tanh_f64(-0.0).is_sign_negative());
/// assert_eq!(tanh_f64(1e-300), 1e-300);
/// assert_eq!(tanh_f64(f64::NEG_INFINITY), -1.0);
/// assert_eq!(tanh_f64(20.0), 1.0);
/// assert!(tanh_f64(f64::NAN).is_nan());
/// ```
pub fn tanh_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x + x;
    }
    let a = x.abs().min(20.0);
    let (e, el) = expm1_parts_f64(a + a);
    let d = e + 2.0;
    let derr = ((e.max(2.0) - d) + e.min(2.0)) + el;
    let big = e > 2.0;
    // w = q = e/d, or t = 2/d = 1 - q where that is the smaller.
    let (n, nlo) = if big { (2.0, 0.0) } else { (e, el) };
    let w = n / d;
    let rem = (-w).mul_add(d, n) + nlo;
    let inv = if big { w * 0.5 } else { (1.0 - w) * 0.5 };
    let corr = (-w).mul_add(derr, rem) * inv;
    let y = if big {
        let s1 = 1.0 - w;
        s1 + (((1.0 - s1) - w) - corr)
    } else {
        w + corr
    };
    y.copysign(x)
}

/// `tanh x` for `f32` within 0.7 ULP, [`tanh_f64`]'s algorithm in `f32`: `±1`
/// for `|x| > 9.02`.
///
/// ```
/// use ndsimd_kernels::math::tanh_f32;
/// assert_eq!(tanh_f32(0.0), 0.0);
/// assert!(tanh_f32(-0.0).is_sign_negative());
/// assert_eq!(tanh_f32(1e-30), 1e-30);
/// assert_eq!(tanh_f32(-10.0), -1.0);
/// ```
pub fn tanh_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x + x;
    }
    let a = x.abs().min(10.0);
    let (e, el) = expm1_parts_f32(a + a);
    let d = e + 2.0;
    let derr = ((e.max(2.0) - d) + e.min(2.0)) + el;
    let big = e > 2.0;
    // w = q = e/d, or t = 2/d = 1 - q where that is the smaller.
    let (n, nlo) = if big { (2.0, 0.0) } else { (e, el) };
    let w = n / d;
    let rem = (-w).mul_add(d, n) + nlo;
    let inv = if big { w * 0.5 } else { (1.0 - w) * 0.5 };
    let corr = (-w).mul_add(derr, rem) * inv;
    let y = if big {
        let s1 = 1.0 - w;
        s1 + (((1.0 - s1) - w) - corr)
    } else {
        w + corr
    };
    y.copysign(x)
}

/// [`tanh_f64`] over vectors (no special lanes: NaN runs through every step).
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine.
#[inline(always)]
pub(super) unsafe fn tanh_v64<V: FloatVector<T = f64, Int: IntVector<T = i64>>>(x: V) -> Raw<V> {
    // SAFETY: the caller's contract.
    unsafe {
        let ax = V::and_bits(x, V::from_bits(V::Int::splat(i64::MAX)));
        // `min` keeps a NaN of its second operand, and NaN stays NaN below.
        let a = V::min(V::splat(20.0), ax);
        let (e, el) = expm1_core_v64(V::add(a, a));
        let y = tanh_tail(e, el, 1.0, 2.0, 0.5);
        (
            V::or_bits(y, V::and_bits(x, V::from_bits(V::Int::splat(i64::MIN)))),
            None,
        )
    }
}

/// [`tanh_f32`] over vectors.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine.
#[inline(always)]
pub(super) unsafe fn tanh_v32<V: FloatVector<T = f32, Int: IntVector<T = i32>>>(x: V) -> Raw<V> {
    // SAFETY: the caller's contract.
    unsafe {
        let ax = V::and_bits(x, V::from_bits(V::Int::splat(i32::MAX)));
        let a = V::min(V::splat(10.0), ax);
        let (e, el) = expm1_core_v32(V::add(a, a));
        let y = tanh_tail(e, el, 1.0, 2.0, 0.5);
        (
            V::or_bits(y, V::and_bits(x, V::from_bits(V::Int::splat(i32::MIN)))),
            None,
        )
    }
}

/// `e / (e + 2)` for `e + el` unrounded (`e >= 0` or NaN), the roundings of the
/// sum and the quotient taken back (the module doc); `one`, `two`, `half` are
/// those numbers.
///
/// # Safety
/// The CPU has `V`'s ISA features.
#[inline(always)]
unsafe fn tanh_tail<V: FloatVector>(e: V, el: V, one: V::T, two: V::T, half: V::T) -> V {
    // SAFETY: the caller's contract.
    unsafe {
        let (one, two, half) = (V::splat(one), V::splat(two), V::splat(half));
        let d = V::add(e, two);
        // Fast2Sum, the larger first; `max`/`min` keep a NaN `e` (second operand).
        let derr = V::add(V::add(V::sub(V::max(two, e), d), V::min(two, e)), el);
        // Past e = 2 the quotient is `1 - t`, `t = 2/d`: `t` (not `1 - q`, which
        // has lost its low bits near 1) gives `1/d = t/2` for the correction.
        let big = V::gt(e, two);
        let n = V::select(big, two, e);
        let w = V::div(n, d);
        let nw = V::sub(V::zero(), w);
        // Exact on every tier (a software fma where the ISA has none).
        let rem = V::add(V::mul_add(nw, d, n), V::select(big, V::zero(), el));
        let omw = V::sub(one, w);
        let inv = V::mul(V::select(big, w, omw), half);
        let corr = V::mul(V::madd(nw, derr, rem), inv);
        // Small: w + corr. Big: 1 - w - corr, with `1 - w = omw + (1 - omw - w)`
        // exactly (Fast2Sum).
        let s1 = V::select(big, omw, w);
        let e1 = V::sub(V::sub(one, omw), w);
        let tail = V::select(big, V::sub(e1, corr), corr);
        V::add(s1, tail)
    }
}
