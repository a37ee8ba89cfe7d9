//! The matrix products against the FMA peak, matvec and vdot against the read
//! ceiling.

use super::runner::Runner;
use super::*;
use ndsimd::s;

/// Small integers as floats: every product and sum of a benchmark GEMM is exact, so
/// the result can be checked exactly before the clock.
fn ints<T: ndsimd::Element>(n: usize, seed: u64) -> Vec<T> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            T::from_i64((s % 7) as i64 - 3).unwrap()
        })
        .collect()
}

/// Checks `c = a @ b` exactly on a sample of rows (all of them when small).
fn check_matmul<T: ndsimd::Element>(a: &Array<T>, b: &Array<T>, c: &Array<T>, what: &str) {
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    let (sa, sb, sc) = (a.to_vec(), b.to_vec(), c.to_vec());
    for i in (0..m).step_by(m.div_ceil(16).max(1)) {
        for j in 0..n {
            let want = (0..k).fold(T::zero(), |acc, p| acc + sa[i * k + p] * sb[p * n + j]);
            assert!(
                sc[i * n + j] == want,
                "bench {what}: wrong result at ({i}, {j})"
            );
        }
    }
}

/// The GEMM table on `threads` threads: `matmul_into` (β = 0, preallocated output)
/// against the micro-kernel's own multiply-add loop doing the same flops with its
/// operands in registers (`peak`), split over the pool the same way: the ratio is
/// the fraction of the machine's FMA peak reached.
pub fn matmuls(r: &mut Runner, threads: usize) {
    use ndsimd_kernels::gemm::fma_peak;
    let tier = ndsimd_kernels::active_tier();
    fn case<T: ndsimd::Element + ndsimd_kernels::gemm::GemmElement>(
        r: &mut Runner,
        name: &str,
        (m, k, n): (usize, usize, usize),
        transpose_b: bool,
        threads: usize,
        tier: ndsimd_kernels::Tier,
    ) {
        if !r.wants(name) {
            return;
        }
        let a = fresh_shaped(&[m, k], ints::<T>(m * k, 3));
        let b_store = if transpose_b {
            fresh_shaped(&[n, k], ints::<T>(k * n, 5))
        } else {
            fresh_shaped(&[k, n], ints::<T>(k * n, 5))
        };
        let b = if transpose_b {
            b_store.t().to_owned()
        } else {
            b_store.clone()
        };
        let bv = if transpose_b {
            b_store.t()
        } else {
            b_store.view()
        };
        let mut c = Array::<T>::zeros(&[m, n]);
        a.matmul_into(&bv, T::one(), T::zero(), &mut c).unwrap();
        check_matmul(&a, &b, &c, name);
        let flops = 2 * m * n * k;
        let (per_round, _) = fma_peak::<T>(tier, 1, T::one()).unwrap();
        let rounds = (flops as u64 / per_round).max(1) as usize;
        let parts = threads.max(1);
        r.row(
            name,
            m.max(n),
            flops,
            "peak",
            &mut || {
                a.matmul_into(&bv, T::one(), T::zero(), black_box(&mut c))
                    .unwrap()
            },
            &mut || {
                ndsimd_kernels::pool::run(parts, &|_| {
                    black_box(fma_peak::<T>(tier, rounds / parts, black_box(T::one())));
                })
            },
        );
    }
    // Small squares take the register path (no packing, no blocking): their
    // set-up is their cost.
    for n in [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] {
        case::<f64>(r, "matmul f64", (n, n, n), false, threads, tier);
    }
    // A skinny tiny product: the tiny entry (at most 8 on every side), B's rows
    // shorter than a vector.
    case::<f64>(r, "matmul f64 n=2", (8, 8, 2), false, threads, tier);
    for n in [256, 1024] {
        case::<f32>(r, "matmul f32", (n, n, n), false, threads, tier);
    }
    case::<f64>(r, "matmul f64 a·bᵀ", (512, 512, 512), true, threads, tier);
    case::<f64>(
        r,
        "matmul f64 k=256",
        (1024, 256, 1024),
        false,
        threads,
        tier,
    );
    // A few rows times a wide matrix (a batch of 16 vectors through a 1024 -> 4096
    // layer): each element of B serves 16 rows only, so packing it is the cost.
    case::<f64>(r, "matmul f64 m=16", (16, 1024, 4096), false, threads, tier);
    // Many rows into a few columns (4096 vectors through a 1024 -> 16 layer): the
    // narrow form packs each panel of B right before its tiles.
    case::<f64>(r, "matmul f64 n=16", (4096, 1024, 16), false, threads, tier);
    // A small C from a long k (16 x 16 sums of 65536 products each): the direct
    // path, KC block by KC block, rows over the pool.
    case::<f64>(
        r,
        "matmul f64 k=65536",
        (16, 65536, 16),
        false,
        threads,
        tier,
    );
    // Batches of 1000 products of 16x16 and of 8x8 matrices (one call: the
    // batched GEMM, the products spread over the pool), against the same peak loop.
    for d in [16, 8] {
        let name = format!("matmul f64 1000x{d}²");
        if !r.wants(&name) {
            continue;
        }
        let b = 1000;
        let a = fresh_shaped(&[b, d, d], ints::<f64>(b * d * d, 3));
        let x = fresh_shaped(&[b, d, d], ints::<f64>(b * d * d, 5));
        let mut c = Array::<f64>::zeros(&[b, d, d]);
        a.matmul_into(&x, 1.0, 0.0, &mut c).unwrap();
        for q in [0, b / 2, b - 1] {
            let (aq, xq) = (
                a.slice(s![q, .., ..]).unwrap(),
                x.slice(s![q, .., ..]).unwrap(),
            );
            let want = aq.to_owned().matmul(&xq.to_owned()).unwrap();
            same(
                &c.slice(s![q, .., ..]).unwrap().to_vec(),
                &want.to_vec(),
                "batch",
            );
        }
        let flops = 2 * b * d * d * d;
        let (per_round, _) = fma_peak::<f64>(tier, 1, 1.0).unwrap();
        let rounds = (flops as u64 / per_round).max(1) as usize;
        let parts = threads.max(1);
        r.row(
            &name,
            b,
            flops,
            "peak",
            &mut || a.matmul_into(&x, 1.0, 0.0, black_box(&mut c)).unwrap(),
            &mut || {
                ndsimd_kernels::pool::run(parts, &|_| {
                    black_box(fma_peak::<f64>(tier, rounds / parts, black_box(1.0)));
                })
            },
        );
    }
    // Matrix times vector: one pass over the matrix, so the anchor is the read
    // ceiling over it (split over the pool the same way).
    let n = 1024;
    if r.wants("matvec f64") {
        let a = fresh_shaped(&[n, n], ints::<f64>(n * n, 3));
        let x = Array::from_vec(ints::<f64>(n, 5));
        let mut y = Array::<f64>::zeros(&[n]);
        a.matmul_into(&x, 1.0, 0.0, &mut y).unwrap();
        let (sa, sx) = (a.as_slice().unwrap(), x.as_slice().unwrap());
        let want: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|p| sa[i * n + p] * sx[p]).sum())
            .collect();
        same(y.as_slice().unwrap(), &want, "matvec f64");
        let parts = threads.max(1);
        r.row(
            "matvec f64",
            n,
            2 * n * n,
            "ceiling",
            &mut || a.matmul_into(&x, 1.0, 0.0, black_box(&mut y)).unwrap(),
            &mut || pool_read(&[sa], parts),
        );
    }
    // The 1-D dot product of 2^20 elements (`vdot`), against the read ceiling of
    // both vectors split over the pool the same way.
    let n = 1 << 20;
    if r.wants("vdot f64") {
        let (x, y) = (fresh(ints::<f64>(n, 7)), fresh(ints::<f64>(n, 8)));
        let (sx, sy) = (x.as_slice().unwrap(), y.as_slice().unwrap());
        let exact: f64 = sx.iter().zip(sy).map(|(p, q)| p * q).sum();
        assert_eq!(x.vdot(&y).unwrap(), exact, "bench vdot");
        let parts = threads.max(1);
        r.row(
            "vdot f64",
            n,
            2 * n,
            "ceiling",
            &mut || {
                black_box(x.vdot(&y).unwrap());
            },
            &mut || pool_read(&[sx, sy], parts),
        );
    }
}
