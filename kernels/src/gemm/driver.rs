//! The loop nest: `NC -> KC -> MC -> NR -> MR` around the micro-kernel, serial or on
//! the pool.
//!
//! For each `KC x NC` block of B: the block is packed once into the calling thread's
//! scratch (in parallel: each worker packs a share of its panels), then the `MC` loop
//! runs, cut into bands of whole tiles (by rows, or by columns when there are too
//! few rows; [`BANDS_PER_THREAD`] bands per worker, balanced by the pool's
//! stealing), each worker packing the A blocks of its bands into its own slot of
//! the caller's scratch (so only the caller allocates) and sweeping its tiles `jr`
//! outer, `ir` inner, so that one B panel stays in L1 while the A block streams
//! from L2. Workers synchronise only on work done:
//! [`pool::run`] returns when every chunk has run.
//!
//! Two other forms take products the blocked one serves badly: the narrow form
//! ([`Nest::narrow_band`]) when A's whole `m x KC` block fits in half of L2 (or in
//! a share of a chiplet-sized L3, [`NARROW_L3_PART`]), packing each B panel right
//! before its tiles; and the direct path (`direct.rs`, no packing) for
//! small products and for any k when C is only a register block or two wide.
//!
//! Every element of C is summed over k in the same order whatever the split: the `KC`
//! blocks in order (the first applies the caller's beta, the later ones beta 1), each a
//! micro-kernel k-loop in order; tile borders do not change the arithmetic (see
//! `kernel.rs`), so results are bit-identical for any number of threads.

use super::block::{self, Blocking, NEAR_L3_MAX};
use super::kernel::{Ahead, Kernel, LINE};
use super::mat::{Raw, RawMut};
use super::pack::{self, Src};
use super::{scratch, small, GemmElement, Tuning};
use crate::pool;

/// Products with `m * n * k` at most this take the [`small`] path. Measured on the
/// AVX2 tier (Zen 3, one core): at 8³ the plain loop is 1.6x faster than packing
/// (3.3 against 2.0 GFLOP/s), at 12³ packing already wins (4.5 against 3.4), at 16³
/// by 2.5x.
pub(crate) const SMALL_MAX: usize = 1024;

/// Products with `m * n * k * size_of::<T>()` at most this many bytes take the direct
/// path (`direct.rs`) when B's and C's rows (or A's and C's columns) are contiguous
/// and hold a whole vector: 64³ multiply-adds in f64, about 80³ in f32. This is the
/// kernels' default reach; a tier whose direct blocks go further sets its own
/// (`gemm_kernel!`'s `up to`, `Kernel::direct_max`: AVX-512). Measured on
/// the AVX2 tier (one thread, row-major, medians of 7 interleaved runs against the
/// packed path), f64: 4-6x faster up to 12³, 2.9x at 16³, 1.7x at 32³, 1.35x at 56³,
/// 1.04-1.08x at 64³, even at 80³ (0.99-1.02) and behind at 96³ (0.85-0.99); f32:
/// 2.2x at 24-32³, 1.28x at 64³, 1.15-1.19x at 72-80³, 0.88x at 96³. Shapes of
/// about 56³ multiply-adds whose B does not fit in L1 (24x96x76) are even; the
/// others win by 1.15-1.8x.
pub(crate) const DIRECT_MAX_BYTES: usize = 64 * 64 * 64 * 8;

/// Products with `m * n * k` below this run on the calling thread only. Measured with
/// 2 threads (AVX2 f64, square, medians of three interleaved runs): at n = 32 the split
/// is a toss-up (14–23 against 14–21 GFLOP/s), at n = 48–64 it usually wins (32–46
/// against 23–35) but lost once at 64 (21 against 30, interleaved with faer's and
/// matrixmultiply's threads), from n = 80 it wins by 1.4–1.6×; the line sat above 64³.
/// Since the direct path runs column strips outer (`direct.rs`), split against not
/// (`forms -par`, paired medians of 11 rounds, two samples each, control samples
/// 0.92–1.04): 32³ 0.97, 0.99x; 40³ 1.11, 1.16x; 48³ 1.30, 1.37x; 64³ 1.55, 1.46x.
/// In the peers bench OpenBLAS's 64³ on two threads runs at its one-thread speed.
pub(crate) const PARALLEL_MIN: usize = 48 * 48 * 48;

/// See the direct path's rule in [`gemm`]: with two register blocks of columns,
/// at most this many register blocks of rows. Measured (AVX2 f64, 4 x 8 blocks,
/// row-major operands, one thread, paired medians of 11 interleaved rounds, against
/// the packed path): C `m x n` with n = 8: m = 8 3.8x, 32 1.7x, 256 1.6x, 4096
/// 1.18x; n = 16: m = 16 1.45x, 32 1.30x, 48-64 1.15x, 128 1.08x, 1024-4096 0.94x;
/// n = 24-64: 0.76-0.97x. With C's rows over the pool, two threads: n = 8, m = 8,
/// 32, 256, 4096: 4.4, 2.2, 1.35, 1.32x; n = 16, m = 16, 64, 128: 2.0, 1.18, 1.04x.
pub(crate) const DIRECT_NARROW_ROWS: usize = 32;

