//! The files `ndsimd haystack` and `ndsimd lines --index` write: a new file is
//! written whole under a temporary name and renamed over its target only when it is
//! complete, so a failed write leaves the target as it was and nothing else behind;
//! a target that is not a regular file (a device, a FIFO, a directory, a socket) is
//! refused before it is opened, and never removed.

#![cfg(unix)]

mod common;

use common::TempDir;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_ndsimd");

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `cmd` and fails the test if it has not ended within 20 s (a FIFO opened for
/// writing blocks until a reader comes). Its output is small: the pipes never fill.
fn run_bounded(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ndsimd binary runs");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!("{cmd:?} still running after 20 s: {}", stderr(&o));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

fn ndsimd(args: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    run_bounded(cmd)
}

/// `ndsimd ARGS` with writes past `limit_blocks` of `ulimit -f` failing (`EFBIG`:
/// `SIGXFSZ` ignored, which the exec keeps): a write that fails half-way, on any
/// file system.
fn ndsimd_with_file_size_limit(limit_blocks: u32, args: &[&str]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {limit_blocks} || exit 99; exec \"$0\" \"$@\""
        ))
        .arg(BIN)
        .args(args);
    let o = run_bounded(cmd);
    assert_ne!(o.status.code(), Some(99), "ulimit -f refused");
    o
}

/// The names in `dir`, sorted: what a run left there.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Both writers aimed at `target`: `haystack --force` and `lines --index-out`
/// (reading `input`).
fn writers<'a>(target: &'a str, input: &'a str) -> [Vec<&'a str>; 2] {
    [
        vec!["haystack", "--size", "16K", "--force", target],
        vec!["lines", input, "--index", "1", "--index-out", target],
    ]
}

/// Asserts that `args` was refused with exit 2 and a message naming `target` and
/// saying it is not a regular file.
fn assert_refused(o: &Output, args: &[&str], target: &Path, kind: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(p(target)), "{args:?}: {err}");
    assert!(
        err.contains(&format!("not a regular file ({kind})")),
        "{args:?}: {err}"
    );
    assert!(o.stdout.is_empty(), "{args:?}");
}

/// `mknod NAME c MAJOR MINOR` in `dir`; `None` (with a note) where that is not
/// allowed (not root, or a container without the capability).
fn char_device(dir: &Path, name: &str, major: u32, minor: u32) -> Option<std::path::PathBuf> {
    let path = dir.join(name);
    let ok = Command::new("mknod")
        .arg(&path)
        .args(["c", &major.to_string(), &minor.to_string()])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("note: mknod is not allowed here: the character-device case is not tested");
        return None;
    }
    Some(path)
}

/// A copy of `/dev/null` or of `/dev/full` as the target: refused, and the node is
/// still there, the same device, with nothing else left in its directory. (Both
/// writers once removed it when their write or sync failed.)
#[test]
fn a_character_device_target_is_refused_and_kept() {
    let dir = TempDir::new("cli-targets", "chardev");
    let input = dir.file("input", b"a\nb\n");
    for (name, minor) in [("null-copy", 3), ("full-copy", 7)] {
        let Some(dev) = char_device(&dir.0, name, 1, minor) else {
            return;
        };
        let rdev = fs::metadata(&dev).unwrap().rdev();
        for args in writers(p(&dev), p(&input)) {
            let o = ndsimd(&args);
            assert_refused(&o, &args, &dev, "a character device");
            let m = fs::symlink_metadata(&dev).expect("the device node is still there");
            assert!(m.file_type().is_char_device(), "{args:?}");
            assert_eq!(m.rdev(), rdev, "{args:?}");
        }
        // Without --force too: refused for what it is, not as "exists".
        let o = ndsimd(&["haystack", "--size", "8", p(&dev)]);
        assert_refused(&o, &["haystack"], &dev, "a character device");
    }
    assert_eq!(names(&dir.0), ["full-copy", "input", "null-copy"]);
}

/// A FIFO as the target: refused at once (opening it for writing would wait for a
/// reader), and still a FIFO afterwards.
#[test]
fn a_fifo_target_is_refused_without_blocking() {
    let dir = TempDir::new("cli-targets", "fifo");
    let input = dir.file("input", b"a\nb\n");
    let fifo = dir.0.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    for args in writers(p(&fifo), p(&input)) {
        let o = ndsimd(&args);
        assert_refused(&o, &args, &fifo, "a FIFO");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }
    assert_eq!(names(&dir.0), ["fifo", "input"]);
}

/// A directory or a socket as the target: refused, and left as it was.
#[test]
fn a_directory_or_socket_target_is_refused() {
    let dir = TempDir::new("cli-targets", "dir");
    let input = dir.file("input", b"a\nb\n");
    let sub = dir.0.join("sub");
    fs::create_dir(&sub).unwrap();
    fs::write(sub.join("inside"), b"keep").unwrap();
    for args in writers(p(&sub), p(&input)) {
        let o = ndsimd(&args);
        assert_refused(&o, &args, &sub, "a directory");
        assert_eq!(fs::read(sub.join("inside")).unwrap(), b"keep");
    }
    let sock = dir.0.join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    for args in writers(p(&sock), p(&input)) {
        let o = ndsimd(&args);
        assert_refused(&o, &args, &sock, "a socket");
        assert!(fs::symlink_metadata(&sock).unwrap().file_type().is_socket());
    }
    assert_eq!(names(&dir.0), ["input", "sock", "sub"]);
    assert_eq!(names(&sub), ["inside"]);
}

