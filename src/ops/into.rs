//! The `_into` forms of the operations that return a new array: axis reductions,
//! `dot`, `inner`, `outer` and copies. Each writes a caller's `out` of exactly the
//! result's shape ([`Error::WrongOutputShape`] names both shapes otherwise) and,
//! given a contiguous `out`, allocates nothing.
//!
//! `out` is borrowed mutably while the inputs are borrowed shared, so the borrow
//! checker already refuses an `out` that overlaps an input (E0502: borrowed as
//! immutable and as mutable at once), the array itself or a view of its data:
//!
//! ```compile_fail,E0502
//! use ndsimd::Array;
//! let mut a = Array::<f64>::zeros(&[3]);
//! a.copy_into(&mut a).unwrap(); // `a` borrowed both ways: rejected
//! ```
//!
//! ```compile_fail,E0502
//! use ndsimd::{s, Array};
//! let mut a = Array::<f64>::zeros(&[2, 3]);
//! let row = a.slice(s![0, ..]).unwrap();
//! let mut out = a.slice_mut(s![1, ..]).unwrap(); // `a` already lent to `row`: rejected
//! row.copy_into(&mut out).unwrap();
//! ```
//!
//! The same calls with an `out` of its own compile, so the two above fail for the
//! overlap alone (stable rustdoc does not check the error code; nightly does):
//!
//! ```
//! use ndsimd::{s, Array};
//! let a = Array::<f64>::from_vec(vec![1.0, 2.0, 3.0]);
//! let mut b = Array::<f64>::zeros(&[3]);
//! a.copy_into(&mut b).unwrap();
//! assert_eq!(b.to_vec(), vec![1.0, 2.0, 3.0]);
//! let mut c = Array::<f64>::zeros(&[2, 3]);
//! let row = a.slice(s![..]).unwrap();
//! let mut out = c.slice_mut(s![1, ..]).unwrap();
//! row.copy_into(&mut out).unwrap();
//! assert_eq!(c.to_vec(), vec![0.0, 0.0, 0.0, 1.0, 2.0, 3.0]);
//! ```

use super::axis::{arg_axis_into, fold_axis_into, Fold};
use super::operand::check_out;
use crate::array::{normalize_axis, ArrayBase, Data, DataMut};
use crate::dim::{c_strides, Dim};
use crate::error::{Error, Result, ShapeFmt};
use crate::Element;

impl<T: Element, S: Data<Elem = T>> ArrayBase<S> {
    /// [`sum_axis`](Self::sum_axis) into `out`, bit-identical to it.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// let mut out = Array::<f64>::zeros(&[3]);
    /// a.sum_axis_into(0, false, &mut out)?;
    /// assert_eq!(out.to_vec(), vec![5.0, 7.0, 9.0]);
    /// let mut kept = Array::<f64>::zeros(&[2, 1]);
    /// a.sum_axis_into(1, true, &mut kept)?;
    /// assert_eq!(kept.to_vec(), vec![6.0, 15.0]);
    /// let err = a.sum_axis_into(1, false, &mut out).unwrap_err();
    /// assert_eq!(err.to_string(), "output array has shape [3] but the result has shape [2]");
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn sum_axis_into(
        &self,
        axis: isize,
        keepdims: bool,
        out: &mut ArrayBase<impl DataMut<Elem = T>>,
    ) -> Result<()> {
        fold_axis_into(self.view(), axis, keepdims, Fold::Sum, out)
    }

