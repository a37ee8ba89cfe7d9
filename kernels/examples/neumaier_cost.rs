//! What compensated (Neumaier) summation in the vector lanes would cost against the
//! plain lane sums that `sum` runs inside each pairwise block, on AVX-512, `f64`, at
//! the bench's sizes: the measurement behind choosing blocked pairwise summation
//! (docs/perf.md, "Sum accuracy and speed").
//!
//! `cargo run --release -p ndsimd-kernels --example neumaier_cost`
//!
//! Both loops keep 4 vectors of partial sums; the compensated one adds per vector the
//! five operations of TwoSum and one add to carry each addition's rounding error.

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn plain(a: &[f64]) -> f64 {
        let p = a.as_ptr();
        let mut s = [_mm512_setzero_pd(); 4];
        let mut i = 0;
        while i + 32 <= a.len() {
            for (k, s) in s.iter_mut().enumerate() {
                // SAFETY: `i + 8k + 8 <= i + 32 <= a.len()`: the load is inside `a`.
                *s = _mm512_add_pd(*s, unsafe { _mm512_loadu_pd(p.add(i + 8 * k)) });
            }
            i += 32;
        }
        let t = _mm512_add_pd(_mm512_add_pd(s[0], s[1]), _mm512_add_pd(s[2], s[3]));
        _mm512_reduce_add_pd(t) + a[i..].iter().sum::<f64>()
    }

    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn neumaier(a: &[f64]) -> f64 {
        let p = a.as_ptr();
        let (mut s0, mut s1, mut s2, mut s3) = (
            _mm512_setzero_pd(),
            _mm512_setzero_pd(),
            _mm512_setzero_pd(),
            _mm512_setzero_pd(),
        );
        let (mut c0, mut c1, mut c2, mut c3) = (
            _mm512_setzero_pd(),
            _mm512_setzero_pd(),
            _mm512_setzero_pd(),
            _mm512_setzero_pd(),
        );
        // Each addition's rounding error by Knuth's TwoSum (branch-free, so it suits
        // lanes; the same error Neumaier's magnitude test picks out).
        macro_rules! two_sum {
            ($s:ident, $c:ident, $x:expr) => {{
                let x = $x;
                let t = _mm512_add_pd($s, x);
                let z = _mm512_sub_pd(t, $s);
                let e = _mm512_add_pd(_mm512_sub_pd($s, _mm512_sub_pd(t, z)), _mm512_sub_pd(x, z));
                $c = _mm512_add_pd($c, e);
                $s = t;
            }};
        }
        let mut i = 0;
        while i + 32 <= a.len() {
            // SAFETY: `i + 32 <= a.len()`: the four loads are inside `a`.
            let x = unsafe {
                [
                    _mm512_loadu_pd(p.add(i)),
                    _mm512_loadu_pd(p.add(i + 8)),
                    _mm512_loadu_pd(p.add(i + 16)),
                    _mm512_loadu_pd(p.add(i + 24)),
                ]
            };
            two_sum!(s0, c0, x[0]);
            two_sum!(s1, c1, x[1]);
            two_sum!(s2, c2, x[2]);
            two_sum!(s3, c3, x[3]);
            i += 32;
        }
        let t = _mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3));
        let u = _mm512_add_pd(_mm512_add_pd(c0, c1), _mm512_add_pd(c2, c3));
        _mm512_reduce_add_pd(t) + _mm512_reduce_add_pd(u) + a[i..].iter().sum::<f64>()
    }
}

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::time::Instant;
    if !std::arch::is_x86_feature_detected!("avx512f") {
        println!("no AVX-512F here: nothing to measure");
        return;
    }
    let time = |f: &dyn Fn() -> f64, reps: usize| {
        let t = Instant::now();
        let mut x = 0.0;
        for _ in 0..reps {
            x += std::hint::black_box(f());
        }
        std::hint::black_box(x);
        t.elapsed().as_secs_f64() / reps as f64
    };
    println!("n, plain ns, neumaier/plain median (min-max over 15 interleaved rounds)");
    for n in [1024usize, 16 << 10, 256 << 10, 4 << 20] {
        let a: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1000) as f64 * 1e-3).collect();
        // Both agree with the exact sum (small multiples of 1e-3) before the clock.
        let exact: f64 = (0..n).map(|i| ((i * 7919) % 1000) as f64).sum::<f64>() * 1e-3;
        // SAFETY: AVX-512F was detected above.
        let (p, q) = unsafe { (avx512::plain(&a), avx512::neumaier(&a)) };
        assert!((p - exact).abs() <= 1e-9 * exact && (q - exact).abs() <= 1e-9 * exact);
        let reps = ((1usize << 26) / n).max(3);
        let (mut plain, mut ratio) = (Vec::new(), Vec::new());
        for _ in 0..15 {
            // SAFETY: as above.
            let tp = time(&|| unsafe { avx512::plain(&a) }, reps);
            // SAFETY: as above.
            let tn = time(&|| unsafe { avx512::neumaier(&a) }, reps);
            plain.push(tp);
            ratio.push(tn / tp);
        }
        plain.sort_by(f64::total_cmp);
        ratio.sort_by(f64::total_cmp);
        println!(
            "{n}, {:.0}, {:.2} ({:.2}-{:.2})",
            plain[7] * 1e9,
            ratio[7],
            ratio[0],
            ratio[14]
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("x86_64 only: nothing to measure");
}