/// The direct path runs k's blocks inside each register block of C when a strip of
/// B (its kernel's register block of columns) through the whole of k takes at most
/// `L2 / DIRECT_WHOLE_K` bytes: each block of rows then reads its rows of A once
/// from end to end, and B's strip again from L2. Measured (AVX-512 f64 on the Intel
/// mesh VM, one thread, medians of 11 rounds, two processes each of the build
/// before, where the blocks always ran outside): `(4096 x 1024) . (1024 x 16)`
/// 63.2-70.0 -> 77.1-77.3 GFLOP/s, `(2048 x 1024) . (1024 x 32)` 82.0-82.3 ->
/// 88.9-90.5; with the blocks inside and B's strip of 8 MiB, `(16 x 65536) . (65536
/// x 16)` fell from 49.7-51.3 to 28.8-28.9 (B read from memory once per block of
/// rows), hence the bound.
pub(crate) const DIRECT_WHOLE_K: usize = 2;

/// On one thread, the direct path first copies B to rows that start on a cache line
/// (the caller's packing scratch) when its rows do not (a `Vec`'s buffer, a slice),
/// and C has at least this many rows: every vector of B read off the line is two
/// lines' load. Measured (AVX-512 f64 on the Intel VM of stop 21, B 16 bytes off
/// the line, one thread, `forms M K N 1 direct-rawb,direct-alignb` with
/// `FORMS_B_OFFSET=2` in benches/peers, paired medians of 11 interleaved rounds,
/// the copy against none): `96 x 96 x 96` 1.01x, `96 x 256 x 256` 1.09x, `80 x 128 x
/// 128` 1.09x, 128³ 1.10x, `128 x 64 x 64` 1.03x, 192³ 1.14x, 256³ 1.13x, `256 x 64
/// x 64` 1.07x; from 64 rows it comes and goes (64³ 0.93x, `64 x 96 x 96` 0.97x,
/// `64 x 128 x 128` 1.03x, `64 x 256 x 256` 1.06x), below it loses (`48 x 128 x
/// 128` 0.96x, `32 x 256 x 256` 0.98x, `16 x 1024 x 64` 0.73x); f32 (16 bytes off)
/// 96³ 0.99x, 128³ 1.10x, 160³ 1.07x, 256³ 1.16x; narrow C (the direct path's other
/// use) `4096 x 1024 x 16` 1.12x, `1024 x 256 x 8` 1.04x, and at the AVX2 tier
/// 1.20x and 0.98x. With B already on the line the copy costs 64³ 0.86x, 128³
/// 0.89x, 256³ 0.93x (the reason for the test). On two threads the copy, made by the caller, ran 0.44x (96³) to 0.95x
/// (256³): the other core then reads all of B from this one's cache on every
/// product, where it otherwise keeps its own copy of the lines; so one thread only.
pub(crate) const DIRECT_ALIGN_B_ROWS: usize = 96;

/// The kernels prefetch the next packed source (`kernel::Ahead`) when the operand
/// streamed once is at least `L3 / PREFETCH_MIN_L3_PART` bytes: then it comes from
/// memory; from L3 the hints only cost. Measured (AVX2 f64, one thread, row-major
/// `(m x k) . (k x 16)`, the narrow form, paired medians of 11 interleaved rounds,
/// with the hints against without; L3 32 MiB): 4 MiB of A 0.85-0.92x, 8 MiB 0.94x
/// (and GEMM there ran at L3 speed, 38 GFLOP/s), 16 MiB 1.35x (24 GFLOP/s: memory),
/// 32 MiB 1.14-1.22x, 64 MiB 1.15x; `(1024 x 256) . (256 x 16)` (2 MiB) 0.83-0.92x.
pub(crate) const PREFETCH_MIN_L3_PART: usize = 2;

/// The narrow form is taken when the `m x KC` block of A fits in half of L2 (its
/// rows counted, not the zero rows padding the last panel: 512 rows in 24-row
/// panels of KC 256 are 528 packed, 3% over, and the narrow form ran 1.06-1.16x
/// the blocked one there on two threads; a block filling a whole 2 MiB L2, at
/// 1024³, ran 0.82-0.89x the blocked form: see [`NEAR_L3_MAX`]), or when the
/// blocks of all the threads (each packs its own) take at most
/// `L3 / NARROW_L3_PART` of an L3 of at most [`NEAR_L3_MAX`]: the kernel then
/// streams A from L3 with each B panel in L1, as the blocked form
/// does with its A block (a page of rows at least, already past L2), without
/// packing all of B's block first and with one pool call per k-block instead of
/// two. Measured (AVX2 f64, squares, row-major, paired medians
/// of 11 interleaved rounds, the narrow form forced against the blocked default,
/// two runs each): one thread n = 384-1536 1.01-1.09x, 2048 0.98-1.00x; two
/// threads n = 384 1.11-1.14x, 512 1.01-1.20x (six runs), 768 1.13-1.16x, 1024
/// 1.05-1.14x, 1536 1.06-1.08x, 2048 1.07-1.09x.
pub(crate) const NARROW_L3_PART: usize = 4;

/// In the narrow form, a full B panel whose columns are contiguous along k is read
/// where it lies (`kernel::BColsFn`), not packed, when A's block has at most this
/// many panels: packing it then costs a pass as long as its few tiles' arithmetic.
/// Measured (AVX2 f64, one thread, row-major `(m x 1024) . (1024 x n)`, which runs
/// transposed: the kernel's A has `n` rows; paired medians of 11 interleaved rounds
/// against packing it): n = 16 (2 panels) 1.14-1.22x, 32 1.03x, 48 1.02x, 64 and 96
/// level; `(1024 x 256) . (256 x 16)` 1.18x; two threads, n = 16, 1.15x. With many
/// panels the packed kernel is faster: `(2048 x 16) . (16 x 2048)` (256 panels)
/// 0.95x in place.
pub(crate) const B_IN_PLACE_PANELS: usize = 4;

