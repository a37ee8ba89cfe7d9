//! Matrix multiplication: `C = alpha * A * B + beta * C` on strided views.
//!
//! The BLIS loop nest (`NC -> KC -> MC -> NR -> MR`, in `driver.rs`) around one
//! micro-kernel per tier and element type (`kernel.rs`: one template over each
//! tier's vectors from `crate::vector`). A is packed into `MR`-tall panels and B into
//! `NR`-wide panels (`pack.rs`), read from any strides, so transposed, sliced,
//! reversed or broadcast operands cost no extra pass; edge tiles run the same kernel
//! on zero-padded panels. Block sizes come from the cache sizes (`block.rs`). Products
//! of at most 32 on every side run the register path (`small.rs`): the direct path's
//! register blocks on operands of any strides, rows that are not whole contiguous
//! vectors copied through stack buffers, no blocking, scratch or thread; larger ones
//! up to 56³ whose B and C rows (or A and C columns) are contiguous are read in place,
//! with SIMD but without packing or scratch (`direct.rs`). With `threads > 1`, large
//! products run on the [`crate::pool`]: the packed B block is shared, the rows (or
//! columns) are split into bands of whole tiles, and the result is bit-identical to
//! the serial one.
//!
//! | tier | f64 tile | f32 tile | multiply-add |
//! |---|---|---|---|
//! | scalar | 4x4 | 4x4 | `a * b + c` (two roundings) |
//! | sse2 | 4x4 | 8x4 | mul then add |
//! | avx2 | 8x6 | 16x6 | fused |
//! | avx512 | 24x8 | 48x8 | fused (chosen over 16x12, 32x6, 16x14, 16x8: `avx512.rs`) |
//! | neon | 8x6 | 16x6 | fused |
//!
//! Tiles are `MR x NR`; the kernel keeps `MR / lanes * NR` vector accumulators.

mod gather;
pub(crate) mod kernel;
#[macro_use]
pub(crate) mod table;

mod batch;
mod block;
mod direct;
mod driver;
mod gemv;
mod mat;
mod nest;
mod pack;
mod path;
pub(crate) mod scalar;
mod scratch;
mod small;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
#[cfg(target_arch = "aarch64")]
pub(crate) mod neon;
#[cfg(target_arch = "x86_64")]
pub(crate) mod sse2;

#[cfg(feature = "internals")]
pub use batch::gemm_batch_with_tier;
pub use batch::{gemm_batch, BatchMut, BatchRef};
pub use mat::{MatMut, MatRef};

use crate::{active_tier, KernelElement, Tier};
use table::Kernel;

mod sealed {
    /// Implemented for `f32` and `f64` only; it finds the micro-kernel of a tier.
    pub trait Sealed: Sized {
        /// The micro-kernel of `tier`, or `None` when the CPU lacks it.
        fn kernel(tier: crate::Tier) -> Option<&'static super::Kernel<Self>>;
        /// The micro-kernel of the active tier, found once.
        fn active() -> &'static super::Kernel<Self>;
    }
}

/// Element types [`gemm`] multiplies: `f32` and `f64`.
pub trait GemmElement: KernelElement + crate::scalar::Arith + sealed::Sealed {}

impl GemmElement for f32 {}
impl GemmElement for f64 {}

macro_rules! gemm_element {
    ($t:ty, $field:ident) => {
        impl sealed::Sealed for $t {
            fn kernel(tier: Tier) -> Option<&'static Kernel<$t>> {
                crate::dispatch::kernels_for(tier).map(|k| k.$field)
            }
            fn active() -> &'static Kernel<$t> {
                static ACTIVE: std::sync::OnceLock<&'static Kernel<$t>> =
                    std::sync::OnceLock::new();
                ACTIVE.get_or_init(|| {
                    Self::kernel(active_tier()).expect("the active tier is always available")
                })
            }
        }
    };
}
gemm_element!(f32, gemm_f32);
gemm_element!(f64, gemm_f64);

