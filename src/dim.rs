//! Small inline vectors for shapes and strides: ranks up to `INLINE` need no heap.

use std::fmt;
use std::ops::{Deref, DerefMut};

const INLINE: usize = 6;

/// A shape or strides list; inline up to six axes, on the heap beyond.
#[derive(Clone)]
pub(crate) enum Small<T: Copy + Default> {
    Inline(u8, [T; INLINE]),
    Heap(Vec<T>),
}

pub(crate) type Dim = Small<usize>;
pub(crate) type Strides = Small<isize>;

impl<T: Copy + Default> Small<T> {
    pub(crate) fn from_slice(s: &[T]) -> Self {
        if s.len() <= INLINE {
            let mut a = [T::default(); INLINE];
            a[..s.len()].copy_from_slice(s);
            Small::Inline(s.len() as u8, a)
        } else {
            Small::Heap(s.to_vec())
        }
    }

    pub(crate) fn filled(n: usize, v: T) -> Self {
        if n <= INLINE {
            Small::Inline(n as u8, [v; INLINE])
        } else {
            Small::Heap(vec![v; n])
        }
    }

    /// Removes element `i` (no allocation when the result fits inline).
    pub(crate) fn remove(&mut self, i: usize) {
        match self {
            Small::Inline(n, a) => {
                let len = *n as usize;
                assert!(i < len, "remove: index {i} out of {len}");
                a.copy_within(i + 1..len, i);
                *n -= 1;
            }
            Small::Heap(v) => {
                v.remove(i);
                if v.len() <= INLINE {
                    let v = std::mem::take(v);
                    *self = Self::from_slice(&v);
                }
            }
        }
    }

    /// Inserts `x` before element `i` (no allocation while it fits inline).
    pub(crate) fn insert(&mut self, i: usize, x: T) {
        match self {
            Small::Inline(n, a) if (*n as usize) < INLINE => {
                let len = *n as usize;
                assert!(i <= len, "insert: index {i} past {len}");
                a.copy_within(i..len, i + 1);
                a[i] = x;
                *n += 1;
            }
            _ => {
                let mut v = self.to_vec();
                v.insert(i, x);
                *self = Small::Heap(v);
            }
        }
    }

    /// Appends `x` (no allocation while it fits inline).
    pub(crate) fn push(&mut self, x: T) {
        let len = self.len();
        self.insert(len, x);
    }
}

impl<T: Copy + Default> Deref for Small<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            Small::Inline(n, a) => &a[..*n as usize],
            Small::Heap(v) => v,
        }
    }
}

impl<T: Copy + Default> DerefMut for Small<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Small::Inline(n, a) => &mut a[..*n as usize],
            Small::Heap(v) => v,
        }
    }
}

impl<T: Copy + Default + PartialEq> PartialEq for Small<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Copy + Default + fmt::Debug> fmt::Debug for Small<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// Row-major (C order) strides for `shape`, in elements.
pub(crate) fn c_strides(shape: &[usize]) -> Strides {
    let mut st = Strides::filled(shape.len(), 0);
    let mut acc: isize = 1;
    for i in (0..shape.len()).rev() {
        st[i] = acc;
        acc = acc.wrapping_mul(shape[i].max(1) as isize);
    }
    st
}

/// The number of elements of `shape`, or `None` on overflow.
pub(crate) fn size_of_shape(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// NumPy's broadcast of two shapes, or `None` when they are incompatible.
pub(crate) fn broadcast_shapes(a: &[usize], b: &[usize]) -> Option<Dim> {
    let n = a.len().max(b.len());
    let mut out = Dim::filled(n, 0);
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return None;
        };
    }
    Some(out)
}

/// The strides that make an operand of `shape`/`strides` read as `to` (which it must
/// broadcast to): leading new axes and stretched size-1 axes get stride 0.
pub(crate) fn broadcast_strides(shape: &[usize], strides: &[isize], to: &[usize]) -> Strides {
    let n = to.len();
    let lead = n - shape.len();
    let mut out = Strides::filled(n, 0);
    for i in 0..shape.len() {
        out[lead + i] = if shape[i] == to[lead + i] {
            strides[i]
        } else {
            0
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_and_heap() {
        let a = Dim::from_slice(&[1, 2, 3]);
        assert_eq!(&*a, &[1, 2, 3]);
        let b = Dim::from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        assert!(matches!(b, Small::Heap(_)));
        assert_eq!(b.len(), 8);
        let mut c = b.clone();
        c.remove(0);
        c.remove(0);
        assert!(matches!(c, Small::Inline(..)));
        assert_eq!(&*c, &[3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn broadcasting() {
        assert_eq!(&*broadcast_shapes(&[2, 1, 3], &[4, 1]).unwrap(), &[2, 4, 3]);
        assert_eq!(&*broadcast_shapes(&[], &[0, 2]).unwrap(), &[0, 2]);
        assert_eq!(&*broadcast_shapes(&[1], &[0]).unwrap(), &[0]);
        assert!(broadcast_shapes(&[2], &[3]).is_none());
        assert!(broadcast_shapes(&[0], &[2]).is_none());
        assert_eq!(
            &*broadcast_strides(&[3, 1], &[1, 1], &[2, 3, 4]),
            &[0, 1, 0]
        );
        assert_eq!(&*c_strides(&[2, 3, 4]), &[12, 4, 1]);
    }

    #[test]
    fn push_insert_remove_match_vec_across_the_inline_limit() {
        // Every position, from empty to two past the inline capacity and back,
        // against a Vec doing the same.
        for len in 0..=INLINE + 2 {
            for i in 0..=len {
                let base: Vec<usize> = (0..len).map(|x| 10 + x).collect();
                let mut s = Dim::from_slice(&base);
                let mut v = base.clone();
                s.insert(i, 99);
                v.insert(i, 99);
                assert_eq!(&*s, &v[..], "insert {i} into {len}");
                assert_eq!(matches!(s, Small::Inline(..)), v.len() <= INLINE);
                s.remove(i);
                v.remove(i);
                assert_eq!(&*s, &v[..], "remove {i} from {}", len + 1);
                assert_eq!(matches!(s, Small::Inline(..)), v.len() <= INLINE);
                s.push(7);
                v.push(7);
                assert_eq!(&*s, &v[..], "push onto {len}");
            }
        }
    }
}
