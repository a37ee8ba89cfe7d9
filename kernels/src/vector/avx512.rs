//! AVX-512 vectors (F, DQ, BW and VL; 512 bits: 8 `f64` or 16 `f32` lanes, 64
//! bytes). Comparisons give `k` mask registers, which [`super::FloatVector::Mask`]
//! is for.

use super::Isa;
use core::arch::x86_64::*;

/// The AVX-512 ISA.
pub struct Avx512;

impl Isa for Avx512 {
    type F32 = F32x16;
    type F64 = F64x8;
    type Bytes = Bytes;
}

float_vector! {
    /// Eight `f64` lanes.
    F64x8(__m512d): 8 x f64, int I64x8, mask __mmask8, fma true;
    zero || _mm512_setzero_pd(),
    splat |x| _mm512_set1_pd(x),
    load |p| _mm512_loadu_pd(p),
    store |v, p| _mm512_storeu_pd(p, v),
    add |a, b| _mm512_add_pd(a, b),
    sub |a, b| _mm512_sub_pd(a, b),
    mul |a, b| _mm512_mul_pd(a, b),
    div |a, b| _mm512_div_pd(a, b),
    mul_add |a, b, c| _mm512_fmadd_pd(a, b, c),
    madd |a, b, c| _mm512_fmadd_pd(a, b, c),
    max |a, b| _mm512_max_pd(a, b),
    min |a, b| _mm512_min_pd(a, b),
    eq |a, b| _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, b),
    lt |a, b| _mm512_cmp_pd_mask::<_CMP_LT_OQ>(a, b),
    le |a, b| _mm512_cmp_pd_mask::<_CMP_LE_OQ>(a, b),
    unord |a, b| _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, b),
    mask_or |a, b| a | b,
    mask_and |a, b| a & b,
    any |m| m != 0,
    select |m, a, b| _mm512_mask_blend_pd(m, b, a),
    and_bits |a, b| _mm512_and_pd(a, b),
    or_bits |a, b| _mm512_or_pd(a, b),
    // VPMOVQ2M: the lanes' top bits.
    signs |a| _mm512_movepi64_mask(_mm512_castpd_si512(a)) as u32,
    to_bits |a| _mm512_castpd_si512(a),
    from_bits |i| _mm512_castsi512_pd(i),
    // VCVTPD2QQ rounds as MXCSR says: to nearest, ties to even, unless changed.
    round_int |a| _mm512_cvtpd_epi64(a),
    from_int |i| _mm512_cvtepi64_pd(i),
    lookup2 |lo, hi, ix| _mm512_permutex2var_pd(lo, ix, hi),
    gather |p, ix| _mm512_i64gather_pd::<8>(ix, p),
    // Entries 0..16 and 16..32 by one two-register permute each, bit 4 picks.
    table32 |p, ix| {
        let a = _mm512_permutex2var_pd(_mm512_loadu_pd(p), ix, _mm512_loadu_pd(p.add(8)));
        let b = _mm512_permutex2var_pd(_mm512_loadu_pd(p.add(16)), ix, _mm512_loadu_pd(p.add(24)));
        _mm512_mask_blend_pd(_mm512_test_epi64_mask(ix, _mm512_set1_epi64(16)), a, b)
    },
    getexp |a| _mm512_getexp_pd(a),
    getmant |a| _mm512_getmant_pd::<_MM_MANT_NORM_P75_1P5, _MM_MANT_SIGN_ZERO>(a),
    // QNaN, +0, -0, +Inf, -Inf, negative finite, SNaN: all but positive finite
    // (normal or subnormal).
    not_pos_finite |a| _mm512_fpclass_pd_mask::<0xdf>(a),
    // Those and denormals: all but positive normal.
    not_pos_normal |a| _mm512_fpclass_pd_mask::<0xff>(a),
    scalef |a, b| _mm512_scalef_pd(a, b),
}

