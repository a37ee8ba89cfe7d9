//! The per-tier kernel table: what one tier and element type supplies to the GEMM
//! (micro-kernels, edge kernels, the direct, gemv and gather kernels, the tile
//! shapes), and `gemm_kernel!`, which stamps a table out of the generic kernels for
//! a vector type. `crate::dispatch` hands out the table of the active tier.

use super::direct::DirectFn;
use super::gather::Gather8Fn;
use super::gemv::GemvFn;
use super::kernel::{BColsFn, MicroFn, PeakFn};
use super::small::{RowsFn, SmallFn, TINY_SIDE};

/// A micro-kernel and the shape of its register tile.
///
/// `pub` only so that the sealed [`super::GemmElement`] can name it; the module is
/// private.
#[derive(Clone, Copy)]
pub struct Kernel<T> {
    /// Rows of the tile (a multiple of the vector width).
    pub mr: usize,
    /// Columns of the tile.
    pub nr: usize,
    /// Lanes of the vector type.
    pub lanes: usize,
    /// Rows and columns of the direct path's register block.
    pub direct_tile: [usize; 2],
    /// The direct path's reach for products of any shape (see the driver's rule):
    /// at most `direct_max[0]` bytes of `m * n * k` elements, and C at most
    /// `direct_max[1]` rows and columns.
    pub direct_max: [usize; 2],
    /// Products whose A has at most this many rows (in the direct path's form) take
    /// the direct path at any width and depth: B's rows read in place once instead
    /// of packed for a few rows' use. Set per tier where measured to win (AVX-512:
    /// docs/perf.md#matrix-products-against-the-peers); 0 leaves it off.
    pub direct_short_rows: usize,
    /// The kernel itself, `run[0][0]`, and the edge kernels: `run[r][c]` computes
    /// and writes only the tile's first `edge[0]` rows when `r == 1` (else `mr`)
    /// and first `edge[1]` columns when `c == 1` (else `nr`), reading the panels at
    /// their full strides; otherwise as [`MicroFn`]. A panel of a few valid rows or
    /// columns (the rest padding) would cost a full tile of multiply-adds on zeros:
    /// `16` columns of C in panels of 6 are 18 columns of work, `20` rows in panels
    /// of 8 are 24.
    pub run: [[MicroFn<T>; 2]; 2],
    /// The kernel with B read in place (see [`BColsFn`]), `run_b_cols[1]` on the
    /// first `edge[0]` rows.
    pub run_b_cols: [BColsFn<T>; 2],
    /// Rows and columns of the edge kernels (fewer than `mr` and `nr`).
    pub edge: [usize; 2],
    /// The kernel's arithmetic alone: [`super::kernel::peak`] with its accumulators.
    pub peak: PeakFn<T>,
    /// Matrix times vector with the same vector type (`gemv.rs`).
    pub gemv: GemvFn<T>,
    /// Tiny products read in place, without packing (`direct.rs`).
    pub direct: DirectFn<T>,
    /// Products of at most `SMALL_SIDE` on every side, any strides (`small.rs`).
    pub small: SmallFn<T>,
    /// [`Kernel::small`] for at most `TINY_SIDE` on every side, with small stack
    /// buffers (`small.rs`); the same bits.
    pub tiny: SmallFn<T>,
    /// The tiny entry's kernels for contiguous row-major operands,
    /// `tiny_rows[m - 1][n - 1]` for `m` rows and `n` columns (`small.rs`'s `rows`);
    /// the same bits.
    pub tiny_rows: [[RowsFn<T>; TINY_SIDE]; TINY_SIDE],
    /// Packs eight runs contiguous along k at once (`gather.rs`), where the tier
    /// has one; `None` leaves it to the scalar gather of `pack.rs`.
    pub gather8: Option<Gather8Fn<T>>,
}

