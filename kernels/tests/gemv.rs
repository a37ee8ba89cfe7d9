//! Matrix times vector (`gemm::gemv`) on every tier the host has, f32 and f64:
//! exact on integer data against a plain loop at every row count around the 4-row
//! groups and every length around the vector widths, `beta == 0` never reading y,
//! strided y, the gemm fallback for other layouts, random data within the error
//! bound, results independent of the row grouping and of the thread count, and
//! operands ending at guard pages.

mod common;

use common::fenced::{AnyBits, At, Fenced};
use common::{each_tier, TestFloat, XorShift};
use ndsimd_kernels::gemm::{gemv, gemv_with_tier, GemmElement, MatMut, MatRef};
use ndsimd_kernels::pool;

trait Elem: TestFloat + GemmElement + AnyBits {}
impl<T: TestFloat + GemmElement + AnyBits> Elem for T {}

fn small_int<T: Elem>(rng: &mut XorShift) -> T {
    T::from_f64((rng.next() % 9) as f64 - 4.0)
}

fn uniform<T: Elem>(rng: &mut XorShift) -> T {
    T::from_f64((rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
}

/// `alpha * A x + beta * y` in f64 (exact for the integer data used with it).
#[allow(clippy::too_many_arguments)]
fn reference<T: Elem>(
    m: usize,
    k: usize,
    a: &[T],
    lda: usize,
    x: &[T],
    alpha: f64,
    beta: f64,
    y: &[f64],
) -> Vec<f64> {
    (0..m)
        .map(|i| {
            let d: f64 = (0..k)
                .map(|p| a[i * lda + p].to_f64() * x[p].to_f64())
                .sum();
            let t = alpha * d;
            if beta == 0.0 {
                t
            } else {
                t + beta * y[i]
            }
        })
        .collect()
}

/// Every m in 0..=9, every k in 0..=35 (past two AVX-512 f32 vectors plus a tail),
/// row gaps, y with stride 2 and canaries between, four alpha/beta pairs: exact.
fn exact<T: Elem>() {
    let mut rng = XorShift(0x5eed_0001);
    each_tier(|tier| {
        for m in 0..=9 {
            for k in 0..=35 {
                for (alpha, beta) in [(1.0, 0.0), (2.0, 0.0), (1.0, 1.0), (-1.5, 2.0)] {
                    let lda = k + 3;
                    let a: Vec<T> = (0..m * lda).map(|_| small_int(&mut rng)).collect();
                    let x: Vec<T> = (0..k).map(|_| small_int(&mut rng)).collect();
                    let y0: Vec<f64> = (0..m).map(|i| i as f64 - 3.0).collect();
                    // y at stride 2; the odd slots hold canaries; NaN when beta == 0.
                    let mut y: Vec<T> = vec![T::canary(); 2 * m + 1];
                    for i in 0..m {
                        y[2 * i] = if beta == 0.0 {
                            T::from_f64(f64::NAN)
                        } else {
                            T::from_f64(y0[i])
                        };
                    }
                    let want = reference(m, k, &a, lda, &x, alpha, beta, &y0);
                    let am = MatRef::new(&a, 0, m, k, lda as isize, 1).unwrap();
                    let xm = MatRef::new(&x, 0, k, 1, 1, 1).unwrap();
                    let ym = MatMut::new(&mut y, 0, m, 1, 2, 1).unwrap();
                    let (al, be) = (T::from_f64(alpha), T::from_f64(beta));
                    gemv_with_tier(tier, al, am, xm, be, ym, 1).unwrap();
                    for i in 0..m {
                        assert_eq!(
                            y[2 * i].to_f64(),
                            want[i],
                            "{tier} {} m {m} k {k} alpha {alpha} beta {beta}: row {i}",
                            T::NAME
                        );
                        assert_eq!(y[2 * i + 1].bits(), T::canary().bits(), "canary {i}");
                    }
                    assert_eq!(y[2 * m].bits(), T::canary().bits(), "canary at the end");
                }
            }
        }
    });
}

#[test]
fn exact_f32() {
    exact::<f32>();
}

#[test]
fn exact_f64() {
    exact::<f64>();
}

/// Random data within `(k + 2)·ε·Σ|a||x|` of the f64 reference; each row the same bits
/// as that row computed alone (grouping does not matter) and the same for 1, 2 and 3
/// threads; a column-major A and a strided x (the gemm fallback) agree within the bound.
fn random<T: Elem>() {
    let mut rng = XorShift(0x5eed_0002);
    each_tier(|tier| {
        for (m, k) in [(1, 1000), (7, 333), (403, 301), (1030, 130)] {
            let a: Vec<T> = (0..m * k).map(|_| uniform(&mut rng)).collect();
            let x: Vec<T> = (0..k).map(|_| uniform(&mut rng)).collect();
            let am = MatRef::new(&a, 0, m, k, k as isize, 1).unwrap();
            let xm = MatRef::new(&x, 0, k, 1, 1, 1).unwrap();
            let run = |threads: usize| -> Vec<T> {
                let mut y = vec![T::from_f64(f64::NAN); m];
                let ym = MatMut::new(&mut y, 0, m, 1, 1, 1).unwrap();
                pool::with_threads(threads, || {
                    gemv_with_tier(tier, T::ONE, am, xm, T::ZERO, ym, threads).unwrap()
                });
                y
            };
            let one = run(1);
            for threads in [2, 3] {
                let other = run(threads);
                assert!(
                    one.iter().zip(&other).all(|(p, q)| p.bits() == q.bits()),
                    "{tier} {} {m}x{k}: {threads} threads differ from 1",
                    T::NAME
                );
            }
            let eps = T::EPS;
            for i in 0..m {
                let row = &a[i * k..(i + 1) * k];
                let exact: f64 = row
                    .iter()
                    .zip(&x)
                    .map(|(p, q)| p.to_f64() * q.to_f64())
                    .sum();
                let scale: f64 = row
                    .iter()
                    .zip(&x)
                    .map(|(p, q)| (p.to_f64() * q.to_f64()).abs())
                    .sum();
                let bound = (k as f64 + 2.0) * eps * scale;
                assert!(
                    (one[i].to_f64() - exact).abs() <= bound,
                    "{tier} {} {m}x{k} row {i}: {} vs {exact}",
                    T::NAME,
                    one[i].to_f64()
                );
                // The row alone (a group of one) gives the same bits.
                let mut alone = [T::from_f64(f64::NAN)];
                let ri = MatRef::new(row, 0, 1, k, k as isize, 1).unwrap();
                let yi = MatMut::new(&mut alone, 0, 1, 1, 1, 1).unwrap();
                gemv_with_tier(tier, T::ONE, ri, xm, T::ZERO, yi, 1).unwrap();
                assert_eq!(alone[0].bits(), one[i].bits(), "{tier} row {i} alone");
            }
            // Column-major A (A's transpose read in place) and strided x: the fallback.
            let at: Vec<T> = (0..k * m).map(|j| a[(j % m) * k + j / m]).collect();
            let amt = MatRef::new(&at, 0, m, k, 1, m as isize).unwrap();
            let x2: Vec<T> = x.iter().flat_map(|&v| [v, T::canary()]).collect();
            let xs = MatRef::new(&x2, 0, k, 1, 2, 1).unwrap();
            let mut y = vec![T::ZERO; m];
            let ym = MatMut::new(&mut y, 0, m, 1, 1, 1).unwrap();
            gemv_with_tier(tier, T::ONE, amt, xs, T::ZERO, ym, 1).unwrap();
            for i in 0..m {
                let scale: f64 = (0..k)
                    .map(|p| (a[i * k + p].to_f64() * x[p].to_f64()).abs())
                    .sum();
                let bound = 2.0 * (k as f64 + 2.0) * eps * scale;
                assert!(
                    (y[i].to_f64() - one[i].to_f64()).abs() <= bound,
                    "fallback row {i}"
                );
            }
        }
    });
}

#[test]
fn random_f32() {
    random::<f32>();
}

#[test]
fn random_f64() {
    random::<f64>();
}

/// A, x and y ending exactly at a guard page (and starting right after one).
#[test]
fn fenced() {
    fn run<T: Elem>() {
        let mut rng = XorShift(0x5eed_0003);
        each_tier(|tier| {
            for (m, k) in [(5, 33), (4, 8), (1, 1), (9, 17)] {
                for at in [At::Tail, At::Head] {
                    let (mut fa, mut fx, mut fy) = (
                        Fenced::new(m * k * 8),
                        Fenced::new(k * 8),
                        Fenced::new(m * 8),
                    );
                    let a = fa.slice::<T>(at, m * k);
                    a.iter_mut().for_each(|v| *v = small_int(&mut rng));
                    let x = fx.slice::<T>(at, k);
                    x.iter_mut().for_each(|v| *v = small_int(&mut rng));
                    let want = reference(m, k, a, k, x, 1.0, 0.0, &[]);
                    let y = fy.slice::<T>(at, m);
                    y.fill(T::from_f64(f64::NAN));
                    let am = MatRef::new(a, 0, m, k, k as isize, 1).unwrap();
                    let xm = MatRef::new(x, 0, k, 1, 1, 1).unwrap();
                    let ym = MatMut::new(y, 0, m, 1, 1, 1).unwrap();
                    gemv_with_tier(tier, T::ONE, am, xm, T::ZERO, ym, 1).unwrap();
                    assert!(y.iter().zip(&want).all(|(g, w)| g.to_f64() == *w));
                }
            }
        });
    }
    run::<f32>();
    run::<f64>();
}

/// The public entry point on the active tier, serial and on the pool.
#[test]
fn gemv_on_the_active_tier() {
    let (m, k) = (300, 500);
    let a: Vec<f64> = (0..m * k).map(|i| (i % 7) as f64 - 3.0).collect();
    let x: Vec<f64> = (0..k).map(|i| (i % 5) as f64 - 2.0).collect();
    let want = reference(m, k, &a, k, &x, 1.0, 0.0, &[]);
    for threads in [1, 2] {
        let mut y = vec![f64::NAN; m];
        let am = MatRef::new(&a, 0, m, k, k as isize, 1).unwrap();
        let xm = MatRef::new(&x, 0, k, 1, 1, 1).unwrap();
        gemv(
            1.0,
            am,
            xm,
            0.0,
            MatMut::new(&mut y, 0, m, 1, 1, 1).unwrap(),
            threads,
        );
        assert_eq!(y, want);
    }
}
