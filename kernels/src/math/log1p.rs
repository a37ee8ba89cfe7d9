//! `log1p(x) = ln(1 + x)` of `f64` and `f32`, accurate near 0.
//!
//! **Near 0** (`|x| < 1/16`): log's near-1 polynomial ([`super`]) in `x` itself,
//! `x + x^2 p(x)` with `x` exact, so tiny `x` give `x`; the sign of `x` is or-ed
//! back in, which keeps `-0` (the result has the sign of `x`).
//!
//! **Elsewhere**: `u = 1 + x` rounded, and its rounding `c = (1 + x) - u` exactly
//! (Fast2Sum, the larger of `1` and `x` first); `log1p(x) = log(u) + log(1 + c/u)
//! = log(u) + c/u` to far below an ULP. `log(u)` is log's table path kept
//! unrounded as `hi + lo` (`u` is at least 1/16 away from 1); `c/u` is folded into
//! `lo` as `c 2^-k invc (1 - r)` (`u = 2^k z`, `1/z = invc/(1 + r)`, the dropped
//! `r^2` below 2^-12 relative to a term under half an ULP) instead of a division.
//! Within 0.7 ULP. NaN, `x <= -1` and `x > 2^1000` (`2^100` for `f32`, where
//! `2^-k` would leave the normal range) take the oracle: `-Inf` at `-1`, NaN below.

use super::tables::*;
use super::{horner, horner_v, log_hilo_f32, log_hilo_f64, Raw};
use crate::vector::{FloatVector, IntVector, Vector};

/// `ln(1 + x)` for `f64` within 0.7 ULP (the module doc has the algorithm): NaN
/// for NaN and `x < -1`, `-Inf` at `-1`, `+Inf` for `+Inf`, `x` itself for tiny
/// `x` (`-0` kept).
///
/// ```
/// use ndsimd_kernels::math::log1p_f64;
/// assert_eq!(log1p_f64(0.0), 0.0);
/// assert!(log1p_f64(-0.0).is_sign_negative());
/// assert_eq!(log1p_f64(1e-300), 1e-300);
/// assert_eq!(log1p_f64(-1.0), f64::NEG_INFINITY);
/// assert!(log1p_f64(-2.0).is_nan());
/// assert_eq!(log1p_f64(std::f64::consts::E - 1.0), 1.0);
/// ```
pub fn log1p_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x + x;
    }
    if x.abs() < 0.0625 {
        if x == 0.0 {
            return x;
        }
        return (x * x).mul_add(horner(&LOG_F64_POLY1, x), x);
    }
    if x <= -1.0 {
        return if x == -1.0 {
            f64::NEG_INFINITY
        } else {
            f64::NAN
        };
    }
    if x == f64::INFINITY {
        return x;
    }
    let u = 1.0 + x;
    let c = (x.max(1.0) - u) + x.min(1.0);
    match log_hilo_f64(u) {
        Ok((hi, lo)) => hi + (lo + c / u),
        Err(y) => y,
    }
}

/// `ln(1 + x)` for `f32` within 0.7 ULP, [`log1p_f64`]'s algorithm in `f32`.
///
/// ```
/// use ndsimd_kernels::math::log1p_f32;
/// assert_eq!(log1p_f32(0.0), 0.0);
/// assert!(log1p_f32(-0.0).is_sign_negative());
/// assert_eq!(log1p_f32(1e-30), 1e-30);
/// assert_eq!(log1p_f32(-1.0), f32::NEG_INFINITY);
/// assert_eq!(log1p_f32(f32::INFINITY), f32::INFINITY);
/// ```
pub fn log1p_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x + x;
    }
    if x.abs() < 0.0625 {
        if x == 0.0 {
            return x;
        }
        return (x * x).mul_add(horner(&LOG_F32_POLY1, x), x);
    }
    if x <= -1.0 {
        return if x == -1.0 {
            f32::NEG_INFINITY
        } else {
            f32::NAN
        };
    }
    if x == f32::INFINITY {
        return x;
    }
    let u = 1.0 + x;
    let c = (x.max(1.0) - u) + x.min(1.0);
    match log_hilo_f32(u) {
        Ok((hi, lo)) => hi + (lo + c / u),
        Err(y) => y,
    }
}