/// `$name`: a [`Kernel`] constant for element `$t`, running `kernel::tile` with
/// vector `$v` (`$mv` vectors tall, `$nr` wide; the edge kernels `$eh` vectors
/// tall or `$ew` wide) inside a function compiled with `$features` (none for the
/// portable tier), and the direct path (`super::direct::direct`) on blocks of `$dr`
/// rows by `$dw` vectors, taken by default up to `direct::DIRECT_MAX_BYTES`, or
/// with `up to $side` for products of at most `$side`³ f64's bytes whose C has at
/// most `$side` rows and columns.
///
/// The constant is handed out only by [`super::GemmElement`]'s kernel lookup, which
/// checks that the CPU has the tier first.
macro_rules! gemm_kernel {
    ($name:ident, $features:literal, $t:ty, $v:ty, $mv:literal x $nr:literal,
     edge $eh:literal x $ew:literal, direct $dr:literal x $dw:literal
     $(up to $side:literal)?) => {
        gemm_kernel!(@ $name, #[target_feature(enable = $features)], $t, $v, $mv x $nr,
            $eh x $ew, $dr x $dw, gemm_kernel!(@max $($side)?));
    };
    ($name:ident, portable, $t:ty, $v:ty, $mv:literal x $nr:literal,
     edge $eh:literal x $ew:literal, direct $dr:literal x $dw:literal) => {
        gemm_kernel!(@ $name, #[inline(never)], $t, $v, $mv x $nr, $eh x $ew, $dr x $dw,
            gemm_kernel!(@max));
    };
    (@max) => {
        [$crate::gemm::direct::DIRECT_MAX_BYTES, usize::MAX]
    };
    (@max $side:literal) => {
        [$side * $side * $side * 8, $side]
    };
    (@ $name:ident, #[$attr:meta], $t:ty, $v:ty, $mv:literal x $nr:literal,
     $eh:literal x $ew:literal, $dr:literal x $dw:literal, $dmax:expr) => {
        pub(crate) const $name: $crate::gemm::table::Kernel<$t> = {
            /// The kernels on `H` vectors by `W` columns: B packed (`b_cs` `None`)
            /// or in place.
            ///
            /// # Safety
            /// `MicroFn`'s contract for `H` vectors by `W` columns (with `b_cs`, `BColsFn`'s:
            /// B's element `(p, j)` at `b + p + j * b_cs` readable), called from a function
            /// with `$v`'s features enabled (this is inlined into it).
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            unsafe fn tile<const H: usize, const W: usize>(
                kc: usize,
                a: *const $t,
                b: *const $t,
                b_cs: Option<isize>,
                c: *mut $t,
                cs: isize,
                alpha: $t,
                beta: $t,
                ahead: $crate::gemm::kernel::Ahead,
            ) {
                // SAFETY: the caller upholds `MicroFn`'s contract (`BColsFn`'s with
                // `b_cs`), which is `tile`'s, and (the kernel being handed out only
                // when the CPU has the tier, this inlined into the functions below
                // that enable it) `$v`'s features are present.
                unsafe {
                    $crate::gemm::kernel::tile::<$v, $mv, $nr, H, W>(
                        kc,
                        a,
                        b,
                        c,
                        cs,
                        alpha,
                        if beta == 0.0 { None } else { Some(beta) },
                        ahead,
                        b_cs,
                    )
                }
            }
            /// The kernel (`H == $mv`, `W == $nr`: a `MicroFn`) and the edge kernels
            /// (`H == $eh` or `W == $ew`; see `Kernel::run`).
            ///
            /// # Safety
            /// `MicroFn`'s contract (for an edge kernel `Kernel::run`'s: only the first `H`
            /// vectors and `W` columns of C are accessed); the CPU has `$v`'s tier.
            #[$attr]
            #[allow(clippy::too_many_arguments)]
            unsafe fn run<const H: usize, const W: usize>(
                kc: usize,
                a: *const $t,
                b: *const $t,
                c: *mut $t,
                cs: isize,
                alpha: $t,
                beta: $t,
                ahead: $crate::gemm::kernel::Ahead,
            ) {
                // SAFETY: `MicroFn`'s contract (`Kernel::run`'s for an edge kernel, whose
                // `tile` on the first `H` vectors and `W` columns reads the panels as
                // `MicroFn` allows and accesses only those rows and columns of C),
                // passed on.
                unsafe { tile::<H, W>(kc, a, b, None, c, cs, alpha, beta, ahead) }
            }
            /// With B in place, on `H` vectors (`$mv`, or `$eh` for the edge kernel).
            ///
            /// # Safety
            /// `BColsFn`'s contract (for the edge kernel `Kernel::run`'s, as in `run`); the
            /// CPU has `$v`'s tier.
            #[$attr]
            #[allow(clippy::too_many_arguments)]
            unsafe fn run_b_cols<const H: usize>(
                kc: usize,
                a: *const $t,
                b: *const $t,
                b_cs: isize,
                c: *mut $t,
                cs: isize,
                alpha: $t,
                beta: $t,
                ahead: $crate::gemm::kernel::Ahead,
            ) {
                // SAFETY: `BColsFn`'s contract (`Kernel::run`'s for the edge kernel, as in
                // `run`), passed on.
                unsafe { tile::<H, $nr>(kc, a, b, Some(b_cs), c, cs, alpha, beta, ahead) }
            }
            /// # Safety
            /// The CPU has `$v`'s tier (`PeakFn`'s contract).
            #[$attr]
            unsafe fn peak(iters: usize, x: $t) -> $t {
                // SAFETY: as for `run`: `$v`'s features are present.
                unsafe { $crate::gemm::kernel::peak::<$v, $mv, $nr>(iters, x) }
            }
            /// # Safety
            /// `GemvFn`'s contract: the CPU has `$v`'s tier, and each of the `m` rows is as
            /// `gemv::rows` needs (`a + i * lda` valid for `k` reads, `x` for `k`, `y + i * ys`
            /// for a write, and a read unless `beta == 0`).
            #[$attr]
            #[allow(clippy::too_many_arguments)]
            unsafe fn gemv(
                m: usize,
                k: usize,
                a: *const $t,
                lda: isize,
                x: *const $t,
                y: *mut $t,
                ys: isize,
                alpha: $t,
                beta: $t,
            ) {
                use $crate::gemm::gemv::{rows, ROWS};
                let beta = if beta == 0.0 { None } else { Some(beta) };
                let mut i = 0;
                // SAFETY: the caller upholds `GemvFn`'s contract for all `m` rows,
                // which is `rows`' for each group; `$v`'s features are present.
                unsafe {
                    while i + ROWS <= m {
                        let (ai, yi) = (a.offset(i as isize * lda), y.offset(i as isize * ys));
                        rows::<$v, ROWS>(k, ai, lda, x, yi, ys, alpha, beta);
                        i += ROWS;
                    }
                    while i < m {
                        let (ai, yi) = (a.offset(i as isize * lda), y.offset(i as isize * ys));
                        rows::<$v, 1>(k, ai, lda, x, yi, ys, alpha, beta);
                        i += 1;
                    }
                }
            }
            /// # Safety
            /// `DirectFn`'s contract: the CPU has `$v`'s tier; `k > 0`, `kc > 0`; A and B
            /// readable, C writable (readable unless `beta == 0`), C's elements distinct and
            /// not overlapping A or B.
            #[$attr]
            #[allow(clippy::too_many_arguments)]
            unsafe fn direct(
                m: usize,
                n: usize,
                k: usize,
                kc: usize,
                a: *const $t,
                a_strides: (isize, isize),
                b: *const $t,
                b_rs: isize,
                c: *mut $t,
                c_rs: isize,
                alpha: $t,
                beta: $t,
            ) {
                // SAFETY: the caller upholds `DirectFn`'s contract, which is
                // `direct`'s; `$v`'s features are present.
                unsafe {
                    $crate::gemm::direct::direct::<$v, $dr, $dw>(
                        (m, n, k, kc),
                        a,
                        a_strides,
                        b,
                        b_rs,
                        c,
                        c_rs,
                        alpha,
                        if beta == 0.0 { None } else { Some(beta) },
                    )
                }
            }
            /// The register path for sides of at most `S` with `BUF`-element stack
            /// buffers: [`Kernel::small`] and [`Kernel::tiny`].
            ///
            /// # Safety
            /// `SmallFn`'s contract with `S` in place of `SMALL_SIDE`: the CPU has `$v`'s
            /// tier; `0 < m, n, k <= S`, `kc > 0`; A and B readable, C writable
            /// (readable unless `beta == 0`), C's elements distinct and not overlapping
            /// A or B.
            #[$attr]
            #[allow(clippy::type_complexity)]
            unsafe fn small<const S: usize, const BUF: usize>(
                dims: (usize, usize, usize, usize),
                a: (*const $t, isize, isize),
                b: (*const $t, isize, isize),
                c: (*mut $t, isize, isize),
                alpha: $t,
                beta: $t,
            ) {
                // SAFETY: the caller upholds `register`'s contract for `S`; `$v`'s
                // features are present.
                unsafe {
                    $crate::gemm::small::register::<$v, $dr, $dw, S, BUF>(
                        dims, a, b, c, alpha, beta,
                    )
                }
            }
            /// # Safety
            /// `RowsFn`'s contract for `M` rows and `N` columns.
            #[$attr]
            unsafe fn rows<const M: usize, const N: usize>(
                k: usize,
                a: *const $t,
                b: *const $t,
                c: *mut $t,
                alpha: $t,
                beta: $t,
            ) {
                use $crate::vector::FloatVector;
                // SAFETY: the caller upholds `RowsFn`'s contract, which is `rows`'s;
                // `$v`'s features are present.
                unsafe {
                    $crate::gemm::small::rows::<$t, M, N, { <$v as FloatVector>::FMA }>(
                        k, a, b, c, alpha, beta,
                    )
                }
            }
            /// The kernels of `M` rows, by columns.
            const fn rows_of<const M: usize>() -> [$crate::gemm::small::RowsFn<$t>; 8] {
                [
                    rows::<M, 1>,
                    rows::<M, 2>,
                    rows::<M, 3>,
                    rows::<M, 4>,
                    rows::<M, 5>,
                    rows::<M, 6>,
                    rows::<M, 7>,
                    rows::<M, 8>,
                ]
            }
            $crate::gemm::table::Kernel {
                mr: $mv * <$v as $crate::vector::Vector>::N,
                nr: $nr,
                lanes: <$v as $crate::vector::Vector>::N,
                direct_tile: [$dr, $dw * <$v as $crate::vector::Vector>::N],
                direct_max: $dmax,
                direct_short_rows: 0,
                run: [
                    [run::<$mv, $nr>, run::<$mv, $ew>],
                    [run::<$eh, $nr>, run::<$eh, $ew>],
                ],
                run_b_cols: [run_b_cols::<$mv>, run_b_cols::<$eh>],
                edge: [$eh * <$v as $crate::vector::Vector>::N, $ew],
                peak,
                gemv,
                direct,
                small: {
                    use $crate::gemm::small::SMALL_SIDE as S;
                    small::<S, { S * S }>
                },
                tiny: {
                    use $crate::gemm::small::{TINY_BUF, TINY_SIDE};
                    small::<TINY_SIDE, TINY_BUF>
                },
                tiny_rows: [
                    rows_of::<1>(),
                    rows_of::<2>(),
                    rows_of::<3>(),
                    rows_of::<4>(),
                    rows_of::<5>(),
                    rows_of::<6>(),
                    rows_of::<7>(),
                    rows_of::<8>(),
                ],
                gather8: None,
            }
        };
    };
}
