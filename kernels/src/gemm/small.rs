//! Products too small to repay packing or a fan-out.
//!
//! The register path ([`register`]) takes products whose `m`, `n` and `k` are all at
//! most [`SMALL_SIDE`], at every tier: the direct path's register blocks
//! (`direct.rs`, `R` rows of C by `W` vectors, A broadcast, B's rows along the lanes)
//! on operands of any strides. Where B's rows (in the form the driver picked) are not
//! contiguous or not a whole number of vectors, they are first copied into a
//! zero-padded buffer on the stack; where C's are not, the blocks write a stack
//! buffer that is then copied out (`t + beta * c` there, as the blocks write it).
//! The tiniest products whose rows are not whole vectors run element by element
//! instead ([`scalar`]). Each element is the direct and packed paths' sum (`acc = a * b + acc` over k in
//! order from `+0`, fused on tiers with FMA, then `alpha * acc`, then `+ beta * c`
//! unless `beta == 0`), so the path taken never changes a bit; no scratch, no
//! blocking beyond k's blocks, no thread.
//!
//! Contiguous row-major products of at most [`TINY_SIDE`] a side run [`rows`]
//! instead: one kernel per `(m, n)`, k at run time, with the same sum per element.
//!
//! [`gemm`] is the portable loop (multiply then add, never fused) for the rest of the
//! products of at most `path::SMALL_MAX` multiply-adds whose layout the direct path
//! cannot take (a long side with strided operands).

use super::mat::{Raw, RawMut};
use crate::scalar::Arith;
use crate::vector::FloatVector;
use core::mem::MaybeUninit;

/// The register path's limit on each of `m`, `n` and `k` (its stack buffers hold
/// `SMALL_SIDE²` elements, `n` rounded up to whole vectors staying within it).
pub(crate) const SMALL_SIDE: usize = 32;

/// The tiny entry's limit on each of `m`, `n` and `k` (`super::tiny`): the register
/// path with buffers of [`TINY_BUF`] elements, so that its stack frame is a few
/// lines rather than 16 KiB of probed pages.
pub(crate) const TINY_SIDE: usize = 8;

/// [`TINY_SIDE`] rows of `TINY_SIDE` rounded up to the widest vector (16 lanes).
pub(crate) const TINY_BUF: usize = TINY_SIDE * 16;

/// A tier's register path: `(m, n, k, kc, a, b, c, alpha, beta)`, that is
/// `C = alpha * A * B + beta * C` for an `m x k` A, `k x n` B and `m x n` C, each
/// given as `(pointer, row stride, column stride)`, k summed in blocks of `kc`
/// steps (see [`register`]).
///
/// # Safety
/// The CPU has the kernel's tier; `0 < m, n, k <= SMALL_SIDE`, `kc > 0`; every
/// element of A and B is valid for reads, every element of C for writes (and reads
/// unless `beta == 0`), distinct elements of C distinct and not overlapping A or B.
pub type SmallFn<T> = unsafe fn(
    dims: (usize, usize, usize, usize),
    a: (*const T, isize, isize),
    b: (*const T, isize, isize),
    c: (*mut T, isize, isize),
    alpha: T,
    beta: T,
);

/// A tier's kernel for one shape `M x N` of row-major contiguous tiny products:
/// `(k, a, b, c, alpha, beta)`, that is `C = alpha * A * B + beta * C` for an
/// `M x k` A with rows `k` apart, a `k x N` B and an `M x N` C with rows `N` apart,
/// each element unit-strided (see [`rows`]). The table holds one per `M` and `N`
/// in `1..=TINY_SIDE`.
///
/// # Safety
/// The CPU has the kernel's tier; `0 < k <= TINY_SIDE`; `M * k` elements at `a`
/// and `k * N` at `b` valid for reads, `M * N` at `c` for writes (and reads unless
/// `beta == 0`), C not overlapping A or B.
pub type RowsFn<T> = unsafe fn(k: usize, a: *const T, b: *const T, c: *mut T, alpha: T, beta: T);

