#!/usr/bin/env python3
"""The accuracy table of docs/perf.md: NumPy's `sum` and ndsimd's (1 and 2 threads)
on the inputs of issue 27, each against the exact sum (`math.fsum`, correctly
rounded). Prints a Markdown table of relative errors |sum - exact| / |exact|.

    python3 benches/sum_accuracy.py [--bin target/release/examples/sum_accuracy]

Without --bin it builds and runs `cargo run --release --example sum_accuracy`.
"""
import argparse, math, os, subprocess, sys, tempfile
import numpy as np


def inputs():
    rng = np.random.default_rng(27)
    yield "10⁷ × 0.1, f32", [np.full(10**7, 0.1, dtype=np.float32)]
    yield "10⁷ normals, f32", [rng.standard_normal(10**7).astype(np.float32)]
    yield "10³–10⁷ normals, f64 (worst)", [rng.standard_normal(10**k) for k in range(3, 8)]
    a = np.full(10**6, 1e-16)
    a[0] = 1.0
    yield "1 then 999 999 × 1e-16, f64", [a]


def rel(s, exact):
    return abs(s - exact) / abs(exact)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", help="the built sum_accuracy example")
    args = ap.parse_args()
    cmd = [args.bin] if args.bin else [
        "cargo", "run", "--quiet", "--release", "--example", "sum_accuracy", "--"]
    print(f"NumPy {np.__version__}; relative error |sum - exact| / |exact|\n")
    print("| input | exact | NumPy | ndsimd 1 thread | ndsimd 2 threads |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        for name, arrays in inputs():
            files = []
            for i, a in enumerate(arrays):
                p = os.path.join(d, f"x{i}.npy")
                np.save(p, a)
                files.append(f"{'f32' if a.dtype == np.float32 else 'f64'}:{p}")
            out = subprocess.run(cmd + files, check=True, capture_output=True, text=True).stdout
            worst = [0.0, 0.0, 0.0]
            exact0 = None
            for a, line in zip(arrays, out.split("\n")):
                _, one, two = line.split()
                exact = math.fsum(a.astype(np.float64))
                exact0 = exact if exact0 is None else exact0
                for j, s in enumerate([float(a.sum()), float(one), float(two)]):
                    worst[j] = max(worst[j], rel(s, exact))
            shown = f"{exact0:.10g}" if len(arrays) == 1 else "—"
            print(f"| {name} | {shown} | {worst[0]:.1e} | {worst[1]:.1e} | {worst[2]:.1e} |")


if __name__ == "__main__":
    sys.exit(main())
