//! `ndsimd bench --svg DIR`: one SVG chart per op family, drawn with plotters (its
//! SVG backend only), and an `index.html` in DIR showing them.
//!
//! - `gemm.svg`: GFLOP/s against the side n of square `matmul f64`, ndsimd at each
//!   thread count of the run, NumPy (OpenBLAS) on one thread when `--compare` ran,
//!   and the Rust peers when their rows (benches/peers, `PEERS_JSON`) are given.
//! - `memory.svg`: GB/s against the bytes one call moves, for the memory-bound ops
//!   on one thread, with the L1/L2/L3 sizes of `ndsimd_kernels::cache_info` marked.
//! - `math.svg`: nanoseconds per element of exp and log, ours beside NumPy's and a
//!   plain loop of Rust's `f64::exp`/`ln`.
//! - `scan.svg`: GB/s of the in-memory scan kernels at each thread count, beside
//!   the read ceiling of the same run.

use super::report::{count, Saved};
use plotters::coord::combinators::IntoLogRange;
use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// The chart size in pixels (SVG user units).
const SIZE: (u32, u32) = (900, 540);

/// Series colours, in order: ndsimd's first.
const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// One line of a line chart.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// A limit or reference (a dashed line), not a measured engine.
    pub dashed: bool,
}

/// Checks before a run that `dir` can take the charts: creates it if missing and
/// writes (then removes) a probe file, so a bad DIR fails in a second, not after
/// a minute of measuring.
pub fn prepare_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let probe = dir.join(".ndsimd-write-probe");
    std::fs::write(&probe, b"").map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes every chart `rows` have data for, and `index.html`; returns the charts
/// written as (title, file name). `caches`: (L1d, L2, L3) bytes.
pub fn write_all(
    dir: &Path,
    rows: &[Saved],
    caches: (usize, usize, usize),
    source: &str,
) -> Result<Vec<(String, String)>, String> {
    let mut written = Vec::new();
    type Chart = fn(&Path, &[Saved], (usize, usize, usize)) -> Result<bool, String>;
    let charts: [(&str, &str, Chart); 4] = [
        ("Matrix products: GFLOP/s against n", "gemm.svg", gemm),
        (
            "Memory-bound ops: GB/s against the bytes a call moves",
            "memory.svg",
            memory,
        ),
        ("exp and log: ns per element", "math.svg", math),
        ("In-memory scans: GB/s", "scan.svg", scan),
    ];
    for (title, file, draw) in charts {
        if draw(&dir.join(file), rows, caches)? {
            written.push((title.to_string(), file.to_string()));
        }
    }
    let mut html = String::from(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ndsimd bench</title>\n\
         <style>body{font-family:sans-serif;max-width:960px;margin:auto}img{width:100%}</style>\n\
         </head><body>\n<h1>ndsimd bench</h1>\n",
    );
    html += &format!("<p>Rows from {}.</p>\n", escape(source));
    if written.is_empty() {
        html += "<p>No row of this run has a chart (see <code>--filter</code>).</p>\n";
    }
    for (title, file) in &written {
        html += &format!(
            "<figure><img src=\"{file}\" alt=\"{t}\"><figcaption>{t}</figcaption></figure>\n",
            t = escape(title)
        );
    }
    html += "</body></html>\n";
    let index = dir.join("index.html");
    std::fs::write(&index, html).map_err(|e| format!("{}: {e}", index.display()))?;
    Ok(written)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn threads_name(t: usize) -> String {
    if t == 1 {
        "1 thread".to_string()
    } else {
        format!("{t} threads")
    }
}

/// Square `matmul f64`: ndsimd per thread count, NumPy (one thread), the peers, and
/// the FMA peak measured on one thread (the fastest of the rows' anchors: other load
/// only slows a sample, so the fastest is the closest to the machine's peak).
fn gemm(path: &Path, rows: &[Saved], _: (usize, usize, usize)) -> Result<bool, String> {
    let square = |r: &&Saved| r.op == "matmul f64" && r.rate > 0.0;
    let mut series: Vec<Series> = Vec::new();
    let mut threads: Vec<usize> = rows
        .iter()
        .filter(square)
        .filter(|r| r.engine.is_none())
        .map(|r| r.threads)
        .collect();
    threads.sort_unstable();
    threads.dedup();
    for &t in &threads {
        series.push(Series {
            name: format!("ndsimd, {}", threads_name(t)),
            points: points(
                rows.iter()
                    .filter(square)
                    .filter(|r| r.engine.is_none() && r.threads == t),
                |r| Some((r.n as f64, r.rate)),
            ),
            dashed: false,
        });
    }
    let numpy = points(
        rows.iter().filter(square).filter(|r| r.engine.is_none()),
        |r| r.numpy_rate().map(|g| (r.n as f64, g)),
    );
    if !numpy.is_empty() {
        series.push(Series {
            name: "NumPy (OpenBLAS), 1 thread".to_string(),
            points: numpy,
            dashed: false,
        });
    }
    let mut peers: Vec<(String, usize)> = rows
        .iter()
        .filter(square)
        .filter_map(|r| r.engine.clone().map(|e| (e, r.threads)))
        .collect();
    peers.sort();
    peers.dedup();
    for (engine, t) in peers {
        series.push(Series {
            name: format!("{engine}, {}", threads_name(t)),
            points: points(
                rows.iter()
                    .filter(square)
                    .filter(|r| r.engine.as_deref() == Some(&engine) && r.threads == t),
                |r| Some((r.n as f64, r.rate)),
            ),
            dashed: false,
        });
    }
    let peaks: Vec<f64> = rows
        .iter()
        .filter(square)
        .filter(|r| r.engine.is_none() && r.threads == 1 && r.anchor == "peak")
        .map(|r| r.rate / r.ratio)
        .filter(|p| p.is_finite() && *p > 0.0)
        .collect();
    if !peaks.is_empty() {
        let peak = peaks.iter().cloned().fold(0.0, f64::max);
        let xs: Vec<f64> = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .collect();
        let (lo, hi) = (
            xs.iter().cloned().fold(f64::INFINITY, f64::min),
            xs.iter().cloned().fold(0.0, f64::max),
        );
        series.push(Series {
            name: "FMA peak, 1 thread (fastest measured)".to_string(),
            points: vec![(lo, peak), (hi, peak)],
            dashed: true,
        });
    }
    if series.iter().all(|s| s.points.is_empty()) {
        return Ok(false);
    }
    line_chart(
        path,
        "Square matmul f64: GFLOP/s against n",
        "n (an n x n by n x n product)",
        "GFLOP/s",
        &series,
        &[],
        |x| format!("{x:.0}"),
    )?;
    Ok(true)
}

/// Points of `rows` sorted by x.
fn points<'a>(
    rows: impl Iterator<Item = &'a Saved>,
    f: impl Fn(&Saved) -> Option<(f64, f64)>,
) -> Vec<(f64, f64)> {
    let mut p: Vec<(f64, f64)> = rows.filter_map(f).collect();
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    p
}

