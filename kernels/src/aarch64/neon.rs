//! NEON tier (128-bit vectors: 4 f32 or 2 f64 lanes).
//!
//! NEON has FMA, so `fma` uses it (`dot` rounds each product, as every tier).
//! The reductions with NaN rules and the scans are hand-written:
//! [`crate::generic`] over [`crate::vector::neon`]'s vectors.

use crate::vector::neon::{Bytes, Neon};

autovec_binary!("neon"; add, sub, mul, div, maximum, minimum);
autovec_unary!("neon"; neg, abs, sqrt);
autovec_fma!("neon");
autovec_cmp!("neon"; eq, ne, lt, le, gt, ge);
handwritten_floats!("neon", Neon, dot);
handwritten_bytes!("neon", Bytes);
math_kernels!("neon", crate::vector::neon::Neon);
tier_tables!(crate::Tier::Neon);
int_kernels!("neon", crate::Tier::Neon);
byte_table!(crate::Tier::Neon);
tier_kernels!(neon);
