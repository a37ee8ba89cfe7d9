//! AVX-512 tier (512-bit vectors: 16 f32 or 8 f64 lanes), F + DQ + BW + VL.

autovec_tier!(crate::Tier::Avx512, "avx512f,avx512dq,avx512bw,avx512vl");
