//! A small cache of freed large buffers, so an allocating op run in a loop reuses
//! the pages of the previous result instead of faulting in (and having the OS zero)
//! fresh ones each time.
//!
//! Why: a buffer of 32 MiB or more is always `mmap`ed by glibc and `munmap`ed when
//! freed (its dynamic threshold stops there), so each new one costs a page fault
//! per huge page and the kernel's zeroing of every byte: on Zen 5 (2 vCPUs) NumPy's
//! `x + y` at 4Mi `f64` takes 3.7 ms where `np.add(x, y, out=z)` takes 1.9 ms.
//! Smaller buffers the allocator's own free lists already reuse.
//!
//! What is kept: buffers of at least [`MIN_BYTES`], given back by the array types
//! when they drop ([`recycle`]), up to [`limit`] bytes in all and [`MAX_BUFFERS`]
//! buffers (the oldest go first). A buffer is handed out again only for the same
//! element type and a request within a quarter of its size, so little is wasted.
//! [`set_limit`] (or `NDSIMD_BUFFER_CACHE_MB` in the environment, read once)
//! changes the bound, 0 turns the cache off; [`release`] frees what is held.

use core::any::{Any, TypeId};
use core::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Buffers smaller than this are not kept: the allocator reuses them itself.
pub const MIN_BYTES: usize = crate::mem::HUGEPAGE_THRESHOLD;

/// The most buffers held at once.
pub const MAX_BUFFERS: usize = 8;

/// The default bound on the bytes held: a sixteenth of the machine's memory, at
/// most this.
pub const DEFAULT_MAX_BYTES: usize = 256 << 20;

struct Held {
    ty: TypeId,
    bytes: usize,
    buf: Box<dyn Any + Send>,
}

static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());
/// Bytes in [`HELD`], readable without the lock (a hint for the fast path).
static HELD_BYTES: AtomicUsize = AtomicUsize::new(0);
/// The bound; `usize::MAX` until first read.
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

fn held() -> MutexGuard<'static, Vec<Held>> {
    // A panic while the lock was held left the list whole (each change is one push
    // or remove), so a poisoned lock is still usable.
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

/// The bound on the bytes the cache holds: [`set_limit`]'s value, else
/// `NDSIMD_BUFFER_CACHE_MB` (in MiB) from the environment, else a sixteenth of the
/// machine's memory up to [`DEFAULT_MAX_BYTES`].
///
/// ```
/// assert!(ndsimd_kernels::buffers::limit() <= usize::MAX / 2);
/// ```
pub fn limit() -> usize {
    match LIMIT.load(Ordering::Relaxed) {
        usize::MAX => {
            let l = std::env::var("NDSIMD_BUFFER_CACHE_MB")
                .ok()
                .and_then(|s| s.trim().parse::<usize>().ok())
                .map(|mb| mb.saturating_mul(1 << 20).min(usize::MAX / 2))
                .unwrap_or_else(|| (physical_memory() / 16).min(DEFAULT_MAX_BYTES));
            LIMIT.store(l, Ordering::Relaxed);
            l
        }
        l => l,
    }
}

/// Sets the bound on the bytes held (0 turns the cache off) and frees the oldest
/// buffers beyond it.
///
/// ```
/// use ndsimd_kernels::buffers;
/// let before = buffers::limit();
/// buffers::set_limit(0);
/// assert_eq!(buffers::held_bytes(), 0);
/// buffers::set_limit(before);
/// ```
pub fn set_limit(bytes: usize) {
    LIMIT.store(bytes.min(usize::MAX / 2), Ordering::Relaxed);
    let evicted = {
        let mut h = held();
        evict(&mut h, 0, bytes)
    };
    drop(evicted);
}

/// The bytes the cache holds now.
///
/// ```
/// let _ = ndsimd_kernels::buffers::held_bytes();
/// ```
pub fn held_bytes() -> usize {
    HELD_BYTES.load(Ordering::Relaxed)
}

/// Frees every buffer held and returns how many bytes that was.
///
/// ```
/// ndsimd_kernels::buffers::release();
/// assert_eq!(ndsimd_kernels::buffers::held_bytes(), 0);
/// ```
pub fn release() -> usize {
    let all = std::mem::take(&mut *held());
    let bytes = all.iter().map(|e| e.bytes).sum();
    HELD_BYTES.fetch_sub(bytes, Ordering::Relaxed);
    bytes
}

/// Removes the oldest buffers until `incoming` more bytes (and one more buffer,
/// when `incoming > 0`) fit under `limit`; returns them, to be freed after the
/// lock is let go.
fn evict(h: &mut Vec<Held>, incoming: usize, limit: usize) -> Vec<Held> {
    let mut total: usize = h.iter().map(|e| e.bytes).sum();
    let slots = if incoming > 0 {
        MAX_BUFFERS - 1
    } else {
        MAX_BUFFERS
    };
    let mut k = 0;
    while k < h.len() && (total + incoming > limit || h.len() - k > slots) {
        total -= h[k].bytes;
        k += 1;
    }
    let out: Vec<Held> = h.drain(..k).collect();
    HELD_BYTES.fetch_sub(out.iter().map(|e| e.bytes).sum(), Ordering::Relaxed);
    out
}

