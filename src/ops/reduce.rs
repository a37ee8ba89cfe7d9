//! Whole-array reductions: sum, prod, mean, max, min, argmax, argmin, on the SIMD
//! reduction kernels (the dot products are in `linalg`).
//!
//! A standard-layout array goes to the kernel as one slice. Any other layout is
//! copied to row-major order first (axis-aware, copy-free reductions come with
//! the pool's drivers).

use super::axis;
use crate::array::{Array, ArrayBase, ArrayView, Data};
use crate::error::{Error, Result, ShapeFmt};
use crate::{Element, IntElement, Reduce};
use ndsimd_kernels::{par, scalar};
use std::borrow::Cow;

fn contiguous<S: Data>(a: &ArrayBase<S>) -> Cow<'_, [S::Elem]> {
    match a.as_slice() {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(a.to_vec()),
    }
}

/// Elements per piece below which a reduction stays on one thread: a 16Ki sum split
/// in two loses to one thread (docs/perf.md#what-a-hand-off-costs), a 32Ki one gains
/// (docs/design.md#the-pool).
const PAR_MIN_REDUCE: usize = 1 << 14;
/// At most this many partial results (a stack array; `pieces` is ≤ 4×threads).
const MAX_PIECES: usize = 64;

/// Too small to split whatever the pool's size: the small-array path skips the
/// pool lookup and the partials' stack array, which cost as much as a 1Ki kernel's
/// loop.
fn serial<T>(x: &[T]) -> bool {
    x.len() < 2 * PAR_MIN_REDUCE
}

/// `f` over `x` cut into pieces on the pool (one partial per piece, in piece
/// order), or `None` when `x` is too small to split. Pieces start at multiples of
/// 64 elements so each lies on whole cache lines of an aligned slice.
fn partials<T: Sync, R: Copy + Default + Send>(
    x: &[T],
    f: impl Fn(&[T]) -> R + Send + Sync + Copy,
    parts: &mut [R; MAX_PIECES],
) -> Option<usize> {
    ranges(x.len(), move |r| f(&x[r]), parts)
}

/// [`partials`] over index ranges of `0..n` (for reductions of several slices).
/// `f` goes to the pool by value (see `par::for_each_piece_mut`): the callers pass
/// `move` closures of kernels and slices.
fn ranges<R: Copy + Default + Send>(
    n: usize,
    f: impl Fn(std::ops::Range<usize>) -> R + Send + Sync + Copy,
    parts: &mut [R; MAX_PIECES],
) -> Option<usize> {
    let p = par::pieces(n, PAR_MIN_REDUCE).min(MAX_PIECES);
    if p <= 1 {
        return None;
    }
    par::for_each_piece_mut(&mut parts[..p], p, 1, move |i, slot: &mut [R]| {
        slot[0] = f(par::piece_start(n, p, 64, i)..par::piece_start(n, p, 64, i + 1));
    });
    Some(p)
}

/// A pairwise sum of `n` elements that `f` sums over index ranges, cut on the pool
/// into whole subtrees of the kernels' tree (`par::tree_piece_len`) and the piece
/// sums added by the same tree: the same bits as one kernel call over `0..n`, for
/// any thread count. `None` when `n` is too small to split.
fn tree_sum<T: Element>(
    n: usize,
    f: impl Fn(std::ops::Range<usize>) -> T + Send + Sync + Copy,
) -> Option<T> {
    let p = par::pieces(n, PAR_MIN_REDUCE).min(MAX_PIECES);
    if p <= 1 {
        return None;
    }
    let piece = par::tree_piece_len(n, scalar::block_len::<T>(), p, MAX_PIECES);
    let count = n.div_ceil(piece);
    if count <= 1 {
        return None;
    }
    let mut parts = [T::zero(); MAX_PIECES];
    par::for_each_piece_mut(&mut parts[..count], count, 1, move |i, slot: &mut [T]| {
        slot[0] = f(i * piece..((i + 1) * piece).min(n));
    });
    Some(scalar::pairwise(&parts[..count], -T::zero()))
}

/// The dot product of two slices of one length (non-empty) on the dot kernel; on
/// the pool, cut on the pairwise tree's subtrees so the bits do not depend on the
/// thread count.
pub(crate) fn dot<T: Element>(x: &[T], y: &[T]) -> T {
    let k = T::table().dot;
    if serial(x) {
        return k(x, y);
    }
    tree_sum(x.len(), move |r| k(&x[r.clone()], &y[r])).unwrap_or_else(|| k(x, y))
}

