//! Composite ops built on the transcendental kernels: `softmax`, `log_softmax`,
//! `logsumexp` along an axis and the elementwise `sigmoid`, each stable for any
//! finite input (the row maximum is subtracted before `exp`, so nothing overflows
//! for inputs up to ±1e300 and beyond).
//!
//! Built from the axis machinery (`max_axis`, `exp`, `sum_axis`), which reads the
//! data a few times; `softmax` and `log_softmax` along the last axis of a
//! contiguous array visit each row once while it is in cache (max; `exp(x - max)`
//! written while summing; then a multiply by the sum's reciprocal, or the
//! subtraction), the rows over the pool. The sums' order differs from the
//! general path's, and softmax's reciprocal rounds once more than its division.
//! Non-finite rows follow SciPy's `scipy.special` functions: a row maximum that is
//! not finite shifts by 0, so a NaN row gives NaN, an all-`-inf` row gives NaN
//! for `softmax`/`log_softmax` and `-inf` for `logsumexp`, and a `+inf` gives NaN
//! where it stands in `softmax` and `+inf` in `logsumexp`.

use crate::array::{normalize_axis, Array, ArrayBase, Data};
use crate::error::Result;
use crate::Element;
use ndsimd_kernels::par;
use num_traits::Float;

impl<T: Element, S: Data<Elem = T>> ArrayBase<S> {
    /// The row maxima along `axis` (kept, length 1), with the non-finite ones
    /// replaced by 0: the shift that keeps `exp` in range. `None` for an empty axis.
    fn softmax_shift(&self, axis: isize) -> Result<Option<Array<T>>> {
        let ax = normalize_axis(axis, self.ndim())?;
        if self.shape()[ax] == 0 {
            return Ok(None);
        }
        let mut m = self.max_axis(axis, true)?;
        m.mapv_inplace(|v| if Float::is_finite(v) { v } else { T::zero() });
        Ok(Some(m))
    }

    /// The contiguous rows `x` of length `c` (the last axis) in one visit each:
    /// the row's shift (its maximum, 0 when that is not finite), `exp(x - shift)`
    /// written out with its sum, and `then(row, shift, sum, out_row)`.
    fn rows_pass(
        &self,
        x: &[T],
        c: usize,
        then: &par::RowFinish<T>,
    ) -> ndsimd_kernels::mem::Aligned<T> {
        let t = T::table();
        let shift = |row: &[T]| {
            let m = (t.max)(row).expect("the row is not empty");
            if Float::is_finite(m) {
                m
            } else {
                T::zero()
            }
        };
        par::collect_row_passes(
            x,
            c,
            super::math::pieces(x.len()),
            t.exp_shift_sum,
            &shift,
            then,
        )
    }

    /// `exp(x - max)` along `axis` and its row sums (kept, length 1).
    fn shifted_exp(&self, axis: isize, m: &Array<T>) -> Result<(Array<T>, Array<T>)> {
        let mut e = self.sub(m)?;
        e.exp_assign();
        let s = e.sum_axis(axis, true)?;
        Ok((e, s))
    }

