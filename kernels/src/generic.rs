//! The hand-written kernels, each algorithm written once over the vector traits of
//! [`crate::vector`] ([`FloatVector`], [`ByteVector`]) and instantiated inside each
//! tier's `#[target_feature]` functions (the shape of `memchr`'s `arch/generic`).
//!
//! These are the kernels whose oracle LLVM cannot vectorise well: the reductions with
//! NaN rules and early exits (`max`, `min`, `argmax`, `argmin`) and the byte and word
//! scans. Everything is `#[inline(always)]` so it
//! is compiled with the calling tier's features.
//!
//! Every function here is `unsafe` for the vector methods' one reason: it must run
//! where `V`'s features are present (inside the tier's `#[target_feature]` function);
//! those that take raw pointers or need a minimum length say so.
//!
//! Reads never pass the end of a slice: full blocks are read while they fit, and the
//! rest is either a last block that overlaps the one before it (where reading an
//! element twice cannot change the answer) or a scalar tail.

use crate::scalar::{self, Arith};
use crate::vector::{ByteVector, FloatVector, MAX_LANES};

/// The most vectors a canonical reduction holds: `CANONICAL_LANES / N` is 8 with
/// 256-bit vectors and 16 with 128-bit ones.
const MAX_ACC: usize = 16;

/// The canonical lane order of [`crate::scalar`] with vectors: lane `j` of the
/// canonical order is lane `j % N` of accumulator `j / N`, so each chunk of
/// `CANONICAL_LANES` elements is `K = CANONICAL_LANES / N` whole-vector updates, and
/// the fold's halving is whole-vector while the width is at least `N`: this returns
/// that last vector, whose lanes [`canonical`] (or [`fold8`]) folds below. `step(acc, at, r)` updates an accumulator from the `r` (at most
/// `N`) elements at offset `at` of the operands, the lanes past `r` taken as the
/// identity; `r < N` happens once, for the last partial vector.
///
/// The tail needs no padded copy: its whole vectors go to the accumulators their
/// canonical lanes name, and only its last partial vector is assembled lane by lane.
/// (A copy of the tail into a padded chunk cost a `memcpy` call and store-forwarding
/// stalls on every call, more than the whole loop of a 1Ki-element `f32` sum.)
///
/// # Safety
/// `V`'s ISA features are present (the caller runs inside a `#[target_feature]`
/// function of `V`'s tier), and `step(acc, at, r)` is sound to call for every
/// `at + r <= n` with `r <= V::N`: it is where the reads happen.
#[inline(always)]
unsafe fn canonical_vector<V: FloatVector>(
    n: usize,
    identity: V::T,
    step: impl Fn(V, usize, usize) -> V,
    op: impl Fn(V, V) -> V,
) -> V {
    // SAFETY: `V`'s features are present (the module's contract).
    unsafe {
        let l = V::T::CANONICAL_LANES;
        let k_n = l / V::N;
        debug_assert!(k_n <= MAX_ACC && k_n.is_power_of_two());
        let mut acc = [V::splat(identity); MAX_ACC];
        let whole = n - n % l;
        let mut i = 0;
        while i < whole {
            for (k, acc) in acc.iter_mut().enumerate().take(k_n) {
                *acc = step(*acc, i + k * V::N, V::N);
            }
            i += l;
        }
        debug_assert_eq!(i, whole);
        // The tail: whole vectors, then at most one partial one (constant indices, so
        // the accumulators stay in registers). Skipped as a whole when there is none:
        // its eight checks were a third of a 64-element sum's instructions.
        if whole < n {
            for (k, acc) in acc.iter_mut().enumerate().take(k_n) {
                let at = whole + k * V::N;
                if at < n {
                    *acc = step(*acc, at, V::N.min(n - at));
                }
            }
        }
        let mut width = k_n;
        while width > 1 {
            width /= 2;
            for k in 0..width {
                acc[k] = op(acc[k], acc[k + width]);
            }
        }
        acc[0]
    }
}

/// [`canonical_vector`] with its last vector's lanes folded by halving: the
/// canonical reduction of `n` elements.
///
/// # Safety
/// As [`canonical_vector`].
#[inline(always)]
unsafe fn canonical<V: FloatVector>(
    n: usize,
    identity: V::T,
    step: impl Fn(V, usize, usize) -> V,
    op: impl Fn(V, V) -> V,
    op1: impl Fn(V::T, V::T) -> V::T,
) -> V::T {
    // SAFETY: as `canonical_vector`'s; `lanes` holds `MAX_LANES >= N` elements.
    unsafe {
        let mut lanes = [identity; MAX_LANES];
        debug_assert!(V::N <= lanes.len());
        canonical_vector::<V>(n, identity, step, op).store(lanes.as_mut_ptr());
        let mut width = V::N;
        while width > 1 {
            width /= 2;
            for j in 0..width {
                lanes[j] = op1(lanes[j], lanes[j + width]);
            }
        }
        lanes[0]
    }
}

