//! SSE2 tier (128-bit vectors: 4 f32 or 2 f64 lanes).
//!
//! SSE2 is the x86_64 baseline, so the autovectorised kernels here compile as the
//! scalar tier's do. The reductions with NaN rules and the scans are
//! hand-written: [`crate::generic`] over [`crate::vector::sse2`]'s vectors.

use crate::vector::sse2::{Bytes, Sse2};

autovec_binary!("sse2"; add, sub, mul, div, maximum, minimum);
autovec_unary!("sse2"; neg, abs, sqrt);
autovec_fma!("sse2");
autovec_cmp!("sse2"; eq, ne, lt, le, gt, ge);
handwritten_floats!("sse2", Sse2, dot);
handwritten_bytes!("sse2", Bytes);
math_kernels!("sse2", crate::vector::sse2::Sse2);
tier_tables!(crate::Tier::Sse2);
int_kernels!("sse2", crate::Tier::Sse2);
byte_table!(crate::Tier::Sse2);
tier_kernels!(sse2);
