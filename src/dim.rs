//! Small inline vectors for shapes and strides: ranks up to `INLINE` need no heap,
//! and longer ones reuse recycled buffers, so making a view allocates nothing once
//! a thread has warmed up, at any rank up to `MAX_NDIM`.

use crate::array::MAX_NDIM;
use std::cell::RefCell;
use std::fmt;
use std::ops::{Deref, DerefMut};

/// Axes kept inline. Five, not more: a view (data, offset, shape, strides) then
/// spans 120 bytes, which the compiler moves with inline stores; at six (136
/// bytes) every move of a view became a `memcpy` call, and the row view loop
/// (`a.slice(s![i, ..])`) ran 1.6× slower.
const INLINE: usize = 5;

/// Recycled buffers kept per thread and element type: enough for the shapes and
/// strides of a few dozen live high-rank views; more are freed as usual.
const POOL_MAX: usize = 64;

/// A shape or strides list; inline up to [`INLINE`] axes, on the heap beyond.
pub(crate) enum Small<T: Axis> {
    Inline(Buf<T>),
    Heap(Pooled<T>),
}

/// An inline list: its length and room for [`INLINE`] elements, one `Copy`
/// value, so that a clone copies it whole. Copied field by field, a clone's
/// pieces did not line up with the 16-byte loads of the view's next move, which
/// then waited for the stores (3 ns of a 1Ki workspace add).
#[derive(Clone, Copy)]
pub(crate) struct Buf<T: Axis> {
    n: Len,
    a: [T; INLINE],
}

/// The length of an inline [`Small`]. An enum of the values `0..=INLINE`, not a
/// `u8`: its unused values hold `Small`'s variant, so there is no separate tag
/// byte. With one, a move of a view copied each list from its second byte on
/// with unaligned 16-byte loads, which stalled on the fresh byte stores (store
/// forwarding fails) and, at some stack offsets, split across cache lines: the
/// row view loop ran 22 or 53 ns depending on the caller's frame. Eight bytes
/// wide, so a list has no padding bytes, which moves copied in odd pieces (a
/// 1Ki `add_into` ran 7% faster without them).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u64)]
pub(crate) enum Len {
    L0,
    L1,
    L2,
    L3,
    L4,
    L5,
}

impl Len {
    /// `n` as a length; `n <= INLINE`.
    #[inline(always)]
    fn of(n: usize) -> Len {
        const ALL: [Len; INLINE + 1] = [Len::L0, Len::L1, Len::L2, Len::L3, Len::L4, Len::L5];
        ALL[n]
    }

    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }
}

pub(crate) type Dim = Small<usize>;
pub(crate) type Strides = Small<isize>;

/// The element types of [`Small`], each with its own per-thread pool of heap
/// buffers (of capacity `MAX_NDIM`, so any rank fits without growing).
pub(crate) trait Axis: Copy + Default + 'static {
    fn pool<R>(f: impl FnOnce(&mut Vec<Vec<Self>>) -> R) -> Option<R>;
}

macro_rules! axis_pool {
    ($t:ty, $name:ident) => {
        thread_local! {
            static $name: RefCell<Vec<Vec<$t>>> = const { RefCell::new(Vec::new()) };
        }
        impl Axis for $t {
            fn pool<R>(f: impl FnOnce(&mut Vec<Vec<$t>>) -> R) -> Option<R> {
                // `try_with`/`try_borrow_mut`: during thread exit the pool may be
                // gone, and then a buffer is simply allocated or freed.
                $name
                    .try_with(|p| p.try_borrow_mut().ok().map(|mut p| f(&mut p)))
                    .ok()
                    .flatten()
            }
        }
    };
}
axis_pool!(usize, DIM_POOL);
axis_pool!(isize, STRIDE_POOL);

/// A heap buffer holding `s`: a recycled one when the thread has any.
#[cold]
#[inline(never)]
fn heap_from<T: Axis>(s: &[T]) -> Vec<T> {
    let mut v = T::pool(|p| p.pop()).flatten().unwrap_or_default();
    v.clear();
    v.reserve(s.len().max(MAX_NDIM));
    v.extend_from_slice(s);
    v
}

/// Gives `v` back to this thread's pool (or frees it when the pool is full).
#[cold]
#[inline(never)]
fn recycle<T: Axis>(v: Vec<T>) {
    if v.capacity() < MAX_NDIM {
        return;
    }
    T::pool(move |p| {
        if p.len() < POOL_MAX {
            if p.capacity() == 0 {
                p.reserve_exact(POOL_MAX);
            }
            p.push(v);
        }
    });
}

/// A heap buffer that goes back to its thread's pool when dropped. The `Drop` is
/// here, not on [`Small`]: a `Drop` on `Small` itself made every inline view's
/// drop a call, and the row view loop 1.3× slower.
pub(crate) struct Pooled<T: Axis>(Vec<T>);

impl<T: Axis> Drop for Pooled<T> {
    #[inline]
    fn drop(&mut self) {
        recycle(std::mem::take(&mut self.0));
    }
}

