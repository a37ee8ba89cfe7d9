//! x86_64 tiers. SSE2 is the x86_64 baseline; AVX2 comes with FMA; AVX-512 means
//! F, DQ, BW and VL together (the set every AVX-512 CPU since Skylake-SP has).
//!
//! Each tier's tables are handed out by [`crate::KernelElement::table_for`] and
//! [`crate::byte_table_for`] only when [`crate::detected_tier`] reaches that tier.

pub mod avx2;
pub mod avx512;
pub mod sse2;