/// A write that fails half-way (here past a file-size limit) leaves an existing
/// target byte for byte as it was, and no partial or temporary file; a new target
/// is not created at all.
#[test]
fn a_failed_write_leaves_the_target_untouched() {
    let dir = TempDir::new("cli-targets", "failed");
    // 20000 lines: an index of every line is about 110 KB, past the limit.
    let text: Vec<u8> = (0..200_000)
        .map(|i| if i % 10 == 9 { b'\n' } else { b'x' })
        .collect();
    let input = dir.file("input", &text);
    let target = dir.file("target", b"keep me");
    let default_idx = dir.file("input.idx", b"old index");
    let mut cases = writers(p(&target), p(&input)).to_vec();
    cases.push(vec!["lines", p(&input), "--index", "1"]);
    for args in &cases {
        // 8 blocks: 4 KiB (dash) or 8 KiB (bash), less than either file.
        let o = ndsimd_with_file_size_limit(8, args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("File too large"), "{args:?}: {err}");
        assert_eq!(fs::read(&target).unwrap(), b"keep me", "{args:?}");
        assert_eq!(fs::read(&default_idx).unwrap(), b"old index", "{args:?}");
        assert_eq!(names(&dir.0), ["input", "input.idx", "target"], "{args:?}");
    }
    let fresh = dir.0.join("fresh");
    let o = ndsimd_with_file_size_limit(8, &["haystack", "--size", "64K", p(&fresh)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(p(&fresh)), "{}", stderr(&o));
    assert_eq!(names(&dir.0), ["input", "input.idx", "target"]);
}

/// On success the target is replaced by a new file renamed over it: a second hard
/// link to the old file still holds the old bytes (the old file was never written
/// in place), the target keeps its permissions, and no temporary file is left.
#[test]
fn an_existing_target_is_replaced_whole_on_success() {
    let dir = TempDir::new("cli-targets", "replace");
    let input = dir.file("input", b"zero\none\ntwo\n");
    let target = dir.file("target", b"old bytes");
    fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
    let old = dir.0.join("old-link");
    fs::hard_link(&target, &old).unwrap();
    let wants: [&[u8]; 2] = [
        b"\0\0\0\0\0\0\0\0NEEDLE!!",
        b"# ndsimd line index: every=1 lines=3 bytes=13\n0\n5\n9\n",
    ];
    let cases = [
        vec!["haystack", "--size", "16", "--force", p(&target)],
        vec![
            "lines",
            p(&input),
            "--index",
            "1",
            "--index-out",
            p(&target),
        ],
    ];
    for (args, want) in cases.iter().zip(wants) {
        let o = ndsimd(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(fs::read(&target).unwrap(), want, "{args:?}");
        assert_eq!(fs::read(&old).unwrap(), b"old bytes", "{args:?}");
        let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640, "{args:?}");
        assert_eq!(names(&dir.0), ["input", "old-link", "target"], "{args:?}");
    }
    // Into the current directory, named without a directory part.
    let o = run_bounded({
        let mut c = Command::new(BIN);
        c.args(["haystack", "--size", "8", "--force", "target"])
            .current_dir(&dir.0);
        c
    });
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(fs::read(&target).unwrap(), b"NEEDLE!!");
    assert_eq!(names(&dir.0), ["input", "old-link", "target"]);
}

/// A symbolic link as the target is followed, as opening it would: the file it
/// names is replaced and the link stays. A link to nothing is refused (nothing is
/// created at the place it points to).
#[test]
fn a_symlink_target_replaces_the_file_it_names() {
    let dir = TempDir::new("cli-targets", "symlink");
    let input = dir.file("input", b"a\nb\n");
    let real_dir = dir.0.join("real");
    fs::create_dir(&real_dir).unwrap();
    let real = real_dir.join("file");
    fs::write(&real, b"old").unwrap();
    let link = dir.0.join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let o = ndsimd(&["haystack", "--size", "16", "--force", p(&link)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(fs::read(&real).unwrap(), b"\0\0\0\0\0\0\0\0NEEDLE!!");
    assert_eq!(names(&real_dir), ["file"]);
    // Without --force the link's file exists: refused.
    let o = ndsimd(&["haystack", "--size", "16", p(&link)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));

    let dangling = dir.0.join("dangling");
    let nowhere = dir.0.join("nowhere");
    std::os::unix::fs::symlink(&nowhere, &dangling).unwrap();
    for args in writers(p(&dangling), p(&input)) {
        let o = ndsimd(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(p(&dangling)) && err.contains("a symbolic link to a missing file"),
            "{args:?}: {err}"
        );
        assert!(!nowhere.exists(), "{args:?}");
        assert!(fs::symlink_metadata(&dangling).unwrap().is_symlink());
    }
    assert_eq!(names(&dir.0), ["dangling", "input", "link", "real"]);
}
