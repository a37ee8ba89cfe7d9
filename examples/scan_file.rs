//! Scanning a file through `ndsimd::scan`: count its lines (`wc -l`), index where
//! every 1000th line starts and jump to a line, and find the first non-zero byte of
//! a file of zeros — on files this program writes to the temporary directory
//! and removes at the end (also when a check fails).
//!
//! Run: `cargo run --release --example scan_file`. It prints each answer with the
//! GB/s of the scan on this machine (the files were just written, so they are read
//! from the page cache); every answer is checked against what was written.

use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::time::Instant;

use ndsimd::scan::{self, LineIndex, ScanOptions, Strategy};

/// Removes the file when dropped, so a failed check leaves nothing behind.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs `f` and returns its answer with the GB/s over `bytes`.
fn timed<R>(bytes: u64, f: impl FnOnce() -> std::io::Result<R>) -> std::io::Result<(R, f64)> {
    let t = Instant::now();
    let r = f()?;
    Ok((r, bytes as f64 / t.elapsed().as_secs_f64() / 1e9))
}

/// Line `i` of the generated text: its length varies from line to line.
fn line(i: u64) -> String {
    format!("{i:09} {}\n", "abcdefghij".repeat((i % 13) as usize))
}

fn main() -> std::io::Result<()> {
    let dir = std::env::temp_dir();
    let pid = std::process::id();

    // A text file of about 64 MiB.
    let text = TempFile(dir.join(format!("ndsimd-scan-example-{pid}.txt")));
    let mut lines = 0u64;
    let mut data = Vec::with_capacity(64 << 20);
    while data.len() < 64 << 20 {
        data.extend_from_slice(line(lines).as_bytes());
        lines += 1;
    }
    std::fs::write(&text.0, &data)?;
    let size = data.len() as u64;
    println!(
        "wrote {} ({:.1} MiB, {lines} lines)",
        text.0.display(),
        size as f64 / (1 << 20) as f64
    );

    // count_byte(path, b'\n', ..): what `wc -l` prints, with each way of reading.
    for strategy in [Strategy::Pread, Strategy::Mmap] {
        let opts = ScanOptions {
            strategy,
            ..ScanOptions::default()
        };
        let (n, gbs) = timed(size, || scan::count_byte(&text.0, b'\n', &opts))?;
        println!("count_byte (wc -l), {strategy:?}: {n} lines, {gbs:.2} GB/s");
        assert_eq!(n, lines, "count_byte with {strategy:?}");
    }
    // The same count over bytes already in memory.
    let (n, gbs) = timed(size, || Ok(scan::count_byte_in(&data, b'\n')))?;
    println!("count_byte_in (in memory): {n} lines, {gbs:.2} GB/s");
    assert_eq!(n, lines);

    // LineIndex: where every 1000th line starts, built in the same single read.
    let (index, gbs) = timed(size, || {
        LineIndex::build(&text.0, 1000, &ScanOptions::default())
    })?;
    println!(
        "LineIndex::build (every 1000th line): {} lines, {} starts kept, {gbs:.2} GB/s",
        index.line_count(),
        index.starts().len()
    );
    assert_eq!(index.line_count(), lines);
    assert_eq!(index.starts().len() as u64, lines.div_ceil(1000));
    // Jump to a line: its byte range, then read just those bytes.
    let want = lines * 3 / 4 + 7;
    let range = index.line_range(want)?.expect("the line exists");
    let mut file = std::fs::File::open(&text.0)?;
    file.seek(SeekFrom::Start(range.start))?;
    let mut got = vec![0u8; (range.end - range.start) as usize];
    file.read_exact(&mut got)?;
    let got = String::from_utf8_lossy(&got);
    println!("line {want} is bytes {range:?}: {:?}", got);
    assert_eq!(format!("{got}\n"), line(want));
    drop(file);

    // find_nonzero: the first non-zero 8-byte word of a file of zeros with one
    // byte set near its end (the same 64 MiB, rewritten).
    let zeros = TempFile(dir.join(format!("ndsimd-scan-example-{pid}.bin")));
    let needle = size - 4096 + 13;
    data.fill(0);
    data[needle as usize] = 0x2a;
    std::fs::write(&zeros.0, &data)?;
    let (found, gbs) = timed(size, || {
        scan::find_nonzero(&zeros.0, &ScanOptions::default())
    })?;
    println!(
        "find_nonzero in {} MiB: word at {found:?} (byte {needle} set), {gbs:.2} GB/s",
        size >> 20
    );
    assert_eq!(found, Some(needle & !7));

    drop((text, zeros));
    println!("removed both files; scan_file: all checks passed");
    Ok(())
}
