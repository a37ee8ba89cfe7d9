//! Which of the six paths a product takes, and with what parameters: the register
//! path for tiny products (every side at most `small::SMALL_SIDE`), a plain loop for
//! other small ones the direct path cannot take, the direct path (no packing) for small or narrow ones, and the
//! packed loop nest in its narrow or blocked form (the direct path's default reach
//! is `direct::DIRECT_MAX_BYTES`, which a tier's kernel table may raise). Every threshold is where the
//! path was measured to win: docs/design.md#which-path.

use super::block::{self, Blocking, NEAR_L3_MAX};
use super::kernel::LINE;
use super::mat::{Raw, RawMut};
use super::small::SMALL_SIDE;
use super::table::Kernel;
use super::{GemmElement, Tuning};
use crate::pool;

/// Products of at most this many multiply-adds, a side over `SMALL_SIDE` and a
/// layout the direct path cannot take run [`super::small`]'s loop: at 8³ it beat
/// packing 1.6x, at 12³ packing won (docs/design.md#which-path).
pub(crate) const SMALL_MAX: usize = 1024;

/// Products of fewer multiply-adds run on the calling thread only: with the direct
/// path's strips outer, two threads win from 48³ (docs/design.md#which-path).
pub(crate) const PARALLEL_MIN: usize = 48 * 48 * 48;

/// With two register blocks of columns, the direct path takes C of at most this many
/// register blocks of rows: beyond, packing pays (docs/design.md#which-path).
pub(crate) const DIRECT_NARROW_ROWS: usize = 32;

/// The direct path runs k's blocks inside each register block of C when B's strip
/// through the whole of k takes at most `L2 / DIRECT_WHOLE_K` bytes; a larger strip
/// would be read from memory once per block of rows (docs/design.md#the-direct-path).
pub(crate) const DIRECT_WHOLE_K: usize = 2;

/// On one thread the direct path copies B to line-aligned rows when they are not and
/// C has at least this many rows: a vector off the line is two lines' load; below,
/// the copy costs more than it saves (docs/design.md#the-direct-path).
pub(crate) const DIRECT_ALIGN_B_ROWS: usize = 96;

/// The kernels prefetch the next packed source when the operand streamed once is at
/// least `L3 / PREFETCH_MIN_L3_PART` bytes, so comes from memory; from L3 the hints
/// only cost (docs/design.md#packing-and-prefetch).
pub(crate) const PREFETCH_MIN_L3_PART: usize = 2;

/// The narrow form is taken when A's `m x KC` block fits in half of L2, or all the
/// threads' blocks in `L3 / NARROW_L3_PART` of an L3 of at most [`NEAR_L3_MAX`]
/// (docs/design.md#which-path).
pub(crate) const NARROW_L3_PART: usize = 4;

/// Bands of tiles per worker in a parallel product: each worker starts on its own run
/// and steals the others', so a late or slow one takes fewer
/// (docs/design.md#which-path, blocked form).
pub(crate) const BANDS_PER_THREAD: usize = 8;

/// The path of one product, with what it needs; the views are those the path runs
/// on (transposed, `C^T = B^T A^T`, where that suits its kernel).
pub(crate) enum Path<T> {
    /// `m`, `n`, `k` or `alpha` zero: `C = beta * C`, A and B unread.
    Scale,
    /// At most [`SMALL_SIDE`] on every side: the register path (`small.rs`).
    Register(Register<T>),
    /// [`SMALL_MAX`] or fewer multiply-adds, a side longer than [`SMALL_SIDE`] and
    /// the direct path not taken: the plain loop.
    Small,
    /// No packing (`direct.rs`).
    Direct(Direct<T>),
    /// A's whole k-block packed once, each B panel packed right before its tiles.
    Narrow(Packed<T>),
    /// The BLIS loops: B's `KC x NC` block packed, then MC blocks of A in bands.
    Blocked(Packed<T>),
}

/// The register path's product, in the form whose vectors run along the more
/// convenient rows ([`register_form`]).
pub(crate) struct Register<T> {
    pub m: usize,
    pub n: usize,
    pub a: Raw<T>,
    pub b: Raw<T>,
    pub c: RawMut<T>,
    /// The packed path's k-block (`k` unless a tuning forces a shorter one).
    pub kc: usize,
    /// Whether this is the transposed product `C^T = B^T A^T`.
    pub flipped: bool,
}