/// The lane folds of [`canonical`] for 8 vectors at once, on vectors: lane `k` of
/// the result is `v[k]`'s lanes folded by halving (`lanes[j] op lanes[j + w]`,
/// `w = N/2 .. 1`), the same operations on the same operands, so the same bits.
/// Each stage takes the low and the high half of every segment of two vectors
/// (`lookup2` with the indices of [`fold8_indices`]) and adds them: the segments
/// halve and the vectors pair up, until one vector holds one lane per block.
/// Needs `N >= 8`.
///
/// # Safety
/// `V`'s features are present.
#[inline(always)]
unsafe fn fold8<V: FloatVector>(
    mut v: [V; 8],
    ix: &[(V::Int, V::Int); FOLD8_STAGES],
    op: impl Fn(V, V) -> V,
) -> V {
    // SAFETY: `V`'s features are present (the caller's contract).
    unsafe {
        debug_assert!(V::N >= 8);
        let mut m = 8;
        for &(lo, hi) in ix.iter().take(V::N.ilog2() as usize) {
            if m > 1 {
                m /= 2;
                for p in 0..m {
                    let (x, y) = (v[2 * p], v[2 * p + 1]);
                    v[p] = op(V::lookup2(x, y, lo), V::lookup2(x, y, hi));
                }
            } else {
                // One vector left, 8 segments of 2 lanes (`N = 16`): it pairs with itself.
                v[0] = op(V::lookup2(v[0], v[0], lo), V::lookup2(v[0], v[0], hi));
            }
        }
        v[0]
    }
}

/// Stages of [`fold8`]: `log2 N`, at most 4 (`N <= 16`).
const FOLD8_STAGES: usize = 4;

/// [`fold8`]'s `lookup2` indices, stage by stage: with segments of `s` lanes halved
/// to `h = s / 2`, output lane `o` is lane `(o / h) * s + o % h` of the pair's `2N`
/// lanes (the low half of its segment) or that plus `h` (the high half).
///
/// # Safety
/// `V`'s features are present.
#[inline(always)]
unsafe fn fold8_indices<V: FloatVector>() -> [(V::Int, V::Int); FOLD8_STAGES] {
    // SAFETY: `V`'s features are present; the arrays hold `MAX_LANES >= N` lanes.
    unsafe {
        let zero = V::round_int(V::zero());
        let mut out = [(zero, zero); FOLD8_STAGES];
        let mut seg = V::N;
        for stage in out.iter_mut().take(V::N.ilog2() as usize) {
            let h = seg / 2;
            let (mut lo, mut hi) = ([V::T::ZERO; MAX_LANES], [V::T::ZERO; MAX_LANES]);
            for o in 0..V::N {
                // Computed, not counted up: this runs once per call of a sum of
                // more than four blocks.
                lo[o] = V::T::small((o / h * seg + o % h) as u32);
                hi[o] = V::T::small((o / h * seg + o % h + h) as u32);
            }
            *stage = (
                V::round_int(V::load(lo.as_ptr())),
                V::round_int(V::load(hi.as_ptr())),
            );
            seg = h;
        }
        out
    }
}

/// `r` (at most `N`) elements from `p`, the other lanes `fill`: a full load when
/// `r == N`, else assembled on the stack without reading past `p + r`.
///
/// # Safety
/// `p` is valid for `r` reads.
#[inline(always)]
unsafe fn load_upto<V: FloatVector>(p: *const V::T, r: usize, fill: V::T) -> V {
    // SAFETY: `V`'s features are present; `p` is valid for `r` reads (the caller's
    // contract) and `buf` holds `MAX_LANES >= N` elements.
    unsafe {
        if r == V::N {
            return V::load(p);
        }
        let mut buf = [fill; MAX_LANES];
        for (j, slot) in buf.iter_mut().enumerate().take(r) {
            *slot = *p.add(j);
        }
        V::load(buf.as_ptr())
    }
}