    /// SciPy's `softmax(x, axis)`: `exp(x - max) / sum(exp(x - max))` along `axis`
    /// (negative counts from the end), so each row sums to 1 within `n·ε` and no
    /// input overflows. An empty axis gives an empty array of the same shape; the
    /// module doc has the rules for non-finite rows.
    /// Errors with [`Error::AxisOutOfRange`](crate::Error::AxisOutOfRange).
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![0.0, 0.0, 1e300, -1e300])?;
    /// assert_eq!(a.softmax(1)?.to_vec(), vec![0.5, 0.5, 1.0, 0.0]);
    /// assert!(a.softmax(2).is_err());
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn softmax(&self, axis: isize) -> Result<Array<T>> {
        let ax = normalize_axis(axis, self.ndim())?;
        let c = self.shape()[ax];
        if let (true, Some(x)) = (ax + 1 == self.ndim() && c > 0, self.as_slice()) {
            // Contiguous rows: one visit per row while it is in cache (max, then
            // `exp(x - max)` written out while summing, then the division).
            let t = T::table();
            let v = self.rows_pass(x, c, &|_, _, sum, o| (t.mul.assign_vs)(o, T::one() / sum));
            return Ok(Array::from_aligned(self.shape(), v));
        }
        let Some(m) = self.softmax_shift(axis)? else {
            return Ok(Array::zeros(self.shape()));
        };
        let (mut e, s) = self.shifted_exp(axis, &m)?;
        e.try_div_assign(&s)?;
        Ok(e)
    }

    /// SciPy's `log_softmax(x, axis)`: `x - max - log(sum(exp(x - max)))` along
    /// `axis`, accurate where `softmax(x).log()` would round to `-inf`. The rules of
    /// [`softmax`](Self::softmax) for empty axes and non-finite rows.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![0.0, -1000.0]);
    /// assert_eq!(a.log_softmax(0)?.to_vec(), vec![0.0, -1000.0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn log_softmax(&self, axis: isize) -> Result<Array<T>> {
        let ax = normalize_axis(axis, self.ndim())?;
        let c = self.shape()[ax];
        if let (true, Some(x)) = (ax + 1 == self.ndim() && c > 0, self.as_slice()) {
            // Contiguous rows: `x - (max + log(sum))` in one visit per row, the
            // general path's steps (the same formula) while the row is in cache.
            let t = T::table();
            let v = self.rows_pass(x, c, &|row, m, sum, o| {
                let mut l = [T::zero()];
                (t.log.map)(&[sum], &mut l);
                (t.sub.vs)(row, l[0] + m, o)
            });
            return Ok(Array::from_aligned(self.shape(), v));
        }
        let Some(m) = self.softmax_shift(axis)? else {
            return Ok(Array::zeros(self.shape()));
        };
        let (_, mut s) = self.shifted_exp(axis, &m)?;
        s.log_assign();
        s.try_add_assign(&m)?;
        self.sub(&s)
    }

    /// SciPy's `logsumexp(x, axis, keepdims)`: `max + log(sum(exp(x - max)))` along
    /// `axis`, finite for any finite input. An empty axis gives `-inf` (the log of
    /// an empty sum); the module doc has the rules for non-finite rows.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![1000.0, 1000.0, 0.0, f64::NEG_INFINITY])?;
    /// let r = a.logsumexp(1, false)?.to_vec();
    /// assert_eq!(r, vec![1000.0 + 2f64.ln(), 0.0]);
    /// assert_eq!(Array::<f64>::zeros(&[2, 0]).logsumexp(1, false)?.to_vec(), vec![f64::NEG_INFINITY; 2]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn logsumexp(&self, axis: isize, keepdims: bool) -> Result<Array<T>> {
        let Some(m) = self.softmax_shift(axis)? else {
            // `sum_axis` of an empty axis is 0: its log is `-inf`, shaped right.
            let mut s = self.sum_axis(axis, keepdims)?;
            s.log_assign();
            return Ok(s);
        };
        let (_, mut s) = self.shifted_exp(axis, &m)?;
        s.log_assign();
        s.try_add_assign(&m)?;
        if keepdims {
            return Ok(s);
        }
        let shape: Vec<usize> = self
            .shape()
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != normalize_axis(axis, self.ndim()).unwrap_or(usize::MAX))
            .map(|(_, &d)| d)
            .collect();
        Array::from_shape_vec(&shape, s.to_vec())
    }

    /// The logistic function `1 / (1 + exp(-x))` of every element, stable for any
    /// `x`: computed as `e / (1 + e)` with `e = exp(-|x|)` below 0, so no `exp`
    /// overflows and tiny results keep their precision (`sigmoid(-800)` is
    /// `exp(-800)`, not 0). NaN for NaN.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let s = Array::from_vec(vec![0.0, 1000.0, -1000.0, -40.0]).sigmoid().to_vec();
    /// assert_eq!(s[..3], [0.5, 1.0, 0.0]);
    /// assert_eq!(s[3], (-40f64).exp() / (1.0 + (-40f64).exp()));
    /// ```
    pub fn sigmoid(&self) -> Array<T> {
        let mut e = self.mapv(|v| -Float::abs(v));
        e.exp_assign();
        let x = self.to_owned();
        let one = T::one();
        let mut out = e.clone();
        for ((o, &ev), &xv) in out.iter_mut().zip(e.iter()).zip(x.iter()) {
            let r = one / (one + ev);
            *o = if xv >= T::zero() { r } else { ev / (one + ev) };
            if xv.is_nan() {
                *o = xv;
            }
        }
        out
    }
}
