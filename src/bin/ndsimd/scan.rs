//! `ndsimd scan`, `ndsimd lines` and `ndsimd haystack`: the file scan of
//! `ndsimd::scan` from the command line.
//!
//! Results go to stdout (`lines` prints `COUNT FILE` as `wc -l` does), the timing
//! line to stderr, so a script reads the answer alone; `--json` prints both as one
//! JSON object on stdout. Exit codes as grep's: 0 found (or done), 1 not found,
//! 2 error (message on stderr, with the path), 141 when stdout's reader went away
//! (see the crate's `emit`). The files they write are made by [`target::write`]:
//! whole or not at all, never over a non-regular file.

use crate::{args, target};
use ndsimd::scan::{self, LineIndex, Progress, ScanOptions, Strategy};
use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The options `scan` and `lines` share: how FILE is read.
#[derive(clap::Args)]
pub struct ReadArgs {
    /// How FILE is read. auto: mmap when FILE is in the page cache, else pread;
    /// pread: parallel positioned reads into per-thread buffers; mmap: a memory map
    /// (on Linux, if another process truncates FILE meanwhile: an error, exit 2);
    /// direct: as pread with O_DIRECT, bypassing the page cache (an error where the
    /// file system refuses O_DIRECT)
    #[arg(long, value_enum, default_value_t = StrategyArg::Auto)]
    strategy: StrategyArg,
    /// Threads (default: the pool's, NDSIMD_NUM_THREADS)
    #[arg(long, value_name = "N", value_parser = args::at_least_one)]
    threads: Option<usize>,
    /// Bytes per read with pread and direct (default 1M; direct rounds it up to a
    /// multiple of 4K)
    #[arg(long, value_name = "SIZE", value_parser = args::buffer)]
    buffer: Option<usize>,
    /// One JSON object on stdout instead of the text lines
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum StrategyArg {
    Auto,
    Pread,
    Mmap,
    Direct,
}

impl ReadArgs {
    fn options(&self) -> ScanOptions<'static> {
        let mut o = ScanOptions {
            strategy: match self.strategy {
                StrategyArg::Auto => Strategy::Auto,
                StrategyArg::Pread => Strategy::Pread,
                StrategyArg::Mmap => Strategy::Mmap,
                StrategyArg::Direct => Strategy::Direct,
            },
            ..ScanOptions::default()
        };
        o.threads = self.threads;
        if let Some(b) = self.buffer {
            o.buffer = b;
        }
        o
    }
}

/// The byte offset of the first non-zero aligned 8-byte word of FILE (a trailing
/// partial word counts as zero-padded)
#[derive(clap::Args)]
#[command(after_help = SCAN_AFTER)]
pub struct ScanArgs {
    /// The file to scan
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    read: ReadArgs,
}

