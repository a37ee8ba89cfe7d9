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

mod compare;
mod gemm;
mod ints;
mod math;
mod pool;
mod port;
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
    /// Charts of the results (SVG) in DIR (not built yet: see issue 32)
    #[arg(long, value_name = "DIR", hide = true)]
    pub svg: Option<PathBuf>,
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
ETA on a terminal, a log line per row otherwise). NDSIMD_TIER caps the SIMD tier.";

pub fn main(args: &BenchArgs) -> ExitCode {
    if args.svg.is_some() {
        errln!("ndsimd bench: --svg is not built yet");
        return ExitCode::from(2);
    }
    if let Some(n) = args.threads {
        ndsimd::set_num_threads(n);
    }
    let compare = if args.compare {
        match compare::NumPy::start(args.rounds) {
            Ok(np) => Some(np),
            Err(msg) => {
                errln!("ndsimd bench --compare: {msg}");
                return ExitCode::from(2);
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
    match r.finish() {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            errln!("ndsimd bench: {msg}");
            ExitCode::from(2)
        }
    }
}

/// Every table, in order: one thread, the pool, products and scans on one thread and
/// on the pool.
fn run_tables(r: &mut Runner) {
    r.set_section(runner::Section::Single, 1);
    ndsimd::with_threads(1, || {
        single::single(r);
        port::port(r);
        ints::ints(r);
    });
    ndsimd::with_threads(1, || workspace::workspace(r));
    ndsimd::with_threads(1, || math::math(r));
    let threads = ndsimd::num_threads();
    if threads > 1 {
        r.set_section(runner::Section::Pool, threads);
        pool::parallel(r, threads);
    }
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
