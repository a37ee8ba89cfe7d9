//! Stable sorting along an axis: `sort`, `sort_axis`, `argsort`, `argsort_axis`.
//!
//! The order is NumPy's: ascending, NaN after everything (NaNs keep their input
//! order), `-0.0` and `+0.0` equal (so they keep their input order too). Sorts
//! are stable, so the results equal NumPy's `kind="stable"` exactly.

use super::select::is_nan;
use crate::array::{normalize_axis, Array, ArrayBase, Data};
use crate::dim::c_strides;
use crate::ops::closures::{collect_array, for_each_offset};
use crate::DType;
use std::cmp::Ordering;

/// NumPy's sort order: NaN last, otherwise `<`.
#[inline]
fn nan_last<T: PartialOrd + Copy>(a: &T, b: &T) -> Ordering {
    match (is_nan(*a), is_nan(*b)) {
        (false, false) => a.partial_cmp(b).unwrap_or(Ordering::Equal),
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    }
}

impl<T: DType + PartialOrd, S: Data<Elem = T>> ArrayBase<S> {
    /// The elements sorted along `axis` (negative counts from the end) into a new
    /// array of the same shape: NumPy's `sort(a, axis, kind="stable")`, NaN last.
    /// Errors with [`Error::AxisOutOfRange`](crate::Error::AxisOutOfRange).
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 3], vec![3.0, f64::NAN, 1.0, 0.0, -1.0, 2.0]).unwrap();
    /// let s = a.sort_axis(-1).unwrap();
    /// assert_eq!(s.to_vec()[..2], [1.0, 3.0]);
    /// assert!(s.to_vec()[2].is_nan());
    /// assert_eq!(a.sort_axis(0).unwrap().to_vec()[..3], [0.0, -1.0, 1.0]);
    /// ```
    pub fn sort_axis(&self, axis: isize) -> crate::Result<Array<T>> {
        let ax = normalize_axis(axis, self.ndim())?;
        let mut out = self.swap_last(ax).to_owned();
        if let Some(s) = out.as_slice_mut() {
            let n = out_lane(s.len(), self.shape()[ax]);
            for lane in s.chunks_exact_mut(n) {
                lane.sort_by(nan_last);
            }
        }
        Ok(out.swapped_back(ax))
    }

    /// The elements flattened in row-major order and sorted (NumPy's
    /// `sort(a, axis=None)`), NaN last.
    ///
    /// ```
    /// let a = ndsimd::Array::from_shape_vec(&[2, 2], vec![4.0, 1.0, 3.0, 2.0]).unwrap();
    /// assert_eq!(a.sort().to_vec(), vec![1.0, 2.0, 3.0, 4.0]);
    /// ```
    pub fn sort(&self) -> Array<T> {
        let mut v = self.flatten();
        if let Some(s) = v.as_slice_mut() {
            s.sort_by(nan_last);
        }
        v
    }

    /// The indices that sort each lane along `axis` (negative counts from the end):
    /// NumPy's `argsort(a, axis, kind="stable")`, NaN last, ties in input order.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 3], vec![3.0, 1.0, 2.0, 1.0, 1.0, 0.0]).unwrap();
    /// assert_eq!(a.argsort_axis(1).unwrap().to_vec(), vec![1, 2, 0, 2, 0, 1]);
    /// assert_eq!(a.argsort_axis(0).unwrap().to_vec(), vec![1, 0, 1, 0, 1, 0]);
    /// ```
    pub fn argsort_axis(&self, axis: isize) -> crate::Result<Array<i64>> {
        let ax = normalize_axis(axis, self.ndim())?;
        let moved = self.swap_last(ax);
        let n = self.shape()[ax];
        let total = self.len();
        let mut idx = vec![0usize; total];
        if n > 0 {
            let vals = moved.to_vec();
            let mut pairs: Vec<(T, usize)> = Vec::with_capacity(n);
            for (lane, out) in vals.chunks_exact(n).zip(idx.chunks_exact_mut(n)) {
                if n >= RADIX_MIN && u32::try_from(n).is_ok() {
                    if let Some(keys) = float_keys(lane) {
                        radix_argsort(keys, out);
                        continue;
                    }
                }
                pairs.clear();
                pairs.extend(lane.iter().copied().zip(0..));
                pairs.sort_by(|a, b| nan_last(&a.0, &b.0));
                for (o, p) in out.iter_mut().zip(&pairs) {
                    *o = p.1;
                }
            }
        }
        // Lanes are laid out along the last axis: put `ax` back where it was.
        let last = self.ndim() - 1;
        if ax == last {
            return Ok(indices(self.shape(), idx));
        }
        let mut st = c_strides(moved.shape());
        st.swap(ax, last);
        let mut back = Vec::with_capacity(total);
        for_each_offset(self.shape(), &st, 0, |o| back.push(idx[o]));
        Ok(indices(self.shape(), back))
    }

    /// The indices that sort the row-major flattened array (NumPy's
    /// `argsort(a, axis=None, kind="stable")`).
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![2.0, f64::NAN, 1.0, 2.0]);
    /// assert_eq!(a.argsort().to_vec(), vec![2, 0, 3, 1]);
    /// ```
    pub fn argsort(&self) -> Array<i64> {
        let flat = self.flatten();
        flat.argsort_axis(0).expect("a 1-D array has axis 0")
    }

    /// A view with axis `ax` moved to the end by swapping it with the last.
    fn swap_last(&self, ax: usize) -> crate::ArrayView<'_, T> {
        let mut v = self.view();
        let last = v.ndim() - 1;
        v.dim.swap(ax, last);
        v.strides.swap(ax, last);
        v
    }
}