/// The tiny entry's kernel for contiguous row-major operands, `M` rows and `N`
/// columns known at compile time: all of C in `M x N` accumulators (the compiler
/// turns each row into the tier's vectors, the rows into independent chains), no
/// stride arithmetic, no buffer, no choice of form, so the call is a few dozen
/// instructions at 2³ (nano-gemm's plan, one kernel per shape). Each element is
/// [`register`]'s sum: `acc = a * b + acc` over k in order from `+0`, fused when
/// `FMA` (the tier's vectors fuse), then `alpha * acc`, then `+ beta * c` unless
/// `beta == 0` (C not read then).
///
/// # Safety
/// As [`RowsFn`], inside a function with the tier's features.
#[inline(always)]
pub(crate) unsafe fn rows<T: Arith, const M: usize, const N: usize, const FMA: bool>(
    k: usize,
    a: *const T,
    b: *const T,
    c: *mut T,
    alpha: T,
    beta: T,
) {
    let mut acc = [[T::ZERO; N]; M];
    for p in 0..k {
        // SAFETY: row `p < k` of B (`N` elements), as the caller allows.
        let bp = unsafe { b.add(p * N) };
        for (i, acc) in acc.iter_mut().enumerate() {
            // SAFETY: `(i, p)` of A (`i < M`, `p < k`), as the caller allows.
            let x = unsafe { *a.add(i * k + p) };
            for (j, acc) in acc.iter_mut().enumerate() {
                // SAFETY: `j < N`, in row `p` of B.
                let y = unsafe { *bp.add(j) };
                *acc = if FMA {
                    x.mul_add(y, *acc)
                } else {
                    x * y + *acc
                };
            }
        }
    }
    let plain = beta == T::ZERO;
    for (i, acc) in acc.iter().enumerate() {
        for (j, &acc) in acc.iter().enumerate() {
            let t = acc * alpha;
            // SAFETY: `(i, j)` of C, read only when `beta != 0`.
            unsafe {
                let out = c.add(i * N + j);
                *out = if plain { t } else { t + beta * *out };
            }
        }
    }
}

/// The register path's template (see the module doc), with the direct path's `R x
/// W` blocks of vector `V`, for sides of at most `SIDE` ([`SMALL_SIDE`] or
/// [`TINY_SIDE`]) through stack buffers of `BUF` elements.
///
/// # Safety
/// As [`SmallFn`] with `SIDE` in place of `SMALL_SIDE`, inside a function with
/// `V`'s features; `R <= 8`.
#[inline(always)]
pub(crate) unsafe fn register<
    V: FloatVector,
    const R: usize,
    const W: usize,
    const SIDE: usize,
    const BUF: usize,