/// Bands of tiles per worker in a parallel product (see [`bands`]): each worker
/// starts on its own run of bands and steals the others' when it is done, so a
/// helper that starts late or runs slower takes fewer. Measured (AVX2 f64, two
/// threads, square, paired medians of 11 interleaved rounds against one band each,
/// two runs): n = 128 1.08-1.10x, 256 1.03-1.06x, 512 and 1024 level (0.99-1.01),
/// n = 96 (12 tiles, so one-tile bands) 0.97x; 4 per thread gave 0.99, 1.05-1.08,
/// 1.03-1.05, level.
pub(crate) const BANDS_PER_THREAD: usize = 8;

/// The blocked form's row bands (`bands` by [`bands`]) cut to at least `mc` rows
/// each while that leaves a band per thread, and to a multiple of the threads, so
/// that none runs a band more than the others: every B panel brought to L1 then
/// serves a whole MC block of A. The blocked form runs on two threads only from
/// about 1560 rows (below, the narrow form takes squares), where eight bands per
/// thread were 128 rows. Measured (AVX2 f64, two threads, paired medians of 11
/// interleaved rounds against eight bands per thread), 2048³: two bands per thread
/// (512 rows) 1.09x, 1.05x, 1.03x (three runs), one 1.05x, four 1.03x; two bands
/// of MC 128 0.96-1.00x (so the height of the A block, not the count, is what
/// pays). With the rule: 2048³ 1.08x, 1.04x, 1536³ 1.07x, 3072³ 1.09x. Measured
/// on two threads only.
fn tall_bands(bands: usize, m: usize, mc: usize, threads: usize) -> usize {
    bands.min((m / mc / threads * threads).max(threads))
}

/// How many slots of the caller's scratch a product on `threads` threads needs: one
/// per participant. Under rayon only the caller's (participant 0, when the product
/// or its job runs inline): rayon's threads have no participant index and keep
/// their own buffers.
fn slot_count(threads: usize) -> usize {
    if cfg!(feature = "rayon") {
        1
    } else {
        threads
    }
}

/// Enough room for the largest register tile (AVX-512 f32: 48 x 8, 384 elements):
/// the scratch tile for edge tiles and strided C.
const TILE_MAX: usize = 512;

/// A pointer the workers share; what each may touch is said where it is used.
#[derive(Clone, Copy)]
struct Shared<T>(*mut T);

impl<T> Shared<T> {
    /// The pointer (a method, so that closures capture the `Sync` wrapper, not the
    /// raw pointer inside it).
    fn ptr(self) -> *mut T {
        self.0
    }
}
// SAFETY: the packed B block: written by workers in disjoint panels during packing,
// then only read, with `pool::run` returning (all writes done) in between.
unsafe impl<T: Send> Send for Shared<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Send> Sync for Shared<T> {}