/// `C = alpha * A * B + beta * C` with the active tier's kernel, on up to `threads`
/// participants of the [`crate::pool`] (1 runs on the calling thread; small products
/// always do).
///
/// When `beta == 0`, C is only written, never read (so NaNs or garbage in it do not
/// leak into the result). When `k == 0` or `alpha == 0`, A and B are not read and
/// `C = beta * C` (zeros when `beta == 0`). Results do not depend on `threads`.
///
/// # Panics
///
/// If `a.cols() != b.rows()`, or C is not `a.rows() x b.cols()` (callers validate
/// shapes and report their own errors first).
///
/// ```
/// use ndsimd_kernels::gemm::{gemm, MatMut, MatRef};
/// // A = [[1, 2], [3, 4]] row-major; B = A's transpose, read from A's storage.
/// let a = [1.0f64, 2.0, 3.0, 4.0];
/// let mut c = [1.0f64; 4];
/// let am = MatRef::new(&a, 0, 2, 2, 2, 1).unwrap();
/// let bt = MatRef::new(&a, 0, 2, 2, 1, 2).unwrap();
/// gemm(2.0, am, bt, 1.0, MatMut::new(&mut c, 0, 2, 2, 2, 1).unwrap(), 1);
/// assert_eq!(c, [11.0, 23.0, 23.0, 51.0]); // 2 * A Aᵀ + 1
/// ```
pub fn gemm<T: GemmElement>(
    alpha: T,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    beta: T,
    mut c: MatMut<'_, T>,
    threads: usize,
) {
    if tiny(T::active(), alpha, &a, &b, beta, &mut c) {
        return;
    }
    let done = gemm_tuned(
        active_tier(),
        &Tuning::default(),
        alpha,
        a,
        b,
        beta,
        c,
        threads,
    );
    debug_assert!(done.is_some(), "the active tier is always available");
}

/// [`gemm`] with the kernel of `tier`; `None` (and nothing done) when this CPU lacks
/// that tier (see [`crate::available_tiers`]).
///
/// ```
/// use ndsimd_kernels::gemm::{gemm_with_tier, MatMut, MatRef};
/// use ndsimd_kernels::Tier;
/// let (a, b) = ([1.0f32, 2.0], [3.0f32, 4.0]);
/// let mut c = [f32::NAN];
/// let (a, b) = (MatRef::new(&a, 0, 1, 2, 2, 1).unwrap(), MatRef::new(&b, 0, 2, 1, 1, 1).unwrap());
/// let c = MatMut::new(&mut c, 0, 1, 1, 1, 1).unwrap();
/// assert_eq!(gemm_with_tier(Tier::Scalar, 1.0, a, b, 0.0, c, 1), Some(()));
/// ```
pub fn gemm_with_tier<T: GemmElement>(
    tier: Tier,
    alpha: T,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    beta: T,
    mut c: MatMut<'_, T>,
    threads: usize,
) -> Option<()> {
    if tiny(T::kernel(tier)?, alpha, &a, &b, beta, &mut c) {
        return Some(());
    }
    gemm_tuned(tier, &Tuning::default(), alpha, a, b, beta, c, threads)
}

/// Bytes of scratch [`gemm_in`] needs for an `m x k` by `k x n` product on up to
/// `threads` participants (capped at the pool's size now) so that its packing uses
/// nothing but that scratch, whatever the operands' layouts: the most any path the
/// product may take asks (faer's `*_scratch() -> StackReq` in one number). A
/// multiple of 64; 0 for products that pack nothing (every side at most 32).
///
/// ```
/// use ndsimd_kernels::gemm::gemm_scratch;
/// assert_eq!(gemm_scratch::<f64>(16, 16, 16, 1), 0);
/// let big = gemm_scratch::<f64>(300, 300, 300, 1);
/// assert!(big > 0 && big % 64 == 0);
/// ```
pub fn gemm_scratch<T: GemmElement>(m: usize, k: usize, n: usize, threads: usize) -> usize {
    let kern = T::kernel(active_tier()).expect("the active tier is always available");
    driver::scratch_len(kern, &Tuning::default(), (m, n, k), threads) * size_of::<T>()
}

