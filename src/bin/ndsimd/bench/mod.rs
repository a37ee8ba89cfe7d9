//! `ndsimd bench`: each operation timed against an anchor measured in the same run,
//! and judged against this machine's limit where the anchor is one.
//!
//! Anchors: for a kernel, the *ceiling* loop of the active tier that moves the same
//! bytes with no real arithmetic (`ndsimd_kernels::ceiling`): one read for a
//! reduction, two reads and a write for a binary op, a read and a write for a unary
//! op. Its time over ours is the fraction of the machine's bandwidth (of the cache
//! level the data fits in) the op reaches. For GEMM, the micro-kernel's own
//! multiply-adds with operands in registers (the FMA peak). For the allocating
//! forms, the idiomatic Rust `iter().map().collect()`, which also allocates; for the
//! pool's speed-ups, the same call on one thread.
//!
//! Ours and the anchor alternate sample by sample so a drift in the machine's speed
//! hits both; we report medians, the spread of our samples ((max-min)/2 over the
//! median), and anchor time / our time. Every result is checked before timing.
//! `--compare` adds NumPy, run through `python3`, interleaved in rounds
//! ([`compare`]).

mod charts;
mod compare;
mod gemm;
mod ints;
mod math;
mod pool;
mod port;
mod report;
mod runner;
mod scans;
mod single;
mod workspace;

use ndsimd::Array;
use ndsimd_kernels::ceiling::ceilings;
use runner::Runner;
use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;

/// Time the kernels against this machine's limits, measured in the same run
#[derive(clap::Args)]
#[command(after_help = AFTER_HELP)]
#[command(group = clap::ArgGroup::new("outputs").args(["svg", "markdown"]).multiple(true))]
pub struct BenchArgs {
    /// Fewer samples (a few seconds instead of about a minute)
    #[arg(long)]
    pub quick: bool,
    /// Only the rows whose op name contains TEXT; 'a|b' runs the rows that contain
    /// either
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// Threads for the multi-thread rows (default: the pool's, NDSIMD_NUM_THREADS)
    #[arg(long, value_name = "N", value_parser = crate::args::at_least_one)]
    pub threads: Option<usize>,
    /// One JSON object per row on stdout (stable field names; no table)
    #[arg(long)]
    pub json: bool,
    /// Also the maintainers' rows (alignment, streaming stores, the pool's hand-off)
    /// and notes on anchors that look wrong
    #[arg(short, long)]
    pub verbose: bool,
    /// Also time each row's NumPy equivalent through the `python3` on PATH,
    /// interleaved with ours in rounds, after checking both give the same answer
    #[arg(long)]
    pub compare: bool,
    /// Rounds of the --compare interleaving
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = crate::args::at_least_one)]
    pub rounds: usize,
    /// Also write charts of the results into DIR (created if missing): one SVG per
    /// op family and an index.html showing them
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
    /// Draw --svg and --markdown from a saved `--json` run in FILE instead of
    /// measuring (rows of benches/peers' PEERS_JSON may be appended to it)
    #[arg(long, value_name = "FILE", requires = "outputs",
          conflicts_with_all = ["compare", "json", "quick", "threads", "filter", "verbose"])]
    pub from: Option<PathBuf>,
    /// Rewrite the region of FILE (docs/perf.md) from its line starting with
    /// '<!-- BEGIN ndsimd bench' to its line '<!-- END ndsimd bench -->' with the
    /// run's tables (and the --svg charts); the rest of FILE is kept
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// A paragraph under the --markdown region's first line (the machine, its load)
    #[arg(long, value_name = "TEXT", requires = "markdown")]
    pub caption: Option<String>,
}

const AFTER_HELP: &str = "\
Rows are grouped per op family. Each gives the median time per call, the spread of
the samples, the rate (GB/s, or GFLOP/s for matrix products), the limit it is set
against and the fraction of it reached (ratio = anchor time / ours), and a verdict.
The limits, measured in the same run on this machine:
  read bw, copy bw  a loop moving the same bytes with no arithmetic (reading; or
                    reading and writing), in the cache level the data fits in
  FMA peak          the matrix micro-kernel's multiply-adds with operands in
                    registers, the same flop count
