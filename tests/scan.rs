//! The file scan's contracts (`ndsimd::scan`): every strategy, thread count and
//! buffer size gives the scalar reference's answer, on generated files placed so
//! that needles sit on every buffer and shard boundary; bad input is an error that
//! names the path, never a panic and never a wrong answer.

mod common;

use common::{Rng, TempDir};
use ndsimd::scan::{
    count_byte, count_byte_in, find_nonzero, find_nonzero_in, ScanOptions, Strategy,
};
use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Barrier};
use std::time::Duration;

/// The reference: the offset of the first 8-byte word (zero-padded at the end) with
/// a non-zero byte.
fn ref_find(data: &[u8]) -> Option<u64> {
    data.chunks(8)
        .position(|w| w.iter().any(|&b| b != 0))
        .map(|i| 8 * i as u64)
}

fn ref_count(data: &[u8], byte: u8) -> u64 {
    data.iter().filter(|&&b| b == byte).count() as u64
}

fn opts(strategy: Strategy, threads: usize, buffer: usize) -> ScanOptions {
    ScanOptions {
        strategy,
        threads: Some(threads),
        buffer,
    }
}

/// Every strategy with 1, 2 and 3 threads and the given pread buffer, plus the
/// defaults of both strategies.
fn all_options(buffer: usize) -> Vec<ScanOptions> {
    let mut v = vec![
        ScanOptions::default(),
        ScanOptions {
            strategy: Strategy::Mmap,
            ..ScanOptions::default()
        },
    ];
    for threads in 1..=3 {
        v.push(opts(Strategy::Pread, threads, buffer));
        v.push(opts(Strategy::Mmap, threads, buffer));
    }
    v
}

/// Checks every option set on the file `data` written to `dir`.
fn check_find(dir: &TempDir, data: &[u8], options: &[ScanOptions], what: &str) {
    let p = dir.file("f", data);
    let want = ref_find(data);
    assert_eq!(find_nonzero_in(data), want, "in memory, {what}");
    for o in options {
        assert_eq!(find_nonzero(&p, o).unwrap(), want, "{o:?}, {what}");
    }
}

#[test]
fn every_length_to_64_with_a_needle_at_every_position() {
    let dir = TempDir::new("scan", "small");
    let mut options = all_options(4096);
    // Buffers of one, two and three words: a block boundary at almost every word.
    for buffer in [8, 16, 24] {
        for threads in 1..=3 {
            options.push(opts(Strategy::Pread, threads, buffer));
        }
    }
    for len in 0..=64usize {
        check_find(&dir, &vec![0u8; len], &options, &format!("len {len}, none"));
        for pos in 0..len {
            for needle in [1u8, 0x80, 0xff] {
                let mut data = vec![0u8; len];
                data[pos] = needle;
                let r = ref_find(&data);
                assert_eq!(r, Some(pos as u64 / 8 * 8));
                check_find(&dir, &data, &options, &format!("len {len}, byte {pos}"));
            }
        }
    }
}

#[test]
fn first_word_last_full_word_and_trailing_partial_word() {
    let dir = TempDir::new("scan", "ends");
    let options = all_options(4096);
    let len = 3 * 4096 + 13; // a partial word of 5 bytes at the end
    let cases = [
        (0, 0),
        (7, 0),
        (len - 13 - 8, len as u64 - 13 - 8), // last full word's first byte
        (len - 13 - 1, len as u64 - 13 - 8), // last full word's last byte
        (len - 5, len as u64 - 5),           // the partial word
        (len - 1, len as u64 - 5),
    ];
    for (pos, want) in cases {
        let mut data = vec![0u8; len];
        data[pos] = 0x42;
        assert_eq!(ref_find(&data), Some(want));
        check_find(&dir, &data, &options, &format!("byte {pos}"));
    }
}

