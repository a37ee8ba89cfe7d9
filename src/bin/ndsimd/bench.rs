//! `ndsimd bench`: each operation timed against its anchor in the same run.
//!
//! Anchors: for a kernel, the *ceiling* loop of the active tier that moves the same
//! bytes with no real arithmetic (`ndsimd::kernels::ceiling`): one read for a
//! reduction, two reads and a write for a binary op, a read and a write for a unary
//! op. A ratio near 1.0 means the kernel runs at the speed of its memory traffic.
//! For the allocating forms the anchor is the idiomatic Rust `iter().map().collect()`
//! (baseline target), which also allocates.
//!
//! The first table runs on one thread (`with_threads(1, ..)`); a second one runs
//! the large rows on the whole pool against the ceiling loop split over the pool
//! the same way, i.e. the machine's multi-core bandwidth measured in the same run.
//!
//! Ours and the anchor alternate sample by sample so a drift in the machine's speed
//! hits both; we report medians, the spread of our samples ((max-min)/2 over the
//! median), and anchor time / our time. Every result is checked before timing.

use ndsimd::kernels::ceiling::ceilings;
use ndsimd::{s, Array};
use std::hint::black_box;
use std::time::{Duration, Instant};

pub struct Options {
    quick: bool,
    filter: Option<String>,
    /// `--help` or `-h` was given: print [`HELP`] and run nothing.
    pub help: bool,
}

/// `ndsimd bench --help`.
pub const HELP: &str = "\
ndsimd bench: time the kernels against anchors measured in the same run

USAGE:
    ndsimd bench [--quick] [--filter TEXT]

OPTIONS:
    --quick         fewer samples (a few seconds instead of about a minute)
    --filter TEXT   only the rows whose op name contains TEXT; 'a|b' runs the rows
                    that contain either
    -h, --help      print this message

Each row times one operation and its anchor in alternation (samples interleaved)
and prints the median time per call, the spread of the samples, the rate, and
ratio = anchor time / ours (above 1: ours is faster). The anchors:
    ceiling     a loop moving the same bytes with no real arithmetic (the caches'
                or memory's limit), on the active tier
    collect     the same values by iter().map().collect()
    peak        the matrix micro-kernel's multiply-adds with operands in
                registers, the same flop count (the fraction of the FMA peak)
    1 thread    the same call under with_threads(1) (in the pool's table); in
                'fma all threads', the same multiply-adds on one thread, so the
                ratio is how many cores' worth the threads get in this run
    into        the same operation writing into a preallocated output
    +16 B       the same call on arrays 16 bytes past a cache line
    half inline one half of the work run on the calling thread alone
Every answer is checked before it is timed. The tables run on one thread, then on
all of them (NDSIMD_NUM_THREADS); NDSIMD_TIER caps the SIMD tier.
";

impl Options {
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options {
            quick: false,
            filter: None,
            help: false,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--quick" => o.quick = true,
                "-h" | "--help" => o.help = true,
                "--filter" => {
                    o.filter = Some(it.next().ok_or("--filter needs a value")?.clone());
                }
                other => return Err(format!("unknown option '{other}'")),
            }
        }
        Ok(o)
    }
}

const SIZES: [usize; 4] = [1 << 10, 1 << 14, 1 << 18, 1 << 22];

fn sample(reps: usize, f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_secs_f64() / reps as f64
}

