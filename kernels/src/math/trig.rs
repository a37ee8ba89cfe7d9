//! `sin` and `cos` of `f32` and `f64`: the scalar oracles and the vector kernels.
//!
//! **Reduction.** `x = n pi/2 + r` with `n = round(x 2/pi)` and `|r| <= pi/4`,
//! `r` kept as an unevaluated sum `h + l`. Below the vector path's bound
//! ([`BOUND_F64`], [`BOUND_F32`]) it is Cody–Waite with `pi/2 = C1 + C2 + C3`
//! (159 bits for `f64`, 72 for `f32`): `C1` and `C2` are each split in two parts
//! short enough that `n` times a part is exact, so `x - n C1` is exact, `n C2` is
//! an exact double-word, and one two-sum gives `h + l`; no fma is needed, and the
//! reduction is the same on every tier. The worst case for cancellation (the
//! double nearest a multiple of pi/2, `|r|` near `2^-53` absolute below the bound)
//! keeps about `2^-100` relative accuracy in `r` for `f64`. Past the bound (and on
//! the scalar tier) [`rem_pio2_large`] reduces exactly with the bits of `2/pi`
//! (Payne–Hanek): 192 bits of `2/pi` from the input's exponent on, times its
//! 53-bit significand, modulo 4. `f32` lanes past their bound go through the `f64`
//! oracle (one more rounding, below 0.51 ULP in all).
//!
//! **Polynomials.** `sin r = r + r^3 S(r^2)` (degree 15 for `f64`, 9 for `f32`),
//! `cos r = 1 - r^2/2 + r^4 C(r^2)` (degree 14, 10), with `l` folded in as
//! `sin(h + l) ~ sin h + l cos h` (fdlibm's `__kernel_sin` / `__kernel_cos` form);
//! the quadrant `n mod 4` picks `±sin r` or `±cos r` (`cos` adds one to `n`).
//! Measured error under 1 ULP on every tier (`kernels/tests/math.rs`).

use super::tables::*;
use super::{horner, horner_v, Raw, SHIFT_F32, SHIFT_F64};
use crate::vector::{FloatVector, IntVector, Vector};

/// `|x|` below which the vector path reduces (`|n| < 2^24`, so `n` times each
/// 26- or 27-bit part of `pi/2` is exact); NaN, infinities and larger `|x|` take
/// the scalar path.
pub(crate) const BOUND_F64: f64 = 16777216.0;
/// [`BOUND_F64`] for `f32` (`|n| < 2^12`, the parts having 12 bits).
pub(crate) const BOUND_F32: f32 = 6400.0;
/// `2^-27`: below it `sin x` rounds to `x` (`x^2 / 6 < 2^-55`), which the select
/// returns as is, so `sin(-0) = -0` and subnormals are exact.
const TINY_F64: f64 = 1.0 / 134217728.0;
/// `2^-13`, [`TINY_F64`] for `f32`.
const TINY_F32: f32 = 1.0 / 8192.0;

/// `x = n pi/2 + h + l` for `|x| <` [`BOUND_F64`]: `n` (its low two bits) and the
/// remainder as a double-word (the module doc has the steps).
#[inline(always)]
fn reduce_f64(x: f64) -> (i64, f64, f64) {
    let z = x * TRIG_F64_INV_PIO2 + SHIFT_F64;
    let nd = z - SHIFT_F64;
    // Both products exact, and so the differences (on the grid of 2^-52, below 2).
    let r1 = (x - nd * TRIG_F64_C1A) - nd * TRIG_F64_C1B;
    let (pa, pb) = (nd * TRIG_F64_C2A, nd * TRIG_F64_C2B);
    let p2 = pa + pb;
    let e2 = (pa - p2) + pb;
    // Two-sum of r1 and -p2.
    let h = r1 - p2;
    let bb = h - r1;
    let l = (r1 - (h - bb)) - (p2 + bb);
    let l = (l - e2) - nd * TRIG_F64_C3;
    (z.to_bits() as i64, h, l)
}

