//! Tiny products without packing: C is computed straight from A and B where they lie,
//! with no scratch, no blocking and no edge tiles.
//!
//! The operand walked along the vector lanes is B, whose rows must be contiguous
//! (unit column stride), as C's must (the driver hands over the transposed product
//! `C^T = B^T A^T` when that is where the unit strides are). A may have any strides: it
//! is only read one element at a time, broadcast. `R` rows of C by `W` vectors of
//! columns are held in registers; each step `p` of the k-loop loads the `W` vectors of
//! B's row `p`, broadcasts `A[i + r, p]` for each of the `R` rows and accumulates
//! (`acc += a * b`, fused on tiers with FMA), as the micro-kernel does with its
//! operands swapped. The write is the micro-kernel's (`t = alpha * ab`, then
//! `t + beta * c` unless `beta == 0`, never fused; C not read when `beta == 0`).
//!
//! Every element of C is one lane of one accumulator, summed over k in order whatever
//! block it falls in, so the blocking (`R` rows, then 4, 2, 1 for the last rows; `W`
//! vectors, then one, then a tail) never changes a result. The tail, `n mod N` columns
//! at the end of each row, runs as one vector ending at column `n`, overlapping the
//! columns before it: B is read only inside its rows, and only the tail's own lanes are
//! stored (C's other lanes of that vector, already written, are read when `beta != 0`
//! but not stored). A row shorter than one vector is loaded and stored through a stack
//! vector.
//!
//! The blocks run column strip by column strip (`W` vectors of B's columns, then one
//! vector, then the tail), each strip through every row of C: the strip's `k` steps
//! stay in L1 while A's rows stream past, four lines of A per eight steps, where rows
//! outer streamed a new line of B at every step (docs/design.md#the-direct-path).
//!
//! When k is longer than one KC block, the blocks run inside each register block:
//! its accumulators summed over the first block, written (caller's beta), zeroed,
//! summed over the next and added (beta 1), so A's rows are read through k in one
//! pass. The driver hands over k in one piece only when B's strip through the whole
//! of k fits in half of L2 (`path::DIRECT_WHOLE_K`); else it calls once per block
//! (docs/design.md#the-direct-path).

use crate::mem::prefetch;
use crate::vector::{FloatVector, MAX_LANES};
use core::mem::MaybeUninit;

/// Products of at most this many bytes' worth of multiply-adds (`m * n * k *
/// size_of::<T>()`: 64³ in f64, about 80³ in f32) take the direct path by default;
/// a tier whose blocks reach further sets its own (`gemm_kernel!`'s `up to`).
/// Against the packed path it wins up to 64³ f64 and 80³ f32, and is behind at 96³
/// (docs/design.md#which-path).
pub(crate) const DIRECT_MAX_BYTES: usize = 64 * 64 * 64 * 8;

/// A tier's direct kernel: `(m, n, k, kc, a, a_strides, b, b_rs, c, c_rs, alpha,
/// beta)`, `C = alpha * A * B + beta * C` for an `m x k` A at `a` with strides
/// `(rs, cs) = a_strides`, a `k x n` B at `b` (row `p` at `b + p * b_rs`, its `n`
/// elements contiguous) and an `m x n` C at `c` likewise (row stride `c_rs`), summed
/// over k in blocks of `kc` steps as the packed path sums (see [`block`]).
///
/// # Safety
/// The CPU has the kernel's tier; `k > 0`, `kc > 0`; every element of A and B is valid for
/// reads, every element of C for writes (and reads unless `beta == 0`), distinct
/// elements of C distinct and not overlapping A or B.
pub type DirectFn<T> = unsafe fn(
    m: usize,
    n: usize,
    k: usize,
    kc: usize,
    a: *const T,
    a_strides: (isize, isize),
    b: *const T,
    b_rs: isize,
    c: *mut T,
    c_rs: isize,
    alpha: T,
    beta: T,
);

