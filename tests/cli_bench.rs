//! `ndsimd bench`: the `--json` rows' schema and the table's form, on a couple of
//! quick rows.

use std::process::{Command, Output};

fn ndsimd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ndsimd"))
        .args(args)
        .env("NDSIMD_NUM_THREADS", "2")
        .output()
        .expect("the ndsimd binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every stdout line is one JSON object with the stable field names and types.
#[test]
fn bench_json_rows_have_the_stable_fields() {
    let o = ndsimd(&[
        "bench",
        "--quick",
        "--json",
        "--filter",
        "f32 sum|f32 add_into",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    // Two sizes each, on one thread.
    assert_eq!(rows.len(), 4, "{out}");
    for r in &rows {
        let obj = r.as_object().unwrap();
        let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "anchor",
                "anchor_ns",
                "family",
                "fraction_of_limit",
                "limit",
                "n",
                "ns_per_op",
                "op",
                "rate",
                "rate_unit",
                "ratio",
                "spread_pct",
                "threads",
                "verdict"
            ],
            "{r}"
        );
        for k in ["ns_per_op", "spread_pct", "rate", "anchor_ns", "ratio"] {
            assert!(r[k].as_f64().is_some_and(|x| x >= 0.0), "{k}: {r}");
        }
        assert!(r["n"].as_u64().is_some() && r["threads"] == 1, "{r}");
        assert_eq!(r["rate_unit"], "GB/s");
        assert_eq!(r["anchor"], "ceiling");
        assert_eq!(r["fraction_of_limit"], r["ratio"]);
        let (family, limit) = match r["op"].as_str().unwrap() {
            "f32 sum" => ("reductions", "read bw"),
            "f32 add_into" => ("elementwise", "copy bw"),
            other => panic!("unexpected row {other}"),
        };
        assert_eq!(r["family"], family, "{r}");
        assert!(r["limit"].as_str().unwrap().ends_with(limit), "{r}");
        assert!(!r["verdict"].as_str().unwrap().is_empty());
    }
}

/// The table: a heading per family, a verdict column, a summary line per family,
/// and no maintainers' notes (those are --verbose's).
#[test]
fn bench_table_groups_rows_per_family() {
    let o = ndsimd(&["bench", "--quick", "--filter", "f32 sum|f32 add_into"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    let at = |h: &str| {
        lines
            .iter()
            .position(|l| *l == h)
            .unwrap_or_else(|| panic!("{out}"))
    };
    assert!(at("elementwise") < at("reductions"), "{out}");
    assert!(lines[at("reductions") + 1].starts_with("op ") && out.contains("verdict"));
    assert!(out.contains("rows at their limit"), "{out}");
    assert!(!out.contains("check its code"), "{out}");
    // Piped: a plain progress log on stderr, one line per row.
    let err = text(&o.stderr);
    assert_eq!(err.matches("bench [").count(), 4, "{err}");
}

/// `--compare` checks NumPy's answer before timing: with a wrong answer planted on
/// NumPy's side the run stops with status 2 and says which row; without NumPy, it
/// says how to install it.
#[test]
fn bench_compare_refuses_a_wrong_answer() {
    let numpy = Command::new("python3")
        .args(["-c", "import numpy"])
        .status()
        .is_ok_and(|s| s.success());
    let run = |plant: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ndsimd"));
        c.args(["bench", "--quick", "--compare", "--rounds", "2", "--json"])
            .args(["--filter", "f32 sum"]);
        if plant {
            c.env("NDSIMD_COMPARE_PLANT", "1");
        }
        c.output().unwrap()
    };
    let o = run(true);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    if !numpy {
        assert!(text(&o.stderr).contains("pip install numpy"));
        return;
    }
    assert!(
        text(&o.stderr).contains("NumPy's answer for f32 sum 1024 differs from ours")
            && text(&o.stderr).contains("refusing to time it"),
        "{}",
        text(&o.stderr)
    );
    // The same rows with NumPy's true answer: timed, with its ratio.
    let o = run(false);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    for line in text(&o.stdout).lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(r["numpy_ratio"].as_f64().is_some_and(|x| x > 0.0), "{r}");
        assert!(r["numpy_spread_pct"].as_f64().is_some(), "{r}");
    }
}