/// Repetitions so that one sample lasts about `target`.
fn calibrate(f: &mut dyn FnMut(), target: Duration) -> usize {
    let mut reps = 1;
    loop {
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        let e = t.elapsed();
        if e >= target / 4 || reps >= 1 << 24 {
            let per = e.as_secs_f64() / reps as f64;
            return ((target.as_secs_f64() / per.max(1e-9)) as usize).max(1);
        }
        reps *= 4;
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

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
/// Measured before the change (matvec 1024², one thread, 11 interleaved rounds):
/// 1.09× faster on this allocation than on a `Vec`'s.
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

struct Runner {
    samples: usize,
    filter: Option<String>,
    rows: Vec<(String, f64)>,
}

impl Runner {
    /// Prints the column header and starts a table whose rate column is GB/s.
    fn new(opts: &Options) -> Runner {
        Runner::with_unit(opts, "GB/s")
    }

    /// A table whose rate column is `unit` per second, in 10⁹ (the `bytes` argument
    /// of `row` is then that unit's amount: flops for "GFLOP/s").
    fn with_unit(opts: &Options, unit: &'static str) -> Runner {
        outln!(
            "{:<20} {:>8} {:>12} {:>7} {:>8}  {:<10} {:>12} {:>6}",
            "op",
            "n",
            "ns/op",
            "spread",
            unit,
            "anchor",
            "anchor ns",
            "ratio"
        );
        Runner {
            samples: if opts.quick { 5 } else { 11 },
            filter: opts.filter.clone(),
            rows: Vec::new(),
        }
    }

    /// Prints the table's lowest ratio.
    fn finish(&self) {
        if let Some((name, worst)) = self
            .rows
            .iter()
            .min_by(|x, y| x.1.partial_cmp(&y.1).unwrap())
        {
            outln!(
                "{} rows; lowest ratio (anchor time / ours): {worst:.2} ({name})",
                self.rows.len()
            );
        }
    }

    /// Whether the filter (`|`-separated alternatives) selects a row.
    fn wants(&self, name: &str) -> bool {
        self.filter
            .as_deref()
            .is_none_or(|f| f.split('|').any(|alt| name.contains(alt)))
    }

    /// Times `ours` against `anchor`, interleaved, and prints a row.
    fn row(
        &mut self,
        op: &str,
        n: usize,
        bytes: usize,
        anchor: &str,
        ours: &mut dyn FnMut(),
        anc: &mut dyn FnMut(),
    ) {
        let target = Duration::from_millis(if self.samples > 5 { 4 } else { 2 });
        let (r1, r2) = (calibrate(ours, target), calibrate(anc, target));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..self.samples {
            a.push(sample(r1, ours));
            b.push(sample(r2, anc));
        }
        let lo = a.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = a.iter().cloned().fold(0.0, f64::max);
        let m = median(&mut a);
        let am = median(&mut b);
        outln!(
            "{:<20} {:>8} {:>12.1} {:>6.1}% {:>8.2}  {:<10} {:>12.1} {:>6.2}",
            op,
            n,
            m * 1e9,
            (hi - lo) / m / 2.0 * 100.0,
            bytes as f64 / m / 1e9,
            anchor,
            am * 1e9,
            am / m
        );
        // A loop that only moves the bytes cannot lose to a kernel moving the same
        // bytes by much: if it does, its code is not what the table says (the
        // AVX-512 f64 read loop once compiled to gathers and ran 7-10x slow).
        if anchor.starts_with("ceiling") && am / m > CEILING_SUSPECT {
            outln!("  ^ the anchor is slower than the op by more than {CEILING_SUSPECT}x: not a ceiling; check its code");
        }
        self.rows.push((format!("{op} {n}"), am / m));
    }
}

/// The ratio over a `ceiling` anchor past which [`Runner::row`] flags the anchor.
const CEILING_SUSPECT: f64 = 1.5;

/// A reduction row: name, the call, and the exact answer (NaN: check a bound).
type Reduction<'a> = (&'static str, Box<dyn Fn() -> f64 + 'a>, f64);

pub fn run(opts: &Options) {
    // The single-thread table: every kernel against its one-core ceiling.
    ndsimd::with_threads(1, || single(opts));
    let threads = ndsimd::num_threads();
    if threads > 1 {
        parallel(opts, threads);
    }
    let counts = if threads > 1 {
        vec![1, threads]
    } else {
        vec![1]
    };
    for &t in &counts {
        ndsimd::with_threads(t, || matmuls(opts, t));
    }
    for &t in &counts {
        ndsimd::with_threads(t, || scans(opts, t));
    }
}

/// The read ceiling over `slices`, each cut into `parts` near-equal pieces and
/// piece `i` of every slice read by chunk `i` of one pool run: the anchor of a
/// parallel op that reads those slices once.
fn pool_read(slices: &[&[f64]], parts: usize) {
    let c = ceilings();
    ndsimd::kernels::pool::run(parts, &|i| {
        for s in slices {
            let (a, b) = (i * s.len() / parts, (i + 1) * s.len() / parts);
            black_box((c.read_f64)(&s[a..b]));
        }
    })
}

/// The in-memory file-scan kernels (`ndsimd::scan::*_in`) on `threads` threads,
/// against the read ceiling over a buffer of the same size split over the pool the
/// same way (the machine's `threads`-core read bandwidth, measured in the same run).
fn scans(opts: &Options, threads: usize) {
    use ndsimd::scan::{count_byte_in, find_nonzero_in};
    outln!();
    outln!(
        "in-memory scans, {threads} thread(s). anchor: 'ceiling' = the read loop over as many bytes{}",
        if threads > 1 { ", split over the pool" } else { "" }
    );
    let mut r = Runner::new(opts);
    // Every buffer here, the anchor's too, allocated alike: on a cache line, asking
    // for huge pages before the first touch (from 4 MiB), then written in full. (The
    // text and haystack were once plain `Vec`s on 4 KiB pages against an anchor on
    // huge pages: at 64 MiB the scans then ran 0.81-0.91 of the "ceiling", the
    // difference being the page walks.)
    use ndsimd::kernels::mem::Aligned;
    for bytes in [1usize << 20, 64 << 20] {
        let words = bytes / 8;
        let mut anchor = Aligned::filled(words, 0.0f64);
        anchor.payload_mut().fill(1.0);
        let anchor = anchor.payload();
        let parts = threads.max(1);
        let mut ceiling = || pool_read(&[anchor], parts);
        if r.wants("count_byte_in") {
            // Text-like: a newline every 61 bytes.
            let mut text = Aligned::filled(bytes, 0u8);
            for (i, b) in text.payload_mut().iter_mut().enumerate() {
                *b = if i % 61 == 60 {
                    b'\n'
                } else {
                    b'a' + (i % 26) as u8
                };
            }
            let text = text.payload();
            let want = (bytes / 61) as u64;
            assert_eq!(count_byte_in(text, b'\n'), want, "bench count_byte_in");
            r.row(
                "count_byte_in",
                bytes,
                bytes,
                "ceiling",
                &mut || {
                    black_box(count_byte_in(black_box(text), b'\n'));
                },
                &mut ceiling,
            );
        }
        if r.wants("find_nonzero_in") {
            // The haystack: zeros, one needle in the last word.
            // Every page written: untouched pages of a zeroed allocation all map the
            // kernel's one zero page, which reads from cache (measured: 5x the read
            // ceiling). `black_box` keeps the compiler from folding this into calloc.
            let mut hay = Aligned::filled(bytes, 0u8);
            for i in (0..bytes).step_by(4096) {
                hay.payload_mut()[i] = black_box(0);
            }
            hay.payload_mut()[bytes - 3] = 1;
            let hay = hay.payload();
            assert_eq!(
                find_nonzero_in(hay),
                Some(bytes as u64 - 8),
                "bench find_nonzero_in"
            );
            r.row(
                "find_nonzero_in",
                bytes,
                bytes,
                "ceiling",
                &mut || {
                    black_box(find_nonzero_in(black_box(hay)));
                },
                &mut ceiling,
            );
        }
    }
    r.finish();
}

/// Small integers as floats: every product and sum of a benchmark GEMM is exact, so
/// the result can be checked exactly before the clock.
fn ints<T: ndsimd::Element>(n: usize, seed: u64) -> Vec<T> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            T::from_i64((s % 7) as i64 - 3).unwrap()
        })
        .collect()
}

