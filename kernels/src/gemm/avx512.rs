//! AVX-512 micro-kernels (32 zmm registers; fused multiply-add).
//!
//! The same template as every tier, selected only when detection finds AVX-512 F,
//! DQ, BW and VL. First run on 2026-12-01 (an Intel VM with two 512-bit FMA pipes):
//! every GEMM test passes at this tier, and the 16 x 12 f64 tile's blocked form ran
//! at 0.95 of the register-only peak at 2048³ on one thread (docs/perf.md, stop 16).
//! Other tile shapes are not yet measured here.

use core::arch::x86_64::*;

x86_simd!(
    F64x8,
    f64,
    __m512d,
    8,
    _mm512_setzero_pd,
    _mm512_set1_pd,
    _mm512_loadu_pd,
    _mm512_storeu_pd,
    _mm512_add_pd,
    _mm512_mul_pd,
    fma = _mm512_fmadd_pd
);
x86_simd!(
    F32x16,
    f32,
    __m512,
    16,
    _mm512_setzero_ps,
    _mm512_set1_ps,
    _mm512_loadu_ps,
    _mm512_storeu_ps,
    _mm512_add_ps,
    _mm512_mul_ps,
    fma = _mm512_fmadd_ps
);

// 2 x 12 = 24 accumulators + 2 of A + 1 broadcast of the 32 registers; the direct
// path's 8 x 2: 16 accumulators + 2 of B + 1.
gemm_kernel!(F64, "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma", f64, F64x8, 2 x 12, edge 1 x 8, direct 8 x 2);
gemm_kernel!(F32, "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma", f32, F32x16, 2 x 12, edge 1 x 8, direct 8 x 2);
