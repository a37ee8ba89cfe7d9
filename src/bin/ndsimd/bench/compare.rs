//! `ndsimd bench --compare`: the same ops in NumPy, through the `python3` on PATH
//! (a worker process running `compare.py`, one JSON request a line). Both sides
//! build the same inputs by one formula; NumPy's answer (saved as .npy) must equal
//! ours before anything is timed; then the two are timed in rounds, alternating,
//! and a row gets NumPy's time over ours (median over the rounds) and its spread.

use super::runner::{calibrate, median, spread, Row};
use ndsimd::Array;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const SCRIPT: &str = include_str!("compare.py");

pub struct NumPy {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    rounds: usize,
    dir: std::path::PathBuf,
}

impl Drop for NumPy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

const INSTALL: &str = "NumPy is needed for --compare: python3 -m pip install numpy";

impl NumPy {
    /// Starts the worker; `Err` says what is missing and how to install it.
    pub fn start(rounds: usize) -> Result<NumPy, String> {
        let mut child = Command::new("python3")
            .arg("-c")
            .arg(SCRIPT)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run python3 ({e}); {INSTALL}"))?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, BufReader::new(o)),
            _ => return Err("cannot talk to python3".to_string()),
        };
        let dir = std::env::temp_dir().join(format!("ndsimd-compare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut np = NumPy {
            child,
            stdin,
            stdout,
            rounds,
            dir,
        };
        let hello = np.read()?;
        if hello.get("numpy").is_none() {
            return Err(INSTALL.to_string());
        }
        Ok(np)
    }

    fn read(&mut self) -> Result<serde_json::Value, String> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(n) if n > 0 => serde_json::from_str(&line)
                .map_err(|e| format!("python3 answered '{}': {e}", line.trim())),
            _ => Err("python3 (the NumPy worker) stopped".to_string()),
        }
    }

    fn ask(&mut self, req: serde_json::Value) -> Result<serde_json::Value, String> {
        writeln!(self.stdin, "{req}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("cannot talk to python3: {e}"))?;
        self.read()
    }

    /// NumPy's time over ours for `row` and its spread, in percent; `None` for a
    /// row NumPy has no equivalent of here (more than one thread, or no such op).
    /// The pool's `par exp_into` and port rows are set against NumPy's one-thread call.
    /// `Err` when NumPy's answer differs from ours: that row is not timed.
    pub fn compare(&mut self, row: &Row, samples: usize) -> Result<Option<(f64, f64)>, String> {
        // The two-thread exp and port rows and the numexpr row run on every thread;
        // NumPy on one.
        const PAR: [&str; 5] = [
            "par exp",
            "par take",
            "par where",
            "par concatenate",
            "par i64",
        ];
        if row.threads != 1 && !PAR.iter().any(|p| row.op.starts_with(p)) && row.op != "ne chain" {
            return Ok(None);
        }
        let Some((mut ours, answer)) = our_case(&row.op, row.n) else {
            return Ok(None);
        };
        let path = self.dir.join("answer.npy");
        let req = serde_json::json!({"cmd": "answer", "op": row.op, "n": row.n,
                                     "path": path.to_string_lossy()});
        let reply = self.ask(req)?;
        if reply.get("skip").is_some() {
            if let Some(why) = reply.get("why").and_then(|w| w.as_str()) {
                errln!("ndsimd bench --compare: {} {}: {why}", row.op, row.n);
            }
            return Ok(None);
        }
        let theirs: Vec<f64> = if row.op.starts_with("f32 ") {
            let a: Array<f32> = ndsimd::npy::read(&path).map_err(|e| e.to_string())?;
            a.iter().map(|&x| x as f64).collect()
        } else {
            let a: Array<f64> = ndsimd::npy::read(&path).map_err(|e| e.to_string())?;
            a.to_vec()
        };
        let want = answer();
        // Sums are rounded in another order; exp and log are within 1 ULP on each
        // side, not correctly rounded, so they may differ in the last bits.
        let transcendental = ["exp", "log", "softmax", "tanh", "sin", "cos", "pow"]
            .iter()
            .any(|w| row.op.contains(w));
        let inexact = transcendental || ["sum", "dot"].iter().any(|w| row.op.ends_with(w));
        // Sums are rounded in a different order on each side: a relative bound well
        // above that rounding (f32: about 1e-7 per step of a pairwise sum).
        let rel = match (row.op.starts_with("f32 "), transcendental) {
            // NumPy's sin/cos/pow are within a few ULP, ours within 1.
            (true, true) if ["sin", "cos", "pow"].iter().any(|w| row.op.contains(w)) => {
                8.0 * f32::EPSILON as f64
            }
            (true, true) => 2.0 * f32::EPSILON as f64,
            // softmax: exp's ULP, the sums' order and the division's rounding.
            (false, true) if row.op.starts_with("softmax") => 8.0 * f64::EPSILON,
            (false, true) if ["sin", "cos", "pow"].iter().any(|w| row.op.contains(w)) => {
                8.0 * f64::EPSILON
            }
            (false, true) => 2.0 * f64::EPSILON,
            (true, false) => 1e-5,
            (false, false) => 1e-9,
        };
        let tol = |w: f64| if inexact { rel * w.abs() } else { 0.0 };
        if theirs.len() != want.len() {
            return Err(format!(
                "--compare: NumPy's answer for {} {} has {} values, ours {}; refusing to time it",
                row.op,
                row.n,
                theirs.len(),
                want.len()
            ));
        }
        if let Some(i) = (0..want.len()).find(|&i| (theirs[i] - want[i]).abs() > tol(want[i])) {
            return Err(format!(
                "--compare: NumPy's answer for {} {} differs from ours at {i}: {} vs {}; refusing to time it",
                row.op, row.n, theirs[i], want[i]
            ));
        }
        let target = Duration::from_millis(2);
        let reps = calibrate(&mut ours, target);
        let mut ratios = Vec::with_capacity(self.rounds);
        for _ in 0..self.rounds {
            let mut ts: Vec<f64> = (0..samples)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..reps {
                        ours();
                    }
                    t.elapsed().as_secs_f64() / reps as f64
                })
                .collect();
            let mine = median(&mut ts);
            let req = serde_json::json!({"cmd": "time", "op": row.op, "n": row.n,
                                         "target": target.as_secs_f64(), "samples": samples});
            let theirs = self.ask(req)?["seconds"]
                .as_f64()
                .ok_or("python3 sent no time")?;
            ratios.push(theirs / mine);
        }
        let mid = median(&mut ratios.clone());
        Ok(Some((mid, spread(&ratios, mid))))
    }
}

