//! Matrix times vector, `y = alpha * A x + beta * y`, for an A whose rows are
//! contiguous (unit column stride): one pass over A, several rows at a time so each
//! loaded piece of `x` serves all of them, two vector accumulators per row (enough
//! multiply-adds in flight to hide their latency with four rows).
//!
//! Each row is summed in one fixed order, whichever group of rows it falls in and
//! however the rows are split over threads. The row is cut into blocks of
//! [`block_len`] elements (2 KiB, as `sum` and `dot`; the last one short). In a block,
//! lanes `j` and `N + j` of every `2N` elements go into accumulators 0 and 1, a last
//! whole vector into accumulator 0, and the two are added. The blocks' vectors are
//! added pairwise lane by lane in the tree of
//! [`Pairwise`](crate::scalar::Pairwise) (fixed by `k`), then their lanes left to
//! right, then the last `k mod N` products one by one (multiply, then add). A row of
//! one block is summed as before blocks existed. So results do not depend on the
//! thread count, and a row's error is at most `γ_d·Σ|a_p·x_p|` with
//! `d = ⌈min(k, B)/2N⌉ + 2N + ⌈log2⌈k/B⌉⌉` (`u` = 2⁻⁵³ for `f64`, 2⁻²⁴ for `f32`),
//! where summing the whole row lane by lane gave `k/2N`. The lanes are folded once
//! per row, not per block: folding each block cost up to a fifth of the time.
//! Multiply-adds are fused on the tiers with FMA, as in the GEMM kernels, and `N` is
//! the tier's vector width: the bits differ between tiers.

use core::mem::MaybeUninit;

use crate::scalar::block_len;
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
    // SAFETY: `V`'s features are present; every block lies inside the rows' and x's
    // `k` elements, the `R` writes (and reads) of y are the contract's.
    unsafe {
        let b = block_len::<V::T>();
        // Block `j` of the row (the last one short): its partials and where its whole
        // vectors end. A macro, not a closure: a closure does not get the caller's
        // target features, so its vector calls would not inline.
        macro_rules! leaf {
            ($j:expr) => {{
                let at = $j * b;
                if at + b <= k {
                    // A constant length: the block's loop is unrolled flat.
                    (block::<V, R>(b, a.add(at), lda, x.add(at)).0, at + b)
                } else {
                    let (v, p) = block::<V, R>(k - at, a.add(at), lda, x.add(at));
                    (v, at + p)
                }
            }};
        }
        let (v, p) = if k <= b {
            block::<V, R>(k, a, lda, x)
        } else if k <= 4 * b {
            // Up to four blocks: the tree written out, the partials in registers.
            let ((l0, _), (l1, p1)) = (leaf!(0), leaf!(1));
            match k.div_ceil(b) {
                2 => (add::<V, R>(l0, l1), p1),
                3 => {
                    let (l2, p2) = leaf!(2);
                    (add::<V, R>(add::<V, R>(l0, l1), l2), p2)
                }
                _ => {
                    let ((l2, _), (l3, p3)) = (leaf!(2), leaf!(3));
                    (add::<V, R>(add::<V, R>(l0, l1), add::<V, R>(l2, l3)), p3)
                }
            }
        } else {
            let mut tree = Tree::<V, R>::new();
            let mut j = 0;
            let mut p = 0;
            while j * b < k {
                let (v, end) = leaf!(j);
                tree.push(v);
                (j, p) = (j + 1, end);
            }
            (tree.finish(), p)
        };
        for (r, v) in v.into_iter().enumerate() {
            let row = a.offset(r as isize * lda);
            let mut lanes = [*x; 64];
            v.store(lanes.as_mut_ptr());
            let mut s = lanes[0];
            for &l in &lanes[1..V::N] {
                s = s + l;
            }
            for q in p..k {
                s = s + *row.add(q) * *x.add(q);
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

/// The partials of `A[i, ..k] · x[..k]` for `i < R` (the two accumulators of the
/// module docs, added), and how many elements they hold (`k` rounded down to a
/// multiple of `N`; the caller adds the rest one by one).
///
/// # Safety
/// As [`rows`], for `k` elements of each row and of x.
#[inline(always)]
unsafe fn block<V: FloatVector, const R: usize>(
    k: usize,
    a: *const V::T,
    lda: isize,
    x: *const V::T,
) -> ([V; R], usize) {
    // SAFETY: `V`'s features are present; the loads of A's rows and x are at `p .. p
    // + 2N` (or `p + N`) with that end at most `k`, as the contract allows.
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
        (acc.map(|[a0, a1]| V::add(a0, a1)), p)
    }
}

/// `l + r` lane by lane, row by row.
///
/// # Safety
/// Inside a function with `V`'s features.
#[inline(always)]
unsafe fn add<V: FloatVector, const R: usize>(l: [V; R], r: [V; R]) -> [V; R] {
    let mut s = l;
    for (s, r) in s.iter_mut().zip(r) {
        // SAFETY: `V`'s features are present (the contract).
        *s = unsafe { V::add(*s, r) };
    }
    s
}

/// [`Pairwise`](crate::scalar::Pairwise)'s tree over the blocks' partials, lane by lane. Its stack is not
/// initialised: only slots pushed are read, and filling 64 slots for every group of
/// rows would cost a short row a tenth of its time.
struct Tree<V, const R: usize> {
    /// The roots of the finished perfect subtrees, largest first.
    stack: [MaybeUninit<[V; R]>; 64],
    depth: usize,
    count: u64,
}

impl<V: FloatVector, const R: usize> Tree<V, R> {
    #[inline(always)]
    fn new() -> Self {
        Self {
            stack: [const { MaybeUninit::uninit() }; 64],
            depth: 0,
            count: 0,
        }
    }

    /// As [`Pairwise::push`](crate::scalar::Pairwise::push).
    ///
    /// # Safety
    /// Inside a function with `V`'s features.
    #[inline(always)]
    unsafe fn push(&mut self, mut v: [V; R]) {
        let mut c = self.count;
        while c & 1 == 1 {
            self.depth -= 1;
            // SAFETY: slots below `depth` were written by earlier pushes; `V`'s
            // features are present (the contract).
            v = unsafe { add::<V, R>(self.stack[self.depth].assume_init(), v) };
            c >>= 1;
        }
        self.stack[self.depth].write(v);
        self.depth += 1;
        self.count += 1;
    }

    /// As [`Pairwise::finish`](crate::scalar::Pairwise::finish), after at least one push.
    ///
    /// # Safety
    /// Inside a function with `V`'s features; at least one push.
    #[inline(always)]
    unsafe fn finish(self) -> [V; R] {
        // SAFETY: slots below `depth >= 1` were written by pushes; `V`'s features
        // are present (the contract).
        unsafe {
            let top = self.depth - 1;
            let mut v = self.stack[top].assume_init();
            for s in self.stack[..top].iter().rev() {
                v = add::<V, R>(s.assume_init(), v);
            }
            v
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
