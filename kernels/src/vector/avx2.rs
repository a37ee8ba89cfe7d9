//! AVX2 + FMA vectors (256 bits: 4 `f64` or 8 `f32` lanes, 32 bytes).

use super::sse2::ROUND_MAGIC;
use super::Isa;
use core::arch::x86_64::*;

/// The AVX2 + FMA ISA.
pub struct Avx2;

impl Isa for Avx2 {
    type F32 = F32x8;
    type F64 = F64x4;
    type Bytes = Bytes;
}

float_vector! {
    /// Four `f64` lanes.
    F64x4(__m256d): 4 x f64, int I64x4, mask __m256d, fma true;
    zero || _mm256_setzero_pd(),
    splat |x| _mm256_set1_pd(x),
    load |p| _mm256_loadu_pd(p),
    store |v, p| _mm256_storeu_pd(p, v),
    add |a, b| _mm256_add_pd(a, b),
    sub |a, b| _mm256_sub_pd(a, b),
    mul |a, b| _mm256_mul_pd(a, b),
    div |a, b| _mm256_div_pd(a, b),
    mul_add |a, b, c| _mm256_fmadd_pd(a, b, c),
    madd |a, b, c| _mm256_fmadd_pd(a, b, c),
    max |a, b| _mm256_max_pd(a, b),
    min |a, b| _mm256_min_pd(a, b),
    eq |a, b| _mm256_cmp_pd::<_CMP_EQ_OQ>(a, b),
    lt |a, b| _mm256_cmp_pd::<_CMP_LT_OQ>(a, b),
    le |a, b| _mm256_cmp_pd::<_CMP_LE_OQ>(a, b),
    unord |a, b| _mm256_cmp_pd::<_CMP_UNORD_Q>(a, b),
    mask_or |a, b| _mm256_or_pd(a, b),
    mask_and |a, b| _mm256_and_pd(a, b),
    any |m| _mm256_movemask_pd(m) != 0,
    select |m, a, b| _mm256_blendv_pd(b, a, m),
    and_bits |a, b| _mm256_and_pd(a, b),
    or_bits |a, b| _mm256_or_pd(a, b),
    signs |a| _mm256_movemask_pd(a) as u32,
    to_bits |a| _mm256_castpd_si256(a),
    from_bits |i| _mm256_castsi256_pd(i),
    // No packed f64 <-> i64 conversion below AVX-512: the SSE2 form's magic number.
    round_int |a| {
        let m = _mm256_set1_pd(ROUND_MAGIC);
        _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(a, m)), _mm256_castpd_si256(m))
    },
    from_int |i| {
        let m = _mm256_set1_pd(ROUND_MAGIC);
        _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(i, _mm256_castpd_si256(m))), m)
    },
    // The table as eight `f32` halves: index `i` becomes the halves `2i, 2i + 1`
    // (mod 8), one VPERMPS per register, and bit 2 of `i` picks the register.
    lookup2 |lo, hi, ix| {
        let twice = _mm256_slli_epi64::<1>(ix);
        let halves = _mm256_add_epi32(
            _mm256_shuffle_epi32::<0b10_10_00_00>(twice),
            _mm256_set_epi32(1, 0, 1, 0, 1, 0, 1, 0),
        );
        let x = _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(lo), halves));
        let y = _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(hi), halves));
        _mm256_blendv_pd(x, y, _mm256_castsi256_pd(_mm256_slli_epi64::<61>(ix)))
    },
    gather |p, ix| _mm256_i64gather_pd::<8>(p, ix),
}

