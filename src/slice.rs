//! Basic slicing with NumPy semantics and the `s![..]` macro.

use crate::array::{check_ndim, ArrayBase, ArrayView, ArrayViewMut, Data, DataMut};
use crate::dim::{Dim, Strides};
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
    /// with that step, so `s![2;1]` keeps the axis (and `s![2;-1]` is empty, as
    /// NumPy's `a[2:3:-1]`).
    ///
    /// ```
    /// use ndsimd::SliceArg;
    /// let kept = SliceArg::Index(2).with_step(1);
    /// assert_eq!(kept, SliceArg::Slice { start: Some(2), stop: Some(3), step: 1 });
    /// ```
    pub fn with_step(self, step: isize) -> SliceArg {
        match self {
            SliceArg::Slice { start, stop, .. } => SliceArg::Slice { start, stop, step },
            SliceArg::Index(i) => SliceArg::Slice {
                start: Some(i),
                stop: Some(stop_after(i)),
                step,
            },
            SliceArg::NewAxis => SliceArg::NewAxis,
        }
    }
}

/// The exclusive stop just after index `i`: `i + 1`, except that `-1` (the last
/// element) gives the axis' length and `isize::MAX` stays put. `isize::MAX` stands
/// for the length in both directions, as NumPy clips `a[:huge]` and `a[:huge:-1]`
/// exactly as `a[:len]` and `a[:len:-1]`, so `a..=-1;step` is `a[a:len:step]`.
fn stop_after(i: isize) -> isize {
    if i == -1 {
        isize::MAX
    } else {
        i.saturating_add(1)
    }
}

/// Integers that convert to a slice bound or index, saturating at `isize`'s range
/// (as Python clips huge slice bounds to `Py_ssize_t`): `usize::MAX` becomes
/// `isize::MAX`, which is past the end of every axis, never a wrapped `-1`.
trait SatIsize: Copy {
    fn sat(self) -> isize;
}

