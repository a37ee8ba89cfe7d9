//! Batches of products of one shape and one layout (`gemm_batch`): the views are
//! checked once for the whole batch, the tier's table looked up once, and each
//! product goes straight to the driver (for tiny ones, the register path of
//! `small.rs`), the batch's products spread over the pool when each is too small to
//! split itself.

use super::mat::{in_bounds_axes, overlaps};
use super::{driver, path, scratch, GemmElement, Tuning};
use crate::Tier;

/// A batch of matrices in one slice: product `q` (row-major over `batch`, the
/// batch's index `(q_0, q_1, ..)`) is the `rows x cols` matrix whose element
/// `(i, j)` is `data[offset + Σ q_x * strides[x] + i * row_stride + j *
/// col_stride]`. A batch stride of 0 repeats one matrix (a broadcast operand).
///
/// ```
/// use ndsimd_kernels::gemm::BatchRef;
/// let data = [0.0f64; 12];
/// // Three 2x2 row-major matrices, 4 apart.
/// assert!(BatchRef::new(&data, 0, &[3], &[4], 2, 2, 2, 1).is_some());
/// assert!(BatchRef::new(&data, 0, &[4], &[4], 2, 2, 2, 1).is_none()); // a fourth is past the end
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BatchRef<'a, T> {
    data: &'a [T],
    offset: usize,
    batch: &'a [usize],
    strides: &'a [isize],
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
}

/// A writable batch, laid out as [`BatchRef`]: no two elements of it, in the same
/// product or in two, share memory.
///
/// ```
/// use ndsimd_kernels::gemm::BatchMut;
/// let mut data = [0.0f32; 12];
/// assert!(BatchMut::new(&mut data, 0, &[3], &[4], 2, 2, 2, 1).is_some());
/// // Products 3 apart overlap the 2x2 matrices' last elements.
/// assert!(BatchMut::new(&mut data, 0, &[3], &[3], 2, 2, 2, 1).is_none());
/// ```
#[derive(Debug)]
pub struct BatchMut<'a, T> {
    data: &'a mut [T],
    offset: usize,
    batch: &'a [usize],
    strides: &'a [isize],
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
}

/// The batch axes and the two matrix axes of a layout, as `(length, stride)`.
fn axes<'s>(
    batch: &'s [usize],
    strides: &'s [isize],
    (rows, cols, rs, cs): (usize, usize, isize, isize),
) -> impl Iterator<Item = (usize, isize)> + Clone + 's {
    batch
        .iter()
        .copied()
        .zip(strides.iter().copied())
        .chain([(rows, rs), (cols, cs)])
}

impl<'a, T> BatchRef<'a, T> {
    /// The batch view described in [`BatchRef`]'s doc; `None` when `strides` is not
    /// as long as `batch` or any element lies outside `data` (an empty batch, or
    /// empty matrices, are always accepted).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        data: &'a [T],
        offset: usize,
        batch: &'a [usize],
        strides: &'a [isize],
        rows: usize,
        cols: usize,
        row_stride: isize,
        col_stride: isize,
    ) -> Option<Self> {
        let lay = (rows, cols, row_stride, col_stride);
        (batch.len() == strides.len()
            && in_bounds_axes(data.len(), offset, axes(batch, strides, lay)))
        .then_some(BatchRef {
            data,
            offset,
            batch,
            strides,
            rows,
            cols,
            rs: row_stride,
            cs: col_stride,
        })
    }
}

impl<'a, T> BatchMut<'a, T> {
    /// The writable batch view; `None` as for [`BatchRef::new`], and when two
    /// elements may share memory. Beyond one matrix (checked exactly, as
    /// [`super::MatMut::new`] does), the check is sufficient rather than exact: the
    /// batch axes, from the smallest stride up, must each step past everything the
    /// axes below it reach (so interleaved products are refused).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        data: &'a mut [T],
        offset: usize,
        batch: &'a [usize],
        strides: &'a [isize],
        rows: usize,
        cols: usize,
        row_stride: isize,
        col_stride: isize,
    ) -> Option<Self> {
        let lay = (rows, cols, row_stride, col_stride);
        let ok = batch.len() == strides.len()
            && in_bounds_axes(data.len(), offset, axes(batch, strides, lay))
            && !batch_overlaps(batch, strides, lay);
        ok.then_some(BatchMut {
            data,
            offset,
            batch,
            strides,
            rows,
            cols,
            rs: row_stride,
            cs: col_stride,
        })
    }
}

/// Batch axes kept on the stack by [`walk`] and [`batch_overlaps`]: every batch an
/// array can have (64 axes at most, two of them the matrix's).
const STACK_AXES: usize = 64;