/// The whole-slice kernel or its parallel form for `max`/`min`: partial extremes
/// combine through the same kernel, which keeps the contract (the first NaN in
/// index order is the first NaN of the first piece that has one; the zero rule
/// holds over any grouping).
fn extreme<T: Element>(x: &[T], k: fn(&[T]) -> Option<T>) -> Option<T> {
    if serial(x) {
        return k(x);
    }
    let mut parts = [None; MAX_PIECES];
    match partials(x, k, &mut parts) {
        None => k(x),
        Some(p) => {
            let vals: [T; MAX_PIECES] = std::array::from_fn(|i| parts[i].unwrap_or(T::zero()));
            k(&vals[..p])
        }
    }
}

/// `argmax`/`argmin` on the pool: each piece's first extreme (or first NaN), then
/// the first piece whose value wins.
fn arg_extreme<T: Element>(
    x: &[T],
    k: fn(&[T]) -> Option<usize>,
    better: fn(T, T) -> bool,
) -> Option<usize> {
    if serial(x) {
        return k(x);
    }
    let mut parts = [None; MAX_PIECES];
    let Some(p) = partials(x, k, &mut parts) else {
        return k(x);
    };
    let n = x.len();
    let mut best: Option<(usize, T)> = None;
    for (i, part) in parts[..p].iter().enumerate() {
        let Some(local) = part else { continue };
        let at = par::piece_start(n, p, 64, i) + local;
        let v = x[at];
        best = match best {
            None => Some((at, v)),
            // A NaN wins and the earliest NaN stays; otherwise strictly better wins,
            // so ties keep the earlier index.
            Some((_, b)) if b.is_nan() => best,
            Some(_) if v.is_nan() => Some((at, v)),
            Some((_, b)) if better(v, b) => Some((at, v)),
            keep => keep,
        };
    }
    best.map(|(i, _)| i)
}

fn empty_error(op: &str, shape: &[usize]) -> Error {
    Error::InvalidArgument(format!(
        "{op} of an empty array (shape {}) has no value",
        ShapeFmt(shape)
    ))
}

/// The float reductions behind [`Reduce`] for `f32` and `f64`.
mod float {
    use super::*;

    /// Inline for the small standard-layout case (a row view summed in a loop: the
    /// view's layout is read where it was just built, and nothing but the kernel is
    /// a call); everything else in [`sum_general`].
    #[inline]
    pub(super) fn sum<T: Element>(a: &ArrayBase<impl Data<Elem = T>>) -> T {
        // The kernel's identity is -0.0; NumPy's sum starts from +0.0, and
        // `x + 0.0` differs from `x` only for `x = -0.0`.
        match a.as_slice() {
            Some(x) if serial(x) => (T::table().sum)(x) + T::zero(),
            _ => sum_general(a),
        }
    }

    #[inline(never)]
    fn sum_general<T: Element>(a: &ArrayBase<impl Data<Elem = T>>) -> T {
        let x = contiguous(a);
        let k = T::table().sum;
        if serial(&x) {
            return k(&x) + T::zero();
        }
        let xs: &[T] = &x;
        let Some(mut total) = tree_sum(xs.len(), move |r| k(&xs[r])) else {
            return k(xs) + T::zero();
        };
        if total.is_nan() {
            // The kernel's NaN rule over the whole: its answer on the first NaN.
            if let Some(i) = x.iter().position(|v| v.is_nan()) {
                total = k(&x[i..=i]);
            }
        }
        total + T::zero()
    }

    pub(super) fn prod<T: Element>(a: &ArrayBase<impl Data<Elem = T>>) -> T {
        (T::table().prod)(&contiguous(a))
    }

    pub(super) fn max<T: Element>(a: &ArrayBase<impl Data<Elem = T>>) -> Result<T> {
        extreme(&contiguous(a), T::table().max).ok_or_else(|| empty_error("max", a.shape()))
    }

    pub(super) fn min<T: Element>(a: &ArrayBase<impl Data<Elem = T>>) -> Result<T> {
        extreme(&contiguous(a), T::table().min).ok_or_else(|| empty_error("min", a.shape()))
    }

    pub(super) fn argmax<T: Element>(a: &ArrayBase<impl Data<Elem = T>>) -> Result<usize> {
        arg_extreme(&contiguous(a), T::table().argmax, |v, b| v > b)
            .ok_or_else(|| empty_error("argmax", a.shape()))
    }

    pub(super) fn argmin<T: Element>(a: &ArrayBase<impl Data<Elem = T>>) -> Result<usize> {
        arg_extreme(&contiguous(a), T::table().argmin, |v, b| v < b)
            .ok_or_else(|| empty_error("argmin", a.shape()))
    }
}

