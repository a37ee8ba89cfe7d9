//! Scanning files at memory bandwidth (DESIGN §7): the first non-zero 8-byte word
//! (the haystack search) and byte counting (`wc -l`), over a file or over bytes in
//! memory, on the pool, with the SIMD byte kernels of [`crate::kernels::byte_table`].
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
//! # Strategies
//!
//! [`Strategy::Pread`] (the default) cuts the file into shards, a few per thread, each
//! a whole number of buffers; a worker reads its shard with positioned reads into its
//! own buffer (one per worker and call, reused for every read) and scans each buffer
//! while it is still in cache. [`Strategy::Mmap`] maps the file and runs the in-memory
//! forms over the mapping.
//!
//! # What counts as an error
//!
//! Every error is an [`io::Error`] whose message starts with the path. A missing file,
//! a directory, anything that is not a regular file (never opened, so a FIFO cannot
//! block the call), an unreadable file, a read error, and a file whose length changes
//! while it is read (a read that ends early, a different length afterwards, or bytes
//! past the length it had) are errors. An empty file is not: it has no non-zero word
//! and no bytes.

use crate::kernels::{byte_table, io::as_words, io::Mapping, par, pool};
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// How a file is read: see the [module documentation](self#strategies).
///
/// ```
/// use ndsimd::scan::{ScanOptions, Strategy};
/// assert_eq!(Strategy::default(), Strategy::Pread);
/// let opts = ScanOptions { strategy: Strategy::Mmap, ..ScanOptions::default() };
/// assert_eq!(opts.strategy, Strategy::Mmap);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Positioned reads (`pread`) of each worker's shard into its own buffer of
    /// [`ScanOptions::buffer`] bytes. A file that shrinks or grows while it is read
    /// is reported as an error.
    #[default]
    Pread,
    /// A memory map of the whole file (with `MADV_SEQUENTIAL` and `MADV_WILLNEED`),
    /// scanned by [`find_nonzero_in`] / [`count_byte_in`]; [`ScanOptions::buffer`] is
    /// not used.
    ///
    /// **Opt-in, with a risk:** if another process truncates the file while it is
    /// mapped, reading a page past the new end raises `SIGBUS`, which kills the
    /// process (no error can be returned). A file that changes length without a
    /// fault is caught by checking the length after the scan. Use it only on files
    /// nobody truncates while they are scanned.
    Mmap,
}

/// Options of the file scans.
///
/// ```
/// use ndsimd::scan::{ScanOptions, Strategy};
/// let o = ScanOptions::default();
/// assert_eq!((o.strategy, o.threads, o.buffer), (Strategy::Pread, None, 1 << 20));
/// let small = ScanOptions { threads: Some(2), buffer: 4096, ..o };
/// assert_eq!(small.buffer, 4096);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanOptions {
    /// How the file is read.
    pub strategy: Strategy,
    /// Threads to use, capped by the pool's size ([`crate::num_threads`]); `None`
    /// means [`crate::kernels::pool::current_num_threads`], `Some(0)` is taken as 1.
    /// With [`Strategy::Pread`] it also sets how the file is cut (four shards per
    /// thread), whatever the pool really runs.
    pub threads: Option<usize>,
    /// Bytes per read with [`Strategy::Pread`] (default 1 MiB), rounded up to a
    /// multiple of 8 (at least 8). Shards are whole numbers of buffers.
    pub buffer: usize,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            strategy: Strategy::Pread,
            threads: None,
            buffer: 1 << 20,
        }
    }
}

/// In-memory inputs at least this long are split over the pool, in pieces of at
/// least `PIECE_MIN`. Measured (2 threads, data in cache): from 512 KiB in two
/// 256 KiB pieces both scans run 1.7-1.9x one thread; with 32 KiB pieces the gain
/// below 512 KiB came and went from run to run.
const PAR_MIN: usize = 512 << 10;
/// The smallest piece a parallel in-memory scan hands one chunk.
const PIECE_MIN: usize = 256 << 10;
/// A parallel in-memory find checks whether another worker found an earlier
/// needle every this many bytes.
const FIND_STEP: usize = 256 << 10;

