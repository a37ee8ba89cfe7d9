//! NEON vectors (128 bits: 2 `f64` or 4 `f32` lanes, 16 bytes), with FMA.

use super::Isa;
use core::arch::aarch64::*;

/// The NEON ISA.
pub struct Neon;

impl Isa for Neon {
    type F32 = F32x4;
    type F64 = F64x2;
    type Bytes = Bytes;
}

// `vfmaq(c, a, b)` is `c + a * b`, rounded once. `lookup2` is one TBL over the
// table's 32 bytes: each index's low byte spread over its lane's bytes, reduced mod
// `2N`, scaled to a byte offset and stepped through the element's bytes.
float_vector! {
    /// Two `f64` lanes.
    F64x2(float64x2_t): 2 x f64, int I64x2, mask uint64x2_t, fma true;
    zero || vdupq_n_f64(0.0),
    splat |x| vdupq_n_f64(x),
    load |p| vld1q_f64(p),
    store |v, p| vst1q_f64(p, v),
    add |a, b| vaddq_f64(a, b),
    sub |a, b| vsubq_f64(a, b),
    mul |a, b| vmulq_f64(a, b),
    div |a, b| vdivq_f64(a, b),
    mul_add |a, b, c| vfmaq_f64(c, a, b),
    madd |a, b, c| vfmaq_f64(c, a, b),
    max |a, b| vmaxq_f64(a, b),
    min |a, b| vminq_f64(a, b),
    eq |a, b| vceqq_f64(a, b),
    lt |a, b| vcltq_f64(a, b),
    le |a, b| vcleq_f64(a, b),
    unord |a, b| {
        let ordered = vandq_u64(vceqq_f64(a, a), vceqq_f64(b, b));
        vreinterpretq_u64_u32(vmvnq_u32(vreinterpretq_u32_u64(ordered)))
    },
    mask_or |a, b| vorrq_u64(a, b),
    mask_and |a, b| vandq_u64(a, b),
    any |m| vmaxvq_u32(vreinterpretq_u32_u64(m)) != 0,
    select |m, a, b| vbslq_f64(m, a, b),
    and_bits |a, b| {
        vreinterpretq_f64_u64(vandq_u64(vreinterpretq_u64_f64(a), vreinterpretq_u64_f64(b)))
    },
    or_bits |a, b| {
        vreinterpretq_f64_u64(vorrq_u64(vreinterpretq_u64_f64(a), vreinterpretq_u64_f64(b)))
    },
    signs |a| {
        let s = vshrq_n_u64::<63>(vreinterpretq_u64_f64(a));
        (vgetq_lane_u64::<0>(s) | vgetq_lane_u64::<1>(s) << 1) as u32
    },
    to_bits |a| vreinterpretq_s64_f64(a),
    from_bits |i| vreinterpretq_f64_s64(i),
    round_int |a| vcvtnq_s64_f64(a),
    from_int |i| vcvtq_f64_s64(i),
    lookup2 |lo, hi, ix| {
        let spread = [0u8, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 8, 8];
        let step = [0u8, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7];
        let i = vqtbl1q_u8(vreinterpretq_u8_s64(ix), vld1q_u8(spread.as_ptr()));
        let i = vshlq_n_u8::<3>(vandq_u8(i, vdupq_n_u8(3)));
        let i = vaddq_u8(i, vld1q_u8(step.as_ptr()));
        let table = uint8x16x2_t(vreinterpretq_u8_f64(lo), vreinterpretq_u8_f64(hi));
        vreinterpretq_f64_u8(vqtbl2q_u8(table, i))
    },
}