/// [`reduce_f64`] for `f32` below [`BOUND_F32`].
#[inline(always)]
fn reduce_f32(x: f32) -> (i32, f32, f32) {
    let z = x * TRIG_F32_INV_PIO2 + SHIFT_F32;
    let nd = z - SHIFT_F32;
    let r1 = (x - nd * TRIG_F32_C1A) - nd * TRIG_F32_C1B;
    let (pa, pb) = (nd * TRIG_F32_C2A, nd * TRIG_F32_C2B);
    let p2 = pa + pb;
    let e2 = (pa - p2) + pb;
    let h = r1 - p2;
    let bb = h - r1;
    let l = (r1 - (h - bb)) - (p2 + bb);
    let l = (l - e2) - nd * TRIG_F32_C3;
    (z.to_bits() as i32, h, l)
}

/// 64 bits of `2/pi` from the bit of weight `2^-j` on (`j` may be 0 or negative:
/// the bits above the binary point are 0).
fn two_over_pi_bits(j: i32) -> u64 {
    let w = &TRIG_TWO_OVER_PI;
    let i = j - 1;
    if i < 0 {
        return if i <= -64 { 0 } else { w[0] >> (-i) };
    }
    let (k, s) = ((i / 64) as usize, (i % 64) as u32);
    let next = if s == 0 { 0 } else { w[k + 1] >> (64 - s) };
    (w[k] << s) | next
}

/// `x = n pi/2 + h + l` for any finite `x` (Payne–Hanek): `n mod 4` and the
/// remainder as a double-word, `|h| <= pi/4`, relative error below `2^-100`.
///
/// `x = m 2^e` with `m` the 53-bit significand; the bits of `2/pi` of weight
/// above `2^(1 - e)` make multiples of 4 in `x 2/pi` and are skipped, so the
/// product of `m` with the next 192 bits, modulo `2^192`, is `x 2/pi mod 4` with
/// 190 bits after the point.
pub(crate) fn rem_pio2_large(x: f64) -> (i64, f64, f64) {
    let b = x.to_bits() & (u64::MAX >> 1);
    let (m, e) = if b >> 52 == 0 {
        (b, -1074)
    } else {
        ((b & ((1 << 52) - 1)) | (1 << 52), (b >> 52) as i32 - 1075)
    };
    let j0 = e - 1;
    let (w0, w1, w2) = (
        two_over_pi_bits(j0),
        two_over_pi_bits(j0 + 64),
        two_over_pi_bits(j0 + 128),
    );
    let m = m as u128;
    let p2 = m * w2 as u128;
    let p1 = m * w1 as u128 + (p2 >> 64);
    let p0 = (m * w0 as u128 + (p1 >> 64)) as u64;
    let (p1, p2) = (p1 as u64, p2 as u64);
    // Two integer bits (n mod 4), then a 128-bit fraction.
    let mut n = (p0 >> 62) as i64;
    let f = (((p0 << 2) | (p1 >> 62)) as u128) << 64 | ((p1 << 2) | (p2 >> 62)) as u128;
    // The fraction in [-1/2, 1/2): past one half, the next n and f - 1.
    if f >> 127 == 1 {
        n += 1;
    }
    let fs = f as i128;
    let hi = fs as f64;
    let lo = fs.wrapping_sub(hi as i128) as f64;
    let scale = f64::from_bits((1023 - 128) << 52);
    let (hi, lo) = (hi * scale, lo * scale);
    // (hi + lo) pi/2 in double-word: the product's error by an exact fma.
    let ph = hi * TRIG_F64_PIO2_HI;
    let pe = hi.mul_add(TRIG_F64_PIO2_HI, -ph) + (hi * TRIG_F64_PIO2_LO + lo * TRIG_F64_PIO2_HI);
    let h = ph + pe;
    let l = ph - h + pe;
    if x < 0.0 {
        (-n, -h, -l)
    } else {
        (n, h, l)
    }
}

/// `pi/2` rounded (the sum of [`TRIG_F64_C1A`] and [`TRIG_F64_C1B`]).
const TRIG_F64_PIO2_HI: f64 = TRIG_F64_C1A + TRIG_F64_C1B;
/// `pi/2` minus [`TRIG_F64_PIO2_HI`], rounded.
const TRIG_F64_PIO2_LO: f64 = TRIG_F64_C2A + TRIG_F64_C2B;