Comparisons (not limits): iter().collect() is the same values by
iter().map().collect(); 1 thread is the same call on one thread.
div and sqrt are bound by the divide/sqrt unit's throughput, not by memory: their
fraction of the copy bandwidth is low by nature.
Every answer is checked before it is timed. Progress goes to stderr (a bar with an
ETA on a terminal, a log line per row otherwise). NDSIMD_TIER caps the SIMD tier.

--compare sets the rows against NumPy only. The matrix products against the Rust
peers (faer, the gemm crate, ndarray) and OpenBLAS in one process are another
program, which needs those crates built:
  cargo run --release --manifest-path benches/peers/Cargo.toml
With PEERS_JSON=FILE it appends its rows to FILE as JSON; appended to a saved
--json run, `--svg DIR --from RUN` draws them in the GEMM chart.

Charts and docs from a saved run, without measuring again:
  ndsimd bench --quick --compare --json > run.json
  ndsimd bench --from run.json --svg docs/charts --markdown docs/perf.md";

pub fn main(args: &BenchArgs) -> ExitCode {
    // The outputs are checked first: a bad DIR or FILE fails now, not after a
    // minute of measuring.
    if let Some(dir) = &args.svg {
        if let Err(msg) = charts::prepare_dir(dir) {
            errln!("ndsimd bench --svg: {msg}");
            return ExitCode::from(2);
        }
    }
    if let Some(doc) = &args.markdown {
        let checked = std::fs::read_to_string(doc)
            .map_err(|e| format!("{}: {e}", doc.display()))
            .and_then(|text| {
                report::splice(&text, "")
                    .map(drop)
                    .map_err(|e| format!("{} {e}", doc.display()))
            });
        if let Err(msg) = checked {
            errln!("ndsimd bench --markdown: {msg}");
            return ExitCode::from(2);
        }
    }
    let rows = match &args.from {
        Some(file) => match report::load(file) {
            Ok(rows) => rows,
            Err(msg) => {
                errln!("ndsimd bench --from: {msg}");
                return ExitCode::from(2);
            }
        },
        None => match measure(args) {
            Ok(rows) => rows,
            Err(code) => return code,
        },
    };
    match outputs(args, &rows) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            errln!("ndsimd bench: {msg}");
            ExitCode::from(2)
        }
    }
}

/// Runs the tables (printing them, or the --json rows); the rows measured.
fn measure(args: &BenchArgs) -> Result<Vec<report::Saved>, ExitCode> {
    if let Some(n) = args.threads {
        ndsimd::set_num_threads(n);
    }
    let compare = if args.compare {
        match compare::NumPy::start(args.rounds) {
            Ok(np) => Some(np),
            Err(msg) => {
                errln!("ndsimd bench --compare: {msg}");
                return Err(ExitCode::from(2));
            }
        }
    } else {
        None
    };
    let mut r = Runner::new(args, compare);
    // A dry pass counts the rows the filter selects, for the progress bar's ETA.
    run_tables(&mut r);
    r.start();
    run_tables(&mut r);
    if let Err(msg) = r.finish() {
        errln!("ndsimd bench: {msg}");
        return Err(ExitCode::from(2));
    }
    if args.compare && !args.json {
        outln!(
            "GEMM against the Rust peers (faer, gemm, ndarray) and OpenBLAS in one process: \
             cargo run --release --manifest-path benches/peers/Cargo.toml (see --help)."
        );
    }
    // The rows as `--json` writes them, read back: one type for a run and a file.
    Ok(r.rows()
        .iter()
        .filter_map(|row| serde_json::to_value(row).ok())
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect())
}

/// The command line that gives `args`' outputs, for the markdown region's header.
fn command_line(args: &BenchArgs) -> String {
    let mut c = String::from("ndsimd bench");
    match &args.from {
        Some(f) => c += &format!(" --from {}", f.display()),
        None => {
            for (on, flag) in [(args.quick, " --quick"), (args.compare, " --compare")] {
                if on {
                    c += flag;
                }
            }
        }
    }
    if let Some(d) = &args.svg {
        c += &format!(" --svg {}", d.display());
    }
    if let Some(m) = &args.markdown {
        c += &format!(" --markdown {}", m.display());
    }
    c
}

