//! The file scan against its anchors and other tools, interleaved in one run.
//!
//!     cargo bench --bench scan                 # 1 GiB files under target/scan-bench
//!     NDSIMD_SCAN_GIB=4 cargo bench --bench scan
//!
//! Makes (once) a haystack of N GiB (zeros, one needle in the last word) and a text
//! file of N GiB (lines of 20-100 bytes), then for several rounds, each file read
//! once first (warm page cache): the plain parallel `pread` of the whole file with no
//! scan (`read_ceiling`, the anchor), `find_nonzero` with each strategy,
//! `count_byte(b'\n')` with each strategy, `LineIndex::build(every = 1000)` with
//! each (`Auto`, the `ndsimd` tool's default, says which it picked), and the
//! `ndsimd` tool itself (`ndsimd lines FILE`, `ndsimd scan FILE`, its defaults), the
//! external tools when present: `dd if=FILE of=/dev/null bs=1M`, `wc -l FILE`,
//! `rg -c ''` and `grep -c ''` (line counts), `rg -a -c NEEDLE!!` (the needle search
//! as text); the tools' answers are checked too.
//! With `NDSIMD_SCAN_COLD=1` (root: it writes /proc/sys/vm/drop_caches), each round
//! also reads the haystack cold, the page cache emptied before each reader: `dd
//! bs=4M` and `find_nonzero` with each strategy.
//! Prints GB/s medians (min-max) over rounds. Results are checked before the clock.
//!
//! Not a criterion bench: one call reads gigabytes, and the interesting ratios are
//! against other processes measured in the same round.

#[path = "../tests/common/mod.rs"]
mod common;

