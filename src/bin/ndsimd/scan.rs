//! `ndsimd scan`, `ndsimd lines` and `ndsimd haystack`: the file scan of
//! `ndsimd::scan` from the command line.
//!
//! Results go to stdout (`lines` prints `COUNT FILE` as `wc -l` does), the timing
//! line to stderr, so a script reads the answer alone; `--json` prints both as one
//! JSON object on stdout. Exit codes as grep's: 0 found (or done), 1 not found,
//! 2 error (message on stderr, with the path), 141 when stdout's reader went away
//! (see the crate's `emit`). The files they write are made by [`target::write`]:
//! whole or not at all, never over a non-regular file.

use crate::target;
use ndsimd::scan::{self, LineIndex, Progress, ScanOptions, Strategy};
use std::fmt::Write as _;
use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub const SCAN_HELP: &str = "\
ndsimd scan: the byte offset of the first non-zero aligned 8-byte word of FILE
(a trailing partial word counts as zero-padded)

USAGE:
    ndsimd scan FILE [OPTIONS]

OPTIONS:
    --strategy auto|pread|mmap|direct
                            how FILE is read (default auto: mmap when FILE is in the
                            page cache, else pread; pread: parallel positioned reads
                            into per-thread buffers; mmap: a memory map (on Linux, if
                            another process truncates FILE meanwhile: an error, exit 2);
                            direct: as pread with O_DIRECT, bypassing the page cache,
                            an error where the file system refuses O_DIRECT)
    --threads N             threads (default: the pool's, NDSIMD_NUM_THREADS)
    --buffer SIZE           bytes per read with pread and direct (default 1M; K, M, G
                            suffixes; direct rounds it up to a multiple of 4K)
    --json                  one JSON object on stdout instead of the text lines
    -h, --help              print this message

OUTPUT:
    stdout: 'found at offset N' or 'not found'
    stderr: bytes scanned (up to the needle's word, or the whole file), seconds, GB/s;
            a progress bar while it runs, when stderr is a terminal and FILE is at
            least 256 MiB

EXIT STATUS:
    0 found, 1 not found, 2 error (a message on stderr names the file), 141 when
    stdout is a pipe whose reader has gone (quietly, as a shell reports grep killed
    by SIGPIPE)
";

pub const LINES_HELP: &str = "\
ndsimd lines: count the newlines of FILE, as `wc -l` does (a last line without a
newline is not counted)

USAGE:
    ndsimd lines FILE [OPTIONS]

OPTIONS:
    --index EVERY           also write the byte offset where every EVERY-th line
                            starts (lines 0, EVERY, 2*EVERY, ...), found in the same
                            read of FILE as the count
    --index-out PATH        where --index writes (default FILE.idx: FILE's name with
                            '.idx' appended); an existing PATH is replaced whole once
                            the index is complete (written to a temporary file beside
                            it, then renamed over it); PATH must be a regular file or
                            absent (a symbolic link: the file it names is replaced)
    --strategy auto|pread|mmap|direct
                            how FILE is read (default auto: mmap when FILE is in the
                            page cache, else pread; see 'ndsimd scan --help')
    --threads N             threads (default: the pool's, NDSIMD_NUM_THREADS)
    --buffer SIZE           bytes per read with pread and direct (default 1M; K, M, G
                            suffixes; direct rounds it up to a multiple of 4K)
    --json                  one JSON object on stdout instead of the text lines
    -h, --help              print this message

OUTPUT:
    stdout: 'COUNT FILE' (as `wc -l FILE`)
    stderr: bytes, seconds, GB/s; a progress bar while it runs, when stderr is a
            terminal and FILE is at least 256 MiB

INDEX FILE (text):
    # ndsimd line index: every=EVERY lines=COUNT bytes=LENGTH
    0
    OFFSET of line EVERY
    OFFSET of line 2*EVERY
    ...
    one decimal byte offset per line after the header, one for each line number
    m*EVERY below the number of lines. Line n starts after the n-th newline; a last
    line without a newline is a line here (it is not in COUNT, as with `wc -l`).

EXIT STATUS:
    0 counted (and indexed), 2 error (a message on stderr names the file; an index
    that could not be written whole leaves PATH as it was), 141 when stdout is a pipe
    whose reader has gone
";

pub const HAYSTACK_HELP: &str = "\
ndsimd haystack: write a test file for `ndsimd scan`: SIZE bytes of zeros that
really occupy the disk (written, not a sparse hole) and one needle, the 8 bytes
'NEEDLE!!' at offset SIZE-8, so `ndsimd scan FILE` finds SIZE-8

USAGE:
    ndsimd haystack --size SIZE FILE [--force]

OPTIONS:
    --size SIZE     bytes: a multiple of 8, at least 8; suffixes K, M, G, T (binary:
                    4G = 4 * 2^30), optionally followed by 'iB' or 'B'
    --force         replace FILE if it exists (otherwise an existing FILE is an error)
    -h, --help      print this message

FILE is written to a temporary file beside it and renamed to FILE once complete:
a failed write leaves an existing FILE as it was. FILE must be absent or a regular
file (a symbolic link is followed: the file it names is replaced); a device, FIFO,
directory or socket is refused. A progress bar is drawn on stderr when stderr is a
terminal.

EXIT STATUS:
    0 written, 2 error (nothing is left behind, an existing FILE is untouched), 141
    when stdout is a pipe whose reader has gone (FILE is written by then)
";

const NEEDLE: [u8; 8] = *b"NEEDLE!!";

/// What the three subcommands' parsers understand.
struct Args {
    file: Option<PathBuf>,
    opts: ScanOptions,
    json: bool,
    help: bool,
    size: Option<u64>,
    force: bool,
    index: Option<u64>,
    index_out: Option<PathBuf>,
}

/// Parses `args` accepting only the options in `allowed` (by long name).
fn parse(args: &[String], allowed: &[&str]) -> Result<Args, String> {
    let mut a = Args {
        file: None,
        // The tool maps a cached file (its SIGBUS handled: `settle`).
        opts: ScanOptions {
            strategy: Strategy::Auto,
            ..ScanOptions::default()
        },
        json: false,
        help: false,
        size: None,
        force: false,
        index: None,
        index_out: None,
    };
    let mut it = args.iter();
    let mut only_files = false;
    while let Some(arg) = it.next() {
        if only_files || arg == "-" || !arg.starts_with('-') {
            if a.file.is_some() {
                return Err(format!("more than one FILE given ('{arg}')"));
            }
            a.file = Some(PathBuf::from(arg));
            continue;
        }
        if arg == "--" {
            only_files = true;
            continue;
        }
        if arg == "-h" || arg == "--help" {
            a.help = true;
            continue;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        if !allowed.contains(&name) {
            return Err(format!("unknown option '{arg}'"));
        }
        let mut value = || -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => it.next().cloned().ok_or(format!("{name} needs a value")),
            }
        };
        match name {
            "--strategy" => {
                a.opts.strategy = match value()?.as_str() {
                    "auto" => Strategy::Auto,
                    "pread" => Strategy::Pread,
                    "mmap" => Strategy::Mmap,
                    "direct" => Strategy::Direct,
                    v => {
                        return Err(format!(
                            "--strategy must be auto, pread, mmap or direct, not '{v}'"
                        ))
                    }
                }
            }
            "--threads" => {
                let v = value()?;
                match v.parse::<usize>() {
                    Ok(n) if n >= 1 => a.opts.threads = Some(n),
                    _ => return Err(format!("--threads needs an integer >= 1, not '{v}'")),
                }
            }
            "--buffer" => {
                let v = value()?;
                match parse_size(&v) {
                    Some(n) if (8..=1 << 30).contains(&n) => a.opts.buffer = n as usize,
                    _ => return Err(format!("--buffer needs a size from 8 to 1G, not '{v}'")),
                }
            }
            "--index" => {
                let v = value()?;
                match v.parse::<u64>() {
                    Ok(n) if n >= 1 => a.index = Some(n),
                    _ => return Err(format!("--index needs an integer >= 1, not '{v}'")),
                }
            }
            "--index-out" => a.index_out = Some(PathBuf::from(value()?)),
            "--size" => {
                let v = value()?;
                a.size = Some(parse_size(&v).ok_or(format!("--size: not a size: '{v}'"))?);
            }
            "--json" | "--force" if inline.is_some() => {
                return Err(format!("{name} takes no value"));
            }
            "--json" => a.json = true,
            "--force" => a.force = true,
            _ => unreachable!("every allowed option has an arm"),
        }
    }
    Ok(a)
}

/// `123`, `4K`, `16M`, `4G`, `1T` (binary multiples), optionally with `iB` or `B`.
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let s = s
        .strip_suffix("iB")
        .or_else(|| s.strip_suffix("ib"))
        .or_else(|| {
            s.strip_suffix('B')
                .filter(|r| r.ends_with(|c: char| c.is_alphabetic()))
        })
        .unwrap_or(s);
    let (digits, shift) = match s.chars().last()?.to_ascii_uppercase() {
        'K' => (&s[..s.len() - 1], 10),
        'M' => (&s[..s.len() - 1], 20),
        'G' => (&s[..s.len() - 1], 30),
        'T' => (&s[..s.len() - 1], 40),
        _ => (s, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(1 << shift)
}

fn usage_error(cmd: &str, msg: &str) -> ExitCode {
    errln!("ndsimd {cmd}: {msg}\n(see 'ndsimd {cmd} --help')");
    ExitCode::from(2)
}

/// Parses the options common to `scan` and `lines`; `Err` is the exit code to return.
fn scan_args(
    cmd: &str,
    args: &[String],
    help: &str,
    extra: &[&str],
) -> Result<(PathBuf, Args), ExitCode> {
    let mut allowed = vec!["--strategy", "--threads", "--buffer", "--json"];
    allowed.extend_from_slice(extra);
    let a = parse(args, &allowed).map_err(|m| usage_error(cmd, &m))?;
    if a.help {
        out!("{help}");
        return Err(ExitCode::SUCCESS);
    }
    match a.file.clone() {
        Some(file) => Ok((file, a)),
        None => Err(usage_error(cmd, "missing FILE")),
    }
}

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
        let _ = ndsimd::kernels::io::exit_on_mapped_sigbus(&msg, 2);
    }
    Ok(())
}

