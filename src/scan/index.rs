//! [`LineIndex`]: where every `every`-th line starts, built in the same single read
//! of the file that counts its lines.

use super::file::{changed, check_unchanged, context, error, mapping_for, open, read_at_retry};
use super::memory::{with_threads, PAR_MIN, PIECE_MIN};
use super::pread::{Reader, Shards, ALIGN};
use super::{Progress, ScanOptions};
use ndsimd_kernels::{byte_table, mem::Aligned, pool};
use std::fs::File;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// The byte offsets at which every `every`-th line of a file (or of bytes in memory)
/// starts, with its line count, built in one read.
///
/// # Lines
///
/// Line 0 starts at offset 0; line `n` starts right after the `n`-th `'\n'`
/// (counting from 1). A line ends at its `'\n'`, which is not part of it (a `'\r'`
/// before it is). [`line_count`](Self::line_count) is what `wc -l` prints: the
/// number of `'\n'`. A last line without a final `'\n'` is not counted there but is
/// a line for [`line_offset`](Self::line_offset) and [`line_range`](Self::line_range):
/// lines `0..`[`lines`](Self::lines) exist, where `lines() == line_count() + 1`
/// exactly when the input is not empty and does not end with `'\n'`. An empty input
/// has no line; `"\n"` has one (empty) line.
///
/// [`starts`](Self::starts)`()[m]` is the offset of line `m * every`, for every
/// such line that exists.
///
/// # How one read is enough
///
/// A worker reading a block in the middle of the file does not know the line number
/// its block starts at until every earlier block is counted, and without it cannot
/// tell which of its newlines end an indexed line. Keeping every newline's offset
/// until then would cost memory in proportion to the lines, and reading the blocks
/// again would cost a second read. Instead the blocks are handed out **in file
/// order** from one atomic counter (not as contiguous shards), and the counts are
/// chained like a ticket lock:
///
/// 1. a worker claims the next block, reads it into its own buffer and counts its
///    newlines (per 4 KiB chunk, kept in a small per-worker table);
/// 2. it waits until the block before has published its running count (the blocks
///    before were claimed earlier, by workers that are already reading them), adds
///    its own count and publishes — from then on the next block can go;
/// 3. knowing the line number its block starts at, it finds the indexed newlines in
///    its block, still in cache, skipping every 4 KiB chunk whose count says the
///    next indexed newline is not in it, and records their offsets in a run tagged
///    with the block number.
///
/// The wait in step 2 is for a neighbour's count of one buffer (a few µs to a few
/// hundred µs), never for I/O of a later block, so a worker never waits on a thread
/// that is waiting (no deadlock, whatever the pool runs in parallel). The file is
/// read once; memory is the index itself (8 bytes per indexed line) plus, per worker,
/// one buffer and one `u32` per 4 KiB of it. At the end the runs are put in block
/// order.
///
/// ```
/// use ndsimd::scan::LineIndex;
/// let text = b"zero\none\r\ntwo\n\nfour";
/// let index = LineIndex::build_in(text, 2);
/// assert_eq!(index.starts(), &[0, 10, 15][..]); // lines 0, 2 and 4
/// assert_eq!((index.line_count(), index.lines()), (4, 5));
/// assert_eq!(index.line_offset_in(text, 1), Some(5));
/// assert_eq!(index.line_range_in(text, 1), Some(5..9)); // "one\r"
/// assert_eq!(index.line_range_in(text, 3), Some(14..14)); // the empty line
/// assert_eq!(index.line_range_in(text, 4), Some(15..19)); // "four", unterminated
/// assert_eq!(index.line_range_in(text, 5), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    every: u64,
    starts: Vec<u64>,
    newlines: u64,
    len: u64,
    unterminated: bool,
    path: Option<PathBuf>,
}

/// 4 KiB: the unit a block's newlines are counted in, so that finding an indexed
/// newline reads only the chunk it is in again (from cache).
const CHUNK: usize = 4096;

