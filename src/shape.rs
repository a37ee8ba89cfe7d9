//! Reshape, transpose, squeeze and new axes.

use crate::array::{check_ndim, normalize_axis, Array, ArrayBase, ArrayView, Data};
use crate::dim::{c_strides, size_of_shape, Dim, Strides};
use crate::error::{Error, Result, ShapeFmt};
use crate::DType;

/// An array that is either a view of another array's data or an owned copy: what
/// [`reshape`](ArrayBase::reshape) returns, since NumPy's reshape copies only when
/// the layout forces it.
#[derive(Clone)]
pub enum CowArray<'a, T: DType> {
    /// Shares the source's data.
    View(ArrayView<'a, T>),
    /// A fresh standard-layout copy.
    Owned(Array<T>),
}

impl<'a, T: DType> CowArray<'a, T> {
    /// A view of either form.
    pub fn view(&self) -> ArrayView<'_, T> {
        match self {
            CowArray::View(v) => v.view(),
            CowArray::Owned(a) => a.view(),
        }
    }

    /// True when the result shares the source's data.
    pub fn is_view(&self) -> bool {
        matches!(self, CowArray::View(_))
    }

    /// An owned array (copying a view).
    pub fn into_owned(self) -> Array<T> {
        match self {
            CowArray::View(v) => v.to_owned(),
            CowArray::Owned(a) => a,
        }
    }

    /// The shape of either form.
    pub fn shape(&self) -> &[usize] {
        match self {
            CowArray::View(v) => v.shape(),
            CowArray::Owned(a) => a.shape(),
        }
    }

    /// The elements in logical row-major order.
    pub fn to_vec(&self) -> Vec<T> {
        self.view().to_vec()
    }
}

/// Prints as the array it holds (NumPy's repr).
impl<T: DType> std::fmt::Debug for CowArray<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.view(), f)
    }
}

/// Resolves a target shape with at most one `-1` against `size` elements.
pub(crate) fn infer_shape(from: &[usize], to: &[isize]) -> Result<Dim> {
    let err = || Error::IncompatibleReshape {
        from: from.to_vec(),
        to: to.to_vec(),
    };
    check_ndim(to.len())?;
    let size = size_of_shape(from).ok_or_else(err)?;
    let mut infer = None;
    let mut known: usize = 1;
    for (i, &d) in to.iter().enumerate() {
        if d == -1 {
            if infer.replace(i).is_some() {
                return Err(err());
            }
        } else if d < 0 {
            return Err(err());
        } else {
            known = known.checked_mul(d as usize).ok_or_else(err)?;
        }
    }
    let mut out = Dim::filled(to.len(), 0);
    for (o, &d) in out.iter_mut().zip(to) {
        *o = d.max(0) as usize;
    }
    match infer {
        Some(i) => {
            if known == 0 || size % known != 0 {
                return Err(err());
            }
            out[i] = size / known;
        }
        None => {
            if known != size {
                return Err(err());
            }
        }
    }
    Ok(out)
}

/// NumPy's `_attempt_nocopy_reshape`: strides that read `old` as `new` without
/// moving data, or `None` when a copy is needed.
pub(crate) fn nocopy_strides(old: &[usize], old_st: &[isize], new: &[usize]) -> Option<Strides> {
    if size_of_shape(new) == Some(0) || old.contains(&0) {
        return Some(c_strides(new));
    }
    // The axes longer than 1, inline (a view-only reshape must not allocate).
    let mut od = Dim::filled(0, 0);
    let mut os = Strides::filled(0, 0);
    for (&d, &s) in old.iter().zip(old_st).filter(|(&d, _)| d != 1) {
        od.push(d);
        os.push(s);
    }
    let mut ns = Strides::filled(new.len(), 0);
    let (mut oi, mut oj, mut ni, mut nj) = (0usize, 1usize, 0usize, 1usize);
    while ni < new.len() && oi < od.len() {
        let mut np = new[ni];
        let mut op = od[oi];
        while np != op {
            if np < op {
                np *= new[nj];
                nj += 1;
            } else {
                op *= od[oj];
                oj += 1;
            }
        }
        for ok in oi..oj - 1 {
            if os[ok] != od[ok + 1] as isize * os[ok + 1] {
                return None;
            }
        }
        ns[nj - 1] = os[oj - 1];
        for nk in (ni + 1..nj).rev() {
            ns[nk - 1] = ns[nk] * new[nk] as isize;
        }
        ni = nj;
        nj += 1;
        oi = oj;
        oj += 1;
    }
    // Trailing axes of length 1 take the last stride (any value would do).
    let last = if ni >= 1 { ns[ni - 1] } else { 1 };
    for s in ns.iter_mut().skip(ni) {
        *s = last;
    }
    Some(ns)
}

