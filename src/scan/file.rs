//! Opening a file for a scan, the checks that it is a regular file whose length
//! did not change, positioned reads with errors that name the path, and the
//! mapping a strategy reads.

use super::Strategy;
use ndsimd_kernels::io::Mapping;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

pub(super) fn error(path: &Path, kind: io::ErrorKind, msg: impl std::fmt::Display) -> io::Error {
    io::Error::new(kind, format!("{}: {msg}", path.display()))
}

/// `e` with the path and what was being done in its message, its kind kept and
/// `e` itself as the [`source`](std::error::Error::source) of the inner error (so a
/// caller can still reach the OS error code).
pub(super) fn context(path: &Path, what: &str, e: io::Error) -> io::Error {
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
pub(super) fn open(path: &Path) -> io::Result<(File, u64)> {
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
pub(super) fn check_unchanged(file: &File, path: &Path, len: u64) -> io::Result<()> {
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

pub(super) fn changed(path: &Path, detail: impl std::fmt::Display) -> io::Error {
    error(
        path,
        io::ErrorKind::UnexpectedEof,
        format_args!("file changed size while being read ({detail})"),
    )
}

pub(super) fn read_at_retry(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    #[cfg(test)]
    if let Some(e) = super::tests::injected_error(file, offset, buf.len()) {
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
pub(super) fn read_full(
    file: &File,
    path: &Path,
    mut buf: &mut [u8],
    mut offset: u64,
) -> io::Result<()> {
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

pub(super) fn map(file: &File, path: &Path, len: u64) -> io::Result<Mapping> {
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
pub(super) fn mapping_for(
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
