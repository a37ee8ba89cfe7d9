//! NEON tier (128-bit vectors: 4 f32 or 2 f64 lanes).

autovec_tier!(crate::Tier::Neon, "neon");