const SCAN_AFTER: &str = "\
Output:
  stdout: 'found at offset N' or 'not found'
  stderr: bytes scanned (up to the needle's word, or the whole file), seconds, GB/s;
          a progress bar while it runs, when stderr is a terminal and FILE is at
          least 256 MiB

Exit status: 0 found, 1 not found, 2 error (a message on stderr names the file), 141
when stdout is a pipe whose reader has gone (quietly, as a shell reports grep killed
by SIGPIPE)";

/// Count the newlines of FILE, as `wc -l` does (a last line without a newline is
/// not counted)
#[derive(clap::Args)]
#[command(after_help = LINES_AFTER)]
pub struct LinesArgs {
    /// The file to count
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Also write the byte offset where every EVERY-th line starts (lines 0, EVERY,
    /// 2*EVERY, ...), found in the same read of FILE as the count
    #[arg(long, value_name = "EVERY", value_parser = args::at_least_one)]
    index: Option<usize>,
    /// Where --index writes (default FILE.idx); an existing PATH is replaced whole
    /// once the index is complete (a temporary file beside it, renamed over it);
    /// PATH must be a regular file or absent (a symbolic link: the file it names is
    /// replaced)
    #[arg(long, value_name = "PATH", requires = "index")]
    index_out: Option<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
}

const LINES_AFTER: &str = "\
Output:
  stdout: 'COUNT FILE' (as `wc -l FILE`)
  stderr: bytes, seconds, GB/s; a progress bar while it runs, when stderr is a
          terminal and FILE is at least 256 MiB

Index file (text):
  # ndsimd line index: every=EVERY lines=COUNT bytes=LENGTH
  0
  OFFSET of line EVERY
  OFFSET of line 2*EVERY
  ...
  one decimal byte offset per line after the header, one for each line number
  m*EVERY below the number of lines. Line n starts after the n-th newline; a last
  line without a newline is a line here (it is not in COUNT, as with `wc -l`).

Exit status: 0 counted (and indexed), 2 error (a message on stderr names the file; an
index that could not be written whole leaves PATH as it was), 141 when stdout is a
pipe whose reader has gone";

/// Write a test file for `ndsimd scan`: SIZE bytes of zeros that really occupy the
/// disk (written, not a sparse hole) and one needle, the 8 bytes 'NEEDLE!!' at offset
/// SIZE-8, so `ndsimd scan FILE` finds SIZE-8
#[derive(clap::Args)]
#[command(after_help = HAYSTACK_AFTER)]
pub struct HaystackArgs {
    /// Bytes: a multiple of 8, at least 8 (4096, 16K, 1M, 4G: binary multiples)
    #[arg(long, value_name = "SIZE", value_parser = args::haystack_size)]
    size: u64,
    /// Replace FILE if it exists (otherwise an existing FILE is an error)
    #[arg(long)]
    force: bool,
    /// The file to write
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

const HAYSTACK_AFTER: &str = "\
FILE is written to a temporary file beside it and renamed to FILE once complete: a
failed write leaves an existing FILE as it was. FILE must be absent or a regular file
(a symbolic link is followed: the file it names is replaced); a device, FIFO,
directory or socket is refused. A progress bar is drawn on stderr when stderr is a
terminal.

Exit status: 0 written, 2 error (nothing is left behind, an existing FILE is
untouched), 141 when stdout is a pipe whose reader has gone (FILE is written by then)";

const NEEDLE: [u8; 8] = *b"NEEDLE!!";

fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::Pread => "pread",
        Strategy::Mmap => "mmap",
        Strategy::Direct => "direct",
        Strategy::Auto => "auto",
    }
}

/// Settles `--strategy auto` for `file` (the strategy reported is the one used), and
/// when the file is to be mapped makes a truncation under the mapping (`SIGBUS`) an
/// error exit rather than a crash. `Err`: the exit code, the message printed.
fn settle(cmd: &str, file: &Path, opts: &mut ScanOptions) -> Result<(), ExitCode> {
    opts.strategy = scan::resolve_strategy(file, opts).map_err(|e| {
        errln!("ndsimd {cmd}: {e}");
        ExitCode::from(2)
    })?;
    if opts.strategy == Strategy::Mmap {
        let msg = format!(
            "ndsimd {cmd}: {}: file changed size while being read (truncated under \
             its memory map; nothing was counted)\n",
            file.display()
        );
        // Linux only; elsewhere the signal keeps its default action.
        let _ = ndsimd_kernels::io::exit_on_mapped_sigbus(&msg, 2);
    }
    Ok(())
}

/// The threads a scan with these options really uses.
fn threads_used(opts: &ScanOptions) -> usize {
    let pool = ndsimd_kernels::pool::current_num_threads();
    opts.threads.map_or(pool, |n| n.min(ndsimd::num_threads()))
}

/// The timing figures of a finished scan.
struct Timing {
    bytes: u64,
    seconds: f64,
}

/// The fields every `--json` object of `scan` and `lines` ends with.
#[derive(serde::Serialize)]
struct TimingJson {
    bytes: u64,
    seconds: f64,
    gbps: f64,
    strategy: &'static str,
    threads: usize,
}

impl Timing {
    fn gbps(&self) -> f64 {
        self.bytes as f64 / self.seconds.max(1e-9) / 1e9
    }

    fn json(&self, opts: &ScanOptions) -> TimingJson {
        TimingJson {
            bytes: self.bytes,
            seconds: self.seconds,
            gbps: self.gbps(),
            strategy: strategy_name(opts.strategy),
            threads: threads_used(opts),
        }
    }

    fn report(&self, opts: &ScanOptions) {
        errln!(
            "{} bytes in {:.3} s: {:.2} GB/s ({}, {} threads)",
            self.bytes,
            self.seconds,
            self.gbps(),
            strategy_name(opts.strategy),
            threads_used(opts)
        );
    }
}

/// `ndsimd scan --json`.
#[derive(serde::Serialize)]
struct ScanJson {
    file: String,
    found: bool,
    offset: Option<u64>,
    #[serde(flatten)]
    timing: TimingJson,
}

/// `ndsimd lines --json`.
#[derive(serde::Serialize)]
struct LinesJson {
    file: String,
    lines: u64,
    #[serde(flatten)]
    index: Option<IndexJson>,
    #[serde(flatten)]
    timing: TimingJson,
}

/// The index part of `ndsimd lines --index EVERY --json`.
#[derive(serde::Serialize)]
struct IndexJson {
    index: String,
    every: u64,
    indexed: usize,
}

/// Prints `value` as one line of JSON on stdout.
fn print_json(value: &impl serde::Serialize) {
    match serde_json::to_string(value) {
        Ok(line) => outln!("{line}"),
        // Plain structs of strings and numbers: cannot fail.
        Err(e) => errln!("ndsimd: cannot write JSON: {e}"),
    }
}

fn file_len(path: &Path) -> u64 {
    fs::metadata(path).map_or(0, |m| m.len())
}

/// Files at least this long get a progress bar (on a terminal).
const BAR_MIN: u64 = 256 << 20;

/// Runs `work` with `opts`; when stderr is a terminal and `file` is at least
/// [`BAR_MIN`] long, with a progress bar on stderr, fed from the workers' byte
/// counter by a thread that redraws it ten times a second. Otherwise `opts` is
/// used as it is (no counter, no thread).
fn with_progress<R>(file: &Path, opts: &ScanOptions, work: impl FnOnce(&ScanOptions) -> R) -> R {
    let len = file_len(file);
    if !std::io::stderr().is_terminal() || len < BAR_MIN {
        return work(opts);
    }
    // One counter for the process: the tool runs one scan.
    static DONE: AtomicU64 = AtomicU64::new(0);
    DONE.store(0, Ordering::Relaxed);
    let opts = ScanOptions {
        progress: Some(Progress(&DONE)),
        ..*opts
    };
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let finished = AtomicBool::new(false);
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            while !finished.load(Ordering::Relaxed) {
                bar.set_position(DONE.load(Ordering::Relaxed).min(len));
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let r = work(&opts);
        finished.store(true, Ordering::Relaxed);
        r
    });
    bar.finish_and_clear();
    result
}

