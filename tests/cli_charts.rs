//! `ndsimd bench --svg DIR`, `--from FILE` and `--markdown FILE`: the argument
//! checks, the charts drawn from a saved run (tests/data/bench_run.json, which also
//! holds two rows of a peer), and the markdown region written from it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bench_run.json");

fn ndsimd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ndsimd"))
        .args(args)
        .output()
        .expect("the ndsimd binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh, empty directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndsimd-charts-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn svg_without_a_dir_is_a_usage_error() {
    let o = ndsimd(&["bench", "--svg"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("a value is required for '--svg <DIR>'"),
        "{err}"
    );
    // --from alone draws nothing: it needs --svg or --markdown.
    let o = ndsimd(&["bench", "--from", FIXTURE]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--svg <DIR>"),
        "{}",
        text(&o.stderr)
    );
}

/// A DIR that cannot be made (its parent is a file) fails at once with status 2,
/// before any measuring (no progress line on stderr), and says which DIR.
#[test]
fn svg_into_an_unwritable_dir_is_refused_before_measuring() {
    let d = scratch("unwritable");
    let file = d.join("a-file");
    std::fs::write(&file, b"kept").unwrap();
    for dir in [file.join("charts"), file.clone()] {
        let o = ndsimd(&["bench", "--quick", "--filter", "f32 sum", "--svg", s(&dir)]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        let err = text(&o.stderr);
        assert!(
            err.starts_with("ndsimd bench --svg: cannot create ") && err.contains(s(&dir)),
            "{err}"
        );
        assert!(!err.contains("bench ["), "measured before failing: {err}");
        assert!(o.stdout.is_empty());
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"kept");
}

/// The `<text>` contents of an SVG file, which must parse as XML.
fn svg_texts(path: &Path) -> Vec<String> {
    let svg = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&svg)
        .unwrap_or_else(|e| panic!("{}: not XML: {e}", path.display()));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect()
}

/// From the fixture: the four charts and an index showing them; the GEMM chart has
/// one legend entry (series) per engine and thread count, the peer's included.
#[test]
fn svg_from_a_saved_run_has_one_series_per_engine() {
    let d = scratch("from");
    let out = d.join("charts");
    let o = ndsimd(&["bench", "--from", FIXTURE, "--svg", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    for f in ["gemm.svg", "memory.svg", "math.svg", "scan.svg"] {
        assert!(index.contains(&format!("<img src=\"{f}\"")), "{index}");
        svg_texts(&out.join(f));
    }
    let gemm = svg_texts(&out.join("gemm.svg"));
    let mut series: Vec<&str> = gemm
        .iter()
        .map(String::as_str)
        .filter(|t| t.contains("thread"))
        .collect();
    series.sort_unstable();
    assert_eq!(
        series,
        [
            "FMA peak, 1 thread (fastest measured)",
            "NumPy (OpenBLAS), 1 thread",
            "faer, 1 thread",
            "ndsimd, 1 thread",
            "ndsimd, 2 threads",
        ],
        "{gemm:?}"
    );
    // The memory chart marks the three cache levels; exp/log is set beside NumPy.
    let memory = svg_texts(&out.join("memory.svg"));
    for level in ["L1d ", "L2 ", "L3 "] {
        assert_eq!(
            memory.iter().filter(|t| t.starts_with(level)).count(),
            1,
            "{memory:?}"
        );
    }
    let math = svg_texts(&out.join("math.svg"));
    for name in ["ndsimd", "NumPy", "Rust std loop", "exp 16Ki"] {
        assert!(math.iter().any(|t| t == name), "{name}: {math:?}");
    }
}

/// A bad line of the saved run: status 2, the file and line named.
#[test]
fn from_a_file_that_is_not_a_run_is_refused() {
    let d = scratch("bad");
    let bad = d.join("bad.json");
    std::fs::write(
        &bad,
        "{\"op\":\"x\",\"n\":1,\"threads\":1,\"rate\":1.0}\nnot json\n",
    )
    .unwrap();
    let o = ndsimd(&["bench", "--from", s(&bad), "--svg", s(&d.join("c"))]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!(
            "{}:2: not a row of `ndsimd bench --json`",
            s(&bad)
        )),
        "{err}"
    );
}

const REGION: &str = "\
<!-- BEGIN ndsimd bench: written by `ndsimd bench --from FIXTURE --markdown DOC`; edits inside are overwritten -->

A fixture, not a run.

**matrix products**

| op | n | threads | time/op | rate | against | ratio | NumPy/ours |
|---|--:|--:|--:|--:|---|--:|--:|
| matmul f64 | 64 | 1 | 5.00 µs | 105 GFLOP/s | FMA peak | 80% | 2.00 |
| matmul f64 | 256 | 1 | 300 µs | 112 GFLOP/s | FMA peak | 90% | 1.25 |
| matmul f64 | 64 | 2 | 4.00 µs | 131 GFLOP/s | FMA peak | 50% | - |
| matmul f64 | 256 | 2 | 160 µs | 210 GFLOP/s | FMA peak | 90% | - |

**transcendental**

| op | n | threads | time/op | rate | against | ratio | NumPy/ours |
|---|--:|--:|--:|--:|---|--:|--:|
| exp_into | 16Ki | 1 | 6.00 µs | 43.7 GB/s | std loop | 7.50x | 1.50 |

**elementwise**

| op | n | threads | time/op | rate | against | ratio | NumPy/ours |
|---|--:|--:|--:|--:|---|--:|--:|
| add_into | 1Ki | 1 | 100 ns | 246 GB/s | L1 copy bw | 95% | 4.00 |
| add_into | 4Mi | 1 | 3.00 ms | 33.6 GB/s | memory copy bw | 80% | 0.95 |

**reductions**

| op | n | threads | time/op | rate | against | ratio | NumPy/ours |
|---|--:|--:|--:|--:|---|--:|--:|
| sum | 1Ki | 1 | 40.0 ns | 205 GB/s | L1 read bw | 100% | 30.00 |

**pool scaling**

| op | n | threads | time/op | rate | against | ratio | NumPy/ours |
|---|--:|--:|--:|--:|---|--:|--:|
| par sum vs 1T | 256Ki | 2 | 20.0 µs | 105 GB/s | 1 thread | 1.80x | - |

**scan**

| op | n | threads | time/op | rate | against | ratio | NumPy/ours |
|---|--:|--:|--:|--:|---|--:|--:|
| count_byte_in | 1Mi | 1 | 8.00 µs | 131 GB/s | L2 read bw | 88% | - |
| count_byte_in | 1Mi | 2 | 5.00 µs | 210 GB/s | L2 read bw | 100% | - |

<!-- END ndsimd bench -->
";

/// `--markdown` rewrites the marked region only (the prose around is kept) with
/// exactly these tables; the charts of `--svg` are linked relative to the document.
#[test]
fn markdown_region_from_a_saved_run() {
    let d = scratch("md");
    let doc = d.join("perf.md");
    let prose = "# Perf\n\nHand-written.\n\n<!-- BEGIN ndsimd bench -->\nold\n<!-- END ndsimd bench -->\n\nAfter.\n";
    std::fs::write(&doc, prose).unwrap();
    let o = ndsimd(&[
        "bench",
        "--from",
        FIXTURE,
        "--markdown",
        s(&doc),
        "--caption",
        "A fixture, not a run.",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let want = format!(
        "# Perf\n\nHand-written.\n\n{}\nAfter.\n",
        REGION.replace("FIXTURE", FIXTURE).replace("DOC", s(&doc))
    );
    assert_eq!(std::fs::read_to_string(&doc).unwrap(), want);

    // With --svg: the charts embedded, by paths relative to the document.
    let o = ndsimd(&[
        "bench",
        "--from",
        FIXTURE,
        "--markdown",
        s(&doc),
        "--svg",
        s(&d.join("charts")),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let got = std::fs::read_to_string(&doc).unwrap();
    assert!(
        got.contains("\n![Matrix products: GFLOP/s against n](charts/gemm.svg)\n"),
        "{got}"
    );
    assert!(
        got.starts_with("# Perf\n\nHand-written.\n\n<!-- BEGIN")
            && got.ends_with("-->\n\nAfter.\n")
    );
}

/// A document without the markers: status 2, what to add, the file untouched.
#[test]
fn markdown_without_markers_is_refused() {
    let d = scratch("nomark");
    let doc = d.join("perf.md");
    std::fs::write(&doc, "# Perf\n").unwrap();
    let o = ndsimd(&["bench", "--from", FIXTURE, "--markdown", s(&doc)]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("has no region to rewrite") && err.contains("<!-- END ndsimd bench -->"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&doc).unwrap(), "# Perf\n");
}

/// `--compare` covers NumPy only; `bench --help` gives the command for the GEMM
/// rows against the Rust peers and how their rows reach the charts.
#[test]
fn help_names_the_peers_command() {
    let o = ndsimd(&["bench", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    for want in [
        "cargo run --release --manifest-path benches/peers/Cargo.toml",
        "PEERS_JSON=FILE",
        "--svg <DIR>",
        "--from <FILE>",
        "--markdown <FILE>",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
}