/// The byte offset of the first non-zero aligned 8-byte word of `bytes` (words are
/// counted from the start of the slice, whatever its address; a trailing partial
/// word counts as zero-padded), or `None` if every byte is zero. Inputs of 512 KiB
/// and more are split over the pool, which stops as soon as a needle is found before
/// every piece still unread.
///
/// ```
/// use ndsimd::scan::find_nonzero_in;
/// let mut v = vec![0u8; 100];
/// assert_eq!(find_nonzero_in(&v), None);
/// v[13] = 5;
/// assert_eq!(find_nonzero_in(&v), Some(8));
/// assert_eq!(find_nonzero_in(&v[3..]), Some(8)); // byte 10 of the subslice
/// ```
pub fn find_nonzero_in(bytes: &[u8]) -> Option<u64> {
    first_nonzero_byte_par(bytes).map(|p| p as u64 & !7)
}

/// How many bytes of `bytes` equal `byte` (`count_byte_in(text, b'\n')` is what
/// `wc -l` prints). Inputs of 512 KiB and more are split over the pool.
///
/// ```
/// use ndsimd::scan::count_byte_in;
/// assert_eq!(count_byte_in(b"one\ntwo\r\n\nlast", b'\n'), 3);
/// assert_eq!(count_byte_in(b"", b'\n'), 0);
/// ```
pub fn count_byte_in(bytes: &[u8], byte: u8) -> u64 {
    let count = byte_table().count_byte;
    if bytes.len() < PAR_MIN || pool::current_num_threads() <= 1 {
        return count(bytes, byte) as u64;
    }
    let pieces = par::pieces(bytes.len(), PIECE_MIN);
    let total = AtomicU64::new(0);
    pool::run(pieces, &|i| {
        let piece = &bytes[piece(bytes.len(), pieces, i)];
        total.fetch_add(count(piece, byte) as u64, Ordering::Relaxed);
    });
    total.into_inner()
}

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
/// std::fs::remove_file(&path)?;
/// let err = find_nonzero(&path, &ScanOptions::default()).unwrap_err();
/// assert!(err.to_string().contains(&*path.to_string_lossy()));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn find_nonzero(path: impl AsRef<Path>, opts: &ScanOptions) -> io::Result<Option<u64>> {
    let path = path.as_ref();
    let (file, len) = open(path)?;
    let found = match opts.strategy {
        Strategy::Pread => pread_find(&file, path, len, opts)?,
        Strategy::Mmap => {
            let map = map(&file, path, len)?;
            with_threads(opts, || find_nonzero_in(&map))
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
    let n = match opts.strategy {
        Strategy::Pread => pread_count(&file, path, len, byte, opts)?,
        Strategy::Mmap => {
            let map = map(&file, path, len)?;
            with_threads(opts, || count_byte_in(&map, byte))
        }
    };
    check_unchanged(&file, path, len)?;
    Ok(n)
}

// ---------------------------------------------------------------------------------
// In memory

/// Range of piece `i` of `len` bytes cut into `pieces`, starting at multiples of 64.
fn piece(len: usize, pieces: usize, i: usize) -> std::ops::Range<usize> {
    par::piece_start(len, pieces, 64, i)..par::piece_start(len, pieces, 64, i + 1)
}

/// The index of the first non-zero byte, on one thread.
fn first_nonzero_byte(bytes: &[u8]) -> Option<usize> {
    let (head, words, tail) = as_words(bytes);
    if let Some(i) = head.iter().position(|&b| b != 0) {
        return Some(i);
    }
    if let Some(w) = (byte_table().first_nonzero_word)(words) {
        let in_word = words[w].to_ne_bytes().iter().position(|&b| b != 0);
        return Some(head.len() + 8 * w + in_word.unwrap_or(0));
    }
    let before = head.len() + 8 * words.len();
    tail.iter().position(|&b| b != 0).map(|i| before + i)
}

/// The index of the first non-zero byte, split over the pool for large inputs.
fn first_nonzero_byte_par(bytes: &[u8]) -> Option<usize> {
    if bytes.len() < PAR_MIN || pool::current_num_threads() <= 1 {
        return first_nonzero_byte(bytes);
    }
    let pieces = par::pieces(bytes.len(), PIECE_MIN);
    // The smallest needle position found so far; pieces past it are not read.
    let best = AtomicU64::new(u64::MAX);
    pool::run(pieces, &|i| {
        let range = piece(bytes.len(), pieces, i);
        let mut at = range.start;
        while at < range.end && (at as u64) < best.load(Ordering::Relaxed) {
            let end = (at + FIND_STEP).min(range.end);
            if let Some(p) = first_nonzero_byte(&bytes[at..end]) {
                best.fetch_min((at + p) as u64, Ordering::Relaxed);
                return;
            }
            at = end;
        }
    });
    match best.into_inner() {
        u64::MAX => None,
        p => Some(p as usize),
    }
}

fn with_threads<R>(opts: &ScanOptions, f: impl FnOnce() -> R) -> R {
    match opts.threads {
        Some(n) => pool::with_threads(n.max(1), f),
        None => f(),
    }
}

// ---------------------------------------------------------------------------------
// Files

fn error(path: &Path, kind: io::ErrorKind, msg: impl std::fmt::Display) -> io::Error {
    io::Error::new(kind, format!("{}: {msg}", path.display()))
}

/// `e` with the path and what was being done in its message (its kind kept).
fn context(path: &Path, what: &str, e: io::Error) -> io::Error {
    error(path, e.kind(), format_args!("{what}: {e}"))
}

/// Opens a regular file for reading and returns it with its length. Anything else
/// is refused before it is opened (opening a FIFO would block).
fn open(path: &Path) -> io::Result<(File, u64)> {
    let meta = fs::metadata(path).map_err(|e| context(path, "cannot access", e))?;
    check_regular(path, &meta)?;
    let file = File::open(path).map_err(|e| context(path, "cannot open", e))?;
    let meta = file
        .metadata()
        .map_err(|e| context(path, "cannot stat", e))?;
    check_regular(path, &meta)?;
    Ok((file, meta.len()))
}

fn check_regular(path: &Path, meta: &fs::Metadata) -> io::Result<()> {
    let t = meta.file_type();
    if t.is_dir() {
        return Err(error(path, io::ErrorKind::IsADirectory, "is a directory"));
    }
    if !t.is_file() {
        return Err(error(
            path,
            io::ErrorKind::InvalidInput,
            "not a regular file (a device, FIFO or socket cannot be scanned)",
        ));
    }
    Ok(())
}

/// Fails unless the file still has `len` bytes, none past them.
fn check_unchanged(file: &File, path: &Path, len: u64) -> io::Result<()> {
    let now = file
        .metadata()
        .map_err(|e| context(path, "cannot stat", e))?
        .len();
    if now != len {
        return Err(changed(
            path,
            format_args!("{len} bytes before, {now} after"),
        ));
    }
    // A file can hold more than its length says: one appended to meanwhile, or a
    // /proc-like file that reports 0 bytes. Either way the answer would be partial.
    let mut one = [0u8; 1];
    match read_at_retry(file, &mut one, len) {
        Ok(0) => Ok(()),
        Ok(_) => Err(changed(
            path,
            format_args!("it has bytes past the {len} it reported: it grew, or it is /proc-like"),
        )),
        Err(e) => Err(context(path, &format!("read at offset {len}"), e)),
    }
}

fn changed(path: &Path, detail: impl std::fmt::Display) -> io::Error {
    error(
        path,
        io::ErrorKind::UnexpectedEof,
        format_args!("file changed size while being read ({detail})"),
    )
}

fn read_at_retry(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    loop {
        match file.read_at(buf, offset) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

/// Fills `buf` from `offset`, failing if the file ends first.
fn read_full(file: &File, path: &Path, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match read_at_retry(file, buf, offset) {
            Ok(0) => {
                return Err(changed(
                    path,
                    format_args!("a read at offset {offset} found the end of the file early"),
                ))
            }
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) => return Err(context(path, &format!("read at offset {offset}"), e)),
        }
    }
    Ok(())
}

fn map(file: &File, path: &Path, len: u64) -> io::Result<Mapping> {
    let map = Mapping::new(file).map_err(|e| context(path, "cannot map", e))?;
    if map.len() as u64 != len {
        return Err(changed(
            path,
            format_args!("{len} bytes before, {} when mapped", map.len()),
        ));
    }
    // Only a hint: a refusal changes nothing.
    let _ = map.advise_sequential();
    Ok(map)
}

/// The alignment of the read buffers. Measured here (Zen 3 VM, warm 1 GiB file,
/// 1 MiB reads): into a `Vec` as malloc returns it (16 bytes past a page boundary)
/// the kernel's copy runs at 1.5-2 GB/s a thread, into a 64-byte-aligned buffer at
/// 9-10. A page keeps the door open for `O_DIRECT`, which needs it.
const ALIGN: usize = 4096;

/// The cut of `len` bytes into shards for [`Strategy::Pread`].
#[derive(Clone, Copy, Debug)]
struct Shards {
    /// Bytes per read: a multiple of 8.
    buffer: u64,
    /// Bytes per shard (the last may be shorter): a multiple of `buffer`.
    size: u64,
    /// How many shards.
    count: u64,
    /// Threads asked for.
    threads: usize,
}

impl Shards {
    fn new(len: u64, opts: &ScanOptions) -> Shards {
        let buffer = (opts.buffer.max(8) as u64).next_multiple_of(8);
        let threads = opts
            .threads
            .unwrap_or_else(pool::current_num_threads)
            .max(1);
        let blocks = len.div_ceil(buffer).max(1);
        let count = blocks.min(4 * threads as u64);
        let size = blocks.div_ceil(count) * buffer;
        Shards {
            buffer,
            size,
            count: len.div_ceil(size),
            threads,
        }
    }
}

/// Reads `[0, len)` of `file` shard by shard on the pool, calling `visit(offset,
/// block)` for each block of at most `buffer` bytes, in order within a shard. Blocks
/// that start at or past `stop` (which `visit` may lower) are not read. Returns the
/// error of the lowest offset, if any; it also lowers `stop` to that offset, so every
/// block before the returned offset (or before `stop` if none) was visited.
fn for_each_block(
    file: &File,
    path: &Path,
    len: u64,
    opts: &ScanOptions,
    stop: &AtomicU64,
    visit: &(dyn Fn(u64, &[u8]) + Sync),
) -> Result<(), (u64, io::Error)> {
    let shards = Shards::new(len, opts);
    // One buffer per worker: a shard takes a free one (or allocates the first time
    // a worker needs one) and gives it back when done.
    let free: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    let failed: Mutex<Option<(u64, io::Error)>> = Mutex::new(None);
    let cap = shards.buffer.min(shards.size).min(len) as usize;
    let run_shard = |i: usize| {
        let start = i as u64 * shards.size;
        let end = (start + shards.size).min(len);
        if start >= stop.load(Ordering::Relaxed) {
            return;
        }
        let taken = free.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut buf = taken.unwrap_or_else(|| vec![0u8; cap + ALIGN]);
        let skew = buf.as_ptr().align_offset(ALIGN).min(ALIGN);
        let mut at = start;
        while at < end && at < stop.load(Ordering::Relaxed) {
            let n = (end - at).min(shards.buffer) as usize;
            let block = &mut buf[skew..skew + n];
            if let Err(e) = read_full(file, path, block, at) {
                stop.fetch_min(at, Ordering::Relaxed);
                let mut slot = failed.lock().unwrap_or_else(|e| e.into_inner());
                if slot.as_ref().is_none_or(|(o, _)| at < *o) {
                    *slot = Some((at, e));
                }
                break;
            }
            visit(at, block);
            at += n as u64;
        }
        free.lock().unwrap_or_else(|e| e.into_inner()).push(buf);
    };
    pool::with_threads(shards.threads, || {
        pool::run(shards.count as usize, &run_shard)
    });
    match failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(failure) => Err(failure),
        None => Ok(()),
    }
}