/// From this `every` on, an index build finds each indexed newline with the
/// `nth_byte` vector kernel; below it, indexed lines are dense enough that one
/// word-at-a-time pass over a chunk costs less than a kernel call per line.
const SPARSE: u64 = 8;

impl LineIndex {
    /// Builds the index of the file at `path` (every `every`-th line, where 0 is
    /// taken as one) in one read, with the strategy, threads and buffer of `opts` (see
    /// [how one read is enough](Self#how-one-read-is-enough)). The path is kept
    /// for [`line_offset`](Self::line_offset) and [`line_range`](Self::line_range).
    ///
    /// # Errors
    ///
    /// As [`count_byte`](super::count_byte): see the
    /// [scan documentation](super#what-counts-as-an-error); every message names
    /// the path.
    ///
    /// ```
    /// use ndsimd::scan::{LineIndex, ScanOptions};
    /// let path = std::env::temp_dir().join(format!("ndsimd-index-build-{}", std::process::id()));
    /// std::fs::write(&path, "a\nbb\nccc\ndddd\n")?;
    /// let index = LineIndex::build(&path, 2, &ScanOptions::default())?;
    /// assert_eq!(index.starts(), &[0, 5][..]);
    /// assert_eq!(index.line_count(), 4);
    /// assert_eq!(index.line_offset(3)?, Some(9));
    /// assert_eq!(index.line_range(3)?, Some(9..13));
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn build(path: impl AsRef<Path>, every: u64, opts: &ScanOptions) -> io::Result<LineIndex> {
        let path = path.as_ref();
        let every = every.max(1);
        let (file, len) = open(path)?;
        let built = match mapping_for(&file, path, len, opts.strategy)? {
            None => {
                let shards = Shards::new(len, opts);
                let reader = Reader::new(&file, path, len, opts.strategy)?;
                let source = FileSource(&reader);
                pool::with_threads(shards.threads, || {
                    build_blocks(
                        &source,
                        len,
                        shards.buffer,
                        shards.threads,
                        every,
                        opts.progress,
                    )
                })?
            }
            Some(map) => with_threads(opts, || build_slice(&map, every, opts.progress))?,
        };
        check_unchanged(&file, path, len)?;
        Ok(LineIndex {
            every,
            starts: built.starts,
            newlines: built.newlines,
            len,
            unterminated: built.unterminated,
            path: Some(path.to_path_buf()),
        })
    }

    /// Builds the index of `bytes` (every `every`-th line; 0 is taken as 1), split
    /// over the pool from 512 KiB. Answer queries with
    /// [`line_offset_in`](Self::line_offset_in) and
    /// [`line_range_in`](Self::line_range_in) on the same bytes.
    ///
    /// ```
    /// use ndsimd::scan::LineIndex;
    /// let index = LineIndex::build_in(b"x\ny\nz\n", 1);
    /// assert_eq!(index.starts(), &[0, 2, 4][..]);
    /// assert_eq!(LineIndex::build_in(b"", 1).lines(), 0);
    /// ```
    pub fn build_in(bytes: &[u8], every: u64) -> LineIndex {
        let every = every.max(1);
        let built = match build_slice(bytes, every, None) {
            Ok(b) => b,
            // A slice cannot fail to be read.
            Err(_) => unreachable!("reading a slice cannot fail"),
        };
        LineIndex {
            every,
            starts: built.starts,
            newlines: built.newlines,
            len: bytes.len() as u64,
            unterminated: built.unterminated,
            path: None,
        }
    }

    /// The spacing of the indexed lines.
    ///
    /// ```
    /// assert_eq!(ndsimd::scan::LineIndex::build_in(b"a\n", 0).every(), 1);
    /// ```
    pub fn every(&self) -> u64 {
        self.every
    }