/// `C = alpha * A * B + beta * C` for an `m x k` A, `k x n` B: everything after the
/// shape checks.
///
/// # Safety
/// `a`, `b`, `c` are checked views of those shapes (every element in bounds, distinct
/// elements of `c` distinct, nothing of `c` shared with `a` or `b`), borrowed for the
/// call; the CPU has `kern`'s tier.
pub(crate) unsafe fn gemm<T: GemmElement>(
    kern: &'static Kernel<T>,
    tuning: &Tuning,
    (m, n, k): (usize, usize, usize),
    (alpha, beta): (T, T),
    (a, b, c): (Raw<T>, Raw<T>, RawMut<T>),
    threads: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 || alpha == T::ZERO {
        // SAFETY: `c` is an `m x n` view the caller vouches for.
        unsafe { scale(m, n, beta, c) };
        return;
    }
    let volume = m.saturating_mul(n).saturating_mul(k);
    // The direct path computes every element as the packed path does (one
    // accumulator per KC block, k in order, the same multiply-add and write), so the
    // bits do not depend on the layouts, which decide whether it applies. It needs
    // rows that hold a whole vector (narrower ones go through a stack vector at every
    // step, slower than the other paths). By default it takes small products, and
    // any k when C has at most one register block of columns, or two and few rows
    // (`DIRECT_NARROW_ROWS`): there packing A and B costs more than the product.
    let derived = Blocking::for_tile(kern.mr, kern.nr, size_of::<T>());
    let [dr, dw] = kern.direct_tile;
    let form = direct_form(m, n, a, b, c).filter(|&(fm, fn_, ..)| {
        let narrow = fn_ <= dw || (fn_ <= 2 * dw && fm <= DIRECT_NARROW_ROWS * dr);
        let default = tuning.small_path.is_none()
            && volume > SMALL_MAX
            && fn_ >= kern.lanes
            && ((volume.saturating_mul(size_of::<T>()) <= kern.direct_max[0]
                && fm.max(fn_) <= kern.direct_max[1])
                || narrow);
        tuning.direct_path.unwrap_or(default)
    });
    let parallel_min = tuning.parallel_min.unwrap_or(PARALLEL_MIN);
    let threads = if volume < parallel_min {
        1
    } else {
        threads.min(pool::current_num_threads()).max(1)
    };
    if let Some((m, n, a, b, c)) = form {
        // In the packed path's KC blocks, each one's sum written to C before the
        // next (the first with the caller's beta, the later ones with 1), so every
        // element is summed as the packed path sums it whatever k. The kernel runs
        // the blocks inside each register block of C (A's rows read through k in
        // one pass, `direct.rs`) when a strip of B through the whole of k fits in
        // half of L2 (`DIRECT_WHOLE_K`); else the blocks run here, each over every
        // row, so that B's block is read from memory once. Rows of C are split over
        // the pool in whole register blocks.
        let kc = block::depth(k, tuning.kc.unwrap_or(derived.kc));
        let strip = k.saturating_mul(n.min(dw)).saturating_mul(size_of::<T>());
        let whole = tuning
            .direct_whole_k
            .unwrap_or(strip <= crate::cache_info().l2 / DIRECT_WHOLE_K);
        let step = if whole { k } else { kc };
        let blocks = m.div_ceil(dr);
        let chunks = bands(blocks, threads, 1);
        let misaligned = || (0..k.min(2)).any(|p| !(b.at(p, 0) as usize).is_multiple_of(LINE));
        let align_b = tuning
            .direct_align_b
            .unwrap_or_else(|| threads == 1 && m >= DIRECT_ALIGN_B_ROWS && n > 1 && misaligned());
        let run = |b: Raw<T>| {
            // SAFETY: the caller's views in the direct form, B as given or its copy
            // below (the same elements, alive until this call returns).
            unsafe {
                direct_run(
                    kern,
                    (m, n, k),
                    (kc, step, chunks),
                    (alpha, beta),
                    (a, b, c),
                    threads,
                )
            }
        };
        if !align_b {
            return run(b);
        }
        // B's rows copied, each to the start of a cache line, and the product run from
        // the copy: the calling thread's, read by every worker.
        return scratch::with(&scratch::PACK_B, |buf| {
            let ld = n.next_multiple_of(LINE / size_of::<T>().max(1));
            let to = buf.elements::<T>(k * ld);
            for p in 0..k {
                // SAFETY: row `p` of B has `n` elements with unit stride (or is one
                // element long), as `direct_form` checked; `to` holds `k * ld` elements
                // with `ld >= n`, a buffer of this thread that no view of the caller's
                // overlaps.
                unsafe { core::ptr::copy_nonoverlapping(b.at(p, 0), to.add(p * ld), n) };
            }
            run(Raw {
                ptr: to.cast_const(),
                rs: ld as isize,
                cs: 1,
            })
        });
    }
    let small_path = tuning.small_path.unwrap_or(volume <= SMALL_MAX);
    if small_path {
        // SAFETY: the caller's views, of these shapes.
        unsafe { small::gemm((m, n, k), alpha, a, b, beta, c) };
        return;
    }
    // The kernel stores columns of its tile with unit row stride: give it the
    // transposed product `C^T = B^T A^T` when that is C's unit stride.
    let (m, n, a, b, c) = if c.rs != 1 && c.cs == 1 {
        (n, m, b.t(), a.t(), c.t())
    } else {
        (m, n, a, b, c)
    };
    let (mr, nr) = (kern.mr, kern.nr);
    let blk = Blocking {
        kc: tuning.kc.unwrap_or(derived.kc),
        mc: tuning.mc.map_or(derived.mc, |mc| mc.next_multiple_of(mr)),
        nc: tuning.nc.map_or(derived.nc, |nc| nc.next_multiple_of(nr)),
    }
    .fit(m, n, k, mr, nr);
    let bands_per_thread = tuning.bands_per_thread.unwrap_or(BANDS_PER_THREAD);
    let cache = crate::cache_info();
    let a_block = m * blk.kc * size_of::<T>();
    let narrow = tuning.narrow.unwrap_or(
        a_block <= cache.l2 / 2
            || (cache.l3 <= NEAR_L3_MAX && a_block * threads <= cache.l3 / NARROW_L3_PART),
    );
    // The kernels prefetch what is packed next when it comes from memory: the
    // operand streamed once (B in the narrow form, A in the blocked one) is at least
    // half of L3 (`PREFETCH_MIN_L3_PART`).
    let streamed = if narrow { k * n } else { m * k };
    let nest = Nest {
        kern,
        blk,
        prefetch: tuning
            .prefetch
            .unwrap_or(streamed.saturating_mul(size_of::<T>()) >= cache.l3 / PREFETCH_MIN_L3_PART),
        b_in_place: tuning.b_in_place,
        m,
        alpha,
        a,
        c,
    };
    if narrow {
        // A number no other product gets, naming this one's packed A blocks.
        static PRODUCTS: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);
        let product = PRODUCTS.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
        let n_tiles = n.div_ceil(nr);
        let bands = bands(n_tiles, threads, bands_per_thread);
        scratch::with(&scratch::PARTS, |buf| {
            let slots = buf.slots::<T>(slot_count(threads), nest.narrow_len(blk.kc));
            for pc in (0..k).step_by(blk.kc) {
                let kcb = blk.kc.min(k - pc);
                let beta = if pc == 0 { beta } else { T::ONE };
                fan_out(threads, bands, &|q, p| {
                    let cols = share(n_tiles, bands, q);
                    // SAFETY: each chunk writes the columns of C in its own panels;
                    // participant `p`'s slot holds `narrow_len(kc)` elements and is
                    // used by this thread alone while it runs; the rest is the
                    // caller's promise.
                    unsafe { nest.narrow_band(product, b, n, (pc, kcb), cols, beta, slots.get(p)) };
                });
            }
        });
        return;
    }
    scratch::with(&scratch::PACK_B, |buf| {
        let bbuf = Shared(buf.elements::<T>(blk.kc * blk.nc));
        scratch::with(&scratch::PARTS, |parts| {
            let slots = parts.slots::<T>(slot_count(threads), blk.mc * blk.kc + TILE_MAX);
            for jc in (0..n).step_by(blk.nc) {
                let ncb = blk.nc.min(n - jc);
                let b_panels = ncb.div_ceil(nr);
                for pc in (0..k).step_by(blk.kc) {
                    let kcb = blk.kc.min(k - pc);
                    let beta = if pc == 0 { beta } else { T::ONE };
                    let src = Src {
                        ptr: b.at(pc, jc),
                        along: b.cs,
                        step: b.rs,
                    };
                    fan_out(threads, threads, &|q, _| {
                        let panels = share(b_panels, threads, q);
                        // SAFETY: the buffer holds `kc * nc >= b_panels * nr * kcb`
                        // elements; this chunk writes only its own panels; the source is
                        // the `kcb x ncb` block of B at `(pc, jc)`, inside B; the
                        // kernel (and its gather) is handed out only on a CPU with
                        // its tier.
                        unsafe { pack::block(bbuf.ptr(), src, ncb, nr, kcb, panels, kern.gather8) };
                    });
                    // Split into bands of whole tiles: by rows when there are enough.
                    let (m_tiles, n_tiles) = (m.div_ceil(mr), b_panels);
                    let by_rows = m_tiles >= n_tiles || m_tiles >= 4 * threads;
                    let bands = bands(
                        if by_rows { m_tiles } else { n_tiles },
                        threads,
                        bands_per_thread,
                    );
                    // Row bands at least MC tall when there are rows enough, unless
                    // the bands per thread are forced.
                    let bands = if by_rows && tuning.bands_per_thread.is_none() {
                        tall_bands(bands, m, blk.mc, threads)
                    } else {
                        bands
                    };
                    let band_rows = |q: usize| {
                        let t = share(m_tiles, bands, q);
                        t.start * mr..(t.end * mr).min(m)
                    };
                    fan_out(threads, bands, &|q, p| {
                        let (rows, cols, then) = if by_rows {
                            let then = (q + 1 < bands).then(|| band_rows(q + 1));
                            (band_rows(q), 0..b_panels, then)
                        } else {
                            (0..m, share(n_tiles, bands, q), None)
                        };
                        // SAFETY: B's block is packed (the fan-out above has returned);
                        // this band's tiles of C are touched by this chunk only;
                        // participant `p`'s slot holds `mc * kc + TILE_MAX` elements and
                        // is used by this thread alone while it runs; the rest is the
                        // caller's promise.
                        unsafe {
                            nest.band(
                                bbuf.ptr(),
                                (pc, kcb),
                                (jc, ncb),
                                rows,
                                cols,
                                beta,
                                then,
                                slots.get(p),
                            )
                        };
                    });
                }
            }
        });
    });
}

