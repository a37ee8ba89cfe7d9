//! AVX2 + FMA tier (256-bit vectors: 8 f32 or 4 f64 lanes).
//!
//! FMA is enabled: `fma` uses it (`dot` rounds each product, as every tier);
//! the other elementwise kernels must not contract `a * b + c`, and Rust never does
//! so implicitly. The reductions with NaN rules and the scans are
//! hand-written: [`crate::generic`] over [`crate::vector::avx2`]'s vectors.

use crate::vector::avx2::{Avx2, Bytes};

autovec_binary!("avx2,fma"; add, sub, mul, div, maximum, minimum);
autovec_unary!("avx2,fma"; neg, abs, sqrt);
autovec_fma!("avx2,fma");
autovec_cmp!("avx2,fma"; eq, ne, lt, le, gt, ge);
handwritten_floats!("avx2,fma", Avx2, dot);
handwritten_bytes!("avx2,fma", Bytes);
math_kernels!("avx2,fma", crate::vector::avx2::Avx2);
tier_tables!(crate::Tier::Avx2);
int_kernels!("avx2,fma", crate::Tier::Avx2);
byte_table!(crate::Tier::Avx2);
tier_kernels!(avx2);
