//! Elementwise arithmetic with NumPy broadcasting: add, sub, mul, div, neg, abs.
//!
//! Each operation comes as an allocating method returning `Result`, an `_into`
//! method writing a caller's array, a `try_*_assign` in-place method, and the
//! operators (`&a + &b`, `&a * 2.0`, `a += &b`) which panic with the message the
//! `Result` forms return.

mod exec;
mod operators;

use super::operand::{check_out, result_shape, same_shape, IntoOperand, Operand};
use super::split::{pieces, split};
use crate::array::{Array, ArrayBase, Data, DataMut};
use crate::error::Result;
use crate::{Element, Numeric};
use exec::{alloc_contiguous, binary_alloc, binary_assign, fast_binary};
pub(crate) use exec::{binary_exec, unary_exec, vv_into, zip_exec};
use ndsimd_kernels::{par, KernelElement, Table};

fn table<T: Element>() -> &'static Table<T> {
    <T as KernelElement>::table()
}

/// The kernel of one binary operation: `float` ones from the float table, `num`
/// ones (those every [`Numeric`] type has) through [`Numeric::num_ops`].
macro_rules! op {
    (float, $T:ty, $f:ident) => {
        &<$T as ndsimd_kernels::KernelElement>::table().$f
    };
    (num, $T:ty, $f:ident) => {
        <$T as Numeric>::num_ops().$f
    };
}
pub(crate) use op;

macro_rules! binary_methods {
    ($kind:ident $Bound:ident; $( $name:ident, $into:ident, $assign:ident, $field:ident, $sym:literal, $numpy:literal; )*) => {
        impl<T: $Bound, S: Data<Elem = T>> ArrayBase<S> {
            $(
            #[doc = concat!($sym, " elementwise with NumPy broadcasting, in a new array (NumPy's `np.", $numpy, "`).")]
            ///
            /// `rhs` is an array, a view or a scalar. Errors with
            /// [`Error::ShapeMismatch`](crate::Error::ShapeMismatch) when the shapes
            /// do not broadcast.
            ///
            /// ```
            /// use ndsimd::Array;
            /// let m = Array::from_shape_vec(&[2, 2], vec![8.0, 6.0, 4.0, 2.0]).unwrap();
            /// let row = Array::from_vec(vec![2.0, 1.0]);
            #[doc = concat!("let r = m.", stringify!($name), "(&row).unwrap();")]
            /// assert_eq!(r.shape(), &[2, 2]);
            #[doc = concat!("assert!(m.", stringify!($name), "(&Array::<f64>::zeros(&[3])).is_err());")]
            /// ```
            pub fn $name<'b>(&self, rhs: impl IntoOperand<'b, T>) -> Result<Array<T>> {
                let (op, rhs) = (op!($kind, T, $field), rhs.into_operand());
                // A contiguous `self` goes to the kernel without a view of it built.
                if let Some(out) = self.as_slice().and_then(|xs| alloc_contiguous(op, self.shape(), xs, &rhs)) {
                    return Ok(out);
                }
                binary_alloc(op, stringify!($name), &Operand::Array(self.view()), &rhs)
            }

            #[doc = concat!($sym, " elementwise with NumPy broadcasting, into a caller's array `out` (NumPy's `np.", $numpy, "(a, b, out=out)`).")]
            ///
            /// `out` may have any layout (a strided view works) but must have
            /// exactly the broadcast shape; otherwise
            /// [`Error::WrongOutputShape`](crate::Error::WrongOutputShape).
            ///
            /// ```
            /// use ndsimd::Array;
            /// let a = Array::from_vec(vec![1.0, 2.0, 3.0]);
            /// let mut out = Array::<f64>::zeros(&[3]);
            #[doc = concat!("a.", stringify!($into), "(&a, &mut out).unwrap();")]
            /// let mut wrong = Array::<f64>::zeros(&[4]);
            #[doc = concat!("assert!(a.", stringify!($into), "(&a, &mut wrong).is_err());")]
            /// ```
            pub fn $into<'b>(
                &self,
                rhs: impl IntoOperand<'b, T>,
                out: &mut ArrayBase<impl DataMut<Elem = T>>,
            ) -> Result<()> {
                // Contiguous operands of one shape: no view of `rhs` built.
                if let (Some(x), Some((shape, y))) = (self.as_slice(), rhs.contiguous()) {
                    if same_shape(shape, self.shape()) && same_shape(out.shape(), shape) {
                        if let Some(o) = out.as_slice_mut() {
                            vv_into(op!($kind, T, $field), x, y, o);
                            return Ok(());
                        }
                    }
                }
                let rhs = rhs.into_operand();
                if fast_binary(op!($kind, T, $field), self, &rhs, out) {
                    return Ok(());
                }
                let shape = result_shape(stringify!($name), self.shape(), &rhs)?;
                check_out(&shape, out.shape())?;
                binary_exec(op!($kind, T, $field), &Operand::Array(self.view()), &rhs, out);
                Ok(())
            }
            )*
        }

        impl<T: $Bound, S: DataMut<Elem = T>> ArrayBase<S> {
            $(
            #[doc = concat!("In place, `self` becomes ", $sym, ", `rhs` broadcast to `self`'s shape.")]
            ///
            /// Errors when `rhs` does not broadcast to exactly this shape (the
            /// result may not grow the array, as NumPy's in-place operators).
            ///
            /// ```
            /// use ndsimd::Array;
            /// let mut a = Array::<f64>::ones(&[2, 2]);
            #[doc = concat!("a.", stringify!($assign), "(&Array::from_vec(vec![1.0, 2.0])).unwrap();")]
            #[doc = concat!("assert!(a.", stringify!($assign), "(&Array::<f64>::ones(&[3, 2, 2])).is_err());")]
            /// ```
            pub fn $assign<'b>(&mut self, rhs: impl IntoOperand<'b, T>) -> Result<()> {
                let op = op!($kind, T, $field);
                binary_assign(op, stringify!($name), stringify!($assign), self, &rhs.into_operand())
            }
            )*
        }
    };
}

