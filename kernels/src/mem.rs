//! Memory hints for large buffers.

/// Buffers at least this large ask for transparent huge pages (NumPy uses the
/// same 4 MiB threshold).
pub const HUGEPAGE_THRESHOLD: usize = 4 << 20;

const HUGE: usize = 2 << 20;

/// Asks the OS to back the 2 MiB-aligned interior of a large, not yet touched
/// buffer with transparent huge pages, so first touch costs one fault per 2 MiB
/// instead of one per 4 KiB. A hint only: contents never change, and on other
/// systems, small buffers, or when THP is off, it does nothing.
///
/// Returns whether the hint was given.
///
/// ```
/// let mut v = vec![0.0f64; 1 << 20]; // 8 MiB
/// let _ = ndsimd_kernels::mem::advise_hugepages(&mut v);
/// assert_eq!(v[12345], 0.0);
/// ```
pub fn advise_hugepages<T>(buf: &mut [T]) -> bool {
    let bytes = std::mem::size_of_val(buf);
    if bytes < HUGEPAGE_THRESHOLD {
        return false;
    }
    let start = buf.as_mut_ptr() as usize;
    let lo = (start + HUGE - 1) & !(HUGE - 1);
    let hi = (start + bytes) & !(HUGE - 1);
    if lo >= hi {
        return false;
    }
    advise(lo, hi - lo)
}

#[cfg(target_os = "linux")]
fn advise(addr: usize, len: usize) -> bool {
    // SAFETY: [addr, addr+len) lies inside a buffer the caller holds mutably, is
    // page-aligned (2 MiB-aligned), and MADV_HUGEPAGE changes only how its pages
    // are backed, never their contents or the mapping's validity.
    unsafe { libc::madvise(addr as *mut libc::c_void, len, libc::MADV_HUGEPAGE) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn advise(_addr: usize, _len: usize) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_buffers_are_left_alone_and_contents_survive() {
        let mut small = vec![1u8; 4096];
        assert!(!advise_hugepages(&mut small));
        let mut big = vec![0u64; 3 << 20];
        big[7] = 7;
        let _ = advise_hugepages(&mut big);
        assert_eq!(big[7], 7);
        assert!(big
            .iter()
            .enumerate()
            .all(|(i, &x)| x == if i == 7 { 7 } else { 0 }));
    }
}