/// The direct path's run over the pool: C's rows in `chunks` bands of whole register
/// blocks, each band summing k in blocks of `step` steps (`kc` the packed path's
/// k-block, see [`gemm`]).
///
/// # Safety
/// As [`gemm`], with the views in the direct form (`direct_form`: B's and C's rows
/// contiguous or one element long).
#[allow(clippy::too_many_arguments)]
unsafe fn direct_run<T: GemmElement>(
    kern: &Kernel<T>,
    (m, n, k): (usize, usize, usize),
    (kc, step, chunks): (usize, usize, usize),
    (alpha, beta): (T, T),
    (a, b, c): (Raw<T>, Raw<T>, RawMut<T>),
    threads: usize,
) {
    let dr = kern.direct_tile[0];
    let blocks = m.div_ceil(dr);
    fan_out(threads, chunks, &|q, _| {
        let rows = share(blocks, chunks, q);
        let (i0, i1) = (rows.start * dr, (rows.end * dr).min(m));
        for pc in (0..k).step_by(step) {
            let kcb = step.min(k - pc);
            // SAFETY: the caller's views (transposed together or not) cut to rows
            // `i0 .. i1` of A and C (this chunk's alone) and to the k-range
            // `pc .. pc + kcb`, `kcb > 0`, `kc > 0`; B's and C's rows contiguous
            // (or one element long), as `direct_form` checked; `kern` exists
            // only when the CPU has its tier.
            unsafe {
                (kern.direct)(
                    i1 - i0,
                    n,
                    kcb,
                    kc,
                    a.at(i0, pc),
                    (a.rs, a.cs),
                    b.at(pc, 0),
                    b.rs,
                    c.at(i0, 0),
                    c.rs,
                    alpha,
                    if pc == 0 { beta } else { T::ONE },
                )
            };
        }
    });
}

/// The product as the direct kernel takes it, `(m, n, a, b, c)` with B's and C's
/// rows contiguous: as given, or transposed (`C^T = B^T A^T`) when A's and C's
/// columns are the contiguous ones; when both are, the form with the longer rows
/// (more whole vectors). `None` when neither.
#[allow(clippy::type_complexity)]
fn direct_form<T>(
    m: usize,
    n: usize,
    a: Raw<T>,
    b: Raw<T>,
    c: RawMut<T>,
) -> Option<(usize, usize, Raw<T>, Raw<T>, RawMut<T>)> {
    // A stride along an axis of one element is never used.
    let unit = |stride: isize, len: usize| stride == 1 || len <= 1;
    let plain = unit(b.cs, n) && unit(c.cs, n);
    let flipped = unit(a.rs, m) && unit(c.rs, m);
    if plain && (!flipped || n >= m) {
        Some((m, n, a, b, c))
    } else if flipped {
        Some((n, m, b.t(), a.t(), c.t()))
    } else {
        None
    }
}