/// A timed call and the answer, the inputs as `compare.py` makes them.
type Case = (Box<dyn FnMut()>, Box<dyn Fn() -> Vec<f64>>);

pub fn vec_of<T: ndsimd::Element>(n: usize, k: usize, small: bool) -> Array<T> {
    Array::from_vec(
        (0..n)
            .map(|i| {
                let v = if small {
                    ((i * k) % 7) as f64 - 3.0
                } else {
                    1.0 + ((i * k) % 1000) as f64 / 64.0
                };
                T::from_f64(v).unwrap()
            })
            .collect(),
    )
}

fn our_case(op: &str, n: usize) -> Option<Case> {
    let op = op.strip_prefix("par ").unwrap_or(op);
    if let Some(rest) = op.strip_prefix("i64 ") {
        return int_case(rest, n);
    }
    if let Some(rest) = op.strip_prefix("f32 ") {
        return typed::<f32>(rest, n);
    }
    typed::<f64>(op, n)
}

fn typed<T: ndsimd::Element + ndsimd_kernels::gemm::GemmElement>(
    op: &str,
    n: usize,
) -> Option<Case> {
    use std::hint::black_box;
    let f = |v: T| v.to_f64().unwrap();
    if op.starts_with("matmul") {
        // A square (`n x n`), or a batch of `n` squares of side `d`
        // (`matmul f64 1000xD²`, n = 1000), as `compare.py` builds them.
        let shape = match op
            .strip_prefix("matmul f64")
            .or(op.strip_prefix("matmul f32"))
        {
            Some("") => vec![n as isize, n as isize],
            Some(rest) => {
                let d: isize = rest
                    .strip_prefix(&format!(" {n}x"))?
                    .strip_suffix('²')?
                    .parse()
                    .ok()?;
                vec![n as isize, d, d]
            }
            None => return None,
        };
        let len = shape.iter().product::<isize>() as usize;
        let a = vec_of::<T>(len, 7919, true).into_shape(&shape).ok()?;
        let b = vec_of::<T>(len, 104729, true).into_shape(&shape).ok()?;
        let want = a.matmul(&b).ok()?.iter().map(|&v| f(v)).collect::<Vec<_>>();
        let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        let mut c = Array::<T>::zeros(&dims);
        return Some((
            Box::new(move || {
                a.matmul_into(&b, T::one(), T::zero(), black_box(&mut c))
                    .unwrap()
            }),
            Box::new(move || want.clone()),
        ));
    }
    let x = vec_of::<T>(n, 7919, false);
    let y = vec_of::<T>(n, 104729, false);
    let all = |a: &Array<T>| a.iter().map(|&v| f(v)).collect::<Vec<_>>();
    if let Some(dims) = op.strip_prefix("softmax ") {
        // `softmax RxC` along axis 1 of `n = R C` values, as `compare.py` shapes them.
        let (r, c) = dims.split_once('x')?;
        let (r, c): (isize, isize) = (r.parse().ok()?, c.parse().ok()?);
        let x = x.into_shape(&[r, c]).ok()?;
        let want = all(&x.softmax(1).ok()?);
        return Some((
            Box::new(move || drop(black_box(black_box(&x).softmax(1).unwrap()))),
            Box::new(move || want.clone()),
        ));
    }
    if let Some(c) = port_case(op, n, &x, &y) {
        return Some(c);
    }
    // The workspace rows: NumPy's allocating expressions against our workspace
    // (reset each call) and the blocked chain.
    if matches!(op, "ws add" | "ws chain" | "blocked chain" | "ne chain") {
        let chain = |x: &Array<T>, y: &Array<T>| x.mul(y).unwrap().add(x).unwrap().sqrt();
        let want = if op == "ws add" {
            all(&x.add(&y).ok()?)
        } else {
            all(&chain(&x, &y))
        };
        let mut ws = ndsimd::Workspace::new();
        let call: Box<dyn FnMut()> = match op {
            "ws add" => Box::new(move || {
                black_box(ws.add(black_box(&x), &y).unwrap());
                ws.reset();
            }),
            "ws chain" => Box::new(move || {
                black_box(
                    ws.sqrt(&ws.add(&ws.mul(black_box(&x), &y).unwrap(), &x).unwrap())
                        .unwrap(),
                );
                ws.reset();
            }),
            "ne chain" => {
                let (x, y) = (all(&x), all(&y));
                let mut out = vec![0.0; n];
                Box::new(move || {
                    super::workspace::blocked_chain_par(black_box(&x), &y, black_box(&mut out))
                })
            }
            _ => {
                let (x, y) = (Array::from_vec(all(&x)), Array::from_vec(all(&y)));
                let mut out = Array::<f64>::zeros(&[n]);
                Box::new(move || {
                    super::workspace::blocked_chain(&mut ws, black_box(&x), &y, black_box(&mut out))
                })
            }
        };
        return Some((call, Box::new(move || want.clone())));
    }
    let name = op.strip_suffix("_into").unwrap_or(op);
    let run: fn(&Array<T>, &Array<T>) -> Array<T> = match name {
        "add" => |x, y| x.add(y).unwrap(),
        "sub" => |x, y| x.sub(y).unwrap(),
        "mul" => |x, y| x.mul(y).unwrap(),
        "div" => |x, y| x.div(y).unwrap(),
        "maximum" => |x, y| x.maximum(y).unwrap(),
        "pow" => |x, y| x.pow(y).unwrap(),
        "powf" => |x, _| x.powf(T::from_f64(2.5).unwrap()),
        "neg" => |x, _| x.neg(),
        "abs" => |x, _| x.abs(),
        "sqrt" => |x, _| x.sqrt(),
        "exp" => |x, _| x.exp(),
        "log" => |x, _| x.log(),
        "log10" => |x, _| x.log10(),
        "expm1" => |x, _| x.expm1(),
        "log1p" => |x, _| x.log1p(),
        "tanh" => |x, _| x.tanh(),
        "sin" => |x, _| x.sin(),
        "cos" => |x, _| x.cos(),
        "sum" => |x, _| Array::from_vec(vec![x.sum()]),
        "max" => |x, _| Array::from_vec(vec![x.max().unwrap()]),
        "min" => |x, _| Array::from_vec(vec![x.min().unwrap()]),
        "argmax" => |x, _| Array::from_vec(vec![T::from_usize(x.argmax().unwrap()).unwrap()]),
        "dot" => |x, y| Array::from_vec(vec![x.vdot(y).unwrap()]),
        _ => return None,
    };
    let want = all(&run(&x, &y));
    if op.ends_with("_into") {
        // The same call into a preallocated output, as NumPy's `out=`.
        type Into<T> = fn(&Array<T>, &Array<T>, &mut Array<T>);
        let into: Into<T> = match name {
            "add" => |x, y, o| x.add_into(y, o).unwrap(),
            "sub" => |x, y, o| x.sub_into(y, o).unwrap(),
            "mul" => |x, y, o| x.mul_into(y, o).unwrap(),
            "div" => |x, y, o| x.div_into(y, o).unwrap(),
            "maximum" => |x, y, o| x.maximum_into(y, o).unwrap(),
            "pow" => |x, y, o| x.pow_into(y, o).unwrap(),
            "powf" => |x, _, o| x.powf_into(T::from_f64(2.5).unwrap(), o).unwrap(),
            "neg" => |x, _, o| x.neg_into(o).unwrap(),
            "abs" => |x, _, o| x.abs_into(o).unwrap(),
            "sqrt" => |x, _, o| x.sqrt_into(o).unwrap(),
            "exp" => |x, _, o| x.exp_into(o).unwrap(),
            "log" => |x, _, o| x.log_into(o).unwrap(),
            "log10" => |x, _, o| x.log10_into(o).unwrap(),
            "expm1" => |x, _, o| x.expm1_into(o).unwrap(),
            "log1p" => |x, _, o| x.log1p_into(o).unwrap(),
            "tanh" => |x, _, o| x.tanh_into(o).unwrap(),
            "sin" => |x, _, o| x.sin_into(o).unwrap(),
            "cos" => |x, _, o| x.cos_into(o).unwrap(),
            _ => return None,
        };
        let mut out = Array::<T>::zeros(&[n]);
        return Some((
            Box::new(move || into(black_box(&x), &y, black_box(&mut out))),
            Box::new(move || want.clone()),
        ));
    }
    Some((
        Box::new(move || drop(black_box(run(black_box(&x), &y)))),
        Box::new(move || want.clone()),
    ))
}