/// The memory-bound ops drawn, when the run has them: f64, one thread, each timed
/// against the read or copy ceiling.
const MEMORY_OPS: [&str; 8] = [
    "add_into",
    "mul_into",
    "div_into",
    "sqrt_into",
    "abs_into",
    "sum",
    "max",
    "argmax",
];

/// GB/s against the bytes one call moves (rate × time), the ceilings of the same
/// run dashed, the cache sizes as vertical lines.
fn memory(path: &Path, rows: &[Saved], caches: (usize, usize, usize)) -> Result<bool, String> {
    let ours = |op: &'static str| {
        move |r: &&Saved| {
            r.engine.is_none()
                && r.op == op
                && r.threads == 1
                && r.rate_unit == "GB/s"
                && r.anchor.starts_with("ceiling")
                && r.ns_per_op > 0.0
        }
    };
    // Bytes moved per call: GB/s × ns.
    let bytes = |r: &Saved| r.rate * r.ns_per_op;
    let mut series = Vec::new();
    for op in MEMORY_OPS {
        let p = points(rows.iter().filter(ours(op)), |r| Some((bytes(r), r.rate)));
        if !p.is_empty() {
            series.push(Series {
                name: op.to_string(),
                points: p,
                dashed: false,
            });
        }
    }
    if series.is_empty() {
        return Ok(false);
    }
    // The anchors' own rate: the same bytes over the ceiling loop's time.
    for (op, name) in [("add_into", "copy ceiling"), ("sum", "read ceiling")] {
        let p = points(rows.iter().filter(ours(op)), |r| {
            (r.anchor_ns > 0.0).then(|| (bytes(r), bytes(r) / r.anchor_ns))
        });
        if !p.is_empty() {
            series.push(Series {
                name: name.to_string(),
                points: p,
                dashed: true,
            });
        }
    }
    let (l1, l2, l3) = caches;
    let marks = [
        (format!("L1d {}", count(l1) + "B"), l1 as f64),
        (format!("L2 {}", count(l2) + "B"), l2 as f64),
        (format!("L3 {}", count(l3) + "B"), l3 as f64),
    ];
    line_chart(
        path,
        "Memory-bound ops, 1 thread: GB/s against the bytes a call moves",
        "bytes read and written per call",
        "GB/s",
        &series,
        &marks,
        |x| count(*x as usize) + "B",
    )?;
    Ok(true)
}