use common::Rng;
use ndsimd::scan::{count_byte, find_nonzero, read_ceiling, LineIndex, ScanOptions, Strategy};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn gib() -> u64 {
    std::env::var("NDSIMD_SCAN_GIB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/scan-bench");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Zeros with `NEEDLE!!` in the last word; returns its size.
fn haystack(path: &Path, size: u64) -> u64 {
    if std::fs::metadata(path).map(|m| m.len()).ok() == Some(size) {
        return size;
    }
    let mut w = BufWriter::new(File::create(path).unwrap());
    let block = vec![0u8; 1 << 22];
    let mut left = size - 8;
    while left > 0 {
        let n = left.min(block.len() as u64) as usize;
        w.write_all(&block[..n]).unwrap();
        left -= n as u64;
    }
    w.write_all(b"NEEDLE!!").unwrap();
    w.flush().unwrap();
    size
}

/// Lines of 20-100 printable bytes; returns the newline count.
fn text(path: &Path, size: u64) -> u64 {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut line = Vec::with_capacity(128);
    let mut lines = 0;
    let mut written = 0;
    let exists = std::fs::metadata(path).map(|m| m.len()).ok() == Some(size);
    let mut w = (!exists).then(|| BufWriter::new(File::create(path).unwrap()));
    while written < size {
        let s = rng.next();
        let len = (20 + s % 81).min(size - written) as usize;
        line.clear();
        line.extend((0..len - 1).map(|i| b'a' + ((s >> (i % 50)) % 26) as u8));
        line.push(b'\n');
        if let Some(w) = w.as_mut() {
            w.write_all(&line).unwrap();
        }
        written += len as u64;
        lines += 1;
    }
    if let Some(mut w) = w {
        w.flush().unwrap();
    }
    lines
}

fn warm(path: &Path) {
    let _ = read_ceiling(path, &ScanOptions::default()).unwrap();
}

/// Empties the page cache (`sync`, then `1 > /proc/sys/vm/drop_caches`: root only);
/// false when that is refused.
fn evict() -> bool {
    let synced = Command::new("sync").status().is_ok_and(|s| s.success());
    synced && std::fs::write("/proc/sys/vm/drop_caches", "1").is_ok()
}

fn secs(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// Runs an external tool: its wall time and output, or `None` if it is not there.
fn timed(cmd: &str, args: &[&str]) -> Option<(f64, std::process::Output)> {
    let t = Instant::now();
    let out = Command::new(cmd).args(args).output().ok()?;
    Some((t.elapsed().as_secs_f64(), out))
}

fn tool(cmd: &str, args: &[&str]) -> Option<f64> {
    let (e, out) = timed(cmd, args)?;
    out.status.success().then_some(e)
}

/// [`tool`] whose answer is checked: the first word of its output must be `want`
/// (a tool that is not installed gives no row; a wrong answer stops the bench).
fn tool_says(cmd: &str, args: &[&str], want: u64) -> Option<f64> {
    let (e, out) = timed(cmd, args)?;
    let text = String::from_utf8_lossy(&out.stdout);
    let got = text
        .split_whitespace()
        .next()
        .and_then(|w| w.parse::<u64>().ok());
    assert_eq!(got, Some(want), "{cmd} {args:?} answered {text:?}");
    Some(e)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let size = gib() << 30;
    let (hay, txt) = (dir().join("haystack.bin"), dir().join("text.log"));
    haystack(&hay, size);
    let lines = text(&txt, size);
    let opts = |strategy, threads| ScanOptions {
        strategy,
        threads: Some(threads),
        ..ScanOptions::default()
    };
    let threads = ndsimd::num_threads();
    // Check the answers first.
    for s in [
        Strategy::Pread,
        Strategy::Mmap,
        Strategy::Direct,
        Strategy::Auto,
    ] {
        if let Ok(found) = find_nonzero(&hay, &opts(s, threads)) {
            assert_eq!(found, Some(size - 8), "{s:?}");
        }
        if let Ok(n) = count_byte(&txt, b'\n', &opts(s, threads)) {
            assert_eq!(n, lines, "{s:?}");
        }
    }
    let auto = opts(Strategy::Auto, threads);
    println!(
        "Auto picks {:?} for the haystack and {:?} for the text (after the checks above)",
        ndsimd::scan::resolve_strategy(&hay, &auto).unwrap(),
        ndsimd::scan::resolve_strategy(&txt, &auto).unwrap()
    );
    let rounds = 5;
    let mut rows: Vec<(String, Vec<f64>)> = Vec::new();
    let mut push = |name: String, t: Option<f64>| {
        if let Some(t) = t {
            match rows.iter_mut().find(|r| r.0 == name) {
                Some(r) => r.1.push(t),
                None => rows.push((name, vec![t])),
            }
        }
    };
    let (hs, ts) = (hay.to_str().unwrap(), txt.to_str().unwrap());
    let cold = std::env::var_os("NDSIMD_SCAN_COLD").is_some() && evict();
    if std::env::var_os("NDSIMD_SCAN_COLD").is_some() && !cold {
        eprintln!("NDSIMD_SCAN_COLD: cannot drop the page cache (needs root): cold rows skipped");
    }
    for _ in 0..rounds {
        for t in [1, threads] {
            warm(&hay);
            push(
                format!("hay  pread ceiling {t}T"),
                Some(secs(|| {
                    read_ceiling(&hay, &opts(Strategy::Pread, t)).unwrap();
                })),
            );
            for s in [Strategy::Pread, Strategy::Mmap, Strategy::Auto] {
                push(
                    format!("hay  find_nonzero {s:?} {t}T"),
                    Some(secs(|| {
                        find_nonzero(&hay, &opts(s, t)).unwrap();
                    })),
                );
            }
            warm(&txt);
            push(
                format!("text pread ceiling {t}T"),
                Some(secs(|| {
                    read_ceiling(&txt, &opts(Strategy::Pread, t)).unwrap();
                })),
            );
            for s in [Strategy::Pread, Strategy::Mmap, Strategy::Auto] {
                push(
                    format!("text count_byte {s:?} {t}T"),
                    Some(secs(|| {
                        count_byte(&txt, b'\n', &opts(s, t)).unwrap();
                    })),
                );
            }
            for s in [Strategy::Pread, Strategy::Mmap, Strategy::Auto] {
                push(
                    format!("text LineIndex/1000 {s:?} {t}T"),
                    Some(secs(|| {
                        LineIndex::build(&txt, 1000, &opts(s, t)).unwrap();
                    })),
                );
            }
        }
        warm(&hay);
        push(
            "hay  dd bs=1M".into(),
            tool("dd", &[&format!("if={hs}"), "of=/dev/null", "bs=1M"]),
        );
        // The needle search as a person would run it: ripgrep's literal search over
        // the whole file as text (`-a`; the file is one long line). GNU grep is left
        // out: it holds the whole line in memory (2 GB for 1 GiB, 5 s).
        warm(&hay);
        push(
            "hay  rg -a -c NEEDLE!!".into(),
            tool_says("rg", &["-a", "-c", "NEEDLE!!", hs], 1),
        );
        warm(&txt);
        push("text wc -l".into(), tool_says("wc", &["-l", ts], lines));
        // The tool itself, as a person runs it (its default strategy, process start
        // included, as for the other tools).
        let ndsimd = env!("CARGO_BIN_EXE_ndsimd");
        warm(&txt);
        push(
            "text ndsimd lines (the tool)".into(),
            tool_says(ndsimd, &["lines", ts], lines),
        );
        warm(&hay);
        push(
            "hay  ndsimd scan (the tool)".into(),
            timed(ndsimd, &["scan", hs]).map(|(e, out)| {
                let said = String::from_utf8_lossy(&out.stdout);
                assert_eq!(
                    said,
                    format!("found at offset {}\n", size - 8),
                    "ndsimd scan"
                );
                e
            }),
        );
        for cmd in ["rg", "grep"] {
            warm(&txt);
            push(
                format!("text {cmd} -c ''"),
                tool_says(cmd, &["-c", "", ts], lines),
            );
        }
        if cold {
            // Each reader of the evicted haystack after its own eviction.
            push(
                "cold hay dd bs=4M".into(),
                evict()
                    .then(|| tool("dd", &[&format!("if={hs}"), "of=/dev/null", "bs=4M"]))
                    .flatten(),
            );
            for s in [
                Strategy::Pread,
                Strategy::Mmap,
                Strategy::Direct,
                Strategy::Auto,
            ] {
                push(
                    format!("cold hay find_nonzero {s:?} {threads}T"),
                    evict().then(|| {
                        secs(|| {
                            find_nonzero(&hay, &opts(s, threads)).unwrap();
                        })
                    }),
                );
            }
        }
    }
    println!(
        "file scan, {} GiB files, warm page cache unless 'cold', {rounds} rounds; GB/s medians (min-max)",
        gib()
    );
    let gbs = |t: f64| size as f64 / t / 1e9;
    for (name, v) in &rows {
        let (lo, hi) = (
            v.iter().cloned().fold(f64::MAX, f64::min),
            v.iter().cloned().fold(0.0, f64::max),
        );
        println!(
            "{name:<36} {:7.2} ({:.2}-{:.2})",
            gbs(median(v.clone())),
            gbs(hi),
            gbs(lo)
        );
    }
}
