//! The outputs drawn from a run's rows after the fact: reading a saved `--json` run
//! (`--from`), and the markdown tables `--markdown` writes into a marked region of
//! a document (docs/perf.md), so the published figures come from the tool's JSON,
//! never typed by hand.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// A row as `--json` writes it, read back. A row with `engine` comes from another
/// program (benches/peers' `PEERS_JSON`): only `op`, `n`, `threads` and `rate` are
/// needed for those, and they are drawn in the GEMM chart only.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq)]
pub struct Saved {
    /// Absent for ndsimd's own rows; "faer", "OpenBLAS", ... for a peer's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    #[serde(default)]
    pub family: String,
    pub op: String,
    pub n: usize,
    pub threads: usize,
    #[serde(default)]
    pub ns_per_op: f64,
    #[serde(default)]
    pub spread_pct: f64,
    pub rate: f64,
    #[serde(default)]
    pub rate_unit: String,
    #[serde(default)]
    pub anchor: String,
    #[serde(default)]
    pub anchor_ns: f64,
    #[serde(default)]
    pub ratio: f64,
    #[serde(default)]
    pub limit: Option<String>,
    #[serde(default)]
    pub verdict: String,
    #[serde(default)]
    pub numpy_ratio: Option<f64>,
}

impl Saved {
    /// NumPy's rate on this row's work: ours over NumPy's time ratio (`numpy_ratio`
    /// is NumPy's time over ours).
    pub fn numpy_rate(&self) -> Option<f64> {
        self.numpy_ratio
            .filter(|&r| r > 0.0 && r.is_finite())
            .map(|r| self.rate / r)
    }

    /// NumPy's nanoseconds per call (see [`Saved::numpy_rate`]).
    pub fn numpy_ns(&self) -> Option<f64> {
        self.numpy_ratio
            .filter(|&r| r > 0.0 && r.is_finite())
            .map(|r| self.ns_per_op * r)
    }
}

/// Reads a saved run: one JSON object a line (blank lines skipped), as `--json`
/// prints them; `Err` names the file and line of the first bad one.
pub fn load(path: &Path) -> Result<Vec<Saved>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row: Saved = serde_json::from_str(line).map_err(|e| {
            format!(
                "{}:{}: not a row of `ndsimd bench --json`: {e}",
                path.display(),
                i + 1
            )
        })?;
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(format!("{}: no rows", path.display()));
    }
    Ok(rows)
}

/// The first line of the region `--markdown` rewrites.
pub const BEGIN: &str = "<!-- BEGIN ndsimd bench";
/// The last line of that region.
pub const END: &str = "<!-- END ndsimd bench -->";

/// The families the tables cover, in this order (the maintainers' "diagnostics"
/// rows are left out).
const FAMILIES: [&str; 7] = [
    "matrix products",
    "transcendental",
    "elementwise",
    "reductions",
    "axis reductions",
    "pool scaling",
    "scan",
];

/// `1024` → `1Ki`, `4194304` → `4Mi`: element counts and sizes as the tables show
/// them (exact multiples of 1024 only; anything else as it is).
pub fn count(n: usize) -> String {
    for (shift, unit) in [(30, "Gi"), (20, "Mi"), (10, "Ki")] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{}{unit}", n >> shift);
        }
    }
    n.to_string()
}

/// Three significant digits, no exponent: `0.312`, `52.1`, `1234`.
fn num(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// A time in nanoseconds with its unit: `40.0 ns`, `5.00 µs`, `300 µs`, `3.00 ms`.
fn time(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{} ms", num(ns / 1e6))
    } else if ns >= 1e3 {
        format!("{} µs", num(ns / 1e3))
    } else {
        format!("{} ns", num(ns))
    }
}