/// [`log1p_f64`] over vectors: the table path for every lane, the near-0 path
/// blended in when a lane needs it.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine (the table indices are masked
/// to the table).
#[inline(always)]
pub(super) unsafe fn log1p_v64<V: FloatVector<T = f64, Int: IntVector<T = i64>>>(x: V) -> Raw<V> {
    // SAFETY: the caller's contract; the gathers' indices are `& 31`, inside the
    // 32-entry tables.
    unsafe {
        let special = V::mask_or(
            V::mask_or(
                V::le(x, V::splat(-1.0)),
                V::gt(x, V::splat(f64::from_bits((1023 + 1000) << 52))),
            ),
            V::unord(x, x),
        );
        let one = V::splat(1.0);
        let u = V::add(one, x);
        // `max`/`min` keep a NaN of their second operand; such lanes are patched.
        let c = V::add(V::sub(V::max(one, x), u), V::min(one, x));
        // log's table path on `u` (positive, normal, finite outside `special`).
        let ix = V::to_bits(u);
        let tmp = V::Int::sub(ix, V::Int::splat(0x3fe6_0000_0000_0000));
        let i = V::Int::and(V::Int::shr::<47>(tmp), V::Int::splat(31));
        let kb = V::Int::shr::<52>(V::Int::add(tmp, V::Int::splat(1024 << 52)));
        let kd = V::sub(V::from_int(kb), V::splat(1024.0));
        let z = V::from_bits(V::Int::sub(
            ix,
            V::Int::and(tmp, V::Int::splat((0xfffu64 << 52) as i64)),
        ));
        let invc = V::table32(LOG_F64_INVC.as_ptr(), i);
        let r = V::mul_add(z, invc, V::splat(-1.0));
        let w = V::madd(
            kd,
            V::splat(LOG_F64_LN2_HI),
            V::table32(LOG_F64_LOGC_HI.as_ptr(), i),
        );
        let hi = V::add(w, r);
        let lo = V::add(V::sub(w, hi), r);
        let lo = V::madd(kd, V::splat(LOG_F64_LN2_LO), lo);
        let lo = V::add(lo, V::table32(LOG_F64_LOGC_LO.as_ptr(), i));
        let lo = V::madd(V::mul(r, r), horner_v(&LOG_F64_POLY, r), lo);
        // c/u = c 2^-k invc (1 - r), 2^-k's bits (1023 - k) << 52 (normal: `x`
        // above 2^1000, where k would reach 1024, goes to the oracle).
        let scale = V::from_bits(V::Int::shl::<52>(V::Int::sub(V::Int::splat(2047), kb)));
        let t = V::mul(V::mul(c, scale), invc);
        let lo = V::add(lo, V::madd(V::sub(V::zero(), r), t, t));
        let mut y = V::add(hi, lo);
        let ax = V::and_bits(x, V::from_bits(V::Int::splat(i64::MAX)));
        let near = V::lt(ax, V::splat(0.0625));
        if V::any(near) {
            let y0 = V::madd(V::mul(x, x), horner_v(&LOG_F64_POLY1, x), x);
            let sign = V::and_bits(x, V::from_bits(V::Int::splat(i64::MIN)));
            y = V::select(near, V::or_bits(y0, sign), y);
        }
        (y, Some(special))
    }
}

/// [`log1p_f32`] over vectors.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine (the table indices are masked
/// to the table).
#[inline(always)]
pub(super) unsafe fn log1p_v32<V: FloatVector<T = f32, Int: IntVector<T = i32>>>(x: V) -> Raw<V> {
    // SAFETY: as in `log1p_v64` (indices `& 31`, 32-entry tables).
    unsafe {
        let special = V::mask_or(
            V::mask_or(
                V::le(x, V::splat(-1.0)),
                V::gt(x, V::splat(f32::from_bits((127 + 100) << 23))),
            ),
            V::unord(x, x),
        );
        let one = V::splat(1.0);
        let u = V::add(one, x);
        let c = V::add(V::sub(V::max(one, x), u), V::min(one, x));
        let ix = V::to_bits(u);
        let tmp = V::Int::sub(ix, V::Int::splat(0x3f30_0000));
        let i = V::Int::and(V::Int::shr::<18>(tmp), V::Int::splat(31));
        let kb = V::Int::shr::<23>(V::Int::add(tmp, V::Int::splat(256 << 23)));
        let kd = V::sub(V::from_int(kb), V::splat(256.0));
        let z = V::from_bits(V::Int::sub(
            ix,
            V::Int::and(tmp, V::Int::splat(0xff80_0000u32 as i32)),
        ));
        let invc = V::table32(LOG_F32_INVC.as_ptr(), i);
        let r = V::mul_add(z, invc, V::splat(-1.0));
        let w = V::madd(
            kd,
            V::splat(LOG_F32_LN2_HI),
            V::table32(LOG_F32_LOGC_HI.as_ptr(), i),
        );
        let hi = V::add(w, r);
        let lo = V::add(V::sub(w, hi), r);
        let lo = V::madd(kd, V::splat(LOG_F32_LN2_LO), lo);
        let lo = V::add(lo, V::table32(LOG_F32_LOGC_LO.as_ptr(), i));
        let lo = V::madd(V::mul(r, r), horner_v(&LOG_F32_POLY, r), lo);
        // 2^-k's bits: (127 - k) << 23 = (383 - kb) << 23 (`x` below 2^100).
        let scale = V::from_bits(V::Int::shl::<23>(V::Int::sub(V::Int::splat(383), kb)));
        let t = V::mul(V::mul(c, scale), invc);
        let lo = V::add(lo, V::madd(V::sub(V::zero(), r), t, t));
        let mut y = V::add(hi, lo);
        let ax = V::and_bits(x, V::from_bits(V::Int::splat(i32::MAX)));
        let near = V::lt(ax, V::splat(0.0625));
        if V::any(near) {
            let y0 = V::madd(V::mul(x, x), horner_v(&LOG_F32_POLY1, x), x);
            let sign = V::and_bits(x, V::from_bits(V::Int::splat(i32::MIN)));
            y = V::select(near, V::or_bits(y0, sign), y);
        }
        (y, Some(special))
    }
}
