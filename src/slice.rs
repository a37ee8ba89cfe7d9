//! Basic slicing with NumPy semantics and the `s![..]` macro.

use crate::array::{check_ndim, ArrayBase, ArrayView, ArrayViewMut, Data, DataMut};
use crate::error::{Error, Result};
use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

/// One argument of a basic slice, as NumPy's `a[...]` takes them.
///
/// Build them with the [`s!`](crate::s) macro: `s![1..5;2, ..;-1, 3, NewAxis]`.
///
/// ```
/// use ndsimd::SliceArg;
/// let full_reversed = SliceArg::Slice { start: None, stop: None, step: -1 };
/// assert_eq!(SliceArg::from(..).with_step(-1), full_reversed);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceArg {
    /// `start:stop:step`. Negative `start`/`stop` count from the end; values past
    /// either end clip, as NumPy; a negative `step` walks backwards (`None` bounds
    /// then mean "from the last element" and "through the first").
    Slice {
        /// First index (default: the start in the step's direction).
        start: Option<isize>,
        /// One past the last index (default: through the end).
        stop: Option<isize>,
        /// Step, never zero.
        step: isize,
    },
    /// A single index (negative counts from the end); removes the axis. Out of
    /// range is an error.
    Index(isize),
    /// Inserts a new axis of length 1.
    NewAxis,
}

/// Marker for a new axis in [`s!`](crate::s): `s![.., NewAxis]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewAxis;

impl SliceArg {
    /// The same slice with another step. An index `i` becomes the slice `i..i+1`
    /// with that step, so `s![2;1]` keeps the axis.
    pub fn with_step(self, step: isize) -> SliceArg {
        match self {
            SliceArg::Slice { start, stop, .. } => SliceArg::Slice { start, stop, step },
            SliceArg::Index(i) => SliceArg::Slice {
                start: Some(i),
                stop: if i == -1 { None } else { Some(i + 1) },
                step,
            },
            SliceArg::NewAxis => SliceArg::NewAxis,
        }
    }
}

impl From<RangeFull> for SliceArg {
    fn from(_: RangeFull) -> Self {
        SliceArg::Slice {
            start: None,
            stop: None,
            step: 1,
        }
    }
}

impl From<NewAxis> for SliceArg {
    fn from(_: NewAxis) -> Self {
        SliceArg::NewAxis
    }
}

macro_rules! slice_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for SliceArg {
            fn from(i: $t) -> Self {
                SliceArg::Index(i as isize)
            }
        }
        impl From<Range<$t>> for SliceArg {
            fn from(r: Range<$t>) -> Self {
                SliceArg::Slice { start: Some(r.start as isize), stop: Some(r.end as isize), step: 1 }
            }
        }
        impl From<RangeInclusive<$t>> for SliceArg {
            fn from(r: RangeInclusive<$t>) -> Self {
                let end = *r.end() as isize;
                SliceArg::Slice {
                    start: Some(*r.start() as isize),
                    stop: if end == -1 { None } else { Some(end + 1) },
                    step: 1,
                }
            }
        }
        impl From<RangeFrom<$t>> for SliceArg {
            fn from(r: RangeFrom<$t>) -> Self {
                SliceArg::Slice { start: Some(r.start as isize), stop: None, step: 1 }
            }
        }
        impl From<RangeTo<$t>> for SliceArg {
            fn from(r: RangeTo<$t>) -> Self {
                SliceArg::Slice { start: None, stop: Some(r.end as isize), step: 1 }
            }
        }
        impl From<RangeToInclusive<$t>> for SliceArg {
            fn from(r: RangeToInclusive<$t>) -> Self {
                let end = r.end as isize;
                SliceArg::Slice { start: None, stop: if end == -1 { None } else { Some(end + 1) }, step: 1 }
            }
        }
    )*};
}
slice_from_int!(isize, usize, i32, i64, u32);