/// Takes `v` into the cache when its buffer is at least [`MIN_BYTES`] and fits
/// under [`limit`] (the oldest buffers held make room); else frees it.
///
/// ```
/// use ndsimd_kernels::buffers;
/// buffers::recycle(vec![0u8; 16]); // small: freed at once
/// ```
pub fn recycle<T: Send + 'static>(v: Vec<T>) {
    let bytes = v.capacity().saturating_mul(core::mem::size_of::<T>());
    if bytes < MIN_BYTES || bytes > limit() {
        return;
    }
    let evicted = {
        let mut h = held();
        let out = evict(&mut h, bytes, limit());
        h.push(Held {
            ty: TypeId::of::<Vec<T>>(),
            bytes,
            buf: Box::new(v),
        });
        HELD_BYTES.fetch_add(bytes, Ordering::Relaxed);
        out
    };
    drop(evicted);
}

/// A `Vec<T>` with room for at least `capacity` elements from the cache, when it
/// holds one of that type no more than a quarter larger (the newest such); `None`
/// otherwise. Its elements are the ones it held when it was recycled: values of
/// an earlier result, to be overwritten.
///
/// ```
/// use ndsimd_kernels::buffers;
/// let v = vec![1u32; 3 << 20];
/// let p = v.as_ptr();
/// buffers::recycle(v);
/// if let Some(w) = buffers::reuse::<u32>(3 << 20) {
///     assert!(w.capacity() >= 3 << 20);
///     assert_eq!(w.as_ptr(), p);
/// }
/// ```
pub fn reuse<T: Send + 'static>(capacity: usize) -> Option<Vec<T>> {
    let need = capacity.checked_mul(core::mem::size_of::<T>())?;
    if need < MIN_BYTES || HELD_BYTES.load(Ordering::Relaxed) < need {
        return None;
    }
    let ty = TypeId::of::<Vec<T>>();
    let got = {
        let mut h = held();
        let i = h
            .iter()
            .rposition(|e| e.ty == ty && e.bytes >= need && e.bytes - need <= need / 4)?;
        let e = h.remove(i);
        HELD_BYTES.fetch_sub(e.bytes, Ordering::Relaxed);
        e
    };
    got.buf.downcast::<Vec<T>>().ok().map(|v| *v)
}

#[cfg(all(unix, not(miri)))]
fn physical_memory() -> usize {
    // SAFETY: sysconf reads a system constant; no memory is touched.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages > 0 && size > 0 {
        (pages as usize).saturating_mul(size as usize)
    } else {
        0
    }
}

#[cfg(any(not(unix), miri))]
fn physical_memory() -> usize {
    // Unknown (or under Miri, which has no `_SC_PHYS_PAGES`): the default bound.
    DEFAULT_MAX_BYTES * 16
}

#[cfg(test)]
mod tests {
    use super::*;

    // Types of these tests' own, so other tests' buffers never meet them.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct A(u64);
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct B(u64);

    /// 8 MiB of 8-byte elements: a request a fifth smaller is still above the floor.
    const N: usize = 2 * MIN_BYTES / 8;

    /// The bound and the list are shared: these tests run one at a time.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

    #[test]
    fn a_freed_buffer_comes_back_for_its_type_and_size_only() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let v = vec![A(7); N];
        let p = v.as_ptr();
        recycle(v);
        assert!(reuse::<B>(N).is_none(), "another type");
        assert!(reuse::<A>(N + N / 4 + 1).is_none(), "larger than held");
        assert!(reuse::<A>(N / 2).is_none(), "far smaller: would waste half");
        let w = reuse::<A>(N - N / 5).expect("within a quarter");
        assert_eq!((w.as_ptr(), w.len(), w[N - 1]), (p, N, A(7)));
        assert!(w.capacity() >= N);
        assert!(reuse::<A>(N).is_none(), "taken once");
        // Too small to keep.
        recycle(vec![A(1); 16]);
        assert!(reuse::<A>(16).is_none());
    }

    #[test]
    fn the_bound_and_the_count_are_kept_oldest_out_first() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let before = limit();
        set_limit(6 * MIN_BYTES);
        let mk = |tag: u64| vec![B(tag); N];
        let ptrs: Vec<_> = (0..4)
            .map(|t| {
                let v = mk(t);
                let p = v.as_ptr() as usize;
                recycle(v);
                p
            })
            .collect();
        assert!(held_bytes() <= 6 * MIN_BYTES);
        // The newest three are held, the oldest was freed.
        let mut got = vec![];
        while let Some(v) = reuse::<B>(N) {
            got.push(v.as_ptr() as usize);
        }
        assert_eq!(got, vec![ptrs[3], ptrs[2], ptrs[1]]);
        set_limit(0);
        recycle(mk(9));
        assert!(reuse::<B>(N).is_none(), "off");
        set_limit(before);
        for t in 0..MAX_BUFFERS as u64 + 2 {
            recycle(vec![B(t); N]);
        }
        let mut count = 0;
        while reuse::<B>(N).is_some() {
            count += 1;
        }
        assert!(count <= MAX_BUFFERS);
        release();
    }
}
