//! AVX-512 micro-kernels (32 zmm registers; fused multiply-add).
//!
//! The same template as every tier, selected only when detection finds AVX-512 F,
//! DQ, BW and VL. First run on 2026-12-01 (an Intel VM with two 512-bit FMA pipes):
//! every GEMM test passes at this tier, and the 16 x 12 f64 tile's blocked form ran
//! at 0.95 of the register-only peak at 2048³ on one thread (docs/perf.md, stop 16).
//! The tile is now 24 x 8 (f64; 48 x 8 f32), measured against 16 x 12 below.

use crate::vector::avx512::{F32x16, F64x8};

// 3 x 8 = 24 accumulators + 3 of A + 1 broadcast of the 32 registers: per k-step
// three loads of A and eight broadcasts of B per 24 multiply-adds (16 x 12 took two
// and twelve), B's packed row one cache line (f64) and its panel line-aligned when
// packed. Measured on an Intel Emerald Rapids VM (2 vCPUs, 48 KiB L1, 2 MiB L2, 300
// MiB L3) against 16 x 12 (with the KC each gets from `block.rs`; f32 32 x 12 at its
// old KC 512), in one process through a throwaway switch of the kernel, paired
// medians of 11 interleaved rounds, three runs each (`forms`): one thread 512³
// 0.95, 0.99, 1.01x, 1024³ 1.05, 1.14, 1.07x, 2048³ 1.03, 1.07, 1.05x, `1024 x
// 256 x 1024` 1.05, 1.05, 1.03x, `16 x 1024 x 4096` 1.14, 1.12, 1.17x, `64 x 1024
// x 4096` 1.08, 1.11, 1.08x, `a . b^T` 512² 1.00, 0.99, 1.01x, f32 1024³ 1.03,
// 1.00, 1.01x, f32 `16 x 1024 x 4096` 1.08, 1.08, 1.14x; two threads 512³ 0.99,
// 0.99, 1.03x, 1024³ 1.03, 1.03, 1.04x, 2048³ 0.94, 1.04, 0.99x, `1024 x 256 x
// 1024` 1.01, 1.05, 1.06x, `16 x 1024 x 4096` 1.13, 1.12, 1.12x, `64 x 1024 x
// 4096` 1.14, 1.05, 1.15x, `a . b^T` 512² 1.00, 0.88, 0.88x (then 0.97, 0.98,
// 0.98x), f32 1024³ 1.13, 1.20, 1.07x, f32 `16 x 1024 x 4096` 1.09, 1.11, 1.10x.
// 32 x 6 (4 x 6) ran level with 24 x 8 in fewer runs (squares 0.89-1.10x against
// 16 x 12; 16 rows 1.01-1.05x with an 8 x 3 edge, 1.22x in one run with 16 x 3); 16 x
// 14 level with or behind 16 x 12 (0.89-1.04x); 16 x 8 ahead of 16 x 12 at 16 rows
// (1.08-1.20x) but behind 24 x 8 from 32 rows on. The edge kernel is 2 x 4 (16 rows:
// `16 x 1024 x 4096` 1.01-1.03x over a 1 x 4 edge). The direct
// path's 6 x 4: 24 accumulators + 4 of B + 1, six broadcasts of A per 24 multiply-adds
// where 8 x 2 took eight per 16. Measured against 8 x 2 (one thread, the blocked form
// as each build's anchor, paired medians of 11 interleaved rounds; `forms N N N 1
// blocked,direct` in benches/peers): f64 32³ 1.80 against 1.76x, 48³ 1.55 / 1.50,
// 64³ 1.58 / 1.44 (112 GFLOP/s), 96³ 1.30 / 1.18, 128³ 1.14 / 1.04, `24 x 64 x 24`
// 1.85 / 1.91; f32 64³ 1.75 / 1.65, 96³ 1.36 / 1.28, 128³ 1.22 / 1.14, 48³ 1.43 /
// 1.47, 32³ 2.12 / 2.24. 8 x 3 and 4 x 4 fell between. With it the direct path
// beats the packed one far past the AVX2 tier's 64³ (`up to 256`, against the
// default form, paired medians as above): f64 squares one thread 80-256³ 1.28, 1.28,
// 1.11, 1.14, 1.05, 1.03x (320³ 0.97, 512³ 0.81), two threads 96-256³ 1.40, 1.28,
// 1.12, 1.07x; f32 160-256³ 1.23, 1.12, 1.09x (one thread), 1.19, 1.13x (two); not
// square, with C at most 256 wide: `256 x 64 x 256` 1.05x, `128 x 1024 x 128` 1.14x,
// `96 x 4096 x 96` 1.17x, `64 x 256 x 256` 1.23x, but wider C loses (`1024 x 128 x
// 1024` 0.77x, `512 x 64 x 512` 0.90x), as does `256 x 512 x 256` (256 MiB of
// f64 multiply-adds, 0.98x).
gemm_kernel!(F64_PLAIN, "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma", f64, F64x8, 3 x 8, edge 2 x 4, direct 6 x 4 up to 256);
pub(crate) const F64: crate::gemm::table::Kernel<f64> = crate::gemm::table::Kernel {
    gather8: Some(crate::gemm::gather::x86::f64x8),
    ..F64_PLAIN
};
gemm_kernel!(F32_PLAIN, "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma", f32, F32x16, 3 x 8, edge 2 x 4, direct 6 x 4 up to 256);
pub(crate) const F32: crate::gemm::table::Kernel<f32> = crate::gemm::table::Kernel {
    gather8: Some(crate::gemm::gather::x86::f32x8),
    ..F32_PLAIN
};
