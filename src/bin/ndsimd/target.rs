//! Writing the files the tool makes (`haystack`'s FILE, the index of `lines
//! --index`) so that a failure never costs the user a file.
//!
//! The data goes to a new temporary file, created exclusively (`O_EXCL`) next to the
//! target, synced, and only then renamed over the target: a reader sees the old
//! file or the whole new one, and a failed write removes the temporary file alone.
//! A target that exists and is not a regular file (a device, a FIFO, a directory, a
//! socket) is refused before anything is opened: writing to it would not make a
//! file, and opening a FIFO would wait for a reader. A symbolic link is followed,
//! as opening it would be: the file it names is replaced and the link stays; a link
//! to nothing is refused rather than creating a file where it points. A replaced
//! file keeps its permission bits (and its owner where the process may set it).

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// Writes `path` with `fill`: through a temporary file renamed over `path` once
/// `fill` and the sync succeeded. `replace`: an existing regular file is replaced
/// (else it is an error that says `--force` would). On any error nothing is left
/// but what was there before. Messages start with `path`.
pub fn write(
    path: &Path,
    replace: bool,
    fill: impl FnOnce(&mut File) -> Result<(), String>,
) -> Result<(), String> {
    let shown = path.display();
    let (real, existing) = resolve(path)?;
    if existing.is_some() && !replace {
        return Err(exists(path));
    }
    let dir = match real.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = real
        .file_name()
        .ok_or_else(|| format!("{shown}: cannot create: not a file name"))?;
    let (tmp, mut file) = create_temp(dir, &name.to_string_lossy())
        .map_err(|e| format!("{shown}: cannot create: {e}"))?;
    let result = (|| {
        if let Some(m) = &existing {
            keep_owner_and_mode(&file, m);
        }
        fill(&mut file)?;
        file.sync_all().map_err(|e| format!("{shown}: sync: {e}"))?;
        drop(file);
        put_in_place(&tmp, &real, replace).map_err(|e| match e.kind() {
            ErrorKind::AlreadyExists => exists(path),
            _ => format!("{shown}: cannot replace: {e}"),
        })?;
        // The rename is durable once the directory is synced; the data is in place
        // either way, so a directory that cannot be synced is not an error.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        // Ours alone: created with O_EXCL above (gone already if it was renamed).
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn exists(path: &Path) -> String {
    format!("{}: already exists (--force overwrites it)", path.display())
}

/// The path to rename over (a symbolic link followed) and, when something is
/// there, its metadata; `Err` when it is there and not a regular file.
fn resolve(path: &Path) -> Result<(PathBuf, Option<Metadata>), String> {
    let shown = path.display();
    let meta = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok((path.to_path_buf(), None)),
        Err(e) => return Err(format!("{shown}: cannot create: {e}")),
        Ok(m) => m,
    };
    let (real, meta) = if meta.file_type().is_symlink() {
        let followed = match fs::metadata(path) {
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Err(format!(
                    "{shown}: is a symbolic link to a missing file; refusing to create \
                     the file it points to"
                ))
            }
            Err(e) => return Err(format!("{shown}: cannot follow the symbolic link: {e}")),
            Ok(m) => m,
        };
        let real = fs::canonicalize(path)
            .map_err(|e| format!("{shown}: cannot follow the symbolic link: {e}"))?;
        (real, followed)
    } else {
        (path.to_path_buf(), meta)
    };
    if !meta.file_type().is_file() {
        return Err(format!(
            "{shown}: not a regular file ({}); refusing to replace it",
            kind(&meta)
        ));
    }
    Ok((real, Some(meta)))
}

/// What a non-regular file is, for the message.
fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// A new file `.NAME.ndsimd-PID-N.tmp` in `dir`, created exclusively: never a file
/// that was there before.
fn create_temp(dir: &Path, name: &str) -> std::io::Result<(PathBuf, File)> {
    let pid = std::process::id();
    let mut n = 0u32;
    loop {
        let tmp = dir.join(format!(".{name}.ndsimd-{pid}-{n}.tmp"));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == ErrorKind::AlreadyExists && n < 100 => n += 1,
            Err(e) => return Err(e),
        }
    }
}

/// The replaced file's owner (where allowed: root) and permission bits on `file`.
fn keep_owner_and_mode(file: &File, old: &Metadata) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
    }
    // After the owner: a change of owner may clear the set-id bits.
    let _ = file.set_permissions(old.permissions());
}

/// Moves the finished `tmp` to `real`: a rename over it when `replace`, else a hard
/// link that fails if `real` appeared meanwhile (then `tmp` is removed). Where the
/// file system has no hard links, a rename after a last check.
fn put_in_place(tmp: &Path, real: &Path, replace: bool) -> std::io::Result<()> {
    if replace {
        return fs::rename(tmp, real);
    }
    match fs::hard_link(tmp, real) {
        Ok(()) => {
            let _ = fs::remove_file(tmp);
            Ok(())
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Err(e),
        Err(_) => match fs::symlink_metadata(real) {
            Err(e) if e.kind() == ErrorKind::NotFound => fs::rename(tmp, real),
            _ => Err(ErrorKind::AlreadyExists.into()),
        },
    }
}