    /// `starts()[m]`: the byte offset where line `m * every` starts, for every such
    /// line (see [Lines](Self#lines)): `lines().div_ceil(every)` offsets, increasing.
    ///
    /// ```
    /// let index = ndsimd::scan::LineIndex::build_in(b"a\nb\nc\nd", 3);
    /// assert_eq!(index.starts(), &[0, 6][..]);
    /// ```
    pub fn starts(&self) -> &[u64] {
        &self.starts
    }

    /// The number of `'\n'`: what `wc -l` prints. A last line without a `'\n'` is
    /// not counted (see [`lines`](Self::lines)).
    ///
    /// ```
    /// use ndsimd::scan::LineIndex;
    /// assert_eq!(LineIndex::build_in(b"a\nb\n", 1).line_count(), 2);
    /// assert_eq!(LineIndex::build_in(b"a\nb", 1).line_count(), 1);
    /// ```
    pub fn line_count(&self) -> u64 {
        self.newlines
    }

    /// The number of lines, a last line without `'\n'` included: `line_count()`,
    /// plus 1 when the input is not empty and does not end with `'\n'`.
    ///
    /// ```
    /// use ndsimd::scan::LineIndex;
    /// assert_eq!(LineIndex::build_in(b"a\nb\n", 1).lines(), 2);
    /// assert_eq!(LineIndex::build_in(b"a\nb", 1).lines(), 2);
    /// assert_eq!(LineIndex::build_in(b"\n", 1).lines(), 1);
    /// ```
    pub fn lines(&self) -> u64 {
        self.newlines + u64::from(self.unterminated)
    }

    /// The length in bytes of the indexed file or slice.
    ///
    /// ```
    /// assert_eq!(ndsimd::scan::LineIndex::build_in(b"abc", 1).len(), 3);
    /// ```
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the indexed input was empty (then it has no line).
    ///
    /// ```
    /// assert!(ndsimd::scan::LineIndex::build_in(b"", 1).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The file the index was built from ([`build`](Self::build)), or `None` for
    /// [`build_in`](Self::build_in).
    ///
    /// ```
    /// assert_eq!(ndsimd::scan::LineIndex::build_in(b"", 1).path(), None);
    /// ```
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Where line `n` starts in the indexed file, or `None` when `n >= lines()`.
    /// Reads the file from the nearest indexed line before `n`: at most `every - 1`
    /// lines.
    ///
    /// # Errors
    ///
    /// An index built in memory has no file: [`io::ErrorKind::InvalidInput`] (use
    /// [`line_offset_in`](Self::line_offset_in)). The file cannot be opened or read,
    /// or its length is no longer the one indexed, or its newlines are not where the
    /// index says: an error naming the path.
    ///
    /// ```
    /// use ndsimd::scan::{LineIndex, ScanOptions};
    /// let path = std::env::temp_dir().join(format!("ndsimd-index-off-{}", std::process::id()));
    /// std::fs::write(&path, "a\nbb\nccc")?;
    /// let index = LineIndex::build(&path, 10, &ScanOptions::default())?;
    /// assert_eq!(index.line_offset(2)?, Some(5));
    /// assert_eq!(index.line_offset(3)?, None);
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn line_offset(&self, n: u64) -> io::Result<Option<u64>> {
        if n >= self.lines() {
            return Ok(None);
        }
        let mut src = self.open_source()?;
        self.offset_with(&mut src, n).map(Some)
    }

    /// Lines `n`'s bytes in the indexed file: `start..end` with `end` the offset of
    /// its `'\n'` (excluded), or the file's length for a last line without one;
    /// `None` when `n >= lines()`.
    ///
    /// # Errors
    ///
    /// As [`line_offset`](Self::line_offset).
    ///
    /// ```
    /// use ndsimd::scan::{LineIndex, ScanOptions};
    /// let path = std::env::temp_dir().join(format!("ndsimd-index-range-{}", std::process::id()));
    /// std::fs::write(&path, "a\r\n\nccc")?;
    /// let index = LineIndex::build(&path, 2, &ScanOptions::default())?;
    /// assert_eq!(index.line_range(0)?, Some(0..2));
    /// assert_eq!(index.line_range(1)?, Some(3..3));
    /// assert_eq!(index.line_range(2)?, Some(4..7));
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn line_range(&self, n: u64) -> io::Result<Option<Range<u64>>> {
        if n >= self.lines() {
            return Ok(None);
        }
        let mut src = self.open_source()?;
        let start = self.offset_with(&mut src, n)?;
        self.end_with(&mut src, n, start)
            .map(|end| Some(start..end))
    }

