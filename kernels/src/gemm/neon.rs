//! NEON micro-kernels (32 q registers; fused multiply-add).

use crate::vector::neon::{F32x4, F64x2};

// 4 x 6 = 24 accumulators + 4 of A + 1 broadcast of the 32 registers. Not measured:
// NEON has run only under qemu. The direct path's 4 x 4: 16 accumulators + 4 of B
// + 1.
gemm_kernel!(F64, "neon", f64, F64x2, 4 x 6, edge 2 x 4, direct 4 x 4);
gemm_kernel!(F32, "neon", f32, F32x4, 4 x 6, edge 2 x 4, direct 4 x 4);
