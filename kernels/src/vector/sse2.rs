//! SSE2 vectors (128 bits: 2 `f64` or 4 `f32` lanes, 16 bytes). No FMA: `mul_add`
//! goes lane by lane through the C library's fma, `madd` multiplies then adds. No
//! variable permute: `lookup2` goes lane by lane too.

use super::{FloatVector, Isa, Vector, MAX_LANES};
use crate::scalar::Arith;
use core::arch::x86_64::*;

/// The SSE2 ISA.
pub struct Sse2;

impl Isa for Sse2 {
    type F32 = F32x4;
    type F64 = F64x2;
    type Bytes = Bytes;
}

/// 1.5 * 2^52: added to an `f64` of magnitude below 2^51, it leaves the integer
/// nearest to it (ties to even) in the low mantissa bits; subtracted, the reverse.
pub(crate) const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

float_vector! {
    /// Two `f64` lanes.
    F64x2(__m128d): 2 x f64, int I64x2, mask __m128d, fma false;
    zero || _mm_setzero_pd(),
    splat |x| _mm_set1_pd(x),
    load |p| _mm_loadu_pd(p),
    store |v, p| _mm_storeu_pd(p, v),
    add |a, b| _mm_add_pd(a, b),
    sub |a, b| _mm_sub_pd(a, b),
    mul |a, b| _mm_mul_pd(a, b),
    div |a, b| _mm_div_pd(a, b),
    mul_add |a, b, c| mul_add_by_lanes(F64x2(a), F64x2(b), F64x2(c)).0,
    madd |a, b, c| _mm_add_pd(_mm_mul_pd(a, b), c),
    max |a, b| _mm_max_pd(a, b),
    min |a, b| _mm_min_pd(a, b),
    eq |a, b| _mm_cmpeq_pd(a, b),
    lt |a, b| _mm_cmplt_pd(a, b),
    le |a, b| _mm_cmple_pd(a, b),
    unord |a, b| _mm_cmpunord_pd(a, b),
    mask_or |a, b| _mm_or_pd(a, b),
    mask_and |a, b| _mm_and_pd(a, b),
    any |m| _mm_movemask_pd(m) != 0,
    select |m, a, b| _mm_or_pd(_mm_and_pd(m, a), _mm_andnot_pd(m, b)),
    and_bits |a, b| _mm_and_pd(a, b),
    or_bits |a, b| _mm_or_pd(a, b),
    signs |a| _mm_movemask_pd(a) as u32,
    to_bits |a| _mm_castpd_si128(a),
    from_bits |i| _mm_castsi128_pd(i),
    round_int |a| {
        let m = _mm_set1_pd(ROUND_MAGIC);
        _mm_sub_epi64(_mm_castpd_si128(_mm_add_pd(a, m)), _mm_castpd_si128(m))
    },
    from_int |i| {
        let m = _mm_set1_pd(ROUND_MAGIC);
        _mm_sub_pd(_mm_castsi128_pd(_mm_add_epi64(i, _mm_castpd_si128(m))), m)
    },
    lookup2 |lo, hi, ix| lookup2_by_lanes(F64x2(lo), F64x2(hi), I64x2(ix)).0,
}

float_vector! {
    /// Four `f32` lanes.
    F32x4(__m128): 4 x f32, int I32x4, mask __m128, fma false;
    zero || _mm_setzero_ps(),
    splat |x| _mm_set1_ps(x),
    load |p| _mm_loadu_ps(p),
    store |v, p| _mm_storeu_ps(p, v),
    add |a, b| _mm_add_ps(a, b),
    sub |a, b| _mm_sub_ps(a, b),
    mul |a, b| _mm_mul_ps(a, b),
    div |a, b| _mm_div_ps(a, b),
    mul_add |a, b, c| mul_add_by_lanes(F32x4(a), F32x4(b), F32x4(c)).0,
    madd |a, b, c| _mm_add_ps(_mm_mul_ps(a, b), c),
    max |a, b| _mm_max_ps(a, b),
    min |a, b| _mm_min_ps(a, b),
    eq |a, b| _mm_cmpeq_ps(a, b),
    lt |a, b| _mm_cmplt_ps(a, b),
    le |a, b| _mm_cmple_ps(a, b),
    unord |a, b| _mm_cmpunord_ps(a, b),
    mask_or |a, b| _mm_or_ps(a, b),
    mask_and |a, b| _mm_and_ps(a, b),
    any |m| _mm_movemask_ps(m) != 0,
    select |m, a, b| _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)),
    and_bits |a, b| _mm_and_ps(a, b),
    or_bits |a, b| _mm_or_ps(a, b),
    signs |a| _mm_movemask_ps(a) as u32,
    to_bits |a| _mm_castps_si128(a),
    from_bits |i| _mm_castsi128_ps(i),
    // CVTPS2DQ rounds as MXCSR says: to nearest, ties to even, unless changed.
    round_int |a| _mm_cvtps_epi32(a),
    from_int |i| _mm_cvtepi32_ps(i),
    lookup2 |lo, hi, ix| lookup2_by_lanes(F32x4(lo), F32x4(hi), I32x4(ix)).0,
}

