//! The `ndsimd` command-line tool: `info`, `bench`, the file scan's `scan`, `lines`
//! and `haystack`, and `completions`. Arguments are parsed by clap (derive): its
//! messages, `--help` per subcommand and `--version`; usage errors exit 2.
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

// `pub(crate)` (no wider than private here, at the crate root) so that
// fuzz/fuzz_targets/cli.rs, which includes this file as a module, can reach them.
pub(crate) mod args;
mod bench;
mod scan;
pub(crate) mod target;

use clap::{CommandFactory, Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// What follows the subcommands in `ndsimd --help`.
const AFTER_HELP: &str = "\
Sizes (--buffer, --size) are bytes: 4096, 16K, 1M, 4G (binary multiples; K, M, G, T,
optionally followed by 'iB' or 'B').

Exit status (as grep's): 0 found or done, 1 not found (scan), 2 error (a message on
stderr, usage errors included), 141 when stdout is a pipe whose reader has gone
(quietly; the status a shell reports for grep killed by SIGPIPE). A failing stderr
never changes the status.

Environment:
  NDSIMD_TIER=scalar|sse2|avx2|avx512|neon   cap the SIMD tier
  NDSIMD_NUM_THREADS=N                       threads for parallel operations (at most 4
                                             per core)";

/// ndsimd: N-dimensional arrays on per-architecture SIMD kernels
#[derive(Parser)]
#[command(name = "ndsimd", version, after_help = AFTER_HELP, arg_required_else_help = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the detected and active SIMD tier, threads and caches
    Info {
        /// One JSON object on stdout
        #[arg(long)]
        json: bool,
    },
    /// Time the kernels against this machine's limits (about a minute; --quick: seconds)
    Bench(bench::BenchArgs),
    /// Offset of the first non-zero 8-byte word of FILE (exit 0 found, 1 not)
    Scan(scan::ScanArgs),
    /// Count the newlines of FILE as `wc -l` (--index EVERY: and write a line index)
    Lines(scan::LinesArgs),
    /// Write SIZE bytes of zeros with a needle at SIZE-8 (a test file for scan)
    Haystack(scan::HaystackArgs),
    /// Print a shell completion script: `ndsimd completions bash > /etc/bash_completion.d/ndsimd`
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// The status when stdout's reader has gone: 128 + SIGPIPE, what a shell reports for
/// a program killed by that signal (grep is).
const BROKEN_PIPE_STATUS: i32 = 141;

/// "Bad file descriptor": what a write to a closed stdout fails with (9 on Linux, the
/// one system where [`stdout_closed_at_start`] can be true).
const EBADF: i32 = 9;

/// Writes to standard output; a failed write ends the process (see [`stdout_failed`]).
pub(crate) fn emit(args: std::fmt::Arguments<'_>) {
    if stdout_closed_at_start() {
        stdout_failed(&std::io::Error::from_raw_os_error(EBADF));
    }
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        stdout_failed(&e);
    }
}

/// Whether the tool was started with stdout closed (`>&-`).
pub(crate) fn stdout_closed_at_start() -> bool {
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
pub(crate) fn warn(args: std::fmt::Arguments<'_>) {
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

/// Shows clap's message (help and `--version` on stdout, through [`emit`]; errors on
/// stderr) rather than letting clap print it: clap's own printing would bypass the
/// closed-stdout and broken-pipe handling. Colours only on a terminal.
fn clap_message(e: clap::Error) -> ExitCode {
    let text = e.render();
    if e.use_stderr() {
        if std::io::stderr().is_terminal() {
            err!("{}", text.ansi());
        } else {
            err!("{text}");
        }
    } else if std::io::stdout().is_terminal() {
        out!("{}", text.ansi());
    } else {
        out!("{text}");
    }
    // Usage errors are 2, help and version 0.
    ExitCode::from(e.exit_code().clamp(0, 255) as u8)
}

fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_message(e),
    };
    match cli.command {
        Command::Info { json } => {
            let info = ndsimd::info();
            if json {
                let c = &info.cache;
                let v = serde_json::json!({
                    "version": info.version,
                    "detected_tier": info.detected_tier.to_string(),
                    "active_tier": info.active_tier.to_string(),
                    "threads": info.threads,
                    "l1d_bytes": c.l1d,
                    "l2_bytes": c.l2,
                    "l3_bytes": c.l3,
                });
                outln!("{v}");
            } else {
                outln!("{info}");
            }
            ExitCode::SUCCESS
        }
        Command::Bench(a) => bench::main(&a),
        Command::Scan(a) => scan::scan(a),
        Command::Lines(a) => scan::lines(a),
        Command::Haystack(a) => scan::haystack(a),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "ndsimd", &mut script);
            out!("{}", String::from_utf8_lossy(&script));
            ExitCode::SUCCESS
        }
    }
}
