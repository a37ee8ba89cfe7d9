//! Buffers fenced by PROT_NONE guard pages (mmap + mprotect): a slice placed at the
//! end (or start) of one faults on a read or write one element past it.

#![allow(dead_code)] // each test file uses a different part of this module

/// Types for which every bit pattern is a valid value, so a slice of them may be
/// made over memory holding anything.
///
/// # Safety
/// Implement only for such types.
pub unsafe trait AnyBits: Copy {}
// SAFETY: every bit pattern is a valid f32, f64, u8 or u64.
unsafe impl AnyBits for f32 {}
unsafe impl AnyBits for f64 {}
unsafe impl AnyBits for u8 {}
unsafe impl AnyBits for u64 {}

/// Where a slice lies in its fenced buffer.
#[derive(Clone, Copy, Debug)]
pub enum At {
    /// Ending exactly where the upper guard page starts.
    Tail,
    /// Starting exactly where the lower guard page ends.
    Head,
}

pub const PLACES: [At; 2] = [At::Tail, At::Head];

/// One inaccessible page, `pages` read-write pages, one inaccessible page.
pub struct Fenced {
    base: *mut u8,
    page: usize,
    pages: usize,
}

impl Fenced {
    pub fn new(bytes: usize) -> Fenced {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let pages = bytes.div_ceil(page).max(1);
        let total = (pages + 2) * page;
        // SAFETY: an anonymous private mapping at an address the kernel chooses
        // touches no existing memory.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap failed");
        let base = base.cast::<u8>();
        // SAFETY: the first and the last page lie inside the mapping just created and
        // are page-aligned because mmap returns page-aligned memory.
        unsafe {
            let rc = libc::mprotect(base.cast(), page, libc::PROT_NONE);
            assert_eq!(rc, 0, "mprotect failed");
            let rc = libc::mprotect(base.add((pages + 1) * page).cast(), page, libc::PROT_NONE);
            assert_eq!(rc, 0, "mprotect failed");
        }
        Fenced { base, page, pages }
    }

    /// Start of the `n * size` bytes at `at`, checked to fit.
    pub fn start(&self, at: At, bytes: usize) -> *mut u8 {
        assert!(bytes <= self.pages * self.page);
        // SAFETY: both offsets stay inside the read-write pages (just checked).
        unsafe {
            let data = self.base.add(self.page);
            match at {
                At::Head => data,
                At::Tail => data.add(self.pages * self.page - bytes),
            }
        }
    }

    /// `n` elements at `at`.
    pub fn slice<T: AnyBits>(&mut self, at: At, n: usize) -> &mut [T] {
        let bytes = n * std::mem::size_of::<T>();
        let start = self.start(at, bytes);
        // SAFETY: `[start, start + bytes)` is inside the read-write pages, aligned for
        // `T` (page boundaries are, and `bytes` is a multiple of `size_of::<T>()`),
        // holds a valid `T` in any bit pattern (`AnyBits`), and is borrowed mutably
        // from `self`, so nothing else aliases it.
        unsafe { std::slice::from_raw_parts_mut(start.cast::<T>(), n) }
    }

    /// `n` booleans at `at`, all `false`.
    pub fn bools(&mut self, at: At, n: usize) -> &mut [bool] {
        let start = self.start(at, n);
        // SAFETY: as in `slice`; the bytes are zeroed first, which is `false`, so the
        // slice holds valid `bool`s whatever was stored there before.
        unsafe {
            std::ptr::write_bytes(start, 0, n);
            std::slice::from_raw_parts_mut(start.cast::<bool>(), n)
        }
    }
}

impl Drop for Fenced {
    fn drop(&mut self) {
        // SAFETY: exactly the mapping created in `new`, no longer borrowed.
        unsafe { libc::munmap(self.base.cast(), (self.pages + 2) * self.page) };
    }
}