// The shifts by a constant count in a register: the immediate forms take an `i32`
// constant, the trait a `u32`; LLVM folds the constant count into the immediate.
int_vector! {
    /// Two `i64` lanes.
    I64x2(__m128i): 2 x i64;
    splat |x| _mm_set1_epi64x(x),
    load |p| _mm_loadu_si128(p.cast()),
    store |v, p| _mm_storeu_si128(p.cast(), v),
    add |a, b| _mm_add_epi64(a, b),
    sub |a, b| _mm_sub_epi64(a, b),
    and |a, b| _mm_and_si128(a, b),
    or |a, b| _mm_or_si128(a, b),
    shl<S> |a| _mm_sll_epi64(a, _mm_cvtsi32_si128(S as i32)),
    shr<S> |a| _mm_srl_epi64(a, _mm_cvtsi32_si128(S as i32)),
}

int_vector! {
    /// Four `i32` lanes.
    I32x4(__m128i): 4 x i32;
    splat |x| _mm_set1_epi32(x),
    load |p| _mm_loadu_si128(p.cast()),
    store |v, p| _mm_storeu_si128(p.cast(), v),
    add |a, b| _mm_add_epi32(a, b),
    sub |a, b| _mm_sub_epi32(a, b),
    and |a, b| _mm_and_si128(a, b),
    or |a, b| _mm_or_si128(a, b),
    shl<S> |a| _mm_sll_epi32(a, _mm_cvtsi32_si128(S as i32)),
    shr<S> |a| _mm_srl_epi32(a, _mm_cvtsi32_si128(S as i32)),
}

byte_vector! {
    /// Sixteen bytes.
    Bytes(__m128i): 16;
    splat |b| _mm_set1_epi8(b as i8),
    load |p| _mm_loadu_si128(p.cast()),
    store |v, p| _mm_storeu_si128(p.cast(), v),
    eq |a, b| _mm_cmpeq_epi8(a, b),
    sub |a, b| _mm_sub_epi8(a, b),
    or |a, b| _mm_or_si128(a, b),
    // PSADBW against zero: the sum of each half's 8 bytes in its 64-bit lane.
    sum |a| {
        let s = _mm_sad_epu8(a, _mm_setzero_si128());
        (_mm_cvtsi128_si64(s) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s))) as usize
    },
    is_zero |a| _mm_movemask_epi8(_mm_cmpeq_epi8(a, _mm_setzero_si128())) == 0xffff,
}

/// [`FloatVector::mul_add`] lane by lane through the stack (`T::mul_add`, the C
/// library's fma where the target has no instruction for it): for an ISA without FMA.
///
/// # Safety
/// `V`'s features are present.
#[inline(always)]
unsafe fn mul_add_by_lanes<V: FloatVector>(a: V, b: V, c: V) -> V {
    let [mut x, mut y, mut z] = [[V::T::ZERO; MAX_LANES]; 3];
    // SAFETY: each array holds `MAX_LANES >= N` elements; the caller's contract.
    unsafe {
        a.store(x.as_mut_ptr());
        b.store(y.as_mut_ptr());
        c.store(z.as_mut_ptr());
    }
    for ((x, y), z) in x.iter_mut().zip(y).zip(z).take(V::N) {
        *x = x.mul_add(y, z);
    }
    // SAFETY: as above.
    unsafe { V::load(x.as_ptr()) }
}

/// [`FloatVector::lookup2`] lane by lane through the stack: for an ISA without a
/// variable permute.
///
/// # Safety
/// `V`'s features are present.
#[inline(always)]
unsafe fn lookup2_by_lanes<V: FloatVector>(lo: V, hi: V, idx: V::Int) -> V {
    let mut table = [V::T::ZERO; 2 * MAX_LANES];
    let mut ix = [<V::Int as Vector>::T::default(); MAX_LANES];
    // SAFETY: `table` holds `2 * MAX_LANES >= 2 * N` elements and `ix` `MAX_LANES
    // >= N`; the caller's contract.
    unsafe {
        lo.store(table.as_mut_ptr());
        hi.store(table.as_mut_ptr().add(V::N));
        idx.store(ix.as_mut_ptr());
    }
    let mut out = [V::T::ZERO; MAX_LANES];
    for (o, &i) in out.iter_mut().zip(&ix).take(V::N) {
        // `2N` is a power of two: the low bits are the index mod `2N`.
        *o = table[i.into() as usize & (2 * V::N - 1)];
    }
    // SAFETY: as above.
    unsafe { V::load(out.as_ptr()) }
}
