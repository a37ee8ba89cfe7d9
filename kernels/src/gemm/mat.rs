//! Matrix views: a slice, an offset, a shape and two element strides, checked once
//! when the view is made so that the driver can address elements without checks.

use std::fmt;

/// A read-only matrix view: element `(i, j)` is
/// `data[offset + i * row_stride + j * col_stride]`.
///
/// Strides are in elements and may be negative or zero (a zero stride repeats a row
/// or a column: a broadcast operand), in any order (row-major, column-major, a
/// transposed or sliced view). [`MatRef::new`] checks that every element lies inside
/// `data`.
///
/// ```
/// use ndsimd_kernels::gemm::MatRef;
/// let data = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let a = MatRef::new(&data, 0, 2, 3, 3, 1).unwrap(); // 2x3, row-major
/// let at = MatRef::new(&data, 0, 3, 2, 1, 3).unwrap(); // its transpose
/// assert_eq!((a.rows(), a.cols(), at.rows(), at.cols()), (2, 3, 3, 2));
/// assert!(MatRef::new(&data, 1, 2, 3, 3, 1).is_none()); // one past the end
/// ```
#[derive(Clone, Copy)]
pub struct MatRef<'a, T> {
    pub(super) data: &'a [T],
    pub(super) offset: usize,
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) rs: isize,
    pub(super) cs: isize,
}

/// A writable matrix view, laid out as [`MatRef`]; no two elements of it share
/// memory.
///
/// ```
/// use ndsimd_kernels::gemm::MatMut;
/// let mut data = [0.0f32; 12];
/// assert!(MatMut::new(&mut data, 0, 3, 4, 1, 3).is_some()); // column-major 3x4
/// assert!(MatMut::new(&mut data, 0, 3, 4, 1, 2).is_none()); // (2, 0) is (0, 1)
/// assert!(MatMut::new(&mut data, 0, 3, 1, 4, 0).is_some()); // one column: any cs
/// ```
pub struct MatMut<'a, T> {
    pub(super) data: &'a mut [T],
    pub(super) offset: usize,
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) rs: isize,
    pub(super) cs: isize,
}

/// Whether every element of the layout lies in `0..len` (always, for an empty one).
#[inline]
fn in_bounds(len: usize, offset: usize, rows: usize, cols: usize, rs: isize, cs: isize) -> bool {
    if rows == 0 || cols == 0 {
        return true;
    }
    // Non-negative strides (nearly every call): the last element is the farthest, in
    // plain checked arithmetic; an overflow cannot be in bounds.
    if rs >= 0 && cs >= 0 {
        let last = (rows - 1)
            .checked_mul(rs as usize)
            .zip((cols - 1).checked_mul(cs as usize))
            .and_then(|(r, c)| r.checked_add(c)?.checked_add(offset));
        return last.is_some_and(|last| last < len);
    }
    // In i128 with checks: a reach that overflows even i128 is far beyond any slice
    // (a plain i128 sum of two such reaches wrapped and passed a huge layout).
    let reach = |n: usize, s: isize| (n as i128 - 1).checked_mul(s as i128);
    let (Some(r), Some(c)) = (reach(rows, rs), reach(cols, cs)) else {
        return false;
    };
    let lo = (offset as i128)
        .checked_add(r.min(0))
        .and_then(|l| l.checked_add(c.min(0)));
    let hi = (offset as i128)
        .checked_add(r.max(0))
        .and_then(|h| h.checked_add(c.max(0)));
    matches!((lo, hi), (Some(lo), Some(hi)) if lo >= 0 && hi < len as i128)
}

