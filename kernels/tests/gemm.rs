//! GEMM: every tier the host has, f32 and f64, against a naive triple loop.
//!
//! Integer-valued data (small enough that every product and partial sum is exact in
//! f32) makes the comparison exact on every path and tier, fused or not; random data
//! is held to the usual error bound. Every output window sits in a larger buffer full
//! of canaries, which must survive; with `beta == 0` the window starts full of NaN,
//! which must not leak. Small block sizes (through the test-only `Tuning`) make small
//! products cross every block boundary.

mod common;

use common::{each_tier, TestFloat, XorShift};
use ndsimd_kernels::gemm::{
    blocking, direct_tile, gemm, gemm_tiny_rows, gemm_tuned, gemm_with_tier, GemmElement, MatMut,
    MatRef, Tuning,
};
use ndsimd_kernels::{available_tiers, pool, Tier};

/// `#[test]` functions `$f32` and `$f64` running `$body` on that element type.
macro_rules! per_float {
    ($body:ident: $f32:ident, $f64:ident) => {
        #[test]
        fn $f32() {
            $body::<f32>();
        }

        #[test]
        fn $f64() {
            $body::<f64>();
        }
    };
}

trait Elem: TestFloat + GemmElement {}
impl<T: TestFloat + GemmElement> Elem for T {}

/// How a test matrix is laid out in its buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lay {
    Row,
    Col,
    /// Row-major with gaps between elements and between rows.
    Gapped,
    /// Row-major with both strides negative (element (0, 0) last in memory).
    Reversed,
    /// Column-major with gaps, rows reversed.
    Mixed,
    /// Every row the same (row stride 0): inputs only.
    BroadcastRows,
    /// Every column the same (column stride 0): inputs only.
    BroadcastCols,
    /// Contiguous rows, last row first, with gaps between rows (negative row stride).
    RowsReversed,
    /// Contiguous columns, last column first, with gaps between columns.
    ColsReversed,
}

const INPUT_LAYS: [Lay; 7] = [
    Lay::Row,
    Lay::Col,
    Lay::Gapped,
    Lay::Reversed,
    Lay::Mixed,
    Lay::BroadcastRows,
    Lay::BroadcastCols,
];
const OUTPUT_LAYS: [Lay; 5] = [Lay::Row, Lay::Col, Lay::Gapped, Lay::Reversed, Lay::Mixed];

/// Canaries on each side of a window.
const PAD: usize = 5;

/// A matrix in a buffer of canaries.
#[derive(Clone)]
struct Stored<T> {
    buf: Vec<T>,
    offset: usize,
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
}

impl<T: Elem> Stored<T> {
    fn new(lay: Lay, rows: usize, cols: usize, mut value: impl FnMut(usize, usize) -> T) -> Self {
        let (r, c) = (rows as isize, cols as isize);
        let (rs, cs) = match lay {
            Lay::Row => (c, 1),
            Lay::Col => (1, r),
            Lay::Gapped => (2 * c + 3, 2),
            Lay::Reversed => (-c, -1),
            Lay::Mixed => (-1, r + 2),
            Lay::BroadcastRows => (0, 1),
            Lay::BroadcastCols => (1, 0),
            Lay::RowsReversed => (-(c + 2), 1),
            Lay::ColsReversed => (1, -(r + 3)),
        };
        let (lo, hi) = if rows == 0 || cols == 0 {
            (0, 0)
        } else {
            let (dr, dc) = ((r - 1) * rs, (c - 1) * cs);
            (dr.min(0) + dc.min(0), dr.max(0) + dc.max(0))
        };
        let offset = PAD + (-lo) as usize;
        let len = offset + hi as usize + 1 + PAD;
        let mut s = Stored {
            buf: vec![T::canary(); len],
            offset,
            rows,
            cols,
            rs,
            cs,
        };
        for i in 0..rows {
            for j in 0..cols {
                let at = s.index(i, j);
                s.buf[at] = value(i, j);
            }
        }
        s
    }

    fn index(&self, i: usize, j: usize) -> usize {
        (self.offset as isize + i as isize * self.rs + j as isize * self.cs) as usize
    }

    fn get(&self, i: usize, j: usize) -> T {
        self.buf[self.index(i, j)]
    }

    fn view(&self) -> MatRef<'_, T> {
        MatRef::new(
            &self.buf,
            self.offset,
            self.rows,
            self.cols,
            self.rs,
            self.cs,
        )
        .unwrap()
    }

    fn view_mut(&mut self) -> MatMut<'_, T> {
        MatMut::new(
            &mut self.buf,
            self.offset,
            self.rows,
            self.cols,
            self.rs,
            self.cs,
        )
        .unwrap()
    }

    /// The window of a [`Lay::Row`] matrix: its `rows * cols` elements in order.
    fn rows_slice(&mut self) -> &mut [T] {
        &mut self.buf[self.offset..self.offset + self.rows * self.cols]
    }

    /// The bits of the whole buffer, canaries included.
    fn bits(&self) -> Vec<u64> {
        self.buf.iter().map(|x| x.bits()).collect()
    }

    /// Every element outside the window still holds the canary.
    fn canaries_intact(&self) -> bool {
        let mut inside = vec![false; self.buf.len()];
        for i in 0..self.rows {
            for j in 0..self.cols {
                inside[self.index(i, j)] = true;
            }
        }
        self.buf
            .iter()
            .zip(&inside)
            .all(|(x, &ins)| ins || x.bits() == T::canary().bits())
    }
}

fn small_int<T: Elem>(rng: &mut XorShift) -> T {
    T::from_f64((rng.next() % 9) as f64 - 4.0)
}

const ALPHAS: [f64; 4] = [0.0, 1.0, 2.0, -1.5];

/// One product on integer data, checked exactly, canaries included.
#[derive(Clone, Copy, Debug)]
struct Case {
    tier: Tier,
    m: usize,
    n: usize,
    k: usize,
    alpha: f64,
    beta: f64,
    lays: (Lay, Lay, Lay),
    threads: usize,
}

impl Case {
    /// A case on one thread.
    fn serial(
        tier: Tier,
        (m, n, k): (usize, usize, usize),
        (alpha, beta): (f64, f64),
        lays: (Lay, Lay, Lay),
    ) -> Case {
        Case {
            tier,
            m,
            n,
            k,
            alpha,
            beta,
            lays,
            threads: 1,
        }
    }
}

