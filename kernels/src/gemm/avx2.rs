//! AVX2 + FMA micro-kernels (16 ymm registers; fused multiply-add).

use crate::vector::avx2::{F32x8, F64x4};

// 2 x 6 = 12 accumulators + 2 of A + 1 broadcast of the 16 registers; the direct
// path's 4 x 2: 8 accumulators (the FMA latency times its two pipes) + 2 of B + 1.
gemm_kernel!(F64_PLAIN, "avx2,fma", f64, F64x4, 2 x 6, edge 1 x 4, direct 4 x 2);
pub(crate) const F64: crate::gemm::table::Kernel<f64> = crate::gemm::table::Kernel {
    gather8: Some(crate::gemm::gather::x86::f64x8),
    ..F64_PLAIN
};
gemm_kernel!(F32_PLAIN, "avx2,fma", f32, F32x8, 2 x 6, edge 1 x 4, direct 4 x 2);
pub(crate) const F32: crate::gemm::table::Kernel<f32> = crate::gemm::table::Kernel {
    gather8: Some(crate::gemm::gather::x86::f32x8),
    ..F32_PLAIN
};
