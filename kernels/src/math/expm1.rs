//! `expm1(x) = e^x - 1` of `f64` and `f32`, accurate near 0.
//!
//! **Near 0** (`|x| < 1/16`): `x + x^2 p(x)` with `x` exact (degree 9, degree 5
//! for `f32`), so tiny `x` give `x` itself; the sign of `x` is or-ed back in, which
//! keeps `-0` (the fma would give `+0`) and changes nothing else (the result has
//! the sign of `x`).
//!
//! **Elsewhere**: exp's reduction ([`super`]): `x = k ln2/32 + r`, `r = rhi + rlo`
//! kept in two parts (the rounding of `r` would show as half an ULP of results
//! near 1/16), `e^x = s (1 + tail) e^r` with `s = 2^(k/32)` from the table, so
//! `e^x - 1 = (s - 1) + s (tail (1 + p) + rlo + p)` with `p = expm1(rhi)` exp's
//! polynomial and `s - 1` split exactly (TwoSum) into `sm1 + err`. The result is
//! at least 0.06 in magnitude, so the small terms' roundings are far below its
//! ULP: within 0.7 ULP. `x < -64` is clamped to `-64` (the result is `-1`
//! either way); `x >= 700` and NaN take the oracle ([`exp_f64`] there, the `-1`
//! being below its rounding).

use super::tables::*;
use super::{exp_f32, exp_f64, horner, horner_v, ExpF32, ExpF64, ExpTable, Raw};
use super::{SHIFT_F32, SHIFT_F64};
use crate::scalar::Arith;
use crate::vector::{FloatVector, IntVector, Vector};

/// `e^x - 1` for `f64` within 0.7 ULP (the module doc has the algorithm): NaN in,
/// NaN out; `+Inf` above `709.78`, `-1` for large negative `x`, `x` itself for
/// tiny `x` (`-0` kept).
///
/// ```
/// use ndsimd_kernels::math::expm1_f64;
/// assert_eq!(expm1_f64(0.0), 0.0);
/// assert!(expm1_f64(-0.0).is_sign_negative());
/// assert_eq!(expm1_f64(1e-300), 1e-300);
/// assert_eq!(expm1_f64(1000.0), f64::INFINITY);
/// assert_eq!(expm1_f64(f64::NEG_INFINITY), -1.0);
/// // e - 1 correctly rounded (`E - 1.0` rounds twice and lands one below).
/// assert_eq!(expm1_f64(1.0), 1.7182818284590453);
/// ```
pub fn expm1_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x + x;
    }
    if x >= 700.0 {
        return exp_f64(x);
    }
    if x.abs() < 0.0625 {
        if x == 0.0 {
            return x;
        }
        return (x * x).mul_add(horner(&EXPM1_F64_POLY, x), x);
    }
    expm1_table_f64(x.max(-64.0)).0
}

/// [`expm1_f64`]'s table path, for `-64 <= x < 700`: the result `hi` and what its
/// rounding left out, `lo` (for tanh).
#[inline(always)]
fn expm1_table_f64(x: f64) -> (f64, f64) {
    let z = x * EXP_F64_N_LN2 + SHIFT_F64;
    let kd = z - SHIFT_F64;
    let ki = z.to_bits();
    // `kd * HI` exact, so is `r0`; `r = r0 - dr` and its rounding `rlo`
    // (Fast2Sum where |r0| >= |dr|; else r is tiny and rlo's error negligible).
    let r0 = x - kd * EXP_F64_LN2_N_HI;
    let dr = kd * EXP_F64_LN2_N_LO;
    let r = r0 - dr;
    let rlo = (r0 - r) - dr;
    let j = (ki & 31) as usize;
    let s = f64::from_bits(EXP_F64_SCALE[j].wrapping_add(ki << 47));
    let tail = EXP_F64_TAIL[j];
    let p = (r * r).mul_add(horner(&EXP_F64_POLY, r), r);
    let tmp = p + tail.mul_add(p, tail + rlo);
    let (sm1, err) = two_sum(s, -1.0);
    let m = s.mul_add(tmp, err);
    // `|sm1| > |m|` (`|x| >= 1/16`): Fast2Sum.
    let hi = sm1 + m;
    (hi, (sm1 - hi) + m)
}

