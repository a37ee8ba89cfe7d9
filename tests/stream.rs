//! Outputs written with streaming stores (`ndsimd_kernels::stream`) hold exactly
//! the values of the plain path: every op that streams, at lengths around the
//! staging block and the pool's split, into views at every offset within a cache
//! line, on one and two threads; nothing outside the view is written.
//!
//! Its own test binary: it moves the process-wide threshold (`set_stream_min`), and
//! although results never depend on it, other tests' timings would.

mod common;

use common::Rng;
use ndsimd::{s, Array};
use ndsimd_kernels::stream::{set_stream_min, stream_min};

const LENGTHS: [usize; 10] = [1, 7, 255, 256, 1023, 1024, 1025, 5000, 40_000, 70_001];

fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    (0..n)
        .map(|_| (rng.next() % 20_001) as f64 / 64.0 - 150.0)
        .collect()
}

/// Runs `op` into a view at `offset` of a sentinel-filled buffer, with streaming
/// forced on and then off, and returns both buffers (whole, sentinels included).
fn both(n: usize, offset: usize, op: &dyn Fn(&mut ndsimd::ArrayViewMut<'_, f64>)) -> [Vec<f64>; 2] {
    let default = stream_min();
    let run = |min: usize| {
        set_stream_min(min);
        let mut buf = Array::from_elem(&[n + 16], -7.25);
        {
            let mut view = buf.slice_mut(s![offset..offset + n]).unwrap();
            op(&mut view);
        }
        buf.to_vec()
    };
    let got = [run(1), run(usize::MAX)];
    set_stream_min(default);
    got
}

// One test only: the threshold is process-wide, and a second test running on
// another thread would see the values this one sets.
#[test]
fn streamed_outputs_equal_plain_ones_bit_for_bit() {
    // The default is large enough that outputs which fit in any cache are written
    // plainly. Checked before anything here moves it.
    assert!(
        stream_min() >= 4 << 20,
        "default stream_min {}",
        stream_min()
    );
    for threads in [1, 2] {
        ndsimd::with_threads(threads, || {
            for n in LENGTHS {
                let (a, b, c) = (
                    Array::from_vec(data(n, 1)),
                    Array::from_vec(data(n, 2)),
                    Array::from_vec(data(n, 3)),
                );
                let pos = Array::from_vec(data(n, 4).iter().map(|x| x.abs()).collect::<Vec<_>>());
                type Op<'a> = (
                    &'a str,
                    Box<dyn Fn(&mut ndsimd::ArrayViewMut<'_, f64>) + 'a>,
                );
                let ops: Vec<Op> = vec![
                    ("add_into", Box::new(|o| a.add_into(&b, o).unwrap())),
                    ("div_into scalar", Box::new(|o| a.div_into(3.0, o).unwrap())),
                    ("maximum_into", Box::new(|o| a.maximum_into(&b, o).unwrap())),
                    ("sqrt_into", Box::new(|o| pos.sqrt_into(o).unwrap())),
                    ("neg_into", Box::new(|o| a.neg_into(o).unwrap())),
                    (
                        "mul_add_into",
                        Box::new(|o| a.mul_add_into(&b, &c, o).unwrap()),
                    ),
                    (
                        "mul_add_into scalar",
                        Box::new(|o| a.mul_add_into(2.5, &c, o).unwrap()),
                    ),
                ];
                for (name, op) in &ops {
                    for offset in 0..8 {
                        let [streamed, plain] = both(n, offset, op.as_ref());
                        let same = streamed
                            .iter()
                            .zip(&plain)
                            .all(|(x, y)| x.to_bits() == y.to_bits());
                        assert!(same, "{name}: n {n}, offset {offset}, {threads} thread(s)");
                        let outside = |v: &[f64]| {
                            v[..offset]
                                .iter()
                                .chain(&v[offset + n..])
                                .all(|&x| x == -7.25)
                        };
                        assert!(
                            outside(&streamed),
                            "{name} wrote outside: n {n}, offset {offset}"
                        );
                    }
                }
            }
        });
    }
}