#[test]
fn needles_at_every_buffer_and_shard_boundary() {
    // 4 KiB buffers, 1..=3 threads: 4 shards a thread, each a whole number of
    // buffers, so every shard boundary is a buffer boundary. 37 buffers and a bit
    // cut unevenly into 4, 8 and 12 shards.
    let dir = TempDir::new("scan", "bounds");
    let buffer = 4096;
    let len = 37 * buffer + 8 * 5 + 3;
    let options = all_options(buffer);
    for b in 1..=37 {
        let edge = b * buffer;
        for pos in [edge - 9, edge - 8, edge - 1, edge, edge + 7, edge + 8] {
            if pos >= len {
                continue;
            }
            let mut data = vec![0u8; len];
            data[pos] = 1;
            check_find(&dir, &data, &options, &format!("byte {pos}"));
        }
    }
}

#[test]
fn the_earliest_of_several_needles_wins() {
    // With several threads a later shard is read at the same time as an earlier
    // one: the answer must still be the earliest needle, wherever the others are.
    let dir = TempDir::new("scan", "several");
    let buffer = 4096;
    let len = 50 * buffer + 24;
    let options = all_options(buffer);
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for round in 0..40 {
        let mut data = vec![0u8; len];
        for _ in 0..1 + rng.below(4) {
            data[rng.below(len)] = 1 + rng.below(255) as u8;
        }
        check_find(&dir, &data, &options, &format!("round {round}"));
    }
}

#[test]
fn files_larger_than_buffer_times_threads() {
    let dir = TempDir::new("scan", "large");
    let len = (5 << 20) + 8 * 3 + 1; // over the in-memory split threshold too
    let mut options = all_options(64 << 10);
    options.push(opts(Strategy::Pread, 2, 1 << 20));
    options.push(opts(Strategy::Pread, 3, 1 << 20));
    check_find(&dir, &vec![0u8; len], &options, "none");
    for pos in [0, 1 << 20, (1 << 20) - 1, (5 << 20) - 8, len - 1] {
        let mut data = vec![0u8; len];
        data[pos] = 9;
        check_find(&dir, &data, &options, &format!("byte {pos}"));
    }
    // Counting over the same sizes.
    let mut rng = Rng(77);
    let data: Vec<u8> = (0..len).map(|_| (rng.next() % 8) as u8).collect();
    let p = dir.file("count", &data);
    for byte in [0u8, 3, 7, 8] {
        let want = ref_count(&data, byte);
        assert_eq!(count_byte_in(&data, byte), want);
        for o in &options {
            assert_eq!(count_byte(&p, byte, o).unwrap(), want, "{o:?}, byte {byte}");
        }
    }
}