fn check_exact<T: Elem>(case: Case, tuning: &Tuning, rng: &mut XorShift) {
    let Case {
        m,
        n,
        k,
        alpha,
        beta,
        ..
    } = case;
    let a = Stored::<T>::new(case.lays.0, m, k, |_, _| small_int(rng));
    let b = Stored::<T>::new(case.lays.1, k, n, |_, _| small_int(rng));
    let mut c = Stored::<T>::new(case.lays.2, m, n, |_, _| {
        if beta == 0.0 {
            T::from_f64(f64::NAN)
        } else {
            small_int(rng)
        }
    });
    let c0: Vec<f64> = (0..m * n)
        .map(|x| c.get(x / n.max(1), x % n.max(1)).to_f64())
        .collect();
    let (al, be) = (T::from_f64(alpha), T::from_f64(beta));
    let done = gemm_tuned(
        case.tier,
        tuning,
        al,
        a.view(),
        b.view(),
        be,
        c.view_mut(),
        case.threads,
    );
    assert_eq!(done, Some(()));
    for i in 0..m {
        for j in 0..n {
            let ab: f64 = (0..k)
                .map(|p| a.get(i, p).to_f64() * b.get(p, j).to_f64())
                .sum();
            let want = alpha * ab
                + if beta == 0.0 {
                    0.0
                } else {
                    beta * c0[i * n + j]
                };
            let got = c.get(i, j).to_f64();
            assert!(
                got == want,
                "{} {case:?} {tuning:?}: C[{i}, {j}] = {got}, want {want}",
                T::NAME
            );
        }
    }
    assert!(
        c.canaries_intact(),
        "{} {case:?} {tuning:?}: write outside C",
        T::NAME
    );
}

/// The largest MR and NR over the available tiers.
fn max_tile<T: Elem>() -> (usize, usize) {
    available_tiers().iter().fold((1, 1), |(mr, nr), &t| {
        let [tmr, tnr, ..] = blocking::<T>(t).unwrap();
        (mr.max(tmr), nr.max(tnr))
    })
}

/// Block sizes so small that tiny products cross every boundary (MC and NC are
/// rounded up to one tile).
fn tiny_blocks(kc: usize) -> Tuning {
    Tuning {
        small_path: Some(false),
        kc: Some(kc),
        mc: Some(1),
        nc: Some(1),
        narrow: Some(false),
        // The kernels' prefetch plans walked too (a product this small would not).
        prefetch: Some(true),
        ..Tuning::default()
    }
}

/// The narrow form (each B panel packed right before its tiles) with tiny KC blocks.
fn narrow_blocks(kc: usize) -> Tuning {
    Tuning {
        small_path: Some(false),
        kc: Some(kc),
        narrow: Some(true),
        prefetch: Some(true),
        ..Tuning::default()
    }
}

/// [`narrow_blocks`] with every full B panel whose columns run along k read where it
/// lies (`kernel::BColsFn`), whatever A's number of panels.
fn narrow_in_place(kc: usize) -> Tuning {
    Tuning {
        b_in_place: Some(true),
        ..narrow_blocks(kc)
    }
}

fn every_small_shape<T: Elem>() {
    let (mr, nr) = max_tile::<T>();
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut pick = 0usize;
    each_tier(|tier| {
        for tuning in [
            Tuning::default(),
            tiny_blocks(8),
            narrow_blocks(8),
            narrow_in_place(8),
        ] {
            for m in 0..=2 * mr + 1 {
                for n in 0..=2 * nr + 1 {
                    for k in [0, 1, 2, 3, 7, 8, 9, 17] {
                        pick += 1;
                        let case = Case::serial(
                            tier,
                            (m, n, k),
                            (ALPHAS[pick % 4], ALPHAS[pick / 4 % 4]),
                            (
                                INPUT_LAYS[pick % 7],
                                INPUT_LAYS[pick / 7 % 7],
                                OUTPUT_LAYS[pick % 5],
                            ),
                        );
                        check_exact::<T>(case, &tuning, &mut rng);
                    }
                }
            }
        }
    });
}

per_float!(every_small_shape: every_small_shape_exact_f32, every_small_shape_exact_f64);

fn every_k<T: Elem>() {
    let (mr, nr) = max_tile::<T>();
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    each_tier(|tier| {
        let [tmr, tnr, kc, ..] = blocking::<T>(tier).unwrap();
        let shapes = [
            (1, 1),
            (tmr, tnr),
            (tmr + 1, nr + 1),
            (2 * mr + 1, 2 * nr + 1),
        ];
        let lays = (Lay::Row, Lay::Row, Lay::Row);
        for (m, n) in shapes {
            // Every k across two tiny KC blocks, on the packed path...
            for k in 0..=2 * 8 + 1 {
                let case = Case::serial(tier, (m, n, k), (2.0, -1.5), lays);
                check_exact::<T>(case, &tiny_blocks(8), &mut rng);
                check_exact::<T>(case, &narrow_blocks(8), &mut rng);
                check_exact::<T>(case, &narrow_in_place(8), &mut rng);
                check_exact::<T>(
                    case,
                    &Tuning {
                        small_path: Some(true),
                        ..Tuning::default()
                    },
                    &mut rng,
                );
            }
            // ... and around the real KC (a remainder under a quarter of it is
            // spread over the full blocks, one of a half is its own block).
            for k in [kc - 1, kc, kc + 1, kc + kc / 2, 2 * kc + 1] {
                for (beta, narrow, in_place) in [
                    (0.0, false, None),
                    (1.0, false, None),
                    (1.0, true, Some(false)),
                    (0.0, true, Some(true)),
                ] {
                    let case = Case::serial(tier, (m, n, k), (-1.5, beta), lays);
                    check_exact::<T>(
                        case,
                        &Tuning {
                            small_path: Some(false),
                            narrow: Some(narrow),
                            b_in_place: in_place,
                            ..Tuning::default()
                        },
                        &mut rng,
                    );
                }
            }
        }
    });
}

per_float!(every_k: every_k_exact_f32, every_k_exact_f64);

