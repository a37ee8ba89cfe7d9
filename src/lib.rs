//! ndsimd: N-dimensional arrays whose hot loops are per-architecture SIMD kernels.
//!
//! ```
//! use ndsimd::{s, Array};
//! let a = Array::from_shape_vec(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
//! let row = Array::from_vec(vec![10.0, 20.0, 30.0]);
//! let b = a.add(&row)?;                        // NumPy broadcasting
//! assert_eq!(b.to_vec(), vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
//! let c = &b.slice(s![.., ..;-1])? * 2.0;      // views share data; operators too
//! assert_eq!(c.get(&[0, 0]), Some(&66.0));
//! # Ok::<(), ndsimd::Error>(())
//! ```
#![warn(missing_docs)]
#![forbid(unsafe_code)]

/// The SIMD tiers and the machine facts the kernels are chosen by.
///
/// The kernels crate (`ndsimd-kernels`) has more public items (its tables, the
/// pool's drivers, the GEMM's entry points) for the library above it; a user of
/// arrays needs only these. `NDSIMD_TIER` caps the tier for the whole process.
///
/// ```
/// use ndsimd::kernels::{active_tier, available_tiers};
/// assert!(available_tiers().contains(&active_tier()));
/// ```
pub mod kernels {
    pub use ndsimd_kernels::{
        active_tier, available_tiers, cache_info, detected_tier, CacheInfo, Tier,
    };
}

mod array;
mod dim;
mod element;
mod error;
mod fmt;
mod info;
mod interop;
pub mod npy;
mod ops;
pub mod scan;
#[cfg(feature = "serde")]
mod serde_impl;
mod shape;
mod slice;
mod views;
mod workspace;

pub use array::{Array, ArrayBase, ArrayView, ArrayViewMut, Data, DataMut, Iter, Owned, MAX_NDIM};
#[doc(hidden)]
pub use element::{CastValue, NumOps};
pub use element::{DType, Element, IntElement, Numeric, Reduce};
pub use error::{Error, Result};
pub use info::{info, Info};
pub use ndsimd_kernels::pool::{num_threads, set_num_threads, with_threads};
pub use ops::closures::IterMut;
pub use ops::linalg::matmul_scratch;
pub use ops::manip::{concatenate, hstack, stack, vstack};
pub use ops::select::where_;
pub use ops::{IntoOperand, Operand};
pub use shape::CowArray;
pub use slice::{NewAxis, SliceArg};
pub use views::Lanes;
pub use workspace::Workspace;

/// Frees the large buffers (4 MiB and up) that dropped arrays left for the next
/// results of their size, and returns how many bytes that was. They are kept so a
/// loop of allocating ops reuses its pages instead of faulting in fresh ones each
/// pass; at most [`set_buffer_cache_limit`]'s bound is held (by default a
/// sixteenth of the machine's memory, at most 256 MiB; `NDSIMD_BUFFER_CACHE_MB` in
/// the environment sets it in MiB, 0 turns the cache off).
///
/// ```
/// let big = ndsimd::Array::<f64>::ones(&[1 << 20]).exp(); // 8 MiB
/// drop(big);
/// ndsimd::free_cached_buffers();
/// assert_eq!(ndsimd::free_cached_buffers(), 0);
/// ```
pub fn free_cached_buffers() -> usize {
    ndsimd_kernels::buffers::release()
}

/// Sets how many bytes of dropped arrays' large buffers the library may keep for
/// reuse (see [`free_cached_buffers`]); 0 turns the cache off and frees what it
/// holds, a smaller bound frees the oldest beyond it.
///
/// ```
/// ndsimd::set_buffer_cache_limit(64 << 20);
/// ```
pub fn set_buffer_cache_limit(bytes: usize) {
    ndsimd_kernels::buffers::set_limit(bytes)
}

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
