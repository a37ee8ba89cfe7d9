//! The micro-kernel: one template over the per-ISA vectors of [`crate::vector`]
//! ([`FloatVector`]), stamped out per tier and element type by `gemm_kernel!` (`table.rs`).
//!
//! A kernel multiplies one packed `MR x kc` panel of A (column `p` of the panel is `MR`
//! contiguous elements) by one packed `kc x NR` panel of B (row `p` is `NR` contiguous
//! elements), holding the `MR x NR` product in registers: `MR / N` vectors per column
//! of the tile, `NR` columns. Each step of the k-loop loads the `MR / N` vectors of A,
//! broadcasts each of the `NR` values of B and accumulates (`acc += a * b`, fused on
//! tiers with FMA). At the end it writes `C = alpha * AB + beta * C` with `C`'s column
//! `j` at `c + j * cs` (unit row stride); with `beta == 0` it never reads `C`.
//!
//! The write is the same arithmetic on every path (`t = alpha * ab`, then `t + beta * c`
//! unless `beta == 0`, never fused), so the driver's edge tiles, which let the kernel
//! write `alpha * AB` into a stack tile and add `beta * C` with scalar code, give the
//! same bits as a full tile would: results never depend on where tile borders fall,
//! which is what keeps a product bit-identical whatever the thread split.

use crate::vector::FloatVector;

/// A micro-kernel: `(kc, a, b, c, cs, alpha, beta, ahead)`.
///
/// # Safety
/// The CPU has the kernel's tier; `a` is valid for `kc * MR` reads, `b` for
/// `kc * NR`; `c + i + j * cs` for `i < MR`, `j < NR` are `MR * NR` distinct
/// elements valid for writes, and for reads too unless `beta == 0`. `ahead` is
/// only a hint (any value is sound).
pub type MicroFn<T> = unsafe fn(
    kc: usize,
    a: *const T,
    b: *const T,
    c: *mut T,
    cs: isize,
    alpha: T,
    beta: T,
    ahead: Ahead,
);

/// A micro-kernel reading B where it lies instead of from a packed panel: `(kc, a,
/// b, b_cs, c, cs, alpha, beta, ahead)`, as [`MicroFn`] with `(kc, a, b, ...)`,
/// except that B's element `(p, j)` is at `b + p + j * b_cs` (its `NR` columns each
/// contiguous along k, as a row-major A's rows are for the transposed product).
///
/// # Safety
/// As [`MicroFn`], with `b + p + j * b_cs` valid for reads for `p < kc`, `j < NR`.
pub type BColsFn<T> = unsafe fn(
    kc: usize,
    a: *const T,
    b: *const T,
    b_cs: isize,
    c: *mut T,
    cs: isize,
    alpha: T,
    beta: T,
    ahead: Ahead,
);

/// Memory a kernel asks for while it runs, spread over its k-loop: lines `from ..
/// to` of a region of runs of `lines` cache lines each, run `r` starting at byte
/// `at + r * row` (line `l` is line `l % lines` of run `l / lines`). The driver names
/// the source of the operand it packs next (the next B panel in the narrow form,
/// the band's next A block in the blocked one), so that its lines come in from
/// memory while this tile's arithmetic runs instead of while the packing loop waits
/// for them: on one core the two took turns (`perf`: packing and kernel about half
/// the time each in `(4096 x 1024) . (1024 x 16)`). A prefetch is a hint: it never
/// faults, whatever the address, so any value here is sound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ahead {
    /// The first run's first byte.
    pub at: *const u8,
    /// Bytes from one run to the next.
    pub row: isize,
    /// Cache lines per run.
    pub lines: usize,
    /// The first line to ask for.
    pub from: usize,
    /// One past the last.
    pub to: usize,
}

/// Cache line size assumed by [`Ahead`] and the driver's direct path (64 bytes on every CPU this crate tunes for;
/// a wrong guess only asks for too many or too few lines).
pub(crate) const LINE: usize = 64;

/// Most prefetches a kernel issues per trip of its k-loop (four steps): enough for
/// a panel of twice the kernel's own bytes, few enough not to crowd its loads.
const AHEAD_PER_TRIP: usize = 3;

impl Ahead {
    /// Nothing to ask for.
    pub const NONE: Ahead = Ahead {
        at: core::ptr::null(),
        row: 0,
        lines: 0,
        from: 0,
        to: 0,
    };

    /// Part `i` of `parts` near-equal parts of the lines, for the `i`-th of `parts`
    /// kernel calls that share them.
    #[inline]
    pub(crate) fn part(self, i: usize, parts: usize) -> Ahead {
        let len = self.to - self.from;
        if len == 0 {
            // Nothing to share (and no division for it, per kernel call).
            return self;
        }
        let at = |i: usize| self.from + len / parts * i + i.min(len % parts);
        Ahead {
            from: at(i),
            to: at(i + 1),
            ..self
        }
    }
}

