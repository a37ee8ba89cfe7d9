//! `ndsimd bench`: each operation timed against its anchor in the same run.
//!
//! The anchor of an elementwise op is a plain Rust loop over slices doing the same
//! memory traffic (two reads and a write), compiled in this binary: the ceiling
//! the kernel should reach. Ours and the anchor alternate sample by sample, so a
//! drift in the machine's speed hits both; we report medians, the spread of our
//! samples, and the ratio of the medians. Every result is checked before timing.

use ndsimd::{Array, ArrayView};
use std::hint::black_box;
use std::time::{Duration, Instant};

pub struct Options {
    quick: bool,
    filter: Option<String>,
}

impl Options {
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options {
            quick: false,
            filter: None,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--quick" => o.quick = true,
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

/// Times `f`, called `reps` times per sample.
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

struct Row {
    op: String,
    n: usize,
    ours: f64,
    spread: f64,
    anchor: f64,
    bytes: usize,
}

/// Interleaved timing of ours against the anchor.
fn compare(samples: usize, ours: &mut dyn FnMut(), anchor: &mut dyn FnMut()) -> (f64, f64, f64) {
    let target = Duration::from_millis(if samples > 5 { 4 } else { 2 });
    let r1 = calibrate(ours, target);
    let r2 = calibrate(anchor, target);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..samples {
        a.push(sample(r1, ours));
        b.push(sample(r2, anchor));
    }
    let lo = a.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = a.iter().cloned().fold(0.0, f64::max);
    let m = median(&mut a);
    let spread = (hi - lo) / m / 2.0;
    (m, spread, median(&mut b))
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

fn check(got: &[f64], want: impl Iterator<Item = f64>, what: &str) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits(),
            "bench {what}: wrong result at {i}: {g} vs {w}"
        );
    }
}