>(
    (m, n, k, kc): (usize, usize, usize, usize),
    (a, ars, acs): (*const V::T, isize, isize),
    (b, brs, bcs): (*const V::T, isize, isize),
    (c, crs, ccs): (*mut V::T, isize, isize),
    alpha: V::T,
    beta: V::T,
) {
    // Every row of B or C, `n` rounded up to whole vectors, fits the buffers.
    const { assert!(BUF >= SIDE * SIDE.next_multiple_of(V::N)) };
    debug_assert!(m <= SIDE && n <= SIDE && k <= SIDE);
    let zero = <V::T as Arith>::ZERO;
    let whole = n.is_multiple_of(V::N);
    if !whole && m * n * k <= SCALAR_MAX {
        // SAFETY: the caller's contract, passed on.
        return unsafe {
            scalar::<V>(
                (m, n, k, kc),
                (a, ars, acs),
                (b, brs, bcs),
                (c, crs, ccs),
                alpha,
                beta,
            )
        };
    }
    // B's rows are read as whole vectors: in place when they are, else from a copy
    // with `ld` elements a row, zeros past `n`.
    let ld = n.next_multiple_of(V::N);
    let mut bbuf = [MaybeUninit::<V::T>::uninit(); BUF];
    let (b, brs) = if whole && (bcs == 1 || n == 1) {
        (b, brs)
    } else {
        let to = bbuf.as_mut_ptr().cast::<V::T>();
        for p in 0..k {
            // SAFETY: `p < k`, `j < n` are elements of B (the caller's promise);
            // `p * ld + j < k * ld <= BUF` lies in the buffer.
            unsafe {
                let from = b.offset(p as isize * brs);
                let row = to.add(p * ld);
                for j in 0..n {
                    *row.add(j) = *from.offset(j as isize * bcs);
                }
                for j in n..ld {
                    *row.add(j) = zero;
                }
            }
        }
        (to.cast_const(), ld as isize)
    };
    let beta_opt = if beta == zero { None } else { Some(beta) };
    if whole && (ccs == 1 || n == 1) {
        // SAFETY: B's rows hold `n` contiguous elements, a whole number of vectors
        // (in place or the buffer above), as C's rows do; the rest is the caller's.
        unsafe {
            blocks::<V, R, W>(
                (m, n / V::N, k, kc),
                (a, ars, acs),
                (b, brs),
                (c, crs),
                alpha,
                beta_opt,
            )
        };
        return;
    }
    // C through a buffer: the blocks write `alpha * acc` there (C not read), then
    // each element goes out as `t + beta * c`, as the blocks would write it.
    let mut cbuf = [MaybeUninit::<V::T>::uninit(); BUF];
    let to = cbuf.as_mut_ptr().cast::<V::T>();
    // SAFETY: the buffer holds `m * ld <= BUF` elements, rows `ld` apart, all
    // written (`beta` None) before the copy below reads them; B as above.
    unsafe {
        blocks::<V, R, W>(
            (m, ld / V::N, k, kc),
            (a, ars, acs),
            (b, brs),
            (to, ld as isize),
            alpha,
            None,
        )
    };
    for i in 0..m {
        for j in 0..n {
            // SAFETY: `(i, j)` is an element of C (the caller's promise) and
            // `i * ld + j` one of the buffer's, written above.
            unsafe {
                let t = *to.add(i * ld + j);
                let out = c.offset(i as isize * crs + j as isize * ccs);
                *out = match beta_opt {
                    None => t,
                    Some(beta) => t + beta * *out,
                };
            }
        }
    }
}

/// Products of at most this many multiply-adds whose rows are not whole vectors
/// run one element at a time ([`scalar`]): below it, padding B's and C's rows to
/// whole vectors cost more than the lanes it fills (2³ f64: about twice as fast).
const SCALAR_MAX: usize = 256;

/// Each element of C alone, with the lanes' arithmetic (`acc = a * b + acc` fused
/// where `V` fuses, then `alpha * acc`, then `+ beta * c` unless `beta == 0`), k
/// in its blocks as the vector blocks sum it.
///
/// # Safety
/// As [`register`].
#[inline(always)]
#[allow(clippy::type_complexity)]
unsafe fn scalar<V: FloatVector>(
    (m, n, k, kc): (usize, usize, usize, usize),
    (a, ars, acs): (*const V::T, isize, isize),
    (b, brs, bcs): (*const V::T, isize, isize),
    (c, crs, ccs): (*mut V::T, isize, isize),
    alpha: V::T,
    beta: V::T,
) {
    let zero = <V::T as Arith>::ZERO;
    let madd = |x: V::T, y: V::T, acc: V::T| {
        if V::FMA {
            x.mul_add(y, acc)
        } else {
            x * y + acc
        }
    };
    // One block of k (every product of the tiny entry): one write per element, the
    // beta test made once.
    if kc >= k {
        let plain = beta == zero;
        for i in 0..m {
            let ai = a.wrapping_offset(i as isize * ars);
            for j in 0..n {
                let bj = b.wrapping_offset(j as isize * bcs);
                let mut acc = zero;
                for p in 0..k {
                    // SAFETY: `(i, p)` of A and `(p, j)` of B, as the caller allows.
                    unsafe {
                        acc = madd(
                            *ai.offset(p as isize * acs),
                            *bj.offset(p as isize * brs),
                            acc,
                        )
                    };
                }
                let t = acc * alpha;
                let out = c.wrapping_offset(i as isize * crs + j as isize * ccs);
                // SAFETY: `(i, j)` of C, read only when `beta != 0`.
                unsafe { *out = if plain { t } else { t + beta * *out } };
            }
        }
        return;
    }
    for i in 0..m {
        let ai = a.wrapping_offset(i as isize * ars);
        for j in 0..n {
            let bj = b.wrapping_offset(j as isize * bcs);
            let out = c.wrapping_offset(i as isize * crs + j as isize * ccs);
            let mut be = beta;
            let mut pc = 0;
            while pc < k {
                let steps = kc.min(k - pc);
                let mut acc = zero;
                for p in pc..pc + steps {
                    // SAFETY: `(i, p)` of A and `(p, j)` of B, as the caller allows.
                    unsafe {
                        acc = madd(
                            *ai.offset(p as isize * acs),
                            *bj.offset(p as isize * brs),
                            acc,
                        )
                    };
                }
                let t = acc * alpha;
                // SAFETY: `(i, j)` of C, read only when `be != 0`.
                unsafe { *out = if be == zero { t } else { t + be * *out } };
                be = <V::T as Arith>::ONE;
                pc += steps;
            }
        }
    }
}