/// `sin(h + l)` for `|h| <= pi/4`, `l` below `h`'s ULP (fdlibm's form).
#[inline(always)]
fn sin_poly_f64(h: f64, l: f64) -> f64 {
    let z = h * h;
    let v = z * h;
    let r = horner(&SIN_F64_POLY[1..], z);
    h - ((z * (0.5 * l - v * r) - l) - v * SIN_F64_POLY[0])
}

/// `cos(h + l)` for `|h| <= pi/4`: `1 - z/2` with its rounding error recovered.
#[inline(always)]
fn cos_poly_f64(h: f64, l: f64) -> f64 {
    let z = h * h;
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    w + (((1.0 - w) - hz) + (z * z * horner(&COS_F64_POLY, z) - h * l))
}

/// [`sin_poly_f64`] in `f32`.
#[inline(always)]
fn sin_poly_f32(h: f32, l: f32) -> f32 {
    let z = h * h;
    let v = z * h;
    let r = horner(&SIN_F32_POLY[1..], z);
    h - ((z * (0.5 * l - v * r) - l) - v * SIN_F32_POLY[0])
}

/// [`cos_poly_f64`] in `f32`.
#[inline(always)]
fn cos_poly_f32(h: f32, l: f32) -> f32 {
    let z = h * h;
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    w + (((1.0 - w) - hz) + (z * z * horner(&COS_F32_POLY, z) - h * l))
}

/// `sin x` (`COS` false) or `cos x` for `f64`.
#[inline(always)]
fn trig_f64<const COS: bool>(x: f64) -> f64 {
    let (n, h, l) = if x.abs() < BOUND_F64 {
        reduce_f64(x)
    } else if x.is_finite() {
        rem_pio2_large(x)
    } else {
        // NaN for ±Inf and NaN (a NaN input's payload kept, as NumPy).
        return if x.is_nan() { x + x } else { f64::NAN };
    };
    if !COS && x.abs() < TINY_F64 {
        return x;
    }
    let q = if COS { n + 1 } else { n };
    let y = if q & 1 == 1 {
        cos_poly_f64(h, l)
    } else {
        sin_poly_f64(h, l)
    };
    if q & 2 == 2 {
        -y
    } else {
        y
    }
}

/// `sin x` for `f64` within 1 ULP (the module doc of `trig` has the algorithm):
/// NaN for NaN and `±Inf`, `sin(-0) = -0`, `sin x = x` for tiny `x`, and every
/// finite `x` reduced exactly.
///
/// ```
/// use ndsimd_kernels::math::sin_f64;
/// assert_eq!(sin_f64(0.0), 0.0);
/// assert!(sin_f64(-0.0).is_sign_negative());
/// assert!(sin_f64(f64::INFINITY).is_nan());
/// assert_eq!(sin_f64(std::f64::consts::FRAC_PI_2), 1.0);
/// // 1e22 reduced exactly (its sine is -0.8522008497671888).
/// assert_eq!(sin_f64(1e22), -0.8522008497671888);
/// ```
pub fn sin_f64(x: f64) -> f64 {
    trig_f64::<false>(x)
}

/// `cos x` for `f64` within 1 ULP, as [`sin_f64`]: NaN for NaN and `±Inf`.
///
/// ```
/// use ndsimd_kernels::math::cos_f64;
/// assert_eq!(cos_f64(0.0), 1.0);
/// assert_eq!(cos_f64(std::f64::consts::PI), -1.0);
/// assert!(cos_f64(f64::NEG_INFINITY).is_nan());
/// ```
pub fn cos_f64(x: f64) -> f64 {
    trig_f64::<true>(x)
}

/// `sin x` (`COS` false) or `cos x` for `f32`.
#[inline(always)]
fn trig_f32<const COS: bool>(x: f32) -> f32 {
    if x.is_nan() || x.abs() >= BOUND_F32 {
        // NaN, infinities and large |x|: the f64 oracle, rounded once more.
        return trig_f64::<COS>(x as f64) as f32;
    }
    if !COS && x.abs() < TINY_F32 {
        return x;
    }
    let (n, h, l) = reduce_f32(x);
    let q = if COS { n + 1 } else { n };
    let y = if q & 1 == 1 {
        cos_poly_f32(h, l)
    } else {
        sin_poly_f32(h, l)
    };
    if q & 2 == 2 {
        -y
    } else {
        y
    }
}