    /// [`prod_axis`](Self::prod_axis) into `out`.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let mut out = Array::<f64>::zeros(&[2]);
    /// a.prod_axis_into(1, false, &mut out)?;
    /// assert_eq!(out.to_vec(), vec![2.0, 12.0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn prod_axis_into(
        &self,
        axis: isize,
        keepdims: bool,
        out: &mut ArrayBase<impl DataMut<Elem = T>>,
    ) -> Result<()> {
        fold_axis_into(self.view(), axis, keepdims, Fold::Prod, out)
    }

    /// [`mean_axis`](Self::mean_axis) into `out`: the sums, then one division each.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 6.0])?;
    /// let mut out = Array::<f64>::zeros(&[1, 2]);
    /// a.mean_axis_into(0, true, &mut out)?;
    /// assert_eq!(out.to_vec(), vec![2.0, 4.0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn mean_axis_into(
        &self,
        axis: isize,
        keepdims: bool,
        out: &mut ArrayBase<impl DataMut<Elem = T>>,
    ) -> Result<()> {
        fold_axis_into(self.view(), axis, keepdims, Fold::Sum, out)?;
        let k = normalize_axis(axis, self.ndim())?;
        let n = T::from_usize(self.shape()[k]).unwrap();
        match out.as_slice_mut() {
            Some(s) => (T::table().div.assign_vs)(s, n),
            None => out.for_each_mut(|x| *x = *x / n),
        }
        Ok(())
    }

    /// [`max_axis`](Self::max_axis) into `out`.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 8.0, 4.0, 5.0])?;
    /// let mut out = Array::<f64>::zeros(&[2]);
    /// a.max_axis_into(0, false, &mut out)?;
    /// assert_eq!(out.to_vec(), vec![4.0, 8.0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn max_axis_into(
        &self,
        axis: isize,
        keepdims: bool,
        out: &mut ArrayBase<impl DataMut<Elem = T>>,
    ) -> Result<()> {
        fold_axis_into(self.view(), axis, keepdims, Fold::Max, out)
    }

    /// [`min_axis`](Self::min_axis) into `out`.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 8.0, 4.0, 5.0])?;
    /// let mut out = Array::<f64>::zeros(&[2]);
    /// a.min_axis_into(1, false, &mut out)?;
    /// assert_eq!(out.to_vec(), vec![1.0, 4.0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn min_axis_into(
        &self,
        axis: isize,
        keepdims: bool,
        out: &mut ArrayBase<impl DataMut<Elem = T>>,
    ) -> Result<()> {
        fold_axis_into(self.view(), axis, keepdims, Fold::Min, out)
    }

    /// [`argmax_axis`](Self::argmax_axis) into an `i64` array of the result's
    /// shape (any layout).
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 3], vec![1.0, 9.0, 3.0, 8.0, 2.0, 8.0])?;
    /// let mut i = Array::<i64>::zeros(&[2]);
    /// a.argmax_axis_into(1, false, &mut i)?;
    /// assert_eq!(i.to_vec(), vec![1, 0]);
    /// assert!(a.argmax_axis_into(0, false, &mut i).is_err()); // shape [3] needed
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn argmax_axis_into(
        &self,
        axis: isize,
        keepdims: bool,
        out: &mut ArrayBase<impl DataMut<Elem = i64>>,
    ) -> Result<()> {
        arg_axis_into(self.view(), axis, keepdims, true, out)
    }

    /// [`argmin_axis`](Self::argmin_axis) into an `i64` array of the result's
    /// shape (any layout).
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 3], vec![4.0, -1.0, -1.0, 0.0, -0.0, 2.0])?;
    /// let mut i = Array::<i64>::zeros(&[3]);
    /// a.argmin_axis_into(0, false, &mut i)?;
    /// assert_eq!(i.to_vec(), vec![1, 0, 0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn argmin_axis_into(
        &self,
        axis: isize,
        keepdims: bool,
        out: &mut ArrayBase<impl DataMut<Elem = i64>>,
    ) -> Result<()> {
        arg_axis_into(self.view(), axis, keepdims, false, out)
    }

    /// [`dot`](Self::dot) into `out` (operands of at most two dimensions).
    ///
    /// ```
    /// use ndsimd::Array;
    /// let m = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let v = Array::from_vec(vec![1.0, 1.0]);
    /// let mut out = Array::<f64>::zeros(&[2]);
    /// m.dot_into(&v, &mut out)?;
    /// assert_eq!(out.to_vec(), vec![3.0, 7.0]);
    /// let mut wrong = Array::<f64>::zeros(&[3]);
    /// assert!(m.dot_into(&v, &mut wrong).unwrap_err().to_string().contains("[3]"));
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn dot_into<S2: Data<Elem = T>>(
        &self,
        rhs: &ArrayBase<S2>,
        out: &mut ArrayBase<impl DataMut<Elem = T>>,
    ) -> Result<()> {
        if self.ndim() > 2 || rhs.ndim() > 2 {
            return Err(Error::InvalidArgument(format!(
                "dot: shapes {} and {}: operands of more than 2 dimensions are not supported (matmul broadcasts batches)",
                ShapeFmt(self.shape()),
                ShapeFmt(rhs.shape())
            )));
        }
        if self.ndim() == 0 || rhs.ndim() == 0 {
            return self.mul_into(rhs, out);
        }
        // `dot` is `matmul` up to two dimensions, with `beta = 0` (out never read).
        self.matmul_into(rhs, T::one(), T::zero(), out)
    }

    /// [`inner`](Self::inner) into `out` (shape `self.shape[..-1] + rhs.shape[..-1]`).
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let mut out = Array::<f64>::zeros(&[2, 2]);
    /// a.inner_into(&a, &mut out)?;
    /// assert_eq!(out.to_vec(), vec![5.0, 11.0, 11.0, 25.0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn inner_into<S2: Data<Elem = T>>(
        &self,
        rhs: &ArrayBase<S2>,
        out: &mut ArrayBase<impl DataMut<Elem = T>>,
    ) -> Result<()> {
        if self.ndim() == 0 || rhs.ndim() == 0 {
            return self.mul_into(rhs, out);
        }
        let (ka, kb) = (self.shape()[self.ndim() - 1], rhs.shape()[rhs.ndim() - 1]);
        if ka != kb {
            return Err(Error::InvalidArgument(format!(
                "inner: shapes {} and {}: last dimensions differ ({ka} != {kb})",
                ShapeFmt(self.shape()),
                ShapeFmt(rhs.shape())
            )));
        }
        let mut shape = Dim::filled(0, 0);
        for &d in self.shape()[..self.ndim() - 1]
            .iter()
            .chain(&rhs.shape()[..rhs.ndim() - 1])
        {
            shape.push(d);
        }
        check_out(&shape, out.shape())?;
        let lead = |x: &[usize]| x[..x.len() - 1].iter().product::<usize>();
        let (la, lb) = (lead(self.shape()), lead(rhs.shape()));
        let a2 = self.reshape(&[la as isize, ka as isize])?;
        let b2 = rhs.reshape(&[lb as isize, kb as isize])?;
        let (a2, b2) = (a2.view(), b2.view());
        if out.is_standard_layout() {
            // `out` read as the `la × lb` matrix it is in memory.
            let offset = out.offset;
            let mut o2 = ArrayBase {
                data: out.data.storage_mut(),
                offset,
                dim: Dim::from_slice(&[la, lb]),
                strides: c_strides(&[la, lb]),
            };
            a2.matmul_into(&b2.t(), T::one(), T::zero(), &mut o2)
        } else {
            let c = a2.matmul(&b2.t())?;
            let c = c.reshape(&shape.iter().map(|&d| d as isize).collect::<Vec<_>>())?;
            c.view().copy_into(out)
        }
    }

    /// [`outer`](Self::outer) into `out` of shape `(self.len(), rhs.len())`.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![1.0, 2.0]);
    /// let b = Array::from_vec(vec![1.0, 10.0, 100.0]);
    /// let mut out = Array::<f64>::zeros(&[2, 3]);
    /// a.outer_into(&b, &mut out)?;
    /// assert_eq!(out.to_vec(), vec![1.0, 10.0, 100.0, 2.0, 20.0, 200.0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn outer_into<S2: Data<Elem = T>>(
        &self,
        rhs: &ArrayBase<S2>,
        out: &mut ArrayBase<impl DataMut<Elem = T>>,
    ) -> Result<()> {
        check_out(&[self.len(), rhs.len()], out.shape())?;
        let (a, b) = (self.ravel(), rhs.ravel());
        let a = a.view();
        a.insert_axis(1)?.mul_into(b.view(), out)
    }
}

impl<S: Data> ArrayBase<S> {
    /// Copies the elements into `out` (NumPy's `np.copyto(out, self)` without
    /// broadcasting), in `out`'s layout: a transposed view of a standard array as
    /// `out` gives a column-major copy. `out` must have this shape.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// // Column-major: the memory of a 3 × 2 array seen through its transpose.
    /// let mut f = Array::<f64>::zeros(&[3, 2]);
    /// a.copy_into(&mut f.view_mut().reversed_axes())?;
    /// assert_eq!(f.as_slice().unwrap(), &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    /// assert!(a.copy_into(&mut Array::<f64>::zeros(&[3, 2])).is_err());
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn copy_into(&self, out: &mut ArrayBase<impl DataMut<Elem = S::Elem>>) -> Result<()> {
        check_out(self.shape(), out.shape())?;
        if let (Some(src), Some(dst)) = (self.as_slice(), out.as_slice_mut()) {
            dst.copy_from_slice(src);
            return Ok(());
        }
        let mut it = self.iter();
        out.for_each_mut(|o| *o = *it.next().expect("one shape, one length"));
        Ok(())
    }
}