macro_rules! float_reduce {
    ($($t:ty),*) => {$(
        impl Reduce for $t {
            type Acc = $t;
            type Mean = $t;
            fn mean_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> $t {
                float::sum(a) / a.len() as $t
            }
            fn fold_axis_of(a: ArrayView<'_, $t>, axis: isize, keepdims: bool, prod: bool) -> Result<Array<$t>> {
                let fold = if prod { axis::Fold::Prod } else { axis::Fold::Sum };
                axis::fold_axis(a, axis, keepdims, fold)
            }
            fn mean_axis_of(a: ArrayView<'_, $t>, axis: isize, keepdims: bool) -> Result<Array<$t>> {
                axis::mean_axis(a, axis, keepdims)
            }
            fn extreme_axis_of(a: ArrayView<'_, $t>, axis: isize, keepdims: bool, max: bool) -> Result<Array<$t>> {
                let fold = if max { axis::Fold::Max } else { axis::Fold::Min };
                axis::fold_axis(a, axis, keepdims, fold)
            }
            fn arg_axis_of(a: ArrayView<'_, $t>, axis: isize, keepdims: bool, max: bool) -> Result<Array<i64>> {
                axis::arg_axis(a, axis, keepdims, max)
            }
            #[inline]
            fn sum_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> $t {
                float::sum(a)
            }
            fn prod_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> $t {
                float::prod(a)
            }
            fn max_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> Result<$t> {
                float::max(a)
            }
            fn min_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> Result<$t> {
                float::min(a)
            }
            fn argmax_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> Result<usize> {
                float::argmax(a)
            }
            fn argmin_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> Result<usize> {
                float::argmin(a)
            }
        }
    )*};
}
float_reduce!(f32, f64);

/// The first index of the extreme of a totally ordered slice (`better(v, best)`
/// strictly: ties keep the first index, as NumPy's).
fn arg_ord<T: Copy>(x: &[T], better: impl Fn(T, T) -> bool) -> Option<usize> {
    let mut it = x.iter().enumerate();
    let (mut at, mut best) = it.next().map(|(i, &v)| (i, v))?;
    for (i, &v) in it {
        if better(v, best) {
            (at, best) = (i, v);
        }
    }
    Some(at)
}

/// The integer reductions: `sum` on the SIMD kernel (split on the pool when large;
/// wrapping addition is associative, so the bits do not depend on the split), the
/// others scalar loops that LLVM vectorises.
mod int {
    use super::*;

    pub(super) fn sum<T: IntElement>(a: &ArrayBase<impl Data<Elem = T>>) -> i64 {
        let x = contiguous(a);
        let k = T::int_table().sum;
        if serial(&x) {
            return k(&x);
        }
        let mut parts = [0i64; MAX_PIECES];
        match partials(&x, k, &mut parts) {
            None => k(&x),
            Some(p) => parts[..p].iter().fold(0i64, |s, &v| s.wrapping_add(v)),
        }
    }

    pub(super) fn prod<T: IntElement>(a: &ArrayBase<impl Data<Elem = T>>) -> i64 {
        contiguous(a)
            .iter()
            .fold(1i64, |s, &v| s.wrapping_mul(v.widen()))
    }
}

macro_rules! lane_reduce {
    ($t:ty) => {
        type Mean = f64;
        fn mean_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> f64 {
            // As NumPy: each element as float64, then the float sum.
            a.astype::<f64>().mean()
        }
        fn fold_axis_of(
            a: ArrayView<'_, $t>,
            axis: isize,
            keepdims: bool,
            prod: bool,
        ) -> Result<Array<i64>> {
            axis::lane_axis(a, axis, keepdims, None, |l| {
                Ok(if prod {
                    Self::prod_of(l)
                } else {
                    Self::sum_of(l)
                })
            })
        }
        fn mean_axis_of(a: ArrayView<'_, $t>, axis: isize, keepdims: bool) -> Result<Array<f64>> {
            a.astype::<f64>().mean_axis(axis, keepdims)
        }
        fn extreme_axis_of(
            a: ArrayView<'_, $t>,
            axis: isize,
            keepdims: bool,
            max: bool,
        ) -> Result<Array<$t>> {
            let op = if max { "max" } else { "min" };
            axis::lane_axis(a, axis, keepdims, Some(op), |l| {
                if max {
                    Self::max_of(l)
                } else {
                    Self::min_of(l)
                }
            })
        }
        fn arg_axis_of(
            a: ArrayView<'_, $t>,
            axis: isize,
            keepdims: bool,
            max: bool,
        ) -> Result<Array<i64>> {
            let op = if max { "argmax" } else { "argmin" };
            axis::lane_axis(a, axis, keepdims, Some(op), |l| {
                let i = if max {
                    Self::argmax_of(l)
                } else {
                    Self::argmin_of(l)
                }?;
                Ok(i as i64)
            })
        }
    };
}

