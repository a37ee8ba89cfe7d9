//! Joining, splitting and rearranging: `concatenate`, `stack`, `vstack`,
//! `hstack`, `split`, `array_split`, `tile`, and the views `flip`, `swap_axes`,
//! `broadcast_to`.

use super::select::standard;
use super::split::split;
use crate::array::{
    check_ndim, normalize_axis, try_filled, try_for_overwrite, Array, ArrayBase, ArrayView, Data,
};
use crate::dim::{size_of_shape, Dim, Strides};
use crate::error::{Error, Result, ShapeFmt};
use crate::DType;

/// NumPy's `concatenate(arrays, axis)`: the arrays joined along an existing axis
/// (negative counts from the end), into a new standard-layout array.
///
/// Errors when the list is empty, an array is 0-D, the numbers of axes differ,
/// or a length other than along `axis` differs (naming the shapes).
///
/// ```
/// use ndsimd::{concatenate, Array};
/// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
/// let b = Array::from_shape_vec(&[2, 1], vec![5.0, 6.0]).unwrap();
/// let c = concatenate(&[a.view(), b.view()], -1).unwrap();
/// assert_eq!(c.shape(), &[2, 3]);
/// assert_eq!(c.to_vec(), vec![1.0, 2.0, 5.0, 3.0, 4.0, 6.0]);
/// assert!(concatenate(&[a.view(), b.view()], 0).is_err());
/// ```
pub fn concatenate<T: DType>(arrays: &[ArrayView<'_, T>], axis: isize) -> Result<Array<T>> {
    let first = arrays
        .first()
        .ok_or_else(|| Error::InvalidArgument("need at least one array to concatenate".into()))?;
    let nd = first.ndim();
    if nd == 0 {
        return Err(Error::InvalidArgument(
            "zero-dimensional arrays cannot be concatenated".into(),
        ));
    }
    let ax = normalize_axis(axis, nd)?;
    let mut shape = first.shape().to_vec();
    shape[ax] = 0;
    for (i, a) in arrays.iter().enumerate() {
        let same = a.ndim() == nd
            && a.shape()
                .iter()
                .zip(first.shape())
                .enumerate()
                .all(|(k, (x, y))| k == ax || x == y);
        if !same {
            return Err(Error::InvalidArgument(format!(
                "all the input arrays must have the same shape except along axis {ax}: array 0 has shape {} and array {i} has shape {}",
                ShapeFmt(first.shape()),
                ShapeFmt(a.shape())
            )));
        }
        shape[ax] = shape[ax].checked_add(a.shape()[ax]).ok_or_else(|| {
            Error::InvalidArgument("the concatenated axis is longer than usize::MAX".into())
        })?;
    }
    // The parts cover every element of every row.
    let mut out = try_for_overwrite(&shape)?;
    let dst = out.payload_mut();
    if dst.is_empty() {
        return Ok(Array::from_aligned(&shape, out));
    }
    let inner: usize = shape[ax + 1..].iter().product();
    let row = shape[ax] * inner;
    // Each array's block of a row (skipping empty ones) and where it starts in it.
    let mut col = 0;
    let mut parts = Vec::with_capacity(arrays.len());
    for a in arrays {
        let block = a.shape()[ax] * inner;
        if block > 0 {
            parts.push(Part {
                src: standard(a),
                block,
                col,
            });
            col += block;
        }
    }
    // Large outputs are split over the pool. Not streamed here: the copies are
    // memcpy's, which streams large runs on its own.
    let parts = &parts[..];
    split(dst, move |r, piece| fill_joined(parts, row, r.start, piece));
    Ok(Array::from_aligned(&shape, out))
}

/// One array of a `concatenate`: its elements, its block of each output row, and
/// the block's offset in the row.
struct Part<'a, T: DType> {
    src: std::borrow::Cow<'a, [T]>,
    block: usize,
    col: usize,
}

