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

pub use array::{Array, ArrayBase, ArrayView, ArrayViewMut, Data, DataMut, Iter, MAX_NDIM};
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

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