float_vector! {
    /// Four `f32` lanes.
    F32x4(float32x4_t): 4 x f32, int I32x4, mask uint32x4_t, fma true;
    zero || vdupq_n_f32(0.0),
    splat |x| vdupq_n_f32(x),
    load |p| vld1q_f32(p),
    store |v, p| vst1q_f32(p, v),
    add |a, b| vaddq_f32(a, b),
    sub |a, b| vsubq_f32(a, b),
    mul |a, b| vmulq_f32(a, b),
    div |a, b| vdivq_f32(a, b),
    mul_add |a, b, c| vfmaq_f32(c, a, b),
    madd |a, b, c| vfmaq_f32(c, a, b),
    max |a, b| vmaxq_f32(a, b),
    min |a, b| vminq_f32(a, b),
    eq |a, b| vceqq_f32(a, b),
    lt |a, b| vcltq_f32(a, b),
    le |a, b| vcleq_f32(a, b),
    unord |a, b| vmvnq_u32(vandq_u32(vceqq_f32(a, a), vceqq_f32(b, b))),
    mask_or |a, b| vorrq_u32(a, b),
    mask_and |a, b| vandq_u32(a, b),
    any |m| vmaxvq_u32(m) != 0,
    select |m, a, b| vbslq_f32(m, a, b),
    and_bits |a, b| {
        vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b)))
    },
    or_bits |a, b| {
        vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b)))
    },
    // Lane j's sign bit, moved to bit j, summed across lanes.
    signs |a| {
        let weight = [1u32, 2, 4, 8];
        let s = vshrq_n_u32::<31>(vreinterpretq_u32_f32(a));
        vaddvq_u32(vmulq_u32(s, vld1q_u32(weight.as_ptr())))
    },
    to_bits |a| vreinterpretq_s32_f32(a),
    from_bits |i| vreinterpretq_f32_s32(i),
    round_int |a| vcvtnq_s32_f32(a),
    from_int |i| vcvtq_f32_s32(i),
    lookup2 |lo, hi, ix| {
        let spread = [0u8, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12];
        let step = [0u8, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3];
        let i = vqtbl1q_u8(vreinterpretq_u8_s32(ix), vld1q_u8(spread.as_ptr()));
        let i = vshlq_n_u8::<2>(vandq_u8(i, vdupq_n_u8(7)));
        let i = vaddq_u8(i, vld1q_u8(step.as_ptr()));
        let table = uint8x16x2_t(vreinterpretq_u8_f32(lo), vreinterpretq_u8_f32(hi));
        vreinterpretq_f32_u8(vqtbl2q_u8(table, i))
    },
}

// The shifts by a constant count in a register (a negative count shifts right);
// LLVM folds the constant into the immediate forms.
int_vector! {
    /// Two `i64` lanes.
    I64x2(int64x2_t): 2 x i64;
    splat |x| vdupq_n_s64(x),
    load |p| vld1q_s64(p),
    store |v, p| vst1q_s64(p, v),
    add |a, b| vaddq_s64(a, b),
    sub |a, b| vsubq_s64(a, b),
    and |a, b| vandq_s64(a, b),
    or |a, b| vorrq_s64(a, b),
    shl<S> |a| vshlq_s64(a, vdupq_n_s64(S as i64)),
    shr<S> |a| vreinterpretq_s64_u64(vshlq_u64(vreinterpretq_u64_s64(a), vdupq_n_s64(-(S as i64)))),
}

int_vector! {
    /// Four `i32` lanes.
    I32x4(int32x4_t): 4 x i32;
    splat |x| vdupq_n_s32(x),
    load |p| vld1q_s32(p),
    store |v, p| vst1q_s32(p, v),
    add |a, b| vaddq_s32(a, b),
    sub |a, b| vsubq_s32(a, b),
    and |a, b| vandq_s32(a, b),
    or |a, b| vorrq_s32(a, b),
    shl<S> |a| vshlq_s32(a, vdupq_n_s32(S as i32)),
    shr<S> |a| vreinterpretq_s32_u32(vshlq_u32(vreinterpretq_u32_s32(a), vdupq_n_s32(-(S as i32)))),
}

byte_vector! {
    /// Sixteen bytes.
    Bytes(uint8x16_t): 16;
    splat |b| vdupq_n_u8(b),
    load |p| vld1q_u8(p),
    store |v, p| vst1q_u8(p, v),
    eq |a, b| vceqq_u8(a, b),
    sub |a, b| vsubq_u8(a, b),
    or |a, b| vorrq_u8(a, b),
    sum |a| vaddlvq_u8(a) as usize,
    is_zero |a| vmaxvq_u8(a) == 0,
}