/// Every block of C: strips of at most `W` vectors of columns (`vecs` vectors in
/// all), each cut into blocks of rows as even as they go, at most 8 rows and `R * W`
/// accumulators a block, so that a short k (a short chain of dependent multiply-adds
/// per accumulator) still keeps enough accumulators in flight.
///
/// # Safety
/// As [`register`], with B's and C's rows `vecs` whole contiguous vectors long;
/// `W <= 4`.
#[inline(always)]
#[allow(clippy::type_complexity)]
unsafe fn blocks<V: FloatVector, const R: usize, const W: usize>(
    (m, vecs, k, kc): (usize, usize, usize, usize),
    a: (*const V::T, isize, isize),
    b: (*const V::T, isize),
    c: (*mut V::T, isize),
    alpha: V::T,
    beta: Option<V::T>,
) {
    const { assert!(W >= 1 && W <= 4) };
    let mut j = 0;
    while j < vecs {
        let w = W.min(vecs - j);
        let at = j * V::N;
        let (b, c) = ((b.0.wrapping_add(at), b.1), (c.0.wrapping_add(at), c.1));
        // SAFETY: vectors `j .. j + w` of B's and C's rows, inside them.
        unsafe {
            match w {
                1 => strip::<V, 1>((m, (R * W).clamp(1, 8), k, kc), a, b, c, alpha, beta),
                2 => strip::<V, 2>((m, (R * W / 2).clamp(1, 8), k, kc), a, b, c, alpha, beta),
                3 => strip::<V, 3>((m, (R * W / 3).clamp(1, 8), k, kc), a, b, c, alpha, beta),
                _ => strip::<V, 4>((m, (R * W / 4).clamp(1, 8), k, kc), a, b, c, alpha, beta),
            }
        }
        j += w;
    }
}

/// One strip of `S` vectors of columns through every row, in blocks of at most
/// `most` rows as even as they go (13 rows by 8: 7 and 6).
///
/// # Safety
/// As [`blocks`] for these columns; `1 <= most <= 8`.
#[inline(always)]
#[allow(clippy::type_complexity)]
unsafe fn strip<V: FloatVector, const S: usize>(
    (m, most, k, kc): (usize, usize, usize, usize),
    (a, ars, acs): (*const V::T, isize, isize),
    b: (*const V::T, isize),
    (c, crs): (*mut V::T, isize),
    alpha: V::T,
    beta: Option<V::T>,
) {
    let count = m.div_ceil(most);
    let mut i = 0;
    for q in 0..count {
        let h = (m - i).div_ceil(count - q);
        let (ai, ci) = (
            (a.wrapping_offset(i as isize * ars), acs),
            (c.wrapping_offset(i as isize * crs), crs),
        );
        let g = (k, kc, ars, alpha, beta);
        // SAFETY: rows `i .. i + h` (`h <= most <= 8`), inside the `m` rows.
        unsafe {
            match h {
                1 => block::<V, 1, S>(g, ai, b, ci),
                2 => block::<V, 2, S>(g, ai, b, ci),
                3 => block::<V, 3, S>(g, ai, b, ci),
                4 => block::<V, 4, S>(g, ai, b, ci),
                5 => block::<V, 5, S>(g, ai, b, ci),
                6 => block::<V, 6, S>(g, ai, b, ci),
                7 => block::<V, 7, S>(g, ai, b, ci),
                _ => block::<V, 8, S>(g, ai, b, ci),
            }
        }
        i += h;
    }
}