macro_rules! int_reduce {
    ($($t:ty),*) => {$(
        impl Reduce for $t {
            type Acc = i64;
            lane_reduce!($t);
            fn sum_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> i64 {
                int::sum(a)
            }
            fn prod_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> i64 {
                int::prod(a)
            }
            fn max_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> Result<$t> {
                contiguous(a).iter().copied().max().ok_or_else(|| empty_error("max", a.shape()))
            }
            fn min_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> Result<$t> {
                contiguous(a).iter().copied().min().ok_or_else(|| empty_error("min", a.shape()))
            }
            fn argmax_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> Result<usize> {
                arg_ord(&contiguous(a), |v, b| v > b).ok_or_else(|| empty_error("argmax", a.shape()))
            }
            fn argmin_of<S: Data<Elem = $t>>(a: &ArrayBase<S>) -> Result<usize> {
                arg_ord(&contiguous(a), |v, b| v < b).ok_or_else(|| empty_error("argmin", a.shape()))
            }
        }
    )*};
}
int_reduce!(i32, i64, u8);

/// `bool` reduces as NumPy's: `sum` counts the `true`s, `prod` is 1 when all are
/// true, `max` is `any`, `min` is `all` (both errors when empty).
impl Reduce for bool {
    type Acc = i64;
    lane_reduce!(bool);
    fn sum_of<S: Data<Elem = bool>>(a: &ArrayBase<S>) -> i64 {
        a.count_nonzero() as i64
    }
    fn prod_of<S: Data<Elem = bool>>(a: &ArrayBase<S>) -> i64 {
        i64::from(a.all())
    }
    fn max_of<S: Data<Elem = bool>>(a: &ArrayBase<S>) -> Result<bool> {
        contiguous(a)
            .iter()
            .copied()
            .max()
            .ok_or_else(|| empty_error("max", a.shape()))
    }
    fn min_of<S: Data<Elem = bool>>(a: &ArrayBase<S>) -> Result<bool> {
        contiguous(a)
            .iter()
            .copied()
            .min()
            .ok_or_else(|| empty_error("min", a.shape()))
    }
    fn argmax_of<S: Data<Elem = bool>>(a: &ArrayBase<S>) -> Result<usize> {
        arg_ord(&contiguous(a), |v, b| v & !b).ok_or_else(|| empty_error("argmax", a.shape()))
    }
    fn argmin_of<S: Data<Elem = bool>>(a: &ArrayBase<S>) -> Result<usize> {
        arg_ord(&contiguous(a), |v, b| !v & b).ok_or_else(|| empty_error("argmin", a.shape()))
    }
}

impl<T: Reduce, S: Data<Elem = T>> ArrayBase<S> {
    /// The sum of all elements; `0` for an empty array (NumPy's `sum`).
    ///
    /// Integers (`i32`, `i64`, `u8`) and `bool` sum into an `i64` ([`Reduce::Acc`]),
    /// as NumPy's default on Linux: exact unless the total leaves `i64`, where it
    /// wraps (NumPy's does too). NumPy sums `u8` into a `uint64`: the same value
    /// until the total passes 2^63, which takes over 3·10^16 elements. A `bool`
    /// array's sum counts its `true`s.
    ///
    /// Floats: blocked pairwise summation in one fixed order: lanes of 256 bytes (32 `f64`,
    /// 64 `f32`) add blocks of 2 KiB, and the blocks are added pairwise. The order
    /// depends only on the length, so the bits are the same on every CPU tier and
    /// for every thread count. The error is at most
    /// `(8 + log2 L + ⌈log2(n/B)⌉)·u·Σ|x|` (`L` lanes, `B` = 256 `f64` or 512 `f32`
    /// per block, `u` the unit roundoff: `2⁻⁵³` for `f64`, `2⁻²⁴` for `f32`), no
    /// more than NumPy's pairwise sum; integer-valued data that fits the mantissa
    /// sums exactly. A NaN result is the first NaN of the array (quieted) when the
    /// array has one.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0, 2.0, 3.5]);
    /// assert_eq!(a.sum(), 6.5);
    /// assert_eq!(ndsimd::Array::<f64>::zeros(&[0]).sum(), 0.0);
    /// // 10^6 times 0.1 in f32: within a few ulps of the exact 100000.0015.
    /// let t = ndsimd::Array::from_vec(vec![0.1f32; 1_000_000]).sum();
    /// assert!((t - 100_000.0).abs() < 0.02);
    /// // Integers: in 64 bits, past i32's range.
    /// assert_eq!(ndsimd::Array::from_vec(vec![i32::MAX; 3]).sum(), 3 * i32::MAX as i64);
    /// ```
    #[inline]
    pub fn sum(&self) -> T::Acc {
        T::sum_of(self)
    }

