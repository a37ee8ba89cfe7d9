//! Packing: copies a block of A into `MR`-tall panels and a block of B into `NR`-wide
//! panels, in the order the micro-kernel reads them, from any strides.
//!
//! Both are the same operation seen from the panel: element `x` (a row of A, a column
//! of B) at step `p` of the k-loop lands at `dst[p * w + x]`, read from
//! `src + x * along + p * step`. For A `along` is its row stride and `step` its column
//! stride; for B `along` is its column stride and `step` its row stride. A panel
//! narrower than `w` (the last one of a block) is padded with zeros, so the kernel
//! always runs a full tile.

use super::gather::Gather8Fn;
use super::kernel::{prefetch, Ahead, LINE};
use crate::scalar::Arith;

/// `$body` with the constant `$W` equal to `$w` when `$w` is a panel width some
/// kernel uses (so the copy loops unroll into straight moves), else `$other`. Every
/// kernel's `MR` and `NR` belongs in the list (a test holds them to it): a missing
/// width copies its panels an element at a time (docs/design.md#packing-and-prefetch).
macro_rules! by_width {
    ($w:expr, $W:ident => $body:expr, _ => $other:expr) => {
        by_width!(@ $w, $W, $body, $other; 4 6 8 12 16 24 32 48)
    };
    (@ $w:expr, $W:ident, $body:expr, $other:expr; $($n:literal)*) => {
        match $w {
            $($n => {
                const $W: usize = $n;
                $body
            })*
            _ => $other,
        }
    };
}

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

/// The lines of a `width x kc` block's source (element `x` at step `p` at
/// `src.at(x, p)`) as runs for a kernel to prefetch ([`Ahead`]): one run per element
/// when steps are contiguous (`step == 1`), one per step when elements are
/// (`along == 1`), none otherwise (a line per element would crowd the kernel's
/// loads). A run that starts mid-line spans one line more.
pub(crate) fn ahead<T>(src: Src<T>, width: usize, kc: usize) -> Ahead {
    let size = size_of::<T>();
    let (rows, row, span) = match (src.step, src.along) {
        (1, along) => (width, along, kc),
        (step, 1) => (kc, step, width),
        _ => return Ahead::NONE,
    };
    let (at, row) = (src.ptr.cast::<u8>(), row * size as isize);
    let aligned = (at as usize).is_multiple_of(LINE) && row.unsigned_abs().is_multiple_of(LINE);
    let lines = (span * size).div_ceil(LINE) + usize::from(!aligned);
    Ahead {
        at,
        row,
        lines,
        from: 0,
        to: lines * rows,
    }
}

/// Packs one panel: `dst[p * w + x] = src(x, p)` for `x < width`, `0` for
/// `width <= x < w`, `p < kc`.
///
/// `gather`, when given, packs groups of eight elements contiguous along k (see
/// [`fixed`]).
///
/// # Safety
/// `dst` is valid for `kc * w` writes; `src.at(x, p)` is valid for reads for every
/// `x < width`, `p < kc`; the CPU has `gather`'s features, when given.
#[inline]
pub(crate) unsafe fn panel<T: Arith>(
    dst: *mut T,
    src: Src<T>,
    width: usize,
    w: usize,
    kc: usize,
    gather: Option<Gather8Fn<T>>,
) {
    // SAFETY: the caller's contract, passed on (`fixed` has the same one with
    // `w == W`).
    unsafe {
        by_width!(w, W => fixed::<T, W>(dst, src, width, kc, gather), _ => general(dst, src, width, w, kc))
    }
}