/// [`gemm`] packing into `scratch` (the caller's memory, a workspace's slot)
/// instead of the thread's own buffers: with at least [`gemm_scratch`] bytes
/// starting on a 64-byte line, the product allocates nothing and leaves the
/// thread's buffers as they were; with less (the pool grew since it was sized),
/// or misaligned, it packs where [`gemm`] does. The same bits as [`gemm`].
/// What is left in `scratch` afterwards is unspecified (packed operands).
///
/// Under the `rayon` feature the pool's other threads have no slot of their own
/// in `scratch` and pack into their thread's buffers.
///
/// ```
/// use ndsimd_kernels::gemm::{gemm, gemm_in, gemm_scratch, MatMut, MatRef};
/// let (m, k, n) = (100, 80, 90);
/// let a: Vec<f64> = (0..m * k).map(|i| (i % 7) as f64).collect();
/// let b: Vec<f64> = (0..k * n).map(|i| (i % 5) as f64).collect();
/// let (am, bm) = (MatRef::new(&a, 0, m, k, k as isize, 1).unwrap(), MatRef::new(&b, 0, k, n, n as isize, 1).unwrap());
/// #[repr(align(64))]
/// struct Line([f64; 8]);
/// let mut lines: Vec<Line> = (0..gemm_scratch::<f64>(m, k, n, 1) / 64).map(|_| Line([0.0; 8])).collect();
/// // SAFETY (of the example): `Line` is 8 f64 with no padding.
/// let scratch = unsafe { std::slice::from_raw_parts_mut(lines.as_mut_ptr().cast::<f64>(), lines.len() * 8) };
/// let (mut c1, mut c2) = (vec![0.0; m * n], vec![0.0; m * n]);
/// gemm_in(1.0, am, bm, 0.0, MatMut::new(&mut c1, 0, m, n, n as isize, 1).unwrap(), 1, scratch);
/// gemm(1.0, am, bm, 0.0, MatMut::new(&mut c2, 0, m, n, n as isize, 1).unwrap(), 1);
/// assert_eq!(c1, c2);
/// ```
pub fn gemm_in<T: GemmElement>(
    alpha: T,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    beta: T,
    c: MatMut<'_, T>,
    threads: usize,
    scratch: &mut [T],
) {
    let mut c = c;
    if tiny(T::active(), alpha, &a, &b, beta, &mut c) {
        return;
    }
    let done = gemm_run(
        active_tier(),
        &Tuning::default(),
        (alpha, beta),
        (a, b, c),
        threads,
        scratch::Lent::new(scratch),
    );
    debug_assert!(done.is_some(), "the active tier is always available");
}

/// `C = alpha * A * B + beta * C` for contiguous row-major operands given as slices
/// (`a` holds the `m x k` A, `b` the `k x n` B, `c` the `m x n` C, each exactly that
/// long) when every side is in `1..=8` and `alpha != 0`, with the active tier's
/// fixed-width kernel: the cheapest call of the GEMM, with [`gemm`]'s bits. `false`
/// (nothing done) for any other product, slices of other lengths included: run
/// [`gemm`] on views then.
///
/// ```
/// use ndsimd_kernels::gemm::gemm_tiny_rows;
/// let (a, b) = ([1.0f64, 2.0, 3.0, 4.0], [1.0f64, 0.0, 0.0, 1.0]);
/// let mut c = [f64::NAN; 4];
/// assert!(gemm_tiny_rows(2.0, &a, &b, 0.0, &mut c, (2, 2, 2)));
/// assert_eq!(c, [2.0, 4.0, 6.0, 8.0]);
/// assert!(!gemm_tiny_rows(1.0, &a, &b, 0.0, &mut c, (1, 4, 1))); // B is not 4 x 1
/// ```
#[inline(always)]
pub fn gemm_tiny_rows<T: GemmElement>(
    alpha: T,
    a: &[T],
    b: &[T],
    beta: T,
    c: &mut [T],
    (m, k, n): (usize, usize, usize),
) -> bool {
    // The gate first: it bounds the sides, so the products cannot overflow.
    if !tiny_fits(alpha, (m, k, n)) || (a.len(), b.len(), c.len()) != (m * k, k * n, m * n) {
        return false;
    }
    // SAFETY: the shape fits; the slices hold exactly the row-major operands, C
    // borrowed mutably (so it shares nothing with A or B).
    unsafe {
        tiny_rows(
            T::active(),
            (m, k, n),
            (a.as_ptr(), b.as_ptr(), c.as_mut_ptr()),
            alpha,
            beta,
        )
    };
    true
}

/// Whether an `m x k` by `k x n` product takes the tiny path: each side in
/// `1..=small::TINY_SIDE` and `alpha != 0` (the one check of both tiny entries).
#[inline(always)]
fn tiny_fits<T: GemmElement>(alpha: T, (m, k, n): (usize, usize, usize)) -> bool {
    // `x - 1 < TINY_SIDE`: `1..=TINY_SIDE` in one comparison.
    let fits = |x: usize| x.wrapping_sub(1) < small::TINY_SIDE;
    fits(m) && fits(n) && fits(k) && alpha != T::ZERO
}