/// `ndsimd scan FILE ...`
pub fn scan(a: ScanArgs) -> ExitCode {
    let file = a.file;
    let mut opts = a.read.options();
    let t = Instant::now();
    if let Err(code) = settle("scan", &file, &mut opts) {
        return code;
    }
    let found = match with_progress(&file, &opts, |o| scan::find_nonzero(&file, o)) {
        Ok(f) => f,
        Err(e) => {
            errln!("ndsimd scan: {e}");
            return ExitCode::from(2);
        }
    };
    let seconds = t.elapsed().as_secs_f64();
    let len = file_len(&file);
    let timing = Timing {
        bytes: found.map_or(len, |o| (o + 8).min(len)),
        seconds,
    };
    if a.read.json {
        print_json(&ScanJson {
            file: file.to_string_lossy().into_owned(),
            found: found.is_some(),
            offset: found,
            timing: timing.json(&opts),
        });
    } else {
        match found {
            Some(o) => outln!("found at offset {o}"),
            // With stdout closed (`>&-`) the status alone answers, as grep's 1 does:
            // there is no line to lose. A found offset that cannot be shown is an error.
            None if crate::stdout_closed_at_start() => {}
            None => outln!("not found"),
        }
        timing.report(&opts);
    }
    if found.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `ndsimd lines FILE ...`
pub fn lines(a: LinesArgs) -> ExitCode {
    let file = a.file;
    let mut opts = a.read.options();
    let t = Instant::now();
    if let Err(code) = settle("lines", &file, &mut opts) {
        return code;
    }
    let (count, index) = match with_progress(&file, &opts, |o| match a.index {
        None => scan::count_byte(&file, b'\n', o).map(|n| (n, None)),
        Some(every) => LineIndex::build(&file, every as u64, o).map(|i| (i.line_count(), Some(i))),
    }) {
        Ok(x) => x,
        Err(e) => {
            errln!("ndsimd lines: {e}");
            return ExitCode::from(2);
        }
    };
    let timing = Timing {
        bytes: file_len(&file),
        seconds: t.elapsed().as_secs_f64(),
    };
    let mut index_json = None;
    if let Some(index) = &index {
        let out = a.index_out.clone().unwrap_or_else(|| {
            let mut name = file.clone().into_os_string();
            name.push(".idx");
            PathBuf::from(name)
        });
        if let Err(e) = write_index(index, &out) {
            errln!("ndsimd lines: {e}");
            return ExitCode::from(2);
        }
        index_json = Some(IndexJson {
            index: out.to_string_lossy().into_owned(),
            every: index.every(),
            indexed: index.starts().len(),
        });
    }
    if a.read.json {
        print_json(&LinesJson {
            file: file.to_string_lossy().into_owned(),
            lines: count,
            index: index_json,
            timing: timing.json(&opts),
        });
    } else {
        outln!("{count} {}", file.display());
        timing.report(&opts);
    }
    ExitCode::SUCCESS
}

/// Writes `index` to `out`, replacing a regular file there whole (see [`target`]).
fn write_index(index: &LineIndex, out: &Path) -> Result<(), String> {
    target::write(out, true, |f| {
        index
            .write_to(&*f)
            .map_err(|e| format!("{}: cannot write the index: {e}", out.display()))
    })
}

/// `ndsimd haystack --size SIZE FILE`
pub fn haystack(a: HaystackArgs) -> ExitCode {
    let (file, size) = (a.file, a.size);
    let t = Instant::now();
    match write_haystack(&file, size, a.force) {
        Ok(()) => {
            let s = t.elapsed().as_secs_f64();
            outln!(
                "wrote {size} bytes to {} (needle at offset {}) in {s:.3} s: {:.2} GB/s",
                file.display(),
                size - 8,
                size as f64 / s.max(1e-9) / 1e9
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            errln!("ndsimd haystack: {e}");
            ExitCode::from(2)
        }
    }
}

fn write_haystack(path: &Path, size: u64, force: bool) -> Result<(), String> {
    let with_path = |what: &str, e: std::io::Error| format!("{}: {what}: {e}", path.display());
    let bar = (std::io::stderr().is_terminal() && size >= 64 << 20).then(|| {
        let bar = indicatif::ProgressBar::new(size);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    const CHUNK: u64 = 4 << 20;
    let result = target::write(path, force, |f| {
        let mut zeros = vec![0u8; CHUNK.min(size) as usize];
        let mut written = 0u64;
        while written < size {
            let n = (size - written).min(CHUNK);
            let end = written + n;
            let buf = &mut zeros[..n as usize];
            // The needle lies in the last chunk, in its last 8 bytes.
            if end == size {
                buf[n as usize - 8..].copy_from_slice(&NEEDLE);
            }
            f.write_all(buf)
                .map_err(|e| with_path(&format!("write at offset {written}"), e))?;
            written = end;
            if let Some(bar) = &bar {
                bar.set_position(written);
            }
        }
        Ok(())
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
}
