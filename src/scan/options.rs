//! What a file scan is asked: how to read the file ([`Strategy`]), on how many
//! threads with what buffer ([`ScanOptions`]), and where to count progress.

use std::sync::atomic::{AtomicU64, Ordering};

/// How a file is read: see the [module documentation](super#strategies).
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
    ///
    /// [`find_nonzero_in`]: super::find_nonzero_in
    /// [`count_byte_in`]: super::count_byte_in
    /// [`find_nonzero`]: super::find_nonzero
    /// [`count_byte`]: super::count_byte
    /// [`LineIndex::build`]: super::LineIndex::build
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
    ///
    /// [`io::ErrorKind::Unsupported`]: std::io::ErrorKind::Unsupported
    Direct,
    /// [`Strategy::Mmap`] when the file is in the page cache, else
    /// [`Strategy::Pread`]: before the scan, the pages of 64 windows of 64 KiB
    /// spread over the file (all of a smaller file) are looked up (`mincore`, on
    /// Linux; elsewhere always `Pread`), and the file is mapped when at least 63 in
    /// 64 of them are resident. A cached file is read fastest mapped (no copy; with
    /// large folios about twice `Pread`'s rate: docs/perf.md#file-scan), a cold
    /// one through `pread` (the mapping's page faults wait for the disk one
    /// read-ahead window at a time). [`resolve_strategy`] says which it would pick.
    ///
    /// A file the OS refuses to map is read with `pread`.
    ///
    /// **When it maps the file, it carries [`Strategy::Mmap`]'s risk** (`SIGBUS` if
    /// another process truncates the file meanwhile): opt-in, as `Mmap` is. The
    /// `ndsimd` tool uses it by default and turns that signal into an error exit
    /// (`kernels::io::exit_on_mapped_sigbus`).
    ///
    /// [`resolve_strategy`]: super::resolve_strategy
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
///
/// Any counter that outlives the scan will do: a `static`, a local, or the
/// inside of an `Arc` shared with the thread that draws the bar.
///
/// ```
/// use ndsimd::scan::{count_byte, Progress, ScanOptions};
/// use std::sync::{atomic::{AtomicU64, Ordering}, Arc};
/// let path = std::env::temp_dir().join(format!("ndsimd-scan-progress-arc-{}", std::process::id()));
/// std::fs::write(&path, vec![b'x'; 5_000])?;
/// let done = Arc::new(AtomicU64::new(0));
/// let opts = ScanOptions { progress: Some(Progress::from(&done)), ..ScanOptions::default() };
/// count_byte(&path, b'x', &opts)?;
/// assert_eq!(done.load(Ordering::Relaxed), 5_000);
/// let local = AtomicU64::new(0);
/// count_byte(&path, b'x', &ScanOptions { progress: Some(Progress(&local)), ..opts })?;
/// assert_eq!(local.load(Ordering::Relaxed), 5_000);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a>(pub &'a AtomicU64);

/// The counter inside an `Arc` (borrowed for the scan; the `Arc` stays the caller's).
impl<'a> From<&'a std::sync::Arc<AtomicU64>> for Progress<'a> {
    fn from(a: &'a std::sync::Arc<AtomicU64>) -> Self {
        Progress(a)
    }
}

/// Any borrowed counter.
impl<'a> From<&'a AtomicU64> for Progress<'a> {
    fn from(a: &'a AtomicU64) -> Self {
        Progress(a)
    }
}

impl Progress<'_> {
    pub(super) fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
}

/// Two `Progress` are equal when they are the same counter.
impl PartialEq for Progress<'_> {
    fn eq(&self, other: &Progress<'_>) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Progress<'_> {}

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
pub struct ScanOptions<'a> {
    /// How the file is read.
    pub strategy: Strategy,
    /// Threads to use, capped by the pool's size ([`crate::num_threads`]); `None`
    /// means [`ndsimd_kernels::pool::current_num_threads`], `Some(0)` is taken as 1.
    /// With [`Strategy::Pread`] it also sets how the file is cut (four shards per
    /// thread), whatever the pool really runs.
    pub threads: Option<usize>,
    /// Bytes per read with [`Strategy::Pread`] (default 1 MiB), rounded up to a
    /// multiple of 8 (at least 8; a multiple of 4096 with [`Strategy::Direct`]).
    /// Shards are whole numbers of buffers.
    pub buffer: usize,
    /// A counter of the bytes read so far, for a progress bar (default `None`).
    pub progress: Option<Progress<'a>>,
}

impl Default for ScanOptions<'_> {
    fn default() -> Self {
        ScanOptions {
            strategy: Strategy::Pread,
            threads: None,
            buffer: 1 << 20,
            progress: None,
        }
    }
}
