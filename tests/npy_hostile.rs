//! `.npy` input that is hostile or merely unusual: files that are not regular
//! (`/dev/zero`, a FIFO), headers that promise more than the file holds, and the
//! header spellings NumPy accepts or refuses (the table in
//! `tests/data/npy_headers.tsv`, whose verdicts are NumPy's).

mod common;

use common::TempDir;
use ndsimd::{npy, Array};
use std::io::{self, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD: &str = "NDSIMD_NPY_HOSTILE_CHILD";

/// Runs `body` in a child process (this test binary re-run for the test `name`
/// alone) limited to 4 GiB of address space (of memory under AddressSanitizer) and
/// `secs` seconds, so that reading a device until memory runs out or blocking on a
/// FIFO fails the test instead of taking the machine or the test run with it.
fn isolated(name: &str, secs: u64, body: impl FnOnce()) {
    if std::env::var_os(CHILD).is_some() {
        body();
        return;
    }
    let exe = std::env::current_exe().unwrap();
    // AddressSanitizer reserves terabytes of address space for its shadow, so under
    // it the bound is its own (CI's ASAN_OPTIONS: `max_allocation_size_mb`,
    // `hard_rss_limit_mb`, `allocator_may_return_null`).
    let limit = if std::env::var_os("ASAN_OPTIONS").is_some() {
        ""
    } else {
        "ulimit -v 4194304 && "
    };
    let mut child = Command::new("sh")
        .args(["-c", &format!("{limit}exec \"$0\" \"$@\"")])
        .arg(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{name} in a child process: still running after {secs} s (blocked?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        status.success() && stdout.contains("1 passed"),
        "{name} in a child process: {status}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn expect_err<T>(r: io::Result<T>, kind: io::ErrorKind, needle: &str) -> io::Error {
    let Err(e) = r else {
        panic!("expected an error containing {needle:?}")
    };
    assert_eq!(e.kind(), kind, "{e}");
    assert!(e.to_string().contains(needle), "{e:?} lacks {needle:?}");
    e
}

/// A version-1.0 file: the prefix, `header` as written, then `data`.
fn npy_file(header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn header(descr: &str, shape: &str) -> String {
    format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}")
}

/// The cases: `/dev/zero` and `/dev/urandom` were read until memory ran
/// out, a FIFO without a writer blocked forever. All are refused before they
/// are opened.
#[test]
fn files_that_are_not_regular_are_refused() {
    let dir = TempDir::new("npy", "fifo");
    let fifo = dir.0.join("fifo.npy");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    isolated("files_that_are_not_regular_are_refused", 20, || {
        let msg = "not a regular file (a device, FIFO or socket cannot be read as .npy)";
        for dev in ["/dev/zero", "/dev/urandom", "/dev/null"] {
            let e = expect_err(npy::read::<f64>(dev), io::ErrorKind::InvalidInput, msg);
            assert!(e.to_string().starts_with(dev), "{e}");
        }
        expect_err(npy::read::<f32>(&fifo), io::ErrorKind::InvalidInput, msg);
        expect_err(
            npy::read::<f32>(fifo.parent().unwrap()),
            io::ErrorKind::IsADirectory,
            "is a directory",
        );
    });
}

/// The header's shape is checked against the file's length before anything is
/// allocated or read: a 200-byte file promising 2^40 elements is an error at once.
#[test]
fn a_header_is_checked_against_the_file_length() {
    let dir = TempDir::new("npy", "length");
    let lying = npy_file(&header("'<f8'", "(1099511627776,)"), &[0u8; 121]);
    let p = dir.file("lying.npy", &lying);
    assert_eq!(std::fs::metadata(&p).unwrap().len(), 200);
    let needle = "truncated .npy file: shape [1099511627776] of '<f8' needs 8796093022208 \
                  data bytes but the file has 121";
    expect_err(npy::read::<f64>(&p), io::ErrorKind::InvalidData, needle);
    expect_err(
        npy::from_bytes::<f64>(&lying),
        io::ErrorKind::InvalidData,
        needle,
    );

    // A truncated body, and bytes after the array (NumPy's np.load ignores them;
    // ndsimd refuses a file that is not one whole array).
    let h = header("'<f8'", "(4,)");
    let p = dir.file("short.npy", &npy_file(&h, &[0u8; 24]));
    expect_err(
        npy::read::<f64>(&p),
        io::ErrorKind::InvalidData,
        "truncated .npy file: shape [4] of '<f8' needs 32 data bytes but the file has 24",
    );
    let p = dir.file("long.npy", &npy_file(&h, &[0u8; 40]));
    expect_err(
        npy::read::<f64>(&p),
        io::ErrorKind::InvalidData,
        "bad .npy file: shape [4] of '<f8' needs 32 data bytes but the file has 40",
    );
    // A header length past the end of the file.
    let mut cut = npy_file(&h, &[0u8; 32]);
    cut.truncate(30);
    let p = dir.file("cut.npy", &cut);
    expect_err(
        npy::read::<f64>(&p),
        io::ErrorKind::InvalidData,
        "truncated .npy file: the header is 57 bytes long but only 20 bytes follow",
    );
    for n in [0, 5, 9] {
        let p = dir.file("tiny.npy", &cut[..n]);
        expect_err(
            npy::read::<f64>(&p),
            io::ErrorKind::InvalidData,
            ".npy file",
        );
    }
}

/// A sparse file as long as its header promises (8 TiB): the file is consistent,
/// so the array is allocated, and the allocator's refusal is an error naming the
/// shape and bytes, not an abort. Skipped where the file system cannot hold such a
/// file or the kernel grants any allocation.
#[test]
fn a_huge_consistent_file_is_an_allocation_error() {
    let mode = std::fs::read_to_string("/proc/sys/vm/overcommit_memory").unwrap_or_default();
    if mode.trim() == "1" {
        eprintln!("vm.overcommit_memory = 1: an 8 TiB allocation is granted; skipped");
        return;
    }
    let dir = TempDir::new("npy", "sparse");
    let p = dir.0.join("sparse.npy");
    let head = npy_file(&header("'<f8'", "(1099511627776,)"), &[]);
    let mut f = std::fs::File::create(&p).unwrap();
    f.write_all(&head).unwrap();
    if f.set_len(head.len() as u64 + (1 << 43)).is_err() {
        eprintln!("no 8 TiB sparse file here; skipped");
        return;
    }
    drop(f);
    isolated("a_huge_consistent_file_is_an_allocation_error", 20, || {
        expect_err(
            npy::read::<f64>(&p),
            io::ErrorKind::OutOfMemory,
            "unable to allocate 8796093022208 bytes (8.00 TiB) for an array of shape \
             [1099511627776] and data type float64",
        );
    });
}

/// The body is read in chunks: arrays across many chunks, either byte order and
/// Fortran order, read as `from_bytes` reads them; a symlink to a file is read.
#[test]
fn chunked_reads_match_from_bytes() {
    let dir = TempDir::new("npy", "chunks");
    let a = Array::<f64>::arange(0.0, 100_003.0, 1.0).unwrap();
    let p = dir.0.join("a.npy");
    npy::write(&p, &a.view()).unwrap();
    assert_eq!(npy::read::<f64>(&p).unwrap(), a);
    let link = dir.0.join("link.npy");
    std::os::unix::fs::symlink(&p, &link).unwrap();
    assert_eq!(npy::read::<f64>(&link).unwrap(), a);

    // Big-endian f32 in Fortran order, 3 x 50_001.
    let (rows, cols) = (3usize, 50_001usize);
    let mut data = Vec::new();
    for j in 0..cols {
        for i in 0..rows {
            data.extend_from_slice(&((i * cols + j) as f32).to_be_bytes());
        }
    }
    let h = "{'descr': '>f4', 'fortran_order': True, 'shape': (3, 50001), }";
    let bytes = npy_file(h, &data);
    let p = dir.file("be.npy", &bytes);
    let r = npy::read::<f32>(&p).unwrap();
    assert_eq!(r.shape(), &[rows, cols]);
    assert!(r.iter().enumerate().all(|(k, &x)| x == k as f32));
    assert_eq!(r, npy::from_bytes::<f32>(&bytes).unwrap());
}

/// One row of `tests/data/npy_headers.tsv`.
struct Row {
    line: usize,
    descr: String,
    shape: String,
    verdict: String,
}

fn rows() -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/npy_headers.tsv");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 3, "line {}: {l:?}", i + 1);
            Row {
                line: i + 1,
                descr: f[0].into(),
                shape: f[1].into(),
                verdict: f[2].into(),
            }
        })
        .collect()
}