fn alpha_beta_and_layouts<T: Elem>() {
    let mut rng = XorShift(0xdead_beef_cafe_f00d);
    let (mr, nr) = max_tile::<T>();
    each_tier(|tier| {
        for (m, n, k) in [(mr + 3, nr + 2, 11), (3, 2, 5)] {
            for small in [false, true] {
                let tuning = Tuning {
                    small_path: Some(small),
                    kc: Some(4),
                    ..Tuning::default()
                };
                for alpha in ALPHAS {
                    for beta in ALPHAS {
                        let lays = (Lay::Gapped, Lay::Col, Lay::Mixed);
                        let case = Case::serial(tier, (m, n, k), (alpha, beta), lays);
                        check_exact::<T>(case, &tuning, &mut rng);
                    }
                }
                for la in INPUT_LAYS {
                    for lb in INPUT_LAYS {
                        for lc in OUTPUT_LAYS {
                            let lays = (la, lb, lc);
                            let case = Case::serial(tier, (m, n, k), (2.0, 1.0), lays);
                            check_exact::<T>(case, &tuning, &mut rng);
                        }
                    }
                }
            }
        }
    });
}

per_float!(alpha_beta_and_layouts: alpha_beta_and_layouts_f32, alpha_beta_and_layouts_f64);

/// The direct path forced on.
fn direct_on() -> Tuning {
    Tuning {
        direct_path: Some(true),
        ..Tuning::default()
    }
}

/// Layouts the direct path takes as they are (B's and C's rows contiguous) and
/// transposed (A's and C's columns contiguous), negative strides included: `(A, B, C)`
/// choices.
const DIRECT_PLAIN: ([Lay; 9], [Lay; 3], [Lay; 2]) = (
    [
        Lay::Row,
        Lay::Col,
        Lay::Gapped,
        Lay::Reversed,
        Lay::Mixed,
        Lay::BroadcastRows,
        Lay::BroadcastCols,
        Lay::RowsReversed,
        Lay::ColsReversed,
    ],
    [Lay::Row, Lay::BroadcastRows, Lay::RowsReversed],
    [Lay::Row, Lay::RowsReversed],
);
const DIRECT_FLIPPED: ([Lay; 3], [Lay; 9], [Lay; 2]) = (
    [Lay::Col, Lay::BroadcastCols, Lay::ColsReversed],
    DIRECT_PLAIN.0,
    [Lay::Col, Lay::ColsReversed],
);

/// The largest direct block (rows, columns) over the available tiers.
fn max_direct_tile<T: Elem>() -> (usize, usize) {
    available_tiers().iter().fold((1, 1), |(r, c), &t| {
        let [tr, tc] = direct_tile::<T>(t).unwrap();
        (r.max(tr), c.max(tc))
    })
}

/// The direct path on every shape up to two blocks and one (rows and columns, so
/// every row remainder, every whole-vector count and every column tail, including
/// rows narrower than a vector), several k, both orientations, every alpha/beta pair.
fn direct_every_shape<T: Elem>() {
    let (dr, dc) = max_direct_tile::<T>();
    let mut rng = XorShift(0x7f4a_7c15_9e37_79b9);
    let mut pick = 0usize;
    each_tier(|tier| {
        for m in 1..=2 * dr + 1 {
            for n in 1..=2 * dc + 1 {
                for k in [1, 2, 3, 7, 16, 17, 33] {
                    pick += 1;
                    let lays = if pick.is_multiple_of(2) {
                        let (la, lb, lc) = DIRECT_PLAIN;
                        (la[pick / 2 % 9], lb[pick / 18 % 3], lc[pick / 54 % 2])
                    } else {
                        let (la, lb, lc) = DIRECT_FLIPPED;
                        (la[pick / 2 % 3], lb[pick / 6 % 9], lc[pick / 54 % 2])
                    };
                    let case = Case::serial(
                        tier,
                        (m, n, k),
                        (ALPHAS[pick % 4], ALPHAS[pick / 4 % 4]),
                        lays,
                    );
                    check_exact::<T>(case, &direct_on(), &mut rng);
                }
            }
        }
    });
}

per_float!(direct_every_shape: direct_every_shape_exact_f32, direct_every_shape_exact_f64);

/// The direct path forced on, every alpha/beta pair on the layouts it takes, and every
/// layout triple (those it cannot take fall back to the other paths, still exact).
fn direct_alpha_beta_and_layouts<T: Elem>() {
    let mut rng = XorShift(0xf00d_cafe_beef_dead);
    let (dr, dc) = max_direct_tile::<T>();
    let lays_all: Vec<Lay> = DIRECT_PLAIN.0.to_vec();
    let outs = [
        Lay::Row,
        Lay::Col,
        Lay::Gapped,
        Lay::Reversed,
        Lay::Mixed,
        Lay::RowsReversed,
        Lay::ColsReversed,
    ];
    each_tier(|tier| {
        for (m, n, k) in [(dr + 3, dc + 3, 11), (3, 2, 5), (dr, dc - 1, 4)] {
            for alpha in ALPHAS {
                for beta in ALPHAS {
                    for lays in [
                        (Lay::Gapped, Lay::Row, Lay::Row),
                        (Lay::Mixed, Lay::RowsReversed, Lay::RowsReversed),
                        (Lay::Col, Lay::Gapped, Lay::Col),
                        (Lay::ColsReversed, Lay::Reversed, Lay::ColsReversed),
                    ] {
                        let case = Case::serial(tier, (m, n, k), (alpha, beta), lays);
                        check_exact::<T>(case, &direct_on(), &mut rng);
                    }
                }
            }
            for &la in &lays_all {
                for &lb in &lays_all {
                    for lc in outs {
                        let case = Case::serial(tier, (m, n, k), (-1.5, 2.0), (la, lb, lc));
                        check_exact::<T>(case, &direct_on(), &mut rng);
                    }
                }
            }
        }
    });
}

per_float!(
    direct_alpha_beta_and_layouts: direct_alpha_beta_and_layouts_f32,
    direct_alpha_beta_and_layouts_f64
);

/// The depth of the k-blocks the library sums in, as its documentation states it:
/// KC (at most k), except that a last block shorter than a quarter of KC is spread
/// over the full ones (`k.div_ceil(k / kc)` each).
fn k_depth(k: usize, kc: usize) -> usize {
    let kc = kc.clamp(1, k.max(1));
    match (k / kc, k % kc) {
        (full, tail) if tail != 0 && tail < kc / 4 => k.div_ceil(full),
        _ => kc,
    }
}

