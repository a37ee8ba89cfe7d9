#!/usr/bin/env python3
"""ndsimd's pool rows against NumPy in the same run, interleaved.

    cargo build --release
    python3 benches/pool_numpy.py [--threads 2] [--rounds 5] [--bin target/release/ndsimd]

The rows of our bench's pool table ("T threads (the pool)"): `sum` and `add_into` at
16Ki, 256Ki and 4Mi f64, the axis reductions `sum_axis(0)`, `sum_axis(1)` and
`max_axis(1)` of a 1024 x 1024 f64 matrix, and that matrix plus a broadcast row
into a preallocated output. NumPy spells each its fastest way (`np.add.reduce`,
`np.maximum.reduce`, `np.add(..., out=)`) and runs on one thread, as it does for
these operations whatever the BLAS threads. Each round times every NumPy case here
(the median of 5 samples of at least 20 ms), then runs
`ndsimd bench --quick --filter par` once with NDSIMD_NUM_THREADS=T. Each case
reports the median over rounds of both sides, their spread, and NumPy time / ours
(> 1: we are faster). Our bench checks every answer before it times it. The same
bench run also times its "fma all threads" row: the script prints that ratio for
each round (about 2 when the two threads had two cores, about 1 when the host ran
them on one) and, when the rounds were mixed, the ratios over the two-core rounds.
"""

import argparse
import os
import statistics
import sys

from interleave import FMA_ROW, median_time, our_times, spread, two_core_report

M = 1024  # the matrix is M x M

CASES = [
    # (row name in our table, n column, NumPy statement over the arrays below)
    ("par sum", 1 << 14, "np.add.reduce(v14)"),
    ("par sum", 1 << 18, "np.add.reduce(v18)"),
    ("par sum", 1 << 22, "np.add.reduce(v22)"),
    ("par add_into", 1 << 14, "np.add(v14, w14, out=o14)"),
    ("par add_into", 1 << 18, "np.add(v18, w18, out=o18)"),
    ("par add_into", 1 << 22, "np.add(v22, w22, out=o22)"),
    ("par sum_axis0", M * M, "np.add.reduce(m, axis=0)"),
    ("par sum_axis1", M * M, "np.add.reduce(m, axis=1)"),
    ("par max_axis1", M * M, "np.maximum.reduce(m, axis=1)"),
    ("par row broadcast into", M * M, "np.add(m, row, out=om)"),
]


def arrays(np):
    rng = np.random.default_rng(1)
    env = {"np": np, "m": rng.standard_normal((M, M)), "row": rng.standard_normal(M)}
    env["om"] = np.empty((M, M))
    for e in (14, 18, 22):
        env["v%d" % e] = rng.standard_normal(1 << e)
        env["w%d" % e] = rng.standard_normal(1 << e)
        env["o%d" % e] = np.empty(1 << e)
    return env


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--bin", default=os.path.join("target", "release", "ndsimd"))
    args = p.parse_args()
    if args.threads < 2:
        sys.exit("the pool table needs --threads 2 or more")
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    import numpy as np

    env = arrays(np)
    calls = {(name, n): eval("lambda: " + stmt, env) for name, n, stmt in CASES}
    np_t = {k: [] for k in calls}
    our_t = {k: [] for k in calls}
    fma = []
    for r in range(args.rounds):
        for key, call in calls.items():
            np_t[key].append(median_time(call))
        got = our_times(args.bin, args.threads, "par", r"(\d+) threads \(the pool\)", list(calls))
        for key in our_t:
            our_t[key].append(got[key])
        if FMA_ROW in got:
            fma.append(got[FMA_ROW])
        print("round %d/%d done" % (r + 1, args.rounds), file=sys.stderr)

    print("NumPy %s (1 thread), ndsimd on %d threads, %d interleaved rounds; "
          "microseconds, medians (spread)" % (np.__version__, args.threads, args.rounds))
    print("%-24s %8s %18s %18s %8s" % ("case", "n", "ndsimd", "NumPy", "NumPy/us"))
    for name, n, _ in CASES:
        o, q = our_t[(name, n)], np_t[(name, n)]
        mo, mq = statistics.median(o), statistics.median(q)
        print("%-24s %8d %10.1f (%4.1f%%) %10.1f (%4.1f%%) %8.2f" % (
            name, n, mo * 1e6, spread(o, mo), mq * 1e6, spread(q, mq), mq / mo))
    two_core_report(fma, [("%s %d" % (name, n), our_t[(name, n)], np_t[(name, n)])
                          for name, n, _ in CASES])


if __name__ == "__main__":
    main()