/// The direct path's product: B's and C's rows contiguous.
pub(crate) struct Direct<T> {
    pub m: usize,
    pub n: usize,
    pub a: Raw<T>,
    pub b: Raw<T>,
    pub c: RawMut<T>,
    /// The packed path's k-block, so that both sum k alike.
    pub kc: usize,
    /// The k-steps per kernel call: `k` when B's strip through k fits
    /// ([`DIRECT_WHOLE_K`]), else `kc`.
    pub step: usize,
    /// Whether B is first copied to line-aligned rows ([`DIRECT_ALIGN_B_ROWS`]).
    pub align_b: bool,
}

/// The packed path's product: C's columns are its unit stride (or neither axis is).
pub(crate) struct Packed<T> {
    pub m: usize,
    pub n: usize,
    pub a: Raw<T>,
    pub b: Raw<T>,
    pub c: RawMut<T>,
    pub blk: Blocking,
    /// Whether the kernels prefetch the next packed source ([`PREFETCH_MIN_L3_PART`]).
    pub prefetch: bool,
    /// Bands of tiles per worker ([`BANDS_PER_THREAD`]).
    pub bands_per_thread: usize,
    /// Whether the blocked form may make its row bands MC tall (not when the bands
    /// per thread are forced).
    pub tall_bands: bool,
}

/// The threads a product of `volume` multiply-adds runs on: one below
/// [`PARALLEL_MIN`], else `threads` within the pool's size.
pub(crate) fn threads(tuning: &Tuning, volume: usize, threads: usize) -> usize {
    if volume < tuning.parallel_min.unwrap_or(PARALLEL_MIN) {
        1
    } else {
        threads.min(pool::current_num_threads()).max(1)
    }
}

/// The path of `C = alpha * A * B + beta * C` (`m x k` by `k x n`) on `threads`
/// threads (as [`threads`] gives) with `kern`'s tier.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn choose<T: GemmElement>(
    kern: &Kernel<T>,
    tuning: &Tuning,
    (m, n, k): (usize, usize, usize),
    alpha: T,
    (a, b, c): (Raw<T>, Raw<T>, RawMut<T>),
    threads: usize,
) -> Path<T> {
    if m == 0 || n == 0 || k == 0 || alpha == T::ZERO {
        return Path::Scale;
    }
    // Tiny products first, before any blocking is derived: their set-up is their
    // cost (docs/design.md#which-path).
    let tiny = m.max(n).max(k) <= SMALL_SIDE;
    if tuning.direct_path != Some(true) && tiny && tuning.small_path != Some(false) {
        let kc = tuning.kc.map_or(k, |kc| block::depth(k, kc));
        return Path::Register(register(kern.lanes, m, n, kc, (a, b, c)));
    }
    let volume = m.saturating_mul(n).saturating_mul(k);
    let derived = Blocking::for_tile(kern.mr, kern.nr, size_of::<T>());
    // The direct path sums every element as the packed path does, so the layouts may
    // decide it ([`direct_takes`]).
    let dw = kern.direct_tile[1];
    let form = direct_form(m, n, a, b, c)
        .filter(|&(fm, fn_, ..)| direct_takes(kern, tuning, volume, fm, fn_));
    if let Some((m, n, a, b, c)) = form {
        let kc = block::depth(k, tuning.kc.unwrap_or(derived.kc));
        let strip = k.saturating_mul(n.min(dw)).saturating_mul(size_of::<T>());
        let whole = tuning
            .direct_whole_k
            .unwrap_or(strip <= crate::cache_info().l2 / DIRECT_WHOLE_K);
        let misaligned = || (0..k.min(2)).any(|p| !(b.at(p, 0) as usize).is_multiple_of(LINE));
        let align_b = tuning
            .direct_align_b
            .unwrap_or_else(|| may_align_b(threads, m, n) && misaligned());
        return Path::Direct(Direct {
            m,
            n,
            a,
            b,
            c,
            kc,
            step: if whole { k } else { kc },
            align_b,
        });
    }
    if tuning.small_path.unwrap_or(volume <= SMALL_MAX) {
        return Path::Small;
    }
    // The kernel stores columns of its tile with unit row stride: give it the
    // transposed product `C^T = B^T A^T` when that is C's unit stride.
    let (m, n, a, b, c) = if c.rs != 1 && c.cs == 1 {
        (n, m, b.t(), a.t(), c.t())
    } else {
        (m, n, a, b, c)
    };
    let blk = packed_blocking(kern, tuning, derived, (m, n, k));
    let cache = crate::cache_info();
    let narrow = narrow_takes::<T>(tuning, m, blk.kc, threads);
    // The operand streamed once: B in the narrow form, A in the blocked one.
    let streamed = if narrow { k * n } else { m * k };
    let packed = Packed {
        m,
        n,
        a,
        b,
        c,
        blk,
        prefetch: tuning
            .prefetch
            .unwrap_or(streamed.saturating_mul(size_of::<T>()) >= cache.l3 / PREFETCH_MIN_L3_PART),
        bands_per_thread: tuning.bands_per_thread.unwrap_or(BANDS_PER_THREAD),
        tall_bands: tuning.bands_per_thread.is_none(),
    };
    if narrow {
        Path::Narrow(packed)
    } else {
        Path::Blocked(packed)
    }
}

