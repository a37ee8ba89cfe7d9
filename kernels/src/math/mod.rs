//! `exp` and `log` of `f32` and `f64`: the scalar oracles (plain Rust, and the
//! documentation of the algorithms) and the vector kernels over [`crate::vector`]
//! that every SIMD tier instantiates.
//!
//! **exp.** `x = k ln2 / N + r` with `N = 32`, `k = round(x N / ln2)` (the shift
//! trick: adding `1.5 * 2^52` leaves `k` in the low bits) and `|r| <= ln2 / 64`;
//! `exp(x) = 2^(k div N) * 2^(j/N) * exp(r)` with `j = k mod N`. The table holds
//! the bits of `2^(j/N)` less `j << (52 - 5)`, so adding `k << 47` to an entry
//! gives the bits of `2^(k/N)` (rounded) directly, and the entry's rounding error
//! relative to it (`tail`), so `exp(x) = s + s * (tail + expm1(r))` with
//! `expm1(r)` a degree-6 polynomial (degree 3 for `f32`). Error under 0.52 ULP
//! (one rounding at the end, the rest below 2^-58 relative). Results near
//! overflow and in the subnormal range scale in two steps, the subnormal one
//! rounding once at the subnormal precision ([`exp_f64`]'s special case).
//!
//! **log.** `x = 2^k z` with `z` in `[0.6875, 1.375)`; the top 5 bits of `z`'s
//! offset mantissa pick one of `N = 32` subintervals with center `c`, and
//! `invc` is `1/c` rounded. Then `log(x) = k ln2 - log(invc) + log1p(r)` with
//! `r = z * invc - 1` exact up to one rounding (one fma) and `|r| < 0.016`;
//! `-log(invc)` is tabulated as `hi + lo` with `hi` on a grid so coarse that
//! `k ln2_hi + hi` is exact, and `log1p(r)` is a degree-8 polynomial (degree 4
//! for `f32`). Near 1
//! (`|x - 1| < 1/16`, where the result is small and `r`'s rounding would show)
//! `log(x) = log1p(x - 1)` with `x - 1` exact and a degree-12 polynomial.
//!
//! **expm1, log1p, tanh** (`expm1.rs`, `log1p.rs`, `tanh.rs`) build on these two
//! reductions and stay accurate near 0 ([`expm1_f64`], [`log1p_f64`],
//! [`tanh_f64`] have the algorithms).
//!
//! Every table entry and coefficient is in [`tables`], generated from its
//! definition by `tools/gen_math_tables.py` (mpmath); a test checks the entries
//! against their definitions.
//!
//! Tiers: the scalar tier runs these oracles; the others the vector kernels, which
//! fuse the multiply-adds where the ISA has FMA, so the results of two tiers may
//! differ in the last bit (each within the bound: the accuracy tests in
//! `kernels/tests/math.rs` measure every tier against correctly rounded values).
//! On AVX-512, f64 exp and log take 16-entry tables (one permute each) and log
//! reduces by `getexp`/`getmant` (`Exp16F64`, `log16_v64`): fewer
//! instructions per vector, the same bound, other last bits. There exp scales
//! by `vscalefpd` and judges its special lanes by the result (one
//! `vfpclasspd`), the same bits as the integer scaling where both apply.
//! On AVX2, exp reads its table by permutes too, two `vpermps` and a blend per
//! read: 16 entries for f32 (`Exp16F32`, a degree-4 polynomial), 8 for f64
//! (`Exp8F64`, degree 8). The 32-entry table's gathers took twice the time for
//! f32 and a third more for f64 on Zen 3.
//!
//! Each kernel returns its fast-path result and the lanes that need the oracle
//! (`Raw`); `map_raw` patches those after each block of vectors, so its
//! hot loop makes no call and keeps the constants and tables in registers.

#[rustfmt::skip]
mod tables;
mod pow;
mod trig;

pub(crate) use pow::pow_raw;
pub use pow::{pow_f32, pow_f64, Pow};
pub use trig::{cos_f32, cos_f64, sin_f32, sin_f64};

use crate::vector::{Element, FloatVector, IntVector, Isa, Vector, MAX_LANES};
use tables::*;

mod expm1;
mod log1p;
mod tanh;
pub use expm1::{expm1_f32, expm1_f64};
pub use log1p::{log1p_f32, log1p_f64};
pub use tanh::{tanh_f32, tanh_f64};

/// `1.5 * 2^52`: adding it to a value of magnitude below `2^51` rounds that value
/// to an integer, which lands in the low bits of the sum.
const SHIFT_F64: f64 = 6755399441055744.0;
/// `1.5 * 2^23`, [`SHIFT_F64`] for `f32`.
const SHIFT_F32: f32 = 12582912.0;

/// `c[0] + c[1] x + c[2] x^2 + ...` by Horner's rule.
#[inline(always)]
fn horner<T: crate::scalar::Arith>(c: &[T], x: T) -> T {
    let mut acc = c[c.len() - 1];
    for &ci in c[..c.len() - 1].iter().rev() {
        acc = acc * x + ci;
    }
    acc
}

/// [`horner`] over vectors (fused where the ISA has FMA).
///
/// # Safety
/// The CPU has `V`'s ISA features. An empty `c` panics, not UB.
#[inline(always)]
unsafe fn horner_v<V: FloatVector>(c: &[V::T], x: V) -> V {
    // SAFETY: the caller's contract (the ISA's features are present).
    unsafe {
        let mut acc = V::splat(c[c.len() - 1]);
        for &ci in c[..c.len() - 1].iter().rev() {
            acc = V::madd(acc, x, V::splat(ci));
        }
        acc
    }
}

/// `c[0] + c[1] x + ...` over vectors by Estrin's scheme: neighbours joined
/// with `x` (`c[0] + c[1] x`, `c[2] + c[3] x`, ...), those pairs with `x^2`, then
/// with `x^4`, so the dependent chain is `log2(len)` multiply-adds long (Horner's
/// is `len - 1`) and the independent ones keep both FMA pipes busy. `pw` holds
/// `x, x^2, x^4, ...`, one power per level.
///
/// # Safety
/// The CPU has `V`'s ISA features. An empty `c`, more than 16 coefficients or
/// `pw` too short panics, not UB.
#[inline(always)]
unsafe fn estrin_v<V: FloatVector>(c: &[V::T], pw: &[V]) -> V {
    // SAFETY: the caller's contract (the ISA's features are present).
    unsafe {
        let mut t = [V::zero(); 16];
        let mut n = c.len();
        for (k, tk) in t[..n.div_ceil(2)].iter_mut().enumerate() {
            *tk = match c.get(2 * k + 1) {
                Some(&hi) => V::madd(V::splat(hi), pw[0], V::splat(c[2 * k])),
                None => V::splat(c[2 * k]),
            };
        }
        n = n.div_ceil(2);
        let mut level = 1;
        while n > 1 {
            for k in 0..n / 2 {
                t[k] = V::madd(t[2 * k + 1], pw[level], t[2 * k]);
            }
            if n % 2 == 1 {
                t[n / 2] = t[n - 1];
            }
            n = n.div_ceil(2);
            level += 1;
        }
        t[0]
    }
}

/// `e^x` for `f64` within 0.52 ULP (the module doc has the algorithm); NaN in,
/// NaN out; `+Inf` above `709.78`, `+0` below `-745.14`, correctly rounded
/// subnormals between.
///
/// ```
/// use ndsimd_kernels::math::exp_f64;
/// assert_eq!(exp_f64(0.0), 1.0);
/// assert_eq!(exp_f64(1000.0), f64::INFINITY);
/// assert_eq!(exp_f64(-1000.0), 0.0);
/// assert!((exp_f64(1.0) - std::f64::consts::E).abs() <= f64::EPSILON);
/// ```
pub fn exp_f64(x: f64) -> f64 {
    exp_any_f64::<false>(x)
}

/// `2^x` for `f64` within 0.52 ULP: [`exp_f64`]'s table and polynomial, with
/// `k = round(32 x)` and `r = (x - k/32) ln2` (the difference exact); `+Inf`
/// above 1024, `+0` below -1076, correctly rounded subnormals between.
///
/// ```
/// use ndsimd_kernels::math::exp2_f64;
/// assert_eq!(exp2_f64(10.0), 1024.0);
/// assert_eq!(exp2_f64(-1074.0), f64::from_bits(1));
/// assert_eq!(exp2_f64(1024.0), f64::INFINITY);
/// assert!(exp2_f64(f64::NAN).is_nan());
/// ```
pub fn exp2_f64(x: f64) -> f64 {
    exp_any_f64::<true>(x)
}