/// Nanoseconds per element of the exp/log rows: ours, NumPy's, the std loop's.
fn math(path: &Path, rows: &[Saved], _: (usize, usize, usize)) -> Result<bool, String> {
    let picked: Vec<&Saved> = rows
        .iter()
        .filter(|r| {
            r.engine.is_none()
                && r.family == "transcendental"
                && (r.op.contains("exp") || r.op.contains("log"))
                && r.n > 0
        })
        .collect();
    if picked.is_empty() {
        return Ok(false);
    }
    let groups: Vec<String> = picked
        .iter()
        .map(|r| format!("{} {}", r.op.trim_end_matches("_into"), count(r.n)))
        .collect();
    let per = |ns: f64, r: &Saved| ns / r.n as f64;
    let mut series = vec![(
        "ndsimd".to_string(),
        picked
            .iter()
            .map(|r| Some(per(r.ns_per_op, r)))
            .collect::<Vec<_>>(),
    )];
    if picked.iter().any(|r| r.numpy_ratio.is_some()) {
        series.push((
            "NumPy".to_string(),
            picked
                .iter()
                .map(|r| r.numpy_ns().map(|ns| per(ns, r)))
                .collect(),
        ));
    }
    series.push((
        "Rust std loop".to_string(),
        picked
            .iter()
            .map(|r| (r.anchor == "std loop").then(|| per(r.anchor_ns, r)))
            .collect(),
    ));
    bar_chart(
        path,
        "exp and log, 1 thread: ns per element (lower is faster)",
        "ns per element",
        &groups,
        &series,
    )?;
    Ok(true)
}

/// The scan kernels' GB/s per thread count, and the read ceiling's.
fn scan(path: &Path, rows: &[Saved], _: (usize, usize, usize)) -> Result<bool, String> {
    let picked: Vec<&Saved> = rows
        .iter()
        .filter(|r| r.engine.is_none() && r.family == "scan" && r.rate_unit == "GB/s")
        .collect();
    if picked.is_empty() {
        return Ok(false);
    }
    let mut groups: Vec<(String, usize)> = picked.iter().map(|r| (r.op.clone(), r.n)).collect();
    groups.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    groups.dedup();
    let mut threads: Vec<usize> = picked.iter().map(|r| r.threads).collect();
    threads.sort_unstable();
    threads.dedup();
    let find = |op: &str, n: usize, t: usize| {
        picked
            .iter()
            .find(|r| r.op == op && r.n == n && r.threads == t)
            .copied()
    };
    let mut series = Vec::new();
    for &t in &threads {
        series.push((
            format!("ndsimd, {}", threads_name(t)),
            groups
                .iter()
                .map(|(op, n)| find(op, *n, t).map(|r| r.rate))
                .collect(),
        ));
    }
    for &t in &threads {
        series.push((
            format!("read ceiling, {}", threads_name(t)),
            groups
                .iter()
                .map(|(op, n)| {
                    find(op, *n, t)
                        .filter(|r| r.anchor_ns > 0.0)
                        .map(|r| r.rate * r.ns_per_op / r.anchor_ns)
                })
                .collect(),
        ));
    }
    let names: Vec<String> = groups
        .iter()
        .map(|(op, n)| format!("{} {}B", op.trim_end_matches("_in"), count(*n)))
        .collect();
    bar_chart(
        path,
        "In-memory scans: GB/s (higher is faster)",
        "GB/s",
        &names,
        &series,
    )?;
    Ok(true)
}

fn err(path: &Path) -> impl Fn(String) -> String + '_ {
    move |e| format!("{}: {e}", path.display())
}

