//! Prints `sum` of `.npy` files at 1 and 2 threads, for `benches/sum_accuracy.py`
//! (the accuracy table of docs/perf.md against NumPy).
//!
//! Usage: `cargo run --release --example sum_accuracy -- f32:a.npy f64:b.npy ...`;
//! one line per file: the path, then the two sums with 17 significant digits.

use ndsimd::{npy, with_threads};

fn main() -> std::io::Result<()> {
    ndsimd::set_num_threads(2);
    for arg in std::env::args().skip(1) {
        let (dtype, path) = arg.split_once(':').unwrap_or(("f64", &arg));
        let (one, two) = if dtype == "f32" {
            let a = npy::read::<f32>(path)?;
            let s = |t| with_threads(t, || a.sum()) as f64;
            (s(1), s(2))
        } else {
            let a = npy::read::<f64>(path)?;
            let s = |t| with_threads(t, || a.sum());
            (s(1), s(2))
        };
        println!("{path} {one:.17e} {two:.17e}");
    }
    Ok(())
}
