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

mod index;

pub use index::LineIndex;

use crate::kernels::{byte_table, io::as_words, io::Mapping, mem::Aligned, par, pool};
use std::fs::{self, File};
use std::io;
use std::ops::Range;
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
    /// scanned as [`find_nonzero_in`] / [`count_byte_in`] scan memory, each worker
    /// asking the OS to map its next 8 MiB of pages in one call before it reads them
    /// (`MADV_POPULATE_READ`, where the kernel has it); [`ScanOptions::buffer`] is
    /// not used.
    ///
    /// **Opt-in, with a risk:** if another process truncates the file while it is
    /// mapped, reading a page past the new end raises `SIGBUS`, which kills the
    /// process (no error can be returned). A file that changes length without a
    /// fault is caught by checking the length after the scan. Where the OS answers
    /// the requests for pages (Linux 5.14 and later), [`find_nonzero`] and
    /// [`count_byte`] stop before pages it says lie past the end, so a truncation
    /// that lands before the scan reaches them is that error, not the signal; one
    /// that lands while a step of 8 MiB is being read is still the signal, and
    /// [`LineIndex::build`] does not ask. Use it only on files nobody truncates
    /// while they are scanned.
    Mmap,
    /// As [`Strategy::Pread`], but through a second descriptor opened with
    /// `O_DIRECT` (Linux only): reads bypass the page cache, for data that is cold
    /// and read once. [`ScanOptions::buffer`] is rounded up to a multiple of 4096;
    /// buffers, offsets and lengths of the direct reads are multiples of 4096, and
    /// the unaligned tail of the file (its last `len % 4096` bytes) is read through
    /// the ordinary descriptor.
    ///
    /// A file system that refuses `O_DIRECT` (`EINVAL` at the open or at a read,
    /// tmpfs for one) gives an [`io::ErrorKind::Unsupported`] error that names the
    /// path and says so; nothing falls back silently.
    Direct,
    /// [`Strategy::Mmap`] when the file is in the page cache, else
    /// [`Strategy::Pread`]: before the scan, the pages of 64 windows of 64 KiB
    /// spread over the file (all of a smaller file) are looked up (`mincore`, on
    /// Linux; elsewhere always `Pread`), and the file is mapped when at least 63 in
    /// 64 of them are resident. A cached file is read fastest mapped (no copy; with
    /// large folios about twice `Pread`'s rate, measured in docs/design.md), a cold
    /// one through `pread` (the mapping's page faults wait for the disk one
    /// read-ahead window at a time). [`resolve_strategy`] says which it would pick.
    ///
    /// A file the OS refuses to map is read with `pread`.
    ///
    /// **When it maps the file, it carries [`Strategy::Mmap`]'s risk** (`SIGBUS` if
    /// another process truncates the file meanwhile): opt-in, as `Mmap` is. The
    /// `ndsimd` tool uses it by default and turns that signal into an error exit
    /// (`kernels::io::exit_on_mapped_sigbus`).
    Auto,
}

/// A counter a file scan adds the bytes it has read to, as it reads them (from the
/// workers, relaxed atomic adds, one per buffer): for a progress bar drawn by
/// another thread. A mapped file ([`Strategy::Mmap`]) adds each part as it is
/// scanned (8 MiB parts for the find and the count, 256 KiB for the line index).
///
/// ```
/// use ndsimd::scan::{count_byte, Progress, ScanOptions};
/// use std::sync::atomic::{AtomicU64, Ordering};
/// static DONE: AtomicU64 = AtomicU64::new(0);
/// let path = std::env::temp_dir().join(format!("ndsimd-scan-progress-{}", std::process::id()));
/// std::fs::write(&path, vec![b'\n'; 10_000])?;
/// let opts = ScanOptions { progress: Some(Progress(&DONE)), ..ScanOptions::default() };
/// assert_eq!(count_byte(&path, b'\n', &opts)?, 10_000);
/// assert_eq!(DONE.load(Ordering::Relaxed), 10_000);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Progress(pub &'static AtomicU64);

