//! ndsimd's matmul against OpenBLAS (NumPy's, opened in this process: `openblas.rs`),
//! faer and the ndarray crate (matrixmultiply), all on row-major operands (faer's as
//! transposed views of its column-major matrices), in one process, interleaved
//! (squares, `(1024 x 256) . (256 x 1024)`, `a . b^T` at 512, three products with
//! one small side, then OpenBLAS's `dgemv` and `ddot` against our matvec and `vdot`): each round times every library once per
//! case (samples of at least 20 ms, median of 5), 7 rounds, the order reversed
//! every other round; each library's median GFLOP/s, and ours against the best of
//! the others as the median (min-max) of the per-round ratios (a VM's speed
//! drifts over seconds: a ratio of two samples taken side by side varies less than
//! a ratio of medians). The results are checked equal (small-integer data: every
//! sum is exact) first.
//!
//!     cd benches/peers
//!     NDSIMD_NUM_THREADS=1 MATMUL_NUM_THREADS=1 RAYON_NUM_THREADS=1 cargo run --release
//!     NDSIMD_NUM_THREADS=2 MATMUL_NUM_THREADS=2 RAYON_NUM_THREADS=2 cargo run --release
//!
//! On one thread it first runs small squares (2 to 32) and batches of 1000 8x8 and
//! 16x16 products against faer, nano-gemm (faer's small-product kernels), the
//! `gemm` crate and ndarray (keys `small:1x8`, `small:1000x16`, ...).
//!
//! `PEERS_SQUARES=64,128` runs only those square products. `PEERS_ONLY=LIST` runs
//! only the cases whose key contains one of the comma-separated words: a product's
//! key is `TYPE:MxKxN`, with `:bt` when B is stored transposed (`f64:512x512x512:bt`,
//! `f32:1024x1024x1024`), the vector cases' `matvec` and `vdot`. `PEERS_ROUNDS=N`
//! sets the rounds (default 7). `PEERS_JSON=FILE` also appends each square
//! product's GFLOP/s per library to FILE as JSON lines, which `ndsimd bench --from
//! RUN --svg DIR` draws in its GEMM chart when appended to a saved `--json` run.
//!
//! The thread count comes from `NDSIMD_NUM_THREADS`; faer gets `Par::rayon(n)`,
//! matrixmultiply reads `MATMUL_NUM_THREADS` itself, OpenBLAS `OPENBLAS_NUM_THREADS`
//! (set to the same count unless given). Without NumPy's OpenBLAS (or
//! `NDSIMD_OPENBLAS`) its column is left out.
use std::hint::black_box;

mod openblas;
mod timing;
use openblas::{Blas, OpenBlas};
use timing::median;

/// GFLOP/s of `f` doing `flops` (the shared timing rule), then a pause of 200 ms
/// when running on several threads: OpenBLAS's idle worker spins (yielding) after
/// a call before it sleeps, and in that time takes a core from whatever runs next
/// (measured: NumPy with two threads, one 512² product, then a sleep: the
/// process used 0.1 s of CPU in the first 0.2 s of the sleep, and none after).
/// Its own back-to-back calls keep their spinning worker, as in NumPy.
fn time(f: &mut dyn FnMut(), flops: f64) -> f64 {
    let g = flops / timing::secs(f) / 1e9;
    if THREADS.load(std::sync::atomic::Ordering::Relaxed) > 1 {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    g
}

/// The thread count of this run (for [`time`]'s pause).
static THREADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);

/// Element `i` (in storage order) of operand `s`: small integers, so every sum of
/// products is exact and the libraries' results can be compared bit for bit.
fn val<T: ndsimd::Element>(i: usize, s: usize) -> T {
    T::from_f64((((i * 7 + s) % 7) as f64) - 3.0).unwrap()
}

/// Operand `s` of `shape`, filled by [`val`], on ndsimd's own allocation (64-byte
/// aligned, as faer's; ndarray's is a `Vec`): on a caller's `Vec`, whose alignment
/// is the allocator's, the direct path's row loads split cache lines.
fn filled<T: ndsimd::Element>(shape: &[usize], s: usize) -> ndsimd::Array<T> {
    let mut x = ndsimd::Array::from_elem(shape, T::zero());
    for (i, v) in x.as_slice_mut().unwrap().iter_mut().enumerate() {
        *v = val(i, s);
    }
    x
}