/// Whether the direct path takes a product of `volume` multiply-adds in its form
/// `fm x fn_` (B's and C's rows contiguous): small products, and any k when C has
/// at most one register block of columns, or two and few rows, or (where the tier
/// sets `direct_short_rows`) few rows at any width, except on a CPU that splits
/// its 512-bit operations (Zen 4), where the packed forms were 1.3-1.8x faster.
fn direct_takes<T>(
    kern: &Kernel<T>,
    tuning: &Tuning,
    volume: usize,
    fm: usize,
    fn_: usize,
) -> bool {
    let [dr, dw] = kern.direct_tile;
    let narrow = fn_ <= dw
        || (fn_ <= 2 * dw && fm <= DIRECT_NARROW_ROWS * dr)
        || (fm <= kern.direct_short_rows && !crate::dispatch::splits_512());
    let default = tuning.small_path.is_none()
        && volume > SMALL_MAX
        && fn_ >= kern.lanes
        && ((volume.saturating_mul(size_of::<T>()) <= kern.direct_max[0]
            && fm.max(fn_) <= kern.direct_max[1])
            || narrow);
    tuning.direct_path.unwrap_or(default)
}

/// Whether the direct path, by default, copies B (`m x n` in its form) to
/// line-aligned rows when they are not ([`DIRECT_ALIGN_B_ROWS`]).
fn may_align_b(threads: usize, m: usize, n: usize) -> bool {
    threads == 1 && m >= DIRECT_ALIGN_B_ROWS && n > 1
}

/// The packed path's blocks for an `m x n x k` product in the form it runs
/// (`derived` from the caches, `tuning`'s overrides, fitted to the product).
fn packed_blocking<T>(
    kern: &Kernel<T>,
    tuning: &Tuning,
    derived: Blocking,
    (m, n, k): (usize, usize, usize),
) -> Blocking {
    let (mr, nr) = (kern.mr, kern.nr);
    Blocking {
        kc: tuning.kc.unwrap_or(derived.kc),
        mc: tuning.mc.map_or(derived.mc, |mc| mc.next_multiple_of(mr)),
        nc: tuning.nc.map_or(derived.nc, |nc| nc.next_multiple_of(nr)),
    }
    .fit(m, n, k, mr, nr)
}

/// Whether the packed path takes its narrow form for `m` rows of A `kc` deep
/// ([`NARROW_L3_PART`]).
fn narrow_takes<T>(tuning: &Tuning, m: usize, kc: usize, threads: usize) -> bool {
    let cache = crate::cache_info();
    let a_block = m * kc * size_of::<T>();
    tuning.narrow.unwrap_or(
        a_block <= cache.l2 / 2
            || (cache.l3 <= NEAR_L3_MAX && a_block * threads <= cache.l3 / NARROW_L3_PART),
    )
}

/// What a product may ask of scratch on some path ([`needs`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Need {
    /// The direct path's line-aligned copy of a `k x n` B.
    DirectCopy { k: usize, n: usize },
    /// The narrow form, `m` rows of A.
    Narrow { m: usize, blk: Blocking },
    /// The blocked form.
    Blocked { blk: Blocking },
}

