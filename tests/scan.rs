//! The file scan's contracts (`ndsimd::scan`): every strategy, thread count and
//! buffer size gives the scalar reference's answer, on generated files placed so
//! that needles sit on every buffer and shard boundary; bad input is an error that
//! names the path, never a panic and never a wrong answer.

mod common;

use common::{Rng, TempDir};
use ndsimd::scan::{
    count_byte, count_byte_in, find_nonzero, find_nonzero_in, read_ceiling, resolve_strategy,
    LineIndex, Progress, ScanOptions, Strategy,
};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier, OnceLock};
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

fn opts(strategy: Strategy, threads: usize, buffer: usize) -> ScanOptions<'static> {
    ScanOptions {
        strategy,
        threads: Some(threads),
        buffer,
        ..ScanOptions::default()
    }
}

/// Whether files in the system temp dir (where `TempDir` puts them) can be read
/// with `O_DIRECT`; probed once, with a note when they cannot.
fn direct_in_temp() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| {
        let dir = TempDir::new("scan", "direct-probe");
        direct_works(&dir.0)
    })
}

fn direct_works(dir: &Path) -> bool {
    let p = dir.join("probe");
    fs::write(&p, vec![0u8; 8192]).unwrap();
    let o = opts(Strategy::Direct, 1, 4096);
    match find_nonzero(&p, &o) {
        Ok(found) => {
            assert_eq!(found, None);
            true
        }
        Err(e) => {
            assert_eq!(e.kind(), io::ErrorKind::Unsupported, "{e}");
            assert!(e.to_string().contains("O_DIRECT is not supported"), "{e}");
            eprintln!("note: {} refuses O_DIRECT: {e}", dir.display());
            false
        }
    }
}

/// A directory whose file system takes `O_DIRECT`: the temp dir, else one under
/// Cargo's target tmp dir; `None` (with a note) when neither does.
fn direct_dir(name: &str) -> Option<(TempDir, bool)> {
    if direct_in_temp() {
        return Some((TempDir::new("scan", name), true));
    }
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ndsimd-scan-direct-{}-{name}", std::process::id()));
    fs::create_dir_all(&d).unwrap();
    let dir = TempDir(d);
    if direct_works(&dir.0) {
        return Some((dir, false));
    }
    eprintln!("note: no directory here takes O_DIRECT: Strategy::Direct not tested");
    None
}