/// The template: `R` rows by `W` vectors at a time (see the module doc); `beta` is
/// `None` for `beta == 0` (C not read).
///
/// # Safety
/// As [`DirectFn`], inside a function with `V`'s features; `R <= 8`, `V::N <= 16`.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // DirectFn's calling convention
pub(crate) unsafe fn direct<V: FloatVector, const R: usize, const W: usize>(
    (m, n, k, kc): (usize, usize, usize, usize),
    a: *const V::T,
    (ars, acs): (isize, isize),
    b: *const V::T,
    brs: isize,
    c: *mut V::T,
    crs: isize,
    alpha: V::T,
    beta: Option<V::T>,
) {
    const { assert!(R >= 1 && R <= 8 && V::N <= MAX_LANES) };
    let g = Geom {
        k,
        kc,
        acs,
        b,
        brs,
        alpha,
        beta,
    };
    // Column strip by column strip (see the module doc). SAFETY (every strip below):
    // columns `j .. j + W * N` (or `j .. j + N`, or the tail) are inside the `n`
    // columns, as `rows` needs; the rest is the caller's promise.
    let mut j = 0;
    while j + W * V::N <= n {
        // SAFETY: columns `j .. j + W * N` are inside the `n` columns (loop condition).
        unsafe { rows::<V, R, W>(&g, m, a, ars, c, crs, j, Lanes::All) };
        j += W * V::N;
    }
    if W > 2 && j + 2 * V::N <= n {
        // SAFETY: columns `j .. j + 2 * N` are inside the `n` columns (checked).
        unsafe { rows::<V, R, 2>(&g, m, a, ars, c, crs, j, Lanes::All) };
        j += 2 * V::N;
    }
    while j + V::N <= n {
        // SAFETY: columns `j .. j + N` are inside the `n` columns (loop condition).
        unsafe { rows::<V, R, 1>(&g, m, a, ars, c, crs, j, Lanes::All) };
        j += V::N;
    }
    if j < n {
        if n >= V::N {
            let from = j + V::N - n;
            // SAFETY: columns `n - N .. n` exist (`n >= N`); lanes below `from` are not stored.
            unsafe { rows::<V, R, 1>(&g, m, a, ars, c, crs, n - V::N, Lanes::From(from)) };
        } else {
            // SAFETY: `Lanes::Below(n)` with `j == 0` and `W == 1`, as `block` allows.
            unsafe { rows::<V, R, 1>(&g, m, a, ars, c, crs, 0, Lanes::Below(n)) };
        }
    }
}

/// How many rows of B ahead the first block of rows of each column strip asks for
/// (`PREFETCHT0`), the block that brings the strip in from L3 or memory; the
/// blocks after it find the strip in L1. Only in strips longer than twice this: in
/// a short one the hints ask for lines past B's end (docs/design.md#the-direct-path).
const B_AHEAD: isize = 64;

/// Every row of C (blocks of `R`, then 4, 2, 1) at the columns of one strip.
///
/// # Safety
/// As [`block`] for each block of rows, inside the `m` rows.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn rows<V: FloatVector, const R: usize, const W: usize>(
    g: &Geom<V::T>,
    m: usize,
    a: *const V::T,
    ars: isize,
    c: *mut V::T,
    crs: isize,
    j: usize,
    lanes: Lanes,
) {
    let at = |i: usize| {
        (
            a.wrapping_offset(i as isize * ars),
            c.wrapping_offset(i as isize * crs),
        )
    };
    // The hints pay only for a long strip (see `B_AHEAD`).
    let far = g.k > 2 * B_AHEAD as usize;
    let mut i = 0;
    while i + R <= m {
        let (ai, ci) = at(i);
        // SAFETY: rows `i .. i + R`, inside the `m` rows (loop condition).
        unsafe { block::<V, R, W>(g, ai, ars, j, ci, crs, lanes, i == 0 && far) };
        i += R;
    }
    if R > 4 && i + 4 <= m {
        let (ai, ci) = at(i);
        // SAFETY: rows `i .. i + 4`, inside the `m` rows (checked).
        unsafe { block::<V, 4, W>(g, ai, ars, j, ci, crs, lanes, i == 0 && far) };
        i += 4;
    }
    if R > 2 && i + 2 <= m {
        let (ai, ci) = at(i);
        // SAFETY: rows `i .. i + 2`, inside the `m` rows (checked).
        unsafe { block::<V, 2, W>(g, ai, ars, j, ci, crs, lanes, i == 0 && far) };
        i += 2;
    }
    if R > 1 && i < m {
        let (ai, ci) = at(i);
        // SAFETY: rows `i .. i + 1`, inside the `m` rows (checked).
        unsafe { block::<V, 1, W>(g, ai, ars, j, ci, crs, lanes, i == 0 && far) };
        i += 1;
    }
    debug_assert_eq!(i, m);
}