/// `(m x k) . (k x n)`, B stored as it is (`k x n`, row-major) or, with `bt`, as
/// its transpose (`n x k`, row-major: the product `a . bt^T`).
fn case<T>(
    ob: Option<&OpenBlas>,
    (m, k, n): (usize, usize, usize),
    bt: bool,
    threads: usize,
    rounds: usize,
) where
    T: ndsimd::Element + faer::traits::ComplexField + ndarray::LinalgScalar + Blas + Copy,
{
    let flops = 2.0 * (m * k * n) as f64;
    let val = val::<T>;
    // B's element (p, j) by where it is stored.
    let bval = |p: usize, j: usize| val(if bt { j * k + p } else { p * n + j }, 2);
    let (a, b) = (
        filled::<T>(&[m, k], 1),
        filled::<T>(&if bt { [n, k] } else { [k, n] }, 2),
    );
    let b_op = if bt { b.t() } else { b.view() };
    let mut c = ndsimd::Array::<T>::zeros(&[m, n]);
    // faer's matrices are column-major; its operands here are row-major views
    // (transposes of column-major matrices), the same memory layout as the other
    // two libraries' (a rectangular product is another problem in the other layout:
    // faer's column-major 16 x 1024 x 4096 is our row-major 4096 x 1024 x 16).
    let fat = faer::Mat::<T>::from_fn(k, m, |j, i| val(i * k + j, 1));
    // B^T stored column-major has B's row-major layout; B stored column-major, Bt's.
    let fbt = faer::Mat::<T>::from_fn(n, k, |j, p| bval(p, j));
    let fbs = faer::Mat::<T>::from_fn(k, n, &bval);
    let mut fct = faer::Mat::<T>::zeros(n, m);
    let (fa, fb) = (
        fat.transpose(),
        if bt { fbs.as_ref() } else { fbt.transpose() },
    );
    let na = ndarray::Array2::<T>::from_shape_fn((m, k), |(i, j)| val(i * k + j, 1));
    let nbs = if bt {
        ndarray::Array2::<T>::from_shape_fn((n, k), |(j, p)| bval(p, j))
    } else {
        ndarray::Array2::<T>::from_shape_fn((k, n), |(p, j)| bval(p, j))
    };
    let nb = if bt { nbs.t() } else { nbs.view() };
    let mut nc = ndarray::Array2::<T>::zeros((m, n));
    // OpenBLAS on our operands (its own allocation would be malloc's, as NumPy's is
    // NumPy's: ours is at least as well aligned).
    let mut oc = ndsimd::Array::<T>::zeros(&[m, n]);
    let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
    let par = if threads > 1 {
        faer::Par::rayon(threads)
    } else {
        faer::Par::Seq
    };
    // Each library's product into its own output, for the check and the timing.
    let ours = |c: &mut ndsimd::Array<T>| a.matmul_into(&b_op, T::one(), T::zero(), c).unwrap();
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
    let blas = |oc: &mut ndsimd::Array<T>| {
        if let Some(ob) = ob {
            ob.gemm((m, k, n), sa, sb, bt, oc.as_slice_mut().unwrap())
        }
    };
    // Check they agree before timing.
    ours(&mut c);
    theirs(&mut fct);
    nd(&mut nc);
    blas(&mut oc);
    for i in (0..m).step_by(m / 8 + 1) {
        for j in 0..n {
            let x = *c.get(&[i, j]).unwrap();
            assert!(
                x == fct[(j, i)]
                    && x == nc[[i, j]]
                    && (ob.is_none() || x == *oc.get(&[i, j]).unwrap()),
                "results differ at ({i}, {j})"
            );
        }
    }
    // Each library once per round, in turns, the order reversed every other round.
    let mut libs: Vec<Box<dyn FnMut() -> f64 + '_>> = vec![
        Box::new(|| time(&mut || ours(black_box(&mut c)), flops)),
        Box::new(|| time(&mut || theirs(black_box(&mut fct)), flops)),
        Box::new(|| time(&mut || nd(black_box(&mut nc)), flops)),
    ];
    if ob.is_some() {
        libs.push(Box::new(|| time(&mut || blas(black_box(&mut oc)), flops)));
    }
    let mut t = interleaved(&mut libs, rounds);
    let shape = match (m == k && k == n, bt) {
        (true, false) => format!("{n}"),
        (true, true) => format!("{n} a.bT"),
        (false, false) => format!("{m}x{k}x{n}"),
        (false, true) => format!("{m}x{k}x{n} a.bT"),
    };
    let (r, lo, hi) = paired(&t);
    let mb = if ob.is_some() { median(&mut t[3]) } else { 0.0 };
    let (ours, faer_, nd) = (median(&mut t[0]), median(&mut t[1]), median(&mut t[2]));
    let ty = std::any::type_name::<T>();
    println!(
        "{ty:<4} {shape:>16} {threads:>2}T  ndsimd {ours:6.1}  openblas {mb:6.1}  faer {faer_:6.1}  ndarray {nd:6.1}  vs best peer {r:.2} ({lo:.2}-{hi:.2})",
    );
    if m == k && k == n && !bt {
        let mut rates = vec![
            ("ndsimd (peers run)", ours),
            ("faer", faer_),
            ("ndarray", nd),
        ];
        if ob.is_some() {
            rates.push(("OpenBLAS", mb));
        }
        save(&format!("matmul {ty}"), n, threads, &rates);
    }
}

