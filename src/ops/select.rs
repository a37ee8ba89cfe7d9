//! Selection: `take` along an axis, boolean-mask selection, `nonzero`,
//! `flatnonzero`, `where_` and `clip`.

use super::closures::{broadcast_view, collect_array};
use super::operand::{IntoOperand, Operand};
use crate::array::{normalize_axis, try_for_overwrite, Array, ArrayBase, ArrayView, Data};
use crate::dim::{broadcast_shapes, size_of_shape, Dim};
use crate::error::{Error, Result, ShapeFmt};
use crate::ops::sort::indices;
use crate::ops::split::split_stream;
use crate::DType;
use num_traits::ToPrimitive;
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `v` in standard layout: borrowed when it already is, else a row-major copy.
pub(crate) fn standard<'a, T: DType>(v: &'a ArrayView<'a, T>) -> Cow<'a, [T]> {
    match v.as_slice() {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(v.to_vec()),
    }
}

/// The product of `shape[r]`.
fn prod(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// True for NaN (the only value unequal to itself).
#[inline(always)]
#[allow(clippy::eq_op)]
pub(crate) fn is_nan<T: PartialEq>(x: T) -> bool {
    x != x
}

impl<T: DType, S: Data<Elem = T>> ArrayBase<S> {
    /// NumPy's `take(indices, axis)`: the sub-arrays at `indices` along `axis`,
    /// in the order given (repeats allowed), so the result has `indices.len()` in
    /// place of that axis. Negative indices count from the end, as NumPy.
    ///
    /// Indices may be any integer type (`usize`, `isize`, `i64`, `i32`, ...); an
    /// index outside `-n..n` errors with NumPy's message, and a bad axis with
    /// [`Error::AxisOutOfRange`]. For NumPy's `axis=None`, take from
    /// [`ravel`](Self::ravel)`().view()`.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    /// let b = a.take(&[2, 0, -1], 1).unwrap();
    /// assert_eq!(b.shape(), &[2, 3]);
    /// assert_eq!(b.to_vec(), vec![3.0, 1.0, 3.0, 6.0, 4.0, 6.0]);
    /// let e = a.take(&[3], -1).unwrap_err();
    /// assert_eq!(e.to_string(), "index 3 is out of bounds for axis 1 with size 3");
    /// ```
    pub fn take<I: ToPrimitive + Copy + Sync>(
        &self,
        indices: &[I],
        axis: isize,
    ) -> Result<Array<T>> {
        let ax = normalize_axis(axis, self.ndim())?;
        let n = self.shape()[ax];
        let k = indices.len();
        let mut shape = self.shape().to_vec();
        shape[ax] = k;
        let outer = prod(&self.shape()[..ax]);
        let inner = prod(&self.shape()[ax + 1..]);
        // Every element is written below (or the call errs).
        let mut out = try_for_overwrite(&shape)?;
        let dst = out.payload_mut();
        if dst.is_empty() {
            // Nothing to take, but the indices must still be valid.
            resolve_indices(indices, ax, n)?;
            return Ok(Array::from_aligned(&shape, out));
        }
        let v = self.view();
        let src = standard(&v);
        if inner == 1 {
            // A gather, split over the pool and streamed out when large; each index
            // resolved as it is used (one pass over the indices). A bad index is
            // reported as the serial loop would: the first one in output order.
            let first_bad = AtomicUsize::new(usize::MAX);
            let (src, first_bad) = (&*src, &first_bad);
            split_stream(dst, move |r, piece| {
                let mut at = r.start;
                let mut done = 0;
                while done < piece.len() {
                    let (o, j) = (at / k, at % k);
                    let len = (k - j).min(piece.len() - done);
                    let srow = &src[o * n..(o + 1) * n];
                    let run = &mut piece[done..done + len];
                    for (t, (d, &i)) in run.iter_mut().zip(&indices[j..j + len]).enumerate() {
                        match resolve_one(i, ax, n) {
                            Ok(i) => *d = srow[i],
                            Err(_) => {
                                first_bad.fetch_min(at + t, Ordering::Relaxed);
                                return;
                            }
                        }
                    }
                    done += len;
                    at += len;
                }
            });
            let bad = first_bad.load(Ordering::Relaxed);
            if bad != usize::MAX {
                return Err(resolve_one(indices[bad % k], ax, n).unwrap_err());
            }
        } else {
            let idx = resolve_indices(indices, ax, n)?;
            for (o, dblock) in dst.chunks_exact_mut(k * inner).enumerate() {
                let sblock = &src[o * n * inner..(o + 1) * n * inner];
                for (drow, &i) in dblock.chunks_exact_mut(inner).zip(&idx) {
                    drow.copy_from_slice(&sblock[i * inner..(i + 1) * inner]);
                }
            }
        }
        debug_assert_eq!(outer * k * inner, dst.len());
        Ok(Array::from_aligned(&shape, out))
    }

    /// NumPy's `a[mask]` for a `bool` mask of the same shape: the elements where
    /// the mask is true, in row-major order, as a 1-D array. Errors, naming both
    /// shapes, when the mask's shape differs.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![1.0, -2.0, 3.0, -4.0]);
    /// let pos = a.greater(0.0).unwrap();
    /// assert_eq!(a.mask_select(&pos).unwrap().to_vec(), vec![1.0, 3.0]);
    /// assert!(a.mask_select(&Array::from_vec(vec![true])).is_err());
    /// ```
    pub fn mask_select(&self, mask: &ArrayBase<impl Data<Elem = bool>>) -> Result<Array<T>> {
        if self.shape() != mask.shape() {
            return Err(Error::InvalidArgument(format!(
                "boolean mask of shape {} does not match the array's shape {}",
                ShapeFmt(mask.shape()),
                ShapeFmt(self.shape())
            )));
        }
        let count = mask.iter().filter(|&&m| m).count();
        let picked = self
            .iter()
            .zip(mask.iter())
            .filter(|(_, &m)| m)
            .map(|(&x, _)| x);
        collect_array(&[count], picked)
    }

    /// NumPy's `nonzero`: for each axis, the indices along it of the elements that
    /// are not zero (`false`, `0`, `±0.0`; NaN counts as non-zero), in row-major
    /// order. Errors for a 0-D array, as NumPy 2.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![0.0, 5.0, 7.0, 0.0]).unwrap();
    /// let nz = a.nonzero().unwrap();
    /// assert_eq!(nz[0].to_vec(), vec![0, 1]);
    /// assert_eq!(nz[1].to_vec(), vec![1, 0]);
    /// ```
    pub fn nonzero(&self) -> Result<Vec<Array<i64>>> {
        let nd = self.ndim();
        if nd == 0 {
            return Err(Error::InvalidArgument(
                "nonzero of a 0-d array is not allowed (use atleast_1d, as NumPy)".into(),
            ));
        }
        let zero = T::default();
        let mut cols: Vec<Vec<usize>> = vec![Vec::new(); nd];
        let mut idx = vec![0usize; nd];
        for &x in self.iter() {
            if x != zero {
                for (c, &i) in cols.iter_mut().zip(&idx) {
                    c.push(i);
                }
            }
            for ax in (0..nd).rev() {
                idx[ax] += 1;
                if idx[ax] < self.shape()[ax] {
                    break;
                }
                idx[ax] = 0;
            }
        }
        Ok(cols.into_iter().map(|c| indices(&[c.len()], c)).collect())
    }

    /// NumPy's `flatnonzero`: the row-major positions of the non-zero elements
    /// (as [`nonzero`](Self::nonzero) counts them), as a 1-D index array.
    ///
    /// ```
    /// let a = ndsimd::Array::from_shape_vec(&[2, 2], vec![0.0, 5.0, f64::NAN, 0.0]).unwrap();
    /// assert_eq!(a.flatnonzero().to_vec(), vec![1, 2]);
    /// ```
    pub fn flatnonzero(&self) -> Array<i64> {
        let zero = T::default();
        let v: Vec<usize> = self
            .iter()
            .enumerate()
            .filter(|(_, &x)| x != zero)
            .map(|(i, _)| i)
            .collect();
        indices(&[v.len()], v)
    }
}

impl<T: DType + PartialOrd, S: Data<Elem = T>> ArrayBase<S> {
    /// NumPy's `clip(a, min, max)`: every element limited to `[min, max]` (`None`
    /// for no bound). NaN elements stay NaN and a NaN bound gives NaN, as NumPy;
    /// when `min > max` every element is `max`, as NumPy.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![-3.0, 0.5, 9.0, f64::NAN]);
    /// let c = a.clip(Some(0.0), Some(1.0));
    /// assert_eq!(&c.to_vec()[..3], &[0.0, 0.5, 1.0]);
    /// assert!(c.to_vec()[3].is_nan());
    /// assert_eq!(a.clip(None, Some(0.0)).to_vec()[..3], [-3.0, 0.0, 0.0]);
    /// ```
    pub fn clip(&self, min: Option<T>, max: Option<T>) -> Array<T> {
        // NumPy's `_NPY_MIN(_NPY_MAX(x, min), max)`, whose float forms keep a NaN
        // `x`; `!(v > lo)` (not `v <= lo`) so that a NaN bound replaces `v`.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let f = |x: T| {
            let mut v = x;
            if let Some(lo) = min {
                if !is_nan(v) && !(v > lo) {
                    v = lo;
                }
            }
            if let Some(hi) = max {
                if !is_nan(v) && !(v < hi) {
                    v = hi;
                }
            }
            v
        };
        self.mapv(f)
    }
}

