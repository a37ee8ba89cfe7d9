#!/usr/bin/env python3
"""NumPy side of the ndsimd elementwise benchmarks (DESIGN.md section 8).

Runs the elementwise part of the shared op set in NumPy so that the Rust numbers
(`cargo bench --bench elementwise`, `ndsimd bench`) can be set against NumPy measured
right before or after, on the same machine:

  f64  add, mul, div, sqrt, neg, abs  at n = 1Ki, 16Ki, 256Ki, 4Mi,
       each allocating (`a + b`) and into a buffer (`np.add(a, b, out=o)`)
  f32  add, sqrt at 4Mi (both forms)
  f64  1024x1024 + row broadcast (out= form)

Every case is checked for its answer once before it is timed. Then the repeat count
is chosen so one sample takes about 20 ms, and 15 samples are taken (5 with
--quick). Reported per case: the median time per op, the spread (half of max - min,
as +-% of the median), and GB/s counting the bytes read plus the bytes written
(binary ops 3 arrays, unary ops 2; the broadcast row is counted once).

    python3 benches/bench_numpy.py             # table
    python3 benches/bench_numpy.py --json      # one JSON object per line (first: meta)
    python3 benches/bench_numpy.py --quick --filter sqrt
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import statistics
import sys
import timeit

# BLAS threads must be set before NumPy loads OpenBLAS: match ndsimd's thread count
# (`--threads N`, default 1, as `ndsimd bench` runs one thread).
_threads = "1"
if "--threads" in sys.argv[1:-1]:
    _threads = sys.argv[sys.argv.index("--threads") + 1]
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = _threads

try:
    import numpy as np
except ImportError:  # pragma: no cover - message for humans
    sys.exit("bench_numpy.py needs numpy: python3 -m pip install numpy")

SIZES = [1 << 10, 1 << 14, 1 << 18, 1 << 22]
TARGET_SAMPLE_S = 0.020
SEED = 0x5EED
SHORT = {"float64": "f64", "float32": "f32"}

BINARY = {"add": (np.add, "+"), "mul": (np.multiply, "*"), "div": (np.divide, "/")}
UNARY = {"sqrt": np.sqrt, "neg": np.negative, "abs": np.abs}
# Pure-Python (IEEE double) references, independent of NumPy's loops.
PY_REF = {
    "add": lambda x, y: x + y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "sqrt": math.sqrt,
    "neg": lambda x: -x,
    "abs": abs,
}


def size_label(n: int) -> str:
    for unit, shift in (("Mi", 20), ("Ki", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return str(n)


class Case:
    """One benchmark: a statement for timeit, its namespace, and how to check it."""

    def __init__(self, op, form, dtype, label, stmt, ns, inputs, nbytes, elems):
        self.op, self.form, self.dtype, self.label = op, form, dtype, label
        self.stmt, self.ns, self.inputs = stmt, ns, inputs
        self.nbytes, self.elems = nbytes, elems

    @property
    def key(self) -> str:
        return f"{self.op} {self.form} {self.dtype} {self.label}"


def make_inputs(rng, op, dtype, shape):
    if op == "div":
        a = rng.standard_normal(shape)
        b = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    elif op == "sqrt":
        a, b = rng.uniform(0.0, 1e3, shape), None
    elif op in BINARY:
        a, b = rng.standard_normal(shape), rng.standard_normal(shape)
    else:  # neg, abs: both signs
        a, b = rng.standard_normal(shape), None
    a = a.astype(dtype)
    return (a,) if b is None else (a, b.astype(dtype))


def build_cases(rng):
    """Yield the cases in groups that share their arrays, so that only one group's
    arrays are alive at a time."""

    def group(op, dtype, n, forms=("alloc", "out")):
        cases = []
        dt = np.dtype(dtype)
        args = make_inputs(rng, op, dt, (n,))
        o = np.empty(n, dt)
        ns = {"np": np, "o": o}
        names = ["a", "b"][: len(args)]
        ns.update(zip(names, args))
        narrays = len(args) + 1
        for form in forms:
            if op in BINARY:
                ufunc, sym = BINARY[op]
                stmt = f"a {sym} b" if form == "alloc" else f"np.{ufunc.__name__}(a, b, out=o)"
            elif op == "neg":
                stmt = "-a" if form == "alloc" else "np.negative(a, out=o)"
            else:
                fname = UNARY[op].__name__
                stmt = f"np.{fname}(a)" if form == "alloc" else f"np.{fname}(a, out=o)"
            cases.append(
                Case(op, form, SHORT[dt.name], size_label(n), stmt, dict(ns), args,
                     narrays * n * dt.itemsize, n)
            )
        return cases

    for op in ["add", "mul", "div", "sqrt", "neg", "abs"]:
        for n in SIZES:
            yield group(op, "float64", n)
    for op in ["add", "sqrt"]:
        yield group(op, "float32", 1 << 22)

    # Whole-array reductions (read-only traffic) and the 1-D dot product, each in
    # NumPy's fastest spelling (measured: np.sum(a) costs ~2.4 us more than
    # np.add.reduce(a) at 1Ki in Python overhead alone).
    FASTEST = {"sum": "np.add.reduce(a)", "max": "np.maximum.reduce(a)",
               "min": "np.minimum.reduce(a)", "argmax": "a.argmax()"}
    def reductions(dtype, n, ops):
        dt = np.dtype(dtype)
        a = rng.standard_normal(n).astype(dt)
        return [
            Case(op, "reduce", SHORT[dt.name], size_label(n), FASTEST[op], {"np": np, "a": a},
                 (a,), n * dt.itemsize, n)
            for op in ops
        ]

    for n in SIZES:
        yield reductions("float64", n, ["sum", "max", "min", "argmax"])
    for n in [1 << 10, 1 << 22]:
        yield reductions("float32", n, ["sum"])
    n = 1 << 20
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    yield [Case("dot", "reduce", "f64", size_label(n), "a.dot(b)", {"np": np, "a": a, "b": b},
                (a, b), 2 * n * 8, n)]
    for n in SIZES:
        a, b = rng.standard_normal(n), rng.standard_normal(n)
        o = np.empty(n)
        yield [Case("maximum", "out", "f64", size_label(n), "np.maximum(a, b, out=o)",
                    {"np": np, "a": a, "b": b, "o": o}, (a, b), 3 * n * 8, n)]

    # 1024x1024 + a row of 1024, broadcast along axis 0.
    rows = cols = 1024
    m = rng.standard_normal((rows, cols))
    row = rng.standard_normal(cols)
    o = np.empty((rows, cols))
    yield [
        Case("add_row", "out", "f64", f"{rows}x{cols}", "np.add(m, r, out=o)",
             {"np": np, "m": m, "r": row, "o": o}, (m, row),
             (2 * rows * cols + cols) * 8, rows * cols),
        Case("add_row", "alloc", "f64", f"{rows}x{cols}", "m + r",
             {"np": np, "m": m, "r": row}, (m, row),
             (2 * rows * cols + cols) * 8, rows * cols),
    ]


def run_once(case: Case):
    ns = dict(case.ns)
    res = eval(case.stmt, ns)  # noqa: S307 - our own fixed statements
    if case.form == "out" and res is not case.ns["o"]:
        raise AssertionError(f"{case.key}: out= form did not return the out array")
    return res


def verify(case: Case, rng) -> None:
    """Check the result once: exact at sampled points against pure Python, and
    allclose everywhere against a plain long-double computation."""
    if case.form == "out":
        case.ns["o"].fill(np.nan)
    res = run_once(case)
    inputs = case.inputs
    if case.form == "reduce":
        xs = [x.astype(np.float64).tolist() for x in inputs]
        if case.op == "sum":
            want = math.fsum(xs[0])
            bound = (len(xs[0]) + 2) * np.finfo(inputs[0].dtype).eps * sum(map(abs, xs[0]))
            ok = abs(float(res) - want) <= bound
        elif case.op == "dot":
            want = math.fsum(x * y for x, y in zip(*xs))
            bound = (len(xs[0]) + 2) * 2.3e-16 * sum(abs(x * y) for x, y in zip(*xs))
            ok = abs(float(res) - want) <= bound
        elif case.op == "argmax":
            want = xs[0].index(max(xs[0]))
            ok = int(res) == want
        else:
            want = (max if case.op == "max" else min)(xs[0])
            ok = float(res) == want
        if not ok:
            raise AssertionError(f"{case.key}: got {res!r}, want {want!r}")
        return
    if case.op == "maximum":
        if not np.array_equal(res, np.where(inputs[0] > inputs[1], inputs[0], inputs[1])):
            raise AssertionError(f"{case.key}: differs from the where() reference")
        return
    if case.op == "add_row":
        m, r = inputs
        ref = m + r[np.newaxis, :].repeat(m.shape[0], axis=0)  # materialised, plain add
        if not np.array_equal(res, ref):
            raise AssertionError(f"{case.key}: differs from the materialised reference")
        return
    if res.dtype != inputs[0].dtype or res.shape != inputs[0].shape:
        raise AssertionError(f"{case.key}: got {res.dtype}{res.shape}")
    n = res.size
    # Heads and tails (where vector loops switch to their remainders) plus random points.
    idx = np.unique(np.concatenate([
        np.arange(min(n, 67)), np.arange(max(0, n - 67), n),
        rng.integers(0, n, size=min(n, 2000)),
    ]))
    f = PY_REF[case.op]
    cols = [x[idx].astype(np.float64).tolist() for x in inputs]
    want = np.array([f(*vals) for vals in zip(*cols)], dtype=np.float64).astype(res.dtype)
    # f32: the f64 result rounded to f32 is the correctly rounded f32 result for
    # + - * / sqrt (53 >= 2*24 + 2), so the check is exact for both types.
    if not np.array_equal(res[idx], want):
        bad = int(np.flatnonzero(res[idx] != want)[0])
        raise AssertionError(
            f"{case.key}: index {int(idx[bad])}: got {res[idx][bad]!r}, want {want[bad]!r}")
    ld = [x.astype(np.longdouble) for x in inputs]
    ref = {
        "add": lambda: ld[0] + ld[1],
        "mul": lambda: ld[0] * ld[1],
        "div": lambda: ld[0] / ld[1],
        "sqrt": lambda: np.sqrt(ld[0]),
        "neg": lambda: -ld[0],
        "abs": lambda: np.abs(ld[0]),
    }[case.op]()
    rtol = 1e-15 if res.dtype == np.float64 else 1e-6
    if not np.allclose(res, ref.astype(res.dtype), rtol=rtol, atol=0.0):
        raise AssertionError(f"{case.key}: not close to the long-double reference")


def calibrate(timer: timeit.Timer) -> int:
    """Smallest power-of-two repeat count whose batch takes at least ~20 ms."""
    timer.timeit(1)  # warm-up: first touch of the out buffer, allocator, caches
    reps = 1
    while True:
        t = timer.timeit(reps)
        if t >= TARGET_SAMPLE_S:
            return reps
        if t <= 0:
            reps *= 16
            continue
        # jump close to the target, then confirm on the next round
        reps = max(reps * 2, int(reps * TARGET_SAMPLE_S / t * 1.05))


def measure(case: Case, samples: int) -> dict:
    timer = timeit.Timer(case.stmt, globals=case.ns)
    reps = calibrate(timer)
    per_op = [timer.timeit(reps) / reps * 1e9 for _ in range(samples)]
    med = statistics.median(per_op)
    lo, hi = min(per_op), max(per_op)
    return {
        "op": case.op, "form": case.form, "dtype": case.dtype, "n": case.label,
        "elems": case.elems, "bytes": case.nbytes, "reps": reps, "samples": samples,
        "ns_per_op": med, "ns_min": lo, "ns_max": hi,
        "spread_pct": (hi - lo) / 2 / med * 100 if med > 0 else 0.0,
        "gb_per_s": case.nbytes / med if med > 0 else float("inf"),
    }


def meta() -> dict:
    info = {
        "tool": "bench_numpy.py",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "numpy": np.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "cpus": os.cpu_count(),
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
    }
    try:  # numpy >= 1.25 (the dict mode); cheap, no subprocess
        cfg = np.show_config(mode="dicts")
        info["blas"] = cfg.get("Build Dependencies", {}).get("blas", {}).get("name")
        simd = cfg.get("SIMD Extensions", {})
        info["simd_found"] = simd.get("found")
    except Exception:  # noqa: BLE001 - older numpy: leave it out
        pass
    return info


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def fmt_ns(ns: float) -> str:
    return f"{ns:,.0f}" if ns >= 100 else f"{ns:.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    ap.add_argument("--quick", action="store_true", help="5 samples per case instead of 15")
    ap.add_argument("--threads", default="1", metavar="N",
                    help="BLAS threads (set before NumPy loads; default 1, as `ndsimd bench`)")
    ap.add_argument("--filter", default="", metavar="TEXT",
                    help="only cases whose 'op form dtype n' contains TEXT (e.g. 'sqrt out')")
    args = ap.parse_args()
    samples = 5 if args.quick else 15

    m = meta()
    if args.json:
        print(json.dumps({"meta": m}), flush=True)
    else:
        print(f"# NumPy {m['numpy']} (BLAS: {m.get('blas', '?')}, {m['blas_threads']} thread(s)), Python {m['python']}, "
              f"{m['machine']}, {m['cpus']} CPUs: {m['cpu']}")
        if m.get("simd_found"):
            print(f"# NumPy SIMD found: {' '.join(m['simd_found'])}")
        print(f"# {m['date']}; {samples} samples of ~{TARGET_SAMPLE_S * 1e3:.0f} ms each; "
              "median ns/op, spread = (max-min)/2 as % of median; GB/s = (read+written bytes)/time")
        print(f"{'op':<8} {'form':<5} {'dtype':<7} {'n':>9} {'ns/op':>13} {'spread':>8} {'GB/s':>7}")

    rng = np.random.default_rng(SEED)
    check_rng = np.random.default_rng(SEED + 1)
    count = 0
    for group in build_cases(rng):
        for c in group:
            if args.filter not in c.key:
                continue
            count += 1
            verify(c, check_rng)  # the answer is checked before the clock starts
            r = measure(c, samples)
            if args.json:
                print(json.dumps(r), flush=True)
            else:
                print(f"{r['op']:<8} {r['form']:<5} {r['dtype']:<7} {r['n']:>9} "
                      f"{fmt_ns(r['ns_per_op']):>13} {'±%.1f%%' % r['spread_pct']:>8} "
                      f"{r['gb_per_s']:>7.2f}", flush=True)
    if count == 0:
        print(f"no case matches --filter {args.filter!r}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
