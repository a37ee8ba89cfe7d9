//! Running sums and products: `cumsum`, `cumprod`, flat and along an axis.
//!
//! Each element is the previous result combined with the next input, in axis
//! order (`out[0] = x[0]`, `out[i] = out[i-1] + x[i]`), which is NumPy's
//! `add.accumulate`, so results are bit-identical to NumPy's.

use crate::array::{normalize_axis, try_filled, Array, ArrayBase, Data};
use crate::error::Result;
use crate::ops::select::standard;
use crate::DType;
use std::ops::{Add, Mul};

/// Scans `x` into `out` (same length) with `f`, starting from `x[0]`.
#[inline]
fn scan_into<T: Copy>(x: &[T], out: &mut [T], f: impl Fn(T, T) -> T) {
    let mut it = x.iter().zip(out.iter_mut());
    if let Some((&x0, o0)) = it.next() {
        let mut acc = x0;
        *o0 = acc;
        for (&x, o) in it {
            acc = f(acc, x);
            *o = acc;
        }
    }
}

/// The scan of `a` along axis `ax` into a new standard array.
fn scan_axis<T: DType>(
    a: &ArrayBase<impl Data<Elem = T>>,
    ax: usize,
    f: impl Fn(T, T) -> T,
) -> Result<Array<T>> {
    let shape = a.shape().to_vec();
    let mut out = try_filled(&shape, T::default())?;
    let dst = out.payload_mut();
    if dst.is_empty() {
        return Ok(Array::from_aligned(&shape, out));
    }
    let v = a.view();
    let src = standard(&v);
    let n = shape[ax];
    let inner: usize = shape[ax + 1..].iter().product();
    if inner == 1 {
        for (x, o) in src.chunks_exact(n).zip(dst.chunks_exact_mut(n)) {
            scan_into(x, o, &f);
        }
    } else {
        // Whole rows at a time: row j is row j-1 combined with input row j.
        for (x, o) in src
            .chunks_exact(n * inner)
            .zip(dst.chunks_exact_mut(n * inner))
        {
            o[..inner].copy_from_slice(&x[..inner]);
            for j in 1..n {
                let (done, rest) = o.split_at_mut(j * inner);
                let prev = &done[(j - 1) * inner..];
                for ((d, &p), &xi) in rest[..inner].iter_mut().zip(prev).zip(&x[j * inner..]) {
                    *d = f(p, xi);
                }
            }
        }
    }
    Ok(Array::from_aligned(&shape, out))
}

/// The scan of the row-major flattened `a`.
fn scan_flat<T: DType>(
    a: &ArrayBase<impl Data<Elem = T>>,
    f: impl Fn(T, T) -> T,
) -> Result<Array<T>> {
    let n = a.len();
    let mut out = try_filled(&[n], T::default())?;
    let v = a.view();
    scan_into(&standard(&v), out.payload_mut(), f);
    Ok(Array::from_aligned(&[n], out))
}

impl<T: DType + Add<Output = T>, S: Data<Elem = T>> ArrayBase<S> {
    /// NumPy's `cumsum(a)`: running sums of the row-major flattened array, as a
    /// 1-D array of the same length. Bit-identical to NumPy (the same sequential
    /// order). Errors only when the result cannot be allocated.
    ///
    /// ```
    /// let a = ndsimd::Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(a.cumsum().unwrap().to_vec(), vec![1.0, 3.0, 6.0, 10.0]);
    /// ```
    pub fn cumsum(&self) -> Result<Array<T>> {
        scan_flat(self, |a, b| a + b)
    }

    /// NumPy's `cumsum(a, axis)`: running sums along `axis` (negative counts from
    /// the end), same shape; [`Error::AxisOutOfRange`](crate::Error::AxisOutOfRange)
    /// for a bad axis.
    ///
    /// ```
    /// let a = ndsimd::Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(a.cumsum_axis(0).unwrap().to_vec(), vec![1.0, 2.0, 4.0, 6.0]);
    /// assert_eq!(a.cumsum_axis(-1).unwrap().to_vec(), vec![1.0, 3.0, 3.0, 7.0]);
    /// ```
    pub fn cumsum_axis(&self, axis: isize) -> Result<Array<T>> {
        let ax = normalize_axis(axis, self.ndim())?;
        scan_axis(self, ax, |a, b| a + b)
    }
}

impl<T: DType + Mul<Output = T>, S: Data<Elem = T>> ArrayBase<S> {
    /// NumPy's `cumprod(a)`: running products of the row-major flattened array.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(a.cumprod().unwrap().to_vec(), vec![1.0, 2.0, 6.0, 24.0]);
    /// ```
    pub fn cumprod(&self) -> Result<Array<T>> {
        scan_flat(self, |a, b| a * b)
    }

    /// NumPy's `cumprod(a, axis)`: running products along `axis`.
    ///
    /// ```
    /// let a = ndsimd::Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(a.cumprod_axis(0).unwrap().to_vec(), vec![1.0, 2.0, 3.0, 8.0]);
    /// ```
    pub fn cumprod_axis(&self, axis: isize) -> Result<Array<T>> {
        let ax = normalize_axis(axis, self.ndim())?;
        scan_axis(self, ax, |a, b| a * b)
    }
}
