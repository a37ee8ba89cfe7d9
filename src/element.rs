//! The element types: `f32` and `f64`.

use ndsimd_kernels::KernelElement;
use num_traits::{Float, FromPrimitive};
use std::fmt::{Debug, Display, LowerExp};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// An array element type. Sealed: implemented for `f32` and `f64`, each with its own
/// kernel table.
///
/// ```
/// fn total<T: ndsimd::Element>(xs: &[T]) -> T {
///     xs.iter().fold(T::zero(), |a, &b| a + b)
/// }
/// assert_eq!(total(&[1.0f32, 2.0]), 3.0);
/// ```
pub trait Element:
    Float
    + FromPrimitive
    + KernelElement
    + Debug
    + Display
    + LowerExp
    + Default
    + Send
    + Sync
    + 'static
    + sealed::Sealed
{
    /// NumPy's name for the type (`"float64"`).
    const DTYPE: &'static str;
}

impl Element for f32 {
    const DTYPE: &'static str = "float32";
}

impl Element for f64 {
    const DTYPE: &'static str = "float64";
}