// SAFETY: an `Ahead` is never dereferenced, only handed to prefetch hints.
unsafe impl Send for Ahead {}
// SAFETY: as for `Send`.
unsafe impl Sync for Ahead {}

/// `(iters, x)`: `iters` rounds of multiply-adds on the kernel's accumulators,
/// all operands in registers (see [`peak`]).
///
/// # Safety
/// The CPU has the kernel's tier.
pub type PeakFn<T> = unsafe fn(iters: usize, x: T) -> T;

/// The FMA ceiling of a tile shape: `iters` rounds of `acc += a * b` on the
/// `MV x NR` accumulators of [`tile`], with `a` and `b` in registers, so that it
/// runs exactly the kernel's multiply-adds (`2 * MV * N * NR` flops a round) without
/// its loads. A benchmark anchor: the kernel's time against this one's for the
/// same flops is the fraction of the machine's peak it reaches. Returns a lane of
/// the sum (to keep the work observable).
///
/// # Safety
/// Inside a function with `V`'s features.
#[inline(always)]
pub(crate) unsafe fn peak<V: FloatVector, const MV: usize, const NR: usize>(
    iters: usize,
    x: V::T,
) -> V::T {
    // SAFETY: `V`'s features are present (the contract); `lanes` holds `64 >= N`
    // elements for the store.
    unsafe {
        let mut acc = [[V::zero(); MV]; NR];
        let a = V::splat(x);
        let mut b = [V::zero(); MV];
        for (i, v) in b.iter_mut().enumerate() {
            *v = V::mul(a, V::splat(x));
            if i % 2 == 1 {
                *v = V::add(*v, a);
            }
        }
        for _ in 0..iters {
            for col in acc.iter_mut() {
                for (acc, &bi) in col.iter_mut().zip(&b) {
                    *acc = V::madd(a, bi, *acc);
                }
            }
        }
        let mut s = V::zero();
        for col in &acc {
            for &v in col {
                s = V::add(s, v);
            }
        }
        let mut lanes = [x; 64];
        s.store(lanes.as_mut_ptr());
        lanes[0]
    }
}

/// A kernel's way through an [`Ahead`] over `trips` trips of its k-loop: the same
/// number of lines each trip (at most [`AHEAD_PER_TRIP`]), run by run, in order.
pub(crate) struct Walk {
    run: *const u8,
    row: isize,
    lines: usize,
    line: usize,
    left: usize,
    per_trip: usize,
}

impl Walk {
    #[inline(always)]
    pub(crate) fn new(ahead: Ahead, trips: usize) -> Walk {
        let left = ahead.to - ahead.from;
        let (run, line) = match ahead.lines {
            0 => (0, 0),
            lines => (ahead.from / lines, ahead.from % lines),
        };
        Walk {
            run: ahead.at.wrapping_offset(run as isize * ahead.row),
            row: ahead.row,
            lines: ahead.lines,
            line,
            left,
            per_trip: left.div_ceil(trips.max(1)).min(AHEAD_PER_TRIP),
        }
    }

    /// One trip's lines, each handed to `ask` (its first byte's address).
    #[inline(always)]
    pub(crate) fn trip(&mut self, mut ask: impl FnMut(*const u8)) {
        for _ in 0..self.per_trip.min(self.left) {
            ask(self.run.wrapping_add(self.line * LINE));
            self.left -= 1;
            self.line += 1;
            if self.line == self.lines {
                self.line = 0;
                self.run = self.run.wrapping_offset(self.row);
            }
        }
    }
}

pub(crate) use crate::mem::prefetch;

/// The k-loop of [`tile`], `U` steps a trip, `trip()` at the start of each trip
/// (`H` vectors of A, each step `a_step` elements after the last; `W` columns of
/// B, each step `b_step` elements after the last).
///
/// # Safety
/// As [`tile`], for the `kc` steps of A's and B's panels.
#[inline(always)]
#[allow(clippy::type_complexity)]
unsafe fn k_loop_with<V: FloatVector, const H: usize, const W: usize, const U: usize>(
    acc: &mut [[V; H]; W],
    kc: usize,
    (mut a, a_step, mut b, b_step, b_cs): (*const V::T, usize, *const V::T, usize, Option<isize>),
    mut trip: impl FnMut(),
) {
    // SAFETY: `V`'s features are present and the panels hold `kc` steps (`tile`'s
    // contract), so every step's pointers stay inside them (the last advance lands one
    // past their end).
    unsafe {
        for _ in 0..kc / U {
            trip();
            for u in 0..U {
                step(acc, a.add(u * a_step), b.add(u * b_step), b_cs);
            }
            a = a.add(U * a_step);
            b = b.add(U * b_step);
        }
        for _ in 0..kc % U {
            step(acc, a, b, b_cs);
            a = a.add(a_step);
            b = b.add(b_step);
        }
    }
}