/// Checks `c = a @ b` exactly on a sample of rows (all of them when small).
fn check_matmul<T: ndsimd::Element>(a: &Array<T>, b: &Array<T>, c: &Array<T>, what: &str) {
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    let (sa, sb, sc) = (a.to_vec(), b.to_vec(), c.to_vec());
    for i in (0..m).step_by(m.div_ceil(16).max(1)) {
        for j in 0..n {
            let want = (0..k).fold(T::zero(), |acc, p| acc + sa[i * k + p] * sb[p * n + j]);
            assert!(
                sc[i * n + j] == want,
                "bench {what}: wrong result at ({i}, {j})"
            );
        }
    }
}

/// The GEMM table on `threads` threads: `matmul_into` (β = 0, preallocated output)
/// against the micro-kernel's own multiply-add loop doing the same flops with its
/// operands in registers (`peak`), split over the pool the same way: the ratio is
/// the fraction of the machine's FMA peak reached.
fn matmuls(opts: &Options, threads: usize) {
    use ndsimd::kernels::gemm::fma_peak;
    let tier = ndsimd::kernels::active_tier();
    outln!();
    outln!(
        "matrix products, {threads} thread(s). anchor: 'peak' = the micro-kernel's multiply-adds alone (registers only), same flops{}",
        if threads > 1 { ", split over the pool" } else { "" }
    );
    let mut r = Runner::with_unit(opts, "GFLOP/s");
    fn case<T: ndsimd::Element + ndsimd::kernels::gemm::GemmElement>(
        r: &mut Runner,
        name: &str,
        (m, k, n): (usize, usize, usize),
        transpose_b: bool,
        threads: usize,
        tier: ndsimd::kernels::Tier,
    ) {
        if !r.wants(name) {
            return;
        }
        let a = fresh_shaped(&[m, k], ints::<T>(m * k, 3));
        let b_store = if transpose_b {
            fresh_shaped(&[n, k], ints::<T>(k * n, 5))
        } else {
            fresh_shaped(&[k, n], ints::<T>(k * n, 5))
        };
        let b = if transpose_b {
            b_store.t().to_owned()
        } else {
            b_store.clone()
        };
        let bv = if transpose_b {
            b_store.t()
        } else {
            b_store.view()
        };
        let mut c = Array::<T>::zeros(&[m, n]);
        a.matmul_into(&bv, T::one(), T::zero(), &mut c).unwrap();
        check_matmul(&a, &b, &c, name);
        let flops = 2 * m * n * k;
        let (per_round, _) = fma_peak::<T>(tier, 1, T::one()).unwrap();
        let rounds = (flops as u64 / per_round).max(1) as usize;
        let parts = threads.max(1);
        r.row(
            name,
            m.max(n),
            flops,
            "peak",
            &mut || {
                a.matmul_into(&bv, T::one(), T::zero(), black_box(&mut c))
                    .unwrap()
            },
            &mut || {
                ndsimd::kernels::pool::run(parts, &|_| {
                    black_box(fma_peak::<T>(tier, rounds / parts, black_box(T::one())));
                })
            },
        );
    }
    for n in [64, 128, 256, 512, 1024] {
        case::<f64>(&mut r, "matmul f64", (n, n, n), false, threads, tier);
    }
    for n in [256, 1024] {
        case::<f32>(&mut r, "matmul f32", (n, n, n), false, threads, tier);
    }
    case::<f64>(
        &mut r,
        "matmul f64 a·bᵀ",
        (512, 512, 512),
        true,
        threads,
        tier,
    );
    case::<f64>(
        &mut r,
        "matmul f64 k=256",
        (1024, 256, 1024),
        false,
        threads,
        tier,
    );
    // A few rows times a wide matrix (a batch of 16 vectors through a 1024 -> 4096
    // layer): each element of B serves 16 rows only, so packing it is the cost.
    case::<f64>(
        &mut r,
        "matmul f64 m=16",
        (16, 1024, 4096),
        false,
        threads,
        tier,
    );
    // Many rows into a few columns (4096 vectors through a 1024 -> 16 layer): the
    // narrow form packs each panel of B right before its tiles.
    case::<f64>(
        &mut r,
        "matmul f64 n=16",
        (4096, 1024, 16),
        false,
        threads,
        tier,
    );
    // A small C from a long k (16 x 16 sums of 65536 products each): the direct
    // path, KC block by KC block, rows over the pool.
    case::<f64>(
        &mut r,
        "matmul f64 k=65536",
        (16, 65536, 16),
        false,
        threads,
        tier,
    );
    // A batch of 1000 products of 16x16 matrices, against the same peak loop.
    if r.wants("matmul f64 1000x16²") {
        let (b, d) = (1000, 16);
        let a = fresh_shaped(&[b, d, d], ints::<f64>(b * d * d, 3));
        let x = fresh_shaped(&[b, d, d], ints::<f64>(b * d * d, 5));
        let mut c = Array::<f64>::zeros(&[b, d, d]);
        a.matmul_into(&x, 1.0, 0.0, &mut c).unwrap();
        for q in [0, b / 2, b - 1] {
            let (aq, xq) = (
                a.slice(s![q, .., ..]).unwrap(),
                x.slice(s![q, .., ..]).unwrap(),
            );
            let want = aq.to_owned().matmul(&xq.to_owned()).unwrap();
            same(
                &c.slice(s![q, .., ..]).unwrap().to_vec(),
                &want.to_vec(),
                "batch",
            );
        }
        let flops = 2 * b * d * d * d;
        let (per_round, _) = fma_peak::<f64>(tier, 1, 1.0).unwrap();
        let rounds = (flops as u64 / per_round).max(1) as usize;
        let parts = threads.max(1);
        r.row(
            "matmul f64 1000x16²",
            b,
            flops,
            "peak",
            &mut || a.matmul_into(&x, 1.0, 0.0, black_box(&mut c)).unwrap(),
            &mut || {
                ndsimd::kernels::pool::run(parts, &|_| {
                    black_box(fma_peak::<f64>(tier, rounds / parts, black_box(1.0)));
                })
            },
        );
    }
    // Matrix times vector: one pass over the matrix, so the anchor is the read
    // ceiling over it (split over the pool the same way).
    let n = 1024;
    if r.wants("matvec f64") {
        let a = fresh_shaped(&[n, n], ints::<f64>(n * n, 3));
        let x = Array::from_vec(ints::<f64>(n, 5));
        let mut y = Array::<f64>::zeros(&[n]);
        a.matmul_into(&x, 1.0, 0.0, &mut y).unwrap();
        let (sa, sx) = (a.as_slice().unwrap(), x.as_slice().unwrap());
        let want: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|p| sa[i * n + p] * sx[p]).sum())
            .collect();
        same(y.as_slice().unwrap(), &want, "matvec f64");
        let parts = threads.max(1);
        r.row(
            "matvec f64",
            n,
            2 * n * n,
            "ceiling",
            &mut || a.matmul_into(&x, 1.0, 0.0, black_box(&mut y)).unwrap(),
            &mut || pool_read(&[sa], parts),
        );
    }
    // The 1-D dot product of 2^20 elements (`vdot`), against the read ceiling of
    // both vectors split over the pool the same way.
    let n = 1 << 20;
    if r.wants("vdot f64") {
        let (x, y) = (fresh(ints::<f64>(n, 7)), fresh(ints::<f64>(n, 8)));
        let (sx, sy) = (x.as_slice().unwrap(), y.as_slice().unwrap());
        let exact: f64 = sx.iter().zip(sy).map(|(p, q)| p * q).sum();
        assert_eq!(x.vdot(&y).unwrap(), exact, "bench vdot");
        let parts = threads.max(1);
        r.row(
            "vdot f64",
            n,
            2 * n,
            "ceiling",
            &mut || {
                black_box(x.vdot(&y).unwrap());
            },
            &mut || pool_read(&[sx, sy], parts),
        );
    }
    r.finish();
}