/// Builds a slice argument list with NumPy semantics: `s![a..b;step, i, .., NewAxis]`.
///
/// `..` is a full axis, `a..b` / `a..` / `..b` / `a..=b` are ranges (negative bounds
/// count from the end), `;step` sets a step (negative walks backwards, so `..;-1`
/// reverses an axis as NumPy's `::-1`), a plain integer indexes and removes the
/// axis, and [`NewAxis`](crate::NewAxis) inserts one. Axes not named are kept whole.
///
/// ```
/// use ndsimd::{s, Array};
/// let a = Array::<f64>::arange(0.0, 12.0, 1.0).unwrap().into_shape(&[3, 4]).unwrap();
/// let v = a.slice(s![..;2, 1..;-2]).unwrap();   // NumPy: a[::2, 1::-2]
/// assert_eq!(v.shape(), &[2, 1]);
/// assert_eq!(v.to_vec(), vec![1.0, 9.0]);
/// let r = a.slice(s![-1, ..;-1]).unwrap();       // NumPy: a[-1, ::-1]
/// assert_eq!(r.to_vec(), vec![11.0, 10.0, 9.0, 8.0]);
/// ```
#[macro_export]
macro_rules! s {
    (@acc [$($acc:expr,)*]) => { [$($acc,)*] };
    (@acc [$($acc:expr,)*] $r:expr ; $step:expr) => {
        $crate::s!(@acc [$($acc,)* $crate::SliceArg::from($r).with_step($step),])
    };
    (@acc [$($acc:expr,)*] $r:expr ; $step:expr , $($rest:tt)*) => {
        $crate::s!(@acc [$($acc,)* $crate::SliceArg::from($r).with_step($step),] $($rest)*)
    };
    (@acc [$($acc:expr,)*] $r:expr) => {
        $crate::s!(@acc [$($acc,)* $crate::SliceArg::from($r),])
    };
    (@acc [$($acc:expr,)*] $r:expr , $($rest:tt)*) => {
        $crate::s!(@acc [$($acc,)* $crate::SliceArg::from($r),] $($rest)*)
    };
    ($($t:tt)*) => { $crate::s!(@acc [] $($t)*) };
}

/// NumPy's `PySlice_AdjustIndices`: the first index and the length of `start:stop:step`
/// on an axis of `len`.
pub(crate) fn adjust_slice(
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
    len: usize,
) -> (isize, usize) {
    let n = len as isize;
    let clip = |v: Option<isize>, default: isize| -> isize {
        match v {
            None => default,
            Some(mut v) => {
                if v < 0 {
                    v += n;
                    if v < 0 {
                        v = if step < 0 { -1 } else { 0 };
                    }
                } else if v >= n {
                    v = if step < 0 { n - 1 } else { n };
                }
                v
            }
        }
    };
    let (s, e) = if step > 0 {
        (clip(start, 0), clip(stop, n))
    } else {
        (clip(start, n - 1), clip(stop, -1))
    };
    let count = if step > 0 {
        if e > s {
            (e - s + step - 1) / step
        } else {
            0
        }
    } else if s > e {
        (s - e - 1) / (-step) + 1
    } else {
        0
    };
    (s, count as usize)
}

impl<S: Data> ArrayBase<S> {
    /// Applies `args` to this array's layout, moving it (the data is untouched).
    /// The core of every slicing method.
    pub(crate) fn apply_slice(&mut self, args: &[SliceArg]) -> Result<()> {
        let consumed = args
            .iter()
            .filter(|a| !matches!(a, SliceArg::NewAxis))
            .count();
        if consumed > self.ndim() {
            return Err(Error::TooManyIndices {
                count: consumed,
                shape: self.shape().to_vec(),
            });
        }
        let new_axes = args.len() - consumed;
        let indices = args
            .iter()
            .filter(|a| matches!(a, SliceArg::Index(_)))
            .count();
        check_ndim(self.ndim() - indices + new_axes)?;
        let empty = self.is_empty();
        let mut dim = Vec::with_capacity(self.ndim() + new_axes);
        let mut strides = Vec::with_capacity(self.ndim() + new_axes);
        let mut offset = self.offset as isize;
        let mut ax = 0;
        for arg in args {
            match *arg {
                SliceArg::NewAxis => {
                    dim.push(1);
                    strides.push(0);
                }
                SliceArg::Index(i) => {
                    let len = self.dim[ax];
                    let j = if i < 0 { i + len as isize } else { i };
                    if j < 0 || j >= len as isize {
                        return Err(Error::SliceOutOfRange {
                            axis: ax,
                            index: i,
                            shape: self.shape().to_vec(),
                        });
                    }
                    offset += j * self.strides[ax];
                    ax += 1;
                }
                SliceArg::Slice { start, stop, step } => {
                    if step == 0 {
                        return Err(Error::InvalidArgument(format!(
                            "slice step cannot be zero (axis {ax} of shape {})",
                            crate::error::ShapeFmt(self.shape())
                        )));
                    }
                    let (first, count) = adjust_slice(start, stop, step, self.dim[ax]);
                    if count > 0 && !empty {
                        offset += first * self.strides[ax];
                    }
                    dim.push(count);
                    strides.push(self.strides[ax] * step);
                    ax += 1;
                }
            }
        }
        for k in ax..self.ndim() {
            dim.push(self.dim[k]);
            strides.push(self.strides[k]);
        }
        // An empty result reaches no element; keep the offset where it is valid.
        if !dim.contains(&0) {
            self.offset = offset as usize;
        }
        self.dim = crate::dim::Dim::from_slice(&dim);
        self.strides = crate::dim::Strides::from_slice(&strides);
        Ok(())
    }