/// [`canonical`] block by block ([`scalar::block_len`] elements each, the last one
/// short), the block results added pairwise ([`scalar::Pairwise`]): the order of
/// [`scalar::sum`]. `step` takes offsets into the whole operand.
///
/// The blocks are direct calls, not a closure handed to a driver: a closure does
/// not get the calling function's target features, so a closure too big to inline
/// would call every vector method out of line.
///
/// # Safety
/// As [`canonical`]: `V`'s features are present and `step` is sound for every
/// `at + r <= n`, `r <= V::N`.
#[inline(always)]
unsafe fn blocked<V: FloatVector>(
    n: usize,
    identity: V::T,
    step: impl Fn(V, usize, usize) -> V,
    op: impl Fn(V, V) -> V + Copy,
    op1: impl Fn(V::T, V::T) -> V::T + Copy,
) -> V::T {
    // SAFETY: `V`'s features are present; each block passes `step` offsets inside
    // `0..n`, as `canonical` does for the whole.
    unsafe {
        let b = scalar::block_len::<V::T>();
        if n <= b {
            return canonical::<V>(n, identity, &step, op, op1);
        }
        // Macros, not closures: see above. `whole!(at)` is the whole block at `at`
        // (a constant length: its loop is unrolled flat), `leaf!(at)` the block at
        // `at`, whole or the last short one.
        macro_rules! whole {
            ($at:expr) => {{
                let at = $at;
                canonical::<V>(b, identity, |acc, j, r| step(acc, at + j, r), op, op1)
            }};
        }
        macro_rules! leaf {
            ($at:expr) => {{
                let at = $at;
                if at + b <= n {
                    whole!(at)
                } else {
                    canonical::<V>(n - at, identity, |acc, j, r| step(acc, at + j, r), op, op1)
                }
            }};
        }
        if n <= 4 * b {
            // Up to four blocks: the tree written out, the leaves in registers (the
            // stack of `Pairwise` costs a 1Ki sum a fifth of its time).
            let (l0, l1) = (leaf!(0), leaf!(b));
            return match n.div_ceil(b) {
                2 => l0 + l1,
                3 => (l0 + l1) + leaf!(2 * b),
                _ => (l0 + l1) + (leaf!(2 * b) + leaf!(3 * b)),
            };
        }
        // Aligned groups of 8 whole blocks, each group's perfect tree written out.
        // Up to `run_max_bytes()`, runs of 8 groups too, each run's tree written out
        // and its sum pushed as one subtree of 64 blocks (`Pairwise`'s docs); past
        // it, and for what is left, groups pushed one by one; the last fewer than
        // 8 blocks make their own tree, added on the right (`finish_with_tail`).
        // Each way gives the tree of pushing every block. Why two schedules: the
        // push mispredicts about every other time (its loop count depends on the
        // count of pushes), and squashes the loads in flight. Once per block it
        // cost a quarter of the time; once per group, 4-9% where the data fits
        // the caches (256Ki-2Mi f64). Yet where it streams from memory or overflows
        // L3, pushing per group ran 5-14% faster than runs of 8 (4Mi-32Mi f64;
        // the cause was not found without performance counters). Measured:
        // `sum_schedule_speed` below.
        let g = 8 * b;
        let ix = fold8_indices::<V>();
        // The sum of the group of 8 blocks at `at`.
        macro_rules! group {
            ($at:expr) => {{
                let at = $at;
                let mut l = [identity; MAX_LANES];
                if V::N >= 8 && V::N * core::mem::size_of::<V::T>() >= 64 {
                    // The 8 blocks' lane folds at once, on vectors (`fold8`), with
                    // 512-bit vectors only: AVX2's `lookup2` (two VPERMPS and a
                    // blend) made an `f32` sum 14-17% slower than the per-block
                    // folds below, from L2 to memory (Zen 3, `sum_schedule_speed`).
                    // A macro, not a closure: see above.
                    macro_rules! vector {
                        ($k:expr) => {{
                            let at = at + $k * b;
                            canonical_vector::<V>(b, identity, |acc, j, r| step(acc, at + j, r), op)
                        }};
                    }
                    let v = [
                        vector!(0),
                        vector!(1),
                        vector!(2),
                        vector!(3),
                        vector!(4),
                        vector!(5),
                        vector!(6),
                        vector!(7),
                    ];
                    fold8(v, &ix, op).store(l.as_mut_ptr());
                } else {
                    for (k, l) in l.iter_mut().enumerate().take(8) {
                        *l = whole!(at + k * b);
                    }
                }
                ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))
            }};
        }
        let mut p = scalar::Pairwise::new(V::T::NEG_ZERO);
        let mut i = 0;
        let runs = n * core::mem::size_of::<V::T>() <= run_max_bytes();
        while runs && i + 8 * g <= n {
            // A loop, not unrolled: one group's code is already a few hundred
            // instructions.
            let mut s = [identity; 8];
            for (k, s) in s.iter_mut().enumerate() {
                *s = group!(i + k * g);
            }
            p.push(((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])));
            i += 8 * g;
        }
        if i == n {
            return p.finish();
        }
        let mut groups = scalar::Pairwise::new(V::T::NEG_ZERO);
        while i + g <= n {
            groups.push(group!(i));
            i += g;
        }
        if i == n {
            return p.finish_with_tail(groups.finish());
        }
        let mut blocks = scalar::Pairwise::new(V::T::NEG_ZERO);
        while i < n {
            blocks.push(leaf!(i));
            i += b;
        }
        // With no group pushed, `finish_with_tail` is the tail itself.
        p.finish_with_tail(groups.finish_with_tail(blocks.finish()))
    }
}

/// The largest operand (bytes) that [`blocked`] adds in runs of 8 groups (its
/// comments say why): half the L3. On Zen 5 (32 MiB L3) runs won up to 16 MiB and
/// lost from 32 MiB; half the L3 is a guess for other caches, measured on none.
#[inline]
fn run_max_bytes() -> usize {
    crate::cache_info().l3 / 2
}

/// [`scalar::sum`] (`PROD` false) or [`scalar::prod`], bit for bit: the sum in
/// [`blocked`] order, the product as one block.
///
/// # Safety
/// `V`'s ISA features are present (the caller runs inside a `#[target_feature]`
/// function of `V`'s tier). Any length of `a` is fine.
#[inline(always)]
pub(crate) unsafe fn sum<V: FloatVector, const PROD: bool>(a: &[V::T]) -> V::T {
    // SAFETY: `V`'s features are present; `canonical` and `blocked` step at `at`
    // with `at + r <= a.len()`, so `load_upto` reads inside `a`.
    unsafe {
        let identity = if PROD { V::T::ONE } else { V::T::NEG_ZERO };
        let op = |x, y| if PROD { V::mul(x, y) } else { V::add(x, y) };
        let op1 = |x, y| if PROD { x * y } else { x + y };
        let p = a.as_ptr();
        let step = |acc, at: usize, r| op(acc, load_upto::<V>(p.add(at), r, identity));
        let r = if PROD {
            canonical::<V>(a.len(), identity, step, op, op1)
        } else {
            blocked::<V>(a.len(), identity, step, op, op1)
        };
        scalar::first_nan(r, a)
    }
}

/// [`sum`] of at most one block ([`scalar::block_len`] elements): the canonical
/// reduction alone, which is all [`blocked`] does there, in a function of its
/// own. In `sum`'s, the frame of the pairwise stack cost a one-block sum a third
/// of its time (the two-to-four-block tree too, measured: no gain with it).
///
/// # Safety
/// `V`'s ISA features are present; `a.len() <= scalar::block_len::<V::T>()`.
#[inline(always)]
pub(crate) unsafe fn sum_block<V: FloatVector>(a: &[V::T]) -> V::T {
    // SAFETY: `V`'s features are present; `canonical` steps at `at` with
    // `at + r <= a.len()`, so `load_upto` reads inside `a`.
    unsafe {
        debug_assert!(a.len() <= scalar::block_len::<V::T>());
        let p = a.as_ptr();
        let r = canonical::<V>(
            a.len(),
            V::T::NEG_ZERO,
            |acc, at, r| V::add(acc, load_upto::<V>(p.add(at), r, V::T::NEG_ZERO)),
            |x, y| V::add(x, y),
            |x, y| x + y,
        );
        scalar::first_nan(r, a)
    }
}

