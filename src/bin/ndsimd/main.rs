//! The `ndsimd` command-line tool: `info` and `bench` (more subcommands arrive
//! with the file-scan module).

mod bench;

use std::process::ExitCode;

const USAGE: &str = "\
ndsimd: N-dimensional arrays on per-architecture SIMD kernels

USAGE:
    ndsimd <COMMAND> [OPTIONS]

COMMANDS:
    info            print the detected and active SIMD tier, threads and caches
    bench           time the kernels against their plain-loop anchors (< 1 min)
    help            print this message

BENCH OPTIONS:
    --quick         fewer samples (a few seconds)
    --filter TEXT   only the rows whose op name contains TEXT (a|b: either)

ENVIRONMENT:
    NDSIMD_TIER=scalar|sse2|avx2|avx512|neon   cap the SIMD tier
    NDSIMD_NUM_THREADS=N                       threads for parallel operations
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("info") => {
            println!("{}", ndsimd::info());
            ExitCode::SUCCESS
        }
        Some("bench") => match bench::Options::parse(&args[1..]) {
            Ok(opts) => {
                bench::run(&opts);
                ExitCode::SUCCESS
            }
            Err(msg) => {
                eprintln!("ndsimd bench: {msg}\n\n{USAGE}");
                ExitCode::from(2)
            }
        },
        Some("help") | Some("--help") | Some("-h") => {
            print!("{USAGE}");
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
