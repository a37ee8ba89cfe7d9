//! NEON micro-kernels (32 q registers; fused multiply-add).

use super::kernel::Simd;
use core::arch::aarch64::*;

macro_rules! neon_simd {
    ($v:ident, $t:ty, $raw:ty, $n:literal, $dup:ident, $ld:ident, $st:ident, $add:ident, $mul:ident, $fma:ident) => {
        #[derive(Clone, Copy)]
        pub(crate) struct $v($raw);

        impl Simd for $v {
            type T = $t;
            const N: usize = $n;
            #[inline(always)]
            unsafe fn zero() -> Self {
                // SAFETY: the caller runs where NEON is present.
                $v(unsafe { $dup(0.0) })
            }
            #[inline(always)]
            unsafe fn splat(x: $t) -> Self {
                // SAFETY: as in `zero`.
                $v(unsafe { $dup(x) })
            }
            #[inline(always)]
            unsafe fn load(p: *const $t) -> Self {
                // SAFETY: as in `zero`; `p` is valid for `N` reads.
                $v(unsafe { $ld(p) })
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                // SAFETY: as in `zero`; `p` is valid for `N` writes.
                unsafe { $st(p, self.0) }
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                // SAFETY: as in `zero`.
                $v(unsafe { $add(a.0, b.0) })
            }
            #[inline(always)]
            unsafe fn mul(a: Self, b: Self) -> Self {
                // SAFETY: as in `zero`.
                $v(unsafe { $mul(a.0, b.0) })
            }
            #[inline(always)]
            unsafe fn mul_add(a: Self, b: Self, c: Self) -> Self {
                // SAFETY: as in `zero`. `vfmaq(c, a, b)` is `c + a * b`, rounded once.
                $v(unsafe { $fma(c.0, a.0, b.0) })
            }
        }
    };
}

neon_simd!(
    F64x2,
    f64,
    float64x2_t,
    2,
    vdupq_n_f64,
    vld1q_f64,
    vst1q_f64,
    vaddq_f64,
    vmulq_f64,
    vfmaq_f64
);
neon_simd!(
    F32x4,
    f32,
    float32x4_t,
    4,
    vdupq_n_f32,
    vld1q_f32,
    vst1q_f32,
    vaddq_f32,
    vmulq_f32,
    vfmaq_f32
);

// 4 x 6 = 24 accumulators + 4 of A + 1 broadcast of the 32 registers. Not measured:
// NEON runs here only under qemu. The direct path's 4 x 4: 16 accumulators + 4 of B
// + 1.
gemm_kernel!(F64, "neon", f64, F64x2, 4 x 6, edge 2 x 4, direct 4 x 4);
gemm_kernel!(F32, "neon", f32, F32x4, 4 x 6, edge 2 x 4, direct 4 x 4);