/// The NumPy-port rows (`bench/port.rs`): the timed call and its answer.
fn port_case<T: ndsimd::Element>(op: &str, n: usize, x: &Array<T>, y: &Array<T>) -> Option<Case> {
    use std::hint::black_box;
    // ndsimd's own allocation (huge pages, as NumPy's operands), as bench/port.rs.
    let (x, y) = (x.to_owned(), y.to_owned());
    let f = |a: &Array<T>| a.iter().map(|v| v.to_f64().unwrap()).collect::<Vec<f64>>();
    let ix = |v: Vec<i64>| v.into_iter().map(|i| i as f64).collect::<Vec<f64>>();
    let want = match op {
        "take" => f(&x.take(&super::port::take_indices(n), 0).ok()?),
        "where" => f(&ndsimd::where_(&x.greater(&y).ok()?, &x, &y).ok()?),
        "concatenate" => f(&ndsimd::concatenate(&[x.view(), y.view()], 0).ok()?),
        "cumsum" => f(&x.cumsum().ok()?),
        "argsort" => ix(x.argsort().into_vec()),
        _ => return None,
    };
    let run: Box<dyn FnMut()> = match op {
        "take" => {
            let idx = super::port::take_indices(n);
            Box::new(move || drop(black_box(x.take(black_box(&idx), 0).unwrap())))
        }
        "where" => {
            let c = x.greater(&y).ok()?;
            Box::new(move || drop(black_box(ndsimd::where_(black_box(&c), &x, &y).unwrap())))
        }
        "concatenate" => Box::new(move || {
            drop(black_box(
                ndsimd::concatenate(&[black_box(&x).view(), y.view()], 0).unwrap(),
            ))
        }),
        "cumsum" => Box::new(move || drop(black_box(black_box(&x).cumsum().unwrap()))),
        _ => Box::new(move || drop(black_box(black_box(&x).argsort()))),
    };
    Some((run, Box::new(move || want.clone())))
}

/// The integer rows (`bench/ints.rs`): `i64 add` and `i64 sum` on `compare.py`'s
/// small values.
fn int_case(op: &str, n: usize) -> Option<Case> {
    use std::hint::black_box;
    let (x, y) = (
        super::ints::ints_of(n, 7919),
        super::ints::ints_of(n, 104729),
    );
    let f = |a: &Array<i64>| a.iter().map(|&v| v as f64).collect::<Vec<f64>>();
    match op {
        "add" => {
            let want = f(&x.add(&y).ok()?);
            Some((
                Box::new(move || drop(black_box(black_box(&x).add(&y).unwrap()))),
                Box::new(move || want.clone()),
            ))
        }
        "sum" => {
            let want = vec![x.sum() as f64];
            Some((
                Box::new(move || {
                    black_box(black_box(&x).sum());
                }),
                Box::new(move || want.clone()),
            ))
        }
        _ => None,
    }
}
