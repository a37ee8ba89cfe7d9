//! SSE2 tier (128-bit vectors: 4 f32 or 2 f64 lanes).
//!
//! SSE2 is already the x86_64 baseline, so today this tier compiles like the scalar
//! one; it exists so hand-written SSE2 kernels have a home and so CI can cap to it.

autovec_tier!(crate::Tier::Sse2, "sse2");
