//! SSE2 micro-kernels (16 xmm registers, no FMA: multiply then add).

use crate::vector::sse2::{F32x4, F64x2};

// 2 x 4 accumulators + 2 of A + 1 broadcast fit the 16 registers; so do the direct
// path's 4 x 2 (+ 2 of B + 1 broadcast + 1 product).
gemm_kernel!(F64, "sse2", f64, F64x2, 2 x 4, edge 1 x 2, direct 4 x 2);
gemm_kernel!(F32, "sse2", f32, F32x4, 2 x 4, edge 1 x 2, direct 4 x 2);
