//! The accuracy and determinism of `sum`, `mean`, `vdot` and the contiguous-axis sums
//! (issue 27): against exact references (error-free summation computed here, or
//! values whose sum is exact) for `f32` and `f64` up to 10^7 elements, at 1 and 2
//! threads and on every tier this host has (the kernels' tables; the array API runs
//! the `NDSIMD_TIER` one), the error is at most NumPy's pairwise-summation bound;
//! and the bits are the same on every tier and for every thread count. A matrix
//! times a vector sums each row in the same blocks added pairwise: every tier within
//! its documented bound and in exactly its documented order, the same bits for every
//! thread count (not across tiers: the tier's lanes and FMA, `gemv.rs`).

mod common;

use common::Rng;
use ndsimd::{with_threads, Array, Element};
use ndsimd_kernels::{available_tiers, KernelElement, Tier};

/// `u`, the unit roundoff: half the machine epsilon.
fn unit<T: Element>() -> f64 {
    T::epsilon().to_f64().unwrap() / 2.0
}

/// The depth (additions that round, along the longest path) of NumPy's
/// `pairwise_sum` (numpy/_core/src/umath/loops_utils.h.src): below 8 elements one
/// by one, up to 128 on 8 accumulators then `((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))`
/// and the rest one by one, above that split in two halves (the first a multiple
/// of 8).
fn numpy_depth(n: usize) -> usize {
    if n < 8 {
        n
    } else if n <= 128 {
        let m = n - n % 8;
        m / 8 - 1 + 3 + n % 8
    } else {
        let half = n / 2 - (n / 2) % 8;
        1 + numpy_depth(half).max(numpy_depth(n - half))
    }
}

/// NumPy's pairwise bound for `n` elements: `γ_d·Σ|x|`, `γ_d = d·u / (1 - d·u)`.
fn numpy_bound<T: Element>(n: usize, abs_sum: f64) -> f64 {
    let du = numpy_depth(n) as f64 * unit::<T>();
    du / (1.0 - du) * abs_sum
}

/// The exact sum of `xs`, correctly rounded to `f64` (Shewchuk's error-free
/// partials, as Python's `math.fsum`).
fn fsum(xs: impl IntoIterator<Item = f64>) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for mut x in xs {
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        partials.push(x);
    }
    let Some(mut n) = partials.len().checked_sub(1) else {
        return 0.0;
    };
    let mut hi = partials[n];
    let mut lo = 0.0;
    while n > 0 {
        n -= 1;
        let x = hi;
        let y = partials[n];
        hi = x + y;
        let yr = hi - x;
        lo = y - yr;
        if lo != 0.0 {
            break;
        }
    }
    if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
        let y = lo * 2.0;
        let x = hi + y;
        if y == x - hi {
            hi = x;
        }
    }
    hi
}

/// The tiers this host has (every one up to the `NDSIMD_TIER` cap).
fn tiers() -> Vec<Tier> {
    available_tiers()
}

/// Every way of computing the sum of `a`, with a name: each tier's kernel, and the
/// array API's `sum` at 1, 2 and 3 threads. All must give the same bits.
fn sums<T: Element>(a: &[T]) -> Vec<(String, T)> {
    let mut out: Vec<(String, T)> = tiers()
        .into_iter()
        .map(|t| {
            let k = T::table_for(t).expect("available tier");
            // The array API adds +0 to the kernel's -0 identity (NumPy's empty sum).
            (format!("kernel {t}"), (k.sum)(a) + T::zero())
        })
        .collect();
    let arr = Array::from_vec(a.to_vec());
    for threads in [1, 2, 3] {
        out.push((
            format!("sum at {threads} threads"),
            with_threads(threads, || arr.sum()),
        ));
    }
    out
}

/// `sums` all equal bit for bit; returns the common value.
fn same_everywhere<T: Element>(a: &[T], what: &str) -> T {
    let all = sums(a);
    let first = all[0].1;
    for (how, v) in &all {
        assert!(
            v.to_f64().unwrap().to_bits() == first.to_f64().unwrap().to_bits(),
            "{what}: {how} gives {v:?}, {} gives {first:?}",
            all[0].0
        );
    }
    first
}

