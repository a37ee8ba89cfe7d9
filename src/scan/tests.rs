//! Unit tests of the scans' internals: shard cuts, files that change size or fail
//! to read mid-scan (by injection into the one read function), `O_DIRECT` refusals.

use super::file::{check_unchanged, map};
use super::memory::POPULATE_STEP;
use super::memory::{count_par, first_nonzero_byte_par};
use super::pread::{open_direct, pread_count, pread_find, read_direct, Shards, DIRECT_ALIGN};
use super::{count_byte, find_nonzero, LineIndex, ScanOptions, Strategy};
use ndsimd_kernels::pool;
use std::fs::{self, File};
use std::io;
use std::path::PathBuf;
use std::sync::Mutex;

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
    let p = std::env::temp_dir().join(format!("ndsimd-scan-unit-{}-{name}", std::process::id()));
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
                assert!(s.count * s.size >= len && (s.count == 0 || (s.count - 1) * s.size < len));
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
        let found = pool::with_threads(threads, || first_nonzero_byte_par(&map, Some(&map), None));
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