/// With `PEERS_JSON=FILE`: a square product's median GFLOP/s per library, appended
/// to FILE one JSON object a line, named as `ndsimd bench --json` names its rows
/// (`op` "matmul f64", `n` the side) plus `engine`. Appended to a saved
/// `ndsimd bench --json` run, `ndsimd bench --from RUN --svg DIR` draws them in its
/// GEMM chart.
fn save(op: &str, n: usize, threads: usize, rates: &[(&str, f64)]) {
    use std::io::Write;
    let Ok(path) = std::env::var("PEERS_JSON") else {
        return;
    };
    let mut lines = String::new();
    for (engine, rate) in rates.iter().filter(|r| r.1.is_finite()) {
        lines += &format!(
            "{{\"engine\":\"{engine}\",\"op\":\"{op}\",\"n\":{n},\"threads\":{threads},\"rate\":{rate},\"rate_unit\":\"GFLOP/s\"}}\n"
        );
    }
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(lines.as_bytes()));
    if let Err(e) = written {
        eprintln!("PEERS_JSON={path}: {e}");
        std::process::exit(2);
    }
}

/// Small squares and batches of them (`count` products of `d x d`, row-major,
/// one after another; `count == 1` is one product), f64 on one thread: our
/// `matmul_into` (one call for the whole batch) against faer's `matmul`,
/// nano-gemm's register kernels (faer's small-product path, a plan made once),
/// the `gemm` crate and ndarray, each of those called once per product; GFLOP/s,
/// interleaved as [`case`].
fn small_case(count: usize, d: usize, rounds: usize) {
    let len = count * d * d;
    let shape: Vec<usize> = if count == 1 {
        vec![d, d]
    } else {
        vec![count, d, d]
    };
    let (a, b) = (filled::<f64>(&shape, 1), filled::<f64>(&shape, 2));
    let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
    let flops = 2.0 * (count * d * d * d) as f64;
    let mut c = ndsimd::Array::<f64>::zeros(&shape);
    let (mut cf, mut cn, mut cg, mut cd) = (
        vec![0.0; len],
        vec![0.0; len],
        vec![0.0; len],
        vec![0.0; len],
    );
    let plan = nano_gemm::Plan::new_f64(d, d, d);
    let dd = d as isize;
    let ours = |c: &mut ndsimd::Array<f64>| a.matmul_into(&b, 1.0, 0.0, c).unwrap();
    let faer_ = |c: &mut [f64]| {
        for q in 0..count {
            let at = q * d * d;
            let fa = faer::MatRef::from_row_major_slice(&sa[at..at + d * d], d, d);
            let fb = faer::MatRef::from_row_major_slice(&sb[at..at + d * d], d, d);
            let fc = faer::MatMut::from_row_major_slice_mut(&mut c[at..at + d * d], d, d);
            faer::linalg::matmul::matmul(fc, faer::Accum::Replace, fa, fb, 1.0, faer::Par::Seq);
        }
    };
    let nano = |c: &mut [f64]| {
        for q in 0..count {
            let at = q * d * d;
            // SAFETY: three d x d row-major matrices inside their slices.
            unsafe {
                plan.execute_unchecked(
                    d,
                    d,
                    d,
                    c.as_mut_ptr().add(at),
                    dd,
                    1,
                    sa.as_ptr().add(at),
                    dd,
                    1,
                    sb.as_ptr().add(at),
                    dd,
                    1,
                    0.0,
                    1.0,
                    false,
                    false,
                )
            }
        }
    };
    let gemm_ = |c: &mut [f64]| {
        for q in 0..count {
            let at = q * d * d;
            // SAFETY: as for nano-gemm (`dst = 0 * dst + 1 * lhs * rhs`, dst unread).
            unsafe {
                gemm::gemm(
                    d,
                    d,
                    d,
                    c.as_mut_ptr().add(at),
                    1,
                    dd,
                    false,
                    sa.as_ptr().add(at),
                    1,
                    dd,
                    sb.as_ptr().add(at),
                    1,
                    dd,
                    0.0,
                    1.0,
                    false,
                    false,
                    false,
                    gemm::Parallelism::None,
                )
            }
        }
    };
    let nd = |c: &mut [f64]| {
        for q in 0..count {
            let at = q * d * d;
            let na = ndarray::ArrayView2::from_shape((d, d), &sa[at..at + d * d]).unwrap();
            let nb = ndarray::ArrayView2::from_shape((d, d), &sb[at..at + d * d]).unwrap();
            let mut nc =
                ndarray::ArrayViewMut2::from_shape((d, d), &mut c[at..at + d * d]).unwrap();
            ndarray::linalg::general_mat_mul(1.0, &na, &nb, 0.0, &mut nc);
        }
    };
    ours(&mut c);
    faer_(&mut cf);
    nano(&mut cn);
    gemm_(&mut cg);
    nd(&mut cd);
    let mine = c.as_slice().unwrap();
    for (name, other) in [
        ("faer", &cf),
        ("nano-gemm", &cn),
        ("gemm", &cg),
        ("ndarray", &cd),
    ] {
        assert!(
            mine == other.as_slice(),
            "{count}x{d}²: results differ from {name}'s"
        );
    }
    let mut libs: Vec<Box<dyn FnMut() -> f64 + '_>> = vec![
        Box::new(|| time(&mut || ours(black_box(&mut c)), flops)),
        Box::new(|| time(&mut || faer_(black_box(&mut cf)), flops)),
        Box::new(|| time(&mut || nano(black_box(&mut cn)), flops)),
        Box::new(|| time(&mut || gemm_(black_box(&mut cg)), flops)),
        Box::new(|| time(&mut || nd(black_box(&mut cd)), flops)),
    ];
    let mut t = interleaved(&mut libs, rounds);
    let (r, lo, hi) = paired(&t);
    let shape = if count == 1 {
        format!("{d}")
    } else {
        format!("{count}x{d}²")
    };
    let g: Vec<f64> = t.iter_mut().map(|v| median(v)).collect();
    println!(
        "f64  {shape:>16}  1T  ndsimd {:6.2}  faer {:6.2}  nano-gemm {:6.2}  gemm {:6.2}  ndarray {:6.2}  vs best peer {r:.2} ({lo:.2}-{hi:.2})",
        g[0], g[1], g[2], g[3], g[4],
    );
    if count == 1 {
        let names = ["ndsimd (peers run)", "faer", "nano-gemm", "gemm", "ndarray"];
        let rates: Vec<(&str, f64)> = names.into_iter().zip(g).collect();
        save("matmul f64", d, 1, &rates);
    }
}