/// The sum of `a` on every tier and thread count: identical, and within NumPy's
/// pairwise bound of the exact sum. Returns the error relative to `|exact|`.
fn check_sum<T: Element>(a: &[T], what: &str) -> f64 {
    ndsimd::set_num_threads(3);
    let s = same_everywhere(a, what).to_f64().unwrap();
    let exact = fsum(a.iter().map(|x| x.to_f64().unwrap()));
    let abs_sum = fsum(a.iter().map(|x| x.to_f64().unwrap().abs()));
    let err = fsum([s, -exact]).abs();
    let bound = numpy_bound::<T>(a.len(), abs_sum);
    assert!(
        err <= bound,
        "{what} (n {}): sum {s} exact {exact}: error {err:e} over NumPy's bound {bound:e}",
        a.len()
    );
    // `mean` is that sum divided once.
    let arr = Array::from_vec(a.to_vec());
    let n = T::from_usize(a.len()).unwrap();
    for threads in [1, 2] {
        let m = with_threads(threads, || arr.mean());
        assert_eq!(
            m.to_f64().unwrap().to_bits(),
            (T::from_f64(s).unwrap() / n).to_f64().unwrap().to_bits(),
            "{what}: mean at {threads} threads"
        );
    }
    err / exact.abs().max(f64::MIN_POSITIVE)
}