/// Every scratch request a product of this shape on `threads` threads (as
/// [`threads`] gives) could make, whatever its operands' layouts (which decide
/// between the direct form and the packed one, and which of the two orientations
/// each runs): the most of these bounds what [`choose`]'s path takes.
pub(crate) fn needs<'t, T: GemmElement>(
    kern: &'t Kernel<T>,
    tuning: &'t Tuning,
    (m, n, k): (usize, usize, usize),
    threads: usize,
) -> impl Iterator<Item = Need> + 't {
    let none = m == 0 || n == 0 || k == 0;
    let tiny = m.max(n).max(k) <= SMALL_SIDE
        && tuning.direct_path != Some(true)
        && tuning.small_path != Some(false);
    let volume = m.saturating_mul(n).saturating_mul(k);
    let packed = !tuning.small_path.unwrap_or(volume <= SMALL_MAX);
    let derived = Blocking::for_tile(kern.mr, kern.nr, size_of::<T>());
    let live = !(none || tiny);
    [(m, n), (n, m)].into_iter().flat_map(move |(fm, fn_)| {
        let copy = tuning
            .direct_align_b
            .unwrap_or_else(|| may_align_b(threads, fm, fn_));
        let direct = (live && copy && direct_takes(kern, tuning, volume, fm, fn_))
            .then_some(Need::DirectCopy { k, n: fn_ });
        let blk = packed_blocking(kern, tuning, derived, (fm, fn_, k));
        let packed = (live && packed).then(|| {
            if narrow_takes::<T>(tuning, fm, blk.kc, threads) {
                Need::Narrow { m: fm, blk }
            } else {
                Need::Blocked { blk }
            }
        });
        direct.into_iter().chain(packed)
    })
}

/// The register path's product `m x n` in blocks of `kc` steps, in the form
/// [`register_flipped`] picks.
#[inline]
pub(crate) fn register<T: Copy>(
    lanes: usize,
    m: usize,
    n: usize,
    kc: usize,
    (a, b, c): (Raw<T>, Raw<T>, RawMut<T>),
) -> Register<T> {
    let flipped = register_flipped(lanes, m, n, a, b, c);
    let (m, n, a, b, c) = if flipped {
        (n, m, b.t(), a.t(), c.t())
    } else {
        (m, n, a, b, c)
    };
    Register {
        m,
        n,
        a,
        b,
        c,
        kc,
        flipped,
    }
}

/// Whether the register path runs the transposed product (`C^T = B^T A^T`) rather
/// than the one given: whichever needs fewer vector multiply-adds plus element
/// copies (B's and C's rows are copied when not contiguous or not whole vectors:
/// `small.rs`).
#[inline]
fn register_flipped<T>(
    lanes: usize,
    m: usize,
    n: usize,
    a: Raw<T>,
    b: Raw<T>,
    c: RawMut<T>,
) -> bool {
    // The k-loop's cost per step (vectors of C) plus the copies per step of k,
    // roughly: a form is as good as its vectors and its copies of B and C.
    let cost = |m: usize, n: usize, b_cs: isize, c_cs: isize| {
        let whole = n.is_multiple_of(lanes);
        let copy_b = if whole && (b_cs == 1 || n == 1) { 0 } else { n };
        let copy_c = if whole && (c_cs == 1 || n == 1) {
            0
        } else {
            m * n
        };
        m * n.div_ceil(lanes) + copy_b + copy_c
    };
    cost(n, m, a.rs, c.rs) < cost(m, n, b.cs, c.cs)
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

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Short A of any width takes the direct path where the tier sets
    /// `direct_short_rows` (AVX-512) unless the CPU splits 512-bit operations, not
    /// on AVX2, and taller A stays packed.
    #[test]
    fn short_a_takes_the_direct_path_where_the_tier_sets_it() {
        let (k, n) = (1024, 4096);
        let a = vec![0.0f64; 48 * k];
        let b = vec![0.0f64; k * n];
        let mut c = vec![0.0f64; 48 * n];
        let cp = c.as_mut_ptr();
        let direct = |kern: &Kernel<f64>, m: usize| {
            let ops = (
                Raw {
                    ptr: a.as_ptr(),
                    rs: k as isize,
                    cs: 1,
                },
                Raw {
                    ptr: b.as_ptr(),
                    rs: n as isize,
                    cs: 1,
                },
                RawMut {
                    ptr: cp,
                    rs: n as isize,
                    cs: 1,
                },
            );
            matches!(
                choose(kern, &Tuning::default(), (m, n, k), 1.0, ops, 1),
                Path::Direct(_)
            )
        };
        let avx512 = &crate::gemm::avx512::F64;
        let short = !crate::dispatch::splits_512();
        assert!(direct(avx512, 4) == short && direct(avx512, 16) == short);
        assert!(!direct(avx512, 17) && !direct(avx512, 48));
        assert!(!direct(&crate::gemm::avx2::F64, 16));
    }
}