/// [`exp_f64`] (`B2` false) or [`exp2_f64`] (`B2` true).
#[inline(always)]
fn exp_any_f64<const B2: bool>(x: f64) -> f64 {
    // For |x| < 700 (exp) or 1000 (exp2) the result and `s * tmp` are normal and
    // finite (a subnormal `s * tmp` would lose bits the result keeps); the rest
    // goes the careful way.
    let (lim, over, under) = if B2 {
        (1000.0, 1024.0, -1076.0)
    } else {
        (700.0, 709.8, -746.0)
    };
    let special = x.is_nan() || x.abs() >= lim;
    if special {
        if x.is_nan() {
            return x + x;
        }
        if x > over {
            return f64::INFINITY;
        }
        if x < under {
            return 0.0;
        }
    }
    let (kd, ki, r);
    if B2 {
        let z = x * 32.0 + SHIFT_F64;
        kd = z - SHIFT_F64;
        ki = z.to_bits();
        // `x - k/32` is exact (both on the grid of x's ULP or 1/32, |r| <= 1/64).
        r = (x - kd * (1.0 / 32.0)) * EXP2_F64_LN2;
    } else {
        let z = x * EXP_F64_N_LN2 + SHIFT_F64;
        kd = z - SHIFT_F64;
        ki = z.to_bits();
        // `kd * HI` is exact (HI has 36 bits, |k| < 2^16), so is `x - kd * HI`.
        r = x - kd * EXP_F64_LN2_N_HI - kd * EXP_F64_LN2_N_LO;
    }
    let j = (ki & 31) as usize;
    let sbits = EXP_F64_SCALE[j].wrapping_add(ki << 47);
    let tmp = EXP_F64_TAIL[j] + (r + r * r * horner(&EXP_F64_POLY, r));
    if !special {
        let s = f64::from_bits(sbits);
        return s + s * tmp;
    }
    exp_f64_scaled(x, sbits, tmp)
}

/// `exp(x) = s (1 + tmp)` where `s`'s bits `sbits` overflowed or underflowed the
/// exponent field: scale by `2^±1009`/`2^1022` in two steps, and below the normal
/// range round once at the subnormal precision (adding 1 puts the rounding point of
/// `y` exactly where the subnormal's last bit will be).
fn exp_f64_scaled(x: f64, sbits: u64, tmp: f64) -> f64 {
    if x > 0.0 {
        let s = f64::from_bits(sbits.wrapping_sub(1009 << 52));
        return (s + s * tmp) * f64::from_bits((1023 + 1009) << 52);
    }
    let s = f64::from_bits(sbits.wrapping_add(1022 << 52));
    let mut y = s + s * tmp;
    if y < 1.0 {
        let lo = s - y + s * tmp;
        let hi = 1.0 + y;
        let lo = 1.0 - hi + y + lo;
        y = (hi + lo) - 1.0;
    }
    y * f64::from_bits(1 << 52)
}

/// `e^x` for `f32` within 0.52 ULP, the algorithm of [`exp_f64`] in `f32` with a
/// degree-3 polynomial. Outside `|x| < 80` (results near overflow or near the
/// subnormal range) it is [`exp_f64`] rounded to `f32`.
///
/// ```
/// use ndsimd_kernels::math::exp_f32;
/// assert_eq!(exp_f32(0.0), 1.0);
/// assert_eq!(exp_f32(89.0), f32::INFINITY);
/// assert_eq!(exp_f32(1.0), std::f32::consts::E);
/// ```
pub fn exp_f32(x: f32) -> f32 {
    exp_any_f32::<false>(x)
}

/// `2^x` for `f32` within 0.55 ULP, [`exp2_f64`]'s algorithm in `f32`; outside
/// `|x| < 120` it is [`exp2_f64`] rounded to `f32`.
///
/// ```
/// use ndsimd_kernels::math::exp2_f32;
/// assert_eq!(exp2_f32(3.0), 8.0);
/// assert_eq!(exp2_f32(-149.0), f32::from_bits(1));
/// assert_eq!(exp2_f32(128.0), f32::INFINITY);
/// ```
pub fn exp2_f32(x: f32) -> f32 {
    exp_any_f32::<true>(x)
}

/// [`exp_f32`] (`B2` false) or [`exp2_f32`] (`B2` true).
#[inline(always)]
fn exp_any_f32<const B2: bool>(x: f32) -> f32 {
    // |x| < 80 (exp) or 120 (exp2) keeps the result and `s * tmp` normal, as in
    // `exp_f64`.
    if x.is_nan() || x.abs() >= if B2 { 120.0 } else { 80.0 } {
        if x.is_nan() {
            return x + x;
        }
        let y = if B2 {
            exp2_f64(x as f64)
        } else {
            exp_f64(x as f64)
        };
        return y as f32;
    }
    let (kd, ki, r);
    if B2 {
        let z = x * 32.0 + SHIFT_F32;
        kd = z - SHIFT_F32;
        ki = z.to_bits();
        r = (x - kd * (1.0 / 32.0)) * EXP2_F32_LN2;
    } else {
        let z = x * EXP_F32_N_LN2 + SHIFT_F32;
        kd = z - SHIFT_F32;
        ki = z.to_bits();
        r = x - kd * EXP_F32_LN2_N_HI - kd * EXP_F32_LN2_N_LO;
    }
    let j = (ki & 31) as usize;
    let s = f32::from_bits(EXP_F32_SCALE[j].wrapping_add(ki << 18));
    let tmp = EXP_F32_TAIL[j] + (r + r * r * horner(&EXP_F32_POLY, r));
    s + s * tmp
}

/// `ln x` for `f64` within 0.52 ULP (the module doc has the algorithm): NaN for
/// NaN and `x < 0`, `-Inf` for `±0`, `+Inf` for `+Inf`, subnormals exact to the
/// bound.
///
/// ```
/// use ndsimd_kernels::math::log_f64;
/// assert_eq!(log_f64(1.0), 0.0);
/// assert_eq!(log_f64(0.0), f64::NEG_INFINITY);
/// assert!(log_f64(-1.0).is_nan());
/// assert_eq!(log_f64(std::f64::consts::E), 1.0);
/// ```
pub fn log_f64(x: f64) -> f64 {
    match log_hilo_f64(x) {
        Ok((hi, lo)) => hi + lo,
        Err(y) => y,
    }
}

/// `h c` for the unrounded `h + l` and the constant `c = c_hi + c_lo`, rounded
/// once at the end (the product's error recovered by an fma): log2 and log10 from
/// log's parts, within 0.02 ULP of one rounding of the exact product.
#[inline(always)]
fn scale_f64(h: f64, l: f64, c_hi: f64, c_lo: f64) -> f64 {
    let p = h * c_hi;
    let e = h.mul_add(c_hi, -p);
    p + (e + h.mul_add(c_lo, l * c_hi))
}

/// `log2 x` for `f64` within 0.53 ULP: [`log_f64`]'s unrounded parts times
/// `1/ln 2` in double-double; the same edges.
///
/// ```
/// use ndsimd_kernels::math::log2_f64;
/// assert_eq!(log2_f64(1024.0), 10.0);
/// assert_eq!(log2_f64(f64::from_bits(1)), -1074.0);
/// assert_eq!(log2_f64(0.0), f64::NEG_INFINITY);
/// assert!(log2_f64(-1.0).is_nan());
/// ```
pub fn log2_f64(x: f64) -> f64 {
    match log_hilo_f64(x) {
        Ok((h, l)) => scale_f64(h, l, LOG2_F64_SCALE_HI, LOG2_F64_SCALE_LO),
        Err(y) => y,
    }
}

/// `log10 x` for `f64` within 0.53 ULP, as [`log2_f64`] with `1/ln 10`.
///
/// ```
/// use ndsimd_kernels::math::log10_f64;
/// assert_eq!(log10_f64(1000.0), 3.0);
/// assert_eq!(log10_f64(1.0), 0.0);
/// assert_eq!(log10_f64(f64::INFINITY), f64::INFINITY);
/// ```
pub fn log10_f64(x: f64) -> f64 {
    match log_hilo_f64(x) {
        Ok((h, l)) => scale_f64(h, l, LOG10_F64_SCALE_HI, LOG10_F64_SCALE_LO),
        Err(y) => y,
    }
}