/// [`panel`] for a width known at compile time, so that a full panel's inner loops
/// unroll into straight moves (no `memcpy` call per step).
///
/// A panel of whole groups of eight elements, each contiguous along k, goes to the
/// tier's vector gather when it has one (`gather.rs`). Otherwise, a panel wider
/// than [`ALIAS_WAYS`] whose elements are not contiguous (B^T's rows
/// as the kernel's A, when B is stored transposed) is gathered [`STEP_GROUP`] steps
/// at a time, element by element: each element's run of steps (a line when steps
/// are contiguous) is read whole before the next, with a hint for the run
/// [`GATHER_AHEAD`] groups on. A step at a time read one element of each of the `W`
/// runs in turn; with a power-of-two row stride all `W` lines fall in one L1 set
/// and evicted each other before their next element was read.
///
/// # Safety
/// As [`panel`] with `w == W`.
#[inline(always)]
unsafe fn fixed<T: Arith, const W: usize>(
    dst: *mut T,
    src: Src<T>,
    width: usize,
    kc: usize,
    gather: Option<Gather8Fn<T>>,
) {
    if width < W {
        // SAFETY: the caller's contract.
        return unsafe { general(dst, src, width, W, kc) };
    }
    // The loops' note: each read is `src.at(x, p)` with `x < W == width`,
    // `p < kc`, and each write `dst + p * W + x`, as the caller allows.
    if src.along == 1 {
        for p in 0..kc {
            // SAFETY: see the loops' note above (the `W` elements of step `p`).
            unsafe { core::ptr::copy_nonoverlapping(src.at(0, p), dst.add(p * W), W) };
        }
    } else if let (Some(gather8), 1, 0) = (gather, src.step, W % 8) {
        for x0 in (0..W).step_by(8) {
            // SAFETY: rows `x0 .. x0 + 8 <= W` of the panel, steps contiguous, and
            // their columns of `dst`, as the caller allows, who also vouches for
            // `gather8`'s features (the kernel that holds it is handed out only on a
            // CPU with its tier).
            unsafe { gather8(dst.add(x0), W, src.at(x0, 0), src.along, kc) };
        }
    } else if W > ALIAS_WAYS {
        for p0 in (0..kc).step_by(STEP_GROUP) {
            let steps = p0..(p0 + STEP_GROUP).min(kc);
            for x in 0..W {
                prefetch::<true>(src.at(x, p0 + GATHER_AHEAD * STEP_GROUP).cast());
                for p in steps.clone() {
                    // SAFETY: see the loops' note above.
                    unsafe { *dst.add(p * W + x) = *src.at(x, p) };
                }
            }
        }
    } else {
        for p in 0..kc {
            for x in 0..W {
                // SAFETY: see the loops' note above.
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
    // The function's note: each read is `src.at(x, p)` with `x < width`,
    // `p < kc`, and each write `dst + p * w + x` with `x < w`, `p < kc`, as the
    // caller allows.
    for p in 0..kc {
        for x in 0..width {
            // SAFETY: see the function's note above.
            unsafe { *dst.add(p * w + x) = *src.at(x, p) };
        }
        for x in width..w {
            // SAFETY: see the function's note above.
            unsafe { *dst.add(p * w + x) = T::ZERO };
        }
    }
}

/// Packs panels `q` in `panels` of a block `len` wide (panel `q` covers elements
/// `q * w .. min((q + 1) * w, len)` and lands at `dst + q * w * kc`).
///
/// When the block's elements are contiguous along the panels (`along == 1`: a row
/// of B^T is a run of B's row), the full panels are packed a step at a time, each
/// step reading one contiguous run across all of them, instead of a panel at a
/// time (one cache line per step, each on another page when the rows are long;
/// docs/design.md#packing-and-prefetch).
///
/// The steps go [`STEP_GROUP`] at a time, each group panel by panel, so every
/// panel receives whole cache lines in a row (see there).
///
/// # Safety
/// `dst` is valid for `panels.end * w * kc` writes; `src.at(x, p)` is valid for reads
/// for every `x < len`, `p < kc`; the CPU has `gather`'s features, when given.
pub(crate) unsafe fn block<T: Arith>(
    dst: *mut T,
    src: Src<T>,
    len: usize,
    w: usize,
    kc: usize,
    panels: core::ops::Range<usize>,
    gather: Option<Gather8Fn<T>>,
) {
    let full = panels.start..panels.end.min(len / w).max(panels.start);
    if src.along == 1 && full.len() > 1 {
        // SAFETY: the full panels `full` (each `w` elements below `len`), packed as
        // the caller allows; the rest below as in the panel loop.
        unsafe {
            by_width!(
                w,
                W => by_steps::<T, W>(dst, src, full.clone(), kc),
                _ => return panel_by_panel(dst, src, len, w, kc, panels, gather)
            );
            panel_by_panel(dst, src, len, w, kc, full.end..panels.end, gather)
        }
    } else {
        // SAFETY: the caller's contract.
        unsafe { panel_by_panel(dst, src, len, w, kc, panels, gather) }
    }
}

/// Steps [`by_steps`] copies per panel before it moves to the next panel: eight
/// rows of a panel are `8 * W` elements, whole cache lines for every panel width
/// (even) and element size the kernels use, so each line of a panel is written
/// whole at once. A step at a time wrote `W` elements into every panel in turn,
/// panels `W * KC` elements apart (often in one L1 set), so lines left L1 half
/// written (docs/design.md#packing-and-prefetch). The runs read stay sequential,
/// eight rows at once.
const STEP_GROUP: usize = 8;

/// The full panels `panels` (each `W` wide) of a block contiguous along them
/// (`src.along == 1`), [`STEP_GROUP`] k-steps at a time: for each group, each
/// panel's rows of those steps, step `p` copying the run `src.at(q * W, p) ..` of
/// `W` elements into panel `q`'s row `p`.
///
/// # Safety
/// As [`block`], with `src.along == 1` and every panel in `panels` full.
#[inline(always)]
unsafe fn by_steps<T: Arith, const W: usize>(
    dst: *mut T,
    src: Src<T>,
    panels: core::ops::Range<usize>,
    kc: usize,
) {
    for p0 in (0..kc).step_by(STEP_GROUP) {
        let steps = p0..(p0 + STEP_GROUP).min(kc);
        for q in panels.clone() {
            for p in steps.clone() {
                // SAFETY: elements `q * W .. q * W + W` of step `p < kc`, below `len`
                // (the panel is full), contiguous (`along == 1`); the write is panel
                // `q`'s row `p`, within `dst + q * W * kc ..+ W * kc`.
                unsafe {
                    core::ptr::copy_nonoverlapping(src.at(q * W, p), dst.add(q * W * kc + p * W), W)
                };
            }
        }
    }
}

/// Panels at most this wide keep the step-at-a-time gather of [`fixed`]: the lines
/// of one step fit in one set of an 8-way L1 even when the row stride is a multiple
/// of 4 KiB. Wider panels gather eight steps of a row at a time
/// (docs/design.md#packing-and-prefetch).
const ALIAS_WAYS: usize = 8;

/// How many groups of [`STEP_GROUP`] steps ahead [`fixed`]'s grouped gather asks for
/// its runs (docs/design.md#packing-and-prefetch).
const GATHER_AHEAD: usize = 2;

/// [`block`] a panel at a time.
///
/// # Safety
/// As [`block`].
unsafe fn panel_by_panel<T: Arith>(
    dst: *mut T,
    src: Src<T>,
    len: usize,
    w: usize,
    kc: usize,
    panels: core::ops::Range<usize>,
    gather: Option<Gather8Fn<T>>,
) {
    for q in panels {
        let x0 = q * w;
        let sub = Src {
            ptr: src.at(x0, 0),
            ..src
        };
        // SAFETY: panel `q` writes `dst[q*w*kc .. (q+1)*w*kc]` (within the caller's
        // bound) and reads elements `x0 .. x0 + width` (below `len`) for `p < kc`.
        unsafe { panel(dst.add(q * w * kc), sub, w.min(len - x0), w, kc, gather) };
    }
}

#[cfg(test)]
mod tests {
    use super::super::kernel::Walk;
    use super::*;
    use std::collections::BTreeSet;

    /// The lines the kernels of `calls` tiles of `kc` steps ask for, when they share
    /// the plan of a `width x kc` block at `src` as the driver shares it.
    fn asked(src: Src<f64>, width: usize, kc: usize, calls: usize) -> Vec<usize> {
        let plan = ahead(src, width, kc);
        let mut out = vec![];
        for i in 0..calls {
            let mut walk = Walk::new(plan.part(i, calls), kc / 4);
            for _ in 0..kc / 4 {
                let at = out.len();
                walk.trip(|p| out.push(p as usize / LINE));
                assert!(out.len() - at <= 3, "more than three a trip");
            }
        }
        out
    }

    /// Every line of the block's elements is asked for, and not many more than
    /// those (one extra per run at most, for runs that start mid-line).
    #[test]
    fn plans_cover_the_next_block() {
        let data = vec![0.0f64; 1 << 16];
        // Offsets count from a line boundary.
        let base = data.as_ptr().wrapping_add(data.as_ptr().align_offset(LINE));
        // (offset, along, step, width, kc, calls): a B^T panel of a row-major A
        // (steps contiguous), a row-major B panel (elements contiguous), aligned and
        // not, one and several calls, negative strides.
        let cases = [
            (0, 1024, 1, 6, 336, 2),
            (3, 1024, 1, 6, 336, 2),
            (8, 700, 1, 4, 100, 1),
            (0, 1, 512, 6, 336, 2),
            (5, 1, 100, 8, 64, 7),
            (0, 1, 4096, 512, 32, 192),
            (60000, -1000, 1, 6, 40, 3),
            (60000, 1, -300, 6, 40, 4),
        ];
        for (off, along, step, width, kc, calls) in cases {
            let src = Src {
                ptr: base.wrapping_add(off),
                along,
                step,
            };
            let got: BTreeSet<usize> = asked(src, width, kc, calls).into_iter().collect();
            let mut want = BTreeSet::new();
            for x in 0..width {
                for p in 0..kc {
                    want.insert(src.at(x, p) as usize / LINE);
                }
            }
            let missing: Vec<_> = want.difference(&got).collect();
            assert!(
                missing.is_empty(),
                "case {off} {along} {step}: {} lines missed",
                missing.len()
            );
            let runs = if step == 1 { width } else { kc };
            assert!(
                got.len() <= want.len() + runs,
                "case {off} {along} {step}: too many"
            );
        }
    }

    /// Every tile dimension of every kernel the host can run has its unrolled copy
    /// loops (`by_width!`): a width missing from the list falls to `general`, an
    /// element at a time, and nothing else would say so.
    #[test]
    fn every_kernel_width_is_unrolled() {
        use super::super::sealed::Sealed;
        let listed = |w: usize| by_width!(w, W => W == w, _ => false);
        for tier in crate::available_tiers() {
            let shapes = [
                <f64 as Sealed>::kernel(tier).map(|k| (k.mr, k.nr)),
                <f32 as Sealed>::kernel(tier).map(|k| (k.mr, k.nr)),
            ];
            for (mr, nr) in shapes.into_iter().flatten() {
                assert!(listed(mr) && listed(nr), "{tier}: {mr} x {nr}");
            }
        }
    }

    /// Neither stride unit: nothing asked (a line per element would crowd the
    /// kernel's own loads); and a plan larger than three lines a trip is cut, not
    /// spread past the kernel's end.
    #[test]
    fn plans_stay_within_bounds() {
        let data = vec![0.0f64; 1 << 12];
        let src = Src {
            ptr: data.as_ptr(),
            along: 3,
            step: 40,
        };
        assert_eq!(ahead(src, 6, 16,), Ahead::NONE);
        let src = Src {
            step: 1,
            along: 64,
            ..src
        };
        // 6 runs of 8 lines over 2 trips: 6 asked.
        assert_eq!(asked(src, 6, 64, 1).len(), 3 * (64 / 4));
        assert_eq!(asked(src, 6, 8, 1).len(), 6);
    }
}
