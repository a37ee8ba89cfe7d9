//! The accuracy and determinism of `sum`, `mean`, `vdot` and the contiguous-axis sums
//! (issue 27): against exact references (error-free summation computed here, or
//! values whose sum is exact) for `f32` and `f64` up to 10^7 elements, at 1 and 2
//! threads and on every tier this host has (the kernels' tables; the array API runs
//! the `NDSIMD_TIER` one), the error is at most NumPy's pairwise-summation bound;
//! and the bits are the same on every tier and for every thread count.

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