/// A standard normal by Box-Muller from the xorshift generator.
fn normal(rng: &mut Rng) -> f64 {
    let u1 = ((rng.next() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
    let u2 = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[test]
fn ten_million_tenths_in_f32_within_numpys_bound() {
    // The first row: NumPy 1000000.1, the lane-sequential sum 998501.4.
    let a = vec![0.1f32; 10_000_000];
    let rel = check_sum(&a, "10^7 x 0.1 f32");
    // NumPy's measured error here is 1.1e-7.
    assert!(rel < 2e-7, "relative error {rel:e}");
}

#[test]
fn normals_within_numpys_bound() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for n in [1000, 4097, 100_000, 1_000_003, 10_000_000] {
        let a: Vec<f64> = (0..n).map(|_| normal(&mut rng)).collect();
        check_sum(&a, &format!("{n} normals f64"));
        let b: Vec<f32> = a.iter().map(|&x| x as f32).collect();
        check_sum(&b, &format!("{n} normals f32"));
        // Positive values: every rounding adds up instead of cancelling.
        let c: Vec<f64> = a.iter().map(|x| x.abs() + 1.0).collect();
        check_sum(&c, &format!("{n} positive f64"));
        let d: Vec<f32> = c.iter().map(|&x| x as f32).collect();
        check_sum(&d, &format!("{n} positive f32"));
    }
}

#[test]
fn one_then_many_tiny_f64_within_numpys_bound() {
    // The last row: NumPy's error 1.2e-15, the lane-sequential sum's 3.1e-12.
    let mut a = vec![1e-16f64; 1_000_000];
    a[0] = 1.0;
    check_sum(&a, "1 then 999999 x 1e-16");
}

#[test]
fn dyadic_rationals_sum_exactly() {
    // Multiples of 1/1024 whose partial sums all fit the mantissa: exact on any
    // grouping, so exactly the rational sum.
    let mut rng = Rng(77);
    let n = 10_000_000;
    let a: Vec<f64> = (0..n)
        .map(|_| rng.int(-(1 << 19), 1 << 19) as f64 / 1024.0)
        .collect();
    let exact: i64 = a.iter().map(|&x| (x * 1024.0) as i64).sum();
    assert_eq!(check_sum(&a, "dyadic f64"), 0.0);
    assert_eq!(same_everywhere(&a, "dyadic f64"), exact as f64 / 1024.0);
    // f32: quarters below 1, 2^21 of them: every partial sum fits 24 bits.
    let b: Vec<f32> = (0..1 << 21).map(|_| rng.int(0, 3) as f32 / 4.0).collect();
    let exact: i64 = b.iter().map(|&x| (x * 4.0) as i64).sum();
    assert_eq!(same_everywhere(&b, "dyadic f32"), exact as f32 / 4.0);
}

#[test]
fn sums_are_identical_across_tiers_and_thread_counts() {
    ndsimd::set_num_threads(3);
    let mut rng = Rng(0x9e37_79b9);
    // Lengths around the pool's threshold (32Ki), blocks (256/512) and the pieces.
    for n in [
        0, 1, 255, 256, 257, 32_767, 32_768, 32_769, 65_537, 100_000, 262_144, 262_145, 1_000_001,
    ] {
        let a: Vec<f64> = (0..n)
            .map(|_| normal(&mut rng) * 2f64.powi(rng.int(-30, 30) as i32))
            .collect();
        let b: Vec<f32> = a.iter().map(|&x| x as f32).collect();
        same_everywhere(&a, &format!("sum f64 n {n}"));
        same_everywhere(&b, &format!("sum f32 n {n}"));
        // vdot: each tier's kernel, and the array API at 1, 2 and 3 threads.
        let c: Vec<f64> = (0..n).map(|_| normal(&mut rng)).collect();
        let (x, y) = (Array::from_vec(a.clone()), Array::from_vec(c.clone()));
        let mut dots: Vec<(String, u64)> = tiers()
            .into_iter()
            .map(|t| {
                let k = f64::table_for(t).unwrap();
                let v = if n == 0 { 0.0 } else { (k.dot)(&a, &c) };
                (format!("kernel {t}"), v.to_bits())
            })
            .collect();
        for threads in [1, 2, 3] {
            let v = with_threads(threads, || x.vdot(&y).unwrap());
            dots.push((format!("vdot at {threads} threads"), v.to_bits()));
        }
        for (how, bits) in &dots {
            assert_eq!(*bits, dots[0].1, "vdot n {n}: {how} against {}", dots[0].0);
        }
    }
}

#[test]
fn vdot_does_not_depend_on_fma() {
    // The reproducer: fused, the last product keeps -2^-104; rounded, it is
    // 1 and the sum 0. Every tier rounds each product.
    let e = f64::EPSILON;
    let (mut a, mut b) = (vec![0.0f64; 33], vec![0.0f64; 33]);
    (a[0], b[0], a[32], b[32]) = (1.0, -1.0, 1.0 + e, 1.0 - e);
    for t in tiers() {
        let got = (f64::table_for(t).unwrap().dot)(&a, &b);
        assert_eq!(got.to_bits(), 0, "tier {t}: {got:e}");
    }
    let (x, y) = (Array::from_vec(a), Array::from_vec(b));
    assert_eq!(x.vdot(&y).unwrap().to_bits(), 0);
}

#[test]
fn axis_sums_along_a_contiguous_axis_are_pairwise() {
    ndsimd::set_num_threads(3);
    // Two rows of 10^6 tenths: each row sum is the whole-array sum's bits.
    let n = 1_000_000;
    let a = Array::from_shape_vec(&[2, n], vec![0.1f32; 2 * n]).unwrap();
    let row = Array::from_vec(vec![0.1f32; n]).sum();
    for threads in [1, 2] {
        let s = with_threads(threads, || a.sum_axis(1, false).unwrap()).to_vec();
        assert_eq!(s, vec![row, row], "{threads} threads");
        let m = with_threads(threads, || a.mean_axis(-1, false).unwrap()).to_vec();
        assert_eq!(m, vec![row / n as f32; 2]);
    }
    let exact = 0.1f32 as f64 * n as f64;
    assert!(((row as f64 - exact) / exact).abs() < 2e-7, "{row}");
}

#[test]
fn prod_and_sum_return_the_first_nan() {
    ndsimd::set_num_threads(2);
    let (nan1, nan2) = (
        f64::from_bits(0x7ff8_0000_0000_0001),
        f64::from_bits(0xfff8_0000_0000_0002),
    );
    for n in [3usize, 100, 70_000] {
        let mut v = vec![1.0f64; n];
        (v[1], v[n - 1]) = (nan1, nan2);
        for t in tiers() {
            let k = f64::table_for(t).unwrap();
            assert_eq!((k.prod)(&v).to_bits(), nan1.to_bits(), "prod {t} n {n}");
            assert_eq!((k.sum)(&v).to_bits(), nan1.to_bits(), "sum {t} n {n}");
        }
        let a = Array::from_vec(v);
        for threads in [1, 2] {
            let (p, s) = with_threads(threads, || (a.prod(), a.sum()));
            assert_eq!(p.to_bits(), nan1.to_bits(), "prod n {n} {threads} threads");
            assert_eq!(s.to_bits(), nan1.to_bits(), "sum n {n} {threads} threads");
        }
    }
}

#[test]
fn numpy_depth_matches_its_recursion() {
    // 8 accumulators of 16, then 3 levels: 18 for a block of 128; one more level
    // per halving above.
    assert_eq!(numpy_depth(128), 18);
    assert_eq!(numpy_depth(256), 19);
    assert_eq!(numpy_depth(7), 7);
    // 135 splits at 64 (half of it, down to a multiple of 8): 71 is 8 / accumulator
    // plus 7 one by one, 17.
    assert_eq!(numpy_depth(135), 18);
}

// ---- Matrix times vector: each row's dot product in blocks added pairwise ----

/// Lanes `N` of `tier`'s matrix-vector kernel for `T` (its vector width; one on the
/// portable tier), and whether its multiply-adds are fused.
fn gemv_lanes<T>(tier: Tier) -> (usize, bool) {
    let size = std::mem::size_of::<T>();
    match tier {
        Tier::Scalar => (1, false),
        Tier::Sse2 => (16 / size, false),
        Tier::Neon => (16 / size, true),
        Tier::Avx2 => (32 / size, true),
        Tier::Avx512 => (64 / size, true),
    }
}

/// The documented depth of one row of `k` (the `matmul` docs): `⌈min(k, B)/2N⌉ + 2N
/// + ⌈log2⌈k/B⌉⌉`, `B` the 2 KiB block.
fn matvec_depth<T>(k: usize, lanes: usize) -> usize {
    let b = ndsimd_kernels::scalar::block_len::<T>();
    let blocks = k.div_ceil(b);
    k.min(b).div_ceil(2 * lanes) + 2 * lanes + blocks.next_power_of_two().trailing_zeros() as usize
}

/// The documented order of one row on a tier with `lanes` lanes (`gemv.rs`): blocks
/// of `B`, each in two vector accumulators (fused or not) then added; the blocks'
/// vectors added pairwise lane by lane, their lanes left to right, the last `k mod N`
/// products one by one.
fn model_row<T: Element>(a: &[T], x: &[T], lanes: usize, fused: bool) -> T {
    let n = lanes;
    let madd = |p: T, q: T, c: T| if fused { p.mul_add(q, c) } else { p * q + c };
    let block = |a: &[T], x: &[T]| {
        let len = a.len();
        let (mut acc0, mut acc1) = (vec![T::zero(); n], vec![T::zero(); n]);
        let mut p = 0;
        while p + 2 * n <= len {
            for j in 0..n {
                acc0[j] = madd(a[p + j], x[p + j], acc0[j]);
                acc1[j] = madd(a[p + n + j], x[p + n + j], acc1[j]);
            }
            p += 2 * n;
        }
        if p + n <= len {
            for j in 0..n {
                acc0[j] = madd(a[p + j], x[p + j], acc0[j]);
            }
        }
        (0..n).map(|j| acc0[j] + acc1[j]).collect::<Vec<T>>()
    };
    let b = ndsimd_kernels::scalar::block_len::<T>();
    let leaves: Vec<Vec<T>> = a
        .chunks(b)
        .zip(x.chunks(b))
        .map(|(a, x)| block(a, x))
        .collect();
    let lane = |j: usize| {
        let l: Vec<T> = leaves.iter().map(|v| v[j]).collect();
        ndsimd_kernels::scalar::pairwise(&l, T::zero())
    };
    let mut s = lane(0);
    for j in 1..n {
        s = s + lane(j);
    }
    for q in a.len() - a.len() % n..a.len() {
        s = s + a[q] * x[q];
    }
    s
}

/// `y = A x` (`m x k`, row-major) by `tier`'s kernel on `threads` threads.
fn gemv_on<T: Element + ndsimd_kernels::gemm::GemmElement>(
    tier: Tier,
    a: &[T],
    x: &[T],
    m: usize,
    threads: usize,
) -> Vec<T> {
    use ndsimd_kernels::gemm::{gemv_with_tier, MatMut, MatRef};
    let k = x.len();
    let mut y = vec![T::nan(); m];
    let am = MatRef::new(a, 0, m, k, k as isize, 1).unwrap();
    let xm = MatRef::new(x, 0, k, 1, 1, 1).unwrap();
    let ym = MatMut::new(&mut y, 0, m, 1, 1, 1).unwrap();
    with_threads(threads, || {
        gemv_with_tier(tier, T::one(), am, xm, T::zero(), ym, threads).expect("available tier")
    });
    y
}

/// The exact `Σ_p a_p·x_p` and `Σ_p |a_p·x_p|` (each product split without error
/// into two doubles: `p + e` with `e = fma(a, x, -p)`).
fn exact_dot<T: Element>(a: &[T], x: &[T]) -> (f64, f64) {
    let prods = a.iter().zip(x).flat_map(|(&a, &x)| {
        let (a, x) = (a.to_f64().unwrap(), x.to_f64().unwrap());
        let p = a * x;
        [p, a.mul_add(x, -p)]
    });
    let exact = fsum(prods.clone());
    let abs = fsum(
        a.iter()
            .zip(x)
            .map(|(&a, &x)| (a.to_f64().unwrap() * x.to_f64().unwrap()).abs()),
    );
    (exact, abs * (1.0 + 1e-15))
}

/// `m x k` matrices times vectors on every tier at 1 and 2 threads and through
/// `dot`/`matmul` at 1 and 2 threads: each row within the documented bound of its
/// exact value, in exactly the documented order, the same bits for every thread
/// count and whichever rows it is grouped with (row 4 repeats row 0: it runs alone,
/// row 0 in a group of four).
fn check_matvec<T: Element + ndsimd_kernels::gemm::GemmElement>(a: &[T], x: &[T], what: &str) {
    let k = x.len();
    let m = a.len() / k;
    assert!(m >= 5 && a[..k] == a[4 * k..5 * k], "row 4 repeats row 0");
    let rows: Vec<(f64, f64)> = a.chunks(k).map(|r| exact_dot(r, x)).collect();
    let u = unit::<T>();
    for t in tiers() {
        let (lanes, fused) = gemv_lanes::<T>(t);
        let d = matvec_depth::<T>(k, lanes) as f64 * u;
        let one = gemv_on(t, a, x, m, 1);
        let one_bits = bits(&one);
        assert_eq!(
            one_bits,
            bits(&gemv_on(t, a, x, m, 2)),
            "{what}: tier {t}, 1 and 2 threads"
        );
        assert_eq!(
            one_bits[0], one_bits[4],
            "{what}: tier {t}, row 0 grouped and alone"
        );
        for (i, (&y, &(exact, abs))) in one.iter().zip(&rows).enumerate() {
            let err = fsum([y.to_f64().unwrap(), -exact]).abs();
            let bound = d / (1.0 - d) * abs;
            assert!(
                err <= bound,
                "{what}: tier {t} row {i} (k {k}): {y:?}, exact {exact}: error {err:e} over the bound {bound:e}"
            );
            let want = model_row(&a[i * k..(i + 1) * k], x, lanes, fused);
            assert_eq!(
                bits(&[y]),
                bits(&[want]),
                "{what}: tier {t} row {i}: the documented order"
            );
        }
    }
    // The array API on the active tier: `dot` and `matmul` of a 2-D by a 1-D array.
    let active = bits(&gemv_on(ndsimd_kernels::active_tier(), a, x, m, 1));
    let (am, xv) = (
        Array::from_shape_vec(&[m, k], a.to_vec()).unwrap(),
        Array::from_vec(x.to_vec()),
    );
    for threads in [1, 2] {
        let (d, p) = with_threads(threads, || (am.dot(&xv).unwrap(), am.matmul(&xv).unwrap()));
        assert_eq!(
            bits(&d.to_vec()),
            active,
            "{what}: dot at {threads} threads"
        );
        assert_eq!(
            bits(&p.to_vec()),
            active,
            "{what}: matmul at {threads} threads"
        );
    }
}

/// The bits of `v` (widened to `f64`: exact for `f32`).
fn bits<T: Element>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_f64().unwrap().to_bits()).collect()
}