/// `rounds` rounds of one call of each of `libs` (in turns, the order reversed
/// every other round): per library, its results in round order.
fn interleaved(libs: &mut [Box<dyn FnMut() -> f64 + '_>], rounds: usize) -> Vec<Vec<f64>> {
    let mut t = vec![Vec::with_capacity(rounds); libs.len()];
    for r in 0..rounds {
        for i in 0..libs.len() {
            let i = if r % 2 == 0 { i } else { libs.len() - 1 - i };
            t[i].push(libs[i]());
        }
    }
    t
}

/// The paired ratio of the first library's rate to the best of the others' in the
/// same round: median (min-max) over the rounds.
fn paired(t: &[Vec<f64>]) -> (f64, f64, f64) {
    let mut r: Vec<f64> = (0..t[0].len())
        .map(|i| t[0][i] / t[1..].iter().map(|p| p[i]).fold(0.0, f64::max))
        .collect();
    let (lo, hi) = (
        r.iter().cloned().fold(f64::MAX, f64::min),
        r.iter().cloned().fold(0.0, f64::max),
    );
    (median(&mut r), lo, hi)
}

/// Our matvec (1024²) and `vdot` (2^20) against OpenBLAS's `dgemv` and `ddot`, the
/// issue's two vector rows, interleaved as [`case`]; GFLOP/s.
fn vector_cases(ob: &OpenBlas, threads: usize, rounds: usize, wanted: &dyn Fn(&str) -> bool) {
    let filled = filled::<f64>;
    let n = 1024;
    let (a, x) = (filled(&[n, n], 1), filled(&[n], 2));
    let (mut y, mut yb) = (
        ndsimd::Array::<f64>::zeros(&[n]),
        ndsimd::Array::<f64>::zeros(&[n]),
    );
    let (sa, sx) = (a.as_slice().unwrap(), x.as_slice().unwrap());
    let ours = |y: &mut ndsimd::Array<f64>| a.matmul_into(&x, 1.0, 0.0, y).unwrap();
    let blas = |y: &mut ndsimd::Array<f64>| ob.dgemv((n, n), sa, sx, y.as_slice_mut().unwrap());
    ours(&mut y);
    blas(&mut yb);
    assert!(y.as_slice() == yb.as_slice(), "matvec results differ");
    let d = 1 << 20;
    let (u, v) = (filled(&[d], 3), filled(&[d], 4));
    let (su, sv) = (u.as_slice().unwrap(), v.as_slice().unwrap());
    assert_eq!(u.vdot(&v).unwrap(), ob.ddot(su, sv), "dot results differ");
    let (mv, dot) = (2.0 * (n * n) as f64, 2.0 * d as f64);
    let mut libs: Vec<Box<dyn FnMut() -> f64 + '_>> = vec![
        Box::new(|| time(&mut || ours(black_box(&mut y)), mv)),
        Box::new(|| time(&mut || blas(black_box(&mut yb)), mv)),
    ];
    let t = wanted("matvec").then(|| interleaved(&mut libs, rounds));
    let mut libs: Vec<Box<dyn FnMut() -> f64 + '_>> = vec![
        Box::new(|| {
            time(
                &mut || {
                    black_box(u.vdot(&v).unwrap());
                },
                dot,
            )
        }),
        Box::new(|| {
            time(
                &mut || {
                    black_box(ob.ddot(su, sv));
                },
                dot,
            )
        }),
    ];
    let td = wanted("vdot").then(|| interleaved(&mut libs, rounds));
    for (name, t) in [("matvec 1024²", t), ("vdot 2^20", td)] {
        let Some(mut t) = t else { continue };
        let (r, lo, hi) = paired(&t);
        println!(
            "f64  {name:>16} {threads:>2}T  ndsimd {:6.1}  openblas {:6.1}  vs openblas {r:.2} ({lo:.2}-{hi:.2})",
            median(&mut t[0]),
            median(&mut t[1]),
        );
    }
}

