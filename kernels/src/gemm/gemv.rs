//! Matrix times vector, `y = alpha * A x + beta * y`, for an A whose rows are
//! contiguous (unit column stride): one pass over A, several rows at a time so each
//! loaded piece of `x` serves all of them, two vector accumulators per row (enough
//! multiply-adds in flight to hide their latency with four rows).
//!
//! Each row is summed in one fixed order, whichever group of rows it falls in and
//! however the rows are split over threads: lanes `j` and `N + j` of every `2N`
//! elements into accumulators 0 and 1, a last whole vector into accumulator 0, the
//! two added, their lanes added left to right, then the last `k mod N` products one
//! by one (multiply, then add). So results do not depend on the thread count.
//! Multiply-adds are fused on the tiers with FMA, as in the GEMM kernels.

use crate::vector::FloatVector;

/// Rows of A handled together by the wide form (8 accumulators with two per row).
pub(crate) const ROWS: usize = 4;

/// `y[i * ys] = alpha * (A[i, :] · x) + beta * y[i * ys]` for `i < R`, A's row `i` at
/// `a + i * lda`, `k` elements each; with `beta == None`, `y` is not read.
///
/// # Safety
/// Inside a function with `V`'s features; the `R` rows of `k` elements and `x`'s `k`
/// elements are valid for reads, the `R` elements of `y` for writes (and reads when
/// `beta` is `Some`).
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the GEMM kernels' calling convention, plus x
pub(crate) unsafe fn rows<V: FloatVector, const R: usize>(
    k: usize,
    a: *const V::T,
    lda: isize,
    x: *const V::T,
    y: *mut V::T,
    ys: isize,
    alpha: V::T,
    beta: Option<V::T>,
) where
    V::T: core::ops::Add<Output = V::T> + core::ops::Mul<Output = V::T>,
{
    // SAFETY: `V`'s features are present; the loads of A's rows and x are at `p .. p
    // + 2N` (or `p + N`) with that end at most `k`, the scalar tail reads `p .. k`, and
    // `lanes` holds `64 >= N` elements: all as the contract allows.
    unsafe {
        let n = V::N;
        let row = |r: usize| a.offset(r as isize * lda);
        let mut acc = [[V::zero(); 2]; R];
        let mut p = 0;
        while p + 2 * n <= k {
            let (x0, x1) = (V::load(x.add(p)), V::load(x.add(p + n)));
            for (r, acc) in acc.iter_mut().enumerate() {
                acc[0] = V::madd(V::load(row(r).add(p)), x0, acc[0]);
                acc[1] = V::madd(V::load(row(r).add(p + n)), x1, acc[1]);
            }
            p += 2 * n;
        }
        if p + n <= k {
            let x0 = V::load(x.add(p));
            for (r, acc) in acc.iter_mut().enumerate() {
                acc[0] = V::madd(V::load(row(r).add(p)), x0, acc[0]);
            }
            p += n;
        }
        for (r, acc) in acc.iter().enumerate() {
            let mut lanes = [*x; 64];
            V::add(acc[0], acc[1]).store(lanes.as_mut_ptr());
            let mut s = lanes[0];
            for &l in &lanes[1..n] {
                s = s + l;
            }
            for q in p..k {
                s = s + *row(r).add(q) * *x.add(q);
            }
            let out = y.offset(r as isize * ys);
            let t = s * alpha;
            *out = match beta {
                None => t,
                Some(b) => t + b * *out,
            };
        }
    }
}

/// A tier's matrix-vector kernel: `(m, k, a, lda, x, y, ys, alpha, beta)` over `m`
/// rows, [`ROWS`] at a time (then one at a time: the same per-row arithmetic).
///
/// # Safety
/// The CPU has the kernel's tier; as [`rows`] for all `m` rows; `beta == 0` means `y`
/// is not read.
pub type GemvFn<T> = unsafe fn(
    m: usize,
    k: usize,
    a: *const T,
    lda: isize,
    x: *const T,
    y: *mut T,
    ys: isize,
    alpha: T,
    beta: T,
);
