//! The plain parallel read a scan is measured against (feature `internals`).

use super::file::{check_unchanged, mapping_for, open};
use super::memory::{piece, with_threads, PIECE_MIN};
use super::pread::for_each_block;
use super::ScanOptions;
use ndsimd_kernels::{par, pool};
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Reads the whole file at `path` as [`find_nonzero`](super::find_nonzero) and [`count_byte`](super::count_byte) do (the same
/// shards, buffers, threads and strategy) but scans nothing, and returns the bytes
/// read: the "plain parallel read" a scan is measured against. With
/// [`Strategy::Mmap`](super::Strategy::Mmap) it maps the file and reads one byte of every 4 KiB page.
/// For benchmarks and tests: behind the feature `internals`, not part of the stable
/// API.
///
/// # Errors
///
/// As [`count_byte`](super::count_byte).
///
/// ```
/// use ndsimd::scan::{read_ceiling, ScanOptions};
/// let path = std::env::temp_dir().join(format!("ndsimd-scan-ceiling-{}", std::process::id()));
/// std::fs::write(&path, vec![1u8; 12_345])?;
/// assert_eq!(read_ceiling(&path, &ScanOptions::default())?, 12_345);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn read_ceiling(path: impl AsRef<Path>, opts: &ScanOptions) -> io::Result<u64> {
    let path = path.as_ref();
    let (file, len) = open(path)?;
    let read = match mapping_for(&file, path, len, opts.strategy)? {
        None => {
            let stop = AtomicU64::new(u64::MAX);
            let total = AtomicU64::new(0);
            for_each_block(&file, path, len, opts, &stop, &|_, block| {
                // Look at the block so the read cannot be thought useless.
                std::hint::black_box(block);
                total.fetch_add(block.len() as u64, Ordering::Relaxed);
            })
            .map_err(|(_, e)| e)?;
            total.into_inner()
        }
        Some(map) => {
            let sum = with_threads(opts, || {
                let pages = map.len().div_ceil(4096);
                let sum = AtomicU64::new(0);
                let chunks = par::pieces(map.len(), PIECE_MIN).max(1);
                pool::run(chunks, &|i| {
                    let r = piece(pages, chunks, i);
                    let s: u64 = r.map(|p| u64::from(map[p * 4096])).sum();
                    sum.fetch_add(s, Ordering::Relaxed);
                });
                sum.into_inner()
            });
            std::hint::black_box(sum);
            if let Some(p) = opts.progress {
                p.add(len);
            }
            len
        }
    };
    check_unchanged(&file, path, len)?;
    Ok(read)
}