type Binary = (&'static str, fn(f64, f64) -> f64);
type Unary = (&'static str, fn(f64) -> f64);

pub fn run(opts: &Options) {
    let samples = if opts.quick { 5 } else { 11 };
    let info = ndsimd::info();
    println!(
        "ndsimd {} bench: tier {} (detected {}), 1 thread; anchor = plain Rust loop over slices",
        info.version, info.active_tier, info.detected_tier
    );
    println!(
        "{:<22} {:>9} {:>12} {:>8} {:>9} {:>12} {:>7}",
        "op", "n", "ns/op", "spread", "GB/s", "anchor ns", "ratio"
    );
    let want = |name: &str| opts.filter.as_deref().is_none_or(|f| name.contains(f));
    let mut rows = Vec::new();
    let ops: [Binary; 4] = [
        ("add", |x, y| x + y),
        ("sub", |x, y| x - y),
        ("mul", |x, y| x * y),
        ("div", |x, y| x / y),
    ];
    for &n in &SIZES {
        let a = Array::from_vec(data(n, 1));
        let b = Array::from_vec(data(n, 2));
        let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
        for (name, f) in ops {
            let into = format!("{name}_into");
            if want(&into) {
                let mut out = Array::<f64>::zeros(&[n]);
                let mut plain = vec![0.0; n];
                binary_into(name, &a.view(), &b.view(), &mut out);
                check(
                    out.as_slice().unwrap(),
                    sa.iter().zip(sb).map(|(&x, &y)| f(x, y)),
                    &into,
                );
                let (m, s, anc) = compare(
                    samples,
                    &mut || binary_into(name, &a.view(), &b.view(), black_box(&mut out)),
                    &mut || {
                        plain_into(name, sa, sb, &mut plain);
                        black_box(&mut plain);
                    },
                );
                rows.push(emit(Row {
                    op: into,
                    n,
                    ours: m,
                    spread: s,
                    anchor: anc,
                    bytes: 24 * n,
                }));
            }
            if want(name) {
                let r = binary(name, &a.view(), &b.view());
                check(
                    r.as_slice().unwrap(),
                    sa.iter().zip(sb).map(|(&x, &y)| f(x, y)),
                    name,
                );
                let (m, s, anc) = compare(
                    samples,
                    &mut || {
                        black_box(binary(name, &a.view(), &b.view()));
                    },
                    &mut || {
                        black_box(plain_alloc(name, sa, sb));
                    },
                );
                rows.push(emit(Row {
                    op: name.to_string(),
                    n,
                    ours: m,
                    spread: s,
                    anchor: anc,
                    bytes: 24 * n,
                }));
            }
        }
        let unary: [Unary; 2] = [("neg_into", |x| -x), ("abs_into", |x| x.abs())];
        for (name, f) in unary {
            if !want(name) {
                continue;
            }
            let mut out = Array::<f64>::zeros(&[n]);
            let mut plain = vec![0.0; n];
            let run = |out: &mut Array<f64>| {
                if name == "neg_into" {
                    a.neg_into(out).unwrap()
                } else {
                    a.abs_into(out).unwrap()
                }
            };
            run(&mut out);
            check(out.as_slice().unwrap(), sa.iter().map(|&x| f(x)), name);
            let (m, s, anc) = compare(samples, &mut || run(black_box(&mut out)), &mut || {
                if name == "neg_into" {
                    for (o, &x) in plain.iter_mut().zip(sa) {
                        *o = -x;
                    }
                } else {
                    for (o, &x) in plain.iter_mut().zip(sa) {
                        *o = x.abs();
                    }
                }
                black_box(&mut plain);
            });
            rows.push(emit(Row {
                op: name.to_string(),
                n,
                ours: m,
                spread: s,
                anchor: anc,
                bytes: 16 * n,
            }));
        }
    }
    // f32 at 4Mi.
    let n = 1 << 22;
    if want("f32 add_into") {
        let a: Array<f32> = Array::from_vec(data(n, 3).iter().map(|&x| x as f32).collect());
        let b: Array<f32> = Array::from_vec(data(n, 4).iter().map(|&x| x as f32).collect());
        let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
        let mut out = Array::<f32>::zeros(&[n]);
        let mut plain = vec![0.0f32; n];
        a.add_into(&b, &mut out).unwrap();
        assert!(out
            .iter()
            .zip(sa.iter().zip(sb))
            .all(|(o, (x, y))| *o == x + y));
        let (m, s, anc) = compare(
            samples,
            &mut || a.add_into(&b, black_box(&mut out)).unwrap(),
            &mut || {
                for ((o, &x), &y) in plain.iter_mut().zip(sa).zip(sb) {
                    *o = x + y;
                }
                black_box(&mut plain);
            },
        );
        rows.push(emit(Row {
            op: "f32 add_into".into(),
            n,
            ours: m,
            spread: s,
            anchor: anc,
            bytes: 12 * n,
        }));
    }
    // 1024x1024 + a row, into a preallocated output.
    if want("row broadcast") {
        let (r, c) = (1024, 1024);
        let m = Array::from_vec(data(r * c, 5))
            .into_shape(&[r as isize, c as isize])
            .unwrap();
        let row = Array::from_vec(data(c, 6));
        let mut out = Array::<f64>::zeros(&[r, c]);
        m.add_into(&row, &mut out).unwrap();
        let (sm, sr) = (m.as_slice().unwrap(), row.as_slice().unwrap());
        check(
            out.as_slice().unwrap(),
            (0..r * c).map(|i| sm[i] + sr[i % c]),
            "row broadcast",
        );
        let mut plain = vec![0.0; r * c];
        let (med, s, anc) = compare(
            samples,
            &mut || m.add_into(&row, black_box(&mut out)).unwrap(),
            &mut || {
                for (orow, mrow) in plain.chunks_exact_mut(c).zip(sm.chunks_exact(c)) {
                    for ((o, &x), &y) in orow.iter_mut().zip(mrow).zip(sr) {
                        *o = x + y;
                    }
                }
                black_box(&mut plain);
            },
        );
        rows.push(emit(Row {
            op: "row broadcast into".into(),
            n: r * c,
            ours: med,
            spread: s,
            anchor: anc,
            bytes: 16 * r * c,
        }));
    }
    let worst = rows
        .iter()
        .map(|r| r.anchor / r.ours)
        .fold(f64::INFINITY, f64::min);
    println!(
        "{} rows; lowest ratio (anchor time / ours) {:.2}",
        rows.len(),
        worst
    );
}

fn emit(r: Row) -> Row {
    println!(
        "{:<22} {:>9} {:>12.1} {:>7.1}% {:>9.2} {:>12.1} {:>7.2}",
        r.op,
        r.n,
        r.ours * 1e9,
        r.spread * 100.0,
        r.bytes as f64 / r.ours / 1e9,
        r.anchor * 1e9,
        r.anchor / r.ours
    );
    r
}

fn binary_into(name: &str, a: &ArrayView<f64>, b: &ArrayView<f64>, out: &mut Array<f64>) {
    match name {
        "add" => a.add_into(b, out),
        "sub" => a.sub_into(b, out),
        "mul" => a.mul_into(b, out),
        _ => a.div_into(b, out),
    }
    .unwrap()
}

fn binary(name: &str, a: &ArrayView<f64>, b: &ArrayView<f64>) -> Array<f64> {
    match name {
        "add" => a.add(b),
        "sub" => a.sub(b),
        "mul" => a.mul(b),
        _ => a.div(b),
    }
    .unwrap()
}

/// The anchor: the same op as a plain loop the compiler inlines and vectorises.
fn plain_into(name: &str, a: &[f64], b: &[f64], out: &mut [f64]) {
    let it = out.iter_mut().zip(a).zip(b);
    match name {
        "add" => it.for_each(|((o, &x), &y)| *o = x + y),
        "sub" => it.for_each(|((o, &x), &y)| *o = x - y),
        "mul" => it.for_each(|((o, &x), &y)| *o = x * y),
        _ => it.for_each(|((o, &x), &y)| *o = x / y),
    }
}

fn plain_alloc(name: &str, a: &[f64], b: &[f64]) -> Vec<f64> {
    let it = a.iter().zip(b);
    match name {
        "add" => it.map(|(&x, &y)| x + y).collect(),
        "sub" => it.map(|(&x, &y)| x - y).collect(),
        "mul" => it.map(|(&x, &y)| x * y).collect(),
        _ => it.map(|(&x, &y)| x / y).collect(),
    }
}