/// [`scalar::dot`] bit for bit: [`blocked`] order, each product rounded and then
/// added (the missing lanes of the last vector are `0 * -0 = -0`, which leaves an
/// accumulator lane as it was).
///
/// # Safety
/// `V`'s ISA features are present. `a` and `b` of different lengths panic, not UB.
#[inline(always)]
pub(crate) unsafe fn dot<V: FloatVector>(a: &[V::T], b: &[V::T]) -> V::T {
    // SAFETY: as in `sum`, for `a` and `b` of the same length.
    unsafe {
        assert!(a.len() == b.len(), "kernel length mismatch");
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        blocked::<V>(
            a.len(),
            V::T::NEG_ZERO,
            |acc, at, r| {
                let x = load_upto::<V>(pa.add(at), r, V::T::ZERO);
                let y = load_upto::<V>(pb.add(at), r, V::T::NEG_ZERO);
                V::add(acc, V::mul(x, y))
            },
            |x, y| V::add(x, y),
            |x, y| x + y,
        )
    }
}

/// Vectors in flight in a reduction: compare/max latency 3-4 cycles on two pipes.
const U: usize = 8;

/// The largest (`MAX`) or smallest element of a NaN-free slice, the zero's sign not
/// settled, or `Err(i)` with `i` the index of the first NaN. Needs `a.len() >= U * N`.
///
/// # Safety
/// `V`'s ISA features are present and `a.len() >= U * V::N` (the loads of the
/// last unrolled step are not bounds-checked).
#[inline(always)]
unsafe fn extreme<V: FloatVector, const MAX: bool>(a: &[V::T]) -> Result<V::T, usize> {
    // SAFETY: `V`'s features are present; every load is at `at + k * N` for `k < U`
    // with `at <= n - U * N`, inside `a`, and `lanes` holds `MAX_LANES >= N` elements.
    unsafe {
        let (n, p, block) = (a.len(), a.as_ptr(), U * V::N);
        debug_assert!(n >= block);
        // Starting from the first vector is safe even when it holds a NaN: the first
        // block reloads it into `acc[0]`, and `max(NaN, NaN)` is NaN.
        let mut acc = [V::load(p); U];
        let mut i = 0;
        loop {
            // The last block overlaps the one before it instead of leaving a tail: seeing
            // an element twice changes neither the extreme nor where the first NaN is (the
            // elements before `i` are known to be NaN-free).
            let at = i.min(n - block);
            // A NaN element turns its accumulator lane NaN (the `max` contract), so the
            // check looks at the U accumulators, not the U loaded vectors: the loads die
            // at once and nothing spills. It must run every block, as the next update
            // would replace a NaN lane.
            for (k, acc) in acc.iter_mut().enumerate() {
                let x = V::load(p.add(at + k * V::N));
                *acc = if MAX {
                    V::max(*acc, x)
                } else {
                    V::min(*acc, x)
                };
            }
            let mut nan = V::unord(acc[0], acc[1]);
            for k in 1..U / 2 {
                nan = V::mask_or(nan, V::unord(acc[2 * k], acc[2 * k + 1]));
            }
            if V::any(nan) {
                return Err(at + first_nan(&a[at..at + block]));
            }
            i += block;
            if i >= n {
                break;
            }
        }
        let mut width = U;
        while width > 1 {
            width /= 2;
            for k in 0..width {
                acc[k] = if MAX {
                    V::max(acc[k], acc[k + width])
                } else {
                    V::min(acc[k], acc[k + width])
                };
            }
        }
        let mut lanes = [V::T::ZERO; MAX_LANES];
        debug_assert!(V::N <= lanes.len());
        acc[0].store(lanes.as_mut_ptr());
        let mut m = lanes[0];
        for &x in &lanes[1..V::N] {
            if (MAX && x > m) || (!MAX && x < m) {
                m = x;
            }
        }
        Ok(m)
    }
}

/// The index of the first NaN of a block known to hold one. Kept out of line: when
/// inlined, the compiler reuses the block's loaded vectors for this search instead
/// of reloading, which keeps them alive through the hot loop and spills registers.
#[cold]
#[inline(never)]
fn first_nan<T: Arith>(block: &[T]) -> usize {
    block
        .iter()
        .position(|x| x.is_nan())
        .expect("a lane reported NaN")
}

/// The zero that is the extreme of a NaN-free slice whose extreme compares equal to
/// zero: for `MAX`, `+0` if some element has its sign bit clear (every element is
/// `<= 0`, so that element is `+0`), else `-0`; for the minimum, mirrored.
///
/// # Safety
/// `a.len() >= N`.
#[inline(always)]
unsafe fn settle_zero<V: FloatVector, const MAX: bool>(a: &[V::T]) -> V::T {
    // SAFETY: `V`'s features are present; `n >= N` (the caller's contract), so every
    // load, at `min(i, n - N)`, is inside `a`.
    unsafe {
        let (n, p) = (a.len(), a.as_ptr());
        let mut all = V::load(p);
        let mut i = 0;
        while i < n {
            let x = V::load(p.add(i.min(n - V::N)));
            all = if MAX {
                V::and_bits(all, x)
            } else {
                V::or_bits(all, x)
            };
            i += V::N;
        }
        let full = (1u32 << V::N) - 1;
        let negative = if MAX {
            V::signs(all) == full
        } else {
            V::signs(all) != 0
        };
        if negative {
            V::T::NEG_ZERO
        } else {
            V::T::ZERO
        }
    }
}

