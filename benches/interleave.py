"""Shared by the scripts that time NumPy against `ndsimd bench` in the same run.

Each round times every NumPy case in this process, then runs our bench once and
reads our times from its table; the caller keeps the rounds and reports medians.
"""

import os
import re
import statistics
import subprocess
import time


def median_time(call, min_sample=0.02, samples=5):
    """Seconds per `call()`: the median of `samples` samples of at least
    `min_sample` seconds each (as our bench's `--quick`: a median of 5)."""
    call()
    reps = 1
    while True:
        t = time.perf_counter()
        for _ in range(reps):
            call()
        e = time.perf_counter() - t
        if e > min_sample:
            break
        reps *= 4
    out = [e / reps]
    for _ in range(samples - 1):
        t = time.perf_counter()
        for _ in range(reps):
            call()
        out.append((time.perf_counter() - t) / reps)
    return statistics.median(out)


def our_times(binary, threads, bench_filter, header, keys):
    """Runs `ndsimd bench --quick --filter bench_filter` with NDSIMD_NUM_THREADS =
    `threads` and returns {(row name, n): seconds} for `keys`, read from the tables
    whose header matches the regex `header` (its group 1 must be the thread count)."""
    env = dict(os.environ, NDSIMD_NUM_THREADS=str(threads))
    out = subprocess.run([binary, "bench", "--quick", "--filter", bench_filter], env=env,
                         check=True, capture_output=True, text=True).stdout
    times, table = {}, None
    for line in out.splitlines():
        head = re.match(header, line)
        if head:
            table = int(head.group(1))
            continue
        if table != threads:
            continue
        for name, ncol in keys:
            m = re.match(r"%s\s+%d\s+([\d.]+)\s" % (re.escape(name), ncol), line)
            if m and not line[len(name):].lstrip()[0].isalpha():
                times[(name, ncol)] = float(m.group(1)) * 1e-9
    missing = [k for k in keys if k not in times]
    if missing:
        raise SystemExit("no row %r in our bench output" % (missing[0],))
    return times


def spread(values, med):
    """Half the range over the median, in percent."""
    return (max(values) - min(values)) / 2 / med * 100
