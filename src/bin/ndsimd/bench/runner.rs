//! Timing one row (ours and its anchor interleaved), judging it against the limit
//! its anchor stands for, the progress on stderr, and the output: a table per op
//! family at the end, or one JSON object per row as it is measured.

use super::compare::NumPy;
use super::BenchArgs;
use serde::Serialize;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Which table function is running: with the op's name it sets the row's family.
#[derive(Clone, Copy, PartialEq)]
pub enum Section {
    Single,
    Pool,
    Gemm,
    Scan,
}

/// The families, in the order the table prints them.
const FAMILIES: [&str; 8] = [
    "elementwise",
    "transcendental",
    "reductions",
    "axis reductions",
    "matrix products",
    "pool scaling",
    "scan",
    "diagnostics",
];

/// Rows for maintainers (what alignment, streaming stores, the hand-off cost):
/// timed with `--verbose` only.
const DIAGNOSTIC: [&str; 4] = [
    "sum aligned",
    "add_into aligned",
    "add_into streamed",
    "pool split sum",
];

/// A `ceiling` anchor faster than the op by more than this is not a ceiling (the
/// AVX-512 f64 read loop once compiled to gathers and ran 7-10x slow).
const CEILING_SUSPECT: f64 = 1.5;

/// One row, as `--json` prints it (the field names are stable).
#[derive(Serialize, Clone)]
pub struct Row {
    /// "elementwise", "reductions", "axis reductions", "matrix products", "pool
    /// scaling", "scan" or "diagnostics".
    pub family: &'static str,
    pub op: String,
    /// Elements (bytes for the scans; the matrix side for products).
    pub n: usize,
    pub threads: usize,
    pub ns_per_op: f64,
    /// Half the range of our samples over the median, in percent.
    pub spread_pct: f64,
    /// In `rate_unit`: GB/s, or GFLOP/s for matrix products.
    pub rate: f64,
    pub rate_unit: &'static str,
    /// What ours is timed against ("ceiling", "ceiling×2", "peak", "collect", ...).
    pub anchor: String,
    pub anchor_ns: f64,
    /// Anchor time over ours (above 1: ours is faster).
    pub ratio: f64,
    /// The machine limit the anchor measures ("L2 read bw", "memory copy bw", "FMA
    /// peak"); null when the anchor is a comparison, not a limit.
    pub limit: Option<String>,
    /// `ratio` when `limit` is set (the fraction of that limit reached).
    pub fraction_of_limit: Option<f64>,
    pub verdict: String,
    /// NumPy's median time over ours across the `--compare` rounds; absent without
    /// `--compare` or for a row NumPy has no equivalent of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numpy_ratio: Option<f64>,
    /// Half the range of the per-round ratios over their median, in percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numpy_spread_pct: Option<f64>,
}

pub struct Runner {
    samples: usize,
    filter: Option<String>,
    pub verbose: bool,
    json: bool,
    section: Section,
    threads: usize,
    /// The dry pass: `wants` counts the rows it would run and runs none.
    counting: bool,
    count: u64,
    progress: Option<indicatif::ProgressBar>,
    done: u64,
    rows: Vec<Row>,
    notes: Vec<String>,
    pub numpy: Option<NumPy>,
    /// Cache sizes: which level a row's data fits in.
    cache: (usize, usize, usize),
    /// The first error met (a --compare answer that differs): the run stops there.
    pub error: Option<String>,
}

fn sample(reps: usize, f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_secs_f64() / reps as f64
}

