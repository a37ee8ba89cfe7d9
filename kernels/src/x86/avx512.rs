//! AVX-512 tier (512-bit vectors: 16 f32 or 8 f64 lanes), F + DQ + BW + VL.
//!
//! Its elementwise kernels, comparisons and `fma` are the oracles compiled with the
//! AVX-512 features. The float reductions, whose oracles LLVM vectorises poorly or
//! not at all (`sum`, `prod`, `dot`, `max`, `min`, `argmax`, `argmin`), are
//! [`crate::generic`]'s algorithms over the 512-bit vectors below, as at the AVX2
//! tier over 256-bit ones. The comparisons give `k` mask registers here instead of
//! vectors of all-ones lanes, which is what [`FloatVec::M`] is for.
//!
//! The byte scans are the AVX2 tier's own functions (detection admits this tier only
//! with AVX2 present): over 64-byte vectors (compare into a mask, then VPMOVM2B or a
//! masked subtract) `count_byte` ran at 0.57-0.6x their speed over 1 MiB in L2 and
//! 0.8x from memory (64 MiB), on the Sapphire Rapids-class VM of 2026-12-01 (`ndsimd
//! bench --quick --filter count_byte` under `NDSIMD_TIER=avx2` and `avx512`, twice
//! each). Its read ceiling loop was slower over 512-bit vectors too.
//!
//! Since the reductions keep the canonical lane order of [`crate::scalar`] (lane `j`
//! in accumulator `j / N`), their results are bit-identical to the other tiers'.

use crate::generic::{FloatVec, FmaVec, VecOf};
use core::arch::x86_64::*;

autovec_binary!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; add, sub, mul, div, maximum, minimum);
autovec_unary!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; neg, abs, sqrt);
autovec_cmp!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; eq, ne, lt, le, gt, ge);
autovec_fma!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma");
handwritten_floats!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma", Avx512, dot_fused: FmaVec);
pub use super::avx2::{count_byte, first_nonzero_word, nth_byte};
tier_tables!(crate::Tier::Avx512);
byte_table!(crate::Tier::Avx512);

/// The marker naming this ISA in [`VecOf`].
pub struct Avx512;

impl VecOf<Avx512> for f64 {
    type V = F64x8;
}
impl VecOf<Avx512> for f32 {
    type V = F32x16;
}

/// Eight `f64` lanes.
#[derive(Clone, Copy)]
pub struct F64x8(__m512d);
/// Sixteen `f32` lanes.
#[derive(Clone, Copy)]
pub struct F32x16(__m512);

/// `FloatVec` and `FmaVec` for one 512-bit float vector: `$m` is its comparison
/// mask (`__mmask8` or `__mmask16`); `$signs` (VPMOVQ2M or VPMOVD2M, AVX512DQ) takes
/// each lane's top bit from the lanes as integers (`$cast`).
macro_rules! avx512_float {
    ($v:ident, $t:ty, $m:ty, $n:literal, $load:ident, $store:ident, $set1:ident,
     $add:ident, $mul:ident, $max:ident, $min:ident, $cmp:ident, $and:ident, $or:ident,
     $fmadd:ident, $signs:ident, $cast:ident) => {
        impl FloatVec for $v {
            type T = $t;
            type M = $m;
            const N: usize = $n;
            #[inline(always)]
            unsafe fn load(p: *const $t) -> Self {
                $v($load(p))
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                $store(p, self.0)
            }
            #[inline(always)]
            unsafe fn splat(x: $t) -> Self {
                $v($set1(x))
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                $v($add(a.0, b.0))
            }
            #[inline(always)]
            unsafe fn mul(a: Self, b: Self) -> Self {
                $v($mul(a.0, b.0))
            }
            #[inline(always)]
            unsafe fn max(a: Self, b: Self) -> Self {
                // VMAXPD/VMAXPS return the second operand when either is NaN, as the
                // 256-bit forms do.
                $v($max(a.0, b.0))
            }
            #[inline(always)]
            unsafe fn min(a: Self, b: Self) -> Self {
                $v($min(a.0, b.0))
            }
            #[inline(always)]
            unsafe fn unord(a: Self, b: Self) -> $m {
                $cmp::<_CMP_UNORD_Q>(a.0, b.0)
            }
            #[inline(always)]
            unsafe fn eq(a: Self, b: Self) -> $m {
                $cmp::<_CMP_EQ_OQ>(a.0, b.0)
            }
            #[inline(always)]
            unsafe fn or(a: $m, b: $m) -> $m {
                a | b
            }
            #[inline(always)]
            unsafe fn any(m: $m) -> bool {
                m != 0
            }
            #[inline(always)]
            unsafe fn and_bits(a: Self, b: Self) -> Self {
                $v($and(a.0, b.0))
            }
            #[inline(always)]
            unsafe fn or_bits(a: Self, b: Self) -> Self {
                $v($or(a.0, b.0))
            }
            #[inline(always)]
            unsafe fn signs(a: Self) -> u32 {
                $signs($cast(a.0)) as u32
            }
        }
        impl FmaVec for $v {
            #[inline(always)]
            unsafe fn mul_add(a: Self, b: Self, c: Self) -> Self {
                $v($fmadd(a.0, b.0, c.0))
            }
        }
    };
}

avx512_float!(
    F64x8,
    f64,
    __mmask8,
    8,
    _mm512_loadu_pd,
    _mm512_storeu_pd,
    _mm512_set1_pd,
    _mm512_add_pd,
    _mm512_mul_pd,
    _mm512_max_pd,
    _mm512_min_pd,
    _mm512_cmp_pd_mask,
    _mm512_and_pd,
    _mm512_or_pd,
    _mm512_fmadd_pd,
    _mm512_movepi64_mask,
    _mm512_castpd_si512
);
avx512_float!(
    F32x16,
    f32,
    __mmask16,
    16,
    _mm512_loadu_ps,
    _mm512_storeu_ps,
    _mm512_set1_ps,
    _mm512_add_ps,
    _mm512_mul_ps,
    _mm512_max_ps,
    _mm512_min_ps,
    _mm512_cmp_ps_mask,
    _mm512_and_ps,
    _mm512_or_ps,
    _mm512_fmadd_ps,
    _mm512_movepi32_mask,
    _mm512_castps_si512
);
