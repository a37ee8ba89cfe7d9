//! ndsimd's in-memory byte scans against the crates ripgrep counts and searches
//! with, in one process, interleaved: counting newlines (`count_byte_in` against
//! `bytecount::count`, what ripgrep's line counting calls, and
//! `memchr::memchr_iter(..).count()`), and finding the first non-zero byte of a
//! zeroed buffer with one needle at the end (`find_nonzero_in` against
//! `memchr::memchr` looking for that byte, which only works because the test
//! knows it, so it is the fastest a byte search can be). Each round times every
//! case (samples of at least 20 ms, median of 5); 5 rounds; medians in GB/s.
//! Answers are checked equal first.
//!
//!     cd benches/peers
//!     NDSIMD_NUM_THREADS=1 cargo run --release --bin bytes
//!     NDSIMD_NUM_THREADS=2 cargo run --release --bin bytes
//!
//! The peers are single-threaded; ndsimd splits inputs of 512 KiB and more over
//! its pool when `NDSIMD_NUM_THREADS` is above 1.
use std::hint::black_box;

#[path = "../timing.rs"]
mod timing;
use timing::median;

/// GB/s of `f` over `bytes` (the shared timing rule).
fn rate(bytes: usize, f: &mut dyn FnMut()) -> f64 {
    bytes as f64 / timing::secs(f) / 1e9
}

fn main() {
    let threads = ndsimd::num_threads();
    let rounds = 5;
    println!("in-memory byte scans, ndsimd on {threads} thread(s), peers on one; {rounds} rounds; GB/s medians (min-max)");
    println!(
        "{:<34} {:>9} {:>22} {:>8}",
        "case", "bytes", "GB/s", "vs best"
    );
    for size in [16usize << 10, 1 << 20, 64 << 20] {
        // Text-like: a newline every 61 bytes; a haystack: zeros, one byte at the end.
        let text: Vec<u8> = (0..size)
            .map(|i| {
                if i % 61 == 60 {
                    b'\n'
                } else {
                    b'a' + (i % 26) as u8
                }
            })
            .collect();
        // Every page written (a zeroed allocation left untouched would map the
        // kernel's one zero page and "read" from cache at any size).
        let mut hay = vec![1u8; size];
        hay.fill(0);
        hay[size - 1] = 7;
        let want = (size / 61) as u64;
        assert_eq!(ndsimd::scan::count_byte_in(&text, b'\n'), want);
        assert_eq!(bytecount::count(&text, b'\n') as u64, want);
        assert_eq!(memchr::memchr_iter(b'\n', &text).count() as u64, want);
        assert_eq!(
            ndsimd::scan::find_nonzero_in(&hay),
            Some(((size - 1) & !7) as u64)
        );
        assert_eq!(memchr::memchr(7, &hay), Some(size - 1));
        type Case<'a> = (&'a str, Box<dyn FnMut() + 'a>);
        let mut cases: Vec<Case> = vec![
            (
                "count: ndsimd count_byte_in",
                Box::new(|| {
                    black_box(ndsimd::scan::count_byte_in(black_box(&text), b'\n'));
                }),
            ),
            (
                "count: bytecount::count",
                Box::new(|| {
                    black_box(bytecount::count(black_box(&text), b'\n'));
                }),
            ),
            (
                "count: memchr_iter().count()",
                Box::new(|| {
                    black_box(memchr::memchr_iter(b'\n', black_box(&text)).count());
                }),
            ),
            (
                "find: ndsimd find_nonzero_in",
                Box::new(|| {
                    black_box(ndsimd::scan::find_nonzero_in(black_box(&hay)));
                }),
            ),
            (
                "find: memchr::memchr(known byte)",
                Box::new(|| {
                    black_box(memchr::memchr(7, black_box(&hay)));
                }),
            ),
        ];
        let mut got: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
        for _ in 0..rounds {
            for (i, (_, f)) in cases.iter_mut().enumerate() {
                got[i].push(rate(size, f.as_mut()));
            }
        }
        let med: Vec<f64> = got.iter().map(|v| median(&mut v.clone())).collect();
        for (i, (name, _)) in cases.iter().enumerate() {
            let lo = got[i].iter().cloned().fold(f64::INFINITY, f64::min);
            let hi = got[i].iter().cloned().fold(0.0, f64::max);
            // Against the best of the other libraries on the same task.
            let task = &name[..5];
            let best_peer = cases
                .iter()
                .enumerate()
                .filter(|(j, (n, _))| *j != i && n.starts_with(task) && !n.contains("ndsimd"))
                .map(|(j, _)| med[j])
                .fold(0.0, f64::max);
            let vs = if name.contains("ndsimd") && best_peer > 0.0 {
                format!("{:.2}", med[i] / best_peer)
            } else {
                String::new()
            };
            println!(
                "{:<34} {:>9} {:>8.2} ({:>5.2}-{:>5.2}) {:>8}",
                name, size, med[i], lo, hi, vs
            );
        }
    }
}