/// Repetitions so that one sample lasts about `target`.
pub fn calibrate(f: &mut dyn FnMut(), target: Duration) -> usize {
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

pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Half the range of `v` over `mid`, in percent.
pub fn spread(v: &[f64], mid: f64) -> f64 {
    let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = v.iter().cloned().fold(0.0, f64::max);
    (hi - lo) / mid / 2.0 * 100.0
}

impl Runner {
    pub fn new(args: &BenchArgs, numpy: Option<NumPy>) -> Runner {
        let c = ndsimd::info().cache;
        Runner {
            samples: if args.quick { 5 } else { 11 },
            filter: args.filter.clone(),
            verbose: args.verbose,
            json: args.json,
            section: Section::Single,
            threads: 1,
            counting: true,
            count: 0,
            progress: None,
            done: 0,
            rows: Vec::new(),
            notes: Vec::new(),
            numpy,
            cache: (c.l1d, c.l2, c.l3),
            error: None,
        }
    }

    /// Ends the dry pass: the rows are counted; the progress starts.
    pub fn start(&mut self) {
        self.counting = false;
        if !self.json {
            let info = ndsimd::info();
            let (l1, l2, l3) = self.cache;
            outln!(
                "ndsimd {} bench: tier {} (detected {}), {} thread(s) in the pool; caches L1 {} KiB, L2 {} KiB, L3 {} MiB",
                info.version,
                info.active_tier,
                info.detected_tier,
                ndsimd::num_threads(),
                l1 >> 10,
                l2 >> 10,
                l3 >> 20
            );
        }
        if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(self.count);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} rows, eta {eta}  {wide_msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            self.progress = Some(bar);
        }
    }

    pub fn set_section(&mut self, section: Section, threads: usize) {
        self.section = section;
        self.threads = threads;
    }

    /// Whether the filter (`|`-separated alternatives) selects a row, and a
    /// maintainers' row is asked for. In the dry pass: counts it and says no.
    pub fn wants(&mut self, name: &str) -> bool {
        if self.error.is_some() {
            return false;
        }
        let diagnostic = DIAGNOSTIC.iter().any(|d| name.starts_with(d));
        let selected = (self.verbose || !diagnostic)
            && self
                .filter
                .as_deref()
                .is_none_or(|f| f.split('|').any(|alt| name.contains(alt)));
        if self.counting {
            self.count += selected as u64;
            return false;
        }
        selected
    }

    fn family(&self, op: &str, anchor: &str) -> &'static str {
        let op = op.strip_prefix("f32 ").unwrap_or(op);
        if DIAGNOSTIC.iter().any(|d| op.starts_with(d))
            || matches!(anchor, "into" | "+16 B" | "plain stores" | "half inline")
        {
            return "diagnostics";
        }
        if anchor == "std loop" {
            return "transcendental";
        }
        match self.section {
            Section::Gemm => "matrix products",
            Section::Scan => "scan",
            _ if op.contains("_axis") => "axis reductions",
            Section::Pool => "pool scaling",
            Section::Single => {
                if ["sum", "max", "min", "argmax", "dot", "row view sum"].contains(&op) {
                    "reductions"
                } else {
                    "elementwise"
                }
            }
        }
    }

    /// The cache level `bytes` (all threads together) fit in.
    fn level(&self, bytes: usize) -> &'static str {
        let per_thread = bytes / self.threads.max(1);
        let (l1, l2, l3) = self.cache;
        if per_thread <= l1 {
            "L1"
        } else if per_thread <= l2 {
            "L2"
        } else if bytes <= l3 {
            "L3"
        } else {
            "memory"
        }
    }

    /// The limit a row's anchor measures (None: a comparison) and its verdict.
    fn judge(&self, op: &str, anchor: &str, bytes: usize, ratio: f64) -> (Option<String>, String) {
        let times = |r: f64| {
            if r >= 1.1 {
                format!("{r:.1}x faster than")
            } else if r >= 0.9 {
                "as fast as".to_string()
            } else {
                format!("{:.1}x slower than", 1.0 / r)
            }
        };
        let pct = (ratio * 100.0).round();
        if anchor.starts_with("ceiling") {
            let reads_only = [
                "sum",
                "max",
                "min",
                "argmax",
                "dot",
                "count_byte",
                "find_nonzero",
                "matvec",
            ]
            .iter()
            .any(|w| op.contains(w));
            let level = self.level(bytes);
            let limit = format!("{level} {} bw", if reads_only { "read" } else { "copy" });
            let compute_bound = op.contains("div") || op.contains("sqrt");
            let verdict = if ratio > CEILING_SUSPECT {
                "faster than the plain loop (the loop is no tight limit here)".to_string()
            } else if ratio >= 0.9 {
                format!("at the {level} bandwidth limit")
            } else if ratio >= 0.7 {
                format!("near the {level} bandwidth limit")
            } else if compute_bound {
                "bound by the divide/sqrt unit's throughput, not by memory".to_string()
            } else {
                format!("below the {level} bandwidth limit ({pct}% of it)")
            };
            return (Some(limit), verdict);
        }
        match anchor {
            "peak" => {
                let verdict = if ratio > 1.15 {
                    "above the measured peak: a noisy run (other work on the machine)".to_string()
                } else if ratio >= 0.85 {
                    "near the FMA peak".to_string()
                } else {
                    format!("{pct}% of the FMA peak")
                };
                (Some("FMA peak".to_string()), verdict)
            }
            "collect" => (None, format!("{} iter().map().collect()", times(ratio))),
            "1 thread" if op == "fma all threads" => (
                None,
                format!("{ratio:.1} cores' worth of multiply-adds in this run"),
            ),
            "1 thread" => (
                None,
                if ratio >= 1.1 {
                    format!("{ratio:.2}x the speed of one thread")
                } else {
                    "no faster than one thread (too small to split, or the cores are shared)"
                        .to_string()
                },
            ),
            other => (None, format!("{} the '{other}' form", times(ratio))),
        }
    }

    /// Times `ours` against `anchor`, interleaved, and records a row. `bytes`: what
    /// one call moves (flops for a matrix product).
    pub fn row(
        &mut self,
        op: &str,
        n: usize,
        bytes: usize,
        anchor: &str,
        ours: &mut dyn FnMut(),
        anc: &mut dyn FnMut(),
    ) {
        let family = self.family(op, anchor);
        if family == "diagnostics" && !self.verbose {
            return;
        }
        if let Some(bar) = &self.progress {
            bar.set_message(format!("{op} {n}"));
        } else if !self.json || !std::io::stderr().is_terminal() {
            errln!("bench [{}/{}] {op} {n}", self.done + 1, self.count);
        }
        let target = Duration::from_millis(if self.samples > 5 { 4 } else { 2 });
        let (r1, r2) = (calibrate(ours, target), calibrate(anc, target));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..self.samples {
            a.push(sample(r1, ours));
            b.push(sample(r2, anc));
        }
        let m = median(&mut a.clone());
        let am = median(&mut b);
        let ratio = am / m;
        let (limit, verdict) = self.judge(op, anchor, bytes, ratio);
        if anchor.starts_with("ceiling") && ratio > CEILING_SUSPECT && self.verbose {
            self.notes.push(format!(
                "{op} {n}: the anchor is slower than the op by more than {CEILING_SUSPECT}x: not a ceiling; check its code"
            ));
        }
        let gemm = self.section == Section::Gemm && anchor == "peak";
        let row = Row {
            family,
            op: op.to_string(),
            n,
            threads: self.threads,
            ns_per_op: m * 1e9,
            spread_pct: spread(&a, m),
            rate: bytes as f64 / m / 1e9,
            rate_unit: if gemm || op.starts_with("fma") || op.contains("1000x") {
                "GFLOP/s"
            } else {
                "GB/s"
            },
            anchor: anchor.to_string(),
            anchor_ns: am * 1e9,
            fraction_of_limit: limit.as_ref().map(|_| ratio),
            limit,
            ratio,
            verdict,
            numpy_ratio: None,
            numpy_spread_pct: None,
        };
        self.push(row);
    }

    /// Records `row` (with NumPy's figures under --compare), prints it under --json.
    fn push(&mut self, mut row: Row) {
        if let Some(np) = self.numpy.as_mut() {
            match np.compare(&row, self.samples) {
                Ok(Some((ratio, spread))) => {
                    row.numpy_ratio = Some(ratio);
                    row.numpy_spread_pct = Some(spread);
                }
                Ok(None) => {}
                Err(e) => self.error = Some(e),
            }
        }
        if self.json {
            match serde_json::to_string(&row) {
                Ok(line) => outln!("{line}"),
                Err(e) => errln!("ndsimd bench: cannot write JSON: {e}"),
            }
        }
        self.rows.push(row);
        self.done += 1;
        if let Some(bar) = &self.progress {
            if self.done > bar.length().unwrap_or(0) {
                bar.set_length(self.done);
            }
            bar.set_position(self.done);
        }
    }

    /// The rows measured so far.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// Clears the progress; prints the tables (unless --json). `Err`: the run
    /// stopped on an error.
    pub fn finish(&mut self) -> Result<(), String> {
        if let Some(bar) = self.progress.take() {
            bar.finish_and_clear();
        }
        if !self.json {
            self.print_tables();
        }
        for note in &self.notes {
            errln!("note: {note}");
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn print_tables(&self) {
        let compare = self.numpy.is_some();
        for family in FAMILIES {
            let rows: Vec<&Row> = self.rows.iter().filter(|r| r.family == family).collect();
            if rows.is_empty() {
                continue;
            }
            outln!();
            outln!("{family}");
            outln!(
                "{:<26} {:>8} {:>3} {:>12} {:>7} {:>16}  {:<16} {:>8}{}  verdict",
                "op",
                "n",
                "thr",
                "ns/op",
                "spread",
                "rate",
                "limit",
                "of limit",
                if compare { "     NumPy/ours" } else { "" }
            );
            for r in &rows {
                let (limit, of) = match &r.limit {
                    Some(l) => (l.clone(), format!("{:.0}%", r.ratio * 100.0)),
                    None => (format!("vs {}", r.anchor), format!("{:.2}x", r.ratio)),
                };
                let np = match (compare, r.numpy_ratio, r.numpy_spread_pct) {
                    (false, ..) => String::new(),
                    (true, Some(x), Some(s)) => format!(" {x:>7.2} ±{s:>3.0}%"),
                    (true, ..) => format!(" {:>13}", "-"),
                };
                outln!(
                    "{:<26} {:>8} {:>3} {:>12.1} {:>6.1}% {:>8.2} {:<7}  {:<16} {:>8}{np}  {}",
                    r.op,
                    r.n,
                    r.threads,
                    r.ns_per_op,
                    r.spread_pct,
                    r.rate,
                    r.rate_unit,
                    limit,
                    of,
                    r.verdict
                );
            }
            outln!("  {}", summary(&rows));
        }
        outln!();
        outln!(
            "{} rows. 'of limit': anchor time / ours, the fraction of this machine's limit \
             measured in the same run; 'spread': half the range of the samples over the median.",
            self.rows.len()
        );
    }
}

/// One line on a family's rows: how many reach their limit, and which do not.
fn summary(rows: &[&Row]) -> String {
    let limited: Vec<&&Row> = rows.iter().filter(|r| r.limit.is_some()).collect();
    if limited.is_empty() {
        return format!("{} comparison row(s); see the verdicts", rows.len());
    }
    let at = limited.iter().filter(|r| r.ratio >= 0.9).count();
    let near = limited
        .iter()
        .filter(|r| (0.7..0.9).contains(&r.ratio))
        .count();
    let compute: Vec<_> = limited
        .iter()
        .filter(|r| r.ratio < 0.7 && r.verdict.contains("divide/sqrt"))
        .collect();
    let below: Vec<String> = limited
        .iter()
        .filter(|r| r.ratio < 0.7 && !r.verdict.contains("divide/sqrt"))
        .map(|r| format!("{} {} ({:.0}%)", r.op, r.n, r.ratio * 100.0))
        .collect();
    let mut s = format!(
        "{} of {} rows at their limit (>= 90%), {} near it (70-90%)",
        at,
        limited.len(),
        near
    );
    if !compute.is_empty() {
        s += &format!(", {} bound by the divide/sqrt unit", compute.len());
    }
    if below.is_empty() {
        s += "; none below";
    } else {
        let shown: Vec<_> = below.iter().take(4).cloned().collect();
        s += &format!(
            "; below: {}{}",
            shown.join(", "),
            if below.len() > 4 { ", ..." } else { "" }
        );
    }
    s
}