/// What every block of one product shares.
struct Geom<T> {
    k: usize,
    kc: usize,
    acs: isize,
    b: *const T,
    brs: isize,
    alpha: T,
    beta: Option<T>,
}

/// Which lanes of a block's vectors are C's (see [`block`]).
#[derive(Clone, Copy)]
enum Lanes {
    /// All of them.
    All,
    /// Lanes `from..N`: the tail vector that overlaps the columns before it.
    From(usize),
    /// Lanes `0..len` with `len < N`: the whole row is narrower than a vector (B and
    /// C are read and written through a stack vector).
    Below(usize),
}

/// `R x W` vectors of C at column `j`: the k-loop, then the write of the lanes
/// `lanes` says. With `ahead` (the strip's first block of rows) each step also asks
/// for B's row [`B_AHEAD`] steps on.
///
/// # Safety
/// As [`direct`] for these `R` rows; columns `j .. j + W * N` are inside the row
/// (`j + N <= n`), except with `Lanes::Below(n)` (then `W == 1`, `j == 0`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn block<V: FloatVector, const R: usize, const W: usize>(
    g: &Geom<V::T>,
    a: *const V::T,
    ars: isize,
    j: usize,
    c: *mut V::T,
    crs: isize,
    lanes: Lanes,
    ahead: bool,
) {
    if g.k <= g.kc {
        // One block (every small product): no loop around the k-loop, which cost
        // 64³ about 3% (AVX-512 f64, one thread, three pairs of processes); with
        // this path the build still ran 64³ 1.5-3% behind the one before the loop
        // (module doc).
        // SAFETY: steps `0 .. k` of these rows and columns, as the caller allows.
        let acc = unsafe { sum::<V, R, W>(g, (a, g.b.wrapping_add(j), g.k), ars, lanes, ahead) };
        // SAFETY: as the caller allows.
        return unsafe { write::<V, R, W>(&acc, c, crs, j, lanes, g.alpha, g.beta) };
    }
    let mut beta = g.beta;
    let mut pc = 0;
    while pc < g.k {
        let steps = g.kc.min(g.k - pc);
        let ap = a.wrapping_offset(pc as isize * g.acs);
        let bp = g.b.wrapping_offset(pc as isize * g.brs).wrapping_add(j);
        // SAFETY: steps `pc .. pc + steps` of these rows and columns, as the caller
        // allows.
        let acc = unsafe { sum::<V, R, W>(g, (ap, bp, steps), ars, lanes, ahead) };
        // SAFETY: as the caller allows.
        unsafe { write::<V, R, W>(&acc, c, crs, j, lanes, g.alpha, beta) };
        // The later blocks add to what the earlier ones wrote.
        beta = Some(<V::T as crate::scalar::Arith>::ONE);
        pc += steps;
    }
}

