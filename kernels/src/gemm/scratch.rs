//! Packing scratch: a growable, 64-byte aligned buffer per thread, reused from one
//! product to the next, so a product allocates only when it needs more than any
//! product before it on that thread.

use std::alloc::{self, Layout};
use std::cell::RefCell;
use std::ptr::NonNull;
use std::thread::LocalKey;

use super::GemmElement;

/// Alignment of every packed buffer: a cache line, and a whole AVX-512 vector.
const ALIGN: usize = 64;

/// Zero-initialised bytes aligned to [`ALIGN`].
pub(crate) struct AlignedBuf {
    ptr: NonNull<u8>,
    bytes: usize,
    /// What the buffer holds, for a user that keeps packed data from one call to the
    /// next (the narrow form's A block: product and k-block); `None` after a growth.
    pub(crate) holds: Option<(u64, usize)>,
}

impl AlignedBuf {
    pub(crate) const fn new() -> Self {
        AlignedBuf {
            ptr: NonNull::dangling(),
            bytes: 0,
            holds: None,
        }
    }

    /// A pointer to at least `n` elements of `T`, 64-byte aligned, growing the buffer
    /// if needed (its old contents are then lost). Every element holds a valid `T`
    /// (the memory is zeroed when allocated and only `f32`/`f64` are written to it).
    pub(crate) fn elements<T: GemmElement>(&mut self, n: usize) -> *mut T {
        let need = n
            .checked_mul(size_of::<T>())
            .expect("gemm scratch size overflows usize")
            .max(1);
        if need > self.bytes {
            self.release();
            self.holds = None;
            // Round up to a page so that slightly larger products reuse the buffer.
            let bytes = need.div_ceil(4096) * 4096;
            let layout = Layout::from_size_align(bytes, ALIGN).expect("gemm scratch layout");
            // SAFETY: `layout` has a non-zero size.
            let p = unsafe { alloc::alloc_zeroed(layout) };
            self.ptr = NonNull::new(p).unwrap_or_else(|| alloc::handle_alloc_error(layout));
            self.bytes = bytes;
        }
        self.ptr.as_ptr().cast()
    }

    fn release(&mut self) {
        if self.bytes > 0 {
            // SAFETY: `ptr` was allocated in `elements` with exactly this layout (the
            // same size and alignment, which `from_size_align` accepted then).
            unsafe {
                alloc::dealloc(
                    self.ptr.as_ptr(),
                    Layout::from_size_align_unchecked(self.bytes, ALIGN),
                )
            };
            self.ptr = NonNull::dangling();
            self.bytes = 0;
        }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        self.release();
    }
}

thread_local! {
    /// Packed panels of A: each worker packs its own.
    pub(crate) static PACK_A: RefCell<AlignedBuf> = const { RefCell::new(AlignedBuf::new()) };
    /// Packed panels of B: the calling thread's, shared with the workers.
    pub(crate) static PACK_B: RefCell<AlignedBuf> = const { RefCell::new(AlignedBuf::new()) };
    /// The narrow form's A block and B panel (its only user, so `holds` stays true).
    pub(crate) static PACK_NARROW: RefCell<AlignedBuf> = const { RefCell::new(AlignedBuf::new()) };
}

/// Runs `f` with this thread's buffer `key` (or, should it be in use further up this
/// thread's stack, a fresh one).
pub(crate) fn with<R>(
    key: &'static LocalKey<RefCell<AlignedBuf>>,
    f: impl FnOnce(&mut AlignedBuf) -> R,
) -> R {
    key.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => f(&mut buf),
        Err(_) => f(&mut AlignedBuf::new()),
    })
}
