//! `pow(x, y)` of `f32` and `f64`: the scalar oracles and the vector kernels.
//!
//! `|x|^y = exp(y log|x|)` carried in double-words: `log|x| = hi + lo` from
//! `x = 2^k z`, `z` in `[0.6875, 1.375)`, one of 32 subintervals with `invc` (1/c
//! rounded to 8 bits, and exactly 1 in the two subintervals beside 1, whose `-log`
//! is then 0: no cancellation near `x = 1`), so `z invc - 1` is an exact
//! double-word `r + rl` (`z` split in halves, each product exact, then a
//! two-sum); `log|x| = k ln2 + log c + log1p(r) + rl (1 - r)` with
//! `log1p(r) = r - r^2/2 + r^3 P(r)`, the square exact and the sums two-sums. Its
//! error is below `2^-68` relative, so `y log|x|` is exact to about `2^-62`
//! relative even where it reaches the overflow threshold; the product `y (hi +
//! lo)` is a double-word (the error of `y hi` exact, by an fma or Dekker's split),
//! and `exp` of it is [`super::exp_f64`]'s table and polynomial with the low word
//! added to the reduced argument. `f32` runs the same steps in `f32` (12-bit
//! halves); its oracle is the `f64` one rounded to `f32`.
//!
//! Edges as C99 and NumPy: `pow(x, ±0) = 1` for any `x`, NaN too; `pow(1, y) = 1`
//! for any `y`, NaN too; `pow(-1, ±Inf) = 1`; a negative `x` with a non-integer `y`
//! gives NaN, with an odd integer `y` keeps its sign; `pow(±0, y)` is `±Inf` for a
//! negative odd `y`, `+Inf` for other negative `y`, `±0` for a positive odd `y`;
//! overflow to `±Inf`, underflow to `±0` through the subnormals. Lanes outside the
//! vector path (a zero, subnormal, infinite or NaN operand, `|y| >= 2^51`, a
//! negative `x` with a non-integer `y`, results near or past the overflow and
//! underflow thresholds) take the scalar oracle, lane by lane.

use super::tables::*;
use super::{exp_f64_scaled, horner, horner_v, ExpF32, ExpF64, ExpTable, SHIFT_F32, SHIFT_F64};
use crate::vector::{Element, FloatVector, IntVector, Isa, Vector, MAX_LANES};

