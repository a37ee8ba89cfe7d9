//! Views over borrowed slices, closeness tests (`isclose`, `allclose`, the
//! `approx` traits), and, with the `ndarray` feature, zero-copy conversions to and
//! from `ndarray`'s arrays and views.

use crate::array::{check_ndim, Array, ArrayBase, ArrayView, ArrayViewMut, Data};
use crate::dim::{c_strides, size_of_shape, Dim, Strides};
use crate::error::{Error, Result, ShapeFmt};
use crate::ops::closures::broadcast_view;
use crate::{DType, Element};

/// The lowest and highest storage offsets the layout reaches, or `None` when it
/// has no elements; an error when `strides` does not fit `shape` or the offsets
/// leave `0..len`.
fn check_layout(
    len: usize,
    shape: &[usize],
    strides: &[isize],
    offset: usize,
) -> Result<Option<(usize, usize)>> {
    check_ndim(shape.len())?;
    if strides.len() != shape.len() {
        return Err(Error::InvalidArgument(format!(
            "strides {} do not match shape {}: {} strides for {} axes",
            ShapeFmt(strides),
            ShapeFmt(shape),
            strides.len(),
            shape.len()
        )));
    }
    if size_of_shape(shape).is_none() {
        return Err(Error::InvalidArgument(format!(
            "shape {} has more than usize::MAX elements",
            ShapeFmt(shape)
        )));
    }
    if shape.contains(&0) {
        return Ok(None);
    }
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&d, &s) in shape.iter().zip(strides) {
        let reach = (d as i128 - 1) * s as i128;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    if lo < 0 || hi >= len as i128 {
        return Err(Error::InvalidArgument(format!(
            "shape {} with strides {} from offset {offset} reaches elements {lo}..={hi}, outside a slice of length {len}",
            ShapeFmt(shape),
            ShapeFmt(strides)
        )));
    }
    Ok(Some((lo as usize, hi as usize)))
}

impl<'a, T: DType> ArrayView<'a, T> {
    /// A view of `data` as an array of `shape` in row-major order, without
    /// copying. Errors with [`Error::LengthMismatch`] when `data.len()` is not the
    /// product of `shape`.
    ///
    /// ```
    /// use ndsimd::ArrayView;
    /// let data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    /// let v = ArrayView::from_slice(&data, &[2, 3]).unwrap();
    /// assert_eq!(v.sum_axis(1, false).unwrap().to_vec(), vec![6.0, 15.0]);
    /// assert!(std::ptr::eq(v.first().unwrap(), &data[0]));
    /// assert!(ArrayView::from_slice(&data, &[4]).is_err());
    /// ```
    pub fn from_slice(data: &'a [T], shape: &[usize]) -> Result<Self> {
        check_ndim(shape.len())?;
        if size_of_shape(shape) != Some(data.len()) {
            return Err(Error::LengthMismatch {
                shape: shape.to_vec(),
                len: data.len(),
            });
        }
        Ok(ArrayBase {
            data,
            offset: 0,
            dim: Dim::from_slice(shape),
            strides: c_strides(shape),
        })
    }

    /// A view of `data` with any layout: the element at index `i` is
    /// `data[offset + Σ i[k]·strides[k]]` (strides in elements, negative and zero
    /// allowed; NumPy's `as_strided`, checked). Errors, naming the layout, when a
    /// reachable element falls outside `data` or `strides` has the wrong length.
    ///
    /// ```
    /// use ndsimd::ArrayView;
    /// let data = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
    /// // Every other element, backwards from the last.
    /// let v = ArrayView::from_slice_strided(&data, &[3], &[-2], 5).unwrap();
    /// assert_eq!(v.to_vec(), vec![5.0, 3.0, 1.0]);
    /// let e = ArrayView::from_slice_strided(&data, &[2, 3], &[3, 2], 0).unwrap_err();
    /// assert_eq!(
    ///     e.to_string(),
    ///     "shape [2, 3] with strides [3, 2] from offset 0 reaches elements 0..=7, outside a slice of length 6"
    /// );
    /// ```
    pub fn from_slice_strided(
        data: &'a [T],
        shape: &[usize],
        strides: &[isize],
        offset: usize,
    ) -> Result<Self> {
        check_layout(data.len(), shape, strides, offset)?;
        Ok(ArrayBase {
            data,
            offset,
            dim: Dim::from_slice(shape),
            strides: Strides::from_slice(strides),
        })
    }
}

