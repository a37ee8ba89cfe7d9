//! Per-call times of small library calls, for comparing two builds of ndsimd (run
//! this binary from each build, alternated) or against NumPy timed the same way.
//!
//!     NDSIMD_NUM_THREADS=1 ./target/release/calls matmul 16   # ns per 16³ matmul_into
//!     NDSIMD_NUM_THREADS=1 ./target/release/calls matmul 2 1000 # 3 loops of 1000 calls
//!     NDSIMD_NUM_THREADS=1 ./target/release/calls argmax      # µs per 1024² argmax
//!     NDSIMD_NUM_THREADS=1 ./target/release/calls argmax last # the maximum last
//!
//! `matmul N` (or `MxKxN`): the best of three loops of `matmul_into` on N x N (M x K
//! by K x N) f64 operands from
//! `Vec`s (a third argument sets the calls per loop: instructions per call under
//! `valgrind --tool=callgrind` are the difference of two counts over the difference
//! of their calls). `argmax [last]`: the best of 50 calls of `argmax()` and
//! `argmax_axis(1)` on a 1024 x 1024 f64 array of xorshift values in [0, 1) (with
//! `last`, 2.0 in the last element). The answers are checked first.

use ndsimd::Array;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("matmul") => {
            // `N` (a square) or `MxKxN`.
            let dims: Vec<usize> = args.get(1).map_or(vec![16], |s| {
                s.split('x').filter_map(|v| v.parse().ok()).collect()
            });
            let (m, k, n) = match dims[..] {
                [m, k, n] => (m, k, n),
                [n] => (n, n, n),
                _ => panic!("matmul N or MxKxN"),
            };
            let a =
                Array::<f64>::from_shape_vec(&[m, k], (0..m * k).map(|i| (i % 7) as f64).collect())
                    .unwrap();
            let b =
                Array::<f64>::from_shape_vec(&[k, n], (0..k * n).map(|i| (i % 5) as f64).collect())
                    .unwrap();
            let mut c = Array::<f64>::zeros(&[m, n]);
            a.matmul_into(&b, 1.0, 0.0, &mut c).unwrap();
            let want = (0..n).map(|j| {
                (0..k)
                    .map(|p| ((p % 7) * ((p * n + j) % 5)) as f64)
                    .sum::<f64>()
            });
            for (j, w) in want.enumerate() {
                assert_eq!(c.to_vec()[j], w, "column {j} of row 0");
            }
            let iters = args
                .get(2)
                .and_then(|s| s.parse().ok())
                .unwrap_or((200_000_000 / (m * n * k)).max(10));
            let mut best = f64::MAX;
            for _ in 0..3 {
                let t = Instant::now();
                for _ in 0..iters {
                    a.matmul_into(&b, 1.0, 0.0, std::hint::black_box(&mut c))
                        .unwrap();
                }
                best = best.min(t.elapsed().as_nanos() as f64 / iters as f64);
            }
            println!("{m}x{k}x{n} f64 matmul_into: {best:.1} ns per call");
        }
        Some("argmax") => {
            let n = 1024;
            let mut s = 0x9E37_79B9_7F4A_7C15u64;
            let mut v: Vec<f64> = (0..n * n)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    (s >> 11) as f64 / (1u64 << 53) as f64
                })
                .collect();
            if args.get(1).is_some_and(|a| a == "last") {
                v[n * n - 1] = 2.0;
            }
            let want = v
                .iter()
                .enumerate()
                .fold(0, |bi, (i, &x)| if x > v[bi] { i } else { bi });
            let a = Array::<f64>::from_shape_vec(&[n, n], v).unwrap();
            assert_eq!(a.argmax().unwrap(), want);
            let best = |f: &mut dyn FnMut()| {
                let mut b = f64::MAX;
                for _ in 0..50 {
                    let t = Instant::now();
                    f();
                    b = b.min(t.elapsed().as_secs_f64());
                }
                b * 1e6
            };
            let all = best(&mut || {
                std::hint::black_box(a.argmax().unwrap());
            });
            let rows = best(&mut || {
                std::hint::black_box(a.argmax_axis(1, false).unwrap());
            });
            println!("1024² f64 argmax: {all:.1} µs, argmax_axis(1): {rows:.1} µs");
        }
        _ => panic!("usage: calls matmul N | calls argmax [last]"),
    }
}
