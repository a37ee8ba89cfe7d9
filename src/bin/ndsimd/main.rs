//! The `ndsimd` command-line tool: `info`, `bench`, and the file scan's `scan`,
//! `lines` and `haystack`.

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

mod bench;
mod scan;

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

ENVIRONMENT:
    NDSIMD_TIER=scalar|sse2|avx2|avx512|neon   cap the SIMD tier
    NDSIMD_NUM_THREADS=N                       threads for parallel operations
";

/// Writes to standard output. When the reader has gone away (`ndsimd lines FILE |
/// head`, a closed pipe) the process ends quietly with status 0, as ripgrep does;
/// any other write error ends it with status 2 and a message. (`println!` would
/// panic on both.)
fn emit(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("ndsimd: cannot write to standard output: {e}");
        std::process::exit(2);
    }
}

fn main() -> ExitCode {
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
                eprintln!("ndsimd bench: {msg}\n\n{USAGE}");
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
            eprintln!("ndsimd: unknown command '{other}'\n\n{USAGE}");
            ExitCode::from(2)
        }
        None => {
            eprint!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
