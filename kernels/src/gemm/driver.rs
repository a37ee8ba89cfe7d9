//! The GEMM driver: picks the product's path (`path.rs`) and runs it. The blocked
//! path is the five BLIS loops around the micro-kernel, one function each: loop 5
//! over `NC` columns of B ([`blocked`]), loop 4 over `KC` steps of k, packing B's
//! block ([`k_blocks`]), loop 3 over `MC` rows of A in bands spread over the pool
//! ([`mc_bands`], then `Nest::band` packs each A block), loop 2 over B's `NR`-wide
//! panels and loop 1 over A's `MR`-tall panels (`nest.rs`), one tile per call.
//! Bands are of whole tiles, by rows (or by columns when there are too few rows),
//! [`path::BANDS_PER_THREAD`] per worker, balanced by the pool's stealing; each worker
//! packs its A blocks into its own slot of the caller's scratch (so only the caller
//! allocates) and sweeps `jr` outer, `ir` inner, so that one B panel stays in L1
//! while the A block streams from L2. Workers synchronise only on work done:
//! [`pool::run`] returns when every chunk has run.
//!
//! Every element of C is summed over k in the same order whatever the path or split:
//! the `KC` blocks in order (the first applies the caller's beta, the later ones
//! beta 1), each a micro-kernel k-loop in order; tile borders do not change the
//! arithmetic (see `kernel.rs`), so results are bit-identical for any number of
//! threads (docs/design.md#structure).

use super::kernel::LINE;
use super::mat::{Raw, RawMut};
use super::nest::{self as nest_mod, Nest, TILE_MAX};
use super::pack::{self, Src};
use super::path::{self, Direct, Packed, Path};
use super::scratch::{self, Lent};
use super::table::Kernel;
use super::{small, GemmElement, Tuning};
use crate::pool;

/// The blocked form's row bands cut to at least `mc` rows each while that leaves a
/// band per thread, and to a multiple of the threads, so that every B panel brought
/// to L1 serves a whole MC block of A (docs/design.md#which-path, blocked form).
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
/// shape checks, on the path [`path::choose`] picks, its packing in `lent` when that
/// holds what the path needs (else in the thread's buffers).
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
    lent: Lent<T>,
) {
    let volume = m.saturating_mul(n).saturating_mul(k);
    let threads = path::threads(tuning, volume, threads);
    match path::choose(kern, tuning, (m, n, k), alpha, (a, b, c), threads) {
        // SAFETY: `c` is an `m x n` view the caller vouches for.
        Path::Scale => unsafe { scale(m, n, beta, c) },
        // SAFETY: the caller's views (transposed together or not), every side at
        // most `SMALL_SIDE` (as `choose` checked), `kc > 0`; `kern` exists only on
        // a CPU with its tier.
        Path::Register(r) => unsafe {
            (kern.small)(
                (r.m, r.n, k, r.kc),
                (r.a.ptr, r.a.rs, r.a.cs),
                (r.b.ptr, r.b.rs, r.b.cs),
                (r.c.ptr, r.c.rs, r.c.cs),
                alpha,
                beta,
            )
        },
        // SAFETY: the caller's views, of these shapes.
        Path::Small => unsafe { small::gemm((m, n, k), alpha, a, b, beta, c) },
        // SAFETY: the caller's views in the direct form (B's and C's rows contiguous).
        Path::Direct(d) => unsafe { direct(kern, k, d, (alpha, beta), threads, lent) },
        Path::Narrow(p) => {
            let nest = nest(kern, tuning, &p, alpha);
            // SAFETY: the caller's views (transposed together or not), as `nest` holds.
            unsafe { narrow(&nest, &p, k, beta, threads, lent) }
        }
        Path::Blocked(p) => {
            let nest = nest(kern, tuning, &p, alpha);
            // SAFETY: as for the narrow form.
            unsafe { blocked(&nest, &p, k, beta, threads, lent) }
        }
    }
}

/// What every band of a packed product shares.
fn nest<T: GemmElement>(
    kern: &'static Kernel<T>,
    tuning: &Tuning,
    p: &Packed<T>,
    alpha: T,
) -> Nest<T> {
    Nest {
        kern,
        blk: p.blk,
        prefetch: p.prefetch,
        b_in_place: tuning.b_in_place,
        m: p.m,
        alpha,
        a: p.a,
        c: p.c,
    }
}