/// `wc -l FILE`'s count, if the `wc` binary is there.
fn wc_l(path: &Path) -> Option<u64> {
    let out = std::process::Command::new("wc")
        .arg("-l")
        .arg(path)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

#[test]
fn newline_counts_match_the_reference_and_wc() {
    let dir = TempDir::new("scan", "lines");
    let mut texts: Vec<Vec<u8>> = [
        "",
        "\n",
        "no newline",
        "one line\n",
        "two\nlines without a final newline",
        "crlf\r\nline\r\n",
        "crlf without a final one\r\nx",
        "\n\n\n\n",
        "\r\n\r\n\r\n",
        "empty\n\nlines\n\n\n",
        "\r\r\r",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    // Random text across many buffers, with and without a final newline.
    let mut rng = Rng(0xc0ffee);
    for len in [4095, 4096, 4097, 3 * 4096 + 17, 200_000] {
        let mut t: Vec<u8> = (0..len)
            .map(|_| match rng.below(10) {
                0 => b'\n',
                1 => b'\r',
                _ => b'a' + rng.below(26) as u8,
            })
            .collect();
        texts.push(t.clone());
        t.push(b'\n');
        texts.push(t);
    }
    let options = all_options(4096);
    let have_wc = wc_l(&dir.file("probe", b"a\nb\n")) == Some(2);
    for (i, t) in texts.iter().enumerate() {
        let p = dir.file(&format!("t{i}"), t);
        let want = ref_count(t, b'\n');
        if have_wc {
            assert_eq!(wc_l(&p), Some(want), "wc -l, text {i}");
        }
        assert_eq!(count_byte_in(t, b'\n'), want, "in memory, text {i}");
        for o in &options {
            assert_eq!(count_byte(&p, b'\n', o).unwrap(), want, "{o:?}, text {i}");
        }
    }
}

#[test]
fn in_memory_forms_on_misaligned_subslices() {
    let mut rng = Rng(0xa11e);
    let buf: Vec<u8> = (0..300).map(|_| (rng.next() % 3) as u8).collect();
    let zeros = vec![0u8; 300];
    for off in 0..8 {
        for len in 0..=(300 - off) {
            let s = &buf[off..off + len];
            assert_eq!(find_nonzero_in(s), ref_find(s), "off {off} len {len}");
            assert_eq!(count_byte_in(s, 1), ref_count(s, 1), "off {off} len {len}");
            let z = &zeros[off..off + len];
            assert_eq!(find_nonzero_in(z), None);
            // One needle at every position of a zero subslice of this alignment.
            if len <= 80 {
                for pos in 0..len {
                    let mut v = zeros.clone();
                    v[off + pos] = 1;
                    let s = &v[off..off + len];
                    assert_eq!(find_nonzero_in(s), Some(pos as u64 / 8 * 8));
                }
            }
        }
    }
}

#[test]
fn in_memory_forms_split_over_the_pool() {
    // 3 MiB: above the split threshold; needles around the pieces' edges.
    let len = 3 << 20;
    let mut v = vec![0u8; len + 8];
    for off in [0usize, 3] {
        for threads in [1, 2, 3] {
            ndsimd::with_threads(threads, || {
                let s = &mut v[off..off + len];
                assert_eq!(find_nonzero_in(s), None);
                for pos in [0, 1, 255 << 10, 256 << 10, (1 << 20) + 5, len / 2, len - 1] {
                    s[pos] = 1;
                    assert_eq!(find_nonzero_in(s), Some(pos as u64 / 8 * 8), "{pos}");
                    s[len - 1] = 1; // a second, later needle changes nothing
                    assert_eq!(find_nonzero_in(s), Some(pos as u64 / 8 * 8), "{pos}");
                    s[pos] = 0;
                    s[len - 1] = 0;
                }
                let mut rng = Rng(5);
                for x in s.iter_mut() {
                    *x = (rng.next() % 5) as u8;
                }
                assert_eq!(count_byte_in(s, 4), ref_count(s, 4));
                s.fill(0);
            });
        }
    }
}

// ---------------------------------------------------------------------------------
// Bad input

fn assert_error_names(e: &io::Error, path: &Path, what: &str) {
    let msg = e.to_string();
    assert!(msg.contains(&*path.to_string_lossy()), "{what}: {msg}");
}

#[test]
fn empty_files_are_not_errors() {
    let dir = TempDir::new("scan", "empty");
    let p = dir.file("empty", b"");
    for o in all_options(4096) {
        assert_eq!(find_nonzero(&p, &o).unwrap(), None);
        assert_eq!(count_byte(&p, b'\n', &o).unwrap(), 0);
    }
}

#[test]
fn missing_files_and_directories_are_errors_naming_the_path() {
    let dir = TempDir::new("scan", "missing");
    let missing = dir.0.join("no such file");
    for o in all_options(4096) {
        let e = find_nonzero(&missing, &o).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert_error_names(&e, &missing, "missing");
        let e = count_byte(&missing, b'\n', &o).unwrap_err();
        assert_error_names(&e, &missing, "missing");

        let e = find_nonzero(&dir.0, &o).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::IsADirectory);
        assert_error_names(&e, &dir.0, "directory");
        assert!(e.to_string().contains("is a directory"), "{e}");
        let e = count_byte(&dir.0, b'\n', &o).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::IsADirectory);
    }
}

#[test]
fn devices_are_refused() {
    let null = Path::new("/dev/null");
    if !null.exists() {
        return;
    }
    let e = count_byte(null, b'\n', &ScanOptions::default()).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    assert!(
        e.to_string().contains("/dev/null: not a regular file"),
        "{e}"
    );
}