/// The pool's table: large ops on every thread against the same ceiling loops
/// split over the same pool (the machine's `threads`-core bandwidth).
fn parallel(opts: &Options, threads: usize) {
    let c = ceilings();
    outln!();
    outln!(
        "{threads} threads (the pool). anchor: 'ceiling×{threads}' = the ceiling loop split over the pool the same way"
    );
    let mut r = Runner::new(opts);
    let anchor = format!("ceiling×{threads}");
    // How many cores' worth the threads get right now: the micro-kernel's
    // multiply-adds alone (registers only) on every thread at once, against the same
    // total on one thread. About `threads` on separate cores; near 1 when the host
    // runs the virtual CPUs on one core's two hardware threads, as this VM's host
    // does at times (then no two-thread figure of the same run can pass ~1).
    if r.wants("fma all threads") {
        use ndsimd::kernels::gemm::fma_peak;
        let tier = ndsimd::kernels::active_tier();
        let rounds = 1 << 18;
        let (per_round, _) = fma_peak::<f64>(tier, 1, 1.0).unwrap();
        r.row(
            "fma all threads",
            threads,
            (per_round * rounds as u64) as usize * threads,
            "1 thread",
            &mut || {
                ndsimd::kernels::pool::run(threads, &|_| {
                    black_box(fma_peak::<f64>(tier, rounds, black_box(1.0)));
                })
            },
            &mut || {
                black_box(fma_peak::<f64>(tier, rounds * threads, black_box(1.0)));
            },
        );
    }
    for n in [1 << 14, 1 << 18, 1 << 22] {
        let a = fresh(data(n, 1));
        let b = fresh(data(n, 2));
        let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
        let mut out = Array::<f64>::zeros(&[n]);
        let mut scratch = Scratch(fresh(vec![0.0f64; n]));
        if r.wants("par add_into") {
            a.add_into(&b, &mut out).unwrap();
            let want: Vec<f64> = sa.iter().zip(sb).map(|(x, y)| x + y).collect();
            same(out.as_slice().unwrap(), &want, "par add_into");
            let pieces = ndsimd::kernels::par::pieces(n, 1 << 14);
            r.row(
                "par add_into",
                n,
                24 * n,
                &anchor,
                &mut || a.add_into(&b, black_box(&mut out)).unwrap(),
                &mut || {
                    ndsimd::kernels::par::for_each_piece_mut(
                        black_box(&mut *scratch),
                        pieces,
                        8,
                        |start, piece| {
                            let e = start + piece.len();
                            (c.read2_write1_f64)(&sa[start..e], &sb[start..e], piece)
                        },
                    )
                },
            );
        }
        if r.wants("par sum") {
            let exact: f64 = sa.iter().sum();
            assert!(
                (a.sum() - exact).abs() <= n as f64 * f64::EPSILON * exact,
                "bench par sum"
            );
            let pieces = ndsimd::kernels::par::pieces(n, 1 << 14).min(64);
            let mut parts = [0u64; 64];
            r.row(
                "par sum",
                n,
                8 * n,
                &anchor,
                &mut || {
                    black_box(a.sum());
                },
                &mut || {
                    ndsimd::kernels::par::for_each_piece_mut(
                        &mut parts[..pieces],
                        pieces,
                        1,
                        |i, slot| {
                            let p0 = ndsimd::kernels::par::piece_start(n, pieces, 64, i);
                            let p1 = ndsimd::kernels::par::piece_start(n, pieces, 64, i + 1);
                            slot[0] = (c.read_f64)(&sa[p0..p1]);
                        },
                    );
                    black_box(parts.iter().fold(0, |x, y| x ^ y));
                },
            );
        }
        // The speed-up itself: the same call on one thread, interleaved.
        if r.wants("par sum vs 1T") {
            r.row(
                "par sum vs 1T",
                n,
                8 * n,
                "1 thread",
                &mut || {
                    black_box(a.sum());
                },
                &mut || {
                    black_box(ndsimd::with_threads(1, || a.sum()));
                },
            );
        }
        // What a two-way split costs beyond its work: the sum kernel over 16Ki cut in
        // two pieces on the pool, against one piece alone on this thread. 1.0 would
        // be a free hand-off with no slowdown from running side by side; the
        // speed-up over one thread is at most twice this.
        if n == 1 << 14 && threads == 2 && r.wants("pool split sum") {
            let k = <f64 as ndsimd::kernels::KernelElement>::table().sum;
            let half = n / 2;
            let split = || {
                let mut parts = [0.0f64; 2];
                // By value, as the drivers pass theirs (`pool::run_copy`).
                ndsimd::kernels::par::for_each_piece_mut(&mut parts, 2, 1, move |i, slot| {
                    slot[0] = k(&sa[i * half..(i + 1) * half]);
                });
                parts[0] + parts[1]
            };
            let exact: f64 = sa.iter().sum();
            assert!(
                (split() - exact).abs() <= n as f64 * f64::EPSILON * exact,
                "bench pool split sum"
            );
            r.row(
                "pool split sum",
                n,
                8 * n,
                "half inline",
                &mut || {
                    black_box(split());
                },
                &mut || {
                    black_box(k(black_box(&sa[..half])));
                },
            );
        }
        if r.wants("par add_assign vs 1T") {
            // In place, `acc += b`: the same pieces on the pool as `add_into`. `acc`
            // grows by `b` each call; it is checked against a plain loop first.
            let mut acc = fresh(data(n, 3));
            let mut acc1 = fresh(data(n, 3));
            let want: Vec<f64> = acc
                .as_slice()
                .unwrap()
                .iter()
                .zip(sb)
                .map(|(x, y)| x + y)
                .collect();
            acc.try_add_assign(&b).unwrap();
            same(acc.as_slice().unwrap(), &want, "par add_assign");
            r.row(
                "par add_assign vs 1T",
                n,
                24 * n,
                "1 thread",
                &mut || black_box(&mut acc).try_add_assign(&b).unwrap(),
                &mut || {
                    ndsimd::with_threads(1, || black_box(&mut acc1).try_add_assign(&b).unwrap())
                },
            );
        }
        if r.wants("par add_into vs 1T") {
            let mut out1 = Array::<f64>::zeros(&[n]);
            r.row(
                "par add_into vs 1T",
                n,
                24 * n,
                "1 thread",
                &mut || a.add_into(&b, black_box(&mut out)).unwrap(),
                &mut || ndsimd::with_threads(1, || a.add_into(&b, black_box(&mut out1)).unwrap()),
            );
        }
    }
    axes(&mut r, threads);
    streamed(&mut r);
    r.finish();
}