/// `kern`'s fixed-width kernel on contiguous row-major operands.
///
/// # Safety
/// [`tiny_fits`] holds for `(m, k, n)`; `a`, `b` and `c` point to the `m * k`,
/// `k * n` and `m * n` contiguous elements of A, B and C, C's shared with neither;
/// `kern` is a tier's kernel set (there is one only when the CPU has the tier).
#[inline(always)]
unsafe fn tiny_rows<T: GemmElement>(
    kern: &'static Kernel<T>,
    (m, k, n): (usize, usize, usize),
    (a, b, c): (*const T, *const T, *mut T),
    alpha: T,
    beta: T,
) {
    // SAFETY: the caller's contract (each side in `1..=TINY_SIDE` indexes the table).
    unsafe { (kern.tiny_rows[m - 1][n - 1])(k, a, b, c, alpha, beta) }
}

/// The tiny entry: a product of at most `small::TINY_SIDE` on every side (and
/// `alpha != 0`) runs `kern`'s register path with small buffers straight away,
/// before the driver's tuning, path choice and blocking; `false` (nothing done)
/// for any other, shapes that disagree included (the general path reports them).
/// Each element is the register path's sum, so the same bits as every other path.
#[inline]
fn tiny<T: GemmElement>(
    kern: &'static Kernel<T>,
    alpha: T,
    a: &MatRef<'_, T>,
    b: &MatRef<'_, T>,
    beta: T,
    c: &mut MatMut<'_, T>,
) -> bool {
    let (m, n, k) = (a.rows, b.cols, a.cols);
    if !(tiny_fits(alpha, (m, k, n)) && b.rows == k && c.rows == m && c.cols == n) {
        return false;
    }
    let (ra, rb, rc) = (a.raw(), b.raw(), c.raw());
    // Contiguous row-major operands (one test): the fixed-width kernel.
    let (ki, ni) = (k as isize, n as isize);
    if (ra.rs, ra.cs, rb.rs, rb.cs, rc.rs, rc.cs) == (ki, 1, ni, 1, ni, 1) {
        // SAFETY: as below; with these strides A's `m * k`, B's `k * n` and C's
        // `m * n` elements are contiguous from their pointers.
        unsafe { tiny_rows(kern, (m, k, n), (ra.ptr, rb.ptr, rc.ptr), alpha, beta) };
        return true;
    }
    let r = path::register(kern.lanes, m, n, k, (ra, rb, rc));
    // SAFETY: the views were checked when made (in bounds, C's elements distinct),
    // have the shapes just checked (each side in `1..=TINY_SIDE`, `kc = k > 0`) and
    // are borrowed for the call, C mutably (so it shares nothing with A or B); `kern`
    // exists only when the CPU has its tier.
    unsafe {
        (kern.tiny)(
            (r.m, r.n, k, k),
            (r.a.ptr, r.a.rs, r.a.cs),
            (r.b.ptr, r.b.rs, r.b.cs),
            (r.c.ptr, r.c.rs, r.c.cs),
            alpha,
            beta,
        )
    };
    true
}

internal! {
/// Overrides of the driver's choices, for tests and benchmarks only (not a stable
/// interface): `None` keeps the default.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tuning {
    /// Force the small path (`true`) or the packed one (`false`); either also keeps
    /// the direct path off unless `direct_path` says otherwise.
    pub small_path: Option<bool>,
    /// Force the direct path (`true`: whenever the layouts allow it, else the other
    /// choices apply) or forbid it (`false`).
    pub direct_path: Option<bool>,
    /// Block sizes (`MC` and `NC` are rounded up to the tile).
    pub kc: Option<usize>,
    /// See `kc`.
    pub mc: Option<usize>,
    /// See `kc`.
    pub nc: Option<usize>,
    /// Smallest `m * n * k` that may use more than one thread.
    pub parallel_min: Option<usize>,
    /// Bands of tiles per thread in a parallel product (1: one band each, cut in
    /// advance; more: smaller bands, which the pool's stealing balances).
    pub bands_per_thread: Option<usize>,
    /// Force the narrow form (each B panel packed right before its tiles) on or off.
    pub narrow: Option<bool>,
    /// Let the kernels prefetch the source of the panel packed next (default on;
    /// see `kernel::Ahead`).
    pub prefetch: Option<bool>,
    /// Force the narrow form's kernels to read full B panels whose columns run
    /// along k where they lie (`true`) or never (`false`); by default, when A's
    /// block has few panels (see `kernel::BColsFn`).
    pub b_in_place: Option<bool>,
    /// Force the direct path to run k's blocks inside each register block of C
    /// (`true`) or each over every row (`false`); by default, by the size of B's
    /// strip (`path::DIRECT_WHOLE_K`). The results are the same bits either way.
    pub direct_whole_k: Option<bool>,
    /// Force the direct path to copy B into aligned scratch first (`true`) or to
    /// read it where it lies (`false`); by default, on one thread when B's rows start
    /// off a cache line and C has enough rows (`path::DIRECT_ALIGN_B_ROWS`).
    pub direct_align_b: Option<bool>,
}
}

