//! Views that only move a layout: `broadcast_to`, `index_axis`, and the lane
//! iterators (`rows`, `lanes`, `axis_iter`). None allocates up to the inline rank
//! of [`Dim`], so they can run in a hot loop.

use crate::array::{normalize_axis, ArrayBase, ArrayView, Data};
use crate::dim::{broadcast_strides, size_of_shape, Dim, Strides};
use crate::error::{Error, Result, ShapeFmt};

impl<S: Data> ArrayBase<S> {
    /// A read-only view of this array broadcast to `shape` (NumPy's
    /// `broadcast_to`): new leading axes and stretched length-1 axes get stride 0,
    /// so every copy of an element is the same memory.
    ///
    /// Errors with [`Error::ShapeMismatch`] (naming both shapes) when this array's
    /// shape does not broadcast to `shape`, and with [`Error::InvalidArgument`] when
    /// `shape` has more than `usize::MAX` elements (the view's `len` could not count
    /// them).
    ///
    /// ```
    /// use ndsimd::Array;
    /// let row = Array::from_vec(vec![1.0, 2.0, 3.0]);
    /// let b = row.broadcast_to(&[2, 3]).unwrap();
    /// assert_eq!(b.to_vec(), vec![1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    /// assert_eq!(b.strides(), &[0, 1]);
    /// let err = row.broadcast_to(&[2, 4]).unwrap_err();
    /// assert!(err.to_string().contains("shapes [3] and [2, 4]"));
    /// assert!(row.broadcast_to(&[1 << 40, 1 << 40, 3]).is_err());
    /// ```
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<ArrayView<'_, S::Elem>> {
        crate::array::check_ndim(shape.len())?;
        if size_of_shape(shape).is_none() {
            return Err(Error::InvalidArgument(format!(
                "broadcast_to: shape {} has more than usize::MAX elements",
                ShapeFmt(shape)
            )));
        }
        let from = self.shape();
        let fits = from.len() <= shape.len()
            && from
                .iter()
                .zip(&shape[shape.len() - from.len()..])
                .all(|(&f, &t)| f == t || f == 1);
        if !fits {
            return Err(Error::ShapeMismatch {
                op: "broadcast_to",
                lhs: from.to_vec(),
                rhs: shape.to_vec(),
            });
        }
        let strides = broadcast_strides(from, self.strides(), shape);
        let empty = shape.contains(&0);
        Ok(ArrayBase {
            data: self.data.storage(),
            offset: self.offset,
            dim: Dim::from_slice(shape),
            // An empty result reaches no element; its strides mean nothing.
            strides: if empty {
                Strides::filled(shape.len(), 0)
            } else {
                strides
            },
        })
    }

    /// The subview at `index` along `axis`, with that axis removed (NumPy's
    /// `a.take(index, axis)` as a view; negative `axis` and `index` count from the
    /// end).
    ///
    /// Errors when the axis or the index is out of range.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::<f64>::arange(0.0, 6.0, 1.0).unwrap().into_shape(&[2, 3]).unwrap();
    /// assert_eq!(a.index_axis(1, -1).unwrap().to_vec(), vec![2.0, 5.0]);
    /// assert_eq!(a.index_axis(0, 1).unwrap().to_vec(), vec![3.0, 4.0, 5.0]);
    /// assert!(a.index_axis(0, 2).is_err());
    /// ```
    pub fn index_axis(&self, axis: isize, index: isize) -> Result<ArrayView<'_, S::Elem>> {
        let ax = normalize_axis(axis, self.ndim())?;
        let len = self.dim[ax];
        let j = if index < 0 {
            index as i128 + len as i128
        } else {
            index as i128
        };
        if j < 0 || j >= len as i128 {
            return Err(Error::SliceOutOfRange {
                axis: ax,
                index,
                shape: self.shape().to_vec(),
            });
        }
        let mut v = self.view();
        // Inside the axis, so the element exists and its offset fits (an empty
        // array keeps its offset: it reaches no element).
        if !self.is_empty() {
            v.offset = (self.offset as isize + j as isize * self.strides[ax]) as usize;
        }
        v.dim.remove(ax);
        v.strides.remove(ax);
        Ok(v)
    }

    /// The 1-D views along `axis`, one for each index of the other axes, in
    /// row-major order of those (NumPy's `np.moveaxis(a, axis, -1)` rows).
    ///
    /// Errors when `axis` is out of range (a 0-d array has no lanes).
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::<f64>::arange(0.0, 6.0, 1.0).unwrap().into_shape(&[2, 3]).unwrap();
    /// let cols: Vec<Vec<f64>> = a.lanes(0).unwrap().map(|c| c.to_vec()).collect();
    /// assert_eq!(cols, vec![vec![0.0, 3.0], vec![1.0, 4.0], vec![2.0, 5.0]]);
    /// ```
    pub fn lanes(&self, axis: isize) -> Result<Lanes<'_, S::Elem>> {
        let ax = normalize_axis(axis, self.ndim())?;
        let mut outer = self.view();
        let lane_len = outer.dim[ax];
        let lane_stride = outer.strides[ax];
        outer.dim.remove(ax);
        outer.strides.remove(ax);
        Ok(Lanes::new(
            outer,
            Dim::from_slice(&[lane_len]),
            Strides::from_slice(&[lane_stride]),
        ))
    }

    /// The rows: the 1-D views along the last axis (a 1-D array is one row).
    ///
    /// Errors for a 0-d array.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::<f64>::arange(0.0, 6.0, 1.0).unwrap().into_shape(&[2, 3]).unwrap();
    /// let sums: Vec<f64> = a.rows().unwrap().map(|r| r.sum()).collect();
    /// assert_eq!(sums, vec![3.0, 12.0]);
    /// ```
    pub fn rows(&self) -> Result<Lanes<'_, S::Elem>> {
        self.lanes(-1)
    }

    /// The subviews along `axis` in index order (NumPy's iteration over
    /// `np.moveaxis(a, axis, 0)`), each with that axis removed.
    ///
    /// Errors when `axis` is out of range.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::<f64>::arange(0.0, 6.0, 1.0).unwrap().into_shape(&[2, 3]).unwrap();
    /// let firsts: Vec<Vec<f64>> = a.axis_iter(1).unwrap().map(|v| v.to_vec()).collect();
    /// assert_eq!(firsts, vec![vec![0.0, 3.0], vec![1.0, 4.0], vec![2.0, 5.0]]);
    /// ```
    pub fn axis_iter(&self, axis: isize) -> Result<Lanes<'_, S::Elem>> {
        let ax = normalize_axis(axis, self.ndim())?;
        let v = self.view();
        let outer = ArrayBase {
            data: v.data,
            offset: v.offset,
            dim: Dim::from_slice(&[v.dim[ax]]),
            strides: Strides::from_slice(&[v.strides[ax]]),
        };
        let mut inner_dim = v.dim;
        let mut inner_st = v.strides;
        inner_dim.remove(ax);
        inner_st.remove(ax);
        Ok(Lanes::new(outer, inner_dim, inner_st))
    }
}

