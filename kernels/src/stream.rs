//! Streaming (non-temporal) stores for large outputs.
//!
//! An ordinary store to a line that is not in the cache first reads the line from
//! memory (to own it), then writes it back later: an elementwise `out = a + b` over
//! arrays far larger than the cache moves 32 bytes per `f64` instead of 24. A
//! streaming store writes whole lines straight to memory without that read, and
//! does not evict the inputs from the cache to make room for the output. It is a
//! loss when the output would have stayed in the cache for its next reader, so the
//! array ops use it only for outputs of at least [`stream_min`] bytes.
//!
//! Streaming stores are weakly ordered: [`stream_fence`] must follow the last one
//! before another thread is told the data is there (the pool's hand-back is a
//! release store, which does not order them on x86).
//!
//! On x86-64 the stores are `movntdq` (SSE2, 16 bytes) or `vmovntdq` (AVX, 32
//! bytes) by the active tier; elsewhere [`stream_copy`] is a plain copy and
//! [`stream_fence`] does nothing.

use std::sync::atomic::{AtomicUsize, Ordering};

/// [`stream_min`] before it is derived.
const UNSET: usize = 0;

static STREAM_MIN: AtomicUsize = AtomicUsize::new(UNSET);

/// The smallest output, in bytes, that the array ops write with streaming stores:
/// half the last-level cache, at least 4 MiB (16 MiB on a 32 MiB L3); an output
/// that stays in the cache loses by streaming (docs/design.md#streaming-stores).
/// `usize::MAX` when the architecture has no streaming store.
pub fn stream_min() -> usize {
    match STREAM_MIN.load(Ordering::Relaxed) {
        UNSET => {
            let v = if cfg!(target_arch = "x86_64") {
                (crate::cache_info().l3 / 2).max(4 << 20)
            } else {
                usize::MAX
            };
            STREAM_MIN.store(v, Ordering::Relaxed);
            v
        }
        v => v,
    }
}

/// Overrides [`stream_min`] for tests and benchmarks (`usize::MAX`: never stream;
/// `1`: always), behind the feature `internals`. Results never depend on it: only
/// how the bytes reach memory.
#[cfg(feature = "internals")]
pub fn set_stream_min(bytes: usize) {
    STREAM_MIN.store(bytes.max(1), Ordering::Relaxed);
}

/// Copies `src` into `dst` with streaming stores (see the module): the bytes before
/// `dst`'s first 16- or 32-byte boundary and after its last one are copied plainly.
/// Call [`stream_fence`] before another thread may read `dst`.
///
/// # Panics
/// When the lengths differ.
///
/// ```
/// use ndsimd_kernels::stream::{stream_copy, stream_fence};
/// let src: Vec<f64> = (0..1000).map(f64::from).collect();
/// let mut dst = vec![0.0; 1000];
/// stream_copy(&src, &mut dst);
/// stream_fence();
/// assert_eq!(src, dst);
/// ```
pub fn stream_copy<T: Copy>(src: &[T], dst: &mut [T]) {
    assert_eq!(src.len(), dst.len(), "stream_copy: lengths differ");
    #[cfg(target_arch = "x86_64")]
    {
        use crate::Tier;
        let tier = crate::active_tier();
        let (s, d, n) = (
            src.as_ptr().cast::<u8>(),
            dst.as_mut_ptr().cast::<u8>(),
            std::mem::size_of_val(src),
        );
        if tier >= Tier::Avx2 {
            // SAFETY: the active tier is at most the detected one, so AVX is
            // present; `s` and `d` are valid for `n` bytes (the two slices, of one
            // length and element type), and do not overlap (`&` and `&mut`).
            return unsafe { x86::copy_avx(s, d, n) };
        }
        if tier >= Tier::Sse2 {
            // SAFETY: SSE2 is part of x86-64; the pointers as above.
            return unsafe { x86::copy_sse2(s, d, n) };
        }
    }
    dst.copy_from_slice(src);
}