/// Every strategy with 1, 2 and 3 threads and the given buffer, plus the defaults
/// of pread and mmap. Direct is in when the temp dir takes `O_DIRECT`.
fn all_options(buffer: usize) -> Vec<ScanOptions<'static>> {
    let mut v = vec![
        ScanOptions::default(),
        ScanOptions {
            strategy: Strategy::Mmap,
            ..ScanOptions::default()
        },
        ScanOptions {
            strategy: Strategy::Auto,
            ..ScanOptions::default()
        },
    ];
    for threads in 1..=3 {
        v.push(opts(Strategy::Pread, threads, buffer));
        v.push(opts(Strategy::Mmap, threads, buffer));
        v.push(opts(Strategy::Auto, threads, buffer));
        if direct_in_temp() {
            v.push(opts(Strategy::Direct, threads, buffer));
        }
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

#[test]
fn mapped_scans_across_their_populate_steps() {
    // `Strategy::Mmap` scans each worker's part in steps of `POPULATE_STEP`, asking
    // for each step's pages first: needles and newlines on the edges.
    let step = ndsimd::scan::POPULATE_STEP;
    let dir = TempDir::new("scan", "populate");
    let len = 2 * step + step / 2 + 13;
    let options: Vec<ScanOptions> = (1..=3).map(|t| opts(Strategy::Mmap, t, 1 << 20)).collect();
    let mut data = vec![0u8; len];
    check_find(&dir, &data, &options, "none");
    // Step edges, the piece edges of two and three workers, and the edges of the
    // finds' 256 KiB checks.
    let k = 256 << 10;
    let edges = [
        step,
        2 * step,
        len / 2,
        len / 3,
        len - 1,
        k,
        3 * k,
        step + k,
    ];
    for &e in &edges {
        for pos in [e - 8, e - 1, e, e + 7] {
            if pos < len {
                data[pos] = 0x40;
                check_find(&dir, &data, &options, &format!("byte {pos}"));
                data[pos] = 0;
            }
        }
    }
    let mut rng = Rng(5);
    let mut text: Vec<u8> = (0..len)
        .map(|_| if rng.below(61) == 0 { b'\n' } else { b'x' })
        .collect();
    for &e in &edges {
        for pos in [e - 1, e, e + 1] {
            if pos < len {
                text[pos] = b'\n';
            }
        }
    }
    let p = dir.file("text", &text);
    let want = ref_count(&text, b'\n');
    for o in &options {
        assert_eq!(count_byte(&p, b'\n', o).unwrap(), want, "{o:?}");
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
    // Not mmap: a mapped file that shrinks under the scan raises SIGBUS.
    let mut strategies = vec![Strategy::Pread];
    if direct_in_temp() {
        strategies.push(Strategy::Direct);
    }
    for strategy in strategies {
        assert!(
            scan_while_changing(&p, strategy, &shrink),
            "{strategy:?}: the shrink never landed during a scan"
        );
    }
}

/// `LineIndex::build` reading (`pread`) a file that another thread shrinks: an
/// error that says the size changed, or (when the shrink lands after it) the index
/// of the unchanged file; never a partial index returned as whole, nor a signal.
#[test]
fn a_line_index_of_a_file_that_shrinks_while_read_is_an_error() {
    let dir = TempDir::new("scan", "index-shrink");
    let p = dir.0.join("shrinks");
    let len = 64u64 << 20;
    for attempt in 0..30 {
        let f = fs::File::create(&p).unwrap();
        f.set_len(len).unwrap();
        drop(f);
        let start = Barrier::new(2);
        let built = std::thread::scope(|s| {
            let indexer = s.spawn(|| {
                start.wait();
                LineIndex::build(&p, 4096, &opts(Strategy::Pread, 1, 4096))
            });
            start.wait();
            std::thread::sleep(Duration::from_micros(300 + 100 * attempt));
            fs::OpenOptions::new()
                .write(true)
                .open(&p)
                .unwrap()
                .set_len(1 << 20)
                .unwrap();
            indexer.join().unwrap()
        });
        match built {
            // Zeros hold no newline, before the shrink and after it.
            Ok(index) => assert_eq!(index.line_count(), 0),
            Err(e) => {
                assert!(
                    e.to_string().contains("changed size while being read"),
                    "{e}"
                );
                assert_error_names(&e, &p, "changed");
                return;
            }
        }
    }
    panic!("the shrink never landed during a build");
}

#[test]
fn a_file_that_grows_while_read_is_an_error() {
    let dir = TempDir::new("scan", "grow");
    let p = dir.0.join("grows");
    let grow = |p: &Path| {
        let mut f = fs::OpenOptions::new().append(true).open(p).unwrap();
        f.write_all(&[0u8; 4096]).unwrap();
    };
    for strategy in [Strategy::Pread, Strategy::Mmap, Strategy::Direct] {
        if strategy == Strategy::Direct && !direct_in_temp() {
            continue;
        }
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

// ---------------------------------------------------------------------------------
// O_DIRECT

#[test]
fn direct_gives_pread_answers_on_aligned_and_unaligned_lengths() {
    let Some((dir, _)) = direct_dir("direct") else {
        return;
    };
    let mut rng = Rng(0xd1ec7);
    for len in [
        0usize,
        1,
        8,
        4095,
        4096,
        4097,
        8191,
        3 * 4096 + 5,
        (1 << 20) + 123,
    ] {
        let tail = len % 4096;
        let mut positions = vec![0, 4095, 4096, 4097, len.saturating_sub(1)];
        positions.push(len - tail); // the first byte of the unaligned tail
        positions.push((len - tail).saturating_sub(1)); // the last aligned byte
        positions.retain(|&p| p < len);
        let mut cases = vec![vec![0u8; len]];
        for &p in &positions {
            let mut d = vec![0u8; len];
            d[p] = 1;
            cases.push(d);
        }
        cases.push((0..len).map(|_| (rng.next() % 4) as u8).collect());
        for (i, data) in cases.iter().enumerate() {
            let p = dir.file("d", data);
            for threads in 1..=3 {
                // 5000 is rounded up to 8192 for direct.
                for buffer in [4096, 5000, 1 << 20] {
                    let d = opts(Strategy::Direct, threads, buffer);
                    let r = opts(Strategy::Pread, threads, buffer);
                    let what = format!("len {len}, case {i}, {d:?}");
                    let want = ref_find(data);
                    assert_eq!(find_nonzero(&p, &r).unwrap(), want, "{what}");
                    assert_eq!(find_nonzero(&p, &d).unwrap(), want, "{what}");
                    let want = ref_count(data, 0);
                    assert_eq!(count_byte(&p, 0, &d).unwrap(), want, "{what}");
                    assert_eq!(read_ceiling(&p, &d).unwrap(), len as u64, "{what}");
                    let a = LineIndex::build(&p, 3, &d).unwrap();
                    let b = LineIndex::build(&p, 3, &r).unwrap();
                    assert_eq!(a.starts(), b.starts(), "{what}");
                    assert_eq!(a.line_count(), b.line_count(), "{what}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// Progress and the read ceiling

#[test]
fn progress_counts_every_byte_read() {
    static DONE: AtomicU64 = AtomicU64::new(0);
    let dir = TempDir::new("scan", "progress");
    let len = 100_003;
    let mut data = vec![0u8; len];
    data[len - 1] = b'\n';
    let p = dir.file("f", &data);
    for mut o in all_options(4096) {
        o.progress = Some(Progress(&DONE));
        DONE.store(0, Ordering::Relaxed);
        assert_eq!(count_byte(&p, b'\n', &o).unwrap(), 1);
        assert_eq!(DONE.load(Ordering::Relaxed), len as u64, "count {o:?}");
        // No needle: every byte is read.
        DONE.store(0, Ordering::Relaxed);
        assert_eq!(find_nonzero(&p, &o).unwrap(), Some((len as u64 - 1) & !7));
        assert_eq!(DONE.load(Ordering::Relaxed), len as u64, "find {o:?}");
        DONE.store(0, Ordering::Relaxed);
        LineIndex::build(&p, 5, &o).unwrap();
        assert_eq!(DONE.load(Ordering::Relaxed), len as u64, "index {o:?}");
        DONE.store(0, Ordering::Relaxed);
        assert_eq!(read_ceiling(&p, &o).unwrap(), len as u64);
        assert_eq!(DONE.load(Ordering::Relaxed), len as u64, "ceiling {o:?}");
    }
}

/// `Strategy::Auto` maps a file in the page cache and reads a cold one with `pread`,
/// and the answers are the same either way.
#[cfg(target_os = "linux")]
#[test]
fn auto_maps_a_cached_file_and_reads_a_cold_one() {
    let dir = TempDir::new("scan", "auto");
    let len = (9 << 20) + 13;
    let data: Vec<u8> = (0..len)
        .map(|i| if i % 61 == 0 { b'\n' } else { 0 })
        .collect();
    let p = dir.file("f", &data);
    let want = ref_count(&data, b'\n');
    let file = fs::File::open(&p).unwrap();
    for threads in [None, Some(1), Some(2)] {
        let auto = ScanOptions {
            strategy: Strategy::Auto,
            threads,
            ..ScanOptions::default()
        };
        if !common::evicted(&file) {
            return;
        }
        assert_eq!(
            resolve_strategy(&p, &auto).unwrap(),
            Strategy::Pread,
            "cold"
        );
        assert_eq!(count_byte(&p, b'\n', &auto).unwrap(), want);
        // The pread above put the file back in the cache.
        assert_eq!(
            resolve_strategy(&p, &auto).unwrap(),
            Strategy::Mmap,
            "read once"
        );
        assert_eq!(count_byte(&p, b'\n', &auto).unwrap(), want);
        assert_eq!(find_nonzero(&p, &auto).unwrap(), Some(0));
        let index = LineIndex::build(&p, 1000, &auto).unwrap();
        assert_eq!(index.line_count(), want);
        // Half of the file cold is not cached.
        fs::read(&p).unwrap();
        assert!(common::evicted(&file));
        let mut first = vec![0u8; len / 2];
        io::Read::read_exact(&mut fs::File::open(&p).unwrap(), &mut first).unwrap();
        assert_eq!(
            resolve_strategy(&p, &auto).unwrap(),
            Strategy::Pread,
            "half cold"
        );
    }
    // The others are what they say.
    for s in [Strategy::Pread, Strategy::Mmap, Strategy::Direct] {
        let o = ScanOptions {
            strategy: s,
            ..ScanOptions::default()
        };
        assert_eq!(resolve_strategy(&p, &o).unwrap(), s);
    }
    // Auto settles on an empty file, and reports a missing one as the scans do.
    let empty = dir.file("empty", b"");
    let auto = ScanOptions {
        strategy: Strategy::Auto,
        ..ScanOptions::default()
    };
    assert_eq!(resolve_strategy(&empty, &auto).unwrap(), Strategy::Pread);
    assert_eq!(count_byte(&empty, b'\n', &auto).unwrap(), 0);
    let missing = dir.0.join("missing");
    let e = resolve_strategy(&missing, &auto).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
    assert_error_names(&e, &missing, "missing");
}

#[test]
fn read_ceiling_reads_the_whole_file_and_reports_errors() {
    let dir = TempDir::new("scan", "ceiling");
    for len in [0usize, 1, 4096, 70_001] {
        let p = dir.file("f", &vec![7u8; len]);
        for o in all_options(4096) {
            assert_eq!(read_ceiling(&p, &o).unwrap(), len as u64, "{o:?}");
        }
    }
    let missing = dir.0.join("missing");
    let e = read_ceiling(&missing, &ScanOptions::default()).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
    assert_error_names(&e, &missing, "missing");
}

// ---------------------------------------------------------------------------------
// The line index

/// The reference line starts: 0 (if not empty), then after every '\n' that is not
/// the last byte.
fn ref_line_starts(data: &[u8]) -> Vec<u64> {
    let mut v = Vec::new();
    if !data.is_empty() {
        v.push(0);
    }
    for (i, &b) in data.iter().enumerate() {
        if b == b'\n' && i + 1 < data.len() {
            v.push(i as u64 + 1);
        }
    }
    v
}

fn ref_line_end(data: &[u8], start: u64) -> u64 {
    data[start as usize..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(data.len() as u64, |p| start + p as u64)
}

/// Checks `index` (of `data`, every `every`) against the reference: the indexed
/// offsets, the counts, and (through `offset`/`range`) every line or, for many
/// lines, a sample that covers the first and last `every + 1`.
fn check_index(
    index: &LineIndex,
    data: &[u8],
    every: u64,
    offset: &dyn Fn(u64) -> Option<u64>,
    range: &dyn Fn(u64) -> Option<std::ops::Range<u64>>,
    what: &str,
) {
    let starts = ref_line_starts(data);
    let want: Vec<u64> = starts.iter().step_by(every as usize).copied().collect();
    assert_eq!(index.starts(), &want[..], "starts, {what}");
    assert_eq!(index.line_count(), ref_count(data, b'\n'), "{what}");
    assert_eq!(index.lines(), starts.len() as u64, "{what}");
    assert_eq!(index.len(), data.len() as u64);
    assert_eq!(index.every(), every);
    let n = starts.len() as u64;
    let sample: Vec<u64> = if n <= 300 {
        (0..=n + 1).collect()
    } else {
        let mut v: Vec<u64> = (0..=every + 1).chain(n - every - 2..=n + 1).collect();
        v.extend((0..n).step_by((n / 97) as usize + 1));
        v
    };
    for line in sample {
        let want_start = starts.get(line as usize).copied();
        assert_eq!(offset(line), want_start, "line_offset({line}), {what}");
        let want_range = want_start.map(|s| s..ref_line_end(data, s));
        assert_eq!(range(line), want_range, "line_range({line}), {what}");
    }
}

fn texts_for_the_index() -> Vec<Vec<u8>> {
    let mut texts: Vec<Vec<u8>> = [
        "",
        "\n",
        "x",
        "no newline",
        "one line\n",
        "two\nlines without a final newline",
        "crlf\r\nline\r\n",
        "crlf without a final one\r\nx",
        "\n\n\n\n\n\n\n",
        "empty\n\nlines\n\n\n",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let mut rng = Rng(0x1de7);
    // Dense newlines, and sparse ones (lines longer than a 4 KiB buffer).
    for (len, one_in) in [(4097, 3), (3 * 4096 + 17, 10), (40_000, 2), (50_000, 5000)] {
        let mut t: Vec<u8> = (0..len)
            .map(|_| match rng.below(one_in) {
                0 => b'\n',
                _ => b'a' + rng.below(26) as u8,
            })
            .collect();
        texts.push(t.clone());
        t.push(b'\n');
        texts.push(t);
    }
    // Newlines on and around every 4 KiB boundary (buffers and the count chunks).
    let mut t = vec![b'y'; 5 * 4096 + 3];
    for k in 1..=5 {
        for d in [-1i64, 0, 1] {
            t[(k * 4096 + d) as usize] = b'\n';
        }
    }
    texts.push(t);
    texts
}

#[test]
fn line_index_matches_the_reference_for_every_option() {
    let dir = TempDir::new("scan", "index");
    let mut options = all_options(4096);
    for buffer in [8, 24, 4104] {
        for threads in 1..=3 {
            options.push(opts(Strategy::Pread, threads, buffer));
        }
    }
    for (i, t) in texts_for_the_index().iter().enumerate() {
        let p = dir.file(&format!("t{i}"), t);
        for every in [1u64, 2, 3, 7, 64, 1000, u64::MAX] {
            let index = LineIndex::build_in(t, every);
            check_index(
                &index,
                t,
                every,
                &|n| index.line_offset_in(t, n),
                &|n| index.line_range_in(t, n),
                &format!("in memory, text {i}, every {every}"),
            );
            for o in &options {
                let what = format!("text {i}, every {every}, {o:?}");
                let index = LineIndex::build(&p, every, o).unwrap();
                assert_eq!(index.path(), Some(p.as_path()));
                check_index(
                    &index,
                    t,
                    every,
                    &|n| index.line_offset(n).unwrap(),
                    &|n| index.line_range(n).unwrap(),
                    &what,
                );
            }
        }
    }
}

#[test]
fn line_index_over_large_inputs_split_over_the_pool() {
    // 3 MiB: the in-memory build is split (256 KiB blocks); the file build runs
    // with 64 KiB and 1 MiB buffers on 1-3 threads.
    let dir = TempDir::new("scan", "index-large");
    let mut rng = Rng(0xb16);
    let t: Vec<u8> = (0..(3 << 20) + 5)
        .map(|_| match rng.below(40) {
            0 => b'\n',
            _ => b'.',
        })
        .collect();
    let p = dir.file("big", &t);
    let have_wc = wc_l(&p);
    for every in [1u64, 5, 1000] {
        for threads in 1..=3 {
            ndsimd::with_threads(threads, || {
                let index = LineIndex::build_in(&t, every);
                check_index(
                    &index,
                    &t,
                    every,
                    &|n| index.line_offset_in(&t, n),
                    &|n| index.line_range_in(&t, n),
                    &format!("in memory, every {every}, {threads} threads"),
                );
            });
            for buffer in [64 << 10, 1 << 20] {
                for strategy in [Strategy::Pread, Strategy::Mmap] {
                    let o = opts(strategy, threads, buffer);
                    let index = LineIndex::build(&p, every, &o).unwrap();
                    if let Some(wc) = have_wc {
                        assert_eq!(index.line_count(), wc, "wc -l");
                    }
                    check_index(
                        &index,
                        &t,
                        every,
                        &|n| index.line_offset(n).unwrap(),
                        &|n| index.line_range(n).unwrap(),
                        &format!("every {every}, {o:?}"),
                    );
                }
            }
        }
    }
}

#[test]
fn line_index_errors_name_the_path() {
    let dir = TempDir::new("scan", "index-errors");
    let missing = dir.0.join("missing");
    let e = LineIndex::build(&missing, 10, &ScanOptions::default()).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
    assert_error_names(&e, &missing, "missing");
    let e = LineIndex::build(&dir.0, 10, &ScanOptions::default()).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::IsADirectory);

    // every = 0 is taken as 1.
    let p = dir.file("f", b"a\nb\nc\n");
    let index = LineIndex::build(&p, 0, &ScanOptions::default()).unwrap();
    assert_eq!((index.every(), index.starts()), (1, &[0u64, 2, 4][..]));

    // The file changes length after it was indexed: queries say so.
    let index = LineIndex::build(&p, 2, &ScanOptions::default()).unwrap();
    fs::write(&p, b"a\nb\nc\nd\n").unwrap();
    let e = index.line_offset(1).unwrap_err();
    assert!(e.to_string().contains("changed size"), "{e}");
    assert_error_names(&e, &p, "changed");
    // The same length, newlines moved so line 1 is not where the index expects.
    fs::write(&p, b"abcdef").unwrap();
    let e = index.line_range(1).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    assert!(e.to_string().contains("not where the index says"), "{e}");
    assert_error_names(&e, &p, "moved");
    // Removed.
    fs::remove_file(&p).unwrap();
    let e = index.line_range(0).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);

    // An in-memory index has no file to read.
    let index = LineIndex::build_in(b"a\nb\n", 1);
    let e = index.line_offset(1).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    // Queries past the end, or on other bytes, are None, not errors.
    assert_eq!(index.line_offset(2).unwrap(), None);
    assert_eq!(index.line_offset_in(b"a\nb", 1), None);
}
