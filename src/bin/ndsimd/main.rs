//! The `ndsimd` command-line tool: `info`, `bench`, and the file scan's `scan`,
//! `lines` and `haystack`.
//!
//! Exit statuses follow grep's in every subcommand: 0 found (or done), 1 not found,
//! 2 error. Output is written through [`emit`] and messages through [`warn`], never
//! `println!`/`eprintln!`, which panic (status 101) when their stream fails:
//! - stdout a pipe whose reader has gone (EPIPE): the tool ends quietly with 141,
//!   the status a shell reports for grep killed by SIGPIPE (the signal itself stays
//!   ignored, as Rust's runtime sets it, since resetting it needs `unsafe`);
//! - any other stdout error (a full disk): a message and status 2;
//! - stderr failing: the message is lost, the status is unchanged.
//!
//! - stdout closed when the tool started (`>&-`): the first write fails with "Bad file
//!   descriptor" and status 2, as grep's (Rust's runtime puts `/dev/null` in its place
//!   before `main`; [`ndsimd_kernels::stdio::closed_at_start`] saw it closed).

/// `println!` that survives a reader going away: see [`emit`].
macro_rules! outln {
    () => {
        crate::emit(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        crate::emit(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that survives a reader going away: see [`emit`].
macro_rules! out {
    ($($arg:tt)*) => {
        crate::emit(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics: see [`warn`].
macro_rules! errln {
    ($($arg:tt)*) => {
        crate::warn(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that never panics: see [`warn`].
macro_rules! err {
    ($($arg:tt)*) => {
        crate::warn(format_args!($($arg)*))
    };
}

mod bench;
mod scan;
mod target;

use std::io::Write;
use std::process::ExitCode;

const USAGE: &str = "\
ndsimd: N-dimensional arrays on per-architecture SIMD kernels

USAGE:
    ndsimd <COMMAND> [OPTIONS]

COMMANDS:
    info            print the detected and active SIMD tier, threads and caches
    bench           time the kernels against their plain-loop anchors (< 1 min)
    scan FILE       offset of the first non-zero 8-byte word (exit 0 found, 1 not)
    lines FILE      count newlines as `wc -l` (--index EVERY: and write a line index)
    haystack --size SIZE FILE
                    write SIZE bytes of zeros with a needle at SIZE-8 (test file)
    help            print this message

BENCH OPTIONS:
    --quick         fewer samples (a few seconds)
    --filter TEXT   only the rows whose op name contains TEXT (a|b: either)

SCAN AND LINES OPTIONS (details: 'ndsimd scan --help', 'ndsimd lines --help'):
    --strategy auto|pread|mmap|direct
                            how the file is read (default auto: mmap when the file
                            is in the page cache, pread when not)
    --threads N             threads to use
    --buffer SIZE           bytes per read with pread and direct (default 1M)
    --json                  one JSON object on stdout
    --index EVERY           lines only: write the offset of every EVERY-th line
    --index-out PATH        lines only: where --index writes (default FILE.idx)

HAYSTACK OPTIONS (details: 'ndsimd haystack --help'):
    --size SIZE     4096, 16K, 1M, 4G: a multiple of 8 (binary suffixes)
    --force         overwrite an existing FILE

EXIT STATUS (as grep's):
    0 found or done, 1 not found (scan), 2 error (a message on stderr), 141 when
    stdout is a pipe whose reader has gone (quietly; the status a shell reports for
    grep killed by SIGPIPE). A failing stderr never changes the status.

ENVIRONMENT:
    NDSIMD_TIER=scalar|sse2|avx2|avx512|neon   cap the SIMD tier
    NDSIMD_NUM_THREADS=N                       threads for parallel operations
                                               (at most 4 per core)
";

/// The status when stdout's reader has gone: 128 + SIGPIPE, what a shell reports for
/// a program killed by that signal (grep is).
const BROKEN_PIPE_STATUS: i32 = 141;

/// "Bad file descriptor": what a write to a closed stdout fails with (9 on Linux, the
/// one system where [`stdout_closed_at_start`] can be true).
const EBADF: i32 = 9;

/// Writes to standard output; a failed write ends the process (see [`stdout_failed`]).
fn emit(args: std::fmt::Arguments<'_>) {
    if stdout_closed_at_start() {
        stdout_failed(&std::io::Error::from_raw_os_error(EBADF));
    }
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        stdout_failed(&e);
    }
}

/// Whether the tool was started with stdout closed (`>&-`).
fn stdout_closed_at_start() -> bool {
    ndsimd_kernels::stdio::closed_at_start(1)
}

/// Ends the process after stdout failed: quietly with [`BROKEN_PIPE_STATUS`] when its
/// reader has gone (`ndsimd lines FILE | head` after `head` left), else with a
/// message and status 2, as grep's "write error".
fn stdout_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(BROKEN_PIPE_STATUS);
    }
    errln!("ndsimd: cannot write to standard output: {e}");
    std::process::exit(2)
}

/// Writes to standard error, ignoring failure: a message that cannot be shown must
/// not change the status (the answer is on stdout and in the status).
fn warn(args: std::fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

fn main() -> ExitCode {
    let code = run();
    // Output still buffered is flushed here, where a failure can change the status.
    if let Err(e) = std::io::stdout().lock().flush() {
        stdout_failed(&e);
    }
    code
}

fn run() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("info") => {
            outln!("{}", ndsimd::info());
            ExitCode::SUCCESS
        }
        Some("bench") => match bench::Options::parse(&args[1..]) {
            Ok(opts) if opts.help => {
                out!("{}", bench::HELP);
                ExitCode::SUCCESS
            }
            Ok(opts) => {
                bench::run(&opts);
                ExitCode::SUCCESS
            }
            Err(msg) => {
                errln!("ndsimd bench: {msg}\n\n{USAGE}");
                ExitCode::from(2)
            }
        },
        Some("scan") => scan::scan(&args[1..]),
        Some("lines") => scan::lines(&args[1..]),
        Some("haystack") => scan::haystack(&args[1..]),
        Some("help") | Some("--help") | Some("-h") => {
            out!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            errln!("ndsimd: unknown command '{other}'\n\n{USAGE}");
            ExitCode::from(2)
        }
        None => {
            err!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