internal! {
/// `(MR, NR, KC, MC, NC)` of the packed path at `tier` for this machine, for tests
/// and benchmarks; `None` when the CPU lacks the tier.
pub fn blocking<T: GemmElement>(tier: Tier) -> Option<[usize; 5]> {
    let k = T::kernel(tier)?;
    let b = block::Blocking::derive(k.mr, k.nr, size_of::<T>(), crate::cache_info());
    Some([k.mr, k.nr, b.kc, b.mc, b.nc])
}
}

internal! {
/// `[rows, columns]` of the direct path's register block at `tier` (`direct.rs`),
/// for tests; `None` when the CPU lacks the tier.
pub fn direct_tile<T: GemmElement>(tier: Tier) -> Option<[usize; 2]> {
    Some(T::kernel(tier)?.direct_tile)
}
}

/// Matrix times vector: `y = alpha * A x + beta * y` for an `m x k` A, a `k x 1` x
/// and an `m x 1` y, on up to `threads` participants of the [`crate::pool`].
///
/// When A's rows are contiguous (unit column stride) and x is contiguous, this is one
/// pass over A, a few rows at a time, each row summed in blocks of 2 KiB added
/// pairwise, in a fixed order whatever the thread split (the same bits for every
/// thread count; the tier's vector width and FMA show in the last bits; see
/// `gemv.rs`); any other layout, and `alpha == 0` or `k == 0`, goes through [`gemm`]
/// (same contract: `beta == 0` never reads y).
///
/// # Panics
/// If `a.cols() != x.rows()`, `x.cols() != 1`, or y is not `a.rows() x 1`.
///
/// ```
/// use ndsimd_kernels::gemm::{gemv, MatMut, MatRef};
/// let a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2 x 3, row-major
/// let x = [1.0f64, 0.0, -1.0];
/// let mut y = [f64::NAN; 2];
/// let (am, xm) = (MatRef::new(&a, 0, 2, 3, 3, 1).unwrap(), MatRef::new(&x, 0, 3, 1, 1, 1).unwrap());
/// gemv(1.0, am, xm, 0.0, MatMut::new(&mut y, 0, 2, 1, 1, 1).unwrap(), 1);
/// assert_eq!(y, [-2.0, -2.0]);
/// ```
pub fn gemv<T: GemmElement>(
    alpha: T,
    a: MatRef<'_, T>,
    x: MatRef<'_, T>,
    beta: T,
    y: MatMut<'_, T>,
    threads: usize,
) {
    let done = gemv_with_tier(active_tier(), alpha, a, x, beta, y, threads);
    debug_assert!(done.is_some(), "the active tier is always available");
}

