//! AVX2 + FMA tier (256-bit vectors: 8 f32 or 4 f64 lanes).
//!
//! FMA is enabled: `fma` and `dot` (the fused [`crate::scalar::dot_fused`]) use it;
//! the other elementwise kernels must not contract `a * b + c`, and Rust never does
//! so implicitly. The reductions with NaN rules and the scans are
//! hand-written: [`crate::generic`] over the vector types below.

use crate::generic::{ByteVec, VecOf};
use core::arch::x86_64::*;

autovec_binary!("avx2,fma"; add, sub, mul, div, maximum, minimum);
autovec_unary!("avx2,fma"; neg, abs, sqrt);
autovec_fma!("avx2,fma");
autovec_cmp!("avx2,fma"; eq, ne, lt, le, gt, ge);
handwritten_floats!("avx2,fma", Avx2, dot_fused: FmaVec);
handwritten_bytes!("avx2,fma", Bytes);
tier_tables!(crate::Tier::Avx2);
byte_table!(crate::Tier::Avx2);

/// The marker naming this ISA in [`VecOf`].
pub struct Avx2;

impl VecOf<Avx2> for f64 {
    type V = F64x4;
}
impl VecOf<Avx2> for f32 {
    type V = F32x8;
}

/// Four `f64` lanes.
#[derive(Clone, Copy)]
pub struct F64x4(__m256d);
/// Eight `f32` lanes.
#[derive(Clone, Copy)]
pub struct F32x8(__m256);
/// Thirty-two bytes.
#[derive(Clone, Copy)]
pub struct Bytes(__m256i);

// The AVX comparisons take the predicate as a constant; these give them the
// shape `x86_float!` expects.
#[inline(always)]
unsafe fn cmpunord_pd(a: __m256d, b: __m256d) -> __m256d {
    _mm256_cmp_pd::<_CMP_UNORD_Q>(a, b)
}
#[inline(always)]
unsafe fn cmpeq_pd(a: __m256d, b: __m256d) -> __m256d {
    _mm256_cmp_pd::<_CMP_EQ_OQ>(a, b)
}
#[inline(always)]
unsafe fn cmpunord_ps(a: __m256, b: __m256) -> __m256 {
    _mm256_cmp_ps::<_CMP_UNORD_Q>(a, b)
}
#[inline(always)]
unsafe fn cmpeq_ps(a: __m256, b: __m256) -> __m256 {
    _mm256_cmp_ps::<_CMP_EQ_OQ>(a, b)
}

x86_float!(
    F64x4,
    f64,
    __m256d,
    4,
    _mm256_loadu_pd,
    _mm256_storeu_pd,
    _mm256_set1_pd,
    _mm256_add_pd,
    _mm256_mul_pd,
    _mm256_max_pd,
    _mm256_min_pd,
    cmpunord_pd,
    cmpeq_pd,
    _mm256_or_pd,
    _mm256_and_pd,
    _mm256_movemask_pd,
    fma = _mm256_fmadd_pd
);
x86_float!(
    F32x8,
    f32,
    __m256,
    8,
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_set1_ps,
    _mm256_add_ps,
    _mm256_mul_ps,
    _mm256_max_ps,
    _mm256_min_ps,
    cmpunord_ps,
    cmpeq_ps,
    _mm256_or_ps,
    _mm256_and_ps,
    _mm256_movemask_ps,
    fma = _mm256_fmadd_ps
);

impl ByteVec for Bytes {
    const N: usize = 32;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        Bytes(_mm256_loadu_si256(p.cast()))
    }
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        Bytes(_mm256_set1_epi8(b as i8))
    }
    #[inline(always)]
    unsafe fn eq(a: Self, b: Self) -> Self {
        Bytes(_mm256_cmpeq_epi8(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn sub(a: Self, b: Self) -> Self {
        Bytes(_mm256_sub_epi8(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn or(a: Self, b: Self) -> Self {
        Bytes(_mm256_or_si256(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn sum(a: Self) -> usize {
        // vpsadbw against zero: the sum of each quarter's 8 bytes in its 64-bit lane.
        let s = _mm256_sad_epu8(a.0, _mm256_setzero_si256());
        let s = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
        (_mm_cvtsi128_si64(s) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s))) as usize
    }
    #[inline(always)]
    unsafe fn is_zero(a: Self) -> bool {
        _mm256_testz_si256(a.0, a.0) == 1
    }
}
