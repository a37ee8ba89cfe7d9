//! Variance and standard deviation, whole-array and along an axis, with `ddof`.
//!
//! NumPy's two-pass algorithm, step for step: the mean is `sum / n`, the
//! deviations `x - mean` are squared, summed, and divided by `max(n - ddof, 0)`
//! (so `n <= ddof` gives `inf`, or NaN for no elements). The sums are the crate's
//! own [`sum`](ArrayBase::sum) and [`sum_axis`](ArrayBase::sum_axis), so the
//! accuracy is theirs.

use crate::array::{normalize_axis, Array, ArrayBase, Data};
use crate::error::Result;
use crate::Element;

/// `n - ddof` floored at 0, as NumPy's divisor.
fn divisor<T: Element>(n: usize, ddof: usize) -> T {
    T::from_usize(n.saturating_sub(ddof)).unwrap()
}

/// A 0-D array of `x`: a scalar operand for any element type.
fn scalar<T: Element>(x: T) -> Array<T> {
    Array::from_elem(&[], x)
}

impl<T: Element, S: Data<Elem = T>> ArrayBase<S> {
    /// NumPy's `var(a, ddof=ddof)`: the mean of squared deviations from the mean,
    /// divided by `n - ddof` instead of `n` (`ddof = 1` for the sample variance).
    /// NaN for an empty array, `inf` when `n <= ddof` (NumPy's values; NumPy also
    /// warns).
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(a.var(0), 1.25);
    /// assert_eq!(a.var(1), 5.0 / 3.0);
    /// assert!(ndsimd::Array::<f64>::zeros(&[0]).var(0).is_nan());
    /// ```
    pub fn var(&self, ddof: usize) -> T {
        let n = self.len();
        let mean = scalar(self.sum() / T::from_usize(n).unwrap());
        let d = self.sub(&mean).expect("a 0-D mean broadcasts");
        let sq = d.mul(&d).expect("same shape");
        sq.sum() / divisor::<T>(n, ddof)
    }

    /// NumPy's `std(a, ddof=ddof)`: the square root of [`var`](Self::var).
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
    /// assert_eq!(a.std(0), 2.0);
    /// ```
    pub fn std(&self, ddof: usize) -> T {
        self.var(ddof).sqrt()
    }

    /// NumPy's `var(a, axis, ddof=ddof, keepdims=keepdims)`: the variance of every
    /// lane along `axis` (negative counts from the end), by the rules of
    /// [`var`](Self::var); [`Error::AxisOutOfRange`](crate::Error::AxisOutOfRange)
    /// for a bad axis.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 6.0])?;
    /// assert_eq!(a.var_axis(0, 0, false)?.to_vec(), vec![1.0, 4.0]);
    /// assert_eq!(a.var_axis(-1, 1, true)?.shape(), &[2, 1]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn var_axis(&self, axis: isize, ddof: usize, keepdims: bool) -> Result<Array<T>> {
        let ax = normalize_axis(axis, self.ndim())?;
        let n = self.shape()[ax];
        let mean = self
            .sum_axis(axis, true)?
            .div(&scalar(T::from_usize(n).unwrap()))?;
        let d = self.sub(&mean)?;
        let sq = d.mul(&d)?;
        sq.sum_axis(axis, keepdims)?
            .div(&scalar(divisor::<T>(n, ddof)))
    }

    /// NumPy's `std(a, axis, ddof=ddof, keepdims=keepdims)`: the square root of
    /// [`var_axis`](Self::var_axis).
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 6.0])?;
    /// assert_eq!(a.std_axis(0, 0, false)?.to_vec(), vec![1.0, 2.0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn std_axis(&self, axis: isize, ddof: usize, keepdims: bool) -> Result<Array<T>> {
        Ok(self.var_axis(axis, ddof, keepdims)?.sqrt())
    }
}