impl<S: Data> ArrayBase<S> {
    /// NumPy's `reshape`: the same elements in row-major order under a new shape;
    /// one entry may be `-1` and is inferred.
    ///
    /// Returns a view ([`CowArray::View`]) whenever the layout allows reading the
    /// data in the new shape without moving it (always for standard layout), and a
    /// row-major copy ([`CowArray::Owned`]) otherwise — exactly when NumPy copies.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::<f64>::arange(0.0, 6.0, 1.0).unwrap();
    /// let r = a.reshape(&[2, -1]).unwrap();
    /// assert!(r.is_view());
    /// assert_eq!(r.shape(), &[2, 3]);
    /// let rv = r.view();
    /// let rt = rv.t();
    /// let t = rt.reshape(&[6]).unwrap();   // a transpose must be copied
    /// assert!(!t.is_view());
    /// assert_eq!(t.to_vec(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    /// assert!(a.reshape(&[4, -1]).is_err());
    /// ```
    pub fn reshape(&self, shape: &[isize]) -> Result<CowArray<'_, S::Elem>> {
        let new = infer_shape(self.shape(), shape)?;
        match nocopy_strides(self.shape(), self.strides(), &new) {
            Some(st) => Ok(CowArray::View(ArrayBase {
                data: self.data.storage(),
                offset: self.offset,
                dim: new,
                strides: st,
            })),
            None => Ok(CowArray::Owned(Array::from_aligned(
                &new,
                self.to_aligned(),
            ))),
        }
    }

    /// NumPy's `ravel`: a 1-D view when possible, else a copy.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[2, 3]);
    /// assert!(a.ravel().is_view());
    /// assert!(!a.t().ravel().is_view());
    /// ```
    pub fn ravel(&self) -> CowArray<'_, S::Elem> {
        self.reshape(&[-1]).expect("a -1 reshape always fits")
    }

    /// NumPy's `flatten`: always a 1-D copy in row-major order.
    ///
    /// ```
    /// let a = ndsimd::Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(a.t().flatten().to_vec(), vec![1.0, 3.0, 2.0, 4.0]);
    /// ```
    pub fn flatten(&self) -> Array<S::Elem> {
        Array::from_aligned(&[self.len()], self.to_aligned())
    }

    /// The transpose: a view with the axes reversed (NumPy's `.T`).
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[2, 3, 4]);
    /// assert_eq!(a.t().shape(), &[4, 3, 2]);
    /// ```
    pub fn t(&self) -> ArrayView<'_, S::Elem> {
        self.view().reversed_axes()
    }

    /// Reverses the axes in place (the owning form of [`t`](Self::t)).
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[2, 3]).reversed_axes();
    /// assert_eq!(a.shape(), &[3, 2]);
    /// ```
    pub fn reversed_axes(mut self) -> Self {
        self.dim.reverse();
        self.strides.reverse();
        self
    }

    /// A view with the axes reordered: axis `i` of the result is axis `axes[i]` of
    /// this array (NumPy's `transpose(axes)`).
    ///
    /// Errors when `axes` is not a permutation of `0..ndim`.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[2, 3, 4]);
    /// assert_eq!(a.permute_axes(&[2, 0, 1]).unwrap().shape(), &[4, 2, 3]);
    /// assert!(a.permute_axes(&[0, 0, 1]).is_err());
    /// ```
    pub fn permute_axes(&self, axes: &[usize]) -> Result<ArrayView<'_, S::Elem>> {
        self.view().permuted_axes(axes)
    }

    /// Reorders the axes in place (the owning form of
    /// [`permute_axes`](Self::permute_axes)).
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[2, 3]).permuted_axes(&[1, 0]).unwrap();
    /// assert_eq!(a.shape(), &[3, 2]);
    /// ```
    pub fn permuted_axes(mut self, axes: &[usize]) -> Result<Self> {
        let n = self.ndim();
        // A bit per axis (ndim <= MAX_NDIM = 64): no allocation on the view path.
        let mut seen = 0u64;
        let ok = axes.len() == n
            && axes.iter().all(|&a| {
                let fresh = a < n && seen & (1 << a) == 0;
                seen |= 1u64.checked_shl(a as u32).unwrap_or(0);
                fresh
            });
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "axes {} are not a permutation of the {n} axes of shape {}",
                ShapeFmt(axes),
                ShapeFmt(self.shape())
            )));
        }
        let mut dim = Dim::filled(n, 0);
        let mut st = Strides::filled(n, 0);
        for (i, &a) in axes.iter().enumerate() {
            dim[i] = self.dim[a];
            st[i] = self.strides[a];
        }
        self.dim = dim;
        self.strides = st;
        Ok(self)
    }

    /// A view without the axes of length 1.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[1, 3, 1]);
    /// assert_eq!(a.squeeze().shape(), &[3]);
    /// ```
    pub fn squeeze(&self) -> ArrayView<'_, S::Elem> {
        let mut v = self.view();
        let mut dim = Dim::filled(0, 0);
        let mut st = Strides::filled(0, 0);
        for i in (0..v.ndim()).filter(|&i| v.dim[i] != 1) {
            dim.push(v.dim[i]);
            st.push(v.strides[i]);
        }
        v.dim = dim;
        v.strides = st;
        v
    }

    /// A view without one axis of length 1 (negative counts from the end).
    ///
    /// Errors when the axis is out of range or its length is not 1.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[1, 3, 1]);
    /// assert_eq!(a.squeeze_axis(-1).unwrap().shape(), &[1, 3]);
    /// assert!(a.squeeze_axis(1).is_err());
    /// ```
    pub fn squeeze_axis(&self, axis: isize) -> Result<ArrayView<'_, S::Elem>> {
        let ax = normalize_axis(axis, self.ndim())?;
        if self.dim[ax] != 1 {
            return Err(Error::InvalidArgument(format!(
                "cannot squeeze axis {axis} of shape {}: its length is {}, not 1",
                ShapeFmt(self.shape()),
                self.dim[ax]
            )));
        }
        let mut v = self.view();
        v.dim.remove(ax);
        v.strides.remove(ax);
        Ok(v)
    }

    /// A view with a new axis of length 1 at `axis` (NumPy's `expand_dims`;
    /// `axis` in `-(ndim+1)..=ndim`).
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[3]);
    /// assert_eq!(a.insert_axis(0).unwrap().shape(), &[1, 3]);
    /// assert_eq!(a.insert_axis(-1).unwrap().shape(), &[3, 1]);
    /// assert!(a.insert_axis(2).is_err());
    /// ```
    pub fn insert_axis(&self, axis: isize) -> Result<ArrayView<'_, S::Elem>> {
        let ax = normalize_axis(axis, self.ndim() + 1)?;
        check_ndim(self.ndim() + 1)?;
        let mut v = self.view();
        v.dim.insert(ax, 1);
        v.strides.insert(ax, 0);
        Ok(v)
    }
}