/// `a + b = s + e` exactly (Knuth's TwoSum, any order of magnitudes).
#[inline(always)]
fn two_sum<T: crate::scalar::Arith>(a: T, b: T) -> (T, T) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `e^x - 1` for `f32` within 0.7 ULP, [`expm1_f64`]'s algorithm in `f32`; `x < -32`
/// is clamped (the result is `-1`), `x >= 80` is [`exp_f32`].
///
/// ```
/// use ndsimd_kernels::math::expm1_f32;
/// assert_eq!(expm1_f32(0.0), 0.0);
/// assert!(expm1_f32(-0.0).is_sign_negative());
/// assert_eq!(expm1_f32(1e-30), 1e-30);
/// assert_eq!(expm1_f32(100.0), f32::INFINITY);
/// assert_eq!(expm1_f32(-100.0), -1.0);
/// ```
pub fn expm1_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x + x;
    }
    if x >= 80.0 {
        return exp_f32(x);
    }
    if x.abs() < 0.0625 {
        if x == 0.0 {
            return x;
        }
        return (x * x).mul_add(horner(&EXPM1_F32_POLY, x), x);
    }
    expm1_table_f32(x.max(-32.0)).0
}

/// [`expm1_f32`]'s table path, for `-32 <= x < 80`, as [`expm1_table_f64`].
#[inline(always)]
fn expm1_table_f32(x: f32) -> (f32, f32) {
    let z = x * EXP_F32_N_LN2 + SHIFT_F32;
    let kd = z - SHIFT_F32;
    let ki = z.to_bits();
    let r0 = x - kd * EXP_F32_LN2_N_HI;
    let dr = kd * EXP_F32_LN2_N_LO;
    let r = r0 - dr;
    let rlo = (r0 - r) - dr;
    let j = (ki & 31) as usize;
    let s = f32::from_bits(EXP_F32_SCALE[j].wrapping_add(ki << 18));
    let tail = EXP_F32_TAIL[j];
    let p = (r * r).mul_add(horner(&EXP_F32_POLY, r), r);
    let tmp = p + tail.mul_add(p, tail + rlo);
    let (sm1, err) = two_sum(s, -1.0);
    let m = s.mul_add(tmp, err);
    // `|sm1| > |m|` (`|x| >= 1/16`): Fast2Sum.
    let hi = sm1 + m;
    (hi, (sm1 - hi) + m)
}

/// [`expm1_f64`] and [`expm1_f32`] over vectors with exp's table `E`, for `x` in
/// `[-64, 700)` (`[-32, 80)` for `f32`) or NaN (no special lanes): the table path
/// for every lane, the near-0 path (`|x| < near`, `poly`) blended in where a lane
/// needs it. The result unrounded, `hi + lo` (`hi` the rounded result; `lo` for
/// tanh).
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine (`E::scale` masks its indices).
#[inline(always)]
unsafe fn expm1_core_v<V: FloatVector, E: ExpTable<V>>(x: V, poly: &[V::T], near: V::T) -> (V, V) {
    // SAFETY: the caller's contract.
    unsafe {
        let z = V::madd(x, V::splat(E::N_LN2), V::splat(E::SHIFT));
        let kd = V::sub(z, V::splat(E::SHIFT));
        let ki = V::to_bits(z);
        let r0 = V::madd(kd, V::splat(-E::LN2_N[0]), x);
        let dr = V::mul(kd, V::splat(E::LN2_N[1]));
        let r = V::sub(r0, dr);
        let rlo = V::sub(V::sub(r0, r), dr);
        let (s, tail) = E::scale(ki);
        let p = E::expm1(r);
        let tmp = V::add(p, V::madd(tail, p, V::add(tail, rlo)));
        let (sm1, err) = two_sum_v(s, V::splat(-<V::T as Arith>::ONE));
        let m = V::madd(s, tmp, err);
        let mut hi = V::add(sm1, m);
        let mut lo = V::add(V::sub(sm1, hi), m);
        let sign = V::splat(<V::T as Arith>::NEG_ZERO);
        let ax = V::and_bits(x, V::from_bits(V::Int::splat(E::ABS)));
        let near = V::lt(ax, V::splat(near));
        if V::any(near) {
            let x2 = V::mul(x, x);
            let p = horner_v(poly, x);
            let y0 = V::or_bits(V::madd(x2, p, x), V::and_bits(x, sign));
            let lo0 = V::add(V::sub(x, y0), V::mul(x2, p));
            hi = V::select(near, y0, hi);
            lo = V::select(near, lo0, lo);
        }
        (hi, lo)
    }
}