/// `sin x` for `f32` within 1 ULP, [`sin_f64`]'s algorithm in `f32` below
/// `|x| < 6400`, the `f64` one rounded to `f32` beyond.
///
/// ```
/// use ndsimd_kernels::math::sin_f32;
/// assert_eq!(sin_f32(0.0), 0.0);
/// assert!(sin_f32(f32::NAN).is_nan());
/// assert_eq!(sin_f32(std::f32::consts::FRAC_PI_2), 1.0);
/// ```
pub fn sin_f32(x: f32) -> f32 {
    trig_f32::<false>(x)
}

/// `cos x` for `f32` within 1 ULP, as [`sin_f32`].
///
/// ```
/// use ndsimd_kernels::math::cos_f32;
/// assert_eq!(cos_f32(0.0), 1.0);
/// assert!(cos_f32(f32::INFINITY).is_nan());
/// ```
pub fn cos_f32(x: f32) -> f32 {
    trig_f32::<true>(x)
}

/// The lanes of `q` whose bit 0 is set, as a mask: `±1.0` by the bit moved into
/// the sign of `1.0`'s bits, compared with 0.
///
/// # Safety
/// The CPU has `V`'s ISA features.
#[inline(always)]
unsafe fn odd_v64<V: FloatVector<T = f64, Int: IntVector<T = i64>>>(q: V::Int) -> V::Mask {
    // SAFETY: the caller's contract.
    unsafe {
        let one = V::Int::splat(1f64.to_bits() as i64);
        V::lt(
            V::from_bits(V::Int::or(V::Int::shl::<63>(q), one)),
            V::zero(),
        )
    }
}

/// [`odd_v64`] for `f32` lanes.
///
/// # Safety
/// The CPU has `V`'s ISA features.
#[inline(always)]
unsafe fn odd_v32<V: FloatVector<T = f32, Int: IntVector<T = i32>>>(q: V::Int) -> V::Mask {
    // SAFETY: the caller's contract.
    unsafe {
        let one = V::Int::splat(1f32.to_bits() as i32);
        V::lt(
            V::from_bits(V::Int::or(V::Int::shl::<31>(q), one)),
            V::zero(),
        )
    }
}

/// [`sin_f64`] / [`cos_f64`] over vectors: the Cody–Waite path on every lane,
/// both polynomials, the quadrant's pick; lanes past the bound (and NaN,
/// infinities) patched by the oracle.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine (no memory is touched).
#[inline(always)]
pub(crate) unsafe fn trig_v64<V: FloatVector<T = f64, Int: IntVector<T = i64>>, const COS: bool>(
    x: V,
) -> Raw<V> {
    // SAFETY: the caller's contract (the ISA's features are present).
    unsafe {
        let ax = V::and_bits(x, V::from_bits(V::Int::splat(i64::MAX)));
        let special = V::mask_or(V::ge(ax, V::splat(BOUND_F64)), V::unord(x, x));
        let z = V::madd(x, V::splat(TRIG_F64_INV_PIO2), V::splat(SHIFT_F64));
        let nd = V::sub(z, V::splat(SHIFT_F64));
        // The products are exact, so fused or not gives the same bits.
        let r1 = V::madd(nd, V::splat(-TRIG_F64_C1A), x);
        let r1 = V::madd(nd, V::splat(-TRIG_F64_C1B), r1);
        let pa = V::mul(nd, V::splat(TRIG_F64_C2A));
        let pb = V::mul(nd, V::splat(TRIG_F64_C2B));
        let p2 = V::add(pa, pb);
        let e2 = V::add(V::sub(pa, p2), pb);
        let h = V::sub(r1, p2);
        let bb = V::sub(h, r1);
        let l = V::sub(V::sub(r1, V::sub(h, bb)), V::add(p2, bb));
        let l = V::madd(nd, V::splat(-TRIG_F64_C3), V::sub(l, e2));
        let zz = V::mul(h, h);
        // sin(h + l)
        let v = V::mul(zz, h);
        let r = horner_v(&SIN_F64_POLY[1..], zz);
        let t = V::sub(V::mul(V::splat(0.5), l), V::mul(v, r));
        let t = V::sub(
            V::sub(V::mul(zz, t), l),
            V::mul(v, V::splat(SIN_F64_POLY[0])),
        );
        let s = V::sub(h, t);
        // cos(h + l)
        let hz = V::mul(V::splat(0.5), zz);
        let w = V::sub(V::splat(1.0), hz);
        let c = V::sub(
            V::mul(V::mul(zz, zz), horner_v(&COS_F64_POLY, zz)),
            V::mul(h, l),
        );
        let c = V::add(w, V::add(V::sub(V::sub(V::splat(1.0), w), hz), c));
        let mut q = V::to_bits(z);
        if COS {
            q = V::Int::add(q, V::Int::splat(1));
        }
        let y = V::select(odd_v64::<V>(q), c, s);
        // The sign bit flipped where bit 1 of q is set (adding 2^63 is a xor there).
        let flip = V::Int::shl::<62>(V::Int::and(q, V::Int::splat(2)));
        let mut y = V::from_bits(V::Int::add(V::to_bits(y), flip));
        if !COS {
            y = V::select(V::lt(ax, V::splat(TINY_F64)), x, y);
        }
        (y, Some(special))
    }
}