/// An iterator of views of one layout (`inner`) at every index of an outer
/// layout, in row-major order of the outer axes: what [`rows`](ArrayBase::rows),
/// [`lanes`](ArrayBase::lanes) and [`axis_iter`](ArrayBase::axis_iter) return.
/// It allocates nothing up to the inline rank.
pub struct Lanes<'a, T> {
    data: &'a [T],
    outer_dim: Dim,
    outer_st: Strides,
    inner_dim: Dim,
    inner_st: Strides,
    idx: Dim,
    off: isize,
    remaining: usize,
    /// The whole array is empty: every view keeps the base offset (it reaches
    /// no element, and the outer strides may point past the data).
    empty: bool,
}

impl<'a, T: crate::DType> Lanes<'a, T> {
    fn new(outer: ArrayView<'a, T>, inner_dim: Dim, inner_st: Strides) -> Self {
        let remaining = outer.len();
        let empty = remaining == 0 || inner_dim.contains(&0);
        Lanes {
            data: outer.data,
            idx: Dim::filled(outer.dim.len(), 0),
            outer_dim: outer.dim,
            outer_st: outer.strides,
            inner_dim,
            inner_st,
            off: outer.offset as isize,
            remaining,
            empty,
        }
    }
}

impl<'a, T: crate::DType> Iterator for Lanes<'a, T> {
    type Item = ArrayView<'a, T>;

    #[inline]
    fn next(&mut self) -> Option<ArrayView<'a, T>> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let v = ArrayBase {
            data: self.data,
            offset: self.off as usize,
            dim: self.inner_dim.clone(),
            strides: self.inner_st.clone(),
        };
        if !self.empty {
            for ax in (0..self.outer_dim.len()).rev() {
                self.idx[ax] += 1;
                self.off += self.outer_st[ax];
                if self.idx[ax] < self.outer_dim[ax] {
                    break;
                }
                self.off -= self.outer_st[ax] * self.outer_dim[ax] as isize;
                self.idx[ax] = 0;
            }
        }
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T: crate::DType> ExactSizeIterator for Lanes<'_, T> {}

impl<'a, T: crate::DType> Lanes<'a, T> {
    /// The `k`-th view of a fresh iterator (`k < len`), found by unravelling `k`
    /// over the outer axes: what the parallel iterators hand each worker.
    #[cfg(feature = "rayon")]
    fn view_at(&self, k: usize) -> ArrayView<'a, T> {
        let mut off = self.off;
        if !self.empty {
            let mut rest = k;
            for ax in (0..self.outer_dim.len()).rev() {
                let d = self.outer_dim[ax];
                off += (rest % d) as isize * self.outer_st[ax];
                rest /= d;
            }
        }
        ArrayBase {
            data: self.data,
            offset: off as usize,
            dim: self.inner_dim.clone(),
            strides: self.inner_st.clone(),
        }
    }
}

/// Parallel iterators over lanes and subviews on rayon's pool (feature `rayon`).
#[cfg(feature = "rayon")]
mod parallel {
    use super::*;
    use rayon::prelude::*;