/// `ln x = hi + lo` before the last rounding (`hi + lo` rounded is [`log_f64`]),
/// or `Err` with the result for NaN, `x <= 0` and `+Inf`.
#[inline(always)]
fn log_hilo_f64(x: f64) -> Result<(f64, f64), f64> {
    if (x - 1.0).abs() < 0.0625 {
        let r = x - 1.0;
        return Ok((r, r * r * horner(&LOG_F64_POLY1, r)));
    }
    let mut ix = x.to_bits();
    // Not a positive normal finite number: NaN, ±0, negative, subnormal or +Inf.
    if ix.wrapping_sub(0x0010_0000_0000_0000) >= 0x7fe0_0000_0000_0000 {
        if x.is_nan() {
            return Err(x + x);
        }
        if x == 0.0 {
            return Err(f64::NEG_INFINITY);
        }
        if x == f64::INFINITY {
            return Err(x);
        }
        if x < 0.0 {
            return Err(f64::NAN);
        }
        // Subnormal: scaled by 2^52 into the normal range, the exponent 52 lower.
        ix = (x * f64::from_bits((1023 + 52) << 52))
            .to_bits()
            .wrapping_sub(52 << 52);
    }
    let tmp = ix.wrapping_sub(0x3fe6_0000_0000_0000);
    let i = ((tmp >> 47) & 31) as usize;
    let k = (tmp as i64) >> 52;
    let z = f64::from_bits(ix.wrapping_sub(tmp & (0xfff << 52)));
    let r = z.mul_add(LOG_F64_INVC[i], -1.0);
    let kd = k as f64;
    // Exact: both terms on the grid of 2^-42, the sum below 2^10.
    let w = kd * LOG_F64_LN2_HI + LOG_F64_LOGC_HI[i];
    let hi = w + r;
    let lo = w - hi + r;
    let y = lo + kd * LOG_F64_LN2_LO + LOG_F64_LOGC_LO[i] + r * r * horner(&LOG_F64_POLY, r);
    Ok((hi, y))
}

/// `ln x` for `f32` within 0.55 ULP, the algorithm of [`log_f64`] in `f32`
/// (degree 4 and 7 polynomials).
///
/// ```
/// use ndsimd_kernels::math::log_f32;
/// assert_eq!(log_f32(1.0), 0.0);
/// assert_eq!(log_f32(-0.0), f32::NEG_INFINITY);
/// // E rounded to f32 lies below e: its log rounds to the value under 1.
/// assert_eq!(log_f32(std::f32::consts::E), 1.0 - f32::EPSILON / 2.0);
/// ```
pub fn log_f32(x: f32) -> f32 {
    match log_hilo_f32(x) {
        Ok((hi, lo)) => hi + lo,
        Err(y) => y,
    }
}

/// [`scale_f64`] in `f32`.
#[inline(always)]
fn scale_f32(h: f32, l: f32, c_hi: f32, c_lo: f32) -> f32 {
    let p = h * c_hi;
    let e = h.mul_add(c_hi, -p);
    p + (e + h.mul_add(c_lo, l * c_hi))
}

/// `log2 x` for `f32` within 0.6 ULP, [`log2_f64`]'s method in `f32`.
///
/// ```
/// use ndsimd_kernels::math::log2_f32;
/// assert_eq!(log2_f32(0.125), -3.0);
/// assert_eq!(log2_f32(-0.0), f32::NEG_INFINITY);
/// ```
pub fn log2_f32(x: f32) -> f32 {
    match log_hilo_f32(x) {
        Ok((h, l)) => scale_f32(h, l, LOG2_F32_SCALE_HI, LOG2_F32_SCALE_LO),
        Err(y) => y,
    }
}

/// `log10 x` for `f32` within 0.6 ULP, [`log10_f64`]'s method in `f32`.
///
/// ```
/// use ndsimd_kernels::math::log10_f32;
/// assert_eq!(log10_f32(100.0), 2.0);
/// assert!(log10_f32(-2.0).is_nan());
/// ```
pub fn log10_f32(x: f32) -> f32 {
    match log_hilo_f32(x) {
        Ok((h, l)) => scale_f32(h, l, LOG10_F32_SCALE_HI, LOG10_F32_SCALE_LO),
        Err(y) => y,
    }
}

/// [`log_hilo_f64`] for `f32`.
#[inline(always)]
fn log_hilo_f32(x: f32) -> Result<(f32, f32), f32> {
    if (x - 1.0).abs() < 0.0625 {
        let r = x - 1.0;
        return Ok((r, r * r * horner(&LOG_F32_POLY1, r)));
    }
    let mut ix = x.to_bits();
    if ix.wrapping_sub(0x0080_0000) >= 0x7f00_0000 {
        if x.is_nan() {
            return Err(x + x);
        }
        if x == 0.0 {
            return Err(f32::NEG_INFINITY);
        }
        if x == f32::INFINITY {
            return Err(x);
        }
        if x < 0.0 {
            return Err(f32::NAN);
        }
        ix = (x * f32::from_bits((127 + 23) << 23))
            .to_bits()
            .wrapping_sub(23 << 23);
    }
    let tmp = ix.wrapping_sub(0x3f30_0000);
    let i = ((tmp >> 18) & 31) as usize;
    let k = (tmp as i32) >> 23;
    let z = f32::from_bits(ix.wrapping_sub(tmp & 0xff80_0000));
    let r = z.mul_add(LOG_F32_INVC[i], -1.0);
    let kd = k as f32;
    let w = kd * LOG_F32_LN2_HI + LOG_F32_LOGC_HI[i];
    let hi = w + r;
    let lo = w - hi + r;
    let y = lo + kd * LOG_F32_LN2_LO + LOG_F32_LOGC_LO[i] + r * r * horner(&LOG_F32_POLY, r);
    Ok((hi, y))
}

/// The operations of this module, as the `OP` parameter of the kernels.
pub(crate) const EXP: u8 = 0;
/// See [`EXP`].
pub(crate) const LOG: u8 = 1;
/// See [`EXP`].
pub(crate) const EXP2: u8 = 2;
/// See [`EXP`].
pub(crate) const LOG2: u8 = 3;
/// See [`EXP`].
pub(crate) const LOG10: u8 = 4;
/// See [`EXP`] (this module's files `expm1.rs`, `log1p.rs`, `tanh.rs`; ids from 10).
pub(crate) const EXPM1: u8 = 10;
/// See [`EXP`].
pub(crate) const LOG1P: u8 = 11;
/// See [`EXP`].
pub(crate) const TANH: u8 = 12;
/// See [`EXP`] (`trig.rs`).
pub(crate) const SIN: u8 = 16;
/// See [`EXP`] (`trig.rs`).
pub(crate) const COS: u8 = 17;

/// The element types with exp/log kernels: the oracles and the vector kernels.
pub trait Math: Element + crate::scalar::Arith {
    /// A lane value that takes every kernel's fast path (the padding of tails).
    #[doc(hidden)]
    const PAD: Self;
    /// The oracle of operation `OP`.
    #[doc(hidden)]
    fn oracle<const OP: u8>(x: Self) -> Self;
    /// The vector kernel of operation `OP` over `I`'s vectors, before its special
    /// lanes are patched ([`Raw`]).
    ///
    /// # Safety
    /// The CPU has `I`'s features.
    #[doc(hidden)]
    unsafe fn kernel_raw<I: Isa, const OP: u8>(x: Self::Vector<I>) -> Raw<Self::Vector<I>>;
    /// The vector kernel of operation `OP` over `I`'s vectors: [`kernel_raw`]
    /// with its special lanes from the oracle.
    ///
    /// # Safety
    /// The CPU has `I`'s features.
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn kernel<I: Isa, const OP: u8>(x: Self::Vector<I>) -> Self::Vector<I> {
        // SAFETY: the caller's contract.
        unsafe {
            match Self::kernel_raw::<I, OP>(x) {
                (y, Some(special)) if Self::Vector::<I>::any(special) => {
                    patch(x, y, special, Self::oracle::<OP>)
                }
                (y, _) => y,
            }
        }
    }
}