/// [`trig_v64`] for `f32` lanes.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine (no memory is touched).
#[inline(always)]
pub(crate) unsafe fn trig_v32<V: FloatVector<T = f32, Int: IntVector<T = i32>>, const COS: bool>(
    x: V,
) -> Raw<V> {
    // SAFETY: the caller's contract (the ISA's features are present).
    unsafe {
        let ax = V::and_bits(x, V::from_bits(V::Int::splat(i32::MAX)));
        let special = V::mask_or(V::ge(ax, V::splat(BOUND_F32)), V::unord(x, x));
        let z = V::madd(x, V::splat(TRIG_F32_INV_PIO2), V::splat(SHIFT_F32));
        let nd = V::sub(z, V::splat(SHIFT_F32));
        let r1 = V::madd(nd, V::splat(-TRIG_F32_C1A), x);
        let r1 = V::madd(nd, V::splat(-TRIG_F32_C1B), r1);
        let pa = V::mul(nd, V::splat(TRIG_F32_C2A));
        let pb = V::mul(nd, V::splat(TRIG_F32_C2B));
        let p2 = V::add(pa, pb);
        let e2 = V::add(V::sub(pa, p2), pb);
        let h = V::sub(r1, p2);
        let bb = V::sub(h, r1);
        let l = V::sub(V::sub(r1, V::sub(h, bb)), V::add(p2, bb));
        let l = V::madd(nd, V::splat(-TRIG_F32_C3), V::sub(l, e2));
        let zz = V::mul(h, h);
        let v = V::mul(zz, h);
        let r = horner_v(&SIN_F32_POLY[1..], zz);
        let t = V::sub(V::mul(V::splat(0.5), l), V::mul(v, r));
        let t = V::sub(
            V::sub(V::mul(zz, t), l),
            V::mul(v, V::splat(SIN_F32_POLY[0])),
        );
        let s = V::sub(h, t);
        let hz = V::mul(V::splat(0.5), zz);
        let w = V::sub(V::splat(1.0), hz);
        let c = V::sub(
            V::mul(V::mul(zz, zz), horner_v(&COS_F32_POLY, zz)),
            V::mul(h, l),
        );
        let c = V::add(w, V::add(V::sub(V::sub(V::splat(1.0), w), hz), c));
        let mut q = V::to_bits(z);
        if COS {
            q = V::Int::add(q, V::Int::splat(1));
        }
        let y = V::select(odd_v32::<V>(q), c, s);
        let flip = V::Int::shl::<30>(V::Int::and(q, V::Int::splat(2)));
        let mut y = V::from_bits(V::Int::add(V::to_bits(y), flip));
        if !COS {
            y = V::select(V::lt(ax, V::splat(TINY_F32)), x, y);
        }
        (y, Some(special))
    }
}
