//! SSE2 tier (128-bit vectors: 4 f32 or 2 f64 lanes).
//!
//! SSE2 is the x86_64 baseline, so the autovectorised kernels here compile as the
//! scalar tier's do. The reductions with NaN rules and the scans are
//! hand-written: [`crate::generic`] over the vector types below.

use crate::generic::{ByteVec, VecOf};
use core::arch::x86_64::*;

autovec_binary!("sse2"; add, sub, mul, div, maximum, minimum);
autovec_unary!("sse2"; neg, abs, sqrt);
autovec_fma!("sse2");
autovec_cmp!("sse2"; eq, ne, lt, le, gt, ge);
handwritten_floats!("sse2", Sse2, dot: FloatVec);
handwritten_bytes!("sse2", Bytes);
tier_tables!(crate::Tier::Sse2);
byte_table!(crate::Tier::Sse2);

/// The marker naming this ISA in [`VecOf`].
pub struct Sse2;

impl VecOf<Sse2> for f64 {
    type V = F64x2;
}
impl VecOf<Sse2> for f32 {
    type V = F32x4;
}

/// Two `f64` lanes.
#[derive(Clone, Copy)]
pub struct F64x2(__m128d);
/// Four `f32` lanes.
#[derive(Clone, Copy)]
pub struct F32x4(__m128);
/// Sixteen bytes.
#[derive(Clone, Copy)]
pub struct Bytes(__m128i);

x86_float!(
    F64x2,
    f64,
    __m128d,
    2,
    _mm_loadu_pd,
    _mm_storeu_pd,
    _mm_set1_pd,
    _mm_add_pd,
    _mm_mul_pd,
    _mm_max_pd,
    _mm_min_pd,
    _mm_cmpunord_pd,
    _mm_cmpeq_pd,
    _mm_or_pd,
    _mm_and_pd,
    _mm_movemask_pd
);
x86_float!(
    F32x4,
    f32,
    __m128,
    4,
    _mm_loadu_ps,
    _mm_storeu_ps,
    _mm_set1_ps,
    _mm_add_ps,
    _mm_mul_ps,
    _mm_max_ps,
    _mm_min_ps,
    _mm_cmpunord_ps,
    _mm_cmpeq_ps,
    _mm_or_ps,
    _mm_and_ps,
    _mm_movemask_ps
);

impl ByteVec for Bytes {
    const N: usize = 16;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        Bytes(_mm_loadu_si128(p.cast()))
    }
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        Bytes(_mm_set1_epi8(b as i8))
    }
    #[inline(always)]
    unsafe fn eq(a: Self, b: Self) -> Self {
        Bytes(_mm_cmpeq_epi8(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn sub(a: Self, b: Self) -> Self {
        Bytes(_mm_sub_epi8(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn or(a: Self, b: Self) -> Self {
        Bytes(_mm_or_si128(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn sum(a: Self) -> usize {
        // psadbw against zero: the sum of each half's 8 bytes in its 64-bit lane.
        let s = _mm_sad_epu8(a.0, _mm_setzero_si128());
        (_mm_cvtsi128_si64(s) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s))) as usize
    }
    #[inline(always)]
    unsafe fn is_zero(a: Self) -> bool {
        _mm_movemask_epi8(_mm_cmpeq_epi8(a.0, _mm_setzero_si128())) == 0xffff
    }
}