    /// Where line `n` of `bytes` starts, `bytes` being what the index was built on;
    /// `None` when `n >= lines()`, or when `bytes` does not have the indexed length.
    /// Looks at most `every - 1` lines past the nearest indexed one.
    ///
    /// ```
    /// use ndsimd::scan::LineIndex;
    /// let text = b"a\nb\nc\n";
    /// let index = LineIndex::build_in(text, 2);
    /// assert_eq!(index.line_offset_in(text, 1), Some(2));
    /// assert_eq!(index.line_offset_in(b"other", 1), None);
    /// ```
    pub fn line_offset_in(&self, bytes: &[u8], n: u64) -> Option<u64> {
        if n >= self.lines() || bytes.len() as u64 != self.len {
            return None;
        }
        self.offset_with(&mut SliceSource(bytes), n).ok()
    }

    /// Line `n`'s bytes in `bytes` (what the index was built on), as
    /// [`line_range`](Self::line_range); `None` when `n >= lines()` or `bytes` does
    /// not have the indexed length.
    ///
    /// ```
    /// use ndsimd::scan::LineIndex;
    /// let text = b"ab\ncd";
    /// let index = LineIndex::build_in(text, 1);
    /// let r = index.line_range_in(text, 1).unwrap();
    /// assert_eq!(&text[r.start as usize..r.end as usize], b"cd");
    /// ```
    pub fn line_range_in(&self, bytes: &[u8], n: u64) -> Option<Range<u64>> {
        if n >= self.lines() || bytes.len() as u64 != self.len {
            return None;
        }
        let mut src = SliceSource(bytes);
        let start = self.offset_with(&mut src, n).ok()?;
        self.end_with(&mut src, n, start).ok().map(|end| start..end)
    }

    /// Writes the index as text (the format of `ndsimd lines --index`): a header
    /// line `# ndsimd line index: every=E lines=L bytes=B` (`L` is
    /// [`line_count`](Self::line_count), as `wc -l`; `B` the indexed length), then
    /// one decimal offset per line, `starts()` in order, each followed by `'\n'`.
    ///
    /// ```
    /// let index = ndsimd::scan::LineIndex::build_in(b"a\nb\nc", 2);
    /// let mut out = Vec::new();
    /// index.write_to(&mut out)?;
    /// assert_eq!(out, b"# ndsimd line index: every=2 lines=2 bytes=5\n0\n4\n");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn write_to(&self, out: impl Write) -> io::Result<()> {
        let mut out = io::BufWriter::with_capacity(1 << 16, out);
        writeln!(
            out,
            "# ndsimd line index: every={} lines={} bytes={}",
            self.every, self.newlines, self.len
        )?;
        for s in &self.starts {
            writeln!(out, "{s}")?;
        }
        out.flush()
    }

    fn open_source(&self) -> io::Result<FileLines> {
        let Some(path) = &self.path else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "this line index was built in memory: use line_offset_in / line_range_in",
            ));
        };
        let (file, len) = open(path)?;
        if len != self.len {
            return Err(changed(
                path,
                format_args!("{} bytes when indexed, {len} now", self.len),
            ));
        }
        Ok(FileLines {
            file,
            path: path.clone(),
            buf: vec![0; 64 << 10],
        })
    }

    /// The start of line `n < lines()`.
    fn offset_with(&self, src: &mut dyn Forward, n: u64) -> io::Result<u64> {
        let m = n / self.every;
        let r = n % self.every;
        let base = self.starts[m as usize];
        if r == 0 {
            return Ok(base);
        }
        // Line n starts after the r-th newline at or after `base`.
        match src.nth_newline(base, self.len, r - 1)? {
            Some(p) if p + 1 < self.len => Ok(p + 1),
            _ => Err(src.not_as_indexed(n)),
        }
    }

    /// The end of line `n < lines()` that starts at `start`.
    fn end_with(&self, src: &mut dyn Forward, n: u64, start: u64) -> io::Result<u64> {
        match src.nth_newline(start, self.len, 0)? {
            Some(p) => Ok(p),
            None if self.unterminated && n + 1 == self.lines() => Ok(self.len),
            None => Err(src.not_as_indexed(n)),
        }
    }
}

