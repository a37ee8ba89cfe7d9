//! AVX2 + FMA tier (256-bit vectors: 8 f32 or 4 f64 lanes).
//!
//! FMA is enabled for later kernels (GEMM, polynomials); the elementwise kernels here
//! must not contract `a * b + c`, and Rust never does so implicitly.

autovec_tier!(crate::Tier::Avx2, "avx2,fma");