/// The direct path: B first copied to line-aligned rows when `d.align_b` (into
/// `lent`, or the calling thread's scratch, read by every worker), then
/// [`direct_run`].
///
/// # Safety
/// As [`gemm`], with `d` the views in the direct form.
unsafe fn direct<T: GemmElement>(
    kern: &Kernel<T>,
    k: usize,
    d: Direct<T>,
    (alpha, beta): (T, T),
    threads: usize,
    lent: Lent<T>,
) {
    let Direct {
        m,
        n,
        a,
        b,
        c,
        kc,
        step,
        align_b,
    } = d;
    let chunks = bands(m.div_ceil(kern.direct_tile[0]), threads, 1);
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
    let ld = direct_ld::<T>(n);
    // The copy is as big as B: past the blocked form's B block (what any other
    // product keeps in the thread's buffer) it is freed, so a thread does not hold
    // it for good.
    let blk = super::block::Blocking::for_tile(kern.mr, kern.nr, size_of::<T>());
    let keep = blk.kc * blk.nc * size_of::<T>();
    scratch::lent_or(lent, &scratch::PACK_B, k * ld, keep, |to, _| {
        for p in 0..k {
            // SAFETY: row `p` of B has `n` elements with unit stride (or is one
            // element long), as `direct_form` checked; `to` holds `k * ld` elements
            // with `ld >= n`, a buffer of this thread or lent for the call (borrowed
            // mutably apart from the views), so no view of the caller's overlaps it.
            unsafe { core::ptr::copy_nonoverlapping(b.at(p, 0), to.add(p * ld), n) };
        }
        run(Raw {
            ptr: to.cast_const(),
            rs: ld as isize,
            cs: 1,
        })
    })
}

/// The row stride, in elements, of the direct path's line-aligned copy of B's
/// `n`-element rows.
fn direct_ld<T>(n: usize) -> usize {
    n.next_multiple_of(LINE / size_of::<T>().max(1))
}

/// The most scratch, in elements, a product of this shape takes on `threads`
/// threads whatever its operands' layouts ([`path::needs`]): what [`gemm`]'s
/// `lent` must hold for the product to use nothing else.
pub(crate) fn scratch_len<T: GemmElement>(
    kern: &Kernel<T>,
    tuning: &Tuning,
    (m, n, k): (usize, usize, usize),
    threads: usize,
) -> usize {
    let volume = m.saturating_mul(n).saturating_mul(k);
    let threads = path::threads(tuning, volume, threads);
    let parts = slot_count(threads);
    path::needs(kern, tuning, (m, n, k), threads)
        .map(|need| match need {
            path::Need::DirectCopy { k, n } => scratch::piece_len::<T>(k * direct_ld::<T>(n)),
            path::Need::Narrow { m, blk } => {
                let per = nest_mod::narrow_len(kern.mr, kern.nr, m, blk.kc);
                scratch::slots_layout::<T>(parts, per).1
            }
            path::Need::Blocked { blk } => {
                scratch::piece_len::<T>(blk.kc * blk.nc)
                    + scratch::slots_layout::<T>(parts, blk.mc * blk.kc + TILE_MAX).1
            }
        })
        .max()
        .unwrap_or(0)
}

/// The direct path's run over the pool: C's rows in `chunks` bands of whole register
/// blocks, each band summing k in blocks of `step` steps (`kc` the packed path's
/// k-block).
///
/// # Safety
/// As [`gemm`], with the views in the direct form (B's and C's rows contiguous or
/// one element long).
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

/// The narrow form: per k-block, C's columns in bands over the pool, each packing A's
/// whole block (once per thread) and each B panel right before its tiles
/// (`Nest::narrow_band`).
///
/// # Safety
/// As [`gemm`], with `nest` and `p` holding the views the product runs on.
unsafe fn narrow<T: GemmElement>(
    nest: &Nest<T>,
    p: &Packed<T>,
    k: usize,
    beta: T,
    threads: usize,
    lent: Lent<T>,
) {
    // A number no other product gets, naming this one's packed A blocks.
    static PRODUCTS: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);
    let product = PRODUCTS.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    let (blk, n) = (p.blk, p.n);
    let n_tiles = n.div_ceil(nest.kern.nr);
    let bands = bands(n_tiles, threads, p.bands_per_thread);
    let per = nest.narrow_len(blk.kc);
    scratch::slots_or(lent, slot_count(threads), per, |slots| {
        for pc in (0..k).step_by(blk.kc) {
            let kcb = blk.kc.min(k - pc);
            let beta = if pc == 0 { beta } else { T::ONE };
            fan_out(threads, bands, &|q, part| {
                let cols = share(n_tiles, bands, q);
                // SAFETY: each chunk writes the columns of C in its own panels;
                // participant `part`'s slot holds `narrow_len(kc)` elements and is
                // used by this thread alone while it runs; the rest is the
                // caller's promise.
                unsafe {
                    nest.narrow_band(product, p.b, n, (pc, kcb), cols, beta, slots.get(part))
                };
            });
        }
    });
}