/// The output's elements from `start` on, into `piece`: runs copied from the parts
/// whose blocks they fall in (`parts` ordered by `col`, covering rows of `row`).
fn fill_joined<T: DType>(parts: &[Part<'_, T>], row: usize, start: usize, piece: &mut [T]) {
    let mut at = start;
    let mut done = 0;
    while done < piece.len() {
        let (o, c) = (at / row, at % row);
        let p = &parts[parts.partition_point(|p| p.col + p.block <= c)];
        let off = o * p.block + c - p.col;
        let len = (p.block - (c - p.col)).min(piece.len() - done);
        piece[done..done + len].copy_from_slice(&p.src[off..off + len]);
        done += len;
        at += len;
    }
}

/// NumPy's `stack(arrays, axis)`: arrays of one shape joined along a new axis at
/// `axis` (in `-(ndim+1)..=ndim`). Errors when the list is empty or the shapes
/// differ.
///
/// ```
/// use ndsimd::{stack, Array};
/// let a = Array::from_vec(vec![1.0, 2.0]);
/// let b = Array::from_vec(vec![3.0, 4.0]);
/// let s = stack(&[a.view(), b.view()], 1).unwrap();
/// assert_eq!(s.shape(), &[2, 2]);
/// assert_eq!(s.to_vec(), vec![1.0, 3.0, 2.0, 4.0]);
/// ```
pub fn stack<T: DType>(arrays: &[ArrayView<'_, T>], axis: isize) -> Result<Array<T>> {
    let first = arrays
        .first()
        .ok_or_else(|| Error::InvalidArgument("need at least one array to stack".into()))?;
    if let Some((i, a)) = arrays
        .iter()
        .enumerate()
        .find(|(_, a)| a.shape() != first.shape())
    {
        return Err(Error::InvalidArgument(format!(
            "all input arrays must have the same shape: array 0 has shape {} and array {i} has shape {}",
            ShapeFmt(first.shape()),
            ShapeFmt(a.shape())
        )));
    }
    let ax = normalize_axis(axis, first.ndim() + 1)? as isize;
    let expanded = arrays
        .iter()
        .map(|a| a.insert_axis(ax))
        .collect::<Result<Vec<_>>>()?;
    concatenate(&expanded, ax)
}

/// NumPy's `vstack`: 1-D arrays become rows (`[n]` is read as `[1, n]`, a 0-D
/// array as `[1, 1]`), then all are joined along axis 0.
///
/// ```
/// use ndsimd::{vstack, Array};
/// let a = Array::from_vec(vec![1.0, 2.0]);
/// let m = Array::from_shape_vec(&[2, 2], vec![3.0, 4.0, 5.0, 6.0]).unwrap();
/// let v = vstack(&[a.view(), m.view()]).unwrap();
/// assert_eq!(v.shape(), &[3, 2]);
/// ```
pub fn vstack<T: DType>(arrays: &[ArrayView<'_, T>]) -> Result<Array<T>> {
    let two_d: Vec<ArrayView<'_, T>> = arrays
        .iter()
        .map(|a| match a.ndim() {
            0 => reshape_view(a, &[1, 1]),
            1 => reshape_view(a, &[1, a.len()]),
            _ => a.view(),
        })
        .collect();
    concatenate(&two_d, 0)
}

/// NumPy's `hstack`: joined along axis 1, or along axis 0 when the first array is
/// 1-D (0-D arrays are read as `[1]`).
///
/// ```
/// use ndsimd::{hstack, Array};
/// let a = Array::from_vec(vec![1.0, 2.0]);
/// let b = Array::from_vec(vec![3.0]);
/// assert_eq!(hstack(&[a.view(), b.view()]).unwrap().to_vec(), vec![1.0, 2.0, 3.0]);
/// ```
pub fn hstack<T: DType>(arrays: &[ArrayView<'_, T>]) -> Result<Array<T>> {
    let one_d: Vec<ArrayView<'_, T>> = arrays
        .iter()
        .map(|a| {
            if a.ndim() == 0 {
                reshape_view(a, &[1])
            } else {
                a.view()
            }
        })
        .collect();
    let axis = if one_d.first().is_some_and(|a| a.ndim() == 1) {
        0
    } else {
        1
    };
    concatenate(&one_d, axis)
}

/// A 0-D or 1-D view read as `shape` (one more length-1 axis in front).
fn reshape_view<'a, T: DType>(a: &ArrayView<'a, T>, shape: &[usize]) -> ArrayView<'a, T> {
    let s = if a.ndim() == 1 { a.strides()[0] } else { 1 };
    let mut strides = vec![0isize; shape.len()];
    if let Some(last) = strides.last_mut() {
        *last = s;
    }
    ArrayBase {
        data: a.data,
        offset: a.offset,
        dim: Dim::from_slice(shape),
        strides: Strides::from_slice(&strides),
    }
}

impl<T: DType, S: Data<Elem = T>> ArrayBase<S> {
    /// NumPy's `split(a, sections, axis)`: `sections` equal views along `axis`.
    /// Errors when the axis length is not a multiple of `sections` (or
    /// `sections` is 0); [`array_split`](Self::array_split) allows unequal parts.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::arange(0.0, 6.0, 1.0).unwrap();
    /// let parts = a.split(3, 0).unwrap();
    /// assert_eq!(parts[1].to_vec(), vec![2.0, 3.0]);
    /// assert!(a.split(4, 0).is_err());
    /// ```
    pub fn split(&self, sections: usize, axis: isize) -> Result<Vec<ArrayView<'_, T>>> {
        let ax = normalize_axis(axis, self.ndim())?;
        let n = self.shape()[ax];
        if sections == 0 || !n.is_multiple_of(sections) {
            return Err(Error::InvalidArgument(format!(
                "array split does not result in an equal division: axis {ax} of length {n} into {sections} sections"
            )));
        }
        self.array_split(sections, axis)
    }

    /// NumPy's `array_split(a, sections, axis)`: `sections` views along `axis`,
    /// the first `len % sections` of them one longer. Errors when `sections` is 0.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::arange(0.0, 5.0, 1.0).unwrap();
    /// let lens: Vec<usize> = a.array_split(3, 0).unwrap().iter().map(|p| p.len()).collect();
    /// assert_eq!(lens, vec![2, 2, 1]);
    /// ```
    pub fn array_split(&self, sections: usize, axis: isize) -> Result<Vec<ArrayView<'_, T>>> {
        let ax = normalize_axis(axis, self.ndim())?;
        if sections == 0 {
            return Err(Error::InvalidArgument(
                "number of sections must be larger than 0".into(),
            ));
        }
        let n = self.shape()[ax];
        let (each, extra) = (n / sections, n % sections);
        let mut cuts = Vec::with_capacity(sections - 1);
        let mut at = 0;
        for i in 0..sections - 1 {
            at += each + usize::from(i < extra);
            cuts.push(at);
        }
        self.split_at_indices(&cuts, axis)
    }

    /// NumPy's `split(a, indices, axis)`: views of `[0, i0)`, `[i0, i1)`, …,
    /// `[ik, len)` along `axis`, each bound clamped to the axis as NumPy's slicing
    /// does (so a part may be empty).
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::arange(0.0, 5.0, 1.0).unwrap();
    /// let p = a.split_at_indices(&[1, 3, 9], 0).unwrap();
    /// assert_eq!(p.len(), 4);
    /// assert_eq!(p[1].to_vec(), vec![1.0, 2.0]);
    /// assert!(p[3].is_empty());
    /// ```
    pub fn split_at_indices(
        &self,
        indices: &[usize],
        axis: isize,
    ) -> Result<Vec<ArrayView<'_, T>>> {
        let ax = normalize_axis(axis, self.ndim())?;
        let n = self.shape()[ax];
        let st = self.strides()[ax];
        let mut bounds = Vec::with_capacity(indices.len() + 2);
        bounds.push(0);
        bounds.extend(indices.iter().map(|&i| i.min(n)));
        bounds.push(n);
        Ok(bounds
            .windows(2)
            .map(|w| {
                let (lo, hi) = (w[0], w[1].max(w[0]));
                let mut v = self.view();
                v.dim[ax] = hi - lo;
                if hi > lo {
                    v.offset = (v.offset as isize + lo as isize * st) as usize;
                }
                v
            })
            .collect())
    }

    /// NumPy's `tile(a, reps)`: the array repeated `reps[i]` times along each
    /// axis. With fewer `reps` than axes, 1s are put in front; with more, the
    /// array gains leading axes of length 1, as NumPy.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0, 2.0]);
    /// let t = a.tile(&[2, 2]).unwrap();
    /// assert_eq!(t.shape(), &[2, 4]);
    /// assert_eq!(t.to_vec(), vec![1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
    /// ```
    pub fn tile(&self, reps: &[usize]) -> Result<Array<T>> {
        let nd = self.ndim().max(reps.len());
        check_ndim(2 * nd)?;
        let pad = |v: &[usize]| {
            let mut p = vec![1usize; nd - v.len()];
            p.extend_from_slice(v);
            p
        };
        let (shape, reps) = (pad(self.shape()), pad(reps));
        let mut strides = vec![0isize; nd - self.ndim()];
        strides.extend_from_slice(self.strides());
        // Read as [r0, s0, r1, s1, ...] with stride 0 on each repeat axis.
        let mut dim2 = Vec::with_capacity(2 * nd);
        let mut st2 = Vec::with_capacity(2 * nd);
        for i in 0..nd {
            dim2.extend_from_slice(&[reps[i], shape[i]]);
            st2.extend_from_slice(&[0, strides[i]]);
        }
        let out_shape: Vec<usize> = shape
            .iter()
            .zip(&reps)
            .map(|(&s, &r)| s.checked_mul(r))
            .collect::<Option<_>>()
            .filter(|s: &Vec<usize>| size_of_shape(s).is_some())
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "tile of shape {} by {} has more than usize::MAX elements",
                    ShapeFmt(self.shape()),
                    ShapeFmt(&reps)
                ))
            })?;
        let v = self.view();
        let wide = ArrayBase {
            data: v.data,
            offset: v.offset,
            dim: Dim::from_slice(&dim2),
            strides: Strides::from_slice(&st2),
        };
        let mut out = try_filled(&out_shape, T::default())?;
        for (o, &x) in out.payload_mut().iter_mut().zip(wide.iter()) {
            *o = x;
        }
        Ok(Array::from_aligned(&out_shape, out))
    }

    /// NumPy's `flip(a, axis)`: a view with the order along `axis` reversed
    /// (negative stride, no copy).
    ///
    /// ```
    /// let a = ndsimd::Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(a.flip(0).unwrap().to_vec(), vec![3.0, 4.0, 1.0, 2.0]);
    /// assert_eq!(a.flip(-1).unwrap().to_vec(), vec![2.0, 1.0, 4.0, 3.0]);
    /// ```
    pub fn flip(&self, axis: isize) -> Result<ArrayView<'_, T>> {
        let ax = normalize_axis(axis, self.ndim())?;
        let mut v = self.view();
        flip_axis(&mut v, ax);
        Ok(v)
    }

    /// NumPy's `flip(a)`: a view with every axis reversed.
    ///
    /// ```
    /// let a = ndsimd::Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(a.flip_all().to_vec(), vec![4.0, 3.0, 2.0, 1.0]);
    /// ```
    pub fn flip_all(&self) -> ArrayView<'_, T> {
        let mut v = self.view();
        for ax in 0..v.ndim() {
            flip_axis(&mut v, ax);
        }
        v
    }

    /// NumPy's `swapaxes(a, i, j)`: a view with two axes exchanged.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[2, 3, 4]);
    /// assert_eq!(a.swap_axes(0, -1).unwrap().shape(), &[4, 3, 2]);
    /// assert!(a.swap_axes(0, 3).is_err());
    /// ```
    pub fn swap_axes(&self, a: isize, b: isize) -> Result<ArrayView<'_, T>> {
        let (i, j) = (
            normalize_axis(a, self.ndim())?,
            normalize_axis(b, self.ndim())?,
        );
        let mut v = self.view();
        v.dim.swap(i, j);
        v.strides.swap(i, j);
        Ok(v)
    }
}

/// Reverses axis `ax` of `v` in place.
fn flip_axis<T: DType>(v: &mut ArrayView<'_, T>, ax: usize) {
    let n = v.dim[ax];
    if n > 1 {
        v.offset = (v.offset as isize + (n as isize - 1) * v.strides[ax]) as usize;
    }
    v.strides[ax] = -v.strides[ax];
}
