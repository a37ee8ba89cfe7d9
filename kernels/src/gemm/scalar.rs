//! The portable micro-kernels: [`tile`](super::kernel::tile) over one-lane "vectors"
//! ([`crate::vector::scalar`]).
//!
//! The multiply-add is not fused (`a * b + c`, two roundings): a software fma would
//! be far slower, and the tile shape leaves LLVM free to use whatever SIMD the
//! baseline target has.

use crate::vector::scalar::{F32x1, F64x1};

gemm_kernel!(F64, portable, f64, F64x1, 4 x 4, edge 2 x 2, direct 4 x 4);
gemm_kernel!(F32, portable, f32, F32x1, 4 x 4, edge 2 x 2, direct 4 x 4);
