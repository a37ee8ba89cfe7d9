//! ndsimd: N-dimensional arrays whose hot loops are per-architecture SIMD kernels.
pub use ndsimd_kernels as kernels;

pub mod npy;