/// A vector kernel's result before its special lanes are patched: the result of
/// the fast path in every lane, and the lanes that take the oracle instead
/// (`None`: no lane ever does). A loop can then keep the oracle's call out of
/// its hot path, where every vector register is free for the kernel's
/// constants (a call in the loop made them memory operands: exp ran 20% slower).
pub(crate) type Raw<V> = (V, Option<<V as FloatVector>::Mask>);

/// `y` with the lanes where `special` holds replaced by the oracle `f` of `x`'s:
/// the path of vectors holding a lane the fast path does not cover (rare: NaN,
/// infinities, results out of the normal range). The other lanes keep the vector
/// result, so an element's result does not depend on its neighbours.
///
/// # Safety
/// The CPU has `V`'s ISA features (the vector methods here are called without
/// them enabled in this out-of-line function, which is sound only on such a CPU).
#[inline(never)]
unsafe fn patch<V: FloatVector>(x: V, y: V, special: V::Mask, f: impl Fn(V::T) -> V::T) -> V {
    let mut buf = [<V::T as Default>::default(); MAX_LANES];
    // SAFETY: `buf` holds `MAX_LANES >= N` lanes; the caller's contract.
    unsafe { x.store(buf.as_mut_ptr()) };
    for v in &mut buf[..V::N] {
        *v = f(*v);
    }
    // SAFETY: as above.
    unsafe { V::select(special, V::load(buf.as_ptr()), y) }
}

/// [`scale_f64`] over vectors: `(h + l) (c_hi + c_lo)` rounded once at the end,
/// the product's error recovered by an exact fma ([`FloatVector::mul_add`]).
///
/// # Safety
/// The CPU has `V`'s ISA features. Any inputs are fine (no memory is touched).
#[inline(always)]
unsafe fn scale_v<V: FloatVector>(h: V, l: V, c_hi: V::T, c_lo: V::T) -> V {
    // SAFETY: the caller's contract (the ISA's features are present).
    unsafe {
        let q = V::mul(h, V::splat(-c_hi)); // -p, exactly the negated product
        let e = V::mul_add(h, V::splat(c_hi), q);
        let t = V::madd(h, V::splat(c_lo), V::madd(l, V::splat(c_hi), e));
        V::sub(t, q)
    }
}

/// What the vector exp kernels differ in: the element type, the table of
/// `2^(j/N)` (the module doc's, with `N` entries) and how it is read, and
/// `expm1(r)`'s polynomial. [`exp_v`] has the steps they share (and
/// `expm1::expm1_core_v`, exp's reduction kept in two parts).
trait ExpTable<V: FloatVector> {
    /// `N`.
    const N: V::T;
    /// `N / ln2`: exp's `k`.
    const N_LN2: V::T;
    /// `ln2 / N` as `hi + lo`, `hi` short enough that `k * hi` is exact: exp's `r`.
    const LN2_N: [V::T; 2];
    /// `ln2`: exp2's `r = (x - k/N) ln2`.
    const LN2: V::T;
    /// [`SHIFT_F64`] or [`SHIFT_F32`].
    const SHIFT: V::T;
    /// The `|x|` from which a lane takes the oracle: exp's, then exp2's.
    const LIM: [V::T; 2];
    /// Every bit of the element but the sign.
    const ABS: <V::Int as Vector>::T;
    /// `2^(k/N)` and the tail of its table entry, `k` in `ki`'s low bits.
    ///
    /// # Safety
    /// The CPU has `V`'s ISA features. Any `ki` is fine (the index is masked to
    /// the table).
    unsafe fn scale(ki: V::Int) -> (V, V);
    /// `2^(k/N) (1 + tail + p)` for `p = expm1(r)`: `k` in `ki`'s low bits, `kd`
    /// the reduction's `k` as a float (in this table's units).
    ///
    /// # Safety
    /// The CPU has `V`'s ISA features. Any `ki` is fine.
    #[inline(always)]
    unsafe fn finish(ki: V::Int, kd: V, p: V) -> V {
        let _ = kd;
        // SAFETY: the caller's contract.
        unsafe {
            let (s, tail) = Self::scale(ki);
            V::madd(s, V::add(tail, p), s)
        }
    }
    /// `expm1(r)` for `|r| <= ln2 / 2N`.
    ///
    /// # Safety
    /// The CPU has `V`'s ISA features.
    unsafe fn expm1(r: V) -> V;
    /// The lanes of input `x` and fast-path result `y` that take the oracle
    /// (exp's, or exp2's where `B2`): NaN, and `|x|` from [`LIM`](Self::LIM) on.
    ///
    /// # Safety
    /// The CPU has `V`'s ISA features.
    #[inline(always)]
    unsafe fn special<const B2: bool>(x: V, y: V) -> V::Mask {
        let _ = y;
        // SAFETY: the caller's contract.
        unsafe {
            let ax = V::and_bits(x, V::from_bits(V::Int::splat(Self::ABS)));
            V::mask_or(V::ge(ax, V::splat(Self::LIM[B2 as usize])), V::unord(x, x))
        }
    }
}

/// `$name`: the 32-entry tables of element `$t`, read by gathers (an entry's bits
/// plus `k << $sh`, the mantissa's bits less 5, are `2^(k/32)`'s), and `expm1(r)`
/// by Horner's rule; the other items as [`ExpTable`] names them.
macro_rules! exp_table32 {
    ($name:ident: $t:ty, bits $int:ident << $sh:literal, lim $lim:expr, shift $shift:ident,
     ln2 $ln2:ident, n_ln2 $n_ln2:ident, ln2_n $ln2_n:expr,
     table $scale:ident $tail:ident, poly $poly:ident) => {
        #[doc = concat!("The 32-entry `", stringify!($t), "` table, read by gathers.")]
        struct $name;

        impl<V: FloatVector<T = $t, Int: IntVector<T = $int>>> ExpTable<V> for $name {
            const N: $t = 32.0;
            const N_LN2: $t = $n_ln2;
            const LN2_N: [$t; 2] = $ln2_n;
            const LN2: $t = $ln2;
            const SHIFT: $t = $shift;
            const LIM: [$t; 2] = $lim;
            const ABS: $int = <$int>::MAX;
            #[inline(always)]
            unsafe fn scale(ki: V::Int) -> (V, V) {
                // SAFETY: the caller's contract; the gathers' indices are `& 31`,
                // inside the 32-entry tables.
                unsafe {
                    let j = V::Int::and(ki, V::Int::splat(31));
                    let s = V::to_bits(V::table32($scale.as_ptr().cast(), j));
                    let s = V::from_bits(V::Int::add(s, V::Int::shl::<$sh>(ki)));
                    (s, V::table32($tail.as_ptr(), j))
                }
            }
            #[inline(always)]
            unsafe fn expm1(r: V) -> V {
                // SAFETY: the caller's contract.
                unsafe { expm1_horner(&$poly, r) }
            }
        }
    };
}

#[rustfmt::skip]
exp_table32!(ExpF64: f64, bits i64 << 47, lim [700.0, 1000.0], shift SHIFT_F64,
    ln2 EXP2_F64_LN2, n_ln2 EXP_F64_N_LN2, ln2_n [EXP_F64_LN2_N_HI, EXP_F64_LN2_N_LO],
    table EXP_F64_SCALE EXP_F64_TAIL, poly EXP_F64_POLY);
#[rustfmt::skip]
exp_table32!(ExpF32: f32, bits i32 << 18, lim [80.0, 120.0], shift SHIFT_F32,
    ln2 EXP2_F32_LN2, n_ln2 EXP_F32_N_LN2, ln2_n [EXP_F32_LN2_N_HI, EXP_F32_LN2_N_LO],
    table EXP_F32_SCALE EXP_F32_TAIL, poly EXP_F32_POLY);

/// The 16-entry `f64` table where two vectors hold it (AVX-512): each read is one
/// two-register permute ([`FloatVector::lookup2`]), and `|r| <= ln2/32` takes a
/// degree-7 polynomial, by Horner's rule: one operation fewer than Estrin's
/// scheme on the FMA pipes, which bound it on Zen 4. Its `k` is counted in sixteenths (the
/// constants are the 32-entry ones' scaled by 1/16, exactly), so that `kd` is
/// `k/16`, whose floor `vscalef` applies: one instruction where adding `k` to
/// the entry's exponent takes a shift and an add. Each value is the same as with
/// whole `k`, bit for bit (scaling by a power of two is exact).
struct Exp16F64;