float_vector! {
    /// Sixteen `f32` lanes.
    F32x16(__m512): 16 x f32, int I32x16, mask __mmask16, fma true;
    zero || _mm512_setzero_ps(),
    splat |x| _mm512_set1_ps(x),
    load |p| _mm512_loadu_ps(p),
    store |v, p| _mm512_storeu_ps(p, v),
    add |a, b| _mm512_add_ps(a, b),
    sub |a, b| _mm512_sub_ps(a, b),
    mul |a, b| _mm512_mul_ps(a, b),
    div |a, b| _mm512_div_ps(a, b),
    mul_add |a, b, c| _mm512_fmadd_ps(a, b, c),
    madd |a, b, c| _mm512_fmadd_ps(a, b, c),
    max |a, b| _mm512_max_ps(a, b),
    min |a, b| _mm512_min_ps(a, b),
    eq |a, b| _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(a, b),
    lt |a, b| _mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, b),
    le |a, b| _mm512_cmp_ps_mask::<_CMP_LE_OQ>(a, b),
    unord |a, b| _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, b),
    mask_or |a, b| a | b,
    mask_and |a, b| a & b,
    any |m| m != 0,
    select |m, a, b| _mm512_mask_blend_ps(m, b, a),
    and_bits |a, b| _mm512_and_ps(a, b),
    or_bits |a, b| _mm512_or_ps(a, b),
    // VPMOVD2M: the lanes' top bits.
    signs |a| _mm512_movepi32_mask(_mm512_castps_si512(a)) as u32,
    to_bits |a| _mm512_castps_si512(a),
    from_bits |i| _mm512_castsi512_ps(i),
    round_int |a| _mm512_cvtps_epi32(a),
    from_int |i| _mm512_cvtepi32_ps(i),
    lookup2 |lo, hi, ix| _mm512_permutex2var_ps(lo, ix, hi),
    gather |p, ix| _mm512_i32gather_ps::<4>(ix, p),
    table32 |p, ix| _mm512_permutex2var_ps(_mm512_loadu_ps(p), ix, _mm512_loadu_ps(p.add(16))),
}

int_vector! {
    /// Eight `i64` lanes.
    I64x8(__m512i): 8 x i64;
    splat |x| _mm512_set1_epi64(x),
    load |p| _mm512_loadu_si512(p.cast()),
    store |v, p| _mm512_storeu_si512(p.cast(), v),
    add |a, b| _mm512_add_epi64(a, b),
    sub |a, b| _mm512_sub_epi64(a, b),
    and |a, b| _mm512_and_si512(a, b),
    or |a, b| _mm512_or_si512(a, b),
    shl<S> |a| _mm512_slli_epi64::<S>(a),
    shr<S> |a| _mm512_srli_epi64::<S>(a),
}

int_vector! {
    /// Sixteen `i32` lanes.
    I32x16(__m512i): 16 x i32;
    splat |x| _mm512_set1_epi32(x),
    load |p| _mm512_loadu_si512(p.cast()),
    store |v, p| _mm512_storeu_si512(p.cast(), v),
    add |a, b| _mm512_add_epi32(a, b),
    sub |a, b| _mm512_sub_epi32(a, b),
    and |a, b| _mm512_and_si512(a, b),
    or |a, b| _mm512_or_si512(a, b),
    shl<S> |a| _mm512_slli_epi32::<S>(a),
    shr<S> |a| _mm512_srli_epi32::<S>(a),
}

byte_vector! {
    /// Sixty-four bytes.
    Bytes(__m512i): 64;
    splat |b| _mm512_set1_epi8(b as i8),
    load |p| _mm512_loadu_si512(p.cast()),
    store |v, p| _mm512_storeu_si512(p.cast(), v),
    eq |a, b| _mm512_movm_epi8(_mm512_cmpeq_epi8_mask(a, b)),
    sub |a, b| _mm512_sub_epi8(a, b),
    or |a, b| _mm512_or_si512(a, b),
    // VPSADBW against zero: the sum of each 8 bytes in its 64-bit lane.
    sum |a| _mm512_reduce_add_epi64(_mm512_sad_epu8(a, _mm512_setzero_si512())) as usize,
    is_zero |a| _mm512_test_epi64_mask(a, a) == 0,
    // A compare into a mask and a subtract of -1 under it (see the trait).
    tally |acc, x, needle, minus_one| {
        let hit = _mm512_cmpeq_epi8_mask(x, needle);
        _mm512_mask_sub_epi8(acc, hit, acc, minus_one)
    },
}