impl<T: DType> Array<T> {
    /// Reshapes an owned array, without copying when the layout allows it (always
    /// for standard layout); otherwise the elements are copied in row-major order.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[6]).into_shape(&[3, -1]).unwrap();
    /// assert_eq!(a.shape(), &[3, 2]);
    /// ```
    pub fn into_shape(mut self, shape: &[isize]) -> Result<Self> {
        let new = infer_shape(self.shape(), shape)?;
        match nocopy_strides(self.shape(), self.strides(), &new) {
            Some(st) => {
                self.dim = new;
                self.strides = st;
                Ok(self)
            }
            None => Ok(Array::from_aligned(&new, self.to_aligned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nocopy_cases() {
        // C-contiguous: always possible.
        assert_eq!(
            &*nocopy_strides(&[2, 3, 4], &[12, 4, 1], &[6, 4]).unwrap(),
            &[4, 1]
        );
        // Transposed 2x3 (strides [1, 2]) cannot be flattened without a copy.
        assert!(nocopy_strides(&[3, 2], &[1, 3], &[6]).is_none());
        // Splitting a strided axis is fine.
        assert_eq!(&*nocopy_strides(&[6], &[2], &[2, 3]).unwrap(), &[6, 2]);
        // Negative strides survive.
        assert_eq!(&*nocopy_strides(&[4], &[-1], &[2, 2]).unwrap(), &[-2, -1]);
        // New length-1 axes anywhere.
        assert_eq!(
            nocopy_strides(&[2, 3], &[3, 1], &[1, 2, 1, 3, 1])
                .unwrap()
                .len(),
            5
        );
    }

    #[test]
    fn infer() {
        assert_eq!(&*infer_shape(&[2, 6], &[-1, 3]).unwrap(), &[4, 3]);
        assert!(infer_shape(&[2, 6], &[-1, -1]).is_err());
        assert!(infer_shape(&[2, 6], &[5, -1]).is_err());
        assert!(infer_shape(&[0], &[0, -1]).is_err());
        assert_eq!(&*infer_shape(&[0, 3], &[3, 0]).unwrap(), &[3, 0]);
        assert!(infer_shape(&[2, 6], &[-2, -6]).is_err());
    }
}