float_vector! {
    /// Eight `f32` lanes.
    F32x8(__m256): 8 x f32, int I32x8, mask __m256, fma true;
    zero || _mm256_setzero_ps(),
    splat |x| _mm256_set1_ps(x),
    load |p| _mm256_loadu_ps(p),
    store |v, p| _mm256_storeu_ps(p, v),
    add |a, b| _mm256_add_ps(a, b),
    sub |a, b| _mm256_sub_ps(a, b),
    mul |a, b| _mm256_mul_ps(a, b),
    div |a, b| _mm256_div_ps(a, b),
    mul_add |a, b, c| _mm256_fmadd_ps(a, b, c),
    madd |a, b, c| _mm256_fmadd_ps(a, b, c),
    max |a, b| _mm256_max_ps(a, b),
    min |a, b| _mm256_min_ps(a, b),
    eq |a, b| _mm256_cmp_ps::<_CMP_EQ_OQ>(a, b),
    lt |a, b| _mm256_cmp_ps::<_CMP_LT_OQ>(a, b),
    le |a, b| _mm256_cmp_ps::<_CMP_LE_OQ>(a, b),
    unord |a, b| _mm256_cmp_ps::<_CMP_UNORD_Q>(a, b),
    mask_or |a, b| _mm256_or_ps(a, b),
    mask_and |a, b| _mm256_and_ps(a, b),
    any |m| _mm256_movemask_ps(m) != 0,
    select |m, a, b| _mm256_blendv_ps(b, a, m),
    and_bits |a, b| _mm256_and_ps(a, b),
    or_bits |a, b| _mm256_or_ps(a, b),
    signs |a| _mm256_movemask_ps(a) as u32,
    to_bits |a| _mm256_castps_si256(a),
    from_bits |i| _mm256_castsi256_ps(i),
    round_int |a| _mm256_cvtps_epi32(a),
    from_int |i| _mm256_cvtepi32_ps(i),
    // One VPERMPS per register (it reads the low 3 bits); bit 3 picks the register.
    lookup2 |lo, hi, ix| {
        let (x, y) = (_mm256_permutevar8x32_ps(lo, ix), _mm256_permutevar8x32_ps(hi, ix));
        _mm256_blendv_ps(x, y, _mm256_castsi256_ps(_mm256_slli_epi32::<28>(ix)))
    },
    gather |p, ix| _mm256_i32gather_ps::<4>(p, ix),
}

// The shifts by a constant count in a register, as at SSE2.
int_vector! {
    /// Four `i64` lanes.
    I64x4(__m256i): 4 x i64;
    splat |x| _mm256_set1_epi64x(x),
    load |p| _mm256_loadu_si256(p.cast()),
    store |v, p| _mm256_storeu_si256(p.cast(), v),
    add |a, b| _mm256_add_epi64(a, b),
    sub |a, b| _mm256_sub_epi64(a, b),
    and |a, b| _mm256_and_si256(a, b),
    or |a, b| _mm256_or_si256(a, b),
    shl<S> |a| _mm256_sll_epi64(a, _mm_cvtsi32_si128(S as i32)),
    shr<S> |a| _mm256_srl_epi64(a, _mm_cvtsi32_si128(S as i32)),
}

int_vector! {
    /// Eight `i32` lanes.
    I32x8(__m256i): 8 x i32;
    splat |x| _mm256_set1_epi32(x),
    load |p| _mm256_loadu_si256(p.cast()),
    store |v, p| _mm256_storeu_si256(p.cast(), v),
    add |a, b| _mm256_add_epi32(a, b),
    sub |a, b| _mm256_sub_epi32(a, b),
    and |a, b| _mm256_and_si256(a, b),
    or |a, b| _mm256_or_si256(a, b),
    shl<S> |a| _mm256_sll_epi32(a, _mm_cvtsi32_si128(S as i32)),
    shr<S> |a| _mm256_srl_epi32(a, _mm_cvtsi32_si128(S as i32)),
}

byte_vector! {
    /// Thirty-two bytes.
    Bytes(__m256i): 32;
    splat |b| _mm256_set1_epi8(b as i8),
    load |p| _mm256_loadu_si256(p.cast()),
    store |v, p| _mm256_storeu_si256(p.cast(), v),
    eq |a, b| _mm256_cmpeq_epi8(a, b),
    sub |a, b| _mm256_sub_epi8(a, b),
    or |a, b| _mm256_or_si256(a, b),
    // VPSADBW against zero: the sum of each quarter's 8 bytes in its 64-bit lane.
    sum |a| {
        let s = _mm256_sad_epu8(a, _mm256_setzero_si256());
        let s = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
        (_mm_cvtsi128_si64(s) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s))) as usize
    },
    is_zero |a| _mm256_testz_si256(a, a) == 1,
}
