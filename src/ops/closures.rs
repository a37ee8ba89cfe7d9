//! Elementwise closures and iterators over sub-views: `map`, `mapv`, `map_into`,
//! `zip_map`, `for_each`, `iter_mut`, `rows`, `axis_iter`, `lanes`.
//!
//! These call a closure per element, so they are the slow path wherever a kernel
//! exists (`a.mapv(|x| x * 2.0)` is several times slower than `&a * 2.0`); they are
//! for the operations that have none. Every form works on any layout (transposed,
//! sliced, negative strides) and visits elements in logical row-major order.

use crate::array::{try_filled, Array, ArrayBase, ArrayView, Data, DataMut};
use crate::dim::{broadcast_shapes, broadcast_strides, Dim};
use crate::error::{Error, Result};
use crate::ops::operand::check_out;
use crate::DType;

/// The value of a constructor, or its allocation error as a panic (as `zeros`).
pub(crate) fn or_panic<T>(r: Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A standard-layout array of `shape` holding the first `len(shape)` items of `it`
/// (which yields at least that many), in a library-aligned buffer.
pub(crate) fn collect_array<U: DType>(
    shape: &[usize],
    it: impl Iterator<Item = U>,
) -> Result<Array<U>> {
    let mut a = try_filled(shape, U::default())?;
    for (o, x) in a.payload_mut().iter_mut().zip(it) {
        *o = x;
    }
    Ok(Array::from_aligned(shape, a))
}

/// A view of `v` read as `shape` by NumPy's broadcasting rules (stride 0 on new
/// and stretched axes), or `None` when it does not broadcast there.
pub(crate) fn broadcast_view<'a, T: DType>(
    v: ArrayView<'a, T>,
    shape: &[usize],
) -> Option<ArrayView<'a, T>> {
    if v.ndim() > shape.len() {
        return None;
    }
    let lead = shape.len() - v.ndim();
    let ok = v
        .shape()
        .iter()
        .zip(&shape[lead..])
        .all(|(&d, &t)| d == t || d == 1);
    if !ok {
        return None;
    }
    let strides = broadcast_strides(v.shape(), v.strides(), shape);
    Some(ArrayBase {
        data: v.data,
        offset: v.offset,
        dim: Dim::from_slice(shape),
        strides,
    })
}

impl<S: Data> ArrayBase<S> {
    /// A new array of `f(&x)` for every element `x` (ndarray's `map`), any layout.
    /// The slow path where a kernel exists.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0f64, -2.0]);
    /// let b = a.map(|x| x.abs() > 1.5);
    /// assert_eq!(b.to_vec(), vec![false, true]);
    /// ```
    pub fn map<U: DType>(&self, f: impl FnMut(&S::Elem) -> U) -> Array<U> {
        or_panic(collect_array(self.shape(), self.iter().map(f)))
    }

    /// A new array of `f(x)` for every element `x`, by value (ndarray's `mapv`).
    /// The slow path where a kernel exists (`&a * 2.0` is faster than
    /// `a.mapv(|x| x * 2.0)`).
    ///
    /// ```
    /// use ndsimd::{s, Array};
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// let b = a.t().mapv(|x| x * 10.0);
    /// assert_eq!(b.to_vec(), vec![10.0, 30.0, 20.0, 40.0]);
    /// ```
    pub fn mapv<U: DType>(&self, mut f: impl FnMut(S::Elem) -> U) -> Array<U> {
        or_panic(collect_array(self.shape(), self.iter().map(|&x| f(x))))
    }

    /// `f(x)` for every element into `out`, which must have this array's shape
    /// (else [`Error::WrongOutputShape`]); no allocation.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![1.0f64, 4.0]);
    /// let mut out = Array::<f64>::zeros(&[2]);
    /// a.map_into(&mut out, |x| x.sqrt()).unwrap();
    /// assert_eq!(out.to_vec(), vec![1.0, 2.0]);
    /// assert!(a.map_into(&mut Array::<f64>::zeros(&[3]), |x| x).is_err());
    /// ```
    pub fn map_into<U: DType>(
        &self,
        out: &mut ArrayBase<impl DataMut<Elem = U>>,
        mut f: impl FnMut(S::Elem) -> U,
    ) -> Result<()> {
        check_out(self.shape(), out.shape())?;
        let mut it = self.iter();
        out.for_each_mut(|o| {
            if let Some(&x) = it.next() {
                *o = f(x);
            }
        });
        Ok(())
    }

    /// `f(a, b)` for every pair of elements of `self` and `rhs` broadcast together
    /// by NumPy's rules; [`Error::ShapeMismatch`] when the shapes do not broadcast.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 1], vec![1.0, 2.0]).unwrap();
    /// let b = Array::from_vec(vec![10.0, 20.0, 30.0]);
    /// let c = a.zip_map(&b, |x, y| x * y).unwrap();
    /// assert_eq!(c.shape(), &[2, 3]);
    /// assert_eq!(c.to_vec(), vec![10.0, 20.0, 30.0, 20.0, 40.0, 60.0]);
    /// assert!(a.zip_map(&Array::<f64>::zeros(&[3, 2]), |x, y| x + y).is_err());
    /// ```
    pub fn zip_map<S2: Data, U: DType>(
        &self,
        rhs: &ArrayBase<S2>,
        mut f: impl FnMut(S::Elem, S2::Elem) -> U,
    ) -> Result<Array<U>> {
        let shape =
            broadcast_shapes(self.shape(), rhs.shape()).ok_or_else(|| Error::ShapeMismatch {
                op: "zip_map",
                lhs: self.shape().to_vec(),
                rhs: rhs.shape().to_vec(),
            })?;
        if let (Some(a), Some(b)) = (self.as_slice(), rhs.as_slice()) {
            if self.shape() == rhs.shape() {
                return collect_array(&shape, a.iter().zip(b).map(|(&x, &y)| f(x, y)));
            }
        }
        let a = broadcast_view(self.view(), &shape).expect("broadcasts");
        let b = broadcast_view(rhs.view(), &shape).expect("broadcasts");
        collect_array(&shape, a.iter().zip(b.iter()).map(|(&x, &y)| f(x, y)))
    }

