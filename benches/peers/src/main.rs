//! ndsimd's matmul against faer and the ndarray crate (matrixmultiply), in one
//! process, interleaved: each round times every library once per case (samples of
//! at least 20 ms, median of 5), 5 rounds, medians reported in GFLOP/s. The three
//! results are checked equal (small-integer data: every sum is exact) first.
//!
//!     cd benches/peers
//!     NDSIMD_NUM_THREADS=1 MATMUL_NUM_THREADS=1 RAYON_NUM_THREADS=1 cargo run --release
//!     NDSIMD_NUM_THREADS=2 MATMUL_NUM_THREADS=2 RAYON_NUM_THREADS=2 cargo run --release
//!
//! The thread count comes from `NDSIMD_NUM_THREADS`; faer gets `Par::rayon(n)`,
//! matrixmultiply reads `MATMUL_NUM_THREADS` itself.
use std::hint::black_box;

mod timing;
use timing::median;

/// GFLOP/s of `f` doing `flops` (the shared timing rule).
fn time(f: &mut dyn FnMut(), flops: f64) -> f64 {
    flops / timing::secs(f) / 1e9
}

fn case<T>(n: usize, threads: usize, rounds: usize)
where
    T: ndsimd::Element + faer::traits::ComplexField + ndarray::LinalgScalar + Copy,
{
    let flops = 2.0 * (n as f64).powi(3);
    let val = |i: usize, s: usize| T::from_f64((((i * 7 + s) % 7) as f64) - 3.0).unwrap();
    let a = ndsimd::Array::from_shape_vec(&[n, n], (0..n * n).map(|i| val(i, 1)).collect()).unwrap();
    let b = ndsimd::Array::from_shape_vec(&[n, n], (0..n * n).map(|i| val(i, 2)).collect()).unwrap();
    let mut c = ndsimd::Array::<T>::zeros(&[n, n]);
    let fa = faer::Mat::<T>::from_fn(n, n, |i, j| val(i * n + j, 1));
    let fb = faer::Mat::<T>::from_fn(n, n, |i, j| val(i * n + j, 2));
    let mut fc = faer::Mat::<T>::zeros(n, n);
    let na = ndarray::Array2::<T>::from_shape_fn((n, n), |(i, j)| val(i * n + j, 1));
    let nb = ndarray::Array2::<T>::from_shape_fn((n, n), |(i, j)| val(i * n + j, 2));
    let mut nc = ndarray::Array2::<T>::zeros((n, n));
    let par = if threads > 1 { faer::Par::rayon(threads) } else { faer::Par::Seq };
    // Check the three agree before timing.
    a.matmul_into(&b, T::one(), T::zero(), &mut c).unwrap();
    faer::linalg::matmul::matmul(fc.as_mut(), faer::Accum::Replace, fa.as_ref(), fb.as_ref(), T::one(), par);
    ndarray::linalg::general_mat_mul(T::one(), &na, &nb, T::zero(), &mut nc);
    for i in (0..n).step_by(n / 8 + 1) {
        for j in 0..n {
            let x = *c.get(&[i, j]).unwrap();
            assert!(x == fc[(i, j)] && x == nc[[i, j]], "results differ at ({i}, {j})");
        }
    }
    let (mut o, mut f, mut m) = (vec![], vec![], vec![]);
    for _ in 0..rounds {
        o.push(time(&mut || a.matmul_into(&b, T::one(), T::zero(), black_box(&mut c)).unwrap(), flops));
        f.push(time(&mut || faer::linalg::matmul::matmul(fc.as_mut(), faer::Accum::Replace, fa.as_ref(), fb.as_ref(), T::one(), par), flops));
        m.push(time(&mut || ndarray::linalg::general_mat_mul(T::one(), &na, &nb, T::zero(), black_box(&mut nc)), flops));
    }
    let (mo, mf, mm) = (median(&mut o), median(&mut f), median(&mut m));
    println!("{:<4} {:>5} {:>2}T  ndsimd {:6.1}  faer {:6.1}  ndarray {:6.1}  vs best peer {:.2}",
        std::any::type_name::<T>(), n, threads, mo, mf, mm, mo / mf.max(mm));
}

fn main() {
    let threads: usize = std::env::var("NDSIMD_NUM_THREADS").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let rounds = 5;
    for n in [64, 128, 256, 512, 1024] {
        case::<f64>(n, threads, rounds);
    }
    case::<f32>(1024, threads, rounds);
}
