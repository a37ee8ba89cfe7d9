//! AVX-512 tier (512-bit vectors: 16 f32 or 8 f64 lanes), F + DQ + BW + VL.
//!
//! No machine this crate is developed on has AVX-512 (and no emulator here has it),
//! so nothing is hand-written for this tier: code that cannot be run is not written.
//!
//! Its elementwise kernels, comparisons and `fma` are the oracles compiled with the
//! AVX-512 features. The reductions and scans, whose oracles LLVM vectorises poorly
//! or not at all (`sum`, `prod`, `dot`, `max`, `min`, `argmax`, `argmin`, the byte
//! scans), are the AVX2 tier's hand-written kernels themselves: the same functions
//! that are tested and measured at the AVX2 tier (detection admits this tier only
//! with AVX2 and FMA present), and bit-identical by construction. Wider versions wait
//! for a machine that can run them.

autovec_binary!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; add, sub, mul, div, maximum, minimum);
autovec_unary!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; neg, abs, sqrt);
autovec_cmp!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; eq, ne, lt, le, gt, ge);
autovec_fma!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma");
pub use super::avx2::{
    argmax, argmin, count_byte, dot, first_nonzero_word, max, min, nth_byte, prod, sum,
};
tier_tables!(crate::Tier::Avx512);
byte_table!(crate::Tier::Avx512);