macro_rules! sat_isize {
    ($($t:ty),*) => {$(
        impl SatIsize for $t {
            #[allow(clippy::unnecessary_fallible_conversions)] // isize itself
            fn sat(self) -> isize {
                isize::try_from(self).unwrap_or(if self > 0 as $t { isize::MAX } else { isize::MIN })
            }
        }
    )*};
}
sat_isize!(isize, usize, i32, i64, u32);

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
                SliceArg::Index(i.sat())
            }
        }
        impl From<Range<$t>> for SliceArg {
            fn from(r: Range<$t>) -> Self {
                SliceArg::Slice { start: Some(r.start.sat()), stop: Some(r.end.sat()), step: 1 }
            }
        }
        impl From<RangeInclusive<$t>> for SliceArg {
            fn from(r: RangeInclusive<$t>) -> Self {
                SliceArg::Slice {
                    start: Some(r.start().sat()),
                    stop: Some(stop_after(r.end().sat())),
                    step: 1,
                }
            }
        }
        impl From<RangeFrom<$t>> for SliceArg {
            fn from(r: RangeFrom<$t>) -> Self {
                SliceArg::Slice { start: Some(r.start.sat()), stop: None, step: 1 }
            }
        }
        impl From<RangeTo<$t>> for SliceArg {
            fn from(r: RangeTo<$t>) -> Self {
                SliceArg::Slice { start: None, stop: Some(r.end.sat()), step: 1 }
            }
        }
        impl From<RangeToInclusive<$t>> for SliceArg {
            fn from(r: RangeToInclusive<$t>) -> Self {
                SliceArg::Slice { start: None, stop: Some(stop_after(r.end.sat())), step: 1 }
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
/// `a..=b` is `a..b+1` (`..=-1` runs through the last element). Integers of every
/// type saturate at `isize`'s range, as Python clips huge bounds: `..usize::MAX`
/// takes the whole axis and the index `usize::MAX` is out of range, never a wrapped
/// `-1`. A step of `isize::MIN` walks backwards like `-isize::MAX`.
///
/// ```
/// use ndsimd::{s, Array};
/// let a = Array::<f64>::arange(0.0, 12.0, 1.0).unwrap().into_shape(&[3, 4]).unwrap();
/// let v = a.slice(s![..;2, 1..;-2]).unwrap();   // NumPy: a[::2, 1::-2]
/// assert_eq!(v.shape(), &[2, 1]);
/// assert_eq!(v.to_vec(), vec![1.0, 9.0]);
/// let r = a.slice(s![-1, ..;-1]).unwrap();       // NumPy: a[-1, ::-1]
/// assert_eq!(r.to_vec(), vec![11.0, 10.0, 9.0, 8.0]);
/// let h = a.slice(s![..usize::MAX, ..;isize::MAX]).unwrap(); // a[:2**64, ::2**63-1]
/// assert_eq!(h.shape(), &[3, 1]);
/// assert!(a.slice(s![usize::MAX]).is_err());
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

/// NumPy's `PySlice_Unpack` + `PySlice_AdjustIndices`: the first index and the
/// length of `start:stop:step` (`step != 0`) on an axis of `len`. The first index
/// is meaningful only when the length is not 0.
///
/// Computed in `i128`, where every sum and difference of an `isize` and a `usize`
/// is exact: the `isize` form overflowed for huge steps (`(stop - start + step - 1)
/// / step` with `step = isize::MAX`). CPython needs no wider type because it
/// first clamps `step` to `-isize::MAX..` and bounds `len` by `isize::MAX`; this
/// gives the same results, and stays exact for the (empty) axes longer than that.
#[inline]
pub(crate) fn adjust_slice(
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
    len: usize,
) -> (usize, usize) {
    debug_assert!(step != 0);
    // The common whole-axis `..` without the general arithmetic (a row view in a
    // hot loop pays for every call here).
    if step == 1 && start.is_none() && stop.is_none() {
        return (0, len);
    }
    let (n, step) = (len as i128, step as i128);
    let clip = |v: Option<isize>, default: i128| -> i128 {
        let Some(v) = v else { return default };
        let v = v as i128;
        if v < 0 {
            let v = v + n;
            if v < 0 {
                if step < 0 {
                    -1
                } else {
                    0
                }
            } else {
                v
            }
        } else if v >= n {
            if step < 0 {
                n - 1
            } else {
                n
            }
        } else {
            v
        }
    };
    let (first, count) = if step > 0 {
        let (s, e) = (clip(start, 0), clip(stop, n));
        (s, if s < e { (e - s - 1) / step + 1 } else { 0 })
    } else {
        let (s, e) = (clip(start, n - 1), clip(stop, -1));
        (s, if e < s { (s - e - 1) / -step + 1 } else { 0 })
    };
    if count == 0 {
        return (0, 0);
    }
    // 0 <= first < len and 1 <= count <= len here.
    (first as usize, count as usize)
}

/// `offset + index * stride`, checked. It cannot overflow for an element that
/// exists (its offset is inside the buffer); the check keeps a broken layout an
/// error rather than a wrapped offset.
#[inline]
fn step_offset(offset: isize, index: usize, stride: isize, shape: &[usize]) -> Result<isize> {
    isize::try_from(index)
        .ok()
        .and_then(|i| i.checked_mul(stride))
        .and_then(|d| offset.checked_add(d))
        .ok_or_else(|| overflow(shape))
}

#[cold]
fn overflow(shape: &[usize]) -> Error {
    Error::InvalidArgument(format!(
        "slice of shape {} overflows the address arithmetic",
        crate::error::ShapeFmt(shape)
    ))
}

impl<S: Data> ArrayBase<S> {
    /// Applies `args` to this array's layout, moving it (the data is untouched).
    #[inline]
    pub(crate) fn apply_slice(&mut self, args: &[SliceArg]) -> Result<()> {
        let (offset, dim, strides) = self.slice_layout(args)?;
        self.offset = offset;
        self.dim = dim;
        self.strides = strides;
        Ok(())
    }

    /// The layout (offset, shape, strides) that `args` cut out of this array's:
    /// the core of every slicing method. Built apart from any view, so `slice`
    /// constructs its result once instead of copying this array's layout first.
    #[inline(always)]
    fn slice_layout(&self, args: &[SliceArg]) -> Result<(usize, Dim, Strides)> {
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
        // The lists read once: each index into `self.dim` or `self.strides` is a
        // match on the inline/heap variant, and this runs per row in a hot loop.
        let (shape, st) = (self.shape(), self.strides());
        let empty = shape.contains(&0);
        // Built inline (no heap below the inline rank): a view in a hot loop must
        // not allocate.
        let mut dim = Dim::filled(0, 0);
        let mut strides = Strides::filled(0, 0);
        let mut offset = self.offset as isize;
        let mut ax = 0;
        for arg in args {
            match *arg {
                SliceArg::NewAxis => {
                    dim.push(1);
                    strides.push(0);
                }
                SliceArg::Index(i) => {
                    let len = shape[ax];
                    // i128: exact for every isize index and usize length.
                    let j = if i < 0 {
                        i as i128 + len as i128
                    } else {
                        i as i128
                    };
                    if j < 0 || j >= len as i128 {
                        return Err(Error::SliceOutOfRange {
                            axis: ax,
                            index: i,
                            shape: shape.to_vec(),
                        });
                    }
                    // An empty array keeps its offset (below), so skip the arithmetic.
                    if !empty {
                        offset = step_offset(offset, j as usize, st[ax], shape)?;
                    }
                    ax += 1;
                }
                SliceArg::Slice { start, stop, step } => {
                    if step == 0 {
                        return Err(Error::InvalidArgument(format!(
                            "slice step cannot be zero (axis {ax} of shape {})",
                            crate::error::ShapeFmt(shape)
                        )));
                    }
                    let (first, count) = adjust_slice(start, stop, step, shape[ax]);
                    if count > 0 && !empty {
                        offset = step_offset(offset, first, st[ax], shape)?;
                    }
                    let stride = st[ax];
                    // With one element (or none) the step is never taken; keeping the
                    // old stride spares `stride * isize::MAX` its overflow. Otherwise
                    // the product spans elements that exist, so it fits, unless the
                    // array is empty, where strides mean nothing.
                    let stride = match (count > 1, stride.checked_mul(step)) {
                        (false, _) => stride,
                        (true, Some(s)) => s,
                        (true, None) if empty => 0,
                        (true, None) => return Err(overflow(shape)),
                    };
                    dim.push(count);
                    strides.push(stride);
                    ax += 1;
                }
            }
        }
        for (&d, &s) in shape[ax..].iter().zip(&st[ax..]) {
            dim.push(d);
            strides.push(s);
        }
        // An empty result reaches no element; keep the offset where it is valid.
        let offset = if !dim.contains(&0) {
            usize::try_from(offset).map_err(|_| overflow(shape))?
        } else {
            self.offset
        };
        Ok((offset, dim, strides))
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
    #[inline(always)]
    pub fn slice(&self, args: impl AsRef<[SliceArg]>) -> Result<ArrayView<'_, S::Elem>> {
        let (offset, dim, strides) = self.slice_layout(args.as_ref())?;
        Ok(ArrayBase {
            data: self.data.storage(),
            offset,
            dim,
            strides,
        })
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
            (0..n as isize).map(|k| s as isize + k * step).collect()
        }
        assert_eq!(py(None, None, -1, 4), vec![3, 2, 1, 0]);
        assert_eq!(py(Some(0), Some(4), -1, 4), Vec::<isize>::new());
        assert_eq!(py(Some(-100), Some(100), 3, 7), vec![0, 3, 6]);
        assert_eq!(py(Some(100), None, -2, 7), vec![6, 4, 2, 0]);
        assert_eq!(py(Some(-2), Some(-100), -1, 5), vec![3, 2, 1, 0]);
        assert_eq!(py(Some(2), Some(2), 1, 5), Vec::<isize>::new());
        assert_eq!(py(None, None, 1, 0), Vec::<isize>::new());
        assert_eq!(py(None, None, -1, 0), Vec::<isize>::new());
        // Huge steps take the first element only (they overflowed before).
        assert_eq!(py(None, None, isize::MAX, 4), vec![0]);
        assert_eq!(py(None, None, isize::MIN, 4), vec![3]);
        assert_eq!(
            py(Some(isize::MIN), Some(isize::MAX), isize::MAX, 4),
            vec![0]
        );
        // Axes longer than isize::MAX (possible when another axis is 0) stay exact.
        assert_eq!(adjust_slice(None, None, 1, usize::MAX), (0, usize::MAX));
        assert_eq!(
            adjust_slice(None, None, -1, usize::MAX),
            (usize::MAX - 1, usize::MAX)
        );
        assert_eq!(
            adjust_slice(Some(-1), None, 1, usize::MAX),
            (usize::MAX - 1, 1)
        );
    }
}