    /// The views of `lanes` as an indexed parallel iterator, in the same order.
    fn par<'a, T: crate::DType>(
        lanes: Lanes<'a, T>,
    ) -> impl IndexedParallelIterator<Item = ArrayView<'a, T>> + 'a {
        (0..lanes.len())
            .into_par_iter()
            .map(move |k| lanes.view_at(k))
    }

    impl<S: Data> ArrayBase<S> {
        /// [`rows`](Self::rows) as a rayon parallel iterator (feature `rayon`): the
        /// same views in the same order, handed to rayon's workers. Errors for a
        /// 0-d array.
        ///
        /// ```
        /// use ndsimd::Array;
        /// use rayon::prelude::*;
        /// let a = Array::<f64>::arange(0.0, 6.0, 1.0)?.into_shape(&[3, 2])?;
        /// let sums: Vec<f64> = a.par_rows()?.map(|r| r.sum()).collect();
        /// assert_eq!(sums, vec![1.0, 5.0, 9.0]);
        /// # Ok::<(), ndsimd::Error>(())
        /// ```
        pub fn par_rows(
            &self,
        ) -> Result<impl IndexedParallelIterator<Item = ArrayView<'_, S::Elem>>> {
            self.par_lanes(-1)
        }

        /// [`lanes`](Self::lanes) as a rayon parallel iterator (feature `rayon`).
        /// Errors when `axis` is out of range.
        ///
        /// ```
        /// use ndsimd::Array;
        /// use rayon::prelude::*;
        /// let a = Array::<i64>::from_shape_vec(&[2, 3], vec![1, 2, 3, 4, 5, 6])?;
        /// let cols: Vec<i64> = a.par_lanes(0)?.map(|c| c.sum()).collect();
        /// assert_eq!(cols, vec![5, 7, 9]);
        /// # Ok::<(), ndsimd::Error>(())
        /// ```
        pub fn par_lanes(
            &self,
            axis: isize,
        ) -> Result<impl IndexedParallelIterator<Item = ArrayView<'_, S::Elem>>> {
            Ok(par(self.lanes(axis)?))
        }

        /// [`axis_iter`](Self::axis_iter) as a rayon parallel iterator (feature
        /// `rayon`): the subviews at each index of `axis`, in order. Errors when
        /// `axis` is out of range.
        ///
        /// ```
        /// use ndsimd::Array;
        /// use rayon::prelude::*;
        /// let a = Array::<f64>::arange(0.0, 8.0, 1.0)?.into_shape(&[2, 2, 2])?;
        /// let firsts: Vec<Vec<f64>> = a.par_axis_iter(2)?.map(|v| v.to_vec()).collect();
        /// assert_eq!(firsts, vec![vec![0.0, 2.0, 4.0, 6.0], vec![1.0, 3.0, 5.0, 7.0]]);
        /// # Ok::<(), ndsimd::Error>(())
        /// ```
        pub fn par_axis_iter(
            &self,
            axis: isize,
        ) -> Result<impl IndexedParallelIterator<Item = ArrayView<'_, S::Elem>>> {
            Ok(par(self.axis_iter(axis)?))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{s, Array};

    #[test]
    fn lanes_match_slices_on_every_axis_of_a_strided_3d_view() {
        let a = Array::<f64>::arange(0.0, 60.0, 1.0)
            .unwrap()
            .into_shape(&[3, 4, 5])
            .unwrap();
        let v = a.slice(s![..;-1, 1..;2, ..]).unwrap();
        for ax in 0..3 {
            let lanes: Vec<Vec<f64>> = v.lanes(ax).unwrap().map(|l| l.to_vec()).collect();
            let moved = v
                .permute_axes(&match ax {
                    0 => [1, 2, 0],
                    1 => [0, 2, 1],
                    _ => [0, 1, 2],
                })
                .unwrap();
            let expect: Vec<f64> = moved.to_vec();
            let n = v.shape()[ax as usize];
            assert_eq!(lanes.len(), v.len() / n);
            assert_eq!(lanes.concat(), expect, "axis {ax}");
            let subs: Vec<f64> = v.axis_iter(ax).unwrap().flat_map(|s| s.to_vec()).collect();
            let moved0 = v
                .permute_axes(&match ax {
                    0 => [0, 1, 2],
                    1 => [1, 0, 2],
                    _ => [2, 0, 1],
                })
                .unwrap();
            assert_eq!(subs, moved0.to_vec(), "axis_iter {ax}");
        }
    }

    #[test]
    fn empty_arrays_give_empty_lanes_without_bad_offsets() {
        let a = Array::<f64>::zeros(&[3, 0]);
        let rows: Vec<usize> = a.rows().unwrap().map(|r| r.len()).collect();
        assert_eq!(rows, vec![0, 0, 0]);
        assert_eq!(a.lanes(0).unwrap().count(), 0);
        assert!(Array::<f64>::zeros(&[]).rows().is_err());
        let one = Array::from_vec(vec![1.0]);
        let b = one.broadcast_to(&[0, 1]).unwrap();
        assert_eq!(b.shape(), &[0, 1]);
        assert_eq!(b.to_vec(), Vec::<f64>::new());
    }
}