/// Five rows (four in a group, then row 4 = row 0 alone) of `k` from `f`.
fn matrix<T: Copy>(k: usize, mut f: impl FnMut(usize, usize) -> T) -> Vec<T> {
    let mut a: Vec<T> = (0..4 * k).map(|i| f(i / k, i % k)).collect();
    a.extend_from_within(..k);
    a
}

#[test]
fn matvec_tenths_in_f32_within_the_bound() {
    // Lane-sequential, each of the 32 AVX-512 lanes adds 31 250 tenths: relative
    // error about 1e-4 where the bound is 3.5e-6.
    ndsimd::set_num_threads(2);
    for k in [1_000_000, 10_000_000] {
        let x = vec![1.0f32; k];
        let a = matrix(k, |i, _| 0.1f32 * (i + 1) as f32);
        check_matvec(&a, &x, &format!("tenths f32 k {k}"));
    }
}

#[test]
fn matvec_one_then_tiny_f64_within_the_bound() {
    // Each 1e-16 is lost against the 1.0 in its lane when added in sequence.
    ndsimd::set_num_threads(2);
    let k = 1_000_000;
    let x = vec![1.0f64; k];
    let a = matrix(k, |i, p| if p == i { 1.0 } else { 1e-16 });
    check_matvec(&a, &x, "1 then tiny f64");
}