/// The markdown tables of `rows` (ndsimd's own; peer rows are left out), one per
/// family present, with `charts` (title, path relative to the document) embedded
/// first and `caption` under the first line, which names `command`.
pub fn markdown(
    rows: &[Saved],
    caption: &str,
    command: &str,
    charts: &[(String, String)],
) -> String {
    let mut s = String::new();
    s += &format!("{BEGIN}: written by `{command}`; edits inside are overwritten -->\n");
    if !caption.is_empty() {
        s += &format!("\n{caption}\n");
    }
    for (title, path) in charts {
        s += &format!("\n![{title}]({path})\n");
    }
    let ours: Vec<&Saved> = rows.iter().filter(|r| r.engine.is_none()).collect();
    let compare = ours.iter().any(|r| r.numpy_ratio.is_some());
    for family in FAMILIES {
        let fam: Vec<&&Saved> = ours.iter().filter(|r| r.family == family).collect();
        if fam.is_empty() {
            continue;
        }
        s += &format!("\n**{family}**\n\n");
        s += "| op | n | threads | time/op | rate | against | ratio |";
        s += if compare { " NumPy/ours |\n" } else { "\n" };
        s += "|---|--:|--:|--:|--:|---|--:|";
        s += if compare { "--:|\n" } else { "\n" };
        for r in fam {
            let against = r.limit.clone().unwrap_or_else(|| r.anchor.clone());
            let ratio = match r.limit {
                Some(_) => format!("{:.0}%", r.ratio * 100.0),
                None => format!("{:.2}x", r.ratio),
            };
            s += &format!(
                "| {} | {} | {} | {} | {} {} | {} | {} |",
                r.op,
                count(r.n),
                r.threads,
                time(r.ns_per_op),
                num(r.rate),
                r.rate_unit,
                against,
                ratio
            );
            if compare {
                s += &match r.numpy_ratio {
                    Some(x) => format!(" {x:.2} |\n"),
                    None => " - |\n".to_string(),
                };
            } else {
                s += "\n";
            }
        }
    }
    s += &format!("\n{END}\n");
    s
}

/// `doc` with its region (from the line starting with [`BEGIN`] to the line
/// [`END`], both included) replaced by `region`; `Err` when the markers are
/// missing, repeated or out of order.
pub fn splice(doc: &str, region: &str) -> Result<String, String> {
    let lines: Vec<&str> = doc.split_inclusive('\n').collect();
    let begins: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with(BEGIN))
        .collect();
    let ends: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim_end() == END)
        .collect();
    match (begins.as_slice(), ends.as_slice()) {
        ([b], [e]) if b < e => {
            let mut out: String = lines[..*b].concat();
            out += region;
            out += &lines[e + 1..].concat();
            Ok(out)
        }
        ([], _) | (_, []) => Err(format!(
            "has no region to rewrite: put a line starting with '{BEGIN}' and, below it, a line '{END}' where the tables go"
        )),
        _ => Err(format!(
            "needs exactly one line starting with '{BEGIN}' above exactly one line '{END}'"
        )),
    }
}

/// Rewrites the region of the document at `path` (see [`splice`]): the new text
/// goes to a temporary file beside it, renamed over it, so a failure leaves the
/// document as it was.
pub fn rewrite(path: &Path, region: &str) -> Result<(), String> {
    let doc = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let new = splice(&doc, region).map_err(|e| format!("{} {e}", path.display()))?;
    let tmp = path.with_extension("md.ndsimd-tmp");
    std::fs::write(&tmp, new)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("{}: {e}", path.display())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_numbers() {
        assert_eq!(count(1024), "1Ki");
        assert_eq!(count(4 << 20), "4Mi");
        assert_eq!(count(1000), "1000");
        assert_eq!(count(1536), "1536");
        assert_eq!(num(0.3125), "0.312");
        assert_eq!(num(52.14), "52.1");
        assert_eq!(num(1234.4), "1234");
        assert_eq!(time(40.0), "40.0 ns");
        assert_eq!(time(5000.0), "5.00 µs");
        assert_eq!(time(3e6), "3.00 ms");
    }

    #[test]
    fn splice_keeps_the_prose_around() {
        let doc = format!("intro\n{BEGIN} old -->\nold\n{END}\noutro\n");
        let new = splice(&doc, &format!("{BEGIN} -->\nnew\n{END}\n")).unwrap();
        assert_eq!(new, format!("intro\n{BEGIN} -->\nnew\n{END}\noutro\n"));
        assert!(splice("intro\n", "x").unwrap_err().contains("no region"));
        let twice = format!("{BEGIN}\n{END}\n{BEGIN}\n{END}\n");
        assert!(splice(&twice, "x").unwrap_err().contains("exactly one"));
        let reversed = format!("{END}\n{BEGIN}\n");
        assert!(splice(&reversed, "x").unwrap_err().contains("exactly one"));
    }
}
