//! Scanning files at memory bandwidth (DESIGN §7): the first non-zero 8-byte word
//! (the haystack search) and byte counting (`wc -l`), over a file or over bytes in
//! memory, on the pool, with the SIMD byte kernels of [`ndsimd_kernels::byte_table`].
//!
//! ```
//! use ndsimd::scan::{self, ScanOptions};
//! let path = std::env::temp_dir().join(format!("ndsimd-scan-mod-{}", std::process::id()));
//! let mut data = vec![0u8; 4096];
//! data[1000] = 1;
//! std::fs::write(&path, &data)?;
//! assert_eq!(scan::find_nonzero(&path, &ScanOptions::default())?, Some(1000));
//! assert_eq!(scan::count_byte(&path, 0, &ScanOptions::default())?, 4095);
//! std::fs::remove_file(&path)?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! [`LineIndex`] records where every `every`-th line starts, counting the lines in
//! the same single read of the file.
//!
//! # Strategies
//!
//! [`Strategy::Pread`] (the default) cuts the file into shards, a few per thread, each
//! a whole number of buffers; a worker reads its shard with positioned reads into its
//! own buffer (one per worker and call, reused for every read) and scans each buffer
//! while it is still in cache. [`Strategy::Direct`] does the same with `O_DIRECT`
//! reads (no page cache). [`Strategy::Mmap`] maps the file and runs the in-memory
//! forms over the mapping. [`Strategy::Auto`] maps the file when it is in the page
//! cache and reads it with `pread` when it is not.
//!
//! # What counts as an error
//!
//! Every error is an [`io::Error`] whose message starts with the path. A missing file,
//! a directory, anything that is not a regular file (never opened, so a FIFO cannot
//! block the call), an unreadable file, a read error, and a file whose length changes
//! while it is read (a read that ends early, a different length afterwards, or bytes
//! past the length it had) are errors. An empty file is not: it has no non-zero word
//! and no bytes. With [`Strategy::Direct`], a file system that refuses `O_DIRECT` is
//! an [`io::ErrorKind::Unsupported`] error (no silent fallback).

#[cfg(feature = "internals")]
mod ceiling;
mod file;
mod index;
mod memory;
mod options;
mod pread;
#[cfg(test)]
mod tests;

#[cfg(feature = "internals")]
pub use ceiling::read_ceiling;
pub use index::LineIndex;
/// How many bytes of a mapped file a worker asks the kernel to map at a time (for
/// tests; behind the feature `internals`).
#[cfg(feature = "internals")]
pub use memory::POPULATE_STEP;
pub use memory::{count_byte_in, find_nonzero_in};
pub use options::{Progress, ScanOptions, Strategy};

use file::{check_unchanged, mapping_for, open};
use memory::{count_par, first_nonzero_byte_par, with_threads};
use pread::{pread_count, pread_find};
use std::io;
use std::path::Path;

/// The byte offset of the first non-zero aligned 8-byte word of the file at `path`
/// (a trailing partial word counts as zero-padded), or `None` when there is none
/// (an empty file included). Workers stop reading past a needle already found.
///
/// # Errors
///
/// See the [module documentation](self#what-counts-as-an-error); every message
/// names the path.
///
/// ```
/// use ndsimd::scan::{find_nonzero, ScanOptions, Strategy};
/// let path = std::env::temp_dir().join(format!("ndsimd-scan-find-{}", std::process::id()));
/// let mut data = vec![0u8; 20];
/// data[17] = 1; // in the trailing partial word 16..20
/// std::fs::write(&path, &data)?;
/// for strategy in [Strategy::Pread, Strategy::Mmap] {
///     let opts = ScanOptions { strategy, ..ScanOptions::default() };
///     assert_eq!(find_nonzero(&path, &opts)?, Some(16));
/// }
/// // Direct gives the same answer where the file system supports O_DIRECT.
/// let direct = ScanOptions { strategy: Strategy::Direct, ..ScanOptions::default() };
/// match find_nonzero(&path, &direct) {
///     Ok(found) => assert_eq!(found, Some(16)),
///     Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::Unsupported),
/// }
/// std::fs::remove_file(&path)?;
/// let err = find_nonzero(&path, &ScanOptions::default()).unwrap_err();
/// assert!(err.to_string().contains(&*path.to_string_lossy()));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn find_nonzero(path: impl AsRef<Path>, opts: &ScanOptions) -> io::Result<Option<u64>> {
    let path = path.as_ref();
    let (file, len) = open(path)?;
    let found = match mapping_for(&file, path, len, opts.strategy)? {
        None => pread_find(&file, path, len, opts)?,
        Some(map) => {
            let found = with_threads(opts, || {
                first_nonzero_byte_par(&map, Some(&map), opts.progress)
            });
            found.map(|p| p as u64 & !7)
        }
    };
    check_unchanged(&file, path, len)?;
    Ok(found)
}

/// How many bytes of the file at `path` equal `byte`; `count_byte(path, b'\n', ..)`
/// is the line count `wc -l` prints (a last line without a newline is not counted).
///
/// # Errors
///
/// See the [module documentation](self#what-counts-as-an-error); every message
/// names the path.
///
/// ```
/// use ndsimd::scan::{count_byte, ScanOptions};
/// let path = std::env::temp_dir().join(format!("ndsimd-scan-count-{}", std::process::id()));
/// std::fs::write(&path, "a\r\nb\n\nno newline at the end")?;
/// assert_eq!(count_byte(&path, b'\n', &ScanOptions::default())?, 3);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn count_byte(path: impl AsRef<Path>, byte: u8, opts: &ScanOptions) -> io::Result<u64> {
    let path = path.as_ref();
    let (file, len) = open(path)?;
    let n = match mapping_for(&file, path, len, opts.strategy)? {
        None => pread_count(&file, path, len, byte, opts)?,
        Some(map) => with_threads(opts, || count_par(&map, byte, Some(&map), opts.progress)),
    };
    check_unchanged(&file, path, len)?;
    Ok(n)
}

/// The strategy a scan of the file at `path` with `opts` uses: `opts.strategy`,
/// except that [`Strategy::Auto`] is settled now, to [`Strategy::Mmap`] or
/// [`Strategy::Pread`], as a scan starting now would settle it (the page cache may
/// change before a later scan).
///
/// # Errors
///
/// As [`count_byte`] (for `Auto` only: the others are returned as they are).
///
/// ```
/// use ndsimd::scan::{resolve_strategy, ScanOptions, Strategy};
/// let path = std::env::temp_dir().join(format!("ndsimd-scan-resolve-{}", std::process::id()));
/// std::fs::write(&path, vec![b'\n'; 1 << 20])?;
/// let auto = ScanOptions { strategy: Strategy::Auto, ..ScanOptions::default() };
/// // Just written, so in the page cache: mapped on Linux.
/// let picked = resolve_strategy(&path, &auto)?;
/// assert!(picked == Strategy::Mmap || (picked == Strategy::Pread && !cfg!(target_os = "linux")));
/// assert_eq!(resolve_strategy(&path, &ScanOptions::default())?, Strategy::Pread);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn resolve_strategy(path: impl AsRef<Path>, opts: &ScanOptions) -> io::Result<Strategy> {
    if opts.strategy != Strategy::Auto {
        return Ok(opts.strategy);
    }
    let path = path.as_ref();
    let (file, len) = open(path)?;
    Ok(match mapping_for(&file, path, len, Strategy::Auto)? {
        Some(_) => Strategy::Mmap,
        None => Strategy::Pread,
    })
}