/// Axis reductions and a row broadcast of 1024 x 1024 f64 on the pool, against
/// the read ceiling split over the pool the same way (the rows NumPy is compared
/// with in benches/pool_numpy.py).
fn axes(r: &mut Runner, threads: usize) {
    let c = ceilings();
    let anchor = format!("ceiling×{threads}");
    let (rows, cols) = (1024usize, 1024usize);
    let n = rows * cols;
    let m = fresh(data(n, 5))
        .into_shape(&[rows as isize, cols as isize])
        .unwrap();
    let sm = m.as_slice().unwrap();
    let exact = |axis: usize, j: usize| -> f64 {
        match axis {
            0 => (0..rows).map(|i| sm[i * cols + j]).sum(),
            _ => sm[j * cols..(j + 1) * cols].iter().sum(),
        }
    };
    for (name, axis) in [("par sum_axis0", 0isize), ("par sum_axis1", 1)] {
        if !r.wants(name) {
            continue;
        }
        let got = m.sum_axis(axis, false).unwrap();
        for (j, &g) in got.as_slice().unwrap().iter().enumerate() {
            let e = exact(axis as usize, j);
            assert!((g - e).abs() <= 1024.0 * f64::EPSILON * e.abs(), "{name}");
        }
        r.row(
            name,
            n,
            8 * n,
            &anchor,
            &mut || {
                black_box(m.sum_axis(axis, false).unwrap());
            },
            &mut || pool_read(&[sm], threads),
        );
    }
    if r.wants("par max_axis1") {
        let got = m.max_axis(1, false).unwrap();
        for (i, &g) in got.as_slice().unwrap().iter().enumerate() {
            let row = &sm[i * cols..(i + 1) * cols];
            assert_eq!(g, row.iter().cloned().fold(f64::MIN, f64::max), "max_axis1");
        }
        r.row(
            "par max_axis1",
            n,
            8 * n,
            &anchor,
            &mut || {
                black_box(m.max_axis(1, false).unwrap());
            },
            &mut || pool_read(&[sm], threads),
        );
    }
    if r.wants("par row broadcast into") {
        let row = fresh(data(cols, 6));
        let sr = row.as_slice().unwrap();
        let mut out = Array::<f64>::zeros(&[rows, cols]);
        m.add_into(&row, &mut out).unwrap();
        let want: Vec<f64> = (0..n).map(|i| sm[i] + sr[i % cols]).collect();
        same(out.as_slice().unwrap(), &want, "par row broadcast into");
        let mut scratch = Scratch(fresh(vec![0.0f64; n]));
        let pieces = ndsimd::kernels::par::pieces(n, 1 << 14);
        r.row(
            "par row broadcast into",
            n,
            16 * n,
            &anchor,
            &mut || m.add_into(&row, black_box(&mut out)).unwrap(),
            &mut || {
                ndsimd::kernels::par::for_each_piece_mut(
                    black_box(&mut *scratch),
                    pieces,
                    8,
                    |start, piece| (c.read1_write1_f64)(&sm[start..start + piece.len()], piece),
                )
            },
        );
    }
}

