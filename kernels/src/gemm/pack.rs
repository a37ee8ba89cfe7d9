//! Packing: copies a block of A into `MR`-tall panels and a block of B into `NR`-wide
//! panels, in the order the micro-kernel reads them, from any strides.
//!
//! Both are the same operation seen from the panel: element `x` (a row of A, a column
//! of B) at step `p` of the k-loop lands at `dst[p * w + x]`, read from
//! `src + x * along + p * step`. For A `along` is its row stride and `step` its column
//! stride; for B `along` is its column stride and `step` its row stride. A panel
//! narrower than `w` (the last one of a block) is padded with zeros, so the kernel
//! always runs a full tile.

use crate::scalar::Arith;

/// Where a block to pack starts and how to walk it (see the module doc).
#[derive(Clone, Copy)]
pub(crate) struct Src<T> {
    pub ptr: *const T,
    pub along: isize,
    pub step: isize,
}

// SAFETY: a `Src` points into an operand borrowed shared for the whole product
// (`f32`/`f64`, so `Sync`) and is only read through.
unsafe impl<T: Sync> Send for Src<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Sync> Sync for Src<T> {}

impl<T> Src<T> {
    /// The address of element `x` at step `p` (formed with `wrapping_offset`: an
    /// intermediate address of a mixed-sign layout may lie outside the slice; only
    /// addresses of elements, which callers vouch for, are read).
    #[inline(always)]
    fn at(self, x: usize, p: usize) -> *const T {
        self.ptr
            .wrapping_offset(x as isize * self.along + p as isize * self.step)
    }
}

/// Packs one panel: `dst[p * w + x] = src(x, p)` for `x < width`, `0` for
/// `width <= x < w`, `p < kc`.
///
/// # Safety
/// `dst` is valid for `kc * w` writes; `src.at(x, p)` is valid for reads for every
/// `x < width`, `p < kc`.
#[inline]
pub(crate) unsafe fn panel<T: Arith>(dst: *mut T, src: Src<T>, width: usize, w: usize, kc: usize) {
    // SAFETY: the caller's contract, passed on (`fixed` has the same one with
    // `w == W`).
    unsafe {
        match w {
            4 => fixed::<T, 4>(dst, src, width, kc),
            6 => fixed::<T, 6>(dst, src, width, kc),
            8 => fixed::<T, 8>(dst, src, width, kc),
            12 => fixed::<T, 12>(dst, src, width, kc),
            16 => fixed::<T, 16>(dst, src, width, kc),
            24 => fixed::<T, 24>(dst, src, width, kc),
            32 => fixed::<T, 32>(dst, src, width, kc),
            _ => general(dst, src, width, w, kc),
        }
    }
}

/// [`panel`] for a width known at compile time, so that a full panel's inner loops
/// unroll into straight moves (no `memcpy` call per step).
///
/// # Safety
/// As [`panel`] with `w == W`.
#[inline(always)]
unsafe fn fixed<T: Arith, const W: usize>(dst: *mut T, src: Src<T>, width: usize, kc: usize) {
    if width < W {
        // SAFETY: the caller's contract.
        return unsafe { general(dst, src, width, W, kc) };
    }
    // SAFETY (both loops): each read is `src.at(x, p)` with `x < W == width`,
    // `p < kc`, and each write `dst + p * W + x`, as the caller allows.
    if src.along == 1 {
        for p in 0..kc {
            unsafe { core::ptr::copy_nonoverlapping(src.at(0, p), dst.add(p * W), W) };
        }
    } else {
        for p in 0..kc {
            for x in 0..W {
                unsafe { *dst.add(p * W + x) = *src.at(x, p) };
            }
        }
    }
}

/// [`panel`] for any width.
///
/// # Safety
/// As [`panel`].
unsafe fn general<T: Arith>(dst: *mut T, src: Src<T>, width: usize, w: usize, kc: usize) {
    // SAFETY (every block below): each read is `src.at(x, p)` with `x < width`,
    // `p < kc`, and each write `dst + p * w + x` with `x < w`, `p < kc`, as the
    // caller allows.
    for p in 0..kc {
        for x in 0..width {
            unsafe { *dst.add(p * w + x) = *src.at(x, p) };
        }
        for x in width..w {
            unsafe { *dst.add(p * w + x) = T::ZERO };
        }
    }
}

/// Packs panels `q` in `panels` of a block `len` wide (panel `q` covers elements
/// `q * w .. min((q + 1) * w, len)` and lands at `dst + q * w * kc`).
///
/// # Safety
/// `dst` is valid for `panels.end * w * kc` writes; `src.at(x, p)` is valid for reads
/// for every `x < len`, `p < kc`.
pub(crate) unsafe fn block<T: Arith>(
    dst: *mut T,
    src: Src<T>,
    len: usize,
    w: usize,
    kc: usize,
    panels: core::ops::Range<usize>,
) {
    for q in panels {
        let x0 = q * w;
        let sub = Src {
            ptr: src.at(x0, 0),
            ..src
        };
        // SAFETY: panel `q` writes `dst[q*w*kc .. (q+1)*w*kc]` (within the caller's
        // bound) and reads elements `x0 .. x0 + width` (below `len`) for `p < kc`.
        unsafe { panel(dst.add(q * w * kc), sub, w.min(len - x0), w, kc) };
    }
}