/// What every band of one product shares.
struct Nest<T: 'static> {
    kern: &'static Kernel<T>,
    blk: Blocking,
    /// Whether kernels prefetch the next panel's source (`Tuning::prefetch`).
    prefetch: bool,
    /// Whether the narrow form reads B's panels in place when it can
    /// (`Tuning::b_in_place`; `None`: when A has few panels).
    b_in_place: Option<bool>,
    m: usize,
    alpha: T,
    a: Raw<T>,
    c: RawMut<T>,
}

// SAFETY: `Raw` and `RawMut` are shared as their own impls say; the rest is plain data.
unsafe impl<T: Send + Sync> Sync for Nest<T> {}

impl<T: GemmElement> Nest<T> {
    /// Rows `rows` (whole tiles, except at `m`) by panels `cols` of the packed B block
    /// (`kcb` deep from `pc`, `ncb` wide from `jc`): packs A's blocks of the band and
    /// runs every tile. Each block's kernels prefetch the source of the next one: the
    /// band's next, or after its last, the first block of `then` (the rows of the
    /// band this thread most likely runs next). The A block is packed into `slot`
    /// (or, without one, into this thread's own buffer).
    ///
    /// # Safety
    /// The CPU has the kernel's tier; `bpack` holds the packed B block; no other
    /// thread touches these tiles of C;
    /// `slot`, when given, holds `mc * kc + TILE_MAX` elements that no other thread
    /// uses meanwhile.
    #[allow(clippy::too_many_arguments)]
    unsafe fn band(
        &self,
        bpack: *const T,
        (pc, kcb): (usize, usize),
        (jc, ncb): (usize, usize),
        rows: core::ops::Range<usize>,
        cols: core::ops::Range<usize>,
        beta: T,
        then: Option<core::ops::Range<usize>>,
        slot: Option<*mut T>,
    ) {
        let (mr, nr) = (self.kern.mr, self.kern.nr);
        debug_assert!(self.m >= rows.end && mr * nr <= TILE_MAX);
        // The packed A block, then the stack-free edge tile: zeroing a tile on the
        // stack per call cost a quarter of the instructions of a batch of 16x16
        // products (callgrind).
        let a_len = self.blk.mc * kcb;
        scratch::slot_or(slot, &scratch::PACK_A, a_len + TILE_MAX, |apack, _| {
            let tile = apack.wrapping_add(a_len);
            for ic in rows.clone().step_by(self.blk.mc) {
                let mcb = self.blk.mc.min(rows.end - ic);
                let src = Src {
                    ptr: self.a.at(ic, pc),
                    along: self.a.rs,
                    step: self.a.cs,
                };
                let a_panels = mcb.div_ceil(mr);
                // SAFETY: `apack` holds `mc * kcb >= a_panels * mr * kcb` elements;
                // the source is the `mcb x kcb` block of A at `(ic, pc)`, inside A;
                // the CPU has the kernel's tier (so its gather's features).
                unsafe { pack::block(apack, src, mcb, mr, kcb, 0..a_panels, self.kern.gather8) };
                // The next A block, for this block's kernels to ask for.
                let next = match (ic + self.blk.mc, &then) {
                    (next, _) if next < rows.end => Some(next..rows.end),
                    (_, Some(then)) if !then.is_empty() => Some(then.clone()),
                    _ => None,
                };
                let ahead = match next.filter(|_| self.prefetch) {
                    Some(next) => {
                        let src = Src {
                            ptr: self.a.at(next.start, pc),
                            ..src
                        };
                        pack::ahead(src, self.blk.mc.min(next.len()), kcb)
                    }
                    None => Ahead::NONE,
                };
                for jr in cols.clone() {
                    let j0 = jr * nr;
                    // SAFETY: A's block is packed (`a_panels` panels); `jr` is a packed
                    // panel of B's block; these tiles of C are this band's alone; `tile`
                    // is this thread's scratch past the A block.
                    unsafe {
                        self.column(
                            kcb,
                            apack,
                            (ic, mcb),
                            bpack.wrapping_add(jr * nr * kcb),
                            (jc + j0, nr.min(ncb - j0)),
                            beta,
                            tile,
                            ahead.part(jr - cols.start, cols.len()),
                            None,
                        )
                    };
                }
            }
        });
    }