/// `2^(j/16)` rounded: [`EXP16_F64_SCALE`]'s entries with `j << 48` added back.
static EXP16_F64_T: [f64; 16] = {
    let mut t = [0.0; 16];
    let mut j = 0;
    while j < 16 {
        t[j] = f64::from_bits(EXP16_F64_SCALE[j] + ((j as u64) << 48));
        j += 1;
    }
    t
};

impl<V: FloatVector<T = f64, Int: IntVector<T = i64>>> ExpTable<V> for Exp16F64 {
    const N: f64 = 1.0;
    const N_LN2: f64 = EXP16_F64_N_LN2 / 16.0;
    const LN2_N: [f64; 2] = [EXP16_F64_LN2_N_HI * 16.0, EXP16_F64_LN2_N_LO * 16.0];
    const LN2: f64 = EXP2_F64_LN2;
    const SHIFT: f64 = SHIFT_F64 / 16.0;
    const LIM: [f64; 2] = [700.0, 1000.0];
    const ABS: i64 = i64::MAX;
    #[inline(always)]
    unsafe fn scale(ki: V::Int) -> (V, V) {
        // SAFETY: the caller's contract; each table has 16 entries, read as two
        // vectors of 8 (`exp_v64` takes this table only for 8 lanes); `lookup2`
        // reads only the low 4 bits of an index.
        unsafe {
            let t = |p: *const f64| V::lookup2(V::load(p), V::load(p.add(8)), ki);
            let s = V::to_bits(t(EXP16_F64_SCALE.as_ptr().cast()));
            let s = V::from_bits(V::Int::add(s, V::Int::shl::<48>(ki)));
            (s, t(EXP16_F64_TAIL.as_ptr()))
        }
    }
    #[inline(always)]
    unsafe fn finish(ki: V::Int, kd: V, p: V) -> V {
        // SAFETY: as in `scale`.
        unsafe {
            let t = |p: *const f64| V::lookup2(V::load(p), V::load(p.add(8)), ki);
            let (s, tail) = (t(EXP16_F64_T.as_ptr()), t(EXP16_F64_TAIL.as_ptr()));
            // Where the result is a positive normal number the scaling was exact;
            // every other lane is patched (`special`).
            V::scalef(V::madd(s, V::add(tail, p), s), kd)
        }
    }
    /// Judged by the result, one `vfpclasspd`: every lane whose result is a
    /// positive normal number is right (the scaling is exact there); the others,
    /// NaN, infinities, zeros and subnormals (rounded twice by `vscalefpd`), and
    /// any result of a NaN, infinite or huge `x`, take the oracle.
    #[inline(always)]
    unsafe fn special<const B2: bool>(x: V, y: V) -> V::Mask {
        let _ = x;
        // SAFETY: the caller's contract.
        unsafe { V::not_pos_normal(y) }
    }
    #[inline(always)]
    unsafe fn expm1(r: V) -> V {
        // SAFETY: the caller's contract.
        unsafe { expm1_horner(&EXP16_F64_POLY, r) }
    }
}

/// `r + r² p(r)`, `p` of coefficients `poly` by Horner's rule: the tables'
/// `expm1` on the reduced argument, the form with the fewest multiplies (on Zen 4
/// the multiply-add pipe bounds exp; docs/design.md).
///
/// # Safety
/// `V`'s features are present.
#[inline(always)]
unsafe fn expm1_horner<V: FloatVector>(poly: &[V::T], r: V) -> V {
    // SAFETY: the caller's contract.
    unsafe { V::madd(V::mul(r, r), horner_v(poly, r), r) }
}

/// [`expm1_horner`] by Estrin's scheme: a shorter dependency chain for the higher
/// degrees, one multiply more.
///
/// # Safety
/// `V`'s features are present.
#[inline(always)]
unsafe fn expm1_estrin<V: FloatVector>(poly: &[V::T], r: V) -> V {
    // SAFETY: the caller's contract.
    unsafe {
        let r2 = V::mul(r, r);
        V::madd(r2, estrin_v(poly, &[r, r2, V::mul(r2, r2)]), r)
    }
}

/// `$name`: a table of `$n` entries of element `$t` that two vectors hold
/// (AVX2), each read one [`FloatVector::lookup2`] (two `vpermps` and a blend)
/// where the 32-entry table takes a gather; an entry's bits plus `k << $sh` (the
/// mantissa's bits less `log2 $n`) are `2^(k/$n)`'s. `expm1(r)` on
/// `|r| <= ln2/2$n` by `$eval` ([`expm1_horner`] or [`expm1_estrin`]); the other
/// items as [`ExpTable`] names them.
macro_rules! exp_table_lookup2 {
    ($name:ident: $t:ty, bits $int:ident << $sh:literal, n $n:literal, lim $lim:expr,
     shift $shift:ident, ln2 $ln2:ident, n_ln2 $n_ln2:ident, ln2_n $ln2_n:expr,
     table $scale:ident $tail:ident, poly $poly:ident by $eval:ident) => {
        #[doc = concat!("The ", stringify!($n), "-entry `", stringify!($t), "` table in two vectors.")]
        struct $name;

        impl<V: FloatVector<T = $t, Int: IntVector<T = $int>>> ExpTable<V> for $name {
            const N: $t = $n as $t;
            const N_LN2: $t = $n_ln2;
            const LN2_N: [$t; 2] = $ln2_n;
            const LN2: $t = $ln2;
            const SHIFT: $t = $shift;
            const LIM: [$t; 2] = $lim;
            const ABS: $int = <$int>::MAX;
            #[inline(always)]
            unsafe fn scale(ki: V::Int) -> (V, V) {
                // SAFETY: the caller's contract; each table has `$n` entries, read
                // as two vectors of `$n / 2` (the callers take this table only
                // for `2 N == $n` lanes); `lookup2` reads only the low bits of an
                // index that address `2 N` entries.
                unsafe {
                    let t = |p: *const $t| V::lookup2(V::load(p), V::load(p.add($n / 2)), ki);
                    let s = V::to_bits(t($scale.as_ptr().cast()));
                    let s = V::from_bits(V::Int::add(s, V::Int::shl::<$sh>(ki)));
                    (s, t($tail.as_ptr()))
                }
            }
            #[inline(always)]
            unsafe fn expm1(r: V) -> V {
                // SAFETY: the caller's contract.
                unsafe { $eval(&$poly, r) }
            }
        }
    };
}

// f64 with `|r| <= ln2/16`: degree 8, by Estrin.
#[rustfmt::skip]
exp_table_lookup2!(Exp8F64: f64, bits i64 << 49, n 8, lim [700.0, 1000.0], shift SHIFT_F64,
    ln2 EXP2_F64_LN2, n_ln2 EXP8_F64_N_LN2, ln2_n [EXP8_F64_LN2_N_HI, EXP8_F64_LN2_N_LO],
    table EXP8_F64_SCALE EXP8_F64_TAIL, poly EXP8_F64_POLY by expm1_estrin);
// f32 with `|r| <= ln2/32`: degree 4.
#[rustfmt::skip]
exp_table_lookup2!(Exp16F32: f32, bits i32 << 19, n 16, lim [80.0, 120.0], shift SHIFT_F32,
    ln2 EXP2_F32_LN2, n_ln2 EXP16_F32_N_LN2, ln2_n [EXP16_F32_LN2_N_HI, EXP16_F32_LN2_N_LO],
    table EXP16_F32_SCALE EXP16_F32_TAIL, poly EXP16_F32_POLY by expm1_horner);

/// [`exp_f64`] and [`exp_f32`] (`B2` false) or their exp2 (`B2` true) over
/// vectors with table `E`: the oracles' steps, the lanes that need the careful
/// way patched by the oracle.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine.
#[inline(always)]
unsafe fn exp_v<V: FloatVector<T: Math>, E: ExpTable<V>, const B2: bool>(x: V) -> Raw<V> {
    // SAFETY: the caller's contract (the ISA's features are present).
    unsafe {
        let (kd, ki, r);
        if B2 {
            let z = V::madd(x, V::splat(E::N), V::splat(E::SHIFT));
            kd = V::sub(z, V::splat(E::SHIFT));
            ki = V::to_bits(z);
            // `x - k/N` exact (the product too), fused or not.
            r = V::mul(
                V::madd(
                    kd,
                    V::splat(-(<V::T as crate::scalar::Arith>::ONE / E::N)),
                    x,
                ),
                V::splat(E::LN2),
            );
        } else {
            let z = V::madd(x, V::splat(E::N_LN2), V::splat(E::SHIFT));
            kd = V::sub(z, V::splat(E::SHIFT));
            ki = V::to_bits(z);
            let r0 = V::madd(kd, V::splat(-E::LN2_N[0]), x);
            r = V::madd(kd, V::splat(-E::LN2_N[1]), r0);
        }
        let y = E::finish(ki, kd, E::expm1(r));
        (y, Some(E::special::<B2>(x, y)))
    }
}