/// The direct path's arithmetic, element by element, on random data, per KC block
/// of k (the packed path's): `acc = a * b + acc` over the block's k in order from
/// `+0` (one rounding on the tiers with FMA, two on the others), then `alpha * acc`,
/// then `+ beta * c` (never fused) unless `beta == 0`, with the caller's beta for the
/// first block and 1 for the others. Bit-identical for every element, whichever
/// block, whole vector, tail or narrow row it falls in, on one thread or with its
/// rows split over three, with B read in place or copied to aligned rows first.
fn direct_random_bits<T: Elem>() {
    let mut rng = XorShift(0x1357_9bdf_2468_ace0);
    let (dr, dc) = max_direct_tile::<T>();
    each_tier(|tier| {
        let fused = !matches!(tier, Tier::Scalar | Tier::Sse2);
        for (m, n, k, kc, threads) in [
            (2 * dr + 1, 2 * dc + 1, 33, None, 1),
            (dr - 1, dc + 1, 64, None, 1),
            (40, 41, 42, None, 1),
            (5, 3, 9, None, 1),
            (2 * dr + 1, 2 * dc + 1, 33, Some(8), 1),
            (7 * dr + 3, dc + 1, 40, Some(16), 3),
            (40, 41, 42, Some(42), 3),
            (dr + 2, dc + 3, 70, Some(16), 1),
            (2 * dr + 3, 2 * dc + 1, 61, Some(8), 2),
        ] {
            // B read in place or copied to line-aligned rows first (`direct_align_b`).
            let choices = [None, Some(true), Some(false)];
            for (whole_k, align_b) in choices.into_iter().zip(choices.into_iter().cycle().skip(1)) {
                let tuning = Tuning {
                    direct_path: Some(true),
                    kc,
                    parallel_min: Some(0),
                    direct_whole_k: whole_k,
                    direct_align_b: align_b,
                    ..Tuning::default()
                };
                let kc = k_depth(k, kc.unwrap_or(usize::MAX));
                for (lays, beta) in [
                    ((Lay::Row, Lay::Row, Lay::Row), 0.0),
                    ((Lay::Gapped, Lay::RowsReversed, Lay::Row), -0.5),
                    ((Lay::Col, Lay::Gapped, Lay::ColsReversed), -0.5),
                ] {
                    let a = Stored::<T>::new(lays.0, m, k, |_, _| T::random_finite(&mut rng));
                    let b = Stored::<T>::new(lays.1, k, n, |_, _| T::random_finite(&mut rng));
                    let mut c = Stored::<T>::new(lays.2, m, n, |_, _| T::random_finite(&mut rng));
                    let c0: Vec<T> = (0..m * n).map(|x| c.get(x / n, x % n)).collect();
                    let (al, be) = (T::from_f64(1.25), T::from_f64(beta));
                    gemm_tuned(
                        tier,
                        &tuning,
                        al,
                        a.view(),
                        b.view(),
                        be,
                        c.view_mut(),
                        threads,
                    )
                    .unwrap();
                    for i in 0..m {
                        for j in 0..n {
                            let mut want = c0[i * n + j];
                            for p0 in (0..k).step_by(kc) {
                                let mut acc = T::from_f64(0.0);
                                for p in p0..(p0 + kc).min(k) {
                                    let (x, y) = (a.get(i, p), b.get(p, j));
                                    acc = if fused {
                                        x.mul_add(y, acc)
                                    } else {
                                        x * y + acc
                                    };
                                }
                                let t = acc * al;
                                want = if p0 > 0 {
                                    t + T::from_f64(1.0) * want
                                } else if beta == 0.0 {
                                    t
                                } else {
                                    t + be * want
                                };
                            }
                            assert!(
                                c.get(i, j).bits() == want.bits(),
                                "{} {tier} {m}x{n}x{k} {lays:?}: C[{i}, {j}] = {:?}, want {want:?}",
                                T::NAME,
                                c.get(i, j)
                            );
                        }
                    }
                    assert!(c.canaries_intact(), "{} {tier} {m}x{n}x{k}", T::NAME);
                }
            }
        }
    });
}

/// With the default choices the layouts never change the bits, though they decide
/// whether the direct path applies: it computes every element as the packed path
/// does, KC block by KC block (the last two shapes are narrow enough for the
/// direct path at any k, and cross KC).
fn default_path_layout_free<T: Elem>() {
    let mut rng = XorShift(0x0bad_5eed_0dd5_1de5);
    each_tier(|tier| {
        let [.., kc, _, _] = blocking::<T>(tier).unwrap();
        let (_, dc) = max_direct_tile::<T>();
        for (m, n, k) in [
            (16, 16, 16),
            (9, 17, 33),
            (40, 41, 42),
            (5, 8, 300),
            (6, dc, 2 * kc + 3),
            (70, dc, kc + 1),
        ] {
            let a = Stored::<T>::new(Lay::Row, m, k, |_, _| T::random_finite(&mut rng));
            let b = Stored::<T>::new(Lay::Row, k, n, |_, _| T::random_finite(&mut rng));
            let mut outs = Vec::new();
            for lay_c in [Lay::Row, Lay::Gapped, Lay::Col] {
                let mut c = Stored::<T>::new(lay_c, m, n, |_, _| T::from_f64(0.5));
                let (al, be) = (T::from_f64(1.25), T::from_f64(-0.5));
                gemm_tuned(
                    tier,
                    &Tuning::default(),
                    al,
                    a.view(),
                    b.view(),
                    be,
                    c.view_mut(),
                    1,
                )
                .unwrap();
                outs.push(
                    (0..m * n)
                        .map(|x| c.get(x / n, x % n).bits())
                        .collect::<Vec<_>>(),
                );
            }
            assert!(
                outs.windows(2).all(|w| w[0] == w[1]),
                "{} {tier} {m}x{n}x{k}",
                T::NAME
            );
        }
    });
}

per_float!(default_path_layout_free: default_path_layout_free_f32, default_path_layout_free_f64);

per_float!(direct_random_bits: direct_random_bits_f32, direct_random_bits_f64);