    /// The tiles of rows `i .. i + rows` of C (from A's packed block `apack`, whose
    /// panels start at row `i`) by columns `j .. j + cols` (one packed panel `pb` of
    /// B, `cols <= NR`). The tiles' kernel calls share `ahead`'s runs among them.
    ///
    /// # Safety
    /// `apack` holds `rows.div_ceil(MR)` packed panels and `pb` one, each `kcb` steps
    /// (with `b_cs`, `pb` is B's panel in place, as `BColsFn` reads it); the tiles
    /// are inside C and no other thread touches them; `tile` as in [`Nest::tile`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn column(
        &self,
        kcb: usize,
        apack: *const T,
        (i, rows): (usize, usize),
        pb: *const T,
        (j, cols): (usize, usize),
        beta: T,
        tile: *mut T,
        ahead: Ahead,
        b_cs: Option<isize>,
    ) {
        let mr = self.kern.mr;
        let calls = rows.div_ceil(mr);
        for ir in 0..calls {
            let i0 = ir * mr;
            let pa = apack.wrapping_add(ir * mr * kcb);
            // SAFETY: panel `ir` of A's block and `pb`, `kcb` steps each; the tile at
            // `(i + i0, j)`, cut to `rows` and `cols`, is one of the caller's.
            unsafe {
                self.tile(
                    kcb,
                    (pa, pb),
                    (i + i0, j),
                    (mr.min(rows - i0), cols),
                    beta,
                    tile,
                    ahead.part(ir, calls),
                    b_cs,
                )
            };
        }
    }

    /// One tile of C, `rows x cols` (at most `MR x NR`) at `(i, j)`, from packed
    /// panels `pa`, `pb` of `kcb` steps: the kernel straight into C when the tile is
    /// full and C's columns are contiguous, else through `tile` (`TILE_MAX`
    /// elements of this thread's scratch) and [`store_edge`]. A panel of at most
    /// [`Kernel::edge`]`[0]` rows, or a packed one of at most `edge[1]` columns,
    /// takes an edge kernel, "full" then meaning that many. The kernel prefetches
    /// `ahead` while it runs.
    ///
    /// # Safety
    /// `pa`, `pb` are packed panels of `kcb` steps (with `b_cs`, `pb` is B's panel in
    /// place, as `BColsFn` reads it); the tile is inside C and no other thread
    /// touches it; `tile` is valid for `TILE_MAX` reads and writes,
    /// initialised, aliased by nothing else; the CPU has the kernel's tier.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tile(
        &self,
        kcb: usize,
        (pa, pb): (*const T, *const T),
        (i, j): (usize, usize),
        (rows, cols): (usize, usize),
        beta: T,
        tile: *mut T,
        ahead: Ahead,
        b_cs: Option<isize>,
    ) {
        let (mr, nr) = (self.kern.mr, self.kern.nr);
        let c0 = self.c.at(i, j);
        // A panel of at most `edge[0]` rows of A, or a packed one of at most
        // `edge[1]` columns of B (the rest padding), takes an edge kernel, which does
        // only those rows' or columns' multiply-adds.
        let [eh, ew] = self.kern.edge;
        let (re, ce) = (rows <= eh, b_cs.is_none() && cols <= ew);
        let (height, width) = (if re { eh } else { mr }, if ce { ew } else { nr });
        let kernel = |c: *mut T, cs: isize, beta: T| match b_cs {
            // SAFETY: as the caller promises, for each kernel (an edge kernel's tile
            // is its first `height` rows and `width` columns, all that is read back
            // below).
            None => unsafe {
                (self.kern.run[usize::from(re)][usize::from(ce)])(
                    kcb, pa, pb, c, cs, self.alpha, beta, ahead,
                )
            },
            // SAFETY: as above, with B read in place.
            Some(bcs) => unsafe {
                (self.kern.run_b_cols[usize::from(re)])(
                    kcb, pa, pb, bcs, c, cs, self.alpha, beta, ahead,
                )
            },
        };
        // SAFETY: as the caller promises; `c0` is the tile's corner inside C.
        unsafe {
            if rows == height && cols == width && self.c.rs == 1 {
                kernel(c0, self.c.cs, beta);
            } else {
                kernel(tile, mr as isize, T::ZERO);
                let c = RawMut { ptr: c0, ..self.c };
                let t = core::slice::from_raw_parts(tile.cast_const(), TILE_MAX);
                store_edge(t, mr, (rows, cols), beta, c);
            }
        }
    }

    /// The elements the narrow form packs into for a k-block `kcb` deep: A's whole
    /// block, one panel of B, an edge tile.
    fn narrow_len(&self, kcb: usize) -> usize {
        let (mr, nr) = (self.kern.mr, self.kern.nr);
        self.m.div_ceil(mr) * mr * kcb + nr * kcb + TILE_MAX
    }

    /// The narrow form, for products whose whole `m x KC` block of A fits in half of
    /// L2 or near L3 ([`NARROW_L3_PART`]): that block packed into this thread's slot
    /// (once per product and k-block, however many bands the thread runs), then each
    /// panel `jr` in `cols` of B (`NR` columns, `kcb` deep) packed into a one-panel
    /// buffer right before its tiles run, so it is still in L1 when they read it. The
    /// blocked form packs a whole `KC x NC` block of B first (several MiB, out to L3
    /// or memory and back), which pays only when each packed element of B serves many
    /// tiles, i.e. when A has many rows. The tiles'
    /// arithmetic is the blocked form's, so the two give the same bits (tested).
    ///
    /// Measured against the blocked form (AVX2 f64, row-major operands, paired
    /// medians of 11 interleaved rounds; `m x n x k` is `(m x k) . (k x n)` into a
    /// row-major C, which runs transposed, so the kernel's A has `n` rows): one
    /// thread / two threads, `4096 x 16 x 1024`
    /// 1.21-1.24 / 1.35-1.40, `4096 x 128 x 1024` 1.13-1.14 / 1.10-1.16,
    /// `4096 x 256 x 1024` 1.06-1.10 / 1.15-1.17, `2048 x 2048 x 16` 1.12 / 1.62,
    /// `2000 x 2000 x 50` 1.03 / 1.05, squares 128-512 1.00-1.04 / 0.98-1.04.
    ///
    /// The packing goes to `slot` (or, without one, this thread's own buffer).
    ///
    /// # Safety
    /// No other thread touches these columns of C; the CPU has the kernel's tier;
    /// `slot`, when given, holds [`Nest::narrow_len`]`(kcb)` elements that no other
    /// thread uses meanwhile.
    #[allow(clippy::too_many_arguments)]
    unsafe fn narrow_band(
        &self,
        product: u64,
        b: Raw<T>,
        n: usize,
        (pc, kcb): (usize, usize),
        cols: core::ops::Range<usize>,
        beta: T,
        slot: Option<*mut T>,
    ) {
        let (mr, nr) = (self.kern.mr, self.kern.nr);
        let a_panels = self.m.div_ceil(mr);
        let a_len = a_panels * mr * kcb;
        let need = self.narrow_len(kcb);
        scratch::slot_or(slot, &scratch::PACK_NARROW, need, |apack, holds| {
            let bpanel = apack.wrapping_add(a_len);
            let tile = bpanel.wrapping_add(nr * kcb);
            // A thread packs A's block once per product and k-block, whatever number
            // of bands it runs (a band per chunk would pack it again each time).
            if *holds != Some((product, pc)) {
                let src = Src {
                    ptr: self.a.at(0, pc),
                    along: self.a.rs,
                    step: self.a.cs,
                };
                // SAFETY: `apack` holds `a_panels * mr * kcb` elements; the source is
                // the `m x kcb` block of A at `(0, pc)`, inside A; the CPU has the
                // kernel's tier (so its gather's features).
                unsafe { pack::block(apack, src, self.m, mr, kcb, 0..a_panels, self.kern.gather8) };
                *holds = Some((product, pc));
            }
            for jr in cols.clone() {
                let j0 = jr * nr;
                let width = nr.min(n - j0);
                let src = Src {
                    ptr: b.at(pc, j0),
                    along: b.cs,
                    step: b.rs,
                };
                // A full panel whose columns run along k is read where it lies when
                // it serves few tiles (`B_IN_PLACE_PANELS`); others are packed.
                let in_place = src.step == 1
                    && width == nr
                    && self.b_in_place.unwrap_or(a_panels <= B_IN_PLACE_PANELS);
                if !in_place {
                    // SAFETY: `bpanel` holds `nr * kcb` elements past the A block; the
                    // source is the `kcb x width` block of B at `(pc, j0)`, inside B;
                    // the CPU has the kernel's tier (so its gather's features).
                    unsafe { pack::panel(bpanel, src, width, nr, kcb, self.kern.gather8) };
                }
                let (pb, b_cs) = if in_place {
                    (src.ptr, Some(src.along))
                } else {
                    (bpanel.cast_const(), None)
                };
                // The next panel's source, for this panel's kernels to ask for.
                let ahead = if self.prefetch && jr + 1 < cols.end {
                    let j1 = j0 + nr;
                    let next = Src {
                        ptr: b.at(pc, j1),
                        ..src
                    };
                    pack::ahead(next, nr.min(n - j1), kcb)
                } else {
                    Ahead::NONE
                };
                // SAFETY: A's whole block is packed (`a_panels` panels) and B's
                // panel `jr` is packed, or read in place (`NR` columns of B, `kcb`
                // contiguous steps each); its tiles of C are in this band's columns;
                // `tile` is this thread's scratch past the B panel (initialised when
                // allocated).
                unsafe {
                    self.column(
                        kcb,
                        apack,
                        (0, self.m),
                        pb,
                        (j0, width),
                        beta,
                        tile,
                        ahead,
                        b_cs,
                    )
                };
            }
        });
    }
}