/// [`expm1_core_v`] for `f64`, `x` in `[-64, 700)` or NaN.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine.
#[inline(always)]
pub(super) unsafe fn expm1_core_v64<V: FloatVector<T = f64, Int: IntVector<T = i64>>>(
    x: V,
) -> (V, V) {
    // SAFETY: the caller's contract.
    unsafe { expm1_core_v::<V, ExpF64>(x, &EXPM1_F64_POLY, 0.0625) }
}

/// [`two_sum`] over vectors (no fused steps, so the same on every ISA).
///
/// # Safety
/// The CPU has `V`'s ISA features.
#[inline(always)]
pub(super) unsafe fn two_sum_v<V: FloatVector>(a: V, b: V) -> (V, V) {
    // SAFETY: the caller's contract.
    unsafe {
        let s = V::add(a, b);
        let bb = V::sub(s, a);
        (s, V::add(V::sub(a, V::sub(s, bb)), V::sub(b, bb)))
    }
}

/// [`expm1_f64`] over vectors.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine.
#[inline(always)]
pub(super) unsafe fn expm1_v64<V: FloatVector<T = f64, Int: IntVector<T = i64>>>(x: V) -> Raw<V> {
    // SAFETY: the caller's contract.
    unsafe {
        let special = V::mask_or(V::ge(x, V::splat(700.0)), V::unord(x, x));
        // `max` keeps a NaN of its second operand; such lanes are patched anyway.
        let y = expm1_core_v64(V::max(V::splat(-64.0), x)).0;
        (y, Some(special))
    }
}

/// [`expm1_core_v`] for `f32`, `x` in `[-32, 80)` or NaN.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine.
#[inline(always)]
pub(super) unsafe fn expm1_core_v32<V: FloatVector<T = f32, Int: IntVector<T = i32>>>(
    x: V,
) -> (V, V) {
    // SAFETY: the caller's contract.
    unsafe { expm1_core_v::<V, ExpF32>(x, &EXPM1_F32_POLY, 0.0625) }
}

/// [`expm1_f32`] over vectors.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine.
#[inline(always)]
pub(super) unsafe fn expm1_v32<V: FloatVector<T = f32, Int: IntVector<T = i32>>>(x: V) -> Raw<V> {
    // SAFETY: the caller's contract.
    unsafe {
        let special = V::mask_or(V::ge(x, V::splat(80.0)), V::unord(x, x));
        let y = expm1_core_v32(V::max(V::splat(-32.0), x)).0;
        (y, Some(special))
    }
}

/// `expm1(x) = hi + lo` unrounded (`hi` is the rounded result), without the
/// special cases: for tanh, `|x| <= 40`.
#[inline(always)]
pub(super) fn expm1_parts_f64(x: f64) -> (f64, f64) {
    if x.abs() < 0.0625 {
        let q = x * x * horner(&EXPM1_F64_POLY, x);
        let hi = (x * x).mul_add(horner(&EXPM1_F64_POLY, x), x);
        // `x - hi` exact (within a factor 1.04); `lo` short of `q`'s rounding.
        return (hi, (x - hi) + q);
    }
    expm1_table_f64(x)
}

/// [`expm1_parts_f64`] for `f32`, `|x| <= 20`.
#[inline(always)]
pub(super) fn expm1_parts_f32(x: f32) -> (f32, f32) {
    if x.abs() < 0.0625 {
        let q = x * x * horner(&EXPM1_F32_POLY, x);
        let hi = (x * x).mul_add(horner(&EXPM1_F32_POLY, x), x);
        // `x - hi` exact (within a factor 1.04); `lo` short of `q`'s rounding.
        return (hi, (x - hi) + q);
    }
    expm1_table_f32(x)
}