/// Whether two elements of the batch may share memory (see [`BatchMut::new`]).
fn batch_overlaps(
    batch: &[usize],
    strides: &[isize],
    (rows, cols, rs, cs): (usize, usize, isize, isize),
) -> bool {
    if rows == 0 || cols == 0 || batch.contains(&0) {
        return false;
    }
    if overlaps(rows, cols, rs, cs) {
        return true;
    }
    let reach = |len: usize, s: isize| (len as u128 - 1) * s.unsigned_abs() as u128;
    let mut span = reach(rows, rs) + reach(cols, cs);
    // On the stack, as in `walk`.
    let mut stack = [(0usize, 0usize); STACK_AXES];
    let mut heap = Vec::new();
    let outer: &mut [(usize, usize)] = if batch.len() <= STACK_AXES {
        &mut stack[..batch.len()]
    } else {
        heap.resize(batch.len(), (0, 0));
        &mut heap
    };
    let mut used = 0;
    for (&len, &s) in batch.iter().zip(strides) {
        if len > 1 {
            outer[used] = (s.unsigned_abs(), len);
            used += 1;
        }
    }
    let outer = &mut outer[..used];
    outer.sort_unstable();
    for &mut (step, len) in outer {
        if step as u128 <= span {
            return true;
        }
        span += (len as u128 - 1) * step as u128;
    }
    false
}

/// `C_q = alpha * A_q * B_q + beta * C_q` for every product `q` of the batch, with
/// the active tier's kernels, on up to `threads` participants of the
/// [`crate::pool`]: the batch's products spread over them when each is too small to
/// split itself (below `path::PARALLEL_MIN` multiply-adds), else each product split
/// in turn. Each product's result is [`super::gemm`]'s, bit for bit, whatever the
/// thread count.
///
/// # Panics
///
/// If the three batch shapes differ, `a.cols != b.rows`, or C is not `a.rows x
/// b.cols` (callers validate shapes and report their own errors first).
///
/// ```
/// use ndsimd_kernels::gemm::{gemm_batch, BatchMut, BatchRef};
/// // Two 2x2 products; B is one matrix broadcast over the batch (stride 0).
/// let a = [1.0f64, 2.0, 3.0, 4.0, 0.0, 1.0, 1.0, 0.0];
/// let b = [1.0f64, 0.0, 0.0, 2.0];
/// let mut c = [0.0f64; 8];
/// let batch = [2];
/// let am = BatchRef::new(&a, 0, &batch, &[4], 2, 2, 2, 1).unwrap();
/// let bm = BatchRef::new(&b, 0, &batch, &[0], 2, 2, 2, 1).unwrap();
/// let cm = BatchMut::new(&mut c, 0, &batch, &[4], 2, 2, 2, 1).unwrap();
/// gemm_batch(1.0, am, bm, 0.0, cm, 1);
/// assert_eq!(c, [1.0, 4.0, 3.0, 8.0, 0.0, 2.0, 1.0, 0.0]);
/// ```
pub fn gemm_batch<T: GemmElement>(
    alpha: T,
    a: BatchRef<'_, T>,
    b: BatchRef<'_, T>,
    beta: T,
    c: BatchMut<'_, T>,
    threads: usize,
) {
    let done = gemm_batch_with_tier(crate::active_tier(), alpha, a, b, beta, c, threads);
    debug_assert!(done.is_some(), "the active tier is always available");
}

