//! ndsimd's matmul against faer and the ndarray crate (matrixmultiply), all on
//! row-major operands (faer's as transposed views of its column-major matrices), in one
//! process, interleaved (squares, then three products with one small side): each
//! round times every library once per case (samples of at least 20 ms, median of
//! 5), 5 rounds, medians reported in GFLOP/s. The three
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

fn case<T>((m, k, n): (usize, usize, usize), threads: usize, rounds: usize)
where
    T: ndsimd::Element + faer::traits::ComplexField + ndarray::LinalgScalar + Copy,
{
    let flops = 2.0 * (m * k * n) as f64;
    let val = |i: usize, s: usize| T::from_f64((((i * 7 + s) % 7) as f64) - 3.0).unwrap();
    // Each library's operands on its own allocation (ours 64-byte aligned, as faer's;
    // ndarray's a `Vec`): on a caller's `Vec`, whose alignment is the allocator's,
    // the direct path's row loads split cache lines.
    let filled = |shape: [usize; 2], s: usize| {
        let mut x = ndsimd::Array::from_elem(&shape, T::zero());
        for (i, v) in x.as_slice_mut().unwrap().iter_mut().enumerate() {
            *v = val(i, s);
        }
        x
    };
    let (a, b) = (filled([m, k], 1), filled([k, n], 2));
    let mut c = ndsimd::Array::<T>::zeros(&[m, n]);
    // faer's matrices are column-major; its operands here are row-major views
    // (transposes of column-major matrices), the same memory layout as the other
    // two libraries' (a rectangular product is another problem in the other layout:
    // faer's column-major 16 x 1024 x 4096 is our row-major 4096 x 1024 x 16).
    let fat = faer::Mat::<T>::from_fn(k, m, |j, i| val(i * k + j, 1));
    let fbt = faer::Mat::<T>::from_fn(n, k, |j, i| val(i * n + j, 2));
    let mut fct = faer::Mat::<T>::zeros(n, m);
    let (fa, fb) = (fat.transpose(), fbt.transpose());
    let na = ndarray::Array2::<T>::from_shape_fn((m, k), |(i, j)| val(i * k + j, 1));
    let nb = ndarray::Array2::<T>::from_shape_fn((k, n), |(i, j)| val(i * n + j, 2));
    let mut nc = ndarray::Array2::<T>::zeros((m, n));
    let par = if threads > 1 {
        faer::Par::rayon(threads)
    } else {
        faer::Par::Seq
    };
    // Each library's product into its own output, for the check and the timing.
    let ours = |c: &mut ndsimd::Array<T>| a.matmul_into(&b, T::one(), T::zero(), c).unwrap();
    let theirs = |fct: &mut faer::Mat<T>| {
        faer::linalg::matmul::matmul(
            fct.transpose_mut(),
            faer::Accum::Replace,
            fa,
            fb,
            T::one(),
            par,
        )
    };
    let nd = |nc: &mut ndarray::Array2<T>| {
        ndarray::linalg::general_mat_mul(T::one(), &na, &nb, T::zero(), nc)
    };
    // Check the three agree before timing.
    ours(&mut c);
    theirs(&mut fct);
    nd(&mut nc);
    for i in (0..m).step_by(m / 8 + 1) {
        for j in 0..n {
            let x = *c.get(&[i, j]).unwrap();
            assert!(
                x == fct[(j, i)] && x == nc[[i, j]],
                "results differ at ({i}, {j})"
            );
        }
    }
    let (mut o, mut f, mut mm) = (vec![], vec![], vec![]);
    for _ in 0..rounds {
        o.push(time(&mut || ours(black_box(&mut c)), flops));
        f.push(time(&mut || theirs(black_box(&mut fct)), flops));
        mm.push(time(&mut || nd(black_box(&mut nc)), flops));
    }
    let (mo, mf, mn) = (median(&mut o), median(&mut f), median(&mut mm));
    let shape = if m == k && k == n {
        format!("{n}")
    } else {
        format!("{m}x{k}x{n}")
    };
    println!(
        "{:<4} {:>16} {:>2}T  ndsimd {:6.1}  faer {:6.1}  ndarray {:6.1}  vs best peer {:.2}",
        std::any::type_name::<T>(),
        shape,
        threads,
        mo,
        mf,
        mn,
        mo / mf.max(mn)
    );
}

fn main() {
    let threads: usize = std::env::var("NDSIMD_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let rounds = 5;
    for n in [64, 128, 256, 512, 1024] {
        case::<f64>((n, n, n), threads, rounds);
    }
    case::<f32>((1024, 1024, 1024), threads, rounds);
    // Products with one small side (m x k x n): a few rows through a wide matrix,
    // many rows into a few columns, a small C from a long k.
    for shape in [(16, 1024, 4096), (4096, 1024, 16), (16, 65536, 16)] {
        case::<f64>(shape, threads, rounds);
    }
}