/// `H x S` vectors of C: per k-block of `kc` steps, the sums from `+0` over its
/// steps in order (`acc = a * b + acc`), then `t = alpha * acc` written as `t`
/// (`beta` None: C not read) or `t + beta * c`, the later k-blocks adding with
/// beta 1, as the direct and packed paths write.
///
/// # Safety
/// As [`strip`] for these `H` rows (A's rows `ars` apart, its steps `acs`) and `S`
/// vectors.
#[inline(always)]
#[allow(clippy::type_complexity)]
unsafe fn block<V: FloatVector, const H: usize, const S: usize>(
    (k, kc, ars, alpha, beta): (usize, usize, isize, V::T, Option<V::T>),
    (a, acs): (*const V::T, isize),
    (b, brs): (*const V::T, isize),
    (c, crs): (*mut V::T, isize),
) {
    let mut beta = beta;
    let mut pc = 0;
    while pc < k {
        let steps = kc.min(k - pc);
        // SAFETY: `V`'s features are present (the caller's contract).
        let mut acc = [[unsafe { V::zero() }; S]; H];
        for p in pc..pc + steps {
            let bp = b.wrapping_offset(p as isize * brs);
            let ap = a.wrapping_offset(p as isize * acs);
            // SAFETY: step `p < k` of rows `r < H` of A and `S` whole vectors of
            // B's row `p`, as the caller allows.
            unsafe {
                let mut bv = [V::zero(); S];
                for (v, x) in bv.iter_mut().enumerate() {
                    *x = V::load(bp.add(v * V::N));
                }
                for (r, acc) in acc.iter_mut().enumerate() {
                    let ar = V::splat(*ap.offset(r as isize * ars));
                    for (acc, &bv) in acc.iter_mut().zip(&bv) {
                        *acc = V::madd(ar, bv, *acc);
                    }
                }
            }
        }
        // SAFETY: inside a function with `V`'s features; `H x S` whole vectors of
        // C's rows, read only when `beta` is `Some`.
        unsafe {
            let al = V::splat(alpha);
            for (r, acc) in acc.iter().enumerate() {
                let cr = c.wrapping_offset(r as isize * crs);
                for (v, &ab) in acc.iter().enumerate() {
                    let p = cr.add(v * V::N);
                    let t = V::mul(ab, al);
                    let t = match beta {
                        None => t,
                        Some(be) => V::add(t, V::mul(V::splat(be), V::load(p))),
                    };
                    t.store(p);
                }
            }
        }
        beta = Some(<V::T as Arith>::ONE);
        pc += steps;
    }
}

/// `C = alpha * A * B + beta * C` for an `m x k` A and `k x n` B, `k > 0`, as a
/// plain loop; `C` is not read when `beta == 0`.
///
/// # Safety
/// `a.at(i, p)`, `b.at(p, j)` are valid for reads and `c.at(i, j)` for reads and
/// writes for every `i < m`, `p < k`, `j < n`, with distinct `(i, j)` distinct.
pub(crate) unsafe fn gemm<T: Arith>(
    (m, n, k): (usize, usize, usize),
    alpha: T,
    a: Raw<T>,
    b: Raw<T>,
    beta: T,
    c: RawMut<T>,
) {
    for j in 0..n {
        for i in 0..m {
            let mut ab = T::ZERO;
            // SAFETY: `i < m`, `p < k`, `j < n`, as the caller allows.
            unsafe {
                for p in 0..k {
                    ab = ab + *a.at(i, p) * *b.at(p, j);
                }
                let t = ab * alpha;
                let out = c.at(i, j);
                *out = if beta == T::ZERO { t } else { t + beta * *out };
            }
        }
    }
}
