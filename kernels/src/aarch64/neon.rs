//! NEON tier (128-bit vectors: 4 f32 or 2 f64 lanes).
//!
//! NEON has FMA, so `fma` and `dot` (the fused [`crate::scalar::dot_fused`]) use it.
//! The reductions with NaN rules and the scans are hand-written:
//! [`crate::generic`] over the vector types below.

use crate::generic::{ByteVec, FloatVec, FmaVec, VecOf};
use core::arch::aarch64::*;

autovec_binary!("neon"; add, sub, mul, div, maximum, minimum);
autovec_unary!("neon"; neg, abs, sqrt);
autovec_fma!("neon");
autovec_cmp!("neon"; eq, ne, lt, le, gt, ge);
handwritten_floats!("neon", Neon, dot_fused: FmaVec);
handwritten_bytes!("neon", Bytes);
tier_tables!(crate::Tier::Neon);
byte_table!(crate::Tier::Neon);

/// The marker naming this ISA in [`VecOf`].
pub struct Neon;

impl VecOf<Neon> for f64 {
    type V = F64x2;
}
impl VecOf<Neon> for f32 {
    type V = F32x4;
}

/// Two `f64` lanes.
#[derive(Clone, Copy)]
pub struct F64x2(float64x2_t);
/// Four `f32` lanes.
#[derive(Clone, Copy)]
pub struct F32x4(float32x4_t);
/// Sixteen bytes.
#[derive(Clone, Copy)]
pub struct Bytes(uint8x16_t);

impl FmaVec for F64x2 {
    #[inline(always)]
    unsafe fn mul_add(a: Self, b: Self, c: Self) -> Self {
        F64x2(vfmaq_f64(c.0, a.0, b.0))
    }
}

impl FloatVec for F64x2 {
    type T = f64;
    type M = uint64x2_t;
    const N: usize = 2;
    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        F64x2(vld1q_f64(p))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f64) {
        vst1q_f64(p, self.0)
    }
    #[inline(always)]
    unsafe fn splat(x: f64) -> Self {
        F64x2(vdupq_n_f64(x))
    }
    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        F64x2(vaddq_f64(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn mul(a: Self, b: Self) -> Self {
        F64x2(vmulq_f64(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn max(a: Self, b: Self) -> Self {
        F64x2(vmaxq_f64(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn min(a: Self, b: Self) -> Self {
        F64x2(vminq_f64(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn unord(a: Self, b: Self) -> uint64x2_t {
        let ordered = vandq_u64(vceqq_f64(a.0, a.0), vceqq_f64(b.0, b.0));
        vreinterpretq_u64_u32(vmvnq_u32(vreinterpretq_u32_u64(ordered)))
    }
    #[inline(always)]
    unsafe fn eq(a: Self, b: Self) -> uint64x2_t {
        vceqq_f64(a.0, b.0)
    }
    #[inline(always)]
    unsafe fn or(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
        vorrq_u64(a, b)
    }
    #[inline(always)]
    unsafe fn any(m: uint64x2_t) -> bool {
        vmaxvq_u32(vreinterpretq_u32_u64(m)) != 0
    }
    #[inline(always)]
    unsafe fn and_bits(a: Self, b: Self) -> Self {
        let (a, b) = (vreinterpretq_u64_f64(a.0), vreinterpretq_u64_f64(b.0));
        F64x2(vreinterpretq_f64_u64(vandq_u64(a, b)))
    }
    #[inline(always)]
    unsafe fn or_bits(a: Self, b: Self) -> Self {
        let (a, b) = (vreinterpretq_u64_f64(a.0), vreinterpretq_u64_f64(b.0));
        F64x2(vreinterpretq_f64_u64(vorrq_u64(a, b)))
    }
    #[inline(always)]
    unsafe fn signs(a: Self) -> u32 {
        let s = vshrq_n_u64::<63>(vreinterpretq_u64_f64(a.0));
        (vgetq_lane_u64::<0>(s) | vgetq_lane_u64::<1>(s) << 1) as u32
    }
}

impl FmaVec for F32x4 {
    #[inline(always)]
    unsafe fn mul_add(a: Self, b: Self, c: Self) -> Self {
        F32x4(vfmaq_f32(c.0, a.0, b.0))
    }
}

impl FloatVec for F32x4 {
    type T = f32;
    type M = uint32x4_t;
    const N: usize = 4;
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        F32x4(vld1q_f32(p))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        vst1q_f32(p, self.0)
    }
    #[inline(always)]
    unsafe fn splat(x: f32) -> Self {
        F32x4(vdupq_n_f32(x))
    }
    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        F32x4(vaddq_f32(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn mul(a: Self, b: Self) -> Self {
        F32x4(vmulq_f32(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn max(a: Self, b: Self) -> Self {
        F32x4(vmaxq_f32(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn min(a: Self, b: Self) -> Self {
        F32x4(vminq_f32(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn unord(a: Self, b: Self) -> uint32x4_t {
        vmvnq_u32(vandq_u32(vceqq_f32(a.0, a.0), vceqq_f32(b.0, b.0)))
    }
    #[inline(always)]
    unsafe fn eq(a: Self, b: Self) -> uint32x4_t {
        vceqq_f32(a.0, b.0)
    }
    #[inline(always)]
    unsafe fn or(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        vorrq_u32(a, b)
    }
    #[inline(always)]
    unsafe fn any(m: uint32x4_t) -> bool {
        vmaxvq_u32(m) != 0
    }
    #[inline(always)]
    unsafe fn and_bits(a: Self, b: Self) -> Self {
        let (a, b) = (vreinterpretq_u32_f32(a.0), vreinterpretq_u32_f32(b.0));
        F32x4(vreinterpretq_f32_u32(vandq_u32(a, b)))
    }
    #[inline(always)]
    unsafe fn or_bits(a: Self, b: Self) -> Self {
        let (a, b) = (vreinterpretq_u32_f32(a.0), vreinterpretq_u32_f32(b.0));
        F32x4(vreinterpretq_f32_u32(vorrq_u32(a, b)))
    }
    #[inline(always)]
    unsafe fn signs(a: Self) -> u32 {
        // Lane j's sign bit, moved to bit j, summed across lanes.
        const WEIGHT: [u32; 4] = [1, 2, 4, 8];
        let s = vshrq_n_u32::<31>(vreinterpretq_u32_f32(a.0));
        vaddvq_u32(vmulq_u32(s, vld1q_u32(WEIGHT.as_ptr())))
    }
}

impl ByteVec for Bytes {
    const N: usize = 16;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        Bytes(vld1q_u8(p))
    }
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        Bytes(vdupq_n_u8(b))
    }
    #[inline(always)]
    unsafe fn eq(a: Self, b: Self) -> Self {
        Bytes(vceqq_u8(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn sub(a: Self, b: Self) -> Self {
        Bytes(vsubq_u8(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn or(a: Self, b: Self) -> Self {
        Bytes(vorrq_u8(a.0, b.0))
    }
    #[inline(always)]
    unsafe fn sum(a: Self) -> usize {
        vaddlvq_u8(a.0) as usize
    }
    #[inline(always)]
    unsafe fn is_zero(a: Self) -> bool {
        vmaxvq_u8(a.0) == 0
    }
}