impl<'a, T: DType> ArrayViewMut<'a, T> {
    /// A mutable view of `data` as an array of `shape` in row-major order, without
    /// copying. Errors with [`Error::LengthMismatch`] when `data.len()` is not the
    /// product of `shape`.
    ///
    /// ```
    /// use ndsimd::ArrayViewMut;
    /// let mut data = [1.0, 2.0, 3.0, 4.0];
    /// let mut v = ArrayViewMut::from_slice_mut(&mut data, &[2, 2]).unwrap();
    /// v.mapv_inplace(|x| x * 2.0);
    /// assert_eq!(data, [2.0, 4.0, 6.0, 8.0]);
    /// ```
    pub fn from_slice_mut(data: &'a mut [T], shape: &[usize]) -> Result<Self> {
        check_ndim(shape.len())?;
        if size_of_shape(shape) != Some(data.len()) {
            return Err(Error::LengthMismatch {
                shape: shape.to_vec(),
                len: data.len(),
            });
        }
        Ok(ArrayBase {
            data,
            offset: 0,
            dim: Dim::from_slice(shape),
            strides: c_strides(shape),
        })
    }
}

/// NumPy's closeness test on one pair: `|a - b| <= atol + rtol·|b|` for finite
/// `b`, or `a == b` (so equal infinities are close); NaNs only with `equal_nan`.
#[inline]
fn close<T: Element>(a: T, b: T, rtol: T, atol: T, equal_nan: bool) -> bool {
    if a.is_nan() || b.is_nan() {
        return equal_nan && a.is_nan() && b.is_nan();
    }
    a == b || (b.is_finite() && (a - b).abs() <= atol + rtol * b.abs())
}

impl<T: Element, S: Data<Elem = T>> ArrayBase<S> {
    /// NumPy's `isclose(a, b, rtol, atol, equal_nan)`, elementwise with
    /// broadcasting: `|a - b| <= atol + rtol·|b|` (not symmetric, as NumPy), equal
    /// infinities close, NaN close to NaN only with `equal_nan`.
    /// [`Error::ShapeMismatch`] when the shapes do not broadcast.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![1.0, 1.0 + 1e-9, f64::NAN]);
    /// let b = Array::from_vec(vec![1.0, 1.0, f64::NAN]);
    /// assert_eq!(a.isclose(&b, 1e-5, 1e-8, false).unwrap().to_vec(), vec![true, true, false]);
    /// assert_eq!(a.isclose(&b, 1e-5, 1e-8, true).unwrap().to_vec(), vec![true; 3]);
    /// ```
    pub fn isclose<S2: Data<Elem = T>>(
        &self,
        other: &ArrayBase<S2>,
        rtol: T,
        atol: T,
        equal_nan: bool,
    ) -> Result<Array<bool>> {
        self.zip_map(other, |a, b| close(a, b, rtol, atol, equal_nan))
            .map_err(|_| Error::ShapeMismatch {
                op: "isclose",
                lhs: self.shape().to_vec(),
                rhs: other.shape().to_vec(),
            })
    }

    /// NumPy's `allclose(a, b, rtol, atol)`: every pair close by
    /// [`isclose`](Self::isclose) (NaN is never close), with broadcasting;
    /// [`Error::ShapeMismatch`] when the shapes do not broadcast.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![1e10, 1e-7]);
    /// let b = Array::from_vec(vec![1.00001e10, 1e-8]);
    /// assert!(!a.allclose(&b, 1e-5, 1e-8).unwrap());
    /// let c = Array::from_vec(vec![1.00001e10, 1e-9]);
    /// assert!(Array::from_vec(vec![1e10, 1e-8]).allclose(&c, 1e-5, 1e-8).unwrap());
    /// assert!(a.allclose(&Array::<f64>::zeros(&[3]), 1e-5, 1e-8).is_err());
    /// ```
    pub fn allclose<S2: Data<Elem = T>>(
        &self,
        other: &ArrayBase<S2>,
        rtol: T,
        atol: T,
    ) -> Result<bool> {
        let shape = crate::dim::broadcast_shapes(self.shape(), other.shape()).ok_or_else(|| {
            Error::ShapeMismatch {
                op: "allclose",
                lhs: self.shape().to_vec(),
                rhs: other.shape().to_vec(),
            }
        })?;
        let a = broadcast_view(self.view(), &shape).expect("broadcasts");
        let b = broadcast_view(other.view(), &shape).expect("broadcasts");
        Ok(a.iter()
            .zip(b.iter())
            .all(|(&x, &y)| close(x, y, rtol, atol, false)))
    }
}

