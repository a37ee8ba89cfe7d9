//! Integer division and remainder with NumPy's rules (`//` and `%`): scalar loops
//! over the engine's runs, which LLVM vectorises where the hardware divides.

use super::logic::zip_with;
use super::operand::IntoOperand;
use crate::array::{Array, ArrayBase, Data};
use crate::error::Result;
use crate::IntElement;

impl<T: IntElement, S: Data<Elem = T>> ArrayBase<S> {
    /// NumPy's `self // rhs` (`np.floor_divide`) with broadcasting: the quotient
    /// rounded toward negative infinity (`-7 // 2` is `-4`).
    ///
    /// Division by zero gives `0`, as NumPy's result (NumPy also warns; this cannot,
    /// so check the divisor where a zero is an error). `MIN // -1` overflows and
    /// gives `MIN`, as NumPy's. Errors with
    /// [`Error::ShapeMismatch`](crate::Error::ShapeMismatch) when the shapes do not
    /// broadcast.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![7i64, -7, 7, -7, 5, i64::MIN]);
    /// let b = Array::from_vec(vec![2i64, 2, -2, -2, 0, -1]);
    /// assert_eq!(a.floor_div(&b).unwrap().to_vec(), vec![3, -4, -4, 3, 0, i64::MIN]);
    /// ```
    pub fn floor_div<'b>(&self, rhs: impl IntoOperand<'b, T>) -> Result<Array<T>> {
        zip_with("floor_div", self, &rhs.into_operand(), T::floor_div_one)
    }

    /// NumPy's `self % rhs` (`np.remainder`) with broadcasting: the remainder of
    /// [`floor_div`](Self::floor_div), which has the sign of the divisor
    /// (`-7 % 2` is `1`, `7 % -2` is `-1`), so `(a // b) * b + a % b == a`.
    ///
    /// A zero divisor gives `0`, as NumPy's result (NumPy also warns), and
    /// `MIN % -1` is `0`.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![7i32, -7, 7, -7, 5, i32::MIN]);
    /// let b = Array::from_vec(vec![2i32, 2, -2, -2, 0, -1]);
    /// assert_eq!(a.rem(&b).unwrap().to_vec(), vec![1, 1, -1, -1, 0, 0]);
    /// ```
    pub fn rem<'b>(&self, rhs: impl IntoOperand<'b, T>) -> Result<Array<T>> {
        zip_with("rem", self, &rhs.into_operand(), T::rem_one)
    }
}