impl Progress {
    fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
}

/// Two `Progress` are equal when they are the same counter.
impl PartialEq for Progress {
    fn eq(&self, other: &Progress) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Progress {}

/// Options of the file scans.
///
/// ```
/// use ndsimd::scan::{ScanOptions, Strategy};
/// let o = ScanOptions::default();
/// assert_eq!((o.strategy, o.threads, o.buffer), (Strategy::Pread, None, 1 << 20));
/// assert_eq!(o.progress, None);
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
    /// multiple of 8 (at least 8; a multiple of 4096 with [`Strategy::Direct`]).
    /// Shards are whole numbers of buffers.
    pub buffer: usize,
    /// A counter of the bytes read so far, for a progress bar (default `None`).
    pub progress: Option<Progress>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            strategy: Strategy::Pread,
            threads: None,
            buffer: 1 << 20,
            progress: None,
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
    first_nonzero_byte_par(bytes, None, None).map(|p| p as u64 & !7)
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
    count_par(bytes, byte, None, None)
}

/// [`count_byte_in`]; with `map` (the mapping `bytes` is) each worker asks for its
/// pages [`POPULATE_STEP`] at a time before it counts them.
fn count_par(bytes: &[u8], byte: u8, map: Option<&Mapping>, progress: Option<Progress>) -> u64 {
    let count = byte_table().count_byte;
    let step = if map.is_some() {
        POPULATE_STEP
    } else {
        bytes.len().max(1)
    };
    // `move` closures of values, carried to the helpers by `pool::run_copy`.
    let one = move |r: Range<usize>| -> u64 {
        let mut ahead = Ahead::new(map);
        let mut n = 0;
        for at in (r.start..r.end).step_by(step) {
            let end = (at + step).min(r.end);
            if !ahead.before(at..end, r.end) {
                break;
            }
            n += count(&bytes[at..end], byte) as u64;
            if let Some(p) = progress {
                p.add((end - at) as u64);
            }
        }
        n
    };
    if bytes.len() < PAR_MIN || pool::current_num_threads() <= 1 {
        return one(0..bytes.len());
    }
    let pieces = par::pieces(bytes.len(), PIECE_MIN);
    let total = AtomicU64::new(0);
    let sum = &total;
    pool::run_copy(pieces, move |i| {
        sum.fetch_add(one(piece(bytes.len(), pieces, i)), Ordering::Relaxed);
    });
    total.into_inner()
}

/// How much of a mapped file ([`Strategy::Mmap`]) a worker asks the OS to map in
/// one call (`Mapping::populate`, `MADV_POPULATE_READ`) before it scans that part,
/// rather than taking a page fault every few pages as the scan first touches them.
/// Measured on the Intel VM of stop 21 (2 GiB files, warm, 2 threads, the CLI with
/// and without the calls alternated, 4-6 runs each): a file cached in 4 KiB folios
/// (copied 8 KiB at a time) `lines` 19.2-19.6 GB/s against 15.5-16.1 and `scan`
/// 18.4-19.5 against 16.0-16.3 (`pread` 15.1-15.8 on the same files; the builds
/// before and after alternated: `lines` 17.2-18.1 against 14.4-15.4, docs/perf.md);
/// cached in large folios (read back after an eviction) level, 29-33 against
/// 31-33. 2 MiB steps measured level with 8 MiB in 4 KiB folios; a call per 256 KiB
/// block of the line index's build (blocks taken by the workers in turn) was slower
/// (9.7-11.2 GB/s against 13.2), so the index does not ask. Public for tests, not
/// part of the stable API.
#[doc(hidden)]
pub const POPULATE_STEP: usize = 8 << 20;

/// One worker's requests to map the pages of a mapped file ahead of its scan
/// (nothing without a mapping).
struct Ahead<'a> {
    map: Option<&'a Mapping>,
    /// Offsets below this were asked for.
    upto: usize,
}