#[test]
fn unreadable_files_are_errors_naming_the_path() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("scan", "perm");
    let p = dir.file("secret", b"\0\0\0\0\0\0\0\0x\n");
    fs::set_permissions(&p, fs::Permissions::from_mode(0o000)).unwrap();
    // Root reads a file whatever its mode: then there is nothing to check but that
    // the scan works.
    let root = fs::File::open(&p).is_ok();
    for o in all_options(4096) {
        let r = find_nonzero(&p, &o);
        if root {
            assert_eq!(r.unwrap(), Some(8));
            continue;
        }
        let e = r.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert_error_names(&e, &p, "permission");
        let e = count_byte(&p, b'\n', &o).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
    }
    if root {
        eprintln!("running as root: permission denied not tested");
    }
}

/// Scans `path` (64 MiB of zeros, no needle) on one thread with small buffers while
/// another thread calls `change` a moment after the scan starts. Every answer must
/// be the right one for the unchanged file (`None`) or an error saying the size
/// changed; returns whether an error was seen.
fn scan_while_changing(path: &Path, strategy: Strategy, change: &(dyn Fn(&Path) + Sync)) -> bool {
    let len = 64u64 << 20;
    for attempt in 0..30 {
        let f = fs::File::create(path).unwrap();
        f.set_len(len).unwrap(); // a hole reads as zeros, fast
        drop(f);
        let start = Arc::new(Barrier::new(2));
        let result = std::thread::scope(|s| {
            let b = start.clone();
            let scanner = s.spawn(move || {
                b.wait();
                let o = opts(strategy, 1, 4096);
                (find_nonzero(path, &o), count_byte(path, 0, &o))
            });
            start.wait();
            std::thread::sleep(Duration::from_micros(300 + 100 * attempt));
            change(path);
            scanner.join().unwrap()
        });
        let (find, count) = result;
        let mut saw_error = false;
        match find {
            Ok(found) => assert_eq!(found, None, "a wrong answer after a change"),
            Err(e) => {
                assert!(
                    e.to_string().contains("changed size while being read"),
                    "{e}"
                );
                assert_error_names(&e, path, "changed");
                saw_error = true;
            }
        }
        match count {
            // The count ran after the find: the change may be entirely before it.
            Ok(n) => {
                let now = fs::metadata(path).unwrap().len();
                assert!(
                    n == len || n == now,
                    "count {n} of a file of {len} then {now}"
                );
            }
            Err(e) => {
                assert!(
                    e.to_string().contains("changed size while being read"),
                    "{e}"
                );
                saw_error = true;
            }
        }
        if saw_error {
            return true;
        }
    }
    false
}

#[test]
fn a_file_that_shrinks_while_read_is_an_error() {
    let dir = TempDir::new("scan", "shrink");
    let p = dir.0.join("shrinks");
    let shrink = |p: &Path| {
        fs::OpenOptions::new()
            .write(true)
            .open(p)
            .unwrap()
            .set_len(1 << 20)
            .unwrap()
    };
    // Only pread: a mapped file that shrinks under the scan raises SIGBUS.
    assert!(
        scan_while_changing(&p, Strategy::Pread, &shrink),
        "the shrink never landed during a scan"
    );
}

#[test]
fn a_file_that_grows_while_read_is_an_error() {
    let dir = TempDir::new("scan", "grow");
    let p = dir.0.join("grows");
    let grow = |p: &Path| {
        let mut f = fs::OpenOptions::new().append(true).open(p).unwrap();
        f.write_all(&[0u8; 4096]).unwrap();
    };
    for strategy in [Strategy::Pread, Strategy::Mmap] {
        assert!(
            scan_while_changing(&p, strategy, &grow),
            "{strategy:?}: the growth never landed during a scan"
        );
    }
}

#[test]
fn odd_options_are_taken_sensibly() {
    // threads 0 runs on one thread; a buffer of 0 or not a multiple of 8 is rounded up.
    let dir = TempDir::new("scan", "odd");
    let mut data = vec![0u8; 1000];
    data[999] = 1;
    let p = dir.file("f", &data);
    for (threads, buffer) in [(0, 0), (0, 13), (2, 1), (64, 7)] {
        let o = opts(Strategy::Pread, threads, buffer);
        assert_eq!(find_nonzero(&p, &o).unwrap(), Some(992), "{o:?}");
        assert_eq!(count_byte(&p, 0, &o).unwrap(), 999, "{o:?}");
    }
}