/// Whether every element of a layout of any number of `(length, stride)` axes lies
/// in `0..len` (always, for an empty one): [`in_bounds`] for the batches.
pub(super) fn in_bounds_axes(
    len: usize,
    offset: usize,
    axes: impl Iterator<Item = (usize, isize)> + Clone,
) -> bool {
    if axes.clone().any(|(n, _)| n == 0) {
        return true;
    }
    // i128 holds every product and sum of a few axes without overflow.
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (n, s) in axes {
        let r = (n as i128 - 1) * s as i128;
        lo += r.min(0);
        hi += r.max(0);
    }
    lo >= 0 && hi < len as i128
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Whether two distinct `(i, j)` address the same element, decided exactly.
///
/// With both extents above one and both strides non-zero, `i*rs + j*cs = i'*rs + j'*cs`
/// for distinct pairs means `|di|*|rs| = |dj|*|cs|` with `0 < |di| < rows` and
/// `0 < |dj| < cols`; the smallest solution is `|di| = |cs|/g`, `|dj| = |rs|/g` with
/// `g = gcd(|rs|, |cs|)`, so there is one exactly when that pair fits. (So interleaved
/// layouts that never collide, such as strides (2, 3) on a 3x2 matrix, are accepted.)
#[inline]
pub(super) fn overlaps(rows: usize, cols: usize, rs: isize, cs: isize) -> bool {
    if rows == 0 || cols == 0 {
        return false;
    }
    if (rows > 1 && rs == 0) || (cols > 1 && cs == 0) {
        return true;
    }
    if rows == 1 || cols == 1 {
        return false;
    }
    let (a, b) = (rs.unsigned_abs(), cs.unsigned_abs());
    // A unit stride (the usual layouts) needs no gcd and no division: `g == 1`.
    if a == 1 || b == 1 {
        return b < rows && a < cols;
    }
    let g = gcd(a, b);
    b / g < rows && a / g < cols
}

impl<'a, T> MatRef<'a, T> {
    /// A `rows x cols` view of `data` whose element `(i, j)` is
    /// `data[offset + i * row_stride + j * col_stride]`; `None` if any element lies
    /// outside `data` (an empty view, `rows * cols == 0`, is always accepted).
    pub fn new(
        data: &'a [T],
        offset: usize,
        rows: usize,
        cols: usize,
        row_stride: isize,
        col_stride: isize,
    ) -> Option<Self> {
        in_bounds(data.len(), offset, rows, cols, row_stride, col_stride).then_some(MatRef {
            data,
            offset,
            rows,
            cols,
            rs: row_stride,
            cs: col_stride,
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }
}

impl<'a, T> MatMut<'a, T> {
    /// A writable `rows x cols` view, as [`MatRef::new`]; `None` also when two
    /// distinct elements would share memory (a zero stride on an axis longer than
    /// one, or strides that make rows and columns collide). The overlap check is
    /// exact: a layout is refused only if it really aliases.
    pub fn new(
        data: &'a mut [T],
        offset: usize,
        rows: usize,
        cols: usize,
        row_stride: isize,
        col_stride: isize,
    ) -> Option<Self> {
        let ok = in_bounds(data.len(), offset, rows, cols, row_stride, col_stride)
            && !overlaps(rows, cols, row_stride, col_stride);
        ok.then_some(MatMut {
            data,
            offset,
            rows,
            cols,
            rs: row_stride,
            cs: col_stride,
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }
}

/// A checked view as the driver uses it: the address of element `(0, 0)` and the
/// strides. Shared with the pool's workers, which only read it (see `Send`/`Sync`).
#[derive(Clone, Copy)]
pub(crate) struct Raw<T> {
    pub ptr: *const T,
    pub rs: isize,
    pub cs: isize,
}

/// [`Raw`] for the output. Workers write disjoint sets of its elements.
#[derive(Clone, Copy)]
pub(crate) struct RawMut<T> {
    pub ptr: *mut T,
    pub rs: isize,
    pub cs: isize,
}

// SAFETY: a `Raw` is made from a `MatRef` borrowed for the whole product (so the data
// is `Sync` as a `&[T]` is, `T` being `f32`/`f64`) and is only read through.
unsafe impl<T: Sync> Send for Raw<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Sync> Sync for Raw<T> {}
// SAFETY: a `RawMut` is made from a `MatMut` borrowed mutably for the whole product;
// the driver hands each worker a disjoint set of elements (distinct `(i, j)` are
// distinct elements: `MatMut::new` checked it), so no element is accessed by two
// threads at once.
unsafe impl<T: Send> Send for RawMut<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Send> Sync for RawMut<T> {}

impl<T> Raw<T> {
    /// The address of `(i, j)` (formed with `wrapping_offset`; in bounds exactly when
    /// `(i, j)` is an element of the view).
    #[inline(always)]
    pub fn at(self, i: usize, j: usize) -> *const T {
        self.ptr
            .wrapping_offset(i as isize * self.rs + j as isize * self.cs)
    }

    /// The view `off` elements on (by `wrapping_offset`: in bounds when the caller
    /// checked that it is).
    pub fn shifted(self, off: isize) -> Self {
        Raw {
            ptr: self.ptr.wrapping_offset(off),
            ..self
        }
    }

    /// The transpose.
    pub fn t(self) -> Self {
        Raw {
            ptr: self.ptr,
            rs: self.cs,
            cs: self.rs,
        }
    }
}

impl<T> RawMut<T> {
    /// The address of `(i, j)`, as [`Raw::at`].
    #[inline(always)]
    pub fn at(self, i: usize, j: usize) -> *mut T {
        self.ptr
            .wrapping_offset(i as isize * self.rs + j as isize * self.cs)
    }

    /// The view `off` elements on, as [`Raw::shifted`].
    pub fn shifted(self, off: isize) -> Self {
        RawMut {
            ptr: self.ptr.wrapping_offset(off),
            ..self
        }
    }

    /// The transpose.
    pub fn t(self) -> Self {
        RawMut {
            ptr: self.ptr,
            rs: self.cs,
            cs: self.rs,
        }
    }
}

impl<'a, T> MatRef<'a, T> {
    /// The raw view (element `(0, 0)` is `data[offset]` whenever the view is not
    /// empty; for an empty one the pointer is never dereferenced).
    pub(crate) fn raw(&self) -> Raw<T> {
        Raw {
            ptr: self.data.as_ptr().wrapping_add(self.offset),
            rs: self.rs,
            cs: self.cs,
        }
    }
}

impl<'a, T> MatMut<'a, T> {
    /// The raw view, as [`MatRef::raw`]; it borrows `self` mutably for as long as the
    /// caller keeps `self` out of use.
    pub(crate) fn raw(&mut self) -> RawMut<T> {
        RawMut {
            ptr: self.data.as_mut_ptr().wrapping_add(self.offset),
            rs: self.rs,
            cs: self.cs,
        }
    }
}

impl<T> fmt::Debug for MatRef<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MatRef")
            .field("len", &self.data.len())
            .field("offset", &self.offset)
            .field("shape", &(self.rows, self.cols))
            .field("strides", &(self.rs, self.cs))
            .finish()
    }
}

impl<T> fmt::Debug for MatMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MatMut")
            .field("len", &self.data.len())
            .field("offset", &self.offset)
            .field("shape", &(self.rows, self.cols))
            .field("strides", &(self.rs, self.cs))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounds rule in i128, with no fast path: an overflow of i128 means a reach
    /// beyond 2^126 elements, out of bounds of any slice.
    fn in_bounds_wide(
        len: usize,
        offset: usize,
        rows: usize,
        cols: usize,
        rs: isize,
        cs: isize,
    ) -> bool {
        if rows == 0 || cols == 0 {
            return true;
        }
        let reach = |n: usize, s: isize| (n as i128 - 1).checked_mul(s as i128);
        let (Some(r), Some(c)) = (reach(rows, rs), reach(cols, cs)) else {
            return false;
        };
        let lo = (offset as i128)
            .checked_add(r.min(0))
            .and_then(|l| l.checked_add(c.min(0)));
        let hi = (offset as i128)
            .checked_add(r.max(0))
            .and_then(|h| h.checked_add(c.max(0)));
        matches!((lo, hi), (Some(lo), Some(hi)) if lo >= 0 && hi < len as i128)
    }

    #[test]
    fn reaches_that_overflow_i128_are_refused() {
        // (2^64 - 2) * isize::MAX plus 6 * isize::MAX passes i128's range: a plain sum
        // wrapped negative and accepted this view of an empty slice.
        let empty: &[f64] = &[];
        assert!(MatRef::new(empty, 0, 7, usize::MAX, isize::MAX, isize::MAX).is_none());
        assert!(MatRef::new(empty, 0, usize::MAX, usize::MAX, isize::MIN, isize::MIN).is_none());
        assert!(MatRef::new(empty, 0, usize::MAX, 2, isize::MAX, isize::MIN).is_none());
    }

    #[test]
    fn in_bounds_fast_path_agrees_with_the_wide_rule() {
        let big = [
            0,
            1,
            2,
            3,
            7,
            1 << 20,
            usize::MAX / 4,
            usize::MAX / 2,
            usize::MAX - 1,
            usize::MAX,
        ];
        let strides = [0, 1, 2, 5, -1, -3, isize::MAX / 2, isize::MAX, isize::MIN];
        for &len in &[0, 1, 9, 100, usize::MAX] {
            for &offset in &[0, 1, 8, 99, usize::MAX - 1] {
                for &rows in &big {
                    for &cols in &[0, 1, 2, 4, usize::MAX] {
                        for &rs in &strides {
                            for &cs in &[0, 1, 3, -1, isize::MAX] {
                                assert_eq!(
                                    in_bounds(len, offset, rows, cols, rs, cs),
                                    in_bounds_wide(len, offset, rows, cols, rs, cs),
                                    "{len} {offset} {rows}x{cols} ({rs}, {cs})"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Brute force: do two distinct (i, j) hit the same address?
    fn overlaps_naive(rows: usize, cols: usize, rs: isize, cs: isize) -> bool {
        let mut seen = std::collections::HashSet::new();
        for i in 0..rows {
            for j in 0..cols {
                if !seen.insert(i as isize * rs + j as isize * cs) {
                    return true;
                }
            }
        }
        false
    }

    #[test]
    fn overlap_check_is_exact() {
        for rows in 0..6 {
            for cols in 0..6 {
                for rs in -7..=7 {
                    for cs in -7..=7 {
                        assert_eq!(
                            overlaps(rows, cols, rs, cs),
                            overlaps_naive(rows, cols, rs, cs),
                            "{rows}x{cols} strides ({rs}, {cs})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bounds_check_matches_every_element() {
        for len in 0..8usize {
            for offset in 0..10 {
                for (rows, cols) in [(0, 3), (1, 1), (2, 3), (3, 2), (1, 4)] {
                    for rs in -3..=3 {
                        for cs in -3..=3 {
                            let naive = (0..rows).all(|i| {
                                (0..cols).all(|j| {
                                    let at = offset as isize + i as isize * rs + j as isize * cs;
                                    at >= 0 && (at as usize) < len
                                })
                            });
                            assert_eq!(in_bounds(len, offset, rows, cols, rs, cs), naive);
                        }
                    }
                }
            }
        }
    }
}