internal! {
/// [`gemv`] with the kernels of `tier`; `None` (and nothing done) when this CPU lacks
/// that tier.
pub fn gemv_with_tier<T: GemmElement>(
    tier: Tier,
    alpha: T,
    a: MatRef<'_, T>,
    x: MatRef<'_, T>,
    beta: T,
    mut y: MatMut<'_, T>,
    threads: usize,
) -> Option<()> {
    assert!(
        a.cols == x.rows && x.cols == 1 && y.rows == a.rows && y.cols == 1,
        "gemv: A is {}x{}, x is {}x{}, y is {}x{}",
        a.rows,
        a.cols,
        x.rows,
        x.cols,
        y.rows,
        y.cols
    );
    let kern = T::kernel(tier)?;
    let (m, k) = (a.rows, a.cols);
    let rows_contiguous = a.cs == 1 || k <= 1;
    let x_contiguous = x.rs == 1 || k <= 1;
    if !(rows_contiguous && x_contiguous) || k == 0 || alpha == T::ZERO || m == 0 {
        return gemm_with_tier(tier, alpha, a, x, beta, y, threads);
    }
    let (ra, rx, ry) = (a.raw(), x.raw(), y.raw());
    let chunks = if threads > 1 && m.saturating_mul(k) >= GEMV_PARALLEL_MIN {
        threads.min(crate::pool::current_num_threads()) * 4
    } else {
        1
    };
    let per = m.div_ceil(chunks).next_multiple_of(gemv::ROWS);
    let part = |q: usize| {
        let (i0, i1) = ((q * per).min(m), ((q + 1) * per).min(m));
        // SAFETY: rows `i0..i1` of A (contiguous, `k` long at stride `rs`), x's `k`
        // contiguous elements and y's rows `i0..i1` lie in the checked views; chunks
        // write disjoint rows of y; `kern` exists only on a CPU with its tier.
        unsafe {
            (kern.gemv)(
                i1 - i0,
                k,
                ra.at(i0, 0),
                ra.rs,
                rx.at(0, 0),
                ry.at(i0, 0),
                ry.rs,
                alpha,
                beta,
            )
        }
    };
    if chunks <= 1 {
        part(0);
    } else {
        crate::pool::run(chunks, &part);
    }
    Some(())
}
}

/// Elements of A below which a matrix-vector product stays on one thread (a pool
/// round trip is worth about this many multiply-adds).
const GEMV_PARALLEL_MIN: usize = 1 << 16;

/// The multiply-add ceiling of `tier`'s micro-kernel (its arithmetic without its
/// loads, on its own accumulators: see `kernel::peak`), for benchmarks: returns
/// the flops of `iters` rounds and a value to keep; `None` when the CPU lacks the
/// tier.
///
/// ```
/// use ndsimd_kernels::gemm::fma_peak;
/// let (flops, _) = fma_peak::<f64>(ndsimd_kernels::active_tier(), 1000, 1.0).unwrap();
/// assert!(flops >= 2 * 1000);
/// ```
pub fn fma_peak<T: GemmElement>(tier: Tier, iters: usize, x: T) -> Option<(u64, T)> {
    let k = T::kernel(tier)?;
    // SAFETY: `kernel` hands out a kernel only when the CPU has its tier.
    let v = unsafe { (k.peak)(iters, x) };
    Some((2 * (k.mr * k.nr) as u64 * iters as u64, v))
}

internal! {
/// [`gemm_with_tier`] with [`Tuning`] overrides, for tests and benchmarks.
#[allow(clippy::too_many_arguments)]
pub fn gemm_tuned<T: GemmElement>(
    tier: Tier,
    tuning: &Tuning,
    alpha: T,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    beta: T,
    c: MatMut<'_, T>,
    threads: usize,
) -> Option<()> {
    gemm_run(tier, tuning, (alpha, beta), (a, b, c), threads, scratch::Lent::NONE)
}
}

/// [`gemm_tuned`] packing into `lent` where it holds what the product needs.
fn gemm_run<T: GemmElement>(
    tier: Tier,
    tuning: &Tuning,
    (alpha, beta): (T, T),
    (a, b, mut c): (MatRef<'_, T>, MatRef<'_, T>, MatMut<'_, T>),
    threads: usize,
    lent: scratch::Lent<T>,
) -> Option<()> {
    assert!(
        a.cols == b.rows && c.rows == a.rows && c.cols == b.cols,
        "gemm: A is {}x{}, B is {}x{}, C is {}x{}",
        a.rows,
        a.cols,
        b.rows,
        b.cols,
        c.rows,
        c.cols
    );
    let kern = T::kernel(tier)?;
    let (ra, rb, rc) = (a.raw(), b.raw(), c.raw());
    // SAFETY: the views were checked by `MatRef::new` / `MatMut::new` (in bounds,
    // C's elements distinct), have the shapes just asserted, and are borrowed for the
    // call (C mutably, so it shares nothing with A or B); `kern` exists only when the
    // CPU has its tier.
    unsafe {
        driver::gemm(
            kern,
            tuning,
            (a.rows, b.cols, a.cols),
            (alpha, beta),
            (ra, rb, rc),
            threads,
            lent,
        )
    };
    Some(())
}