/// The blocked form's scratch (B's packed block, the workers' A slots; from `lent`
/// where it holds them) and loop 5: `NC` columns of B and C at a time.
///
/// # Safety
/// As [`narrow`].
unsafe fn blocked<T: GemmElement>(
    nest: &Nest<T>,
    p: &Packed<T>,
    k: usize,
    beta: T,
    threads: usize,
    lent: Lent<T>,
) {
    let blk = p.blk;
    let per = blk.mc * blk.kc + TILE_MAX;
    scratch::lent_or(
        lent,
        &scratch::PACK_B,
        blk.kc * blk.nc,
        usize::MAX,
        |b, rest| {
            let bbuf = Shared(b);
            scratch::slots_or(rest, slot_count(threads), per, |slots| {
                for jc in (0..p.n).step_by(blk.nc) {
                    let ncb = blk.nc.min(p.n - jc);
                    // SAFETY: `bbuf` holds `kc * nc` elements, `slots` a slot per
                    // participant of `mc * kc + TILE_MAX`; the rest is the caller's.
                    unsafe { k_blocks(nest, p, k, (jc, ncb), beta, threads, bbuf, slots) };
                }
            });
        },
    );
}

/// Loop 4: for each `KC` block of k, B's `kcb x ncb` block at `(pc, jc)` packed by all
/// workers (each its own panels) into `bbuf`, then loop 3 on it ([`mc_bands`]).
///
/// # Safety
/// As [`blocked`]'s loop promises it.
#[allow(clippy::too_many_arguments)]
unsafe fn k_blocks<T: GemmElement>(
    nest: &Nest<T>,
    p: &Packed<T>,
    k: usize,
    (jc, ncb): (usize, usize),
    beta: T,
    threads: usize,
    bbuf: Shared<T>,
    slots: &scratch::Slots<T>,
) {
    let (blk, b, kern) = (p.blk, p.b, nest.kern);
    let b_panels = ncb.div_ceil(kern.nr);
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
            // SAFETY: the buffer holds `kc * nc >= b_panels * nr * kcb` elements;
            // this chunk writes only its own panels; the source is the `kcb x ncb`
            // block of B at `(pc, jc)`, inside B; the kernel (and its gather) is
            // handed out only on a CPU with its tier.
            unsafe { pack::block(bbuf.ptr(), src, ncb, kern.nr, kcb, panels, kern.gather8) };
        });
        // SAFETY: B's block is packed (the fan-out above has returned).
        unsafe { mc_bands(nest, p, (pc, kcb), (jc, ncb), beta, threads, bbuf, slots) };
    }
}

/// Loop 3, spread over the pool: the tiles against B's packed block cut into bands of
/// whole tiles (by rows when there are enough), each band running `Nest::band` (its
/// `MC` blocks of A, packed into the participant's slot).
///
/// # Safety
/// `bbuf` holds B's packed `kcb x ncb` block at `(pc, jc)`; `slots` a slot of
/// `mc * kc + TILE_MAX` elements per participant; the rest as [`gemm`].
#[allow(clippy::too_many_arguments)]
unsafe fn mc_bands<T: GemmElement>(
    nest: &Nest<T>,
    p: &Packed<T>,
    (pc, kcb): (usize, usize),
    (jc, ncb): (usize, usize),
    beta: T,
    threads: usize,
    bbuf: Shared<T>,
    slots: &scratch::Slots<T>,
) {
    let (m, mr) = (p.m, nest.kern.mr);
    let (m_tiles, n_tiles) = (m.div_ceil(mr), ncb.div_ceil(nest.kern.nr));
    let b_panels = n_tiles;
    let by_rows = m_tiles >= n_tiles || m_tiles >= 4 * threads;
    let bands = bands(
        if by_rows { m_tiles } else { n_tiles },
        threads,
        p.bands_per_thread,
    );
    // Row bands at least MC tall when there are rows enough, unless the bands per
    // thread are forced.
    let bands = if by_rows && p.tall_bands {
        tall_bands(bands, m, p.blk.mc, threads)
    } else {
        bands
    };
    let band_rows = |q: usize| {
        let t = share(m_tiles, bands, q);
        t.start * mr..(t.end * mr).min(m)
    };
    fan_out(threads, bands, &|q, part| {
        let (rows, cols, then) = if by_rows {
            let then = (q + 1 < bands).then(|| band_rows(q + 1));
            (band_rows(q), 0..b_panels, then)
        } else {
            (0..m, share(n_tiles, bands, q), None)
        };
        // SAFETY: B's block is packed; this band's tiles of C are touched by this
        // chunk only; participant `part`'s slot holds `mc * kc + TILE_MAX` elements
        // and is used by this thread alone while it runs; the rest is the caller's
        // promise.
        unsafe {
            nest.band(
                bbuf.ptr(),
                (pc, kcb),
                (jc, ncb),
                rows,
                cols,
                beta,
                then,
                slots.get(part),
            )
        };
    });
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