    /// Calls `f` on every element, in logical row-major order.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0, 2.0, 3.0]);
    /// let mut total = 0.0;
    /// a.for_each(|&x| total += x);
    /// assert_eq!(total, 6.0);
    /// ```
    pub fn for_each(&self, f: impl FnMut(&S::Elem)) {
        self.iter().for_each(f);
    }
}

impl<S: DataMut> ArrayBase<S> {
    /// Replaces every element `x` with `f(x)` in place (ndarray's `mapv_inplace`).
    ///
    /// ```
    /// let mut a = ndsimd::Array::from_vec(vec![1.0, 2.0]);
    /// a.mapv_inplace(|x| x + 1.0);
    /// assert_eq!(a.to_vec(), vec![2.0, 3.0]);
    /// ```
    pub fn mapv_inplace(&mut self, mut f: impl FnMut(S::Elem) -> S::Elem) {
        self.for_each_mut(|x| *x = f(*x));
    }

    /// Mutable references to the elements in logical row-major order, whatever the
    /// layout. Contiguous arrays iterate their slice; other layouts first collect
    /// one reference per element (a slow path: prefer
    /// [`for_each_mut`](Self::for_each_mut) there).
    ///
    /// ```
    /// use ndsimd::{s, Array};
    /// let mut a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// for (i, x) in a.slice_mut(s![.., ..;-1]).unwrap().iter_mut().enumerate() {
    ///     *x += 10.0 * i as f64;
    /// }
    /// assert_eq!(a.to_vec(), vec![11.0, 2.0, 33.0, 24.0]);
    /// ```
    pub fn iter_mut(&mut self) -> IterMut<'_, S::Elem> {
        if self.is_standard_layout() {
            let s = self.as_slice_mut().expect("standard layout");
            return IterMut {
                inner: IterMutInner::Contig(s.iter_mut()),
            };
        }
        let n = self.len();
        // Logical position and storage offset of every element, then the
        // storage walked once in offset order to hand out disjoint references.
        let mut pairs: Vec<(usize, usize)> = Vec::with_capacity(n);
        let v = self.view();
        let mut logical = 0;
        for_each_offset(&v.dim, &v.strides, v.offset, |off| {
            pairs.push((off, logical));
            logical += 1;
        });
        drop(v);
        pairs.sort_unstable();
        let mut slots: Vec<Option<&mut S::Elem>> = Vec::with_capacity(n);
        slots.resize_with(n, || None);
        let mut rest: &mut [S::Elem] = self.data.storage_mut();
        let mut base = 0;
        for (off, li) in pairs {
            // A mutable array reaches each element once, so offsets are distinct.
            let taken = std::mem::take(&mut rest);
            let (_, tail) = taken.split_at_mut(off - base);
            let (first, tail) = tail.split_first_mut().expect("offset in storage");
            slots[li] = Some(first);
            rest = tail;
            base = off + 1;
        }
        IterMut {
            inner: IterMutInner::Collected(slots.into_iter()),
        }
    }
}

/// Calls `f` with the storage offset of every element of the layout
/// `dim`/`strides`/`base`, in logical row-major order.
pub(crate) fn for_each_offset(
    dim: &[usize],
    strides: &[isize],
    base: usize,
    mut f: impl FnMut(usize),
) {
    let n: usize = dim.iter().product();
    if n == 0 {
        return;
    }
    let nd = dim.len();
    if nd == 0 {
        f(base);
        return;
    }
    let (last_n, last_s) = (dim[nd - 1], strides[nd - 1]);
    let mut idx = vec![0usize; nd];
    let mut off = base as isize;
    loop {
        let mut o = off;
        for _ in 0..last_n {
            f(o as usize);
            o += last_s;
        }
        let mut ax = nd - 1;
        loop {
            if ax == 0 {
                return;
            }
            ax -= 1;
            idx[ax] += 1;
            off += strides[ax];
            if idx[ax] < dim[ax] {
                break;
            }
            off -= strides[ax] * dim[ax] as isize;
            idx[ax] = 0;
        }
    }
}

/// Mutable references to an array's elements in logical row-major order: see
/// [`ArrayBase::iter_mut`].
///
/// ```
/// let mut a = ndsimd::Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
/// let mut t = a.view_mut().permuted_axes(&[1, 0]).unwrap();
/// let it: ndsimd::IterMut<'_, f64> = t.iter_mut();
/// assert_eq!(it.len(), 4);
/// ```
pub struct IterMut<'a, T> {
    inner: IterMutInner<'a, T>,
}

enum IterMutInner<'a, T> {
    Contig(std::slice::IterMut<'a, T>),
    Collected(std::vec::IntoIter<Option<&'a mut T>>),
}

impl<'a, T> Iterator for IterMut<'a, T> {
    type Item = &'a mut T;
    #[inline]
    fn next(&mut self) -> Option<&'a mut T> {
        match &mut self.inner {
            IterMutInner::Contig(it) => it.next(),
            IterMutInner::Collected(it) => it.next().map(|x| x.expect("every slot filled")),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.inner {
            IterMutInner::Contig(it) => it.len(),
            IterMutInner::Collected(it) => it.len(),
        };
        (n, Some(n))
    }
}

impl<T> ExactSizeIterator for IterMut<'_, T> {}