/// `C = t + beta * C` over the valid `rows x cols` part of a stack tile `t` (column
/// `j` at `t[j * ld..]`) that holds `alpha * AB`: the same arithmetic as the kernel's
/// own write, so edge tiles round as full ones do.
///
/// # Safety
/// `c.at(i, j)` is valid for writes (and reads unless `beta == 0`) for `i < rows`,
/// `j < cols`.
#[inline]
unsafe fn store_edge<T: GemmElement>(
    t: &[T],
    ld: usize,
    (rows, cols): (usize, usize),
    beta: T,
    c: RawMut<T>,
) {
    for j in 0..cols {
        for i in 0..rows {
            let v = t[j * ld + i];
            let p = c.at(i, j);
            // SAFETY: `(i, j)` is inside the tile, as the caller allows.
            unsafe { *p = if beta == T::ZERO { v } else { v + beta * *p } };
        }
    }
}

/// `C = beta * C`, or zeros without reading C when `beta == 0`.
///
/// # Safety
/// `c.at(i, j)` is valid for reads and writes for `i < m`, `j < n`.
unsafe fn scale<T: GemmElement>(m: usize, n: usize, beta: T, c: RawMut<T>) {
    for j in 0..n {
        for i in 0..m {
            let p = c.at(i, j);
            // SAFETY: as the caller allows.
            unsafe { *p = if beta == T::ZERO { T::ZERO } else { beta * *p } };
        }
    }
}

/// Runs `f(q, p)` for `q` in `0..chunks`: in order on the calling thread when
/// `threads <= 1`, else on the pool with at most `threads` workers (each starts on
/// its own run of chunks and steals from the others' when done). `p` is the index of
/// the participant running the chunk, below `threads` ([`pool::run_indexed`]):
/// `Some(0)` when serial, `None` under rayon.
fn fan_out(threads: usize, chunks: usize, f: &(dyn Fn(usize, Option<usize>) + Sync)) {
    if threads <= 1 {
        (0..chunks).for_each(|q| f(q, Some(0)));
    } else {
        pool::with_threads(threads, || pool::run_indexed(chunks, f));
    }
}

/// How many bands to cut `tiles` tiles into for `threads` workers: one when serial,
/// otherwise `per_thread` per worker, none empty.
fn bands(tiles: usize, threads: usize, per_thread: usize) -> usize {
    if threads <= 1 {
        return 1;
    }
    threads.saturating_mul(per_thread.max(1)).min(tiles).max(1)
}

/// Chunk `q` of `parts` near-equal contiguous shares of `0..n`.
fn share(n: usize, parts: usize, q: usize) -> core::ops::Range<usize> {
    let at = |q: usize| n / parts * q + q.min(n % parts);
    at(q)..at(q + 1)
}
