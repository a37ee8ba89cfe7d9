//! AVX-512 micro-kernels (32 zmm registers; fused multiply-add).
//!
//! The same template as every tier, selected only when detection finds AVX-512 F,
//! DQ, BW and VL. The tile is 24 x 8 f64, 48 x 8 f32 (docs/design.md#tiles).

use crate::vector::avx512::{F32x16, F64x8};

// 3 x 8 = 24 accumulators + 3 of A + 1 broadcast of the 32 registers: three loads of
// A and eight broadcasts of B per 24 multiply-adds, a k-step of B's panel one cache
// line (docs/design.md#tiles). The direct path's 6 x 4 (24 accumulators + 4 of B + 1)
// beats packing for C up to 256 wide (`up to 256`; docs/design.md#which-path).
gemm_kernel!(F64_PLAIN, "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma", f64, F64x8, 3 x 8, edge 2 x 4, direct 6 x 4 up to 256);
// Short A (at most 16 rows) of any width: the direct path, 1.2-2.0x the packed
// forms at 4-16 rows of 1024 x 4096, 1.02 at 24, 0.89 at 48 (f32: 1.15 at 24, 0.88
// at 32); on AVX2 the direct path loses at every such shape (0.39-0.75), and so it
// does on Zen 4's split 512-bit operations (0.55-0.78: `dispatch::splits_512`).
const SHORT_ROWS: usize = 16;
pub(crate) const F64: crate::gemm::table::Kernel<f64> = crate::gemm::table::Kernel {
    gather8: Some(crate::gemm::gather::x86::f64x8),
    direct_short_rows: SHORT_ROWS,
    ..F64_PLAIN
};
gemm_kernel!(F32_PLAIN, "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma", f32, F32x16, 3 x 8, edge 2 x 4, direct 6 x 4 up to 256);
pub(crate) const F32: crate::gemm::table::Kernel<f32> = crate::gemm::table::Kernel {
    gather8: Some(crate::gemm::gather::x86::f32x8),
    direct_short_rows: SHORT_ROWS,
    ..F32_PLAIN
};