impl<'a> Ahead<'a> {
    fn new(map: Option<&'a Mapping>) -> Self {
        Ahead { map, upto: 0 }
    }

    /// Before the scan reads `range`, of a part of the mapping that ends at `limit`:
    /// asks for what of it was not asked for yet, and up to [`POPULATE_STEP`] from
    /// its start (within `limit`). A hint: a refusal (an old kernel) changes nothing.
    /// `false` when the OS answers that reading those pages would raise `SIGBUS`
    /// (`EFAULT`: the file was truncated below them since it was mapped): the scan
    /// must stop there, and the size check after it reports the change.
    fn before(&mut self, range: Range<usize>, limit: usize) -> bool {
        let Some(map) = self.map else { return true };
        if range.end <= self.upto || range.is_empty() {
            return true;
        }
        let from = range.start.max(self.upto);
        let to = (range.start + POPULATE_STEP).min(limit).max(range.end);
        if let Err(e) = map.populate(from..to) {
            #[cfg(target_os = "linux")]
            if e.raw_os_error() == Some(libc::EFAULT) {
                return false;
            }
            let _ = e;
        }
        self.upto = to;
        true
    }
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

/// Reads the whole file at `path` as [`find_nonzero`] and [`count_byte`] do (the same
/// shards, buffers, threads and strategy) but scans nothing, and returns the bytes
/// read: the "plain parallel read" a scan is measured against. With
/// [`Strategy::Mmap`] it maps the file and reads one byte of every 4 KiB page.
/// For benchmarks; not part of the stable API.
///
/// # Errors
///
/// As [`count_byte`].
///
/// ```
/// use ndsimd::scan::{read_ceiling, ScanOptions};
/// let path = std::env::temp_dir().join(format!("ndsimd-scan-ceiling-{}", std::process::id()));
/// std::fs::write(&path, vec![1u8; 12_345])?;
/// assert_eq!(read_ceiling(&path, &ScanOptions::default())?, 12_345);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[doc(hidden)]
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

/// The index of the first non-zero byte ([`find_nonzero_in`]'s search), split over
/// the pool for large inputs; with `map` (the mapping `bytes` is) each worker asks
/// for its pages ahead of its scan ([`Ahead`]), on one thread too.
fn first_nonzero_byte_par(
    bytes: &[u8],
    map: Option<&Mapping>,
    progress: Option<Progress>,
) -> Option<usize> {
    let serial = bytes.len() < PAR_MIN || pool::current_num_threads() <= 1;
    if serial && map.is_none() {
        return first_nonzero_byte(bytes);
    }
    // The smallest needle position found so far; pieces past it are not read.
    let best = AtomicU64::new(u64::MAX);
    let least = &best;
    // A `move` closure of values, carried to the helpers by `pool::run_copy`.
    let scan = move |range: Range<usize>| {
        let mut ahead = Ahead::new(map);
        let mut at = range.start;
        while at < range.end && (at as u64) < least.load(Ordering::Relaxed) {
            let end = (at + FIND_STEP).min(range.end);
            if !ahead.before(at..end, range.end) {
                return;
            }
            let found = first_nonzero_byte(&bytes[at..end]);
            if let Some(p) = progress {
                p.add((end - at) as u64);
            }
            if let Some(p) = found {
                least.fetch_min((at + p) as u64, Ordering::Relaxed);
                return;
            }
            at = end;
        }
    };
    if serial {
        scan(0..bytes.len());
    } else {
        let pieces = par::pieces(bytes.len(), PIECE_MIN);
        pool::run_copy(pieces, move |i| scan(piece(bytes.len(), pieces, i)));
    }
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

/// `e` with the path and what was being done in its message, its kind kept and
/// `e` itself as the [`source`](std::error::Error::source) of the inner error (so a
/// caller can still reach the OS error code).
fn context(path: &Path, what: &str, e: io::Error) -> io::Error {
    let msg = format!("{}: {what}: {e}", path.display());
    io::Error::new(e.kind(), Context { msg, source: e })
}

/// The inner error of [`context`]: the message, and the error it wraps.
#[derive(Debug)]
struct Context {
    msg: String,
    source: io::Error,
}

impl std::fmt::Display for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for Context {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
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
    #[cfg(test)]
    if let Some(e) = tests::injected_error(file, offset, buf.len()) {
        return Err(e);
    }
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
    let map = same_len(map, path, len)?;
    // Only a hint: a refusal changes nothing.
    let _ = map.advise_sequential();
    Ok(map)
}

/// `map`, if it is as long as the file was when opened (`len`), else the change.
fn same_len(map: Mapping, path: &Path, len: u64) -> io::Result<Mapping> {
    if map.len() as u64 != len {
        return Err(changed(
            path,
            format_args!("{len} bytes before, {} when mapped", map.len()),
        ));
    }
    Ok(map)
}

/// The mapping a scan with `strategy` reads, or `None` when it reads with `pread`
/// (or `O_DIRECT`): [`Strategy::Auto`] settled (see there).
fn mapping_for(
    file: &File,
    path: &Path,
    len: u64,
    strategy: Strategy,
) -> io::Result<Option<Mapping>> {
    match strategy {
        Strategy::Pread | Strategy::Direct => Ok(None),
        Strategy::Mmap => map(file, path, len).map(Some),
        Strategy::Auto => {
            // A file the OS will not map is read with `pread`: the choice is ours.
            let Ok(m) = Mapping::new(file) else {
                return Ok(None);
            };
            let m = same_len(m, path, len)?;
            if !cached(&m) {
                return Ok(None);
            }
            let _ = m.advise_sequential();
            Ok(Some(m))
        }
    }
}

/// Windows of [`AUTO_WINDOW`] bytes whose pages [`Strategy::Auto`] looks up.
const AUTO_WINDOWS: usize = 64;
const AUTO_WINDOW: usize = 64 << 10;

/// Whether at least 63 in 64 of the pages in [`AUTO_WINDOWS`] windows spread evenly
/// over the mapping (all of it, when it is shorter) are in memory. `false` for an
/// empty mapping and where the OS cannot say.
fn cached(map: &Mapping) -> bool {
    let len = map.len();
    let windows = if len <= AUTO_WINDOWS * AUTO_WINDOW {
        usize::from(len > 0)
    } else {
        AUTO_WINDOWS
    };
    let (mut resident, mut pages) = (0, 0);
    for i in 0..windows {
        let range = if windows == 1 {
            0..len
        } else {
            let at = i * (len - AUTO_WINDOW) / (windows - 1);
            at..at + AUTO_WINDOW
        };
        match map.resident(range) {
            Ok((r, p)) => (resident, pages) = (resident + r, pages + p),
            Err(_) => return false,
        }
    }
    pages > 0 && resident * 64 >= pages * 63
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

/// The alignment of the read buffers. Measured here (Zen 3 VM, warm 1 GiB file,
/// 1 MiB reads): into a `Vec` as malloc returns it (16 bytes past a page boundary)
/// the kernel's copy runs at 1.5-2 GB/s a thread, into a 64-byte-aligned buffer at
/// 9-10. A page keeps the door open for `O_DIRECT`, which needs it.
const ALIGN: usize = 4096;

/// What `O_DIRECT` needs here: buffer addresses, file offsets and lengths that are
/// multiples of this (the logical block size of every device in use, and the page).
const DIRECT_ALIGN: u64 = 4096;

/// How blocks of a file are read: positioned reads through `file`, or through a
/// second descriptor opened with `O_DIRECT` for the part of the file up to its last
/// multiple of [`DIRECT_ALIGN`] (the rest through `file`).
struct Reader<'a> {
    file: &'a File,
    direct: Option<File>,
    path: &'a Path,
    len: u64,
}

impl<'a> Reader<'a> {
    fn new(file: &'a File, path: &'a Path, len: u64, strategy: Strategy) -> io::Result<Self> {
        let direct = match strategy {
            Strategy::Direct => Some(open_direct(path)?),
            _ => None,
        };
        Ok(Reader {
            file,
            direct,
            path,
            len,
        })
    }

    /// Fills `buf` from `at` (`buf` page-aligned, and `at` a multiple of
    /// [`DIRECT_ALIGN`] when reading directly).
    fn read(&self, buf: &mut [u8], at: u64) -> io::Result<()> {
        let Some(direct) = &self.direct else {
            return read_full(self.file, self.path, buf, at);
        };
        let aligned_end = self.len / DIRECT_ALIGN * DIRECT_ALIGN;
        let split = aligned_end.saturating_sub(at).min(buf.len() as u64) as usize;
        let (head, tail) = buf.split_at_mut(split);
        read_direct(direct, self.path, head, at)?;
        read_full(self.file, self.path, tail, at + split as u64)
    }
}

fn direct_unsupported(path: &Path, e: io::Error) -> io::Error {
    error(
        path,
        io::ErrorKind::Unsupported,
        format_args!(
            "O_DIRECT is not supported by the file system holding it ({e}); \
             read it with the pread strategy"
        ),
    )
}

#[cfg(target_os = "linux")]
fn open_direct(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::EINVAL) => direct_unsupported(path, e),
            _ => context(path, "cannot open with O_DIRECT", e),
        })
}