#[test]
fn matvec_normals_within_the_bound_and_in_the_documented_order() {
    ndsimd::set_num_threads(2);
    let mut rng = Rng(0x51ed_2701);
    // One block or less (the fast path), the block edges (256 f64, 512 f32), the
    // written-out tree (up to four blocks) and the pairwise stack beyond it.
    for k in [
        1, 7, 255, 256, 257, 511, 512, 513, 1024, 1025, 2048, 2049, 5000, 1_000_003,
    ] {
        let x: Vec<f64> = (0..k).map(|_| normal(&mut rng)).collect();
        let a = matrix(k, |_, _| normal(&mut rng).abs() + 1.0);
        check_matvec(
            &a,
            &x.iter().map(|x| x.abs()).collect::<Vec<_>>(),
            &format!("positive f64 k {k}"),
        );
        check_matvec(&a, &x, &format!("normals f64 k {k}"));
        let (af, xf): (Vec<f32>, Vec<f32>) = (
            a.iter().map(|&v| v as f32).collect(),
            x.iter().map(|&v| v as f32).collect(),
        );
        check_matvec(&af, &xf, &format!("normals f32 k {k}"));
    }
}

#[test]
fn matvec_depth_counts_the_documented_terms() {
    // AVX-512 f64 (8 lanes), one block of 256: 16 per lane + 16; 10^6 columns: 3907
    // blocks, 12 levels.
    assert_eq!(matvec_depth::<f64>(256, 8), 32);
    assert_eq!(matvec_depth::<f64>(1_000_000, 8), 44);
    assert_eq!(matvec_depth::<f32>(1000, 1), 256 + 2 + 1);
}