/// [`scalar::max`] (`MAX`) or [`scalar::min`].
///
/// # Safety
/// `V`'s ISA features are present. Any length of `a` is fine (short slices go to
/// the scalar oracle).
#[inline(always)]
pub(crate) unsafe fn max<V: FloatVector, const MAX: bool>(a: &[V::T]) -> Option<V::T> {
    // SAFETY: `V`'s features are present, and `a.len() >= U * N >= N` as `extreme`
    // and `settle_zero` need.
    unsafe {
        if a.len() < U * V::N {
            return if MAX { scalar::max(a) } else { scalar::min(a) };
        }
        Some(match extreme::<V, MAX>(a) {
            Err(i) => a[i],
            // Rare: only an extreme equal to zero can have the wrong sign.
            Ok(m) if m == V::T::ZERO => settle_zero::<V, MAX>(a),
            Ok(m) => m,
        })
    }
}

/// Elements per chunk of [`argmax`]: 64 KiB of `f64`, which a core's L2 holds while
/// the chunk is searched a second time.
const ARG_CHUNK: usize = 8192;

/// [`scalar::argmax`] (`MAX`) or [`scalar::argmin`], chunk by chunk of
/// [`ARG_CHUNK`] elements in order: each chunk's extreme (or its first NaN, which is
/// the answer), and only when it beats the best so far (strictly: an equal one later
/// is not the first), a second pass over the chunk, still in cache, for its first
/// index. The array is read from memory once, where a whole-array pass for the
/// extreme and a second up to its first index read it up to twice
/// (docs/design.md#reductions-and-comparisons).
///
/// # Safety
/// `V`'s ISA features are present. Any length of `a` is fine.
#[inline(always)]
pub(crate) unsafe fn argmax<V: FloatVector, const MAX: bool>(a: &[V::T]) -> Option<usize> {
    // SAFETY: `V`'s features are present; every chunk holds at least `U * N >= 4 * N`
    // elements (the last one takes the tail when that would be shorter than a block), as
    // `extreme` and `position` need.
    unsafe {
        if a.len() < U * V::N {
            return if MAX {
                scalar::argmax(a)
            } else {
                scalar::argmin(a)
            };
        }
        let mut best: Option<(V::T, usize)> = None;
        let mut from = 0;
        while from < a.len() {
            // The last chunk takes the tail when it would be shorter than a block.
            let to = if a.len() - from < ARG_CHUNK + U * V::N {
                a.len()
            } else {
                from + ARG_CHUNK
            };
            let chunk = &a[from..to];
            let m = match extreme::<V, MAX>(chunk) {
                Err(i) => return Some(from + i),
                Ok(m) => m,
            };
            let beats = match best {
                None => true,
                Some((b, _)) => (MAX && m > b) || (!MAX && m < b),
            };
            if beats {
                if to == a.len() && size_of_val(chunk) >= AHEAD_FROM {
                    ask_after(a);
                }
                best = Some((m, from + position::<V>(chunk, m)));
            }
            from = to;
        }
        best.map(|(_, i)| i)
    }
}

/// Slices of at least this many bytes ask for the lines after them before their
/// last position pass (see [`ask_after`]).
const AHEAD_FROM: usize = 4096;

/// Lines [`ask_after`] asks for (of [`crate::mem::ALIGN`], a cache line, each): 2 KiB.
const AHEAD_LINES: usize = 32;

/// Asks for the [`AHEAD_LINES`] cache lines after `a` (hints only; they may lie
/// outside any allocation). The position pass that ends [`argmax`] reads from
/// cache and sends no request to memory, so a caller going row by row through a
/// matrix (`argmax_axis(1)`) left the memory stream idle once per row
/// (docs/design.md#reductions-and-comparisons).
#[inline(always)]
fn ask_after<T>(a: &[T]) {
    let end = a.as_ptr_range().end.cast::<u8>();
    for l in 0..AHEAD_LINES {
        crate::mem::prefetch::<true>(end.wrapping_add(l * crate::mem::ALIGN));
    }
}

/// The index of the first element of `a` equal to `m` (`a.len() >= 4 * V::N`), which
/// is there: `m` is `a`'s extreme.
///
/// # Safety
/// `V`'s ISA features are present and `a.len() >= 4 * V::N` (the unrolled loads are
/// not bounds-checked). An `m` not in `a` is no fault: the answer is then 0.
#[inline(always)]
unsafe fn position<V: FloatVector>(a: &[V::T], m: V::T) -> usize {
    // SAFETY: `V`'s features are present; every load is at `at + k * N` for `k < B`
    // with `at <= n - B * N` (`n >= B * N`, the caller's contract), inside `a`.
    unsafe {
        const B: usize = 4;
        let (n, p, block, mv) = (a.len(), a.as_ptr(), B * V::N, V::splat(m));
        let mut i = 0;
        while i < n {
            let at = i.min(n - block);
            let mut hit = V::eq(V::load(p.add(at)), mv);
            for k in 1..B {
                hit = V::mask_or(hit, V::eq(V::load(p.add(at + k * V::N)), mv));
            }
            if V::any(hit) {
                if let Some(j) = a[at..at + block].iter().position(|&x| x == m) {
                    return at + j;
                }
            }
            i += block;
        }
        // Not reached: every vector max or min returns one of its operands.
        a.iter().position(|&x| x == m).unwrap_or(0)
    }
}

/// Inputs of at least this many bytes have their head handled apart so the main
/// loop's loads fall on vector boundaries; below it the few scalar steps would cost
/// more than the split loads they save.
const ALIGN_FROM: usize = 512;

