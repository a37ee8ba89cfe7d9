//! `ndsimd scan`, `ndsimd lines` and `ndsimd haystack`: the file scan of
//! `ndsimd::scan` from the command line.
//!
//! Results go to stdout (`lines` prints `COUNT FILE` as `wc -l` does), the timing
//! line to stderr, so a script reads the answer alone; `--json` prints both as one
//! JSON object on stdout. Exit codes as grep's: 0 found (or done), 1 not found,
//! 2 error (message on stderr, with the path).

use ndsimd::scan::{self, ScanOptions, Strategy};
use std::fmt::Write as _;
use std::fs::{self, OpenOptions};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

pub const SCAN_HELP: &str = "\
ndsimd scan: the byte offset of the first non-zero aligned 8-byte word of FILE
(a trailing partial word counts as zero-padded)

USAGE:
    ndsimd scan FILE [OPTIONS]

OPTIONS:
    --strategy pread|mmap   how FILE is read (default pread: parallel positioned
                            reads into per-thread buffers; mmap: a memory map, which
                            dies with SIGBUS if another process truncates FILE)
    --threads N             threads (default: the pool's, NDSIMD_NUM_THREADS)
    --buffer SIZE           bytes per read with pread (default 1M; K, M, G suffixes)
    --json                  one JSON object on stdout instead of the text lines
    -h, --help              print this message

OUTPUT:
    stdout: 'found at offset N' or 'not found'
    stderr: bytes scanned (up to the needle's word, or the whole file), seconds, GB/s

EXIT STATUS:
    0 found, 1 not found, 2 error (a message on stderr names the file)
";

pub const LINES_HELP: &str = "\
ndsimd lines: count the newlines of FILE, as `wc -l` does (a last line without a
newline is not counted)

USAGE:
    ndsimd lines FILE [OPTIONS]

OPTIONS:
    --strategy pread|mmap   how FILE is read (default pread; mmap dies with SIGBUS
                            if another process truncates FILE)
    --threads N             threads (default: the pool's, NDSIMD_NUM_THREADS)
    --buffer SIZE           bytes per read with pread (default 1M; K, M, G suffixes)
    --json                  one JSON object on stdout instead of the text lines
    -h, --help              print this message

OUTPUT:
    stdout: 'COUNT FILE' (as `wc -l FILE`)
    stderr: bytes, seconds, GB/s

EXIT STATUS:
    0 counted, 2 error (a message on stderr names the file)
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
    --force         overwrite FILE if it exists (otherwise an existing FILE is an error)
    -h, --help      print this message

A progress bar is drawn on stderr when stderr is a terminal.

EXIT STATUS:
    0 written, 2 error (nothing is left behind)
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
}

/// Parses `args` accepting only the options in `allowed` (by long name).
fn parse(args: &[String], allowed: &[&str]) -> Result<Args, String> {
    let mut a = Args {
        file: None,
        opts: ScanOptions::default(),
        json: false,
        help: false,
        size: None,
        force: false,
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
                    "pread" => Strategy::Pread,
                    "mmap" => Strategy::Mmap,
                    v => return Err(format!("--strategy must be pread or mmap, not '{v}'")),
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
    eprintln!("ndsimd {cmd}: {msg}\n(see 'ndsimd {cmd} --help')");
    ExitCode::from(2)
}

/// Parses the options common to `scan` and `lines`; `Err` is the exit code to return.
fn scan_args(cmd: &str, args: &[String], help: &str) -> Result<(PathBuf, Args), ExitCode> {
    let a = parse(args, &["--strategy", "--threads", "--buffer", "--json"])
        .map_err(|m| usage_error(cmd, &m))?;
    if a.help {
        print!("{help}");
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
    }
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
        eprintln!(
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

/// `ndsimd scan FILE ...`
pub fn scan(args: &[String]) -> ExitCode {
    let (file, a) = match scan_args("scan", args, SCAN_HELP) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let t = Instant::now();
    let found = match scan::find_nonzero(&file, &a.opts) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("ndsimd scan: {e}");
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
        println!(
            "{{\"file\":{},\"found\":{},\"offset\":{offset},{}}}",
            json_string(&file.to_string_lossy()),
            found.is_some(),
            timing.json_fields(&a.opts)
        );
    } else {
        match found {
            Some(o) => println!("found at offset {o}"),
            None => println!("not found"),
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
    let (file, a) = match scan_args("lines", args, LINES_HELP) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let t = Instant::now();
    let count = match scan::count_byte(&file, b'\n', &a.opts) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("ndsimd lines: {e}");
            return ExitCode::from(2);
        }
    };
    let timing = Timing {
        bytes: file_len(&file),
        seconds: t.elapsed().as_secs_f64(),
    };
    if a.json {
        println!(
            "{{\"file\":{},\"lines\":{count},{}}}",
            json_string(&file.to_string_lossy()),
            timing.json_fields(&a.opts)
        );
    } else {
        println!("{count} {}", file.display());
        timing.report(&a.opts);
    }
    ExitCode::SUCCESS
}

/// `ndsimd haystack --size SIZE FILE`
pub fn haystack(args: &[String]) -> ExitCode {
    let a = match parse(args, &["--size", "--force"]) {
        Ok(a) => a,
        Err(m) => return usage_error("haystack", &m),
    };
    if a.help {
        print!("{HAYSTACK_HELP}");
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
            println!(
                "wrote {size} bytes to {} (needle at offset {}) in {s:.3} s: {:.2} GB/s",
                file.display(),
                size - 8,
                size as f64 / s.max(1e-9) / 1e9
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ndsimd haystack: {e}");
            ExitCode::from(2)
        }
    }
}

fn write_haystack(path: &Path, size: u64, force: bool) -> Result<(), String> {
    let with_path = |what: &str, e: std::io::Error| format!("{}: {what}: {e}", path.display());
    let mut open = OpenOptions::new();
    open.write(true);
    if force {
        open.create(true).truncate(true);
    } else {
        open.create_new(true);
    }
    let mut f = open.open(path).map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::AlreadyExists {
            " (--force overwrites it)"
        } else {
            ""
        };
        format!("{}{hint}", with_path("cannot create", e))
    })?;
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
    let mut zeros = vec![0u8; CHUNK as usize];
    let mut written = 0u64;
    let result = (|| {
        while written < size {
            let n = (size - written).min(CHUNK);
            let end = written + n;
            let buf = &mut zeros[..n as usize];
            // The needle lies in the last chunk, in its last 8 bytes.
            let last = end == size;
            if last {
                buf[n as usize - 8..].copy_from_slice(&NEEDLE);
            }
            f.write_all(buf)
                .map_err(|e| with_path(&format!("write at offset {written}"), e))?;
            written = end;
            if let Some(bar) = &bar {
                bar.set_position(written);
            }
        }
        f.sync_all().map_err(|e| with_path("sync", e))
    })();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if result.is_err() {
        drop(f);
        let _ = fs::remove_file(path);
    }
    result
}