/// [`exp_v`] for `f64`: the 16-entry table where two vectors hold it (AVX-512),
/// else the 32-entry one.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine.
#[inline(always)]
unsafe fn exp_v64<V: FloatVector<T = f64, Int: IntVector<T = i64>>, const B2: bool>(
    x: V,
) -> Raw<V> {
    // SAFETY: the caller's contract.
    unsafe {
        if 2 * V::N >= 16 {
            exp_v::<V, Exp16F64, B2>(x)
        } else if 2 * V::N == 8 {
            exp_v::<V, Exp8F64, B2>(x)
        } else {
            exp_v::<V, ExpF64, B2>(x)
        }
    }
}

/// [`exp_v`] for `f32`: the 16-entry table where two vectors hold exactly it
/// (AVX2), else the 32-entry one (permutes on AVX-512, gathers or lane by lane
/// elsewhere).
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine.
#[inline(always)]
unsafe fn exp_v32<V: FloatVector<T = f32, Int: IntVector<T = i32>>, const B2: bool>(
    x: V,
) -> Raw<V> {
    // SAFETY: the caller's contract.
    unsafe {
        if 2 * V::N == 16 {
            exp_v::<V, Exp16F32, B2>(x)
        } else {
            exp_v::<V, ExpF32, B2>(x)
        }
    }
}

/// [`log_f64`] over vectors: the table path for every lane, the near-1 path
/// blended in when a lane needs it. Where `getexp`/`getmant` are instructions
/// (AVX-512) the reduction is [`log16_v64`]'s instead.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine (the table indices are masked
/// to the table).
#[inline(always)]
unsafe fn log_v64<V: FloatVector<T = f64, Int: IntVector<T = i64>>, const OP: u8>(x: V) -> Raw<V> {
    if V::GETEXP {
        // SAFETY: the caller's contract.
        return unsafe { log16_v64::<V, OP>(x) };
    }
    // SAFETY: the caller's contract; the gathers' indices are `& 31`, inside the
    // 32-entry tables.
    unsafe {
        let special = V::mask_or(
            V::mask_or(
                V::lt(x, V::splat(f64::MIN_POSITIVE)),
                V::gt(x, V::splat(f64::MAX)),
            ),
            V::unord(x, x),
        );
        let ix = V::to_bits(x);
        let tmp = V::Int::sub(ix, V::Int::splat(0x3fe6_0000_0000_0000));
        let i = V::Int::and(V::Int::shr::<47>(tmp), V::Int::splat(31));
        // `k + 1024` by a logical shift (positive for every normal `x`).
        let kb = V::Int::shr::<52>(V::Int::add(tmp, V::Int::splat(1024 << 52)));
        let kd = V::sub(V::from_int(kb), V::splat(1024.0));
        let z = V::from_bits(V::Int::sub(
            ix,
            V::Int::and(tmp, V::Int::splat(0xfff0_0000_0000_0000u64 as i64)),
        ));
        let r = V::mul_add(z, V::table32(LOG_F64_INVC.as_ptr(), i), V::splat(-1.0));
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
        log_finish_v64::<V, OP>(x, hi, lo, special)
    }
}