fn single(opts: &Options) {
    let info = ndsimd::info();
    let c = ceilings();
    outln!(
        "ndsimd {} bench: tier {} (detected {}), 1 thread. anchor: 'ceiling' = the {} tier's loop moving the same bytes; 'collect' = iter().map().collect()",
        info.version, info.active_tier, info.detected_tier, c.tier
    );
    let mut r = Runner::new(opts);
    type Bin = (&'static str, fn(f64, f64) -> f64);
    let bins: [Bin; 5] = [
        ("add", |x, y| x + y),
        ("sub", |x, y| x - y),
        ("mul", |x, y| x * y),
        ("div", |x, y| x / y),
        ("maximum", |x, y| if x.is_nan() || x > y { x } else { y }),
    ];
    type Un = (&'static str, fn(f64) -> f64);
    let uns: [Un; 3] = [
        ("neg", |x| -x),
        ("abs", |x| x.abs()),
        ("sqrt", |x| x.sqrt()),
    ];
    for &n in &SIZES {
        let a = fresh(data(n, 1));
        let b = fresh(data(n, 2));
        let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
        let mut out = Array::<f64>::zeros(&[n]);
        let mut scratch = Scratch(fresh(vec![0.0f64; n]));
        for (name, f) in bins {
            let want: Vec<f64> = sa.iter().zip(sb).map(|(&x, &y)| f(x, y)).collect();
            let run_into = |out: &mut Array<f64>| match name {
                "add" => a.add_into(&b, out),
                "sub" => a.sub_into(&b, out),
                "mul" => a.mul_into(&b, out),
                "div" => a.div_into(&b, out),
                _ => a.maximum_into(&b, out),
            };
            let run = || match name {
                "add" => a.add(&b),
                "sub" => a.sub(&b),
                "mul" => a.mul(&b),
                "div" => a.div(&b),
                _ => a.maximum(&b),
            };
            let into = format!("{name}_into");
            if r.wants(&into) {
                run_into(&mut out).unwrap();
                same(out.as_slice().unwrap(), &want, &into);
                r.row(
                    &into,
                    n,
                    24 * n,
                    "ceiling",
                    &mut || run_into(black_box(&mut out)).unwrap(),
                    &mut || (c.read2_write1_f64)(sa, sb, black_box(&mut *scratch)),
                );
            }
            if r.wants(name) && name != "maximum" {
                same(run().unwrap().as_slice().unwrap(), &want, name);
                r.row(
                    name,
                    n,
                    24 * n,
                    "collect",
                    &mut || drop(black_box(run().unwrap())),
                    &mut || {
                        let v: Vec<f64> = sa.iter().zip(sb).map(|(&x, &y)| f(x, y)).collect();
                        drop(black_box(v));
                    },
                );
            }
        }
        for (name, f) in uns {
            let into = format!("{name}_into");
            if !r.wants(&into) {
                continue;
            }
            let want: Vec<f64> = sa.iter().map(|&x| f(x)).collect();
            let run_into = |out: &mut Array<f64>| match name {
                "neg" => a.neg_into(out),
                "abs" => a.abs_into(out),
                _ => a.sqrt_into(out),
            };
            run_into(&mut out).unwrap();
            same(out.as_slice().unwrap(), &want, &into);
            r.row(
                &into,
                n,
                16 * n,
                "ceiling",
                &mut || run_into(black_box(&mut out)).unwrap(),
                &mut || (c.read1_write1_f64)(sa, black_box(&mut *scratch)),
            );
        }
        if r.wants("sqrt") {
            let want: Vec<f64> = sa.iter().map(|x| x.sqrt()).collect();
            same(a.sqrt().as_slice().unwrap(), &want, "sqrt");
            r.row(
                "sqrt",
                n,
                16 * n,
                "collect",
                &mut || drop(black_box(a.sqrt())),
                &mut || drop(black_box(sa.iter().map(|x| x.sqrt()).collect::<Vec<f64>>())),
            );
        }
        // Reductions against the read ceiling.
        let (mx, mn) = (
            sa.iter().cloned().fold(f64::MIN, f64::max),
            sa.iter().cloned().fold(f64::MAX, f64::min),
        );
        let reductions: [Reduction; 4] = [
            ("sum", Box::new(|| a.sum()), f64::NAN),
            ("max", Box::new(|| a.max().unwrap()), mx),
            ("min", Box::new(|| a.min().unwrap()), mn),
            (
                "argmax",
                Box::new(|| a.argmax().unwrap() as f64),
                sa.iter().position(|&x| x == mx).unwrap() as f64,
            ),
        ];
        for (name, f, want) in reductions {
            if !r.wants(name) {
                continue;
            }
            let got = f();
            if name == "sum" {
                let exact: f64 = sa.iter().sum();
                assert!(
                    (got - exact).abs() <= n as f64 * f64::EPSILON * exact.abs(),
                    "bench sum: {got} vs {exact}"
                );
            } else {
                assert_eq!(got, want, "bench {name}");
            }
            r.row(
                name,
                n,
                8 * n,
                "ceiling",
                &mut || {
                    black_box(f());
                },
                &mut || {
                    black_box((c.read_f64)(black_box(sa)));
                },
            );
        }
    }
    // f32: element rate against f64 at 1Ki, and the 4Mi rows of the op set.
    for n in [1 << 10, 1 << 22] {
        let a32: Array<f32> = fresh(data(n, 3).iter().map(|&x| x as f32).collect());
        let b32: Array<f32> = fresh(data(n, 4).iter().map(|&x| x as f32).collect());
        let (sa, sb) = (a32.as_slice().unwrap(), b32.as_slice().unwrap());
        let mut out = Array::<f32>::zeros(&[n]);
        let mut scratch = Scratch(fresh(vec![0.0f32; n]));
        if r.wants("f32 add_into") {
            a32.add_into(&b32, &mut out).unwrap();
            let want: Vec<f32> = sa.iter().zip(sb).map(|(x, y)| x + y).collect();
            same(out.as_slice().unwrap(), &want, "f32 add_into");
            r.row(
                "f32 add_into",
                n,
                12 * n,
                "ceiling",
                &mut || a32.add_into(&b32, black_box(&mut out)).unwrap(),
                &mut || (c.read2_write1_f32)(sa, sb, black_box(&mut *scratch)),
            );
        }
        if r.wants("f32 sqrt_into") {
            a32.sqrt_into(&mut out).unwrap();
            let want: Vec<f32> = sa.iter().map(|x| x.sqrt()).collect();
            same(out.as_slice().unwrap(), &want, "f32 sqrt_into");
            r.row(
                "f32 sqrt_into",
                n,
                8 * n,
                "ceiling",
                &mut || a32.sqrt_into(black_box(&mut out)).unwrap(),
                &mut || (c.read1_write1_f32)(sa, black_box(&mut *scratch)),
            );
        }
        if r.wants("f32 sum") {
            let exact: f64 = sa.iter().map(|&x| x as f64).sum();
            assert!((a32.sum() as f64 - exact).abs() <= n as f64 * f32::EPSILON as f64 * exact);
            r.row(
                "f32 sum",
                n,
                4 * n,
                "ceiling",
                &mut || {
                    black_box(a32.sum());
                },
                &mut || {
                    black_box((c.read_f32)(black_box(sa)));
                },
            );
        }
    }
    // dot 2^20 and the 1024x1024 row broadcast.
    let n = 1 << 20;
    if r.wants("dot") {
        let (a, b) = (fresh(data(n, 7)), fresh(data(n, 8)));
        let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
        let exact: f64 = sa.iter().zip(sb).map(|(x, y)| x * y).sum();
        assert!((a.vdot(&b).unwrap() - exact).abs() <= n as f64 * f64::EPSILON * exact);
        r.row(
            "dot",
            n,
            16 * n,
            "ceiling",
            &mut || {
                black_box(a.vdot(&b).unwrap());
            },
            &mut || {
                black_box((c.read_f64)(black_box(sa)) ^ (c.read_f64)(black_box(sb)));
            },
        );
    }
    if r.wants("row broadcast") {
        let (rows, cols) = (1024, 1024);
        let m = fresh(data(rows * cols, 5))
            .into_shape(&[rows as isize, cols as isize])
            .unwrap();
        let row = fresh(data(cols, 6));
        let mut out = Array::<f64>::zeros(&[rows, cols]);
        m.add_into(&row, &mut out).unwrap();
        let (sm, sr) = (m.as_slice().unwrap(), row.as_slice().unwrap());
        let want: Vec<f64> = (0..rows * cols).map(|i| sm[i] + sr[i % cols]).collect();
        same(out.as_slice().unwrap(), &want, "row broadcast");
        let mut scratch = Scratch(fresh(vec![0.0f64; rows * cols]));
        r.row(
            "row broadcast into",
            rows * cols,
            16 * rows * cols,
            "ceiling",
            &mut || m.add_into(&row, black_box(&mut out)).unwrap(),
            &mut || (c.read1_write1_f64)(sm, black_box(&mut *scratch)),
        );
        // The allocating form, against the same op into a preallocated output.
        same(
            m.add(&row).unwrap().as_slice().unwrap(),
            &want,
            "row broadcast",
        );
        r.row(
            "row broadcast",
            rows * cols,
            16 * rows * cols,
            "into",
            &mut || {
                black_box(m.add(&row).unwrap());
            },
            &mut || m.add_into(&row, black_box(&mut out)).unwrap(),
        );
    }
    // What starting every allocated array on a cache line buys: the same calls on
    // arrays whose first element is 16 bytes past a line (where malloc, and so
    // NumPy, often puts a buffer), interleaved.
    for &n in &SIZES[..3] {
        let (a, b) = (fresh(data(n, 1)), fresh(data(n, 2)));
        let mut out = Array::<f64>::zeros(&[n]);
        let (a2, b2) = (fresh(data(n + 2, 1)), fresh(data(n + 2, 2)));
        let mut out2 = Array::<f64>::zeros(&[n + 2]);
        let (a16, b16) = (a2.slice(s![2..]).unwrap(), b2.slice(s![2..]).unwrap());
        let mut out16 = out2.slice_mut(s![2..]).unwrap();
        let line = |x: &[f64]| x.as_ptr() as usize % 64;
        assert_eq!(
            (line(a.as_slice().unwrap()), line(a16.as_slice().unwrap())),
            (0, 16),
            "bench alignment"
        );
        let exact = |x: &[f64]| x.iter().sum::<f64>();
        for (got, x) in [(a.sum(), &a.view()), (a16.sum(), &a16)] {
            let x = x.as_slice().unwrap();
            assert!(
                (got - exact(x)).abs() <= 1e-12 * exact(x),
                "bench aligned sum"
            );
        }
        if r.wants("sum aligned") {
            r.row(
                "sum aligned",
                n,
                8 * n,
                "+16 B",
                &mut || {
                    black_box(black_box(&a).sum());
                },
                &mut || {
                    black_box(black_box(&a16).sum());
                },
            );
        }
        a16.add_into(&b16, &mut out16).unwrap();
        a.add_into(&b, &mut out).unwrap();
        let sum2 = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| p + q).collect::<Vec<_>>();
        same(
            out.as_slice().unwrap(),
            &sum2(a.as_slice().unwrap(), b.as_slice().unwrap()),
            "aligned add",
        );
        same(
            out16.as_slice().unwrap(),
            &sum2(a16.as_slice().unwrap(), b16.as_slice().unwrap()),
            "+16 B add",
        );
        if r.wants("add_into aligned") {
            r.row(
                "add_into aligned",
                n,
                24 * n,
                "+16 B",
                &mut || a.add_into(&b, black_box(&mut out)).unwrap(),
                &mut || a16.add_into(&b16, black_box(&mut out16)).unwrap(),
            );
        }
    }
    streamed(&mut r);
    r.finish();
}

/// Streaming stores (`ndsimd_kernels::stream`) against plain ones: `add_into` with
/// every output streamed, against the same call with streaming off, at sizes around
/// the default threshold (`stream_min`, printed with the rows). The threshold is
/// restored after each row.
fn streamed(r: &mut Runner) {
    use ndsimd::kernels::stream::{set_stream_min, stream_min};
    let default = stream_min();
    for n in [1 << 20, 1 << 21, 1 << 22, 1 << 23] {
        if !r.wants("add_into streamed") {
            return;
        }
        let (a, b) = (fresh(data(n, 1)), fresh(data(n, 2)));
        let mut out = Array::<f64>::zeros(&[n]);
        set_stream_min(1);
        a.add_into(&b, &mut out).unwrap();
        set_stream_min(default);
        let want: Vec<f64> = a.iter().zip(b.iter()).map(|(x, y)| x + y).collect();
        same(out.as_slice().unwrap(), &want, "streamed add_into");
        let mut out2 = Array::<f64>::zeros(&[n]);
        r.row(
            &format!("add_into streamed (default from {} KiB)", default >> 10),
            n,
            24 * n,
            "plain stores",
            &mut || {
                set_stream_min(1);
                a.add_into(&b, black_box(&mut out)).unwrap();
            },
            &mut || {
                set_stream_min(usize::MAX);
                a.add_into(&b, black_box(&mut out2)).unwrap();
            },
        );
        set_stream_min(default);
    }
}