/// The sums of one k-block, `steps` steps from `ap` and `bp`: [`k_loop`] with the
/// hints when `ahead` (two loops, so that only the strip's first block of rows
/// carries them).
///
/// # Safety
/// As [`k_loop`].
#[inline(always)]
unsafe fn sum<V: FloatVector, const R: usize, const W: usize>(
    g: &Geom<V::T>,
    block: (*const V::T, *const V::T, usize),
    ars: isize,
    lanes: Lanes,
    ahead: bool,
) -> [[V; W]; R] {
    // SAFETY: `V`'s features are present (the caller's contract).
    let mut acc = [[unsafe { V::zero() }; W]; R];
    if ahead {
        // SAFETY: as the caller allows.
        unsafe { k_loop::<V, R, W, true>(&mut acc, g, block, ars, lanes) };
    } else {
        // SAFETY: as above.
        unsafe { k_loop::<V, R, W, false>(&mut acc, g, block, ars, lanes) };
    }
    acc
}

/// Writes `R x W` accumulators to C at column `j`: `t = alpha * acc`, then
/// `t + beta * c` unless `beta` is `None` (C not read), into the lanes `lanes` says.
///
/// # Safety
/// As [`block`].
#[inline(always)]
unsafe fn write<V: FloatVector, const R: usize, const W: usize>(
    acc: &[[V; W]; R],
    c: *mut V::T,
    crs: isize,
    j: usize,
    lanes: Lanes,
    alpha: V::T,
    beta: Option<V::T>,
) {
    // SAFETY: inside a function with `V`'s features, as the caller's.
    let (alpha, beta) = unsafe { (V::splat(alpha), beta.map(|b| V::splat(b))) };
    for (r, acc) in acc.iter().enumerate() {
        let cr = c.wrapping_offset(r as isize * crs).wrapping_add(j);
        for (v, &ab) in acc.iter().enumerate() {
            let p = cr.wrapping_add(v * V::N);
            // SAFETY: `p .. p + N` are elements of C's row `r` (for `Lanes::All` and
            // `Lanes::From`, whose vector ends at column `n`), or its first `len`
            // (`Lanes::Below`), read only when `beta` is `Some`; with `Lanes::From`
            // the lanes below `from` were written by an earlier block and are read but
            // not stored, so they keep that block's value.
            unsafe {
                let t = V::mul(ab, alpha);
                let cur = |p| match lanes {
                    Lanes::Below(len) => load_part::<V>(p, len),
                    _ => V::load(p),
                };
                let t = match beta {
                    None => t,
                    Some(beta) => V::add(t, V::mul(beta, cur(p))),
                };
                match lanes {
                    Lanes::All => t.store(p),
                    Lanes::From(from) => store_lanes(t, p, from, V::N),
                    Lanes::Below(len) => store_lanes(t, p, 0, len),
                }
            }
        }
    }
}

/// The k-loop of [`block`] into `acc`, asking for B's row [`B_AHEAD`] steps on at
/// each step when `AHEAD`.
///
/// # Safety
/// As [`block`].
#[inline(always)]
unsafe fn k_loop<V: FloatVector, const R: usize, const W: usize, const AHEAD: bool>(
    acc: &mut [[V; W]; R],
    g: &Geom<V::T>,
    (mut ap, mut bp, steps): (*const V::T, *const V::T, usize),
    ars: isize,
    lanes: Lanes,
) {
    let (acs, brs) = (g.acs, g.brs);
    let mut left = steps;
    // A's rows contiguous (`acs == 1`, the row-major case): four steps per trip,
    // A's elements of the later steps at constant offsets from the same `R`
    // addresses. Same multiply-adds in the same order
    // (docs/design.md#the-direct-path). Not with
    // the hints (`AHEAD`), which were not measured so.
    if acs == 1 && !AHEAD {
        while left >= 4 {
            for u in 0..4 {
                let (au, bu) = (ap.wrapping_add(u), bp.wrapping_offset(u as isize * brs));
                // SAFETY: steps `p + u` (`u < 4 <= left`), as below.
                unsafe { step::<V, R, W>(acc, au, ars, bu, lanes) };
            }
            ap = ap.wrapping_add(4);
            bp = bp.wrapping_offset(4 * brs);
            left -= 4;
        }
    }
    // One step per trip otherwise: four per trip (as the micro-kernel) with a
    // run-time `acs` needs `4 * R` addresses of A from two run-time strides, which
    // spill (more instructions, callgrind). The pointers step with `wrapping_offset`:
    // the one past the last step is never dereferenced (a hint's address may lie
    // anywhere).
    for _ in 0..left {
        // SAFETY: at each step `p`, `ap` is `A[0, p]` and `bp` is `B[p, j]`, as `step`
        // needs (the caller's promise for these rows and columns).
        unsafe { step::<V, R, W>(acc, ap, ars, bp, lanes) };
        if AHEAD {
            prefetch::<true>(bp.wrapping_offset(B_AHEAD * brs).cast());
        }
        ap = ap.wrapping_offset(acs);
        bp = bp.wrapping_offset(brs);
    }
}