/// Arrays are `abs_diff_eq` when their shapes are equal and every pair of
/// elements is (no broadcasting, as `==`).
///
/// ```
/// use approx::assert_abs_diff_eq;
/// let a = ndsimd::Array::from_vec(vec![1.0, 2.0]);
/// assert_abs_diff_eq!(a, ndsimd::Array::from_vec(vec![1.0 + 1e-12, 2.0]), epsilon = 1e-9);
/// ```
impl<T, S, S2> approx::AbsDiffEq<ArrayBase<S2>> for ArrayBase<S>
where
    T: DType + approx::AbsDiffEq,
    T::Epsilon: Clone,
    S: Data<Elem = T>,
    S2: Data<Elem = T>,
{
    type Epsilon = T::Epsilon;
    fn default_epsilon() -> T::Epsilon {
        T::default_epsilon()
    }
    fn abs_diff_eq(&self, other: &ArrayBase<S2>, epsilon: T::Epsilon) -> bool {
        self.shape() == other.shape()
            && self
                .iter()
                .zip(other.iter())
                .all(|(a, b)| a.abs_diff_eq(b, epsilon.clone()))
    }
}

/// Arrays are `relative_eq` when their shapes are equal and every pair is.
///
/// ```
/// use approx::assert_relative_eq;
/// let a = ndsimd::Array::from_vec(vec![1e6, 2.0]);
/// assert_relative_eq!(a, ndsimd::Array::from_vec(vec![1e6 + 1e-4, 2.0]), max_relative = 1e-9);
/// ```
impl<T, S, S2> approx::RelativeEq<ArrayBase<S2>> for ArrayBase<S>
where
    T: DType + approx::RelativeEq,
    T::Epsilon: Clone,
    S: Data<Elem = T>,
    S2: Data<Elem = T>,
{
    fn default_max_relative() -> T::Epsilon {
        T::default_max_relative()
    }
    fn relative_eq(
        &self,
        other: &ArrayBase<S2>,
        epsilon: T::Epsilon,
        max_relative: T::Epsilon,
    ) -> bool {
        self.shape() == other.shape()
            && self
                .iter()
                .zip(other.iter())
                .all(|(a, b)| a.relative_eq(b, epsilon.clone(), max_relative.clone()))
    }
}

/// Arrays are `ulps_eq` when their shapes are equal and every pair is.
///
/// ```
/// use approx::assert_ulps_eq;
/// let a = ndsimd::Array::from_vec(vec![0.1 + 0.2]);
/// assert_ulps_eq!(a, ndsimd::Array::from_vec(vec![0.3]), max_ulps = 1);
/// ```
impl<T, S, S2> approx::UlpsEq<ArrayBase<S2>> for ArrayBase<S>
where
    T: DType + approx::UlpsEq,
    T::Epsilon: Clone,
    S: Data<Elem = T>,
    S2: Data<Elem = T>,
{
    fn default_max_ulps() -> u32 {
        T::default_max_ulps()
    }
    fn ulps_eq(&self, other: &ArrayBase<S2>, epsilon: T::Epsilon, max_ulps: u32) -> bool {
        self.shape() == other.shape()
            && self
                .iter()
                .zip(other.iter())
                .all(|(a, b)| a.ulps_eq(b, epsilon.clone(), max_ulps))
    }
}

#[cfg(feature = "ndarray")]
mod nd {
    //! Zero-copy conversions with `ndarray` (feature `ndarray`). Both crates
    //! describe a view as storage + first element + shape + strides in elements,
    //! so a view converts by handing over the same memory: the pointer of the
    //! first element is the same on both sides.