/// [`scalar::count_byte`]: eight byte counters per lane, each of which counts up by
/// one per step (`0 - 0xff` is `+1`) and is emptied before it can wrap. Eight, not
/// four, vectors a step: from memory it comes nearer the read rate
/// (docs/design.md#reductions-and-comparisons).
///
/// # Safety
/// `V`'s ISA features are present. Any length of `hay` is fine.
#[inline(always)]
pub(crate) unsafe fn count_byte<V: ByteVector>(hay: &[u8], needle: u8) -> usize {
    // SAFETY: `V`'s features are present; the loads are at `i + k * N` while `i + B
    // * N <= n`, then at `i` while `i + N <= n`: inside `hay`.
    unsafe {
        const B: usize = 8;
        let (n, p, nv) = (hay.len(), hay.as_ptr(), V::splat(needle));
        let minus_one = core::hint::black_box(V::splat(0xff));
        let step = B * V::N;
        // Count up to the first vector boundary one byte at a time, so that no load of
        // the loop straddles two cache lines (a second access each, in L1).
        let head = if n >= ALIGN_FROM {
            p.align_offset(V::N).min(n)
        } else {
            0
        };
        let (mut i, mut total) = (head, scalar::count_byte(&hay[..head], needle));
        while i + step <= n {
            let mut acc = [V::splat(0); B];
            let mut rounds = 0;
            while rounds < 255 && i + step <= n {
                for (k, acc) in acc.iter_mut().enumerate() {
                    *acc = V::tally(*acc, V::load(p.add(i + k * V::N)), nv, minus_one);
                }
                i += step;
                rounds += 1;
            }
            total += acc.iter().map(|&a| V::sum(a)).sum::<usize>();
        }
        while i + V::N <= n {
            total += V::sum(V::sub(V::splat(0), V::eq(V::load(p.add(i)), nv)));
            i += V::N;
        }
        total + scalar::count_byte(&hay[i..], needle)
    }
}

/// [`scalar::nth_byte`]: count the needles of a block of vectors (at most four per
/// byte lane, so no counter wraps) and skip the block while they do not reach `n`;
/// the block that holds the wanted one is searched byte by byte.
///
/// # Safety
/// `V`'s ISA features are present. Any length of `hay` and any `n` are fine.
#[inline(always)]
pub(crate) unsafe fn nth_byte<V: ByteVector>(
    hay: &[u8],
    needle: u8,
    n: usize,
) -> Result<usize, usize> {
    // SAFETY: `V`'s features are present; the loads are at `i + k * N` while `i + B
    // * N <= len`: inside `hay`.
    unsafe {
        const B: usize = 4;
        let (len, p, nv) = (hay.len(), hay.as_ptr(), V::splat(needle));
        let step = B * V::N;
        // Bytes up to the first vector boundary one at a time (see `count_byte`).
        let head = if len >= ALIGN_FROM {
            p.align_offset(V::N).min(len)
        } else {
            0
        };
        let (mut i, mut left) = match scalar::nth_byte(&hay[..head], needle, n) {
            Ok(j) => return Ok(j),
            Err(c) => (head, n - c),
        };
        while i + step <= len {
            let mut acc = V::sub(V::splat(0), V::eq(V::load(p.add(i)), nv));
            for k in 1..B {
                acc = V::sub(acc, V::eq(V::load(p.add(i + k * V::N)), nv));
            }
            let c = V::sum(acc);
            if c > left {
                if let Ok(j) = scalar::nth_byte(&hay[i..i + step], needle, left) {
                    return Ok(i + j);
                }
            }
            left -= c.min(left);
            i += step;
        }
        match scalar::nth_byte(&hay[i..], needle, left) {
            Ok(j) => Ok(i + j),
            Err(c) => Err(n - left + c),
        }
    }
}

/// [`scalar::first_nonzero_word`]: or a block of vectors, test it, and look inside
/// only the block that is not zero.
///
/// # Safety
/// `V`'s ISA features are present. Any length of `words` is fine.
#[inline(always)]
pub(crate) unsafe fn first_nonzero_word<V: ByteVector>(words: &[u64]) -> Option<usize> {
    // SAFETY: `V`'s features are present; the loads are at word `i + k * per` (`N`
    // bytes, `per` words) while `i + B * per <= n`: inside `words`.
    unsafe {
        const B: usize = 4;
        let (n, p) = (words.len(), words.as_ptr().cast::<u8>());
        let per = V::N / 8;
        let step = B * per;
        // Words up to the first vector boundary one at a time (see `count_byte`).
        let head = if 8 * n >= ALIGN_FROM {
            (p.align_offset(V::N) / 8).min(n)
        } else {
            0
        };
        if let Some(j) = scalar::first_nonzero_word(&words[..head]) {
            return Some(j);
        }
        let mut i = head;
        while i + step <= n {
            let mut x = V::load(p.add(8 * i));
            for k in 1..B {
                x = V::or(x, V::load(p.add(8 * (i + k * per))));
            }
            if !V::is_zero(x) {
                break;
            }
            i += step;
        }
        scalar::first_nonzero_word(&words[i..]).map(|j| i + j)
    }
}

#[cfg(test)]
mod tests {
    //! Every tier this host has against the oracles, on lengths that cross the
    //! hand-written kernels' block sizes and with the special values placed anywhere.
    //! (The integration tests cover edge values at every offset; these cover length.)
    use crate::{byte_table_for, scalar, KernelElement, Tier};

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    fn tiers() -> Vec<Tier> {
        Tier::ALL
            .into_iter()
            .filter(|&t| f64::table_for(t).is_some())
            .collect()
    }