/// A line chart, x logarithmic, y from 0; `marks`: labelled vertical lines.
fn line_chart(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Series],
    marks: &[(String, f64)],
    x_fmt: fn(&f64) -> String,
) -> Result<(), String> {
    let e = err(path);
    let xs = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .chain(marks.iter().map(|m| m.1));
    let (x0, x1) = xs.fold((f64::INFINITY, 0.0f64), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    let y1 = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max)
        * 1.15;
    let (x0, x1) = (x0.max(1e-9) / 1.5, x1.max(x0) * 1.5);
    let y1 = if y1 > 0.0 { y1 } else { 1.0 };
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(x.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(60)
        .build_cartesian_2d((x0..x1).log_scale().base(2.0), 0.0..y1)
        .map_err(|x| e(x.to_string()))?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&x_fmt)
        .draw()
        .map_err(|x| e(x.to_string()))?;
    for (label, x) in marks {
        let grey = RGBColor(150, 150, 150);
        chart
            .draw_series(DashedLineSeries::new(
                vec![(*x, 0.0), (*x, y1)],
                6,
                4,
                grey.stroke_width(1),
            ))
            .map_err(|x| e(x.to_string()))?;
        chart
            .draw_series(std::iter::once(Text::new(
                label.clone(),
                (*x * 1.05, y1 * 0.97),
                ("sans-serif", 13).into_font().color(&grey),
            )))
            .map_err(|x| e(x.to_string()))?;
    }
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let style = colour.stroke_width(2);
        let drawn = if s.dashed {
            chart.draw_series(DashedLineSeries::new(s.points.clone(), 8, 5, style))
        } else {
            chart.draw_series(LineSeries::new(s.points.clone(), style))
        }
        .map_err(|x| e(x.to_string()))?;
        drawn.label(&s.name).legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
        });
        if !s.dashed {
            chart
                .draw_series(s.points.iter().map(|&p| Circle::new(p, 3, colour.filled())))
                .map_err(|x| e(x.to_string()))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|x| e(x.to_string()))?;
    root.present().map_err(|x| e(x.to_string()))
}

/// A grouped bar chart: one group per name in `groups`, one bar per series
/// (a missing value leaves a gap).
fn bar_chart(
    path: &Path,
    title: &str,
    y_desc: &str,
    groups: &[String],
    series: &[(String, Vec<Option<f64>>)],
) -> Result<(), String> {
    let e = err(path);
    let y1 = series
        .iter()
        .flat_map(|s| s.1.iter().flatten())
        .fold(0.0f64, |a, &b| a.max(b))
        * 1.3;
    let y1 = if y1 > 0.0 { y1 } else { 1.0 };
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(x.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(Groups(groups.to_vec()), 0.0..y1)
        .map_err(|x| e(x.to_string()))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .y_desc(y_desc)
        .draw()
        .map_err(|x| e(x.to_string()))?;
    let width = 0.8 / series.len().max(1) as f64;
    for (j, (name, values)) in series.iter().enumerate() {
        let colour = COLOURS[j % COLOURS.len()];
        let bars = values.iter().enumerate().filter_map(|(i, v)| {
            v.map(|v| {
                let x = i as f64 - 0.4 + j as f64 * width;
                Rectangle::new([(x, 0.0), (x + width * 0.9, v)], colour.filled())
            })
        });
        chart
            .draw_series(bars)
            .map_err(|x| e(x.to_string()))?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|x| e(x.to_string()))?;
    root.present().map_err(|x| e(x.to_string()))
}

/// The x axis of a bar chart: group `i` centred on `i`, labelled with its name
/// (plotters' own f64 axes put ticks at round numbers, not at the groups).
struct Groups(Vec<String>);

impl Ranged for Groups {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.0.len().max(1) as f64;
        let t = (value + 0.5) / span;
        limit.0 + (t * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, _: Hint) -> Vec<f64> {
        (0..self.0.len()).map(|i| i as f64).collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        -0.5..self.0.len() as f64 - 0.5
    }
}

impl ValueFormatter<f64> for Groups {
    fn format_ext(&self, value: &f64) -> String {
        let i = value.round();
        if (value - i).abs() < 1e-6 && i >= 0.0 {
            self.0.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    }
}

/// The charts' directory relative to `doc`'s directory, for the markdown's image
/// links (as given when no relative path is found).
pub fn relative_to(doc: &Path, dir: &Path) -> PathBuf {
    let base = doc.parent().unwrap_or(Path::new(""));
    let (Ok(base), Ok(dir)) = (std::path::absolute(base), std::path::absolute(dir)) else {
        return dir.to_path_buf();
    };
    let (b, d): (Vec<_>, Vec<_>) = (base.components().collect(), dir.components().collect());
    let common = b.iter().zip(&d).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &d[common..] {
        out.push(c);
    }
    out
}