fn main() {
    let threads: usize = std::env::var("NDSIMD_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    THREADS.store(threads, std::sync::atomic::Ordering::Relaxed);
    // Before any thread starts: it may set OPENBLAS_NUM_THREADS.
    let ob = OpenBlas::open(threads);
    if let Some(ob) = &ob {
        println!("OpenBLAS: {}", ob.config.trim());
    }
    let ob = ob.as_ref();
    let rounds = std::env::var("PEERS_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    // `PEERS_SQUARES=64,128`: only those square products, nothing else.
    if let Ok(list) = std::env::var("PEERS_SQUARES") {
        for n in list.split(',').filter_map(|v| v.trim().parse().ok()) {
            case::<f64>(ob, (n, n, n), false, threads, rounds);
        }
        return;
    }
    let only = std::env::var("PEERS_ONLY").ok();
    let wanted = |key: &str| {
        only.as_deref()
            .is_none_or(|l| l.split(',').any(|w| key.contains(w.trim())))
    };
    let product = |ty: &str, (m, k, n): (usize, usize, usize), bt: bool| {
        wanted(&format!("{ty}:{m}x{k}x{n}{}", if bt { ":bt" } else { "" }))
    };
    // Small squares and batches of them, on one thread (key `small:COUNTxD`).
    if threads == 1 {
        for (count, d) in [
            (1, 2),
            (1, 4),
            (1, 8),
            (1, 16),
            (1, 32),
            (1000, 8),
            (1000, 16),
        ] {
            if wanted(&format!("small:{count}x{d}")) {
                small_case(count, d, rounds);
            }
        }
    }
    for n in [64, 128, 256, 512, 1024, 2048] {
        if product("f64", (n, n, n), false) {
            case::<f64>(ob, (n, n, n), false, threads, rounds);
        }
    }
    if product("f32", (1024, 1024, 1024), false) {
        case::<f32>(ob, (1024, 1024, 1024), false, threads, rounds);
    }
    // The two other named products: a short k between wide sides, and a
    // product with B transposed; then products with one small side (m x k x n): a
    // few rows through a wide matrix, many rows into a few columns, a small C from a
    // long k.
    for (shape, bt) in [
        ((1024, 256, 1024), false),
        ((512, 512, 512), true),
        ((16, 1024, 4096), false),
        ((4096, 1024, 16), false),
        ((16, 65536, 16), false),
    ] {
        if product("f64", shape, bt) {
            case::<f64>(ob, shape, bt, threads, rounds);
        }
    }
    if let Some(ob) = ob {
        vector_cases(ob, threads, rounds, &wanted);
    }
}