    const LENS: [usize; 17] = [
        0, 1, 15, 16, 31, 32, 33, 63, 64, 65, 200, 511, 512, 513, 1031, 2600, 9000,
    ];

    macro_rules! float_check {
        ($name:ident, $t:ty) => {
            #[test]
            fn $name() {
                let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
                let nan1 = <$t>::from_bits(<$t>::NAN.to_bits() | 3);
                let nan2 = -<$t>::NAN;
                // Under Miri 4 of the 40 cases (each `case % 4`, specials and the
                // signed-zero fill still met) and no length past 2600 (still a whole
                // group of blocks and a tail): all of them take it past half an hour.
                let cases = (0..40).step_by(if cfg!(miri) { 13 } else { 1 });
                let lens = LENS.iter().filter(|&&n| !cfg!(miri) || n <= 2600);
                for &n in lens {
                    for case in cases.clone() {
                        // Small integers, so sums are exact and ties common; then
                        // zeros of both signs, NaNs and infinities at random places.
                        let mut a: Vec<$t> = (0..n).map(|_| (rng.below(9) as $t) - 8.0).collect();
                        let specials = [0.0, -0.0, nan1, nan2, <$t>::INFINITY, -0.0];
                        for _ in 0..(case % 4) {
                            if n > 0 {
                                let i = rng.below(n);
                                a[i] = specials[rng.below(if case < 20 { 2 } else { 6 })];
                            }
                        }
                        if case % 10 == 9 {
                            a.iter_mut()
                                .for_each(|x| *x = if rng.next() & 1 == 0 { 0.0 } else { -0.0 });
                        }
                        let b: Vec<$t> = (0..n).map(|_| (rng.below(5) as $t) - 2.0).collect();
                        for t in tiers() {
                            let k = <$t>::table_for(t).unwrap();
                            let bits = |x: Option<$t>| x.map(|x| x.to_bits());
                            let what = format!("{t} n {n} case {case}");
                            // Which NaN a dot of several returns is LLVM's choice (it
                            // may commute an add), so any NaN answers a NaN there.
                            let same = |x: $t, y: $t| {
                                x.to_bits() == y.to_bits() || x.is_nan() && y.is_nan()
                            };
                            assert_eq!(bits((k.max)(&a)), bits(scalar::max(&a)), "max {what}");
                            assert_eq!(bits((k.min)(&a)), bits(scalar::min(&a)), "min {what}");
                            assert_eq!((k.argmax)(&a), scalar::argmax(&a), "argmax {what}");
                            assert_eq!((k.argmin)(&a), scalar::argmin(&a), "argmin {what}");
                            assert_eq!(
                                (k.sum)(&a).to_bits(),
                                scalar::sum(&a).to_bits(),
                                "sum {what}"
                            );
                            assert_eq!(
                                (k.prod)(&b).to_bits(),
                                scalar::prod(&b).to_bits(),
                                "prod {what}"
                            );
                            assert!(same((k.dot)(&a, &b), scalar::dot(&a, &b)), "dot {what}");
                        }
                    }
                }
            }
        };
    }
    float_check!(hand_written_f64_kernels_match_the_oracles, f64);
    float_check!(hand_written_f32_kernels_match_the_oracles, f32);

    #[test]
    fn canonical_sums_with_rounding_match_across_tiers() {
        let mut rng = Rng(12345);
        for n in [31, 32, 33, 64, 100, 1000] {
            let a: Vec<f64> = (0..n)
                .map(|_| {
                    f64::from_bits(rng.next() >> 2) * if rng.next() & 1 == 0 { 1.0 } else { -1.0 }
                })
                .collect();
            let b: Vec<f32> = a.iter().map(|&x| x as f32).collect();
            for t in tiers() {
                let (k, k32) = (f64::table_for(t).unwrap(), f32::table_for(t).unwrap());
                assert_eq!((k.sum)(&a).to_bits(), scalar::sum(&a).to_bits(), "{t} {n}");
                assert_eq!(
                    (k32.sum)(&b).to_bits(),
                    scalar::sum(&b).to_bits(),
                    "{t} {n}"
                );
                assert_eq!(
                    (k.prod)(&a).to_bits(),
                    scalar::prod(&a).to_bits(),
                    "{t} {n}"
                );
            }
        }
    }

    #[test]
    fn byte_kernels_match_the_oracles() {
        let mut rng = Rng(777);
        // Under Miri, 4 200 still passes 255 bytes per 16-byte lane (the counters'
        // wrap) at a sixteenth of the time (70 000 took 400 s of the lane's 720).
        let long = if cfg!(miri) { 4_200 } else { 70_000 };
        for n in [0, 1, 15, 16, 17, 31, 32, 127, 128, 129, 1000, long] {
            let hay: Vec<u8> = (0..n)
                .map(|_| {
                    if rng.below(7) == 0 {
                        b'\n'
                    } else {
                        rng.next() as u8
                    }
                })
                .collect();
            let mut words = vec![0u64; n / 3];
            for t in Tier::ALL {
                let Some(k) = byte_table_for(t) else { continue };
                for needle in [b'\n', 0, 255] {
                    assert_eq!(
                        (k.count_byte)(&hay, needle),
                        scalar::count_byte(&hay, needle),
                        "{t} {n}"
                    );
                }
                assert_eq!(
                    (k.count_byte)(&vec![7u8; n], 7),
                    n,
                    "{t} {n}: counters must not wrap"
                );
                assert_eq!((k.first_nonzero_word)(&words), None);
                for at in [0, 1, 7, 8, 15, 16, 17]
                    .into_iter()
                    .chain([words.len().saturating_sub(1)])
                {
                    if at < words.len() {
                        words[at] = 1 << (at % 64);
                        assert_eq!((k.first_nonzero_word)(&words), Some(at), "{t} {n} {at}");
                        words[at] = 0;
                    }
                }
            }
        }
    }
}