/// `alpha == 0` or `k == 0`: A and B are not read (NaNs there do not leak), and
/// `C = beta * C`.
#[test]
fn alpha_zero_and_k_zero_only_scale_c() {
    each_tier(|tier| {
        let a = [f64::NAN; 6];
        let mut c = [1.0, 2.0, 3.0, 4.0];
        let am = MatRef::new(&a, 0, 2, 3, 3, 1).unwrap();
        let bm = MatRef::new(&a, 0, 3, 2, 2, 1).unwrap();
        gemm_with_tier(
            tier,
            0.0,
            am,
            bm,
            2.0,
            MatMut::new(&mut c, 0, 2, 2, 2, 1).unwrap(),
            1,
        )
        .unwrap();
        assert_eq!(c, [2.0, 4.0, 6.0, 8.0]);
        c = [f64::NAN; 4];
        gemm_with_tier(
            tier,
            0.0,
            am,
            bm,
            0.0,
            MatMut::new(&mut c, 0, 2, 2, 2, 1).unwrap(),
            1,
        )
        .unwrap();
        assert_eq!(c, [0.0; 4]);
        let empty: [f64; 0] = [];
        let a0 = MatRef::new(&empty, 0, 2, 0, 0, 1).unwrap();
        let b0 = MatRef::new(&empty, 0, 0, 2, 2, 1).unwrap();
        c = [f64::NAN; 4];
        gemm_with_tier(
            tier,
            1.0,
            a0,
            b0,
            0.0,
            MatMut::new(&mut c, 0, 2, 2, 2, 1).unwrap(),
            2,
        )
        .unwrap();
        assert_eq!(c, [0.0; 4]);
    });
}