/// Reading forward from an offset, for the queries.
trait Forward {
    /// The offset of the `k`-th (from 0) newline in `[from, len)`, if there is one.
    fn nth_newline(&mut self, from: u64, len: u64, k: u64) -> io::Result<Option<u64>>;
    /// The error when the bytes do not agree with the index.
    fn not_as_indexed(&self, n: u64) -> io::Error;
}

struct SliceSource<'a>(&'a [u8]);

impl Forward for SliceSource<'_> {
    fn nth_newline(&mut self, from: u64, len: u64, mut k: u64) -> io::Result<Option<u64>> {
        let bytes = &self.0[from as usize..len as usize];
        for (i, chunk) in bytes.chunks(CHUNK).enumerate() {
            if let Some(p) = nth_in(chunk, &mut k) {
                return Ok(Some(from + (i * CHUNK + p) as u64));
            }
        }
        Ok(None)
    }

    fn not_as_indexed(&self, n: u64) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("line {n}: the bytes are not the ones indexed"),
        )
    }
}

struct FileLines {
    file: File,
    path: PathBuf,
    buf: Vec<u8>,
}

impl Forward for FileLines {
    fn nth_newline(&mut self, from: u64, len: u64, mut k: u64) -> io::Result<Option<u64>> {
        let mut at = from;
        while at < len {
            let want = (len - at).min(self.buf.len() as u64) as usize;
            let got = match read_at_retry(&self.file, &mut self.buf[..want], at) {
                Ok(0) => {
                    return Err(changed(
                        &self.path,
                        format_args!("a read at offset {at} found the end of the file early"),
                    ))
                }
                Ok(n) => n,
                Err(e) => return Err(context(&self.path, &format!("read at offset {at}"), e)),
            };
            if let Some(p) = nth_in(&self.buf[..got], &mut k) {
                return Ok(Some(at + p as u64));
            }
            at += got as u64;
        }
        Ok(None)
    }

    fn not_as_indexed(&self, n: u64) -> io::Error {
        error(
            &self.path,
            io::ErrorKind::InvalidData,
            format_args!(
                "line {n} is not where the index says: the file changed since it was indexed"
            ),
        )
    }
}

/// The index in `chunk` of its `k`-th newline (from 0); if it has no more than `k`,
/// `None` and `k` less their number.
fn nth_in(chunk: &[u8], k: &mut u64) -> Option<usize> {
    let n = usize::try_from(*k).unwrap_or(usize::MAX);
    match (byte_table().nth_byte)(chunk, b'\n', n) {
        Ok(p) => Some(p),
        Err(c) => {
            *k -= c as u64;
            None
        }
    }
}

/// Calls `f(i)` for the index `i` of each `'\n'` of `bytes` in order, while it
/// returns `true`. Eight bytes at a time: the exact zero-byte test on `word ^ 0x0a..`.
fn for_each_newline(bytes: &[u8], mut f: impl FnMut(usize) -> bool) {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const NL: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    let mut words = bytes.chunks_exact(8);
    let mut base = 0;
    for w in words.by_ref() {
        let mut x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]) ^ NL;
        // High bit of each byte set exactly where the byte of `x` is zero.
        x = !(((x & LOW7) + LOW7) | x | LOW7);
        while x != 0 {
            if !f(base + x.trailing_zeros() as usize / 8) {
                return;
            }
            x &= x - 1;
        }
        base += 8;
    }
    for (i, &b) in words.remainder().iter().enumerate() {
        if b == b'\n' && !f(base + i) {
            return;
        }
    }
}

