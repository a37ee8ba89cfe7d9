//! Scans of bytes in memory (a slice, or a mapped file), split over the pool: the
//! first non-zero word and byte counts.

use super::{Progress, ScanOptions};
use ndsimd_kernels::{byte_table, io::as_words, io::Mapping, par, pool};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// In-memory inputs at least this long are split over the pool, in pieces of at
/// least [`PIECE_MIN`]: from there two pieces run ~1.8× one thread, below it the
/// gain was not reliable (docs/design.md#file-scan).
pub(super) const PAR_MIN: usize = 512 << 10;
/// The smallest piece a parallel in-memory scan hands one chunk.
pub(super) const PIECE_MIN: usize = 256 << 10;
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
pub(super) fn count_par(
    bytes: &[u8],
    byte: u8,
    map: Option<&Mapping>,
    progress: Option<Progress>,
) -> u64 {
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

/// How much of a mapped file ([`Strategy::Mmap`](super::Strategy::Mmap)) a worker
/// asks the OS to map in one call (`Mapping::populate`, `MADV_POPULATE_READ`)
/// before it scans that part, rather than taking a page fault every few pages as
/// the scan first touches them: in 4 KiB folios that reads ~1.2× faster, in large
/// ones level; the line index does not ask (slower). Measured:
/// docs/design.md#file-scan. Public for tests, not part of the stable API.
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

/// Range of piece `i` of `len` bytes cut into `pieces`, starting at multiples of 64.
pub(super) fn piece(len: usize, pieces: usize, i: usize) -> std::ops::Range<usize> {
    par::piece_start(len, pieces, 64, i)..par::piece_start(len, pieces, 64, i + 1)
}

/// The index of the first non-zero byte, on one thread.
pub(super) fn first_nonzero_byte(bytes: &[u8]) -> Option<usize> {
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
pub(super) fn first_nonzero_byte_par(
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

pub(super) fn with_threads<R>(opts: &ScanOptions, f: impl FnOnce() -> R) -> R {
    match opts.threads {
        Some(n) => pool::with_threads(n.max(1), f),
        None => f(),
    }
}