    /// The product of all elements; `1` for an empty array. Floats: the same bits on
    /// every CPU tier; a NaN result is the first NaN of the array (quieted), as
    /// NumPy's. Integers and `bool`: in `i64`, wrapping on overflow as NumPy's (a
    /// `u8` product NumPy holds in `uint64` has the same bits).
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.5, 2.0, -3.0]);
    /// assert_eq!(a.prod(), -9.0);
    /// assert_eq!(ndsimd::Array::from_vec(vec![200u8, 200]).prod(), 40_000);
    /// ```
    pub fn prod(&self) -> T::Acc {
        T::prod_of(self)
    }

    /// The largest element: the first NaN if there is one (NaN propagates), and
    /// `+0` over `-0`. An empty array is an error. (`bool`: `true` if any is.)
    ///
    /// Unlike NumPy, the sign of a zero result is fixed: NumPy's `max` returns the
    /// sign of whichever zero its SIMD lanes meet last (`max([0.0]*63 + [-0.0])` is
    /// `-0.0` there), this one `+0.0` whenever any element is `+0.0`.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0, 7.0, -2.0]);
    /// assert_eq!(a.max().unwrap(), 7.0);
    /// assert!(ndsimd::Array::<f64>::zeros(&[0]).max().is_err());
    /// ```
    pub fn max(&self) -> Result<T> {
        T::max_of(self)
    }

    /// The smallest element: the first NaN if there is one, and `-0` under `+0`.
    /// An empty array is an error.
    ///
    /// Unlike NumPy, the sign of a zero result is fixed: `-0.0` whenever any element
    /// is `-0.0` (NumPy's depends on where the zeros sit, see [`max`](Self::max)).
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0, 7.0, -2.0]);
    /// assert_eq!(a.min().unwrap(), -2.0);
    /// ```
    pub fn min(&self) -> Result<T> {
        T::min_of(self)
    }

    /// The row-major (flattened) index of the first largest element, or of the
    /// first NaN (NumPy's `argmax`). An empty array is an error.
    ///
    /// ```
    /// assert_eq!(ndsimd::Array::from_vec(vec![5i64, 9, 9]).argmax().unwrap(), 1); // ties: the first
    /// let a = ndsimd::Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 9.0, 9.0]).unwrap();
    /// assert_eq!(a.argmax().unwrap(), 2);
    /// assert_eq!(a.t().argmax().unwrap(), 1); // [[1, 9], [2, 9]]
    /// ```
    pub fn argmax(&self) -> Result<usize> {
        T::argmax_of(self)
    }

    /// The row-major index of the first smallest element, or of the first NaN.
    /// An empty array is an error.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![3.0, f64::NAN, -1.0]);
    /// assert_eq!(a.argmin().unwrap(), 1);
    /// ```
    pub fn argmin(&self) -> Result<usize> {
        T::argmin_of(self)
    }
}

impl<T: Reduce, S: Data<Elem = T>> ArrayBase<S> {
    /// The arithmetic mean, `sum / n`; NaN for an empty array (NumPy's answer).
    /// For floats the sum is [`sum`](Self::sum)'s (same bits on every tier and
    /// thread count, same bound), then one rounding for the division. The integers
    /// and `bool` give `f64`, as NumPy: each element converted to `f64`, then
    /// summed as `f64` (so a mean of large `i64`s does not wrap as their `sum` does).
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0, 2.0, 6.0]);
    /// assert_eq!(a.mean(), 3.0);
    /// assert!(ndsimd::Array::<f64>::zeros(&[0]).mean().is_nan());
    /// assert_eq!(ndsimd::Array::from_vec(vec![1i32, 2]).mean(), 1.5);
    /// assert_eq!(ndsimd::Array::from_vec(vec![i64::MAX, i64::MAX]).mean(), 9.223372036854776e18);
    /// assert_eq!(ndsimd::Array::from_vec(vec![true, false, false, false]).mean(), 0.25);
    /// ```
    pub fn mean(&self) -> T::Mean {
        T::mean_of(self)
    }
}