impl<T: DType> Array<T> {
    /// The inverse of `swap_last`: swap the last axis back to `ax`, copied into
    /// standard layout.
    fn swapped_back(self, ax: usize) -> Array<T> {
        let last = self.ndim() - 1;
        if ax == last {
            return self;
        }
        let mut v = self.view();
        v.dim.swap(ax, last);
        v.strides.swap(ax, last);
        collect_array(v.shape(), v.iter().copied()).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// Lanes from this length up are argsorted by radix when the element type has
/// order-preserving keys (below it, the comparison sort is as fast).
pub(crate) const RADIX_MIN: usize = 256;

/// Unsigned keys whose order is NumPy's sort order for a float lane (NaN last,
/// `-0.0` equal to `+0.0`), or `None` for a type without such keys.
fn float_keys<T: DType>(lane: &[T]) -> Option<Vec<u64>> {
    use std::any::{Any, TypeId};
    // Sign-magnitude to an unsigned order: negatives flipped, positives offset.
    fn key(bits: u64, sign: u64) -> u64 {
        if bits & sign != 0 {
            !bits
        } else {
            bits | sign
        }
    }
    let t = TypeId::of::<T>();
    if t == TypeId::of::<f64>() {
        let f = |x: &T| *(x as &dyn Any).downcast_ref::<f64>().expect("f64");
        Some(
            lane.iter()
                .map(|x| match f(x) {
                    v if v.is_nan() => u64::MAX,
                    v => key((v + 0.0).to_bits(), 1 << 63),
                })
                .collect(),
        )
    } else if t == TypeId::of::<f32>() {
        let f = |x: &T| *(x as &dyn Any).downcast_ref::<f32>().expect("f32");
        Some(
            lane.iter()
                .map(|x| match f(x) {
                    v if v.is_nan() => u64::from(u32::MAX),
                    v => key(u64::from((v + 0.0).to_bits()), 1 << 31) & u64::from(u32::MAX),
                })
                .collect(),
        )
    } else {
        None
    }
}

/// A stable LSD radix argsort of `keys` (11-bit digits; a pass whose digit is the
/// same for every key is skipped, so `f32` keys take three passes) into `out`.
pub(crate) fn radix_argsort(keys: Vec<u64>, out: &mut [usize]) {
    const BITS: u32 = 11;
    const B: usize = 1 << BITS;
    const PASSES: usize = 6;
    let n = keys.len();
    let mut hist = vec![[0usize; B]; PASSES];
    for &k in &keys {
        for (p, h) in hist.iter_mut().enumerate() {
            h[(k >> (p as u32 * BITS)) as usize & (B - 1)] += 1;
        }
    }
    let mut keys = keys;
    let mut idx: Vec<u32> = (0..n as u32).collect();
    let (mut k2, mut i2) = (vec![0u64; n], vec![0u32; n]);
    for (p, h) in hist.iter_mut().enumerate() {
        if h.contains(&n) {
            continue;
        }
        let mut sum = 0;
        for c in h.iter_mut() {
            let t = *c;
            *c = sum;
            sum += t;
        }
        let shift = p as u32 * BITS;
        for (&k, &i) in keys.iter().zip(&idx) {
            let d = (k >> shift) as usize & (B - 1);
            let pos = h[d];
            h[d] += 1;
            k2[pos] = k;
            i2[pos] = i;
        }
        std::mem::swap(&mut keys, &mut k2);
        std::mem::swap(&mut idx, &mut i2);
    }
    for (o, &i) in out.iter_mut().zip(&idx) {
        *o = i as usize;
    }
}

/// The lane length for chunking `len` elements (1 for empty lanes, whose chunks
/// are then never visited since `len` is 0).
fn out_lane(len: usize, n: usize) -> usize {
    if n == 0 {
        debug_assert_eq!(len, 0);
        1
    } else {
        n
    }
}

/// An index array of `shape` over row-major `idx`, as NumPy's `int64` indices.
pub(crate) fn indices(shape: &[usize], idx: Vec<usize>) -> Array<i64> {
    Array::from_parts_standard(shape, idx.into_iter().map(|i| i as i64).collect())
}
