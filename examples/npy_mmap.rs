//! Mapping a `.npy` file costs the same whatever its size: `npy::mmap` of a 1 GiB
//! sparse file (written here, holes all through) against `npy::mmap` of a 1 KiB
//! file, in interleaved rounds; the median and spread of each, and their ratio.
//! Every round checks the view before the clock is read again.
//!
//! Run: `cargo run --release --example npy_mmap [ROUNDS]` (default 201).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use ndsimd::npy;

/// Removes the file when dropped, so a failed check leaves nothing behind.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A `.npy` file of `n` `f64` zeros, written as a header and a hole.
fn sparse_npy(name: &str, n: usize) -> std::io::Result<TempFile> {
    let path = std::env::temp_dir().join(format!("ndsimd-{name}-{}.npy", std::process::id()));
    let file = TempFile(path);
    let dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({n},), }}");
    // The data starts at byte 128, as NumPy pads it: 10 bytes of prefix, then the
    // dict, spaces and a newline.
    let mut head = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
    head.extend_from_slice(dict.as_bytes());
    head.resize(127, b' ');
    head.push(b'\n');
    let mut f = std::fs::File::create(&file.0)?;
    f.write_all(&head)?;
    f.set_len(128 + 8 * n as u64)?;
    Ok(file)
}

/// Maps `path` and checks the view's length; the seconds it took.
fn map_once(path: &Path, n: usize) -> f64 {
    let t = Instant::now();
    let mapped = npy::mmap::<f64>(path).expect("mmap");
    let len = mapped.view().len();
    let s = t.elapsed().as_secs_f64();
    assert_eq!(len, n);
    s
}

fn median_spread(xs: &mut [f64]) -> (f64, f64, f64) {
    xs.sort_by(f64::total_cmp);
    let q = |p: f64| xs[((xs.len() - 1) as f64 * p).round() as usize];
    (q(0.5), q(0.1), q(0.9))
}

fn main() -> std::io::Result<()> {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(201);
    let (big_n, small_n) = ((1usize << 30) / 8, 128);
    let big = sparse_npy("mmap-gib", big_n)?;
    let small = sparse_npy("mmap-kib", small_n)?;
    let mid = npy::mmap::<f64>(&big.0)?;
    assert_eq!(mid.view().get(&[big_n / 2]), Some(&0.0));
    drop(mid);
    let (mut b, mut s, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let tb = map_once(&big.0, big_n);
        let ts = map_once(&small.0, small_n);
        b.push(tb);
        s.push(ts);
        ratio.push(tb / ts);
    }
    let (bm, b10, b90) = median_spread(&mut b);
    let (sm, s10, s90) = median_spread(&mut s);
    let (rm, r10, r90) = median_spread(&mut ratio);
    println!("npy::mmap, {rounds} interleaved rounds (median [p10, p90]):");
    println!(
        "  1 GiB sparse: {:.1} us [{:.1}, {:.1}]",
        bm * 1e6,
        b10 * 1e6,
        b90 * 1e6
    );
    println!(
        "  1 KiB:        {:.1} us [{:.1}, {:.1}]",
        sm * 1e6,
        s10 * 1e6,
        s90 * 1e6
    );
    println!("  time(1 GiB) / time(1 KiB): {rm:.2} [{r10:.2}, {r90:.2}]");
    Ok(())
}
