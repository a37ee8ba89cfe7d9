#!/usr/bin/env python3
"""ndsimd's matrix products against NumPy's (OpenBLAS) in the same run, interleaved.

    cargo build --release
    python3 benches/gemm_numpy.py [--threads T] [--rounds R] [--bin target/release/ndsimd]

Each round times NumPy's `np.matmul(a, b, out=c)` for every case in this process
(the median of 5 samples of at least 20 ms, as our bench's `--quick` median of 5),
then runs `ndsimd bench --quick --filter 'mat|vdot'` once (with NDSIMD_NUM_THREADS=T) and
reads our times from its table for T threads. NumPy runs with OPENBLAS_NUM_THREADS=T
(set before NumPy loads). The machine drifts between rounds, so each case reports
the median over rounds of both sides, their spread, and NumPy time / ours (> 1: we
are faster). Both sides multiply the same shapes of small-integer matrices; our
bench checks its results exactly before timing.

NumPy and ours run in different processes here, and a two-vCPU VM may run whole
processes in a fast or a slow phase: a ratio from this script mixes the phases with the
speeds. `benches/peers` times the same OpenBLAS (opened from NumPy's wheel) in our
process, interleaved with ours, and is the better evidence for a close call.
"""

import argparse
import os
import statistics
import sys

from interleave import FMA_ROW, median_time, our_times, spread, two_core_report

CASES = [
    # (name in our table, n column, dtype, m, k, n, transpose_b)
    ("matmul f64", 64, "float64", 64, 64, 64, False),
    ("matmul f64", 128, "float64", 128, 128, 128, False),
    ("matmul f64", 256, "float64", 256, 256, 256, False),
    ("matmul f64", 512, "float64", 512, 512, 512, False),
    ("matmul f64", 1024, "float64", 1024, 1024, 1024, False),
    ("matmul f32", 256, "float32", 256, 256, 256, False),
    ("matmul f32", 1024, "float32", 1024, 1024, 1024, False),
    ("matmul f64 a·bᵀ", 512, "float64", 512, 512, 512, True),
    ("matmul f64 k=256", 1024, "float64", 1024, 256, 1024, False),
    ("matmul f64 m=16", 4096, "float64", 16, 1024, 4096, False),
    ("matmul f64 n=16", 4096, "float64", 4096, 1024, 16, False),
    ("matmul f64 k=65536", 16, "float64", 16, 65536, 16, False),
    ("matvec f64", 1024, "float64", 1024, 1024, 1, False),
    ("vdot f64", 1 << 20, "float64", 1, 1 << 20, 1, False),
    # A batch of 1000 products of 16x16 matrices (m is the batch, k = n = 16).
    ("matmul f64 1000x16²", 1000, "float64", 1000, 16, 16, "batch"),
    ("matmul f64 1000x8²", 1000, "float64", 1000, 8, 8, "batch"),
]


def numpy_time(np, dtype, m, k, n, transpose_b):
    rng = np.random.default_rng(1)
    a = rng.integers(-3, 4, (m, k)).astype(dtype)
    if transpose_b == "batch":  # m products of k x k by k x n
        a = rng.integers(-3, 4, (m, k, k)).astype(dtype)
        b = rng.integers(-3, 4, (m, k, n)).astype(dtype)
        c = np.empty((m, k, n), dtype)
    elif m == 1 and n == 1:  # the 1-D dot product
        a = rng.integers(-3, 4, k).astype(dtype)
        b = rng.integers(-3, 4, k).astype(dtype)
        c = None
    elif n == 1:  # matrix times vector
        b = rng.integers(-3, 4, k).astype(dtype)
        c = np.empty(m, dtype)
    elif transpose_b:
        b = rng.integers(-3, 4, (n, k)).astype(dtype).T
        c = np.empty((m, n), dtype)
    else:
        b = rng.integers(-3, 4, (k, n)).astype(dtype)
        c = np.empty((m, n), dtype)
    if c is None:
        def call():
            np.dot(a, b)
    else:
        def call():
            np.matmul(a, b, out=c)
    return median_time(call)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--bin", default=os.path.join("target", "release", "ndsimd"))
    args = p.parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import numpy as np

    np_t = {c[:2]: [] for c in CASES}
    our_t = {c[:2]: [] for c in CASES}
    fma = []
    for r in range(args.rounds):
        for name, ncol, dt, m, k, n, tb in CASES:
            np_t[(name, ncol)].append(numpy_time(np, dt, m, k, n, tb))
        got = our_times(args.bin, args.threads, "mat|vdot", r"matrix products, (\d+) thread",
                        list(our_t))
        for key in our_t:
            our_t[key].append(got[key])
        if FMA_ROW in got:
            fma.append(got[FMA_ROW])
        print("round %d/%d done" % (r + 1, args.rounds), file=sys.stderr)

    print("NumPy %s, %d thread(s), %d interleaved rounds; GFLOP/s medians (spread)"
          % (np.__version__, args.threads, args.rounds))
    print("%-20s %6s %16s %16s %8s" % ("case", "n", "ndsimd", "NumPy", "NumPy/us"))
    for name, ncol, dt, m, k, n, tb in CASES:
        flops = 2.0 * m * k * k * n if tb == "batch" else 2.0 * m * k * n
        o, q = our_t[(name, ncol)], np_t[(name, ncol)]
        mo, mq = statistics.median(o), statistics.median(q)
        print("%-20s %6d %8.1f (%4.1f%%) %8.1f (%4.1f%%) %8.2f" % (
            name, ncol, flops / mo / 1e9, spread(o, mo), flops / mq / 1e9, spread(q, mq), mq / mo))
    if fma:
        two_core_report(fma, [("%s %d" % (c[0], c[1]), our_t[c[:2]], np_t[c[:2]]) for c in CASES])


if __name__ == "__main__":
    main()
