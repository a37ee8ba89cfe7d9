//! The element types: `f32` and `f64`.

use ndsimd_kernels::gemm::{BatchMut, BatchRef, MatMut, MatRef};
use ndsimd_kernels::KernelElement;
use num_traits::{Float, FromPrimitive};
use std::fmt::{Debug, Display, LowerExp};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for bool {}
}

/// Any type an array can hold: `f32`, `f64` and `bool` (comparison results).
/// Sealed. Layout operations (views, slicing, reshape, iteration, printing) work
/// for every `DType`; arithmetic needs [`Element`].
///
/// ```
/// use ndsimd::{Array, DType};
/// fn first<T: DType>(a: &Array<T>) -> Option<T> {
///     a.first().copied()
/// }
/// assert_eq!(first(&Array::from_vec(vec![true, false])), Some(true));
/// ```
pub trait DType:
    Copy
    + Default
    + PartialEq
    + Debug
    + Send
    + Sync
    + 'static
    + sealed::Sealed
    // No padding bytes: a workspace slot filled with it is initialized throughout.
    + ndsimd_kernels::arena::Plain
{
    /// NumPy's name for the type (`"float64"`, `"bool"`).
    const DTYPE: &'static str;
    #[doc(hidden)]
    /// NumPy-style strings for `vals`, all padded to one width.
    fn format_all(vals: &[Self]) -> Vec<String>;
    #[doc(hidden)]
    /// True for the all-zero-bits value (`+0.0`, `false`; not `-0.0`).
    fn is_zero_bits(self) -> bool;
    #[doc(hidden)]
    /// How a 0-D array prints with `Display` (NumPy's `str`).
    fn format_scalar(self) -> String;
}

impl DType for bool {
    const DTYPE: &'static str = "bool";
    fn format_all(vals: &[bool]) -> Vec<String> {
        // NumPy pads True to False's width: `array([ True, False])`.
        vals.iter()
            .map(|&v| format!("{:>5}", if v { "True" } else { "False" }))
            .collect()
    }
    fn is_zero_bits(self) -> bool {
        !self
    }
    fn format_scalar(self) -> String {
        if self { "True" } else { "False" }.to_string()
    }
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
    DType
    + Float
    + FromPrimitive
    + KernelElement
    // Any bit pattern is a value: a workspace may hand out recycled memory unwritten.
    + ndsimd_kernels::arena::AnyBits
    + Debug
    + Display
    + LowerExp
    + Default
    + Send
    + Sync
    + 'static
    + sealed::Sealed
{
    #[doc(hidden)]
    /// [`ndsimd_kernels::gemm::gemm`] for this type (a method here, not a
    /// supertrait: the kernels' element trait shares method names with `Float`).
    fn gemm(
        alpha: Self,
        a: MatRef<'_, Self>,
        b: MatRef<'_, Self>,
        beta: Self,
        c: MatMut<'_, Self>,
        threads: usize,
    );
    #[doc(hidden)]
    /// [`ndsimd_kernels::gemm::gemv`] for this type.
    fn gemv(
        alpha: Self,
        a: MatRef<'_, Self>,
        x: MatRef<'_, Self>,
        beta: Self,
        y: MatMut<'_, Self>,
        threads: usize,
    );
    #[doc(hidden)]
    /// [`ndsimd_kernels::gemm::gemm_batch`] for this type.
    fn gemm_batch(
        alpha: Self,
        a: BatchRef<'_, Self>,
        b: BatchRef<'_, Self>,
        beta: Self,
        c: BatchMut<'_, Self>,
        threads: usize,
    );
}

macro_rules! float_dtype {
    ($t:ty, $name:literal) => {
        impl DType for $t {
            const DTYPE: &'static str = $name;
            fn format_all(vals: &[$t]) -> Vec<String> {
                crate::fmt::format_floats(vals)
            }
            fn is_zero_bits(self) -> bool {
                self.to_bits() == 0
            }
            fn format_scalar(self) -> String {
                // NumPy's str of a 0-D float array is Python's float str ("5.0").
                format!("{self:?}")
            }
        }
        impl Element for $t {
            fn gemm(
                alpha: $t,
                a: MatRef<'_, $t>,
                b: MatRef<'_, $t>,
                beta: $t,
                c: MatMut<'_, $t>,
                threads: usize,
            ) {
                ndsimd_kernels::gemm::gemm(alpha, a, b, beta, c, threads)
            }
            fn gemv(
                alpha: $t,
                a: MatRef<'_, $t>,
                x: MatRef<'_, $t>,
                beta: $t,
                y: MatMut<'_, $t>,
                threads: usize,
            ) {
                ndsimd_kernels::gemm::gemv(alpha, a, x, beta, y, threads)
            }
            fn gemm_batch(
                alpha: $t,
                a: BatchRef<'_, $t>,
                b: BatchRef<'_, $t>,
                beta: $t,
                c: BatchMut<'_, $t>,
                threads: usize,
            ) {
                ndsimd_kernels::gemm::gemm_batch(alpha, a, b, beta, c, threads)
            }
        }
    };
}
float_dtype!(f32, "float32");
float_dtype!(f64, "float64");