/// Random data over sizes that cross the real KC, MC (and, through a smaller NC, NC)
/// blocks: within `|C - ref| <= 2 (k + 2) eps (|alpha| sum|a||b| + |beta| |c|)`.
fn random_within_bound<T: Elem>() {
    let mut rng = XorShift(0x0123_4567_89ab_cdef);
    let val = |rng: &mut XorShift| {
        T::from_f64((rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
    };
    each_tier(|tier| {
        let [mr, nr, kc, mc, _] = blocking::<T>(tier).unwrap();
        let smaller_nc = Tuning {
            nc: Some(3 * nr),
            ..Tuning::default()
        };
        for (m, n, k, tuning) in [
            (mc + mr + 3, 2 * nr + 1, kc + 5, Tuning::default()),
            (2 * mc + 1, 9 * nr + 2, 2 * kc + 1, smaller_nc),
            (40, 41, 42, Tuning::default()),
        ] {
            let (alpha, beta) = (-1.5, 0.75);
            let a = Stored::<T>::new(Lay::Row, m, k, |_, _| val(&mut rng));
            let b = Stored::<T>::new(Lay::Col, k, n, |_, _| val(&mut rng));
            let mut c = Stored::<T>::new(Lay::Row, m, n, |_, _| val(&mut rng));
            let c0: Vec<f64> = c.buf.iter().map(|x| x.to_f64()).collect();
            let (al, be) = (T::from_f64(alpha), T::from_f64(beta));
            gemm_tuned(tier, &tuning, al, a.view(), b.view(), be, c.view_mut(), 1).unwrap();
            for i in 0..m {
                for j in 0..n {
                    let (mut ab, mut mag) = (0.0, 0.0);
                    for p in 0..k {
                        let x = a.get(i, p).to_f64() * b.get(p, j).to_f64();
                        ab += x;
                        mag += x.abs();
                    }
                    let old = c0[c.index(i, j)];
                    let want = alpha * ab + beta * old;
                    let bound = 2.0
                        * (k + 2) as f64
                        * T::EPS
                        * (alpha.abs() * mag + beta.abs() * old.abs());
                    let got = c.get(i, j).to_f64();
                    assert!(
                        (got - want).abs() <= bound,
                        "{} {tier} {m}x{n}x{k}: C[{i}, {j}] = {got}, want {want} +- {bound}",
                        T::NAME
                    );
                }
            }
            assert!(c.canaries_intact());
        }
    });
}

per_float!(random_within_bound: random_within_bound_f32, random_within_bound_f64);

/// The k-summation order of an element never depends on the split: 1, 2 and 3
/// threads give the same bits, whichever way the work is split (by rows for tall
/// products, by columns for wide ones; one band per worker or several), and the
/// narrow form gives the blocked form's bits.
fn threads_bit_identical<T: Elem>() {
    pool::set_num_threads(pool::num_threads().max(3));
    let mut rng = XorShift(0x5151_5151_aaaa_0001);
    each_tier(|tier| {
        for (m, n, k) in [(301, 37, 150), (19, 403, 150), (130, 131, 260)] {
            for lay_c in [Lay::Row, Lay::Col] {
                let a = Stored::<T>::new(Lay::Row, m, k, |_, _| T::random_finite(&mut rng));
                let b = Stored::<T>::new(Lay::Col, k, n, |_, _| T::random_finite(&mut rng));
                let c_in = Stored::<T>::new(lay_c, m, n, |_, _| T::random_finite(&mut rng));
                let mut outs = Vec::new();
                for threads in [1, 2, 3] {
                    for (parallel_min, bands_per_thread, narrow, b_in_place) in [
                        (Some(0), None, None, None),
                        (None, None, None, None),
                        (Some(0), Some(1), Some(false), None),
                        (Some(0), Some(3), Some(false), None),
                        (Some(0), Some(1), Some(true), Some(false)),
                        (Some(0), Some(3), Some(true), Some(false)),
                        (Some(0), Some(3), Some(true), Some(true)),
                    ] {
                        let mut c = Stored {
                            buf: c_in.buf.clone(),
                            ..c_in
                        };
                        let tuning = Tuning {
                            parallel_min,
                            bands_per_thread,
                            narrow,
                            b_in_place,
                            kc: Some(64),
                            ..Tuning::default()
                        };
                        let (al, be) = (T::from_f64(1.25), T::from_f64(-0.5));
                        gemm_tuned(
                            tier,
                            &tuning,
                            al,
                            a.view(),
                            b.view(),
                            be,
                            c.view_mut(),
                            threads,
                        )
                        .unwrap();
                        outs.push(c.buf.iter().map(|x| x.bits()).collect::<Vec<_>>());
                    }
                }
                assert!(
                    outs.windows(2).all(|w| w[0] == w[1]),
                    "{} {tier} {m}x{n}x{k}",
                    T::NAME
                );
            }
        }
    });
}

trait RandomFinite {
    fn random_finite(rng: &mut XorShift) -> Self;
}
impl<T: Elem> RandomFinite for T {
    fn random_finite(rng: &mut XorShift) -> T {
        T::from_f64((rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
    }
}

per_float!(threads_bit_identical: threads_bit_identical_f32, threads_bit_identical_f64);

/// The public entry point on the active tier, serial and on the pool.
#[test]
fn gemm_on_the_active_tier() {
    let n = 150;
    let a: Vec<f64> = (0..n * n).map(|x| (x % 7) as f64 - 3.0).collect();
    let mut want = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            want[i * n + j] = (0..n).map(|p| a[i * n + p] * a[j * n + p]).sum();
        }
    }
    for threads in [1, 2] {
        let mut c = vec![f64::NAN; n * n];
        let s = n as isize;
        let am = MatRef::new(&a, 0, n, n, s, 1).unwrap();
        let at = MatRef::new(&a, 0, n, n, 1, s).unwrap();
        gemm(
            1.0,
            am,
            at,
            0.0,
            MatMut::new(&mut c, 0, n, n, s, 1).unwrap(),
            threads,
        );
        assert_eq!(c, want);
    }
}

#[test]
fn views_reject_out_of_bounds_and_overlap() {
    let mut d = [0.0f64; 12];
    // In bounds exactly / one past.
    assert!(MatRef::new(&d, 0, 3, 4, 4, 1).is_some());
    assert!(MatRef::new(&d, 1, 3, 4, 4, 1).is_none());
    assert!(MatRef::new(&d, 0, 4, 3, 1, 4).is_some());
    assert!(MatRef::new(&d, 0, 4, 3, 1, 5).is_none());
    // Negative strides: (0, 0) must sit high enough.
    assert!(MatRef::new(&d, 11, 3, 4, -4, -1).is_some());
    assert!(MatRef::new(&d, 10, 3, 4, -4, -1).is_none());
    assert!(MatRef::new(&d, 3, 3, 4, 4, -1).is_some());
    assert!(MatRef::new(&d, 2, 3, 4, 4, -1).is_none());
    // Huge strides do not overflow into acceptance.
    assert!(MatRef::new(&d, 0, 2, 1, isize::MAX, 1).is_none());
    assert!(MatRef::new(&d, 0, 2, 2, isize::MIN, isize::MAX).is_none());
    // Broadcast inputs are fine; empty views need nothing.
    assert!(MatRef::new(&d, 11, 100, 1, 0, 0).is_some());
    assert!(MatRef::new(&d, 999, 0, 5, 1, 1).is_some());
    assert!(MatMut::new(&mut d, 999, 5, 0, 1, 1).is_some());
    // Outputs must not alias.
    assert!(MatMut::new(&mut d, 0, 3, 4, 4, 1).is_some());
    assert!(MatMut::new(&mut d, 0, 3, 4, 0, 1).is_none());
    assert!(MatMut::new(&mut d, 0, 3, 4, 1, 0).is_none());
    assert!(MatMut::new(&mut d, 0, 4, 3, 1, 4).is_some());
    assert!(MatMut::new(&mut d, 0, 4, 3, 1, 3).is_none()); // (3, 0) is (0, 1)
    assert!(MatMut::new(&mut d, 0, 4, 3, 3, 1).is_some());
    assert!(MatMut::new(&mut d, 0, 4, 3, 2, 1).is_none());
    assert!(MatMut::new(&mut d, 0, 1, 12, 0, 1).is_some());
    assert!(MatMut::new(&mut d, 0, 12, 1, 1, 0).is_some());
    assert!(MatMut::new(&mut d, 11, 3, 4, -4, -1).is_some());
    // Interleaved strides: refused only when two elements really collide.
    let mut big = [0.0f64; 20];
    assert!(MatMut::new(&mut big, 0, 4, 2, 2, 3).is_some());
    assert!(MatMut::new(&mut big, 0, 4, 3, 2, 3).is_none()); // (3, 0) is (0, 2)
    assert!(MatMut::new(&mut big, 0, 3, 3, 2, 4).is_none()); // (2, 0) is (0, 1)
                                                             // Out of bounds is refused for outputs too.
    assert!(MatMut::new(&mut d, 1, 3, 4, 4, 1).is_none());
}

#[test]
#[should_panic(expected = "gemm: A is 2x3, B is 2x2")]
fn shape_mismatch_panics() {
    let d = [0.0f32; 6];
    let mut c = [0.0f32; 4];
    let a = MatRef::new(&d, 0, 2, 3, 3, 1).unwrap();
    let b = MatRef::new(&d, 0, 2, 2, 2, 1).unwrap();
    gemm(
        1.0,
        a,
        b,
        0.0,
        MatMut::new(&mut c, 0, 2, 2, 2, 1).unwrap(),
        1,
    );
}

#[cfg(unix)]
mod fence {
    //! Operands and output whose windows end exactly at a PROT_NONE page (or start
    //! right after one): reading or writing one element too far faults.
    use super::*;

    use common::fenced::{AnyBits, At, Fenced};

    /// `n` elements ending at the upper guard page (`tail`) or starting right after
    /// the lower one, filled with `fill`.
    fn fenced_slice<T: AnyBits>(f: &mut Fenced, n: usize, tail: bool, fill: T) -> &mut [T] {
        let s = f.slice::<T>(if tail { At::Tail } else { At::Head }, n);
        s.fill(fill);
        s
    }

    fn fenced<T: Elem + AnyBits>() {
        let (mr, nr) = max_tile::<T>();
        let (dr, dc) = max_direct_tile::<T>();
        let mut fa = Fenced::new(1 << 16);
        let mut fb = Fenced::new(1 << 16);
        let mut fc = Fenced::new(1 << 16);
        // The packed (B panels packed, or read in place when they can be), small and
        // direct paths (B read in place, or copied to aligned rows first).
        let paths = [
            (Some(false), Some(false), Some(false), None),
            (Some(false), Some(false), Some(true), None),
            (Some(true), Some(false), None, None),
            (None, Some(true), None, Some(false)),
            (None, Some(true), None, Some(true)),
        ];
        let shapes = [
            (2 * mr + 1, nr + 1, 9),
            // Row-major, the transposed product's B is A, read in place: its last
            // full panel ends at A's last element.
            (2 * nr, mr + 1, 9),
            (3, 2, 5),
            (mr, nr, 1),
            (dr + 1, 2 * dc + 3, 7),
            (2 * dr + 3, dc - 1, 3),
        ];
        each_tier(|tier| {
            for (m, n, k) in shapes {
                for tail in [true, false] {
                    // Row-major, column-major, and row-major with B stored
                    // transposed (the kernel's A panels gathered from B's rows);
                    // k-blocks of 4 and of 9 (the gathers' vector steps and their
                    // remainders).
                    for (layout, kc) in [0, 1, 2].into_iter().flat_map(|l| [(l, 4), (l, 9)]) {
                        for (small_path, direct_path, b_in_place, direct_align_b) in paths {
                            for beta in [0.0, 1.0] {
                                let two = T::from_f64(2.0);
                                let a = fenced_slice::<T>(&mut fa, m * k, tail, two);
                                let b = fenced_slice::<T>(&mut fb, k * n, tail, two);
                                let c0 = if beta == 0.0 { f64::NAN } else { 3.0 };
                                let c = fenced_slice::<T>(&mut fc, m * n, !tail, T::from_f64(c0));
                                let (am, bm, cm) = match layout {
                                    1 => (
                                        MatRef::new(a, 0, m, k, 1, m as isize),
                                        MatRef::new(b, 0, k, n, 1, k as isize),
                                        MatMut::new(c, 0, m, n, 1, m as isize),
                                    ),
                                    2 => (
                                        MatRef::new(a, 0, m, k, k as isize, 1),
                                        MatRef::new(b, 0, k, n, 1, k as isize),
                                        MatMut::new(c, 0, m, n, n as isize, 1),
                                    ),
                                    _ => (
                                        MatRef::new(a, 0, m, k, k as isize, 1),
                                        MatRef::new(b, 0, k, n, n as isize, 1),
                                        MatMut::new(c, 0, m, n, n as isize, 1),
                                    ),
                                };
                                let tuning = Tuning {
                                    small_path,
                                    direct_path,
                                    b_in_place,
                                    narrow: b_in_place.map(|_| true),
                                    kc: Some(kc),
                                    direct_align_b,
                                    ..Tuning::default()
                                };
                                let one = T::from_f64(1.0);
                                gemm_tuned(
                                    tier,
                                    &tuning,
                                    one,
                                    am.unwrap(),
                                    bm.unwrap(),
                                    T::from_f64(beta),
                                    cm.unwrap(),
                                    1,
                                )
                                .unwrap();
                                let want = T::from_f64(4.0 * k as f64 + beta * 3.0);
                                assert!(
                                    c.iter().all(|&x| x == want),
                                    "{} {tier} {m}x{n}x{k} layout {layout} {tuning:?} beta {beta}",
                                    T::NAME
                                );
                            }
                        }
                    }
                }
            }
        });
    }

    per_float!(fenced: fenced_f32, fenced_f64);
}

/// The register path (every side at most 32, any strides): every shape 1..=33 in m,
/// n and k (33 leaves it) at every tier, exactly on integer data, the layouts,
/// alpha and beta cycling (transposed, gapped, reversed and broadcast operands), k
/// in one block or several.
fn register_every_shape<T: Elem>() {
    let mut rng = XorShift(0x0123_4567_89ab_cdef);
    common::each_tier(|tier| {
        let mut pick = 0usize;
        for m in 1..=33 {
            for n in 1..=33 {
                for k in 1..=33 {
                    pick += 1;
                    let case = Case::serial(
                        tier,
                        (m, n, k),
                        (ALPHAS[1 + pick % 3], ALPHAS[pick / 3 % 4]),
                        (
                            INPUT_LAYS[pick % 7],
                            INPUT_LAYS[pick / 7 % 7],
                            OUTPUT_LAYS[pick / 49 % 5],
                        ),
                    );
                    // Every third product in k-blocks of 7 (the later blocks add).
                    let tuning = Tuning {
                        kc: pick.is_multiple_of(3).then_some(7),
                        ..Tuning::default()
                    };
                    check_exact::<T>(case, &tuning, &mut rng);
                }
            }
        }
    });
}

per_float!(register_every_shape: register_every_shape_exact_f32, register_every_shape_exact_f64);

/// The packed path alone (the register and direct paths off): the reference the
/// other paths' bits are held to.
fn packed_only() -> Tuning {
    Tuning {
        small_path: Some(false),
        direct_path: Some(false),
        ..Tuning::default()
    }
}

/// The `(alpha, beta)` pairs of the tiny entries' tests: 1 and other values, beta
/// 0 (C starts as NaN, which must not be read) and alpha 0.
const ALPHA_BETA: [(f64, f64); 5] = [
    (1.0, 0.0),
    (1.25, 0.0),
    (-0.75, 1.0),
    (1.0, -0.5),
    (0.0, 0.5),
];

/// Every `(m, n, k)` with each side in `sides`.
fn shapes(sides: std::ops::RangeInclusive<usize>) -> impl Iterator<Item = (usize, usize, usize)> {
    let (lo, hi) = (*sides.start(), *sides.end());
    (lo..=hi).flat_map(move |m| (lo..=hi).flat_map(move |n| (lo..=hi).map(move |k| (m, n, k))))
}

/// Random finite A (`m x k`), B (`k x n`) and the C (`m x n`) a product with
/// `beta` updates, laid out as `lays`: C full of NaN when `beta` is 0 (reading it
/// would show).
fn random_operands<T: Elem>(
    rng: &mut XorShift,
    (m, n, k): (usize, usize, usize),
    lays: (Lay, Lay, Lay),
    beta: f64,
) -> [Stored<T>; 3] {
    let a = Stored::new(lays.0, m, k, |_, _| T::random_finite(rng));
    let b = Stored::new(lays.1, k, n, |_, _| T::random_finite(rng));
    let c = Stored::new(lays.2, m, n, |_, _| {
        if beta == 0.0 {
            T::from_f64(f64::NAN)
        } else {
            T::random_finite(rng)
        }
    });
    [a, b, c]
}

/// The bits of C's buffer after `C = alpha A B + beta C` on `[a, b, c]` (C copied,
/// one thread) at `tier`: by `gemm_with_tier` (the tiny entry first) when `tuning`
/// is `None`, else by `gemm_tuned`; the canaries checked.
fn product_bits<T: Elem>(
    tier: Tier,
    tuning: Option<&Tuning>,
    (alpha, beta): (T, T),
    [a, b, c]: &[Stored<T>; 3],
) -> Vec<u64> {
    let mut c = c.clone();
    let (av, bv, cv) = (a.view(), b.view(), c.view_mut());
    match tuning {
        None => gemm_with_tier(tier, alpha, av, bv, beta, cv, 1).unwrap(),
        Some(t) => gemm_tuned(tier, t, alpha, av, bv, beta, cv, 1).unwrap(),
    }
    assert!(c.canaries_intact(), "{} {tier}: wrote past C", T::NAME);
    c.bits()
}

/// The register path gives the packed path's bits on random data (fused where the
/// tier fuses, k summed in the same order, `alpha * acc + beta * c` written the
/// same way), whatever the layouts, whichever form it runs in and whether it copies
/// B or C through its buffers.
fn register_same_bits_as_packed<T: Elem>() {
    let mut rng = XorShift(0x7777_1234_4321_7777);
    common::each_tier(|tier| {
        for (m, n, k) in [
            (1, 1, 1),
            (2, 2, 2),
            (3, 17, 5),
            (8, 8, 8),
            (16, 16, 16),
            (17, 3, 32),
            (32, 32, 32),
            (5, 32, 31),
            (32, 7, 9),
        ] {
            for lays in [
                (Lay::Row, Lay::Row, Lay::Row),
                (Lay::Col, Lay::Col, Lay::Col),
                (Lay::Gapped, Lay::Reversed, Lay::Mixed),
                (Lay::BroadcastCols, Lay::RowsReversed, Lay::Gapped),
            ] {
                for beta in [0.0, -0.5] {
                    let ops = random_operands::<T>(&mut rng, (m, n, k), lays, beta);
                    let ab = (T::from_f64(1.25), T::from_f64(beta));
                    assert!(
                        product_bits(tier, Some(&Tuning::default()), ab, &ops)
                            == product_bits(tier, Some(&packed_only()), ab, &ops),
                        "{} {m}x{n}x{k} {lays:?} beta {beta}",
                        T::NAME
                    );
                }
            }
        }
    });
}

per_float!(
    register_same_bits_as_packed: register_same_bits_as_packed_f32,
    register_same_bits_as_packed_f64
);

/// The tiny entry (`gemm_with_tier` on every side at most 8) gives the packed and
/// direct paths' bits on random data at every tier: every m, n, k in 1..=9 (9 takes
/// the general path), alpha and beta 0, 1 and others, NaN in C with beta 0, and
/// contiguous, transposed, strided and broadcast views.
fn tiny_same_bits_as_general<T: Elem>() {
    let mut rng = XorShift(0x5151_2468_8642_1515);
    // The direct path where the layouts allow it, else the packed one.
    let direct = Tuning {
        direct_path: Some(true),
        small_path: Some(false),
        ..Tuning::default()
    };
    common::each_tier(|tier| {
        for (m, n, k) in shapes(1..=9) {
            for lays in [
                (Lay::Row, Lay::Row, Lay::Row),
                (Lay::Col, Lay::Col, Lay::Col),
                (Lay::Row, Lay::Col, Lay::Gapped),
                (Lay::Gapped, Lay::Reversed, Lay::Mixed),
                (Lay::BroadcastCols, Lay::RowsReversed, Lay::Col),
            ] {
                for (alpha, beta) in ALPHA_BETA {
                    let ops = random_operands::<T>(&mut rng, (m, n, k), lays, beta);
                    let ab = (T::from_f64(alpha), T::from_f64(beta));
                    let tiny = product_bits(tier, None, ab, &ops);
                    for general in [&packed_only(), &direct] {
                        assert!(
                            tiny == product_bits(tier, Some(general), ab, &ops),
                            "{tier:?} {} {m}x{n}x{k} {lays:?} alpha {alpha} beta {beta}",
                            T::NAME
                        );
                    }
                }
            }
        }
    });
}

per_float!(tiny_same_bits_as_general: tiny_same_bits_as_general_f32, tiny_same_bits_as_general_f64);

/// The slice entry (`gemm_tiny_rows`, the active tier's fixed-width kernels; run
/// under each `NDSIMD_TIER`) gives the packed path's bits for every m, n, k in
/// 1..=8, alpha and beta 0, 1 and others, NaN in C with beta 0 (not read), and
/// declines (C untouched) a side of 0 or 9, alpha 0 and slices of other lengths.
fn tiny_rows_same_bits_as_packed<T: Elem>() {
    let mut rng = XorShift(0x7155_0202_9e37_79b9);
    let tier = ndsimd_kernels::active_tier();
    let row = (Lay::Row, Lay::Row, Lay::Row);
    for (m, n, k) in shapes(0..=9) {
        for (alpha, beta) in ALPHA_BETA {
            let mut ops = random_operands::<T>(&mut rng, (m, n, k), row, beta);
            let ab = (T::from_f64(alpha), T::from_f64(beta));
            let [mut a, mut b, mut c] = ops.clone();
            let (a, b) = (a.rows_slice(), b.rows_slice());
            let took = gemm_tiny_rows(ab.0, a, b, ab.1, c.rows_slice(), (m, k, n));
            let fits = (1..=8).contains(&m) && (1..=8).contains(&n) && (1..=8).contains(&k);
            let what = format!("{tier:?} {} {m}x{n}x{k} alpha {alpha} beta {beta}", T::NAME);
            assert_eq!(took, fits && alpha != 0.0, "{what}");
            if !took {
                assert_eq!(c.bits(), ops[2].bits(), "{what}: declined, C untouched");
                continue;
            }
            assert_eq!(
                c.bits(),
                product_bits(tier, Some(&packed_only()), ab, &ops),
                "{what}"
            );
            if m * k > 1 {
                let short = &a[..m * k - 1];
                let c = ops[2].rows_slice();
                assert!(
                    !gemm_tiny_rows(ab.0, short, b, ab.1, c, (m, k, n)),
                    "{what}"
                );
            }
        }
    }
}

per_float!(
    tiny_rows_same_bits_as_packed: tiny_rows_same_bits_as_packed_f32,
    tiny_rows_same_bits_as_packed_f64
);