internal! {
/// [`gemm_batch`] with the kernels of `tier`; `None` (and nothing done) when this
/// CPU lacks that tier.
pub fn gemm_batch_with_tier<T: GemmElement>(
    tier: Tier,
    alpha: T,
    a: BatchRef<'_, T>,
    b: BatchRef<'_, T>,
    beta: T,
    c: BatchMut<'_, T>,
    threads: usize,
) -> Option<()> {
    assert!(
        a.batch == c.batch
            && b.batch == c.batch
            && a.cols == b.rows
            && c.rows == a.rows
            && c.cols == b.cols,
        "gemm_batch: A is {:?} x {}x{}, B is {:?} x {}x{}, C is {:?} x {}x{}",
        a.batch,
        a.rows,
        a.cols,
        b.batch,
        b.rows,
        b.cols,
        c.batch,
        c.rows,
        c.cols
    );
    let kern = T::kernel(tier)?;
    let (m, n, k) = (a.rows, b.cols, a.cols);
    let count: usize = c.batch.iter().product();
    if count == 0 || m == 0 || n == 0 {
        return Some(());
    }
    let tuning = Tuning::default();
    let ra = super::mat::Raw {
        ptr: a.data.as_ptr().wrapping_add(a.offset),
        rs: a.rs,
        cs: a.cs,
    };
    let rb = super::mat::Raw {
        ptr: b.data.as_ptr().wrapping_add(b.offset),
        rs: b.rs,
        cs: b.cs,
    };
    let rc = super::mat::RawMut {
        ptr: c.data.as_mut_ptr().wrapping_add(c.offset),
        rs: c.rs,
        cs: c.cs,
    };
    let volume = m.saturating_mul(n).saturating_mul(k);
    let strides = [a.strides, b.strides, c.strides];
    let batch = c.batch;
    // The path depends on the shape and the strides only: a tiny product's is
    // chosen once, and each product goes straight to the tier's register path.
    let register = match path::choose(kern, &tuning, (m, n, k), alpha, (ra, rb, rc), 1) {
        path::Path::Register(r) => Some((r.m, r.n, r.kc, r.flipped)),
        _ => None,
    };
    // Contiguous row-major products of at most `TINY_SIDE` a side: the kernel of
    // their shape (`gemm_tiny_rows`'s, the same bits), looked up once; it skips the
    // register path's strides and buffers (1000 x 8² on Zen 4: 43-49 -> 39-41 µs).
    let row_major = |r: &super::mat::Raw<T>, cols: usize| r.rs == cols as isize && r.cs == 1;
    let rows_kernel = (super::tiny_fits(alpha, (m, k, n))
        && row_major(&ra, k)
        && row_major(&rb, n)
        && rc.rs == n as isize
        && rc.cs == 1)
        .then(|| kern.tiny_rows[m - 1][n - 1]);
    // Products `range` of the batch, each on `inner` threads.
    let run = |range: core::ops::Range<usize>, inner: usize| {
        walk(batch, strides, range, |[oa, ob, oc]| {
            let (pa, pb, pc) = (ra.shifted(oa), rb.shifted(ob), rc.shifted(oc));
            if let Some(rows) = rows_kernel {
                // SAFETY: `tiny_fits` holds for the shape; the checked batch views
                // hold product `q`'s A, B and C as `m * k`, `k * n` and `m * n`
                // contiguous row-major elements at these offsets, C shared with
                // neither (borrowed mutably); `kern` exists only on its tier's CPU.
                unsafe { rows(k, pa.ptr, pb.ptr, pc.ptr, alpha, beta) };
                return;
            }
            if let Some((rm, rn, kc, flipped)) = register {
                let (a, b, c) = if flipped {
                    (pb.t(), pa.t(), pc.t())
                } else {
                    (pa, pb, pc)
                };
                // SAFETY: as below; the register path's form of this product, as
                // `choose` found it for the same shape and strides (every side at
                // most `SMALL_SIDE`, `kc > 0`).
                unsafe {
                    (kern.small)(
                        (rm, rn, k, kc),
                        (a.ptr, a.rs, a.cs),
                        (b.ptr, b.rs, b.cs),
                        (c.ptr, c.rs, c.cs),
                        alpha,
                        beta,
                    )
                };
                return;
            }
            // SAFETY: the batch views were checked by `BatchRef::new` /
            // `BatchMut::new` (every element of every product in bounds, no two
            // elements of C sharing memory), have the shapes asserted above and are
            // borrowed for the call (C mutably); product `q`'s views start at the
            // offsets `walk` gives; each product is run by one chunk only; `kern`
            // exists only when the CPU has its tier.
            unsafe {
                driver::gemm(
                    kern,
                    &tuning,
                    (m, n, k),
                    (alpha, beta),
                    (pa, pb, pc),
                    inner,
                    scratch::Lent::NONE,
                )
            };
        });
    };
    let threads = threads.min(crate::pool::current_num_threads()).max(1);
    if threads > 1
        && count > 1
        && volume < path::PARALLEL_MIN
        && volume.saturating_mul(count) >= path::PARALLEL_MIN
    {
        let chunks = count.min(threads * CHUNKS_PER_THREAD);
        crate::pool::with_threads(threads, || {
            crate::pool::run(chunks, &|q| {
                let at = |q: usize| count / chunks * q + q.min(count % chunks);
                run(at(q)..at(q + 1), 1);
            })
        });
    } else {
        run(0..count, threads);
    }
    Some(())
}
}

/// Chunks of a batch per thread when its products are spread over the pool: each
/// worker starts on its own and steals the others' (as the GEMM's bands).
const CHUNKS_PER_THREAD: usize = 4;

/// Calls `f` with the element offsets of products `range` (row-major over `batch`)
/// in the three layouts of `strides`, in order, stepping an odometer.
fn walk(
    batch: &[usize],
    strides: [&[isize]; 3],
    range: core::ops::Range<usize>,
    mut f: impl FnMut([isize; 3]),
) {
    if range.is_empty() {
        return;
    }
    // On the stack for any batch an array can have (a workspace's product must not
    // allocate); a longer one, which no array makes, on the heap.
    let mut stack = [0usize; STACK_AXES];
    let mut heap = Vec::new();
    let idx: &mut [usize] = if batch.len() <= STACK_AXES {
        &mut stack[..batch.len()]
    } else {
        heap.resize(batch.len(), 0);
        &mut heap
    };
    let mut off = [0isize; 3];
    let mut q = range.start;
    for x in (0..batch.len()).rev() {
        idx[x] = q % batch[x];
        q /= batch[x];
        for (o, s) in off.iter_mut().zip(strides) {
            *o += idx[x] as isize * s[x];
        }
    }
    for left in (0..range.len()).rev() {
        f(off);
        if left == 0 {
            break;
        }
        // The next index: the last axis steps, carrying into the ones before.
        let mut x = batch.len();
        while x > 0 {
            x -= 1;
            idx[x] += 1;
            for (o, s) in off.iter_mut().zip(strides) {
                *o += s[x];
            }
            if idx[x] < batch[x] {
                break;
            }
            for (o, s) in off.iter_mut().zip(strides) {
                *o -= batch[x] as isize * s[x];
            }
            idx[x] = 0;
        }
    }
}
