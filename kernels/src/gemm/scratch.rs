//! Packing scratch: a growable, 64-byte aligned buffer per thread, reused from one
//! product to the next, so a product allocates only when it needs more than any
//! product before it on that thread.
//!
//! What the workers of a parallel product pack for themselves lives in one buffer of
//! the calling thread, a [`Slots`] part per participant of the pool's job, so that
//! only the caller ever allocates, and only when its product needs more than any
//! before it. Were each worker to grow its own buffer, it would do so the first time
//! the pool's dynamic schedule gave it a chunk of such a product, which can be any
//! later call (a helper that wakes late finds its chunks taken).
//!
//! What a thread keeps between products is bounded by the blocking of its tier, not
//! by the products: [`PACK_B`] at most `KC·NC` elements (the blocked form's B block;
//! the direct path's aligned copy of B, as big as B, is freed after its product when
//! it is larger), [`PACK_A`] `MC·KC` plus an edge tile, [`PARTS`] that per
//! participant (or the narrow form's `m x KC` block of A, which that form takes only
//! while it fits half of L2 or its part of L3), [`PACK_NARROW`] the same narrow
//! block. Only [`Tuning`](super::Tuning) overrides of the blocking go beyond.

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

    /// `parts` slots of at least `per` elements of `T` each, every one starting on
    /// its own page, growing the buffer if needed (as [`AlignedBuf::elements`]).
    pub(crate) fn slots<T: GemmElement>(&mut self, parts: usize, per: usize) -> Slots<T> {
        let (stride, total) = slots_layout::<T>(parts, per);
        Slots {
            base: self.elements::<T>(total),
            stride,
            parts,
        }
    }

    /// Frees the buffer when it holds more than `bytes`, so what a thread keeps from
    /// one product to the next stays bounded (the module docs).
    pub(crate) fn trim(&mut self, bytes: usize) {
        if self.bytes > bytes {
            self.release();
            self.holds = None;
        }
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

/// The stride (a whole number of pages) and total length, in elements of `T`, of
/// `parts` slots of at least `per` elements each.
pub(crate) fn slots_layout<T>(parts: usize, per: usize) -> (usize, usize) {
    let stride = per
        .checked_mul(size_of::<T>())
        .expect("gemm scratch size overflows usize")
        .next_multiple_of(4096)
        / size_of::<T>();
    let total = stride
        .checked_mul(parts)
        .expect("gemm scratch size overflows usize");
    (stride, total)
}

/// `n` elements of `T` rounded up to whole [`ALIGN`] lines, so the piece after
/// them in a lent buffer starts on a line too.
pub(crate) fn piece_len<T>(n: usize) -> usize {
    n.checked_mul(size_of::<T>())
        .expect("gemm scratch size overflows usize")
        .next_multiple_of(ALIGN)
        / size_of::<T>()
}

/// Memory the caller lends one product for its packing (a workspace's), used
/// instead of the thread's own buffers when it is large enough; none by default.
pub(crate) struct Lent<T> {
    ptr: *mut T,
    len: usize,
}

impl<T> Lent<T> {
    /// Nothing lent: every request goes to the thread's buffers.
    pub(crate) const NONE: Lent<T> = Lent {
        ptr: core::ptr::null_mut(),
        len: 0,
    };

    /// All of `s`, which must start on an [`ALIGN`] line (else nothing is lent).
    /// What the product writes there stays in `s` after it: valid `f32`/`f64`.
    pub(crate) fn new(s: &mut [T]) -> Lent<T> {
        if (s.as_ptr() as usize).is_multiple_of(ALIGN) {
            Lent {
                ptr: s.as_mut_ptr(),
                len: s.len(),
            }
        } else {
            Lent::NONE
        }
    }

    /// The first `n` elements (rounded up to whole lines) and the rest, or `None`
    /// when they do not fit.
    fn split(self, n: usize) -> Option<(*mut T, Lent<T>)> {
        let n = piece_len::<T>(n);
        (n <= self.len).then(|| {
            (
                self.ptr,
                Lent {
                    ptr: self.ptr.wrapping_add(n),
                    len: self.len - n,
                },
            )
        })
    }
}

/// Runs `f` with `n` elements of scratch and the rest of `lent`: the front of
/// `lent` when it holds them, else this thread's buffer `key` (trimmed to `keep`
/// bytes afterwards, see [`AlignedBuf::trim`]) with nothing lent left.
pub(crate) fn lent_or<T: GemmElement, R>(
    lent: Lent<T>,
    key: &'static LocalKey<RefCell<AlignedBuf>>,
    n: usize,
    keep: usize,
    f: impl FnOnce(*mut T, Lent<T>) -> R,
) -> R {
    match lent.split(n) {
        Some((p, rest)) => f(p, rest),
        None => with(key, |buf| {
            let r = f(buf.elements::<T>(n), Lent::NONE);
            buf.trim(keep);
            r
        }),
    }
}

/// Runs `f` with `parts` slots of `per` elements ([`AlignedBuf::slots`]): cut
/// from `lent` when it holds them, else from this thread's [`PARTS`].
pub(crate) fn slots_or<T: GemmElement, R>(
    lent: Lent<T>,
    parts: usize,
    per: usize,
    f: impl FnOnce(&Slots<T>) -> R,
) -> R {
    let (stride, total) = slots_layout::<T>(parts, per);
    match lent.split(total) {
        Some((base, _)) => f(&Slots {
            base,
            stride,
            parts,
        }),
        None => with(&PARTS, |buf| f(&buf.slots::<T>(parts, per))),
    }
}

/// A buffer cut into one slot per participant of a pool job
/// ([`crate::pool::run_indexed`]); see the module's comment.
pub(crate) struct Slots<T> {
    base: *mut T,
    stride: usize,
    parts: usize,
}

// SAFETY: the slots are disjoint parts of one buffer; a participant writes only its
// own (`get` with its index), and the pool runs one participant per index at a time.
unsafe impl<T: Send> Sync for Slots<T> {}

impl<T> Slots<T> {
    /// Participant `p`'s slot, or `None` when the job gave no index (rayon).
    pub(crate) fn get(&self, p: Option<usize>) -> Option<*mut T> {
        p.map(|p| {
            assert!(p < self.parts, "participant {p} of {}", self.parts);
            self.base.wrapping_add(p * self.stride)
        })
    }
}

/// Runs `f` with `n` elements of scratch and what they hold (see
/// [`AlignedBuf::holds`]): the participant's slot `slot` when there is one (its
/// holds kept by this thread, which is the same participant for the whole product),
/// else this thread's own buffer `key`.
pub(crate) fn slot_or<T: GemmElement, R>(
    slot: Option<*mut T>,
    key: &'static LocalKey<RefCell<AlignedBuf>>,
    n: usize,
    f: impl FnOnce(*mut T, &mut Option<(u64, usize)>) -> R,
) -> R {
    match slot {
        Some(p) => SLOT_HOLDS.with(|h| {
            let mut holds = h.get();
            let r = f(p, &mut holds);
            h.set(holds);
            r
        }),
        None => with(key, |buf| {
            let p = buf.elements::<T>(n);
            f(p, &mut buf.holds)
        }),
    }
}

thread_local! {
    /// What this thread's slot of the current product holds, as [`AlignedBuf::holds`]
    /// (products are numbered, so a stale entry never matches a later product).
    static SLOT_HOLDS: core::cell::Cell<Option<(u64, usize)>> = const { core::cell::Cell::new(None) };
    /// The calling thread's [`Slots`] for the participants of its products.
    pub(crate) static PARTS: RefCell<AlignedBuf> = const { RefCell::new(AlignedBuf::new()) };
    /// Packed panels of A, when a worker has no slot of [`PARTS`] (rayon's threads).
    pub(crate) static PACK_A: RefCell<AlignedBuf> = const { RefCell::new(AlignedBuf::new()) };
    /// Packed panels of B: the calling thread's, shared with the workers.
    pub(crate) static PACK_B: RefCell<AlignedBuf> = const { RefCell::new(AlignedBuf::new()) };
    /// The narrow form's A block and B panel, when a worker has no slot of [`PARTS`]
    /// (rayon's threads); its only user, so `holds` stays true.
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

#[cfg(all(test, not(feature = "rayon")))]
mod tests {
    use super::*;
    use crate::gemm::{gemm_tuned, MatMut, MatRef, Tuning};
    use crate::pool;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn own_bytes() -> usize {
        let bytes = |key: &'static LocalKey<RefCell<AlignedBuf>>| key.with(|b| b.borrow().bytes);
        bytes(&PACK_A) + bytes(&PACK_NARROW)
    }

    /// The workers of a parallel product pack into the caller's slots: no thread
    /// that runs a chunk grows a buffer of its own (which it would do whenever the
    /// schedule first gave it a chunk, so an allocation in any later call).
    #[test]
    fn workers_pack_into_the_callers_slots() {
        if pool::num_threads() < 2 {
            pool::set_num_threads(2);
        }
        let tier = crate::active_tier();
        let (m, k, n) = (200, 300, 100);
        let a: Vec<f64> = (0..m * k).map(|i| (i % 7) as f64).collect();
        let b: Vec<f64> = (0..k * n).map(|i| (i % 5) as f64).collect();
        let mut c = vec![0.0; m * n];
        for narrow in [true, false] {
            let tuning = Tuning {
                small_path: Some(false),
                direct_path: Some(false),
                parallel_min: Some(0),
                kc: Some(64),
                narrow: Some(narrow),
                ..Tuning::default()
            };
            gemm_tuned(
                tier,
                &tuning,
                1.0,
                MatRef::new(&a, 0, m, k, k as isize, 1).unwrap(),
                MatRef::new(&b, 0, k, n, n as isize, 1).unwrap(),
                0.0,
                MatMut::new(&mut c, 0, m, n, n as isize, 1).unwrap(),
                2,
            )
            .unwrap();
        }
        assert!(PARTS.with(|b| b.borrow().bytes) > 0, "the caller's slots");
        let grown = AtomicUsize::new(own_bytes());
        pool::run(64, &|_| {
            grown.fetch_max(own_bytes(), Ordering::Relaxed);
        });
        assert_eq!(
            grown.into_inner(),
            0,
            "a thread grew its own packing buffer"
        );
    }

    /// With exactly `gemm_scratch` bytes lent, products on every packing path (the
    /// direct path's copy of B, the narrow form, the blocked form; one thread and
    /// two) leave every buffer of the thread untouched, and give `gemm`'s bits.
    #[test]
    fn lent_scratch_of_the_queried_size_is_enough() {
        if pool::num_threads() < 2 {
            pool::set_num_threads(2);
        }
        #[repr(align(64))]
        #[derive(Clone, Copy)]
        struct Line(#[allow(dead_code)] [f64; 8]);
        for (m, k, n, off, threads) in [
            (100, 100, 10, 1, 1),
            (96, 300, 200, 0, 2),
            (96, 300, 200, 0, 1),
            (700, 500, 600, 0, 2),
            (700, 500, 600, 0, 1),
            (600, 500, 700, 3, 2),
        ] {
            let a: Vec<f64> = (0..m * k).map(|i| (i % 7) as f64 - 3.0).collect();
            let b: Vec<f64> = (0..k * (n + off)).map(|i| (i % 5) as f64).collect();
            let ld = (n + off) as isize;
            let am = MatRef::new(&a, 0, m, k, k as isize, 1).unwrap();
            let bm = MatRef::new(&b, off, k, n, ld, 1).unwrap();
            let bytes = crate::gemm::gemm_scratch::<f64>(m, k, n, threads);
            let mut want = vec![0.0; m * n];
            crate::gemm::gemm(
                1.0,
                am,
                bm,
                0.0,
                MatMut::new(&mut want, 0, m, n, n as isize, 1).unwrap(),
                threads,
            );
            let (used, got) = std::thread::scope(|s| {
                s.spawn(|| {
                    let mut lines = vec![Line([f64::NAN; 8]); bytes / 64];
                    // SAFETY: `Line` is 8 `f64` without padding, so the lines are
                    // `8 * len` initialized `f64`.
                    let lent = unsafe {
                        std::slice::from_raw_parts_mut(
                            lines.as_mut_ptr().cast::<f64>(),
                            lines.len() * 8,
                        )
                    };
                    let mut c = vec![f64::NAN; m * n];
                    let cm = MatMut::new(&mut c, 0, m, n, n as isize, 1).unwrap();
                    crate::gemm::gemm_in(1.0, am, bm, 0.0, cm, threads, lent);
                    let bytes = |key: &'static LocalKey<RefCell<AlignedBuf>>| {
                        key.with(|b| b.borrow().bytes)
                    };
                    (own_bytes() + bytes(&PACK_B) + bytes(&PARTS), c)
                })
                .join()
                .unwrap()
            });
            assert_eq!(
                used, 0,
                "{m}x{k}x{n} on {threads}: the thread's buffers grew"
            );
            assert!(
                got.iter()
                    .zip(&want)
                    .all(|(x, y)| x.to_bits() == y.to_bits()),
                "{m}x{k}x{n}"
            );
        }
    }

    /// The direct path's line-aligned copy of B is as big as B: one product with a
    /// long k must not leave it allocated on the thread for good.
    #[test]
    fn a_large_copy_of_b_is_not_kept() {
        let tier = crate::active_tier();
        let [_, _, kc, _, nc] = crate::gemm::blocking::<f64>(tier).unwrap();
        let keep = kc * nc * 8;
        let (m, n) = (8, 8);
        let k = keep / (n * 8) + 1000;
        let a: Vec<f64> = (0..m * k).map(|i| (i % 7) as f64).collect();
        // One element in, so B's rows are not line-aligned.
        let b: Vec<f64> = (0..k * n + 1).map(|i| (i % 5) as f64).collect();
        let mut c = vec![0.0; m * n];
        let tuning = Tuning {
            direct_path: Some(true),
            direct_align_b: Some(true),
            ..Tuning::default()
        };
        gemm_tuned(
            tier,
            &tuning,
            1.0,
            MatRef::new(&a, 0, m, k, k as isize, 1).unwrap(),
            MatRef::new(&b, 1, k, n, n as isize, 1).unwrap(),
            0.0,
            MatMut::new(&mut c, 0, m, n, n as isize, 1).unwrap(),
            1,
        )
        .unwrap();
        let want: f64 = (0..k).map(|p| a[p] * b[1 + p * n]).sum();
        assert!((c[0] - want).abs() <= 1e-9 * want.abs(), "{} {want}", c[0]);
        let kept = PACK_B.with(|b| b.borrow().bytes);
        assert!(
            kept <= keep,
            "PACK_B keeps {kept} bytes, over the bound {keep}"
        );
    }
}