/// The threads a scan with these options really uses.
fn threads_used(opts: &ScanOptions) -> usize {
    let pool = ndsimd::kernels::pool::current_num_threads();
    opts.threads.map_or(pool, |n| n.min(ndsimd::num_threads()))
}

/// `"..."` with JSON's escapes.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The timing figures of a finished scan.
struct Timing {
    bytes: u64,
    seconds: f64,
}

impl Timing {
    fn gbps(&self) -> f64 {
        self.bytes as f64 / self.seconds.max(1e-9) / 1e9
    }

    fn json_fields(&self, opts: &ScanOptions) -> String {
        format!(
            "\"bytes\":{},\"seconds\":{:.6},\"gbps\":{:.3},\"strategy\":\"{}\",\"threads\":{}",
            self.bytes,
            self.seconds,
            self.gbps(),
            strategy_name(opts.strategy),
            threads_used(opts)
        )
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
pub fn scan(args: &[String]) -> ExitCode {
    let (file, mut a) = match scan_args("scan", args, SCAN_HELP, &[]) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let t = Instant::now();
    if let Err(code) = settle("scan", &file, &mut a.opts) {
        return code;
    }
    let found = match with_progress(&file, &a.opts, |o| scan::find_nonzero(&file, o)) {
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
    if a.json {
        let offset = found.map_or("null".to_string(), |o| o.to_string());
        outln!(
            "{{\"file\":{},\"found\":{},\"offset\":{offset},{}}}",
            json_string(&file.to_string_lossy()),
            found.is_some(),
            timing.json_fields(&a.opts)
        );
    } else {
        match found {
            Some(o) => outln!("found at offset {o}"),
            // With stdout closed (`>&-`) the status alone answers, as grep's 1 does:
            // there is no line to lose. A found offset that cannot be shown is an error.
            None if crate::stdout_closed_at_start() => {}
            None => outln!("not found"),
        }
        timing.report(&a.opts);
    }
    if found.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `ndsimd lines FILE ...`
pub fn lines(args: &[String]) -> ExitCode {
    let (file, mut a) = match scan_args("lines", args, LINES_HELP, &["--index", "--index-out"]) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if a.index_out.is_some() && a.index.is_none() {
        return usage_error("lines", "--index-out needs --index EVERY");
    }
    let t = Instant::now();
    if let Err(code) = settle("lines", &file, &mut a.opts) {
        return code;
    }
    let (count, index) = match with_progress(&file, &a.opts, |o| match a.index {
        None => scan::count_byte(&file, b'\n', o).map(|n| (n, None)),
        Some(every) => LineIndex::build(&file, every, o).map(|i| (i.line_count(), Some(i))),
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
    let mut index_json = String::new();
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
        index_json = format!(
            ",\"index\":{},\"every\":{},\"indexed\":{}",
            json_string(&out.to_string_lossy()),
            index.every(),
            index.starts().len()
        );
    }
    if a.json {
        outln!(
            "{{\"file\":{},\"lines\":{count}{index_json},{}}}",
            json_string(&file.to_string_lossy()),
            timing.json_fields(&a.opts)
        );
    } else {
        outln!("{count} {}", file.display());
        timing.report(&a.opts);
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
pub fn haystack(args: &[String]) -> ExitCode {
    let a = match parse(args, &["--size", "--force"]) {
        Ok(a) => a,
        Err(m) => return usage_error("haystack", &m),
    };
    if a.help {
        out!("{HAYSTACK_HELP}");
        return ExitCode::SUCCESS;
    }
    let Some(file) = a.file else {
        return usage_error("haystack", "missing FILE");
    };
    let Some(size) = a.size else {
        return usage_error("haystack", "missing --size SIZE");
    };
    if size < 8 || size % 8 != 0 {
        return usage_error(
            "haystack",
            &format!("--size must be a multiple of 8 and at least 8, not {size}"),
        );
    }
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