/// Orders every streaming store made so far by this thread before its later
/// stores (`sfence`); nothing off x86-64.
pub fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    x86::fence();
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;
    use core::ptr::copy_nonoverlapping;

    /// `n` bytes from `s` to `d`: plainly up to `d`'s first `align`-byte boundary,
    /// then by `step` from `body` (which streams `step` bytes from `s` to the
    /// aligned `d`), then the tail plainly.
    ///
    /// # Safety
    /// `s` valid for `n` reads, `d` for `n` writes, the two not overlapping; `body`
    /// safe to call on such pointers with `d` aligned to `align`.
    #[inline(always)]
    unsafe fn copy_with(
        s: *const u8,
        d: *mut u8,
        n: usize,
        align: usize,
        step: usize,
        body: impl Fn(*const u8, *mut u8),
    ) {
        let head = d.align_offset(align).min(n);
        // SAFETY: `head <= n`: inside both ranges, which do not overlap.
        unsafe { copy_nonoverlapping(s, d, head) };
        let mut i = head;
        while i + step <= n {
            // SAFETY: `i + step <= n`, and `d + i` is aligned (`head` reached the
            // boundary, and `step` is a multiple of `align`).
            body(unsafe { s.add(i) }, unsafe { d.add(i) });
            i += step;
        }
        // SAFETY: `i <= n`: the rest of both ranges.
        unsafe { copy_nonoverlapping(s.add(i), d.add(i), n - i) };
    }

    /// # Safety
    /// As [`copy_with`], and AVX present.
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn copy_avx(s: *const u8, d: *mut u8, n: usize) {
        // SAFETY: the caller's contract; each step reads 64 bytes at `s` (unaligned
        // loads) and streams them to `d`, aligned to 32 by `copy_with`.
        unsafe {
            copy_with(s, d, n, 32, 64, |s, d| {
                let (s, d) = (s.cast::<__m256i>(), d.cast::<__m256i>());
                _mm256_stream_si256(d, _mm256_loadu_si256(s));
                _mm256_stream_si256(d.add(1), _mm256_loadu_si256(s.add(1)));
            })
        }
    }

    /// # Safety
    /// As [`copy_with`].
    pub(super) unsafe fn copy_sse2(s: *const u8, d: *mut u8, n: usize) {
        // SAFETY: the caller's contract; each step reads 32 bytes at `s` and streams
        // them to `d`, aligned to 16 by `copy_with`; SSE2 is part of x86-64.
        unsafe {
            copy_with(s, d, n, 16, 32, |s, d| {
                let (s, d) = (s.cast::<__m128i>(), d.cast::<__m128i>());
                _mm_stream_si128(d, _mm_loadu_si128(s));
                _mm_stream_si128(d.add(1), _mm_loadu_si128(s.add(1)));
            })
        }
    }

    pub(super) fn fence() {
        // SAFETY: `sfence` has no preconditions (SSE, part of x86-64).
        #[allow(unused_unsafe)]
        unsafe {
            _mm_sfence()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every length and every misalignment of source and destination, against a
    // plain copy; and nothing outside the destination written.
    #[test]
    fn copies_every_length_at_every_offset() {
        let src: Vec<u8> = (0..400u32).map(|i| (i * 7 + 1) as u8).collect();
        for len in 0..=200 {
            for so in 0..8 {
                for d_off in 0..40 {
                    let mut dst = vec![0xAAu8; 300];
                    stream_copy(&src[so..so + len], &mut dst[d_off..d_off + len]);
                    stream_fence();
                    assert_eq!(&dst[d_off..d_off + len], &src[so..so + len]);
                    assert!(
                        dst[..d_off].iter().all(|&b| b == 0xAA),
                        "{len} {so} {d_off}"
                    );
                    assert!(
                        dst[d_off + len..].iter().all(|&b| b == 0xAA),
                        "{len} {so} {d_off}"
                    );
                }
            }
        }
        let f: Vec<f64> = (0..1001).map(|i| i as f64 * 0.5).collect();
        let mut g = vec![0.0; 1001];
        stream_copy(&f, &mut g);
        stream_fence();
        assert_eq!(f, g);
    }

    #[test]
    #[should_panic(expected = "lengths differ")]
    fn lengths_must_match() {
        stream_copy(&[1u8; 3], &mut [0u8; 4]);
    }
}
