//! SSE2 micro-kernels (16 xmm registers, no FMA: multiply then add).

use core::arch::x86_64::*;

x86_simd!(
    F64x2,
    f64,
    __m128d,
    2,
    _mm_setzero_pd,
    _mm_set1_pd,
    _mm_loadu_pd,
    _mm_storeu_pd,
    _mm_add_pd,
    _mm_mul_pd
);
x86_simd!(
    F32x4,
    f32,
    __m128,
    4,
    _mm_setzero_ps,
    _mm_set1_ps,
    _mm_loadu_ps,
    _mm_storeu_ps,
    _mm_add_ps,
    _mm_mul_ps
);

// 2 x 4 accumulators + 2 of A + 1 broadcast fit the 16 registers; so do the direct
// path's 4 x 2 (+ 2 of B + 1 broadcast + 1 product).
gemm_kernel!(F64, "sse2", f64, F64x2, 2 x 4, edge 1 x 2, direct 4 x 2);
gemm_kernel!(F32, "sse2", f32, F32x4, 2 x 4, edge 1 x 2, direct 4 x 2);