/// [`log_v64`] with the reduction of AVX-512: `x = 2^e m` with `e = getexp(x)`,
/// `z = getmant(x)` in `[0.75, 1.5)` (`m`, or `m/2` when `m >= 1.5`, whose `ln 2`
/// the table entries carry), and 16 subintervals picked by `z`'s top 4 mantissa
/// bits, so each table is one two-register permute and subnormals need no
/// special path. `|r| < 0.031` takes a degree-9 polynomial (by Estrin); the rest is
/// [`log_v64`]'s (`w = e ln2_hi + logc_hi` exact, `hi + lo` by Fast2Sum).
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine (`lookup2` reads only the
/// low 4 bits of an index).
#[inline(always)]
unsafe fn log16_v64<V: FloatVector<T = f64, Int: IntVector<T = i64>>, const OP: u8>(
    x: V,
) -> Raw<V> {
    // SAFETY: the caller's contract; each table has 16 entries, read as two
    // vectors of 8.
    unsafe {
        let special = V::not_pos_finite(x);
        let z = V::getmant(x);
        let e = V::getexp(x);
        let i = V::Int::shr::<48>(V::to_bits(z));
        let t = |p: &[f64; 16]| V::lookup2(V::load(p.as_ptr()), V::load(p.as_ptr().add(8)), i);
        let r = V::mul_add(z, t(&LOG16_F64_INVC), V::splat(-1.0));
        let w = V::madd(e, V::splat(LOG_F64_LN2_HI), t(&LOG16_F64_LOGC_HI));
        let hi = V::add(w, r);
        let lo = V::add(V::sub(w, hi), r);
        let lo = V::madd(e, V::splat(LOG_F64_LN2_LO), lo);
        let lo = V::add(lo, t(&LOG16_F64_LOGC_LO));
        let r2 = V::mul(r, r);
        let p = estrin_v(&LOG16_F64_POLY, &[r, r2, V::mul(r2, r2)]);
        let lo = V::madd(r2, p, lo);
        log_finish_v64::<V, OP>(x, hi, lo, special)
    }
}

/// The end of [`log_v64`]: `hi + lo` (times `1/ln 2` or `1/ln 10` for `OP`), with
/// the near-1 path (`|x - 1| < 1/16`, `x - 1` exact there) blended in where a
/// lane needs it and the `special` lanes from the oracle.
///
/// # Safety
/// The CPU has `V`'s ISA features.
#[inline(always)]
unsafe fn log_finish_v64<V: FloatVector<T = f64>, const OP: u8>(
    x: V,
    mut hi: V,
    mut lo: V,
    special: V::Mask,
) -> Raw<V> {
    // SAFETY: the caller's contract (the ISA's features are present).
    unsafe {
        // `15/16 < x < 17/16` is `|x - 1| < 1/16` (NaN in neither).
        let near = V::mask_and(V::lt(V::splat(0.9375), x), V::lt(x, V::splat(1.0625)));
        if V::any(near) {
            let d = V::sub(x, V::splat(1.0));
            if OP == LOG {
                // The natural log keeps its near-1 rounding: `d + d^2 p(d)` fused.
                let y1 = V::madd(V::mul(d, d), horner_v(&LOG_F64_POLY1, d), d);
                lo = V::select(near, V::sub(y1, d), lo);
            } else {
                let lo1 = V::mul(V::mul(d, d), horner_v(&LOG_F64_POLY1, d));
                lo = V::select(near, lo1, lo);
            }
            hi = V::select(near, d, hi);
        }
        let y = match OP {
            LOG => V::add(hi, lo),
            LOG2 => scale_v(hi, lo, LOG2_F64_SCALE_HI, LOG2_F64_SCALE_LO),
            _ => scale_v(hi, lo, LOG10_F64_SCALE_HI, LOG10_F64_SCALE_LO),
        };
        (y, Some(special))
    }
}

/// [`log_f32`] over vectors.
///
/// # Safety
/// The CPU has `V`'s ISA features. Any `x` is fine (the table indices are masked
/// to the table).
#[inline(always)]
unsafe fn log_v32<V: FloatVector<T = f32, Int: IntVector<T = i32>>, const OP: u8>(x: V) -> Raw<V> {
    // SAFETY: as in `log_v64` (indices `& 31`, 32-entry tables).
    unsafe {
        let special = V::mask_or(
            V::mask_or(
                V::lt(x, V::splat(f32::MIN_POSITIVE)),
                V::gt(x, V::splat(f32::MAX)),
            ),
            V::unord(x, x),
        );
        let ix = V::to_bits(x);
        let tmp = V::Int::sub(ix, V::Int::splat(0x3f30_0000));
        let i = V::Int::and(V::Int::shr::<18>(tmp), V::Int::splat(31));
        let kb = V::Int::shr::<23>(V::Int::add(tmp, V::Int::splat(256 << 23)));
        let kd = V::sub(V::from_int(kb), V::splat(256.0));
        let z = V::from_bits(V::Int::sub(
            ix,
            V::Int::and(tmp, V::Int::splat(0xff80_0000u32 as i32)),
        ));
        let r = V::mul_add(z, V::table32(LOG_F32_INVC.as_ptr(), i), V::splat(-1.0));
        let w = V::madd(
            kd,
            V::splat(LOG_F32_LN2_HI),
            V::table32(LOG_F32_LOGC_HI.as_ptr(), i),
        );
        let hi = V::add(w, r);
        let lo = V::add(V::sub(w, hi), r);
        let lo = V::madd(kd, V::splat(LOG_F32_LN2_LO), lo);
        let lo = V::add(lo, V::table32(LOG_F32_LOGC_LO.as_ptr(), i));
        let mut lo = V::madd(V::mul(r, r), horner_v(&LOG_F32_POLY, r), lo);
        let mut hi = hi;
        let d = V::sub(x, V::splat(1.0));
        let ad = V::and_bits(d, V::from_bits(V::Int::splat(i32::MAX)));
        let near = V::lt(ad, V::splat(0.0625));
        if V::any(near) {
            if OP == LOG {
                // The natural log keeps its near-1 rounding: `d + d^2 p(d)` fused.
                let y1 = V::madd(V::mul(d, d), horner_v(&LOG_F32_POLY1, d), d);
                lo = V::select(near, V::sub(y1, d), lo);
            } else {
                let lo1 = V::mul(V::mul(d, d), horner_v(&LOG_F32_POLY1, d));
                lo = V::select(near, lo1, lo);
            }
            hi = V::select(near, d, hi);
        }
        let y = match OP {
            LOG => V::add(hi, lo),
            LOG2 => scale_v(hi, lo, LOG2_F32_SCALE_HI, LOG2_F32_SCALE_LO),
            _ => scale_v(hi, lo, LOG10_F32_SCALE_HI, LOG10_F32_SCALE_LO),
        };
        (y, Some(special))
    }
}

impl Math for f64 {
    const PAD: f64 = 0.5;
    #[inline(always)]
    fn oracle<const OP: u8>(x: f64) -> f64 {
        match OP {
            EXP => exp_f64(x),
            EXP2 => exp2_f64(x),
            LOG2 => log2_f64(x),
            LOG10 => log10_f64(x),
            EXPM1 => expm1_f64(x),
            LOG1P => log1p_f64(x),
            TANH => tanh_f64(x),
            SIN => sin_f64(x),
            COS => cos_f64(x),
            _ => log_f64(x),
        }
    }
    #[inline(always)]
    unsafe fn kernel_raw<I: Isa, const OP: u8>(x: I::F64) -> Raw<I::F64> {
        // SAFETY: the caller's contract.
        unsafe {
            match OP {
                EXP => exp_v64::<_, false>(x),
                EXP2 => exp_v64::<_, true>(x),
                EXPM1 => expm1::expm1_v64(x),
                LOG1P => log1p::log1p_v64(x),
                TANH => tanh::tanh_v64(x),
                SIN => trig::trig_v64::<_, false>(x),
                COS => trig::trig_v64::<_, true>(x),
                _ => log_v64::<_, OP>(x),
            }
        }
    }
}

impl Math for f32 {
    const PAD: f32 = 0.5;
    #[inline(always)]
    fn oracle<const OP: u8>(x: f32) -> f32 {
        match OP {
            EXP => exp_f32(x),
            EXP2 => exp2_f32(x),
            LOG2 => log2_f32(x),
            LOG10 => log10_f32(x),
            EXPM1 => expm1_f32(x),
            LOG1P => log1p_f32(x),
            TANH => tanh_f32(x),
            SIN => sin_f32(x),
            COS => cos_f32(x),
            _ => log_f32(x),
        }
    }
    #[inline(always)]
    unsafe fn kernel_raw<I: Isa, const OP: u8>(x: I::F32) -> Raw<I::F32> {
        // SAFETY: the caller's contract.
        unsafe {
            match OP {
                EXP => exp_v32::<_, false>(x),
                EXP2 => exp_v32::<_, true>(x),
                EXPM1 => expm1::expm1_v32(x),
                LOG1P => log1p::log1p_v32(x),
                TANH => tanh::tanh_v32(x),
                SIN => trig::trig_v32::<_, false>(x),
                COS => trig::trig_v32::<_, true>(x),
                _ => log_v32::<_, OP>(x),
            }
        }
    }
}

/// `out[i] = op(a[i])` for `n` elements by the vector kernel of `OP` over `I`'s
/// vectors; the tail (under one vector) padded on the stack so every element takes
/// the same vector path. `a` may equal `out` (in place).
///
/// # Safety
/// The CPU has `I`'s features; `a` is valid for `n` reads and `out` for `n` writes.
#[inline(always)]
pub(crate) unsafe fn map_raw<T: Math, I: Isa, const OP: u8>(a: *const T, out: *mut T, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { map_blocks::<T, I, OP, false>(a, T::ZERO, out, n) };
}

/// `out[i] = op(a[i] - s)` for `n` elements, returning the sum of the results:
/// softmax's shifted `exp` and its row sum in one pass while the row is in
/// cache. Each `out[i]` has [`map_raw`]'s bits for the input `a[i] - s` (the
/// subtraction is exact IEEE in both); the sum adds lane-wise partial sums in
/// index order, then the lanes in order, then the tail, so it differs from a
/// sequential sum by rounding only (all within `n` ε of it for results of one
/// sign).
///
/// # Safety
/// The CPU has `I`'s features; `a` is valid for `n` reads and `out` for `n`
/// writes (`out` may be `a` itself, not otherwise overlap it).
#[inline(always)]
pub(crate) unsafe fn map_shift_sum_raw<T: Math, I: Isa, const OP: u8>(
    a: *const T,
    s: T,
    out: *mut T,
    n: usize,
) -> T {
    // SAFETY: the caller's contract.
    unsafe { map_blocks::<T, I, OP, true>(a, s, out, n) }
}

/// [`map_raw`] (`SHIFT_SUM` false: `s` unused, the sum `-0`) or
/// [`map_shift_sum_raw`]. Blocks of `BLOCK` vectors: a vector with a special
/// lane is kept aside (its input: `out` may be `a`) and patched after its block,
/// so the hot loop makes no call (see `Raw`); the sum then reads the block's
/// results back from L1, patched.
///
/// # Safety
/// As [`map_shift_sum_raw`].
#[inline(always)]
unsafe fn map_blocks<T: Math, I: Isa, const OP: u8, const SHIFT_SUM: bool>(
    a: *const T,
    s: T,
    out: *mut T,
    n: usize,
) -> T {
    let w = <T::Vector<I> as Vector>::N;
    let mut i = 0;
    // The full vectors in descending order when `out` starts less than 512 bytes
    // past `a` modulo 4 KiB: in ascending order the next vectors' loads would match
    // the pending stores in their low 12 address bits and wait for them (Zen 4:
    // f64 exp 7-33% slower at 48-192 bytes). Not for the sum, whose bits must not depend on placement.
    let full = n / w * w;
    let gap = (out as usize).wrapping_sub(a as usize) % 4096;
    let rev = !SHIFT_SUM && gap != 0 && gap < 512;
    let pos = |i: usize| if rev { full - w - i } else { i };
    // SAFETY: `i + w <= n` for every full vector, so `i + w <= full` and
    // `pos(i) + w <= full` too; a block has at most `BLOCK` vectors, so `kept`
    // (`BLOCK` times `MAX_LANES >= w` lanes) holds each one kept aside at `h * w`;
    // the tail goes through `buf`, which holds `MAX_LANES` lanes; the caller's
    // contract for the features.
    unsafe {
        let sv = <T::Vector<I> as Vector>::splat(s);
        let load = |p: *const T| {
            let x = <T::Vector<I> as Vector>::load(p);
            if SHIFT_SUM {
                <T::Vector<I> as FloatVector>::sub(x, sv)
            } else {
                x
            }
        };
        let mut acc = <T::Vector<I> as FloatVector>::zero();
        const BLOCK: usize = 16;
        let mut kept = [T::PAD; BLOCK * MAX_LANES];
        let mut at = [0usize; BLOCK];
        while i + w <= n {
            let (first, end) = (i, i + w * BLOCK.min((n - i) / w));
            let mut hits = 0;
            while i + 2 * w <= end {
                let (p0, p1) = (pos(i), pos(i + w));
                let (x0, x1) = (load(a.add(p0)), load(a.add(p1)));
                let (y0, s0) = T::kernel_raw::<I, OP>(x0);
                let (y1, s1) = T::kernel_raw::<I, OP>(x1);
                y0.store(out.add(p0));
                y1.store(out.add(p1));
                if let (Some(m0), Some(m1)) = (s0, s1) {
                    if <T::Vector<I> as FloatVector>::any(<T::Vector<I> as FloatVector>::mask_or(
                        m0, m1,
                    )) {
                        for (x, m, j) in [(x0, m0, p0), (x1, m1, p1)] {
                            if <T::Vector<I> as FloatVector>::any(m) {
                                x.store(kept.as_mut_ptr().add(hits * w));
                                at[hits] = j;
                                hits += 1;
                            }
                        }
                    }
                }
                i += 2 * w;
            }
            while i < end {
                let p = pos(i);
                let x = load(a.add(p));
                let (y, special) = T::kernel_raw::<I, OP>(x);
                y.store(out.add(p));
                if special.is_some_and(|m| <T::Vector<I> as FloatVector>::any(m)) {
                    x.store(kept.as_mut_ptr().add(hits * w));
                    at[hits] = p;
                    hits += 1;
                }
                i += w;
            }
            for (h, &j) in at[..hits].iter().enumerate() {
                let x = <T::Vector<I> as Vector>::load(kept.as_ptr().add(h * w));
                T::kernel::<I, OP>(x).store(out.add(j));
            }
            if SHIFT_SUM {
                let mut j = first;
                while j < end {
                    let y = <T::Vector<I> as Vector>::load(out.add(pos(j)));
                    acc = <T::Vector<I> as FloatVector>::add(acc, y);
                    j += w;
                }
            }
        }
        let mut sum = T::NEG_ZERO;
        if SHIFT_SUM {
            let mut buf = [T::PAD; MAX_LANES];
            acc.store(buf.as_mut_ptr());
            for &v in &buf[..w] {
                sum = sum + v;
            }
        }
        if i < n {
            let mut buf = [T::PAD; MAX_LANES];
            for (k, b) in buf[..n - i].iter_mut().enumerate() {
                let v = *a.add(i + k);
                *b = if SHIFT_SUM { v - s } else { v };
            }
            let x = <T::Vector<I> as Vector>::load(buf.as_ptr());
            T::kernel::<I, OP>(x).store(buf.as_mut_ptr());
            core::ptr::copy_nonoverlapping(buf.as_ptr(), out.add(i), n - i);
            if SHIFT_SUM {
                for &v in &buf[..n - i] {
                    sum = sum + v;
                }
            }
        }
        sum
    }
}

/// The kernels of operation `$id` as the oracle, one element at a time.
macro_rules! oracle_op {
    ($op:ident, $id:path) => {
        #[doc = concat!("`", stringify!($op), "` kernels of the scalar tier (the oracle).")]
        pub mod $op {
            use crate::math::Math;
            use core::mem::MaybeUninit;

            /// `out[i] = op(a[i])`
            pub fn map<T: Math>(a: &[T], out: &mut [T]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                for (o, &x) in out.iter_mut().zip(a) {
                    *o = T::oracle::<{ $id }>(x);
                }
            }
            /// [`map`] into uninitialised memory: writes every element of `out`
            pub fn map_uninit<T: Math>(a: &[T], out: &mut [MaybeUninit<T>]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                for (o, &x) in out.iter_mut().zip(a) {
                    o.write(T::oracle::<{ $id }>(x));
                }
            }
            /// `acc[i] = op(acc[i])`
            pub fn assign<T: Math>(acc: &mut [T]) {
                for o in acc.iter_mut() {
                    *o = T::oracle::<{ $id }>(*o);
                }
            }
            /// `out[i] = op(a[i] - s)` into uninitialised memory, returning the
            /// sum of the results in order: writes every element of `out`
            #[allow(dead_code)] // the tables hold only `exp`'s
            pub fn map_shift_sum<T: Math>(a: &[T], s: T, out: &mut [MaybeUninit<T>]) -> T {
                assert!(a.len() == out.len(), "kernel length mismatch");
                let mut sum = T::NEG_ZERO;
                for (o, &x) in out.iter_mut().zip(a) {
                    let y = T::oracle::<{ $id }>(x - s);
                    o.write(y);
                    sum = sum + y;
                }
                sum
            }
        }
    };
}

/// The scalar tier's exp/log kernels: the oracles.
pub(crate) mod oracle {
    oracle_op!(exp, crate::math::EXP);
    oracle_op!(log, crate::math::LOG);
    oracle_op!(exp2, crate::math::EXP2);
    oracle_op!(log2, crate::math::LOG2);
    oracle_op!(log10, crate::math::LOG10);
    oracle_op!(expm1, crate::math::EXPM1);
    oracle_op!(log1p, crate::math::LOG1P);
    oracle_op!(tanh, crate::math::TANH);
    oracle_op!(sin, crate::math::SIN);
    oracle_op!(cos, crate::math::COS);

    /// `pow` kernels of the scalar tier (the oracle), in every operand shape.
    pub mod pow {
        use crate::math::Pow;
        use core::mem::MaybeUninit;

        /// `out[i] = pow(a[i], b[i])`
        pub fn vv<T: Pow>(a: &[T], b: &[T], out: &mut [T]) {
            assert!(
                a.len() == out.len() && b.len() == out.len(),
                "kernel length mismatch"
            );
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = T::pow_oracle(x, y);
            }
        }
        /// `out[i] = pow(a[i], s)`
        pub fn vs<T: Pow>(a: &[T], s: T, out: &mut [T]) {
            assert!(a.len() == out.len(), "kernel length mismatch");
            for (o, &x) in out.iter_mut().zip(a) {
                *o = T::pow_oracle(x, s);
            }
        }
        /// `out[i] = pow(s, b[i])`
        pub fn sv<T: Pow>(s: T, b: &[T], out: &mut [T]) {
            assert!(b.len() == out.len(), "kernel length mismatch");
            for (o, &y) in out.iter_mut().zip(b) {
                *o = T::pow_oracle(s, y);
            }
        }
        /// [`vv`] into uninitialised memory: writes every element of `out`
        pub fn vv_uninit<T: Pow>(a: &[T], b: &[T], out: &mut [MaybeUninit<T>]) {
            assert!(
                a.len() == out.len() && b.len() == out.len(),
                "kernel length mismatch"
            );
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                o.write(T::pow_oracle(x, y));
            }
        }
        /// [`vs`] into uninitialised memory: writes every element of `out`
        pub fn vs_uninit<T: Pow>(a: &[T], s: T, out: &mut [MaybeUninit<T>]) {
            assert!(a.len() == out.len(), "kernel length mismatch");
            for (o, &x) in out.iter_mut().zip(a) {
                o.write(T::pow_oracle(x, s));
            }
        }
        /// [`sv`] into uninitialised memory: writes every element of `out`
        pub fn sv_uninit<T: Pow>(s: T, b: &[T], out: &mut [MaybeUninit<T>]) {
            assert!(b.len() == out.len(), "kernel length mismatch");
            for (o, &y) in out.iter_mut().zip(b) {
                o.write(T::pow_oracle(s, y));
            }
        }
        /// `acc[i] = pow(acc[i], b[i])`
        pub fn assign_vv<T: Pow>(acc: &mut [T], b: &[T]) {
            assert!(b.len() == acc.len(), "kernel length mismatch");
            for (o, &y) in acc.iter_mut().zip(b) {
                *o = T::pow_oracle(*o, y);
            }
        }
        /// Four [`assign_vv`] in turn
        pub fn assign_vv4<T: Pow>(acc: &mut [T], b: [&[T]; 4]) {
            for bi in b {
                assign_vv(acc, bi);
            }
        }
        /// `acc[i] = pow(acc[i], s)`
        pub fn assign_vs<T: Pow>(acc: &mut [T], s: T) {
            for o in acc.iter_mut() {
                *o = T::pow_oracle(*o, s);
            }
        }
    }
}

#[cfg(test)]
mod tests;