impl<T: Axis> Deref for Pooled<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T: Axis> DerefMut for Pooled<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T: Axis> Clone for Small<T> {
    #[inline]
    fn clone(&self) -> Self {
        match self {
            Small::Inline(b) => Small::Inline(*b),
            Small::Heap(v) => Small::Heap(Pooled(heap_from(v))),
        }
    }
}

impl<T: Axis> Small<T> {
    pub(crate) fn from_slice(s: &[T]) -> Self {
        if s.len() <= INLINE {
            let mut a = [T::default(); INLINE];
            // An element loop: `copy_from_slice` of a variable length is a call.
            for (d, &x) in a.iter_mut().zip(s) {
                *d = x;
            }
            Small::Inline(Buf {
                n: Len::of(s.len()),
                a,
            })
        } else {
            Small::Heap(Pooled(heap_from(s)))
        }
    }

    pub(crate) fn filled(n: usize, v: T) -> Self {
        if n <= INLINE {
            Small::Inline(Buf {
                n: Len::of(n),
                a: [v; INLINE],
            })
        } else {
            let mut h = heap_from(&[]);
            h.resize(n, v);
            Small::Heap(Pooled(h))
        }
    }

    /// Removes element `i` (no allocation when the result fits inline).
    pub(crate) fn remove(&mut self, i: usize) {
        match self {
            Small::Inline(Buf { n, a }) => {
                let len = n.get();
                assert!(i < len, "remove: index {i} out of {len}");
                // An element loop, not `copy_within`: a call to `memmove` for a
                // few words costs more than the view it builds.
                for k in i..len - 1 {
                    a[k] = a[k + 1];
                }
                *n = Len::of(n.get() - 1);
            }
            Small::Heap(v) => {
                v.remove(i);
                if v.len() <= INLINE {
                    // The old buffer goes back to the pool as it drops.
                    let inline = Self::from_slice(v);
                    *self = inline;
                }
            }
        }
    }

    /// Inserts `x` before element `i` (no allocation while it fits inline, nor
    /// with a recycled buffer beyond).
    pub(crate) fn insert(&mut self, i: usize, x: T) {
        match self {
            Small::Inline(Buf { n, a }) if n.get() < INLINE => {
                let len = n.get();
                assert!(i <= len, "insert: index {i} past {len}");
                for k in (i..len).rev() {
                    a[k + 1] = a[k];
                }
                a[i] = x;
                *n = Len::of(n.get() + 1);
            }
            Small::Inline(..) => {
                let mut v = heap_from(self);
                v.insert(i, x);
                *self = Small::Heap(Pooled(v));
            }
            Small::Heap(v) => v.insert(i, x),
        }
    }

    /// Appends `x` (no allocation while it fits inline).
    #[inline]
    pub(crate) fn push(&mut self, x: T) {
        if let Small::Inline(Buf { n, a }) = self {
            if n.get() < INLINE {
                a[n.get()] = x;
                *n = Len::of(n.get() + 1);
                return;
            }
        }
        let len = self.len();
        self.insert(len, x);
    }
}

impl<T: Axis> Deref for Small<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            Small::Inline(Buf { n, a }) => &a[..n.get()],
            Small::Heap(v) => v,
        }
    }
}

impl<T: Axis> DerefMut for Small<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Small::Inline(Buf { n, a }) => &mut a[..n.get()],
            Small::Heap(v) => v,
        }
    }
}

impl<T: Axis + PartialEq> PartialEq for Small<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Axis + fmt::Debug> fmt::Debug for Small<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// Row-major (C order) strides for `shape`, in elements.
#[inline]
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
    fn inline_lists_stay_six_words() {
        // `Len`'s spare values hold the variant, so a list is one word of length
        // and five of axes: a view stays small enough to move without `memcpy`.
        assert_eq!(std::mem::size_of::<Dim>(), 8 + 8 * INLINE);
        assert_eq!(std::mem::size_of::<Strides>(), 8 + 8 * INLINE);
        for n in 0..=INLINE {
            assert_eq!(Len::of(n).get(), n);
        }
    }

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
        assert!(matches!(c, Small::Heap(..)));
        c.remove(0);
        assert!(matches!(c, Small::Inline(..)));
        assert_eq!(&*c, &[4, 5, 6, 7, 8]);
    }

    #[test]
    fn heap_buffers_are_recycled_on_their_thread() {
        // Warm the pool, then a high-rank clone reuses the buffer a drop gave back.
        let big: Vec<usize> = (0..MAX_NDIM).collect();
        drop(Dim::from_slice(&big));
        let before = usize::pool(|p| p.len()).unwrap();
        assert!(before >= 1);
        let d = Dim::from_slice(&big[..7]);
        assert_eq!(usize::pool(|p| p.len()).unwrap(), before - 1);
        let e = d.clone();
        assert_eq!(&*e, &big[..7]);
        drop(d);
        drop(e);
        assert_eq!(usize::pool(|p| p.len()).unwrap(), before + 1);
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