    /// A view of a basic slice (see [`s!`](crate::s)); it shares this array's data.
    ///
    /// Errors when an index is out of range, a step is zero, or more axes are
    /// indexed than the array has.
    ///
    /// ```
    /// use ndsimd::{s, Array};
    /// let a = Array::<f64>::arange(0.0, 10.0, 1.0).unwrap();
    /// assert_eq!(a.slice(s![7..;-3]).unwrap().to_vec(), vec![7.0, 4.0, 1.0]);
    /// assert!(a.slice(s![10]).is_err());
    /// ```
    pub fn slice(&self, args: impl AsRef<[SliceArg]>) -> Result<ArrayView<'_, S::Elem>> {
        let mut v = self.view();
        v.apply_slice(args.as_ref())?;
        Ok(v)
    }

    /// Slices in place, keeping the storage (for chaining views without borrowing
    /// a temporary).
    ///
    /// ```
    /// use ndsimd::{s, Array};
    /// let a = Array::<f64>::arange(0.0, 10.0, 1.0).unwrap();
    /// let v = a.view().slice_move(s![1..]).unwrap().slice_move(s![..;4]).unwrap();
    /// assert_eq!(v.to_vec(), vec![1.0, 5.0, 9.0]);
    /// ```
    pub fn slice_move(mut self, args: impl AsRef<[SliceArg]>) -> Result<Self> {
        self.apply_slice(args.as_ref())?;
        Ok(self)
    }
}

impl<S: DataMut> ArrayBase<S> {
    /// A mutable view of a basic slice; writes go to this array.
    ///
    /// ```
    /// use ndsimd::{s, Array};
    /// let mut a = Array::<f64>::zeros(&[4]);
    /// a.slice_mut(s![..;-2]).unwrap().fill(1.0);
    /// assert_eq!(a.to_vec(), vec![0.0, 1.0, 0.0, 1.0]);
    /// ```
    pub fn slice_mut(&mut self, args: impl AsRef<[SliceArg]>) -> Result<ArrayViewMut<'_, S::Elem>> {
        let mut v = self.view_mut();
        v.apply_slice(args.as_ref())?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::adjust_slice;

    #[test]
    fn numpy_adjust() {
        // (start, stop, step, len) -> python's range(len)[start:stop:step]
        fn py(start: Option<isize>, stop: Option<isize>, step: isize, len: usize) -> Vec<isize> {
            let (s, n) = adjust_slice(start, stop, step, len);
            (0..n as isize).map(|k| s + k * step).collect()
        }
        assert_eq!(py(None, None, -1, 4), vec![3, 2, 1, 0]);
        assert_eq!(py(Some(0), Some(4), -1, 4), Vec::<isize>::new());
        assert_eq!(py(Some(-100), Some(100), 3, 7), vec![0, 3, 6]);
        assert_eq!(py(Some(100), None, -2, 7), vec![6, 4, 2, 0]);
        assert_eq!(py(Some(-2), Some(-100), -1, 5), vec![3, 2, 1, 0]);
        assert_eq!(py(Some(2), Some(2), 1, 5), Vec::<isize>::new());
        assert_eq!(py(None, None, 1, 0), Vec::<isize>::new());
        assert_eq!(py(None, None, -1, 0), Vec::<isize>::new());
    }
}