/// Writes the --svg charts and the --markdown region.
fn outputs(args: &BenchArgs, rows: &[report::Saved]) -> Result<(), String> {
    let source = match &args.from {
        Some(f) => f.display().to_string(),
        None => "this run".to_string(),
    };
    let mut written = Vec::new();
    if let Some(dir) = &args.svg {
        let c = ndsimd_kernels::cache_info();
        written = charts::write_all(dir, rows, (c.l1d, c.l2, c.l3), &source)?;
        errln!(
            "ndsimd bench: {} chart(s) in {}",
            written.len(),
            dir.join("index.html").display()
        );
    }
    if let Some(doc) = &args.markdown {
        let linked: Vec<(String, String)> = match &args.svg {
            Some(dir) => {
                let rel = charts::relative_to(doc, dir);
                written
                    .iter()
                    .map(|(title, file)| (title.clone(), rel.join(file).display().to_string()))
                    .collect()
            }
            None => Vec::new(),
        };
        let region = report::markdown(
            rows,
            args.caption.as_deref().unwrap_or(""),
            &command_line(args),
            &linked,
        );
        report::rewrite(doc, &region)?;
    }
    Ok(())
}

/// Every table, in order: one thread, the pool, products and scans on one thread and
/// on the pool.
fn run_tables(r: &mut Runner) {
    r.set_section(runner::Section::Single, 1);
    ndsimd::with_threads(1, || {
        single::single(r);
        port::port(r, "");
        ints::ints(r, "");
    });
    ndsimd::with_threads(1, || workspace::workspace(r));
    ndsimd::with_threads(1, || workspace::row_view(r));
    ndsimd::with_threads(1, || math::math(r));
    let threads = ndsimd::num_threads();
    if threads > 1 {
        r.set_section(runner::Section::Pool, threads);
        pool::parallel(r, threads);
        ndsimd::with_threads(threads, || {
            port::port(r, "par ");
            ints::ints(r, "par ");
        });
    }
    // On every pool thread, against numexpr on as many (one thread: in the last
    // section opened, the single-thread one).
    ndsimd::with_threads(threads, || workspace::ne_chain(r));
    let counts = if threads > 1 {
        vec![1, threads]
    } else {
        vec![1]
    };
    for &t in &counts {
        r.set_section(runner::Section::Gemm, t);
        ndsimd::with_threads(t, || gemm::matmuls(r, t));
    }
    for &t in &counts {
        r.set_section(runner::Section::Scan, t);
        ndsimd::with_threads(t, || scans::scans(r, t));
    }
}

const SIZES: [usize; 4] = [1 << 10, 1 << 14, 1 << 18, 1 << 22];

fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            1.0 + (s % 1000) as f64 / 64.0
        })
        .collect()
}

/// An array in memory allocated as ndsimd allocates (huge pages for large
/// buffers, as NumPy does), so neither side pays extra TLB misses.
fn fresh<T: ndsimd::DType>(v: Vec<T>) -> Array<T> {
    fresh_shaped(&[v.len()], v)
}

/// [`fresh`] with a shape. The matrix rows use it: an array made from a caller's
/// `Vec` keeps that buffer, wherever malloc put it and on 4 KiB pages, while NumPy's
/// operands in `gemm_numpy.py` come from NumPy's allocator (huge pages from 4 MiB).
/// matvec 1024² on one thread ran 1.09× faster on this allocation than on a `Vec`'s
/// (11 interleaved rounds).
fn fresh_shaped<T: ndsimd::DType>(shape: &[usize], v: Vec<T>) -> Array<T> {
    let mut a = Array::from_elem(shape, T::default());
    a.as_slice_mut().unwrap().copy_from_slice(&v);
    a
}

/// An anchor's output buffer, allocated (and aligned) as the library allocates.
struct Scratch<T: ndsimd::DType>(Array<T>);

impl<T: ndsimd::DType> std::ops::Deref for Scratch<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.0.as_slice().unwrap()
    }
}

impl<T: ndsimd::DType> std::ops::DerefMut for Scratch<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.0.as_slice_mut().unwrap()
    }
}

fn same<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "bench {what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(g == w, "bench {what}: wrong result at {i}: {g:?} vs {w:?}");
    }
}

/// The read ceiling over `slices`, each cut into `parts` near-equal pieces and
/// piece `i` of every slice read by chunk `i` of one pool run: the anchor of a
/// parallel op that reads those slices once.
fn pool_read(slices: &[&[f64]], parts: usize) {
    let c = ceilings();
    ndsimd_kernels::pool::run(parts, &|i| {
        for s in slices {
            let (a, b) = (i * s.len() / parts, (i + 1) * s.len() / parts);
            black_box((c.read_f64)(&s[a..b]));
        }
    })
}
