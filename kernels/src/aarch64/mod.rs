//! aarch64 tiers. Advanced SIMD (NEON) is mandatory on aarch64 Linux, but it is
//! still detected so the tier logic is the same on every architecture.

pub mod neon;