/// Indices of any integer type resolved against an axis of length `n` (negative
/// ones count from the end), or NumPy's error for the first one out of bounds.
pub(crate) fn resolve_indices<I: ToPrimitive + Copy>(
    indices: &[I],
    ax: usize,
    n: usize,
) -> Result<Vec<usize>> {
    indices.iter().map(|&i| resolve_one(i, ax, n)).collect()
}

/// One index resolved against an axis of length `n` (see [`resolve_indices`]).
#[inline(always)]
fn resolve_one<I: ToPrimitive + Copy>(i: I, ax: usize, n: usize) -> Result<usize> {
    if let Some(v) = i.to_i64() {
        let r = if v < 0 { v.wrapping_add(n as i64) } else { v };
        if (r as u64) < n as u64 {
            return Ok(r as usize);
        }
    }
    Err(index_error(i, ax, n))
}

#[cold]
fn index_error<I: ToPrimitive>(i: I, ax: usize, n: usize) -> Error {
    let shown = i
        .to_i128()
        .map_or_else(|| "?".to_string(), |v| v.to_string());
    Error::InvalidArgument(format!(
        "index {shown} is out of bounds for axis {ax} with size {n}"
    ))
}

/// NumPy's `where(cond, x, y)`: `x` where `cond` is true, else `y`, with all
/// three broadcast together (`x` and `y` may be arrays, views or scalars).
/// Errors naming the three shapes when they do not broadcast.
///
/// ```
/// use ndsimd::{where_, Array};
/// let a = Array::from_vec(vec![1.0, -2.0, 3.0]);
/// let r = where_(&a.greater(0.0).unwrap(), &a, 0.0).unwrap();
/// assert_eq!(r.to_vec(), vec![1.0, 0.0, 3.0]);
/// let col = Array::from_shape_vec(&[2, 1], vec![true, false]).unwrap();
/// let r = where_(&col, &a, -1.0).unwrap();
/// assert_eq!(r.shape(), &[2, 3]);
/// assert_eq!(r.to_vec(), vec![1.0, -2.0, 3.0, -1.0, -1.0, -1.0]);
/// assert!(where_(&col, &Array::<f64>::zeros(&[3, 3]), 0.0).is_err());
/// ```
pub fn where_<'a, 'b, T: DType>(
    cond: &ArrayBase<impl Data<Elem = bool>>,
    x: impl IntoOperand<'a, T>,
    y: impl IntoOperand<'b, T>,
) -> Result<Array<T>> {
    let (x, y) = (x.into_operand(), y.into_operand());
    let shape = broadcast_shapes(cond.shape(), x.shape())
        .and_then(|s| broadcast_shapes(&s, y.shape()))
        .filter(|s| size_of_shape(s).is_some())
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "operands could not be broadcast together in where_: shapes {}, {} and {}",
                ShapeFmt(cond.shape()),
                ShapeFmt(x.shape()),
                ShapeFmt(y.shape())
            ))
        })?;
    let full = |o: &Operand<'_, T>| match o {
        Operand::Scalar(_) => true,
        Operand::Array(v) => v.shape() == &*shape && v.is_standard_layout(),
    };
    if cond.shape() == &*shape && full(&x) && full(&y) {
        if let Some(c) = cond.as_slice() {
            let (a, b) = (Side::of(&x), Side::of(&y));
            let mut out = try_for_overwrite(&shape)?;
            // Every element is chosen below. Large outputs are split over the pool
            // and streamed out.
            split_stream(out.payload_mut(), move |r, piece| {
                select_contig(&c[r.clone()], a.at(r.clone()), b.at(r), piece)
            });
            return Ok(Array::from_aligned(&shape, out));
        }
    }
    let c = broadcast_view(cond.view(), &shape).expect("broadcasts");
    let xs;
    let xv = match &x {
        Operand::Scalar(s) => {
            xs = [*s];
            broadcast_scalar(&xs, &shape)
        }
        Operand::Array(v) => broadcast_view(v.view(), &shape).expect("broadcasts"),
    };
    let ys;
    let yv = match &y {
        Operand::Scalar(s) => {
            ys = [*s];
            broadcast_scalar(&ys, &shape)
        }
        Operand::Array(v) => broadcast_view(v.view(), &shape).expect("broadcasts"),
    };
    collect_array(
        &shape,
        c.iter()
            .zip(xv.iter().zip(yv.iter()))
            .map(|(&c, (&a, &b))| if c { a } else { b }),
    )
}