    use super::check_layout;
    use crate::array::{Array, ArrayBase, ArrayView, ArrayViewMut};
    use crate::dim::{Dim, Strides};
    use crate::error::{Error, Result};
    use crate::DType;
    use ndarray::{Axis, Dimension, IxDyn, ShapeBuilder};

    /// The span `lo..=hi` of storage a layout reaches, its strides made positive,
    /// and the axes whose stride was negative (to be inverted on ndarray's side).
    fn positive(
        len: usize,
        shape: &[usize],
        strides: &[isize],
        offset: usize,
    ) -> (std::ops::Range<usize>, Vec<usize>, Vec<usize>) {
        let span = match check_layout(len, shape, strides, offset).expect("a valid view") {
            Some((lo, hi)) => lo..hi + 1,
            None => 0..0,
        };
        let abs = strides.iter().map(|s| s.unsigned_abs()).collect();
        let neg = (0..shape.len()).filter(|&i| strides[i] < 0).collect();
        (span, abs, neg)
    }

    /// An ndarray view over the same memory (no copy).
    ///
    /// ```
    /// use ndsimd::{s, Array};
    /// let a = Array::from_shape_vec(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    /// let v = a.slice(s![.., ..;-1]).unwrap();
    /// let first = v.first().unwrap() as *const f64;
    /// let n: ndarray::ArrayViewD<'_, f64> = v.into();
    /// assert_eq!(n.as_ptr(), first);
    /// assert_eq!(n[[0, 0]], 3.0);
    /// ```
    impl<'a, T: DType> From<ArrayView<'a, T>> for ndarray::ArrayViewD<'a, T> {
        fn from(v: ArrayView<'a, T>) -> Self {
            let (span, abs, neg) = positive(v.data.len(), v.shape(), v.strides(), v.offset);
            if span.is_empty() {
                // No elements: ndarray's own strides over no memory.
                return ndarray::ArrayView::from_shape(IxDyn(v.shape()), &v.data[span])
                    .expect("an empty shape fits an empty slice");
            }
            let shape = IxDyn(v.shape()).strides(IxDyn(&abs));
            let mut n = ndarray::ArrayView::from_shape(shape, &v.data[span])
                .expect("the span holds every element of the view");
            for ax in neg {
                n.invert_axis(Axis(ax));
            }
            n
        }
    }

    /// An ndarray mutable view over the same memory (no copy).
    ///
    /// ```
    /// let mut a = ndsimd::Array::<f64>::zeros(&[2, 2]);
    /// let mut n: ndarray::ArrayViewMutD<'_, f64> = a.view_mut().into();
    /// n[[1, 0]] = 5.0;
    /// assert_eq!(a.to_vec(), vec![0.0, 0.0, 5.0, 0.0]);
    /// ```
    impl<'a, T: DType> From<ArrayViewMut<'a, T>> for ndarray::ArrayViewMutD<'a, T> {
        fn from(v: ArrayViewMut<'a, T>) -> Self {
            let (span, abs, neg) = positive(v.data.len(), v.shape(), v.strides(), v.offset);
            if span.is_empty() {
                // No elements: ndarray's own strides over no memory.
                return ndarray::ArrayViewMut::from_shape(IxDyn(v.shape()), &mut v.data[span])
                    .expect("an empty shape fits an empty slice");
            }
            let shape = IxDyn(v.shape()).strides(IxDyn(&abs));
            let mut n = ndarray::ArrayViewMut::from_shape(shape, &mut v.data[span])
                .expect("the span holds every element of the view, each once");
            for ax in neg {
                n.invert_axis(Axis(ax));
            }
            n
        }
    }

    /// The first element's offset in a memory-order slice.
    fn offset_in<T>(slice_start: *const T, first: *const T) -> usize {
        (first as usize - slice_start as usize) / std::mem::size_of::<T>().max(1)
    }

    fn not_contiguous(shape: &[usize], strides: &[isize]) -> Error {
        Error::InvalidArgument(format!(
            "an ndarray view of shape {} with strides {} is not contiguous in memory: only views whose elements fill one slice (any axis order or direction) convert without a copy; use `.to_owned()` first",
            crate::error::ShapeFmt(shape),
            crate::error::ShapeFmt(strides)
        ))
    }

    /// An ndsimd view over the same memory (no copy), for an ndarray view whose
    /// elements fill one slice in some axis order and direction (C, Fortran,
    /// transposed, reversed); other layouts error (ndarray offers no safe way
    /// to borrow the memory between strided elements).
    ///
    /// ```
    /// let n = ndarray::Array2::<f64>::from_shape_fn((2, 3), |(i, j)| (3 * i + j) as f64);
    /// let t = n.t();
    /// let v = ndsimd::ArrayView::try_from(t.view()).unwrap();
    /// assert_eq!(v.shape(), &[3, 2]);
    /// assert_eq!(v.to_vec(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    /// ```
    impl<'a, T: DType, D: Dimension> TryFrom<ndarray::ArrayView<'a, T, D>> for ArrayView<'a, T> {
        type Error = Error;
        fn try_from(n: ndarray::ArrayView<'a, T, D>) -> Result<Self> {
            let first = n.as_ptr();
            let slice = n
                .to_slice_memory_order()
                .ok_or_else(|| not_contiguous(n.shape(), n.strides()))?;
            let offset = if slice.is_empty() {
                0
            } else {
                offset_in(slice.as_ptr(), first)
            };
            ArrayView::from_slice_strided(slice, n.shape(), n.strides(), offset)
        }
    }

    /// An ndsimd mutable view over the same memory (no copy), for the layouts of
    /// the read-only conversion.
    ///
    /// ```
    /// let mut n = ndarray::Array1::<f64>::zeros(3);
    /// let mut v = ndsimd::ArrayViewMut::try_from(n.view_mut()).unwrap();
    /// v.fill(2.0);
    /// assert_eq!(n.to_vec(), vec![2.0; 3]);
    /// ```
    impl<'a, T: DType, D: Dimension> TryFrom<ndarray::ArrayViewMut<'a, T, D>> for ArrayViewMut<'a, T> {
        type Error = Error;
        fn try_from(n: ndarray::ArrayViewMut<'a, T, D>) -> Result<Self> {
            let first = n.as_ptr();
            let shape = n.shape().to_vec();
            let strides = n.strides().to_vec();
            let slice = n
                .into_slice_memory_order()
                .ok_or_else(|| not_contiguous(&shape, &strides))?;
            let offset = if slice.is_empty() {
                0
            } else {
                offset_in(slice.as_ptr(), first)
            };
            check_layout(slice.len(), &shape, &strides, offset)?;
            Ok(ArrayBase {
                data: slice,
                offset,
                dim: Dim::from_slice(&shape),
                strides: Strides::from_slice(&strides),
            })
        }
    }

    /// An owned ndsimd array taking over an ndarray array's buffer (no copy, any
    /// layout).
    ///
    /// ```
    /// let n = ndarray::Array2::<f64>::ones((2, 3)).reversed_axes();
    /// let a = ndsimd::Array::from(n);
    /// assert_eq!(a.shape(), &[3, 2]);
    /// assert_eq!(a.strides(), &[1, 3]);
    /// ```
    impl<T: DType, D: Dimension> From<ndarray::Array<T, D>> for Array<T> {
        fn from(n: ndarray::Array<T, D>) -> Self {
            let shape = n.shape().to_vec();
            let strides = n.strides().to_vec();
            let (vec, offset) = n.into_raw_vec_and_offset();
            let offset = offset.unwrap_or(0);
            check_layout(vec.len(), &shape, &strides, offset).expect("ndarray's layout is valid");
            ArrayBase {
                data: crate::array::Owned(vec),
                offset,
                dim: Dim::from_slice(&shape),
                strides: Strides::from_slice(&strides),
            }
        }
    }

    /// An owned ndarray array of the same elements: the buffer is handed over
    /// when the array is in standard layout (the elements are moved down in place
    /// over the few padding elements that align the first one, as
    /// [`Array::into_vec`]); other layouts are copied into row-major order.
    ///
    /// ```
    /// let a = ndsimd::Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// let n = ndarray::ArrayD::from(a);
    /// assert_eq!(n.shape(), &[2, 2]);
    /// ```
    impl<T: DType> From<Array<T>> for ndarray::ArrayD<T> {
        fn from(a: Array<T>) -> Self {
            let shape = a.shape().to_vec();
            ndarray::ArrayD::from_shape_vec(IxDyn(&shape), a.into_vec())
                .expect("into_vec holds the shape's elements")
        }
    }
}