/// One step of the k-loop: `acc[j][i] += a[i] * b[j]`.
///
/// # Safety
/// Inside a function with `V`'s features; `a` is valid for `H * N` reads, `b + j`
/// (or `b + j * b_cs`) for `j < W`.
#[inline(always)]
unsafe fn step<V: FloatVector, const H: usize, const W: usize>(
    acc: &mut [[V; H]; W],
    a: *const V::T,
    b: *const V::T,
    b_cs: Option<isize>,
) {
    // SAFETY: `V`'s features are present; `a` is valid for `H * N` reads and `b` for
    // the step's `W` elements (`k_loop_with`'s pointers into the panels).
    unsafe {
        let mut av = [V::zero(); H];
        for (i, v) in av.iter_mut().enumerate() {
            *v = V::load(a.add(i * V::N));
        }
        for (j, col) in acc.iter_mut().enumerate() {
            let bj = V::splat(match b_cs {
                None => *b.add(j),
                Some(cs) => *b.offset(j as isize * cs),
            });
            for (acc, &ai) in col.iter_mut().zip(&av) {
                *acc = V::madd(ai, bj, *acc);
            }
        }
    }
}

/// The template: the first `H` of a panel's `MV` vectors of `V::N` rows by the
/// first `W` of its `NR` columns (see the module doc; `H == MV` and `W == NR` but
/// for the edge kernels, `table::Kernel::run`).
///
/// # Safety
/// As [`MicroFn`] (with `b_cs`, as [`BColsFn`]), with `MR = MV * V::N`, inside a
/// function with `V`'s features, for the tile's first `H * V::N` rows and first
/// `W` columns; `beta` is `None` for `beta == 0` (C not read).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn tile<
    V: FloatVector,
    const MV: usize,
    const NR: usize,
    const H: usize,
    const W: usize,
>(
    kc: usize,
    a: *const V::T,
    b: *const V::T,
    c: *mut V::T,
    cs: isize,
    alpha: V::T,
    beta: Option<V::T>,
    ahead: Ahead,
    b_cs: Option<isize>,
) {
    // SAFETY: `V`'s features are present and the panels and C's tile are valid as
    // `MicroFn` (or `BColsFn`) says (the contract); C's column `j < W` at `c + j * cs`,
    // its first `H * N` rows written and, with `beta`, read.
    unsafe {
        const { assert!(W >= 1 && W <= NR && H >= 1 && H <= MV) };
        let mut acc = [[V::zero(); H]; W];
        // B packed (`NR` elements a step) or read in place (column `j` at `b + j * cs`,
        // steps contiguous).
        let b_step = if b_cs.is_some() { 1 } else { NR };
        // Ask for the tile of C now, so its lines arrive while the k-loop runs (+5% at
        // n = 256-1024; docs/design.md#packing-and-prefetch).
        // `wrapping_offset` keeps the arithmetic defined; a hint never faults.
        for j in 0..W {
            let cj = c.wrapping_offset(j as isize * cs);
            prefetch::<true>(cj.cast());
            prefetch::<true>(cj.wrapping_add(H * V::N - 1).cast());
        }
        // Four steps per trip: the loop overhead is paid once per 4 * H * W FMAs.
        const U: usize = 4;
        // A's panel is `MV` vectors a step, whatever `H` reads of it.
        let panels = (a, MV * V::N, b, b_step, b_cs);
        if ahead.from == ahead.to {
            // Nothing to ask for: no plan to walk (its setup divides, a few percent of a
            // short k-loop).
            k_loop_with::<V, H, W, U>(&mut acc, kc, panels, || {});
        } else {
            let mut walk = Walk::new(ahead, kc / U);
            k_loop_with::<V, H, W, U>(&mut acc, kc, panels, || walk.trip(prefetch::<false>));
        }
        let alpha = V::splat(alpha);
        let beta = beta.map(|b| V::splat(b));
        for (j, col) in acc.iter().enumerate() {
            let cj = c.offset(j as isize * cs);
            for (i, &ab) in col.iter().enumerate() {
                let p = cj.add(i * V::N);
                let t = V::mul(ab, alpha);
                let t = match beta {
                    None => t,
                    Some(beta) => V::add(t, V::mul(beta, V::load(p))),
                };
                t.store(p);
            }
        }
    }
}