binary_methods! { num Numeric;
    add, add_into, try_add_assign, add, "`self + rhs` (integers wrap on overflow, as NumPy's)", "add";
    sub, sub_into, try_sub_assign, sub, "`self - rhs` (integers wrap)", "subtract";
    mul, mul_into, try_mul_assign, mul, "`self * rhs` (integers wrap)", "multiply";
}

binary_methods! { float Element;
    div, div_into, try_div_assign, div, "`self / rhs`", "divide";
    maximum, maximum_into, try_maximum_assign, maximum,
        "NumPy's `maximum(self, rhs)` (a NaN in either propagates; of equal values, `-0` and `+0` included, the result is `rhs`'s)", "maximum";
    minimum, minimum_into, try_minimum_assign, minimum,
        "NumPy's `minimum(self, rhs)` (a NaN in either propagates; of equal values the result is `rhs`'s)", "minimum";
}

macro_rules! unary_methods {
    ($( $name:ident, $into:ident, $assign:ident, $what:literal; )*) => {
        impl<T: Element, S: Data<Elem = T>> ArrayBase<S> {
            $(
            #[doc = concat!($what, " of every element, in a new array.")]
            ///
            /// ```
            /// let a = ndsimd::Array::from_vec(vec![-1.0, 2.0, -0.0]);
            #[doc = concat!("let r = a.", stringify!($name), "();")]
            /// assert_eq!(r.shape(), &[3]);
            /// ```
            pub fn $name(&self) -> Array<T> {
                let op = &table::<T>().$name;
                if let Some(x) = self.as_slice() {
                    let v = par::collect_map(op.map_uninit, x, pieces(x.len()), 8);
                    return Array::from_aligned(self.shape(), v);
                }
                let mut out = Array::zeros(self.shape());
                unary_exec(op, &self.view(), &mut out);
                out
            }

            #[doc = concat!($what, " of every element, into `out` (which must have this shape).")]
            ///
            /// ```
            /// let a = ndsimd::Array::from_vec(vec![-1.0, 2.0]);
            /// let mut out = ndsimd::Array::<f64>::zeros(&[2]);
            #[doc = concat!("a.", stringify!($into), "(&mut out).unwrap();")]
            /// ```
            pub fn $into(&self, out: &mut ArrayBase<impl DataMut<Elem = T>>) -> Result<()> {
                check_out(self.shape(), out.shape())?;
                unary_exec(&table::<T>().$name, &self.view(), out);
                Ok(())
            }
            )*
        }

        impl<T: Element, S: DataMut<Elem = T>> ArrayBase<S> {
            $(
            #[doc = concat!($what, " of every element, in place.")]
            ///
            /// ```
            /// let mut a = ndsimd::Array::from_vec(vec![-1.0, 2.0]);
            #[doc = concat!("a.", stringify!($assign), "();")]
            /// ```
            pub fn $assign(&mut self) {
                let op = &table::<T>().$name;
                if let Some(s) = self.as_slice_mut() {
                    let assign = op.assign;
                    return split(s, move |_, piece| assign(piece));
                }
                let src = self.to_owned();
                unary_exec(op, &src.view(), self);
            }
            )*
        }
    };
}

unary_methods! {
    neg, neg_into, neg_assign, "Negation (flips the sign bit, so `-0.0` and NaN too)";
    abs, abs_into, abs_assign, "Absolute value (clears the sign bit, so `abs(-NaN)` is `NaN`)";
    sqrt, sqrt_into, sqrt_assign, "Square root (correctly rounded; NaN for negative inputs)";
}

binary_methods! { float Element;
    pow, pow_into, try_pow_assign, pow,
        "`self` raised to the power `rhs` (within 1 ULP; C99's and NumPy's edges: `pow(x, ±0) = 1` and `pow(1, y) = 1` even for NaN, a negative base with a non-integer exponent gives NaN, with an odd integer one keeps its sign; `powf` takes a scalar exponent)", "power";
}
