//! Reading a file in shards of whole buffers on the pool, with positioned reads
//! ([`Strategy::Pread`]) or `O_DIRECT` ones ([`Strategy::Direct`]).

use super::file::{changed, context, error, read_at_retry, read_full};
use super::memory::first_nonzero_byte;
use super::{ScanOptions, Strategy};
use ndsimd_kernels::{byte_table, mem::Aligned, pool};
use std::fs::{self, File};
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The alignment of the read buffers: the kernel's copy into malloc's block (16
/// bytes past a page) ran at a fifth of its speed into an aligned one
/// (docs/design.md#file-scan). A page keeps the door open for `O_DIRECT`, which
/// needs it.
pub(super) const ALIGN: usize = 4096;

/// What `O_DIRECT` needs here: buffer addresses, file offsets and lengths that are
/// multiples of this (the logical block size of every device in use, and the page).
pub(super) const DIRECT_ALIGN: u64 = 4096;

/// How blocks of a file are read: positioned reads through `file`, or through a
/// second descriptor opened with `O_DIRECT` for the part of the file up to its last
/// multiple of [`DIRECT_ALIGN`] (the rest through `file`).
pub(super) struct Reader<'a> {
    file: &'a File,
    direct: Option<File>,
    path: &'a Path,
    len: u64,
}

impl<'a> Reader<'a> {
    pub(super) fn new(
        file: &'a File,
        path: &'a Path,
        len: u64,
        strategy: Strategy,
    ) -> io::Result<Self> {
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
    pub(super) fn read(&self, buf: &mut [u8], at: u64) -> io::Result<()> {
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
pub(super) fn open_direct(path: &Path) -> io::Result<File> {
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
pub(super) fn open_direct(path: &Path) -> io::Result<File> {
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
pub(super) fn read_direct(
    file: &File,
    path: &Path,
    mut buf: &mut [u8],
    mut at: u64,
) -> io::Result<()> {
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
pub(super) struct Shards {
    /// Bytes per read: a multiple of 8.
    pub(super) buffer: u64,
    /// Bytes per shard (the last may be shorter): a multiple of `buffer`.
    pub(super) size: u64,
    /// How many shards.
    pub(super) count: u64,
    /// Threads asked for.
    pub(super) threads: usize,
}

impl Shards {
    pub(super) fn new(len: u64, opts: &ScanOptions) -> Shards {
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
pub(super) fn for_each_block(
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

pub(super) fn pread_find(
    file: &File,
    path: &Path,
    len: u64,
    opts: &ScanOptions,
) -> io::Result<Option<u64>> {
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

pub(super) fn pread_count(
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