/// The two schedules of [`blocked`] timed against a sum without blocks (every lane
/// adds its elements in sequence: the code before the pairwise sum) and the read
/// ceiling, interleaved in one process, over operands from L2 to well past L3, for
/// `f64` and `f32` at the host's best x86 tier (AVX-512 or AVX2):
/// `cargo test --release -p ndsimd-kernels --lib sum_schedule_speed -- --ignored
/// --nocapture` (docs/perf.md has the figures).
#[cfg(all(test, target_arch = "x86_64"))]
mod schedule_speed {
    use super::*;
    use crate::vector::avx2::Avx2;
    use crate::vector::avx512::Avx512;
    use crate::vector::Element;
    use crate::{KernelElement, Tier};
    use std::hint::black_box;

    /// The lane-sequential sum of `$t` with `$isa`'s vectors.
    macro_rules! lane_sequential {
        ($name:ident, $t:ty, $isa:ty, $feature:literal) => {
            #[target_feature(enable = $feature)]
            fn $name(a: &[$t]) -> $t {
                type V = <$t as Element>::Vector<$isa>;
                let p = a.as_ptr();
                // SAFETY: the features are enabled here; `canonical` reads inside `a`.
                unsafe {
                    canonical::<V>(
                        a.len(),
                        -0.0,
                        |acc, at, r| V::add(acc, load_upto::<V>(p.add(at), r, -0.0)),
                        |x, y| V::add(x, y),
                        |x, y| x + y,
                    )
                }
            }
        };
    }
    lane_sequential!(
        f64_avx512,
        f64,
        Avx512,
        "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"
    );
    lane_sequential!(
        f32_avx512,
        f32,
        Avx512,
        "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"
    );
    lane_sequential!(f64_avx2, f64, Avx2, "avx2,fma");
    lane_sequential!(f32_avx2, f32, Avx2, "avx2,fma");

    /// Times `T`'s sum at `tier` against `lane` and `read` over operands of 128 KiB
    /// to 256 MiB, each round in a rotated order.
    fn schedules<T: KernelElement + Arith + PartialEq>(
        tier: Tier,
        lane: impl Fn(&[T]) -> T,
        read: impl Fn(&[T]),
        of: impl Fn(usize) -> T,
    ) {
        let k = T::table_for(tier).expect("the tier is available");
        let size = std::mem::size_of::<T>();
        for bytes in [
            128 << 10,
            2 << 20,
            16 << 20,
            32 << 20,
            64 << 20,
            128 << 20,
            256 << 20,
        ] {
            let n = bytes / size;
            // Huge-page backed, as arrays are.
            let mut buf = crate::mem::Aligned::filled(n, of(0));
            for (i, x) in buf.payload_mut().iter_mut().enumerate() {
                *x = of(i);
            }
            let a = buf.payload();
            // The answer before the clock: the oracle's bits.
            assert!((k.sum)(a) == scalar::sum(a), "{tier} n {n}");
            let reps = if bytes > 64 << 20 {
                40
            } else if bytes > 8 << 20 {
                200
            } else {
                3000
            };
            let mut t = [vec![], vec![], vec![]];
            // Each round in a rotated order: at L3's size one pass leaves the cache
            // to the next, so no variant always follows the same one.
            for rep in 0..reps {
                for j in 0..3 {
                    let which = (j + rep) % 3;
                    let s = std::time::Instant::now();
                    match which {
                        0 => _ = black_box((k.sum)(black_box(a))),
                        1 => _ = black_box(lane(black_box(a))),
                        _ => read(black_box(a)),
                    }
                    t[which].push(s.elapsed().as_secs_f64());
                }
            }
            let med = |v: &mut Vec<f64>| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            let (ours, lane, read) = (med(&mut t[0]), med(&mut t[1]), med(&mut t[2]));
            println!(
                "{tier} {} n {n:>9} ({:>4} MiB, {}): sum {:>9.1} us, lane-sequential {:>9.1} us, \
                 read {:>9.1} us; sum / lane-sequential speed {:.3}, of the read {:.3}",
                std::any::type_name::<T>(),
                bytes >> 20,
                if bytes <= run_max_bytes() {
                    "runs of 8 groups"
                } else {
                    "groups"
                },
                ours * 1e6,
                lane * 1e6,
                read * 1e6,
                lane / ours,
                read / ours
            );
        }
    }

    #[test]
    #[ignore]
    fn sum_schedule_speed() {
        type Lanes = (Tier, unsafe fn(&[f64]) -> f64, unsafe fn(&[f32]) -> f32);
        let tiers = crate::available_tiers();
        let (tier, lane64, lane32): Lanes = if tiers.contains(&Tier::Avx512) {
            (Tier::Avx512, f64_avx512, f32_avx512)
        } else if tiers.contains(&Tier::Avx2) {
            (Tier::Avx2, f64_avx2, f32_avx2)
        } else {
            return;
        };
        let c = crate::ceiling::ceilings_for(tier).unwrap();
        let value = |i: usize| (i % 1000) as f64 / 1024.0;
        // SAFETY: `tier` is available, so this host has the features `lane64` enables.
        let sum64 = |a: &[f64]| unsafe { lane64(a) };
        // SAFETY: as above, for `lane32`.
        let sum32 = |a: &[f32]| unsafe { lane32(a) };
        schedules(tier, sum64, |a| _ = black_box((c.read_f64)(a)), value);
        schedules(
            tier,
            sum32,
            |a| _ = black_box((c.read_f32)(a)),
            |i| value(i) as f32,
        );
    }
}