/// A one-element storage read as `shape` (every stride zero).
fn broadcast_scalar<'a, T: DType>(one: &'a [T; 1], shape: &Dim) -> ArrayView<'a, T> {
    ArrayBase {
        data: &one[..],
        offset: 0,
        dim: shape.clone(),
        strides: crate::dim::Strides::filled(shape.len(), 0),
    }
}

/// One side of a contiguous `where_`: the operand's elements, or a scalar.
#[derive(Clone, Copy)]
enum Side<'a, T> {
    Many(&'a [T]),
    One(T),
}

impl<'a, T: DType> Side<'a, T> {
    /// A contiguous operand's side.
    fn of(o: &'a Operand<'_, T>) -> Self {
        match o {
            Operand::Scalar(s) => Side::One(*s),
            Operand::Array(v) => Side::Many(v.as_slice().expect("standard layout")),
        }
    }

    /// The elements of `r` (a scalar stays itself).
    fn at(self, r: std::ops::Range<usize>) -> Side<'a, T> {
        match self {
            Side::Many(s) => Side::Many(&s[r]),
            one => one,
        }
    }
}

/// `where` over contiguous operands of one shape (or scalars).
fn select_contig<T: DType>(c: &[bool], x: Side<'_, T>, y: Side<'_, T>, out: &mut [T]) {
    match (x, y) {
        (Side::Many(a), Side::Many(b)) => {
            for (((o, &c), &a), &b) in out.iter_mut().zip(c).zip(a).zip(b) {
                *o = if c { a } else { b };
            }
        }
        (Side::Many(a), Side::One(b)) => {
            for ((o, &c), &a) in out.iter_mut().zip(c).zip(a) {
                *o = if c { a } else { b };
            }
        }
        (Side::One(a), Side::Many(b)) => {
            for ((o, &c), &b) in out.iter_mut().zip(c).zip(b) {
                *o = if c { a } else { b };
            }
        }
        (Side::One(a), Side::One(b)) => {
            for (o, &c) in out.iter_mut().zip(c) {
                *o = if c { a } else { b };
            }
        }
    }
}