/// One step of the k-loop: `acc[r][v] += A[r, p] * B[p, j + v * N ..]` for `r < R`,
/// `v < W`, with `a` at `A[0, p]` (rows `ars` apart) and `b` at `B[p, j]`.
///
/// # Safety
/// Inside a function with `V`'s features; `a + r * ars` (`r < R`) are valid for
/// reads, and so are `b .. b + W * N` (`b .. b + len` for `Lanes::Below(len)`).
#[inline(always)]
unsafe fn step<V: FloatVector, const R: usize, const W: usize>(
    acc: &mut [[V; W]; R],
    a: *const V::T,
    ars: isize,
    b: *const V::T,
    lanes: Lanes,
) {
    // SAFETY: as the caller allows.
    unsafe {
        let mut bv = [V::zero(); W];
        for (v, x) in bv.iter_mut().enumerate() {
            *x = match lanes {
                Lanes::Below(len) => load_part::<V>(b, len),
                _ => V::load(b.add(v * V::N)),
            };
        }
        for (r, acc) in acc.iter_mut().enumerate() {
            let ar = V::splat(*a.offset(r as isize * ars));
            for (acc, &b) in acc.iter_mut().zip(&bv) {
                *acc = V::madd(ar, b, *acc);
            }
        }
    }
}

/// A vector whose first `len < N` lanes are `p[..len]`, the rest `+0`.
///
/// # Safety
/// Inside a function with `V`'s features; `p` is valid for `len` reads.
#[inline(always)]
unsafe fn load_part<V: FloatVector>(p: *const V::T, len: usize) -> V {
    let mut buf = [MaybeUninit::<V::T>::uninit(); MAX_LANES];
    let dst = buf.as_mut_ptr().cast::<V::T>();
    // SAFETY: `buf` holds `MAX_LANES >= N` elements, all initialised by the store
    // before the load reads them; `len < N` elements copied from `p`, as the caller
    // allows.
    unsafe {
        V::zero().store(dst);
        for l in 0..len {
            *dst.add(l) = *p.add(l);
        }
        V::load(dst)
    }
}

/// Stores lanes `from..to` of `v` to `p + from .. p + to`.
///
/// # Safety
/// Inside a function with `V`'s features; `to <= N`; those elements of `p` are valid
/// for writes.
#[inline(always)]
unsafe fn store_lanes<V: FloatVector>(v: V, p: *mut V::T, from: usize, to: usize) {
    let mut buf = [MaybeUninit::<V::T>::uninit(); MAX_LANES];
    let src = buf.as_mut_ptr().cast::<V::T>();
    // SAFETY: `buf` holds `MAX_LANES >= N` elements, written by the store; lanes
    // `from..to` (`to <= N`) go where the caller allows.
    unsafe {
        v.store(src);
        for l in from..to {
            *p.add(l) = *src.add(l);
        }
    }
}