// ---------------------------------------------------------------------------------
// The build

/// What a build finds.
struct Built {
    starts: Vec<u64>,
    newlines: u64,
    unterminated: bool,
}

/// Where the build's blocks come from.
trait Source: Sync {
    /// The `n` bytes at `at`, read into `buf` if they need to be.
    fn block<'a>(&'a self, at: u64, n: usize, buf: &'a mut Aligned<u8>) -> io::Result<&'a [u8]>;
}

struct FileSource<'a>(&'a Reader<'a>);

impl Source for FileSource<'_> {
    fn block<'a>(&'a self, at: u64, n: usize, buf: &'a mut Aligned<u8>) -> io::Result<&'a [u8]> {
        if buf.payload().len() < n {
            *buf = Aligned::filled_to(n, 0, ALIGN);
        }
        let block = &mut buf.payload_mut()[..n];
        self.0.read(block, at)?;
        Ok(block)
    }
}

struct MemSource<'a>(&'a [u8]);

impl Source for MemSource<'_> {
    fn block<'a>(&'a self, at: u64, n: usize, _: &'a mut Aligned<u8>) -> io::Result<&'a [u8]> {
        Ok(&self.0[at as usize..at as usize + n])
    }
}

fn build_slice(bytes: &[u8], every: u64, progress: Option<Progress>) -> io::Result<Built> {
    let threads = if bytes.len() < PAR_MIN {
        1
    } else {
        pool::current_num_threads()
    };
    build_blocks(
        &MemSource(bytes),
        bytes.len() as u64,
        PIECE_MIN as u64,
        threads,
        every,
        progress,
    )
}