#[cfg(not(target_os = "linux"))]
fn open_direct(path: &Path) -> io::Result<File> {
    Err(error(
        path,
        io::ErrorKind::Unsupported,
        "O_DIRECT reads are only implemented on Linux; read it with the pread strategy",
    ))
}

/// Fills `buf` (page-aligned, a multiple of [`DIRECT_ALIGN`] long) from `at` (a
/// multiple too) through an `O_DIRECT` descriptor. `EINVAL` means the file system
/// refuses direct reads (everything here is aligned); a read that ends early or not
/// on a block boundary means the file shrank.
fn read_direct(file: &File, path: &Path, mut buf: &mut [u8], mut at: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match read_at_retry(file, buf, at) {
            Ok(n) if n > 0 && (n as u64).is_multiple_of(DIRECT_ALIGN) => {
                buf = &mut buf[n..];
                at += n as u64;
            }
            Ok(_) => {
                return Err(changed(
                    path,
                    format_args!("a read at offset {at} found the end of the file early"),
                ))
            }
            #[cfg(target_os = "linux")]
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                return Err(direct_unsupported(path, e))
            }
            Err(e) => return Err(context(path, &format!("read at offset {at}"), e)),
        }
    }
    Ok(())
}

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
        let unit = if opts.strategy == Strategy::Direct {
            DIRECT_ALIGN
        } else {
            8
        };
        let buffer = (opts.buffer.max(8) as u64).next_multiple_of(unit);
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
    let reader = Reader::new(file, path, len, opts.strategy).map_err(|e| (0, e))?;
    // One buffer per worker: a shard takes a free one (or allocates the first time
    // a worker needs one) and gives it back when done.
    let free: Mutex<Vec<Aligned<u8>>> = Mutex::new(Vec::new());
    let failed: Mutex<Option<(u64, io::Error)>> = Mutex::new(None);
    let cap = shards.buffer.min(shards.size).min(len) as usize;
    let run_shard = |i: usize| {
        let start = i as u64 * shards.size;
        let end = (start + shards.size).min(len);
        if start >= stop.load(Ordering::Relaxed) {
            return;
        }
        let taken = free.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut buf = taken.unwrap_or_else(|| Aligned::filled_to(cap, 0u8, ALIGN));
        let mut at = start;
        while at < end && at < stop.load(Ordering::Relaxed) {
            let n = (end - at).min(shards.buffer) as usize;
            let block = &mut buf.payload_mut()[..n];
            if let Err(e) = reader.read(block, at) {
                stop.fetch_min(at, Ordering::Relaxed);
                let mut slot = failed.lock().unwrap_or_else(|e| e.into_inner());
                if slot.as_ref().is_none_or(|(o, _)| at < *o) {
                    *slot = Some((at, e));
                }
                break;
            }
            visit(at, block);
            if let Some(p) = opts.progress {
                p.add(n as u64);
            }
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

    /// An I/O error to inject (tests only): a read of the file with this inode whose
    /// range covers this offset fails with `EIO`, as a failing disk's would.
    static FAIL_AT: Mutex<Option<(u64, u64)>> = Mutex::new(None);

    /// The error [`FAIL_AT`] says this read gets, if any.
    pub(super) fn injected_error(file: &File, offset: u64, len: usize) -> Option<io::Error> {
        use std::os::unix::fs::MetadataExt;
        let (ino, at) = (*FAIL_AT.lock().unwrap())?;
        let hit = (offset..offset + len as u64).contains(&at) && file.metadata().ok()?.ino() == ino;
        hit.then(|| io::Error::from_raw_os_error(libc::EIO))
    }

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

    // A mapped file truncated before the scan reaches the pages past its new end:
    // the scan's requests for its pages come back `EFAULT`, and it stops there
    // instead of touching them (`SIGBUS`, the end of the test process); the size
    // check that follows every scan reports the change.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_mapped_file_truncated_before_the_scan_is_an_error_not_a_signal() {
        let len = 3 * POPULATE_STEP + 100;
        // Zeros, and a needle in the last word (past the new end).
        let mut data = vec![0u8; len];
        data[len - 1] = 1;
        for threads in [1, 2, 3] {
            let p = temp("truncated-map", &data);
            let file = File::open(&p).unwrap();
            let map = map(&file, &p, len as u64).unwrap();
            let short = POPULATE_STEP as u64 + 10;
            fs::OpenOptions::new()
                .write(true)
                .open(&p)
                .unwrap()
                .set_len(short)
                .unwrap();
            // Counting zeros: at most the bytes up to the end of the new last page.
            let n = pool::with_threads(threads, || count_par(&map, 0, Some(&map), None));
            assert!(n <= short.next_multiple_of(4096), "{n}");
            let found =
                pool::with_threads(threads, || first_nonzero_byte_par(&map, Some(&map), None));
            assert_eq!(found, None, "{threads} threads");
            let e = check_unchanged(&file, &p, len as u64).unwrap_err();
            assert!(e.to_string().contains("changed size"), "{e}");
            drop(map);
            fs::remove_file(&p).unwrap();
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

    // A read that fails mid-file (EIO from the disk): every scan that needs that byte
    // is an error naming the path, the offset and the OS's reason, on every thread
    // count and buffer, whichever block of which shard it falls in; a needle before
    // the failing read is still the answer (every byte before it was read), and one
    // after it is not (the bytes between were never seen). One test: the injection
    // slot is shared.
    #[test]
    fn a_read_error_mid_file_is_an_error_naming_path_and_offset() {
        use std::os::unix::fs::MetadataExt;
        let len = 1usize << 16;
        let mut text = vec![b'x'; len];
        for i in (0..len).step_by(37) {
            text[i] = b'\n';
        }
        let (hay, txt) = (temp("eio-hay", &vec![0u8; len]), temp("eio-text", &text));
        let ino = |p: &PathBuf| fs::metadata(p).unwrap().ino();
        let set = |p: &PathBuf, at: u64| *FAIL_AT.lock().unwrap() = Some((ino(p), at));
        let is_eio = |e: &io::Error, p: &PathBuf| {
            let m = e.to_string();
            let os = io::Error::from_raw_os_error(libc::EIO);
            assert_eq!(e.kind(), os.kind(), "{m}");
            // The OS error stays reachable: the inner error's source.
            let source = e.get_ref().and_then(|inner| inner.source());
            let code = source.and_then(|s| s.downcast_ref::<io::Error>()?.raw_os_error());
            assert_eq!(code, Some(libc::EIO), "{m}");
            assert!(m.contains(&*p.to_string_lossy()), "{m}");
            assert!(m.contains("read at offset"), "{m}");
        };
        for threads in [1, 2, 3] {
            for buffer in [64usize, 4096] {
                let opts = ScanOptions {
                    threads: Some(threads),
                    buffer,
                    ..ScanOptions::default()
                };
                let shards = Shards::new(len as u64, &opts);
                for at in [
                    0,
                    8,
                    shards.size - 1,
                    shards.size,
                    len as u64 / 2 + 3,
                    len as u64 - 1,
                ] {
                    let what = format!("threads {threads}, buffer {buffer}, EIO at {at}");
                    set(&hay, at);
                    is_eio(&find_nonzero(&hay, &opts).expect_err(&what), &hay);
                    set(&txt, at);
                    is_eio(&count_byte(&txt, b'\n', &opts).expect_err(&what), &txt);
                    is_eio(&LineIndex::build(&txt, 7, &opts).expect_err(&what), &txt);
                }
                // A needle in the block before the failing one is found; one past
                // the failing block is not.
                let mut data = vec![0u8; len];
                data[len / 2] = 1;
                let p = temp("eio-needle", &data);
                let (b, needle) = (shards.buffer, len as u64 / 2);
                set(&p, (needle / b + 1) * b);
                assert_eq!(
                    find_nonzero(&p, &opts).unwrap(),
                    Some(needle),
                    "{threads} {buffer}"
                );
                set(&p, (needle / b).saturating_sub(1) * b);
                if needle >= b {
                    is_eio(&find_nonzero(&p, &opts).unwrap_err(), &p);
                }
                *FAIL_AT.lock().unwrap() = None;
                assert_eq!(find_nonzero(&p, &opts).unwrap(), Some(needle));
                fs::remove_file(&p).unwrap();
            }
        }
        *FAIL_AT.lock().unwrap() = None;
        assert_eq!(
            count_byte(&txt, b'\n', &ScanOptions::default()).unwrap(),
            len.div_ceil(37) as u64
        );
        fs::remove_file(&hay).unwrap();
        fs::remove_file(&txt).unwrap();
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

    // EINVAL from an O_DIRECT read is reported as "not supported", with the path. A
    // misaligned read is the one way to get EINVAL on a file system that takes
    // O_DIRECT; where none does, opening says it (the same message).
    #[cfg(target_os = "linux")]
    #[test]
    fn einval_from_direct_reads_says_o_direct_is_not_supported() {
        let p = temp("einval", &[0u8; 3 * 4096]);
        let e = match open_direct(&p) {
            Ok(f) => {
                let mut buf = vec![0u8; 2 * 4096];
                read_direct(&f, &p, &mut buf[1..4097], 0).unwrap_err()
            }
            Err(e) => e,
        };
        assert_eq!(e.kind(), io::ErrorKind::Unsupported);
        assert!(e.to_string().contains("O_DIRECT is not supported"), "{e}");
        assert!(e.to_string().contains(&*p.to_string_lossy()), "{e}");
        fs::remove_file(&p).unwrap();
    }

    // Direct buffers are whole pages, so every direct read is aligned.
    #[test]
    fn direct_buffers_are_multiples_of_4096() {
        for buffer in [0usize, 8, 4095, 4096, 5000, 1 << 20] {
            let opts = ScanOptions {
                strategy: Strategy::Direct,
                buffer,
                ..ScanOptions::default()
            };
            let s = Shards::new(100 << 20, &opts);
            assert_eq!(s.buffer % DIRECT_ALIGN, 0);
            assert!(s.buffer >= buffer.max(1) as u64);
        }
    }
}
