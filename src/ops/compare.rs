//! Elementwise comparisons with NumPy broadcasting, producing `bool` arrays.

use super::arith::zip_exec;
use super::operand::{check_out, result_shape, IntoOperand, Operand, Src};
use crate::array::{Array, ArrayBase, Data, DataMut};
use crate::error::Result;
use crate::Numeric;
use ndsimd_kernels::CmpOp;

/// Runs one comparison over a run. A scalar on the left is the mirrored
/// comparison with the scalar on the right (`s < b` is `b > s`).
#[inline]
fn call_cmp<T: Copy>(
    op: &CmpOp<T>,
    mirror: &CmpOp<T>,
    a: Src<'_, T>,
    b: Src<'_, T>,
    out: &mut [bool],
) {
    match (a, b) {
        (Src::Slice(a), Src::Slice(b)) => (op.vv)(a, b, out),
        (Src::Slice(a), Src::Value(s)) => (op.vs)(a, s, out),
        (Src::Value(s), Src::Slice(b)) => (mirror.vs)(b, s, out),
        (Src::Value(x), Src::Value(y)) => {
            let mut r = [false];
            (op.vs)(&[x], y, &mut r);
            out.fill(r[0]);
        }
    }
}

macro_rules! comparisons {
    ($( $name:ident, $into:ident, $field:ident, $mirror:ident, $sym:literal; )*) => {
        impl<T: Numeric, S: Data<Elem = T>> ArrayBase<S> {
            $(
            #[doc = concat!("`self ", $sym, " rhs` elementwise with NumPy broadcasting, as a `bool` array (NumPy's `np.", stringify!($name), "`).")]
            ///
            /// Comparisons with NaN are false, except `not_equal`, which is true.
            /// Errors with [`Error::ShapeMismatch`](crate::Error::ShapeMismatch)
            /// when the shapes do not broadcast.
            ///
            /// ```
            /// use ndsimd::Array;
            /// let a = Array::from_vec(vec![1.0, f64::NAN, 3.0]);
            #[doc = concat!("let r = a.", stringify!($name), "(2.0).unwrap();")]
            /// assert_eq!(r.shape(), &[3]);
            #[doc = concat!("assert!(a.", stringify!($name), "(&Array::<f64>::zeros(&[2])).is_err());")]
            /// ```
            pub fn $name<'b>(&self, rhs: impl IntoOperand<'b, T>) -> Result<Array<bool>> {
                let rhs = rhs.into_operand();
                let shape = result_shape(stringify!($name), self.shape(), &rhs)?;
                let mut out = Array::<bool>::try_from_elem(&shape, false)?;
                let t = <T as Numeric>::num_ops();
                zip_exec(move |a, b, o| call_cmp(t.$field, t.$mirror, a, b, o), &Operand::Array(self.view()), &rhs, &mut out);
                Ok(out)
            }

            #[doc = concat!("`self ", $sym, " rhs` elementwise with NumPy broadcasting, into a caller's `bool` array, which must have the broadcast shape.")]
            ///
            /// ```
            /// use ndsimd::Array;
            /// let a = Array::from_vec(vec![1.0, 2.0]);
            /// let mut out = Array::from_vec(vec![false, false]);
            #[doc = concat!("a.", stringify!($into), "(1.5, &mut out).unwrap();")]
            /// ```
            pub fn $into<'b>(
                &self,
                rhs: impl IntoOperand<'b, T>,
                out: &mut ArrayBase<impl DataMut<Elem = bool>>,
            ) -> Result<()> {
                let rhs = rhs.into_operand();
                let shape = result_shape(stringify!($name), self.shape(), &rhs)?;
                check_out(&shape, out.shape())?;
                let t = <T as Numeric>::num_ops();
                zip_exec(move |a, b, o| call_cmp(t.$field, t.$mirror, a, b, o), &Operand::Array(self.view()), &rhs, out);
                Ok(())
            }
            )*
        }
    };
}

comparisons! {
    equal, equal_into, eq, eq, "==";
    not_equal, not_equal_into, ne, ne, "!=";
    less, less_into, lt, gt, "<";
    less_equal, less_equal_into, le, ge, "<=";
    greater, greater_into, gt, lt, ">";
    greater_equal, greater_equal_into, ge, le, ">=";
}