/// `from_bytes` of a file with `row`'s header and `data`, as each of our types.
fn read_as_each(row: &Row, data: &[u8]) -> [io::Result<String>; 6] {
    let bytes = npy_file(&header(&row.descr, &row.shape), data);
    [
        npy::from_bytes::<f64>(&bytes).map(|a| format!("f64 {:?} {:?}", a.shape(), a.to_vec())),
        npy::from_bytes::<f32>(&bytes).map(|a| format!("f32 {:?} {:?}", a.shape(), a.to_vec())),
        npy::from_bytes::<bool>(&bytes).map(|a| format!("bool {:?} {:?}", a.shape(), a.to_vec())),
        npy::from_bytes::<i64>(&bytes).map(|a| format!("i64 {:?} {:?}", a.shape(), a.to_vec())),
        npy::from_bytes::<i32>(&bytes).map(|a| format!("i32 {:?} {:?}", a.shape(), a.to_vec())),
        npy::from_bytes::<u8>(&bytes).map(|a| format!("u8 {:?} {:?}", a.shape(), a.to_vec())),
    ]
}

/// The spellings (`=f8`, `f8`, `<d`, `?`, `<b1` were refused; `(02,)` was
/// accepted) and the rest of the table: ndsimd's verdict is NumPy's for each.
#[test]
fn header_spellings_match_numpy() {
    let rows = rows();
    assert!(rows.len() > 80);
    let mut wrong = Vec::new();
    for row in &rows {
        let at = format!("line {}: descr {} shape {}", row.line, row.descr, row.shape);
        match row.verdict.as_str() {
            "error" | "other" => {
                // No header-level error may hide behind a data-length error.
                let needle = if row.verdict == "other" {
                    "unsupported dtype"
                } else {
                    ""
                };
                for r in read_as_each(row, &[0u8; 16]) {
                    match r {
                        Ok(got) => wrong.push(format!("{at}: NumPy refuses, ndsimd reads {got}")),
                        Err(e) => {
                            let m = e.to_string();
                            let header_level = m.contains("bad .npy header")
                                || m.contains("unsupported dtype")
                                || m.contains("dtype mismatch");
                            if !header_level || !m.contains(needle) {
                                wrong.push(format!("{at}: {} expected, got {m}", row.verdict));
                            }
                        }
                    }
                }
            }
            verdict => {
                let (dtype, dims) = verdict.split_once(' ').unwrap();
                let dims: Vec<usize> = dims
                    .trim_matches(|c| c == '[' || c == ']')
                    .split(',')
                    .filter(|d| !d.trim().is_empty())
                    .map(|d| d.trim().parse().unwrap())
                    .collect();
                let n: usize = dims.iter().product();
                let mut data = Vec::new();
                for i in 0..n {
                    match dtype {
                        "<f8" => data.extend_from_slice(&(i as f64).to_le_bytes()),
                        ">f8" => data.extend_from_slice(&(i as f64).to_be_bytes()),
                        "<f4" => data.extend_from_slice(&(i as f32).to_le_bytes()),
                        ">f4" => data.extend_from_slice(&(i as f32).to_be_bytes()),
                        "|b1" => data.push(u8::from(i != 0)),
                        "<i8" => data.extend_from_slice(&(i as i64).to_le_bytes()),
                        ">i8" => data.extend_from_slice(&(i as i64).to_be_bytes()),
                        "<i4" => data.extend_from_slice(&(i as i32).to_le_bytes()),
                        ">i4" => data.extend_from_slice(&(i as i32).to_be_bytes()),
                        "|u1" => data.push(i as u8),
                        _ => panic!("{at}: unknown dtype {dtype}"),
                    }
                }
                let want = match dtype {
                    "<f8" | ">f8" => format!(
                        "f64 {dims:?} {:?}",
                        (0..n).map(|i| i as f64).collect::<Vec<_>>()
                    ),
                    "<f4" | ">f4" => format!(
                        "f32 {dims:?} {:?}",
                        (0..n).map(|i| i as f32).collect::<Vec<_>>()
                    ),
                    "<i8" | ">i8" => {
                        format!("i64 {dims:?} {:?}", (0..n as i64).collect::<Vec<_>>())
                    }
                    "<i4" | ">i4" => {
                        format!("i32 {dims:?} {:?}", (0..n as i32).collect::<Vec<_>>())
                    }
                    "|u1" => format!("u8 {dims:?} {:?}", (0..n as u8).collect::<Vec<_>>()),
                    _ => format!(
                        "bool {dims:?} {:?}",
                        (0..n).map(|i| i != 0).collect::<Vec<_>>()
                    ),
                };
                let [f8, f4, b1, i8, i4, u1] = read_as_each(row, &data);
                let got = match dtype {
                    "<f8" | ">f8" => f8,
                    "<f4" | ">f4" => f4,
                    "<i8" | ">i8" => i8,
                    "<i4" | ">i4" => i4,
                    "|u1" => u1,
                    _ => b1,
                };
                match got {
                    Ok(got) if got == want => {}
                    Ok(got) => wrong.push(format!("{at}: NumPy reads {want}, ndsimd {got}")),
                    Err(e) => wrong.push(format!("{at}: NumPy reads {want}, ndsimd refuses: {e}")),
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} rows differ from NumPy:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Header forms beyond the table: a repeated key keeps its last value, and
/// Python's form feed is whitespace, as `np.load` reads them.
#[test]
fn header_dict_as_python_reads_it() {
    let data = [0u8; 16];
    let dup = "{'descr': '<f4', 'descr': '<f8', 'fortran_order': True, 'shape': (2,), \
               'fortran_order': False}";
    let a = npy::from_bytes::<f64>(&npy_file(dup, &data)).unwrap();
    assert_eq!(a.shape(), &[2]);
    let ff = "{'descr': '<f8',\x0c'fortran_order': False, 'shape': (2,)}\x0c\n";
    assert_eq!(
        npy::from_bytes::<f64>(&npy_file(ff, &data))
            .unwrap()
            .shape(),
        &[2]
    );
}