/// `a b` exactly as `p + e`, `p = a b` rounded: Dekker's product on halves that
/// masking the low 27 bits gives (the last partial product rounds, below
/// `2^-105` of `p`).
#[inline(always)]
fn two_prod_f64(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let m = !((1u64 << 27) - 1);
    let (ah, bh) = (
        f64::from_bits(a.to_bits() & m),
        f64::from_bits(b.to_bits() & m),
    );
    let (al, bl) = (a - ah, b - bh);
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

/// `log x = hi + lo` for the bits `ix` of a positive normal `x` (the module doc).
#[inline(always)]
fn log_dd_f64(ix: u64) -> (f64, f64) {
    let tmp = ix.wrapping_sub(0x3fe6_0000_0000_0000);
    let i = ((tmp >> 47) & 31) as usize;
    let kd = ((tmp as i64) >> 52) as f64;
    let z = f64::from_bits(ix.wrapping_sub(tmp & (0xfff << 52)));
    let invc = POW_F64_INVC[i];
    let zh = f64::from_bits(z.to_bits() & !((1u64 << 27) - 1));
    // Both products exact, and the first difference: r = rh + rl by a two-sum.
    let (a1, a2) = (zh * invc - 1.0, (z - zh) * invc);
    let r = a1 + a2;
    let bb = r - a1;
    let rl = (a1 - (r - bb)) + (a2 - bb);
    let w = kd * LOG_F64_LN2_HI + POW_F64_LOGC_HI[i];
    let t1 = w + r;
    let e1 = (w - t1) + r;
    let (qh, ql) = two_prod_f64(r, r);
    let a = -0.5 * qh;
    let t2 = t1 + a;
    let e2 = (t1 - t2) + a;
    let c = qh * r * horner(&POW_F64_POLY, r);
    // log1p(r + rl) = log1p(r) + rl (1 - r) to far below the bound.
    let lo = e1 + e2 - 0.5 * ql + c + (rl - r * rl) + kd * LOG_F64_LN2_LO + POW_F64_LOGC_LO[i];
    // Renormalised, so that y times the low word stays below the ULP of y log x
    // (`r^3 P(r)` in `lo` is up to 2^-16).
    let hi = t2 + lo;
    (hi, (t2 - hi) + lo)
}

/// `x^y` for `f64` within 1 ULP, the edges of C99 and NumPy (the module doc of
/// `pow` has both).
///
/// ```
/// use ndsimd_kernels::math::pow_f64;
/// assert_eq!(pow_f64(2.0, 10.0), 1024.0);
/// assert_eq!(pow_f64(f64::NAN, 0.0), 1.0);
/// assert_eq!(pow_f64(1.0, f64::NAN), 1.0);
/// assert_eq!(pow_f64(-2.0, 3.0), -8.0);
/// assert!(pow_f64(-2.0, 0.5).is_nan());
/// assert_eq!(pow_f64(-0.0, -3.0), f64::NEG_INFINITY);
/// assert_eq!(pow_f64(10.0, 400.0), f64::INFINITY);
/// ```
pub fn pow_f64(x: f64, y: f64) -> f64 {
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    let ax = x.abs();
    if y.is_infinite() {
        if ax == 1.0 {
            return 1.0;
        }
        return if (ax < 1.0) == (y < 0.0) {
            f64::INFINITY
        } else {
            0.0
        };
    }
    let yint = y == y.trunc();
    // Every f64 from 2^53 on is even.
    let odd = yint && y.abs() < 9007199254740992.0 && (y as i64) & 1 == 1;
    let neg = x.is_sign_negative() && odd;
    let sign = |r: f64| if neg { -r } else { r };
    if ax == 0.0 {
        return sign(if y < 0.0 { f64::INFINITY } else { 0.0 });
    }
    if ax == f64::INFINITY {
        return sign(if y < 0.0 { 0.0 } else { f64::INFINITY });
    }
    if x < 0.0 && !yint {
        return f64::NAN;
    }
    let mut ix = ax.to_bits();
    if ax < f64::MIN_POSITIVE {
        // Subnormal: scaled by 2^52 into the normal range, the exponent 52 lower.
        ix = (ax * f64::from_bits((1023 + 52) << 52))
            .to_bits()
            .wrapping_sub(52 << 52);
    }
    let (h, l) = log_dd_f64(ix);
    let eh = y * h;
    if eh.abs() >= 746.0 || eh.is_nan() {
        return sign(if eh > 0.0 { f64::INFINITY } else { 0.0 });
    }
    let (eh, ee) = two_prod_f64(y, h);
    let el = ee + y * l;
    sign(exp_dd_f64(eh, el))
}

/// `exp(eh + el)` for `|eh| < 746` and `el` below `eh`'s ULP: [`super::exp_f64`]
/// with `el` added to the reduced argument.
#[inline(always)]
fn exp_dd_f64(eh: f64, el: f64) -> f64 {
    let z = eh * EXP_F64_N_LN2 + SHIFT_F64;
    let kd = z - SHIFT_F64;
    let ki = z.to_bits();
    let r = eh - kd * EXP_F64_LN2_N_HI - kd * EXP_F64_LN2_N_LO + el;
    let j = (ki & 31) as usize;
    let sbits = EXP_F64_SCALE[j].wrapping_add(ki << 47);
    let tmp = EXP_F64_TAIL[j] + (r + r * r * horner(&EXP_F64_POLY, r));
    if eh.abs() < 700.0 {
        let s = f64::from_bits(sbits);
        return s + s * tmp;
    }
    if eh > 709.8 {
        return f64::INFINITY;
    }
    exp_f64_scaled(eh, sbits, tmp)
}

/// `x^y` for `f32` within 1 ULP: [`pow_f64`] of the widened operands, rounded
/// (the same edges).
///
/// ```
/// use ndsimd_kernels::math::pow_f32;
/// assert_eq!(pow_f32(3.0, 4.0), 81.0);
/// assert_eq!(pow_f32(-0.0, -1.0), f32::NEG_INFINITY);
/// assert_eq!(pow_f32(10.0, 39.0), f32::INFINITY);
/// ```
pub fn pow_f32(x: f32, y: f32) -> f32 {
    pow_f64(x as f64, y as f64) as f32
}

/// `res` with the lanes where `special` holds replaced by `f` of `x`'s and `y`'s
/// lanes (the binary form of `super::patch`).
///
/// # Safety
/// The CPU has `V`'s ISA features.
#[inline(never)]
unsafe fn patch2<V: FloatVector>(
    x: V,
    y: V,
    res: V,
    special: V::Mask,
    f: impl Fn(V::T, V::T) -> V::T,
) -> V {
    let mut bx = [<V::T as Default>::default(); MAX_LANES];
    let mut by = [<V::T as Default>::default(); MAX_LANES];
    // SAFETY: the buffers hold `MAX_LANES >= N` lanes; the caller's contract.
    unsafe {
        x.store(bx.as_mut_ptr());
        y.store(by.as_mut_ptr());
    }
    for (a, &b) in bx[..V::N].iter_mut().zip(&by[..V::N]) {
        *a = f(*a, b);
    }
    // SAFETY: as above.
    unsafe { V::select(special, V::load(bx.as_ptr()), res) }
}

/// The error of `p = a b` (rounded): exact, by an fma where the ISA has one, by
/// Dekker's split into halves of `half` bits (`mask` clears the rest) elsewhere.
///
/// # Safety
/// The CPU has `V`'s ISA features.
#[inline(always)]
unsafe fn prod_err<V: FloatVector>(a: V, b: V, p: V, mask: V) -> V {
    // SAFETY: the caller's contract.
    unsafe {
        if V::FMA {
            return V::mul_add(a, b, V::sub(V::zero(), p));
        }
        let (ah, bh) = (V::and_bits(a, mask), V::and_bits(b, mask));
        let (al, bl) = (V::sub(a, ah), V::sub(b, bh));
        let e = V::sub(V::mul(ah, bh), p);
        let e = V::add(V::add(e, V::mul(ah, bl)), V::mul(al, bh));
        V::add(e, V::mul(al, bl))
    }
}

/// [`pow_f64`] over vectors.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x`, `y` are fine (the table indices are
/// masked to the tables).
#[inline(always)]
pub(crate) unsafe fn pow_v64<V: FloatVector<T = f64, Int: IntVector<T = i64>>>(x: V, y: V) -> V {
    // SAFETY: the caller's contract; the table indices are `& 31`, inside the
    // 32-entry tables.
    unsafe {
        let abs = V::from_bits(V::Int::splat(i64::MAX));
        let ax = V::and_bits(x, abs);
        let ay = V::and_bits(y, abs);
        let mut special = V::mask_or(
            V::mask_or(
                V::lt(ax, V::splat(f64::MIN_POSITIVE)),
                V::gt(ax, V::splat(f64::MAX)),
            ),
            V::mask_or(V::unord(x, y), V::ge(ay, V::splat(2251799813685248.0))),
        );
        // y's parity (|y| < 2^51 here); a negative x needs an integer y.
        let yi = V::round_int(y);
        let frac = V::and_bits(V::sub(y, V::from_int(yi)), abs);
        special = V::mask_or(
            special,
            V::mask_and(V::lt(x, V::zero()), V::gt(frac, V::zero())),
        );
        let flip = V::Int::and(V::Int::shl::<63>(yi), V::to_bits(x));
        // log |x| = t2 + lo
        let ix = V::to_bits(ax);
        let tmp = V::Int::sub(ix, V::Int::splat(0x3fe6_0000_0000_0000));
        let i = V::Int::and(V::Int::shr::<47>(tmp), V::Int::splat(31));
        let kb = V::Int::shr::<52>(V::Int::add(tmp, V::Int::splat(1024 << 52)));
        let kd = V::sub(V::from_int(kb), V::splat(1024.0));
        let z = V::from_bits(V::Int::sub(
            ix,
            V::Int::and(tmp, V::Int::splat((0xfffu64 << 52) as i64)),
        ));
        let mask = V::from_bits(V::Int::splat(!((1i64 << 27) - 1)));
        let invc = V::table32(POW_F64_INVC.as_ptr(), i);
        let zh = V::and_bits(z, mask);
        // Exact products and sums: fused or not, the same bits.
        // Both products exact, and the first difference: r + rl by a two-sum.
        let a1 = V::madd(zh, invc, V::splat(-1.0));
        let a2 = V::mul(V::sub(z, zh), invc);
        let r = V::add(a1, a2);
        let bb = V::sub(r, a1);
        let rl = V::add(V::sub(a1, V::sub(r, bb)), V::sub(a2, bb));
        let w = V::madd(
            kd,
            V::splat(LOG_F64_LN2_HI),
            V::table32(POW_F64_LOGC_HI.as_ptr(), i),
        );
        let t1 = V::add(w, r);
        let e1 = V::add(V::sub(w, t1), r);
        let qh = V::mul(r, r);
        let ql = prod_err(r, r, qh, mask);
        let a = V::mul(V::splat(-0.5), qh);
        let t2 = V::add(t1, a);
        let e2 = V::add(V::sub(t1, t2), a);
        let c = V::mul(V::mul(qh, r), horner_v(&POW_F64_POLY, r));
        let lo = V::add(V::add(e1, e2), V::madd(V::splat(-0.5), ql, c));
        let lo = V::add(lo, V::madd(V::sub(V::zero(), r), rl, rl));
        let lo = V::madd(kd, V::splat(LOG_F64_LN2_LO), lo);
        let lo = V::add(lo, V::table32(POW_F64_LOGC_LO.as_ptr(), i));
        // y log|x| = eh + el
        // Renormalised (as in `log_dd_f64`).
        let hi = V::add(t2, lo);
        let lo = V::add(V::sub(t2, hi), lo);
        let eh = V::mul(y, hi);
        let el = V::madd(y, lo, prod_err(y, hi, eh, mask));
        special = V::mask_or(special, V::ge(V::and_bits(eh, abs), V::splat(700.0)));
        // exp(eh + el)
        let zz = V::madd(eh, V::splat(EXP_F64_N_LN2), V::splat(SHIFT_F64));
        let kd = V::sub(zz, V::splat(SHIFT_F64));
        let ki = V::to_bits(zz);
        let r0 = V::madd(kd, V::splat(-EXP_F64_LN2_N_HI), eh);
        let r = V::add(V::madd(kd, V::splat(-EXP_F64_LN2_N_LO), r0), el);
        let (s, tail) = <ExpF64 as ExpTable<V>>::scale(ki);
        let p = <ExpF64 as ExpTable<V>>::expm1(r);
        let res = V::madd(s, V::add(tail, p), s);
        // The sign of x where y is odd (the result is positive: adding is or-ing).
        let res = V::from_bits(V::Int::add(V::to_bits(res), flip));
        if V::any(special) {
            return patch2(x, y, res, special, pow_f64);
        }
        res
    }
}

/// [`pow_f64`]'s steps in `f32` (the oracle stays the `f64` one, rounded).
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x`, `y` are fine (the table indices are
/// masked to the tables).
#[inline(always)]
pub(crate) unsafe fn pow_v32<V: FloatVector<T = f32, Int: IntVector<T = i32>>>(x: V, y: V) -> V {
    // SAFETY: as in `pow_v64` (indices `& 31`, 32-entry tables).
    unsafe {
        let abs = V::from_bits(V::Int::splat(i32::MAX));
        let ax = V::and_bits(x, abs);
        let ay = V::and_bits(y, abs);
        let mut special = V::mask_or(
            V::mask_or(
                V::lt(ax, V::splat(f32::MIN_POSITIVE)),
                V::gt(ax, V::splat(f32::MAX)),
            ),
            V::mask_or(V::unord(x, y), V::ge(ay, V::splat(4194304.0))),
        );
        let yi = V::round_int(y);
        let frac = V::and_bits(V::sub(y, V::from_int(yi)), abs);
        special = V::mask_or(
            special,
            V::mask_and(V::lt(x, V::zero()), V::gt(frac, V::zero())),
        );
        let flip = V::Int::and(V::Int::shl::<31>(yi), V::to_bits(x));
        let ix = V::to_bits(ax);
        let tmp = V::Int::sub(ix, V::Int::splat(0x3f30_0000));
        let i = V::Int::and(V::Int::shr::<18>(tmp), V::Int::splat(31));
        let kb = V::Int::shr::<23>(V::Int::add(tmp, V::Int::splat(256 << 23)));
        let kd = V::sub(V::from_int(kb), V::splat(256.0));
        let z = V::from_bits(V::Int::sub(
            ix,
            V::Int::and(tmp, V::Int::splat(0xff80_0000u32 as i32)),
        ));
        let mask = V::from_bits(V::Int::splat(!((1i32 << 12) - 1)));
        let invc = V::table32(POW_F32_INVC.as_ptr(), i);
        let zh = V::and_bits(z, mask);
        // Both products exact, and the first difference: r + rl by a two-sum.
        let a1 = V::madd(zh, invc, V::splat(-1.0));
        let a2 = V::mul(V::sub(z, zh), invc);
        let r = V::add(a1, a2);
        let bb = V::sub(r, a1);
        let rl = V::add(V::sub(a1, V::sub(r, bb)), V::sub(a2, bb));
        let w = V::madd(
            kd,
            V::splat(LOG_F32_LN2_HI),
            V::table32(POW_F32_LOGC_HI.as_ptr(), i),
        );
        let t1 = V::add(w, r);
        let e1 = V::add(V::sub(w, t1), r);
        let qh = V::mul(r, r);
        let ql = prod_err(r, r, qh, mask);
        let a = V::mul(V::splat(-0.5), qh);
        let t2 = V::add(t1, a);
        let e2 = V::add(V::sub(t1, t2), a);
        let c = V::mul(V::mul(qh, r), horner_v(&POW_F32_POLY, r));
        let lo = V::add(V::add(e1, e2), V::madd(V::splat(-0.5), ql, c));
        let lo = V::add(lo, V::madd(V::sub(V::zero(), r), rl, rl));
        let lo = V::madd(kd, V::splat(LOG_F32_LN2_LO), lo);
        let lo = V::add(lo, V::table32(POW_F32_LOGC_LO.as_ptr(), i));
        // Renormalised (as in `log_dd_f64`).
        let hi = V::add(t2, lo);
        let lo = V::add(V::sub(t2, hi), lo);
        let eh = V::mul(y, hi);
        let el = V::madd(y, lo, prod_err(y, hi, eh, mask));
        special = V::mask_or(special, V::ge(V::and_bits(eh, abs), V::splat(80.0)));
        let zz = V::madd(eh, V::splat(EXP_F32_N_LN2), V::splat(SHIFT_F32));
        let kd = V::sub(zz, V::splat(SHIFT_F32));
        let ki = V::to_bits(zz);
        let r0 = V::madd(kd, V::splat(-EXP_F32_LN2_N_HI), eh);
        let r = V::add(V::madd(kd, V::splat(-EXP_F32_LN2_N_LO), r0), el);
        let (s, tail) = <ExpF32 as ExpTable<V>>::scale(ki);
        let p = <ExpF32 as ExpTable<V>>::expm1(r);
        let res = V::madd(s, V::add(tail, p), s);
        let res = V::from_bits(V::Int::add(V::to_bits(res), flip));
        if V::any(special) {
            return patch2(x, y, res, special, pow_f32);
        }
        res
    }
}

/// The element types with `pow` kernels.
pub trait Pow: super::Math {
    /// The oracle.
    #[doc(hidden)]
    fn pow_oracle(x: Self, y: Self) -> Self;
    /// The vector kernel over `I`'s vectors.
    ///
    /// # Safety
    /// The CPU has `I`'s features.
    #[doc(hidden)]
    unsafe fn pow_kernel<I: Isa>(x: Self::Vector<I>, y: Self::Vector<I>) -> Self::Vector<I>;
}

impl Pow for f64 {
    #[inline(always)]
    fn pow_oracle(x: f64, y: f64) -> f64 {
        pow_f64(x, y)
    }
    #[inline(always)]
    unsafe fn pow_kernel<I: Isa>(x: I::F64, y: I::F64) -> I::F64 {
        // SAFETY: the caller's contract.
        unsafe { pow_v64(x, y) }
    }
}

impl Pow for f32 {
    #[inline(always)]
    fn pow_oracle(x: f32, y: f32) -> f32 {
        pow_f32(x, y)
    }
    #[inline(always)]
    unsafe fn pow_kernel<I: Isa>(x: I::F32, y: I::F32) -> I::F32 {
        // SAFETY: the caller's contract.
        unsafe { pow_v32(x, y) }
    }
}

/// `out[i] = pow(a[i], b[i])` for `n` elements over `I`'s vectors, where an
/// operand with `*_vec` false is the one value it points at (a scalar); the tail
/// padded with 1 so every element takes the same vector path. `a` or `b` may
/// equal `out` (in place).
///
/// # Safety
/// The CPU has `I`'s features; `out` is valid for `n` writes, and each operand
/// for `n` reads (one if it is a scalar).
#[inline(always)]
pub(crate) unsafe fn pow_raw<T: Pow, I: Isa>(
    a: *const T,
    a_vec: bool,
    b: *const T,
    b_vec: bool,
    out: *mut T,
    n: usize,
) {
    type V<T, I> = <T as Element>::Vector<I>;
    let w = <V<T, I> as Vector>::N;
    let mut i = 0;
    // SAFETY: `i + w <= n` for every full vector; the tail goes through buffers of
    // `MAX_LANES >= w` lanes; the caller's contract for the features and pointers.
    unsafe {
        let (sa, sb) = (
            (!a_vec).then(|| V::<T, I>::splat(*a)),
            (!b_vec).then(|| V::<T, I>::splat(*b)),
        );
        while i + w <= n {
            let x = sa.unwrap_or_else(|| V::<T, I>::load(a.add(i)));
            let y = sb.unwrap_or_else(|| V::<T, I>::load(b.add(i)));
            T::pow_kernel::<I>(x, y).store(out.add(i));
            i += w;
        }
        if i < n {
            let one = T::ONE;
            let (mut ba, mut bb) = ([one; MAX_LANES], [one; MAX_LANES]);
            if a_vec {
                core::ptr::copy_nonoverlapping(a.add(i), ba.as_mut_ptr(), n - i);
            }
            if b_vec {
                core::ptr::copy_nonoverlapping(b.add(i), bb.as_mut_ptr(), n - i);
            }
            let x = sa.unwrap_or_else(|| V::<T, I>::load(ba.as_ptr()));
            let y = sb.unwrap_or_else(|| V::<T, I>::load(bb.as_ptr()));
            T::pow_kernel::<I>(x, y).store(ba.as_mut_ptr());
            core::ptr::copy_nonoverlapping(ba.as_ptr(), out.add(i), n - i);
        }
    }
}