fn pread_find(file: &File, path: &Path, len: u64, opts: &ScanOptions) -> io::Result<Option<u64>> {
    let stop = AtomicU64::new(u64::MAX);
    let best = AtomicU64::new(u64::MAX);
    let result = for_each_block(file, path, len, opts, &stop, &|at, block| {
        if let Some(p) = first_nonzero_byte(block) {
            let p = at + p as u64;
            best.fetch_min(p, Ordering::Relaxed);
            stop.fetch_min(p, Ordering::Relaxed);
        }
    });
    let best = best.into_inner();
    match result {
        // Every block before `best` was read: an error past it changes nothing.
        Err((at, e)) if at <= best => Err(e),
        _ => Ok((best != u64::MAX).then_some(best & !7)),
    }
}

fn pread_count(
    file: &File,
    path: &Path,
    len: u64,
    byte: u8,
    opts: &ScanOptions,
) -> io::Result<u64> {
    let count = byte_table().count_byte;
    let stop = AtomicU64::new(u64::MAX);
    let total = AtomicU64::new(0);
    for_each_block(file, path, len, opts, &stop, &|_, block| {
        total.fetch_add(count(block, byte) as u64, Ordering::Relaxed);
    })
    .map_err(|(_, e)| e)?;
    Ok(total.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn temp(name: &str, data: &[u8]) -> PathBuf {
        let p =
            std::env::temp_dir().join(format!("ndsimd-scan-unit-{}-{name}", std::process::id()));
        fs::write(&p, data).unwrap();
        p
    }

    #[test]
    fn shards_are_whole_buffers_and_cover_the_file() {
        for len in [0u64, 1, 8, 4095, 4096, 4097, 100_000, 1 << 20] {
            for threads in 1..=4 {
                for buffer in [0usize, 1, 8, 13, 4096] {
                    let opts = ScanOptions {
                        threads: Some(threads),
                        buffer,
                        ..ScanOptions::default()
                    };
                    let s = Shards::new(len, &opts);
                    assert_eq!(s.buffer % 8, 0);
                    assert!(s.buffer >= 8 && s.buffer as usize >= buffer);
                    assert_eq!(s.size % s.buffer, 0);
                    assert!(s.count <= 4 * threads as u64);
                    assert!(
                        s.count * s.size >= len && (s.count == 0 || (s.count - 1) * s.size < len)
                    );
                }
            }
        }
    }

    // The file is shorter than the length taken when it was opened: what a scan sees
    // when the file shrinks between the `fstat` and the reads.
    #[test]
    fn a_file_shorter_than_its_stat_is_an_error() {
        let p = temp("short", &[0u8; 1000]);
        let file = File::open(&p).unwrap();
        for threads in [1, 2, 3] {
            let opts = ScanOptions {
                threads: Some(threads),
                buffer: 64,
                ..ScanOptions::default()
            };
            let e = pread_find(&file, &p, 4096, &opts).unwrap_err();
            assert!(
                e.to_string().contains("changed size while being read"),
                "{e}"
            );
            assert!(e.to_string().contains(&*p.to_string_lossy()), "{e}");
            assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
            let e = pread_count(&file, &p, 4096, b'\n', &opts).unwrap_err();
            assert!(e.to_string().contains("offset 1000"), "{e}");
        }
        fs::remove_file(&p).unwrap();
    }

    // A needle found before the point where the file ends early is still the answer
    // (every byte before it was read); the length check afterwards is separate.
    #[test]
    fn a_needle_before_a_read_error_is_found() {
        let mut data = vec![0u8; 1000];
        data[100] = 1;
        let p = temp("needle-short", &data);
        let file = File::open(&p).unwrap();
        let opts = ScanOptions {
            threads: Some(2),
            buffer: 64,
            ..ScanOptions::default()
        };
        assert_eq!(pread_find(&file, &p, 4096, &opts).unwrap(), Some(96));
        fs::remove_file(&p).unwrap();
    }

    // The file grew after the scan took its length: the check afterwards says so.
    #[test]
    fn a_file_that_grew_is_an_error() {
        let p = temp("grew", &[0u8; 64]);
        let file = File::open(&p).unwrap();
        assert!(check_unchanged(&file, &p, 64).is_ok());
        let e = check_unchanged(&file, &p, 60).unwrap_err();
        assert!(e.to_string().contains("60 bytes before, 64 after"), "{e}");
        fs::remove_file(&p).unwrap();
    }
}
