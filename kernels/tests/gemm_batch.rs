//! Batched GEMM: every product of a batch (broadcast operands, several batch axes,
//! transposed and strided matrices, tiny and larger products, serial and spread
//! over the pool) gives the bits of the same product run alone, at every tier; the
//! batch views refuse what lies out of bounds or overlaps.

mod common;

use common::{each_tier, TestFloat, XorShift};
use ndsimd_kernels::gemm::{
    gemm_batch_with_tier, gemm_with_tier, BatchMut, BatchRef, GemmElement, MatMut, MatRef,
};
use ndsimd_kernels::pool;

trait Elem: TestFloat + GemmElement {}
impl<T: TestFloat + GemmElement> Elem for T {}

fn random<T: Elem>(rng: &mut XorShift) -> T {
    T::from_f64((rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
}

/// One operand's layout: batch strides and matrix strides, in a buffer `len` long.
struct Lay {
    strides: Vec<isize>,
    rs: isize,
    cs: isize,
    len: usize,
}

/// Products stored one after another (`gap` spare elements after each), rows
/// contiguous or (`col`) columns; a batch axis whose `bcast` is set has stride 0.
fn lay(batch: &[usize], bcast: &[bool], rows: usize, cols: usize, col: bool, gap: usize) -> Lay {
    let (rs, cs) = if col {
        (1, rows as isize)
    } else {
        (cols as isize, 1)
    };
    let mut strides = vec![0isize; batch.len()];
    let mut step = (rows * cols + gap) as isize;
    for x in (0..batch.len()).rev() {
        if !bcast[x] {
            strides[x] = step;
            step *= batch[x] as isize;
        }
    }
    Lay {
        strides,
        rs,
        cs,
        len: step as usize,
    }
}

fn batch_matches_single<T: Elem>() {
    pool::set_num_threads(pool::num_threads().max(2));
    let mut rng = XorShift(0x0b47_c4ed_9e44_1111);
    each_tier(|tier| {
        for (batch, a_b, b_b) in [
            (vec![5], vec![false], vec![false]),
            (vec![2, 3], vec![false, true], vec![true, false]),
            (
                vec![3, 1, 2],
                vec![false, false, false],
                vec![true, true, false],
            ),
            (vec![1000], vec![false], vec![false]),
        ] {
            for (m, n, k) in [
                (1, 1, 1),
                (8, 8, 8),
                (3, 7, 5),
                (8, 1, 2),
                (3, 17, 5),
                (16, 16, 16),
                (33, 9, 40),
            ] {
                if batch == [1000] && m > 16 {
                    continue;
                }
                let count: usize = batch.iter().product();
                // `col`: A and C by columns, B by rows, or the other way round;
                // `same`: B as A (all row-major: the tiny kernels' layout).
                for (col, same, beta, threads) in [
                    (false, false, 0.0, 1),
                    (true, false, -0.5, 2),
                    (false, false, 1.0, 2),
                    (false, true, 0.0, 1),
                    (false, true, -0.5, 2),
                ] {
                    let la = lay(&batch, &a_b, m, k, col, 1);
                    let lb = lay(&batch, &b_b, k, n, col == same, 0);
                    let lc = lay(&batch, &vec![false; batch.len()], m, n, col, 2);
                    let av: Vec<T> = (0..la.len).map(|_| random(&mut rng)).collect();
                    let bv: Vec<T> = (0..lb.len).map(|_| random(&mut rng)).collect();
                    let c0: Vec<T> = (0..lc.len).map(|_| random(&mut rng)).collect();
                    let (al, be) = (T::from_f64(1.25), T::from_f64(beta));
                    let mut c = c0.clone();
                    let a = BatchRef::new(&av, 0, &batch, &la.strides, m, k, la.rs, la.cs).unwrap();
                    let b = BatchRef::new(&bv, 0, &batch, &lb.strides, k, n, lb.rs, lb.cs).unwrap();
                    let cm =
                        BatchMut::new(&mut c, 0, &batch, &lc.strides, m, n, lc.rs, lc.cs).unwrap();
                    gemm_batch_with_tier(tier, al, a, b, be, cm, threads).unwrap();
                    // Each product alone, at its offsets.
                    let mut want = c0.clone();
                    for q in 0..count {
                        let (mut r, mut off) = (q, [0isize; 3]);
                        for x in (0..batch.len()).rev() {
                            let i = (r % batch[x]) as isize;
                            r /= batch[x];
                            off[0] += i * la.strides[x];
                            off[1] += i * lb.strides[x];
                            off[2] += i * lc.strides[x];
                        }
                        let a1 = MatRef::new(&av, off[0] as usize, m, k, la.rs, la.cs).unwrap();
                        let b1 = MatRef::new(&bv, off[1] as usize, k, n, lb.rs, lb.cs).unwrap();
                        let c1 =
                            MatMut::new(&mut want, off[2] as usize, m, n, lc.rs, lc.cs).unwrap();
                        gemm_with_tier(tier, al, a1, b1, be, c1, 1).unwrap();
                    }
                    let bits = |v: &[T]| v.iter().map(|x| x.bits()).collect::<Vec<_>>();
                    assert!(
                        bits(&c) == bits(&want),
                        "{} batch {batch:?} {m}x{n}x{k} col {col} same {same} beta {beta} threads {threads}",
                        T::NAME
                    );
                }
            }
        }
    });
}

#[test]
fn batch_matches_single_f32() {
    batch_matches_single::<f32>();
}

#[test]
fn batch_matches_single_f64() {
    batch_matches_single::<f64>();
}

#[test]
fn batch_views_refuse_out_of_bounds_and_overlap() {
    let mut data = [0.0f64; 24];
    // Three 2x3 row-major products, 6 apart: exactly 18 elements.
    assert!(BatchRef::new(&data, 6, &[3], &[6], 2, 3, 3, 1).is_some());
    assert!(BatchRef::new(&data, 7, &[3], &[6], 2, 3, 3, 1).is_none());
    assert!(BatchRef::new(&data, 0, &[3], &[6, 1], 2, 3, 3, 1).is_none());
    // A negative batch stride reaching before the start.
    assert!(BatchRef::new(&data, 6, &[3], &[-6], 2, 3, 3, 1).is_none());
    assert!(BatchRef::new(&data, 12, &[3], &[-6], 2, 3, 3, 1).is_some());
    // A broadcast input is fine; a broadcast output, or products 5 apart, overlap.
    assert!(BatchRef::new(&data, 0, &[4], &[0], 2, 3, 3, 1).is_some());
    assert!(BatchMut::new(&mut data, 0, &[4], &[0], 2, 3, 3, 1).is_none());
    assert!(BatchMut::new(&mut data, 0, &[3], &[5], 2, 3, 3, 1).is_none());
    assert!(BatchMut::new(&mut data, 0, &[3], &[6], 2, 3, 3, 1).is_some());
    // Two batch axes, the inner one stepping past the matrix, the outer past both.
    assert!(BatchMut::new(&mut data, 0, &[2, 2], &[12, 6], 2, 3, 3, 1).is_some());
    assert!(BatchMut::new(&mut data, 0, &[2, 2], &[6, 6], 2, 3, 3, 1).is_none());
    // Empty batches and matrices are always accepted.
    assert!(BatchMut::new(&mut data, 100, &[0], &[6], 2, 3, 3, 1).is_some());
}

#[test]
#[should_panic(expected = "gemm_batch: A is [2] x 2x3")]
fn batch_shape_mismatch_panics() {
    let (a, b) = ([0.0f32; 12], [0.0f32; 12]);
    let mut c = [0.0f32; 12];
    gemm_batch_with_tier(
        ndsimd_kernels::Tier::Scalar,
        1.0,
        BatchRef::new(&a, 0, &[2], &[6], 2, 3, 3, 1).unwrap(),
        BatchRef::new(&b, 0, &[2], &[6], 2, 3, 3, 1).unwrap(),
        0.0,
        BatchMut::new(&mut c, 0, &[2], &[6], 2, 3, 3, 1).unwrap(),
        1,
    );
}