/// The single-pass build over `len` bytes in blocks of `block` bytes taken in file
/// order by `threads` workers (see "How one read is enough" on [`LineIndex`]).
fn build_blocks(
    src: &dyn Source,
    len: u64,
    block: u64,
    threads: usize,
    every: u64,
    progress: Option<Progress>,
) -> io::Result<Built> {
    let blocks = len.div_ceil(block);
    let claim = AtomicU64::new(0);
    // Blocks whose count is published, and the newlines in them.
    let published = AtomicU64::new(0);
    let newlines = AtomicU64::new(0);
    let failed = AtomicBool::new(false);
    let error: Mutex<Option<(u64, io::Error)>> = Mutex::new(None);
    let unterminated = AtomicBool::new(false);
    // Per worker: its offsets, and (block, range in them) runs.
    type Runs = (Vec<u64>, Vec<(u64, Range<usize>)>);
    let all_runs: Mutex<Vec<Runs>> = Mutex::new(Vec::new());
    let count = byte_table().count_byte;

    let worker = |_: usize| {
        let mut buf = Aligned::filled_to(0, 0u8, ALIGN);
        let mut counts: Vec<u32> = Vec::new();
        let mut offsets = Vec::new();
        let mut runs = Vec::new();
        'blocks: while !failed.load(Ordering::Relaxed) {
            let b = claim.fetch_add(1, Ordering::Relaxed);
            if b >= blocks {
                break;
            }
            let at = b * block;
            let n = (len - at).min(block) as usize;
            let bytes = match src.block(at, n, &mut buf) {
                Ok(bytes) => bytes,
                Err(e) => {
                    failed.store(true, Ordering::Relaxed);
                    let mut slot = error.lock().unwrap_or_else(|e| e.into_inner());
                    if slot.as_ref().is_none_or(|(o, _)| at < *o) {
                        *slot = Some((at, e));
                    }
                    break;
                }
            };
            counts.clear();
            let mut c = 0u64;
            for chunk in bytes.chunks(CHUNK) {
                let k = count(chunk, b'\n');
                counts.push(k as u32);
                c += k as u64;
            }
            // Wait for the blocks before to be counted.
            let mut spins = 0u32;
            while published.load(Ordering::Acquire) != b {
                if failed.load(Ordering::Relaxed) {
                    break 'blocks;
                }
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
            let before = newlines.load(Ordering::Relaxed);
            newlines.store(before + c, Ordering::Relaxed);
            published.store(b + 1, Ordering::Release);
            if b + 1 == blocks {
                unterminated.store(bytes[n - 1] != b'\n', Ordering::Relaxed);
            }
            if let Some(p) = progress {
                p.add(n as u64);
            }
            let first = offsets.len();
            index_block(bytes, at, len, before, every, &counts, &mut offsets);
            if offsets.len() > first {
                runs.push((b, first..offsets.len()));
            }
        }
        all_runs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((offsets, runs));
    };
    pool::run(threads.max(1), &worker);

    if let Some((_, e)) = error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let newlines = newlines.into_inner();
    let unterminated = unterminated.into_inner();
    let lines = newlines + u64::from(unterminated);
    let mut starts = Vec::with_capacity(lines.div_ceil(every) as usize);
    if len > 0 {
        starts.push(0);
    }
    let all_runs = all_runs.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut order: Vec<(u64, &[u64])> = all_runs
        .iter()
        .flat_map(|(offsets, runs)| runs.iter().map(|(b, r)| (*b, &offsets[r.clone()])))
        .collect();
    order.sort_unstable_by_key(|&(b, _)| b);
    for (_, run) in order {
        starts.extend_from_slice(run);
    }
    debug_assert_eq!(starts.len() as u64, lines.div_ceil(every));
    Ok(Built {
        starts,
        newlines,
        unterminated,
    })
}

/// Appends to `out` the start of each indexed line that begins right after a
/// newline of `bytes` (at offset `at` of an input of `len` bytes, after `before`
/// newlines), using the per-[`CHUNK`] newline `counts` to skip chunks.
fn index_block(
    bytes: &[u8],
    at: u64,
    len: u64,
    before: u64,
    every: u64,
    counts: &[u32],
    out: &mut Vec<u64>,
) {
    // The newline of global index g starts line g + 1, indexed when
    // (g + 1) % every == 0: skip this many newlines to the first such one here.
    let mut skip = (every - (before + 1) % every) % every;
    let nth = byte_table().nth_byte;
    for (i, chunk) in bytes.chunks(CHUNK).enumerate() {
        let c = u64::from(counts[i]);
        if skip >= c {
            skip -= c;
            continue;
        }
        let base = at + (i * CHUNK) as u64;
        if every >= SPARSE {
            // Few indexed lines per chunk: the vector kernel finds each one, and the
            // chunk's count says how many newlines are left after it.
            let (mut from, mut left) = (0, c);
            while skip < left {
                // `skip < left` newlines are in `chunk[from..]`, so this finds one.
                let p = match nth(&chunk[from..], b'\n', skip as usize) {
                    Ok(p) => p,
                    Err(k) => {
                        left = k as u64; // (not reached: the count says otherwise)
                        break;
                    }
                };
                let start = base + (from + p) as u64 + 1;
                if start < len {
                    out.push(start);
                }
                left -= skip + 1;
                from += p + 1;
                skip = every - 1;
            }
            skip -= left;
            continue;
        }
        let mut left = c;
        for_each_newline(chunk, |p| {
            left -= 1;
            if skip == 0 {
                let start = base + p as u64 + 1;
                if start < len {
                    out.push(start);
                }
                skip = every - 1;
            } else {
                skip -= 1;
            }
            if skip >= left {
                skip -= left;
                return false;
            }
            true
        });
    }
}

#[cfg(test)]
mod tests;
